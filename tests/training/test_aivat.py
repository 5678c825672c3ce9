"""AIVAT's chance correction in `snail-eval --aivat`: fresh outcomes drawn as the game draws its
own (so that every correction has mean zero), scores with the luck of the dice taken out, and
the estimator named in the report."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import numba  # noqa: F401  (the rollouts run in the batched engines)
import numpy as np
import pytest

import snail_envs
import snail_envs.batched
from snail_envs.core.chance import SeededChance
from snail_envs.core.stats import side_scores
from snail_envs.training import evaluate
from snail_envs.training.aivat import (
    STAND_IN,
    ChanceEvent,
    ChanceLog,
    RolloutValue,
    rollout_players,
)
from snail_envs.training.evaluate import game_result
from tests.batched.test_search_worlds import assert_same_means, game_in_progress
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT, SNAILED_IT

SITUATIONS = [(SNAIL_SPRINT, {}), (PEDZACE_SLIMAKI, {}), (SNAILED_IT, {"num_players": 3})]
"""A race whose every turn rolls, one whose every choice rolls again, and a game whose tosses
are simultaneous windows (several seats' choices make one transition)."""


def states_of(env_name: str, options: dict[str, Any], records: np.ndarray) -> np.ndarray:
    """The full state of each record of the batched engine."""
    engine = snail_envs.batched.make(env_name, len(records), **options)
    engine.load_worlds(records, 0)
    return engine.state().astype(np.float64)


@pytest.mark.parametrize(("env_name", "options"), SITUATIONS)
def test_fresh_outcomes_are_drawn_as_the_reference_game_draws_them(
    env_name: str, options: dict[str, Any]
) -> None:
    # the correction's mean is zero because its fresh outcomes come from the same distribution
    # as the real one: the engine's fresh outcomes of one transition against the reference's
    rng = random.Random(7)
    value = RolloutValue(env_name, options, {}, rollouts=3_000)
    loader = value.engine(1)
    mine = np.zeros(options.get("num_players", 2), bool)
    checked = 0
    for seed in range(400):
        game, observer = game_in_progress(env_name, options, seed, ticks=4 + seed % 40)
        tick = {seat: rng.choice(game.legal_actions(seat)) for seat in game.acting_seats()}
        twin = copy.deepcopy(game)
        twin.chance = SeededChance(seed)
        drawn_before = twin.chance.state()
        twin.apply(tick)
        if twin.chance.state() == drawn_before or twin.outcome is not None:
            continue  # no chance in this transition, or it may end the game
        width = loader.seats.shape[1]
        choices = np.zeros(width, np.int64)
        for seat, action in tick.items():
            choices[seat if width > 1 else 0] = action
        event = ChanceEvent(loader.record_of(game, 0), choices, None)
        _, records, _ = value.fresh_outcomes([event], mine, seed)
        assert len(records) == 3_000, "the fresh outcomes all go on (the reference's did once)"
        reference = []
        for outcome in range(3_000):
            fresh = copy.deepcopy(game)
            fresh.chance = SeededChance(10_000 + outcome)
            fresh.apply(tick)
            observer.reset(fresh)
            reference.append(observer.state(fresh))
        assert_same_means(states_of(env_name, options, records), np.array(reference, np.float64))
        checked += 1
        if checked == 2:
            return
    pytest.fail(f"no transition that drew chance in {env_name}")


@pytest.mark.parametrize(("env_name", "options"), SITUATIONS)
def test_fresh_deals_are_dealt_as_the_reference_deals(
    env_name: str, options: dict[str, Any]
) -> None:
    value = RolloutValue(env_name, options, {}, rollouts=3_000)
    deal = ChanceEvent(None, np.zeros(0, np.int64), None)
    _, records, _ = value.fresh_outcomes([deal], np.zeros(3, bool), seed=5)
    env = snail_envs.make(env_name, **options)
    observer = env.unwrapped._observer
    reference = []
    for seed in range(3_000):
        env.reset(seed=20_000 + seed)
        reference.append(observer.state(env.unwrapped.game))
    assert_same_means(states_of(env_name, options, records), np.array(reference, np.float64))


def test_the_sides_scores_of_a_finished_game_follow_game_result() -> None:
    mine = np.array([True, False, True])
    returns = np.array([[1, -1, -1], [-1, 1, -1], [1, 1, -1], [-1, -1, 1], [0, 0, -1]], float)
    np.testing.assert_array_equal(side_scores(returns, mine), [1, 0, 0.5, 1, 0.5])
    seats = ["a", "b", "a"]
    for row, expected in zip(returns, side_scores(returns, mine), strict=True):
        record = evaluate.GameRecord(seats, list(row), [0.0] * 3, truncated=False)
        assert game_result(record, "a") == expected


def corrected_games(
    env_name: str, agents: tuple[str, str], games: int, rollouts: int
) -> tuple[np.ndarray, np.ndarray]:
    """The first agent's results in `games` games against the second, and their corrections."""
    tournament = evaluate.run_tournament(
        env_name, list(agents), games, seed=3, progress=False, aivat=rollouts
    )
    pairing = tournament.pairings[0]
    results = np.array([game_result(record, agents[0]) for record in pairing.records])
    assert pairing.corrections is not None
    return results, np.array(pairing.corrections)


def test_the_correction_takes_the_luck_of_the_dice_out_of_a_race() -> None:
    # neither agent decides anything by chance of its own: what varies is the dice, and the
    # corrected results vary far less than the results
    results, corrections = corrected_games(SNAIL_SPRINT, ("heuristic", "ppo"), 32, 128)
    corrected = results - corrections
    assert corrected.std() < 0.7 * results.std()
    standard_error = corrections.std() / np.sqrt(corrections.size)
    assert abs(corrections.mean()) < 4 * standard_error + 0.02


def test_the_same_seed_gives_the_same_corrections() -> None:
    first = corrected_games(PEDZACE_SLIMAKI, ("ppo", "heuristic"), 4, 8)
    second = corrected_games(PEDZACE_SLIMAKI, ("ppo", "heuristic"), 4, 8)
    np.testing.assert_array_equal(first[1], second[1])
    assert first[1].any()


def test_a_chance_log_records_the_deal_and_each_transition_that_drew_chance() -> None:
    env = snail_envs.make(SNAILED_IT, num_players=3, reward="winlose")
    env.reset(seed=1)
    log = ChanceLog(SNAILED_IT, {"num_players": 3, "reward": "winlose"}, ["a", "b", "a"], "a")
    log.dealt(env)
    rng = random.Random(1)
    drew = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]).tolist())
        game = env.unwrapped.game
        completes = len(env.tick_choices) + 1 == len(game.acting_seats())
        state = game.chance.state()
        log.before_step(env, agent, action)
        env.step(action)
        log.after_step(env)
        drew += completes and game.chance.state() != state
    assert len(log.events) == 1 + drew and drew > 0
    assert log.events[0].before is None
    assert all(event.before is not None for event in log.events[1:])
    ended = [event.after is None for event in log.events]
    assert not any(ended[:-1]), "only a game's last transition ends it"


def test_agents_the_engine_cannot_play_are_played_by_the_heuristic_in_the_rollouts() -> None:
    players = rollout_players(["search:8", "random", "heuristic"], PEDZACE_SLIMAKI, {})
    assert players == {"search:8": STAND_IN, "random": "random", "heuristic": "heuristic"}
    tournament = evaluate.run_tournament(
        PEDZACE_SLIMAKI, ["search:8", "random"], 2, progress=False, aivat=4
    )
    assert "search:8 by heuristic, random by itself" in tournament.estimator


def test_the_report_names_the_estimator_and_the_options_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--env", SNAIL_SPRINT, "--agents", "random", "heuristic", "--games", "4"]
    evaluate.main([*argv, "--aivat", "4", "--duplicate", "--out", str(tmp_path / "out")])
    estimator = json.loads((tmp_path / "out" / "results.json").read_text())["estimator"]
    assert estimator.startswith("AIVAT chance correction") and "duplicate deals" in estimator
    assert "4 rollouts a state" in (tmp_path / "out" / "results.md").read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        evaluate.main([*argv, "--aivat", "-2", "--out", str(tmp_path / "bad")])
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "--aivat takes a number of rollouts, at least 1; got -2" in error[0]
    with pytest.raises(ValueError, match="--table has no pairs"):
        evaluate.run_tournament(SNAIL_SPRINT, ["random", "heuristic"], games=2, table=True, aivat=4)
