"""One game at one page: the environment, the bots, the person's seat, and what the page is shown.

A `Table` drives the game's AEC environment and the bots' agents exactly as `snail-play` does,
one tick at a time (a turn is a tick of one seat; a simultaneous window, a tick of several), and
records the game as a replay. It is used by one task at a time (the session's), never by two
threads at once.

What a page is shown (`seat_frame`) comes from its seat's view alone: the picture and the text of
`render_seat` (the public table and the seat's own hidden information), the seat's legal moves
when it decides, and who is to act. The log a person reads is the narration from their seat
(`snail_envs.apps.narration`); in the games it does not narrate (the races, where every move is
made on the open board) it is each turn's decision, which every seat sees made. A page watching
bots play is a spectator's: the table as `render_text` and `render_picture` show it, and every
decision but the idle ones (Snap's wait, a toss window's pass). The picture and the text name the
seats as the page does (`snail_envs.apps.seats`).
"""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents import choose_action
from snail_envs.agents.human import idle_action
from snail_envs.apps.narration import NARRATED, Narrator
from snail_envs.apps.replay import game_result, start_replay
from snail_envs.apps.seats import PERSON, seat_names
from snail_envs.apps.serve.bots import make_bot
from snail_envs.core.picture import with_names


@dataclass(frozen=True)
class Seating:
    """What a page asked for: a game, its options (`num_players` among them), who sits in each
    seat (an agent spec, or `PERSON`), and the seed of the deal and the bots."""

    env_name: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    seed: int
    chosen: bool = True
    """Whether the page chose the seed (false: the server drew it, and keeps it from the page
    until the game is over; see `Table.opening`)."""


def png_data_url(picture: np.ndarray) -> str:
    """An RGB picture as a PNG `data:` URL, which an `<img>` shows as it is sent. The fastest
    compression: the pictures are 15–50 KB and go to a page on the same machine."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(picture).save(buffer, "PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def seat_frame(env: Any, agent: str | None, who: Sequence[str], realtime: bool) -> dict[str, Any]:
    """What the page of `agent`'s seat is shown of the table now (`agent` None: a spectator's
    page): the picture and text of the seat's view, its legal moves (while it is the one to
    decide, if it has a choice; in real time, the calls it may make in this tick), who acts
    (`who[seat]` names each seat, there and in the picture and text), and in Snap the number of
    flips (printed on the table too; the page times reactions from the flip). Nothing else of
    the game: redrawing what is hidden from `agent` (`resample_from_infostate`) leaves the frame
    as it is."""
    host = env.unwrapped
    game = host.game
    if agent is None:
        picture, text = host.render_picture(who), host.render_text(who)
    else:
        picture = host.render_seat(agent, "rgb_array", who)
        text = host.render_seat(agent, names=who)
    deciding = bool(env.agents) and (realtime or env.agent_selection == agent)
    legal = host.legal_actions(agent) if agent is not None and deciding else []
    moves = [{"action": action, "label": host.action_to_string(agent, action)} for action in legal]
    if realtime:
        moves = [move for move in moves if move["action"] not in host.spec.info.idle_actions]
    elif len(moves) == 1:
        moves = []  # a single choice is taken for the person
    frame = {
        "picture": png_data_url(picture),
        "text": text,
        "moves": moves,
        "status": status_line(env, who),
    }
    if host.spec.info.realtime:
        frame["flips"] = game.flips
    return frame


def status_line(env: Any, who: Sequence[str]) -> str:
    """Who is to act, or how the game ended, in a line."""
    game = env.unwrapped.game
    if not env.agents or game.outcome is not None or game.truncated:
        if game.outcome is None:
            return "game over: stopped without a winner (a length limit)"
        winners = " and ".join(who[seat] for seat in sorted(game.outcome.winners))
        return f"game over: {winners} won ({with_names(game.outcome.reason, who)})"
    acting = [who[seat] for seat in game.acting_seats()]
    if len(acting) == 1:
        return f"{acting[0]} to decide"
    return f"{', '.join(acting)} decide at once"


class Table:
    """The game a page plays or watches (see the module docstring). Building one makes the
    environment and the bots: a bad option or agent spec is a `ValueError` (a missing policy
    file an `OSError`, an agent whose extra is not installed a `ModuleNotFoundError`)."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating
        self.env = snail_envs.make(seating.env_name, **seating.options)
        self.env.reset(seed=seating.seed)
        agents = self.env.possible_agents
        if len(seating.seats) != len(agents):
            raise ValueError(f"{len(agents)} seats at this table; {len(seating.seats)} given")
        people = [
            agent for agent, spec in zip(agents, seating.seats, strict=True) if spec == PERSON
        ]
        if len(people) > 1:
            raise ValueError("one person sits at a page; the other seats are bots")
        self.person: str | None = people[0] if people else None
        host = self.env.unwrapped
        self.realtime = self.person is not None and host.spec.info.realtime
        self.who = seat_names(seating.seats)
        self.bots = {
            agent: make_bot(spec, seating.env_name, seating.seed + index, seating.options)
            for index, (agent, spec) in enumerate(zip(agents, seating.seats, strict=True))
            if spec != PERSON
        }
        self.replay = start_replay(
            seating.env_name, seating.options, seating.seed, self.env, seating.seats
        )
        self.narrator = None if self.person is None else Narrator(host, self.person, self.who)
        self.narrated = type(host.game) in NARRATED
        self._log: list[str] = []

    @property
    def over(self) -> bool:
        return not self.env.agents

    @property
    def turn(self) -> int:
        """The AEC steps played so far (`snail_envs.core.length`): the position a move of the
        person answers, which the page's messages call `turn`."""
        return len(self.replay.steps)

    def opening(self, tick_ms: int) -> dict[str, Any]:
        """The `table` message that tells the page the game it starts: the game, who sits
        where, the keys of real-time calls, and the seed only if the page chose it.

        Every game of the library is deterministic and hides something, so the seed is the
        whole deal: with it, `reset(seed=...)` rebuilds every hand, and the bots' seeds are
        `seed + seat`. A seed the server drew is therefore sent only in the frame that ends the
        game (and kept in the replay saved after it). A page may choose the seed (to deal a
        game again); it then knows what that seed deals, as anyone who chooses a deal does, and
        learns nothing more from the server."""
        host = self.env.unwrapped
        delays = getattr(host.options, "reaction_delay", None)
        return {
            "type": "table",
            "game": self.seating.env_name,
            "title": host.spec.info.title,
            "seed": self.seating.seed if self.seating.chosen else None,
            "you": self.person,
            "realtime": self.realtime,
            "tick_ms": tick_ms,
            "seats": [
                {
                    "agent": self.seating.seats[seat],
                    "id": self.env.possible_agents[seat],
                    "who": self.who[seat],
                    "reaction_delay": None if delays is None else delays[seat],
                }
                for seat in range(len(self.env.possible_agents))
            ],
            "keys": self.keys(),
        }

    def keys(self) -> list[dict[str, Any]]:
        """The keys of the person's calls in real time (none in a game played by turns): the
        game's `call_keys`, each where its rule option is on (Snap's slap only in Slapjack)."""
        if not self.realtime or self.person is None:
            return []
        host = self.env.unwrapped
        return [
            {
                "name": call.name,
                "key": call.key,
                "action": call.action,
                "label": host.action_to_string(self.person, call.action),
            }
            for call in host.spec.info.call_keys
            if call.option is None or getattr(host.options, call.option)
        ]

    def settle(self) -> None:
        """Let the seats that have finished leave the game (the step `None` each takes)."""
        env = self.env
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            self._step(env.agent_selection, None)

    def tick_agents(self) -> list[str]:
        """The agents that decide in the next tick, in the order the environment asks them
        (after `settle`); empty once the game is over."""
        self.settle()
        if not self.env.agents:
            return []
        return [self.env.possible_agents[seat] for seat in self.env.unwrapped.game.acting_seats()]

    def legal_actions(self, agent: str) -> list[int]:
        return self.env.unwrapped.legal_actions(agent)

    def idle_action(self, agent: str) -> int | None:
        """`agent`'s action that lets the moment go by (wait, pass), if it has one now."""
        host = self.env.unwrapped
        return idle_action(host, host.legal_actions(agent))

    def bot_action(self, agent: str) -> int:
        """The bot's choice for `agent`, from that seat's view only (`choose_action`)."""
        return choose_action(self.bots[agent], self.env, agent)

    def check(self, agent: str, action: Any) -> None:
        """A `ValueError` naming the legal actions unless `agent`, who is to act, may play
        `action` now."""
        self.env.unwrapped.check_action(agent, action)

    def play(self, agent: str, action: int, note: str = "") -> None:
        """Step `agent`'s `action` (it is `agent`'s turn, and the action legal) and log it."""
        decision = self.env.unwrapped.action_to_string(agent, action)
        alone = len(self.env.unwrapped.game.acting_seats()) == 1
        self._step(agent, action)
        seat = self.env.possible_agents.index(agent)
        if self.person is None:
            if action not in self.env.unwrapped.spec.info.idle_actions:
                self._log.append(f"{self.who[seat]}: {decision}")
        elif not self.narrated and alone:
            self._log.append(f"{self.who[seat]}: {decision}{note}")
        if self.narrator is not None:
            self._log += self.narrator.events()

    def play_realtime_tick(self, call: int | None) -> str | None:
        """One tick of a real-time game on the wall clock: the person makes `call` (None:
        waits), the bots decide. A call the person may not make now is not made; the reason
        is returned."""
        refused = None
        for agent in self.tick_agents():
            if agent != self.person:
                self.play(agent, self.bot_action(agent))
                continue
            action = call if call in self.legal_actions(agent) else self.idle_action(agent)
            if call is not None and action != call:
                try:
                    self.check(agent, call)
                except ValueError as problem:
                    refused = f"your call was not made: {problem}"
            if action is None:
                raise RuntimeError(f"{agent} has no idle action in a tick of real-time play")
            self.play(agent, action)
        self.settle()
        return refused

    def frame(self) -> dict[str, Any]:
        """The message that shows the page the table now, with the log lines since the last
        frame, the number of steps so far (`turn`: a move names the position it answers) and,
        once the game is over, the result and the seed (see `opening`)."""
        frame = {"type": "frame", **seat_frame(self.env, self.person, self.who, self.realtime)}
        frame["log"], self._log = self._log, []
        frame["turn"] = self.turn
        frame["over"] = self.over
        if self.over:
            frame["result"] = self.result_lines()
            frame["seed"] = self.seating.seed
        return frame

    def result_lines(self) -> list[str]:
        """Each seat's result and return, as the end of `snail-play` prints them."""
        result = game_result(self.env, self.replay.steps)
        lines = []
        for seat, agent in enumerate(self.env.possible_agents):
            won = (
                "won"
                if agent in result["winners"]
                else "lost"
                if result["winners"]
                else "no outcome"
            )
            lines.append(f"{self.who[seat]}: {won} ({result['returns'][agent]:+g})")
        if result["reason"]:
            lines.append(f"the game ended: {with_names(result['reason'], self.who)}")
        if result["truncated"]:
            lines.append("the game was truncated (a length limit stopped it)")
        return lines

    def save(self, folder: Path) -> Path:
        """Save the finished game as a replay in `folder`, under a new name (never over a file
        that exists: the name gets a number until it is free)."""
        if not self.over:
            raise ValueError("a game is saved once it is over")
        replay = self.replay.finish(self.env)
        stem = f"{self.seating.env_name}-{time.strftime('%Y%m%d-%H%M%S')}-seed{self.seating.seed}"
        for number in range(1, 1000):
            path = folder / (f"{stem}.jsonl" if number == 1 else f"{stem}-{number}.jsonl")
            try:
                return replay.save(path)
            except FileExistsError:
                continue
        raise FileExistsError(f"{folder}: no free name for {stem}.jsonl")

    def _step(self, agent: str, action: int | None) -> None:
        self.env.step(action)
        self.replay.record(self.env, agent, action)
