"""Pictures of a Snail Sprint! table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: the track, towers, tin walls, podium and dice. Race cards are
face down during the game and shown once it is over.
"""

from __future__ import annotations

import numpy as np

from snail_envs.snail_sprint.boards import SNAIL_LETTERS
from snail_envs.snail_sprint.rules import (
    LAST_SPACE,
    ON_PODIUM,
    PLACE_POINTS,
    SNAIL_NAMES,
    START,
    TIN,
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


def render_ansi(game: SnailSprint) -> str:
    """The table as text: one cell per space, `printed symbols [tower, bottom first]`."""
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
    for seat, snail, target in game.recent_moves:
        place = game.podium.index(snail) + 1 if target == ON_PODIUM else 0
        where = f"onto podium place {place}" if place else f"to {target}"
        lines.append(f"player_{seat} moved the {SNAIL_NAMES[snail]} snail {where}")
    if game.outcome is not None:
        for seat, card in enumerate(game.race_cards):
            lines.append(f"player_{seat}: card {letters(card)}, {game.card_points(card)} points")
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        lines.append(f"game over ({game.outcome.reason}): won by {winners}")
    elif game.truncated:
        lines.append(f"stopped after {game.turns_played} turns (max_turns)")
    elif game.dice is not None:
        dice = " + ".join(SNAIL_NAMES[symbol].split()[1] for symbol in game.dice)
        lines.append(f"player_{game.turn} rolled {dice}")
    lines.append(
        "legend: | tin wall (one snail), ^ tin top, [tower bottom→top]; "
        f"points per place {PLACE_POINTS}"
    )
    return "\n".join(lines)


CELL = 64
MARGIN = 16


def render_rgb(game: SnailSprint) -> np.ndarray:
    """The track as a grid of spaces: printed symbols as small dots, snails as stacked discs."""
    from PIL import Image, ImageDraw

    per_row = SPACES_PER_ROW + 1
    rows = -(-(LAST_SPACE + 1) // per_row) + 1  # the track, then a row for podium and dice
    width = MARGIN * 2 + CELL * per_row
    height = MARGIN * 2 + CELL * rows
    image = Image.new("RGB", (width, height), (250, 246, 235))
    draw = ImageDraw.Draw(image)
    for space in range(LAST_SPACE + 1):
        row, col = divmod(space, per_row)
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        fill = (
            (200, 200, 210)
            if game.holds_one[space]
            else ((225, 225, 235) if space in TIN else (235, 225, 200))
        )
        draw.rectangle((x + 2, y + 2, x + CELL - 2, y + CELL - 2), fill=fill, outline=(90, 80, 60))
        draw.text((x + 5, y + 4), "S" if space == START else str(space), fill=(40, 40, 40))
        for i, symbol in enumerate(sorted(game.track[space])):
            cx = x + CELL - 12 - 10 * i
            draw.ellipse((cx - 4, y + 6, cx + 4, y + 14), fill=RGB[symbol])
        stack = game.stacks[space]
        for level, snail in enumerate(stack):
            if space == START:
                cx, cy = x + 10 + 9 * level, y + CELL - 14
            else:
                cx, cy = x + CELL // 2, y + CELL - 14 - 9 * level
            draw.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=RGB[snail], outline=(0, 0, 0))
    y = MARGIN + (rows - 1) * CELL
    draw.text((MARGIN, y + 4), "podium", fill=(40, 40, 40))
    for place, snail in enumerate(game.podium):
        cx = MARGIN + CELL + place * CELL + CELL // 2
        draw.ellipse((cx - 12, y + 20, cx + 12, y + 44), fill=RGB[snail], outline=(0, 0, 0))
        draw.text((cx - 3, y + 4), str(place + 1), fill=(40, 40, 40))
    if game.dice is not None and game.outcome is None:
        draw.text(
            (width - MARGIN - 2 * CELL, y + 4), f"player_{game.turn} rolled", fill=(40, 40, 40)
        )
        for i, symbol in enumerate(game.dice):
            x0 = width - MARGIN - 2 * CELL + i * 40
            draw.rectangle((x0, y + 16, x0 + 32, y + 48), fill=(255, 255, 255), outline=(0, 0, 0))
            draw.ellipse((x0 + 8, y + 24, x0 + 24, y + 40), fill=RGB[symbol])
    return np.asarray(image, dtype=np.uint8)
