"""Agents: legal choices only, the heuristics' key decisions, deterministic search, people."""

from __future__ import annotations

import random

import numpy as np
import pytest

import snail_envs
from snail_envs.agents import (
    HEURISTICS,
    HumanAgent,
    ISMCTSAgent,
    RandomAgent,
    choose_action,
    ismcts,
    make_agent,
)
from snail_envs.agents.heuristics.snail_sprint import SnailSprintHeuristic
from snail_envs.apps.play import main as play_main
from snail_envs.apps.play import play_game
from snail_envs.core.testing import deciding_agents, play_steps
from snail_envs.snail_sprint.observer import OBSERVATION
from snail_envs.snail_sprint.rules import Snail


def random_states(env_name: str, count: int, seed: int = 0, **options: object):
    """Environments stopped at `count` random decision points, with the agent to act."""
    rng = random.Random(seed)
    env = snail_envs.make(env_name, **options)
    found = 0
    game_seed = seed
    while found < count:
        env.reset(seed=game_seed)
        game_seed += 1
        for agent in deciding_agents(env):
            if rng.random() < 0.2:
                yield env, agent
                found += 1
                if found >= count:
                    return
            env.step(rng.choice(env.unwrapped.legal_actions(agent)))


@pytest.mark.parametrize("env_name", sorted(HEURISTICS))
@pytest.mark.parametrize("kind", ["random", "heuristic", "ismcts:10"])
def test_agents_choose_only_legal_actions(env_name: str, kind: str) -> None:
    player = make_agent(kind, env_name, seed=1, options={"num_players": 3})
    count = 30 if kind.startswith("ismcts") else 400
    for env, agent in random_states(env_name, count, num_players=3):
        assert choose_action(player, env, agent) in env.unwrapped.legal_actions(agent)


def snail_sprint_view(card: str, spaces: dict[Snail, int]) -> np.ndarray:
    vector = OBSERVATION.zeros()
    for letter in card:
        vector[OBSERVATION.offset("own_race_card") + "YPKGOB".index(letter)] = 1
    for snail in Snail:
        vector[OBSERVATION.offset("snail_spaces") + 37 * snail + spaces.get(snail, 0)] = 1
    return vector


def mask(*snails: Snail) -> np.ndarray:
    legal = np.zeros(6, dtype=np.int8)
    legal[list(snails)] = 1
    return legal


def test_snail_sprint_heuristic_moves_its_own_snail_first() -> None:
    heuristic = SnailSprintHeuristic()
    view = snail_sprint_view("YOB", {Snail.STAR: 3, Snail.FLOWER: 20})
    assert heuristic.act(view, mask(Snail.STAR, Snail.FLOWER)) == Snail.STAR


def test_snail_sprint_heuristic_pushes_its_leader_and_holds_back_the_rearmost_stranger() -> None:
    heuristic = SnailSprintHeuristic()
    view = snail_sprint_view(
        "YOB", {Snail.STAR: 3, Snail.SQUARE: 12, Snail.FLOWER: 9, Snail.CIRCLE: 2}
    )
    assert heuristic.act(view, mask(Snail.STAR, Snail.SQUARE)) == Snail.SQUARE
    assert heuristic.act(view, mask(Snail.FLOWER, Snail.CIRCLE)) == Snail.CIRCLE


def test_ismcts_with_a_fixed_seed_is_deterministic() -> None:
    choices = []
    for _ in range(2):
        env = snail_envs.make("snail_sprint_v0", num_players=3)
        env.reset(seed=5)
        search = ISMCTSAgent(iterations=40, seed=9)
        trace = []
        for _agent, _action in zip(range(12), play_steps(env, random.Random(0)), strict=False):
            if env.agents and env.unwrapped.legal_actions(env.agent_selection):
                trace.append(search.act_in(env, env.agent_selection))
        choices.append(trace)
    assert choices[0] == choices[1] and choices[0]


def test_ismcts_finds_the_winning_move() -> None:
    """Toy game (tests/core/toy_game.py), counter 6 of 8, scores 1–1, player_0 to add: adding
    two ends the game in a shared win at once; adding one opens a window in which player_1 can
    claim the odd counter and take the lead."""
    from tests.core.toy_game import ADD_TWO, ToyAEC

    env = ToyAEC(num_players=2, target=8)
    env.reset(seed=0)
    env.game.counter = 6
    env.game.score = [1, 1]
    assert ISMCTSAgent(iterations=100, seed=0).act_in(env, "player_0") == ADD_TWO


def test_human_agent_explains_bad_input_and_asks_again() -> None:
    env = snail_envs.make("snail_sprint_v0")
    env.reset(seed=0)
    agent = env.agent_selection
    legal = env.unwrapped.legal_actions(agent)
    answers = iter(["", "star", str(len(legal) + 1), f" {len(legal)} "])
    shown: list[str] = []
    human = HumanAgent(read=lambda prompt: next(answers), write=shown.append)
    assert human.act_in(env, agent) == legal[-1]
    assert any("your race card" in line for line in shown)
    assert sum("is not a choice" in line for line in shown) == 3
    assert any(line.strip().startswith("1. move the") for line in shown)


def test_human_agent_stops_cleanly_at_end_of_input() -> None:
    env = snail_envs.make("snail_sprint_v0")
    env.reset(seed=0)

    def no_input(prompt: str) -> str:
        raise EOFError

    with pytest.raises(SystemExit, match="no more input"):
        HumanAgent(read=no_input, write=lambda text: None).act_in(env, env.agent_selection)


def test_play_runs_a_full_game_with_bots_and_records_it(tmp_path, capsys) -> None:
    target = tmp_path / "game.gif"
    play_main(["snail_sprint_v0", "--seats", "heuristic,random,ismcts:5", "--record", str(target)])
    out = capsys.readouterr().out
    assert "> ismcts: " in out and "game over" in out
    from PIL import Image

    with Image.open(target) as gif:
        assert gif.n_frames > 5


def test_play_never_replaces_a_recording_unasked(tmp_path, capsys) -> None:
    target = tmp_path / "game.gif"
    target.write_bytes(b"mine")
    arguments = ["snail_sprint_v0", "--seats", "heuristic,random", "--record", str(target)]
    with pytest.raises(SystemExit) as refused:
        play_main(arguments)
    assert refused.value.code == 1 and target.read_bytes() == b"mine"
    assert capsys.readouterr().err == (
        f"snail-play: error: {target} exists already; give --overwrite "
        "(overwrite=True) to replace it\n"
    )
    play_main([*arguments, "--overwrite"])
    assert target.read_bytes().startswith(b"GIF")
    assert [path.name for path in tmp_path.iterdir()] == ["game.gif"]


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ("human", "num_players must be an integer from 2 to 4; got 1"),
        ("heuristic,genius", "unknown agent 'genius'; agents: random"),
        ("ppo,ppo:nowhere", "no trained policy at nowhere"),
    ],
)
def test_play_ends_a_mistake_with_one_line(seats: str, message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        play_main(["snail_sprint_v0", "--seats", seats])
    error = capsys.readouterr().err
    assert stopped.value.code == 1 and error.count("\n") == 1
    assert error.startswith("snail-play: error: ") and message in error


def test_play_ends_on_ctrl_c_with_one_line(monkeypatch, capsys) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("snail_envs.apps.play.play_game", interrupted)
    with pytest.raises(SystemExit) as stopped:
        play_main(["snail_sprint_v0", "--seats", "human,random"])
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "snail-play: interrupted\n"


def test_play_returns_each_seats_result() -> None:
    returns = play_game("snail_sprint_v0", ["heuristic", "random"], seed=3, show=False)
    assert sorted(returns) == ["player_0", "player_1"]
    assert all(value in (-1.0, 1.0) for value in returns.values())


def test_make_agent_rejects_unknown_agents() -> None:
    with pytest.raises(ValueError, match="unknown agent 'genius'; agents: random, heuristic"):
        make_agent("genius", "snail_sprint_v0")
    with pytest.raises(ValueError, match="ismcts takes a number of iterations"):
        make_agent("ismcts:many", "snail_sprint_v0")
    with pytest.raises(ValueError, match="followed by heuristic, model, points, margin, each once"):
        make_agent("ismcts:50:greedy", "snail_sprint_v0")
    with pytest.raises(ValueError, match="one of 'reward', 'points', 'margin'; got 'score'"):
        ISMCTSAgent(value="score")
    with pytest.raises(ValueError, match="one of 'actions', 'observations'; got 'cards'"):
        ISMCTSAgent(branch_on="cards")
    with pytest.raises(ValueError, match="all zero"):
        RandomAgent(0).act(np.zeros(3), np.zeros(3, dtype=np.int8))


def test_ismcts_rollouts_can_be_played_by_an_agent() -> None:
    """With `rollout=`, every rollout move comes from that agent, acting on the observation of the
    seat to move in the sampled world."""

    class Counting(RandomAgent):
        calls = 0

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            Counting.calls += 1
            assert observation.shape == (487,) and action_mask.sum() >= 1
            return super().act(observation, action_mask)

    env = snail_envs.make("snail_sprint_v0", num_players=3)
    env.reset(seed=2)
    choices = [
        ISMCTSAgent(iterations=15, seed=4, rollout=Counting(0)).act_in(env, env.agent_selection)
        for _ in range(2)
    ]
    assert Counting.calls > 15 * 5
    assert choices[0] == choices[1]


def test_ismcts_spec_names_its_rollout_policy() -> None:
    searcher = make_agent("ismcts:50:heuristic", "pedzace_slimaki_v0", seed=1)
    assert searcher.iterations == 50
    assert isinstance(searcher.rollout, HEURISTICS["pedzace_slimaki_v0"])
    assert searcher.value == "reward"
    plain = make_agent("ismcts:50", "pedzace_slimaki_v0")
    assert plain.rollout is None and plain.value == "reward"
    assert make_agent("ismcts:50:points", "pedzace_slimaki_v0").value == "points"
    both = make_agent("ismcts:9:points:heuristic", "pedzace_slimaki_v0")
    assert both.value == "points" and both.iterations == 9 and both.rollout is not None
    assert both.opponents is None
    modelled = make_agent("ismcts:9:model", "pedzace_slimaki_v0")
    assert isinstance(modelled.opponents, HEURISTICS["pedzace_slimaki_v0"])
    assert modelled.rollout is None
    with pytest.raises(ValueError, match="each once"):
        make_agent("ismcts:9:model:model", "pedzace_slimaki_v0")
    assert make_agent("ismcts:9:margin:model", "pedzace_slimaki_v0").value == "margin"
    with pytest.raises(ValueError, match="points or for the margin, not both"):
        make_agent("ismcts:9:points:margin", "pedzace_slimaki_v0")


class ToldHeuristic:
    """A heuristic that remembers the rule options it was built for."""

    def __init__(self, rules: dict) -> None:
        self.rules = rules

    @classmethod
    def for_rules(cls, rule_options) -> ToldHeuristic:
        return cls(dict(rule_options))


def test_every_heuristic_is_told_the_tables_rules(monkeypatch) -> None:
    """make_agent builds a heuristic for the rule options of its table, host options left out,
    also inside a search (heuristic rollouts, the opponent model)."""
    monkeypatch.setitem(HEURISTICS, "snail_sprint_v0", ToldHeuristic)
    table = {"num_players": 3, "tin_order": "reversed", "reward": "points", "render_mode": None}
    rules = {"num_players": 3, "tin_order": "reversed"}
    assert make_agent("heuristic", "snail_sprint_v0", options=table).rules == rules
    searcher = make_agent("ismcts:9:heuristic:model", "snail_sprint_v0", options=table)
    assert searcher.rollout.rules == searcher.opponents.rules == rules


def test_a_margin_is_the_points_gained_less_the_others_mean() -> None:
    """Two seats: the change in the lead; three: less the mean of the other two."""
    assert dict(ismcts._margins({"a": 3.0, "b": 1.0}, ["a", "b"])) == {"a": 2.0, "b": -2.0}
    three = ismcts._margins({"a": 6.0, "c": 2.0}, ["a", "b", "c"])
    assert dict(three) == {"a": 5.0, "b": -4.0, "c": -1.0}


def test_a_points_search_keeps_exploring_while_every_return_is_the_same() -> None:
    """Scaled by the spread of the returns seen, UCB1's exploration would be 0 while every
    return is the same (a game whose points come rarely), and the search would follow the first
    action tried for good; unscaled until returns differ, it tries both alike."""
    search = ISMCTSAgent(iterations=1, seed=0, value="margin")
    search._lowest = search._highest = 0.0
    root = ismcts._Node("player_0")
    for _ in range(100):
        _, child, _ = search._descend(root, "player_0", b"", [0, 2])
        child.visits += 1
    assert min(root.children["player_0", b"", action].visits for action in (0, 2)) >= 45


def test_a_search_branching_on_observations_keeps_choices_seen_differently_apart() -> None:
    """One node for each action and what the seat saw when it chose, so that a later choice
    is made apart for every roll of the dice that led to it."""
    search = ISMCTSAgent(iterations=1, seed=0, branch_on="observations")
    root = ismcts._Node("player_0")
    _, one_roll, _ = search._descend(root, "player_0", b"rolled 1", [0])
    _, other_roll, _ = search._descend(root, "player_0", b"rolled 2", [0])
    assert one_roll is not other_roll
    assert set(root.children) == {("player_0", b"rolled 1", 0), ("player_0", b"rolled 2", 0)}


def test_a_search_with_a_rollout_player_expands_its_move_first_and_others_when_urgent() -> None:
    """The rollout player's move is tried first; another untried move only where it is more
    urgent than the best tried one (as one visit at the mean of those tried): after one bad
    move has been tried, the last untried one waits while the rollout player's move leads."""
    search = ISMCTSAgent(iterations=1, seed=0)
    root = ismcts._Node("player_0")
    action, child, in_tree = search._descend(root, "player_0", b"", [0, 1, 2], lambda: 2)
    assert (action, in_tree) == (2, False)
    child.visits, child.total = 5, 5.0
    action, child, in_tree = search._descend(root, "player_0", b"", [0, 1, 2], lambda: 2)
    assert action in (0, 1) and not in_tree  # as urgent as a move tried once, at the mean
    child.visits, child.total = 5, -50.0
    action, child, in_tree = search._descend(root, "player_0", b"", [0, 1, 2], lambda: 2)
    assert (action, in_tree) == (2, True)
    assert len(root.children) == 2


def test_ismcts_opponent_model_plays_every_other_seat() -> None:
    """With `opponents=`, the other seats act as the model would, each on its own observation of
    the world drawn; the tree holds the searching seat's decisions only."""

    class Recording(RandomAgent):
        def __init__(self) -> None:
            super().__init__(0)
            self.cards_seen: list[frozenset[int]] = []

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            self.cards_seen.append(frozenset(np.flatnonzero(observation[:6])))
            return super().act(observation, action_mask)

    env = snail_envs.make("snail_sprint_v0", num_players=3)
    env.reset(seed=2)
    searcher = env.agent_selection
    own_card = frozenset(np.flatnonzero(env.observe(searcher)["observation"][:6]))
    model = Recording()
    search = ISMCTSAgent(iterations=15, seed=4, opponents=model)
    root = ismcts._Node(None)
    for seed in range(15):
        search._iterate(env.unwrapped.resample_from_infostate(searcher, seed), root, searcher)

    def actors(node: ismcts._Node) -> set[str | None]:
        return {node.actor}.union(*(actors(child) for child in node.children.values()))

    assert len(model.cards_seen) > 15 and own_card not in model.cards_seen
    assert actors(root) == {None, searcher} and root.children


def test_ismcts_tells_branches_apart_by_seat() -> None:
    """After the same history, different worlds may give the move to different seats; a seat's
    statistics never mix with another seat's for the same action number."""
    searcher = ISMCTSAgent(iterations=1, seed=0)
    root = ismcts._Node(None)
    _, first, _ = searcher._descend(root, "player_0", b"", [0])
    _, second, _ = searcher._descend(root, "player_1", b"", [0])
    assert first is not second
    assert (first.actor, second.actor) == ("player_0", "player_1")


def test_ismcts_searching_for_points_is_deterministic_and_legal() -> None:
    env = snail_envs.make("pedzace_slimaki_v0", num_players=3)
    env.reset(seed=4)
    agent = env.agent_selection
    for value in ("points", "margin"):
        choices = {
            ISMCTSAgent(iterations=20, seed=6, value=value).act_in(env, agent) for _ in range(2)
        }
        assert len(choices) == 1 and choices <= set(env.unwrapped.legal_actions(agent))
