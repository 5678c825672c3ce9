"""AIVAT's chance correction for `snail-eval --aivat`: a score rate with the luck of the dice and
the cards taken out game by game, unbiased, from fewer games.

A game's result is what its chance events and its decisions made of it. At every chance event
(the deal, and every transition that draws chance: a roll, a shuffle, a refill) the estimator
measures how much the outcome that came helped the measured side: the value of the state after
it, less the mean value after fresh outcomes of the same transition from the same state. The
game's result less these corrections is an estimate of the side's score whose expectation is the
score rate's, whatever the value (each correction has mean zero, its fresh outcomes being drawn
as the game draws its own), and whose spread is the smaller, the better the value predicts the
result (Burch et al. 2018, "AIVAT: a new variance reduction technique for agent evaluation in
imperfect information games").

The value is measured by rollouts in the batched engine: after the real outcome, the mean score of
`rollouts` games played on from it; after each of `rollouts` fresh outcomes (drawn by the engine,
which steps a loaded game exactly as the reference does), one game played on, with the generators
of one of the real outcome's games, so that the two sides of a correction differ by their
outcome more than by the luck of their rollouts. The rollouts are played by the agents themselves
where the batched engine plays them (`heuristic`, `random` inside its kernels; a trained policy,
`ppo`, by one forward pass for all the games waiting on it) and by the heuristic for any other
agent (a search, say): the value need not be right for the estimate to be unbiased, only to be
narrow. The estimator needs the two sides' results of a game to sum to 1, as in a pairing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import snail_envs
import snail_envs.batched
from snail_envs.agents import make_agent
from snail_envs.core.stats import side_scores

IN_KERNEL = ("heuristic", "random")
"""The agents the batched engine plays inside its kernels."""
STAND_IN = "heuristic"
"""Who plays the rollouts for an agent the batched engine cannot play."""


def rollout_player(spec: str, env_name: str, options: dict[str, Any], trusted: bool = False) -> Any:
    """Who plays agent `spec`'s seats in the rollouts: an in-kernel player's name, a trained
    policy's batched forward pass (`FrozenPolicy`), or the heuristic standing in."""
    if spec in IN_KERNEL:
        return spec
    if spec.split(":")[0] in ("ppo", "rllib"):
        from snail_envs.training.opponents import FrozenPolicy

        agent = make_agent(spec, env_name, options=options, trusted=trusted)
        if hasattr(agent, "model") and hasattr(agent.model, "action_net"):
            return FrozenPolicy(agent)
    return STAND_IN


def rollout_players(
    agents: Sequence[str], env_name: str, options: dict[str, Any], trusted: bool = False
) -> dict[str, Any]:
    """`rollout_player` of each agent, checked: the game must have a batched engine that loads
    games, and a heuristic where one stands in."""
    engine = snail_envs.batched.engine_class(env_name)
    if engine.load_game is None:
        raise ValueError(f"--aivat needs a batched engine that loads games; {env_name}'s does not")
    players = {spec: rollout_player(spec, env_name, options, trusted) for spec in agents}
    if STAND_IN in players.values() and STAND_IN not in engine.opponents:
        raise ValueError(f"--aivat: {env_name} has no in-kernel heuristic to play the rollouts")
    return players


def describe_value(rollouts: int, players: dict[str, Any]) -> str:
    """The value of the corrections in words: the rollouts, and who plays each agent's seats."""
    playing = ", ".join(
        f"{spec} by {'itself' if player == spec or not isinstance(player, str) else player}"
        for spec, player in players.items()
    )
    return f"{rollouts} rollouts a state in the batched engine, {playing}"


@dataclass
class ChanceEvent:
    """A transition that drew chance: the state before it as a record of the batched engine
    (None: the deal) with the choices that set it off by acting slot, and the state it led to
    (None: the game ended there, the measured side scoring `ended`)."""

    before: np.void | None
    choices: np.ndarray
    after: np.void | None
    ended: float = 0.0


@dataclass
class ChanceLog:
    """The chance events of one game as it is played (`play_game`'s `chance_log`), for the side
    `measured` of the seating `seats`."""

    env_name: str
    options: dict[str, Any]
    seats: Sequence[str]
    measured: str
    events: list[ChanceEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._loader = snail_envs.batched.make(self.env_name, 1, **self.options)
        self._mine = np.array([spec == self.measured for spec in self.seats])
        self._pending: tuple[np.void, np.ndarray, object] | None = None

    def dealt(self, env: Any) -> None:
        """The game of `env` was dealt."""
        game = env.unwrapped.game
        self.events = [self._event(None, np.zeros(0, np.int64), game)]

    def before_step(self, env: Any, agent: str, action: int) -> None:
        """`agent` of `env` is about to play `action`."""
        host = env.unwrapped
        game = host.game
        tick = {**env.tick_choices, host.possible_agents.index(agent): action}
        self._pending = None
        if len(tick) < len(game.acting_seats()):
            return  # the window waits for other seats: nothing is played yet
        width = self._loader.seats.shape[1]
        choices = np.zeros(width, np.int64)
        for seat, chosen in tick.items():
            choices[seat if width > 1 else 0] = chosen
        self._pending = (self._loader.record_of(game, 0), choices, game.chance.state())

    def after_step(self, env: Any) -> None:
        """The step announced to `before_step` was played."""
        if self._pending is None:
            return
        before, choices, drawn = self._pending
        self._pending = None
        game = env.unwrapped.game
        if game.chance.state() != drawn:
            self.events.append(self._event(before, choices, game))

    def _event(self, before: np.void | None, choices: np.ndarray, game: Any) -> ChanceEvent:
        if game.outcome is None and not game.truncated:
            return ChanceEvent(before, choices, self._loader.record_of(game, 0))
        return ChanceEvent(before, choices, None, outcome_score(game, self._mine))


class RolloutValue:
    """Chance corrections measured by rollouts in the batched engine (see the module
    docstring): `players` play the seats of their agents, `rollouts` games a state."""

    def __init__(
        self, env_name: str, options: dict[str, Any], players: dict[str, Any], rollouts: int
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"--aivat needs at least 1 rollout a state; got {rollouts}")
        self.env_name = env_name
        self.options = {**options, "reward": "winlose"}
        self.players = players
        self.rollouts = rollouts

    def engine(self, size: int) -> Any:
        return snail_envs.batched.make(self.env_name, size, **self.options)

    def correction(self, log: ChanceLog, seed: int) -> float:
        """The sum of the chance corrections of the game `log` recorded, for its measured side;
        `seed` draws the fresh outcomes and the rollouts."""
        r, events = self.rollouts, log.events
        owners = {spec: np.array([s == spec for s in log.seats]) for spec in set(log.seats)}
        mine = owners[log.measured]
        real = np.array([[event.ended] * r for event in events])
        going = [e for e, event in enumerate(events) if event.after is not None]
        parts = [np.repeat(np.array([events[e].after for e in going]), r)] if going else []
        cells = [np.repeat(np.array(going, np.int64), r) * r + np.tile(np.arange(r), len(going))]
        fresh, fresh_records, fresh_cells = self.fresh_outcomes(events, mine, seed)
        parts.append(fresh_records)
        cells.append(fresh_cells)
        states = np.concatenate(parts)
        if states.size:
            from snail_envs.batched.chance import seed_games

            engine = self.engine(states.size)
            engine.load_worlds(states, seed)
            generators = np.zeros(len(events) * r, engine.game_dtype)
            seed_games(generators, np.uint64(seed % 2**64))
            shared = np.concatenate(cells)
            for name in ("chance_state", "agent_state"):
                engine.games[name] = generators[name][shared]
            scores = self.play_out(engine, owners, mine)
            real.reshape(-1)[cells[0]] = scores[: cells[0].size]
            fresh.reshape(-1)[fresh_cells] = scores[cells[0].size :]
        return float((real.mean(axis=1) - fresh.mean(axis=1)).sum())

    def fresh_outcomes(
        self, events: Sequence[ChanceEvent], mine: np.ndarray, seed: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`rollouts` fresh outcomes of each event's transition, drawn by the engine: the
        measured side's score where the game ended there (float (E, rollouts)), and the states
        where it goes on, with their cells (event × rollouts + k) in that table."""
        r = self.rollouts
        scores = np.zeros((len(events), r))
        records, cells = [], []
        steps = [e for e, event in enumerate(events) if event.before is not None]
        if steps:
            stepped = self.engine(len(steps) * r)
            befores = np.array([events[e].before for e in steps])
            stepped.load_worlds(np.repeat(befores, r), seed + 1)
            choices = np.repeat(np.array([events[e].choices for e in steps]), r, axis=0)
            stepped.step(choices.reshape(stepped.seats.shape))
            rows = np.repeat(np.array(steps), r) * r + np.tile(np.arange(r), len(steps))
            ended = stepped.terminated | stepped.truncated
            scores.reshape(-1)[rows] = np.where(
                stepped.truncated, 0.5, side_scores(stepped.rewards, mine)
            )
            records.append(stepped.games[~ended])
            cells.append(rows[~ended])
        for e, event in enumerate(events):
            if event.before is None:
                dealt = self.engine(r)
                dealt.reset(seed + 2)
                records.append(dealt.games.copy())
                cells.append(e * r + np.arange(r))
        return scores, np.concatenate(records), np.concatenate(cells)

    def play_out(self, engine: Any, owners: dict[str, np.ndarray], mine: np.ndarray) -> np.ndarray:
        """Play every game of `engine` to its end, each agent's seats (`owners`) by its player:
        the measured side's (seats `mine`) score in each. A finished game's slot plays on
        (the engine deals it again) with any legal actions, unscored."""
        n = engine.num_envs
        scores = np.zeros(n)
        playing = np.ones(n, bool)
        games = np.arange(n)
        while playing.any():
            acting = engine.seats
            actions = engine.action_masks.argmax(axis=2)
            for spec, player in self.players.items():
                owned = (acting >= 0) & owners[spec][np.maximum(acting, 0)] & playing[:, None]
                if not owned.any():
                    continue
                if player == "heuristic":
                    chosen = engine.heuristic_actions(owned).reshape(acting.shape)
                    actions[owned] = chosen[owned]
                elif player == "random":
                    actions[owned] = engine.random_actions(owned)[owned]
                else:
                    rows, slots = np.nonzero(owned)
                    actions[rows, slots] = player(
                        engine.observations[rows, slots],
                        engine.action_masks[rows, slots].astype(bool),
                        games[rows],
                    )
            engine.step(actions)
            ended = playing & (engine.terminated | engine.truncated)
            scores[ended] = np.where(
                engine.truncated[ended], 0.5, side_scores(engine.rewards[ended], mine)
            )
            playing &= ~ended
        return scores


def outcome_score(game: Any, mine: np.ndarray) -> float:
    """A finished (or truncated: ½) reference game's score for the measured side: its winners
    scored as the engine's rewards are (`side_scores`)."""
    if game.outcome is None:
        return 0.5
    winners = np.zeros((1, len(mine)))
    winners[0, list(game.outcome.winners)] = 1.0
    return float(side_scores(winners, mine)[0])


def narrowing_markdown(record: dict[str, Any]) -> str:
    """The table of a `benchmarks/duplicate_deals.py --aivat` record: for each game, the
    half-width of the clone's score rate against the heuristic from games dealt one by one,
    from duplicate deals, with AIVAT's correction and with both, how much narrower each is
    than the plain games', and the CPU seconds of the tournaments without and with it."""
    from snail_envs.registry import GAMES

    lines = [
        "| game | games | clone's score, plain | ± plain | ± duplicate | ± AIVAT (score) "
        "| ± AIVAT + duplicate | narrower: duplicate / AIVAT / both | CPU s: plain / AIVAT |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for game in GAMES:
        cell = record.get(game.env_name)
        if cell is None:
            continue
        plain, duplicate = cell["plain"], cell["duplicate"]
        corrected, both = cell["aivat_plain"], cell["aivat_duplicate"]
        narrower = " / ".join(f"{part['narrower']:.2f}×" for part in (duplicate, corrected, both))
        lines.append(
            f"| {game.title} | {record['games']:,} | {plain['score_rate']:.1%} "
            f"| {plain['half_width']:.1%} | {duplicate['half_width']:.1%} "
            f"| {corrected['half_width']:.1%} ({corrected['score_rate']:.1%}) "
            f"| {both['half_width']:.1%} | {narrower} "
            f"| {plain['cpu_seconds']:.0f} / {corrected['cpu_seconds']:.0f} |"
        )
    return "\n".join(lines)
