"""A person's page is sent what their seat may see, and nothing else.

Every frame a page gets is built by `Table.frame` (its table part by `seat_frame`): the games are
played here through the same `Table` the server drives, the person's seat deciding at random.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from snail_envs.apps.seats import PERSON
from snail_envs.apps.serve.catalog import parse_options
from snail_envs.apps.serve.table import Seating, Table, seat_frame
from snail_envs.snailed_it.rules import card_name
from tests.apps.web.pages import QUICK_GAMES
from tests.names import SNAP

TABLES = [
    ("snailed_it_v0", {"num_players": 3}),
    ("snail_sprint_v0", {"num_players": 3}),
    ("pedzace_slimaki_v0", {"num_players": 3}),
    (SNAP, {**parse_options(QUICK_GAMES[SNAP]), "num_players": 2}),
    (SNAP, {"num_players": 3, "glimpse_error": [0.6, 0.3, 0.0], "same_tick": "random"}),
]
"""The games, Snap also with noisy sight (each seat glimpses the card flipped last its own way)."""


def played(env_name: str, options: dict[str, Any], seed: int, ticks: int) -> Iterator[Table]:
    """The table before each tick of a game with the person in seat 1, deciding at random,
    until the game ends or for `ticks` ticks."""
    seats = ("heuristic", PERSON, *["random"] * (options["num_players"] - 2))
    table = Table(Seating(env_name, options, seats, seed))
    rng = random.Random(seed)
    for _ in range(ticks):
        yield table
        agents = table.tick_agents()
        if not agents:
            return
        if table.realtime:
            table.play_realtime_tick(rng.choice([None, None, None, 1]))
            continue
        for agent in agents:
            if agent == table.person:
                table.play(agent, rng.choice(table.legal_actions(agent)))
            else:
                table.play(agent, table.bot_action(agent))
        table.settle()


def sent_to_the_page(table: Table) -> list[Any]:
    """Every message the page of `table` may receive about the game now (but the log, which
    tells what happened): the opening `table` message, the frame's table, and the error an
    illegal move of the person's gets."""
    messages: list[Any] = [table.opening(150)]
    messages.append(seat_frame(table.env, table.person, table.who, table.realtime))
    if table.person is not None and table.person in table.env.agents:
        try:
            table.check(table.person, 10**6)
        except ValueError as refused:
            messages.append(str(refused))
    return messages


def redrawn(table: Table, seed: int) -> Table:
    """`table` with everything hidden from its person redrawn."""
    twin = copy.copy(table)
    twin.env = table.env.unwrapped.resample_from_infostate(table.person, seed)
    return twin


@pytest.mark.parametrize(("env_name", "options"), TABLES, ids=lambda value: str(value)[:24])
def test_redrawing_what_the_seat_cannot_see_leaves_every_message_unchanged(
    env_name: str, options: dict[str, Any]
) -> None:
    redrawn_somewhere = False
    for table in played(env_name, options, seed=3, ticks=30):
        if table.over:  # the end shows every card (the scoring): nothing is hidden then
            break
        shown = sent_to_the_page(table)
        for seed in range(2):
            twin = redrawn(table, seed)
            assert sent_to_the_page(twin) == shown
            redrawn_somewhere |= not (twin.env.state() == table.env.unwrapped.state()).all()
    assert redrawn_somewhere  # the hidden information was redrawn: the test could fail


@pytest.mark.parametrize(("env_name", "options"), TABLES[:3], ids=lambda value: str(value)[:24])
def test_no_frame_names_what_another_seat_holds(env_name: str, options: dict[str, Any]) -> None:
    """Another seat's race card or snail card is never in a frame; in Snailed It! no frame
    names a card in another seat's hand (each card exists once: a card named on the table or
    in the log is not in a hand)."""
    for table in played(env_name, options, seed=5, ticks=60):
        sent = json.dumps(table.frame(), ensure_ascii=False)
        host = table.env.unwrapped
        mine = host.private_text(table.person)
        for agent in table.env.possible_agents:
            secret = host.private_text(agent)
            if agent != table.person and secret != mine:
                assert not re.search(rf"\b{re.escape(secret.partition(': ')[2])}\b", sent)
        if env_name == "snailed_it_v0":
            for seat, hand in enumerate(host.game.hands):
                if table.env.possible_agents[seat] != table.person:
                    for card in hand:
                        named = rf"\b{card_name(card)}\b(?!–)"  # "pink 13–16" is a gap
                        assert not re.search(named, sent), card_name(card)
