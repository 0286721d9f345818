"""Printing a result for a person (text) or a program (JSON), and progress on stderr."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from kpr.metric.attack import Kind
from kpr.render.risk import advice, variable_risk
from kpr.results.evaluation import KprResult, format_rate
from kpr.results.ksweep import EXPLAIN, KSweepResult, TuneResult
from kpr.results.ksweep_rows import SweepRow


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
    lines += [
        f"Known variables (tolerance {result.tolerance:g}):",
    ]
    width = max(len(name) for name in result.known)
    for name, v in result.variables.items():
        if v.kind.binned:
            unit = " days" if v.kind is Kind.DATE else ""
            detail = (
                f"{v.kind.value:<12} width {v.width:.6g}{unit}, {v.classes} classes "
                f"from lo {v.lo:.6g}{unit}"
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


def print_text(console: Console, text: str) -> None:
    console.print(escape(text), highlight=False, soft_wrap=True)


@contextlib.contextmanager
def progress(console: Console, quiet: bool) -> Iterator[Callable[[str], None]]:
    """A spinner naming the step under way; silent when stderr is not a terminal."""
    if quiet or not console.is_terminal:
        yield lambda _step: None
        return
    with console.status("starting") as status:
        yield lambda step: status.update(escape(step) + " ...")


@contextlib.contextmanager
def progress_bar(console: Console, quiet: bool) -> Iterator[Callable[[int, int, str], None] | None]:
    """A bar naming the attack under way; silent when stderr is not a terminal."""
    if quiet or not console.is_terminal:
        yield None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("reading the inputs", total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=escape(label))

        yield update


# --- kpr sweep and kpr tune -----------------------------------------------------------


def _num(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}" if x == x else "-"  # NaN: undefined metric


def sweep_table(result: KSweepResult, rows: list[SweepRow] | None = None) -> list[str]:
    """One line per k: KPR, interval, (spread, control,) pairing metrics, utility, time."""
    rows = result.rows if rows is None else rows
    conf = f"{result.confidence * 100:g} % CI"
    spread = result.repeats > 1
    control = result.has_control
    head = f"  {'k':>5}  {'KPR':>9}  {conf:<18}"
    if spread:
        head += f" {'min to max':<18}"
    if control:
        head += f" {'control-orig':>12}"
    head += (
        f"  {'correct':>7}  {'re-id':>7}  {'hidden':>8}  {'med LC':>6}  {'copies':>8}  "
        f"{'DCR':>7}  {'NNDR':>5}  {'Hellinger':>9}  {'corr diff':>9}  {'time s':>6}"
    )
    lines = [head]
    for r in rows:
        low, high = r.interval
        line = f"  {r.k:>5}  {format_rate(r.kpr):>9}  {f'{low:.2f} to {high:.2f} %':<18}"
        if spread:
            line += f" {f'{r.kpr_min:.2f} to {r.kpr_max:.2f} %':<18}"
        if control:
            d = r.control_difference
            line += f" {f'{d:+.2f} pts' if d is not None else '-':>12}"
        line += (
            f"  {r.correct_links:>7g}  {r.reidentification:>5.2f} %  {r.hidden_rate:>6.2f} %  "
            f"{r.median_local_cloaking:>6g}  {r.exact_copy_percent:>6.2f} %  "
            f"{_num(r.median_dcr, 3):>7}  {_num(r.median_nndr, 2):>5}  "
            f"{_num(r.mean_hellinger):>9}  {_num(r.correlation_difference):>9}  {r.seconds:>6.2f}"
        )
        lines.append(line)
    if control:
        lines += _control_lines(rows, conf)
    baseline = next((r.control_distance for r in rows if r.control_distance), None)
    if baseline is not None:
        lines.append(
            f"  control's own closeness to the originals (baseline): copies "
            f"{baseline['exact_copy_percent']:.2f} %, DCR {_num(baseline['median_dcr'], 3)}, "
            f"NNDR {_num(baseline['median_nndr'], 2)}"
        )
    return lines


def _control_lines(rows: list[SweepRow], conf: str) -> list[str]:
    """Each k's size-fair control comparison (as ``kpr evaluate --control`` words it)."""
    lines = []
    for r in rows:
        c = r.control_dict()
        if c is None:
            continue
        span = c["difference_interval"]
        drawn = (
            f", {c['subsets']} random subsets of the {c['subsampled']}" if c["subsampled"] else ""
        )
        lines.append(
            f"  k = {r.k}: compared at n = {c['compared_at_size']:,}{drawn}: original "
            f"{format_rate(c['original_kpr_at_size'])}, control "
            f"{format_rate(c['control_kpr_at_size'])}; control minus original "
            f"{c['difference']:+.2f} points ({conf} {span['low']:+.2f} to {span['high']:+.2f})"
        )
        lines.append(f"    {c['verdict']}")
    shared = next((r.control_dict() for r in rows if r.controls), None)
    if shared is not None and shared["shared_rows"]:
        lines.append(f"  note: {shared['shared_sentence']}")
    return lines


def _header(result: KSweepResult) -> list[str]:
    seeds = (
        f"seed {result.seed}"
        if result.repeats == 1
        else f"{result.repeats} repeats, seeds {result.seed}..{result.seed + result.repeats - 1}"
    )
    return [
        f"Known variables: {', '.join(result.known)} (tolerance {result.tolerance:g}; "
        f"n {result.n:,})",
        f"Avatar method: ncp {result.ncp}, synthesis {result.synthesis}, categoricals "
        f"decoded by {result.decoding}, {seeds}",
    ]


def _roles_lines(result: KSweepResult) -> list[str]:
    if not result.roles:
        return []
    columns = result.roles["columns"]
    parts = [
        f"{c['column']} {c['role']}" + (" + missingness" if c["missingness"] else "")
        for c in columns
    ]
    lines = ["Column roles: " + ", ".join(parts)]
    lines += [f"  warning: {c['column']}: {f}" for c in columns for f in c["flags"]]
    return lines


def _explanations(result: KSweepResult) -> list[str]:
    keys = [k for k in EXPLAIN if k != "control" or result.has_control]
    return [f"  {EXPLAIN[k].format(conf=result.confidence * 100)}" for k in keys]


def sweep_text(result: KSweepResult) -> str:
    """The sweep as plain text: parameters, the table, what each column means."""
    lines = ["KPR and utility of the avatars against k", *_header(result), *_roles_lines(result)]
    lines.append("")
    lines += [result.summary(), ""]
    lines += sweep_table(result)
    lines += ["", *_explanations(result)]
    return "\n".join(lines)


def tune_text(result: TuneResult, reproduce: str) -> str:
    """The pick (or why there is none), its privacy and utility, and every k evaluated."""
    lines = []
    row = result.row
    if row is not None:
        low, high = row.interval
        conf = f"{result.sweep.confidence * 100:g} %"
        lines += [
            f"Smallest k reaching a KPR lower bound of {result.target:g} %: k = {row.k}",
            f"  KPR {format_rate(row.kpr)} ({conf} CI {low:.2f} to {high:.2f} %)",
            f"  utility: mean Hellinger {_num(row.mean_hellinger)}, correlation difference "
            f"{_num(row.correlation_difference)}",
            f"  privacy: {row.correct_links:g} correct links (re-identification "
            f"{row.reidentification:.2f} %), hidden rate {row.hidden_rate:.2f} %, median local "
            f"cloaking {row.median_local_cloaking:g}, exact copies {row.exact_copy_percent:.2f} %, "
            f"median DCR {_num(row.median_dcr, 3)}",
        ]
    else:
        lines.append(f"Target not reached: {result.message}")
    lines += ["", *_header(result.sweep), ""]
    lines.append(
        "Evaluated in increasing k, stopping at the first that reaches the target "
        "(larger ks not evaluated):"
        if row is not None
        else "Every k given was evaluated; none reaches the target:"
    )
    lines += sweep_table(result.sweep)
    if row is not None:
        lines += [
            "",
            "Nothing makes the KPR rise with k: check the table you publish.",
            f"The table measured for k = {row.k}"
            + (f" (first repeat, seed {result.sweep.seed}):" if result.sweep.repeats > 1 else ":"),
            f"  {reproduce}",
        ]
    return "\n".join(lines)
