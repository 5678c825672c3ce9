"""The league stage: a PSRO-style league of MaskablePPO members (`snail_envs.training.league`).

It saves its population, score matrix and meta-strategy at its start and after every round
(`<run>/league/`); a stop request abandons the round under way, and a resumed run plays that
round again from the state saved after the round before.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from snail_envs.training.checkpoints import read_progress
from snail_envs.training.config import CLONE_MEMBER, TrainConfig
from snail_envs.training.curve import TIMESTEPS, evaluation_opponents
from snail_envs.training.league import (
    LeagueState,
    Member,
    MemberJob,
    Population,
    fill_scores,
    initial_members,
    member_seed,
    opponent_weights,
    solve,
    train_member,
    train_on_ray,
)
from snail_envs.training.stages.base import Outcome, Overrides, Resumption, RunContext, timing


def round_line(state: LeagueState) -> str:
    """The state after a round, in a line: the new members, the meta-strategy, the best."""
    report = state.reports[-1]
    mixture = ", ".join(
        f"{name} {weight:.2f}"
        for name, weight in zip(state.names, state.meta_strategy, strict=True)
        if weight > 0
    )
    return (
        f"league round {report['round']}: trained {', '.join(report['members'])}; Nash mixture "
        f"{mixture}; best member {state.best}"
    )


def round_jobs(config: TrainConfig, state: LeagueState, number: int) -> list[MemberJob]:
    """The members round `number` trains: `round_<k>` from the best member, pulled towards it,
    against the meta-strategy's weights; with `league.exploiter`, `exploiter_<k>` from the
    clone against the best member alone."""
    settings = config.league
    best = state.best
    weights = [round(float(weight), 6) for weight in opponent_weights(state, settings)]
    jobs = [
        MemberJob(
            f"round_{number}",
            f"round {number}",
            best,
            best,
            weights,
            member_seed(config.seed, number, 0),
        )
    ]
    if settings.exploiter:
        alone = [float(name == best) for name in state.names]
        seed = member_seed(config.seed, number, 1)
        source = f"exploiter of round {number}"
        jobs.append(MemberJob(f"exploiter_{number}", source, CLONE_MEMBER, None, alone, seed))
    return jobs


class League:
    """Rounds of a PSRO-style league; its policy is the best member (`LeagueState.best`), and
    its state's rounds are its entry in the run's summary."""

    name: ClassVar[str] = "league"
    count: ClassVar[str] = "league_timesteps"
    unit: ClassVar[str] = "league learner timesteps"
    resumable: ClassVar[tuple[str, ...]] = ("league.rounds", "league.address")
    stopping: ClassVar[str] = (
        "in the league stage at once, abandoning the round under way (--resume RUN_DIR plays "
        "that round again)"
    )

    def __init__(self) -> None:
        self.state: LeagueState | None = None

    def describe(self, config: TrainConfig) -> str:
        league = config.league
        extras = " and an exploiter of the best" if league.exploiter else ""
        magnet = (
            f", pulled to the best so far ({league.magnet_coef:g})" if league.magnet_coef else ""
        )
        return (
            f"league, {league.rounds} rounds of a member{extras} trained {league.timesteps:,} "
            f"timesteps against the {league.meta_solver} meta-strategy over "
            f"{', '.join(league.population)} and the members so far{magnet}"
        )

    def resume(self, run_dir: Path, config: TrainConfig) -> Resumption | None:
        """After the last round it saved (or its start); a league of another game or rule
        options, or a state that is not a league's, is refused with a `ValueError`."""
        population = Population(run_dir, config)
        if not population.exists():
            return None
        state = population.load()
        progress = read_progress(state.progress, f"{run_dir}'s league state")
        rounds = config.league.rounds
        exhausted = None
        if state.rounds_done >= rounds:
            exhausted = (
                f"{run_dir} has played {state.rounds_done} rounds of its league, of its "
                f"league.rounds={rounds}; give a larger league.rounds=N to play more"
            )
        announcement = (
            f"resuming {run_dir} in its league stage after round {state.rounds_done} of {rounds}"
        )
        return Resumption(self.name, state, progress, False, exhausted, announcement)

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        if "league.rounds" in given and resumed_in != self.name:
            raise ValueError(
                f"command line, {given['league.rounds'][1]}: only a run stopped in (or ended "
                "with) its league stage can play more rounds"
            )

    def skip(self, context: RunContext, state: Any) -> Outcome:
        """Its state and best member, as it ended."""
        population = Population(context.run_dir, context.config)
        if not population.exists():
            return Outcome(finished=True)
        self.state = population.load()
        return Outcome(finished=True, policy=population.policy(self.state.best))

    def run(self, context: RunContext, state: LeagueState | None) -> Outcome:
        """From its start (the population of `league.population`, its matrix filled) or,
        resumed, after the rounds of `state`, to `league.rounds` rounds or a stop request,
        which abandons the round under way."""
        config, stop = context.config, context.stop
        population = Population(context.run_dir, config)
        with timing(context.progress, self.name) as count:
            try:
                with stop.abandonable():
                    if state is None:
                        state = self.start(context, population)
                        count()
                    self.state = state
                    for number in range(state.rounds_done + 1, config.league.rounds + 1):
                        self.state = self.play_round(context, population, self.state, number)
                        count()
            except KeyboardInterrupt:
                if not stop.requested:
                    raise
                return Outcome(False, None if self.state is None else self.best(population))
        return Outcome(True, self.best(population))

    def best(self, population: Population) -> Any:
        assert self.state is not None
        return population.policy(self.state.best)

    def start(self, context: RunContext, population: Population) -> LeagueState:
        """The population of `league.population` (the clone: the run's network now), its
        score matrix and meta-strategy, saved."""
        config = context.config
        members = initial_members(config.league)
        for member in members:
            if member.name == CLONE_MEMBER:
                population.save_policy(member.name, context.model.policy)
            elif not member.kernel:
                population.save_policy(member.name, population.load_source(member.source))
        state = LeagueState(
            config.env, config.env_options, 0, members, [], [], [], CLONE_MEMBER, {}
        )
        fill_scores(config, population, state, state.names)
        solve(state)
        self.save(context, population, state)
        return state

    def play_round(
        self, context: RunContext, population: Population, before: LeagueState, number: int
    ) -> LeagueState:
        """Round `number`: train its members (`round_jobs`), fill their scores, solve, save."""
        config = context.config
        jobs = round_jobs(config, before, number)
        if config.league.address is None:
            for job in jobs:
                train_member(config, context.run_dir, before, job, context.display)
        else:
            train_on_ray(config, context.run_dir, before, jobs)
        state = copy.deepcopy(before)
        state.members += [Member(job.name, job.source, kernel=False) for job in jobs]
        fill_scores(config, population, state, [job.name for job in jobs])
        solve(state)
        done = state.reports[-1]["league_timesteps"] if state.reports else 0
        state.reports.append(
            {
                "round": number,
                "members": [job.name for job in jobs],
                "opponents": {
                    job.name: {
                        member: weight
                        for member, weight in zip(before.names, job.weights, strict=True)
                        if weight > 0
                    }
                    for job in jobs
                },
                "league_timesteps": done + len(jobs) * config.league.timesteps,
                "best": state.best,
            }
        )
        state.rounds_done = number
        self.save(context, population, state)
        print(round_line(state), flush=True)
        return state

    def save(self, context: RunContext, population: Population, state: LeagueState) -> None:
        """Add the state's point to the learning curve, then save it with the run's progress."""
        self.add_point(context, state)
        state.progress = asdict(context.progress)
        population.save(state)

    def add_point(self, context: RunContext, state: LeagueState) -> None:
        """The best member's score rates against the evaluation opponents that are members,
        from the matrix, as a point of the learning curve."""
        names = state.names
        best = names.index(state.best)
        rates = {
            opponent: [
                state.scores[best][names.index(opponent)],
                *state.intervals[best][names.index(opponent)],
            ]
            for opponent in evaluation_opponents(context.config)
            if opponent in names
        }
        done = state.reports[-1]["league_timesteps"] if state.reports else 0
        context.curve.add(
            {"stage": self.name, self.count: done, TIMESTEPS: context.progress.timesteps, **rates}
        )

    def summary(self, context: RunContext) -> dict[str, Any]:
        state = self.state
        if state is None:
            return {self.name: None}
        return {
            self.name: {
                "rounds": state.reports,
                "members": state.names,
                "meta_strategy": state.meta_strategy,
                "best": state.best,
            }
        }

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        league = summary.get(self.name)
        if not league:
            return []
        return [
            f"league: {len(league['rounds'])} rounds, {len(league['members'])} members; the "
            f"policy is the best member against the Nash mixture, {league['best']}"
        ]

    def stopped(self, summary: Mapping[str, Any]) -> str:
        league = summary.get(self.name)
        done = len(league["rounds"]) if league else 0
        rounds = summary["config"][self.name]["rounds"]
        return (
            f"in the league stage after {done} of its {rounds} rounds, each saved; continue "
            f"with: snail-train --resume {summary['run_dir']}"
        )
