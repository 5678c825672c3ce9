"""Shared pieces of the Snap tests: scripted deals, table readers, the conservation invariant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from snail_envs.core.chance import ScriptedChance
from snail_envs.snap.rules import RANKS, SNAP, SUITS, WAIT, Snap, SnapOptions


def card_id(options: SnapOptions, label: str, taken: set[int]) -> int:
    """The first free card called `label`: "7♥", "10♠" (ranks) or "P3" (pictures)."""
    if options.match_key == "picture":
        picture = int(label[1:]) - 1
        candidates = [picture * options.copies_per_key + c for c in range(options.copies_per_key)]
    else:
        rank, suit = RANKS.index(label[:-1]), SUITS.index(label[-1])
        candidates = [
            pack * 52 + rank * len(SUITS) + suit for pack in range(options.deck_size // 52)
        ]
    for card in candidates:
        if card not in taken:
            taken.add(card)
            return card
    raise ValueError(f"no card {label} left in the deck")


def deck_order(options: SnapOptions, stacks: Sequence[Sequence[str]]) -> list[int]:
    """The shuffle that deals each seat a stack starting (top first) with the named cards; the
    rest of every stack is filled with the remaining cards in ascending order."""
    n, size = options.num_players, options.deck_size
    taken: set[int] = set()
    named = [[card_id(options, label, taken) for label in stack] for stack in stacks]
    named += [[] for _ in range(n - len(named))]
    rest = [card for card in range(size) if card not in taken]
    full = []
    for seat, cards in enumerate(named):
        share = size // n + (seat < size % n)
        if len(cards) > share:
            raise ValueError(f"player_{seat} is dealt {share} cards, not {len(cards)}")
        full.append(cards + [rest.pop(0) for _ in range(share - len(cards))])
    order = [0] * size
    for dealt in range(size):  # the deal takes cards from the end of the shuffled list
        order[size - 1 - dealt] = full[dealt % n][dealt // n]
    return order


def scripted_game(stacks: Sequence[Sequence[str]], **options: object) -> Snap:
    """A game whose shuffle deals the named stacks (top card first)."""
    rules = SnapOptions(**options)  # type: ignore[arg-type]
    return Snap(rules, ScriptedChance([deck_order(rules, stacks)]))


def table(
    piles: Sequence[Sequence[str]],
    pools: Sequence[Sequence[str]] = (),
    flipped: Sequence[int] = (),
    window_tick: int = 0,
    **options: object,
) -> Snap:
    """A game at a table of named cards (bottom first), at `window_tick` of the window after the
    seats `flipped` flipped the top cards of their piles (of the central pile with
    `single_pile`); the stacks hold the other cards, dealt in turn."""
    rules = SnapOptions(**options)  # type: ignore[arg-type]
    taken: set[int] = set()
    pile_ids = [[card_id(rules, label, taken) for label in pile] for pile in piles]
    pool_ids = [[card_id(rules, label, taken) for label in pool] for pool in pools]
    flipped_ids = [(seat, pile_ids[-1 if rules.single_pile else seat][-1]) for seat in flipped]
    rest = [card for card in range(rules.deck_size) if card not in taken]
    n = rules.num_players
    stacks = [rest[seat::n] for seat in range(n)]
    return Snap.at_table(rules, stacks, pile_ids, pool_ids, flipped_ids, window_tick=window_tick)


def names(game: Snap, cards: Sequence[int]) -> list[str]:
    return [game.label(card) for card in cards]


def tops(game: Snap) -> list[str | None]:
    """The top card of every pile (None for an empty pile)."""
    return [game.label(pile[-1]) if pile else None for pile in game.piles]


def stack_top_first(game: Snap, seat: int) -> list[str]:
    return names(game, list(reversed(game.stacks[seat])))


def tick(game: Snap, calls: Mapping[int, int] | None = None) -> None:
    """One tick: the seats in `calls` call, every other acting seat waits."""
    actions = dict.fromkeys(game.acting_seats(), WAIT)
    actions.update(calls or {})
    for seat, action in actions.items():
        assert action in game.legal_actions(seat), (seat, action, game.legal_actions(seat))
    game.apply(actions)


def wait_out_window(game: Snap) -> None:
    """Every seat waits until the window closes (and the next flip is made)."""
    flips = game.flips
    while game.flips == flips and game.outcome is None and not game.truncated:
        tick(game)


def invariant(game: Snap) -> None:
    """Every card of the deck is in exactly one stack, pile or pool; seats out of the game hold
    nothing; `classic` has at most one pool; no pool is empty and no two pools show one key;
    every card that has shown on a pile is marked seen."""
    cards = [card for stack in game.stacks for card in stack]
    cards += [card for pile in game.piles for card in pile]
    cards += [card for pool in game.pools for card in pool]
    assert sorted(cards) == list(range(game.options.deck_size)), "a card was lost or doubled"
    for seat in range(game.num_players):
        if not game.in_game[seat]:
            assert game.held(seat) == 0, f"player_{seat} is out but holds cards"
    assert all(game.pools), "an empty pool"
    pool_keys = [game.key[pool[-1]] for pool in game.pools]
    assert len(set(pool_keys)) == len(pool_keys), "two pools show the same key"
    if game.classic:
        assert len(game.pools) <= 1
    if game.options.single_pile:
        assert not any(game.piles[: game.num_players])
    for pile in game.piles:
        assert not any(game.hidden_group[card] for card in pile), "a face-up card is marked hidden"


def grace_game() -> Snap:
    """snap_pot, three seats: seat 2 holds no card after its wrong call, in the game until its
    next turn (its grace); the piles of seats 0 and 1 show P1, a match."""
    game = scripted_game(
        [["P1", "P2", "P3"], ["P3", "P2", "P1"], ["P1", "P3", "P2"]],
        num_players=3,
        match_key="picture",
        pictures=3,
        copies=3,
        ruleset="snap_pot",
    )
    for _ in range(8):
        wait_out_window(game)
    assert tops(game) == ["P3", "P1", "P2"] and not game.stacks[2]
    tick(game, {2: SNAP})  # wrong: seat 2's pile becomes a pot, seat 2 holds no card
    assert game.held(2) == 0 and game.in_game[2] and 2 in game.acting_seats()
    assert tops(game) == ["P1", "P1", None]  # seat 0 refreshed and flipped
    return game


class NoWindowOnAnUnchangedTable:
    """An invariant over a game's steps: a window that reopens (no flip) never shows the table
    of the window before it. Call it after every step, as `invariant` is."""

    def __init__(self) -> None:
        self._ticks = -1
        self._table: tuple | None = None

    def __call__(self, game: Snap) -> None:
        invariant(game)
        if game.ticks == self._ticks or game.window_tick or game.outcome or game.truncated:
            return
        self._ticks = game.ticks
        table = (
            tuple(map(tuple, game.stacks)),
            tuple(map(tuple, game.piles)),
            tuple(map(tuple, game.pools)),
        )
        if game.reopened:
            assert table != self._table, "a window reopened on an unchanged table"
        self._table = table


PICTURES = {"match_key": "picture", "pictures": 4, "copies": 2}
"""Eight cards: card c shows picture c // 2 (key 0–3)."""


def picture_table(
    stacks: list[list[int]],
    piles: list[list[int]],
    flipped: list[tuple[int, int]],
    script: list[object],
    **options: object,
) -> Snap:
    """A picture-deck game at this table (card ids, bottom first), whose chance in play is
    `script`."""
    rules = SnapOptions(**PICTURES, **options)  # type: ignore[arg-type]
    game = Snap.at_table(rules, stacks, piles, flipped=flipped)
    game.chance = ScriptedChance(script)
    return game


def glimpse_game(
    stack_top: int,
    script: list[object],
    glimpse_error: tuple[float, ...] = (0.5, 0.25, 0.0),
    **options: object,
) -> Snap:
    """Seat 0 shows picture 0 (card 1); seat 1 flips `stack_top` next, under `glimpse_error`,
    with the glimpses' chance scripted."""
    rest = [card for card in (2, 3, 4, 5, 6, 7, 0) if card != stack_top]
    game = picture_table(
        stacks=[rest[:3], [*rest[3:], stack_top]],
        piles=[[1], []],
        flipped=[(0, 1)],
        script=script,
        glimpse_error=glimpse_error,
        num_players=2,
        **options,
    )
    while not game.flips:  # the window of seat 0's flip, glimpses aside (nothing claimable)
        tick(game)
    return game
