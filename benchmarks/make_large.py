"""Generate the large tables of the whole-command benchmarks (``bench_command.py``).

The same kind of table as ``make_data.py`` (known: ``age`` int, ``height`` one
decimal, ``income``, ``region`` text, ``sex``), with what makes a table hard:
``income`` is a continuous lognormal float (full precision, so nearly every
value is distinct and its exact sums need the most limbs) and ``region`` takes
100 text values. Written in chunks, so memory stays flat whatever ``--rows``:

    python benchmarks/make_large.py --rows 100_000_000 --out /some/tmp/dir

writes ``large_original_<rows>.parquet`` and ``large_avatars_<rows>.parquet``.
Never commit the data (``benchmarks/data/`` is gitignored).
"""

from __future__ import annotations

from pathlib import Path

import make_data
import pyarrow as pa
from make_data import chunk, write_parquet

PREFIX = "large_"
REGIONS = 100


def large_chunk(rows: int, seed: int) -> tuple[pa.Table, pa.Table]:
    """One chunk: a continuous income, 100 regions."""
    return chunk(rows, seed, regions=REGIONS, decimals=None)


def write_large(rows: int, out: Path, seed: int = 0, quiet: bool = False) -> tuple[Path, Path]:
    """Both large tables as Parquet under ``out`` (reused when already there)."""
    return write_parquet(rows, out, seed, quiet, make=large_chunk, prefix=PREFIX)


def main() -> None:
    make_data.main(write_large, 4_000_000, __doc__)


if __name__ == "__main__":
    main()
