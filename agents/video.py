"""Animations of a game: one picture of the table per decision, as a GIF or an MP4 video.

Each picture is shown for `FRAME_SECONDS`. A GIF is written with Pillow (the `render` extra),
which stores identical consecutive pictures (the seats of one Snap reaction window deciding on
an unchanged table, say) as one frame shown as long as all of them: the count of frames written
is read back from the file, and may be smaller than the count of pictures. An MP4 is written with
imageio and its ffmpeg plugin, imageio-ffmpeg, which ships an ffmpeg binary (the `video` extra),
one video frame per picture. Both are written atomically (`snail_envs.agents.files.atomic_path`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from snail_envs.agents.files import atomic_path

FRAME_SECONDS = 0.7
"""How long each picture of the table is shown."""

VIDEO_HINT = "MP4 videos need imageio and imageio-ffmpeg: pip install 'snail_envs[video]'"


def require_video() -> None:
    """Raise `ModuleNotFoundError` saying what to install when the `video` extra is missing."""
    for module in ("imageio", "imageio_ffmpeg"):
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"{VIDEO_HINT} ({module} is not installed)", name=module)


def write_gif(path: str | Path, pictures: Sequence[np.ndarray], overwrite: bool = False) -> int:
    """Write `pictures` (HxWx3 uint8) as a looping GIF at `path`; returns how many frames the
    file holds (identical consecutive pictures make one longer frame)."""
    from PIL import Image

    images = [Image.fromarray(picture) for picture in pictures]
    with atomic_path(path, overwrite) as temporary:
        images[0].save(
            temporary,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=round(1000 * FRAME_SECONDS),
            loop=0,
        )
        with Image.open(temporary) as written:
            return written.n_frames


def write_mp4(path: str | Path, pictures: Sequence[np.ndarray], overwrite: bool = False) -> int:
    """Write `pictures` (HxWx3 uint8) as an H.264 MP4 video at `path`, one video frame per
    picture; returns the count of frames. Pictures of odd width or height get one more column or
    row (a copy of the last), as the video's colour format needs even sizes."""
    require_video()
    import imageio.v2 as imageio

    with atomic_path(path, overwrite) as temporary:
        writer = imageio.get_writer(
            temporary, format="FFMPEG", fps=1 / FRAME_SECONDS, macro_block_size=2
        )
        try:
            for picture in pictures:
                writer.append_data(_even(picture))
        finally:
            writer.close()
    return len(pictures)


def written(path: str | Path, frames: int, pictures: int) -> str:
    """The line a command prints for an animation it wrote."""
    merged = (
        " (identical pictures in a row make one frame, shown longer)" if frames < pictures else ""
    )
    return f"wrote {path}: {pictures} pictures of the table in {frames} frames{merged}"


def _even(picture: np.ndarray) -> np.ndarray:
    height, width = picture.shape[:2]
    return np.pad(picture, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")
