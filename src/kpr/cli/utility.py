"""``kpr utility``: the fidelity of a synthetic table, as SDMetrics' Quality Report
and Octopize's summary figures measure it.

Added to the ``kpr`` group by ``kpr.cli.app``; the metric (numpy, scipy) and the
HTML renderer are imported inside the command.
"""

from __future__ import annotations

from pathlib import Path

import click

from kpr.cli.common import CONTEXT, check_writes, emit, report_option, stderr
from kpr.cli.options import FORMAT, KINDS, QUIET, READ, requires, split_names, tables
from kpr.inputs.reading import ReadSettings
from kpr.results import json

from . import text


@click.command("utility", context_settings=CONTEXT)
@tables("synthetic")
@click.option(
    "--columns",
    "-c",
    multiple=True,
    help="Columns to compare, comma-separated (default: every column of ORIGINAL).",
)
@KINDS
@click.option(
    "--metadata",
    type=click.Path(path_type=str),
    help="SDV metadata JSON: kinds from its sdtypes; columns it calls ids or personal "
    "information are not scored (as in SDMetrics).",
)
@click.option("--table", help="The table of multi-table SDV metadata (needs --metadata).")
@READ
@FORMAT
@report_option
@QUIET
def utility_command(
    original: str,
    synthetic: str,
    columns: tuple[str, ...],
    kinds: dict[str, str],
    metadata: str | None,
    table: str | None,
    read: ReadSettings,
    fmt: str,
    report: Path | None,
    quiet: bool,
) -> None:
    """How faithfully SYNTHETIC follows ORIGINAL (CSV or Parquet): SDMetrics' Quality
    Report (column shapes, column pair trends), Octopize's mean Hellinger distance and
    correlation difference, and the associations that moved.

    \b
    Example:
      kpr utility original.csv synthetic.csv --report utility.html
    \f
    Parameters
    ----------
    original, synthetic : the two tables' paths.
    columns : ``--columns``, comma-separated (default: every column of the original).
    kinds : ``--categorical``, ``--numeric``, ``--date`` as one mapping.
    metadata, table : SDV metadata and its table.
    read : ``--delimiter``, ``--encoding``, ``--na-value`` (a ReadSettings).
    fmt, report, quiet : what is printed and written.
    """
    from kpr.fidelity import utility

    requires(click.get_current_context(), {"table": "metadata"})
    check_writes({"--report": report}, (original, synthetic), fmt)
    with text.progress_bar(stderr, quiet) as progress:
        result = utility(
            original, synthetic,
            columns=split_names(columns) or None,
            kinds=kinds,
            metadata=metadata,
            table=table,
            **read.keywords(),
            progress=progress,
        )  # fmt: skip
    if report is not None:
        from kpr.render.utility import write_utility

        write_utility(result, report, inputs=[("Original", original), ("Synthetic", synthetic)])
    emit(fmt, lambda: json.dumps(result.to_dict()), lambda: text.utility_text(result), report)
