"""Pictures of a Snap table: text (`ansi`) and an RGB image (`rgb_array`, with Pillow).

Both show what a spectator sees: stack sizes (never their cards), piles with their top cards,
pools or pots, the window, and the last calls.
"""

from __future__ import annotations

import numpy as np

from snail_envs.snap.rules import SUITS, WAIT, Snap

CALL_NAMES = {1: "snap", 2: "snap_pool", 3: "slap"}


def _top(game: Snap, pile: list[int]) -> str:
    return game.label(pile[-1]) if pile else "--"


def _pool_name(game: Snap) -> str:
    return "pool" if game.classic else "pot"


def last_calls_text(game: Snap) -> str:
    """The calls of the last tick that had calls, each right or wrong, and what they changed."""
    calls = [
        f"player_{seat} {CALL_NAMES[call]} ({'right' if game.last_correct[seat] else 'wrong'})"
        for seat, call in enumerate(game.last_calls)
        if call != WAIT
    ]
    if not calls:
        return "no call yet"
    gains = [f"player_{seat} {gain:+d}" for seat, gain in enumerate(game.last_gain) if gain]
    return "; ".join(calls) + (f" -> cards {', '.join(gains)}" if gains else " -> no card moved")


def render_ansi(game: Snap) -> str:
    """The table as text: one row a seat, then the centre and the last calls."""
    options = game.options
    variants = [
        name for name in ("speed", "double", "single_pile", "slapjack") if getattr(options, name)
    ]
    header = f"Snap ({options.ruleset}{''.join(', ' + v for v in variants)}, "
    header += f"{game.num_players} players)  {game.flips} flips, {game.ticks} ticks played"
    lines = [header, "seat       stack  pile  top"]
    flipped = {seat for seat, _, _ in game.just_flipped}
    for seat in range(game.num_players):
        pile = game.piles[seat]
        notes = []
        if seat in flipped:
            notes.append("flipped last")
        if not game.in_game[seat]:
            notes.append("out")
        elif not game.held(seat):
            notes.append("no cards: out at its turn unless it wins some")
        if options.delays[seat]:
            notes.append(f"delay {options.delays[seat]}")
        lines.append(
            f"player_{seat:<3} {len(game.stacks[seat]):>5} {len(pile):>5}  "
            f"{_top(game, pile) if not options.single_pile else '':<4} {', '.join(notes)}".rstrip()
        )
    if options.single_pile:
        centre = game.piles[-1]
        below = f" on {game.label(centre[-2])}" if len(centre) > 1 else ""
        lines.append(f"central pile: {len(centre)} cards, top {_top(game, centre)}{below}")
    pools = [f"{game.label(pool[-1])} ×{len(pool)}" for pool in game.pools]
    lines.append(f"{_pool_name(game)}s: {', '.join(pools) if pools else 'none'}")
    lines.append(f"last calls: {last_calls_text(game)}")
    if options.session != "single":
        wins = ", ".join(f"player_{seat} {won}" for seat, won in enumerate(game.session_wins))
        stage = " (a sudden death)" if game.sudden_deaths else ""
        lines.append(
            f"session {options.session}: game {game.games_played + (game.outcome is None)}"
            f"{stage}; wins: {wins}"
        )
    if game.outcome is not None:
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        lines.append(f"game over ({game.outcome.reason}): won by {winners}")
    elif game.truncated:
        lines.append(f"stopped after {game.flips} flips and {game.ticks} ticks (limit)")
    else:
        kind = "reopened window" if game.reopened else "window"
        claim = "something claimable" if game.claimable() else "nothing claimable"
        lines.append(
            f"{kind}: tick {game.window_tick + 1} of {game.window_length} ({claim}); "
            f"acting: {', '.join(f'player_{s}' for s in game.acting_seats())}"
        )
        if any(game.glimpses):
            seen = ", ".join(
                f"player_{seat} {game.key_label(glimpses[-1])}"
                for seat, glimpses in enumerate(game.glimpses)
            )
            lines.append(f"glimpses of the card flipped last: {seen}")
    return "\n".join(lines)


CARD_W, CARD_H = 44, 62
COLUMN = 96
MARGIN = 12
FELT = (22, 110, 60)
INK = (240, 240, 230)
RED = (200, 30, 40)


def render_rgb(game: Snap) -> np.ndarray:
    """The table seen from above: a column a seat (stack, pile), the centre, the last calls."""
    from PIL import Image, ImageDraw

    options = game.options
    n = game.num_players
    centre_cards = len(game.pools) + options.single_pile
    width = MARGIN * 2 + COLUMN * max(n, centre_cards, 5)
    height = 2 * MARGIN + 3 * CARD_H + 90
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)

    def card(x: int, y: int, cards: list[int], face_up: bool, caption: str) -> None:
        if not cards:
            draw.rectangle((x, y, x + CARD_W, y + CARD_H), outline=(80, 150, 100))
        elif face_up:
            draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=(250, 250, 245), outline=INK)
            top = cards[-1]
            red = options.match_key == "rank" and SUITS[top % len(SUITS)] in "♦♥"
            label = game.label(top)
            if options.match_key == "rank":
                label = label[:-1] + "cdhs"[top % len(SUITS)]
            draw.text((x + 6, y + 6), label, fill=RED if red else (20, 20, 20))
        else:
            draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=(40, 60, 150), outline=INK)
        draw.text((x, y + CARD_H + 3), caption, fill=INK)

    flipped = {seat for seat, _, _ in game.just_flipped}
    for seat in range(n):
        x = MARGIN + COLUMN * seat
        y = MARGIN
        status = "" if game.in_game[seat] else " out"
        mark = " *" if seat in flipped else ""
        draw.text((x, y), f"player_{seat}{status}{mark}", fill=INK)
        card(x, y + 14, list(game.stacks[seat]), False, str(len(game.stacks[seat])))
        if not options.single_pile:
            pile = game.piles[seat]
            card(x + CARD_W + 4, y + 14, pile, True, str(len(pile)))
    y = MARGIN + CARD_H + 44
    x = MARGIN
    if options.single_pile:
        centre = game.piles[-1]
        card(x, y, centre, True, f"centre {len(centre)}")
        x += COLUMN
    for pool in game.pools:
        card(x, y, pool, True, f"{_pool_name(game)} {len(pool)}")
        x += COLUMN
    if not game.pools:
        draw.text((x, y + CARD_H // 2), f"no {_pool_name(game)}", fill=INK)
    text_y = y + CARD_H + 22
    draw.text((MARGIN, text_y), f"{game.flips} flips, {game.ticks} ticks", fill=INK)
    draw.text((MARGIN, text_y + 14), f"last calls: {last_calls_text(game)}", fill=INK)
    if game.outcome is not None:
        winners = ", ".join(f"player_{seat}" for seat in sorted(game.outcome.winners))
        draw.text((MARGIN, text_y + 28), f"game over: won by {winners}", fill=INK)
    return np.asarray(image, dtype=np.uint8)
