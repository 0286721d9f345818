"""What protect says is what holds (issue 34, item 5): no interval around the
optimised rate, "for the attacks given", the net change of a cell, the candidates
tried, and the same attack before and after in every row."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

import kpr
from kpr.render.protect import comparison, protect_text, render_protect
from kpr.results.evaluation import format_rate
from kpr.results.protect import ProtectResult
from tests.protection.test_protect import KNOWN, tables


def _protected(**more: object) -> ProtectResult:
    original, avatars = tables(n=600, seed=21)
    _, result = kpr.protect(original, avatars, distances=False, utility=False, **more)  # type: ignore[arg-type]
    return result


def test_each_row_is_one_named_attack_before_and_after() -> None:
    # a case where the worst attack before is not the worst after (under the class rule)
    result = _protected(
        candidates=["age", "sex", "region"], max_known=2, target=98, seed=1, rule="class"
    )
    assert result.met and result.worst_before.known != result.worst_after.known
    by_name = {a.name: a for a in result.attacks}
    rows = [r for r in comparison(result) if r[0].startswith(("KPR, ", "linked individuals, "))]
    assert len(rows) == 4  # the worst after and the worst before, each before and after
    for label, before, after in rows:
        name = re.sub(r"^(KPR|linked individuals), | \(worst (after|before)\)$", "", label)
        a = by_name[name]
        if label.startswith("KPR"):
            assert before.startswith(format_rate(a.before.rate) + " (95 % interval")
            assert after == format_rate(a.after.rate)  # no interval: optimised
        else:
            assert (before, after) == (f"{a.before.linked:,}", f"{a.after.linked:,}")
    html = render_protect(result)
    assert f"KPR, {result.worst_before.name} (worst before)" in html
    assert "no sampling interval" in protect_text(result)


def test_for_the_attacks_given() -> None:
    result = _protected(known=KNOWN, target=95)
    assert "for the attacks given, no individual was newly linked" in result.meaning
    assert "for the attacks given, no individual was newly linked" in protect_text(result)


def test_the_printed_bound_is_the_largest_net_change_of_a_cell() -> None:
    result = _protected(known=KNOWN, target=97)
    changes = result.changes
    assert changes is not None
    for name in ("age", "height"):
        cells = changes.filter(pl.col("column") == name)
        net = (cells["new"].cast(pl.Float64) - cells["old"].cast(pl.Float64)).abs().max()
        assert result.largest_change[name] == net
        assert (
            f"{name}: {len(cells):,} cell(s) changed; largest net change of a cell {net:.6g}"
            in (protect_text(result))
        )
    assert result.to_dict()["cost"]["largest_net_change"] == result.largest_change


def test_an_unreached_target_says_how_many_candidates_were_tried(tmp_path: Path) -> None:
    result = _protected(known=["age", "sex", "region"], target=100, moves="shift")
    assert not result.met and result.tried > 0
    assert f"none found among the {result.tried:,} candidates tried" in result.meaning
    assert "no admissible move" not in result.meaning
    assert result.to_dict()["candidates_tried"] == result.tried
    none = _protected(known=KNOWN, target=99.9, keep=["age", "height"], moves="shift")
    assert not none.met and none.tried == 0
    assert "no candidate could be made" in none.meaning


def test_no_excess_risk_verdict_after_protection() -> None:
    """Protect lowers the original's links and never looks at the control: the
    comparison after it is no test of the synthesis, so it draws no "no excess risk"
    conclusion; the one before keeps its verdict (issue 38, item 8)."""
    original, avatars = tables(n=1200, seed=21)
    _, result = kpr.protect(
        original[:600], avatars[:600], known=KNOWN, target=97, control=original[600:],
        distances=False, utility=False,
    )  # fmt: skip
    before, after = result.control_before, result.control_after
    assert before is not None and after is not None
    assert not before.protected and after.protected
    assert "excess risk" in before.explanation and "no test of the synthesis" not in before.verdict
    assert "no excess risk detected" not in after.explanation
    assert "no test of the synthesis" in after.explanation
    dumped = result.to_dict()["control_after"]["explanation"]
    assert "no excess risk detected" not in dumped and "never considered the control" in dumped
