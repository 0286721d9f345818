"""Measuring the Knowledge Protection Rate on loaded inputs.

``load`` reads and reconciles the inputs once; ``evaluate_loaded`` runs one
attack on them. Sweeps over many attacks (``kpr.analysis``) load once and
evaluate many times.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.diagnostics import identifier_warnings, warnings_for
from kpr.engine import queries
from kpr.engine.backends import TEXT_PARSING, hooks_for
from kpr.errors import InputError, first_line
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared, prepare
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, Kind, make_attack
from kpr.pairing import correct_links
from kpr.progress import Step
from kpr.results.evaluation import Detail, KprResult, VariableInfo, protection_rate


def _persist_polars(frame: queries.Frame) -> queries.Frame:
    """U is used three times: materialise it once on polars."""
    return frame.collect().lazy()


def polars_error(exc: Exception) -> InputError:
    """A polars error while reading the inputs, as one line for the user."""
    return InputError(f"could not read the input data: {first_line(exc)}")


def library_of(table: Any) -> str:
    """The library results come back in: the input's, for pandas and pyarrow; polars
    for files, polars and every engine that has no row order anyway."""
    module = type(table).__module__.split(".")[0]
    return module if module in ("pandas", "pyarrow") else "polars"


def load(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    kinds: Mapping[str, str] | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    materialize: bool = False,
    role: str = "original",
    row_id: str | None = None,
) -> Prepared:
    """Read both inputs (only the ``known`` columns) and agree on kinds and dtypes.

    With ``materialize``, polars-backed inputs are collected into memory once,
    which pays off when many attacks are evaluated on them. ``role`` names the
    first table in errors (e.g. "control"). ``row_id``: see ``evaluate``.
    """
    attack = make_attack(known, DEFAULT_TOLERANCE, kinds)
    csv = ReadSettings(delimiter, encoding, tuple(na_values))
    try:
        prepared = prepare(original, avatars, attack, csv, (role, "avatars"), row_id, TEXT_PARSING)
        prepared.library = library_of(original)
        if materialize and prepared.original.implementation.is_polars():
            prepared.original = _persist_polars(prepared.original)
            prepared.avatars = _persist_polars(prepared.avatars)
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    return prepared


def unique_value_rows(prepared: Prepared, names: Iterable[str]) -> dict[str, int]:
    """Per variable, the original rows whose value no other row has (one query for
    the variables not yet counted; kept on ``prepared`` for the next attacks)."""
    todo = [n for n in names if n not in prepared.unique_values]
    if todo:
        flags = prepared.original.with_columns(
            nw.col(n).is_unique().cast(nw.Int64).alias(n) for n in todo
        ).select(nw.col(n).sum() for n in todo)
        row = flags.collect().to_dict(as_series=False)
        prepared.unique_values.update({n: int(row[n][0] or 0) for n in todo})
    return {n: prepared.unique_values[n] for n in names}


def evaluate_loaded(
    prepared: Prepared,
    known: str | Iterable[str] | None = None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    widths: Mapping[str, object] | None = None,
    progress: Step | None = None,
    pairing: Any = None,
) -> KprResult:
    """Run one attack on loaded inputs; ``known`` defaults to every loaded column.
    ``pairing`` (see ``kpr.evaluate``) adds the count of correct links."""
    names = list(prepared.kinds) if known is None else known
    attack = make_attack(names, tolerance, widths=widths)
    missing = [n for n in attack.known if n not in prepared.kinds]
    if missing:
        raise InputError(f"{missing[0]!r} was not loaded; load it with the other known variables")
    for name in attack.widths:
        if not prepared.kinds[name].binned:
            raise InputError(
                f"a width is given for {name!r}, which is categorical (compared as it is); "
                "give widths to numeric or date variables only"
            )
        timed = prepared.kinds[name] is Kind.DATE or name in prepared.durations
        given = (widths or {})[name]
        if isinstance(given, dt.timedelta) and not timed:
            raise InputError(
                f"the width of {name!r} is a duration ({given}), but {name!r} holds plain "
                f"numbers: units (d, h, min, s) apply to dates and durations; give a number, "
                f"such as {name}=2"
            )
    kinds = {n: prepared.kinds[n] for n in attack.known}
    row = prepared.row if prepared.has_rows else None
    try:
        run = queries.run(
            prepared.original,
            prepared.avatars,
            attack,
            kinds,
            row=row,
            hooks=hooks_for(prepared.original),
            progress=progress or queries._noop,
        )
        if run.n == 0:
            raise InputError(
                "the original table has no rows: there is nobody to protect; "
                "give a table with at least one row"
            )
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    except Exception as exc:
        if "different connections" in str(exc):  # DuckDB relations of two connections
            raise InputError(
                "original and avatars are DuckDB relations of two different connections; "
                "create both from one connection"
            ) from None
        raise
    if run.unique_rows is not None:  # counted on the engine's way (kept for next attacks)
        prepared.unique_values.update(run.unique_rows)
    result = _result(prepared, attack, kinds, run, run.profile)
    if pairing is not None:
        result.correct_links = _correct_links(result, prepared, pairing)
    return result


def _correct_links(result: KprResult, prepared: Prepared, pairing: Any) -> int:
    if result._detail is None or result._detail.run.row is None:
        raise InputError(
            "correct links need row positions, which this engine does not keep; "
            "evaluate a polars/pandas/pyarrow table or a file instead"
        )
    ids = None
    if prepared.row_id is not None:  # the pairing is in the row-id column's terms
        ids = (
            prepared.row_id,
            _ids(prepared.original, prepared.row),
            _ids(prepared.avatars, prepared.row),
        )
    return correct_links(_linked_rows(result), pairing, result.n, result.n_avatars, ids)


def _ids(side: Any, row: str) -> np.ndarray:
    frame = side.select(row).collect(backend="polars").to_native()
    return np.asarray(frame[row].to_numpy(), dtype=np.int64)


def _linked_rows(result: KprResult) -> pl.DataFrame:
    assert result._detail is not None
    native = queries.linked_pairs(result._detail.run, result._detail.kinds).select(
        "original_row", "avatar_row"
    )
    frame = native.collect(backend="polars").to_native()
    assert isinstance(frame, pl.DataFrame)
    return frame


def _result(
    prepared: Prepared,
    attack: Attack,
    kinds: dict[str, Kind],
    run: queries.EngineRun,
    profile: dict[str, dict[str, int]],
) -> KprResult:
    variables: dict[str, VariableInfo] = {}
    for name, kind in kinds.items():
        prof = profile[name]
        if kind.binned:
            b = run.bins[name]
            variables[name] = VariableInfo(
                name, kind, prof["missing"], b.mean, b.std, b.minimum, b.maximum,
                b.lo, b.width, b.classes, prof.get("distinct"),
            )  # fmt: skip
        else:
            variables[name] = VariableInfo(name, kind, prof["missing"])
    return KprResult(
        rate=protection_rate(run.linked, run.n),
        n=run.n,
        n_avatars=run.n_avatars,
        unique_originals=run.unique_originals,
        linked=run.linked,
        tolerance=attack.tolerance,
        known=attack.known,
        variables=variables,
        warnings=[
            *warnings_for(variables, run.n, run.n_avatars, run.unique_originals),
            *identifier_warnings(unique_value_rows(prepared, attack.known), run.n),
        ],
        _detail=Detail(prepared.original, run, kinds, prepared.library),
    )
