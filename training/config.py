"""Training configuration: one YAML file per game (`configs/<game>/ppo.yaml`), CLI overrides.

Every field of `TrainConfig`, of its imitation stage (`ImitationConfig`), of its expert
iteration stage (`ExpertIterationConfig`), of its advantage-weighted distillation stage
(`AdvantageConfig`) and of its league stage (`LeagueConfig`) is documented below.
A config that names an unknown field, or gives a value of the wrong type or out of range, is
rejected with a message that says where the value came from (the file, or the command line and
which override), what is allowed, and for a misspelt name the closest field; nested fields
(`imitation.<name>`, `expert_iteration.<name>`, `advantage.<name>`, `league.<name>`,
`env_options.<name>`, `opponents.<kind>`) are
checked and blamed alike. A
config file that does not exist is an error, never a silent fall back on the defaults.

    snail-train --env snail_sprint_v0 total_timesteps=50000 env_options.num_players=3
    snail-train --env snail_sprint_v0 imitation.states=20000 imitation.epochs=5
    snail-train --env pedzace_slimaki_v0 "stages=[imitation, expert_iteration]" \
        expert_iteration.rounds=4
    snail-train --env snail_sprint_v0 --config configs/snail_sprint/league.yaml league.rounds=5
    snail-train --env snailed_it_v0 --config configs/snailed_it/advantage.yaml advantage.rounds=4

The configs live in `configs/` at the top of the repository and install beside this module, as
`snail_envs/training/configs/`.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import itertools
import math
import numbers
import os
import re
import reprlib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import snail_envs
from snail_envs.agents.cli import attribute_docs

CONFIGS = Path(__file__).parent / "configs"
"""The shipped configs: package data of `snail_envs.training` (in the repository, the folder
configs/, which training/configs links to)."""
OPPONENT_KINDS = ("random", "heuristic", "self", "target")
TRAINED_TARGETS = ("ppo", "cfr")
"""The agents the `target` opponents may play, frozen: trained networks and tabular policies
(`cfr:PATH`, of `snail-exact --solve`)."""
STAGES = ("imitation", "ppo", "expert_iteration", "advantage", "league")
"""The training stages, in the order a run goes through those it names, each once; but
`expert_iteration` and `advantage` may also come before `ppo` (after `imitation`)."""
NESTED = ("env_options", "opponents", "imitation", "expert_iteration", "advantage", "league")
"""The fields an override may set one entry of (`env_options.num_players=3`,
`imitation.states=20000`, `expert_iteration.rounds=5`)."""
SEARCH_VALUES = ("win", "points", "margin")
"""What the expert iteration stage's search may maximise (`snail_envs.agents.search.VALUES`)."""
SEARCH_ROLLOUTS = ("heuristic", "random")
"""Who may play the searching seat in the search's rollouts (the in-kernel players)."""
SEARCH_HORIZONS = ("default", "game", "round")
"""How far the search may look (`snail_envs.agents.search.HORIZONS`)."""
PLAYERS = ("search", "network")
"""Who may play the learner's seat while the expert iteration stage gathers its states."""
ROLLOUT_HORIZONS = ("round", "game")
"""How far the advantage stage's rollouts may play (`snail_envs.agents.rollout_search`)."""
ROLLOUT_VALUES = ("margin", "win")
"""What the advantage stage's rollouts may be valued by (`snail_envs.agents.rollout_search`)."""
META_SOLVERS = ("nash", "pfsp")
"""How the league stage weighs its population as a new member's opponents
(`snail_envs.training.meta_strategy`)."""
KERNEL_MEMBERS = ("random", "heuristic")
"""The league's members that the batched engine plays inside its kernels."""
CLONE_MEMBER = "clone"
"""The league's member that is the policy the stages before it made."""


class ConfigError(ValueError):
    """A value of the config that is wrong, and why. `fields` name what is to blame as overrides
    write it: a field (`gamma`), a nested field (`imitation.states`, `opponents.self`), or a
    whole mapping (`env_options`) when the problem is the mapping's."""

    def __init__(self, fields: str | Sequence[str], message: str) -> None:
        super().__init__(message)
        self.fields = (fields,) if isinstance(fields, str) else tuple(fields)


@dataclass
class ImitationConfig:
    """Behaviour cloning of a teacher on states of the batched engine, with DAgger rounds (the
    `imitation` stage, `snail_envs.training.imitation`)."""

    teacher: str = "heuristic"
    """The agent to clone, as `snail_envs.agents.make_agent` names it; one that acts from its seat's
    observation (`heuristic`, `random`, `ppo:PATH`, `rllib:PATH`). A `ppo:PATH` teacher loads
    weights only: convert a Stable-Baselines3 archive first (`snail-convert`)."""
    states: int = 50_000
    """Labelled states gathered in round 0, from games the teacher plays in every seat."""
    dagger_rounds: int = 2
    """Rounds after round 0 in which the network plays one seat of every game."""
    dagger_states: int = 25_000
    """Labelled states of the network's own seat gathered in each DAgger round."""
    epochs: int = 10
    """Passes over all the states gathered so far, after each round's collection."""
    batch_size: int = 512
    """Labelled states per gradient step while cloning."""
    learning_rate: float = 1e-3
    """AdamW's step size while cloning, in (0, 1)."""
    weight_decay: float = 0.0
    """AdamW's decoupled weight decay while cloning, at least 0 (0: plain Adam)."""
    patience: int = 0
    """Stop a round's training after this many epochs without a better agreement on the held-out
    states with a choice (all rounds so far), keeping the best epoch's weights; 0: train every
    epoch and keep the last. Needs `held_out` above 0."""
    record_forced: bool = True
    """Record decisions with one legal action (they train the value head only)."""
    class_weight_power: float = 0.5
    """Each label's loss is weighted by (its action's share of the labels)^−power (normalised to
    a mean of 1): 0 weighs every state alike, 1 every action alike."""
    value_coef: float = 0.5
    """Weight of the value head's squared error (to the recorded seat's discounted return)."""
    held_out: float = 0.1
    """Share of the games whose states are held out of training to measure the agreement, in
    [0, 1)."""
    n_envs: int = 256
    """Games played side by side while collecting."""
    random_seats: float = 0.0
    """Share of the seats, drawn per seat and game, that play uniformly random legal actions
    while states are gathered (never the network's seat in a DAgger round); their decisions are
    not recorded. In [0, 1): the clone then also sees the tables that random players make."""

    def __post_init__(self) -> None:
        _type_fields(self, "imitation.")
        _at_least(self, 1, ("states", "epochs", "batch_size", "n_envs"), "imitation.")
        names = (
            "dagger_rounds",
            "dagger_states",
            "class_weight_power",
            "value_coef",
            "weight_decay",
            "patience",
        )
        _at_least(self, 0, names, "imitation.")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(
                "imitation.learning_rate",
                f"imitation.learning_rate must be in (0, 1); got {self.learning_rate}",
            )
        for name in ("held_out", "random_seats"):
            if not 0 <= getattr(self, name) < 1:
                raise ConfigError(
                    f"imitation.{name}",
                    f"imitation.{name} must be in [0, 1); got {getattr(self, name)}",
                )
        if self.patience and not self.held_out:
            raise ConfigError(
                ("imitation.patience", "imitation.held_out"),
                "imitation.patience stops on held-out states: it needs imitation.held_out > 0",
            )


@dataclass
class ExpertIterationConfig:
    """Expert iteration (the `expert_iteration` stage, `snail_envs.training.expert_iteration`):
    in each round the compiled search, guided by the network, labels the network's decisions in
    games of the batched engine with its root visit counts, and the network is distilled on
    them."""

    rounds: int = 3
    """Rounds of search-then-distil (at least 1). A resumed run may raise it
    (`--resume RUN_DIR expert_iteration.rounds=5`) to go on from its last round."""
    states: int = 4000
    """Learner decisions with a choice searched and recorded in each round."""
    iterations: int = 512
    """Search iterations at each recorded decision (at least 1; the search runs them in rounds of
    `search_batch`, at least one round)."""
    search_batch: int = 64
    """Worlds the search plays at once: iterations per round of the search."""
    exploration: float = 1.0
    """The search's exploration constant, at least 0 (PUCT's with `prior`, else UCB1's; scaled
    by half the spread of the values seen unless `value` is `win`)."""
    prior: bool = True
    """Guide the search with the network's probabilities of the legal actions (PUCT, as
    AlphaZero); false: UCB1, the network then only plays (with `play: network`) and learns."""
    value: str = "margin"
    """What the search maximises: `win` (+1 a win, −1 a loss), `points` (the game's points) or
    `margin` (those points less the other seats' mean)."""
    rollout: str = "heuristic"
    """Who plays the searching seat in the search's rollouts beyond its tree: `heuristic` or
    `random` (the other seats are the game's heuristic, as in the games gathered)."""
    horizon: str = "default"
    """How far each search looks: `game` (to the end), `round` (to the end of the round in
    play, in games of rounds), or `default`, the game's own (the round in Snailed It!, the flip
    in play in Snap, else the game)."""
    play: str = "search"
    """Who plays the learner's seat in the games gathered: `search` (its most visited action, the
    expert's games) or `network` (the network's most likely legal action, DAgger-like: the
    states the network's own play leads to)."""
    n_envs: int = 32
    """Games played side by side while gathering (one learner seat each, drawn every episode;
    the game's heuristic plays the others)."""
    epochs: int = 5
    """Passes over the training states after each round's search."""
    batch_size: int = 256
    """States per gradient step while distilling."""
    learning_rate: float = 3e-4
    """AdamW's step size while distilling, in (0, 1)."""
    weight_decay: float = 0.0
    """AdamW's decoupled weight decay while distilling, at least 0."""
    value_coef: float = 0.5
    """Weight of the value head's squared error (to the learner seat's discounted return)."""
    keep_rounds: int = 0
    """Train on the states of this many latest rounds (0: every round so far)."""
    held_out: float = 0.1
    """Share of the games whose states are held out of training to measure how well the network
    agrees with the search, in [0, 1)."""
    temperature: float = 1.0
    """The targets are the root visit shares raised to the power 1/temperature, renormalised
    (AlphaZero's τ): 1 the visit shares themselves; 0 the most visited action alone, the action
    the search plays (ties share it). Where the search's values are close, its visits spread
    over the actions, and a network taught the spread takes its most likely action at random."""

    def __post_init__(self) -> None:
        prefix = "expert_iteration."
        _type_fields(self, prefix)
        names = ("rounds", "states", "iterations", "search_batch", "n_envs", "epochs", "batch_size")
        _at_least(self, 1, names, prefix)
        at_least_0 = ("exploration", "weight_decay", "value_coef", "keep_rounds", "temperature")
        _at_least(self, 0, at_least_0, prefix)
        _check_distillation(self, prefix)
        choices = {
            "value": SEARCH_VALUES,
            "rollout": SEARCH_ROLLOUTS,
            "horizon": SEARCH_HORIZONS,
            "play": PLAYERS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ConfigError(
                    f"{prefix}{name}",
                    f"{prefix}{name} must be one of {', '.join(allowed)}; got "
                    f"{shown(getattr(self, name))}{_did_you_mean(getattr(self, name), allowed)}",
                )


@dataclass
class AdvantageConfig:
    """Advantage-weighted distillation (the `advantage` stage, `snail_envs.training.advantage`):
    in each round the network plays the learner's seat against the game's heuristic, the rollout
    search measures every legal action of the learner's decisions against the others in the same
    drawn worlds, and the network is trained towards the search's best action where the search
    prefers it to the network's own choice by more than the noise of the measurement."""

    rounds: int = 3
    """Rounds of labelling then training (at least 1). A resumed run may raise it
    (`--resume RUN_DIR advantage.rounds=5`) to go on from its last round."""
    states: int = 2000
    """Learner decisions with a choice labelled in each round (at least 1)."""
    worlds: int = 32
    """Worlds drawn at each labelled decision, each legal action played in every one (at least
    2: the standard errors are measured across worlds)."""
    horizon: str = "round"
    """How far each rollout plays after the labelled decision, every seat the heuristic:
    `round` (to the end of the round in play) or `game` (to the end)."""
    value: str = "margin"
    """What a rollout is valued by: `margin` (the seat's points less the others' mean, in
    points) or `win` (1 where the seat leads alone at the horizon, ½ where it shares the lead,
    0 otherwise: with `horizon: game`, the game's result); the advantages and weights are in
    its units."""
    z: float = 2.0
    """The noise allowed, in standard errors: a state weighs max(0, A(best) − A(network) −
    z·SE), where A is an action's mean value over the worlds, best the action of the largest,
    network the network's choice and SE the standard error of their paired difference. At least
    0 (0: every measured preference counts)."""
    oversample: int = 4
    """A state where the search leaves the network (its weight above 0) is drawn this many times
    in each epoch, every other state once (at least 1; 1: alike)."""
    keep_coef: float = 0.1
    """Weight of the cross-entropy towards the network's own choice before the round, on every
    state (at least 0): where the search says nothing the network keeps its play."""
    epochs: int = 5
    """Passes over the round's training states (at least 1)."""
    batch_size: int = 256
    """States per gradient step (at least 1)."""
    learning_rate: float = 3e-4
    """AdamW's step size, in (0, 1)."""
    weight_decay: float = 0.0
    """AdamW's decoupled weight decay, at least 0."""
    held_out: float = 0.1
    """Share of the games whose states are held out of training to measure the network's
    advantage-weighted agreement with the search after the round, in [0, 1)."""

    def __post_init__(self) -> None:
        prefix = "advantage."
        _type_fields(self, prefix)
        _at_least(self, 1, ("rounds", "states", "oversample", "epochs", "batch_size"), prefix)
        _at_least(self, 2, ("worlds",), prefix)
        _at_least(self, 0, ("z", "keep_coef", "weight_decay"), prefix)
        _check_distillation(self, prefix)
        for name, allowed in (("horizon", ROLLOUT_HORIZONS), ("value", ROLLOUT_VALUES)):
            given = getattr(self, name)
            if given not in allowed:
                raise ConfigError(
                    f"{prefix}{name}",
                    f"{prefix}{name} must be one of {', '.join(allowed)}; got "
                    f"{shown(given)}{_did_you_mean(given, allowed)}",
                )


@dataclass
class LeagueConfig:
    """A PSRO-style league (the `league` stage, `snail_envs.training.league`): each round trains
    new members with MaskablePPO against opponents drawn from the population by a
    meta-strategy, then fills the members' payoff matrix with evaluation games."""

    rounds: int = 3
    """Rounds of the league (at least 1), each adding a member (and an exploiter with
    `exploiter`). A resumed run may raise it (`--resume RUN_DIR league.rounds=5`)."""
    population: list[str] = field(default_factory=lambda: ["heuristic", "random", "clone"])
    """The members the league starts with, at least two: `clone` (the policy the stages before
    made, which the first member starts from; required), `random`, `heuristic` (played inside
    the batched engine's kernels) and `ppo:PATH` (a weights-only policy of this game, played
    frozen, an opponent only)."""
    meta_solver: str = "nash"
    """How the population is weighed as the opponents of a round's member: `nash` (the Nash
    mixture of the zero-sum payoff matrix, solved as a linear program) or `pfsp` (prioritised
    fictitious self-play: each member weighed by (1 − the best member's score rate against
    it)^`pfsp_exponent`, the members it beats least the most)."""
    pfsp_exponent: float = 2.0
    """PFSP's exponent (at least 0; 0 weighs every member alike)."""
    timesteps: int = 100_000
    """Learner timesteps of MaskablePPO for each member trained."""
    eval_deals: int = 50
    """Duplicate deals per cell of the payoff matrix, each played once in every seat assignment
    (2 games a deal in a game of two players)."""
    exploiter: bool = False
    """Also train, each round, an exploiter of the round's best member (AlphaStar's main
    exploiter): from the clone, against that member alone."""
    magnet_coef: float = 0.0
    """Weight of KL(previous best ‖ member) in each member's PPO loss (R-NaD / MMD's magnet):
    every member starts from the best member so far and is pulled back towards it; 0: no pull."""
    learning_rate: float | None = None
    """The members' Adam step size, in (0, 1); None: the run's `learning_rate` (which a ppo
    stage after the league keeps)."""

    address: str | None = None
    """A Ray cluster to train each round's members on as Ray tasks, side by side, one CPU each
    (`local`: start one on this machine; else an address as `ray.init` takes it, `auto` or
    `ray://HOST:10001`); the workers write the members into the run's league folder, which they
    must reach (this machine, or a shared filesystem). None: one after the other, here."""

    def __post_init__(self) -> None:
        prefix = "league."
        _type_fields(self, prefix)
        _at_least(self, 1, ("rounds", "timesteps", "eval_deals"), prefix)
        _at_least(self, 0, ("pfsp_exponent", "magnet_coef"), prefix)
        if self.learning_rate is not None and not 0 < self.learning_rate < 1:
            raise ConfigError(
                f"{prefix}learning_rate",
                f"{prefix}learning_rate must be in (0, 1) or null; got {self.learning_rate}",
            )
        if self.meta_solver not in META_SOLVERS:
            raise ConfigError(
                f"{prefix}meta_solver",
                f"{prefix}meta_solver must be one of {', '.join(META_SOLVERS)}; got "
                f"{shown(self.meta_solver)}{_did_you_mean(self.meta_solver, META_SOLVERS)}",
            )
        if self.address is not None and importlib.util.find_spec("ray") is None:
            raise ConfigError(
                f"{prefix}address",
                f"{prefix}address trains on a Ray cluster, but Ray is not installed "
                "(pip install ray); leave it null to train here",
            )
        allowed = (*KERNEL_MEMBERS, CLONE_MEMBER, "ppo:PATH")
        for spec in self.population:
            if spec not in (*KERNEL_MEMBERS, CLONE_MEMBER) and not spec.startswith("ppo:"):
                raise ConfigError(
                    f"{prefix}population",
                    f"{prefix}population: unknown member {shown(spec)}"
                    f"{_did_you_mean(spec, allowed)}; members are {', '.join(allowed)}",
                )
        if CLONE_MEMBER not in self.population:
            raise ConfigError(
                f"{prefix}population",
                f"{prefix}population must hold {CLONE_MEMBER}, the network its members start "
                f"from; got {shown(self.population)}",
            )
        if len(set(self.population)) < len(self.population) or len(self.population) < 2:
            raise ConfigError(
                f"{prefix}population",
                f"{prefix}population must name at least two distinct members; got "
                f"{shown(self.population)}",
            )


@dataclass
class TrainConfig:
    """Training stages: imitation of a teacher, expert iteration with the compiled search,
    advantage-weighted distillation of the rollout search, MaskablePPO against a mix of
    opponents, one learner seat rotating over episodes, and a league."""

    env: str = "snail_sprint_v0"
    """The game (one of `snail_envs.ENV_NAMES`)."""
    env_options: dict[str, Any] = field(default_factory=dict)
    """Rule options of the game (as for `snail_envs.make`)."""
    stages: list[str] = field(default_factory=lambda: ["ppo"])
    """The stages to go through, each once, in this order: `imitation` (clone a teacher into the
    network, `imitation.*`; see `snail_envs.training.imitation`), then `ppo` (MaskablePPO, from
    the weights of the stage before), then `expert_iteration` (distil the compiled search's
    visit counts into the network, round after round, `expert_iteration.*`; see
    `snail_envs.training.expert_iteration`), then `advantage` (train the network towards the
    rollout search's measured preferences where they exceed their noise, round after round,
    `advantage.*`; see `snail_envs.training.advantage`), both of which may also come before
    `ppo`, and `league` (a PSRO-style league of MaskablePPO members, `league.*`; see
    `snail_envs.training.league`)."""
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    """The imitation stage's settings (`imitation.<name>=value`)."""
    expert_iteration: ExpertIterationConfig = field(default_factory=ExpertIterationConfig)
    """The expert iteration stage's settings (`expert_iteration.<name>=value`)."""
    advantage: AdvantageConfig = field(default_factory=AdvantageConfig)
    """The advantage-weighted distillation stage's settings (`advantage.<name>=value`)."""
    league: LeagueConfig = field(default_factory=LeagueConfig)
    """The league stage's settings (`league.<name>=value`)."""
    init_from: str | None = None
    """A weights-only policy saved by an earlier run (its `policy.pt`, `best_policy.pt` or
    `clone.pt`, or a run or checkpoint folder) whose weights the network starts from, before the
    first stage: `stages: [ppo]` then fine-tunes a saved clone, anchored to it, without
    repeating the imitation. It must play this game under these rule options, with this
    `net_arch`; a Stable-Baselines3 archive is converted first (`snail-convert`).
    A resumed run keeps it in its config but starts from its checkpoint. None: a fresh
    network."""
    total_timesteps: int = 200_000
    """Learner decisions to train for in the ppo stage."""
    n_envs: int = 64
    """Games played side by side (one vectorised batch). With the defaults of `n_steps`,
    `batch_size` and `n_epochs`, chosen by measurement (`benchmarks/train_speed.py`, docs/
    results.md "Training speed"): many games a step, one forward pass for all, and few large
    minibatches train several times faster than Stable-Baselines3's defaults, and at equal wall
    time to a stronger policy."""
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "heuristic": 0.5})
    """Weights of the opponent kinds each other seat is drawn from every episode: `random`,
    `heuristic`, `self` (a frozen earlier snapshot of the learner) and `target` (the frozen
    trained policy `target`). Finite, non-negative, not all zero."""
    target: str | None = None
    """A frozen agent to train against (`snail-exploit`'s best response): a trained policy
    (`ppo`, `ppo:PATH`: one batched forward pass for all the games waiting on it; `cfr:PATH`:
    a table, seat by seat), which plays the `target` opponents, or an agent the batched engine
    plays inside its kernels (`random`, `heuristic`), which its own opponent kind plays. The
    learning curve also scores the learner against it (the last of the evaluation opponents,
    which `keep_best` follows)."""
    self_play_every: int = 50_000
    """Timesteps between two snapshots of the learner added to the self-play pool."""
    self_play_pool: int = 5
    """Snapshots kept in the self-play pool (the oldest leaves first)."""
    learning_rate: float = 3e-4
    """Adam's step size in the policy updates, in (0, 1)."""
    n_steps: int = 64
    """Steps per environment between two policy updates (a rollout: `n_envs` × `n_steps`)."""
    batch_size: int = 1024
    """Steps per minibatch of a policy update."""
    n_epochs: int = 4
    """Passes over each rollout in a policy update."""
    gamma: float = 0.99
    """The discount, in (0, 1]."""
    gae_lambda: float = 0.95
    """GAE's λ, which trades the advantages' bias (0) for their variance (1), in [0, 1]."""
    clip_range: float = 0.2
    """PPO's clipping range, positive."""
    ent_coef: float = 0.01
    """The entropy bonus, non-negative."""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the policy and value networks (each at least 1)."""
    anchor_coef: float = 0.0
    """Weight of KL(cloned policy ‖ policy), the mean over each update's states, added to the
    PPO loss: it keeps the fine-tuned policy near the policy it starts from, the clone of the
    imitation stage or of `init_from` (one of which it needs when this is above 0)."""
    anchor_decay_steps: int = 0
    """Timesteps over which the anchor's weight falls linearly to 0 (0: it keeps its weight)."""
    keep_best: bool = False
    """Make the run's final policy the ppo stage's policy that scored best at the learning
    curve's points (against the heuristic where the game has one, else random), not the last
    one; the policy the stage starts from competes too (scored at its start, or by the last
    round of the stage before), and stays unless a later point beats it (the checkpoints stay
    the last ones, from which `--resume` goes on)."""
    eval_every: int = 25_000
    """Timesteps between two points of the learning curve, which also has one at the ppo stage's
    start and the final evaluation at its end (a run shorter than 4 × eval_every gets points a
    quarter of its timesteps apart, five in all)."""
    eval_games: int = 100
    """Games per opponent for each point of the learning curve."""
    final_eval_games: int = 500
    """Games per opponent in the final evaluation."""
    checkpoint_every: int = 50_000
    """Timesteps between two saved checkpoints (a run also saves one when it ends or stops)."""
    seed: int = 0
    """Seeds the network, the games and the opponents: the same seed trains the same run."""
    torch_threads: int = 1
    """Threads torch may use. Small networks on a few cores run many times faster on one thread
    than with torch's default, which oversubscribes the cores."""
    output_dir: str = "runs"
    """Where each run writes its own new folder, `<output_dir>/<env>-<seed>-<n>` (`n` counts the
    runs of that env and seed)."""
    batched: bool = True
    """Play the training games in the batched engine (`snail_envs.batched`, numba): random and
    heuristic opponents are played inside its kernels, and the self-play snapshots answer for
    all the games waiting on them at once. `false`: each game is a `snail_envs.single_agent`
    view of the Python environment (the same games, about 7–9 times the environment's share of
    the training time)."""

    def __post_init__(self) -> None:
        _type_fields(self)
        if self.env in snail_envs.RETIRED_NAMES:
            raise ConfigError("env", str(snail_envs.deprecated_env(self.env)))
        if self.env not in snail_envs.ENV_NAMES:
            raise ConfigError(
                "env",
                f"env must be one of {', '.join(snail_envs.ENV_NAMES)}; got {shown(self.env)}",
            )
        _at_least(self, 1, AT_LEAST_ONE)
        _at_least(self, 0, AT_LEAST_ZERO)
        if not 0 < self.learning_rate < 1:
            raise ConfigError(
                "learning_rate", f"learning_rate must be in (0, 1); got {self.learning_rate}"
            )
        if not 0 < self.gamma <= 1:
            raise ConfigError("gamma", f"gamma must be in (0, 1]; got {self.gamma}")
        if not 0 <= self.gae_lambda <= 1:
            raise ConfigError("gae_lambda", f"gae_lambda must be in [0, 1]; got {self.gae_lambda}")
        if not self.clip_range > 0:
            raise ConfigError("clip_range", f"clip_range must be positive; got {self.clip_range}")
        if any(width < 1 for width in self.net_arch):
            raise ConfigError(
                "net_arch",
                f"net_arch lists layer sizes, each at least 1; got {shown(self.net_arch)}",
            )
        _check_opponents(self.opponents)
        self._check_target()
        try:
            env = snail_envs.make(self.env, **self.env_options)
        except (ValueError, TypeError) as problem:
            raise ConfigError("env_options", f"env_options: {cut(str(problem), 300)}") from None
        agent = env.possible_agents[0]
        row = env.observation_space(agent)["observation"].shape[0] + env.action_space(agent).n
        self._check_sizes(4 * (row + 8))
        self._check_stages()

    def _check_sizes(self, row_bytes: int) -> None:
        """A `ConfigError` for a size whose arrays could not be allocated, before any is: games
        played side by side beyond `MAX_GAMES`, or a rollout, a network (with its optimizer's
        state) or a stage's states larger than this machine's memory (`row_bytes`: one stored
        state of the game)."""
        for name in ("n_envs", "imitation.n_envs", "expert_iteration.n_envs"):
            group, _, field_name = name.rpartition(".")
            value = getattr(getattr(self, group) if group else self, field_name)
            if value > MAX_GAMES:
                raise ConfigError(name, f"{name} must be at most {MAX_GAMES:,}; got {value:,}")
        widths = [row_bytes // 4, *self.net_arch, 1]
        parameters = sum(a * b + b for a, b in itertools.pairwise(widths)) * 2
        needs = {
            ("n_envs", "n_steps"): self.n_envs * self.n_steps * row_bytes,
            ("net_arch",): parameters * 4 * 4,
        }
        if "imitation" in self.stages:
            states = self.imitation.states
            states += self.imitation.dagger_rounds * self.imitation.dagger_states
            needs[("imitation.states", "imitation.dagger_states")] = states * row_bytes
        if "expert_iteration" in self.stages:
            rounds = self.expert_iteration.keep_rounds or self.expert_iteration.rounds
            needs[("expert_iteration.states",)] = rounds * self.expert_iteration.states * row_bytes
        if "advantage" in self.stages:
            # a labelled state also holds two numbers (an advantage and its error) per action
            needs[("advantage.states",)] = self.advantage.states * row_bytes * 3
        memory = machine_memory()
        for blamed, size in needs.items():
            if memory is not None and size > memory:
                raise ConfigError(
                    blamed,
                    f"{' and '.join(blamed)} ask for {size / 2**30:,.1f} GiB of arrays, more "
                    f"than this machine's {memory / 2**30:,.1f} GiB of memory",
                )

    def _check_target(self) -> None:
        """The `target` opponents need a trained `target`, and share the batched engine's one
        outside player with no self-play."""
        playing = self.opponents.get("target", 0) > 0
        if playing and self.opponents.get("self", 0) > 0:
            raise ConfigError(
                "opponents", "opponents.target and opponents.self cannot both have weight"
            )
        if playing and (self.target or "").partition(":")[0] not in TRAINED_TARGETS:
            raise ConfigError(
                ("opponents", "target"),
                "opponents.target plays a frozen trained policy: set target to "
                f"{' or '.join(f'{kind}[:PATH]' for kind in TRAINED_TARGETS)}; got {self.target!r}",
            )

    def _check_stages(self) -> None:
        """The stages, the anchor that needs a stage (or `init_from`) before ppo, the teacher,
        which must be able to play the game from a seat's observation
        (`snail_envs.training.imitation.make_teacher`), the expert iteration stage's search,
        which needs a batched engine that loads games and the game's heuristic
        (`snail_envs.training.expert_iteration.check_search`), and the advantage stage's rollout
        search, which needs the same (`snail_envs.training.advantage.check_labelling`)."""
        # imported here: snail_envs.training.imitation imports this module
        from snail_envs.training.imitation import make_teacher

        unknown = [stage for stage in self.stages if stage not in STAGES]
        if unknown or not self.stages:
            named = ", ".join(f"{shown(stage)}{_did_you_mean(stage, STAGES)}" for stage in unknown)
            raise ConfigError(
                "stages",
                f"stages must name one or more of {', '.join(STAGES)}; got {shown(self.stages)} "
                f"(unknown: {named or 'none'})",
            )
        if len(set(self.stages)) < len(self.stages) or (
            "imitation" in self.stages and self.stages[0] != "imitation"
        ):
            raise ConfigError(
                "stages",
                f"stages go in the order {', '.join(STAGES)}, each once (expert_iteration and "
                f"advantage may also come before ppo); got {shown(self.stages)}",
            )
        if (
            self.anchor_coef > 0
            and "ppo" in self.stages
            and self.stages[0] == "ppo"
            and not self.init_from
        ):
            raise ConfigError(
                ("anchor_coef", "stages"),
                "anchor_coef anchors the ppo stage to the clone of the imitation stage or of "
                "init_from (or to the network of the expert_iteration stage before it): it needs "
                f"stages [imitation, ppo] or an init_from; got {shown(self.stages)}",
            )
        if "league" in self.stages:
            self._check_league()
        if self.init_from:
            from snail_envs.training.finetune import initial_policy

            try:
                initial_policy(self.init_from, self.env, self.env_options, self.net_arch)
            except ValueError as problem:
                raise ConfigError("init_from", str(problem)) from None
        if "imitation" in self.stages:
            try:
                make_teacher(self.imitation.teacher, self.env, self.env_options)
            except ValueError as problem:
                raise ConfigError("imitation.teacher", str(problem)) from None
        if "expert_iteration" in self.stages:
            from snail_envs.training.expert_iteration import check_search

            try:
                check_search(self.env, self.env_options, self.expert_iteration)
            except ValueError as problem:
                raise ConfigError("stages", str(problem)) from None
        if "advantage" in self.stages:
            from snail_envs.training.advantage import check_labelling

            try:
                check_labelling(self.env, self.env_options)
            except ValueError as problem:
                raise ConfigError("stages", str(problem)) from None

    def _check_league(self) -> None:
        """The league's clone needs a stage (or `init_from`) before it; its heuristic a game
        with one; its `ppo:PATH` members weights-only policies of this game and options."""
        from snail_envs.agents import HEURISTICS
        from snail_envs.training.league import initial_members, load_member

        population = self.league.population
        if CLONE_MEMBER in population and self.stages[0] == "league" and not self.init_from:
            raise ConfigError(
                ("league.population", "stages"),
                "league.population's clone is the policy the stages before the league made: "
                f"it needs a stage before league or an init_from; got {shown(self.stages)}",
            )
        if "heuristic" in population and self.env not in HEURISTICS:
            raise ConfigError(
                "league.population", f"league.population: no heuristic agent for {self.env}"
            )
        try:
            initial_members(self.league)
        except ValueError as problem:
            raise ConfigError("league.population", f"league.population: {problem}") from None
        for spec in population:
            if spec.startswith("ppo:"):
                try:
                    load_member(spec, self.env, self.env_options)
                except ValueError as problem:
                    message = f"league.population: {problem}"
                    raise ConfigError("league.population", message) from None


MAX_GAMES = 2**20
"""The most games a stage may play side by side."""


def machine_memory() -> int | None:
    """This machine's memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def describe_fields(cls: type, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """(name, type, default, documentation) of every field of the config dataclass `cls`
    (`TrainConfig`); a nested dataclass is a mapping without a default of its own, its fields
    after it, named `prefix` + field (`imitation.states`)."""
    hints = typing.get_type_hints(cls)
    docs = attribute_docs(cls)
    rows = []
    for spec in dataclasses.fields(cls):
        default = (
            spec.default_factory()
            if spec.default_factory is not dataclasses.MISSING
            else spec.default
        )
        kind = hints[spec.name]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            rows.append((prefix + spec.name, "mapping", "", docs.get(spec.name, "")))
            rows += describe_fields(kind, f"{prefix}{spec.name}.")
            continue
        name = kind.__name__ if isinstance(kind, type) else str(kind).replace("typing.", "")
        rows.append((prefix + spec.name, name, _yaml(default), docs.get(spec.name, "")))
    return rows


def _yaml(value: Any) -> str:
    """`value` as an override writes it (`[128, 128]`, `{random: 0.5}`, `null`, `true`)."""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6)
    return text.removesuffix("\n").removesuffix("\n...").strip()


AT_LEAST_ONE = (
    "total_timesteps",
    "n_envs",
    "n_steps",
    "batch_size",
    "n_epochs",
    "self_play_every",
    "self_play_pool",
    "eval_every",
    "checkpoint_every",
    "torch_threads",
)
AT_LEAST_ZERO = (
    "eval_games",
    "final_eval_games",
    "seed",
    "ent_coef",
    "anchor_coef",
    "anchor_decay_steps",
)


SHORT = reprlib.Repr()
SHORT.maxstring = SHORT.maxother = SHORT.maxlong = 80
SHORT.maxlist = SHORT.maxtuple = SHORT.maxdict = 8
SHORT.maxlevel = 3


def shown(value: Any) -> str:
    """`value` as a message quotes it: its `repr`, cut to about 80 characters (a config may hold
    anything, and its error must stay one short line)."""
    return SHORT.repr(value)


def cut(text: str, longest: int = 240) -> str:
    """`text` (an override as written, a path in it) as a message quotes it: itself, or its
    first characters and `...`."""
    return text if len(text) <= longest else text[: longest - 3] + "..."


def _type_fields(config: Any, prefix: str = "") -> None:
    """Check every field of the dataclass `config` against its type, in place (see `_typed`);
    `prefix` names the dataclass in messages (`imitation.`)."""
    hints = typing.get_type_hints(type(config))
    for spec in dataclasses.fields(config):
        name = f"{prefix}{spec.name}"
        setattr(config, spec.name, _typed(name, getattr(config, spec.name), hints[spec.name]))


def _at_least(config: Any, bound: int, names: Sequence[str], prefix: str = "") -> None:
    """A `ConfigError` for the first of the fields `names` of `config` below `bound`."""
    for name in names:
        if getattr(config, name) < bound:
            message = f"{prefix}{name} must be at least {bound}; got {getattr(config, name)}"
            raise ConfigError(f"{prefix}{name}", message)


def _check_distillation(config: Any, prefix: str) -> None:
    """A `ConfigError` for a distilling stage's step size outside (0, 1) or share of games held
    out outside [0, 1)."""
    if not 0 < config.learning_rate < 1:
        raise ConfigError(
            f"{prefix}learning_rate",
            f"{prefix}learning_rate must be in (0, 1); got {config.learning_rate}",
        )
    if not 0 <= config.held_out < 1:
        raise ConfigError(
            f"{prefix}held_out", f"{prefix}held_out must be in [0, 1); got {config.held_out}"
        )


def _typed(name: str, value: Any, expected: Any, blame: str | None = None) -> Any:
    """`value` as the type `expected` of the field `name` (a numpy integer as an int, an int as
    a float, a mapping as the dataclass it describes, whose fields are checked in turn, None
    where the type is `X | None`), or a `ConfigError` naming the type expected. `blame`: the
    field to blame (default `name`; the items of a list blame the list)."""
    blame = blame or name
    if expected is Any:
        return value
    kind = typing.get_origin(expected) or expected
    if kind in (typing.Union, types.UnionType):
        if value is None:
            return None
        (inner,) = [arg for arg in typing.get_args(expected) if arg is not type(None)]
        return _typed(name, value, inner, blame)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            message = f"{name} must map the names of its fields to values; got {shown(value)}"
            raise ConfigError(blame, message)
        return _build(kind, value, f"{name}.")
    if kind is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise ConfigError(blame, f"{name} must map names to values; got {shown(value)}")
        item = typing.get_args(expected)[1]
        return {key: _typed(f"{name}.{key}", entry, item) for key, entry in value.items()}
    if kind is list:
        item = typing.get_args(expected)[0]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(
                blame, f"{name} must be a list of {item.__name__}; got {shown(value)}"
            )
        return [_typed(f"{name}[{index}]", entry, item, blame) for index, entry in enumerate(value)]
    if kind in (int, float):
        return _number(name, value, kind, blame)
    if not isinstance(value, kind):
        raise ConfigError(blame, f"{name} must be of type {kind.__name__}; got {shown(value)}")
    return value


def _number(name: str, value: Any, kind: type, blame: str) -> int | float:
    """`value` as a finite number of `kind` (an int where a float is meant is fine; a bool or a
    string is not)."""
    allowed = numbers.Integral if kind is int else numbers.Real
    if isinstance(value, bool) or not isinstance(value, allowed):
        raise ConfigError(blame, f"{name} must be of type {kind.__name__}; got {shown(value)}")
    if not math.isfinite(value):
        raise ConfigError(blame, f"{name} must be a finite number; got {value}")
    return kind(value)


def _check_opponents(opponents: dict[str, float]) -> None:
    for kind in opponents:
        if kind not in OPPONENT_KINDS:
            raise ConfigError(
                f"opponents.{kind}",
                f"unknown opponent kind {shown(kind)}{_did_you_mean(kind, OPPONENT_KINDS)}; "
                f"opponents must weight the kinds {', '.join(OPPONENT_KINDS)}",
            )
    if any(weight < 0 for weight in opponents.values()) or sum(opponents.values()) <= 0:
        raise ConfigError(
            "opponents",
            f"opponents must weight the kinds {', '.join(OPPONENT_KINDS)} with non-negative "
            f"numbers, not all zero; got {shown(opponents)}",
        )


def _did_you_mean(name: str, choices: Sequence[str], prefix: str = "") -> str:
    """` (did you mean 'CLOSEST'?)` for the choice closest to `name`, if one is close."""
    close = difflib.get_close_matches(name, choices, n=1)
    return f" (did you mean {prefix + close[0]!r}?)" if close else ""


def _build(cls: type, values: dict[str, Any], prefix: str = "") -> Any:
    """The dataclass `cls` of `values` (its own checks run as it is made), after checking that
    every name is one of its fields; `prefix` names it in messages (`imitation.`)."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    for name in values:
        if name not in names:
            raise ConfigError(
                f"{prefix}{name}",
                f"unknown field {shown(prefix + name)}{_did_you_mean(name, names, prefix)}; "
                f"fields: {', '.join(prefix + known for known in names)}",
            )
    return cls(**values)


MAX_VALUES = 100_000
"""The most values (numbers, texts, lists, mappings) a config may hold, its aliases expanded:
a few hundred bytes of nested aliases would otherwise stand for billions."""
MAX_DIGITS = 100
"""The most digits of an integer in a config."""


class _Loader(yaml.SafeLoader):
    """YAML's safe loader, reading `1e-5` as a float as YAML 1.2 and JSON do (YAML 1.1 wants
    `1.0e-5`): a run's `config.json` writes small learning rates so. A key given twice in one
    mapping, and an integer of more than `MAX_DIGITS` digits, are errors that name their line."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        keys: set[str] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                if key_node.value in keys:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key {shown(key_node.value)} is given twice",
                        key_node.start_mark,
                    )
                keys.add(key_node.value)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: Any) -> int:
        if len(node.value) > MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_DIGITS} digits", node.start_mark
            )
        return super().construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(text: str, where: str) -> Any:
    """The YAML value of `text` (see `_Loader`), of at most `MAX_VALUES` values once its aliases
    are expanded; a `ValueError` that names `where` (and the line) otherwise."""
    try:
        value = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as problem:
        raise ValueError(f"{where}: not valid YAML ({' '.join(str(problem).split())})") from None
    count, waiting = 0, [value]
    while waiting:
        count += 1
        if count > MAX_VALUES:
            raise ValueError(
                f"{where}: its aliases expand to more than {MAX_VALUES:,} values; a config is "
                "far smaller"
            )
        item = waiting.pop()
        if isinstance(item, dict):
            waiting += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            waiting += item
    return value


def rule_presets(game: str) -> list[Path]:
    """The rule presets of `configs/<game>/` (`game`: the game's folder, such as `snap`): every
    YAML file there but the training configs, which name their `env`."""
    presets = []
    for path in sorted((CONFIGS / game).glob("*.yaml")):
        values = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not (isinstance(values, dict) and "env" in values):
            presets.append(path)
    return presets


def default_config_path(env: str, preset: str = "ppo") -> Path:
    """The shipped config `preset` of `env`: `configs/<game>/<preset>.yaml` (`<game>` is the env
    name without its version, `snail_sprint_v0` → `snail_sprint`); by default `ppo.yaml`."""
    return CONFIGS / env.rpartition("_v")[0] / f"{preset}.yaml"


def load_config(
    env: str, path: str | Path | None = None, overrides: Sequence[str] = ()
) -> TrainConfig:
    """The config of `env`: its YAML file (default `configs/<game>/ppo.yaml`), then overrides
    `name=value` (YAML values; `env_options.name=value` for a rule option, `opponents.kind=w`
    for one weight, `imitation.name=value`, `expert_iteration.name=value`,
    `advantage.name=value` and `league.name=value` for a setting of those stages). A missing
    file is a `FileNotFoundError`; every other problem a `ValueError` that blames the file or
    the command line, whichever brought the bad value."""
    source = Path(path) if path is not None else default_config_path(env)
    if not source.is_file():
        raise FileNotFoundError(f"no config file at {source}")
    values = read_yaml(source.read_text(), str(source))
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ValueError(f"{source} must map field names to values; got {shown(values)}")
    values.setdefault("env", env)
    if values["env"] != env:
        raise ValueError(f"{source} is a config for {shown(values['env'])}, not {env}")
    config = build_config(values, str(source))
    if not overrides:
        return config
    given = parse_overrides(overrides)
    if "env" in given:
        raise ValueError(
            f"command line, {cut(given['env'][1])}: the game is chosen by --env, not env="
        )
    merged = {name: dict(value) if name in NESTED else value for name, value in values.items()}
    for name, (value, text) in given.items():
        group, dot, key = name.partition(".")
        if not dot:
            merged[name] = value
        elif isinstance(merged.setdefault(group, {}), dict):
            merged[group][key] = value
        else:
            raise ValueError(
                f"command line, {cut(text)}: {group} is not a mapping of names to values"
            )
    return build_config(merged, "command line", {n: text for n, (_, text) in given.items()})


def parse_overrides(overrides: Sequence[str]) -> dict[str, tuple[Any, str]]:
    """Each override `name=value` as name → (its YAML value, the override as written)."""
    parsed: dict[str, tuple[Any, str]] = {}
    for override in overrides:
        name, separator, text = override.partition("=")
        if not separator or not name:
            raise ValueError(
                f"command line: overrides are written name=value; got {shown(override)}"
            )
        value = read_yaml(text, f"command line, {shown(override)}")
        group, dot, _ = name.partition(".")
        if dot and group not in NESTED:
            raise ValueError(
                f"command line, {override}: only {', '.join(f'{g}.<name>' for g in NESTED)} nest"
            )
        parsed[name] = (value, override)
    return parsed


def build_config(
    values: dict[str, Any], origin: str = "config", overrides: dict[str, str] | None = None
) -> TrainConfig:
    """The `TrainConfig` of `values`, whose problems are blamed on `origin` (and, where the
    bad field was set by one of `overrides`, field → override text, on that override)."""
    try:
        return _build(TrainConfig, values)
    except ConfigError as problem:
        raise ValueError(f"{_where(origin, overrides, problem.fields)}: {problem}") from None


def _where(origin: str, overrides: dict[str, str] | None, fields: Sequence[str]) -> str:
    """`origin`, and the overrides that set one of `fields`: the field itself, the mapping it
    belongs to (`imitation={...}` sets `imitation.states`), or one of its entries
    (`opponents.self=1` sets `opponents`)."""

    def sets(key: str, name: str) -> bool:
        return key == name or name.startswith(f"{key}.") or key.startswith(f"{name}.")

    setting = [
        cut(text)
        for key, text in (overrides or {}).items()
        if any(sets(key, name) for name in fields)
    ]
    return ", ".join([origin, *setting])
