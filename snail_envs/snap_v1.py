"""Snap's second version, `snap_v1`, replaced by `snail_envs.snap_v2`.

Importing this module raises `pettingzoo.utils.deprecated_module.DeprecatedEnv` naming the new
version, as PettingZoo does for its own retired versions; see `snail_envs.snap_v2`'s version
history for what changed.
"""

from snail_envs import deprecated_env

raise deprecated_env("snap_v1")
