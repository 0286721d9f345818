"""Small random tables shared by the analysis tests."""

from __future__ import annotations

import numpy as np
import polars as pl


def tables(n: int = 400, m: int = 380, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """An original and avatars with integer, float and text columns (some missing)."""
    rng = np.random.default_rng(seed)

    def one(k: int) -> pl.DataFrame:
        height = np.round(rng.normal(170, 8, k), 0)
        height[rng.random(k) < 0.05] = np.nan
        region = [
            None if r < 0.05 else str(v)
            for v, r in zip(
                rng.choice(np.array(["north", "south", "east", "west"]), k),
                rng.random(k),
                strict=True,
            )
        ]
        return pl.DataFrame(
            {
                "age": rng.integers(18, 80, k),
                "sex": rng.choice(np.array(["F", "M"]), k),
                "region": pl.Series(region, dtype=pl.String),
                "height": height,
                "kids": rng.integers(0, 4, k),
            }
        )

    return one(n), one(m)
