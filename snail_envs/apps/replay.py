"""Replays: a played game kept as JSON lines, re-simulated and checked step by step, and shown.

    snail-play snail_sprint_v0 --seats heuristic,random --save-replay game.jsonl
    snail-replay game.jsonl                     # step through it: Enter, b, q
    snail-replay game.jsonl --no-interactive    # print it straight through
    snail-replay game.jsonl --gif game.gif --mp4 game.mp4

The format (version 1) is JSON lines, one JSON object a line, in UTF-8:

- line 1, the header: `{"format": "snail_envs.replay", "version": 1, "env": NAME,
  "options": {...}, "seed": INT, "agents": {SEAT: SPEC, ...}, "snail_envs_version": "..."}`.
  `options` are the keywords the environment was made with (`snail_envs.make(NAME, **options)`;
  tuples are written as lists, which the options accept); `seed` is the one given to `reset`;
  `agents` names who played each seat (as `snail_envs.agents.make_agent` names them; for reading
  only: a replay is re-simulated from its actions, never by the agents).
- then one line per step of the AEC environment, in order: `{"agent": SEAT, "action": INT,
  "rewards": {SEAT: FLOAT, ...}}`. `agent` is the seat that stepped, `action` its action (`null`
  for the step a finished seat takes to leave the game, as PettingZoo has it), `rewards` the
  environment's `rewards` right after the step: every seat still in the game, each with the
  reward of that step.
- the last line, the result: `{"result": {"returns": {SEAT: FLOAT, ...}, "winners": [SEAT, ...],
  "reason": STR | null, "truncated": BOOL, "points": [FLOAT, ...]}}`: each seat's return (the
  sum of its rewards), the winning seats and why the game ended (none, and `null`, when it
  stopped without an outcome: truncated, or ended by an illegal action), and each seat's points
  in the game's own scoring.

A reader of version 1 refuses any other version. The environments are exact and deterministic:
the same options, seed and actions give the same game in any process, so `check` re-plays the
recorded actions and requires every step to match (the seats of the header, then at each step
the seat to act and the rewards, then the result); the first difference is a `ReplayMismatch`
naming the step. A file that is no replay (not JSON, another format or version, an unknown
environment, a missing field) is a `ValueError` naming the file, the line and the problem.
Reading never runs code: JSON only.

The command re-simulates the replay, checks it, and shows the game in the terminal (the
environment's text view, its seats named by who played them, one decision at a time):
interactively (Enter or n: next decision, b or p: back, a number: that decision, q, Ctrl-C or
the end of input: quit), or straight through with `--no-interactive`. `--gif OUT` and
`--mp4 OUT` render the game instead (`snail_envs.apps.video`: one picture per decision); an
existing output is replaced only with `--overwrite`. A mismatch or a bad file ends the command
with one line and exit status 1.
docs/replays.md tells more.
"""

from __future__ import annotations

import argparse
import json
import math
import reprlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents.cli import command_errors, fail
from snail_envs.agents.files import refuse_existing, write_text
from snail_envs.apps.seats import seat_names
from snail_envs.apps.video import VIDEO_HINT, require_video, write_gif, write_mp4, written

FORMAT = "snail_envs.replay"
VERSION = 1
STEP_KEYS = ("agent", "action", "rewards")
RESULT_KEYS = ("returns", "winners", "reason", "truncated", "points")


class ReplayMismatch(ValueError):
    """The game re-simulated from a replay differs from what the replay recorded."""


@dataclass(frozen=True)
class Step:
    """One step of the AEC environment: who stepped, with what, and the rewards it paid."""

    agent: str
    action: int | None
    """None for the step a finished seat takes to leave the game."""
    rewards: dict[str, float]


@dataclass
class Replay:
    """One game: its table, its steps, its result. A tool records a game as it plays it
    (`record` after each step, `finish` at the end) and `save`s it."""

    env: str
    options: dict[str, Any]
    seed: int
    agents: dict[str, str]
    steps: list[Step] = field(default_factory=list)
    result: dict[str, Any] | None = None
    snail_envs_version: str = snail_envs.__version__

    @property
    def names(self) -> dict[str, str]:
        """Each seat's name as people read it ("You", "heuristic": `snail_envs.apps.seats`)."""
        return dict(zip(self.agents, seat_names(list(self.agents.values())), strict=True))

    def names_by_seat(self, seats: Sequence[str]) -> list[str]:
        """`names` in the order of `seats` (an environment's `possible_agents`), as the tables'
        pictures and text views take them."""
        names = self.names
        return [names[agent] for agent in seats]

    def record(self, env: Any, agent: str, action: int | None) -> None:
        """Add the step `agent` has just taken in `env` with `action`."""
        rewards = {seat: float(reward) for seat, reward in env.rewards.items()}
        self.steps.append(Step(agent, None if action is None else int(action), rewards))

    def finish(self, env: Any) -> Replay:
        """Record the result of the game `env` has finished."""
        self.result = game_result(env, self.steps)
        return self

    def lines(self) -> list[str]:
        header = {
            "format": FORMAT,
            "version": VERSION,
            "env": self.env,
            "options": self.options,
            "seed": self.seed,
            "agents": self.agents,
            "snail_envs_version": self.snail_envs_version,
        }
        steps = [
            json.dumps({"agent": s.agent, "action": s.action, "rewards": s.rewards})
            for s in self.steps
        ]
        return [json.dumps(header), *steps, json.dumps({"result": self.result})]

    def save(self, path: str | Path, overwrite: bool = False) -> Path:
        """Write the replay at `path`, atomically; an existing file is a `FileExistsError`
        unless `overwrite`."""
        if self.result is None:
            raise ValueError("a replay is saved once its game is finished (Replay.finish)")
        return write_text(path, "\n".join(self.lines()) + "\n", overwrite)


def start_replay(
    env_name: str, options: Mapping[str, Any], seed: int, env: Any, seats: Sequence[str]
) -> Replay:
    """A new replay of the game `env` (made with `options`, reset with `seed`), with agent
    `seats[i]` in seat i. The options are kept as the file will hold them (tuples as lists);
    options that JSON cannot hold are a `ValueError` before the game starts."""
    try:
        kept = json.loads(json.dumps(dict(options)))
    except (TypeError, ValueError) as error:
        raise ValueError(f"a replay keeps its options as JSON; these are not: {error}") from None
    return Replay(env_name, kept, seed, dict(zip(env.possible_agents, seats, strict=True)))


def game_result(env: Any, steps: list[Step]) -> dict[str, Any]:
    """The result line of a finished game (see the module docstring)."""
    host = env.unwrapped
    game = host.game
    returns = dict.fromkeys(host.possible_agents, 0.0)
    for step in steps:
        for agent, reward in step.rewards.items():
            returns[agent] += reward
    outcome = game.outcome
    return {
        "returns": returns,
        "winners": []
        if outcome is None
        else [host.possible_agents[s] for s in sorted(outcome.winners)],
        "reason": None if outcome is None else outcome.reason,
        "truncated": bool(game.truncated),
        "points": [float(points) for points in game.points()],
    }


# --------------------------------------------------------------------- reading


MAX_LINE = 1_000_000
"""The longest line a replay may have, in characters (a step's line is under a hundred)."""


def read_replay(path: str | Path) -> Replay:
    """The replay in the file at `path`, its form checked and its game re-simulated as it is
    read (see the module docstring): a bad line is a `ValueError` naming the line and the
    problem, a step that differs from the game a `ReplayMismatch`, each raised as soon as that
    line is read, the rest of the file unread. The file is read a line at a time; a line ends at
    "\n" alone (a JSON text may hold U+2028 and the like inside its strings)."""
    path = Path(path)
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise ValueError(f"{path}: not a replay (the file is empty)")
    replay = _header(path, _json_object(path, *first))
    env = _table(replay)
    last = 1
    for number, line in lines:
        if replay.result is not None:
            raise ValueError(f"{path}, line {number}: nothing may follow the result line")
        record = _json_object(path, number, line)
        last = number
        if set(record) == {"result"}:
            replay.result = _result(path, number, record["result"])
            continue
        step = _step(path, number, record)
        replay.steps.append(step)
        _check_turn(env, len(replay.steps), step)
        _play(env, len(replay.steps), step)
    if replay.result is None:
        raise ValueError(
            f"{path}: no result line after its last step, line {last} (the file is cut short?)"
        )
    _check_end(env, replay)
    return replay


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of the file at `path`, numbered from 1, each at most `MAX_LINE` characters."""
    try:
        with path.open(encoding="utf-8", newline="\n") as file:
            number = 0
            while line := file.readline(MAX_LINE + 1):
                number += 1
                if len(line) > MAX_LINE:
                    raise ValueError(
                        f"{path}, line {number}: over {MAX_LINE:,} characters, longer than any "
                        "line of a replay"
                    )
                yield number, line.removesuffix("\n")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a replay (not UTF-8 text)") from None


def _json_object(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}, line {number}: not JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}, line {number}: nested too deeply for a replay") from None
    except ValueError as error:  # an integer of more digits than Python reads
        raise ValueError(f"{path}, line {number}: not a replay's JSON ({error})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}, line {number}: a JSON object was expected, got {line[:40]!r}")
    return record


def _header(path: Path, header: dict[str, Any]) -> Replay:
    where = f"{path}, line 1"
    if header.get("format") != FORMAT:
        raise ValueError(f'{where}: not a replay (its header needs "format": "{FORMAT}")')
    version = header.get("version")
    if version != VERSION:
        raise ValueError(
            f"{where}: replay format version {reprlib.repr(version)}; this snail_envs reads "
            f"version {VERSION}"
        )
    _require(where, header, ("env", "options", "seed", "agents"))
    name = header["env"]
    _require_type(where, "env", name, str, "an environment name")
    if name not in snail_envs.available_env_names():
        try:
            snail_envs.make(name)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    _require_type(where, "options", header["options"], dict, "an object of option names")
    _require_type(where, "agents", header["agents"], dict, "an object of seats")
    if not _is_int(header["seed"]):
        raise ValueError(
            f"{where}: the seed must be an integer; got {reprlib.repr(header['seed'])}"
        )
    return Replay(
        name,
        header["options"],
        header["seed"],
        header["agents"],
        snail_envs_version=str(header.get("snail_envs_version", "unknown")),
    )


def _step(path: Path, number: int, record: dict[str, Any]) -> Step:
    where = f"{path}, line {number}"
    _require(where, record, STEP_KEYS)
    agent, action, rewards = (record[key] for key in STEP_KEYS)
    _require_type(where, "agent", agent, str, "a seat name")
    if action is not None and not _is_int(action):
        raise ValueError(f"{where}: an action is an integer or null; got {reprlib.repr(action)}")
    return Step(agent, action, _rewards(where, "rewards", rewards))


def _result(path: Path, number: int, result: Any) -> dict[str, Any]:
    where = f"{path}, line {number}"
    _require_type(where, "result", result, dict, "an object")
    _require(where, result, RESULT_KEYS)
    return {**result, "returns": _rewards(where, "returns", result["returns"])}


def _rewards(where: str, key: str, rewards: Any) -> dict[str, float]:
    numbers = isinstance(rewards, dict) and all(
        isinstance(value, (int, float)) and not isinstance(value, bool)
        for value in rewards.values()
    )
    try:
        paid = {agent: float(value) for agent, value in rewards.items()} if numbers else {}
    except OverflowError:
        numbers = False
    if not numbers or not all(math.isfinite(value) for value in paid.values()):
        raise ValueError(
            f"{where}: {key} must be an object of seats and finite numbers; got "
            f"{reprlib.repr(rewards)}"
        )
    return paid


def _require(where: str, record: dict[str, Any], keys: tuple[str, ...]) -> None:
    missing = [key for key in keys if key not in record]
    if missing:
        raise ValueError(
            f"{where}: missing {', '.join(map(repr, missing))} (a line here holds "
            f"{', '.join(map(repr, keys))})"
        )


def _require_type(where: str, key: str, value: Any, kind: type, description: str) -> None:
    if not isinstance(value, kind):
        raise ValueError(f"{where}: {key} must be {description}; got {reprlib.repr(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------- re-simulation


def simulate(replay: Replay) -> Iterator[tuple[Step | None, Any]]:
    """Re-play `replay` in a new environment: yields each recorded step with the environment
    just before it (the recorded seat is the one to act), then `(None, env)` at the end, the
    result checked. The environment is the live one: look, do not step. The first difference
    from the recording is a `ReplayMismatch` naming the step."""
    env = _table(replay)
    for number, step in enumerate(replay.steps, start=1):
        _check_turn(env, number, step)
        yield step, env
        _play(env, number, step)
    _check_end(env, replay)
    yield None, env


def _table(replay: Replay) -> Any:
    """The environment of `replay`'s header, reset, its seats checked."""
    try:
        env = snail_envs.make(replay.env, **replay.options)
        env.reset(seed=replay.seed)
    except (ValueError, TypeError) as error:
        raise ValueError(f"the replay's table cannot be set: {error}") from None
    if sorted(replay.agents) != sorted(env.possible_agents):
        raise ReplayMismatch(
            f"header (line 1): the replay seats {', '.join(replay.agents) or 'nobody'}, the game "
            f"has {', '.join(env.possible_agents)}"
        )
    return env


def _check_turn(env: Any, number: int, step: Step) -> None:
    """A `ReplayMismatch` unless step `number` is taken by the seat whose turn it is, with an
    action the game allows."""
    where = f"step {number} (line {number + 1})"
    if not env.agents:
        raise ReplayMismatch(f"{where}: the replay says {step.agent} acts, the game is over")
    if step.agent != env.agent_selection:
        raise ReplayMismatch(
            f"{where}: the replay says {step.agent} acts, the game says {env.agent_selection}"
        )
    try:
        if step.action is not None:
            env.unwrapped.check_action(step.agent, step.action)
    except ValueError as error:
        raise ReplayMismatch(f"{where}: the game refuses the action: {error}") from None


def _play(env: Any, number: int, step: Step) -> None:
    """Take step `number` in `env`; a `ReplayMismatch` unless it pays the rewards recorded."""
    where = f"step {number} (line {number + 1})"
    try:
        env.step(step.action)
    except ValueError as error:
        raise ReplayMismatch(f"{where}: the game refuses the action: {error}") from None
    if step.rewards != env.rewards:
        raise ReplayMismatch(
            f"{where}: the replay says rewards {_numbers(step.rewards)}, the game pays "
            f"{_numbers(env.rewards)}"
        )


def _check_end(env: Any, replay: Replay) -> None:
    """A `ReplayMismatch` unless the game is over after the replay's steps, with its result."""
    if env.agents:
        raise ReplayMismatch(
            f"the replay ends after step {len(replay.steps)}, the game goes on: "
            f"{env.agent_selection} is to act"
        )
    actual = game_result(env, replay.steps)
    for key in RESULT_KEYS:
        if replay.result is not None and replay.result[key] != actual[key]:
            raise ReplayMismatch(
                f"result (line {len(replay.steps) + 2}): the replay says {key} "
                f"{reprlib.repr(replay.result[key])}, the game says {actual[key]!r}"
            )


def check(replay: Replay) -> None:
    """Re-simulate `replay`; a `ReplayMismatch` names the first step that differs."""
    for _ in simulate(replay):
        pass


def _numbers(rewards: Mapping[str, float], names: Mapping[str, str] | None = None) -> str:
    named = names or {}
    paid = (f"{named.get(agent, agent)}: {value:+g}" for agent, value in rewards.items())
    return "{" + ", ".join(paid) + "}"


@dataclass(frozen=True)
class Position:
    """The table before one decision of the game (or at its end), as the replay shows it."""

    text: str
    picture: np.ndarray | None


def positions(replay: Replay, pictures: bool = False) -> Iterator[Position]:
    """Re-simulate and check `replay`, giving the table before each decision (the steps of
    finished seats, which change nothing, are left out) and at the end: its text view with the
    decision taken, and with `pictures` its `rgb_array` picture; the seats named by who played
    them (`Replay.names`)."""
    decisions = sum(step.action is not None for step in replay.steps)
    names = replay.names
    made = 0
    for step, env in simulate(replay):
        host = env.unwrapped
        seated = replay.names_by_seat(host.possible_agents)
        if step is None:
            text = f"{host.render_text(seated)}\n{describe_result(replay)}"
        elif step.action is None:
            continue
        else:
            made += 1
            paid = {agent: reward for agent, reward in step.rewards.items() if reward}
            text = (
                f"{host.render_text(seated)}\n[decision {made}/{decisions}] "
                f"{names.get(step.agent, step.agent)}: "
                f"{describe_action(host, step.agent, step.action)}"
            )
            if paid:
                text += f"\n  rewards: {_numbers(paid, names)}"
        picture = host.render_picture(seated) if pictures else None
        yield Position(text, picture)


def describe_action(host: Any, agent: str, action: int) -> str:
    """The action in the game's words; an action out of range (which a game played with
    `illegal_action="penalize"` may hold) by its number."""
    try:
        return host.action_to_string(agent, action)
    except ValueError:
        return f"action {action} (out of range: the game ends, {agent} penalized)"


def describe_result(replay: Replay) -> str:
    """Who won, each seat's return, as lines of text."""
    result = replay.result or {}
    winners = result.get("winners", [])
    names = replay.names
    lines = [
        f"{names.get(agent, agent)}: "
        f"{'won' if agent in winners else 'lost' if winners else 'no outcome'} ({total:+g})"
        for agent, total in result.get("returns", {}).items()
    ]
    if result.get("truncated"):
        lines.append("the game was truncated (a length limit stopped it)")
    return "\n".join(lines)


# --------------------------------------------------------------------- the command


def browse(
    shown: list[Position],
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> None:
    """Show the positions one at a time, moved through by lines typed: Enter or n (next), b or
    p (back), a number (the table before that decision, counted from 1; the last number is the
    end of the game), q (quit). Ctrl-C or the end of input quits too."""
    index = 0
    while True:
        write(shown[index].text)
        try:
            typed = read(
                f"[{index + 1}/{len(shown)}] Enter: next, b: back, number: go to, q: quit "
            )
        except (EOFError, KeyboardInterrupt):
            write("")
            return
        typed = typed.strip().lower()
        if typed == "q":
            return
        if typed in ("b", "p"):
            index = max(0, index - 1)
        elif typed.isdigit():
            index = min(max(int(typed), 1), len(shown)) - 1
        elif typed in ("", "n"):
            if index == len(shown) - 1:
                return
            index += 1
        else:
            write(f"{typed!r}: type Enter (next), b (back), a number (go to) or q (quit)")


def run(args: argparse.Namespace) -> None:
    """The command: check the replay, then render it (`--gif`, `--mp4`) or show it."""
    videos = [(path, writer) for path, writer in ((args.gif, "gif"), (args.mp4, "mp4")) if path]
    refuse_existing([path for path, _ in videos], args.overwrite)
    if args.mp4:
        require_video()
    replay = read_replay(args.file)
    decisions = sum(step.action is not None for step in replay.steps)
    summary = (
        f"{args.file}: {len(replay.steps)} AEC steps ({decisions} decisions) of {replay.env} "
        f"(seed {replay.seed}) re-simulated, every one as recorded"
    )
    if videos:
        pictures = [p.picture for p in positions(replay, pictures=True) if p.picture is not None]
        print(summary)
        for path, kind in videos:
            write = write_gif if kind == "gif" else write_mp4
            frames = write(path, pictures, args.overwrite, replay.agents)
            print(written(path, frames, len(pictures)))
        return
    if not args.interactive:
        for position in positions(replay):
            print(position.text + "\n")
        print(summary)
        return
    shown = list(positions(replay))
    print(summary)
    browse(shown)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="snail-replay", description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a replay (JSON lines) to re-simulate and show")
    parser.add_argument(
        "--no-interactive",
        dest="interactive",
        action="store_false",
        help="print the game straight through instead of stepping through it",
    )
    parser.add_argument("--gif", type=Path, metavar="OUT.gif", help="render the game as a GIF")
    parser.add_argument(
        "--mp4", type=Path, metavar="OUT.mp4", help="render the game as an MP4 (video extra)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace existing --gif/--mp4")
    args = parser.parse_args(argv)
    with command_errors(parser.prog):
        try:
            run(args)
        except ModuleNotFoundError as missing:
            if VIDEO_HINT not in str(missing):
                raise
            raise fail(parser.prog, str(missing)) from None


if __name__ == "__main__":
    main()
