"""Writing outputs: whole files or none, and never over a file that exists unasked, even when
writers race for one name."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from snail_envs.agents.files import atomic_folder, atomic_path

ROUNDS = 300
WRITERS = 4


def _race(target: Path, write: object) -> list[str]:
    """`WRITERS` threads write `target` at once, each released together once its content is
    ready; what each got: "won" or "refused"."""
    ready = threading.Barrier(WRITERS)
    outcomes: list[str] = []

    def writer(number: int) -> None:
        try:
            write(target, number, ready)  # type: ignore[operator]
            outcomes.append("won")
        except FileExistsError:
            outcomes.append("refused")

    threads = [threading.Thread(target=writer, args=(number,)) for number in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def _write_file(target: Path, number: int, ready: threading.Barrier) -> None:
    with atomic_path(target) as temporary:
        temporary.write_text(f"writer {number}\n" * 1000)
        ready.wait()


def _write_folder(target: Path, number: int, ready: threading.Barrier) -> None:
    with atomic_folder(target) as filling:
        (filling / "part").write_text(f"writer {number}\n")
        ready.wait()


@pytest.mark.parametrize("write", [_write_file, _write_folder], ids=["file", "folder"])
def test_of_writers_racing_for_a_name_exactly_one_wins(tmp_path: Path, write: object) -> None:
    for round_ in range(ROUNDS):
        target = tmp_path / f"out-{round_}"
        outcomes = _race(target, write)
        assert sorted(outcomes) == ["refused"] * (WRITERS - 1) + ["won"], round_
        text = (target / "part" if target.is_dir() else target).read_text()
        assert len(set(text.splitlines())) == 1  # one writer's content, whole
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        f"out-{round_}" for round_ in range(ROUNDS)
    )  # no temporary left behind
