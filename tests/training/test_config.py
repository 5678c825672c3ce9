"""Training configs: no silent fall back on defaults, values checked, problems blamed on where they
came from, and the configs found in a checkout (tests/test_packaging.py: in a wheel)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from snail_envs.training import train
from snail_envs.training.config import CONFIGS, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_a_config_file_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no config file at .*ppo.yml"):
        load_config("snail_sprint_v0", tmp_path / "ppo.yml")


def test_the_train_command_names_a_mistyped_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        train.main(["--env", "snail_sprint_v0", "--config", str(tmp_path / "ppo.yml")])
    assert stopped.value.code != 0
    assert f"no config file at {tmp_path / 'ppo.yml'}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("opponents.random=heavy", "opponents.random must be of type float; got 'heavy'"),
        ("opponents.self=.nan", "opponents.self must be a finite number; got nan"),
        ("opponents={random: .inf}", "opponents.random must be a finite number; got inf"),
        ("clip_range=-0.1", "clip_range must be positive; got -0.1"),
        ("ent_coef=-0.5", "ent_coef must be at least 0; got -0.5"),
        ("gae_lambda=7", r"gae_lambda must be in \[0, 1\]; got 7"),
        ("net_arch=[0]", r"net_arch lists layer sizes, each at least 1; got \[0\]"),
        ("net_arch=[16.5]", r"net_arch\[0\] must be of type int; got 16.5"),
        ("seed=true", "seed must be of type int; got True"),
        ("gamma=.nan", "gamma must be a finite number"),
    ],
)
def test_bad_values_are_rejected_with_what_is_allowed(override: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_config("snail_sprint_v0", overrides=[override])


def test_a_typo_on_the_command_line_is_blamed_on_it_with_the_closest_name() -> None:
    with pytest.raises(ValueError) as typo:
        load_config("snail_sprint_v0", overrides=["total_timesteps=9", "learning_rat=0.1"])
    assert str(typo.value).startswith(
        "command line, learning_rat=0.1: unknown field 'learning_rat' "
        "(did you mean 'learning_rate'?)"
    )
    assert "ppo.yaml" not in str(typo.value)
    with pytest.raises(ValueError, match=r"^command line, opponents.selff=1: .*'self'\?"):
        load_config("snail_sprint_v0", overrides=["opponents.selff=1"])
    with pytest.raises(ValueError, match=r"^command line, gamma=2: gamma must be in \(0, 1\]"):
        load_config("snail_sprint_v0", overrides=["gamma=2"])


def test_a_typo_in_a_file_is_blamed_on_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("env: snail_sprint_v0\nn_step: 64\n")
    with pytest.raises(ValueError, match=rf"^{path}: unknown field 'n_step' \(did you mean 'n_st"):
        load_config("snail_sprint_v0", path, overrides=["n_envs=2"])
    path.write_text("- not\n- a mapping\n")
    with pytest.raises(ValueError, match="must map field names to values"):
        load_config("snail_sprint_v0", path)


def test_the_imitation_stage_and_the_stages_are_checked_and_blamed_alike(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as typo:
        load_config("snail_sprint_v0", overrides=["n_envs=2", "imitation.epoch=3"])
    assert str(typo.value).startswith(
        "command line, imitation.epoch=3: unknown field 'imitation.epoch' "
        "(did you mean 'imitation.epochs'?)"
    )
    with pytest.raises(ValueError, match=r"^command line, imitation={states: 0}: imitation.stat"):
        load_config("snail_sprint_v0", overrides=["imitation={states: 0}"])
    with pytest.raises(ValueError, match=r"^command line, imitation.epochs=x: .* of type int"):
        load_config("snail_sprint_v0", overrides=["imitation.epochs=x"])
    path = tmp_path / "mine.yaml"
    path.write_text("env: snail_sprint_v0\nstages: [imitation, ppo]\nimitation: {held_out: 1.5}\n")
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))}: imitation.held_out must be in"
    ):
        load_config("snail_sprint_v0", path)
    with pytest.raises(ValueError, match=r"^command line, stages=\[ppo\]: anchor_coef anchors"):
        load_config("snail_sprint_v0", overrides=["stages=[ppo]"])
    with pytest.raises(
        ValueError, match=r"^command line, stages=\[imitaton, ppo\]: .*'imitation'\?"
    ):
        load_config("snail_sprint_v0", overrides=["stages=[imitaton, ppo]"])


def test_small_numbers_read_as_floats_as_a_runs_config_json_writes_them(tmp_path: Path) -> None:
    assert load_config("snail_sprint_v0", overrides=["learning_rate=1e-5"]).learning_rate == 1e-5
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"env": "snail_sprint_v0", "learning_rate": 0.00001}))
    assert load_config("snail_sprint_v0", path).learning_rate == 1e-5


def test_a_checkout_reads_its_own_configs() -> None:
    assert CONFIGS.resolve() == ROOT / "configs"


LAUGHS = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
net_arch: [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""
"""A few hundred bytes of nested aliases standing for 387 million strings."""


def test_nested_aliases_are_refused_not_expanded(tmp_path: Path) -> None:
    config = tmp_path / "laughs.yaml"
    config.write_text(LAUGHS)
    assert len(LAUGHS) < 600
    with pytest.raises(ValueError, match="its aliases expand to more than 100,000 values"):
        load_config("snail_sprint_v0", config)
    flow = "{" + LAUGHS.strip().replace("\n", ", ") + "}"
    with pytest.raises(ValueError, match=r"command line, 'env_options=.*aliases expand"):
        load_config("snail_sprint_v0", overrides=["env_options=" + flow])


def test_a_bad_value_is_quoted_in_short(tmp_path: Path) -> None:
    aliased = "a: &a [" + ", ".join(["x" * 50] * 50) + "]\nnet_arch: [*a, *a, *a, *a]\n"
    (tmp_path / "long.yaml").write_text(aliased)
    with pytest.raises(ValueError) as refused:
        load_config("snail_sprint_v0", tmp_path / "long.yaml")
    assert "unknown field 'a'" in str(refused.value)
    with pytest.raises(ValueError) as refused:
        load_config("snail_sprint_v0", overrides=["net_arch=[" + "7.5, " * 10_000 + "1]"])
    assert len(str(refused.value)) < 300


def test_a_key_given_twice_is_an_error_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "twice.yaml"
    config.write_text("gamma: 0.9\nn_envs: 8\ngamma: 0.5\n")
    with pytest.raises(
        ValueError, match=r"twice.yaml: not valid YAML \(the key 'gamma' is given twice.*line 3"
    ):
        load_config("snail_sprint_v0", config)
    with pytest.raises(ValueError, match="the key 'states' is given twice"):
        load_config("snail_sprint_v0", overrides=["imitation={states: 5, states: 6}"])


def test_a_seed_of_thousands_of_digits_names_the_file_and_line(tmp_path: Path) -> None:
    config = tmp_path / "seed.yaml"
    config.write_text("n_envs: 8\nseed: " + "9" * 4301 + "\n")
    with pytest.raises(
        ValueError, match=r"seed.yaml: not valid YAML \(an integer of more than 100 digits.*line 2"
    ):
        load_config("snail_sprint_v0", config)
