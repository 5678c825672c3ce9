"""The headline results table, written from docs/data/headline.json.

The README and docs/results.md show the same table; tests/docs/test_results.py holds the
README's copy to this data, so that no copy can go stale on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HEADLINE_DATA = Path(__file__).parents[1] / "data" / "headline.json"
HEADLINE_MARKER = "<!-- headline-results -->"


def cell_text(cell: dict[str, Any]) -> str:
    """One cell: `50.2% (47.1–53.2)`, bold where marked, with its footnote mark."""
    if "note" in cell:
        text = cell["note"]
    else:
        text = f"{cell['rate']:.1f}%"
        if "low" in cell:
            text += f" ({cell['low']:.1f}–{cell['high']:.1f})"
    if "best" in cell:
        text = f"{cell['best']}, {text}"
    if cell.get("bold"):
        text = f"**{text}**"
    return text + cell.get("mark", "")


def headline_table(path: Path = HEADLINE_DATA) -> str:
    data = json.loads(path.read_text())
    lines = [
        "| game | " + " | ".join(data["columns"]) + " |",
        "|---" * (len(data["columns"]) + 1) + "|",
    ]
    for row in data["rows"]:
        lines.append(f"| {row['game']} | " + " | ".join(map(cell_text, row["cells"])) + " |")
    return "\n".join(lines)
