"""Snail Sprint! through the PettingZoo APIs: conformance, harness checks, bad input, goldens."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

import snail_envs
from snail_envs import snail_sprint_v0
from snail_envs.core import testing
from snail_envs.snail_sprint.observer import OBSERVATION, STATE
from snail_envs.snail_sprint.rules import ON_PODIUM
from tests.marks import slow_cases
from tests.presets import rule_presets

GOLDEN = Path(__file__).parent / "golden"
OPTION_SETS = [
    {},
    {"num_players": 3, "board": "B"},
    {"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False},
    {"num_players": 3, "expose_forced_moves": True, "reward": "points"},
    {"num_players": 2, "tin_order": "reversed", "max_turns": 20},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_pettingzoo_conformance(options: dict) -> None:
    testing.check_pettingzoo_conformance(snail_sprint_v0, **options)


def test_docstring_is_the_spec_table() -> None:
    testing.check_docstring(snail_sprint_v0)


@pytest.mark.parametrize(
    ("options", "seed"),
    [({"num_players": 3}, 7), ({"num_players": 4, "board": "B", "tin_order": "shuffled"}, 8)],
)
def test_golden_playthrough(options: dict, seed: int, golden) -> None:
    name = "_".join(f"{k}-{v}" for k, v in sorted(options.items()))
    golden(GOLDEN / f"{name}_seed{seed}.txt", testing.playthrough(snail_sprint_v0, options, seed))


def sprint_invariant(game) -> None:
    """Every snail is in exactly one place; spaces agree with towers; walls hold one snail;
    the podium never passes three; race cards are distinct."""
    seen = sorted(snail for stack in game.stacks for snail in stack) + sorted(game.podium)
    assert sorted(seen) == list(range(6))
    for space, stack in enumerate(game.stacks):
        assert all(game.space[snail] == space for snail in stack)
        assert not (game.holds_one[space] and len(stack) > 1)
    assert all(game.space[snail] == ON_PODIUM for snail in game.podium)
    assert len(game.podium) <= 3
    assert len(set(game.race_cards)) == game.num_players
    if game.outcome is None and not game.truncated:
        assert game.moves and all(target > game.space[s] for s, target in game.moves.items())
    assert (game.outcome is not None) == (len(game.podium) == 3)


@pytest.mark.parametrize(
    ("options", "games"),
    [
        ({"num_players": 2}, 200),
        *slow_cases(
            [
                ({"num_players": 2}, 3000),
                ({"num_players": 3, "board": "B"}, 3000),
                ({"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False}, 2000),
                ({"num_players": 4, "reward": "points", "expose_forced_moves": True}, 2000),
            ]
        ),
    ],
    ids=str,
)
def test_random_play_keeps_the_invariants(options: dict, games: int) -> None:
    report = testing.check_random_play(
        lambda: snail_sprint_v0.env(**options), games=games, invariant=sprint_invariant
    )
    assert report.truncated == 0
    assert set(report.wins) == set(range(options["num_players"]))


def test_every_decision_offers_a_choice_unless_forced_moves_are_exposed() -> None:
    rng = random.Random(0)
    for expose, smallest in ((False, 2), (True, 1)):
        env = snail_sprint_v0.env(num_players=3, expose_forced_moves=expose)
        sizes = set()
        for seed in range(50):
            env.reset(seed=seed)
            for _agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if not (terminated or truncated):
                    sizes.add(int(observation["action_mask"].sum()))
                env.step(
                    None
                    if terminated or truncated
                    else testing.random_legal_action(observation["action_mask"], rng)
                )
        assert min(sizes) == smallest and max(sizes) == 2


@pytest.mark.slow
def test_no_hidden_information_leaks() -> None:
    changed = testing.check_no_leak(lambda: snail_sprint_v0.env(num_players=4), games=20)
    assert changed > 0
    testing.check_no_leak(lambda: snail_sprint_v0.env(num_players=2, board="B"), games=10)


def test_same_seed_same_game_in_any_process_and_different_seeds_differ() -> None:
    testing.check_determinism(snail_sprint_v0, {"num_players": 3}, seeds=[0, 1, 2, 3])
    testing.check_determinism(
        snail_sprint_v0, {"num_players": 4, "tin_order": "shuffled"}, seeds=[5, 6]
    )


@pytest.mark.parametrize("steps", [0, 5, 20])
def test_copies_continue_like_the_original(steps: int) -> None:
    testing.check_copy_continuation(
        lambda: snail_sprint_v0.env(num_players=3), seed=12, steps_before_copy=steps
    )


def test_the_observation_shows_the_own_card_and_the_table_relative_to_the_seat() -> None:
    env = snail_sprint_v0.env(num_players=3)
    env.reset(seed=4)
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        pieces = OBSERVATION.as_dict(env.observe(agent)["observation"])
        assert set(np.flatnonzero(pieces["own_race_card"])) == set(game.race_cards[seat])
        assert np.flatnonzero(pieces["turn"]).tolist() == [(game.turn - seat) % 3]
        spaces = pieces["snail_spaces"].reshape(6, 37)
        assert [int(np.flatnonzero(row)[0]) for row in spaces] == game.space
        dice = pieces["dice"]
        assert dice.sum() == 1.0 and set(np.flatnonzero(dice)) == set(game.dice)
    state = STATE.as_dict(env.state())
    for seat in range(3):
        card = state["race_cards"].reshape(4, 6)[seat]
        assert set(np.flatnonzero(card)) == set(game.race_cards[seat])


def test_towers_podium_and_freedom_in_the_observation() -> None:
    env = snail_sprint_v0.env(num_players=2)
    env.reset(seed=0)
    game = env.unwrapped.game
    game.stacks[0] = [1, 3]
    game.stacks[4] = [0, 4, 2]
    game.podium = [5]
    game.space = [4, 0, 4, 0, 4, ON_PODIUM]
    pieces = OBSERVATION.as_dict(env.observe("player_0")["observation"])
    assert np.allclose(pieces["tower_levels"], [0.0, 0.0, 0.4, 0.0, 0.2, 0.0])
    assert pieces["snails_free"].tolist() == [0, 1, 1, 1, 0, 0]
    assert np.flatnonzero(pieces["podium"]).tolist() == [5]
    assert not pieces["snail_spaces"].reshape(6, 37)[5].any()


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        snail_envs.make("snail_sprint_v0", colour="red")
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 4; got 1"):
        snail_envs.make("snail_sprint_v0", num_players=1)
    with pytest.raises(ValueError, match="track_length must be an integer from 3 to 36; got 2"):
        snail_envs.make("snail_sprint_v0", track_length=2)
    with pytest.raises(ValueError, match="snails must be an integer from 3 to 6; got 2"):
        snail_envs.make("snail_sprint_v0", snails=2)
    with pytest.raises(ValueError, match="with snails=3 the race cards may name only the snails"):
        snail_envs.make("snail_sprint_v0", snails=3)
    with pytest.raises(ValueError, match="unknown environment 'snail_race_v0'"):
        snail_envs.make("snail_race_v0")
    env = snail_envs.make("snail_sprint_v0")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    env.reset(seed=0)
    legal = np.flatnonzero(env.last()[0]["action_mask"]).tolist()
    illegal = next(a for a in range(6) if a not in legal)
    with pytest.raises(ValueError, match=rf"action {illegal} is illegal now; legal actions: "):
        env.step(illegal)
    with pytest.raises(ValueError, match="illegal now"):
        env.step(6)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step("star")


def test_action_to_string_names_the_snail_and_its_destination() -> None:
    env = snail_sprint_v0.env()
    env.reset(seed=0)
    agent = env.agent_selection
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    text = env.unwrapped.action_to_string(agent, int(legal[0]))
    assert text.startswith("move the ") and (" to space " in text or "podium" in text)


def test_registry_ids_and_make_parallel() -> None:
    import pettingzoo

    env = pettingzoo.make("aec", "snail_envs/snail_sprint-v0", num_players=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    parallel = snail_envs.make_parallel("snail_sprint_v0", num_players=4)
    observations, _ = parallel.reset(seed=1)
    assert len(observations) == 4


def test_rgb_array_is_an_image() -> None:
    env = snail_sprint_v0.env(render_mode="rgb_array", num_players=4)
    env.reset(seed=3)
    for _ in itertools.islice(testing.play_steps(env, random.Random(0)), 15):
        pass
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 5


@pytest.mark.parametrize("preset", rule_presets("snail_sprint"), ids=lambda p: p.stem)
def test_config_presets_make_playable_games(preset: Path) -> None:
    options = yaml.safe_load(preset.read_text())
    report = testing.check_random_play(lambda: snail_envs.make("snail_sprint_v0", **options), 20)
    assert report.games == 20
