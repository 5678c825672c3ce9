"""Snailed It! — `snailed_it_v0` (PettingZoo id `snail_envs/snailed_it-v0`).

A shedding card game of four colour rows (also sold as Cabanga!). On your turn you play a card onto
the left or right pile of its colour's row; if the row's two top values then leave a gap, every
other seat may toss the cards of that colour that fit the gap at you, all at once, and you draw a
penalty card for each. A round ends when a hand is empty; the cards left in hand score points and
the lowest total wins. The full rules are in `snail_envs.snailed_it.rules`.

    from snail_envs import snailed_it_v0
    env = snailed_it_v0.env(num_players=4, render_mode="ansi")          # AEC
    par = snailed_it_v0.parallel_env(num_players=4)                     # parallel

## Spec

| | |
|---|---|
| agents | `player_0` … `player_{n-1}`, n = `num_players` (2–6, default 4); `player_0` plays first, the next seat starts each later round |
| API | AEC (`env`, `raw_env`) and native parallel (`parallel_env`); turns with a simultaneous toss window |
| cards | number card c = 18·colour + value − 1 (0–71), colours 0 orange, 1 yellow, 2 blue, 3 pink; values 1–18 |
| action space | `Discrete(217)`: 0–143 play card `a // 2` on the left (`a % 2 = 0`) or right (`a % 2 = 1`) pile of its colour's row; 144–215 toss card `a − 144`; 216 pass |
| action mask | play phase: the seat to play may play each card of its hand on either side (other seats: all zero); toss window: every other seat may toss each fitting card it holds (its row's colour, strictly inside the gap) or pass — a seat with no fitting card has `pass` only; the seat to play: all zero |
| observation space | `Dict(observation=Box(0, 1, (391,), float32), action_mask=Box(0, 1, (217,), int8))` |
| state space | `Box(0, 1, (823,), float32)` |
| rewards | `reward="winlose"` (default): when the game ends +1 to every seat with the lowest total (ties share), −1 to the others. `reward="points"`: after each round, minus the points each seat added to its total (a dense reward; bounded by −161 over a game with the default options). `reward="margin"`: after each round, the change in the seat's lead, its points (minus its total) less the mean of the other seats' points: the mean of the points the others added less the points it added. The seats' rewards sum to zero, and a seat's return is its final lead (the others' mean total less its own) |
| game length | at most `max_rounds` rounds of at most 72 turns; a toss window lasts at most 17 ticks (at most 16 cards fit a gap); bound 123,840 decisions with the defaults, random play with 4 seats ≈ 325 decisions |
| hidden information | other seats' hands, the order of the penalty and tossed piles (in `state()` only; `resample_from_infostate` redeals them) |
| render modes | `ansi`, `rgb_array` (Pillow), `human` (prints the text view) |
| seat view | `env.unwrapped.render_seat(agent, mode="ansi")` (text) or `mode="rgb_array"` (the picture, the size of `render()`'s): the public table and that seat's own hand face up (in a toss window, the cards it may toss framed); the other hands face down, their sizes shown |

Toss window: after a play that leaves a gap (|a − b| ≥ 2 between the row's tops) every other seat
acts in each tick, at once: in the parallel API one `step` is one tick and takes every seat's action
(the seat to play, and in the play phase every other seat, has an all-zero mask and its action is
ignored); in the AEC API the seats of a tick act one after another, clockwise from the left of the
seat to play, and none sees the others' choices of that tick (the tick is applied after its last
seat). The window opens whenever the gap exists, even if nobody holds a fitting card: a seat that
passes with only `pass` legal looks exactly like a seat that chose to pass. It closes after a tick
in which everybody passes. The seat to play draws one card per card tossed, after each tick.

## Observation (what the seat sees; seats relative to the observer)

| piece | indices | range | meaning |
|---|---|---|---|
| `own_hand` | 0–71 | [0, 1] | 1 for each card in your hand |
| `row_tops` | 72–215 | [0, 1] | row r's side s (0 left, 1 right) shows value v: index 36·r + 18·s + v − 1 |
| `played_cards` | 216–287 | [0, 1] | number cards on the rows this round, on top or covered |
| `tossed_pile` | 288–359 | [0, 1] | cards in the tossed pile (public; its order is hidden) |
| `previous_colour` | 360–363 | [0, 1] | the colour played on the previous turn (all zero on a round's first turn); during a toss window, the row of the gap |
| `toss_window` | 364–364 | [0, 1] | 1 during a toss window, 0 when a card is to be played |
| `penalty_pile_size` | 365–365 | [0, 1] | cards in the penalty pile / 72 |
| `tossed_pile_size` | 366–366 | [0, 1] | cards in the tossed pile / 72 |
| `rounds_played` | 367–367 | [0, 1] | rounds finished / `max_rounds` |
| `num_players` | 368–372 | [0, 1] | one-hot: 2 to 6 players |
| `turn` | 373–378 | [0, 1] | the seat to play, relative to you (0 = you, 1 = next seat) |
| `hand_sizes` | 379–384 | [0, 1] | each seat's hand size / 72, relative to you |
| `totals` | 385–390 | [0, 1] | each seat's total / `target` (capped at 1), relative to you |

## State (everything, for centralised critics; seats absolute)

| piece | indices | range | meaning |
|---|---|---|---|
| `hands` | 0–431 | [0, 1] | seat i holds card c: index 72·i + c |
| `penalty_pile` | 432–503 | [0, 1] | for each card in the penalty pile, 1 − (its depth below the top) / 72 (top card 1) |
| `row_tops` | 504–647 | [0, 1] | row r's side s (0 left, 1 right) shows value v: index 36·r + 18·s + v − 1 |
| `played_cards` | 648–719 | [0, 1] | number cards on the rows this round, on top or covered |
| `tossed_pile` | 720–791 | [0, 1] | cards in the tossed pile (public; its order is hidden) |
| `previous_colour` | 792–795 | [0, 1] | the colour played on the previous turn (all zero on a round's first turn); during a toss window, the row of the gap |
| `toss_window` | 796–796 | [0, 1] | 1 during a toss window, 0 when a card is to be played |
| `penalty_pile_size` | 797–797 | [0, 1] | cards in the penalty pile / 72 |
| `tossed_pile_size` | 798–798 | [0, 1] | cards in the tossed pile / 72 |
| `rounds_played` | 799–799 | [0, 1] | rounds finished / `max_rounds` |
| `num_players` | 800–804 | [0, 1] | one-hot: 2 to 6 players |
| `turn` | 805–810 | [0, 1] | the seat to play (seat number) |
| `hand_sizes` | 811–816 | [0, 1] | each seat's hand size / 72 |
| `totals` | 817–822 | [0, 1] | each seat's total / `target` (capped at 1) |

## Options

| option | default | values |
|---|---|---|
| `num_players` | 4 | 2–6 (the published game: 3–6) |
| `hand_size` | 8 | 1 to (number cards in play: 72 by default) // `num_players` cards dealt to each seat every round |
| `target` | 18 | a total that ends the game after the round in which a seat reaches it (at least 1) |
| `max_rounds` | 20 | the game ends after this many rounds even if nobody reached `target` (at least 1) |
| `card_points` | `(1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1)` | 18 non-negative integers: the points of a card of value 1 … 18 left in hand |
| `max_turns` | `None` | `None` or a number of turns (plays) after which an unfinished game is truncated |
| `colours` | 4 | 1–4: only the first this many rows (orange, yellow, blue, pink) are laid and only their number cards are dealt (the batched engine plays only 4) |
| `values` | 18 | 1–18: the number cards of each colour show only the values 1 to `values` (the batched engine plays only 18) |
| `starters` | `(1, 3, 5, 7, 12, 14, 16, 18)` | the grey starters in the box: some of these eight, each once, at least two a row; shuffled, the first two go to the first row (left, right) and so on, the rest stay in the box (the batched engine plays only all eight) |
| `reward` | `"winlose"` | `"winlose"`, `"points"`, `"margin"` (the change in the seat's lead over the others' mean each round; zero-sum) |
| `illegal_action` | `"raise"` | `"raise"` (`ValueError` naming the legal actions), `"penalize"` (the game ends: offender −1, others 0) |
| `render_mode` | `None` | `None`, `"ansi"`, `"rgb_array"`, `"human"` |

## Version history

- v0: first release.
"""

from __future__ import annotations

from typing import Any

from snail_envs.snailed_it.env import SPEC, parallel_raw_env, raw_env

__all__ = ["SPEC", "env", "parallel_env", "raw_env"]


def env(**options: Any) -> raw_env:
    """A new AEC environment (see the module docstring for the options)."""
    return raw_env(**options)


def parallel_env(**options: Any) -> parallel_raw_env:
    """A new native parallel environment (see the module docstring for the options)."""
    return parallel_raw_env(**options)
