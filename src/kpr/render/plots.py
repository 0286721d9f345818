"""The reports' plots, drawn with matplotlib into inline SVG.

Only ``matplotlib.figure.Figure`` is used (no pyplot, so no global figure
state), with rcParams set for the duration of each drawing only. Text stays
text (``svg.fonttype='none'``): small files, searchable, and matplotlib
XML-escapes it. Mathtext is off, so a ``$`` in a category is just a dollar.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

from kpr.render.page import percent_text
from kpr.render.risk import Group, VariableRisk, shorten
from kpr.results.evaluation import format_rate

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
BLUE = "#0072B2"  # originals
ORANGE = "#E69F00"  # avatars
VERMILLION = "#D55E00"  # linked
BLUISH_GREEN = "#009E73"  # control individuals
GREY = "#333333"

_RC: Any = {  # matplotlib types the keys as a Literal of every rcParam
    "svg.fonttype": "none",
    "svg.hashsalt": "kpr-report",  # stable ids: the same result gives the same file
    "text.parse_math": False,
    "text.usetex": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelcolor": GREY,
    "xtick.color": GREY,
    "ytick.color": GREY,
}


@contextmanager
def _drawing() -> Iterator[None]:
    """rcParams for one drawing, restored afterwards; silence missing-glyph
    warnings (a category in a script DejaVu lacks still shows in the browser)."""
    with matplotlib.rc_context(_RC), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph .* missing", category=UserWarning)
        yield


@contextmanager
def chart(width: float, height: float, title: str = "") -> Iterator[tuple[Figure, Axes]]:
    """One chart of a report: a ``width`` x ``height`` inches figure of one axes, its
    ``title`` on the left as every chart's, drawn under the report's rcParams."""
    with _drawing():
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.subplots()
        ax.set_title(title, loc="left")
        yield fig, ax


#: A percentage as the report's text writes it: 3.3 %, 12 %.
share_text = percent_text


def _tick_percent(x: float, _pos: object = None) -> str:
    return f"{x:g} %"


def _tick_count(x: float, _pos: object = None) -> str:
    return f"{x:,.0f}"


def _everybody(overall: float) -> dict[str, Any]:
    """Style and legend entry of the reference line: the share linked over everybody."""
    return {
        "color": GREY,
        "linestyle": "--",
        "linewidth": 1,
        "label": f"Linked, over everybody ({share_text(100.0 * overall)})",
    }


def legend_above(fig: Figure, *axes: Axes, ncols: int = 2) -> None:
    """One legend for ``axes``, above the plots and outside them: inside, a legend sat
    on data lines wherever the data happened to run."""
    handles: list[Any] = []
    labels: list[str] = []
    for ax in axes:
        more, names = ax.get_legend_handles_labels()
        handles += more
        labels += names
    fig.legend(handles, labels, loc="outside upper center", ncols=ncols, frameon=False, fontsize=8)


def _note(
    ax: Axes, text: str, xy: tuple[float, float], *, boxed: bool = True, **kwargs: Any
) -> None:
    """Small grey text, on a white box (``boxed``) to stay readable over a grid or a
    dashed line."""
    box = {"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"}
    ax.annotate(
        text,
        xy=xy,
        textcoords="offset points",
        fontsize=8,
        color=GREY,
        bbox=box if boxed else None,
        **kwargs,
    )


_ID = re.compile(r'\bid="([^"]+)"')


def to_inline_svg(fig: Figure, key: str, label: str) -> str:
    """The figure as an ``<svg>`` element to put in HTML: no XML prolog, no
    metadata, no global stylesheet, ids made unique to this figure, and
    ``role="img"`` with an ``aria-label`` and a ``<title>`` for screen readers."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'<style type="text/css">.*?</style>\s*', "", svg, flags=re.S)
    ids = set(_ID.findall(svg))
    if ids:
        svg = re.sub(
            r'(\bid="|url\(#|href="#)([^"\)]+)',
            lambda m: m.group(1) + (f"{key}-{m.group(2)}" if m.group(2) in ids else m.group(2)),
            svg,
        )
    aria = escape(label, quote=True)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{aria}" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + f"\n <title>{escape(label)}</title>" + svg[head_end:]


def _on_value_axis(groups: Sequence[Group]) -> bool:
    """Whether the classes can be drawn at their bounds: every bound finite and
    the whole span a finite float (near the float limit it is not: matplotlib
    then cannot place ticks, so the classes are drawn side by side instead)."""
    bounds = [b for g in groups for b in (g.lower, g.upper) if b is not None]
    if not bounds or not all(math.isfinite(b) for b in bounds):
        return not bounds
    span = max(bounds) - min(bounds)
    return math.isfinite(span) and span < 1e300


def _bar_positions(groups: Sequence[Group]) -> tuple[list[float], list[float], bool]:
    """Each bar's left edge and width, and whether they are the class bounds (else
    one slot per class)."""
    if _on_value_axis(groups):
        lowers = [g.lower or 0.0 for g in groups]
        return lowers, [(g.upper or 0.0) - (g.lower or 0.0) for g in groups], True
    return [float(i) for i in range(len(groups))], [1.0] * len(groups), False


def _linked_panel(
    fig: Figure, ax: Axes, axis: Literal["x", "y"], overall: float, title: str, label: str
) -> None:
    """The share-linked panel's dressing, its percent scale on ``axis`` (the bars'
    length): everybody's share as a line, the legend, the title, the scale from 0."""
    if axis == "y":
        ax.axhline(100.0 * overall, **_everybody(overall))
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        scale: Axis = ax.yaxis
    else:
        ax.axvline(100.0 * overall, **_everybody(overall))
        ax.set_xlabel(label)
        ax.set_xlim(left=0)
        scale = ax.xaxis
    scale.set_major_formatter(FuncFormatter(_tick_percent))
    fig.legend(loc="outside upper right", ncols=3, frameon=False)
    ax.set_title(title, loc="left")


def numeric_svg(risk: VariableRisk, overall: float, key: str) -> str:
    """Originals vs avatars per class (top) and the share linked per class (bottom)."""
    groups = risk.groups
    lowers, widths, on_values = _bar_positions(groups)
    halves = [w * 0.45 for w in widths]
    with _drawing():
        fig = Figure(figsize=(7.6, 4.8), layout="constrained")
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
        top.bar(
            lowers,
            [g.originals for g in groups],
            halves,
            align="edge",
            color=BLUE,
            label="Original individuals",
        )
        top.bar(
            [lo + h for lo, h in zip(lowers, halves, strict=True)],
            [g.avatars for g in groups],
            halves,
            align="edge",
            color=ORANGE,
            label="Avatars",
        )
        top.set_title("How many records fall in each class", loc="left")
        top.set_ylabel("Number of records")
        top.yaxis.set_major_locator(MaxNLocator(integer=True))
        top.yaxis.set_major_formatter(FuncFormatter(_tick_count))
        bottom.bar(
            lowers,
            [100.0 * g.share for g in groups],
            [w * 0.9 for w in widths],
            align="edge",
            color=VERMILLION,
        )
        _linked_panel(
            fig, bottom, "y", overall, "Share of the class's originals linked to a unique avatar",
            "Linked",
        )  # fmt: skip
        per_bar = f"; {risk.merged} classes per bar" if risk.merged > 1 else ""
        bottom.set_xlabel(f"{shorten(risk.name, 48)} (classes of the attack{per_bar})")
        if not on_values:
            bottom.set_xticks([x + w / 2 for x, w in zip(lowers, widths, strict=True)])
            bottom.set_xticklabels([shorten(g.label, 18) for g in groups], rotation=30, ha="right")
        label = (
            f"Bar chart for {risk.name}: number of original individuals and avatars per class, "
            "and the share of the originals in each class that are linked to a unique avatar."
        )
        return to_inline_svg(fig, key, label)


def categorical_svg(risk: VariableRisk, overall: float, key: str) -> str:
    """Per value: originals vs avatars (left) and the share linked (right)."""
    groups: list[Group] = risk.groups
    names = [shorten(g.label) for g in groups]
    ys = list(range(len(groups)))
    with _drawing():
        fig = Figure(figsize=(7.6, 1.5 + 0.3 * len(groups)), layout="constrained")
        left, right = fig.subplots(1, 2, sharey=True)
        left.barh(
            [y - 0.2 for y in ys],
            [g.originals for g in groups],
            0.4,
            color=BLUE,
            label="Original individuals",
        )
        left.barh(
            [y + 0.2 for y in ys], [g.avatars for g in groups], 0.4, color=ORANGE, label="Avatars"
        )
        left.set_yticks(ys, names)
        left.invert_yaxis()
        left.set_title("Records holding the value", loc="left")
        left.set_xlabel("Number of records")
        left.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
        left.xaxis.set_major_formatter(FuncFormatter(_tick_count))
        right.barh(ys, [100.0 * g.share for g in groups], 0.6, color=VERMILLION)
        _linked_panel(
            fig, right, "x", overall, "Linked to a unique avatar", "% of the value's originals"
        )
        right.tick_params(axis="y", length=0)
        for y, g in zip(ys, groups, strict=True):
            _note(
                right,
                f"{g.linked:,} of {g.originals:,}",
                (100.0 * g.share, y),
                xytext=(3, 0),
                va="center",
            )
        right.margins(x=0.3)
        label = (
            f"Bar chart for {risk.name}: for each of the values shown, the number of original "
            "individuals and avatars, and the share of its originals linked to a unique avatar."
        )
        return to_inline_svg(fig, key, label)


def variable_svg(risk: VariableRisk, overall: float, key: str) -> str | None:
    """The plot of one variable, or None when there is nothing to draw."""
    if not risk.groups:
        return None
    if risk.kind.binned:
        return numeric_svg(risk, overall, key)
    return categorical_svg(risk, overall, key)


# --- the analysis report ----------------------------------------------------------------

#: Grid lines behind the bars, light enough not to compete with them.
GRID: dict[str, Any] = {"color": "#dddddd", "linewidth": 0.6}


@dataclass(frozen=True)
class RateBar:
    """One row of :func:`rate_bars_svg`: a label, a rate and its interval, in percent."""

    label: str
    rate: float
    low: float
    high: float
    color: str = BLUE


@dataclass(frozen=True)
class CurvePoint:
    """One point of :func:`tolerance_svg`: a tolerance (0..1), the rate and its interval."""

    tolerance: float
    rate: float
    low: float
    high: float


def _bar_height(rows: int) -> float:
    """Figure height that keeps bars the same thickness whatever their number."""
    return 1.35 + 0.34 * rows


def rate_bars_svg(bars: Sequence[RateBar], key: str, *, title: str, label: str) -> str:
    """One horizontal bar per rate, from 100 % (nobody singled out) left to the rate,
    with the interval as whiskers and the rate written beside it.

    Anchoring the bars at 100 % rather than 0 keeps the small differences between
    rates near 100 % visible without cutting off the bars' base: a bar's length is
    the share of people the attacker links, so the longer the bar, the riskier.
    """
    if not bars:
        raise ValueError("no rates to plot")
    ys = list(range(len(bars)))
    lowest = min(b.low for b in bars)
    span = max(100.0 - lowest, 0.05)
    with chart(7.6, _bar_height(len(bars)), title) as (fig, ax):
        ax.barh(ys, [b.rate - 100.0 for b in bars], 0.6, left=100.0, color=[b.color for b in bars])
        ax.errorbar(
            [b.rate for b in bars],
            ys,
            xerr=[[b.rate - b.low for b in bars], [b.high - b.rate for b in bars]],
            fmt="none",
            ecolor=GREY,
            elinewidth=1,
            capsize=3,
        )
        ax.axvline(100.0, color=GREY, linewidth=1)
        ax.set_yticks(ys, [shorten(b.label, 48) for b in bars])
        ax.invert_yaxis()
        ax.tick_params(axis="y", length=0)
        left, right = max(0.0, lowest - 0.3 * span), 100.0 + 0.02 * span
        ax.set_xlim(left, right)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        ax.xaxis.set_major_formatter(FuncFormatter(_tick_percent))
        ax.grid(axis="x", **GRID)
        ax.set_axisbelow(True)
        ax.set_xlabel("Protection rate (higher is safer)")
        for y, b in zip(ys, bars, strict=True):
            if (b.low - left) / (right - left) >= 0.12:  # room left of the whisker
                _note(ax, format_rate(b.rate), (b.low, y), xytext=(-5, 0), ha="right", va="center")
            else:  # near the axis (a rate near 0): write it on the bar, right of the whisker
                _note(ax, format_rate(b.rate), (b.high, y), xytext=(5, 0), ha="left", va="center")
        return to_inline_svg(fig, key, label)


def contribution_svg(names: Sequence[str], points: Sequence[float], key: str) -> str:
    """Each variable's mean decrease of the rate, in percentage points, in the given
    order (largest first); a negative contribution (the variable protects) is green."""
    if not names:
        raise ValueError("no variables to plot")
    ys = list(range(len(names)))
    title = "How much knowing each variable helps the attacker"
    with chart(7.6, _bar_height(len(names)), title) as (fig, ax):
        colors = [VERMILLION if p >= 0 else BLUISH_GREEN for p in points]
        ax.barh(ys, list(points), 0.6, color=colors)
        ax.axvline(0.0, color=GREY, linewidth=1)
        ax.set_yticks(ys, [shorten(n, 48) for n in names])
        ax.invert_yaxis()
        ax.tick_params(axis="y", length=0)
        ax.margins(x=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
        ax.grid(axis="x", **GRID)
        ax.set_axisbelow(True)
        ax.set_xlabel("Average drop of the rate when the attacker also knows it (points)")
        for y, p in zip(ys, points, strict=True):
            right = p >= 0
            _note(
                ax,
                f"{p:+.2f} points",
                (p, y),
                xytext=(4 if right else -4, 0),
                ha="left" if right else "right",
                va="center",
            )
        label = (
            "Bar chart: for each candidate variable, how many percentage points the "
            "protection rate drops, on average, when the attacker also knows it."
        )
        return to_inline_svg(fig, key, label)


def _rate_axis(ax: Axes) -> None:
    """A rate's y axis in percent, its ticks inside 0..100 % (105 % would read as a
    possible rate); room above 100 % is kept for the notes, little below 0 %."""
    low, high = ax.get_ylim()
    low = max(low, -0.03 * (high - low))
    ticks = MaxNLocator(nbins=5).tick_values(low, high)
    ax.set_yticks([t for t in ticks if max(low, 0.0) <= t <= min(high, 100.0)])
    ax.set_ylim(low, high)
    ax.yaxis.set_major_formatter(FuncFormatter(_tick_percent))


def _circle_current(ax: Axes, pts: Sequence[CurvePoint], current: float | None) -> None:
    """Circle the point of the main attack's tolerance, when the curve has it."""
    here = [p for p in pts if current is not None and p.tolerance == current]
    if here:
        ax.plot(
            [100.0 * here[0].tolerance], [here[0].rate], linestyle="none", marker="o",
            markersize=12, markerfacecolor="none", markeredgecolor=VERMILLION,
            markeredgewidth=2,
            label=f"The attack above (tolerance {100.0 * here[0].tolerance:g} %)",
        )  # fmt: skip


def tolerance_svg(
    points: Sequence[CurvePoint], current: float | None, key: str, *, confidence: float
) -> str:
    """The rate against the tolerance (log scale) with its interval as a band (a
    whisker for a single tolerance); the point at ``current`` (the tolerance of the
    main attack) is circled."""
    if not points:
        raise ValueError("no points to plot")
    pts = sorted(points, key=lambda p: p.tolerance)
    xs = [100.0 * p.tolerance for p in pts]
    rates = [p.rate for p in pts]
    with chart(7.6, 3.8, "The rate at each tolerance") as (fig, ax):
        interval = f"{confidence * 100:g} % interval"
        if len(pts) > 1:
            ax.fill_between(
                xs, [p.low for p in pts], [p.high for p in pts], color=BLUE, alpha=0.18,
                linewidth=0, label=interval,
            )  # fmt: skip
        else:  # a band needs two points: show the interval as a whisker
            ax.errorbar(
                xs, rates, yerr=[[rates[0] - pts[0].low], [pts[0].high - rates[0]]],
                fmt="none", ecolor=BLUE, elinewidth=1.5, capsize=4, label=interval,
            )  # fmt: skip
        ax.plot(xs, rates, color=BLUE, marker="o", markersize=5, linewidth=2, label="Rate")
        _circle_current(ax, pts, current)
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{x:g} %" for x in xs])
        ax.xaxis.set_minor_locator(NullLocator())
        if len(xs) == 1:
            ax.set_xlim(xs[0] / 2, xs[0] * 2)
        ax.margins(x=0.08, y=0.3)
        _rate_axis(ax)
        ax.grid(axis="y", **GRID)
        ax.set_axisbelow(True)
        for x, p in zip(xs, pts, strict=True):
            _note(
                ax, format_rate(p.rate), (x, p.high), boxed=False, xytext=(0, 4), ha="center",
                va="bottom",
            )  # fmt: skip
        fig.legend(loc="outside upper right", ncols=3, frameon=False)
        ax.set_xlabel("Tolerance for numeric values: how close counts as a match (% of the mean)")
        ax.set_ylabel("Protection rate")
        label = (
            "Line chart of the Knowledge Protection Rate at each tolerance, "
            f"from {xs[0]:g} % to {xs[-1]:g} %, with its {confidence * 100:g} % interval as a band."
        )
        return to_inline_svg(fig, key, label)


def protection_trace_svg(
    trace: Sequence[tuple[int, float]], target: float, key: str = "protect-trace"
) -> str:
    """The worst attack's rate against the cells changed, as protect proceeds, with
    the target as a dashed line."""
    cells = [c for c, _ in trace]
    rates = [r for _, r in trace]
    with chart(7.6, 3.2, "The rate as the optimiser proceeds") as (fig, ax):
        ax.step(cells, rates, where="post", color=BLUE, linewidth=1.5, label="worst attack")
        ax.axhline(target, **{**_everybody(0.0), "label": f"target {format_rate(target)}"})
        ax.xaxis.set_major_formatter(FuncFormatter(_tick_count))
        ax.yaxis.set_major_formatter(FuncFormatter(_tick_percent))
        ax.grid(axis="y", **GRID)
        ax.set_axisbelow(True)
        ax.set_xlabel("Cells changed so far")
        ax.set_ylabel("Protection rate")
        legend_above(fig, ax)
        return to_inline_svg(
            fig, key, f"Worst rate against cells changed, up to {format_rate(max(rates))}"
        )
