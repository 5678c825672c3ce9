"""What the AEC and the parallel adapters share: options, spaces, observations, rewards, copies.

A `GameHost` holds one game of a `GameSpec`. It turns the game into PettingZoo terms (agents,
spaces, observation dicts with action masks, rewards) and enforces the rules every environment of
this library follows:

- Rewards: `reward="winlose"` (default) pays every winner +1 and every other seat -1 when the game
  ends (tied winners all +1, or what the game's `GameInfo.shared_win` says: Snap pays a shared
  result as a draw, 0); a seat eliminated before the end gets its -1 when it goes out.
  `reward="points"` pays the change in the game's own points after every transition.
  `reward="margin"` pays, after every transition, the change in each seat's lead: its points
  minus the mean of the other seats' points. The seats paid, P, are those in the game before the
  transition, a seat that goes out in it included: seat i gets Δpoints_i − the mean of Δpoints_j
  over the other seats j of P (0 when it is alone; `margin_rewards`), so the rewards of every
  transition sum to zero. With no seat out before the end, a seat's return is its final margin
  minus its margin at the deal (0 after an even deal). A seat that goes out is paid nothing more,
  and the others' later changes are averaged over the seats still in: a seat's return is the sum,
  over the stretches of the game between eliminations, of the change of its margin over the
  seats in the game in that stretch.
- Illegal actions (masked out or out of range): `illegal_action="raise"` (default) raises a
  `ValueError` naming the legal actions; `illegal_action="penalize"` ends the game, the offender
  gets -1 and every other seat 0. An action is an integer scalar: a Python `int` or a NumPy
  integer (`np.int64(2)`, an element of an action array). Anything else always raises, naming
  the legal actions: a bool, a float, and any array, even of one element (`np.array([2])`,
  `np.array(2)`: index the array of a vectorised policy).
- Seeds: `reset(seed=...)` takes a non-negative integer (of any size) or None (a fresh seed
  from the operating system); a negative seed raises. The same seed and actions give the same
  game in every process.
- Bad options raise `ValueError` at construction, naming the allowed values; an agent name that
  is not one of `possible_agents` raises `ValueError` naming them.
"""

from __future__ import annotations

import copy
import reprlib
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from snail_envs.core.chance import Chance, SeededChance, shown_log
from snail_envs.core.game import Game, GameSpec
from snail_envs.core.length import GameLength
from snail_envs.core.options import check_choice, is_int, parse_options

REWARD_MODES = ("winlose", "points", "margin")
ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
RENDER_MODES = ("ansi", "rgb_array", "human")
SEAT_VIEW_MODES = ("ansi", "rgb_array")
RENDER_FPS = 2

WIN, LOSS, ILLEGAL = 1.0, -1.0, -1.0


class GameHost:
    """One game of `spec`, with everything both PettingZoo APIs need around it."""

    spec: ClassVar[GameSpec]
    metadata: ClassVar[dict[str, Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "spec" in cls.__dict__:
            cls.metadata = {
                "name": cls.spec.info.env_name,
                "render_modes": list(RENDER_MODES),
                # PettingZoo's aec_to_parallel needs every agent to step once per cycle, which a
                # turn or a window of some seats does not do: the parallel API is the native
                # `parallel_env()` of each game, never a conversion of the AEC env.
                "is_parallelizable": False,
                "render_fps": RENDER_FPS,
            }

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "winlose",
        illegal_action: str = "raise",
        **rule_options: Any,
    ) -> None:
        info = self.spec.info
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        check_choice("reward", reward, (*REWARD_MODES, *info.points_names))
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        if reward in info.points_names:
            reward = "points"
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.options: Any = parse_options(self.spec.options_class, rule_options, info.env_name)
        self.possible_agents = [f"player_{seat}" for seat in range(self.options.num_players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._observer = self.spec.new_observer(self.options)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": self._observer.observation_layout.box(),
                    "action_mask": spaces.Box(0, 1, (info.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(info.num_actions) for agent in self.possible_agents
        }
        self.state_space = self._observer.state_layout.box()
        self._num_actions = info.num_actions
        self.game: Game | None = None
        self._chance: Chance | None = None
        self._points: list[float] = []
        self._penalized = False
        self.length = GameLength()
        """How long the game in progress is so far (`snail_envs.core.length`)."""

    # ----------------------------------------------------------------- spaces and observations

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[self.possible_agents[self._seat(agent)]]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self.possible_agents[self._seat(agent)]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """`agent`'s view of the table and its legal actions now."""
        game = self._require_game()
        seat = self._seat(agent)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if not self._penalized and game.outcome is None and not game.truncated:
            # single writes: cheaper than one fancy-indexed write for the few legal actions
            for action in game.legal_actions(seat):
                mask[action] = 1
        return {"observation": self._observer.observe(game, seat), "action_mask": mask}

    def legal_actions(self, agent: str) -> list[int]:
        """The actions `agent` may take now, in increasing order (the nonzero entries of its mask),
        without building its observation; empty when it does not act now."""
        game = self._require_game()
        if self._penalized or game.outcome is not None or game.truncated:
            return []
        return sorted(game.legal_actions(self._seat(agent)))

    def state(self) -> np.ndarray:
        """The full situation, hidden information included (for centralised critics)."""
        return self._observer.state(self._require_game())

    def private_text(self, agent: str) -> str:
        """What only `agent` knows (its hand, its card), in words; for people playing a seat."""
        return self._require_game().private_text(self._seat(agent))

    def action_to_string(self, agent: str, action: int) -> str:
        """A short description of `action` for `agent`: any action in range, legal now or not,
        given as `step` takes one."""
        game = self._require_game()
        seat = self._seat(agent)
        chosen = self._action_int(seat, action)
        num_actions = self.spec.info.num_actions
        if not 0 <= chosen < num_actions:
            raise ValueError(f"action {chosen} is out of range; actions are 0 to {num_actions - 1}")
        return game.describe_action(seat, chosen)

    def check_action(self, agent: str, action: Any) -> None:
        """Raise the `ValueError` that stepping `action` for `agent` now would raise (an action
        that is not an integer, or one that is illegal with `illegal_action="raise"`), without
        playing it."""
        self._require_game()
        self._checked_action(self._seat(agent), action)

    # ----------------------------------------------------------------- rendering

    def render(self) -> str | np.ndarray | None:
        game = self._require_game()
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' "
                "or 'human' to the constructor",
                stacklevel=2,
            )
            return None
        if self.render_mode == "rgb_array":
            return self.spec.render_rgb(game, None, None)
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_text(self, names: Sequence[str] | None = None) -> str:
        """The table as a spectator sees it, as text (the `ansi` view, whatever `render_mode`);
        the seats named by `names` (one a seat, as an app names them: "You", "heuristic"), or
        by agent id without them."""
        return self.spec.render_ansi(self._require_game(), None, self._checked_names(names))

    def render_picture(self, names: Sequence[str] | None = None) -> np.ndarray:
        """The table as a spectator sees it, as an RGB picture (the `rgb_array` view, whatever
        `render_mode`); the seats named as in `render_text`."""
        return self.spec.render_rgb(self._require_game(), None, self._checked_names(names))

    def render_seat(
        self, agent: str, mode: str = "ansi", names: Sequence[str] | None = None
    ) -> str | np.ndarray:
        """What `agent` sees of the table, as text (`mode="ansi"`) or as an RGB picture
        (`mode="rgb_array"`, the size of `render()`'s), whatever `render_mode` is: the public
        table, `agent`'s own hidden information (its hand, its card, its glimpses) and, of the
        other seats, only what is public (hand sizes, cards face down). The seats are named as
        in `render_text`."""
        game = self._require_game()
        seat = self._seat(agent)
        check_choice("mode", mode, SEAT_VIEW_MODES)
        named = self._checked_names(names)
        if mode == "rgb_array":
            return self.spec.render_rgb(game, seat, named)
        return self.spec.render_ansi(game, seat, named)

    def _checked_names(self, names: Sequence[str] | None) -> Sequence[str] | None:
        """`names`, which must be None or one string a seat."""
        seats = len(self.possible_agents)
        if names is not None and (
            isinstance(names, str)
            or len(names) != seats
            or not all(isinstance(name, str) for name in names)
        ):
            raise ValueError(
                f"names must be None or {seats} strings, one a seat; got {reprlib.repr(names)}"
            )
        return names

    def close(self) -> None:
        """Nothing to release: rendering opens no windows."""

    # ----------------------------------------------------------------- games and chance

    def _start_game(self, seed: int | None, options: Mapping[str, Any] | None) -> Game:
        if options:
            warnings.warn(
                f"reset() options are not used by {self.spec.info.env_name}; ignored: "
                f"{sorted(options)}; rule options go to the constructor",
                stacklevel=3,
            )
        if seed is not None or self._chance is None:
            self._chance = SeededChance(None if seed is None else _as_seed(seed))
        self.game = self.spec.new_game(self.options, self._chance)
        self._penalized = False
        self.length = GameLength()
        self._observer.reset(self.game)
        self._points = list(self.game.points())
        return self.game

    def use_chance(self, chance: Chance) -> None:
        """Draw every chance event from now on from `chance`: the rest of the game in progress,
        and the next games reset without a seed (a seed brings back a seeded generator). The
        OpenSpiel adapter feeds the game its chance outcomes this way."""
        self._chance = chance
        if self.game is not None:
            self.game.chance = chance

    def _apply(self, tick: dict[int, int]) -> None:
        """Play the tick's choices, the outcomes every seat sees drawn logged afresh."""
        log = shown_log(self._chance)
        if log is not None:
            log.clear()
        self._require_game().apply(tick)

    def shown_outcomes(self) -> list[Any] | None:
        """The outcomes every seat saw drawn (`Chance.show`: the dice rolled) in the transition
        last played, in order; None where the chance source keeps no log (a script)."""
        log = shown_log(self._chance)
        return None if log is None else list(log)

    def _seat(self, agent: str) -> int:
        """The seat of `agent`, one of `possible_agents`."""
        try:
            return self._seat_of[agent]
        except (KeyError, TypeError):  # TypeError: not even hashable
            raise ValueError(
                f"{self.spec.info.env_name}: unknown agent {agent!r}; agents: "
                f"{', '.join(self.possible_agents)}"
            ) from None

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError(
                f"{self.spec.info.env_name}: call reset() before using the environment"
            )
        return self.game

    def resample_from_infostate(
        self, agent: str, seed: int, reward: str | None = None, future: int | None = None
    ) -> GameHost:
        """A copy of this environment in which everything hidden from `agent` is redrawn.

        The redraw is consistent with what `agent` has seen, so `agent`'s observation is unchanged;
        the copy's future chance events come from `seed`, not from this environment's generator,
        or from `future` when given (the same redraw, then other chance events).
        `reward` (one of `REWARD_MODES`) sets how the copy pays from now on; by default, as this
        environment does.
        """
        self._seat(agent)
        self._require_game()
        if reward is not None:
            check_choice("reward", reward, REWARD_MODES)
        twin = self.redrawn_by(agent, SeededChance(_as_seed(seed)))
        if future is not None:
            twin.use_chance(SeededChance(_as_seed(future)))
        twin._pay(reward)
        return twin

    def redrawn_by(self, agent: str, chance: Chance) -> GameHost:
        """A copy of this environment in which everything hidden from `agent` is redrawn by
        `chance`, which draws its chance events from then on: a `ChanceNodes` script names one
        redraw, so that a belief can list them all (`snail_envs.agents.beliefs`)."""
        seat = self._seat(agent)
        self._require_game()
        twin = copy.deepcopy(self)
        twin.use_chance(chance)
        assert twin.game is not None
        twin.game.redraw_hidden(seat, chance)
        twin._redraw_hidden_tick(seat)
        twin._observer.reset(twin.game)
        return twin

    def fork_for(
        self,
        agent: str,
        seed: int,
        reward: str | None = None,
        choose: Callable[[GameHost, str], int] | None = None,
    ) -> GameHost:
        """A copy of this environment to play on from here as `agent` may picture it: nothing
        redrawn but the other seats' choices already made in this tick (hidden from `agent`
        until the tick settles), each chosen again by `choose(copy, that seat's agent)` (a model
        of how they choose), or uniformly among its legal actions. Its future chance events come
        from `seed`; `reward` as in `resample_from_infostate`. A search whose belief holds whole
        tables plays on copies of them made this way (`snail_envs.agents.beliefs`)."""
        seat = self._seat(agent)
        twin = self._twin(seed, reward)
        twin._redraw_hidden_tick(seat, choose)
        twin._pay(reward)
        return twin

    def _twin(self, seed: int, reward: str | None) -> GameHost:
        """A copy of this environment whose chance events come from `seed` from now on."""
        self._require_game()
        if reward is not None:
            check_choice("reward", reward, REWARD_MODES)
        twin = copy.deepcopy(self)
        twin.use_chance(SeededChance(_as_seed(seed)))
        return twin

    def _pay(self, reward: str | None) -> None:
        """Pay as `reward` says from now on (None: as before)."""
        if reward is not None:
            assert self.game is not None
            self.reward_mode = reward
            self._points = list(self.game.points())

    def __deepcopy__(self, memo: dict) -> GameHost:
        """A copy that plays on exactly like this environment. The options and the spaces are
        immutable in use and shared with the copy (search agents copy environments often)."""
        for shared in (self.options, self.observation_spaces, self.action_spaces, self.state_space):
            memo[id(shared)] = shared
        twin = object.__new__(type(self))
        memo[id(self)] = twin
        for name, value in self.__dict__.items():
            setattr(twin, name, copy.deepcopy(value, memo))
        return twin

    def _redraw_hidden_tick(
        self, seat: int, choose: Callable[[GameHost, str], int] | None = None
    ) -> None:
        """Hook for adapters that hold other seats' choices of the current tick: redraw those
        hidden from `seat`, by `choose` or uniformly (`fork_for`)."""

    # ----------------------------------------------------------------- actions and rewards

    def _checked_action(self, seat: int, action: Any) -> int | None:
        """The action as an int if legal; None if illegal under `illegal_action="penalize"`."""
        game = self.game
        assert game is not None
        legal = game.legal_actions(seat)
        chosen = self._action_int(seat, action)
        if chosen in legal:
            return chosen
        if self.illegal_action == "penalize":
            return None
        raise ValueError(
            f"{self.possible_agents[seat]}: action {chosen} is illegal now; "
            f"legal actions: {self._legal_text(seat)}"
        )

    def _action_int(self, seat: int, action: Any) -> int:
        """`action` as an int: a Python int or a NumPy integer scalar (see the module
        docstring)."""
        if type(action) is int:
            return action
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            return int(action)
        raise ValueError(
            f"{self.possible_agents[seat]}: an action must be an integer, got "
            f"{action!r} ({type(action).__name__}); legal actions: {self._legal_text(seat)}"
        )

    def _legal_text(self, seat: int) -> str:
        game = self.game
        assert game is not None
        legal = game.legal_actions(seat)
        if not legal:
            return "none (this seat does not act now)"
        return ", ".join(f"{action} ({game.describe_action(seat, action)})" for action in legal)

    def _transition_rewards(self, live_seats: list[int]) -> tuple[dict[int, float], list[int]]:
        """Rewards of `live_seats` for the transition just played, and the seats it ended.

        A seat ends when the game is over or when it has gone out; truncation is separate.
        """
        game = self.game
        assert game is not None
        rewards = dict.fromkeys(live_seats, 0.0)
        if self.reward_mode != "winlose":
            points = list(game.points())
            changes = [float(points[seat] - self._points[seat]) for seat in live_seats]
            if self.reward_mode == "margin":
                changes = margin_rewards(changes)
            rewards = dict(zip(live_seats, changes, strict=True))
            self._points = points
        outcome = game.outcome
        if outcome is not None:
            if self.reward_mode == "winlose":
                won = self.spec.info.shared_win if outcome.shared else WIN
                for seat in live_seats:
                    rewards[seat] = won if seat in outcome.winners else LOSS
            return rewards, live_seats
        ended = [seat for seat in live_seats if not game.is_in_game(seat)]
        if self.reward_mode == "winlose":
            for seat in ended:
                rewards[seat] = LOSS
        return rewards, ended


def margin_rewards(changes: Sequence[float]) -> list[float]:
    """`reward="margin"` for one transition: each paid seat's change in points minus the mean
    change of the other paid seats (`changes` holds the paid seats' changes; 0 to a seat paid
    alone). The rewards sum to zero. Computed as (m·change − total) / (m − 1) for m seats, the
    total summed in seat order: `snail_envs.batched.core.pay_margin` does the same operations, so
    that the batched engines pay the same floats."""
    count = len(changes)
    if count < 2:
        return [0.0] * count
    total = 0.0
    for change in changes:
        total += change
    return [(count * change - total) / (count - 1) for change in changes]


def _as_seed(seed: Any) -> int:
    if is_int(seed) and seed >= 0:
        return int(seed)
    given = "a negative integer" if is_int(seed) else reprlib.repr(seed)
    raise ValueError(f"seed must be a non-negative integer or None, got {given}")
