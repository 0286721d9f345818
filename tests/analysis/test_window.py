"""The window attack against a brute-force O(n·m) count of its definition."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kpr
from kpr.analysis import window as window_mod
from kpr.analysis import window_attack
from kpr.analysis.window import approach_counts
from kpr.demo import DEMO_KNOWN, demo_paths

INF = math.inf
Value = float | None


def _missing(x: Value) -> bool:
    return x is None or math.isnan(x)


def _num_approaches(x: Value, y: Value, h: float) -> bool:
    if _missing(x):
        return _missing(y)
    assert x is not None
    if math.isinf(x):
        return y == x
    if y is None or not math.isfinite(y):
        return False
    return abs(x - y) <= h


def brute_counts(
    u: Sequence[tuple[Value, ...]],
    avatars: Sequence[tuple[Value, ...]],
    n_cat: int,
    h: Sequence[float],
) -> list[int]:
    """Per row of u, the number of avatars approaching it, capped at 2."""
    out = []
    for row in u:
        count = 0
        for av in avatars:
            if all(row[i] == av[i] for i in range(n_cat)) and all(
                _num_approaches(row[n_cat + j], av[n_cat + j], hj) for j, hj in enumerate(h)
            ):
                count += 1
                if count == 2:
                    break
        out.append(count)
    return out


numbers = st.sampled_from(
    [0.0, -0.0, 0.5, 1.0, 1.5, 2.0, 3.0, -1.0, 0.1, 0.2, 0.3, 1e300, -1e300, 1.0 + 2**-52,
     None, math.nan, INF, -INF]
)  # fmt: skip
widths = st.sampled_from([0.5, 1.0, 2.0, 0.1, 1e-300, 2**-52, 1e-12, 1e299])
categories = st.sampled_from(["a", "b", None])


def frame(rows: list[tuple[Value, ...]], n_cat: int, n_num: int) -> pl.DataFrame:
    cols: dict[str, pl.Series] = {}
    for i in range(n_cat):
        cols[f"c{i}"] = pl.Series([r[i] for r in rows], dtype=pl.String)
    for j in range(n_num):
        cols[f"x{j}"] = pl.Series([r[n_cat + j] for r in rows], dtype=pl.Float64, nan_to_null=False)
    return pl.DataFrame(cols) if cols else pl.DataFrame()


@st.composite
def problems(draw: st.DrawFn) -> tuple[list, list, int, int, list[float]]:
    n_cat = draw(st.integers(0, 2))
    n_num = draw(st.integers(0 if n_cat else 1, 3))
    row = st.tuples(*([categories] * n_cat), *([numbers] * n_num))
    u = draw(st.lists(row, min_size=1, max_size=12))
    # Avatars: fresh rows, and copies of U rows (values exactly on the bound, duplicates).
    pool = st.one_of(row, st.sampled_from(u))
    avatars = draw(st.lists(pool, min_size=0, max_size=15))
    h = [draw(widths) for _ in range(n_num)]
    return u, avatars, n_cat, n_num, h


@pytest.fixture(params=[True, False], ids=["cells", "tree-only"])
def cell_pass(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Run with the grid-cell pass, and without it (every row through the k-d tree)."""
    if not request.param:
        monkeypatch.setattr(
            window_mod, "_same_cell_pass", lambda q_sid, *_: np.zeros(q_sid.size, dtype=bool)
        )
    return bool(request.param)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(problems())
def test_counts_match_brute_force(cell_pass: bool, problem: tuple) -> None:
    u, avatars, n_cat, n_num, h = problem
    cat = [f"c{i}" for i in range(n_cat)]
    num = [f"x{j}" for j in range(n_num)]
    got = approach_counts(
        frame(u, n_cat, n_num),
        frame(avatars, n_cat, n_num),
        cat,
        num,
        dict(zip(num, h, strict=True)),
    )
    assert got.tolist() == brute_counts(u, avatars, n_cat, h)


@pytest.mark.parametrize("seed", range(4))
def test_counts_match_brute_force_on_larger_random_tables(cell_pass: bool, seed: int) -> None:
    """Enough rows for the tree and the cell pass to matter; integer grids put many
    values exactly on the bound, and repeated rows make equal avatars."""
    rng = np.random.default_rng(seed)

    def rows(k: int) -> list[tuple[Value, ...]]:
        x = rng.integers(0, 30, k).astype(float) * 0.1
        y = rng.integers(-5, 5, k).astype(float)
        y[rng.random(k) < 0.05] = np.nan
        c = rng.choice(np.array(["p", "q"]), k)
        return [(str(ci), float(xi), float(yi)) for ci, xi, yi in zip(c, x, y, strict=True)]

    u, avatars = rows(300), rows(400)
    avatars += avatars[:50]
    h = [0.2, 1.0]
    got = approach_counts(frame(u, 1, 2), frame(avatars, 1, 2), ["c0"], ["x0", "x1"],
                          {"x0": 0.2, "x1": 1.0})  # fmt: skip
    want = brute_counts(u, avatars, 1, h)
    assert got.tolist() == want
    assert set(want) == {0, 1, 2}


def _brute_window_rate(original: pl.DataFrame, avatars: pl.DataFrame, known: list[str]) -> int:
    """Linked count from scratch: U by counting raw tuples, h from the bins method."""
    bins = kpr.evaluate(original, avatars, known=known)
    cat = [v for v in known if bins.variables[v].kind is kpr.Kind.CATEGORICAL]
    num = [v for v in known if v not in cat]

    def rows(df: pl.DataFrame) -> list[tuple[Value, ...]]:
        out = []
        for r in df.select(cat + num).iter_rows():
            out.append(tuple(None if isinstance(v, float) and math.isnan(v) else v for v in r))
        return out

    o = rows(original)
    counts = Counter(o)
    u = [r for r in o if counts[r] == 1]
    h = [float(bins.variables[v].width or 0.0) for v in num]
    return sum(c == 1 for c in brute_counts(u, rows(avatars), len(cat), h))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["F", "M", None]),
                       st.sampled_from([1.0, 2.5, 3.0, None, INF])), min_size=1, max_size=25),
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["F", "M", None]),
                       st.sampled_from([1.0, 2.5, 3.0, None, -INF])), max_size=25),
    st.sampled_from([0.05, 0.2, 0.5]),
)  # fmt: skip
def test_window_attack_matches_brute_force(
    original_rows: list[tuple], avatar_rows: list[tuple], tolerance: float
) -> None:
    schema = {"age": pl.Int64, "sex": pl.String, "score": pl.Float64}
    original = pl.DataFrame(original_rows, schema=schema, orient="row")
    avatars = pl.DataFrame(avatar_rows, schema=schema, orient="row")
    known = ["age", "sex", "score"]
    got = window_attack(original, avatars, known, tolerance=tolerance)
    bins = kpr.evaluate(original, avatars, known=known, tolerance=tolerance)
    assert got.n == bins.n and got.unique_originals == bins.unique_originals
    widths = {v: bins.variables[v].width for v in ("age", "score")}
    assert got.linked == _brute_window_rate_with(original, avatars, known, tolerance, widths)


def _brute_window_rate_with(
    original: pl.DataFrame,
    avatars: pl.DataFrame,
    known: list[str],
    tolerance: float,
    widths: dict[str, float | None],
) -> int:
    bins = kpr.evaluate(original, avatars, known=known, tolerance=tolerance)
    assert {v: bins.variables[v].width for v in widths} == widths
    o = list(original.select(["sex", "age", "score"]).iter_rows())
    a = list(avatars.select(["sex", "age", "score"]).iter_rows())
    counts = Counter(o)
    u = [r for r in o if counts[r] == 1]
    h = [float(widths["age"] or 0), float(widths["score"] or 0)]
    return sum(c == 1 for c in brute_counts(u, a, 1, h))


def test_window_attack_small_example() -> None:
    # The spec's worked example: h = 0.05 * 51 = 2.55 around each member of U.
    o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    r = window_attack(o, a, ["age", "sex"])
    # 41 M <- 42 M only; 52 F <- 53.5 F and 54 F (two); 60 M <- 61 M and 59 M (two).
    assert (r.unique_originals, r.linked, r.rate, r.method) == (3, 1, 80.0, "window")
    assert _brute_window_rate(o, a, ["age", "sex"]) == 1


def test_window_attack_on_the_demo() -> None:
    original, avatars = demo_paths()
    r = window_attack(original, avatars, DEMO_KNOWN)
    assert r.n == 32561
    assert 90.0 < r.rate < 100.0


def test_window_attack_without_avatars_links_nobody() -> None:
    o = pl.DataFrame({"age": [30, 41]})
    r = window_attack(o, o.clear(), ["age"])
    assert (r.linked, r.rate, r.n_avatars) == (0, 100.0, 0)


def test_window_attack_rejects_an_empty_original() -> None:
    o = pl.DataFrame({"age": [30, 41]})
    with pytest.raises(kpr.InputError, match="no rows"):
        window_attack(o.clear(), o, ["age"])


@pytest.mark.parametrize("seed", range(3))
def test_half_widths_are_the_bins_widths(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 500
    original = pl.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "score": np.round(rng.normal(0.3, 2.0, n), 1),
            "sex": rng.choice(np.array(["F", "M"]), n),
        }
    )
    known = ["age", "score", "sex"]
    bins = kpr.evaluate(original, original, known=known, tolerance=0.07)
    u = window_mod.unique_originals(original, known)
    assert u.height == bins.unique_originals
    got = window_mod.half_widths(u, ["age", "score"], 0.07)
    assert got["age"] == bins.variables["age"].width  # integer data: bit-identical
    assert got["score"] == pytest.approx(bins.variables["score"].width, rel=1e-14)
