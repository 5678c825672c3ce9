"""Pictures of a Snail Sprint! table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: the track, towers, tin walls, podium, the dice, whose turn it is,
the last moves and, at the end, every race card with its points and the winner. Race cards are
face down during the game. A seat's view (`seat`) is the same table with that seat's own race
card face up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from snail_envs.core.picture import (
    Canvas,
    Colour,
    game_over_text,
    seat_name,
    status_text,
    view_title,
)
from snail_envs.snail_sprint.boards import SNAIL_LETTERS
from snail_envs.snail_sprint.rules import (
    LAST_SPACE,
    ON_PODIUM,
    PLACE_POINTS,
    SNAIL_NAMES,
    START,
    TIN,
    Snail,
    SnailSprint,
)

SPACES_PER_ROW = 6
RGB = (
    (236, 200, 30),
    (140, 70, 170),
    (235, 120, 170),
    (60, 160, 70),
    (240, 140, 40),
    (50, 110, 210),
)


def letters(snails: object) -> str:
    return "".join(SNAIL_LETTERS[snail] for snail in sorted(snails))  # type: ignore[call-overload]


def render_ansi(
    game: SnailSprint, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """The table as text: one cell per space, `printed symbols [tower, bottom first]`; the seats
    named by `names` or by agent id (`seat_name`)."""
    options = game.options
    lines = [
        f"Snail Sprint!  board {options.board if isinstance(options.board, str) else 'custom'}, "
        f"tin {options.tin_order}, {game.num_players} players, turn {game.turns_played + 1}",
        f"start: [{''.join(SNAIL_LETTERS[s] for s in game.stacks[START])}]",
    ]
    cells = []
    for space in range(1, LAST_SPACE + 1):
        kind = "|" if game.holds_one[space] else ("^" if space in TIN else " ")
        tower = "".join(SNAIL_LETTERS[s] for s in game.stacks[space])
        cells.append(f"{space:>2}{kind}{letters(game.track[space]):<3}[{tower:<3}]")
    for row in range(0, len(cells), SPACES_PER_ROW):
        lines.append("  ".join(cells[row : row + SPACES_PER_ROW]))
    podium = ", ".join(
        f"{place + 1}. {SNAIL_NAMES[snail]}" for place, snail in enumerate(game.podium)
    )
    lines.append(f"podium: {podium or '-'}")
    for mover, snail, target in game.recent_moves:
        place = game.podium.index(snail) + 1 if target == ON_PODIUM else 0
        where = f"onto podium place {place}" if place else f"to {target}"
        lines.append(f"{seat_name(mover, names)} moved the {SNAIL_NAMES[snail]} snail {where}")
    if game.outcome is not None:
        for holder, card in enumerate(game.race_cards):
            lines.append(
                f"{seat_name(holder, names)}: card {letters(card)}, {game.card_points(card)} points"
            )
        lines.append(game_over_text(game.outcome, names))
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    elif game.dice is not None:
        dice = " + ".join(SNAIL_NAMES[symbol].split()[1] for symbol in game.dice)
        lines.append(f"{seat_name(game.turn, names)} rolled {dice}")
    if seat is not None and game.outcome is None:
        lines.append(f"{seat_name(seat, names, seat)}: {game.private_text(seat)}")
    lines.append(
        "legend: | tin wall (one snail), ^ tin top, [tower bottom→top]; "
        f"points per place {PLACE_POINTS}"
    )
    return "\n".join(lines)


CELL = 64
MARGIN = 16
PER_ROW = 7
TRACK_ROWS = -(-(LAST_SPACE + 1) // PER_ROW)
PANEL_X = MARGIN * 2 + CELL * PER_ROW
PANEL_W = 300
WIDTH = PANEL_X + PANEL_W
LEGEND_Y = MARGIN + CELL * TRACK_ROWS + 8
HEIGHT = LEGEND_Y + 56
PAPER = (250, 246, 235)
INK = (40, 40, 40)
HIGHLIGHT = (255, 236, 150)
BOARD, TIN_TOP_FILL, WALL_FILL = (235, 225, 200), (225, 225, 238), (196, 196, 210)
PODIUM_FILL = (255, 250, 225)


def draw_symbol(draw: Any, symbol: int, cx: float, cy: float, r: float, fill: Colour) -> None:
    """A snail's symbol centred on (cx, cy), `r` pixels from the centre to its edge: star,
    flower, circle, cloverleaf, triangle, square."""
    if symbol == Snail.STAR:
        points = [
            (
                cx + (r if k % 2 == 0 else 0.45 * r) * math.sin(math.pi * k / 5),
                cy - (r if k % 2 == 0 else 0.45 * r) * math.cos(math.pi * k / 5),
            )
            for k in range(10)
        ]
        draw.polygon(points, fill=fill)
    elif symbol == Snail.FLOWER:
        petal = 0.38 * r
        for k in range(5):
            px = cx + (r - petal) * math.sin(2 * math.pi * k / 5)
            py = cy - (r - petal) * math.cos(2 * math.pi * k / 5)
            draw.ellipse((px - petal, py - petal, px + petal, py + petal), fill=fill)
        draw.ellipse((cx - petal, cy - petal, cx + petal, cy + petal), fill=fill)
    elif symbol == Snail.CIRCLE:
        draw.ellipse((cx - 0.8 * r, cy - 0.8 * r, cx + 0.8 * r, cy + 0.8 * r), fill=fill)
    elif symbol == Snail.CLOVERLEAF:
        leaf = 0.42 * r
        for dx, dy in ((0, -0.5), (-0.5, 0.2), (0.5, 0.2)):
            lx, ly = cx + dx * r, cy + dy * r
            draw.ellipse((lx - leaf, ly - leaf, lx + leaf, ly + leaf), fill=fill)
        draw.line((cx, cy, cx + 0.2 * r, cy + r), fill=fill, width=max(1, round(r / 5)))
    elif symbol == Snail.TRIANGLE:
        draw.polygon(
            ((cx, cy - r), (cx + 0.9 * r, cy + 0.7 * r), (cx - 0.9 * r, cy + 0.7 * r)), fill=fill
        )
    else:
        side = 0.75 * r
        draw.rectangle((cx - side, cy - side, cx + side, cy + side), fill=fill)


def draw_snail(draw: Any, snail: int, cx: float, cy: float, r: float) -> None:
    """A snail as a disc of its colour with its symbol in white."""
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=RGB[snail], outline=(0, 0, 0))
    draw_symbol(draw, snail, cx, cy, 0.62 * r, (255, 255, 255))


def draw_die(draw: Any, symbol: int, x: float, y: float, size: float) -> None:
    """A die showing `symbol`: the symbol in its snail's colour on a white face."""
    draw.rounded_rectangle(
        (x, y, x + size, y + size), 6, fill=(255, 255, 255), outline=(0, 0, 0), width=2
    )
    draw_symbol(draw, symbol, x + size / 2, y + size / 2, 0.36 * size, RGB[symbol])


def _cell(space: int) -> tuple[int, int]:
    row, col = divmod(space, PER_ROW)
    return MARGIN + col * CELL, MARGIN + row * CELL


def render_rgb(
    game: SnailSprint, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The track as a grid of spaces (printed symbols small, top right; snails as discs showing
    their symbols, towers bottom first), the podium, and a panel: whose turn, the dice, the last
    moves, the race cards (face down until the end, except `seat`'s own) with their points, and
    a legend. The seats are named as in `render_ansi`."""
    canvas = Canvas(WIDTH, HEIGHT, PAPER)
    draw = canvas.draw
    for space in range(LAST_SPACE + 1):
        x, y = _cell(space)
        fill = WALL_FILL if game.holds_one[space] else (TIN_TOP_FILL if space in TIN else BOARD)
        draw.rectangle((x + 2, y + 2, x + CELL - 2, y + CELL - 2), fill=fill, outline=(90, 80, 60))
        canvas.text(x + 5, y + 4, "start" if space == START else str(space), INK, 11)
        for i, symbol in enumerate(sorted(game.track[space])):
            draw_symbol(draw, symbol, x + CELL - 11 - 13 * i, y + 11, 6, RGB[symbol])
        for level, snail in enumerate(game.stacks[space]):
            if space == START:
                row, col = divmod(level, 3)
                cx, cy = x + 13 + 19 * col, y + 30 + 19 * row
            else:
                cx, cy = x + CELL // 2, y + CELL - 14 - 8 * level
            draw_snail(draw, snail, cx, cy, 9)
    _draw_podium(canvas, game)
    _draw_panel(canvas, game, seat, names)
    entries: list = [
        (lambda d, x, y, size, s=s: draw_snail(d, s, x + size / 2, y + size / 2, size / 2), name)
        for s, name in enumerate(SNAIL_NAMES)
    ]
    entries += [(BOARD, "board"), (TIN_TOP_FILL, "tin top"), (WALL_FILL, "tin wall: one snail")]
    canvas.legend(MARGIN, LEGEND_Y, entries, INK, WIDTH - 2 * MARGIN)
    return canvas.array()


def _draw_podium(canvas: Canvas, game: SnailSprint) -> None:
    x, y = _cell(LAST_SPACE + 1)
    canvas.text(x + 4, y + 6, "podium", INK, 13)
    canvas.text(x + 4, y + 24, "points on", INK, 11)
    canvas.text(x + 4, y + 38, "race cards", INK, 11)
    for place, points in enumerate(PLACE_POINTS):
        px = x + CELL * (place + 1)
        canvas.draw.rectangle(
            (px + 2, y + 2, px + CELL - 2, y + CELL - 2), fill=PODIUM_FILL, outline=(90, 80, 60)
        )
        canvas.text(px + 5, y + 4, f"{place + 1}.  {points} pts", INK, 11)
        if place < len(game.podium):
            draw_snail(canvas.draw, game.podium[place], px + CELL // 2, y + 40, 13)


def _draw_panel(
    canvas: Canvas, game: SnailSprint, seat: int | None, names: Sequence[str] | None
) -> None:
    draw, x, width = canvas.draw, PANEL_X, PANEL_W - MARGIN
    board = game.options.board if isinstance(game.options.board, str) else "custom"
    details = f"board {board}, tin {game.options.tin_order}, {game.turns_played} rolls played"
    canvas.heading(x, MARGIN, view_title("Snail Sprint!", seat, names), details, INK)
    playing = f"{seat_name(game.turn, names, seat)} to play"
    status = status_text(game.outcome, game.truncated, playing, names)
    y = canvas.headline(x, MARGIN + 40, width, status, HIGHLIGHT, INK)
    if game.dice is not None:
        roll = "rolled" if game.outcome is None and not game.truncated else "last roll"
        canvas.text(x, y + 12, f"{seat_name(game.turn, names)} {roll}", INK, 12)
        for i, symbol in enumerate(game.dice):
            draw_die(draw, symbol, x + 150 + 46 * i, y, 40)
    y += 50
    canvas.text(x, y, "last moves:", INK, 12)
    y += 16
    moves = [_move_text(game, move, names) for move in game.recent_moves[-3:]] or ["none yet"]
    for move in moves:
        y = canvas.lines(x + 8, y, move, INK, width - 8, 2, 11)
    y = max(y, MARGIN + 200)
    canvas.text(x, y, "race cards (points when the podium fills):", INK, 12)
    y += 18
    for other in range(game.num_players):
        if other == game.turn and game.outcome is None and not game.truncated:
            draw.rectangle((x - 4, y - 2, x + width, y + 26), fill=HIGHLIGHT)
        canvas.text(x, y + 6, seat_name(other, names, seat), INK, 12)
        card = game.race_cards[other]
        shown = game.outcome is not None or other == seat
        for i in range(3):
            cx = x + 110 + 26 * i
            if shown and i < len(card):
                draw_snail(draw, sorted(card)[i], cx, y + 12, 11)
            elif not shown:
                draw.rounded_rectangle(
                    (cx - 10, y, cx + 10, y + 24), 3, fill=(120, 90, 60), outline=(0, 0, 0)
                )
        if shown:
            points = game.card_points(card)
            won = game.outcome is not None and other in game.outcome.winners
            note = "  won" if won else ("" if game.outcome is not None else " so far")
            canvas.text(x + 194, y + 6, f"{points} pts{note}", INK, 12)
        y += 32
    if seat is None and game.outcome is None:
        canvas.text(x, y + 2, "race cards stay face down until the end", INK, 11)


def _move_text(game: SnailSprint, move: tuple[int, int, int], names: Sequence[str] | None) -> str:
    mover, snail, target = move
    if target == ON_PODIUM:
        where = f"onto podium place {game.podium.index(snail) + 1}"
    else:
        where = f"to space {target}"
    return f"{seat_name(mover, names)} moved the {SNAIL_NAMES[snail]} snail {where}"
