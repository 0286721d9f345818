"""The class rule on a moved grid (``Attack.offset``, ``kpr.evaluate(grid_offset=)``):
every engine counts as the brute-force reference does with its grid's origin moved
down by a fraction of the width (``tests/reference.py``), the in-memory encoding
(``EncodedTables.digits``, which ``kpr.protect`` runs) gives the same classes, and
offset 0 is the spec's grid, result for result."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import kpr
from kpr.analysis.sweep import encode
from kpr.measure import evaluate_loaded, load
from kpr.metric.attack import make_attack
from tests.reference import reference_kpr
from tests.strategies import Case, assert_matches_reference, cases

from .conftest import Convert

OFFSETS = (0.0, 0.25, 0.5, 0.75)
SETTINGS: dict[str, Any] = {"deadline": None, "suppress_health_check": list(HealthCheck)}


def _tables(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ages and incomes whose avatars sit near the originals, so that where the
    class edges fall decides many links."""
    rng = np.random.default_rng(seed)
    n = 300
    age = rng.integers(18, 90, n)
    income = np.round(rng.lognormal(10, 0.6, n), 2)
    sex = rng.choice(["F", "M"], n)
    original = pl.DataFrame({"age": age, "income": income, "sex": sex})
    avatars = pl.DataFrame(
        {
            "age": age + rng.integers(-2, 3, n),
            "income": np.round(income * rng.uniform(0.97, 1.03, n), 2),
            "sex": sex,
        }
    )
    return original, avatars


def _reference(original: pl.DataFrame, avatars: pl.DataFrame, offset: float) -> Any:
    known = ["age", "income", "sex"]
    return reference_kpr(original.to_dicts(), avatars.to_dicts(), known, {"age", "income"},
                         offset=offset)  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1])
def test_every_engine_counts_the_moved_grid_as_the_reference(engine: Convert, seed: int) -> None:
    original, avatars = _tables(seed)
    linked = set()
    for offset in OFFSETS:
        got = kpr.evaluate(
            engine(original), engine(avatars), known=["age", "income", "sex"],
            grid_offset=offset, tuning=engine.tuning,
        )  # fmt: skip
        ref = _reference(original, avatars, offset)
        assert (got.unique_originals, got.linked, got.rate) == (
            ref.unique_originals, ref.linked, ref.kpr,
        )  # fmt: skip
        assert got.grid_offset == offset
        linked.add(ref.linked)
    assert len(linked) > 1  # the moves change who is linked: the test can fail


@settings(max_examples=100, **SETTINGS)
@given(cases(moved=True))
def test_polars_and_duckdb_on_a_moved_grid_match_the_reference(case: Case) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    original, avatars = case.frames()
    for convert in (lambda f: f, lambda f: con.from_arrow(f.to_arrow())):
        got = kpr.evaluate(
            convert(original), convert(avatars), known=case.known, tolerance=case.tolerance,
            grid_offset=case.offset,
        )  # fmt: skip
        assert_matches_reference(got, case)


def test_offset_zero_is_the_spec_grid() -> None:
    original, avatars = _tables(2)
    attack = make_attack(["age", "income", "sex"])
    prepared = load(original, avatars, attack).pair
    spec = evaluate_loaded(prepared, attack)
    zero = evaluate_loaded(prepared, replace(attack, offset=0.0))
    assert zero.to_dict() == spec.to_dict() and "grid_offset" not in spec.to_dict()
    half = evaluate_loaded(prepared, replace(attack, offset=0.5))
    assert half.to_dict()["grid_offset"] == 0.5
    assert half.counts != spec.counts  # these tables: the move changes the count


@pytest.mark.parametrize("offset", OFFSETS)
def test_the_encoded_digits_use_the_moved_grid(offset: float) -> None:
    """``EncodedTables.digits(..., offset=)``: the bins are evaluate's, and the links
    its digits make are evaluate's and the reference's."""
    original, avatars = _tables(3)
    known = ["age", "income", "sex"]
    attack = make_attack(known, offset=offset)
    prepared = load(original, avatars, attack).pair
    result = evaluate_loaded(prepared, attack)
    tables = encode(prepared, known)
    d = tables.digits(known, attack.tolerance, offset=offset)
    for name in ("age", "income"):
        assert d.bins[name] == result._detail.bins[name]  # type: ignore[union-attr]
    ref = _reference(original, avatars, offset)
    # the links the digits make: U's key against the avatar keys held once
    u_key = np.zeros(len(d.u_digits[0]), dtype=object)
    a_key = np.zeros(avatars.height, dtype=object)
    for name, u_digit, lookup, radix in zip(known, d.u_digits, d.lookups, d.radices, strict=True):
        u_key = u_key * radix + u_digit.astype(object)
        a_key = a_key * radix + lookup[tables.columns[name].a].astype(object)
    keys, counts = np.unique(a_key, return_counts=True)
    once = set(keys[counts == 1].tolist())
    assert sum(k in once for k in u_key.tolist()) == result.linked == ref.linked


def test_a_bad_offset_is_one_line() -> None:
    o = pl.DataFrame({"age": [30, 40]})
    for bad in (1.0, -0.1, "half", True, float("nan")):
        with pytest.raises(kpr.InputError, match=r"grid offset .* in \[0, 1\)"):
            kpr.evaluate(o, o, known=["age"], grid_offset=bad)  # type: ignore[arg-type]
