"""The avatar generator: neighbours, weights, reproducibility, what the output keeps."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpr.avatar import avatarize, generate, neighbours, weights
from kpr.avatar import generator as generator_module
from kpr.avatar.generator import Synthesis
from kpr.errors import InputError

from ._tables import mixed_pandas

# --- neighbours ------------------------------------------------------------------------


def test_neighbours_match_brute_force() -> None:
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(200, 3))
    dist, idx = neighbours(pts, 7)
    full = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(full, np.inf)
    expected = np.argsort(full, axis=1)[:, :7]
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_allclose(dist, np.take_along_axis(full, expected, axis=1))


def test_neighbours_exclude_self_but_keep_exact_duplicates() -> None:
    rng = np.random.default_rng(1)
    base = rng.normal(size=(30, 2))
    # Rows 0..5 are the same point: each must see the 5 others (at distance 0), not itself.
    pts = np.vstack([np.repeat(base[:1], 6, axis=0), base[1:]])
    dist, idx = neighbours(pts, 5)
    for i in range(6):
        assert i not in idx[i]
        assert sorted(idx[i]) == sorted(set(range(6)) - {i})
        np.testing.assert_array_equal(dist[i], 0.0)
    assert not (idx == np.arange(len(pts))[:, None]).any()


def test_neighbours_exclude_self_when_duplicates_outnumber_k() -> None:
    pts = np.zeros((12, 2))  # all identical: the tree may not return the row itself
    _, idx = neighbours(pts, 3)
    assert idx.shape == (12, 3)
    assert not (idx == np.arange(12)[:, None]).any()
    assert all(len(set(row)) == 3 for row in idx)


# --- weights ---------------------------------------------------------------------------


def test_weights_positive_and_sum_to_one() -> None:
    rng = np.random.default_rng(2)
    dist = np.sort(rng.random((500, 10)), axis=1)
    dist[:5, 0] = 0.0  # exact duplicates
    w = weights(dist, np.random.default_rng(3))
    assert w.shape == dist.shape
    assert np.isfinite(w).all()
    assert (w > 0).all()
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    # A duplicate at distance 0 gets a large share of the weight.
    assert np.median(w[:5, 0]) > 0.5


def test_weights_all_zero_distances() -> None:
    w = weights(np.zeros((4, 3)), np.random.default_rng(0))
    assert (w > 0).all()
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


def test_weights_use_a_random_rank_not_the_distance_rank() -> None:
    # Equal distances: weights are Exp(1) * 2^-R with R a per-row permutation of 1..k, so
    # every position is the heaviest in some rows.
    w = weights(np.ones((2000, 4)), np.random.default_rng(5))
    heaviest = np.bincount(w.argmax(axis=1), minlength=4)
    assert (heaviest > 300).all()


def test_pairing_points_to_the_mix_of_the_neighbours() -> None:
    # All-numeric continuous data, every component kept: projecting back is exact, so the
    # re-projected avatar of i must be the weighted mix of i's neighbours.
    rng = np.random.default_rng(6)
    df = pl.DataFrame({f"x{j}": rng.normal(size=150) for j in range(4)})
    gen = generate(df, k=6, ncp=4, seed=11)
    coords = gen.projection.coordinates
    dist, idx = neighbours(coords, 6)
    w = weights(dist, np.random.default_rng(11))
    mix = (w[:, :, None] * coords[idx]).sum(axis=1)
    np.testing.assert_allclose(gen.avatar_coordinates[gen.pairing], mix, atol=1e-9)
    assert sorted(gen.pairing) == list(range(150))


def _reference_case(decoding: str) -> tuple[pl.DataFrame, Any, np.ndarray, np.ndarray, Any]:
    """A small mixed table, its avatars and the neighbours and weights rebuilt by hand."""
    rng = np.random.default_rng(7)
    n, k, seed = 120, 5, 3
    df = pl.DataFrame(
        {
            "x": rng.normal(size=n),  # many decimals: not rounded
            "y": rng.normal(size=n) * 10,
            "c": rng.choice(["a", "b", "c"], n),
        }
    )
    gen = generate(df, k=k, ncp=2, seed=seed, categorical_decoding=decoding)  # type: ignore[arg-type]
    gen_rng = np.random.default_rng(seed)
    dist, idx = neighbours(gen.projection.coordinates, k)
    w = weights(dist, gen_rng)
    return df, gen, idx, w, gen_rng


def test_full_synthesis_is_the_weighted_mean_and_mode_of_the_neighbours() -> None:
    df, gen, idx, w, _ = _reference_case("mode")
    x, y, c = df["x"].to_numpy(), df["y"].to_numpy(), df["c"].to_numpy()
    out = gen.avatars
    for i in range(df.height):
        row = out.row(int(gen.pairing[i]), named=True)
        assert row["x"] == pytest.approx(w[i] @ x[idx[i]], rel=1e-12)
        assert row["y"] == pytest.approx(w[i] @ y[idx[i]], rel=1e-12)
        votes = {cat: w[i][c[idx[i]] == cat].sum() for cat in ("a", "b", "c")}
        assert row["c"] == max(votes, key=votes.__getitem__)


def test_draw_takes_the_neighbour_whose_cumulative_weight_covers_a_uniform_draw() -> None:
    df, gen, idx, w, gen_rng = _reference_case("draw")
    n = df.height
    order = gen_rng.permutation(n)  # the generator's next draw: the output order
    u = gen_rng.random(n)  # then one uniform per avatar row for the one categorical
    c = df["c"].to_numpy()
    out = gen.avatars
    for r in range(n):
        i = order[r]
        pick = int(np.searchsorted(np.cumsum(w[i]), u[r], side="right"))
        row = out.row(r, named=True)
        assert row["c"] == c[idx[i][min(pick, w.shape[1] - 1)]]
        assert row["x"] == pytest.approx(w[i] @ df["x"].to_numpy()[idx[i]], rel=1e-12)


def test_draw_follows_the_weights_in_distribution() -> None:
    """Over many rows, the share drawn from each neighbour rank is its mean weight."""
    rng = np.random.default_rng(0)
    n, k = 200_000, 4
    w = np.tile(np.array([0.6, 0.25, 0.1, 0.05]), (n, 1))
    idx = np.tile(np.arange(k), (n, 1))
    codes = np.arange(k, dtype=np.int64)
    from kpr.avatar.generator import _weighted_draw

    drawn = _weighted_draw(codes, idx, np.cumsum(w, axis=1), rng)
    share = np.bincount(drawn, minlength=k) / n
    np.testing.assert_allclose(share, w[0], atol=0.005)


def test_weighted_mode_same_by_vote_table_and_by_sorting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(8)
    n, k, size = 3000, 9, 7
    codes = rng.integers(0, size, n)
    idx = rng.integers(0, n, (n, k))
    w = rng.random((n, k))
    w /= w.sum(axis=1, keepdims=True)
    by_table = generator_module._weighted_mode(codes, size, idx, w)
    monkeypatch.setattr(generator_module, "_VOTE_TABLE_MAX", 0)
    by_sorting = generator_module._weighted_mode(codes, size, idx, w)
    np.testing.assert_array_equal(by_table, by_sorting)
    # Brute force on a few rows.
    for i in range(50):
        votes = np.bincount(codes[idx[i]], weights=w[i], minlength=size)
        assert by_table[i] == votes.argmax()


def test_full_and_reduced_agree_when_every_axis_is_kept(mixed_pl: pl.DataFrame) -> None:
    full = avatarize(mixed_pl, k=6, ncp=1000, seed=5)
    reduced = avatarize(mixed_pl, k=6, ncp=1000, seed=5, synthesis="reduced")
    assert full.equals(reduced)
    # With fewer axes, the reduced mix loses what the other axes carried.
    few = avatarize(mixed_pl, k=6, ncp=2, seed=5, synthesis="reduced")
    assert not few.equals(avatarize(mixed_pl, k=6, ncp=2, seed=5))
    assert few.schema == mixed_pl.schema


# --- output table ----------------------------------------------------------------------


def test_same_seed_same_output_other_seed_differs(mixed_pl: pl.DataFrame) -> None:
    a = avatarize(mixed_pl, k=5, seed=42)
    b = avatarize(mixed_pl, k=5, seed=42)
    c = avatarize(mixed_pl, k=5, seed=43)
    assert a.equals(b)
    assert not a.equals(c)
    ga = generate(mixed_pl, k=5, seed=42)
    gb = generate(mixed_pl, k=5, seed=np.random.default_rng(42))
    np.testing.assert_array_equal(ga.pairing, gb.pairing)


def test_polars_output_keeps_schema_rows_and_values(mixed_pl: pl.DataFrame) -> None:
    out = avatarize(mixed_pl, k=8, seed=0)
    assert isinstance(out, pl.DataFrame)
    assert out.schema == mixed_pl.schema
    assert out.height == mixed_pl.height
    for col in ("city", "smoker", "insured"):
        assert set(out[col].to_list()) <= set(mixed_pl[col].to_list())
    assert out["age"].dtype == pl.Int64
    # Rounded to the original precision.
    np.testing.assert_array_equal(out["weight"].round(2).to_numpy(), out["weight"].to_numpy())
    h = out["height"].drop_nulls().to_numpy()
    np.testing.assert_allclose(h, np.round(h, 1))
    # Clipped to the observed range.
    ages, original_ages = out["age"].to_numpy(), mixed_pl["age"].to_numpy()
    assert original_ages.min() <= ages.min() <= ages.max() <= original_ages.max()


def test_pandas_in_pandas_out_with_dtypes() -> None:
    rng = np.random.default_rng(3)
    n = 90
    df = mixed_pandas(n, seed=3, missing=True)
    df["count"] = pd.array(rng.integers(0, 50, n), dtype="Int64")
    df["small"] = rng.integers(0, 3, n).astype("int16")  # <= 10 values: categorical
    df["kind"] = pd.Categorical(rng.choice(["a", "b", "c"], n))
    df.index = rng.permutation(n) + 1000  # a non-default index must not leak
    out = avatarize(df, k=5, seed=1)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(df.columns)
    pd.testing.assert_series_equal(out.dtypes, df.dtypes)
    assert len(out) == n
    assert list(out.index) == list(range(n))
    assert set(out["small"]) <= set(df["small"])
    assert set(out["kind"].dropna()) <= set(df["kind"].dropna())


def test_missingness_is_synthesised_and_absent_when_none() -> None:
    rng = np.random.default_rng(4)
    n = 400
    # Missing height in a well-separated group: its avatars' neighbours are all missing too.
    group = np.repeat([0, 1], n // 2)
    values = rng.normal(170, 5, n).round(1)
    height = [None if g else float(v) for g, v in zip(group, values, strict=True)]
    df = pl.DataFrame(
        {
            "group": np.where(group == 1, "b", "a"),
            "height": pl.Series(height, dtype=pl.Float64),
            "score": rng.normal(group * 10, 1, n).round(3),
        }
    )
    gen = generate(df, k=5, seed=0)
    out = gen.avatars
    own_group = df["group"].to_numpy()[np.argsort(gen.pairing)]
    assert out["height"].is_null().to_numpy().tolist() == (own_group == "b").tolist()

    full = df.with_columns(pl.col("height").fill_null(160.0))
    assert avatarize(full, k=5, seed=0).null_count().sum_horizontal().item() == 0

    # NaN-marked gaps (polars floats) stay NaN rather than becoming null.
    nan_style = df.with_columns(pl.col("height").fill_null(float("nan")))
    nan_out = avatarize(nan_style, k=5, seed=0)
    assert nan_out["height"].null_count() == 0
    assert nan_out["height"].is_nan().sum() == out["height"].null_count()


def test_categorical_missing_follows_the_indicator() -> None:
    n = 200
    rng = np.random.default_rng(8)
    group = np.repeat([0, 1], n // 2)
    df = pd.DataFrame(
        {
            "city": [
                None if g else c for g, c in zip(group, rng.choice(["x", "y"], n), strict=True)
            ],
            "score": rng.normal(group * 10, 1, n),
        }
    )
    gen = generate(df, k=4, seed=0)
    out = gen.avatars
    expected_missing = group[np.argsort(gen.pairing)] == 1
    assert out["city"].isna().to_numpy().tolist() == expected_missing.tolist()


def test_entirely_missing_column_comes_back_missing() -> None:
    df = mixed_pandas(50, seed=9)
    df["nothing"] = np.nan
    out = avatarize(df, k=3, seed=0)
    assert out["nothing"].isna().all()
    assert out["nothing"].dtype == df["nothing"].dtype
    pl_df = pl.from_pandas(mixed_pandas(50, seed=9)).with_columns(
        pl.lit(None, dtype=pl.String).alias("nothing")
    )
    pl_out = avatarize(pl_df, k=3, seed=0)
    assert pl_out.schema == pl_df.schema
    assert pl_out["nothing"].null_count() == 50


def test_exact_duplicate_rows_are_handled() -> None:
    df = pl.concat([pl.from_pandas(mixed_pandas(30, seed=10))] * 3)
    gen = generate(df, k=5, seed=0)
    assert gen.avatars.height == 90
    assert gen.avatars.schema == df.schema


def test_temporal_columns_round_trip_their_dtype() -> None:
    rng = np.random.default_rng(12)
    n = 60
    start = np.datetime64("2020-01-01T00:00:00", "us")
    df = pl.DataFrame(
        {
            "when": start + rng.integers(0, 10**6, n).astype("timedelta64[s]"),
            "day": (start + rng.integers(0, 500, n).astype("timedelta64[D]")).astype(
                "datetime64[D]"
            ),
            "x": rng.normal(size=n),
        }
    ).with_columns(pl.col("day").cast(pl.Date))
    out = avatarize(df, k=4, seed=0)
    assert out.schema == df.schema
    # Whole seconds in, whole seconds out.
    assert (out["when"].dt.microsecond() == 0).all()


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, "k must be an integer >= 1"),
        ({"k": True}, "k must be an integer >= 1"),
        ({"k": 2.5}, "k must be an integer >= 1"),
        ({"k": 20}, "smaller than the number of rows"),
        ({"k": 3, "ncp": 0}, "ncp must be an integer >= 1"),
        ({"k": 3, "categorical": ["nope"]}, "unknown column"),
        ({"k": 3, "synthesis": "partial"}, "synthesis must be"),
    ],
)
def test_parameter_errors(kwargs: dict[str, object], message: str) -> None:
    df = pl.from_pandas(mixed_pandas(20, seed=0))
    with pytest.raises(InputError, match=message) as info:
        avatarize(df, **kwargs)
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_unsupported_column_types() -> None:
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0], "l": [[1], [2], [3]]})
    with pytest.raises(InputError, match="cannot be avatarised"):
        avatarize(df, k=1)
    pdf = pd.DataFrame({"x": [1.0, 2.0, 3.0], "l": [[1], [2], [3]]})
    with pytest.raises(InputError, match="cannot be compared"):
        avatarize(pdf, k=1)


def test_table_errors() -> None:
    with pytest.raises(InputError, match="empty"):
        avatarize(pl.DataFrame({"a": []}, schema={"a": pl.Float64}), k=1)
    with pytest.raises(InputError, match="empty"):
        avatarize(pl.DataFrame(), k=1)
    with pytest.raises(InputError, match="entirely missing"):
        avatarize(pl.DataFrame({"a": [None, None, None]}, schema={"a": pl.Int64}), k=1)
    with pytest.raises(InputError, match="polars or pandas"):
        avatarize({"a": [1, 2, 3]}, k=1)


# --- properties ------------------------------------------------------------------------

_cats = st.sampled_from(["a", "b", "c", "d"])


@st.composite
def _tables(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(min_value=4, max_value=40))
    ints = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n))
    floats = draw(
        st.lists(
            st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3))),
            min_size=n,
            max_size=n,
        )
    )
    cats = draw(st.lists(st.one_of(st.none(), _cats), min_size=n, max_size=n))
    return pl.DataFrame(
        {"i": ints, "f": floats, "c": cats},
        schema={"i": pl.Int64, "f": pl.Float64, "c": pl.String},
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=_tables(),
    k=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    synthesis=st.sampled_from(["full", "reduced"]),
)
def test_output_is_a_valid_table_of_the_same_shape(
    df: pl.DataFrame, k: int, seed: int, synthesis: Synthesis
) -> None:
    k = min(k, df.height - 1)
    gen = generate(df, k=k, ncp=3, seed=seed, synthesis=synthesis)
    out = gen.avatars
    assert out.schema == df.schema
    assert out.height == df.height
    assert sorted(gen.pairing.tolist()) == list(range(df.height))
    assert set(out["c"].to_list()) <= set(df["c"].to_list())
    for col in ("i", "f"):
        present = df[col].drop_nulls().to_numpy()
        got = out[col].drop_nulls().to_numpy()
        if present.size and got.size:
            assert present.min() <= got.min() <= got.max() <= present.max()
        if df[col].null_count() == 0:
            assert out[col].null_count() == 0


def test_many_categories_take_the_scalable_paths(
    mixed_pl: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kpr.avatar import projection as projection_module

    expected = avatarize(mixed_pl, k=5, seed=2)
    monkeypatch.setattr(projection_module, "_DENSE_GRAM_MAX", 3)  # Lanczos, no Gram matrix
    monkeypatch.setattr(generator_module, "_VOTE_TABLE_MAX", 1)  # votes by sorting
    assert avatarize(mixed_pl, k=5, seed=2).equals(expected)


def test_polars_categorical_and_enum_columns() -> None:
    rng = np.random.default_rng(13)
    n = 80
    df = pl.DataFrame(
        {
            "cat": pl.Series(rng.choice(["a", "b", "c"], n), dtype=pl.Categorical),
            "enum": pl.Series(rng.choice(["lo", "hi"], n), dtype=pl.Enum(["lo", "mid", "hi"])),
            "x": rng.normal(size=n),
        }
    )
    gen = generate(df, k=4, seed=0)
    assert gen.avatars.schema == df.schema
    assert set(gen.avatars["enum"].to_list()) <= {"lo", "hi"}
    np.testing.assert_allclose(gen.projection.transform(df), gen.projection.coordinates)
