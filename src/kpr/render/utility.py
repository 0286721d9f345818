"""The HTML page of a utility measurement (``kpr utility --report``,
``UtilityResult.to_html``): the Quality Report's scores, a table of column shapes
and a heatmap of how each pair's association moved.

Built from the shared pieces (:mod:`kpr.render.page`, :mod:`kpr.render.plots`),
so it escapes, looks and opens offline like the other reports. Column names and
file labels are the only user-derived text; each goes through ``esc``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from kpr.render import page
from kpr.render.page import count_text, esc

if TYPE_CHECKING:
    from kpr.results.utility import UtilityResult

HEADING = "kpr report · utility of a synthetic table"

DATA_NOTE = page.columns_only_note("scores per column and per pair of columns")

#: Beyond this many columns the heatmap's cells carry no numbers.
_ANNOTATED = 16


def _num(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}" if math.isfinite(x) else "&ndash;"


def _share(x: float) -> str:
    return f"{100 * x:.1f} %" if math.isfinite(x) else "&ndash;"


def heatmap_svg(result: UtilityResult, key: str = "kprutil") -> str:
    """The association change of every pair (synthetic minus original), as a
    symmetric matrix; grey where it is undefined."""
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm

    from kpr.render import plots

    names = list(result.columns["column"])
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    matrix = np.full((k, k), np.nan)
    for a, b, change in result.pairs.select(
        "column_1", "column_2", "association_change"
    ).iter_rows():
        if change is not None and math.isfinite(change):
            matrix[index[a], index[b]] = matrix[index[b], index[a]] = change
    bound = max(0.05, float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 0.05)
    size = min(11.0, 2.5 + 0.45 * k)
    label = (
        f"Heatmap of the {len(result.pairs)} pairs of {k} columns: for each pair, the "
        "association (|r|, Cramer's V or eta squared) in the synthetic table minus the "
        "original's; red stronger, blue weaker."
    )
    with plots.chart(size + 1.2, size, "How each pair's association moved") as (fig, ax):
        masked = np.ma.masked_invalid(matrix)
        cmap = colormaps["RdBu_r"].with_extremes(bad="#eeeeee")
        image = ax.imshow(masked, cmap=cmap, norm=TwoSlopeNorm(0.0, -bound, bound))
        ax.set_xticks(range(k), names, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(k), names, fontsize=8)
        ax.spines[:].set_visible(False)
        if k <= _ANNOTATED:
            for i in range(k):
                for j in range(k):
                    if math.isfinite(matrix[i, j]):
                        ax.text(
                            j, i, f"{matrix[i, j]:+.2f}", ha="center", va="center", fontsize=6,
                            color="white" if abs(matrix[i, j]) > 0.6 * bound else plots.GREY,
                        )  # fmt: skip
        bar = fig.colorbar(image, ax=ax, shrink=0.7)
        bar.set_label("association: synthetic minus original")
        return plots.to_inline_svg(fig, key, label)


def _headline(result: UtilityResult, inputs: Sequence[tuple[str, str]]) -> str:
    targets = "met" if result.meets_targets else "not met"
    scores = f"""<p class="inputs">Column shapes {_num(result.column_shapes)} · column pair trends
  {_num(result.column_pair_trends)} · mean Hellinger distance {_num(result.mean_hellinger)}
  · correlation difference {_num(result.correlation_difference, 1)} points of 100
  (Octopize's targets
  {targets}) · {count_text(result.n_original)} original rows,
  {count_text(result.n_synthetic)} synthetic rows</p>"""
    return page.figure_headline(
        "utility", "Quality score (SDMetrics' Quality Report)", result.overall,
        _num(result.overall), meaning=result.meaning,
        lines=[f'<p class="kinds">{esc(result.kinds_used)}</p>', scores,
               page.sources_line(list(inputs))],
    )  # fmt: skip


def _columns_table(result: UtilityResult) -> str:
    rows = []
    for r in result.columns.sort("score", nulls_last=True).iter_rows(named=True):
        rows.append(
            f'  <tr data-kpr-column="{esc(r["column"])}"><td>{esc(r["column"])}</td>'
            f"<td>{esc(r['kind'])}</td><td>{esc(r['metric'])}</td>"
            f'<td class="num">{_num(r["score"])}</td>'
            f'<td class="num">{_num(r["hellinger"])}</td>'
            f'<td class="num">{_share(r["missing_original"])}</td>'
            f'<td class="num">{_share(r["missing_synthetic"])}</td></tr>'
        )
    return f"""
<section id="columns">
 <h2>Column shapes</h2>
 <div class="table-wrap"><table>
  <thead><tr><th>Column</th><th>Kind</th><th>Metric</th><th class="num">Score</th>
  <th class="num">Hellinger</th><th class="num">Missing, original</th>
  <th class="num">Missing, synthetic</th></tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>
 <p class="small">Score: SDMetrics' KSComplement (numbers, dates) or TVComplement
  (categories), 1 for the same distribution. Hellinger: 0 for the same distribution.</p>
</section>"""


def _pairs_table(result: UtilityResult, top: int = 15) -> str:
    rows = []
    shown = result.pair_table().head(top)
    for r in shown.iter_rows(named=True):
        change = r["association_change"]
        rows.append(
            f"  <tr><td>{esc(r['column_1'])} &times; {esc(r['column_2'])}</td>"
            f'<td>{esc(r["metric"])}</td><td class="num">{_num(r["score"])}</td>'
            f"<td>{esc(r['association'])}</td>"
            f'<td class="num">{_num(r["original_association"])}</td>'
            f'<td class="num">{_num(r["synthetic_association"])}</td>'
            f'<td class="num">{"&ndash;" if change is None else f"{change:+.3f}"}</td></tr>'
        )
    return f"""
 <h3>The pairs whose association moved most (top {len(shown)} of {len(result.pairs)})</h3>
 <div class="table-wrap"><table>
  <thead><tr><th>Pair</th><th>Metric</th><th class="num">Score</th><th>Association</th>
  <th class="num">Original</th><th class="num">Synthetic</th><th class="num">Change</th>
  </tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>
 <p class="small">Score: SDMetrics' CorrelationSimilarity (two numbers or dates) or
  ContingencySimilarity. Association: r (|Pearson's r|), cramers_v (Cramer's V) or eta2
  (the share of the number's variance its category explains).</p>"""


def render_utility(
    result: UtilityResult,
    *,
    inputs: Sequence[tuple[str, str]] = (),
    now: datetime | None = None,
) -> str:
    """The utility page as one HTML document (needs matplotlib for the heatmap)."""

    def pairs() -> str:
        if not len(result.pairs):
            return ""
        return page.plot_section(
            "pairs", "Column pair trends", heatmap_svg(result),
            "Each cell: the pair's association in the synthetic table minus the original's\n"
            " (|r| for two numbers, Cramer's V for two categories, eta squared for a category "
            "and a\n"
            " number).",
            f"\n{_pairs_table(result)}",
        )  # fmt: skip

    return page.report_page(
        f"Quality {_num(result.overall)} — kpr utility", HEADING, DATA_NOTE,
        lambda: [_headline(result, inputs), _columns_table(result), pairs()], now,
    )  # fmt: skip


write_utility = page.page_writer(render_utility)


def repr_utility(result: UtilityResult) -> str:
    """Jupyter's view: the scores and the columns, no plot."""
    rows = [
        [esc(r["column"]), esc(r["metric"]), _num(r["score"]), _num(r["hellinger"])]
        for r in result.columns.iter_rows(named=True)
    ]
    return page.notebook_view(
        page.notebook_headline(f"Quality {_num(result.overall)}"),
        result.meaning,
        ["column", "metric", "score", "Hellinger"],
        rows,
    )
