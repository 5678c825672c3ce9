"""The ppo stage after imitation: MaskablePPO from the cloned weights, anchored to the clone.

Fine-tuning a cloned policy with PPO's default step size and entropy bonus undoes the clone in a
few updates; a small step size and a KL term to the clone keep it near what it learnt. The
anchor is KL(clone ‖ policy) over each update's states, with a weight that may fall to 0 as
training goes on (`anchor_coef`, `anchor_decay_steps` of `snail_envs.training.config.TrainConfig`).

MaskablePPO's loss is written inside its `train` method; rather than copy it, the anchor adds
its gradient where the policy's action logits receive theirs: `AnchoredPolicy.evaluate_actions`
(which `train` calls once per minibatch) passes the logits through `AddToGradient`, the identity
whose backward pass adds the KL term's gradient, so that the backward pass of PPO's loss carries
the gradient of PPO's loss + weight × KL, before the gradient is clipped. (A hook registered on
the logits would do the same, but keeps every minibatch's graph alive: memory grew by about
12 kB a timestep.)

A run may also start from a policy saved by an earlier one (`init_from` of
`snail_envs.training.config.TrainConfig`, `--init-from` of `snail-train`): `initial_policy` loads it
and checks that it fits the run's game, rule options and network, and its weights replace the new
network's before the first stage, so that `stages: [ppo]` fine-tunes a saved clone (anchored to it)
without repeating the imitation.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback

import snail_envs
from snail_envs.agents.ppo import POLICY_FILE, load_policy, save_policy
from snail_envs.agents.weights import find_weights, is_described
from snail_envs.training.lean_policy import LeanPolicy

BEST_POLICY_FILE = "best_policy.pt"
"""Where a run with `keep_best` keeps its best policy so far (with `best_policy.json`)."""


class Anchor:
    """The frozen clone, the anchor's weight, and the KL of each update's minibatches."""

    def __init__(self, reference: MaskableActorCriticPolicy, coef: float) -> None:
        self.reference = copy.deepcopy(reference)
        self.reference.set_training_mode(False)
        for parameter in self.reference.parameters():
            parameter.requires_grad_(False)
        self.coef = coef
        self.divergences: list[float] = []
        """The mean KL(clone ‖ policy) of every minibatch since the list was last emptied."""

    def pull(self, observations: Any, masks: Any, logits: Any) -> Any:
        """Measure KL(clone ‖ policy) on the minibatch and return `logits` to be used in their
        place: the same values, whose gradient gains that of weight × the KL's mean (if the
        weight is above 0)."""
        with torch.no_grad():
            reference = self.reference.get_distribution(observations, masks).distribution
            assert isinstance(reference, torch.distributions.Categorical)  # one Discrete action
            target = reference.probs
            probs = MaskableCategorical(logits=logits.detach(), masks=masks).probs
            log_ratio = torch.log(target.clamp_min(1e-30)) - torch.log(probs.clamp_min(1e-30))
            divergence = torch.where(target > 0, target * log_ratio, 0.0).sum(dim=1)
        self.divergences.append(float(divergence.mean()))
        if self.coef <= 0:
            return logits
        # d KL(target ‖ softmax(z)) / dz = softmax(z) − target, for each state
        return AddToGradient.apply(logits, self.coef * (probs - target) / len(probs))


class AddToGradient(torch.autograd.Function):
    """The identity on `logits`, whose backward pass adds `pull` to their gradient."""

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, pull: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(pull)
        return logits.view_as(logits)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (pull,) = ctx.saved_tensors
        return grad + pull, None


class AnchoredPolicy(LeanPolicy):
    """sb3-contrib's masked actor-critic policy (`LeanPolicy`), pulled towards `anchor` while PPO
    trains it (none: it trains as the plain policy)."""

    anchor: Anchor | None = None

    def evaluate_actions(
        self, obs: Any, actions: Any, action_masks: Any = None
    ) -> tuple[Any, Any, Any]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            latent_vf = self.mlp_extractor.forward_critic(vf_features)
        logits = self.action_net(latent_pi)
        if self.anchor is not None and logits.requires_grad:
            logits = self.anchor.pull(obs, action_masks, logits)
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()


class AnchorSchedule(BaseCallback):
    """Sets the anchor's weight before every rollout (falling linearly from `coef` to 0 over
    the ppo stage's first `decay_steps` timesteps, or staying at `coef` when that is 0: the
    model's timesteps count the stage's, a resumed run's included), and logs the weight and the
    mean KL of the last update."""

    def __init__(self, anchor: Anchor, coef: float, decay_steps: int) -> None:
        super().__init__()
        self.anchor, self.start, self.decay_steps = anchor, coef, decay_steps

    def _on_rollout_start(self) -> None:
        if self.anchor.divergences:
            divergences = self.anchor.divergences
            self.logger.record("train/anchor_kl", sum(divergences) / len(divergences))
            self.anchor.divergences = []
        left = 1.0
        if self.decay_steps:
            left = max(0.0, 1.0 - self.num_timesteps / self.decay_steps)
        self.anchor.coef = self.start * left
        self.logger.record("train/anchor_coef", self.anchor.coef)

    def _on_step(self) -> bool:
        return True


class KeepBest(BaseCallback):
    """Saves the policy, weights only and value network included
    (`snail_envs.agents.ppo.save_policy`), to `path` whenever a new point of `curve` beats every
    earlier one against `opponent` (the score rate, then the lower end of its interval, decide), and
    keeps that point's record in `best`: `{"timesteps", "opponent", "score_rate", "ci95"}`. A
    resumed run gives the record it had (`best`), which the points to come must beat; `consider`
    weighs a score measured before learning (the stage before's last round, of the policy the
    stage starts from)."""

    def __init__(
        self,
        curve: list[dict[str, Any]],
        opponent: str,
        path: Path,
        env_name: str,
        env_options: dict[str, Any],
        best: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.curve, self.opponent, self.path = curve, opponent, path
        self.env_name, self.env_options = env_name, env_options
        self.best = best
        self._seen = len(curve)

    def _on_step(self) -> bool:
        if len(self.curve) > self._seen:
            self._seen = len(self.curve)
            self.consider(self.curve[-1], self.curve[-1]["timesteps"], self.model.policy)
        return True

    def consider(self, point: dict[str, Any], timesteps: int, policy: Any) -> None:
        """Keep `policy`, at `timesteps`, if its score (`point`) beats the best on record."""
        rate, low, high = point[self.opponent]
        if self.best is None or (rate, low) > (self.best["score_rate"], self.best["ci95"][0]):
            self.best = {
                "timesteps": timesteps,
                "opponent": self.opponent,
                "score_rate": rate,
                "ci95": [low, high],
            }
            save_policy(self.path, policy, self.env_name, self.env_options, overwrite=True)


def game_policy(
    path: str | Path, env_name: str, options: dict[str, Any], who: str
) -> MaskableActorCriticPolicy:
    """The weights-only policy saved at `path` (`NAME.pt` beside its `.json`, or a run or
    checkpoint folder's `policy.pt`), after checking that it plays `env_name` under these rule
    options. Nothing in the files runs: a Stable-Baselines3 archive (`model.zip`) is refused, to
    be converted once with `snail-convert`. A `ValueError` names `who` asked for it and what
    does not fit."""
    try:
        source = find_weights(path, POLICY_FILE)
    except FileNotFoundError as problem:
        raise ValueError(f"{who}: {problem}") from None
    if not is_described(source):
        raise ValueError(
            f"{who}: {source} is not a weights-only policy (no {source.stem}.json beside it); "
            "convert a Stable-Baselines3 archive you trust once with snail-convert"
        )
    try:
        policy = load_policy(source, env_name)
    except (ValueError, KeyError, RuntimeError) as problem:
        raise ValueError(f"{who}: {source} does not load as weights: {problem}") from None
    view = snail_envs.single_agent(env_name, **options)
    expected = (view.observation_space.shape, int(view.action_space.n))
    found = (policy.observation_space.shape, int(policy.action_space.n))
    if found != expected:
        raise ValueError(
            f"{who}: {source} does not play {env_name} with options {options}: it takes "
            f"observations of shape {found[0]} and {found[1]} actions, the game "
            f"{expected[0]} and {expected[1]}"
        )
    return policy


def initial_policy(
    path: str | Path, env_name: str, options: dict[str, Any], net_arch: list[int]
) -> MaskableActorCriticPolicy:
    """The weights-only policy saved at `path` (a run's `policy.pt`, `best_policy.pt` or
    `clone.pt` beside its `.json`, or a run or checkpoint folder's `policy.pt`; see
    `game_policy`), after checking that it plays `env_name` under these rule options with hidden
    layers `net_arch`. A `ValueError` names what does not fit."""
    policy = game_policy(path, env_name, options, "init_from")
    layers = policy.net_arch
    if isinstance(layers, dict):
        layers = layers["pi"] if layers["pi"] == layers["vf"] else layers
    if layers != list(net_arch):
        raise ValueError(
            f"init_from: {path} has hidden layers {layers}, not the {list(net_arch)} asked for"
        )
    return policy
