"""What every game's `rgb_array` picture shares: a canvas with Pillow's scalable font, text that
fits a given width, colour legends, and the status line (whose turn, or who won); and what the
pictures and the text views call each seat (`seat_name`): its agent id, `player_1`, or the name
a caller gives it (`names`: the apps' "You", "heuristic", as `snail_envs.apps.seats` names them).

Pillow is imported when a canvas is made, so that `import snail_envs` stays light. Every picture
of one environment has the same size whatever happens in the game (video writers need fixed
frames): text that would not fit is cut short with an ellipsis, never allowed to grow the image.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from snail_envs.core.game import Outcome

Colour = tuple[int, int, int]
Swatch = Callable[[Any, int, int, int], None]
"""Draws a legend's sample: (ImageDraw, x, y, size) -> None."""
LegendEntry = tuple[Colour | Swatch, str]
"""A legend's sample (a colour or what draws it) and its meaning."""
AGENT_ID = re.compile(r"\bplayer_(\d+)\b")
"""An agent id as the environments write it."""


@cache
def font(size: int) -> Any:
    """DejaVu Sans at `size` pixels where it is installed (it has every letter of the games'
    names), else Pillow's built-in font (one bitmap size only before Pillow 10.1)."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        pass
    try:
        return ImageFont.load_default(size)
    except TypeError:
        return ImageFont.load_default()


class Canvas:
    """An RGB image to draw a table on."""

    def __init__(self, width: int, height: int, background: Colour) -> None:
        from PIL import Image, ImageDraw

        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height

    def text(self, x: float, y: float, text: str, fill: Colour, size: int = 12) -> None:
        self.draw.text((x, y), text, fill=fill, font=font(size))

    def centred(self, x: float, y: float, text: str, fill: Colour, size: int = 12) -> None:
        """`text` centred on the point (x, y)."""
        self.draw.text((x, y), text, fill=fill, font=font(size), anchor="mm")

    def lines(
        self,
        x: float,
        y: float,
        text: str,
        fill: Colour,
        width: float,
        max_lines: int,
        size: int = 12,
    ) -> float:
        """`text` wrapped to `width` pixels on at most `max_lines` lines (the last one cut short
        with an ellipsis if needed); returns the y below the lines used."""
        step = size + 3
        for line in wrap(text, width, max_lines, size):
            self.text(x, y, line, fill, size)
            y += step
        return y

    def heading(self, x: float, y: float, title: str, subtitle: str, ink: Colour) -> None:
        """A title with a line of details under it."""
        self.text(x, y, title, ink, 15)
        self.text(x, y + 20, subtitle, ink, 11)

    def headline(
        self, x: float, y: float, width: float, text: str, band: Colour, ink: Colour
    ) -> float:
        """The status on a band of colour `band`, on up to two lines; returns the y below it."""
        self.draw.rectangle((x - 4, y - 2, x + width, y + 34), fill=band)
        self.lines(x, y, text, ink, width - 4, 2, 13)
        return y + 40

    def legend(
        self,
        x: float,
        y: float,
        entries: Sequence[LegendEntry],
        ink: Colour,
        width: float,
        size: int = 11,
    ) -> float:
        """Samples with their meanings, laid left to right and wrapped at `width`: a colour is a
        filled square, a function draws its own sample. Returns the y below the legend."""
        left, step = x, size + 6
        for sample, meaning in entries:
            extent = size + 6 + self.draw.textlength(meaning, font=font(size)) + 12
            if x > left and x + extent > left + width:
                x, y = left, y + step
            if callable(sample):
                sample(self.draw, int(x), int(y), size + 2)
            else:
                self.draw.rectangle(
                    (x, y, x + size + 2, y + size + 2), fill=sample, outline=(20, 20, 20)
                )
            self.text(x + size + 6, y + 1, meaning, ink, size)
            x += extent
        return y + step

    def array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8)


def wrap(text: str, width: float, max_lines: int, size: int = 12) -> list[str]:
    """`text` in lines of at most `width` pixels, at most `max_lines` of them; an ellipsis ends
    the last line when the text does not fit."""
    measure = font(size).getlength
    lines: list[str] = []
    words = text.split(" ")
    line = ""
    for index, word in enumerate(words):
        candidate = f"{line} {word}" if line else word
        if measure(candidate) <= width or not line:
            line = candidate
            continue
        lines.append(line)
        line = word
        if len(lines) == max_lines:
            rest = " ".join(words[index:])
            return [*lines[:-1], _cut(f"{lines[-1]} {rest}", width, measure)]
    if line:
        lines.append(_cut(line, width, measure) if measure(line) > width else line)
    return lines


def _cut(text: str, width: float, measure: Callable[[str], float]) -> str:
    while text and measure(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def whose_view(seat: int, names: Sequence[str] | None = None) -> str:
    """Whose view a picture or text shows: `player_1's view`, or `seen by You` when the seats
    are named."""
    return f"{seat_name(seat)}'s view" if names is None else f"seen by {names[seat]}"


def view_title(game_title: str, seat: int | None, names: Sequence[str] | None = None) -> str:
    """A picture's title: the game's, and whose view it is (none for a spectator)."""
    return game_title if seat is None else f"{game_title}  {whose_view(seat, names)}"


def seat_name(seat: int, names: Sequence[str] | None = None, viewer: int | None = None) -> str:
    """What the pictures and text views call seat `seat`: `names[seat]` when the caller names
    the seats (the apps: "You", "heuristic"), else its agent id `player_i`, with "(you)" in the
    view of seat i itself (`viewer`); a name is shown as given, since it says who plays the seat
    already (the apps show a person their own view, and call the person "You")."""
    if names is not None:
        return names[seat]
    return f"player_{seat} (you)" if seat == viewer else f"player_{seat}"


def status_text(
    outcome: Outcome | None, truncated: bool, playing: str, names: Sequence[str] | None = None
) -> str:
    """The picture's headline: who won at the end (by `seat_name`), a stopped game, or else
    `playing` (whose turn it is or which window is open)."""
    if outcome is not None:
        shared = " (shared)" if len(outcome.winners) > 1 else ""
        return f"game over: won by {winners_text(outcome, names)}{shared}"
    if truncated:
        return "stopped: the length limit was reached"
    return playing


def winners_text(outcome: Outcome, names: Sequence[str] | None = None) -> str:
    """The winners of a finished game, by `seat_name`, in seat order."""
    return ", ".join(seat_name(seat, names) for seat in sorted(outcome.winners))


def with_names(text: str, names: Sequence[str] | None) -> str:
    """`text` with every agent id of a seat (`player_1`) replaced by that seat's name, `text`
    itself without names: for prose that names seats by agent id (an outcome's reason)."""
    if names is None:
        return text

    def name(found: re.Match[str]) -> str:
        seat = int(found.group(1))
        return names[seat] if seat < len(names) else found.group(0)

    return AGENT_ID.sub(name, text)


def game_over_text(outcome: Outcome, names: Sequence[str] | None = None) -> str:
    """The text views' line for a finished game: why it ended and who won (by `seat_name`)."""
    return f"game over ({with_names(outcome.reason, names)}): won by {winners_text(outcome, names)}"
