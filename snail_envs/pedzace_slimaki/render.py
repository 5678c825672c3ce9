"""Pictures of a Pędzące Ślimaki table: text (`ansi`) and an RGB image (`rgb_array`, Pillow).

Both show what a spectator sees: leaves, mushrooms, snails, the dice rolled and set aside, whose
turn it is, the last move, everyone's points and, at the end, the winner. Cards stay face down
during a race; a finished race shows the revealed cards. A seat's view (`seat`) is the same table
with that seat's own card face up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from snail_envs.core.picture import (
    Canvas,
    Colour,
    LegendEntry,
    font,
    game_over_text,
    seat_name,
    status_text,
    view_title,
)
from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    COLOURS,
    LETTERS,
    NOT_ROLLED,
    SNAIL_FACE,
    START,
    PedzaceSlimaki,
    RaceResult,
)

LEAVES_PER_ROW = 7
LEGEND = " ".join(f"{letter} {colour}" for letter, colour in zip(LETTERS, COLOURS, strict=True))


def letters(snails: object) -> str:
    return "".join(LETTERS[snail] for snail in snails)  # type: ignore[attr-defined]


def face_text(face: int) -> str:
    return "snail" if face == SNAIL_FACE else str(face)


def describe_move(move: tuple, names: Sequence[str] | None) -> str:
    """The last move in words, its player named by `names` or by agent id (`seat_name`)."""
    if len(move) == 1:
        return f"{seat_name(move[0], names)} could use no die and passed the dice on"
    seat, die, face, origin, target, pushed, gained = move
    text = (
        f"{seat_name(seat, names)} used the {COLOURS[die]} die ({face_text(face)}): "
        f"{COLOURS[die]} snail leaf {origin} -> {target}"
    )
    if pushed:
        text += f", pushed {', '.join(COLOURS[s] for s in pushed)}"
    if gained:
        text += f", +{gained} point{'s' if gained > 1 else ''}"
    return text


def describe_race(result: RaceResult, names: Sequence[str] | None) -> str:
    cards = ", ".join(
        f"{seat_name(seat, names)} {letters(card)} +{points}"
        for seat, (card, points) in enumerate(zip(result.cards, result.card_points, strict=True))
    )
    places = " ".join(
        f"{LETTERS[snail]}{points}" for snail, points in enumerate(result.snail_points)
    )
    return (
        f"race {result.race + 1}: {COLOURS[result.winner]} snail won; place points {places}; "
        f"cards {cards}"
    )


def render_ansi(
    game: PedzaceSlimaki, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """The table as text: one cell per leaf, `leaf (m = mushroom) [snails]`; the seats named by
    `names` or by agent id (`seat_name`)."""
    options = game.options
    lines = [
        f"Pędzące Ślimaki  race {game.race + 1}/{options.rounds}, {game.num_players} players, "
        f"turn {game.turns_played + 1}" + (", snail face backwards" if game.backwards else ""),
        f"start: [{letters(s for s in ALL_DICE if game.leaf[s] == START)}]",
    ]
    cells = []
    for leaf in range(1, game.last_leaf + 1):
        kind = "m" if game.is_mushroom[leaf] else ("*" if leaf == game.last_leaf else " ")
        here = letters(s for s in ALL_DICE if game.leaf[s] == leaf)
        cells.append(f"{leaf:>2}{kind}[{here:<5}]")
    for row in range(0, len(cells), LEAVES_PER_ROW):
        lines.append(" ".join(cells[row : row + LEAVES_PER_ROW]))
    points = ", ".join(
        f"{seat_name(other, names)} {total}" for other, total in enumerate(game.scores)
    )
    lines.append(f"points: {points}")
    for result in game.race_results:
        lines.append(describe_race(result, names))
    if game.last_move is not None:
        lines.append(f"last move: {describe_move(game.last_move, names)}")
    if game.outcome is not None:
        lines.append(game_over_text(game.outcome, names))
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    else:
        rolled = ", ".join(
            f"{COLOURS[die]} {face_text(game.faces[die])}" for die in ALL_DICE if game.faces[die]
        )
        aside = ", ".join(COLOURS[die] for die in ALL_DICE if game.set_aside[die]) or "-"
        lines.append(f"{seat_name(game.turn, names)} rolled {rolled}; set aside: {aside}")
    if seat is not None and game.outcome is None:
        lines.append(f"{seat_name(seat, names, seat)}: {game.private_text(seat)}")
    lines.append(f"legend: m mushroom, * last leaf, snails {LEGEND}")
    return "\n".join(lines)


CELL = 72
MARGIN = 16
PANEL_X = MARGIN * 2 + CELL * LEAVES_PER_ROW
PANEL_W = 310
LEGEND_H = 50
DIE = 50
RGB = ((50, 110, 210), (60, 160, 70), (236, 200, 30), (140, 70, 170), (215, 50, 50))
PAPER = (250, 246, 235)
INK = (40, 40, 40)
HIGHLIGHT = (255, 236, 150)
LEAF, LEAF_EDGE, LAST_LEAF_EDGE = (150, 200, 110), (40, 90, 40), (200, 150, 20)
MUSHROOM = (200, 40, 40)
SET_ASIDE_FILL = (215, 212, 205)


def _faded(colour: Colour) -> Colour:
    return (
        (colour[0] + 2 * 235) // 3,
        (colour[1] + 2 * 235) // 3,
        (colour[2] + 2 * 235) // 3,
    )


def _pip_ink(die: int) -> Colour:
    return INK if COLOURS[die] == "yellow" else (255, 255, 255)


def draw_snail_face(draw: Any, cx: float, cy: float, size: float, ink: Colour) -> None:
    """The die's snail face: a shell with its spiral on a body."""
    draw.ellipse((cx - size, cy + 0.2 * size, cx + size, cy + 0.7 * size), fill=ink)
    shell = 0.6 * size
    draw.ellipse((cx - shell, cy - 0.7 * size, cx + shell, cy + 0.5 * size), outline=ink, width=3)
    draw.ellipse((cx - 0.2 * size, cy - 0.3 * size, cx + 0.2 * size, cy + 0.1 * size), fill=ink)


def draw_die(draw: Any, die: int, face: int, x: float, y: float, faded: bool) -> None:
    """Die `die` at (x, y): its colour, and its face (pips or the snail) unless `face` is
    NOT_ROLLED; faded when set aside."""
    fill = _faded(RGB[die]) if faded else RGB[die]
    draw.rounded_rectangle((x, y, x + DIE, y + DIE), 8, fill=fill, outline=INK, width=2)
    if face == SNAIL_FACE:
        draw_snail_face(draw, x + DIE / 2, y + DIE / 2, DIE * 0.3, _pip_ink(die))
    elif face:
        for px, py in PIPS[face]:
            cx, cy = x + DIE * px, y + DIE * py
            draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=_pip_ink(die))


PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.28, 0.28), (0.72, 0.72)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
}


def draw_snail(draw: Any, snail: int, cx: float, cy: float, r: float) -> None:
    """A snail as a disc of its colour, with its colour's letter."""
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=RGB[snail], outline=(0, 0, 0))
    draw.text((cx, cy), LETTERS[snail], fill=_pip_ink(snail), font=font(int(r * 1.3)), anchor="mm")


def _leaf_rows(game: PedzaceSlimaki) -> int:
    return (game.last_leaf + LEAVES_PER_ROW) // LEAVES_PER_ROW


def render_rgb(
    game: PedzaceSlimaki, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The leaves as a winding path (start top left; mushrooms as red caps, the last leaf
    ringed gold), snails as discs, the five dice (rolled ones with their faces, set-aside ones
    faded), and a panel: whose turn or who won, the last move, every seat's points and card
    (face down during a race, except `seat`'s own), finished races, and a legend. The seats are
    named as in `render_ansi`."""
    board_h = MARGIN + CELL * _leaf_rows(game)
    width = PANEL_X + PANEL_W
    height = max(board_h + 170, MARGIN + 250 + 34 * game.num_players + 48 * game.options.rounds)
    canvas = Canvas(width, height, PAPER)
    _draw_leaves(canvas, game)
    _draw_dice(canvas, game, board_h + 8, names)
    _draw_panel(canvas, game, seat, names, PANEL_X)
    legend: list[LegendEntry] = [
        (
            lambda d, x, y, size: d.pieslice(
                (x, y, x + size, y + 2 * size), 180, 360, fill=MUSHROOM
            ),
            "mushroom: +1 point, pushes nobody",
        ),
        (
            lambda d, x, y, size: d.ellipse(
                (x, y, x + size, y + size), outline=LAST_LEAF_EDGE, width=3
            ),
            f"last leaf {game.last_leaf}: the race ends",
        ),
        ((RGB[0]), "bright die: rolled, choose one"),
        (_faded(RGB[0]), "faded: set aside"),
        (
            lambda d, x, y, size: draw_snail_face(d, x + size / 2, y + size / 2, size / 2, INK),
            "snail face: " + ("2 leaves back" if game.backwards else "2 leaves, die stays"),
        ),
    ]
    canvas.legend(MARGIN, height - LEGEND_H, legend, INK, CELL * LEAVES_PER_ROW)
    return canvas.array()


def _draw_leaves(canvas: Canvas, game: PedzaceSlimaki) -> None:
    draw = canvas.draw
    for leaf in range(game.last_leaf + 1):
        row, col = divmod(leaf, LEAVES_PER_ROW)
        if row % 2:
            col = LEAVES_PER_ROW - 1 - col
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        last = leaf == game.last_leaf
        draw.ellipse(
            (x + 3, y + 8, x + CELL - 3, y + CELL - 8),
            fill=LEAF,
            outline=LAST_LEAF_EDGE if last else LEAF_EDGE,
            width=4 if last else 2,
        )
        canvas.centred(x + CELL // 2, y + 20, "start" if leaf == START else str(leaf), INK, 11)
        if game.is_mushroom[leaf]:
            draw.pieslice((x + CELL - 26, y + 4, x + CELL - 6, y + 24), 180, 360, fill=MUSHROOM)
            draw.rectangle((x + CELL - 19, y + 14, x + CELL - 13, y + 22), fill=(245, 235, 215))
        here = [s for s in ALL_DICE if game.leaf[s] == leaf]
        for i, snail in enumerate(here):
            draw_snail(draw, snail, x + 13 + 11.5 * i, y + CELL // 2 + 9, 8)


def _draw_dice(canvas: Canvas, game: PedzaceSlimaki, y: int, names: Sequence[str] | None) -> None:
    over = game.outcome is not None or game.truncated
    for die in ALL_DICE:
        x = MARGIN + die * (DIE + 22)
        face = NOT_ROLLED if over else game.faces[die]
        aside = game.set_aside[die] and not over
        draw_die(canvas.draw, die, face, x, y, aside)
        canvas.centred(x + DIE / 2, y + DIE + 10, COLOURS[die], INK, 11)
        state = "set aside" if aside else ("rolled" if face else "")
        canvas.centred(x + DIE / 2, y + DIE + 24, state, INK, 11)
    if not over and game.turn is not None:
        canvas.text(
            MARGIN + 5 * (DIE + 22), y + 8, f"dice of {seat_name(game.turn, names)}", INK, 12
        )
        canvas.text(
            MARGIN + 5 * (DIE + 22), y + 24, f"race {game.race + 1}/{game.options.rounds}", INK, 12
        )


def _draw_panel(
    canvas: Canvas, game: PedzaceSlimaki, seat: int | None, names: Sequence[str] | None, x: int
) -> None:
    draw, width = canvas.draw, PANEL_W - MARGIN
    details = f"race {game.race + 1} of {game.options.rounds}, turn {game.turns_played + 1}"
    canvas.heading(x, MARGIN, view_title("Pędzące Ślimaki", seat, names), details, INK)
    playing = f"{seat_name(game.turn, names, seat)} to play"
    status = status_text(game.outcome, game.truncated, playing, names)
    y = canvas.headline(x, MARGIN + 40, width, status, HIGHLIGHT, INK)
    canvas.text(x, y, "last move:", INK, 12)
    last = describe_move(game.last_move, names) if game.last_move is not None else "none yet"
    canvas.lines(x + 8, y + 16, last, INK, width - 8, 3, 11)
    y += 70
    canvas.text(x, y, "points and cards (5 first, 2 second, 3 last):", INK, 12)
    y += 20
    for other, total in enumerate(game.scores):
        if other == game.turn and game.outcome is None and not game.truncated:
            draw.rectangle((x - 4, y - 3, x + width, y + 25), fill=HIGHLIGHT)
        canvas.text(x, y + 5, seat_name(other, names, seat), INK, 12)
        won = game.outcome is not None and other in game.outcome.winners
        canvas.text(x + 110, y + 5, f"{total} pts" + ("  won" if won else ""), INK, 12)
        if other == seat or game.outcome is not None:
            for i, snail in enumerate(game.cards[other]):
                draw_snail(draw, snail, x + 222 + 22 * i, y + 11, 10)
        else:
            draw.rounded_rectangle(
                (x + 210, y, x + 256, y + 22), 4, fill=(120, 90, 60), outline=INK
            )
        y += 34
    y += 4
    for result in game.race_results:
        y = canvas.lines(x, y, describe_race(result, names), INK, width, 3, 11) + 4
