"""Where the risk concentrates: the data behind the report's plots and ranking."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.render import risk
from kpr.results.evaluation import KprResult


def test_worked_example_categorical(worked_example: KprResult) -> None:
    sex = risk.variable_risk(worked_example, "sex")
    assert [(g.label, g.originals, g.linked) for g in sex.groups] == [("M", 2, 2), ("F", 3, 0)]
    # linked: both M; fair share of M would be 2 * 2/5 = 0.8, so 1.2 of 2 are in excess
    assert sex.score == pytest.approx(0.6)
    assert sex.hotspot is not None and sex.hotspot.label == "M"
    assert sex.rest is None


def test_worked_example_numeric(worked_example: KprResult) -> None:
    age = risk.variable_risk(worked_example, "age")
    # the 30s (below lo) and 61 (beyond U's classes) share the special "outside" class
    assert [(g.label, g.originals, g.avatars) for g in age.special] == [("outside U's range", 2, 1)]
    assert [(g.originals, g.avatars, g.linked) for g in age.groups] == [
        (1, 1, 1),  # class 0: 41 and 42
        (1, 0, 0),  # class 4: 52
        (0, 2, 0),  # class 5: 53.5 and 54
        (1, 1, 1),  # class 7: 60 and 59
    ]
    assert age.groups[0].label == "[40.05, 42.60)"
    assert age.merged == 1
    assert age.score == pytest.approx(0.6)


def test_nobody_linked_gives_no_score() -> None:
    o = pl.DataFrame({"sex": ["F", "M", "X"]})
    result = kpr.evaluate(o, pl.DataFrame({"sex": ["F", "F", "M", "M"]}), known="sex")
    assert result.linked == 0
    r = risk.variable_risk(result, "sex")
    assert r.score is None and r.hotspot is None
    assert risk.drivers([r]) == []


def _wide_numeric() -> KprResult:
    rng = np.random.default_rng(7)
    values = rng.integers(-5_000, 5_200, 3_000)  # mean near 0: tiny classes, wide range
    o = pl.DataFrame({"x": values})
    a = pl.DataFrame({"x": values + rng.integers(-3, 4, values.size)})
    return kpr.evaluate(o, a, known="x")


def test_many_classes_are_merged_without_losing_anyone() -> None:
    result = _wide_numeric()
    assert result.variables["x"].classes is not None
    assert result.variables["x"].classes > risk.MAX_BARS
    x = risk.variable_risk(result, "x")
    assert 1 < len(x.groups) <= risk.MAX_BARS
    assert x.merged > 1
    everyone = x.groups + x.special
    assert sum(g.originals for g in everyone) == result.n
    assert sum(g.linked for g in everyone) == result.linked
    lowers = [g.lower for g in x.groups]
    assert lowers == sorted(lowers)  # type: ignore[type-var]


def test_categorical_top_values_and_the_rest() -> None:
    values = [f"v{i:02d}" for i in range(20)]
    # value i is held by i % 3 + 1 originals and by one avatar: the 7 values held by a
    # single original are linked, the others are not unique in the original
    o = pl.DataFrame({"c": [v for i, v in enumerate(values) for _ in range(i % 3 + 1)]})
    a = pl.DataFrame({"c": values})
    result = kpr.evaluate(o, a, known="c")
    c = risk.variable_risk(result, "c")
    assert len(c.groups) == risk.TOP_VALUES
    assert c.values == 20
    assert c.rest is not None and c.rest.label == "5 other values"
    shown = [*c.groups, c.rest]
    assert sum(g.originals for g in shown) == result.n
    assert sum(g.linked for g in shown) == result.linked
    linked = [g.linked for g in c.groups]
    assert linked == sorted(linked, reverse=True)
    assert result.linked == 7
    assert [g.linked for g in c.groups[:8]] == [1] * 7 + [0]
    # one value beyond the top: singular
    one = risk.categorical_risk(result, "c", top=19)
    assert one.rest is not None and one.rest.label == "1 other value"


def test_missing_category_is_labelled_and_flagged() -> None:
    o = pl.DataFrame({"c": ["a", None, "b", "b"]})
    result = kpr.evaluate(o, pl.DataFrame({"c": ["a", None, "b"]}), known="c")
    c = risk.variable_risk(result, "c")
    missing = [g for g in c.groups if g.missing]
    assert [(g.label, g.linked) for g in missing] == [(risk.MISSING_LABEL, 1)]


def test_drivers_rank_by_score(demo_result: KprResult) -> None:
    ranked = risk.drivers([risk.variable_risk(demo_result, n) for n in demo_result.known])
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert all(0.0 <= s <= 1.0 for s in scores)  # type: ignore[operator]
    # the demo's risk sits in rare countries and races, not in sex
    assert ranked[0].name == "native_country"
    assert ranked[-1].name == "sex"


@pytest.mark.parametrize(
    ("width", "lower", "upper"),
    [
        (2.111, 15.4915, 17.6027),
        (0.0004, 1.00012, 1.00052),
        (25.0, 100.0, 125.0),
        (1e6, 3e9, 3.001e9),
    ],
)
def test_interval_labels_tell_neighbours_apart(width: float, lower: float, upper: float) -> None:
    label = risk.interval_label(lower, upper, width)
    left, right = label[1:-1].split(", ")
    assert left != right
    assert label.startswith("[") and label.endswith(")")


def test_shorten() -> None:
    assert risk.shorten("abc", 5) == "abc"
    assert risk.shorten("abcdefgh", 5) == "abcd…"


def test_date_classes_are_labelled_as_dates() -> None:
    import datetime as dt

    import polars as pl

    import kpr
    from kpr.render.risk import interval_label, numeric_risk

    assert interval_label(0.0, 30.0, 30.0, date=True) == "[1970-01-01, 1970-01-31)"
    assert interval_label(-0.25, 0.25, 0.5, date=True) == "[1969-12-31 18:00, 1970-01-01 06:00)"
    days = [dt.date(2000, 1, 1) + dt.timedelta(days=9 * i) for i in range(40)]
    result = kpr.evaluate(pl.DataFrame({"d": days}), pl.DataFrame({"d": days}), known="d")
    labels = [g.label for g in numeric_risk(result, "d").groups]
    assert labels and all(label.startswith("[19") or label.startswith("[20") for label in labels)


def test_hotspot_p_value_is_the_hypergeometric_tail(worked_example: KprResult) -> None:
    """Worked example: 2 of 5 linked, both in M (2 originals): the chance that the 2
    originals of M hold both linked, drawn at random, is C(2,2) C(3,0) / C(5,2) = 0.1."""
    from math import comb

    sex = risk.variable_risk(worked_example, "sex")
    assert sex.hotspot_p == pytest.approx(comb(2, 2) * comb(3, 0) / comb(5, 2))


def _region_table(linked_in_north: float, n: int = 2_000) -> KprResult:
    """Originals unique on (id, region); avatars copy the originals chosen to be
    linked: a share ``linked_in_north`` of region n's rows, 10 % of the others'."""
    rng = np.random.default_rng(4)
    region = rng.choice(np.array(["n", "s", "e", "w"]), n)
    o = pl.DataFrame({"id": [f"p{i}" for i in range(n)], "region": region})
    share = np.where(region == "n", linked_in_north, 0.1)
    chosen = rng.random(n) < share
    return kpr.evaluate(o, o.filter(pl.Series(chosen)), known=["id", "region"])


def test_a_concentration_beyond_chance_is_named_with_its_test() -> None:
    result = _region_table(0.5)
    risks = [risk.variable_risk(result, v) for v in result.known]
    found, classes = risk.significant_hotspots(risks)
    assert [r.name for r in found] == ["region"] and classes == sum(r.values for r in risks)
    advice = risk.advice(result, risks, kpr_avatars=False)[0]
    assert advice.startswith("The linked individuals concentrate in: region n:")
    assert f"Bonferroni over the {classes:,} classes looked at" in advice


def test_noise_is_not_named_a_hotspot() -> None:
    """The same share linked everywhere: some value still holds the most linked beyond
    its share, but no more than chance explains once the classes looked at count."""
    result = _region_table(0.1)
    risks = [risk.variable_risk(result, v) for v in result.known]
    assert all(r.hotspot is not None for r in risks)  # a "most linked" value exists...
    assert risk.significant_hotspots(risks)[0] == []  # ...but it is not significant
    advice = risk.advice(result, risks, kpr_avatars=False)
    assert not any("concentrate" in line for line in advice)
    assert advice[0].startswith("No class holds more linked individuals than chance explains")


def test_the_report_says_whether_each_hotspot_passes_the_test() -> None:
    from kpr.render.variables import risk_section

    for share, region_named in ((0.5, True), (0.1, False)):
        result = _region_table(share)
        risks = [risk.variable_risk(result, v) for v in result.known]
        found, classes = risk.significant_hotspots(risks)
        page = risk_section(result, risks, [None] * len(risks))
        assert page.count(f"Bonferroni over the {classes:,} classes looked at") == len(risks)
        assert ("That is more than chance explains" in page) == region_named
        assert [r.name for r in found] == (["region"] if region_named else [])


@pytest.mark.parametrize(
    ("linked", "originals", "total", "n"),
    [(2, 2, 2, 5), (0, 10, 5, 100), (7, 40, 30, 1000), (125, 749, 795, 24_000),
     (3, 3, 3, 3), (1, 50, 1, 100), (40, 60, 45, 100), (12, 900, 50, 100_000)],
)  # fmt: skip
def test_hotspot_p_value_equals_scipys_hypergeometric_tail(
    linked: int, originals: int, total: int, n: int
) -> None:
    from scipy.stats import hypergeom

    group = risk.Group("g", originals=originals, avatars=0, unique_originals=0, linked=linked)
    expected = float(hypergeom.sf(linked - 1, n, total, originals))
    assert risk.chance_of_as_many(group, total, n) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_analyze_advice_for_a_few_linked_names_a_command_analyze_can_point_to() -> None:
    """analyze has no --linked-out: its advice sends to evaluate's, evaluate's to its own."""
    from kpr.analysis import analyze

    rows = 3000
    original = pl.DataFrame({"a": ["common"] * (rows - 1) + ["rare"], "b": ["x"] * rows})
    result = analyze(original, original, candidates=["a", "b"], max_known=1)
    assert result.attack.linked == 1
    said = " ".join(risk.analysis_advice(result, kpr_avatars=False))
    assert "kpr evaluate with these --known and --linked-out" in said
    assert "(--linked-out," not in said
    assert "(--linked-out, linked_individuals())" in risk.advice_for_few(1, rows)
