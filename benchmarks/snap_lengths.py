"""How Snap games between equal players end: heuristic against heuristic, per rule preset.

    python benchmarks/snap_lengths.py                      # every setup of docs/results.md
    python benchmarks/snap_lengths.py --games 200 --only equal_reflexes

For each setup, `games` games between copies of the Snap heuristic (seats rotating), through the
parallel API: the share of games that end before truncation (`max_flips`, `max_ticks`), the
median and 95th percentile of flips a game, and each seat's score rate (a win 1, a shared win a
share). `--thresholds` sets each seat's belief threshold under noisy sight (the first listed bot
takes seat 0 in game 0, and the bots move one seat on every game), to measure what waiting for a
surer glimpse is worth; `--glimpse-error` replaces the preset's error schedule, to choose one.

    python benchmarks/snap_lengths.py --only noisy_sight --players 2 --games 400 \
        --thresholds 0.5 0.1 --glimpse-error 0.75 0.4 0.0
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

import yaml

import snail_envs
from snail_envs.agents.heuristics.snap import DEFAULT_BELIEF_THRESHOLD, SnapHeuristic
from snail_envs.snap.rules import FACTS

PRESETS = Path(__file__).resolve().parents[1] / "configs" / "snap"
SETUPS: dict[str, dict[str, Any]] = {
    "rulebook": {},
    "equal_reflexes": yaml.safe_load((PRESETS / "equal_reflexes.yaml").read_text()),
    "noisy_sight": yaml.safe_load((PRESETS / "noisy_sight.yaml").read_text()),
}


def duel(options: dict[str, Any], thresholds: list[float], games: int) -> dict[str, Any]:
    """Play `games` heuristic games under `options`; bot j plays seat (j + game) mod n."""
    env = snail_envs.make_parallel(FACTS.env_name, **options)
    n = len(env.possible_agents)
    bots = [SnapHeuristic(belief_threshold=t, **options) for t in thresholds]
    flips, ended, scores = [], 0, [0.0] * n
    for game in range(games):
        observations, _ = env.reset(seed=game)
        seated = {f"player_{(j + game) % n}": bots[j] for j in range(n)}
        while env.agents:
            actions = {
                agent: seated[agent].act(
                    observations[agent]["observation"], observations[agent]["action_mask"]
                )
                for agent in env.agents
            }
            observations, *_ = env.step(actions)
        table = env.unwrapped.game
        flips.append(table.flips)
        if table.outcome is not None:
            ended += 1
            for seat in table.outcome.winners:
                scores[(seat - game) % n] += 1 / len(table.outcome.winners)
    flips.sort()
    return {
        "ended": ended / games,
        "median_flips": statistics.median(flips),
        "p95_flips": flips[int(0.95 * (games - 1))],
        "scores": [round(score / games, 3) for score in scores],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--only", nargs="+", choices=sorted(SETUPS), default=list(SETUPS))
    parser.add_argument("--thresholds", type=float, nargs="+", default=None)
    parser.add_argument("--glimpse-error", type=float, nargs="+", default=None)
    args = parser.parse_args()
    print("| setup | players | games | ended before truncation | flips: median / 95th pct. |")
    print("|---|---|---|---|---|")
    for name in args.only:
        for players in args.players:
            options = {**SETUPS[name], "num_players": players}
            if args.glimpse_error is not None:
                options["glimpse_error"] = args.glimpse_error
            thresholds = args.thresholds or [DEFAULT_BELIEF_THRESHOLD] * players
            if len(thresholds) != players:
                parser.error(f"--thresholds needs one value a seat ({players})")
            result = duel(options, thresholds, args.games)
            print(
                f"| `{name}` | {players} | {args.games} | {result['ended']:.1%} | "
                f"{result['median_flips']:.0f} / {result['p95_flips']} |"
                + (f" scores {result['scores']}" if args.thresholds else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
