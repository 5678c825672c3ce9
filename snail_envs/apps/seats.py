"""What the apps call each seat: "You" for the person's, the agent's name for the others.

The environments name their seats by agent id (`player_0`, `player_1`: PettingZoo's names), and
their own `render` output says so. What the apps show a person names the seats by who plays them
instead: the tables' pictures and text views (drawn with these `names`: `render_text`,
`render_picture`, `render_seat`), the page's seats, status, log and result, a replay's title, a
video's caption, the narration. "You" is the one person seated, the agent's kind a bot
(`heuristic`, `ppo`, `ismcts` for `ismcts:500:heuristic`), numbered where two seats share one
("heuristic 1", "heuristic 2").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

PERSON = "human"
"""The agent spec of a person (as `snail_envs.agents.make_agent` names people)."""
YOU = "You"


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
