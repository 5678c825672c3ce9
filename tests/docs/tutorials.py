"""Running a tutorial script of docs/tutorials and checking what it printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"


@dataclass(frozen=True)
class Expect:
    """A line the tutorial prints (`pattern`) and, where `pattern` has a group, the number in it
    and what that number must satisfy (`holds`, said in words by `meaning`)."""

    pattern: str
    holds: Callable[[float], bool] | None = None
    meaning: str = ""


@dataclass(frozen=True)
class Tutorial:
    script: str
    arguments: list[str] = field(default_factory=list)
    expects: list[Expect] = field(default_factory=list)


class TutorialFailed(AssertionError):
    """A tutorial whose printed result does not hold: names the tutorial and the number."""


def run_tutorial(tutorial: Tutorial, folder: Path, timeout: float = 120) -> str:
    """Run the script from the repository root at its tiny budget; its output, once every
    expected number holds (else `TutorialFailed` naming the tutorial and the number)."""
    arguments = [argument.format(tmp=folder) for argument in tutorial.arguments]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(TUTORIALS / tutorial.script), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    if done.returncode != 0:
        raise TutorialFailed(f"{tutorial.script} exited with {done.returncode}:\n{done.stderr}")
    for expect in tutorial.expects:
        found = re.search(expect.pattern, done.stdout)
        if found is None:
            raise TutorialFailed(
                f"{tutorial.script}: printed no line matching {expect.pattern!r}:\n{done.stdout}"
            )
        if expect.holds is None:
            continue
        number = float(found.group(1))
        if not expect.holds(number):
            raise TutorialFailed(
                f"{tutorial.script}: {found.group(0)!r}: {number:g} is not {expect.meaning}"
            )
    return done.stdout
