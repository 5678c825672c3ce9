"""The Pędzące Ślimaki heuristic: its key decisions on set-up tables, and legal play everywhere.

Each table is a real observation of seat 0 (the default cards; seat 0 holds blue + green unless a
test says otherwise), built by the game's own observer from a `Position` and a scripted roll.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.agents.heuristics.pedzace_slimaki import (
    PedzaceSlimakiHeuristic,
    chance_to_win,
    preview,
)
from snail_envs.core.chance import ScriptedChance
from snail_envs.core.testing import deciding_agents
from snail_envs.pedzace_slimaki.observer import PedzaceSlimakiObserver
from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    NUM_SNAILS,
    SNAIL_FACE,
    Colour,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
    Position,
)

BLUE, GREEN, YELLOW, PURPLE, RED = Colour
S = SNAIL_FACE
CARDS = [(BLUE, GREEN), (GREEN, YELLOW), (YELLOW, PURPLE), (PURPLE, RED), (RED, BLUE)]


def seen(
    roll: dict[int, int],
    leaves: dict[int, int],
    *,
    card: tuple[int, int] = (BLUE, GREEN),
    num_players: int = 2,
    points: list[int] | None = None,
    race: int = 0,
    **options: object,
) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's observation and action mask: it holds `card` and has rolled `roll`; the snails
    named in `leaves` stand there, the others on the start."""
    game_options = PedzaceSlimakiOptions(num_players=num_players, **options)
    others = [other for other in CARDS if other != card][: num_players - 1]
    position = Position(
        leaves=[leaves.get(snail, 0) for snail in ALL_DICE],
        held=sorted(roll),
        cards=[card, *others],
        scores=points,
        race=race,
    )
    chance = ScriptedChance([roll[die] for die in sorted(roll)])
    game = PedzaceSlimaki(game_options, chance, position)
    observer = PedzaceSlimakiObserver(game_options)
    observer.reset(game)
    mask = np.zeros(NUM_SNAILS, dtype=np.int8)
    mask[game.legal] = 1
    return observer.observe(game, 0), mask


def choice(roll: dict[int, int], leaves: dict[int, int], **table: object) -> int:
    return PedzaceSlimakiHeuristic().act(*seen(roll, leaves, **table))


def test_it_refuses_the_observations_of_another_board() -> None:
    """It is told the board's length; it does not guess it from an observation's size."""
    observation, mask = seen({RED: 1, YELLOW: 2}, {}, board_length=8, mushrooms=[2, 5])
    with pytest.raises(ValueError, match=r"20-leaf board .*for_rules"):
        PedzaceSlimakiHeuristic().act(observation, mask)
    assert mask[PedzaceSlimakiHeuristic(board_length=8).act(observation, mask)]


def test_it_is_the_registered_heuristic() -> None:
    assert isinstance(make_agent("heuristic", "pedzace_slimaki_v0"), PedzaceSlimakiHeuristic)


# --------------------------------------------------------------------------- in the race


def test_it_takes_points_now_over_a_quiet_move() -> None:
    """Red's five lands on yellow and purple (2 points); blue's two lands on a mushroom (1);
    green's three scores nothing, though green is mine."""
    leaves = {BLUE: 2, YELLOW: 6, PURPLE: 6, RED: 1}
    assert choice({BLUE: 2, GREEN: 3, RED: 5}, leaves) == RED


def test_it_races_its_own_leader_on() -> None:
    """Late in the race, three equal quiet moves: blue, mine and in front, goes on."""
    leaves = {BLUE: 14, GREEN: 9, YELLOW: 12, PURPLE: 10, RED: 11}
    assert choice({BLUE: 3, YELLOW: 3, PURPLE: 3}, leaves) == BLUE


def test_it_leaves_its_trailing_snail_at_the_back() -> None:
    """Green, mine, is alone at the back (last place pays 3): moving it past yellow would hand
    yellow the last place, so yellow moves instead."""
    leaves = {BLUE: 14, GREEN: 5, YELLOW: 7, PURPLE: 10, RED: 11}
    assert choice({GREEN: 4, YELLOW: 2}, leaves) == YELLOW


def test_it_ends_the_race_when_the_places_pay() -> None:
    """Blue (mine) can finish: first for blue, last for green (mine too), the finishing point.
    A mushroom (1 point) or a push (1 point) cannot match that. (The first of three races, so
    only the places decide.)"""
    leaves = {BLUE: 17, GREEN: 9, YELLOW: 12, PURPLE: 10, RED: 11}
    assert choice({BLUE: 3, YELLOW: 4, RED: 1}, leaves, rounds=3) == BLUE


def test_it_does_not_end_the_race_for_an_opponents_snail() -> None:
    """Yellow could finish (the finishing point), but yellow is not mine and my snails stand in
    the middle: blue steps onto green's leaf for a point instead."""
    leaves = {BLUE: 12, GREEN: 13, YELLOW: 18, PURPLE: 10, RED: 9}
    assert choice({BLUE: 1, YELLOW: 2, RED: 2}, leaves) == BLUE


# --------------------------------------------------------------------------- the last race


PUSH_OR_FINISH = (
    {BLUE: 1, YELLOW: 3, RED: 2},
    {BLUE: 7, GREEN: 7, YELLOW: 17, PURPLE: 7, RED: 5},
)
"""Red's two pushes three snails (3 points); yellow's three finishes for an opponent."""


def test_it_takes_the_points_rather_than_finish_for_an_opponent() -> None:
    assert choice(*PUSH_OR_FINISH, points=[30, 5], rounds=3) == RED


@pytest.mark.parametrize(("rounds", "race"), [(1, 0), (3, 2)])
def test_in_the_last_race_it_finishes_when_that_surely_wins(rounds: int, race: int) -> None:
    """30 points to 5: ending now wins whatever card the opponent holds."""
    assert choice(*PUSH_OR_FINISH, points=[30, 5], rounds=rounds, race=race) == YELLOW


SURE_LOSS = ({BLUE: 3, YELLOW: 1}, {BLUE: 17, GREEN: 9, YELLOW: 12, PURPLE: 10, RED: 11})
"""Blue (mine) can finish with green last: 9 points for me."""


def test_it_finishes_for_its_own_snail_while_races_remain() -> None:
    assert choice(*SURE_LOSS, points=[5, 40], rounds=3) == BLUE


def test_in_the_last_race_it_does_not_finish_when_that_surely_loses() -> None:
    """5 points to 40: 9 more would still lose, so the race goes on."""
    assert choice(*SURE_LOSS, points=[5, 40]) == YELLOW


def test_a_finish_is_weighed_against_every_deal_of_the_others_cards() -> None:
    """Five players; red finishes, blue (mine) is second and green (mine) last: 10 + 1 + 2 + 3
    = 16 for me. Whoever holds red + blue scores 7: 17 on 10 points (I lose), 16 on 9 points
    (a shared win, if seat 4 holds it: one deal in four)."""
    bot = PedzaceSlimakiHeuristic()
    observation, _ = seen(
        {RED: 4, YELLOW: 1},
        {BLUE: 15, GREEN: 3, YELLOW: 9, PURPLE: 12, RED: 16},
        num_players=5,
        points=[10, 10, 10, 10, 9],
    )
    places = [2, 3, 0, 0, 5]
    parameters = bot.parameters
    assert chance_to_win(observation.tolist(), parameters, places, gained=1) == 0.125


# --------------------------------------------------------------------------- variants


SNAIL_FACE_TABLE = ({BLUE: S, YELLOW: 1}, {BLUE: 14, GREEN: 9, YELLOW: 12, PURPLE: 10, RED: 11})
"""Blue (mine, in front) shows the snail face: two leaves on, onto a mushroom — or two back."""


def test_a_forward_snail_face_moves_its_leader_on() -> None:
    assert choice(*SNAIL_FACE_TABLE) == BLUE


def test_told_that_the_snail_face_moves_back_it_keeps_its_leader_in_front() -> None:
    bot = PedzaceSlimakiHeuristic(snail_face_backwards=True)
    assert bot.act(*seen(*SNAIL_FACE_TABLE, snail_face_backwards=True)) == YELLOW


def test_a_snail_face_it_may_not_use_shows_it_the_backwards_variant() -> None:
    """Green on leaf 1 also shows the snail face: only the backwards variant forbids it."""
    roll, leaves = SNAIL_FACE_TABLE
    observation, mask = seen({**roll, GREEN: S}, {**leaves, GREEN: 1}, snail_face_backwards=True)
    assert mask[GREEN] == 0
    assert PedzaceSlimakiHeuristic().act(observation, mask) == YELLOW


def test_place_points_it_is_told_change_its_mind() -> None:
    """If last place paid nothing, green (mine, alone at the back) would rather move on."""
    roll, leaves = {GREEN: 4, YELLOW: 2}, {BLUE: 14, GREEN: 5, YELLOW: 7, PURPLE: 10, RED: 11}
    bot = PedzaceSlimakiHeuristic(place_points=(5, 2, 0))
    assert bot.act(*seen(roll, leaves, place_points=(5, 2, 0))) == GREEN


# --------------------------------------------------------------------------- legal, stable play

VARIANTS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4, "rounds": 3},
    {"num_players": 5},
    {"num_players": 3, "snail_face_backwards": True},
    {"num_players": 2, "board_length": 8, "mushrooms": [2, 5], "place_points": [3, 2, 1]},
    {"num_players": 2, "board_length": 60, "mushrooms": [], "rounds": 3},
    {"num_players": 3, "cards": [["blue", "red"], ["green", "purple"], ["yellow", "red"]]},
]


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_it_foresees_every_move_as_the_rules_make_it(options: dict) -> None:
    """The bot's look-ahead, from its observation alone, against the rules' own preview."""
    bot = PedzaceSlimakiHeuristic.for_rules(options)
    env = snail_envs.make("pedzace_slimaki_v0", **options)
    rng = random.Random(1)
    after = [0] * NUM_SNAILS
    moves = 0
    for seed in range(10):
        env.reset(seed=seed)
        for agent in deciding_agents(env):
            game = env.unwrapped.game
            observation = env.observe(agent)["observation"]
            parameters = bot.parameters
            for die in game.legal:
                face = game.faces[die]
                gained = preview(
                    observation.tolist(), parameters, game.leaf, die, face, game.backwards, after
                )
                assert (after, gained) == game.preview(game.leaf, die, face)
                moves += 1
            env.step(rng.choice(game.legal))
    assert moves > 200


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_it_only_chooses_legal_dice_and_decides_the_same_way_twice(options: dict) -> None:
    """Every seat played by the bot for whole games: every choice is legal, and asking again
    gives the same answer."""
    bot = PedzaceSlimakiHeuristic.for_rules(options)
    env = snail_envs.make("pedzace_slimaki_v0", **options)
    rng = random.Random(0)
    decisions = 0
    for seed in range(25):
        env.reset(seed=seed)
        for agent in deciding_agents(env):
            seen_now = env.observe(agent)
            action = bot.act(seen_now["observation"], seen_now["action_mask"])
            assert action in env.unwrapped.legal_actions(agent)
            assert action == bot.act(seen_now["observation"], seen_now["action_mask"])
            decisions += 1
            if rng.random() < 0.3:  # random moves now and then, to reach other tables
                action = rng.choice(env.unwrapped.legal_actions(agent))
            env.step(action)
    assert decisions > 100


@pytest.mark.parametrize(
    ("options", "added"),
    [
        ({"previews": True}, 40),
        ({"choice_counts": True}, 55),
        ({"previews": True, "choice_counts": True}, 95),
    ],
    ids=str,
)
def test_with_previews_or_choice_counts_it_plays_as_on_the_plain_observation(
    options: dict, added: int
) -> None:
    """The previews and the choice counts are extra input for learners: told the table shows
    them, the bot reads the rest of the observation and chooses as it does on the plain one."""
    plain = PedzaceSlimakiHeuristic.for_rules({"num_players": 3})
    told = PedzaceSlimakiHeuristic.for_rules({"num_players": 3, **options})
    env = snail_envs.make("pedzace_slimaki_v0", num_players=3, **options)
    size = plain.layout.size
    decisions = 0
    for seed in range(10):
        env.reset(seed=seed)
        for agent in deciding_agents(env):
            seen_now = env.observe(agent)
            observation, mask = seen_now["observation"], seen_now["action_mask"]
            assert observation.shape == (size + added,)
            action = told.act(observation, mask)
            assert action == plain.act(observation[:size], mask)
            decisions += 1
            env.step(action)
    assert decisions > 100
