"""What an evaluation keeps of its run to explain itself after the fact: the rows
it linked and its counts per class, computed where the tables are when asked.

:class:`RunDetail` answers ``kpr.results.evaluation.Detail``, the protocol a result
holds: the results layer never sees the engine's lazy run, only this answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import narwhals as nw
import polars as pl

from kpr.engine.queries import (
    AVATARS,
    GROUP_ROWS,
    IS_AVATAR,
    EngineRun,
    Frame,
    code_frame,
    code_name,
    internal_frame,
    stacked_codes,
)
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins

_AROW = "__kpr_avatar_row__"


def class_counts(run: EngineRun, original: Frame, kinds: Mapping[str, Kind], name: str) -> Frame:
    """Per class (numeric) or value (categorical) of one known variable: how many
    originals, avatars, members of U and linked individuals it holds."""
    aliases = {v: run.aliases[v] for v in kinds}
    internal = {aliases[v]: k for v, k in kinds.items()}
    code = code_name(aliases[name])
    keys = [code_name(a) for a in internal]
    coded_o = code_frame(
        internal_frame(original, aliases, None), internal, run.internal_bins(), None
    )
    parts = {"originals": coded_o, "avatars": run.coded_avatars, "unique_originals": run.coded_u}
    columns = [*parts, "linked"]
    frames = []
    for label, frame in parts.items():
        frames.append(
            frame.group_by(code, drop_null_keys=False)
            .agg(nw.len().alias(label))
            .select(
                code,
                *(
                    nw.col(label).cast(nw.Int64) if c == label else nw.lit(0, nw.Int64).alias(c)
                    for c in columns
                ),
            )
        )
    linked = (
        stacked_codes(run.coded_u, run.coded_avatars, keys, None)
        .group_by(*keys, drop_null_keys=False)
        .agg(
            nw.col(IS_AVATAR).sum().alias(AVATARS),
            nw.len().alias(GROUP_ROWS),
        )
        .filter(nw.col(AVATARS) == 1)
        .with_columns((nw.col(GROUP_ROWS) - nw.col(AVATARS)).alias("linked"))
        .group_by(code, drop_null_keys=False)
        .agg(nw.col("linked").sum())
    )
    frames.append(
        linked.select(
            code,
            *(
                nw.col(c).cast(nw.Int64) if c == "linked" else nw.lit(0, nw.Int64).alias(c)
                for c in columns
            ),
        )
    )
    return (
        nw.concat(frames, how="vertical")
        .group_by(code, drop_null_keys=False)
        .agg(*(nw.col(c).sum() for c in columns))
        .with_columns(nw.col(c).cast(nw.Int64) for c in columns)
        .rename({code: name})
        .sort(name, nulls_last=True)
    )


def _null_safe(frame: Frame, keys: list[str]) -> tuple[Frame, list[str]]:
    """Join columns for ``keys`` that match missing with missing: each key with
    its nulls filled, and a flag saying it was null (SQL joins never match NULL)."""
    schema = frame.collect_schema()
    cols, names = [], []
    for k in keys:
        dtype = schema[k]
        if dtype.is_numeric():
            filled = nw.col(k).fill_null(0)
        elif dtype == nw.Boolean:
            filled = nw.col(k).fill_null(False)
        else:
            filled = nw.col(k).cast(nw.String).fill_null("")
        cols += [filled.alias(f"{k}__fill"), nw.col(k).is_null().alias(f"{k}__null")]
        names += [f"{k}__fill", f"{k}__null"]
    return frame.with_columns(cols), names


def profile_column(name: str) -> str:
    """The column of ``linked_pairs`` holding a known variable's class: its own name,
    with a suffix when the variable is itself called like a row-position column."""
    return f"{name} (class)" if name in ("original_row", "avatar_row") else name


def linked_pairs(run: EngineRun, kinds: Mapping[str, Kind]) -> Frame:
    """One row per linked individual: original row, avatar row, binned profile.

    Computed where the tables are: the profiles held by exactly one avatar
    (with that avatar's row), joined to U; only the linked rows are collected."""
    if run.row is None:
        raise ValueError("row positions are not available for this engine")
    keys = [code_name(run.aliases[n]) for n in kinds]
    once = (
        stacked_codes(run.coded_u, run.coded_avatars, keys, run.row)
        # summed over a profile held by one avatar: that avatar's row
        .with_columns((nw.col(IS_AVATAR) * nw.col(run.row)).alias(_AROW))
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(IS_AVATAR).sum().alias(AVATARS), nw.col(_AROW).sum())
        .filter(nw.col(AVATARS) == 1)
    )
    u, on = _null_safe(run.coded_u.select(run.row, *keys), keys)
    once, _ = _null_safe(once.select(_AROW, *keys), keys)
    renamed = {code_name(run.aliases[n]): profile_column(n) for n in kinds}
    return (
        u.join(once.select(_AROW, *on), on=on, how="inner")
        .select(
            nw.col(run.row).cast(nw.Int64).alias("original_row"),
            nw.col(_AROW).cast(nw.Int64).alias("avatar_row"),
            *(nw.col(k).alias(renamed[k]) for k in keys),
        )
        .sort("original_row")
    )


def to_polars(frame: Frame) -> pl.DataFrame:
    """A lazy frame of any backend, collected into polars."""
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


@dataclass
class RunDetail:
    """One run with the original it counted, the kinds of its known variables and
    the library of the original input (results come back in it)."""

    original: Frame
    run: EngineRun
    kinds: dict[str, Kind]
    library: str = "polars"

    @property
    def bins(self) -> Mapping[str, NumericBins]:
        return self.run.bins

    @property
    def has_rows(self) -> bool:
        return self.run.row is not None

    def linked_pairs(self) -> pl.DataFrame:
        """``linked_pairs``: original row, avatar row, then the class of each
        known variable in the kinds' order (needs ``has_rows``)."""
        return to_polars(linked_pairs(self.run, self.kinds))

    def class_counts(self, name: str) -> pl.DataFrame:
        """``class_counts`` of one known variable."""
        return to_polars(class_counts(self.run, self.original, self.kinds, name))
