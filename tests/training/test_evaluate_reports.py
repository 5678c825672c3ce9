"""What snail-eval says of itself: defaults in --help, the full SHA-256 in the provenance."""

from __future__ import annotations

import re

import pytest

from snail_envs.training.evaluate import main, provenance_markdown


def test_help_shows_the_defaults_of_games_and_seed(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert re.search(r"--games GAMES games per pairing \(default: 200\)", help_text)
    assert re.search(r"--seed SEED [^-]*\(default: 0\)", help_text)


def test_the_provenance_column_headed_sha256_holds_the_whole_hash() -> None:
    digest = "0123456789abcdef" * 4
    record = {
        "command": "snail-eval ...",
        "seed": 1,
        "env_options": {},
        "python": "3.11",
        "packages": {"snail_envs": "0.2.0"},
        "agent_files": {"ppo": {"file": "policy.pt", "sha256": digest}},
    }
    lines = provenance_markdown(record, {"ppo": "ppo"})
    assert "| label | agent | file | SHA-256 |" in lines
    assert f"| ppo | `ppo` | policy.pt | `{digest}` |" in lines
