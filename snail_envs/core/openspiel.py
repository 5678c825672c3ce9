"""The one OpenSpiel adapter: any game of the library as a Python `pyspiel` game, chance explicit.

Needs the `openspiel` extra (`pip install snail_envs[openspiel]`); `snail_envs.openspiel`
registers every game with it.

Chance: how the rules' chance requests become chance nodes
    The rules draw chance inside `apply` (and the deal inside the game's constructor) from their
    one chance source (`core/chance.py`); OpenSpiel's exact tools need each chance event as a node
    with its outcomes and probabilities. The adapter plays a transition on a copy of the table
    whose chance source is a `ChanceNodes` script: it answers each request with the next outcome
    chosen so far and, when the script runs out, stops the transition by raising
    `ChanceNeeded` with the request. The request becomes a chance node; the outcome OpenSpiel
    picks is appended to the script and the transition is played again, from the saved table,
    on a new copy. No rules engine changes, and there is no second engine.

    - `pick` (a die, a tie-break) is one node whose outcomes are the distinct options, each with
      the probability of drawing it (equal options are one outcome of their summed probability).
    - `arrange` (a shuffle) is dealt card by card: one node per position, whose outcomes are the
      distinct cards left, so a node has at most the deck's size in outcomes; the last card, and
      any position where all cards left are alike, is forced and no node.
    - `occurs(p)` is a node of two outcomes (0: no, 1: yes) unless p is 0 or 1;
      `pick_weighted` a node over the indices of positive weight.
    Outcome `k` of a node is the k-th distinct value offered, in the order the rules offered them.

    The cost: a transition that draws k chance events is played k + 1 times, each on a copy of
    the table: random games of the full variants cost 20–70× the PettingZoo env's, where one
    transition shuffles a deck or rolls several dice, but building the Snap mini's tree, whose
    chance is all in the deal, costs about one copy and one step of the env a node
    (docs/results.md, benchmarks/openspiel_cost.py). The alternatives were worse: a second
    engine that yields its chance requests would double every game's rules, and rewriting every
    `rules.py` as a generator would slow the PettingZoo envs, which never need it.

Observations and information states
    The observation of a seat is the PettingZoo observation vector (the game's observer, the same
    named pieces and the same no-leak guarantee) and its string lists the nonzero entries of
    each piece. The information state of a seat is perfect recall: its current observation
    string, the number of decision points so far, and a BLAKE2 digest of its observation at every
    earlier decision point and of its own actions (the string stays short however long the game
    runs). No information-state tensor is provided.

Dynamics
    Turn-based games are sequential. A game with windows (several seats deciding in one tick) has
    simultaneous dynamics: a tick where one seat acts is an ordinary node of that seat, a window
    of several seats a simultaneous node, where a seat outside the window has one legal action,
    `not acting` (the action after the game's own actions). `pyspiel.convert_to_turn_based`
    serves the algorithms that need turns.

Returns are the env's `reward` option, paid at the end (terminal rewards): `margin` is zero-sum,
`winlose` (ties share the win) and `points` are general-sum.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyspiel

from snail_envs.core.chance import ChanceNeeded, ChanceNodes, ChanceRequest
from snail_envs.core.game import GameSpec
from snail_envs.core.parallel import SnailParallelEnv

T = TypeVar("T")

PRESETS = Path(__file__).resolve().parent.parent / "training" / "configs"
"""The presets, `<game>/<preset>.yaml` (the repository's configs/)."""
JSON_PARAMETER = "json"
"""How an option whose default is not a number, a bool or a text travels: as JSON text."""


# ----------------------------------------------------------------------------- parameters


def parameter_defaults(spec: GameSpec) -> dict[str, Any]:
    """The game's OpenSpiel parameters and their defaults: `preset` (a preset name or a YAML
    path; "" for none), `reward`, and every rule option: numbers, bools and texts as themselves,
    every other option (lists, None) as JSON text."""
    defaults: dict[str, Any] = {"preset": "", "reward": "winlose"}
    for field in dataclasses.fields(spec.options_class):
        if not field.init:
            continue
        default = field.default
        if isinstance(default, (bool, int, float, str)):
            defaults[field.name] = default
        else:
            defaults[field.name] = json.dumps(default)
    return defaults


def env_options(spec: GameSpec, folder: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The env keywords that `params` (OpenSpiel parameters) stand for: the preset's options
    first, then every parameter given with a value other than its default."""
    defaults = parameter_defaults(spec)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(
            f"snail_{folder}: unknown parameter{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; parameters: {', '.join(defaults)}"
        )
    options = load_preset(folder, str(params.get("preset", "")))
    for name, value in params.items():
        if name == "preset" or value == defaults[name]:
            continue
        if isinstance(defaults[name], str) and name not in _text_options(spec):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise ValueError(
                    f"snail_{folder}: parameter {name} takes JSON text (such as "
                    f"{defaults[name]!r}); got {value!r}"
                ) from None
        options[name] = value
    return options


def _text_options(spec: GameSpec) -> set[str]:
    names = {"reward"}
    for field in dataclasses.fields(spec.options_class):
        if field.init and isinstance(field.default, str):
            names.add(field.name)
    return names


def load_preset(folder: str, preset: str) -> dict[str, Any]:
    """The options of a preset: `configs/<folder>/<preset>.yaml`, or a YAML file's path."""
    if not preset:
        return {}
    import yaml

    path = (
        Path(preset) if preset.endswith((".yaml", ".yml")) else PRESETS / folder / f"{preset}.yaml"
    )
    if not path.is_file():
        known = sorted(p.stem for p in (PRESETS / folder).glob("*.yaml"))
        raise ValueError(
            f"snail_{folder}: no preset {preset!r}; presets: {', '.join(known)}, or a YAML path"
        )
    loaded = yaml.safe_load(path.read_text()) or {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: a preset is a mapping of option names to values")
    return loaded


# ----------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class Registration:
    """One game as OpenSpiel knows it: its native parallel env class, its folder under
    `snail_envs/`, and a bound on the outcomes of one chance node under given rule options."""

    env_class: type[SnailParallelEnv]
    folder: str
    max_chance_outcomes: Callable[[Any], int]

    @property
    def spec(self) -> GameSpec:
        return self.env_class.spec

    @property
    def short_name(self) -> str:
        return f"snail_{self.folder}"

    def game_type(self, utility: Any = None) -> pyspiel.GameType:
        info = self.spec.info
        return pyspiel.GameType(
            short_name=self.short_name,
            long_name=info.title,
            dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS
            if info.simultaneous
            else pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.GENERAL_SUM if utility is None else utility,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=info.max_players,
            min_num_players=info.min_players,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=parameter_defaults(self.spec),
        )


class SnailGame(pyspiel.Game):
    """A game of the library under given parameters (its env options). Each game registers a
    subclass that names its `registration` (pyspiel builds games from a class)."""

    registration: Registration

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = params or {}
        registration = self.registration
        spec = registration.spec
        self.setup = Setup(registration, env_options(spec, registration.folder, params))
        probe = self.setup.make_env()
        reward = probe.reward_mode
        low, high = _utility_range(spec, reward)
        zero_sum = reward == "margin"
        utility = (
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.info.num_actions + int(spec.info.simultaneous),
            max_chance_outcomes=self.setup.max_chance_outcomes,
            num_players=self.setup.num_seats,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=spec.info.max_game_length,
        )
        # the game's own parameters, as given (OpenSpiel keeps them for serialisation)
        super().__init__(registration.game_type(utility), info, dict(params))

    def new_initial_state(self) -> SnailState:
        return SnailState(self)

    def make_env(self) -> SnailParallelEnv:
        """A new PettingZoo parallel env of this game's options (not yet reset)."""
        return self.setup.make_env()

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> SnailObserver:
        if params:
            raise ValueError(f"observer parameters are not supported; got {dict(params)}")
        observation_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if observation_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not (
            observation_type.public_info
        ):
            raise ValueError(
                "only a seat's own view is supported (public info and its own private info)"
            )
        return SnailObserver(self.setup, perfect_recall=observation_type.perfect_recall)


class Setup:
    """What every state of one loaded game shares (never copied with a state): the env options,
    the seats, the observation layout."""

    def __init__(self, registration: Registration, options: Mapping[str, Any]) -> None:
        self.registration = registration
        self.env_options = dict(options)
        probe = self.make_env()
        self.num_seats = len(probe.possible_agents)
        self.observation_layout = registration.spec.new_observer(probe.options).observation_layout
        self.not_acting = registration.spec.info.num_actions
        """The one action of a seat outside a window, at a simultaneous node."""
        self.max_chance_outcomes = registration.max_chance_outcomes(probe.options)
        self.initial_fields: dict[str, Any] | None = None
        """The fields of a new state, once one has been made."""

    def make_env(self) -> SnailParallelEnv:
        return self.registration.env_class(**self.env_options, illegal_action="raise")

    def __deepcopy__(self, memo: dict) -> Setup:
        return self


def _utility_range(spec: GameSpec, reward: str) -> tuple[float, float]:
    if reward == "winlose":
        return -1.0, 1.0
    low, high = spec.info.points_range
    if reward == "margin":
        return low - high, high - low
    return low, high


# ----------------------------------------------------------------------------- the state


class SharedTable:
    """A table (a parallel env) that states share instead of copying: nothing changes it in
    place, since every transition is played on a copy that then becomes a new `SharedTable`."""

    __slots__ = ("table",)

    def __init__(self, table: SnailParallelEnv) -> None:
        self.table = table

    def __deepcopy__(self, memo: dict) -> SharedTable:
        return self


class SnailState(pyspiel.State):
    """A game in progress: a table (the parallel env) at the last decision point, and, at a
    chance node, the tick being played and the chance outcomes chosen for it so far."""

    def __init__(self, game: SnailGame) -> None:
        super().__init__(game)
        setup = game.setup
        if setup.initial_fields is not None:
            # pyspiel clones a state by making a new one and copying the clone's fields into it:
            # the start of the game is played once per loaded game, not once per state
            self.__dict__.update(copy.deepcopy(setup.initial_fields))
            return
        self._setup = setup
        self._shared = SharedTable(setup.make_env())
        self._started = False
        self._tick: dict[str, int] | None = None
        self._choices: tuple[int, ...] = ()
        self._request: ChanceRequest | None = None
        self._returns = [0.0] * setup.num_seats
        self._history_digest = [b""] * setup.num_seats
        self._decisions = 0
        self._play_transition()
        setup.initial_fields = copy.deepcopy(self.__dict__)

    @property
    def _table(self) -> SnailParallelEnv:
        return self._shared.table

    # ------------------------------------------------------------------- transitions

    def _play_transition(self) -> None:
        """Play the pending transition (the deal, or `_tick`) on a copy of the table with the
        chance outcomes chosen so far: it ends at the next decision, or stops at a chance node."""
        table = copy.deepcopy(self._table)
        table.use_chance(ChanceNodes(self._choices))
        try:
            if not self._started:
                table.reset()
                rewards: Mapping[str, float] = {}
            else:
                assert self._tick is not None
                rewards = table.step(self._tick)[1]
        except ChanceNeeded as needed:
            bound = self._setup.max_chance_outcomes
            if len(needed.request.values) > bound:
                raise RuntimeError(
                    f"{self._setup.registration.short_name}: a chance node of "
                    f"{len(needed.request.values)} outcomes exceeds the bound of {bound}"
                ) from None
            self._request = needed.request
            return
        self._shared = SharedTable(table)
        self._started = True
        self._tick, self._choices, self._request = None, (), None
        for agent, reward in rewards.items():
            self._returns[table.possible_agents.index(agent)] += reward
        self._decisions += 1
        self._remember(lambda seat: self.observation_text(seat))

    def _remember(self, entry: Callable[[int], str]) -> None:
        for seat in range(self._setup.num_seats):
            digest = hashlib.blake2b(self._history_digest[seat], digest_size=16)
            digest.update(entry(seat).encode())
            self._history_digest[seat] = digest.digest()

    def _acting(self) -> list[int]:
        table = self._table
        if not self._started or self._request is not None or not table.agents:
            return []
        game = table.game
        assert game is not None
        return list(game.acting_seats())

    # ------------------------------------------------------------------- the pyspiel API

    def current_player(self) -> int:
        if self._request is not None or not self._started:
            return int(pyspiel.PlayerId.CHANCE)
        acting = self._acting()
        if not acting:
            return int(pyspiel.PlayerId.TERMINAL)
        if len(acting) > 1:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return acting[0]

    def _legal_actions(self, player: int) -> list[int]:
        acting = self._acting()
        if player in acting:
            return self._table.legal_actions(self._table.possible_agents[player])
        if len(acting) > 1:
            return [self._setup.not_acting]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._request is not None
        return list(enumerate(self._request.probabilities))

    def _apply_action(self, action: int) -> None:
        if self._request is not None:
            self._choices = (*self._choices, action)
            self._play_transition()
            return
        (seat,) = self._acting()
        self._start_tick({seat: action})

    def _apply_actions(self, actions: Sequence[int]) -> None:
        self._start_tick({seat: actions[seat] for seat in self._acting()})

    def _start_tick(self, actions: Mapping[int, int]) -> None:
        agents = self._table.possible_agents
        self._tick = {agents[seat]: int(action) for seat, action in actions.items()}
        self._remember(lambda seat: f"you: {actions[seat]}" if seat in actions else "")
        self._choices = ()
        self._play_transition()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            assert self._request is not None
            return f"{self._request.kind} {self._request.values[action]!r}"
        if action == self._setup.not_acting:
            return "not acting"
        if not self._started:
            return f"action {action}"
        return self._table.action_to_string(self._table.possible_agents[player], action)

    def is_terminal(self) -> bool:
        return self._started and self._request is None and not self._table.agents

    def returns(self) -> list[float]:
        return list(self._returns) if self.is_terminal() else [0.0] * self._setup.num_seats

    def __str__(self) -> str:
        if not self._started:
            return f"dealing ({len(self._choices)} chance outcomes so far)"
        return self._table.render_text()

    # ------------------------------------------------------------------- views

    def observation_vector(self, seat: int) -> np.ndarray:
        """What `seat` sees now: its PettingZoo observation (zeros before the deal ends)."""
        if not self._started:
            return np.zeros(self._setup.observation_layout.size, dtype=np.float32)
        return self._table.observe(self._table.possible_agents[seat])["observation"]

    def observation_text(self, seat: int) -> str:
        """`seat`'s observation as text: the seat, then the nonzero entries of each piece."""
        layout = self._setup.observation_layout
        return f"player {seat} | {layout.text(self.observation_vector(seat))}"

    def information_text(self, seat: int) -> str:
        """`seat`'s information state: its view now, after a digest of all it saw and did."""
        return (
            f"decision {self._decisions} | history {self._history_digest[seat].hex()} | "
            f"{self.observation_text(seat)}"
        )

    def table(self) -> SnailParallelEnv | None:
        """The PettingZoo env at the last decision point (None before the deal ends)."""
        return self._table if self._started else None


class SnailObserver:
    """A seat's view for OpenSpiel: the observation vector and string, or (perfect recall) the
    information-state string."""

    def __init__(self, setup: Setup, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        layout = setup.observation_layout
        self.tensor = np.zeros(0 if perfect_recall else layout.size, dtype=np.float32)
        self.dict = {} if perfect_recall else layout.as_dict(self.tensor)

    def set_from(self, state: SnailState, player: int) -> None:
        if not self.perfect_recall:
            self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: SnailState, player: int) -> str:
        if self.perfect_recall:
            return state.information_text(player)
        return state.observation_text(player)
