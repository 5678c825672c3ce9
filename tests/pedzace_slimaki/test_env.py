"""Pędzące Ślimaki through the PettingZoo APIs: conformance, harness checks, observations, bad
input, goldens and presets."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

import snail_envs
from snail_envs import pedzace_slimaki_v0
from snail_envs.core import testing
from snail_envs.pedzace_slimaki.observer import (
    COUNTS_SIZE,
    PREVIEW_SIZE,
    PedzaceSlimakiObserver,
    observation_layout,
    public_table,
)
from snail_envs.pedzace_slimaki.rules import ALL_DICE, MAX_PUSHED, SNAIL_FACE, PedzaceSlimaki
from tests.marks import slow_cases
from tests.pedzace_slimaki.test_rules import (
    BLUE,
    GREEN,
    PURPLE,
    RED,
    YELLOW,
    Position,
    S,
    Table,
    at,
)
from tests.presets import rule_presets

GOLDEN = Path(__file__).parent / "golden"
OPTION_SETS = [
    {},
    {"num_players": 5},
    {"num_players": 3, "snail_face_backwards": True},
    {"num_players": 4, "rounds": 3, "reward": "points"},
    {"board_length": 10, "mushrooms": [3, 6], "place_points": [3, 2, 1], "max_turns": 15},
    {"num_players": 3, "cards": [["blue", "red"], ["green", "purple"], ["yellow", "red"]]},
    {"board_length": 100, "mushrooms": list(range(1, 100, 3)), "max_turns": None},
    {"num_players": 3, "previews": True},
    {"num_players": 4, "rounds": 3, "snail_face_backwards": True, "previews": True},
    {"num_players": 3, "rounds": 3, "choice_counts": True},
    {"num_players": 5, "previews": True, "choice_counts": True, "max_turns": None},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_pettingzoo_conformance(options: dict) -> None:
    testing.check_pettingzoo_conformance(pedzace_slimaki_v0, **options)


def test_docstring_is_the_spec_table() -> None:
    testing.check_docstring(pedzace_slimaki_v0)


# --------------------------------------------------------------------------- random play


class Invariant:
    """What must hold after every step of every game: snails on the board, the dice split between
    the seat to play and the set-aside row, cards dealt from the pack, points only growing."""

    def __init__(self) -> None:
        self._game: PedzaceSlimaki | None = None
        self._scores: list[int] = []
        self._races = 0

    def __call__(self, game: PedzaceSlimaki) -> None:
        assert all(0 <= leaf <= game.last_leaf for leaf in game.leaf)
        finished = [s for s in ALL_DICE if game.leaf[s] == game.last_leaf]
        if game.outcome is None:
            assert not finished, "a race in progress has no snail on the last leaf"
        else:
            assert finished == [game.race_results[-1].winner]
            assert game.race == game.options.rounds - 1
        assert len(game.race_results) == game.race + (game.outcome is not None)
        held = game.held
        assert held == sorted(set(held))
        assert [d for d in ALL_DICE if not game.set_aside[d]] == held
        if game.outcome is None and not game.truncated:
            assert 2 <= len(held) <= 5
            assert [d for d in ALL_DICE if game.faces[d]] == held
            assert game.legal and set(game.legal) <= set(held)
        assert not Counter(game.cards) - Counter(game.options.card_snails)
        assert len(game.cards) == game.num_players
        assert min(game.scores) >= 0
        if game is self._game:
            gained = sum(game.scores) - sum(self._scores)
            for result in game.race_results[self._races :]:
                gained -= sum(result.card_points)
            assert 0 <= gained <= MAX_PUSHED, "one move scores 0 to 4 points"
            assert all(now >= before for now, before in zip(game.scores, self._scores, strict=True))
        self._game, self._scores, self._races = game, list(game.scores), len(game.race_results)


RANDOM_PLAY = [
    ({"num_players": 2}, 3000),
    ({"num_players": 3}, 1500),
    ({"num_players": 5}, 1500),
    ({"num_players": 3, "snail_face_backwards": True}, 1500),
    ({"num_players": 4, "rounds": 3, "reward": "points"}, 1000),
    ({"num_players": 2, "rounds": 3, "snail_face_backwards": True}, 500),
    ({"board_length": 8, "mushrooms": [2, 5], "max_turns": 12, "num_players": 3}, 1000),
]


@pytest.mark.parametrize(("options", "games"), [({}, 100), *slow_cases(RANDOM_PLAY)], ids=str)
def test_random_play(options: dict, games: int) -> None:
    """10,000 random games in all (100 in the quick case): spaces, masks, rewards, lengths and
    the invariant hold."""
    report = testing.check_random_play(
        lambda: pedzace_slimaki_v0.env(**options), games=games, invariant=Invariant()
    )
    assert report.games == games
    assert sum(report.wins.values()) >= games - report.truncated
    if "max_turns" not in options:
        assert report.truncated == 0
    if options.get("reward") == "points":
        for returns in report.returns:
            assert min(returns.values()) >= 0


def test_points_rewards_add_up_to_the_final_points() -> None:
    env = pedzace_slimaki_v0.env(num_players=3, rounds=3, reward="points")
    env.reset(seed=4)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in testing.play_steps(env, random.Random(0)):
        for agent, reward in env.rewards.items():
            returns[agent] += reward
    assert list(returns.values()) == [float(p) for p in env.unwrapped.game.scores]
    assert max(returns.values()) > 0


# --------------------------------------------------------------------------- no leaks, copies


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 5},
        {"num_players": 3, "rounds": 3},
        {"num_players": 4, "previews": True},
        {"num_players": 3, "rounds": 3, "choice_counts": True},
    ],
    ids=str,
)
def test_no_leak(options: dict) -> None:
    changed = testing.check_no_leak(lambda: pedzace_slimaki_v0.env(**options), games=4)
    assert changed > 0


def test_resampling_keeps_the_seats_card_and_redeals_the_others() -> None:
    env = pedzace_slimaki_v0.env(num_players=5)
    env.reset(seed=3)
    game = env.unwrapped.game
    seen = set()
    for seed in range(30):
        twin = env.unwrapped.resample_from_infostate("player_2", seed)
        assert twin.game.cards[2] == game.cards[2]
        assert sorted(twin.game.cards) == sorted(game.cards)
        seen.add(tuple(twin.game.cards))
    assert len(seen) > 5


def test_determinism_across_processes() -> None:
    testing.check_determinism(
        pedzace_slimaki_v0, {"num_players": 4, "snail_face_backwards": True}, [0, 1, 2]
    )


@pytest.mark.parametrize(
    ("options", "steps"),
    [({"num_players": 3}, 5), ({"num_players": 2, "rounds": 3}, 40)],
    ids=str,
)
def test_copies_continue_like_the_original(options: dict, steps: int) -> None:
    testing.check_copy_continuation(lambda: pedzace_slimaki_v0.env(**options), 11, steps)


# --------------------------------------------------------------------------- observations


def test_the_observation_shows_the_own_card_and_relative_seats() -> None:
    env = pedzace_slimaki_v0.env(num_players=3)
    env.reset(seed=2)
    game = env.unwrapped.game
    game.scores[:] = [10, 20, 30]
    layout = env.unwrapped._observer.observation_layout
    view = layout.as_dict(env.observe("player_1")["observation"])
    assert list(np.flatnonzero(view["own_card"])) == sorted(game.cards[1])
    assert list(view["points"]) == [2.0, 3.0, 1.0, 0.0, 0.0]
    assert list(view["turn"]) == [0, 0, 1, 0, 0], "seat 0 plays: two seats after player_1"
    assert list(np.flatnonzero(view["mushrooms"])) == [4, 8, 12, 16]
    assert view["dice_rolled"].sum() == 5 and view["dice_set_aside"].sum() == 0
    assert list(view["race"]) == [1, 0, 0] and view["num_players"][1] == 1


def test_the_state_holds_every_card() -> None:
    env = pedzace_slimaki_v0.env(num_players=3)
    env.reset(seed=2)
    game = env.unwrapped.game
    cards = env.unwrapped._observer.state_layout.as_dict(env.state())["cards"].reshape(5, 5)
    for seat, card in enumerate(game.cards):
        assert list(np.flatnonzero(cards[seat])) == sorted(card)
    assert not cards[3:].any()


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_public_table_decodes_an_observation(options: dict) -> None:
    """`public_table` reads back what each seat sees, at every step of a random game."""
    env = pedzace_slimaki_v0.env(**options)
    env.reset(seed=4)
    game = env.unwrapped.game
    rng = random.Random(4)
    steps = 0
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        table = public_table(env.observe(agent)["observation"])
        n = game.num_players
        assert table.card == tuple(sorted(game.cards[seat]))
        assert table.leaves == tuple(game.leaf)
        assert table.faces == tuple(game.faces)
        assert table.set_aside == tuple(game.set_aside)
        assert table.board_length == game.last_leaf
        assert table.mushrooms == game.options.mushrooms
        assert table.points == tuple(game.scores[(seat + i) % n] for i in range(n))
        assert table.turn == (game.turn - seat) % n
        assert (table.race, table.rounds, table.num_players) == (game.race, game.options.rounds, n)
        env.step(rng.choice(env.unwrapped.legal_actions(agent)))
        steps += 1
    assert steps > 5


def test_public_table_rejects_a_vector_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="no Pędzące Ślimaki observation has 186 entries"):
        public_table(np.zeros(186, dtype=np.float32))


def previews_of(table: Table, seat: int) -> np.ndarray:
    """The `die_previews` of `seat`'s observation, a row a die."""
    observer = PedzaceSlimakiObserver(table.game.options)
    observer.reset(table.game)
    observation = observer.observe(table.game, seat)
    return observation[observer.observation_layout["die_previews"]].reshape(5, PREVIEW_SIZE)


def preview_row(points: int, leaves: list[int], last: int, card: float = 0.0) -> list[float]:
    finish = float(max(leaves) == last)
    return [points / MAX_PUSHED, finish, *(leaf / last for leaf in leaves), card]


def test_previews_show_what_each_rolled_die_would_do() -> None:
    """Asia's roll of the push scenario ('Asia has moved the purple snail 2 leaves. The snail
    ends its movement on a leaf with two other snails ... so Asia scores two points'), previewed
    before she chooses: each rolled die's points and the leaves after its move; blue, not
    rolled, shows nothing. Every seat sees the same previews of a race that does not end."""
    position = Position(
        leaves=at({BLUE: 4, GREEN: 2, YELLOW: 7, PURPLE: 5, RED: 7}),
        turn=2,
        held=(GREEN, YELLOW, PURPLE, RED),
    )
    table = Table({GREEN: 3, YELLOW: 3, PURPLE: 2, RED: 4}, position=position, previews=True)
    expected = [
        [0.0] * PREVIEW_SIZE,
        preview_row(1, [4, 5, 7, 4, 7], 20),  # green pushes purple back from leaf 5
        preview_row(0, [4, 2, 10, 5, 7], 20),
        preview_row(2, [4, 2, 6, 7, 6], 20),  # purple pushes yellow and red
        preview_row(0, [4, 2, 7, 5, 11], 20),
    ]
    for seat in range(3):
        assert previews_of(table, seat) == pytest.approx(np.array(expected))


def test_a_preview_that_ends_the_race_shows_the_place_points_of_the_seats_own_card() -> None:
    """'A race ends the moment a snail reaches the last leaf ... 1st 5, last 3, 2nd 2': blue's 3
    takes it to leaf 10, the end; blue and green (seat 0's card) would score 5 + 0 of the 10 a
    card can, yellow and purple (seat 2's card) 2 + 2."""
    position = Position(leaves=at({BLUE: 8, GREEN: 2, YELLOW: 5, PURPLE: 5, RED: 1}))
    roll = {BLUE: 3, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1}
    table = Table(roll, position=position, board_length=10, mushrooms=[4], previews=True)
    finish = [10, 2, 5, 5, 1]
    assert previews_of(table, 0)[BLUE] == pytest.approx(preview_row(1, finish, 10, 0.5))
    assert previews_of(table, 2)[BLUE] == pytest.approx(preview_row(1, finish, 10, 0.4))
    assert previews_of(table, 0)[RED] == pytest.approx(preview_row(1, [8, 1, 5, 5, 2], 10))


def test_previews_end_the_observation_and_decode_by_its_size() -> None:
    observer = PedzaceSlimakiObserver(pedzace_slimaki_v0.SPEC.options_class(previews=True))
    pieces = observer.observation_layout.pieces
    assert [piece.name for piece in pieces][-2:] == ["num_players", "die_previews"]
    assert observation_layout(184 + 5 * PREVIEW_SIZE).pieces == pieces
    assert "die_previews" not in [piece.name for piece in observation_layout(184).pieces]


def test_choice_counts_show_every_seats_dice_used_and_passed_over_relative_to_the_seat() -> None:
    """After Maciek's blue and Franek's green snail face (the rulebook's example), Asia (seat 2)
    sees Maciek one seat on and Franek two: the die each used, the dice each passed over, and
    the dice each used in all, each / 10."""
    table = Table({BLUE: 4, GREEN: 2, YELLOW: 3, PURPLE: S, RED: 1}, choice_counts=True)
    table.choose(BLUE, then={GREEN: S, YELLOW: 1, PURPLE: 5, RED: 2})
    table.choose(GREEN, then={GREEN: 3, YELLOW: 3, PURPLE: 2, RED: 4})
    observer = PedzaceSlimakiObserver(table.game.options)
    observer.reset(table.game)
    observation = observer.observe(table.game, 2)
    counts = observation[observer.observation_layout["choice_counts"]].reshape(5, COUNTS_SIZE)
    maciek = [1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]  # used blue; passed over the other four; 1 in all
    franek = [0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1]  # used green; passed over yellow, purple, red
    assert counts * 10 == pytest.approx(np.array([[0] * 11, maciek, franek, [0] * 11, [0] * 11]))


def test_every_set_of_observation_options_decodes_by_its_size() -> None:
    """The previews and the choice counts end the observation, in that order, and no board
    length and set of them give another layout of the same size."""
    layouts = {}
    for board_length in range(2, 101):
        for previews in (False, True):
            for counts in (False, True):
                options = pedzace_slimaki_v0.SPEC.options_class(
                    board_length=board_length,
                    mushrooms=(),
                    previews=previews,
                    choice_counts=counts,
                )
                layout = PedzaceSlimakiObserver(options).observation_layout
                assert layout.size not in layouts
                layouts[layout.size] = layout.pieces
    assert all(observation_layout(size).pieces == pieces for size, pieces in layouts.items())
    both = layouts[184 + 5 * PREVIEW_SIZE + 5 * COUNTS_SIZE]
    assert [piece.name for piece in both][-2:] == ["die_previews", "choice_counts"]


def test_observations_are_fresh_arrays() -> None:
    env = pedzace_slimaki_v0.env()
    env.reset(seed=0)
    first = env.observe("player_0")["observation"]
    first[:] = 7
    assert env.observe("player_0")["observation"].max() <= 1


def test_action_to_string_names_the_die_and_the_move() -> None:
    env = pedzace_slimaki_v0.env()
    env.reset(seed=0)
    game = env.unwrapped.game
    die = game.legal[0]
    text = env.unwrapped.action_to_string("player_0", die)
    assert text.startswith(f"use the {('blue', 'green', 'yellow', 'purple', 'red')[die]} die")
    assert "leaf" in text
    with pytest.raises(ValueError, match="out of range"):
        env.unwrapped.action_to_string("player_0", 5)


# --------------------------------------------------------------------------- rendering


def test_ansi_hides_cards_during_a_race_and_shows_them_after() -> None:
    env = pedzace_slimaki_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    assert "card" not in env.render()
    for _ in testing.play_steps(env, random.Random(1)):
        if env.agents and env.unwrapped.game.outcome is None:
            assert "card" not in env.render()
    text = env.render()
    assert "cards player_0" in text and "game over" in text


def test_rgb_array_is_an_image() -> None:
    env = pedzace_slimaki_v0.env(render_mode="rgb_array", board_length=30)
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 5


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 3}, "unknown option 'players'"),
        ({"num_players": 1}, "num_players must be an integer from 2 to 5"),
        ({"num_players": 6}, "num_players must be an integer from 2 to 5"),
        ({"board_length": 1}, "board_length must be an integer from 2 to 100"),
        ({"board_length": "20"}, "board_length"),
        ({"mushrooms": [0, 4]}, "mushrooms must be a list of distinct leaves from 1 to 19"),
        ({"mushrooms": [4, 20]}, "mushrooms"),
        ({"mushrooms": [4, 4]}, "distinct"),
        ({"mushrooms": "4 8"}, "mushrooms"),
        ({"cards": [["blue", "black"]] * 2}, "blue, green, yellow, purple, red"),
        ({"cards": [["blue", "blue"]] * 2}, "two different snails"),
        ({"cards": [["blue", "green", "red"]] * 2}, "pair of colour names"),
        ({"cards": [["blue", "green"]]}, "at least one card per seat"),
        ({"cards": "blue green"}, "list of pairs"),
        ({"rounds": 2}, "rounds must be one of 1, 3"),
        ({"snail_face_backwards": "yes"}, "snail_face_backwards must be True or False"),
        ({"place_points": [5, 2]}, "place_points must be three non-negative integers"),
        ({"place_points": [5, -2, 3]}, "place_points"),
        ({"max_turns": 0}, "max_turns must be None"),
        ({"snails": 1}, "snails must be an integer from 2 to 5"),
        ({"snails": 6}, "snails must be an integer from 2 to 5"),
        ({"snails": 3}, "with snails=3 the cards may name only the snails blue, green, yellow"),
        ({"die_pips": 0}, "die_pips must be an integer from 1 to 5"),
        ({"die_pips": 6}, "die_pips must be an integer from 1 to 5"),
        ({"reward": "score"}, "reward must be one of 'winlose', 'points', 'margin'; got 'score'"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"render_mode": "rgb"}, "render_mode must be one of"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pedzace_slimaki_v0.env(**options)


def test_illegal_actions_raise_naming_the_legal_dice() -> None:
    """A die set aside cannot be chosen; nor can a die out of range or a non-integer."""
    env = pedzace_slimaki_v0.env(num_players=2)
    env.reset(seed=0)
    game = env.unwrapped.game
    used = next(die for die in game.legal if game.faces[die] != SNAIL_FACE)
    env.step(used)
    assert game.set_aside[used] and env.agent_selection == "player_1"
    first = game.legal[0]
    with pytest.raises(
        ValueError, match=rf"action {used} is illegal now; legal actions: {first} \(use"
    ):
        env.step(used)
    with pytest.raises(ValueError, match="action 7 is illegal"):
        env.step(7)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(str(game.legal[0]))
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(float(game.legal[0]))
    env.step(np.int64(game.legal[0]))
    assert env.agent_selection == "player_0"


def test_an_illegal_action_can_end_the_game_with_a_penalty() -> None:
    env = pedzace_slimaki_v0.env(num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    env.step(5)
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(env.terminations.values())


def test_step_before_reset_raises() -> None:
    env = pedzace_slimaki_v0.env()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


def test_pickled_env_before_reset_works() -> None:
    env = pickle.loads(pickle.dumps(pedzace_slimaki_v0.env(num_players=4)))
    env.reset(seed=0)
    assert env.agent_selection == "player_0"


# --------------------------------------------------------------------------- goldens and presets


@pytest.mark.parametrize(
    ("options", "seed"),
    [
        ({"num_players": 3}, 7),
        ({"num_players": 5, "snail_face_backwards": True}, 3),
        ({"num_players": 2, "rounds": 3, "reward": "points"}, 11),
    ],
)
def test_golden_playthrough(options: dict, seed: int, golden) -> None:
    name = "_".join(f"{k}-{v}" for k, v in sorted(options.items()))
    golden(
        GOLDEN / f"{name}_seed{seed}.txt", testing.playthrough(pedzace_slimaki_v0, options, seed)
    )


PRESETS = rule_presets("pedzace_slimaki")


def test_there_are_presets_for_every_variant() -> None:
    options = [yaml.safe_load(path.read_text()) for path in PRESETS]
    assert any(o.get("rounds") == 3 for o in options)
    assert any(o.get("snail_face_backwards") for o in options)
    assert {o.get("num_players", 2) for o in options} >= {2, 3, 4, 5}


@pytest.mark.parametrize("path", PRESETS, ids=lambda path: path.stem)
def test_every_preset_constructs_and_plays(path: Path) -> None:
    env = snail_envs.make("pedzace_slimaki_v0", **yaml.safe_load(path.read_text()))
    env.reset(seed=0)
    for _ in testing.play_steps(env, random.Random(0)):
        pass
    assert not env.agents
