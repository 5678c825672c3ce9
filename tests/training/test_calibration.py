"""The learned best response on a solvable mini, beside the exact best response."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from snail_envs.registry import GAME_FOLDERS, GAMES
from snail_envs.training import exploit
from snail_envs.training.exploit import Job
from tests.names import SNAP

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.slow
def test_the_learned_reply_to_random_on_the_snap_mini_gains_no_more_than_the_exact_one(
    tmp_path: Path,
) -> None:
    pytest.importorskip("pyspiel")
    from snail_envs.exact import analyse

    folder = GAME_FOLDERS[[game.env_name for game in GAMES].index(SNAP)]
    options = yaml.safe_load((CONFIGS / folder / "mini.yaml").read_text())
    report, _, _ = analyse(SNAP, "mini", ["random"], solve_to=None)
    (result,) = report.agents
    exact = result.exploitability.best_response_rotating
    job = Job(SNAP, "random", options, budget_seconds=30, games=300)
    learned = exploit.exploit(job, folder=tmp_path / "run", progress=False)
    low = learned["margin_ci95"][0]
    # a best response to random gains; none gains more than the exact best response
    assert low > 0
    assert low <= exact
    assert 0 < exact < 1


def test_the_search_reply_to_random_on_the_snap_mini_beats_chance_clearly(
    tmp_path: Path,
) -> None:
    folder = GAME_FOLDERS[[game.env_name for game in GAMES].index(SNAP)]
    options = yaml.safe_load((CONFIGS / folder / "mini.yaml").read_text())
    job = Job(
        SNAP,
        "random",
        options,
        budget_seconds=3600,
        games=40,
        method="search",
        search_iterations=30,
        search_value="margin",
        search_engine="python",  # the belief-weighted IS-MCTS; the compiled one walks 64 a round
    )
    report = exploit.exploit(job, folder=tmp_path / "run", progress=False)
    assert report["winner"] == "search" and report["games"] == 40
    # the exact best response gains +0.551 a game (docs/results.md); chance, 0
    assert report["margin_ci95"][0] > 0.3
    assert report["score_ci95"][0] > 0.6
    assert any(line.startswith("calls a game: ") for line in report["differences"])
    described = "search (IS-MCTS, 30 iterations a decision, the target as every other seat, target"
    assert described in (tmp_path / "run" / "report.md").read_text()
