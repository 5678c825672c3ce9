"""Both engines at once: every tick a Snap scenario plays on the reference rules is played on
the compiled twin (`snail_envs.batched.snap`) too, from the same table, and the two must agree.

Before each tick the reference game is loaded into a one-game batch (`SnapBatch.load`), and a
copy of it, the follower, draws the chance outcomes the kernel records (`replay_chance`). After
the tick the batch and the follower must agree on everything: the seats that act, their masks
and views, the full state, every stack, pile and pool card by card, every card's group, and at an
end the rewards and every seat's final view. The scenario's own game goes on with its scripted
chance; where a tick draws no chance, the follower is that game.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import snail_envs.batched
from snail_envs.batched.snap import PILES, POOLS, STACKS
from snail_envs.core.options import rule_keywords
from snail_envs.snap.rules import Snap, SnapOptions
from tests.batched.differential import Reference, check_ending, check_turn
from tests.names import SNAP as SNAP_ENV

Apply = Callable[[Snap, Mapping[int, int]], None]


def packet(record: Any, index: int) -> list[int]:
    """The cards of a packet of a batched record, in its chain's order."""
    cards, card = [], int(record["first"][index])
    for _ in range(int(record["size"][index])):
        cards.append(card)
        card = int(record["next"][card])
    return cards


def twin_table(record: Any, game: Snap) -> dict[str, Any]:
    """The table of a batched record in the reference's terms (stacks top card last)."""
    n = game.num_players
    return {
        "stacks": [packet(record, STACKS + seat)[::-1] for seat in range(n)],
        "piles": [packet(record, PILES + pile) for pile in range(len(game.piles))],
        "pools": [packet(record, POOLS + pool) for pool in range(int(record["num_pools"]))],
        "hidden_group": record["hidden_group"][: game.options.deck_size].tolist(),
        "in_game": [bool(seated) for seated in record["in_game"][:n]],
        "flips": int(record["flips"]),
        "ticks": int(record["ticks"]),
        "session_wins": record["session_wins"][:n].tolist(),
    }


def reference_table(game: Snap) -> dict[str, Any]:
    return {
        "stacks": [list(stack) for stack in game.stacks],
        "piles": [list(pile) for pile in game.piles],
        "pools": [list(pool) for pool in game.pools],
        "hidden_group": list(game.hidden_group),
        "in_game": list(game.in_game),
        "flips": game.flips,
        "ticks": game.ticks,
        "session_wins": list(game.session_wins),
    }


class CompiledTwin:
    """Plays each tick of reference games on the compiled engine too (see the module)."""

    def __init__(self, apply: Apply) -> None:
        self._apply = apply
        self._batches: dict[str, tuple[Any, Any]] = {}
        self.ticks = 0
        """The ticks checked on both engines."""

    def _batch(self, options: SnapOptions) -> tuple[Any, Any]:
        """A one-game batch of these rule options, and an observer of them."""
        keywords = rule_keywords(options)
        key = repr(sorted(keywords.items()))
        if key not in self._batches:
            batch = snail_envs.batched.make(SNAP_ENV, 1, final_observations=True, **keywords)
            self._batches[key] = batch, batch.spec.new_observer(batch.options)
        return self._batches[key]

    def apply(self, game: Snap, actions: Mapping[int, int]) -> None:
        """One tick of `game` on both engines, checked; then `game` plays it."""
        batch, observer = self._batch(game.options)
        batch.load(0, game, seed=self.ticks)
        follower = copy.deepcopy(game)
        follower.chance = batch.replay_chance(0)
        observer.reset(follower)
        live = [seat for seat in range(game.num_players) if follower.is_in_game(seat)]
        reference = Reference(follower, observer, list(follower.points()), live, 4)
        tick = np.zeros((1, batch.max_acting), np.int64)
        for seat, action in actions.items():
            tick[0, seat] = action
        batch.step(tick)
        self._apply(follower, actions)
        if not check_ending(batch, 0, reference):
            check_turn(batch, 0, reference, batch.state())
            assert twin_table(batch.games[0], follower) == reference_table(follower), (
                "the compiled twin's table differs from the reference's"
            )
        self.ticks += 1
        self._apply(game, actions)
