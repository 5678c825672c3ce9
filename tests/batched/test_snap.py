"""Batched Snap: ticks of reaction windows replay as the reference rules, seats go out as in the
reference environments, the learner's vector env calls from its own seat, and the heuristic port
calls as the Python heuristic."""

from __future__ import annotations

import dataclasses

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from agents.heuristics.snap import SnapHeuristic
from snail_envs.snap.rules import SNAP, WAIT, SnapOptions
from tests.batched.differential import run_differential, run_learner_replay

# (options, games, patience): 12,000 games in all. Random seats call at once nearly always;
# patient ones (waiting with probability `patience`) let windows run their ticks and matches
# stand unclaimed, so that delays, several matched ranks and pool claims all come into play.
OPTION_SETS = [
    ({}, 2_000, 0.0),
    ({"num_players": 3, "double": True, "slapjack": True, "reward": "points"}, 1_500, 0.0),
    ({"num_players": 2, "speed": True}, 1_000, 0.5),
    ({"num_players": 3, "speed": True, "ruleset": "snap_pot", "max_flips": 300}, 800, 0.0),
    ({"num_players": 4, "single_pile": True, "slapjack": True}, 800, 0.0),
    ({"num_players": 3, "match_key": "picture", "pictures": 5, "copies": 7}, 1_000, 0.5),
    ({"num_players": 4}, 800, 0.8),
    (
        {"num_players": 2, "ruleset": "snap_pot", "double": True, "reward": "points"},
        600,
        0.0,
    ),
    ({"num_players": 5, "ruleset": "snap_pot", "slapjack": True, "max_flips": 150}, 500, 0.5),
    (
        {
            "num_players": 4,
            "reaction_delay": (0, 1, 2, 1),
            "reaction_ticks": 4,
            "flipper_may_call": False,
        },
        500,
        0.6,
    ),
    ({"num_players": 8}, 300, 0.0),
    (
        # a tiny deck: games that end with no seat holding a card, or cycle until max_ticks
        {
            "ruleset": "snap_pot",
            "match_key": "picture",
            "pictures": 3,
            "copies": 2,
            "max_flips": None,
            "max_ticks": 12,
        },
        1_000,
        0.0,
    ),
    (
        {
            "num_players": 12,
            "ruleset": "snap_pot",
            "double": True,
            "max_flips": 100,
            "max_ticks": 150,
        },
        200,
        0.0,
    ),
    # margins: seats go out, and the mean of the others runs over the seats still in
    ({"num_players": 4, "ruleset": "snap_pot", "max_flips": 300, "reward": "margin"}, 500, 0.3),
    ({"num_players": 3, "flipper_may_call": False, "double": True, "reward": "margin"}, 500, 0.5),
]


@pytest.mark.parametrize(("options", "games", "patience"), OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(
    options: dict, games: int, patience: float
) -> None:
    # every tick compares each acting seat's mask and observation, the state, the rewards (−1 to
    # a seat going out) and the ends with the reference
    run_differential(
        "snap_v1", options, games=games, num_envs=50, seed=len(options), patience=patience
    )


def test_a_seat_that_goes_out_gets_minus_one_and_acts_no_more() -> None:
    batch = snail_envs.batched.make("snap_v1", 64, num_players=4)
    in_game = batch.observation_layout["in_game"]
    batch.reset(seed=3)
    out_seats = np.zeros((64, 4), bool)
    gone = 0
    for _ in range(400):
        out = batch.step(batch.random_actions())
        ended = out.terminated | out.truncated
        going = (out.rewards == -1) & ~ended[:, None]
        assert not (out.rewards[~out.terminated] > 0).any()
        assert not (going & out_seats).any(), "a seat went out twice"
        out_seats[ended] = False
        assert not out.rewards[out_seats].any(), "a seat that went out is paid"
        out_seats |= going
        gone += int(going.sum())
        assert (out.seats[out_seats] == -1).all(), "a seat that went out acts"
        views = batch.observe_all()
        for game, seat in zip(*np.nonzero(out_seats), strict=True):
            assert views[game, seat, in_game][0] == 0
    assert gone > 64


def test_a_delayed_seat_may_only_wait_before_its_delay() -> None:
    batch = snail_envs.batched.make("snap_v1", 256, reaction_delay=(0, 2))
    tick = batch.observation_layout["window_tick"]
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        window_tick = np.argmax(batch.observations[:, 1, tick], axis=1)
        early = window_tick < 2
        assert (batch.action_masks[early, 1] == [1, 0, 0, 0]).all()
        assert batch.action_masks[~early, 1, SNAP].all()
        seen.update(window_tick.tolist())
        actions = batch.random_actions()
        actions[:, 0] = np.where(rng.random(256) < 0.7, WAIT, actions[:, 0])
        batch.step(actions)
    assert seen == {0, 1, 2}


def test_decks_beyond_the_chance_tape_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="decks of at most 256 cards are supported"):
        snail_envs.batched.make("snap_v1", 4, match_key="picture", pictures=52, copies=8)
    batch = snail_envs.batched.make("snap_v1", 4, num_players=12, match_key="picture", copies=8)
    assert batch.reset(seed=0).seats.shape == (4, 12)


@pytest.mark.parametrize("reward", ["winlose", "points"])
def test_the_learner_calls_from_its_own_seat_until_it_goes_out(reward: str) -> None:
    venv = snail_envs.batched.make_vec_env("snap_v1", 64, num_players=3, reward=reward)
    layout = venv.engine.observation_layout
    piles, stacks, in_game = layout["pile_sizes"], layout["stack_sizes"], layout["in_game"]
    venv.seed(4)
    observations = venv.reset()

    def own_share(views: np.ndarray) -> np.ndarray:
        return views[:, piles][:, 0].astype(np.float64) + views[:, stacks][:, 0]

    started = own_share(observations)
    returns = np.zeros(venv.num_envs)
    rng = np.random.default_rng(0)
    episodes = went_out = 0
    while episodes < 300:
        masks = venv.action_masks()
        assert masks[:, WAIT].all(), "the learner always acts and may wait"
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        returns += rewards
        for index in np.flatnonzero(dones):
            final = infos[index]["terminal_observation"]
            others_in = final[in_game][1:3].sum()
            if final[in_game][0] == 0 and others_in >= 2:
                went_out += 1
            if reward == "points":
                ended = own_share(final[None])[0]
                assert returns[index] == pytest.approx(ended - started[index], abs=1e-6)
            else:
                assert returns[index] in (-1.0, 1.0)
                if final[in_game][0] == 0 and others_in >= 2:
                    assert returns[index] == -1.0
            returns[index] = 0
            started[index] = own_share(observations[index][None])[0]
            episodes += 1
    assert went_out > 0, "the learner never went out before the end"


def heuristic_for(options: SnapOptions) -> SnapHeuristic:
    """The Python heuristic, told the rule options (as the port knows them)."""
    fields = dataclasses.fields(options)
    return SnapHeuristic(**{f.name: getattr(options, f.name) for f in fields if f.init})


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "ruleset": "snap_pot", "slapjack": True},
        {"num_players": 3, "double": True, "slapjack": True},
        {"num_players": 3, "single_pile": True, "slapjack": True, "reaction_delay": (0, 1, 0)},
    ],
    ids=str,
)
def test_the_heuristic_port_calls_as_the_python_heuristic(options: dict) -> None:
    batch = snail_envs.batched.make("snap_v1", 128, **options)
    python = heuristic_for(batch.options)
    batch.reset(seed=2)
    rng = np.random.default_rng(0)
    calls = weighed = 0
    for _ in range(200):
        ported = batch.heuristic_actions()
        for index, slot in zip(*np.nonzero(batch.seats >= 0), strict=True):
            view, mask = batch.observations[index, slot], batch.action_masks[index, slot]
            assert ported[index, slot] == python.act(view, mask), f"game {index}, slot {slot}"
            calls += int(ported[index, slot] != WAIT)
        weighed += int((ported > SNAP).sum())
        actions = batch.random_actions()
        actions[rng.random(actions.shape) < 0.7] = WAIT
        batch.step(actions)
    assert calls > 1_000 and weighed > 100


@pytest.mark.parametrize("opponents", ["heuristic", {"heuristic": 1, "policy": 1}])
def test_the_learner_vec_env_follows_the_reference_game_against_heuristics(opponents) -> None:
    run_learner_replay(
        "snap_v1",
        {"num_players": 3, "ruleset": "snap_pot", "max_flips": 150},
        heuristic_for,
        100,
        opponents=opponents,
    )


def test_the_learner_vec_env_pays_margins_tick_by_tick_as_seats_go_out() -> None:
    """The learner, the last flipper, sits out windows in which only the in-kernel players act
    and may go out: each tick's margin is over the seats in the game in that tick."""
    run_learner_replay(
        "snap_v1",
        {"num_players": 4, "flipper_may_call": False, "max_flips": 150, "reward": "margin"},
        heuristic_for,
        300,
    )
