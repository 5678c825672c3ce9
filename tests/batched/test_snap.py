"""Batched Snap: ticks of reaction windows replay as the reference rules, seats go out as in the
reference environments, sessions play game after game as one episode, glimpses are as false as
`glimpse_error` says, the learner's vector env calls from its own seat, and the heuristic port
calls as the Python heuristic."""

from __future__ import annotations

import dataclasses
import os

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.agents.heuristics.snap import SnapHeuristic
from snail_envs.batched.chance import TapeChance
from snail_envs.batched.core import random_legal_actions
from snail_envs.batched.snap import NOISY, VARIANT, VARIANT_OPTIONS, is_variant
from snail_envs.snap.rules import SNAP, WAIT, SnapOptions
from tests.batched.differential import run_differential, run_learner_replay
from tests.marks import slow
from tests.names import SNAP as SNAP_ENV

# (options, games, patience): 16,600 games and 1,270 sessions in all. Random seats call at once
# nearly always; patient ones (waiting with probability `patience`) let windows run their ticks
# and matches stand unclaimed, so that delays, several matched ranks and pool claims all come
# into play.
# The default options meet the no-move rule (a tied snap_pool beside a pile match, a wrong call
# from an empty pile while a match shows); two or more right calls of a kind in one tick are
# common among random seats, so `same_tick="random"` draws often.
OPTION_SETS = [
    slow({}, 2_000, 0.0),
    slow({"num_players": 3, "double": True, "slapjack": True, "reward": "points"}, 1_500, 0.0),
    slow({"num_players": 2, "speed": True}, 1_000, 0.5),
    slow({"num_players": 3, "speed": True, "ruleset": "snap_pot", "max_flips": 300}, 800, 0.0),
    slow({"num_players": 4, "single_pile": True, "slapjack": True}, 800, 0.0),
    slow({"num_players": 3, "match_key": "picture", "pictures": 5, "copies": 7}, 1_000, 0.5),
    slow({"num_players": 4}, 800, 0.8),
    slow(
        {"num_players": 2, "ruleset": "snap_pot", "double": True, "reward": "points"},
        600,
        0.0,
    ),
    slow({"num_players": 5, "ruleset": "snap_pot", "slapjack": True, "max_flips": 150}, 500, 0.5),
    slow(
        {
            "num_players": 4,
            "reaction_delay": (0, 1, 2, 1),
            "reaction_ticks": 4,
            "flipper_may_call": False,
        },
        500,
        0.6,
    ),
    slow({"num_players": 8}, 300, 0.0),
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
    slow(
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
    slow({"num_players": 4, "ruleset": "snap_pot", "max_flips": 300, "reward": "margin"}, 500, 0.3),
    slow(
        {"num_players": 3, "flipper_may_call": False, "double": True, "reward": "margin"}, 500, 0.5
    ),
    slow({"same_tick": "random", "refresh": "shuffle"}, 1_000, 0.0),
    slow(
        {
            "num_players": 4,
            "ruleset": "snap_pot",
            "slapjack": True,
            "same_tick": "random",
            "max_flips": 300,
        },
        500,
        0.5,
    ),
    slow({"num_players": 3, "speed": True, "same_tick": "random", "refresh": "shuffle"}, 500, 0.0),
    slow({"glimpse_error": (0.6, 0.3, 0.0), "same_tick": "random", "refresh": "shuffle"}, 800, 0.5),
    slow(
        {"num_players": 4, "single_pile": True, "slapjack": True, "glimpse_error": (0.5, 0.2)},
        500,
        0.5,
    ),
    slow(
        {
            "num_players": 4,
            "ruleset": "snap_pot",
            "reaction_ticks": 4,
            "reaction_delay": (0, 1, 2, 0),
            "flipper_may_call": False,
            "glimpse_error": (1.0, 0.5, 0.25),
            "max_flips": 300,
        },
        400,
        0.6,
    ),
    (
        # the odds of each call by what a seat remembers and glimpses: pool claims (classic),
        # several pools and Jacks (snap_pot with slapjack), the central pile (single_pile)
        {
            "num_players": 3,
            "glimpse_error": (0.6, 0.3, 0.0),
            "recall": "perfect",
            "call_odds": True,
            "refresh": "shuffle",
            "match_key": "picture",
            "pictures": 6,
            "copies": 3,
        },
        300,
        0.5,
    ),
    (
        {
            "num_players": 3,
            "ruleset": "snap_pot",
            "slapjack": True,
            "glimpse_error": (0.7, 0.4),
            "recall": "perfect",
            "call_odds": True,
            "same_tick": "random",
            "max_flips": 300,
        },
        200,
        0.5,
    ),
    (
        {
            "num_players": 3,
            "single_pile": True,
            "glimpse_error": (0.8, 0.2),
            "recall": "perfect",
            "call_odds": True,
            "match_key": "picture",
            "pictures": 4,
            "copies": 5,
        },
        300,
        0.5,
    ),
    (
        # perfect recall: what every seat remembers of the card flipped last, as the reference
        # shows it, through shuffled refreshes and captures
        {
            "num_players": 3,
            "glimpse_error": (0.6, 0.3, 0.0),
            "recall": "perfect",
            "same_tick": "random",
            "refresh": "shuffle",
            "match_key": "picture",
            "pictures": 6,
            "copies": 3,
        },
        300,
        0.5,
    ),
    (
        # one-tick windows of two pictures: a false glimpse shows the other one
        {
            "ruleset": "snap_pot",
            "match_key": "picture",
            "pictures": 2,
            "copies": 4,
            "reaction_ticks": 1,
            "glimpse_error": (0.5,),
            "max_ticks": 60,
        },
        500,
        0.0,
    ),
    # full windows, exact sight
    slow({"num_players": 3, "glimpse_error": (0.0,), "reward": "points"}, 300, 0.5),
    (
        # the largest deck; nobody calls, so each game stops in the tick that shuffles seat 0's
        # pile of 128 cards, and the next deal's shuffle follows in the same step
        {
            "match_key": "picture",
            "pictures": 32,
            "copies": 8,
            "reaction_ticks": 1,
            "refresh": "shuffle",
            "glimpse_error": (0.5,),
            "max_ticks": 257,
        },
        100,
        1.0,
    ),
    # sessions: a step that ends a game deals the next; draws and truncations count for nobody,
    # ties go to sudden deaths (replayed, then shared), and seats out of a game only wait
    slow({"session": "best_of_3"}, 300, 0.0),
    slow(
        {"session": "best_of_5", "num_players": 4, "max_sudden_deaths": 1, "reward": "margin"},
        120,
        0.3,
    ),
    slow(
        {
            "session": "first_to_3",
            "num_players": 3,
            "max_sudden_deaths": 1,
            "same_tick": "random",
            "refresh": "shuffle",
            "reward": "points",
        },
        150,
        0.0,
    ),
    slow(
        {
            "session": "best_of_3",
            "num_players": 3,
            "max_sudden_deaths": 0,
            "glimpse_error": (0.6, 0.3, 0.0),
            "same_tick": "random",
            "refresh": "shuffle",
        },
        150,
        0.5,
    ),
    slow(
        {"session": "best_of_3", "num_players": 3, "speed": True, "ruleset": "snap_pot"},
        100,
        0.0,
    ),
    (
        # the tiny deck: drawn and truncated games, sudden deaths replayed, shared wins
        {
            "session": "best_of_3",
            "ruleset": "snap_pot",
            "match_key": "picture",
            "pictures": 3,
            "copies": 2,
            "max_flips": None,
            "max_ticks": 12,
            "max_sudden_deaths": 1,
            "reward": "margin",
        },
        400,
        0.0,
    ),
    # one fast row per option, so that the default test run meets each of them
    ({"num_players": 3, "double": True, "max_flips": 150}, 60, 0.3),
    ({"num_players": 2, "speed": True, "max_flips": 150}, 60, 0.5),
    ({"num_players": 3, "single_pile": True, "max_flips": 150}, 60, 0.5),
    ({"num_players": 3, "slapjack": True, "max_flips": 150}, 60, 0.5),
    ({"num_players": 3, "reaction_delay": (0, 1, 2), "max_flips": 150}, 60, 0.6),
    # snap_v2's options: a wrong call from an empty pile free again (v1's rule), and limits
    # that end games won by the most cards (ties shared, paid as draws)
    ({"num_players": 3, "wrong_call_cost": "pile", "single_pile": True}, 60, 0.5),
    ({"num_players": 3, "at_limit": "most_cards", "max_flips": 40, "max_ticks": 60}, 150, 0.5),
    (
        {"session": "best_of_3", "at_limit": "most_cards", "max_flips": 20, "ruleset": "snap_pot"},
        60,
        0.9,
    ),
    slow(
        # the largest deck: every game stops in the tick that shuffles seat 0's pile of 128
        # cards, and the session's next deal shuffles the deck in the same step
        {
            "session": "best_of_3",
            "max_sudden_deaths": 0,
            "match_key": "picture",
            "pictures": 32,
            "copies": 8,
            "reaction_ticks": 1,
            "refresh": "shuffle",
            "glimpse_error": (0.5,),
            "max_ticks": 257,
        },
        50,
        1.0,
    ),
]


@pytest.mark.parametrize(("options", "games", "patience"), OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(
    options: dict, games: int, patience: float
) -> None:
    # every tick compares each acting seat's mask and observation, the state, the rewards (−1 to
    # a seat going out) and the ends with the reference
    run_differential(
        SNAP_ENV, options, games=games, num_envs=50, seed=len(options), patience=patience
    )


def test_a_seat_that_goes_out_gets_minus_one_and_acts_no_more() -> None:
    batch = snail_envs.batched.make(SNAP_ENV, 64, num_players=4)
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
    batch = snail_envs.batched.make(SNAP_ENV, 256, reaction_delay=(0, 2))
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


def test_a_session_is_one_episode_in_which_every_seat_acts_to_its_end() -> None:
    """A seat out of one game acts with `wait` alone until the next begins; win or lose is paid
    once, at the session's end, which is never a truncation: +1 to a lone winner, 0 to each seat
    of a shared session, −1 to the others."""
    batch = snail_envs.batched.make(
        SNAP_ENV, 64, num_players=3, session="best_of_3", max_sudden_deaths=1
    )
    layout = batch.observation_layout
    in_game, game_number = layout["in_game"], layout["game_number"]
    batch.reset(seed=1)
    waited = later_games = sessions = 0
    for _ in range(600):
        assert (batch.seats == np.arange(3)).all(), "every seat acts in every tick"
        out_of_game = batch.observations[:, :, in_game][:, :, 0] == 0
        assert (batch.action_masks[out_of_game] == [1, 0, 0, 0]).all()
        waited += int(out_of_game.sum())
        later_games += int((batch.observations[:, 0, game_number][:, 0] > 1 / 4).sum())
        out = batch.step(batch.random_actions())
        assert not out.truncated.any()
        assert not out.rewards[~out.terminated].any()
        for paid in out.rewards[out.terminated]:  # one winner, or a shared session (a draw)
            winners, sharers = int((paid == 1).sum()), int((paid == 0).sum())
            assert (winners, sharers) == (1, 0) or (winners == 0 and sharers >= 2)
            assert int((paid == -1).sum()) == 3 - winners - sharers
        sessions += int(out.terminated.sum())
    assert waited > 1_000 and later_games > 1_000 and sessions > 100


def test_decks_beyond_the_chance_tape_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="decks of at most 256 cards are supported"):
        snail_envs.batched.make(SNAP_ENV, 4, match_key="picture", pictures=52, copies=8)
    batch = snail_envs.batched.make(SNAP_ENV, 4, num_players=12, match_key="picture", copies=8)
    assert batch.reset(seed=0).seats.shape == (4, 12)


@pytest.mark.parametrize("reward", ["winlose", "points"])
def test_the_learner_calls_from_its_own_seat_until_it_goes_out(reward: str) -> None:
    venv = snail_envs.batched.make_vec_env(SNAP_ENV, 64, num_players=3, reward=reward)
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
                assert returns[index] in (-1.0, 0.0, 1.0)  # 0: a draw the learner shares
                if final[in_game][0] == 0 and others_in >= 2:
                    assert returns[index] == -1.0
            returns[index] = 0
            started[index] = own_share(observations[index][None])[0]
            episodes += 1
    assert went_out > 0, "the learner never went out before the end"


def test_a_glimpse_is_false_with_the_ticks_error_and_shows_another_key_at_random() -> None:
    errors, n, k = (0.6, 0.3, 0.0), 3, 13
    batch = snail_envs.batched.make(SNAP_ENV, 256, num_players=n, glimpse_error=errors)
    observation, state = batch.observation_layout, batch.state_layout
    batch.reset(seed=0)
    shown = np.zeros((len(errors), k), np.int64)  # at each tick, by key shown − true key (mod k)
    for _ in range(300):  # nobody calls: every window runs its three ticks
        views, table = batch.observations, batch.state()
        flipper = np.argmax(table[:, state["just_flipped"]], axis=1)
        tops = table[:, state["pile_tops"]].reshape(-1, n, k)
        true = np.argmax(tops[np.arange(batch.num_envs), flipper], axis=1)
        tick = np.argmax(views[:, 0, observation["window_tick"]], axis=1)
        glimpses = views[:, :, observation["glimpses"]].reshape(-1, n, len(errors), k)
        latest = glimpses[np.arange(batch.num_envs), :, tick]  # (games, seats, k)
        assert (latest.sum(axis=2) == 1).all(), "every seat glimpses at every tick"
        offsets = (np.argmax(latest, axis=2) - true[:, None]) % k
        np.add.at(shown, (np.repeat(tick, n), offsets.ravel()), 1)
        batch.step(np.zeros((batch.num_envs, n), np.int64))
    for tick, error in enumerate(errors):
        glimpsed = shown[tick].sum()
        assert glimpsed > 50_000
        assert abs(1 - shown[tick, 0] / glimpsed - error) < 0.01
        if error:
            false = shown[tick, 1:] / shown[tick, 1:].sum()
            assert np.abs(false - 1 / (k - 1)).max() < 0.01


def test_a_recorded_occurrence_replays_only_where_it_is_possible() -> None:
    tape = np.array([1, 0, 1, 2], np.int16)
    chance = TapeChance(tape, 0, lambda: (0, 4))
    assert chance.occurs(0.5) and not chance.occurs(1e-9)
    with pytest.raises(ValueError, match=r"occurrence 1 is not among \(0,\)"):
        chance.occurs(0.0)
    chance = TapeChance(tape, 1, lambda: (0, 4))
    with pytest.raises(ValueError, match=r"occurrence 0 is not among \(1,\)"):
        chance.occurs(1.0)
    chance = TapeChance(tape, 3, lambda: (0, 4))
    with pytest.raises(ValueError, match="occurrence 2 is not among"):
        chance.occurs(0.5)


def heuristic_for(options: SnapOptions) -> SnapHeuristic:
    """The Python heuristic, told the rule options (as the port knows them)."""
    fields = dataclasses.fields(options)
    return SnapHeuristic(**{f.name: getattr(options, f.name) for f in fields if f.init})


@pytest.mark.parametrize(
    "options",
    [
        slow({"num_players": 4, "ruleset": "snap_pot", "slapjack": True}),
        {"num_players": 3, "double": True, "slapjack": True},
        {"num_players": 3, "single_pile": True, "slapjack": True, "reaction_delay": (0, 1, 0)},
        slow(
            {
                "num_players": 4,
                "ruleset": "snap_pot",
                "slapjack": True,
                "flipper_may_call": False,
                "same_tick": "random",
                "refresh": "shuffle",
            }
        ),
        slow(
            {
                "num_players": 4,
                "ruleset": "snap_pot",
                "slapjack": True,
                "glimpse_error": (0.6, 0.3, 0.0),
                "same_tick": "random",
                "refresh": "shuffle",
            }
        ),
        slow(
            {
                "num_players": 3,
                "single_pile": True,
                "slapjack": True,
                "reaction_delay": (0, 1, 0),
                "glimpse_error": (0.9, 0.5),
            }
        ),
        slow(
            {
                "num_players": 5,
                "slapjack": True,
                "reaction_ticks": 1,
                "glimpse_error": (0.75,),
                "flipper_may_call": False,
            }
        ),
    ],
    ids=str,
)
def test_the_heuristic_port_calls_as_the_python_heuristic(options: dict) -> None:
    batch = snail_envs.batched.make(SNAP_ENV, 128, **options)
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


class KernelRandom:
    """The in-kernel random player of one game, replayed from a copy of its record: a seat with
    a choice takes a uniformly random legal action from the game's agent generator, in seat
    order; a seat that may only wait draws nothing (`snail_envs.batched.snap.random_action`)."""

    def __init__(self, record: np.ndarray) -> None:
        self.record = record

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        chosen = np.zeros((1, 1), np.int64)
        random_legal_actions(self.record, mask[None, None], np.zeros((1, 1), np.int8), chosen)
        return int(chosen[0, 0])


@pytest.mark.parametrize(
    ("options", "opponents"),
    [
        ({"num_players": 3, "ruleset": "snap_pot", "max_flips": 150}, "heuristic"),
        (
            {"num_players": 3, "ruleset": "snap_pot", "max_flips": 150},
            {"heuristic": 1, "policy": 1},
        ),
        (
            {
                "num_players": 3,
                "slapjack": True,
                "flipper_may_call": False,
                "same_tick": "random",
                "refresh": "shuffle",
                "max_flips": 150,
            },
            "heuristic",
        ),
        (
            {
                "num_players": 4,
                "flipper_may_call": False,
                "same_tick": "random",
                "refresh": "shuffle",
            },
            "random",
        ),
        (
            {
                "num_players": 3,
                "glimpse_error": (0.6, 0.3, 0.0),
                "same_tick": "random",
                "refresh": "shuffle",
                "max_flips": 150,
            },
            "random",
        ),
        slow(
            {
                "num_players": 4,
                "single_pile": True,
                "reaction_delay": (0, 1, 0, 1),
                "glimpse_error": (0.5, 0.2),
                "max_flips": 150,
            },
            {"random": 1, "policy": 1},
        ),
        slow(
            {
                "num_players": 3,
                "glimpse_error": (0.6, 0.3, 0.0),
                "same_tick": "random",
                "refresh": "shuffle",
                "max_flips": 150,
            },
            "heuristic",
        ),
        slow(
            {
                "num_players": 4,
                "ruleset": "snap_pot",
                "slapjack": True,
                "reaction_delay": (0, 1, 0, 2),
                "glimpse_error": (0.8, 0.4, 0.1),
                "max_flips": 150,
            },
            {"heuristic": 2, "random": 1, "policy": 1},
        ),
        slow(
            {
                "num_players": 3,
                "ruleset": "snap_pot",
                "flipper_may_call": False,
                "glimpse_error": (0.6, 0.3),
                "max_flips": 150,
            },
            "policy",
        ),
    ],
    ids=str,
)
def test_the_learner_vec_env_follows_the_reference_game(options: dict, opponents) -> None:
    # in-kernel heuristics or random players, or the Python heuristic as the policy
    run_learner_replay(
        SNAP_ENV, options, heuristic_for, 100, opponents=opponents, replay_random=KernelRandom
    )


@pytest.mark.parametrize(
    ("options", "opponents"),
    [
        (
            {"num_players": 3, "session": "best_of_3", "max_flips": 150},
            {"heuristic": 1, "random": 1, "policy": 1},
        ),
        (
            {
                "session": "first_to_3",
                "max_sudden_deaths": 1,
                "same_tick": "random",
                "refresh": "shuffle",
                "max_flips": 150,
                "reward": "margin",
            },
            "heuristic",
        ),
        slow(
            {
                "num_players": 4,
                "session": "best_of_5",
                "max_sudden_deaths": 0,
                "glimpse_error": (0.6, 0.3, 0.0),
                "max_flips": 150,
                "reward": "points",
            },
            "random",
        ),
        ({"session": "best_of_3", "max_sudden_deaths": 1, "max_flips": 150}, "policy"),
    ],
    ids=str,
)
def test_the_learner_vec_env_plays_a_session_as_one_episode(options: dict, opponents) -> None:
    # the learner's episode ends with the session: its seat never leaves before
    run_learner_replay(
        SNAP_ENV, options, heuristic_for, 40, opponents=opponents, replay_random=KernelRandom
    )


def test_the_learner_vec_env_pays_margins_tick_by_tick_as_seats_go_out() -> None:
    """Seats go out, the last flipper waiting among them: each tick's margin is over the seats
    in the game in that tick."""
    run_learner_replay(
        SNAP_ENV,
        {"num_players": 4, "flipper_may_call": False, "max_flips": 150, "reward": "margin"},
        heuristic_for,
        300,
    )


VARIANT_CODE = {
    "snail_envs.batched.snap.end_of_game",
    "snail_envs.batched.snap.session_decided",
    "snail_envs.batched.snap.claimable_pools",
    "snail_envs.batched.snap.win_pools",
    "snail_envs.batched.snap.refresh",
    "snail_envs.batched.snap.first_of",
    "snail_envs.batched.snap.at_limit",
    "snail_envs.batched.snap.take_stack_tops",
    "snail_envs.batched.snap.burn",
    "snail_envs.batched.snap.write_centre",
    "snail_envs.batched.snap.write_session",
    "snail_envs.batched.snap.glimpse",
    "snail_envs.batched.snap.show_glimpses",
    "snail_envs.batched.snap.show_call_odds",
    "snail_envs.batched.snap.glimpse_likelihood",
    "snail_envs.agents.heuristics.snap.believed_call",
}
"""Snap's functions (the heuristic's among them) that only a variant's rules, or noisy sight,
run."""


def test_the_standard_game_compiles_none_of_the_variants_code(tmp_path) -> None:
    """Snap's kernels know a variant, and noisy sight, by the type of the rules' record: a first
    step of the standard game and its heuristic's first choice, in a fresh interpreter with an
    empty cache, compile none of the code that only a variant or noisy sight runs; a variant's
    compile its own."""
    import json
    import subprocess
    import sys

    code = (
        "import json\n"
        "from numba.core import event\n"
        "import snail_envs.batched as b\n"
        "compiled = set()\n"
        "class Compiles(event.Listener):\n"
        "    def on_start(self, event):\n"
        "        function = event.data['dispatcher'].py_func\n"
        "        compiled.add(f'{function.__module__}.{function.__qualname__}')\n"
        "    def on_end(self, event):\n"
        "        pass\n"
        "event.register('numba:compile', Compiles())\n"
        "seen = []\n"
        "for options in json.loads(sys.argv[1]):\n"
        "    batch = b.make('snap_v2', 4, **options)\n"
        "    batch.reset(seed=0)\n"
        "    batch.step(batch.random_actions())\n"
        "    batch.heuristic_actions()\n"
        "    seen.append(sorted(compiled))\n"
        "    compiled.clear()\n"
        "print(json.dumps(seen))\n"
    )
    variant = {"ruleset": "snap_pot", "session": "best_of_3", "refresh": "shuffle"}
    noisy = {"glimpse_error": [0.3, 0.1]}
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code, json.dumps([{}, variant, noisy])],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    standard_code, variant_code, noisy_code = map(set, json.loads(result.stdout))
    assert not standard_code & VARIANT_CODE
    batched, heuristic = "snail_envs.batched.snap.", "snail_envs.agents.heuristics.snap."
    compiled_for_the_variant = {"end_of_game", "session_decided", "claimable_pools", "refresh"}
    assert {batched + name for name in compiled_for_the_variant} <= variant_code
    compiled_for_noisy_sight = {batched + "show_glimpses", heuristic + "believed_call"}
    assert compiled_for_noisy_sight <= noisy_code
    fields = {
        name: snail_envs.batched.make(SNAP_ENV, 2, **options).rules.dtype.names
        for name, options in [("standard", {}), ("variant", variant), ("noisy", noisy)]
    }
    assert VARIANT not in fields["standard"] and NOISY not in fields["standard"]
    assert VARIANT in fields["variant"] and NOISY not in fields["variant"]
    assert VARIANT in fields["noisy"] and NOISY in fields["noisy"]


@pytest.mark.parametrize("name", VARIANT_OPTIONS)
def test_an_option_off_its_default_plays_a_variant(name: str) -> None:
    """Each option whose code the standard game's kernels leave out makes a variant when it is
    off its default; the default options are the standard game."""
    values = {
        "ruleset": "snap_pot",
        "speed": True,
        "double": True,
        "single_pile": True,
        "slapjack": True,
        "same_tick": "random",
        "refresh": "shuffle",
        "at_limit": "most_cards",
        "session": "first_to_3",
        "glimpse_error": (0.2,),
    }
    assert not is_variant(SnapOptions())
    assert is_variant(SnapOptions(**{name: values[name]}))
