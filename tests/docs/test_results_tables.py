"""The docs' results tables are made from the data the tools wrote (results_tables.py)."""

from __future__ import annotations

import json
import sys

import pytest

from snail_envs.training.evaluate import results_markdown
from tests.docs.site import ROOT
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import results_tables
from results_tables import exploit_table, fill_tables, short_exploit_cell

STORED_EVAL = "eval/snail_sprint_v0-seed1.json"


def report(env: str, target: str, rate: float, low: float, high: float) -> dict[str, object]:
    return {
        "env": env,
        "target": target,
        "method": "learned",
        "reply": "clone",
        "score_rate": rate,
        "lower_bound": rate - 0.5,
        "lower_bound_ci95": [low - 0.5, high - 0.5],
        "cpu_seconds": 61.4,
    }


def test_each_exploit_report_fills_its_cell_and_the_rest_say_not_measured(tmp_path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(report(SNAIL_SPRINT, "ppo:x.pt", 0.6, 0.57, 0.63)))
    (tmp_path / "b.json").write_text(json.dumps(report(PEDZACE_SLIMAKI, "random", 0.2, 0.18, 0.23)))
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in
            exploit_table(tmp_path).splitlines()[2:]}  # fmt: skip
    header = exploit_table(tmp_path).splitlines()[0].split(" | ")[1:]
    sprint = next(i for i, title in enumerate(header) if SNAIL_SPRINT in title)
    pedzace = next(i for i, title in enumerate(header) if PEDZACE_SLIMAKI in title)
    assert rows["ppo"][sprint].startswith("**+10.0% (+7.0% to +13.0%)**; score 60.0%, clone arm")
    assert "61 CPU s" in rows["ppo"][sprint]
    assert rows["random"][pedzace].startswith("0 (reply below chance, 20.0%)")
    assert rows["heuristic"][sprint] == "—"
    assert sum(cell.strip(" |") == "—" for row in rows.values() for cell in row) == 4 * 4 - 2


def test_a_cell_whose_reply_is_an_untrained_candidate_says_so(tmp_path) -> None:
    found = {**report(PEDZACE_SLIMAKI, "random", 0.9, 0.88, 0.92), "reply": "heuristic"}
    (tmp_path / "a.json").write_text(json.dumps({**found, "candidates": ["heuristic"]}))
    assert "score 90.0%, heuristic (untrained candidate), 61 CPU s" in exploit_table(tmp_path)


def test_a_search_target_of_another_budget_is_named_in_its_cell(tmp_path) -> None:
    found = {**report(SNAIL_SPRINT, "search:256", 0.6, 0.57, 0.63), "reply": "heuristic"}
    (tmp_path / "a.json").write_text(json.dumps({**found, "candidates": ["heuristic"]}))
    assert "heuristic (untrained candidate), against `search:256`, 61 CPU s" in exploit_table(
        tmp_path
    )


def test_of_two_reports_of_one_cell_the_higher_bound_shows(tmp_path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(report(SNAIL_SPRINT, "random", 0.6, 0.57, 0.63)))
    searched = {**report(SNAIL_SPRINT, "random", 0.7, 0.67, 0.73), "method": "search"}
    (tmp_path / "b.json").write_text(json.dumps(searched))
    table = exploit_table(tmp_path)
    assert "**+20.0% (+17.0% to +23.0%)**; score 70.0%, search" in table
    assert "+10.0%" not in table


def test_a_stored_calibration_shows_each_target_beside_the_exact_gain() -> None:
    table = results_tables.data_table("calibration/snailed_it_v0-search.json")
    rows = table.splitlines()[2:]
    assert [row.split(" | ")[1] for row in rows] == [
        "random",
        "heuristic",
        "trained policy",
        "CFR+",
    ]
    assert (
        "| Snailed It! mini | random | +1.764 | +1.626 (+1.439 to +1.812), 729 | **92%** |" in table
    )
    assert "| −0.049 (−0.303 to +0.205), 509 | — |" in table


def test_a_stored_exact_calibration_shows_each_methods_exact_gain() -> None:
    table = results_tables.data_table("calibration/exact-both-100.json")
    assert table.splitlines()[0].startswith(
        "| game | target | exact BR gain | learned gain | search gain | share | search asked at |"
    )
    snap_cfr = next(row for row in table.splitlines() if row.startswith("| Snap mini | CFR+ |"))
    assert "| +0.0087 | −0.6012 | +0.0085 | **98%** | 169 |" in snap_cfr
    # a method that did not run shows a dash, and a reply that lost shows no share
    assert "| Snailed It! mini | CFR+ | +0.0104 | — | −0.0628 | — |" in table


def test_a_stored_duplicate_run_shows_each_game_and_the_cut() -> None:
    table = results_tables.data_table("duplicate/clone-vs-heuristic-400.json")
    sprint = next(row for row in table.splitlines() if row.startswith("| Snail Sprint! |"))
    assert "| 400 | 48.8% | 4.9% | 1.5% | 3.23× | 10.4× |" in sprint
    assert "games" not in [row.split(" | ")[0] for row in table.splitlines()[2:]]


def test_the_short_table_gives_the_bound_alone_and_the_cpu_minutes() -> None:
    above = report(SNAIL_SPRINT, "random", 0.6, 0.57, 0.63)
    assert short_exploit_cell(above) == "**+10.0%** (1 CPU min)"
    assert short_exploit_cell(report(SNAIL_SPRINT, "random", 0.2, 0.18, 0.23)).startswith("0 (")
    assert (
        short_exploit_cell(report(SNAIL_SPRINT, "random", 0.51, 0.48, 0.54)) == "+1.0% (1 CPU min)"
    )


def test_a_stored_tournament_shows_the_tables_its_report_showed() -> None:
    data = json.loads((results_tables.DATA / STORED_EVAL).read_text())
    filled = fill_tables(f"<!-- data: {STORED_EVAL} -->", "results.md")
    assert filled == results_markdown(data, report=False).rstrip()
    assert "| random | heuristic | 1000 | 19.4% (17.1%–22.0%) |" in filled


def test_a_marker_that_names_no_data_stops_the_build_naming_the_page() -> None:
    with pytest.raises(ValueError, match=r"results\.md: <!-- data: eval/missing\.json --> names"):
        fill_tables("<!-- data: eval/missing.json -->", "results.md")


def test_every_marker_of_the_results_page_has_its_data() -> None:
    page = (ROOT / "docs" / "results.md").read_text()
    filled = fill_tables(page, "results.md")
    assert "<!-- data:" not in filled and "<!-- headline-results -->" not in filled


def test_the_stored_exploit_reports_are_snail_exploit_reports() -> None:
    for path in sorted((results_tables.DATA / "exploit").glob("*.json")):
        stored = json.loads(path.read_text())
        cell = f"{stored['env']}-{stored['target'].partition(':')[0]}"
        assert path.stem in (cell, f"{cell}-{stored['method']}"), path.name
        assert stored["games"] >= 1000 and stored["cpu_seconds"] > 0, path.name
