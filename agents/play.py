"""Play one game in the terminal: people and bots at the same table.

    python -m agents.play snail_sprint_v0 --seats human,heuristic,ismcts
    python -m agents.play snail_sprint_v0 --seats heuristic,random --record game.gif

`--seats` names one agent per seat (as `agents.make_agent` does: `random`, `heuristic`,
`ismcts[:ITERATIONS]`, `rollout`, `human`, ...); the number of seats is the number of players.
With no human seated, the game is shown turn by turn.
`--record` also writes an animation of the game (GIF, one frame per decision, needs Pillow).
"""

from __future__ import annotations

import argparse
from typing import Any

import snail_envs
from agents import HumanAgent, choose_action, make_agent
from snail_envs.cli import add_rule_options


def play_game(
    env_name: str,
    seats: list[str],
    seed: int = 0,
    options: dict[str, Any] | None = None,
    record: str | None = None,
    show: bool = True,
) -> dict[str, float]:
    """Play one game; returns each agent's return. Prints the table when `show` (and always to
    people, before their decisions)."""
    table = {"num_players": len(seats), **(options or {})}
    env = snail_envs.make(env_name, **table)
    env.reset(seed=seed)
    players = {
        agent: make_agent(kind, env_name, seed=seed + index, options=table)
        for index, (agent, kind) in enumerate(zip(env.possible_agents, seats, strict=True))
    }
    watching = show and not any(isinstance(p, HumanAgent) for p in players.values())
    frames = []
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, total, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            returns[agent] = total
            env.step(None)
            continue
        if record:
            frames.append(env.unwrapped.spec.render_rgb(env.unwrapped.game))
        if watching:
            print(env.unwrapped.render_text())
        action = choose_action(players[agent], env, agent)
        if show:
            print(
                f"> {agent} ({seats[env.possible_agents.index(agent)]}): "
                f"{env.unwrapped.action_to_string(agent, action)}\n"
            )
        env.step(action)
    if show:
        print(env.unwrapped.render_text())
        for agent, kind in zip(env.possible_agents, seats, strict=True):
            print(
                f"{agent} ({kind}): {'won' if returns[agent] > 0 else 'lost'} ({returns[agent]:+g})"
            )
    if record:
        frames.append(env.unwrapped.spec.render_rgb(env.unwrapped.game))
        write_gif(record, frames)
    return returns


def write_gif(path: str, frames: list[Any]) -> None:
    from PIL import Image

    images = [Image.fromarray(frame) for frame in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=700, loop=0)
    print(f"wrote {len(images)} frames to {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env", choices=snail_envs.available_env_names())
    parser.add_argument(
        "--seats",
        required=True,
        help="comma-separated agents, one per seat: random, heuristic, ismcts, rollout, human, ...",
    )
    parser.add_argument("--seed", type=int, default=0)
    add_rule_options(parser)
    parser.add_argument("--record", metavar="FILE.gif", help="also write an animation of the game")
    args = parser.parse_args(argv)
    play_game(args.env, args.seats.split(","), args.seed, dict(args.option), args.record)


if __name__ == "__main__":
    main()
