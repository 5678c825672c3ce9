"""Terminal play: numbered choices, forced moves, help, quit, Ctrl-C, --quiet and narration."""

from __future__ import annotations

import io

import pytest

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.apps.narration import Narrator
from snail_envs.apps.play import main as play_main
from snail_envs.apps.play import play_game
from snail_envs.core.host import GameHost
from tests.names import SNAP


def type_in(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    """What the person at the terminal types, one line an answer."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))


def test_choices_are_numbered_and_a_number_takes_one(monkeypatch, capsys) -> None:
    type_in(monkeypatch, "2", "quit")
    play_game("snail_sprint_v0", ["human", "random"], seed=0)
    out = capsys.readouterr().out
    assert "  1. move the" in out and "  2. move the" in out
    assert "You, your choice (1-" in out
    assert "> You: move the" in out


def test_a_single_choice_is_taken_for_the_person_with_a_line(monkeypatch, capsys) -> None:
    type_in(monkeypatch, *["1"] * 40, "quit")
    play_game("snailed_it_v0", ["human", "random", "random"], seed=0, quiet=True)
    out = capsys.readouterr().out
    assert "You: your only choice, taken for you: pass" in out
    assert "216" not in out


def test_help_lists_the_commands_and_quit_abandons_the_game(monkeypatch, capsys) -> None:
    type_in(monkeypatch, "help", "quit")
    play_main(["snailed_it_v0", "--seats", "human,random,random"])
    out = capsys.readouterr().out
    assert "type the number of a choice" in out and "quit: leave the game" in out
    assert "You left the game: the game is abandoned" in out
    assert "won (" not in out


def test_ctrl_c_at_the_prompt_ends_with_one_line(monkeypatch, capsys) -> None:
    class CtrlC:
        """A terminal where the person presses Ctrl-C at the first prompt."""

        def readline(self) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", CtrlC())
    with pytest.raises(SystemExit) as stopped:
        play_main(["snail_sprint_v0", "--seats", "human,random"])
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "snail-play: interrupted\n"


def test_quiet_shows_only_the_results_of_a_game_of_bots(capsys) -> None:
    seats = ["heuristic", "random", "random"]
    play_game("snailed_it_v0", seats, seed=1)
    everything = capsys.readouterr().out.count("\n")
    play_game("snailed_it_v0", seats, seed=1, quiet=True)
    quiet = capsys.readouterr().out
    assert quiet.count("\n") <= 20 < everything // 10
    assert "won (+1)" in quiet and "> player_" not in quiet


def test_quiet_shows_a_person_the_table_and_what_happened_but_no_bot_decisions(
    monkeypatch, capsys
) -> None:
    type_in(monkeypatch, *["1"] * 30, "quit")
    play_game("snailed_it_v0", ["human", "random", "random"], seed=0, quiet=True)
    out = capsys.readouterr().out
    assert "> player_" not in out
    assert "random 1 played" in out and "You: your hand:" in out


@pytest.mark.parametrize(
    ("seed", "reason"),
    [(0, "for the cards tossed into the gap"), (0, "for playing the same colour again")],
)
def test_snailed_it_narrates_the_cards_a_person_draws_and_why(
    seed: int, reason: str, monkeypatch, capsys
) -> None:
    type_in(monkeypatch, *["1"] * 200)
    play_game("snailed_it_v0", ["human", "random", "random"], seed=seed, quiet=True)
    drawn = [line for line in capsys.readouterr().out.splitlines() if f"{reason}, you draw" in line]
    assert drawn and all(" card" in line and ": " in line for line in drawn)


def snap_events(seats: list[str], seed: int) -> list[str]:
    """Everything the narrator of player_0 tells in one Snap game between bots."""
    env = snail_envs.make(SNAP, num_players=len(seats))
    env.reset(seed=seed)
    players = {
        agent: make_agent(kind, SNAP, seed=seed + index)
        for index, (agent, kind) in enumerate(zip(env.possible_agents, seats, strict=True))
    }
    narrator = Narrator(env.unwrapped, "player_0")
    events = []
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        env.step(None if terminated or truncated else choose_action(players[agent], env, agent))
        events += narrator.events()
    return events


def test_snap_narrates_flips_calls_and_captured_piles_never_the_verdict() -> None:
    events = snap_events(["random", "heuristic"], seed=0)
    assert any(line.startswith("calls: ") and "(right)" in line for line in events)
    assert any(line.endswith("flipped " + line.split()[-1]) for line in events)
    assert any(" captured " in line and " card" in line for line in events)
    assert not any("claimable" in line for line in events)


@pytest.mark.skipif(
    not hasattr(GameHost, "render_seat"), reason="people see the seat's view (render_seat)"
)
def test_a_person_at_snap_sees_the_table_not_the_verdict(monkeypatch, capsys) -> None:
    type_in(monkeypatch, "", "", "wait 30", *[""] * 50, "quit")
    play_game(SNAP, ["human", "heuristic"], seed=0)
    assert "claimable" not in capsys.readouterr().out


def test_at_snap_enter_waits_a_tick_and_wait_n_several(monkeypatch, capsys) -> None:
    type_in(monkeypatch, "", "wait 10", "quit")
    play_game(SNAP, ["human", "random"], seed=0, quiet=True)
    out = capsys.readouterr().out
    assert out.count("You, your choice (1-") == 3
    # wait 10 lets ticks go by until a claim shows on this deal, and asks there
    assert out.count(" flipped ") >= 3
    assert "You: wait stopped, the table offers a play" in out
