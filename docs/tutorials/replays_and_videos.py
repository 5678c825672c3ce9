"""Replays and videos: save a game, re-simulate it step by step, and render it as a GIF.

    pip install -e ".[render]"
    python docs/tutorials/replays_and_videos.py game.jsonl game.gif

The same from the command line: `snail-play snail_sprint_v0 --seats heuristic,random
--save-replay game.jsonl`, then `snail-replay game.jsonl --gif game.gif`.
"""

import argparse
from pathlib import Path

from snail_envs.apps.play import play_game
from snail_envs.apps.replay import positions, read_replay
from snail_envs.apps.video import write_gif

ENV_NAME = "snail_sprint_v0"

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("replay", type=Path)
    parser.add_argument("gif", type=Path)
    args = parser.parse_args()
    returns = play_game(
        ENV_NAME, ["heuristic", "random"], seed=7, show=False, save_replay=args.replay
    )
    replay = read_replay(args.replay)  # re-simulates every step, and fails on any difference
    decisions = sum(step.action is not None for step in replay.steps)
    print(
        f"replay: {len(replay.steps)} AEC steps ({decisions} decisions) of {replay.env}, "
        f"seed {replay.seed}, agents {replay.agents}"
    )
    print(f"result: {replay.result['returns'] if replay.result else None}")
    pictures = [p.picture for p in positions(replay, pictures=True) if p.picture is not None]
    frames = write_gif(args.gif, pictures, agents=replay.agents)
    print(f"gif: {len(pictures)} pictures in {frames} frames")
