"""Information-set Monte Carlo tree search, for any game of the library.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse, 2012). Every iteration:

1. draws a world consistent with what the searching seat has seen
   (`resample_from_infostate`: everything hidden from it redrawn, future chance reseeded);
2. walks one tree shared by all seats down that world, choosing at each node the action with the
   best UCB1 score among those legal in this world (availability counts stand in for the parent's
   visits, since an action is not legal in every world); a node's branches are told apart by seat
   and action, since which seat moves after the same history can differ between worlds, and
   with `branch_on="observations"` also by what the seat sees when it chooses (its
   observation in that world). Branching on actions alone, a seat's later choice is one for
   every world that reaches it (every roll of the dice in between, every card drawn): its value
   mixes worlds the seat could tell apart, and the search's values are biased where its best
   later move depends on them ("strategy fusion"). Branching on observations, each later
   choice sees what the seat would see, as in POMCP (Silver and Veness, 2010): with an opponent
   model and worlds drawn as the belief below draws them, the search plays the best reply to
   the model as its iterations grow, at the cost of a tree that grows wider (fewer visits a
   node at a small budget);
3. adds one node, then plays to the end of the game with the rollout policy: uniformly random
   legal actions, or a given agent (`rollout=`, for example the game's heuristic), each seat
   acting on its own observation of that world. With a rollout agent a node adds its action
   first, and the others only where they are more urgent than the best tried action (an
   untried action weighs as one visit at the mean of those tried): a choice whose next moves
   matter is first valued with the rollout agent's, not sunk by a try of every bad one;
4. backs the returns up the path: each node scores the return of the seat that chose its action.
   The return is the seat's rewards from the environment; with `value="points"` the points it
   gains in the game's own scoring, a finer signal than win or lose in long games; with
   `value="margin"` those points less the mean the other seats gain, which in a game of two is
   the change in the lead that decides the winner (a seat's own points are not its lead). Points
   come in each game's own units, so there UCB1's `exploration` is scaled by half the spread of
   the returns seen in this search, which is 1 for win or lose (±1); until two returns differ it
   is not scaled (a spread of 0 would stop the exploring at the first action tried, where a
   game's points come rarely).

With an opponent model (`opponents=`, an agent such as the game's heuristic) the other seats are
not searched: in the tree and in the rollouts they play as that agent would, on their own
observations of the world drawn, and the tree branches on the searching seat's decisions only. The
search then looks for the best reply to players like the model, rather than to the best play
the tree finds for them in worlds they cannot see (which lets them act on the searcher's guesses).
The model may be any agent, a planning one included. With a belief (`belief=`, a
`snail_envs.agents.beliefs.ModelBelief` of the same model) the worlds are not drawn alike: the
searcher is told every action of the game as it is played (`watch`), its belief follows the game
on tables of its own, and its worlds are copies of them drawn in proportion to the model's
likelihood of the other seats' actions at them, so that the hidden information their play
reveals is used.

The action played is the root action visited most. Only the public API is used: copies with the
hidden information redrawn, legal actions, steps and rewards.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from snail_envs.agents.base import SearchAgent, choose_action
from snail_envs.agents.beliefs import ModelBelief
from snail_envs.agents.stopping import check_stop

VALUES = ("reward", "points", "margin")
BRANCHES = ("actions", "observations")


class _Node:
    __slots__ = ("actor", "available", "children", "total", "visits")

    def __init__(self, actor: str) -> None:
        self.actor = actor
        """The seat whose action leads to this node; at the root, the searching seat."""
        self.children: dict[tuple[str, bytes, int], _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0

    def ucb(self, exploration: float) -> float:
        return self.total / self.visits + exploration * math.sqrt(
            math.log(self.available) / self.visits
        )


class ISMCTSAgent(SearchAgent):
    """IS-MCTS with a budget of `iterations` (and optionally `max_seconds` of wall time, which
    makes play depend on the machine's speed); the same seed gives the same choices."""

    def __init__(
        self,
        iterations: int = 200,
        exploration: float = 0.7,
        seed: int | None = None,
        max_seconds: float | None = None,
        rollout: Any = None,
        value: str = "reward",
        opponents: Any = None,
        belief: ModelBelief | None = None,
        branch_on: str = "actions",
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1; got {iterations}")
        if value not in VALUES:
            raise ValueError(f"value must be one of {', '.join(map(repr, VALUES))}; got {value!r}")
        if branch_on not in BRANCHES:
            raise ValueError(
                f"branch_on must be one of {', '.join(map(repr, BRANCHES))}; got {branch_on!r}"
            )
        self.branch_on = branch_on
        """What tells a node's branches apart: the seat and its action ("actions"), or also what
        the seat sees when it chooses ("observations")."""
        self.iterations = iterations
        self.exploration = exploration
        self.max_seconds = max_seconds
        self.rollout = rollout
        """An agent (`act(observation, action_mask)`) that plays the rollouts; None: random."""
        self.opponents = opponents
        """An agent that plays every other seat during the search (an opponent model); None: the
        other seats are searched like the searching seat."""
        self.value = value
        """What a seat maximises: "reward", the environment's own rewards (with the default
        `reward="winlose"`, the chance to win), "points", the game's points, or "margin", its
        points less the others' mean."""
        super().__init__(seed, belief)
        self._lowest, self._highest = math.inf, -math.inf
        """The lowest and highest return seen in the current search (for points and margins)."""

    def search(self, host: Any, agent: str, legal: list[int]) -> int:
        root = _Node(agent)
        self._lowest, self._highest = math.inf, -math.inf
        deadline = None if self.max_seconds is None else time.perf_counter() + self.max_seconds
        reward = None if self.value == "reward" else "points"
        for _ in range(self.iterations):
            check_stop()
            world = self._draw_world(host, agent, reward)
            self._iterate(world, root, agent)
            if deadline is not None and time.perf_counter() > deadline:
                break
        tried = {
            a: child.visits for (actor, _, a), child in root.children.items() if actor == agent
        }
        return max(legal, key=lambda a: tried.get(a, -1))

    def _draw_world(self, host: Any, agent: str, reward: str | None) -> Any:
        """A world for one iteration, with chance events of its own: a redraw of what `agent`
        cannot see, or a table of the belief when there is one."""
        seed = self._rng.getrandbits(31)
        if self.belief is None:
            return host.resample_from_infostate(agent, seed, reward=reward)
        return self.belief.world(host, agent, seed, reward=reward)

    def _iterate(self, world: Any, root: _Node, searcher: str) -> None:
        node, path = root, []
        model = self.opponents
        returns: defaultdict[str, float] = defaultdict(float)
        in_tree = True
        while world.agents:
            actor = world.agent_selection
            if world.terminations[actor] or world.truncations[actor]:
                world.step(None)
                continue
            legal = world.legal_actions(actor)
            if model is not None and actor != searcher:
                action = _play(model, world, actor, legal)
            elif in_tree:
                seen = b""
                if self.branch_on == "observations":
                    seen = world.observe(actor)["observation"].tobytes()
                first = None if self.rollout is None else _first(self.rollout, world, actor, legal)
                action, node, in_tree = self._descend(node, actor, seen, legal, first)
                path.append(node)
            elif self.rollout is not None:
                action = _play(self.rollout, world, actor, legal)
            else:
                action = legal[self._rng.randrange(len(legal))]
            world.step(action)
            for other, reward in world.rewards.items():
                returns[other] += reward
        if self.value == "margin":
            returns = _margins(returns, world.possible_agents)
        if returns:
            self._lowest = min(self._lowest, *returns.values())
            self._highest = max(self._highest, *returns.values())
        for visited in path:
            visited.visits += 1
            visited.total += returns[visited.actor]

    def _descend(
        self,
        node: _Node,
        actor: str,
        seen: bytes,
        legal: list[int],
        first: Callable[[], int] | None = None,
    ) -> tuple[int, _Node, bool]:
        """One step down the tree from `actor`'s choice seeing `seen`. Without a rollout player
        (`first` None): an untried action if there is one, else the best by UCB1. With one
        (`first()` names its action): its action while untried; then an untried action only
        where it is more urgent than the best tried one by UCB1, an untried action counting as
        one visit at the mean of those tried ("first-play urgency"), so that a few tries of bad
        moves do not sink the value of a choice whose next moves matter. Returns the action,
        the node reached, and whether the walk stays in the tree."""
        children = node.children
        for action in legal:
            if (actor, seen, action) in children:
                children[actor, seen, action].available += 1
        untried = [action for action in legal if (actor, seen, action) not in children]
        exploration = self.exploration
        if self.value != "reward" and self._highest > self._lowest:
            exploration *= (self._highest - self._lowest) / 2
        if untried and first is not None:
            preferred = first()
            if preferred in untried:
                return self._expand(node, actor, seen, preferred)
            tried = [a for a in legal if (actor, seen, a) in children]
            best = max(tried, key=lambda a: children[actor, seen, a].ucb(exploration))
            visits = sum(children[actor, seen, a].visits for a in tried)
            mean = sum(children[actor, seen, a].total for a in tried) / visits
            urgency = mean + exploration * math.sqrt(math.log(visits))
            if children[actor, seen, best].ucb(exploration) >= urgency:
                return best, children[actor, seen, best], True
        if untried:
            return self._expand(node, actor, seen, untried[self._rng.randrange(len(untried))])
        action = max(legal, key=lambda a: children[actor, seen, a].ucb(exploration))
        return action, children[actor, seen, action], True

    def _expand(self, node: _Node, actor: str, seen: bytes, action: int) -> tuple[int, _Node, bool]:
        """A new node below `node` for `actor` playing `action` seeing `seen`; the walk leaves
        the tree there."""
        child = node.children[actor, seen, action] = _Node(actor)
        child.available = 1
        return action, child, False


def _first(player: Any, world: Any, actor: str, legal: list[int]) -> Callable[[], int]:
    """`player`'s action for `actor` in `world` now, when asked."""
    return lambda: _play(player, world, actor, legal)


def _play(player: Any, world: Any, actor: str, legal: list[int]) -> int:
    """`player`'s action for `actor`, given `actor`'s own observation of `world` (or `world`
    itself, for a planning agent)."""
    if len(legal) == 1:
        return legal[0]
    return choose_action(player, world, actor)


def _margins(gains: dict[str, float], agents: list[str]) -> defaultdict[str, float]:
    """Each seat's points gained less the mean the other seats gained."""
    gained = [gains.get(agent, 0.0) for agent in agents]
    total, others = sum(gained), len(agents) - 1
    return defaultdict(
        float, {a: g - (total - g) / others for a, g in zip(agents, gained, strict=True)}
    )
