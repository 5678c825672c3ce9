"""Rollout search: one step of policy improvement over a game's heuristic, on compiled rollouts.

At every decision with a choice, the agent

1. draws `worlds` worlds consistent with what its seat has seen (`resample_from_infostate`) and
   loads each into a record of the game's batched engine, `repeats` times, each time with its
   future chance seeded anew;
2. plays each legal action in each record, then lets every seat play as the heuristic up to the
   horizon (by default the end of the round being played). All actions meet the same worlds and
   the same chance (common random numbers), so they are compared pairwise, world by world, free
   of the luck of the deal;
3. values each rollout by its margin (`value="margin"`): the points its own seat adds to its
   total less the mean the other seats add (the other way round where the lowest total wins, as
   in Snailed It!); or by the win (`value="win"`): 1 where its seat alone leads at the horizon
   (the most points, the fewest where the lowest total wins), ½ where it shares the lead, 0
   otherwise, as a game's result is scored (at the game's end with `horizon="game"`);
4. plays the heuristic's own choice unless another action's mean advantage over it, world by
   world, exceeds `z` standard errors; then the action of the largest mean advantage.

Steps 1 to 3 are `RolloutSearchAgent.compare`, whose `PairedComparison` holds every legal
action's margin in every world; step 4 is `PairedComparison.choice`. The comparison also gives
each action's mean advantage over any other action, with its standard error, world by world
(`PairedComparison.advantages`): the labels of the `advantage` training stage
(`snail_envs.training.advantage`).

With a few rollouts per action the means are noisy, and taking the largest would swap the
heuristic's well-judged play for the luckiest-looking one (the winner's curse). The test leaves the
heuristic's choice only on evidence. Of the environment the agent uses its legal actions and its
copies with the hidden information redrawn, whose games the batched engine then loads.

Games searched: those whose batched engine loads a game of the reference engine (`load`) and
rolls it out with its heuristic (`rollout`): `SEARCHABLE`. The batched engines need numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from snail_envs.agents.base import SearchAgent
from snail_envs.agents.stopping import check_stop
from snail_envs.batched import engine_class
from snail_envs.core.options import check_choice, check_int, rule_keywords
from snail_envs.core.stats import side_scores
from snail_envs.registry import GAMES

SEARCHABLE = tuple(game.env_name for game in GAMES if game.searchable)
"""The environments whose batched engine can load a game in progress and roll it out."""

WORLDS = 128
"""The worlds drawn at each decision by default."""
VALUES = ("margin", "win")
"""What a rollout is valued by (see the module docstring)."""


class RolloutSearchAgent(SearchAgent):
    """The heuristic, improved by paired rollouts where they show a better action (see the
    module docstring); the same seed gives the same choices.

    Budget: `worlds` worlds drawn at each decision, `repeats` records of each (only chance after
    the decision differs between them: in a Snailed It! round a refill of the penalty pile, so
    one is the default). `z`: the standard errors by which an action's mean advantage must
    exceed zero to be played instead of the heuristic's choice. `horizon`: "round" or "game"
    (`BatchedGame.rollout`). `value`: "margin" or "win" (`VALUES`). With the defaults a 3-player
    game of Snailed It! takes about 1.4 seconds of the searching seat's time.
    """

    def __init__(
        self,
        env_name: str,
        worlds: int = WORLDS,
        repeats: int = 1,
        z: float = 2.0,
        horizon: str = "round",
        value: str = "margin",
        seed: int | None = None,
    ) -> None:
        if env_name not in SEARCHABLE:
            raise ValueError(
                f"rollout search needs a batched engine that loads games in progress; "
                f"{env_name!r} has none (searchable: {', '.join(SEARCHABLE)})"
            )
        check_int("worlds", worlds, 1)
        check_int("repeats", repeats, 1)
        if not z >= 0:
            raise ValueError(f"z must be a non-negative number of standard errors; got {z!r}")
        self.engine = engine_class(env_name)
        check_choice("horizon", horizon, self.engine.horizons)
        check_choice("value", value, VALUES)
        self.worlds = worlds
        self.repeats = repeats
        self.z = z
        self.horizon = horizon
        self.value = value
        super().__init__(seed)
        self._batch: Any = None

    def search(self, host: Any, agent: str, legal: list[int]) -> int:
        return self.compare(host, agent, legal).choice(self.z)

    def compare(self, host: Any, agent: str, legal: list[int]) -> PairedComparison:
        """Every action of `legal` (at least two), played by `agent` in the same worlds drawn
        from what it has seen in `host` (the reference environment, unwrapped), then the
        heuristic in every seat to the horizon: each action's value in each world."""
        seat = host.possible_agents.index(agent)
        batch = self._batch_for(host.options)
        points = np.zeros((self.worlds * self.repeats, 1, batch.num_players))
        for world in range(self.worlds):
            check_stop()
            drawn = host.resample_from_infostate(agent, self._rng.getrandbits(31))
            for repeat in range(self.repeats):
                record = world * self.repeats + repeat
                batch.load(record, drawn.game, self._rng.getrandbits(63))
                if self.value == "win":
                    points[record] = drawn.game.points()
        slot = int(np.flatnonzero(batch.seats[0] == seat)[0])
        heuristic = int(batch.heuristic_actions().reshape(batch.num_envs, -1)[0, slot])
        gained = batch.rollout(seat, legal, self.horizon).astype(np.float64)
        if self.value == "win":
            values = lead_shares(points + gained, seat, batch.lowest_wins)
        else:
            values = margins(gained, seat, batch.lowest_wins)
        values = values.reshape(self.worlds, self.repeats, len(legal))
        return PairedComparison(list(legal), heuristic, values.mean(axis=1))

    def _batch_for(self, options: Any) -> Any:
        """A batch of one record for each rollout start, for the rule options of the game."""
        if self._batch is None or self._batch.options != options:
            self._batch = self.engine(self.worlds * self.repeats, **rule_keywords(options))
        return self._batch


def margins(gained: np.ndarray, seat: int, lowest_wins: bool) -> np.ndarray:
    """`seat`'s margin in each rollout, from the points every seat adds (`gained`, float64
    (records, actions, seats)): its own less the others' mean (the reverse with
    `lowest_wins`)."""
    others = (gained.sum(axis=2) - gained[:, :, seat]) / (gained.shape[2] - 1)
    margin = gained[:, :, seat] - others
    return -margin if lowest_wins else margin


def lead_shares(totals: np.ndarray, seat: int, lowest_wins: bool) -> np.ndarray:
    """`seat`'s result in each rollout as a game's is scored, from every seat's points at its
    horizon (`totals`, float64 (records, actions, seats)): 1 where it alone leads (the most
    points, the fewest with `lowest_wins`), ½ where it shares the lead, 0 otherwise
    (`side_scores`)."""
    signed = -totals if lowest_wins else totals
    mine = np.arange(signed.shape[-1]) == seat
    return side_scores(signed.reshape(-1, signed.shape[-1]), mine).reshape(signed.shape[:-1])


class Advantages(NamedTuple):
    """Each legal action's mean advantage over one action of the same decision, world by world,
    in the search's value (margin points, or wins), and its standard error (in the order of the
    legal actions)."""

    mean: np.ndarray
    stderr: np.ndarray
    """Infinite with fewer than two worlds: one world shows no spread."""


@dataclass(frozen=True)
class PairedComparison:
    """The legal actions of one decision, each played in the same drawn worlds (common random
    numbers): what the rollout search knows of the decision."""

    legal: list[int]
    heuristic: int
    """The heuristic's choice, one of `legal`."""
    values: np.ndarray
    """float64 (worlds, legal actions): the searching seat's value (margin or win) in each world
    after each action (the mean of its repeats), the heuristic playing every seat after it."""

    def advantages(self, over: int | None = None) -> Advantages:
        """Each legal action's mean paired advantage over the legal action `over` (by default
        the heuristic's choice), world by world, and its standard error."""
        reference = self.legal.index(self.heuristic if over is None else over)
        advantage = self.values - self.values[:, [reference]]
        worlds = len(advantage)
        if worlds < 2:
            stderr = np.full(len(self.legal), np.inf)
        else:
            stderr = advantage.std(axis=0, ddof=1) / np.sqrt(worlds)
        return Advantages(advantage.mean(axis=0), stderr)

    def choice(self, z: float) -> int:
        """The heuristic's choice, unless another action's mean advantage over it exceeds zero
        and `z` standard errors: then the action of the largest such advantage. One world shows
        no spread, so no evidence: the heuristic's choice."""
        if len(self.values) < 2:
            return self.heuristic
        mean, stderr = self.advantages()
        better = (mean > 0) & (mean > z * stderr)
        if not better.any():
            return self.heuristic
        return self.legal[int(np.argmax(np.where(better, mean, -np.inf)))]
