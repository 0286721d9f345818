"""The pairing of individuals and avatars, and the links it shows to be right.

A linked individual is one the attacker *can claim*; when kpr made the avatars
(``kpr avatarize --pairing-out``) or the user knows who became which avatar,
the claim can be checked: a link is *correct* when the unique approaching
avatar is the individual's own avatar (spec, "Around the rate").
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import polars as pl

from kpr.errors import InputError
from kpr.inputs.files import CsvOptions, read_table

#: The columns ``kpr avatarize --pairing-out`` writes (and ``--linked-out`` uses).
COLUMNS = ("original_row", "avatar_row")


def _frame(pairing: Any) -> pl.DataFrame:
    if isinstance(pairing, str | os.PathLike):
        loaded = read_table(pairing, list(COLUMNS), CsvOptions(), "pairing")
        frame = loaded.frame.collect()
        try:
            return frame.select(pl.col(c).cast(pl.Int64) for c in COLUMNS)
        except pl.exceptions.PolarsError:
            raise InputError(
                f"pairing {pairing}: original_row and avatar_row must be whole row "
                "positions (as kpr avatarize --pairing-out writes them)"
            ) from None
    if isinstance(pairing, pl.DataFrame):
        return pairing
    if type(pairing).__module__.split(".")[0] == "pandas":
        return pl.from_pandas(pairing)
    array = np.asarray(pairing)
    if array.ndim != 1:
        raise InputError(
            "pairing must be a table with original_row and avatar_row, or one avatar row "
            "per original row (pairing[i] = the avatar of individual i)"
        )
    return pl.DataFrame({"original_row": np.arange(array.shape[0]), "avatar_row": array})


def read_pairing(pairing: Any, n: int, n_avatars: int) -> np.ndarray:
    """The avatar row of each original row (-1 when it has none), checked against the
    tables' sizes. ``pairing`` is a CSV/Parquet path or a frame with ``original_row``
    and ``avatar_row``, or an array with one avatar row per original row."""
    frame = _frame(pairing)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(
            f"the pairing has no column {missing[0]!r}: it needs original_row and avatar_row "
            "(as kpr avatarize --pairing-out writes them)"
        )
    if any(not frame.schema[c].is_integer() for c in COLUMNS):
        raise InputError("the pairing's original_row and avatar_row must be whole row positions")
    frame = frame.select(COLUMNS).drop_nulls()
    orig = frame["original_row"].to_numpy()
    avat = frame["avatar_row"].to_numpy()
    if orig.size and (orig.min() < 0 or orig.max() >= n):
        raise InputError(
            f"the pairing names original rows outside 0..{n - 1}: is it the pairing of "
            "this original table?"
        )
    if avat.size and (avat.min() < 0 or avat.max() >= n_avatars):
        raise InputError(
            f"the pairing names avatar rows outside 0..{n_avatars - 1}: is it the pairing "
            "of this avatar table?"
        )
    if np.unique(orig).size != orig.size:
        raise InputError("the pairing names an original row twice; give one avatar per row")
    out = np.full(n, -1, dtype=np.int64)
    out[orig] = avat
    return out


def count_correct(linked: Any, own: Any) -> int:
    """Linked pairs (a frame with ``original_row`` and ``avatar_row``) whose avatar is
    the individual's own; ``own[i]`` is the avatar row of individual ``i``."""
    original_row = np.asarray(linked["original_row"], dtype=np.int64)
    avatar_row = np.asarray(linked["avatar_row"], dtype=np.int64)
    return int(np.count_nonzero(np.asarray(own, dtype=np.int64)[original_row] == avatar_row))
