"""Small random tables of people shared by the tests: the same rows for the same
arguments (a seeded generator, its draws always in the same order)."""

from __future__ import annotations

import numpy as np
import polars as pl


def people(n: int, seed: int, *, decimals: int = 2, kids: bool = True) -> pl.DataFrame:
    """``age`` (18 to 89), ``sex`` (F, M), an ``income`` that follows age, rounded to
    ``decimals`` (nearly an identifier), and with ``kids`` a few distinct integers (0 to 2)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    columns = {
        "age": age,
        "sex": rng.choice(np.array(["F", "M"]), n),
        "income": np.round(age * 400 + rng.normal(0, 8000, n), decimals),
    }
    if kids:
        columns["kids"] = rng.integers(0, 3, n)
    return pl.DataFrame(columns)
