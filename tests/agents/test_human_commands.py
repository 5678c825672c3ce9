"""A person's commands at the terminal: `rules` and `wait N`, which stops when a play is offered."""

from __future__ import annotations

import dataclasses
import io

import pytest

import snail_envs
from snail_envs.agents import HumanAgent, choose_action, make_agent
from snail_envs.apps.play import main as play_main
from snail_envs.apps.play import play_game
from snail_envs.docstrings import rulebook
from snail_envs.registry import GAMES

WINDOWED = [game for game in GAMES if game.idle_actions]
"""The games with windows in which a seat may let the moment go by (wait, pass)."""


def test_rules_at_the_prompt_prints_the_docs_how_to_play(monkeypatch, capsys) -> None:
    game = GAMES[-1]
    monkeypatch.setattr("sys.stdin", io.StringIO("rules\nquit\n"))
    play_game(game.env_name, ["human", "random"], seed=0, quiet=True)
    assert rulebook(game.env_name).text() in capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.env_name)
def test_snail_play_rules_prints_the_rules_and_exits(game, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        play_main([game.env_name, "--rules"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.strip() == rulebook(game.env_name).text()
    assert all(section.heading in out for section in rulebook(game.env_name).sections)


@pytest.mark.parametrize("game", WINDOWED, ids=lambda game: game.env_name)
def test_wait_n_stops_at_the_first_decision_that_offers_a_play(game) -> None:
    """Typed at every prompt, `wait 1000` would let every later window go by; it stops instead
    where the seat's own view offers a play (what the game's heuristic, seeing that view, would
    not let go by), and the person is asked there."""
    table = {"num_players": max(3, game.min_players)}
    env = snail_envs.make(game.env_name, **table)
    env.reset(seed=0)
    host = env.unwrapped
    lookout = make_agent("heuristic", game.env_name, options=table)
    asked: list[bool] = []

    def read(prompt: str) -> str:
        if "Enter: " not in prompt:
            return "1"  # a turn of one's own, with no moment to let go by
        legal = host.legal_actions("player_0")
        idle = next(a for a in legal if a in game.idle_actions)
        observation = env.observe("player_0")
        asked.append(lookout.act(observation["observation"], observation["action_mask"]) != idle)
        return "wait 1000"

    players = {
        agent: make_agent("heuristic", game.env_name, options=table)
        for agent in env.possible_agents
    }
    players["player_0"] = HumanAgent(read=read, write=lambda _: None, lookout=lookout)
    for step, agent in enumerate(env.agent_iter()):
        _, _, terminated, truncated, _ = env.last(observe=False)
        if step > 3000 or len(asked) > 5:
            break
        env.step(None if terminated or truncated else choose_action(players[agent], env, agent))
    later = asked[1:]
    assert later, "the person was asked again after typing wait 1000"
    assert all(later), "asked only where a play is offered"


def idle_decision(env, game, agent: str = "player_0") -> None:
    """Play random moves until `agent` decides where it may let the moment go by, among others."""
    random = make_agent("random", game.env_name)
    for acting in env.agent_iter():
        legal = env.unwrapped.legal_actions(acting)
        if acting == agent and len(legal) > 1 and set(legal) & set(game.idle_actions):
            return
        _, _, terminated, truncated, _ = env.last(observe=False)
        env.step(None if terminated or truncated else choose_action(random, env, acting))
    raise AssertionError(f"{agent} never had a moment to let go by")


@pytest.mark.parametrize("game", WINDOWED, ids=lambda game: game.env_name)
def test_enter_takes_the_idle_action_that_the_games_facts_name(game, monkeypatch) -> None:
    """Enter alone lets the moment go by with the action the game's facts call idle
    (`GameInfo.idle_actions`), whatever its name; a game whose facts name none has no Enter."""
    env = snail_envs.make(game.env_name, num_players=game.min_players)
    env.reset(seed=0)
    idle_decision(env, game)
    agent = HumanAgent(read=lambda _: "", write=lambda _: None)
    assert agent.act_in(env, "player_0") in game.idle_actions
    host = env.unwrapped
    spec = dataclasses.replace(host.spec, info=dataclasses.replace(game, idle_actions=()))
    monkeypatch.setattr(host, "spec", spec)
    answers, told = iter(["", "1"]), []
    agent = HumanAgent(read=lambda _: next(answers), write=told.append)
    assert agent.act_in(env, "player_0") == host.legal_actions("player_0")[0]
    assert "'' is not a choice; type 1 to" in "\n".join(told)
