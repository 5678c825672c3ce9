"""Snap — `snap_v0` (PettingZoo id `snail_envs/snap-v0`).

Draft.

## Version history

- v0: first release.
"""

from __future__ import annotations

from typing import Any

from snail_envs.snap.env import SPEC, parallel_raw_env, raw_env

__all__ = ["SPEC", "env", "parallel_env", "raw_env"]


def env(**options: Any) -> raw_env:
    """A new AEC environment (see the module docstring for the options)."""
    return raw_env(**options)


def parallel_env(**options: Any) -> parallel_raw_env:
    """A new native parallel environment (see the module docstring for the options)."""
    return parallel_raw_env(**options)
