"""Tables to avatarise, read from files; avatar tables and pairings, written to files.

A CSV is read as text (``kpr.inputs.files``), then each column is typed exactly as
``kpr evaluate`` types the columns of a CSV original (``kpr.inputs.reconcile``): a column
whose values all read as integers becomes Int64, as numbers Float64, anything
else stays text. So the avatars of a CSV and the KPR computed on that CSV agree
on which columns are numeric. Columns declared categorical stay text, so codes
such as ``01230`` keep their leading zeros.

Outputs are written atomically (no partial file on error); CSVs through
``kpr.inputs.writers.write_csv``, which neutralises text cells a spreadsheet would
run as formulas (``=``, ``+``, ``-``, ``@``...) by prefixing a quote.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl

from kpr.errors import InputError, first_line, shown

# The CSV typing rules live with the rest of the input reconciliation; reusing them
# (rather than a copy) keeps `kpr avatarize` and `kpr evaluate` in agreement.
from kpr.inputs.csv_text import all_numbers, polars_text_facts, text_to_number
from kpr.inputs.files import PARQUET_SUFFIXES, Loaded, check_columns, read_all
from kpr.inputs.kinds import not_numeric
from kpr.inputs.reading import ReadSettings
from kpr.inputs.writers import STDOUT, check_output_path, write_csv, write_parquet

Format = Literal["csv", "parquet"]


def output_format(path: str | os.PathLike[str], option: str = "the output") -> Format:
    """CSV or Parquet, from the file's extension (``-``, standard output: CSV)."""
    if os.fspath(path) == STDOUT:
        return "csv"
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    raise InputError(
        f"{option} {os.fspath(path)!r} must end in .csv or .parquet, so its format is known"
    )


def check_output(
    path: str | os.PathLike[str], option: str, inputs: Iterable[str | os.PathLike[str]] = ()
) -> Format:
    """Before any work: the output can be written, has a known format and overwrites no input."""
    fmt = output_format(path, option)
    check_output_path(path, option, inputs)
    return fmt


def type_text_columns(frame: pl.LazyFrame, keep_text: Collection[str] = ()) -> pl.LazyFrame:
    """Parse the text columns of a CSV as ``kpr evaluate`` does: integers, else numbers,
    else text; ``keep_text`` names columns that stay text (declared categorical)."""
    names = [n for n in frame.collect_schema().names() if n not in keep_text]
    facts = {name: polars_text_facts(frame, name) for name in names}
    casts = [text_to_number(name, f).alias(name) for name, f in facts.items() if all_numbers(f)]
    return frame.with_columns(casts) if casts else frame


def read_original(
    path: str | os.PathLike[str],
    *,
    categorical: Collection[str] = (),
    csv: ReadSettings | None = None,
    role: str = "original",
) -> pl.DataFrame:
    """Every column of a CSV or Parquet file as a polars table, CSV columns typed as
    ``kpr evaluate`` types them; ``categorical`` names must be columns of the file."""
    return typed_table(read_all(path, csv or ReadSettings(), role), categorical)


def typed_table(loaded: Loaded, categorical: Collection[str] = ()) -> pl.DataFrame:
    """A file's every column (``read_all``, or ``kpr.measure.read_whole``) as a polars
    table, typed as :func:`read_original` types it."""
    frame = loaded.frame
    check_columns(frame.collect_schema().names(), list(categorical), loaded.label)
    if loaded.untyped:
        frame = type_text_columns(frame, set(categorical))
    try:
        return frame.collect()
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"{loaded.label}: could not read the data ({first_line(exc)})") from None


def read_like(
    original: pl.DataFrame,
    path: str | os.PathLike[str],
    labels: tuple[str, str],
    *,
    categorical: Collection[str] = (),
    csv: ReadSettings | None = None,
    role: str = "synthetic",
) -> pl.DataFrame:
    """Another table of the same individuals (synthetic, holdout, control), read as
    :func:`read_original` does, with the original's columns; a column numeric in the
    original must be numeric in it: a word there is refused as ``kpr evaluate``
    refuses it, never read as missing. ``labels``: the original's and this table's."""
    other = read_original(path, categorical=categorical, csv=csv, role=role)
    check_columns(other.columns, original.columns, labels[1])
    for name in original.columns:
        dtype = other.schema[name]
        if not original.schema[name].is_numeric() or dtype.is_numeric() or dtype == pl.Null:
            continue
        values = other[name].drop_nulls()
        if dtype == pl.String:
            values = values.filter(
                values.str.strip_chars().cast(pl.Float64, strict=False).is_null()
            )
        if values.len():
            found = "text" if dtype == pl.String else str(dtype)
            raise not_numeric(name, labels[0], found, labels[1], f"e.g. {shown(values[0])}")
    return other


def write_table(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """A table as CSV (spreadsheet-safe) or Parquet, by the extension; atomically."""
    if output_format(path) == "csv":
        write_csv(frame, path)
    else:
        write_parquet(frame, path)


def pairing_frame(pairing: np.ndarray) -> pl.DataFrame:
    """Who became which avatar: ``original_row`` (position in the original) and
    ``avatar_row`` (position in the avatar table), the names ``--linked-out`` uses."""
    return pl.DataFrame(
        {
            "original_row": np.arange(pairing.shape[0], dtype=np.int64),
            "avatar_row": np.asarray(pairing, dtype=np.int64),
        }
    )
