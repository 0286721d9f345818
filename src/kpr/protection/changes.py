"""The change log (one row per changed avatar cell and per deleted avatar row: the
avatar's values only, never an original individual's) and what it sums to: cells
changed per column, uses of each move, the largest change of each numeric variable."""

from __future__ import annotations

import numpy as np
import polars as pl

from kpr.engine.inmemory import value_classes
from kpr.labels import class_label
from kpr.metric.attack import Kind
from kpr.protection.moves import Column, Outcome
from kpr.protection.state import AttackState

#: The change log's columns.
SCHEMA = {
    "avatar_row": pl.Int64, "column": pl.String, "move": pl.String, "old": pl.String,
    "new": pl.String, "old_class": pl.String, "new_class": pl.String,
}  # fmt: skip


def change_log(
    input_pl: pl.DataFrame,
    protected_pl: pl.DataFrame,
    columns: dict[str, Column],
    outcome: Outcome,
    states: list[AttackState],
) -> pl.DataFrame:
    """One row per changed avatar cell (and per deleted avatar row) of the input
    avatars ``input_pl`` protected into ``protected_pl``, by avatar row and column."""
    kept = np.ones(input_pl.height, dtype=bool)
    kept[list(outcome.deleted)] = False
    position = np.cumsum(kept) - 1
    parts = []
    for name, col in columns.items():
        frame = _known_cells(name, col, (input_pl, protected_pl), kept, position, outcome)
        if frame is not None:
            parts.append(_with_classes(frame, name, col, states))
    parts += _regenerated_cells(input_pl, protected_pl, columns, outcome, position)
    parts += _deleted_rows(sorted(outcome.deleted))
    if not parts:
        return pl.DataFrame(schema=SCHEMA)
    out = pl.concat([p.cast(SCHEMA) for p in parts])  # type: ignore[arg-type]
    return out.sort("avatar_row", "column")


def _known_cells(
    name: str,
    col: Column,
    tables: tuple[pl.DataFrame, pl.DataFrame],
    kept: np.ndarray,
    position: np.ndarray,
    outcome: Outcome,
) -> pl.DataFrame | None:
    """The changed cells of a known variable (avatar row, column, move, old and new
    text), or None when none changed."""
    input_pl, protected_pl = tables
    touched = np.zeros(len(kept), dtype=bool)
    touched[list(col.source)] = True
    touched = (touched | (col.codes != col.input_codes)) & kept
    rows = np.flatnonzero(touched)
    old = input_pl[name].cast(pl.String).gather(rows)
    new = protected_pl[name].cast(pl.String).gather(position[rows])
    # a cell changed when its text did (a value may come back by two moves, as
    # another row's text of the same number: "30.50" for "30.5")
    differ = old.ne_missing(new).to_numpy() | (col.codes[rows] != col.input_codes[rows])
    keep_rows = pl.Series(differ)
    changed, old, new = rows[differ], old.filter(keep_rows), new.filter(keep_rows)
    if not len(changed):
        return None
    return pl.DataFrame({
        "avatar_row": changed, "column": name,
        "move": [outcome.moves.get((int(r), name), "") for r in changed],
        "old": old, "new": new,
    })  # fmt: skip


def _with_classes(
    frame: pl.DataFrame, name: str, col: Column, states: list[AttackState]
) -> pl.DataFrame:
    """The changed cells with their old and new class: a binned variable's class
    label, any other's value."""
    state = next((s for s in states if name in s.bins), None)
    if col.values is None or state is None:
        return frame.with_columns(old_class=pl.col("old"), new_class=pl.col("new"))
    b = state.bins[name]
    date = col.kind is Kind.DATE
    changed = frame["avatar_row"].to_numpy()
    for which, codes in (("old_class", col.input_codes), ("new_class", col.codes)):
        cls = value_classes(col.values[codes[changed]], b)
        frame = frame.with_columns(
            pl.Series(which, [class_label(c, b.lo, b.width, date) for c in cls])
        )
    return frame


def _regenerated_cells(
    input_pl: pl.DataFrame,
    protected_pl: pl.DataFrame,
    columns: dict[str, Column],
    outcome: Outcome,
    position: np.ndarray,
) -> list[pl.DataFrame]:
    """The changed cells, outside the known variables, of the rows *regenerate*
    replaced (and did not delete)."""
    rows = np.array(sorted(set(outcome.regenerated) - outcome.deleted), dtype=np.int64)
    parts = []
    for name in input_pl.columns if len(rows) else ():
        if name in columns:
            continue
        old = input_pl[name].gather(rows)
        new = protected_pl[name].gather(position[rows])
        changed = old.ne_missing(new).to_numpy()
        old, new = old.cast(pl.String).filter(changed), new.cast(pl.String).filter(changed)
        frame = pl.DataFrame({
            "avatar_row": rows[changed], "column": name, "move": "regenerate",
            "old": old, "new": new, "old_class": old, "new_class": new,
        })  # fmt: skip
        parts.append(frame)
    return parts


def _deleted_rows(deleted: list[int]) -> list[pl.DataFrame]:
    """One row per deleted avatar (no column, no values), or none."""
    if not deleted:
        return []
    blank = [""] * len(deleted)
    frame = pl.DataFrame({
        "avatar_row": deleted, "column": blank, "move": "delete",
        "old": blank, "new": blank, "old_class": blank, "new_class": blank,
    })  # fmt: skip
    return [frame]


def counted(changes: pl.DataFrame, union: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Cells changed per column (a regenerated column counted too) and uses of each move."""
    per_column = {name: changes.filter(pl.col("column") == name).height for name in union}
    for name in changes.filter(pl.col("move") == "regenerate")["column"].unique(
        maintain_order=True
    ):
        per_column.setdefault(name, changes.filter(pl.col("column") == name).height)
    used: dict[str, int] = {}
    for move in changes["move"].to_list():
        used[move] = used.get(move, 0) + 1
    return per_column, used


def largest_change(columns: dict[str, Column], deleted: set[int]) -> dict[str, float]:
    """Per numeric or date variable, the largest net change of a cell: its value
    written against its value read, whatever moves it took on the way (0 when none
    changed; a blanked cell has no change to measure)."""
    out: dict[str, float] = {}
    for name, col in columns.items():
        if col.values is None:
            continue
        rows = np.flatnonzero(col.codes != col.input_codes)
        rows = rows[~np.isin(rows, list(deleted))]
        change = np.abs(col.values[col.codes[rows]] - col.values[col.input_codes[rows]])
        change = change[np.isfinite(change)]
        out[name] = float(change.max()) if len(change) else 0.0
    return out
