"""Properties of the inference measures on random tables."""

from __future__ import annotations

import random

import polars as pl
from hypothesis import given, settings

import kpr
from tests.inference.helpers import SecretCase, secret_cases
from tests.strategies import SCHEMA


def _run(sc: SecretCase, original: list, avatars: list, denom_lim: int | None = None) -> dict:
    o, a = pl.DataFrame(original, schema=SCHEMA), pl.DataFrame(avatars, schema=SCHEMA)
    result = kpr.inference(
        o, a, known=sc.case.known, secret=sc.secret, tolerance=sc.case.tolerance,
        denom_lim=denom_lim,
    )  # fmt: skip
    return result[sc.secret].to_dict()


@settings(max_examples=60, deadline=None)
@given(secret_cases())
def test_row_order_changes_nothing(sc: SecretCase) -> None:
    shuffled_o, shuffled_a = list(sc.case.original), list(sc.case.avatars)
    rng = random.Random(len(shuffled_o))
    rng.shuffle(shuffled_o)
    rng.shuffle(shuffled_a)
    assert _run(sc, shuffled_o, shuffled_a, sc.denom_lim) == _run(
        sc, sc.case.original, sc.case.avatars, sc.denom_lim
    )


@settings(max_examples=60, deadline=None)
@given(secret_cases())
def test_doubling_every_avatar_unlinks_everyone_and_keeps_the_shares(sc: SecretCase) -> None:
    """Two avatars per profile link nobody; agreement and shares of right avatars stay."""
    once = _run(sc, sc.case.original, sc.case.avatars)
    twice = _run(sc, sc.case.original, sc.case.avatars * 2)
    assert twice["linked"] == twice["right"] == 0
    for key in ("dis", "disco", "dorig", "disdio"):
        assert twice[key] == once[key]
    assert abs(twice["expected_cap"] - once["expected_cap"]) < 1e-12


@settings(max_examples=60, deadline=None)
@given(secret_cases())
def test_the_original_itself_discloses_what_it_holds(sc: SecretCase) -> None:
    """Avatars equal to the original: every linked person's avatar is themselves
    (right), and the avatars of a profile agree exactly where the originals do."""
    got = _run(sc, sc.case.original, sc.case.original)
    assert got["right"] == got["linked"]
    assert got["dis"] == got["disco"] == got["dorig"] == got["disdio"]
