"""What a stage of `snail-train` is (`Stage`), what it works on (`RunContext`), and what it
hands back to the run (`Outcome`, `Resumption`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from snail_envs.training.checkpoints import Progress
from snail_envs.training.config import TrainConfig

if TYPE_CHECKING:
    from snail_envs.training.curve import LearningCurve
    from snail_envs.training.display import Display
    from snail_envs.training.interrupts import StopRequests
    from snail_envs.training.opponents import SelfPlayPolicy, SelfPlayPool

Overrides = Mapping[str, tuple[Any, str]]
"""A command line's overrides, by field: the value and the text that gave it
(`snail_envs.training.config.parse_overrides`)."""


INIT_FROM = "init_from"
"""What `policy_made_by` of a run's summary says of a policy no stage improved on, that the run
started from (`TrainConfig.init_from`)."""


@dataclass
class RunContext:
    """What the stages of a run share and hand on to each other."""

    config: TrainConfig
    run_dir: Path
    model: Any
    """The learner: a MaskablePPO whose policy is the network every stage trains."""
    pool: SelfPlayPool
    self_play: SelfPlayPolicy | None
    """The self-play pool playing the batched engine's "policy" seats (None: no such seats)."""
    progress: Progress
    curve: LearningCurve
    display: Display
    stop: StopRequests
    checkpoint: Path | None = None
    """The run's latest checkpoint, once a stage has saved or found one."""


@dataclass
class Outcome:
    """How a stage ended."""

    finished: bool
    """False: a stop request cut it short, and the run ends there."""
    policy: Any = None
    """The stage's policy, the run's policy from now on (None: the run keeps the one it had)."""
    kept_start: bool = False
    """Whether that policy is the one the stage started from: the stage did not improve on it,
    and the run's policy is still the one an earlier stage (or `init_from`) made."""


@dataclass
class Resumption:
    """Where a run resumes: in the stage `stage`, from the state it saved."""

    stage: str
    state: Any
    """What the stage saved (its own kind), handed to its `skip` or `run`."""
    progress: Progress
    """The run's progress when the state was saved."""
    finished: bool
    """Whether the stage had finished: the run then goes on with the stage after it."""
    exhausted: str | None
    """Why the stage has nothing left to do, if so: a run that ends with it is refused."""
    announcement: str
    """The line that says where the run resumes."""


class Stage(Protocol):
    """One stage of a run, named in `TrainConfig.stages` (`snail_envs.training.stages`)."""

    name: ClassVar[str]
    """Its name in `TrainConfig.stages`."""
    count: ClassVar[str]
    """What its points of the learning curve count, the key of that count in each point."""
    unit: ClassVar[str]
    """What `count` measures, for the curve's axis ("labelled states")."""
    resumable: ClassVar[tuple[str, ...]]
    """The fields of its settings a resumed run may change."""
    stopping: ClassVar[str]
    """How a stop request (Ctrl-C, SIGTERM) ends it, for `--help`."""

    def describe(self, config: TrainConfig) -> str:
        """What it will do in this run, in a line."""
        ...

    def resume(self, run_dir: Path, config: TrainConfig) -> Resumption | None:
        """Its saved state in `run_dir`, loaded and checked, that a resumed run goes on from
        (None: it saved none)."""
        ...

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        """Refuse (`ValueError`) overrides of its settings that a run resumed in the stage
        `resumed_in` would not use."""
        ...

    def skip(self, context: RunContext, state: Any) -> Outcome:
        """Take up its finished work in a resumed run (`state`: what it saved, where the run
        resumes after it; else None), as it ended."""
        ...

    def run(self, context: RunContext, state: Any) -> Outcome:
        """Train the learner, from the start or, resumed in it, from `state`, to the stage's
        end or a stop request."""
        ...

    def summary(self, context: RunContext) -> dict[str, Any]:
        """Its entries in the run's summary (`summary.json`), also when it did not run."""
        ...

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        """Its lines in the summary shown to people."""
        ...

    def stopped(self, summary: Mapping[str, Any]) -> str:
        """Where a run stopped in it stands, and what to do next, in a line's tail."""
        ...


@contextlib.contextmanager
def timing(progress: Progress, stage: str) -> Iterator[Callable[[], None]]:
    """Count the time of the block as `stage`'s in `progress` (`Progress.spend`): whenever the
    function it yields is called (before a checkpoint records the time), and when it ends."""
    last = time.perf_counter()

    def count() -> None:
        nonlocal last
        now = time.perf_counter()
        progress.spend(stage, now - last)
        last = now

    try:
        yield count
    finally:
        count()
