"""The files of a stage that trains round after round, in a run folder, from which a resumed run
goes on at the next round (the `expert_iteration` and `advantage` stages).

`<run>/<stage>/` holds, at the stage's start, the network it starts from (`round_0.pt`, a `ppo:`
agent, weights only, with its `.json`); after each round k the network then (`round_<k>.pt`) and
the round's states and labels (`round_<k>.npz`: numbers only, loaded without pickles); and
`state.json`: the rounds done, their reports, the run's progress. Every file is written
atomically, `state.json` last, so that it names only rounds whose files are whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

STATE_FILE = "state.json"
RESUMABLE_SETTINGS = ("rounds",)
"""The settings of a stage of rounds that a resumed run may change."""


@dataclass
class StageState:
    """Where the stage stands in a run folder (`state.json`)."""

    rounds_done: int
    """The rounds finished (0: the stage has begun, from the network of `round_0.pt`)."""
    reports: list[dict[str, Any]]
    """Each round's report, as a mapping."""
    progress: dict[str, Any]
    """The run's progress after the last round (`snail_envs.training.checkpoints.Progress`)."""


def round_seed(seed: int, round_: int) -> int:
    """The seed of round `round_`'s games, labels and training, from the run's `seed`."""
    return seed * 1000 + round_


def fixed_settings(settings: Any) -> dict[str, Any]:
    """The settings (a stage's config dataclass) a resumed stage must keep: all but
    `RESUMABLE_SETTINGS`."""
    return {
        name: value for name, value in asdict(settings).items() if name not in RESUMABLE_SETTINGS
    }


class RoundStore:
    """The files of the stage `stage` in a run folder, `<run>/<stage>/` (see the module
    docstring). A round's states are saved as named arrays, every one of `data_fields`."""

    def __init__(
        self,
        run_dir: Path,
        stage: str,
        env_name: str,
        env_options: dict[str, Any],
        data_fields: tuple[str, ...],
    ) -> None:
        self.folder = Path(run_dir) / stage
        self.stage = stage
        self.env_name = env_name
        self.env_options = env_options
        self.data_fields = data_fields
        self.format = f"snail_envs.{stage}_state/1"

    def policy_path(self, round_: int) -> Path:
        return self.folder / f"round_{round_}.pt"

    def data_path(self, round_: int) -> Path:
        return self.folder / f"round_{round_}.npz"

    def exists(self) -> bool:
        return (self.folder / STATE_FILE).is_file()

    def save(
        self,
        state: StageState,
        settings: Any,
        policy: Any = None,
        data: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """Save the stage's state (with its `settings`) and, first, the network after round
        `state.rounds_done` (round 0: the one the stage starts from) and that round's states."""
        from snail_envs.agents.files import atomic_path, write_text
        from snail_envs.agents.ppo import save_policy

        self.folder.mkdir(parents=True, exist_ok=True)
        done = state.rounds_done
        if policy is not None:
            path = self.policy_path(done)
            save_policy(path, policy, self.env_name, self.env_options, overwrite=True)
        if data is not None:
            with atomic_path(self.data_path(done), overwrite=True) as temporary:
                arrays: dict[str, Any] = {name: data[name] for name in self.data_fields}
                with open(temporary, "wb") as file:
                    np.savez_compressed(file, **arrays)
        description = {
            "format": self.format,
            "env": self.env_name,
            "env_options": self.env_options,
            "settings": fixed_settings(settings),
            **asdict(state),
        }
        write_text(self.folder / STATE_FILE, json.dumps(description, indent=1) + "\n", True)

    def load_state(self, settings: Any) -> StageState:
        """The stage's state, after checking it is of this game, these rule options and these
        settings (but `RESUMABLE_SETTINGS`), and that its latest round's network is there."""
        path = self.folder / STATE_FILE
        try:
            described = json.loads(path.read_text())
        except (OSError, ValueError, RecursionError) as problem:
            reason = "nested too deeply" if isinstance(problem, RecursionError) else problem
            raise ValueError(f"{path} cannot be read as the stage's state: {reason}") from None
        if not isinstance(described, dict) or described.pop("format", None) != self.format:
            raise ValueError(f"{path} is not the state of an {self.stage} stage")
        theirs = (described.pop("env", None), described.pop("env_options", None))
        if theirs != (self.env_name, self.env_options):
            raise ValueError(
                f"{path} is of a run of {theirs[0]} {theirs[1]}, not of this run's "
                f"{self.env_name} {self.env_options}"
            )
        self._check_settings(path, described.pop("settings", None), settings)
        try:
            state = StageState(**described)
        except TypeError as problem:
            raise ValueError(f"{path} lacks or garbles {problem}") from None
        done = state.rounds_done
        if not isinstance(done, int) or done < 0 or not isinstance(state.progress, dict):
            raise ValueError(f"{path} garbles the rounds done ({done!r}) or the run's progress")
        if not isinstance(state.reports, list) or len(state.reports) != done:
            raise ValueError(f"{path} does not report each of its {done} rounds done")
        if not self.policy_path(done).is_file():
            raise FileNotFoundError(
                f"{path} says the stage has done {done} rounds, but the network of round "
                f"{done} is missing: no {self.policy_path(done)}"
            )
        return state

    def _check_settings(self, path: Path, saved: Any, settings: Any) -> None:
        """A `ValueError` naming the settings that differ from the saved ones, but those a
        resumed run may change."""
        fixed = fixed_settings(settings)
        if saved == fixed:
            return
        changed = sorted(
            name
            for name in fixed
            if not isinstance(saved, dict) or saved.get(name) != getattr(settings, name)
        )
        raise ValueError(
            f"{path} was written with other {self.stage} settings than this run's "
            f"({', '.join(changed) or 'unreadable'}); only "
            f"{', '.join(f'{self.stage}.{n}' for n in RESUMABLE_SETTINGS)} may change"
        )

    def load_policy(self, round_: int) -> Any:
        from snail_envs.agents.ppo import load_policy

        return load_policy(self.policy_path(round_), self.env_name)

    def load_data(self, round_: int) -> dict[str, np.ndarray]:
        """Round `round_`'s states, by name (numbers only: no pickle is loaded)."""
        path = self.data_path(round_)
        if not path.is_file():
            raise FileNotFoundError(f"the states of round {round_} are missing: no {path}")
        with np.load(path, allow_pickle=False) as arrays:
            missing = sorted(set(self.data_fields) - set(arrays.files))
            if missing:
                raise ValueError(f"{path} lacks {', '.join(missing)}")
            return {name: arrays[name] for name in self.data_fields}
