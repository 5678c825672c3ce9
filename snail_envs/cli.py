"""Command-line helpers shared by the library's scripts (demo, play, evaluate)."""

from __future__ import annotations

import argparse
import ast
from typing import Any


def env_name(text: str) -> str:
    """An environment name given on a command line (use with `choices`): a retired version is
    refused by a message naming the version that replaces it."""
    import snail_envs

    if text in snail_envs.RETIRED_NAMES:
        raise argparse.ArgumentTypeError(str(snail_envs.deprecated_env(text)))
    return text


YAML_WORDS = {"true": True, "false": False, "null": None}
"""The words of YAML (snail-train's settings, the configs) that mean what Python's `True`,
`False` and `None` do."""


def parse_option(text: str) -> tuple[str, Any]:
    """'num_players=3' -> ('num_players', 3); values are Python literals (or YAML's `true`,
    `false` and `null`, as the configs write them), else strings."""
    name, separator, value = text.partition("=")
    if not separator or not name:
        raise argparse.ArgumentTypeError(f"options are written name=value, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, YAML_WORDS.get(value, value)


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """`-o name=value` (repeatable): rule options of the game, collected in `args.option`."""
    parser.add_argument(
        "-o",
        "--option",
        type=parse_option,
        action="append",
        default=[],
        help="a rule option as name=value (repeatable), e.g. -o num_players=3",
    )
