"""Trained networks on disk, safe to load from anyone: weights only, the architecture beside them.

A saved network is two files side by side:

- `NAME.pt`, its weights: a plain dict of name → tensor written by `torch.save`, and read back by
  `torch.load(weights_only=True)`, which builds tensors and plain values (numbers, strings,
  lists, dicts) only and refuses any other object. Loading never runs code from the file.
- `NAME.json`, its description: `format` names the kind of network (and so its loader); the rest
  (the game, the layer sizes) is what the loader builds the network from before it copies the
  weights in, checking every name and shape.

Stable-Baselines3's own archives (`model.zip`, `policy.save`) and RLlib's checkpoints are pickles:
loading one runs whatever code it holds. The library loads such a file only when told to trust it
(`snail_envs.agents.ppo.PPOAgent.load(..., trusted=True)`, `--trust-checkpoint`).
"""

from __future__ import annotations

import json
import pickle
import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snail_envs.agents.files import atomic_path, write_text

DESCRIPTION_SUFFIX = ".json"
MAX_DESCRIPTION_BYTES = 1_000_000
"""The largest description read: a network's is a few hundred bytes."""


def description_path(weights: str | Path) -> Path:
    """The description beside the weights file `weights` (`NAME.pt` → `NAME.json`)."""
    return Path(weights).with_suffix(DESCRIPTION_SUFFIX)


def find_weights(path: str | Path, file_name: str) -> Path:
    """The weights file at `path`: the file itself, or `file_name` inside the folder `path` (a
    run or checkpoint folder). `FileNotFoundError` if there is none."""
    path = Path(path)
    if path.is_dir():
        path = path / file_name
    if not path.is_file():
        raise FileNotFoundError(
            f"no trained policy at {path}: give the {file_name} of a run, or a run or "
            f"checkpoint folder that holds one"
        )
    return path


def save_tensors(path: str | Path, data: Any, overwrite: bool = False) -> Path:
    """Write `data` (tensors in plain dicts, lists and numbers) to `path` with `torch.save`,
    atomically (`snail_envs.agents.files.atomic_path`)."""
    import torch

    with atomic_path(path, overwrite) as temporary:
        torch.save(data, temporary)
    return Path(path)


def load_tensors(path: str | Path) -> Any:
    """What `save_tensors` wrote to `path`, read with `torch.load(weights_only=True)`: tensors
    and plain values only. A file that holds any other object (a pickled class, a function, a
    payload) is refused with a `ValueError` before anything in it runs."""
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as refused:
        reason = str(refused).strip().splitlines()[-1]
        raise ValueError(
            f"{path} holds more than weights, which the library never loads ({reason})"
        ) from None
    except (EOFError, RuntimeError) as unreadable:
        raise ValueError(f"{path} is not a weights file ({unreadable or 'empty'})") from None


def save_network(
    path: str | Path,
    state_dict: Mapping[str, Any],
    description: Mapping[str, Any],
    overwrite: bool = False,
) -> Path:
    """Write a network's weights to `path` and its `description` (with its `format`) beside it.
    The weights go first, each file atomically, so that a description never stands beside
    weights that were not completely written."""
    import torch

    if "format" not in description:
        raise ValueError("a network's description names its format")
    weights = {name: torch.as_tensor(value).detach().cpu() for name, value in state_dict.items()}
    save_tensors(path, weights, overwrite)
    write_text(description_path(path), json.dumps(dict(description), indent=2) + "\n", overwrite)
    return Path(path)


def is_described(path: str | Path) -> bool:
    """Whether the weights file `path` has a description beside it (a network in this format,
    as opposed to a pickled archive of some other library)."""
    return description_path(path).is_file()


def load_network(path: str | Path, format: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(description, weights) of the network saved at `path` by `save_network`, which must be of
    `format`. The weights are a dict of name → tensor; the caller checks them against the
    network it builds from the description."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no trained policy at {path}")
    described = description_path(path)
    if not described.is_file():
        raise ValueError(f"{path} has no description beside it ({described.name})")
    if described.stat().st_size > MAX_DESCRIPTION_BYTES:
        raise ValueError(f"{described} is over {MAX_DESCRIPTION_BYTES:,} bytes: no description")
    try:
        description = json.loads(described.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as problem:
        reason = "nested too deeply" if isinstance(problem, RecursionError) else problem
        raise ValueError(f"{described} is not valid JSON ({reason})") from None
    if not isinstance(description, dict) or description.get("format") != format:
        found = description.get("format") if isinstance(description, dict) else description
        raise ValueError(
            f"{described} describes a network of format {reprlib.repr(found)}, not {format!r}"
        )
    weights = load_tensors(path)
    if not isinstance(weights, dict) or not all(
        isinstance(name, str) and isinstance(value, torch.Tensor) for name, value in weights.items()
    ):
        raise ValueError(f"{path} is not a dict of name → tensor")
    return description, weights


def check_shapes(
    expected: Mapping[str, tuple[int, ...]],
    weights: Mapping[str, Any],
    path: str | Path,
    left_out: tuple[str, ...] = (),
) -> None:
    """A `ValueError` naming the differences unless `weights` have exactly the names and shapes
    `expected` gives, but for the names starting with one of `left_out` (parts the file does not
    hold). Checked before a network is built, so that no file makes one that does not fit."""
    wanted = {
        name: tuple(shape) for name, shape in expected.items() if not name.startswith(left_out)
    }
    given = {name: tuple(value.shape) for name, value in weights.items()}
    if given != wanted:
        missing = sorted(set(wanted) - set(given))
        extra = sorted(set(given) - set(wanted))
        reshaped = sorted(n for n in set(given) & set(wanted) if given[n] != wanted[n])
        raise ValueError(
            f"{path} does not fit the network its description builds: missing "
            f"{reprlib.repr(missing)}, unexpected {reprlib.repr(extra)}, of another shape "
            f"{reprlib.repr(reshaped)}"
        )


def load_state_dict(
    module: Any, weights: Mapping[str, Any], path: str | Path, left_out: tuple[str, ...] = ()
) -> None:
    """Copy `weights` into the torch `module`, which must have exactly these names and shapes,
    but for the names starting with one of `left_out` (parts the file does not hold, which keep
    the values the module was built with); a `ValueError` naming the differences otherwise."""
    expected = {name: tuple(value.shape) for name, value in module.state_dict().items()}
    check_shapes(expected, weights, path, left_out)
    module.load_state_dict(dict(weights), strict=not left_out)
