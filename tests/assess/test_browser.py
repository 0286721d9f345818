"""The evidence pack's report.html in the system Chromium at 1280 px (issue 36: "the
HTML pack opened in Chromium shows every item"): every item's section present and
visible, the plots drawn, no console error, no request, no sideways scroll."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.render.conftest import ARTIFACTS


def test_every_item_is_shown_at_1280_px(browser: object, pack: Path) -> None:
    from tests.render.cdp import Chromium

    assert isinstance(browser, Chromium)
    url = (pack / "report.html").resolve().as_uri()
    browser.open(url)
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot(ARTIFACTS / "assess-pack-full.png", full_page=True)
    assert browser.errors() == [] and browser.requests(url) == [] and browser.dialogs() == []
    assert browser.evaluate("window.innerWidth") == 1280
    shown = browser.evaluate(
        "[...Array(13).keys()].map(i => {"
        " const s = document.getElementById('item-' + (i + 1));"
        " if (!s) return null;"
        " const r = s.getBoundingClientRect(), st = getComputedStyle(s);"
        " return [s.querySelector('h2').textContent, r.width, r.height,"
        "  st.display !== 'none' && st.visibility !== 'hidden' && st.opacity !== '0']; })"
    )
    assert len(shown) == 13 and None not in shown
    for i, (title, width, height, visible) in enumerate(shown, start=1):
        assert title.startswith(f"{i}. ") and "not assessed" not in title, title
        assert visible and width > 600 and height > 20, (title, width, height)
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    if importlib.util.find_spec("matplotlib") is not None:
        plots = browser.evaluate(
            "[...document.querySelectorAll('figure svg')].map(s => {"
            " const r = s.getBoundingClientRect();"
            " return [s.closest('section').id, r.right <= 1280 && r.width > 400,"
            "  s.getAttribute('aria-label')]; })"
        )
        assert [p[0] for p in plots] == ["item-3", "item-5", "item-6", "item-9"]
        assert all(fits and label for _, fits, label in plots)
