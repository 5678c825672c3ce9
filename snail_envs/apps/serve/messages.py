"""The messages a page sends, checked before anything acts on them.

Every message is one JSON object with a `type` and the `session` the server gave the page in its
welcome; anything else (not JSON, not an object, an unknown type, another session's id, a field
missing or of the wrong type or size) is a `BadMessage`, which the page is shown as an error.
The types and their fields:

- `start`: a new game. `game`; `seats`, a list of `{"agent": SPEC, "reaction_delay": INT or
  null}` (the seat whose agent is `human` is the person's); `options`, option names and texts;
  `seed`, an integer or null (the server draws one, which the page is sent when the game is
  over: `Table.opening` says why); `pace_ms`, the bots' pace.
- `act`: the person's move, `action`, for the position `turn` of the frame that offered it; in
  real-time Snap a call for the tick in progress (no `turn`).
- `pace`: `ms`, the pause before each bot move (watching: the speed of the game).
- `stop`: leave the game.
- `save`: save the finished game as a replay (`--save-dir`).
- `open_replay`: `name`, a replay of the `--replays` folder.
- `replay_step`: `index`, the position of the open replay to show.
"""

from __future__ import annotations

import json
import reprlib
import secrets
from collections.abc import Mapping
from typing import Any

from snail_envs.apps.serve.catalog import MAX_OPTION_TEXT, parse_options
from snail_envs.apps.serve.table import Seating

MESSAGE_TYPES = ("start", "act", "pace", "stop", "save", "open_replay", "replay_step")
MAX_SPEC = 300
"""The longest agent spec or replay name a page may send, in characters."""
MAX_PACE_MS = 5000
MAX_SEED = 2**31 - 1
MAX_MESSAGE = 100_000
"""The longest message a page may send, in characters (a start with a custom track fits)."""
ECHO = reprlib.Repr()
ECHO.maxstring = ECHO.maxother = ECHO.maxlong = 40
ECHO.maxlist = ECHO.maxdict = 4
ECHO.maxlevel = 2


def echo(value: Any) -> str:
    """`value` as an error quotes what the page sent: its `repr`, cut to a few dozen
    characters, so that an error never sends back what it refuses."""
    return ECHO.repr(value)


def short(text: str, longest: int = 300) -> str:
    """A message of the server's cut to `longest` characters (it may quote what it refuses)."""
    return text if len(text) <= longest else text[: longest - 3] + "..."


class BadMessage(ValueError):
    """A message from the page that the server will not act on, and why."""


def parse_message(text: str | None, session: str) -> dict[str, Any]:
    """The message `text` of the page of `session`, its form checked (see the module
    docstring); the fields of each type are read with `integer`, `string` and `read_seating`."""
    if text is None:
        raise BadMessage("messages are JSON text, not binary")
    if len(text) > MAX_MESSAGE:
        raise BadMessage(f"a message of over {MAX_MESSAGE:,} characters; messages are shorter")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadMessage(f"a message that is not JSON ({error.msg})") from None
    except RecursionError:
        raise BadMessage("a message nested too deeply; messages are flat") from None
    except ValueError:  # an integer of more digits than Python reads
        raise BadMessage("a message with a number of thousands of digits") from None
    if not isinstance(message, dict):
        raise BadMessage(f"a message is a JSON object; got {echo(text)}")
    kind = message.get("type")
    if kind not in MESSAGE_TYPES:
        raise BadMessage(f"unknown message type {echo(kind)}; types: {', '.join(MESSAGE_TYPES)}")
    if message.get("session") != session:
        raise BadMessage(
            f"a message for another session ({echo(message.get('session'))}); this page's "
            "session is another: reload the page if it was restarted"
        )
    return message


def integer(message: Mapping[str, Any], name: str, low: int, high: int) -> int:
    """The integer field `name`, from `low` to `high` (a bool is no integer)."""
    value = message.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadMessage(f"{name} must be an integer from {low} to {high}; got {echo(value)}")
    return value


def string(message: Mapping[str, Any], name: str, longest: int = MAX_SPEC) -> str:
    """The text field `name`, of at most `longest` characters."""
    value = message.get(name)
    if not isinstance(value, str) or len(value) > longest:
        raise BadMessage(
            f"{name} must be a text of at most {longest} characters; got {echo(value)}"
        )
    return value


def read_seating(message: Mapping[str, Any], games: Mapping[str, Mapping[str, Any]]) -> Seating:
    """The table a `start` message asks for, `games` being the catalog by name: the game, one
    seat a player (in a game whose seats have reflexes, each seat's reaction delay or none),
    the options it names (only those the catalog lists for the game), and the seed (drawn when
    null)."""
    name = string(message, "game")
    if name not in games:
        raise BadMessage(f"unknown game {echo(name)}; games: {', '.join(games)}")
    game = games[name]
    seats = message.get("seats")
    if not isinstance(seats, list) or not game["min_players"] <= len(seats) <= game["max_players"]:
        raise BadMessage(
            f"{name} seats {game['min_players']} to {game['max_players']} players: seats must "
            f"be a list of that many; got {echo(seats)}"
        )
    specs, delays = [], []
    for seat in seats:
        if not isinstance(seat, dict):
            raise BadMessage(f"a seat is an object with an agent; got {echo(seat)}")
        specs.append(string(seat, "agent").strip())
        if seat.get("reaction_delay") is not None:
            delays.append(integer(seat, "reaction_delay", 0, 1000))
    if delays and not game["reaction_delays"]:
        raise BadMessage(f"{name} has no reaction delays; seats' reaction_delay must be null")
    if delays and len(delays) != len(seats):
        raise BadMessage("reaction delays are given for every seat or none")
    texts = message.get("options", {})
    known = [option["name"] for option in game["options"]]
    if not isinstance(texts, dict) or not all(
        isinstance(text, str) and len(text) <= MAX_OPTION_TEXT for text in texts.values()
    ):
        raise BadMessage("options map option names to texts")
    unknown = sorted(set(texts) - set(known))
    if unknown:
        raise BadMessage(f"{name}: unknown options {echo(unknown)}; options: {', '.join(known)}")
    options: dict[str, Any] = {"num_players": len(seats), **parse_options(texts)}
    if delays:
        options["reaction_delay"] = delays
    if message.get("seed") is None:
        return Seating(name, options, tuple(specs), secrets.randbelow(MAX_SEED), chosen=False)
    return Seating(name, options, tuple(specs), integer(message, "seed", 0, MAX_SEED))
