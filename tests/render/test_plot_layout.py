"""The report's charts keep their words readable (issue 38, item 8): every text lies
inside its figure (no label cut at the edge), and no legend sits on a data line or
on a text of the plot. Each figure is drawn by Agg as the SVG would be, and its
artists' boxes are compared in display coordinates."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.analysis import analyze
from kpr.results.evaluation import KprResult
from tests.avatar.test_sweep import _hand_made

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from kpr.render import plots  # noqa: E402


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Figure]]:
    """Every figure a renderer turns into SVG, kept for inspection."""
    drawn: list[Figure] = []
    real = plots.to_inline_svg

    def keep(fig: Figure, key: str, label: str) -> str:
        drawn.append(fig)
        return real(fig, key, label)

    monkeypatch.setattr(plots, "to_inline_svg", keep)
    yield drawn


def _undrawn_ticks(fig: Figure) -> set[int]:
    """Tick labels matplotlib keeps but does not draw: their tick is outside the view."""
    out: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                loc = tick.get_loc()
                if loc is None or not low - slack <= loc <= high + slack:
                    out |= {id(tick.label1), id(tick.label2)}
    return out


def _texts(fig: Figure) -> list[Text]:
    undrawn = _undrawn_ticks(fig)
    return [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and id(t) not in undrawn
    ]


def _line_points(line: Line2D) -> np.ndarray:
    """The line's path in display coordinates, with points every few pixels along each
    segment (a straight line crossing the legend has no vertex inside it)."""
    xy = line.get_transform().transform(line.get_xydata())
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2 or line.get_linestyle() in ("None", "none", ""):
        return xy
    dense = [xy[:1]]
    for a, b in itertools.pairwise(xy):
        steps = max(2, int(np.hypot(*(b - a)) // 3))
        dense.append(a + np.linspace(0.0, 1.0, steps)[1:, None] * (b - a))
    return np.concatenate(dense)


def check(fig: Figure) -> None:
    """No text beyond the figure's edge; no legend over a line or a text."""
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    edge = fig.bbox
    for t in _texts(fig):
        box = t.get_window_extent(renderer)
        assert (
            box.x0 >= edge.x0 - 1
            and box.x1 <= edge.x1 + 1
            and box.y0 >= edge.y0 - 1
            and box.y1 <= edge.y1 + 1
        ), f"{t.get_text()!r} is cut by the figure's edge"
    legends = [x for x in fig.findobj(Legend)]
    for legend in legends:
        frame = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for line in ax.get_lines():
                points = _line_points(line)
                inside = (
                    (points[:, 0] > frame.x0)
                    & (points[:, 0] < frame.x1)
                    & (points[:, 1] > frame.y0)
                    & (points[:, 1] < frame.y1)
                )
                assert not inside.any(), f"the legend sits on {line.get_label()!r}"
            for t in _texts(fig):
                if t.axes is ax and t not in legend.get_texts():
                    assert not frame.overlaps(t.get_window_extent(renderer)), (
                        f"the legend sits on the text {t.get_text()!r}"
                    )


def test_the_evaluation_charts(demo_result: KprResult, figures: list[Figure]) -> None:
    demo_result.to_html()
    assert len(figures) >= 6
    for fig in figures:
        check(fig)


def test_a_long_value_label_on_the_longest_bar_stays_inside(figures: list[Figure]) -> None:
    """The count written beside the longest share-linked bar ("1,234 of 21,508")."""
    n = 3000
    rng = np.random.default_rng(3)
    names = np.array(["Saint-Rémy-de-Provence-sur-Mer", "b", "c"])
    town = rng.choice(names, n, p=[0.9, 0.05, 0.05])
    age = rng.integers(18, 90, n)
    original = pl.DataFrame({"town": town, "age": age})
    avatars = pl.DataFrame({"town": town, "age": age + rng.integers(-3, 4, n)})
    kpr.evaluate(original, avatars, known=["town", "age"]).to_html()
    assert len(figures) == 2
    for fig in figures:
        check(fig)


def test_the_analysis_charts(figures: list[Figure]) -> None:
    rng = np.random.default_rng(5)
    n = 1500
    table = pl.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(np.array(["F", "M"]), n),
            "region": rng.choice(np.array(["north", "south", "east", "west"]), n),
        }
    )
    avatars = table.with_columns(pl.col("age") + pl.Series(rng.integers(-2, 3, n)))
    analyze(
        table[:1000], avatars[:1000], candidates=["age", "sex", "region"], max_known=2,
        control=table[1000:],
    ).to_html()  # fmt: skip
    assert len(figures) >= 3
    for fig in figures:
        check(fig)


@pytest.mark.parametrize("page", ["sweep", "tune"])
def test_the_k_charts(page: str, figures: list[Figure]) -> None:
    from kpr.avatar import TuneCriteria, TuneResult

    swept = _hand_made([50, 20, 10, 5])
    result = swept if page == "sweep" else TuneResult(TuneCriteria(90.0), swept, (2, 5, 10, 20))
    result.to_html()
    assert len(figures) == 2
    for fig in figures:
        check(fig)


def test_the_membership_and_inference_charts(figures: list[Figure]) -> None:
    n = 1400
    people = pl.DataFrame(
        {
            "age": [18 + (i * 7) % 71 for i in range(n)],
            "town": [f"t{i % 13}" for i in range(n)],
            "sick": [["y", "n", "maybe"][i % 3] for i in range(n)],
        }
    )
    kpr.membership(people[:1000], people[:1000:2], holdout=people[1000:], replicates=20).to_html()
    kpr.inference(people[:1000], people[:1000], known=["age"], secret="sick").to_html()
    assert len(figures) >= 2
    for fig in figures:
        check(fig)


def test_the_protection_trace(figures: list[Figure]) -> None:
    plots.protection_trace_svg([(0, 95.0), (10, 97.0), (25, 98.5), (40, 99.2)], 99.0)
    (fig,) = figures
    check(fig)
