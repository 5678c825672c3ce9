"""What must hold in every Snailed It! position, checked after every step of random play."""

from __future__ import annotations

from snail_envs.snailed_it.rules import (
    COLOUR,
    PLAY,
    STARTERS,
    TOSS_WINDOW,
    VALUE,
    SnailedIt,
)


def check_position(game: SnailedIt) -> None:
    """Every number card in play accounted for once each (all 72 with the default box); two of
    the box's starters at the bottom of each row's piles, number cards on their own colour's row;
    hands non-empty at a turn; lot counts match the hands; totals consistent with the outcome."""
    places = [*game.penalty_pile, *game.tossed_pile]
    for seat, hand in enumerate(game.hands):
        places += hand
        held = [0] * len(game.lot_held[seat])
        for card in hand:
            held[game.card_lot[card]] += 1
        assert held == game.lot_held[seat], "lot counts differ from the hand"
    starters, on_rows = [], []
    for colour, piles in enumerate(game.rows):
        for pile in piles:
            starters.append(pile[0])
            on_rows += pile[1:]
            assert all(COLOUR[card] == colour for card in pile[1:]), "a card on the wrong row"
    laid = [VALUE[starter] for starter in starters]
    assert all(starter in STARTERS for starter in starters), "starters at the bottom of the piles"
    assert len(set(laid)) == len(laid) == 2 * game.options.colours, "two starters a row"
    assert set(laid) <= set(game.options.starters), "only the box's starters are laid"
    assert sorted(on_rows) == sorted(game.played), "the played cards are the cards on the rows"
    places += on_rows
    assert sorted(places) == list(game.options.deck), "every card in play is in one place"
    current_lot = len(game.lot_held[0]) - 1
    assert all(game.card_lot[card] == current_lot for card in game.penalty_pile)
    if game.outcome is None and not game.truncated:
        if game.phase == PLAY:
            assert game.hands[game.turn], "the seat to play holds a card"
            assert all(game.hands), "a round with an empty hand must have ended"
        else:
            assert game.phase == TOSS_WINDOW
            low, high = sorted(game.row_tops(COLOUR[game.fit_low]))
            assert high - low >= 2
    assert sum(game.points()) == -sum(game.totals)
    if game.outcome is not None:
        lowest = min(game.totals)
        assert game.outcome.winners == {s for s, t in enumerate(game.totals) if t == lowest}
        assert (
            max(game.totals) >= game.options.target or game.rounds_played == game.options.max_rounds
        )
