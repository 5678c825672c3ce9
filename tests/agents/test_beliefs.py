"""The search's belief: redraws weighed by a known agent's likelihood of the actions seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.agents.beliefs import ModelBelief
from snail_envs.registry import FACTS, GAME_FOLDERS, GAMES
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def mini(env_name: str) -> dict[str, Any]:
    folder = GAME_FOLDERS[GAMES.index(FACTS[env_name])]
    options: dict[str, Any] = yaml.safe_load((CONFIGS / folder / "mini.yaml").read_text())
    return options


def after_first_move(env_name: str, seed: int) -> Any:
    """The mini after player_0 played its first legal action: player_1 (the target) to play."""
    env = snail_envs.make(env_name, **mini(env_name))
    env.reset(seed=seed)
    env.step(env.unwrapped.legal_actions("player_0")[0])
    assert env.agent_selection == "player_1"
    return env


def card_of(host: Any, seed: int) -> str:
    """player_1's card in the redraw `seed` of what player_0 cannot see."""
    return str(host.resample_from_infostate("player_0", seed).game.private_text(1))


@pytest.mark.parametrize("played, ruled_out", [(2, "green and yellow"), (1, "yellow and blue")])
def test_redraws_in_which_the_deterministic_target_would_not_have_played_so_weigh_nothing(
    played: int, ruled_out: str
) -> None:
    # in this deal (seed 0) the heuristic holding yellow and blue moves die 2, holding green
    # and yellow die 1: either move rules out the other card
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    host = env.unwrapped
    belief = ModelBelief(make_agent("heuristic", PEDZACE_SLIMAKI, options=mini(PEDZACE_SLIMAKI)))
    belief.reset(0)
    belief.update(host, "player_0", "player_1", played)
    cards = {seed: card_of(host, seed) for seed in belief.seeds}
    weights = dict(zip(belief.seeds, belief.weights, strict=True))
    assert {cards[s] for s in cards if weights[s] == 0} == {f"your card: the {ruled_out} snails"}
    assert all(weights[s] == 1 for s in cards if ruled_out not in cards[s])
    assert belief.restarts == 0


def test_a_history_no_redraw_explains_starts_the_belief_afresh() -> None:
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    host = env.unwrapped
    belief = ModelBelief(make_agent("heuristic", PEDZACE_SLIMAKI, options=mini(PEDZACE_SLIMAKI)))
    belief.update(host, "player_0", "player_1", 2)
    belief.update(host, "player_0", "player_1", 1)
    assert belief.restarts == 1
    assert belief.weights == [1.0] * belief.hypotheses


def test_random_play_weighs_every_redraw_alike() -> None:
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    belief = ModelBelief(make_agent("random", PEDZACE_SLIMAKI), hypotheses=8)
    host = env.unwrapped
    assert belief.likelihood(host.resample_from_infostate("player_0", 1), "player_1", 2) == 0.5
    belief.update(host, "player_0", "player_1", 2)
    assert belief.weights == [1.0] * 8


@pytest.mark.parametrize("env_name", [PEDZACE_SLIMAKI, SNAIL_SPRINT])
def test_a_redraw_seed_names_the_same_cards_all_game(env_name: str) -> None:
    env = snail_envs.make(env_name, **mini(env_name))
    env.reset(seed=2)
    host = env.unwrapped
    at_deal = [card_of(host, seed) for seed in range(10)]
    env.step(host.legal_actions("player_0")[-1])
    assert host.legal_actions("player_1")
    assert [card_of(host, seed) for seed in range(10)] == at_deal
    assert len(set(at_deal)) > 1
