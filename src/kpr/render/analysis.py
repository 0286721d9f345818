"""The HTML report of an attacker-knowledge analysis (``kpr analyze --report``,
``AnalysisResult.to_html``): the main attack's rate and interval, the baselines,
the riskiest subsets of known variables, each variable's contribution, the
tolerance curve and the method.

Built from the same pieces as the evaluation report (:mod:`kpr.render.page`
for the skeleton, escaping and writing; :mod:`kpr.render.plots` for the
plots), so both look alike, escape alike and open offline. Column names are
the only data-derived text on the page, and each goes through ``esc``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from kpr.errors import InputError
from kpr.render.page import (
    count_text,
    document,
    esc,
    footer,
    headline,
    names_html,
    notebook_view,
    require_matplotlib,
    sources_line,
    warnings_section,
    write_document,
)
from kpr.render.risk import analysis_advice
from kpr.results.analysis import (
    EXPLAIN_CONTRIBUTION,
    EXPLAIN_CURVE,
    EXPLAIN_INTERVAL,
    EXPLAIN_METHOD,
    EXPLAIN_SWEEP,
    AnalysisResult,
    AttackRate,
    SweepResult,
)
from kpr.results.evaluation import format_rate, meaning

#: How many of the riskiest subsets the report shows by default.
TOP = 10

HEADING = "kpr report · what an attacker's knowledge buys them"

DATA_NOTE = (
    "This report contains no raw data: rates and counts per attack and the names of the "
    "variables only, no individual's values or row positions."
)

_ROLES = ("Original table", "Avatars", "Control")


def check_top(top: object) -> int:
    """How many subsets to show: a whole number, 0 or more."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise InputError(f"top must be a whole number, 0 or more, got {top!r}")
    return top


def _bound(percent: float) -> str:
    """An interval bound written like the rate: never "100.00" for less than 100."""
    return format_rate(percent).removesuffix(" %")


def interval_text(rate: AttackRate) -> str:
    """The rate's interval as the page writes it: ``96.51 to 96.90 %``."""
    low, high = rate.interval
    return f"{_bound(low)} to {_bound(high)} %"


def _conf(rate: AttackRate) -> str:
    return f"{rate.confidence * 100:g} %"


def _subset(known: Sequence[str]) -> str:
    """A subset as plot text (escaped later by matplotlib): ``age + sex``."""
    return " + ".join(known)


# --- the sections, top to bottom ------------------------------------------------------


def _headline(result: AnalysisResult, inputs: Sequence[str]) -> str:
    a = result.attack
    low, high = a.interval
    aside = (
        f'<p class="interval" data-kpr-interval="{low!r} {high!r}">{_conf(a)} interval<br>'
        f"<b>{interval_text(a)}</b></p>"
    )
    known = (
        f'<p class="inputs">The attacker knows: {names_html(a.known)} · tolerance '
        f"{a.tolerance * 100:g} % for numeric values · method {esc(a.method)}</p>"
    )
    explain = EXPLAIN_INTERVAL.format(conf=a.confidence * 100)
    return headline(
        a.rate,
        meaning=meaning(a.rate),
        aside=aside,
        lines=[
            known,
            sources_line(list(zip(_ROLES, inputs, strict=False))),
            f'<p class="inputs">{esc(explain)}</p>',
            f'<p class="claims">{esc(result.claims)}</p>',
        ],
    )


def _card(kind: str, tone: str, rate: AttackRate | None, what: str, explain: str) -> str:
    value = esc(format_rate(rate.rate)) if rate is not None else "&ndash;"
    data = f' data-kpr-value="{rate.rate!r}"' if rate is not None else ""
    css = f"tone-{tone}" if rate is not None else "absent"
    return (
        f'  <li class="{css}" data-kpr-baseline="{kind}"{data}><span class="num">{value}</span>'
        f'<span class="what">{what}</span><span class="explain">{explain}</span></li>'
    )


def _baselines(result: AnalysisResult, svg: str) -> str:
    a, w, c = result.attack, result.worst_case, result.control
    conf = _conf(a)
    cards = [
        _card(
            "avatars", "blue", a, "Avatars: the real rate",
            f"{conf} interval {interval_text(a)}; {count_text(a.linked)} of {count_text(a.n)} "
            "individuals linked",
        ),
        _card(
            "worst-case", "vermillion", w, "Original published as is: the worst case",
            f"{conf} interval {interval_text(w)}; avatars minus worst case: "
            f'<span class="delta">{a.rate - w.rate:+.2f} points</span>',
        ),
    ]  # fmt: skip
    if c is None:
        cards.append(
            _card(
                "control", "green", None, "Control individuals: not given",
                "individuals of the same population that were not used to make the avatars",
            )
        )  # fmt: skip
        control_text = (
            "No control table was given (<code>--control</code>, or <code>control=</code> in "
            "Python): the same attack on individuals the synthesis never saw would show how "
            "much of the risk the synthesis itself creates."
        )
    else:
        low, high = c.difference_interval
        cards.append(
            _card(
                "control", "green", c.control, "Control individuals: never used for the avatars",
                f"{conf} interval {interval_text(c.control)}; control minus real: "
                f'<span class="delta" data-kpr-difference="{c.difference!r}">'
                f"{c.difference:+.2f} points</span> ({conf} interval {low:+.2f} to "
                f"{high:+.2f})",
            )
        )  # fmt: skip
        items = "".join(f"<li>{esc(x)}</li>" for x in c.summary_lines())
        control_text = f'</p>\n <ul class="control">{items}</ul>\n <p>'

    return f"""
<section id="baselines">
 <h2>Against the baselines</h2>
 <p>The same attack against other tables: the original itself published in place of the
  avatars (what the synthesis is meant to improve on) and, when given, real individuals
  that were never used to make the avatars.</p>
 <ul class="counts">
{chr(10).join(cards)}
 </ul>
 <p>{esc(result.worst_case_explanation)}</p>
 <p>{control_text}</p>
 <figure class="kpr-plot">
{svg}
<figcaption>Each bar starts at 100 % (nobody linked) and reaches left to the rate: the
 longer the bar, the more individuals the attacker links to a unique record. The whiskers
 show the {conf} interval.</figcaption>
 </figure>
</section>"""


def _no_sweep(section: str, title: str) -> str:
    return f"""
<section id="{section}">
 <h2>{title}</h2>
 <p>No sweep was run: name the variables an attacker might know
  (<code>--candidates</code>, or <code>candidates=</code> in Python) to attack every
  combination of them.</p>
</section>"""


def _subsets(sweep: SweepResult, shown: list[AttackRate], svg: str | None) -> str:
    title = "The riskiest combinations of known variables"
    conf = _conf(shown[0]) if shown else ""
    rows = [
        f'  <tr><td class="num">{i}</td><td class="value">{names_html(e.known)}</td>'
        f'<td class="num">{esc(format_rate(e.rate))}</td><td class="num">{interval_text(e)}</td>'
        f'<td class="num">{count_text(e.linked)}</td>'
        f'<td class="num">{count_text(e.unique_originals)}</td></tr>'
        for i, e in enumerate(shown, 1)
    ]
    attacks = (
        f"every combination of up to {sweep.max_known} of the {len(sweep.candidates)} "
        f"candidate variables ({names_html(sweep.candidates)})"
    )
    if shown:
        lead = f"The {len(shown)} riskiest of {count_text(len(sweep.entries))} attacks: {attacks}."
    else:
        lead = (
            f"{count_text(len(sweep.entries))} attacks were made, {attacks}; none is listed "
            "here (<code>--top 0</code>)."
        )
    figure = ""
    if svg is not None:
        figure = f"""<figure class="kpr-plot">
{svg}
<figcaption>One bar per combination, the riskiest at the top. Each bar starts at 100 %
 (nobody linked) and reaches left to the rate when the attacker knows those variables;
 the whiskers show the {conf} interval.</figcaption>
 </figure>"""
    table = ""
    if rows:
        table = _table(
            '<tr><th class="num">Rank</th><th>The attacker knows</th><th class="num">Rate</th>\n'
            f'   <th class="num">{conf} interval</th><th class="num">Linked</th>\n'
            '   <th class="num">Unique originals</th></tr>',
            rows,
        )
    return f"""
<section id="subsets">
 <h2>{title}</h2>
 <p>{lead} {esc(EXPLAIN_SWEEP)}</p>
 {figure}
 {table}
</section>"""


def _table(head: str, rows: Sequence[str]) -> str:
    """A table of ``rows`` under the header row ``head``, scrolling sideways when wide."""
    return f"""<div class="table-wrap"><table>
  <thead>{head}</thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>"""


def _contributions(sweep: SweepResult, svg: str) -> str:
    rows = [
        f'  <tr><td class="value">{esc(x.variable)}</td>'
        f'<td class="num" data-kpr-contribution="{x.mean_decrease!r}">'
        f'{x.mean_decrease:+.2f}</td><td class="num">{count_text(x.subsets)}</td></tr>'
        for x in sweep.contributions
    ]
    first = sweep.contributions[0]
    most = (
        f"Knowing <b>{esc(first.variable)}</b> helps the attacker most: it lowers the rate by "
        f"{first.mean_decrease:.2f} points on average."
        if first.mean_decrease > 0
        else "No variable lowers the rate on average."
    )
    head = (
        '<tr><th>Variable</th><th class="num">Average drop of the rate (points)</th>\n'
        '   <th class="num">Combinations averaged over</th></tr>'
    )
    return f"""
<section id="contributions">
 <h2>What each variable adds to the risk</h2>
 <p>{esc(EXPLAIN_CONTRIBUTION)}</p>
 <p>{most}</p>
 <figure class="kpr-plot">
{svg}
<figcaption>Orange-red bars: knowing the variable lowers the rate (it helps the attacker);
 a green bar would mean it raises the rate.</figcaption>
 </figure>
 <details><summary>The numbers</summary>
 {_table(head, rows)}
 </details>
</section>"""


def _tolerance(result: AnalysisResult, svg: str | None) -> str:
    points = sorted(result.tolerance_curve, key=lambda p: p.tolerance)
    if not points or svg is None:
        return """
<section id="tolerance">
 <h2>The rate at other tolerances</h2>
 <p>No tolerance curve was computed (<code>--tolerances</code>, or
  <code>tolerances=</code> in Python).</p>
</section>"""
    conf = _conf(points[0])
    circled = (
        "the circled point is the attack at the top of this page."
        if any(p.tolerance == result.attack.tolerance for p in points)
        else f"the attack at the top of this page (tolerance {result.attack.tolerance * 100:g} "
        "%) is not on the curve."
    )
    rows = [
        f'  <tr><td class="num">{p.tolerance * 100:g} %</td>'
        f'<td class="num">{esc(format_rate(p.rate))}</td><td class="num">{interval_text(p)}</td>'
        f'<td class="num">{count_text(p.linked)}</td>'
        f'<td class="num">{count_text(p.unique_originals)}</td></tr>'
        for p in points
    ]
    head = (
        '<tr><th class="num">Tolerance</th><th class="num">Rate</th>\n'
        f'   <th class="num">{conf} interval</th><th class="num">Linked</th>\n'
        '   <th class="num">Unique originals</th></tr>'
    )
    return f"""
<section id="tolerance">
 <h2>The rate at other tolerances</h2>
 <p>The tolerance says how close two numeric values must be to count as the same
  (a share of the variable's mean). {esc(EXPLAIN_CURVE)}</p>
 <figure class="kpr-plot">
{svg}
<figcaption>The {"band" if len(points) > 1 else "whisker"} is the {conf} interval;
 {circled}</figcaption>
 </figure>
 <details><summary>The numbers</summary>
 {_table(head, rows)}
 </details>
</section>"""


def _method(result: AnalysisResult) -> str:
    a = result.attack
    return f"""
<section id="method">
 <h2>How the attack was made</h2>
 <p>Method <b>{esc(a.method)}</b>: {esc(EXPLAIN_METHOD[a.method])}</p>
 <p>The rate at the top counts the {count_text(a.n)} original individuals, of whom
  {count_text(a.unique_originals)} have known values that occur only once in the original
  table, attacked through {count_text(a.n_avatars)} avatars: rate = 100 &times;
  (1 &minus; linked / n) = 100 &times; (1 &minus; {count_text(a.linked)} /
  {count_text(a.n)}) = {esc(format_rate(a.rate))}.</p>
</section>"""


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
    require_matplotlib()
    from kpr.render import plots

    top = check_top(top)
    labels = list(inputs or ())
    if inputs is not None and len(labels) not in (2, 3):
        raise InputError(
            "inputs names the original, the avatar and optionally the control tables: "
            "give two or three labels"
        )
    a, w, c = result.attack, result.worst_case, result.control
    bars = [
        plots.RateBar("Avatars (real rate)", a.rate, *a.interval, color=plots.BLUE),
        plots.RateBar("Original published (worst case)", w.rate, *w.interval,
                      color=plots.VERMILLION),
    ]  # fmt: skip
    if c is not None:
        bars.append(
            plots.RateBar("Control individuals", c.control.rate, *c.control.interval,
                          color=plots.BLUISH_GREEN)
        )  # fmt: skip
    baseline_svg = plots.rate_bars_svg(
        bars,
        "kprb",
        title="The same attack against each table",
        label="Bar chart comparing the protection rate of the avatars with the worst case "
        "(the original published)" + (" and the control individuals" if c else "") + ".",
    )
    parts = [_headline(result, labels), _baselines(result, baseline_svg)]
    s = result.sweep
    if s is None:
        parts.append(_no_sweep("subsets", "The riskiest combinations of known variables"))
        parts.append(_no_sweep("contributions", "What each variable adds to the risk"))
    else:
        shown = s.top(top)
        subsets_svg = None
        if shown:
            subsets_svg = plots.rate_bars_svg(
                [plots.RateBar(_subset(e.known), e.rate, *e.interval) for e in shown],
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
        parts.append(_subsets(s, shown, subsets_svg))
        parts.append(_contributions(s, contribution_svg))
    curve_svg = None
    if result.tolerance_curve:
        curve_svg = plots.tolerance_svg(
            [plots.CurvePoint(p.tolerance, p.rate, *p.interval) for p in result.tolerance_curve],
            a.tolerance,
            "kprt",
            confidence=a.confidence,
        )
    parts += [
        _tolerance(result, curve_svg),
        _method(result),
        warnings_section(result.warnings),
        _next(result, kpr_avatars or result.correct_links is not None),
        footer(esc(DATA_NOTE), now or datetime.now(UTC)),
    ]
    title = f"Knowledge Protection Rate {format_rate(a.rate)} — kpr analysis"
    return document(title, "".join(parts), HEADING)


def write_analysis(
    result: AnalysisResult,
    path: str | os.PathLike[str],
    *,
    top: int = TOP,
    inputs: Sequence[str] | None = None,
    kpr_avatars: bool = False,
) -> Path:
    """Check the target, render, then write atomically: a failure leaves no file."""
    return write_document(
        path, lambda: render_analysis(result, top=top, inputs=inputs, kpr_avatars=kpr_avatars)
    )


def _next(result: AnalysisResult, kpr_avatars: bool) -> str:
    items = "".join(f'<p class="advice">{esc(x)}</p>' for x in analysis_advice(result, kpr_avatars))
    return f"""
<section id="next">
 <h2>What to do next</h2>
 {items}
</section>"""


def _rate_cells(a: AttackRate) -> list[str]:
    low, high = a.interval
    return [esc(format_rate(a.rate)), f"{low:.2f} to {high:.2f} %", count_text(a.linked)]


def repr_analysis(result: AnalysisResult, top: int = 5) -> str:
    """Jupyter's view of an analysis: the attack, its baselines and the riskiest
    subsets of the sweep, as one table; no plots."""
    a = result.attack
    rows = [["the avatars", names_html(a.known), *_rate_cells(a)]]
    rows.append(
        ["worst case (the originals)", names_html(a.known), *_rate_cells(result.worst_case)]
    )
    if result.control is not None:
        rows.append(["control", names_html(a.known), *_rate_cells(result.control.control)])
    if result.sweep is not None:
        rows += [
            ["riskiest subset", names_html(e.known), *_rate_cells(e)] for e in result.sweep.top(top)
        ]
    headline_html = (
        f'<span style="font-size:1.8em;font-weight:bold" data-kpr-rate="{a.rate!r}">'
        f"{esc(format_rate(a.rate))}</span> "
        f"<span>Knowledge Protection Rate ({esc(a.method)})</span>"
    )
    return notebook_view(
        headline_html,
        meaning(a.rate),
        ["attack", "known", "KPR", f"{a.confidence * 100:g} % interval", "linked"],
        rows,
        result.warnings,
        'Full report with plots: <code>result.to_html("analysis.html")</code>',
    )
