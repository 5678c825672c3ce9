"""Batched Snailed It!: ticks with toss windows replay as the reference rules, and the learner's
vector env acts in both phases of its seat; the heuristic port decides as the Python heuristic; a
game of the reference engine loads into a record exactly, and rollouts score as the rules do."""

from __future__ import annotations

import copy
import random

import numba
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.agents.heuristics.snailed_it import SnailedItHeuristic
from snail_envs.batched.snailed_it import card_set, count_between, nth_card
from snail_envs.snailed_it.observer import SnailedItObserver
from snail_envs.snailed_it.rules import (
    NUM_ACTIONS,
    PASS,
    PLAY_ACTIONS,
    TOSS_WINDOW,
    SnailedIt,
    play_action,
)
from tests.batched.differential import run_differential, run_learner_replay
from tests.marks import slow
from tests.names import SNAILED_IT
from tests.snailed_it.scripted import card, deal

# (options, games): 11,500 games in all. A default game is ~160 ticks of up to 5 acting seats,
# each compared with the reference observer; smaller hands, lower targets and fewer rounds make
# most of the games short, to keep this affordable.
OPTION_SETS = [
    slow({}, 1_000),
    slow({"num_players": 6, "reward": "points", "max_rounds": 1}, 1_000),
    slow({"num_players": 2, "hand_size": 5, "target": 30, "max_turns": 60}, 1_000),
    slow({"num_players": 3, "target": 8}, 1_500),
    slow({"num_players": 5, "hand_size": 4, "max_rounds": 2}, 1_500),
    slow({"num_players": 4, "hand_size": 3, "target": 6}, 2_500),
    slow(
        {"num_players": 3, "hand_size": 6, "max_rounds": 1, "card_points": [3] * 18},
        1_500,
    ),
    ({"num_players": 4, "hand_size": 3, "target": 6, "reward": "margin"}, 1_500),
]


@pytest.mark.parametrize(("options", "games"), OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(options: dict, games: int) -> None:
    run_differential("snailed_it_v0", options, games=games, num_envs=100, seed=len(options))


@pytest.mark.parametrize(
    "options",
    [{"num_players": 4}, {"num_players": 6, "hand_size": 5, "card_points": list(range(1, 19))}],
    ids=str,
)
def test_the_heuristic_port_chooses_as_the_python_heuristic(options: dict) -> None:
    batch = snail_envs.batched.make("snailed_it_v0", 128, **options)
    python = SnailedItHeuristic(card_points=batch.options.card_points)
    batch.reset(seed=1)
    plays = tosses = 0
    for _ in range(150):
        ported = batch.heuristic_actions()
        for index, slot in zip(*np.nonzero(batch.seats >= 0), strict=True):
            view, mask = batch.observations[index, slot], batch.action_masks[index, slot]
            assert ported[index, slot] == python.act(view, mask), f"game {index}, slot {slot}"
            if mask[:PLAY_ACTIONS].any():
                plays += 1
            elif ported[index, slot] != PASS:
                tosses += 1
        batch.step(batch.random_actions())
    assert plays > 5_000 and tosses > 500


@pytest.mark.parametrize(
    ("opponents", "reward"),
    [
        ("heuristic", "winlose"),
        ({"heuristic": 1, "policy": 1}, "winlose"),
        ({"heuristic": 1, "policy": 1}, "margin"),
    ],
    ids=str,
)
def test_the_learner_vec_env_follows_the_reference_game_against_heuristics(
    opponents, reward: str
) -> None:
    run_learner_replay(
        "snailed_it_v0",
        {
            "num_players": 4 if reward == "margin" else 3,
            "hand_size": 5,
            "target": 8,
            "reward": reward,
        },
        lambda options: SnailedItHeuristic(card_points=options.card_points),
        episodes=100,
        opponents=opponents,
    )


@pytest.mark.parametrize("reward", ["winlose", "points", "margin"])
def test_the_learner_plays_and_tosses_from_its_own_seat(reward: str) -> None:
    venv = snail_envs.batched.make_vec_env(
        "snailed_it_v0", 64, num_players=4, target=200, max_rounds=2, reward=reward
    )
    layout = venv.engine.observation_layout
    window, totals = layout["toss_window"], layout["totals"]
    venv.seed(4)
    observations = venv.reset()
    returns = np.zeros(venv.num_envs)
    rng = np.random.default_rng(0)
    episodes = tosses = 0
    while episodes < 200:
        masks = venv.action_masks()
        in_window = observations[:, window][:, 0] == 1
        assert (masks[in_window, PASS]).all(), "a toss window always allows passing"
        assert not masks[in_window, :PLAY_ACTIONS].any()
        assert not masks[~in_window, PLAY_ACTIONS:].any()
        tosses += int(masks[in_window, PLAY_ACTIONS:PASS].sum())
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        returns += rewards
        for index in np.flatnonzero(dones):
            final = infos[index]["terminal_observation"]
            own_total = round(float(final[totals][0]) * 200)
            if reward == "points":
                assert returns[index] == -own_total
            elif reward == "margin":  # totals grow only as rounds end: all start level
                others = np.round(final[totals][1:4].astype(np.float64) * 200)
                assert returns[index] == pytest.approx(others.mean() - own_total, abs=1e-4)
            else:
                lowest = final[totals][:4].min()
                assert returns[index] == (1.0 if final[totals][0] == lowest else -1.0)
            returns[index] = 0
            episodes += 1
    assert tosses > 0, "the learner never could toss"


# --------------------------------------------------------------------------- loading a game


def same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Field by field (the bytes that pad an aligned record need not match)."""
    return all(np.array_equal(a[name], b[name]) for name in a.dtype.names)


def chance_events(game: SnailedIt) -> tuple[int, int]:
    """Rounds dealt and penalty piles refilled so far: a change means chance was drawn."""
    return game.rounds_played, len(game.lot_held[0])


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3},
        {"num_players": 2, "hand_size": 5, "target": 30},
        {"num_players": 5, "hand_size": 4, "target": 6, "max_turns": 50},
        {"num_players": 6, "hand_size": 3, "card_points": list(range(1, 19))},
    ],
    ids=str,
)
def test_a_loaded_game_looks_and_plays_on_as_the_reference_env(options: dict) -> None:
    """Loaded at random ticks of random games, a record shows every seat the observation and
    mask the reference env shows it, and both engines agree tick by tick after the same actions
    until chance is drawn (a refill or a new round), where the record's own generator takes
    over."""
    env = snail_envs.make_parallel("snailed_it_v0", **options)
    batch = snail_envs.batched.make("snailed_it_v0", 1, **options)
    rng = random.Random(3)
    loads = windows = compared = game_seed = 0
    while loads < 40:
        env.reset(seed=game_seed)
        game_seed += 1
        game = env.unwrapped.game
        following = None
        while env.agents:
            if following is None and rng.random() < 0.15:
                batch.load(0, game, seed=rng.getrandbits(63))
                following = chance_events(game)
                loads += 1
                windows += game.phase == TOSS_WINDOW
            if following is not None:
                for seat, agent in enumerate(env.possible_agents):
                    seen = env.observe(agent)
                    assert batch.observe(seat)[0].tobytes() == seen["observation"].tobytes()
                    assert batch.action_masks[0, seat].tobytes() == seen["action_mask"].tobytes()
                compared += 1
            actions = {
                env.possible_agents[seat]: rng.choice(game.legal_actions(seat))
                for seat in game.acting_seats()
            }
            env.step(actions)
            if following is not None:
                if chance_events(game) != following or not env.agents:
                    following = None
                    continue
                tick = np.zeros((1, batch.num_players), np.int64)
                for agent, action in actions.items():
                    tick[0, env.possible_agents.index(agent)] = action
                batch.step(tick)
    assert windows > 3 and compared > 2 * loads


def test_a_loaded_record_draws_its_chance_from_its_own_seed() -> None:
    env = snail_envs.make("snailed_it_v0", num_players=3)
    env.reset(seed=1)
    batch = snail_envs.batched.make("snailed_it_v0", 3, num_players=3)
    for index, seed in enumerate((7, 7, 8)):
        batch.load(index, env.unwrapped.game, seed)
    assert same_records(batch.games[0], batch.games[1])
    assert batch.games[0]["chance_state"] != batch.games[2]["chance_state"]
    assert (batch.games[0]["hand"] == batch.games[2]["hand"]).all()


# --------------------------------------------------------------------------- rollouts


def heuristic_play_out(game: SnailedIt, seat: int, first_action: int) -> list[int]:
    """The reference engine's round: `seat` plays `first_action` (the other seats acting in that
    tick as the Python heuristic), then every seat as the heuristic; the round's points."""
    observer = SnailedItObserver(game.options)
    heuristic = SnailedItHeuristic(card_points=game.options.card_points)
    rounds_played = game.rounds_played
    first = True
    while game.rounds_played == rounds_played:
        tick = {}
        for actor in game.acting_seats():
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[game.legal_actions(actor)] = 1
            tick[actor] = heuristic.act(observer.observe(game, actor), mask)
        if first:
            tick[seat] = first_action
            first = False
        game.apply(tick)
    assert game.last_round_points is not None
    return game.last_round_points


def test_a_rollout_scores_the_round_as_the_reference_rules() -> None:
    """Seat 0 holds the orange 9 and the yellow 6. Playing the yellow 6 first (no gap) saves the
    orange 9 for last: whichever pile it covers, the gap it opens takes seat 1's orange 5, which
    empties seat 1's hand and makes seat 0 draw the blue 1 (1 point); seat 2 keeps the yellow 1
    (1 point). Played first, the orange 9 costs seat 0 the same draw a round earlier."""
    game = deal(["o9 y6", "o5 b13", "p17 y1"], penalty="b1 b2 b3", max_rounds=1)
    batch = snail_envs.batched.make("snailed_it_v0", 1, num_players=3, hand_size=2, max_rounds=1)
    batch.load(0, game, seed=0)
    first_actions = [play_action(card("y6"), 0), play_action(card("o9"), 1)]
    gained = batch.rollout(0, first_actions)
    assert gained[0, 0].tolist() == [1, 0, 1]
    for index, action in enumerate(first_actions):
        expected = heuristic_play_out(copy.deepcopy(game), 0, action)
        assert gained[0, index].tolist() == expected


@pytest.mark.parametrize("horizon", ["round", "game"])
def test_rollouts_from_random_states_score_as_the_reference_rules(horizon: str) -> None:
    """From random ticks of random games (one round, so that the round's end is the game's),
    every legal first action of an acting seat scores as in the reference engine, unless a
    refill (chance) intervened there."""
    options = {"num_players": 4, "hand_size": 6, "max_rounds": 1}
    env = snail_envs.make_parallel("snailed_it_v0", **options)
    batch = snail_envs.batched.make("snailed_it_v0", 1, **options)
    rng = random.Random(5)
    checked = 0
    for game_seed in range(20):
        env.reset(seed=game_seed)
        game = env.unwrapped.game
        while env.agents:
            if rng.random() < 0.2:
                seat = rng.choice(game.acting_seats())
                legal = game.legal_actions(seat)
                batch.load(0, game, seed=game_seed)
                gained = batch.rollout(seat, legal, horizon)
                for index, action in enumerate(legal):
                    copied = copy.deepcopy(game)
                    expected = heuristic_play_out(copied, seat, action)
                    if len(copied.lot_held[0]) == len(game.lot_held[0]):
                        assert gained[0, index].tolist() == expected
                        checked += 1
            env.step(
                {
                    env.possible_agents[seat]: rng.choice(game.legal_actions(seat))
                    for seat in game.acting_seats()
                }
            )
    assert checked > 200


def test_rollouts_leave_the_loaded_games_as_they_were() -> None:
    env = snail_envs.make("snailed_it_v0", num_players=3)
    env.reset(seed=2)
    batch = snail_envs.batched.make("snailed_it_v0", 2, num_players=3)
    batch.load(0, env.unwrapped.game, 0)
    batch.load(1, env.unwrapped.game, 1)
    before = batch.games.copy()
    first = batch.rollout(0, env.unwrapped.legal_actions("player_0"), "game")
    assert same_records(batch.games, before)
    assert (batch.rollout(0, env.unwrapped.legal_actions("player_0"), "game") == first).all()


@pytest.mark.parametrize(
    ("option", "default"),
    [
        ({"colours": 1, "starters": (1, 3), "hand_size": 2}, "4"),
        ({"values": 5, "hand_size": 2}, "18"),
        ({"starters": (18, 16, 14, 12, 7, 5, 3, 1)}, r"\(1, 3, 5, 7, 12, 14, 16, 18\)"),
    ],
)
def test_a_smaller_box_is_refused_naming_the_option(option: dict, default: str) -> None:
    name = next(iter(option))
    with pytest.raises(ValueError, match=f"plays only {name}={default}, not "):
        snail_envs.batched.make(SNAILED_IT, num_envs=2, **option)


@numba.njit
def _cards_between(cards: np.ndarray, low: int, high: int) -> tuple[int, list[int]]:
    count = count_between(cards, low, high)
    return count, [nth_card(cards, n, low, high) for n in range(count + 1)]


def test_the_cards_of_a_set_between_two_cards_are_counted_and_picked_in_order() -> None:
    rng = random.Random(0)
    for _ in range(300):
        cards = sorted(rng.sample(range(72), rng.randint(0, 30)))
        low = rng.randrange(72)
        high = rng.choice([low - 1, low, rng.randrange(low, 72), 71])
        count, picked = _cards_between(card_set(cards), low, high)
        between = [c for c in cards if low <= c <= high]
        assert count == len(between)
        assert picked == [*between, 72]  # the n-th from the lowest; 72 (no card) past the last
