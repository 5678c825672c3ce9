"""Pictures of a Snailed It! table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: the four rows with their snail cards and two piles, the penalty
and tossed piles, hand sizes and totals, whose turn it is or which toss window is open, the last
play and the tosses at it, and the winner at the end. Hands stay face down. A seat's view (`seat`)
is the same table with that seat's own hand face up.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from snail_envs.core.picture import (
    Canvas,
    LegendEntry,
    font,
    game_over_text,
    seat_name,
    status_text,
    view_title,
)
from snail_envs.snailed_it.rules import (
    COLOUR,
    COLOURS,
    NUM_COLOURS,
    PHASES,
    SIDES,
    TOSS_WINDOW,
    VALUE,
    SnailedIt,
    card_name,
)


def _gap_text(game: SnailedIt, colour: int) -> str:
    low, high = sorted(game.row_tops(colour))
    if high - low < 2:
        return "no gap"
    inside = f"{low + 1}" if high - low == 2 else f"{low + 1}–{high - 1}"
    return f"gap {inside}"


def render_ansi(
    game: SnailedIt, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """The table as text: each row's two piles (top value, cards in the pile), then the seats,
    named by `names` or by agent id (`seat_name`)."""
    options = game.options
    lines = [
        f"Snailed It!  {game.num_players} players, round {game.rounds_played + 1} "
        f"(at most {options.max_rounds}), target {options.target}, "
        f"{game.turns_played} turns played",
        "row        left        right     ([top value] xN: N cards in the pile)",
    ]
    for colour, (left, right) in enumerate(game.rows):
        name = COLOURS[colour]
        lines.append(
            f"{name:<8} [{VALUE[left[-1]]:>2}] x{len(left):<3}  [{VALUE[right[-1]]:>2}] "
            f"x{len(right):<3}  {_gap_text(game, colour)}"
        )
    tossed = ", ".join(card_name(card) for card in sorted(game.tossed_pile)) or "-"
    lines.append(f"penalty pile: {len(game.penalty_pile)} cards; tossed pile: {tossed}")
    previous = "-" if game.previous_colour is None else COLOURS[game.previous_colour]
    lines.append(f"previous colour: {previous}")
    for other in range(game.num_players):
        marker = "  <- plays" if other == game.turn and game.outcome is None else ""
        hand = f"{len(game.hands[other])} cards, total {game.totals[other]}"
        lines.append(f"{seat_name(other, names)}: {hand}{marker}")
    if seat is not None:
        lines.append(f"{seat_name(seat, names, seat)}: {game.private_text(seat)}")
    if game.last_play is not None:
        lines.append(_last_play_text(game, names))
    if game.last_play is not None and game.last_tosses:
        lines.append(f"tossed at {seat_name(game.last_play[0], names)}: {_tosses(game, names)}")
    if game.last_round_points is not None:
        lines.append(f"last round's points: {game.last_round_points}")
    if game.outcome is not None:
        lines.append(game_over_text(game.outcome, names))
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    elif game.phase == TOSS_WINDOW:
        colour = COLOUR[game.fit_low]
        low, high = VALUE[game.fit_low], VALUE[game.fit_high]
        fitting = f"{low}" if low == high else f"{low}–{high}"
        lines.append(
            f"{PHASES[TOSS_WINDOW]}: the others may toss {COLOURS[colour]} {fitting} "
            f"at {seat_name(game.turn, names)}"
        )
    else:
        lines.append(f"{seat_name(game.turn, names)} to play")
    return "\n".join(lines)


RGB = {
    "orange": (240, 140, 40),
    "yellow": (236, 200, 30),
    "blue": (70, 130, 220),
    "pink": (235, 120, 170),
    "grey": (170, 170, 170),
}
FELT = (34, 110, 70)
WHITE = (255, 255, 255)
DARK = (20, 20, 20)
GOLD = (255, 215, 60)
BACK = (90, 60, 120)
CARD_W, CARD_H = 56, 76
ROW_H = CARD_H + 16
MARGIN = 16
GAP_X = MARGIN + 3 * CARD_W + 40
PANEL_X = GAP_X + 130
PANEL_W = 360
WIDTH = PANEL_X + PANEL_W
LEGEND_Y = MARGIN + ROW_H * 5 + 4
HEIGHT = LEGEND_Y + 40
SMALL_W, SMALL_H, SMALL_STEP = 22, 28, 25
HAND_SHOWN = 13


def _colour_name(card: int) -> str:
    return "grey" if COLOUR[card] < 0 else COLOURS[COLOUR[card]]


def render_rgb(
    game: SnailedIt, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The four rows (left pile, snail card, right pile, the gap between the tops), the last card
    played framed gold, the toss window's row framed white, the penalty and tossed piles, a panel
    (whose turn or which window, the last play and tosses, every seat's total and hand: face down,
    except `seat`'s own), and a legend. The seats are named as in `render_ansi`."""
    canvas = Canvas(WIDTH, HEIGHT, FELT)
    _draw_rows(canvas, game)
    _draw_piles(canvas, game)
    _draw_panel(canvas, game, seat, names)
    legend: list[LegendEntry] = [
        (RGB["grey"], "starter card: no colour, only its value counts"),
        (
            lambda d, x, y, size: d.rectangle((x, y, x + size, y + size), outline=GOLD, width=3),
            "card played last",
        ),
        (
            lambda d, x, y, size: d.rectangle((x, y, x + size, y + size), outline=WHITE, width=2),
            "row of the toss window",
        ),
        (BACK, "face-down card"),
        (
            lambda d, x, y, size: d.text((x, y), "x3", fill=WHITE, font=font(size - 3)),
            "cards in the pile",
        ),
    ]
    canvas.legend(MARGIN, LEGEND_Y, legend, WHITE, WIDTH - 2 * MARGIN)
    return canvas.array()


def _card(canvas: Canvas, x: float, y: float, card: int, count: int | None = None) -> None:
    canvas.draw.rounded_rectangle(
        (x, y, x + CARD_W, y + CARD_H), 6, fill=RGB[_colour_name(card)], outline=DARK, width=2
    )
    canvas.text(x + 7, y + 5, str(VALUE[card]), DARK, 18)
    if count is not None:
        canvas.text(x + 7, y + CARD_H - 18, f"x{count}", DARK, 12)


def _small_card(canvas: Canvas, x: float, y: float, card: int, framed: bool = False) -> None:
    canvas.draw.rectangle(
        (x, y, x + SMALL_W, y + SMALL_H),
        fill=RGB[_colour_name(card)],
        outline=WHITE if framed else DARK,
        width=3 if framed else 1,
    )
    canvas.centred(x + SMALL_W / 2, y + SMALL_H / 2, str(VALUE[card]), DARK, 11)


def _snail_card(canvas: Canvas, x: float, y: float, colour: str) -> None:
    draw = canvas.draw
    draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), 6, fill=(250, 246, 235))
    body = RGB[colour]
    draw.ellipse((x + 8, y + 44, x + CARD_W - 6, y + 60), fill=body)
    draw.ellipse((x + 14, y + 18, x + 42, y + 46), fill=body, outline=(60, 40, 20), width=2)
    draw.arc((x + 21, y + 25, x + 35, y + 39), 0, 300, fill=(60, 40, 20), width=2)
    canvas.centred(x + CARD_W / 2, y + 9, colour, DARK, 10)


def _draw_rows(canvas: Canvas, game: SnailedIt) -> None:
    draw = canvas.draw
    window = game.phase == TOSS_WINDOW and game.outcome is None and not game.truncated
    for colour, name in enumerate(COLOURS[: len(game.rows)]):
        y = MARGIN + colour * ROW_H
        if window and COLOUR[game.fit_low] == colour:
            draw.rectangle((MARGIN - 6, y - 6, GAP_X + 124, y + CARD_H + 6), outline=WHITE, width=3)
        for side, x in ((0, MARGIN), (1, MARGIN + 2 * CARD_W + 16)):
            pile = game.rows[colour][side]
            _card(canvas, x, y, pile[-1], len(pile))
            if game.last_play is not None and game.last_play[1:] == (pile[-1], side):
                draw.rounded_rectangle(
                    (x - 3, y - 3, x + CARD_W + 3, y + CARD_H + 3), 8, outline=GOLD, width=4
                )
        _snail_card(canvas, MARGIN + CARD_W + 8, y, name)
        canvas.text(GAP_X, y + 20, _gap_text(game, colour), WHITE, 13)
        if window and COLOUR[game.fit_low] == colour:
            canvas.lines(GAP_X, y + 40, "toss window open", WHITE, 118, 2, 11)


def _draw_piles(canvas: Canvas, game: SnailedIt) -> None:
    draw = canvas.draw
    y = MARGIN + NUM_COLOURS * ROW_H
    draw.rounded_rectangle((MARGIN, y, MARGIN + CARD_W, y + CARD_H), 6, fill=BACK, outline=DARK)
    canvas.text(MARGIN + 5, y + 5, "penalty", WHITE, 11)
    canvas.text(MARGIN + 5, y + CARD_H - 18, f"x{len(game.penalty_pile)}", WHITE, 12)
    x = MARGIN + CARD_W + 16
    canvas.text(x, y, f"tossed pile ({len(game.tossed_pile)}):", WHITE, 12)
    for i, tossed in enumerate(sorted(game.tossed_pile)[:24]):
        _small_card(canvas, x + (i % 12) * SMALL_STEP, y + 18 + (i // 12) * 31, tossed)


def _draw_panel(
    canvas: Canvas, game: SnailedIt, seat: int | None, names: Sequence[str] | None
) -> None:
    draw, x, width = canvas.draw, PANEL_X, PANEL_W - MARGIN
    details = (
        f"round {game.rounds_played + 1}, turns played {game.turns_played}, target "
        f"{game.options.target} (lowest total wins)"
    )
    canvas.heading(x, MARGIN, view_title("Snailed It!", seat, names), details, WHITE)
    status = _status(game, seat, names)
    y = canvas.headline(x, MARGIN + 40, width, status, (255, 236, 150), DARK) + 2
    canvas.lines(x, y, _last_play_text(game, names), WHITE, width, 2, 11)
    y += 30
    tosses = _tosses(game, names) or "nothing"
    canvas.lines(x, y, f"tossed at that play: {tosses}", WHITE, width, 2, 11)
    y += 30
    previous = "-" if game.previous_colour is None else COLOURS[game.previous_colour]
    canvas.text(x, y, f"previous colour: {previous} (same again: draw 1)", WHITE, 11)
    y += 22
    last_points = game.last_round_points
    for other in range(game.num_players):
        mine = other == seat
        height = 2 * 31 + 18 if mine else 40
        if other == game.turn and game.outcome is None and not game.truncated:
            draw.rectangle((x - 4, y - 2, x + width, y + height - 6), outline=GOLD, width=2)
        won = game.outcome is not None and other in game.outcome.winners
        text = f"{seat_name(other, names, seat)}: total {game.totals[other]}"
        if last_points is not None:
            text += f" (last round +{last_points[other]})"
        canvas.text(x, y, text + ("  won" if won else ""), GOLD if won else WHITE, 12)
        hand = game.hands[other]
        if mine:
            _draw_own_hand(canvas, game, other, x, y + 16)
        else:
            for i in range(min(len(hand), 20)):
                draw.rectangle((x + i * 9, y + 16, x + i * 9 + 7, y + 32), fill=BACK, outline=DARK)
            canvas.text(x + min(len(hand), 20) * 9 + 6, y + 17, f"{len(hand)} cards", WHITE, 11)
        y += height


def _draw_own_hand(canvas: Canvas, game: SnailedIt, seat: int, x: float, y: float) -> None:
    """The seat's own hand face up, in two rows; in a toss window the cards it may toss framed."""
    hand = sorted(game.hands[seat])
    may_toss = seat in game.acting_seats() and game.phase == TOSS_WINDOW
    for i, card in enumerate(hand[: 2 * HAND_SHOWN]):
        row, col = divmod(i, HAND_SHOWN)
        _small_card(
            canvas,
            x + col * SMALL_STEP,
            y + row * 31,
            card,
            framed=may_toss and game.fits_gap(card),
        )
    if len(hand) > 2 * HAND_SHOWN:
        canvas.text(
            x + HAND_SHOWN * SMALL_STEP + 2, y + 40, f"+{len(hand) - 2 * HAND_SHOWN}", WHITE, 11
        )
    if not hand:
        canvas.text(x, y + 6, "your hand is empty", WHITE, 11)


def _status(game: SnailedIt, seat: int | None, names: Sequence[str] | None) -> str:
    if game.phase == TOSS_WINDOW:
        colour = COLOURS[COLOUR[game.fit_low]]
        low, high = VALUE[game.fit_low], VALUE[game.fit_high]
        fitting = f"{low}" if low == high else f"{low}–{high}"
        tossers = ", ".join(seat_name(s, names, seat) for s in game.acting_seats())
        player = seat_name(game.turn, names)
        playing = f"toss window: {tossers} may toss {colour} {fitting} at {player}"
    else:
        playing = f"{seat_name(game.turn, names, seat)} to play"
    return status_text(game.outcome, game.truncated, playing, names)


def _last_play_text(game: SnailedIt, names: Sequence[str] | None) -> str:
    if game.last_play is None:
        return "last play: none yet this round"
    player, card, side = game.last_play
    text = (
        f"last play: {seat_name(player, names)} played {card_name(card)} on the {SIDES[side]} pile"
    )
    return text + (" (same colour: drew 1)" if game.same_colour_draw else "")


def _tosses(game: SnailedIt, names: Sequence[str] | None) -> str:
    """The cards tossed at the last play, each with its tosser."""
    return ", ".join(f"{seat_name(s, names)} {card_name(card)}" for s, card in game.last_tosses)
