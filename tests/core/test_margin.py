"""`reward="margin"` (`snail_envs.core.host`): every step's rewards sum to zero, and a seat's
return is the change of its lead, in every game and in both APIs."""

from __future__ import annotations

import random

import pytest

import snail_envs
from snail_envs.core import host, testing
from snail_envs.core.host import margin_rewards
from tests.core.toy_game import ADD_ONE, CLAIM, PASS, ToyAEC, ToyParallel
from tests.names import SNAP

MARGIN_PLAY = [
    (SNAP, {"num_players": 2}, 140),
    (SNAP, {"num_players": 3, "double": True, "slapjack": True}, 200),
    (SNAP, {"num_players": 4, "ruleset": "snap_pot", "max_flips": 300}, 80),
    ("snailed_it_v0", {"num_players": 4}, 40),
    ("snailed_it_v0", {"num_players": 3, "max_rounds": 2}, 60),
    ("snail_sprint_v0", {"num_players": 3}, 250),
    ("snail_sprint_v0", {"num_players": 4, "board": "B"}, 250),
    ("pedzace_slimaki_v0", {"num_players": 4}, 200),
    ("pedzace_slimaki_v0", {"num_players": 5, "snail_face_backwards": True}, 200),
]
"""(game, options, games): over 5,000 steps of random play each, in each API."""


def eliminates(env_name: str, options: dict) -> bool:
    """Seats go out before the end only in Snap with three players or more."""
    return env_name == SNAP and options["num_players"] > 2


@pytest.mark.parametrize("api", [snail_envs.make, snail_envs.make_parallel], ids=["aec", "par"])
@pytest.mark.parametrize(("env_name", "options", "games"), MARGIN_PLAY, ids=str)
def test_margin_rewards_sum_to_zero_and_return_the_change_of_the_lead(
    env_name: str, options: dict, games: int, api
) -> None:
    report = testing.check_margin_rewards(
        lambda: api(env_name, reward="margin", **options), games, seed=games
    )
    assert report.steps >= 5_000 and report.paying_steps > 0
    assert (report.eliminations > 0) == eliminates(env_name, options)


@pytest.mark.parametrize("env", [ToyAEC, ToyParallel], ids=["aec", "par"])
def test_the_toy_games_eliminations_keep_the_margins_zero_sum(env) -> None:
    report = testing.check_margin_rewards(lambda: env(num_players=4, reward="margin"), 300)
    assert report.eliminations > 100 and report.paying_steps > 100


@pytest.mark.parametrize(
    ("paid", "message"),
    [
        (lambda changes: changes, "the rewards sum to"),  # points, not margins
        (lambda changes: [-reward for reward in margin_rewards(changes)], "its margins say"),
    ],
    ids=["points", "negated"],
)
def test_the_check_fails_on_other_rewards(monkeypatch, paid, message: str) -> None:
    monkeypatch.setattr(host, "margin_rewards", paid)
    with pytest.raises(AssertionError, match=message):
        testing.check_margin_rewards(
            lambda: snail_envs.make("pedzace_slimaki_v0", reward="margin"), 5
        )


def test_a_seat_paid_alone_gets_nothing_and_others_pay_for_a_lead() -> None:
    assert margin_rewards([]) == []
    assert margin_rewards([2.0]) == [0.0]
    assert margin_rewards([3.0, 0.0, 0.0]) == [3.0, -1.5, -1.5]
    assert margin_rewards([1.0, 1.0, 1.0, 1.0]) == [0.0] * 4
    assert margin_rewards([-2.0, 4.0]) == [-6.0, 6.0]


def test_after_an_elimination_the_others_are_averaged_over_the_seats_still_in() -> None:
    """Toy game, three seats: a claim on an odd counter scores 1, on an even counter puts the
    claimant out."""
    env = ToyAEC(num_players=3, reward="margin")
    env.reset(seed=0)
    env.step(ADD_ONE)  # counter 1
    env.step(CLAIM)  # player_1 scores against both others
    env.step(PASS)
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}
    env.step(ADD_ONE)  # player_1's turn: counter 2
    env.step(CLAIM)  # player_0 goes out, paid this step's (unchanged) margin
    env.step(PASS)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert env.terminations["player_0"]
    env.step(None)
    env.step(ADD_ONE)  # player_2's turn: counter 3
    env.step(CLAIM)  # player_1 scores: only player_2 is still in to pay for it
    assert env.rewards == {"player_1": 1.0, "player_2": -1.0}
    assert env._cumulative_rewards == {"player_1": 1.0, "player_2": -1.0}


def test_a_resampled_copy_may_pay_margins() -> None:
    """The copy pays each seat the change of its margin from the copy on."""
    env = snail_envs.make("pedzace_slimaki_v0", num_players=3).unwrapped
    env.reset(seed=2)
    for _ in range(4):
        env.step(env.legal_actions(env.agent_selection)[0])
    twin = env.resample_from_infostate(env.agent_selection, 7, reward="margin")
    start = list(twin.game.points())
    gained = dict.fromkeys(twin.possible_agents, 0.0)
    for _ in testing.play_steps(twin, random.Random(1)):
        assert sum(twin.rewards.values()) == pytest.approx(0.0, abs=1e-12)
        for agent, reward in twin.rewards.items():
            gained[agent] += reward
    end = twin.game.points()

    def lead(points: list[float], seat: int) -> float:
        return points[seat] - (sum(points) - points[seat]) / 2

    assert [gained[agent] for agent in twin.possible_agents] == pytest.approx(
        [lead(end, seat) - lead(start, seat) for seat in range(3)]
    )
    assert any(gained.values())
    assert env.reward_mode == "winlose"
