"""No wrong call is free (since `snap_v2`): in random and heuristic play, under every variant,
every wrong call by a seat that holds a card costs that seat cards."""

from __future__ import annotations

from typing import Any

import pytest

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.snap.rules import CALLS
from tests.names import SNAP as SNAP_ENV

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"num_players": 4, "ruleset": "snap_pot"},
    {"num_players": 3, "single_pile": True, "slapjack": True},
    {"num_players": 3, "double": True, "slapjack": True},
    {"num_players": 3, "speed": True, "ruleset": "snap_pot"},
    {"glimpse_error": (0.6, 0.3, 0.0), "same_tick": "random", "refresh": "shuffle"},
    {"num_players": 3, "session": "best_of_3", "match_key": "picture", "pictures": 6},
]


def wrong_calls_checked(options: dict[str, Any], kinds: list[str], ticks: int) -> int:
    """Play `ticks` ticks with seats of these kinds (one a seat, seats rotating each game) and
    check every wrong call made by a seat holding a card; returns how many were checked."""
    env = snail_envs.make_parallel(SNAP_ENV, max_flips=300, **options)
    n = len(env.possible_agents)
    checked = game_number = 0
    while ticks > 0:
        observations, _ = env.reset(seed=game_number)
        players = [
            make_agent(kinds[(seat + game_number) % n], SNAP_ENV, seed=seat, options=options)
            for seat in range(n)
        ]
        game_number += 1
        while env.agents and ticks > 0:
            game = env.unwrapped.game
            held = [game.held(seat) for seat in range(n)]
            right, played = game.right_calls(), game.games_played
            actions = {
                agent: players[env.possible_agents.index(agent)].act(
                    observations[agent]["observation"], observations[agent]["action_mask"]
                )
                for agent in env.agents
            }
            observations, *_ = env.step(actions)
            ticks -= 1
            if game.games_played != played:  # a new deal changed every seat's cards
                continue
            for agent, action in actions.items():
                seat = env.possible_agents.index(agent)
                if action in CALLS and action not in right and held[seat]:
                    checked += 1
                    assert game.held(seat) < held[seat], (
                        f"{agent}'s wrong call ({action}) with {held[seat]} cards cost nothing"
                    )
    return checked


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda options: str(options) or "defaults")
def test_every_wrong_call_by_a_seat_holding_a_card_costs_it_cards(options: dict) -> None:
    n = options.get("num_players", 2)
    random_play = wrong_calls_checked(options, ["random"] * n, ticks=3_000)
    mixed_play = wrong_calls_checked(options, ["heuristic", *["random"] * (n - 1)], ticks=2_000)
    assert random_play > 100 and mixed_play > 50


def test_heuristic_play_under_noisy_sight_calls_wrongly_and_pays() -> None:
    """The heuristic calls on a glimpse, so under noisy sight it makes wrong calls too."""
    options = {"glimpse_error": (0.6, 0.3, 0.0), "same_tick": "random", "refresh": "shuffle"}
    assert wrong_calls_checked(options, ["heuristic", "heuristic"], ticks=5_000) > 20
