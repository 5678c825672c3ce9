"""A hand-written player for each game; each docstring states its strategy."""

from __future__ import annotations

from agents.heuristics.snail_sprint import SnailSprintHeuristic

HEURISTICS: dict[str, type] = {
    "snail_sprint_v0": SnailSprintHeuristic,
}
"""The heuristic player of each environment, by environment name."""
