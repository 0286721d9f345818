"""The ``kpr`` command line (click + rich).

Exit codes: 0 done; 1 the ``--fail-under`` release gate is not met; 2 bad usage
or bad input (one line on stderr, never a traceback).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kpr.demo import DEMO_KNOWN, demo_paths
from kpr.errors import KprError
from kpr.version import __version__

from .common import (
    CONTEXT,
    check_outputs,
    emit,
    output_options,
    report_options,
    stderr,
)
from .options import (
    CONTROL,
    CONTROL_NEEDS,
    CSV,
    KINDS,
    KPR_AVATARS,
    PAIRING,
    TOLERANCE,
    WIDTHS,
    declared_kinds,
    na_markers,
    parse_delimiter,
    parse_widths,
    requires,
    split_names,
)

if TYPE_CHECKING:
    from kpr.results.evaluation import KprResult

#: The commands defined in other modules, as ``name: "module:attribute"``. A module
#: is imported only when its command runs (or ``--help`` lists them), so each
#: command pays only for its own imports: keep heavy ones (the avatar package,
#: scipy, matplotlib, the HTML renderer) inside the command's function or its module.
LAZY_COMMANDS = {
    "analyze": "kpr.cli.analyze:analyze_command",
    "avatarize": "kpr.cli.avatar:avatarize_command",
    "sweep": "kpr.cli.ksweep:sweep_command",
    "tune": "kpr.cli.ksweep:tune_command",
    "distance": "kpr.cli.avatar:distance_command",
    "protect": "kpr.cli.protect:protect_command",
    "utility": "kpr.cli.utility:utility_command",
}


class LazyGroup(click.Group):
    """A click group whose ``lazy`` commands are imported on first use (click's
    documented LazyGroup pattern)."""

    def __init__(self, *args: Any, lazy: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, name = self.lazy[cmd_name].split(":")
        command = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command), self.lazy[cmd_name]
        return command


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="kpr")
def cli() -> None:
    """Knowledge Protection Rate: how many real individuals an attacker who knows a
    few of their variables could single out in a synthetic (avatar) table."""


def emit_evaluation(
    result: KprResult,
    fmt: str,
    threshold: float | None,
    linked_out: Path | None,
    report: Path | None = None,
    show_values: bool = False,
    inputs: tuple[str, str] | None = None,
    kpr_avatars: bool = False,
) -> None:
    """Print the result, write the requested files, apply the release gate."""
    from kpr.inputs.writers import write_csv
    from kpr.results import json

    from . import render

    if linked_out is not None:
        write_csv(result.linked_frame(), linked_out)
    if report is not None:
        result.to_html(
            report, threshold=threshold, show_values=show_values, inputs=inputs,
            kpr_avatars=kpr_avatars,
        )  # fmt: skip

    def payload() -> str:
        data = result.to_dict()
        if threshold is not None:
            data["fail_under"] = threshold
            data["passed"] = result.rate >= threshold
        return json.dumps(data)

    emit(
        fmt, payload, lambda: render.text_summary(result, threshold, kpr_avatars),
        report, (linked_out,),
    )  # fmt: skip
    if threshold is not None and result.rate < threshold:
        sys.exit(1)


@cli.command(context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@click.argument("avatars", type=click.Path(path_type=str))
@click.option(
    "--known",
    "-k",
    multiple=True,
    required=True,
    help="Known variables, comma-separated; repeat the option, or quote a name holding a "
    "comma: --known '\"income, net\",age'.",
)
@TOLERANCE
@KINDS
@WIDTHS
@CSV
@click.option(
    "--engine",
    type=click.Choice(["polars", "spark", "dask"]),
    default="polars",
    show_default=True,
    help="polars on this machine (streams large Parquet files); Spark: the files are read "
    "and evaluated by Spark (pip install 'kpr[spark]'); Dask: Parquet files read and "
    "evaluated by Dask (pip install 'kpr[dask]').",
)
@click.option(
    "--spark-master",
    default="local[*]",
    show_default=True,
    help="Spark master URL for --engine spark, e.g. spark://host:7077.",
)
@click.option(
    "--dask-scheduler",
    metavar="ADDRESS",
    help="Address of a running Dask scheduler, e.g. tcp://host:8786 (implies --engine dask).",
)
@click.option(
    "--row-id",
    metavar="COLUMN",
    help="A column of integer ids in both files that --linked-out reports instead of row "
    "positions.",
)
@CONTROL
@PAIRING
@KPR_AVATARS
@output_options
@report_options
def evaluate(
    original: str,
    avatars: str,
    known: tuple[str, ...],
    tolerance: float,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    date: tuple[str, ...],
    width: tuple[str, ...],
    metadata: str | None,
    table: str | None,
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
    engine: str,
    spark_master: str,
    dask_scheduler: str | None,
    row_id: str | None,
    control: str | None,
    control_subsets: int,
    seed: int,
    pairing: str | None,
    kpr_avatars: bool,
    fmt: str,
    fail_under: float | None,
    linked_out: Path | None,
    quiet: bool,
    report: Path | None,
    show_values: bool,
) -> None:
    """Compute the Knowledge Protection Rate of AVATARS against ORIGINAL (CSV or Parquet).

    \b
    Example:
      kpr evaluate original.csv avatars.csv --known age,sex,region --fail-under 90
    """
    from kpr.api import evaluate as evaluate_tables
    from kpr.engine.dask import dask_client, dask_inputs
    from kpr.engine.spark import spark_inputs, spark_session

    from . import render

    requires(click.get_current_context(), CONTROL_NEEDS | {"table": "metadata"})
    names = split_names(known)
    kinds = declared_kinds(categorical, numeric, date)
    widths = parse_widths(width)
    check_outputs(linked_out, report, show_values, (original, avatars), fmt)
    if dask_scheduler is not None:
        engine = "dask"
    if engine in ("spark", "dask") and (pairing or control) is not None:
        raise KprError(
            f"--pairing and --control need row positions, which --engine {engine} does not "
            "keep; drop them or use --engine polars"
        )
    with render.progress(stderr, quiet) as step:
        tables: tuple[Any, Any] = (original, avatars)
        if dask_scheduler is not None:
            step("connecting to the Dask scheduler")
            dask_client(dask_scheduler)
        if engine == "dask":
            tables = dask_inputs(
                original, avatars, names, row_id, positions=linked_out is not None and not row_id
            )
        if engine == "spark":
            step("starting Spark")
            tables = spark_inputs(
                spark_session(spark_master),
                original,
                avatars,
                names,
                delimiter=parse_delimiter(delimiter),
                encoding=encoding,
                na_values=na_markers(na_value),
                row_id=row_id,
                positions=linked_out is not None and row_id is None,
            )
        result = evaluate_tables(
            *tables,
            known=names,
            tolerance=tolerance,
            kinds=kinds,
            widths=widths,
            metadata=metadata,
            table=table,
            delimiter=parse_delimiter(delimiter),
            encoding=encoding,
            na_values=na_markers(na_value),
            progress=step,
            row_id=row_id,
            pairing=pairing,
            control=control,
            control_subsets=control_subsets,
            seed=seed,
        )
    emit_evaluation(
        result, fmt, fail_under, linked_out, report, show_values, (original, avatars),
        kpr_avatars,
    )  # fmt: skip


@cli.command(context_settings=CONTEXT)
@output_options
@report_options
@click.option(
    "--write",
    "write",
    type=click.Path(file_okay=False, path_type=Path),
    help="Instead of evaluating, write the demo as files into this folder (created if "
    "missing; existing files are never overwritten): original.csv (the first 24,000 rows), "
    "holdout.csv (the other 8,561), avatars.csv and pairing.csv (kpr avatarize --k 20 "
    "--seed 0 of original.csv), metadata.json (SDV).",
)
def demo(
    write: Path | None,
    fmt: str,
    fail_under: float | None,
    linked_out: Path | None,
    quiet: bool,
    report: Path | None,
    show_values: bool,
) -> None:
    """Evaluate the bundled demo: UCI Adult (32,561 people) against a synthetic version
    made by a CART synthesizer, the attacker knowing age, sex, race, marital status,
    education and native country.

    \b
    Example:
      kpr demo --write demo && cd demo
      kpr evaluate original.csv avatars.csv -k age,sex --pairing pairing.csv --control holdout.csv
    """
    from kpr.api import evaluate as evaluate_tables

    from . import render

    if write is not None:
        from .demo_files import write_demo

        given = [fmt != "text", fail_under, linked_out, report, show_values]
        if any(given):
            raise click.UsageError("--write only writes the demo files: give no other option")
        with render.progress(stderr, quiet) as step:
            step(f"writing the demo files to {write}")
            summary = write_demo(write)
        click.echo(summary)
        return
    original, avatars = demo_paths()
    check_outputs(linked_out, report, show_values, (original, avatars), fmt)
    with render.progress(stderr, quiet) as step:
        result = evaluate_tables(original, avatars, known=DEMO_KNOWN, progress=step)
    labels = (f"{original.name} (bundled demo)", f"{avatars.name} (bundled demo)")
    emit_evaluation(result, fmt, fail_under, linked_out, report, show_values, labels)


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A library's warning as kpr's one line on stderr (no source file, no code line)."""
    text = " ".join(str(message).split())
    print(f"kpr: warning: {text} ({category.__name__})", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: errors become one line on stderr and exit code 2; a
    library's warning, one line too."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        _main(argv)


def _main(argv: list[str] | None) -> None:
    try:
        cli.main(args=argv, prog_name="kpr", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        print(exc.ctx.get_help() if exc.ctx else "")
        sys.exit(0)
    except click.UsageError as exc:
        hint = f" (see 'kpr {exc.ctx.info_name} --help')" if exc.ctx and exc.ctx.parent else ""
        print(f"kpr: error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(2)
    except click.ClickException as exc:
        print(f"kpr: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(2)
    except KprError as exc:
        print(f"kpr: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except click.exceptions.Abort:
        print("kpr: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(0)
