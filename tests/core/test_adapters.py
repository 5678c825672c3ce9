"""The generic AEC and parallel adapters, tested on a toy game with turns, windows and
eliminations (tests/core/toy_game.py)."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import snail_envs
from snail_envs.core import testing
from tests.core.toy_game import ADD_ONE, ADD_TWO, CLAIM, PASS, ToyAEC, ToyParallel, toy_module


def test_pettingzoo_conformance() -> None:
    testing.check_pettingzoo_conformance(toy_module, num_players=3)
    testing.check_pettingzoo_conformance(toy_module, num_players=4, target=20)


def test_random_play_checks_pass_on_the_toy_game() -> None:
    report = testing.check_random_play(lambda: ToyAEC(num_players=4), games=300)
    assert report.games == 300
    assert sum(report.wins.values()) >= 300


def test_no_leak_check_catches_a_leak() -> None:
    class Leaky(ToyAEC):
        def observe(self, agent: str) -> dict:
            observation = super().observe(agent)
            observation["observation"][1] = sum(self.game.secrets)  # others' secrets leak
            return observation

    with pytest.raises(AssertionError, match="leak"):
        testing.check_no_leak(lambda: Leaky(num_players=3), games=3)
    assert testing.check_no_leak(lambda: ToyAEC(num_players=3), games=3) > 0


def test_a_window_tick_is_applied_only_after_its_last_seat_acted() -> None:
    env = ToyAEC(num_players=3)
    env.reset(seed=1)
    assert env.agent_selection == "player_0"
    env.step(ADD_ONE)
    assert env.agent_selection == "player_1"
    before = env.observe("player_2")["observation"].copy()
    env.step(CLAIM)
    assert env.agent_selection == "player_2"
    assert np.array_equal(env.observe("player_2")["observation"], before), (
        "player_2 must not see player_1's choice of the same tick"
    )
    assert env.unwrapped.game.score == [0, 0, 0]
    env.step(PASS)
    assert env.unwrapped.game.score == [0, 1, 0]
    assert env.agent_selection == "player_1"


def test_an_eliminated_seat_gets_minus_one_steps_none_and_leaves() -> None:
    env = ToyAEC(num_players=3)
    env.reset(seed=1)
    env.step(ADD_TWO)  # counter 2: a claim is wrong
    env.step(CLAIM)  # player_1 claims
    env.step(PASS)
    assert env.terminations["player_1"]
    assert env.agent_selection == "player_1"
    assert env.last()[1] == -1.0
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    env.step(None)
    assert env.agents == ["player_0", "player_2"]
    assert env.agent_selection == "player_2"


def test_points_rewards_pay_each_transition() -> None:
    env = ToyAEC(num_players=2, reward="points")
    env.reset(seed=3)
    env.step(ADD_ONE)
    env.step(CLAIM)
    assert env.rewards == {"player_0": 0.0, "player_1": 1.0}


def test_illegal_action_raises_naming_the_legal_actions() -> None:
    env = ToyAEC(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"legal actions: 1 \(add one\), 2 \(add two\)"):
        env.step(CLAIM)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step("add one")
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(1.0)
    for array in (np.array([ADD_ONE]), np.array([[ADD_ONE]]), np.array(ADD_ONE)):
        with pytest.raises(ValueError, match=r"an action must be an integer, got .*legal actions"):
            env.step(array)
    assert env.agent_selection == "player_0"  # nothing was played
    env.step(np.int64(ADD_ONE))
    env.step(np.int32(PASS))
    assert env.agent_selection == "player_2"


def test_penalize_ends_the_game_offender_minus_one_others_zero() -> None:
    env = ToyAEC(num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    env.step(CLAIM)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert not env.observe("player_1")["action_mask"].any()
    for _ in range(3):
        env.step(None)
    assert env.agents == []


def test_order_is_enforced() -> None:
    env = ToyAEC()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before using the environment"):
        env.last()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before using the environment"):
        ToyParallel().observe("player_0")
    env.reset(seed=0)
    for _ in testing.play_steps(env, __import__("random").Random(0)):
        pass
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(None)


def test_bad_options_are_rejected_with_the_allowed_values() -> None:
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 4; got 9"):
        ToyAEC(num_players=9)
    with pytest.raises(ValueError, match="unknown option 'colour'; allowed options: num_players"):
        ToyAEC(colour="red")
    with pytest.raises(
        ValueError, match="reward must be one of 'winlose', 'points', 'margin'; got 'score'"
    ):
        ToyAEC(reward="score")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        ToyAEC(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        ToyAEC(render_mode="window")


def test_numpy_integers_are_integers_and_bools_are_not() -> None:
    env = ToyAEC(num_players=np.int64(4), target=np.int32(9))
    assert env.possible_agents == [f"player_{seat}" for seat in range(4)]
    assert type(env.options.num_players) is int
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 4; got True"):
        ToyAEC(num_players=True)
    pedzace = snail_envs.make("pedzace_slimaki_v0", place_points=np.array([5, 2, 3]).tolist())
    assert pedzace.options.place_points == (5, 2, 3)
    numpy_points = tuple(np.int64(points) for points in range(18))
    snailed_it = snail_envs.make("snailed_it_v0", card_points=numpy_points)
    assert all(type(points) is int for points in snailed_it.options.card_points)
    with pytest.raises(ValueError, match="card_points must be 18 non-negative integers"):
        snail_envs.make("snailed_it_v0", card_points=(True,) * 18)


def test_a_choice_is_one_of_the_values_not_an_array_holding_it() -> None:
    with pytest.raises(
        ValueError, match=r"reward must be one of 'winlose', 'points', 'margin'; got array"
    ):
        ToyAEC(reward=np.array(["points"]))
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        ToyAEC(illegal_action=["raise"])
    assert ToyAEC(reward=np.str_("points")).reward_mode == "points"


def test_truncation_marks_every_live_agent() -> None:
    env = ToyAEC(num_players=2, max_ticks=3)
    env.reset(seed=0)
    env.step(ADD_ONE)
    env.step(PASS)
    env.step(ADD_ONE)
    assert env.truncations == {"player_0": True, "player_1": True}
    assert not any(env.terminations.values())


def test_resample_redraws_only_hidden_information() -> None:
    env = ToyAEC(num_players=4)
    env.reset(seed=5)
    seen = env.observe("player_2")
    secrets = set()
    for seed in range(20):
        twin = env.resample_from_infostate("player_2", seed)
        assert np.array_equal(twin.observe("player_2")["observation"], seen["observation"])
        assert twin.game.secrets[2] == env.game.secrets[2]
        secrets.add(tuple(twin.game.secrets))
    assert len(secrets) > 1


def test_resample_mid_window_hides_choices_already_made_in_the_tick() -> None:
    env = ToyAEC(num_players=4)
    env.reset(seed=5)
    env.step(ADD_ONE)
    env.step(CLAIM)  # player_1's choice of this tick, hidden from player_2
    choices = {env.resample_from_infostate("player_2", seed)._tick_actions[1] for seed in range(30)}
    assert choices == {PASS, CLAIM}


def test_a_fork_keeps_everything_but_the_choices_hidden_in_the_tick() -> None:
    env = ToyAEC(num_players=4)
    env.reset(seed=5)
    env.step(ADD_ONE)
    env.step(CLAIM)  # player_1's choice of this tick, hidden from player_2
    forks = [env.fork_for("player_2", seed) for seed in range(30)]
    assert all(fork.game.secrets == env.game.secrets for fork in forks)
    assert {fork._tick_actions[1] for fork in forks} == {PASS, CLAIM}
    modelled = env.fork_for("player_2", 0, choose=lambda world, agent: PASS)
    assert modelled._tick_actions[1] == PASS
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.fork_for("player_9", 0)


def test_copies_continue_like_the_original() -> None:
    testing.check_copy_continuation(
        lambda: ToyAEC(num_players=4, target=30), seed=2, steps_before_copy=5
    )
    env = ToyParallel(num_players=3)
    env.reset(seed=4)
    twin = pickle.loads(pickle.dumps(env))
    deep = copy.deepcopy(env)
    actions = {"player_0": ADD_TWO, "player_1": PASS, "player_2": PASS}
    assert env.step(actions)[1] == twin.step(actions)[1] == deep.step(actions)[1]


def test_parallel_step_is_one_tick_of_the_acting_seats() -> None:
    env = ToyParallel(num_players=3)
    observations, infos = env.reset(seed=0)
    assert set(observations) == set(infos) == {"player_0", "player_1", "player_2"}
    assert not observations["player_1"]["action_mask"].any()
    observations, rewards, terminations, _truncations, _ = env.step(
        {"player_0": ADD_TWO, "player_1": 3, "player_2": 0}  # non-acting seats are ignored
    )
    assert env.game.counter == 2
    assert list(np.flatnonzero(observations["player_1"]["action_mask"])) == [PASS, CLAIM]
    with pytest.raises(ValueError, match="player_2 acts now but has no action"):
        env.step({"player_1": PASS})
    with pytest.raises(ValueError, match="not in the game"):
        env.step({"player_7": PASS, "player_1": PASS, "player_2": PASS})
    observations, rewards, terminations, _, _ = env.step(
        {"player_0": 0, "player_1": CLAIM, "player_2": PASS}
    )
    assert terminations["player_1"] and rewards["player_1"] == -1.0
    assert env.agents == ["player_0", "player_2"]


def test_the_aec_env_refuses_pettingzoos_generic_parallel_conversion() -> None:
    """Not every agent steps once a cycle (turns, windows of some seats), so aec_to_parallel
    would fail mid-game; the metadata says so up front and the native parallel env is used."""
    from pettingzoo.utils.conversions import aec_to_parallel

    assert ToyAEC.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(ToyAEC())
    assert ToyParallel.metadata["name"] == "toy_v0"


def test_parallel_actions_are_a_dict() -> None:
    env = ToyParallel(num_players=3)
    env.reset(seed=0)
    for actions in (None, [ADD_ONE, PASS, PASS], ADD_ONE):
        with pytest.raises(
            ValueError,
            match=r"actions must be a dict from agent to action; .* acting now: player_0$",
        ):
            env.step(actions)
    env.step({"player_0": ADD_ONE})


def test_an_unknown_agent_is_named_with_the_agents() -> None:
    calls = [
        ("observe", "player_2"),
        ("legal_actions", "bob"),
        ("private_text", 0),
        ("action_to_string", "player_9", PASS),
        ("observation_space", "bob"),
        ("action_space", ["player_0"]),
        ("resample_from_infostate", "bob", 1),
    ]
    for env in (ToyAEC(num_players=2), ToyParallel(num_players=2)):
        env.reset(seed=0)
        for method, *arguments in calls:
            with pytest.raises(
                ValueError, match=r"toy_v0: unknown agent .*; agents: player_0, player_1$"
            ):
                getattr(env, method)(*arguments)


def test_parallel_penalize_ends_the_game() -> None:
    env = ToyParallel(num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    _, rewards, terminations, _, _ = env.step({"player_0": CLAIM, "player_1": 0, "player_2": 0})
    assert rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(terminations.values()) and env.agents == []


def test_render_modes() -> None:
    env = ToyAEC(render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("counter 0")
    env = ToyAEC()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert env.render() is None


def test_render_seat_gives_one_seats_view_in_either_mode_whatever_render_mode() -> None:
    for env in (ToyAEC(), ToyParallel()):
        env.reset(seed=0)
        text = env.render_seat("player_1")
        assert text.startswith("counter 0") and text.endswith(env.private_text("player_1"))
        assert env.render_seat("player_1", mode="rgb_array").shape == (8, 8, 3)
        with pytest.raises(ValueError, match="mode must be one of"):
            env.render_seat("player_1", mode="human")
        with pytest.raises(ValueError, match="unknown agent 'bob'"):
            env.render_seat("bob")


def test_state_and_action_to_string() -> None:
    env = ToyAEC(num_players=2)
    env.reset(seed=0)
    assert env.state().shape == env.state_space.shape
    assert env.action_to_string("player_0", CLAIM) == "claim"
    assert env.action_to_string("player_0", np.int64(CLAIM)) == "claim"
    with pytest.raises(ValueError, match="out of range"):
        env.action_to_string("player_0", 4)
    for action in (2.9, True, "claim", np.array([1.0])):  # what step() refuses, this refuses
        with pytest.raises(ValueError, match="an action must be an integer"):
            env.action_to_string("player_0", action)


def test_reset_with_a_seed_repeats_and_without_one_continues() -> None:
    env = ToyAEC(num_players=4)
    env.reset(seed=11)
    first = list(env.game.secrets)
    env.reset(seed=11)
    assert env.game.secrets == first
    draws = set()
    for _ in range(10):
        env.reset()
        draws.add(tuple(env.game.secrets))
    assert len(draws) > 1
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None"):
        env.reset(seed="eleven")
    with pytest.raises(ValueError, match="got a negative integer"):
        env.reset(seed=-11)  # Python's generator would deal it as seed 11
    env.reset(seed=2**200)  # any size


def test_a_resampled_copy_may_pay_in_points() -> None:
    """`reward="points"`: the copy pays each seat the points it gains from the copy on, while the
    original keeps paying as it did."""
    env = snail_envs.make("pedzace_slimaki_v0", num_players=3).unwrapped
    env.reset(seed=2)
    for _ in range(4):
        env.step(env.legal_actions(env.agent_selection)[0])
    twin = env.resample_from_infostate(env.agent_selection, 7, reward="points")
    start = list(twin.game.points())
    gained = dict.fromkeys(twin.possible_agents, 0.0)
    for _ in testing.play_steps(twin, random.Random(1)):
        for agent, reward in twin.rewards.items():
            gained[agent] += reward
    end = twin.game.points()
    assert [gained[agent] for agent in twin.possible_agents] == [
        after - before for after, before in zip(end, start, strict=True)
    ]
    assert any(gained.values())
    assert env.reward_mode == "winlose"
    with pytest.raises(
        ValueError, match="reward must be one of 'winlose', 'points', 'margin'; got 'cards'"
    ):
        env.resample_from_infostate("player_0", 7, reward="cards")
