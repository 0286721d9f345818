"""CSV columns of numbers held as numbers while a file is read, block by block
(``compact``): a text column whose every value is a number written the way it prints
back is held as Int64 or Float64, exactly (cast back to text, it gives the file's text
again); the first block where it is not turns it back to text in every block."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import polars as pl

#: How ``read_table`` holds CSV columns of numbers: False, as text; True, as numbers
#: that print back as the file's text; a predicate, also as floats whose text is not
#: kept for the columns it names (those the caller will compare as numbers whenever
#: every value is one, whatever their text: see :meth:`Parts.add`).
Compact = bool | Callable[[str], bool]


class TextLost(Exception):
    """A loose column (see :class:`Parts`) turns out not to be numbers only."""


class Parts:
    """The blocks of a CSV file, each ``numbers`` column held as Int64 or Float64
    for as long as every block's text of it is canonical numbers (see
    :func:`held`); the first block that is not turns that column back to text in
    every block (exactly: a canonical number prints as its text). The type is
    chosen at the first block where the column has a value. A ``loose`` column
    (its text not needed: it will be numeric) is held as Float64 whatever the text
    of its numbers, from a block with a value that is not an integer's text (the
    text rule reads such a column as floats too, and every integer as a float)."""

    def __init__(self, numbers: list[str], loose: Collection[str] = ()) -> None:
        self.frames: list[pl.DataFrame] = []
        #: the columns still held as numbers: their type (None: no value seen yet)
        self.held: dict[str, type[pl.Int64 | pl.Float64] | None] = dict.fromkeys(numbers)
        self.loose = frozenset(loose)

    @classmethod
    def of(cls, columns: list[str], compact: Compact) -> Parts:
        if not compact:
            return cls([])
        return cls(columns, [c for c in columns if callable(compact) and compact(c)])

    def add(self, part: pl.DataFrame) -> None:
        typed: list[pl.Series] = []
        lost: list[str] = []
        for name, dtype in self.held.items():
            text = part[name]
            if text.null_count() == len(text):
                continue  # nothing to tell the type by (a column of nulls casts to any)
            got = None
            for candidate in (pl.Int64, pl.Float64) if dtype is None else (dtype,):
                if candidate is pl.Float64 and name in self.loose:
                    got = _loose_floats(text, first=dtype is None)
                else:
                    got = held(text, candidate)
                if got is not None:
                    self.held[name] = candidate
                    typed.append(got)
                    break
            if got is None:
                lost.append(name)
        if lost:
            self._to_text(lost)
        self.frames.append(part.with_columns(typed) if typed else part)

    def _to_text(self, names: list[str]) -> None:
        if any(self.held[c] is pl.Float64 for c in names if c in self.loose):
            raise TextLost  # its earlier blocks' text is gone
        self.held = {c: t for c, t in self.held.items() if c not in names}
        text = [pl.col(c).cast(pl.String) for c in names]
        self.frames = [f.with_columns(text) for f in self.frames]

    def whole(self, columns: Sequence[str]) -> pl.DataFrame:
        """One frame of ``columns`` (text when no block came: a header and no row);
        a column that never held a value stays text (as without compact)."""
        if not self.frames:
            return pl.DataFrame(schema=dict.fromkeys(columns, pl.String))
        held = {c: t for c, t in self.held.items() if t is not None}
        frames = [  # blocks read before a column's first value hold text nulls
            f.with_columns(pl.col(c).cast(t) for c, t in held.items() if f[c].dtype != t)
            for f in self.frames
        ]
        return pl.concat(frames, rechunk=False)


def held(text: pl.Series, dtype: type[pl.Int64 | pl.Float64]) -> pl.Series | None:
    """A text column as ``dtype`` when every value is the number that prints as it
    (Int64: ``30``, not ``030``, ``+30`` or `` 30 ``; Float64: ``30.5``, ``1e+16``,
    not ``30.50``, and no NaN: ``NaN`` is missing in a column of numbers but a
    category once declared categorical), else None."""
    typed = text.cast(dtype, strict=False)
    if typed.null_count() != text.null_count():
        return None
    if dtype == pl.Float64 and typed.is_nan().any():
        return None
    return typed if bool((typed.cast(pl.String) == text).all()) else None


def _loose_floats(text: pl.Series, first: bool) -> pl.Series | None:
    """A text column as Float64 when every value is a number other than NaN, and
    (``first``: the block that settles the column's type) some value is not an
    integer's text; its text is not kept (see :class:`Parts`)."""
    typed = text.cast(pl.Float64, strict=False)
    if typed.null_count() != text.null_count() or typed.is_nan().any():
        return None
    if first and text.cast(pl.Int64, strict=False).null_count() == text.null_count():
        return None  # integers only, so far: as text, so that they may stay integers
    return typed


def exact_numbers(frame: pl.DataFrame) -> pl.DataFrame:
    """Each text column held as Int64 or Float64 when every value is the number that
    prints back as its text (the ``compact`` rule of :func:`read_table`, on a table in
    memory: ``kpr.protect``'s avatars once their missing markers are read as missing)."""
    typed = []
    for name, dtype in frame.schema.items():
        text = frame[name]
        if dtype != pl.String or text.null_count() == len(text):
            continue
        for candidate in (pl.Int64, pl.Float64):
            got = held(text, candidate)
            if got is not None:
                typed.append(got)
                break
    return frame.with_columns(typed) if typed else frame
