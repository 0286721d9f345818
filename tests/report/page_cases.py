"""Small seeded results for the page snapshots (``test_page_snapshots.py``): one of each
page kind drawn on a frame, with the volatile parts of a page masked.

Regenerate the snapshots (only when a page's text is meant to change) with
``python -m tests.report.page_cases``; review the diff before committing it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

#: Where the snapshots live, one file per page.
SNAPSHOTS = Path(__file__).resolve().parent / "pages"
#: The footer's date on every snapshot.
NOW = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
#: The files a page names (a label that is HTML).
INPUTS = [("original", "o <1>.csv"), ("avatars", "a & b.csv")]


def _people(n: int, seed: int) -> pl.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "âge du patient": rng.integers(18, 80, n),
            "ville <b>": rng.choice(["Paris", "Lyon", "Nice & Co", "Brest"], n),
            "revenu": rng.integers(1, 60, n) * 1000,
            "smoker": rng.choice(["yes", "no"], n),
        }
    )


def inference_result() -> Any:
    import kpr

    original, avatars, control = _people(400, 1), _people(400, 2), _people(300, 3)
    result = kpr.inference(
        original, avatars, known=["âge du patient", "ville <b>"],
        secret=["revenu", "smoker"], control=control, control_subsets=5,
    )  # fmt: skip
    return result


def membership_result() -> Any:
    import kpr

    people = _people(600, 4)
    result = kpr.membership(
        people[:300], _people(300, 5), holdout=people[300:], known=["âge du patient", "ville <b>"],
        replicates=20,
    )  # fmt: skip
    return result


def utility_result() -> Any:
    import kpr

    result = kpr.utility(_people(200, 6), _people(200, 7))
    return result


def _timeless(sweep: Any) -> Any:
    """The sweep with every generation time set to 1 s (the only figure that varies)."""
    rows = [
        dataclasses.replace(r, runs=[dataclasses.replace(run, seconds=1.0) for run in r.runs])
        for r in sweep.rows
    ]
    return dataclasses.replace(sweep, rows=rows)


def sweep_result() -> Any:
    from kpr.avatar import sweep

    table = _people(120, 8)
    return _timeless(sweep(table, ["âge du patient", "ville <b>"], ks=(3, 8), seed=5,
                             control=_people(80, 9)))  # fmt: skip


def tune_result() -> Any:
    from kpr.avatar import tune

    result = tune(_people(120, 8), ["âge du patient", "ville <b>"], ks=(3, 8), repeats=1, seed=5)
    return dataclasses.replace(result, sweep=_timeless(result.sweep))


#: Each page: how its result is made, and the options its page is drawn with.
PAGES: dict[str, tuple[Callable[[], Any], dict[str, Any]]] = {
    "inference": (inference_result, {"inputs": INPUTS, "now": NOW}),
    "membership": (membership_result, {"inputs": INPUTS, "now": NOW}),
    "utility": (utility_result, {"inputs": INPUTS, "now": NOW}),
    "sweep": (sweep_result, {"now": NOW}),
    "tune": (tune_result, {"now": NOW}),
}


def page(name: str, path: Path | None = None) -> Any:
    """The page ``name`` through the result's registered views: its text, or the file
    written at ``path``."""
    from kpr.results import views

    build, options = PAGES[name]
    return views.to_html(build(), path, **options)


def masked(page: str) -> str:
    """The page without what changes from one install to the next: the stylesheet, the
    plots (matplotlib's SVG) and kpr's version."""
    from kpr.version import __version__

    page = re.sub(r"<style>\n.*?</style>", "<style>…</style>", page, flags=re.S)
    page = re.sub(r"<svg\b.*?</svg>", "<svg>…</svg>", page, flags=re.S)
    return page.replace(f"kpr {__version__}", "kpr VERSION")


if __name__ == "__main__":
    SNAPSHOTS.mkdir(exist_ok=True)
    for name in PAGES:
        (SNAPSHOTS / f"{name}.html").write_text(masked(page(name)), encoding="utf-8")
