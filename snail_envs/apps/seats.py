"""What the apps call each seat: "You" for the person's, the agent's name for the others.

The environments name their seats by agent id (`player_0`, `player_1`: PettingZoo's names), and
their text and pictures say so. What a person reads around them (the page's seats, status, log
and result, a replay's title, a video's caption, the narration) names the seats by who plays
them instead: "You" for the one person seated, the agent's kind for a bot (`heuristic`, `ppo`,
`ismcts` for `ismcts:500:heuristic`), numbered where two seats share one ("heuristic 1",
"heuristic 2").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

PERSON = "human"
"""The agent spec of a person (as `snail_envs.agents.make_agent` names people)."""
YOU = "You"
AGENT_ID = re.compile(r"\bplayer_(\d+)\b")
"""An agent id as the environments write it."""


def seat_names(specs: Sequence[str]) -> list[str]:
    """The name of each seat, given the agent spec of each (see the module docstring): "You"
    for the seat of `PERSON` when one person sits at the table (several people are "human 1",
    "human 2")."""
    kinds = [spec.partition(":")[0] for spec in specs]
    people = kinds.count(PERSON)
    shown = [YOU if kind == PERSON and people == 1 else kind for kind in kinds]
    shared = {name for name, count in Counter(shown).items() if count > 1}
    numbers: Counter[str] = Counter()
    names = []
    for name in shown:
        numbers[name] += 1
        names.append(f"{name} {numbers[name]}" if name in shared else name)
    return names


def with_names(text: str, names: Sequence[str]) -> str:
    """`text` with every agent id of a seat (`player_1`) replaced by that seat's name."""

    def name(found: re.Match[str]) -> str:
        seat = int(found.group(1))
        return names[seat] if seat < len(names) else found.group(0)

    return AGENT_ID.sub(name, text)
