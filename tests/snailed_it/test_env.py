"""Snailed It! through the PettingZoo APIs: conformance, harness checks, the toss window in both
APIs, bad input, presets, rendering and golden playthroughs."""

from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

import snail_envs
from snail_envs import snailed_it_v0
from snail_envs.core import testing
from snail_envs.snailed_it.observer import OBSERVATION
from snail_envs.snailed_it.rules import PASS, TOSS, TOSS_WINDOW, card_name
from tests.marks import slow_cases
from tests.presets import rule_presets
from tests.snailed_it.invariants import check_position

GOLDEN = Path(__file__).parent / "golden"
PRESETS = rule_presets("snailed_it")
OPTION_SETS = [
    {},
    {"num_players": 3, "reward": "points"},
    {"num_players": 6, "hand_size": 12},  # all 72 cards dealt: every draw refills from tosses
    {"num_players": 2, "target": 8, "card_points": [1] * 18},
    {"num_players": 5, "hand_size": 4, "max_turns": 15},
    {"num_players": 3, "colours": 2, "values": 6, "starters": [1, 7, 3, 5], "hand_size": 3},
]


def first_window(env, seed: int, fitting: int = 2):
    """Reset `env` with `seed` and play random legal actions until a toss window opens in which
    at least `fitting` seats hold a fitting card; None if the game ends first."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    game = env.unwrapped.game
    while env.agents:
        if game.phase == TOSS_WINDOW and not env.unwrapped._tick_actions:
            holders = [s for s in game.acting_seats() if len(game.legal_actions(s)) > 1]
            if len(holders) >= fitting:
                return holders
        observation = env.observe(env.agent_selection)
        env.step(testing.random_legal_action(observation["action_mask"], rng))
    return None


# --------------------------------------------------------------------------- harness checks


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_pettingzoo_conformance(options: dict) -> None:
    testing.check_pettingzoo_conformance(snailed_it_v0, **options)


RANDOM_PLAY = [
    *[({"num_players": n, "max_rounds": 1}, 1400) for n in range(2, 7)],
    ({}, 1000),
    ({"num_players": 3, "reward": "points"}, 1000),
    ({"num_players": 6, "hand_size": 12, "max_rounds": 2}, 500),
    ({"num_players": 2, "hand_size": 30, "max_rounds": 1}, 500),
    ({"num_players": 2, "colours": 1, "values": 5, "starters": [1, 3], "hand_size": 2}, 500),
]


@pytest.mark.parametrize(("options", "games"), [({}, 20), *slow_cases(RANDOM_PLAY)], ids=str)
def test_random_play_keeps_every_card_accounted_for(options: dict, games: int) -> None:
    """10,000 random games in all (20 in the quick case): all 80 cards in exactly one place after
    every step, masks equal to the rules, observations in bounds, returns within the declared
    range."""
    report = testing.check_random_play(
        lambda: snailed_it_v0.env(**options),
        games=games,
        seed=len(str(options)),
        invariant=check_position,
    )
    assert report.games == games
    assert report.truncated == 0
    assert sum(report.wins.values()) >= games


def test_random_play_through_the_parallel_api() -> None:
    """Each parallel step is one tick: the seat to play alone, or every other seat at once."""
    env = snailed_it_v0.parallel_env(num_players=4)
    rng = random.Random(0)
    windows = 0
    for seed in range(60):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            game = env.unwrapped.game
            acting = set(game.acting_seats())
            if game.phase == TOSS_WINDOW:
                windows += 1
                assert acting == set(range(4)) - {game.turn}
            else:
                assert acting == {game.turn}
            actions = {}
            for agent in env.agents:
                mask = observations[agent]["action_mask"]
                seat = int(agent.split("_")[1])
                assert mask.any() == (seat in acting)
                actions[agent] = testing.random_legal_action(mask, rng) if mask.any() else 0
            observations, rewards, _terminations, _truncations, _ = env.step(actions)
            check_position(env.unwrapped.game)
        assert game.outcome is not None
        assert sorted(rewards.values()).count(1.0) == len(game.outcome.winners)
    assert windows > 0


@pytest.mark.slow
def test_no_hidden_information_leaks() -> None:
    assert testing.check_no_leak(lambda: snailed_it_v0.env(num_players=3), games=2) > 0
    assert (
        testing.check_no_leak(
            lambda: snailed_it_v0.env(num_players=6, hand_size=12, max_rounds=1), games=1
        )
        > 0
    )


def test_determinism_across_processes() -> None:
    testing.check_determinism(snailed_it_v0, {"num_players": 4}, seeds=[0, 1, 2])


def test_copies_continue_like_the_original() -> None:
    testing.check_copy_continuation(lambda: snailed_it_v0.env(), seed=3, steps_before_copy=40)
    env = snailed_it_v0.env(num_players=4)
    assert first_window(env, seed=5) is not None
    env.step(PASS)
    twin = pickle.loads(pickle.dumps(env))  # mid-tick: one seat has chosen
    rng_a, rng_b = random.Random(1), random.Random(1)
    for (agent_a, action_a), (agent_b, action_b) in zip(
        testing.play_steps(env, rng_a), testing.play_steps(twin, rng_b), strict=True
    ):
        assert (agent_a, action_a) == (agent_b, action_b)
    assert env.unwrapped.game.totals == twin.unwrapped.game.totals


def test_parallel_copies_continue_like_the_original() -> None:
    env = snailed_it_v0.parallel_env(num_players=3)
    env.reset(seed=9)
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    rng = random.Random(2)
    observations = {agent: env.observe(agent) for agent in env.agents}
    while env.agents:
        actions = {
            agent: testing.random_legal_action(obs["action_mask"], rng)
            if obs["action_mask"].any()
            else 0
            for agent, obs in observations.items()
        }
        observations, rewards, terminations, _truncations, _ = env.step(actions)
        for twin in twins:
            theirs = twin.step(actions)
            assert theirs[1] == rewards and theirs[2] == terminations
            for agent, observation in observations.items():
                assert np.array_equal(theirs[0][agent]["observation"], observation["observation"])
    assert all(not twin.agents for twin in twins)


def test_docstring_is_the_spec_table() -> None:
    testing.check_docstring(snailed_it_v0)


# --------------------------------------------------------------------------- the toss window


def test_aec_seats_of_a_tick_do_not_see_each_others_choices() -> None:
    """Simultaneity: "No seat sees the others' choices of the same tick before choosing" — in
    the AEC view a later seat's observation is the same whether an earlier one tossed or
    passed."""
    env = snailed_it_v0.env(num_players=4)
    holders = first_window(env, seed=0)
    assert holders is not None
    game = env.unwrapped.game
    first, later = game.acting_seats()[0], game.acting_seats()[-1]
    toss = next(a for a in game.legal_actions(first) if a != PASS) if first in holders else PASS
    later_agent = f"player_{later}"
    before = env.observe(later_agent)
    outcomes = []
    for action in {toss, PASS}:
        branch = copy.deepcopy(env)
        branch.step(action)
        for _ in game.acting_seats()[1:-1]:
            branch.step(PASS)
        assert branch.agent_selection == later_agent
        seen = branch.observe(later_agent)
        assert np.array_equal(seen["observation"], before["observation"])
        assert np.array_equal(seen["action_mask"], before["action_mask"])
        branch.step(PASS)
        outcomes.append(len(branch.unwrapped.game.tossed_pile))
    assert len(set(outcomes)) == len(outcomes)  # the tick was applied after its last seat


def test_aec_window_order_is_clockwise_from_the_players_left_and_the_player_waits() -> None:
    env = snailed_it_v0.env(num_players=5)
    assert first_window(env, seed=2, fitting=1) is not None
    game = env.unwrapped.game
    turn = game.turn
    order = []
    for _ in range(4):
        order.append(env.agent_selection)
        assert not env.observe(f"player_{turn}")["action_mask"].any()
        env.step(PASS)
    assert order == [f"player_{(turn + k) % 5}" for k in range(1, 5)]
    assert game.phase != TOSS_WINDOW or game.turn != turn


def test_parallel_tick_applies_every_toss_at_once() -> None:
    """In the parallel API one step is one tick: two seats toss together and the player draws
    two cards after it."""
    env = snailed_it_v0.parallel_env(num_players=4)
    for action_seed in range(200):
        env.reset(seed=action_seed)
        rng = random.Random(action_seed)
        observations = {agent: env.observe(agent) for agent in env.agents}
        found = False
        while env.agents and not found:
            game = env.unwrapped.game
            holders = [s for s in game.acting_seats() if len(game.legal_actions(s)) > 1]
            if game.phase == TOSS_WINDOW and len(holders) >= 2:
                found = True
                break
            actions = {
                agent: testing.random_legal_action(obs["action_mask"], rng)
                if obs["action_mask"].any()
                else 0
                for agent, obs in observations.items()
            }
            observations = env.step(actions)[0]
        if found:
            break
    assert found
    game = env.unwrapped.game
    player_cards, penalty_cards = len(game.hands[game.turn]), len(game.penalty_pile)
    actions = {f"player_{s}": PASS for s in game.acting_seats()}
    actions[f"player_{game.turn}"] = 0  # the player does not act now: ignored
    tossed = []
    for seat in holders[:2]:
        actions[f"player_{seat}"] = game.legal_actions(seat)[0]
        tossed.append(game.legal_actions(seat)[0] - TOSS)
    env.step(actions)
    assert penalty_cards >= 2, "this scenario should not need a refill"
    assert len(game.hands[game.turn]) == player_cards + 2
    assert set(tossed) <= set(game.tossed_pile)
    assert game.phase == TOSS_WINDOW


def test_a_seat_with_no_fitting_card_still_acts_with_pass_only() -> None:
    env = snailed_it_v0.env(num_players=6)
    for seed in range(50):
        env.reset(seed=seed)
        rng = random.Random(seed)
        game = env.unwrapped.game
        while env.agents:
            if game.phase == TOSS_WINDOW:
                seat = env.unwrapped._seat_of[env.agent_selection]
                if game.legal_actions(seat) == [PASS]:
                    mask = env.observe(env.agent_selection)["action_mask"]
                    assert list(np.flatnonzero(mask)) == [PASS]
                    return
            env.step(
                testing.random_legal_action(env.observe(env.agent_selection)["action_mask"], rng)
            )
    pytest.fail("no seat without a fitting card was found in a toss window")


def test_points_reward_pays_minus_each_rounds_points() -> None:
    env = snailed_it_v0.env(num_players=3, reward="points")
    env.reset(seed=4)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rng = random.Random(4)
    rounds_seen = 0
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        rounds = env.unwrapped.game.rounds_played
        env.step(
            None
            if terminated or truncated
            else testing.random_legal_action(observation["action_mask"], rng)
        )
        for other, reward in env.rewards.items():
            returns[other] += reward
            if reward:
                assert env.unwrapped.game.rounds_played == rounds + 1 or not env.agents
        rounds_seen = env.unwrapped.game.rounds_played
    totals = env.unwrapped.game.totals
    assert returns == {f"player_{s}": -float(t) for s, t in enumerate(totals)}
    assert rounds_seen >= 1


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 7}, "num_players must be an integer from 2 to 6; got 7"),
        ({"num_players": 1}, "num_players must be an integer from 2 to 6; got 1"),
        ({"num_players": "4"}, "num_players must be an integer from 2 to 6"),
        ({"num_players": 4, "hand_size": 19}, "hand_size must be an integer from 1 to 18; got 19"),
        ({"hand_size": 0}, "hand_size must be an integer from 1 to 18"),
        ({"target": 0}, "target must be an integer at least 1; got 0"),
        ({"max_rounds": 0}, "max_rounds must be an integer at least 1"),
        ({"max_turns": 0}, "max_turns must be None"),
        ({"card_points": [1, 2, 3]}, "card_points must be 18 non-negative integers"),
        ({"card_points": [-1] * 18}, "card_points must be 18 non-negative integers"),
        ({"card_points": "1" * 18}, "card_points must be 18 non-negative integers"),
        ({"colours": 0}, "colours must be an integer from 1 to 4; got 0"),
        ({"values": 19}, "values must be an integer from 1 to 18; got 19"),
        (
            {"num_players": 2, "colours": 1, "values": 5, "starters": [1, 3], "hand_size": 3},
            "hand_size must be an integer from 1 to 2; got 3",
        ),
        (
            {"starters": [1, 2, 3, 5]},
            r"starters must be some of the grey starter values \[1, 3, 5,",
        ),
        ({"starters": [1, 1, 3, 5]}, "each once"),
        ({"colours": 3, "starters": [1, 3, 5, 7]}, "at least two for each of the 3 rows"),
        ({"starters": "13"}, "starters must be some of the grey starter values"),
        ({"colour": "grey"}, "unknown option 'colour'; allowed options: num_players, hand_size"),
        ({"reward": "score"}, "reward must be one of 'winlose', 'points', 'margin'; got 'score'"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of 'raise', 'penalize'"),
        ({"render_mode": "window"}, "render_mode must be one of"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        snailed_it_v0.env(**options)


def test_illegal_actions_raise_naming_the_legal_ones() -> None:
    env = snailed_it_v0.env(num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    hand = sorted(env.unwrapped.game.hands[0])
    with pytest.raises(
        ValueError,
        match=rf"legal actions: {2 * hand[0]} \(play {card_name(hand[0])} on the left pile\)",
    ):
        env.step(PASS)
    missing = next(card for card in range(72) if card not in hand)
    with pytest.raises(ValueError, match="is illegal now"):
        env.step(2 * missing)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step("pass")
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(3.0)
    with pytest.raises(ValueError, match="is illegal now"):
        env.step(217)


def test_an_illegal_toss_in_the_window_raises() -> None:
    env = snailed_it_v0.env(num_players=4)
    assert first_window(env, seed=1, fitting=0) is not None
    with pytest.raises(ValueError, match=r"legal actions: .*216 \(pass\)"):
        env.step(0)


def test_penalize_ends_the_game() -> None:
    env = snailed_it_v0.env(num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    env.step(PASS)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


def test_parallel_requires_an_action_from_every_acting_seat() -> None:
    env = snailed_it_v0.parallel_env(num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_0 acts now but has no action"):
        env.step({"player_1": 0, "player_2": 0})


# --------------------------------------------------------------------------- presets, rendering


@pytest.mark.parametrize("path", PRESETS, ids=lambda path: path.stem)
def test_every_preset_constructs_and_plays_a_game(path: Path) -> None:
    options = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    env = snail_envs.make("snailed_it_v0", **options)
    env.reset(seed=1)
    for _ in testing.play_steps(env, random.Random(1)):
        pass
    assert env.unwrapped.game.outcome is not None


def test_presets_exist() -> None:
    assert len(PRESETS) >= 5


def test_render_is_a_spectator_view_that_hides_every_hand() -> None:
    """Redrawing everything hidden from a seat leaves both pictures unchanged."""
    env = snailed_it_v0.env(num_players=4, render_mode="ansi")
    first_window(env, seed=3, fitting=1)
    text = env.render()
    assert "row" in text and "penalty pile" in text and "toss window" in text
    picture = snailed_it_v0.SPEC.render_rgb(env.unwrapped.game)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    for seed in range(3):
        twin = env.unwrapped.resample_from_infostate("player_1", seed)
        assert twin.render() == text
        assert np.array_equal(snailed_it_v0.SPEC.render_rgb(twin.game), picture)


def test_action_strings() -> None:
    env = snailed_it_v0.env()
    env.reset(seed=0)
    assert (
        env.unwrapped.action_to_string("player_0", 2 * 6 + 1) == "play orange 7 on the right pile"
    )
    assert env.unwrapped.action_to_string("player_1", TOSS + 18 * 3 + 17) == "toss pink 18"
    assert env.unwrapped.action_to_string("player_1", PASS) == "pass"
    hand = sorted(env.unwrapped.game.hands[2])
    assert env.unwrapped.private_text("player_2") == "your hand: " + ", ".join(
        card_name(card) for card in hand
    )


def test_observation_shows_own_hand_and_relative_seats() -> None:
    env = snailed_it_v0.env(num_players=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    pieces = OBSERVATION.as_dict(env.observe("player_2")["observation"])
    assert sorted(np.flatnonzero(pieces["own_hand"])) == sorted(game.hands[2])
    assert list(np.flatnonzero(pieces["turn"])) == [1]  # seat 0 plays, one seat after seat 2
    assert pieces["hand_sizes"][:3].tolist() == pytest.approx([8 / 72] * 3)
    assert pieces["penalty_pile_size"][0] == pytest.approx(48 / 72)
    assert pieces["tossed_pile_size"][0] == 0 and pieces["rounds_played"][0] == 0
    assert pieces["totals"].tolist() == [0] * 6 and pieces["toss_window"][0] == 0
    env.step(env.unwrapped.game.legal_actions(0)[0])
    while env.unwrapped.game.rounds_played == 0:
        env.step(env.unwrapped.game.legal_actions(env.unwrapped._seat_of[env.agent_selection])[-1])
    game = env.unwrapped.game
    pieces = OBSERVATION.as_dict(env.observe("player_1")["observation"])
    assert pieces["rounds_played"][0] == pytest.approx(1 / 20)
    assert pieces["totals"][:3].tolist() == pytest.approx(
        [min(game.totals[(1 + k) % 3] / 18, 1) for k in range(3)]
    )
    assert pieces["tossed_pile_size"][0] == pytest.approx(len(game.tossed_pile) / 72)
    assert env.state().shape == env.state_space.shape


@pytest.mark.parametrize(
    ("options", "seed"),
    [
        ({"num_players": 3, "max_rounds": 1}, 7),
        ({"num_players": 5, "hand_size": 3, "target": 6}, 8),
    ],
)
def test_golden_playthrough(options: dict, seed: int, golden) -> None:
    name = "_".join(f"{k}-{v}" for k, v in sorted(options.items()))
    golden(GOLDEN / f"{name}_seed{seed}.txt", testing.playthrough(snailed_it_v0, options, seed))
