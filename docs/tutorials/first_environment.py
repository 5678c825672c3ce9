"""Your first environment: one game through the AEC API and the parallel API, with masks and seeds.

python docs/tutorials/first_environment.py
"""

import numpy as np

import snail_envs

ENV_NAME = "snail_sprint_v0"


def play_aec(seed: int) -> list[tuple[str, int]]:
    """One game through the AEC API, every seat taking its first legal action; the moves made."""
    env = snail_envs.make(ENV_NAME, num_players=3)
    env.reset(seed=seed)
    moves, returns = [], {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            returns[agent] = reward  # the seat's reward at the end: +1 won, -1 lost
            action = None  # a finished seat steps with None
        else:
            legal = np.flatnonzero(observation["action_mask"])  # the mask: 1 = legal
            action = int(legal[0])
            moves.append((agent, action))
        env.step(action)
    print(f"AEC: {len(moves)} decisions, returns {returns}")
    return moves


def play_parallel(seed: int) -> int:
    """The same game through the parallel API: one step is one tick of the seats that act now
    (a seat that does not act has an all-zero mask, and its action is ignored)."""
    par = snail_envs.make_parallel(ENV_NAME, num_players=3)
    observations, infos = par.reset(seed=seed)
    ticks = 0
    while par.agents:
        actions = {
            agent: int(np.flatnonzero(obs["action_mask"])[0]) if obs["action_mask"].any() else 0
            for agent, obs in observations.items()
        }
        observations, rewards, terminations, truncations, infos = par.step(actions)
        ticks += 1
    print(f"parallel: {ticks} ticks")
    return ticks


if __name__ == "__main__":
    env = snail_envs.make(ENV_NAME, num_players=3)
    print("observation space:", env.observation_space("player_0"))
    print("action space:", env.action_space("player_0"))
    first = play_aec(seed=42)
    again = play_aec(seed=42)  # same seed, same actions: the same game, in any process
    print(f"same seed, same game: {first == again}")
    ticks = play_parallel(seed=42)
    print(f"one decision a tick in a turn-based game: {ticks == len(first)}")
