"""The counts of the membership attack, as narwhals lazy queries (every backend).

A record's class profile is its code on each chosen column under the metric's class
rule, with the ``lo`` and ``width`` an evaluation of the same columns computes over U
(``kpr.engine.queries.run``; this module never bins by itself: ``code_frame`` does).
The original, the avatars and the holdout are coded and counted by profile by a
counting path (``queries.Counting.cells``), then grouped again by the
profile's three counts: only that small table is collected. Everything the attack
measures depends on a profile through its counts alone, so profiles with the same
three counts are interchangeable, and the table sorted by its counts gives the draws
an order that no row order, engine or value encoding can change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import narwhals as nw
import numpy as np

from kpr.engine.queries import (
    Counting,
    EngineRun,
    Frame,
    LazyCounting,
    code_frame,
    internal_frame,
)
from kpr.metric.attack import Kind
from kpr.metric.membership import ProfileCounts

_SIDES = ("original", "avatars", "holdout")
_PROFILES = "__kpr_profiles__"


def _side(name: str) -> str:
    return f"__kpr_in_{name}__"


def _common_types(
    frames: list[Frame], columns: list[str], kinds: Mapping[str, Kind]
) -> list[Frame]:
    """The three tables with each categorical column in one type: the holdout was
    reconciled with the avatars as the original was, so their types can still differ
    (integers in Parquet, text in a CSV); they are then compared as text."""
    schemas = [f.collect_schema() for f in frames]
    mixed = [c for c in columns if not kinds[c].binned and len({str(s[c]) for s in schemas}) > 1]
    if not mixed:
        return frames
    return [f.with_columns(nw.col(c).cast(nw.String) for c in mixed) for f in frames]


def profile_counts(
    run: EngineRun,
    kinds: Mapping[str, Kind],
    tables: tuple[Frame, Frame, Frame],
    counting: Counting | None = None,
) -> ProfileCounts:
    """How many rows of each of the ``tables`` (the original, the avatars, the
    holdout: :data:`_SIDES`) hold each class profile (on ``kinds``' columns, binned as
    ``run`` binned them), one entry per profile, sorted by the three counts
    (``counting``: the counting path that counts them, default the lazy queries)."""
    aliases = {v: run.aliases[v] for v in kinds}
    internal = {aliases[v]: k for v, k in kinds.items()}
    names = list(internal)
    frames = [internal_frame(f, aliases, None) for f in tables]
    frames = _common_types(frames, names, internal)
    bins = run.internal_bins()
    coded = [code_frame(f, internal, bins, None) for f in frames]
    keys = coded[0].collect_schema().names()
    counts = [_side(s) for s in _SIDES]
    parts = dict(zip(counts, coded, strict=True))
    triples = (
        (counting or LazyCounting())
        .cells(parts, keys)
        .group_by(*counts)
        .agg(nw.len().alias(_PROFILES))
    )
    table: Any = triples.collect(backend="polars").to_native()
    data = {c: np.asarray(table[c].to_numpy(), dtype=np.int64) for c in [*counts, _PROFILES]}
    original_n, avatars_n, holdout_n = (data[c] for c in counts)
    return ProfileCounts.of(original_n, avatars_n, holdout_n, data[_PROFILES])
