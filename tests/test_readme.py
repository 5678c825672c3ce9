"""The README's two commands: the test command is the one CI runs, and the main job works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from snail_envs import demo

ROOT = Path(__file__).parents[1]


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text())


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    (command,) = re.findall(r"^TEST_COMMAND='(.+)'$", ci, flags=re.MULTILINE)
    assert command in readme_commands()
    assert re.search(r"&& pytest( -n auto --maxprocesses \d+)?$", command)


def test_the_main_job_trains_a_game_that_has_a_config() -> None:
    main_job = readme_commands()[0]
    call = re.search(r"snail-train --env (\S+)( [\w.]+=\S+)*$", main_job)
    assert call is not None and '".[train]"' in main_job
    env = call.group(1)
    assert (ROOT / "configs" / env.removesuffix("_v0") / "ppo.yaml").exists()
    from snail_envs.training.config import load_config

    overrides = main_job.split(f"--env {env}")[1].split()
    assert load_config(env, overrides=overrides).env == env


def test_the_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["snail_sprint_v0", "--games", "30"])
    out = capsys.readouterr().out
    assert "=== 30 games of snail_sprint_v0" in out
    assert "finishes with return" in out


def test_importing_the_library_loads_no_heavy_dependency() -> None:
    """`import snail_envs` (and making an env) must not load torch, Pillow, pygame, numba or
    matplotlib: they are imported lazily where they are used."""
    import subprocess
    import sys

    code = (
        "import sys, snail_envs\n"
        "for name in snail_envs.available_env_names():\n"
        "    snail_envs.make(name).reset(seed=0)\n"
        "print([m for m in ('torch', 'PIL', 'pygame', 'numba', 'matplotlib') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "example",
    re.findall(r"```python\n(.+?)\n```", (ROOT / "README.md").read_text(), flags=re.DOTALL),
    ids=lambda code: code.splitlines()[0][:40],
)
def test_the_readme_python_examples_run(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict = {}
    if "np." in example and "import numpy" not in example:
        exec("import numpy as np\nimport snail_envs", namespace)
    exec(example, namespace)


def test_the_readme_speed_table_is_the_stored_throughput_runs() -> None:
    """One run a kind of machine: docs/data/speed/throughput*.json, in the order of their names."""
    import json

    from snail_envs.speed_tables import readme_speed_table

    runs = sorted((ROOT / "docs" / "data" / "speed").glob("throughput*.json"))
    records = [json.loads(run.read_text()) for run in runs]
    assert len({record["provenance"]["avx512"] for record in records}) == len(records) == 2
    assert readme_speed_table(*records) in (ROOT / "README.md").read_text(), (
        "README.md's speed table differs from docs/data/speed/throughput*.json: paste "
        "readme_speed_table of those runs, in the order of their file names"
    )
