"""The plots of the k pages (:mod:`kpr.render.ksweep`): the KPR and the utility against
k, and privacy against utility, one point per k. Drawn with the report's style and
inlined as SVG by :mod:`kpr.render.plots`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from kpr.results.evaluation import format_rate

if TYPE_CHECKING:
    from kpr.results.ksweep import KSweepResult


def sweep_svg(result: KSweepResult, key: str = "kprk") -> str:
    """KPR against k (top: mean, interval band, min/max over repeats, control) and
    utility against k (bottom: mean Hellinger, correlation difference); k on a log axis."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator

    from kpr.render import plots

    rows = result.rows
    if not rows:
        raise ValueError("no k to plot")
    ks = [r.k for r in rows]
    conf = f"{result.confidence * 100:g} %"
    with plots._drawing():
        fig = Figure(figsize=(7.6, 6.2), layout="constrained")
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
        _privacy_axes(top, result)
        _utility_axes(bottom, result)
        plots.legend_above(fig, top, bottom)
        bottom.set_xscale("log")
        bottom.set_xticks(ks, [str(k) for k in ks])
        bottom.xaxis.set_minor_locator(NullLocator())
        if len(ks) == 1:
            bottom.set_xlim(ks[0] / 2, ks[0] * 2)
        bottom.set_xlabel("k: neighbours mixed into each avatar (log scale)")
        label = (
            f"Line charts against k from {ks[0]} to {ks[-1]}: the Knowledge Protection Rate "
            f"with its {conf} interval (top), and the mean Hellinger distance and correlation "
            "difference between the avatars and the original (bottom)."
        )
        return plots.to_inline_svg(fig, key, label)


def _privacy_axes(top: Any, result: KSweepResult) -> None:
    """The KPR against k: mean, interval band, repeats' spread, the control comparison."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    from kpr.render import plots

    rows = result.rows
    ks = [r.k for r in rows]
    conf = f"{result.confidence * 100:g} %"
    top.fill_between(
        ks, [r.interval[0] for r in rows], [r.interval[1] for r in rows], color=plots.BLUE,
        alpha=0.18, linewidth=0, label=f"KPR, {conf} interval",
    )  # fmt: skip
    top.plot(
        ks, [r.kpr for r in rows], color=plots.BLUE, marker="o", markersize=5, linewidth=2,
        label="KPR" + (" (mean over repeats)" if result.repeats > 1 else ""),
    )  # fmt: skip
    if result.repeats > 1:
        top.errorbar(
            ks, [r.kpr for r in rows],
            yerr=[[r.kpr - r.kpr_min for r in rows], [r.kpr_max - r.kpr for r in rows]],
            fmt="none", ecolor=plots.GREY, elinewidth=1, capsize=3,
            label="lowest and highest repeat",
        )  # fmt: skip
    controlled = [r for r in rows if r.controls]
    if controlled:
        size = controlled[0].controls[0].size
        top.plot(
            [r.k for r in controlled], [r.control_kpr or 0.0 for r in controlled],
            color=plots.BLUISH_GREEN, marker="s", markersize=4, linewidth=1.5,
            linestyle="--", label=f"Control individuals, at n = {size:,}",
        )  # fmt: skip
        top.plot(
            [r.k for r in controlled], [r.original_kpr_at_size or 0.0 for r in controlled],
            color=plots.BLUE, marker="D", markersize=3, linewidth=1, linestyle=":",
            label=f"KPR at n = {size:,} (compared with the control)",
        )  # fmt: skip
    for r in rows:
        top.annotate(
            format_rate(r.kpr), xy=(r.k, r.interval[1]), xytext=(0, 4),
            textcoords="offset points", ha="center", va="bottom", fontsize=8,
            color=plots.GREY,
        )  # fmt: skip
    top.margins(y=0.25)
    top.yaxis.set_major_locator(MaxNLocator(nbins=5))
    top.yaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g} %"))
    top.grid(axis="y", **plots.GRID)
    top.set_axisbelow(True)
    top.set_ylabel("Protection rate")
    top.set_title("Privacy: the Knowledge Protection Rate (higher is safer)", loc="left")


def _utility_axes(bottom: Any, result: KSweepResult) -> None:
    """Octopize's two utility figures against k."""
    from matplotlib.ticker import MaxNLocator

    from kpr.render import plots

    rows = result.rows
    ks = [r.k for r in rows]
    bottom.plot(
        ks, [r.mean_hellinger for r in rows], color=plots.ORANGE, marker="o", markersize=5,
        linewidth=2, label="Mean Hellinger distance",
    )  # fmt: skip
    corr = [r.correlation_difference / 100.0 for r in rows]
    if any(math.isfinite(c) for c in corr):
        bottom.plot(
            ks, corr, color=plots.VERMILLION, marker="^", markersize=5, linewidth=1.5,
            linestyle="--", label="Mean correlation difference (share)",
        )  # fmt: skip
    bottom.set_ylim(bottom=0)
    bottom.margins(y=0.2)
    bottom.yaxis.set_major_locator(MaxNLocator(nbins=4))
    bottom.grid(axis="y", **plots.GRID)
    bottom.set_axisbelow(True)
    bottom.set_ylabel("Distance")
    bottom.set_title("Utility: distance to the original (lower is more useful)", loc="left")


def tradeoff_svg(result: KSweepResult, chosen: int | None = None, key: str = "kprt") -> str:
    """Privacy against utility: one point per k (KPR with its interval against SDMetrics'
    overall quality score), each labelled with its k; the ``chosen`` k ringed."""
    from matplotlib.ticker import FuncFormatter

    from kpr.render import plots

    rows = [r for r in result.rows if math.isfinite(r.overall)]
    if not rows:
        raise ValueError("no k with a defined quality score to plot")
    conf = f"{result.confidence * 100:g} %"
    with plots.chart(7.6, 4.4) as (fig, ax):
        ax.errorbar(
            [r.overall for r in rows], [r.kpr for r in rows],
            yerr=[[r.kpr - r.interval[0] for r in rows], [r.interval[1] - r.kpr for r in rows]],
            fmt="o", color=plots.BLUE, ecolor=plots.BLUE, elinewidth=1, capsize=3,
            markersize=6, label=f"one k: KPR with its {conf} interval",
        )  # fmt: skip
        for r in rows:
            ax.annotate(
                f"k = {r.k}", xy=(r.overall, r.kpr), xytext=(6, 4), textcoords="offset points",
                fontsize=8, color=plots.GREY,
            )  # fmt: skip
        pick = next((r for r in rows if r.k == chosen), None)
        if pick is not None:
            ax.plot(
                [pick.overall], [pick.kpr], linestyle="none", marker="o", markersize=16,
                markerfacecolor="none", markeredgecolor=plots.VERMILLION, markeredgewidth=2,
                label=f"chosen: k = {pick.k}",
            )  # fmt: skip
        ax.margins(x=0.15, y=0.2)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g} %"))
        ax.grid(**plots.GRID)
        ax.set_axisbelow(True)
        ax.set_xlabel("Utility: SDMetrics' overall quality score (higher is more useful)")
        ax.set_ylabel("Privacy: KPR (higher is safer)")
        plots.legend_above(fig, ax)
        label = (
            f"Scatter plot of the KPR against the quality score, one point per k from "
            f"{rows[0].k} to {rows[-1].k}"
            + (f"; the chosen k = {pick.k} is ringed." if pick is not None else ".")
        )
        return plots.to_inline_svg(fig, key, label)
