"""Play one game in the terminal: people and bots at the same table.

    snail-play snail_sprint_v0 --seats human,heuristic,ismcts
    snail-play snail_sprint_v0 --seats heuristic,random --record game.gif
    snail-play snail_sprint_v0 --seats heuristic,random --save-replay game.jsonl

`--seats` names one agent per seat (as `snail_envs.agents.make_agent` does: `random`, `heuristic`,
`search[:ITERATIONS]`, `ismcts[:ITERATIONS]`, `rollout`, `human`, ...); the number of seats is the
number of players. With no human seated, the game is shown turn by turn. People are told every event
that changes their hand or the table (`snail_envs.apps.narration`); at their prompt they choose by
number, and `help` lists the commands (`quit` leaves). `--quiet` shows only what the people seated
see and the results: no bot decisions, no table between turns. `--record` also writes an animation
of the game (GIF, one picture per decision, needs Pillow; see `snail_envs.apps.video`),
`--save-replay` a replay of it (`snail-replay`, which re-plays and shows it); an existing file is
replaced only with `--overwrite`. `--trust-checkpoint` lets `ppo:PATH` load a Stable-Baselines3
archive, which is a pickle (trained policies otherwise load weights only)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import snail_envs
from snail_envs.agents import HumanAgent, choose_action, make_agent
from snail_envs.agents.cli import add_trust_flag, command_errors
from snail_envs.agents.files import refuse_existing
from snail_envs.agents.human import LeftTheGame
from snail_envs.apps.narration import Narrator
from snail_envs.apps.replay import start_replay
from snail_envs.apps.seats import seat_names
from snail_envs.apps.video import write_gif, written
from snail_envs.cli import add_rule_options, env_name
from snail_envs.docstrings import rulebook


def play_game(
    env_name: str,
    seats: list[str],
    seed: int = 0,
    options: dict[str, Any] | None = None,
    record: str | Path | None = None,
    show: bool = True,
    overwrite: bool = False,
    trusted: bool = False,
    save_replay: str | Path | None = None,
    quiet: bool = False,
) -> dict[str, float]:
    """Play one game; returns each agent's return (all 0 if a person quits). Prints the table
    and each decision when `show` and not `quiet`; people always see the table as their own seat
    sees it before their decisions, and are told what changed since (`snail_envs.apps.narration`);
    at the end, a lone person sees its seat's view too. `record`: a GIF to write, `save_replay`: a
    replay to write (`snail-replay`), which must not exist unless `overwrite`; `trusted`: see
    `snail_envs.agents.make_agent`."""
    refuse_existing([path for path in (record, save_replay) if path], overwrite)
    table = {"num_players": len(seats), **(options or {})}
    env = snail_envs.make(env_name, **table)
    env.reset(seed=seed)
    replay = start_replay(env_name, table, seed, env, seats)
    players = {
        agent: make_agent(kind, env_name, seed=seed + index, options=table, trusted=trusted)
        for index, (agent, kind) in enumerate(zip(env.possible_agents, seats, strict=True))
    }
    people = [agent for agent, player in players.items() if isinstance(player, HumanAgent)]
    who = seat_names(seats)
    names = dict(zip(env.possible_agents, who, strict=True))
    for agent in people:
        players[agent].names = who
    narrators = [Narrator(env.unwrapped, agent, who) for agent in people]
    host = env.unwrapped
    verbose = show and not quiet
    watching = verbose and not people
    frames = []
    returns = dict.fromkeys(env.possible_agents, 0.0)
    try:
        for agent in env.agent_iter():
            _, total, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                returns[agent] = total
                env.step(None)
                replay.record(env, agent, None)
                continue
            if record:
                frames.append(host.render_picture(who))
            if watching:
                print(host.render_text(who))
            action = choose_action(players[agent], env, agent)
            if verbose:
                print(f"> {names[agent]}: {host.action_to_string(agent, action)}\n")
            env.step(action)
            replay.record(env, agent, action)
            tell(narrators)
    except LeftTheGame as left:
        print(f"{left}: the game is abandoned")
        return dict.fromkeys(env.possible_agents, 0.0)
    if show:
        print(host.render_seat(people[0], names=who) if len(people) == 1 else host.render_text(who))
        for agent, name in names.items():
            print(f"{name}: {'won' if returns[agent] > 0 else 'lost'} ({returns[agent]:+g})")
    if record:
        frames.append(host.render_picture(who))
        seated = dict(zip(env.possible_agents, seats, strict=True))
        print(written(record, write_gif(record, frames, overwrite, seated), len(frames)))
    if save_replay:
        replay.finish(env).save(save_replay, overwrite)
        print(f"wrote {save_replay}")
    return returns


def tell(narrators: list[Narrator]) -> None:
    """Print what changed for each person seated (named, when several share the terminal)."""
    for narrator in narrators:
        for line in narrator.events():
            print(f"  {narrator.name}: {line}" if len(narrators) > 1 else f"  {line}")


class PrintRules(argparse.Action):
    """`--rules`: print the game's rules (the docs' "How to play") and exit, as `--help` does."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> None:
        env_name = getattr(namespace, "env", None)
        if env_name is None:
            parser.error("--rules comes after the game: snail-play GAME --rules")
        print(rulebook(env_name).text())
        parser.exit()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="snail-play",
        description=__doc__.splitlines()[0],
        epilog="At a human seat's prompt: the number of a choice takes it; help lists the "
        "commands; rules prints the rules; quit leaves the game; where you may wait or pass "
        "(Snap's ticks, a toss window), Enter does it once and wait N up to N times (it stops "
        "when the table offers a play).",
    )
    parser.add_argument(
        "env", type=env_name, choices=snail_envs.available_env_names(), help="the game"
    )
    parser.add_argument(
        "--rules",
        nargs=0,
        action=PrintRules,
        help="print the rules of the game and exit (at a human seat's prompt: rules)",
    )
    parser.add_argument(
        "--seats",
        required=True,
        help="comma-separated agents, one per seat: random, heuristic, search, ismcts, rollout, "
        "human, ...",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the seed of the deal and the bots (default: 0)"
    )
    add_rule_options(parser)
    parser.add_argument("--record", metavar="FILE.gif", help="also write an animation of the game")
    parser.add_argument(
        "--save-replay", metavar="FILE.jsonl", help="also write a replay of the game"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing --record or --save-replay"
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="show only what the people seated see, and the results (no bot decisions)",
    )
    add_trust_flag(parser)
    args = parser.parse_args(argv)
    with command_errors(parser.prog):
        play_game(
            args.env,
            args.seats.split(","),
            args.seed,
            dict(args.option),
            args.record,
            overwrite=args.overwrite,
            trusted=args.trust_checkpoint,
            save_replay=args.save_replay,
            quiet=args.quiet,
        )


if __name__ == "__main__":
    main()
