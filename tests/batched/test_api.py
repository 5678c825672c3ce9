"""The batch API of every batched engine: seeding, arrays, errors, the lazy numba import, and
training through the learner's vector env."""

from __future__ import annotations

import subprocess
import sys

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs
import snail_envs.batched
from snail_envs.batched.core import PREFETCH_ABOVE
from snail_envs.registry import FACTS
from tests.hangs import error_without_hanging
from tests.marks import slow
from tests.names import PEDZACE_SLIMAKI, SNAIL_SPRINT, SNAILED_IT, SNAP

ENGINES = sorted(snail_envs.batched.ENGINES)
ASKS_AHEAD = (SNAILED_IT, SNAIL_SPRINT)
"""The engines whose steps ask ahead for the lines of the views they write (`prefetch_view`)."""
ELIMINATIONS = {SNAP}
"""The games whose seats can go out before the end: −1 then (`reward="winlose"`), 0 at the end."""


def acting(batch) -> tuple[np.ndarray, np.ndarray]:
    """The (game, slot) pairs of every acting seat."""
    return np.nonzero(batch.seats >= 0)


@pytest.mark.parametrize("env_name", ENGINES)
def test_the_arrays_have_the_reference_spaces(env_name: str) -> None:
    batch = snail_envs.batched.make(env_name, 8, num_players=3)
    reference = snail_envs.make(env_name, num_players=3)
    out = batch.reset(seed=0)
    assert batch.observation_space == reference.observation_space("player_0")["observation"]
    assert batch.action_space == reference.action_space("player_0")
    size, actions = batch.observation_space.shape[0], batch.action_space.n
    slots = 3 if reference.unwrapped.spec.info.simultaneous else 1
    assert batch.max_acting == slots
    assert out.observations.shape == (8, slots, size) and out.observations.dtype == np.float32
    assert out.action_masks.shape == (8, slots, actions) and out.action_masks.dtype == np.int8
    assert out.seats.shape == (8, slots) and out.rewards.shape == (8, 3)
    assert batch.state().shape == (8, reference.state_space.shape[0])
    assert batch.observe_all().shape == (8, 3, size)


@pytest.mark.parametrize("env_name", ENGINES)
def test_each_acting_seats_view_is_what_observe_gives_for_that_seat(env_name: str) -> None:
    batch = snail_envs.batched.make(env_name, 64, num_players=4)
    batch.reset(seed=1)
    for _ in range(30):
        games, slots = acting(batch)
        seats = batch.seats[games, slots]
        assert (batch.observe_all()[games, seats] == batch.observations[games, slots]).all()
        assert (batch.action_masks.any(axis=2) == (batch.seats >= 0)).all()
        assert (batch.seats >= 0).any(axis=1).all(), "every game has a seat to act"
        batch.step(batch.random_actions())


@pytest.mark.parametrize("env_name", ENGINES)
def test_views_brought_up_to_date_step_by_step_are_the_views_written_whole(
    env_name: str,
) -> None:
    """`step` may rewrite only what changed in the views it wrote last; a batch that does nothing
    but step shows each acting seat what a twin batch's whole views show (the twin's `observe`
    writes every view whole, so only the first batch's views are brought up to date), and the
    masks of the slots that wait are all zero (a mask is zeroed when its slot stops acting)."""
    stepped, twin = (snail_envs.batched.make(env_name, 32, num_players=3) for _ in range(2))
    stepped.reset(seed=5)
    twin.reset(seed=5)
    for _ in range(400):
        games, slots = acting(stepped)
        whole = twin.observe_all()[games, stepped.seats[games, slots]]
        assert (stepped.observations[games, slots] == whole).all()
        assert not stepped.action_masks[stepped.seats < 0].any(), "a waiting slot's mask is set"
        actions = stepped.random_actions()
        assert (twin.random_actions() == actions).all()
        stepped.step(actions)
        twin.step(actions)


@pytest.mark.parametrize(
    ("env_name", "options"),
    [(SNAIL_SPRINT, {}), (SNAIL_SPRINT, {"tin_order": "shuffled"}), (PEDZACE_SLIMAKI, {})],
    ids=str,
)
def test_a_new_game_dealt_in_a_slot_shows_the_view_written_whole(
    env_name: str, options: dict
) -> None:
    """Where a slot's game ends, `step` deals a new one; the acting view of the new game is
    brought up to date from the slot's last view where nothing it shows outside its notes
    changes between games (a board the same in every game), written whole where it may (a
    shuffled tin): either way what a twin batch's whole views show."""
    stepped, twin = (snail_envs.batched.make(env_name, 48, **options) for _ in range(2))
    stepped.reset(seed=3)
    twin.reset(seed=3)
    new_games = 0
    while new_games < 200:
        actions = stepped.random_actions()
        out = stepped.step(actions)
        twin.step(actions)
        new = np.nonzero(out.terminated | out.truncated)[0]
        seats = stepped.seats[new, 0]
        whole = twin.observe_all()[new, seats]
        assert (stepped.observations[new, 0] == whole).all(), "a new game's view"
        new_games += new.size


def test_the_turn_based_views_drop_the_slot_axis() -> None:
    batch = snail_envs.batched.make("snail_sprint_v0", 16)
    out = batch.reset(seed=0)
    assert np.shares_memory(batch.observation, out.observations)
    assert (batch.observe(batch.seat.astype(np.int64)) == batch.observation).all()
    assert (batch.action_mask == out.action_masks[:, 0]).all()


def test_a_game_record_holds_its_generators_then_its_groups_of_fields_in_order_then_its_tape() -> (
    None
):
    from snail_envs.batched.chance import CHANCE_FIELDS, game_record
    from snail_envs.batched.records import fields

    record = game_record(fields(3, a=np.int8, b=np.int64), fields((), c=np.uint8), tape_length=5)
    assert record.names == (*(name for name, *_ in CHANCE_FIELDS), "a", "b", "c", "tape")
    assert record["a"] == np.dtype((np.int8, 3)) and record["b"] == np.dtype((np.int64, 3))
    assert record["c"] == np.uint8 and record["tape"] == np.dtype((np.int16, 5))
    assert record.isalignedstruct and record.fields["b"][1] % 8 == 0


@pytest.mark.parametrize("env_name", ENGINES)
def test_same_seed_same_games_whatever_the_batch_size(env_name: str) -> None:
    small = snail_envs.batched.make(env_name, 4)
    large = snail_envs.batched.make(env_name, 16)
    other = snail_envs.batched.make(env_name, 4)
    small.reset(seed=7)
    large.reset(seed=7)
    other.reset(seed=8)
    differs = False
    for _ in range(100):
        assert (small.seats == large.seats[:4]).all()
        assert (small.observations == large.observations[:4]).all()
        assert (small.rewards == large.rewards[:4]).all()
        differs |= not (small.observations == other.observations).all()
        actions = large.random_actions()
        small.step(actions[:4])
        large.step(actions)
        other.step(other.random_actions())
    assert differs, "different seeds gave the same games"


def test_the_engines_that_write_most_views_a_step_ask_ahead_for_them() -> None:
    asking = {name for name in ENGINES if snail_envs.batched.make(name, 1).kernels.asks_ahead}
    assert asking == set(ASKS_AHEAD)


@pytest.mark.parametrize("compact_views", [False, True])
@pytest.mark.parametrize("env_name", ASKS_AHEAD)
def test_a_batch_past_the_caches_asks_ahead_and_plays_the_same_games(
    env_name: str, compact_views: bool
) -> None:
    one = snail_envs.batched.make(env_name, 1, compact_views=compact_views)
    per_game = one.games.nbytes + one.observations.nbytes + one.action_masks.nbytes
    size = PREFETCH_ABOVE // per_game + 1
    options = {"compact_views": compact_views, "final_observations": True}
    large = snail_envs.batched.make(env_name, size, **options)
    small = snail_envs.batched.make(env_name, 8, **options)
    assert large._ahead and not small._ahead
    large.reset(seed=11)
    small.reset(seed=11)
    ended = 0
    for _ in range(80):
        for mine, theirs in zip(small.last(), large.last(), strict=True):
            assert (mine == theirs[:8]).all()
        assert (small.final_observations == large.final_observations[:8]).all()
        actions = large.random_actions()
        large.step(actions)
        small.step(actions[:8])
        ended += int(small.terminated.sum())
    assert ended, "no game ended: the steps that deal again were not compared"


@pytest.mark.parametrize("env_name", ENGINES)
def test_random_actions_are_legal_and_games_end_with_win_lose_rewards(env_name: str) -> None:
    batch = snail_envs.batched.make(env_name, 128, num_players=3)
    batch.reset(seed=2)
    ended = 0
    for _ in range(300):
        actions = batch.random_actions()
        games, slots = acting(batch)
        assert batch.action_masks[games, slots, actions[games, slots]].all()
        out = batch.step(actions)
        paid = {-1.0, 0.0, 1.0} if env_name in ELIMINATIONS else {-1.0, 1.0}
        assert set(np.unique(out.rewards[out.terminated])) <= paid
        best = min(1.0, FACTS[env_name].shared_win)  # a result shared as a draw pays less
        assert (out.rewards[out.terminated].max(axis=1) >= best).all(), "someone wins or shares"
        ongoing = out.rewards[~out.terminated]
        if env_name in ELIMINATIONS:
            ongoing = ongoing[ongoing != -1.0]
        assert not ongoing.any()
        ended += int(out.terminated.sum())
    assert ended > 128


@pytest.mark.parametrize("env_name", ENGINES)
def test_players_asked_for_some_slots_answer_there_alone_and_leave_the_others_untouched(
    env_name: str,
) -> None:
    batch = snail_envs.batched.make(env_name, 64, num_players=3)
    batch.reset(seed=4)
    for _ in range(20):
        batch.step(batch.random_actions())
    where = (batch.seats >= 0) & (np.arange(64) % 3 == 0)[:, None]
    heuristic = batch.heuristic_actions(where).reshape(batch.seats.shape)
    everywhere = batch.heuristic_actions().reshape(batch.seats.shape)
    np.testing.assert_array_equal(heuristic[where], everywhere[where])
    assert not heuristic[~where].any()
    generators = batch.games["agent_state"].copy()
    random = batch.random_actions(where)
    games, slots = np.nonzero(where)
    assert batch.action_masks[games, slots, random[games, slots]].all()
    asked = where.any(axis=1)
    assert (batch.games["agent_state"][~asked] == generators[~asked]).all()
    assert (batch.games["agent_state"][asked] != generators[asked]).all()
    with pytest.raises(ValueError, match="where must be a bool array of shape"):
        batch.random_actions(where[:3])


@pytest.mark.parametrize("env_name", ENGINES)
def test_an_illegal_action_raises_naming_the_legal_ones_and_plays_nothing(env_name: str) -> None:
    batch = snail_envs.batched.make(env_name, 4)
    batch.reset(seed=0)
    actions = batch.random_actions()
    slot = int(np.flatnonzero(batch.seats[2] >= 0)[0])
    illegal = batch.num_actions
    actions[2, slot] = illegal
    before = batch.games.copy()
    legal = ", ".join(map(str, np.flatnonzero(batch.action_masks[2, slot])))
    with pytest.raises(ValueError, match=f"game 2, player_.: action {illegal} is illegal now; "):
        batch.step(actions)
    with pytest.raises(ValueError, match=f"legal actions: {legal}$"):
        batch.step(actions)
    assert all((batch.games[name] == before[name]).all() for name in before.dtype.names)
    for bad in (actions[:3], actions.astype(float), np.full((4, batch.max_acting), -1)):
        with pytest.raises(ValueError):
            batch.step(bad)


@pytest.mark.parametrize("env_name", ENGINES)
def test_bad_options_get_clear_errors(env_name: str) -> None:
    with pytest.raises(ValueError, match="num_players must be an integer from 2"):
        snail_envs.batched.make(env_name, 4, num_players=13)
    with pytest.raises(ValueError, match="unknown option 'colour'; allowed options: num_players"):
        snail_envs.batched.make(env_name, 4, colour="red")
    with pytest.raises(ValueError, match="illegal_action is not an option of the batched"):
        snail_envs.batched.make(env_name, 4, illegal_action="penalize")
    with pytest.raises(
        ValueError, match="reward must be one of 'winlose', 'points', 'margin'; got 'score'"
    ):
        snail_envs.batched.make(env_name, 4, reward="score")
    with pytest.raises(ValueError, match="num_envs must be an integer at least 1"):
        snail_envs.batched.make(env_name, 0)
    with pytest.raises(RuntimeError, match="call reset"):
        snail_envs.batched.make(env_name, 4).step(np.zeros(4, np.int64))


@pytest.mark.parametrize("env_name", ENGINES)
def test_engines_of_one_game_share_their_options_record_type(env_name: str) -> None:
    """numba knows a record type by its object: a type built again for each engine would be
    worked out anew at every call of a kernel (several µs a call)."""
    first = snail_envs.batched.make(env_name, 2)
    second = snail_envs.batched.make(env_name, 3, num_players=3)
    assert first.rules.dtype is second.rules.dtype


def test_every_game_has_a_batched_engine() -> None:
    assert set(ENGINES) == set(snail_envs.available_env_names())


def test_games_without_a_batched_engine_are_named(monkeypatch) -> None:
    monkeypatch.delitem(snail_envs.batched.ENGINES, SNAP)
    with pytest.raises(ValueError, match=f"{SNAP} has no batched engine yet; batched engines:"):
        snail_envs.batched.make(SNAP, 4)
    with pytest.raises(ValueError, match="unknown environment 'chess_v0'"):
        snail_envs.batched.make("chess_v0", 4)


def test_numba_is_imported_only_by_the_engines_and_its_absence_is_explained(monkeypatch) -> None:
    code = (
        "import sys, snail_envs, snail_envs.batched; "
        "assert 'numba' not in sys.modules, 'numba imported too early'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    monkeypatch.setattr(snail_envs.batched.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[batched\]"'):
        snail_envs.batched.make("snail_sprint_v0", 4)


@pytest.mark.parametrize(
    ("env_name", "opponents"),
    [
        ("snail_sprint_v0", {"random": 1, "heuristic": 3}),
        slow("pedzace_slimaki_v0", {"random": 1, "heuristic": 1}),
        slow("snailed_it_v0", {"random": 1, "heuristic": 1}),
        slow(SNAP, {"random": 1, "heuristic": 1}),
    ],
)
def test_maskable_ppo_trains_on_the_learner_vec_env(env_name: str, opponents) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(
        snail_envs.batched.make_vec_env(env_name, 32, opponents=opponents, num_players=3)
    )
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    masks = get_action_masks(venv)
    actions, _ = model.predict(venv.reset(), action_masks=masks)
    assert masks[np.arange(32), actions].all()


def test_the_learner_vec_env_rejects_unknown_opponents_and_seats() -> None:
    with pytest.raises(ValueError, match=r"players among random, heuristic, policy \(or"):
        snail_envs.batched.make_vec_env(SNAP, 4, opponents="self")
    with pytest.raises(ValueError, match=r'a policy plays the "policy" seats'):
        snail_envs.batched.make_vec_env(SNAP, 4, opponents={"random": 1, "policy": 1})
    with pytest.raises(ValueError, match=r'a policy plays the "policy" seats'):
        snail_envs.batched.make_vec_env(SNAP, 4, policy=RandomPolicy())
    with pytest.raises(ValueError, match="policy must be callable"):
        snail_envs.batched.make_vec_env(SNAP, 4, opponents="policy", policy=3)
    with pytest.raises(ValueError, match="seat must be None"):
        snail_envs.batched.make_vec_env("snail_sprint_v0", 4, seat=2)
    venv = snail_envs.batched.make_vec_env("snail_sprint_v0", 8, seat=1, num_players=3)
    venv.reset()
    assert (venv.learners == 1).all()


@pytest.mark.parametrize(
    ("env_name", "players"),
    [
        ("snail_sprint_v0", ""),
        slow("pedzace_slimaki_v0", ""),
        slow("snail_sprint_v0", ", opponents='policy', policy=lambda o, m, g: m.argmax(axis=1)"),
    ],
)
def test_options_that_leave_the_learner_no_decision_are_named_after_bounded_deals(
    env_name: str, players: str
) -> None:
    """Seat 0 opens, so with one turn the learner in seat 1 never acts: every deal ends before
    its first decision, whoever plays seat 0 (an in-kernel player, or the policy between kernel
    calls). The kernels stop at `MAX_DEALS` deals and report it; the options are named."""
    code = (
        "import snail_envs.batched; snail_envs.batched.make_vec_env("
        f"{env_name!r}, num_envs=4, seat=1, max_turns=1{players}).reset()"
    )
    assert error_without_hanging(code) == (
        f"ValueError: {env_name} (batched): 1000 deals in a row ended before the learner's first "
        "decision: under these options (seat=1, max_turns=1) it may never come; choose options "
        "under which the game lasts until it does"
    )


@pytest.mark.parametrize("env_name", ENGINES)
def test_the_learner_vec_env_takes_integer_actions_of_its_shape_only(env_name: str) -> None:
    """Floats are not truncated, NaN is not an integer, and every game with an illegal action is
    named; no game moves."""
    venv = snail_envs.batched.make_vec_env(env_name, 4)
    venv.seed(0)
    venv.reset()
    legal = venv.action_masks().argmax(axis=1)
    before = venv.engine.games.copy()
    for actions in (legal + 0.7, np.full(4, np.nan), legal[:3], legal[:, None], legal.tolist()[:3]):
        with pytest.raises(ValueError, match=r"actions must be an integer array of shape \(4,\)"):
            venv.step(actions)
    illegal = legal.copy()
    illegal[[1, 3]] = venv.engine.num_actions
    with pytest.raises(
        ValueError, match=r"illegal actions in games 1, 3 \(no game played\); game 1"
    ):
        venv.step(illegal)
    assert all((venv.engine.games[name] == before[name]).all() for name in before.dtype.names)
    venv.step(legal.tolist())


def test_seats_to_observe_are_integers_in_range() -> None:
    batch = snail_envs.batched.make("snail_sprint_v0", 4, num_players=3)
    batch.reset(seed=0)
    assert np.array_equal(batch.observe(np.int64(1)), batch.observe(1))
    assert np.array_equal(batch.observe(np.array([0, 1, 2, 1]))[1], batch.observe(1)[1])
    for seat in (1.7, True, np.array([0, 1]), np.array([0.0, 1.0, 2.0, 1.0])):
        with pytest.raises(
            ValueError, match=r"seat must be an integer or an integer array of shape"
        ):
            batch.observe(seat)
    with pytest.raises(ValueError, match=r"seats are 0 to 2; got 3 in games 1, 2, 3$"):
        batch.observe(np.array([0, 3, 3, -1]))


def test_counts_and_seats_may_be_numpy_integers() -> None:
    venv = snail_envs.batched.make_vec_env(
        "snail_sprint_v0", np.int64(4), seat=np.int64(1), num_players=np.int64(3)
    )
    venv.reset()
    assert venv.num_envs == 4 and (venv.learners == 1).all() and venv.engine.num_players == 3
    with pytest.raises(ValueError, match="seat must be None"):
        snail_envs.batched.make_vec_env("snail_sprint_v0", 4, seat=True)
    with pytest.raises(ValueError, match="num_envs must be an integer at least 1; got True"):
        snail_envs.batched.make("snail_sprint_v0", True)


class RandomPolicy:
    """Uniformly random legal actions, each seat asked recorded with its view."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.asked: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.began: list[np.ndarray] = []

    def begin_episodes(self, games: np.ndarray) -> None:
        self.began.append(games.copy())

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray
    ) -> np.ndarray:
        self.asked.append((observations.copy(), masks.copy(), games.copy()))
        return np.argmax(np.where(masks, self.rng.random(masks.shape), -1.0), axis=1)


def test_policy_seats_are_asked_with_their_own_views_and_only_theirs() -> None:
    policy = RandomPolicy()
    venv = snail_envs.batched.make_vec_env(
        "snail_sprint_v0", 16, opponents="policy", policy=policy, seat=0, num_players=3
    )
    engine, seen = venv.engine, []

    def checked(observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        turn = engine.games["turn"][games].astype(np.int64)
        assert (turn != 0).all(), "the learner's seat is never the policy's"
        assert np.array_equal(observations, engine.observe(engine.games["turn"])[games])
        seen.append(games.size)
        return RandomPolicy.__call__(policy, observations, masks, games)

    venv.policy = checked
    venv.seed(3)
    venv.reset()
    for _ in range(100):
        venv.step(np.argmax(venv.action_masks(), axis=1))
    # two policy seats answer most learner moves (forced moves are played by the engine), and
    # the games waiting are asked together
    assert sum(seen) >= 1.5 * 16 * 100 and max(seen) > 1


def test_the_policy_hears_of_every_episode_before_it_is_asked_to_play_in_it() -> None:
    policy = RandomPolicy()
    venv = snail_envs.batched.make_vec_env(
        SNAP, 8, opponents={"random": 1, "policy": 1}, policy=policy, num_players=3
    )
    venv.seed(0)
    venv.reset()
    venv.step(np.argmax(venv.action_masks(), axis=1))
    assert sorted(policy.began[0].tolist()) == list(range(8))
    episodes = 8
    for _ in range(300):
        _, _, dones, _ = venv.step(np.argmax(venv.action_masks(), axis=1))
        episodes += int(dones.sum())
    began = np.concatenate(policy.began)
    pending = int(venv.seating["began"].sum())  # announced when the policy is next asked
    # every episode is announced once: those that reached the learner, and those dealt again
    assert began.size + pending >= episodes and policy.asked


def test_a_policy_playing_an_illegal_action_is_named() -> None:
    def play(policy) -> None:  # type: ignore[no-untyped-def]
        venv = snail_envs.batched.make_vec_env(
            "snail_sprint_v0", 4, opponents="policy", policy=policy, seat=0
        )
        venv.seed(0)
        venv.reset()  # the policy's seat may play first, after a forced move of the learner's
        for _ in range(10):
            venv.step(np.argmax(venv.action_masks(), axis=1))

    with pytest.raises(ValueError, match=r"the policy played illegal action 99 for player_1"):
        play(lambda observations, masks, games: np.full(games.size, 99))
    with pytest.raises(ValueError, match=r"must return \d+ integer actions"):
        play(lambda observations, masks, games: np.zeros(games.size + 1, np.int64))


@pytest.mark.parametrize("env_name", ENGINES)
def test_the_same_seed_seats_policy_players_where_in_kernel_players_would_sit(
    env_name: str,
) -> None:
    """Same seed, same seats drawn: the policy sits where the in-kernel heuristic sat."""
    policy = RandomPolicy()
    weighted = snail_envs.batched.make_vec_env(
        env_name, 32, opponents={"random": 1, "policy": 1}, policy=policy
    )
    plain = snail_envs.batched.make_vec_env(env_name, 32, opponents={"random": 1, "heuristic": 1})
    for venv in (weighted, plain):
        venv.seed(11)
        venv.reset()
    assert np.array_equal(weighted.learners, plain.learners)
    kinds = weighted.seating["kinds"] == 2
    assert np.array_equal(kinds, plain.seating["kinds"] == 1)


@pytest.mark.slow
def test_a_tiny_batched_training_run(tmp_path) -> None:
    from snail_envs.training.config import load_config
    from snail_envs.training.train import train

    overrides = [
        "batched=true",
        "opponents={random: 1, heuristic: 1, self: 1}",
        "self_play_every=128",
        "total_timesteps=512",
        "n_envs=32",
        "n_steps=16",
        "batch_size=128",
        "n_epochs=1",
        "eval_games=0",
        "final_eval_games=0",
        f"output_dir={tmp_path}",
    ]
    summary = train(load_config("snail_sprint_v0", overrides=overrides), progress_bar=False)
    assert summary["config"]["batched"]
    assert (tmp_path / "snail_sprint_v0-0-1" / "policy.pt").exists()


def test_batched_training_points_to_the_python_engine_where_the_kernels_refuse(tmp_path) -> None:
    from snail_envs.training.config import load_config
    from snail_envs.training.train import train

    config = load_config(
        SNAP,
        overrides=[
            "env_options.match_key=picture",
            "env_options.pictures=52",
            "env_options.copies=8",  # 416 cards
            f"output_dir={tmp_path}",
        ],
    )
    with pytest.raises(ValueError, match=r"at most 256 cards.*batched=false trains on the Python"):
        train(config, progress_bar=False)
