"""A tabular policy played as an agent: `cfr:PATH`, the near-Nash policy `snail-exact` saves.

The file is JSON (never a pickle): the environment and rule options it was solved for, and for
every observation the policy met, the probability of each legal action. The agent looks its
observation up (the observation's text, `Layout.text`) and draws an action with those
probabilities; `action_probabilities` gives them, for tools that need the mixed policy itself.
The file holds the solver's policy projected on observations: an observation met in several
information states plays their policies mixed by how often each is reached.

    {"format": "snail_envs tabular policy", "version": 1, "env_name": ..., "options": {...},
     "policy": {"own_hand: 3 | pile_tops: 0 4": {"2": 0.75, "4": 0.25}, ...}, "solver": {...}}
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.core.options import parse_options

FORMAT = "snail_envs tabular policy"
VERSION = 1
MAX_FILE_BYTES = 256 * 2**20
"""A larger file is refused before it is read."""


class TabularPolicyAgent:
    """Plays a tabular policy of one environment and rule options."""

    def __init__(
        self,
        env_name: str,
        options: Mapping[str, Any],
        policy: Mapping[str, Mapping[int, float]],
        seed: int | None = None,
    ) -> None:
        self.env_name = env_name
        self.options = dict(options)
        self.policy = {key: dict(actions) for key, actions in policy.items()}
        spec = _spec(env_name)
        rules = parse_options(spec.options_class, options, env_name)
        self._layout = spec.new_observer(rules).observation_layout
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def action_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray
    ) -> dict[int, float]:
        """The policy's probability of each legal action (uniform at an observation the policy
        never met, which a solved game only shows off the equilibrium's support)."""
        legal = [int(action) for action in np.flatnonzero(action_mask)]
        known = self.policy.get(self._layout.text(observation))
        if known is None or not set(known) <= set(legal):
            return dict.fromkeys(legal, 1.0 / len(legal))
        return {action: known.get(action, 0.0) for action in legal}

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        chances = self.action_probabilities(observation, action_mask)
        actions = list(chances)
        return self._rng.choices(actions, [chances[action] for action in actions])[0]

    def save(self, path: str | Path, solver: Mapping[str, Any]) -> None:
        """Write the policy as JSON; an existing file is never overwritten."""
        target = Path(path)
        if target.exists():
            raise FileExistsError(f"{target} exists; choose another path or delete it first")
        document = {
            "format": FORMAT,
            "version": VERSION,
            "env_name": self.env_name,
            "options": self.options,
            "policy": {
                key: {str(action): chance for action, chance in actions.items()}
                for key, actions in self.policy.items()
            },
            "solver": dict(solver),
        }
        target.write_text(json.dumps(document, indent=1))

    @classmethod
    def load(
        cls,
        path: str | Path,
        env_name: str,
        rules: Mapping[str, Any],
        seed: int | None = None,
    ) -> TabularPolicyAgent:
        """The policy in `path`, for a table of `env_name` with rule options `rules`: a file made
        for another game or other rules is refused, naming the difference."""
        source = Path(path)
        if not source.is_file():
            raise ValueError(f"cfr:{path}: no such file")
        if source.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"cfr:{path}: larger than {MAX_FILE_BYTES // 2**20} MiB; refused")
        try:
            document = json.loads(source.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"cfr:{path}: not a policy file (not JSON: {error})") from None
        _check_document(document, path)
        if document["env_name"] != env_name:
            raise ValueError(f"cfr:{path}: a policy of {document['env_name']}, not of {env_name}")
        spec = _spec(env_name)
        solved = parse_options(spec.options_class, document["options"], env_name)
        table = parse_options(spec.options_class, rules, env_name)
        if solved != table:
            raise ValueError(
                f"cfr:{path}: solved for the rule options {document['options']}, "
                f"not for this table's {dict(rules)}"
            )
        policy = {
            key: {int(action): float(chance) for action, chance in actions.items()}
            for key, actions in document["policy"].items()
        }
        return cls(env_name, document["options"], policy, seed)


def _check_document(document: Any, path: str | Path) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"cfr:{path}: not a policy file (its format is not {FORMAT!r})")
    if document.get("version") != VERSION:
        raise ValueError(
            f"cfr:{path}: policy file version {document.get('version')!r}; "
            f"this library reads version {VERSION}"
        )
    policy = document.get("policy")
    if (
        not isinstance(document.get("env_name"), str)
        or not isinstance(document.get("options"), dict)
        or not isinstance(policy, dict)
        or not all(
            isinstance(actions, dict)
            and all(
                isinstance(action, str) and action.isdigit() and isinstance(chance, (int, float))
                for action, chance in actions.items()
            )
            for actions in policy.values()
        )
    ):
        raise ValueError(
            f"cfr:{path}: a policy file holds env_name, options, and policy: observation text "
            "-> {action: probability}"
        )


def _spec(env_name: str) -> Any:
    import importlib

    from snail_envs.registry import FACTS

    if env_name not in FACTS:
        raise ValueError(f"unknown environment {env_name!r}; environments: {sorted(FACTS)}")
    return importlib.import_module(f"snail_envs.{env_name}").SPEC
