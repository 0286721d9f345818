"""``kpr utility``: the fidelity of a synthetic table, as SDMetrics' Quality Report
and Octopize's summary figures measure it.

Added to the ``kpr`` group by ``kpr.cli.app``; the metric (numpy, scipy) and the
HTML renderer are imported inside the command.
"""

from __future__ import annotations

import click

from kpr.cli.common import CONTEXT, PAGE_OUTPUTS, PageOutputs, stderr
from kpr.cli.options import COLUMN_SETTINGS, TableSettings, requires, split_names, tables

from . import text


@click.command("utility", context_settings=CONTEXT)
@tables("synthetic")
@click.option(
    "--columns",
    "-c",
    multiple=True,
    help="Columns to compare, comma-separated (default: every column of ORIGINAL).",
)
@COLUMN_SETTINGS
@click.option(
    "--metadata",
    type=click.Path(path_type=str),
    help="SDV metadata JSON: kinds from its sdtypes; columns it calls ids or personal "
    "information are not scored (as in SDMetrics).",
)
@click.option("--table", help="The table of multi-table SDV metadata (needs --metadata).")
@PAGE_OUTPUTS
def utility_command(
    original: str,
    synthetic: str,
    columns: tuple[str, ...],
    table_settings: TableSettings,
    metadata: str | None,
    table: str | None,
    out: PageOutputs,
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
    table_settings : the declared kinds and the CSV options (a TableSettings).
    metadata, table : SDV metadata and its table.
    out : ``--format``, ``--report``, ``--quiet`` (a PageOutputs).
    """
    from kpr.fidelity import utility

    requires(click.get_current_context(), {"table": "metadata"})
    out.check((original, synthetic))
    with text.progress_bar(stderr, out.quiet) as progress:
        result = utility(
            original, synthetic, columns=split_names(columns) or None, metadata=metadata,
            table=table, progress=progress, **table_settings.keywords(),
        )  # fmt: skip
    labels = [("Original", original), ("Synthetic", synthetic)]
    out.emit(result, lambda: text.utility_text(result), labels)
