"""The page in a real browser (headless Chromium): every game played to its end against bots,
Snap in real time won by a key press, bots watched, a game saved and replayed, an error shown.

Skipped only where Chromium or its driver cannot be found (`.ci/run` installs them). The
screenshots go to a temporary folder, printed with `-s`.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from snail_envs.agents import AGENT_KINDS
from snail_envs.apps.serve.settings import Settings
from snail_envs.docstrings import rulebook
from tests.apps.web.browser import (
    call_snap_on_every_match,
    open_page,
    page_state,
    play_by_clicks,
    set_table,
    texts,
    type_into,
    wait_until,
)
from tests.apps.web.pages import QUICK_GAMES
from tests.apps.web.servers import headless_chromium, running_server
from tests.names import SNAP

pytestmark = pytest.mark.slow  # each test drives a browser: the full suite runs them

TICK_MS = 150
FRAME_TIMES = """
window.frameTimes = [];
new MutationObserver(() => window.frameTimes.push(performance.now()))
  .observe(document.getElementById("picture"), {attributes: true, attributeFilter: ["src"]});
"""
"""Test instrumentation: when each picture reached the page."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = headless_chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("replays")
    with running_server(Settings(tick_ms=TICK_MS, replays=folder, save_dir=folder)) as (url, _):
        yield url


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {folder}")
    return folder


@pytest.mark.parametrize("game", ["snailed_it_v0", "snail_sprint_v0", "pedzace_slimaki_v0"])
def test_a_person_plays_a_whole_game_by_clicking_moves(
    browser: Any, server: str, screenshots: Path, game: str
) -> None:
    open_page(browser, server)
    set_table(browser, game, ["human", "heuristic"], options=QUICK_GAMES[game])
    assert play_by_clicks(browser) > 0
    browser.save_screenshot(str(screenshots / f"{game}.png"))
    result = texts(browser, "#result p")
    assert any(re.match(r"You: (won|lost) \([+-]1\)", line) for line in result), result
    assert texts(browser, "#status")[0].startswith("game over")
    assert texts(browser, "#log li"), "the narration is empty"
    picture = browser.find_element(By.ID, "picture")
    assert picture.get_attribute("naturalWidth") not in ("0", None)


def test_snap_in_real_time_a_key_press_wins_against_a_slow_bot(
    browser: Any, server: str, screenshots: Path
) -> None:
    """The bot may call only from tick 8 of a window, over a second after the flip; the
    scripted person presses Space as soon as the page shows a match."""
    options = {**QUICK_GAMES[SNAP], "reaction_ticks": "8", "max_flips": "300"}
    open_page(browser, server)
    set_table(browser, SNAP, ["human", "heuristic"], options=options, delays=[0, 7], seed=2)
    browser.execute_script(FRAME_TIMES)
    seats = texts(browser, "#seat-list li")
    assert seats[0].startswith("You (player_0)")
    assert "heuristic (player_1): calls from tick 8 of a window on (reaction delay 7)" in seats[1]
    assert "1050–1200 ms after the flip" in seats[1]
    assert call_snap_on_every_match(browser) > 0
    browser.save_screenshot(str(screenshots / "snap_realtime.png"))
    log = " ".join(texts(browser, "#log li"))
    assert "You snap (right)" in log and "you captured" in log
    reactions = texts(browser, "#reactions li")
    assert reactions and all(
        re.fullmatch(r"call snap: \d+ ms after the flip", r) for r in reactions
    )
    assert max(int(r.split(": ")[1].split()[0]) for r in reactions) < 7 * TICK_MS
    times = browser.execute_script("return window.frameTimes;")
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert TICK_MS * 0.8 < statistics.median(gaps) < TICK_MS * 1.3, gaps


def test_watching_bots_then_saving_and_stepping_through_the_replay(
    browser: Any, server: str, screenshots: Path
) -> None:
    open_page(browser, server)
    bots = ["heuristic", "random", "heuristic"]
    set_table(
        browser,
        "snailed_it_v0",
        bots,
        person=None,
        options=QUICK_GAMES["snailed_it_v0"],
        pace_ms=400,
    )
    assert texts(browser, "#game-title")[0].endswith(": watching")
    browser.find_element(By.ID, "live-pace").send_keys(Keys.HOME)  # the fastest pace
    wait_until(lambda: page_state(browser)["over"])
    names = ("heuristic 1: ", "random: ", "heuristic 2: ")
    assert all(line.startswith(names) for line in texts(browser, "#log li"))
    browser.find_element(By.ID, "save").click()
    saved = wait_until(lambda: texts(browser, "#saved")[0])
    name = saved.removeprefix("saved as ")
    browser.find_element(By.ID, "tab-replays").click()
    browser.find_element(By.XPATH, f"//button[text()='{name}']").click()
    wait_until(lambda: texts(browser, "#replay-index")[0].startswith("1 / "))
    count = int(texts(browser, "#replay-index")[0].split(" / ")[1])
    browser.find_element(By.ID, "replay-next").click()
    wait_until(lambda: texts(browser, "#replay-index")[0] == f"2 / {count}")
    assert "[decision 2/" in browser.find_element(By.ID, "replay-text").text
    browser.find_element(By.ID, "replay-last").click()
    wait_until(lambda: texts(browser, "#replay-index")[0] == f"{count} / {count}")
    assert "won" in browser.find_element(By.ID, "replay-text").text
    browser.save_screenshot(str(screenshots / "replay.png"))


def test_a_rule_preset_fills_in_the_table(browser: Any, server: str) -> None:
    open_page(browser, server)
    Select(browser.find_element(By.ID, "game")).select_by_value(SNAP)
    Select(browser.find_element(By.ID, "preset")).select_by_value("uneven_reflexes")
    assert browser.find_element(By.ID, "players").get_attribute("value") == "3"
    delays = [
        browser.find_element(By.ID, f"delay-{seat}").get_attribute("value") for seat in range(3)
    ]
    assert delays == ["0", "1", "2"]
    assert browser.find_element(By.ID, "option-ruleset").get_attribute("value") == "snap_pot"
    assert "Seats with different reflexes" in texts(browser, "#preset-about")[0]


def test_a_bad_table_is_an_error_in_the_page_and_the_page_goes_on(
    browser: Any, server: str
) -> None:
    open_page(browser, server)
    Select(browser.find_element(By.ID, "game")).select_by_value("snail_sprint_v0")
    type_into(browser, "agent-1", "wizard")
    browser.find_element(By.ID, "start").click()
    error = wait_until(lambda: page_state(browser)["error"])
    assert "unknown agent 'wizard'" in error
    assert browser.find_element(By.ID, "setup").is_displayed()
    type_into(browser, "agent-1", "random")
    browser.find_element(By.ID, "start").click()
    wait_until(lambda: browser.find_element(By.ID, "game-view").is_displayed())


def seat_choice(driver: Any) -> dict[str, Any]:
    """Which radio is checked (a seat's number, "" for nobody), the seats, and the Start label."""
    return driver.execute_script(
        """
        const chosen = document.querySelector("input[name=you]:checked");
        return {
          chosen: chosen ? chosen.value : null,
          seats: document.querySelectorAll("#seats tbody tr").length,
          start: document.getElementById("start").textContent,
          setup: !document.getElementById("setup").hidden,
        };
        """
    )


def test_editing_players_keeps_the_person_seated_and_starts_nothing(
    browser: Any, server: str
) -> None:
    """Backspace empties the Players box and typing refills it: the person stays in the seat
    they chose (the last one, if theirs is gone), and only Start starts a game."""
    open_page(browser, server)
    Select(browser.find_element(By.ID, "game")).select_by_value("snailed_it_v0")
    type_into(browser, "players", "3")
    browser.find_element(By.ID, "you-2").click()
    players = browser.find_element(By.ID, "players")
    players.send_keys(Keys.END, Keys.BACKSPACE)
    assert seat_choice(browser) == {
        "chosen": "2",
        "seats": 3,
        "start": "Play as player_2",
        "setup": True,
    }
    assert "keeps its 3 seats" in texts(browser, "#seat-note")[0]
    players.send_keys("4", Keys.TAB)
    assert seat_choice(browser)["chosen"] == "2" and seat_choice(browser)["seats"] == 4
    type_into(browser, "players", "2")
    assert seat_choice(browser) == {
        "chosen": "1",
        "seats": 2,
        "start": "Play as player_1",
        "setup": True,
    }
    assert "You now sit at player_1" in texts(browser, "#seat-note")[0]
    browser.find_element(By.ID, "nobody").click()
    type_into(browser, "players", "3")
    assert seat_choice(browser)["chosen"] == "" and seat_choice(browser)["start"].startswith(
        "Watch"
    )


def test_each_seat_says_what_its_agent_is(browser: Any, server: str) -> None:
    open_page(browser, server)
    Select(browser.find_element(By.ID, "game")).select_by_value("snail_sprint_v0")
    browser.find_element(By.ID, "you-0").click()
    assert texts(browser, "#about-0")[0].startswith("you")
    assert texts(browser, "#about-1")[0] == AGENT_KINDS["heuristic"]
    type_into(browser, "agent-1", "ismcts:500")
    assert texts(browser, "#about-1")[0] == AGENT_KINDS["ismcts"]
    type_into(browser, "agent-1", "wizard")
    assert texts(browser, "#about-1")[0].startswith("no such agent; agents: random, heuristic")


def test_the_rules_panel_shows_the_rulebook_as_text(browser: Any, server: str) -> None:
    open_page(browser, server)
    Select(browser.find_element(By.ID, "game")).select_by_value(SNAP)
    browser.find_element(By.CSS_SELECTOR, "#rules-box summary").click()
    book = rulebook(SNAP)
    headings = texts(browser, "#rules h4")
    assert headings == [section.heading for section in book.sections]
    bodies = browser.execute_script(
        "return [...document.querySelectorAll('#rules pre')].map((pre) => pre.textContent);"
    )
    assert bodies == [section.body for section in book.sections]
    assert not browser.find_elements(By.CSS_SELECTOR, "#rules pre *"), "set as text, not HTML"
