"""Helpers about column names shared by readers and validation."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(name: str, candidates: Iterable[str]) -> str:
    """A hint naming the closest existing column, or listing a few when none is close."""
    pool = [str(c) for c in candidates]
    folded = {c.casefold().strip(): c for c in pool}
    key = name.casefold().strip()
    close = [folded[key]] if key in folded else []
    if not close:
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    shown = ", ".join(map(repr, pool[:8])) + (", ..." if len(pool) > 8 else "")
    return f"; columns are: {shown}" if pool else "; the table has no columns"
