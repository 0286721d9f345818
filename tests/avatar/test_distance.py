"""``kpr.avatar.distance_metrics`` against brute force, exact copies on awkward values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from kpr.avatar import Projection, distance_metrics, exact_copies

from ._tables import mixed_pandas


def _brute(original: pl.DataFrame, other: pl.DataFrame, ncp: int) -> tuple[float, float]:
    """Median DCR and NNDR from the full distance matrix in the originals' space."""
    proj = Projection.fit(original, ncp)
    a, b = proj.coordinates, proj.transform(other)
    d = np.sqrt(((b[:, None, :] - a[None, :, :]) ** 2).sum(-1))
    d.sort(axis=1)
    ratio = np.where(d[:, 1] > 0, d[:, 0] / np.where(d[:, 1] > 0, d[:, 1], 1.0), 1.0)
    return float(np.median(d[:, 0])), float(np.median(ratio))


@pytest.mark.parametrize("ncp", [2, 5])
def test_dcr_and_nndr_match_brute_force(ncp: int) -> None:
    table = pl.from_pandas(mixed_pandas(400, seed=1, missing=True))
    original, synthetic, holdout = table[:200], table[200:300], table[300:]
    got = distance_metrics(original, synthetic, holdout, ncp=ncp)
    dcr, nndr = _brute(original, synthetic, ncp)
    assert got.synthetic.median_dcr == pytest.approx(dcr, rel=1e-9)
    assert got.synthetic.median_nndr == pytest.approx(nndr, rel=1e-9)
    assert got.holdout is not None
    dcr, nndr = _brute(original, holdout, ncp)
    assert got.holdout.median_dcr == pytest.approx(dcr, rel=1e-9)
    assert got.holdout.median_nndr == pytest.approx(nndr, rel=1e-9)
    assert got.synthetic.rows == 100 and got.holdout.rows == 100 and got.n_original == 200


def test_copies_have_zero_dcr_and_count_exactly() -> None:
    table = pl.from_pandas(mixed_pandas(300, seed=2, missing=True))
    original = table[:200]
    synthetic = pl.concat([original[:30], table[200:270]])  # 30 copies, 70 newcomers
    got = distance_metrics(original, synthetic)
    assert got.synthetic.exact_copies == 30
    assert got.synthetic.exact_copy_percent == pytest.approx(30.0)
    # A copy of a row that is itself duplicated: DCR 0, NNDR 1 (points at no one).
    doubled = pl.concat([original, original[:1]])
    one = distance_metrics(doubled, original[:1])
    assert one.synthetic.median_dcr == pytest.approx(0.0, abs=1e-12)
    assert one.synthetic.median_nndr == pytest.approx(1.0)


def test_exact_copies_missing_equals_missing_and_pandas() -> None:
    original = pl.DataFrame({"x": [1.0, None, float("nan"), 4.0], "c": ["a", None, "b", "d"]})
    other = pl.DataFrame({"x": [None, float("nan"), 4.0, 4.0], "c": [None, "b", "d", "e"]})
    assert exact_copies(original, other) == 3
    assert exact_copies(original.to_pandas(), other.to_pandas()) == 3
    # Same values in another dtype (integers read as floats) still count.
    ints = pl.DataFrame({"n": [1, 2, 3]})
    assert exact_copies(ints, pl.DataFrame({"n": [1.0, 2.5, 3.0]})) == 2


def test_pandas_inputs_give_the_polars_figures() -> None:
    table = mixed_pandas(300, seed=3, missing=True)
    a = distance_metrics(table[:200], table[200:])
    b = distance_metrics(pl.from_pandas(table[:200]), pl.from_pandas(table[200:]))
    assert a.to_dict() == b.to_dict()
    assert isinstance(table, pd.DataFrame)


def test_the_reading_compares_with_the_holdout() -> None:
    """The text says how the synthetic rows' closeness compares with unseen real rows'."""
    table = pl.from_pandas(mixed_pandas(400, seed=3, missing=False))
    original, holdout = table[:200], table[200:300]
    copies = distance_metrics(original, pl.concat([original[:60], table[300:340]]), holdout)
    assert copies.dcr_ratio is not None and copies.dcr_ratio < 1
    assert copies.reading.startswith("The synthetic rows sit closer to the originals")
    assert "more than chance duplicates explain" in copies.reading
    assert copies.reading in copies.text()
    unseen = distance_metrics(original, table[300:400], holdout)
    assert unseen.dcr_ratio is not None and unseen.dcr_ratio > 0
    no_sign = "no sign that the generator copies" in unseen.reading
    assert no_sign == (unseen.dcr_ratio >= 1)
    alone = distance_metrics(original, table[300:400])
    assert alone.dcr_ratio is None and "--holdout" in alone.reading
    d = copies.to_dict()
    assert d["synthetic"]["exact_copy_percent"] == pytest.approx(60.0)
    assert d["dcr_ratio"] == pytest.approx(copies.dcr_ratio) and d["reading"] == copies.reading


def test_one_exact_copy_never_reads_zero_percent() -> None:
    from kpr.results.distance import Closeness

    one = Closeness(rows=100_000, exact_copies=1, median_dcr=0.1, median_nndr=0.5)
    none = Closeness(rows=100_000, exact_copies=0, median_dcr=0.1, median_nndr=0.5)
    assert one.copies_text == "1 (<0.01 %)"
    assert none.copies_text == "0 (0.00 %)"
    assert Closeness(rows=4, exact_copies=1, median_dcr=0, median_nndr=0).copies_text == (
        "1 (25.00 %)"
    )
