"""Snap sessions (RULES.md §1 "Sessions"), on scripted deals of a four-card picture deck.

Every game of these sessions is dealt so that the seat left of the dealer, who flips first, gets
the cards P1 and P2 and the other seat P1 and P2 as well: the two flips of each round match. A
seat that snaps on every match then takes both piles twice and wins the game; when both seats
snap, every match ties, all four cards go to the pool and both seats go out together: a draw.
"""

from __future__ import annotations

import pytest

import snail_envs
from snail_envs.core.chance import ScriptedChance
from snail_envs.core.game import Termination
from snail_envs.snap.rules import SNAP, WAIT, Snap, SnapOptions
from tests.names import SNAP as SNAP_ENV
from tests.snap.helpers import NoWindowOnAnUnchangedTable

pytestmark = pytest.mark.usefixtures("both_engines")

TINY = {"match_key": "picture", "pictures": 2, "copies": 2, "num_players": 2}
"""Four cards: 0 and 1 show picture 1, 2 and 3 picture 2."""
BOTH = "both"


def deck_for(first: int) -> list[int]:
    """The shuffle that deals seat `first` the stack P1 (card 0) over P2 (card 2), and the other
    seat P1 (card 1) over P2 (card 3), dealing from seat `first` (the dealer's left)."""
    hands = {first: [0, 2], 1 - first: [1, 3]}
    order = [hands[first][0], hands[1 - first][0], hands[first][1], hands[1 - first][1]]
    return list(reversed(order))  # the deal takes cards from the end of the shuffled list


def play_session(snappers: list[int | str], **options: object) -> tuple[Snap, list[int]]:
    """A session whose game g is won by seat `snappers[g]` (or drawn, `BOTH`), with the dealer
    of every game (the deals follow the rules' dealer rotation)."""
    rules = SnapOptions(**TINY, **options)  # type: ignore[arg-type]
    chance = ScriptedChance([deck_for(first=0)])
    game = Snap(rules, chance)
    dealers = [game.dealer]
    check = NoWindowOnAnUnchangedTable()
    for snapper in snappers:
        played = game.games_played
        while game.games_played == played and game.outcome is None:
            callers = (0, 1) if snapper == BOTH else (snapper,)
            calls = {seat: SNAP if game.matched_keys() else WAIT for seat in callers}
            actions = dict.fromkeys(game.acting_seats(), WAIT)
            actions.update({seat: call for seat, call in calls.items() if seat in actions})
            winner = snapper if snapper != BOTH else None
            dealer = game.dealer if winner is None else winner
            if chance.remaining == 0:
                chance.extend([deck_for(first=1 - dealer)])
            game.apply(actions)
            check(game)
        if game.outcome is None:
            dealers.append(game.dealer)
    assert chance.remaining <= 1
    return game, dealers


def test_the_winner_of_each_game_deals_the_next() -> None:
    """ "the winner of a game deals the next, so the seat to its left flips first (the first
    game: seat 0 flips first)"."""
    game, dealers = play_session([1, 0], session="best_of_3")
    assert dealers == [1, 1, 0]
    assert game.just_flipped[0][0] == 1, "dealer 0: seat 1 flips first in game 3"


def test_a_best_of_3_decided_two_nil() -> None:
    """ "best_of_N ends as soon as a seat has more than N/2 wins"."""
    game, _ = play_session([1, 1], session="best_of_3")
    assert game.outcome is not None and game.outcome.winners == {1}
    assert game.session_wins == [0, 2] and game.games_played == 2


def test_a_best_of_3_decided_two_one() -> None:
    game, dealers = play_session([0, 1, 0], session="best_of_3")
    assert game.outcome is not None and game.outcome.winners == {0}
    assert game.session_wins == [2, 1] and game.games_played == 3
    assert dealers == [1, 0, 1]


def test_a_draw_counts_for_nobody_and_the_same_dealer_deals_again() -> None:
    """ "A game that ends in a draw or by truncation is won by nobody and still counts as
    played"; after such a game the same dealer deals again [default]."""
    game, dealers = play_session([0, BOTH, 0], session="best_of_3")
    assert game.outcome is not None and game.outcome.winners == {0}
    assert game.session_wins == [2, 0] and game.games_played == 3
    assert dealers == [1, 0, 0]


def test_a_tied_session_is_broken_by_a_sudden_death() -> None:
    """ "If the session's games are played out with two or more seats tied for the most wins,
    those seats play one sudden-death game"."""
    game, _ = play_session([0, 1, BOTH, 1], session="best_of_3")
    assert game.outcome is not None and game.outcome.winners == {1}
    assert game.sudden_deaths == 1 and game.games_played == 4
    assert game.outcome.termination is Termination.SESSION


def test_a_drawn_sudden_death_is_replayed_then_the_win_is_shared() -> None:
    """ "a drawn or truncated sudden death is played again, at most max_sudden_deaths times, then
    the tied seats share the win"."""
    game, _ = play_session([0, 1, BOTH, BOTH, BOTH], session="best_of_3", max_sudden_deaths=2)
    assert game.outcome is not None and game.outcome.winners == {0, 1}
    assert game.sudden_deaths == 2 and game.games_played == 5


def test_first_to_3_ends_at_the_third_win() -> None:
    game, _ = play_session([1, 0, 1, BOTH, 1], session="first_to_3")
    assert game.outcome is not None and game.outcome.winners == {1}
    assert game.session_wins == [1, 3]


def test_a_session_pays_win_or_lose_once_at_its_end_and_no_points_for_a_deal() -> None:
    """ "rewards (winlose) are paid at the session's end; points and margin pay per step as in
    one game (cards held; a new deal does not pay)"."""
    for reward in ("winlose", "margin"):
        env = snail_envs.make(SNAP_ENV, num_players=3, session="best_of_3", reward=reward)
        env.reset(seed=4)
        paid = []
        returns = dict.fromkeys(env.possible_agents, 0.0)
        games_before = 0
        for agent in env.agent_iter():
            observation, reward_now, terminated, truncated, _ = env.last()
            returns[agent] += reward_now
            if reward == "margin":
                assert abs(sum(env.rewards.values())) < 1e-9, "every step's margins sum to 0"
            game = env.unwrapped.game
            if game.outcome is None:
                assert env.agents == env.possible_agents, "every seat stays to the session's end"
            if game.games_played != games_before:
                paid.append(dict(env.rewards))
                games_before = game.games_played
            legal = [a for a, m in enumerate(observation["action_mask"]) if m]
            env.step(None if terminated or truncated else legal[-1])
        if reward == "winlose":
            assert sorted(returns.values()) == [-1.0, -1.0, 1.0]
        else:
            assert abs(sum(returns.values())) < 1e-9
            assert all(abs(sum(step.values())) < 1e-9 for step in paid)


def test_a_seat_out_of_one_game_waits_until_the_next_begins() -> None:
    """ "a seat that is out stays among the env's agents (PettingZoo never brings a terminated
    agent back) and acts with wait alone until the next game begins"."""
    env = snail_envs.make_parallel(SNAP_ENV, num_players=3, session="best_of_3", max_flips=200)
    seen_waiting = 0
    for seed in range(6):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            game = env.unwrapped.game
            assert set(env.agents) == set(env.possible_agents)
            actions = {}
            for agent in env.agents:
                seat = env.possible_agents.index(agent)
                mask = observations[agent]["action_mask"].tolist()
                if not game.in_game[seat]:
                    assert mask == [1, 0, 0, 0]
                    seen_waiting += 1
                calls = agent == "player_0"  # its wrong calls cost it its cards
                actions[agent] = max(a for a, m in enumerate(mask) if m) if calls else WAIT
            observations, *_ = env.step(actions)
    assert seen_waiting > 0


def test_the_observation_shows_session_wins_and_the_game_number() -> None:
    env = snail_envs.make(SNAP_ENV, session="best_of_5", **TINY)
    env.reset(seed=0)
    layout = env.unwrapped._observer.observation_layout
    game = env.unwrapped.game
    game.session_wins[1] = 2
    game.games_played = 3
    game.version += 1
    seen = layout.as_dict(env.observe("player_0")["observation"])
    assert seen["session_wins"].tolist() == [0.0, pytest.approx(2 / 3)]
    assert seen["game_number"].tolist() == [pytest.approx(4 / 8)]
    assert seen["sudden_death"].tolist() == [0.0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"session": "best_of_7"}, "session must be one of 'single', 'best_of_3', 'best_of_5'"),
        ({"max_sudden_deaths": -1}, "max_sudden_deaths must be an integer at least 0; got -1"),
    ],
)
def test_bad_session_options_name_the_allowed_values(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        snail_envs.make(SNAP_ENV, **options)


def test_a_new_deal_changes_no_seats_points() -> None:
    """ "points and margin pay per step as in one game (cards held; a new deal does not pay)":
    seat 1 ends game 1 holding the four cards; after the next deal each seat holds two, and the
    points still read 0 and 1."""
    game, _ = play_session([1], session="best_of_3")
    assert game.games_played == 1 and [game.held(seat) for seat in (0, 1)] == [2, 2]
    assert game.points() == [0.0, 1.0]


def test_a_tournament_plays_sessions() -> None:
    """`snail-eval -o session=best_of_3`: a tournament game is a whole session, won by
    its session winner."""
    from snail_envs.training.evaluate import Lineup, play_game

    record = play_game(
        SNAP_ENV, ["heuristic", "random"], 0, Lineup(SNAP_ENV), {"session": "best_of_3"}
    )
    assert record.returns == [1.0, -1.0] and not record.truncated
