"""The page of snail-serve driven in headless Chromium, as a person drives it (Selenium)."""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.apps.web.pages import pile_tops

STATE = """
const shown = (id) => !document.getElementById(id).hidden;
return {
  over: shown("result"),
  moves: document.querySelectorAll("#moves button:not([disabled])").length,
  error: shown("error") ? document.getElementById("error-text").textContent : null,
  text: document.getElementById("view-text").textContent,
};
"""
"""What the page shows now, read in one round trip."""


def wait_until(condition: Any, timeout: float = 20.0, every: float = 0.02) -> Any:
    """The first true value of `condition()`, polled; a `TimeoutError` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {condition}")
        time.sleep(every)
    return value


def page_state(driver: Any) -> dict[str, Any]:
    return driver.execute_script(STATE)


def open_page(driver: Any, address: str) -> None:
    """Load the page and wait for the server's welcome (the games listed)."""
    driver.get(address)
    wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#game option"))


def type_into(driver: Any, element_id: str, text: str) -> None:
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text, Keys.TAB)


def set_table(
    driver: Any,
    game: str,
    agents: list[str],
    person: int | None = 0,
    options: dict[str, str] | None = None,
    delays: list[int] | None = None,
    seed: int = 1,
    pace_ms: int = 0,
) -> None:
    """Fill in the form as a person would and press Start: the game, the players, who sits
    where (`agents[person]` is left for the person), the options, the seed, the bots' pace."""
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    type_into(driver, "players", str(len(agents)))
    driver.find_element(By.ID, "nobody" if person is None else f"you-{person}").click()
    for seat, agent in enumerate(agents):
        if seat != person:
            type_into(driver, f"agent-{seat}", agent)
        if delays is not None:
            type_into(driver, f"delay-{seat}", str(delays[seat]))
    if options:
        driver.find_element(By.CSS_SELECTOR, "#options-box summary").click()
        for name, text in options.items():
            type_into(driver, f"option-{name}", text)
    type_into(driver, "seed", str(seed))
    pace = driver.find_element(By.ID, "pace")
    pace.send_keys(Keys.HOME)
    for _ in range(pace_ms // 50):
        pace.send_keys(Keys.ARROW_RIGHT)
    driver.find_element(By.ID, "start").click()
    wait_until(lambda: driver.find_element(By.ID, "game-view").is_displayed())


def click_first_move(driver: Any) -> None:
    with contextlib.suppress(StaleElementReferenceException):  # new buttons: look again
        driver.find_element(By.CSS_SELECTOR, "#moves button:not([disabled])").click()


def play_by_clicks(driver: Any, timeout: float = 40.0) -> int:
    """Click the first move offered at each decision until the result shows; the clicks."""
    clicks = 0
    deadline = time.monotonic() + timeout
    while not (shown := page_state(driver))["over"]:
        assert shown["error"] is None, shown["error"]
        assert time.monotonic() < deadline, "the game did not end"
        if shown["moves"]:
            click_first_move(driver)
            clicks += 1
        else:
            time.sleep(0.02)
    return clicks


def call_snap_on_every_match(driver: Any, timeout: float = 60.0) -> int:
    """Press Space once a flip whenever the piles show a match, until the result shows; the
    presses."""
    presses, answered = 0, None
    deadline = time.monotonic() + timeout
    while not (shown := page_state(driver))["over"]:
        assert time.monotonic() < deadline, "the game did not end"
        tops = pile_tops(shown["text"])
        flips = re.search(r"(\d+) flips", shown["text"])
        match = len(tops) > 1 and len(set(tops)) == 1 and "--" not in tops
        if match and flips and flips.group(1) != answered:
            ActionChains(driver).send_keys(Keys.SPACE).perform()
            presses, answered = presses + 1, flips.group(1)
        time.sleep(0.005)
    return presses


def texts(driver: Any, selector: str) -> list[str]:
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]
