"""How long a game is: the counts the library's tools print, each under one name, counted in one
place (`GameLength`, which every environment keeps of its game in progress: `env.unwrapped.length`).

- **decisions**: the actions the seats chose, one per acting seat of a tick (a simultaneous
  window of three seats is three decisions). `snail-demo` ("decisions per game"), `snail-replay`
  ("decision k/N"), `GameInfo.max_game_length`, the compiled engines' `played`.
- **AEC steps**: the AEC environment's `step` calls: the decisions, an illegal action that ends
  the game, and the one step (action `None`) each finished seat takes to leave, as PettingZoo
  requires. A replay file's lines between its header and its result; `snail-replay`'s "steps".
- **ticks**: the rules' `apply` calls, the parallel environment's steps: the moments the rules
  take actions, one seat's or several at once (Snap's `ticks`, Snailed It!'s `ticks_played`).
  `snail-rllib` (RLlib's "env steps" of the parallel environment are ticks).
- **timesteps**: `snail-train`'s learner timesteps, Stable-Baselines3's count: the decisions of
  the learner's seat, added over all its training games (the single-agent view's steps).
  `snail-train`, `snail-exploit`, a run's `summary.json`.

So a two-player game of 23 decisions is 25 AEC steps (each seat steps `None` once to leave), as
many ticks as it has decisions when the seats take turns, and about half as many timesteps when
one seat learns. A game's turns, rounds and flips are the rules' own counts, in the rulebook's
words (`turns_played`, `flips`), not lengths of play.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GameLength:
    """The lengths of the game in progress so far (zero at its start)."""

    decisions: int = 0
    aec_steps: int = 0
    """Zero in the parallel environment, which has no AEC steps."""
    ticks: int = 0
