"""Replays: saved games re-simulate exactly, every edit is caught, bad files are named, views."""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import snail_envs
from snail_envs.apps import replay as replays
from snail_envs.apps.play import main as play_main
from snail_envs.apps.play import play_game
from snail_envs.apps.replay import (
    Replay,
    ReplayMismatch,
    browse,
    check,
    positions,
    read_replay,
    start_replay,
)
from tests.names import SNAP

ROOT = Path(__file__).resolve().parents[2]
PROG = "snail-replay"


def saved_game(folder: Path, env_name: str, seats: str = "random,random", seed: int = 0) -> Path:
    path = folder / f"{env_name}-{seed}.jsonl"
    play_game(env_name, seats.split(","), seed=seed, show=False, save_replay=path)
    return path


def replay_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line `snail-replay` ends with (exit status 1)."""
    with pytest.raises(SystemExit) as stopped:
        replays.main(argv)
    error = capsys.readouterr().err
    assert stopped.value.code == 1 and error.count("\n") == 1, error
    assert error.startswith(f"{PROG}: error: ")
    return error.removeprefix(f"{PROG}: error: ").strip()


def edited(path: Path, line: int, change: dict) -> Path:
    """A copy of the replay at `path` with the JSON object of `line` (from 1) updated."""
    lines = path.read_text().splitlines()
    lines[line - 1] = json.dumps({**json.loads(lines[line - 1]), **change})
    copy = path.with_name(f"edited-{path.name}")
    copy.write_text("\n".join(lines) + "\n")
    return copy


@pytest.mark.parametrize("env_name", snail_envs.ENV_NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_saved_game_re_simulates_as_recorded(
    tmp_path: Path, env_name: str, seed: int
) -> None:
    seats = "random,random,random" if seed == 2 else "random,random"
    path = saved_game(tmp_path, env_name, seats, seed)
    replay = read_replay(path)
    check(replay)
    assert replay.env == env_name and replay.seed == seed
    assert replay.options == {"num_players": len(seats.split(","))}
    assert replay.agents == dict.fromkeys(replay.agents, "random")
    assert replay.lines() == path.read_text().splitlines()
    result = replay.result
    assert result is not None and set(result["returns"]) == set(replay.agents)
    assert result["returns"] == {
        agent: sum(step.rewards.get(agent, 0.0) for step in replay.steps) for agent in replay.agents
    }


def test_the_replay_holds_the_header_every_step_and_the_result(tmp_path: Path) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0", "heuristic,random", seed=3)
    header, first, *_, last_step, result = map(json.loads, path.read_text().splitlines())
    assert header == {
        "format": "snail_envs.replay",
        "version": 1,
        "env": "snail_sprint_v0",
        "options": {"num_players": 2},
        "seed": 3,
        "agents": {"player_0": "heuristic", "player_1": "random"},
        "snail_envs_version": snail_envs.__version__,
    }
    assert first["agent"] == "player_0" and isinstance(first["action"], int)
    assert first["rewards"] == {"player_0": 0.0, "player_1": 0.0}
    assert last_step["action"] is None and len(last_step["rewards"]) == 0  # the last seat leaves
    returns = play_game("snail_sprint_v0", ["heuristic", "random"], seed=3, show=False)
    assert result["result"]["returns"] == returns
    assert result["result"]["winners"] == [a for a, r in returns.items() if r > 0]
    assert set(result["result"]) == {"returns", "winners", "reason", "truncated", "points"}


def recorded(env_name: str, choose, seed: int = 0, **options: object) -> Replay:
    """A game of `env_name` with these options, each action `choose(env, agent)`, recorded."""
    env = snail_envs.make(env_name, **options)
    env.reset(seed=seed)
    replay = start_replay(env_name, options, seed, env, ["script"] * len(env.possible_agents))
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        action = None if terminated or truncated else choose(env, agent)
        env.step(action)
        replay.record(env, agent, action)
    return replay.finish(env)


def first_legal(env, agent: str) -> int:
    return env.unwrapped.legal_actions(agent)[0]


def test_a_truncated_game_replays_with_no_winner(tmp_path: Path) -> None:
    replay = recorded("snail_sprint_v0", first_legal, max_turns=4, reward="points")
    assert replay.result["truncated"] and replay.result["winners"] == []
    assert replay.result["reason"] is None
    check(read_replay(replay.save(tmp_path / "game.jsonl")))
    assert "script 1: no outcome" in list(positions(replay))[-1].text


def test_a_game_ended_by_a_penalized_illegal_action_replays(tmp_path: Path) -> None:
    decisions = []

    def illegal_at_the_third_decision(env, agent: str) -> int:
        legal = env.unwrapped.legal_actions(agent)
        decisions.append(agent)
        if len(decisions) < 3:
            return legal[0]
        return next(action for action in range(99) if action not in legal)

    replay = recorded(
        "pedzace_slimaki_v0", illegal_at_the_third_decision, illegal_action="penalize"
    )
    offender = next(agent for agent, total in replay.result["returns"].items() if total < 0)
    assert sorted(replay.result["returns"].values()) == [-1.0, 0.0]
    check(read_replay(replay.save(tmp_path / "game.jsonl")))
    assert f"{replay.names[offender]}: no outcome (-1)" in list(positions(replay))[-1].text


def test_a_replay_re_simulates_alike_in_another_process(tmp_path: Path) -> None:
    path = saved_game(tmp_path, SNAP, "heuristic,random", seed=5)
    command = [sys.executable, "-m", "snail_envs.apps.replay", str(path), "--no-interactive"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("re-simulated, every one as recorded")


def test_an_illegal_action_in_the_replay_is_named_by_its_step(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    error = replay_error([str(edited(path, 4, {"action": 99})), "--no-interactive"], capsys)
    assert error.startswith("step 3 (line 4): the game refuses the action: player_0: action 99")
    assert "legal actions:" in error


def test_a_changed_reward_is_named_by_its_step(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    changed = edited(path, 2, {"rewards": {"player_0": 1.0, "player_1": 0.0}})
    assert replay_error([str(changed), "--no-interactive"], capsys) == (
        "step 1 (line 2): the replay says rewards {player_0: +1, player_1: +0}, "
        "the game pays {player_0: +0, player_1: +0}"
    )


def test_a_changed_seat_is_named_by_its_step(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "pedzace_slimaki_v0")
    acting = json.loads(path.read_text().splitlines()[5])["agent"]
    other = "player_1" if acting == "player_0" else "player_0"
    error = replay_error([str(edited(path, 6, {"agent": other})), "--no-interactive"], capsys)
    assert error == f"step 5 (line 6): the replay says {other} acts, the game says {acting}"


def test_a_header_whose_seats_are_not_the_games_is_caught(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    changed = edited(path, 1, {"options": {"num_players": 3}})
    assert replay_error([str(changed), "--no-interactive"], capsys) == (
        "header (line 1): the replay seats player_0, player_1, the game has player_0, player_1, "
        "player_2"
    )
    changed = edited(path, 1, {"options": {"num_players": 9}})
    assert replay_error([str(changed)], capsys) == (
        "the replay's table cannot be set: num_players must be an integer from 2 to 4; got 9"
    )


def test_a_changed_result_and_missing_steps_are_caught(tmp_path: Path) -> None:
    path = saved_game(tmp_path, "snailed_it_v0")
    replay = read_replay(path)
    winners = replay.result["winners"]
    replay.result = {**replay.result, "winners": [a for a in replay.agents if a not in winners]}
    with pytest.raises(ReplayMismatch, match=r"^result \(line \d+\): the replay says winners"):
        check(replay)
    replay = read_replay(path)
    del replay.steps[-3:]
    with pytest.raises(ReplayMismatch, match=r"ends after step \d+, the game goes on: player_"):
        check(replay)
    replay = read_replay(path)
    replay.steps.append(replay.steps[-1])
    with pytest.raises(ReplayMismatch, match=r"acts, the game is over$"):
        check(replay)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", ": not a replay (the file is empty)"),
        ("this is no replay\n", ", line 1: not JSON (Expecting value)"),
        ("[1, 2]\n", ", line 1: a JSON object was expected"),
        ('{"format": "something else"}\n', ', line 1: not a replay (its header needs "format"'),
        (
            '{"format": "snail_envs.replay", "version": 2}\n',
            ", line 1: replay format version 2; this snail_envs reads version 1",
        ),
        (
            '{"format": "snail_envs.replay", "version": 1, "env": "chess_v0", "options": {}, '
            '"seed": 0, "agents": {}}\n',
            f", line 1: unknown environment 'chess_v0'; environments: {SNAP}",
        ),
        (
            '{"format": "snail_envs.replay", "version": 1, "env": "snap_v1", "options": {}, '
            '"seed": 0, "agents": {}}\n',
            f", line 1: snap_v1 is now deprecated, use {SNAP} instead",
        ),
        (
            f'{{"format": "snail_envs.replay", "version": 1, "env": "{SNAP}", "seed": 0}}\n',
            ", line 1: missing 'options', 'agents'",
        ),
        (
            f'{{"format": "snail_envs.replay", "version": 1, "env": "{SNAP}", "options": {{}}, '
            '"seed": "zero", "agents": {}}\n',
            ", line 1: the seed must be an integer; got 'zero'",
        ),
    ],
)
def test_a_bad_file_ends_the_command_with_one_line(
    tmp_path: Path, content: str, problem: str, capsys
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    assert replay_error([str(path)], capsys).startswith(f"{path}{problem}")


def test_bad_lines_after_the_header_are_named(tmp_path: Path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")
    assert replay_error([str(cut)], capsys) == (
        f"{cut}: no result line after its last step, line {len(lines) - 1} (the file is cut short?)"
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:3], '{"agent": "player_0"', *lines[3:]]) + "\n")
    assert replay_error([str(broken)], capsys).startswith(f"{broken}, line 4: not JSON")
    assert replay_error([str(edited(path, 3, {"action": "up"}))], capsys).endswith(
        "line 3: an action is an integer or null; got 'up'"
    )
    without = tmp_path / "without.jsonl"
    without.write_text("\n".join([*lines[:2], '{"agent": "player_1"}', *lines[2:]]) + "\n")
    assert replay_error([str(without)], capsys) == (
        f"{without}, line 3: missing 'action', 'rewards' (a line here holds 'agent', 'action', "
        "'rewards')"
    )
    binary = tmp_path / "game.gif"
    binary.write_bytes(b"GIF89a\x00\xff\xfe")
    assert replay_error([str(binary)], capsys) == f"{binary}: not a replay (not UTF-8 text)"
    assert replay_error([str(tmp_path / "nowhere.jsonl")], capsys).startswith("[Errno 2]")


def test_deep_lines_huge_numbers_and_long_lines_end_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    lines = path.read_text().splitlines()

    def with_line_3(text: str) -> str:
        changed = tmp_path / "changed.jsonl"
        changed.write_text("\n".join([*lines[:2], text, *lines[3:]]) + "\n")
        return str(changed)

    assert replay_error([with_line_3("[" * 200_000 + "]" * 200_000)], capsys).endswith(
        "line 3: nested too deeply for a replay"
    )
    huge = json.loads(lines[2])
    huge["rewards"] = dict.fromkeys(huge["rewards"], 0)
    text = json.dumps(huge).replace(": 0", ": 1" + "0" * 400, 1)
    assert "line 3: rewards must be an object of seats and finite numbers" in replay_error(
        [with_line_3(text)], capsys
    )
    assert "line 3: not a replay's JSON" in replay_error([with_line_3("9" * 5000)], capsys)
    monkeypatch.setattr(replays, "MAX_LINE", 60)  # the header is longer
    assert replay_error([str(path)], capsys) == (
        f"{path}, line 1: over 60 characters, longer than any line of a replay"
    )


def test_a_line_separator_inside_a_string_is_no_line_break(tmp_path: Path) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["snail_envs_version"] = "a\u2028b\u2029c\x85d"
    path.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n")
    assert "\u2028" in path.read_text(encoding="utf-8")
    assert read_replay(path).snail_envs_version == "a\u2028b\u2029c\x85d"


def test_reading_stops_at_the_first_step_that_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lines after a step that differs from the game are never read."""
    path = edited(saved_game(tmp_path, "snail_sprint_v0"), 2, {"agent": "player_1"})
    with path.open("a") as file:
        file.write("not JSON, and never read\n" * 10)
    assert replay_error([str(path)], capsys).startswith(
        "step 1 (line 2): the replay says player_1 acts"
    )


def test_no_interactive_prints_every_decision_then_the_result(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0", "heuristic,random", seed=3)
    replays.main([str(path), "--no-interactive"])
    out = capsys.readouterr().out
    decisions = sum(step.action is not None for step in read_replay(path).steps)
    assert out.count("[decision ") == decisions
    assert f"[decision 1/{decisions}] heuristic: " in out
    assert "heuristic: lost (-1)\nrandom: won (+1)" in out
    assert out.rstrip().endswith(
        f"{path}: {len(read_replay(path).steps)} AEC steps ({decisions} decisions) of "
        "snail_sprint_v0 (seed 3) re-simulated, every one as recorded"
    )


def test_the_interactive_view_steps_forward_and_back(tmp_path: Path) -> None:
    shown = list(positions(read_replay(saved_game(tmp_path, "snail_sprint_v0"))))
    typed = iter(["", "n", "b", "x", "3", "q"])
    written: list[str] = []
    browse(shown, read=lambda prompt: next(typed), write=written.append)
    texts = [text for text in written if not text.startswith("'x'")]
    assert texts == [shown[i].text for i in (0, 1, 2, 1, 1, 2)]
    assert "'x': type Enter (next), b (back), a number (go to) or q (quit)" in written


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_the_interactive_view_ends_cleanly_at_the_end_of_input_or_ctrl_c(
    tmp_path: Path, stop: type[BaseException], monkeypatch, capsys
) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")

    class Keyboard(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise stop

    monkeypatch.setattr("sys.stdin", Keyboard())
    replays.main([str(path)])
    assert "every one as recorded" in capsys.readouterr().out


def test_the_interactive_view_ends_after_the_last_position(tmp_path: Path) -> None:
    shown = list(positions(read_replay(saved_game(tmp_path, "pedzace_slimaki_v0"))))
    written: list[str] = []
    browse(shown, read=lambda prompt: "", write=written.append)
    assert written == [position.text for position in shown]
    assert "won" in shown[-1].text


def test_the_gif_holds_one_frame_per_change_of_the_table(tmp_path, capsys) -> None:
    """Snap's reaction windows show several decisions on an unchanged table: Pillow stores such
    pictures as one longer frame, and the command says how many frames it wrote."""
    from PIL import Image

    path = saved_game(tmp_path, SNAP, seed=1)
    pictures = [p.picture for p in positions(read_replay(path), pictures=True)]
    changes = 1 + sum(not np.array_equal(a, b) for a, b in itertools.pairwise(pictures))
    assert changes < len(pictures)
    gif = tmp_path / "game.gif"
    replays.main([str(path), "--gif", str(gif)])
    assert f"wrote {gif}: {len(pictures)} pictures of the table in {changes} frames" in (
        capsys.readouterr().out
    )
    with Image.open(gif) as written:
        assert written.n_frames == changes
        durations = []
        for frame in range(written.n_frames):
            written.seek(frame)
            durations.append(written.info["duration"])
    assert sum(durations) == 700 * (len(pictures) - 1) + 2500
    assert durations[-1] >= 2000


def test_gif_frames_name_the_agents_under_the_table(tmp_path) -> None:
    """Each frame is the picture of the table with a strip below it naming the seats' agents."""
    from PIL import Image

    from snail_envs.apps.video import CAPTION_HEIGHT, write_gif

    path = saved_game(tmp_path, "snail_sprint_v0")
    pictures = [p.picture for p in positions(read_replay(path), pictures=True)]
    gif = tmp_path / "game.gif"
    replays.main([str(path), "--gif", str(gif)])
    plain = tmp_path / "plain.gif"
    write_gif(plain, pictures)
    with Image.open(gif) as named, Image.open(plain) as unnamed:
        height, width = pictures[0].shape[:2]
        assert named.size == (width, height + CAPTION_HEIGHT)
        assert unnamed.size == (width, height)
        strip = np.asarray(named.convert("RGB"))[height:]
        assert (strip < 128).any(), "the caption strip holds text"


def test_play_reports_the_frames_its_gif_holds(tmp_path, capsys) -> None:
    from PIL import Image

    gif = tmp_path / "game.gif"
    play_main([SNAP, "--seats", "random,random", "--seed", "1", "--record", str(gif)])
    line = capsys.readouterr().out.splitlines()[-1]
    with Image.open(gif) as written:
        assert line.startswith(f"wrote {gif}: ") and f" in {written.n_frames} frames" in line


def test_outputs_are_never_replaced_unasked(tmp_path, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    gif = tmp_path / "game.gif"
    gif.write_bytes(b"mine")
    assert replay_error([str(path), "--gif", str(gif)], capsys) == (
        f"{gif} exists already; give --overwrite (overwrite=True) to replace it"
    )
    assert gif.read_bytes() == b"mine"
    replays.main([str(path), "--gif", str(gif), "--overwrite"])
    assert gif.read_bytes().startswith(b"GIF")
    arguments = ["snail_sprint_v0", "--seats", "random,random", "--save-replay", str(path)]
    with pytest.raises(SystemExit) as refused:
        play_main(arguments)
    assert refused.value.code == 1 and "exists already" in capsys.readouterr().err
    before = path.read_text()
    play_main([*arguments, "--seed", "4", "--overwrite"])
    assert path.read_text() != before and read_replay(path).seed == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.gif", path.name]


@pytest.mark.skipif(
    importlib.util.find_spec("imageio_ffmpeg") is None, reason="needs the video extra"
)
def test_the_mp4_holds_one_frame_per_decision(tmp_path: Path, capsys) -> None:
    import imageio.v2 as imageio

    path = saved_game(tmp_path, "pedzace_slimaki_v0")
    pictures = [p.picture for p in positions(read_replay(path), pictures=True)]
    video = tmp_path / "game.mp4"
    replays.main([str(path), "--mp4", str(video)])
    assert f"wrote {video}: {len(pictures)} pictures of the table in {len(pictures)} frames" in (
        capsys.readouterr().out
    )
    with imageio.get_reader(video) as reader:
        assert reader.count_frames() == len(pictures)


def test_mp4_without_the_video_extra_says_what_to_install(tmp_path, monkeypatch, capsys) -> None:
    path = saved_game(tmp_path, "snail_sprint_v0")
    monkeypatch.setattr("snail_envs.apps.video.importlib.util.find_spec", lambda name: None)
    assert replay_error([str(path), "--mp4", str(tmp_path / "game.mp4")], capsys) == (
        "MP4 videos need imageio and imageio-ffmpeg: pip install 'snail_envs[video]' "
        "(imageio is not installed)"
    )
    assert not (tmp_path / "game.mp4").exists()
