from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.analysis import analyze
from kpr.errors import InputError
from tests.reference import reference_value_order

from ._data import tables

KNOWN = ["age", "sex", "height"]


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    original, avatars = tables(400, 380, seed=3)
    control, _ = tables(300, 1, seed=4)
    return original, avatars, control


@pytest.fixture(scope="module")
def result(data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]) -> kpr.analysis.AnalysisResult:
    original, avatars, control = data
    return analyze(original, avatars, KNOWN, control=control)


def test_main_attack_equals_evaluate(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], result: kpr.analysis.AnalysisResult
) -> None:
    original, avatars, _ = data
    direct = kpr.evaluate(original, avatars, known=KNOWN)
    assert (result.attack.rate, result.attack.linked) == (direct.rate, direct.linked)
    # the random control repeats 2 of the original's rows by chance: warned about
    assert [w for w in result.warnings if w.code != "control-shares-rows"] == direct.warnings  # type: ignore[attr-defined]
    low, high = result.attack.interval
    assert low <= result.attack.rate <= high


def test_original_published_equals_evaluating_the_original_against_itself(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], result: kpr.analysis.AnalysisResult
) -> None:
    original, _, _ = data
    direct = kpr.evaluate(original, original, known=KNOWN)
    w = result.original_published
    assert (w.rate, w.linked, w.n_avatars) == (direct.rate, direct.linked, direct.n)


def test_the_worst_case_is_every_unique_original_linked(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], result: kpr.analysis.AnalysisResult
) -> None:
    """The floor is reached: avatars holding each member of U once, each in a class
    profile of its own (its exact known values), link every member of U."""
    original, _, _ = data
    a = result.attack
    assert result.worst_case == 100.0 * (1.0 - a.unique_originals / a.n)
    unique = original.filter(~original.select(KNOWN).is_duplicated())
    floor = kpr.evaluate(original, unique, known=KNOWN, tolerance=1e-9)
    assert floor.linked == a.unique_originals and floor.rate == pytest.approx(result.worst_case)
    assert result.worst_case <= min(a.rate, result.original_published.rate)
    d = result.to_dict()
    assert d["worst_case"]["kpr"] == result.worst_case
    assert d["original_published"]["kpr"] == result.original_published.rate


def test_control_is_attacked_as_an_original(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], result: kpr.analysis.AnalysisResult
) -> None:
    _, avatars, control = data
    c = result.control
    assert c is not None
    direct = kpr.evaluate(control, avatars, known=KNOWN)
    assert (c.control.rate, c.control.linked, c.control.n) == (direct.rate, direct.linked, 300)
    assert c.original == result.attack
    # size-fair: the 400 originals are compared through 20 random subsets of 300 rows,
    # each its own attack, drawn by one generator seeded with 0 over the rows sorted
    # by their known variables' values (NaN after every number, missing last), so
    # that row order does not matter
    original = data[0]
    by_value = np.array(reference_value_order(original.to_dicts(), KNOWN))
    rng = np.random.default_rng(0)
    rates = []
    for _ in range(20):
        rows = np.sort(by_value[rng.choice(400, size=300, replace=False)])
        rates.append(kpr.evaluate(original[rows], avatars, known=KNOWN).rate)
    assert c.subsampled == "original" and len(c.subsets) == 20 and c.size == 300
    assert [s.rate for s in c.subsets] == rates
    assert c.difference == pytest.approx(direct.rate - float(np.mean(rates)))
    low, high = c.difference_interval
    assert low <= c.difference <= high
    assert "population structure" in c.explanation


def test_tolerance_curve_points_equal_direct_evaluations(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], result: kpr.analysis.AnalysisResult
) -> None:
    # Not necessarily monotonic: each point is just its own attack.
    original, avatars, _ = data
    tols = [p.tolerance for p in result.tolerance_curve]
    assert tols == [0.01, 0.02, 0.05, 0.1, 0.2]
    for point in result.tolerance_curve:
        direct = kpr.evaluate(original, avatars, known=KNOWN, tolerance=point.tolerance)
        assert (point.rate, point.linked) == (direct.rate, direct.linked)


def test_window_method_everywhere(data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]) -> None:
    original, avatars, control = data
    r = analyze(original, avatars, KNOWN, control=control, method="window", tolerances=[0.1])
    assert r.attack == kpr.analysis.window_attack(original, avatars, KNOWN)
    assert r.original_published == kpr.analysis.window_attack(original, original, KNOWN)
    assert r.control is not None
    assert r.control.control == kpr.analysis.window_attack(control, avatars, KNOWN)
    assert r.tolerance_curve == [
        kpr.analysis.window_attack(original, avatars, KNOWN, tolerance=0.1)
    ]


def test_to_dict_holds_every_part(result: kpr.analysis.AnalysisResult) -> None:
    d = json.loads(result.to_json())
    assert set(d) >= {
        "known", "method", "attack", "worst_case", "control", "tolerance_curve", "sweep",
        "warnings", "interval_explanation",
    }  # fmt: skip
    assert d["sweep"] is None
    assert d["attack"]["interval"]["confidence"] == 0.95
    assert d["control"]["difference_interval"]["low"] <= d["control"]["difference"]
    assert len(d["tolerance_curve"]["points"]) == 5
    assert d["worst_case"]["explanation"].startswith("The lowest rate this attack can give")
    assert d["original_published"]["explanation"].startswith("Publishing the original")


def test_analyze_with_a_sweep_and_progress(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame],
) -> None:
    original, avatars, control = data
    calls: list[tuple[int, int, str]] = []
    r = analyze(
        original, avatars, candidates=["age", "sex", "region"], max_known=2, control=control,
        tolerances=[0.05, 0.1], progress=lambda *a: calls.append(a),
    )  # fmt: skip
    assert r.attack.known == ("age", "sex", "region")
    assert r.sweep is not None and len(r.sweep.entries) == 7
    # attack, worst case, control, one extra tolerance; then the sweep's seven
    # subsets (the full attack among them), counted as they finish, after encoding
    assert [c[0] for c in calls] == [*range(12)]
    assert {c[1] for c in calls} == {11}
    assert calls[4][2] == "encoding the candidates once"
    assert {c[2] for c in calls[5:]} == {", ".join(e.known) for e in r.sweep.entries}


def test_control_missing_column_names_the_control(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    original, avatars, control = data
    with pytest.raises(InputError, match=r"^control: no column 'height'; did you mean"):
        analyze(original, avatars, KNOWN, control=control.rename({"height": "heigth"}))
    path = tmp_path / "control.parquet"
    control.drop("height").write_parquet(path)
    with pytest.raises(InputError, match=r"^control .*control.parquet: no column 'height'"):
        analyze(original, avatars, KNOWN, control=str(path))


def test_analyze_needs_known_or_candidates(
    data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame],
) -> None:
    original, avatars, _ = data
    with pytest.raises(InputError, match="known variables, or the candidates"):
        analyze(original, avatars)
    with pytest.raises(InputError, match="method"):
        analyze(original, avatars, KNOWN, method="grid")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="tolerance"):
        analyze(original, avatars, KNOWN, tolerances=[0.05, 2])
