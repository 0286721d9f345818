"""The report's plots, drawn with matplotlib into inline SVG.

Only ``matplotlib.figure.Figure`` is used (no pyplot, so no global figure
state), with rcParams set for the duration of each drawing only. Text stays
text (``svg.fonttype='none'``): small files, searchable, and matplotlib
XML-escapes it. Mathtext is off, so a ``$`` in a category is just a dollar.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from kpr.metric.plan import Kind
from kpr.report.risk import Group, VariableRisk, shorten

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
BLUE = "#0072B2"  # originals
ORANGE = "#E69F00"  # avatars
VERMILLION = "#D55E00"  # linked
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


def share_text(percent: float) -> str:
    """A percentage as the report's text writes it: 3.3 %, 12 %."""
    return f"{percent:.0f} %" if percent == 0 or percent >= 10 else f"{percent:.1f} %"


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


def _note(ax: Axes, text: str, xy: tuple[float, float], **kwargs: Any) -> None:
    """Small grey text on a white box, readable over a grid or a dashed line."""
    ax.annotate(
        text,
        xy=xy,
        textcoords="offset points",
        fontsize=8,
        color=GREY,
        bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
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


def numeric_svg(risk: VariableRisk, overall: float, key: str) -> str:
    """Originals vs avatars per class (top) and the share linked per class (bottom)."""
    groups = risk.groups
    lowers = [g.lower or 0.0 for g in groups]
    widths = [(g.upper or 0.0) - (g.lower or 0.0) for g in groups]
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
        bottom.axhline(100.0 * overall, **_everybody(overall))
        fig.legend(loc="outside upper right", ncols=3, frameon=False)
        bottom.set_title("Share of the class's originals linked to a unique avatar", loc="left")
        bottom.set_ylabel("Linked")
        bottom.yaxis.set_major_formatter(FuncFormatter(_tick_percent))
        bottom.set_ylim(bottom=0)
        per_bar = f"; {risk.merged} classes per bar" if risk.merged > 1 else ""
        bottom.set_xlabel(f"{shorten(risk.name, 48)} (classes of the attack{per_bar})")
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
        right.axvline(100.0 * overall, **_everybody(overall))
        fig.legend(loc="outside upper right", ncols=3, frameon=False)
        right.set_title("Linked to a unique avatar", loc="left")
        right.set_xlabel("% of the value's originals")
        right.xaxis.set_major_formatter(FuncFormatter(_tick_percent))
        right.set_xlim(left=0)
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
    if risk.kind is Kind.NUMERIC:
        return numeric_svg(risk, overall, key)
    return categorical_svg(risk, overall, key)
