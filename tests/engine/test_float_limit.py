"""Values near the float limit, where ``x - lo`` overflows for finite ``x``.

The spec computes ``floor((x - lo) / width)`` in IEEE double precision in that
order: a finite value whose ``x - lo`` overflows is in class ``+inf`` (a class
number, not the value +inf, which is its own class). When a member of U is
there too, that class is one of U's, so it links; every engine must agree with
``tests/reference.py`` on it."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kpr
from kpr.labels import OVERFLOW_LABEL
from kpr.render import html as report_html
from tests.reference import reference_kpr

from .conftest import Convert, _duckdb_convert

#: U = {-1.5e308, 1.5e308, 1.4e308}: lo ~ -1.67e308, so the two largest
#: overflow ``x - lo`` (class +inf) while -1.5e308 is in class 7.
ORIGINAL = [-1.5e308, 1.5e308, 1.4e308, 0.0, 0.0]
#: 1.45e308 shares their class +inf; -1.6e308 (class 3) is outside U's codes;
#: +inf is its own class; -1.5e308 links its twin.
AVATARS = [1.45e308, -1.6e308, math.inf, -1.5e308]


def _reference(original: pl.DataFrame, avatars: pl.DataFrame, known: list[str]) -> Any:
    numeric = {v for v in known if original.schema[v].is_numeric()}
    return reference_kpr(original.to_dicts(), avatars.to_dicts(), known, numeric)


def test_an_overflowing_class_of_u_links_on_every_engine(engine: Convert) -> None:
    o, a = pl.DataFrame({"v": ORIGINAL}), pl.DataFrame({"v": AVATARS})
    r = kpr.evaluate(engine(o), engine(a), known=["v"], tuning=engine.tuning)
    ref = _reference(o, a, ["v"])
    assert (r.unique_originals, r.linked) == (ref.unique_originals, ref.linked) == (3, 3)
    assert ref.pairs == {0: 3, 1: 0, 2: 0}  # was 1 linked: class +inf read as "outside"


def test_the_overflowing_class_has_its_own_label() -> None:
    o, a = pl.DataFrame({"v": ORIGINAL}), pl.DataFrame({"v": AVATARS})
    r = kpr.evaluate(o, a, known=["v"])
    b = r.variables["v"]
    assert b.lo is not None and math.isinf(1.4e308 - b.lo)  # the hostile part
    frame = r.linked_frame()
    assert dict(zip(frame["original_row"], frame["avatar_row"], strict=True)) == {0: 3, 1: 0, 2: 0}
    assert frame["v"].to_list()[1:] == [OVERFLOW_LABEL] * 2
    assert r.linked_frame(codes=True)["v"].to_list()[1:] == [math.inf] * 2
    table = r.class_table("v").filter(pl.col("class") == math.inf)
    assert table.select("lower", "upper", "special", "linked").rows() == [
        (None, None, OVERFLOW_LABEL, 2)
    ]
    # the report's cell (the whole report's plots fail near the float limit, on main too)
    assert report_html._profile_cell(r, "v", math.inf) == OVERFLOW_LABEL


_MAX = 1.7976931348623157e308
_NEAR = st.floats(1e307, _MAX)
_VALUE = st.one_of(
    st.tuples(_NEAR, st.booleans()).map(lambda t: -t[0] if t[1] else t[0]),
    st.sampled_from([0.0, 1.0, math.inf, -math.inf, None, -_MAX, _MAX]),
)


@st.composite
def _near_limit(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Originals in [1e307, max float] of both signs (a few small, infinite or
    missing values too); avatars drawn from them or from the same range."""
    values = draw(st.lists(_VALUE, min_size=1, max_size=10))
    avatars = draw(st.lists(st.one_of(st.sampled_from(values), _VALUE), max_size=10))
    groups = draw(st.lists(st.integers(0, 1), min_size=len(values), max_size=len(values)))
    other = draw(st.lists(st.integers(0, 1), min_size=len(avatars), max_size=len(avatars)))
    o = pl.DataFrame({"v": values, "g": groups}, schema={"v": pl.Float64, "g": pl.Int64})
    a = pl.DataFrame({"v": avatars, "g": other}, schema={"v": pl.Float64, "g": pl.Int64})
    return o, a


# 40 examples, each on three engines: the values are drawn only from [1e307, max float]
# of both signs and a few special ones, so the space is small.
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(_near_limit(), st.sampled_from([["v"], ["v", "g"]]))
def test_values_near_the_float_limit_match_the_reference(
    tables: tuple[pl.DataFrame, pl.DataFrame], known: list[str]
) -> None:
    o, a = tables
    ref = _reference(o, a, known)
    for convert in (lambda f: f, lambda f: f.to_pandas(), _duckdb_convert()):
        r = kpr.evaluate(convert(o), convert(a), known=known)
        assert (r.n, r.unique_originals, r.linked) == (ref.n, ref.unique_originals, ref.linked)
        if ref.bins["v"].minimum is not None:  # some finite value in U: a class grid
            v, b = r.variables["v"], ref.bins["v"]
            assert (v.lo, v.width) == (b.lo, b.width)
