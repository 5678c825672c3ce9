"""Pędzące Ślimaki — `pedzace_slimaki_v0` (PettingZoo id `snail_envs/pedzace_slimaki-v0`).

Racing snails (Reiner Knizia): five snails race along a path of leaves, moved by five coloured
dice that pass from seat to seat. Any seat may move any snail; each seat holds a hidden card of two
snails, scores for their places at the end of the race, and scores along the way for landing on
mushrooms and pushing snails back. The full rules are in `snail_envs.pedzace_slimaki.rules`.

    from snail_envs import pedzace_slimaki_v0
    env = pedzace_slimaki_v0.env(num_players=3, render_mode="ansi")        # AEC
    par = pedzace_slimaki_v0.parallel_env(num_players=3)                   # parallel

## Spec

| | |
|---|---|
| agents | `player_0` … `player_{n-1}`, n = `num_players` (2–5); `player_0` rolls first; the dice pass from `player_i` to `player_{i+1}` |
| API | AEC (`env`, `raw_env`) and native parallel (`parallel_env`); turn-based |
| action space | `Discrete(5)`: which die to use (and so which snail moves), 0 blue, 1 green, 2 yellow, 3 purple, 4 red |
| action mask | the dice rolled this turn; with `snail_face_backwards`, not a snail face of a snail on leaf 0 or 1 |
| observation space | `Dict(observation=Box(0, high, (184,), float32), action_mask=Box(0, 1, (5,), int8))` (default options; `high` is 1 except for `points`) |
| state space | `Box(0, high, (204,), float32)` |
| rewards | `reward="winlose"` (default): at the end +1 to every seat with the most points (ties share), −1 to the others. `reward="points"`: the game's points as they are scored (pushes, mushrooms and the finish at once; place points when a race ends). `reward="margin"`: as points are scored, the change in the seat's lead, its points less the mean of the other seats' points (the seats' rewards sum to zero at every step; a seat's return is its final lead) |
| game length | random play: 27.6 decisions a race on average, 46 at most in 10,000 games (30.4 and 70 with `snail_face_backwards`); pushing back and forth could go on forever, so `max_turns` (1000) truncates |
| hidden information | opponents' cards (in `state()` only; `resample_from_infostate` deals them again from the cards the seat does not hold) |
| render modes | `ansi`, `rgb_array` (Pillow), `human` (prints the text view) |
| seat view | `env.unwrapped.render_seat(agent, mode="ansi")` (text) or `mode="rgb_array"` (the picture, the size of `render()`'s): the public table and that seat's own card face up; the other cards face down until the race ends |

Dice cycle: the seat to play rolls the dice it holds and chooses one; a pip die is set aside, a
snail-face die stays in the pool, and the pool passes to the next seat, which rolls it. A seat
that would receive a single die collects all five instead. Each roll is one decision, also when
only one die may be chosen (possible only with `snail_face_backwards`, where a roll with no
allowed die is passed on without a decision). Dice are rolled in colour order (blue first), which
scripted tests rely on.

## Observation (what the seat sees; seats relative to the observer)

| piece | indices | range | meaning |
|---|---|---|---|
| `own_card` | 0–4 | [0, 1] | 1 for the two snails on your card |
| `snail_leaves` | 5–109 | [0, 1] | snail s on leaf p (0 = start, 20 = last leaf): index 21·s + p; snails 0 blue, 1 green, 2 yellow, 3 purple, 4 red |
| `dice_rolled` | 110–139 | [0, 1] | die c rolled this turn shows face f: index 6·c + f − 1 (f = 1–5 pips, 6 = snail face); all zero for a die not rolled |
| `dice_set_aside` | 140–144 | [0, 1] | 1 for each die set aside, to be collected |
| `mushrooms` | 145–165 | [0, 1] | 1 for each leaf with a mushroom |
| `points` | 166–170 | [0, 401.1] | each seat's points so far / 10, relative to you (0 = you, 1 = next seat) |
| `turn` | 171–175 | [0, 1] | the seat to play, relative to you (0 = you, 1 = next seat) |
| `race` | 176–178 | [0, 1] | one-hot: the race being run (1–3) |
| `three_races` | 179–179 | [0, 1] | 1 when the game is three races (`rounds=3`) |
| `num_players` | 180–183 | [0, 1] | one-hot: 2, 3, 4 or 5 players |

With `previews=True` the observation ends with one more piece, `die_previews` (40 entries, 184–223
with the default board): for each die c the seat to play may choose, from index 8·c, what the
rules' move with it would do (`PedzaceSlimaki.preview`): the points it would score / 4, 1 if it
would end the race, each snail's leaf after it / the last leaf, and the place points the
observer's own card would then score as a share of the most a card can (only where the move
ends the race); all zero for a die that may not be chosen, and once the game is over. It is a
function of the public table and the seat's own card: what a player looking one move ahead
works out (the heuristic bot does, from the plain observation), given to learners as input.

With `choice_counts=True` the observation ends with `choice_counts` (55 entries, after the
previews if any): for each seat i relative to the observer, from index 11·i, the times it used
each die in this race / 10 (entries 0–4, by die), the times each die was among the dice it could
choose and it used another / 10 (entries 5–9), and the dice it used in all / 10 (entry 10); zero
again when a race begins. Every seat sees every choice, so this is public history, what a player
remembers of the others' play to read their cards from it (a seat moves the snails it bets on);
the heuristic bot keeps no such memory.

## State (everything, for centralised critics; seats absolute)

| piece | indices | range | meaning |
|---|---|---|---|
| `cards` | 0–24 | [0, 1] | seat i's card holds snail s: index 5·i + s |
| `snail_leaves` | 25–129 | [0, 1] | snail s on leaf p (0 = start, 20 = last leaf): index 21·s + p; snails 0 blue, 1 green, 2 yellow, 3 purple, 4 red |
| `dice_rolled` | 130–159 | [0, 1] | die c rolled this turn shows face f: index 6·c + f − 1 (f = 1–5 pips, 6 = snail face); all zero for a die not rolled |
| `dice_set_aside` | 160–164 | [0, 1] | 1 for each die set aside, to be collected |
| `mushrooms` | 165–185 | [0, 1] | 1 for each leaf with a mushroom |
| `points` | 186–190 | [0, 401.1] | each seat's points so far / 10 (seat number) |
| `turn` | 191–195 | [0, 1] | the seat to play |
| `race` | 196–198 | [0, 1] | one-hot: the race being run (1–3) |
| `three_races` | 199–199 | [0, 1] | 1 when the game is three races (`rounds=3`) |
| `num_players` | 200–203 | [0, 1] | one-hot: 2, 3, 4 or 5 players |

## Options

| option | default | values |
|---|---|---|
| `num_players` | 2 | 2–5 |
| `board_length` | 20 | the number of the last leaf, 2–100 (the start is leaf 0) |
| `mushrooms` | `[4, 8, 12, 16]` | distinct leaves from 1 to `board_length` − 1 (may be empty) |
| `cards` | `[[blue, green], [green, yellow], [yellow, purple], [purple, red], [red, blue]]` | pairs of different colour names, at least one card per seat |
| `rounds` | 1 | 1, or 3: three races, points added up, new cards each race, the next seat begins each race |
| `snail_face_backwards` | `False` | `True`: a chosen snail face moves its snail 2 leaves back and is set aside; it pushes without scoring |
| `place_points` | `[5, 2, 3]` | three non-negative integers: the points of 1st, 2nd and last place |
| `snails` | 5 | 2–5: only the snails and dice of the first this many colours (blue, green, yellow, purple, red) race; the cards may name only them (the batched engine plays only 5) |
| `die_pips` | 5 | 1–5: each die shows the pips 1 to this number and the snail face (the batched engine plays only 5) |
| `max_turns` | 1000 | `None` or a number of turns (a die used, or dice passed on) after which an unfinished game is truncated |
| `previews` | `False` | `True`: each observation ends with `die_previews` (see Observation); the rules are unchanged |
| `choice_counts` | `False` | `True`: each observation ends with `choice_counts` (see Observation); the rules are unchanged |
| `reward` | `"winlose"` | `"winlose"`, `"points"`, `"margin"` (the change in the seat's lead over the others' mean as points are scored; zero-sum) |
| `illegal_action` | `"raise"` | `"raise"` (`ValueError` naming the legal actions), `"penalize"` (the game ends: offender −1, others 0) |
| `render_mode` | `None` | `None`, `"ansi"`, `"rgb_array"`, `"human"` |

Rule choices where the rulebook is silent (all documented in the rules module): the fifth colour
is red; the default cards, board and mushrooms; point tokens are unlimited; landing on the start
leaf pushes nothing, while snails may be pushed onto it; several snails on the second leaf all
score 2nd place; in three races the seat after the previous race's first seat begins.

## Version history

- v0: first release.
  - Option `previews` (the `die_previews` piece): what each die the seat to play may choose
    would do; the default leaves the observation as it was, and every game plays as before.
  - Option `choice_counts` (the `choice_counts` piece): the dice every seat used and passed
    over in this race; the default leaves the observation as it was, and every game plays as
    before.
"""

from __future__ import annotations

from typing import Any

from snail_envs.pedzace_slimaki.env import SPEC, parallel_raw_env, raw_env

__all__ = ["SPEC", "env", "parallel_env", "raw_env"]


def env(**options: Any) -> raw_env:
    """A new AEC environment (see the module docstring for the options)."""
    return raw_env(**options)


def parallel_env(**options: Any) -> parallel_raw_env:
    """A new native parallel environment (see the module docstring for the options)."""
    return parallel_raw_env(**options)
