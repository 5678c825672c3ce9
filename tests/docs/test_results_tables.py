"""The docs' results tables are made from the data the tools wrote (results_tables.py)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from snail_envs import speed_tables
from snail_envs.speed_tables import batched_label, pgx_label, toy_label
from snail_envs.training.evaluate import results_markdown
from tests.docs.site import ROOT
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import results_tables
from results_tables import (
    benchmark_table,
    exploit_table,
    fill_tables,
    short_exploit_cell,
)

STORED_EVAL = "eval/snail_sprint_v0-seed1.json"
REFERENCE = "pettingzoo connect_four_v3 (AEC)"
MACHINE = {
    "command": "python benchmarks/throughput.py --out speed.json",
    "date": "2026-12-02",
    "python": "3.11.9",
    "packages": {"snail_envs": "0.9.0", "numba": "0.60.0"},
    "cpu": "AMD EPYC 7B13",
    "cpus": 2,
}
MACHINE_LINE = (
    "Measured 2026-12-02 on AMD EPYC 7B13 (2 CPUs), Python 3.11.9, snail_envs 0.9.0, "
    "numba 0.60.0: `python benchmarks/throughput.py --out speed.json`"
)


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


def test_a_stored_control_variate_check_shows_its_mean_difference_and_whether_it_holds_0() -> None:
    table = results_tables.data_table("duplicate/variate-bias.json")
    assert table.splitlines()[0].startswith("| game | games a seed | seeds |")
    sprint = next(row for row in table.splitlines() if row.startswith("| Snail Sprint! |"))
    assert "| 400 | 10 | 49.2% | 49.3% | +0.05% (−0.91% to +1.01%) | yes |" in sprint


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


def test_a_stored_aivat_run_shows_each_estimators_cut_and_the_cost() -> None:
    table = results_tables.data_table("duplicate/aivat-pedzace_slimaki_v0-256.json")
    assert table.splitlines()[0].startswith("| game | games | clone's score, plain | ± plain |")
    (row,) = table.splitlines()[2:]
    assert row == (
        "| Pędzące Ślimaki | 400 | 42.9% | 4.8% | 4.2% | 1.6% (46.4%) | 1.6% "
        "| 1.16× / 2.95× / 2.96× | 7 / 267 |"
    )


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


def test_a_robustness_folder_gives_a_row_per_report_with_its_role_and_table(
    tmp_path: Path,
) -> None:
    shipped = report(PEDZACE_SLIMAKI, "ppo", 0.52, 0.49, 0.55)
    shipped["options"] = {"previews": True}
    shipped["provenance"] = {"agent_files": {"ppo": {"file": "/x/pedzace_slimaki_v0-p.pt"}}}
    heuristic = {**report(PEDZACE_SLIMAKI, "heuristic", 0.6, 0.57, 0.63), "options": {}}
    (tmp_path / f"{PEDZACE_SLIMAKI}-2-shipped.json").write_text(json.dumps(shipped))
    (tmp_path / f"{PEDZACE_SLIMAKI}-1-heuristic.json").write_text(json.dumps(heuristic))
    rows = results_tables.robustness_table(tmp_path).splitlines()[2:]
    assert rows[0].startswith("| Pędzące Ślimaki | defaults | heuristic: `heuristic` | **+10.0%")
    assert rows[1].startswith(
        "| Pędzące Ślimaki | previews=True | shipped: `ppo` (pedzace_slimaki_v0-p.pt) | +2.0% "
    )


def test_the_stored_robustness_reports_measured_the_files_of_today() -> None:
    """Each report is named ENV-N-ROLE and measured 1,000 games; a policy of the repository
    that it names (a shipped or previous one) is today's file, by its SHA-256."""
    stored = sorted((results_tables.DATA / "robustness").glob("*/*.json"))
    assert stored
    for path in stored:
        found = json.loads(path.read_text())
        env, number, role = path.stem.split("-")
        assert env == found["env"] and number.isdigit() and role, path.name
        assert found["games"] >= 1000 and found["cpu_seconds"] > 0, path.name
        for entry in found["provenance"]["agent_files"].values():
            name = entry["file"]
            folder = next(f for f in ("agents/checkpoints/", "benchmarks/") if f in name)
            file = ROOT / name[name.index(folder) :]
            assert hashlib.sha256(file.read_bytes()).hexdigest() == entry["sha256"], path.name


def throughput_run(with_pgx: bool) -> dict[str, Any]:
    """A small throughput record: the reference, one engine's AEC entry, and its batched engine
    at 64 games beside the toy ceiling (and pgx's connect_four, `with_pgx`)."""
    rates = {
        REFERENCE: [1000.0, 1200.0, 1100.0],
        f"snail_envs {SNAIL_SPRINT} (AEC)": [4400.0, 4000.0, 4620.0],
    }
    if with_pgx:
        rates[pgx_label(64)] = [2e6, 2e6, 2e6]
    rates[toy_label(64)] = [3e7, 3e7, 3e7]
    rates[batched_label(SNAIL_SPRINT, 64)] = [3e6, 3.2e6, 2.9e6]
    rates[batched_label(SNAIL_SPRINT, 64, compact_views=True)] = [4e6, 3.9e6, 4.1e6]
    return {
        "seconds": 0.1,
        "rounds": 3,
        "reference": REFERENCE,
        "batch_sizes": [64],
        "batched_engines": [SNAIL_SPRINT],
        "rates": rates,
        "compile_cpu_seconds": {SNAIL_SPRINT: {"cold": 7.64, "cached": 0.61}},
        "provenance": MACHINE,
    }


def test_a_throughput_run_shows_its_tables_and_its_machine(tmp_path) -> None:
    (tmp_path / "speed.json").write_text(json.dumps(throughput_run(with_pgx=True)))
    assert benchmark_table(tmp_path / "speed.json", "speed").splitlines() == [
        "| entry | decisions/s (median of 3) | min–max | × connect_four |",
        "|---|---:|---:|---:|",
        "| pettingzoo connect_four_v3 (AEC) | 1,100 | 1,000–1,200 | 1.00× |",
        f"| snail_envs {SNAIL_SPRINT} (AEC) | 4,400 | 4,000–4,620 | 4.00× |",
        f"| {pgx_label(64)} | 2,000,000 | 2,000,000–2,000,000 | 1818.18× |",
        f"| {toy_label(64)} | 30,000,000 | 30,000,000–30,000,000 | 27272.73× |",
        f"| {batched_label(SNAIL_SPRINT, 64)} | 3,000,000 | 2,900,000–3,200,000 | 2727.27× |",
        f"| snail_envs {SNAIL_SPRINT} (batched, compact views, 64 games) | 4,000,000 "
        "| 3,900,000–4,100,000 | 3636.36× |",
        "",
        "| batched engine | games | decisions/s | × pgx connect_four | × toy ceiling |",
        "|---|---:|---:|---:|---:|",
        f"| {SNAIL_SPRINT} | 64 | 3,000,000 | 1.50× | 0.10× |",
        f"| {SNAIL_SPRINT}, compact views | 64 | 4,000,000 | 2.00× | 0.13× |",
        "",
        "| batched engine | compile, cold | compile, cached |",
        "|---|---:|---:|",
        f"| {SNAIL_SPRINT} | 7.6 s | 0.6 s |",
        "",
        MACHINE_LINE,
    ]


def test_the_readme_speed_table_gives_each_engine_over_pgx_with_both_views() -> None:
    run = throughput_run(with_pgx=True)
    machine = {**MACHINE, "avx512": False}
    assert speed_tables.readme_speed_table({**run, "provenance": machine}).splitlines() == [
        "| × pgx connect_four: float32 views / compact views | 64 games |",
        "|---|---:|",
        f"| `{SNAIL_SPRINT}` | 1.50× / 2.00× |",
        "",
        "Measured 2026-12-02 on AMD EPYC 7B13 without AVX-512 (2 CPUs), one core: "
        "`python benchmarks/throughput.py --out speed.json`",
    ]


def test_the_readme_speed_table_gives_each_engine_a_row_a_machine() -> None:
    run = throughput_run(with_pgx=True)
    without = {**run, "provenance": {**MACHINE, "avx512": False}}
    faster = {name: [2 * rate for rate in rounds] for name, rounds in run["rates"].items()}
    faster[batched_label(SNAIL_SPRINT, 64, True)] = [9e6, 9e6]
    with_avx512 = {
        **run,
        "rates": faster,
        "provenance": {**MACHINE, "cpu": "Intel Xeon", "avx512": True, "date": "2026-12-06"},
    }
    assert speed_tables.readme_speed_table(without, with_avx512).splitlines() == [
        "| × pgx connect_four: float32 views / compact views | 64 games |",
        "|---|---:|",
        f"| `{SNAIL_SPRINT}`, no AVX-512 | 1.50× / 2.00× |",
        f"| `{SNAIL_SPRINT}`, AVX-512 | 1.50× / 2.25× |",
        "",
        "- Measured 2026-12-02 on AMD EPYC 7B13 without AVX-512 (2 CPUs), one core: "
        "`python benchmarks/throughput.py --out speed.json`",
        "- Measured 2026-12-06 on Intel Xeon with AVX-512 (2 CPUs), one core: "
        "`python benchmarks/throughput.py --out speed.json`",
    ]


def test_a_throughput_run_without_pgx_says_so_in_its_column(tmp_path) -> None:
    (tmp_path / "speed.json").write_text(json.dumps(throughput_run(with_pgx=False)))
    table = benchmark_table(tmp_path / "speed.json", "speed")
    assert f"| {SNAIL_SPRINT} | 64 | 3,000,000 | (no pgx) | 0.10× |" in table.splitlines()
    assert "pgx connect_four (" not in table


def test_a_throughput_run_without_the_batched_engines_shows_its_entries_alone(tmp_path) -> None:
    run = throughput_run(with_pgx=False)
    rates = {name: run["rates"][name] for name in (REFERENCE, f"snail_envs {SNAIL_SPRINT} (AEC)")}
    unbatched = {**run, "rates": rates, "batched_engines": [], "compile_cpu_seconds": {}}
    (tmp_path / "speed.json").write_text(json.dumps(unbatched))
    lines = benchmark_table(tmp_path / "speed.json", "speed").splitlines()
    assert lines[2:] == [
        "| pettingzoo connect_four_v3 (AEC) | 1,100 | 1,000–1,200 | 1.00× |",
        f"| snail_envs {SNAIL_SPRINT} (AEC) | 4,400 | 4,000–4,620 | 4.00× |",
        "",
        MACHINE_LINE,
    ]


def test_a_training_speed_run_shows_its_table_and_its_machine(tmp_path) -> None:
    games = {
        SNAIL_SPRINT: {
            "timesteps_per_second": {
                "sb3": [2000.0, 2000.0],
                "defaults": [16000.0, 18000.0],
                "config": [18000.0, 18000.0],
            },
            "median": {"sb3": 2000.0, "defaults": 17000.0, "config": 18000.0},
            "ratio": {"defaults": 8.5, "config": 9.0},
        },
        PEDZACE_SLIMAKI: {
            "timesteps_per_second": {"sb3": [2500.0], "defaults": [25000.0], "config": [12500.0]},
            "median": {"sb3": 2500.0, "defaults": 25000.0, "config": 12500.0},
            "ratio": {"defaults": 10.0, "config": 5.0},
        },
    }
    run = {"steps": 50000, "rounds": 2, "overrides": [], "games": games, "provenance": MACHINE}
    (tmp_path / "training.json").write_text(json.dumps(run))
    assert benchmark_table(tmp_path / "training.json", "training-speed").splitlines() == [
        "| game | SB3 defaults, 8 single_agent views | snail-train, defaults | ratio "
        "| snail-train, game config | ratio |",
        "|---|---:|---:|---:|---:|---:|",
        f"| {SNAIL_SPRINT} | 2,000 | 17,000 | 8.50× | 18,000 | 9.00× |",
        f"| {PEDZACE_SLIMAKI} | 2,500 | 25,000 | 10.00× | 12,500 | 5.00× |",
        "",
        MACHINE_LINE,
    ]


@pytest.mark.parametrize(
    "name",
    [
        "speed/missing.json",
        "training-speed/missing.json",
        "training-ceiling/missing.json",
        "training-parity/missing.json",
    ],
)
def test_a_speed_marker_that_names_no_file_names_the_data_there_is(name: str) -> None:
    allowed = r"eval/FILE\.json .*calibration/FILE\.json .*duplicate/FILE\.json .*speed/FILE\.json"
    with pytest.raises(ValueError, match=rf"results\.md: <!-- data: {name} --> names no data: "):
        fill_tables(f"<!-- data: {name} -->", "results.md")
    trained = (
        r"training-speed/FILE\.json .*training-ceiling/FILE\.json .*training-parity/FILE\.json"
    )
    trained += r" .* or exploit$"
    with pytest.raises(ValueError, match=rf"{allowed} .*{trained}"):
        results_tables.data_table(name)


def test_the_cpu_is_named_by_cpuinfo_where_it_is_readable(tmp_path, monkeypatch) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n")
    monkeypatch.setattr(speed_tables, "CPU_INFO", info)
    assert speed_tables.cpu_model() == "AMD EPYC 7B13 64-Core Processor"
    monkeypatch.setattr(speed_tables, "CPU_INFO", tmp_path / "missing")
    monkeypatch.setattr(speed_tables.platform, "processor", lambda: "arm")
    assert speed_tables.cpu_model() == "arm"


def test_whether_the_cpu_runs_avx512_is_read_from_its_flags(tmp_path, monkeypatch) -> None:
    info = tmp_path / "cpuinfo"
    monkeypatch.setattr(speed_tables, "CPU_INFO", info)
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512bw\n")
    assert speed_tables.has_avx512() is True
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512_bf16\n")
    assert speed_tables.has_avx512() is False
    monkeypatch.setattr(speed_tables, "CPU_INFO", tmp_path / "missing")
    assert speed_tables.has_avx512() is None


@pytest.mark.parametrize(
    ("avx512", "shown"),
    [(True, "AMD EPYC 7B13 with AVX-512"), (False, "AMD EPYC 7B13 without AVX-512")],
)
def test_a_record_names_its_machine_with_or_without_avx512(avx512: bool, shown: str) -> None:
    line = speed_tables.provenance_line({**MACHINE, "avx512": avx512})
    assert line == MACHINE_LINE.replace("AMD EPYC 7B13", shown)


def benchmark(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/NAME.py as a module, its sibling modules importable as it imports them."""
    folder = ROOT / "benchmarks"
    monkeypatch.syspath_prepend(str(folder))
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_benchmark(module: ModuleType, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", argv)
    module.main()


def measured(rates: list[float]) -> Callable[[float], float]:
    """A throughput entry's measure that gives `rates`, one a round."""
    rounds = iter(rates)
    return lambda seconds: next(rounds)


def test_throughput_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run's measurements stubbed (the real ones compile the engines and need the bench
    extra): the JSON holds each round's rate, and the docs show the tables the run printed."""
    throughput = benchmark("throughput", monkeypatch)
    rates = {
        REFERENCE: [1000.0, 900.0],
        pgx_label(64): [1e6, 1e6],
        toy_label(64): [3e7, 3.1e7],
        batched_label(SNAIL_SPRINT, 64): [3e6, 2e6],
    }
    table = {name: measured(rounds) for name, rounds in rates.items()}
    monkeypatch.setattr(throughput, "pin_to_one_core", lambda: "not pinned")
    monkeypatch.setattr(throughput, "require_reference", lambda: None)
    monkeypatch.setattr(throughput, "entries", lambda only, sizes, names: table)
    monkeypatch.setattr(throughput, "batched_names", lambda only: [SNAIL_SPRINT])
    started = (SimpleNamespace(cpu=7.5), SimpleNamespace(cpu=0.5))
    monkeypatch.setattr(throughput, "first_step", lambda name: started)
    out = tmp_path / "speed.json"
    argv = ["benchmarks/throughput.py", "--rounds", "2", "--batch-sizes", "64", "--out", str(out)]
    run_benchmark(throughput, argv, monkeypatch)
    record = json.loads(out.read_text())
    assert record["rates"] == rates
    assert record["compile_cpu_seconds"] == {SNAIL_SPRINT: {"cold": 7.5, "cached": 0.5}}
    assert record["batch_sizes"] == [64] and record["rounds"] == 2
    machine = record["provenance"]
    assert machine["command"] == shlex.join(["python", *argv])
    assert machine["cpus"] == os.cpu_count() and "numpy" in machine["packages"]
    assert machine["avx512"] == speed_tables.has_avx512()
    *tables, _, line = benchmark_table(out, "speed").splitlines()
    printed = capsys.readouterr().out
    assert "\n".join(tables) in printed
    assert line == speed_tables.provenance_line(machine)
    assert printed.endswith(speed_tables.readme_speed_table(record) + "\n")
    assert f"| `{SNAIL_SPRINT}` | 2.50× |" in printed


def without_packages(monkeypatch: pytest.MonkeyPatch, *packages: str) -> None:
    """`importlib.util.find_spec` finds none of `packages`, as where they are not installed."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name in packages else find_spec(name, *rest),
    )


def test_throughput_without_its_optional_peers_says_which_rows_it_skips_and_measures_the_rest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """rlcard, open_spiel and pgx missing: one line each naming the rows skipped and the extra
    to install; every other entry is still measured (the toy's and the engines' stubbed: the
    real ones compile)."""
    throughput = benchmark("throughput", monkeypatch)
    without_packages(monkeypatch, "rlcard", "open_spiel", "pgx")
    monkeypatch.setattr(throughput, "toy_rate", lambda size: measured([1.0]))
    monkeypatch.setattr(throughput, "batched_rate", lambda name, size, *compact: measured([1.0]))
    table = throughput.entries([SNAIL_SPRINT], [64], [SNAIL_SPRINT])
    assert capsys.readouterr().out.splitlines() == [
        "rlcard is missing: skipping PettingZoo's leduc_holdem_v4 rows "
        '(pip install -e ".[bench]")',
        "open_spiel is missing: skipping OpenSpiel's leduc_poker row "
        '(pip install -e ".[openspiel]")',
        'pgx is missing: skipping pgx\'s connect_four rows (pip install -e ".[pgx]")',
    ]
    assert list(table) == [
        REFERENCE,
        f"snail_envs {SNAIL_SPRINT} (AEC)",
        f"snail_envs {SNAIL_SPRINT} (parallel)",
        toy_label(64),
        batched_label(SNAIL_SPRINT, 64),
        batched_label(SNAIL_SPRINT, 64, True),
    ]


def test_throughput_without_pygame_says_the_reference_needs_it_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference, PettingZoo's connect_four_v3, is not optional: no run without it."""
    throughput = benchmark("throughput", monkeypatch)
    without_packages(monkeypatch, "pygame")
    with pytest.raises(SystemExit) as stopped:
        throughput.require_reference()
    assert stopped.value.code == (
        "pygame is missing, and PettingZoo's connect_four_v3, the reference, needs it: "
        'pip install -e ".[bench]"'
    )


@pytest.mark.parametrize(
    ("name", "skipping", "package", "nothing", "line"),
    [
        (
            "throughput",
            lambda module: module.batched_names(None),
            "numba",
            [],
            "numba is missing: skipping the batched engines' rows, pgx's and the toy ceiling's "
            '(pip install -e ".[batched]")',
        ),
        (
            "train_share",
            lambda module: module.batched_engines(),
            "numba",
            set(),
            'numba is missing: skipping the batched vec env rows (pip install -e ".[batched]")',
        ),
        (
            "search_speed",
            lambda module: module.openspiel_rate(100, 4),
            "open_spiel",
            None,
            'open_spiel is missing: skipping its ISMCTSBot row (pip install -e ".[openspiel]")',
        ),
    ],
)
def test_a_benchmark_without_an_optional_peer_skips_its_rows_in_one_line(
    name: str,
    skipping: Callable[[ModuleType], object],
    package: str,
    nothing: object,
    line: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    module = benchmark(name, monkeypatch)
    without_packages(monkeypatch, package)
    assert skipping(module) == nothing
    assert capsys.readouterr().out.splitlines() == [line]


@pytest.mark.parametrize(
    ("argv", "missing", "error"),
    [
        ([], ("open_spiel",), 'open_spiel is missing: pip install -e ".[openspiel]" to play'),
        (["--games", "0"], (), "--games must be at least 1; got 0"),
    ],
)
def test_openspiel_cost_refuses_what_it_cannot_measure_in_one_line(
    argv: list[str],
    missing: tuple[str, ...],
    error: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openspiel_cost = benchmark("openspiel_cost", monkeypatch)
    without_packages(monkeypatch, *missing)
    with pytest.raises(SystemExit):
        run_benchmark(openspiel_cost, ["benchmarks/openspiel_cost.py", *argv], monkeypatch)
    printed = capsys.readouterr()
    assert error in printed.err.splitlines()[-1] and printed.out == ""


def test_train_speed_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The runs stubbed (the real ones train): the JSON holds each round's rate, the medians
    and the ratios to SB3's, and the docs show the table the run printed."""
    train_speed = benchmark("train_speed", monkeypatch)
    rounds = {"sb3": [1000.0, 3000.0], "defaults": [16000.0, 24000.0], "config": [5000.0, 5000.0]}
    rates = {SNAIL_SPRINT: rounds}
    monkeypatch.setattr(train_speed, "measured_rates", lambda *args: rates)
    out = tmp_path / "training.json"
    argv = ["benchmarks/train_speed.py", "--only", SNAIL_SPRINT, "--out", str(out)]
    run_benchmark(train_speed, argv, monkeypatch)
    game = json.loads(out.read_text())["games"][SNAIL_SPRINT]
    assert game["timesteps_per_second"] == rounds
    assert game["median"] == {"sb3": 2000.0, "defaults": 20000.0, "config": 5000.0}
    assert game["ratio"] == {"defaults": 10.0, "config": 2.5}
    *table, _, _ = benchmark_table(out, "training-speed").splitlines()
    assert "\n".join(table) in capsys.readouterr().out


def score_record(env: str, agent: str, score: float, control: float | None) -> dict[str, Any]:
    return {
        "env": env,
        "options": {},
        "preset": None,
        "agent": agent,
        "opponent": "heuristic",
        "games": 100,
        "score": score,
        "cpu_seconds": 12.3,
        "control": None if control is None else {"agent": "heuristic", "score": control},
        "agent_files": {},
    }


def test_a_strength_folder_shows_a_row_a_record_in_the_registrys_order(tmp_path: Path) -> None:
    """Snail Sprint! comes before Pędzące Ślimaki in the registry, whatever the files' names; a
    score whose interval lies above the control's rate is bold, one that does not is not."""
    folder = tmp_path / "strength"
    folder.mkdir()
    records = {
        "a": score_record(PEDZACE_SLIMAKI, "search", 70.0, 50.0),
        "b": score_record(SNAIL_SPRINT, "search", 51.0, 50.0),
    }
    for name, record in records.items():
        (folder / f"{name}.json").write_text(json.dumps(record))
    header, _, sprint, pedzace = results_tables.score_table(folder).splitlines()
    assert header.startswith("| game | agent | against | games | score | control, same games")
    assert pedzace.startswith("| Pędzące Ślimaki | `search` | `heuristic` | 100 | **70.0% (")
    assert "| 50.0% (40.4%–59.6%) (`heuristic`) | 12 |" in pedzace
    assert sprint.startswith("| Snail Sprint! | `search` | `heuristic` | 100 | 51.0% (")


def test_an_empty_strength_folder_stops_the_build_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no score_rate\.py records"):
        results_tables.score_table(tmp_path)


def test_score_rate_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real run of 20 games, the shipped policy against random play with the heuristic as the
    control: the record's scores are the ones printed, the policy's file is named with its
    SHA-256, and the docs' row shows them."""
    score_rate = benchmark("score_rate", monkeypatch)
    out = tmp_path / "rate.json"
    argv = ["benchmarks/score_rate.py", "--env", SNAIL_SPRINT, "--agent", "ppo"]
    argv += ["--opponent", "random", "--control", "heuristic", "--games", "20", "--chunk", "10"]
    run_benchmark(score_rate, [*argv, "--out", str(out)], monkeypatch)
    printed = capsys.readouterr().out.splitlines()
    record = json.loads(out.read_text())
    assert f"20 games, score {record['score']:g}," in printed[1]
    assert f"20 games, score {record['control']['score']:g}," in printed[3]
    shipped = ROOT / "agents" / "checkpoints" / f"{SNAIL_SPRINT}.pt"
    sha256 = hashlib.sha256(shipped.read_bytes()).hexdigest()
    assert record["agent_files"] == {"ppo": {"file": shipped.name, "sha256": sha256}}
    assert record["provenance"]["command"] == shlex.join(["python", *argv, "--out", str(out)])
    row = results_tables.score_table(tmp_path).splitlines()[2]
    assert row.startswith(f"| Snail Sprint! | `ppo` | `random` | 20 | {printed[1].split(', ')[-2]}")


def test_score_rate_names_another_policy_of_the_repository_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped policy against the one it replaced (benchmarks/previous_policies/): the
    record names the shipped file by its name and the other by its path in the repository."""
    score_rate = benchmark("score_rate", monkeypatch)
    out = tmp_path / "rate.json"
    previous = f"benchmarks/previous_policies/{SNAIL_SPRINT}.pt"
    opponent = f"ppo:{ROOT / previous}"
    argv = ["benchmarks/score_rate.py", "--env", SNAIL_SPRINT, "--agent", "ppo"]
    argv += ["--opponent", opponent, "--games", "4", "--chunk", "2", "--out", str(out)]
    run_benchmark(score_rate, argv, monkeypatch)
    files = json.loads(out.read_text())["agent_files"]
    sha256 = hashlib.sha256((ROOT / previous).read_bytes()).hexdigest()
    assert files[opponent] == {"file": previous, "sha256": sha256}
    assert files["ppo"]["file"] == f"{SNAIL_SPRINT}.pt"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--part", "1/2"], "--out records whole runs: give it without --part"),
        (["--games", "25"], "--games 25 is not a multiple of --chunk 10"),
        (["--control", "bogus"], "unknown agent 'bogus'; agents: random, heuristic"),
        (["--preset", "nosuch"], "--preset nosuch: no such rule preset; presets: beginner,"),
        (["-o", "num_players"], "-o num_players: give name=value"),
    ],
)
def test_score_rate_refuses_what_it_cannot_record(
    extra: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    score_rate = benchmark("score_rate", monkeypatch)
    argv = ["benchmarks/score_rate.py", "--env", SNAIL_SPRINT, "--agent", "random"]
    argv += ["--chunk", "10", "--out", str(tmp_path / "rate.json"), *extra]
    with pytest.raises(SystemExit):
        run_benchmark(score_rate, argv, monkeypatch)
    assert message in capsys.readouterr().err
    assert not (tmp_path / "rate.json").exists()


def test_score_rate_keeps_an_existing_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    score_rate = benchmark("score_rate", monkeypatch)
    out = tmp_path / "rate.json"
    out.write_text("mine")
    argv = ["benchmarks/score_rate.py", "--env", SNAIL_SPRINT, "--agent", "random"]
    with pytest.raises(SystemExit):
        run_benchmark(score_rate, [*argv, "--out", str(out)], monkeypatch)
    assert f"{out} exists: give --overwrite to replace it" in capsys.readouterr().err
    assert out.read_text() == "mine"


def test_the_stored_strength_runs_are_of_the_shipped_checkpoints() -> None:
    """A stored run of a trained agent names the file it played with its SHA-256: the shipped
    checkpoint's of today (by its name), or a file of the repository (by its path, such as the
    previous shipped policies of benchmarks/previous_policies/), so a table cannot outlive the
    policy it measured."""
    checkpoints = ROOT / "agents" / "checkpoints"
    for path in sorted((results_tables.DATA / "strength").glob("*/*.json")):
        for entry in json.loads(path.read_text())["agent_files"].values():
            name = entry["file"]
            stored = ROOT / name if "/" in name else checkpoints / name
            assert hashlib.sha256(stored.read_bytes()).hexdigest() == entry["sha256"], path


def test_search_speed_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The searches stubbed (the real ones compile the engines): the JSON holds each search's
    rates, and the docs show the table the run printed, with the worst speed-up."""
    search_speed = benchmark("search_speed", monkeypatch)
    rates = iter([(400.0, 8000.0), (40000.0, 700000.0)])
    monkeypatch.setattr(search_speed, "decisions", lambda *args: [("env", "player_0")])
    monkeypatch.setattr(
        search_speed,
        "make_agent",
        lambda *args, **kwargs: SimpleNamespace(act_in=lambda *args: None),
    )
    monkeypatch.setattr(search_speed, "python_search", lambda *args: None)
    monkeypatch.setattr(search_speed, "measure", lambda *args: next(rates))
    monkeypatch.setattr(search_speed, "openspiel_rate", lambda *args: None)
    out = tmp_path / "search.json"
    argv = ["benchmarks/search_speed.py", "--quick", "--only", SNAIL_SPRINT, "--out", str(out)]
    run_benchmark(search_speed, argv, monkeypatch)
    record = json.loads(out.read_text())
    assert record["games"] == {SNAIL_SPRINT: {"python": [400, 8000], "compiled": [40000, 700000]}}
    assert record["provenance"]["command"] == shlex.join(["python", *argv])
    *table, _, line = benchmark_table(out, "search-speed").splitlines()
    assert "\n".join(table) in capsys.readouterr().out
    assert f"| {SNAIL_SPRINT} | 400 | 40,000 | 100× | 8,000 | 700,000 |" in table
    assert "worst speed-up x100" in table
    assert line == speed_tables.provenance_line(record["provenance"])


def test_train_ceiling_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The measurements stubbed (the real ones train): the JSON holds each round's unit costs
    and snail-train's rates, the ceiling of the median costs and the ratio to it, and the docs
    show the table the run printed."""
    train_ceiling = benchmark("train_ceiling", monkeypatch)
    costs = {"env_step": [1e-4, 3e-4], "forward": [4e-4, 4e-4], "update": [0.01, 0.03]}
    measured = {
        "unit_seconds": {**costs, "gae": [2e-3, 2e-3]},
        "plain_loop": [800.0, 1000.0],
        "snail_train": [500.0, 700.0],
    }
    monkeypatch.setattr(train_ceiling, "measured_runs", lambda *args: {SNAIL_SPRINT: measured})
    out = tmp_path / "ceiling.json"
    argv = ["benchmarks/train_ceiling.py", "--only", SNAIL_SPRINT, "--out", str(out)]
    run_benchmark(train_ceiling, argv, monkeypatch)
    record = json.loads(out.read_text())
    settings, game = record["settings"], record["games"][SNAIL_SPRINT]
    assert game["unit_seconds"] == measured["unit_seconds"]
    assert game["snail_train"] == measured["snail_train"]
    rollout, updates = settings["n_envs"] * settings["n_steps"], settings["n_epochs"]
    updates *= rollout / settings["batch_size"]
    seconds = settings["n_steps"] * (2e-4 + 4e-4) + 2e-3 + updates * 0.02
    assert game["median"]["ceiling"] == pytest.approx(rollout / seconds)
    assert game["ratio"] == pytest.approx(600.0 * seconds / rollout)
    assert game["loop_ratio"] == pytest.approx(900.0 * seconds / rollout)
    assert game["ratio_to_loop"] == pytest.approx(600.0 / 900.0)
    assert game["plain_loop"] == measured["plain_loop"]
    *table, _, line = benchmark_table(out, "training-ceiling").splitlines()
    assert "\n".join(table) in capsys.readouterr().out
    assert line == speed_tables.provenance_line(record["provenance"])


def test_the_plain_torch_loop_does_the_work_the_ceiling_prices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rollout of the plain-torch loop is `n_steps` forwards and env steps, one GAE and
    `n_epochs` passes of minibatch updates over it, each minibatch `batch_size` samples of the
    rollout whose actions are legal under their own masks; the loop stops once it has the
    timesteps asked for."""
    import torch

    train_ceiling = benchmark("train_ceiling", monkeypatch)
    calls: dict[str, int] = {"act": 0, "gae": 0}
    batches: list[Any] = []
    for name in calls:
        counted = getattr(train_ceiling, name)

        def count(*args: Any, name: str = name, counted: Any = counted) -> Any:
            calls[name] += 1
            return counted(*args)

        monkeypatch.setattr(train_ceiling, name, count)
    monkeypatch.setattr(train_ceiling, "update", lambda nets, batch, *rest: batches.append(batch))
    settings = train_ceiling.recorded_settings()
    rollout = settings["n_envs"] * settings["n_steps"]
    assert train_ceiling.plain_loop_rate(SNAIL_SPRINT, rollout + 1) > 0
    assert calls == {"act": 2 * settings["n_steps"], "gae": 2}
    assert len(batches) == 2 * settings["n_epochs"] * rollout // settings["batch_size"]
    first_pass = batches[: rollout // settings["batch_size"]]
    assert all(len(batch["actions"]) == settings["batch_size"] for batch in batches)
    legal = torch.cat([batch["masks"] for batch in first_pass])
    actions = torch.cat([batch["actions"] for batch in first_pass])
    assert legal[torch.arange(rollout), actions].all()


def test_torchrl_units_compute_what_the_plain_torch_units_compute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where TorchRL is installed (`.[torchrl]`): on the same networks, minibatch and rollout,
    its PPO loss has the plain update's surrogate and value loss, its GAE the plain GAE, and its
    forward samples legal actions with their log-probabilities."""
    pytest.importorskip("torchrl")
    import numpy as np
    import torch

    train_ceiling = benchmark("train_ceiling", monkeypatch)
    torch.manual_seed(0)
    work = train_ceiling.unit_work(SNAIL_SPRINT, 0.01)
    nets, config, batch, vf_coef = work.nets, work.config, work.batch, work.vf_coef
    observations, masks = work.observations, work.masks
    parts = train_ceiling.torchrl_parts(nets, config, vf_coef)
    samples = train_ceiling.torchrl_minibatch(batch)
    losses = parts.loss(samples)
    log_probs = train_ceiling.masked_log_probs(nets, batch["observations"], batch["masks"])
    chosen = log_probs.gather(1, batch["actions"][:, None]).squeeze(1)
    advantages = batch["advantages"]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    ratio = torch.exp(chosen - batch["old_log_probs"])
    clipped = ratio.clamp(1 - config.clip_range, 1 + config.clip_range)
    surrogate = -torch.min(advantages * ratio, advantages * clipped).mean()
    values = nets.critic(batch["observations"]).squeeze(1)
    value_loss = vf_coef * torch.nn.functional.mse_loss(values, batch["returns"])
    assert losses["loss_objective"].item() == pytest.approx(surrogate.item(), abs=1e-6)
    assert losses["loss_critic"].item() == pytest.approx(value_loss.item(), abs=1e-6)
    before = [parameter.detach().clone() for parameter in nets.actor.parameters()]
    train_ceiling.torchrl_update(parts, samples)
    after = list(nets.actor.parameters())
    assert any(not torch.equal(old, new) for old, new in zip(before, after, strict=True))

    rng = np.random.default_rng(1)
    rewards, rollout_values = rng.random((2, 16, 8), np.float32)
    starts = (rng.random((16, 8)) < 0.2).astype(np.float32)
    last = (rng.random(8, np.float32), (rng.random(8) < 0.5).astype(np.float32))
    rollout = (rewards, rollout_values, starts, last, 0.99, 0.95)
    plain, plain_returns = train_ceiling.gae(*rollout)
    library, library_returns = train_ceiling.torchrl_gae(*rollout)
    assert np.allclose(library[..., 0].numpy().T, plain, atol=1e-5)
    assert np.allclose(library_returns[..., 0].numpy().T, plain_returns, atol=1e-5)

    actions, chosen_log_probs, _ = train_ceiling.torchrl_act(parts, observations, masks)
    assert masks[np.arange(len(actions)), actions].all()
    assert np.all(chosen_log_probs <= 0)


def test_the_torchrl_timing_without_torchrl_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    train_ceiling = benchmark("train_ceiling", monkeypatch)
    without_packages(monkeypatch, "torchrl")
    with pytest.raises(SystemExit):
        run_benchmark(train_ceiling, ["benchmarks/train_ceiling.py", "--torchrl"], monkeypatch)
    assert 'torchrl is missing: pip install -e ".[torchrl]" to time it' in capsys.readouterr().err


def test_the_ceiling_profile_times_functions_that_exist_and_prices_the_runs_own_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each profiled part names a function of the installed SB3 and torch (a renamed one stops
    the profile), and the ceiling's column counts the run's own steps, GAEs and updates."""
    train_ceiling = benchmark("train_ceiling", monkeypatch)
    timer = train_ceiling.PartTimer()
    with timer.timing():
        pass
    timer.calls.update({"policy forward": 100, "GAE": 2, "evaluate_actions": 8})
    timer.seconds.update({"learn": 4.0, "collect_rollouts": 1.0, "train": 2.5})
    units = {"env_step": 1e-4, "forward": 4e-4, "update": 0.25, "gae": 5e-3}
    rows = {row.split(" | ")[0].strip("| "): row for row in
            train_ceiling.profile_rows(timer, 5.0, units)}  # fmt: skip
    assert rows["collect_rollouts"] == "| collect_rollouts | 1.000 | 20.0% | 0.060 |"
    assert rows["train"] == "| train | 2.500 | 50.0% | 2.000 |"
    assert rows["the ppo stage"] == "| the ppo stage | 5.000 | 100.0% | 2.060 |"
    assert rows["the rest of the stage (checkpoints)"].endswith("| 1.000 | 20.0% | — |")


def test_a_headline_cell_takes_its_numbers_from_the_record_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell naming a record shows its score or its control with the interval; the best-of cell
    is the higher-rated of the cells it names, under its label, a note cell skipped."""
    monkeypatch.setattr(results_tables, "DATA", tmp_path)
    (tmp_path / "strength").mkdir()
    record = score_record(SNAIL_SPRINT, "ppo", 47.0, 52.0)
    (tmp_path / "strength" / "run.json").write_text(json.dumps(record))
    named = {"record": "strength/run.json"}
    headline = {
        "columns": ["control", "trained", "search", "best"],
        "rows": [
            {
                "game": "Snail Sprint!",
                "cells": [
                    {**named, "side": "control"},
                    {**named, "side": "score", "mark": "¹", "with_control": True},
                    {"note": "parity"},
                    {"best_of": {"trained": 1, "search": 2}},
                ],
            }
        ],
    }
    (tmp_path / "headline.json").write_text(json.dumps(headline))
    row = results_tables.headline_table(tmp_path / "headline.json").splitlines()[2]
    assert row == (
        "| Snail Sprint! | 52.0% (42.3–61.5) | 47.0% (37.5–56.7); control 52.0%¹ | parity "
        "| trained, 47.0% (37.5–56.7) |"
    )


def test_snap_recurrent_keeps_saved_weights_and_refuses_empty_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before anything is trained: an arm's weights file already in `--save` is kept, and a run
    of no steps is refused, each in one line."""
    module = benchmark("snap_recurrent", monkeypatch)
    (tmp_path / "lstm-seed3.pt").write_text("mine")
    argv = [
        "benchmarks/snap_recurrent.py",
        "--only",
        "lstm",
        "--seed",
        "3",
        "--save",
        str(tmp_path),
    ]
    with pytest.raises(SystemExit):
        run_benchmark(module, argv, monkeypatch)
    assert f"{tmp_path / 'lstm-seed3.pt'} exists: give --overwrite" in capsys.readouterr().err
    assert (tmp_path / "lstm-seed3.pt").read_text() == "mine"
    with pytest.raises(SystemExit):
        run_benchmark(module, ["benchmarks/snap_recurrent.py", "--steps", "0"], monkeypatch)
    assert "--steps must be at least 1; got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name",
    [
        "calibration",
        "duplicate_deals",
        "openspiel_cost",
        "search_deviations",
        "search_speed",
        "serve_load",
        "snap_recurrent",
        "throughput",
        "train_ceiling",
        "train_speed",
    ],
)
def test_a_benchmark_keeps_an_existing_out_file(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before anything is measured: one line, and the file as it was."""
    module = benchmark(name, monkeypatch)
    out = tmp_path / "results.json"
    out.write_text("mine")
    with pytest.raises(SystemExit):
        run_benchmark(module, [f"benchmarks/{name}.py", "--out", str(out)], monkeypatch)
    assert f"{out} exists: give --overwrite to replace it" in capsys.readouterr().err
    assert out.read_text() == "mine"


def parity_point_at(timesteps: int, seconds: float, rate: float) -> dict[str, Any]:
    return {"timesteps": timesteps, "seconds": seconds, "score": [rate, rate - 0.05, rate + 0.05]}


def test_train_parity_out_writes_what_the_docs_render_as_it_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The measurements stubbed (the real ones train): the JSON holds every point of every run
    and the control; parity is the first point whose interval reaches the control, and the docs
    show the table the run printed."""
    train_parity = benchmark("train_parity", monkeypatch)
    slow = [parity_point_at(1000, 10.0, 0.30), parity_point_at(2000, 20.0, 0.46)]
    fast = [parity_point_at(1000, 4.0, 0.46), parity_point_at(2000, 8.0, 0.40)]
    measured = {
        SNAIL_SPRINT: {
            "control": [0.5, 0.45, 0.55],
            "runs": {"": {"0": slow}, "n_epochs=1": {"0": fast}},
        }
    }
    monkeypatch.setattr(train_parity, "measure", lambda *args: measured)
    out = tmp_path / "parity.json"
    argv = [
        "benchmarks/train_parity.py",
        "--timesteps",
        "2000",
        "--every",
        "1000",
        "--out",
        str(out),
    ]
    run_benchmark(train_parity, argv, monkeypatch)
    record = json.loads(out.read_text())
    assert record["games"] == measured
    assert (record["timesteps"], record["every"], record["games_a_point"]) == (2000, 1000, 500)
    assert speed_tables.parity_point(slow, 0.5) == slow[1]
    assert speed_tables.parity_point(fast, 0.5) == fast[0]
    assert speed_tables.parity_point(slow[:1], 0.5) is None
    *table, _, line = benchmark_table(out, "training-parity").splitlines()
    printed = capsys.readouterr().out
    assert "\n".join(table) in printed
    assert f"| {SNAIL_SPRINT} | defaults | 0 | 2,000 | 20 | 46.0% | 2,000 | 20 |" in printed
    assert f"| {SNAIL_SPRINT} | n_epochs=1 | 0 | 1,000 | 4 | 46.0% | 1,000 | 4 |" in printed
    assert line == speed_tables.provenance_line(record["provenance"])


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--games", "0"], "--games must be at least 1, not 0"),
        (["--every", "0"], "--every must be at least 1, not 0"),
        (["--only", "chess"], "invalid choice: 'chess'"),
    ],
)
def test_train_parity_refuses_bad_arguments_in_one_line(
    argv: list[str], error: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    train_parity = benchmark("train_parity", monkeypatch)
    with pytest.raises(SystemExit):
        run_benchmark(train_parity, ["benchmarks/train_parity.py", *argv], monkeypatch)
    assert error in capsys.readouterr().err


def test_train_parity_trains_the_plain_config_under_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run trains the game's rule options under TrainConfig's defaults, not the game config's
    fine-tune (Snail Sprint!'s step size 1e-5, its anchor), with the setting's overrides; its
    checkpoints come in order, each with the ppo stage's seconds so far."""
    from snail_envs.training.config import TrainConfig

    train_parity = benchmark("train_parity", monkeypatch)
    run_dir = train_parity.train_run(SNAIL_SPRINT, "n_epochs=1 n_envs=8", 0, 1024, 512, tmp_path)
    config = json.loads((run_dir / "config.json").read_text())
    assert (config["n_epochs"], config["n_envs"], config["stages"]) == (1, 8, ["ppo"])
    defaults = TrainConfig(env=SNAIL_SPRINT)
    assert config["learning_rate"] == defaults.learning_rate
    assert (config["anchor_coef"], config["opponents"]) == (0.0, defaults.opponents)
    assert config["env_options"] == {"num_players": 2}
    points = train_parity.checkpoint_points(run_dir)
    assert [steps for _, steps, _ in points] == [512, 1024]
    assert 0 < points[0][2] <= points[1][2]


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two cores to pin starts to",
)
def test_cold_starts_together_run_at_once_one_a_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cold_start.py --together`: both checkouts' starts of a round run at the same time, each
    on its own core and timed by its own CPU seconds, and a round's pair gives the ratio."""
    cold_start = benchmark("cold_start", monkeypatch)
    log = tmp_path / "starts.log"
    code = (
        "import os, time\n"
        f"open({str(log)!r}, 'a').write(f'{{sorted(os.sched_getaffinity(0))}} started\\n')\n"
        "deadline = time.time() + 60\n"
        f"while open({str(log)!r}).read().count('started') % 2:\n"
        "    if time.time() > deadline: raise SystemExit('the other start never began')\n"
        "end = time.process_time() + 0.2\n"
        "while time.process_time() < end: pass\n"
    )
    cores = sorted(os.sched_getaffinity(0))[:2]
    timed = cold_start.together(code, {"against": ROOT, "this": tmp_path}, cores)
    # each start waited until the other had started: they ran at the same time, on two cores
    starts = log.read_text().splitlines()
    assert sorted(starts[:2]) == sorted(starts[2:]) == [f"[{core}] started" for core in cores]
    for cold, warm in timed.values():
        assert cold.cpu >= 0.2 and warm.cpu >= 0.2
    pairs = {"this": [(cold_start.Start(2.0, 2.0), None)] * 2, "against": []}
    pairs["against"] = [(cold_start.Start(4.0, 4.0), None), (cold_start.Start(1.0, 1.0), None)]
    assert cold_start.paired_ratio(pairs["this"], pairs["against"]) == (0.5 + 2.0) / 2


def test_cold_starts_together_are_each_timed_as_they_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start that ends first is timed when it ends, not when the start waited on before it
    does."""
    cold_start = benchmark("cold_start", monkeypatch)
    code = f"import os, time\ntime.sleep(2 if os.environ['PYTHONPATH'] == {str(ROOT)!r} else 0)\n"
    timed = cold_start.together(code, {"against": ROOT, "this": tmp_path}, [None, None])
    for quick, slow in zip(timed["this"], timed["against"], strict=True):
        assert quick.wall < 1.0 < 2.0 <= slow.wall


def test_cold_starts_together_need_another_checkout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cold_start = benchmark("cold_start", monkeypatch)
    with pytest.raises(SystemExit):
        run_benchmark(cold_start, ["benchmarks/cold_start.py", "--together"], monkeypatch)
    assert "--together times two checkouts at once: give the other with --against" in (
        capsys.readouterr().err
    )
