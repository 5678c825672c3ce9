"""OpenSpiel on a mini variant: load a game, run CFR+, measure exploitability exactly.

    pip install -e ".[openspiel]"
    python docs/tutorials/openspiel_cfr.py --max-flips 2 --iterations 20

Every game of the library is a Python `pyspiel` game once `snail_envs.openspiel` is imported
(`snail_snap`, `snail_snailed_it`, `snail_snail_sprint`, `snail_pedzace_slimaki`); its parameters
are the env's options and `preset`. Snap's reaction windows are simultaneous nodes:
`pyspiel.convert_to_turn_based` serves the algorithms that need turns. OpenSpiel's own CFR+ and
exploitability walk the whole tree, which suits the minis (`configs/<game>/mini.yaml`).
"""

import argparse

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr, exploitability

import snail_envs.openspiel  # noqa: F401  (registers the snail_* games)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-flips", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    game = pyspiel.load_game("snail_snap", {"preset": "mini", "max_flips": args.max_flips})
    game = pyspiel.convert_to_turn_based(game)
    uniform = exploitability.exploitability(game, policy_lib.UniformRandomPolicy(game))
    print(f"exploitability of uniform random play: {uniform:.4f}")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(args.iterations):
        solver.evaluate_and_update_policy()
    solved = exploitability.exploitability(game, solver.average_policy())
    print(f"exploitability after {args.iterations} CFR+ iterations: {solved:.4f}")
