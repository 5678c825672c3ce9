"""You, at the terminal: the table as your seat sees it, your legal actions by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class HumanAgent:
    """Shows the table as this seat sees it (the environment's `render_seat` text: the public
    table and this seat's own hand or card, never another seat's), lists the legal actions with
    their names, and reads a choice; bad input is explained and asked again."""

    def __init__(
        self,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self._read = read
        self._write = write

    def act_in(self, env: Any, agent: str) -> int:
        host = env.unwrapped
        legal = host.legal_actions(agent)
        self._write(host.render_seat(agent))
        for action in legal:
            self._write(f"  {action}: {host.action_to_string(agent, action)}")
        while True:
            try:
                text = self._read(f"{agent}, your action {legal}: ").strip()
            except EOFError:
                raise SystemExit("no more input: the game is abandoned") from None
            if text.lstrip("-").isdigit() and int(text) in legal:
                return int(text)
            self._write(f"{text!r} is not a legal action; type one of the numbers {legal}")
