"""``kpr protect --rule robust`` measured: cells changed, every held and measured rule
after protection, the people newly linked, the time.

    python benchmarks/bench_protect_robust.py --case demo
    python benchmarks/bench_protect_robust.py --case large --rows 100_000
    python benchmarks/bench_protect_robust.py --case files --folder DIR

The demo is the bundled ``adult.parquet`` against ``adult_avatars.parquet`` (the
six demo variables); ``files`` is ``original.csv`` against ``avatars.csv`` of
``kpr demo --write DIR`` (the same six variables; docs/protect.md's table);
``large`` is ``make_large.py``'s table (seed 0: continuous income, 100 regions)
with its five known variables (three numeric: age, height, income). Target 99,
seed 0, distances and utility off.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

import kpr
from kpr.demo import demo_paths

DEMO_KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]
LARGE_KNOWN = ["age", "height", "income", "region", "sex"]


def tables(case: str, rows: int, folder: str) -> tuple[Any, Any, list[str]]:
    if case == "files":
        return str(Path(folder) / "original.csv"), str(Path(folder) / "avatars.csv"), DEMO_KNOWN
    if case == "demo":
        o, a = demo_paths()
        return pl.read_parquet(o), pl.read_parquet(a), DEMO_KNOWN
    sys.path.insert(0, str(Path(__file__).parent))
    from make_large import large_chunk

    original, avatars = large_chunk(rows, 0)
    return pl.from_arrow(original), pl.from_arrow(avatars), LARGE_KNOWN  # type: ignore[return-value]


def _count_doubts() -> dict[str, int]:
    """The decoys and escapes the optimiser applies (absent before they existed)."""
    from kpr.protection import optimise

    doubts: dict[str, int] = {}
    run = optimise.Optimiser.run

    def counted(self: optimise.Optimiser) -> optimise.Outcome:
        outcome = run(self)
        doubts.update(getattr(outcome, "doubts", {}))
        return outcome

    optimise.Optimiser.run = counted  # type: ignore[method-assign]
    return doubts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("demo", "large", "files"), default="demo")
    parser.add_argument("--folder", default=".", help="kpr demo --write's folder (files)")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rule", default="robust")
    parser.add_argument("--target", type=float, default=99.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    original, avatars, known = tables(args.case, args.rows, args.folder)
    doubts = _count_doubts()
    start = time.perf_counter()
    _, r = kpr.protect(
        original, avatars, known, target=args.target, seed=args.seed, rule=args.rule,
        distances=False, utility=False,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    print(f"{args.case} rule {args.rule}: met {r.met}, unfixed {r.unfixed}")
    print(f"cells changed {sum(r.cells_changed.values())} {dict(r.cells_changed)}")
    print(f"moves {dict(r.moves_used)}; of them decoys and escapes {doubts}")
    print(f"class after {r.attacks[0].after.rate:.2f} (before {r.attacks[0].before.rate:.2f})")
    for c in r.collateral:
        where = f"offset {c.offset}" if c.offset else f"tolerance {c.tolerance}"
        print(
            f"{c.rule:<6} {where:<16} {c.before.rate:6.2f} -> {c.after.rate:6.2f}"
            f"  newly linked {c.newly_linked}"
        )
    for m in r.multiplicity:
        print(
            f"multiplicity {m.column}: {m.few}/{m.changed} changed rows held by 2-3 rows "
            f"(table {m.table_share:.3f}), p {m.p_value:.3g}"
        )
    if r.plausibility is not None:
        print(f"implausible pairs {r.plausibility.before} -> {r.plausibility.after}")
    print(f"time {seconds:.1f} s")


if __name__ == "__main__":
    main()
