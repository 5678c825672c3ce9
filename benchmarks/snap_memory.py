"""What a seat with perfect recall knows in Snap under noisy sight, beyond its observation.

    python benchmarks/snap_memory.py                    # 16 games side by side, 600 ticks
    python benchmarks/snap_memory.py --ticks 2000

A seat remembers every card it has seen, so it knows which cards a stack can still hold (the
never-seen cards of the deck, or the cards of a pile shuffled back into a stack), though not
their order. The observation shows the table only (the rulebook's "Observations must not reveal
stack contents"), so the heuristic, and a network reading the observation, cannot use that
knowledge; the search's worlds (`BatchedGame.redraw`, as `resample_from_infostate`) respect it.

At every call the heuristic makes on a glimpse that shows a match (heuristic against heuristic,
the `noisy_sight` preset), the card flipped last is redrawn in `--worlds` worlds consistent with
the calling seat's information state, and the share of worlds in which the card shows the
glimpsed key (the call is right) is compared between calls that were right and calls that were
wrong. From the observation alone the two kinds of call look alike; by memory a glimpse of a key
that no remaining card can have is known to be false.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import yaml

import snail_envs.batched
from snail_envs.snap.rules import FACTS, SNAP

PRESET = Path(__file__).resolve().parents[1] / "configs" / "snap" / "noisy_sight.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16, help="games played side by side")
    parser.add_argument("--ticks", type=int, default=600, help="ticks of every game to play")
    parser.add_argument("--worlds", type=int, default=2000, help="worlds redrawn at each call")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    options = yaml.safe_load(PRESET.read_text())
    engine = snail_envs.batched.make(FACTS.env_name, args.games, **options)
    worlds = snail_envs.batched.make(FACTS.env_name, args.worlds, **options)
    engine.reset(seed=args.seed)
    worlds.reset(seed=args.seed)
    keys = np.asarray(engine.rules["card_keys"]).reshape(-1)
    right_calls: list[float] = []
    wrong_calls: list[float] = []
    for _ in range(args.ticks):
        actions = engine.heuristic_actions().reshape(args.games, engine.max_acting)
        for game, slot in zip(*np.nonzero(actions == SNAP), strict=True):
            record = engine.games[game]
            seat, turn = int(engine.seats[game, slot]), int(record["turn"])
            glimpsed = int(record["glimpses"][seat, int(record["glimpsed"]) - 1])
            worlds.games[0] = record
            worlds.redraw(seat, seed=len(right_calls) + len(wrong_calls), source=0, views=False)
            drawn = keys[worlds.games["flipped"][:, turn]]
            share = float((drawn == glimpsed).mean())
            truth = int(keys[int(record["flipped"][turn])])
            (right_calls if truth == glimpsed else wrong_calls).append(share)
        engine.step(actions)
    print(f"the heuristic's snaps under {PRESET.name}, {args.worlds} worlds each")
    print("calls | count | worlds where it is right (mean) | known false (0%) | known right (100%)")
    for name, shares in (("right", right_calls), ("wrong", wrong_calls)):
        values = np.array(shares)
        print(
            f"{name} | {len(values)} | {values.mean():.1%} | {(values == 0).mean():.1%} | "
            f"{(values == 1).mean():.1%}"
        )


if __name__ == "__main__":
    main()
