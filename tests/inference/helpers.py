"""Random cases for the inference measures, and the check against the reference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kpr.results.inference import SecretInference
from tests.inference.reference import reference_inference
from tests.reference import numeric_variables
from tests.strategies import NUMERIC, SCHEMA, Case, cases


@dataclass
class SecretCase:
    case: Case
    secret: str
    denom_lim: int | None


@st.composite
def secret_cases(draw: st.DrawFn, min_avatars: int = 0) -> SecretCase:
    case = draw(cases(min_avatars=min_avatars))
    others = [c for c in SCHEMA if c not in case.known]
    if not others:
        case.known = case.known[:-1]
        others = [c for c in SCHEMA if c not in case.known]
    secret = draw(st.sampled_from(others))
    denom_lim = draw(st.one_of(st.none(), st.integers(1, 4)))
    return SecretCase(case, secret, denom_lim)


def assert_matches(got: SecretInference, sc: SecretCase) -> None:
    """Every total equals the person-by-person reference's."""
    c = sc.case
    numeric = numeric_variables(c.original, NUMERIC & {*c.known, sc.secret})
    ref = reference_inference(
        c.original, c.avatars, c.known, sc.secret, numeric, c.tolerance, sc.denom_lim
    )
    t = got.counts
    assert (t.n, t.linked, t.right, t.dis, t.disco, t.dorig, t.disdio) == (
        ref.n, ref.linked, ref.right, ref.dis, ref.disco, ref.dorig, ref.disdio,
    )  # fmt: skip
    assert abs(t.guess_linked - float(ref.guess_linked)) < 1e-9
    assert abs(t.guess_all - float(ref.guess_all)) < 1e-9
    assert abs(t.cap - float(ref.cap)) < 1e-9


def run(sc: SecretCase, convert: Any = lambda f: f) -> SecretInference:
    import kpr

    o, a = sc.case.frames()
    result = kpr.inference(
        convert(o), convert(a), known=sc.case.known, secret=sc.secret,
        tolerance=sc.case.tolerance, denom_lim=sc.denom_lim,
    )  # fmt: skip
    return result[sc.secret]
