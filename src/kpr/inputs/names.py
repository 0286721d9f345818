"""Helpers about column names shared by readers and validation."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from kpr.errors import shown

#: How many of a table's columns a message lists before "…".
SHOWN = 8


def shown_columns(candidates: Iterable[str]) -> str:
    """A few of the columns a table has, for a message: ``'a', 'b', …`` (a long
    name cut, see :func:`kpr.errors.shown`)."""
    pool = [str(c) for c in candidates]
    return ", ".join(map(shown, pool[:SHOWN])) + (", …" if len(pool) > SHOWN else "")


def suggest(name: str, candidates: Iterable[str]) -> str:
    """A hint naming the closest existing column, if one is close, and a few of the
    columns the table has (the user sees what is there, not only a guess)."""
    pool = [str(c) for c in candidates]
    if not pool:
        return "; the table has no columns"
    folded = {c.casefold().strip(): c for c in pool}
    key = name.casefold().strip()
    close = [folded[key]] if key in folded else []
    if not close:
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {shown(close[0])}? (columns: {shown_columns(pool)})"
    return f"; columns are: {shown_columns(pool)}"
