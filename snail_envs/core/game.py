"""What a game must offer the generic adapters, and the facts each game declares up front.

A game is written as a plain rules engine (`<game>/rules.py`) that knows nothing of PettingZoo. The
adapters in `core/aec.py` and `core/parallel.py` drive any engine that follows the `Game` protocol:
they ask which seats act now, which actions are legal, hand over the actions of one tick, and read
the outcome. A turn-based game has one acting seat at a time; a simultaneous window has several,
whose actions are applied together.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from snail_envs.core.chance import Chance
from snail_envs.core.layout import Layout


class Termination(enum.Enum):
    """The kind of end a finished game reached (as python-chess's `Outcome.termination`): what
    code tests, while `Outcome.reason` says it in words for people."""

    GOAL = "goal"
    """The rulebook's end: a race was won, a total reached, one seat is left in the game."""
    DRAW = "draw"
    """The rulebook's end with no winner of its own: the result is shared by the seats named
    (Snap: the last seats went out together, or none of them holds a card)."""
    LIMIT = "limit"
    """A length limit that the rules score ended the game (Snailed It!'s `max_rounds`, Snap's
    `at_limit="most_cards"`); a limit that only stops the game is a truncation, not an end."""
    SESSION = "session"
    """A session of games was decided (Snap's `session`): its winner, or the seats sharing it."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winning seats (ties share), why it ended in words, and
    the kind of end."""

    winners: frozenset[int]
    reason: str
    termination: Termination = Termination.GOAL

    @property
    def shared(self) -> bool:
        """Whether two or more seats share the result."""
        return len(self.winners) > 1


class Game(Protocol):
    """A game in progress, as the adapters see it."""

    num_players: int
    outcome: Outcome | None
    """None while the game goes on."""
    chance: Chance
    """The source of the game's future chance events; a resampled copy gets a new one."""

    @property
    def truncated(self) -> bool:
        """True once a length limit (an option such as `max_turns`) stops an unfinished game."""
        ...

    def acting_seats(self) -> Sequence[int]:
        """The seats that decide now (several in a simultaneous window); empty when over."""
        ...

    def legal_actions(self, seat: int) -> Sequence[int]:
        """The actions `seat` may take now (empty if it does not act now)."""
        ...

    def apply(self, actions: Mapping[int, int]) -> None:
        """Play one legal action of every acting seat, then everything that follows until the
        next decision (chance events and forced moves included)."""
        ...

    def is_in_game(self, seat: int) -> bool:
        """False once `seat` is out of the game (eliminated); its decisions are over."""
        ...

    def points(self) -> Sequence[float]:
        """Each seat's points so far, in the game's own scoring (what `reward="points"` and
        `reward="margin"` pay from)."""
        ...

    def describe_action(self, seat: int, action: int) -> str:
        """A short description of `action` for `seat`, in the game's words."""
        ...

    def private_text(self, seat: int) -> str:
        """What only `seat` knows (its hand, its card), in words; empty if nothing."""
        ...

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        """Redraw everything hidden from `seat`, consistently with what `seat` has seen."""
        ...


class Observer(Protocol):
    """What one seat may see, as a flat float32 vector (and the full state, for critics)."""

    observation_layout: Layout
    state_layout: Layout

    def reset(self, game: Any) -> None:
        """Prepare for a new game, or for a game whose hidden information was redrawn."""
        ...

    def observe(self, game: Any, seat: int) -> np.ndarray:
        """A fresh float32 vector of `observation_layout`: what `seat` sees now."""
        ...

    def state(self, game: Any) -> np.ndarray:
        """A fresh float32 vector of `state_layout`: the whole situation, hidden parts included."""
        ...


@dataclass(frozen=True)
class CallKey:
    """A key a person presses to make a call of a real-time game (`GameInfo.realtime`)."""

    name: str
    """The key as a person reads it ("Space", "P")."""
    key: str
    """The key as a browser names it (`KeyboardEvent.key`, lower case: " ", "p")."""
    action: int
    option: str | None = None
    """The boolean rule option without which the call is no move of the game (Snap's slap:
    `slapjack`); None if the call always is one."""


@dataclass(frozen=True)
class GameInfo:
    """Facts about a game, declared once beside its rules (`FACTS` in `<game>/rules.py`) and
    read there by the rules, the observer, the environment, the generic tests and the registry
    (`snail_envs.registry`)."""

    env_name: str
    """The environment's name and module (`snap_v2`: `snail_envs.snap_v2`)."""
    title: str
    """The game's name as its box prints it."""
    min_players: int
    max_players: int
    num_actions: int
    max_game_length: int
    """An upper bound on the decisions (AEC steps of live seats) of one game, default options."""
    points_range: tuple[float, float]
    """Bounds on one seat's total `reward="points"` over a game, default options."""
    hidden_information: bool
    simultaneous: bool
    points_names: tuple[str, ...] = ()
    """Other names the game gives its `reward="points"` signal (Snap: "cards")."""
    engine: str | None = None
    """The game's batched engine (`snail_envs.batched`), as `module:class`; None if it has none."""
    searchable: bool = False
    """Whether that engine loads a game in progress and rolls it out with its heuristic, as
    the rollout search (`snail_envs.agents.rollout_search`) needs."""
    heuristic: str | None = None
    """The game's hand-written player (`snail_envs.agents.heuristics`), as `module:class`; None if
    none."""
    tree_options: tuple[str, ...] = ()
    """The rule options that shrink the game's tree (its mini's dials), named by the exact tools
    when a tree is too large."""
    shared_win: float = 1.0
    """What `reward="winlose"` pays each seat of a shared result (an `Outcome` with two or more
    winners): +1, a win, unless the game's rules call it a draw (Snap since `snap_v2`: 0)."""
    idle_actions: tuple[int, ...] = ()
    """The actions that let the moment go by (Snap's wait, a toss window's pass): what a person
    takes with Enter at the terminal, and what the clock takes for them in real time."""
    realtime: bool = False
    """Whether a person plays the game on the wall clock: its ticks pass whether anyone acts,
    the person's calls are keys (`call_keys`), and every tick offers each seat an idle action.
    The game counts the events a person reacts to as `flips` (Snap's cards turned)."""
    call_keys: tuple[CallKey, ...] = ()
    """The keys of a real-time game's calls."""


@dataclass(frozen=True)
class GameSpec:
    """Everything the generic adapters need to host one game."""

    info: GameInfo
    options_class: type
    new_game: Callable[[Any, Chance], Game]
    new_observer: Callable[[Any], Observer]
    render_ansi: Callable[[Any, int | None, Sequence[str] | None], str]
    """The table as text: what a spectator sees (seat None), or what one seat sees; the seats
    named by the names given, one a seat, or by agent id (None; see `core.picture.seat_name`)."""
    render_rgb: Callable[[Any, int | None, Sequence[str] | None], np.ndarray]
    """The table as an RGB picture, a spectator's or one seat's, the same size all game; the
    seats named as in `render_ansi`."""
