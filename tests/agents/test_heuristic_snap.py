"""The Snap heuristic: its calls on constructed tables, its delay and errors, the observations
it refuses, and legal, never-false calls over random play."""

from __future__ import annotations

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.agents.heuristics.snap import SnapHeuristic
from snail_envs.core.testing import deciding_agents
from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.rules import NUM_ACTIONS, SLAP, SNAP, SNAP_POOL, WAIT, Snap
from tests.names import SNAP as SNAP_ENV
from tests.snap.helpers import PICTURES, NoWindowOnAnUnchangedTable, glimpse_game, table, tick


def view(game: Snap, seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """What `seat` is given to act on: its observation and action mask."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(game.legal_actions(seat))] = 1
    return SnapObserver(game.options).observe(game, seat), mask


def both_readers(**options: object) -> list[SnapHeuristic]:
    """The bot built with the rule options, and as `make_agent` builds it for them."""
    return [SnapHeuristic(**options), make_agent("heuristic", SNAP_ENV, options=options)]


@pytest.mark.parametrize("players", [2, 4])
def test_snaps_a_pile_to_pile_match(players: int) -> None:
    piles = [["2♣", "9♠"], ["9♦"], ["K♥"], ["5♥"]][:players]
    game = table(piles, flipped=[1], num_players=players)
    for bot in both_readers(num_players=players):
        assert bot.act(*view(game)) == SNAP
        assert bot.act(*view(game, 1)) == SNAP  # the flipper may call too


def test_snaps_a_match_of_two_other_seats() -> None:
    game = table([["4♣"], ["9♦"], ["9♠"]], flipped=[2], num_players=3)
    for bot in both_readers(num_players=3):
        assert bot.act(*view(game)) == SNAP


@pytest.mark.parametrize("ruleset", ["classic", "snap_pot"])
def test_never_calls_when_nothing_is_claimable(ruleset: str) -> None:
    game = table([["7♣"], ["8♥"]], pools=[["2♦"]], flipped=[1], ruleset=ruleset)
    assert game.window_length == 1
    for bot in both_readers(ruleset=ruleset):
        assert bot.act(*view(game)) == WAIT


def test_classic_calls_snap_pool_only_for_the_card_just_flipped() -> None:
    just_flipped = table([["7♣"], ["7♥"]], pools=[["2♦", "3♦", "7♦"]], flipped=[0])
    old_top = table([["7♣"], ["8♥"]], pools=[["7♦"]], flipped=[1])
    for bot in both_readers():
        assert bot.act(*view(just_flipped, 1)) == SNAP_POOL  # three cards beat one
        assert bot.act(*view(old_top)) == WAIT


def test_snap_pot_calls_snap_pot_for_any_pile_top() -> None:
    """Also when not told the ruleset: a full window with nothing claimable by classic rules
    shows that the game is played by snap_pot's."""
    game = table([["7♣"], ["8♥"]], pools=[["7♦"]], flipped=[1], ruleset="snap_pot")
    for bot in both_readers(ruleset="snap_pot"):
        assert bot.act(*view(game)) == SNAP_POOL
        assert bot.act(*view(game, 1)) == SNAP_POOL


def test_snap_pot_with_several_pots_calls_a_pot_matching_an_old_top_beside_a_match() -> None:
    """Several pots show the ruleset even when a match also makes the window full: the pot and
    the pile matching it are worth more than the other seat's one-card pile."""
    game = table(
        [["5♣", "K♣"], ["7♥"], ["7♠"]],
        pools=[["2♦", "K♦"], ["3♥"]],
        flipped=[2],
        ruleset="snap_pot",
        num_players=3,
    )
    for bot in both_readers(ruleset="snap_pot", num_players=3):
        assert bot.act(*view(game, 1)) == SNAP_POOL


def test_slaps_a_jack_only_in_slapjack() -> None:
    jack = table([["J♣"], ["8♥"]], flipped=[1], slapjack=True)
    for bot in both_readers(slapjack=True):
        assert bot.act(*view(jack)) == SLAP  # its own Jack: slapped before another seat does
        assert bot.act(*view(jack, 1)) == SLAP
    assert SnapHeuristic().act(*view(table([["J♣"], ["8♥"]], flipped=[1]))) == WAIT


def test_single_pile_snaps_a_top_card_matching_the_one_below() -> None:
    match = table([[], [], ["4♣", "Q♠", "Q♦"]], flipped=[1], single_pile=True)
    no_match = table([[], [], ["Q♠", "4♣", "Q♦"]], flipped=[1], single_pile=True)
    for bot in both_readers(single_pile=True):
        assert bot.act(*view(match)) == SNAP
        assert bot.act(*view(no_match)) == WAIT


def test_picture_decks_match_pictures() -> None:
    game = table([["P3"], ["P3"]], flipped=[1], match_key="picture")
    other = table([["P3"], ["P4"]], flipped=[1], match_key="picture")
    for bot in both_readers(match_key="picture"):
        assert bot.act(*view(game)) == SNAP
        assert bot.act(*view(other)) == WAIT
    small = table([["P2"], ["P2"]], flipped=[1], match_key="picture", pictures=8)
    assert SnapHeuristic(match_key="picture", pictures=8).act(*view(small)) == SNAP


def test_takes_a_big_pool_though_its_small_pile_stays_matched() -> None:
    """Two right calls: the pool of six wins more than the other seat's one card, even if the
    other seat may then snap its two-card pile."""
    game = table([["2♣", "7♣"], ["7♥"]], pools=[["A♠", "3♠", "4♠", "5♠", "6♠", "7♦"]], flipped=[1])
    assert game.right_calls() == {SNAP, SNAP_POOL}
    for bot in both_readers():
        assert bot.act(*view(game)) == SNAP_POOL


def test_snaps_to_save_a_big_pile_rather_than_take_a_small_pool() -> None:
    """Taking the pool would leave its eight-card pile matched for the other seat to snap."""
    pile = ["2♣", "3♣", "4♣", "5♣", "6♣", "8♣", "9♣", "7♣"]
    game = table([pile, ["7♥"]], pools=[["A♠", "7♦"]], flipped=[1])
    for bot in both_readers():
        assert bot.act(*view(game)) == SNAP


def test_delay_waits_that_many_ticks_of_the_window() -> None:
    bot = SnapHeuristic(delay=2)
    for at, expected in [(0, WAIT), (1, WAIT), (2, SNAP)]:
        game = table([["9♠"], ["9♦"]], flipped=[1], window_tick=at)
        assert bot.act(*view(game)) == expected


def test_the_rules_reaction_delay_leaves_only_wait() -> None:
    game = table([["9♠"], ["9♦"]], flipped=[1], reaction_delay=(1, 0))
    observation, mask = view(game)
    assert mask.tolist() == [1, 0, 0, 0]
    assert SnapHeuristic().act(observation, mask) == WAIT
    later = table([["9♠"], ["9♦"]], flipped=[1], reaction_delay=(1, 0), window_tick=1)
    assert SnapHeuristic(error_rate=1e-9).act(*view(later)) == SNAP  # its first chance


def test_error_rate_one_misses_every_match_and_calls_falsely_otherwise() -> None:
    bot = SnapHeuristic(error_rate=1.0, seed=0)
    assert bot.act(*view(table([["9♠"], ["9♦"]], flipped=[1]))) == WAIT
    assert bot.act(*view(table([["9♠"], ["8♦"]], flipped=[1]))) == SNAP


def test_a_match_missed_at_the_first_chance_stays_missed_for_the_window() -> None:
    later = table([["9♠"], ["9♦"]], flipped=[1], window_tick=1)
    assert SnapHeuristic().act(*view(later)) == SNAP  # error-free: it would call at any tick
    assert SnapHeuristic(error_rate=1e-9).act(*view(later)) == WAIT


def test_errors_are_seeded() -> None:
    situations = [view(table([["9♠"], [card]], flipped=[1])) for card in ("9♦", "8♦")] * 40

    def decisions(seed: int) -> list[int]:
        bot = SnapHeuristic(error_rate=0.5, seed=99)
        bot.reset(seed)
        return [bot.act(*situation) for situation in situations]

    assert decisions(1) == decisions(1) != decisions(2)
    assert {WAIT, SNAP} == set(decisions(1)[::2]) == set(decisions(1)[1::2])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="delay must be a whole number of ticks"):
        SnapHeuristic(delay=-1)
    with pytest.raises(ValueError, match="error_rate must be a probability"):
        SnapHeuristic(error_rate=1.5)
    with pytest.raises(ValueError, match="ruleset must be one of"):
        SnapHeuristic(ruleset="speedy")


def test_refuses_an_observation_of_other_rule_options() -> None:
    game = table([["P2"], ["P2"]], flipped=[1], match_key="picture", pictures=8)
    with pytest.raises(ValueError, match="has 71 floats; got shape"):
        SnapHeuristic().act(*view(game))
    with pytest.raises(ValueError, match="has 71 floats; got shape"):
        SnapHeuristic(num_players=2).act(*view(table([[], [], []], num_players=3)))


VARIANTS = [
    {"num_players": 3},
    {"num_players": 4, "ruleset": "snap_pot"},
    {"num_players": 3, "speed": True},
    {"num_players": 2, "speed": True, "ruleset": "snap_pot", "double": True},
    {"num_players": 3, "double": True},
    {"num_players": 3, "single_pile": True},
    {"num_players": 3, "slapjack": True},
    {"num_players": 3, "slapjack": True, "ruleset": "snap_pot"},
    {"num_players": 3, "match_key": "picture"},
    {"num_players": 3, "ruleset": "snap_pot", "match_key": "picture"},
    {"num_players": 3, "reaction_ticks": 5, "reaction_delay": (0, 2, 4)},
    {"num_players": 3, "flipper_may_call": False},
    {"num_players": 8},
]


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_only_legal_and_never_false_calls_over_random_play(options: dict) -> None:
    """Seat 0 is the bot built by `make_agent`, seat 1 the bot built with the options, the rest
    random: neither ever picks a masked action or calls falsely, and both call whenever they may
    and something is claimable. A slow, error-prone bot still only picks legal actions."""
    env = snail_envs.make(SNAP_ENV, **options)
    told = SnapHeuristic(**options)
    sloppy = SnapHeuristic(delay=1, error_rate=0.3, seed=4, **options)
    calls = 0
    for seed in range(3):
        env.reset(seed=seed)
        others = make_agent("random", SNAP_ENV, seed=seed)
        players = [make_agent("heuristic", SNAP_ENV, options=options)]
        players.append(sloppy if seed == 2 else told)
        players += [others] * (len(env.possible_agents) - 2)
        for agent in deciding_agents(env, max_iter=3000):
            seat = env.possible_agents.index(agent)
            game = env.unwrapped.game
            action = choose_action(players[seat], env, agent)
            assert action in game.legal_actions(seat)
            if players[seat] is not sloppy and seat < 2:
                right = game.right_calls()
                assert action == WAIT or action in right
                assert action != WAIT or not (right and game.may_call(seat))
                calls += action != WAIT
            env.step(action)
    assert calls > 0


# --------------------------------------------------------------------------- noisy sight

NOISY = {**PICTURES, "num_players": 2, "glimpse_error": (0.6, 0.3, 0.0)}


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # tick 0 (error 0.6) glimpses picture 0: belief 0.4 / (0.4 + 3 · 0.2) = 0.4 < 0.5
        ([False, False], [WAIT]),
        # then tick 1 (error 0.3) again picture 0: 0.28 / (0.28 + 3 · 0.02) = 0.82
        ([False, False, False, False], [WAIT, SNAP]),
        # tick 1 shows picture 2 instead: 0.04 / (0.04 + 0.14 + 2 · 0.02) = 0.18
        ([False, False, True, 2, False], [WAIT, WAIT]),
    ],
    ids=["one-glimpse", "two-glimpses-agree", "two-glimpses-disagree"],
)
def test_under_noisy_sight_it_calls_once_its_bayes_belief_reaches_the_threshold(
    script: list[object], expected: list[int]
) -> None:
    """With glimpse_error the heuristic weighs the flipped card's key by Bayes' rule from its
    glimpses and the error schedule, and snaps once the belief in a match reaches its threshold
    (here 0.5)."""
    game = glimpse_game(stack_top=0, script=script, glimpse_error=(0.6, 0.3, 0.0))
    bot = SnapHeuristic(belief_threshold=0.5, **NOISY)
    observer = SnapObserver(game.options)
    for index, action in enumerate(expected):
        if index:
            tick(game)
        observation = observer.observe(game, 0)
        mask = np.zeros(4, np.int8)
        mask[list(game.legal_actions(0))] = 1
        assert bot.act(observation, mask) == action


@pytest.mark.parametrize("stack_top", [0, 2])
def test_by_default_it_calls_on_the_first_glimpse_that_shows_a_claim(stack_top: int) -> None:
    """The default threshold, 0.1: a glimpse showing picture 0 beside seat 0's picture 0 is a
    match with belief 0.4 at an error of 0.6, called at once whatever the card truly is (card 2
    is picture 1)."""
    script = [False, False] if stack_top == 0 else [True, 0, False]
    game = glimpse_game(stack_top=stack_top, script=script, glimpse_error=(0.6, 0.3, 0.0))
    observation = SnapObserver(game.options).observe(game, 0)
    bot = SnapHeuristic.for_rules(NOISY)
    assert bot.act(observation, np.array([1, 1, 0, 0], np.int8)) == SNAP


def test_under_noisy_sight_it_never_calls_on_an_exact_table_without_a_claim() -> None:
    """Once sight is exact (a tick of error 0), the heuristic calls only on a real claim."""
    game = glimpse_game(
        stack_top=2, script=[True, 0, False, True, 0, False], glimpse_error=(0.6, 0.3, 0.0)
    )
    bot = SnapHeuristic.for_rules(NOISY)
    tick(game)
    tick(game)  # tick 2: error 0, seat 0 sees picture 1, no match
    observation = SnapObserver(game.options).observe(game, 0)
    assert bot.act(observation, np.array([1, 1, 0, 0], np.int8)) == WAIT


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "ruleset": "snap_pot", "max_flips": 400},
        {"num_players": 2, "max_flips": 400},
        {"num_players": 3, "same_tick": "random", "glimpse_error": (0.6, 0.3, 0.0)},
    ],
    ids=str,
)
def test_heuristic_play_never_runs_a_window_on_an_unchanged_table(options: dict) -> None:
    """The no-move rule (snap_v1) holds for heuristic play too: in snap_v0, four heuristics
    under snap_pot called the same tied snap_pool on the same table until max_ticks."""
    env = snail_envs.make_parallel(SNAP_ENV, **options)
    bot = SnapHeuristic.for_rules(options)
    for seed in range(4):
        check = NoWindowOnAnUnchangedTable()
        observations, _ = env.reset(seed=seed)
        while env.agents:
            actions = {
                agent: bot.act(
                    observations[agent]["observation"], observations[agent]["action_mask"]
                )
                for agent in env.agents
            }
            observations, *_ = env.step(actions)
            check(env.unwrapped.game)
        assert env.unwrapped.game.ticks < 4 * env.unwrapped.game.flips + 4
