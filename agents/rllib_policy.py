"""A policy trained on Ray RLlib (`snail-rllib`), as an agent: torch only, no Ray.

Every checkpoint of `snail-rllib` holds, beside RLlib's own files, `policy.pt` and
`policy.json`: the policy network's weights, and the description it is rebuilt from (weights
only, see `snail_envs.agents.weights`: loading runs no code from the files, unlike RLlib's own
checkpoints, which are pickles). Loading needs torch (the `train` or `rllib` extra) but neither Ray
nor a cluster:

    from snail_envs.agents import make_agent
    bot = make_agent("rllib:runs/rllib/snail_sprint_v0-0-1", "snail_sprint_v0")   # run folder
    bot = make_agent("rllib:runs/rllib/snail_sprint_v0-0-1/policy.pt", "snail_sprint_v0")

The network is defined here once; the RLModule that trains it (`snail_envs.training.rllib_module`)
builds the same one, so the trained weights load into it unchanged.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents.weights import (
    check_shapes,
    find_weights,
    load_network,
    load_state_dict,
    save_network,
)

INSTALL_HINT = 'Ray RLlib training needs the rllib extra: pip install "snail_envs[rllib]"'
POLICY_FILE = "policy.pt"
"""The name of the exported policy in a run folder and in every checkpoint folder."""
FORMAT = "snail_envs.rllib_policy/2"


def rllib_missing(missing: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error to raise when an import of Ray or torch failed: it says what to install."""
    return ModuleNotFoundError(f"{INSTALL_HINT} ({missing})", name=missing.name)


def mlp(inputs: int, hidden: Sequence[int], outputs: int) -> Any:
    """A torch multilayer perceptron: `hidden` tanh layers, then a linear output layer."""
    from torch import nn

    layers: list[Any] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    layers.append(nn.Linear(inputs, outputs))
    return nn.Sequential(*layers)


def mlp_shapes(inputs: int, hidden: Sequence[int], outputs: int) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of `mlp(inputs, hidden, outputs)`, without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    for layer, width in enumerate([*hidden, outputs]):
        shapes[f"{2 * layer}.weight"], shapes[f"{2 * layer}.bias"] = (width, inputs), (width,)
        inputs = width
    return shapes


def masked_logits(logits: Any, action_mask: Any) -> Any:
    """`logits` with every action the mask forbids pushed to the lowest float, so that it is
    never chosen nor sampled (an all-zero mask leaves a uniform distribution, never NaN)."""
    import torch

    return logits.masked_fill(action_mask == 0, torch.finfo(logits.dtype).min)


def save_policy(
    path: str | Path,
    state_dict: Mapping[str, Any],
    observation_size: int,
    num_actions: int,
    hidden: Sequence[int],
    env_name: str,
    overwrite: bool = False,
) -> Path:
    """Write the policy network's weights (`mlp(observation_size, hidden, num_actions)`) to
    `path`, and its description beside it (`snail_envs.agents.weights.save_network`)."""
    description = {
        "format": FORMAT,
        "env": env_name,
        "observation_size": int(observation_size),
        "num_actions": int(num_actions),
        "hidden": [int(width) for width in hidden],
    }
    return save_network(path, state_dict, description, overwrite)


class RLlibAgent:
    """Acts with a policy trained by `snail-rllib`: the most likely legal action
    (`deterministic`), or a sample from the policy's legal distribution."""

    def __init__(
        self,
        network: Any,
        env_name: str | None = None,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        self.network = network.eval()
        self.env_name = env_name
        self.deterministic = deterministic
        self.reset(seed)

    @classmethod
    def load(
        cls,
        path: str | Path,
        env_name: str | None = None,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> RLlibAgent:
        """The policy exported at `path`: its `policy.pt`, or a run or checkpoint folder that
        holds one; with `env_name`, it must have been trained on that game."""
        try:
            import torch  # noqa: F401  (the loaders below import it; say what to install first)
        except ModuleNotFoundError as missing:
            raise rllib_missing(missing) from None
        file = find_weights(path, POLICY_FILE)
        description, weights = load_network(file, FORMAT)
        if env_name is not None and description.get("env") != env_name:
            raise ValueError(f"{file} was trained on {description.get('env')}, not {env_name}")
        try:
            size, actions = int(description["observation_size"]), int(description["num_actions"])
            hidden = [int(width) for width in description["hidden"]]
        except (KeyError, TypeError, ValueError) as problem:
            raise ValueError(f"{file}'s description lacks or garbles {problem}") from None
        if min(size, actions, *hidden) < 1:
            raise ValueError(f"{file}'s sizes are at least 1; got {reprlib.repr(description)}")
        check_shapes(mlp_shapes(size, hidden, actions), weights, file)
        network = mlp(size, hidden, actions)
        load_state_dict(network, weights, file)
        return cls(network, description["env"], deterministic, seed)

    def reset(self, seed: int | None = None) -> None:
        import torch

        self._generator = torch.Generator()
        self._generator.manual_seed(0 if seed is None else seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        import torch

        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("no legal action: the mask is all zero")
        with torch.inference_mode():
            logits = self.network(torch.as_tensor(observation, dtype=torch.float32))
            logits = masked_logits(logits, torch.as_tensor(mask))
            if self.deterministic:
                return int(torch.argmax(logits))
            return int(torch.multinomial(torch.softmax(logits, -1), 1, generator=self._generator))

    __call__ = act
