"""How two Snap agents call against each other: right and wrong calls, and the pools they win.

    python benchmarks/snap_calls.py                              # ppo against the heuristic
    python benchmarks/snap_calls.py --agents heuristic heuristic --preset equal_reflexes
    python benchmarks/snap_calls.py --agents ppo:RUN heuristic -o recall=perfect

Two agents play `--games` games of the parallel environment under a preset of `configs/snap/`
(default `noisy_sight`), seats alternating from game to game. Every call is counted by who made
it, whether it was right, and whether the caller's pile held one card, several or none (a wrong
call sends the pile to the pool; from an empty pile, since `snap_v2`, the top card of the stack),
and every pool won with `snap_pool` by its cards. A wrong call that left its caller's cards as
they were while it held some is counted as free: under `snap_v2`'s rules there is none (with
`wrong_call_cost: pile`, `snap_v1`'s rule, every wrong call from an empty pile is free). A wrong
call that a seat remembering every card it has seen would have known to be wrong is also counted
as `known by memory`: what a policy with memory (`-o recall=perfect`, the rule options after the
preset's) should learn not to call. Per game, so that agents can be compared.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from score_rate import rule_options

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.snap.calls import KINDS, CallTally, pending_call
from snail_envs.snap.rules import FACTS


def tally_calls(
    agents: Sequence[Any],
    options: dict[str, Any],
    games: int,
    seed: int,
    before_game: Callable[[], None] | None = None,
) -> list[CallTally]:
    """The calls of each of the two `agents` over `games` games of the parallel environment
    (game i seeded `seed` + i), seats alternating from game to game; `before_game` is called
    before each game."""
    tallies = [CallTally(), CallTally()]
    for game in range(games):
        if before_game is not None:
            before_game()
        env = snail_envs.make_parallel(FACTS.env_name, **options)
        observations, _ = env.reset(seed=seed + game)
        player = {f"player_{(game + i) % 2}": i for i in range(2)}
        while env.agents:
            table = env.unwrapped.game
            actions = {
                agent: agents[player[agent]].act(
                    observations[agent]["observation"], observations[agent]["action_mask"]
                )
                for agent in env.agents
            }
            calls = {
                agent: pending_call(table, env.possible_agents.index(agent), action)
                for agent, action in actions.items()
            }
            observations, *_ = env.step(actions)
            for agent, call in calls.items():
                if call is not None:
                    tallies[player[agent]].add(table, call)
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs=2, default=["ppo", "heuristic"])
    parser.add_argument("--preset", default="noisy_sight")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "-o", "--option", action="append", default=[], help="name=value, after the preset's"
    )
    args = parser.parse_args()
    options = rule_options(FACTS.env_name, args.preset, args.option, parser)
    agents = [make_agent(spec, FACTS.env_name, seed=0, options=options) for spec in args.agents]
    tallies = tally_calls(agents, options, args.games, args.seed)
    print(
        f"{args.games} games of {FACTS.env_name} under "
        f"{' '.join([f'{args.preset}.yaml', *args.option])}, seats alternating; per game:"
    )
    # a wrong call's circumstances; `wrong` is their sum, `empty hand` part of `no pile`
    kinds = [kind for kind in KINDS if kind not in ("wrong", "wrong, empty hand")]
    print(f"| agent | {' | '.join(f'calls {kind}' for kind in kinds)} | pool cards won |")
    print(f"|---|{'---:|' * (len(kinds) + 1)}")
    for who, spec in enumerate(args.agents):
        counts = " | ".join(f"{tallies[who].counts[kind] / args.games:.1f}" for kind in kinds)
        print(f"| {spec} | {counts} | {tallies[who].pool_cards / args.games:.1f} |")


if __name__ == "__main__":
    main()
