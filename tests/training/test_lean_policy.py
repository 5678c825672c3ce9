"""`LeanPolicy`: sb3-contrib's masked policy, its distribution on tensors, the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

import snail_envs
from snail_envs.training.lean_policy import LeanMaskedCategorical, LeanPolicy


def logits_and_masks(rows: int, actions: int, seed: int) -> tuple[torch.Tensor, np.ndarray]:
    generator = np.random.default_rng(seed)
    logits = torch.tensor(generator.normal(0, 3, (rows, actions)), dtype=torch.float32)
    masks = generator.random((rows, actions)) < 0.5
    masks[np.arange(rows), generator.integers(0, actions, rows)] = True  # a legal action a row
    return logits.requires_grad_(), masks


@pytest.mark.parametrize("masked", [True, False])
def test_every_output_equals_sb3_contribs(masked: bool) -> None:
    logits, masks = logits_and_masks(257, 9, seed=4)
    theirs, ours = MaskableCategoricalDistribution(9), LeanMaskedCategorical(9)
    for distribution in (theirs, ours):
        distribution.proba_distribution(logits)
        distribution.apply_masking(masks if masked else None)
    actions = torch.tensor(np.argmax(masks, axis=1))
    gradients = [
        torch.autograd.grad((d.log_prob(actions) + 0.01 * d.entropy()).sum(), logits)[0]
        for d in (theirs, ours)
    ]
    assert torch.equal(*gradients)
    assert torch.equal(ours.log_prob(actions), theirs.log_prob(actions))
    assert torch.equal(ours.entropy(), theirs.entropy())
    assert torch.equal(ours.mode(), theirs.mode())
    assert torch.equal(ours.probs, theirs.distribution.probs)
    assert torch.equal(ours.distribution.logits, theirs.distribution.logits)
    torch.manual_seed(7)
    drawn_by_theirs = theirs.sample()
    torch.manual_seed(7)
    assert torch.equal(ours.sample(), drawn_by_theirs)
    if masked:
        assert bool(torch.as_tensor(masks)[torch.arange(257), drawn_by_theirs].all())


def test_masking_can_be_undone() -> None:
    logits, masks = logits_and_masks(5, 4, seed=1)
    distribution = LeanMaskedCategorical(4).proba_distribution(logits)
    unmasked = distribution.probs
    distribution.apply_masking(masks)
    assert bool((distribution.probs[torch.as_tensor(~masks)] < 1e-30).all())
    distribution.apply_masking(None)
    assert torch.equal(distribution.probs, unmasked)


def test_a_seeded_run_trains_exactly_as_with_sb3_contribs_policy() -> None:
    torch.set_num_threads(1)

    def trained(policy: object) -> list[torch.Tensor]:
        venv = snail_envs.make_vec_env("pedzace_slimaki_v0", 4, num_players=2)
        model = MaskablePPO(
            policy, venv, n_steps=32, batch_size=64, n_epochs=2, ent_coef=0.01, seed=3
        )
        model.learn(256)
        return [parameter.detach() for parameter in model.policy.parameters()]

    theirs, ours = trained("MlpPolicy"), trained(LeanPolicy)
    assert all(torch.equal(a, b) for a, b in zip(theirs, ours, strict=True))


def test_it_refuses_an_action_space_it_cannot_mask() -> None:
    observations = spaces.Box(0, 1, (3,), np.float32)
    with pytest.raises(ValueError, match="LeanPolicy needs a Discrete action space"):
        LeanPolicy(observations, spaces.MultiDiscrete([2, 3]), lambda _: 3e-4)
