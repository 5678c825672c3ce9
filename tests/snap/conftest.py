"""The `both_engines` fixture: a Snap rule's scenario checks the compiled twin too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from snail_envs.snap.rules import Snap
from tests.snap.engines import CompiledTwin


@pytest.fixture
def both_engines(monkeypatch: pytest.MonkeyPatch) -> Iterator[CompiledTwin]:
    """Every tick that a test plays on a reference Snap game (`Snap.apply`) is played on the
    compiled twin too, from the same table, and checked (`tests.snap.engines`): so that a rule's
    own fast test forces the twin's update."""
    twin = CompiledTwin(Snap.apply)
    monkeypatch.setattr(Snap, "apply", lambda game, actions: twin.apply(game, actions))
    yield twin
