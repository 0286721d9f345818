"""Generate a realistic original table and an avatar table for the benchmarks.

Known variables: 3 numeric (``age`` int 0-99, ``height`` float cm with one
decimal, ``income`` lognormal float with two decimals) and 2 categorical
(``region``, 50 values; ``sex``, 2 values), with some missing values in each
but ``sex``. The avatars are a noisy copy of the originals (what a synthesizer
gives: close but not equal), so a realistic share of individuals is linked.

    python benchmarks/make_data.py --rows 100_000_000 --out benchmarks/data/

writes ``original_<rows>.parquet`` and ``avatars_<rows>.parquet`` in chunks
(memory stays flat whatever ``--rows``). Never commit the data:
``benchmarks/data/`` is gitignored.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

KNOWN = ["age", "height", "income", "region", "sex"]
NUMERIC = ["age", "height", "income"]
CATEGORICAL = ["region", "sex"]
SEXES = np.array(["F", "M"], dtype=object)
CHUNK = 5_000_000


def _regions(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` region labels and their (decreasing) probabilities."""
    weights = np.linspace(3.0, 1.0, count)
    return np.array([f"R{i:02d}" for i in range(count)], dtype=object), weights / weights.sum()


REGIONS, _REGION_P = _regions(50)


def _with_missing(values: np.ndarray, rng: np.random.Generator, share: float) -> pa.Array:
    mask = rng.random(len(values)) < share
    return pa.array(values, mask=mask)


def _strings(codes: np.ndarray, labels: np.ndarray, mask: np.ndarray | None) -> pa.Array:
    dictionary = pa.array(labels.tolist(), pa.string())
    indices = pa.array(codes.astype(np.int32), mask=mask)
    return pa.DictionaryArray.from_arrays(indices, dictionary).cast(pa.string())


def chunk(
    rows: int, seed: int, regions: int = 50, decimals: int | None = 2
) -> tuple[pa.Table, pa.Table]:
    """One chunk of originals and the matching avatars (``regions`` text values;
    income rounded to ``decimals``, None: a continuous float)."""
    labels, weights = (REGIONS, _REGION_P) if regions == 50 else _regions(regions)

    def money(values: np.ndarray) -> np.ndarray:
        return values if decimals is None else np.round(values, decimals)

    rng = np.random.default_rng(seed)
    age = rng.integers(0, 100, rows)
    height = np.round(rng.normal(170.0, 10.0, rows), 1)
    income = money(rng.lognormal(10.0, 0.8, rows))
    region = rng.choice(regions, rows, p=weights)
    sex = rng.integers(0, 2, rows)
    original = pa.table(
        {
            "age": _with_missing(age, rng, 0.01),
            "height": _with_missing(height, rng, 0.02),
            "income": _with_missing(income, rng, 0.03),
            "region": _strings(region, labels, rng.random(rows) < 0.005),
            "sex": _strings(sex, SEXES, None),
        }
    )
    a_age = np.clip(age + np.round(rng.normal(0.0, 1.5, rows)).astype(np.int64), 0, 99)
    a_height = np.round(height + rng.normal(0.0, 4.0, rows), 1)
    a_income = money(income * rng.lognormal(0.0, 0.1, rows))
    swap = rng.random(rows) < 0.1
    a_region = np.where(swap, rng.choice(regions, rows, p=weights), region)
    a_sex = np.where(rng.random(rows) < 0.03, 1 - sex, sex)
    avatars = pa.table(
        {
            "age": _with_missing(a_age, rng, 0.01),
            "height": _with_missing(a_height, rng, 0.02),
            "income": _with_missing(a_income, rng, 0.03),
            "region": _strings(a_region, labels, rng.random(rows) < 0.005),
            "sex": _strings(a_sex, SEXES, None),
        }
    )
    return original, avatars


def make_tables(rows: int, seed: int = 0) -> tuple[pa.Table, pa.Table]:
    """Both tables in memory (pyarrow)."""
    parts = [chunk(min(CHUNK, rows - s), seed + i) for i, s in enumerate(range(0, rows, CHUNK))]
    if not parts:
        parts = [chunk(0, seed)]
    return (
        pa.concat_tables([p[0] for p in parts]).combine_chunks(),
        pa.concat_tables([p[1] for p in parts]).combine_chunks(),
    )


def paths(out: Path, rows: int, prefix: str = "") -> tuple[Path, Path]:
    return out / f"{prefix}original_{rows}.parquet", out / f"{prefix}avatars_{rows}.parquet"


def write_parquet(
    rows: int,
    out: Path,
    seed: int = 0,
    quiet: bool = False,
    make: Callable[[int, int], tuple[pa.Table, pa.Table]] = chunk,
    prefix: str = "",
) -> tuple[Path, Path]:
    """Write both tables as Parquet, chunk by chunk (``make(rows, seed)``, file
    names starting with ``prefix``); reuse files already there."""
    out.mkdir(parents=True, exist_ok=True)
    o_path, a_path = paths(out, rows, prefix)
    if o_path.exists() and a_path.exists():
        return o_path, a_path
    start = time.perf_counter()
    o_tmp, a_tmp = o_path.with_suffix(".tmp"), a_path.with_suffix(".tmp")
    writers: list[pq.ParquetWriter] = []
    for i, s in enumerate(range(0, rows, CHUNK)):
        o, a = make(min(CHUNK, rows - s), seed + i)
        if not writers:
            writers = [pq.ParquetWriter(o_tmp, o.schema), pq.ParquetWriter(a_tmp, a.schema)]
        writers[0].write_table(o, row_group_size=1_000_000)
        writers[1].write_table(a, row_group_size=1_000_000)
        if not quiet:
            print(f"  generated {s + min(CHUNK, rows - s):,} / {rows:,} rows", flush=True)
    for w in writers:
        w.close()
    o_tmp.rename(o_path)
    a_tmp.rename(a_path)
    if not quiet:
        print(f"wrote {o_path} and {a_path} in {time.perf_counter() - start:.0f} s")
    return o_path, a_path


def main(
    write: Callable[[int, Path, int], object] = write_parquet,
    rows: int = 10_000_000,
    doc: str | None = __doc__,
) -> None:
    """The command line of a generator: ``write(rows, out, seed)``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=rows)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write(args.rows, args.out, args.seed)


if __name__ == "__main__":
    main()
