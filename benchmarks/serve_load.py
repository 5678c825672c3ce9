"""How long a fresh page waits for its game while other pages' bots think as hard as allowed.

    python benchmarks/serve_load.py                       # 8 busy pages of ismcts:2000 bots
    python benchmarks/serve_load.py --pages 16 --bot search:5s --out load.json

Starts `snail-serve` (its default limits), opens `--pages` pages that each watch two `--bot`
bots (by default the heaviest Python search the limits allow) play a game with no pause, waits
until every one of them is thinking, then opens a fresh page and times it from its `start`
message to its game's first frame; `--repeats` fresh pages, one after the other. Prints (and
with `--out` writes) the times as JSON. Each page's work runs in its own worker thread, so the
fresh page waits for a share of the CPU, never for a free thread.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from snail_envs.speed_tables import add_out_arguments, check_out

ROOT = Path(__file__).resolve().parents[1]
GAME = "snail_sprint_v0"


async def open_page(url: str, seats: list[str]) -> tuple[Any, float]:
    """A page that started a game of `seats` (its first frame received), and the seconds from
    its `start` message to that frame."""
    import websockets

    connection = await websockets.connect(url, max_size=2**24)
    session = json.loads(await connection.recv())["session"]
    message = {"type": "start", "session": session, "game": GAME, "options": {}, "seed": None}
    message |= {"seats": [{"agent": spec} for spec in seats], "pace_ms": 0}
    started = time.perf_counter()
    await connection.send(json.dumps(message))
    while (answer := json.loads(await connection.recv()))["type"] != "frame":
        if answer["type"] == "error":
            raise SystemExit(f"the server refused the game: {answer['message']}")
    return connection, time.perf_counter() - started


async def measure(url: str, pages: int, bot: str, repeats: int) -> list[float]:
    busy = [(await open_page(url, [bot, bot]))[0] for _ in range(pages)]
    await asyncio.sleep(1.0)  # every busy page's first bot is searching now
    waits = []
    for _ in range(repeats):
        fresh, waited = await open_page(url, ["human", "random"])
        waits.append(waited)
        await fresh.close()
    for page in busy:
        await page.close()
    return waits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8, help="busy pages (default: 8)")
    parser.add_argument("--bot", default="ismcts:2000", help="their bots (default: ismcts:2000)")
    parser.add_argument("--repeats", type=int, default=5, help="fresh pages timed (default: 5)")
    add_out_arguments(parser, "write the results as JSON here")
    args = parser.parse_args()
    check_out(parser, args)
    command = [sys.executable, "-m", "snail_envs.apps.serve", "--port", "0"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        address = server.stdout.readline().split("playing at ")[1].split()[0]
        url = address.replace("http", "ws") + "ws"
        waits = asyncio.run(measure(url, args.pages, args.bot, args.repeats))
    finally:
        server.terminate()
        server.wait(timeout=30)
    result = {
        "busy_pages": args.pages,
        "bot": args.bot,
        "cpus": os.cpu_count(),
        "seconds_to_game": [round(wait, 3) for wait in waits],
        "median_seconds": round(statistics.median(waits), 3),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
