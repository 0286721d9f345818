"""The HTML report of a result: one self-contained file that opens offline.

Plain Python string building; every value that comes from the data or the
user (column names, category values, warnings, file labels) goes through
:func:`esc`. The page carries a Content-Security-Policy that forbids scripts
and every request, as a second line of defence. Plots are inline SVG
(:mod:`kpr.render.plots`, which needs matplotlib, imported only here). The
skeleton, headline, warnings and footer are shared with the analysis report
(:mod:`kpr.render.page`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import polars as pl

from kpr.checks import percentage
from kpr.errors import InputError
from kpr.metric.attack import Kind
from kpr.metric.classes import class_label
from kpr.render.page import (
    CSP,
    count_text,
    document,
    esc,
    footer,
    headline,
    names_html,
    page_writer,
    require_matplotlib,
    share_text,
    sources_line,
    table_section,
    warnings_section,
)
from kpr.render.risk import (
    MISSING_LABEL,
    VariableRisk,
    advice,
    drivers,
)
from kpr.render.variables import group_label, risk_section, variable_risks
from kpr.results.control import no_control
from kpr.results.evaluation import REPORT_CONTROL, REPORT_PAIRING, KprResult, format_rate

#: How many linked individuals the report lists.
LINKED_ROWS = 20

__all__ = [
    "CSP",
    "esc",
    "render_report",
    "repr_html",
    "require_matplotlib",
    "write_report",
]


_int = count_text


_pct = share_text


# --- the sections, top to bottom ------------------------------------------------------


def _moved(result: KprResult) -> str:
    """On a moved grid, say so next to the tolerance (the spec's grid: nothing)."""
    if not result.grid_offset:
        return ""
    return f", class grid moved down by {result.grid_offset:g} of each width"


def _headline(result: KprResult, threshold: float | None, inputs: Sequence[str] | None) -> str:
    verdict, badge = "", ""
    if threshold is not None:
        passed = result.rate >= threshold
        verdict = "pass" if passed else "fail"
        word = "PASS" if passed else "FAIL"
        relation = "at or above" if passed else "below"
        badge = (
            f'<span class="badge {verdict}" data-kpr-verdict="{verdict}">{word}: '
            f"{relation} the {threshold:g} % threshold</span>"
        )
    known = (
        f'<p class="inputs">The attacker knows: {names_html(result.known)} · tolerance '
        f"{result.tolerance * 100:g} % for numeric values{_moved(result)}</p>"
    )
    sources = list(zip(("Original table", "Avatars"), inputs or (), strict=False))
    return headline(
        result.rate,
        meaning=result.meaning,
        aside=badge,
        lines=[known, sources_line(sources)],
        verdict=verdict,
    )


def _counts(result: KprResult) -> str:
    cards = [
        (result.n, "original rows (n)", "individuals in the original table"),
        (result.n_avatars, "avatar rows (m)", "records in the synthetic table"),
        (
            result.unique_originals,
            "unique originals |U|",
            "originals whose known values occur only once in the original table: "
            "the only ones an attacker can single out",
        ),
        (
            result.linked,
            "linked |S|",
            "unique originals that approach exactly one avatar: "
            "the attacker can claim that avatar is them",
        ),
    ]
    if result.correct_links is not None:
        cards.append(
            (
                result.correct_links,
                "correct links",
                "linked individuals whose unique avatar is their own (from the pairing): "
                f"a re-identification rate of {result.reidentification_rate:.2f} %",
            )
        )
    items = "\n".join(
        f'  <li><span class="num">{_int(value)}</span><span class="what">{what}</span>'
        f'<span class="explain">{explain}</span></li>'
        for value, what, explain in cards
    )
    control = f'\n <p class="no-control">{esc(no_control(REPORT_CONTROL))}</p>'
    if result.control is not None:
        lines = "".join(f"  <li>{esc(x)}</li>\n" for x in result.control.summary_lines())
        control = f'\n <h3>Against a control</h3>\n <ul class="control">\n{lines} </ul>'

    return f"""
<section id="counts">
 <h2>The counts behind the rate</h2>
 <ul class="counts">
{items}
 </ul>
 <p>Rate = 100 &times; (1 &minus; |S| / n)
  = 100 &times; (1 &minus; {_int(result.linked)} / {_int(result.n)})
  = {esc(format_rate(result.rate))}.</p>
 <p class="claims">{esc(result.claims_for(REPORT_PAIRING))}</p>{control}
</section>"""


def _assumptions(result: KprResult) -> str:
    rows = []
    for name in result.known:
        v = result.variables[name]
        if v.kind.binned:
            how = "they fall in the same class"
            lo = f"{v.lo:.6g}" if v.lo is not None else "&ndash;"
            width = f"{v.width:.6g}" if v.width is not None else "&ndash;"
            classes = _int(v.classes) if v.classes is not None else "&ndash;"
        else:
            how = "they are identical"
            lo = width = classes = "&ndash;"
        rows.append(
            f'  <tr><td class="value">{esc(name)}</td><td>{esc(v.kind.value)}</td>'
            f'<td>{how}</td><td class="num">{lo}</td><td class="num">{width}</td>'
            f'<td class="num">{classes}</td><td class="num">{_int(v.missing)}</td></tr>'
        )
    head = """<th>Known variable</th><th>Kind</th><th>Values approach when</th>
   <th class="num">lo</th><th class="num">width</th><th class="num">classes</th>
   <th class="num">missing in original</th>"""
    intro = f"""
 <p>The attacker knows {len(result.known)} variable{"s" if len(result.known) != 1 else ""} of
  each individual. A numeric value approaches another when both fall in the same class:
  classes are <em>width</em> = tolerance &times; |mean| wide (tolerance {result.tolerance:g}),
  counted from <em>lo</em>{_moved(result)}, both taken over the unique originals. Missing
  values approach only missing values.</p>"""
    return table_section("assumptions", "The assumptions", head, rows, intro)


def _profile_cell(result: KprResult, name: str, value: object) -> str:
    info = result.variables[name]
    if value is None:
        return f'<span class="missing-value">{MISSING_LABEL}</span>'
    # an int code, or the float class inf of the values whose x - lo overflowed
    code: float | None = None
    if isinstance(value, int) or (isinstance(value, float) and math.isinf(value)):
        code = value
    if info.kind.binned and code is not None:
        special = code < 0 or math.isinf(code)
        if special or (info.lo is not None and info.width is not None):
            lo, width = info.lo or 0.0, info.width or 1.0  # a special class has no bounds
            origin = lo - result.grid_offset * width if result.grid_offset else lo
            return esc(class_label(code, origin, width, info.kind is Kind.DATE))
    return esc(value)


def _linked(result: KprResult, show_values: bool) -> str:
    intro = ""
    table = ""
    if result.linked == 0:
        intro = (
            "<p>Nobody is linked: the attacker finds no unique approaching avatar for anyone.</p>"
        )
    else:
        try:
            frame = result.linked_frame(codes=True).head(LINKED_ROWS)
        except ValueError as exc:
            frame = None
            intro = f"<p>The linked individuals cannot be listed: {esc(exc)}.</p>"
        if frame is not None:
            shown = frame.height
            intro = (
                f"<p>{_int(result.linked)} individual{'s are' if result.linked != 1 else ' is'} "
                f"linked; the first {_int(shown)} are listed. Row positions count from 0, in the "
                "order of the input tables. Write them all to a CSV file with "
                "<code>--linked-out</code>.</p>"
            )
            if show_values:
                intro += (
                    "<p>Their known values are shown as the attacker sees them: the class "
                    "(numeric) or the value (categorical).</p>"
                )
            else:
                intro += (
                    "<p>Their values are left out, because this report may travel further than "
                    "the data. Rerun with <code>--show-values</code> (or "
                    "<code>to_html(..., show_values=True)</code>) to include them.</p>"
                )
            table = _linked_table(result, frame, show_values)
    return f"""
<section id="linked">
 <h2>The linked individuals</h2>
 {intro}
 {table}
</section>"""


def _linked_table(result: KprResult, frame: pl.DataFrame, show_values: bool) -> str:
    names = list(result.known) if show_values else []
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    rows = []
    for row in frame.iter_rows(named=True):
        cells = "".join(f'<td class="value">{_profile_cell(result, n, row[n])}</td>' for n in names)
        rows.append(
            f'  <tr><td class="num">{_int(row["original_row"])}</td><td>→</td>'
            f'<td class="num">{_int(row["avatar_row"])}</td>{cells}</tr>'
        )
    return f"""<div class="table-wrap"><table class="compact">
  <thead><tr><th class="num">Original row</th><th></th><th class="num">Avatar row</th>
   {head}</tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>"""


def _next(result: KprResult, risks: list[VariableRisk] | None, kpr_avatars: bool) -> str:
    parts = [f'<p class="advice">{esc(line)}</p>' for line in advice(result, risks, kpr_avatars)]
    if result.warnings_ask_action:
        parts.append(
            "<p>Deal with the warnings above first: they can make the rate misleading.</p>"
        )
    ranked = drivers(risks or [])
    if ranked:
        items = []
        for r in ranked:
            spot = ""
            if r.hotspot is not None:
                g = r.hotspot
                spot = (
                    f"; most linked beyond its share: {group_label(g)}, {_int(g.linked)} of "
                    f"{_int(g.originals)} linked ({_pct(g.share)})"
                )
            items.append(f"  <li><b>{esc(r.name)}</b>: score {_pct(r.score or 0.0)}{spot}</li>")
        parts.append(
            "<p>Which known variables drive the risk, most first. The score is the share of the "
            "linked individuals that sit in values holding more than their fair share of them "
            "(0 % when every value has the same share linked as everybody; the higher, the more "
            "some values of that variable single people out).</p>"
            f'<ol class="drivers">\n{chr(10).join(items)}\n </ol>'
        )
    elif risks is not None:
        parts.append("<p>Nobody is linked, so no variable drives the risk.</p>")
    return f"""
<section id="next">
 <h2>What to do next</h2>
 {chr(10).join(parts)}
</section>"""


def _footer(show_values: bool, now: datetime) -> str:
    if show_values:
        data = (
            f"This report contains the known values (binned) of up to {LINKED_ROWS} linked "
            "individuals (--show-values): share it only with people allowed to see the data."
        )
    else:
        data = (
            "This report holds no row of the data and no individual's values (they appear "
            "only with --show-values). It does show how many people fall in each class or "
            "value of every known variable, small groups included (down to one person), with "
            "class bounds and row positions: share it as you would a frequency table of "
            "those variables."
        )
    return footer(data, now)


# --- entry points ----------------------------------------------------------------------


def render_report(
    result: KprResult,
    *,
    threshold: float | None = None,
    show_values: bool = False,
    inputs: Sequence[str] | None = None,
    now: datetime | None = None,
    kpr_avatars: bool = False,
    blocks: Sequence[object] = (),
) -> str:
    """The full report as one HTML document (needs matplotlib for the plots).
    ``kpr_avatars`` (or a pairing) says kpr's generator made the avatars: only then
    does the advice speak of k. ``blocks``: other results measured on the same
    tables (an inference), each shown by its registered section before the advice."""
    from kpr.results.views import section_html

    require_matplotlib()
    from kpr.render import plots

    threshold = None if threshold is None else percentage(threshold, "threshold")
    if inputs is not None and len(inputs) != 2:
        raise InputError("inputs names the original and the avatar tables: give two labels")
    risks = variable_risks(result)
    overall = result.linked / result.n if result.n else 0.0
    svgs = [plots.variable_svg(r, overall, f"kpr{i}") for i, r in enumerate(risks or [])]
    title = f"Knowledge Protection Rate {format_rate(result.rate)} — kpr report"
    body = "".join(
        [
            _headline(result, threshold, inputs),
            _counts(result),
            _assumptions(result),
            warnings_section(result.warnings),
            risk_section(result, risks, svgs),
            _linked(result, show_values),
            *(section_html(b) for b in blocks),
            _next(result, risks, kpr_avatars or result.correct_links is not None),
            _footer(show_values, now or datetime.now(UTC)),
        ]
    )
    return document(title, body)


write_report = page_writer(render_report)


def repr_html(result: KprResult) -> str:
    """The compact view Jupyter shows: rate, meaning, counts, warnings; no plots."""
    warnings = ""
    if result.warnings:
        items = "".join(f'<li style="margin:.2em 0">{esc(w)}</li>' for w in result.warnings)
        warnings = (
            '<div style="margin-top:.4em"><b>Warnings</b>'
            f'<ul style="margin:.2em 0;padding-left:1.2em">{items}</ul></div>'
        )
    cell = 'style="padding:.15em .8em .15em 0;text-align:right"'
    label = 'style="padding:.15em .8em .15em 0;text-align:left;font-weight:normal"'
    counts = "".join(
        f"<tr><th {label}>{what}</th><td {cell}>{_int(value)}</td></tr>"
        for what, value in [
            ("original rows (n)", result.n),
            ("avatar rows (m)", result.n_avatars),
            ("unique originals |U|", result.unique_originals),
            ("linked to a unique avatar |S|", result.linked),
        ]
    )
    known = ", ".join(esc(n) for n in result.known)
    return (
        '<div class="kpr-result" style="line-height:1.4">'
        '<div><span style="font-size:1.8em;font-weight:bold" data-kpr-rate="'
        f'{result.rate!r}">{esc(format_rate(result.rate))}</span> '
        "<span>Knowledge Protection Rate</span></div>"
        f"<div>{esc(result.meaning)}</div>"
        f'<table style="margin:.4em 0;border-collapse:collapse">{counts}</table>'
        f"<div>Known: {known} (tolerance {result.tolerance:g}{_moved(result)})</div>"
        f"{warnings}"
        '<div style="opacity:.7;font-size:.9em;margin-top:.3em">Full report with plots: '
        '<code>result.to_html("report.html")</code></div>'
        "</div>"
    )
