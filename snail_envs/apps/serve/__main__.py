"""`python -m snail_envs.apps.serve`: the command `snail-serve`."""

from snail_envs.apps.serve.cli import main

main()
