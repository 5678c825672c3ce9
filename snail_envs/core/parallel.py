"""The one native PettingZoo `ParallelEnv` adapter, for every game of the library.

Each `step` is one tick: every agent still in the game passes an action, and the actions of the
seats that act now are applied together (in a simultaneous window, several seats; in a turn-based
phase, one). Agents that do not act this tick have an all-zero action mask and their actions are
ignored; seats in a window whose only legal action is `wait`/`pass` still act (a mask with
one 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import ParallelEnv

from snail_envs.core.host import ILLEGAL, GameHost


class SnailParallelEnv(GameHost, ParallelEnv):
    """A native PettingZoo `ParallelEnv` over the rules engine of `spec`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        GameHost.__init__(self, *args, **kwargs)
        self.agents: list[str] = []
        self._live: set[str] = set()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        game = self._start_game(seed, options)
        self.agents = self.possible_agents[:]
        if game.outcome is not None or game.truncated:
            self.agents = []
        self._live = set(self.agents)
        return {agent: self.observe(agent) for agent in self.possible_agents}, {
            agent: {} for agent in self.possible_agents
        }

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict]]:
        game = self._require_game()
        if not self.agents:
            raise RuntimeError(f"{self.spec.info.env_name}: the game is over; call reset()")
        if not isinstance(actions, Mapping):
            raise ValueError(
                f"{self.spec.info.env_name}: actions must be a dict from agent to action; got "
                f"{actions!r}; agents acting now: "
                f"{', '.join(self.possible_agents[seat] for seat in game.acting_seats())}"
            )
        if not self._live.issuperset(actions):
            raise ValueError(
                f"actions given for {sorted(set(actions) - self._live)}, which are not in the "
                f"game; agents now: {self.agents}"
            )
        tick: dict[int, int] = {}
        offenders: list[int] = []
        for seat in game.acting_seats():
            agent = self.possible_agents[seat]
            if agent not in actions:
                raise ValueError(
                    f"{agent} acts now but has no action; legal actions: {self._legal_text(seat)}"
                )
            chosen = self._checked_action(seat, actions[agent])
            if chosen is None:
                offenders.append(seat)
            else:
                tick[seat] = chosen
        agents = self.agents
        live = [self._seat_of[agent] for agent in agents]
        if offenders:
            self._penalized = True
            rewards = {seat: (ILLEGAL if seat in offenders else 0.0) for seat in live}
            ended = live
        else:
            self._apply(tick)
            self.length.ticks += 1
            self.length.decisions += len(tick)
            rewards, ended = self._transition_rewards(live)
        truncated = dict.fromkeys(agents, game.outcome is None and game.truncated)
        terminated = dict.fromkeys(agents, False)
        for seat in ended:
            terminated[self.possible_agents[seat]] = True
        observations = {agent: self.observe(agent) for agent in agents}
        agent_rewards = {self.possible_agents[seat]: reward for seat, reward in rewards.items()}
        infos: dict[str, dict] = {agent: {} for agent in agents}
        if ended or truncated[agents[0]]:
            self.agents = [a for a in agents if not (terminated[a] or truncated[a])]
            self._live = set(self.agents)
        return observations, agent_rewards, terminated, truncated, infos
