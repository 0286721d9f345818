"""Membership inference on class profiles (histogram DOMIAS), pure numpy.

Everything here works on counts per class profile, never on rows: the engine
counts each profile in the original, the avatars and the holdout
(``kpr.engine.membership``); this module draws the members and splits the holdout
(by counts, which is the same as drawing rows), scores each profile, and measures
how well the score tells members from non-members:

* the score of a record whose profile q the avatars hold ``s`` times and the
  reference half R of the holdout ``r`` times: ``log((s + 1) / (m + 1)) -
  log((r + 1) / (|R| + 1))``. It orders records as the exact fraction
  ``(s + 1) / (r + 1)`` does, so ties are decided on that fraction, exactly;
* the ROC curve with ties drawn as straight segments (a tie is crossed in random
  order), so the AUC counts a tied member/non-member pair 1/2 and the TPR at a
  given FPR is read on the segment: both are expectations over the order of ties,
  and do not depend on the order of the rows;
* percentile bootstrap intervals, resampling members and non-members.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Ints = np.ndarray

#: The false positive rates the TPR is reported at (1 % and 0.1 %), as exact fractions.
FPRS: tuple[Fraction, ...] = (Fraction(1, 100), Fraction(1, 1000))
#: Bootstrap replicates by default.
DEFAULT_REPLICATES = 1000
#: Rows of replicates x levels drawn at once (bounds the bootstrap's memory).
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class ProfileCounts:
    """The class profiles by their rows in the original, the avatars and the holdout:
    each distinct count triple and the number of ``profiles`` holding it, sorted by
    the triple (an order no row order can change). Profiles with one triple are
    interchangeable in everything measured here."""

    original: Ints
    avatars: Ints
    holdout: Ints
    profiles: Ints

    @classmethod
    def of(cls, original: Ints, avatars: Ints, holdout: Ints, profiles: Ints) -> ProfileCounts:
        """From count triples (in any order, repeated or not) and their profiles."""
        o, a, h, k = (np.asarray(x, dtype=np.int64) for x in (original, avatars, holdout, profiles))
        triples, inverse = np.unique(np.stack([o, a, h], axis=1), axis=0, return_inverse=True)
        k = np.bincount(inverse.reshape(-1), weights=k, minlength=len(triples)).astype(np.int64)
        keep = k > 0
        return cls(triples[keep, 0], triples[keep, 1], triples[keep, 2], k[keep])

    def rows(self, side: Ints) -> int:
        """The rows of one side (``original``, ``avatars`` or ``holdout``)."""
        return int((side * self.profiles).sum())


@dataclass(frozen=True)
class Draw:
    """Per unit (a profile the holdout holds, or every profile of one triple that the
    holdout does not hold, taken together): its avatars' count s, the reference's r,
    and the members and non-members drawn in it."""

    avatars: Ints
    reference: Ints
    members: Ints
    non_members: Ints


def streams(seed: int) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    """Independent generators for the holdout split, the members and the bootstrap (so
    changing the number of replicates never changes the drawn sets)."""
    split, members, boot = np.random.SeedSequence(seed).spawn(3)
    return (
        np.random.default_rng(split),
        np.random.default_rng(members),
        np.random.default_rng(boot),
    )


def split_sizes(holdout: int) -> tuple[int, int]:
    """(|R|, non-members): the holdout cut in two halves, the reference taking the
    odd row."""
    non_members = holdout // 2
    return holdout - non_members, non_members


def draw(counts: ProfileCounts, seed: int) -> Draw:
    """The holdout split in two halves and the members, each a sample without
    replacement of rows, drawn on the counts (multivariate hypergeometric: the law of a
    uniform sample of the rows, profile by profile). The profiles the holdout holds are
    drawn one by one (their reference counts differ); the others only by triple, which
    has the same law (a sample summed over profiles is a sample of their union) and
    keeps the draw as small as the holdout."""
    split_rng, member_rng, _ = streams(seed)
    held = counts.holdout > 0
    k = np.where(held, counts.profiles, 1)  # a unit per profile held, else per triple
    avatars, holdout = np.repeat(counts.avatars, k), np.repeat(counts.holdout, k)
    original = np.repeat(np.where(held, counts.original, counts.original * counts.profiles), k)
    _, size = split_sizes(int(holdout.sum()))
    non_members = _sample(split_rng, holdout, size)
    members = _sample(member_rng, original, size)
    return Draw(avatars, holdout - non_members, members, non_members)


def _sample(rng: np.random.Generator, counts: Ints, size: int) -> Ints:
    counts = np.asarray(counts, dtype=np.int64)
    if size == 0 or counts.size == 0:
        return np.zeros_like(counts)
    return rng.multivariate_hypergeometric(counts, size, method="marginals").astype(np.int64)


@dataclass(frozen=True)
class Levels:
    """The distinct scores, highest first, with the members and non-members at each.

    A level is the reduced fraction ``(s + 1) / (r + 1)`` = ``numerator /
    denominator``: every profile whose counts (s, r) reduce to it scores the same."""

    numerator: Ints
    denominator: Ints
    members: Ints
    non_members: Ints

    def scores(self, m: int, reference_size: int) -> np.ndarray:
        """The DOMIAS score of each level (natural logarithms)."""
        return (
            np.log(self.numerator.astype(float))
            - np.log(self.denominator.astype(float))
            + math.log(reference_size + 1)
            - math.log(m + 1)
        )


def levels(avatars: Ints, reference: Ints, members: Ints, non_members: Ints) -> Levels:
    """Group profiles (arrays of equal length) by their exact score and sort the
    levels highest first; levels holding no member and no non-member are dropped."""
    s, r = np.asarray(avatars, np.int64), np.asarray(reference, np.int64)
    pos, neg = np.asarray(members, np.int64), np.asarray(non_members, np.int64)
    keep = (pos > 0) | (neg > 0)
    s, r, pos, neg = s[keep], r[keep], pos[keep], neg[keep]
    g = np.gcd(s + 1, r + 1)
    num, den = (s + 1) // g, (r + 1) // g
    base = int(den.max(initial=0)) + 1  # one integer per fraction: a fast 1-D unique
    keys, inverse = np.unique(num * base + den, return_inverse=True)
    pairs = np.stack([keys // base, keys % base], axis=1)
    inverse = inverse.reshape(-1)
    order = sorted(range(len(pairs)), key=lambda i: Fraction(int(pairs[i, 0]), int(pairs[i, 1])))
    order.reverse()
    rank = np.empty(len(pairs), dtype=np.int64)
    rank[order] = np.arange(len(pairs))
    at = rank[inverse]
    size = len(pairs)
    return Levels(
        numerator=pairs[order, 0],
        denominator=pairs[order, 1],
        members=np.bincount(at, weights=pos, minlength=size).astype(np.int64),
        non_members=np.bincount(at, weights=neg, minlength=size).astype(np.int64),
    )


def _cumulative(counts: np.ndarray) -> np.ndarray:
    """Running totals along the levels, with a leading 0 (the curve starts at (0, 0))."""
    zero = np.zeros((*counts.shape[:-1], 1), dtype=np.int64)
    return np.concatenate([zero, np.cumsum(counts, axis=-1)], axis=-1)


def roc_curve(members: Ints, non_members: Ints) -> tuple[np.ndarray, np.ndarray]:
    """The ROC curve's corners (FPR, TPR), from (0, 0) to (1, 1), levels highest first;
    a tie is the straight segment between two corners."""
    tp, fp = _cumulative(np.asarray(members)), _cumulative(np.asarray(non_members))
    return fp / max(int(fp[-1]), 1), tp / max(int(tp[-1]), 1)


def auc(members: np.ndarray, non_members: np.ndarray) -> np.ndarray:
    """The area under the curve of each row (levels along the last axis): the chance
    that a random member scores above a random non-member, a tie counting 1/2."""
    pos, neg = np.asarray(members, np.int64), np.asarray(non_members, np.int64)
    above = _cumulative(pos)[..., :-1]  # members strictly above each level
    pairs = (neg * (2 * above + pos)).sum(axis=-1)  # twice the pairs won, ties once
    total = pos.sum(axis=-1) * neg.sum(axis=-1)
    return np.asarray(pairs / (2.0 * np.maximum(total, 1)))


def tpr_at(members: np.ndarray, non_members: np.ndarray, fpr: Fraction) -> np.ndarray:
    """The TPR of each row at FPR ``fpr``: the highest point of the curve (ties as
    straight segments) at that FPR. It is the expected TPR of flagging every record
    above a threshold and each record at it with the same probability, chosen so
    that the expected FPR is ``fpr``, with the threshold as low as that allows."""
    pos, neg = np.asarray(members, np.int64), np.asarray(non_members, np.int64)
    tp, fp = _cumulative(pos), _cumulative(neg)
    n_neg = fp[..., -1:]
    # corners with fp / n_neg <= fpr, compared exactly on integers
    within = fp * fpr.denominator <= n_neg * fpr.numerator
    last = within.sum(axis=-1, keepdims=True) - 1  # the curve only rises: a prefix
    nxt = np.minimum(last + 1, tp.shape[-1] - 1)
    tp0, fp0 = np.take_along_axis(tp, last, -1), np.take_along_axis(fp, last, -1)
    tp1, fp1 = np.take_along_axis(tp, nxt, -1), np.take_along_axis(fp, nxt, -1)
    target = n_neg * (fpr.numerator / fpr.denominator)
    step = np.where(fp1 > fp0, (target - fp0) / np.maximum(fp1 - fp0, 1), 0.0)
    hit = tp0 + np.clip(step, 0.0, 1.0) * (tp1 - tp0)
    return np.asarray((hit / np.maximum(tp[..., -1:], 1))[..., 0])


def available(fpr: Fraction, non_members: int) -> bool:
    """Whether the non-members can show an FPR this low: at least one non-member is
    flagged at it (the resolution, 1 / non-members, is at most ``fpr``)."""
    return non_members * fpr.numerator >= fpr.denominator


@dataclass(frozen=True)
class Bootstrap:
    """Percentile intervals of the AUC and of the TPR at each FPR (None where the FPR
    is below the resolution)."""

    auc: tuple[float, float]
    tpr: tuple[tuple[float, float] | None, ...]


def bootstrap(
    lv: Levels,
    fprs: Sequence[Fraction],
    replicates: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
) -> Bootstrap:
    """Resample the members and the non-members (each with replacement, at their own
    size) ``replicates`` times and take the percentile interval of each figure."""
    n_pos, n_neg = int(lv.members.sum()), int(lv.non_members.sum())
    p_pos, p_neg = lv.members / max(n_pos, 1), lv.non_members / max(n_neg, 1)
    size = len(lv.members)
    chunk = max(1, _CHUNK_CELLS // max(size, 1))
    aucs: list[np.ndarray] = []
    tprs: list[list[np.ndarray]] = [[] for _ in fprs]
    done = 0
    while done < replicates:
        k = min(chunk, replicates - done)
        pos = rng.multinomial(n_pos, p_pos, size=k)
        neg = rng.multinomial(n_neg, p_neg, size=k)
        aucs.append(auc(pos, neg))
        for i, f in enumerate(fprs):
            tprs[i].append(tpr_at(pos, neg, f))
        done += k
    tail = (1.0 - confidence) / 2.0

    def ends(values: list[np.ndarray]) -> tuple[float, float]:
        lo, hi = np.quantile(np.concatenate(values), [tail, 1.0 - tail])
        return float(lo), float(hi)

    return Bootstrap(
        auc=ends(aucs),
        tpr=tuple(
            ends(t) if available(f, n_neg) else None for f, t in zip(fprs, tprs, strict=True)
        ),
    )


@dataclass(frozen=True)
class Figures:
    """What the attack measures on one set of profile counts (see :func:`measure`)."""

    n_original: int
    n_avatars: int
    n_holdout: int
    reference_size: int
    non_members: int  # and as many members
    levels: Levels
    auc: float
    tpr: tuple[float | None, ...]  # at each of ``fprs``; None below the resolution
    intervals: Bootstrap
    members_in_avatars: int  # members whose class profile some avatar holds
    non_members_in_avatars: int
    fprs: tuple[Fraction, ...]


def measure(
    counts: ProfileCounts,
    seed: int,
    replicates: int = DEFAULT_REPLICATES,
    fprs: Sequence[Fraction] = FPRS,
    confidence: float = 0.95,
) -> Figures:
    """Draw the sets (``seed``), score every profile and measure the ROC figures with
    their bootstrap intervals (``replicates``). The original must hold at least as
    many rows as the non-members, and the holdout at least two."""
    drawn = draw(counts, seed)
    m, size = counts.rows(counts.avatars), int(drawn.reference.sum())
    lv = levels(drawn.avatars, drawn.reference, drawn.members, drawn.non_members)
    n_neg = int(drawn.non_members.sum())
    held = drawn.avatars > 0
    _, _, boot_rng = streams(seed)
    return Figures(
        n_original=counts.rows(counts.original),
        n_avatars=m,
        n_holdout=counts.rows(counts.holdout),
        reference_size=size,
        non_members=n_neg,
        levels=lv,
        auc=float(auc(lv.members, lv.non_members)),
        tpr=tuple(
            float(tpr_at(lv.members, lv.non_members, f)) if available(f, n_neg) else None
            for f in fprs
        ),
        intervals=bootstrap(lv, fprs, replicates, boot_rng, confidence),
        members_in_avatars=int(drawn.members[held].sum()),
        non_members_in_avatars=int(drawn.non_members[held].sum()),
        fprs=tuple(fprs),
    )
