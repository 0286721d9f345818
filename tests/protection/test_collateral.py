"""Protection under rules it does not hold (issue 34, item 4): every given attack
under the window rule, the class rule at tolerances 0.04 and 0.06 and on grids moved
by a quarter, half and three quarters of the width, before and after, with the
individuals newly linked, against the slow references of tests/reference.py; the
subsets of the known variables no attack names, under the class and window rules;
shown in text, JSON and HTML, always."""

from __future__ import annotations

import json
from itertools import islice

import polars as pl
import pytest

import kpr
from kpr.protection import collateral as collateral_module
from kpr.protection.collateral import untested_subsets
from kpr.render.protect import protect_text, render_protect, untested_rows
from kpr.results.evaluation import format_rate
from kpr.results.protect import MAX_SUBSETS, Collateral
from tests.protection.test_protect import KNOWN, NUMERIC, tables
from tests.reference import reference_kpr, reference_window
from tests.test_schema import validate


def _linked(original: pl.DataFrame, avatars: pl.DataFrame, known: list[str], rule: str,
            tolerance: float, offset: float = 0.0) -> set[int]:  # fmt: skip
    o, a, numeric = original.to_dicts(), avatars.to_dicts(), NUMERIC & set(known)
    if rule == "window":
        return reference_window(o, a, known, numeric, tolerance)
    return set(reference_kpr(o, a, known, numeric, tolerance, offset=offset).pairs)


def _matches_the_references(
    c: Collateral, original: pl.DataFrame, avatars: pl.DataFrame, protected: pl.DataFrame
) -> None:
    before = _linked(original, avatars, list(c.known), c.rule, c.tolerance, c.offset)
    after = _linked(original, protected, list(c.known), c.rule, c.tolerance, c.offset)
    assert (c.before.linked, c.after.linked) == (len(before), len(after)), c
    assert c.newly_linked == len(after - before), c


def test_every_attack_under_every_rule_matches_the_references() -> None:
    original, avatars = tables(n=400, seed=21)
    protected, result = kpr.protect(
        original, avatars, candidates=["age", "height", "sex"], max_known=2, target=97,
        rule="class", distances=False, utility=False,
    )  # fmt: skip
    assert result.met and result.cells_total
    assert len(result.collateral) == 6 * len(result.attacks)
    seen = set()
    for c in result.collateral:
        _matches_the_references(c, original, avatars, protected)
        seen.add((c.rule, c.tolerance, c.offset))
    assert seen == {
        ("window", 0.05, 0), ("class", 0.04, 0), ("class", 0.06, 0),
        ("class", 0.05, 0.25), ("class", 0.05, 0.5), ("class", 0.05, 0.75),
    }  # fmt: skip
    assert any(c.newly_linked for c in result.collateral)  # measured, not guaranteed
    assert any(c.newly_linked for c in result.collateral if c.offset)
    # every subset of the candidates is an attack given (pairs, then all three)
    assert result.untested.subsets == 0 and not result.untested.rows


def test_the_untested_subsets_match_the_references() -> None:
    original, avatars = tables(n=300, seed=5)
    protected, result = kpr.protect(
        original, avatars, ["age", "height", "region"], target=97, distances=False,
        utility=False,
    )  # fmt: skip
    u = result.untested
    assert result.met and u.subsets == 6 and u.skipped is None and len(u.rows) == 12
    assert [c.rule for c in u.rows] == ["class", "window"] * 6
    assert [c.known for c in u.rows[::2]] == [
        ("age",), ("height",), ("region",), ("age", "height"), ("age", "region"),
        ("height", "region"),
    ]  # fmt: skip
    for c in u.rows:
        _matches_the_references(c, original, avatars, protected)
    assert any(c.newly_linked for c in u.rows)  # measured, not guaranteed


def test_subsets_in_order_counted_whatever_their_number() -> None:
    count, subsets = untested_subsets([("b", "a"), ("c",)])
    assert count == 5
    assert list(subsets) == [("a",), ("b",), ("a", "c"), ("b", "c"), ("a", "b", "c")]
    names = [f"v{i:02d}" for i in range(40)]
    count, subsets = untested_subsets([names])
    assert count == 2**40 - 2  # counted, not listed
    first = list(islice(subsets, MAX_SUBSETS))
    assert first[:2] == [("v00",), ("v01",)] and first[40] == ("v00", "v01")


def test_large_tables_skip_the_subsets_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above SUBSET_ROWS rows (lowered here) the subsets are skipped with a sentence;
    ``collateral=True`` measures them, at most MAX_SUBSETS (lowered here)."""
    monkeypatch.setattr(collateral_module, "SUBSET_ROWS", 100)
    monkeypatch.setattr(collateral_module, "MAX_SUBSETS", 2)
    original, avatars = tables(n=200, seed=1)
    known = ["age", "height", "sex"]
    _, skipped = kpr.protect(original, avatars, known, target=90, distances=False, utility=False)
    assert skipped.untested.subsets == 6 and not skipped.untested.rows
    assert skipped.untested.sentence == skipped.untested.skipped
    assert "were not measured: a table has more than 100 rows" in skipped.untested.sentence
    assert skipped.untested.sentence in protect_text(skipped)
    _, forced = kpr.protect(
        original, avatars, known, target=90, distances=False, utility=False, collateral=True
    )
    assert forced.untested.measured == 2 and forced.untested.skipped is None
    assert "the first 2 by size, then name, measured (no sampling)" in forced.untested.sentence
    assert forced.collateral == skipped.collateral  # the given attacks: always


def test_shown_in_text_json_and_html() -> None:
    original, avatars = tables(n=300, seed=3)
    _, result = kpr.protect(
        original, avatars, KNOWN, target=95, rule="class", distances=False, utility=False
    )
    text = protect_text(result)
    assert "Under rules protect does not hold, for the attacks given:" in text
    for c in result.collateral:
        line = next(x for x in text.splitlines() if x.strip().startswith(c.name))
        rates = f"{format_rate(c.before.rate)} → {format_rate(c.after.rate)}"
        assert rates in line and line.endswith(f"newly linked {c.newly_linked:,}"), line
    assert "class rule, tolerance 0.05, grid moved ½ width" in text
    assert "Subsets of the known variables not among the attacks given:" in text
    assert result.untested.sentence in text
    for rule, attack, rates, newly in untested_rows(result):
        line = next(x for x in text.splitlines() if x.strip().startswith(rule) and attack in x)
        assert rates in line and line.endswith(f"newly linked {newly}")
    data = json.loads(result.to_json())
    validate("protect", data)
    assert [d["rule"] for d in data["collateral"]] == ["window", "class", "class"] + ["class"] * 3
    assert [d["grid_offset"] for d in data["collateral"]] == [0, 0, 0, 0.25, 0.5, 0.75]
    untested = data["untested_subsets"]
    assert untested["subsets"] == 2**4 - 2 and untested["measured"] == 14
    assert len(untested["rows"]) == 28 and untested["note"] == result.untested.sentence
    html = render_protect(result)
    assert "Under rules protect does not hold" in html and "window rule, tolerance 0.05" in html
    assert "grid moved ¾ width" in html and html.count("<tr><td><b>") >= 28  # a row per subset


def test_shown_when_nothing_changed() -> None:
    original, avatars = tables(n=200, seed=1)
    _, result = kpr.protect(original, avatars, ["age"], target=1, distances=False, utility=False)
    assert result.already_met and len(result.collateral) == 6
    assert all(c.before == c.after and c.newly_linked == 0 for c in result.collateral)
    assert result.untested.subsets == 0 and "Every subset" in result.untested.sentence


def test_collateral_is_true_or_false() -> None:
    original, avatars = tables(n=50, seed=1)
    with pytest.raises(kpr.InputError, match="collateral= must be True or False, got 'yes'"):
        kpr.protect(original, avatars, ["age"], collateral="yes")  # type: ignore[arg-type]


def test_newly_linked_lists_rows_only_when_both_sides_link() -> None:
    """The shortcut of ``newly_linked`` (a side linking nobody) equals the rows compared."""
    from kpr.protection.collateral import linked_rows, newly_linked
    from tests.conftest import worked_example

    original, avatars = worked_example()
    doubled = pl.concat([original, original])  # every profile held twice: nobody linked
    known = ["age", "sex"]
    linking, nobody = kpr.evaluate(original, avatars, known), kpr.evaluate(original, doubled, known)
    assert (linking.counts.linked, nobody.counts.linked) == (2, 0)
    for before, after in [(nobody, linking), (linking, nobody), (linking, linking)]:
        listed = len(linked_rows(after) - linked_rows(before))
        assert newly_linked(before, after) == listed
    assert newly_linked(nobody, linking) == 2 and newly_linked(linking, linking) == 0
