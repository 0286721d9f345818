"""The ROC figures of the membership attack (``kpr.metric.membership``) against a
brute force over records (``tests/reference.py``): the AUC over every pair and over
every order of ties, the TPR at an FPR over every randomised threshold."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpr.metric import membership as M
from tests.reference import reference_auc, reference_auc_by_orders, reference_tpr_at

#: One profile: (s, r, members, non-members).
profile = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 3), st.integers(0, 3))


def _has_both(profiles: list[tuple[int, int, int, int]]) -> bool:
    return sum(p[2] for p in profiles) > 0 and sum(p[3] for p in profiles) > 0


profiles = st.lists(profile, min_size=1, max_size=8).filter(_has_both)


def _arrays(profiles: list[tuple[int, int, int, int]]) -> list[np.ndarray]:
    return [np.array([p[i] for p in profiles], dtype=np.int64) for i in range(4)]


def _records(profiles: list[tuple[int, int, int, int]]) -> tuple[list[Fraction], list[Fraction]]:
    """One score per record: (s + 1) / (r + 1), which orders records as the score does."""
    pos = [Fraction(s + 1, r + 1) for s, r, k, _ in profiles for _ in range(k)]
    neg = [Fraction(s + 1, r + 1) for s, r, _, k in profiles for _ in range(k)]
    return pos, neg


fprs = st.one_of(
    st.sampled_from(list(M.FPRS)),
    st.tuples(st.integers(0, 12), st.integers(1, 12))
    .filter(lambda t: t[0] <= t[1])
    .map(lambda t: Fraction(*t)),
)


@given(profiles, fprs)
def test_auc_and_tpr_equal_the_brute_force(
    profiles: list[tuple[int, int, int, int]], fpr: Fraction
) -> None:
    lv = M.levels(*_arrays(profiles))
    pos, neg = _records(profiles)
    assert float(M.auc(lv.members, lv.non_members)) == pytest.approx(
        float(reference_auc(pos, neg)), abs=1e-12
    )
    assert float(M.tpr_at(lv.members, lv.non_members, fpr)) == pytest.approx(
        float(reference_tpr_at(pos, neg, fpr)), abs=1e-12
    )


small = profiles.filter(lambda ps: sum(p[2] + p[3] for p in ps) <= 6)  # 720 orders at most


@settings(max_examples=30)
@given(small)
def test_the_auc_is_the_expectation_over_every_order_of_ties(
    profiles: list[tuple[int, int, int, int]],
) -> None:
    pos, neg = _records(profiles)
    exact = reference_auc_by_orders(pos, neg)
    assert exact == reference_auc(pos, neg)
    lv = M.levels(*_arrays(profiles))
    assert float(M.auc(lv.members, lv.non_members)) == pytest.approx(float(exact), abs=1e-12)


@given(profiles, st.randoms(use_true_random=False))
def test_the_order_of_the_profiles_changes_nothing(
    profiles: list[tuple[int, int, int, int]], rnd: object
) -> None:
    shuffled = list(profiles)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a, b = M.levels(*_arrays(profiles)), M.levels(*_arrays(shuffled))
    for field in ("numerator", "denominator", "members", "non_members"):
        assert getattr(a, field).tolist() == getattr(b, field).tolist()


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 3)), min_size=1))
def test_identical_score_sets_give_one_half(profiles: list[tuple[int, int, int]]) -> None:
    s, r, k = (np.array([p[i] for p in profiles]) for i in range(3))
    lv = M.levels(s, r, k, k)
    assert float(M.auc(lv.members, lv.non_members)) == 0.5


@given(profiles)
def test_swapping_members_and_non_members_gives_one_minus_the_auc(
    profiles: list[tuple[int, int, int, int]],
) -> None:
    s, r, pos, neg = _arrays(profiles)
    a = M.levels(s, r, pos, neg)
    b = M.levels(s, r, neg, pos)
    assert float(M.auc(b.members, b.non_members)) == pytest.approx(
        1.0 - float(M.auc(a.members, a.non_members)), abs=1e-12
    )


@given(profiles)
def test_the_tpr_rises_with_the_fpr_from_zero_to_one(
    profiles: list[tuple[int, int, int, int]],
) -> None:
    lv = M.levels(*_arrays(profiles))
    grid = [Fraction(k, 20) for k in range(21)]
    tprs = [float(M.tpr_at(lv.members, lv.non_members, f)) for f in grid]
    assert tprs == sorted(tprs) and tprs[-1] == 1.0 and tprs[0] >= 0.0


def test_a_worked_example() -> None:
    # levels 3/1: 2 members; 1/1 (two profiles): 4 members, 3 non-members; 1/4: 4 non-members
    lv = M.levels(
        np.array([2, 0, 1, 0]), np.array([0, 0, 1, 3]), np.array([2, 3, 1, 0]),
        np.array([0, 1, 2, 4]),
    )  # fmt: skip
    assert lv.numerator.tolist() == [3, 1, 1] and lv.denominator.tolist() == [1, 1, 4]
    assert lv.members.tolist() == [2, 4, 0] and lv.non_members.tolist() == [0, 3, 4]
    # pairs won: 2 x 7 + 4 x 4 + ties 4 x 3 / 2 = 36 of 42
    assert float(M.auc(lv.members, lv.non_members)) == pytest.approx(36 / 42)
    # FPR 1 %: 0.07 of a non-member, on the tie of level 1/1 (3 non-members, 4 members)
    assert float(M.tpr_at(lv.members, lv.non_members, Fraction(1, 100))) == pytest.approx(
        (2 + 0.07 / 3 * 4) / 6
    )
    fpr, tpr = M.roc_curve(lv.members, lv.non_members)
    assert fpr.tolist() == [0, 0, 3 / 7, 1] and tpr.tolist() == [0, 2 / 6, 1, 1]
    scores = lv.scores(m=3, reference_size=4)
    assert scores[0] == pytest.approx(math.log(3 / 4) - math.log(1 / 5))


def test_the_score_is_the_spec_formula() -> None:
    s, r, m, size = np.array([0, 5, 2]), np.array([3, 0, 2]), 10, 7
    lv = M.levels(s, r, np.ones(3, np.int64), np.zeros(3, np.int64))
    expected = sorted(
        (
            math.log((a + 1) / (m + 1)) - math.log((b + 1) / (size + 1))
            for a, b in zip(s, r, strict=True)
        ),
        reverse=True,
    )
    assert lv.scores(m, size).tolist() == pytest.approx(expected, abs=1e-12)


def test_the_draw_splits_the_holdout_and_samples_the_original() -> None:
    # triples (original, avatars, holdout) x profiles; 9 holdout rows: R 5, non-members 4
    counts = M.ProfileCounts.of(
        np.array([5, 0, 3, 10, 1]), np.array([0, 2, 1, 0, 4]), np.array([2, 4, 0, 3, 0]),
        np.array([1, 1, 2, 1, 3]),
    )  # fmt: skip
    first = M.draw(counts, seed=7)
    assert first.non_members.sum() == 4 == first.members.sum()
    assert first.reference.sum() == 5
    # a unit per profile the holdout holds (3), one per other triple (2)
    assert len(first.members) == 5
    assert sorted(zip(first.avatars.tolist(), (first.reference + first.non_members).tolist(),
                      strict=True)) == [(0, 2), (0, 3), (1, 0), (2, 4), (4, 0)]  # fmt: skip
    assert (first.non_members >= 0).all() and (first.reference >= 0).all()
    again = M.draw(counts, seed=7)
    assert first.members.tolist() == again.members.tolist()
    assert first.non_members.tolist() == again.non_members.tolist()
    draws = {tuple(M.draw(counts, seed=s).members) for s in range(20)}
    assert len(draws) > 1  # the seed decides


def test_profile_counts_do_not_depend_on_the_order_of_the_triples() -> None:
    o, a, h, k = (np.array(x) for x in ([1, 0, 1, 2], [0, 1, 0, 0], [1, 1, 1, 0], [2, 1, 3, 1]))
    order = np.array([3, 1, 0, 2])
    first, second = (
        M.ProfileCounts.of(o, a, h, k),
        M.ProfileCounts.of(*(x[order] for x in (o, a, h, k))),
    )
    for field in ("original", "avatars", "holdout", "profiles"):
        assert getattr(first, field).tolist() == getattr(second, field).tolist()
    assert first.profiles.tolist() == [1, 5, 1]  # the two (1, 0, 1) entries merged
    assert first.rows(first.holdout) == 6


def test_an_fpr_below_the_resolution_is_not_available() -> None:
    assert M.available(Fraction(1, 1000), 1000) and not M.available(Fraction(1, 1000), 999)
    assert M.available(Fraction(1, 100), 100) and not M.available(Fraction(1, 100), 99)
    lv = M.levels(np.array([1, 0]), np.array([0, 1]), np.array([60, 40]), np.array([40, 60]))
    boot = M.bootstrap(lv, M.FPRS, 200, np.random.default_rng(0))
    assert boot.tpr[0] is not None and boot.tpr[1] is None


def test_the_bootstrap_is_seeded_and_brackets_a_separated_attack() -> None:
    lv = M.levels(np.array([1, 0]), np.array([0, 1]), np.array([50, 0]), np.array([0, 2000]))
    a = M.bootstrap(lv, M.FPRS, 300, np.random.default_rng(3))
    assert a.auc == (1.0, 1.0) and a.tpr == ((1.0, 1.0), (1.0, 1.0))
    mixed = M.levels(np.array([1, 0]), np.array([0, 1]), np.array([60, 40]), np.array([40, 60]))
    b = M.bootstrap(mixed, M.FPRS[:1], 300, np.random.default_rng(3))
    c = M.bootstrap(mixed, M.FPRS[:1], 300, np.random.default_rng(3))
    assert b == c
    point = float(M.auc(mixed.members, mixed.non_members))
    assert 0.0 <= b.auc[0] < point < b.auc[1] <= 1.0
