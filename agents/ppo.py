"""A policy trained with MaskablePPO, as an agent (needs the `train` extra: torch, sb3-contrib).

Policies are saved weights only (`snail_envs.agents.weights`): `NAME.pt` holds the state dict of
sb3-contrib's `MaskableActorCriticPolicy`, `NAME.json` the description it is rebuilt from:

    {"format": "snail_envs.ppo_policy/1", "env": "snap_v2", "env_options": {"num_players": 2},
     "observation_size": 71, "num_actions": 4,
     "net_arch": {"pi": [128, 128], "vf": [128, 128]}, "activation": "tanh",
     "value_network": true}

`value_network: false` marks a policy saved without its value network, as the shipped baselines
are (half the size, all that playing needs; training on from one starts that network afresh).

A Stable-Baselines3 archive (`model.zip`, or a policy written by its `policy.save`) is a pickle:
loading it runs any code it holds. `PPOAgent.load` opens one only with `trusted=True`, and warns;
`snail-convert` turns one you trust into the weights-only form, once.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents.weights import (
    description_path,
    find_weights,
    is_described,
    load_network,
    load_state_dict,
    save_network,
)

CHECKPOINTS = Path(__file__).parent / "checkpoints"
FORMAT = "snail_envs.ppo_policy/1"
POLICY_FILE = "policy.pt"
"""The name of the trained policy in a run folder of `snail-train` and in its checkpoints."""
ACTIVATIONS = ("tanh", "relu")
VALUE_NETWORK = ("mlp_extractor.value_net.", "value_net.")
"""The names of the value network's weights start with these."""


def describe(
    policy: Any, env_name: str, env_options: dict[str, Any] | None, value_network: bool
) -> dict[str, Any]:
    """The description of `policy` (a `MaskableActorCriticPolicy` on a flat observation vector,
    an MLP of tanh or ReLU layers) that `build_policy` rebuilds it from."""
    from gymnasium import spaces
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    activations = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    observations, actions = policy.observation_space, policy.action_space
    if (
        not isinstance(observations, spaces.Box)
        or len(observations.shape) != 1
        or not isinstance(actions, spaces.Discrete)
        or not isinstance(policy.features_extractor, FlattenExtractor)
        or policy.activation_fn not in activations
    ):
        raise ValueError(
            "only MLP policies (tanh or ReLU) on a flat observation vector with discrete actions "
            "are saved in this format"
        )
    net_arch = policy.net_arch
    if isinstance(net_arch, list):
        net_arch = {"pi": net_arch, "vf": net_arch}
    return {
        "format": FORMAT,
        "env": env_name,
        "env_options": dict(env_options or {}),
        "observation_size": int(observations.shape[0]),
        "num_actions": int(actions.n),
        "net_arch": {part: [int(width) for width in net_arch[part]] for part in ("pi", "vf")},
        "activation": activations[policy.activation_fn],
        "value_network": value_network,
    }


def save_policy(
    path: str | Path,
    policy: Any,
    env_name: str,
    env_options: dict[str, Any] | None = None,
    value_network: bool = True,
    overwrite: bool = False,
) -> Path:
    """Write `policy`'s weights to `path` (`NAME.pt`) and its description beside it
    (`NAME.json`); without `value_network`, only what acting needs."""
    weights = {
        name: value
        for name, value in policy.state_dict().items()
        if value_network or not name.startswith(VALUE_NETWORK)
    }
    description = describe(policy, env_name, env_options, value_network)
    return save_network(path, weights, description, overwrite)


def build_policy(description: dict[str, Any]) -> Any:
    """A `MaskableActorCriticPolicy` of the architecture `description` gives (fresh weights)."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    activation = description.get("activation")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}; got {activation!r}")
    try:
        size, actions = int(description["observation_size"]), int(description["num_actions"])
        layers = description["net_arch"]
        net_arch = {part: [int(width) for width in layers[part]] for part in ("pi", "vf")}
    except (KeyError, TypeError, ValueError) as problem:
        raise ValueError(f"a PPO policy's description lacks or garbles {problem}") from None
    if min(size, actions, *net_arch["pi"], *net_arch["vf"]) < 1:
        raise ValueError(f"a PPO policy's sizes are at least 1; got {description}")
    return MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (size,), np.float32),
        spaces.Discrete(actions),
        lr_schedule=lambda _: 0.0,
        net_arch=net_arch,
        activation_fn={"tanh": nn.Tanh, "relu": nn.ReLU}[activation],
    )


def load_policy(path: str | Path, env_name: str | None = None) -> Any:
    """The policy saved at `path` by `save_policy` (weights only: nothing in the files runs);
    with `env_name`, it must have been trained on that game."""
    description, weights = load_network(path, FORMAT)
    if env_name is not None and description.get("env") != env_name:
        raise ValueError(f"{path} was trained on {description.get('env')}, not {env_name}")
    policy = build_policy(description)
    left_out = () if description.get("value_network", True) else VALUE_NETWORK
    load_state_dict(policy, weights, path, left_out)
    return policy.eval()


def load_archive(path: str | Path) -> Any:
    """A Stable-Baselines3 archive you trust: a MaskablePPO `model.zip`, or a policy written by
    `policy.save`. Loading one runs any code pickled in it, hence the warning."""
    import zipfile

    warnings.warn(
        f"loading {path} as a Stable-Baselines3 archive runs any code pickled in it: do so only "
        "with files you trust",
        stacklevel=2,
    )
    with zipfile.ZipFile(path) as archive:
        whole_model = "data" in archive.namelist()  # a model archive; a policy is torch's
    if whole_model:
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, device="cpu")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy.load(str(path), device="cpu")


class PPOAgent:
    """Acts with a trained MaskablePPO policy: the most likely legal action (`deterministic`),
    or a sample from the policy's legal distribution. `model` is a policy or a whole model:
    anything with SB3's `predict(observation, action_masks=, deterministic=)`."""

    def __init__(self, model: Any, deterministic: bool = True, seed: int | None = None) -> None:
        self.model = model
        self.deterministic = deterministic
        self.reset(seed)

    @classmethod
    def load(
        cls,
        path: str | Path,
        env_name: str | None = None,
        deterministic: bool = True,
        seed: int | None = None,
        trusted: bool = False,
    ) -> PPOAgent:
        """The policy at `path`: a weights-only policy (`NAME.pt` beside its `NAME.json`), or a
        run or checkpoint folder of `snail-train` (its `policy.pt`); with `env_name`, trained
        on that game. A Stable-Baselines3 archive loads only with `trusted=True`."""
        file = find_weights(path, POLICY_FILE)
        if is_described(file):
            return cls(load_policy(file, env_name), deterministic, seed)
        if not trusted:
            raise ValueError(
                f"{file} is not a weights-only policy (no {description_path(file).name} beside "
                "it). If it is a Stable-Baselines3 archive, loading it runs any code pickled in "
                "it: only if you trust where it came from, load it with trusted=True "
                "(--trust-checkpoint), or convert it once with snail-convert"
            )
        return cls(load_archive(file), deterministic, seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            import torch

            torch.manual_seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action, _ = self.model.predict(
            observation, action_masks=action_mask.astype(bool), deterministic=self.deterministic
        )
        return int(action)

    __call__ = act


def shipped_checkpoint(env_name: str, rules: Mapping[str, Any] | None = None) -> Path:
    """The trained baseline policy shipped with the library for `env_name`: with the game's
    rule `rules`, the one trained under the same rules (`ENV-PRESET.pt`, such as
    `snap_v2-noisy_sight.pt`) where one was, else the game's own (`ENV.pt`)."""
    if rules:
        wanted = game_rules(env_name, rules)
        for path in sorted(CHECKPOINTS.glob(f"{env_name}-*.pt")):
            trained = json.loads(description_path(path).read_text())["env_options"]
            if game_rules(env_name, trained) == wanted:
                return path
    return CHECKPOINTS / f"{env_name}.pt"


def game_rules(env_name: str, options: Mapping[str, Any]) -> Any:
    """The rules an environment made with `options` plays: its game's options object, from the
    options that are rules (`snail_envs.agents.rule_options`)."""
    import snail_envs
    from snail_envs.agents import rule_options

    return snail_envs._module(env_name).SPEC.options_class(**rule_options(options))
