"""Outputs that say what they hold: results in the input's library, warnings with
codes, the identifier warning, advice from evidence."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import kpr
from kpr.avatar import generate
from kpr.cli import text
from kpr.notices import Notice
from tests.conftest import worked_example

ORIGINAL, AVATARS = worked_example()


@pytest.mark.parametrize(
    ("convert", "kind"),
    [
        (lambda f: f, pl.DataFrame),
        (lambda f: f.to_pandas(), pd.DataFrame),
        (lambda f: f.to_arrow(), pa.Table),
    ],
)
def test_results_come_back_in_the_inputs_library(convert: object, kind: type) -> None:
    r = kpr.evaluate(convert(ORIGINAL), convert(AVATARS), known=["age", "sex"])  # type: ignore[operator]
    linked = r.linked_individuals()
    assert isinstance(linked, kind) and isinstance(r.by_class("age"), kind)
    polars = pl.from_pandas(linked) if kind is pd.DataFrame else pl.DataFrame(linked)
    assert polars.rows() == [(2, 0, "[40.05, 42.60)", "M"), (4, 4, "[57.90, 60.45)", "M")]
    assert r.linked_frame(codes=True)["age"].to_list() == [0, 7]


def test_a_file_gives_polars(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    ORIGINAL.write_csv(tmp_path / "o.csv")
    AVATARS.write_csv(tmp_path / "a.csv")
    r = kpr.evaluate(tmp_path / "o.csv", tmp_path / "a.csv", known=["age", "sex"])
    assert isinstance(r.linked_individuals(), pl.DataFrame)


def test_identifying_variable_is_warned_above_90_percent() -> None:
    n = 200
    ids = [f"p{i}" for i in range(n)]
    ids_mostly = ids[:181] + ["dup"] * 19  # 181 unique of 200 = 90.5 %
    ids_under = ids[:180] + ["dup"] * 20  # 180 of 200 = 90 %: not more than 90 %
    sex = ["F", "M"] * (n // 2)
    for column, warned in ((ids, True), (ids_mostly, True), (ids_under, False)):
        table = pl.DataFrame({"id": column, "sex": sex})
        r = kpr.evaluate(table, table, known=["id", "sex"])
        codes = [w.code for w in r.warnings if isinstance(w, Notice)]
        assert ("identifying-variable" in codes) is warned
        if warned:
            text = next(
                w for w in r.warnings if isinstance(w, Notice) and w.code == "identifying-variable"
            )
            assert "'id'" in text and "trivial" in text
    assert all(isinstance(w, Notice) for w in r.warnings)


def test_advice_speaks_of_k_only_for_kprs_avatars() -> None:
    rng = np.random.default_rng(0)
    table = pl.DataFrame(
        {
            "age": rng.integers(18, 90, 400),
            "sex": rng.choice(np.array(["F", "M"]), 400),
            "zip": rng.choice(np.array(list("abcdefgh")), 400),
        }
    )
    gen = generate(table, k=3, seed=0)
    known = ["age", "sex", "zip"]
    plain = kpr.evaluate(table, gen.avatars, known=known)
    assert plain.linked > 20
    paired = kpr.evaluate(table, gen.avatars, known=known, pairing=gen.pairing)
    assert not re.search(r"\bk\b", text.text_summary(plain).split("What to do next:")[1])
    assert "kpr sweep" in text.text_summary(paired).split("What to do next:")[1]
    assert "kpr sweep" in text.text_summary(plain, kpr_avatars=True)
    # what to do: on this table of random values no class holds more linked than chance
    # explains (the hot-spot test), so the advice names none, and says what acts
    advice = text.text_summary(plain).split("What to do next:")[1]
    assert "concentrate in: " not in advice and "No class holds more" in advice
    assert "coarsen the known variables" in advice and "kpr protect" in advice
    html = plain.to_html()
    assert "kpr sweep" not in html and "coarsen" in html
    assert "kpr sweep" in plain.to_html(kpr_avatars=True)


def test_advice_is_proportional_to_the_risk() -> None:
    """A handful linked: no advice to coarsen whole variables; nobody linked: no claim
    sentence about a pairing that would tell nothing."""
    rng = np.random.default_rng(0)
    table = pl.DataFrame(
        {"age": rng.integers(18, 90, 400), "sex": rng.choice(np.array(["F", "M"]), 400)}
    )
    gen = generate(table, k=3, seed=0)
    few = kpr.evaluate(table, gen.avatars, known=["age", "sex"])
    assert 0 < few.linked <= 20
    advice = text.text_summary(few).split("What to do next:")[1]
    assert "coarsen" not in advice.replace("coarsening whole variables", "")
    assert f"Only {few.linked} of 400 individuals are linked" in advice
    assert "--linked-out" in advice
    none = kpr.evaluate(table, table, known=["sex"])
    assert none.linked == 0
    assert none.claims == "The attacker can claim no link between an individual and an avatar."
    # Python names the Python argument; the command line its flag
    assert "(pairing=)" in few.claims and "--pairing" not in few.claims
    assert "(--pairing)" in text.text_summary(few)


def test_analysis_advice_names_the_largest_contributions() -> None:
    from kpr.analysis import analyze
    from kpr.cli.text import text_report

    rng = np.random.default_rng(1)
    table = pl.DataFrame(
        {
            "age": rng.integers(18, 90, 400),
            "sex": rng.choice(np.array(["F", "M"]), 400),
            "region": rng.choice(np.array(["n", "s", "e", "w"]), 400),
        }
    )
    gen = generate(table, k=3, seed=1)
    r = analyze(table, gen.avatars, candidates=["age", "sex", "region"], tolerances=None)
    assert r.sweep is not None
    top = r.sweep.contributions[0]
    advice = text_report(r).split("What to do next:")[1]
    # a decrease reads as one: no "+" sign before the points it takes off the rate
    assert top.mean_decrease > 0
    expected = f"lowers the rate most: {top.variable} (by {top.mean_decrease:.2f} points on"
    assert expected in advice
    assert "kpr sweep" not in advice
    paired = analyze(table, gen.avatars, ["age", "sex"], pairing=gen.pairing, tolerances=None)
    assert "kpr sweep" in text_report(paired) and "are right" in text_report(paired)
    assert "kpr sweep" in paired.to_html() and "are right" in paired.to_html()
