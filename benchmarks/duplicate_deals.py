"""How much duplicate deals narrow `snail-eval`'s intervals: the shipped clone vs the heuristic.

    python benchmarks/duplicate_deals.py --games 400
    python benchmarks/duplicate_deals.py --games 400 --out duplicate.json

For each game with a shipped policy (`ppo`) and a heuristic, the two play `--games` games twice:
dealt one by one (the score rate's 95% Wilson interval), then as duplicate deals (`--duplicate`:
`--games` / 2 deals, each played with the seats both ways; the normal interval over the deals'
mean scores). The table gives both half-widths, their ratio (the factor by which duplicate
deals narrow the interval at equal games) and its square (the factor fewer games duplicate deals
need for the same width), with the CPU seconds of each tournament. It also gives the half-width
of the independent games with an AIVAT-style control variate (`controlled`).

    python benchmarks/duplicate_deals.py --games 400 --seeds 10 --out variate-bias.json

`--seeds N` checks instead that the control variate is unbiased: for each of N seeds from
`--seed`, the clone's plain score rate and its controlled estimate on the same games; the mean of
their differences over the seeds, with its 95% interval, should hold 0.

    python benchmarks/duplicate_deals.py --games 400 --aivat 128 --out aivat.json
    python benchmarks/duplicate_deals.py --games 200 --seeds 10 --aivat 128 --out aivat-bias.json

`--aivat ROLLOUTS` measures `snail-eval --aivat` instead (AIVAT's chance correction,
`snail_envs.training.aivat`): the half-widths of the games dealt one by one and as duplicate
deals, each without and with the correction, the narrowing of each against the plain games',
and the CPU seconds of the tournaments without and with it; with `--seeds`, its bias check.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from typing import Any

from snail_envs.agents import HEURISTICS
from snail_envs.agents.ppo import shipped_checkpoint
from snail_envs.core.game import GameInfo
from snail_envs.core.stats import mean_interval
from snail_envs.registry import GAMES
from snail_envs.speed_tables import add_out_arguments, check_out
from snail_envs.training.aivat import narrowing_markdown
from snail_envs.training.evaluate import (
    GameRecord,
    Lineup,
    PairingResult,
    game_result,
    pairing_seed,
    play_game,
    run_tournament,
)

AGENTS = ("ppo", "heuristic")


def half_width(
    env_name: str, games: int, seed: int, duplicate: bool, variate: bool = True
) -> dict[str, Any]:
    """The clone's score rate against the heuristic, its interval's half-width, CPU seconds;
    without `duplicate`, also with the heuristic-against-heuristic control variate (`variate`)."""
    start = time.process_time()
    tournament = run_tournament(
        env_name, list(AGENTS), games, seed, progress=False, duplicate=duplicate
    )
    ((first, _),) = tournament.rows()
    rate, low, high = first.score()
    result: dict[str, Any] = {
        "score_rate": rate,
        "half_width": (high - low) / 2,
        "cpu_seconds": time.process_time() - start,
    }
    if variate and not duplicate:
        result["control_variate"] = controlled(env_name, first.pairing.records, seed)
    return result


def aivat_widths(env_name: str, games: int, seed: int, rollouts: int) -> dict[str, Any]:
    """The clone's score rate against the heuristic and its interval's half-width, from games
    dealt one by one and from duplicate deals, each without and with AIVAT's chance correction
    (`rollouts` a state), with the CPU seconds of each tournament."""
    cells: dict[str, Any] = {}
    for duplicate in (False, True):
        raw_name = "duplicate" if duplicate else "plain"
        cells[raw_name] = half_width(env_name, games, seed, duplicate, variate=False)
        start = time.process_time()
        tournament = run_tournament(
            env_name, list(AGENTS), games, seed, progress=False, duplicate=duplicate, aivat=rollouts
        )
        ((first, _),) = tournament.rows()
        pairing = first.pairing
        uncorrected = PairingResult(pairing.agents, pairing.records, pairing.deal_size)
        if uncorrected.score("ppo")[0] != cells[raw_name]["score_rate"]:
            raise RuntimeError(f"{env_name}: the corrected tournament played other games")
        rate, low, high = first.score()
        cells[f"aivat_{raw_name}"] = {
            "score_rate": rate,
            "half_width": (high - low) / 2,
            "cpu_seconds": time.process_time() - start,
            "estimator": pairing.estimator,
        }
    plain_width = cells["plain"]["half_width"]
    for name in ("duplicate", "aivat_plain", "aivat_duplicate"):
        width = cells[name]["half_width"]
        cells[name]["narrower"] = plain_width / width if width else math.inf
    return {"rollouts": rollouts, **cells}


def controlled(env_name: str, records: list[GameRecord], seed: int) -> dict[str, float]:
    """AIVAT-style control variate on independent games: from each game's result of the clone,
    subtract the result the heuristic gets in the clone's seats when it plays every seat of the
    same deal, less its expectation ½ (the seats rotate evenly, and the two sides' results of a
    game sum to 1), so that the estimate stays unbiased; its normal interval."""
    start = time.process_time()
    lineup = Lineup(env_name)
    first_seed = pairing_seed(seed, AGENTS)
    values = []
    for game, record in enumerate(records):
        table = {"num_players": len(record.seats)}
        mirror = play_game(
            env_name, ["heuristic"] * len(record.seats), first_seed + game, lineup, table
        )
        mirror.seats = ["clone" if seat == "ppo" else "other" for seat in record.seats]
        values.append(game_result(record, "ppo") - game_result(mirror, "clone") + 0.5)
    mean, low, high = mean_interval(values)
    return {
        "score_rate": mean,
        "half_width": (high - low) / 2,
        "cpu_seconds": time.process_time() - start,
    }


def variate_bias(
    env_name: str, games: int, first_seed: int, seeds: int, rollouts: int = 0
) -> dict[str, Any]:
    """For each of `seeds` seeds from `first_seed`, the clone's plain score rate against the
    heuristic and the control variate's estimate from the same games (with `rollouts`, AIVAT's
    chance correction with that many rollouts a state instead); the mean of the differences
    (controlled less plain) over the seeds with its 95% interval, and CPU seconds."""
    start = time.process_time()
    plain, controlled_rates = [], []
    for seed in range(first_seed, first_seed + seeds):
        if rollouts:
            tournament = run_tournament(
                env_name, list(AGENTS), games, seed, progress=False, aivat=rollouts
            )
            ((first, _),) = tournament.rows()
            records = first.pairing.records
            plain.append(sum(game_result(record, "ppo") for record in records) / len(records))
            controlled_rates.append(first.score()[0])
            continue
        result = half_width(env_name, games, seed, duplicate=False)
        plain.append(result["score_rate"])
        controlled_rates.append(result["control_variate"]["score_rate"])
    differences = [c - p for c, p in zip(controlled_rates, plain, strict=True)]
    return {
        "plain": plain,
        "controlled": controlled_rates,
        "difference": list(mean_interval(differences)),
        "cpu_seconds": time.process_time() - start,
    }


def measured_games(only: list[str] | None, columns: int) -> Iterator[GameInfo]:
    """The games (of `only`, or all) with a heuristic and a shipped policy; for each other one a
    table row of `columns` cells saying why it is left out."""
    for game in GAMES:
        if only and game.env_name not in only:
            continue
        if game.env_name in HEURISTICS and shipped_checkpoint(game.env_name).is_file():
            yield game
        else:
            blanks = " |" * (columns - 3)
            print(f"| {game.title} | — | no shipped policy for {game.env_name} |{blanks}")


def main_bias(args: argparse.Namespace) -> None:
    """`--seeds`: the control variate's bias check, a row a game."""
    results = {}
    print(
        "| game | games a seed | seeds | clone's score, plain (mean) | controlled (mean) "
        "| controlled − plain (95%) | holds 0 | CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for game in measured_games(args.env, columns=8):
        cell = variate_bias(game.env_name, args.games, args.seed, args.seeds, args.aivat)
        results[game.env_name] = cell
        print(bias_row(game.title, args.games, args.seeds, cell), flush=True)
    if args.out is not None:
        args.out.write_text(
            json.dumps(
                {
                    "games": args.games,
                    "seed": args.seed,
                    "seeds": args.seeds,
                    "variate": f"aivat:{args.aivat}" if args.aivat else "heuristic",
                    **results,
                },
                indent=2,
            )
        )


def bias_row(title: str, games: int, seeds: int, cell: dict[str, Any]) -> str:
    """One game's row of the bias check."""
    mean, low, high = cell["difference"]
    plain = sum(cell["plain"]) / len(cell["plain"])
    controlled_rate = sum(cell["controlled"]) / len(cell["controlled"])
    return (
        f"| {title} | {games:,} | {seeds} | {plain:.1%} | {controlled_rate:.1%} "
        f"| {mean:+.2%} ({low:+.2%} to {high:+.2%}) | {'yes' if low <= 0 <= high else 'no'} "
        f"| {cell['cpu_seconds']:.0f} |"
    )


def main_aivat(args: argparse.Namespace) -> None:
    """`--aivat`: the half-widths without and with the chance correction, a row a game (the
    table the docs show of its `--out` record, `narrowing_markdown`)."""
    record: dict[str, Any] = {"games": args.games, "seed": args.seed, "rollouts": args.aivat}
    for game in measured_games(args.env, columns=9):
        record[game.env_name] = aivat_widths(game.env_name, args.games, args.seed, args.aivat)
        print(f"{game.title}: measured", file=sys.stderr, flush=True)
    print(narrowing_markdown(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games of each tournament (even)")
    parser.add_argument("--seed", type=int, default=0)
    add_out_arguments(parser, "also write the results as JSON")
    parser.add_argument("--env", nargs="+", help="only these games (default: every game)")
    parser.add_argument(
        "--seeds", type=int, help="check the control variate's bias over this many seeds instead"
    )
    parser.add_argument(
        "--aivat",
        type=int,
        default=0,
        metavar="ROLLOUTS",
        help="measure AIVAT's chance correction with this many rollouts a state instead",
    )
    args = parser.parse_args()
    check_out(parser, args)
    if args.aivat < 0:
        parser.error(f"--aivat takes a number of rollouts, at least 1; got {args.aivat}")
    if args.seeds is not None:
        if args.seeds < 2:
            parser.error(f"--seeds needs at least 2 seeds for an interval; got {args.seeds}")
        main_bias(args)
        return
    if args.aivat:
        main_aivat(args)
        return
    results = {}
    print(
        "| game | games | clone's score, plain | ± plain | ± duplicate | narrower "
        "| fewer games | ± control variate (score) | CPU s plain / duplicate / variate |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for game in measured_games(args.env, columns=9):
        plain = half_width(game.env_name, args.games, args.seed, duplicate=False)
        duplicate = half_width(game.env_name, args.games, args.seed, duplicate=True)
        ratio = (
            plain["half_width"] / duplicate["half_width"] if duplicate["half_width"] else math.inf
        )
        results[game.env_name] = {"plain": plain, "duplicate": duplicate, "narrower": ratio}
        variate = plain["control_variate"]
        seconds = (plain["cpu_seconds"], duplicate["cpu_seconds"], variate["cpu_seconds"])
        print(
            f"| {game.title} | {args.games} | {plain['score_rate']:.1%} | "
            f"{plain['half_width']:.1%} | {duplicate['half_width']:.1%} | {ratio:.2f}× | "
            f"{ratio**2:.1f}× | {variate['half_width']:.1%} ({variate['score_rate']:.1%}) | "
            f"{' / '.join(f'{s:.0f}' for s in seconds)} |",
            flush=True,
        )
    if args.out is not None:
        args.out.write_text(
            json.dumps({"games": args.games, "seed": args.seed, **results}, indent=2)
        )


if __name__ == "__main__":
    main()
