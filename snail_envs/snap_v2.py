"""Snap — `snap_v2` (PettingZoo id `snail_envs/snap-v2`; `snap_v0` and `snap_v1` are retired, see
the version history).

The reaction card game: seats flip cards onto their piles in turn, and whoever calls "Snap!"
first when two pile tops share a rank takes those piles. Modelling who calls first is the point:
time inside each reaction window is cut into ticks, and the decision is when (and what) to call.
Both published rulesets are here, `classic` (one central pool) and `snap_pot` (several pots, a
grace turn), with the Speed, Double, Single Pile, Slapjack and Picture variants, and options that
let equal players finish (`same_tick`, `refresh`) and make timing a trade-off between speed and
accuracy (`glimpse_error`). Every wrong call costs the caller a card, and a result shared by
two or more seats pays as a draw, so that no policy gains by not playing. The full rules are in
`snail_envs.snap.rules`.

    from snail_envs import snap_v2
    env = snap_v2.env(num_players=3, ruleset="snap_pot", render_mode="ansi")   # AEC
    par = snap_v2.parallel_env(num_players=3, reaction_delay=(0, 1, 1))        # parallel
    fair = snap_v2.env(same_tick="random", refresh="shuffle")    # configs/snap/equal_reflexes.yaml

## Spec

| | |
|---|---|
| agents | `player_0` … `player_{n-1}`, n = `num_players` (2–6 with one pack, up to 12 with two); `player_0` flips first |
| API | native parallel (`parallel_env`: one step = one tick, every seat still in the game acts) and AEC (`env`, `raw_env`: the seats of a tick act one after another, none seeing the others' choices) |
| action space | `Discrete(4)`: 0 `wait`, 1 `snap`, 2 `snap_pool` (the snap pot call in `snap_pot`), 3 `slap` (`slapjack` only) |
| action mask | `wait` and `snap` always (calls are legal whether right or wrong: a wrong call is a move with a penalty); `snap_pool` while a pool exists; `slap` with `slapjack`; only `wait` before the seat's `reaction_delay` has passed in the window, and for the last flipper with `flipper_may_call=False` (every seat in the game acts each tick) |
| observation space | `Dict(observation=Box(low, high, (71,), float32), action_mask=Box(0, 1, (4,), int8))` for the defaults, bounds per piece as below (all [0, 1] but `last_gain`, [−1, 1]); the size is n·(K + 12) + K + R + 5 (+ 2K + 1 with `single_pile`, + R·K with `glimpse_error`, + K more with `recall="perfect"`, + 3 with `call_odds`), K = 13 ranks (or `pictures`), R = `reaction_ticks`; since v2 no piece is new, and a card a wrong call pays from the stack shows in the caller's `stack_sizes` and `last_gain` and in `pool_sizes` (with `single_pile`: `centre_size`, and `centre_below` under a single card) |
| state space | `Box(low, high, (124,), float32)` for the defaults; the size is n·(K + 13) + K + R + 4 + 2nK (+ 2K + 1 with `single_pile`) |
| rewards | `reward="winlose"` (default): a seat that goes out gets −1 then and leaves `agents`; at the end the winner gets +1 and the others −1; a result shared by two or more seats (a draw, a tie for the most cards with `at_limit="most_cards"`, a shared session) pays each of them 0 and the others −1. `reward="points"` (alias `reward="cards"`): after every step, the change in the seat's share of the deck held in its stack and pile (shaping; pools belong to nobody). `reward="margin"`: after every step, the change in the seat's lead, in shares of the deck: its share held in stack and pile less the mean share of the other seats that were in the game before the step (a seat that goes out is paid in that step, then leaves `agents`). The rewards of every step sum to zero. With no seat out before the end, a seat's return is its final lead less its lead at the deal (0 for an even deal; 18/17/17 cards with three seats is not); after a seat goes out, the others' later changes are averaged over the seats still in. In a session (`session`), win-or-lose rewards come once, at the session's end, and a new deal pays nothing |
| game length | at most `max_ticks` ticks (10000), each one decision per seat acting (at most 120000 decisions) |
| hidden information | the order of every stack (in `state()` only, as each stack's top card and key counts); with `glimpse_error`, also the true key of the card flipped last while it is glimpsed, and the other seats' glimpses. `resample_from_infostate` reshuffles every group of interchangeable cards (never seen; one shuffled refresh) among its places, and with `glimpse_error` first draws the flipped card by the seat's glimpses and the others' glimpses anew |
| render modes | `ansi`, `rgb_array` (Pillow), `human` (prints the text view) |
| seat view | `env.unwrapped.render_seat(agent, mode="ansi")` (text) or `mode="rgb_array"` (the picture, the size of `render()`'s): the public table as one seat sees it; with `glimpse_error`, the card flipped last as that seat glimpsed it (its rank only), its own glimpses, and no hint whether a claim is real |

## Time: flips, windows and ticks

Flips are not decisions: the environment flips for the seat whose turn it is (every seat at once
with `speed`), turning its pile over first when its stack is empty. After every flip a reaction
window opens. Each tick of the window, every seat still in the game chooses `wait` or a call, all
at once. The first tick with any call resolves the window; if nobody calls, the window lasts
`reaction_ticks` ticks (3) when something is claimable and one tick when nothing is (then only a
wrong call is possible). After a resolution that moved cards, a new window opens without a flip
while a pile-to-pile match still shows; a resolution that moved nothing (a tied `snap_pool`, a
wrong call by a seat holding no card) ends the window and the next flip follows, so no window
ever runs on an unchanged table.

`reaction_delay` models slower reflexes: a seat with delay d may call only from tick d of each
window on (its mask is `wait` alone before that), so its fastest call lands with the calls other
seats make d ticks after the flip. Calls in the same tick tie; a delay turns a would-be tie into
a loss for the slower seat. The observation says whether you may call in this tick (`may_call`)
and shows every seat's delay.

Resolution of the calling tick (all calls judged against the table at the tick's start): a
correct `snap_pool` first (two or more: nothing moves), then correct snaps (one: the caller takes
every pile showing the matched rank; two or more: a tie, `classic` moves the matched piles to the
pool, `snap_pot` the tied callers' piles to a pot), then a correct slap, then wrong calls in seat
order. With `same_tick="random"` ticks are coarse: of two or more correct calls of one kind, one
caller drawn at random makes the one correct call and the others lapse (their `last_correct` is
0, their cards stay).

A wrong call (`snap`, `snap_pool` or `slap`) always costs the caller cards
(`wrong_call_cost="pile_or_stack"`): its pile goes to the centre, or from an empty pile the top
card of its stack, face up, as its pool or pot; with `single_pile` that card goes face up under
the central pile. Only a seat holding no card (a `snap_pot` seat in its grace) pays nothing. No
piece is new, since every card that moves is seen as it moves: a paid stack card shows in the
caller's `stack_sizes` (one less) and `last_gain` (−1 / deck size), and in `pool_sizes` under the
key of the pool it tops (with `single_pile`, in `centre_size`, and in `centre_below` when it
goes under a single card); it is public from then on, so `resample_from_infostate` keeps it in
place. (`wrong_call_cost="pile"` is `snap_v1`'s rule: an empty pile paid nothing, and a wrong call
in `single_pile` was free.)

Noisy sight (`glimpse_error`, e.g. `(0.6, 0.3, 0.0)`): at tick t of the window after a flip,
each seat sees the card just flipped truly with probability 1 − e_t, else as a key drawn
uniformly from the others; each seat's glimpses are its own (`glimpses` piece, and the flipped
pile's top in `pile_tops`), calls are judged on the true cards, and every window lasts
`reaction_ticks` ticks, so nothing in an observation tells whether a glimpsed claim is real. Calls
are judged openly: after a resolution every card is seen exactly. So calling at tick 0 is
fastest but may be wrong; waiting sees better but may lose the race.

## Observation (what the seat sees; seat i = the i-th seat clockwise from you, 0 = you)

| piece | indices | range | meaning |
|---|---|---|---|
| `pile_tops` | 0–25 | [0, 1] | seat i's pile shows key k: index 13·i + k (key k = rank A…K as 0…12) |
| `pile_sizes` | 26–27 | [0, 1] | cards in seat i's pile / deck size |
| `stack_sizes` | 28–29 | [0, 1] | cards in seat i's stack / deck size |
| `in_game` | 30–31 | [0, 1] | 1 while seat i is in the game |
| `just_flipped` | 32–33 | [0, 1] | 1 if seat i made the last flip |
| `flipped_showing` | 34–35 | [0, 1] | 1 if the card seat i flipped last still shows |
| `next_flippers` | 36–37 | [0, 1] | 1 if seat i flips next |
| `reaction_delays` | 38–39 | [0, 1] | seat i's reaction_delay / 3 |
| `last_calls` | 40–45 | [0, 1] | seat i's call in the last tick that had calls: index 3·i + (0 snap, 1 snap_pool, 2 slap) |
| `last_correct` | 46–47 | [0, 1] | 1 if that call of seat i was right |
| `last_gain` | 48–49 | [-1, 1] | the change in seat i's cards (stack + pile) at that resolution / deck size |
| `pool_sizes` | 50–62 | [0, 1] | cards in the pool (pot) whose top shows key k / deck size |
| `window_tick` | 63–65 | [0, 1] | one-hot: the tick of the window (0 = first) |
| `window_full` | 66–66 | [0, 1] | 1 if the window lasts 3 ticks (something is claimable, or always with glimpse_error), 0 if one tick |
| `reopened` | 67–67 | [0, 1] | 1 if the window opened after a resolution, without a flip |
| `progress` | 68–69 | [0, 1] | flips / max_flips and ticks / max_ticks (0 if no limit) |
| `may_call` | 70–70 | [0, 1] | 1 if you may call in this tick (you act and your reaction_delay has passed) |

Pools and pots are described by their top keys (no two pots ever show the same key). With
`single_pile` the seats' piles stay empty and three pieces describe the central pile, after
`pool_sizes`: `centre_top` (K), `centre_below` (K, the card under the top) and `centre_size` (1).
With `glimpse_error` one more piece ends the observation, `glimpses` (R·K): the key you saw the
card flipped last show at each tick of the window so far (row t = tick t), all 0 once sight is
exact; `pile_tops` (`centre_top`) then shows your latest glimpse of that card. `window_full` is
then always 1. No piece depends on the order of any stack, nor on the true key of a glimpsed
card. The state shows the true table and leaves the glimpses out. With
`glimpse_error=(0.6, 0.3, 0.0)`:

| piece | indices | range | meaning |
|---|---|---|---|
| `glimpses` | 71–109 | [0, 1] | with glimpse_error: the key you saw the card flipped last show at tick t of this window: index 13·t + key (all 0 once sight is exact: after a resolution, in a reopened window) |

Perfect recall (`recall="perfect"`, with `glimpse_error` only): a seat that remembers every card
it has seen knows more about the card just flipped than its glimpses say. Cards turned face up
are followed wherever they go (taken under a stack, turned over with a pile); only the cards
never turned face up, and the cards of a shuffled refresh not flipped since, are groups of
interchangeable cards. So the flipped card is one of its group (or itself alone, when its place
was followed), and a glimpse of a key that no card of the group has is known to be false. The
option changes no rule: it adds one piece after `glimpses`, the memory a seat is entitled to,
which the memoryless observation leaves out (as OpenSpiel's information state adds to its
observation):

| piece | indices | range | meaning |
|---|---|---|---|
| `flipped_recall` | 110–122 | [0, 1] | with recall='perfect', while you glimpse the card flipped last: the share of key k among the cards it may be by every card you have seen (never turned face up, or of its stack's last shuffle; itself alone if you followed it), before your glimpses; all 0 otherwise |

The odds of a call (`call_odds=True`, with `recall="perfect"` only): what follows from that
memory and the seat's own glimpses. The card flipped last is one of the cards it may be, each
as likely as the seat's glimpses would be were it that card (the weights by which a search
redraws it); the piece gives the chance that each call would be right now. It changes no rule
and shows nothing the two pieces before it do not already determine:

| piece | indices | range | meaning |
|---|---|---|---|
| `call_odds` | 123–125 | [0, 1] | with call_odds: the chance that snap, snap_pool and slap would be right in this tick, by every card you have seen and your glimpses (1 or 0 while you see the table as it is) |

Sessions (`session` other than `"single"`): one episode is a whole session of games. Every
seat stays among the agents until the session ends: a seat out of one game acts with `wait`
alone until the next begins. Win-or-lose rewards are paid once, at the session's end (+1 to
a lone winner, 0 to each seat of a shared session, −1 to the others); `points` and `margin` pay per step as in one game, and a new deal pays nothing.
`max_flips` and `max_ticks` count per game. Three pieces join the observation and the state
after `pool_sizes` (after the central pile's pieces with `single_pile`), shown here for
`session="best_of_3"`:

| piece | indices | range | meaning |
|---|---|---|---|
| `session_wins` | 63–64 | [0, 1] | games seat i has won in this session / 2 |
| `game_number` | 65–65 | [0, 1] | the game's number in the session / 6 |
| `sudden_death` | 66–66 | [0, 1] | 1 in a sudden-death game (the tied seats play) |

## State (everything, for centralised critics; seat i = seat number)

| piece | indices | range | meaning |
|---|---|---|---|
| `pile_tops` | 0–25 | [0, 1] | seat i's pile shows key k: index 13·i + k (key k = rank A…K as 0…12) |
| `pile_sizes` | 26–27 | [0, 1] | cards in seat i's pile / deck size |
| `stack_sizes` | 28–29 | [0, 1] | cards in seat i's stack / deck size |
| `in_game` | 30–31 | [0, 1] | 1 while seat i is in the game |
| `just_flipped` | 32–33 | [0, 1] | 1 if seat i made the last flip |
| `flipped_showing` | 34–35 | [0, 1] | 1 if the card seat i flipped last still shows |
| `next_flippers` | 36–37 | [0, 1] | 1 if seat i flips next |
| `reaction_delays` | 38–39 | [0, 1] | seat i's reaction_delay / 3 |
| `last_calls` | 40–45 | [0, 1] | seat i's call in the last tick that had calls: index 3·i + (0 snap, 1 snap_pool, 2 slap) |
| `last_correct` | 46–47 | [0, 1] | 1 if that call of seat i was right |
| `last_gain` | 48–49 | [-1, 1] | the change in seat i's cards (stack + pile) at that resolution / deck size |
| `pool_sizes` | 50–62 | [0, 1] | cards in the pool (pot) whose top shows key k / deck size |
| `window_tick` | 63–65 | [0, 1] | one-hot: the tick of the window (0 = first) |
| `window_full` | 66–66 | [0, 1] | 1 if the window lasts 3 ticks (something is claimable, or always with glimpse_error), 0 if one tick |
| `reopened` | 67–67 | [0, 1] | 1 if the window opened after a resolution, without a flip |
| `progress` | 68–69 | [0, 1] | flips / max_flips and ticks / max_ticks (0 if no limit) |
| `may_call` | 70–71 | [0, 1] | 1 if seat i may call in this tick |
| `stack_tops` | 72–97 | [0, 1] | seat i's stack's top card has key k: index 13·i + k |
| `stack_keys` | 98–123 | [0, 1] | cards of key k in seat i's stack / 4: index 13·i + k |

## Options

| option | default | values |
|---|---|---|
| `num_players` | 2 | 2–12 (above 6 only with two packs) |
| `ruleset` | `"classic"` | `"classic"` (one central pool; ties send the matched piles to it; out as soon as stack and pile are empty), `"snap_pot"` (several pots merged by top rank; ties send the tied callers' piles; a seat with no cards may win some back until its next turn) |
| `decks` | `"auto"` | `"auto"` (one pack up to six players, two above), `1`, `2` (rank decks only) |
| `reaction_ticks` | 3 | 1–10: the most ticks of a window |
| `reaction_delay` | `None` | `None` (0 for every seat) or one integer a seat, each from 0 to `reaction_ticks` − 1 |
| `flipper_may_call` | `True` | `False`: the last flipper may not call in its windows, only wait (a tournament rule) |
| `speed` | `False` | `True`: every seat flips at once each round (2–3 players; not with `flipper_may_call=False`) |
| `double` | `False` | `True`: on a snap won alone, every other owner of a taken pile also gives the caller its stack's top card |
| `single_pile` | `False` | `True`: one central pile, a match is its top equal to the card below (`classic` only; not with `speed` or `double`) |
| `slapjack` | `False` | `True`: `slap` a Jack on any pile top to take that pile (rank decks only) |
| `match_key` | `"rank"` | `"rank"`, `"picture"` (a picture deck: a match is the same picture) |
| `pictures` | `None` | picture decks: 2–52 pictures (`None`: 13) |
| `copies` | `None` | picture decks: 2–8 copies of each picture (`None`: 4) |
| `max_flips` | 2000 | `None` or a number of flips after which an unfinished game stops (before the next flip), as `at_limit` says |
| `max_ticks` | 10000 | `None` or a number of ticks after which an unfinished game stops, as `at_limit` says |
| `at_limit` | `"truncate"` | what reaching `max_flips` or `max_ticks` does: `"truncate"` (the game is truncated, won by nobody), `"most_cards"` (the game ends, a termination: the seat or seats in the game holding the most cards in stack and pile win; pools count for nobody) |
| `wrong_call_cost` | `"pile_or_stack"` | `"pile_or_stack"` (a wrong call sends the caller's pile to the centre, or from an empty pile the top card of its stack, face up; with `single_pile`, that card under the central pile), `"pile"` (`snap_v1`'s rule: from an empty pile, and in `single_pile`, a wrong call moves nothing) |
| `same_tick` | `"tie"` | `"tie"` (two or more correct calls of one kind in a tick tie, as the rulebook says), `"random"` (one of them, drawn at random, is the correct call; the others lapse) |
| `refresh` | `"turn_over"` | `"turn_over"` (an empty stack is renewed by turning the pile over, unshuffled), `"shuffle"` (the pile is shuffled as it is turned over) |
| `session` | `"single"` | `"single"` (one game), `"best_of_3"`, `"best_of_5"`, `"first_to_3"`: one episode is a session of games, the winner of each dealing the next; a draw or a truncated game counts for nobody; a tie for the most wins after the session's games (N for `best_of_N`, 2n + 1 for `first_to_3`) goes to a sudden death among the tied seats |
| `max_sudden_deaths` | 3 | 0 or more: sudden deaths played at most (drawn or truncated ones are replayed), after which the tied seats share the win |
| `glimpse_error` | `()` | perfect sight, or a non-increasing sequence of at most `reaction_ticks` error probabilities in [0, 1], one a tick of the window (later ticks: 0), e.g. `(0.6, 0.3, 0.0)`; YAML lists are accepted; not with `speed` |
| `recall` | `"none"` | `"none"` (the observation shows the table and this window's glimpses), `"perfect"` (with `glimpse_error` only: it also shows the keys the card flipped last may have by every card the seat has seen, `flipped_recall`) |
| `call_odds` | `False` | `True` (with `recall="perfect"` only): the observation ends with the chance that each call would be right now, by every card the seat has seen and its glimpses (`call_odds`); the rules are unchanged |
| `reward` | `"winlose"` | `"winlose"`, `"points"` or its alias `"cards"` (the change in the seat's share of the cards each step), `"margin"` (the change in the seat's share minus the mean of the others' shares) |
| `illegal_action` | `"raise"` | `"raise"` (`ValueError` naming the legal actions), `"penalize"` (the game ends: offender −1, others 0) |
| `render_mode` | `None` | `None`, `"ansi"`, `"rgb_array"`, `"human"` |

Silent Snap and Animal Snap change the call, not the rules; they are presets (`silent.yaml`,
`animal.yaml`) in `configs/snap/`, beside `classic`, `snap_pot`, `speed`, `double`,
`single_pile`, `slapjack`, `picture`, `tournament` (`flipper_may_call=False`),
`uneven_reflexes` (`reaction_delay`), `big_table` (eight players, two packs),
`equal_reflexes` (`same_tick="random"`, `refresh="shuffle"`: games between equal players end),
`noisy_sight` (those two and `glimpse_error`) and `best_of_3` (a session, with equal reflexes):

    import yaml, snail_envs
    env = snail_envs.make("snap_v2", **yaml.safe_load(open("configs/snap/snap_pot.yaml")))

## Random play (uniform over legal actions; 1000 games a row unless noted)

| setup | flips a game: mean / median / 95th pct. / max | truncated at 2000 flips | draws |
|---|---|---|---|
| `classic`, 2 players | 60 / 53 / 95 / 190 | 0% | 2.2% |
| `classic`, 4 players | 62 / 54 / 102 / 213 | 0% | 2.7% |
| `classic`, 6 players | 58 / 52 / 87 / 187 | 0% | 7.0% |
| `classic`, 12 players (300 games) | 109 / 104 / 136 / 299 | 0% | 10.3% |
| `snap_pot`, 2 players | 244 / 223 / 460 / 768 | 0% | 0% |
| `snap_pot`, 4 players | 310 / 288 / 535 / 722 | 0% | 0% |
| `snap_pot`, 6 players | 290 / 270 / 510 / 870 | 0% | 0% |
| `snap_pot`, 12 players (300 games) | 1019 / 956 / 2000 / 2000 | 14% | 0% |

A window lasts 1.02 (`classic`) to 1.08 (`snap_pot`) ticks on average under random play:
someone nearly always calls at once. Equal reflexes make Snap endless: when every seat makes
every right call at the first tick (preferring `snap_pool`), every claim is a tie, and 70%
(`classic`, 2 players) to 85% (`classic`, 4 players) of 200 games reach the 2000-flip limit; in
`snap_pot` with four players, tied `snap_pool` calls beside a standing pile match move nothing
and reopen the window again and again, so `max_ticks` stops 98% of those games. With
`reaction_delay=(0, 1)` the same callers finish in 185 flips on average (4.5% truncated), the
faster seat winning 95.5%. Tiny picture decks can also cycle for ever without a match, since a
refresh never shuffles.

## Version history

- v2: no play is free, and not playing never pays.
  - Option `call_odds` (the `call_odds` piece): the chance that each call would be right, by
    the seat's memory and glimpses; the default leaves the observation as it was, and every
    game plays as before.
  - A wrong call from an empty pile sends the top card of the caller's stack, face up, to the
    centre, and in `single_pile` a wrong call puts that card under the central pile (in v1 both
    were free: a trained policy kept its pile empty and called at every tick, and its whole edge
    over the heuristic, 75.7%, fell to 26.0% once such calls cost a card). Option
    `wrong_call_cost` ("pile" is v1's rule).
  - With `reward="winlose"` a result shared by two or more seats (a draw, a shared session, a
    tie for the most cards) pays 0 to each sharer and −1 to the others (v1: +1 to every sharer,
    so two seats that never called both got +1 from a best-of-3 session).
  - Option `at_limit`: "most_cards" ends a game at `max_flips`/`max_ticks` as a termination won
    by the most cards (the solvable mini variants use it); "truncate" (the default) as before.
  - Outcomes name their kind (`Outcome.termination`: goal, draw, limit, session).
- v1: games between equal players can finish, and timing can be a real decision.
  - A resolution that moves no card ends the window and the next flip follows (in v0 a tied
    `snap_pool` beside a standing pile match reopened the window on the same table, for ever).
  - With `flipper_may_call=False` the last flipper acts with a mask of `wait` alone (v0: an
    all-zero mask); every seat in the game acts each tick.
  - New options `same_tick`, `refresh` and `glimpse_error` (defaults keep the rulebook), the
    `glimpses` piece with `glimpse_error`, and `reward="margin"`.
  - Sessions (`session`, `max_sudden_deaths`): best-of-3, best-of-5 and first-to-3 as one
    episode, with the `session_wins`, `game_number` and `sudden_death` pieces.
  - Presets `equal_reflexes`, `noisy_sight` and `best_of_3`.
  - Option `recall="perfect"` (the `flipped_recall` piece): what a seat remembers of the card
    flipped last under `glimpse_error`; the default leaves the observation as it was.
  (Retired: `snail_envs.make("snap_v1")`, `import snail_envs.snap_v1` and the id
  `snail_envs/snap-v1` raise an error naming `snap_v2`.)
- v0: first release (retired: `snail_envs.make("snap_v0")`, `import snail_envs.snap_v0` and the
  id `snail_envs/snap-v0` raise an error naming the current version).
"""

from __future__ import annotations

from typing import Any

from snail_envs.snap.env import SPEC, parallel_raw_env, raw_env

__all__ = ["SPEC", "env", "parallel_env", "raw_env"]


def env(**options: Any) -> raw_env:
    """A new AEC environment (see the module docstring for the options)."""
    return raw_env(**options)


def parallel_env(**options: Any) -> parallel_raw_env:
    """A new native parallel environment (see the module docstring for the options)."""
    return parallel_raw_env(**options)
