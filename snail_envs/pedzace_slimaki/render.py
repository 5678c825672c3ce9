"""Pictures of a Pędzące Ślimaki table: text (`ansi`) and an RGB image (`rgb_array`, Pillow).

Both show what a spectator sees: leaves, mushrooms, snails, the dice rolled and set aside, and
everyone's points. Cards stay face down during a race; a finished race shows the revealed cards.
"""

from __future__ import annotations

import numpy as np

from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    COLOURS,
    LETTERS,
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


def describe_move(move: tuple) -> str:
    """The last move in words."""
    if len(move) == 1:
        return f"player_{move[0]} could use no die and passed the dice on"
    seat, die, face, origin, target, pushed, gained = move
    text = (
        f"player_{seat} used the {COLOURS[die]} die ({face_text(face)}): {COLOURS[die]} snail "
        f"leaf {origin} -> {target}"
    )
    if pushed:
        text += f", pushed {', '.join(COLOURS[s] for s in pushed)}"
    if gained:
        text += f", +{gained} point{'s' if gained > 1 else ''}"
    return text


def describe_race(result: RaceResult) -> str:
    cards = ", ".join(
        f"player_{seat} {letters(card)} +{points}"
        for seat, (card, points) in enumerate(zip(result.cards, result.card_points, strict=True))
    )
    places = " ".join(
        f"{LETTERS[snail]}{points}" for snail, points in enumerate(result.snail_points)
    )
    return (
        f"race {result.race + 1}: {COLOURS[result.winner]} snail won; place points {places}; "
        f"cards {cards}"
    )


def render_ansi(game: PedzaceSlimaki) -> str:
    """The table as text: one cell per leaf, `leaf (m = mushroom) [snails]`."""
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
    lines.append(
        "points: " + ", ".join(f"player_{seat} {total}" for seat, total in enumerate(game.scores))
    )
    for result in game.race_results:
        lines.append(describe_race(result))
    if game.last_move is not None:
        lines.append(f"last move: {describe_move(game.last_move)}")
    if game.outcome is not None:
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        lines.append(f"game over ({game.outcome.reason}): won by {winners}")
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    else:
        rolled = ", ".join(
            f"{COLOURS[die]} {face_text(game.faces[die])}" for die in ALL_DICE if game.faces[die]
        )
        aside = ", ".join(COLOURS[die] for die in ALL_DICE if game.set_aside[die]) or "-"
        lines.append(f"player_{game.turn} rolled {rolled}; set aside: {aside}")
    lines.append(f"legend: m mushroom, * last leaf, snails {LEGEND}")
    return "\n".join(lines)


CELL = 72
MARGIN = 16
RGB = ((50, 110, 210), (60, 160, 70), (236, 200, 30), (140, 70, 170), (215, 50, 50))
BACKGROUND = (250, 246, 235)
INK = (40, 40, 40)


def render_rgb(game: PedzaceSlimaki) -> np.ndarray:
    """The leaves as a winding path (start top left), mushrooms as red caps, snails as coloured
    discs, then the dice: rolled ones bright with their faces, set-aside ones faded."""
    from PIL import Image, ImageDraw

    leaf_rows = (game.last_leaf + LEAVES_PER_ROW) // LEAVES_PER_ROW
    width = MARGIN * 2 + CELL * LEAVES_PER_ROW
    height = MARGIN * 2 + CELL * (leaf_rows + 1) + 20 * (game.num_players + 1)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for leaf in range(game.last_leaf + 1):
        row, col = divmod(leaf, LEAVES_PER_ROW)
        if row % 2:
            col = LEAVES_PER_ROW - 1 - col
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        outline = (200, 150, 20) if leaf == game.last_leaf else (40, 90, 40)
        draw.ellipse(
            (x + 3, y + 8, x + CELL - 3, y + CELL - 8),
            fill=(150, 200, 110),
            outline=outline,
            width=2,
        )
        draw.text((x + CELL // 2 - 6, y + 14), "S" if leaf == START else str(leaf), fill=INK)
        if game.is_mushroom[leaf]:
            draw.pieslice(
                (x + CELL - 26, y + 4, x + CELL - 6, y + 24), 180, 360, fill=(200, 40, 40)
            )
            draw.rectangle((x + CELL - 19, y + 14, x + CELL - 13, y + 22), fill=(245, 235, 215))
        here = [s for s in ALL_DICE if game.leaf[s] == leaf]
        for i, snail in enumerate(here):
            cx, cy = x + 14 + 11 * i, y + CELL // 2 + 6
            draw.ellipse((cx - 7, cy - 7, cx + 7, cy + 7), fill=RGB[snail], outline=(0, 0, 0))
    y = MARGIN + leaf_rows * CELL + 8
    for die in ALL_DICE:
        x = MARGIN + die * (CELL - 8)
        face = game.faces[die]
        faded = game.set_aside[die] or not face or game.outcome is not None
        fill = tuple((c + 2 * 235) // 3 for c in RGB[die]) if faded else RGB[die]
        draw.rounded_rectangle((x, y, x + 44, y + 44), radius=6, fill=fill, outline=(0, 0, 0))
        if face and not game.set_aside[die]:
            draw.text(
                (x + 8, y + 16),
                "snail" if face == SNAIL_FACE else f"  {face}",
                fill=(255, 255, 255),
            )
    draw.text(
        (MARGIN + 5 * (CELL - 8), y + 4), f"race {game.race + 1}/{game.options.rounds}", fill=INK
    )
    draw.text((MARGIN + 5 * (CELL - 8), y + 22), f"to play: player_{game.turn}", fill=INK)
    y += CELL - 8
    for seat, total in enumerate(game.scores):
        marker = ">" if seat == game.turn and game.outcome is None else " "
        won = " (won)" if game.outcome is not None and seat in game.outcome.winners else ""
        draw.text((MARGIN, y + 20 * seat), f"{marker} player_{seat}: {total} points{won}", fill=INK)
    return np.asarray(image, dtype=np.uint8)
