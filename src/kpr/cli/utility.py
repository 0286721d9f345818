"""``kpr utility``: the fidelity of a synthetic table, as SDMetrics' Quality Report
and Octopize's summary figures measure it.

Added to the ``kpr`` group by ``kpr.cli.app``; the metric (numpy, scipy) and the
HTML renderer are imported inside the command.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kpr.cli.common import CONTEXT, check_files, check_report, emit, report_option, stderr
from kpr.cli.options import (
    CSV,
    FORMAT,
    KINDS,
    QUIET,
    declared_kinds,
    na_markers,
    parse_delimiter,
    split_names,
)
from kpr.results import json

from . import render

if TYPE_CHECKING:
    from kpr.results.utility import UtilityResult

#: Pairs listed in the text summary.
TOP_PAIRS = 10


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _met(value: float, target: float) -> str:
    if not math.isfinite(value):
        return "undefined"
    return "met" if value < target else "NOT met"


def utility_text(result: UtilityResult, top: int = TOP_PAIRS) -> str:
    """The scores as plain text: the summary figures, the columns, the pairs that moved most."""
    from kpr.results.utility import CORRELATION_DIFFERENCE_TARGET, HELLINGER_TARGET

    cols, pairs = result.columns, result.pair_table()
    lines = [
        f"Utility of the synthetic table ({result.n_synthetic:,} rows) against the original "
        f"({result.n_original:,} rows): {len(cols)} columns, {len(pairs)} pairs",
        "",
        f"Quality score (SDMetrics' Quality Report): {_num(result.overall)}",
        f"  column shapes {_num(result.column_shapes)}   column pair trends "
        f"{_num(result.column_pair_trends)}",
        f"Mean Hellinger distance: {_num(result.mean_hellinger)}  (Octopize's target < "
        f"{HELLINGER_TARGET:g}: {_met(result.mean_hellinger, HELLINGER_TARGET)})",
        f"Correlation difference: {_num(result.correlation_difference, 1)} %  (target < "
        f"{CORRELATION_DIFFERENCE_TARGET:g} %: "
        f"{_met(result.correlation_difference, CORRELATION_DIFFERENCE_TARGET)})",
        f"  {result.meaning}",
    ]
    if result.skipped:
        lines.append(f"  Not scored (ids or personal information): {', '.join(result.skipped)}")
    width = max([len("column"), *(len(c) for c in cols["column"])])
    lines += [
        "",
        "Column shapes (lowest score first)",
        f"  {'column':<{width}}  {'kind':<11}  {'metric':<12}  {'score':>6}  {'Hellinger':>9}"
        f"  {'missing o/s':>13}",
    ]
    for r in cols.sort("score", nulls_last=True).iter_rows(named=True):
        missing = f"{100 * r['missing_original']:.1f}/{100 * r['missing_synthetic']:.1f} %"
        lines.append(
            f"  {r['column']:<{width}}  {r['kind']:<11}  {r['metric']:<12}  "
            f"{_num(r['score']):>6}  {_num(r['hellinger']):>9}  {missing:>13}"
        )
    if len(pairs):
        shown = pairs.head(top)
        lines += [
            "",
            f"Pairs whose association moved most (top {len(shown)} of {len(pairs)})",
            f"  {'pair':<{2 * width + 3}}  {'score':>6}  {'association':<11}  {'original':>8}  "
            f"{'synthetic':>9}  {'change':>7}",
        ]
        for r in shown.iter_rows(named=True):
            name = f"{r['column_1']} x {r['column_2']}"
            change = r["association_change"]
            lines.append(
                f"  {name:<{2 * width + 3}}  {_num(r['score']):>6}  {r['association']:<11}  "
                f"{_num(r['original_association']):>8}  {_num(r['synthetic_association']):>9}  "
                f"{'-' if change is None else f'{change:+.3f}':>7}"
            )
        lines.append(
            "  association: r = |Pearson's r|, cramers_v = Cramer's V, eta2 = share of the "
            "number's variance its category explains"
        )
    return "\n".join(lines)


@click.command("utility", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@click.argument("synthetic", type=click.Path(path_type=str))
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
@click.option("--table", help="The table of multi-table SDV metadata.")
@CSV
@FORMAT
@report_option
@QUIET
def utility_command(
    original: str,
    synthetic: str,
    columns: tuple[str, ...],
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    date: tuple[str, ...],
    metadata: str | None,
    table: str | None,
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
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
    """
    from kpr.fidelity import utility

    kinds = declared_kinds(categorical, numeric, date)
    check_files({"--report": report}, (original, synthetic), fmt)
    check_report(report)
    with render.progress_bar(stderr, quiet) as bar:
        result = utility(
            original, synthetic,
            columns=split_names(columns) or None,
            kinds=kinds,
            metadata=metadata,
            table=table,
            delimiter=parse_delimiter(delimiter),
            encoding=encoding,
            na_values=na_markers(na_value),
            progress=None if bar is None else lambda done, total: bar(done, total, "scoring"),
        )  # fmt: skip
    if report is not None:
        from kpr.render.utility import write_utility

        write_utility(result, report, inputs=[("Original", original), ("Synthetic", synthetic)])
    emit(fmt, lambda: json.dumps(result.to_dict()), lambda: utility_text(result), report)
