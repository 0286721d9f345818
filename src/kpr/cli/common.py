"""What every ``kpr`` command shares: the consoles, click's context settings, the
output and report options and the checks made before any work.

The command modules (``app``, ``analyze``, ``avatar``) import this one; none
imports another, and ``app`` assembles the group.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from .options import FAIL_UNDER, FORMAT, QUIET, bundle, options
from .screen import LazyConsole, stderr, stdout

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


#: Options every command that prints a result shares.
output_options = options(
    FORMAT,
    click.option(
        "--fail-under",
        type=FAIL_UNDER,
        metavar="PERCENT",
        help="Exit with code 1 when the rate is below this (a release gate).",
    ),
    click.option(
        "--linked-out",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write the linked individuals (original row, avatar row, binned profile) to this CSV.",
    ),
    QUIET,
)


def report_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--report PATH``, shared by every command that can write an HTML report."""
    return click.option(
        "--report",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write a self-contained HTML report (needs: pip install 'kpr[report]').",
    )(func)


def report_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options of the commands that can write the evaluation's HTML report."""
    func = click.option(
        "--show-values",
        is_flag=True,
        help="Put the known values of the first linked individuals in the --report (off by "
        "default: the report may travel further than the data).",
    )(func)
    return report_option(func)


@dataclass(frozen=True)
class Outputs:
    """What an evaluation prints and writes, and its release gate: ``output_options``
    and ``report_options`` as one object."""

    fmt: str
    fail_under: float | None
    linked_out: Path | None
    quiet: bool
    report: Path | None
    show_values: bool

    def check(self, inputs: Iterable[Any]) -> None:
        """Before any work: the files to write can be, and none is one of ``inputs``."""
        outputs = {"--linked-out": self.linked_out, "--report": self.report}
        check_writes(outputs, inputs, self.fmt, self.show_values)

    def given(self) -> bool:
        """Any of them given (``kpr demo --write`` takes none)."""
        return any([self.fmt != "text", self.fail_under, self.linked_out, self.report,
                    self.show_values])  # fmt: skip


def check_report(report: Path | None, show_values: bool = False) -> None:
    """Before any work: ``--show-values`` has a report to go to, matplotlib is there."""
    if report is None:
        if show_values:
            raise click.UsageError("--show-values applies to the HTML report: add --report PATH")
        return
    from kpr.render.page import require_matplotlib

    require_matplotlib()


def command_inputs(outputs: Iterable[str] = ()) -> list[str]:
    """Every file the running command reads: the values of its path arguments and
    options (original, avatars, control, pairing, metadata, holdout...), the
    ``outputs`` options excepted. Taken from the command's own parameters, so an
    input added later is protected without being listed anywhere."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return []
    found: list[str] = []
    for param in ctx.command.params:
        if not isinstance(param.type, click.Path) or set(param.opts) & set(outputs):
            continue
        value = ctx.params.get(param.name or "")
        values = value if isinstance(value, tuple | list) else [value]
        found += [str(v) for v in values if v is not None]
    return found


def check_files(
    outputs: dict[str, Path | None], inputs: Iterable[Any] = (), fmt: str = "text"
) -> None:
    """Before any work: every output can be written safely and overwrites no input:
    neither ``inputs`` nor any file argument of the command (:func:`command_inputs`)."""
    from kpr.inputs.writers import check_outputs as check_output_files

    json_out = "--format json" if fmt == "json" else None
    every = [*inputs, *command_inputs(outputs)]
    check_output_files(outputs, every, stdout_taken=json_out)


def summary_console(*outputs: Path | None) -> LazyConsole:
    """Where the text summary goes: stderr when a file is written to standard output."""
    from kpr.inputs.writers import writes_to_stdout

    return stderr if writes_to_stdout(*outputs) else stdout


def written(report: Path | None) -> str:
    """The line saying where the report went (nothing when it went to standard output)."""
    from kpr.inputs.writers import writes_to_stdout

    if report is None or writes_to_stdout(report):
        return ""
    return f"\nHTML report written to {report}"


def check_writes(
    outputs: dict[str, Path | None],
    inputs: Iterable[Any] = (),
    fmt: str = "text",
    show_values: bool = False,
) -> None:
    """Before any work: the files to write can be, none overwrites an input, and the
    report (``outputs["--report"]``) has what it needs."""
    check_files(outputs, inputs, fmt)
    check_report(outputs.get("--report"), show_values)


#: The output and report options, handed over as one ``out``: an :class:`Outputs`.
OUTPUTS = bundle("out", Outputs, output_options, report_options)


@dataclass(frozen=True)
class PageOutputs:
    """What a command whose result has its own page (inference, membership, utility)
    prints and writes: ``--format``, ``--report``, ``--quiet`` as one object."""

    fmt: str
    report: Path | None
    quiet: bool

    def check(self, inputs: Iterable[Any]) -> None:
        """Before any work: the report can be written, and is none of ``inputs``."""
        check_writes({"--report": self.report}, inputs, self.fmt)

    def emit(self, result: Any, summary: Callable[[], str], labels: list[tuple[str, str]]) -> None:
        """Write the result's page (its registered view; ``labels`` name the files it
        read), then print its JSON or its text ``summary``."""
        from kpr.results import json, views

        if self.report is not None:
            views.to_html(result, self.report, inputs=labels)
        emit(self.fmt, lambda: json.dumps(result.to_dict()), summary, self.report)


#: ``--format``, ``--report``, ``--quiet``, handed over as one ``out``: a :class:`PageOutputs`.
PAGE_OUTPUTS = bundle("out", PageOutputs, FORMAT, report_option, QUIET)


def emit(
    fmt: str,
    json_text: Callable[[], str],
    summary: Callable[[], str],
    report: Path | None = None,
    files: Iterable[Path | None] = (),
) -> None:
    """Print a result once for every command: its JSON on standard output, or its
    text summary (with where the report went) where the written files leave room."""
    from . import text

    if fmt == "json":
        sys.stdout.write(json_text() + "\n")
    else:
        text.print_text(summary_console(*files, report), summary() + written(report))
