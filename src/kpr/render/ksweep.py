"""The HTML page of a sweep over k (``kpr sweep --report``, ``KSweepResult.to_html``):
how the KPR and the utility of the avatars move with k, the number of neighbours
the Avatar generator mixes, so the data owner can pick k with the trade-off in view.

Built from the shared pieces (:mod:`kpr.render.page` for the skeleton, escaping
and atomic writing; the drawing context and SVG inlining of
:mod:`kpr.render.plots`), so it looks, escapes and opens offline like the other
reports. Column names and file labels are the only user-derived text; each goes
through ``esc``.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import TYPE_CHECKING

from kpr.render import page
from kpr.render.ksweep_plots import sweep_svg, tradeoff_svg
from kpr.render.page import count_text, esc
from kpr.results.evaluation import format_rate
from kpr.results.ksweep import EXPLAIN, explained
from kpr.results.ksweep_tune import CRITERIA

if TYPE_CHECKING:
    from kpr.results.ksweep import KSweepResult
    from kpr.results.ksweep_rows import SweepRow
    from kpr.results.ksweep_tune import TuneResult

#: Each tune criterion's column heading.
CRITERION_TITLES = {"kpr": "KPR target met", "control": "Control bound met",
                    "cloaking": "Cloaking floor met"}  # fmt: skip

HEADING = "kpr report · choosing k for the avatars"
TUNE_HEADING = "kpr report · choosing k on stated criteria"

DATA_NOTE = (
    "This page contains no raw data: rates, distances and timings per k, and the names of "
    "the variables only, no individual's values or row positions."
)


def _number(x: float, digits: int = 4) -> str:
    """A metric that may be undefined (NaN) as table text."""
    return f"{x:.{digits}f}" if math.isfinite(x) else "&ndash;"


def _headline(result: KSweepResult) -> str:
    gen = result.generator
    seeds = (
        f"seed {result.seed}"
        if result.repeats == 1
        else f"{result.repeats} repeats per k, seeds {result.seed} to "
        f"{result.seed + result.repeats - 1}"
    )
    labels = [(role.capitalize(), label) for role, label in result.inputs.items()]
    return f"""
<section class="headline" aria-labelledby="sweep-label">
 <p class="rate-label" id="sweep-label">Privacy and utility of the avatars against k</p>
 <p class="meaning">{esc(result.summary())}</p>
 <p class="inputs">The attacker knows: {page.names_html(result.known)} · tolerance
  {result.tolerance * 100:g} % for numeric values · n = {count_text(result.n)} individuals</p>
 <p class="inputs">Avatar method: {gen.ncp} FAMD axes for the neighbours, synthesis
  {esc(gen.synthesis)}, categoricals decoded by {esc(gen.decoding)}, {esc(seeds)}</p>
 {page.sources_line(labels)}
</section>"""


def _met(value: bool | None) -> str:
    if value is None:
        return '<td class="num">not checked</td>'
    return f'<td class="num" data-kpr-met="{str(value).lower()}">{"yes" if value else "no"}</td>'


def _row(r: SweepRow, repeats: int, control: bool, tune: TuneResult | None = None) -> str:
    low, high = r.interval
    spread = (
        f'<td class="num range">{r.kpr_min:.2f} to {r.kpr_max:.2f}&nbsp;%</td>'
        if repeats > 1
        else ""
    )
    ctrl = ""
    if control:
        c = r.control_dict()
        if c is None:
            ctrl = '<td class="num">&ndash;</td>' * 2
        else:
            span = c["difference_interval"]
            ctrl = (
                f'<td class="num range">{esc(format_rate(c["original_kpr_at_size"]))} / '
                f"{esc(format_rate(c['control_kpr_at_size']))}</td>"
                f'<td class="num range" data-kpr-control-difference="{c["difference"]!r}">'
                f"{c['difference']:+.2f} ({span['low']:+.2f} to {span['high']:+.2f})</td>"
            )
    privacy = (
        ""
        if tune is not None  # tune's table: the figures its criteria and choice rest on
        else f'<td class="num" data-kpr-correct="{r.correct_links:g}">{r.correct_links:g}</td>'
        f'<td class="num">{r.reidentification:.2f} %</td>'
        f'<td class="num">{r.hidden_rate:.2f} %</td>'
    )
    distances = (
        ""
        if tune is not None
        else f'<td class="num">{r.exact_copy_percent:.2f} %</td>'
        f'<td class="num">{_number(r.median_dcr, 3)}</td>'
        f'<td class="num">{_number(r.median_nndr, 2)}</td>'
    )
    seconds = "" if tune is not None else f'<td class="num">{r.seconds:.2f}</td>'
    return (
        f'  <tr data-kpr-k="{r.k}"><td class="num">{r.k}</td>'
        f'<td class="num" data-kpr-rate="{r.kpr!r}">{esc(format_rate(r.kpr))}</td>'
        f'<td class="num range">{low:.2f} to {high:.2f}&nbsp;%</td>{spread}{ctrl}{privacy}'
        f'<td class="num">{r.median_local_cloaking:g}</td>{distances}'
        f'<td class="num" data-kpr-quality="{r.overall!r}">{_number(r.overall, 3)}</td>'
        f'<td class="num range">{_number(r.utility.column_shapes, 3)} / '
        f"{_number(r.utility.column_pair_trends, 3)}</td>"
        f'<td class="num">{_number(r.mean_hellinger)}</td>'
        f'<td class="num">{_number(r.correlation_difference, 2)}&nbsp;%</td>'
        f"{seconds}{_criteria_cells(r, tune)}</tr>"
    )


def _criteria_cells(r: SweepRow, tune: TuneResult | None) -> str:
    """Each criterion met or not at this k, and whether it is the chosen one."""
    if tune is None:
        return ""
    checks = tune.checks(r)
    cells = "".join(_met(checks[c]) for c in _criteria(tune))
    chosen = "chosen" if r.k == tune.k else ""
    return f'{cells}<td data-kpr-chosen="{str(r.k == tune.k).lower()}">{chosen}</td>'


def _criteria(tune: TuneResult) -> list[str]:
    return [c for c in CRITERIA if c != "control" or tune.sweep.has_control]


def _control_size(result: KSweepResult) -> int:
    """The size the control comparison is made at (the smaller table's, every k)."""
    return next(r.controls[0].size for r in result.rows if r.controls)


def _table(result: KSweepResult, tune: TuneResult | None = None) -> str:
    conf = f"{result.confidence * 100:g} %"
    control = result.has_control
    head = (
        '<th class="num">k</th><th class="num">KPR</th>'
        f'<th class="num">{conf} interval</th>'
        + ('<th class="num">Repeats, low to high</th>' if result.repeats > 1 else "")
        + (
            f'<th class="num">Original / control KPR at n = {_control_size(result):,}</th>'
            f'<th class="num">Control minus original, points ({conf} interval)</th>'
            if control
            else ""
        )
        + (
            '<th class="num">Correct links</th><th class="num">Re-identified</th>'
            '<th class="num">Hidden rate</th>'
            if tune is None
            else ""
        )
        + '<th class="num">Median cloaking</th>'
        + (
            '<th class="num">Exact copies</th><th class="num">Median DCR</th>'
            '<th class="num">Median NNDR</th>'
            if tune is None
            else ""
        )
        + '<th class="num">Quality</th><th class="num">Shapes / pair trends</th>'
        '<th class="num">Hellinger</th><th class="num">Corr. diff.</th>'
        + ('<th class="num">Time (s)</th>' if tune is None else "")
    )
    if tune is not None:
        head += "".join(f'<th class="num">{CRITERION_TITLES[c]}</th>' for c in _criteria(tune))
        head += "<th>Chosen</th>"
    rows = "\n".join(_row(r, result.repeats, control, tune) for r in result.rows)
    baseline = next((r.control_distance for r in result.rows if r.control_distance), None)
    note = ""
    if baseline is not None:
        note = (
            f'\n <p class="small">The control\'s own closeness to the originals (baseline): '
            f"exact copies {baseline['exact_copy_percent']:.2f} %, median DCR "
            f"{_number(baseline['median_dcr'], 3)}, median NNDR "
            f"{_number(baseline['median_nndr'], 2)}.</p>"
        )
    verdicts = [(r.k, r.control_dict()) for r in result.rows]
    items = "".join(
        f'<li data-kpr-verdict="{r_k}">k = {r_k}: {esc(c["verdict"])}</li>'
        for r_k, c in verdicts
        if c is not None
    )
    if items:
        note += f'\n <ul class="small">{items}</ul>'
    return f"""<div class="table-wrap"><table class="wide">
  <thead><tr>{head}</tr></thead>
  <tbody>
{rows}
  </tbody>
 </table></div>{note}"""


def _explanations(result: KSweepResult, tune: bool = False) -> str:
    """The glossary: one entry per column of the table above, no other."""
    keys = explained(result.has_control, tune)
    items = "\n".join(
        f"  <li>{esc(EXPLAIN[k].format(conf=result.confidence * 100))}</li>" for k in keys
    )
    return f"""
<section id="meaning">
 <h2>What the numbers mean</h2>
 <ul>
{items}
 </ul>
 <p>Each k is a new random draw of avatars: a larger k mixes more neighbours into each
  avatar, but nothing makes the KPR rise with it; the sentence at the top says what this
  sweep measured (rises or falls only when the intervals of the smallest and the largest
  k do not overlap). Check the table you publish with <code>kpr evaluate</code>.</p>
</section>"""


def _figures(result: KSweepResult, chosen: int | None) -> str:
    """The plot against k and the plot of privacy against utility, with their captions."""
    conf = f"{result.confidence * 100:g} %"
    whiskers = "; whiskers: the lowest and highest repeat" if result.repeats > 1 else ""
    tradeoff = ""
    if any(math.isfinite(r.overall) for r in result.rows):
        ring = " The chosen k is ringed." if chosen is not None else ""
        tradeoff = f"""
 <figure class="kpr-plot">
{tradeoff_svg(result, chosen)}
<figcaption>Privacy against utility: one point per k, the KPR with its {conf} interval
 against SDMetrics' overall quality score of the avatars.{ring}</figcaption>
 </figure>"""
    return f"""
 <figure class="kpr-plot">
{sweep_svg(result)}
<figcaption>Top: the KPR of the attack at each k, with its {conf}
 interval as a band{whiskers}.
 Bottom: how far the avatars' distributions are from the original's; lower is more
 useful.</figcaption>
 </figure>{tradeoff}"""


def _notes(result: KSweepResult, tune: bool = False) -> str:
    mean = ", mean over the repeats" if result.repeats > 1 else ""
    time = (
        "" if tune else f" Time: seconds to generate one avatar table (metrics not included){mean}."
    )
    return f"""
 <p class="small">Quality: SDMetrics' overall quality score (the mean of column shapes and
  pair trends; higher is more useful). Hellinger: mean Hellinger distance over the columns.
  Corr. diff.: mean correlation difference, in percent.{time}</p>"""


def render_sweep(result: KSweepResult, *, now: datetime | None = None) -> str:
    """The sweep page as one HTML document (needs matplotlib for the plots)."""
    if not result.rows:
        raise ValueError("the sweep has no rows to show")

    def trade_off() -> str:
        return f"""
<section id="trade-off">
 <h2>The trade-off</h2>{_figures(result, None)}
 {_table(result)}{_notes(result)}
</section>"""

    first, last = result.rows[0], result.rows[-1]
    title = (
        f"KPR {format_rate(first.kpr)} (k={first.k}) to {format_rate(last.kpr)} "
        f"(k={last.k}) — kpr sweep"
    )
    return page.report_page(
        title, HEADING, DATA_NOTE,
        lambda: [_headline(result), trade_off(), _explanations(result)], now,
    )  # fmt: skip


def render_tune(result: TuneResult, *, now: datetime | None = None) -> str:
    """The tune page: the choice and the criteria, each met or not per k, both plots."""
    sweep = result.sweep
    sentences = result.criteria.sentences(sweep.confidence)
    items = "".join(
        f"<li>{esc(CRITERION_TITLES[c])}: {esc(sentences[c])}"
        + ("" if c != "control" or sweep.has_control else " (not checked: no control given)")
        + "</li>"
        for c in CRITERIA
    )
    verdict = f"Chosen: k = {result.k}" if result.k is not None else "No k meets every criterion"
    choice = f"""
<section class="headline" aria-labelledby="tune-label">
 <p class="rate-label" id="tune-label">{esc(verdict)}</p>
 <p class="meaning" data-kpr-tune-k="{result.k if result.k is not None else ""}">{
        esc(result.message)
    }</p>
 <p>A k qualifies when it meets every criterion; among those that do, the one with the
  highest quality score is chosen.</p>
 <ul>{items}</ul>
</section>"""

    def criteria() -> str:
        return f"""
<section id="trade-off">
 <h2>Every k against the criteria</h2>
 {_table(sweep, result)}{_figures(sweep, result.k)}{_notes(sweep, tune=True)}
</section>"""

    title = (f"k = {result.k}" if result.k is not None else "no k qualifies") + " — kpr tune"
    return page.report_page(
        title, TUNE_HEADING, DATA_NOTE,
        lambda: [choice, _headline(sweep), criteria(), _explanations(sweep, tune=True)], now,
    )  # fmt: skip


write_tune = page.page_writer(render_tune)


def repr_tune(result: TuneResult) -> str:
    """Jupyter's view of tune: the choice and each k's criteria (no plot)."""
    sweep = result.sweep
    criteria = _criteria(result)
    rows = []
    for r in sweep.rows:
        checks = result.checks(r)
        rows.append(
            [count_text(r.k), esc(format_rate(r.kpr)), _number(r.overall, 3)]
            + [{True: "yes", False: "no", None: "not checked"}[checks[c]] for c in criteria]
            + ["chosen" if r.k == result.k else ""]
        )
    return page.notebook_view(
        '<span style="font-size:1.4em;font-weight:bold">Choosing k</span> '
        f"<span>known: {page.names_html(sweep.known)}</span>",
        result.message,
        ["k", "KPR", "quality", *[CRITERION_TITLES[c] for c in criteria], ""],
        rows,
        hint='Page with the plots: <code>result.to_html("tune.html")</code>',
    )


write_sweep = page.page_writer(render_sweep)


def repr_sweep(result: KSweepResult) -> str:
    """Jupyter's view of a sweep over k: one row per k, no plot."""
    rows = []
    for r in result.rows:
        low, high = r.interval
        diff = r.control_difference
        control = "" if diff is None else f"{diff:+.2f} points"
        rows.append(
            [
                count_text(r.k),
                esc(format_rate(r.kpr)),
                f"{low:.2f} to {high:.2f} %",
                control,
                _number(r.overall, 3),
                f"{r.mean_hellinger:.4f}",
            ]
        )
    headline_html = (
        '<span style="font-size:1.4em;font-weight:bold">KPR and utility against k</span> '
        f"<span>known: {page.names_html(result.known)}</span>"
    )
    return page.notebook_view(
        headline_html,
        result.summary() if result.rows else "No k was evaluated.",
        [
            "k",
            "KPR",
            f"{result.confidence * 100:g} % interval",
            "control minus original (same n)",
            "quality",
            "mean Hellinger",
        ],
        rows,
        hint='Page with the plot: <code>result.to_html("sweep.html")</code>',
    )
