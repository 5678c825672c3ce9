"""Duplicate deals in `snail-eval`: each deal played in every seat assignment, scored by deal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from snail_envs.training import evaluate
from snail_envs.training.evaluate import DUPLICATE, PLAIN, GameRecord, PairingResult
from tests.names import SNAIL_SPRINT


def record(seats: list[str], returns: list[float]) -> GameRecord:
    return GameRecord(seats=seats, returns=returns, points=[0.0] * len(seats), truncated=False)


def played_games(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[str]]]:
    """The (seed, seats) of every game `evaluate.play_game` plays from now on."""
    games: list[tuple[int, list[str]]] = []
    play = evaluate.play_game

    def recording(env_name: str, seats: Any, seed: int, *args: Any, **kwargs: Any) -> Any:
        games.append((seed, list(seats)))
        return play(env_name, seats, seed, *args, **kwargs)

    monkeypatch.setattr(evaluate, "play_game", recording)
    return games


def test_a_duplicate_deal_is_played_once_with_the_seats_swapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = played_games(monkeypatch)
    tournament = evaluate.run_tournament(
        SNAIL_SPRINT, ["heuristic", "random"], games=6, progress=False, duplicate=True
    )
    seeds = [seed for seed, _ in games]
    assert seeds[0::2] == seeds[1::2] and len(set(seeds)) == 3
    for (_, first), (_, second) in zip(games[0::2], games[1::2], strict=True):
        assert second == first[::-1]
    assert tournament.estimator == DUPLICATE
    assert "duplicate deals" in tournament.markdown()
    assert tournament.results()["estimator"] == DUPLICATE


def test_without_duplicate_every_game_has_its_own_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    games = played_games(monkeypatch)
    tournament = evaluate.run_tournament(
        SNAIL_SPRINT, ["heuristic", "random"], games=4, progress=False
    )
    assert len({seed for seed, _ in games}) == 4
    assert tournament.estimator == PLAIN


def test_a_lone_seat_deal_puts_the_lone_agent_in_every_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = played_games(monkeypatch)
    evaluate.run_tournament(
        SNAIL_SPRINT,
        ["heuristic", "random"],
        games=3,
        options={"num_players": 3},
        seating="one",
        progress=False,
        duplicate=True,
    )
    # the pairings take turns game by game: the first is every other game
    first_pairing = games[0::2]
    assert len({seed for seed, _ in first_pairing}) == 1
    assert [seats.index("heuristic") for _, seats in first_pairing] == [0, 1, 2]


def test_duplicate_scores_average_each_deal_before_the_interval() -> None:
    won_both = [record(["a", "b"], [1, -1]), record(["b", "a"], [-1, 1])]
    split = [record(["a", "b"], [1, -1]), record(["b", "a"], [1, -1])]
    pairing = PairingResult(("a", "b"), deal_size=2)
    pairing.records = won_both * 3 + split * 3
    rate, low, high = pairing.score("a")
    assert rate == 0.75
    # six deals scoring 1, 1, 1, ½, ½, ½: standard deviation 0.2739
    half = 1.959964 * 0.27386 / 6**0.5
    assert low == pytest.approx(0.75 - half, abs=1e-4)
    assert high == pytest.approx(0.75 + half, abs=1e-4)
    assert pairing.score("b")[0] == 0.25


def test_duplicate_games_must_fill_whole_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--env", SNAIL_SPRINT, "--agents", "random", "heuristic", "--games", "5"]
    with pytest.raises(SystemExit):
        evaluate.main([*argv, "--duplicate", "--out", str(tmp_path / "out")])
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert "--games must be a multiple of 2; got 5" in error[0]
    with pytest.raises(ValueError, match="--table has no pairs"):
        evaluate.run_tournament(
            SNAIL_SPRINT, ["random", "heuristic"], games=2, table=True, duplicate=True
        )
