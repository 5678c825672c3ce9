"""The YAML presets of rule options of the repository's `configs/<game>/` folders."""

from __future__ import annotations

from pathlib import Path

from snail_envs.training.config import rule_presets

CONFIGS = Path(__file__).resolve().parents[1] / "configs"

__all__ = ["CONFIGS", "rule_presets"]
