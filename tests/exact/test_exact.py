"""The exact tools (`snail_envs.exact`) on a tiny Snap: OpenSpiel agrees with its
exploitability, CFR+ solves it, agents are tabulated and a solved policy plays as `cfr:PATH`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from snail_envs.agents import make_agent
from snail_envs.exact import load_game, observation_policy, tabulate
from snail_envs.exact.cli import main
from snail_envs.exact.replies import ask, reply_return
from snail_envs.exact.solve import (
    Sweeper,
    best_response,
    cfr_plus,
    exploitability,
    head_to_head,
)
from snail_envs.exact.tree import GameTree, TreeTooLarge, build_tree
from snail_envs.training.exploit import Job, search_reply
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT, SNAILED_IT, SNAP

TINY = {"max_flips": 2}
"""The Snap mini cut to two flips: a tree of about a thousand nodes."""


@pytest.fixture(scope="module")
def tiny() -> tuple[GameTree, object]:
    game = load_game(SNAP, "mini", TINY)
    return build_tree(game), game


def test_the_exploitability_of_random_play_is_openspiels(tiny: tuple) -> None:
    import pyspiel
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    tree, game = tiny
    turns = pyspiel.convert_to_turn_based(game)
    expected = openspiel_exploitability.exploitability(turns, policy.UniformRandomPolicy(turns))
    ours = exploitability(tree, Sweeper(tree).uniform())
    assert ours.exploitability == pytest.approx(expected, abs=1e-9)
    assert ours.exploitability > 0.1


def test_a_best_response_does_at_least_as_well_as_the_policy(tiny: tuple) -> None:
    tree, _ = tiny
    uniform = Sweeper(tree).uniform()
    played = Sweeper(tree).values(uniform)[0]
    for seat in range(2):
        response, value = best_response(tree, uniform, seat)
        assert value >= played[seat] - 1e-12
        assert set(np.unique(response[Sweeper(tree).slot_seat == seat])) <= {0.0, 1.0}


def test_cfr_plus_solves_the_tiny_mini(tiny: tuple) -> None:
    tree, _ = tiny
    run = cfr_plus(tree, target=0.001, max_iterations=2000)
    assert run.progress[-1][1] <= 0.001
    assert exploitability(tree, run.average).exploitability <= 0.001


def test_random_play_tabulates_as_the_uniform_policy(tiny: tuple) -> None:
    tree, game = tiny
    policy = tabulate(tree, game, make_agent("random", SNAP, seed=0))
    assert np.allclose(policy, Sweeper(tree).uniform())


def test_a_solved_policy_plays_as_a_cfr_agent_and_keeps_its_value(
    tiny: tuple, tmp_path: Path
) -> None:
    from snail_envs.agents import rule_options
    from snail_envs.agents.cfr import TabularPolicyAgent

    tree, game = tiny
    run = cfr_plus(tree, target=0.001, max_iterations=2000)
    options = game.setup.env_options
    saved = TabularPolicyAgent(
        SNAP, rule_options(options), observation_policy(tree, game, run.average)
    )
    path = tmp_path / "policy.json"
    saved.save(path, {"algorithm": "CFR+"})
    with pytest.raises(FileExistsError):
        saved.save(path, {})
    agent = make_agent(f"cfr:{path}", SNAP, options=options)
    played = exploitability(tree, tabulate(tree, game, agent)).exploitability
    # the tiny mini's observations tell its information states apart, so nothing is lost
    assert played == pytest.approx(exploitability(tree, run.average).exploitability, abs=1e-9)


def test_a_policy_file_for_other_rules_or_not_a_policy_is_refused(tmp_path: Path) -> None:
    from snail_envs.agents.cfr import TabularPolicyAgent

    TabularPolicyAgent(SNAP, {"max_flips": 2}, {}).save(tmp_path / "p.json", {})
    with pytest.raises(ValueError, match="solved for the rule options"):
        make_agent(f"cfr:{tmp_path / 'p.json'}", SNAP, options={"max_flips": 3})
    (tmp_path / "bad.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="not a policy file"):
        make_agent(f"cfr:{tmp_path / 'bad.json'}", SNAP)


def test_a_tree_over_the_budget_stops_naming_its_size(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(TreeTooLarge, match="more than 50 nodes"):
        build_tree(load_game(SNAP, "mini"), max_nodes=50)
    assert main(["--env", SNAP, "--agent", "random", "--max-nodes", "50"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "more than 50 nodes" in error
    assert main(["--env", SNAILED_IT, "--agent", "random", "--max-nodes", "50"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "more than 50 nodes" in error
    assert "shrink it with the options colours, values, starters, hand_size, max_rounds" in error


def test_the_command_solves_and_saves_a_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "cfr.json"
    arguments = [
        "--env",
        SNAP,
        "--option",
        "max_flips=2",
        "--agent",
        "random",
        "--solve",
        str(path),
    ]
    assert main(arguments) == 0
    assert "| random |" in capsys.readouterr().out
    assert json.loads(path.read_text())["solver"]["exploitability"] <= 0.01
    assert main(arguments) == 2
    assert "exists" in capsys.readouterr().err


@pytest.mark.slow
def test_cfr_plus_solves_the_snap_mini_within_its_documented_budget() -> None:
    tree = build_tree(load_game(SNAP, "mini"))
    run = cfr_plus(tree, target=0.01, max_seconds=600)
    assert exploitability(tree, run.average).exploitability <= 0.01


def test_the_pedzace_mini_cut_to_two_turns_is_solved_and_its_agents_tabulated() -> None:
    """The Pędzące Ślimaki mini (three snails, dice of 1 and the snail face) cut to two turns:
    CFR+ beats both the heuristic and random play, which exact best responses exploit."""
    game = load_game(PEDZACE_SLIMAKI, "mini", {"max_turns": 2})
    tree = build_tree(game)
    run = cfr_plus(tree, target=0.001, max_iterations=2000)
    solved = exploitability(tree, run.average).exploitability
    assert solved <= 0.001
    for spec in ("heuristic", "random"):
        agent = make_agent(spec, PEDZACE_SLIMAKI, seed=0, options=game.setup.env_options)
        assert exploitability(tree, tabulate(tree, game, agent)).exploitability > solved + 0.02


@pytest.mark.slow
def test_cfr_plus_solves_the_pedzace_mini_within_its_documented_budget() -> None:
    tree = build_tree(load_game(PEDZACE_SLIMAKI, "mini"))
    run = cfr_plus(tree, target=0.01, max_seconds=600)
    assert exploitability(tree, run.average).exploitability <= 0.01


def test_the_snail_sprint_mini_is_solved_and_random_play_is_exploitable() -> None:
    """The Snail Sprint! mini (three snails, three spaces, three rolls): CFR+ solves it; random
    play is exploitable."""
    game = load_game(SNAIL_SPRINT, "mini")
    tree = build_tree(game)
    run = cfr_plus(tree, target=0.001, max_iterations=2000)
    solved = exploitability(tree, run.average).exploitability
    assert solved <= 0.001
    agent = make_agent("random", SNAIL_SPRINT, seed=0, options=game.setup.env_options)
    assert exploitability(tree, tabulate(tree, game, agent)).exploitability > solved + 0.02


def test_the_snailed_it_mini_with_four_values_is_solved_and_its_agents_tabulated() -> None:
    """The Snailed It! mini (one orange row on the starters 1 and 3, two cards a hand, one
    round) with the values 1 to 4 only, every card dealt: CFR+ beats both the heuristic and
    random play, which exact best responses exploit."""
    game = load_game(SNAILED_IT, "mini", {"values": 4})
    tree = build_tree(game)
    run = cfr_plus(tree, target=0.001, max_iterations=2000)
    solved = exploitability(tree, run.average).exploitability
    assert solved <= 0.001
    for spec in ("heuristic", "random"):
        agent = make_agent(spec, SNAILED_IT, seed=0, options=game.setup.env_options)
        assert exploitability(tree, tabulate(tree, game, agent)).exploitability > solved + 0.02


@pytest.mark.slow
def test_cfr_plus_solves_the_snailed_it_mini_within_its_documented_budget() -> None:
    tree = build_tree(load_game(SNAILED_IT, "mini"))
    run = cfr_plus(tree, target=0.01, max_seconds=600)
    assert exploitability(tree, run.average).exploitability <= 0.01


@pytest.mark.parametrize("name, options", [(SNAP, TINY), (SNAIL_SPRINT, {})])
def test_a_reply_asked_on_replayed_tables_scores_what_its_tabulation_scores(
    name: str, options: dict
) -> None:
    """`reply_return` asks a reply on tables played up to each information state it reaches
    (windows of calls in Snap, dice in Snail Sprint!); for an agent that acts on its
    observation that is the sweep of its tabulated policy."""
    game = load_game(name, "mini", options)
    tree = build_tree(game)
    rules = game.setup.env_options
    heuristic = make_agent("heuristic", name, options=rules)
    for spec in ("random", "heuristic"):
        target = tabulate(tree, game, make_agent(spec, name, options=rules))
        value, asked = reply_return(tree, game, heuristic, target)
        assert value == pytest.approx(head_to_head(tree, tabulate(tree, game, heuristic), target))
        assert 0 < asked < len(tree.infosets)


def test_a_search_replys_exact_return_is_repeatable_and_no_better_than_the_best_response() -> None:
    """The belief-weighted search reply, asked where the game reaches: the same seed gives the
    same return, which no reply can make larger than the exact best response's."""

    game = load_game(SNAP, "mini", TINY)
    tree = build_tree(game)
    rules = game.setup.env_options
    target = tabulate(tree, game, make_agent("heuristic", SNAP, options=rules))
    job = Job(SNAP, "heuristic", rules, 60, search_iterations=20, search_engine="python")
    first, asked = reply_return(tree, game, search_reply(job), target, seed=3)
    again, _ = reply_return(tree, game, search_reply(job), target, seed=3)
    best = exploitability(tree, target).best_response_rotating
    assert first == again
    assert asked > 0
    assert head_to_head(tree, target, target) < first <= best + 1e-12


def test_a_search_branching_on_observations_plays_the_best_response_at_a_decision() -> None:
    """At this first decision of player_0 against the heuristic in the Pędzące Ślimaki mini,
    where the best move depends on how the seat will play after the next roll of the dice, the
    search reply (branching on what the seat sees, 1,000 iterations) plays the exact best
    response's move."""
    game = load_game(PEDZACE_SLIMAKI, "mini")
    tree = build_tree(game)
    rules = game.setup.env_options
    target = tabulate(tree, game, make_agent("heuristic", PEDZACE_SLIMAKI, options=rules))
    response, _ = best_response(tree, target, 0)
    info = next(i for i in tree.infosets if i.key.startswith(FUSED_DECISION))
    best = info.actions[int(np.argmax(response[info.first : info.first + len(info.actions)]))]
    node = int(np.flatnonzero(tree.infoset == info.index)[0])
    job = Job(
        PEDZACE_SLIMAKI,
        "heuristic",
        rules,
        60,
        search_iterations=1000,
        search_engine="python",
        search_value="margin",
        search_branch_on="observations",
    )
    assert ask(tree, game, search_reply(job), node, seed=0) == best


FUSED_DECISION = "decision 1 | history 96f27974bf54208cead248ea48091718 | player 0"
"""An information state of the Pędzące Ślimaki mini where the search, branching on its actions
alone (one later choice for every roll of the dice), left the exact best response's move for
another worth half as much (`snail_envs.exact.replies` over the whole mini at 1,000
iterations, before a search with a rollout player tried that player's move first)."""
