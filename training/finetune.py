"""The ppo stage after imitation: MaskablePPO from the cloned weights, anchored to the clone.

Fine-tuning a cloned policy with PPO's default step size and entropy bonus undoes the clone in a
few updates; a small step size and a KL term to the clone keep it near what it learnt. The
anchor is KL(clone ‖ policy) over each update's states, with a weight that may fall to 0 as
training goes on (`anchor_coef`, `anchor_decay_steps` of `training.config.TrainConfig`).

MaskablePPO's loss is written inside its `train` method; rather than copy it, the anchor adds
its gradient where the policy's action logits receive theirs: `AnchoredPolicy.evaluate_actions`
(which `train` calls once per minibatch) hooks the logits, so that the backward pass of PPO's
loss carries the gradient of PPO's loss + weight × KL, before the gradient is clipped.

A run may also start from a policy saved by an earlier one (`init_from` of
`training.config.TrainConfig`, `--init-from` of `training.train`): `initial_policy` loads it and
checks that it fits the run's game, rule options and network, and its weights replace the new
network's before the first stage, so that `stages: [ppo]` fine-tunes a saved clone (anchored to
it) without repeating the imitation.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback

import snail_envs


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

    def pull(self, observations: Any, masks: Any, distribution: Any, logits: Any) -> None:
        """Measure KL(clone ‖ policy) on the minibatch and, if the weight is above 0, add the
        gradient of weight × its mean to the gradient that reaches `logits`."""
        import torch

        with torch.no_grad():
            target = self.reference.get_distribution(observations, masks).distribution.probs
            probs = distribution.distribution.probs
            log_ratio = torch.log(target.clamp_min(1e-30)) - torch.log(probs.clamp_min(1e-30))
            divergence = torch.where(target > 0, target * log_ratio, 0.0).sum(dim=1)
        self.divergences.append(float(divergence.mean()))
        if self.coef > 0:
            # d KL(target ‖ softmax(z)) / dz = softmax(z) − target, for each state
            pull = self.coef * (probs - target) / len(probs)
            logits.register_hook(lambda grad: grad + pull)


class AnchoredPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic policy, pulled towards `anchor` while PPO trains it
    (none: it trains as the plain policy)."""

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
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        if self.anchor is not None and logits.requires_grad:
            self.anchor.pull(obs, action_masks, distribution, logits)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()


class AnchorSchedule(BaseCallback):
    """Sets the anchor's weight before every rollout (falling linearly from `coef` to 0 over
    `decay_steps` timesteps, or staying at `coef` when that is 0), and logs the weight and the
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
            left = max(0.0, 1.0 - (self.num_timesteps - self._first) / self.decay_steps)
        self.anchor.coef = self.start * left
        self.logger.record("train/anchor_coef", self.anchor.coef)

    def _on_training_start(self) -> None:
        self._first = self.num_timesteps

    def _on_step(self) -> bool:
        return True


class KeepBest(BaseCallback):
    """Saves the model whenever a new point of the learning curve beats every earlier one
    against `opponent` (the score rate, then the lower end of its interval, decide)."""

    def __init__(self, curve: list[dict[str, Any]], opponent: str, path: Path) -> None:
        super().__init__()
        self.curve, self.opponent, self.path = curve, opponent, path
        self.best: tuple[float, float] | None = None
        self.best_timesteps: int | None = None
        self._seen = len(curve)

    def _on_step(self) -> bool:
        if len(self.curve) > self._seen:
            self._seen = len(self.curve)
            point = self.curve[-1]
            rate, low, _ = point[self.opponent]
            if self.best is None or (rate, low) > self.best:
                self.best, self.best_timesteps = (rate, low), point["timesteps"]
                self.model.save(self.path)
        return True


def initial_policy(
    path: str | Path, env_name: str, options: dict[str, Any], net_arch: list[int]
) -> MaskableActorCriticPolicy:
    """The policy saved at `path` (a run's `policy.pt`, or a model: `model.zip`,
    `best_model.zip`, a checkpoint), after checking that it plays `env_name` under these rule
    options with hidden layers `net_arch`; a `ValueError` names what does not fit."""
    from agents.ppo import PPOAgent

    source = Path(path)
    if not source.is_file():
        raise ValueError(f"init_from: no saved policy at {source}")
    try:
        saved = PPOAgent.load(source).model
    except Exception as problem:
        raise ValueError(
            f"init_from: {source} is not a saved MaskablePPO model or policy ({problem})"
        ) from problem
    policy = getattr(saved, "policy", saved)
    view = snail_envs.single_agent(env_name, **options)
    expected = (view.observation_space.shape, int(view.action_space.n))
    found = (policy.observation_space.shape, int(policy.action_space.n))
    if found != expected:
        raise ValueError(
            f"init_from: {source} does not play {env_name} with options {options}: it takes "
            f"observations of shape {found[0]} and {found[1]} actions, the game "
            f"{expected[0]} and {expected[1]}"
        )
    if list(policy.net_arch) != list(net_arch):
        raise ValueError(
            f"init_from: {source} has hidden layers {list(policy.net_arch)}, not the "
            f"{list(net_arch)} asked for"
        )
    return policy
