"""Adding a game: the generic checks every game passes, run here on the games of the registry.

    python docs/tutorials/adding_a_game.py

A new game adds a folder, a module and one line of `snail_envs.registry` (see "Adding a game
(reference)"); these checks, from `snail_envs.core.testing`, then hold it to the API: random play
with legal masks and bounded rewards, and PettingZoo's own API, seed and render tests. The
library's tests run more of them on every game (`check_determinism` across processes,
`check_no_leak`, `check_copy_continuation`: `tests/<game>/test_env.py`).
"""

import contextlib
import functools
import importlib
import io

from snail_envs.core.testing import check_pettingzoo_conformance, check_random_play
from snail_envs.registry import GAMES

if __name__ == "__main__":
    for game in GAMES:
        module = importlib.import_module(f"snail_envs.{game.env_name}")
        players = game.min_players
        check_random_play(functools.partial(module.env, num_players=players), games=3, seed=0)
        with contextlib.redirect_stdout(io.StringIO()):  # PettingZoo's render test prints
            check_pettingzoo_conformance(module, num_players=game.min_players)
        print(f"{game.env_name}: random play and PettingZoo's tests passed")
    print(f"games checked: {len(GAMES)}")
