"""A toy Snap, compiled with numba: the ceiling for a batched card game stepped from Python.

Two seats, one 52-card deck of 13 ranks shared between them as a count each. Every tick the seat
to flip turns the deck's next card onto its pile; then both seats wait or call at once, as in
Snap's reaction window. A call when the two piles' tops match wins both piles (a tie goes to the
lower seat); a call without a match gives the caller's pile to the other seat. A game ends when a
seat's count reaches zero, or after 300 flips, and the slot is dealt again at once.

Each step writes what the engines write: both seats' observations (each seat's top and the
other's as one-hot ranks, pile sizes and counts, whether the tops match: 31 floats) and masks, the
rewards and the episode flags. Its rules are as small as a card game's can be, so its rate is what
this CPU gives a batch of games stepped from Python: the engines' rates are read against it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

RANKS = 13
DECK = 4 * RANKS
MAX_FLIPS = 300
OBSERVATION_SIZE = 2 * RANKS + 5
STATE_FIELDS = 8
"""turn, flips, top of pile 0 and 1, size of pile 0 and 1, count of seat 0 and 1."""


@njit(cache=True)
def next_random(generators: np.ndarray, i: int) -> int:
    """Slot i's next 31-bit number (a 64-bit linear congruential generator)."""
    generators[i] = generators[i] * 6364136223846793005 + 1442695040888963407
    return int(generators[i] >> np.uint64(33))


@njit(cache=True)
def deal(state: np.ndarray, i: int) -> None:
    state[i, 0] = 0
    state[i, 1] = 0
    state[i, 2] = -1
    state[i, 3] = -1
    state[i, 4] = 0
    state[i, 5] = 0
    state[i, 6] = DECK // 2
    state[i, 7] = DECK // 2


@njit(cache=True)
def flip(state: np.ndarray, generators: np.ndarray, i: int) -> None:
    seat = state[i, 0]
    state[i, 2 + seat] = next_random(generators, i) % RANKS
    state[i, 4 + seat] += 1
    state[i, 6 + seat] -= 1
    state[i, 0] = 1 - seat
    state[i, 1] += 1


@njit(cache=True)
def write_views(state: np.ndarray, observations: np.ndarray, masks: np.ndarray, i: int) -> None:
    match = state[i, 2] >= 0 and state[i, 2] == state[i, 3]
    for seat in range(2):
        out = observations[i, seat]
        out[:] = 0.0
        own, other = state[i, 2 + seat], state[i, 3 - seat]
        if own >= 0:
            out[own] = 1.0
        if other >= 0:
            out[RANKS + other] = 1.0
        out[2 * RANKS] = state[i, 4 + seat] / DECK
        out[2 * RANKS + 1] = state[i, 5 - seat] / DECK
        out[2 * RANKS + 2] = state[i, 6 + seat] / DECK
        out[2 * RANKS + 3] = state[i, 7 - seat] / DECK
        out[2 * RANKS + 4] = 1.0 if match else 0.0
        masks[i, seat, 0] = 1
        masks[i, seat, 1] = 1


@njit(cache=True)
def start(state, generators, observations, masks) -> None:
    for i in range(state.shape[0]):
        deal(state, i)
        flip(state, generators, i)
        write_views(state, observations, masks, i)


@njit(cache=True)
def step(state, generators, actions, observations, masks, rewards, terminated, truncated) -> None:
    for i in range(state.shape[0]):
        rewards[i, :] = 0.0
        match = state[i, 2] >= 0 and state[i, 2] == state[i, 3]
        for seat in range(2):
            if actions[i, seat] == 1:
                if match:
                    won = state[i, 4] + state[i, 5]
                    state[i, 6 + seat] += won
                    rewards[i, seat] += won
                    rewards[i, 1 - seat] -= state[i, 5 - seat]
                    state[i, 4] = 0
                    state[i, 5] = 0
                    state[i, 2] = -1
                    state[i, 3] = -1
                    match = False
                else:
                    lost = state[i, 4 + seat]
                    state[i, 7 - seat] += lost
                    rewards[i, seat] -= lost
                    state[i, 4 + seat] = 0
                    state[i, 2 + seat] = -1
        terminated[i] = state[i, 6] <= 0 or state[i, 7] <= 0
        truncated[i] = state[i, 1] >= MAX_FLIPS
        if terminated[i] or truncated[i]:
            deal(state, i)
        flip(state, generators, i)
        write_views(state, observations, masks, i)


@njit(cache=True)
def random_actions(generators, masks, actions) -> None:
    for i in range(masks.shape[0]):
        for seat in range(2):
            actions[i, seat] = next_random(generators, i) & 1


class ToySnap:
    """`num_envs` toy games: `reset`, `random_actions` and `step`, as a batched engine's."""

    def __init__(self, num_envs: int) -> None:
        self.state = np.zeros((num_envs, STATE_FIELDS), np.int64)
        self.generators = np.arange(1, num_envs + 1, dtype=np.uint64)
        self.observations = np.zeros((num_envs, 2, OBSERVATION_SIZE), np.float32)
        self.action_masks = np.zeros((num_envs, 2, 2), np.int8)
        self.rewards = np.zeros((num_envs, 2), np.float32)
        self.terminated = np.zeros(num_envs, np.bool_)
        self.truncated = np.zeros(num_envs, np.bool_)
        self.agent_generators = self.generators + np.uint64(2**40)

    def reset(self) -> None:
        start(self.state, self.generators, self.observations, self.action_masks)

    def random_actions(self) -> np.ndarray:
        actions = np.zeros((self.state.shape[0], 2), np.int64)
        random_actions(self.agent_generators, self.action_masks, actions)
        return actions

    def step(self, actions: np.ndarray) -> None:
        step(
            self.state,
            self.generators,
            actions,
            self.observations,
            self.action_masks,
            self.rewards,
            self.terminated,
            self.truncated,
        )
