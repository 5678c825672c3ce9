"""Where a decision of the reference path goes: random legal play through the AEC API, profiled.

    python benchmarks/profile_decision.py                 # every game
    python benchmarks/profile_decision.py --only snap_v2 --seconds 10

Each game plays seeded games with uniformly random legal actions in `benchmarks/throughput.py`'s
loop (`last()`, read the mask, `step()`) under cProfile, and prints the share of the profiled
time spent inside each part of a decision (time inside a function and what it calls, so shares
overlap: `step` holds the rules' `apply`, `last` holds the observation and the mask):

- `step`: the AEC bookkeeping of an action and the rules' `apply` (and the `settle` after it:
  rewards, the next agent);
- `last`: PettingZoo's `last()`, which builds the observation dict: the observer's vector and
  the legal-action mask (`host.observe`), the mask being the part outside `observer.observe`;
- `legal actions`: the rules' own legal-action code, wherever called;
- the benchmark's side: `np.flatnonzero` on the mask, as a client reads it.

cProfile's own cost inflates Python-heavy parts alike; the shares, not the times, are the result.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random

from throughput import play_aec

import snail_envs

PARTS = {
    "step (AEC + rules)": ("core/aec.py", "step"),
    "  rules: apply": ("rules.py", "apply"),
    "  settle: rewards, next agent": ("core/aec.py", "_settle"),
    "  action check": ("core/host.py", "_checked_action"),
    "last (PettingZoo)": ("pettingzoo/utils/env.py", "last"),
    "  observation + mask (host.observe)": ("core/host.py", "observe"),
    "  observation vector (observer.observe)": ("observer.py", "observe"),
    "legal actions (rules)": ("rules.py", "legal_actions"),
    "client: np.flatnonzero(mask)": ("numpy/_core/numeric.py", "flatnonzero"),
}


def shares(name: str, seconds: float) -> tuple[int, float, dict[str, float]]:
    """Decisions played, profiled seconds, and each part's share of them."""
    env = snail_envs._module(name).env()
    rng = random.Random(0)
    play_aec(env, 0.2, rng)
    profile = cProfile.Profile()
    profile.enable()
    decisions = play_aec(env, seconds, rng)
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    inside = dict.fromkeys(PARTS, 0.0)
    for (path, _line, function), row in stats.stats.items():  # type: ignore[attr-defined]
        for part, (where, called) in PARTS.items():
            if function == called and path.replace("\\", "/").endswith(where):
                inside[part] += row[3]
    return decisions, total, {part: seconds / total for part, seconds in inside.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="profiled CPU time per game")
    parser.add_argument("--only", nargs="*", help="snail_envs names to include")
    args = parser.parse_args()
    names = [
        name for name in snail_envs.available_env_names() if not args.only or name in args.only
    ]
    results = {name: shares(name, args.seconds) for name in names}
    print("| part of a decision | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for part in PARTS:
        cells = " | ".join(f"{results[name][2][part]:.0%}" for name in names)
        print(f"| {part} | {cells} |")
    cells = " | ".join(f"{1e6 * results[name][1] / results[name][0]:.0f} µs" for name in names)
    print(f"| profiled time a decision | {cells} |")


if __name__ == "__main__":
    main()
