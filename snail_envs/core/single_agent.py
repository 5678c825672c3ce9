"""A single-agent Gymnasium view of any game: one learner seat, opponents played inside.

    env = snail_envs.single_agent("snail_sprint_v0", opponents=[my_bot], num_players=3)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(action)

Any single-agent library (Stable-Baselines3, CleanRL, Tianshou) can train on the games this way:

- The learner holds one seat, drawn anew each episode (or fixed with `seat=`).
- Every observation the learner receives is its own, and every reward is its own: the sum of its
  seat's rewards over all steps since its previous action (the other seats' moves included), so an
  episode's return is exactly its seat's result in the game from its first decision on. (With
  `reward="margin"` that is the change of its lead from its first decision to the end: a change
  that comes before it, from the other seats' first moves, is not paid to it.)
- Opponents are callables `(observation, action_mask) -> action`, each given only its own seat's
  view (by default: uniformly random legal actions). Each episode, each other seat draws one of
  `opponents` (weighted by `opponent_weights`); an opponent with a `reset(seed)` method is reseeded
  then, from the environment's generator, so that `reset(seed=...)` repeats episodes exactly.
- An opponent with a `pick_legal(legal)` method needs no observation: it is given only its seat's
  legal actions, in increasing order (the nonzero entries of its mask), and is never called with
  an observation; building none spares most of an opponent's move (`RandomOpponent` does this).
- Simultaneous windows work as in the AEC API: the learner acts in its ticks, opponents in theirs,
  none seeing the others' choices of the same tick.
- `action_masks()` gives the learner's legal actions, as sb3-contrib's `MaskablePPO` expects;
  `info["action_mask"]` holds them too (int8 0/1, as in the multi-agent observations).
- A game that ends before the learner's first decision is dealt again; when `MAX_DEALS` deals in
  a row do (options under which the learner never acts, such as `seat=1, max_turns=1` in a
  game seat 0 opens), `reset` raises a `ValueError` naming the options.
- Generic checkers that sample actions without looking at the mask (Gymnasium's `check_env`,
  SB3's `check_env`) need `illegal_action="penalize"`: an illegal action then ends the episode
  with −1 instead of raising.

Each game is registered with Gymnasium under its PettingZoo id, as this single-agent view:
`gymnasium.make("snail_envs/snail_sprint-v0", num_players=3)`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NoReturn

import gymnasium
import numpy as np

from snail_envs.core.host import RENDER_FPS, RENDER_MODES
from snail_envs.core.options import MAX_DEALS, check_seat, no_decision_error

Opponent = Callable[[np.ndarray, np.ndarray], int]


MULTI_INPUT_HINT = (
    "the single-agent view's observation is a flat Box (the mask comes from action_masks()), "
    'not a Dict: use MaskablePPO("MlpPolicy", ...), not "MultiInputPolicy"'
)


class FlatObservation(gymnasium.spaces.Box):
    """The single-agent views' observation space: a flat float32 Box, as MLP policies take it.

    The action mask is not in it (it comes from `action_masks()`), so a policy for Dict spaces
    has nothing to combine. Such a policy reads `spaces`, which a plain Box lacks: here that
    read fails with `MULTI_INPUT_HINT`, saying which policy fits, rather than with "'Box' object
    has no attribute 'spaces'"."""

    @property
    def spaces(self) -> NoReturn:
        raise AttributeError(MULTI_INPUT_HINT)

    @classmethod
    def of(cls, box: gymnasium.spaces.Box) -> FlatObservation:
        """The same bounds as `box`, a float32 Box as every observer writes."""
        return cls(low=box.low, high=box.high, dtype=np.float32)


class RandomOpponent:
    """Plays uniformly at random among its legal actions."""

    def __init__(self, seed: int | None = None) -> None:
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("no legal action: the mask is all zero")
        return self.pick_legal(legal)

    def pick_legal(self, legal: Sequence[int]) -> int:
        """One of `legal` (in increasing order), uniformly: the same draw as from the mask."""
        return legal[self._rng.randrange(len(legal))]


class SingleAgentEnv(gymnasium.Env):
    """One seat of a snail_envs game as a Gymnasium environment (see the module docstring).

    `game` is an AEC environment of the library (`snail_envs.single_agent` builds one by name,
    with its options); the view renders as it does."""

    # gymnasium annotates its class attribute `metadata` as an instance variable (no ClassVar)
    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
    }
    action_space: gymnasium.spaces.Discrete
    """The seat's actions, numbered as in the game (every game's action space is discrete)."""

    def __init__(
        self,
        game: Any,
        opponents: Opponent | Sequence[Opponent] | None = None,
        opponent_weights: Sequence[float] | None = None,
        seat: int | None = None,
    ) -> None:
        self.game = game
        self.env_name = game.metadata["name"]
        self.render_mode = game.render_mode
        if opponents is None:
            opponents = [RandomOpponent()]
        elif callable(opponents):
            opponents = [opponents]
        self.opponents = list(opponents)
        if not self.opponents or not all(callable(o) for o in self.opponents):
            raise ValueError("opponents must be a callable or a non-empty sequence of callables")
        if opponent_weights is not None and (
            len(opponent_weights) != len(self.opponents)
            or any(w < 0 for w in opponent_weights)
            or sum(opponent_weights) <= 0
        ):
            raise ValueError(
                f"opponent_weights must give one non-negative weight per opponent "
                f"({len(self.opponents)}), not all zero; got {opponent_weights!r}"
            )
        self.opponent_weights = opponent_weights
        self.fixed_seat = check_seat(seat, len(self.game.possible_agents))
        first = self.game.possible_agents[0]
        self.observation_space = FlatObservation.of(
            self.game.observation_space(first)["observation"]
        )
        self.action_space = self.game.action_space(first)
        self.learner = first
        self._seated: dict[str, Opponent] = {}
        self._rng = random.Random()
        self._last_mask = np.zeros(self.action_space.n, dtype=np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        for _ in range(MAX_DEALS):
            self.game.reset(seed=self._rng.getrandbits(31))
            self._seat_players()
            _, terminated, truncated = self._play_opponents()
            if not (terminated or truncated):
                return self._learner_view()
            # the game ended before the learner's first decision: deal again
        fixed = {} if self.fixed_seat is None else {"seat": self.fixed_seat}
        raise no_decision_error(
            self.env_name, "the learner's first decision", self.game.unwrapped.options, **fixed
        )

    def _seat_players(self) -> None:
        agents = self.game.possible_agents
        seat = self.fixed_seat if self.fixed_seat is not None else self._rng.randrange(len(agents))
        self.learner = agents[seat]
        self._seated = {
            agent: self._rng.choices(self.opponents, self.opponent_weights)[0]
            for agent in agents
            if agent != self.learner
        }
        for opponent in self.opponents:
            reseed = getattr(opponent, "reset", None)
            if reseed is not None:
                reseed(self._rng.getrandbits(31))

    def _opponent_move(self, agent: str) -> int:
        """The action of the opponent seated at `agent`: from its legal actions alone if it can."""
        opponent = self._seated[agent]
        pick_legal = getattr(opponent, "pick_legal", None)
        if pick_legal is not None:
            return pick_legal(self.game.legal_actions(agent))
        view = self.game.observe(agent)
        return opponent(view["observation"], view["action_mask"])

    def check_action(self, action: Any) -> None:
        """Raise the `ValueError` that `step(action)` would raise now, without playing it."""
        self.game.unwrapped.check_action(self.learner, action)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.learner not in self.game.agents or self.game.agent_selection != self.learner:
            raise RuntimeError("the episode is over; call reset()")
        self.game.step(action)
        reward = self.game.rewards.get(self.learner, 0.0)
        more, terminated, truncated = self._play_opponents()
        observation, info = self._learner_view()
        return observation, float(reward + more), terminated, truncated, info

    def _play_opponents(self) -> tuple[float, bool, bool]:
        """Play every other seat until the learner acts or is done; the learner's rewards meanwhile,
        and whether its episode ended (terminated, truncated)."""
        game, learner = self.game, self.learner
        reward = 0.0
        while learner in game.agents:
            agent = game.agent_selection
            if game.terminations[agent] or game.truncations[agent]:
                if agent == learner:
                    return reward, game.terminations[agent], game.truncations[agent]
                game.step(None)
            elif agent == learner:
                return reward, False, False
            else:
                game.step(self._opponent_move(agent))
            reward += game.rewards.get(learner, 0.0)
        return reward, True, False

    def _learner_view(self) -> tuple[np.ndarray, dict[str, Any]]:
        view = self.game.observe(self.learner)
        self._last_mask = view["action_mask"]
        return view["observation"], {"seat": self.learner, "action_mask": self._last_mask.copy()}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as booleans."""
        return self._last_mask.astype(bool)

    def render(self) -> Any:
        return self.game.render()

    def close(self) -> None:
        self.game.close()
