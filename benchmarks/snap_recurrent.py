"""Memory under noisy sight in Snap: a recurrent policy beside the recall features, each trained
for the same PPO steps against the heuristic, then scored against it.

    python benchmarks/snap_recurrent.py --steps 4000000 --games 1000 --out snap-recurrent.json
    python benchmarks/snap_recurrent.py --clone-games 400 --steps 4000000 --save weights/
    python benchmarks/snap_recurrent.py --only lstm --steps 200000 --games 100

Under `noisy_sight`'s rules a seat glimpses the card flipped last wrongly at the window's first
ticks; a seat that remembers every card it has seen knows which keys the card can still show
(benchmarks/snap_memory.py). The observation shows the table only. Two ways to give a network
that memory, trained alike (`ARMS`):

- `mlp`: MaskablePPO with snail-train's policy (`LeanPolicy`, [128, 128] Tanh) on the plain
  observation: no memory, the baseline;
- `mlp_recall`: the same with `recall="perfect"`, whose observation adds, while the seat
  glimpses, the share of each key among the cards the flipped one may be by its memory;
- `lstm`: sb3-contrib's RecurrentPPO with `MaskedRecurrentPolicy` (`snail_envs.training.
  recurrent`: the masks carried in the observation) on the plain observation, an LSTM of
  `--lstm` units before the same [128, 128] actor (the critic the same MLP, without an LSTM):
  what recall gives, it has to learn from the sequence of its own views.

Each learns against the heuristic in the batched learner env with snail-train's default
settings (64 games a step, 64-step rollouts, minibatches of 1,024, 4 epochs, learning rate 3e-4,
no entropy bonus; the margin as reward), seed `--seed`, one torch thread, for `--steps`
timesteps: from scratch, or with `--clone-games N` from a clone of the heuristic (`clone`: both
seats' decisions in N games of the heuristic against itself, each seat's game one whole
sequence, the LSTM's state zero at its start; cross-entropy over the legal actions and the
value regressed on the discounted margin, `--clone-epochs` passes; the clone's agreement with
the heuristic on the last tenth of the sequences, held out, is reported), the same games and
steps for every arm. Then it plays `--games` Python games against the heuristic
(`training.evaluate.score_against`: its most likely legal action, seats rotating, game i seeded
2·10⁷ + i; the LSTM's state starts anew each game), beside the control: the heuristic in the same
seat of the same games. Its calls are counted over `--call-games` games of the parallel
environment against the heuristic (`snap_calls.tally_calls`): right, wrong, and wrong where a
seat remembering every card it had seen would have known the call wrong, the calls a policy
that uses its memory makes fewer of. The table gives each arm's score rate with its 95% Wilson
interval, its calls a game, its CPU seconds of training and of play; `--out FILE` writes it as
JSON, `--save DIR` each arm's weights (`ARM-seedS.pt`, a `state_dict`); an existing file is
kept unless `--overwrite`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import yaml
from snap_calls import tally_calls

from snail_envs.snap.rules import WAIT
from snail_envs.speed_tables import add_out_arguments, check_out, provenance
from snail_envs.training.imitation import discounted_returns
from snail_envs.training.lean_policy import masked_logits
from snail_envs.training.recurrent import with_mask

PRESET = Path(__file__).resolve().parents[1] / "configs" / "snap" / "noisy_sight.yaml"
ENV = "snap_v2"
ARMS = ("mlp", "mlp_recall", "lstm")
SETTINGS = {
    "n_steps": 64,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "ent_coef": 0.0,
}
N_ENVS = 64
NET_ARCH = [128, 128]
SEED = 2 * 10**7
"""The first game's seed of the scoring (as the final evaluation of snail-train)."""
CALL_KINDS = ("right", "wrong", "wrong, known by memory")
"""The calls counted a game (`snail_envs.snap.calls.KINDS`)."""
GAMMA = 0.99
"""The discount of the cloned value's returns (MaskablePPO's default)."""
VALUE_COEF = 0.5
CLONE_BATCH = 8
CLONE_LR = 1e-3
CLONE_SEED = 10**6
"""The first game's seed of the heuristic's games to clone."""
PACKAGES = ("numpy", "torch", "stable-baselines3", "sb3-contrib", "numba")


def table_options(arm: str) -> dict[str, Any]:
    """The rule options of `arm`'s table: `noisy_sight`'s, with recall for `mlp_recall`."""
    options = dict(yaml.safe_load(PRESET.read_text()))
    if arm == "mlp_recall":
        options["recall"] = "perfect"
    return options


def learner(arm: str, lstm_units: int, seed: int) -> Any:
    """`arm`'s model, untrained, on `N_ENVS` batched games against the heuristic."""
    from sb3_contrib import MaskablePPO, RecurrentPPO
    from stable_baselines3.common.vec_env import VecMonitor

    import snail_envs.batched
    from snail_envs.training.lean_policy import LeanPolicy
    from snail_envs.training.recurrent import MaskedRecurrentPolicy, MasksInObservations

    venv = VecMonitor(
        snail_envs.batched.make_vec_env(
            ENV, N_ENVS, opponents={"heuristic": 1}, reward="margin", **table_options(arm)
        )
    )
    common = {**SETTINGS, "seed": seed, "device": "cpu", "verbose": 0}
    if arm == "lstm":
        kwargs = {"lstm_hidden_size": lstm_units, "enable_critic_lstm": False}
        return RecurrentPPO(
            MaskedRecurrentPolicy,
            MasksInObservations(venv),
            policy_kwargs={"net_arch": NET_ARCH, **kwargs},
            **common,
        )
    return MaskablePPO(LeanPolicy, venv, policy_kwargs={"net_arch": NET_ARCH}, **common)


def player(arm: str, model: Any) -> Any:
    """An agent playing `model`'s most likely legal action."""
    from snail_envs.agents.ppo import PPOAgent
    from snail_envs.training.recurrent import RecurrentAgent

    return RecurrentAgent(model.policy) if arm == "lstm" else PPOAgent(model.policy)


def score(agent: Any, options: dict[str, Any], games: int) -> dict[str, Any]:
    """`agent`'s score against the heuristic over `games` Python games from `SEED`, with its CPU
    seconds (a recurrent agent's state reset after each game)."""
    from snail_envs.training.evaluate import score_against

    started = time.process_time()
    reset = getattr(agent, "reset", None)
    rate, low, high = score_against(
        ENV, agent, "heuristic", games, seed=SEED, options=options, after_game=reset
    )
    return {"score": rate, "interval": [low, high], "cpu_seconds": time.process_time() - started}


def calls(agent: Any, options: dict[str, Any], games: int) -> dict[str, float]:
    """`agent`'s calls a game against the heuristic over `games` games of the parallel
    environment (`snap_calls.tally_calls`, seeds from `SEED`): right, wrong, and wrong where a
    seat remembering every card it had seen would have known it (`CALL_KINDS`)."""
    from snail_envs.agents import make_agent

    heuristic = make_agent("heuristic", ENV, seed=0, options=options)
    reset = getattr(agent, "reset", None)
    tally, _ = tally_calls([agent, heuristic], options, games, SEED, before_game=reset)
    return {kind: tally.counts[kind] / games for kind in CALL_KINDS}


class SeatGame(NamedTuple):
    """One seat's decisions through one game: observations (T, D), masks (T, A), the actions
    taken (T,) and the discounted returns from each (T,)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


def heuristic_sequences(options: dict[str, Any], games: int, seed: int) -> list[SeatGame]:
    """Both seats' decisions in `games` games of the heuristic against itself (game i seeded
    `seed` + i; the margin as reward, returns discounted by `GAMMA`), a sequence a seat."""
    import snail_envs
    from snail_envs.agents import make_agent

    sequences = []
    for game in range(games):
        env = snail_envs.make_parallel(ENV, **options, reward="margin")
        observations, _ = env.reset(seed=seed + game)
        players = {
            agent: make_agent("heuristic", ENV, seed=seed + game, options=options)
            for agent in env.possible_agents
        }
        seen: dict[str, list[Any]] = {agent: [] for agent in env.possible_agents}
        rewards: dict[str, list[float]] = {agent: [] for agent in env.possible_agents}
        while env.agents:
            actions = {}
            for agent in env.agents:
                view, mask = observations[agent]["observation"], observations[agent]["action_mask"]
                actions[agent] = players[agent].act(view, mask)
                seen[agent].append((view, mask, actions[agent]))
                rewards[agent].append(0.0)
            observations, paid, *_ = env.step(actions)
            for agent, reward in paid.items():
                rewards[agent][-1] += reward
        for agent in env.possible_agents:
            views, masks, taken = zip(*seen[agent], strict=True)
            following = np.arange(1, len(taken) + 1)
            following[-1] = -1
            returns = discounted_returns(np.array(rewards[agent]), following, GAMMA)
            sequences.append(
                SeatGame(
                    np.stack(views),
                    np.stack(masks).astype(bool),
                    np.array(taken),
                    returns.astype(np.float32),
                )
            )
    return sequences


def padded(sequences: list[SeatGame], with_masks: bool) -> dict[str, Any]:
    """`sequences` as time-major tensors padded at the end (T, B, ...), with `valid` (T, B);
    the observations with the masks appended for the LSTM (`with_masks`)."""
    import torch

    length, size = max(len(s.actions) for s in sequences), len(sequences)
    first = sequences[0]
    width = first.observations.shape[1] + (first.masks.shape[1] if with_masks else 0)
    observations = np.zeros((length, size, width), np.float32)
    masks = np.ones((length, size, first.masks.shape[1]), bool)
    actions = np.zeros((length, size), np.int64)
    returns = np.zeros((length, size), np.float32)
    valid = np.zeros((length, size), bool)
    for column, sequence in enumerate(sequences):
        steps = len(sequence.actions)
        views = sequence.observations
        observations[:steps, column] = with_mask(views, sequence.masks) if with_masks else views
        masks[:steps, column] = sequence.masks
        actions[:steps, column] = sequence.actions
        returns[:steps, column] = sequence.returns
        valid[:steps, column] = True
    arrays = {"observations": observations, "masks": masks, "actions": actions}
    return {
        name: torch.from_numpy(a)
        for name, a in {**arrays, "returns": returns, "valid": valid}.items()
    }


def actor_and_critic(arm: str, policy: Any, observations: Any) -> tuple[Any, Any]:
    """The logits (T, B, A) and values (T, B) of `policy` over whole sequences (T, B, D) from
    their start (the LSTM's state zero at each sequence's first step)."""
    length, size, width = observations.shape
    features = policy.extract_features(observations.reshape(length * size, width))
    if arm == "lstm":
        latent, _ = policy.lstm_actor(features.reshape(length, size, -1))
        latent = latent.reshape(length * size, -1)
        values = policy.value_net(policy.mlp_extractor.forward_critic(policy.critic(features)))
    else:
        latent = features
        values = policy.value_net(policy.mlp_extractor.forward_critic(features))
    logits = policy.action_net(policy.mlp_extractor.forward_actor(latent))
    return logits.reshape(length, size, -1), values.reshape(length, size)


def clone(arm: str, policy: Any, sequences: list[SeatGame], epochs: int) -> dict[str, float]:
    """Clone the heuristic's sequences into `policy` (cross-entropy over the legal actions, the
    value regressed on the returns, weighted by `VALUE_COEF`; `CLONE_BATCH` whole sequences a
    step, Adam at `CLONE_LR`), the last tenth held out: the clone's agreement there, over all
    decisions and over the heuristic's calls (its actions other than `WAIT`)."""
    import torch

    held = max(1, len(sequences) // 10)
    training, held_out = sequences[:-held], sequences[-held:]
    optimizer = torch.optim.Adam(policy.parameters(), lr=CLONE_LR)
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        order = rng.permutation(len(training))
        for start in range(0, len(order), CLONE_BATCH):
            batch = padded([training[i] for i in order[start : start + CLONE_BATCH]], arm == "lstm")
            logits, values = actor_and_critic(arm, policy, batch["observations"])
            log_probs = masked_logits(logits, batch["masks"]).log_softmax(-1)
            chosen = log_probs.gather(-1, batch["actions"][..., None]).squeeze(-1)
            valid = batch["valid"]
            loss = -chosen[valid].mean()
            loss = loss + VALUE_COEF * ((values - batch["returns"])[valid] ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        batch = padded(held_out, arm == "lstm")
        logits, _ = actor_and_critic(arm, policy, batch["observations"])
        agree = masked_logits(logits, batch["masks"]).argmax(-1) == batch["actions"]
        calls = batch["valid"] & (batch["actions"] != WAIT)
        return {
            "agreement": float(agree[batch["valid"]].float().mean()),
            "agreement_on_calls": float(agree[calls].float().mean()),
        }


def weights_file(folder: Path, arm: str, seed: int) -> Path:
    """Where `--save` puts `arm`'s weights trained with `seed`."""
    return folder / f"{arm}-seed{seed}.pt"


def run_arm(args: argparse.Namespace, arm: str) -> dict[str, Any]:
    """Train `arm` for `args.steps` timesteps, save its weights where `args.save` says, then
    score it and count its calls: the record of the arm."""
    import torch

    model = learner(arm, args.lstm, args.seed)
    started = time.process_time()
    record: dict[str, Any] = {}
    if args.clone_games:
        sequences = heuristic_sequences(table_options(arm), args.clone_games, CLONE_SEED)
        record["clone"] = clone(arm, model.policy, sequences, args.clone_epochs)
        record["clone_cpu_seconds"] = time.process_time() - started
        print(
            f"{arm}: the clone agrees with the heuristic on {record['clone']['agreement']:.1%} "
            f"of its decisions held out, {record['clone']['agreement_on_calls']:.1%} of its calls"
        )
        started = time.process_time()
    model.learn(args.steps)
    trained = time.process_time() - started
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        torch.save(model.policy.state_dict(), weights_file(args.save, arm, args.seed))
    agent, options = player(arm, model), table_options(arm)
    record |= {
        "train_cpu_seconds": trained,
        **score(agent, options, args.games),
        "calls": calls(agent, options, args.call_games),
    }
    print(f"{arm}: {markdown_row(arm, record)}", flush=True)
    return record


def markdown_row(name: str, record: dict[str, Any]) -> str:
    low, high = record["interval"]
    trained = record.get("train_cpu_seconds")
    counts = " | ".join(f"{record['calls'][kind]:.1f}" for kind in CALL_KINDS)
    return (
        f"| {name} | {record['score']:.1%} ({low:.1%}–{high:.1%}) | {counts} | "
        f"{'' if trained is None else f'{trained:,.0f}'} | {record['cpu_seconds']:,.0f} |"
    )


def markdown(record: dict[str, Any]) -> str:
    kinds = " | ".join(f"calls {kind} a game" for kind in CALL_KINDS)
    lines = [
        f"| arm | score vs heuristic | {kinds} | CPU s training | CPU s playing |",
        f"|---|---|{'---:|' * len(CALL_KINDS)}---:|---:|",
        *(markdown_row(arm, result) for arm, result in record["arms"].items()),
        markdown_row("control: the heuristic", record["control"]),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=list(ARMS), choices=ARMS)
    parser.add_argument("--steps", type=int, default=4_000_000, help="PPO timesteps an arm")
    parser.add_argument("--games", type=int, default=1000, help="games scored an arm")
    parser.add_argument("--call-games", type=int, default=50, help="games whose calls count")
    parser.add_argument("--lstm", type=int, default=128, help="the LSTM's units")
    parser.add_argument("--save", type=Path, help="a folder to save each arm's weights in")
    parser.add_argument(
        "--clone-games", type=int, default=0, help="heuristic games to clone first (0: none)"
    )
    parser.add_argument("--clone-epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="the training seed")
    parser.add_argument("--no-control", action="store_true", help="skip the heuristic's score")
    add_out_arguments(parser, "also write the results as JSON")
    args = parser.parse_args()
    check_out(parser, args)
    for name, value in (
        ("--steps", args.steps),
        ("--games", args.games),
        ("--call-games", args.call_games),
        ("--lstm", args.lstm),
        ("--clone-epochs", args.clone_epochs),
    ):
        if value < 1:
            parser.error(f"{name} must be at least 1; got {value}")
    if args.clone_games < 0:
        parser.error(f"--clone-games must be 0 (no cloning) or more; got {args.clone_games}")
    if args.save is not None and not args.overwrite:
        for arm in args.only:
            weights = weights_file(args.save, arm, args.seed)
            if weights.exists():
                parser.error(f"{weights} exists: give --overwrite to replace it")
    import torch

    from snail_envs.agents import make_agent

    torch.set_num_threads(1)
    arms = {arm: run_arm(args, arm) for arm in args.only}
    record: dict[str, Any] = {
        "env": ENV,
        "steps": args.steps,
        "games": args.games,
        "call_games": args.call_games,
        "seed": args.seed,
        "lstm_units": args.lstm,
        "clone_games": args.clone_games,
        "clone_epochs": args.clone_epochs,
        "arms": arms,
        "control": None,
    }
    if not args.no_control:
        options = table_options("mlp")
        control = make_agent("heuristic", ENV, seed=1, options=options)
        record["control"] = {
            **score(control, options, args.games),
            "calls": calls(control, options, args.call_games),
        }
        print(markdown(record))
    if args.out is not None:
        record["provenance"] = provenance(PACKAGES)
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
