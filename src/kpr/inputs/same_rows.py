"""Which rows of one table equal rows of another, compared by value and kind as the
metric compares them: 30 and 30.0 are the same number, missing equals missing
(NaN and null alike), and a text "30" is not the number 30.

One matcher for every such count: the rows a control shares with the original
(``kpr.analysis.baselines``) and the synthetic rows that copy an original
(``kpr.avatar.distance``).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def _missing_as_null(frame: pl.DataFrame) -> pl.DataFrame:
    # NaN and null both mean missing: make them one value so they compare equal.
    return frame.with_columns(pl.col(pl.Float32, pl.Float64).fill_nan(None))


def _text_numbers(frame: pl.DataFrame) -> pl.DataFrame:
    """Text columns that hold numbers only (a CSV read as text) as Float64 numbers, as
    the kind rule reads them: " 30 " and "30.0" are the number 30."""
    casts = []
    for c, dtype in frame.schema.items():
        if isinstance(dtype, pl.String):
            number = pl.col(c).str.strip_chars().cast(pl.Float64, strict=False)
            col = frame.get_column(c)
            parsed = frame.select(number).get_column(c)
            if col.null_count() < frame.height and parsed.null_count() == col.null_count():
                casts.append(number)
    return frame.with_columns(casts) if casts else frame


def comparable(
    left: pl.DataFrame, right: pl.DataFrame, columns: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Both tables on ``columns`` (default: the non-nested columns they share, in
    ``left``'s order), each column in one type both sides hold: unchanged when the
    dtypes agree, Float64 when both are numeric (30 == 30.0; never a cast that would
    turn 2.5 into 2), else text. A text column of numbers only counts as numeric."""
    if columns is None:
        columns = [
            c
            for c in left.columns
            if c in right.columns
            and not (left.schema[c].is_nested() or right.schema[c].is_nested())
        ]
    a, b = _text_numbers(left.select(columns)), _text_numbers(right.select(columns))
    casts = []
    for c in columns:
        lt, rt = a.schema[c], b.schema[c]
        if lt != rt:
            common = pl.Float64 if lt.is_numeric() and rt.is_numeric() else pl.String
            casts.append(pl.col(c).cast(common))
    if casts:
        a, b = a.with_columns(casts), b.with_columns(casts)
    return _missing_as_null(a), _missing_as_null(b)


def rows_found(rows: pl.DataFrame, among: pl.DataFrame) -> int:
    """Rows of ``rows`` equal to some row of ``among`` (tables from :func:`comparable`)."""
    if not rows.columns:
        return 0
    return rows.join(among.unique(), on=rows.columns, how="semi", nulls_equal=True).height


def repeated_rows(frame: pl.DataFrame) -> int:
    """Rows equal to another row of the same table (every copy counts)."""
    if not frame.columns or frame.height == 0:
        return 0
    return int(frame.is_duplicated().sum())


def same_rows(left: pl.DataFrame, right: pl.DataFrame) -> bool:
    """Whether two comparable tables hold the same rows, in any order."""
    if left.height != right.height:
        return False
    cols = left.columns
    ordered = right.sort(cols, nulls_last=True)
    return left.sort(cols, nulls_last=True).equals(ordered, null_equal=True)
