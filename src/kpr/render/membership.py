"""The HTML page of a membership attack (``kpr membership --report``,
``MembershipResult.to_html``): the AUC and the TPR at low FPR with their intervals,
the ROC curve on a logarithmic FPR axis (where the low-FPR figures are read), and
the score levels.

Built from the shared pieces (:mod:`kpr.render.page`, :mod:`kpr.render.plots`), so it
escapes, looks and opens offline like the other reports. Column names, warnings and
file labels are the only user-derived text; each goes through ``esc``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from kpr.render import page
from kpr.render.page import count_text, esc

if TYPE_CHECKING:
    from kpr.results.membership import MembershipResult

HEADING = "kpr report · membership inference"

DATA_NOTE = page.columns_only_note("counts of people at each score")


def _pct(x: float | None, digits: int = 1) -> str:
    return "&ndash;" if x is None else f"{100 * x:.{digits}f} %"


def roc_svg(result: MembershipResult, key: str = "kprroc") -> str:
    """The ROC curve (ties as straight segments) with the FPR on a log scale, from the
    resolution to 1, the diagonal of a guess, and the reported FPRs marked."""
    import numpy as np
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from kpr.render import plots

    fpr, tpr = result.roc_curve()
    floor = result.resolution / 2
    # a straight segment stays straight on a log axis only when drawn in small steps
    xs, ys = [float(fpr[0])], [float(tpr[0])]
    for i in range(1, len(fpr)):
        steps = np.linspace(0.0, 1.0, 64)[1:]
        xs += list(fpr[i - 1] + steps * (fpr[i] - fpr[i - 1]))
        ys += list(tpr[i - 1] + steps * (tpr[i] - tpr[i - 1]))
    x = np.maximum(np.array(xs), floor)
    label = (
        f"ROC curve of the membership attack, AUC {result.auc:.3f}; the false positive "
        "rate on a logarithmic axis from the resolution to 1, the diagonal of a guess "
        "dashed."
    )
    title = "ROC curve: what the attack finds at each false positive rate"
    with plots.chart(6.4, 4.4, title) as (fig, ax):
        ax.plot(x, ys, color=plots.VERMILLION, linewidth=1.6, label="DOMIAS on class profiles")
        guess = np.geomspace(floor, 1.0, 50)
        ax.plot(guess, guess, color=plots.GREY, linestyle="--", linewidth=1, label="A guess")
        for point in result.tpr:
            f = point.fpr.numerator / point.fpr.denominator
            ax.axvline(f, color=plots.GREY, linewidth=0.6, linestyle=":")
            if point.tpr is not None:
                ax.plot([f], [point.tpr], "o", color=plots.BLUE, markersize=4)
        ax.axvline(result.resolution, color=plots.BLUISH_GREEN, linewidth=1,
                   label=f"Resolution (1/{count_text(result.non_members)})")  # fmt: skip
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:g} %"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(floor, 1.0)
        ax.set_ylim(0.0, 1.0)
        ax.set_xlabel("False positive rate (non-members flagged), log scale")
        ax.set_ylabel("True positive rate (members flagged)")
        plots.legend_above(fig, ax, ncols=3)
        return plots.to_inline_svg(fig, key, label)


def _headline(result: MembershipResult, inputs: Sequence[tuple[str, str]]) -> str:
    low, high = result.auc_interval
    sizes = f"""<p class="inputs">Class profiles on {page.names_html(result.columns)} ·
  {count_text(result.n_original)} original rows, {count_text(result.n_avatars)} avatars,
  {count_text(result.n_holdout)} holdout rows (reference {count_text(result.reference_size)},
  non-members {count_text(result.non_members)}) · seed {result.seed},
  {count_text(result.replicates)} bootstrap replicates</p>"""
    return page.figure_headline(
        "auc", "AUC of the membership attack (0.5: a guess)", result.auc, f"{result.auc:.3f}",
        meaning=result.meaning,
        aside=f'<p class="interval">{100 * result.confidence:g} % interval {low:.3f} to '
        f"{high:.3f}</p>",
        lines=[sizes, page.sources_line(list(inputs))],
    )  # fmt: skip


def _tpr_table(result: MembershipResult) -> str:
    rows = []
    for p in result.tpr:
        interval = (
            "&ndash;" if p.interval is None else f"{_pct(p.interval[0])} to {_pct(p.interval[1])}"
        )
        value = _pct(p.tpr) if p.tpr is not None else f"not available: {esc(p.reason)}"
        rows.append(
            f'  <tr><td class="num">{_pct(p.fpr.numerator / p.fpr.denominator, 2)}</td>'
            f'<td class="num">{p.flagged:,.1f}</td><td>{value}</td><td>{interval}</td></tr>'
        )
    before = (
        f"\n <p>The resolution is 1/{count_text(result.non_members)} = "
        f"{_pct(result.resolution, 3)}: no lower FPR can be read from this holdout. A guess "
        "flags as many members as non-members.</p>"
    )
    return page.table_section(
        "tpr", "True positive rate at a low false positive rate",
        '<th class="num">FPR</th><th class="num">Non-members flagged</th><th>TPR</th>'
        f"<th>{100 * result.confidence:g} % interval</th>",
        rows, before,
    )  # fmt: skip


#: Score levels the page lists (the highest: where the low-FPR figures are read).
TOP_SCORES = 30


def _scores_table(result: MembershipResult) -> str:
    table = result.score_table()
    rows = [
        f'  <tr><td class="num">{s:+.4f}</td><td class="num">{count_text(m)}</td>'
        f'<td class="num">{count_text(n)}</td></tr>'
        for s, m, n in table.head(TOP_SCORES).iter_rows()
    ]
    shown = f"the highest {TOP_SCORES} of {len(table):,}" if len(table) > TOP_SCORES else "all"
    before = (
        f"\n <p>Scores: {shown}. "
        "Each score: log((s + 1)/(m + 1)) &minus; log((r + 1)/(|R| + 1)), s and r the "
        "people of the avatars and of the reference holding the class profile. Records on "
        "one score are a tie: they count one half against each other.</p>"
    )
    return page.table_section(
        "scores", "Scores, highest first",
        '<th class="num">Score</th><th class="num">Members</th><th class="num">Non-members</th>',
        rows, before,
    )  # fmt: skip


def render_membership(
    result: MembershipResult,
    *,
    inputs: Sequence[tuple[str, str]] = (),
    now: datetime | None = None,
) -> str:
    """The membership page as one HTML document (needs matplotlib for the ROC curve)."""

    def roc() -> str:
        return page.plot_section(
            "roc", "ROC curve", roc_svg(result),
            "Every threshold on the score: the share of non-members flagged (log scale) and\n"
            " of members flagged. Ties are crossed as straight segments (in random order).",
        )  # fmt: skip

    return page.report_page(
        f"AUC {result.auc:.3f} — kpr membership", HEADING, DATA_NOTE,
        lambda: [_headline(result, inputs), _tpr_table(result), roc(), _scores_table(result),
                 page.warnings_section(result.warnings)],
        now,
    )  # fmt: skip


write_membership = page.page_writer(render_membership)


def repr_membership(result: MembershipResult) -> str:
    """Jupyter's view: the AUC, the TPR at each FPR, no plot."""
    rows = [
        [_pct(p.fpr.numerator / p.fpr.denominator, 2), _pct(p.tpr),
         "&ndash;" if p.interval is None else f"{_pct(p.interval[0])} to {_pct(p.interval[1])}"]
        for p in result.tpr
    ]  # fmt: skip
    return page.notebook_view(
        page.notebook_headline(f"AUC {result.auc:.3f}"),
        result.meaning,
        ["FPR", "TPR", "interval"],
        rows,
        result.warnings,
    )
