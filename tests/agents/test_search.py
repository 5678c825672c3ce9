"""The compiled search: legal and reproducible choices in every game, nothing read that its seat
cannot know, a budget in iterations or seconds, its spec and its errors."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import CompiledSearchAgent, choose_action, make_agent
from snail_envs.agents.beliefs import ModelBelief
from snail_envs.core.testing import deciding_agents
from tests.names import SNAP

pytest.importorskip("numba")

GAMES = [
    ("snailed_it_v0", {"num_players": 3}),
    ("snail_sprint_v0", {"num_players": 3}),
    ("pedzace_slimaki_v0", {"num_players": 3}),
    (SNAP, {"same_tick": "random", "refresh": "shuffle", "glimpse_error": [0.6, 0.3, 0.0]}),
]


def decisions(env_name: str, count: int, seed: int = 0, **options: Any) -> Iterator[Any]:
    """(environment, agent) at `count` decisions with a choice of random games."""
    rng = random.Random(seed)
    env = snail_envs.make(env_name, **options)
    found = 0
    for game_seed in range(seed, seed + 1000):
        env.reset(seed=game_seed)
        for agent in deciding_agents(env):
            legal = env.unwrapped.legal_actions(agent)
            if len(legal) > 1 and rng.random() < 0.2:
                yield env, agent
                found += 1
                if found == count:
                    return
            env.step(rng.choice(legal))


@pytest.mark.parametrize(("env_name", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_the_search_chooses_legal_actions_the_same_for_the_same_seed(env_name, options) -> None:
    first = make_agent("search:128", env_name, seed=4, options=options)
    again = make_agent("search:128", env_name, seed=4, options=options)
    chosen = []
    for env, agent in decisions(env_name, 12, **options):
        action = choose_action(first, env, agent)
        assert action in env.unwrapped.legal_actions(agent)
        assert choose_action(again, env, agent) == action
        chosen.append(action)
    assert first.searched == 12 * 128


@pytest.mark.parametrize(("env_name", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_the_search_reads_nothing_hidden_from_its_seat(env_name, options) -> None:
    """Two games that differ only in what is hidden from the seat (the second redrawn from the
    first, `resample_from_infostate`) get the same choices from searches of the same seed."""
    for number, (env, agent) in enumerate(decisions(env_name, 10, seed=1, **options)):
        other = env.unwrapped.resample_from_infostate(agent, seed=number)
        choices = [
            choose_action(make_agent("search:96", env_name, seed=number, options=options), e, agent)
            for e in (env, other)
        ]
        assert choices[0] == choices[1]


def test_the_search_stops_at_its_time_budget() -> None:
    search = make_agent("search:100000000:batch=8", "snail_sprint_v0", seed=0)
    timed = make_agent("search:0.05s:batch=8", "snail_sprint_v0", seed=0)
    env, agent = next(decisions("snail_sprint_v0", 1))
    choose_action(timed, env, agent)
    assert 8 <= timed.searched < search.iterations


def test_a_search_spec_sets_its_settings() -> None:
    search = make_agent(
        "search:512:batch=16:value=points:rollout=random:opponents=random:exploration=1.5",
        "snail_sprint_v0",
    )
    assert isinstance(search, CompiledSearchAgent)
    assert (search.iterations, search.batch, search.value) == (512, 16, "points")
    assert (search.rollout, search.opponents, search.exploration) == ("random", "random", 1.5)
    timed = make_agent("search:0.5s:horizon=round:depth=1", "snailed_it_v0")
    assert (timed.seconds, timed.horizon, timed.depth) == (0.5, "round", 1)
    guided = make_agent("search:prior=ppo", "snail_sprint_v0")
    assert guided.prior is not None


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("search:fast", "search takes a number of iterations"),
        ("search:-0.5s", "seconds must be a positive time"),
        ("search:0s", "seconds must be a positive time"),
        ("search:0", "iterations must be an integer at least 1"),
        ("search:width=3", "unknown search setting 'width'"),
        ("search:value=luck", "value must be one of"),
        ("search:rollout=smart", "rollout must be one of"),
        ("search:rollout=policy", "rollout=policy plays the rollouts with the prior's policy"),
        ("search:batch=x", "search takes a number of iterations"),
        ("search:depth=-1", "depth must be an integer at least 0"),
    ],
)
def test_a_bad_search_spec_names_the_allowed_values(spec: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        make_agent(spec, "snail_sprint_v0")


def test_a_game_without_a_batched_engine_cannot_be_searched() -> None:
    with pytest.raises(ValueError, match="has none"):
        CompiledSearchAgent("connect_four_v3")


@pytest.mark.parametrize(
    "spec",
    [
        "search:256",
        "search:256:prior=ppo",
        "search:256:depth=1",
        "search:256:prior=ppo:rollout=policy",
    ],
)
def test_every_iteration_visits_one_legal_root_action(spec: str) -> None:
    search = make_agent(spec, "snail_sprint_v0", seed=2)
    for env, agent in decisions("snail_sprint_v0", 6, seed=2):
        host = env.unwrapped
        seat = host.possible_agents.index(agent)
        worlds = search._worlds_for(host.options)
        mask = np.zeros(worlds.num_actions, np.int8)
        mask[host.legal_actions(agent)] = 1
        view = host.observe(agent)["observation"]
        record = worlds.record_of(host.game, 0)
        visits = search.visit_counts(record, seat, mask, host.options, view)
        assert visits.sum() == 256
        assert (visits[mask == 0] == 0).all()


def test_with_a_belief_the_search_draws_its_worlds_among_the_beliefs_tables() -> None:
    # Pędzące Ślimaki, two players, player_1 the heuristic: its moves rule out the cards at
    # which it would have moved otherwise. Every world the search walks holds, for player_1,
    # a card one of the belief's tables holds, never one the belief ruled out.
    env_name = "pedzace_slimaki_v0"
    model = make_agent("heuristic", env_name)
    search = CompiledSearchAgent(
        env_name, iterations=128, belief=ModelBelief(make_agent("heuristic", env_name)), seed=0
    )
    narrowed = 0
    for seed in range(3):
        env = snail_envs.make(env_name, num_players=2)
        env.reset(seed=seed)
        search.reset(seed)
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            elif agent == "player_0":
                action = choose_action(search, env, agent)
                if len(env.unwrapped.legal_actions(agent)) > 1:
                    worlds = search._worlds_for(env.unwrapped.options)
                    held = {
                        int(worlds.record_of(table.game, 0)["card"][1])
                        for table in search.belief.tables
                    }
                    assert set(worlds.games["card"][:, 1].tolist()) <= held
                    narrowed += len(held) == 1
            else:
                action = choose_action(model, env, agent)
            search.watch(env, "player_0", agent, action)
            env.step(action)
    assert narrowed > 0


def test_worlds_of_another_size_or_kind_are_refused() -> None:
    from snail_envs.batched import engine_class

    worlds = engine_class("snail_sprint_v0")(4)
    with pytest.raises(ValueError, match="load_worlds takes 4 records of this engine's games"):
        worlds.load_worlds(np.zeros(3, worlds.game_dtype), seed=0)
    with pytest.raises(ValueError, match="another kind"):
        worlds.load_worlds(np.zeros(4, np.int64), seed=0)
