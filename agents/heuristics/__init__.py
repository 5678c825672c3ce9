"""A hand-written player for each game; each docstring states its strategy."""

from __future__ import annotations

from agents.heuristics.snail_sprint import SnailSprintHeuristic
from agents.heuristics.snailed_it import SnailedItHeuristic

HEURISTICS: dict[str, type] = {
    "snail_sprint_v0": SnailSprintHeuristic,
    "snailed_it_v0": SnailedItHeuristic,
}
"""The heuristic player of each environment, by environment name."""
