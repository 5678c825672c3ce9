"""The names the apps give the seats: "You" for the person, the agent's name for a bot."""

from __future__ import annotations

from snail_envs.apps.seats import seat_names
from snail_envs.apps.video import caption
from snail_envs.core.picture import with_names


def test_the_person_is_you_and_a_bot_is_named_by_its_agent() -> None:
    assert seat_names(["heuristic", "human", "ppo:runs/a/policy.pt"]) == ["heuristic", "You", "ppo"]
    assert seat_names(["ismcts:500:heuristic", "random"]) == ["ismcts", "random"]


def test_seats_of_one_agent_are_numbered_and_so_are_several_people() -> None:
    assert seat_names(["heuristic", "random", "heuristic"]) == [
        "heuristic 1",
        "random",
        "heuristic 2",
    ]
    assert seat_names(["human", "human", "ppo"]) == ["human 1", "human 2", "ppo"]


def test_agent_ids_in_a_line_become_names() -> None:
    names = seat_names(["human", "heuristic"])
    assert with_names("player_1 snap (right), player_0 wait", names) == (
        "heuristic snap (right), You wait"
    )
    assert with_names("player_12 stays: no such seat", names) == "player_12 stays: no such seat"


def test_a_videos_caption_names_each_seat_beside_its_agent_id() -> None:
    agents = {"player_0": "human", "player_1": "heuristic", "player_2": "heuristic"}
    assert caption(agents) == "You: player_0  ·  heuristic 1: player_1  ·  heuristic 2: player_2"
