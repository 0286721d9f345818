"""Table builders shared by the avatar tests."""

from __future__ import annotations

import numpy as np
import pandas as pd


def mixed_pandas(n: int = 80, seed: int = 0, missing: bool = False) -> pd.DataFrame:
    """Numeric (float, int) and categorical (string, bool) columns; optionally with gaps."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "height": rng.normal(170, 10, n).round(1),
            "weight": rng.normal(70, 12, n).round(2),
            "age": rng.integers(18, 90, n),
            "city": rng.choice(["paris", "lyon", "nantes", "lille"], n),
            "smoker": rng.choice(["yes", "no"], n),
            "insured": rng.random(n) < 0.7,
        }
    )
    if missing:
        df.loc[rng.random(n) < 0.25, "height"] = np.nan
        df.loc[rng.random(n) < 0.25, "city"] = None
    return df
