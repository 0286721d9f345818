"""Each result page's text, plots and stylesheet masked, equals its snapshot: the page
frame they share can change its code without changing a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.page_cases import PAGES, SNAPSHOTS, masked, page


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_page_equals_its_snapshot(name: str) -> None:
    pytest.importorskip("matplotlib")
    expected = (SNAPSHOTS / f"{name}.html").read_text(encoding="utf-8")
    assert masked(page(name)) == expected


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_written_page_takes_the_same_options(name: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    written = page(name, tmp_path / "page.html")
    expected = (SNAPSHOTS / f"{name}.html").read_text(encoding="utf-8")
    assert masked(written.read_text(encoding="utf-8")) == expected
