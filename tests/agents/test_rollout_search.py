"""Rollout search: legal and reproducible choices, the heuristic's own choice unless rollouts
show a significantly better one, its paired advantages, and its spec."""

from __future__ import annotations

import copy
import importlib.util
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import RolloutSearchAgent, choose_action, make_agent
from snail_envs.agents.heuristics.snailed_it import SnailedItHeuristic
from snail_envs.agents.rollout_search import PairedComparison, lead_shares
from snail_envs.core.testing import deciding_agents
from tests.names import PEDZACE_SLIMAKI, SNAP

pytest.importorskip("numba")


def decisions(
    count: int, seed: int = 0, env_name: str = "snailed_it_v0", **options: Any
) -> Iterator[tuple[Any, str]]:
    """Environments of random games stopped at `count` decisions with a choice."""
    rng = random.Random(seed)
    env = snail_envs.make(env_name, **options)
    found = 0
    for game_seed in range(seed, seed + 1000):
        env.reset(seed=game_seed)
        for agent in deciding_agents(env):
            legal = env.unwrapped.legal_actions(agent)
            if len(legal) > 1 and rng.random() < 0.1:
                yield env, agent
                found += 1
                if found == count:
                    return
            env.step(rng.choice(legal))


def test_rollout_search_chooses_only_legal_actions_and_sometimes_not_the_heuristics() -> None:
    search = make_agent("rollout:16", "snailed_it_v0", seed=1)
    heuristic = SnailedItHeuristic()
    departures = 0
    for env, agent in decisions(60, num_players=3):
        action = choose_action(search, env, agent)
        assert action in env.unwrapped.legal_actions(agent)
        departures += action != choose_action(heuristic, env, agent)
    assert 0 < departures < 30


def test_without_evidence_it_plays_the_heuristics_choice() -> None:
    """One world gives no spread to measure, so no advantage is significant; nor is one that
    needs more than a thousand standard errors."""
    blind = RolloutSearchAgent("snailed_it_v0", worlds=1, seed=0)
    doubting = RolloutSearchAgent("snailed_it_v0", worlds=8, z=1000.0, seed=0)
    heuristic = SnailedItHeuristic(card_points=[2] * 18)
    for env, agent in decisions(40, seed=3, num_players=4, card_points=[2] * 18):
        expected = choose_action(heuristic, env, agent)
        assert choose_action(blind, env, agent) == expected
        assert choose_action(doubting, env, agent) == expected


def test_advantages_are_paired_world_by_world() -> None:
    """Action 4 gains 1 point in every world over the heuristic's action 2, whatever the
    world's luck: no spread at all; action 7 gains 3 in one world of two and loses 1 in the
    other."""
    margins = np.array([[10.0, 11.0, 13.0], [-5.0, -4.0, -6.0]])
    compared = PairedComparison(legal=[2, 4, 7], heuristic=2, values=margins)
    mean, stderr = compared.advantages()
    assert mean.tolist() == [0.0, 1.0, 1.0] and stderr.tolist() == [0.0, 0.0, 2.0]
    mean, stderr = compared.advantages(over=7)
    assert mean.tolist() == [-1.0, 0.0, 0.0] and stderr == pytest.approx([2.0, 2.0, 0.0])
    assert compared.choice(z=2.0) == 4
    one_world = PairedComparison(legal=[2, 4], heuristic=2, values=np.array([[0.0, 9.0]]))
    assert np.isinf(one_world.advantages().stderr).all() and one_world.choice(z=0.0) == 2


def test_its_choice_is_its_comparisons() -> None:
    states = [(copy.deepcopy(env), agent) for env, agent in decisions(6, seed=9, num_players=3)]
    playing = RolloutSearchAgent("snailed_it_v0", worlds=8, seed=2)
    comparing = RolloutSearchAgent("snailed_it_v0", worlds=8, seed=2)
    for env, agent in states:
        compared = comparing.compare(env.unwrapped, agent, env.unwrapped.legal_actions(agent))
        assert playing.act_in(env, agent) == compared.choice(comparing.z)
        assert compared.values.shape == (8, len(compared.legal))


def test_rollout_search_with_a_fixed_seed_is_deterministic() -> None:
    states = [(copy.deepcopy(env), agent) for env, agent in decisions(8, seed=7, num_players=3)]
    first = RolloutSearchAgent("snailed_it_v0", worlds=8, seed=4)
    second = RolloutSearchAgent("snailed_it_v0", worlds=8, seed=4)
    choices = [first.act_in(env, agent) for env, agent in states]
    assert choices == [second.act_in(env, agent) for env, agent in states]
    first.reset(4)
    assert choices == [first.act_in(env, agent) for env, agent in states]


@pytest.mark.parametrize(
    ("env_name", "options", "sign"),
    [("snailed_it_v0", {"num_players": 3}, -1), (PEDZACE_SLIMAKI, {"num_players": 3}, 1)],
)
def test_a_margin_is_the_seats_points_less_the_others_mean(
    env_name: str, options: dict[str, Any], sign: int
) -> None:
    """The points a rollout adds to each total, as the engine gives them (`rollout`), make the
    searching seat's margin: its own less the mean of the others' where the most points win
    (Pędzące Ślimaki), the others' mean less its own where the fewest win (Snailed It!)."""
    search = RolloutSearchAgent(env_name, worlds=8, seed=5)
    for env, agent in decisions(5, seed=2, env_name=env_name, **options):
        legal = env.unwrapped.legal_actions(agent)
        compared = search.compare(env.unwrapped, agent, legal)
        seat = env.possible_agents.index(agent)
        gained = search._batch.rollout(seat, legal, search.horizon)  # the worlds compared
        others = np.delete(gained, seat, axis=2).mean(axis=2)
        assert compared.values == pytest.approx(sign * (gained[:, :, seat] - others))


def test_a_lead_share_scores_a_rollout_as_a_game_is_scored() -> None:
    """1 to the one leader, ½ to each seat sharing the lead, 0 to the others; the leader has
    the most points, or the fewest where the lowest total wins."""
    totals = np.array([[[9.0, 4.0, 7.0], [5.0, 5.0, 2.0], [3.0, 6.0, 6.0]]])
    assert lead_shares(totals, 0, lowest_wins=False).tolist() == [[1.0, 0.5, 0.0]]
    assert lead_shares(totals, 2, lowest_wins=False).tolist() == [[0.0, 0.0, 0.5]]
    assert lead_shares(totals, 1, lowest_wins=True).tolist() == [[1.0, 0.0, 0.0]]
    assert lead_shares(totals, 2, lowest_wins=True).tolist() == [[0.0, 1.0, 0.0]]


def test_valued_by_the_win_a_world_scores_who_leads_at_the_games_end() -> None:
    """Pędzące Ślimaki, `value="win"`: each world's value is the seat's lead share of every
    seat's points in the world (its record's scores) plus those the rollout adds."""
    search = RolloutSearchAgent(PEDZACE_SLIMAKI, worlds=16, horizon="game", value="win", seed=3)
    seen = set()
    for env, agent in decisions(8, seed=6, env_name=PEDZACE_SLIMAKI, num_players=3, rounds=3):
        legal = env.unwrapped.legal_actions(agent)
        compared = search.compare(env.unwrapped, agent, legal)
        seat = env.possible_agents.index(agent)
        batch = search._batch  # the worlds compared
        totals = batch.games["scores"][:, None, :3] + batch.rollout(seat, legal, "game")
        assert compared.values.tolist() == lead_shares(totals, seat, False).tolist()
        seen.update(compared.values.ravel().tolist())
    assert seen == {0.0, 0.5, 1.0}


def test_in_pedzace_slimaki_it_chooses_legal_dice_and_sometimes_not_the_heuristics() -> None:
    search = make_agent("rollout:32", PEDZACE_SLIMAKI, seed=1)
    heuristic = make_agent("heuristic", PEDZACE_SLIMAKI)
    departures = 0
    for env, agent in decisions(60, seed=4, env_name=PEDZACE_SLIMAKI):
        action = choose_action(search, env, agent)
        assert action in env.unwrapped.legal_actions(agent)
        departures += action != choose_action(heuristic, env, agent)
    assert 0 < departures < 30


def test_rollout_spec_names_its_worlds() -> None:
    assert make_agent("rollout", "snailed_it_v0").worlds == 128
    assert make_agent("rollout:5", "snailed_it_v0").worlds == 5
    assert make_agent("rollout:5:win", "snailed_it_v0").value == "win"
    assert make_agent("rollout:win", PEDZACE_SLIMAKI).worlds == 128
    for spec in ("rollout:many", "rollout:5:lead", "rollout:win:5"):
        with pytest.raises(ValueError, match="rollout takes a number of worlds, then margin or w"):
            make_agent(spec, "snailed_it_v0")
    with pytest.raises(ValueError, match="worlds must be an integer at least 1; got 0"):
        make_agent("rollout:0", "snailed_it_v0")
    searchable = r"\(searchable: snailed_it_v0, pedzace_slimaki_v0\)"
    with pytest.raises(ValueError, match=rf"'{SNAP}' has none {searchable}"):
        make_agent("rollout", SNAP)
    with pytest.raises(ValueError, match="horizon must be one of 'round', 'game'"):
        RolloutSearchAgent("snailed_it_v0", horizon="turn")
    with pytest.raises(ValueError, match="agents: random, heuristic, search, ismcts, rollout"):
        make_agent("rollouts", "snailed_it_v0")


def test_without_numba_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "numba" else find_spec(name, *args),
    )
    with pytest.raises(ImportError, match=r"need numba: pip install -e \".\[batched\]\""):
        make_agent("rollout", "snailed_it_v0")
