"""Training and ranking agents: `train` (Stable-Baselines3, on one machine), `rllib_train` (Ray
RLlib, on a cluster), `evaluate` (tournaments and ratings); the commands `snail-train`,
`snail-rllib` and `snail-eval`."""
