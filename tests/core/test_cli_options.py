"""`-o name=value` on the command lines: Python literals, YAML's words, else strings."""

from __future__ import annotations

import argparse

import pytest

from snail_envs.cli import parse_option


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("num_players=3", ("num_players", 3)),
        ("previews=True", ("previews", True)),
        ("previews=true", ("previews", True)),
        ("choice_counts=false", ("choice_counts", False)),
        ("max_turns=None", ("max_turns", None)),
        ("max_turns=null", ("max_turns", None)),
        ("glimpse_error=[0.88,0.2,0.0]", ("glimpse_error", [0.88, 0.2, 0.0])),
        ("recall=none", ("recall", "none")),
        ("ruleset=classic", ("ruleset", "classic")),
    ],
)
def test_a_value_is_a_literal_a_yaml_word_or_a_string(text: str, parsed: tuple) -> None:
    assert parse_option(text) == parsed


def test_an_option_without_a_value_is_refused_naming_the_form() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="name=value, got 'previews'"):
        parse_option("previews")
