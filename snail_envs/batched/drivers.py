"""The loops every batched engine runs, written once and compiled for each game.

A game module (`snail_envs.batched.<game>`) holds its rules, its players and its observation
writers; the loops that play N games with them (`Kernels`) are the templates below, compiled for
each game by `compile_drivers`: every call to the game's hooks is a direct call, compiled into
the loop, as if the loop were written in the game's module. Numba caches the compiled loops
beside the game's module and compiles them again when that module changes (not when this one
does: after editing it, delete `snail_envs/batched/__pycache__`).

The hooks a game module defines (`g` one game's record, `rules` the record of the options):

| hook | what it does |
|---|---|
| `MAX_PLAYERS` | the most seats a game has |
| `start_game(g, rules)` | a new episode, dealt and played on to its first decision (or end) |
| `apply(g, rules, actions)` | play the acting seats' `actions[seat]`, on to the next decision |
| `is_over(g)`, `is_truncated(g, rules)` | the episode was won (ended), or stopped by a limit |
| `take_stock(g, rules, stock)` | note in `stock` (float64, 2 × `MAX_PLAYERS`) what `pay` needs |
| `pay(g, rules, stock, rewards)` | every seat's reward for what was played since `take_stock` |
| `random_action(g, rules, seat)` | the random player's action: a uniformly random legal one |
| `heuristic_choice(rules, observation, mask)` | the heuristic's choice on a seat's view and mask |
| `write_observation(g, rules, seat, out)` | what `seat` sees, written whole |
| `write_mask(g, rules, seat, mask)` | the legal actions of `seat` |
| `write_state(g, rules, out)` | the full state |
| `load_game(games, index, game, seed)` | (Python; search) a reference game into a record |
| `redraw_hidden(g, rules, seat)` | (search) redraw what is hidden from `seat`, by chance |

A game whose rewards come from each seat's points, its seats never going out, may define
`points(g)` (every seat's points; with `LOWEST_WINS = True` the fewest points win) in place of
`take_stock` and `pay` (`pay_points`); its kernels then roll a game out (`Kernels.rollout`).
`heuristic_choice` is a thin wrapper of the heuristic's strategy, compiled inline (numba's
`inline="always"`): an extra call there costs up to a tenth of the heuristic player's speed.

A game whose seats act together in ticks (one acting slot per seat, `SPEC.info.simultaneous`)
defines `is_acting(g, rules, seat)`; in a turn-based game the one acting slot is the seat
`g.turn`'s. A game may define `update_observation(g, rules, seat, out)`: bring `seat`'s view
last written in its acting slot `out` up to date, as `seat` sees the game now (by default it is
written whole). It may keep a note in the record of what that view shows, so as to rewrite only
what has changed since: the game then defines `forget_views(g)`, which drops the notes where the
acting views are no longer the ones it wrote (a new game, a game loaded or redrawn into the
record); `write_observation` leaves the notes alone (it writes views into other arrays too).
Where a new game dealt in a slot changes nothing its views show that the notes do not cover (a
board the same in every game), the game defines `views_outlast_games(rules)`, true then: a step
brings that slot's views up to date across the games, rather than writing them whole.
Such a game may also define `prefetch_view(g, rules, seat, out)`: ask the cache ahead for the
lines of `out` that `update_observation` is about to write, changing nothing
(`prefetch_to_write`), and names `STEP_READS`, the fields of its record that a step reads. A
game may name `RANDOM_READS`, the fields of its record that `random_action` reads (by default
`AGENT_STATE`): `Kernels.random` asks for their lines `RANDOM_AHEAD` games ahead. A game may
define `is_out(g, rules, seat)` (the seat has gone out of the game and acts no more: it ends the
learner's episode) and `pays_each_tick(rules)` (pay the learner tick by tick, not once a
decision); by default no seat goes out, and the learner is paid once a decision.

`Kernels.step` plays each game and writes its acting views and masks, game after game. Where
the game defines `prefetch_view` and the batch's records, views and masks are more than
`PREFETCH_ABOVE` bytes (past the caches nearest the core; `BatchedGame` decides, once), it goes
in blocks of `BLOCK` games (`step_in_blocks`): each game of a block asks for the lines of
`STEP_READS` of the game a block ahead, is played, and asks for the lines of its views and masks
that are about to be written; then the block's views and masks are written, so that the block's
misses wait together, not one after another. The choice is the type of the kernel's `ahead`
argument (None or not), so numba compiles one of the two loops for each: a batch that does not
ask ahead compiles only the first.

One learner seat per game (the protocol of `BatchedVecEnv`, whose arrays the learner kernels
write, `LEARNER_VIEWS`): each episode the learner's seat and every other seat's player are drawn
(`seat_episode`), and the game is dealt. Then the game is played on, tick by tick, while only
in-kernel players act; it stops when the learner acts (its view and mask are written, the game
goes on with its action), or when a seat played by the vector env's policy acts: that seat is
asked (its view and mask written, `asks[seat]` set), and the game is paused until the asked
actions come (`resume`). The seats that act in one tick choose without seeing each other's
choices. The learner is paid every seat's reward due to it since its previous action; its
episode ends with the game, when it is stopped, or when the learner's seat goes out: its last
view goes to `finals`, and the next episode begins at once. A game that ends before the learner's
first decision is dealt again (at most `MAX_DEALS` times in a row, then `NO_DECISION`).
"""

from __future__ import annotations

import inspect
from types import FunctionType, ModuleType
from typing import Any

import numpy as np

from snail_envs.batched.compiling import borrowed, compiled, entry_point, inlined, stack_zeros
from snail_envs.batched.core import (
    HEURISTIC,
    NO_DECISION,
    POLICY,
    Kernels,
    is_illegal,
    pay_points,
    prefetch_range,
    prefetch_record,
    seat_episode,
)
from snail_envs.batched.records import field_lines
from snail_envs.core.options import MAX_DEALS

NONE = -1
BLOCK = 16
"""Games a step plays before it writes their acting views, when it asks ahead (`step_in_blocks`)."""
RANDOM_AHEAD = 8
"""How many games ahead `Kernels.random` asks for the lines of the record it reads."""
AGENT_STATE = ("agent_state",)
"""The field of a record that every `random_action` reads (the agent generator's state): what
`Kernels.random` asks ahead for where a game names no `RANDOM_READS`."""
NO_ROUND_LIMIT = 2**62
"""A round no game reaches: a rollout with it plays the whole game."""
HOOKS = (
    "MAX_PLAYERS",
    "start_game",
    "apply",
    "is_over",
    "is_truncated",
    "write_observation",
    "write_mask",
    "write_state",
    "random_action",
    "heuristic_choice",
)
"""The hooks every game module defines (see the module docstring)."""

game = ModuleType("game")
"""The hooks of the game the templates below are compiled for: `compile_drivers` binds this name
to a module of that game's hooks; here, outside any game, it has none."""


# --------------------------------------------------------------------------- default hooks


@compiled
def never_out(g, rules, seat: int) -> bool:
    """A seat stays in the game to its end."""
    return False


@compiled
def pays_once_a_decision(rules) -> bool:
    """The learner is paid what is due to it once, when it is next to act."""
    return False


@compiled
def no_views_noted(g) -> None:
    """A game whose `update_observation` keeps no note of the views it wrote."""


@compiled
def views_end_with_game(rules) -> bool:
    """A new game in a slot writes its acting views whole."""
    return False


@compiled
def no_prefetch(g, rules, seat: int, out: np.ndarray) -> None:
    """`prefetch_view` of a game that does not ask ahead for its views' lines."""


def write_whole(g, rules, seat: int, out: np.ndarray) -> None:
    """`update_observation` of a game that keeps no note of its views: the view written whole."""
    game.write_observation(g, rules, seat, out)


@compiled
def seat_to_play_acts(g, rules, seat: int) -> bool:
    """In a turn-based game the seat to play acts, alone (asked only of a game going on)."""
    return seat == g.turn


def take_points(g, rules, stock: np.ndarray) -> None:
    """`take_stock` of a game of points: each seat's points."""
    points = game.points(g)
    for seat in range(rules.num_players):
        stock[0, seat] = points[seat]


def pay_changes(g, rules, stock: np.ndarray, rewards: np.ndarray) -> None:
    """`pay` of a game of points: the rewards of the change in points since `take_points`."""
    pay_points(game.points(g), stock, game.LOWEST_WINS, game.is_over(g), rules, rewards)


def heuristic_action(g, rules, seat: int) -> int:
    """The heuristic player's action: its strategy's choice on what `seat` sees and may do, as
    the heuristic agent chooses on the seat's observation and action mask."""
    observation = np.empty(rules.observation_size, np.float32)
    mask = np.empty(game.NUM_ACTIONS, np.int8)
    game.write_observation(g, rules, seat, observation)
    game.write_mask(g, rules, seat, mask)
    return game.heuristic_choice(rules, observation, mask)


def opponent_action(g, rules, seat: int, kind: int) -> int:
    """The heuristic player's action for `seat`, or the random player's."""
    if kind == HEURISTIC:
        return heuristic_action(g, rules, seat)
    return game.random_action(g, rules, seat)


# --------------------------------------------------------------------------- the acting views


def write_turn(g, rules, observations, masks, seats, new_views: bool) -> None:
    """A turn-based game's one acting slot: the seat to play, its view (brought up to date from
    the view last written in the slot, unless `new_views`: written whole) and its legal
    actions."""
    turn = np.int64(g.turn)  # one compiled version of the hooks, for seats of every integer type
    seats[0] = turn
    if new_views:
        game.forget_views(g)
    game.update_observation(g, rules, turn, observations[0])
    game.write_mask(g, rules, turn, masks[0])


def write_window(g, rules, observations, masks, seats, new_views: bool) -> None:
    """One slot per seat: every acting seat's view (brought up to date from the view last
    written in its slot, unless `new_views`: written whole) and legal actions in its slot; the
    other slots' seats are −1 and their masks all zero (zeroed when the slot stops acting; their
    views are left as they were)."""
    if new_views:
        game.forget_views(g)
    for seat in range(rules.num_players):
        if game.is_acting(g, rules, seat):
            game.update_observation(g, rules, seat, observations[seat])
            game.write_mask(g, rules, seat, masks[seat])
            seats[seat] = seat
        else:
            if new_views or seats[seat] != NONE:
                masks[seat].fill(0)
            seats[seat] = NONE


def prefetch_slot(g, rules, seat, view: np.ndarray, mask: np.ndarray, new_views: bool) -> None:
    """Ask ahead for the lines `write_acting` is about to write for `seat`: its mask, and its
    view (whole with `new_views`)."""
    prefetch_range(mask, 0, mask.shape[0])
    if new_views:
        prefetch_range(view, 0, view.shape[0])
    else:
        game.prefetch_view(g, rules, seat, view)


def prefetch_turn(g, rules, observations, masks, new_views: bool) -> None:
    """`write_turn`'s lines, asked for ahead."""
    prefetch_slot(g, rules, np.int64(g.turn), observations[0], masks[0], new_views)


def prefetch_window(g, rules, observations, masks, new_views: bool) -> None:
    """`write_window`'s lines, asked for ahead."""
    for seat in range(rules.num_players):
        if game.is_acting(g, rules, seat):
            prefetch_slot(g, rules, seat, observations[seat], masks[seat], new_views)


# --------------------------------------------------------------------------- batch kernels


def deal(g, rules) -> bool:
    """A new episode that has a decision (one over before its first decision is dealt again);
    False when `MAX_DEALS` deals in a row had none."""
    for _ in range(MAX_DEALS):
        game.start_game(g, rules)
        if not (game.is_over(g) or game.is_truncated(g, rules)):
            return True
    return False


def start_all(games, rules_array, observations, masks, seats) -> int:
    """Deal every game and write its acting views (`step_all` with `start`)."""
    rules = rules_array[0]
    for i in range(games.shape[0]):
        g = games[i]
        if not deal(g, rules):
            return NO_DECISION
        game.write_acting(g, rules, observations[i], masks[i], seats[i], True)
    return -1


def play_game(g, rules, i, actions, seats, rewards, terminated, truncated, stock, tick) -> bool:
    """Play game `i`'s acting slots' actions and pay every seat (`step_in_blocks`): whether the
    game ended (won or stopped). `step_all`'s own loop has this and `deal_again` written out:
    through the two functions it ran at 0.93–0.96× (Snail Sprint!, 1,024 games)."""
    for slot in range(seats.shape[1]):
        if seats[i, slot] != NONE:
            tick[seats[i, slot]] = actions[i, slot]
    game.take_stock(g, rules, stock)
    game.apply(g, rules, tick)
    game.pay(g, rules, stock, rewards[i])
    terminated[i] = game.is_over(g)
    truncated[i] = game.is_truncated(g, rules)
    return terminated[i] or truncated[i]


def deal_again(g, rules, i, finals) -> bool:
    """A game that ended: every seat's last view to `finals` (where asked), and a new episode
    dealt (`deal`)."""
    if finals.shape[0]:
        for seat in range(rules.num_players):
            game.write_observation(g, rules, seat, finals[i, seat])
    return deal(g, rules)


def step_in_blocks(
    games, rules, actions, observations, masks, seats, rewards, terminated, truncated, finals
) -> int:
    """`step_all` in blocks of `BLOCK` games, asking ahead for the lines it reads and writes:
    each game of a block asks for the record lines the game a block ahead will read
    (`STEP_READS`), is played, and asks for the lines of its views and masks that are about to be
    written (`prefetch_acting`); then the block's acting views and masks are written."""
    stock = stack_zeros((2, game.MAX_PLAYERS), np.float64)
    tick = stack_zeros(game.MAX_PLAYERS, np.int64)
    whole = stack_zeros(BLOCK, np.bool_)
    for first in range(0, games.shape[0], BLOCK):
        block = range(first, min(first + BLOCK, games.shape[0]))
        for i in block:
            if i + BLOCK < games.shape[0]:
                prefetch_record(games, i + BLOCK, game.STEP_LINES)
            g = games[i]
            ended = play_game(
                g, rules, i, actions, seats, rewards, terminated, truncated, stock, tick
            )
            if ended and not deal_again(g, rules, i, finals):
                return NO_DECISION
            whole[i - first] = ended and not game.views_outlast_games(rules)
            game.prefetch_acting(g, rules, observations[i], masks[i], whole[i - first])
        for i in block:
            new_views = whole[i - first]
            game.write_acting(games[i], rules, observations[i], masks[i], seats[i], new_views)
    return -1


def step_all(
    games,
    rules_array,
    actions,
    observations,
    masks,
    seats,
    rewards,
    terminated,
    truncated,
    finals,
    start,
    ahead,
) -> int:
    """Play every acting slot's action, pay every seat, deal again where a game ended, and write
    the acting views (`Kernels.step`); nothing is played when an action is illegal. With
    `start`, deal every game instead (`start_all`): one kernel deals and steps, so that the
    game's rules compile into one loop, not two. With `ahead` (not None), in blocks, asking
    ahead for the lines it writes (`step_in_blocks`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    actions = borrowed(actions)
    observations = borrowed(observations)
    masks = borrowed(masks)
    seats = borrowed(seats)
    rewards = borrowed(rewards)
    terminated = borrowed(terminated)
    truncated = borrowed(truncated)
    finals = borrowed(finals)
    if start:
        return start_all(games, rules_array, observations, masks, seats)
    rules = rules_array[0]
    for i in range(games.shape[0]):
        for slot in range(seats.shape[1]):
            if seats[i, slot] != NONE and is_illegal(
                actions[i, slot], masks[i, slot], game.NUM_ACTIONS
            ):
                return i
    if ahead is not None:  # decided by its type: each call's kernel has one of the two loops
        return step_in_blocks(
            games,
            rules,
            actions,
            observations,
            masks,
            seats,
            rewards,
            terminated,
            truncated,
            finals,
        )
    stock = stack_zeros((2, game.MAX_PLAYERS), np.float64)
    tick = stack_zeros(game.MAX_PLAYERS, np.int64)
    for i in range(games.shape[0]):  # `play_game` and `deal_again`, written out (their docstring)
        g = games[i]
        for slot in range(seats.shape[1]):
            if seats[i, slot] != NONE:
                tick[seats[i, slot]] = actions[i, slot]
        game.take_stock(g, rules, stock)
        game.apply(g, rules, tick)
        game.pay(g, rules, stock, rewards[i])
        terminated[i] = game.is_over(g)
        truncated[i] = game.is_truncated(g, rules)
        ended = terminated[i] or truncated[i]
        if ended:
            if finals.shape[0]:
                for seat in range(rules.num_players):
                    game.write_observation(g, rules, seat, finals[i, seat])
            if not deal(g, rules):
                return NO_DECISION
        new_views = ended and not game.views_outlast_games(rules)
        game.write_acting(g, rules, observations[i], masks[i], seats[i], new_views)
    return -1


def acting_all(games, rules_array, observations, masks, seats) -> None:
    """Every game's acting seats, with their views and masks (`Kernels.acting`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    observations = borrowed(observations)
    masks = borrowed(masks)
    seats = borrowed(seats)
    for i in range(games.shape[0]):
        game.write_acting(games[i], rules_array[0], observations[i], masks[i], seats[i], True)


def observe_slots_all(games, rules_array, seats, out) -> None:
    """The view of the seat in each acting slot of each game (`Kernels.observe_slots`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    seats = borrowed(seats)
    out = borrowed(out)
    for i in range(games.shape[0]):
        for slot in range(seats.shape[1]):
            if seats[i, slot] != NONE:
                game.write_observation(
                    games[i], rules_array[0], np.int64(seats[i, slot]), out[i, slot]
                )


def state_all(games, rules_array, out) -> None:
    """Every game's full state (`Kernels.state`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    out = borrowed(out)
    for i in range(games.shape[0]):
        game.write_state(games[i], rules_array[0], out[i])


def choose_all(games, rules_array, seats, kind, out) -> None:
    """In-kernel player `kind`'s action for every acting slot (`Kernels.choose`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    seats = borrowed(seats)
    out = borrowed(out)
    rules = rules_array[0]
    for i in range(games.shape[0]):
        for slot in range(seats.shape[1]):
            if seats[i, slot] != NONE:
                out[i, slot] = opponent_action(games[i], rules, np.int64(seats[i, slot]), kind)


def random_all(games, rules_array, seats, out) -> None:
    """The random player's action for every acting slot (`Kernels.random`): `choose_all` for
    it alone, without compiling the heuristic, asking `RANDOM_AHEAD` games ahead for the lines
    of the record that `random_action` reads (`RANDOM_READS`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    seats = borrowed(seats)
    out = borrowed(out)
    rules = rules_array[0]
    for i in range(games.shape[0]):
        if i + RANDOM_AHEAD < games.shape[0]:
            prefetch_record(games, i + RANDOM_AHEAD, game.RANDOM_LINES)
        for slot in range(seats.shape[1]):
            if seats[i, slot] != NONE:
                out[i, slot] = game.random_action(games[i], rules, np.int64(seats[i, slot]))


# --------------------------------------------------------------------------- one learner seat


def learner_done(g, rules, learner: int) -> bool:
    """The learner's episode is over: the game ended or was stopped, or its seat went out."""
    return game.is_over(g) or game.is_truncated(g, rules) or game.is_out(g, rules, learner)


def policy_acts(g, rules, s) -> bool:
    """Whether a seat played by the policy acts now."""
    for seat in range(rules.num_players):
        if s.kinds[seat] == POLICY and seat != s.learner and game.is_acting(g, rules, seat):
            return True
    return False


def play_tick(g, rules, s, action: int, asked_actions: np.ndarray, tick: np.ndarray) -> None:
    """Every acting seat chooses, none seeing the others' choices: the learner `action`, a
    policy seat its asked action, an in-kernel player from its own view; then the tick is
    played."""
    for seat in range(rules.num_players):
        if game.is_acting(g, rules, seat):
            if seat == s.learner:
                tick[seat] = action
            elif s.kinds[seat] == POLICY:
                tick[seat] = asked_actions[seat]
                s.asks[seat] = 0
            else:
                tick[seat] = opponent_action(g, rules, seat, s.kinds[seat])
    game.apply(g, rules, tick)


def ask_policy(g, rules, s, i, asked_observations, asked_masks) -> None:
    """Ask for the actions of the policy seats acting now, each seeing its own view."""
    for seat in range(rules.num_players):
        if s.kinds[seat] == POLICY and seat != s.learner and game.is_acting(g, rules, seat):
            s.asks[seat] = 1
            game.write_observation(g, rules, seat, asked_observations[i, seat])
            game.write_mask(g, rules, seat, asked_masks[i, seat])


def pay_learner(g, rules, s, stock, seat_rewards) -> float:
    """The learner's reward since `take_stock`, which is taken again."""
    game.pay(g, rules, stock, seat_rewards)
    game.take_stock(g, rules, stock)
    return seat_rewards[s.learner]


def begin_episode(g, rules, s, fixed_seat: int, tickets) -> bool:
    """Seat the players and deal; False when the options leave the learner no decision."""
    return seat_episode(g, rules, s, fixed_seat, tickets) and deal(g, rules)


def settle(g, rules, s, i, fixed_seat, tickets, stock, tick, seat_rewards, views) -> bool:
    """Ticks of in-kernel players until the learner acts, or a policy seat does (the game then
    waits for its action), paying the learner its rewards since `take_stock`. An episode that
    ends leaves the learner's last view in `finals`, and the next one begins; a game that ends
    before the learner's first decision is dealt again. False when the options leave the
    learner no decision (`begin_episode`)."""
    observations, masks, asked_observations, asked_masks, rewards, terminated, truncated, finals = (
        views
    )
    while True:
        while (
            not learner_done(g, rules, s.learner)
            and not game.is_acting(g, rules, s.learner)
            and not policy_acts(g, rules, s)
        ):
            if game.pays_each_tick(rules) and not s.fresh:
                rewards[i] += pay_learner(g, rules, s, stock, seat_rewards)
            play_tick(g, rules, s, NONE, tick, tick)  # only in-kernel players act
        if not s.fresh:
            rewards[i] += pay_learner(g, rules, s, stock, seat_rewards)
        if learner_done(g, rules, s.learner):
            if not s.fresh:
                terminated[i] = game.is_over(g) or game.is_out(g, rules, s.learner)
                truncated[i] = game.is_truncated(g, rules)
                game.write_observation(g, rules, s.learner, finals[i])
            if not begin_episode(g, rules, s, fixed_seat, tickets):
                return False
            game.take_stock(g, rules, stock)
            continue
        ask_policy(g, rules, s, i, asked_observations, asked_masks)
        s.paused = 0 if game.is_acting(g, rules, s.learner) else 1
        if not s.paused:
            s.fresh = 0
            game.write_observation(g, rules, s.learner, observations[i])
            game.write_mask(g, rules, s.learner, masks[i])
        return True


def learner_step(
    games,
    rules_array,
    actions,
    asked_actions,
    resume,
    reset,
    fixed_seat,
    tickets,
    seating,
    *views,
) -> int:
    """The learner of every game plays `actions[i]` (or, with `resume`, the policy seats of every
    paused game play their asked actions), with the other seats of the tick choosing without
    seeing it, and the game goes on (`settle`; `Kernels.learner_step`). With `reset`, a new
    episode begins in every game instead, played on to the learner's first decision or to a
    policy seat's: one kernel begins episodes and plays them, so that the game's rules compile
    into one loop, not two."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    actions = borrowed(actions)
    asked_actions = borrowed(asked_actions)
    tickets = borrowed(tickets)
    seating = borrowed(seating)
    views = borrowed(views)
    rules = rules_array[0]
    masks = views[1]
    if not (resume or reset):
        for i in range(games.shape[0]):
            if is_illegal(actions[i], masks[i], game.NUM_ACTIONS):
                return i
    seat_rewards = stack_zeros(game.MAX_PLAYERS, np.float32)
    stock = stack_zeros((2, game.MAX_PLAYERS), np.float64)
    tick = stack_zeros(game.MAX_PLAYERS, np.int64)
    for i in range(games.shape[0]):
        g, s = games[i], seating[i]
        if reset:
            if not begin_episode(g, rules, s, fixed_seat, tickets):
                return NO_DECISION
        elif (s.paused == 1) != resume:
            continue
        else:
            game.take_stock(g, rules, stock)
            play_tick(g, rules, s, actions[i], asked_actions[i], tick)
        if not settle(g, rules, s, i, fixed_seat, tickets, stock, tick, seat_rewards, views):
            return NO_DECISION
    return -1


# --------------------------------------------------------------------------- search


@entry_point
def no_rounds(g) -> int:
    """A game of one round."""
    return 0


def redraw_all(games, rules_array, seat) -> None:
    """Everything hidden from `seat` redrawn in every game, from each game's own chance
    (`Kernels.redraw`); the acting views shown before are of another game now."""
    for i in range(games.shape[0]):
        game.redraw_hidden(games[i], rules_array[0], seat)
        game.forget_views(games[i])


def search_over(g, rules, seat: int, last_round: int) -> bool:
    """The search of `seat` stops here: its game ended or was stopped, its seat went out, or the
    round after `last_round` began."""
    return learner_done(g, rules, seat) or game.round_of(g) > last_round


def search_tick(g, rules, seat, action, kinds, stock, tick, rewards, played) -> float:
    """One tick: `seat` plays `action` if it acts (NONE: it chooses as in-kernel player
    `kinds[seat]`), every other acting seat as in-kernel player `kinds[other]`; returns
    `seat`'s reward for the tick. `played[0]` counts the decisions."""
    game.take_stock(g, rules, stock)
    for other in range(rules.num_players):
        if game.is_acting(g, rules, other):
            played[0] += 1
            if other == seat and action != NONE:
                tick[other] = action
            else:
                tick[other] = opponent_action(g, rules, other, kinds[other])
    game.apply(g, rules, tick)
    game.pay(g, rules, stock, rewards)
    return rewards[seat]


@compiled
def only_action(mask: np.ndarray) -> int:
    """The one legal action of `mask`, or NONE when there are several."""
    action = NONE
    for candidate in range(mask.shape[0]):
        if mask[candidate]:
            if action != NONE:
                return NONE
            action = candidate
    return action


def search_play_all(
    games, rules_array, seat, actions, kinds, last_round, live, values, masks, views, played, walk
) -> None:
    """In every `live` game, `seat` plays `actions[i]` (NONE: as in-kernel player
    `kinds[seat]`) and the game goes on, every other seat played by its in-kernel player
    `kinds[other]`. With `walk`, `seat`'s forced moves (a single legal action) are made for it
    until it has a choice again: its legal actions are then in `masks[i]`, and its view in
    `views[i]` when `views` has a row a game. Without `walk` (a rollout), `seat` too plays as
    in-kernel player `kinds[seat]`. Where the search stops first (`search_over`), `live[i]` is
    cleared. `values[i]` gains `seat`'s rewards; `played[0]` counts the decisions
    (`Kernels.search_play`). Walks and rollouts are one kernel, so that a search compiles the
    game's rules and players into one loop, not two."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    actions = borrowed(actions)
    kinds = borrowed(kinds)
    live = borrowed(live)
    values = borrowed(values)
    masks = borrowed(masks)
    views = borrowed(views)
    played = borrowed(played)
    rules = rules_array[0]
    stock = stack_zeros((2, game.MAX_PLAYERS), np.float64)
    tick = stack_zeros(game.MAX_PLAYERS, np.int64)
    rewards = stack_zeros(game.MAX_PLAYERS, np.float32)
    for i in range(games.shape[0]):
        if not live[i]:
            continue
        g = games[i]
        action = actions[i]
        while True:
            values[i] += search_tick(g, rules, seat, action, kinds, stock, tick, rewards, played)
            if search_over(g, rules, seat, last_round):
                live[i] = 0
                break
            action = NONE
            if walk and game.is_acting(g, rules, seat):
                game.write_mask(g, rules, seat, masks[i])
                action = only_action(masks[i])
                if action == NONE:
                    if views.shape[0]:
                        game.write_observation(g, rules, seat, views[i])
                    break


def rollout_all(games, rules_array, seat, first_actions, whole_game, scratch, gained) -> None:
    """`gained[i, a, s]`: the points seat s adds (`points`) when a copy of game i is played on
    after `seat`'s `first_actions[a]`, every seat playing as the heuristic (`seat` after its
    first action; another seat acting in the same tick as the heuristic), until the round being
    played ends (with `whole_game`, the game), or the game is stopped. Every action's copy
    starts from the same record, generators included, so all of game i's actions meet the same
    chance events as far as their plays keep them alike (common random numbers). `scratch`
    holds one record (`Kernels.rollout`)."""
    games = borrowed(games)
    rules_array = borrowed(rules_array)
    first_actions = borrowed(first_actions)
    scratch = borrowed(scratch)
    gained = borrowed(gained)
    rules = rules_array[0]
    tick = stack_zeros(game.MAX_PLAYERS, np.int64)
    for i in range(games.shape[0]):
        before = game.points(games[i])
        for a in range(first_actions.shape[0]):
            scratch[0] = games[i]
            g = scratch[0]
            last_round = NO_ROUND_LIMIT if whole_game else game.round_of(g)
            action = first_actions[a]
            while True:
                for other in range(rules.num_players):
                    if game.is_acting(g, rules, other):
                        tick[other] = heuristic_action(g, rules, other)
                if action != NONE:
                    tick[seat] = action
                    action = NONE
                game.apply(g, rules, tick)
                if search_over(g, rules, seat, last_round):
                    break
            after = game.points(g)
            for other in range(rules.num_players):
                gained[i, a, other] = after[other] - before[other]


# --------------------------------------------------------------------------- compiling


INLINED = (
    start_all,
    begin_episode,
    learner_done,
    heuristic_action,
    opponent_action,
    deal,
    write_whole,
    take_points,
    pay_changes,
    write_turn,
    write_window,
    play_game,
    deal_again,
    step_in_blocks,
    prefetch_slot,
    prefetch_turn,
    prefetch_window,
    policy_acts,
    play_tick,
    ask_policy,
    pay_learner,
    settle,
    search_over,
    search_tick,
)
"""The templates compiled into their callers (numba's `inline="always"`): every template but
the kernels. Those of the step loops' every game and every step would cost more as calls than
their work; the others' own code is a few calls (`deal`, the in-kernel players), and compiled on
their own they would optimise and emit everything they call once more at a cold start
(`compiling.inlined`)."""
KERNEL_TEMPLATES = (
    step_all,
    observe_slots_all,
    state_all,
    learner_step,
    choose_all,
    random_all,
    acting_all,
    redraw_all,
    search_play_all,
    rollout_all,
)
"""The templates that are the loops of `Kernels`, each its field without `_all`: `step_all` is
`Kernels.step`, `learner_step` is `Kernels.learner_step`."""
TEMPLATES = (*KERNEL_TEMPLATES, *INLINED)


STAND_INS = {
    "take_stock": ("take_points", ("points",)),
    "pay": ("pay_changes", ("points",)),
    "is_out": ("never_out", ()),
    "pays_each_tick": ("pays_once_a_decision", ()),
    "round_of": ("no_rounds", ()),
    "forget_views": ("no_views_noted", ()),
    "views_outlast_games": ("views_end_with_game", ()),
    "update_observation": ("write_whole", ()),
    "prefetch_view": ("no_prefetch", ()),
}
"""What stands in for each hook a game module may leave out, and the hooks it needs then."""


def compile_drivers(module: ModuleType) -> Kernels:
    """The kernels of the game module `module` (see the module docstring): the templates,
    compiled with `game` bound to its hooks. Each compiled template is filed under the game's
    module, so that numba caches it beside that module; like every function here, it compiles
    again when any source file of the package changes (`compiling.stamped_with_package`)."""
    hooks: Any = ModuleType(f"{module.__name__}:hooks")
    namespace = {**globals(), "game": hooks}
    for template in TEMPLATES:
        code = template.__code__.replace(co_filename=inspect.getfile(module))
        function = FunctionType(code, namespace, template.__name__, template.__defaults__)
        compile_as = entry_point if template in KERNEL_TEMPLATES else inlined
        namespace[template.__name__] = compile_as(function)
    turn_based = not module.SPEC.info.simultaneous
    needed = [*HOOKS] if turn_based else [*HOOKS, "is_acting"]
    for hook, (stand_in, needs) in STAND_INS.items():
        if hasattr(module, hook):
            needed.append(hook)
        else:
            setattr(hooks, hook, namespace[stand_in])
            needed.extend(needs)
    if hasattr(module, "prefetch_view"):
        needed.append("STEP_READS")
    missing = [name for name in needed if not hasattr(module, name)]
    if missing:
        raise AttributeError(f"{module.__name__} lacks the hooks {', '.join(missing)}")
    for name in needed:
        setattr(hooks, name, getattr(module, name))
    if hasattr(module, "redraw_hidden"):
        hooks.redraw_hidden = module.redraw_hidden
    hooks.LOWEST_WINS = getattr(module, "LOWEST_WINS", False)
    hooks.RANDOM_LINES = field_lines(module.GAME, getattr(module, "RANDOM_READS", AGENT_STATE))
    # a game without `prefetch_view` never steps in blocks: its `STEP_LINES` are only typed
    hooks.STEP_LINES = field_lines(module.GAME, getattr(module, "STEP_READS", AGENT_STATE))
    hooks.NUM_ACTIONS = module.SPEC.info.num_actions
    if turn_based:
        hooks.is_acting = seat_to_play_acts
    hooks.write_acting = namespace["write_turn" if turn_based else "write_window"]
    hooks.prefetch_acting = namespace["prefetch_turn" if turn_based else "prefetch_window"]

    return Kernels(
        **{
            template.__name__.removesuffix("_all"): namespace[template.__name__]
            for template in KERNEL_TEMPLATES
        },
        round_of=hooks.round_of,
        asks_ahead=hasattr(module, "prefetch_view"),
    )
