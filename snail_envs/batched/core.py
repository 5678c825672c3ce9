"""What every batched engine shares: the batch API, seeding, rewards, random players, replays.

A batched engine holds N games of one game in a NumPy record array (one record a game: its table,
its generators, its chance recording) and steps them together with compiled kernels. The rules
engine of the game (`snail_envs.<game>.rules`) stays the single source of truth: the kernels
reproduce it move for move, and the differential tests replay the kernels' games through it.

Shapes, for N games of P seats, K acting slots, A actions and observations of D floats:

- `observations` float32 (N, K, D), `action_masks` int8 (N, K, A): what the seat in each acting
  slot sees and may do, exactly as the reference observer gives it for the same situation. With
  `compact_views=True` the views are kept compact, in the engine's `compact_dtype` (uint8, or
  int16 where an entry may be negative or above 255): each mark 0 or 1, each other entry the
  integer that its piece's description divides by a scale (a quarter or half of the bytes a step
  writes), and the masks packed, uint8 (N, K, ⌈A/8⌉), 8 actions a byte (action a is bit a % 8 of
  byte a // 8); `float_observations()` and `full_action_masks()` widen them to the float32 views
  and int8 masks, exactly.
- `seats` int8 (N, K): the seat acting in each slot, −1 for an empty slot. A turn-based game has
  K = 1 (one seat to play); a game with simultaneous windows has K = P, slot k for seat k.
- `rewards` float32 (N, P): every seat's reward for the transition just played, as the reference
  environments pay it (`snail_envs.core.host`): `reward="winlose"`, +1 to every winner and −1 to
  the others when a game ends, 0 otherwise; `"points"`, the change in the game's own points;
  `"margin"`, the change in each seat's points minus the mean change of the other seats that were
  in the game before the transition (`pay_margin`), so that every game's rewards sum to zero.
- `terminated`, `truncated` bool (N): the game in that slot ended in this step (won, or stopped
  by `max_turns`). It was replaced at once by a new game (auto-reset): the observations are
  already the new game's, and `final_observations` (P, D per game, when asked for) every seat's
  view of the finished table.

The arrays belong to the engine and are rewritten in place by every `reset` and `step`: copy what
you keep, and do not write into them (a step brings the acting views it wrote before up to date,
changing only what changed in the game). A game that would end before its first decision
(possible only with extreme options) is dealt again, so every game in a batch always has a seat to
act; when `MAX_DEALS` deals in a row end so, the kernels report `NO_DECISION` and the call raises
a `ValueError` naming the options.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, NamedTuple, cast

import numpy as np
from gymnasium import spaces
from llvmlite import ir
from numba.core import cgutils, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic, overload

from snail_envs.batched.chance import (
    TapeChance,
    agent_pick,
    agent_pick_among,
    seed_games,
)
from snail_envs.batched.compiling import (
    by_type,
    compiled,
    compiled_as,
    entry_point,
    inlined,
    jitable,
)
from snail_envs.batched.records import LINE, fields, interned, record_dtype
from snail_envs.core.game import GameSpec
from snail_envs.core.layout import Layout
from snail_envs.core.options import (
    MAX_DEALS,
    check_bool,
    check_choice,
    check_int,
    no_decision_error,
    parse_options,
)
from snail_envs.core.single_agent import FlatObservation

REWARD_MODES = ("winlose", "points", "margin")
WINLOSE, POINTS, MARGIN = range(len(REWARD_MODES))
"""The reward modes as the kernels read them (`rules.reward`: the index in `REWARD_MODES`)."""
OPPONENTS = ("random", "heuristic")
"""The in-kernel players, by the index the kernels know them by."""
RANDOM, HEURISTIC = range(len(OPPONENTS))
VIEW_TYPES = ("float32", "uint8", "int16")
"""The types of the views the kernels write: float32, and those of compact views
(`BatchedGame.compact_dtype`)."""
HORIZONS = ("round", "game")
"""How far `BatchedGame.rollout` plays on: to the end of the round in play (the game's
`round_of`: Snailed It!'s round, a Pędzące race, Snap's flip; in a game without rounds, its end),
or of the game."""
POLICY = len(OPPONENTS)
"""The kind of a seat played outside the kernels, by the learner's vector env's policy."""
NO_PIECE = -1
"""Where a piece starts in an observation that lacks it (`piece_starts`)."""
NO_DECISION = -2
"""What a kernel returns when a game of the batch met `MAX_DEALS` deals in a row that all ended
before the first decision they wait for (the learner's, in the learner kernels): the options
leave none. The kernel stops there, so the batch is left part-played: build one with other
options."""
PREFETCH_ABOVE = 8 << 20
"""The bytes of a batch's records, views and masks above which its steps ask ahead for the lines
of the views and masks they write (`Kernels.asks_ahead`): below, while the batch is in the
caches, the asking costs more than it saves (docs/speed.md)."""


class Kernels(NamedTuple):
    """The compiled loops of a game module, over all N games (`rules` is the array of one
    record that `compile_rules` builds; `learner_step` is for `BatchedVecEnv`), written once in
    `snail_envs.batched.drivers`."""

    step: Callable[..., int]
    """(games, rules, actions, observations, masks, seats, rewards, terminated, truncated,
    finals, start, ahead): play one action of every acting seat, deal again where a game ended;
    returns the first game whose action is illegal (nothing played then), `NO_DECISION`, or
    else −1. With `start`, deal every game and write the acting views, nothing played (the
    actions, rewards and episode ends left as they are); returns −1, or `NO_DECISION`. With
    `ahead` True (not None), in blocks of games, asking the cache ahead for the lines of the
    views and masks it writes (where `asks_ahead`; the same results)."""
    observe_slots: Callable[..., None]
    """(games, rules, seats, out): write the view of the seat in each acting slot, `seats[i, k]`,
    to `out[i, k]` (the empty slots' rows left as they are)."""
    state: Callable[..., None]
    """(games, rules, out): write each game's full state."""
    learner_step: Callable[..., int]
    """(games, rules, actions, asked_actions, resume, reset, fixed_seat, tickets, seating,
    *LEARNER_VIEWS): play the learner's `actions` (`resume=False`) or, in the paused games, the
    policy seats' `asked_actions` (`resume=True`), and play on to the learner's next decision or
    to a policy seat's; with `reset`, seat the players of every game, deal, and play on so.
    Returns the first game whose learner action is illegal (nothing played then),
    `NO_DECISION`, or else −1."""
    choose: Callable[..., None]
    """(games, rules, seats, kind, out): the action of in-kernel player `kind` (`OPPONENTS`)
    for every acting slot."""
    random: Callable[..., None]
    """(games, rules, seats, out): the random player's action for every acting slot (`choose`
    with `RANDOM`, the heuristic left uncompiled)."""
    acting: Callable[..., None]
    """(games, rules, observations, masks, seats): write every game's acting slots, as `start`
    does after its deal."""
    redraw: Callable[..., None]
    """(games, rules, seat): redraw everything hidden from `seat` in every game, from each
    game's own chance (for search; needs the game's `redraw_hidden`)."""
    search_play: Callable[..., None]
    """(games, rules, seat, actions, kinds, last_round, live, values, masks, views, played,
    walk): in every live game, `seat` plays `actions[i]` (−1: as its in-kernel player), then the
    game goes on, each other seat played by its in-kernel player `kinds[other]` (one kind per
    seat). With `walk`, `seat`'s forced moves are made for it, to `seat`'s next choice, whose
    legal actions go to `masks[i]` (its view to `views[i]`, unless `views` has no rows); without
    (a rollout), `seat` plays as in-kernel player `kinds[seat]`. Where the search stops first
    (the game ended or was stopped, the seat went out, or a round after `last_round` began)
    `live[i]` is cleared. `values[i]` gains `seat`'s rewards; `played[0]` counts the decisions
    played."""
    round_of: Callable[..., int]
    """(game record): the rounds the game has played (0 in a game of one round)."""
    asks_ahead: bool
    """Whether `step` can ask ahead for the lines of the views it writes (the game defines
    `prefetch_view`): `BatchedGame` asks, `ahead=True`, for a batch of more than
    `PREFETCH_ABOVE` bytes."""
    rollout: Callable[..., None]
    """(games, rules, seat, first_actions, whole_game, scratch, gained): the points each seat
    adds in a copy of each game after each of `seat`'s `first_actions`, every seat then playing
    as the heuristic to the round's end (or the game's); for games of points (`points`)."""


class BatchStep(NamedTuple):
    """The engine's arrays after `reset` or `step` (views, rewritten by the next call)."""

    observations: np.ndarray
    action_masks: np.ndarray
    seats: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


class BatchedGame:
    """N games of one game, held in arrays and stepped together (see the module docstring).

    A game module subclasses this with its record dtype and its kernels; everything else, the
    options, the arrays, seeding, errors and replays, is here.
    """

    spec: ClassVar[GameSpec]
    """The reference game's facts and options (from `snail_envs.<game>.env`)."""
    game_dtype: ClassVar[np.dtype]
    """The record of one game (`snail_envs.batched.chance.game_record`)."""
    kernels: ClassVar[Kernels]
    opponents: ClassVar[tuple[str, ...]] = OPPONENTS
    """The in-kernel players of the learner's vector env, by the index the kernels use."""
    seating_dtype: ClassVar[np.dtype]
    """How the learner's vector env seats one game (`seating_record`)."""
    search_horizon: ClassVar[str] = "game"
    """How far a search plays its worlds on by default: "game", or "round" (the game's
    `round_of`: Snailed It!'s round, Snap's flip with its windows), where the game's end is too
    far for the search's budget to see anything else."""
    lowest_wins: ClassVar[bool] = False
    """Whether the fewest points win (Snailed It!'s totals), as the game module's `LOWEST_WINS`."""
    horizons: ClassVar[tuple[str, ...]] = HORIZONS
    """How far `rollout` may play on."""
    search_depth: ClassVar[int] = 0
    """The most decisions a search walk takes in its tree by default (0: no limit; 1: a flat
    search, as measured strongest in Snail Sprint!, whose later choices hang on dice not yet
    rolled)."""
    unplayed_options: ClassVar[tuple[str, ...]] = ()
    """Rule options the compiled engine does not play: any value but the default is refused
    (the reference environment plays them)."""
    compact_dtype: ClassVar[np.dtype] = np.dtype(np.uint8)
    """The type of an entry of a compact view (`compact_views=True`): a mark, or the integer a
    float view divides by its scale, fits it under every option the engine accepts with
    compact views (`check_compact`)."""
    load_game: ClassVar[Callable[..., None] | None] = None
    """(games, index, game, seed): write a game of the reference engine in progress into record
    `index`, its generators seeded from `seed` (the game module's `load_game`, for search);
    None where the engine cannot load games."""

    def __init__(
        self,
        num_envs: int,
        *,
        reward: str = "winlose",
        final_observations: bool = False,
        compact_views: bool = False,
        **options: Any,
    ) -> None:
        """`num_envs` games, with the rule options of the reference environment.

        `final_observations=True` keeps every seat's view of each finished game.
        `compact_views=True` keeps the acting views (and the final ones) compact, a
        `compact_dtype` an entry: each mark as 0 or 1, each other entry as the integer its piece
        divides by its scale (the piece's description names both: "cards in the penalty pile /
        72" is the count of those cards), so that a step writes a quarter of the bytes (half, for
        int16); and the masks packed, 8 actions a byte. `float_observations()` and
        `full_action_masks()` give them as the default views and masks, exactly.
        """
        info = self.spec.info
        check_int("num_envs", num_envs, 1)
        check_choice("reward", reward, REWARD_MODES)
        check_bool("final_observations", final_observations)
        check_bool("compact_views", compact_views)
        for unsupported in ("illegal_action", "render_mode"):
            if unsupported in options:
                raise ValueError(
                    f"{info.env_name} (batched): {unsupported} is not an option of the batched "
                    "engine: an illegal action raises ValueError, and games are not rendered "
                    "(replay one through the reference environment to see it)"
                )
        rule_options = [f.name for f in dataclasses.fields(self.spec.options_class) if f.init]
        unknown = sorted(set(options) - set(rule_options))
        if unknown:
            raise ValueError(
                f"{info.env_name} (batched): unknown option {', '.join(map(repr, unknown))}; "
                f"allowed options: "
                f"{', '.join([*rule_options, 'reward', 'final_observations', 'compact_views'])}"
            )
        self.env_name = info.env_name
        self.options: Any = parse_options(self.spec.options_class, options, info.env_name)
        self._refuse_unplayed_options()
        if compact_views:
            self.check_compact()
        self.reward_mode = reward
        self.num_envs = int(num_envs)
        self.num_players: int = self.options.num_players
        self.num_actions = info.num_actions
        self.max_acting = self.num_players if info.simultaneous else 1
        """K: the acting slots of each game (slot k for seat k when the game has windows)."""
        observer = self.spec.new_observer(self.options)
        self.observation_layout: Layout = observer.observation_layout
        self.state_layout: Layout = observer.state_layout
        self.observation_space = FlatObservation.of(observer.observation_layout.box())
        self.action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        n, k, p = num_envs, self.max_acting, int(self.num_players)
        size = self.observation_layout.size
        self.games = np.zeros(n, self.game_dtype)
        self.views_dtype = self.compact_dtype if compact_views else np.dtype(np.float32)
        """The type of `observations` and `final_observations`: float32, or `compact_dtype`."""
        self.observations = np.zeros((n, k, size), self.views_dtype)
        mask_size = (self.num_actions + 7) // 8 if compact_views else self.num_actions
        self.action_masks = np.zeros((n, k, mask_size), np.uint8 if compact_views else np.int8)
        self.seats = np.full((n, k), -1, np.int8)
        self.rewards = np.zeros((n, p), np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.final_observations = np.zeros(
            (n if final_observations else 0, p, size), self.views_dtype
        )
        self.rules = self.compile_rules(self.options)
        self._started = False
        written = self.games.nbytes + self.observations.nbytes + self.action_masks.nbytes
        self._ahead = True if self.kernels.asks_ahead and written > PREFETCH_ABOVE else None
        """`Kernels.step`'s `ahead`."""

    def _refuse_unplayed_options(self) -> None:
        defaults = self.spec.options_class()
        for name in self.unplayed_options:
            value, default = getattr(self.options, name), getattr(defaults, name)
            if value != default:
                raise ValueError(
                    f"{self.env_name} (batched): the batched engine plays only {name}={default!r}, "
                    f"not {value!r}; play that variant in the reference environment"
                )

    def compile_rules(self, options: Any) -> np.ndarray:
        """The options as the kernels read them: a record (in an array of one). A game module
        adds this, its record dtype and its kernels; everything else is here."""
        raise NotImplementedError

    def rules_record(self, dtype: np.dtype, **fields: Any) -> np.ndarray:
        """A record of `dtype` (`rules_dtype`) for these options: the fields of every game set
        here, the game's own `fields` as given."""
        dtype = interned(dtype)
        return record(
            dtype,
            num_players=self.num_players,
            reward=REWARD_MODES.index(self.reward_mode),
            observation_size=self.observation_layout.size,
            observation=piece_starts(dtype["observation"], self.observation_layout),
            state=piece_starts(dtype["state"], self.state_layout),
            **fields,
        )

    def check_opponent(self, name: str) -> None:
        """Raise ValueError if the in-kernel player `name` cannot play these rule options."""

    def check_compact(self) -> None:
        """Raise ValueError if some entry of a view under these rule options may not fit a
        `compact_dtype` (a game module adds the bounds its options set: `check_compact_bound`)."""

    def check_compact_bound(self, name: str, largest: int) -> None:
        """Raise ValueError if `largest`, the largest integer that the option `name` lets a
        compact view hold, does not fit a `compact_dtype`."""
        high = int(np.iinfo(self.compact_dtype).max)
        if largest > high:
            raise ValueError(
                f"{self.env_name} (batched): compact views hold integers up to {high}, so "
                f"compact_views=True needs {name} of at most {high}; got {largest}"
            )

    # ----------------------------------------------------------------- the batch API

    def seed(self, seed: int | None = None) -> None:
        """Seed every slot's generators (`reset` does it, then deals). Game i's chance follows
        from `seed` and i alone, so the same seed gives the same games in any process and any
        batch size; None draws a seed from the operating system."""
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self.games[:] = 0
        seed_games(self.games, np.uint64(int(seed) % 2**64))

    def reset(self, seed: int | None = None) -> BatchStep:
        """A new game in every slot (see `seed`)."""
        self.seed(seed)
        unplayed = np.zeros((self.num_envs, self.max_acting), np.int64)
        status = self.kernels.step(
            self.games,
            self.rules,
            unplayed,
            *self.last(),
            self.final_observations,
            True,
            self._ahead,
        )
        if status == NO_DECISION:
            raise self._no_decision()
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self._started = True
        return self.last()

    def step(self, actions: Any) -> BatchStep:
        """Play one action of every acting seat: `actions` (N, K), or (N,) when K = 1. Entries of
        empty slots are ignored. Finished games are replaced by new ones at once."""
        if not self._started:
            raise RuntimeError(f"{self.env_name} (batched): call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got an array of {chosen.dtype}")
        if chosen.ndim == 1 and self.max_acting == 1:
            chosen = chosen[:, None]
        shape = (self.num_envs, self.max_acting)
        if chosen.shape != shape:
            raise ValueError(f"actions must have shape {shape}, got {chosen.shape}")
        illegal = self.kernels.step(
            self.games,
            self.rules,
            np.ascontiguousarray(chosen, dtype=np.int64),
            *self.last(),
            self.final_observations,
            False,
            self._ahead,
        )
        if illegal == NO_DECISION:
            raise self._no_decision()
        if illegal >= 0:
            self._raise_illegal(illegal, chosen[illegal])
        return self.last()

    def last(self) -> BatchStep:
        """The arrays of the last `reset` or `step`."""
        return BatchStep(
            self.observations,
            self.action_masks,
            self.seats,
            self.rewards,
            self.terminated,
            self.truncated,
        )

    def random_actions(self, where: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action for every acting slot (0 for empty slots), drawn
        from each game's agent generator (never from its chance). `where`: bool (N, K), only
        the acting slots marked (0 for the others, whose generators do not move)."""
        actions = np.zeros((self.num_envs, self.max_acting), np.int64)
        self.kernels.random(self.games, self.rules, self._slots(where), actions)
        return actions

    def heuristic_actions(self, where: np.ndarray | None = None) -> np.ndarray:
        """The game's heuristic player's choice for every acting slot (0 for empty slots):
        int64 (N, K). `where`: bool (N, K), only the acting slots marked (0 for the others)."""
        self.check_opponent("heuristic")
        out = np.zeros((self.num_envs, self.max_acting), np.int64)
        self.kernels.choose(self.games, self.rules, self._slots(where), HEURISTIC, out)
        return out

    def _slots(self, where: np.ndarray | None) -> np.ndarray:
        """The acting seats, those of slots not marked in `where` emptied."""
        if where is None:
            return self.seats
        shape = (self.num_envs, self.max_acting)
        if where.shape != shape or where.dtype != np.bool_:
            raise ValueError(f"where must be a bool array of shape {shape}; got {where.shape}")
        return np.where(where, self.seats, np.int8(-1)).astype(self.seats.dtype)

    def observe(self, seat: int | np.ndarray) -> np.ndarray:
        """Every game seen by `seat` (one integer seat for all games, or an integer array of one
        seat per game): float32 (N, D)."""
        given = np.asarray(seat)
        if given.dtype.kind not in "iu" or given.shape not in ((), (self.num_envs,)):
            raise ValueError(
                f"{self.env_name} (batched): seat must be an integer or an integer array of shape "
                f"({self.num_envs},); got {seat!r}"
            )
        seats = np.broadcast_to(given.astype(np.int64), (self.num_envs,))
        outside = np.flatnonzero((seats < 0) | (seats >= self.num_players))
        if outside.size:
            raise ValueError(
                f"{self.env_name} (batched): seats are 0 to {self.num_players - 1}; got "
                f"{seats[outside[0]]} in game{'s' if outside.size > 1 else ''} "
                f"{games_text(outside)}"
            )
        out = np.zeros((self.num_envs, 1, self.observation_layout.size), np.float32)
        slots = np.ascontiguousarray(seats.reshape(-1, 1), dtype=self.seats.dtype)
        self.kernels.observe_slots(self.games, self.rules, slots, out)
        return out[:, 0]

    def float_observations(self) -> np.ndarray:
        """The acting views as float32 (N, K, D), whatever `views_dtype` is: each acting slot's
        view written whole from its game (as `observe` writes it), zeros in the empty slots."""
        out = np.zeros((*self.seats.shape, self.observation_layout.size), np.float32)
        self.kernels.observe_slots(self.games, self.rules, self.seats, out)
        return out

    def full_action_masks(self) -> np.ndarray:
        """The acting slots' legal actions as int8 (N, K, A), whatever `views_dtype` is (compact
        views pack them, 8 actions a byte: `np.unpackbits(..., bitorder="little")`)."""
        if self.action_masks.dtype == np.int8:
            return self.action_masks
        bits = np.unpackbits(self.action_masks, axis=-1, count=self.num_actions, bitorder="little")
        return bits.view(np.int8)

    def observe_all(self) -> np.ndarray:
        """Every seat's view of every game: float32 (N, P, D)."""
        return np.stack([self.observe(seat) for seat in range(self.num_players)], axis=1)

    def state(self) -> np.ndarray:
        """Every game's full state, hidden information included (as the reference `state()`):
        float32 (N, S)."""
        out = np.zeros((self.num_envs, self.state_layout.size), np.float32)
        self.kernels.state(self.games, self.rules, out)
        return out

    def replay_chance(self, index: int) -> TapeChance:
        """The chance outcomes of the game now in slot `index`, for its reference engine.

        They are read as the kernel records them, so a reference game built now follows the
        kernel's game step by step, to its end (also once the slot has moved on to a new game).
        """
        games = self.games
        serial, start = int(games[index]["serial"]), int(games[index]["game_start"])
        tape = games["tape"][index]

        def window() -> tuple[int, int]:
            game = games[index]
            recorded = int(game["recorded"])
            if int(game["serial"]) == serial:
                end = recorded
            elif int(game["serial"]) == serial + 1:
                end = int(game["game_start"])
            else:
                raise ValueError(f"slot {index} has moved on by more than one game")
            return recorded - tape.shape[0], end

        return TapeChance(tape, start, window)

    # ----------------------------------------------------------------- search

    def load(self, index: int, game: Any, seed: int) -> None:
        """Put `game`, a reference engine's game in progress, in slot `index`: the slot's acting
        seats, observations and masks follow; its future chance comes from `seed`. Other slots
        are left as they are (in a batch never reset, they are dealt first, from `seed`)."""
        check_int("index", index, 0, self.num_envs - 1)
        load_game = self._game_loader()
        if not self._started:
            self.reset(seed)
        load_game(self.games, index, game, seed)
        self._write_acting(slice(index, index + 1))

    def rollout(self, seat: int, first_actions: list[int], horizon: str = "round") -> np.ndarray:
        """The points every seat adds to its total, in each game, after `seat` plays each of
        `first_actions` and then every seat plays as the heuristic until `horizon` ("round":
        the end of the round in play; "game": the game's end): int64 (N, actions, P). The games
        themselves are left as they are (see `Kernels.rollout`)."""
        check_choice("horizon", horizon, HORIZONS)
        gained = np.zeros((self.num_envs, len(first_actions), self.num_players), np.int64)
        self.kernels.rollout(
            self.games,
            self.rules,
            seat,
            np.asarray(first_actions, np.int64),
            horizon == "game",
            np.zeros(1, self.game_dtype),
            gained,
        )
        return gained

    def record_of(self, game: Any, seed: int) -> np.void:
        """`game`, a reference engine's game in progress, as a record of this engine (as `load`
        writes it into a slot), its future chance from `seed`; the batch is left as it is."""
        records = np.zeros(1, self.game_dtype)
        self._game_loader()(records, 0, game, seed)
        return records[0]

    def redraw(
        self, seat: int, seed: int, source: int | np.void | None = 0, views: bool = True
    ) -> None:
        """Worlds for a search by `seat`: every slot becomes a copy of game `source` (a slot's
        index, or a record of this engine's games such as `record_of` gives; None: each slot
        keeps its own game), with everything hidden from `seat` redrawn, each slot's draw and
        future chance from its own generators, seeded anew from `seed` and the slot's index.
        The redraw is consistent with what `seat` has seen: its view is unchanged. `views`: write
        every slot's acting views (a search that reads only its seat's masks may skip them)."""
        check_int("seat", seat, 0, self.num_players - 1)
        if isinstance(source, np.void):
            self.games[:] = source
            self._started = True
        elif not self._started:
            raise RuntimeError(f"{self.env_name} (batched): load or reset a game before redraw()")
        elif source is not None:
            check_int("source", source, 0, self.num_envs - 1)
            self.games[:] = self.games[source]
        seed_games(self.games, np.uint64(int(seed) % 2**64))
        self.kernels.redraw(self.games, self.rules, seat)
        if views:
            self._write_acting(slice(None))

    def load_worlds(self, records: np.ndarray, seed: int, views: bool = True) -> None:
        """Worlds drawn elsewhere (a belief's, `snail_envs.agents.beliefs`): slot i becomes a
        copy of `records[i]` (records of this engine's games, one a slot, such as `record_of`
        gives), nothing redrawn, each slot's future chance from its own generator, seeded anew
        from `seed` and the slot's index. `views` as in `redraw`."""
        if records.dtype != self.game_dtype or records.shape != (self.num_envs,):
            raise ValueError(
                f"{self.env_name} (batched): load_worlds takes {self.num_envs} records of this "
                f"engine's games; got {records.shape[0] if records.ndim else 0} of "
                f"{'its games' if records.dtype == self.game_dtype else 'another kind'}"
            )
        self.games[:] = records
        self._started = True
        seed_games(self.games, np.uint64(int(seed) % 2**64))
        if views:
            self._write_acting(slice(None))

    def _game_loader(self) -> Callable[..., None]:
        load_game = type(self).load_game
        if load_game is None:
            raise ValueError(f"{self.env_name} (batched): this engine cannot load games")
        return load_game

    def _write_acting(self, slots: slice) -> None:
        self.kernels.acting(
            self.games[slots],
            self.rules,
            self.observations[slots],
            self.action_masks[slots],
            self.seats[slots],
        )

    # ----------------------------------------------------------------- checks

    def _no_decision(self) -> ValueError:
        return no_decision_error(f"{self.env_name} (batched)", "a first decision", self.options)

    def _raise_illegal(self, index: int, actions: np.ndarray) -> None:
        masks = self.full_action_masks()[index]
        for slot, seat in enumerate(self.seats[index]):
            if seat < 0:
                continue
            action = int(actions[slot])
            legal = np.flatnonzero(masks[slot]).tolist()
            if action not in legal:
                raise ValueError(
                    f"{self.env_name} (batched): game {index}, player_{seat}: action {action} is "
                    f"illegal now; legal actions: {', '.join(map(str, legal))}"
                )
        raise AssertionError("the kernel reported an illegal action that is legal")


def games_text(games: np.ndarray, shown: int = 10) -> str:
    """Game indices in words: the first `shown` of them, and how many more."""
    text = ", ".join(map(str, games[:shown].tolist()))
    return f"{text} and {games.size - shown} more" if games.size > shown else text


class TurnBasedGame(BatchedGame):
    """A batch of a turn-based game: one acting slot, the seat to play, whose views are also
    given without the slot axis."""

    @property
    def seat(self) -> np.ndarray:
        """The seat to play in each game: int8 (N,)."""
        return self.seats[:, 0]

    @property
    def observation(self) -> np.ndarray:
        """The seat to play's observation in each game: float32 (N, D)."""
        return self.observations[:, 0]

    @property
    def action_mask(self) -> np.ndarray:
        """The seat to play's legal actions in each game: int8 (N, A) (packed with compact
        views: `full_action_masks`)."""
        return self.action_masks[:, 0]

    def heuristic_actions(self, where: np.ndarray | None = None) -> np.ndarray:
        """The game's heuristic player's choice for the seat to play in each game: int64 (N,).
        `where`: bool (N,) or (N, 1), only the games marked (0 for the others)."""
        slots = None if where is None else where.reshape(self.num_envs, 1)
        return super().heuristic_actions(slots)[:, 0]


@entry_point
def random_legal_actions(
    games: np.ndarray, masks: np.ndarray, seats: np.ndarray, out: np.ndarray
) -> None:
    """A uniformly random legal action for every acting slot, from the games' agent generators."""
    for i in range(games.shape[0]):
        for slot in range(seats.shape[1]):
            if seats[i, slot] >= 0:
                out[i, slot] = agent_pick_among(games[i], masks[i, slot])


@compiled
def copy_into(target: np.ndarray, source: np.ndarray) -> None:
    """Every entry of `source` into `target`'s first entries, one by one: numba's slice
    assignment from an array (`target[:n] = source`) compiles the text of its error for arrays
    of different shapes, about 2 CPU seconds of a cold start."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@jitable
def unsigned(index: Any) -> Any:
    """`index` as an unsigned integer, to index an array with: numba checks a signed index for a
    negative value to count from the end (three instructions at every store to a view), an
    unsigned one it takes as it is. Only for an index that is never negative: numba checks no
    bounds, so a negative one cast would reach far past the array."""
    return np.uint64(index)


@by_type
def fraction(out: np.ndarray, numerator: Any, denominator: Any) -> Any:
    """The entry `numerator / denominator` of the view `out`: that quotient where `out` is a
    float view, the numerator where it is a compact one (`compact_views`)."""


@overload(fraction)
def fraction_of(out: Any, numerator: Any, denominator: Any) -> Any:
    """`fraction` compiled for the type of `out`."""
    if isinstance(out.dtype, types.Float):

        def quotient(out: Any, numerator: Any, denominator: Any) -> Any:
            return numerator / denominator

        return quotient

    def integer(out: Any, numerator: Any, denominator: Any) -> Any:
        return numerator

    return integer


def quotients(denominator: int, largest: int) -> np.ndarray:
    """The quotients `k / denominator` for k from 0 to `largest`, as `fraction` computes them
    (float64), for `scaled` to read where a view's entry would divide by a constant."""
    return np.arange(largest + 1) / denominator


@by_type
def scaled(out: np.ndarray, numerator: Any, table: np.ndarray) -> Any:
    """`fraction` of `numerator` (0 ≤ `numerator` < `len(table)`) over the denominator of
    `table` (`quotients`): read from the table, without dividing, where `out` is a float view;
    the numerator where it is a compact one."""


@overload(scaled)
def scaled_of(out: Any, numerator: Any, table: Any) -> Any:
    """`scaled` compiled for the type of `out`."""
    if isinstance(out.dtype, types.Float):

        def quotient(out: Any, numerator: Any, table: Any) -> Any:
            return table[unsigned(numerator)]

        return quotient

    def integer(out: Any, numerator: Any, table: Any) -> Any:
        return numerator

    return integer


@by_type
def mark_action(mask: np.ndarray, action: int, legal: Any) -> None:
    """Mark `action` legal (`legal` 1 or True) or not in `mask`: its entry of an int8 mask, its
    bit of a packed one (uint8, `compact_views`: bit `action % 8` of byte `action // 8`)."""


@overload(mark_action)
def mark_action_of(mask: Any, action: Any, legal: Any) -> Any:
    """`mark_action` compiled for the type of `mask`."""
    if mask.dtype == types.uint8:

        def bit(mask: Any, action: Any, legal: Any) -> None:
            place = np.uint8(1) << np.uint8(action & 7)
            if legal:
                mask[unsigned(action >> 3)] |= place
            else:
                mask[unsigned(action >> 3)] &= ~place

        return bit

    def entry(mask: Any, action: Any, legal: Any) -> None:
        mask[unsigned(action)] = legal

    return entry


@by_type
def is_marked(mask: np.ndarray, action: int) -> bool:  # type: ignore[empty-body]
    """Whether `mask` (int8, or packed as `mark_action` packs it) marks `action` legal."""


@overload(is_marked)
def is_marked_of(mask: Any, action: Any) -> Any:
    """`is_marked` compiled for the type of `mask`."""
    if mask.dtype == types.uint8:

        def bit(mask: Any, action: Any) -> bool:
            return mask[unsigned(action >> 3)] >> (action & 7) & 1 == 1

        return bit

    def entry(mask: Any, action: Any) -> bool:
        return mask[unsigned(action)] != 0

    return entry


@jitable
def capped_fraction(out: np.ndarray, numerator: Any, denominator: Any) -> Any:
    """The entry `min(numerator / denominator, 1)` of the view `out`: `fraction` of the
    numerator capped at the denominator (the same float: both give 1.0 above it)."""
    return fraction(out, min(numerator, denominator), denominator)


lowest_bit = cast(Callable[[int], int], trailing_zeros)
"""The index of the lowest set bit of a nonzero integer (a numba intrinsic: compiled code only)."""


def count_bits_code(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """The code of `count_bits`: LLVM's `ctpop` (`popcnt` on x86)."""
    return builder.ctpop(args[0])


def count_bits_typing(typing_context: Any, value: Any) -> Any:
    """The typing of `count_bits`: an integer of the type of `value`."""
    if not isinstance(value, types.Integer):
        return None
    return value(value), count_bits_code


count_bits = cast(Callable[[int], int], intrinsic(count_bits_typing))
"""The number of set bits of an integer (a numba intrinsic: compiled code only)."""


@compiled
def agent_pick_bit(game, bits: int) -> int:
    """`agent_pick_among` the options whose bits are set in `bits` (option k: bit k): the index
    of a uniformly random set bit, from the game's agent generator; −1 if none is set."""
    chosen = agent_pick(game, count_bits(bits))
    for _ in range(chosen):
        bits &= bits - 1
    return lowest_bit(bits) if bits else -1


def prefetch_code(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """The code of `prefetch_to_write` and `prefetch_past`: `llvm.prefetch` for writing,
    kept in every level, of the byte `args[2]` (0 without it) past `array[index]`."""
    array_type = sig.args[0]
    view = context.make_array(array_type)(context, builder, args[0])
    address = cgutils.get_item_pointer(
        context, builder, array_type, view, [args[1]], wraparound=False
    )
    byte_pointer = ir.IntType(8).as_pointer()
    int32 = ir.IntType(32)
    prefetch = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]),
        "llvm.prefetch.p0",
    )
    line = builder.bitcast(address, byte_pointer)
    if len(args) == 3:
        line = builder.gep(line, [args[2]])
    for_writing, every_level, data = int32(1), int32(3), int32(1)
    builder.call(prefetch, [line, for_writing, every_level, data])
    return context.get_dummy_value()


def prefetch_typing(typing_context: Any, array: Any, index: Any) -> Any:
    """The typing of `prefetch_to_write`."""
    return types.void(array, index), prefetch_code


prefetch_to_write = cast(Callable[[np.ndarray, int], None], intrinsic(prefetch_typing))
"""`prefetch_to_write(array, index)`: ask the cache ahead for the line of `array[index]` (one
dimension), to be written soon (LLVM's `llvm.prefetch`, for writing, kept in every level:
`prefetchw` on x86). A hint: it never faults, and reads or writes nothing (a numba intrinsic:
compiled code only)."""


def prefetch_past_typing(typing_context: Any, array: Any, index: Any, offset: Any) -> Any:
    """The typing of `prefetch_past`."""
    return types.void(array, index, offset), prefetch_code


prefetch_past = cast(Callable[[np.ndarray, int, int], None], intrinsic(prefetch_past_typing))
"""`prefetch_past(array, index, offset)`: `prefetch_to_write` for the line of the byte `offset`
past `array[index]` (one dimension): a field of the record `records[index]`, a line of a view."""


@compiled
def prefetch_record(records: np.ndarray, index: int, offsets: tuple[int, ...]) -> None:
    """Ask ahead for the lines of `records[index]` at the byte `offsets` (`field_lines`)."""
    for offset in offsets:
        prefetch_past(records, index, offset)


@compiled
def next_seat(seat: int, num_players: int) -> int:
    """The seat after `seat`: `(seat + 1) % num_players`, without dividing."""
    following = np.int64(seat) + 1
    return 0 if following == num_players else following


@compiled
def seat_after(seat: int, places: int, num_players: int) -> int:
    """The seat `places` seats after `seat`, 0 ≤ `places` < `num_players`:
    `(seat + places) % num_players`, without dividing."""
    other = np.int64(seat) + places
    return other - num_players if other >= num_players else other


@compiled
def seats_after(seat: int, other: int, num_players: int) -> int:
    """How many seats after `seat` `other` sits: `(other - seat) % num_players`, without
    dividing."""
    gap = np.int64(other) - seat
    return gap + num_players if gap < 0 else gap


@compiled
def write_bits(out: np.ndarray, start: int, bits: int, width: int) -> None:
    """Bit b of `bits` (a card's snails, as bits) as 0 or 1 at `out[start + b]`, b < `width`."""
    for b in range(width):
        out[unsigned(start + b)] = bits >> b & 1


@compiled
def move_marks(
    out: np.ndarray, start: int, row: int, shown: np.ndarray, now: np.ndarray, none: int
) -> None:
    """Item k's mark in a view, one-hot in row k of `row` entries from `out[start]`: moved from
    where the view shows it (`shown[k]`) to where it is (`now[k]`), where the two differ, and
    `shown` brought up to date (`none`: no mark)."""
    for k in range(now.shape[0]):
        if shown[k] != now[k]:
            if shown[k] != none:
                out[unsigned(start + row * k + shown[k])] = 0
            if now[k] != none:
                out[unsigned(start + row * k + now[k])] = 1
            shown[k] = now[k]


@compiled
def prefetch_range(out: np.ndarray, start: int, stop: int) -> None:
    """Ask ahead for every line of `out[start:stop]` (`prefetch_to_write`), `LINE` bytes at a
    time past `out[start]`: a constant step (one of `LINE // out.itemsize` entries cost two
    divisions a call, the item size being read at run time: 5% of Snailed It!'s step)."""
    for offset in range(0, (stop - start) * out.itemsize, LINE):
        prefetch_past(out, start, offset)
    prefetch_to_write(out, stop - 1)


@compiled
def prefetch_moves(
    out: np.ndarray, start: int, row: int, shown: np.ndarray, now: np.ndarray, none: int
) -> None:
    """Ask ahead for the lines of the marks `move_marks` is about to move (`prefetch_to_write`)."""
    for k in range(now.shape[0]):
        if shown[k] != now[k]:
            if shown[k] != none:
                prefetch_to_write(out, start + row * k + shown[k])
            if now[k] != none:
                prefetch_to_write(out, start + row * k + now[k])


@compiled_as(*(f"void({dtype}[::1], int64, int64)" for dtype in VIEW_TYPES))
def clear(out: np.ndarray, start: int, size: int) -> None:
    """Zero `size` entries of the view `out` from `start` (one signature a type of view: compiled
    once, not again for each constant `size`). Entry by entry at unsigned indices: inlined where
    `size` is a constant, the loop becomes a few wide stores, where a slice's bounds fix left a
    call to `memset` of a length known only at run time."""
    for k in range(size):
        out[unsigned(start + k)] = 0


LEARNER_VIEWS = (
    "observations",
    "masks",
    "asked_observations",
    "asked_masks",
    "rewards",
    "terminated",
    "truncated",
    "finals",
)
"""The arrays of `BatchedVecEnv` that the learner kernels write, in the order they take them:
the learner's view and mask in each game (N, D) and (N, A); each policy seat's, where it is asked
to act (N, P, D) and (N, P, A); the learner's reward (added to), episode ends and last views."""


def seating_record(max_players: int) -> np.dtype:
    """How the learner's vector env seats one game:

    - `learner`: the learner's seat; `kinds[seat]`: the player of every other seat, an in-kernel
      player's index or `len(opponents)`, the policy kind: a seat played outside the kernels, by
      the vector env's policy;
    - `asks[seat]`: the policy seats whose actions the game waits for (those acting now);
    - `paused`: the game waits for them and the learner does not act now;
    - `fresh`: the episode has not yet come to the learner's first decision;
    - `began`: an episode began here since the vector env last cleared the flag;
    - `deals`: the deals in a row so far that have not come to the learner's first decision.

    (Flags are 0 or 1.)
    """
    return record_dtype(
        fields((), learner=np.int64),
        fields(max_players, kinds=np.int64, asks=np.uint8),
        fields((), paused=np.uint8, fresh=np.uint8, began=np.uint8, deals=np.int64),
    )


@compiled
def seat_players(g, rules, fixed_seat: int, tickets: np.ndarray, kinds: np.ndarray) -> int:
    """The learner's seat (`fixed_seat`, or drawn when −1) and each seat's opponent: kind k
    with probability `tickets[k]` / sum(tickets)."""
    seat = fixed_seat if fixed_seat >= 0 else agent_pick(g, rules.num_players)
    total = tickets.sum()
    for other in range(rules.num_players):
        ticket = agent_pick(g, total)
        kind = 0
        while ticket >= tickets[kind]:
            ticket -= tickets[kind]
            kind += 1
        kinds[other] = kind
    return seat


@compiled
def seat_episode(g, rules, s, fixed_seat: int, tickets: np.ndarray) -> bool:
    """A new episode in the seating record `s` of game `g` (before its deal): the learner's seat
    and every seat's player drawn (`seat_players`); the episode is fresh, and announced. False,
    and nothing drawn, when `MAX_DEALS` deals in a row have ended before the learner's first
    decision (the options leave it none)."""
    s.deals = s.deals + 1 if s.fresh else 1
    if s.deals > MAX_DEALS:
        return False
    s.learner = seat_players(g, rules, fixed_seat, tickets, s.kinds)
    s.fresh = 1
    s.began = 1
    return True


@compiled
def is_illegal(action: int, mask: np.ndarray, num_actions: int) -> bool:
    return action < 0 or action >= num_actions or not is_marked(mask, action)


@compiled
def pay_win_lose(
    points: np.ndarray, lowest_wins: bool, num_players: int, rewards: np.ndarray
) -> None:
    """+1 to every seat with the most points (the fewest, with `lowest_wins`; ties share the
    win), −1 to the others."""
    sign = -1 if lowest_wins else 1
    best = sign * points[0]
    for seat in range(1, num_players):
        best = max(best, sign * points[seat])
    for seat in range(num_players):
        rewards[seat] = 1.0 if sign * points[seat] == best else -1.0


@compiled
def pay_margin(changes: np.ndarray, paid: int, num_players: int, rewards: np.ndarray) -> None:
    """`reward="margin"`: to each seat paid (bit s of `paid` for seat s: the seats in the game
    before the transition), its change in points `changes[s]` minus the mean change of the other
    seats paid; 0 to the others, and to a seat paid alone. `changes` may be `rewards` itself
    (changes in whole points are exact in float32). The same float operations as the reference
    environments' `snail_envs.core.host.margin_rewards`: (m·change − total) / (m − 1) for m seats
    paid, the total summed in seat order, in float64."""
    total = 0.0
    count = 0
    for seat in range(num_players):
        if paid >> seat & 1:
            total += changes[seat]
            count += 1
    for seat in range(num_players):
        margin = 0.0
        if paid >> seat & 1 and count > 1:
            margin = (count * changes[seat] - total) / (count - 1)
        rewards[seat] = margin


@inlined
def every_seat(num_players: int) -> int:
    """`pay_margin`'s `paid` in a game whose seats never go out."""
    return (1 << num_players) - 1


@inlined
def pay_points(points, stock, lowest_wins: bool, over: bool, rules, rewards: np.ndarray) -> None:
    """The rewards of a transition in a game of points whose seats never go out, from each
    seat's points before it (`stock[0]`) to `points`: the change (`reward="points"`; with
    `lowest_wins`, the points avoided), that change less the others' mean (`"margin"`), or
    win/lose once the game is `over` (0 before)."""
    n = rules.num_players
    if rules.reward != WINLOSE:
        for seat in range(n):
            if lowest_wins:
                rewards[seat] = stock[0, seat] - points[seat]
            else:
                rewards[seat] = points[seat] - stock[0, seat]
        if rules.reward == MARGIN:
            pay_margin(rewards, every_seat(n), n, rewards)
    elif not over:
        for seat in range(n):
            rewards[seat] = 0
    else:
        pay_win_lose(points, lowest_wins, n, rewards)


def record(dtype: np.dtype, **values: Any) -> np.ndarray:
    """An array of one record of `dtype`, its fields set from `values`."""
    one = np.zeros(1, dtype)
    for name, value in values.items():
        one[name] = value
    return one


def pieces_dtype(names: Iterable[str]) -> np.dtype:
    """A record of the first index of each named piece of an observation."""
    return np.dtype([(name, np.int64) for name in names])


def observer_pieces(
    spec: GameSpec, first: str | None = None, optional: Iterable[str] = ()
) -> np.dtype:
    """A record of where each piece of the observation and of the state of `spec`'s game starts
    (`pieces_dtype`), named as its observer names them under the default options, then the
    `optional` pieces that other options add; `first` names their first pieces where their names
    differ (a seat's own card in an observation, every seat's cards in the state)."""
    observer = spec.new_observer(spec.options_class())
    layouts = (observer.observation_layout, observer.state_layout)
    names = dict.fromkeys([first] if first else [])
    for layout in layouts:
        names.update(dict.fromkeys(piece.name for piece in layout.pieces[1 if first else 0 :]))
    names.update(dict.fromkeys(optional))
    return pieces_dtype(names)


def piece_starts(pieces: np.dtype, layout: Layout) -> tuple[int, ...]:
    """Where each of `pieces` starts in `layout`, −1 for a piece it lacks; the first of `pieces`
    is the layout's first piece, under whichever name it has there."""
    names = {piece.name for piece in layout.pieces}
    first, *others = pieces.names or ()
    return (
        layout.offset(first if first in names else layout.pieces[0].name),
        *(layout.offset(name) if name in names else NO_PIECE for name in others),
    )


def rules_dtype(pieces: np.dtype, *groups: list[tuple]) -> np.dtype:
    """The rule options as a game's kernels read them: the number of seats, the game's own
    fields, group after group (`records.fields`), the reward (its index in `REWARD_MODES`), the
    observation's size, and where each of `pieces` starts in an observation and in the state
    (`BatchedGame.rules_record`)."""
    return record_dtype(
        fields((), num_players=np.int64),
        *groups,
        fields((), reward=np.int64, observation_size=np.int64, observation=pieces, state=pieces),
    )
