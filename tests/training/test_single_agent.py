"""The single-agent view: the learner's observations and rewards are its own."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import snail_envs
from snail_envs.core.single_agent import RandomOpponent, SingleAgentEnv
from tests.core.toy_game import CLAIM, PASS, ToyAEC
from tests.hangs import error_without_hanging


class Spy:
    """An opponent that records what it is shown and plays the first legal action."""

    def __init__(self) -> None:
        self.shown: list[tuple[np.ndarray, np.ndarray]] = []

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.shown.append((observation.copy(), action_mask.copy()))
        return int(np.flatnonzero(action_mask)[0])


def run_episode(env: SingleAgentEnv, seed: int) -> tuple[float, int]:
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        host = env.game.unwrapped
        view = host.observe(env.learner)
        assert np.array_equal(observation, view["observation"]), "not the learner's observation"
        assert np.array_equal(env.action_masks(), view["action_mask"].astype(bool))
        assert host.agent_selection == env.learner
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        observation, reward, terminated, truncated, _info = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_the_learners_return_is_its_seats_result(env_name: str) -> None:
    for seed in range(30):
        env = snail_envs.single_agent(env_name, num_players=3, opponents=[Spy()])
        total, _ = run_episode(env, seed)
        game = env.game.unwrapped.game
        seat = env.game.unwrapped._seat_of[env.learner]
        if game.outcome is not None:
            assert total == (1.0 if seat in game.outcome.winners else -1.0)


def test_points_rewards_add_up_to_the_learners_points() -> None:
    env = snail_envs.single_agent("pedzace_slimaki_v0", num_players=3, reward="points")
    for seed in range(20):
        total, _ = run_episode(env, seed)
        seat = env.game.unwrapped._seat_of[env.learner]
        assert total == env.game.unwrapped.game.points()[seat]


def lead(points: list[float], seat: int) -> float:
    """A seat's points less the mean of the other seats' points."""
    return points[seat] - (sum(points) - points[seat]) / (len(points) - 1)


@pytest.mark.parametrize("env_name", ["pedzace_slimaki_v0", "snailed_it_v0", "snail_sprint_v0"])
def test_margin_rewards_add_up_to_the_change_of_the_learners_lead(env_name: str) -> None:
    """No seat goes out in these games: the return is the learner's lead at the end less its
    lead at its first decision (what the others scored before it is not paid to it)."""
    env = snail_envs.single_agent(env_name, num_players=4, reward="margin")
    host = env.game.unwrapped
    first_leads, changes = set(), set()
    for seed in range(30):
        env.reset(seed=seed)
        seat = host._seat_of[env.learner]
        first = lead(host.game.points(), seat)
        rng = np.random.default_rng(seed)
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, terminated, truncated, _ = env.step(action)
            total += reward
            done = terminated or truncated
        change = lead(host.game.points(), seat) - first
        assert total == pytest.approx(change, abs=1e-9)
        first_leads.add(first)
        changes.add(change)
    assert len(changes) > 1
    if env_name == "pedzace_slimaki_v0":
        assert len(first_leads) > 1, "the others never scored before the learner's first turn"


def test_opponents_see_only_their_own_seat() -> None:
    spy = Spy()
    env = snail_envs.single_agent("snail_sprint_v0", num_players=4, opponents=[spy], seat=0)
    env.reset(seed=3)
    cards = env.game.unwrapped.game.race_cards
    for observation, _ in spy.shown:
        card = set(np.flatnonzero(observation[:6]))
        assert card in [set(c) for c in cards[1:]] and card != set(cards[0])


def test_simultaneous_windows_go_through_the_wrapper() -> None:
    """Toy game: the learner decides both in its own turns and in the claim windows after the
    others' turns; its return is its seat's result."""
    for seed in range(40):
        env = SingleAgentEnv(ToyAEC(num_players=3), opponents=[RandomOpponent(seed)])
        env.reset(seed=seed)
        masks, total = [], 0.0
        while True:
            masks.append(tuple(np.flatnonzero(env.action_masks())))
            action = (
                CLAIM
                if env.action_masks()[CLAIM] and seed % 2
                else int(np.flatnonzero(env.action_masks())[0])
            )
            _observation, reward, terminated, truncated, _ = env.step(action)
            total += reward
            if terminated or truncated:
                break
        game = env.game.game
        seat = env.game._seat_of[env.learner]
        expected = 1.0 if game.outcome is not None and seat in game.outcome.winners else -1.0
        assert total == expected
    assert (PASS, CLAIM) in masks


class LegalOnly:
    """An opponent that asks for its legal actions only: it must never be shown an observation."""

    def __init__(self) -> None:
        self.given: list[list[int]] = []

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise AssertionError("a legal-actions-only opponent was given an observation")

    def pick_legal(self, legal: list[int]) -> int:
        self.given.append(list(legal))
        return legal[-1]


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_legal_only_opponents_get_their_legal_actions_in_order_and_no_observation(
    env_name: str,
) -> None:
    opponent = LegalOnly()
    env = snail_envs.single_agent(env_name, num_players=3, opponents=[opponent])
    host = env.game
    shown = host.legal_actions

    def checked(agent: str) -> list[int]:
        legal = shown(agent)
        assert legal == np.flatnonzero(host.observe(agent)["action_mask"]).tolist()
        assert agent != env.learner
        return legal

    host.legal_actions = checked
    for seed in range(5):
        run_episode(env, seed)
    assert opponent.given and all(legal == sorted(legal) for legal in opponent.given)


class FromMask:
    """A random opponent that plays from its observation and mask, as any callable does."""

    def __init__(self) -> None:
        self.random = RandomOpponent()

    def reset(self, seed: int | None = None) -> None:
        self.random.reset(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.random(observation, action_mask)


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_random_opponents_play_the_same_from_legal_actions_as_from_masks(env_name: str) -> None:
    """`RandomOpponent` skips the observation but draws exactly what it draws from a mask."""
    fast = snail_envs.single_agent(env_name, num_players=3)
    slow = snail_envs.single_agent(env_name, num_players=3, opponents=[FromMask()])
    for seed in range(8):
        assert run_episode(fast, seed) == run_episode(slow, seed)
        assert np.array_equal(fast.game.state(), slow.game.state())


def test_random_opponents_draw_the_same_from_legal_actions_as_from_the_mask() -> None:
    """Both draw `legal[randrange(len(legal))]` over the mask's nonzero entries in increasing
    order, as seeded `RandomAgent` games have always done."""
    mask = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1], dtype=np.int8)
    legal = [1, 2, 4, 7, 8]
    reference = random.Random(7)
    expected = [legal[reference.randrange(len(legal))] for _ in range(200)]
    from_mask, from_legal = RandomOpponent(7), RandomOpponent(7)
    assert [from_mask(np.zeros(3), mask) for _ in range(200)] == expected
    assert [from_legal.pick_legal(legal) for _ in range(200)] == expected


def test_seeded_resets_repeat_episodes() -> None:
    env = snail_envs.single_agent("snail_sprint_v0", num_players=3)
    first = [run_episode(env, 11) for _ in range(2)]
    assert first[0] == first[1]


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_gymnasium_registration_and_env_checker(env_name: str) -> None:
    env = gymnasium.make(snail_envs.registry_id(env_name), illegal_action="penalize")
    check_env(env.unwrapped, skip_render_check=True)


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="seat must be None"):
        snail_envs.single_agent("snail_sprint_v0", seat=2)
    with pytest.raises(ValueError, match="opponent_weights must give one"):
        snail_envs.single_agent("snail_sprint_v0", opponents=[Spy()], opponent_weights=[1, 2])
    with pytest.raises(ValueError, match="opponents must be a callable"):
        snail_envs.single_agent("snail_sprint_v0", opponents=[])
    with pytest.raises(ValueError, match="unknown environment"):
        snail_envs.single_agent("chess_v6")
    env = snail_envs.single_agent("snail_sprint_v0")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("env_name", ["snail_sprint_v0", "pedzace_slimaki_v0"])
def test_options_that_leave_the_learner_no_decision_are_named_after_bounded_deals(
    env_name: str,
) -> None:
    """Seat 0 opens, so with one turn the learner in seat 1 never acts: every deal ends before
    its first decision. The deals stop at `MAX_DEALS`, and the options are named."""
    code = (
        "import snail_envs; "
        f"snail_envs.single_agent({env_name!r}, seat=1, max_turns=1).reset(seed=0)"
    )
    assert error_without_hanging(code) == (
        f"ValueError: {env_name}: 1000 deals in a row ended before the learner's first decision: "
        "under these options (seat=1, max_turns=1) it may never come; choose options under "
        "which the game lasts until it does"
    )


def test_a_decision_that_comes_in_some_deals_only_is_waited_for() -> None:
    """With two turns, the learner in seat 1 acts only where its first roll gives it a choice
    (a roll with one possible move is played at once): in most deals, not in all."""
    env = snail_envs.single_agent("snail_sprint_v0", seat=1, max_turns=2)
    for seed in range(20):
        env.reset(seed=seed)
        assert env.learner == "player_1" and env.action_masks().any()


def test_seats_are_integers_of_any_kind_but_never_bools() -> None:
    env = snail_envs.single_agent("snail_sprint_v0", seat=np.int64(1), num_players=np.int64(3))
    env.reset(seed=0)
    assert env.learner == "player_1" and type(env.fixed_seat) is int
    assert len(env.game.possible_agents) == 3
    for seat in (True, 1.0, "1"):
        with pytest.raises(ValueError, match=r"seat must be None .* an integer from 0 to 1"):
            snail_envs.single_agent("snail_sprint_v0", seat=seat)


def test_the_action_mask_is_also_in_the_info() -> None:
    env = snail_envs.single_agent("snail_sprint_v0", num_players=3)
    _, info = env.reset(seed=0)
    for _ in range(30):
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()


def test_the_class_declares_its_render_modes_so_wrappers_do_not_warn() -> None:
    """Gymnasium's `make` and SB3's `make_vec_env` read `metadata` on the class, before any
    instance exists."""
    from stable_baselines3.common.env_util import make_vec_env

    assert SingleAgentEnv.metadata == {
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 2,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(snail_envs.registry_id("snail_sprint_v0"), render_mode="ansi")
        env.reset(seed=0)
        assert isinstance(env.render(), str)
        make_vec_env(snail_envs.registry_id("snail_sprint_v0"), n_envs=2).reset()


def test_a_copy_plays_on_alone() -> None:
    """A deep copy and a pickled copy continue exactly like the original, and playing a copy
    leaves the original's game untouched."""
    env = snail_envs.single_agent("snailed_it_v0", num_players=3)
    env.reset(seed=5)

    def play(view: SingleAgentEnv) -> list[np.ndarray]:
        return [view.step(int(np.flatnonzero(view.action_masks())[0]))[0] for _ in range(6)]

    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        before = env.game.unwrapped.state()
        copied = play(twin)
        assert np.array_equal(env.game.unwrapped.state(), before)
        assert all(map(np.array_equal, copied, play(env)))
        env.reset(seed=5)
