"""What a person at the table is told between decisions: the events that changed their hand or
the table, in words.

A `Narrator` follows one seat. Before and after each step it takes that seat's view of the game
(the public table and the seat's own hand, never another seat's hidden cards) and tells what
changed:

- Snailed It!: plays and tosses, the penalty cards the seat draws and why (a second card of the
  same colour, or cards tossed into the gap), the end of a round with the points it scored.
- Snap: flips, the calls of a tick and whether they were right (once made, calls are public),
  the cards each call moved (captured piles, pools won), new pools and seats going out; never
  whether the table shows a claim before the calls.
- Every game: a change of the seat's own hidden information (a new hand, a new card).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snail_envs.core.picture import with_names
from snail_envs.snailed_it.rules import SnailedIt, card_name
from snail_envs.snap.render import last_calls_text
from snail_envs.snap.rules import WAIT, Snap


@dataclass(frozen=True)
class SnailedItView:
    """What one seat knows of a Snailed It! game: its hand and the public record."""

    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    rounds_played: int
    ticks_played: int
    last_play: tuple[int, int, int] | None
    last_tosses: tuple[tuple[int, int], ...]
    totals: tuple[int, ...]


def snailed_it_view(game: SnailedIt, seat: int) -> SnailedItView:
    return SnailedItView(
        hand=tuple(sorted(game.hands[seat])),
        hand_sizes=tuple(len(hand) for hand in game.hands),
        rounds_played=game.rounds_played,
        ticks_played=game.ticks_played,
        last_play=game.last_play,
        last_tosses=tuple(game.last_tosses),
        totals=tuple(game.totals),
    )


def _who(seat: int, me: int) -> str:
    return "you" if seat == me else f"player_{seat}"


def _cards(cards: list[int]) -> str:
    count = f"{len(cards)} card" + ("s" if len(cards) > 1 else "")
    return f"{count}: {', '.join(map(card_name, sorted(cards)))}"


def snailed_it_events(game: SnailedIt, me: int, before: SnailedItView) -> list[str]:
    now = snailed_it_view(game, me)
    if now.ticks_played == before.ticks_played:
        return []
    if now.rounds_played > before.rounds_played:
        points = game.last_round_points or []
        totals = ", ".join(f"{_who(seat, me)} {total}" for seat, total in enumerate(now.totals))
        lines = [f"round {now.rounds_played} is over: you score {points[me]} (totals: {totals})"]
        if game.outcome is None:
            lines.append(f"a new round: your hand is {', '.join(map(card_name, now.hand))}")
        return lines
    lines = []
    played = now.last_play != before.last_play and now.last_play is not None
    if played and now.last_play is not None:
        seat, card, side = now.last_play
        pile = "left" if side == 0 else "right"
        lines.append(f"{_who(seat, me)} played {card_name(card)} on the {pile} pile")
    tosses = now.last_tosses if played else now.last_tosses[len(before.last_tosses) :]
    lines += [f"{_who(seat, me)} tossed {card_name(card)}" for seat, card in tosses]
    why = "for the cards tossed into the gap" if tosses else "for playing the same colour again"
    drawn = list((Counter(now.hand) - Counter(before.hand)).elements())
    if drawn:
        lines.append(f"{why}, you draw {_cards(drawn)}")
    for seat, (old, new) in enumerate(zip(before.hand_sizes, now.hand_sizes, strict=True)):
        gone = sum(other == seat for other, _ in tosses)
        gone += played and now.last_play is not None and now.last_play[0] == seat
        if seat != me and new - old + gone > 0:
            lines.append(f"{why}, player_{seat} draws {new - old + gone} (now holds {new})")
    return lines


@dataclass(frozen=True)
class SnapView:
    """What one seat knows of a Snap table: the public table and the last calls."""

    ticks: int
    flips: int
    held: tuple[int, ...]
    in_game: tuple[bool, ...]
    pools: int
    calls: list[int]
    """The calls of the last tick with calls: each such tick writes a new record."""
    games_played: int


def snap_view(game: Snap, seat: int) -> SnapView:
    return SnapView(
        ticks=game.ticks,
        flips=game.flips,
        held=tuple(game.held(other) for other in range(game.num_players)),
        in_game=tuple(game.in_game),
        pools=len(game.pools),
        calls=game.last_calls,
        games_played=game.games_played,
    )


def snap_events(game: Snap, me: int, before: SnapView) -> list[str]:
    now = snap_view(game, me)
    if now.ticks == before.ticks:
        return []
    lines = []
    if now.calls is not before.calls and any(call != WAIT for call in now.calls):
        lines.append(f"calls: {last_calls_text(game)}")
        for seat, gain in enumerate(game.last_gain):
            if gain:
                moved = "captured" if gain > 0 else "gave up"
                lines.append(f"{_who(seat, me)} {moved} {abs(gain)} card{'s' * (abs(gain) > 1)}")
    if now.pools > before.pools:
        pool = game.pools[-1]
        lines.append(f"a pool is on the table: {game.label(pool[-1])} ×{len(pool)}")
    if now.games_played > before.games_played:
        lines.append(f"game {now.games_played} of the session is over; a new deal")
    lines += [
        f"{_who(seat, me)} {'are' if seat == me else 'is'} out"
        for seat, (was, still) in enumerate(zip(before.in_game, now.in_game, strict=True))
        if was and not still
    ]
    if now.flips > before.flips:
        hidden = any(game.glimpses)
        for flipper, _, card in game.just_flipped:
            shown = "a card (see your glimpses)" if hidden else game.label(card)
            lines.append(f"{_who(flipper, me)} flipped {shown}")
    return lines


Looker = Callable[[Any, int], Any]
Teller = Callable[[Any, int, Any], list[str]]
NARRATED: dict[type, tuple[Looker, Teller]] = {
    SnailedIt: (snailed_it_view, snailed_it_events),
    Snap: (snap_view, snap_events),
}
"""The games with events of their own to tell, beyond changes of the seat's hidden information."""


class Narrator:
    """Follows `agent`'s seat at `host`'s table (a game host, `env.unwrapped`); `events()` tells
    what changed since the last call, one line an event, naming the other seats by `names` (each
    seat's, as `snail_envs.apps.seats.seat_names` gives them) when given, by agent id if not."""

    def __init__(self, host: Any, agent: str, names: Sequence[str] | None = None) -> None:
        self._host = host
        self.agent = agent
        self._names = names
        self._seat = host.possible_agents.index(agent)
        self._narrated = NARRATED.get(type(host.game))
        self._view = self._take_view()
        self._private = host.private_text(agent)

    @property
    def name(self) -> str:
        """The name of the seat followed (its agent id when no names were given)."""
        return self.agent if self._names is None else self._names[self._seat]

    def _take_view(self) -> Any:
        return None if self._narrated is None else self._narrated[0](self._host.game, self._seat)

    def events(self) -> list[str]:
        game = self._host.game
        narrated = self._narrated
        lines = [] if narrated is None else narrated[1](game, self._seat, self._view)
        private = self._host.private_text(self.agent)
        if narrated is None and private != self._private:
            lines.append(f"now {private}")
        self._view, self._private = self._take_view(), private
        return [with_names(line, self._names) for line in lines]
