"""kpr's group-by figures of SDMetrics' CAP family equal SDMetrics' own (0.32),
within 1e-9, where SDMetrics accepts the input: on the demo's first rows and on small
random tables with missing values, numbers and integers."""

from __future__ import annotations

import math
import warnings
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sdmetrics.single_table import CategoricalCAP, CategoricalZeroCAP, DisclosureProtection

import kpr

DEMO = files("kpr") / "data"


def demo_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    return (
        pd.read_parquet(str(DEMO / "adult.parquet")),
        pd.read_parquet(str(DEMO / "adult_avatars.parquet")),
    )


def _sdmetrics(
    o: pd.DataFrame, a: pd.DataFrame, known: list[str], secret: str, continuous: list[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, metric in (("CategoricalCAP", CategoricalCAP),
                             ("CategoricalZeroCAP", CategoricalZeroCAP)):  # fmt: skip
            try:
                out[name] = metric.compute(o, a, key_fields=known, sensitive_fields=[secret])
            except TypeError:  # a type SDMetrics refuses
                out[name] = None
        out["DisclosureProtection"] = DisclosureProtection.compute_breakdown(
            o, a, known, [secret], continuous_column_names=continuous or None
        )
    return out


def _same(ours: float | None, theirs: float) -> bool:
    if ours is None:
        return math.isnan(theirs)
    return abs(ours - theirs) <= 1e-9


def _check(o: pd.DataFrame, a: pd.DataFrame, known: list[str], secret: str) -> None:
    got = kpr.inference(o, a, known, secret=secret)[secret].to_dict()["sdmetrics"]
    figures = {f["metric"]: f for f in got}
    continuous = [  # kpr's numeric columns, which it cuts as SDMetrics cuts continuous ones
        c
        for c in [*known, secret]
        if pd.api.types.is_numeric_dtype(o[c]) and not pd.api.types.is_bool_dtype(o[c])
    ]
    theirs = _sdmetrics(o, a, known, secret, continuous)
    for name in ("CategoricalCAP", "CategoricalZeroCAP"):
        if figures[name]["applies"]:
            assert theirs[name] is not None, name
            assert _same(figures[name]["value"], theirs[name]), (name, figures[name], theirs)
    dp = figures["DisclosureProtection"]
    assert dp["applies"]
    assert _same(dp["value"], theirs["DisclosureProtection"]["score"]), (dp, theirs)
    assert _same(dp["cap_protection"], theirs["DisclosureProtection"]["cap_protection"])


@pytest.mark.parametrize(
    ("known", "secret"),
    [(["sex", "race", "marital_status"], "income"), (["age", "sex", "race"], "hours_per_week")],
)
def test_the_demo_gives_sdmetrics_figures(known: list[str], secret: str) -> None:
    o, a = demo_tables()
    _check(o.head(1500), a.head(1500), known, secret)


_CATS = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))
_NUMS = st.one_of(st.none(), st.integers(-20, 20).map(lambda k: k / 4))


@st.composite
def _tables(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    def table(size: int) -> pd.DataFrame:
        n = draw(st.integers(1, size))
        rows = {
            "g": [draw(_CATS) for _ in range(n)],
            "x": [draw(_NUMS) for _ in range(n)],
            "s": [draw(_CATS) for _ in range(n)],
        }
        frame = pd.DataFrame(rows)
        frame["x"] = frame["x"].astype(float)
        return frame

    o = table(30)
    if o["x"].isna().all():
        o.loc[0, "x"] = 1.0
    return o, table(30)


@settings(max_examples=40, deadline=None)
@given(_tables())
def test_random_tables_with_missing_values_give_sdmetrics_figures(
    tables: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    o, a = tables
    _check(o, a, ["g", "x"], "s")
    _check(o, a, ["g", "s"], "x")


def test_cap_applies_to_categories_and_integers_without_missing_values() -> None:
    rng = np.random.default_rng(0)
    o = pd.DataFrame({"kids": rng.integers(0, 3, 60), "s": rng.choice(["p", "q"], 60)})
    a = pd.DataFrame({"kids": rng.integers(0, 3, 60), "s": rng.choice(["p", "q"], 60)})
    result = kpr.inference(o, a, ["kids"], secret="s")["s"].to_dict()
    got = {f["metric"]: f for f in result["sdmetrics"]}
    theirs = _sdmetrics(o, a, ["kids"], "s", ["kids"])
    assert got["CategoricalCAP"]["applies"] and got["CategoricalZeroCAP"]["applies"]
    assert _same(got["CategoricalCAP"]["value"], theirs["CategoricalCAP"])
    assert _same(got["CategoricalZeroCAP"]["value"], theirs["CategoricalZeroCAP"])
