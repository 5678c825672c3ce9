"""A recurrent policy for games with action masks: sb3-contrib's `RecurrentPPO`, the masks carried
in the observation.

sb3-contrib's `RecurrentPPO` takes no action masks: its rollout and its update call the policy
with the observation alone. `MasksInObservations` appends each game's legal actions (1 or 0 for each
action) to the end of its observation, and `MaskedRecurrentPolicy` reads them back off the end
of whatever observations it is given to mask its action distribution (illegal actions get the
logit sb3-contrib's masked distribution gives them), so that the LSTM policy samples only legal
actions in the rollout and its update sees the same masked distribution. Its network also reads
the mask as part of the observation.

`RecurrentAgent` plays such a policy in a game: its LSTM state runs on from one decision of its
seat to the next, and `reset` starts a new game.

    venv = MasksInObservations(VecMonitor(snail_envs.batched.make_vec_env("snap_v2", 64, ...)))
    model = RecurrentPPO(MaskedRecurrentPolicy, venv).learn(1_000_000)
    agent = RecurrentAgent(model.policy)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from snail_envs.training.lean_policy import masked_logits


class MasksInObservations(VecEnvWrapper):
    """A vector env whose observations end with the games' action masks (`action_masks()`, as
    0.0 and 1.0): a Box observation of the view's size plus the number of actions. A terminal
    observation ends with every action legal (only the value of it is asked for)."""

    def __init__(self, venv: VecEnv) -> None:
        if not isinstance(venv.action_space, spaces.Discrete):
            raise ValueError(
                f"MasksInObservations needs a Discrete action space; got {venv.action_space}"
            )
        if (
            not isinstance(venv.observation_space, spaces.Box)
            or len(venv.observation_space.shape) != 1
        ):
            raise ValueError(
                f"MasksInObservations needs a flat Box observation; got {venv.observation_space}"
            )
        self.num_actions = int(venv.action_space.n)
        view = venv.observation_space
        observation_space = spaces.Box(
            np.concatenate([view.low, np.zeros(self.num_actions)]).astype(np.float32),
            np.concatenate([view.high, np.ones(self.num_actions)]).astype(np.float32),
            dtype=np.float32,
        )
        super().__init__(venv, observation_space=observation_space)

    def reset(self) -> np.ndarray:
        return self._with_masks(self.venv.reset())

    def step_wait(self) -> Any:
        observations, rewards, dones, infos = self.venv.step_wait()
        for index in np.flatnonzero(dones):
            final = infos[index].get("terminal_observation")
            if final is not None:
                infos[index]["terminal_observation"] = with_mask(final, np.ones(self.num_actions))
        return self._with_masks(observations), rewards, dones, infos

    def _with_masks(self, observations: Any) -> np.ndarray:
        masks = np.asarray(self.venv.env_method("action_masks"))
        return with_mask(observations, masks)


def with_mask(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`observation` (one, or one a row) with `mask` appended as 0.0 and 1.0."""
    return np.concatenate([observation, mask.astype(observation.dtype)], axis=-1)


class MaskedRecurrentPolicy(RecurrentActorCriticPolicy):
    """sb3-contrib's recurrent actor-critic policy whose action distribution is masked by the
    last `n` entries of its observations (`MasksInObservations`), `n` the number of actions."""

    def __init__(
        self, observation_space: spaces.Space, action_space: spaces.Space, *args: Any, **kwargs: Any
    ) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(
                f"MaskedRecurrentPolicy needs a Discrete action space; got {action_space}"
            )
        super().__init__(observation_space, action_space, *args, **kwargs)
        self.num_actions = int(action_space.n)
        self._masks = torch.ones(0, dtype=torch.bool)

    def _read_masks(self, observations: torch.Tensor) -> None:
        self._masks = observations[..., -self.num_actions :].reshape(-1, self.num_actions) > 0.5

    def forward(self, obs: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        self._read_masks(obs)
        return super().forward(obs, *args, **kwargs)

    def get_distribution(  # type: ignore[override]
        self, obs: torch.Tensor, *args: Any, **kwargs: Any
    ) -> Any:
        self._read_masks(obs)
        return super().get_distribution(obs, *args, **kwargs)

    def evaluate_actions(  # type: ignore[override]
        self, obs: torch.Tensor, *args: Any, **kwargs: Any
    ) -> Any:
        self._read_masks(obs)
        return super().evaluate_actions(obs, *args, **kwargs)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> Any:
        logits = self.action_net(latent_pi)
        masked = masked_logits(logits, self._masks.reshape(logits.shape))
        return self.action_dist.proba_distribution(action_logits=masked)


class RecurrentAgent:
    """Plays a `MaskedRecurrentPolicy` in one seat of a game: the most likely legal action
    (`deterministic`), or a sample; its LSTM state runs from decision to decision until
    `reset`, which starts a new game (and seeds torch's sampling)."""

    def __init__(self, policy: MaskedRecurrentPolicy, deterministic: bool = True) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self._state: Any = None
        self._starting = np.ones(1, bool)
        if seed is not None:
            torch.manual_seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if not action_mask.any():
            raise ValueError("RecurrentAgent was asked to act with no legal action")
        action, self._state = self.policy.predict(
            with_mask(observation, action_mask)[None],
            state=self._state,
            episode_start=self._starting,
            deterministic=self.deterministic,
        )
        self._starting = np.zeros(1, bool)
        return int(action[0])

    __call__ = act
