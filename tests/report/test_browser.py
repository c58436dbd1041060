"""The HTML report in a real headless browser (the system Chromium, driven by Playwright):
it loads with no console message and no network request, the decision is visible at
1280x800 without scrolling, in light and dark; screenshots of an approved, a rejected and
an escalated report are written to tests/actual/report/ (look at them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.report.fixtures import FIXTURES, context
from truegreen.report import html

SHOTS = Path(__file__).resolve().parent.parent / "actual" / "report"

pytestmark = pytest.mark.chromium


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the dev extras install it")
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_page_loads_offline_and_shows_the_decision_first(browser, tmp_path, name, scheme):
    doc = FIXTURES[name]
    page_file = tmp_path / "report.html"
    page_file.write_text(html.render(doc, context(doc)), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    messages: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"error: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    assert messages == []
    assert requests == [page_file.as_uri()]  # the page itself, nothing else
    decision = page.locator("#decision h1")
    box = decision.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800
    assert decision.inner_text().lower() == doc["decision"]
    reason = page.locator("#decision .reason").bounding_box()
    assert reason is not None and reason["y"] + reason["height"] <= 800
    # the colours follow the scheme: dark text on light, light on dark
    color = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert color == ("rgb(255, 255, 255)" if scheme == "light" else "rgb(13, 17, 23)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{scheme}.png"))
    if scheme == "light":
        page.emulate_media(media="print")
        page.pdf(path=str(tmp_path / "report.pdf"))  # printable: a PDF is made
        assert (tmp_path / "report.pdf").stat().st_size > 1000
    page.close()
