"""Snap through the PettingZoo APIs: conformance, harness checks, rewards, bad input, goldens."""

from __future__ import annotations

import copy
import importlib
import pickle
import random
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import snail_envs
from snail_envs.core import host, testing
from snail_envs.core.chance import ScriptedChance
from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.rules import SLAP, SNAP, SNAP_POOL, WAIT, SnapOptions
from tests.marks import slow, slow_cases
from tests.names import SNAP as SNAP_ENV
from tests.presets import rule_presets
from tests.snap.helpers import NoWindowOnAnUnchangedTable, deck_order, invariant

snap_env = importlib.import_module(f"snail_envs.{SNAP_ENV}")
"""The Snap environment module, found by the game's facts."""

GOLDEN = Path(__file__).parent / "golden"
SMALL_DECK = {"match_key": "picture", "pictures": 4, "copies": 2}

VARIANTS = [
    {},
    {"num_players": 3, "ruleset": "snap_pot"},
    {"num_players": 3, "speed": True},
    {"num_players": 3, "double": True},
    {"num_players": 3, "single_pile": True},
    {"num_players": 4, "slapjack": True, "ruleset": "snap_pot"},
    {"num_players": 3, "match_key": "picture", "pictures": 8, "copies": 3},
    {"num_players": 4, "flipper_may_call": False},
    {"num_players": 3, "reaction_delay": [0, 1, 2], "ruleset": "snap_pot"},
    {"num_players": 8, "reward": "points", "reaction_ticks": 2},
    {"same_tick": "random", "refresh": "shuffle"},
    {"num_players": 3, "ruleset": "snap_pot", "same_tick": "random", "reward": "margin"},
    {"num_players": 3, "glimpse_error": [0.6, 0.3, 0.0], "refresh": "shuffle"},
    {"num_players": 3, "single_pile": True, "glimpse_error": (0.5,), "same_tick": "random"},
    {"num_players": 4, "flipper_may_call": False, "glimpse_error": (0.4, 0.1)},
    {"same_tick": "random", "refresh": "shuffle", "glimpse_error": (0.6, 0.3), "recall": "perfect"},
    {"glimpse_error": (0.88, 0.2, 0.0), "recall": "perfect", "call_odds": True, "reward": "margin"},
    {"session": "best_of_3"},
    {"num_players": 3, "session": "best_of_3", "ruleset": "snap_pot", "reward": "margin"},
]


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_pettingzoo_conformance(options: dict) -> None:
    testing.check_pettingzoo_conformance(snap_env, **options)


def test_docstring_is_the_spec_table() -> None:
    testing.check_docstring(snap_env)


def test_docstring_shows_the_pieces_of_sessions_and_noisy_sight() -> None:
    """The spec table's extra rows: the session pieces (for best_of_3) and the glimpses."""
    for options, pieces in (
        ({"session": "best_of_3"}, ("session_wins", "game_number", "sudden_death")),
        ({"glimpse_error": (0.6, 0.3, 0.0)}, ("glimpses",)),
        ({"glimpse_error": (0.6, 0.3, 0.0), "recall": "perfect"}, ("flipped_recall",)),
        (
            {"glimpse_error": (0.6, 0.3, 0.0), "recall": "perfect", "call_odds": True},
            ("flipped_recall", "call_odds"),
        ),
    ):
        layout = SnapObserver(SnapOptions(**options)).observation_layout  # type: ignore[arg-type]
        for piece in pieces:
            row = next(
                line for line in layout.table().split("\n") if line.startswith(f"| `{piece}`")
            )
            meaning = row.split(" | ")[-1]
            assert meaning in (snap_env.__doc__ or ""), f"{piece} is not documented"


RANDOM_PLAY = [
    ({}, 1200),
    ({"ruleset": "snap_pot"}, 100),
    ({"num_players": 4, "ruleset": "snap_pot", "slapjack": True, "max_flips": 50}, 60),
    ({"num_players": 3, "speed": True}, 500),
    ({"num_players": 2, "speed": True, "ruleset": "snap_pot", "double": True}, 100),
    ({"num_players": 4, "double": True, "reward": "points"}, 200),
    ({"num_players": 3, "single_pile": True, "slapjack": True}, 300),
    ({"num_players": 5, "flipper_may_call": False, "reaction_ticks": 1}, 150),
    ({"num_players": 9}, 40),
    ({"num_players": 5, "max_flips": 25, "max_ticks": 40}, 200),
    ({**SMALL_DECK}, 3000),
    (
        {**SMALL_DECK, "num_players": 3, "ruleset": "snap_pot", "reaction_delay": [0, 1, 2]}
        | {"max_flips": 200},
        2500,
    ),
    ({**SMALL_DECK, "num_players": 3, "single_pile": True, "reward": "points"}, 1000),
    ({**SMALL_DECK, "speed": True, "ruleset": "snap_pot"}, 700),
    ({"same_tick": "random", "refresh": "shuffle"}, 300),
    ({"num_players": 4, "ruleset": "snap_pot", "same_tick": "random", "refresh": "shuffle"}, 40),
    ({"num_players": 3, "glimpse_error": (0.6, 0.3, 0.0), "double": True}, 200),
    (
        {**SMALL_DECK, "num_players": 3, "glimpse_error": (0.5,), "refresh": "shuffle"}
        | {"single_pile": True, "same_tick": "random"},
        500,
    ),
    ({**SMALL_DECK, "flipper_may_call": False, "glimpse_error": (0.3, 0.2)}, 500),
    ({"session": "best_of_3"}, 150),
    ({"num_players": 3, "session": "best_of_3", "same_tick": "random"}, 100),
    ({**SMALL_DECK, "num_players": 3, "session": "first_to_3", "max_sudden_deaths": 1}, 300),
]


@pytest.mark.parametrize(("options", "games"), [({}, 40), *slow_cases(RANDOM_PLAY)], ids=str)
def test_random_play_conserves_every_card(options: dict, games: int) -> None:
    """Over 10,000 random games in all (40 in the quick case): every card of the deck is in
    exactly one stack, pile or pool after every step; masks equal the rules; games end within
    the declared length."""
    report = testing.check_random_play(
        lambda: snap_env.env(**options),
        games=games,
        seed=games,
        invariant=NoWindowOnAnUnchangedTable(),
    )
    assert report.games == games
    if options.get("max_flips", 2000) < 2000:
        assert report.truncated > 0
    else:
        assert report.truncated == 0, "random play should end well within the default limits"


def test_random_play_totals_at_least_ten_thousand_games() -> None:
    assert sum(games for _, games in RANDOM_PLAY) >= 10_000


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 3, "ruleset": "snap_pot", **SMALL_DECK},
        {"num_players": 3, "speed": True, "slapjack": True},
        {"num_players": 4, "flipper_may_call": False, "reaction_delay": [0, 1, 0, 2]},
        {"num_players": 3, "same_tick": "random", "glimpse_error": (0.5, 0.2)},
        {"num_players": 3, "session": "best_of_3"},
    ],
    ids=str,
)
def test_parallel_random_play(options: dict) -> None:
    """Parallel API: a step is one tick; every seat still in the game acts (the last flipper
    too, unless flipper_may_call=False); masks equal the rules; observations lie in their
    space; cards are conserved; a seat that goes out before the end leaves with −1."""
    env = snap_env.parallel_env(**options)
    space = env.observation_space("player_0")["observation"]
    rng = random.Random(0)
    for game_index in range(40):
        observations, _ = env.reset(seed=game_index)
        while env.agents:
            game = env.unwrapped.game
            acting = {f"player_{seat}" for seat in game.acting_seats()}
            assert acting == set(env.agents)
            actions = {}
            for agent in env.agents:
                mask = observations[agent]["action_mask"]
                legal = game.legal_actions(env.possible_agents.index(agent))
                assert list(np.flatnonzero(mask)) == list(legal)
                assert space.contains(observations[agent]["observation"])
                actions[agent] = testing.random_legal_action(mask, rng) if legal else WAIT
            observations, rewards, terminations, _, _ = env.step(actions)
            invariant(env.unwrapped.game)
            if env.unwrapped.game.outcome is None:
                for agent, ended in terminations.items():
                    assert rewards[agent] == (-1.0 if ended else 0.0)


@pytest.mark.parametrize(
    ("options", "games"),
    [
        ({}, 2),
        ({"num_players": 3, "ruleset": "snap_pot", **SMALL_DECK}, 3),
        ({"num_players": 3, "speed": True}, 1),
        ({"num_players": 3, "single_pile": True, **SMALL_DECK}, 3),
        slow({"num_players": 3, "double": True, "slapjack": True}, 1),
        ({"num_players": 3, "double": True, "refresh": "shuffle", **SMALL_DECK}, 3),
        slow({"num_players": 3, "glimpse_error": (0.6, 0.3, 0.0), "same_tick": "random"}, 1),
        ({"num_players": 3, "glimpse_error": (0.7,), "single_pile": True, **SMALL_DECK}, 2),
        ({"glimpse_error": (0.6, 0.3), "refresh": "shuffle", **SMALL_DECK}, 3),
        (
            {
                "num_players": 3,
                "glimpse_error": (0.6, 0.3),
                "recall": "perfect",
                "refresh": "shuffle",
                "same_tick": "random",
                **SMALL_DECK,
            },
            3,
        ),
        (
            {
                "num_players": 3,
                "glimpse_error": (0.6, 0.3),
                "recall": "perfect",
                "call_odds": True,
                "ruleset": "snap_pot",
                "slapjack": True,
                "same_tick": "random",
            },
            2,
        ),
        slow({"num_players": 3, "session": "best_of_3", **SMALL_DECK}, 2),
    ],
    ids=str,
)
def test_no_leak_when_stack_orders_are_resampled(options: dict, games: int) -> None:
    assert testing.check_no_leak(lambda: snap_env.env(**options), games=games) > 0


def test_resampling_mid_tick_hides_the_choices_already_made() -> None:
    env = snap_env.env(num_players=3)
    env.reset(seed=0)
    env.step(SNAP)  # player_0's choice of this tick, hidden from player_1
    choices = {
        env.unwrapped.resample_from_infostate("player_1", seed)._tick_actions[0]
        for seed in range(30)
    }
    assert choices == {WAIT, SNAP}


@pytest.mark.slow
def test_determinism_across_processes_and_different_seeds_differ() -> None:
    testing.check_determinism(snap_env, {}, [0, 1, 2])
    testing.check_determinism(snap_env, {"ruleset": "snap_pot", **SMALL_DECK}, [3, 4])
    noisy = {"same_tick": "random", "refresh": "shuffle", "glimpse_error": (0.6, 0.3)}
    testing.check_determinism(snap_env, noisy, [5, 6])
    testing.check_determinism(snap_env, {"num_players": 3, "session": "best_of_3"}, [7])


def test_different_seeds_deal_different_games() -> None:
    deals = set()
    for seed in range(20):
        env = snap_env.env()
        env.reset(seed=seed)
        deals.add(tuple(env.unwrapped.game.stacks[0]))
    assert len(deals) == 20


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 3, "ruleset": "snap_pot"},
        {"num_players": 3, "same_tick": "random", "refresh": "shuffle", "glimpse_error": (0.5,)},
        {"num_players": 3, "session": "best_of_3"},
    ],
    ids=str,
)
def test_copies_continue_like_the_original(options: dict) -> None:
    testing.check_copy_continuation(lambda: snap_env.env(**options), seed=5, steps_before_copy=40)


def test_parallel_copies_continue_like_the_original() -> None:
    env = snap_env.parallel_env(num_players=3)
    env.reset(seed=4)
    actions = dict.fromkeys(env.agents, WAIT)
    for _ in range(5):
        env.step(actions)
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    rng = random.Random(1)
    while env.agents:
        actions = {agent: rng.choice([WAIT, SNAP]) for agent in env.agents}
        expected = env.step(actions)
        for twin in twins:
            result = twin.step(actions)
            assert result[1:4] == expected[1:4]
            for agent, observation in expected[0].items():
                assert np.array_equal(result[0][agent]["observation"], observation["observation"])


# --------------------------------------------------------------------------- scripted tables


@pytest.fixture
def deal(monkeypatch: pytest.MonkeyPatch):
    """Make the next environment deal the named stacks (top card first)."""

    def arrange(stacks: list[list[str]], **options: object) -> None:
        order = deck_order(SnapOptions(**options), stacks)  # type: ignore[arg-type]
        monkeypatch.setattr(host, "SeededChance", lambda seed=None: ScriptedChance([order]))

    return arrange


def _picture_deal(deal, **options: object) -> dict:
    options = {"match_key": "picture", "pictures": 3, "copies": 2, **options}
    deal([["P1", "P2", "P3"], ["P3", "P1", "P2"]], **options)
    return options


def test_an_eliminated_seat_gets_minus_one_and_leaves_the_winner_plus_one(deal) -> None:
    """classic: out as soon as stack and pile are empty (−1, removed from agents); the last seat
    wins (+1)."""
    env = snap_env.env(**_picture_deal(deal))
    env.reset(seed=0)
    for _ in range(4):  # four one-tick windows, everybody waits
        env.step(WAIT)
        env.step(WAIT)
    assert env.unwrapped.game.turn == 0 and not env.unwrapped.game.stacks[0]
    env.step(SNAP)  # wrong: player_0's last cards go to the pool
    env.step(WAIT)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    env.step(None)
    env.step(None)
    assert env.agents == []


def test_parallel_elimination_and_win(deal) -> None:
    env = snap_env.parallel_env(**_picture_deal(deal))
    env.reset(seed=0)
    waits = {"player_0": WAIT, "player_1": WAIT}
    for _ in range(4):
        env.step(waits)
    _, rewards, terminations, truncations, _ = env.step({"player_0": SNAP, "player_1": WAIT})
    assert rewards == {"player_0": -1.0, "player_1": 1.0}
    assert terminations == {"player_0": True, "player_1": True} and not any(truncations.values())
    assert env.agents == []


def test_a_draw_pays_nothing_to_the_seats_sharing_it(deal) -> None:
    """RULES.md: "The same holds for a single game that ends in a draw shared by two or more
    seats": each sharer gets 0 with `reward="winlose"` (since `snap_v2`; `snap_v1` paid +1)."""
    options = {"match_key": "picture", "pictures": 3, "copies": 2}
    deal([["P1", "P2", "P3"], ["P1", "P2", "P3"]], **options)
    env = snap_env.parallel_env(**options)
    env.reset(seed=0)
    waits = {"player_0": WAIT, "player_1": WAIT}
    while env.unwrapped.game.flips < 6:
        env.step(waits)
    _, rewards, terminations, _, _ = env.step({"player_0": SNAP, "player_1": SNAP})
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and all(terminations.values())


def test_an_eliminated_seat_leaves_a_game_that_goes_on(deal) -> None:
    """snap_pot: a seat with nothing to flip at its turn goes out; the others play on."""
    options = {
        "num_players": 3,
        "match_key": "picture",
        "pictures": 3,
        "copies": 3,
        "ruleset": "snap_pot",
    }
    deal([["P1", "P2", "P3"], ["P3", "P2", "P1"], ["P1", "P3", "P2"]], **options)
    env = snap_env.parallel_env(**options)
    env.reset(seed=0)
    waits = dict.fromkeys(env.agents, WAIT)
    while env.unwrapped.game.flips < 9:
        env.step(waits)
    env.step({**waits, "player_2": SNAP})  # wrong: player_2 has no card left, but is not out
    assert env.agents == ["player_0", "player_1", "player_2"]
    for _ in range(3):
        env.step(waits)  # the window of player_0's flip: a match nobody calls
    _, rewards, terminations, _, _ = env.step(waits)  # player_1 flips; then player_2's turn
    assert terminations == {"player_0": False, "player_1": False, "player_2": True}
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0}
    assert env.agents == ["player_0", "player_1"]


def test_parallel_step_is_one_tick_of_every_seat_in_the_game(deal) -> None:
    """Every seat still in the game acts each tick; with flipper_may_call=False the flipper's
    mask is `wait` alone; reaction_delay masks calls until the delay."""
    deal([["7♣"], ["7♥"], ["2♦"]], num_players=3)
    env = snap_env.parallel_env(num_players=3, flipper_may_call=False, reaction_delay=[0, 0, 1])
    observations, _ = env.reset(seed=0)
    masks = {agent: list(obs["action_mask"]) for agent, obs in observations.items()}
    assert masks == {"player_0": [1, 0, 0, 0], "player_1": [1, 1, 0, 0], "player_2": [1, 0, 0, 0]}
    with pytest.raises(ValueError, match="player_0: action 1 is illegal"):
        env.step({"player_0": SNAP, "player_1": WAIT, "player_2": WAIT})
    observations, *_ = env.step({"player_0": WAIT, "player_1": WAIT, "player_2": WAIT})
    assert env.unwrapped.game.flips == 2 and not env.unwrapped.game.pools
    layout = env.unwrapped._observer.observation_layout
    seen = layout.as_dict(observations["player_2"]["observation"])
    assert seen["may_call"][0] == 0 and seen["window_full"][0] == 1
    assert list(observations["player_2"]["action_mask"]) == [1, 0, 0, 0]
    assert list(observations["player_1"]["action_mask"]) == [1, 0, 0, 0]
    observations, *_ = env.step({"player_0": WAIT, "player_1": WAIT, "player_2": WAIT})
    game = env.unwrapped.game
    assert (game.flips, game.window_tick, game.last_calls) == (2, 1, [WAIT, WAIT, WAIT])
    assert list(observations["player_2"]["action_mask"]) == [1, 1, 0, 0]


def test_observations_are_relative_and_show_no_stack(deal) -> None:
    deal([["7♣", "Q♦"], ["5♥", "Q♠"], ["2♦", "Q♣"]], num_players=3)
    env = snap_env.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    env.step(WAIT)
    env.step(WAIT)
    env.step(WAIT)  # player_1 flips 5♥
    layout = env.unwrapped._observer.observation_layout
    mine = layout.as_dict(env.observe("player_1")["observation"])
    assert list(np.flatnonzero(mine["pile_tops"])) == [4, 13 * 2 + 6]  # me: 5, seat before: 7
    assert list(mine["just_flipped"]) == [1, 0, 0] and list(mine["next_flippers"]) == [0, 1, 0]
    state = env.unwrapped._observer.state_layout.as_dict(env.state())
    assert list(np.flatnonzero(state["stack_tops"])) == [11, 13 + 11, 26 + 1]  # Q♦, Q♠, 2♦
    assert "Q" not in env.render() and "2♦" not in env.render()


def test_points_reward_is_the_change_in_the_share_of_the_cards() -> None:
    env = snap_env.env(num_players=3, reward="points")
    env.reset(seed=2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _agent, _action in testing.play_steps(env, random.Random(2)):
        for agent, reward in env.rewards.items():
            totals[agent] += reward
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        start = (18 if seat == 0 else 17) / 52
        assert totals[agent] == pytest.approx(game.held(seat) / 52 - start)


def test_render_modes() -> None:
    env = snap_env.env(num_players=3, render_mode="ansi", ruleset="snap_pot")
    env.reset(seed=3)
    text = env.render()
    assert text.startswith("Snap (snap_pot, 3 players)") and "pots: none" in text
    image = snap_env.env(num_players=3, render_mode="rgb_array", single_pile=True)
    image.reset(seed=3)
    picture = image.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3


def test_action_to_string() -> None:
    env = snap_env.env(ruleset="snap_pot")
    env.reset(seed=0)
    names = [env.unwrapped.action_to_string("player_0", a) for a in range(4)]
    assert names == ["wait", "call snap", "call snap pot", "slap a Jack"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, "unknown option 'colour'; allowed options: num_players"),
        ({"num_players": 1}, "num_players must be an integer from 2 to 12; got 1"),
        ({"num_players": 13}, "num_players must be an integer from 2 to 12; got 13"),
        ({"num_players": 7, "decks": 1}, "from 2 to 6 with one pack"),
        ({"ruleset": "pots"}, "ruleset must be one of 'classic', 'snap_pot'; got 'pots'"),
        ({"decks": 3}, "decks must be one of 'auto', 1, 2; got 3"),
        ({"match_key": "suit"}, "match_key must be one of 'rank', 'picture'"),
        ({"reaction_ticks": 0}, "reaction_ticks must be an integer from 1 to 10; got 0"),
        ({"reaction_delay": [0]}, r"one integer a seat \(2 integers\); got 1"),
        ({"reaction_delay": "01"}, "reaction_delay must be None or one integer a seat"),
        ({"reaction_delay": [0, 3]}, r"reaction_delay\[1\] must be an integer from 0 to 2"),
        ({"speed": "yes"}, "speed must be True or False; got 'yes'"),
        ({"speed": True, "num_players": 4}, "speed is played by 2 or 3 players; got 4"),
        ({"speed": True, "flipper_may_call": False}, "speed needs flipper_may_call=True"),
        ({"single_pile": True, "ruleset": "snap_pot"}, "single_pile is played with ruleset"),
        ({"single_pile": True, "double": True}, "single_pile cannot be combined"),
        ({"slapjack": True, "match_key": "picture"}, "slapjack needs match_key='rank'"),
        ({"pictures": 10}, "pictures and copies apply to match_key='picture' only"),
        ({"match_key": "picture", "decks": 2}, "decks applies to match_key='rank' only"),
        ({"match_key": "picture", "pictures": 1}, "pictures must be an integer from 2 to 52"),
        ({"match_key": "picture", "copies": 9}, "copies must be an integer from 2 to 8"),
        (
            {"match_key": "picture", "pictures": 2, "copies": 2, "num_players": 5},
            "at least one card a seat",
        ),
        ({"max_flips": 0}, "max_flips must be None .* at least 1; got 0"),
        ({"max_ticks": -1}, "max_ticks must be None .* at least 1; got -1"),
        ({"reward": "score"}, "reward must be one of 'winlose', 'points', 'margin', 'cards'"),
        ({"same_tick": "first"}, "same_tick must be one of 'tie', 'random'; got 'first'"),
        ({"refresh": "riffle"}, "refresh must be one of 'turn_over', 'shuffle'; got 'riffle'"),
        ({"glimpse_error": 0.5}, r"glimpse_error must be a sequence of at most reaction_ticks"),
        ({"glimpse_error": "0.5"}, "glimpse_error must be a sequence"),
        ({"glimpse_error": (1.5,)}, r"error probabilities from 0 to 1.*got \(1.5,\)"),
        ({"glimpse_error": (-0.1,)}, "from 0 to 1, not increasing"),
        ({"glimpse_error": (0.1, 0.3)}, r"not increasing.*got \(0.1, 0.3\)"),
        ({"glimpse_error": (0.5, 0.4, 0.3, 0.2)}, "at most reaction_ticks = 3"),
        ({"glimpse_error": ("a",)}, "glimpse_error must be a sequence"),
        ({"recall": "full"}, "recall must be one of 'none', 'perfect'; got 'full'"),
        ({"recall": "perfect"}, "recall='perfect' needs glimpse_error"),
        (
            {"glimpse_error": (0.5,), "call_odds": True},
            "call_odds needs recall='perfect'.*got recall='none'",
        ),
        ({"glimpse_error": (0.5,), "recall": "perfect", "call_odds": 1}, "call_odds must be"),
        ({"glimpse_error": (True,)}, "glimpse_error must be a sequence"),
        ({"glimpse_error": (0.5,), "speed": True}, "glimpse_error cannot be combined with speed"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        snap_env.env(**options)


def test_illegal_actions_raise_naming_the_legal_actions() -> None:
    env = snap_env.env(reaction_delay=[1, 0])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(WAIT)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"legal actions: 0 \(wait\)$"):
        env.step(SNAP)  # player_0 reacts a tick late
    env.step(WAIT)
    with pytest.raises(ValueError, match=r"legal actions: 0 \(wait\), 1 \(call snap\)$"):
        env.step(SNAP_POOL)  # no pool yet
    with pytest.raises(ValueError, match="illegal"):
        env.step(SLAP)
    with pytest.raises(ValueError, match="illegal"):
        env.step(7)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step("snap")


def test_penalize_ends_the_game_on_an_illegal_action() -> None:
    env = snap_env.parallel_env(illegal_action="penalize")
    env.reset(seed=0)
    _, rewards, terminations, _, _ = env.step({"player_0": SLAP, "player_1": WAIT})
    assert rewards == {"player_0": -1.0, "player_1": 0.0} and all(terminations.values())


# --------------------------------------------------------------------------- presets, goldens


PRESETS = rule_presets("snap")


def test_every_variant_has_a_preset() -> None:
    names = {path.stem for path in PRESETS}
    assert {"classic", "snap_pot", "speed", "double", "single_pile", "slapjack", "picture"} <= names
    assert {"silent", "animal", "tournament", "uneven_reflexes"} <= names
    assert {"equal_reflexes", "noisy_sight", "best_of_3"} <= names


@pytest.mark.parametrize("path", PRESETS, ids=lambda path: path.stem)
def test_every_preset_constructs_and_plays_a_game(path: Path) -> None:
    options = yaml.safe_load(path.read_text(encoding="utf-8"))
    env = snail_envs.make(SNAP_ENV, **options)
    env.reset(seed=1)
    for _ in testing.play_steps(env, random.Random(1)):
        invariant(env.unwrapped.game)
    assert not env.agents
    parallel = snail_envs.make_parallel(SNAP_ENV, **options)
    parallel.reset(seed=1)
    assert set(parallel.agents) == set(parallel.possible_agents)


GOLDENS = [
    ({"num_players": 3}, 7),
    (
        {
            "num_players": 3,
            "same_tick": "random",
            "refresh": "shuffle",
            "glimpse_error": (0.6, 0.3, 0.0),
            "max_flips": 40,
        },
        2,
    ),
    (
        {
            "ruleset": "snap_pot",
            "num_players": 3,
            "match_key": "picture",
            "pictures": 5,
            "copies": 2,
        },
        3,
    ),
    ({"speed": True, "slapjack": True, "reaction_delay": [0, 1], "max_flips": 60}, 5),
]


@pytest.mark.parametrize(("options", "seed"), GOLDENS, ids=str)
def test_golden_playthrough(options: dict, seed: int, golden) -> None:
    name = "_".join(f"{k}-{v}" for k, v in sorted(options.items()))
    name = "".join(c for c in name if c.isalnum() or c in "-_")
    golden(GOLDEN / f"{name}_seed{seed}.txt", testing.playthrough(snap_env, options, seed))


def test_reward_cards_is_the_card_share_shaping() -> None:
    """The issue's `reward="cards"` names Snap's points reward: the change in cards held / deck."""
    rewards = []
    for name in ("cards", "points"):
        env = snap_env.env(reward=name)
        env.reset(seed=3)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for _ in testing.play_steps(env, __import__("random").Random(3)):
            for agent, reward in env.rewards.items():
                totals[agent] += reward
        rewards.append(totals)
    assert rewards[0] == rewards[1] and any(rewards[0].values())
    assert env.unwrapped.reward_mode == "points"
    with pytest.raises(
        ValueError, match="reward must be one of 'winlose', 'points', 'margin', 'cards'"
    ):
        snap_env.env(reward="coins")


# --------------------------------------------------------------------------- versions


@pytest.mark.parametrize("retired", ["snap_v0", "snap_v1"])
def test_retired_versions_raise_an_error_naming_the_current_one(retired: str) -> None:
    """A rule change bumps the version; an old name raises an error naming the current one,
    through `make`, the module import and the registry ids (API.md)."""
    import gymnasium
    import pettingzoo
    from pettingzoo.utils.deprecated_module import DeprecatedEnv

    message = f"{retired} is now deprecated, use {SNAP_ENV} instead"
    with pytest.raises(ValueError, match=message):
        snail_envs.make(retired)
    with pytest.raises(ValueError, match=message):
        snail_envs.make_parallel(retired, num_players=3)
    sys.modules.pop(f"snail_envs.{retired}", None)
    with pytest.raises(DeprecatedEnv, match=message):
        importlib.import_module(f"snail_envs.{retired}")
    retired_id, current_id = (snail_envs.registry_id(name) for name in (retired, SNAP_ENV))
    for kind in ("aec", "parallel"):
        with pytest.raises(DeprecatedEnv, match=message):
            pettingzoo.make(kind, retired_id)
    with pytest.raises(gymnasium.error.DeprecatedEnv, match=current_id):
        gymnasium.make(retired_id)


@pytest.mark.parametrize(
    "command",
    [
        "snail_envs.training.train:--env",
        "snail_envs.training.evaluate:--env",
        "snail_envs.training.rllib_train:--env",
        "snail_envs.agents.convert:--env",
        "snail_envs.apps.play:",
        "snail_envs.demo:",
    ],
)
def test_every_command_refuses_a_retired_version_naming_the_current_one(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    module, flag = command.split(":")
    argv = [flag, "snap_v1"] if flag else ["snap_v1"]
    if module.endswith("convert"):
        argv = ["policy.pt", "target.pt", *argv]
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(module).main(argv)
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(
        f"snap_v1 is now deprecated, use {SNAP_ENV} instead (its rules changed: "
        f"see the version history in snail_envs.{SNAP_ENV})"
    )


def test_a_training_config_refuses_a_retired_version_naming_the_current_one() -> None:
    from snail_envs.training.config import ConfigError, TrainConfig

    with pytest.raises(ConfigError, match=f"snap_v1 is now deprecated, use {SNAP_ENV} instead"):
        TrainConfig(env="snap_v1")
