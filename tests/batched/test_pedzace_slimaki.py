"""Batched Pędzące Ślimaki: the kernels replay as the reference rules, and the learner's vector
env keeps to its seat."""

from __future__ import annotations

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.agents.heuristics.pedzace_slimaki import PedzaceSlimakiHeuristic
from snail_envs.pedzace_slimaki.rules import COLOURS
from tests.batched.differential import run_differential, run_learner_replay
from tests.marks import slow
from tests.names import PEDZACE_SLIMAKI

EVERY_CARD = [(a, b) for i, a in enumerate(COLOURS) for b in COLOURS[i + 1 :]]

OPTION_SETS = [
    {},
    slow({"num_players": 3, "rounds": 3}),
    slow({"num_players": 5, "snail_face_backwards": True, "reward": "points"}),
    slow({"num_players": 4, "snail_face_backwards": True, "rounds": 3, "max_turns": 40}),
    {"board_length": 12, "mushrooms": (3, 6, 9), "place_points": (4, 1, 2), "reward": "points"},
    {"board_length": 3, "mushrooms": (), "max_turns": 12, "reward": "margin"},
    slow({"num_players": 4, "rounds": 3, "reward": "margin"}),
    {"num_players": 3, "previews": True, "reward": "margin"},
    slow({"num_players": 4, "snail_face_backwards": True, "rounds": 3, "previews": True}),
    {"num_players": 4, "rounds": 3, "choice_counts": True, "reward": "points"},
    slow({"snail_face_backwards": True, "previews": True, "choice_counts": True}),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(options: dict) -> None:
    # 6 × 2,000 = 12,000 games; every step compares seat, mask, observation, state, rewards, ends
    run_differential("pedzace_slimaki_v0", options, games=2_000, num_envs=200, seed=len(options))


@pytest.mark.parametrize("option", [{"snails": 3, "cards": EVERY_CARD[:2]}, {"die_pips": 2}])
def test_fewer_snails_or_pips_are_refused_naming_the_option(option: dict) -> None:
    name = next(iter(option))
    with pytest.raises(ValueError, match=f"plays only {name}=5, not "):
        snail_envs.batched.make(PEDZACE_SLIMAKI, num_envs=2, **option)


@pytest.mark.parametrize("reward", ["winlose", "points", "margin"])
def test_the_learner_plays_its_own_seat_and_gets_its_own_result(reward: str) -> None:
    venv = snail_envs.batched.make_vec_env(
        "pedzace_slimaki_v0", 128, num_players=4, rounds=3, reward=reward
    )
    layout = venv.engine.observation_layout
    turn, dice, points = layout["turn"], layout["dice_rolled"], layout["points"]

    def lead(view: np.ndarray) -> float:
        scores = view[points][:4].astype(np.float64) * 10
        return scores[0] - scores[1:].mean()

    venv.seed(3)
    observations = venv.reset()
    first_leads = [lead(view) for view in observations]
    returns = np.zeros(venv.num_envs)
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 500:
        masks = venv.action_masks()
        assert (observations[:, turn][:, 0] == 1).all(), "the learner is to play"
        rolled = observations[:, dice].reshape(-1, 5, 6).any(axis=2)
        assert (masks == rolled).all(), "the learner may use every die it rolled"
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        returns += rewards
        for index in np.flatnonzero(dones):
            final = infos[index]["terminal_observation"]
            if reward == "margin":  # the change of its lead from its first decision on
                expected = lead(final) - first_leads[index]
                assert returns[index] == pytest.approx(expected, abs=1e-4)
            elif infos[index]["TimeLimit.truncated"]:
                assert reward == "points" or returns[index] == 0
            elif reward == "points":
                assert returns[index] == round(float(final[points][0]) * 10)
            else:
                best = final[points].max()
                assert returns[index] == (1.0 if final[points][0] == best else -1.0)
            returns[index] = 0
            first_leads[index] = lead(observations[index])
            episodes += 1
        if reward == "winlose":
            assert not rewards[~dones].any()


def told_the_options(options) -> PedzaceSlimakiHeuristic:
    return PedzaceSlimakiHeuristic(
        board_length=options.board_length,
        cards=options.cards,
        place_points=options.place_points,
        snail_face_backwards=options.snail_face_backwards,
    )


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "rounds": 3},
        {"num_players": 5, "snail_face_backwards": True, "rounds": 3},
        {"num_players": 3, "board_length": 12, "mushrooms": (3, 6, 9), "place_points": (4, 1, 2)},
        slow({"num_players": 5, "cards": EVERY_CARD}),  # 9·8·7·6 ways to hold the cards unseen
    ],
    ids=str,
)
def test_the_heuristic_port_chooses_as_the_python_heuristic(options: dict) -> None:
    batch = snail_envs.batched.make("pedzace_slimaki_v0", 256, **options)
    python = told_the_options(batch.options)
    batch.reset(seed=3)
    for _ in range(60):
        ported = batch.heuristic_actions()
        for index in range(batch.num_envs):
            expected = python.act(batch.observation[index], batch.action_mask[index])
            assert ported[index] == expected, f"game {index}"
        batch.step(batch.random_actions())


@pytest.mark.parametrize(
    ("opponents", "reward"),
    [
        ("heuristic", "winlose"),
        ({"heuristic": 1, "policy": 1}, "winlose"),
        ({"heuristic": 1, "policy": 1}, "margin"),
    ],
    ids=str,
)
def test_the_learner_vec_env_follows_the_reference_game_against_heuristics(
    opponents, reward: str
) -> None:
    run_learner_replay(
        "pedzace_slimaki_v0",
        {"num_players": 4, "reward": reward} if reward == "margin" else {"num_players": 3},
        told_the_options,
        episodes=150,
        opponents=opponents,
    )


# --------------------------------------------------------------------------- rollouts


def stepped_gains(batch, game, seed: int, first_action: int, horizon: str) -> list[int]:
    """The points every seat gains when the reference `game`, loaded into `batch`
    (`reward="points"`) with its future chance from `seed`, is stepped on by the engine:
    `first_action`, then the heuristic's choice for every seat to play, to the end of the race
    in play (`horizon="round"`) or of the game."""
    batch.load(0, game, seed)
    race = int(batch.games[0]["race"])
    gained = np.zeros(batch.num_players, np.int64)
    action = first_action
    while True:
        out = batch.step(np.array([action]))
        gained += out.rewards[0].astype(np.int64)
        if out.terminated[0] or out.truncated[0]:
            return gained.tolist()
        if horizon == "round" and int(batch.games[0]["race"]) != race:
            return gained.tolist()
        action = int(batch.heuristic_actions()[0])


@pytest.mark.parametrize("horizon", ["round", "game"])
def test_rollouts_score_as_the_engine_steps_the_heuristics_games(horizon: str) -> None:
    """From states of random games (three races, three seats), every legal first action's
    rollout gains each seat the points the engine's own steps give: that action, then the
    heuristic in every seat to the race's end ("round") or the game's, on the same dice."""
    options = {"num_players": 3, "rounds": 3}
    env = snail_envs.make(PEDZACE_SLIMAKI, **options)
    rolling = snail_envs.batched.make(PEDZACE_SLIMAKI, 1, **options)
    stepping = snail_envs.batched.make(PEDZACE_SLIMAKI, 1, reward="points", **options)
    rng = np.random.default_rng(3)
    checked, ended_early = 0, 0
    for game_seed in range(12):
        env.reset(seed=game_seed)
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = env.unwrapped.legal_actions(agent)
            if len(legal) > 1 and rng.random() < 0.3:
                seat = env.possible_agents.index(agent)
                rolling.load(0, env.unwrapped.game, game_seed)
                gained = rolling.rollout(seat, legal, horizon)
                for index, action in enumerate(legal):
                    assert gained[0, index].tolist() == stepped_gains(
                        stepping, env.unwrapped.game, game_seed, action, horizon
                    )
                    checked += 1
                ended_early += horizon == "round" and int(rolling.games[0]["race"]) < 2
            env.step(int(rng.choice(legal)))
    assert checked > 100 and (horizon == "game" or ended_early > 10)


def test_a_rollout_leaves_the_loaded_game_as_it_was() -> None:
    env = snail_envs.make(PEDZACE_SLIMAKI)
    env.reset(seed=4)
    batch = snail_envs.batched.make(PEDZACE_SLIMAKI, 2)
    batch.load(0, env.unwrapped.game, 0)
    batch.load(1, env.unwrapped.game, 1)
    before = batch.games.copy()
    legal = env.unwrapped.legal_actions(env.agent_selection)
    first = batch.rollout(0, legal, "game")
    assert (batch.games == before).all()
    assert (batch.rollout(0, legal, "game") == first).all()
