"""`python -m snail_envs.agents.serve`: the command `snail-serve`."""

from snail_envs.agents.serve.cli import main

main()
