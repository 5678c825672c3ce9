"""The docs site: it builds with --strict, its links resolve, and every page opens in Chromium
with no console error and every image loaded."""

from __future__ import annotations

import functools
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

from snail_envs.core.game import GameInfo
from snail_envs.docstrings import env_doc, rulebook
from snail_envs.registry import GAMES
from tests.docs.site import ROOT, build_site, pages, serving

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
from changelog import changelog_markdown
from game_pages import page_path
from results_tables import exploit_table, headline_table, short_exploit_cell


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.mktemp("site"))


def test_the_site_builds_strict_with_every_link_every_game_and_the_results(site: Path) -> None:
    """One build serves every check of the built pages (under pytest-xdist a module's tests may
    run in different processes, and each would build the site again)."""
    broken_links(site)
    for game in GAMES:
        game_page_holds(site, game)
    results_page_holds(site)


class Links(HTMLParser):
    """The links (`href`) and sources (`src`) of a page, and its element ids."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)
            if name == "id" and value:
                self.ids.add(value)


@functools.cache
def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def broken_links(site: Path) -> None:
    """Every relative link and source of every page resolves to a file, and its anchor to an
    element of that page."""
    broken = []
    for page in pages(site):
        for target in parsed(page).targets:
            address = urlparse(target)
            if address.scheme or target.startswith(("mailto:", "//")):
                continue
            path, anchor = urldefrag(
                unquote(address.path) + ("#" + address.fragment if address.fragment else "")
            )
            file = (page.parent / path).resolve() if path else page
            if file.is_dir():
                file = file / "index.html"
            if not file.exists():
                broken.append(f"{page.relative_to(site)}: {target} (no file)")
            elif anchor and file.suffix == ".html" and anchor not in parsed(file).ids:
                broken.append(f"{page.relative_to(site)}: {target} (no anchor)")
    assert not broken, "\n".join(broken)


def game_page_holds(site: Path, game: GameInfo) -> None:
    """The game's page has the facts, how to play (every rules section), the observation table
    and its pictures."""
    folder = site / page_path(game).removesuffix(".md")
    html = (folder / "index.html").read_text(encoding="utf-8")
    doc = env_doc(game.env_name)
    for section in ("Facts", "How to play", *(s.heading for s in rulebook(game.env_name).sections)):
        assert re.sub(r"`([^`]*)`", r"<code>\1</code>", section).replace("&", "&amp;") in html
    assert f"<code>{game.env_name}</code>" in html
    first_piece = doc.table("Observation")[0][0].strip("`")
    assert f"<code>{first_piece}</code>" in html
    for picture in re.findall(r'<img alt="[^"]*" src="([^"]+)"', html):
        assert (folder / picture).resolve().stat().st_size > 1000


def results_page_holds(site: Path) -> None:
    """The results page shows its tables from docs/data/, and the README the headline table."""
    readme = (ROOT / "README.md").read_text()
    assert headline_table() in readme
    assert exploit_table(cell=short_exploit_cell) in readme
    results = (site / "results" / "index.html").read_text(encoding="utf-8")
    assert "<!-- headline-results -->" not in results and "<!-- data:" not in results
    assert "50.1% (47.1–53.2)" in results  # the headline, from the stored score_rate.py runs
    assert "60.3% (57.2%–63.3%)" in results  # the stored search strength runs
    assert "19.4% (17.1%–22.0%)" in results  # the stored Snail Sprint! tournament
    assert "+32.1% (+29.6% to +34.4%)" in results  # the stored exploitability reports


def test_the_changelog_holds_every_version_history() -> None:
    assert (ROOT / "CHANGELOG.md").read_text() == changelog_markdown(), (
        "CHANGELOG.md differs from the env modules' version histories: "
        "python docs/hooks/changelog.py > CHANGELOG.md"
    )


def test_the_readme_is_a_landing_page() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150
    assert sum(line.startswith("![") for line in lines) == 1


BROWSER_CHECK = """
const images = Array.from(document.images);
return images.filter((image) => !image.complete || image.naturalWidth === 0).map((i) => i.src);
"""


@pytest.mark.slow
def test_every_page_opens_in_chromium_without_errors_or_missing_images(site: Path) -> None:
    from tests.apps.web.servers import headless_chromium

    driver = headless_chromium()
    try:
        with serving(site) as address:
            for page in pages(site):
                url = f"{address}/{page.relative_to(site).as_posix()}"
                driver.get(url)
                errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
                assert not errors, f"{url}: {errors}"
                assert not driver.execute_script(BROWSER_CHECK), f"{url}: images not loaded"
    finally:
        driver.quit()
