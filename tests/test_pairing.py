"""Correct links: linked individuals whose unique approaching avatar is their own
(spec, "Around the rate"), checked against a brute-force count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.analysis import analyze
from kpr.avatar import generate
from tests.conftest import run_cli as _cli
from tests.tables import people

from .reference import reference_kpr

KNOWN = ["age", "sex", "income"]


def population(n: int, seed: int) -> pl.DataFrame:
    return people(n, seed, decimals=0, kids=False)


def brute_force(original: pl.DataFrame, avatars: pl.DataFrame, own: np.ndarray) -> int:
    ref = reference_kpr(original.to_dicts(), avatars.to_dicts(), KNOWN, {"age", "income"})
    return sum(1 for i, j in ref.pairs.items() if own[i] == j)


# k = 2 keeps avatars near their individual, so many links are right; k = 10 fewer.
@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 2), (2, 10)])
def test_correct_links_equal_a_brute_force_count(seed: int, k: int) -> None:
    original = population(600, seed)
    gen = generate(original, k=k, seed=seed)
    result = kpr.evaluate(original, gen.avatars, known=KNOWN, pairing=gen.pairing)
    expected = brute_force(original, gen.avatars, gen.pairing)
    assert result.correct_links == expected
    assert 0 < expected < result.linked  # the claims are neither all right nor all wrong
    assert result.reidentification_rate == pytest.approx(100 * expected / 600)
    assert f"{result.linked:,} link(s)" in result.claims and f"{expected:,} are right" in (
        result.claims
    )
    frame = pl.DataFrame({"original_row": np.arange(600), "avatar_row": gen.pairing})
    assert kpr.evaluate(original, gen.avatars, known=KNOWN, pairing=frame).correct_links == expected
    assert (
        analyze(
            original, gen.avatars, KNOWN, pairing=frame.to_pandas(), tolerances=None
        ).correct_links
        == expected
    )


def test_without_pairing_the_claims_say_so() -> None:
    original = population(200, 3)
    r = kpr.evaluate(original, generate(original, k=5, seed=3).avatars, known=KNOWN)
    assert r.correct_links is None and r.reidentification_rate is None
    assert "unknown without the pairing" in r.claims
    assert r.to_dict()["correct_links"] is None


@pytest.mark.parametrize(
    ("pairing", "message"),
    [
        (pl.DataFrame({"original_row": [0, 1]}), "no column 'avatar_row'"),
        (pl.DataFrame({"original_row": [0, 0], "avatar_row": [0, 1]}), "original row twice"),
        (pl.DataFrame({"original_row": [0, 999], "avatar_row": [0, 1]}), "original rows outside"),
        (pl.DataFrame({"original_row": [0, 1], "avatar_row": [0, 999]}), "avatar rows outside"),
        (pl.DataFrame({"original_row": ["a"], "avatar_row": [0]}), "whole row positions"),
    ],
)
def test_bad_pairings_are_input_errors(pairing: Any, message: str) -> None:
    original = population(100, 4)
    with pytest.raises(kpr.InputError, match=message):
        kpr.evaluate(original, original, known=KNOWN, pairing=pairing)


def test_cli_pairing_from_avatarize(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = population(500, 5)
    o, a, p = tmp_path / "o.csv", tmp_path / "a.csv", tmp_path / "pairing.csv"
    original.write_csv(o)
    code, _, _ = _cli(["avatarize", str(o), "-o", str(a), "--k", "3", "--seed", "1",
                       "--pairing-out", str(p), "-q"], capsys)  # fmt: skip
    assert code == 0
    avatars = pl.read_csv(a)
    own = pl.read_csv(p).sort("original_row")["avatar_row"].to_numpy()
    expected = brute_force(original, avatars, own)
    code, out, _ = _cli(["evaluate", str(o), str(a), "-k", "age,sex,income", "--pairing",
                         str(p), "-f", "json"], capsys)  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["correct_links"] == expected > 0
    assert f"{expected:,} are right" in data["claims"]
    code, out, _ = _cli(["evaluate", str(o), str(a), "-k", "age,sex,income", "--pairing",
                         str(p)], capsys)  # fmt: skip
    assert f"the attacker can claim {data['linked']:,}" in out.lower()
    assert f"{expected:,} are right" in out
    code, out, _ = _cli(["analyze", str(o), str(a), "-k", "age,sex,income", "--pairing",
                         str(p), "-f", "json", "-q"], capsys)  # fmt: skip
    assert json.loads(out)["correct_links"] == expected
