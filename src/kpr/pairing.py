"""The pairing of individuals and avatars, and the links it shows to be right.

A linked individual is one the attacker *can claim*; when kpr made the avatars
(``kpr avatarize --pairing-out``) or the user knows who became which avatar,
the claim can be checked: a link is *correct* when the unique approaching
avatar is the individual's own avatar (spec, "Around the rate").

A pairing decides the re-identification figure, so it is checked once, here, for
every entry point (API, ``evaluate``, ``analyze``): whole numbers, one avatar per
individual and one individual per avatar, every original row present.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from kpr.errors import InputError
from kpr.inputs.files import read_table
from kpr.inputs.reading import ReadSettings

#: The columns ``kpr avatarize --pairing-out`` writes (and ``--linked-out`` uses).
COLUMNS = ("original_row", "avatar_row")

_AS_WRITTEN = "(as kpr avatarize --pairing-out writes them)"


@dataclass(frozen=True)
class Unpaired:
    """A pairing some individuals have lost their avatar in: ``rows[i]`` is the
    avatar row of original row ``i``, or -1 when its avatar was deleted (the
    pairing of a table ``kpr protect`` deleted avatars from). A user's pairing
    names every original row; this one is built by kpr, already checked."""

    rows: np.ndarray


def _frame(pairing: Any) -> pl.DataFrame:
    if isinstance(pairing, str | os.PathLike):
        loaded = read_table(pairing, list(COLUMNS), ReadSettings(), "pairing")
        return loaded.frame.collect()
    if isinstance(pairing, pl.DataFrame):
        return pairing
    if type(pairing).__module__.split(".")[0] == "pandas":
        return pl.from_pandas(pairing)
    try:
        array = np.asarray(pairing)
    except (TypeError, ValueError):
        array = np.empty((0, 0))
    if array.ndim != 1:
        raise InputError(
            "pairing must be a table with original_row and avatar_row, or one avatar row "
            "per original row (pairing[i] = the avatar of individual i)"
        )
    return pl.DataFrame(
        {"original_row": np.arange(array.shape[0]), "avatar_row": pl.Series(array, strict=False)}
    )


def _positions(column: pl.Series, what: str) -> np.ndarray:
    """A column of whole numbers as int64: integers, or floats with integral values;
    never booleans, text, fractions or missing values."""
    if column.dtype == pl.String:  # a CSV file: its text read as numbers
        column = column.str.strip_chars()
        whole = column.cast(pl.Int64, strict=False)
        number = column.cast(pl.Float64, strict=False)
        bad = column.filter(column.is_not_null() & number.is_null())
        if bad.len():
            raise InputError(
                f"the pairing's {what} must be whole row positions {_AS_WRITTEN}; "
                f"{bad[0]!r} is not one"
            )
        column = whole if whole.null_count() == column.null_count() else number
    dtype = column.dtype
    if dtype.is_integer():
        values = column
    elif dtype.is_float():
        finite = column.drop_nulls()
        bad = finite.filter(~finite.is_finite() | (finite != finite.floor()))
        if bad.len():
            raise InputError(
                f"the pairing's {what} must be whole row positions {_AS_WRITTEN}; "
                f"{bad[0]!r} is not one"
            )
        values = column
    else:
        raise InputError(
            f"the pairing's {what} must be whole row positions {_AS_WRITTEN}, not "
            f"{'true/false values' if dtype == pl.Boolean else str(dtype)}"
        )
    if values.null_count():
        raise InputError(
            f"the pairing's {what} has {values.null_count():,} missing value(s): every "
            "individual needs its avatar row"
        )
    return values.cast(pl.Int64).to_numpy()


def _in_ids(values: np.ndarray, ids: np.ndarray, side: str, row_id: str) -> np.ndarray:
    """Row positions of ``values`` given as ``row_id`` ids of one side's table."""
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    if sorted_ids.size > 1 and (sorted_ids[1:] == sorted_ids[:-1]).any():
        raise InputError(
            f"the {side} table's --row-id column {row_id!r} holds an id twice; a pairing in "
            "ids needs each id once"
        )
    at = np.searchsorted(sorted_ids, values)
    found = (at < sorted_ids.size) & (sorted_ids[np.minimum(at, sorted_ids.size - 1)] == values)
    if not found.all():
        raise InputError(
            f"the pairing names {side} id {int(values[~found][0])}, which is not in the "
            f"{side} table's {row_id!r} column: with a row id, the pairing is in ids"
        )
    return order[at]


def read_pairing(
    pairing: Any,
    n: int,
    n_avatars: int,
    ids: tuple[str, np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """The avatar row of each original row, checked against the tables' sizes.

    ``pairing`` is a CSV/Parquet path or a frame with ``original_row`` and
    ``avatar_row``, or an array with one avatar row per original row. ``ids``
    (the row-id column's name and the ids of the original and avatar rows, in
    row order) says the pairing is written in those ids: they are mapped to
    positions. Whole numbers only, one-to-one, every original row once.
    An :class:`Unpaired` gives its rows (-1: no avatar) after a check of its size."""
    if not isinstance(pairing, str | os.PathLike):
        return _read_pairing(pairing, n, n_avatars, ids)
    try:
        return _read_pairing(pairing, n, n_avatars, ids)
    except InputError as exc:  # name the file at fault, once
        path = os.fspath(pairing)
        if path in str(exc):
            raise
        raise InputError(f"pairing {path}: {exc}") from None


def _read_pairing(
    pairing: Any,
    n: int,
    n_avatars: int,
    ids: tuple[str, np.ndarray, np.ndarray] | None,
) -> np.ndarray:
    if isinstance(pairing, Unpaired):
        if len(pairing.rows) != n or (len(pairing.rows) and pairing.rows.max() >= n_avatars):
            raise InputError(f"the pairing does not fit tables of {n:,} and {n_avatars:,} rows")
        return pairing.rows
    frame = _frame(pairing)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(
            f"the pairing has no column {missing[0]!r}: it needs original_row and avatar_row "
            f"{_AS_WRITTEN}"
        )
    if frame.height == 0:
        raise InputError(
            f"the pairing has no rows, while the original table has {n:,}: give the pairing "
            "of these avatars"
        )
    orig = _positions(frame["original_row"], "original_row")
    avat = _positions(frame["avatar_row"], "avatar_row")
    if ids is not None:
        orig = _in_ids(orig, ids[1], "original", ids[0])
        avat = _in_ids(avat, ids[2], "avatar", ids[0])
    if orig.min() < 0 or orig.max() >= n:
        raise InputError(
            f"the pairing names original rows outside 0..{n - 1}: is it the pairing of "
            "this original table?"
        )
    if avat.min() < 0 or avat.max() >= n_avatars:
        raise InputError(
            f"the pairing names avatar rows outside 0..{n_avatars - 1}: is it the pairing "
            "of this avatar table?"
        )
    if np.unique(orig).size != orig.size:
        raise InputError("the pairing names an original row twice; give one avatar per row")
    if np.unique(avat).size != avat.size:
        raise InputError(
            "the pairing gives one avatar row to several individuals; each avatar is the "
            "avatar of one individual"
        )
    if orig.size != n:
        raise InputError(
            f"the pairing has {orig.size:,} individual(s), the original table {n:,}: every "
            "original row needs its avatar row"
        )
    out = np.empty(n, dtype=np.int64)
    out[orig] = avat
    return out


def correct_links(
    linked: pl.DataFrame,
    pairing: Any,
    n: int,
    n_avatars: int,
    ids: tuple[str, np.ndarray, np.ndarray] | None = None,
) -> int:
    """The linked pairs (``original_row``, ``avatar_row``; ids when ``ids`` is given,
    as in :func:`read_pairing`) that the pairing shows to be right."""
    own = read_pairing(pairing, n, n_avatars, ids)
    if ids is not None:
        linked = pl.DataFrame(
            {
                "original_row": _in_ids(
                    linked["original_row"].to_numpy(), ids[1], "original", ids[0]
                ),
                "avatar_row": _in_ids(linked["avatar_row"].to_numpy(), ids[2], "avatar", ids[0]),
            }
        )
    original_row = np.asarray(linked["original_row"], dtype=np.int64)
    avatar_row = np.asarray(linked["avatar_row"], dtype=np.int64)
    return int(np.count_nonzero(np.asarray(own, dtype=np.int64)[original_row] == avatar_row))
