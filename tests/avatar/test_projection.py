"""The FAMD space: agreement with saiph (the method's authors' package), projecting
new rows, projecting back."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from kpr.avatar import Projection, column_roles
from kpr.avatar import projection as projection_module

from ._tables import mixed_pandas


def _same_up_to_sign(ours: np.ndarray, theirs: np.ndarray, atol: float = 1e-8) -> None:
    assert ours.shape == theirs.shape
    for j in range(ours.shape[1]):
        sign = np.sign(ours[:, j] @ theirs[:, j]) or 1.0
        np.testing.assert_allclose(ours[:, j], sign * theirs[:, j], atol=atol, rtol=1e-7)


def _saiph_coords(df: pd.DataFrame, ncp: int) -> np.ndarray:
    """saiph's coordinates (the reference by the method's authors); skip if not installed."""
    saiph = pytest.importorskip("saiph")
    # nf=None: saiph's exact (not randomised) SVD; keep the first ncp axes.
    coord, _ = saiph.fit_transform(df, nf=None, seed=0)
    return np.asarray(coord.to_numpy())[:, :ncp]


def _textbook_famd(df: pd.DataFrame, ncp: int) -> np.ndarray:
    """FAMD the slow, obvious way: build the coded table and take its SVD."""
    parts = []
    for name in df.columns:
        col = df[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            x = col.to_numpy(dtype=float)
            parts.append(((x - x.mean()) / x.std())[:, None])
        else:
            dummies = pd.get_dummies(col.astype(str)).to_numpy(dtype=float)
            p = dummies.mean(axis=0)
            parts.append((dummies - p) / np.sqrt(p))
    z = np.hstack(parts)
    u, s, _ = np.linalg.svd(z, full_matrices=False)
    return (u * s)[:, :ncp]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_famd_matches_a_textbook_svd(seed: int) -> None:
    df = mixed_pandas(70, seed=seed)
    proj = Projection.fit(df, ncp=4)
    _same_up_to_sign(proj.coordinates, _textbook_famd(df, 4))
    pca = Projection.fit(df[["height", "weight", "age"]], ncp=3)
    _same_up_to_sign(pca.coordinates, _textbook_famd(df[["height", "weight", "age"]], 3))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ncp", [1, 3, 5])
def test_famd_matches_saiph(seed: int, ncp: int) -> None:
    df = mixed_pandas(60, seed=seed)
    proj = Projection.fit(df, ncp=ncp)
    assert proj.kind == "famd"
    _same_up_to_sign(proj.coordinates, _saiph_coords(df, ncp))


def test_famd_matches_saiph_from_polars() -> None:
    df = mixed_pandas(50, seed=7)
    proj = Projection.fit(pl.from_pandas(df), ncp=4)
    _same_up_to_sign(proj.coordinates, _saiph_coords(df, 4))


def test_pca_matches_saiph() -> None:
    df = mixed_pandas(70, seed=3)[["height", "weight", "age"]]
    proj = Projection.fit(df, ncp=3)
    assert proj.kind == "pca"
    _same_up_to_sign(proj.coordinates, _saiph_coords(df, 3))


def test_mca_matches_saiph_up_to_sqrt_of_columns() -> None:
    rng = np.random.default_rng(4)
    df = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], 90),
            "b": rng.choice(["u", "v"], 90),
            "c": rng.choice(["p", "q", "r", "s"], 90),
        }
    )
    proj = Projection.fit(df, ncp=3)
    assert proj.kind == "mca"
    # Classical MCA coordinates are the FAMD ones divided by sqrt(number of columns).
    _same_up_to_sign(proj.coordinates, np.sqrt(3) * _saiph_coords(df, 3))


def test_iterative_solver_gives_the_same_axes(monkeypatch: pytest.MonkeyPatch) -> None:
    df = mixed_pandas(100, seed=5, missing=True)
    dense = Projection.fit(df, ncp=3)
    monkeypatch.setattr(projection_module, "_DENSE_GRAM_MAX", 0)
    iterative = Projection.fit(df, ncp=3)
    _same_up_to_sign(iterative.coordinates, dense.coordinates, atol=1e-6)
    np.testing.assert_allclose(iterative.eigenvalues, dense.eigenvalues, rtol=1e-8)


def test_transform_of_fitted_table_gives_its_coordinates(mixed_pl: pl.DataFrame) -> None:
    proj = Projection.fit(mixed_pl, ncp=4)
    np.testing.assert_allclose(proj.transform(mixed_pl), proj.coordinates, atol=1e-10)
    # Rows projected alone land where they were (no refitting).
    part = mixed_pl.slice(10, 7)
    np.testing.assert_allclose(proj.transform(part), proj.coordinates[10:17], atol=1e-10)


def test_unseen_category_is_an_all_zero_indicator() -> None:
    df = mixed_pandas(40, seed=6)
    proj = Projection.fit(df, ncp=2)
    new = df.head(3).copy()
    new["city"] = "atlantis"
    coords = proj.transform(new)
    assert np.isfinite(coords).all()
    assert not np.allclose(coords, proj.coordinates[:3])


def test_inverse_with_all_components_restores_the_table() -> None:
    df = mixed_pandas(50, seed=8, missing=True)
    proj = Projection.fit(df, ncp=100)  # capped at the number of coded columns
    assert proj.ncp < 100
    back = proj.inverse_transform(proj.coordinates)
    pd.testing.assert_frame_equal(back, df)


def test_inverse_with_all_components_restores_a_polars_table(mixed_pl: pl.DataFrame) -> None:
    proj = Projection.fit(mixed_pl, ncp=100)
    back = proj.inverse_transform(proj.coordinates)
    assert back.equals(mixed_pl)


def test_eigenvalues_are_sorted_and_axes_orthonormal(mixed_pd: pd.DataFrame) -> None:
    proj = Projection.fit(mixed_pd, ncp=5)
    assert np.all(np.diff(proj.eigenvalues) <= 1e-12)
    np.testing.assert_allclose(proj.components.T @ proj.components, np.eye(5), atol=1e-10)
    # Variance of each coordinate (population) is its eigenvalue.
    np.testing.assert_allclose(proj.coordinates.var(axis=0), proj.eigenvalues, rtol=1e-8)


def test_roles_inference() -> None:
    df = pl.DataFrame(
        {
            "few": [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3],
            "many": list(range(12)),
            "flag": [True, False] * 6,
            "name": ["a", "b", "c"] * 4,
            "none": [None] * 12,
        },
        schema_overrides={"none": pl.Float64},
    )
    roles = column_roles("polars", df)
    assert roles == {
        "few": "categorical",
        "many": "numeric",
        "flag": "categorical",
        "name": "categorical",
        "none": "empty",
    }
    assert column_roles("polars", df, ["many"])["many"] == "categorical"
