"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import narwhals as nw
import polars as pl

from kpr.diagnostics import warnings_for
from kpr.engine import lazy
from kpr.errors import InputError
from kpr.io.readers import CsvOptions
from kpr.metric.plan import DEFAULT_TOLERANCE, Kind, make_attack
from kpr.result import KprResult, VariableInfo, protection_rate
from kpr.tables import ROW, Prepared, prepare

Progress = lazy.Progress


def _persist_polars(frame: lazy.Frame) -> lazy.Frame:
    """U is used three times: materialise it once on polars."""
    return frame.collect().lazy()


def _column_profile(prepared: Prepared) -> dict[str, dict[str, int]]:
    """Missing counts (and distinct counts of integer columns) over the original."""
    schema = prepared.original.collect_schema()
    exprs: list[nw.Expr] = []
    for name in prepared.kinds:
        exprs.append(nw.col(name).null_count().alias(f"missing::{name}"))
        if schema[name].is_integer():
            exprs.append(nw.col(name).drop_nulls().n_unique().alias(f"distinct::{name}"))
    row = lazy._collect_row(prepared.original.select(exprs))
    out: dict[str, dict[str, int]] = {name: {} for name in prepared.kinds}
    for key, value in row.items():
        what, name = key.split("::", 1)
        out[name][what] = int(value)
    return out


def evaluate(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    progress: Progress | None = None,
) -> KprResult:
    """Knowledge Protection Rate of ``avatars`` against ``original``.

    ``original`` and ``avatars`` are pandas or polars (Lazy)DataFrames, pyarrow
    Tables, DuckDB relations, or paths to CSV/Parquet files. ``known`` lists the
    variables the attacker knows; ``kinds`` overrides the inferred kind of any of
    them (``{"zip": "categorical"}``). The CSV options apply to path inputs.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    attack = make_attack(known, tolerance, kinds)
    csv = CsvOptions(delimiter, encoding, tuple(na_values))
    prepared = prepare(original, avatars, attack, csv)
    row = ROW if prepared.has_rows else None
    persist = _persist_polars if prepared.has_rows else (lambda f: f)
    try:
        result = lazy.run(
            prepared.original,
            prepared.avatars,
            attack,
            prepared.kinds,
            row=row,
            persist=persist,
            progress=progress or lazy._noop,
        )
        if result.n == 0:
            raise InputError(
                "the original table has no rows: there is nobody to protect; "
                "give a table with at least one row"
            )
        profile = _column_profile(prepared)
    except pl.exceptions.PolarsError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not read the input data: {first}") from None
    variables: dict[str, VariableInfo] = {}
    for name, kind in prepared.kinds.items():
        prof = profile[name]
        if kind is Kind.NUMERIC:
            b = result.bins[name]
            variables[name] = VariableInfo(
                name,
                kind,
                prof["missing"],
                b.mean,
                b.std,
                b.minimum,
                b.maximum,
                b.lo,
                b.width,
                b.classes,
                prof.get("distinct"),
            )
        else:
            variables[name] = VariableInfo(name, kind, prof["missing"])
    warnings = warnings_for(variables, result.n, result.n_avatars, result.unique_originals)

    pairs = None
    if row is not None:
        kinds_ = dict(prepared.kinds)

        def pairs() -> pl.DataFrame:
            frame = lazy.linked_pairs(result, kinds_).collect().to_native()
            assert isinstance(frame, pl.DataFrame)
            return frame

    return KprResult(
        rate=protection_rate(result.linked, result.n),
        n=result.n,
        n_avatars=result.n_avatars,
        unique_originals=result.unique_originals,
        linked=result.linked,
        tolerance=attack.tolerance,
        known=attack.known,
        variables=variables,
        warnings=warnings,
        _pairs=pairs,
    )
