"""Dates on every engine equal a hand computation of the spec's rule ("Dates and
times"): days since 1970-01-01 UTC computed exactly (Fractions), the width from
the range over U, ``lo = min - std/10``, then the reference implementation."""

from __future__ import annotations

import datetime as dt
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import kpr
from kpr.engine.spark import spark_inputs
from tests.engine.conftest import Convert
from tests.reference import reference_kpr

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def exact_days(value: dt.date | dt.datetime | None) -> float | None:
    """Days since the epoch by hand: an exact rational, rounded once."""
    if value is None:
        return None
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    delta = value - EPOCH
    us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return float(Fraction(us, 86_400_000_000))


def birth_tables(seed: int, n: int = 80, datetimes: bool = False) -> tuple[pl.DataFrame, ...]:
    """Birth dates (some shared, one missing) and avatars moved by up to ±200 days."""
    rng = random.Random(seed)
    start = dt.datetime(1940, 1, 1)
    born = [start + dt.timedelta(days=rng.randrange(0, 25_000)) for _ in range(n)]
    if datetimes:
        born = [b + dt.timedelta(hours=rng.randrange(24), minutes=rng.randrange(60)) for b in born]
    born[1] = born[0]  # a duplicate: not in U
    sex = [rng.choice("FM") for _ in range(n)]
    moved: list[dt.datetime | None] = [
        b + dt.timedelta(days=rng.randrange(-200, 201)) for b in born
    ]
    born_opt: list[dt.datetime | None] = list(born)
    born_opt[2] = None
    moved[3] = None
    dtype = pl.Datetime("us") if datetimes else pl.Date
    values = (lambda xs: xs) if datetimes else (lambda xs: [x and x.date() for x in xs])
    original = pl.DataFrame(
        {"birth": values(born_opt), "sex": sex}, schema_overrides={"birth": dtype}
    )
    avatars = pl.DataFrame({"birth": values(moved), "sex": sex}, schema_overrides={"birth": dtype})
    return original, avatars


def by_hand(original: pl.DataFrame, avatars: pl.DataFrame, tolerance: float = 0.05) -> Any:
    rows = [
        [{"birth": exact_days(r["birth"]), "sex": r["sex"]} for r in t.to_dicts()]
        for t in (original, avatars)
    ]
    return reference_kpr(
        rows[0], rows[1], ["birth", "sex"], {"birth"}, tolerance, dates=frozenset({"birth"})
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_dates_equal_the_hand_computation(engine: Convert, seed: int) -> None:
    original, avatars = birth_tables(seed)
    ref = by_hand(original, avatars)
    result = kpr.evaluate(
        engine(original), engine(avatars), known=["birth", "sex"], tuning=engine.tuning
    )
    info, bins = result.variables["birth"], ref.bins["birth"]
    assert info.kind is kpr.Kind.DATE
    # whole days: every statistic is exact, so bit-identical on every engine
    assert (info.min, info.max, info.mean, info.std) == (
        bins.minimum, bins.maximum, bins.mean, bins.std
    )  # fmt: skip
    assert info.width == bins.width == 0.05 * (bins.maximum - bins.minimum)
    assert info.lo == bins.lo
    assert (result.unique_originals, result.linked) == (ref.unique_originals, ref.linked)
    assert result.rate == ref.kpr


@pytest.mark.parametrize("engine_name", ["polars", "pandas", "duckdb"])
def test_datetimes_equal_the_hand_computation(engine_name: str, request: Any) -> None:
    from tests.engine import conftest

    convert = {
        "polars": lambda f: f,
        "pandas": lambda f: f.to_pandas(),
        "duckdb": conftest._duckdb_convert(),
    }[engine_name]
    original, avatars = birth_tables(3, datetimes=True)
    ref = by_hand(original, avatars)
    result = kpr.evaluate(convert(original), convert(avatars), known=["birth", "sex"])
    info, bins = result.variables["birth"], ref.bins["birth"]
    assert (info.min, info.max) == (bins.minimum, bins.maximum)
    assert info.width == pytest.approx(bins.width, rel=1e-12)
    assert info.lo == pytest.approx(bins.lo, rel=1e-12)
    assert (result.unique_originals, result.linked) == (ref.unique_originals, ref.linked)


def test_timezone_aware_is_converted_to_utc() -> None:
    original, avatars = birth_tables(4, datetimes=True)
    paris = [
        t.with_columns(
            pl.col("birth").dt.replace_time_zone("UTC").dt.convert_time_zone("Europe/Paris")
        )
        for t in (original, avatars)
    ]
    ours = kpr.evaluate(*paris, known=["birth", "sex"])
    utc = kpr.evaluate(original, avatars, known=["birth", "sex"])
    assert ours.variables["birth"] == utc.variables["birth"]
    assert ours.rate == utc.rate
    shifted = paris[0].with_columns(pl.col("birth").dt.replace_time_zone(None))  # wall time
    assert kpr.evaluate(shifted, avatars, known=["birth"]).variables["birth"].min != (
        utc.variables["birth"].min
    )


def test_dates_through_csv(tmp_path: Path) -> None:
    original, avatars = birth_tables(5)
    ref = by_hand(original, avatars)
    paths = [tmp_path / "o.csv", tmp_path / "a.csv"]
    for frame, path in zip((original, avatars), paths, strict=True):
        frame.write_csv(path)
    result = kpr.evaluate(*paths, known=["birth", "sex"])
    assert result.variables["birth"].kind is kpr.Kind.DATE  # ISO dates detected
    assert (result.variables["birth"].lo, result.variables["birth"].width) == (
        ref.bins["birth"].lo, ref.bins["birth"].width,
    )  # fmt: skip
    assert (result.unique_originals, result.linked) == (ref.unique_originals, ref.linked)


def test_iso_datetimes_with_offsets_through_csv(tmp_path: Path) -> None:
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_text(
        "t\n1970-01-02\n1970-01-01T12:00:00Z\n1970-01-03T01:00:00+01:00\n2000-01-01 00:00\n"
    )
    a.write_text("t\n1970-01-02\n1970-01-01T18:00:00\n")
    result = kpr.evaluate(o, a, known=["t"])
    info = result.variables["t"]
    assert info.kind is kpr.Kind.DATE
    assert (info.min, info.max) == (0.5, exact_days(dt.date(2000, 1, 1)))
    assert info.width == 0.05 * (info.max - 0.5)


def test_a_bad_avatar_date_is_named(tmp_path: Path) -> None:
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_text("t\n2001-01-02\n2001-03-04\n")
    a.write_text("t\n2001-01-02\n03/04/2001\n")
    with pytest.raises(kpr.InputError, match=r"date in original .*'03/04/2001'"):
        kpr.evaluate(o, a, known=["t"])


def test_durations_are_numbers_of_days() -> None:
    o = pl.DataFrame({"stay": [dt.timedelta(days=d, hours=12) for d in (1, 3, 8, 20)]})
    result = kpr.evaluate(o, o, known=["stay"])
    info = result.variables["stay"]
    assert info.kind is kpr.Kind.NUMERIC
    assert (info.min, info.max, info.mean) == (1.5, 20.5, 8.5)
    assert info.width == 0.05 * 8.5


def test_an_absolute_width_replaces_the_computed_one() -> None:
    original, avatars = birth_tables(6)
    auto = kpr.evaluate(original, avatars, known=["birth", "sex"]).variables["birth"]
    month = kpr.evaluate(
        original, avatars, known=["birth", "sex"], widths={"birth": dt.timedelta(days=30)}
    ).variables["birth"]
    assert month.width == 30.0 and month.lo == auto.lo
    with pytest.raises(kpr.InputError, match="categorical"):
        kpr.evaluate(original, avatars, known=["birth", "sex"], widths={"sex": 2})
    with pytest.raises(kpr.InputError, match="must be a number > 0"):
        kpr.evaluate(original, avatars, known=["birth"], widths={"birth": -1})


def test_moved_dates_are_riskier_binned_than_as_exact_days() -> None:
    """The issue's example: birth dates moved by ±200 days look safe as exact
    days (categorical) and less so in classes of 5 % of the range."""
    original, avatars = birth_tables(7, n=86)
    exact = kpr.evaluate(original, avatars, known=["birth"], kinds={"birth": "categorical"})
    binned = kpr.evaluate(original, avatars, known=["birth"])
    assert binned.variables["birth"].kind is kpr.Kind.DATE
    assert binned.rate < exact.rate


def test_dates_through_csv_on_spark(spark: Any, tmp_path: Path) -> None:
    """Spark reads CSV as text too: ISO dates (with offsets, Z, fractions) are
    detected and parsed to the same days as polars reads them."""
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    original, avatars = birth_tables(8, datetimes=True)
    texts = [
        t.with_columns(pl.col("birth").dt.strftime("%Y-%m-%dT%H:%M:%S"))
        for t in (original, avatars)
    ]
    texts[0] = texts[0].with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(pl.lit("1970-01-01T12:00:00.25Z"))
        .when(pl.int_range(pl.len()) == 6).then(pl.lit("1970-01-02T01:00:00+01:00"))
        .when(pl.int_range(pl.len()) == 7).then(pl.lit("1999-12-31"))
        .otherwise(pl.col("birth")).alias("birth")
    )  # fmt: skip
    texts[0].write_csv(o)
    texts[1].write_csv(a)
    by_polars = kpr.evaluate(o, a, known=["birth", "sex"])
    read = spark_inputs(spark, str(o), str(a), ["birth", "sex"])
    by_spark = kpr.evaluate(*read, known=["birth", "sex"])
    assert by_spark.variables["birth"].kind is kpr.Kind.DATE
    assert (by_spark.variables["birth"].min, by_spark.variables["birth"].max) == (
        by_polars.variables["birth"].min, by_polars.variables["birth"].max
    )  # fmt: skip
    assert (by_spark.variables["birth"].lo, by_spark.variables["birth"].width) == (
        by_polars.variables["birth"].lo, by_polars.variables["birth"].width
    )  # fmt: skip
    assert (by_spark.unique_originals, by_spark.linked) == (
        by_polars.unique_originals, by_polars.linked
    )  # fmt: skip
    o.write_text("t\n1970-01-01T12:00:00.25Z\n1970-01-02T01:00:00+01:00\n1999-12-31\n")
    info = kpr.evaluate(*spark_inputs(spark, str(o), str(o), ["t"]), known=["t"])
    day = exact_days(dt.date(1999, 12, 31))
    assert (info.variables["t"].min, info.variables["t"].max) == (0.5 + 0.25 / 86_400, day)
    a.write_text("t\n03/04/2001\n")
    with pytest.raises(kpr.InputError, match="'03/04/2001'"):
        kpr.evaluate(*spark_inputs(spark, str(o), str(a), ["t"]), known=["t"])
