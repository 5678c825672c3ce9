"""Every tutorial script of docs/tutorials runs at a tiny budget and prints what its page says.

A tutorial whose printed result no longer holds fails naming the tutorial and the number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snail_envs.registry import GAMES
from tests.docs.tutorials import TUTORIALS, Expect, Tutorial, TutorialFailed, run_tutorial


def positive(number: float) -> bool:
    return number > 0


def a_rate(number: float) -> bool:
    return 0 <= number <= 100


FAST = [
    Tutorial(
        "first_environment.py",
        expects=[
            Expect(r"AEC: (\d+) decisions", positive, "a positive count of decisions"),
            Expect(r"same seed, same game: True"),
            Expect(r"one decision a tick in a turn-based game: True"),
        ],
    ),
    Tutorial(
        "sb3_maskable_ppo.py",
        ["--timesteps", "256", "--games", "10"],
        [
            Expect(r"trained (\d+) timesteps", lambda n: n >= 256, "at least the 256 asked for"),
            Expect(r"illegal actions: (\d+)", lambda n: n == 0, "0: the mask is obeyed"),
            Expect(r"won (\d+) of 10 games", lambda n: 0 <= n <= 10, "a count of the 10 games"),
        ],
    ),
    Tutorial(
        "cleanrl_ppo.py",
        ["--total-timesteps", "2048", "--num-envs", "16"],
        [
            Expect(r"rollouts: (\d+)", lambda n: n == 2, "2 (2,048 steps of 16 games × 64)"),
            Expect(
                r"rollout 2: mean return of finished games ([-+]\d+\.\d+)",
                lambda r: -1 <= r <= 1,
                "a win/lose return in [-1, 1]",
            ),
        ],
    ),
    Tutorial(
        "tournament.py",
        ["--games", "20"],
        [
            Expect(r"mine vs random: ([\d.]+)%", a_rate, "a score rate in %"),
            Expect(r"mine vs heuristic: ([\d.]+)%", a_rate, "a score rate in %"),
        ],
    ),
    Tutorial(
        "replays_and_videos.py",
        ["{tmp}/game.jsonl", "{tmp}/game.gif"],
        [
            Expect(
                r"replay: (\d+) AEC steps \(\d+ decisions\) of snail_sprint_v0",
                positive,
                "a positive count of AEC steps",
            ),
            Expect(r"gif: \d+ pictures in (\d+) frames", positive, "a positive frame count"),
        ],
    ),
    Tutorial(
        "openspiel_cfr.py",
        ["--max-flips", "2", "--iterations", "20"],
        [
            Expect(
                r"exploitability of uniform random play: ([\d.]+)",
                lambda e: e > 0.1,
                "above 0.1: random play is exploitable in the mini",
            ),
            Expect(
                r"exploitability after 20 CFR\+ iterations: ([\d.]+)",
                lambda e: e <= 0.01,
                "at most 0.01: CFR+ nears a Nash equilibrium",
            ),
        ],
    ),
    Tutorial(
        "adding_a_game.py",
        expects=[Expect(r"games checked: (\d+)", lambda n: n == len(GAMES), "every game")],
    ),
]

SLOW = [
    Tutorial(
        "exploitability.py",
        ["--games", "40", "--budget", "30s", "--exploit-games", "40", "--rollouts", "64"],
        [
            Expect(r"independent games: ppo scores [\d.]+%, interval ±([\d.]+) points", positive),
            Expect(r"duplicate deals: ppo scores [\d.]+%, interval ±([\d.]+) points", positive),
            Expect(r"AIVAT chance correction: ppo scores -?[\d.]+%, interval ±([\d.]+)", positive),
            Expect(
                r"exploitability lower bound ([-+][\d.]+) points",
                lambda p: -50 <= p <= 50,
                "a score less chance, in points",
            ),
        ],
    ),
    Tutorial(
        "rllib_self_play.py",
        ["--iterations", "1", "--train-batch-size", "64", "--games", "10"],
        [Expect(r"self-play policy vs random: ([\d.]+)%", a_rate, "a score rate in %")],
    ),
]


@pytest.mark.parametrize("tutorial", FAST, ids=lambda tutorial: tutorial.script)
def test_the_tutorial_runs_and_prints_its_result(tutorial: Tutorial, tmp_path: Path) -> None:
    run_tutorial(tutorial, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("tutorial", SLOW, ids=lambda tutorial: tutorial.script)
def test_the_slow_tutorial_runs_and_prints_its_result(tutorial: Tutorial, tmp_path: Path) -> None:
    if tutorial.script.startswith("rllib"):
        pytest.importorskip("ray.rllib")
    run_tutorial(tutorial, tmp_path, timeout=300)


def test_every_tutorial_script_is_run_by_a_test_and_shown_on_a_page() -> None:
    scripts = {path.name for path in TUTORIALS.glob("*.py")}
    assert scripts == {tutorial.script for tutorial in FAST + SLOW}
    for script in scripts:
        page = TUTORIALS / script.replace(".py", ".md")
        assert f'--8<-- "{script}"' in page.read_text(), f"{page.name} shows {script}"


def test_a_result_that_no_longer_holds_names_the_tutorial_and_the_number(tmp_path) -> None:
    wrong = Tutorial(
        "first_environment.py",
        expects=[Expect(r"AEC: (\d+) decisions", lambda n: n > 10**6, "above a million")],
    )
    with pytest.raises(TutorialFailed, match=r"^first_environment.py: 'AEC: \d+ decisions'"):
        run_tutorial(wrong, tmp_path)
