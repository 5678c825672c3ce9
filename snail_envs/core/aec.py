"""The one PettingZoo AEC adapter, for every game of the library.

Seats act one at a time. In a simultaneous window (several acting seats) the seats of one tick act
one after another, each seeing the table as it was at the start of the tick and none seeing the
others' choices; the tick is applied when its last seat has acted. After the game ends (or a seat
goes out) each finished agent is selected once more to step `None`, as PettingZoo requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo import AECEnv

from snail_envs.core.host import ILLEGAL, GameHost


class SnailAECEnv(GameHost, AECEnv):
    """A PettingZoo `AECEnv` over the rules engine of `spec`."""

    agent_selection: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        GameHost.__init__(self, *args, **kwargs)
        self.agents: list[str] = []
        self._tick_seats: list[int] = []
        self._tick_actions: dict[int, int] = {}
        self._rewards_paid = False
        """Whether `rewards` holds a nonzero reward (to be cleared at the next step)."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self._start_game(seed, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._tick_actions = {}
        self._rewards_paid = False
        if game.outcome is not None or game.truncated:
            self._settle()
        else:
            self._begin_tick()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As PettingZoo's `last()`; before `reset()`, a RuntimeError saying to call it."""
        self._require_game()
        return super().last(observe)

    def step(self, action: Any) -> None:
        if not self.agents:
            raise RuntimeError(
                f"{self.spec.info.env_name}: the game is over (no agents left); call reset()"
                if self.game is not None
                else f"{self.spec.info.env_name}: call reset() before step()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(agent, action)
            self.length.aec_steps += 1
            return
        seat = self._seat_of[agent]
        chosen = self._checked_action(seat, action)
        self.length.aec_steps += 1
        self._cumulative_rewards[agent] = 0.0
        if chosen is None:
            self._penalize(seat)
            return
        self._tick_actions[seat] = chosen
        self.length.decisions += 1
        if len(self._tick_actions) < len(self._tick_seats):
            self._clear_rewards()
            self.agent_selection = self.possible_agents[self._tick_seats[len(self._tick_actions)]]
            return
        self._apply(self._tick_actions)
        self.length.ticks += 1
        self._tick_actions = {}
        self._settle()

    # ----------------------------------------------------------------- bookkeeping

    def _begin_tick(self) -> None:
        self._tick_seats = list(self._require_game().acting_seats())
        self.agent_selection = self.possible_agents[self._tick_seats[0]]

    def _settle(self) -> None:
        """Hand out the rewards of the transition just played and select the next agent.

        Every agent is live here: finished agents are selected (to step None) before any live
        agent acts again, so none is waiting when a transition is played.
        """
        game = self._require_game()
        if self.reward_mode == "winlose" and game.outcome is None and not game.truncated:
            seat_of = self._seat_of
            if all(game.is_in_game(seat_of[agent]) for agent in self.agents):
                self._clear_rewards()
                self._begin_tick()
                return
        live = [self._seat_of[agent] for agent in self.agents]
        rewards, ended = self._transition_rewards(live)
        for seat, reward in rewards.items():
            agent = self.possible_agents[seat]
            self.rewards[agent] = reward
            self._cumulative_rewards[agent] += reward
        self._rewards_paid = True
        for seat in ended:
            self.terminations[self.possible_agents[seat]] = True
        if game.outcome is None and game.truncated:
            for seat in live:
                self.truncations[self.possible_agents[seat]] = True
        self._select_next()

    def _clear_rewards(self) -> None:
        if self._rewards_paid:
            for agent in self.rewards:
                self.rewards[agent] = 0.0
            self._rewards_paid = False

    def _select_next(self) -> None:
        for agent in self.agents:
            if self.terminations[agent] or self.truncations[agent]:
                self.agent_selection = agent
                return
        if self.agents:
            self._begin_tick()

    def _dead_step(self, agent: str, action: Any) -> None:
        if action is not None:
            raise ValueError(
                f"{agent} is done (terminated or truncated); the only valid action is None, "
                f"got {action!r}"
            )
        self.agents.remove(agent)
        for table in (
            self.rewards,
            self._cumulative_rewards,
            self.terminations,
            self.truncations,
            self.infos,
        ):
            del table[agent]
        self._rewards_paid = True
        self._clear_rewards()
        self._select_next()

    def _penalize(self, offender: int) -> None:
        """End the game after an illegal action: the offender -1, every other seat 0."""
        for agent in self.agents:
            reward = ILLEGAL if self._seat_of[agent] == offender else 0.0
            self.rewards[agent] = reward
            self._cumulative_rewards[agent] += reward
            self.terminations[agent] = True
        self._rewards_paid = True
        self._tick_actions = {}
        self._penalized = True
        self._select_next()

    @property
    def window_open(self) -> bool:
        """Whether some seats of the current window have chosen and others are still to: their
        choices are then not applied (nor public) yet."""
        return bool(self._tick_actions)

    @property
    def tick_choices(self) -> dict[int, int]:
        """The choices made so far in the current window, by seat (not applied nor public yet)."""
        return dict(self._tick_actions)

    def _redraw_hidden_tick(
        self, seat: int, choose: Callable[[GameHost, str], int] | None = None
    ) -> None:
        """Other seats' choices already made in this tick are hidden: redraw them, by `choose`
        or at random."""
        assert self._chance is not None and self.game is not None
        for other in self._tick_actions:
            if other == seat:
                continue
            if choose is None:
                self._tick_actions[other] = self._chance.pick(self.game.legal_actions(other))
            else:
                self._tick_actions[other] = choose(self, self.possible_agents[other])
