"""A tiny game that exercises every adapter path: turns, simultaneous windows, eliminations.

Rules: the active seat adds 1 or 2 to a public counter. Then every other seat still in the game
decides at once to pass or claim: a claim on an odd counter scores 1 point, a claim on an even
counter puts the claimant out. The next seat still in takes the turn. The game ends when the
counter reaches `target` or one seat is left; the most points among the seats still in wins.
Each seat holds a hidden secret bit that only it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.chance import Chance
from snail_envs.core.game import GameInfo, GameSpec, Outcome
from snail_envs.core.layout import Layout, Piece
from snail_envs.core.options import check_int, check_optional_int
from snail_envs.core.parallel import SnailParallelEnv

PASS, ADD_ONE, ADD_TWO, CLAIM = range(4)
ACTION_NAMES = ("pass", "add one", "add two", "claim")


@dataclass(frozen=True)
class ToyOptions:
    num_players: int = 3
    target: int = 8
    max_ticks: int | None = None

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 4)
        check_int("target", self.target, 1, 50)
        check_optional_int("max_ticks", self.max_ticks, 1)


class ToyGame:
    def __init__(self, options: ToyOptions, chance: Chance) -> None:
        self.options = options
        self.num_players = options.num_players
        self.chance = chance
        self.secrets = [chance.pick((0, 1)) for _ in range(self.num_players)]
        self.counter = 0
        self.active = 0
        self.window = False
        self.out: set[int] = set()
        self.score = [0] * self.num_players
        self.ticks = 0
        self.outcome: Outcome | None = None

    @property
    def truncated(self) -> bool:
        limit = self.options.max_ticks
        return self.outcome is None and limit is not None and self.ticks >= limit

    def acting_seats(self) -> tuple[int, ...]:
        if self.outcome is not None or self.truncated:
            return ()
        if self.window:
            return tuple(
                s for s in range(self.num_players) if s != self.active and s not in self.out
            )
        return (self.active,)

    def legal_actions(self, seat: int) -> list[int]:
        if seat not in self.acting_seats():
            return []
        return [PASS, CLAIM] if self.window else [ADD_ONE, ADD_TWO]

    def apply(self, actions: Mapping[int, int]) -> None:
        self.ticks += 1
        if not self.window:
            self.counter += actions[self.active]
            self.window = True
        else:
            for seat, action in actions.items():
                if action == CLAIM:
                    if self.counter % 2:
                        self.score[seat] += 1
                    else:
                        self.out.add(seat)
            self.window = False
            self.active = next(
                s % self.num_players
                for s in range(self.active + 1, self.active + 1 + self.num_players)
                if s % self.num_players not in self.out
            )
        alive = [s for s in range(self.num_players) if s not in self.out]
        if self.counter >= self.options.target or len(alive) == 1:
            best = max(self.score[s] for s in alive)
            self.outcome = Outcome(frozenset(s for s in alive if self.score[s] == best), "end")

    def is_in_game(self, seat: int) -> bool:
        return seat not in self.out

    def points(self) -> list[int]:
        return list(self.score)

    def describe_action(self, seat: int, action: int) -> str:
        return ACTION_NAMES[action]

    def private_text(self, seat: int) -> str:
        return f"your secret is {self.secrets[seat]}"

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        for other in range(self.num_players):
            if other != seat:
                self.secrets[other] = chance.pick((0, 1))


OBSERVATION = Layout(
    (
        Piece("own_secret", 1, "your secret bit"),
        Piece("counter", 1, "the counter / 60"),
        Piece("in_window", 1, "1 during a claim window"),
        Piece("active", 4, "the active seat, relative"),
    )
)
STATE = Layout((Piece("secrets", 4, "every secret"), Piece("counter", 1, "the counter / 60")))


class ToyObserver:
    observation_layout = OBSERVATION
    state_layout = STATE

    def __init__(self, options: ToyOptions) -> None:
        self.num_players = options.num_players

    def reset(self, game: ToyGame) -> None:
        pass

    def observe(self, game: ToyGame, seat: int) -> np.ndarray:
        vector = OBSERVATION.zeros()
        vector[0] = game.secrets[seat]
        vector[1] = game.counter / 60
        vector[2] = game.window
        vector[3 + (game.active - seat) % self.num_players] = 1
        return vector

    def state(self, game: ToyGame) -> np.ndarray:
        vector = STATE.zeros()
        vector[: game.num_players] = game.secrets
        vector[4] = game.counter / 60
        return vector


SPEC = GameSpec(
    info=GameInfo(
        env_name="toy_v0",
        title="Toy",
        min_players=2,
        max_players=4,
        num_actions=4,
        max_game_length=200,
        points_range=(0.0, 50.0),
        hidden_information=True,
        simultaneous=True,
    ),
    options_class=ToyOptions,
    new_game=ToyGame,
    new_observer=ToyObserver,
    render_ansi=lambda game, seat=None, names=None: (
        f"counter {game.counter}, active {game.active}, out {sorted(game.out)}"
        + ("" if seat is None else f"; {game.private_text(seat)}")
    ),
    render_rgb=lambda game, seat=None, names=None: np.zeros((8, 8, 3), dtype=np.uint8),
)


class ToyAEC(SnailAECEnv):
    spec = SPEC


class ToyParallel(SnailParallelEnv):
    spec = SPEC


class toy_module:
    env = ToyAEC
    parallel_env = ToyParallel
