"""The sections of the analysis report, top to bottom: the headline, the
baselines, the riskiest subsets, each variable's contribution, the tolerance
curve, the method and what to do next. Each takes the result (and its plot,
already drawn) and returns escaped HTML; :mod:`kpr.render.analysis` assembles them.
"""

from __future__ import annotations

from collections.abc import Sequence

from kpr.render.page import (
    count_text,
    esc,
    headline,
    names_html,
    sources_line,
)
from kpr.render.risk import analysis_advice
from kpr.results.analysis import (
    EXPLAIN_CONTRIBUTION,
    EXPLAIN_CURVE,
    EXPLAIN_INTERVAL,
    EXPLAIN_METHOD,
    EXPLAIN_SWEEP,
    AnalysisResult,
    SweepResult,
)
from kpr.results.evaluation import REPORT_PAIRING, format_rate, meaning
from kpr.results.rates import AttackRate

_ROLES = ("Original table", "Avatars", "Control")


def _bound(percent: float) -> str:
    """An interval bound written like the rate: never "100.00" for less than 100."""
    return format_rate(percent).removesuffix(" %")


def interval_text(rate: AttackRate) -> str:
    """The rate's interval as the page writes it: ``96.51 to 96.90 %``."""
    low, high = rate.interval
    return f"{_bound(low)} to {_bound(high)} %"


def _conf(rate: AttackRate) -> str:
    return f"{rate.confidence * 100:g} %"


def subset_label(known: Sequence[str]) -> str:
    """A subset as plot text (escaped later by matplotlib): ``age + sex``."""
    return " + ".join(known)


# --- the sections, top to bottom ------------------------------------------------------


def headline_section(result: AnalysisResult, inputs: Sequence[str]) -> str:
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
            f'<p class="claims">{esc(result.claims_for(REPORT_PAIRING))}</p>',
        ],
    )


def _card(kind: str, tone: str, rate: AttackRate | float | None, what: str, explain: str) -> str:
    number = rate.rate if isinstance(rate, AttackRate) else rate
    value = esc(format_rate(number)) if number is not None else "&ndash;"
    data = f' data-kpr-value="{number!r}"' if number is not None else ""
    css = f"tone-{tone}" if number is not None else "absent"
    return (
        f'  <li class="{css}" data-kpr-baseline="{kind}"{data}><span class="num">{value}</span>'
        f'<span class="what">{what}</span><span class="explain">{explain}</span></li>'
    )


def baselines_section(result: AnalysisResult, svg: str) -> str:
    conf = _conf(result.attack)
    control_card, control_text = _control_card(result, conf)
    cards = [*_baseline_cards(result, conf), control_card]
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
 <p>{esc(result.original_published_explanation)}</p>
 <p>{control_text}</p>
 <figure class="kpr-plot">
{svg}
<figcaption>Each bar starts at 100 % (nobody linked) and reaches left to the rate: the
 longer the bar, the more individuals the attacker links to a unique record. The whiskers
 show the {conf} interval.</figcaption>
 </figure>
</section>"""


def _baseline_cards(result: AnalysisResult, conf: str) -> list[str]:
    """The cards of the avatars, the original published as is and the worst case."""
    a, w = result.attack, result.original_published
    return [
        _card(
            "avatars", "blue", a, "Avatars: the real rate",
            f"{conf} interval {interval_text(a)}; {count_text(a.linked)} of {count_text(a.n)} "
            "individuals linked",
        ),
        _card(
            "original-published", "vermillion", w, "Original published as is",
            f"{conf} interval {interval_text(w)}; avatars minus original published: "
            f'<span class="delta">{a.rate - w.rate:+.2f} points</span>',
        ),
        _card(
            "worst-case", "grey", result.worst_case, "Worst case: every member of U linked",
            f"100 &times; (1 &minus; |U|/n), |U| = {count_text(a.unique_originals)}; avatars "
            f'minus worst case: <span class="delta">{a.rate - result.worst_case:+.2f} points'
            "</span>",
        ),
    ]  # fmt: skip


def _control_card(result: AnalysisResult, conf: str) -> tuple[str, str]:
    """The control's card and the paragraph that says what it showed (or that it is missing)."""
    c = result.control
    if c is None:
        card = _card(
            "control", "green", None, "Control individuals: not given",
            "individuals of the same population that were not used to make the avatars",
        )  # fmt: skip
        return card, (
            "No control table was given (<code>--control</code>, or <code>control=</code> in "
            "Python): the same attack on individuals the synthesis never saw would show how "
            "much of the risk the synthesis itself creates. Without it, the rate measures the "
            "risk of synthesis only if the original is the generator's training set (for "
            "another sample of the population it counts chance matches)."
        )
    low, high = c.difference_interval
    card = _card(
        "control", "green", c.control, "Control individuals: never used for the avatars",
        f"{conf} interval {interval_text(c.control)}; control minus real: "
        f'<span class="delta" data-kpr-difference="{c.difference!r}">'
        f"{c.difference:+.2f} points</span> ({conf} interval {low:+.2f} to {high:+.2f})",
    )  # fmt: skip
    items = "".join(f"<li>{esc(x)}</li>" for x in c.summary_lines())
    return card, f'</p>\n <ul class="control">{items}</ul>\n <p>'


def no_sweep_section(section: str, title: str) -> str:
    return f"""
<section id="{section}">
 <h2>{title}</h2>
 <p>No sweep was run: name the variables an attacker might know
  (<code>--candidates</code>, or <code>candidates=</code> in Python) to attack every
  combination of them.</p>
</section>"""


def subsets_section(sweep: SweepResult, shown: list[AttackRate], svg: str | None) -> str:
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


def contributions_section(sweep: SweepResult, svg: str) -> str:
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


def tolerance_section(result: AnalysisResult, svg: str | None) -> str:
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


def method_section(result: AnalysisResult) -> str:
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


def next_section(result: AnalysisResult, kpr_avatars: bool) -> str:
    items = "".join(f'<p class="advice">{esc(x)}</p>' for x in analysis_advice(result, kpr_avatars))
    return f"""
<section id="next">
 <h2>What to do next</h2>
 {items}
</section>"""
