"""kpr.protect: every invariant of the spec's "Protecting a release", checked
against a fresh kpr.evaluate and against the slow reference (tests/reference.py)."""

from __future__ import annotations

import io
import random
from collections import Counter
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from tests.reference import reference_kpr

KNOWN = ["age", "height", "sex", "region"]
NUMERIC = {"age", "height"}


def tables(n: int = 800, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Originals and noisy avatars (integers and quarters: exact sums), with an
    extra column that is not known."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        rows.append({
            "age": rng.randint(18, 90), "height": rng.randint(600, 800) / 4,
            "sex": rng.choice("FM"), "region": rng.choice("abcdefgh"),
            "note": rng.choice(["x", "y", None]),
        })  # fmt: skip
    original = pl.DataFrame(rows)
    avatars = original.with_columns(
        (pl.col("age") + pl.Series([rng.randint(-2, 2) for _ in range(n)])).alias("age"),
        (pl.col("height") + pl.Series([rng.randint(-8, 8) / 4 for _ in range(n)])).alias("height"),
    ).sample(fraction=1.0, shuffle=True, seed=seed)
    return original, avatars


def reference(original: pl.DataFrame, avatars: pl.DataFrame, known: list[str]) -> Any:
    return reference_kpr(original.to_dicts(), avatars.to_dicts(), known, NUMERIC & set(known))


def test_reaches_the_target_verified_by_evaluate_and_the_reference() -> None:
    original, avatars = tables()
    before = reference(original, avatars, KNOWN)
    assert before.kpr < 60  # a table far from the target
    protected, result = kpr.protect(original, avatars, KNOWN, target=95.0, distances=False)
    after = reference(original, protected, KNOWN)
    assert result.met and not result.already_met
    assert after.kpr >= 95.0
    assert kpr.evaluate(original, protected, KNOWN).rate == after.kpr
    assert result.worst_after.after.rate == after.kpr
    assert set(after.pairs) <= set(before.pairs)  # nobody newly linked
    # a link that stays keeps its avatar
    assert all(before.pairs[i] == j for i, j in after.pairs.items())
    assert protected.columns == avatars.columns and protected.schema == avatars.schema
    assert protected.height == avatars.height
    assert protected["note"].equals(avatars["note"])  # only known variables change
    assert result.cells_total == sum(result.cells_changed.values()) > 0
    assert result.shift_bounds.keys() == {"age", "height"}


def test_swap_keeps_every_columns_value_counts() -> None:
    original, avatars = tables(seed=1)
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=90.0, moves=["swap"], distances=False
    )
    assert result.met and result.moves_used.keys() == {"swap"}
    for name in avatars.columns:
        assert Counter(protected[name].to_list()) == Counter(avatars[name].to_list()), name


def test_shift_stays_within_one_class_width() -> None:
    original, avatars = tables(seed=2)
    _, result = kpr.protect(
        original, avatars, KNOWN, target=90.0, moves="shift", rule="class", distances=False
    )
    assert result.met and result.changes is not None
    log = result.changes
    assert set(log["move"]) == {"shift"} and len(log) == result.cells_total
    for name, bound in result.shift_bounds.items():
        rows = log.filter(pl.col("column") == name)
        change = (rows["new"].cast(pl.Float64) - rows["old"].cast(pl.Float64)).abs()
        assert (change <= bound).all() and (change > 0).all()
        assert (rows["old_class"] != rows["new_class"]).all()


def test_correct_links_do_not_rise_with_a_pairing() -> None:
    original, _ = tables(seed=3)
    rng = np.random.default_rng(3)
    order = rng.permutation(original.height)
    avatars = original[order].with_columns(pl.col("age") + 1)  # avatars of known individuals
    pairing = np.argsort(order)  # pairing[i]: the avatar row of original row i
    r0 = kpr.evaluate(original, avatars, KNOWN, pairing=pairing)
    assert r0.correct_links and r0.correct_links > 10
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=97.0, pairing=pairing, distances=False
    )
    r1 = kpr.evaluate(original, protected, KNOWN, pairing=pairing)
    assert result.met and r1.rate >= 97.0
    assert r1.correct_links is not None and r1.correct_links <= r0.correct_links
    assert result.attacks[0].correct_after == r1.correct_links


def test_same_seed_same_bytes_other_seed_other_changes() -> None:
    original, avatars = tables(seed=4)

    def run(seed: int) -> bytes:
        protected, _ = kpr.protect(original, avatars, KNOWN, target=90, seed=seed, distances=False)
        buffer = io.BytesIO()
        protected.write_csv(buffer)
        return buffer.getvalue()

    first = run(0)
    assert run(0) == first
    assert run(1) != first


def test_target_already_met_changes_nothing() -> None:
    original, avatars = tables(seed=5)
    rate = kpr.evaluate(original, avatars, KNOWN).rate
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=rate, rule="class", distances=False
    )
    assert result.already_met and result.met and result.cells_total == 0
    assert "nothing was changed" in result.meaning
    assert protected.equals(avatars)


def test_unreachable_target_says_what_was_reached() -> None:
    original = pl.DataFrame({"sex": list("FMFMF"), "region": list("aabbc")})
    avatars = original.reverse()
    known = ["sex", "region"]  # categorical only: no value can be shifted
    before = kpr.evaluate(original, avatars, known)
    assert before.linked == 5
    protected, result = kpr.protect(
        original, avatars, known, target=100.0, moves="shift", distances=False
    )
    assert not result.met and result.cells_total == 0 and result.unfixed > 0
    assert result.reason is not None and f"reached {before.rate:.2f} %" in result.reason
    assert "not reached" in result.meaning
    assert result.worst_after.after.rate == before.rate
    assert protected.equals(avatars)


def test_several_attacks_each_reach_the_target() -> None:
    original, avatars = tables(seed=7)
    protected, result = kpr.protect(
        original, avatars, candidates=KNOWN, max_known=2, target=96.0, rule="class", distances=False
    )
    assert len(result.attacks) == 11  # 4 + 6 pairs + the full attack
    assert result.met
    for outcome in result.attacks:
        fresh = reference(original, protected, list(outcome.known))
        assert fresh.kpr == outcome.after.rate >= 96.0
        before = reference(original, avatars, list(outcome.known))
        assert set(fresh.pairs) <= set(before.pairs)
    assert result.worst_after.after.rate == min(a.after.rate for a in result.attacks)


def test_delete_and_suppress_baselines() -> None:
    original, avatars = tables(seed=8)
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=90, moves="delete", rule="class", distances=False
    )
    assert result.met and result.rows_deleted > 0
    assert protected.height == avatars.height - result.rows_deleted
    assert reference(original, protected, KNOWN).kpr >= 90
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=90, moves="suppress", rule="class", distances=False
    )
    assert result.met and protected.height == avatars.height
    blanks = sum(protected[c].null_count() - avatars[c].null_count() for c in KNOWN)
    assert blanks == result.cells_total > 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": 0}, "target must be a percentage in \\(0, 100\\]"),
        ({"target": 100.5}, "target must be a percentage"),
        ({"moves": "swap,teleport"}, "unknown move 'teleport'"),
        ({"moves": "regenerate"}, "'regenerate' needs pairing="),
        ({"known": ["age", "weight"]}, "'weight' is not a column of the avatars"),
    ],
)
def test_bad_input_is_one_line(kwargs: dict[str, Any], match: str) -> None:
    original, avatars = tables(n=50)
    args = {"known": KNOWN, **kwargs}
    with pytest.raises(kpr.InputError, match=match) as info:
        kpr.protect(original, avatars, distances=False, **args)
    assert "\n" not in str(info.value)


row = st.fixed_dictionaries({
    "age": st.integers(20, 40), "height": st.integers(0, 8).map(lambda x: 170 + x / 4),
    "sex": st.sampled_from("FM"), "region": st.sampled_from("abc"),
})  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    st.lists(row, min_size=5, max_size=60),
    st.lists(row, min_size=5, max_size=60),
    st.sampled_from([80.0, 90.0, 99.0]),
    st.sampled_from(["swap,shift", "swap", "shift", "suppress", "delete", "swap,delete"]),
    st.integers(0, 3),
)
def test_property_no_new_link_and_target_met_or_said(
    o_rows: list[dict[str, Any]],
    a_rows: list[dict[str, Any]],
    target: float,
    moves: str,
    seed: int,
) -> None:
    original, avatars = pl.DataFrame(o_rows), pl.DataFrame(a_rows)
    before = reference(original, avatars, KNOWN)
    protected, result = kpr.protect(
        original,
        avatars,
        KNOWN,
        target=target,
        moves=moves,
        seed=seed,
        rule="class",
        distances=False,
    )  # the class rule's property: met exactly when the class rate reaches the target
    after = reference(original, protected, KNOWN)
    assert set(after.pairs) <= set(before.pairs)
    assert all(before.pairs[i] == j for i, j in after.pairs.items()) or "delete" in moves
    assert after.kpr == result.worst_after.after.rate
    assert result.met == (after.kpr >= target)
    if not result.met:
        assert result.reason
    assert protected.schema == avatars.schema
