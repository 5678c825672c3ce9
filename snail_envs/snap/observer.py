"""What one seat of Snap sees: the public table, seats relative to the observer.

Everything on a Snap table is public except the order of the cards in the stacks, which nobody
sees; seats differ only in where they sit and whether they may call now. So the observer builds
one public vector per table (seats absolute, cached until the table changes) and gives each seat
a gathered, rotated copy of it: seat i in an observation is the i-th seat clockwise from the
observer (0 = the observer). The full `state` adds the stacks' contents.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from snail_envs.core.layout import Layout, Piece
from snail_envs.snap.rules import CALLS, RANKS, WINS_NEEDED, Snap, SnapOptions


@dataclass(frozen=True)
class _Part:
    """A piece of the public table: `width` floats a seat (`per_seat`) or `width` in all."""

    name: str
    width: int
    per_seat: bool
    description: str
    low: float = 0.0


def _parts(options: SnapOptions) -> list[_Part]:
    k, ticks = options.num_keys, options.reaction_ticks
    keys = (
        f"key k = rank {RANKS[0]}…{RANKS[-1]} as 0…12"
        if options.match_key == "rank"
        else f"key k = picture 0…{k - 1}"
    )
    parts = [
        _Part("pile_tops", k, True, f"seat i's pile shows key k: index {k}·i + k ({keys})"),
        _Part("pile_sizes", 1, True, "cards in seat i's pile / deck size"),
        _Part("stack_sizes", 1, True, "cards in seat i's stack / deck size"),
        _Part("in_game", 1, True, "1 while seat i is in the game"),
        _Part("just_flipped", 1, True, "1 if seat i made the last flip"),
        _Part("flipped_showing", 1, True, "1 if the card seat i flipped last still shows"),
        _Part("next_flippers", 1, True, "1 if seat i flips next"),
        _Part("reaction_delays", 1, True, f"seat i's reaction_delay / {ticks}"),
        _Part(
            "last_calls",
            len(CALLS),
            True,
            "seat i's call in the last tick that had calls: index 3·i + (0 snap, 1 snap_pool, "
            "2 slap)",
        ),
        _Part("last_correct", 1, True, "1 if that call of seat i was right"),
        _Part(
            "last_gain",
            1,
            True,
            "the change in seat i's cards (stack + pile) at that resolution / deck size",
            low=-1.0,
        ),
        _Part("pool_sizes", k, False, "cards in the pool (pot) whose top shows key k / deck size"),
    ]
    if options.single_pile:
        parts += [
            _Part("centre_top", k, False, "the central pile's top card shows key k"),
            _Part("centre_below", k, False, "the card below it shows key k"),
            _Part("centre_size", 1, False, "cards in the central pile / deck size"),
        ]
    if options.session != "single":
        games = options.session_games + options.max_sudden_deaths
        parts += [
            _Part(
                "session_wins",
                1,
                True,
                f"games seat i has won in this session / {WINS_NEEDED[options.session]}",
            ),
            _Part("game_number", 1, False, f"the game's number in the session / {games}"),
            _Part("sudden_death", 1, False, "1 in a sudden-death game (the tied seats play)"),
        ]
    return [
        *parts,
        _Part("window_tick", ticks, False, "one-hot: the tick of the window (0 = first)"),
        _Part(
            "window_full",
            1,
            False,
            f"1 if the window lasts {ticks} ticks (something is claimable, or always with "
            "glimpse_error), 0 if one tick",
        ),
        _Part("reopened", 1, False, "1 if the window opened after a resolution, without a flip"),
        _Part("progress", 2, False, "flips / max_flips and ticks / max_ticks (0 if no limit)"),
    ]


MAY_CALL_OWN = "1 if you may call in this tick (you act and your reaction_delay has passed)"
GLIMPSES = (
    "with glimpse_error: the key you saw the card flipped last show at tick t of this window: "
    "index {k}·t + key (all 0 once sight is exact: after a resolution, in a reopened window)"
)
MAY_CALL_SEAT = "1 if seat i may call in this tick"
CALL_ODDS = (
    "with call_odds: the chance that snap, snap_pool and slap would be right in this tick, by "
    "every card you have seen and your glimpses (1 or 0 while you see the table as it is)"
)
FLIPPED_RECALL = (
    "with recall='perfect', while you glimpse the card flipped last: the share of key k among the "
    "cards it may be by every card you have seen (never turned face up, or of its stack's last "
    "shuffle; itself alone if you followed it), before your glimpses; all 0 otherwise"
)


class SnapObserver:
    """Builds observations (the public table, relative seats) and the full state."""

    def __init__(self, options: SnapOptions) -> None:
        self.options = options
        n, k = options.num_players, options.num_keys
        self.num_players = n
        parts = _parts(options)
        self.public_layout = Layout(
            [
                *(_piece(part, n) for part in parts),
                Piece("may_call", n, MAY_CALL_SEAT),
            ]
        )
        own = [Piece("may_call", 1, MAY_CALL_OWN)]
        if options.glimpse_error:
            ticks = options.reaction_ticks
            own.append(Piece("glimpses", ticks * k, GLIMPSES.format(k=k)))
        if options.recall == "perfect":
            own.append(Piece("flipped_recall", k, FLIPPED_RECALL))
        if options.call_odds:
            own.append(Piece("call_odds", len(CALLS), CALL_ODDS))
        self.observation_layout = Layout([*(_piece(part, n) for part in parts), *own])
        self.state_layout = Layout(
            [
                *self.public_layout.pieces,
                Piece("stack_tops", n * k, f"seat i's stack's top card has key k: index {k}·i + k"),
                Piece(
                    "stack_keys",
                    n * k,
                    f"cards of key k in seat i's stack / {options.copies_per_key}: index {k}·i + k",
                ),
            ]
        )
        self._gather = [self._gather_for(parts, seat) for seat in range(n)]
        public = self.public_layout
        self._template = public.zeros()
        self._template[public["reaction_delays"]] = np.array(options.delays) / (
            options.reaction_ticks
        )
        self._at = {piece.name: public.offset(piece.name) for piece in public.pieces}
        self._table: Snap | None = None
        self._version = -1
        self._public = self._template

    def _gather_for(self, parts: list[_Part], seat: int) -> np.ndarray:
        """Where each observation index of `seat` reads from the public vector."""
        n, public = self.num_players, self.public_layout
        source: list[int] = []
        for part in parts:
            start = public.offset(part.name)
            if not part.per_seat:
                source.extend(range(start, start + part.width))
                continue
            for i in range(n):
                at = start + part.width * ((seat + i) % n)
                source.extend(range(at, at + part.width))
        source.append(public.offset("may_call") + seat)
        return np.array(source, dtype=np.intp)

    def reset(self, game: Snap) -> None:
        self._table = None
        self._version = -1

    def observe(self, game: Snap, seat: int) -> np.ndarray:
        public = self._public_vector(game)
        if not self.options.glimpse_error:
            return public[self._gather[seat]]
        observation = np.zeros(self.observation_layout.size, dtype=np.float32)
        observation[: self._gather[seat].size] = public[self._gather[seat]]
        glimpses = game.glimpses[seat]
        if glimpses:
            self._show_glimpses(game, seat, glimpses, observation)
        if self.options.call_odds:
            at = self.observation_layout.offset("call_odds")
            observation[at : at + len(CALLS)] = game.call_odds(seat)
        return observation

    def _show_glimpses(
        self, game: Snap, seat: int, glimpses: list[int], observation: np.ndarray
    ) -> None:
        """The card flipped last shows the key `seat` glimpsed now, not its true key; the
        `glimpses` piece holds every glimpse of this window, and `flipped_recall` (with
        `recall="perfect"`) what the seat remembers of the cards that card may be."""
        layout, k = self.observation_layout, self.options.num_keys
        ((_, pile, card),) = game.just_flipped
        if self.options.single_pile:
            top = layout.offset("centre_top")
        else:
            top = layout.offset("pile_tops") + k * ((pile - seat) % self.num_players)
        observation[top + game.key[card]] = 0.0
        observation[top + glimpses[-1]] = 1.0
        at = layout.offset("glimpses")
        for tick, key in enumerate(glimpses):
            observation[at + k * tick + key] = 1.0
        if self.options.recall == "perfect":
            counts = game.recalled_keys()
            at = layout.offset("flipped_recall")
            observation[at : at + k] = np.array(counts, dtype=np.float32) / sum(counts)

    def state(self, game: Snap) -> np.ndarray:
        n, k = self.num_players, self.options.num_keys
        hidden = np.zeros(2 * n * k, dtype=np.float32)
        key = game.key
        copies = self.options.copies_per_key
        for seat, stack in enumerate(game.stacks):
            if stack:
                hidden[k * seat + key[stack[-1]]] = 1
            for card in stack:
                hidden[n * k + k * seat + key[card]] += 1 / copies
        return np.concatenate([self._public_vector(game), hidden])

    def _public_vector(self, game: Snap) -> np.ndarray:
        """The public table, seats absolute: rebuilt only when the table has changed."""
        if game is self._table and game.version == self._version:
            return self._public
        vector = self._template.copy()
        at = self._at
        options = self.options
        n, k, size = self.num_players, options.num_keys, options.deck_size
        key = game.key
        piles = game.piles[:n]
        pile_sizes, stack_sizes, last_gain = at["pile_sizes"], at["stack_sizes"], at["last_gain"]
        pile_tops, in_game, may_call = at["pile_tops"], at["in_game"], at["may_call"]
        last_calls, last_correct = at["last_calls"], at["last_correct"]
        # single writes: cheaper than gathering the indices for one fancy-indexed write
        for seat, pile in enumerate(piles):
            vector[pile_sizes + seat] = len(pile) / size
            vector[stack_sizes + seat] = len(game.stacks[seat]) / size
            vector[last_gain + seat] = game.last_gain[seat] / size
            if pile:
                vector[pile_tops + k * seat + key[pile[-1]]] = 1.0
            if game.in_game[seat]:
                vector[in_game + seat] = 1.0
            if game.may_call(seat):
                vector[may_call + seat] = 1.0
            call = game.last_calls[seat]
            if call:
                vector[last_calls + len(CALLS) * seat + call - 1] = 1.0
                if game.last_correct[seat]:
                    vector[last_correct + seat] = 1.0
        for seat, onto, card in game.just_flipped:
            vector[at["just_flipped"] + seat] = 1.0
            if game.piles[onto] and game.piles[onto][-1] == card:
                vector[at["flipped_showing"] + seat] = 1.0
        if game.outcome is None and not game.truncated:
            if options.speed:
                for seat in range(n):
                    if game.in_game[seat]:
                        vector[at["next_flippers"] + seat] = 1.0
            else:
                vector[at["next_flippers"] + game.next_flipper()] = 1.0
        for pool in game.pools:
            vector[at["pool_sizes"] + key[pool[-1]]] = len(pool) / size
        if options.session != "single":
            needed = WINS_NEEDED[options.session]
            for seat, wins in enumerate(game.session_wins):
                vector[at["session_wins"] + seat] = wins / needed
            games = options.session_games + options.max_sudden_deaths
            vector[at["game_number"]] = min(game.games_played + 1, games) / games
            vector[at["sudden_death"]] = 1.0 if game.sudden_deaths else 0.0
        if options.single_pile:
            centre = game.piles[-1]
            if centre:
                vector[at["centre_top"] + key[centre[-1]]] = 1.0
                vector[at["centre_size"]] = len(centre) / size
            if len(centre) > 1:
                vector[at["centre_below"] + key[centre[-2]]] = 1.0
        vector[at["window_tick"] + game.window_tick] = 1.0
        if game.window_length > 1:
            vector[at["window_full"]] = 1.0
        if game.reopened:
            vector[at["reopened"]] = 1.0
        if options.max_flips is not None:
            vector[at["progress"]] = min(game.flips / options.max_flips, 1.0)
        if options.max_ticks is not None:
            vector[at["progress"] + 1] = game.ticks / options.max_ticks
        self._table, self._version, self._public = game, game.version, vector
        return vector


def _piece(part: _Part, num_players: int) -> Piece:
    width = part.width * num_players if part.per_seat else part.width
    return Piece(part.name, width, part.description, low=part.low)


def public_table(observation: np.ndarray, options: SnapOptions) -> Snap:
    """The table an observation shows, as a game the rules engine can be asked about (what is
    claimable, what a call would win: `Snap.after_calls`).

    Seats are the observation's: seat 0 is the observer, seat i the i-th seat clockwise. Every
    public fact is rebuilt: pile, stack and pool sizes, pile and pool tops, the central pile's two
    top cards, the last flip and whether its cards still show, who is in the game, the window's
    tick and whether it reopened. Cards nobody sees (under the tops, in the stacks) are stand-ins:
    one card id that shows on no top, so their keys mean nothing. Not rebuilt: the counters
    (flips, ticks) and the last resolution.
    """
    return _TableReader.of(options).table(observation)


class _TableReader:
    """Reads observations of one rule setup into tables (one reader per setup, cached)."""

    def __init__(self, options: SnapOptions) -> None:
        self.options = options
        layout = SnapObserver(options).observation_layout
        self.at = {piece.name: layout.offset(piece.name) for piece in layout.pieces}
        self.size = layout.size
        keys = options.card_keys
        self.top_card = [keys.index(key) for key in range(options.num_keys)]
        """A card of each key, to stand for a visible top."""
        self.stand_in = min(set(range(options.deck_size)) - set(self.top_card))

    @staticmethod
    @lru_cache(maxsize=64)
    def of(options: SnapOptions) -> _TableReader:
        return _TableReader(options)

    def table(self, observation: np.ndarray) -> Snap:
        options, at = self.options, self.at
        if observation.shape != (self.size,):
            raise ValueError(
                f"an observation of Snap with {options} has {self.size} floats; "
                f"got shape {observation.shape}"
            )
        n, k, size = options.num_players, options.num_keys, options.deck_size
        top_card, stand_in = self.top_card, self.stand_in
        values = observation.tolist()

        def count(index: int) -> int:
            return round(values[index] * size)

        def shown(start: int) -> int:
            """The key marked in the one-hot piece starting at `start`."""
            return values[start : start + k].index(1.0)

        def packet(cards: int, *top: int) -> list[int]:
            """`cards` cards, the last ones showing these keys."""
            return [stand_in] * (cards - len(top)) + [top_card[key] for key in top]

        piles = []
        for seat in range(n):
            cards = count(at["pile_sizes"] + seat)
            piles.append(packet(cards, shown(at["pile_tops"] + k * seat)) if cards else [])
        if options.single_pile:
            cards = count(at["centre_size"])
            below = (shown(at["centre_below"]),) if cards > 1 else ()
            piles.append(packet(cards, *below, shown(at["centre_top"])) if cards else [])
        pool_sizes = values[at["pool_sizes"] : at["pool_sizes"] + k]
        pools = [packet(round(share * size), key) for key, share in enumerate(pool_sizes) if share]
        stacks = [[stand_in] * count(at["stack_sizes"] + seat) for seat in range(n)]
        flipped = []
        for seat in range(n):
            if values[at["just_flipped"] + seat]:
                pile = piles[-1 if options.single_pile else seat]
                showing = values[at["flipped_showing"] + seat]
                flipped.append((seat, pile[-1] if showing else stand_in))
        ticks = values[at["window_tick"] : at["window_tick"] + options.reaction_ticks]
        return Snap.at_table(
            options,
            stacks,
            piles,
            pools,
            flipped,
            in_game=[values[at["in_game"] + seat] == 1.0 for seat in range(n)],
            reopened=values[at["reopened"]] == 1.0,
            window_tick=ticks.index(1.0),
        )
