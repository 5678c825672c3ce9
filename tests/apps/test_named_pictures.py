"""The apps' pictures and text views name the seats as the apps do ("You", "heuristic"), not by
agent id; the environments' own output keeps the agent ids (the golden playthroughs)."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.apps.play import play_game
from snail_envs.apps.replay import positions, read_replay, start_replay
from snail_envs.apps.seats import PERSON, seat_names
from snail_envs.apps.serve.catalog import parse_options
from snail_envs.apps.serve.replays import ReplayView
from snail_envs.apps.serve.table import Seating, Table, seat_frame
from tests.apps.web.pages import QUICK_GAMES
from tests.names import SNAIL_SPRINT, SNAILED_IT, SNAP

AGENT_ID = "player_"
SEATS = (PERSON, "heuristic")
NAMES = seat_names(SEATS)
"""The seats' names: "You" and "heuristic"."""
TABLES = [
    *((name, parse_options(options)) for name, options in QUICK_GAMES.items()),
    (
        SNAP,
        {**parse_options(QUICK_GAMES[SNAP]), "session": "best_of_3", "glimpse_error": [0.5, 0.5]},
    ),
]
"""Every game under options that end it quickly; Snap also with a session and glimpses."""


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every string drawn on a picture while the test runs (the renderers draw all their text
    with Pillow's `ImageDraw.text`)."""
    from PIL import ImageDraw

    texts: list[str] = []
    draw_text = ImageDraw.ImageDraw.text

    def recorded(self: Any, xy: Any, text: Any, *args: Any, **kwargs: Any) -> None:
        texts.append(str(text))
        draw_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", recorded)
    return texts


def naming_agent_ids(texts: list[str]) -> list[str]:
    return [text for text in texts if AGENT_ID in text]


def shown_with_names(host: Any) -> list[str]:
    """The spectator's and every seat's text view of `host`'s table, with `NAMES`; their
    pictures drawn too."""
    host.render_picture(NAMES)
    texts = [host.render_text(NAMES)]
    for agent in host.possible_agents:
        host.render_seat(agent, "rgb_array", NAMES)
        texts.append(host.render_seat(agent, names=NAMES))
    return texts


@pytest.mark.parametrize(("env_name", "options"), TABLES, ids=lambda value: str(value)[:40])
def test_every_picture_and_text_view_names_the_seats_by_the_names_given(
    env_name: str, options: dict[str, Any], drawn: list[str]
) -> None:
    """At every position of a game, to its end: the spectator's and each seat's picture and
    text, drawn with the names."""
    env = snail_envs.make(env_name, **options, num_players=2)
    env.reset(seed=1)
    host = env.unwrapped
    host.render_picture()
    assert naming_agent_ids(drawn), "without names the pictures name the agent ids"
    drawn.clear()
    texts = shown_with_names(host)
    rng = random.Random(1)
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        env.step(None if terminated or truncated else rng.choice(host.legal_actions(agent)))
        texts += shown_with_names(host)
    assert host.game.outcome is not None, "the game was played to its end"
    assert not naming_agent_ids(drawn) and not naming_agent_ids(texts)
    assert any("You" in text for text in drawn) and any("heuristic" in text for text in drawn)
    assert any("won by" in text for text in texts)


def test_names_are_one_string_a_seat() -> None:
    env = snail_envs.make(SNAIL_SPRINT, num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="names must be None or 3 strings, one a seat"):
        env.unwrapped.render_text(NAMES)


def test_snail_play_shows_a_person_the_table_naming_them_you_and_records_named_pictures(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    drawn: list[str],
    tmp_path: Path,
) -> None:
    recorded: list[np.ndarray] = []

    def record_gif(path: Any, pictures: list[np.ndarray], *args: Any) -> int:
        recorded.extend(pictures)
        return len(pictures)

    monkeypatch.setattr("snail_envs.apps.play.write_gif", record_gif)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    play_game(SNAIL_SPRINT, list(SEATS), seed=0, record=tmp_path / "game.gif")
    out = capsys.readouterr().out
    assert "You: your race card" in out and "player_0 (you)" not in out
    assert recorded and drawn and not naming_agent_ids(drawn)


def test_a_game_of_bots_is_shown_with_its_seats_named_by_their_agents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    play_game(
        SNAILED_IT, ["heuristic", "random"], seed=0, options=parse_options(QUICK_GAMES[SNAILED_IT])
    )
    out = capsys.readouterr().out
    assert "heuristic: " in out and "random: " in out and AGENT_ID not in out


def replay_with_a_person(env_name: str, folder: Path) -> Path:
    """A saved replay of a quick game of `SEATS`, the person's decisions made at random."""
    options = {**parse_options(QUICK_GAMES[env_name]), "num_players": 2}
    env = snail_envs.make(env_name, **options)
    env.reset(seed=2)
    replay = start_replay(env_name, options, 2, env, SEATS)
    players = dict(zip(env.possible_agents, ("random", "heuristic"), strict=True))
    bots = {
        agent: make_agent(kind, env_name, seed=2, options=options)
        for agent, kind in players.items()
    }
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        action = None if terminated or truncated else choose_action(bots[agent], env, agent)
        env.step(action)
        replay.record(env, agent, action)
    return replay.finish(env).save(folder / "game.jsonl")


def test_snail_replay_draws_and_shows_the_seats_by_name(tmp_path: Path, drawn: list[str]) -> None:
    shown = list(positions(read_replay(replay_with_a_person(SNAILED_IT, tmp_path)), pictures=True))
    assert not naming_agent_ids(drawn) and any("You" in text for text in drawn)
    texts = [position.text for position in shown]
    assert not naming_agent_ids(texts) and any("\nYou: " in text for text in texts)


def test_the_pages_pictures_and_text_name_the_seats(tmp_path: Path, drawn: list[str]) -> None:
    options = {**parse_options(QUICK_GAMES[SNAILED_IT]), "num_players": 2}
    person = Table(Seating(SNAILED_IT, options, SEATS, seed=0))
    bots = Table(Seating(SNAILED_IT, options, ("heuristic", "random"), seed=0))
    frames = [person.frame(), seat_frame(bots.env, None, bots.who, realtime=False)]
    replay = read_replay(replay_with_a_person(SNAILED_IT, tmp_path))
    view = ReplayView("game.jsonl", replay)
    view.position(view.opened()["count"] - 1)
    assert "You" in frames[0]["text"] and "heuristic" in frames[1]["text"]
    assert not naming_agent_ids([frame["text"] for frame in frames])
    assert drawn and not naming_agent_ids(drawn)
