"""The package layout pyproject.toml cannot say: the top-level configs/ folder ships as the package
data of `training` (`training/configs/` in a wheel), where `training.config` finds it installed.
Everything else about the project is in pyproject.toml."""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["snail_envs*", "agents*", "training*"]),
        "training.configs",
    ],
    package_dir={"training.configs": "configs"},
)
