"""``kpr inference``: what an attacker who knows some variables of a person infers
about secret columns from the avatars (IAL against the population guess, DiSCO,
the expected CAP, against a control when given).

Added to the ``kpr`` group by ``kpr.cli.app``; the measures and the HTML renderer are
imported inside the command.
"""

from __future__ import annotations

import dataclasses

import click

from kpr.cli.common import CONTEXT, PAGE_OUTPUTS, PageOutputs, stderr
from kpr.cli.engines import COUNTING_ENGINE, Engine
from kpr.cli.options import (
    CONTROL,
    CONTROL_NEEDS,
    TABLE_SETTINGS,
    Control,
    TableSettings,
    requires,
    split_names,
    tables,
    whole,
)

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
@TABLE_SETTINGS
@COUNTING_ENGINE
@PAGE_OUTPUTS
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.pass_context
def inference_command(
    ctx: click.Context,
    original: str,
    synthetic: str,
    known: tuple[str, ...],
    secret: tuple[str, ...],
    denom_lim: int | None,
    control: Control,
    table_settings: TableSettings,
    engine: Engine,
    out: PageOutputs,
    as_json: bool,
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
    table_settings : the tolerance, the declared kinds and the CSV options (a TableSettings).
    engine : ``--engine``, ``--spark-master``, ``--dask-scheduler`` (an Engine).
    out, as_json : what is printed and written (``--json``: ``--format json``).
    """
    from kpr.analysis.inference import inference

    requires(ctx, CONTROL_NEEDS)
    out = dataclasses.replace(out, fmt="json") if as_json else out
    labels = [("Original", original), ("Synthetic", synthetic)]
    labels += [("Control", control.path)] if control.path else []
    out.check(path for _, path in labels)
    engine.check(None, control.path)
    names, secrets = split_names(known), split_names(secret)
    with text.progress(stderr, out.quiet, held=True) as progress:
        columns = list(dict.fromkeys([*names, *secrets]))
        tables = engine.tables(original, synthetic, columns, table_settings.read, False, progress)
        result = inference(
            *tables, names, secret=secrets,
            denom_lim=denom_lim, progress=progress, **control.keywords(),
            **table_settings.keywords(),
        )  # fmt: skip
    out.emit(result, lambda: "\n".join(result.summary_lines()), labels)
