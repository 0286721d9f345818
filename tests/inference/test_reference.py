"""The measures equal a person-by-person count (tests/inference/reference.py)."""

from __future__ import annotations

from hypothesis import given, settings

from tests.inference.helpers import SecretCase, assert_matches, run, secret_cases


@settings(max_examples=300, deadline=None)
@given(secret_cases())
def test_every_measure_equals_the_reference(sc: SecretCase) -> None:
    assert_matches(run(sc), sc)
