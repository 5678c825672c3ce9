"""A page's side of the WebSocket, scripted: what the browser's page does, for the socket tests."""

from __future__ import annotations

import itertools
from typing import Any

from snail_envs.registry import GAMES
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT, SNAILED_IT, SNAP

LOCAL = "http://127.0.0.1:8000"
"""The address the test client's requests go to (the server answers its own host names only)."""
SOCKET = "ws://127.0.0.1:8000/ws"
"""The test client's page socket, at that address."""
QUICK_GAMES: dict[str, dict[str, str]] = {
    SNAILED_IT: {"hand_size": "3", "target": "1"},
    SNAIL_SPRINT: {},
    PEDZACE_SLIMAKI: {"board_length": "8", "mushrooms": "[4]"},
    SNAP: {
        "match_key": "picture",
        "pictures": "3",
        "copies": "2",
        "refresh": "shuffle",
        "max_flips": "100",
        "at_limit": "most_cards",
    },
}
"""Options of each game under which a game is over in seconds (as the page sends them). Snap's
six cards often leave one seat holding both copies of a picture that the other lacks, where no
match can ever come: its flips are bounded, and the seat holding the most cards wins there."""
REALTIME_GAME = next(game.env_name for game in GAMES if game.realtime)
"""The game a person plays on the wall clock (its facts say so)."""
TURN_GAME = next(name for name in QUICK_GAMES if name != REALTIME_GAME)
"""A game played turn by turn."""


def pile_tops(text: str) -> list[str]:
    """The top card of each seat's pile in Snap's text view: its seat rows, under the header
    `seat  stack  pile  top`, hold a seat's name, then its stack and pile sizes and its top."""
    lines = text.splitlines()
    header = next(index for index, line in enumerate(lines) if line.startswith("seat "))
    sizes = lines[header].index("stack") - 1
    rows = [line[sizes:].split() for line in lines[header + 1 :]]
    seats = itertools.takewhile(lambda row: len(row) > 2 and row[0].isdigit(), rows)
    return [row[2] for row in seats]


class Page:
    """One page's WebSocket (Starlette's test session, or any object with `send_json` and
    `receive_json`), greeted: `session` is its id."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.welcome = socket.receive_json()
        assert self.welcome["type"] == "welcome"
        self.session = self.welcome["session"]

    def send(self, kind: str, **fields: Any) -> None:
        self.socket.send_json({"type": kind, "session": self.session, **fields})

    def receive(self, *kinds: str) -> dict[str, Any]:
        """The next message of one of `kinds` (others are skipped: frames of a game going on)."""
        while True:
            message = self.socket.receive_json()
            if message["type"] in kinds:
                return message

    def start(
        self,
        game: str,
        seats: list[str],
        options: dict[str, str] | None = None,
        delays: list[int] | None = None,
        seed: int | None = 1,
        pace_ms: int = 0,
    ) -> dict[str, Any]:
        """Start a game; the `table` message that answers (an error fails)."""
        self.send(
            "start",
            game=game,
            seats=[
                {"agent": agent, "reaction_delay": None if delays is None else delays[seat]}
                for seat, agent in enumerate(seats)
            ],
            options=QUICK_GAMES[game] if options is None else options,
            seed=seed,
            pace_ms=pace_ms,
        )
        answer = self.receive("table", "error")
        assert answer["type"] == "table", answer
        return answer

    def play_to_the_end(self) -> list[dict[str, Any]]:
        """Take the last move offered at each decision until the game is over; the frames."""
        frames = []
        while True:
            frame = self.receive("frame")
            frames.append(frame)
            if frame["over"]:
                return frames
            if frame["moves"] and "flips" not in frame:
                self.send("act", action=frame["moves"][-1]["action"], turn=frame["turn"])

    def error(self) -> str:
        return self.receive("error")["message"]
