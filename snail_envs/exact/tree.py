"""A game's whole tree as arrays, built once from the OpenSpiel game, for the exact tools.

Every history of the game is a node: chance nodes with their outcomes' probabilities, decision
nodes keyed by the acting seat's information state, terminal nodes with their returns. A
simultaneous window becomes a chain of decisions, one per seat in the window, each keyed by the
information state at the window, so that no seat sees another's choice of the tick. The exact
tools (`snail_envs.exact.solve`) then sweep the arrays level by level with NumPy instead of walking
the game again.

The tree is built depth first with a node budget (`max_nodes`): a larger tree stops with
`TreeTooLarge`, which names the count reached, before it fills the memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from snail_envs.core.openspiel import SnailGame, SnailState

TERMINAL, CHANCE, DECISION = 0, 1, 2
DEFAULT_MAX_NODES = 3_000_000
"""About 1 GB of arrays and bookkeeping at most; a mini preset stays far below."""


class TreeTooLarge(ValueError):
    """The tree has more nodes than the budget."""


@dataclass
class InfoSet:
    """One information state of one seat: its legal actions, where they sit in the policy
    arrays (`first` is the index of the first), and the seat's view there (for agents)."""

    key: str
    index: int
    seat: int
    actions: list[int]
    first: int
    own_depth: int
    """How many decisions the seat made before it (the same at every node of it)."""
    observation: np.ndarray
    history: list[int]
    """The actions from the start to one node of it (to rebuild that state for planning agents);
    a simultaneous node's joint actions are flattened seat by seat."""


@dataclass
class GameTree:
    """The arrays of one game's tree (nodes in depth-first order: a parent before its
    children)."""

    num_players: int
    kind: np.ndarray
    depth: np.ndarray
    infoset: np.ndarray
    """Each decision node's information set (-1 elsewhere)."""
    parent: np.ndarray
    """Each node's parent (-1 for the root)."""
    edge_probability: np.ndarray
    """For a child of a chance node, the outcome's probability (else 1)."""
    edge_slot: np.ndarray
    """For a child of a decision node, the policy slot of the action leading to it (else -1)."""
    edge_action: np.ndarray
    """The action (for a child of a chance node, the outcome) leading to each node (-1 for the
    root)."""
    returns: np.ndarray
    """Each terminal node's returns, one column a seat."""
    infosets: list[InfoSet] = field(default_factory=list)

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_slots(self) -> int:
        """Policy slots: one per (information state, legal action)."""
        return sum(len(infoset.actions) for infoset in self.infosets)

    def slot_infoset(self) -> np.ndarray:
        """The information set of every policy slot."""
        owner = np.empty(self.num_slots, dtype=np.int64)
        for index, infoset in enumerate(self.infosets):
            owner[infoset.first : infoset.first + len(infoset.actions)] = index
        return owner

    def slot_seat(self) -> np.ndarray:
        return np.array([self.infosets[i].seat for i in self.slot_infoset()], dtype=np.int64)


class _Builder:
    """Walks the game depth first and records each node once."""

    def __init__(self, game: SnailGame, max_nodes: int) -> None:
        self.game = game
        self.max_nodes = max_nodes
        self.kind: list[int] = []
        self.depth: list[int] = []
        self.infoset: list[int] = []
        self.parent: list[int] = []
        self.probability: list[float] = []
        self.slot: list[int] = []
        self.action: list[int] = []
        self.returns: dict[int, list[float]] = {}
        self.infosets: dict[str, InfoSet] = {}
        self.slots = 0

    def add(self, kind: int, parent: int, probability: float, slot: int, action: int) -> int:
        node = len(self.kind)
        if node >= self.max_nodes:
            shrinking = self.game.registration.spec.info.tree_options
            raise TreeTooLarge(
                f"{self.game.registration.short_name}: the game tree has more than "
                f"{self.max_nodes:,} nodes with options {self.game.setup.env_options}; "
                f"shrink it with the options {', '.join(shrinking)}"
            )
        self.kind.append(kind)
        self.depth.append(0 if parent < 0 else self.depth[parent] + 1)
        self.infoset.append(-1)
        self.parent.append(parent)
        self.probability.append(probability)
        self.slot.append(slot)
        self.action.append(action)
        return node

    def infoset_of(
        self, state: SnailState, seat: int, actions: list[int], own_depth: int, history: list[int]
    ) -> InfoSet:
        key = state.information_state_string(seat)
        known = self.infosets.get(key)
        if known is None:
            known = InfoSet(
                key,
                len(self.infosets),
                seat,
                actions,
                self.slots,
                own_depth,
                state.observation_vector(seat),
                history,
            )
            self.infosets[key] = known
            self.slots += len(actions)
        elif known.actions != actions:
            raise RuntimeError(f"information state {key!r} has two sets of legal actions")
        return known


def build_tree(game: SnailGame, max_nodes: int = DEFAULT_MAX_NODES) -> GameTree:
    """The whole tree of `game` (a 2-or-more-player game of `snail_envs.openspiel`)."""
    builder = _Builder(game, max_nodes)
    players = game.num_players()
    stack: list[tuple[SnailState, int, float, int, tuple[int, ...], list[int], list[int]]] = [
        (game.new_initial_state(), -1, 1.0, -1, (0,) * players, [], [])
    ]
    while stack:
        state, parent, probability, slot, own, history, pending = stack.pop()
        node = builder.add(DECISION, parent, probability, slot, history[-1] if history else -1)
        if pending or state.is_simultaneous_node():
            _expand_window(builder, stack, state, node, own, history, pending)
        elif state.is_terminal():
            builder.kind[node] = TERMINAL
            builder.returns[node] = state.returns()
        elif state.is_chance_node():
            builder.kind[node] = CHANCE
            for outcome, chance in reversed(state.chance_outcomes()):
                child = state.child(outcome)
                stack.append((child, node, chance, -1, own, [*history, outcome], []))
        else:
            seat = state.current_player()
            actions = state.legal_actions(seat)
            infoset = builder.infoset_of(state, seat, actions, own[seat], history)
            builder.infoset[node] = infoset.index
            deeper = tuple(count + (index == seat) for index, count in enumerate(own))
            for position, action in reversed(list(enumerate(actions))):
                child = state.child(action)
                stack.append(
                    (child, node, 1.0, infoset.first + position, deeper, [*history, action], [])
                )
    return _arrays(builder, players)


def _expand_window(
    builder: _Builder,
    stack: list,
    state: SnailState,
    node: int,
    own: tuple[int, ...],
    history: list[int],
    chosen: list[int],
) -> None:
    """The next seat of a simultaneous window decides (keyed by its view at the window); once
    every seat has chosen, the joint action is applied."""
    seat = len(chosen)
    actions = state.legal_actions(seat)
    infoset = builder.infoset_of(state, seat, actions, own[seat], history)
    builder.infoset[node] = infoset.index
    deeper = tuple(count + (index == seat) for index, count in enumerate(own))
    last = seat == len(own) - 1
    for position, action in reversed(list(enumerate(actions))):
        slot = infoset.first + position
        if last:
            child = _joint_child(state, [*chosen, action])
            stack.append((child, node, 1.0, slot, deeper, [*history, action], []))
        else:
            stack.append((state, node, 1.0, slot, deeper, [*history, action], [*chosen, action]))


def _joint_child(state: SnailState, actions: list[int]) -> SnailState:
    child = state.clone()
    child.apply_actions(actions)
    return child


def _arrays(builder: _Builder, players: int) -> GameTree:
    returns = np.zeros((len(builder.kind), players))
    for node, values in builder.returns.items():
        returns[node] = values
    return GameTree(
        num_players=players,
        kind=np.array(builder.kind, dtype=np.int8),
        depth=np.array(builder.depth, dtype=np.int64),
        infoset=np.array(builder.infoset, dtype=np.int64),
        parent=np.array(builder.parent, dtype=np.int64),
        edge_probability=np.array(builder.probability),
        edge_slot=np.array(builder.slot, dtype=np.int64),
        edge_action=np.array(builder.action, dtype=np.int64),
        returns=returns,
        infosets=list(builder.infosets.values()),
    )
