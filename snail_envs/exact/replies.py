"""The exact expected return of any reply against a tabulated target, planning replies included.

An agent that acts on its observation is tabulated (`snail_envs.exact.tabulate`) and scored by a
sweep of the tree. A reply that plans on a live table (a search, whose belief follows the
target's actions through the game) cannot be asked on an observation. It is asked instead at each
of its information states that the game reaches, seat by seat: the tree's nodes are visited in
depth-first order, each with the chance of reaching it (chance, the target's policy, and the
reply's choices above it), and the first reachable node of an information state of the reply's
seat asks the reply there. The reply is asked on a fresh environment played from the start to
that node, with that node's chance outcomes (`ChanceNodes`) and every action told to the reply
as a game tells it (`watch`, before the action is played), so the reply is in the state it would
be in if the game had been played so far. Information states the reply's play never reaches are
never asked. The reply's expected return is then swept exactly: no games are sampled, only the
reply's own randomness (a search's) is left.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from snail_envs.agents.base import choose_action
from snail_envs.core.chance import ChanceNodes
from snail_envs.core.openspiel import SnailGame
from snail_envs.exact.solve import expected_returns
from snail_envs.exact.tree import CHANCE, DECISION, GameTree


def reply_policy(
    tree: GameTree, game: SnailGame, reply: Any, target: np.ndarray, seat: int, seed: int = 0
) -> tuple[np.ndarray, int]:
    """`target` with `seat`'s information states the game reaches played as `reply` chooses
    there (asked as the module docstring says, reset with `seed` and the information state's
    index before each question), and how many information states were asked."""
    policy = target.copy()
    asked = np.zeros(len(tree.infosets), dtype=bool)
    reach = np.zeros(tree.num_nodes)
    reach[0] = 1.0
    for node in range(1, tree.num_nodes):
        parent = int(tree.parent[node])
        if reach[parent] == 0.0:
            continue
        if tree.kind[parent] == CHANCE:
            reach[node] = reach[parent] * tree.edge_probability[node]
            continue
        info = tree.infosets[int(tree.infoset[parent])]
        if info.seat == seat and len(info.actions) > 1 and not asked[info.index]:
            action = ask(tree, game, reply, parent, seed * 1_000_003 + info.index)
            policy[info.first : info.first + len(info.actions)] = 0.0
            policy[info.first + info.actions.index(action)] = 1.0
            asked[info.index] = True
        reach[node] = reach[parent] * policy[int(tree.edge_slot[node])]
    return policy, int(asked.sum())


def reply_return(
    tree: GameTree, game: SnailGame, reply: Any, target: np.ndarray, seed: int = 0
) -> tuple[float, int]:
    """`reply`'s exact expected return against `target` (a tabulated policy) in a two-player
    game, seats rotating, and how many information states it was asked at."""
    if tree.num_players != 2:
        raise ValueError(f"the exact tools take two-player games; this one has {tree.num_players}")
    values, asked = [], 0
    for seat in range(2):
        policy, count = reply_policy(tree, game, reply, target, seat, seed)
        values.append(float(expected_returns(tree, policy)[seat]))
        asked += count
    return sum(values) / 2, asked


def path(tree: GameTree, node: int) -> list[int]:
    """The nodes from the root to `node`, both included."""
    nodes = [node]
    while tree.parent[nodes[-1]] >= 0:
        nodes.append(int(tree.parent[nodes[-1]]))
    return nodes[::-1]


def ask(tree: GameTree, game: SnailGame, reply: Any, node: int, seed: int) -> int:
    """`reply`'s action at decision `node`, on an environment played from the start to it."""
    import snail_envs

    nodes = path(tree, node)
    steps = list(pairwise(nodes))
    chance = [
        int(tree.edge_action[child]) for parent, child in steps if tree.kind[parent] == CHANCE
    ]
    env = snail_envs.make(game.registration.spec.info.env_name, **game.setup.env_options)
    env.unwrapped.use_chance(ChanceNodes(chance))
    env.reset()
    if hasattr(reply, "reset"):
        reply.reset(seed)
    seat = tree.infosets[int(tree.infoset[node])].seat
    own = env.possible_agents[seat]
    for parent, child in steps:
        if tree.kind[parent] != DECISION:
            continue
        actor = env.possible_agents[tree.infosets[int(tree.infoset[parent])].seat]
        action = int(tree.edge_action[child])
        if action == game.setup.not_acting:
            continue
        if env.agent_selection != actor:
            raise RuntimeError(
                f"replaying node {node}: {actor} acts in the tree, "
                f"{env.agent_selection} in the environment"
            )
        if hasattr(reply, "watch"):
            reply.watch(env, own, actor, action)
        env.step(action)
    info = tree.infosets[int(tree.infoset[node])]
    if env.agent_selection != own or not np.array_equal(
        env.observe(own)["observation"], info.observation
    ):
        raise RuntimeError(f"replaying node {node} did not reach {own}'s information state")
    action = choose_action(reply, env, own)
    if action not in info.actions:
        raise ValueError(
            f"{type(reply).__name__} chose action {action}, illegal here; legal: {info.actions}"
        )
    return action
