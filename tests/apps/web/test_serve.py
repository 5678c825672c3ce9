"""snail-serve through its WebSocket and HTTP: games, checks of every message, sessions, files."""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from snail_envs.agents import AGENT_KINDS
from snail_envs.apps.serve.app import create_app
from snail_envs.apps.serve.cli import allowed_hosts, listen, main
from snail_envs.apps.serve.replays import ReplayFolder
from snail_envs.apps.serve.settings import Settings
from snail_envs.docstrings import rulebook
from snail_envs.registry import GAMES
from snail_envs.training.config import CONFIGS
from tests.apps.web.pages import (
    LOCAL,
    QUICK_GAMES,
    REALTIME_GAME,
    SOCKET,
    TURN_GAME,
    Page,
    pile_tops,
)
from tests.apps.web.servers import running_server
from tests.names import SNAP

ROOT = Path(__file__).resolve().parents[3]
"""A game played by turns."""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The server's replay folder, where it saves games too."""
    (tmp_path / "replays").mkdir()
    return tmp_path / "replays"


@pytest.fixture
def client(folder: Path) -> Iterator[TestClient]:
    app = create_app(Settings(tick_ms=40, replays=folder, save_dir=folder))
    with TestClient(app, base_url=LOCAL) as client:
        yield client


def test_the_welcome_lists_the_games_their_options_and_rule_presets(client: TestClient) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        games = {game["name"]: game for game in Page(socket_).welcome["games"]}
    assert set(games) == set(QUICK_GAMES)
    snap = games[SNAP]
    assert snap["realtime"] and not games["snail_sprint_v0"]["realtime"]
    presets = {preset["name"]: preset for preset in snap["presets"]}
    assert "ppo" not in presets and {"classic", "equal_reflexes", "uneven_reflexes"} <= set(presets)
    assert presets["uneven_reflexes"]["reaction_delay"] == [0, 1, 2]
    noisy_sight = yaml.safe_load((CONFIGS / "snap" / "noisy_sight.yaml").read_text())
    assert presets["noisy_sight"]["options"]["glimpse_error"] == str(noisy_sight["glimpse_error"])
    assert presets["picture"]["about"].startswith("Picture Snap: a themed deck")
    options = {option["name"]: option["default"] for option in snap["options"]}
    assert "num_players" not in options and "reaction_delay" not in options
    assert options["ruleset"] == "classic" and options["reward"] == "winlose"


def test_the_welcome_describes_each_agent_and_holds_each_games_rules(client: TestClient) -> None:
    """One source each: the agents' lines are `AGENT_KINDS`, the rules the docs' "How to
    play" (`rulebook`), which `snail-play GAME --rules` prints too."""
    with client.websocket_connect(SOCKET) as socket_:
        welcome = Page(socket_).welcome
    kinds = welcome["agents"]["kinds"]
    assert kinds["heuristic"] == AGENT_KINDS["heuristic"] and "rllib" not in kinds
    assert all(spec.partition(":")[0] in kinds for spec in welcome["agents"]["suggestions"])
    for game in welcome["games"]:
        book = rulebook(game["name"])
        assert game["rules"]["title"] == book.title
        assert [(part["heading"], part["text"]) for part in game["rules"]["sections"]] == [
            (section.heading, section.body) for section in book.sections
        ]


def test_every_rule_preset_sets_a_table_as_the_page_sends_it(client: TestClient) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        for game in page.welcome["games"]:
            for preset in game["presets"]:
                players = preset["num_players"] or game["min_players"]
                table = page.start(
                    game["name"],
                    ["human", *["random"] * (players - 1)],
                    preset["options"],
                    delays=preset["reaction_delay"]
                    or ([0] * players if game["realtime"] else None),
                    pace_ms=5000,
                )
                assert len(table["seats"]) == players, preset["name"]
                page.send("stop")


@pytest.mark.parametrize("game", sorted(QUICK_GAMES))
def test_a_person_plays_each_game_to_its_end(client: TestClient, game: str) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        table = page.start(game, ["human", "heuristic"], delays=[0, 1] if game == SNAP else None)
        assert table["you"] == "player_0" and table["realtime"] == (game == SNAP)
        frames = page.play_to_the_end()
    assert all(frame["picture"].startswith("data:image/png;base64,") for frame in frames)
    assert "seen by You" in frames[0]["text"] or "You: your " in frames[0]["text"]
    assert any(frame["log"] for frame in frames)
    assert frames[-1]["status"].startswith("game over")
    assert any(line.startswith("You: ") for line in frames[-1]["result"])
    told = [frame["status"] for frame in frames] + frames[-1]["result"]
    told += [line for frame in frames for line in [*frame["log"], *frame["text"].splitlines()]]
    assert not [line for line in told if "player_" in line], "seats are named, not numbered"
    assert [seat["who"] for seat in table["seats"]] == ["You", "heuristic"]


def test_watching_bots_at_an_adjustable_pace(client: TestClient) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        table = page.start("snailed_it_v0", ["heuristic", "random", "heuristic"], pace_ms=300)
        assert table["you"] is None
        started = time.monotonic()
        page.receive("frame")
        page.receive("frame")
        assert time.monotonic() - started >= 0.25
        page.send("pace", ms=0)
        frames = page.play_to_the_end()
    assert not any(frame["moves"] for frame in frames)
    decisions = [line for frame in frames for line in frame["log"]]
    names = ("heuristic 1: ", "random: ", "heuristic 2: ")
    assert decisions and all(decision.startswith(names) for decision in decisions)
    assert "pass" not in " ".join(decisions).split(": ")


def test_snap_ticks_on_the_wall_clock_and_a_quick_call_beats_a_slow_bot(
    client: TestClient,
) -> None:
    options = {**QUICK_GAMES[SNAP], "reaction_ticks": "6"}
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        table = page.start(SNAP, ["human", "heuristic"], options, delays=[0, 5], seed=4)
        assert [key["label"] for key in table["keys"]] == ["call snap", "call snap pool"]
        page.send("act", action=table["keys"][1]["action"])  # no pool to call yet
        times, log, errors, called = [], [], [], None
        while True:
            message = socket_.receive_json()
            if message["type"] == "error":
                errors.append(message["message"])
                continue
            times.append(time.monotonic())
            log += message["log"]
            if message["over"]:
                break
            tops = pile_tops(message["text"])
            if len(set(tops)) == 1 and "--" not in tops and message["flips"] != called:
                page.send("act", action=table["keys"][0]["action"])
                called = message["flips"]
    assert "you captured" in " ".join(log)
    assert errors[0].startswith("your call was not made: player_0: action 2 is illegal now")
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(times))
    # the ticks wait for the clock (40 ms each); a loaded machine may only make them later
    assert gaps[len(gaps) // 2] >= 0.03


def test_the_slap_key_comes_with_slapjack(client: TestClient) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        table = page.start(SNAP, ["human", "random"], {"slapjack": "True"}, delays=[0, 2])
        page.send("stop")
    assert [(key["name"], key["label"]) for key in table["keys"]][-1] == ("S", "slap a Jack")


def test_the_server_reads_game_facts_and_names_no_game(client: TestClient) -> None:
    """Which game runs on the clock, its call keys and its idle moves are facts of the game
    (`GameInfo`): no environment name, and no game's own module, appears in the server."""
    with client.websocket_connect(SOCKET) as socket_:
        games = Page(socket_).welcome["games"]
    assert {game["name"]: game["realtime"] for game in games} == {
        game.env_name: game.realtime for game in GAMES
    }
    server = ROOT / "snail_envs" / "apps" / "serve"
    for source in server.glob("*.py"):
        code = source.read_text(encoding="utf-8")
        for game in GAMES:
            folder = game.env_name.rpartition("_v")[0]
            assert game.env_name not in code, source.name
            assert f"snail_envs.{folder}" not in code, source.name


def test_bad_messages_are_answered_with_errors_and_the_session_goes_on(
    client: TestClient,
) -> None:
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        socket_.send_text("{not json")
        assert page.error().startswith("a message that is not JSON")
        socket_.send_text("[1, 2]")
        assert page.error().startswith("a message is a JSON object")
        socket_.send_bytes(b"\x00")
        assert page.error() == "messages are JSON text, not binary"
        page.send("teleport")
        assert page.error().startswith("unknown message type 'teleport'")
        socket_.send_json({"type": "act", "session": "someone-else", "action": 0, "turn": 0})
        assert page.error().startswith("a message for another session")
        page.send("act", action=0, turn=0)
        assert page.error() == "no game is being played: start one"
        for game, seats, options, expected in (
            ("chess_v9", ["human", "random"], {}, "unknown game 'chess_v9'"),
            ("snail_sprint_v0", ["human"], {}, "snail_sprint_v0 seats 2 to 4 players"),
            ("snail_sprint_v0", ["human", "random"], {"colour": "red"}, "unknown options"),
            ("snail_sprint_v0", ["human", "random"], {"board": "Z"}, "the table cannot be set"),
            ("snail_sprint_v0", ["human", "wizard"], {}, "unknown agent 'wizard'"),
            ("snail_sprint_v0", ["human", "human"], {}, "one person sits at a page"),
            ("snail_sprint_v0", ["human", "ppo:/no/such/policy.pt"], {}, "the table cannot be"),
        ):
            page.send(
                "start",
                game=game,
                seats=[{"agent": a} for a in seats],
                options=options,
                seed=0,
                pace_ms=0,
            )
            assert expected in page.error()
        page.send("start", game="snail_sprint_v0", seats=[], options={}, seed=-1, pace_ms=0)
        assert "seats" in page.error()
        page.start("snail_sprint_v0", ["human", "heuristic"], seed=2)
        frame = page.receive("frame")
        while not frame["moves"]:
            frame = page.receive("frame")
        legal = {move["action"] for move in frame["moves"]}
        page.send("act", action=max(legal) + 1, turn=frame["turn"])
        assert "is illegal now; legal actions:" in page.error()
        page.send("act", action=min(legal), turn=frame["turn"] + 5)
        assert page.error() == "it is not your turn: wait for your moves to show"
        page.send("act", action=True, turn=frame["turn"])
        assert page.error().startswith("action must be an integer")
        page.send("act", action=min(legal), turn=frame["turn"])
        assert page.receive("frame")["turn"] > frame["turn"]


@pytest.mark.slow
def test_twenty_four_games_at_once_each_in_its_own_session() -> None:
    """Real connections to a real server, all playing at the same time."""
    import websockets

    async def play(url: str, seed: int) -> tuple[int, list[str]]:
        async with websockets.connect(url) as connection:
            welcome = json.loads(await connection.recv())
            session = welcome["session"]

            async def send(kind: str, **fields: Any) -> None:
                await connection.send(json.dumps({"type": kind, "session": session, **fields}))

            await send(
                "start",
                game="pedzace_slimaki_v0",
                seats=[{"agent": "human"}, {"agent": "heuristic"}],
                options=QUICK_GAMES["pedzace_slimaki_v0"],
                seed=seed,
                pace_ms=0,
            )
            while True:
                message = json.loads(await connection.recv())
                assert message["type"] in ("table", "frame"), message
                if message["type"] == "table":
                    assert message["seed"] == seed
                elif message["over"]:
                    return seed, message["result"]
                elif message["moves"]:
                    await send("act", action=message["moves"][0]["action"], turn=message["turn"])

    async def all_at_once(url: str, app: Any) -> list[tuple[int, list[str]]]:
        games = [asyncio.create_task(play(url, seed)) for seed in range(24)]
        while len(app.state.sessions) < 24 and not any(game.done() for game in games):
            await asyncio.sleep(0.01)
        assert len(app.state.sessions) == 24
        return await asyncio.gather(*games)

    with running_server(Settings()) as (address, app):
        results = asyncio.run(all_at_once(address.replace("http", "ws") + "/ws", app))
    assert [seed for seed, _ in results] == list(range(24))
    assert len({tuple(lines) for _, lines in results}) > 1  # different deals, different games


def test_a_session_idle_for_its_timeout_is_dropped(folder: Path) -> None:
    app = create_app(Settings(idle_timeout=0.4))
    with TestClient(app, base_url=LOCAL) as client, client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        for _ in range(6):  # every message keeps the session
            time.sleep(0.1)
            page.send("pace", ms=100)
        assert len(app.state.sessions) == 1
        dropped = page.receive("dropped")
        assert "sent nothing for 0.4 s" in dropped["message"]
        with pytest.raises(WebSocketDisconnect):
            socket_.receive_json()
    assert app.state.sessions == {}


def _http_get(address: str, path: str) -> tuple[int, str]:
    """A GET of `path` exactly as written (no client tidies it), and its status and body."""
    host, port = address.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("utf-8", "replace")


def test_only_the_static_folder_is_served() -> None:
    with running_server(Settings()) as (address, _):
        status, page = _http_get(address, "/")
        assert status == 200 and "<title>snail_envs" in page
        assert _http_get(address, "/static/app.js")[0] == 200
        for path in (
            "/static/../serve/app.py",
            "/static/%2e%2e/serve/app.py",
            "/static/..%2fserve%2fapp.py",
            "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
            "/static//etc/passwd",
            "/../../pyproject.toml",
            "/static/../../../../../../etc/passwd",
        ):
            status, body = _http_get(address, path)
            assert status in (400, 404), path
            assert "create_app" not in body and "root:" not in body and "[project]" not in body


def test_a_page_of_another_site_gets_no_session(client: TestClient) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(SOCKET, headers={"origin": "http://evil.example"}) as socket_,
    ):
        socket_.receive_json()
    assert refused.value.code == 1008
    with client.websocket_connect(SOCKET, headers={"origin": LOCAL}) as socket_:
        assert Page(socket_).welcome["type"] == "welcome"


def _numbers(message: Any) -> set[int]:
    """Every integer in a message, in its values or written in its texts."""
    text = json.dumps(message)
    return {int(digits) for digits in re.findall(r"\d+", text)}


@pytest.mark.parametrize("game", sorted(QUICK_GAMES))
def test_a_drawn_seed_reaches_the_page_only_when_the_game_is_over(
    client: TestClient, game: str
) -> None:
    """Every game hides something and is deterministic: its seed rebuilds every hand, and the
    bots' seeds are seed + seat. No message before the end holds one of them."""
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        delays = [0, 0] if game == REALTIME_GAME else None
        table = page.start(game, ["human", "heuristic"], delays=delays, seed=None)
        (session,) = client.app.state.sessions.values()  # type: ignore[attr-defined]
        seed = session._table.seating.seed
        secrets = {seed, seed + 1}
        assert table["seed"] is None and not secrets & _numbers(table)
        frames = page.play_to_the_end()
    assert all(not secrets & _numbers(frame) for frame in frames[:-1])
    assert frames[-1]["seed"] == seed


def test_errors_quote_little_of_a_message_and_nothing_of_the_servers_files(
    client: TestClient, tmp_path: Path
) -> None:
    (tmp_path / "list.pt").write_bytes(b"not weights")
    (tmp_path / "list.json").write_text('["secret content of a server file"]')
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        socket_.send_text('{"type": ' * 100_000 + "1" + "}" * 100_000)
        assert page.error().startswith("a message of over 100,000 characters")
        socket_.send_text("[" * 30_000 + "]" * 30_000)
        assert page.error() == "a message nested too deeply; messages are flat"
        page.send("pace", ms="x" * 60_000)
        error = page.error()
        assert error.startswith("ms must be an integer from 0 to 5000") and len(error) < 200
        for spec, expected in (
            (f"ppo:{tmp_path / 'nowhere.pt'}", "no such agent file"),
            (f"ppo:{tmp_path / 'list.pt'}", "not a weights-only policy"),
            (f"search:prior={tmp_path / 'nowhere.pt'}", "no such agent file"),
        ):
            page.send(
                "start",
                game=TURN_GAME,
                seats=[{"agent": "human"}, {"agent": spec}],
                options={},
                seed=0,
                pace_ms=0,
            )
            error = page.error()
            assert error.endswith(expected), error
            assert str(tmp_path) not in error and "secret" not in error


def test_a_rebinding_site_with_its_own_host_and_origin_is_refused(client: TestClient) -> None:
    """A site whose name leads to 127.0.0.1 sends its own name as Host, and its page as Origin:
    the server answers neither its pages nor its WebSockets."""
    rebound = "rebind.example:8000"
    answer = client.get("/", headers={"host": rebound})
    assert answer.status_code == 400 and "<title>" not in answer.text
    with (
        pytest.raises((WebSocketDisconnect, WebSocketDenialResponse)),
        client.websocket_connect(
            "/ws", headers={"host": rebound, "origin": f"http://{rebound}"}
        ) as socket_,
    ):
        socket_.receive_json()
    for origin in ("http://localhost:8000", "http://127.0.0.1:9999", "null"):
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(SOCKET, headers={"origin": origin}) as socket_,
        ):
            socket_.receive_json()
    assert client.get("/", headers={"host": "[::1]:8000"}).status_code == 200
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200


def test_the_server_answers_the_names_of_its_address() -> None:
    assert allowed_hosts("127.0.0.1", []) == ("127.0.0.1", "localhost", "[::1]")
    assert allowed_hosts("0.0.0.0", ["Snails.lan"]) == ("0.0.0.0", "snails.lan")
    assert allowed_hosts("fe80::1", []) == ("[fe80::1]",)


def test_finished_games_are_saved_as_new_replays_and_stepped_through(
    client: TestClient, folder: Path
) -> None:
    (folder / "notes.txt").write_text("not a replay")
    (folder / "broken.jsonl").write_text('{"format": "something else"}\n')
    with client.websocket_connect(SOCKET) as socket_:
        page = Page(socket_)
        page.start("pedzace_slimaki_v0", ["human", "heuristic"], seed=7)
        page.send("save")
        assert page.error() == "a game is saved once it is over"
        page.play_to_the_end()
        page.send("save")
        first = page.receive("saved")
        page.send("save")
        second = page.receive("saved")
        assert first["name"] != second["name"]  # saving again never replaces a file
        assert set(second["replays"]) == {"broken.jsonl", first["name"], second["name"]}
        page.send("open_replay", name=first["name"])
        opened = page.receive("replay")
        assert opened["env"] == "pedzace_slimaki_v0" and opened["seed"] == 7
        assert opened["agents"] == {"player_0": "human", "player_1": "heuristic"}
        assert opened["names"] == {"player_0": "You", "player_1": "heuristic"}
        shown = page.receive("replay_position")
        assert shown["index"] == 0 and shown["picture"].startswith("data:image/png")
        last = opened["count"] - 1
        for index in (2, last, 1):
            page.send("replay_step", index=index)
            shown = page.receive("replay_position")
            assert shown["index"] == index
            ending = "You: won" if index == last else f"[decision {index + 1}/"
            assert ending in shown["text"] or "You: lost" in shown["text"]
        page.send("replay_step", index=last + 1)
        assert page.error().startswith(f"index must be an integer from 0 to {last}")
        for name in ("../replays/" + first["name"], "/etc/passwd", "notes.txt"):
            page.send("open_replay", name=name)
            assert page.error().startswith(f"the replay cannot be shown: no replay {name!r}")
        page.send("open_replay", name="broken.jsonl")
        assert "not a replay" in page.error()


def test_the_replay_folder_lists_no_file_from_elsewhere(tmp_path: Path) -> None:
    inside = tmp_path / "replays"
    (inside / "nested").mkdir(parents=True)
    (inside / "game.jsonl").write_text("{}\n")
    (inside / "nested" / "deeper.jsonl").write_text("{}\n")
    (tmp_path / "secret.jsonl").write_text("{}\n")
    (inside / "link.jsonl").symlink_to(tmp_path / "secret.jsonl")
    assert ReplayFolder(inside).names() == ["game.jsonl"]


def test_mistakes_on_the_command_line_end_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for arguments, expected in (
        (["--replays", str(tmp_path / "nowhere")], "--replays: no folder at"),
        (["--tick-ms", "5"], "--tick-ms must be from 20 to 2000 milliseconds; got 5"),
        (["--idle-timeout", "0"], "--idle-timeout must be above 0 seconds"),
        (["--port", "70000"], "--port must be from 0 to 65535"),
        (["--max-bots", "0"], "--max-bots must be above 0; got 0"),
        (["--max-search-seconds", "-1"], "--max-search-seconds must be above 0; got -1.0"),
        (["--allowed-host", "*.example"], "--allowed-host names hosts, without wildcards"),
    ):
        with pytest.raises(SystemExit) as ended:
            main(arguments)
        assert ended.value.code == 1
        error = capsys.readouterr().err
        assert error.startswith("snail-serve: error: ") and expected in error
        assert error.count("\n") == 1


def test_the_command_warns_off_loopback_and_names_a_port_in_use() -> None:
    taken = listen("0.0.0.0", 0)
    port = taken.getsockname()[1]
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "snail_envs.apps.serve",
                "--host",
                "0.0.0.0",
                "--port",
                str(port),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    finally:
        taken.close()
    assert done.returncode == 1
    warning, error = done.stderr.splitlines()
    assert warning.startswith("snail-serve: warning: listening on 0.0.0.0: anyone who can reach")
    assert error == f"snail-serve: error: cannot listen on 0.0.0.0:{port}: Address already in use"


def test_the_page_ships_in_the_wheel_and_the_command_is_declared() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["snail_envs.apps"]
    for path in (ROOT / "snail_envs" / "apps" / "web").iterdir():
        assert any(fnmatch.fnmatch(f"web/{path.name}", p) for p in patterns), path.name
    assert project["project"]["scripts"]["snail-serve"] == "snail_envs.apps.serve.cli:main"
    assert "snail_envs[web]" in project["project"]["optional-dependencies"]["dev"]


def test_only_the_server_imports_the_web_libraries() -> None:
    code = (
        "import sys, snail_envs.agents, snail_envs.apps.play, snail_envs.apps.replay\n"
        "import snail_envs.apps.serve.cli\n"
        "print([m for m in ('starlette', 'uvicorn', 'websockets') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "[]", done.stderr
