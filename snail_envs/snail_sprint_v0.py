"""Snail Sprint! — `snail_sprint_v0` (PettingZoo id `snail_envs/snail_sprint-v0`).

A dice race of six snails up a board and over a tin (HABA 2018). Each seat holds a hidden race
card of three snails and scores when they reach the podium. The full rules are in
`snail_envs.snail_sprint.rules`.

    from snail_envs import snail_sprint_v0
    env = snail_sprint_v0.env(num_players=3, render_mode="ansi")        # AEC
    par = snail_sprint_v0.parallel_env(num_players=3)                   # parallel

## Spec

| | |
|---|---|
| agents | `player_0` … `player_{n-1}`, n = `num_players` (2–4); `player_0` rolls first |
| API | AEC (`env`, `raw_env`) and native parallel (`parallel_env`); turn-based |
| action space | `Discrete(6)`: which snail moves, 0 star/yellow, 1 flower/purple, 2 circle/pink, 3 cloverleaf/green, 4 triangle/orange, 5 square/blue |
| action mask | the snails the current roll lets move (the two rolled snails, or the rearmost free snail) |
| observation space | `Dict(observation=Box(0, 1, (487,), float32), action_mask=Box(0, 1, (6,), int8))` |
| state space | `Box(0, 1, (505,), float32)` |
| rewards | `reward="winlose"` (default): at the end +1 to every seat with the most points (ties share), −1 to the others. `reward="points"`: the race-card points (3/2/1 for places 1/2/3), paid at the end. `reward="margin"`: at the end, the seat's race-card points less the mean of the other seats' (the seats' rewards sum to zero; a seat's return is its final lead; 0 to every seat of a truncated game) |
| game length | at most 219 rolls (every roll moves one snail at least one space forward) |
| hidden information | opponents' race cards (in `state()` only; `resample_from_infostate` redraws them) |
| render modes | `ansi`, `rgb_array` (Pillow), `human` (prints the text view) |
| seat view | `env.unwrapped.render_seat(agent, mode="ansi")` (text) or `mode="rgb_array"` (the picture, the size of `render()`'s): the public table and that seat's own race card face up; the other cards face down until the end |

Forced moves: a roll that allows one move only (doubles, one rolled snail blocked, or the
rearmost-snail rule) is played by the environment without asking, and the next seat rolls. With
`expose_forced_moves=True` every roll is a decision, with one legal action when forced.

## Observation (what the seat sees; seats relative to the observer)

| piece | indices | range | meaning |
|---|---|---|---|
| `own_race_card` | 0–5 | [0, 1] | 1 for the snails on your card |
| `snail_spaces` | 6–227 | [0, 1] | snail s on space p (0 = start, 1–36): index 37·s + p; all zero on the podium |
| `tower_levels` | 228–233 | [0, 1] | each snail's height in its tower, divided by 5 |
| `snails_free` | 234–239 | [0, 1] | 1 if the snail may move (start or top of its space) |
| `podium` | 240–257 | [0, 1] | place k held by snail s: index 6·k + s |
| `dice` | 258–263 | [0, 1] | the roll being decided (or the last roll): dice showing s, / 2 |
| `track_symbols` | 264–479 | [0, 1] | symbol s printed on space p (1–36): index 6·(p−1) + s |
| `num_players` | 480–482 | [0, 1] | one-hot: 2, 3 or 4 players |
| `turn` | 483–486 | [0, 1] | the seat to play, relative to you (0 = you, 1 = next seat) |

## State (everything, for centralised critics; seats absolute)

| piece | indices | range | meaning |
|---|---|---|---|
| `race_cards` | 0–23 | [0, 1] | seat i's card holds snail s: index 6·i + s |
| `snail_spaces` | 24–245 | [0, 1] | snail s on space p (0 = start, 1–36): index 37·s + p; all zero on the podium |
| `tower_levels` | 246–251 | [0, 1] | each snail's height in its tower, divided by 5 |
| `snails_free` | 252–257 | [0, 1] | 1 if the snail may move (start or top of its space) |
| `podium` | 258–275 | [0, 1] | place k held by snail s: index 6·k + s |
| `dice` | 276–281 | [0, 1] | the roll being decided (or the last roll): dice showing s, / 2 |
| `track_symbols` | 282–497 | [0, 1] | symbol s printed on space p (1–36): index 6·(p−1) + s |
| `num_players` | 498–500 | [0, 1] | one-hot: 2, 3 or 4 players |
| `turn` | 501–504 | [0, 1] | the seat to play (seat number) |

## Options

| option | default | values |
|---|---|---|
| `num_players` | 2 | 2–4 |
| `board` | `"A"` | `"A"` (beginner, one symbol a space), `"B"` (pro, 1–3 symbols), or 24 strings of symbol letters `YPKGOB` for spaces 1–18 and 31–36 |
| `tin_order` | `"fixed"` | `"fixed"`, `"reversed"`, `"shuffled"` (a random order of the tin's 12 spaces each game) |
| `tin_top_stacking` | `True` | `False`: the tin top (22–27) holds one snail a space, like the walls |
| `race_cards` | the 12 cards `YOB PKB YPK YPG YPO YKG YKB PGO PGB KGO KOB GOB` | any cards of 1–6 letters, at least one per seat |
| `expose_forced_moves` | `False` | `True`: forced moves are decisions with one legal action |
| `max_turns` | `None` | `None` or a number of rolls after which an unfinished game is truncated |
| `track_length` | 36 | 3–36: the podium follows this space (a shorter race; the batched engine plays only 36) |
| `snails` | 6 | 3–6: only the first this many snails race (star, flower, circle, cloverleaf, triangle, square); the dice show only their symbols and the race cards may name only them (the batched engine plays only 6) |
| `reward` | `"winlose"` | `"winlose"`, `"points"`, `"margin"` (the seat's points less the others' mean, at the end; zero-sum) |
| `illegal_action` | `"raise"` | `"raise"` (`ValueError` naming the legal actions), `"penalize"` (the game ends: offender −1, others 0) |
| `render_mode` | `None` | `None`, `"ansi"`, `"rgb_array"`, `"human"` |

## Version history

- v0: first release.
"""

from __future__ import annotations

from typing import Any

from snail_envs.snail_sprint.env import SPEC, parallel_raw_env, raw_env

__all__ = ["SPEC", "env", "parallel_env", "raw_env"]


def env(**options: Any) -> raw_env:
    """A new AEC environment (see the module docstring for the options)."""
    return raw_env(**options)


def parallel_env(**options: Any) -> parallel_raw_env:
    """A new native parallel environment (see the module docstring for the options)."""
    return parallel_raw_env(**options)
