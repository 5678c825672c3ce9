"""Helpers of the web tests: a real `snail-serve` server in a thread, and headless Chromium."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from snail_envs.apps.serve.settings import Settings

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver", "chromium.chromedriver")
MISSING_CHROMIUM = (
    "no headless Chromium: the browser tests need chromium and chromedriver on PATH "
    "(Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)


@contextlib.contextmanager
def running_server(settings: Settings) -> Iterator[tuple[str, Any]]:
    """A server with `settings` on a free port of 127.0.0.1, run by uvicorn in a thread, as
    `snail-serve` runs it: its address and the application."""
    import uvicorn

    from snail_envs.apps.serve.app import create_app
    from snail_envs.apps.serve.cli import listen

    app = create_app(settings)
    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def chromium_paths() -> tuple[str, str]:
    """The Chromium browser and its driver, or a skip saying how to install them."""
    browser = next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    driver = next(filter(None, map(shutil.which, DRIVER_NAMES)), None)
    if browser is None or driver is None:
        pytest.skip(MISSING_CHROMIUM)
    return browser, driver


def headless_chromium() -> Any:
    """A Selenium driver of headless Chromium, 1280×1000 pixels."""
    from selenium import webdriver

    browser, driver = chromium_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",  # tests run as root in containers
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(driver))
