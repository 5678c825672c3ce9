"""The action-masking RLModule that PPO trains on RLlib (needs the `rllib` extra).

Two small networks read the seat's observation vector: the policy
(`snail_envs.agents.rllib_policy.mlp`, the network the exported agent rebuilds) gives one logit per
action, every action the mask forbids pushed to the lowest float; the value network gives the value
estimate PPO needs. `model_config`: `{"hidden": [sizes of the hidden layers]}`.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from snail_envs.agents.rllib_policy import masked_logits, mlp, rllib_missing

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
VALUE_PREFIX = "value."


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy logits and a value estimate for observations `{"observation",
    "action_mask"}`."""

    def setup(self) -> None:
        config, observations, actions = self.model_config, self.observation_space, self.action_space
        # RLlib's types allow any of these to be missing or of another kind; ours are not
        assert isinstance(config, dict), "model_config must be a dict: {'hidden': [sizes]}"
        assert isinstance(observations, spaces.Dict) and isinstance(actions, spaces.Discrete)
        hidden = list(config.get("hidden", DEFAULT_HIDDEN))
        size = spaces.flatdim(observations["observation"])
        self.policy = mlp(size, hidden, int(actions.n))
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


def state_from_sb3(sb3_state: dict[str, Any], hidden: list[int]) -> dict[str, Any]:
    """The module's state holding the weights of an SB3 (sb3-contrib) actor-critic policy with
    hidden layers `hidden` (`snail-train`'s policies): both are tanh MLPs, the policy ending
    in the action logits and the value network in one output."""
    state = {}
    for prefix, body, head in (
        (POLICY_PREFIX, "mlp_extractor.policy_net.", "action_net."),
        (VALUE_PREFIX, "mlp_extractor.value_net.", "value_net."),
    ):
        for layer in range(len(hidden)):
            for kind in ("weight", "bias"):
                state[f"{prefix}{2 * layer}.{kind}"] = sb3_state[f"{body}{2 * layer}.{kind}"]
        for kind in ("weight", "bias"):
            state[f"{prefix}{2 * len(hidden)}.{kind}"] = sb3_state[f"{head}{kind}"]
    return state
