"""Take the README's screenshot of the page (docs/images/snail_serve.png): a Snailed It! game
against two heuristic bots, a few moves in, the person to decide.

    python -m tests.apps.web.readme_screenshot
"""

from __future__ import annotations

from pathlib import Path

from snail_envs.apps.serve.settings import Settings
from tests.apps.web.browser import click_first_move, open_page, page_state, set_table, wait_until
from tests.apps.web.servers import headless_chromium, running_server

SCREENSHOT = Path(__file__).resolve().parents[3] / "docs" / "images" / "snail_serve.png"
MOVES_BEFORE = 4


def main() -> None:
    with running_server(Settings()) as (address, _):
        driver = headless_chromium()
        try:
            driver.set_window_size(1280, 1120)
            open_page(driver, address)
            set_table(driver, "snailed_it_v0", ["human", "heuristic", "heuristic"], seed=11)
            for _ in range(MOVES_BEFORE):
                wait_until(lambda: page_state(driver)["moves"])
                click_first_move(driver)
                wait_until(lambda: not page_state(driver)["moves"])
            wait_until(lambda: page_state(driver)["moves"])
            driver.save_screenshot(str(SCREENSHOT))
        finally:
            driver.quit()
    print(f"wrote {SCREENSHOT}")


if __name__ == "__main__":
    main()
