"""Pairing metrics against brute force, and the utility metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kpr
from kpr.avatar import (
    Generation,
    Projection,
    cloaking,
    cloaking_of,
    correct_links,
    distance_metrics,
    generate,
    hidden_rate,
    local_cloaking,
    median_local_cloaking,
)
from kpr.errors import InputError
from kpr.fidelity.columns import hellinger
from kpr.results.utility import UtilityResult

from ._tables import mixed_pandas


def brute_force(
    orig: np.ndarray, av: np.ndarray, pairing: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Hidden rate and local cloaking from the full distance matrix, on the stated rules:
    local cloaking = OTHER avatars at most as far as the own one (a tie, up to 1e-9
    relative, counts); hidden = 1 when c > 0 avatars are strictly closer, else t / (t + 1)
    with t tied avatars. Also returns which individuals have a tie with their own avatar."""
    d = np.sqrt(((orig[:, None, :] - av[None, :, :]) ** 2).sum(-1))
    rows = np.arange(len(orig))
    own = d[rows, pairing]
    within = d <= own[:, None] * (1 + 1e-9) + 1e-12
    within[rows, pairing] = False
    cloaking = within.sum(axis=1)
    strictly = (d < own[:, None] * (1 - 1e-9) - 1e-12).sum(axis=1)
    ties = cloaking - strictly
    hidden = [1.0 if c > 0 else t / (t + 1) for c, t in zip(strictly, ties, strict=True)]
    return 100.0 * float(np.mean(hidden)), cloaking, ties > 0


def _brute(gen: Generation) -> tuple[float, np.ndarray, np.ndarray]:
    orig = gen.projection.coordinates
    return brute_force(orig, gen.projection.transform(gen.avatars), gen.pairing)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 4, 15])
def test_pairing_metrics_match_brute_force(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    df = pl.DataFrame({f"x{j}": rng.normal(size=250) for j in range(5)})
    gen = generate(df, k=k, ncp=3, seed=seed)
    hidden, cloaking, _ = _brute(gen)
    assert hidden_rate(gen) == pytest.approx(hidden)
    np.testing.assert_array_equal(local_cloaking(gen), cloaking)
    assert median_local_cloaking(gen) == float(np.median(cloaking))


def test_pairing_metrics_on_mixed_data_match_brute_force() -> None:
    df = pl.from_pandas(mixed_pandas(300, seed=4, missing=True))
    gen = generate(df, k=10, seed=0)
    hidden, cloaking, _ = _brute(gen)
    np.testing.assert_array_equal(local_cloaking(gen), cloaking)
    assert hidden_rate(gen) == pytest.approx(hidden)
    assert hidden_rate(cloaking_of(gen)) == hidden_rate(gen)


def test_k1_avatars_tie_and_ties_count_as_closer() -> None:
    # k=1: an avatar is a copy of one neighbour, so individuals sharing a nearest neighbour
    # get avatars at the same place: ties, which count (the own avatar is not singled out).
    rng = np.random.default_rng(9)
    df = pl.DataFrame({f"x{j}": rng.normal(size=200) for j in range(3)})
    gen = generate(df, k=1, ncp=3, seed=0)
    hidden, cloaking, tie = _brute(gen)
    assert tie.any()
    got = local_cloaking(gen)
    np.testing.assert_array_equal(got, cloaking)
    assert (got[tie] >= 1).all()
    assert hidden_rate(gen) == pytest.approx(hidden)


def test_correct_links_count_pairs_matching_the_pairing() -> None:
    pairing = np.array([2, 0, 1, 3])
    linked = pl.DataFrame({"original_row": [0, 1, 3], "avatar_row": [2, 1, 3]})
    assert correct_links(linked, pairing) == 2
    assert correct_links(linked.head(0), pairing) == 0


def test_avatars_equal_to_originals_are_never_hidden() -> None:
    rng = np.random.default_rng(5)
    df = pl.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    proj = Projection.fit(df, ncp=2)
    order = rng.permutation(40)
    pairing = np.empty(40, dtype=np.int64)
    pairing[order] = np.arange(40)
    gen = Generation(avatars=df[order], pairing=pairing, projection=proj, k=1)
    assert hidden_rate(gen) == 0.0
    np.testing.assert_array_equal(local_cloaking(gen), 0)


def test_hellinger_basic_values() -> None:
    assert hellinger(np.array([1, 2, 3]), np.array([2, 4, 6])) == 0.0
    assert hellinger(np.array([1, 0]), np.array([0, 5])) == pytest.approx(1.0)
    h = hellinger(np.array([1, 1]), np.array([1, 3]))
    assert 0 < h < 1


def _hellinger(u: UtilityResult) -> dict[str, float]:
    return dict(u.columns.select("column", "hellinger").iter_rows())


def test_utility_of_identical_tables_is_perfect(mixed_pd: pd.DataFrame) -> None:
    u = kpr.utility(mixed_pd, mixed_pd.sample(frac=1.0, random_state=0))
    assert all(v == 0.0 for v in _hellinger(u).values())
    assert u.mean_hellinger == 0.0
    assert u.correlation_difference == pytest.approx(0.0, abs=1e-9)


def test_utility_disjoint_categories_give_one() -> None:
    a = pl.DataFrame({"c": ["x", "y", "x", None], "n": [1.0, 2.0, 3.0, 4.0]})
    b = pl.DataFrame({"c": ["p", "q", "p", "r"], "n": [1.0, 2.0, 3.0, 4.0]})
    u = kpr.utility(a, b, kinds={"c": "categorical"})
    assert _hellinger(u)["c"] == pytest.approx(1.0)
    assert _hellinger(u)["n"] == 0.0


def test_utility_numeric_bins_and_missing() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=1000)
    orig = pl.DataFrame({"x": x, "y": x + rng.normal(size=1000) * 0.1})
    # Outside the original range: a bin of its own, disjoint from the original's bins.
    shifted = orig.with_columns(pl.col("x") + 100.0)
    assert _hellinger(kpr.utility(orig, shifted))["x"] == pytest.approx(1.0)
    # Half of the original's bins emptied, the mass moved to the other half.
    upper = orig.with_columns(pl.col("x").abs())
    assert 0.3 < _hellinger(kpr.utility(orig, upper))["x"] < 0.9
    # Missing is a bin of its own.
    gaps = orig.with_columns(pl.when(pl.col("x") > 0).then(None).otherwise(pl.col("x")).alias("x"))
    assert _hellinger(kpr.utility(orig, gaps))["x"] > 0.3
    # Association: x and y are strongly correlated in orig, not after shuffling y.
    shuffled = orig.with_columns(pl.col("y").shuffle(seed=1))
    assert kpr.utility(orig, shuffled).mean_abs_association_change > 0.9


def test_utility_of_avatars_is_between_zero_and_one() -> None:
    df = pl.from_pandas(mixed_pandas(200, seed=7, missing=True))
    gen = generate(df, k=5, seed=0)
    u = kpr.utility(df, gen.avatars)
    assert set(_hellinger(u)) == set(df.columns)
    assert all(0.0 <= v <= 1.0 for v in _hellinger(u).values())
    assert 0.0 <= u.correlation_difference <= 100.0


def test_utility_errors() -> None:
    a = pl.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(InputError, match="lacks column"):
        kpr.utility(a, pl.DataFrame({"y": [1.0]}))


def test_hidden_rate_breaks_ties_at_random_on_known_ties() -> None:
    """Every record appears twice and each avatar copies its own individual: each
    individual's own avatar ties with exactly one other (t = 1, c = 0), so each counts
    1/2 and the hidden rate is 50 %, whatever the row order; local cloaking is 1."""
    base = pl.DataFrame({"a": [1.0, 2.0, 4.0, 7.0, 11.0], "b": [3.0, 1.0, 4.0, 1.0, 5.0]})
    df = pl.concat([base, base])
    proj = Projection.fit(df, ncp=2, numeric=["a", "b"])  # the whole plane: no other ties
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(df.height)
        pairing = np.empty(df.height, dtype=np.int64)
        pairing[order] = np.arange(df.height)
        gen = Generation(avatars=df[order], pairing=pairing, projection=proj, k=1)
        assert hidden_rate(gen) == 50.0
        np.testing.assert_array_equal(local_cloaking(gen), 1)
        counts = cloaking_of(gen)
        np.testing.assert_array_equal(counts.closer, 0)
        np.testing.assert_array_equal(counts.hidden, 0.5)


def test_distance_pairing_metrics_equal_brute_force_for_avatars_made_elsewhere() -> None:
    """Avatars built by hand with a known pairing and known ties: copies (own distance 0,
    tied with the copies of duplicated records), avatars shifted (others strictly
    closer) and avatars no one owns. kpr distance's figures equal
    the brute-force count in the same space, and do not depend on the row order."""
    rng = np.random.default_rng(3)
    base = pl.DataFrame(
        {"score": rng.integers(1, 11, 60).astype(np.int64), "x": rng.normal(size=60)}
    )
    original = pl.concat([base, base[:20]])  # 20 records appear twice: ties at distance 0
    n = original.height
    avatars = original.with_columns(
        pl.when(pl.int_range(n) % 3 == 0).then(pl.col("x") + 0.7).otherwise(pl.col("x"))
    )
    avatars = pl.concat([avatars, avatars[5:10]])  # extra rows no one owns, tying others
    pairing = np.arange(n)  # one avatar each (a pairing is one-to-one: kpr.pairing)
    result = distance_metrics(original, avatars, numeric=["score"], pairing=pairing)
    proj = Projection.fit(original, 5, numeric=["score"])
    assert proj.roles["score"] == "numeric"  # 10 distinct values, kept a number as declared
    expected, cloaks, tied = brute_force(proj.coordinates, proj.transform(avatars), pairing)
    assert tied.sum() >= 20  # the known ties are there
    p = result.pairing
    assert p is not None and p.individuals == n
    assert p.hidden_rate == pytest.approx(expected, rel=1e-12)
    assert p.median_local_cloaking == float(np.median(cloaks))
    # the same avatars in another order, the pairing following them: the same figures
    order = np.random.default_rng(0).permutation(avatars.height)
    where = np.empty_like(order)
    where[order] = np.arange(order.size)
    again = distance_metrics(original, avatars[order], numeric=["score"], pairing=where[pairing])
    assert again.pairing == p
    out = result.to_dict()["pairing"]
    assert out["hidden_rate"] == p.hidden_rate and "t / (t + 1)" in out["tie_rule"]


@given(
    st.integers(1, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=n, max_size=n),
            st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
            st.lists(st.integers(-1, 39), min_size=n, max_size=n),
        )
    )
)
def test_cloaking_counts_equal_brute_force_on_grids_full_of_ties(
    drawn: tuple[list[tuple[int, int]], list[tuple[int, int]], list[int]],
) -> None:
    """Points on a small integer grid: equal distances (ties) everywhere, individuals
    without an avatar (-1), avatars shared or owned by no one."""
    orig_points, avatar_points, own = drawn
    orig = np.array(orig_points, dtype=np.float64)
    av = np.array(avatar_points, dtype=np.float64)
    pairing = np.array([p if p < len(av) else p % len(av) for p in own], dtype=np.int64)
    got = cloaking(orig, av, pairing)
    kept = pairing >= 0
    if not kept.any():
        assert got.at_most.size == 0
        return
    hidden, cloaks, _ = brute_force(orig[kept], av, pairing[kept])
    np.testing.assert_array_equal(got.at_most, cloaks)
    assert got.hidden_rate == pytest.approx(hidden, rel=1e-12)
