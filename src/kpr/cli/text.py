"""Every result as text for a person, and progress on stderr (the HTML pages are
``kpr.render``)."""

from __future__ import annotations

import contextlib
import gc
import math
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kpr.metric.attack import Kind
from kpr.progress import INPUTS_CHECKED, Progress, Step
from kpr.render.risk import advice, analysis_advice, variable_risk
from kpr.results import analysis as explain
from kpr.results.analysis import AnalysisResult
from kpr.results.control import no_control
from kpr.results.evaluation import KprResult, format_rate, meaning
from kpr.results.rates import AttackRate

from .screen import is_terminal, real

if TYPE_CHECKING:
    import polars as pl
    from rich.console import Console

    from kpr.results.utility import UtilityResult

    from .screen import LazyConsole


def text_summary(
    result: KprResult, threshold: float | None = None, kpr_avatars: bool = False
) -> str:
    """The short summary a person reads, as plain text, with advice from its evidence."""
    lines = [f"Knowledge Protection Rate: {format_rate(result.rate)}", result.meaning, ""]
    if threshold is not None:
        verdict = "PASS" if result.rate >= threshold else "FAIL"
        lines.insert(1, f"Release gate: {verdict} (threshold {threshold:g} %)")
    lines += [
        f"  original rows (n)            {result.n:>12,}",
        f"  avatar rows (m)              {result.n_avatars:>12,}",
        f"  unique originals |U|         {result.unique_originals:>12,}",
        f"  linked to a unique avatar |S|{result.linked:>12,}",
    ]
    if result.correct_links is not None:
        lines.append(f"  correct links (own avatar)   {result.correct_links:>12,}")
    lines += [result.claims_for("--pairing"), ""]
    if result.control is not None:
        lines += ["Control", *(f"  {x}" for x in result.control.summary_lines()), ""]
    else:
        lines += [no_control("--control"), ""]
    moved = (
        f", class grid moved down by {result.grid_offset:g} of each width"
        if result.grid_offset
        else ""
    )
    lines += [
        f"Known variables (tolerance {result.tolerance:g}{moved}):",
    ]
    width = max(len(name) for name in result.known)
    for name, v in result.variables.items():
        if v.kind.binned:
            unit = " days" if v.kind is Kind.DATE else ""
            start, origin = "lo", v.lo
            if result.grid_offset and v.lo is not None and v.width is not None:
                start, origin = "the moved origin", v.lo - result.grid_offset * v.width
            detail = (
                f"{v.kind.value:<12} width {v.width:.6g}{unit}, {v.classes} classes "
                f"from {start} {origin:.6g}{unit}"
            )
        else:
            detail = "categorical  values compared as they are"
        lines.append(f"  {name:<{width}}  {detail}")
    if result.warnings:
        lines += ["", "Warnings:"] + [f"  - {w}" for w in result.warnings]
    try:
        risks = [variable_risk(result, name) for name in result.known]
    except ValueError:  # a result without detail
        risks = None
    kpr_avatars = kpr_avatars or result.correct_links is not None
    lines += ["", "What to do next:"] + [f"  - {x}" for x in advice(result, risks, kpr_avatars)]
    return "\n".join(lines)


def _ci(rate: AttackRate) -> str:
    low, high = rate.interval
    return f"{low:.2f} to {high:.2f} %"


def _names(known: tuple[str, ...]) -> str:
    return ", ".join(known)


def text_report(result: AnalysisResult, top: int = 10, kpr_avatars: bool = False) -> str:
    """The analysis as plain text, each part with its one-sentence explanation."""
    a = result.attack
    conf = f"{a.confidence * 100:g} %"
    lines = [
        f"Attacker-knowledge analysis (method {a.method}, tolerance {a.tolerance:g})",
        f"Known variables: {_names(a.known)}",
        "",
        f"Knowledge Protection Rate: {format_rate(a.rate)}  ({conf} CI {_ci(a)})",
        f"  {meaning(a.rate)}",
        f"  {explain.EXPLAIN_INTERVAL.format(conf=a.confidence * 100)}",
        f"  {explain.EXPLAIN_METHOD[a.method]}",
        f"  n {a.n:,}   avatars {a.n_avatars:,}   unique originals |U| {a.unique_originals:,}"
        f"   linked |S| {a.linked:,}",
        f"  {result.claims_for('--pairing')}",
        "",
        "Baselines",
    ]
    lines += _baseline_lines(result)
    lines += _curve_lines(result, conf)
    lines += _sweep_lines(result, top, conf)
    if result.warnings:
        lines += ["", "Warnings:"] + [f"  - {x}" for x in result.warnings]
    kpr_avatars = kpr_avatars or result.correct_links is not None
    lines += ["", "What to do next:"]
    lines += [f"  - {x}" for x in analysis_advice(result, kpr_avatars)]
    return "\n".join(lines)


def _baseline_lines(result: AnalysisResult) -> list[str]:
    """The worst case, the original published as is and the control comparison."""
    a, w = result.attack, result.original_published
    lines = [
        f"  worst case (every unique original linked)  {format_rate(result.worst_case):>9};"
        f"  avatars minus worst case: {a.rate - result.worst_case:+.2f} points",
        f"    {result.worst_case_explanation}",
        f"  original published as is  {format_rate(w.rate):>9}  (CI {_ci(w)});"
        f"  avatars minus original published: {a.rate - w.rate:+.2f} points",
        f"    {result.original_published_explanation}",
    ]
    c = result.control
    if c is None:
        lines.append(f"  {no_control('--control')}")
    else:
        lines += [f"  {x}" for x in c.summary_lines()]
    return lines


def _curve_lines(result: AnalysisResult, conf: str) -> list[str]:
    """The rate at each tolerance of the curve (nothing when it was not drawn)."""
    if not result.tolerance_curve:
        return []
    lines = [
        "",
        "Tolerance curve",
        f"  {'tolerance':>9}  {'KPR':>9}  {conf + ' CI':<18} linked",
    ]
    for p in result.tolerance_curve:
        lines.append(
            f"  {p.tolerance * 100:>8g} %  {format_rate(p.rate):>9}  {_ci(p):<18} {p.linked:,}"
        )
    lines.append(f"  {explain.EXPLAIN_CURVE}")
    return lines


def _sweep_lines(result: AnalysisResult, top: int, conf: str) -> list[str]:
    """The riskiest subsets and each variable's contribution (nothing without a sweep)."""
    s = result.sweep
    if s is None:
        return []
    shown = s.top(top)
    lines = [
        "",
        f"Riskiest subsets of known variables (top {len(shown)} of {len(s.entries)}, "
        f"up to {s.max_known} variables)",
        f"  {'rank':>4}  {'KPR':>9}  {conf + ' CI':<18} {'linked':>7} {'|U|':>9}  known",
    ]
    for i, e in enumerate(shown, 1):
        lines.append(
            f"  {i:>4}  {format_rate(e.rate):>9}  {_ci(e):<18} {e.linked:>7,} "
            f"{e.unique_originals:>9,}  {_names(e.known)}"
        )
    lines.append(f"  {explain.EXPLAIN_SWEEP}")
    width = max(len(x.variable) for x in s.contributions)
    lines += ["", "Contribution of each variable", f"  {'variable':<{width}}  points  subsets"]
    for x in s.contributions:
        lines.append(f"  {x.variable:<{width}}  {x.mean_decrease:>+6.2f}  {x.subsets:>7}")
    lines.append(f"  {explain.EXPLAIN_CONTRIBUTION}")
    return lines


#: Pairs listed in the text summary.
TOP_PAIRS = 10


def _score(x: float | None, digits: int = 3) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _met(value: float, target: float) -> str:
    if not math.isfinite(value):
        return "undefined"
    return "met" if value < target else "NOT met"


def utility_text(result: UtilityResult, top: int = TOP_PAIRS) -> str:
    """The scores as plain text: the summary figures, the columns, the pairs that moved most."""
    from kpr.results.utility import (
        CORRELATION_DIFFERENCE_TARGET,
        HELLINGER_BINS,
        HELLINGER_TARGET,
    )

    cols, pairs = result.columns, result.pair_table()
    lines = [
        f"Utility of the synthetic table ({result.n_synthetic:,} rows) against the original "
        f"({result.n_original:,} rows): {len(cols)} columns, {len(pairs)} pairs",
        "",
        f"Quality score (SDMetrics' Quality Report): {_score(result.overall)}",
        f"  column shapes {_score(result.column_shapes)}   column pair trends "
        f"{_score(result.column_pair_trends)}",
        f"Mean Hellinger distance: {_score(result.mean_hellinger)}  (numbers on "
        f"{HELLINGER_BINS} quantile bins; Octopize's target < "
        f"{HELLINGER_TARGET:g}: {_met(result.mean_hellinger, HELLINGER_TARGET)})",
        f"Correlation difference: {_score(result.correlation_difference, 1)} points of 100"
        f"  (target < {CORRELATION_DIFFERENCE_TARGET:g}: "
        f"{_met(result.correlation_difference, CORRELATION_DIFFERENCE_TARGET)})",
        f"  {result.meaning}",
    ]
    if result.skipped:
        lines.append(f"  Not scored (ids or personal information): {', '.join(result.skipped)}")
    lines.append(f"  {result.kinds_used}")
    width = max([len("column"), *(len(c) for c in cols["column"])])
    lines += _column_lines(cols, width)
    lines += _pair_lines(pairs, top, width)
    return "\n".join(lines)


def _column_lines(cols: pl.DataFrame, width: int) -> list[str]:
    """Each column's shape score, the lowest first."""
    lines = [
        "",
        "Column shapes (lowest score first)",
        f"  {'column':<{width}}  {'kind':<11}  {'metric':<12}  {'score':>6}  {'Hellinger':>9}"
        f"  {'missing o/s':>13}",
    ]
    for r in cols.sort("score", nulls_last=True).iter_rows(named=True):
        missing = f"{100 * r['missing_original']:.1f}/{100 * r['missing_synthetic']:.1f} %"
        lines.append(
            f"  {r['column']:<{width}}  {r['kind']:<11}  {r['metric']:<12}  "
            f"{_score(r['score']):>6}  {_score(r['hellinger']):>9}  {missing:>13}"
        )
    return lines


def _pair_lines(pairs: pl.DataFrame, top: int, width: int) -> list[str]:
    """The ``top`` pairs whose association moved most (nothing without pairs)."""
    if not len(pairs):
        return []
    shown = pairs.head(top)
    lines = [
        "",
        f"Pairs whose association moved most (top {len(shown)} of {len(pairs)})",
        f"  {'pair':<{2 * width + 3}}  {'score':>6}  {'association':<11}  {'original':>8}  "
        f"{'synthetic':>9}  {'change':>7}",
    ]
    for r in shown.iter_rows(named=True):
        name = f"{r['column_1']} x {r['column_2']}"
        change = r["association_change"]
        lines.append(
            f"  {name:<{2 * width + 3}}  {_score(r['score']):>6}  {r['association']:<11}  "
            f"{_score(r['original_association']):>8}  {_score(r['synthetic_association']):>9}  "
            f"{'-' if change is None else f'{change:+.3f}':>7}"
        )
    lines.append(
        "  association: r = |Pearson's r|, cramers_v = Cramer's V, eta2 = share of the "
        "number's variance its category explains"
    )
    return lines


def print_text(console: Console | LazyConsole, text: str) -> None:
    from rich.markup import escape

    real(console).print(escape(text), highlight=False, soft_wrap=True)


def started() -> None:
    """The command's imports are done. They made hundreds of thousands of objects
    that live until the process ends: ``kpr.cli.app.main`` keeps the cyclic
    collector off while they are made, and they are frozen out of its scans here
    (what it saves: docs/benchmarks.md) before it is turned on again."""
    gc.freeze()
    gc.enable()


class StepLog:
    """Progress for a log (stderr is not a terminal): one line per step, written when
    the step ends, with its time and the time since the command's work began. A step
    that fails is never written, so a bad input, found while its step runs or before
    any, gets its one error line alone."""

    def __init__(self, held: bool = False) -> None:
        self.began = time.monotonic()
        self.pending: tuple[str, float] | None = None
        #: the last count reported: a report that does not move it is no new step
        self.counted: tuple[int, int, str] | None = None
        #: lines of steps ended before the inputs were checked, when ``held``
        self.held: list[str] | None = [] if held else None

    def step(self, label: str) -> None:
        """``label`` begins: the step before it ended. :data:`INPUTS_CHECKED` releases
        the lines held until then."""
        self.end()
        if label == INPUTS_CHECKED:
            for line in self.held or ():
                print(line, file=sys.stderr, flush=True)
            self.held = None
            return
        self.pending = (label, time.monotonic())

    def count(self, done: int, total: int, label: str) -> None:
        """``done`` of ``total`` steps ended; ``label`` is under way unless all are done.
        The same count reported again (a stage that checks in mid-way) is ignored: it
        would end the step and write its line twice."""
        if (done, total, label) == self.counted:
            return
        self.counted = (done, total, label)
        self.end()
        if done < total:
            self.pending = (f"{label} ({done + 1}/{total})", time.monotonic())

    def end(self) -> None:
        """The step under way ended: its line."""
        if self.pending is not None:
            label, since = self.pending
            now = time.monotonic()
            line = f"kpr: [{now - self.began:7.1f} s] {label} ({now - since:.1f} s)"
            if self.held is None:
                print(line, file=sys.stderr, flush=True)
            else:
                self.held.append(line)
            self.pending = None


@contextlib.contextmanager
def progress(console: Console | LazyConsole, quiet: bool, held: bool = False) -> Iterator[Step]:
    """A spinner naming the step under way, or on a log (stderr not a terminal) a line
    per step ended (:class:`StepLog`; ``held``: none before the evaluation names
    :data:`INPUTS_CHECKED`); nothing with ``quiet``. Entered once the command's
    imports are done (:func:`started`)."""
    started()
    if quiet:
        yield lambda _step: None
        return
    if not is_terminal(console):
        log = StepLog(held)
        yield log.step
        log.step(INPUTS_CHECKED)  # not reached when the work failed: nothing more written
        return
    from rich.markup import escape

    with real(console).status("starting") as status:
        yield lambda step: status.update(escape(step) + " ...")


@contextlib.contextmanager
def progress_bar(console: Console | LazyConsole, quiet: bool) -> Iterator[Progress | None]:
    """A bar naming the attack under way, or on a log a line per step ended
    (:class:`StepLog`); nothing with ``quiet``. Entered once the command's imports are
    done (:func:`started`)."""
    started()
    if quiet:
        yield None
        return
    if not is_terminal(console):
        log = StepLog()
        yield log.count
        log.end()
        return
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Bar(*columns, console=real(console), transient=True) as bar:
        task = bar.add_task("reading the inputs", total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=escape(label))

        yield update
