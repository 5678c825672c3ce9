"""Checks on the games' pictures: which region a change of the table changes, and fixed sizes."""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np

from snail_envs.core.testing import deciding_agents, random_legal_action

Box = tuple[int, int, int, int]
"""x0, y0, x1, y1 (x1, y1 excluded)."""


def picture(host: Any, seat: int | None = None) -> np.ndarray:
    """The picture of `host`'s table: a spectator's, or `seat`'s view."""
    return host.spec.render_rgb(host.game, seat)


def region(picture: np.ndarray, box: Box) -> np.ndarray:
    """The pixels of `box` in `picture`."""
    x0, y0, x1, y1 = box
    return picture[y0:y1, x0:x1]


def changed_box(before: np.ndarray, after: np.ndarray) -> Box | None:
    """The smallest box holding every pixel that differs, or None if none does."""
    assert before.shape == after.shape, "a picture changed size"
    rows, columns = np.nonzero(np.any(before != after, axis=2))
    if rows.size == 0:
        return None
    return int(columns.min()), int(rows.min()), int(columns.max()) + 1, int(rows.max()) + 1


def assert_changes_within(before: np.ndarray, after: np.ndarray, region: Box) -> None:
    """Some pixel changed, and every changed pixel lies in `region`."""
    box = changed_box(before, after)
    assert box is not None, "the picture did not change"
    x0, y0, x1, y1 = region
    assert x0 <= box[0] and y0 <= box[1] and box[2] <= x1 and box[3] <= y1, (
        f"pixels changed in {box}, outside {region}"
    )


def colours_in(picture: np.ndarray, region: Box) -> int:
    """How many different colours the region holds (1 for a blank area)."""
    x0, y0, x1, y1 = region
    return len(np.unique(picture[y0:y1, x0:x1].reshape(-1, 3), axis=0))


def assert_distinct_shapes(draw_shape: Any, count: int) -> None:
    """`draw_shape(draw, index, cx, cy, r, fill)` draws `count` shapes, none blank, each told
    apart from every other by its outline alone (drawn in one colour)."""
    from PIL import Image, ImageDraw

    masks = []
    for index in range(count):
        image = Image.new("L", (40, 40))
        draw_shape(ImageDraw.Draw(image), index, 20, 20, 16, 255)
        masks.append(np.asarray(image) > 0)
    assert all(mask.any() for mask in masks)
    for first, second in itertools.combinations(masks, 2):
        assert (first != second).sum() > 20


def assert_fixed_size(make_env: Any, games: int, seed: int = 0, every: int = 7) -> None:
    """Every picture of random games, the spectator's and each seat's, has one size."""
    rng = random.Random(seed)
    env = make_env()
    host = env.unwrapped
    sizes = set()
    for game in range(games):
        env.reset(seed=seed + game)
        for step, _agent in enumerate(deciding_agents(env)):
            if step % every == 0:
                sizes.add(host.spec.render_rgb(host.game, None).shape)
                sizes.add(host.render_seat(env.agents[step % len(env.agents)], "rgb_array").shape)
            observation, *_ = env.last()
            env.step(random_legal_action(observation["action_mask"], rng))
        sizes.add(host.spec.render_rgb(host.game, None).shape)
    assert len(sizes) == 1, f"pictures of several sizes: {sizes}"
