"""Protection under rules it does not hold (issue 34, item 4): every given attack
under the window rule and the class rule at tolerances 0.04 and 0.06, before and
after, with the individuals newly linked, against the slow references of
tests/reference.py; shown in text, JSON and HTML, always."""

from __future__ import annotations

import json

import polars as pl

import kpr
from kpr.render.protect import protect_text, render_protect
from kpr.results.evaluation import format_rate
from tests.protect.test_protect import KNOWN, NUMERIC, tables
from tests.reference import reference_kpr, reference_window
from tests.test_schema import validate


def _linked(original: pl.DataFrame, avatars: pl.DataFrame, known: list[str], rule: str,
            tolerance: float) -> set[int]:  # fmt: skip
    o, a, numeric = original.to_dicts(), avatars.to_dicts(), NUMERIC & set(known)
    if rule == "window":
        return reference_window(o, a, known, numeric, tolerance)
    return set(reference_kpr(o, a, known, numeric, tolerance).pairs)


def test_every_attack_under_every_rule_matches_the_references() -> None:
    original, avatars = tables(n=400, seed=21)
    protected, result = kpr.protect(
        original, avatars, candidates=["age", "height", "sex"], max_known=2, target=97,
        distances=False, utility=False,
    )  # fmt: skip
    assert result.met and result.cells_total
    assert len(result.collateral) == 3 * len(result.attacks)
    seen = set()
    for c in result.collateral:
        before = _linked(original, avatars, list(c.known), c.rule, c.tolerance)
        after = _linked(original, protected, list(c.known), c.rule, c.tolerance)
        assert (c.before.linked, c.after.linked) == (len(before), len(after)), c
        assert c.newly_linked == len(after - before), c
        seen.add((c.rule, c.tolerance))
    assert seen == {("window", 0.05), ("class", 0.04), ("class", 0.06)}
    assert any(c.newly_linked for c in result.collateral)  # measured, not guaranteed


def test_shown_in_text_json_and_html() -> None:
    original, avatars = tables(n=300, seed=3)
    _, result = kpr.protect(original, avatars, KNOWN, target=95, distances=False, utility=False)
    text = protect_text(result)
    assert "Under rules protect does not hold, for the attacks given:" in text
    for c in result.collateral:
        line = next(x for x in text.splitlines() if x.strip().startswith(c.name))
        rates = f"{format_rate(c.before.rate)} → {format_rate(c.after.rate)}"
        assert rates in line and line.endswith(f"newly linked {c.newly_linked:,}"), line
    data = json.loads(result.to_json())
    validate("protect", data)
    assert [d["rule"] for d in data["collateral"]] == ["window", "class", "class"]
    html = render_protect(result)
    assert "Under rules protect does not hold" in html and "window rule, tolerance 0.05" in html


def test_shown_when_nothing_changed() -> None:
    original, avatars = tables(n=200, seed=1)
    _, result = kpr.protect(original, avatars, ["age"], target=1, distances=False, utility=False)
    assert result.already_met and len(result.collateral) == 3
    assert all(c.before == c.after and c.newly_linked == 0 for c in result.collateral)
