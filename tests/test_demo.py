"""`python -m snail_envs.demo`: a user's mistake ends in one line naming it, never a traceback."""

from __future__ import annotations

import pytest

from snail_envs import demo
from tests.names import SNAP


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([SNAP, "-o", "bogus=1", "--no-show"], "unknown option 'bogus'; allowed options:"),
        ([SNAP, "-o", "num_players=99", "--no-show"], "num_players must be an integer"),
        ([SNAP, "--games", "0", "--no-show"], "--games must be at least 1, got 0"),
        (
            ["snail_sprint_v0", "-o", "num_players=7"],
            "num_players must be an integer from 2 to 4; got 7",
        ),
        (["snail_sprint_v0", "-o", "num_players"], "options are written name=value"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        demo.main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "Traceback" not in error
    last_line = error.strip().splitlines()[-1]
    assert ": error: " in last_line and message in last_line


def test_a_summary_of_seeded_games(capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["snail_sprint_v0", "--games", "20", "--no-show"])
    assert "decisions per game" in capsys.readouterr().out
