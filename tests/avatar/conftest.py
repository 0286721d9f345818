"""Fixtures shared by the avatar tests."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest

from ._tables import mixed_pandas


@pytest.fixture
def mixed_pl() -> pl.DataFrame:
    return pl.from_pandas(mixed_pandas(120, seed=1, missing=True))


@pytest.fixture
def mixed_pd() -> pd.DataFrame:
    return mixed_pandas(120, seed=2, missing=True)
