"""Batched Snap worlds for search, beyond the contract of `test_search_worlds`.

The contract compares the mean of the full state, and Snap's state shows a stack only by its top
card and how many cards of each key it holds: a redraw that dealt every stack the right cards and
the right top but laid the cards below the top in a biased order (sorted by id, say) passes it.
Here the card at every stack position, the card flipped last and the other seats' glimpses of it
are compared with the reference's redraw, world by world, in situations of shuffled refreshes and
glimpses; every world keeps every tracked card and every position's group; nothing hidden is read
in any field of the record; and a game the kernels played loads back into the very record they
hold (so the kernels keep every card's group as the reference does).
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.batched.chance import CHANCE_FIELDS
from snail_envs.batched.snap import GAME, PILES, STACKS, load_game
from snail_envs.core.chance import SeededChance
from snail_envs.snap.rules import NEVER_SEEN, SEEN, WAIT, Snap, SnapOptions
from tests.marks import slow
from tests.names import SNAP

WORLDS = 10_000


def patient_tick(game: Snap, rng: random.Random, blunders: float = 0.0) -> dict[int, int]:
    """The actions of seats that make a right call one time in five, otherwise any legal action
    with chance `blunders`, and else wait: stacks run out and refresh, and glimpses last."""
    right = game.right_calls()
    tick = {}
    for seat in game.acting_seats():
        calls = [action for action in game.legal_actions(seat) if action in right]
        if calls and rng.random() < 0.2:
            tick[seat] = rng.choice(calls)
        elif blunders and rng.random() < blunders:
            tick[seat] = rng.choice(game.legal_actions(seat))
        else:
            tick[seat] = WAIT
    return tick


def patient_game(options: dict, seed: int, ticks: int) -> Snap:
    """A reference game after `ticks` ticks of seats that never call wrongly (`patient_tick`)."""
    rng = random.Random(seed)
    game = Snap(SnapOptions(**options), SeededChance(seed))
    for _ in range(ticks):
        game.apply(patient_tick(game, rng))
    assert game.outcome is None and not game.truncated
    return game


def stack_groups(game: Snap) -> Counter:
    """How many stack cards each group of interchangeable cards (`SEEN` included) holds."""
    return Counter(game.hidden_group[card] for stack in game.stacks for card in stack)


SITUATIONS = [
    # (options, seed, ticks, seat, what the situation must hold)
    pytest.param(
        {
            "num_players": 3,
            "same_tick": "random",
            "refresh": "shuffle",
            "glimpse_error": (0.6, 0.3, 0.0),
        },
        0,
        160,
        0,
        lambda game: game.glimpsed_group > NEVER_SEEN and len(game.glimpses[0]) == 2,
        id="a-glimpsed-card-from-a-shuffled-refresh",
    ),
    pytest.param(
        {"num_players": 4, "double": True, "refresh": "shuffle"},
        3,
        76,
        2,
        lambda game: (
            stack_groups(game)[NEVER_SEEN] >= 3
            and sum(count > 1 for group, count in stack_groups(game).items() if group > 1) >= 2
        ),
        id="never-seen-cards-and-two-shuffled-refreshes",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        {
            "num_players": 4,
            "single_pile": True,
            "reaction_ticks": 4,
            "glimpse_error": (0.6, 0.3),
        },
        1,
        40,
        1,
        lambda game: game.glimpsed_group == NEVER_SEEN and len(game.glimpses[0]) == 4,
        id="a-central-pile-glimpsed-true-at-last",
        marks=pytest.mark.slow,
    ),
]


def stacked_cards(games: np.ndarray, sizes: list[int]) -> np.ndarray:
    """The card at every stack position of every record: seat 0's stack first, each from its
    top down."""
    rows = np.arange(games.shape[0])
    columns = []
    for seat, size in enumerate(sizes):
        card = games["first"][:, STACKS + seat].astype(np.int64)
        for _ in range(size):
            columns.append(card)
            card = games["next"][rows, card].astype(np.int64)
    return np.stack(columns, axis=1)


def frequencies(values: np.ndarray, options: int) -> np.ndarray:
    """How often each of `options` values comes at each place: (worlds, places) → (places,
    options)."""
    worlds, places = values.shape
    flat = (np.arange(places) * options + values).ravel()
    return np.bincount(flat, minlength=places * options).reshape(places, options) / worlds


def assert_same_frequencies(
    kernel: np.ndarray, reference: np.ndarray, options: int, what: str
) -> None:
    """Every value's frequency at every place agrees within 5 standard errors."""
    ours, theirs = frequencies(kernel, options), frequencies(reference, options)
    stderr = np.sqrt((ours * (1 - ours) + theirs * (1 - theirs)) / kernel.shape[0])
    outside = np.argwhere(np.abs(ours - theirs) > 5 * stderr + 1e-9)
    assert not outside.size, (
        f"{what}: (place, value) {outside[:5].tolist()}: kernel "
        f"{[ours[tuple(at)] for at in outside[:5]]}, reference "
        f"{[theirs[tuple(at)] for at in outside[:5]]}"
    )


@pytest.mark.parametrize(("options", "seed", "ticks", "seat", "holds"), SITUATIONS)
def test_a_redraw_deals_every_stack_position_as_the_reference_redraw(
    options, seed, ticks, seat, holds
) -> None:
    game = patient_game(options, seed, ticks)
    assert holds(game)
    batch = snail_envs.batched.make(SNAP, WORLDS, **options)
    batch.load(0, game, seed=seed)
    batch.redraw(seat, seed=seed, views=False)
    sizes = [len(stack) for stack in game.stacks]
    cards = stacked_cards(batch.games, sizes)

    twins = []
    for world in range(WORLDS):
        twin = copy.deepcopy(game)
        twin.redraw_hidden(seat, SeededChance(world))
        twins.append(twin)
    theirs = np.array(
        [[card for stack in twin.stacks for card in reversed(stack)] for twin in twins]
    )
    parsed = batch.options
    keys = np.array(parsed.card_keys)
    assert_same_frequencies(cards, theirs, parsed.deck_size, "stack cards")
    assert_same_frequencies(keys[cards], keys[theirs], parsed.num_keys, "stack keys")

    # every tracked card stays in place, every position keeps its group
    before = np.array([card for stack in game.stacks for card in reversed(stack)])
    groups = np.take_along_axis(batch.games["hidden_group"], cards, axis=1)
    assert (groups == np.array(game.hidden_group)[before]).all()
    tracked = groups == SEEN
    assert (cards[:, tracked[0]] == before[tracked[0]]).all()

    if game.glimpses[seat]:
        ((flipper, pile, _),) = game.just_flipped
        tops = batch.games["last"][:, PILES + pile].astype(np.int64)
        assert (batch.games["flipped"][:, flipper] == tops).all()
        assert (batch.games["hidden_group"][np.arange(WORLDS), tops] == SEEN).all()
        their_tops = np.array([twin.piles[pile][-1] for twin in twins])
        assert_same_frequencies(tops[:, None], their_tops[:, None], parsed.deck_size, "flipped")
        assert (
            np.sort(np.column_stack([cards, tops]), axis=1)
            == np.sort(np.append(before, game.piles[pile][-1]))
        ).all()
        # every other seat's glimpse at every tick, jointly with the card's true key
        k, glimpsed = parsed.num_keys, len(game.glimpses[seat])
        others = [other for other in range(game.num_players) if other != seat]
        ours = batch.games["glimpses"][:, others, :glimpsed].reshape(WORLDS, -1)
        theirs_seen = np.array([[twin.glimpses[o] for o in others] for twin in twins])
        assert (batch.games["glimpses"][:, seat, :glimpsed] == game.glimpses[seat]).all()
        assert_same_frequencies(
            keys[tops][:, None] * k + ours,
            keys[their_tops][:, None] * k + theirs_seen.reshape(WORLDS, -1),
            k * k,
            "the others' glimpses",
        )
    else:
        assert (np.sort(cards, axis=1) == np.sort(before)).all()


@pytest.mark.parametrize(("options", "seed", "ticks", "seat", "holds"), SITUATIONS)
def test_a_redraw_reads_nothing_hidden_in_any_field(options, seed, ticks, seat, holds) -> None:
    game = patient_game(options, seed, ticks)
    assert holds(game)
    worlds = []
    for truth_seed in (None, 1000, 1001):
        truth = copy.deepcopy(game)
        if truth_seed is not None:
            truth.redraw_hidden(seat, SeededChance(truth_seed))
        batch = snail_envs.batched.make(SNAP, 16, **options)
        batch.load(0, truth, seed=0)
        batch.redraw(seat, seed=seed)
        worlds.append(batch.games.copy())
    for field in GAME.names:
        for other in worlds[1:]:
            np.testing.assert_array_equal(worlds[0][field], other[field], err_msg=field)


LOAD_BACK = [
    {"num_players": 3, "same_tick": "random", "refresh": "shuffle", "glimpse_error": (0.6, 0.3)},
    {"num_players": 4, "double": True, "refresh": "shuffle", "session": "best_of_3"},
    slow(
        {
            "num_players": 4,
            "single_pile": True,
            "slapjack": True,
            "glimpse_error": (0.5, 0.2),
        }
    ),
    slow({"num_players": 3, "ruleset": "snap_pot", "speed": True, "refresh": "shuffle"}),
    slow({"num_players": 2, "reaction_delay": (0, 1), "flipper_may_call": False}),
]


CHANCE = [name for name, *_ in CHANCE_FIELDS] + ["tape"]


def game_fields(record: np.void) -> np.ndarray:
    """A copy of `record` with its chance and tape cleared, and its glimpses past the window's
    ticks (left over from earlier windows)."""
    kept = np.zeros(1, GAME)
    kept[0] = record
    kept[CHANCE] = np.zeros(1, kept[CHANCE].dtype)
    kept["glimpses"][0, :, record["glimpsed"] :] = 0
    return kept


def assert_loads_back(record: np.void, game: Snap) -> None:
    """`game`, loaded, is `record` in every field of the game."""
    loaded = np.zeros(1, GAME)
    load_game(loaded, 0, game, seed=0)
    held, again = game_fields(record), game_fields(loaded[0])
    if held.tobytes() != again.tobytes():
        for field in GAME.names:
            np.testing.assert_array_equal(again[field], held[field], err_msg=field)


@pytest.mark.parametrize("options", LOAD_BACK, ids=str)
def test_a_game_the_kernels_played_loads_back_into_the_record_they_hold(options: dict) -> None:
    games = 6
    batch = snail_envs.batched.make(SNAP, games, **options)
    batch.reset(seed=7)
    rng = random.Random(7)

    def follow(index: int) -> Snap:
        return Snap(batch.options, batch.replay_chance(index))

    references = [follow(index) for index in range(games)]
    shuffled = 0
    for _ in range(600):
        ticks = [patient_tick(reference, rng, blunders=0.05) for reference in references]
        actions = np.zeros((games, batch.max_acting), np.int64)
        for index, tick in enumerate(ticks):
            actions[index, list(tick)] = list(tick.values())
        groups = batch.games["groups"].copy()
        step = batch.step(actions)
        shuffled += int((batch.games["groups"] > groups).sum())
        for index, tick in enumerate(ticks):
            if step.terminated[index] or step.truncated[index]:
                references[index] = follow(index)
            else:
                references[index].apply(tick)
            assert_loads_back(batch.games[index], references[index])
    if batch.options.refresh == "shuffle":
        assert shuffled > 10, "too few shuffled refreshes to follow"
