"""Agents that play the games of snail_envs: random, heuristic, searches, trained policies, you.

    from snail_envs.agents import make_agent
    bot = make_agent("heuristic", "snail_sprint_v0")
    action = bot.act(observation["observation"], observation["action_mask"])

`make_agent` understands: `random`, `heuristic`, `search` (the compiled IS-MCTS of
`snail_envs.agents.search`, with the `batched` extra: `search:4096` iterations a move,
`search:0.5s` a time a move, then `:name=value` settings such as `:value=points` or
`:prior=ppo`; see `search_settings`), `ismcts` (the Python IS-MCTS, or `ismcts:ITERATIONS`, followed
by `:heuristic` for rollouts played by the game's heuristic, `:model` to play the other seats in
the search as the heuristic would (an opponent model), and `:points` to search for the most game
points rather than the win, or `:margin` for the biggest lead in points over the others), `rollout`
(or `rollout:WORLDS`: the game's heuristic, leaving its own choice only where paired rollouts of the
heuristic, compiled, in that many worlds drawn from the seat's view show a significantly better one,
by the margin, or with `:win` by the win (`rollout:128:win`); Snailed It! and Pędzące Ślimaki,
with the `batched` extra), `human`,
`ppo` (the baseline shipped for the game) and `ppo:PATH` (a run or checkpoint folder of
`snail-train`, or its `policy.pt`; these need the `train` extra), and `rllib:PATH` (a run or
checkpoint folder of `snail-rllib`, or its `policy.pt`; needs torch, not Ray), and `cfr:PATH` (a
tabular policy file of `snail-exact --solve`, for the rule options it was solved for).

Every agent is made for one table: `make_agent(kind, env_name, seed, options)` names the
environment and the options it was made with, so that no agent guesses the rules from what it
sees. A heuristic is built for the rule options (`for_rules`), heuristic rollouts and opponent
models inside a search alike; search agents plan in the environment they are handed, whose rules
are the table's; a trained policy must have been trained on `env_name`.

Trained policies load weights only: a file never runs code, whoever made it
(`snail_envs.agents.weights`). A Stable-Baselines3 archive, which is a pickle, loads only with
`trusted=True` (see `snail_envs.agents.ppo`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snail_envs.agents.base import Agent, PlanningAgent, RandomAgent, choose_action
from snail_envs.agents.heuristics import HEURISTICS
from snail_envs.agents.human import HumanAgent
from snail_envs.agents.ismcts import ISMCTSAgent
from snail_envs.agents.rollout_search import VALUES as ROLLOUT_VALUES
from snail_envs.agents.rollout_search import WORLDS as ROLLOUT_WORLDS
from snail_envs.agents.rollout_search import RolloutSearchAgent
from snail_envs.agents.search import CompiledSearchAgent, policy_prior

__all__ = [
    "HEURISTICS",
    "Agent",
    "CompiledSearchAgent",
    "HumanAgent",
    "ISMCTSAgent",
    "PlanningAgent",
    "RandomAgent",
    "RolloutSearchAgent",
    "choose_action",
    "make_agent",
]

AGENT_KINDS: dict[str, str] = {
    "random": "a legal move at random",
    "heuristic": "the game's hand-written player (its strategy is in its docstring)",
    "search": "IS-MCTS compiled in the batched engines: search:4096 iterations or search:0.5s a "
    "move",
    "ismcts": "IS-MCTS in Python: ismcts:ITERATIONS, then :heuristic, :model, :points or :margin",
    "rollout": "the heuristic, overruled where paired rollouts show a better move (games with a "
    "searchable engine)",
    "human": "a person: the table as their seat sees it, their moves by name",
    "ppo": "the policy trained and shipped for the game; ppo:PATH, a policy of snail-train",
    "rllib": "a policy trained by snail-rllib: rllib:PATH",
    "cfr": "a tabular policy solved by snail-exact --solve: cfr:PATH",
}
"""Each kind of agent `make_agent` makes, with its description in a line (`snail-serve`'s
page shows it beside each seat)."""
ISMCTS_CHOICES = ("heuristic", "model", "points", "margin")
"""What may follow `ismcts:ITERATIONS`: heuristic rollouts, the heuristic as the opponent model,
and game points or the lead in points as the value (one of the two)."""


HOST_OPTIONS = ("reward", "illegal_action", "render_mode")
"""Environment options that are not rules of the game (agents need not know them)."""


def rule_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The rule options among an environment's keywords: all but `HOST_OPTIONS`."""
    return {key: value for key, value in options.items() if key not in HOST_OPTIONS}


def make_agent(
    kind: str,
    env_name: str,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    trusted: bool = False,
) -> Any:
    """An agent of `kind` for a table of environment `env_name` made with these `options` (the
    environment's keywords; its rule options, all but `HOST_OPTIONS`, are what a heuristic is
    built for). `trusted`: `ppo:PATH` may also be a Stable-Baselines3 archive, whose loading
    runs any code pickled in it."""
    rules = rule_options(options or {})
    name, _, argument = kind.partition(":")
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        if env_name not in HEURISTICS:
            raise ValueError(
                f"no heuristic agent for {env_name!r}; heuristics exist for {sorted(HEURISTICS)}"
            )
        heuristic = HEURISTICS[env_name]
        return heuristic.for_rules(rules)
    if name == "search":
        settings = search_settings(kind, argument)
        if "prior" in settings:
            path = settings["prior"]
            trained = load(
                "ppo",
                env_name,
                path=None if path == "ppo" else path,
                trusted=trusted,
                rules=rules,
            )
            settings["prior"] = policy_prior(getattr(trained.model, "policy", trained.model))
        return CompiledSearchAgent(env_name, seed=seed, **settings)
    if name == "ismcts":
        iterations = ismcts_iterations(kind, argument)
        choices = argument.split(":")[1:]
        values = [choice for choice in choices if choice in ("points", "margin")]
        if not set(choices) <= set(ISMCTS_CHOICES) or len(set(choices)) < len(choices):
            raise ValueError(
                f"ismcts:ITERATIONS may be followed by {', '.join(ISMCTS_CHOICES)}, each once "
                f"(ismcts:500:heuristic:model); got {kind!r}"
            )
        if len(values) > 1:
            raise ValueError(
                f"ismcts searches for points or for the margin, not both; got {kind!r}"
            )
        return ISMCTSAgent(
            iterations=iterations,
            seed=seed,
            rollout=make_agent("heuristic", env_name, options=rules)
            if "heuristic" in choices
            else None,
            value=values[0] if values else "reward",
            opponents=make_agent("heuristic", env_name, options=rules)
            if "model" in choices
            else None,
        )
    if name == "rollout":
        return RolloutSearchAgent(env_name, **rollout_settings(kind, argument), seed=seed)
    if name == "human":
        if env_name not in HEURISTICS:
            return HumanAgent()
        return HumanAgent(lookout=make_agent("heuristic", env_name, options=rules))
    if name == "ppo":
        return load("ppo", env_name, path=argument or None, seed=seed, trusted=trusted, rules=rules)
    if name == "rllib":
        if not argument:
            raise ValueError(f"rllib agents name their policy: rllib:PATH; got {kind!r}")
        from snail_envs.agents.rllib_policy import RLlibAgent

        return RLlibAgent.load(argument, env_name, seed=seed)
    if name == "cfr":
        if not argument:
            raise ValueError(f"cfr agents name their policy file: cfr:PATH; got {kind!r}")
        from snail_envs.agents.cfr import TabularPolicyAgent

        return TabularPolicyAgent.load(argument, env_name, rules, seed=seed)
    raise ValueError(f"unknown agent {kind!r}; agents: {', '.join(AGENT_KINDS)}")


ISMCTS_ITERATIONS = 200
"""The iterations of `ismcts` a move when its spec gives none."""


def ismcts_iterations(kind: str, argument: str) -> int:
    """The iterations a move an `ismcts` spec asks for (`ismcts:500:heuristic` → 500)."""
    iterations = argument.split(":")[0]
    if not iterations:
        return ISMCTS_ITERATIONS
    if not iterations.isdigit() or len(iterations) > 12:
        raise ValueError(f"ismcts takes a number of iterations (ismcts:500); got {kind[:80]!r}")
    return int(iterations)


def rollout_settings(kind: str, argument: str) -> dict[str, Any]:
    """The keywords of `RolloutSearchAgent` a `rollout` spec asks for: the worlds a move, then
    what a rollout is valued by (`rollout:32` → 32 worlds; `rollout:32:win`, `rollout:win`)."""
    worlds, _, value = argument.partition(":")
    if worlds in ROLLOUT_VALUES and not value:
        worlds, value = "", worlds
    bad_worlds = bool(worlds) and (not worlds.isdigit() or len(worlds) > 12)
    if bad_worlds or value not in ("", *ROLLOUT_VALUES):
        raise ValueError(
            f"rollout takes a number of worlds, then {' or '.join(ROLLOUT_VALUES)} "
            f"(rollout:32, rollout:32:win); got {kind[:80]!r}"
        )
    return {"worlds": int(worlds) if worlds else ROLLOUT_WORLDS, "value": value or "margin"}


SEARCH_SETTINGS = {
    "batch": int,
    "exploration": float,
    "value": str,
    "rollout": str,
    "opponents": str,
    "horizon": str,
    "depth": int,
    "prior": str,
}
"""The settings a `search` spec may give as `name=value`, and their types (`prior`: `ppo`, the
shipped baseline, or the path of a trained policy, whose probabilities guide the search)."""


def search_settings(kind: str, argument: str) -> dict[str, Any]:
    """The keywords of `CompiledSearchAgent` a spec gives: `search:ITERATIONS` or
    `search:SECONDSs` (a time a move, such as `search:0.5s`), then `:name=value` settings
    (`SEARCH_SETTINGS`), as in `search:4096:value=points:rollout=random`."""
    settings: dict[str, Any] = {}
    for part in argument.split(":") if argument else []:
        name, equals, text = part.partition("=")
        if equals and name not in SEARCH_SETTINGS:
            raise ValueError(
                f"unknown search setting {name!r} in {kind!r}; settings: "
                f"{', '.join(SEARCH_SETTINGS)} (search:4096:value=points)"
            )
        try:
            if equals:
                settings[name] = SEARCH_SETTINGS[name](text)
            elif part.endswith("s"):
                settings["seconds"] = float(part[:-1])
            else:
                settings["iterations"] = int(part)
        except ValueError:
            raise ValueError(
                f"search takes a number of iterations (search:4096), a time a move "
                f"(search:0.5s) and name=value settings ({', '.join(SEARCH_SETTINGS)}); "
                f"got {part!r} in {kind!r}"
            ) from None
    return settings


def load(
    kind: str,
    env_name: str,
    path: str | None = None,
    seed: int | None = None,
    trusted: bool = False,
    rules: Mapping[str, Any] | None = None,
) -> Any:
    """A trained agent: `load("ppo", "snap_v2")` is the baseline shipped for Snap (with the
    game's `rules`, the one shipped for those rules where there is one, such as noisy-sight
    Snap's); `path` loads another policy trained on `env_name` (`trusted`: see
    `snail_envs.agents.ppo.PPOAgent.load`)."""
    if kind != "ppo":
        raise ValueError(f"trained agents are of kind 'ppo'; got {kind!r}")
    from snail_envs.agents.ppo import CHECKPOINTS, PPOAgent, shipped_checkpoint

    if path is not None:
        return PPOAgent.load(path, env_name, seed=seed, trusted=trusted)
    shipped = shipped_checkpoint(env_name, rules)
    if not shipped.is_file():
        baselines = sorted(file.stem for file in CHECKPOINTS.glob("*.pt"))
        raise ValueError(
            f"no baseline is shipped for {env_name}; baselines: {', '.join(baselines)} "
            "(ppo:PATH loads a policy of yours)"
        )
    return PPOAgent.load(shipped, env_name, seed=seed, trusted=trusted)
