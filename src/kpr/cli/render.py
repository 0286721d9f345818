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
