"""The bots a page may seat: their specs checked against the server's limits, then made.

A page may type any `make_agent` spec, and a search can be asked for any budget. Before a table
is set, every bot's spec is checked against `BotLimits` (the server's `--max-*` flags): the
number of bots, the iterations, seconds and worlds of a search, the size of a policy loaded by
path (read from its description, before anything is built). A spec over a limit is refused with
one line naming the limit and the flag that sets it.

A policy loaded by path (`ppo:PATH`, `search:...:prior=PATH`) is on the server's disk, which the
page must not learn about: whatever goes wrong with it, the page is told only "no such agent
file" or "not a weights-only policy", never a path the server tried or what a file holds.
`rllib:PATH` policies are not served.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from snail_envs.agents import ismcts_iterations, make_agent, rollout_settings, search_settings
from snail_envs.agents.search import BATCH, ITERATIONS
from snail_envs.apps.seats import PERSON
from snail_envs.apps.serve.settings import BotLimits

NO_FILE = "no such agent file"
NOT_A_POLICY = "not a weights-only policy"
SHIPPED = "ppo"
"""The path word that names the policy shipped with the library (`ppo`, `prior=ppo`)."""


class RefusedBot(ValueError):
    """A bot spec the server will not play, and why (a line the page is shown)."""


def check_bots(specs: Sequence[str], limits: BotLimits) -> None:
    """A `RefusedBot` naming the first bot of `specs` (the seats; the person's is `PERSON`)
    that is over a limit, or a policy path that is no policy (see the module docstring)."""
    bots = [spec for spec in specs if spec != PERSON]
    if len(bots) > limits.bots:
        raise RefusedBot(
            f"{len(bots)} bots at one table; this server seats at most {limits.bots} (--max-bots)"
        )
    for spec in bots:
        check_bot(spec, limits)


def check_bot(spec: str, limits: BotLimits) -> None:
    """A `RefusedBot` if `spec` asks more than `limits` allow (see `check_bots`)."""
    name, _, argument = spec.partition(":")
    shown = spec if len(spec) <= 60 else spec[:57] + "..."
    try:
        if name == "ismcts":
            asked = ismcts_iterations(spec, argument)
            _at_most(
                shown, "iterations a move", asked, limits.ismcts_iterations, "ismcts-iterations"
            )
        elif name == "search":
            settings = search_settings(spec, argument)
            for what, asked in (
                ("iterations a move", settings.get("iterations", ITERATIONS)),
                ("worlds at once (batch)", settings.get("batch", BATCH)),
            ):
                _at_most(shown, what, asked, limits.search_iterations, "search-iterations")
            seconds = settings.get("seconds", 0.0)
            _at_most(shown, "seconds a move", seconds, limits.search_seconds, "search-seconds")
            if settings.get("prior", SHIPPED) != SHIPPED:
                check_policy_file(settings["prior"], limits)
        elif name == "rollout":
            asked = rollout_settings(spec, argument)["worlds"]
            _at_most(shown, "worlds a move", asked, limits.rollout_worlds, "rollout-worlds")
        elif name == "ppo" and argument:
            check_policy_file(argument, limits)
        elif name == "rllib":
            raise RefusedBot(f"{shown}: rllib policies are not served; agents: ppo, search, ...")
    except RefusedBot:
        raise
    except ValueError as problem:
        raise RefusedBot(str(problem)) from None


def _at_most(spec: str, what: str, asked: float, limit: float, flag: str) -> None:
    if asked > limit:
        raise RefusedBot(
            f"{spec}: this server's bots search at most {limit:g} {what}; asked {asked:g} "
            f"(snail-serve --max-{flag})"
        )


def check_policy_file(path: str, limits: BotLimits) -> None:
    """A `RefusedBot` unless `path` leads to a weights-only PPO policy of at most
    `limits.network_parameters` weights, read from its description alone."""
    from snail_envs.agents.ppo import POLICY_FILE, architecture
    from snail_envs.agents.weights import MAX_DESCRIPTION_BYTES, description_path, find_weights

    try:
        described = description_path(find_weights(path, POLICY_FILE))
    except (OSError, ValueError):
        raise RefusedBot(NO_FILE) from None
    try:
        if described.stat().st_size > MAX_DESCRIPTION_BYTES:
            raise ValueError("too large")
        size = architecture(json.loads(described.read_text(encoding="utf-8"))).parameters()
    except (OSError, ValueError, TypeError, AttributeError, RecursionError):
        raise RefusedBot(NOT_A_POLICY) from None
    if size > limits.network_parameters:
        raise RefusedBot(
            f"that policy has {size:,} weights; this server loads at most "
            f"{limits.network_parameters:,} (snail-serve --max-network-parameters)"
        )


def make_bot(spec: str, env_name: str, seed: int, options: Mapping[str, Any]) -> Any:
    """The bot of `spec` (checked by `check_bots`), for a table of `env_name`; a policy file
    that cannot be loaded is a `RefusedBot` that names no path."""
    name, _, argument = spec.partition(":")
    by_path = (name == "ppo" and argument) or (name == "search" and "prior=" in argument)
    try:
        return make_agent(spec, env_name, seed=seed, options=options)
    except (OSError, ValueError) as problem:
        if not by_path:
            raise
        reason = NO_FILE if isinstance(problem, FileNotFoundError) else NOT_A_POLICY
        raise RefusedBot(f"{reason} (for {env_name})") from None
