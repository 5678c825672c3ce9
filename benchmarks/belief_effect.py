"""What the search reply's belief is worth: the same IS-MCTS reply with and without it.

    python benchmarks/belief_effect.py --env pedzace_slimaki_v0 --target heuristic --games 100

On a game's mini (configs/<game>/mini.yaml), the search reply of `snail-exploit --method search`
(IS-MCTS with the target as the other seats and in its rollouts, maximising the margin) plays
`--games` games alone against the target, seats rotating, once with its worlds weighed by the
target's play seen
(`snail_envs.agents.beliefs.ModelBelief`) and once with every world drawn alike; prints each
mean margin with its 95% interval and the CPU seconds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from snail_envs.agents import make_agent
from snail_envs.agents.beliefs import ModelBelief
from snail_envs.agents.ismcts import ISMCTSAgent
from snail_envs.core.stats import mean_interval
from snail_envs.registry import FACTS, GAME_FOLDERS, GAMES
from snail_envs.training.exploit import FINAL_SEED, Job, measure, reply_margin

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="pedzace_slimaki_v0", choices=sorted(FACTS))
    parser.add_argument("--target", default="heuristic")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=100)
    args = parser.parse_args()
    folder = GAME_FOLDERS[GAMES.index(FACTS[args.env])]
    options = yaml.safe_load((CONFIGS / folder / "mini.yaml").read_text())
    job = Job(args.env, args.target, options, games=args.games)
    for believing in (True, False):
        start = time.process_time()
        model = make_agent(args.target, args.env, seed=0, options=options)
        reply = ISMCTSAgent(
            iterations=args.iterations,
            seed=0,
            value="margin",
            rollout=model,
            opponents=model,
            belief=ModelBelief(model) if believing else None,
        )
        games, _ = measure(job, reply, args.games, FINAL_SEED, False, "")
        margin, low, high = mean_interval([reply_margin(r) for r in games.records])
        print(
            f"{'with' if believing else 'without'} the belief: mean margin {margin:+.3f} "
            f"({low:+.3f} to {high:+.3f}) over {args.games} games, "
            f"{time.process_time() - start:.0f} CPU s",
            flush=True,
        )


if __name__ == "__main__":
    main()
