"""Measuring the Knowledge Protection Rate on loaded inputs.

``load`` reads and reconciles the inputs once (the pair, and the control when
given); ``evaluate_loaded`` runs one attack on the pair. Sweeps over many
attacks (``kpr.analysis``) load once and evaluate many times.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.diagnostics import identifier_warnings, marker_warnings, warnings_for
from kpr.engine import queries
from kpr.engine.backends import counting_for
from kpr.engine.detail import RunDetail
from kpr.engine.parsing import parsing_for
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.errors import InputError, first_line
from kpr.inputs.files import Loaded, read_all, read_table
from kpr.inputs.markers import MarkerCount, marker_counts
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared, prepare
from kpr.metric.attack import Attack, Kind
from kpr.metric.counts import require_rows
from kpr.pairing import correct_links
from kpr.progress import INPUTS_CHECKED, Step
from kpr.results.evaluation import KprResult, VariableInfo


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


@dataclass
class Inputs:
    """The inputs of an evaluation, each read once: the ``pair`` (original and
    avatars, the known columns) and, when given, the ``control`` read against the
    same avatars with the kinds decided on the original, with ``whole``: every
    column of the original and of the control, to find the rows they share (None
    for inputs not read into memory, such as DuckDB or Spark)."""

    pair: Prepared
    control: Prepared | None = None
    whole: tuple[pl.DataFrame | None, pl.DataFrame | None] = (None, None)


def load(
    original: Any,
    avatars: Any,
    attack: Attack,
    read_options: ReadSettings | None = None,
    control: Any = None,
    *,
    materialize: bool = False,
    row_id: str | None = None,
    control_known: Sequence[str] | None = None,
    control_name: str = "control",
) -> Inputs:
    """Read the inputs (only the known columns of ``attack``) and agree on kinds
    and dtypes; ``read_options`` apply to files.

    With ``materialize``, polars-backed inputs are collected into memory once,
    which pays off when many attacks are evaluated on them. ``row_id``: see
    ``kpr.evaluate``. ``control`` (individuals not used to make the avatars) is
    read with the ``control_known`` variables (default: the attack's); each file
    is then read once for every use (the pair, the control, the shared rows);
    ``control_name`` names it in messages (``kpr.membership``'s holdout).
    """
    csv = read_options or ReadSettings()
    whole: tuple[pl.DataFrame | None, pl.DataFrame | None] = (None, None)
    if control is not None:  # every file once: the whole original and control, once
        original, original_whole = read_whole(original, csv, "original")
        control, control_whole = read_whole(control, csv, control_name)
        extra = [row_id] if row_id is not None and row_id not in attack.known else []
        avatars = _read_once(avatars, [*attack.known, *extra], csv, "avatars")
        whole = (original_whole, control_whole)
    try:
        pair = prepare(original, avatars, attack, csv, ("original", "avatars"), row_id, parsing_for)
        pair.library = library_of(original)
        if materialize:
            _materialize(pair)
        loaded_control = None
        if control is not None:
            names = tuple(attack.known if control_known is None else control_known)
            kinds = {n: pair.kinds[n] for n in names}  # the original's: compared alike
            on_control = replace(attack.on(names), kinds=kinds)
            loaded_control = prepare(
                control, avatars, on_control, csv, (control_name, "avatars"), parsing=parsing_for
            )
            _materialize(loaded_control)
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    return Inputs(pair, loaded_control, whole)


def _materialize(prepared: Prepared) -> None:
    if prepared.original.implementation.is_polars():
        prepared.original = _persist_polars(prepared.original)
        prepared.avatars = _persist_polars(prepared.avatars)


def read_whole(table: Any, csv: ReadSettings, role: str) -> tuple[Any, pl.DataFrame | None]:
    """A file read whole, once (what to load instead of its path, and its rows; a file
    read so already is taken as it is); an in-memory table as it is, with its rows in
    polars. CSV columns stay text, not ``compact``: the shared rows of a control are
    counted on both tables' text by one rule (``kpr.inputs.same_rows``); a column of
    integers held as Int64 on one side and as text on the other compares otherwise."""
    if isinstance(table, str | os.PathLike):
        table = read_all(table, csv, role)
    if isinstance(table, Loaded):
        rows = table.frame.collect()  # a Parquet scan too: its rows serve every use
        return replace(table, frame=rows.lazy()), rows
    return table, whole_table(table)


def _read_once(table: Any, columns: Sequence[str], csv: ReadSettings, role: str) -> Any:
    """A file's ``columns`` read once (loaded for the pair and the control alike)."""
    if isinstance(table, str | os.PathLike):
        return read_table(table, columns, csv, role, compact=True)
    return table


def whole_table(table: Any) -> pl.DataFrame | None:
    """Every column of an in-memory input, to find the rows a control shares with the
    original; None for inputs that are not read into memory (DuckDB, Spark)."""
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    if isinstance(table, pl.DataFrame):
        return table
    if type(table).__module__.split(".")[0] in ("pandas", "pyarrow"):
        try:
            return nw.from_native(table, eager_only=True).to_polars()
        except (TypeError, ValueError, pl.exceptions.PolarsError):  # e.g. non-text names
            return None
    return None


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


def markers_of(
    prepared: Prepared, names: Iterable[str], texts: Mapping[str, nw.DataFrame[Any]] | None = None
) -> dict[str, MarkerCount]:
    """Per known text variable, the missing-value markers of the original (from the
    distinct ``texts`` the engine made on its way, else one query, for the variables
    not yet counted; kept on ``prepared`` for the next attacks)."""
    names = list(names)
    todo = [n for n in names if n not in prepared.markers]
    if todo:
        counts = marker_counts(prepared.original, todo, texts)
        prepared.markers.update({n: counts.get(n, MarkerCount({}, 0, 0, 0)) for n in todo})
    return {n: prepared.markers[n] for n in names if prepared.markers[n].found}


def evaluate_loaded(
    prepared: Prepared,
    attack: Attack,
    *,
    progress: Step | None = None,
    pairing: Any = None,
    tuning: Tuning = DEFAULT_TUNING,
) -> KprResult:
    """Run one attack on a loaded pair (``load(...).pair``). ``pairing`` (see
    ``kpr.evaluate``) adds the count of correct links; ``tuning``: the thresholds
    choosing the engine's counting path (``kpr.engine.tuning``)."""
    check_loaded(prepared, attack)
    kinds = {n: prepared.kinds[n] for n in attack.known}  # every kind, decided on loading
    attack = replace(attack, kinds=kinds)
    row = prepared.row if prepared.has_rows else None
    try:
        run = queries.run(
            prepared.original,
            prepared.avatars,
            attack,
            attack.kinds,
            row=row,
            counting=counting_for(prepared.original, tuning, len(attack.known)),
            progress=progress or queries._noop,
        )
        require_rows(run.counts.n)
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
    detail = RunDetail(prepared.original, run, kinds, prepared.library)
    result = _result(prepared, attack, kinds, run, detail)
    if pairing is not None:
        result.correct_links = _correct_links(detail, result, prepared, pairing)
    if progress is not None:
        progress(INPUTS_CHECKED)
    return result


def check_loaded(prepared: Prepared, attack: Attack) -> None:
    """The attack's variables were loaded, and its widths suit their kinds."""
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
        if name in attack.durations and not timed:
            given = dt.timedelta(days=attack.widths[name])
            raise InputError(
                f"the width of {name!r} is a duration ({given}), but {name!r} holds plain "
                f"numbers: units (d, h, min, s) apply to dates and durations; give a number, "
                f"such as {name}=2"
            )


def _correct_links(detail: RunDetail, result: KprResult, prepared: Prepared, pairing: Any) -> int:
    if not detail.has_rows:
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
    linked = detail.linked_pairs().select("original_row", "avatar_row")
    return correct_links(linked, pairing, result.n, result.n_avatars, ids)


def _ids(side: Any, row: str) -> np.ndarray:
    frame = side.select(row).collect(backend="polars").to_native()
    return np.asarray(frame[row].to_numpy(), dtype=np.int64)


def _result(
    prepared: Prepared,
    attack: Attack,
    kinds: dict[str, Kind],
    run: queries.EngineRun,
    detail: RunDetail,
) -> KprResult:
    variables: dict[str, VariableInfo] = {}
    for name, kind in kinds.items():
        prof = run.profile[name]
        if kind.binned:
            b = run.bins[name]
            variables[name] = VariableInfo(
                name, kind, prof["missing"], b.mean, b.std, b.minimum, b.maximum,
                b.lo, b.width, b.classes, prof.get("distinct"),
            )  # fmt: skip
        else:
            variables[name] = VariableInfo(name, kind, prof["missing"])
    c = run.counts
    return KprResult(
        counts=c,
        tolerance=attack.tolerance,
        known=attack.known,
        variables=variables,
        grid_offset=attack.offset,
        warnings=[
            *warnings_for(variables, c.n, c.n_avatars, c.unique_originals),
            *identifier_warnings(unique_value_rows(prepared, attack.known), c.n),
            *marker_warnings(markers_of(prepared, attack.known, run.texts)),
        ],
        _detail=detail,
    )
