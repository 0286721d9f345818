"""Benchmark of ``kpr.analysis``: the known-variable sweep and the window attack.

Generates an original table of ``--rows`` individuals with 10 candidate known
variables of realistic cardinalities (5 numeric, 5 categorical) and an avatar
table made by perturbing it, then times:

* the sweep of every subset of up to ``--max-known`` candidates (175 attacks
  for 10 candidates and 3), with and without the shared pre-encoding;
* the window attack with 3 numeric + 2 categorical known variables.

Prints the median of ``--repeats`` runs. Example::

    python benchmarks/bench_analysis.py --rows 1000000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import polars as pl

CANDIDATES = [
    "age", "sex", "region", "income", "height",
    "weight", "education", "marital_status", "children", "occupation",
]  # fmt: skip
WINDOW_KNOWN = ["age", "height", "weight", "sex", "region"]


def make_tables(rows: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """An original table and avatars that resemble it (noise on numerics, some
    categorical values redrawn)."""
    rng = np.random.default_rng(seed)

    def table(n: int, r: np.random.Generator) -> dict[str, np.ndarray]:
        return {
            "age": r.integers(18, 91, n),
            "sex": r.choice(np.array(["F", "M"]), n),
            "region": r.choice(np.array([f"region_{i:02d}" for i in range(20)]), n),
            "income": np.round(r.lognormal(10.3, 0.6, n), 0),
            "height": np.round(r.normal(170.0, 10.0, n), 1),
            "weight": np.round(r.normal(72.0, 13.0, n), 1),
            "education": r.choice(np.array([f"edu_{i}" for i in range(16)]), n),
            "marital_status": r.choice(np.array([f"ms_{i}" for i in range(7)]), n),
            "children": r.poisson(1.3, n),
            "occupation": r.choice(np.array([f"occ_{i:02d}" for i in range(15)]), n),
        }

    original = table(rows, rng)
    avatars = dict(original)
    noise = rng.normal(0.0, 1.0, rows)
    avatars["age"] = np.clip(original["age"] + np.round(noise * 2).astype(np.int64), 18, 90)
    avatars["income"] = np.round(original["income"] * rng.lognormal(0.0, 0.05, rows), 0)
    avatars["height"] = np.round(original["height"] + rng.normal(0.0, 2.0, rows), 1)
    avatars["weight"] = np.round(original["weight"] + rng.normal(0.0, 2.0, rows), 1)
    redraw = table(rows, rng)
    for name in ("region", "education", "occupation", "marital_status"):
        mask = rng.random(rows) < 0.3
        avatars[name] = np.where(mask, redraw[name], original[name])
    perm = rng.permutation(rows)
    avatars = {k: v[perm] for k, v in avatars.items()}
    return pl.DataFrame(original), pl.DataFrame(avatars)


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-known", type=int, default=3)
    parser.add_argument("--reference", action="store_true",
                        help="also time the sweep through kpr.api.evaluate_loaded (slow)")
    args = parser.parse_args()

    from kpr.analysis import sweep, window_attack

    start = time.perf_counter()
    original, avatars = make_tables(args.rows)
    print(f"generated {args.rows:,} rows per side in {time.perf_counter() - start:.1f} s")

    seconds, result = timed(
        lambda: sweep(original, avatars, CANDIDATES, max_known=args.max_known), args.repeats
    )
    print(f"sweep: {len(result.entries)} attacks in {seconds:.2f} s (median of {args.repeats})")
    for entry in result.entries[:5]:
        print(f"  {entry.rate:8.4f} %  {', '.join(entry.known)}")

    if args.reference:
        import itertools

        from kpr.api import evaluate_loaded, load

        def reference() -> int:
            prepared = load(original, avatars, CANDIDATES, materialize=True)
            count = 0
            for size in range(1, args.max_known + 1):
                for subset in itertools.combinations(CANDIDATES, size):
                    evaluate_loaded(prepared, subset)
                    count += 1
            return count

        seconds, count = timed(reference, 1)
        print(f"reference (evaluate_loaded per subset): {count} attacks in {seconds:.2f} s")

    seconds, window = timed(
        lambda: window_attack(original, avatars, WINDOW_KNOWN), args.repeats
    )
    print(
        f"window attack ({', '.join(WINDOW_KNOWN)}): {seconds:.2f} s (median of "
        f"{args.repeats}); rate {window.rate:.4f} %"
    )


if __name__ == "__main__":
    main()
