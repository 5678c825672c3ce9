"""The Snailed It! heuristic: its key decisions on scripted deals, and only legal actions.

Unless a test says otherwise the starters lie orange 1 | 3, yellow 5 | 7, blue 12 | 14,
pink 16 | 18 (left | right); seat 0 plays first.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import snail_envs
from snail_envs.agents.heuristics.snailed_it import SnailedItHeuristic
from snail_envs.core.testing import deciding_agents
from snail_envs.snailed_it.observer import SnailedItObserver
from snail_envs.snailed_it.rules import (
    NUM_ACTIONS,
    PASS,
    SnailedIt,
    play_action,
    toss_action,
)
from tests.snailed_it.scripted import card, deal, play, tick

LEFT, RIGHT = 0, 1


def decide(game: SnailedIt, seat: int) -> int:
    """The heuristic's action for `seat`, from that seat's observation and mask only."""
    observation = SnailedItObserver(game.options).observe(game, seat)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(seat)] = 1
    return SnailedItHeuristic().act(observation, mask)


# --------------------------------------------------------------------------- toss window


def test_tosses_a_fitting_card_the_one_worth_most_points() -> None:
    """Toss whenever you can: of the orange 2, 5 and 7 fitting the gap 1 | 9, the 7 (3 points)
    goes first; a seat holding nothing that fits passes."""
    game = deal(["o9 y1 y2 y3", "o2 o5 o7 b5", "y9 y10 y11 y12"])
    play(game, "o9", "right")  # orange 1 | 9
    assert decide(game, 1) == toss_action(card("o7"))
    assert decide(game, 2) == PASS


# --------------------------------------------------------------------------- the play


def test_plays_a_card_that_opens_no_gap_rather_than_shed_more_points() -> None:
    """Cards before points: the orange 10 (3 points) would leave a gap that six unseen cards
    fit, half a card to draw back with four players; the pink 17 (1 point) covers a pink top
    without a gap. Half a card in hand weighs more than two points."""
    game = deal(["o10 p17", "", "", ""], hand_size=2)
    assert decide(game, 0) // 2 == card("p17")


def test_plays_on_the_side_whose_other_top_is_next_to_the_card() -> None:
    """Side: the yellow 4 on the right pile leaves 5 | 4 (no gap); on the left it would leave
    4 | 7, a gap of the yellow 5 and 6."""
    game = deal(["y4 p17", "", "", ""], hand_size=2)
    assert decide(game, 0) == play_action(card("y4"), RIGHT)


def test_sheds_the_card_worth_more_points_when_neither_opens_a_gap() -> None:
    """Points break ties: the blue 13 (2 points) goes before the orange 2 (1 point)."""
    game = deal(["o2 b13", "", "", ""], hand_size=2)
    assert decide(game, 0) // 2 == card("b13")


def test_avoids_repeating_the_previous_turns_colour() -> None:
    """Same-colour penalty: after an orange play, the orange 4 (2 points, no gap on the left)
    would draw a card; the pink 17 (1 point, no gap) does not."""
    game = deal(["o2 y1", "o4 p17", "b1 b2"])
    play(game, "o2", "left")  # orange 2 | 3
    assert decide(game, 1) == play_action(card("p17"), LEFT)


def test_a_gap_that_only_tossed_cards_fit_is_free() -> None:
    """Public memory: the orange 2 to 5 are in the tossed pile, so the orange 6 on the right
    (1 | 6) is free; the blue 18 would open a gap of unseen cards."""
    game = deal(["o9 y1 y2 y3", "o2 o4 p17 y4", "o3 o5 o6 b18"])
    play(game, "o9", "right")  # orange 1 | 9: the orange 2 to 8 fit
    tick(game, seat_1="o2", seat_2="o3")
    tick(game, seat_1="o4", seat_2="o5")
    tick(game)
    play(game, "p17", "left")  # pink 17 | 18
    assert decide(game, 2) == play_action(card("o6"), RIGHT)


@pytest.mark.parametrize(
    ("players", "expected"),
    [(2, play_action(card("b8"), RIGHT)), (6, play_action(card("o4"), LEFT))],
)
def test_a_gap_is_cheap_with_two_players_and_dear_with_six(players: int, expected: int) -> None:
    """Expected tosses: after an orange play, the choice is the orange 4 (no gap, but a sure
    penalty draw) or the blue 8 on the right (12 | 8: the unseen blue 9, 10 and 11 fit). With
    two players most unseen cards lie in the penalty pile, so the gap costs less than the sure
    draw; with six, more than half of them are in the opponents' hands."""
    mine = "o4 b8 y15 y18 p1 p5 p9"  # the yellow and pink cards open wide gaps
    game = deal(["o2", mine] + [""] * (players - 2), hand_size=7)
    play(game, "o2", "left")  # orange 2 | 3
    assert decide(game, 1) == expected


def test_keeps_the_top_that_its_other_card_of_the_colour_can_cover() -> None:
    """Look ahead: the yellow 6 fits on both piles of 5 | 7 without a gap. On the right it
    leaves 5 | 6, where the yellow 3 still opens a gap of one card (the 4); on the left it would
    leave 6 | 7, where the 3 would open a gap of two (the 4 and 5)."""
    game = deal(["y6 y3", "", ""], hand_size=2)
    assert decide(game, 0) == play_action(card("y6"), RIGHT)


# --------------------------------------------------------------------------- legality


OPTION_VARIANTS = [
    {"num_players": 2},
    {"num_players": 3, "hand_size": 1},
    {"num_players": 4},
    {"num_players": 5, "hand_size": 3, "target": 5},
    {"num_players": 6, "hand_size": 12, "max_rounds": 2},
    {"num_players": 4, "card_points": tuple(range(18))},
]


@pytest.mark.parametrize("options", OPTION_VARIANTS, ids=lambda options: str(options))
def test_never_chooses_a_masked_action(options: dict[str, object]) -> None:
    """Over whole games of seats playing the heuristic or at random, in every option variant
    that changes the observation: each heuristic choice is legal."""
    rng = random.Random(7)
    heuristic = SnailedItHeuristic()
    checked = 0
    for game_seed in range(6):
        env = snail_envs.make("snailed_it_v0", **options)
        env.reset(seed=game_seed)
        for agent in deciding_agents(env):
            view = env.observe(agent)
            legal = np.flatnonzero(view["action_mask"]).tolist()
            action = heuristic.act(view["observation"], view["action_mask"])
            assert action in legal
            checked += 1
            env.step(action if rng.random() < 0.7 else rng.choice(legal))
    assert checked > 100
