"""Snap v1's rules, each checked on a scripted table: the no-move rule, `same_tick`, `refresh`
and `glimpse_error` (RULES.md §1; each test quotes the sentence it checks)."""

from __future__ import annotations

import pytest

from snail_envs.core.chance import ScriptedChance
from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.rules import NEVER_SEEN, SEEN, SLAP, SNAP, SNAP_POOL, WAIT
from tests.names import SNAP as SNAP_ENV
from tests.snap.helpers import (
    PICTURES,
    glimpse_game,
    invariant,
    names,
    picture_table,
    stack_top_first,
    table,
    tick,
    tops,
)

pytestmark = pytest.mark.usefixtures("both_engines")


def test_a_resolution_that_moves_no_card_ends_the_window() -> None:
    """ "A resolution that moves no card ends the window; the next flip follows": two correct
    `snap_pool` calls win nothing, and the K-K pile match that still shows opens no window."""
    game = table([["2♣"], ["K♥"], ["K♠"]], pools=[["K♣"]], flipped=[1], num_players=3)
    flips = game.flips
    tick(game, {0: SNAP_POOL, 2: SNAP_POOL})
    assert game.last_correct[0] and game.last_correct[2]
    assert names(game, game.pools[0]) == ["K♣"]
    assert game.flips == flips + 1 and not game.reopened


def test_a_resolution_that_moves_cards_reopens_on_a_standing_match() -> None:
    """ "After a resolution, if another pile-to-pile match is still visible, a new window opens
    without a flip": a wrong call moves the caller's pile, and the 7-7 match still shows."""
    game = table([["7♣"], ["7♥"], ["2♦"]], flipped=[1], num_players=3, slapjack=True)
    tick(game, {2: SLAP})  # no Jack: wrong, seat 2's pile goes to the centre
    assert game.reopened and tops(game) == ["7♣", "7♥", None]


def test_same_tick_random_makes_one_of_two_snaps_the_correct_call() -> None:
    """same_tick="random": "within a tick the order of those callers is drawn at random: the
    first of them is the single correct caller of that kind, and the others' calls lapse
    (neither right nor wrong)"."""
    game = table([["7♣"], ["7♥"], ["2♦"]], flipped=[1], num_players=3, same_tick="random")
    game.chance = ScriptedChance([2])
    tick(game, {0: SNAP, 2: SNAP})
    assert not game.pools, "no tie: nothing goes to the centre"
    assert stack_top_first(game, 2)[-2:] == ["7♣", "7♥"]
    assert game.last_correct == [False, False, True]


def test_same_tick_random_orders_snap_pool_callers_too() -> None:
    """same_tick="random" applies to every kind of call: of two correct `snap_pool` calls, the
    one drawn first wins the pool."""
    game = table(
        [["2♣"], ["K♥"], ["9♠"]], pools=[["K♣"]], flipped=[1], num_players=3, same_tick="random"
    )
    game.chance = ScriptedChance([0])
    tick(game, {0: SNAP_POOL, 2: SNAP_POOL})
    assert not game.pools and stack_top_first(game, 0)[-1] == "K♣"
    assert game.last_correct == [True, False, False]


def test_same_tick_random_leaves_wrong_calls_wrong() -> None:
    """ "The resolution order above is unchanged (... then wrong calls, which still count as
    wrong)": one snap wins the draw, a wrong slap by the third seat still costs its pile."""
    game = table(
        [["7♣"], ["7♥"], ["2♦", "4♦"]],
        flipped=[1],
        num_players=3,
        same_tick="random",
        slapjack=True,
    )
    game.chance = ScriptedChance([0])
    tick(game, {0: SNAP, 1: SNAP, 2: SLAP})
    assert game.last_correct == [True, False, False]
    assert names(game, game.pools[0]) == ["2♦", "4♦"]


@pytest.mark.parametrize(("refresh", "top"), [("turn_over", 0), ("shuffle", 4)])
def test_refresh_turns_the_pile_over_or_shuffles_it(refresh: str, top: int) -> None:
    """refresh: "turn_over": the pile turned over, no shuffle [rulebook] (its bottom card
    becomes the stack's top). "shuffle": the pile is shuffled as it is turned over."""
    game = picture_table(
        stacks=[[], [1, 3, 5, 6]],
        piles=[[0, 2, 4], [7]],
        flipped=[(1, 7)],
        script=[[4, 0, 2]] if refresh == "shuffle" else [],
        refresh=refresh,
        num_players=2,
    )
    tick(game)  # pictures 2 and 3 show: nothing claimable, the window closes; seat 0 flips
    assert game.piles[0] == [top]
    rest = [0, 2] if refresh == "shuffle" else [2, 4]
    assert list(reversed(game.stacks[0])) == rest
    groups = {game.hidden_group[card] for card in rest}
    assert groups == ({NEVER_SEEN + 1} if refresh == "shuffle" else {SEEN})
    invariant(game)


def test_each_seat_glimpses_the_flipped_card_on_its_own() -> None:
    """glimpse_error: "At tick t of a window, each seat sees the card flipped last correctly
    with probability 1 − e_t; otherwise that seat sees a rank drawn uniformly from the other
    ranks. Each seat's glimpse is drawn independently, per tick ... and is private"."""
    game = glimpse_game(stack_top=0, script=[True, 2, False, False, True, 3])
    assert game.piles[1] == [0] and game.glimpses == [[2], [0]]
    observer = SnapObserver(game.options)
    layout = observer.observation_layout
    seen = [layout.as_dict(observer.observe(game, seat)) for seat in (0, 1)]
    assert seen[0]["pile_tops"][4:].tolist() == [0, 0, 1, 0]  # seat 1's pile, seen by seat 0
    assert seen[1]["pile_tops"][:4].tolist() == [1, 0, 0, 0]  # its own pile, seen truly
    assert seen[0]["glimpses"][:4].tolist() == [0, 0, 1, 0]
    tick(game)  # tick 1, error 0.25: seat 0 now sees truly, seat 1 falsely
    assert game.glimpses == [[2, 0], [0, 3]]
    tick(game)  # tick 2, error 0: no draw, both see truly
    assert game.glimpses == [[2, 0, 0], [0, 3, 0]]
    assert isinstance(game.chance, ScriptedChance) and game.chance.remaining == 0


def test_a_noisy_window_lasts_reaction_ticks_whether_or_not_a_claim_is_real() -> None:
    """ "Nothing else may tell a seat the truth: with glimpse_error, every window lasts
    reaction_ticks ticks whether or not a claim is real"; and a seat's observation is the same
    whether the glimpsed claim is real or not, given the same glimpses."""
    real = glimpse_game(stack_top=0, script=[False, False])  # picture 0 on picture 0: a match
    false = glimpse_game(stack_top=2, script=[True, 0, False])  # picture 1, seen by seat 0 as 0
    assert real.matched_keys() and not false.matched_keys()
    assert real.window_length == false.window_length == 3
    observer = SnapObserver(real.options)
    assert (observer.observe(real, 0) == observer.observe(false, 0)).all()


def test_recall_shows_what_a_seat_remembers_of_the_card_flipped_last() -> None:
    """Hidden information: "a seat's own past glimpses are part of its view; the true rank of a
    card it glimpsed wrongly ... [is] hidden from it"; what the seat has seen is its own to
    remember. With `recall="perfect"` its observation shows, beside its glimpses, the keys the
    flipped card may have by every card seen: the never-seen cards (and the card itself) while
    it came from them, the card alone once its place was followed."""
    game = glimpse_game(stack_top=2, script=[True, 0, False], recall="perfect")
    observer = SnapObserver(game.options)
    layout = observer.observation_layout
    seen = layout.as_dict(observer.observe(game, 0))
    # cards 0 and 1 (picture 0) were seen face up; 2–7 were not: the card may be any of them
    assert game.recalled_keys() == [1, 2, 2, 2]
    assert seen["flipped_recall"].tolist() == pytest.approx([1 / 7, 2 / 7, 2 / 7, 2 / 7])
    assert seen["glimpses"][:4].tolist() == [1, 0, 0, 0]  # seat 0 saw picture 0
    game.glimpsed_group = SEEN  # had its place been followed, memory would name the card
    assert game.recalled_keys() == [0, 1, 0, 0]
    game.glimpses = [[], []]  # a reopened window: sight is exact, memory adds nothing
    assert not observer.observe(game, 0)[layout.offset("flipped_recall") :].any()


def test_call_odds_weigh_the_cards_remembered_by_the_seats_own_glimpses() -> None:
    """Hidden information: "a seat's own past glimpses are part of its view". With `call_odds`
    the observation shows what follows from them and from every card seen: the chance that each
    call (snap, snap_pool, slap) is right now, the card flipped last being each card it may be
    as often as the seat's glimpses would show it; once sight is exact, the table's answer."""
    game = glimpse_game(stack_top=2, script=[True, 0, False], recall="perfect", call_odds=True)
    observer = SnapObserver(game.options)
    layout = observer.observation_layout
    # picture 1 was flipped onto seat 1's pile, beside picture 0 on seat 0's; the card may be
    # picture 0 (one card left unseen) or 1, 2, 3 (two each). Tick 0's error is 1/2: a glimpse
    # is as likely 1/2 under its own picture, 1/6 under each other one.
    # Seat 0 glimpsed picture 0: weights 1·1/2 against 2·1/6 three times, a snap right 1/3.
    assert game.call_odds(0) == pytest.approx([1 / 3, 0, 0])
    seen = layout.as_dict(observer.observe(game, 0))
    assert seen["call_odds"].tolist() == pytest.approx([1 / 3, 0, 0])
    # Seat 1 glimpsed picture 1, truly: picture 0 weighs 1·1/6 against 2·1/2 + 2·(2·1/6)
    assert game.call_odds(1) == pytest.approx([1 / 11, 0, 0])
    game.glimpses = [[], []]  # a reopened window: sight is exact, no match shows
    assert game.call_odds(0) == [0.0, 0.0, 0.0]
    real = glimpse_game(stack_top=0, script=[False, False], recall="perfect", call_odds=True)
    real.glimpses = [[], []]
    assert real.call_odds(0) == [1.0, 0.0, 0.0]  # picture 0 on picture 0: the snap is right


def test_calls_are_judged_on_the_true_cards() -> None:
    """ "Calls are judged on the true table. A call made on a false glimpse is simply right or
    wrong by the true cards."
    """
    game = glimpse_game(stack_top=2, script=[True, 0, False, False, False])
    tick(game, {0: SNAP})
    assert not game.last_correct[0] and names(game, game.pools[0]) == ["P1"]


def test_a_resolution_shows_every_card_exactly() -> None:
    """Calls are judged openly: after a resolution no seat glimpses any more; a reopened window
    shows the true table to every seat."""
    game = picture_table(
        stacks=[[2], [3, 0], [6], [7]],
        piles=[[4], [], [5], [1]],
        flipped=[(0, 4)],
        script=[True, 3, False, False, False],  # seat 0 glimpses picture 3, the others truly
        glimpse_error=(0.5,),
        num_players=4,
    )
    while not game.flips:
        tick(game, {})
    assert game.piles[1] == [0] and game.glimpses[0] == [3]
    tick(game, {1: SNAP})  # picture 0 on seats 1 and 3: seat 1 takes both piles
    assert game.reopened and tops(game) == ["P3", None, "P3", None]
    assert game.glimpses == [[], [], [], []]


def test_resampling_keeps_a_seats_glimpses_and_redraws_the_truth_behind_them() -> None:
    """ "the true rank of a card it glimpsed wrongly, and other seats' glimpses, are hidden from
    it, and resample_from_infostate redraws them consistently with its glimpses"."""
    import snail_envs

    env = snail_envs.make(SNAP_ENV, glimpse_error=(0.9, 0.9, 0.0), **PICTURES)
    env.reset(seed=3)
    while not env.unwrapped.game.glimpses[0]:
        env.step(WAIT)
    game = env.unwrapped.game
    own = list(game.glimpses[0])
    true_keys, others = set(), set()
    before = env.observe("player_0")["observation"]
    for seed in range(200):
        twin = env.unwrapped.resample_from_infostate("player_0", seed)
        assert twin.game.glimpses[0] == own
        assert (twin.observe("player_0")["observation"] == before).all()
        ((_, pile, card),) = twin.game.just_flipped
        assert twin.game.piles[pile][-1] == card
        true_keys.add(twin.game.key[card])
        others.add(tuple(twin.game.glimpses[1]))
        invariant(twin.game)
    assert len(true_keys) > 1, "a 0.9 error leaves the true picture open"
    assert len(others) > 1


def test_memory_shows_a_snap_wrong_only_when_no_card_the_flipped_one_may_be_matches() -> None:
    """What memory saves under noisy sight (`known_wrong_by_memory`, counted by
    `benchmarks/snap_calls.py`): seat 0 shows picture 0 and seat 1 has just flipped a card
    glimpsed wrongly. While the card may be any never-seen card, one of which is a picture 0,
    a snap may be right; had its place been followed, memory would name it (picture 1), and a
    snap is known wrong whatever the glimpses say."""
    game = glimpse_game(stack_top=2, script=[True, 0, False])
    assert game.recalled_keys()[0] > 0
    assert not game.known_wrong_by_memory(SNAP)
    game.glimpsed_group = SEEN
    assert game.recalled_keys() == [0, 1, 0, 0]
    assert game.known_wrong_by_memory(SNAP)
    assert not game.known_wrong_by_memory(WAIT)
    exact = picture_table(
        stacks=[[3, 4, 5], [6, 7, 0]], piles=[[1], [2]], flipped=[(1, 2)], script=[], num_players=2
    )
    assert not exact.known_wrong_by_memory(SNAP)  # exact sight: nothing to remember
