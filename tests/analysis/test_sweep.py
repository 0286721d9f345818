from __future__ import annotations

import itertools
import json

import polars as pl
import pytest

import kpr
from kpr.analysis import AttackRate, contributions, sweep
from kpr.errors import InputError

from ._data import tables

CANDIDATES = ["age", "sex", "region", "height", "kids"]


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame]:
    return tables()


@pytest.fixture(scope="module")
def result(data: tuple[pl.DataFrame, pl.DataFrame]) -> kpr.analysis.SweepResult:
    original, avatars = data
    return sweep(original, avatars, CANDIDATES, max_known=3)


def test_every_subset_is_evaluated_once(result: kpr.analysis.SweepResult) -> None:
    # every subset of up to 3, and the full attack with all 5 candidates
    assert len(result.entries) == 5 + 10 + 10 + 1
    assert len({frozenset(e.known) for e in result.entries}) == 26
    assert max(len(e.known) for e in result.entries) == 5


def test_each_entry_equals_a_direct_evaluate(
    data: tuple[pl.DataFrame, pl.DataFrame], result: kpr.analysis.SweepResult
) -> None:
    original, avatars = data
    for entry in result.entries:
        direct = kpr.evaluate(original, avatars, known=list(entry.known))
        assert (entry.rate, entry.linked, entry.unique_originals, entry.n) == (
            direct.rate, direct.linked, direct.unique_originals, direct.n,
        )  # fmt: skip


def test_ranking_is_riskiest_first_with_deterministic_ties(
    result: kpr.analysis.SweepResult,
) -> None:
    keys = [(e.rate, len(e.known), e.known) for e in result.entries]
    assert keys == sorted(keys)
    assert result.entries[0].rate == min(e.rate for e in result.entries)


def test_ties_are_broken_by_size_then_names() -> None:
    original = pl.DataFrame({"a": ["x", "y"], "b": ["p", "q"], "c": ["u", "v"]})
    avatars = pl.DataFrame({"a": ["z"], "b": ["z"], "c": ["z"]})  # nobody is linked
    entries = sweep(original, avatars, ["c", "b", "a"], max_known=2).entries
    assert [e.known for e in entries] == [
        ("a",), ("b",), ("c",), ("b", "a"), ("c", "a"), ("c", "b"), ("c", "b", "a"),
    ]  # fmt: skip
    assert {e.rate for e in entries} == {100.0}


def test_contributions_on_a_hand_made_example() -> None:
    rates = {
        frozenset({"a"}): 90.0,
        frozenset({"b"}): 100.0,
        frozenset({"c"}): 95.0,
        frozenset({"a", "b"}): 80.0,
        frozenset({"a", "c"}): 85.0,
        frozenset({"b", "c"}): 95.0,
    }
    got = {c.variable: c for c in contributions(rates, ["a", "b", "c"], 2)}
    # a: (100-90) + (KPR(b)-KPR(ab) = 20) + (KPR(c)-KPR(ac) = 10) -> 40 / 3
    assert got["a"].mean_decrease == pytest.approx(40 / 3)
    # b: (100-100) + (90-80) + (95-95) -> 10 / 3
    assert got["b"].mean_decrease == pytest.approx(10 / 3)
    # c: (100-95) + (90-85) + (100-95) -> 15 / 3
    assert got["c"].mean_decrease == pytest.approx(5.0)
    assert all(c.subsets == 3 for c in got.values())
    assert [c.variable for c in contributions(rates, ["a", "b", "c"], 2)] == ["a", "c", "b"]


def test_contributions_of_the_sweep_match_their_definition(
    result: kpr.analysis.SweepResult,
) -> None:
    rate = {frozenset(e.known): e.rate for e in result.entries}
    for c in result.contributions:
        others = [v for v in CANDIDATES if v != c.variable]
        diffs = [
            (100.0 if not s else rate[frozenset(s)]) - rate[frozenset((*s, c.variable))]
            for k in range(3)
            for s in itertools.combinations(others, k)
        ]
        assert c.subsets == len(diffs) == 1 + 4 + 6
        assert c.mean_decrease == pytest.approx(sum(diffs) / len(diffs))


def test_rate_of_finds_a_subset_in_any_order(result: kpr.analysis.SweepResult) -> None:
    entry = result.rate_of(["sex", "age"])
    assert isinstance(entry, AttackRate) and set(entry.known) == {"age", "sex"}
    with pytest.raises(KeyError):
        result.rate_of(["nope"])


def test_to_dict_is_json(result: kpr.analysis.SweepResult) -> None:
    d = json.loads(result.to_json())
    assert d["attacks"] == 26 and len(d["entries"]) == 26
    first = d["entries"][0]
    assert set(first) >= {"known", "kpr", "interval", "linked", "unique_originals", "n"}
    assert first["interval"]["low"] <= first["kpr"] <= first["interval"]["high"]
    assert {c["variable"] for c in d["contributions"]} == set(CANDIDATES)


def test_progress_names_each_subset(data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    calls: list[tuple[int, int, str]] = []
    sweep(*data, ["age", "sex"], max_known=2, progress=lambda *a: calls.append(a))
    counts = [c[0] for c in calls]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == 3
    assert {c[1] for c in calls} == {3}
    assert {"age", "sex", "age, sex"} <= {c[2] for c in calls}


def test_window_method_sweep(data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    original, avatars = data
    result = sweep(original, avatars, ["age", "sex", "height"], max_known=2, method="window")
    for entry in result.entries:
        direct = kpr.analysis.window_attack(original, avatars, list(entry.known))
        assert entry.linked == direct.linked and entry.method == "window"


@pytest.mark.parametrize(
    ("candidates", "max_known", "message"),
    [
        ([], 1, "candidates is empty"),
        (["age"], 0, "max_known must be between 1 and the number of candidates"),
        (["age", "sex"], 3, "max_known must be between 1 and the number of candidates (2)"),
        (["age", "age"], 1, "twice"),
        (["agee", "sex"], 1, "did you mean 'age'"),
    ],
)
def test_errors_are_one_clear_line(
    data: tuple[pl.DataFrame, pl.DataFrame], candidates: list[str], max_known: int, message: str
) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as exc:
        sweep(*data, candidates, max_known=max_known)
    assert "\n" not in str(exc.value)


def test_the_progress_callback_type_has_one_name() -> None:
    """``kpr.analysis`` names the progress callback's type by its one name,
    ``kpr.progress.Progress``: no alias of it (``SweepProgress`` was one)."""
    import kpr.analysis
    import kpr.analysis.sweep
    from kpr.progress import Progress

    modules = (kpr.analysis, kpr.analysis.sweep)
    aliases = [n for m in modules for n, v in vars(m).items() if v is Progress and n != "Progress"]
    assert aliases == []
    assert not hasattr(kpr.analysis, "SweepProgress")
