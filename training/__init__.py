"""Training and ranking agents: `train` (Stable-Baselines3, on one machine), `rllib_train` (Ray
RLlib, on a cluster), `evaluate` (tournaments and ratings); the commands `snail-train`,
`snail-rllib` and `snail-eval`.

`snail-train` is the command line (`train`), the run it starts (`run`: its folder, its stages in
turn, the final evaluation and the summary) and the stages it goes through (`stages`: imitation,
expert iteration, ppo); beside them the ppo stage's opponents (`opponents`) and callbacks
(`callbacks`), the learning curve (`curve`), the terminal display (`display`) and the summary
for people (`report`)."""
