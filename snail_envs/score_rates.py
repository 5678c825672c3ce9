"""The score-rate benchmark's records and the table rendered from them.

`benchmarks/score_rate.py --out FILE` writes one record: one agent's score rate in one seat,
rotating, against an opponent in every other seat, and, with `--control`, the control agent's
score in the same seat over the same games (the luck of the deals). The docs site renders a
folder of such records as one table (`score_markdown`, docs/hooks/results_tables.py), a row a
record, so that a page's table is the stored runs'.

    {"env": "pedzace_slimaki_v0", "options": {"num_players": 2}, "preset": null,
     "agent": "search", "opponent": "heuristic", "seed": 100000, "agent_seed": 1, "chunk": 60,
     "games": 1020, "score": 585.5, "cpu_seconds": 1400.2,
     "control": {"agent": "heuristic", "score": 510.0, "cpu_seconds": 3.1} or null,
     "agent_files": {"ppo": {"file": "pedzace_slimaki_v0.pt", "sha256": "..."}},
     "provenance": {...}}

`score` counts a win 1 and a shared win ½ (`snail_envs.training.evaluate.score_against`), so
the rate is `score / games`; `agent_files` names the file behind each trained agent (and none
other) with its SHA-256; `provenance` is `snail_envs.speed_tables.provenance`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snail_envs.core.stats import wilson_interval
from snail_envs.registry import GAMES


def rate_text(score: float, games: int) -> str:
    """`57.4% (54.3–60.4)`: a score rate with its 95% Wilson interval."""
    low, high = wilson_interval(score, games)
    return f"{score / games:.1%} ({low:.1%}–{high:.1%})"


def table_name(record: dict[str, Any]) -> str:
    """The game of a record as a table names it: its title, then its preset and the options given
    over it (`overrides`), or the options that differ from the game's defaults."""
    title = next(game.title for game in GAMES if game.env_name == record["env"])
    if record["preset"]:
        overrides = record.get("overrides", {})
        return "".join(
            [f"{title}, `{record['preset']}`", *(f", {n}={v}" for n, v in overrides.items())]
        )
    options = ", ".join(f"{name}={value}" for name, value in record["options"].items())
    return f"{title} ({options})" if options else title


def score_markdown(records: Sequence[dict[str, Any]]) -> str:
    """The records as one table, a row each in the order given: the game, the agent, its
    opponent, the games, the agent's score rate (bold where its interval lies above the
    control's rate), the control's over the same games, and the agent's CPU seconds. Each
    trained agent's file and SHA-256 follow the table."""
    lines = [
        "| game | agent | against | games | score | control, same games | CPU s |",
        "|---|---|---|---:|---|---|---:|",
    ]
    files: dict[str, str] = {}
    for record in records:
        games = record["games"]
        score = rate_text(record["score"], games)
        control = record["control"]
        control_text = "—"
        if control is not None:
            control_text = f"{rate_text(control['score'], games)} (`{control['agent']}`)"
            if wilson_interval(record["score"], games)[0] > control["score"] / games:
                score = f"**{score}**"
        lines.append(
            f"| {table_name(record)} | `{record['agent']}` | `{record['opponent']}` | {games} | "
            f"{score} | {control_text} | {record['cpu_seconds']:.0f} |"
        )
        for entry in record["agent_files"].values():
            files[entry["file"]] = entry["sha256"]
    if files:
        lines.append("")
        lines.extend(f"- `{name}`: SHA-256 `{sha256}`" for name, sha256 in sorted(files.items()))
    return "\n".join(lines)
