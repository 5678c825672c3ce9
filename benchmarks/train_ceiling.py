"""The plain-torch training ceiling: snail-train's rate beside a PPO built from unit costs.

    python benchmarks/train_ceiling.py                        # Snail Sprint! and Pędzące
    python benchmarks/train_ceiling.py --only snap_v2 --rounds 3
    python benchmarks/train_ceiling.py --out ceiling.json     # the results also as JSON
    python benchmarks/train_ceiling.py --profile              # where snail-train's time goes
    python benchmarks/train_ceiling.py --torchrl              # the unit costs in TorchRL

In one process, one torch thread, rounds interleaved, against random opponents, under each
game's rule options (`env_options` of `configs/<game>/ppo.yaml`) and `TrainConfig`'s default
settings (`n_envs`, `n_steps`, `batch_size`, `n_epochs`, `net_arch`, `learning_rate`; the
activation and `vf_coef` of Stable-Baselines3's MaskablePPO, whose defaults snail-train keeps),
it measures, in CPU time (`time.process_time`), the unit costs of a plain-torch PPO:

- **env step**: a step of the batched learner vector env snail-train trains on (random legal
  actions), with its action masks, for `n_envs` games;
- **forward**: the actor and critic MLPs on those `n_envs` observations, the mask applied, an
  action sampled and its log-probability, under `torch.no_grad`;
- **update**: a minibatch update of `batch_size` samples: both networks forward, masked
  log-probabilities, entropy, the clipped surrogate and value losses, backward, the gradient's
  norm clipped at 0.5, an Adam step;
- **GAE** over a rollout of `n_steps` × `n_envs` (numpy, as Stable-Baselines3 computes it);

and the ceiling they make, in learner timesteps a CPU second (`speed_tables.ceiling_rate`),
with R = n_envs·n_steps, a rollout's timesteps:

    R / (n_steps·(env step + forward) + GAE + n_epochs·(R / batch_size)·update)

beside the rate of the same functions run as a training loop (`plain_loop_rate`: rollouts,
GAE, `n_epochs` passes of updates over shuffled minibatches, as many timesteps as snail-train
counts) and snail-train's own rate at the same settings (`train_speed.snail_train_rate`: its
ppo stage alone, `eval_games=0`), timed by the run on the CPU clock. Each cost and rate is the
median over `--rounds`; the ratios are the loop's and snail-train's over the ceiling, and
snail-train's over the loop. With `--out FILE` the run is
also written as JSON (`snail_envs.speed_tables.train_ceiling_record`), from which the docs
site renders the same table. `--profile` instead runs snail-train's ppo stage once a game with
the CPU time of its parts counted (`PROFILE_PARTS`: Stable-Baselines3's rollout and update steps,
a timer around each, no profiler's cost on the rest) and prints where the stage's time goes,
beside the ceiling's time for the same work from unit costs measured in the same process.
`--torchrl` (`pip install -e ".[torchrl]"`) instead times the forward, the minibatch update
and GAE through TorchRL (`ProbabilisticActor` of a `MaskedCategorical`, `ValueOperator`,
`ClipPPOLoss`, `vec_generalized_advantage_estimate`) beside the plain-torch ones on the same
networks, minibatch and rollout, and the ceilings the two sets of unit costs make: how near a
PPO moved to TorchRL could come to the plain-torch ceiling.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import inspect
import itertools
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, NamedTuple
from unittest import mock

import numpy as np
from train_speed import GAMES, PACKAGES, snail_train_rate

import snail_envs
from snail_envs.speed_tables import (
    UNIT_COSTS,
    add_out_arguments,
    check_out,
    train_ceiling_markdown,
    train_ceiling_record,
)

SETTINGS = ("n_envs", "n_steps", "batch_size", "n_epochs", "net_arch", "learning_rate")
"""The `TrainConfig` fields both the ceiling and snail-train's run take at their defaults."""
MASKED_LOGIT = -1e8
"""The logit of an illegal action (sb3-contrib's `MaskableCategorical` gives the same)."""
MAX_GRAD_NORM = 0.5


def ceiling_config(env_name: str) -> Any:
    """snail-train's config of `env_name` at `TrainConfig`'s default settings (`SETTINGS`),
    against random opponents, as `train_speed.snail_train_rate` runs it."""
    from snail_envs.training.config import TrainConfig, load_config

    defaults = TrainConfig(env=env_name)
    overrides = [f"{name}={getattr(defaults, name)}" for name in SETTINGS]
    return load_config(env_name, overrides=["opponents={random: 1}", *overrides])


def sb3_default(name: str) -> Any:
    """A MaskablePPO argument's default (`vf_coef`), or its policy's (`activation_fn`)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    for owner in (MaskablePPO, MaskableActorCriticPolicy):
        parameters = inspect.signature(owner.__init__).parameters
        if name in parameters:
            return parameters[name].default
    raise KeyError(name)


def recorded_settings() -> dict[str, Any]:
    """The settings the record names: `TrainConfig`'s defaults and SB3's activation."""
    from snail_envs.training.config import TrainConfig

    defaults = TrainConfig(env=GAMES[0])
    names = ("n_envs", "n_steps", "batch_size", "n_epochs", "net_arch")
    return {
        **{name: getattr(defaults, name) for name in names},
        "activation": sb3_default("activation_fn").__name__,
    }


CHUNKS = 10
"""A unit cost is the median of its cost a call over this many chunks of its timing (bursts of
the machine's other work then move it little)."""


def cpu_seconds_a_call(timed_call: Callable[[], float], seconds: float) -> float:
    """CPU seconds a call of `timed_call` (which returns the CPU seconds it counts), the median
    over `CHUNKS` chunks of about `seconds` / `CHUNKS` each, after one call to warm up."""
    timed_call()
    per_call = []
    for _ in range(CHUNKS):
        calls, spent = 0, 0.0
        while spent < seconds / CHUNKS:
            spent += timed_call()
            calls += 1
        per_call.append(spent / calls)
    return statistics.median(per_call)


def timed(call: Callable[[], object]) -> Callable[[], float]:
    """`call`, returning the CPU seconds it took."""

    def timed_call() -> float:
        started = time.process_time()
        call()
        return time.process_time() - started

    return timed_call


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action a game, uniformly among its legal ones."""
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


class EnvSteps:
    """Steps of a vector env with random legal actions; a call returns the CPU seconds of the
    step and of the reading of the action masks after it (not of the choice of the actions)."""

    def __init__(self, venv: Any) -> None:
        self.venv, self.rng = venv, np.random.default_rng(0)
        venv.reset()
        self.masks = venv.action_masks()

    def __call__(self) -> float:
        actions = random_legal_actions(self.masks, self.rng)
        started = time.process_time()
        self.venv.step(actions)
        self.masks = self.venv.action_masks()
        return time.process_time() - started


class Networks(NamedTuple):
    """The plain-torch actor and critic, the sizes and activation of SB3's policy, and Adam over
    both."""

    actor: Any
    critic: Any
    optimizer: Any


def mlp(sizes: list[int], activation: Any) -> Any:
    """Linear layers of `sizes`, `activation` between them."""
    import torch

    layers: list[Any] = []
    for index, (wide, out) in enumerate(itertools.pairwise(sizes)):
        layers.append(torch.nn.Linear(wide, out))
        if index < len(sizes) - 2:
            layers.append(activation())
    return torch.nn.Sequential(*layers)


def networks(observation_size: int, actions: int, config: Any) -> Networks:
    import torch

    activation, hidden = sb3_default("activation_fn"), list(config.net_arch)
    actor = mlp([observation_size, *hidden, actions], activation)
    critic = mlp([observation_size, *hidden, 1], activation)
    parameters = [*actor.parameters(), *critic.parameters()]
    return Networks(actor, critic, torch.optim.Adam(parameters, config.learning_rate, eps=1e-5))


def masked_log_probs(nets: Networks, observations: Any, masks: Any) -> Any:
    return nets.actor(observations).masked_fill(~masks, MASKED_LOGIT).log_softmax(-1)


def act(nets: Networks, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """A rollout step's forward: the actions sampled, their log-probabilities, the values."""
    import torch

    with torch.no_grad():
        seen = torch.from_numpy(observations)
        log_probs = masked_log_probs(nets, seen, torch.from_numpy(masks))
        actions = torch.multinomial(log_probs.exp(), 1)
        chosen = log_probs.gather(1, actions).squeeze(1)
        values = nets.critic(seen).squeeze(1)
    return actions.squeeze(1).numpy(), chosen.numpy(), values.numpy()


def minibatch(observations: np.ndarray, masks: np.ndarray, size: int) -> dict[str, Any]:
    """`size` samples of a rollout: the observations and masks given (repeated), legal actions,
    their old log-probabilities, advantages and returns."""
    import torch

    rows = np.resize(np.arange(len(observations)), size)
    legal = torch.from_numpy(masks[rows])
    generator = torch.Generator().manual_seed(0)
    return {
        "observations": torch.from_numpy(observations[rows]),
        "masks": legal,
        "actions": torch.multinomial(legal.float(), 1, generator=generator).squeeze(1),
        "old_log_probs": -torch.rand(size, generator=generator),
        "advantages": torch.randn(size, generator=generator),
        "returns": torch.randn(size, generator=generator),
    }


def update(nets: Networks, batch: dict[str, Any], config: Any, vf_coef: float) -> None:
    """One PPO minibatch update (the clipped surrogate, the value loss, the entropy bonus)."""
    import torch

    log_probs = masked_log_probs(nets, batch["observations"], batch["masks"])
    chosen = log_probs.gather(1, batch["actions"][:, None]).squeeze(1)
    entropy = -(log_probs.exp() * log_probs).sum(1).mean()
    values = nets.critic(batch["observations"]).squeeze(1)
    advantages = batch["advantages"]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    ratio = torch.exp(chosen - batch["old_log_probs"])
    clipped = ratio.clamp(1 - config.clip_range, 1 + config.clip_range)
    surrogate = -torch.min(advantages * ratio, advantages * clipped).mean()
    value_loss = torch.nn.functional.mse_loss(values, batch["returns"])
    loss = surrogate - config.ent_coef * entropy + vf_coef * value_loss
    nets.optimizer.zero_grad()
    loss.backward()
    parameters = [*nets.actor.parameters(), *nets.critic.parameters()]
    torch.nn.utils.clip_grad_norm_(parameters, MAX_GRAD_NORM)
    nets.optimizer.step()


def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    starts: np.ndarray,
    last: tuple[np.ndarray, np.ndarray],
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The advantages and returns of a rollout (steps × games): SB3's backward recursion; `last`:
    the values after the rollout and whether each game just ended."""
    last_values, last_dones = last
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], np.float32)
    for step in reversed(range(len(rewards))):
        if step == len(rewards) - 1:
            going_on, next_values = 1.0 - last_dones, last_values
        else:
            going_on, next_values = 1.0 - starts[step + 1], values[step + 1]
        delta = rewards[step] + gamma * next_values * going_on - values[step]
        running = delta + gamma * lam * going_on * running
        advantages[step] = running
    return advantages, advantages + values


class UnitWork(NamedTuple):
    """What the unit costs are timed on, at `ceiling_config`'s settings: the env step's CPU
    seconds (timed first), the observations and masks after a reset, the networks, a minibatch,
    SB3's `vf_coef`, and a random rollout with `gamma` and `gae_lambda` (`gae`'s arguments)."""

    config: Any
    env_step: float
    observations: np.ndarray
    masks: np.ndarray
    nets: Networks
    batch: dict[str, Any]
    vf_coef: float
    rollout: tuple[Any, ...]


def unit_work(env_name: str, seconds: float) -> UnitWork:
    from snail_envs.training.opponents import SelfPlayPool, make_vec_env

    config = ceiling_config(env_name)
    venv = make_vec_env(config, SelfPlayPool(1), None)
    step = cpu_seconds_a_call(EnvSteps(venv), seconds)
    observations, masks = venv.reset(), venv.action_masks()
    assert venv.action_space.n == masks.shape[1]
    rng = np.random.default_rng(0)
    shape = (config.n_steps, config.n_envs)
    rewards, values, starts = (rng.random(shape, np.float32) for _ in range(3))
    last = (rng.random(config.n_envs, np.float32), np.zeros(config.n_envs, np.float32))
    return UnitWork(
        config,
        step,
        observations,
        masks,
        networks(observations.shape[1], masks.shape[1], config),
        minibatch(observations, masks, config.batch_size),
        sb3_default("vf_coef"),
        (rewards, values, starts, last, config.gamma, config.gae_lambda),
    )


def unit_seconds(env_name: str, seconds: float) -> dict[str, float]:
    """The CPU seconds of each unit cost (`UNIT_COSTS`) of `env_name` at the default settings,
    each timed for about `seconds`."""
    work = unit_work(env_name, seconds)
    nets, config = work.nets, work.config
    return {
        "env_step": work.env_step,
        "forward": cpu_seconds_a_call(
            timed(lambda: act(nets, work.observations, work.masks)), seconds
        ),
        "update": cpu_seconds_a_call(
            timed(lambda: update(nets, work.batch, config, work.vf_coef)), seconds
        ),
        "gae": cpu_seconds_a_call(timed(lambda: gae(*work.rollout)), seconds),
    }


class TorchRLParts(NamedTuple):
    """The plain-torch networks as TorchRL modules: the actor as a `ProbabilisticActor` of a
    `MaskedCategorical` (the mask under `"mask"`), the critic as a `ValueOperator`, their
    `ClipPPOLoss` (the same clip range, entropy and value coefficients, advantages normalised
    per minibatch, the squared value error) and Adam over its parameters."""

    actor: Any
    critic: Any
    loss: Any
    optimizer: Any


def torchrl_parts(nets: Networks, config: Any, vf_coef: float) -> TorchRLParts:
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss

    logits = TensorDictModule(nets.actor, in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(nets.critic, in_keys=["observation"])
    loss = ClipPPOLoss(
        actor,
        critic,
        clip_epsilon=config.clip_range,
        entropy_coeff=config.ent_coef,
        critic_coeff=vf_coef,
        loss_critic_type="l2",
        normalize_advantage=True,
    )
    optimizer = torch.optim.Adam(loss.parameters(), config.learning_rate, eps=1e-5)
    return TorchRLParts(actor, critic, loss, optimizer)


def torchrl_act(
    parts: TorchRLParts, observations: np.ndarray, masks: np.ndarray
) -> tuple[np.ndarray, ...]:
    """`act` through TorchRL's modules: a TensorDict of the observations and masks, the actor's
    sample and log-probability, the critic's value."""
    import torch
    from tensordict import TensorDict

    with torch.no_grad():
        step = TensorDict(
            {"observation": torch.from_numpy(observations), "mask": torch.from_numpy(masks)},
            batch_size=[len(observations)],
        )
        parts.critic(parts.actor(step))
    return (
        step["action"].numpy(),
        step["action_log_prob"].numpy(),
        step["state_value"].squeeze(1).numpy(),
    )


def torchrl_minibatch(batch: dict[str, Any]) -> Any:
    """A `minibatch` as the TensorDict `ClipPPOLoss` reads (its default keys)."""
    from tensordict import TensorDict

    return TensorDict(
        {
            "observation": batch["observations"],
            "mask": batch["masks"],
            "action": batch["actions"],
            "action_log_prob": batch["old_log_probs"],
            "advantage": batch["advantages"][:, None],
            "value_target": batch["returns"][:, None],
        },
        batch_size=[len(batch["actions"])],
    )


def torchrl_update(parts: TorchRLParts, batch: Any) -> None:
    """`update` by TorchRL's `ClipPPOLoss` on a TensorDict minibatch, the same gradient clip and
    Adam step."""
    import torch

    losses = parts.loss(batch)
    total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
    parts.optimizer.zero_grad()
    total.backward()
    torch.nn.utils.clip_grad_norm_(list(parts.loss.parameters()), MAX_GRAD_NORM)
    parts.optimizer.step()


def torchrl_gae(
    rewards: np.ndarray, values: np.ndarray, starts: np.ndarray, last: Any, gamma: float, lam: float
) -> tuple[Any, Any]:
    """`gae` by TorchRL's `vec_generalized_advantage_estimate` (games × steps × 1 tensors), from
    the same numpy rollout."""
    import torch
    from torchrl.objectives.value.functional import vec_generalized_advantage_estimate

    last_values, last_dones = last
    next_values = np.concatenate([values[1:], last_values[None]])
    ends = np.concatenate([starts[1:], last_dones[None]]).astype(bool)

    def games_first(array: np.ndarray) -> Any:
        return torch.from_numpy(np.ascontiguousarray(array.T))[..., None]

    return vec_generalized_advantage_estimate(
        gamma,
        lam,
        games_first(values),
        games_first(next_values),
        games_first(rewards),
        games_first(ends),
        games_first(ends),
    )


TORCHRL_UNITS = ("forward", "update", "gae")
"""The unit costs TorchRL takes over (the env step stays the engine's)."""


def torchrl_unit_seconds(env_name: str, seconds: float) -> dict[str, dict[str, float]]:
    """The CPU seconds of the unit costs TorchRL would take over (`TORCHRL_UNITS`), plain torch
    beside TorchRL on the same networks, minibatch and rollout, the env step once."""
    import torch

    work = unit_work(env_name, seconds)
    nets, config, observations, masks = work.nets, work.config, work.observations, work.masks
    parts = torchrl_parts(nets, config, work.vf_coef)
    tensors = torchrl_minibatch(work.batch)
    calls = {
        "forward": (
            lambda: act(nets, observations, masks),
            lambda: torchrl_act(parts, observations, masks),
        ),
        "update": (
            lambda: update(nets, work.batch, config, work.vf_coef),
            lambda: torchrl_update(parts, tensors),
        ),
        "gae": (lambda: gae(*work.rollout), lambda: torchrl_gae(*work.rollout)),
    }
    torch.set_num_threads(1)
    costs: dict[str, dict[str, float]] = {
        kind: {"env_step": work.env_step} for kind in ("plain", "torchrl")
    }
    for unit, (plain, library) in calls.items():
        costs["plain"][unit] = cpu_seconds_a_call(timed(plain), seconds)
        costs["torchrl"][unit] = cpu_seconds_a_call(timed(library), seconds)
    return costs


def torchrl_markdown(env_name: str, rounds: list[dict[str, dict[str, float]]]) -> str:
    """Each unit cost (median over rounds) in plain torch and in TorchRL, and the ceilings they
    make (`speed_tables.ceiling_rate`)."""
    from snail_envs.speed_tables import ceiling_rate

    config = ceiling_config(env_name)
    settings = {name: getattr(config, name) for name in SETTINGS}
    median = {
        kind: {unit: statistics.median(r[kind][unit] for r in rounds) for unit in UNIT_COSTS}
        for kind in ("plain", "torchrl")
    }
    lines = [
        f"| {env_name}: unit cost | plain torch | TorchRL | TorchRL / plain |",
        "|---|---:|---:|---:|",
    ]
    for unit in TORCHRL_UNITS:
        plain, library = median["plain"][unit], median["torchrl"][unit]
        lines.append(
            f"| {unit} | {plain * 1e3:.3f} ms | {library * 1e3:.3f} ms | {library / plain:.2f}× |"
        )
    plain, library = (ceiling_rate(median[kind], settings) for kind in ("plain", "torchrl"))
    lines.append(
        f"| ceiling, timesteps/s | {plain:,.0f} | {library:,.0f} | {library / plain:.2f}× |"
    )
    return "\n".join(lines)


class Rollout(NamedTuple):
    """A plain-torch PPO's rollout storage, steps × games (observations, masks, and what each
    step's forward and env step gave)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    log_probs: np.ndarray
    values: np.ndarray
    rewards: np.ndarray
    starts: np.ndarray


def empty_rollout(steps: int, games: int, observation_size: int, actions: int) -> Rollout:
    shape = (steps, games)
    return Rollout(
        np.zeros((*shape, observation_size), np.float32),
        np.zeros((*shape, actions), bool),
        np.zeros(shape, np.int64),
        *(np.zeros(shape, np.float32) for _ in range(4)),
    )


def plain_loop_rate(env_name: str, steps: int) -> float:
    """Learner timesteps a CPU second of a plain-torch PPO that is nothing but the unit costs'
    functions run as a training loop (`act` and an env step for each rollout step, `gae`, then
    `n_epochs` passes of `update` over shuffled minibatches of the rollout) at the defaults of
    `ceiling_config(env_name)`, for rollouts until `steps` timesteps (as snail-train's `learn`
    counts them). Beside the ceiling it shows what a real loop of the same work reaches: its
    steps and updates follow one another, and its minibatches are gathered from the rollout."""
    import torch

    from snail_envs.training.opponents import SelfPlayPool, make_vec_env

    config = ceiling_config(env_name)
    venv = make_vec_env(config, SelfPlayPool(1), None)
    observations, masks = venv.reset(), venv.action_masks()
    nets = networks(observations.shape[1], masks.shape[1], config)
    vf_coef, rng = sb3_default("vf_coef"), np.random.default_rng(0)
    n_steps, size = config.n_steps, config.n_steps * config.n_envs
    rollout = empty_rollout(n_steps, config.n_envs, observations.shape[1], masks.shape[1])
    starts, timesteps = np.ones(config.n_envs, np.float32), 0
    started = time.process_time()
    while timesteps < steps:
        for step in range(n_steps):
            actions, log_probs, values = act(nets, observations, masks)
            rollout.observations[step], rollout.masks[step] = observations, masks
            rollout.actions[step], rollout.log_probs[step] = actions, log_probs
            rollout.values[step], rollout.starts[step] = values, starts
            observations, rollout.rewards[step], dones, _ = venv.step(actions)
            masks, starts = venv.action_masks(), dones.astype(np.float32)
        with torch.no_grad():
            last_values = nets.critic(torch.from_numpy(observations)).squeeze(1).numpy()
        advantages, returns = gae(
            rollout.rewards,
            rollout.values,
            rollout.starts,
            (last_values, starts),
            config.gamma,
            config.gae_lambda,
        )
        samples = {
            "observations": rollout.observations.reshape(size, -1),
            "masks": rollout.masks.reshape(size, -1),
            "actions": rollout.actions.reshape(size),
            "old_log_probs": rollout.log_probs.reshape(size),
            "advantages": advantages.reshape(size),
            "returns": returns.reshape(size),
        }
        flat = {name: torch.from_numpy(array) for name, array in samples.items()}
        for _ in range(config.n_epochs):
            order = torch.from_numpy(rng.permutation(size))
            for start in range(0, size, config.batch_size):
                rows = order[start : start + config.batch_size]
                update(nets, {name: data[rows] for name, data in flat.items()}, config, vf_coef)
        timesteps += size
    return timesteps / (time.process_time() - started)


@contextlib.contextmanager
def stage_timed_on_cpu() -> Iterator[None]:
    """snail-train's stages timed on this process's CPU clock, not the wall clock (other jobs
    on the machine then take nothing from its rate)."""
    from snail_envs.training.stages import base

    with mock.patch.object(base, "time", SimpleNamespace(perf_counter=time.process_time)):
        yield


def snail_train_cpu_rate(env_name: str, steps: int, output: str) -> float:
    """Timesteps a CPU second of snail-train's ppo stage at `TrainConfig`'s default settings
    (`train_speed.snail_train_rate`, opponents random, no evaluation)."""
    with stage_timed_on_cpu():
        return snail_train_rate(env_name, steps, True, output, [])


def measured_runs(
    env_names: list[str], steps: int, rounds: int, seconds: float
) -> dict[str, dict[str, Any]]:
    """For each game, each unit cost, the plain-torch loop's rate (`plain_loop_rate`) and
    snail-train's rate a round, the games' measurements interleaved in each round, on one torch
    thread."""
    import torch

    torch.set_num_threads(1)
    measured: dict[str, dict[str, Any]] = {
        name: {
            "unit_seconds": {unit: [] for unit in UNIT_COSTS},
            "plain_loop": [],
            "snail_train": [],
        }
        for name in env_names
    }
    with tempfile.TemporaryDirectory() as output:
        for env_name in env_names:
            snail_train_cpu_rate(env_name, 4_096, output)  # compiles kernels
        for _ in range(rounds):
            for env_name in env_names:
                game = measured[env_name]
                for unit, spent in unit_seconds(env_name, seconds).items():
                    game["unit_seconds"][unit].append(spent)
                game["snail_train"].append(snail_train_cpu_rate(env_name, steps, output))
                game["plain_loop"].append(plain_loop_rate(env_name, steps))
    return measured


PROFILE_PARTS: tuple[tuple[str, str, str], ...] = (
    ("learn", "sb3_contrib.ppo_mask.ppo_mask", "MaskablePPO.learn"),
    ("collect_rollouts", "sb3_contrib.ppo_mask.ppo_mask", "MaskablePPO.collect_rollouts"),
    ("env step, action masks", "stable_baselines3.common.vec_env.base_vec_env", "VecEnv.step"),
    ("env step, action masks", "sb3_contrib.ppo_mask.ppo_mask", "get_action_masks"),
    ("policy forward", "sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy.forward"),
    ("buffer add", "sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer.add"),
    ("callbacks", "stable_baselines3.common.callbacks", "CallbackList._on_step"),
    ("episode infos", "stable_baselines3.common.base_class", "BaseAlgorithm._update_info_buffer"),
    ("GAE", "stable_baselines3.common.buffers", "RolloutBuffer.compute_returns_and_advantage"),
    ("train", "sb3_contrib.ppo_mask.ppo_mask", "MaskablePPO.train"),
    (
        "minibatch sampling",
        "sb3_contrib.common.maskable.buffers",
        "MaskableRolloutBuffer._get_samples",
    ),
    (
        "evaluate_actions",
        "sb3_contrib.common.maskable.policies",
        "MaskableActorCriticPolicy.evaluate_actions",
    ),
    ("backward", "torch", "Tensor.backward"),
    ("gradient clip, Adam step", "torch.nn.utils", "clip_grad_norm_"),
    ("gradient clip, Adam step", "torch.optim", "Adam.step"),
)
"""The parts of snail-train's ppo stage `--profile` times: (part, module, the function or
method there). A part may time several functions; no part's functions call each other."""
PART_GROUPS = {
    "collect_rollouts": (
        "env step, action masks",
        "policy forward",
        "buffer add",
        "callbacks",
        "episode infos",
        "GAE",
    ),
    "train": ("minibatch sampling", "evaluate_actions", "backward", "gradient clip, Adam step"),
}
"""The parts within `collect_rollouts` and `train`, in the order the profile shows them."""


class PartTimer:
    """The CPU seconds and calls of the functions it wraps, by part."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {part: 0.0 for part, _, _ in PROFILE_PARTS}
        self.calls: dict[str, int] = {part: 0 for part, _, _ in PROFILE_PARTS}

    def wrap(self, part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed_function(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[part] += time.process_time() - started
                self.calls[part] += 1

        return timed_function

    @contextlib.contextmanager
    def timing(self) -> Iterator[None]:
        """Every function of `PROFILE_PARTS` timed while the block runs."""
        with contextlib.ExitStack() as patches:
            for part, module, name in PROFILE_PARTS:
                *owners, attribute = name.split(".")
                owner: Any = importlib.import_module(module)
                for step in owners:
                    owner = getattr(owner, step)
                wrapped = self.wrap(part, getattr(owner, attribute))
                patches.enter_context(mock.patch.object(owner, attribute, wrapped))
            yield


def ceiling_seconds(calls: dict[str, int], units: dict[str, float]) -> dict[str, float]:
    """The ceiling's CPU seconds for the work of a profiled run (as many env steps, forwards,
    GAEs and minibatch updates as it made), by the part that did it there."""
    steps, rollouts = calls["policy forward"], calls["GAE"]
    ceiling = {
        "env step, action masks": steps * units["env_step"],
        "policy forward": steps * units["forward"],
        "GAE": rollouts * units["gae"],
        "train": calls["evaluate_actions"] * units["update"],
    }
    ceiling["collect_rollouts"] = sum(
        ceiling[part] for part in PART_GROUPS["collect_rollouts"] if part in ceiling
    )
    ceiling["the ppo stage"] = ceiling["collect_rollouts"] + ceiling["train"]
    return ceiling


def profile_rows(timer: PartTimer, stage: float, units: dict[str, float]) -> list[str]:
    """The profile's rows: part, CPU seconds, share of the stage's CPU time `stage`, and the
    ceiling's CPU seconds for the same work (`ceiling_seconds`; — where it has no part)."""
    seconds = timer.seconds
    rows: list[tuple[str, float]] = []
    for group, parts in PART_GROUPS.items():
        rows.append((group, seconds[group]))
        rows += [(f"  {part}", seconds[part]) for part in parts]
        rows.append((f"  the rest of {group}", seconds[group] - sum(seconds[p] for p in parts)))
    learnt = seconds["collect_rollouts"] + seconds["train"]
    rows += [
        ("the rest of learn (rollout callbacks, logs)", seconds["learn"] - learnt),
        ("the rest of the stage (checkpoints)", stage - seconds["learn"]),
        ("the ppo stage", stage),
    ]
    ceiling = ceiling_seconds(timer.calls, units)
    shown = {part: f"{spent:.3f}" for part, spent in ceiling.items()}
    return [
        f"| {part} | {spent:.3f} | {spent / stage:.1%} | {shown.get(part.strip(), '—')} |"
        for part, spent in rows
    ]


def profile(env_name: str, steps: int, seconds: float) -> str:
    """Where the CPU time of a snail-train ppo run of `steps` timesteps goes, part by part
    (`PROFILE_PARTS`), beside the ceiling's time for the same work, from unit costs measured
    in the same process: a markdown table."""
    import torch

    torch.set_num_threads(1)
    timer = PartTimer()
    with tempfile.TemporaryDirectory() as output:
        snail_train_cpu_rate(env_name, 4_096, output)  # compiles kernels
        units = unit_seconds(env_name, seconds)
        with timer.timing():
            rate = snail_train_cpu_rate(env_name, steps, output)
    stage = timer.calls["policy forward"] * ceiling_config(env_name).n_envs / rate
    lines = [
        f"| {env_name}: part | CPU s | share of the stage | ceiling CPU s |",
        "|---|---:|---:|---:|",
    ]
    return "\n".join(lines + profile_rows(timer, stage, units))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=GAMES, choices=snail_envs.ENV_NAMES)
    parser.add_argument("--steps", type=int, default=50_000, help="timesteps a snail-train run")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a unit cost")
    add_out_arguments(parser, "also write the results as JSON")
    parser.add_argument("--profile", action="store_true", help="profile snail-train instead")
    parser.add_argument(
        "--torchrl",
        action="store_true",
        help="time the forward, update and GAE in TorchRL beside plain torch instead",
    )
    args = parser.parse_args()
    check_out(parser, args)
    if args.profile:
        for env_name in args.only:
            print(profile(env_name, args.steps, args.seconds) + "\n")
        return
    if args.torchrl:
        if importlib.util.find_spec("torchrl") is None:
            parser.error('torchrl is missing: pip install -e ".[torchrl]" to time it')
        for env_name in args.only:
            rounds = [torchrl_unit_seconds(env_name, args.seconds) for _ in range(args.rounds)]
            print(torchrl_markdown(env_name, rounds) + "\n")
        return
    record = train_ceiling_record(
        measured_runs(args.only, args.steps, args.rounds, args.seconds),
        steps=args.steps,
        rounds=args.rounds,
        settings=recorded_settings(),
        packages=PACKAGES,
    )
    print(train_ceiling_markdown(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
