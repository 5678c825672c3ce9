"""The tree of the compiled search, in arrays, walked by many worlds at once (numba).

Node 0 is the root. A node holds its visits, the sum of the values backed up through it, and
its availability: how many walks found its action legal at its parent (the count UCB1 uses in
place of the parent's visits, since an action is not legal in every world). `children[n, a]` is
the node reached from node n by the seat's action a, −1 until it is tried.
"""

from __future__ import annotations

import math

import numpy as np

from snail_envs.batched.compiling import compiled, entry_point

NONE = -1


class Tree:
    """The arrays of one search's tree, grown as nodes are added."""

    def __init__(self, num_actions: int, capacity: int = 4096) -> None:
        self.children = np.full((capacity, num_actions), NONE, np.int64)
        self.visits = np.zeros(capacity, np.int64)
        self.total = np.zeros(capacity)
        self.available = np.ones(capacity, np.int64)
        self.size = np.ones(1, np.int64)
        """The nodes in use (the root is one)."""

    def make_room(self, nodes: int) -> None:
        """Room for `nodes` more nodes."""
        capacity = self.visits.shape[0]
        if self.size[0] + nodes <= capacity:
            return
        grown = max(2 * capacity, int(self.size[0]) + nodes)
        more = grown - capacity
        self.children = np.concatenate(
            [self.children, np.full((more, self.children.shape[1]), NONE, np.int64)]
        )
        self.visits = np.concatenate([self.visits, np.zeros(more, np.int64)])
        self.total = np.concatenate([self.total, np.zeros(more)])
        self.available = np.concatenate([self.available, np.ones(more, np.int64)])

    def root_visits(self) -> np.ndarray:
        """The visits of each of the root's actions (0 for an action never tried)."""
        tried = self.children[0]
        return np.where(tried >= 0, self.visits[tried], 0)


@entry_point
def descend(
    children,
    visits,
    total,
    available,
    size,
    nodes,
    masks,
    priors,
    walking,
    uniforms,
    exploration,
    actions,
) -> None:
    """One step down the tree for every walking world i, from node `nodes[i]`, among the actions
    `masks[i]` allows. The action goes to `actions[i]`, the node reached to `nodes[i]`, which
    counts the visit at once (of no value until its world is played out), so that the walks of
    one call spread over the tree. A new node ends the walk (`walking[i]` is cleared).

    Without `priors` (no rows): an untried action if there is one, drawn by `uniforms[i]`, else
    the one of the best UCB1 score. With `priors[i]`, a policy's probabilities of the actions in
    this world: the best PUCT score (AlphaZero's), the mean value plus `exploration` times the
    prior times √(visits of the node's actions) / (1 + the action's visits), an untried action's
    mean value counting as 0."""
    for i in range(nodes.shape[0]):
        if not walking[i]:
            continue
        node = nodes[i]
        if priors.shape[0]:
            action = puct_choice(children, visits, total, node, masks[i], priors[i], exploration)
        else:
            action = ucb_choice(
                children, visits, total, available, node, masks[i], uniforms[i], exploration
            )
        child = children[node, action]
        if child == NONE:
            child = size[0]
            size[0] += 1
            children[node, action] = child
            walking[i] = 0
        visits[child] += 1
        actions[i] = action
        nodes[i] = child


@compiled
def ucb_choice(children, visits, total, available, node, mask, uniform, exploration) -> int:
    """An untried legal action, drawn by `uniform`, if there is one; else the best by UCB1
    (availability counts in place of the node's visits). Counts the availability of every
    legal action tried before."""
    untried = 0
    for action in range(mask.shape[0]):
        if mask[action]:
            child = children[node, action]
            if child == NONE:
                untried += 1
            else:
                available[child] += 1
    if untried:
        chosen = int(uniform * untried)
        for action in range(mask.shape[0]):
            if mask[action] and children[node, action] == NONE:
                if chosen == 0:
                    return action
                chosen -= 1
    best, best_score = NONE, -math.inf
    for action in range(mask.shape[0]):
        if mask[action]:
            child = children[node, action]
            score = total[child] / visits[child] + exploration * math.sqrt(
                math.log(available[child]) / visits[child]
            )
            if score > best_score:
                best, best_score = action, score
    return best


@compiled
def puct_choice(children, visits, total, node, mask, prior, exploration) -> int:
    """The legal action of the best PUCT score."""
    tried = 0
    for action in range(mask.shape[0]):
        if mask[action] and children[node, action] != NONE:
            tried += visits[children[node, action]]
    scale = exploration * math.sqrt(max(tried, 1))
    best, best_score = NONE, -math.inf
    for action in range(mask.shape[0]):
        if mask[action]:
            child = children[node, action]
            count = 0 if child == NONE else visits[child]
            mean = 0.0 if count == 0 else total[child] / count
            score = mean + scale * prior[action] / (1 + count)
            if score > best_score:
                best, best_score = action, score
    return best


@entry_point
def back_up(total, paths, depths, values) -> None:
    """Add each world's value to every node of its path."""
    for i in range(paths.shape[0]):
        for step in range(depths[i]):
            total[paths[i, step]] += values[i]
