"""The action-masking RLModule that PPO trains on RLlib (needs the `rllib` extra).

Two small networks read the seat's observation vector: the policy (`agents.rllib_policy.mlp`,
the network the exported agent rebuilds) gives one logit per action, every action the mask
forbids pushed to the lowest float; the value network gives the value estimate PPO needs.
`model_config`: `{"hidden": [sizes of the hidden layers]}`.
"""

from __future__ import annotations

from typing import Any

from agents.rllib_policy import masked_logits, mlp, rllib_missing

try:
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
except ModuleNotFoundError as missing:
    raise rllib_missing(missing) from None

DEFAULT_HIDDEN = (128, 128)
POLICY_PREFIX = "policy."
"""The names of the policy network's weights in the module's state start with this."""


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy logits and a value estimate for observations `{"observation",
    "action_mask"}`."""

    def setup(self) -> None:
        hidden = list(self.model_config.get("hidden", DEFAULT_HIDDEN))
        size = self.observation_space["observation"].shape[0]
        self.policy = mlp(size, hidden, self.action_space.n)
        self.value = mlp(size, hidden, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observations = batch[Columns.OBS]
        logits = self.policy(observations["observation"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, observations["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.value(batch[Columns.OBS]["observation"]).squeeze(-1)


def policy_state(module_state: dict[str, Any]) -> dict[str, Any]:
    """The policy network's weights, out of the whole module's state."""
    return {
        name.removeprefix(POLICY_PREFIX): value
        for name, value in module_state.items()
        if name.startswith(POLICY_PREFIX)
    }
