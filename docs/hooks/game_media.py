"""The pictures of each game's page: a GIF of a heuristic game and one seat's view.

Both are drawn by the environments' own renderers and written by `snail_envs.apps.video`, the
same code as `snail-play --record`, when the site is built: nothing drawn is kept in the
repository, so no picture can fall out of step with the renderers.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import numpy as np

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.apps.seats import seat_names
from snail_envs.apps.video import write_gif
from snail_envs.core.game import GameInfo

SEED = 0
MOST_PICTURES = 80
"""A game longer than this many decisions is shown by its first ones (a GIF stays small)."""
SEAT_VIEW_DECISION = 6
"""The seat view shows the table at this decision of the first seat (or the last one, sooner)."""


@dataclass(frozen=True)
class GameMedia:
    gif: bytes
    seat_view: bytes
    caption: str


def seats(game: GameInfo) -> int:
    """Three seats where the game allows them, so that the pictures show a real table."""
    return min(3, game.max_players)


def game_media(game: GameInfo) -> GameMedia:
    """Play a heuristic game (seed `SEED`, default options) and draw it."""
    env = snail_envs.make(game.env_name, num_players=seats(game))
    env.reset(seed=SEED)
    host = env.unwrapped
    table = {"num_players": seats(game)}
    players = {
        agent: make_agent("heuristic", game.env_name, options=table)
        for agent in env.possible_agents
    }
    agents = dict.fromkeys(env.possible_agents, "heuristic")
    names = seat_names(list(agents.values()))
    pictures: list[np.ndarray] = []
    seat_view: np.ndarray | None = None
    first_seat_decisions = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.step(None)
            continue
        if len(pictures) == MOST_PICTURES:
            break
        pictures.append(host.render_picture(names))
        if agent == env.possible_agents[0]:
            first_seat_decisions += 1
            if first_seat_decisions == SEAT_VIEW_DECISION or seat_view is None:
                seat_view = host.render_seat(agent, mode="rgb_array")
        env.step(choose_action(players[agent], env, agent))
    finished = not env.agents
    if finished:
        pictures.append(host.render_picture(names))
    assert seat_view is not None
    whole = "the whole game" if finished else f"its first {MOST_PICTURES} decisions"
    caption = (
        f"{seats(game)} heuristic players, default options, seed {SEED}: {whole}, one picture "
        "a decision (`snail-play {env} --seats {kinds} --record game.gif` draws the same)."
    ).format(env=game.env_name, kinds=",".join(["heuristic"] * seats(game)))
    return GameMedia(gif_bytes(pictures, agents), png_bytes(seat_view), caption)


def gif_bytes(pictures: list[np.ndarray], agents: dict[str, str]) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.gif"
        write_gif(path, pictures, agents=agents)
        return path.read_bytes()


def png_bytes(picture: np.ndarray) -> bytes:
    from PIL import Image

    buffer = BytesIO()
    Image.fromarray(picture).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> None:
    """Write one game's GIF: `python docs/hooks/game_media.py GAME_FOLDER OUT.gif` (the README's
    picture is docs/images/<folder>.gif, written so)."""
    import argparse

    from game_pages import folder_of

    from snail_envs.registry import GAMES

    folders = {folder_of(game): game for game in GAMES}
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("folder", choices=sorted(folders))
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    args.out.write_bytes(game_media(folders[args.folder]).gif)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
