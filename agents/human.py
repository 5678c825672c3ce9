"""You, at the terminal: the table as your seat sees it, your legal actions by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from snail_envs.agents.base import Agent
from snail_envs.docstrings import rulebook


def idle_action(host: Any, legal: list[int]) -> int | None:
    """The action among `legal` that lets the moment go by (the game's `idle_actions` fact:
    Snap's wait, a toss window's pass), if there is one; `host` is the environment."""
    idle = host.spec.info.idle_actions
    return next((action for action in legal if action in idle), None)


class LeftTheGame(Exception):
    """A person typed `quit`: the game is abandoned."""


def help_text(idle: str | None) -> str:
    """The commands a person may type at the prompt."""
    lines = [
        "type the number of a choice to take it;",
        "  help: this text; rules: the rules of the game; quit: leave the game (abandoned)",
    ]
    if idle is not None:
        lines += [
            f"  Enter alone: {idle} (let the moment go by once)",
            f"  wait N: {idle} now and at your next N-1 decisions where you may {idle}, "
            "stopping early when the table offers a play (a claim in Snap, a card that fits)",
        ]
    lines.append("a decision with a single choice is taken for you, with a line saying so")
    return "\n".join(lines)


class HumanAgent:
    """Shows the table as this seat sees it (the environment's `render_seat` text: the public
    table and this seat's own hand or card, never another seat's), numbers the legal actions
    1..n with their names, and reads a choice: a number, `help`, `quit`, and, where the moment
    may go by (wait, pass), Enter for that once or `wait N` for N times. A single legal action is
    taken without asking, with a line saying so. Bad input is explained and asked again; `rules`
    prints the game's rules (`snail_envs.docstrings.rulebook`, the text of the docs' "How to
    play").

    `lookout`: a player that sees what this seat sees (the game's heuristic, as `make_agent`
    gives it) and ends a `wait N` early, at the first decision where it would not let the moment
    go by: a claim showing in Snap, a fitting card in a toss window. It reads the seat's own
    observation only, so the stop tells nothing the seat's view does not show.

    `names`: what the table shown calls each seat (`render_seat`'s `names`: "You", "heuristic",
    as the app that seats the person names them); by agent id when None."""

    def __init__(
        self,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        lookout: Agent | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        self._read = read
        self._write = write
        self._lookout = lookout
        self.names = names
        self._idle_left = 0
        """How many more decisions `wait N` takes the idle action for."""

    def act_in(self, env: Any, agent: str) -> int:
        host = env.unwrapped
        legal = host.legal_actions(agent)
        names = [host.action_to_string(agent, action) for action in legal]
        idle = idle_action(host, legal)
        who = self.seat_name(host, agent)
        if self._idle_left and idle is not None:
            if not self._play_offered(env, agent, idle):
                self._idle_left -= 1
                return idle
            self._write(f"{who}: wait stopped, the table offers a play")
        self._idle_left = 0
        if len(legal) == 1:
            self._write(f"{who}: your only choice, taken for you: {names[0]}")
            return legal[0]
        self._write(host.render_seat(agent, names=self.names))
        return self._choose(host.spec.info.env_name, who, legal, names, idle)

    def seat_name(self, host: Any, agent: str) -> str:
        """What the prompts call the person: the seat's name where the table names its seats
        ("You"), else its agent id."""
        return agent if self.names is None else self.names[host.possible_agents.index(agent)]

    def _play_offered(self, env: Any, agent: str, idle: int) -> bool:
        if self._lookout is None:
            return False
        observation = env.observe(agent)
        return self._lookout.act(observation["observation"], observation["action_mask"]) != idle

    def _choose(
        self, env_name: str, who: str, legal: list[int], names: list[str], idle: int | None
    ) -> int:
        idle_name = None if idle is None else names[legal.index(idle)]
        for number, name in enumerate(names, 1):
            self._write(f"  {number}. {name}")
        enter = "" if idle_name is None else f", Enter: {idle_name}"
        prompt = f"{who}, your choice (1-{len(legal)}{enter}, help, quit): "
        while True:
            try:
                text = self._read(prompt).strip().lower()
            except EOFError:
                raise SystemExit("no more input: the game is abandoned") from None
            words = text.split()
            if text.isdigit() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            if idle is not None and not words:
                return idle
            if idle is not None and len(words) == 2 and words[0] == "wait" and words[1].isdigit():
                self._idle_left = max(int(words[1]) - 1, 0)
                return idle
            if text in ("help", "?"):
                self._write(help_text(idle_name))
            elif text == "rules":
                self._write(rulebook(env_name).text())
            elif text in ("quit", "exit"):
                raise LeftTheGame(f"{who} left the game")
            else:
                self._write(f"{text!r} is not a choice; type 1 to {len(legal)}, or help")
