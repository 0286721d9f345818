"""The known-variable sweep: which combinations of known variables put the
individuals most at risk, and how much each variable adds to the risk.

Inputs are read once (``kpr.measure.load`` with ``materialize``). With the bins
method on in-memory (polars) inputs, the candidates are encoded once and the
subsets share that work (``kpr.engine.inmemory.sweep``); otherwise every subset is its
own attack through ``run_attack``. Either way each entry equals a direct
``kpr.evaluate`` of that subset.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Unpack

import polars as pl

from kpr.analysis.attacks import check_method, run_attack
from kpr.engine.inmemory import EncodedTables, sweep_counts
from kpr.errors import InputError
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.measure import load, polars_error
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.metric.counts import require_rows
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.progress import Progress
from kpr.results.analysis import Contribution, SweepResult
from kpr.results.rates import AttackRate, Method

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
    attack: Attack,
    max_known: int = 3,
    *,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    progress: Progress | None = None,
    offset: int = 0,
    total: int | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
) -> SweepResult:
    """The sweep on inputs already loaded with every candidate column: the subsets
    of ``attack.known`` (the candidates), each attacked as ``attack.on(subset)``.

    ``progress(done, total, label)`` is called as attacks finish (``done`` so far,
    from ``offset`` up; the label names a subset), the last time with
    ``done == offset + len(subsets)``; ``offset``/``total`` place this sweep's
    progress inside a larger run.
    """
    names, max_known = check_candidates(attack.known, max_known, max_attacks)
    method = check_method(method)
    todo = subsets(names, max_known)
    total = len(todo) if total is None else total
    if method == "bins" and prepared.original.implementation.is_polars():
        entries = _shared_sweep(prepared, attack, todo, confidence, progress, offset, total)
    else:  # one attack after another, each named before it runs
        entries = []
        for i, subset in enumerate(todo):
            if progress is not None:
                progress(offset + i, total, ", ".join(subset))
            entries.append(
                run_attack(prepared, attack.on(subset), method=method, confidence=confidence)
            )
        if progress is not None:
            progress(offset + len(todo), total, "sweep done")
    rates = {frozenset(e.known): e.rate for e in entries}
    return SweepResult(
        candidates=tuple(names),
        max_known=max_known,
        tolerance=attack.tolerance,
        method=method,
        entries=rank(entries),
        contributions=contributions(rates, names, max_known),
    )


def encode(prepared: Prepared, names: Sequence[str]) -> EncodedTables:
    """The ``names`` columns of polars-backed loaded inputs, encoded once for many
    attacks (``kpr.engine.inmemory.sweep``)."""
    try:
        original, avatars = (
            frame.select(list(names)).to_native().collect()
            for frame in (prepared.original, prepared.avatars)
        )
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    require_rows(original.height)
    return EncodedTables(original, avatars, {n: prepared.kinds[n] for n in names})


def _shared_sweep(
    prepared: Prepared,
    attack: Attack,
    todo: Sequence[tuple[str, ...]],
    confidence: float,
    progress: Progress | None,
    offset: int,
    total: int,
) -> list[AttackRate]:
    """Every subset on candidates encoded once (``kpr.engine.inmemory.sweep``)."""
    tables = encode(prepared, attack.known)
    finished = 0

    def done(subset: tuple[str, ...]) -> None:
        nonlocal finished
        finished += 1
        if progress is not None:
            progress(offset + finished, total, ", ".join(subset))

    if progress is not None:
        progress(offset, total, "encoding the candidates once")
    found = sweep_counts(tables, todo, attack.tolerance, done=done)
    return [AttackRate.of(attack.on(c.known), c.counts, "bins", confidence) for c in found]


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
    progress: Progress | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
    **read: Unpack[ReadKeywords],
) -> SweepResult:
    """The KPR of every non-empty subset of up to ``max_known`` candidates (at most
    ``max_attacks`` attacks; None lifts the cap).

    Entries are ranked riskiest first; ``contributions`` says how much, on average,
    adding each variable lowers the rate (see :func:`contributions`).

    Parameters
    ----------
    tolerance, kinds, delimiter, encoding, na_values
        As in ``kpr.evaluate`` (the inputs are those of ``kpr.evaluate``, read once).
    method, confidence
        ``"bins"`` (the metric) or ``"window"``; the confidence of the intervals.
    progress
        ``progress(done, total, label)``, called as attacks finish.
    max_attacks
        The most attacks the sweep starts (None: no cap).

    >>> import polars as pl
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> [(e.known, e.rate) for e in sweep(o, a, ["age", "sex"], 2).entries]
    [(('age',), 60.0), (('age', 'sex'), 60.0), (('sex',), 100.0)]
    """
    names, max_known = check_candidates(candidates, max_known, max_attacks)
    attack = make_attack(names, tolerance, kinds)
    check_method(method)
    csv = ReadSettings.of(read)
    pair = load(original, avatars, attack, csv, materialize=True).pair
    return sweep_loaded(
        pair, attack, max_known, method=method, confidence=confidence, progress=progress,
        max_attacks=max_attacks,
    )  # fmt: skip
