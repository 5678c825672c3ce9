"""A PSRO-style league on one machine (the `league` stage, `snail_envs.training.stages.league`).

The population starts as `league.population`: the in-kernel `random` and `heuristic` players,
the `clone` (the policy the stages before made) and frozen `ppo:PATH` policies. Each round:

1. the meta-strategy (`league.meta_solver`, `snail_envs.training.meta_strategy`) weighs the
   members: `nash`, the Nash mixture of the zero-sum payoff matrix; `pfsp`, each member by how
   rarely the best member beats it;
2. a new member, `round_<k>`, starts from the best member so far (the network with the highest
   payoff against the meta-strategy) and trains with the ppo stage's MaskablePPO
   (`league.timesteps`) against opponents drawn per game by those weights: random and heuristic
   inside the batched engine's kernels, the network members as frozen policies, each game's
   drawn one answering for all its seats (`FrozenPopulation`), pulled back towards the best
   member by `league.magnet_coef` (the ppo stage's anchor); with `league.exploiter`, also
   `exploiter_<k>`, from the clone, against the best member alone;
3. every new member plays every member in `league.eval_deals` duplicate deals
   (`run_tournament(..., duplicate=True)`), filling its row and column of the score matrix;
   the meta-strategy is solved again and the best member chosen.

The league folder (`<run>/league/`) holds the network members (`<name>.pt` beside `<name>.json`,
weights only), `state.json` (the members, the score matrix, the meta-strategy, the best member
and the rounds' reports), `payoff.md` (the matrix as a table) and `payoff.png` (its heatmap).
The run's policy is the best member: of the clone and the trained members, the network whose
payoff against the Nash mixture is highest (the mixture's own members score 0 against it, a
member that beats it more), not merely the last trained, which a later round's mixture may
exploit more than an earlier member.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents.files import write_text
from snail_envs.agents.ppo import PPOAgent, save_policy
from snail_envs.training.checkpoints import read_json
from snail_envs.training.config import KERNEL_MEMBERS, LeagueConfig, TrainConfig
from snail_envs.training.meta_strategy import (
    meta_payoffs,
    nash_mixture,
    pfsp_weights,
    zero_sum,
)

LEAGUE_DIR = "league"
"""The league's folder in the run folder."""
STATE_FILE = "state.json"
PAYOFF_TABLE = "payoff.md"
PAYOFF_HEATMAP = "payoff.png"


@dataclass
class Member:
    """One member of the population."""

    name: str
    """Its name in the matrix: `random`, `heuristic`, `clone`, `round_<k>`, `exploiter_<k>`, or
    `ppo:PATH`'s file stem."""
    source: str
    """Where it came from: its spec in `league.population`, or the round that trained it
    (`round 2`, `exploiter of round 2`)."""
    kernel: bool
    """Played inside the batched engine's kernels (`random`, `heuristic`); else a network,
    `<name>.pt` in the league folder."""


@dataclass
class LeagueState:
    """What the league saves after its start and every round (`state.json`)."""

    env: str
    env_options: dict[str, Any]
    rounds_done: int
    members: list[Member]
    scores: list[list[float]]
    """`scores[i][j]`: member i's score rate alone against member j (chance on the diagonal)."""
    intervals: list[list[list[float]]]
    """The 95% interval of each score rate (over the duplicate deals' means)."""
    meta_strategy: list[float]
    best: str
    """The network member with the highest payoff against the meta-strategy."""
    progress: dict[str, Any]
    """The run's `Progress` when it was saved."""
    reports: list[dict[str, Any]] = field(default_factory=list)
    """One a round: its new members, the opponents' weights they trained against, timesteps."""

    @property
    def names(self) -> list[str]:
        return [member.name for member in self.members]

    @classmethod
    def of(cls, values: Any, where: str) -> LeagueState:
        """The state of its JSON `values` (`asdict`); a `ValueError` naming `where` if they are
        not a league's state."""
        try:
            return cls(**{**values, "members": [Member(**member) for member in values["members"]]})
        except (TypeError, KeyError) as problem:
            raise ValueError(f"{where}: not a league's state ({problem})") from None

    def payoff(self) -> np.ndarray:
        """The zero-sum payoff matrix of the scores."""
        return zero_sum(np.array(self.scores))


def load_member(spec: str, env_name: str, options: dict[str, Any]) -> Any:
    """The policy of a `ppo:PATH` member: a weights-only policy (`NAME.pt` beside `NAME.json`, or
    a run folder's `policy.pt`) of `env_name` that takes this game's observations under these
    rule `options`. Anything else is a `ValueError` that names the member."""
    from snail_envs.training.finetune import game_policy  # torch and SB3 load with a run

    return game_policy(spec.removeprefix("ppo:"), env_name, options, f"member {spec}")


class Population:
    """The league folder's network members and the state, saved and loaded."""

    def __init__(self, run_dir: Path, config: TrainConfig) -> None:
        self.folder = run_dir / LEAGUE_DIR
        self.config = config

    def exists(self) -> bool:
        return (self.folder / STATE_FILE).is_file()

    def save_policy(self, name: str, policy: Any) -> None:
        config = self.config
        self.folder.mkdir(parents=True, exist_ok=True)
        save_policy(self.folder / f"{name}.pt", policy, config.env, config.env_options, True)

    def policy(self, name: str) -> Any:
        """A network member's policy (a `ValueError` naming it if its file does not load)."""
        return self.load_source(f"ppo:{self.folder / f'{name}.pt'}")

    def load_source(self, spec: str) -> Any:
        """The policy of a `ppo:PATH` member of `league.population`."""
        return load_member(spec, self.config.env, self.config.env_options)

    def agent(self, name: str) -> PPOAgent:
        return PPOAgent(self.policy(name))

    def save(self, state: LeagueState) -> None:
        """Write `state.json`, `payoff.md` and `payoff.png`."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_text(self.folder / STATE_FILE, json.dumps(asdict(state), indent=2) + "\n", True)
        write_text(self.folder / PAYOFF_TABLE, payoff_markdown(state), True)
        draw_payoff(state, self.folder / PAYOFF_HEATMAP)

    def load(self) -> LeagueState:
        """The saved state; a league of another game or rule options is refused."""
        path = self.folder / STATE_FILE
        state = LeagueState.of(read_json(path), str(path))
        config = self.config
        if (state.env, state.env_options) != (config.env, config.env_options):
            raise ValueError(
                f"{path} is a league of {state.env} with options {state.env_options}, not of "
                f"{config.env} with options {config.env_options}"
            )
        return state


def initial_members(settings: LeagueConfig) -> list[Member]:
    """The members `league.population` names, in its order: a `ppo:PATH` member is named
    `ppo_` and its path, each character but letters, digits, `.`, `_` and `-` as `_`
    (`ppo:runs/a/policy.pt` → `ppo_runs_a_policy`). Two members of one name are a
    `ValueError`."""
    from snail_envs.training.evaluate import file_name_part

    members = []
    for spec in settings.population:
        name = spec
        if spec.startswith("ppo:"):
            name = "ppo_" + file_name_part(spec.removeprefix("ppo:").removesuffix(".pt"))
        members.append(Member(name, spec, spec in KERNEL_MEMBERS))
    names = [member.name for member in members]
    if len(set(names)) < len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise ValueError(f"two members would be named {', '.join(twice)}; give each another path")
    return members


def opponent_weights(state: LeagueState, settings: LeagueConfig) -> np.ndarray:
    """The meta-strategy's weights of the members as the next member's opponents."""
    if settings.meta_solver == "nash":
        return np.array(state.meta_strategy)
    return pfsp_weights(
        np.array(state.scores), state.names.index(state.best), settings.pfsp_exponent
    )


def solve(state: LeagueState) -> None:
    """The Nash mixture of the payoff matrix as the state's meta-strategy, and its best member:
    of the networks the league trains on from (the clone and the members it trained, of the
    run's network's shape; not the frozen `ppo:PATH` ones), the one with the highest payoff
    against it; of equals, the one the mixture plays most (then the first)."""
    payoff = state.payoff()
    mixture = nash_mixture(payoff)
    state.meta_strategy = [round(float(weight), 6) for weight in mixture]
    gains = meta_payoffs(payoff, mixture)
    networks = [
        index
        for index, member in enumerate(state.members)
        if not member.kernel and not member.source.startswith("ppo:")
    ]
    state.best = state.members[
        max(networks, key=lambda index: (round(float(gains[index]), 9), mixture[index]))
    ].name


def training_games(
    config: TrainConfig, population: Population, state: LeagueState, weights: np.ndarray, seed: int
) -> Any:
    """The batched learner games of a new member: each other seat drawn per game by `weights`,
    the kernel members inside the kernels, the networks as one `FrozenPopulation`."""
    from stable_baselines3.common.vec_env import VecMonitor

    from snail_envs.batched import make_vec_env
    from snail_envs.training.opponents import FrozenPolicy, FrozenPopulation

    opponents: dict[str, float] = {}
    frozen: list[FrozenPolicy] = []
    frozen_weights: list[float] = []
    for member, weight in zip(state.members, weights.tolist(), strict=True):
        if weight <= 0:
            continue
        if member.kernel:
            opponents[member.name] = weight
        else:
            frozen.append(FrozenPolicy(population.agent(member.name)))
            frozen_weights.append(weight)
    policy = None
    if frozen:
        opponents["policy"] = sum(frozen_weights)
        policy = FrozenPopulation(frozen, frozen_weights, seed)
    venv = make_vec_env(
        config.env, config.n_envs, opponents=opponents, policy=policy, **config.env_options
    )
    return VecMonitor(venv)


@dataclass
class MemberJob:
    """A member to train: from the weights of member `start`, against the members of the
    state before its round weighed by `weights`, pulled towards member `magnet` (if any)."""

    name: str
    source: str
    start: str
    magnet: str | None
    weights: list[float]
    seed: int


def train_member(
    config: TrainConfig, run_dir: Path, state: LeagueState, job: MemberJob, display: Any = None
) -> None:
    """Train the member of `job` with the ppo stage's MaskablePPO (`build_model`, and its anchor
    as the magnet, `anchor`) for `league.timesteps` on its `training_games`, and save it in the
    league folder. `display`: the run's `Display`, for its training bar (None: no bar)."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    from snail_envs.training.callbacks import TrainingBar
    from snail_envs.training.run import build_model
    from snail_envs.training.stages.ppo import anchor

    torch.set_num_threads(config.torch_threads)
    population = Population(run_dir, config)
    games = training_games(config, population, state, np.array(job.weights), job.seed)
    timesteps = config.league.timesteps
    pulled = job.magnet is not None and config.league.magnet_coef > 0
    model = build_model(
        config, games, run_dir, job.seed, pulled, learning_rate=config.league.learning_rate
    )
    model.policy.load_state_dict(population.policy(job.start).state_dict())
    callbacks: list[BaseCallback] = []
    if pulled:
        assert job.magnet is not None
        magnet = population.policy(job.magnet)
        callbacks.append(anchor(model, magnet, config.league.magnet_coef, 0))
    if display is None:
        model.learn(timesteps, callback=CallbackList(callbacks), tb_log_name=f"league_{job.name}")
    else:
        with display.training(f"league {job.name}", timesteps, 0) as advance:
            callbacks.append(TrainingBar(advance))
            model.learn(
                timesteps, callback=CallbackList(callbacks), tb_log_name=f"league_{job.name}"
            )
    model.policy.anchor = None
    population.save_policy(job.name, model.policy)


def train_on_ray(
    config: TrainConfig, run_dir: Path, state: LeagueState, jobs: list[MemberJob]
) -> None:
    """Train the members of `jobs` as Ray tasks, one CPU each, on the cluster at
    `league.address` (joined unless this process has joined one already); each task writes its
    member into the league folder, as `train_member` does here."""
    import ray

    if not ray.is_initialized():
        address = config.league.address
        ray.init(address=None if address == "local" else address)
    task = ray.remote(num_cpus=1)(train_member_task)
    values = asdict(config), str(run_dir), asdict(state)
    tasks = [task.remote(*values, asdict(job)) for job in jobs]
    try:
        ray.get(tasks)
    except KeyboardInterrupt:  # a stop request: the round is abandoned
        for running in tasks:
            ray.cancel(running)
        raise


def train_member_task(
    config: dict[str, Any], run_dir: str, state: dict[str, Any], job: dict[str, Any]
) -> None:
    """`train_member` in a Ray worker, from the JSON values of its arguments."""
    from snail_envs.training.config import build_config

    train_member(
        build_config(config),
        Path(run_dir),
        LeagueState.of(state, "a league task"),
        MemberJob(**job),
    )


def member_seed(seed: int, round_number: int, index: int) -> int:
    """The seed of the `index`-th member trained in round `round_number`."""
    return int(np.random.SeedSequence([seed, round_number, index]).generate_state(1)[0])


def seating(num_players: int) -> str:
    """How a pairing of the payoff matrix sits: two players alternate; in larger games one
    member plays alone against the other in every other seat, as the learner does."""
    return "alternate" if num_players == 2 else "one"


def num_players(config: TrainConfig) -> int:
    return len(snail_envs.make(config.env, **config.env_options).possible_agents)


def fill_scores(
    config: TrainConfig, population: Population, state: LeagueState, new: list[str]
) -> None:
    """Play every pair of members with a new one (`new`, already in `state.members`) in
    `league.eval_deals` duplicate deals, and write their score rates into the state."""
    from snail_envs.training.evaluate import deal_size, run_tournament

    players = num_players(config)
    sitting = seating(players)
    games = config.league.eval_deals * deal_size(0, players, sitting, table=False)
    names = state.names
    size = len(names)
    chance = 1.0 / players
    scores = [[chance] * size for _ in range(size)]
    intervals = [[[chance, chance] for _ in range(size)] for _ in range(size)]
    for i, row in enumerate(state.scores):
        scores[i][: len(row)] = row
        intervals[i][: len(row)] = state.intervals[i]
    agents = {m.name: population.agent(m.name) for m in state.members if not m.kernel}
    for i, first in enumerate(names):
        for j in range(i + 1, size):
            second = names[j]
            if first not in new and second not in new:
                continue
            played = run_tournament(
                config.env,
                [first, second],
                games,
                seed=config.seed,
                options=config.env_options,
                progress=False,
                seating=sitting,
                duplicate=True,
                players={name: agents[name] for name in (first, second) if name in agents},
            )
            pairings = played.pairings
            forward = pairings[0].score(first)
            backward = (pairings[0] if sitting == "alternate" else pairings[1]).score(second)
            scores[i][j], intervals[i][j] = round(forward[0], 6), [round(v, 6) for v in forward[1:]]
            scores[j][i], intervals[j][i] = (
                round(backward[0], 6),
                [round(v, 6) for v in backward[1:]],
            )
    state.scores, state.intervals = scores, intervals


def payoff_markdown(state: LeagueState) -> str:
    """The score matrix as a markdown table (each row's score rate alone against each column),
    the meta-strategy and each member's payoff against it."""
    names = state.names
    gains = meta_payoffs(state.payoff(), np.array(state.meta_strategy))
    lines = [
        f"# League of {state.env}, after round {state.rounds_done}",
        "",
        "Score rate of the row's member against the column's (duplicate deals); the Nash "
        "mixture of the zero-sum payoff matrix ((row − column) / 2), and each member's payoff "
        f"against it. Best member: **{state.best}**.",
        "",
        "| member | " + " | ".join(names) + " | Nash weight | payoff vs Nash |",
        "|---|" + "---:|" * (len(names) + 2),
    ]
    for i, name in enumerate(names):
        cells = " | ".join(
            "—" if i == j else f"{state.scores[i][j]:.1%}" for j in range(len(names))
        )
        lines.append(f"| {name} | {cells} | {state.meta_strategy[i]:.3f} | {gains[i]:+.3f} |")
    return "\n".join(lines) + "\n"


def draw_payoff(state: LeagueState, path: Path) -> None:
    """The score matrix as a heatmap whose colours part at chance level (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    names = state.names
    scores = np.array(state.scores)
    chance = float(scores[0, 0])
    side = 1.5 + 0.8 * len(names) + 0.08 * max(map(len, names))
    figure, axes = plt.subplots(figsize=(side + 1.0, side), layout="constrained")
    image = axes.imshow(scores, cmap="RdBu", norm=TwoSlopeNorm(chance, 0.0, 1.0))
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                axes.text(j, i, f"{scores[i, j]:.0%}", ha="center", va="center", fontsize=8)
    axes.set_title(f"{state.env}, round {state.rounds_done}: row's score rate vs column")
    figure.colorbar(image, ax=axes)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
