"""Checks every game's tests run: random play, no leaks, determinism, copies, conformance.

Each check takes a zero-argument factory of fresh AEC environments (or parallel ones where named),
so a game's test file only supplies its own options and game-specific invariants:

    from snail_envs.core import testing
    testing.check_random_play(lambda: snail_sprint_v0.env(num_players=3), games=10_000,
                              invariant=my_invariant)
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

EnvFactory = Callable[[], Any]


def random_legal_action(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random action among those `mask` allows."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise AssertionError("the acting agent has no legal action (all-zero mask)")
    return int(legal[rng.randrange(legal.size)])


def deciding_agents(env: Any, max_iter: int = 2**63) -> Iterator[str]:
    """The agents of `env` (already reset) as each comes to decide, to the game's end: the caller
    steps each one's action; finished agents are stepped `None` here."""
    for agent in env.agent_iter(max_iter):
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.step(None)
        else:
            yield agent


def play_steps(env: Any, rng: random.Random) -> Iterator[tuple[str, int | None]]:
    """Step `env` (already reset) to the end with random legal actions, yielding each
    (agent, action) after it was played; finished agents step `None`."""
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = (
            None
            if terminated or truncated
            else random_legal_action(observation["action_mask"], rng)
        )
        env.step(action)
        yield agent, action


# --------------------------------------------------------------------------- random play


@dataclass
class RandomPlayReport:
    """What random play saw: game lengths, wins per seat, how games ended."""

    games: int = 0
    decisions: list[int] = field(default_factory=list)
    wins: Counter = field(default_factory=Counter)
    truncated: int = 0
    returns: list[dict[str, float]] = field(default_factory=list)


def check_random_play(
    make_env: EnvFactory,
    games: int,
    seed: int = 0,
    invariant: Callable[[Any], None] | None = None,
) -> RandomPlayReport:
    """Play `games` seeded random games through the AEC API and check, after every step:

    - the observation is a float32 vector inside its space and the mask is an int8 vector that
      equals the rules' legal actions (all zero for finished agents);
    - the acting agent always has a legal action;
    - rewards are finite and each game's returns lie within the declared reward range;
    - every game ends within the declared `max_game_length` decisions;
    - `invariant(game)`, the game's own conservation checks, holds after every step.
    """
    rng = random.Random(seed)
    env = make_env()
    info = env.unwrapped.spec.info
    low, high = _reward_bounds(env)
    space = env.observation_space(env.possible_agents[0])["observation"]
    report = RandomPlayReport()
    for game_index in range(games):
        env.reset(seed=seed * 1_000_003 + game_index)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        decisions = 0
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            vector, mask = observation["observation"], observation["action_mask"]
            assert vector.dtype == np.float32 and vector.shape == space.shape
            assert np.all(vector >= space.low) and np.all(vector <= space.high), (
                f"observation outside its space for {agent}"
            )
            assert mask.dtype == np.int8
            game = env.unwrapped.game
            if terminated or truncated:
                assert not mask.any(), "a finished agent has legal actions"
                action = None
            else:
                legal = list(game.legal_actions(env.unwrapped._seat_of[agent]))
                assert list(np.flatnonzero(mask)) == sorted(legal), "mask differs from the rules"
                action = random_legal_action(mask, rng)
                decisions += 1
            env.step(action)
            for other, reward in env.rewards.items():
                assert np.isfinite(reward)
                returns[other] += reward
            if invariant is not None:
                invariant(env.unwrapped.game)
            assert decisions <= info.max_game_length, (
                f"game {game_index} passed max_game_length={info.max_game_length} decisions"
            )
        for agent, total in returns.items():
            assert low - 1e-9 <= total <= high + 1e-9, (
                f"{agent} returned {total}, outside the reward range [{low}, {high}]"
            )
        game = env.unwrapped.game
        report.games += 1
        report.decisions.append(decisions)
        report.returns.append(returns)
        if game.outcome is None:
            report.truncated += 1
        else:
            report.wins.update(game.outcome.winners)
    return report


def _reward_bounds(env: Any) -> tuple[float, float]:
    host = env.unwrapped
    if host.reward_mode == "points":
        return host.spec.info.points_range
    if host.reward_mode == "margin":  # no declared range: `check_margin_rewards` checks margins
        return -np.inf, np.inf
    return -1.0, 1.0


# --------------------------------------------------------------------------- margin rewards


@dataclass
class MarginReport:
    """What `check_margin_rewards` saw."""

    games: int = 0
    steps: int = 0
    paying_steps: int = 0
    """Steps that paid some seat a nonzero reward."""
    eliminations: int = 0
    """Seats that went out of a game that went on."""


def check_margin_rewards(
    make_env: EnvFactory, games: int, seed: int = 0, tolerance: float = 1e-9
) -> MarginReport:
    """Play `games` seeded random games of `make_env()`, an AEC or a parallel environment built
    with `reward="margin"`, and check the margin rule (`snail_envs.core.host`):

    - after every step the rewards paid sum to zero;
    - each seat's return is the sum, over the stretches of the game between eliminations, of the
      change of its margin over the seats in the game in that stretch (a seat's margin: its points
      minus the mean of the others' points; a seat that goes out counts to its last step). With
      no seat out before the end, that is its final margin minus its margin at the deal.

    (Within `tolerance`, for the rounding of floats.)
    """
    rng = random.Random(seed)
    env = make_env()
    host = env.unwrapped
    assert host.reward_mode == "margin", "check_margin_rewards needs reward='margin'"
    parallel = not hasattr(env, "agent_iter")
    report = MarginReport()
    for game_index in range(games):
        game_seed = seed * 1_000_003 + game_index
        if parallel:
            observations, _ = env.reset(seed=game_seed)
        else:
            env.reset(seed=game_seed)
        ledger = _MarginLedger(host.game, report, tolerance, f"game {game_index}")
        if parallel:
            while env.agents:
                actions = {
                    agent: random_legal_action(observations[agent]["action_mask"], rng)
                    for agent in env.agents
                    if observations[agent]["action_mask"].any()
                }
                observations, rewards, _, _, _ = env.step(actions)
                ledger.pay(rewards)
        else:
            for _ in play_steps(env, rng):
                ledger.pay(env.rewards)
        ledger.check_returns(host.possible_agents)
        report.games += 1
    return report


class _MarginLedger:
    """One game's rewards, and the returns its margins give, for `check_margin_rewards`."""

    def __init__(self, game: Any, report: MarginReport, tolerance: float, name: str) -> None:
        self.game, self.report, self.tolerance, self.name = game, report, tolerance, name
        self.seats = [seat for seat in range(game.num_players) if game.is_in_game(seat)]
        """The seats in the game in this stretch (between eliminations)."""
        self.start = list(game.points())
        """The points when the stretch began."""
        self.expected = [0.0] * game.num_players
        """Each seat's margin changes over the stretches closed so far."""
        self.returns: Counter = Counter()

    def pay(self, rewards: dict[str, float]) -> None:
        """The rewards of one step: they sum to zero; a stretch closes where a seat went out."""
        total = sum(rewards.values())
        assert abs(total) <= self.tolerance, f"{self.name}: the rewards sum to {total}"
        self.returns.update(rewards)
        self.report.steps += 1
        self.report.paying_steps += any(rewards.values())
        game = self.game
        staying = [seat for seat in self.seats if game.is_in_game(seat)]
        if len(staying) < len(self.seats):
            if game.outcome is None and not game.truncated:
                self.report.eliminations += len(self.seats) - len(staying)
            self._close_stretch()
            self.seats = staying

    def check_returns(self, agents: list[str]) -> None:
        self._close_stretch()
        for seat, agent in enumerate(agents):
            returned, expected = self.returns[agent], self.expected[seat]
            assert abs(returned - expected) <= self.tolerance, (
                f"{self.name}: {agent} returned {returned}; its margins say {expected}"
            )

    def _close_stretch(self) -> None:
        """Add each seat's change of margin over the stretch's seats since the stretch began."""
        points, seats = list(self.game.points()), self.seats
        if len(seats) > 1:
            for seat in seats:
                others = [other for other in seats if other != seat]
                lead_before = self.start[seat] - sum(self.start[o] for o in others) / len(others)
                lead_after = points[seat] - sum(points[o] for o in others) / len(others)
                self.expected[seat] += lead_after - lead_before
        self.start = points


# --------------------------------------------------------------------------- no leaks


def check_no_leak(make_env: EnvFactory, games: int, seed: int = 0, resamples: int = 3) -> int:
    """Hidden information never reaches an observation.

    At every decision of `games` random games, every agent still in the game is given
    `resamples` worlds in which everything hidden from it is redrawn
    (`resample_from_infostate`); its observation and action mask must be identical in each, and
    each world's future chance events must differ from the real game's.
    Every resampled world must also play on to a legal end. Returns how many resamples changed
    the hidden state, and fails if none did for a game with hidden information, so that the
    check cannot pass by redrawing nothing.
    """
    rng = random.Random(seed)
    env = make_env()
    changed = 0
    for game_index in range(games):
        env.reset(seed=seed * 7919 + game_index)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            for viewer in list(env.agents):
                if env.terminations[viewer] or env.truncations[viewer]:
                    continue
                seen = env.observe(viewer)
                for _ in range(resamples):
                    twin = env.unwrapped.resample_from_infostate(viewer, rng.randrange(2**31))
                    _assert_same_observation(seen, twin.observe(viewer), viewer)
                    _assert_new_future(env, twin)
                    changed += not np.array_equal(twin.state(), env.state())
                    if rng.random() < 0.05:
                        for _ in play_steps(twin, random.Random(rng.randrange(2**31))):
                            pass
                _assert_same_observation(seen, env.observe(viewer), viewer)
            env.step(random_legal_action(observation["action_mask"], rng))
    if env.unwrapped.spec.info.hidden_information:
        assert changed > 0, "resampling never changed the hidden state: the check is vacuous"
    return changed


def check_seat_view_no_leak(
    make_env: EnvFactory,
    games: int,
    seed: int = 0,
    resamples: int = 2,
    share: float = 0.2,
    own_secrets: bool = True,
) -> int:
    """A seat's view (`render_seat`, text and picture) shows nothing hidden from that seat.

    At a random `share` of the decisions of `games` random games, every agent still in the game
    is given `resamples` worlds in which everything hidden from it is redrawn: its view must be
    the same in each. Each world is also viewed by another seat, whose own hidden cards were
    redrawn: the count of such views that changed is returned, and must be positive for a game
    when seats have secrets of their own (`own_secrets`: a hand, a card; in Snap, only glimpses),
    so that a view that drew none of its own could not pass.
    """
    rng = random.Random(seed)
    env = make_env()
    host = env.unwrapped
    changed = 0
    for game_index in range(games):
        env.reset(seed=seed * 7919 + game_index)
        for _agent in deciding_agents(env):
            if rng.random() < share:
                for viewer in list(env.agents):
                    text = host.render_seat(viewer)
                    picture = host.render_seat(viewer, mode="rgb_array")
                    others = [agent for agent in env.agents if agent != viewer]
                    for _ in range(resamples):
                        twin = host.resample_from_infostate(viewer, rng.randrange(2**31))
                        assert twin.render_seat(viewer) == text, (
                            f"{viewer}'s text view changed when only what it cannot see was "
                            "redrawn: a leak"
                        )
                        assert np.array_equal(twin.render_seat(viewer, "rgb_array"), picture), (
                            f"{viewer}'s picture changed when only what it cannot see was "
                            "redrawn: a leak"
                        )
                        if others:
                            other = rng.choice(others)
                            changed += twin.render_seat(other) != host.render_seat(other)
            observation, *_ = env.last()
            env.step(random_legal_action(observation["action_mask"], rng))
    if own_secrets:
        assert changed > 0, "no seat's view ever showed its own hidden information"
    return changed


def _assert_new_future(env: Any, twin: Any) -> None:
    """The resampled world's future chance events are not the real game's."""
    real = copy.deepcopy(env.unwrapped.game.chance)
    draws = range(2**30)
    ours = [real.pick(draws) for _ in range(4)]
    theirs = [twin.unwrapped.game.chance.pick(draws) for _ in range(4)]
    assert ours != theirs, "a resampled world shares the real game's future chance events"


def _assert_same_observation(seen: dict, other: dict, agent: str) -> None:
    assert np.array_equal(seen["observation"], other["observation"]), (
        f"{agent}'s observation changed when only hidden information was redrawn: a leak"
    )
    assert np.array_equal(seen["action_mask"], other["action_mask"]), (
        f"{agent}'s action mask changed when only hidden information was redrawn: a leak"
    )


# --------------------------------------------------------------------------- determinism


def game_digest(make_env: EnvFactory, seed: int) -> str:
    """A fingerprint of one seeded game played with seeded random actions: every agent,
    action, reward and observation, in order."""
    env = make_env()
    env.reset(seed=seed)
    digest = hashlib.sha256()
    rng = random.Random(seed)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        digest.update(agent.encode())
        digest.update(observation["observation"].tobytes())
        digest.update(observation["action_mask"].tobytes())
        digest.update(repr((reward, terminated, truncated)).encode())
        action = (
            None
            if terminated or truncated
            else random_legal_action(observation["action_mask"], rng)
        )
        digest.update(repr(action).encode())
        env.step(action)
    digest.update(env.unwrapped.state().tobytes())
    return digest.hexdigest()


def digests_in_subprocess(
    module: Any, options: dict[str, Any], seeds: list[int], hash_seed: int
) -> list[str]:
    """`game_digest` for each seed of `module.env(**options)` (an env module, such as
    `snail_envs.snap_v2`), computed in a fresh interpreter with PYTHONHASHSEED set."""
    code = (
        "import importlib, json, sys\n"
        "from snail_envs.core.testing import game_digest\n"
        "name, options, seeds = json.loads(sys.argv[1])\n"
        "module = importlib.import_module(name)\n"
        "print(json.dumps([game_digest(lambda: module.env(**options), s) for s in seeds]))\n"
    )
    environment = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    result = subprocess.run(
        [sys.executable, "-c", code, json.dumps([module.__name__, options, seeds])],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    return json.loads(result.stdout)


def check_determinism(module: Any, options: dict[str, Any], seeds: list[int]) -> None:
    """Same seed and actions give the same game of env module `module` in two processes with
    different hash seeds; different seeds give different games."""
    first = digests_in_subprocess(module, options, seeds, hash_seed=1)
    second = digests_in_subprocess(module, options, seeds, hash_seed=2)
    assert first == second, "the same seed gave different games in two processes"
    assert len(set(first)) == len(seeds), "different seeds gave the same game"


# --------------------------------------------------------------------------- copies


def check_copy_continuation(make_env: EnvFactory, seed: int, steps_before_copy: int) -> None:
    """A deep copy and a pickled copy taken mid-game continue exactly like the original:
    the same observations, rewards, ends and chance draws under the same actions."""
    env = make_env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = play_steps(env, rng)
    for _ in range(steps_before_copy):
        if next(steps, None) is None:
            raise AssertionError(f"the game ended before {steps_before_copy} steps; use fewer")
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for agent, action in steps:
        for twin in twins:
            assert twin.agent_selection == agent
            twin.step(action)
            assert twin.rewards == env.rewards
            assert twin.terminations == env.terminations
            assert twin.truncations == env.truncations
            if env.agents:
                mine, theirs = env.observe(env.agent_selection), twin.observe(env.agent_selection)
                _assert_same_observation(mine, theirs, env.agent_selection)
                assert np.array_equal(twin.state(), env.state())
    for twin in twins:
        assert not twin.agents


# --------------------------------------------------------------------------- conformance


def check_pettingzoo_conformance(module: Any, **options: Any) -> None:
    """PettingZoo's own tests: api_test, parallel_api_test, seed_test, parallel_seed_test and
    render_test, for one option combination. The parallel seed test samples actions without
    masks, so it runs with `illegal_action="penalize"`."""
    with warnings.catch_warnings():
        for expected in _EXPECTED_PETTINGZOO_WARNINGS:
            warnings.filterwarnings("ignore", message=expected)
        from pettingzoo.test import (
            api_test,
            parallel_api_test,
            parallel_seed_test,
            render_test,
            seed_test,
        )

        api_test(module.env(**options), num_cycles=200)
        parallel_api_test(module.parallel_env(**options), num_cycles=200)
        seed_test(lambda: module.env(**options), num_cycles=100)
        parallel_seed_test(
            lambda: module.parallel_env(**{**options, "illegal_action": "penalize"}),
            num_cycles=100,
        )
        render_test(lambda render_mode=None: module.env(render_mode=render_mode, **options))


_EXPECTED_PETTINGZOO_WARNINGS = (
    # PettingZoo's checks warn about every dict observation (they exempt their own classic envs
    # by name), and api_test passes a dummy reset option on purpose.
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "reset\\(\\) options are not used",
    # importing pettingzoo.test loads a classic env through PettingZoo's deprecated module path
    "The old environment creation API has been deprecated",
)


def check_docstring(module: Any) -> None:
    """The env module's docstring is its spec table: it shows the observation and state
    layouts exactly as the observer builds them, names every option, and gives the player range
    of the game's facts."""
    import dataclasses

    doc = module.__doc__ or ""
    spec = module.SPEC
    info, default = spec.info, spec.options_class()
    players = f"| `num_players` | {default.num_players} | {info.min_players}–{info.max_players}"
    assert players in doc, f"the options table's num_players row differs from {players!r}"
    observer = spec.new_observer(spec.options_class())
    for layout in (observer.observation_layout, observer.state_layout):
        assert layout.table() in doc, "the docstring's layout table differs from the observer's"
    options = [f.name for f in dataclasses.fields(spec.options_class) if f.init]
    for name in (*options, "reward", "illegal_action", "render_mode"):
        assert f"`{name}`" in doc, f"the docstring does not document option {name!r}"
    assert "Version history" in doc


# --------------------------------------------------------------------------- golden traces


def playthrough(module: Any, options: dict[str, Any], seed: int) -> str:
    """A human-readable trace of one seeded game of env module `module` (such as
    `snail_envs.snap_v2`) with seeded random actions: the table before every decision, the
    action by name, and the rewards. Any change of behaviour shows up in a diff of this text."""
    env = module.env(render_mode="ansi", **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    lines = [f"# {env.metadata['name']} {json.dumps(options, sort_keys=True)} seed={seed}"]
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            lines.append(f"{agent}: done, return {reward:+g}{' (truncated)' if truncated else ''}")
            env.step(None)
            continue
        action = random_legal_action(observation["action_mask"], rng)
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        lines.append("")
        lines.append(env.render())
        lines.append(
            f"{agent} legal {legal} -> {action}: {env.unwrapped.action_to_string(agent, action)}"
        )
        env.step(action)
        rewards = {a: r for a, r in env.rewards.items() if r}
        if rewards:
            lines.append(f"rewards {rewards}")
    return "\n".join(lines) + "\n"
