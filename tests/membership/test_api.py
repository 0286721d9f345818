"""``kpr.membership``: the profiles it counts equal a brute-force count
(``tests/reference.py``), its figures are those of the counts, whatever the order of
the rows, and bad input is one clear line."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kpr
from kpr.analysis.members import count_profiles
from kpr.metric.membership import ProfileCounts, measure
from tests.reference import numeric_variables, reference_triples
from tests.strategies import NUMERIC, SCHEMA, rows


def triples(counts: ProfileCounts) -> Counter[tuple[int, int, int]]:
    return Counter(
        {
            (o, a, h): k
            for o, a, h, k in zip(
                counts.original.tolist(), counts.avatars.tolist(), counts.holdout.tolist(),
                counts.profiles.tolist(), strict=True,
            )
        }
    )  # fmt: skip


def frame(records: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(records, schema=SCHEMA)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[dict[str, Any]], ...]:
    original = draw(rows((8, 30), outliers=False))
    avatars = draw(st.lists(st.sampled_from(original), max_size=15)) + draw(
        rows((0, 10), outliers=True)
    )
    holdout = draw(rows((2, 16), outliers=True))
    return original, draw(st.permutations(avatars)), holdout


def _counted(original: list[Any], avatars: list[Any], holdout: list[Any], known: list[str]) -> Any:
    try:
        return count_profiles(frame(original), frame(avatars), frame(holdout), known)
    except kpr.InputError as exc:  # a holdout made of original rows: refused, see below
        assume("holdout" not in str(exc) and "fewer than" not in str(exc))
        raise


@settings(max_examples=40)
@given(tables(), st.lists(st.sampled_from(list(SCHEMA)), min_size=1, max_size=4, unique=True))
def test_the_profiles_counted_equal_the_brute_force(
    data: tuple[list[dict[str, Any]], ...], known: list[str]
) -> None:
    original, avatars, holdout = data
    got = _counted(original, avatars, holdout, known)
    numeric = numeric_variables(original, NUMERIC & set(known))
    assert triples(got.counts) == reference_triples(original, avatars, holdout, known, numeric)


@settings(max_examples=20)
@given(tables(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_the_order_of_the_rows_changes_nothing(
    data: tuple[list[dict[str, Any]], ...], rnd: Any, seed: int
) -> None:
    original, avatars, holdout = data
    _counted(original, avatars, holdout, list(SCHEMA))  # assumes a usable holdout
    shuffled = [list(t) for t in data]
    for t in shuffled:
        rnd.shuffle(t)
    a = kpr.membership(frame(original), frame(avatars), holdout=frame(holdout), seed=seed,
                       replicates=50)  # fmt: skip
    b = kpr.membership(*(frame(t) for t in shuffled[:2]), holdout=frame(shuffled[2]), seed=seed,
                       replicates=50)  # fmt: skip
    assert a.to_dict() == b.to_dict()


def test_the_figures_are_those_of_the_counts(demo_folder: Any) -> None:
    paths = [str(demo_folder / f"{n}.csv") for n in ("original", "avatars", "holdout")]
    known = ["age", "sex", "race", "education"]
    result = kpr.membership(*paths[:2], holdout=paths[2], known=known, seed=5, replicates=200)
    counted = count_profiles(*paths, known)
    figures = measure(counted.counts, 5, 200)
    assert result.auc == figures.auc and result.figures.tpr == figures.tpr
    assert result.figures.intervals == figures.intervals
    assert (result.n_original, result.n_avatars, result.n_holdout) == (24_000, 24_000, 8_561)
    assert (result.reference_size, result.non_members, result.members) == (4_281, 4_280, 4_280)
    assert result.resolution == 1 / 4_280
    assert all(p.tpr is not None for p in result.tpr)  # 4,280 non-members: 0.1 % is 4.3
    table = result.score_table()
    assert table["members"].sum() == table["non_members"].sum() == 4_280
    assert table["score"].is_sorted(descending=True) and table["score"].n_unique() == len(table)


def test_a_published_original_is_told_apart() -> None:
    people = pl.DataFrame(
        {"age": [20 + i % 60 for i in range(3000)], "town": [f"t{i % 7}" for i in range(3000)],
         "id": [f"p{i}" for i in range(3000)], "country": ["FR"] * 3000}
    )  # fmt: skip
    original, holdout = people[:2000], people[2000:]
    result = kpr.membership(original, original, holdout=holdout, replicates=100)
    # every member's profile (an id) is an avatar's, no non-member's: separated
    assert result.auc == 1.0 and [p.tpr for p in result.tpr] == [1.0, None]
    assert result.member_share_in_avatars == 1.0 and result.non_member_share_in_avatars == 0.0
    reason = result.tpr[1].reason
    assert reason is not None and "500 non-members" in reason and "2,000 rows" in reason
    same = kpr.membership(original, original, holdout=holdout, known=["country"], replicates=100)
    # one profile for everybody: one tie, crossed as a straight line (a guess)
    assert same.auc == 0.5 and same.tpr[0].tpr == pytest.approx(0.01)


def test_the_seed_draws_the_sets() -> None:
    people = pl.DataFrame({"age": [20 + (i * 7) % 61 for i in range(600)],
                           "town": [f"t{i % 11}" for i in range(600)]})  # fmt: skip
    original, holdout = people[:400], people[400:]
    runs = [kpr.membership(original, original, holdout=holdout, seed=s, replicates=20)
            for s in (0, 0, 1)]  # fmt: skip
    assert runs[0].to_dict() == runs[1].to_dict()
    assert runs[0].to_dict()["scores"] != runs[2].to_dict()["scores"]


@pytest.mark.parametrize(
    ("holdout", "match"),
    [
        (lambda h, o: h.drop("town"), "holdout: no column 'town'"),
        (lambda h, o: h.with_columns(pl.col("age").cast(str) + "x"), "text in holdout"),
        (lambda h, o: h[:0], "the holdout has 0 rows"),
        (lambda h, o: h[:1], "the holdout has 1 row:"),
        (lambda h, o: o, "holds exactly the original's rows"),
        (lambda h, o: o[:50], r"every row of the holdout \(50\) equals a row of the original"),
        (lambda h, o: pl.concat([h] * 10), "fewer than the 500 non-members"),
    ],
)
def test_bad_holdouts_are_one_line(holdout: Any, match: str) -> None:
    people = pl.DataFrame({"age": [20 + i % 60 for i in range(300)],
                           "town": [f"t{i % 7}" for i in range(300)]})  # fmt: skip
    original = people[:200]
    with pytest.raises(kpr.InputError, match=match) as info:
        kpr.membership(original, original, holdout=holdout(people[200:], original))
    assert "\n" not in str(info.value)


def test_bad_parameters_are_one_line() -> None:
    t = pl.DataFrame({"a": [1, 2, 3, 4]})
    for kwargs, match in (
        ({"holdout": None}, "give a holdout"),
        ({"holdout": t, "seed": -1}, "seed must be an integer >= 0"),
        ({"holdout": t, "replicates": 0}, "replicates must be an integer >= 1"),
        ({"holdout": t, "known": []}, "known= lists no column"),
        ({"holdout": t, "known": ["b"]}, "no column 'b'"),
    ):
        with pytest.raises(kpr.InputError, match=match):
            kpr.membership(t, t, **kwargs)


def test_shared_rows_are_a_warning_with_their_count() -> None:
    people = pl.DataFrame({"age": [20 + i % 60 for i in range(300)],
                           "town": [f"t{i % 7}" for i in range(300)]})  # fmt: skip
    original = people[:200]
    holdout = pl.concat([people[200:], original[:4]])
    result = kpr.membership(original, original, holdout=holdout, replicates=20)
    assert result.shared_rows == 4
    (warning,) = result.warnings
    assert warning.code == "holdout-shares-rows"  # type: ignore[attr-defined]
    assert warning.startswith("4 holdout rows (3.8 %) equal a row of the original")


def test_names_with_spaces_unicode_and_empty_columns() -> None:
    n = 400
    people = pl.DataFrame(
        {
            "âge du patient": [20 + i % 61 for i in range(n)],
            "ville, code": [f"v{i % 9}" for i in range(n)],
            "vide": pl.Series([None] * n, dtype=pl.Float64),
        }
    )
    original, holdout = people[:300], people[300:]
    result = kpr.membership(original, original, holdout=holdout, replicates=20)
    assert result.columns == ("âge du patient", "ville, code", "vide")
    plain = kpr.membership(original.drop("vide"), original.drop("vide"),
                           holdout=holdout.drop("vide"), replicates=20)  # fmt: skip
    assert plain.auc == result.auc  # an all-missing column is one class: it changes nothing
    assert math.isfinite(result.auc_interval[0])


def test_the_result_writes_json_and_html(tmp_path: Any) -> None:
    people = pl.DataFrame({"age": [20 + i % 60 for i in range(300)],
                           "town": ["<b>&'t" + str(i % 7) for i in range(300)]})  # fmt: skip
    original = people[:200]
    result = kpr.membership(original, original, holdout=people[200:], replicates=20)
    assert result.to_json().startswith("{")
    page = result.to_html()
    assert "<b>&'t" not in page and "town" in page and "<svg" in page
    assert f'data-kpr-auc="{result.auc!r}"' in page
    written = result.to_html(tmp_path / "m.html")
    assert written.read_text(encoding="utf-8").count("<svg") == 1
    assert "AUC" in result._repr_html_()


def test_empty_original_is_refused_and_empty_avatars_measured() -> None:
    people = pl.DataFrame({"age": [20 + i % 60 for i in range(300)],
                           "town": [f"t{i % 7}" for i in range(300)]})  # fmt: skip
    original, holdout = people[:200], people[200:]
    with pytest.raises(kpr.InputError, match="the original table has no rows"):
        kpr.membership(original[:0], original, holdout=holdout)
    none = kpr.membership(original, original[:0], holdout=holdout, replicates=20)
    assert none.n_avatars == 0 and none.member_share_in_avatars == 0.0
    assert none.to_dict()["in_avatars"]["non_members"] == 0
