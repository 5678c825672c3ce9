"""The results tables of the docs, written from the data the tools wrote (docs/data/).

A page holds a marker where a table goes; the site's hook (`site.py`) replaces it as the site is
built, so that no table can differ from its data:

- `<!-- headline-results -->`: the headline table, from headline.json, whose cells name the
  `score_rate.py` records (strength/) they are measured by, or the cells of their row they are
  the best of (`measured_cell`, `best_cell`). The README holds a copy, which
  tests/docs/test_site.py holds to the data.
- `<!-- data: eval/NAME.json -->`: a tournament's tables, from the results.json that `snail-eval`
  wrote (`snail_envs.training.evaluate.results_markdown`, the report's own tables).
- `<!-- data: calibration/NAME.json -->`: the search reply's calibration on the minis, from the
  JSON that `benchmarks/calibration.py --method search --out` wrote.
- `<!-- data: duplicate/NAME.json -->`: how much duplicate deals (and with `--aivat`, AIVAT's
  chance correction) narrow the intervals, from the JSON that `benchmarks/duplicate_deals.py
  --out` wrote.
- `<!-- data: speed/NAME.json -->`: random-play throughput against PettingZoo, pgx and the toy
  ceiling, and the batched engines' compile times, from the JSON that
  `benchmarks/throughput.py --out` wrote, with the machine and the command.
- `<!-- data: training-speed/NAME.json -->`: learner timesteps a second of `snail-train` against
  Stable-Baselines3's defaults, from the JSON that `benchmarks/train_speed.py --out` wrote, with
  the machine and the command.
- `<!-- data: search-speed/NAME.json -->`: the compiled search's iterations a CPU second against
  the Python IS-MCTS's, from the JSON that `benchmarks/search_speed.py --out` wrote, with the
  machine and the command.
- `<!-- data: strength/FOLDER -->`: agents' score rates against an opponent beside the control
  on the same games, a row for each JSON that `benchmarks/score_rate.py --out` wrote in
  strength/FOLDER/ (`snail_envs.score_rates`), the games in the registry's order.
- `<!-- data: training-ceiling/NAME.json -->`: snail-train's learner timesteps a CPU second
  beside the plain-torch ceiling its unit costs make, from the JSON that
  `benchmarks/train_ceiling.py --out` wrote, with the machine and the command.
- `<!-- data: training-parity/NAME.json -->`: how long snail-train's ppo stage takes to reach the
  heuristic under each batch setting, from the JSON that `benchmarks/train_parity.py --out`
  wrote, with the machine and the command.
- `<!-- data: exploit -->`: the approximate exploitability of every target in every game, from
  the report.json files that `snail-exploit` wrote, one per cell, in exploit/. The README
  holds a short copy (`short_exploit_cell`), which tests/docs/test_site.py holds to the data.
- `<!-- data: robustness/FOLDER -->`: the worst cases of agents at the tables they play (rule
  options given), one row per report.json that `snail-exploit` wrote in robustness/FOLDER/,
  named `ENV-N-ROLE.json`, in the order of their names (`robustness_table`).

A marker that names no data, or data that is not there, stops the build naming the page and
the marker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snail_envs.core.stats import wilson_interval
from snail_envs.registry import GAMES
from snail_envs.score_rates import score_markdown, table_name
from snail_envs.speed_tables import (
    provenance_line,
    search_speed_markdown,
    throughput_markdown,
    train_ceiling_markdown,
    train_parity_markdown,
    training_speed_markdown,
)
from snail_envs.training.aivat import narrowing_markdown
from snail_envs.training.evaluate import results_markdown

DATA = Path(__file__).parents[1] / "data"
HEADLINE_DATA = DATA / "headline.json"
HEADLINE_MARKER = "<!-- headline-results -->"
DATA_MARKER = re.compile(r"<!-- data: ([^ ]+) -->")
EXPLOIT_TARGETS = ("random", "heuristic", "ppo", "search")
"""The rows of the exploitability table, in order (a report's target is one of them, or a
`kind:...` spec of one of these kinds)."""


def cell_text(cell: dict[str, Any]) -> str:
    """One cell: `50.2% (47.1–53.2)`, bold where marked, with its footnote mark."""
    if "note" in cell:
        text = cell["note"]
    else:
        text = f"{cell['rate']:.1f}%"
        if "low" in cell:
            text += f" ({cell['low']:.1f}–{cell['high']:.1f})"
    if "control" in cell:
        text += f"; control {cell['control']:.1f}%"
    if "best" in cell:
        text = f"{cell['best']}, {text}"
    if cell.get("bold"):
        text = f"**{text}**"
    return text + cell.get("mark", "")


def measured_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """A headline cell with its numbers: one that names a `score_rate.py` record (`record`, a
    path under docs/data/, and `side`: `score`, the record's agent, or `control`) takes its
    rate and 95% interval from the record, and with `with_control` the control's rate on the
    same games; any other is as stored."""
    if "record" not in cell:
        return cell
    record = json.loads((DATA / cell["record"]).read_text())
    games, control = record["games"], record["control"]["score"]
    score = record["score"] if cell["side"] == "score" else control
    low, high = wilson_interval(score, games)
    measured = {"rate": percent(score / games), "low": percent(low), "high": percent(high)}
    if cell.get("with_control"):
        measured["control"] = percent(control / games)
    return {**cell, **measured}


def percent(fraction: float) -> float:
    """A fraction as a percentage of one decimal, rounded as the score tables round it."""
    return float(f"{fraction:.1%}".rstrip("%"))


def best_cell(cell: dict[str, Any], cells: list[dict[str, Any]]) -> dict[str, Any]:
    """A headline cell that names cells of its row (`best_of`: a label for each cell's index)
    is the one of them of the highest rate, under its label; any other is as given."""
    if "best_of" not in cell:
        return cell
    measured = [(cells[index], label) for label, index in cell["best_of"].items()]
    rated = [(found, label) for found, label in measured if "rate" in found]
    best, label = max(rated, key=lambda pair: pair[0]["rate"])
    return {"best": label, **{key: best[key] for key in ("rate", "low", "high") if key in best}}


def headline_table(path: Path = HEADLINE_DATA) -> str:
    data = json.loads(path.read_text())
    lines = [
        "| game | " + " | ".join(data["columns"]) + " |",
        "|---" * (len(data["columns"]) + 1) + "|",
    ]
    for row in data["rows"]:
        cells = [measured_cell(cell) for cell in row["cells"]]
        cells = [best_cell(cell, cells) for cell in cells]
        lines.append(f"| {row['game']} | " + " | ".join(map(cell_text, cells)) + " |")
    return "\n".join(lines)


def tournament_tables(path: Path) -> str:
    """A stored `snail-eval` results.json as its report's tables (no heading, no provenance:
    the page gives the command above the marker)."""
    return results_markdown(json.loads(path.read_text()), report=False).rstrip()


def exploit_cell(report: dict[str, Any]) -> str:
    """One cell: the lower bound with its interval (bold where the reply beats chance), the
    reply's score, the arm, candidate or method that found it, the search target's budget where
    it is not the default, and the CPU seconds of the command."""
    low, high = report["lower_bound_ci95"]
    if high < 0:
        text = f"0 (reply below chance, {report['score_rate']:.1%})"
    else:
        text = f"{report['lower_bound']:+.1%} ({low:+.1%} to {high:+.1%})"
        if low > 0:
            text = f"**{text}**"
        text += f"; score {report['score_rate']:.1%}"
    if report["reply"] in report.get("candidates", []):
        found_by = f"{report['reply']} (untrained candidate)"
    elif report["method"] == "learned":
        found_by = f"{report['reply']} arm"
    else:
        found_by = report["method"]
    kind, _, settings = report["target"].partition(":")
    if kind == "search" and settings:
        found_by += f", against `{report['target']}`"
    cpu = report.get("cpu_seconds")
    return f"{text}, {found_by}" + ("" if cpu is None else f", {cpu:.0f} CPU s")


def short_exploit_cell(report: dict[str, Any]) -> str:
    """One cell of the README's short table: the lower bound (0 where the reply fell below
    chance, bold where its interval is above it), the command's CPU minutes, and the search
    target's budget where it is not the default."""
    low, high = report["lower_bound_ci95"]
    bound = "0" if high < 0 else f"{report['lower_bound']:+.1%}"
    bound = f"**{bound}**" if low > 0 else bound
    kind, _, settings = report["target"].partition(":")
    against = f", `{report['target']}`" if kind == "search" and settings else ""
    return f"{bound} ({report['cpu_seconds'] / 60:.0f} CPU min{against})"


def exploit_table(
    folder: Path = DATA / "exploit", cell: Callable[[dict[str, Any]], str] = exploit_cell
) -> str:
    """The exploitability table: a row per target kind, a column per game (its 2-player
    version), a cell per target and game: of the stored `snail-exploit` reports, the one of the
    highest lower bound (— where none is stored), written by `cell` (the README's short table:
    `short_exploit_cell`)."""
    reports = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for report in reports:
        kind = report["target"].partition(":")[0]
        if kind not in EXPLOIT_TARGETS:
            raise ValueError(f"{report['target']!r}: a target kind among {EXPLOIT_TARGETS}")
        found = best.get((kind, report["env"]))
        if found is None or report["lower_bound"] > found["lower_bound"]:
            best[kind, report["env"]] = report
    cells = {where: cell(report) for where, report in best.items()}
    names = {game.env_name: game.title for game in GAMES}
    lines = [
        "| target | " + " | ".join(f"{title} (`{env}`)" for env, title in names.items()) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for kind in EXPLOIT_TARGETS:
        row = [cells.get((kind, env), "—") for env in names]
        lines.append(f"| {kind} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def target_name(report: dict[str, Any]) -> str:
    """A report's target as the table names it: a trained policy by its file's name."""
    files = report.get("provenance", {}).get("agent_files", {})
    kind = report["target"].partition(":")[0]
    if kind in files:
        return f"`{kind}` ({Path(files[kind]['file']).name})"
    return f"`{report['target']}`"


def robustness_table(folder: Path) -> str:
    """The worst case found for each target of `folder`'s `snail-exploit` reports, one row a
    report in the order of the file names, `ENV-N-ROLE.json` (ROLE: what the target is, such as
    `previous_shipped`): the game, the rule options given, the role and the target (a trained
    policy by its file's name), and the cell `exploit_cell` writes."""
    titles = {game.env_name: game.title for game in GAMES}
    lines = ["| game | options | target | worst case found |", "|---|---|---|---|"]
    for path in sorted(folder.glob("*.json")):
        report = json.loads(path.read_text())
        options = ", ".join(f"{name}={value}" for name, value in report["options"].items())
        role = path.stem.split("-")[-1].replace("_", " ")
        lines.append(
            f"| {titles[report['env']]} | {options or 'defaults'} | {role}: "
            f"{target_name(report)} | {exploit_cell(report)} |"
        )
    return "\n".join(lines)


def calibration_target(target: str) -> str:
    """A calibration target in words: a trained policy's or CFR+ policy's file left out."""
    kind = target.partition(":")[0]
    return {"ppo": "trained policy", "cfr": "CFR+"}.get(kind, kind)


def signed(value: float, places: int = 3) -> str:
    """`value` to `places` places with its sign, a minus as the typeset sign (−0.049)."""
    return f"{value:+.{places}f}".replace("-", "−")


def shown_share(gain: float, share: float) -> str:
    """A reply's share of the exact gain: bold at 90% and above, — where the reply lost."""
    if gain < 0:
        return "—"
    return f"**{share:.0%}**" if share >= 0.9 else f"{share:.0%}"


def calibration_table(path: Path) -> str:
    """A stored `benchmarks/calibration.py --method search --out FILE` run as the table of the
    search reply's gains beside the exact best response's (`share`: of the exact gain, bold at
    90% and above; — where the reply lost). A run with `--exact` has its own table
    (`exact_calibration_table`)."""
    data = json.loads(path.read_text())
    if all("exact_gains" in cell for cell in data.values()):
        return exact_calibration_table(data)
    titles = {game.env_name: game.title for game in GAMES}
    lines = [
        "| game | target | exact BR gain | search gain (95% CI), games | share | CPU s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for key, cell in data.items():
        env, target = key.split(" ", 1)
        gain, low, high = cell["gains"]["search"]
        games = cell["report"]["methods"]["search"]["games"]
        share = shown_share(gain, cell["share"])
        lines.append(
            f"| {titles[env]} mini | {calibration_target(target)} "
            f"| {signed(cell['best_response'] - cell['own_return'])} | {signed(gain)} "
            f"({signed(low)} to {signed(high)}), {games:,} | {share} | {cell['cpu_seconds']:.0f} |"
        )
    return "\n".join(lines)


def exact_calibration_table(data: dict[str, Any]) -> str:
    """A `benchmarks/calibration.py --exact` run: each reply's exact gain (no games sampled)
    beside the exact best response's, to four places, the information states the search was
    asked at, and CPU seconds."""
    titles = {game.env_name: game.title for game in GAMES}
    lines = [
        "| game | target | exact BR gain | learned gain | search gain | share | search asked at "
        "| CPU s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key, cell in data.items():
        env, target = key.split(" ", 1)
        gains = cell["exact_gains"]
        shown = [signed(gains[m], 4) if m in gains else "—" for m in ("learned", "search")]
        asked = f"{cell['asked']:,}" if "search" in gains else "—"
        lines.append(
            f"| {titles[env]} mini | {calibration_target(target)} "
            f"| {signed(cell['best_response'] - cell['own_return'], 4)} | {' | '.join(shown)} "
            f"| {shown_share(max(gains.values()), cell['share'])} | {asked} "
            f"| {cell['cpu_seconds']:.0f} |"
        )
    return "\n".join(lines)


def duplicate_table(path: Path) -> str:
    """A stored `benchmarks/duplicate_deals.py --out FILE` run as its table: for each game, the
    half-widths of the clone's score rate against the heuristic dealt one by one, as duplicate
    deals and with the control variate, their ratio and its square, and the CPU seconds."""
    data = json.loads(path.read_text())
    if "seeds" in data:
        return variate_bias_table(data)
    if "rollouts" in data:
        return narrowing_markdown(data)
    titles = {game.env_name: game.title for game in GAMES}
    lines = [
        "| game | games | clone's score, plain | ± plain | ± duplicate | narrower | fewer games "
        "| ± control variate (score) | CPU s plain / duplicate / variate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for env, cell in data.items():
        if env not in titles:
            continue  # the run's settings: games, seed
        plain, duplicate, variate = (
            cell["plain"],
            cell["duplicate"],
            cell["plain"]["control_variate"],
        )
        seconds = " / ".join(f"{part['cpu_seconds']:.0f}" for part in (plain, duplicate, variate))
        lines.append(
            f"| {titles[env]} | {data['games']:,} | {plain['score_rate']:.1%} "
            f"| {plain['half_width']:.1%} | {duplicate['half_width']:.1%} "
            f"| {cell['narrower']:.2f}× | {cell['narrower'] ** 2:.1f}× "
            f"| {variate['half_width']:.1%} ({variate['score_rate']:.1%}) | {seconds} |"
        )
    return "\n".join(lines)


def variate_bias_table(data: dict[str, Any]) -> str:
    """A stored `benchmarks/duplicate_deals.py --seeds N --out FILE` run as its table: for each
    game, the clone's mean score rate over the seeds, plain and with the control variate, the
    mean of their differences with its 95% interval, whether it holds 0, and the CPU seconds."""
    titles = {game.env_name: game.title for game in GAMES}
    lines = [
        "| game | games a seed | seeds | clone's score, plain (mean) | controlled (mean) "
        "| controlled − plain (95%) | holds 0 | CPU s |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for env, cell in data.items():
        if env not in titles:
            continue  # the run's settings: games, seed, seeds
        mean, low, high = cell["difference"]
        plain = sum(cell["plain"]) / len(cell["plain"])
        controlled = sum(cell["controlled"]) / len(cell["controlled"])
        lines.append(
            f"| {titles[env]} | {data['games']:,} | {data['seeds']} | {plain:.1%} "
            f"| {controlled:.1%} | {signed_percent(mean)} ({signed_percent(low)} to "
            f"{signed_percent(high)}) | {'yes' if low <= 0 <= high else 'no'} "
            f"| {cell['cpu_seconds']:.0f} |"
        )
    return "\n".join(lines)


def signed_percent(value: float) -> str:
    """A signed percentage of two decimals, its minus sign typeset: −0.91%."""
    return f"{value:+.2%}".replace("-", "−")


def score_table(folder: Path) -> str:
    """The score-rate records of `folder` as one table, in the registry's order of the games,
    then by rules, agent and opponent."""
    records = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]
    if not records:
        raise ValueError(f"{folder} holds no score_rate.py records")
    order = [game.env_name for game in GAMES]
    records.sort(
        key=lambda record: (
            order.index(record["env"]),
            table_name(record),
            record["agent"],
            record["opponent"],
        )
    )
    return score_markdown(records)


BENCHMARK_TABLES: dict[str, Callable[[dict[str, Any]], str]] = {
    "speed": throughput_markdown,
    "training-speed": training_speed_markdown,
    "training-ceiling": train_ceiling_markdown,
    "training-parity": train_parity_markdown,
    "search-speed": search_speed_markdown,
}
"""The folders of docs/data/ that hold speed benchmarks' `--out` records, each with the function
that writes its tables (`snail_envs.speed_tables`)."""


def benchmark_table(path: Path, kind: str) -> str:
    """A stored speed benchmark's `--out FILE` record (of the `kind` of `BENCHMARK_TABLES`) as
    the tables it printed, then the machine it ran on and its command."""
    record = json.loads(path.read_text())
    return BENCHMARK_TABLES[kind](record) + "\n\n" + provenance_line(record["provenance"])


def data_table(name: str) -> str:
    """The table a `<!-- data: NAME -->` marker stands for."""
    if name == "exploit":
        return exploit_table()
    path = DATA / name
    if name.startswith("eval/") and path.is_file():
        return tournament_tables(path)
    if name.startswith("calibration/") and path.is_file():
        return calibration_table(path)
    if name.startswith("duplicate/") and path.is_file():
        return duplicate_table(path)
    kind = name.partition("/")[0]
    if kind in BENCHMARK_TABLES and path.is_file():
        return benchmark_table(path, kind)
    if name.startswith("strength/") and path.is_dir():
        return score_table(path)
    if name.startswith("robustness/") and path.is_dir():
        return robustness_table(path)
    raise ValueError(
        f"<!-- data: {name} --> names no data: give eval/FILE.json (a file of {DATA / 'eval'}), "
        f"calibration/FILE.json (of {DATA / 'calibration'}), duplicate/FILE.json (of "
        f"{DATA / 'duplicate'}), speed/FILE.json (of {DATA / 'speed'}), "
        f"training-speed/FILE.json (of {DATA / 'training-speed'}), training-ceiling/FILE.json "
        f"(of {DATA / 'training-ceiling'}), training-parity/FILE.json (of "
        f"{DATA / 'training-parity'}), search-speed/FILE.json (of "
        f"{DATA / 'search-speed'}), strength/FOLDER (a folder of {DATA / 'strength'}), "
        f"robustness/FOLDER (a folder of {DATA / 'robustness'}) or exploit"
    )


def fill_tables(markdown: str, page: str) -> str:
    """`markdown` with every results marker replaced by its table; a marker that names no data
    is a `ValueError` naming the page."""
    markdown = markdown.replace(HEADLINE_MARKER, headline_table())

    def table(match: re.Match[str]) -> str:
        try:
            return data_table(match.group(1))
        except (ValueError, OSError, KeyError) as error:
            raise ValueError(f"{page}: {error}") from None

    return DATA_MARKER.sub(table, markdown)
