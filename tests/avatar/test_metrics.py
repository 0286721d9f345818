"""Pairing metrics against brute force, and the utility metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import kpr
from kpr.avatar import (
    Generation,
    Projection,
    correct_links,
    generate,
    hidden_rate,
    local_cloaking,
    median_local_cloaking,
)
from kpr.errors import InputError
from kpr.results.utility import UtilityResult
from kpr.utility.columns import hellinger

from ._tables import mixed_pandas


def _brute(gen: Generation) -> tuple[float, np.ndarray, np.ndarray]:
    """Hidden rate and local cloaking from the full distance matrix, on the authors'
    definitions: every OTHER avatar at most as far as the own one counts (a tie, up to
    1e-9 relative, counts); hidden = at least one such avatar. Also returns which
    individuals have an exact tie with their own avatar."""
    orig = gen.projection.coordinates
    av = gen.projection.transform(gen.avatars)
    d = np.sqrt(((orig[:, None, :] - av[None, :, :]) ** 2).sum(-1))
    rows = np.arange(len(orig))
    own = d[rows, gen.pairing]
    within = d <= own[:, None] * (1 + 1e-9) + 1e-12
    within[rows, gen.pairing] = False
    cloaking = within.sum(axis=1)
    strictly = (d < own[:, None] * (1 - 1e-9)).sum(axis=1)
    tie = cloaking > strictly
    return 100.0 * float((cloaking > 0).mean()), cloaking, tie


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
    assert hidden_rate(local_cloaking(gen)) == hidden_rate(gen)


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
