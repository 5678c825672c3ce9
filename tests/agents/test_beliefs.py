"""The search's belief: tables that follow the game, weighed by a known agent's likelihood of the
actions seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.agents.base import choose_action
from snail_envs.agents.beliefs import ModelBelief
from snail_envs.registry import FACTS, GAME_FOLDERS, GAMES
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT, SNAILED_IT, SNAP

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
def test_tables_at_which_the_deterministic_target_would_not_have_played_so_are_dropped(
    played: int, ruled_out: str
) -> None:
    # in this deal (seed 0) the heuristic holding yellow and blue moves die 2, holding green
    # and yellow die 1: either move rules out the other card
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    host = env.unwrapped
    belief = ModelBelief(make_agent("heuristic", PEDZACE_SLIMAKI, options=mini(PEDZACE_SLIMAKI)))
    belief.reset(0)
    before = {table.game.private_text(1) for table in after_start(belief, host)}
    belief.update(host, "player_0", "player_1", played)
    env.step(played)
    after = {table.game.private_text(1) for table in after_start(belief, host)}
    assert f"your card: the {ruled_out} snails" in before
    assert after == before - {f"your card: the {ruled_out} snails"}
    # the mini's redraws are two (player_1 holds one of the two cards player_0 does not): a
    # table each, and the one the move leaves is the belief, whole
    assert len(before) == 2 and belief.weights == [1.0]
    assert belief.restarts == 0


def after_start(belief: ModelBelief, host: Any) -> list[Any]:
    """The belief's tables once it has followed `host` to where it is (player_0 searching)."""
    belief.world(host, "player_0", seed=0)
    return list(belief.tables)


def test_a_game_no_table_can_follow_starts_the_belief_afresh() -> None:
    # told two moves of player_1 in a row, the tables play the first: then player_0 is to act
    # at every table, not player_1 as in the game
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    host = env.unwrapped
    belief = ModelBelief(make_agent("heuristic", PEDZACE_SLIMAKI, options=mini(PEDZACE_SLIMAKI)))
    belief.update(host, "player_0", "player_1", 2)
    belief.update(host, "player_0", "player_1", 1)
    assert belief.restarts == 1
    assert belief.weights == [1.0, 1.0]  # the two redraws of the mini, afresh


def test_random_play_weighs_every_table_alike() -> None:
    env = after_first_move(PEDZACE_SLIMAKI, seed=0)
    belief = ModelBelief(make_agent("random", PEDZACE_SLIMAKI), hypotheses=8)
    host = env.unwrapped
    assert belief.likelihood(host.resample_from_infostate("player_0", 1), "player_1", 2) == 0.5
    belief.update(host, "player_0", "player_1", 2)
    belief.world(host, "player_0", seed=0)
    assert belief.weights == [1.0, 1.0]


@pytest.mark.parametrize("env_name", [SNAILED_IT, PEDZACE_SLIMAKI])
def test_the_tables_follow_the_game_and_never_rule_out_the_truth(env_name: str) -> None:
    # player_1 plays as the model does, so the real table is always possible: no restart, the
    # real hidden cards are held at some table, and each table shows player_0 what the game
    # shows it. In Snailed It! cards change hands (played, drawn): a table keeps its own.
    for belief, host in followed_games(env_name, branches=256):
        assert host.game.private_text(1) in {t.game.private_text(1) for t in belief.tables}
        assert belief.restarts == 0


def test_a_step_of_more_outcomes_than_branches_is_sampled_and_its_tables_still_agree() -> None:
    # one branch: every step that draws chance (the dice) is tried once, seeded, and the
    # tables whose try shows player_0 other dice than the game's are dropped
    for belief, host in followed_games(PEDZACE_SLIMAKI, branches=1):
        seen = host.observe("player_0")
        for table in belief.tables:
            assert np.array_equal(table.observe("player_0")["observation"], seen["observation"])


@pytest.mark.parametrize("env_name", [PEDZACE_SLIMAKI, SNAIL_SPRINT])
def test_where_every_redraw_fits_the_belief_is_the_exact_posterior(env_name: str) -> None:
    # the minis: player_1 holds one of the cards player_0 does not, each as likely, and random
    # play tells nothing of it. The belief holds each redraw once, with its probability, not a
    # sample of them: every card player_1 may hold weighs the same, exactly, all game.
    for belief, host in followed_games(env_name, branches=256, model="random"):
        cards: dict[str, float] = {}
        for table, weight in zip(belief.tables, belief.weights, strict=True):
            card = table.game.private_text(1)
            cards[card] = cards.get(card, 0.0) + weight
        assert len(cards) > 1
        assert max(cards.values()) == pytest.approx(min(cards.values()), abs=1e-12)
        assert host.game.private_text(1) in cards


@pytest.mark.parametrize("env_name", [PEDZACE_SLIMAKI, SNAIL_SPRINT])
def test_dice_every_seat_sees_are_shown_to_the_tables_not_tried(env_name: str) -> None:
    # the rulebook's games: "roll the dice" of the seat to play, up to five dice of six faces
    # (7,776 rolls; two dice of six in Snail Sprint!, rolled again while a move is forced),
    # far more than `branches` tries would match. Each table is shown the game's roll, seen by
    # all, so the belief follows whole games with no restart, every table showing player_0
    # what the game shows it (random play as the model: no table is ruled out by a choice).
    rulebook = {"num_players": 2}
    for belief, host in followed_games(env_name, branches=16, options=rulebook, model="random"):
        seen = host.observe("player_0")["observation"]
        for table in belief.tables:
            assert np.array_equal(table.observe("player_0")["observation"], seen)
        assert belief.restarts == 0


def followed_games(
    env_name: str, branches: int, options: dict[str, Any] | None = None, model: str = "heuristic"
) -> Any:
    """(belief, real table) at every decision of player_0 (random play) in 6 games of the
    mini (or of `options`) against `model` (the heuristic), the belief (16 tables, `model` as
    its model) told every action; each time a world drawn from it shows player_0 what the game
    shows it."""
    options = mini(env_name) if options is None else options
    target = make_agent(model, env_name, seed=5, options=options)
    searcher = make_agent("random", env_name, seed=3)
    for game in range(6):
        env = snail_envs.make(env_name, **options)
        env.reset(seed=game)
        host = env.unwrapped
        belief = ModelBelief(target, hypotheses=16, branches=branches)
        belief.reset(game)
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            else:
                action = choose_action(target if agent == "player_1" else searcher, env, agent)
            if agent == "player_0" and action is not None:
                world = belief.world(host, "player_0", seed=game)
                seen = host.observe("player_0")["observation"]
                assert np.array_equal(world.observe("player_0")["observation"], seen)
                yield belief, host
            belief.update(host, "player_0", agent, action)
            env.step(action)


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


def test_a_choice_made_in_a_window_weighs_only_once_the_window_settles() -> None:
    # Snap's first tick is a window of both seats, player_0 choosing first: player_1, searching,
    # cannot see its choice yet. Its worlds have player_0 choose again as the model would, and
    # the choice weighs the tables only once the window settles: here player_0 chose against
    # the model, which then rules out every table.
    env = snail_envs.make(SNAP, num_players=2)
    env.reset(seed=0)
    host = env.unwrapped
    model = make_agent("heuristic", SNAP)
    modelled = choose_action(model, env, "player_0")
    against = next(a for a in host.legal_actions("player_0") if a != modelled)
    belief = ModelBelief(model, hypotheses=8)
    belief.update(host, "player_1", "player_0", against)
    env.step(against)
    assert host.window_open
    world = belief.world(host, "player_1", seed=0)
    assert world._tick_actions[0] == modelled != host._tick_actions[0]
    assert belief.weights == [1.0] * 8 and belief.held == [0.0] * 8
    own = host.legal_actions("player_1")[0]
    belief.update(host, "player_1", "player_1", own)
    env.step(own)
    assert not host.window_open
    belief.world(host, "player_1", seed=0)
    assert belief.restarts == 1
