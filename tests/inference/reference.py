"""A slow, obviously-correct implementation of the spec's section "Inference", for
the tests only: a loop over the people, a list of avatars per person, shared with
the package only through nothing (the rate's reference gives U's classes)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tests.reference import _bins, _code, _raw


@dataclass
class RefInference:
    n: int
    linked: int
    right: int
    guess_linked: Fraction
    guess_all: Fraction
    dis: int
    disco: int
    dorig: int
    disdio: int
    cap: Fraction


def _guess(i: int, classes: list[Any], group: list[int]) -> Fraction:
    """The leave-one-out guess's score for person ``i`` among ``group`` (their rows)."""
    others = Counter(classes[j] for j in group if j != i)
    if not others:
        return Fraction(0)
    top = max(others.values())
    tied = [c for c, k in others.items() if k == top]
    return Fraction(1, len(tied)) if classes[i] in tied else Fraction(0)


def reference_inference(
    original: list[dict[str, Any]],
    avatars: list[dict[str, Any]],
    known: list[str],
    secret: str,
    numeric: set[str],
    tolerance: float = 0.05,
    denom_lim: int | None = None,
) -> RefInference:
    """Every measure of one secret, person by person (``numeric``: the binned columns,
    the secret included when it is binned)."""
    n = len(original)
    raw = [tuple(_raw(r[k]) for k in known) for r in original]
    count = Counter(raw)
    u = {i for i, t in enumerate(raw) if count[t] == 1}
    columns = [*known, secret]
    bins = {
        v: _bins([original[i][v] for i in sorted(u)], tolerance) for v in columns if v in numeric
    }

    def cls(row: dict[str, Any], v: str) -> Any:
        return _code(row[v], bins[v]) if v in numeric else _raw(row[v])

    def profile(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(cls(row, k) for k in known)

    o_prof = [profile(r) for r in original]
    o_cls = [cls(r, secret) for r in original]
    a_prof = [profile(r) for r in avatars]
    a_cls = [cls(r, secret) for r in avatars]
    everyone = list(range(n))
    out = RefInference(n, 0, 0, Fraction(0), Fraction(0), 0, 0, 0, 0, Fraction(0))
    for i in everyone:
        mine = [a_cls[j] for j in range(len(avatars)) if a_prof[j] == o_prof[i]]
        same = [j for j in everyone if o_prof[j] == o_prof[i]]
        group = same if len(same) > 1 else everyone
        guess = _guess(i, o_cls, group)
        out.guess_all += guess
        if i in u and len(mine) == 1:
            out.linked += 1
            out.right += mine[0] == o_cls[i]
            out.guess_linked += guess
        dis = len(mine) >= 1 and len(set(mine)) == 1
        if denom_lim is not None and len(mine) > denom_lim:
            dis = False
        disco = dis and mine[0] == o_cls[i]
        dorig = len({o_cls[j] for j in same}) == 1
        out.dis += dis
        out.disco += disco
        out.dorig += dorig
        out.disdio += disco and dorig
        if mine:
            out.cap += Fraction(sum(c == o_cls[i] for c in mine), len(mine))
    return out
