"""Dates, datetimes and durations as the numbers the metric bins (spec, "Dates
and times"): days since 1970-01-01 00:00 UTC, fractional for datetimes;
timezone-aware values are converted to UTC first, naive ones are taken as UTC.
Durations are plain numbers of days.

One narwhals expression (``days_expr``) serves every backend but Spark, whose
epoch functions and ISO parsing are in ``kpr.engine.spark``; CSV text is parsed
(by polars or Spark) from the ISO 8601 forms listed in ``ISO_FORMATS``. Values
are taken to the microsecond, the unit every backend shares (nanoseconds are
truncated).
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import narwhals as nw
import polars as pl

#: Microseconds in a day: the unit every backend agrees on exactly.
US_PER_DAY = 86_400_000_000
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: ISO 8601 forms a CSV date column may hold (naive ones are read as UTC).
ISO_FORMATS = (
    "%Y-%m-%d",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M:%S%.fZ",
    "%Y-%m-%d %H:%M:%S%.fZ",
)
#: Rows :func:`iso_text_facts` looks at before the whole column.
_HEAD_ROWS = 1000
_ISO_OFFSET_FORMATS = ("%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%d %H:%M:%S%.f%z", "%Y-%m-%dT%H:%M%z")


def is_temporal(dtype: Any) -> bool:
    """A date or datetime column (binned as a date)."""
    return dtype == nw.Date or isinstance(dtype, nw.Datetime)


def is_duration(dtype: Any) -> bool:
    """A duration column (binned as a number of days)."""
    return isinstance(dtype, nw.Duration)


def _per_day(us: nw.Expr) -> nw.Expr:
    """Microseconds to days by true division (a division by a scalar may be done
    as a multiplication by its reciprocal, which is not correctly rounded)."""
    x = us.cast(nw.Float64)
    return x / (x * 0.0 + float(US_PER_DAY))


def days_expr(name: str, dtype: Any) -> nw.Expr:
    """The values of a date, datetime or duration column as float64 days."""
    col = nw.col(name)
    if is_duration(dtype):
        return _per_day(col.dt.total_microseconds())
    if isinstance(dtype, nw.Datetime) and dtype.time_zone is not None:
        # an instant minus the epoch instant: independent of any session time zone
        epoch = _EPOCH_UTC.astimezone(ZoneInfo(dtype.time_zone))
        return _per_day((col - nw.lit(epoch)).dt.total_microseconds())
    naive = col.cast(nw.Datetime("us"))
    return _per_day((naive - nw.lit(_EPOCH)).dt.total_microseconds())


def parse_iso(name: str) -> pl.Expr:
    """CSV text in one of the ISO 8601 forms as a naive UTC datetime (null when
    the text is in none of them)."""
    return pl.col(name).map_batches(
        _parse_iso_text, return_dtype=pl.Datetime("us"), is_elementwise=True
    )


def _parse_iso_text(text: pl.Series) -> pl.Series:
    """The first of the ISO forms that reads each value; each next form sees only the
    values no form before it read (not every date parsed ten times)."""
    raw = text.cast(pl.String)
    first = raw.str.strptime(pl.Datetime("us"), ISO_FORMATS[0], strict=False, exact=True)
    if first.null_count() == raw.null_count():  # the usual column: dates in the first form
        return first  # (a value the first form reads as it is, it reads trimmed alike)
    text = raw.str.strip_chars()
    out = pl.Series(text.name, [None] * len(text), dtype=pl.Datetime("us"))
    forms = [(f, False) for f in ISO_FORMATS] + [(f, True) for f in _ISO_OFFSET_FORMATS]
    for form, aware in forms:
        unread = out.is_null() & text.is_not_null()
        if not unread.any():
            break
        rest = (
            text
            if unread.all()
            else text.zip_with(unread, pl.repeat(None, len(text), dtype=pl.String, eager=True))
        )
        if aware:
            got = rest.str.strptime(pl.Datetime("us", "UTC"), form, strict=False, exact=True)
            got = got.dt.replace_time_zone(None)
        else:
            got = rest.str.strptime(pl.Datetime("us"), form, strict=False, exact=True)
        out = out.zip_with(out.is_not_null(), got)
    return out


def iso_text_facts(lf: pl.LazyFrame, name: str) -> str | bool | None:
    """Whether a text column holds ISO dates only: False when it holds no value,
    None when every value parses, else the first value that does not."""
    col = pl.col(name)
    present = col.is_not_null()
    query = [
        present.any().alias("some"),
        col.filter(present & parse_iso(name).is_null()).first().cast(pl.String).alias("bad"),
    ]
    # the first value first, then the first rows: a column of other text has its
    # first offending value there
    head = lf.head(_HEAD_ROWS)
    first = head.select(col.drop_nulls().first().cast(pl.String)).collect().item()
    if first is not None and _parse_iso_text(pl.Series([first])).item() is None:
        return str(first)
    some, bad = head.select(query).collect().row(0)
    if bad is None:
        some, bad = lf.select(query).collect().row(0)
    return bad if some else False


def text_to_days(name: str) -> pl.Expr:
    """A CSV text column of ISO dates as float64 days (polars)."""
    us = parse_iso(name).dt.epoch("us").cast(pl.Float64)
    return us / (us * 0.0 + float(US_PER_DAY))
