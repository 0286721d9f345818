"""The known-variable sweep: which combinations of known variables put the
individuals most at risk, and how much each variable adds to the risk.

Inputs are read once (``kpr.api.load`` with ``materialize``) and every subset
is its own attack through ``run_attack``, so each entry equals a direct
``kpr.evaluate`` of that subset.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kpr.analysis.attacks import check_method, run_attack
from kpr.analysis.interval import DEFAULT_CONFIDENCE
from kpr.analysis.result import AttackRate, Contribution, Method, SweepResult
from kpr.api import load
from kpr.errors import InputError
from kpr.metric.plan import DEFAULT_TOLERANCE, check_tolerance
from kpr.tables import Prepared

#: ``progress(done, total, label)``: called before each attack with the subset
#: being evaluated (``done`` attacks finished so far), and once at the end.
SweepProgress = Callable[[int, int, str], None]


#: Most attacks a sweep starts unless asked for more (``max_attacks``, ``--max-attacks``):
#: 22 candidates in subsets of up to 22 would be 4 million attacks.
DEFAULT_MAX_ATTACKS = 5000


def check_candidates(
    candidates: str | Iterable[str],
    max_known: object,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
) -> tuple[list[str], int]:
    """Validate the sweep's parameters, each problem in one line; refuse a sweep of
    more than ``max_attacks`` attacks (None: no cap) before it starts."""
    names = [candidates] if isinstance(candidates, str) else list(candidates)
    if not names:
        raise InputError("candidates is empty: name the variables an attacker might know")
    for name in names:
        if not isinstance(name, str) or not name:
            raise InputError(f"candidates must be non-empty column names, got {name!r}")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"candidates name the same variable twice: {', '.join(map(repr, dupes))}")
    if isinstance(max_known, bool) or not isinstance(max_known, int):
        raise InputError(f"max_known must be a whole number, got {max_known!r}")
    if not 1 <= max_known <= len(names):
        raise InputError(
            f"max_known must be between 1 and the number of candidates ({len(names)}), "
            f"got {max_known}"
        )
    count = attack_count(len(names), max_known)
    if max_attacks is not None and count > max_attacks:
        raise InputError(
            f"the sweep would run {count:,} attacks ({len(names)} candidates, subsets of up "
            f"to {max_known}), more than the cap of {max_attacks:,}; lower --max-known, give "
            f"fewer candidates, or lift the cap with --max-attacks {count}"
        )
    return names, max_known


def subsets(candidates: Sequence[str], max_known: int) -> list[tuple[str, ...]]:
    """Every non-empty subset of up to ``max_known`` candidates, in candidate order."""
    out = [s for k in range(1, max_known + 1) for s in itertools.combinations(candidates, k)]
    if len(candidates) > max_known:  # the full attack is riskier than any listed subset
        out.append(tuple(candidates))
    return out


def attack_count(n_candidates: int, max_known: int) -> int:
    full = 1 if n_candidates > max_known else 0
    return sum(math.comb(n_candidates, k) for k in range(1, max_known + 1)) + full


def rank(entries: Iterable[AttackRate]) -> list[AttackRate]:
    """Riskiest first: lowest rate, then fewer variables, then names."""
    return sorted(entries, key=lambda e: (e.rate, len(e.known), e.known))


def contributions(
    rates: Mapping[frozenset[str], float], candidates: Sequence[str], max_known: int
) -> list[Contribution]:
    """Each variable's mean decrease of the rate when it is added to a subset.

    For v: the mean, over every subset S of the other candidates with
    |S| + 1 <= max_known (the empty set included, with KPR(∅) = 100, so the
    variable known alone counts), of KPR(S) - KPR(S + {v}). Largest first.
    """
    out: list[Contribution] = []
    for v in candidates:
        others = [c for c in candidates if c != v]
        diffs = []
        for k in range(max_known):
            for s in itertools.combinations(others, k):
                base = 100.0 if not s else rates[frozenset(s)]
                diffs.append(base - rates[frozenset((*s, v))])
        out.append(Contribution(v, math.fsum(diffs) / len(diffs), len(diffs)))
    return sorted(out, key=lambda c: (-c.mean_decrease, c.variable))


def sweep_loaded(
    prepared: Prepared,
    candidates: Sequence[str],
    max_known: int = 3,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    progress: SweepProgress | None = None,
    offset: int = 0,
    total: int | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
) -> SweepResult:
    """The sweep on inputs already loaded with every candidate column.

    ``offset``/``total`` place this sweep's progress inside a larger run.
    """
    names, max_known = check_candidates(candidates, max_known, max_attacks)
    tol = check_tolerance(tolerance)
    method = check_method(method)
    todo = subsets(names, max_known)
    total = len(todo) if total is None else total
    entries = []
    for i, subset in enumerate(todo):
        if progress is not None:
            progress(offset + i, total, ", ".join(subset))
        entries.append(
            run_attack(prepared, subset, tolerance=tol, method=method, confidence=confidence)
        )
    if progress is not None:
        progress(offset + len(todo), total, "sweep done")
    rates = {frozenset(e.known): e.rate for e in entries}
    return SweepResult(
        candidates=tuple(names),
        max_known=max_known,
        tolerance=tol,
        method=method,
        entries=rank(entries),
        contributions=contributions(rates, names, max_known),
    )


def sweep(
    original: Any,
    avatars: Any,
    candidates: str | Iterable[str],
    max_known: int = 3,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    progress: SweepProgress | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
) -> SweepResult:
    """The KPR of every non-empty subset of up to ``max_known`` candidates (at most
    ``max_attacks`` attacks; None lifts the cap).

    Inputs are those of ``kpr.evaluate``; they are read once. Entries are
    ranked riskiest first; ``contributions`` says how much, on average,
    adding each variable lowers the rate (see :func:`contributions`).

    >>> import polars as pl
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> [(e.known, e.rate) for e in sweep(o, a, ["age", "sex"], 2).entries]
    [(('age',), 60.0), (('age', 'sex'), 60.0), (('sex',), 100.0)]
    """
    names, max_known = check_candidates(candidates, max_known, max_attacks)
    check_tolerance(tolerance)
    check_method(method)
    prepared = load(
        original, avatars, names, kinds=kinds, delimiter=delimiter, encoding=encoding,
        na_values=na_values, materialize=True,
    )  # fmt: skip
    return sweep_loaded(
        prepared, names, max_known, tolerance=tolerance, method=method,
        confidence=confidence, progress=progress, max_attacks=max_attacks,
    )  # fmt: skip
