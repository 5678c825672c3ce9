"""Animations of a game: one picture of the table per decision, as a GIF or an MP4 video.

Each picture is shown for `FRAME_SECONDS`, and the last, the end of the game, for
`FINAL_FRAME_SECONDS`, so that a looping GIF lets the result be read before it starts again.
The apps draw the pictures with the seats named by who plays them (`snail_envs.apps.seats`);
given the seats' agents, every picture gets a caption naming them beside their agent ids
(`You: player_0`). A GIF is written with Pillow (the `render` extra), in one palette for all its
frames, which stores identical consecutive pictures (the seats of one Snap reaction window
deciding on an unchanged table, say) as one frame shown as long as all of them: the count of
frames written is read back from the file, and may be smaller than the count of pictures. An MP4
is written with imageio and its ffmpeg plugin, imageio-ffmpeg, which ships an ffmpeg binary (the
`video` extra), one video frame per picture. Both are written atomically
(`snail_envs.agents.files.atomic_path`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents.files import atomic_path
from snail_envs.apps.seats import seat_names

FRAME_SECONDS = 0.7
"""How long each picture of the table is shown."""

FINAL_FRAME_SECONDS = 2.5
"""How long the last picture (the end of the game) is shown in a GIF."""

CAPTION_HEIGHT = 26
"""The height in pixels of the strip under each picture that names the seats' agents."""

VIDEO_HINT = "MP4 videos need imageio and imageio-ffmpeg: pip install 'snail_envs[video]'"


def require_video() -> None:
    """Raise `ModuleNotFoundError` saying what to install when the `video` extra is missing."""
    for module in ("imageio", "imageio_ffmpeg"):
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"{VIDEO_HINT} ({module} is not installed)", name=module)


def write_gif(
    path: str | Path,
    pictures: Sequence[np.ndarray],
    overwrite: bool = False,
    agents: Mapping[str, str] | None = None,
) -> int:
    """Write `pictures` (HxWx3 uint8) as a looping GIF at `path`, the last one held for
    `FINAL_FRAME_SECONDS`, each captioned with the seats' `agents` (agent name: kind) when
    given; returns how many frames the file holds (identical consecutive pictures make one
    longer frame)."""
    from PIL import Image

    images = palette_images([Image.fromarray(picture) for picture in captioned(pictures, agents)])
    durations = [round(1000 * FRAME_SECONDS)] * (len(images) - 1)
    with atomic_path(path, overwrite) as temporary:
        images[0].save(
            temporary,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=[*durations, round(1000 * FINAL_FRAME_SECONDS)],
            loop=0,
        )
        with Image.open(temporary) as written:
            return written.n_frames


def palette_images(images: list[Any]) -> list[Any]:
    """The RGB images in one shared palette of at most 256 colours, drawn from a sample of them
    (the first, the last and every eighth): one palette for the whole GIF, mapped without
    dithering, is several times faster than a palette per frame, and the renderers' flat
    colours fit in it."""
    from PIL import Image

    sample = [*images[:: max(1, len(images) // 8)], images[-1]]
    width = max(image.width for image in sample)
    sheet = Image.new("RGB", (width, sum(image.height for image in sample)), "white")
    top = 0
    for image in sample:
        sheet.paste(image, (0, top))
        top += image.height
    palette = sheet.quantize(256)
    return [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]


def write_mp4(
    path: str | Path,
    pictures: Sequence[np.ndarray],
    overwrite: bool = False,
    agents: Mapping[str, str] | None = None,
) -> int:
    """Write `pictures` (HxWx3 uint8) as an H.264 MP4 video at `path`, one video frame per
    picture, each captioned with the seats' `agents` when given; returns the count of frames.
    Pictures of odd width or height get one more column or
    row (a copy of the last), as the video's colour format needs even sizes."""
    require_video()
    import imageio.v2 as imageio

    with atomic_path(path, overwrite) as temporary:
        writer = imageio.get_writer(
            temporary, format="FFMPEG", fps=1 / FRAME_SECONDS, macro_block_size=2
        )
        try:
            for picture in captioned(pictures, agents):
                writer.append_data(_even(picture))
        finally:
            writer.close()
    return len(pictures)


def captioned(pictures: Sequence[np.ndarray], agents: Mapping[str, str] | None) -> list[np.ndarray]:
    """The pictures, each with a strip below naming who plays each seat (`caption`); the
    pictures themselves when `agents` is None."""
    if agents is None:
        return list(pictures)
    from PIL import Image, ImageDraw

    from snail_envs.core.picture import font

    text = caption(agents)
    width = pictures[0].shape[1]
    strip = Image.new("RGB", (width, CAPTION_HEIGHT), "white")
    ImageDraw.Draw(strip).text((8, 5), text, fill="black", font=font(14))
    below = np.asarray(strip)
    return [np.concatenate([picture, below[:, : picture.shape[1]]]) for picture in pictures]


def caption(agents: Mapping[str, str]) -> str:
    """The caption of a game's pictures: each seat's name, as the apps' pictures show it, and its
    agent id, as the replay and the environment's own output name it (`You: player_0  ·
    heuristic: player_1`), from the seats' agent specs."""
    names = seat_names(list(agents.values()))
    return "  ·  ".join(f"{name}: {agent}" for name, agent in zip(names, agents, strict=True))


def written(path: str | Path, frames: int, pictures: int) -> str:
    """The line a command prints for an animation it wrote."""
    merged = (
        " (identical pictures in a row make one frame, shown longer)" if frames < pictures else ""
    )
    return f"wrote {path}: {pictures} pictures of the table in {frames} frames{merged}"


def _even(picture: np.ndarray) -> np.ndarray:
    height, width = picture.shape[:2]
    return np.pad(picture, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")
