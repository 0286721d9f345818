"""The evidence pack's plots (``kpr assess``), drawn from results.json's figures only:
what a data-protection officer would rather look at than read.

Drawn with the house helpers of :mod:`kpr.render.plots` (matplotlib figures into
inline SVG, text kept as escaped text); each returns ``""`` when there is nothing to
draw, and the page draws none when matplotlib is not installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kpr.render import plots
from kpr.render.risk import shorten


def _height(rows: int) -> float:
    """A bar chart's height in inches for ``rows`` bars."""
    return 1.6 + 0.38 * rows


def _rows_axis(ax: Any, names: Sequence[str], xlabel: str) -> None:
    """A horizontal bar chart's axes: one row per name, first on top, a light grid."""
    ax.set_yticks(list(range(len(names))), [shorten(n, 48) for n in names])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", **plots.GRID)
    ax.set_axisbelow(True)


def subsets_svg(worst: Sequence[Mapping[str, Any]], figures: Mapping[str, Any]) -> str:
    """The rate of each riskiest subset of known variables and of every candidate
    known, against the floor (every unique person linked) and the control's rate."""
    rows = [(", ".join(w["known"]), w["rate"]) for w in worst]
    rows.append(("every candidate known", figures["singling_out.rate"]))
    ys = list(range(len(rows)))
    with plots.chart(7.6, _height(len(rows))) as (fig, ax):
        ax.barh(ys, [r for _, r in rows], 0.6, color=plots.BLUE, label="KPR of the attack")
        ax.axvline(figures["singling_out.floor"], color=plots.VERMILLION, linestyle="--",
                   linewidth=1.2, label="Floor: every unique person linked")  # fmt: skip
        control = figures.get("singling_out.control.rate_at_size")
        if control is not None:
            ax.axvline(control, color=plots.BLUISH_GREEN, linewidth=1.2,
                       label="Control (holdout) at the same size")  # fmt: skip
        _rows_axis(ax, [name for name, _ in rows],
                   "KPR, percent of people not singled out (higher is safer)")  # fmt: skip
        ax.set_xlim(0, 100)
        plots.legend_above(fig, ax, ncols=2)
        label = "KPR per subset of known variables, with the floor and the control's rate."
        return plots.to_inline_svg(fig, "assess-subsets", label)


def secrets_svg(secrets: Sequence[str], figures: Mapping[str, Any]) -> str:
    """Per secret: how often the link's guess is right, against the population guess
    (the most common value, which needs no synthetic table)."""
    shown = [s for s in secrets if figures.get(f"inference.{s}.precision") is not None]
    if not shown:
        return ""
    ys = list(range(len(shown)))
    link = [figures[f"inference.{s}.precision"] for s in shown]
    guess = [figures[f"inference.{s}.population_guess"] or 0.0 for s in shown]
    with plots.chart(7.6, _height(2 * len(shown))) as (fig, ax):
        ax.barh([y - 0.2 for y in ys], link, 0.4, color=plots.VERMILLION,
                label="Guess through the link")  # fmt: skip
        ax.barh([y + 0.2 for y in ys], guess, 0.4, color=plots.GREY,
                label="Population guess (most common value)")  # fmt: skip
        _rows_axis(ax, shown, "Precision, percent of guesses right")
        ax.set_xlim(0, 100)
        plots.legend_above(fig, ax, ncols=2)
        label = "Inference per sensitive variable: the link's precision against the population's."
        return plots.to_inline_svg(fig, "assess-secrets", label)


def membership_svg(figures: Mapping[str, Any]) -> str:
    """The attack's true positive rate at each low false positive rate, beside what a
    guess flags at that rate (TPR = FPR)."""
    prefix = "membership.tpr_at_fpr_"
    points = [(float(k[len(prefix) :]), v) for k, v in figures.items()
              if k.startswith(prefix) and v is not None]  # fmt: skip
    if not points:
        return ""
    points.sort()
    xs = list(range(len(points)))
    with plots.chart(7.6, _height(4)) as (fig, ax):
        ax.bar([x - 0.2 for x in xs], [100 * t for _, t in points], 0.4,
               color=plots.VERMILLION, label="Membership attack")  # fmt: skip
        ax.bar([x + 0.2 for x in xs], [100 * f for f, _ in points], 0.4,
               color=plots.GREY, label="A guess")  # fmt: skip
        ax.set_xticks(xs, [f"{100 * f:g} %" for f, _ in points])
        ax.set_xlabel("False positive rate (non-members flagged)")
        ax.set_ylabel("True positive rate (%)")
        ax.grid(axis="y", **plots.GRID)
        ax.set_axisbelow(True)
        plots.legend_above(fig, ax, ncols=2)
        label = "Membership: true positive rate at low false positive rates, against a guess."
        return plots.to_inline_svg(fig, "assess-membership", label)


def protect_svg(figures: Mapping[str, Any]) -> str:
    """The cells kpr protect changed, per column and per move (counts, no value)."""
    rows = [(k.split(".", 2)[1] + ": " + k.split(".", 2)[2], v) for k, v in figures.items()
            if k.startswith(("protect.column.", "protect.move."))]  # fmt: skip
    if not rows:
        return ""
    ys = list(range(len(rows)))
    with plots.chart(7.6, _height(len(rows))) as (fig, ax):
        ax.barh(ys, [v for _, v in rows], 0.6, color=plots.ORANGE)
        _rows_axis(ax, [name for name, _ in rows], "Cells changed by kpr protect")
        label = "Cells kpr protect changed, per column and per move."
        return plots.to_inline_svg(fig, "assess-protect", label)
