"""Rank agents in a tournament: round robin with seat rotation, confidence intervals, ratings.

    snail-eval --env snail_sprint_v0 --agents random heuristic ppo ismcts:100
    snail-eval --env pedzace_slimaki_v0 --agents random heuristic \\
        --games 500 -o num_players=4 --out results/pedzace

Every pair of agents plays `--games` games (`--table`: all agents at one table instead). Seats
rotate from game to game, so that no agent keeps the first seat. Each pairing's games are dealt
from a seed of the tournament's seed and the two agents' names alone, so that adding or removing
another agent leaves a pairing's games as they were. In games of more than two
players, the two agents of a pairing fill the seats alternately (`--seating alternate`), or each
agent in turn plays alone in one seat against the other agent in every other seat
(`--seating one`, where chance level is 1 / players). For each pairing the table gives the
score rate of each side (a win counts 1, a shared win ½) with its 95% Wilson interval, and each
side's mean game points with a 95% interval, in one row per pair of agents; an agent × agent
matrix of the score rates is drawn as a heatmap whose colours part at chance level. Every game
also updates an OpenSkill (Plackett–Luce) rating of each agent; the pairings take turns game by
game, so that no agent's rating depends on when its pairings came. Agents are shown by short
labels (`ppo:snail_sprint_v0-0-1` for `ppo:runs/snail_sprint_v0-0-1/policy.pt`), which the report
maps to their full names. The results are written as results.md, results.csv, results.json and
the charts results.png and results_matrix.png, with a provenance block: the command, the seed,
the versions of the packages, the file behind every trained agent and the rule options. They go
into a new folder `runs/eval/<env>-<seed>-<n>/` (printed at the end), or into `--out FOLDER`,
whose reports are never replaced without `--overwrite`. `--save-replays FOLDER` also keeps every
game as a replay (`snail-replay`), one file a game named after its pairing and its number
(`01-random-vs-heuristic-game001.jsonl`). The same seed gives the same tournament.

`--duplicate` plays duplicate deals, as in bridge: a pairing's games come in groups that share
one seed, so one deal (the same deck order, the same dice stream), played once in each seat
assignment (both orders of the two agents; with `--seating one`, the lone agent in every seat).
The luck of the deal then falls on both sides alike, and a score rate's interval is the normal
interval over the deals' mean scores, which is narrower at equal games where the deal decides
much of a game (docs/results.md, "Duplicate deals and AIVAT"). `--aivat ROLLOUTS` takes out the
luck of every chance event instead (or as well): each game's score less how much each of its
chance outcomes helped, valued by that many rollouts a state in the batched engine
(`snail_envs.training.aivat`); the interval is then the normal interval over the corrected games
(or deals). The report names its estimator.
`--exploit-budget 30m` also measures each agent's worst case after the tournament:
`snail-exploit` (`snail_envs.training.exploit`) looks for the strongest reply to the agent with
that budget (`--exploit-method`), into `exploit/<agent>/` of the results folder, and the report
gains an exploitability column: the reply's lower bound with its 95% interval. Without it, the
report cites the stored table (`EXPLOIT_TABLE`).
Trained policies load weights only; `--trust-checkpoint` also admits Stable-Baselines3 archives,
which are pickles (see `snail_envs.agents.ppo`).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import importlib.metadata
import itertools
import json
import platform
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.agents.cli import add_trust_flag, command_errors, console_script
from snail_envs.agents.files import atomic_path, refuse_existing
from snail_envs.agents.ppo import POLICY_FILE
from snail_envs.apps.replay import start_replay
from snail_envs.cli import add_rule_options, env_name
from snail_envs.core.stats import mean_interval, side_scores, wilson_interval
from snail_envs.training.checkpoints import new_run_dir

REPORTS = ("results.md", "results.csv", "results.json", "results.png", "results_matrix.png")
"""The files a tournament writes in its folder (`--out`, or a new one under `EVAL_DIR`)."""
EVAL_DIR = Path("runs") / "eval"
"""Where a tournament without `--out` writes its new folder, `<env>-<seed>-<n>`."""
PACKAGES = (
    "numpy",
    "numba",
    "pettingzoo",
    "gymnasium",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "openskill",
)
"""The packages whose versions a report records besides snail_envs (those installed)."""
EXPLOIT_TABLE = 'docs/results.md, section "Approximate exploitability"'
"""Where the stored exploitability lower bounds of the shipped agents are, cited by a report
that did not measure its own (`--exploit-budget`)."""
EXPLOIT_FIELDS = (
    "method",
    "budget_seconds",
    "games",
    "score_rate",
    "score_ci95",
    "bound",
    "lower_bound",
    "lower_bound_ci95",
    "folder",
)
"""What results.json keeps of each agent's `snail-exploit` report."""
TRAINED_KINDS = ("ppo", "rllib")
"""The agents that play a policy from a file, which a report names."""


@dataclass
class GameRecord:
    """One finished game: who sat where, each seat's return and points."""

    seats: list[str]
    returns: list[float]
    points: list[float]
    truncated: bool


class Lineup:
    """The agents of a tournament, one instance per (agent, seat), reseeded before every game.
    `players` adds agents built elsewhere (a policy being trained), by name; `trusted` lets
    `ppo:PATH` load pickled archives (`snail_envs.agents.make_agent`)."""

    def __init__(
        self, env_name: str, players: dict[str, Any] | None = None, trusted: bool = False
    ) -> None:
        self.env_name = env_name
        self.trusted = trusted
        self._named = dict(players or {})
        self._players: dict[tuple[str, int], Any] = {}

    def player(self, spec: str, seat: int, seed: int, options: dict[str, Any] | None = None) -> Any:
        """The agent `spec` in `seat`, for a table of these environment `options`."""
        if spec in self._named:
            return self._named[spec]
        key = (spec, seat)
        if key not in self._players:
            self._players[key] = make_agent(
                spec, self.env_name, seed=seed, options=options, trusted=self.trusted
            )
        player = self._players[key]
        if hasattr(player, "reset"):
            player.reset(seed)
        return player


def play_game(
    env_name: str,
    seats: Sequence[str],
    seed: int,
    lineup: Lineup,
    options: dict[str, Any],
    replay: Path | None = None,
    overwrite: bool = False,
    chance_log: Any = None,
) -> GameRecord:
    """Play one game with agent `seats[i]` in seat i. The game pays win/lose rewards whatever
    `options` say (a margin or points reward is training's business): the returns say who won.
    An agent that watches the game (`watch(env, its_agent, agent, action)`, such as a search
    with a belief) is told every action before it is played.
    `replay`: a file to save the game in (`snail-replay`), replaced only if `overwrite`.
    `chance_log`: a `snail_envs.training.aivat.ChanceLog` that records the game's chance
    events."""
    table = {"num_players": len(seats), **options}
    played = {**table, "reward": "winlose"}
    env = snail_envs.make(env_name, **played)
    env.reset(seed=seed)
    if chance_log is not None:
        chance_log.dealt(env)
    recording = None if replay is None else start_replay(env_name, played, seed, env, seats)
    players = {
        agent: lineup.player(spec, index, seed * 101 + index, table)
        for index, (agent, spec) in enumerate(zip(env.possible_agents, seats, strict=True))
    }
    watchers = [(agent, p) for agent, p in players.items() if hasattr(p, "watch")]
    returns = dict.fromkeys(env.possible_agents, 0.0)
    truncated = False
    for agent in env.agent_iter():
        _, total, terminated, was_truncated, _ = env.last(observe=False)
        if terminated or was_truncated:
            returns[agent] = total
            truncated |= was_truncated
            action = None
        else:
            action = choose_action(players[agent], env, agent)
        for own, watcher in watchers:
            watcher.watch(env, own, agent, action)
        if chance_log is not None and action is not None:
            chance_log.before_step(env, agent, action)
        env.step(action)
        if chance_log is not None and action is not None:
            chance_log.after_step(env)
        if recording is not None:
            recording.record(env, agent, action)
    if recording is not None and replay is not None:
        recording.finish(env).save(replay, overwrite)
    return GameRecord(
        seats=list(seats),
        returns=[returns[agent] for agent in env.possible_agents],
        points=[float(p) for p in env.unwrapped.game.points()],
        truncated=truncated,
    )


def one_against_all(player: str, others: str, num_players: int, game: int) -> list[str]:
    """`player` in one seat (rotating from game to game), `others` in every other seat."""
    return [player if seat == game % num_players else others for seat in range(num_players)]


def score_against(
    env_name: str,
    player: Any,
    opponent: str,
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    name: str = "player",
    replays: Path | None = None,
    replay_games: int = 0,
    after_game: Callable[[], None] | None = None,
) -> tuple[float, float, float]:
    """Score rate (win 1, shared ½) of the agent `player` in one seat against `opponent` in all
    the others, with its 95% Wilson interval. Chance level is 1 / num_players. `name` is the
    player's name in its replays: the first `replay_games` games are saved in the folder
    `replays` (`vs-OPPONENT-game1.jsonl`, ...; an existing file is replaced). `after_game` is
    called after each game."""
    options = dict(options or {})
    num_players = options.pop("num_players", None) or len(snail_envs.make(env_name).possible_agents)
    lineup = Lineup(env_name, {name: player})
    pairing = PairingResult((name, opponent))
    for game in range(games):
        seats = one_against_all(name, opponent, num_players, game)
        replay = None
        if replays is not None and game < replay_games:
            replay = replays / f"vs-{file_name_part(opponent)}-game{game + 1}.jsonl"
        record = play_game(env_name, seats, seed + game, lineup, options, replay, overwrite=True)
        pairing.records.append(record)
        if after_game is not None:
            after_game()
    return pairing.score(name)


def file_name_part(spec: str) -> str:
    """An agent's name as part of a file name: every character but letters, digits, `.`, `_`
    and `-` becomes `_` (`ppo:runs/a` → `ppo_runs_a`)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", spec)


def replay_paths(folder: Path, groups: Sequence[tuple[str, ...]], games: int) -> list[list[Path]]:
    """The replay file of each game of each pairing of a tournament, in `folder`: pairings and
    games numbered from 1, with leading zeros so that the names sort in order
    (`01-random-vs-heuristic-game001.jsonl`)."""
    pairing_width, game_width = max(2, len(str(len(groups)))), max(3, len(str(games)))
    return [
        [
            folder / f"{index:0{pairing_width}d}-{'-vs-'.join(map(file_name_part, group))}"
            f"-game{game:0{game_width}d}.jsonl"
            for game in range(1, games + 1)
        ]
        for index, group in enumerate(groups, start=1)
    ]


def seat_order(pairing: Sequence[str], num_players: int, game: int) -> list[str]:
    """The seats of game number `game`: the agents alternate around the table, and the first seat
    rotates from game to game."""
    return [pairing[(game + seat) % len(pairing)] for seat in range(num_players)]


def game_result(record: GameRecord, spec: str) -> float:
    """1 if `spec` won alone, ½ if it shared the best result, 0 if it lost (draws by truncation:
    ½). The best result is the highest return: +1 to the winners, or, in a result shared under
    `snap_v2`'s rules, 0 to each sharer and −1 to the others (a draw between two seats: 0 and
    0, ½ each)."""
    if record.truncated:
        return 0.5
    mine = np.array([seat == spec for seat in record.seats])
    return float(side_scores(np.array([record.returns], np.float64), mine)[0])


PLAIN = "independent games, 95% Wilson interval over the games"
"""The estimator of a score rate whose games are dealt one by one."""
DUPLICATE = (
    "duplicate deals: each deal played once in every seat assignment, 95% normal interval over "
    "the deals' mean scores"
)
"""The estimator of a score rate whose deals are played in every seat assignment (`--duplicate`)."""
AIVAT = (
    "AIVAT chance correction (each game's result less the luck of its chance events, valued by "
    "{value}), 95% normal interval over the {units}"
)
"""The estimator of a score rate corrected for the luck of chance (`--aivat`,
`snail_envs.training.aivat`); its mean points are not corrected."""


@dataclass
class PairingResult:
    agents: tuple[str, ...]
    records: list[GameRecord] = field(default_factory=list)
    deal_size: int = 1
    """Consecutive games that share one deal (its seat assignments, `--duplicate`); 1: none."""
    corrections: list[float] | None = None
    """With `--aivat`: each game's chance correction of the first agent's result (the second's
    is its negative, the two results of a game summing to 1)."""
    aivat: str = ""
    """With `--aivat`: its value (rollouts, and who plays them), in words."""

    @property
    def estimator(self) -> str:
        if self.corrections is not None:
            units = (
                "corrected games"
                if self.deal_size == 1
                else "duplicate deals' mean corrected scores (each deal played once in every "
                "seat assignment)"
            )
            return AIVAT.format(value=self.aivat, units=units)
        return PLAIN if self.deal_size == 1 else DUPLICATE

    def score(self, spec: str) -> tuple[float, float, float]:
        """Score rate of `spec` (win 1, shared ½) with its 95% interval: Wilson's over the games,
        or with duplicate deals the normal interval over the deals' mean scores, whose spread
        leaves out the luck of the deal (clipped to [0, 1]). With AIVAT's corrections, the
        normal interval over the corrected games (or deals)."""
        results = [game_result(record, spec) for record in self.records]
        if self.corrections is not None:
            sign = 1.0 if spec == self.agents[0] else -1.0
            results = [r - sign * c for r, c in zip(results, self.corrections, strict=True)]
        elif self.deal_size == 1:
            low, high = wilson_interval(sum(results), len(results))
            return sum(results) / max(1, len(results)), low, high
        deals = [
            sum(results[start : start + self.deal_size]) / self.deal_size
            for start in range(0, len(results), self.deal_size)
        ]
        mean, low, high = mean_interval(deals)
        return mean, max(0.0, low), min(1.0, high)

    def mean_points(self, spec: str) -> tuple[float, float, float]:
        points = [
            p
            for record in self.records
            for s, p in zip(record.seats, record.points, strict=True)
            if s == spec
        ]
        return mean_interval(points)


@dataclass
class Side:
    """One agent's results in a pairing."""

    agent: str
    pairing: PairingResult

    def score(self) -> tuple[float, float, float]:
        return self.pairing.score(self.agent)

    def mean_points(self) -> tuple[float, float, float]:
        return self.pairing.mean_points(self.agent)


@dataclass
class Tournament:
    env_name: str
    agents: list[str]
    options: dict[str, Any]
    pairings: list[PairingResult]
    ratings: dict[str, tuple[float, float]]
    """OpenSkill (mu, sigma) of each agent."""
    seating: str = "alternate"
    """How a pairing's agents share the seats: `alternate`, `one` (the first alone), `table`."""
    estimator: str = PLAIN
    """How the score rates and their intervals are computed (`PLAIN` or `DUPLICATE`)."""
    provenance: dict[str, Any] = field(default_factory=dict)
    """Where the results come from (see `provenance`): the command, seed, versions, files."""
    exploitability: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each agent's `snail-exploit` report (`--exploit-budget`); empty when not measured."""

    @property
    def labels(self) -> dict[str, str]:
        """Each agent's short label (`short_labels`)."""
        return short_labels(self.agents)

    @property
    def chance(self) -> float:
        """An agent's score rate when the sides are equally strong: ½ in a pairing whose agents
        alternate, 1 / players for an agent alone against the other or at one table."""
        return 0.5 if self.seating == "alternate" else 1 / self.options["num_players"]

    def rows(self) -> list[tuple[Side, ...]]:
        """The rows of the tables: one per unordered pair of agents in a round robin, each side
        with its results against the other (with `one`, from the pairing in which it plays
        alone); at one table, a single row of every agent."""
        if self.seating == "table":
            (pairing,) = self.pairings
            return [tuple(Side(agent, pairing) for agent in dict.fromkeys(pairing.agents))]
        if self.seating == "one":
            alone = {pairing.agents: pairing for pairing in self.pairings}
            return [
                (Side(first, alone[first, second]), Side(second, alone[second, first]))
                for first, second in itertools.combinations(self.agents, 2)
            ]
        return [(Side(p.agents[0], p), Side(p.agents[1], p)) for p in self.pairings]

    def matrix(self) -> list[list[tuple[float, float, float] | None]] | None:
        """The agent × agent score matrix of a round robin: the row agent's score rate (with its
        95% interval) against the column agent, None on the diagonal; None at one table."""
        if self.seating == "table":
            return None
        agents = list(dict.fromkeys(self.agents))
        scores: dict[tuple[str, str], tuple[float, float, float]] = {}
        for first, second in self.rows():
            scores[first.agent, second.agent] = first.score()
            scores[second.agent, first.agent] = second.score()
        return [[scores.get((row, column)) for column in agents] for row in agents]

    def markdown(self) -> str:
        """The report (results.md): `results_markdown` of `results`."""
        return results_markdown(self.results())

    def results(self) -> dict[str, Any]:
        """Everything the reports show, as plain data (results.json)."""
        label = self.labels

        def side(entry: Side) -> dict[str, Any]:
            rate, low, high = entry.score()
            mean, mlow, mhigh = entry.mean_points()
            return {
                "agent": label[entry.agent],
                "score_rate": rate,
                "score_ci95": [low, high],
                "mean_points": mean,
                "points_ci95": [mlow, mhigh],
            }

        matrix = self.matrix()
        return {
            "env": self.env_name,
            "options": self.options,
            "seating": self.seating,
            "estimator": self.estimator,
            "agents": {label[spec]: spec for spec in self.agents},
            "rows": [
                {"games": len(row[0].pairing.records), "sides": [side(entry) for entry in row]}
                for row in self.rows()
            ],
            "matrix": None
            if matrix is None
            else {
                "agents": [label[spec] for spec in dict.fromkeys(self.agents)],
                "score_rate": [[None if c is None else c[0] for c in row] for row in matrix],
                "score_ci95": [[None if c is None else list(c[1:]) for c in row] for row in matrix],
                "chance": self.chance,
            },
            "ratings": {
                label[spec]: {"mu": mu, "sigma": sigma}
                for spec, (mu, sigma) in self.ratings.items()
            },
            "exploitability": {
                label[spec]: {key: report[key] for key in EXPLOIT_FIELDS}
                for spec, report in self.exploitability.items()
            },
            "ratings_order": [
                label[spec]
                for spec, (mu, sigma) in sorted(
                    self.ratings.items(), key=lambda kv: -(kv[1][0] - 3 * kv[1][1])
                )
            ],
            "provenance": self.provenance,
        }

    def write(self, folder: Path, overwrite: bool = False) -> list[Path]:
        """Write the reports (`REPORTS`; at one table, no matrix) into `folder`, each
        atomically; existing reports are a `FileExistsError` unless `overwrite`."""
        paths = [folder / name for name in REPORTS]
        refuse_existing(paths, overwrite)
        markdown, table, data, chart, heatmap = paths
        with atomic_path(markdown, overwrite) as temporary:
            temporary.write_text(self.markdown())
        with atomic_path(table, overwrite) as temporary, temporary.open("w", newline="") as handle:
            self.write_csv(handle)
        with atomic_path(data, overwrite) as temporary:
            temporary.write_text(json.dumps(self.results(), indent=2) + "\n")
        with atomic_path(chart, overwrite) as temporary:
            self.plot(temporary)
        if self.seating == "table":
            return paths[:-1]
        with atomic_path(heatmap, overwrite) as temporary:
            self.plot_matrix(temporary)
        return paths

    def write_csv(self, handle: Any) -> None:
        """One line per row of the tables: the games, then each side's agent, score rate and
        mean points (`_a`, `_b`); at one table, one line per agent."""
        label = self.labels
        columns = ["agent", "score_rate", "score_low", "score_high"]
        columns += ["mean_points", "points_low", "points_high"]
        writer = csv.writer(handle)
        if self.seating == "table":
            writer.writerow(["games", *columns])
            (row,) = self.rows()
            for entry in row:
                games = len(entry.pairing.records)
                writer.writerow([games, label[entry.agent], *entry.score(), *entry.mean_points()])
            return
        writer.writerow(["games", *(f"{name}_{side}" for side in "ab" for name in columns)])
        for row in self.rows():
            cells: list[Any] = [len(row[0].pairing.records)]
            for entry in row:
                cells += [label[entry.agent], *entry.score(), *entry.mean_points()]
            writer.writerow(cells)

    def plot(self, path: Path) -> None:
        """A bar of the score rate in each row (of its first agent against the second, whose
        rate is the rest where they alternate; of each side with `one`; of each agent at one
        table), with its 95% interval, and chance."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        label = self.labels
        labels, rates = [], []
        errors: list[list[float]] = [[], []]
        for row in self.rows():
            for entry in row[:1] if self.seating == "alternate" else row:
                rate, low, high = entry.score()
                others = ", ".join(label[e.agent] for e in row if e is not entry)
                name = label[entry.agent]
                labels.append(f"{name}\nvs {others}" if self.seating != "table" else name)
                rates.append(rate)
                errors[0].append(max(0.0, rate - low))  # rounding can put a bound a hair past
                errors[1].append(max(0.0, high - rate))
        figure, axes = plt.subplots(figsize=(max(6, 1.3 * len(labels)), 4.5))
        axes.bar(range(len(labels)), rates, yerr=errors, capsize=4, color="#4c8c4a")
        chance = f"chance ({self.chance:.0%})"
        axes.axhline(self.chance, color="grey", linestyle="--", label=chance)
        axes.set_xticks(range(len(labels)), labels, fontsize=8)
        axes.set_ylim(0, 1)
        axes.set_ylabel("score rate (win 1, shared ½), 95% CI")
        axes.set_title(f"{self.env_name} tournament")
        axes.legend(fontsize=8)
        figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)

    def plot_matrix(self, path: Path) -> None:
        """The score matrix as a heatmap: the row agent's score rate against the column agent,
        blue above chance, red below, white at chance (marked on the colour bar)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import TwoSlopeNorm

        matrix = self.matrix()
        if matrix is None:
            raise ValueError("a table tournament has no score matrix")
        names = [self.labels[spec] for spec in dict.fromkeys(self.agents)]
        rates = np.array([[np.nan if c is None else c[0] for c in row] for row in matrix])
        size = len(names)
        figure, axes = plt.subplots(figsize=(3.5 + 1.2 * size, 2.0 + 0.9 * size))
        colours = plt.get_cmap("RdBu").with_extremes(bad="#dddddd")
        norm = TwoSlopeNorm(vmin=0.0, vcenter=self.chance, vmax=1.0)
        image = axes.imshow(np.ma.masked_invalid(rates), cmap=colours, norm=norm)
        for row, cells in enumerate(matrix):
            for column, cell in enumerate(cells):
                text = "—" if cell is None else f"{cell[0]:.0%}\n({cell[1]:.0%}–{cell[2]:.0%})"
                axes.text(column, row, text, ha="center", va="center", fontsize=8)
        axes.set_xticks(range(size), names, rotation=30, ha="right", fontsize=8)
        axes.set_yticks(range(size), names, fontsize=8)
        axes.set_xlabel("against")
        axes.set_ylabel("agent")
        bar = figure.colorbar(image, ax=axes, label="score rate (win 1, shared ½)")
        bar.ax.axhline(self.chance, color="black", linewidth=1.5)
        ticks = sorted({0.0, 0.25, 0.5, 0.75, 1.0, self.chance})
        bar.set_ticks(
            ticks, labels=[f"{t:.0%}" + (" chance" if t == self.chance else "") for t in ticks]
        )
        alone = " (alone)" if self.seating == "one" else ""
        axes.set_title(f"{self.env_name}: score rate of row{alone} against column")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)


def results_markdown(data: dict[str, Any], report: bool = True) -> str:
    """The tables of a tournament from its results.json data: the score table, the estimator,
    the ratings and each agent's exploitability lower bound where measured. As a `report`
    (results.md) also a heading, where the stored exploitability is when none was measured, and
    where the results come from; without, the tables alone, as the docs show a stored
    results.json (docs/hooks/results_tables.py)."""
    options = data["options"]
    lines = [f"### {data['env']} {options or ''}".rstrip(), ""] if report else []
    lines += _score_table(data)
    lines += ["", f"Score rates: {data.get('estimator', PLAIN)}."]
    lines += ["", "| agent | rating (μ − 3σ) | μ | σ |", "|---|---:|---:|---:|"]
    ratings = data["ratings"]
    order = data.get("ratings_order") or sorted(
        ratings, key=lambda name: -(ratings[name]["mu"] - 3 * ratings[name]["sigma"])
    )
    for name in order:
        mu, sigma = ratings[name]["mu"], ratings[name]["sigma"]
        lines.append(f"| {name} | {mu - 3 * sigma:.1f} | {mu:.1f} | {sigma:.2f} |")
    if report or data.get("exploitability"):
        lines += ["", *exploitability_markdown(data.get("exploitability", {}))]
    if report:
        lines += ["", *provenance_markdown(data["provenance"], labels_of(data))]
    return "\n".join(lines).rstrip() + "\n"


def labels_of(data: dict[str, Any]) -> dict[str, str]:
    """Each agent's label in results.json data, by its full name."""
    return {spec: label for label, spec in data["agents"].items()}


def _score_table(data: dict[str, Any]) -> list[str]:
    """The rows of a tournament's score table (see `Tournament.rows`)."""
    rows = data["rows"]
    if data["seating"] == "table":
        lines = [
            "| agent | games | score rate (95% CI) | mean points (95% CI) |",
            "|---|---:|---|---|",
        ]
        for side in rows[0]["sides"]:
            lines.append(
                f"| {side['agent']} | {rows[0]['games']} | {_rate(side)} | {_points(side)} |"
            )
        return lines
    lines = []
    if data["seating"] == "one":
        others = data["options"]["num_players"] - 1
        lines += [
            f"Each side's score rate is from the games it plays alone, against {others} "
            "seats of the other.",
            "",
        ]
    lines += [
        "| A | B | games | A's score rate (95% CI) | B's score rate (95% CI) "
        "| A's mean points (95% CI) | B's mean points (95% CI) |",
        "|---|---|---:|---|---|---|---|",
    ]
    for row in rows:
        first, second = row["sides"]
        lines.append(
            f"| {first['agent']} | {second['agent']} | {row['games']} | {_rate(first)} | "
            f"{_rate(second)} | {_points(first)} | {_points(second)} |"
        )
    return lines


def _rate(side: dict[str, Any]) -> str:
    low, high = side["score_ci95"]
    return f"{side['score_rate']:.1%} ({low:.1%}–{high:.1%})"


def _points(side: dict[str, Any]) -> str:
    low, high = side["points_ci95"]
    return f"{side['mean_points']:.2f} ({low:.2f}–{high:.2f})"


def exploitability_markdown(reports: dict[str, dict[str, Any]]) -> list[str]:
    """The exploitability column: each agent's lower bound from its `snail-exploit` report (by
    label), or a line citing the stored table when none was measured."""
    if not reports:
        return [
            "Exploitability: not measured here (`--exploit-budget 30m` measures each agent's "
            f"lower bound); the shipped agents' are in {EXPLOIT_TABLE}."
        ]
    lines = [
        "| agent | exploitability lower bound (95% CI) | reply's score rate | method | "
        "budget | games | run folder |",
        "|---|---|---|---|---:|---:|---|",
    ]
    for label, report in reports.items():
        low, high = report["lower_bound_ci95"]
        lines.append(
            f"| {label} | {max(0.0, report['lower_bound']):+.1%} ({low:+.1%} to {high:+.1%}) | "
            f"{report['score_rate']:.1%} | {report['method']} | "
            f"{report['budget_seconds']:.0f}s | {report['games']:,} | {report['folder']} |"
        )
    bounds = {report["bound"] for report in reports.values()}
    lines += [
        "",
        f"The {' and '.join(sorted(bounds))} lower bound: the best reply's score rate against "
        "the agent less chance (0 when the reply does not beat chance).",
    ]
    return lines


def short_labels(agents: Sequence[str]) -> dict[str, str]:
    """A short label for each agent: its own name, but `KIND:<run or file name>` for a trained
    agent named by its path (`ppo:runs/a/policy.pt` → `ppo:a`), with `#2`, `#3`, ... after a
    label another agent has taken."""
    labels: dict[str, str] = {}
    for spec in dict.fromkeys(agents):
        kind, _, argument = spec.partition(":")
        label = spec
        if kind in TRAINED_KINDS and argument:
            path = Path(argument)
            name = path.parent.name if path.suffix == ".pt" and path.parent.name else path.stem
            label = f"{kind}:{name or argument}"
        taken = set(labels.values())
        if label in taken:
            label = next(f"{label}#{n}" for n in itertools.count(2) if f"{label}#{n}" not in taken)
        labels[spec] = label
    return labels


def pairing_seed(seed: int, agents: Sequence[str]) -> int:
    """The seed of a pairing's first game: a hash of the tournament's seed and the pairing's
    agents, in their order, alone (not of the other agents, nor of the pairing's place)."""
    digest = hashlib.sha256(json.dumps([seed, *agents]).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def trained_file(spec: str, env_name: str, options: dict[str, Any]) -> Path | None:
    """The file a trained agent plays from (`ppo`: the baseline shipped for the game and its
    rule `options`; `ppo:PATH`, `rllib:PATH`: the `policy.pt` at or in PATH), resolved; None for
    the others."""
    kind, _, argument = spec.partition(":")
    if kind not in TRAINED_KINDS:
        return None
    from snail_envs.agents.ppo import shipped_checkpoint
    from snail_envs.agents.weights import find_weights

    if not argument:
        return shipped_checkpoint(env_name, options).resolve() if kind == "ppo" else None
    return find_weights(argument, POLICY_FILE).resolve()


def provenance(
    env_name: str,
    agents: Sequence[str],
    seed: int,
    options: dict[str, Any],
    command: str | None = None,
) -> dict[str, Any]:
    """Where a tournament's results come from: the command (None when called from Python), the
    seed, Python's and the packages' versions (`PACKAGES`), the file behind every trained agent
    with its SHA-256, and the rule options."""
    versions = {"snail_envs": snail_envs.__version__}
    for package in PACKAGES:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions[package] = importlib.metadata.version(package)
    files = {}
    for spec in dict.fromkeys(agents):
        file = trained_file(spec, env_name, options)
        if file is not None:
            files[spec] = {
                "file": str(file),
                "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
            }
    return {
        "command": command,
        "seed": seed,
        "python": platform.python_version(),
        "packages": versions,
        "agent_files": files,
        "env_options": options,
    }


def provenance_markdown(record: dict[str, Any], labels: dict[str, str]) -> list[str]:
    """The provenance block of results.md, with the agents' labels and full names."""
    if not record:
        return []
    packages = ", ".join(f"{name} {version}" for name, version in record["packages"].items())
    lines = [
        "#### Provenance",
        "",
        f"- command: `{record['command']}`" if record["command"] else "- called from Python",
        f"- seed: {record['seed']}",
        f"- rule options: {record['env_options']}",
        f"- Python {record['python']}; {packages}",
        "",
        "| label | agent | file | SHA-256 |",
        "|---|---|---|---|",
    ]
    for spec, label in labels.items():
        entry = record["agent_files"].get(spec)
        file, sha256 = (entry["file"], f"`{entry['sha256']}`") if entry else ("", "")
        lines.append(f"| {label} | `{spec}` | {file} | {sha256} |")
    return lines


def run_tournament(
    env_name: str,
    agents: list[str],
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    table: bool = False,
    progress: bool = True,
    seating: str = "alternate",
    trusted: bool = False,
    replays: Path | None = None,
    overwrite: bool = False,
    command: str | None = None,
    duplicate: bool = False,
    players: dict[str, Any] | None = None,
    aivat: int = 0,
) -> Tournament:
    """Play the tournament (see the module docstring); `trusted`: see `Lineup`. `replays`: a
    folder to save every game in (`replay_paths`), whose files must not exist unless
    `overwrite`. `command`: the command line that asked for it, for its `provenance`.
    `duplicate`: deal each pairing's games in groups of `deal_size` that share a seed (the same
    deck order and dice stream), one game for each seat assignment, and score the deals.
    `players`: agents built elsewhere (a league's members), by the names `agents` give them
    (`Lineup`). `aivat`: correct each game's score for the luck of its chance events, valued by
    this many rollouts a state (`snail_envs.training.aivat`); 0: no correction."""
    if seating not in ("alternate", "one"):
        raise ValueError(f"seating must be 'alternate' or 'one'; got {seating!r}")
    from openskill.models import PlackettLuce

    options = dict(options or {})
    num_players = options.pop("num_players", None) or len(snail_envs.make(env_name).possible_agents)
    if table and len(agents) != num_players:
        raise ValueError(f"--table seats every agent at one table: give {num_players} agents")
    if not table and len(agents) < 2:
        raise ValueError("a round robin needs at least two agents")
    size = deal_size(games, num_players, seating, table) if duplicate else 1
    pairs = itertools.permutations if seating == "one" else itertools.combinations
    groups = [tuple(agents)] if table else list(pairs(agents, 2))
    model = PlackettLuce()
    ratings = {spec: model.rating(name=spec) for spec in agents}
    lineup = Lineup(env_name, players, trusted=trusted)
    results = [PairingResult(group, deal_size=size) for group in groups]
    value = None
    if aivat:
        if table:
            raise ValueError("--aivat corrects a pairing's scores; --table has no pairs")
        from snail_envs.training import aivat as chance_correction

        table_options = {**options, "num_players": num_players}
        rollout_players = chance_correction.rollout_players(
            agents, env_name, table_options, trusted
        )
        value = chance_correction.RolloutValue(env_name, table_options, rollout_players, aivat)
        for pairing in results:
            pairing.corrections = []
            pairing.aivat = chance_correction.describe_value(
                aivat, {spec: rollout_players[spec] for spec in pairing.agents}
            )
    paths = replay_paths(replays, groups, games) if replays is not None else None
    if paths is not None:
        refuse_existing([path for pairing in paths for path in pairing], overwrite)
    bar = _progress_bar(len(groups) * games, progress)
    # game by game across the pairings, so that every agent's rating moves at the same pace
    for game in range(games):
        for index, pairing in enumerate(results):
            if seating == "one" and not table:
                player, others = pairing.agents
                seats = one_against_all(player, others, num_players, game)
            else:
                seats = seat_order(pairing.agents, num_players, game)
            replay = None if paths is None else paths[index][game]
            game_seed = pairing_seed(seed, pairing.agents) + game // size
            log = None
            if value is not None:
                log = chance_correction.ChanceLog(
                    env_name, {**table_options, "reward": "winlose"}, seats, pairing.agents[0]
                )
            record = play_game(env_name, seats, game_seed, lineup, options, replay, overwrite, log)
            pairing.records.append(record)
            if value is not None:
                assert log is not None and pairing.corrections is not None
                pairing.corrections.append(value.correction(log, game_seed * size + game % size))
            teams = [[ratings[spec]] for spec in pairing.agents]
            ranks = [1.0 - game_result(record, spec) for spec in pairing.agents]
            for spec, (rating,) in zip(pairing.agents, model.rate(teams, ranks=ranks), strict=True):
                ratings[spec] = rating
            bar.update(1)
    bar.close()
    return Tournament(
        env_name=env_name,
        agents=agents,
        options={**options, "num_players": num_players},
        pairings=results,
        ratings={spec: (r.mu, r.sigma) for spec, r in ratings.items()},
        seating="table" if table else seating,
        estimator=results[0].estimator,
        provenance=provenance(
            env_name, agents, seed, {**options, "num_players": num_players}, command
        ),
    )


def deal_size(games: int, num_players: int, seating: str, table: bool) -> int:
    """The games of one duplicate deal: one per seat assignment of a pairing's games (2 where
    its agents alternate, which `seat_order` shifts by one from game to game; `num_players`
    where one agent plays alone, `one_against_all` moving it round the table). `games` must
    be a whole number of deals; a table of distinct agents has no duplicate."""
    if table:
        raise ValueError("--duplicate swaps the two agents of a pairing; --table has no pairs")
    size = 2 if seating == "alternate" else num_players
    if games % size:
        raise ValueError(
            f"--duplicate plays each deal in its {size} seat assignments: --games must be a "
            f"multiple of {size}; got {games}"
        )
    return size


def exploit_jobs(
    env_name: str,
    agents: Sequence[str],
    options: dict[str, Any],
    budget: str,
    method: str,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """The `snail-exploit` job of each distinct agent, each checked (a target that cannot be
    frozen, or a budget too short, is refused here, before any game is played)."""
    from snail_envs.training.exploit import Job, check_target, parse_budget

    jobs = {}
    for spec in dict.fromkeys(agents):
        job = Job(
            env=env_name,
            target=spec,
            options=options,
            budget_seconds=parse_budget(budget),
            seed=seed,
            games=games,
            method=method,
        )
        check_target(job)
        jobs[spec] = job
    return jobs


def measure_exploitability(
    jobs: dict[str, Any], folder: Path, overwrite: bool, command: str | None, progress: bool
) -> dict[str, dict[str, Any]]:
    """Run each agent's `snail-exploit` job into `folder/exploit/<agent>`, and return the
    reports (each with the run folder it wrote)."""
    from snail_envs.training.exploit import exploit

    reports = {}
    for spec, job in jobs.items():
        run = folder / "exploit" / file_name_part(spec)
        reports[spec] = {
            **exploit(job, run, overwrite=overwrite, command=command, progress=progress),
            "folder": str(run),
        }
    return reports


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="games", unit="game", disable=not enabled)


def main(argv: list[str] | None = None) -> Tournament:
    parser = argparse.ArgumentParser(prog="snail-eval", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--env", required=True, type=env_name, choices=snail_envs.available_env_names()
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="agents as snail_envs.agents.make_agent names them: random, heuristic, "
        "search[:N|:SECONDSs][:name=value...], ismcts[:N...], rollout[:WORLDS], ppo (shipped), "
        "ppo:PATH, rllib:PATH",
    )
    parser.add_argument(
        "--games", type=int, default=200, help="games per pairing (default: %(default)s)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seeds every pairing's games, with its two agents (default: %(default)s)",
    )
    parser.add_argument("--table", action="store_true", help="all agents at one table")
    parser.add_argument(
        "--seating",
        choices=("alternate", "one"),
        default="alternate",
        help="games of 3+ players: agents alternate seats, or one agent alone",
    )
    add_rule_options(parser)
    parser.add_argument(
        "--out",
        type=Path,
        help=f"folder for the reports ({', '.join(REPORTS)}; default: a new folder "
        f"{EVAL_DIR}/<env>-<seed>-<n>)",
    )
    parser.add_argument(
        "--save-replays",
        type=Path,
        metavar="FOLDER",
        help="also save every game as a replay (snail-replay), one file a game",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the reports already in --out and the replays in --save-replays",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate deals: play every deal (the same deck order and dice) once in each seat "
        "assignment of a pairing, and score the deals (fewer games for the same interval)",
    )
    parser.add_argument(
        "--aivat",
        type=int,
        metavar="ROLLOUTS",
        default=0,
        help="correct every game's score for the luck of its chance events (AIVAT), valued by "
        "this many rollouts a state in the batched engine (the agents themselves where it plays "
        "them, else the heuristic): unbiased, a narrower interval at equal games, at the "
        "rollouts' cost; e.g. 128",
    )
    parser.add_argument(
        "--exploit-budget",
        metavar="BUDGET",
        help="also measure each agent's exploitability lower bound with snail-exploit, this "
        "long an agent (90s, 30m, 2h); default: not measured, the report cites the stored table",
    )
    parser.add_argument(
        "--exploit-method",
        default="learned",
        help="how snail-exploit looks for the reply (default: %(default)s)",
    )
    parser.add_argument(
        "--exploit-games",
        type=int,
        default=1000,
        help="fresh games that measure each reply (default: %(default)s)",
    )
    add_trust_flag(parser)
    args = parser.parse_args(argv)
    command = shlex.join(["snail-eval", *(sys.argv[1:] if argv is None else argv)])
    with command_errors(parser.prog):
        if args.out is not None:
            refuse_existing([args.out / name for name in REPORTS], args.overwrite)
        # a bad option or agent ends the command before the progress bar starts
        snail_envs.make(args.env, **dict(args.option))
        if args.aivat < 0:
            raise ValueError(f"--aivat takes a number of rollouts, at least 1; got {args.aivat}")
        for spec in dict.fromkeys(args.agents):
            make_agent(spec, args.env, options=dict(args.option), trusted=args.trust_checkpoint)
        jobs = (
            {}
            if args.exploit_budget is None
            else exploit_jobs(
                args.env,
                args.agents,
                dict(args.option),
                args.exploit_budget,
                args.exploit_method,
                args.exploit_games,
                args.seed,
            )
        )
        tournament = run_tournament(
            args.env,
            args.agents,
            args.games,
            args.seed,
            dict(args.option),
            table=args.table,
            seating=args.seating,
            trusted=args.trust_checkpoint,
            replays=args.save_replays,
            overwrite=args.overwrite,
            command=command,
            duplicate=args.duplicate,
            aivat=args.aivat,
        )
        folder = args.out or new_run_dir(EVAL_DIR, f"{args.env}-{args.seed}")
        tournament.exploitability = measure_exploitability(
            jobs, folder, args.overwrite, command, progress=True
        )
        print(tournament.markdown())
        for path in tournament.write(folder, args.overwrite):
            print(f"wrote {path}")
        print(f"results folder: {folder}")
    return tournament


script = console_script(main)
"""The entry point of the `snail-eval` console script."""

if __name__ == "__main__":
    main()
