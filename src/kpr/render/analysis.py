"""The HTML report of an attacker-knowledge analysis (``kpr analyze --report``,
``AnalysisResult.to_html``): the main attack's rate and interval, the baselines,
the riskiest subsets of known variables, each variable's contribution, the
tolerance curve and the method.

Built from the same pieces as the evaluation report (:mod:`kpr.render.page`
for the skeleton, escaping and writing; :mod:`kpr.render.plots` for the
plots), so both look alike, escape alike and open offline. Column names are
the only data-derived text on the page, and each goes through ``esc``. This
module draws the plots and assembles the page; the sections' HTML lives in
:mod:`kpr.render.analysis_sections`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from kpr.checks import whole_number
from kpr.errors import InputError
from kpr.render import page
from kpr.render.analysis_sections import (
    baselines_section,
    contributions_section,
    headline_section,
    method_section,
    next_section,
    no_sweep_section,
    subset_label,
    subsets_section,
    tolerance_section,
)
from kpr.render.page import esc
from kpr.results.analysis import AnalysisResult
from kpr.results.evaluation import format_rate, meaning
from kpr.results.rates import AttackRate

#: How many of the riskiest subsets the report shows by default.
TOP = 10

HEADING = "kpr report · what an attacker's knowledge buys them"

DATA_NOTE = (
    "This report contains no raw data: rates and counts per attack and the names of the "
    "variables only, no individual's values or row positions."
)


# --- entry points ----------------------------------------------------------------------


def render_analysis(
    result: AnalysisResult,
    *,
    top: int = TOP,
    inputs: Sequence[str] | None = None,
    now: datetime | None = None,
    kpr_avatars: bool = False,
) -> str:
    """The analysis report as one HTML document (needs matplotlib for the plots).

    ``top`` is how many of the riskiest subsets to show; ``inputs`` labels the
    original, the avatar and (optionally) the control tables; ``kpr_avatars``
    (or a pairing) says kpr's generator made the avatars (the advice speaks of k).
    """
    page.require_matplotlib()
    from kpr.render import plots

    top = whole_number(top, "top", 0)  # how many subsets to show
    labels = list(inputs or ())
    if inputs is not None and len(labels) not in (2, 3):
        raise InputError(
            "inputs names the original, the avatar and optionally the control tables: "
            "give two or three labels"
        )
    a = result.attack
    parts = [headline_section(result, labels), baselines_section(result, _baseline_svg(result))]
    parts += _sweep_parts(result, top)
    curve_svg = None
    if result.tolerance_curve:
        curve_svg = plots.tolerance_svg(
            [plots.CurvePoint(p.tolerance, p.rate, *p.interval) for p in result.tolerance_curve],
            a.tolerance,
            "kprt",
            confidence=a.confidence,
        )
    parts += [
        tolerance_section(result, curve_svg),
        method_section(result),
        page.warnings_section(result.warnings),
        next_section(result, kpr_avatars or result.correct_links is not None),
        page.footer(esc(DATA_NOTE), now or datetime.now(UTC)),
    ]
    title = f"Knowledge Protection Rate {format_rate(a.rate)} — kpr analysis"
    return page.document(title, "".join(parts), HEADING)


def _baseline_svg(result: AnalysisResult) -> str:
    """The same attack against each table, as bars."""
    from kpr.render import plots

    a, w, c = result.attack, result.original_published, result.control
    floor = result.worst_case
    bars = [
        plots.RateBar("Avatars (real rate)", a.rate, *a.interval, color=plots.BLUE),
        plots.RateBar("Original published as is", w.rate, *w.interval, color=plots.VERMILLION),
        plots.RateBar("Worst case (all of U linked)", floor, floor, floor, color=plots.GREY),
    ]  # fmt: skip
    if c is not None:
        bars.append(
            plots.RateBar("Control individuals", c.control.rate, *c.control.interval,
                          color=plots.BLUISH_GREEN)
        )  # fmt: skip
    return plots.rate_bars_svg(
        bars,
        "kprb",
        title="The same attack against each table",
        label="Bar chart comparing the protection rate of the avatars with the original "
        "published as is, the worst case" + (" and the control individuals" if c else "") + ".",
    )


def _sweep_parts(result: AnalysisResult, top: int) -> list[str]:
    """The riskiest subsets and each variable's contribution (or why they are absent)."""
    from kpr.render import plots

    s = result.sweep
    if s is None:
        return [
            no_sweep_section("subsets", "The riskiest combinations of known variables"),
            no_sweep_section("contributions", "What each variable adds to the risk"),
        ]
    shown = s.top(top)
    subsets_svg = None
    if shown:
        subsets_svg = plots.rate_bars_svg(
            [plots.RateBar(subset_label(e.known), e.rate, *e.interval) for e in shown],
            "kprs",
            title="Riskiest combinations first",
            label=f"Bar chart of the protection rate of the {len(shown)} riskiest "
            "combinations of known variables, lowest first.",
        )
    contribution_svg = plots.contribution_svg(
        [x.variable for x in s.contributions],
        [x.mean_decrease for x in s.contributions],
        "kprc",
    )
    return [subsets_section(s, shown, subsets_svg), contributions_section(s, contribution_svg)]


def write_analysis(
    result: AnalysisResult,
    path: str | os.PathLike[str],
    *,
    top: int = TOP,
    inputs: Sequence[str] | None = None,
    kpr_avatars: bool = False,
) -> Path:
    """Check the target, render, then write atomically: a failure leaves no file."""
    return page.write_document(
        path, lambda: render_analysis(result, top=top, inputs=inputs, kpr_avatars=kpr_avatars)
    )


def _rate_cells(a: AttackRate) -> list[str]:
    low, high = a.interval
    return [esc(format_rate(a.rate)), f"{low:.2f} to {high:.2f} %", page.count_text(a.linked)]


def repr_analysis(result: AnalysisResult, top: int = 5) -> str:
    """Jupyter's view of an analysis: the attack, its baselines and the riskiest
    subsets of the sweep, as one table; no plots."""
    a = result.attack
    rows = [["the avatars", page.names_html(a.known), *_rate_cells(a)]]
    rows.append(
        [
            "original published as is",
            page.names_html(a.known),
            *_rate_cells(result.original_published),
        ]
    )
    rows.append(
        ["worst case (all of U linked)", page.names_html(a.known),
         esc(format_rate(result.worst_case)), "", page.count_text(a.unique_originals)]
    )  # fmt: skip
    if result.control is not None:
        rows.append(["control", page.names_html(a.known), *_rate_cells(result.control.control)])
    if result.sweep is not None:
        rows += [
            ["riskiest subset", page.names_html(e.known), *_rate_cells(e)]
            for e in result.sweep.top(top)
        ]
    headline_html = (
        f'<span style="font-size:1.8em;font-weight:bold" data-kpr-rate="{a.rate!r}">'
        f"{esc(format_rate(a.rate))}</span> "
        f"<span>Knowledge Protection Rate ({esc(a.method)})</span>"
    )
    return page.notebook_view(
        headline_html,
        meaning(a.rate),
        ["attack", "known", "KPR", f"{a.confidence * 100:g} % interval", "linked"],
        rows,
        result.warnings,
        'Full report with plots: <code>result.to_html("analysis.html")</code>',
    )
