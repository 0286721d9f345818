"""The ``kpr`` command line (click + rich).

Exit codes: 0 done; 1 the ``--fail-under`` release gate is not met; 2 bad usage
or bad input (one line on stderr, never a traceback).
"""

from __future__ import annotations

import gc
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kpr.demo import DEMO_KNOWN, demo_paths
from kpr.errors import KprError
from kpr.version import __version__

from .common import CONTEXT, OUTPUTS, Outputs, emit, stderr
from .engines import ENGINE, Engine
from .imports import LIBRARIES, imported
from .options import (
    CONTROL,
    CONTROL_NEEDS,
    GRID_OFFSET,
    KINDS,
    KPR_AVATARS,
    PAIRING,
    READ,
    TOLERANCE,
    WIDTHS,
    Control,
    Widths,
    requires,
    split_names,
    tables,
)

if TYPE_CHECKING:
    from kpr.inputs.reading import ReadSettings
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
    "membership": "kpr.cli.membership:membership_command",
    "inference": "kpr.cli.inference:inference_command",
    "assess": "kpr.cli.assess:assess_command",
    "verify": "kpr.cli.assess:verify_command",
}


#: Command modules that load no table library when imported (their commands do when
#: they run): imported alone, so that ``--help`` stays quick.
LIGHT_MODULES = frozenset({"kpr.cli.assess"})

#: What ``kpr evaluate`` and ``kpr demo`` import before they read a table (polars,
#: numpy, narwhals and kpr's engine with them), from a thread of their own (``imports``).
EVALUATION_MODULES = ("kpr.cli.text", "kpr.api")


class LazyGroup(click.Group):
    """A click group whose ``lazy`` commands are imported on first use (click's
    documented LazyGroup pattern), from a thread of their own (``imports``)."""

    def __init__(self, *args: Any, lazy: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, name = self.lazy[cmd_name].split(":")
        libraries = () if module in LIGHT_MODULES else LIBRARIES
        command = getattr(imported(module, libraries=libraries)[0], name)
        assert isinstance(command, click.Command), self.lazy[cmd_name]
        return command


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="kpr")
def cli() -> None:
    """Knowledge Protection Rate: how many real individuals an attacker who knows a
    few of their variables could single out in a synthetic (avatar) table."""


def emit_evaluation(
    result: KprResult,
    out: Outputs,
    inputs: tuple[str, str],
    kpr_avatars: bool = False,
) -> None:
    """Print the result (with its inference's block when ``--secret`` asked for it),
    write the requested files, apply the release gate."""
    from kpr.inputs.writers import write_csv
    from kpr.results import json

    from . import text

    threshold = out.fail_under
    if out.linked_out is not None:
        write_csv(result.linked_frame(), out.linked_out)
    if out.report is not None:
        result.to_html(
            out.report, threshold=threshold, show_values=out.show_values, inputs=inputs,
            kpr_avatars=kpr_avatars,
        )  # fmt: skip

    def payload() -> str:
        data = result.to_dict()
        if threshold is not None:
            data["fail_under"] = threshold
            data["passed"] = result.rate >= threshold
        return json.dumps(data)

    def summary() -> str:
        lines = text.text_summary(result, threshold, kpr_avatars)
        if result.inference is not None:
            lines += "\n\nWhat the attacker infers\n" + "\n".join(result.inference.summary_lines())
        return lines

    emit(out.fmt, payload, summary, out.report, (out.linked_out,))
    if threshold is not None and result.rate < threshold:
        sys.exit(1)


@cli.command(context_settings=CONTEXT)
@tables()
@click.option(
    "--known",
    "-k",
    multiple=True,
    required=True,
    help="Known variables, comma-separated; repeat the option, or quote a name holding a "
    "comma: --known '\"income, net\",age'.",
)
@TOLERANCE
@GRID_OFFSET
@KINDS
@WIDTHS
@READ
@ENGINE
@CONTROL
@PAIRING
@KPR_AVATARS
@click.option(
    "--secret", "-s", multiple=True,
    help="Secret columns: adds what the attacker infers about them (as kpr inference does), "
    "comma-separated (repeatable).",
)  # fmt: skip
@OUTPUTS
def evaluate(
    original: str,
    avatars: str,
    known: tuple[str, ...],
    tolerance: float,
    grid_offset: float,
    kinds: dict[str, str],
    widths: Widths,
    read: ReadSettings,
    engine: Engine,
    control: Control,
    pairing: str | None,
    kpr_avatars: bool,
    secret: tuple[str, ...],
    out: Outputs,
) -> None:
    """Compute the Knowledge Protection Rate of AVATARS against ORIGINAL (CSV or Parquet).

    \b
    Example:
      kpr evaluate original.csv avatars.csv --known age,sex,region --fail-under 90
    \f
    Parameters
    ----------
    original, avatars : the two tables' paths, as given.
    known : ``--known``, each a comma-separated list (:func:`split_names`).
    tolerance : ``--tolerance``, checked while parsed.
    grid_offset : ``--grid-offset``, checked while parsed.
    kinds : ``--categorical``, ``--numeric``, ``--date`` as one mapping.
    widths : ``--width``, ``--metadata``, ``--table`` (:class:`Widths`).
    read : ``--delimiter``, ``--encoding``, ``--na-value`` (a ReadSettings).
    engine : ``--engine``, ``--spark-master``, ``--dask-scheduler``, ``--row-id``.
    control : ``--control``, ``--control-subsets``, ``--seed`` (:class:`Control`).
    pairing, kpr_avatars : ``--pairing``, ``--kpr-avatars``.
    secret : ``--secret``: adds ``kpr inference``'s block.
    out : what is printed and written, and the release gate (:class:`Outputs`).
    """
    names, secrets = split_names(known), split_names(secret)
    read_names = [*names, *(s for s in secrets if s not in names)]
    context = click.get_current_context()  # heap warmed, original read: waited for at its end
    context.with_resource(engine.while_importing(original, avatars, read_names, len(names)))
    imported(*EVALUATION_MODULES)
    from . import text

    requires(context, CONTROL_NEEDS | {"table": "metadata"})
    out.check((original, avatars))
    engine.check(pairing, control.path)
    _check_attack(names, secrets, tolerance, kinds, grid_offset, widths, control)
    with text.progress(stderr, out.quiet, held=True) as step:
        inputs = engine.tables(
            original, avatars, read_names, read, out.linked_out is not None, step
        )
        from kpr.api import evaluate as evaluate_tables

        result = evaluate_tables(
            *inputs, names, secret=secrets or None, tolerance=tolerance, kinds=kinds,
            progress=step, row_id=engine.row_id, pairing=pairing, grid_offset=grid_offset,
            **widths.keywords(), **control.keywords(), **read.keywords(),
        )  # fmt: skip
    emit_evaluation(result, out, (original, avatars), kpr_avatars)


def _check_attack(
    names: list[str],
    secrets: list[str],
    tolerance: float,
    kinds: dict[str, str],
    grid_offset: float,
    widths: Widths,
    control: Control,
) -> None:
    """``kpr evaluate``'s attack options checked before any file is read or engine
    started (``kpr.api.check_evaluation``): options that cannot go together are one
    line at once, whatever the tables' size."""
    from kpr.api import check_evaluation
    from kpr.engine.tuning import DEFAULT_TUNING

    check_evaluation(
        names, tolerance=tolerance, kinds=kinds, grid_offset=grid_offset,
        secret=secrets or None, tuning=DEFAULT_TUNING, **widths.keywords(), **control.keywords(),
    )  # fmt: skip


@cli.command(context_settings=CONTEXT)
@OUTPUTS
@click.option(
    "--write",
    "write",
    type=click.Path(file_okay=False, path_type=Path),
    help="Instead of evaluating, write the demo as files into this folder (created if "
    "missing; existing files are never overwritten): original.csv (the first 24,000 rows), "
    "holdout.csv (the other 8,561), avatars.csv and pairing.csv (kpr avatarize --k 20 "
    "--seed 0 of original.csv), metadata.json (SDV).",
)
def demo(write: Path | None, out: Outputs) -> None:
    """Evaluate the bundled demo: UCI Adult (32,561 people) against a synthetic version
    made by a CART synthesizer, the attacker knowing age, sex, race, marital status,
    education and native country.

    \b
    Example:
      kpr demo --write demo && cd demo
      kpr evaluate original.csv avatars.csv -k age,sex --pairing pairing.csv --control holdout.csv
    """
    imported(*EVALUATION_MODULES)
    from kpr.api import evaluate as evaluate_tables

    from . import text

    if write is not None:
        from .demo_files import write_demo

        if out.given():
            raise click.UsageError("--write only writes the demo files: give no other option")
        with text.progress(stderr, out.quiet, held=True) as step:
            step(f"writing the demo files to {write}")
            summary = write_demo(write)
        click.echo(summary)
        return
    original, avatars = demo_paths()
    out.check((original, avatars))
    with text.progress(stderr, out.quiet, held=True) as step:
        result = evaluate_tables(original, avatars, known=DEMO_KNOWN, progress=step)
    labels = (f"{original.name} (bundled demo)", f"{avatars.name} (bundled demo)")
    emit_evaluation(result, out, labels)


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
    library's warning, one line too. The cyclic garbage collector is off until
    the command's imports are done (``text.started``). polars' allocator keeps its
    own options: asking it for huge pages made the command slower and less steady
    on a virtual machine (docs/benchmarks.md, the third session of 2026-12-06)."""
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            _main(argv)
    finally:
        gc.enable()


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
