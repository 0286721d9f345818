"""Whole-process ``kpr membership`` on large Parquet tables (issue 35: at most 10 s
with 1M rows per side and a 100k-row holdout).

    python benchmarks/bench_membership.py --rows 1_000_000 --holdout 100_000 --repeats 3

Tables come from ``make_large.py`` (continuous income, 100 regions), written to
``--data`` once; the holdout is a chunk of the same generator with another seed
(people of the same population, none of the original's). Each command runs as its
own process, in turn, so that a drift of the machine's speed hits both alike:

- ``membership``: ``python -m kpr membership ORIGINAL AVATARS --holdout HOLDOUT``
  on every column (the five of ``make_data.py``), ``--format json``;
- ``evaluate``: ``kpr evaluate`` of the same tables and columns, for scale (the
  membership attack evaluates the same attack to get its classes, then counts).

Per run: wall and CPU seconds and peak RSS, the commands started by a fresh interpreter
(``turns.rounds_apart``); printed: the attack's AUC, medians and the load average.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from make_data import KNOWN  # noqa: E402
from make_large import large_chunk, write_large  # noqa: E402
from run import compile_trees, header  # noqa: E402
from turns import medians_table, rounds_apart, run_once  # noqa: E402

#: The holdout's seed: far from the original's chunks (seeds 0, 1, ...).
HOLDOUT_SEED = 10_000


def write_holdout(rows: int, out: Path) -> Path:
    """People of the same population as ``make_large``'s original, not in it."""
    path = out / f"large_holdout_{rows}.parquet"
    if not path.exists():
        original, _ = large_chunk(rows, HOLDOUT_SEED)
        pq.write_table(original, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    parser.add_argument("--holdout", type=lambda s: int(s.replace("_", "")), default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    args = parser.parse_args()
    compile_trees(SRC)
    o, a = write_large(args.rows, args.data)
    h = write_holdout(args.holdout, args.data)
    py = sys.executable
    commands = {
        "membership": [py, "-m", "kpr", "membership", str(o), str(a), "--holdout", str(h),
                       "--format", "json", "--quiet"],
        "evaluate": [py, "-m", "kpr", "evaluate", str(o), str(a), "--known", ",".join(KNOWN),
                     "--format", "json", "--quiet"],
    }  # fmt: skip
    print(header())
    print(f"{args.rows:,} rows per side, a {args.holdout:,}-row holdout, from Parquet; "
          f"columns: {', '.join(KNOWN)}; {args.repeats} rounds after {args.warmup} "
          "uncounted")  # fmt: skip
    _, text = run_once(commands["membership"], SRC)  # the attack's figures, once
    result = json.loads(text)
    print(f"  AUC {result['auc']['value']:.4f}, TPR at 1 % {result['tpr_at_fpr'][0]['tpr']}")
    timed = {name: (cmd, SRC) for name, cmd in commands.items()}
    # membership's JSON holds no |U| or |S| to compare with evaluate's
    runs = rounds_apart(timed, args.repeats, args.warmup, unchecked={"membership"})
    medians_table(runs)
    print(header())


if __name__ == "__main__":
    main()
