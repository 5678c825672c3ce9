"""The YAML presets of rule options of the repository's `configs/<game>/` folders."""

from __future__ import annotations

from pathlib import Path

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def rule_presets(game: str) -> list[Path]:
    """The rule presets of `configs/<game>/` (`game`: the game's folder, such as `snap`);
    training configs, `ppo*.yaml`, are not rule presets."""
    return sorted(p for p in (CONFIGS / game).glob("*.yaml") if not p.name.startswith("ppo"))
