"""The groups by secret class and by profile: only the listed profiles are labelled
(a large table holds about a profile per row), and the listing is the one every
profile labelled and sorted gives (the reference below: the plain version)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.analysis.inference import TOP_PROFILES, _listed, _Sums, count_secret
from kpr.engine.profiles import CLASS, PROFILE, cells
from kpr.inputs.reading import ReadSettings
from kpr.measure import load
from kpr.metric.attack import make_attack
from kpr.metric.inference import cell_scores
from kpr.results.inference import MIN_GROUP, Group, class_name


def _labelled_all(o: pl.DataFrame, a: pl.DataFrame, known: list[str], secret: str) -> Any:
    """Every profile and class labelled, every group built, then sorted and cut."""
    attack = make_attack(known, 0.05)
    both = make_attack([*known, secret], 0.05)
    inputs = load(o, a, both, ReadSettings(), materialize=True)
    counts = count_secret(inputs.pair, attack, secret)
    c = cells(counts)
    scores = cell_scores(c, None)
    t, kinds, bins = counts.table, counts.kinds, counts.bins

    def first(ids: str, column: str) -> dict[int, Any]:
        g = t.group_by(ids).agg(pl.col(column).first())
        return dict(zip(g[ids].to_list(), g[column].to_list(), strict=True))

    def groups(per: Any, labels: list[str]) -> list[Group]:
        people, linked = per(c.people.astype(float)), per(c.unique * scores.linked)
        right, disco = per(c.unique * scores.right), per(c.people * scores.disco)
        cap = per(c.people * scores.cap)
        return [
            Group(labels[i], int(people[i]), int(linked[i]), int(right[i]), int(disco[i]),
                  float(cap[i]))
            for i in range(len(labels))
        ]  # fmt: skip

    values = first(CLASS, counts.extra_key)
    by_class = groups(
        c.per_class,
        [class_name(values[i], kinds[secret], bins.get(secret)) for i in range(c.classes)],
    )
    keyed = [first(PROFILE, k) for k in counts.keys]
    labels = [
        ", ".join(
            f"{v} {class_name(col[i], kinds[v], bins.get(v))}"
            for v, col in zip(known, keyed, strict=True)
        )
        for i in range(c.profiles)
    ]
    by_profile = groups(c.per_profile, labels)
    listed = sorted(
        (g for g in by_profile if g.shown and g.disco > 0), key=lambda g: (-g.disco, -g.right)
    )
    hidden = sum(1 for g in by_profile if not g.shown and g.disco > 0)
    return tuple(by_class), tuple(listed[:TOP_PROFILES]), hidden


KNOWN = [["age"], ["sex", "zone"], ["age", "sex", "zone"], ["score", "sex"], ["age", "score"]]


def _rows(size: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    row = st.fixed_dictionaries({
        "age": st.one_of(st.none(), st.integers(20, 90)),
        "score": st.integers(0, 4000).map(lambda k: k / 4),
        "sex": st.sampled_from(["F", "M"]),
        "zone": st.one_of(st.none(), st.sampled_from(["n", "s", "é東"])),
        "sick": st.one_of(st.none(), st.sampled_from(["y", "n"])),
    })  # fmt: skip
    return st.lists(row, min_size=size // 4, max_size=size)


@settings(max_examples=60, deadline=None)
@given(_rows(400), _rows(200), st.sampled_from(KNOWN), st.booleans())
def test_listed_profiles_equal_every_profile_sorted(
    o_rows: list[dict[str, Any]], a_rows: list[dict[str, Any]], known: list[str], by_sex: bool
) -> None:
    """``by_sex``: the secret follows the sex, so whole profiles are disclosed."""
    schema = {"age": pl.Int64, "score": pl.Float64, "sex": pl.String, "zone": pl.String,
              "sick": pl.String}  # fmt: skip
    o, a = pl.DataFrame(o_rows, schema=schema), pl.DataFrame(a_rows + o_rows, schema=schema)
    if by_sex:
        o, a = (t.with_columns(sick=pl.col("sex") == "F").cast({"sick": pl.String}) for t in (o, a))
    got = kpr.inference(o, a, known=known, secret="sick", sdmetrics=False)["sick"]
    classes, profiles, hidden = _labelled_all(o, a, known, "sick")
    assert got.classes == classes
    assert got.profiles == profiles
    assert got.hidden_profiles == hidden


def test_ties_keep_profile_order() -> None:
    """Twelve profiles of ten people each, every one disclosed alike: the first ten in
    profile order (by value) are listed, whatever the row order."""
    zones = [f"z{i:02d}" for i in range(12)] * 10
    o = pl.DataFrame({"zone": zones[::-1], "sick": ["y"] * len(zones)})
    got = kpr.inference(o, o, known=["zone"], secret="sick", sdmetrics=False)["sick"]
    assert [g.label for g in got.profiles] == [f"zone z{i:02d}" for i in range(TOP_PROFILES)]
    assert [(g.people, g.disco) for g in got.profiles] == [(10, 10)] * TOP_PROFILES
    assert got.hidden_profiles == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 14)] * 3), max_size=40))
def test_listing_order(groups: list[tuple[int, int, int]]) -> None:
    """Most DiSCO people first, then most right, ties in profile order; a profile of
    fewer than MIN_GROUP people is counted as hidden when it has DiSCO people."""
    people, disco, right = (np.array([g[i] for g in groups], dtype=float) for i in range(3))
    zeros = np.zeros(len(groups))
    listed, hidden = _listed(_Sums(people, zeros, right, disco, zeros))
    shown = [i for i, g in enumerate(groups) if g[0] >= MIN_GROUP and g[1] > 0]
    assert listed == sorted(shown, key=lambda i: (-groups[i][1], -groups[i][2]))[:TOP_PROFILES]
    assert hidden == sum(1 for g in groups if g[0] < MIN_GROUP and g[1] > 0)
