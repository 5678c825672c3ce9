"""Snailed It! (also sold as Cabanga!, 3–6 players): the rules.

Components
    Four colour rows: 0 orange, 1 yellow, 2 blue, 3 pink, each marked by a snail card. Eight grey
    starter cards 1, 3, 5, 7, 12, 14, 16, 18 (no colour). Seventy-two number cards, one for each
    colour and value 1–18; card `18·colour + value − 1` (0–71) names each one.

Setup (every round)
    Shuffle the starters and lay one face up on the left and one on the right of each row: these
    are the rows' two piles. Shuffle the number cards and deal `hand_size` (8) to each seat, one at
    a time clockwise from the seat that starts the round; hands are hidden from the other seats.
    The rest is the face-down penalty pile. Seat 0 starts the first round, the next seat clockwise
    each later round.

Turn (the decision of the seat to play; play goes clockwise)
    - Play one card from your hand onto the left or the right pile of its own colour's row; it
      covers that pile's top. Only the two top values of a row count.
    - Same colour: if the card's colour is the colour played on the previous turn, draw one card
      from the penalty pile. The first turn of a round has no previous turn; tosses are not turns.
    - Gap: let a and b be the row's two top values. If |a − b| ≥ 2, a card of that row's colour
      with a value strictly between them fits the gap, and the toss window opens.

Toss window (a simultaneous phase of every other seat)
    Each tick, every seat but the one to play tosses one fitting card from its hand or passes, all
    at once, none seeing the others' choices of that tick; a seat holding no fitting card passes.
    Tossed cards go onto the tossed pile, face up (its cards are public, its order is not). Right
    after each tick the seat to play draws one card from the penalty pile per card tossed in that
    tick, even if its hand was empty. The window closes after a tick in which every seat passes;
    it opens whenever the gap exists, even if nobody holds a fitting card (then it is one tick in
    which everyone passes, so that passing never tells whether a seat could have tossed). Tosses
    do not change the row tops.

Penalty pile
    A draw from an empty penalty pile first shuffles the tossed pile into a new penalty pile; if
    both are empty, the draw is skipped.

Round end
    Once per turn, after the toss window closes (or after the play, when no window opens): if any
    seat holds no card, the round ends (several seats may finish at once). Each seat adds the
    points of the cards left in its hand to its total: `card_points` gives the points of values
    1–18 (default 1 for 1–3 and 16–18, 2 for 4–6 and 13–15, 3 for 7–12).

Game end
    After a round in which a total reaches `target` (18), or after `max_rounds` (20) rounds: the
    lowest total wins; ties share the win. A round in which every hand empties at once scores
    nothing, which is why the game needs the round limit.

Hidden information
    Hands are private (their sizes are public); the order of the penalty pile and of the tossed
    pile is hidden. Row tops, plays, tosses and the tossed pile's cards are public.

Options (defaults in brackets)
    `num_players` [4] 2–6 (the published game is for 3–6); `hand_size` [8] 1 to 72 // num_players;
    `target` [18] the total that ends the game; `max_rounds` [20]; `card_points` [the table above]
    18 non-negative integers, the points of values 1–18; `max_turns` [None]: stop (truncate) an
    unfinished game when this many turns have been played.

    A smaller box (a shorter game; the solvable mini): `colours` [4] 1–4: only the first this many
    rows are laid (orange, yellow, blue, pink) and only their number cards are shuffled and
    dealt; `values` [18] 1–18: the number cards of each colour show only the values 1 to `values`;
    `starters` [1, 3, 5, 7, 12, 14, 16, 18]: the grey starter cards in the box, some of the eight
    (each value once), at least two for each row: they are shuffled and the first two go to the
    first row (left, right), the next two to the second, and so on; the others stay in the box.
    `hand_size` may then be at most (the number cards in play) // `num_players`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from snail_envs.core.cards import deal_round_robin
from snail_envs.core.chance import Chance
from snail_envs.core.game import GameInfo, Outcome, Termination
from snail_envs.core.options import check_int, check_optional_int, is_int

COLOURS = ("orange", "yellow", "blue", "pink")
NUM_COLOURS = len(COLOURS)
NUM_VALUES = 18
NUM_CARDS = NUM_COLOURS * NUM_VALUES
"""Number cards: card = 18·colour + value − 1."""
STARTER_VALUES = (1, 3, 5, 7, 12, 14, 16, 18)
STARTERS = tuple(range(NUM_CARDS, NUM_CARDS + len(STARTER_VALUES)))
"""Starter cards are numbered after the number cards: 72 + their index in STARTER_VALUES."""
NUMBER_CARDS = tuple(range(NUM_CARDS))
VALUE = tuple(card % NUM_VALUES + 1 for card in range(NUM_CARDS)) + STARTER_VALUES
"""The value printed on each card, starters included."""
COLOUR = tuple(card // NUM_VALUES for card in range(NUM_CARDS)) + (-1,) * len(STARTERS)
"""The colour of each card; -1 for the grey starters."""
SIDES = ("left", "right")

PLAY_ACTIONS = 2 * NUM_CARDS
"""Actions 0–143: play card `a // 2` on side `a % 2` (0 left, 1 right) of its colour's row."""
TOSS = PLAY_ACTIONS
"""Actions 144–215: toss card `a − 144`."""
PASS = TOSS + NUM_CARDS
"""Action 216: pass (toss nothing this tick)."""
NUM_ACTIONS = PASS + 1

PLAY, TOSS_WINDOW = 0, 1
PHASES = ("play", "toss window")

DEFAULT_CARD_POINTS = (1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1)


def number_cards(colours: int, values: int) -> tuple[int, ...]:
    """The number cards of the first `colours` colours showing values 1 to `values`, in card
    order: number_cards(4, 18) is every number card, number_cards(1, 3) the orange 1, 2, 3."""
    return tuple(card for card in NUMBER_CARDS if COLOUR[card] < colours and VALUE[card] <= values)


def card_name(card: int) -> str:
    """'orange 7' for a number card, 'grey 12' for a starter."""
    colour = COLOUR[card]
    return f"{'grey' if colour < 0 else COLOURS[colour]} {VALUE[card]}"


def number_card(colour: str, value: int) -> int:
    """The card of `colour` (a name) and `value`: number_card('blue', 4) == 39."""
    return NUM_VALUES * COLOURS.index(colour) + value - 1


def gap_cards(colour: int, a: int, b: int) -> range:
    """The cards that fit the gap of a row of `colour` whose tops show values `a` and `b`: the
    cards of that colour strictly between them; empty when |a − b| < 2 (no gap, no window).

    gap_cards(0, 3, 7) is range(3, 6): the orange 4, 5 and 6 (cards 3, 4, 5)."""
    low, high = (a, b) if a <= b else (b, a)
    base = NUM_VALUES * colour
    return range(base + low, base + max(low, high - 1))


def same_colour_draws(card: int, previous_colour: int | None) -> int:
    """The cards drawn for playing `card` on the turn after one that played `previous_colour`
    (None on a round's first turn): 1 for the same colour, else 0."""
    return 1 if COLOUR[card] == previous_colour else 0


def play_action(card: int, side: int) -> int:
    return 2 * card + side


def toss_action(card: int) -> int:
    return TOSS + card


@dataclass(frozen=True)
class SnailedItOptions:
    """The rule options of Snailed It! (see the module docstring)."""

    num_players: int = 4
    hand_size: int = 8
    target: int = 18
    max_rounds: int = 20
    card_points: tuple[int, ...] = DEFAULT_CARD_POINTS
    max_turns: int | None = None
    colours: int = NUM_COLOURS
    values: int = NUM_VALUES
    starters: tuple[int, ...] = STARTER_VALUES
    deck: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The number cards in play, in card order (all 72 with the default box)."""

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, FACTS.min_players, FACTS.max_players)
        check_int("colours", self.colours, 1, NUM_COLOURS)
        check_int("values", self.values, 1, NUM_VALUES)
        self._check_starters()
        deck = number_cards(self.colours, self.values)
        object.__setattr__(self, "deck", deck)
        check_int("hand_size", self.hand_size, 1, len(deck) // self.num_players)
        check_int("target", self.target, 1)
        check_int("max_rounds", self.max_rounds, 1)
        check_optional_int("max_turns", self.max_turns, 1)
        points = self.card_points
        if (
            isinstance(points, (str, bytes, Mapping))
            or not isinstance(points, Sequence)
            or len(points) != NUM_VALUES
            or not all(is_int(p) and p >= 0 for p in points)
        ):
            raise ValueError(
                "card_points must be 18 non-negative integers, the points of values 1 to 18; "
                f"got {points!r}"
            )
        object.__setattr__(self, "card_points", tuple(int(p) for p in points))

    def _check_starters(self) -> None:
        starters = self.starters
        if (
            isinstance(starters, (str, bytes, Mapping))
            or not isinstance(starters, Sequence)
            or not all(is_int(value) and value in STARTER_VALUES for value in starters)
            or len(set(starters)) != len(starters)
            or len(starters) < 2 * self.colours
        ):
            raise ValueError(
                f"starters must be some of the grey starter values {list(STARTER_VALUES)}, each "
                f"once, at least two for each of the {self.colours} rows; got {starters!r}"
            )
        object.__setattr__(self, "starters", tuple(int(value) for value in starters))


MAX_TURNS_PER_ROUND = NUM_CARDS
"""Every turn leaves one more number card on the rows until the round ends."""
MAX_TOSS_TICKS = NUM_VALUES - 2 + 1
"""A gap fits at most 16 cards, each tossed at most once per window, then one tick of passes."""
MAX_ROUND_POINTS = sum(DEFAULT_CARD_POINTS) * 4

FACTS = GameInfo(
    env_name="snailed_it_v0",
    title="Snailed It!",
    min_players=2,
    max_players=6,
    num_actions=NUM_ACTIONS,
    max_game_length=SnailedItOptions.max_rounds * MAX_TURNS_PER_ROUND * (1 + MAX_TOSS_TICKS * 5),
    points_range=(-float(SnailedItOptions.target - 1 + MAX_ROUND_POINTS), 0.0),
    hidden_information=True,
    simultaneous=True,
    engine="snail_envs.batched.snailed_it:SnailedItBatch",
    searchable=True,
    heuristic="snail_envs.agents.heuristics.snailed_it:SnailedItHeuristic",
    idle_actions=(PASS,),
    tree_options=("colours", "values", "starters", "hand_size", "max_rounds"),
)


class SnailedIt:
    """One game of Snailed It! in progress."""

    # the round in play, set up by _start_round (documented there)
    hands: list[list[int]]
    penalty_pile: list[int]
    tossed_pile: list[int]
    card_lot: list[int]
    lot_held: list[list[int]]
    turn: int
    previous_colour: int | None
    last_play: tuple[int, int, int] | None
    last_tosses: list[tuple[int, int]]

    def __init__(self, options: SnailedItOptions, chance: Chance) -> None:
        self.options = options
        self.num_players = n = options.num_players
        self.chance = chance
        self._card_points = tuple(options.card_points[VALUE[card] - 1] for card in range(NUM_CARDS))
        self._others = tuple(tuple((seat + k) % n for k in range(1, n)) for seat in range(n))
        """The seats of a toss window at each seat's turn, clockwise from its left."""
        self.totals = [0] * n
        self.rounds_played = 0
        self.turns_played = 0
        self.ticks_played = 0
        """Ticks applied: each play and each tick of a toss window."""
        self.last_round_points: list[int] | None = None
        self.outcome: Outcome | None = None
        self.starter = 0
        self._start_round()
        self._find_legal_actions()

    # ----------------------------------------------------------------- the Game protocol

    @property
    def truncated(self) -> bool:
        limit = self.options.max_turns
        return (
            limit is not None
            and self.turns_played >= limit
            and self.phase == PLAY
            and self.outcome is None
        )

    def acting_seats(self) -> tuple[int, ...]:
        if self.outcome is not None or self.truncated:
            return ()
        return (self.turn,) if self.phase == PLAY else self._others[self.turn]

    def legal_actions(self, seat: int) -> list[int]:
        return self._legal.get(seat, [])

    def apply(self, actions: Mapping[int, int]) -> None:
        self.ticks_played += 1
        if self.phase == PLAY:
            action = actions[self.turn]
            self.play(self.turn, action // 2, action % 2)
        else:
            self.toss_tick(actions)
        self._find_legal_actions()

    def is_in_game(self, seat: int) -> bool:
        return True

    def points(self) -> list[int]:
        """Minus each seat's total: the game's points grow better as the total stays low."""
        return [-total for total in self.totals]

    def describe_action(self, seat: int, action: int) -> str:
        if action < PLAY_ACTIONS:
            return f"play {card_name(action // 2)} on the {SIDES[action % 2]} pile"
        if action < PASS:
            return f"toss {card_name(action - TOSS)}"
        return "pass"

    def private_text(self, seat: int) -> str:
        return "your hand: " + (", ".join(map(card_name, sorted(self.hands[seat]))) or "empty")

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        """Redeal the other seats' hands and the penalty pile from the cards `seat` cannot see.

        Every hand keeps its size. The cards a seat drew from a penalty pile made of shuffled
        tossed cards are known to come from that pile (its cards were public when it was made),
        so each hidden card is redealt only among the places it could be: each seat keeps, for
        every such lot of cards, how many of its hidden cards come from it. The tossed pile's
        order is shuffled too.
        """
        hidden = [card for other in self._others[seat] for card in self.hands[other]]
        hidden += self.penalty_pile
        by_lot: dict[int, list[int]] = {}
        for card in sorted(hidden):
            by_lot.setdefault(self.card_lot[card], []).append(card)
        redealt = {lot: chance.arrange(cards) for lot, cards in sorted(by_lot.items())}
        for other in self._others[seat]:
            hand = []
            for lot, count in enumerate(self.lot_held[other]):
                for _ in range(count):
                    hand.append(redealt[lot].pop())
            self.hands[other] = hand
        remaining = [card for lot in sorted(redealt) for card in redealt[lot]]
        self.penalty_pile = chance.arrange(remaining)
        self.tossed_pile = chance.arrange(self.tossed_pile)
        self._find_legal_actions()

    # ----------------------------------------------------------------- the rules

    def allowed_actions(self, seat: int) -> list[int]:
        """The actions of a seat acting now: in its turn, any card of its hand onto either pile
        of its row; in a toss window, any card of its hand that fits the gap, or pass."""
        if self.phase == PLAY:
            actions = []
            for card in sorted(self.hands[seat]):
                actions.append(2 * card)
                actions.append(2 * card + 1)
            return actions
        low, high = self.fit_low, self.fit_high
        actions = [TOSS + card for card in self.hands[seat] if low <= card <= high]
        actions.sort()
        actions.append(PASS)
        return actions

    def _find_legal_actions(self) -> None:
        """The allowed actions of every seat acting now, worked out once a tick (the adapters ask
        for them several times a tick)."""
        self._legal: dict[int, list[int]] = {
            seat: self.allowed_actions(seat) for seat in self.acting_seats()
        }

    def row_tops(self, colour: int) -> tuple[int, int]:
        """The values on top of a row's left and right piles."""
        left, right = self.rows[colour]
        return VALUE[left[-1]], VALUE[right[-1]]

    def fits_gap(self, card: int) -> bool:
        """During a toss window: the card is of the row's colour, strictly inside the gap."""
        return self.phase == TOSS_WINDOW and self.fit_low <= card <= self.fit_high

    def play(self, seat: int, card: int, side: int) -> None:
        """Play `card` on `side` of its row; draw for a repeated colour; open the gap's window."""
        self.hands[seat].remove(card)
        self.lot_held[seat][self.card_lot[card]] -= 1
        colour = COLOUR[card]
        self.rows[colour][side].append(card)
        self.played.append(card)
        self.turns_played += 1
        self.last_play = (seat, card, side)
        self.last_tosses = []
        draws = same_colour_draws(card, self.previous_colour)
        self.same_colour_draw = draws > 0
        if draws:
            self.draw(seat, draws)
        self.previous_colour = colour
        fitting = gap_cards(colour, *self.row_tops(colour))
        if fitting:
            self.phase = TOSS_WINDOW
            self.fit_low, self.fit_high = fitting[0], fitting[-1]
        else:
            self.end_turn()

    def toss_tick(self, actions: Mapping[int, int]) -> None:
        """One tick of the toss window: every tossed card onto the tossed pile (clockwise from the
        player's left), then the player draws one per toss; a tick without tosses closes it."""
        tossed = 0
        for seat in self._others[self.turn]:
            action = actions[seat]
            if action == PASS:
                continue
            card = action - TOSS
            self.hands[seat].remove(card)
            self.lot_held[seat][self.card_lot[card]] -= 1
            self.tossed_pile.append(card)
            self.last_tosses.append((seat, card))
            tossed += 1
        if tossed:
            self.draw(self.turn, tossed)
        else:
            self.phase = PLAY
            self.end_turn()

    def draw(self, seat: int, count: int) -> None:
        """Draw `count` cards from the penalty pile, refilling it from the tossed pile when empty;
        a draw with both piles empty is skipped."""
        hand, held = self.hands[seat], self.lot_held[seat]
        for _ in range(count):
            if not self.penalty_pile:
                if not self.tossed_pile:
                    return
                self.refill_penalty_pile()
            card = self.penalty_pile.pop()
            hand.append(card)
            held[self.card_lot[card]] += 1

    def refill_penalty_pile(self) -> None:
        """Shuffle the tossed pile into a new penalty pile: a new lot, whose cards are public."""
        lot = len(self.lot_held[0])
        for card in self.tossed_pile:
            self.card_lot[card] = lot
        for held in self.lot_held:
            held.append(0)
        self.penalty_pile = self.chance.arrange(self.tossed_pile)
        self.tossed_pile = []

    def end_turn(self) -> None:
        """The round ends if any seat holds no card; otherwise the next seat plays."""
        if any(not hand for hand in self.hands):
            self.end_round()
        else:
            self.turn = (self.turn + 1) % self.num_players

    def hand_points(self, seat: int) -> int:
        return sum(self._card_points[card] for card in self.hands[seat])

    def end_round(self) -> None:
        """Score the cards left in hand; end the game at `target` or `max_rounds`, else deal
        a new round started by the next seat."""
        self.last_round_points = [self.hand_points(seat) for seat in range(self.num_players)]
        for seat, gained in enumerate(self.last_round_points):
            self.totals[seat] += gained
        self.rounds_played += 1
        if max(self.totals) >= self.options.target:
            self._finish(f"a total reached {self.options.target}", Termination.GOAL)
        elif self.rounds_played >= self.options.max_rounds:
            self._finish(f"{self.rounds_played} rounds were played (max_rounds)", Termination.LIMIT)
        else:
            self.starter = (self.starter + 1) % self.num_players
            self._start_round()

    def _finish(self, reason: str, termination: Termination) -> None:
        lowest = min(self.totals)
        self.outcome = Outcome(
            winners=frozenset(seat for seat, total in enumerate(self.totals) if total == lowest),
            reason=reason,
            termination=termination,
        )

    def _start_round(self) -> None:
        starters = self.chance.arrange(self.options.starters)
        self.rows: list[tuple[list[int], list[int]]] = [
            (
                [STARTERS[STARTER_VALUES.index(starters[2 * colour])]],
                [STARTERS[STARTER_VALUES.index(starters[2 * colour + 1])]],
            )
            for colour in range(self.options.colours)
        ]
        """Each row's left and right piles, bottom (the starter) first: one row for each colour
        in play."""
        self.played: list[int] = []
        """The number cards played onto the rows this round, in order."""
        deck = self.chance.arrange(self.options.deck)
        self.hands, self.penalty_pile = deal_round_robin(
            deck, self.num_players, self.options.hand_size, first_seat=self.starter
        )
        """The penalty pile's top is its last card."""
        self.tossed_pile = []
        self.card_lot = [0] * NUM_CARDS
        """Hidden cards by where they may be: lot 0 was dealt at the start of the round; lot k
        was the tossed pile shuffled into the k-th new penalty pile of the round."""
        self.lot_held = [[len(hand)] for hand in self.hands]
        """How many of each seat's cards come from each lot (public: draws and plays are)."""
        self.turn = self.starter
        self.phase = PLAY
        self.previous_colour = None
        self.same_colour_draw = False
        self.last_play = None
        self.last_tosses = []
        self.fit_low = self.fit_high = -1
