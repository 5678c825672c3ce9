"""The registry: every game's facts are read from its rules module, and every name-keyed list of
the library (environments, batched engines, heuristics, searchable games) derives from them."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

import snail_envs
import snail_envs.batched
from snail_envs.agents import HEURISTICS
from snail_envs.agents.rollout_search import SEARCHABLE
from snail_envs.registry import FACTS, GAME_FOLDERS, GAMES

NAMES = [game.env_name for game in GAMES]


def players_error(game) -> str:
    return f"num_players must be an integer from {game.min_players} to {game.max_players}"


def test_every_game_is_listed_once_by_its_folder() -> None:
    assert len(set(GAME_FOLDERS)) == len(GAME_FOLDERS) == len(GAMES) == len(FACTS)
    assert tuple(NAMES) == snail_envs.ENV_NAMES
    assert set(snail_envs.available_env_names()) == set(NAMES)
    for folder, game in zip(GAME_FOLDERS, GAMES, strict=True):
        assert game is importlib.import_module(f"snail_envs.{folder}.rules").FACTS
        assert game.env_name.startswith(f"{folder}_v")


@pytest.mark.parametrize("env_name", NAMES)
def test_the_environment_and_its_module_read_the_games_facts(env_name: str) -> None:
    game = FACTS[env_name]
    env = snail_envs.make(env_name)
    assert env.unwrapped.spec.info is game
    assert env.metadata["name"] == env_name
    assert env.action_space("player_0").n == game.num_actions
    assert importlib.import_module(f"snail_envs.{env_name}").SPEC.info is game
    for players in (game.min_players, game.max_players):
        assert len(snail_envs.make(env_name, num_players=players).possible_agents) == players


@pytest.mark.parametrize("env_name", NAMES)
@pytest.mark.parametrize("side", ["below", "above"])
def test_the_player_range_of_the_rules_is_the_facts(env_name: str, side: str) -> None:
    game = FACTS[env_name]
    players = game.min_players - 1 if side == "below" else game.max_players + 1
    with pytest.raises(ValueError, match=players_error(game)):
        snail_envs.make(env_name, num_players=players)
    with pytest.raises(ValueError, match=players_error(game)):
        snail_envs.make_parallel(env_name, num_players=players)


@pytest.mark.parametrize("env_name", sorted(snail_envs.batched.ENGINES))
def test_the_batched_engine_reads_the_games_facts(env_name: str) -> None:
    pytest.importorskip("numba")
    game = FACTS[env_name]
    assert snail_envs.batched.ENGINES[env_name] == game.engine
    assert snail_envs.batched.engine_class(env_name).spec.info is game
    with pytest.raises(ValueError, match=players_error(game)):
        snail_envs.batched.make(env_name, 1, num_players=game.max_players + 1)


def test_the_name_keyed_lists_derive_from_the_facts() -> None:
    assert {g.env_name: g.engine for g in GAMES if g.engine} == snail_envs.batched.ENGINES
    assert {name: f"{c.__module__}:{c.__name__}" for name, c in HEURISTICS.items()} == {
        g.env_name: g.heuristic for g in GAMES if g.heuristic
    }
    assert tuple(g.env_name for g in GAMES if g.searchable) == SEARCHABLE
    assert set(SEARCHABLE) <= set(snail_envs.batched.ENGINES), "a searched game needs an engine"


@pytest.mark.parametrize("env_name", NAMES)
def test_the_idle_actions_and_call_keys_are_actions_and_options_of_the_game(env_name: str) -> None:
    """A real-time game offers an idle action every tick and calls by key; a call key's option
    is one of the game's rule options."""
    game = FACTS[env_name]
    actions = [*game.idle_actions, *(key.action for key in game.call_keys)]
    assert all(0 <= action < game.num_actions for action in actions)
    assert not set(game.idle_actions) & {key.action for key in game.call_keys}
    if game.realtime:
        assert game.simultaneous and game.idle_actions and game.call_keys
    options = {
        field.name
        for field in dataclasses.fields(snail_envs.make(env_name).unwrapped.spec.options_class)
    }
    assert {key.option for key in game.call_keys} - {None} <= options
