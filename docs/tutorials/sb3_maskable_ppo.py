"""Stable-Baselines3: MaskablePPO on the single-agent view (one learner seat, opponents inside).

    pip install -e ".[train]"
    python docs/tutorials/sb3_maskable_ppo.py --timesteps 20000

The single-agent view's observation is a flat `Box` and its action mask comes from
`action_masks()`: the policy class that fits is "MlpPolicy" ("MultiInputPolicy" is for `Dict`
observations, and says so).
"""

import argparse

from sb3_contrib import MaskablePPO

import snail_envs

ENV_NAME = "snail_sprint_v0"


def train(timesteps: int, seed: int) -> MaskablePPO:
    venv = snail_envs.make_vec_env(ENV_NAME, 4)  # four games, random opponents played inside
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=seed, verbose=0)
    model.learn(total_timesteps=timesteps)
    print(f"trained {model.num_timesteps} timesteps")
    return model


def score_against_random(model: MaskablePPO, games: int, seed: int) -> float:
    """Play `games` games in one seat against random players; the share won."""
    view = snail_envs.single_agent(ENV_NAME)
    wins = illegal = 0
    for game in range(games):
        observation, info = view.reset(seed=seed + game)
        done = False
        while not done:
            mask = view.action_masks()
            action, _ = model.predict(observation, action_masks=mask, deterministic=True)
            illegal += int(not mask[int(action)])
            observation, reward, terminated, truncated, info = view.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    print(f"illegal actions: {illegal}")
    print(f"won {wins} of {games} games against random players ({100 * wins / games:.0f}%)")
    return wins / games


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    model = train(args.timesteps, seed=0)
    score_against_random(model, args.games, seed=1_000)
    print(f"chance level: {100 / len(snail_envs.make(ENV_NAME).possible_agents):.0f}%")
