"""RLlib self-play from Python: one policy for every seat, trained with PPO on Ray RLlib.

    pip install -e ".[rllib]"
    python docs/tutorials/rllib_self_play.py --iterations 20

`snail-rllib` is the same from the command line, on one machine or a cluster (see Scaling out).
The policy it writes plays as the agent `rllib:RUN_FOLDER`, without Ray.
"""

import argparse
import tempfile

from snail_envs.agents import make_agent
from snail_envs.training import rllib_train
from snail_envs.training.evaluate import score_against

ENV_NAME = "snail_sprint_v0"

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--train-batch-size", type=int, default=4000)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        summary = rllib_train.main(
            [
                f"--env={ENV_NAME}",
                f"--output-dir={folder}",
                f"--iterations={args.iterations}",
                f"--train-batch-size={args.train_batch_size}",
                "--minibatch-size=64",
                "--num-env-runners=0",
                "--eval-games=0",
            ]
        )
        policy = make_agent(f"rllib:{summary['policy']}", ENV_NAME)
        rate, low, high = score_against(ENV_NAME, policy, "random", args.games, seed=0)
    print(f"self-play policy vs random: {100 * rate:.1f}% ({100 * low:.1f}-{100 * high:.1f})")
