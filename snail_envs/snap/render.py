"""Pictures of a Snap table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: stack sizes (never their cards), piles with their top cards,
pools or pots, the reaction window (its tick, who may call), the last calls, session wins and the
winner at the end. A seat's view (`seat`) shows the table as that seat sees it: with
`glimpse_error`, the card flipped last as the seat glimpsed it (its rank only), and only its own
glimpses; and nothing that tells whether a claim is real.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from snail_envs.core.picture import (
    Canvas,
    Colour,
    LegendEntry,
    game_over_text,
    seat_name,
    status_text,
    view_title,
    whose_view,
)
from snail_envs.snap.rules import SUITS, WAIT, Snap

CALL_NAMES = {1: "snap", 2: "snap_pool", 3: "slap"}


def _glimpsed_pile(game: Snap, seat: int | None) -> int | None:
    """The pile whose top `seat` sees only as its glimpse (with `glimpse_error`), if any."""
    if seat is None or not game.glimpses[seat]:
        return None
    return game.just_flipped[0][1]


def _top(game: Snap, pile: int, seat: int | None = None) -> str:
    cards = game.piles[pile]
    if not cards:
        return "--"
    if seat is not None and pile == _glimpsed_pile(game, seat):
        return game.key_label(game.glimpses[seat][-1]) + "?"
    return game.label(cards[-1])


def _pool_name(game: Snap) -> str:
    return "pool" if game.classic else "pot"


def last_calls_text(game: Snap, names: Sequence[str] | None = None) -> str:
    """The calls of the last tick that had calls, each right or wrong, and what they changed."""
    verdicts = ["right" if correct else "wrong" for correct in game.last_correct]
    calls = [
        f"{seat_name(seat, names)} {CALL_NAMES[call]} ({verdicts[seat]})"
        for seat, call in enumerate(game.last_calls)
        if call != WAIT
    ]
    if not calls:
        return "no call yet"
    gains = [
        f"{seat_name(seat, names)} {gain:+d}" for seat, gain in enumerate(game.last_gain) if gain
    ]
    return "; ".join(calls) + (f" -> cards {', '.join(gains)}" if gains else " -> no card moved")


def _window_text(game: Snap, seat: int | None, names: Sequence[str] | None) -> str:
    """The reaction window now: its tick, whether a claim shows (spectators only: a seat with
    imperfect sight must not be told), and who acts."""
    kind = "reopened window" if game.reopened else "window"
    claim = ""
    if seat is None:
        claim = " (something claimable)" if game.claimable() else " (nothing claimable)"
    acting = ", ".join(seat_name(s, names, seat) for s in game.acting_seats())
    return f"{kind}: tick {game.window_tick + 1} of {game.window_length}{claim}; acting: {acting}"


def _session_text(game: Snap, names: Sequence[str] | None) -> str:
    wins = ", ".join(
        f"{seat_name(seat, names)} {won}" for seat, won in enumerate(game.session_wins)
    )
    stage = " (a sudden death)" if game.sudden_deaths else ""
    number = game.games_played + (game.outcome is None)
    return f"session {game.options.session}: game {number}{stage}; wins: {wins}"


def _glimpses_text(game: Snap, seat: int | None, names: Sequence[str] | None) -> str:
    if seat is not None:
        seen = ", ".join(game.key_label(key) for key in game.glimpses[seat])
        return f"your glimpses of the card flipped last: {seen}" if seen else ""
    if not any(game.glimpses):
        return ""
    seen = ", ".join(
        f"{seat_name(other, names)} {game.key_label(glimpses[-1])}"
        for other, glimpses in enumerate(game.glimpses)
    )
    return f"glimpses of the card flipped last: {seen}"


def render_ansi(game: Snap, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The table as text: one row a seat, then the centre and the last calls; the seats named
    by `names` or by agent id (`seat_name`)."""
    options = game.options
    variants = [
        name for name in ("speed", "double", "single_pile", "slapjack") if getattr(options, name)
    ]
    header = f"Snap ({options.ruleset}{''.join(', ' + v for v in variants)}, "
    header += f"{game.num_players} players)  {game.flips} flips, {game.ticks} ticks played"
    if seat is not None:
        header += f"; {whose_view(seat, names)}"
    column = max(10, *(len(seat_name(other, names)) for other in range(game.num_players)))
    lines = [header, f"{'seat':<{column}} stack  pile  top"]
    flipped = {flipper for flipper, _, _ in game.just_flipped}
    for other in range(game.num_players):
        pile = game.piles[other]
        notes = []
        if other == seat:
            notes.append("you")
        if other in flipped:
            notes.append("flipped last")
        if not game.in_game[other]:
            notes.append("out")
        elif not game.held(other):
            notes.append("no cards: out at its turn unless it wins some")
        if options.delays[other]:
            notes.append(f"delay {options.delays[other]}")
        top = _top(game, other, seat) if not options.single_pile else ""
        lines.append(
            f"{seat_name(other, names):<{column}} {len(game.stacks[other]):>5} {len(pile):>5}  "
            f"{top:<4} {', '.join(notes)}".rstrip()
        )
    if options.single_pile:
        centre = game.piles[-1]
        below = f" on {game.label(centre[-2])}" if len(centre) > 1 else ""
        top = _top(game, len(game.piles) - 1, seat)
        lines.append(f"central pile: {len(centre)} cards, top {top}{below}")
    pools = [f"{game.label(pool[-1])} ×{len(pool)}" for pool in game.pools]
    lines.append(f"{_pool_name(game)}s: {', '.join(pools) if pools else 'none'}")
    lines.append(f"last calls: {last_calls_text(game, names)}")
    if options.session != "single":
        lines.append(_session_text(game, names))
    if game.outcome is not None:
        lines.append(game_over_text(game.outcome, names))
    elif game.truncated:
        lines.append(f"stopped after {game.flips} flips and {game.ticks} ticks (limit)")
    else:
        lines.append(_window_text(game, seat, names))
        glimpses = _glimpses_text(game, seat, names)
        if glimpses:
            lines.append(glimpses)
    return "\n".join(lines)


CARD_W, CARD_H = 44, 62
COLUMN = 100
MIN_COLUMNS = 6
MARGIN = 12
FELT = (22, 110, 60)
INK = (240, 240, 230)
DARK = (20, 20, 20)
RED = (200, 30, 40)
GOLD = (255, 215, 60)
BACK = (40, 60, 150)
FACE = (250, 250, 245)
EMPTY = (80, 150, 100)
OUT_INK = (150, 170, 150)
SEATS_Y = MARGIN + 22
CENTRE_Y = SEATS_Y + 16 + CARD_H + 22
STATUS_Y = CENTRE_Y + CARD_H + 24
CALLS_Y = STATUS_Y + 42
HEIGHT = 2 * MARGIN + 2 * CARD_H + 220
LEGEND_Y = HEIGHT - MARGIN - 30


def draw_suit(draw: Any, suit: int, cx: float, cy: float, r: float, fill: Colour) -> None:
    """Suit `suit` (0 clubs, 1 diamonds, 2 hearts, 3 spades, as `SUITS`) centred on (cx, cy),
    `r` pixels from the centre to its edge."""
    lobe = 0.5 * r
    if SUITS[suit] == "♦":
        draw.polygon(
            ((cx, cy - r), (cx + 0.7 * r, cy), (cx, cy + r), (cx - 0.7 * r, cy)), fill=fill
        )
    elif SUITS[suit] == "♥":
        for dx in (-lobe, lobe):
            draw.ellipse((cx + dx - lobe, cy - r, cx + dx + lobe, cy - r + 2 * lobe), fill=fill)
        draw.polygon(((cx - r, cy - 0.45 * r), (cx + r, cy - 0.45 * r), (cx, cy + r)), fill=fill)
    elif SUITS[suit] == "♠":
        for dx in (-lobe, lobe):
            draw.ellipse(
                (cx + dx - lobe, cy - 0.3 * r, cx + dx + lobe, cy - 0.3 * r + 2 * lobe), fill=fill
            )
        draw.polygon(((cx - r, cy + 0.25 * r), (cx + r, cy + 0.25 * r), (cx, cy - r)), fill=fill)
        draw.polygon(
            ((cx, cy + 0.2 * r), (cx + 0.35 * r, cy + r), (cx - 0.35 * r, cy + r)), fill=fill
        )
    else:
        small = 0.42 * r
        for dx, dy in ((0, -0.5), (-0.52, 0.15), (0.52, 0.15)):
            lx, ly = cx + dx * r, cy + dy * r
            draw.ellipse((lx - small, ly - small, lx + small, ly + small), fill=fill)
        draw.polygon(((cx, cy), (cx + 0.3 * r, cy + r), (cx - 0.3 * r, cy + r)), fill=fill)


def _columns(game: Snap) -> int:
    return max(game.num_players, MIN_COLUMNS)


def render_rgb(
    game: Snap, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The table seen from above: a column a seat (its stack face down with its size, its pile
    with the top card; the card flipped last framed gold), the centre (pools or pots, the central
    pile), then the window, the last calls, the session and a legend. The size depends only on
    the number of seats: pots that do not fit are counted. The seats are named as in
    `render_ansi`."""
    options = game.options
    columns = _columns(game)
    width = MARGIN * 2 + COLUMN * columns
    canvas = Canvas(width, HEIGHT, FELT)
    canvas.text(MARGIN, MARGIN - 2, view_title("Snap", seat, names), INK, 14)
    canvas.text(
        MARGIN + 150 + (0 if seat is None else 110),
        MARGIN,
        f"{options.ruleset}, {game.flips} flips, {game.ticks} ticks",
        INK,
        11,
    )
    flipped = {pile for _, pile, _ in game.just_flipped}
    y: float = SEATS_Y
    for other in range(game.num_players):
        x = MARGIN + COLUMN * other
        ink = INK if game.in_game[other] else OUT_INK
        name = seat_name(other, names, seat) + ("" if game.in_game[other] else " out")
        canvas.text(x, y, name, ink, 11)
        _stack(canvas, x, y + 16, len(game.stacks[other]))
        if not options.single_pile:
            _pile(canvas, game, x + CARD_W + 4, y + 16, other, seat, other in flipped)
    y = CENTRE_Y
    x = MARGIN
    slots = columns
    if options.single_pile:
        centre = len(game.piles) - 1
        _pile(canvas, game, x, y, centre, seat, centre in flipped, "centre")
        if len(game.piles[centre]) > 1:
            _face(canvas, game, x + CARD_W + 4, y, game.piles[centre][-2])
            canvas.text(x + CARD_W + 4, y + CARD_H + 3, "under it", INK, 10)
        x += COLUMN
        slots -= 1
    name = _pool_name(game)
    shown = game.pools if len(game.pools) <= slots else game.pools[: slots - 1]
    for pool in shown:
        _face(canvas, game, x, y, pool[-1])
        canvas.text(x, y + CARD_H + 3, f"{name} {len(pool)}", INK, 11)
        x += COLUMN
    if len(shown) < len(game.pools):
        canvas.text(x, y + CARD_H // 2, f"+{len(game.pools) - len(shown)} more {name}s", INK, 12)
    if not game.pools:
        canvas.text(x, y + CARD_H // 2 - 6, f"no {name}", INK, 12)
    y = STATUS_Y
    text_width = width - 2 * MARGIN
    window = ("" if game.reopened else "reaction ") + _window_text(game, seat, names)
    status = status_text(game.outcome, game.truncated, window, names)
    canvas.headline(MARGIN, y, text_width, status, (255, 236, 150), DARK)
    y = canvas.lines(
        MARGIN, CALLS_Y, f"last calls: {last_calls_text(game, names)}", INK, text_width, 2, 11
    )
    if options.session != "single":
        canvas.lines(MARGIN, y, _session_text(game, names), INK, text_width, 1, 11)
    y += 15
    if game.outcome is None:
        canvas.lines(MARGIN, y, _glimpses_text(game, seat, names), INK, text_width, 1, 11)
    legend: list[LegendEntry] = [
        (BACK, "stack, face down (its size below)"),
        (
            lambda d, x, y, size: d.rectangle((x, y, x + size, y + size), outline=GOLD, width=3),
            "flipped last",
        ),
        (
            lambda d, x, y, size: draw_suit(d, 2, x + size / 2, y + size / 2, size / 2, RED),
            "red suits",
        ),
    ]
    if options.glimpse_error:
        legend.append((FACE, "7? = a glimpse: rank seen, suit not"))
    canvas.legend(MARGIN, LEGEND_Y, legend, INK, text_width)
    return canvas.array()


def _stack(canvas: Canvas, x: float, y: float, size: int) -> None:
    fill = BACK if size else None
    canvas.draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=fill, outline=INK if size else EMPTY)
    canvas.text(x, y + CARD_H + 3, f"stack {size}", INK, 10)


def _pile(
    canvas: Canvas,
    game: Snap,
    x: float,
    y: float,
    pile: int,
    seat: int | None,
    flipped_last: bool,
    caption: str = "pile",
) -> None:
    cards = game.piles[pile]
    if not cards:
        canvas.draw.rectangle((x, y, x + CARD_W, y + CARD_H), outline=EMPTY)
    elif pile == _glimpsed_pile(game, seat):
        canvas.draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=FACE, outline=INK)
        canvas.centred(x + CARD_W / 2, y + CARD_H / 2, _top(game, pile, seat), DARK, 16)
    else:
        _face(canvas, game, x, y, cards[-1])
    if flipped_last and cards:
        canvas.draw.rectangle((x - 3, y - 3, x + CARD_W + 3, y + CARD_H + 3), outline=GOLD, width=3)
    canvas.text(x, y + CARD_H + 3, f"{caption} {len(cards)}", INK, 10)


def _face(canvas: Canvas, game: Snap, x: float, y: float, card: int) -> None:
    """A card face up: its rank and a drawn suit (or its picture's number)."""
    canvas.draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=FACE, outline=INK)
    if game.options.match_key == "picture":
        canvas.centred(x + CARD_W / 2, y + CARD_H / 2, game.label(card), DARK, 16)
        return
    suit = card % len(SUITS)
    colour = RED if SUITS[suit] in "♦♥" else DARK
    canvas.text(x + 4, y + 3, game.key_label(game.key[card]), colour, 15)
    draw_suit(canvas.draw, suit, x + CARD_W / 2, y + CARD_H / 2 + 10, 11, colour)
