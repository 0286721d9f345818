"""The second shape of table for the whole-command benchmarks (``bench_command.py
--shape coarse``), unlike ``make_large.py``'s: values a survey or a register
holds, on coarse grids, and no missing value.

- ``age``: a float with 73 distinct values (18.0 to 90.0);
- ``height``: cm, rounded to 0.1;
- ``income``: rounded to hundreds;
- ``region``: 100 text values with a skewed (Zipf-like) distribution;
- ``sex``: 2 values.

The avatars are a noisy copy on the same grids, as ``make_data.py``'s are.

    python benchmarks/make_coarse.py --rows 4_000_000 --out benchmarks/data/

Never commit the data (``benchmarks/data/`` is gitignored).
"""

from __future__ import annotations

from pathlib import Path

import make_data
import numpy as np
import pyarrow as pa
from make_data import SEXES, _strings, write_parquet

PREFIX = "coarse_"
REGIONS = np.array([f"region {i:03d}" for i in range(100)], dtype=object)
#: Zipf-like: the first region holds about 19 % of the rows, the last 0.2 %.
_REGION_P = 1.0 / np.arange(1, 101)
_REGION_P /= _REGION_P.sum()


def coarse_chunk(rows: int, seed: int) -> tuple[pa.Table, pa.Table]:
    """One chunk of originals and their avatars, every value on its column's grid."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 91, rows).astype(np.float64)
    height = np.round(rng.normal(170.0, 10.0, rows), 1)
    income = np.round(rng.lognormal(10.0, 0.8, rows), -2)
    region = rng.choice(len(REGIONS), rows, p=_REGION_P)
    sex = rng.integers(0, 2, rows)
    a_age = np.clip(age + np.round(rng.normal(0.0, 1.5, rows)), 18.0, 90.0)
    a_height = np.round(height + rng.normal(0.0, 4.0, rows), 1)
    a_income = np.round(income * rng.lognormal(0.0, 0.1, rows), -2)
    swap = rng.random(rows) < 0.1
    a_region = np.where(swap, rng.choice(len(REGIONS), rows, p=_REGION_P), region)
    a_sex = np.where(rng.random(rows) < 0.03, 1 - sex, sex)

    def table(*numbers: np.ndarray, r: np.ndarray, s: np.ndarray) -> pa.Table:
        named = dict(zip(("age", "height", "income"), map(pa.array, numbers), strict=True))
        return pa.table(
            {**named, "region": _strings(r, REGIONS, None), "sex": _strings(s, SEXES, None)}
        )

    original = table(age, height, income, r=region, s=sex)
    return original, table(a_age, a_height, a_income, r=a_region, s=a_sex)


def write_coarse(rows: int, out: Path, seed: int = 0, quiet: bool = False) -> tuple[Path, Path]:
    """Both coarse tables as Parquet under ``out`` (reused when already there)."""
    return write_parquet(rows, out, seed, quiet, make=coarse_chunk, prefix=PREFIX)


def main() -> None:
    make_data.main(write_coarse, 4_000_000, __doc__)


if __name__ == "__main__":
    main()
