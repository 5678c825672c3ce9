"""A hand-written player for each game; each docstring states its strategy."""

from __future__ import annotations

from agents.heuristics.pedzace_slimaki import PedzaceSlimakiHeuristic
from agents.heuristics.snail_sprint import SnailSprintHeuristic
from agents.heuristics.snailed_it import SnailedItHeuristic
from agents.heuristics.snap import SnapHeuristic

HEURISTICS: dict[str, type] = {
    "pedzace_slimaki_v0": PedzaceSlimakiHeuristic,
    "snail_sprint_v0": SnailSprintHeuristic,
    "snailed_it_v0": SnailedItHeuristic,
    "snap_v1": SnapHeuristic,
}
"""The heuristic player of each environment, by environment name."""
