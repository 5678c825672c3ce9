"""The package: everything installs under `snail_envs`, nothing under a generic top-level name.

The wheel is built from a copy of the sources and installed, not editable, into a fresh virtual
environment (the dependencies come from the environment running the tests, after the wheel's own
site-packages); from a folder outside the checkout its commands answer `--help`, end a mistake
with one line, and train and evaluate a tiny policy, and its configs load by name.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import snail_envs
from tests.training.budgets import PPO_ONLY, TINY_PPO

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "snail_envs", "agents", "training", "configs")
"""What the wheel is built from."""
COMMANDS = (
    "snail-train",
    "snail-eval",
    "snail-play",
    "snail-rllib",
    "snail-convert",
    "snail-replay",
    "snail-serve",
)
TINY_RUN = [
    *PPO_ONLY,
    *TINY_PPO,
    "eval_games=2",
    "final_eval_games=2",
    "net_arch=[8]",
    "opponents={random: 1}",
    "batched=false",
]
"""Plain PPO for 256 timesteps in the Python environment, a tiny network, two-game evaluations."""


def test_the_library_imports_itself_by_its_installed_names() -> None:
    """In a checkout `agents` and `training` are importable folders too; imported so, they would
    be second copies of the modules, and missing from a wheel install."""
    stray = []
    for folder in ("snail_envs", "agents", "training", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                else:
                    continue
                stray += [
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
                    for name in names
                    if name.partition(".")[0] in ("agents", "training")
                ]
    assert stray == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources (the checkout gets no build folders)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy(ROOT / name, source / name)
    command = ["pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", "../dist", "."]
    built = subprocess.run(
        [sys.executable, "-m", *command], cwd=source, capture_output=True, text=True, timeout=600
    )
    assert built.returncode == 0, built.stderr
    (path,) = (folder / "dist").glob("snail_envs-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed, not editable. The dependencies come
    from the folders the interpreter running the tests imports from (the checkout's sources left
    out, its .venv kept),
    listed after the venv's own site-packages, so that the wheel's `snail_envs` comes first."""
    folder = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=600)
    python = folder / "bin" / "python"
    install = ["-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check"]
    install += ["-q", str(wheel)]
    installed = subprocess.run([python, *install], capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    environment = Path(sys.prefix).resolve()
    dependencies = [
        path
        for path in sys.path
        if path
        and Path(path).is_dir()
        and (
            not Path(path).resolve().is_relative_to(ROOT)
            or Path(path).resolve().is_relative_to(environment)  # a .venv inside the checkout
        )
    ]
    site_packages = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site_packages / "test_dependencies.pth").write_text(
        "".join(f"{path}\n" for path in dict.fromkeys(dependencies))
    )
    return folder


def run_in(venv: Path, cwd: Path, *command: str | Path) -> subprocess.CompletedProcess[str]:
    """`command` (a console script of the venv, or its python) run in `cwd`, with no PYTHONPATH
    and the venv's bin first on PATH, as an activated venv would."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    }
    environment |= {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv),
        "OMP_NUM_THREADS": "1",
    }
    program, *arguments = command
    return subprocess.run(
        [str(venv / "bin" / program), *map(str, arguments)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_the_wheel_holds_snail_envs_alone_with_its_configs_and_baselines(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert {name.partition("/")[0] for name in names} == {
        "snail_envs",
        f"snail_envs-{snail_envs.__version__}.dist-info",
    }
    for env in snail_envs.ENV_NAMES:
        game = env.rpartition("_v")[0]
        assert f"snail_envs/training/configs/{game}/ppo.yaml" in names
        assert f"snail_envs/agents/checkpoints/{env}.pt" in names
    assert "snail_envs/agents/heuristics/__init__.py" in names
    assert "snail_envs/apps/web/index.html" in names  # the page of snail-serve


@pytest.mark.slow
def test_the_installed_wheel_imports_from_itself_and_finds_its_configs(
    venv: Path, tmp_path: Path
) -> None:
    code = (
        "import importlib.util, snail_envs\n"
        "from snail_envs.training import config\n"
        "print(snail_envs.__file__)\n"
        "print(config.CONFIGS)\n"
        "for env in snail_envs.ENV_NAMES: assert config.load_config(env).env == env\n"
        "print([name for name in ('agents', 'training') if importlib.util.find_spec(name)])\n"
    )
    done = run_in(venv, tmp_path, "python", "-c", code)
    assert done.returncode == 0, done.stderr
    package, configs, generic = done.stdout.splitlines()
    assert Path(package).is_relative_to(venv) and not Path(package).is_relative_to(ROOT)
    assert Path(configs) == Path(package).parent / "training" / "configs"
    assert generic == "[]"
    site_packages = Path(package).parents[1]
    assert not {"agents", "training", "configs"} & {path.name for path in site_packages.iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_answers_help_under_its_own_name(
    venv: Path, tmp_path: Path, command: str
) -> None:
    done = run_in(venv, tmp_path, command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {command} ")


@pytest.mark.slow
def test_a_command_ends_a_mistake_with_one_line(venv: Path, tmp_path: Path) -> None:
    done = run_in(venv, tmp_path, "snail-train", "--env", "snail_sprint_v0", "gamma=2")
    assert done.returncode == 1
    assert done.stderr == (
        "snail-train: error: command line, gamma=2: gamma must be in (0, 1]; got 2.0\n"
    )


@pytest.mark.slow
def test_the_installed_commands_train_and_evaluate_a_tiny_policy(
    venv: Path, tmp_path: Path
) -> None:
    trained = run_in(
        venv,
        tmp_path,
        "snail-train",
        "--env",
        "snail_sprint_v0",
        "--no-progress",
        *TINY_RUN,
        "output_dir=runs",
    )
    assert trained.returncode == 0, trained.stderr
    (run,) = (tmp_path / "runs").iterdir()
    assert (run / "policy.pt").is_file() and (run / "summary.json").is_file()
    arguments = ["--env", "snail_sprint_v0", "--agents", "random", f"ppo:{run}", "--games", "2"]
    evaluated = run_in(venv, tmp_path, "snail-eval", *arguments)
    assert evaluated.returncode == 0, evaluated.stderr
    assert f"ppo:{run}" in evaluated.stdout
