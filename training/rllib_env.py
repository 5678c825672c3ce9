"""Our games as RLlib multi-agent environments (needs the `rllib` extra).

`SnailMultiAgentEnv` runs the native PettingZoo parallel env of a game (one RLlib step = one tick)
and speaks RLlib's `MultiAgentEnv` API, for turn-based and simultaneous games alike:

- Observations go to the agents that act now (a nonzero action mask), and only to them: RLlib asks
  its policy for an action of exactly the agents it was given observations for. A turn-based
  tick has one such agent; a Snap call window or a Snailed It! toss has several.
- Every reward goes to the agent that earned it, acting or not; RLlib adds the rewards an agent
  collects while others play to its next step (so a terminal reward reaches every seat).
- An agent that goes out, or every agent when the game ends or is truncated, gets its final
  observation and its `terminateds` / `truncateds` flag; `__all__` is set when the game is over.

Observations keep our PettingZoo layout, `{"observation": float32 vector, "action_mask": int8
vector}`; the masking RLModule (`snail_envs.training.rllib_module`) reads both keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import snail_envs
from snail_envs.agents.rllib_policy import rllib_missing

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ModuleNotFoundError as missing:
    raise rllib_missing(missing) from None

if TYPE_CHECKING:
    from ray.rllib.utils.typing import AgentID, MultiAgentDict


class SnailMultiAgentEnv(MultiAgentEnv):
    """A game of snail_envs for RLlib. `config`: `{"env": name, "options": {rule options}}`
    (RLlib passes the `env_config` of the algorithm here)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        self.env_name: str = config.get("env", "")
        self.game = snail_envs.make_parallel(self.env_name, **dict(config.get("options") or {}))
        self.possible_agents = list(self.game.possible_agents)
        self.agents = []
        self.observation_spaces = {a: self.game.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.game.action_space(a) for a in self.possible_agents}
        super().__init__()

    # RLlib's MultiAgentEnv returns dicts where gymnasium's Env, its base, does not
    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        observations, infos = self.game.reset(seed=seed, options=options)
        self.agents = list(self.game.agents)
        acting = self._acting(observations)
        return (
            {agent: observations[agent] for agent in acting},
            {agent: infos[agent] for agent in acting},
        )

    def step(  # type: ignore[override]
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        observations, rewards, terminated, truncated, infos = self.game.step(action_dict)
        self.agents = list(self.game.agents)
        finished = [a for a in terminated if terminated[a] or truncated[a]]
        shown = self._acting(observations) + finished
        over = not self.agents
        game_truncated = over and any(truncated.values())
        return (
            {agent: observations[agent] for agent in shown},
            dict(rewards),
            {**terminated, "__all__": over and not game_truncated},
            {**truncated, "__all__": game_truncated},
            {agent: infos[agent] for agent in shown},
        )

    def _acting(self, observations: MultiAgentDict) -> list[AgentID]:
        return [agent for agent in self.agents if observations[agent]["action_mask"].any()]

    def render(self) -> Any:
        return self.game.render()

    def close(self) -> None:
        self.game.close()
