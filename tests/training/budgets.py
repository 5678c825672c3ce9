"""Training budgets small enough for tests: config overrides shared by the training tests."""

from __future__ import annotations

TINY_PPO = [
    "total_timesteps=256",
    "n_envs=2",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "eval_every=128",
    "checkpoint_every=128",
]
"""A PPO stage of 256 timesteps in two games, one epoch a rollout, a point and a checkpoint
every 128 timesteps."""

PPO_ONLY = ["stages=[ppo]", "anchor_coef=0", "keep_best=false"]
"""Plain PPO, whatever stages the game's config names."""
