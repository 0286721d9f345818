"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table.

``load`` reads and reconciles the inputs once; ``evaluate_loaded`` runs one
attack on them. Sweeps over many attacks (``kpr.analysis``) load once and
evaluate many times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import narwhals as nw
import polars as pl

from kpr.diagnostics import identifier_warnings, warnings_for
from kpr.engine import lazy
from kpr.engine.backends import hooks_for
from kpr.errors import InputError
from kpr.io.metadata import sdv_kinds
from kpr.io.readers import CsvOptions
from kpr.metric.plan import DEFAULT_TOLERANCE, Attack, Kind, make_attack
from kpr.pairing import count_correct, read_pairing
from kpr.result import Detail, KprResult, VariableInfo, protection_rate
from kpr.tables import Prepared, prepare

Progress = lazy.Progress


def _persist_polars(frame: lazy.Frame) -> lazy.Frame:
    """U is used three times: materialise it once on polars."""
    return frame.collect().lazy()


def polars_error(exc: Exception) -> InputError:
    """A polars error while reading the inputs, as one line for the user."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return InputError(f"could not read the input data: {first}")


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
    csv = CsvOptions(delimiter, encoding, tuple(na_values))
    try:
        prepared = prepare(original, avatars, attack, csv, (role, "avatars"), row_id)
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
    progress: Progress | None = None,
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
    kinds = {n: prepared.kinds[n] for n in attack.known}
    row = prepared.row if prepared.has_rows else None
    try:
        run = lazy.run(
            prepared.original,
            prepared.avatars,
            attack,
            kinds,
            row=row,
            hooks=hooks_for(prepared.original),
            progress=progress or lazy._noop,
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
    result = _result(prepared, attack, kinds, run, run.profile)
    if pairing is not None:
        result.correct_links = _correct_links(result, pairing)
    return result


def _correct_links(result: KprResult, pairing: Any) -> int:
    if result._detail is None or result._detail.run.row is None:
        raise InputError(
            "correct links need row positions, which this engine does not keep; "
            "evaluate a polars/pandas/pyarrow table or a file instead"
        )
    own = read_pairing(pairing, result.n, result.n_avatars)
    return count_correct(_linked_rows(result), own)


def _linked_rows(result: KprResult) -> pl.DataFrame:
    assert result._detail is not None
    native = lazy.linked_pairs(result._detail.run, result._detail.kinds).select(
        "original_row", "avatar_row"
    )
    frame = native.collect(backend="polars").to_native()
    assert isinstance(frame, pl.DataFrame)
    return frame


def _result(
    prepared: Prepared,
    attack: Attack,
    kinds: dict[str, Kind],
    run: lazy.EngineRun,
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


def evaluate(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    widths: Mapping[str, object] | None = None,
    metadata: Any = None,
    table: str | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    progress: Progress | None = None,
    row_id: str | None = None,
    pairing: Any = None,
    control: Any = None,
    control_subsets: int = 20,
    seed: int = 0,
) -> KprResult:
    """Knowledge Protection Rate of ``avatars`` against ``original``.

    ``original`` and ``avatars`` are pandas or polars (Lazy)DataFrames, pyarrow
    Tables, DuckDB relations, or paths to CSV/Parquet files. ``known`` lists the
    variables the attacker knows; ``kinds`` overrides the inferred kind of any of
    them (``{"zip": "categorical"}``, ``{"admission": "date"}``). ``widths`` gives
    a variable an absolute class width instead of the one computed from U (in its
    unit; days, or a ``timedelta``, for a date). ``metadata`` (SDV metadata: a
    dict, a JSON path or an object with ``to_dict()``; ``table`` names the table of
    multi-table metadata) declares kinds from its sdtypes; ``kinds`` wins over it.
    The CSV options apply to path inputs. ``row_id`` names a column of integer ids,
    in both tables, that ``linked_individuals()`` reports as
    ``original_row``/``avatar_row``; without it they are row positions, which
    Spark, Dask and DuckDB inputs do not have.

    ``pairing`` (the file ``kpr avatarize --pairing-out`` writes, a frame with
    ``original_row``/``avatar_row``, or one avatar row per original row) adds
    ``correct_links``: linked individuals whose unique avatar is their own.
    ``control`` (individuals not used to make the avatars) adds the size-fair
    control comparison (``control_subsets`` random subsets of the larger side,
    drawn with ``seed``; see ``kpr.analysis.ControlComparison``).

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    if metadata is not None:
        kinds = {**sdv_kinds(metadata, known, table), **(kinds or {})}
    check = make_attack(known, tolerance, kinds, widths)
    if control is not None and widths:
        # the control's attacks (kpr.analysis) take classes from U only: refuse rather
        # than compare two attacks on different classes
        raise InputError(
            "control with absolute widths is not supported yet: drop widths= (--width) or "
            "control= (--control)"
        )
    prepared = load(
        original, avatars, check.known, kinds=kinds, delimiter=delimiter,
        encoding=encoding, na_values=na_values, row_id=row_id,
    )  # fmt: skip
    result = evaluate_loaded(
        prepared,
        check.known,
        tolerance=check.tolerance,
        widths=widths,
        progress=progress,
        pairing=pairing,
    )
    if control is not None:
        # lazy: the analysis package builds on this module
        from kpr.analysis.baselines import compare_control, control_warnings

        result.control = compare_control(
            result, prepared, original, control, avatars, subsets=control_subsets, seed=seed,
            delimiter=delimiter, encoding=encoding, na_values=na_values,
        )  # fmt: skip
        result.warnings += control_warnings(result.control)
    return result
