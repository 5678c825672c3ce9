"""A CleanRL-style single-file PPO with action masks on the batched vec env.

    pip install -e ".[train]"
    python docs/tutorials/cleanrl_ppo.py --total-timesteps 200000

`snail_envs.batched.make_vec_env` plays `num_envs` games at once in compiled kernels, one learner
seat each, the opponents (here: the game's heuristic) played inside the kernels. It is a
Stable-Baselines3 `VecEnv`: `reset()`, `step(actions)` (finished games restart by themselves) and
`action_masks()`. Everything else is on this page: the network, the rollout, GAE, the clipped
update. The first run compiles the kernels (10-30 s), later runs load them from numba's cache.
"""

import argparse
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

import snail_envs.batched

ENV_NAME = "snail_sprint_v0"


@dataclass
class Args:
    total_timesteps: int = 200_000
    num_envs: int = 64
    num_steps: int = 64
    """Steps per game per rollout."""
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    seed: int = 0


class Agent(nn.Module):
    def __init__(self, observation_size: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(observation_size, 128), nn.Tanh(), nn.Linear(128, 1))
        self.actor = nn.Sequential(
            nn.Linear(observation_size, 128), nn.Tanh(), nn.Linear(128, num_actions)
        )

    def value(self, observation: torch.Tensor) -> torch.Tensor:
        return self.critic(observation).squeeze(-1)

    def policy(
        self, observation: torch.Tensor, mask: torch.Tensor
    ) -> torch.distributions.Categorical:
        logits = self.actor(observation).masked_fill(~mask, -1e9)  # illegal actions: never
        return torch.distributions.Categorical(logits=logits)


def train(args: Args) -> list[float]:
    """Train; returns the mean return of the games finished in each rollout."""
    torch.manual_seed(args.seed)
    venv = snail_envs.batched.make_vec_env(ENV_NAME, num_envs=args.num_envs, opponents="heuristic")
    venv.seed(args.seed)
    size, actions_n = venv.observation_space.shape[0], venv.action_space.n
    agent = Agent(size, actions_n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    observations = torch.zeros((*shape, size))
    masks = torch.zeros((*shape, actions_n), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(5))
    observation = torch.as_tensor(venv.reset())
    done = torch.zeros(args.num_envs)
    batch_size = args.num_envs * args.num_steps
    returns_by_rollout = []
    for _ in range(args.total_timesteps // batch_size):
        finished: list[float] = []
        for step in range(args.num_steps):
            mask = torch.as_tensor(venv.action_masks(), dtype=torch.bool)
            observations[step], masks[step], dones[step] = observation, mask, done
            with torch.no_grad():
                distribution = agent.policy(observation, mask)
                action = distribution.sample()
                values[step] = agent.value(observation)
            actions[step], logprobs[step] = action, distribution.log_prob(action)
            next_observation, reward, next_done, _ = venv.step(action.numpy())
            rewards[step] = torch.as_tensor(reward)
            finished += [float(r) for r, d in zip(reward, next_done, strict=True) if d]
            observation = torch.as_tensor(next_observation)
            done = torch.as_tensor(next_done, dtype=torch.float32)
        advantages = gae(args, agent, observation, done, rewards, dones, values)
        update(args, agent, optimizer, observations, masks, actions, logprobs, advantages, values)
        returns_by_rollout.append(float(np.mean(finished)) if finished else float("nan"))
    return returns_by_rollout


def gae(args, agent, observation, done, rewards, dones, values) -> torch.Tensor:
    """Generalised advantage estimates, bootstrapped from the value of the state after the last
    step."""
    with torch.no_grad():
        next_value = agent.value(observation)
    advantages = torch.zeros_like(rewards)
    last = torch.zeros(args.num_envs)
    for t in reversed(range(args.num_steps)):
        not_done = 1.0 - (done if t == args.num_steps - 1 else dones[t + 1])
        following = next_value if t == args.num_steps - 1 else values[t + 1]
        delta = rewards[t] + args.gamma * following * not_done - values[t]
        last = delta + args.gamma * args.gae_lambda * not_done * last
        advantages[t] = last
    return advantages


def update(args, agent, optimizer, observations, masks, actions, logprobs, advantages, values):
    """The clipped PPO update over the rollout, in minibatches."""
    flat = lambda tensor: tensor.reshape(-1, *tensor.shape[2:])  # noqa: E731
    b_obs, b_masks, b_actions, b_logprobs = map(flat, (observations, masks, actions, logprobs))
    b_advantages, b_returns = flat(advantages), flat(advantages + values)
    batch_size = b_obs.shape[0]
    minibatch = batch_size // args.num_minibatches
    for _ in range(args.update_epochs):
        order = torch.randperm(batch_size)
        for start in range(0, batch_size, minibatch):
            index = order[start : start + minibatch]
            distribution = agent.policy(b_obs[index], b_masks[index])
            ratio = (distribution.log_prob(b_actions[index]) - b_logprobs[index]).exp()
            advantage = b_advantages[index]
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            policy_loss = -torch.min(
                ratio * advantage, ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef) * advantage
            ).mean()
            value_loss = 0.5 * ((agent.value(b_obs[index]) - b_returns[index]) ** 2).mean()
            loss = (
                policy_loss
                + args.vf_coef * value_loss
                - args.ent_coef * distribution.entropy().mean()
            )
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--total-timesteps", type=int, default=Args.total_timesteps)
    parser.add_argument("--num-envs", type=int, default=Args.num_envs)
    cli = parser.parse_args()
    returns = train(Args(total_timesteps=cli.total_timesteps, num_envs=cli.num_envs))
    for rollout, mean_return in enumerate(returns, 1):
        print(f"rollout {rollout}: mean return of finished games {mean_return:+.2f}")
    print(f"rollouts: {len(returns)}")
