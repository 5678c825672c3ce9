"""A policy trained with MaskablePPO, as an agent (needs the `train` extra: torch, sb3-contrib)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

CHECKPOINTS = Path(__file__).parent / "checkpoints"


class PPOAgent:
    """Acts with a trained MaskablePPO policy: the most likely legal action (`deterministic`),
    or a sample from the policy's legal distribution."""

    def __init__(self, model: Any, deterministic: bool = True, seed: int | None = None) -> None:
        self.model = model
        self.deterministic = deterministic
        self.reset(seed)

    @classmethod
    def load(
        cls, path: str | Path, deterministic: bool = True, seed: int | None = None
    ) -> PPOAgent:
        """A trained model (`model.zip` of `training.train`) or its policy alone (`policy.pt`,
        the form shipped with the library: no optimizer state)."""
        import zipfile

        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no trained policy at {path}")
        with zipfile.ZipFile(path) as archive:
            whole_model = "data" in archive.namelist()  # a model archive; a policy is torch's
        if whole_model:
            from sb3_contrib import MaskablePPO

            return cls(MaskablePPO.load(path, device="cpu"), deterministic, seed)
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        return cls(MaskableActorCriticPolicy.load(path, device="cpu"), deterministic, seed)

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


def shipped_checkpoint(env_name: str) -> Path:
    """The trained baseline policy shipped with the library for `env_name`."""
    return CHECKPOINTS / f"{env_name}.pt"
