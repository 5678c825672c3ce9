"""The package layout pyproject.toml cannot say: everything installs under the project's own name.

The repository keeps agents/, training/ and configs/ at its top level; they install as
`snail_envs.agents`, `snail_envs.training` and `snail_envs.training.configs` (the configs as
package data, where `snail_envs.training.config` finds them installed), so that no generic
top-level name (`agents`, `training`) is installed. Everything else is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

FOLDERS = {
    "snail_envs.agents": "agents",
    "snail_envs.training": "training",
    "snail_envs.training.configs": "configs",
}
"""The packages under `snail_envs` whose sources are top-level folders of the repository."""


def subpackages(package: str) -> list[str]:
    """`package` and the packages in its folder (the data folders among them), by full name."""
    return [package, *(f"{package}.{name}" for name in find_namespace_packages(FOLDERS[package]))]


setup(
    packages=[
        *find_namespace_packages(include=["snail_envs", "snail_envs.*"]),
        *subpackages("snail_envs.agents"),
        *subpackages("snail_envs.training"),
        "snail_envs.training.configs",
    ],
    package_dir=FOLDERS,
)
