"""Search at compiled speed: IS-MCTS whose worlds are drawn and played in the batched engines.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse, 2012) with an opponent model, as
`snail_envs.agents.ismcts` plays it with `opponents=`, but with every world in a record of the
game's batched engine. At each decision with a choice, the agent writes the game as a record of
its batch (`BatchedGame.record_of`) and then, in rounds of `batch` iterations at once:

1. copies it into every record of the batch and redraws everything hidden from its seat there
   (`BatchedGame.redraw`: in the kernels, from the distribution of `resample_from_infostate`,
   with the future chance of each world seeded anew); the true hidden information is
   overwritten before anything is read. With a `belief` (`snail_envs.agents.beliefs`, told
   every action of the game by `watch`), the worlds are its tables instead, drawn in proportion
   to the model's likelihood of what the other seats were seen to do
   (`BatchedGame.load_worlds`), each with its future chance seeded anew;
2. walks every world down one tree of its seat's decisions (`snail_envs.agents.search_tree`,
   compiled): at each node the action with the best UCB1 score among those legal in that world
   (availability counts stand in for the parent's visits), or with a `prior` (a policy's
   probabilities for the seat's view in that world, evaluated for all the walking worlds at
   once) the best PUCT score; each walk counts at once as a visit of no value, so that the walks
   of one round spread over the tree. Between two of its choices the game goes on in the
   kernels, every other seat played by the opponent model (`opponents`: the game's heuristic,
   or random) on its own view of that world, and the seat's forced moves made for it
   (`Kernels.search_play`);
3. adds one node where a world leaves the tree (or stops at `depth` decisions), and plays that
   world on in the kernels to the horizon, its seat by the `rollout` player and the others by
   the model (`Kernels.search_play`); with `rollout="policy"` the seat's moves are drawn
   from the `prior` policy instead, evaluated for all the worlds still playing at once, the
   game going on in the kernels between them (`Kernels.search_play`);
4. backs up the seat's value: `value="win"`, +1 for a win and −1 for a loss; `"points"`, the
   points it gains in the game's own scoring; `"margin"`, those points less the mean the other
   seats gain (the environment's `reward="margin"`). Points come in each game's own units, so
   the `exploration` constant is scaled by half the spread of the values seen in this search.

The action played is the root action visited most; `visit_counts` gives all of them, the
targets of expert iteration (`snail_envs.training`). The tree branches on the seat's actions
only (open loop): the opponents' choices and chance are sampled, not branched on, so that the
budget goes to the seat's own decisions. The search plays until the end of the game, or with
`horizon="round"` until the round in play ends: the default of Snailed It! (its round) and Snap
(the flip in play and its windows), whose ends of game lie too far for the budget.

It reads nothing its seat cannot know: the game is loaded whole, but every world is redrawn from
the seat's view before the search reads it, by draws that depend on that view alone (the tests
check that two games differing only in what is hidden give the same choices).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from snail_envs.agents.base import SearchAgent
from snail_envs.agents.stopping import check_stop
from snail_envs.batched import ENGINES, engine_class
from snail_envs.core.options import check_choice, check_int, rule_keywords

VALUES = {"win": "winlose", "points": "points", "margin": "margin"}
"""What the search maximises, and the engine's reward mode that pays it."""
HORIZONS = ("game", "round")
NO_LIMIT = 2**62
"""A round the search never reaches."""

ITERATIONS = 2048
"""The iterations a decision by default."""
BATCH = 64
"""The worlds searched at once by default."""


class CompiledSearchAgent(SearchAgent):
    """IS-MCTS in the batched engines (see the module docstring); the same seed gives the same
    choices. Budget: `iterations` a decision, or `seconds` of wall time (which makes play depend
    on the machine's speed), whichever ends first; at least one round of `batch` iterations. A
    `belief`'s model should play as `opponents` do."""

    def __init__(
        self,
        env_name: str,
        iterations: int = ITERATIONS,
        seconds: float | None = None,
        batch: int = BATCH,
        exploration: float = 0.7,
        value: str = "margin",
        rollout: str = "heuristic",
        opponents: str = "heuristic",
        horizon: str | None = None,
        depth: int | None = None,
        prior: Any = None,
        belief: Any = None,
        seed: int | None = None,
    ) -> None:
        if env_name not in ENGINES:
            raise ValueError(
                f"the search plays its worlds in a batched engine; {env_name!r} has none "
                f"(engines: {', '.join(ENGINES)})"
            )
        self.engine = engine_class(env_name)
        from snail_envs.agents import search_tree  # numba, which engine_class requires
        from snail_envs.batched.core import OPPONENTS

        if self.engine.load_game is None:
            raise ValueError(f"{env_name}'s batched engine cannot load games, so it cannot search")
        check_int("iterations", iterations, 1)
        check_int("batch", batch, 1)
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be a positive time a move; got {seconds!r}")
        if not exploration >= 0:
            raise ValueError(f"exploration must be a non-negative number; got {exploration!r}")
        check_choice("value", value, tuple(VALUES))
        check_choice("rollout", rollout, (*OPPONENTS, "policy"))
        if rollout == "policy" and prior is None:
            raise ValueError(
                "rollout=policy plays the rollouts with the prior's policy: give a prior "
                "(prior=ppo or prior=PATH)"
            )
        check_choice("opponents", opponents, OPPONENTS)
        horizon = self.engine.search_horizon if horizon is None else horizon
        check_choice("horizon", horizon, HORIZONS)
        depth = self.engine.search_depth if depth is None else depth
        check_int("depth", depth, 0)
        self.env_name = env_name
        self.iterations = iterations
        self.seconds = seconds
        self.batch = batch
        self.exploration = exploration
        self.value = value
        self.rollout = rollout
        self.opponents = opponents
        self.horizon = horizon
        self.depth = depth
        """The most decisions of the seat a walk takes in the tree (0: no limit); 1 makes the
        search flat, its root's actions followed by rollouts alone (by default the engine's
        `search_depth`: flat in Snail Sprint!)."""
        self.prior = prior
        """None (UCB1), or a policy's probabilities of the actions, (views, masks) → (B, A),
        for PUCT (`policy_prior`)."""
        super().__init__(seed, belief)
        self._worlds: Any = None
        self._tree = search_tree
        self.played = np.zeros(1, np.int64)
        """The decisions played in the kernels by every search so far (for benchmarks)."""
        self.searched = 0
        """The iterations of every search so far."""

    def search(self, host: Any, agent: str, legal: list[int]) -> int:
        seat = host.possible_agents.index(agent)
        worlds = self._worlds_for(host.options)
        record = worlds.record_of(host.game, self._rng.getrandbits(63))
        mask = np.zeros(worlds.num_actions, np.int8)
        mask[legal] = 1
        view = host.observe(agent)["observation"] if self.prior is not None else None
        believed = None
        if self.belief is not None:
            tables, weights = self.belief.worlds(host, agent, self._rng.getrandbits(31))
            records = np.array(
                [worlds.record_of(table.game, self._rng.getrandbits(63)) for table in tables],
                worlds.game_dtype,
            )
            believed = records, np.asarray(weights) / sum(weights)
        visits = self.visit_counts(record, seat, mask, host.options, view, believed)
        return max(legal, key=lambda action: visits[action])

    def visit_counts(
        self,
        record: np.ndarray,
        seat: int,
        mask: np.ndarray,
        options: Any,
        view: np.ndarray | None = None,
        believed: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:
        """The visits of each root action of a search for `seat` from `record`, a game of the
        batched engine for these rule options in which `seat` is to choose among the actions
        `mask` allows (its view `view`, needed with a `prior`). Everything hidden from `seat`
        is redrawn before it is read, or, with `believed` (records of the worlds a belief holds
        and their probabilities), the worlds are drawn among those."""
        worlds = self._worlds_for(options)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        kernels, rules, tree_kernels = worlds.kernels, worlds.rules, self._tree
        last_round = NO_LIMIT
        if self.horizon == "round":
            last_round = int(kernels.round_of(record))
        model = worlds.opponents.index(self.opponents)
        walk_kinds = np.full(worlds.num_players, model, np.int64)
        rollout_kinds = walk_kinds.copy()
        if self.rollout != "policy":
            rollout_kinds[seat] = worlds.opponents.index(self.rollout)
        tree = tree_kernels.Tree(worlds.num_actions, capacity=self.iterations + self.batch + 1)
        lowest, highest = math.inf, -math.inf
        size, num_actions = self.batch, worlds.num_actions
        draws = np.random.default_rng(self._rng.getrandbits(63))
        masks = np.empty((size, num_actions), np.int8)
        guided = size if self.prior is not None else 0
        views = np.zeros((guided, worlds.observation_layout.size), np.float32)
        priors = np.zeros((views.shape[0], num_actions), np.float32)
        paths = np.zeros((size, 16), np.int64)
        done = 0

        def play_on(actions: np.ndarray, moving: np.ndarray, kinds: np.ndarray, walk: bool) -> None:
            """The worlds `moving` play `actions` for the seat, then on to its next choice (with
            `walk`), or to the horizon (`Kernels.search_play`)."""
            kernels.search_play(
                worlds.games,
                rules,
                seat,
                actions,
                kinds,
                last_round,
                moving,
                values,
                masks,
                views,
                self.played,
                walk,
            )

        def walk(actions: np.ndarray, moving: np.ndarray) -> None:
            """The worlds `moving` play `actions` for the seat, then on to its next choice."""
            play_on(actions, moving, walk_kinds, True)

        while done < self.iterations:
            check_stop()
            if believed is None:
                worlds.redraw(seat, self._rng.getrandbits(63), source=record, views=False)
            else:
                drawn = draws.choice(len(believed[1]), size, p=believed[1])
                worlds.load_worlds(believed[0][drawn], self._rng.getrandbits(63), views=False)
            masks[:] = mask
            if self.prior is not None:
                views[:] = view
            values = np.zeros(size)
            live = np.ones(size, np.uint8)
            nodes = np.zeros(size, np.int64)
            depths = np.zeros(size, np.int64)
            walking = live.copy()
            exploration = self.exploration
            if self.value != "win" and highest > lowest:
                exploration *= (highest - lowest) / 2
            while walking.any():
                if self.prior is not None:
                    priors[walking == 1] = self.prior(views[walking == 1], masks[walking == 1])
                tree.make_room(size)
                actions = np.full(size, -1, np.int64)
                tree_kernels.descend(
                    tree.children,
                    tree.visits,
                    tree.total,
                    tree.available,
                    tree.size,
                    nodes,
                    masks,
                    priors,
                    walking,
                    draws.random(size),
                    exploration,
                    actions,
                )
                moving = (actions >= 0).astype(np.uint8)
                stepped = moving == 1
                if depths.max() == paths.shape[1]:
                    paths = np.concatenate([paths, np.zeros_like(paths)], axis=1)
                paths[stepped, depths[stepped]] = nodes[stepped]
                depths += moving
                walk(actions, moving)
                live[stepped & (moving == 0)] = 0
                walking &= live
                if self.depth:
                    walking[depths >= self.depth] = 0
            if self.rollout == "policy":
                while live.any():
                    playing = live == 1
                    shares = self.prior(views[playing], masks[playing]).cumsum(axis=1)
                    drawn = draws.random((len(shares), 1)) * shares[:, -1:]
                    actions = np.full(size, -1, np.int64)
                    actions[playing] = (shares > drawn).argmax(axis=1)
                    walk(actions, live)
            else:
                play_on(np.full(size, -1, np.int64), live, rollout_kinds, False)
            tree_kernels.back_up(tree.total, paths, depths, values)
            lowest, highest = min(lowest, values.min()), max(highest, values.max())
            done += size
            self.searched += size
            if deadline is not None and time.perf_counter() > deadline:
                break
        return tree.root_visits()

    def _worlds_for(self, options: Any) -> Any:
        """A batch of `batch` worlds for the rule options of the game, paying the value (never
        dealt: every round fills it with copies of the game searched, so a search compiles no
        kernel that deals or writes views)."""
        if self._worlds is None or self._worlds.options != options:
            worlds = self.engine(self.batch, reward=VALUES[self.value], **rule_keywords(options))
            for player in {self.rollout, self.opponents} - {"policy"}:
                worlds.check_opponent(player)
            self._worlds = worlds
        return self._worlds


def policy_prior(policy: Any) -> Any:
    """The probabilities of the legal actions `policy` (a Stable-Baselines3 maskable policy)
    gives, as the search's prior: (views, masks) → float32 (B, A). The search asks for them at
    every step of its walks, so a plain actor (a flattened observation, linear layers, tanh or
    ReLU) is run in numpy with the weights it has now, a few times faster than torch on these
    small batches; any other network through torch (`torch_prior`). Make a new prior after the
    policy's weights change."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    layers: list[tuple[np.ndarray, np.ndarray] | str] = []
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            weight = module.weight.detach().numpy().T.astype(np.float32)
            layers.append((weight, module.bias.detach().numpy().astype(np.float32)))
        elif isinstance(module, (torch.nn.Tanh, torch.nn.ReLU)):
            layers.append("tanh" if isinstance(module, torch.nn.Tanh) else "relu")
        else:
            return torch_prior(policy)
    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        return torch_prior(policy)

    def probabilities(views: np.ndarray, masks: np.ndarray) -> np.ndarray:
        hidden = views.reshape(len(views), -1)
        for layer in layers:
            if layer == "tanh":
                hidden = np.tanh(hidden)
            elif layer == "relu":
                hidden = np.maximum(hidden, 0)
            else:
                hidden = hidden @ layer[0] + layer[1]
        legal = masks.astype(bool)
        logits = np.where(legal, hidden, -np.inf)
        top = logits.max(axis=1, keepdims=True)
        shares = np.exp(logits - np.where(np.isfinite(top), top, 0.0))
        total = shares.sum(axis=1, keepdims=True)
        return (shares / np.where(total > 0, total, 1.0)).astype(np.float32)

    return probabilities


def torch_prior(policy: Any) -> Any:
    """`policy_prior` through the policy's own torch forward pass, for any network."""
    import torch

    def probabilities(views: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            distribution = policy.get_distribution(
                torch.as_tensor(views), action_masks=torch.as_tensor(masks).bool()
            )
            return distribution.distribution.probs.numpy()

    return probabilities
