"""A frozen policy's forward pass for the games waiting on it: numba against torch.

    python benchmarks/frozen_forward.py
    python benchmarks/frozen_forward.py --env pedzace_slimaki_v0 --batches 1 64 512

`snail-exploit` plays a trained target inside the batched learner env. Two ways to do it: one
torch forward pass for all the games waiting on the target (`FrozenPolicy`, what it uses), or
the MLP's weights as arrays and a numba forward pass, which could run inside the compiled
engine. This times both on the shipped policy of a game (its observations from the batched
engine's games) for batches of waiting seats, the most likely legal action each: torch through
SB3's `predict`, torch's bare forward under `no_grad` (what `FrozenPolicy` calls), and a numba
`njit` forward pass (tanh layers, masked argmax; checked to pick the same actions).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import torch

from snail_envs.agents.ppo import load_policy, shipped_checkpoint
from snail_envs.batched import make_vec_env
from snail_envs.registry import GAMES


@numba.njit(cache=True)
def numba_actions(
    observations: np.ndarray, masks: np.ndarray, weights: numba.typed.List, biases: numba.typed.List
) -> np.ndarray:
    """The most likely legal action of each row: tanh hidden layers, then the logits."""
    actions = np.empty(observations.shape[0], np.int64)
    for row in range(observations.shape[0]):
        values = observations[row]
        for layer in range(len(weights)):
            values = weights[layer] @ values + biases[layer]
            if layer < len(weights) - 1:
                values = np.tanh(values)
        best, best_value = -1, -np.inf
        for action in range(values.shape[0]):
            if masks[row, action] and values[action] > best_value:
                best, best_value = action, values[action]
        actions[row] = best
    return actions


def layers(policy: Any) -> tuple[Any, Any]:
    """The policy network's linear layers and the action head, as float32 arrays."""
    linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linear.append(policy.action_net)
    weights, biases = numba.typed.List(), numba.typed.List()
    for module in linear:
        weights.append(np.ascontiguousarray(module.weight.detach().numpy(), np.float32))
        biases.append(np.ascontiguousarray(module.bias.detach().numpy(), np.float32))
    return weights, biases


def per_call(work: Callable[[], object], seconds: float = 0.5) -> float:
    """Seconds per call of `work`, over about `seconds`."""
    work()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        work()
        calls += 1
    return (time.perf_counter() - start) / calls


def time_batch(name: str, policy: Any, observations: np.ndarray, masks: np.ndarray) -> None:
    """One line of the table: the three ways of acting for these waiting seats."""
    weights, biases = layers(policy)
    tensor, mask_tensor = torch.as_tensor(observations), torch.as_tensor(masks)

    def bare() -> Any:
        with torch.no_grad():
            features = policy.extract_features(tensor, policy.pi_features_extractor)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
            return logits.masked_fill(~mask_tensor, -torch.inf).argmax(1)

    def sb3() -> Any:
        return policy.predict(observations, action_masks=masks, deterministic=True)

    def compiled() -> Any:
        return numba_actions(observations, masks, weights, biases)

    same = np.array_equal(compiled(), bare().numpy())
    times = [per_call(work) * 1e6 for work in (sb3, bare, compiled)]
    print(
        f"| {name} | {len(observations)} | {' | '.join(f'{t:.0f}' for t in times)} | {same} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default=None, help="a game with a shipped policy (default: all)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64, 256])
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = [args.env] if args.env else [game.env_name for game in GAMES]
    print("| game | waiting seats | SB3 predict µs | torch forward µs | numba µs | same actions |")
    print("|---|---:|---:|---:|---:|---|")
    for name in names:
        if not shipped_checkpoint(name).is_file():
            continue
        policy = load_policy(shipped_checkpoint(name), name)
        venv = make_vec_env(name, max(args.batches), opponents="random")
        venv.seed(0)
        observations, masks = venv.reset(), venv.action_masks()
        for size in args.batches:
            time_batch(name, policy, observations[:size], masks[:size])


if __name__ == "__main__":
    main()
