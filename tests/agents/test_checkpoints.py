"""Trained policies on disk: weights only, never code from a file; trusted archives; the shipped
baselines choose as they did when they were shipped."""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import snail_envs
from snail_envs.agents import convert as convert_command
from snail_envs.agents import make_agent
from snail_envs.agents import ppo as ppo_module
from snail_envs.agents.ppo import CHECKPOINTS, FORMAT, PPOAgent, shipped_checkpoint
from snail_envs.agents.rllib_policy import POLICY_FILE, RLlibAgent, save_policy
from tests.agents.record_shipped_decisions import trained_options
from tests.names import PEDZACE_SLIMAKI as PEDZACE
from tests.names import SNAP

torch.set_num_threads(1)
DATA = Path(__file__).parent / "data"
SHIPPED = (
    SNAP,
    f"{SNAP}-noisy_sight",
    f"{SNAP}-noisy_sight_recall",
    f"{SNAP}-noisy_sight_odds",
    "snail_sprint_v0",
    PEDZACE,
    f"{PEDZACE}-previews_choice_counts",
    "snailed_it_v0",
)
"""The shipped baselines: `ENV` for a game's own, `ENV-PRESET` for one trained under a preset."""


class Payload:
    """Unpickling this creates the file `marker`: the proof that a loader ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "payload-ran"


def tiny_model(env_name: str = "snail_sprint_v0"):  # type: ignore[no-untyped-def]
    from sb3_contrib import MaskablePPO

    env = snail_envs.single_agent(env_name)
    return MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=3
    )


def random_inputs(size: int, actions: int, count: int = 50) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    inputs = []
    for _ in range(count):
        mask = np.zeros(actions, dtype=np.int8)
        mask[rng.choice(actions, size=2, replace=False)] = 1
        inputs.append((rng.random(size).astype(np.float32), mask))
    return inputs


# ----------------------------------------------------------------- no code from a file


def test_a_pickled_policy_file_never_runs_when_loaded_as_an_agent(
    tmp_path: Path, marker: Path
) -> None:
    """A file shaped like a policy saved by Stable-Baselines3, its payload among the data."""
    evil = tmp_path / "evil.pt"
    torch.save({"state_dict": {}, "data": {"net_arch": Payload(marker)}}, evil)
    with pytest.raises(ValueError, match=r"not a weights-only policy.*trusted=True"):
        make_agent(f"ppo:{evil}", "snail_sprint_v0")
    assert not marker.exists()


def test_a_pickled_model_archive_never_runs_when_loaded_as_an_agent(
    tmp_path: Path, marker: Path
) -> None:
    """A `model.zip` as Stable-Baselines3 writes it, a serialized object among its data."""
    evil = tmp_path / "model.zip"
    serialized = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":serialized:": serialized}}))
    with pytest.raises(ValueError, match="trusted=True"):
        make_agent(f"ppo:{evil}", "snail_sprint_v0")
    assert not marker.exists()


def test_a_payload_beside_a_valid_description_is_refused(tmp_path: Path, marker: Path) -> None:
    evil = tmp_path / "evil.pt"
    torch.save({"action_net.weight": torch.zeros(6, 8), "payload": Payload(marker)}, evil)
    shutil.copy(shipped_checkpoint("snail_sprint_v0").with_suffix(".json"), tmp_path / "evil.json")
    with pytest.raises(ValueError, match="holds more than weights"):
        make_agent(f"ppo:{evil}", "snail_sprint_v0")
    assert not marker.exists()
    (tmp_path / "rllib").mkdir()
    torch.save({"payload": Payload(marker)}, tmp_path / "rllib" / POLICY_FILE)
    description = {"format": "snail_envs.rllib_policy/2", "env": "snail_sprint_v0"}
    (tmp_path / "rllib" / "policy.json").write_text(json.dumps(description))
    with pytest.raises(ValueError, match="holds more than weights"):
        make_agent(f"rllib:{tmp_path / 'rllib'}", "snail_sprint_v0")
    assert not marker.exists()


def test_weights_that_do_not_fit_their_description_are_named(tmp_path: Path) -> None:
    path = tmp_path / "policy.pt"
    torch.save({"action_net.weight": torch.zeros(6, 8)}, path)
    description = shipped_checkpoint("snail_sprint_v0").with_suffix(".json")
    shutil.copy(description, tmp_path / "policy.json")
    with pytest.raises(ValueError, match=r"missing \['action_net.bias'.*shape \['action_net"):
        make_agent(f"ppo:{tmp_path}", "snail_sprint_v0")
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="is not a weights file"):
        make_agent(f"ppo:{path}", "snail_sprint_v0")
    torch.save({}, path)
    negative = {**json.loads(description.read_text()), "observation_size": -1}
    (tmp_path / "policy.json").write_text(json.dumps(negative))
    with pytest.raises(ValueError, match="observation_size must hold integers of at least 1"):
        make_agent(f"ppo:{path}", "snail_sprint_v0")
    (tmp_path / "policy.json").write_text(json.dumps({"format": "something/1"}))
    with pytest.raises(ValueError, match=f"format 'something/1', not '{FORMAT}'"):
        make_agent(f"ppo:{path}", "snail_sprint_v0")


def test_a_tiny_file_that_names_a_huge_network_is_refused_before_it_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(description: object) -> None:
        raise AssertionError("the network was built")

    monkeypatch.setattr(ppo_module, "build_policy", never)
    shipped = shipped_checkpoint("snail_sprint_v0")
    shutil.copy(shipped, tmp_path / "policy.pt")
    described = json.loads(shipped.with_suffix(".json").read_text())
    huge = {**described, "net_arch": {"pi": [12000, 12000], "vf": [12000, 12000]}}
    (tmp_path / "policy.json").write_text(json.dumps(huge))
    assert (tmp_path / "policy.json").stat().st_size < 400
    with pytest.raises(ValueError, match="does not fit the network its description builds"):
        make_agent(f"ppo:{tmp_path}", "snail_sprint_v0")
    other_game = {**described, "observation_size": described["observation_size"] + 1}
    (tmp_path / "policy.json").write_text(json.dumps(other_game))
    with pytest.raises(ValueError, match="does not play snail_sprint_v0 under its env_options"):
        make_agent(f"ppo:{tmp_path}", "snail_sprint_v0")
    deep = {**described, "net_arch": {"pi": [8] * 10_000, "vf": [8]}}
    (tmp_path / "policy.json").write_text(json.dumps(deep))
    with pytest.raises(ValueError, match="lists of at most 64 layer sizes"):
        make_agent(f"ppo:{tmp_path}", "snail_sprint_v0")


def test_a_stable_baselines_archive_loads_only_when_trusted_and_warns(tmp_path: Path) -> None:
    model = tiny_model()
    model.save(tmp_path / "model.zip")
    with pytest.raises(ValueError, match="--trust-checkpoint"):
        make_agent(f"ppo:{tmp_path / 'model.zip'}", "snail_sprint_v0")
    with pytest.warns(UserWarning, match="runs any code pickled in it"):
        agent = make_agent(f"ppo:{tmp_path / 'model.zip'}", "snail_sprint_v0", trusted=True)
    for observation, mask in random_inputs(487, 6, 10):
        expected, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        assert agent.act(observation, mask) == int(expected)


# ----------------------------------------------------------------- conversion


def test_a_converted_archive_chooses_as_the_archive_did(tmp_path: Path) -> None:
    model = tiny_model()
    model.save(tmp_path / "model.zip")
    with pytest.raises(SystemExit):
        convert_command.main([str(tmp_path / "model.zip"), str(tmp_path / "p.pt"), "--env", "x"])
    source, target = str(tmp_path / "model.zip"), str(tmp_path / "out" / "policy.pt")
    with pytest.raises(SystemExit) as refused:
        convert_command.main([source, target, "--env", "snail_sprint_v0"])
    assert refused.value.code == 2
    with pytest.warns(UserWarning, match="runs any code"):
        path = convert_command.main(
            [source, target, "--env=snail_sprint_v0", "--observations=50", "--trust-checkpoint"]
        )
    agent = make_agent(f"ppo:{tmp_path / 'out'}", "snail_sprint_v0")
    for observation, mask in random_inputs(487, 6):
        expected, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        assert agent.act(observation, mask) == int(expected)
    saved = torch.load(path, weights_only=True)
    assert all(torch.equal(saved[name], value) for name, value in model.policy.state_dict().items())
    with pytest.raises(ValueError, match=f"trained on snail_sprint_v0, not {SNAP}"):
        PPOAgent.load(path, SNAP)
    with pytest.raises(SystemExit) as exists:
        convert_command.main([source, target, "--env=snail_sprint_v0", "--trust-checkpoint"])
    assert exists.value.code == 1


def test_a_weights_only_policy_converts_to_its_small_playing_form_without_trust(
    tmp_path: Path,
) -> None:
    model = tiny_model()
    options = {"num_players": 2, "reward": "margin"}
    full = ppo_module.save_policy(
        tmp_path / "run" / "policy.pt", model.policy, "snail_sprint_v0", options
    )
    target = tmp_path / "small" / "snail_sprint_v0.pt"
    path = convert_command.main(
        [str(full), str(target), "--env=snail_sprint_v0", "--policy-only", "--observations=50"]
    )
    description = json.loads(path.with_suffix(".json").read_text())
    assert description["env_options"] == options and not description["value_network"]
    assert path.stat().st_size < full.stat().st_size
    agent, teacher = (make_agent(f"ppo:{p}", "snail_sprint_v0") for p in (path, full))
    for observation, mask in random_inputs(487, 6):
        assert agent.act(observation, mask) == teacher.act(observation, mask)


# ----------------------------------------------------------------- the shipped baselines


@pytest.mark.parametrize("baseline", SHIPPED)
def test_the_shipped_baselines_are_weights_only_and_small(baseline: str) -> None:
    env_name = baseline.partition("-")[0]
    weights = shipped_checkpoint(env_name, trained_options(baseline))
    assert weights.stem == baseline, "the game's rules choose the baseline trained under them"
    description = json.loads(weights.with_suffix(".json").read_text())
    assert description["format"] == FORMAT and description["env"] == env_name
    assert not description["value_network"]
    tensors = torch.load(weights, weights_only=True)
    assert all(isinstance(value, torch.Tensor) for value in tensors.values())
    assert weights.stat().st_size < 1_000_000


def test_only_weights_only_policies_are_shipped() -> None:
    assert sorted(path.stem for path in CHECKPOINTS.glob("*.pt")) == sorted(SHIPPED)
    assert sorted(path.stem for path in CHECKPOINTS.glob("*.json")) == sorted(SHIPPED)


@pytest.mark.parametrize("baseline", SHIPPED)
def test_the_shipped_baselines_choose_as_when_they_were_shipped(baseline: str) -> None:
    """Decisions of random games, and the actions the baseline chose for them when it was
    shipped (`record_shipped_decisions.py`)."""
    recorded = np.load(DATA / "shipped_decisions.npz")
    agent = make_agent("ppo", baseline.partition("-")[0], options=trained_options(baseline))
    observations = recorded[f"{baseline}/observations"]
    masks = recorded[f"{baseline}/action_masks"]
    chosen = [agent.act(seen, mask) for seen, mask in zip(observations, masks, strict=True)]
    assert chosen == recorded[f"{baseline}/actions"].tolist()


def test_the_game_s_rules_choose_its_shipped_baseline() -> None:
    """`ppo` plays the baseline trained under the table's rules where one is shipped (reward
    and the other host options aside), else the game's own."""
    noisy = {**trained_options(f"{SNAP}-noisy_sight"), "reward": "winlose"}
    assert shipped_checkpoint(SNAP, noisy).stem == f"{SNAP}-noisy_sight"
    listed = {**noisy, "glimpse_error": tuple(noisy["glimpse_error"])}
    assert shipped_checkpoint(SNAP, listed).stem == f"{SNAP}-noisy_sight"
    remembering = {**noisy, "recall": "perfect"}
    assert shipped_checkpoint(SNAP, remembering).stem == f"{SNAP}-noisy_sight_recall"
    odds = {**remembering, "call_odds": True}
    assert shipped_checkpoint(SNAP, odds).stem == f"{SNAP}-noisy_sight_odds"
    assert shipped_checkpoint(SNAP, {**noisy, "num_players": 3}).stem == SNAP
    assert shipped_checkpoint(SNAP).stem == SNAP
    counted = {"previews": True, "choice_counts": True, "reward": "winlose"}
    assert shipped_checkpoint(PEDZACE, counted).stem == f"{PEDZACE}-previews_choice_counts"
    assert shipped_checkpoint(PEDZACE, {"previews": True}).stem == PEDZACE
    agent = make_agent("ppo", SNAP, options=noisy)
    size = json.loads((CHECKPOINTS / f"{SNAP}-noisy_sight.json").read_text())["observation_size"]
    assert agent.model.observation_space.shape == (size,)


def test_a_game_without_a_shipped_baseline_is_named() -> None:
    with pytest.raises(ValueError, match=r"no baseline is shipped for .*; baselines: pedzace"):
        make_agent("ppo", "chess_v6")


def test_rllib_policies_are_weights_only_too(tmp_path: Path) -> None:
    network = torch.nn.Sequential(torch.nn.Linear(71, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4))
    save_policy(tmp_path / POLICY_FILE, network.state_dict(), 71, 4, [4], SNAP)
    assert json.loads((tmp_path / "policy.json").read_text())["hidden"] == [4]
    agent = RLlibAgent.load(tmp_path, SNAP)
    observation = np.ones(71, np.float32)
    logits = network(torch.as_tensor(observation)).detach()
    assert agent.act(observation, np.ones(4, np.int8)) == int(torch.argmax(logits))
    with pytest.raises(FileExistsError, match="--overwrite"):
        save_policy(tmp_path / POLICY_FILE, network.state_dict(), 71, 4, [4], SNAP)
