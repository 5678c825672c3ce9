"""Each game's environment name, read from its facts (`snail_envs.registry`), so that a version
bump changes no test."""

from snail_envs.registry import FACTS

_BY_TITLE = {game.title: name for name, game in FACTS.items()}
SNAP = _BY_TITLE["Snap"]
SNAILED_IT = _BY_TITLE["Snailed It!"]
SNAIL_SPRINT = _BY_TITLE["Snail Sprint!"]
PEDZACE_SLIMAKI = _BY_TITLE["Pędzące Ślimaki"]
