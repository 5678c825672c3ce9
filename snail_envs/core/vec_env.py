"""Many single-agent views of a game in one Stable-Baselines3 `VecEnv`, played in this process.

    venv = snail_envs.make_vec_env("snail_sprint_v0", 8, num_players=3, opponents=[my_bot])
    model = sb3_contrib.MaskablePPO("MlpPolicy", VecMonitor(venv)).learn(100_000)

Each game is a `snail_envs.single_agent` view (the keywords are its own: opponents, seat, rule
options), stepped in turn as `DummyVecEnv` steps its environments, with the same results. What
differs is the bookkeeping around the games, which at a few microseconds a step is a fair share of
a Python game's own time:

- observations and the learner's masks are written into arrays kept for the purpose, and
  `env_method("action_masks")` (how sb3-contrib's MaskablePPO asks for masks) reads them there;
- each step's infos are new dicts, so they are not deep-copied; `"TimeLimit.truncated"` is set
  only where an episode ended (SB3 reads it only there).

A finished episode is replaced at once, as in every SB3 `VecEnv`: its last observation is in
`infos[i]["terminal_observation"]`, and `infos[i]["TimeLimit.truncated"]` says whether the game was
stopped by a length limit rather than played out.

A step checks every action before it plays any: one action per environment, each one that its
environment's `step` takes (an integer, legal unless `illegal_action="penalize"`); otherwise a
`ValueError` naming the environment, and no game has moved.

This module needs Stable-Baselines3 (the `train` extra); `import snail_envs` does not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices


class SingleAgentVecEnv(DummyVecEnv):
    """The environments that `env_fns` build, each with `action_masks()` and `check_action(action)`
    methods (as `snail_envs.single_agent` views have), as one `VecEnv` (see the module
    docstring)."""

    envs: list[Any]
    """The environments; `__init__` checks that each has `action_masks` and `check_action`."""

    def __init__(self, env_fns: Sequence[Callable[[], gymnasium.Env]]) -> None:
        super().__init__(list(env_fns))
        if not isinstance(self.observation_space, gymnasium.spaces.Box) or not isinstance(
            self.action_space, gymnasium.spaces.Discrete
        ):
            raise ValueError(
                "SingleAgentVecEnv needs Box observations and Discrete actions; got "
                f"{self.observation_space} and {self.action_space}"
            )
        if not all(
            callable(getattr(env, method, None))
            for env in self.envs
            for method in ("action_masks", "check_action")
        ):
            raise ValueError(
                "SingleAgentVecEnv needs environments with action_masks() and check_action() "
                "methods (snail_envs.single_agent views)"
            )
        # the one array of a Box space is keyed None (SB3 types the keys as str only)
        self.observations = self.buf_obs[None]  # type: ignore[index]
        self.masks = np.zeros((self.num_envs, self.action_space.n), dtype=np.bool_)
        self._rows = np.arange(self.num_envs)

    def reset(self) -> np.ndarray:
        super().reset()
        for index, env in enumerate(self.envs):
            self.masks[index] = env.action_masks()
        return self.observations.copy()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        self._check_actions()
        observations, rewards, dones, masks = (
            self.observations,
            self.buf_rews,
            self.buf_dones,
            self.masks,
        )
        infos: list[dict[str, Any]] = []
        for index, env in enumerate(self.envs):
            observation, rewards[index], terminated, truncated, info = env.step(self.actions[index])
            if terminated or truncated:
                dones[index] = True
                info = {
                    **info,
                    "terminal_observation": observation,
                    "TimeLimit.truncated": truncated and not terminated,
                }
                observation, self.reset_infos[index] = env.reset()
            else:
                dones[index] = False
            observations[index] = observation
            masks[index] = env.action_masks()
            infos.append(info)
        return observations.copy(), rewards.copy(), dones.copy(), infos

    def _check_actions(self) -> None:
        """Raise before any environment steps unless each has an action its `step` takes."""
        actions = self.actions
        if (
            isinstance(actions, np.ndarray)
            and actions.shape == (self.num_envs,)
            and actions.dtype.kind in "iu"
        ):
            in_range = (actions >= 0) & (actions < self.masks.shape[1])
            if in_range.all() and self.masks[self._rows, actions].all():
                return  # the usual step: every action legal, known from the masks alone
        try:
            count = len(actions)
        except TypeError:
            count = None
        if count != self.num_envs:
            raise ValueError(
                f"actions must give one action for each of the {self.num_envs} environments; "
                f"got {actions!r}"
            )
        for index, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            try:
                env.check_action(action)
            except ValueError as problem:
                raise ValueError(f"environment {index} (none stepped): {problem}") from None

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Calls each environment's method; `action_masks` is read from this step's masks."""
        if method_name == "action_masks" and not (method_args or method_kwargs):
            masks = self.masks.copy()
            return [masks[index] for index in self._get_indices(indices)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)
