"""The report in a real browser: the system Chromium, headless, driven over the
DevTools protocol. Skipped only on a developer machine without Chromium; with
``CI`` set, a missing browser is a failure, so CI cannot skip it silently."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kpr.analysis import AnalysisResult
from kpr.results.evaluation import KprResult, format_rate

from .conftest import ARTIFACTS, HOSTILE_COLUMN, IMG, MATH, SCRIPT

if TYPE_CHECKING:  # the client imports websocket-client, which the skip checks first
    from .cdp import Chromium


def _browser_or_skip() -> str:
    """The Chromium to drive; skip (or fail under CI) when it or the client is missing."""
    from .cdp import find_chromium

    chromium = find_chromium()
    missing = []
    if chromium is None:
        missing.append("chromium is not installed (apt-get install -y chromium)")
    if importlib.util.find_spec("websocket") is None:
        missing.append("websocket-client is not installed (pip install 'kpr[test]')")
    if missing:
        reason = "; ".join(missing)
        if "CI" in os.environ:
            pytest.fail(f"CI is set, so the browser test must run: {reason}")
        pytest.skip(reason)
    assert chromium is not None
    return chromium


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    chromium = _browser_or_skip()
    from .cdp import Chromium

    profile = tmp_path / "profile"
    profile.mkdir()
    page = Chromium(chromium, profile)
    try:
        yield page
    finally:
        page.close()


def _open(browser: Chromium, document: str, path: Path, shot: str, *, top: bool = False) -> str:
    """The URL of ``document``, written at ``path`` and opened; a full-page screenshot
    ``{shot}-full.png`` (and, with ``top``, the window's ``{shot}.png``) kept in ARTIFACTS."""
    path.write_text(document, encoding="utf-8")
    url = path.resolve().as_uri()
    browser.open(url)
    ARTIFACTS.mkdir(exist_ok=True)
    if top:
        browser.screenshot(ARTIFACTS / f"{shot}.png")
    browser.screenshot(ARTIFACTS / f"{shot}-full.png", full_page=True)
    return url


def _assert_quiet(browser: Chromium, url: str) -> None:
    """No script error, no request leaving the page, no dialog (no alert() ran)."""
    assert browser.errors() == []
    assert browser.requests(url) == []
    assert browser.dialogs() == []


def _assert_headline(browser: Chromium, rate: float) -> None:
    """The rate shown, its exact value in ``data-kpr-rate`` and the page's title."""
    shown = browser.evaluate("document.querySelector('[data-kpr-rate]').textContent")
    assert shown == format_rate(rate)
    value = browser.evaluate("document.querySelector('[data-kpr-rate]').dataset.kprRate")
    assert float(value) == rate
    assert browser.evaluate("document.title").startswith(f"Knowledge Protection Rate {shown}")


def _assert_readable_plots(browser: Chromium, count: int) -> None:
    """``count`` plots, drawn at a readable size, labelled for screen readers; the
    headline visible without scrolling, and nothing overflowing sideways."""
    plots = browser.evaluate(
        "[...document.querySelectorAll('figure svg')].map(s => {"
        " const r = s.getBoundingClientRect();"
        " return [Math.round(r.width), Math.round(r.height), s.getAttribute('aria-label')]; })"
    )
    assert len(plots) == count
    assert all(w >= 500 and h >= 150 and label for w, h, label in plots)
    top = browser.evaluate("document.querySelector('[data-kpr-rate]').getBoundingClientRect().top")
    assert 0 <= top < 300
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _open_in_1280_pixels(browser: Chromium, document: str, path: Path, shot: str) -> None:
    """Opens ``document`` in the 1280-pixel window: quiet, and the page does not
    scroll sideways."""
    _assert_quiet(browser, _open(browser, document, path, shot))
    assert browser.evaluate("window.innerWidth") == 1280
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_demo_report_in_chromium(
    browser: Chromium, demo_result: KprResult, demo_html: str, tmp_path: Path
) -> None:
    url = _open(browser, demo_html, tmp_path / "demo.html", "report-demo", top=True)
    _assert_quiet(browser, url)
    _assert_headline(browser, demo_result.rate)
    assert browser.evaluate("document.querySelector('[data-kpr-verdict]').dataset.kprVerdict") == (
        "pass"
    )
    _assert_readable_plots(browser, len(demo_result.known))  # one per known variable


def test_hostile_values_render_as_text(
    browser: Chromium, hostile_result: KprResult, tmp_path: Path
) -> None:
    document = hostile_result.to_html(show_values=True, inputs=(SCRIPT, IMG))
    url = _open(browser, document, tmp_path / "hostile.html", "report-hostile")
    _assert_quiet(browser, url)
    assert browser.evaluate("document.scripts.length") == 0
    assert browser.evaluate("document.querySelectorAll('img, image, iframe, object').length") == 0
    assert browser.evaluate("document.querySelectorAll('[onerror], [onload]').length") == 0
    text = browser.evaluate("document.body.textContent")
    for hostile in (SCRIPT, IMG, HOSTILE_COLUMN, MATH):
        assert hostile in text
    # in the linked table, as the text of cells
    cells = browser.evaluate("[...document.querySelectorAll('#linked td')].map(c => c.textContent)")
    assert SCRIPT in cells and IMG in cells
    # and inside the SVG plots, as the text of <text> elements
    svg_text = browser.evaluate(
        "[...document.querySelectorAll('svg text')].map(t => t.textContent).join('\\n')"
    )
    assert SCRIPT in svg_text and IMG in svg_text


def test_demo_analysis_in_chromium(
    browser: Chromium, demo_analysis: AnalysisResult, demo_analysis_html: str, tmp_path: Path
) -> None:
    url = _open(browser, demo_analysis_html, tmp_path / "analysis.html", "analysis-demo", top=True)
    _assert_quiet(browser, url)
    a = demo_analysis.attack
    _assert_headline(browser, a.rate)
    cards = browser.evaluate(
        "[...document.querySelectorAll('[data-kpr-baseline]')]"
        ".map(e => [e.dataset.kprBaseline, e.dataset.kprValue ?? null])"
    )
    assert cards == [
        ["avatars", repr(a.rate)],
        ["original-published", repr(demo_analysis.original_published.rate)],
        ["worst-case", repr(demo_analysis.worst_case)],
        ["control", None],
    ]
    sweep = demo_analysis.sweep
    assert sweep is not None
    first = browser.evaluate(
        "[...document.querySelectorAll('#subsets tbody tr:first-child b')].map(b => b.textContent)"
    )
    assert tuple(first) == sweep.entries[0].known
    _assert_readable_plots(browser, 4)  # baselines, subsets, contributions, tolerance


def test_hostile_analysis_renders_as_text(
    browser: Chromium, hostile_analysis: AnalysisResult, tmp_path: Path
) -> None:
    document = hostile_analysis.to_html(inputs=(SCRIPT, IMG, MATH))
    url = _open(browser, document, tmp_path / "hostile-analysis.html", "analysis-hostile")
    _assert_quiet(browser, url)
    assert browser.evaluate("document.scripts.length") == 0
    assert browser.evaluate("document.querySelectorAll('img, image, iframe, object').length") == 0
    text = browser.evaluate("document.body.textContent")
    for hostile in (SCRIPT, IMG, HOSTILE_COLUMN, MATH):
        assert hostile in text
    svg_text = browser.evaluate(
        "[...document.querySelectorAll('svg text')].map(t => t.textContent).join('\\n')"
    )
    assert SCRIPT in svg_text and HOSTILE_COLUMN in svg_text


def test_sweep_report_fits_a_1280_pixel_window(browser: Chromium, tmp_path: Path) -> None:
    """The widest sweep table (repeats and a control: every column) shows whole at
    1280 px: no horizontal scroll on the page or inside a table's wrapper, so every
    column is seen, and printed."""
    import polars as pl

    from kpr.avatar import sweep
    from kpr.demo import DEMO_KNOWN, demo_paths

    adult = pl.read_parquet(demo_paths()[0]).head(1_500)
    result = sweep(
        adult[:1_000], DEMO_KNOWN[:3], ks=(2, 5, 10, 20, 40, 80), repeats=2,
        control=adult[1_000:], control_subsets=2,
    )  # fmt: skip
    _open_in_1280_pixels(browser, result.to_html(), tmp_path / "sweep.html", "sweep-1280")
    overflowing = browser.evaluate(
        "[...document.querySelectorAll('.table-wrap')]"
        ".filter(w => w.scrollWidth > w.clientWidth + 1)"
        ".map(w => [w.scrollWidth, w.clientWidth, w.querySelector('th').textContent])"
    )
    assert overflowing == []
    headers = browser.evaluate("[...document.querySelectorAll('th')].map(t => t.textContent)")
    assert "Time (s)" in headers and any(h.startswith("Control minus original") for h in headers)


def test_tune_page_charts_fit_a_1280_pixel_window(browser: Chromium, tmp_path: Path) -> None:
    """Issue 38, item 8: the tune page at 1280 px, its legends above the plots: every
    chart shows whole inside the window, and no table or page scrolls sideways."""
    from kpr.avatar import TuneCriteria, TuneResult
    from tests.avatar.test_sweep import _hand_made

    result = TuneResult(TuneCriteria(90.0), _hand_made([50, 20, 10, 5]), (2, 5, 10, 20))
    _open_in_1280_pixels(browser, result.to_html(), tmp_path / "tune.html", "tune-1280")
    boxes = browser.evaluate(
        "[...document.querySelectorAll('.kpr-plot svg')].map(s => {"
        " const r = s.getBoundingClientRect(); return [r.left, r.right, r.width]; })"
    )
    assert len(boxes) == 2
    assert all(left >= 0 and right <= 1280 and width > 400 for left, right, width in boxes)
