"""The pack's figures do not depend on the order of the rows of its inputs: the
original, synthetic and holdout tables shuffled (the pairing and the change log
renumbered to follow their rows) give the same figures, hot spots and subsets.

Counts and rates are equal bit for bit; the floats of the FAMD distances and the
correlations, summed in another order, agree to ``kpr verify``'s 1e-12 relative.
The holdout has the original's size here (whole tables compared); the test below
takes a smaller one, whose seeded subsets of the original are drawn in value order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.assessment.verify import same
from tests.assess.conftest import CANDIDATES, SECRET, _table

N = 240


def _write(root: Path, o: pl.DataFrame, a: pl.DataFrame, h: pl.DataFrame,
           pairing: pl.DataFrame, log: pl.DataFrame) -> dict[str, Path]:  # fmt: skip
    paths = {r: root / f"{r}.csv" for r in ("original", "synthetic", "holdout", "pairing",
                                            "protect_log")}  # fmt: skip
    for frame, role in ((o, "original"), (a, "synthetic"), (h, "holdout"), (pairing, "pairing"),
                        (log, "protect_log")):  # fmt: skip
        frame.write_csv(paths[role])
    return paths


def _assess(paths: dict[str, Path]) -> kpr.AssessResult:
    return kpr.assess(
        paths["original"], paths["synthetic"], candidates=CANDIDATES, max_known=2,
        secret=SECRET, holdout=paths["holdout"], pairing=paths["pairing"],
        protect_log=paths["protect_log"],
    )  # fmt: skip


@pytest.fixture(scope="module")
def tables() -> tuple[pl.DataFrame, ...]:
    rng = np.random.default_rng(3)
    o, a, h = _table(rng, N, rare=3), _table(rng, N, rare=0), _table(rng, N, rare=0)
    pairing = pl.DataFrame({"original_row": np.arange(N), "avatar_row": rng.permutation(N)})
    log = pl.DataFrame({"avatar_row": [5, 5, 17], "column": ["âge", "sexe", "âge"],
                        "move": ["shift", "swap", "shift"]})  # fmt: skip
    return o, a, h, pairing, log


@pytest.fixture(scope="module")
def baseline(
    tables: tuple[pl.DataFrame, ...], tmp_path_factory: pytest.TempPathFactory
) -> kpr.AssessResult:
    return _assess(_write(tmp_path_factory.mktemp("perm"), *tables))


def _shuffled(tables: tuple[pl.DataFrame, ...], seed: int) -> tuple[pl.DataFrame, ...]:
    """Every table's rows shuffled; the pairing and the log follow the rows they name."""
    o, a, h, pairing, log = tables
    rng = np.random.default_rng(seed)
    po, pa, ph = rng.permutation(N), rng.permutation(N), rng.permutation(N)
    new_o, new_a = np.argsort(po), np.argsort(pa)  # old position -> new position
    pairing = pl.DataFrame({
        "original_row": new_o[pairing["original_row"].to_numpy()],
        "avatar_row": new_a[pairing["avatar_row"].to_numpy()],
    })[rng.permutation(N)]  # fmt: skip
    log = log.with_columns(pl.Series("avatar_row", new_a[log["avatar_row"].to_numpy()]))
    return o[po], a[pa], h[ph], pairing, log


@settings(max_examples=4)
@given(seed=st.integers(0, 2**32 - 1))
def test_figures_do_not_depend_on_row_order(
    seed: int, tables: tuple[pl.DataFrame, ...], baseline: kpr.AssessResult,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    again = _assess(_write(tmp_path_factory.mktemp("perm"), *_shuffled(tables, seed)))
    assert again.figures.keys() == baseline.figures.keys()
    for name, value in baseline.figures.items():
        if isinstance(value, int) or not name.startswith(("distance.", "utility.")):
            assert again.figures[name] == value, name  # counts and rates: bit for bit
        else:
            assert same(again.figures[name], value), name
    assert again.hot_spots == baseline.hot_spots
    assert again.worst_subsets == baseline.worst_subsets
    assert again.not_assessed == baseline.not_assessed == {}


def test_a_smaller_holdout_s_subsets_do_not_depend_on_row_order(
    tables: tuple[pl.DataFrame, ...], tmp_path: Path
) -> None:
    """With a holdout smaller than the original, the control comparison averages
    seeded subsets of the original, drawn over its rows in value order: a shuffle of
    the rows moves no figure."""
    o, a, h, pairing, log = tables
    small = (o, a, h.head(N // 2), pairing, log)
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    first = _assess(_write(tmp_path / "1", *small))
    s = _shuffled(tables, 1)  # its holdout is not used: the small one stays as it was
    moved = (s[0], s[1], h.head(N // 2), s[3], s[4])
    again = _assess(_write(tmp_path / "2", *moved))
    assert first.figures["singling_out.control.compared_at_size"] == N // 2  # subsets drawn
    differ = {k for k, v in first.figures.items() if not same(again.figures[k], v)}
    assert not differ
