"""Each result page's text, plots and stylesheet masked, equals its snapshot: the page
frame they share can change its code without changing a page."""

from __future__ import annotations

import pytest

from tests.report.page_cases import PAGES, SNAPSHOTS, masked


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_page_equals_its_snapshot(name: str) -> None:
    pytest.importorskip("matplotlib")
    expected = (SNAPSHOTS / f"{name}.html").read_text(encoding="utf-8")
    assert masked(PAGES[name]()) == expected
