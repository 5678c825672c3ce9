"""Snap: the rules, for the `classic` ruleset and the `snap_pot` ruleset.

Components
    One 52-card pack (13 ranks × 4 suits, no jokers); `decks` ["auto"] is the number of packs,
    "auto" meaning two packs above six players. Players: 2–6 with one pack, up to 12 with two.
    With `match_key="picture"` the deck is a picture deck instead: `pictures` [13] pictures ×
    `copies` [4] copies of each. Suits never matter: a card's *key* is its rank (or picture).

Setup
    Shuffle, then deal the whole deck one card at a time from the dealer's left: seat 0 in the
    first game (some seats may get one card more). Each seat's cards form its face-down
    **stack**, first dealt card on top; nobody sees any stack's order, its owner included.
    Beside it each seat builds a face-up **pile**.

Flips (not decisions: the environment performs them)
    Seat 0 flips first, then play goes clockwise over the seats still in the game. The flipper turns
    its stack's top card onto its pile. A seat whose stack is empty first turns its pile over to
    become its stack: as it is (`refresh="turn_over"`, the rulebook: the pile's bottom card
    becomes the stack's top), or shuffled (`refresh="shuffle"`, a house rule).
    `speed`: every seat still in the game flips at once, each round (two or three players).

Match
    Two or more piles whose top cards share a key.

Reaction windows (the decisions)
    After every flip a window opens of up to `reaction_ticks` [3] ticks. In each tick every seat
    still in the game acts at once, choosing `wait`, `snap`, `snap_pool` or (with `slapjack`)
    `slap`; no seat sees another's choice of the same tick. The flipper may call too unless
    `flipper_may_call=False` (then the last flipper acts with `wait` alone in every window until
    the next flip).
    - The first tick in which any seat calls resolves the window; its later ticks are not played.
      If nobody calls in any tick, the next flip follows.
    - When nothing is claimable (no match, no pool match, and with `slapjack` no Jack on a pile)
      the window is one tick long: only a wrong call is possible. With `glimpse_error` every
      window lasts `reaction_ticks` ticks, so that its length tells nothing.
    - `glimpse_error` [() = perfect sight], non-increasing error chances, one a tick: at tick t
      of the first window after a flip each seat glimpses the card just flipped, truly with
      chance 1 − e_t, else as a key drawn uniformly from the others (each seat on its own, each
      tick; ticks past the tuple's end see truly). Calls are judged on the true cards, and
      openly: after a resolution every card is seen exactly.
    - `reaction_delay` [0 for every seat]: a seat with delay d reacts d ticks late. In every window
      it may call only from tick d on (before that its only action is `wait`), so its fastest call
      lands in the same tick as a delay-0 seat's call made d ticks after the flip. Two seats calling
      at the first tick they can therefore tie only when their delays are equal; otherwise the
      faster seat wins alone. A delay must be smaller than `reaction_ticks`; in a one-tick window
      only delay-0 seats can call.
    - Calls are legal whether right or wrong. `snap` and `wait` are always legal (subject to the
      delay), `slap` always with `slapjack`, and `snap_pool` whenever a pool exists.
    - After a resolution that moved a card, if a pile-to-pile match is still showing, a new
      window opens without a flip. A pool match alone does not reopen one, and a resolution that
      moved no card ends the window: the next flip follows (no window runs on an unchanged
      table; since `snap_v1`).

Resolution of the calling tick
    Every call is judged against the table as it was at the start of the tick; the effects then
    apply in this order, each to the table as it is at that moment. With `same_tick="random"`
    ["tie"], two or more correct calls of one kind are ordered at random first: the first of them
    is the one correct call of that kind and the others lapse (neither right nor wrong), so the
    ties below never happen.
    1. One correct `snap_pool` wins. It is correct when a pile top shares the key of a pool's top
       card: in `classic` only the card just flipped counts (it must still be showing); in
       `snap_pot` any pile top. `classic`: the caller takes the pool. `snap_pot`: the caller takes
       every pot a pile top matches, each with the piles that match it. Two or more correct
       `snap_pool` calls in one tick: nobody wins, nothing moves.
    2. Correct `snap` calls (a match is showing). The snap is for the key of the card just flipped
       when it is still showing and matched (with `speed`, the lowest such key among the cards
       of the round), otherwise for the lowest matched key. One caller takes every pile showing
       that key (all of them on a three-way match). Two or more callers tie: `classic` moves the
       matched piles to the centre as a pool; `snap_pot` moves the tied callers' own piles to
       the centre as a pot, and matched piles of other seats stay (so the match still shows and
       a new window opens).
       `double`: on a snap won alone, every other owner of a taken pile also gives the caller the
       top card of its stack (nothing if its stack is empty).
    3. `slapjack`: one correct `slap` (a Jack on some pile) takes every pile showing a Jack. Two or
       more correct slaps in one tick: nobody wins, nothing moves.
    4. Wrong calls, in seat order: each costs the caller cards, always. Its pile, as it is then,
       goes to the centre; if its pile is empty, the top card of its stack goes to the centre
       instead, face up, as its pool or pot (`wrong_call_cost="pile_or_stack"` [default since
       `snap_v2`]; the card is seen by all as it goes). Only a seat with no card at all pays
       nothing. The call still ends the window. (`wrong_call_cost="pile"`, `snap_v1`'s rule: a
       wrong call from an empty pile moves nothing, so a seat that keeps its pile empty calls
       for free.)

Card order
    Taken cards go face down under the taker's stack: pools first (in the order they were made),
    then piles in ascending seat order, then `double`'s gift cards in ascending seat order. A
    packet turned face down keeps its cards together with its former bottom card nearest the top.
    Piles moved to the centre together are stacked in ascending seat order, the highest seat's
    pile on top. `classic` keeps one pool: a new set goes on top of it. `snap_pot` keeps several
    pots: a new set goes on top of the pot whose top card has the new set's top key, or else starts
    a new pot (so no two pots ever show the same key).

Going out and the end
    `classic`: a seat is out as soon as its stack and pile are both empty (checked when a window
    closes). `snap_pot`: a seat with no cards stays in the game until its next turn to flip,
    and may win cards back until then; if it still has nothing to flip then, it is out. (The text's
    "its waste pile, if any, becomes a snap pot" never applies: a seat with a pile can always flip,
    by turning the pile over.) The game ends when at most one seat is still in it; that seat wins,
    even holding no card. Pools are held by nobody. If the last seats go out together, or no seat
    still in the game holds a card, it is a draw shared by those seats. The next flipper is always
    the next seat clockwise after the last flipper: winning a snap does not give the turn.

Sessions
    `session` ["single"], "best_of_3", "best_of_5" or "first_to_3": one episode is a session of
    games. Everything is dealt anew between games; the winner of a game deals the next (so the
    seat to its left flips first), and after a game won by nobody (a draw, or truncated) the same
    dealer deals again. `best_of_N` ends once a seat has more than N/2 wins, `first_to_3` at a
    seat's third win; after N games (`first_to_3`: 2n + 1) a tie for the most wins goes to a
    sudden death that only the tied seats play, replayed while drawn or truncated, at most
    `max_sudden_deaths` [3] games in all, after which the tied seats share the session. A seat
    out of one game waits (its only action) until the next begins. Points carry over: a new deal
    changes no seat's points.

Shared results
    A session shared by two or more seats, a game drawn between two or more seats, or a limit
    reached with two or more seats holding the most cards is a draw for those seats: with
    `reward="winlose"` each of them gets 0 and every other seat −1 (since `snap_v2`; in
    `snap_v1` every sharer got +1, so two seats that never called both reached the highest
    return either could: every game truncated, the sudden deaths too, and the shared session
    paid +1 and +1).

Variants
    `speed` (2–3 players; every seat flips each round), `double`, `single_pile` (`classic` only:
    every seat flips onto one central pile; a match is its top card sharing the key of the card
    just below; the snap winner takes the central pile; with no pile of its own a seat is out when
    its stack is empty at the close of a window; a wrong call puts the top card of the caller's
    stack face up under the central pile, the "burn" of one-pile slapping games — under a
    single card it is the card just below, and may make a match; since `snap_v2`, and only with
    `wrong_call_cost="pile_or_stack"`: in `snap_v1` every wrong call here was free), `slapjack`
    (packs of ranks only), `match_key="picture"`. Silent Snap and Animal Snap
    change the call, not the rules: they are the `classic` presets `silent` and `animal` in
    `configs/snap/` and need no option.

Hidden information
    Every stack's order. Stack sizes, every pile top and size, every pool top and size are public.
    A card stays unknown until it is first turned face up; cards that come back into a stack face
    down (refreshes, captures) were all seen and can be tracked by a seat with perfect memory,
    except that a shuffled refresh hides the order of its cards. A stack card that a wrong call
    turns face up is public from then on. So `redraw_hidden` shuffles, in
    each group of interchangeable cards (the never-seen cards; the cards of one shuffled refresh
    not flipped since), the group's cards among the stack positions holding them, keeping every
    stack size and every tracked card in place. With `glimpse_error`, what each seat glimpsed is
    its own: the true key of the card just flipped (while glimpsed) and the other seats'
    glimpses are hidden from it. A seat with perfect memory therefore knows which keys the card
    just flipped may have (`recalled_keys`); `recall="perfect"` shows that in its observation
    (an observation option: the rules are unchanged), and `call_odds` adds what follows from it
    with the seat's glimpses: the chance each call would be right now (`call_odds`).

Limits
    `max_flips` [2000] stops an unfinished game before the next flip once that many cards were
    flipped; `max_ticks` [10000] after that many ticks (windows can follow each other without
    flips, e.g. after repeated ties, so only a tick limit bounds a game). In a session both count
    per game. What a limit does is `at_limit` ["truncate"]: the game is truncated, won by nobody;
    or "most_cards" (since `snap_v2`): the game ends there, won by the seat or seats in the game
    holding the most cards in stack and pile (pools count for nobody), following the rulebook's
    objective, to collect all the cards, so that stalling never pays a trailing seat.

Options (defaults in brackets)
    `num_players` [2]; `ruleset` ["classic"] or "snap_pot"; `decks` ["auto"], 1 or 2;
    `reaction_ticks` [3] 1–10; `reaction_delay` [None: 0 for every seat] one integer a seat;
    `flipper_may_call` [True]; `speed`, `double`, `single_pile`, `slapjack` [False];
    `match_key` ["rank"] or "picture"; `pictures`, `copies` [None: 13 and 4 for picture decks];
    `max_flips` [2000]; `max_ticks` [10000] (None for no limit); `at_limit` ["truncate"] or
    "most_cards"; `wrong_call_cost` ["pile_or_stack"] or "pile"; `same_tick` ["tie"] or
    "random"; `refresh` ["turn_over"] or "shuffle"; `glimpse_error` [()] (not with `speed`);
    `recall` ["none"] or "perfect" (with `glimpse_error` only); `call_odds` [False] (with
    `recall="perfect"` only);
    `session` ["single"], "best_of_3", "best_of_5" or "first_to_3"; `max_sudden_deaths` [3].
"""

from __future__ import annotations

import copy
import itertools
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from snail_envs.core.cards import deal_round_robin
from snail_envs.core.chance import Chance
from snail_envs.core.game import CallKey, GameInfo, Outcome, Termination
from snail_envs.core.options import check_bool, check_choice, check_int, check_optional_int

WAIT, SNAP, SNAP_POOL, SLAP = range(4)
NUM_ACTIONS = 4
CALLS = (SNAP, SNAP_POOL, SLAP)
RULESETS = ("classic", "snap_pot")
SAME_TICK = ("tie", "random")
SESSIONS = ("single", "best_of_3", "best_of_5", "first_to_3")
WINS_NEEDED = {"single": 1, "best_of_3": 2, "best_of_5": 3, "first_to_3": 3}
"""The wins that decide a session at once."""
REFRESH = ("turn_over", "shuffle")
WRONG_CALL_COSTS = ("pile_or_stack", "pile")
AT_LIMIT = ("truncate", "most_cards")
RECALL = ("none", "perfect")
MATCH_KEYS = ("rank", "picture")
DECKS = ("auto", 1, 2)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("♣", "♦", "♥", "♠")
JACK = RANKS.index("J")
PACK = len(RANKS) * len(SUITS)
MAX_PLAYERS = 12
MAX_PLAYERS_ONE_PACK = 6
MAX_REACTION_TICKS = 10
DEFAULT_MAX_TICKS = 10_000
NO_KEY = -1
SEEN, NEVER_SEEN = 0, 1
"""`Snap.hidden_group` of a card every seat can follow, and of a card never turned face up."""

FACTS = GameInfo(
    env_name="snap_v2",
    title="Snap",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    max_game_length=DEFAULT_MAX_TICKS * MAX_PLAYERS,
    points_range=(-1.0, 1.0),
    hidden_information=True,
    simultaneous=True,
    points_names=("cards",),
    engine="snail_envs.batched.snap:SnapBatch",
    heuristic="snail_envs.agents.heuristics.snap:SnapHeuristic",
    tree_options=("pictures", "copies", "reaction_ticks", "max_flips"),
    shared_win=0.0,
    idle_actions=(WAIT,),
    realtime=True,
    call_keys=(
        CallKey("Space", " ", SNAP),
        CallKey("P", "p", SNAP_POOL),
        CallKey("S", "s", SLAP, option="slapjack"),
    ),
)


@dataclass(frozen=True)
class SnapOptions:
    """The rule options of Snap (see the module docstring)."""

    num_players: int = 2
    ruleset: str = "classic"
    decks: int | str = "auto"
    reaction_ticks: int = 3
    reaction_delay: Sequence[int] | None = None
    flipper_may_call: bool = True
    speed: bool = False
    double: bool = False
    single_pile: bool = False
    slapjack: bool = False
    match_key: str = "rank"
    pictures: int | None = None
    copies: int | None = None
    max_flips: int | None = 2000
    max_ticks: int | None = DEFAULT_MAX_TICKS
    at_limit: str = "truncate"
    wrong_call_cost: str = "pile_or_stack"
    same_tick: str = "tie"
    refresh: str = "turn_over"
    glimpse_error: Sequence[float] = ()
    recall: str = "none"
    call_odds: bool = False
    session: str = "single"
    max_sudden_deaths: int = 3
    num_keys: int = field(init=False, repr=False, compare=False)
    """How many keys (ranks or pictures) the deck has."""
    copies_per_key: int = field(init=False, repr=False, compare=False)
    deck_size: int = field(init=False, repr=False, compare=False)
    card_keys: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The key of every card id."""
    delays: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """`reaction_delay` with one entry a seat."""

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, FACTS.min_players, FACTS.max_players)
        check_choice("ruleset", self.ruleset, RULESETS)
        check_choice("match_key", self.match_key, MATCH_KEYS)
        check_choice("decks", self.decks, DECKS)
        check_int("reaction_ticks", self.reaction_ticks, 1, MAX_REACTION_TICKS)
        for name in ("flipper_may_call", "speed", "double", "single_pile", "slapjack", "call_odds"):
            check_bool(name, getattr(self, name))
        check_optional_int("max_flips", self.max_flips, 1)
        check_optional_int("max_ticks", self.max_ticks, 1)
        check_choice("at_limit", self.at_limit, AT_LIMIT)
        check_choice("wrong_call_cost", self.wrong_call_cost, WRONG_CALL_COSTS)
        check_choice("same_tick", self.same_tick, SAME_TICK)
        check_choice("refresh", self.refresh, REFRESH)
        check_choice("recall", self.recall, RECALL)
        check_choice("session", self.session, SESSIONS)
        check_int("max_sudden_deaths", self.max_sudden_deaths, 0)
        self._check_deck()
        self._check_delays()
        self._check_glimpse_error()
        self._check_variants()

    def _check_deck(self) -> None:
        n = self.num_players
        if self.match_key == "rank":
            if self.pictures is not None or self.copies is not None:
                raise ValueError(
                    "pictures and copies apply to match_key='picture' only; "
                    f"got pictures={self.pictures!r}, copies={self.copies!r}"
                )
            auto_packs = 2 if n > MAX_PLAYERS_ONE_PACK else 1
            packs = self.decks if isinstance(self.decks, int) else auto_packs
            if packs == 1 and n > MAX_PLAYERS_ONE_PACK:
                raise ValueError(
                    f"num_players must be from {FACTS.min_players} to {MAX_PLAYERS_ONE_PACK} with "
                    f"one pack (decks=1), up to {FACTS.max_players} with two (decks=2 or 'auto'); "
                    f"got {n}"
                )
            keys, copies = len(RANKS), len(SUITS) * packs
            card_keys = tuple((card % PACK) // len(SUITS) for card in range(PACK * packs))
        else:
            if self.decks != "auto":
                raise ValueError(
                    f"decks applies to match_key='rank' only; got decks={self.decks!r}"
                )
            keys = 13 if self.pictures is None else self.pictures
            copies = 4 if self.copies is None else self.copies
            check_int("pictures", keys, 2, 52)
            check_int("copies", copies, 2, 8)
            if keys * copies < n:
                raise ValueError(
                    f"a picture deck needs at least one card a seat: pictures × copies = "
                    f"{keys * copies} < num_players = {n}"
                )
            card_keys = tuple(card // copies for card in range(keys * copies))
        object.__setattr__(self, "num_keys", keys)
        object.__setattr__(self, "copies_per_key", copies)
        object.__setattr__(self, "deck_size", len(card_keys))
        object.__setattr__(self, "card_keys", card_keys)

    def _check_delays(self) -> None:
        n, ticks = self.num_players, self.reaction_ticks
        delays = (0,) * n if self.reaction_delay is None else self.reaction_delay
        if isinstance(delays, (str, bytes)) or not isinstance(delays, Sequence):
            raise ValueError(
                f"reaction_delay must be None or one integer a seat ({n} integers); "
                f"got {self.reaction_delay!r}"
            )
        delays = tuple(delays)
        if len(delays) != n:
            raise ValueError(
                f"reaction_delay must hold one integer a seat ({n} integers); got {len(delays)}"
            )
        for seat, delay in enumerate(delays):
            check_int(f"reaction_delay[{seat}]", delay, 0, ticks - 1)
        if self.reaction_delay is not None:
            object.__setattr__(self, "reaction_delay", delays)
        object.__setattr__(self, "delays", delays)

    def _check_glimpse_error(self) -> None:
        errors = self.glimpse_error
        allowed = (
            f"a sequence of at most reaction_ticks = {self.reaction_ticks} error probabilities "
            "from 0 to 1, not increasing, e.g. (0.6, 0.3, 0.0); () for perfect sight"
        )
        if isinstance(errors, (str, bytes)) or not isinstance(errors, Sequence):
            raise ValueError(f"glimpse_error must be {allowed}; got {errors!r}")
        errors = tuple(errors)
        valid = len(errors) <= self.reaction_ticks and all(
            isinstance(error, (int, float)) and not isinstance(error, bool) and 0 <= error <= 1
            for error in errors
        )
        if not valid or any(later > earlier for earlier, later in itertools.pairwise(errors)):
            raise ValueError(f"glimpse_error must be {allowed}; got {self.glimpse_error!r}")
        object.__setattr__(self, "glimpse_error", tuple(float(error) for error in errors))

    @property
    def session_games(self) -> int:
        """The most games a session plays before a sudden death: N for `best_of_N`; for
        `first_to_3`, (3 − 1) · n + 1, when every seat could have two wins and one more game
        decides (draws and truncations aside, a session ends sooner)."""
        if self.session == "first_to_3":
            return 2 * self.num_players + 1
        return {"single": 1, "best_of_3": 3, "best_of_5": 5}[self.session]

    def error_at(self, tick: int) -> float:
        """The chance of a false glimpse at `tick` of a window (0 past `glimpse_error`'s end)."""
        errors = self.glimpse_error
        return errors[tick] if tick < len(errors) else 0.0

    def _check_variants(self) -> None:
        if self.speed:
            if self.num_players > 3:
                raise ValueError(f"speed is played by 2 or 3 players; got {self.num_players}")
            if not self.flipper_may_call:
                raise ValueError(
                    "speed needs flipper_may_call=True: every seat flips, so nobody could call"
                )
        if self.single_pile:
            if self.ruleset != "classic":
                raise ValueError("single_pile is played with ruleset='classic' only")
            if self.speed or self.double:
                raise ValueError(
                    "single_pile cannot be combined with speed or double (one central pile: "
                    "no simultaneous flips, no pile owners)"
                )
        if self.recall != "none" and not self.glimpse_error:
            raise ValueError(
                f"recall={self.recall!r} needs glimpse_error: with exact sight every card on the "
                "table is seen as it is, and a memory has nothing to add"
            )
        if self.call_odds and self.recall != "perfect":
            raise ValueError(
                "call_odds needs recall='perfect': the odds are those of a seat that remembers "
                f"every card it has seen; got recall={self.recall!r}"
            )
        if self.glimpse_error and self.speed:
            raise ValueError(
                "glimpse_error cannot be combined with speed (a glimpse is of the one card "
                "flipped last)"
            )
        if self.slapjack and self.match_key != "rank":
            raise ValueError("slapjack needs match_key='rank' (a picture deck has no Jacks)")


class Snap:
    """One game of Snap in progress.

    Piles are lists (top last); stacks are deques whose right end is the top, so that taken cards
    go under a stack with `extendleft`. With `single_pile`, `piles` has one more entry, the
    central pile, owned by nobody.
    """

    def __init__(self, options: SnapOptions, chance: Chance) -> None:
        self._set_up(options, chance)
        self._deal(tuple(range(options.num_players)), dealer=options.num_players - 1)

    def _deal(self, seats: tuple[int, ...], dealer: int) -> None:
        """Shuffle and deal the whole deck, one card at a time clockwise, to `seats` from the
        dealer's left; the seat left of the dealer flips first."""
        n = self.num_players
        deck = self.chance.arrange(range(self.options.deck_size))
        order = sorted(seats, key=lambda seat: (seat - dealer - 1) % n)
        hands, _ = deal_round_robin(deck, len(order))
        stacks: list[deque[int]] = [deque() for _ in range(n)]
        for seat, hand in zip(order, hands, strict=True):
            stacks[seat] = deque(reversed(hand))
        self._new_table(stacks)
        self.in_game = [seat in seats for seat in range(n)]
        self.dealer = dealer
        self.turn = dealer
        self._flip()

    @classmethod
    def at_table(
        cls,
        options: SnapOptions,
        stacks: Sequence[Sequence[int]],
        piles: Sequence[Sequence[int]],
        pools: Sequence[Sequence[int]] = (),
        flipped: Sequence[tuple[int, int]] = (),
        in_game: Sequence[bool] | None = None,
        reopened: bool = False,
        window_tick: int = 0,
    ) -> Snap:
        """A game at a given table instead of a fresh deal, in the window of the last flip.

        Stacks, piles (with `single_pile`, the central pile last) and pools are card ids, bottom
        card first; `flipped` holds (seat, card) for every card of the last flip (a card that no
        longer tops its pile was taken since). The window is open at `window_tick`, after a
        resolution if `reopened`. For agents that rebuild the public table from an observation
        (`snail_envs.snap.observer.public_table`) and for tests.
        """
        n = options.num_players
        if len(stacks) != n or len(piles) != n + options.single_pile:
            raise ValueError(
                f"a table of {n} seats has {n} stacks and {n + options.single_pile} piles; "
                f"got {len(stacks)} and {len(piles)}"
            )
        game = cls.__new__(cls)
        game._set_up(options, Chance())
        game._new_table([deque(stack) for stack in stacks])
        game.piles = [list(pile) for pile in piles]
        game.pools = [list(pool) for pool in pools]
        for cards in (*game.piles, *game.pools):
            for card in cards:
                game.hidden_group[card] = SEEN
        if in_game is not None:
            game.in_game = list(in_game)
        game.just_flipped = [
            (seat, n if options.single_pile else seat, card) for seat, card in flipped
        ]
        game.flippers = tuple(seat for seat, _ in flipped)
        if game.flippers:
            game.turn = game.flippers[-1]
        game._open_window(reopened, glimpse=False)
        game.window_tick = window_tick
        return game

    def _set_up(self, options: SnapOptions, chance: Chance) -> None:
        """What lasts the whole session: the rules, chance, the session's score."""
        self.options = options
        self.num_players = n = options.num_players
        self.key = options.card_keys
        self.classic = options.ruleset == "classic"
        self.chance = chance
        """The shuffle before every deal, and in play: `same_tick="random"` orders, shuffled
        refreshes, glimpses."""
        self.session_wins = [0] * n
        self.games_played = 0
        self.sudden_deaths = 0
        """Sudden-death games begun so far."""
        self.dealer = n - 1
        """Who dealt the game on the table (the seat to its left flipped first)."""
        self._tied = [False] * n
        """The seats tied for the most wins, who play the sudden deaths."""
        self._point_offsets = [0.0] * n
        """Added to every seat's points so that a new deal pays nothing."""
        self.outcome: Outcome | None = None
        self.version = 0
        """Counts the changes of the table (observers cache by it)."""

    def _new_table(self, stacks: list[deque[int]]) -> None:
        """The table of a new game before its first flip: these stacks, no piles, no pools."""
        options, n = self.options, self.num_players
        self.stacks: list[deque[int]] = stacks
        self.piles: list[list[int]] = [[] for _ in range(n + options.single_pile)]
        self.pools: list[list[int]] = []
        """`classic`: at most one pool; `snap_pot`: the pots, in the order they were made."""
        self.hidden_group = [NEVER_SEEN] * options.deck_size
        """Every card's place in what the seats know: `SEEN` for a card whose place every seat
        can follow (it was turned face up since its last shuffle), `NEVER_SEEN` for a card never
        turned face up, and a number from `NEVER_SEEN + 1` on for the cards of one shuffled
        refresh, not flipped since. Cards of one group are interchangeable to every seat."""
        self.groups = NEVER_SEEN
        """The highest group number given so far."""
        self.glimpses: list[list[int]] = [[] for _ in range(n)]
        """With `glimpse_error`: the key each seat saw the card flipped last show, at every
        tick so far of the first window after the flip (empty when sight is exact)."""
        self.glimpsed_group = SEEN
        """The group the glimpsed card belonged to before it was flipped."""
        self.in_game = [True] * n
        self.turn = n - 1
        """The last flipper (before the first flip: the seat before seat 0)."""
        self.flippers: tuple[int, ...] = ()
        self.just_flipped: list[tuple[int, int, int]] = []
        """(seat, pile, card) of every card of the last flip."""
        self.flips = 0
        self.ticks = 0
        self.window_tick = 0
        self.window_length = 1
        self.reopened = False
        self.last_calls = [WAIT] * n
        """Every seat's action in the last tick that had a call."""
        self.last_correct = [False] * n
        self.last_gain = [0] * n
        """The change in every seat's cards at the last resolution."""
        self.gone_out: list[int] = []
        """The seats that went out last, together."""
        self.game_outcome: Outcome | None = None
        """How the game now on the table ended (in a session, the session goes on)."""
        self._truncated = False
        self._acting: tuple[int, ...] = ()
        self._acts = [False] * n
        self._waits_only = [False] * n
        """The last flipper with `flipper_may_call=False`: it acts, but only waits."""
        self._calls: tuple[int, ...] = ()
        self._moved = False
        """Whether the resolution being applied has moved a card."""

    # ----------------------------------------------------------------- the Game protocol

    @property
    def truncated(self) -> bool:
        return self._truncated

    def acting_seats(self) -> tuple[int, ...]:
        return self._acting

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        if not self._acts[seat]:
            return ()
        if self._waits_only[seat] or self.window_tick < self.options.delays[seat]:
            return (WAIT,)
        return self._calls

    def apply(self, actions: Mapping[int, int]) -> None:
        self.ticks += 1
        self.version += 1
        calls = sorted((seat, action) for seat, action in actions.items() if action != WAIT)
        if calls:
            self._resolve(calls)
            self._close_window(resolved=True)
        else:
            self.window_tick += 1
            if self.window_tick >= self.window_length:
                self._close_window(resolved=False)
            elif self.glimpses[0]:
                self._glimpse()
        limit = self.options.max_ticks
        if self.game_outcome is None and limit is not None and self.ticks >= limit:
            self._at_limit(f"{limit} ticks were played (max_ticks)")
        if self.game_outcome is not None or self._truncated:
            self._end_of_game()

    def is_in_game(self, seat: int) -> bool:
        """In one game, until the seat goes out; in a session, until the session ends (a seat
        out of one game waits until the next begins)."""
        if self.options.session == "single":
            return self.in_game[seat]
        return self.outcome is None

    def may_call(self, seat: int) -> bool:
        """Whether `seat` acts in this tick and may call (its reaction delay has passed, and it
        is not the last flipper kept from calling)."""
        return (
            self._acts[seat]
            and not self._waits_only[seat]
            and self.window_tick >= self.options.delays[seat]
        )

    def points(self) -> list[float]:
        """Each seat's share of the deck in its stack and pile (the `reward="points"` signal).
        In a session a new deal pays nothing: the points carry over, changed only by play."""
        size = self.options.deck_size
        return [
            self.held(seat) / size + offset
            for seat, offset in zip(range(self.num_players), self._point_offsets, strict=True)
        ]

    def describe_action(self, seat: int, action: int) -> str:
        if action == SNAP_POOL:
            return "call snap pool" if self.classic else "call snap pot"
        return {WAIT: "wait", SNAP: "call snap", SLAP: "slap a Jack"}[action]

    def private_text(self, seat: int) -> str:
        return "your stack is face down: nobody, you included, knows its order"

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        """Redraw what `seat` cannot know: with `glimpse_error`, first the card flipped last by
        `seat`'s own glimpses of it, then the other seats' glimpses; then, in each group of
        interchangeable cards (never seen; one shuffled refresh), the order of its cards over
        the stack positions they hold. Apart from the glimpses, every seat knows the same."""
        if self.glimpses[seat]:
            self._redraw_glimpsed(seat, chance)
        for group in range(NEVER_SEEN, self.groups + 1):
            places = [
                (stack, index)
                for stack in self.stacks
                for index, card in enumerate(stack)
                if self.hidden_group[card] == group
            ]
            if len(places) < 2:
                continue
            redrawn = chance.arrange([stack[index] for stack, index in places])
            for (stack, index), card in zip(places, redrawn, strict=True):
                stack[index] = card
        self.version += 1

    def _redraw_glimpsed(self, seat: int, chance: Chance) -> None:
        """Draw the card flipped last from the cards it may be (itself and the stack cards of
        the group it came from), each weighted by the chance of `seat`'s glimpses were it that
        card; swap it into place; then draw the other seats' glimpses of it anew."""
        ((flipper, pile, flipped),) = self.just_flipped
        candidates: list[tuple[deque[int] | None, int]] = [(None, flipped)]
        if self.glimpsed_group != SEEN:
            candidates += [
                (stack, index)
                for stack in self.stacks
                for index, card in enumerate(stack)
                if self.hidden_group[card] == self.glimpsed_group
            ]
        cards = [stack[index] if stack is not None else flipped for stack, index in candidates]
        likelihood = self._glimpse_likelihood(self.glimpses[seat])
        weights = [likelihood[self.key[card]] for card in cards]
        stack, index = candidates[chance.pick_weighted(weights)]
        if stack is not None:
            card = stack[index]
            stack[index] = flipped
            self.hidden_group[flipped] = self.glimpsed_group
            self.hidden_group[card] = SEEN
            self.piles[pile][-1] = card
            self.just_flipped = [(flipper, pile, card)]
        true_key = self.key[self.piles[pile][-1]]
        for other in range(self.num_players):
            if other != seat:
                self.glimpses[other] = [
                    self._glimpse_of(true_key, tick, chance) for tick in range(self.window_tick + 1)
                ]

    def recalled_keys(self) -> list[int]:
        """What a seat that remembers every card it has seen knows of the card flipped last,
        before its glimpses: for every key, how many of the cards it may be have that key. They
        are itself and the stack cards of the group it came from (the never-seen cards, or one
        shuffled refresh); itself alone when its place was followed. Every seat knows the same."""
        ((_, _, flipped),) = self.just_flipped
        counts = [0] * self.options.num_keys
        counts[self.key[flipped]] += 1
        if self.glimpsed_group != SEEN:
            for card, group in enumerate(self.hidden_group):
                if group == self.glimpsed_group:
                    counts[self.key[card]] += 1
        return counts

    def known_wrong_by_memory(self, call: int) -> bool:
        """Whether a seat that remembers every card it has seen knows that `call` is wrong now,
        whatever its glimpses: a `snap` while the only match there could be is the card flipped
        last, and none of the cards it may be (`recalled_keys`) has a key showing on another
        pile; in `classic`, a `snap_pool` while none of them has the key of the pool's top card.
        False for every other call, under exact sight, with `single_pile`, and while no single
        flipped card tops its pile."""
        if (
            not self.options.glimpse_error
            or self.options.single_pile
            or len(self.just_flipped) != 1
            or len(self.flipped_showing()) != 1
        ):
            return False
        ((_, flipped_pile, _),) = self.just_flipped
        possible = self.recalled_keys()
        if call == SNAP:
            others = [
                self.top_key(p) for p, pile in enumerate(self.piles) if pile and p != flipped_pile
            ]
            return len(others) == len(set(others)) and not any(possible[k] for k in others)
        if call == SNAP_POOL and self.classic and self.pools:
            return not possible[self.key[self.pools[0][-1]]]
        return False

    def _glimpse_likelihood(self, glimpses: Sequence[int]) -> list[float]:
        """For every key, the chance of these glimpses (one a tick) of a card of that key."""
        k = self.options.num_keys
        likelihood = [1.0] * k
        for tick, seen in enumerate(glimpses):
            error = self.options.error_at(tick)
            for key in range(k):
                likelihood[key] *= 1 - error if key == seen else error / (k - 1)
        return likelihood

    # ----------------------------------------------------------------- the table

    def label(self, card: int) -> str:
        """A card as players name it: rank and suit ("7♥"), or picture ("P7")."""
        if self.options.match_key == "picture":
            return f"P{self.key[card] + 1}"
        return RANKS[self.key[card]] + SUITS[card % len(SUITS)]

    def key_label(self, key: int) -> str:
        """A key as players name it: a rank ("7") or a picture ("P7")."""
        return f"P{key + 1}" if self.options.match_key == "picture" else RANKS[key]

    def held(self, seat: int) -> int:
        """The cards a seat holds: its stack and its pile (pools are held by nobody)."""
        return len(self.stacks[seat]) + len(self.piles[seat])

    def top_key(self, pile: int) -> int:
        cards = self.piles[pile]
        return self.key[cards[-1]] if cards else NO_KEY

    def top_keys(self) -> list[int]:
        """The key on top of every pile (`NO_KEY` for an empty one)."""
        key = self.key
        return [key[pile[-1]] if pile else NO_KEY for pile in self.piles]

    def matched_keys(self, tops: Sequence[int] | None = None) -> int:
        """The keys showing on two or more piles (a bit set), or with `single_pile` the key of
        the central pile's top card when the card below shares it. `tops`: the piles' top keys
        to judge by (by default the true ones, `top_keys`)."""
        tops = self.top_keys() if tops is None else tops
        if self.options.single_pile:
            centre = self.piles[-1]
            if len(centre) >= 2 and tops[-1] == self.key[centre[-2]]:
                return 1 << tops[-1]
            return 0
        seen = matched = 0
        for top in tops:
            if top != NO_KEY:
                bit = 1 << top
                matched |= seen & bit
                seen |= bit
        return matched

    def flipped_showing(self, tops: Sequence[int] | None = None) -> list[int]:
        """The keys of the cards of the last flip that still top their piles (read from `tops`
        where given)."""
        return [
            self.key[card] if tops is None else tops[pile]
            for _, pile, card in self.just_flipped
            if self.piles[pile] and self.piles[pile][-1] == card
        ]

    def snap_key(self, matched: int) -> int:
        """A snap is for the key of the card just flipped if it still shows and is matched,
        otherwise for the lowest matched key."""
        flipped = [k for k in self.flipped_showing() if matched >> k & 1]
        if flipped:
            return min(flipped)
        return (matched & -matched).bit_length() - 1

    def claimable_pools(self, tops: Sequence[int] | None = None) -> list[int]:
        """The pools a correct `snap_pool` wins now (indices into `pools`), the piles' top keys
        read from `tops` where given."""
        if not self.pools:
            return []
        key = self.key
        if self.classic:
            pool_key = key[self.pools[0][-1]]
            return [0] if pool_key in self.flipped_showing(tops) else []
        showing = set(self.top_keys() if tops is None else tops)
        return [index for index, pot in enumerate(self.pools) if key[pot[-1]] in showing]

    def jack_showing(self, tops: Sequence[int] | None = None) -> bool:
        return self.options.slapjack and JACK in (self.top_keys() if tops is None else tops)

    def right_calls(self, tops: Sequence[int] | None = None) -> set[int]:
        """The calls that would be right in this tick: `snap` while a match shows, `snap_pool`
        while a pool is claimable, `slap` while a Jack shows (with `slapjack`); judged by the
        piles' top keys `tops` where given (by default the true ones)."""
        tops = self.top_keys() if tops is None else tops
        right = set()
        if self.matched_keys(tops):
            right.add(SNAP)
        if self.claimable_pools(tops):
            right.add(SNAP_POOL)
        if self.jack_showing(tops):
            right.add(SLAP)
        return right

    def call_odds(self, seat: int) -> list[float]:
        """The chance that each call (`CALLS`: `snap`, `snap_pool`, `slap`) would be right in
        this tick, by every card `seat` has seen and its own glimpses. While it glimpses the
        card flipped last, the card is one of the cards it may be (`recalled_keys`), each as
        likely as the seat's glimpses would be were it that card (the weights `redraw_hidden`
        draws it by); otherwise the seat sees the table as it is (`right_calls`: 1 or 0)."""
        if not self.glimpses[seat]:
            right = self.right_calls()
            return [float(call in right) for call in CALLS]
        ((_, pile, _),) = self.just_flipped
        likelihood = self._glimpse_likelihood(self.glimpses[seat])
        tops = self.top_keys()
        odds = [0.0] * len(CALLS)
        total = 0.0
        for key, count in enumerate(self.recalled_keys()):
            weight = count * likelihood[key]
            if weight > 0:
                tops[pile] = key
                right = self.right_calls(tops)
                for index, call in enumerate(CALLS):
                    if call in right:
                        odds[index] += weight
                total += weight
        return [odd / total for odd in odds]

    def claimable(self) -> bool:
        """Whether any call could be right now."""
        tops = self.top_keys()
        return bool(
            self.matched_keys(tops) or self.claimable_pools(tops) or self.jack_showing(tops)
        )

    def seen_top(self, seat: int, pile: int) -> int:
        """The key `seat` sees on top of `pile`: its latest glimpse for the card flipped last
        while glimpses last, the true key for every other card."""
        glimpses = self.glimpses[seat]
        if glimpses and pile == self.just_flipped[0][1]:
            return glimpses[-1]
        return self.top_key(pile)

    # ----------------------------------------------------------------- flips and windows

    def _flip(self) -> None:
        """The next flip (every seat's at once with `speed`), then its window."""
        limit = self.options.max_flips
        if limit is not None and self.flips >= limit:
            self._at_limit(f"{limit} flips were made (max_flips)")
            return
        if self.options.speed:
            if not self.classic:
                self._go_out([s for s in range(self.num_players) if self._out_at_turn(s)])
                if self.game_outcome is not None:
                    return
            flippers = tuple(s for s in range(self.num_players) if self.in_game[s])
        else:
            seat = self.next_flipper()
            while self._out_at_turn(seat):
                self._go_out([seat])
                if self.game_outcome is not None:
                    return
                seat = self.next_flipper(seat)
            flippers = (seat,)
            self.turn = seat
        self.just_flipped = []
        for seat in flippers:
            stack = self.stacks[seat]
            if not stack:
                self._refresh(seat)
            card = stack.pop()
            pile = -1 if self.options.single_pile else seat
            self.piles[pile].append(card)
            self.glimpsed_group = self.hidden_group[card]
            self.hidden_group[card] = SEEN
            self.just_flipped.append((seat, pile % len(self.piles), card))
        self.flippers = flippers
        self.flips += len(flippers)
        self._open_window(reopened=False)

    def next_flipper(self, after: int | None = None) -> int:
        """The next seat still in the game clockwise after `after` (default: the last flipper)."""
        seat = self.turn if after is None else after
        for _ in range(self.num_players):
            seat = (seat + 1) % self.num_players
            if self.in_game[seat]:
                return seat
        raise AssertionError("no seat is left in the game")

    def _out_at_turn(self, seat: int) -> bool:
        """`snap_pot`: a seat with nothing to flip at its turn is out."""
        return self.in_game[seat] and not self.classic and self.held(seat) == 0

    def _refresh(self, seat: int) -> None:
        """Turn the pile over to become the stack: as it is (`refresh="turn_over"`), or shuffled
        (`refresh="shuffle"`; its cards then form a new group of interchangeable cards)."""
        pile = self.piles[seat]
        if self.options.refresh == "shuffle" and len(pile) > 1:
            pile = self.chance.arrange(pile)
            self.groups += 1
            for card in pile:
                self.hidden_group[card] = self.groups
        self.stacks[seat].extendleft(pile)
        self.piles[seat] = []

    def _open_window(self, reopened: bool, glimpse: bool = True) -> None:
        """A window of `reaction_ticks` ticks when something is claimable, or always with
        `glimpse_error` (its length must not tell whether a glimpsed claim is real), else of
        one tick. After a flip with `glimpse_error`, every seat glimpses the flipped card."""
        options = self.options
        self.window_tick = 0
        self.reopened = reopened
        noisy = bool(options.glimpse_error)
        full = noisy or self.claimable()
        self.window_length = options.reaction_ticks if full else 1
        session = options.session != "single"
        self._acting = tuple(s for s in range(self.num_players) if session or self.in_game[s])
        self._acts = [s in self._acting for s in range(self.num_players)]
        kept = () if options.flipper_may_call else self.flippers
        self._waits_only = [s in kept or not self.in_game[s] for s in range(self.num_players)]
        self.glimpses = [[] for _ in range(self.num_players)]
        if noisy and glimpse and not reopened:
            self._glimpse()
        self._calls = (
            (WAIT, SNAP)
            + ((SNAP_POOL,) if self.pools else ())
            + ((SLAP,) if self.options.slapjack else ())
        )

    def _glimpse(self) -> None:
        """Every seat glimpses the card flipped last, at this tick of the window."""
        ((_, _, card),) = self.just_flipped
        true_key = self.key[card]
        for seat in range(self.num_players):
            self.glimpses[seat].append(self._glimpse_of(true_key, self.window_tick, self.chance))

    def _glimpse_of(self, true_key: int, tick: int, chance: Chance) -> int:
        """What one seat sees a card of `true_key` show at `tick`: the true key, or with the
        tick's error chance a key drawn uniformly from the others."""
        error = self.options.error_at(tick)
        if error and chance.occurs(error):
            return chance.pick([key for key in range(self.options.num_keys) if key != true_key])
        return true_key

    def _close_window(self, resolved: bool) -> None:
        """The window ends: seats with nothing left go out (`classic`), then a new window opens
        without a flip if the resolution moved cards and a pile-to-pile match still shows, or
        else the next flip follows. (A resolution that moved nothing leaves the table as it
        was: reopening would only replay the same window.)"""
        self.window_tick = 0
        self.glimpses = [[] for _ in range(self.num_players)]
        if self.classic:
            self._go_out(
                [s for s in range(self.num_players) if self.in_game[s] and not self.held(s)]
            )
        elif resolved:
            self._check_end()
        if self.game_outcome is not None:
            return
        if resolved and self._moved and self.matched_keys():
            self._open_window(reopened=True)
        else:
            self._flip()

    def _at_limit(self, reason: str) -> None:
        """A length limit is reached: the game is truncated (`at_limit="truncate"`), or it ends
        there (`"most_cards"`), won by the seat or seats in the game holding the most cards in
        stack and pile (pools count for nobody)."""
        if self.options.at_limit == "truncate":
            self._stop()
            return
        left = [seat for seat in range(self.num_players) if self.in_game[seat]]
        most = max(self.held(seat) for seat in left)
        self._finish(
            [seat for seat in left if self.held(seat) == most],
            f"{reason}: the most cards win",
            Termination.LIMIT,
        )

    def _stop(self) -> None:
        self._truncated = True
        self._acting = ()
        self._acts = [False] * self.num_players
        self.glimpses = [[] for _ in range(self.num_players)]

    # ----------------------------------------------------------------- resolution

    def after_calls(self, calls: Mapping[int, int]) -> Snap:
        """A copy of the table after `calls` (seat → action; every other seat waits) resolve as
        the calls of one tick. The effects apply but the window does not close: nobody goes out
        and nothing is flipped. The copy's `last_correct` and `last_gain` tell what each call did,
        its `matched_keys()` whether a new window would open. This game is left as it was."""
        twin = object.__new__(Snap)
        twin.__dict__.update(self.__dict__)
        twin.piles = [list(pile) for pile in self.piles]
        twin.stacks = [deque(stack) for stack in self.stacks]
        twin.pools = [list(pool) for pool in self.pools]
        twin.hidden_group = list(self.hidden_group)
        twin.chance = copy.deepcopy(self.chance)
        twin._resolve(sorted((seat, action) for seat, action in calls.items() if action != WAIT))
        return twin

    def _resolve(self, calls: list[tuple[int, int]]) -> None:
        """Judge every call against the table at the start of the tick, then apply the
        effects: a correct snap_pool, correct snaps, a correct slap, wrong calls. With
        `same_tick="random"`, of two or more correct calls of one kind the first in a random
        order is the one correct call, and the others lapse (neither right nor wrong)."""
        n = self.num_players
        before = [self.held(seat) for seat in range(n)]
        tops = self.top_keys()
        matched = self.matched_keys(tops)
        snap_key = self.snap_key(matched) if matched else NO_KEY
        pools = self.claimable_pools(tops)
        jack = self.jack_showing(tops)
        snaps, pool_calls, slaps, wrong = [], [], [], []
        self.last_calls = [WAIT] * n
        self.last_correct = [False] * n
        for seat, action in calls:
            self.last_calls[seat] = action
            if action == SNAP and matched:
                snaps.append(seat)
            elif action == SNAP_POOL and pools:
                pool_calls.append(seat)
            elif action == SLAP and jack:
                slaps.append(seat)
            else:
                wrong.append(seat)
                continue
            self.last_correct[seat] = True
        self._moved = False
        if self.options.same_tick == "random":
            pool_calls, snaps, slaps = (
                self._first_of(callers) for callers in (pool_calls, snaps, slaps)
            )
        if len(pool_calls) == 1:
            self._win_pools(pool_calls[0], pools)
        if len(snaps) == 1:
            self._win_snap(snaps[0], snap_key)
        elif snaps:
            self._tie(snaps, snap_key)
        if len(slaps) == 1:
            self._take(slaps[0], [], self._piles_showing(JACK))
        for seat in wrong:
            self._pay_for_wrong_call(seat)
        self.last_gain = [self.held(seat) - before[seat] for seat in range(n)]

    def _first_of(self, callers: list[int]) -> list[int]:
        """Of several callers of one kind, the first in a random order; the others lapse."""
        if len(callers) < 2:
            return callers
        first = self.chance.pick(callers)
        for seat in callers:
            if seat != first:
                self.last_correct[seat] = False
        return [first]

    def _piles_showing(self, key: int) -> list[int]:
        return [p for p, pile in enumerate(self.piles) if pile and self.key[pile[-1]] == key]

    def _take(self, seat: int, pools: list[int], piles: list[int]) -> None:
        """Put pools (in order), then piles (ascending seats) face down under `seat`'s stack."""
        stack = self.stacks[seat]
        if pools or any(self.piles[pile] for pile in piles):
            self._moved = True
        for index in pools:
            stack.extendleft(self.pools[index])
        for index in sorted(pools, reverse=True):
            del self.pools[index]
        for pile in piles:
            stack.extendleft(self.piles[pile])
            self.piles[pile] = []

    def _win_pools(self, seat: int, pools: list[int]) -> None:
        """`classic`: the caller takes the pool. `snap_pot`: every claimable pot, each with the
        piles matching its top."""
        if self.classic:
            self._take(seat, pools, [])
            return
        keys = {self.key[self.pools[index][-1]] for index in pools}
        piles = [p for p in range(len(self.piles)) if self.top_key(p) in keys]
        self._take(seat, pools, piles)

    def _win_snap(self, seat: int, key: int) -> None:
        piles = self._piles_showing(key)
        self._take(seat, [], piles)
        if self.options.double:
            for owner in piles:
                if owner != seat and self.stacks[owner]:
                    self.stacks[seat].appendleft(self.stacks[owner].pop())
                    self._moved = True

    def _tie(self, callers: list[int], key: int) -> None:
        """`classic`: the matched piles go to the pool; `snap_pot`: the callers' piles form a
        pot."""
        self._to_centre(self._piles_showing(key) if self.classic else callers)

    def _pay_for_wrong_call(self, seat: int) -> None:
        """A wrong call costs the caller cards: its pile goes to the centre; from an empty pile
        (`wrong_call_cost="pile_or_stack"`), the top card of its stack, face up, as its pool or
        pot. With `single_pile` the caller has no pile: the top card of its stack goes face up
        under the central pile. A seat with no card pays nothing. (`wrong_call_cost="pile"`,
        `snap_v1`'s rule: an empty pile pays nothing, nor does any wrong call in `single_pile`.)"""
        from_stack = self.options.wrong_call_cost == "pile_or_stack" and self.stacks[seat]
        if self.options.single_pile:
            if from_stack:
                self.piles[-1].insert(0, self._turn_up(seat))
                self._moved = True
        elif self.piles[seat] or not from_stack:
            self._to_centre([seat])
        else:
            self._set_to_centre([self._turn_up(seat)])

    def _turn_up(self, seat: int) -> int:
        """The top card of `seat`'s stack, taken off and turned face up: every seat follows it
        from now on."""
        card = self.stacks[seat].pop()
        self.hidden_group[card] = SEEN
        return card

    def _to_centre(self, piles: list[int]) -> None:
        """Move piles (ascending seats, the highest on top) to the centre as one set."""
        cards = [card for pile in piles for card in self.piles[pile]]
        for pile in piles:
            self.piles[pile] = []
        self._set_to_centre(cards)

    def _set_to_centre(self, cards: list[int]) -> None:
        """Lay a set of cards (bottom first) in the centre: on the pool (`classic`), or on the
        pot whose top shares the set's top key, else as a new pot (`snap_pot`)."""
        if not cards:
            return
        self._moved = True
        if self.classic:
            if self.pools:
                self.pools[0].extend(cards)
            else:
                self.pools.append(cards)
            return
        top = self.key[cards[-1]]
        for pot in self.pools:
            if self.key[pot[-1]] == top:
                pot.extend(cards)
                return
        self.pools.append(cards)

    # ----------------------------------------------------------------- the end

    def _go_out(self, seats: list[int]) -> None:
        if not seats:
            return
        for seat in seats:
            self.in_game[seat] = False
        self.gone_out = seats
        self._check_end()

    def _check_end(self) -> None:
        """At most one seat left: it wins. None left, or none left holds a card: a draw."""
        left = [seat for seat in range(self.num_players) if self.in_game[seat]]
        if len(left) == 1:
            self._finish(left, "one seat is left in the game", Termination.GOAL)
        elif not left:
            self._finish(
                self.gone_out, "the last seats went out together: a draw", Termination.DRAW
            )
        elif not any(self.held(seat) for seat in left):
            self._finish(left, "no seat in the game holds a card: a draw", Termination.DRAW)

    def _finish(self, winners: list[int], reason: str, termination: Termination) -> None:
        self.game_outcome = Outcome(frozenset(winners), reason, termination)
        self._acting = ()
        self._acts = [False] * self.num_players

    # ----------------------------------------------------------------- sessions

    def _end_of_game(self) -> None:
        """A game is over (won, drawn or truncated). One game is the whole episode with
        `session="single"`; in a session the game counts, and the session ends or the next game
        is dealt by the winner (after a game won by nobody, by the same dealer). A game is won
        when it ended with one winner: a draw is always shared by the seats that go out together
        or hold nothing, two or more, as is a tie for the most cards at a limit."""
        if self.options.session == "single":
            self.outcome = self.game_outcome
            return
        result = self.game_outcome
        winner = min(result.winners) if result is not None and not result.shared else None
        self.games_played += 1
        if winner is not None:
            self.session_wins[winner] += 1
        decided = self._session_decided(winner)
        if decided is not None:
            winners, reason = decided
            self.outcome = Outcome(frozenset(winners), reason, Termination.SESSION)
            self._truncated = False
            return
        points = self.points()
        playing = tuple(s for s in range(self.num_players) if self._plays_next(s))
        self._deal(playing, dealer=self.dealer if winner is None else winner)
        self._point_offsets = [
            before - held / self.options.deck_size
            for before, held in zip(points, map(self.held, range(self.num_players)), strict=True)
        ]

    def _session_decided(self, winner: int | None) -> tuple[list[int], str] | None:
        """The session's winners and why, once it is decided; None while it goes on (then
        `sudden_deaths` tells whether the next game is a sudden death among the tied seats)."""
        options = self.options
        wins = self.session_wins
        if self.sudden_deaths:
            if winner is not None:
                return [winner], f"player_{winner} won the sudden death"
            if self.sudden_deaths < options.max_sudden_deaths:
                self.sudden_deaths += 1
                return None
            tied = [s for s in range(self.num_players) if self._tied[s]]
            return tied, f"{self.sudden_deaths} sudden deaths won by nobody: a shared win"
        if max(wins) >= WINS_NEEDED[options.session]:
            best = wins.index(max(wins))
            return [best], f"player_{best} won {wins[best]} games of the {options.session} session"
        if self.games_played < options.session_games:
            return None
        tied = [s for s in range(self.num_players) if wins[s] == max(wins)]
        if len(tied) == 1:
            return tied, f"player_{tied[0]} won the most games of the session"
        if not options.max_sudden_deaths:
            return tied, "the session ended in a tie: a shared win"
        self._tied = [s in tied for s in range(self.num_players)]
        self.sudden_deaths = 1
        return None

    def _plays_next(self, seat: int) -> bool:
        """Every seat plays every game of a session but a sudden death, which only the seats
        tied for the most wins play."""
        return not self.sudden_deaths or self._tied[seat]
