"""Rank agents in a tournament: round robin with seat rotation, confidence intervals, ratings.

    python -m training.evaluate --env snail_sprint_v0 --agents random heuristic ppo ismcts:100
    python -m training.evaluate --env pedzace_slimaki_v0 --agents random heuristic \\
        --games 500 -o num_players=4 --out results/pedzace

Every pair of agents plays `--games` games (`--table`: all agents at one table instead). Seats
rotate from game to game, so that no agent keeps the first seat. In games of more than two
players, the two agents of a pairing fill the seats alternately (`--seating alternate`), or each
agent in turn plays alone in one seat against the other agent in every other seat
(`--seating one`, where chance level is 1 / players). For each pairing the table gives the
score rate of each side (a win counts 1, a shared win ½) with its 95% Wilson interval, and each
side's mean game points with a 95% interval. Every game also updates an OpenSkill (Plackett–Luce)
rating of each agent; the pairings take turns game by game, so that no agent's rating depends on
when its pairings came. Results are written as Markdown, CSV and a PNG chart (`--out`, a folder
whose reports are never replaced without `--overwrite`). `--save-replays FOLDER` also keeps every
game as a replay (`agents.replay`), one file a game named after its pairing and its number
(`01-random-vs-heuristic-game001.jsonl`). The same seed gives the same tournament.
Trained policies load weights only; `--trust-checkpoint` also admits Stable-Baselines3 archives,
which are pickles (see `agents.ppo`).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import snail_envs
from agents import choose_action, make_agent
from agents.cli import add_trust_flag, command_errors
from agents.files import atomic_path, refuse_existing
from agents.replay import start_replay
from snail_envs.cli import add_rule_options
from snail_envs.core.stats import mean_interval, wilson_interval

REPORTS = ("results.md", "results.csv", "results.png")
"""The files a tournament writes in its `--out` folder."""


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
    `ppo:PATH` load pickled archives (`agents.make_agent`)."""

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
) -> GameRecord:
    """Play one game with agent `seats[i]` in seat i. The game pays win/lose rewards whatever
    `options` say (a margin or points reward is training's business): the returns say who won.
    `replay`: a file to save the game in (`agents.replay`), replaced only if `overwrite`."""
    table = {"num_players": len(seats), **options}
    played = {**table, "reward": "winlose"}
    env = snail_envs.make(env_name, **played)
    env.reset(seed=seed)
    recording = None if replay is None else start_replay(env_name, played, seed, env, seats)
    players = {
        agent: lineup.player(spec, index, seed * 101 + index, table)
        for index, (agent, spec) in enumerate(zip(env.possible_agents, seats, strict=True))
    }
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
        env.step(action)
        if recording is not None:
            recording.record(env, agent, action)
    if recording is not None:
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
    """1 if `spec` won alone, ½ if it shared the win, 0 if it lost (draws by truncation: ½)."""
    if record.truncated:
        return 0.5
    winners = {s for s, r in zip(record.seats, record.returns, strict=True) if r > 0}
    if spec not in winners:
        return 0.0
    return 1.0 if len(winners) == 1 else 0.5


@dataclass
class PairingResult:
    agents: tuple[str, ...]
    records: list[GameRecord] = field(default_factory=list)

    def score(self, spec: str) -> tuple[float, float, float]:
        """Score rate of `spec` (win 1, shared ½) with its 95% Wilson interval."""
        total = sum(game_result(record, spec) for record in self.records)
        low, high = wilson_interval(total, len(self.records))
        return total / max(1, len(self.records)), low, high

    def mean_points(self, spec: str) -> tuple[float, float, float]:
        points = [
            p
            for record in self.records
            for s, p in zip(record.seats, record.points, strict=True)
            if s == spec
        ]
        return mean_interval(points)


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

    def reported(self, pairing: PairingResult) -> tuple[str, ...]:
        """The agents of `pairing` whose results the tables show (with `one`, the lone agent)."""
        return pairing.agents[:1] if self.seating == "one" else pairing.agents

    def markdown(self) -> str:
        lines = [
            f"### {self.env_name} {self.options or ''}".rstrip(),
            "",
            "| pairing | games | score rate (95% CI) | mean points (95% CI) |",
            "|---|---:|---|---|",
        ]
        for pairing in self.pairings:
            for spec in self.reported(pairing):
                rate, low, high = pairing.score(spec)
                mean, mlow, mhigh = pairing.mean_points(spec)
                others = " vs ".join(a for a in pairing.agents if a != spec) or spec
                if self.seating == "one":
                    others += f" (×{self.options['num_players'] - 1})"
                lines.append(
                    f"| **{spec}** vs {others} | {len(pairing.records)} | "
                    f"{rate:.1%} ({low:.1%}–{high:.1%}) | {mean:.2f} ({mlow:.2f}–{mhigh:.2f}) |"
                )
        lines += ["", "| agent | rating (μ − 3σ) | μ | σ |", "|---|---:|---:|---:|"]
        for spec, (mu, sigma) in sorted(
            self.ratings.items(), key=lambda kv: -(kv[1][0] - 3 * kv[1][1])
        ):
            lines.append(f"| {spec} | {mu - 3 * sigma:.1f} | {mu:.1f} | {sigma:.2f} |")
        return "\n".join(lines) + "\n"

    def write(self, folder: Path, overwrite: bool = False) -> list[Path]:
        """Write the reports (`REPORTS`) into `folder`, each atomically; existing reports are a
        `FileExistsError` unless `overwrite`."""
        paths = [folder / name for name in REPORTS]
        refuse_existing(paths, overwrite)
        markdown, table, chart = paths
        with atomic_path(markdown, overwrite) as temporary:
            temporary.write_text(self.markdown())
        with atomic_path(table, overwrite) as temporary, temporary.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(
                [
                    "agent",
                    "opponents",
                    "games",
                    "score_rate",
                    "score_low",
                    "score_high",
                    "mean_points",
                    "points_low",
                    "points_high",
                ]
            )
            for pairing in self.pairings:
                for spec in self.reported(pairing):
                    others = " ".join(a for a in pairing.agents if a != spec)
                    writer.writerow(
                        [
                            spec,
                            others,
                            len(pairing.records),
                            *pairing.score(spec),
                            *pairing.mean_points(spec),
                        ]
                    )
        with atomic_path(chart, overwrite) as temporary:
            self.plot(temporary)
        return paths

    def plot(self, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels, rates = [], []
        errors: list[list[float]] = [[], []]
        for pairing in self.pairings:
            for spec in self.reported(pairing):
                rate, low, high = pairing.score(spec)
                others = ", ".join(a for a in pairing.agents if a != spec)
                labels.append(f"{spec}\nvs {others}" if others else spec)
                rates.append(rate)
                errors[0].append(max(0.0, rate - low))  # rounding can put a bound a hair past
                errors[1].append(max(0.0, high - rate))
        figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(labels)), 4))
        axes.bar(range(len(labels)), rates, yerr=errors, capsize=4, color="#4c8c4a")
        axes.set_xticks(range(len(labels)), labels, fontsize=8)
        axes.set_ylim(0, 1)
        axes.set_ylabel("score rate (win 1, shared ½), 95% CI")
        axes.set_title(f"{self.env_name} tournament")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)


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
) -> Tournament:
    """Play the tournament (see the module docstring); `trusted`: see `Lineup`. `replays`: a
    folder to save every game in (`replay_paths`), whose files must not exist unless
    `overwrite`."""
    if seating not in ("alternate", "one"):
        raise ValueError(f"seating must be 'alternate' or 'one'; got {seating!r}")
    from openskill.models import PlackettLuce

    options = dict(options or {})
    num_players = options.pop("num_players", None) or len(snail_envs.make(env_name).possible_agents)
    if table and len(agents) != num_players:
        raise ValueError(f"--table seats every agent at one table: give {num_players} agents")
    if not table and len(agents) < 2:
        raise ValueError("a round robin needs at least two agents")
    pairs = itertools.permutations if seating == "one" else itertools.combinations
    groups = [tuple(agents)] if table else list(pairs(agents, 2))
    model = PlackettLuce()
    ratings = {spec: model.rating(name=spec) for spec in agents}
    lineup = Lineup(env_name, trusted=trusted)
    results = [PairingResult(group) for group in groups]
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
            game_seed = seed + index * 1_000_003 + game
            record = play_game(env_name, seats, game_seed, lineup, options, replay, overwrite)
            pairing.records.append(record)
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
    )


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="games", unit="game", disable=not enabled)


def main(argv: list[str] | None = None) -> Tournament:
    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--env", required=True, choices=snail_envs.available_env_names())
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="agents as agents.make_agent names them: random, heuristic, ismcts[:N...], "
        "rollout[:WORLDS], ppo (shipped), ppo:PATH, rllib:PATH",
    )
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--table", action="store_true", help="all agents at one table")
    parser.add_argument(
        "--seating",
        choices=("alternate", "one"),
        default="alternate",
        help="games of 3+ players: agents alternate seats, or one agent alone",
    )
    add_rule_options(parser)
    parser.add_argument("--out", type=Path, help="folder for results.md, results.csv, results.png")
    parser.add_argument(
        "--save-replays",
        type=Path,
        metavar="FOLDER",
        help="also save every game as a replay (agents.replay), one file a game",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the reports already in --out and the replays in --save-replays",
    )
    add_trust_flag(parser)
    args = parser.parse_args(argv)
    with command_errors(parser.prog):
        if args.out is not None:
            refuse_existing([args.out / name for name in REPORTS], args.overwrite)
        # a bad option or agent ends the command before the progress bar starts
        snail_envs.make(args.env, **dict(args.option))
        for spec in dict.fromkeys(args.agents):
            make_agent(spec, args.env, options=dict(args.option), trusted=args.trust_checkpoint)
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
        )
        print(tournament.markdown())
        if args.out is not None:
            for path in tournament.write(args.out, args.overwrite):
                print(f"wrote {path}")
    return tournament


if __name__ == "__main__":
    main()
