"""``kpr analyze``: what an attacker's knowledge buys them.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

from pathlib import Path

import click

from kpr.analysis import (
    DEFAULT_MAX_ATTACKS,
    DEFAULT_TOLERANCES,
    AnalysisResult,
    AttackRate,
    analyze,
    check_tolerances,
)
from kpr.cli.common import (
    CONTEXT,
    check_files,
    check_report,
    emit,
    report_option,
    stderr,
)
from kpr.cli.options import (
    CONTROL,
    CONTROL_NEEDS,
    CSV,
    FORMAT,
    KINDS,
    KPR_AVATARS,
    PAIRING,
    QUIET,
    TOLERANCE,
    Checked,
    declared_kinds,
    na_markers,
    parse_delimiter,
    requires,
    split_names,
    whole,
)
from kpr.demo import DEMO_KNOWN, demo_paths
from kpr.errors import InputError
from kpr.render.risk import analysis_advice
from kpr.results.analysis import (
    EXPLAIN_CONTRIBUTION,
    EXPLAIN_CURVE,
    EXPLAIN_INTERVAL,
    EXPLAIN_METHOD,
    EXPLAIN_SWEEP,
)
from kpr.results.evaluation import format_rate, meaning

from . import render


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
        f"  {EXPLAIN_INTERVAL.format(conf=a.confidence * 100)}",
        f"  {EXPLAIN_METHOD[a.method]}",
        f"  n {a.n:,}   avatars {a.n_avatars:,}   unique originals |U| {a.unique_originals:,}"
        f"   linked |S| {a.linked:,}",
        f"  {result.claims_for('--pairing')}",
        "",
        "Baselines",
    ]
    w = result.original_published
    lines += [
        f"  worst case (every unique original linked)  {format_rate(result.worst_case):>9};"
        f"  avatars minus worst case: {a.rate - result.worst_case:+.2f} points",
        f"    {result.worst_case_explanation}",
        f"  original published as is  {format_rate(w.rate):>9}  (CI {_ci(w)});"
        f"  avatars minus original published: {a.rate - w.rate:+.2f} points",
        f"    {result.original_published_explanation}",
    ]
    c = result.control
    if c is None:
        lines.append(
            "  control: none given (--control: individuals of the same population not used "
            "to train the synthesizer)"
        )
    else:
        lines += [f"  {x}" for x in c.summary_lines()]
    if result.tolerance_curve:
        lines += [
            "",
            "Tolerance curve",
            f"  {'tolerance':>9}  {'KPR':>9}  {conf + ' CI':<18} linked",
        ]
        for p in result.tolerance_curve:
            lines.append(
                f"  {p.tolerance * 100:>8g} %  {format_rate(p.rate):>9}  {_ci(p):<18} {p.linked:,}"
            )
        lines.append(f"  {EXPLAIN_CURVE}")
    s = result.sweep
    if s is not None:
        shown = s.top(top)
        lines += [
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
        lines.append(f"  {EXPLAIN_SWEEP}")
        width = max(len(x.variable) for x in s.contributions)
        lines += ["", "Contribution of each variable", f"  {'variable':<{width}}  points  subsets"]
        for x in s.contributions:
            lines.append(f"  {x.variable:<{width}}  {x.mean_decrease:>+6.2f}  {x.subsets:>7}")
        lines.append(f"  {EXPLAIN_CONTRIBUTION}")
    if result.warnings:
        lines += ["", "Warnings:"] + [f"  - {x}" for x in result.warnings]
    kpr_avatars = kpr_avatars or result.correct_links is not None
    lines += ["", "What to do next:"]
    lines += [f"  - {x}" for x in analysis_advice(result, kpr_avatars)]
    return "\n".join(lines)


def _parse_tolerances(value: str) -> tuple[float, ...]:
    """``--tolerances``: comma-separated, each checked as the API checks its tolerances."""
    values = [v.strip() for v in value.split(",") if v.strip()]
    if not values:
        raise InputError("--tolerances is empty: give e.g. 0.01,0.02,0.05,0.1,0.2")
    return check_tolerances(values)


@click.command("analyze", context_settings=CONTEXT)
@click.argument("original", required=False, type=click.Path(path_type=str))
@click.argument("avatars", required=False, type=click.Path(path_type=str))
@click.option(
    "--candidates",
    "-c",
    multiple=True,
    help="Variables an attacker might know, comma-separated; every subset of up to "
    "--max-known of them is attacked.",
)
@click.option(
    "--known",
    "-k",
    multiple=True,
    help="The attack the interval, baselines and tolerance curve are for "
    "(default: all candidates).",
)
@click.option(
    "--max-known",
    type=whole("--max-known", 1),
    help="Largest subset in the sweep (default: 3, or fewer when there are fewer candidates).",
)
@click.option(
    "--max-attacks",
    type=whole("--max-attacks", 1),
    default=DEFAULT_MAX_ATTACKS,
    show_default=True,
    help="Refuse a sweep of more attacks than this (subsets of --candidates); raise it "
    "to run a larger sweep.",
)
@CONTROL
@PAIRING
@KPR_AVATARS
@click.option(
    "--tolerances",
    type=Checked("tolerances", _parse_tolerances),
    default=",".join(f"{t:g}" for t in DEFAULT_TOLERANCES),
    show_default=True,
    help="Tolerances of the curve, comma-separated.",
)
@click.option(
    "--method",
    type=click.Choice(["bins", "window"]),
    default="bins",
    show_default=True,
    help="bins: the specified KPR (classes); window: ± tolerance * |mean| around each value.",
)
@TOLERANCE
@KINDS
@CSV
@FORMAT
@click.option(
    "--top",
    type=whole("--top", 0),
    default=10,
    show_default=True,
    help="How many of the riskiest subsets to show (text and --report; JSON holds all).",
)
@report_option
@QUIET
@click.option(
    "--demo",
    is_flag=True,
    help="Analyze the bundled demo (UCI Adult against a synthetic version); candidates "
    "default to age, sex, race, marital_status, education, native_country.",
)
def analyze_command(
    original: str | None,
    avatars: str | None,
    candidates: tuple[str, ...],
    known: tuple[str, ...],
    max_known: int | None,
    max_attacks: int,
    control: str | None,
    control_subsets: int,
    seed: int,
    pairing: str | None,
    kpr_avatars: bool,
    tolerances: tuple[float, ...],
    method: str,
    tolerance: float,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    date: tuple[str, ...],
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
    fmt: str,
    top: int,
    report: Path | None,
    quiet: bool,
    demo: bool,
) -> None:
    """Which known variables put individuals at risk: the rate of every subset of the
    CANDIDATES, each variable's contribution, the Wilson interval, the control and
    the original published as is, the worst case, and the rate across tolerances.

    \b
    Examples:
      kpr analyze original.csv avatars.csv --candidates age,sex,region,zip --max-known 3
      kpr analyze original.csv avatars.csv -c age,sex,region --control holdout.csv
      kpr analyze --demo --report analysis.html
    """
    requires(click.get_current_context(), CONTROL_NEEDS)
    if demo:
        if original is not None or avatars is not None:
            raise InputError("--demo uses the bundled tables: give no ORIGINAL or AVATARS")
        paths = demo_paths()
        original, avatars = str(paths[0]), str(paths[1])
        labels = [f"{p.name} (bundled demo)" for p in paths]
    elif original is None or avatars is None:
        raise click.UsageError("give ORIGINAL and AVATARS (or --demo)")
    else:
        labels = [original, avatars]
    if control is not None:
        labels.append(control)
    names = split_names(candidates) or (list(DEMO_KNOWN) if demo else [])
    known_names = split_names(known) or None
    if not names and known_names is None:
        raise InputError("give --candidates: the variables an attacker might know")
    if max_known is None:
        max_known = min(3, len(names)) if names else 3
    kinds = declared_kinds(categorical, numeric, date)
    inputs = [original, avatars, *([control] if control else [])]
    check_files({"--report": report}, inputs, fmt)  # before the work
    check_report(report)
    with render.progress_bar(stderr, quiet) as progress:
        result = analyze(
            original,
            avatars,
            known_names,
            candidates=names or None,
            max_known=max_known,
            control=control,
            control_subsets=control_subsets,
            seed=seed,
            pairing=pairing,
            tolerance=tolerance,
            tolerances=tolerances,
            method=method,  # type: ignore[arg-type]
            kinds=kinds or None,
            progress=progress,
            delimiter=parse_delimiter(delimiter),
            encoding=encoding,
            na_values=na_markers(na_value),
            max_attacks=max_attacks,
        )
    if report is not None:
        result.to_html(report, top=top, inputs=labels, kpr_avatars=kpr_avatars)
    emit(fmt, result.to_json, lambda: text_report(result, top, kpr_avatars), report)
