"""``kpr inference``: what an attacker who knows some variables of a person infers
about secret columns from the avatars (IAL against the population guess, DiSCO,
the expected CAP, against a control when given).

Added to the ``kpr`` group by ``kpr.cli.app``; the measures and the HTML renderer are
imported inside the command.
"""

from __future__ import annotations

from pathlib import Path

import click

from kpr.cli.common import CONTEXT, check_writes, emit, report_option, stderr
from kpr.cli.options import (
    CONTROL,
    CONTROL_NEEDS,
    FORMAT,
    KINDS,
    QUIET,
    READ,
    TOLERANCE,
    Control,
    requires,
    split_names,
    tables,
    whole,
)
from kpr.inputs.reading import ReadSettings
from kpr.results import json

from . import text


@click.command("inference", context_settings=CONTEXT)
@tables("synthetic")
@click.option(
    "--known", "-k", multiple=True, required=True,
    help="Known variables, comma-separated; repeat the option, or quote a name holding a "
    "comma: --known '\"income, net\",age'.",
)  # fmt: skip
@click.option(
    "--secret", "-s", multiple=True, required=True,
    help="Secret columns the attacker tries to learn, comma-separated (repeatable).",
)  # fmt: skip
@click.option(
    "--denom-lim",
    type=whole("--denom-lim", 1),
    help="synthpop's denominator limit: a profile with more avatars than this discloses "
    "nothing by DiS/DiSCO (default: no limit).",
)
@CONTROL
@TOLERANCE
@KINDS
@READ
@FORMAT
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@report_option
@QUIET
@click.pass_context
def inference_command(
    ctx: click.Context,
    original: str,
    synthetic: str,
    known: tuple[str, ...],
    secret: tuple[str, ...],
    denom_lim: int | None,
    control: Control,
    tolerance: float,
    kinds: dict[str, str],
    read: ReadSettings,
    fmt: str,
    as_json: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """What an attacker who knows KNOWN of a person infers about each SECRET column
    from SYNTHETIC (CSV or Parquet): the people linked whose avatar gives their secret
    right, against guessing the most common secret of their profile; synthpop's DiSCO,
    Dorig and DiSDiO; the expected CAP; with --control, each against people not used to
    make the avatars, at the same size.

    \b
    Example:
      kpr inference original.csv avatars.csv -k age,sex --secret income --control holdout.csv
    \f
    Parameters
    ----------
    original, synthetic : the two tables' paths.
    known, secret : comma-separated names (repeatable).
    denom_lim : ``--denom-lim``.
    control : ``--control``, ``--control-subsets``, ``--seed`` (a Control).
    tolerance, kinds, read : as ``kpr evaluate``'s.
    fmt, as_json, report, quiet : what is printed and written.
    """
    from kpr.analysis.inference import inference

    requires(ctx, CONTROL_NEEDS)
    fmt = "json" if as_json else fmt
    inputs = [original, synthetic, *([control.path] if control.path else [])]
    check_writes({"--report": report}, inputs, fmt)
    with text.progress(stderr, quiet, held=True) as progress:
        result = inference(
            original, synthetic, split_names(known), secret=split_names(secret),
            denom_lim=denom_lim, tolerance=tolerance, kinds=kinds, progress=progress,
            **control.keywords(), **read.keywords(),
        )  # fmt: skip
    if report is not None:
        from kpr.render.inference import write_inference

        labels = [("Original", original), ("Synthetic", synthetic)]
        if control.path:
            labels.append(("Control", control.path))
        write_inference(result, report, inputs=labels)
    emit(
        fmt, lambda: json.dumps(result.to_dict()), lambda: "\n".join(result.summary_lines()), report
    )
