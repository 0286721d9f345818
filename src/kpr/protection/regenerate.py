"""The *regenerate* move's new avatars: for each linking avatar with an owner in the
pairing, :data:`REDRAWS` new avatars of its owner drawn by kpr's generator
(``kpr.avatar.generator.redraw``) from the owner's ``k`` nearest originals."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from kpr.errors import InputError
from kpr.protection import table as tables
from kpr.protection.job import ProtectJob
from kpr.protection.loading import Loaded, original_frame
from kpr.protection.moves import NewAvatars
from kpr.protection.state import AttackState

#: New avatars drawn per linking avatar (independent draws of the generator's weights).
REDRAWS = 4


def new_avatars(
    loaded: Loaded, states: list[AttackState], k: int, job: ProtectJob
) -> tuple[NewAvatars, Any]:
    """The regenerate move's new avatars: one per linking avatar that has an owner in
    the pairing, drawn from its owner's ``k`` nearest originals (``kpr.avatar``), and
    the avatar table followed by them (their codes are set once that is encoded)."""
    before = tables.to_polars(loaded.table, loaded.library)
    o = original_frame(loaded, job.csv)
    missing = [c for c in before.columns if c not in o.columns]
    if missing:
        raise InputError(
            f"the move 'regenerate' redraws kpr's own avatars of the originals, but the "
            f"avatars' column {missing[0]!r} is not in the originals; choose other moves"
        )
    rows, owners = _owned_linking_rows(loaded, states, before.height)
    new = _drawn(o, before, owners, k, job.seed)
    drawn_for = np.repeat(rows, REDRAWS)
    differ = np.zeros(len(drawn_for), dtype=np.int64)
    changes_kept = np.zeros(len(drawn_for), dtype=bool)
    keep = set(job.keep)
    for c in [c for c in before.columns if c not in loaded.kinds]:
        ne = before[c].gather(drawn_for).ne_missing(new[c]).to_numpy()
        differ += ne.astype(np.int64)
        if c in keep:
            changes_kept |= ne
    found = NewAvatars(
        {int(r): list(range(i * REDRAWS, (i + 1) * REDRAWS)) for i, r in enumerate(rows)},
        {},
        differ,
        changes_kept,
    )
    return found, tables.appended(loaded.table, loaded.library, new)


def _owned_linking_rows(
    loaded: Loaded, states: list[AttackState], m: int
) -> tuple[np.ndarray, np.ndarray]:
    """The avatar rows that link under some attack and have an owner in the pairing,
    and their owners (original rows)."""
    own = loaded.own
    assert own is not None  # regenerate needs the pairing (checked first)
    owner = np.full(m, -1, dtype=np.int64)
    paired = np.flatnonzero(own >= 0)
    owner[own[paired]] = paired
    linking = sorted({r for s in states for r in s.single.values()})
    rows = np.array([r for r in linking if owner[r] >= 0], dtype=np.int64)
    return rows, owner[rows]


def _drawn(
    o: pl.DataFrame, before: pl.DataFrame, owners: np.ndarray, k: int, seed: int
) -> pl.DataFrame:
    """:data:`REDRAWS` new avatars of each owner, in the avatars' columns and dtypes."""
    from kpr.avatar.generator import redraw

    if not len(owners):
        return before.clear()
    individuals = np.repeat(owners, REDRAWS)
    drawn = redraw(o.select(before.columns), individuals, k=k, seed=seed)
    try:
        return pl.DataFrame(drawn).select(before.columns).cast(before.schema)
    except pl.exceptions.PolarsError as e:
        raise InputError(
            f"the move 'regenerate': the new avatars do not fit the avatars' dtypes ({e}); "
            "choose other moves"
        ) from None
