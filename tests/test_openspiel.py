"""Every game in OpenSpiel (`snail_envs.openspiel`): OpenSpiel's random-simulation test, the same
games played through OpenSpiel and the PettingZoo env, information states that leak nothing, and
explicit chance nodes."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from snail_envs.core.chance import Chance, ChanceNodes, SeededChance, distinct  # noqa: E402
from snail_envs.openspiel import GAME_NAMES, REGISTRATIONS, load  # noqa: E402
from tests.presets import CONFIGS  # noqa: E402

T = TypeVar("T")

MINIS = [
    name for name in GAME_NAMES if (CONFIGS / REGISTRATIONS[name].folder / "mini.yaml").is_file()
]
PRESETS = [*((name, "") for name in GAME_NAMES), *((name, "mini") for name in MINIS)]
"""Every game with its default options, and every mini."""
TINY_MINIS = {"snap": {"max_flips": 3}, "snailed_it": {"values": 4}}
"""Options that cut a mini to a few thousand nodes, by its game's folder."""


class RecordingChance(Chance):
    """Seeded outcomes, written down as the choices a `ChanceNodes` script would need for them."""

    def __init__(self, seed: int) -> None:
        self._seeded = SeededChance(seed)
        self.choices: list[int] = []

    def _note(self, values: Sequence[Any], outcome: Any) -> None:
        if len(values) > 1:
            self.choices.append(list(values).index(outcome))

    def pick(self, options: Sequence[T]) -> T:
        outcome = self._seeded.pick(options)
        self._note(distinct(options)[0], outcome)
        return outcome

    def arrange(self, items: Sequence[T]) -> list[T]:
        arranged = self._seeded.arrange(items)
        remaining = list(items)
        for card in arranged:
            self._note(distinct(remaining)[0], card)
            remaining.remove(card)
        return arranged

    def occurs(self, probability: float) -> bool:
        outcome = self._seeded.occurs(probability)
        if 0 < probability < 1:
            self.choices.append(int(outcome))
        return outcome

    def pick_weighted(self, weights: Sequence[float]) -> int:
        index = self._seeded.pick_weighted(weights)
        self._note([i for i, weight in enumerate(weights) if weight > 0], index)
        return index


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_simulation_passes_openspiels_test(name: str) -> None:
    pyspiel.random_sim_test(load(name), num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("name", MINIS)
def test_random_simulation_of_the_mini_passes_openspiels_test(name: str) -> None:
    pyspiel.random_sim_test(
        load(name, {"preset": "mini"}), num_sims=3, serialize=False, verbose=False
    )


def test_a_window_of_several_seats_is_simultaneous_and_converts_to_turns() -> None:
    simultaneous = [name for name in GAME_NAMES if REGISTRATIONS[name].spec.info.simultaneous]
    assert simultaneous
    for name in simultaneous:
        game = load(name, {"num_players": 3})
        assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        turns = pyspiel.convert_to_turn_based(game)
        pyspiel.random_sim_test(turns, num_sims=1, serialize=False, verbose=False)


def _play_in_pettingzoo(
    name: str, preset: str, seed: int
) -> tuple[RecordingChance, list[dict[str, Any]]]:
    """A random game in the PettingZoo env: its chance, and each tick's views and actions."""
    env = load(name, {"preset": preset}).make_env()
    chance = RecordingChance(seed)
    env.use_chance(chance)
    env.reset()
    rng = random.Random(seed)
    ticks: list[dict[str, Any]] = []
    while env.agents:
        acting = list(env.game.acting_seats())
        views = {agent: env.observe(agent) for agent in env.possible_agents}
        actions = {
            env.possible_agents[seat]: rng.choice(env.legal_actions(env.possible_agents[seat]))
            for seat in acting
        }
        rewards = env.step(actions)[1]
        ticks.append({"views": views, "acting": acting, "actions": actions, "rewards": rewards})
    return chance, ticks


@pytest.mark.parametrize(("name", "preset"), PRESETS)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_same_chance_and_actions_play_the_same_game_in_openspiel(
    name: str, preset: str, seed: int
) -> None:
    chance, ticks = _play_in_pettingzoo(name, preset, seed)
    state = load(name, {"preset": preset}).new_initial_state()
    outcomes = iter(chance.choices)
    returns = np.zeros(state.num_players())
    for tick in ticks:
        while state.is_chance_node():
            state.apply_action(next(outcomes))
        for seat, agent in enumerate(tick["views"]):
            view = tick["views"][agent]
            assert np.array_equal(state.observation_tensor(seat), view["observation"])
            if seat in tick["acting"]:
                assert state.legal_actions(seat) == list(np.flatnonzero(view["action_mask"]))
        joint = [tick["actions"].get(agent) for agent in tick["views"]]
        if state.is_simultaneous_node():
            state.apply_actions(
                [state.legal_actions(seat)[0] if a is None else a for seat, a in enumerate(joint)]
            )
        else:
            (seat,) = tick["acting"]
            assert state.current_player() == seat
            state.apply_action(joint[seat])
        for agent, reward in tick["rewards"].items():
            returns[int(agent.rpartition("_")[2])] += reward
    while state.is_chance_node():
        state.apply_action(next(outcomes))
    assert state.is_terminal()
    assert next(outcomes, None) is None
    assert np.allclose(state.returns(), returns)


@pytest.mark.parametrize(("name", "preset"), PRESETS)
def test_redrawing_what_a_seat_cannot_see_keeps_its_openspiel_view(name: str, preset: str) -> None:
    rng = np.random.default_rng(3)
    state = load(name, {"preset": preset}).new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 20:
        if state.is_chance_node():
            outcomes, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=chances)))
            continue
        table = state.table()
        for seat, agent in enumerate(table.possible_agents):
            twin = table.resample_from_infostate(agent, seed=checked)
            assert np.array_equal(
                twin.observe(agent)["observation"], state.observation_tensor(seat)
            )
        checked += 1
        if state.is_simultaneous_node():
            state.apply_actions(
                [int(rng.choice(state.legal_actions(s))) for s in range(state.num_players())]
            )
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked


@pytest.mark.parametrize("folder", TINY_MINIS)
def test_information_states_are_exactly_a_seats_own_views_and_actions(folder: str) -> None:
    """Over a whole tree of a cut mini: two nodes share a seat's information state exactly when
    the seat saw the same observations at every decision point and took the same actions (no
    more, no less)."""
    from snail_envs.exact.tree import build_tree

    game = _tiny_mini(folder)
    tree = build_tree(game)
    views: dict[str, set[tuple]] = {}
    stack: list[tuple[Any, tuple]] = [(game.new_initial_state(), ((), ()))]
    while stack:
        state, seen = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            for outcome, _ in state.chance_outcomes():
                stack.append((state.child(outcome), seen))
            continue
        here = tuple(seen[seat] + (tuple(state.observation_tensor(seat)),) for seat in range(2))
        for seat in range(2):
            views.setdefault(state.information_state_string(seat), set()).add(here[seat])
        for joint in _joint_actions(state):
            child = state.clone()
            mine = tuple(here[seat] + (("played", joint[seat]),) for seat in range(2))
            if state.is_simultaneous_node():
                child.apply_actions(joint)
            else:
                child.apply_action(joint[state.current_player()])
            stack.append((child, mine))
    assert all(len(sequences) == 1 for sequences in views.values())
    sequences = [next(iter(s)) for s in views.values()]
    assert len(set(sequences)) == len(sequences)
    assert len(tree.infosets) <= len(views)


def _joint_actions(state: Any) -> list[list[int]]:
    if state.is_simultaneous_node():
        first, second = (state.legal_actions(seat) for seat in range(2))
        return [[a, b] for a in first for b in second]
    seat = state.current_player()
    return [[a if s == seat else -1 for s in range(2)] for a in state.legal_actions(seat)]


def _tiny_mini(folder: str) -> Any:
    name = next(name for name in GAME_NAMES if REGISTRATIONS[name].folder == folder)
    return load(name, {"preset": "mini", **TINY_MINIS[folder]})


def _tiny_snap() -> Any:
    return _tiny_mini("snap")


def test_a_shuffle_is_dealt_card_by_card_and_alike_cards_are_one_outcome() -> None:
    script = ChanceNodes([])
    with pytest.raises(Exception) as stopped:
        script.arrange(["a", "b", "a"])
    request = stopped.value.request  # type: ignore[attr-defined]
    assert request.values == ("a", "b")
    assert request.probabilities == pytest.approx((2 / 3, 1 / 3))
    assert ChanceNodes([1, 0]).arrange(["a", "b", "a"]) == ["b", "a", "a"]
    assert ChanceNodes([]).arrange(["a", "a"]) == ["a", "a"]


def test_chance_outcomes_are_the_rules_probabilities() -> None:
    state = load(GAME_NAMES[0]).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert len(outcomes) <= load(GAME_NAMES[0]).max_chance_outcomes()


def test_unknown_parameters_are_refused_naming_the_parameters() -> None:
    with pytest.raises(pyspiel.SpielError, match=r"no_such_option(.|\n)*max_flips"):
        load(GAME_NAMES[0], {"no_such_option": 1})
    with pytest.raises(ValueError, match=r"presets: .*mini"):
        load(_tiny_snap().registration.short_name, {"preset": "no_such_preset"})


@pytest.mark.slow
def test_the_documented_example_runs_openspiels_cfr_to_a_low_exploitability(
    capsys: pytest.CaptureFixture,
) -> None:
    import re

    page = (CONFIGS.parent / "docs" / "openspiel.md").read_text()
    example = re.findall(r"```python\n(.+?)\n```", page, flags=re.DOTALL)[0]
    exec(compile(example, "docs/openspiel.md", "exec"), {})
    assert float(capsys.readouterr().out.strip()) < 0.01
