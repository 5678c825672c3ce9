"""Pictures of a Snailed It! table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: the four rows with their snail cards and two piles, the penalty
and tossed piles, hand sizes and totals. Hands stay face down.
"""

from __future__ import annotations

import numpy as np

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


def render_ansi(game: SnailedIt) -> str:
    """The table as text: each row's two piles (top value, cards in the pile), then the seats."""
    options = game.options
    lines = [
        f"Snailed It!  {game.num_players} players, round {game.rounds_played + 1} "
        f"(at most {options.max_rounds}), target {options.target}, "
        f"{game.turns_played} turns played",
        "row        left        right     ([top value] xN: N cards in the pile)",
    ]
    for colour, name in enumerate(COLOURS):
        left, right = game.rows[colour]
        lines.append(
            f"{name:<8} [{VALUE[left[-1]]:>2}] x{len(left):<3}  [{VALUE[right[-1]]:>2}] "
            f"x{len(right):<3}  {_gap_text(game, colour)}"
        )
    tossed = ", ".join(card_name(card) for card in sorted(game.tossed_pile)) or "-"
    lines.append(f"penalty pile: {len(game.penalty_pile)} cards; tossed pile: {tossed}")
    previous = "-" if game.previous_colour is None else COLOURS[game.previous_colour]
    lines.append(f"previous colour: {previous}")
    for seat in range(game.num_players):
        marker = "  <- plays" if seat == game.turn and game.outcome is None else ""
        lines.append(
            f"player_{seat}: {len(game.hands[seat])} cards, total {game.totals[seat]}{marker}"
        )
    if game.last_play is not None:
        seat, card, side = game.last_play
        text = f"last play: player_{seat} played {card_name(card)} on the {SIDES[side]} pile"
        if game.same_colour_draw:
            text += " (same colour: drew 1)"
        lines.append(text)
    if game.last_play is not None and game.last_tosses:
        tosses = ", ".join(f"player_{seat} {card_name(card)}" for seat, card in game.last_tosses)
        lines.append(f"tossed at player_{game.last_play[0]}: {tosses}")
    if game.last_round_points is not None:
        lines.append(f"last round's points: {game.last_round_points}")
    if game.outcome is not None:
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        lines.append(f"game over ({game.outcome.reason}): won by {winners}")
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    elif game.phase == TOSS_WINDOW:
        colour = COLOUR[game.fit_low]
        low, high = VALUE[game.fit_low], VALUE[game.fit_high]
        fitting = f"{low}" if low == high else f"{low}–{high}"
        lines.append(
            f"{PHASES[TOSS_WINDOW]}: the others may toss {COLOURS[colour]} {fitting} "
            f"at player_{game.turn}"
        )
    else:
        lines.append(f"player_{game.turn} to play")
    return "\n".join(lines)


RGB = {
    "orange": (240, 140, 40),
    "yellow": (236, 200, 30),
    "blue": (50, 110, 210),
    "pink": (235, 120, 170),
    "grey": (160, 160, 160),
}
CARD_W, CARD_H = 56, 76
ROW_H = CARD_H + 16
MARGIN = 16
PANEL_W = 220


def render_rgb(game: SnailedIt) -> np.ndarray:
    """The four rows (left pile, snail card, right pile), the penalty and tossed piles, and a
    panel of hand sizes and totals."""
    from PIL import Image, ImageDraw

    width = MARGIN * 3 + CARD_W * 5 + PANEL_W
    height = MARGIN * 2 + ROW_H * 5
    image = Image.new("RGB", (width, height), (34, 110, 70))
    draw = ImageDraw.Draw(image)

    def card(x: int, y: int, colour: str, label: str, count: int | None = None) -> None:
        draw.rounded_rectangle(
            (x, y, x + CARD_W, y + CARD_H), 6, fill=RGB[colour], outline=(20, 20, 20), width=2
        )
        draw.text((x + 8, y + 6), label, fill=(20, 20, 20))
        if count is not None:
            draw.text((x + 8, y + CARD_H - 16), f"x{count}", fill=(20, 20, 20))

    def snail(x: int, y: int, colour: str) -> None:
        draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), 6, fill=(250, 246, 235))
        body = RGB[colour]
        draw.ellipse((x + 8, y + 44, x + CARD_W - 6, y + 60), fill=body)
        draw.ellipse((x + 14, y + 18, x + 42, y + 46), fill=body, outline=(60, 40, 20), width=2)
        draw.arc((x + 21, y + 25, x + 35, y + 39), 0, 300, fill=(60, 40, 20), width=2)

    for colour, name in enumerate(COLOURS):
        y = MARGIN + colour * ROW_H
        for side, x in ((0, MARGIN), (1, MARGIN + 2 * CARD_W + 16)):
            pile = game.rows[colour][side]
            top = pile[-1]
            card(x, y, "grey" if COLOUR[top] < 0 else name, str(VALUE[top]), len(pile))
        snail(MARGIN + CARD_W + 8, y, name)
        if game.phase == TOSS_WINDOW and COLOUR[game.fit_low] == colour:
            draw.rectangle(
                (MARGIN - 4, y - 4, MARGIN + 3 * CARD_W + 20, y + CARD_H + 4),
                outline=(255, 255, 255),
                width=2,
            )
    y = MARGIN + NUM_COLOURS * ROW_H
    draw.rounded_rectangle((MARGIN, y, MARGIN + CARD_W, y + CARD_H), 6, fill=(90, 60, 120))
    draw.text((MARGIN + 6, y + 6), "penalty", fill=(255, 255, 255))
    draw.text((MARGIN + 6, y + CARD_H - 16), f"x{len(game.penalty_pile)}", fill=(255, 255, 255))
    x = MARGIN + CARD_W + 16
    draw.text((x, y), "tossed:", fill=(255, 255, 255))
    for i, tossed in enumerate(sorted(game.tossed_pile)[:24]):
        cx, cy = x + (i % 12) * 26, y + 16 + (i // 12) * 30
        draw.rectangle((cx, cy, cx + 22, cy + 26), fill=RGB[COLOURS[COLOUR[tossed]]])
        draw.text((cx + 3, cy + 7), str(VALUE[tossed]), fill=(20, 20, 20))
    x = width - PANEL_W - MARGIN // 2
    heading = f"round {game.rounds_played + 1}  turn {game.turns_played}"
    draw.text((x, MARGIN), heading, fill=(255, 255, 255))
    for seat in range(game.num_players):
        y = MARGIN + 24 + seat * 40
        ink = (255, 230, 120) if seat == game.turn and game.outcome is None else (255, 255, 255)
        draw.text((x, y), f"player_{seat}: total {game.totals[seat]}", fill=ink)
        for i in range(min(len(game.hands[seat]), 20)):
            draw.rectangle((x + i * 9, y + 14, x + i * 9 + 7, y + 30), fill=(90, 60, 120))
    if game.outcome is not None:
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        draw.text((x, height - MARGIN - 14), f"won by {winners}", fill=(255, 230, 120))
    return np.asarray(image, dtype=np.uint8)
