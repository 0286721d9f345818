"""Hypothesis strategies for random original/avatar tables, shared by the tests.

Numeric values are integers or multiples of 1/4 so that every float sum is
exact: then the engine and the exact-rational reference must agree bit for bit
(the spec's guarantee for integer-valued columns).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl
from hypothesis import strategies as st

import kpr
from tests.reference import RefResult, numeric_variables, reference_kpr

SCHEMA = {"age": pl.Int64, "score": pl.Float64, "sex": pl.String, "region": pl.String}
NUMERIC = {"age", "score"}

ages = st.one_of(st.none(), st.integers(-40, 120))
scores = st.one_of(
    st.none(),
    st.just(math.nan),
    st.sampled_from([math.inf, -math.inf, 0.0, -0.0]),
    st.integers(-400, 400).map(lambda k: k / 4),
)
sexes = st.one_of(st.none(), st.sampled_from(["F", "M"]))
regions = st.one_of(st.none(), st.sampled_from(["north", "south", "é東", "a b,c"]))
# Avatars may also lie far outside the originals' range.
far = st.sampled_from([1e300, -1e300, 1e6, -1e6])


def rows(size: tuple[int, int], outliers: bool) -> st.SearchStrategy[list[dict[str, Any]]]:
    age = st.one_of(ages, far.map(lambda x: int(x) if abs(x) < 1e9 else None)) if outliers else ages
    score = st.one_of(scores, far) if outliers else scores
    row = st.fixed_dictionaries({"age": age, "score": score, "sex": sexes, "region": regions})
    return st.lists(row, min_size=size[0], max_size=size[1])


@dataclass
class Case:
    original: list[dict[str, Any]]
    avatars: list[dict[str, Any]]
    known: list[str]
    tolerance: float
    #: the class grid's origin moved down by this fraction of each width
    offset: float = 0.0

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return (
            pl.DataFrame(self.original, schema=SCHEMA),
            pl.DataFrame(self.avatars, schema=SCHEMA),
        )


@st.composite
def cases(draw: st.DrawFn, min_avatars: int = 0, moved: bool = False) -> Case:
    """Random tables and an attack; ``moved``: on a grid moved by 0, 1/4, 1/2 or 3/4
    of the width."""
    original = draw(rows((1, 25), outliers=False))
    # Often reuse original rows as avatars, so that links actually happen.
    reused = draw(st.lists(st.sampled_from(original), max_size=20))
    fresh = draw(rows((0, 15), outliers=True))
    avatars = draw(st.permutations(reused + fresh))
    if len(avatars) < min_avatars:
        avatars = avatars + original[:1] * (min_avatars - len(avatars))
    known = draw(st.lists(st.sampled_from(list(SCHEMA)), min_size=1, max_size=4, unique=True))
    tolerance = draw(st.sampled_from([0.01, 0.05, 0.1, 0.25, 0.5]))
    offset = draw(st.sampled_from([0.0, 0.25, 0.5, 0.75])) if moved else 0.0
    return Case(original, avatars, known, tolerance, offset)


def assert_matches_reference(got: kpr.KprResult, case: Case) -> RefResult:
    """The engine's counts, rate and class grid equal the reference's, bit for bit."""
    ref = reference_kpr(
        case.original,
        case.avatars,
        case.known,
        numeric_variables(case.original, NUMERIC & set(case.known)),
        case.tolerance,
        offset=case.offset,
    )
    assert got.grid_offset == case.offset
    assert (got.n, got.n_avatars, got.unique_originals, got.linked) == (
        ref.n, ref.n_avatars, ref.unique_originals, ref.linked,
    )  # fmt: skip
    assert got.rate == ref.kpr
    for name, b in ref.bins.items():
        v = got.variables[name]
        assert (v.lo, v.width) == (b.lo, b.width), name
    return ref
