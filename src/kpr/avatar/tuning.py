"""Choosing k: privacy and utility of the avatars across the number of neighbours.

The source recommends raising k to raise the KPR (an avatar mixes more
neighbours, so it sits further from its own individual) at some cost in
utility. :func:`sweep` measures that trade-off on the user's own table: for each
k (and each repeat, seeds ``seed``, ``seed + 1``, ...) it generates avatars and
reports

* the KPR of the attack on ``known`` (``kpr.evaluate``, bit for bit) with its
  Wilson interval, and optionally the KPR of a control group against the same
  avatars (``kpr.analysis``'s control comparison);
* the pairing-based metrics of the Avatar paper: hidden rate and median local
  cloaking (authors' definitions: ties count as closer);
* correct links: of the individuals the attack links, those linked to their own
  avatar (kpr made the avatars, so it knows the pairing), and the
  re-identification rate 100 x correct / n;
* distances to the originals: exact-copy share, median DCR and NNDR
  (:mod:`kpr.avatar.distance`; the control, when given, is the holdout baseline);
* utility: mean Hellinger distance and mean correlation difference.

:func:`tune` walks the ks in increasing order and stops at the first whose KPR
lower bound reaches a target. KPR is not guaranteed to rise with k (each k is
its own random draw), so the answer is "the smallest k of the list that
reaches it", not a statement about the ks after it, which are not evaluated.
When no k reaches it, the advice follows from the measured sweep: a larger k
is suggested only while the KPR is still rising beyond its interval; on a
plateau (the KPR at the largest k within the interval of the previous k, or
below it) more k is not the remedy, and tune says so.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np

from kpr.analysis.baselines import control_comparison, load_control
from kpr.analysis.interval import DEFAULT_CONFIDENCE
from kpr.analysis.result import AttackRate, ControlComparison
from kpr.api import evaluate_loaded, load
from kpr.avatar import _table as tb
from kpr.avatar.distance import DistanceMetrics, distance_metrics
from kpr.avatar.generator import Decoding, Generation, Synthesis, generate
from kpr.avatar.metrics import (
    PAIRING_SPACE,
    correct_links,
    hidden_rate,
    local_cloaking,
    median_local_cloaking,
    utility,
)
from kpr.avatar.projection import _check_int
from kpr.errors import InputError
from kpr.io.readers import check_columns
from kpr.metric.plan import DEFAULT_TOLERANCE, make_attack
from kpr.result import format_rate

#: ``progress(done, total, label)``, as in ``kpr.analysis``: called before each step.
Progress = Callable[[int, int, str], None]

DEFAULT_KS: tuple[int, ...] = (2, 5, 10, 20, 40)
DEFAULT_TUNE_KS: tuple[int, ...] = (2, 5, 10, 20, 40, 80)

#: Steps of one run, for the progress bar.
_STEPS = ("generating avatars", "privacy metrics", "utility", "KPR")

EXPLAIN = {
    "kpr": "KPR: share of the original individuals for whom the attacker finds no unique "
    "approaching avatar (higher = safer); the mean over the repeats.",
    "interval": "Interval: the {conf:g} % Wilson interval of the KPR (the n individuals as "
    "trials); over several repeats, the lowest low and highest high of the repeats' "
    "intervals, so it covers the synthesis' randomness too.",
    "control": "Control: the KPR of individuals not used to make the avatars, attacked "
    "through the same avatars; what the population structure alone gives an attacker.",
    "correct_links": "Correct links: linked individuals whose unique approaching avatar is "
    "really their own (kpr knows the pairing); re-identification rate = 100 x correct / n "
    "(lower = safer). The other linked individuals are claimed wrongly.",
    "hidden_rate": "Hidden rate: share of individuals whose own avatar is not strictly their "
    f"nearest (higher = safer); in the {PAIRING_SPACE}.",
    "median_local_cloaking": "Median local cloaking: median number of other avatars at most "
    "as far from an individual as its own avatar (ties count; higher = safer; the Avatar "
    "paper deems above ~5 protective).",
    "exact_copy_share": "Copies: share of avatars equal to a real record on every column "
    "(lower = safer).",
    "median_dcr": "DCR: median distance from an avatar to its closest original; NNDR: median "
    "ratio of closest to second-closest (near 0 = points at one real record); in the FAMD "
    "space fitted on the originals. A control with every column gives the baseline: its "
    "own figures.",
    "mean_hellinger": "Mean Hellinger: distance between each column's distribution in the "
    "original and in the avatars, averaged over columns (0 = identical, 1 = disjoint; lower "
    "= more useful).",
    "correlation_difference": "Correlation difference: mean absolute difference between the "
    "numeric columns' Pearson correlations (lower = more useful).",
}


def _mean(values: Iterable[float]) -> float:
    """Mean that stays NaN (instead of raising) when a metric is undefined."""
    vals = list(values)
    return float(np.mean(vals)) if vals else float("nan")


def _json_float(x: float) -> float | None:
    """JSON has no NaN: an undefined metric (e.g. no numeric pair) becomes null."""
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class SweepRun:
    """One avatar table, generated with one k and one seed, and what it was measured to give."""

    k: int
    seed: int
    kpr: AttackRate
    control: ControlComparison | None
    hidden_rate: float
    median_local_cloaking: float
    mean_hellinger: float
    correlation_difference: float
    hellinger: dict[str, float]
    seconds: float  #: generation time (avatars only, not the metrics)
    correct_links: int  #: linked individuals linked to their own avatar
    distance: DistanceMetrics

    @property
    def reidentification(self) -> float:
        """Correct links per 100 individuals."""
        return 100.0 * self.correct_links / self.kpr.n

    def to_dict(self) -> dict[str, Any]:
        low, high = self.kpr.interval
        return {
            "seed": self.seed,
            "kpr": self.kpr.rate,
            "interval": {"low": low, "high": high},
            "linked": self.kpr.linked,
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification,
            "unique_originals": self.kpr.unique_originals,
            "control": None if self.control is None else self.control.to_dict(),
            "hidden_rate": self.hidden_rate,
            "median_local_cloaking": self.median_local_cloaking,
            "distance": self.distance.to_dict(),
            "mean_hellinger": _json_float(self.mean_hellinger),
            "correlation_difference": _json_float(self.correlation_difference),
            "hellinger": {str(c): _json_float(v) for c, v in self.hellinger.items()},
            "generation_seconds": self.seconds,
        }


@dataclass(frozen=True)
class SweepRow:
    """Every repeat at one k, and their summaries (means, min/max, interval envelope)."""

    k: int
    runs: tuple[SweepRun, ...]

    @property
    def kpr(self) -> float:
        """Mean KPR over the repeats, in percent."""
        return _mean(r.kpr.rate for r in self.runs)

    @property
    def kpr_min(self) -> float:
        return min(r.kpr.rate for r in self.runs)

    @property
    def kpr_max(self) -> float:
        return max(r.kpr.rate for r in self.runs)

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson interval (one repeat), or the envelope of the repeats' intervals."""
        return (
            min(r.kpr.interval[0] for r in self.runs),
            max(r.kpr.interval[1] for r in self.runs),
        )

    @property
    def low(self) -> float:
        """The lower bound :func:`tune` compares with the target (the worst repeat's)."""
        return self.interval[0]

    @property
    def control_kpr(self) -> float | None:
        """Mean KPR of the control group, None without a control."""
        rates = [r.control.control.rate for r in self.runs if r.control is not None]
        return _mean(rates) if rates else None

    @property
    def control_interval(self) -> tuple[float, float] | None:
        controls = [r.control.control for r in self.runs if r.control is not None]
        if not controls:
            return None
        return min(c.interval[0] for c in controls), max(c.interval[1] for c in controls)

    @property
    def hidden_rate(self) -> float:
        return _mean(r.hidden_rate for r in self.runs)

    @property
    def median_local_cloaking(self) -> float:
        return _mean(r.median_local_cloaking for r in self.runs)

    @property
    def correct_links(self) -> float:
        """Mean number of correct links over the repeats."""
        return _mean(r.correct_links for r in self.runs)

    @property
    def reidentification(self) -> float:
        """Mean re-identification rate (100 x correct links / n) over the repeats."""
        return _mean(r.reidentification for r in self.runs)

    @property
    def exact_copy_share(self) -> float:
        return _mean(r.distance.synthetic.exact_copy_share for r in self.runs)

    @property
    def median_dcr(self) -> float:
        return _mean(r.distance.synthetic.median_dcr for r in self.runs)

    @property
    def median_nndr(self) -> float:
        return _mean(r.distance.synthetic.median_nndr for r in self.runs)

    @property
    def control_distance(self) -> dict[str, float] | None:
        """The control's own copies, DCR and NNDR (the holdout baseline), None without."""
        held = [r.distance.holdout for r in self.runs if r.distance.holdout is not None]
        if not held:
            return None
        return {
            "exact_copy_share": _mean(h.exact_copy_share for h in held),
            "median_dcr": _mean(h.median_dcr for h in held),
            "median_nndr": _mean(h.median_nndr for h in held),
        }

    @property
    def mean_hellinger(self) -> float:
        return _mean(r.mean_hellinger for r in self.runs)

    @property
    def correlation_difference(self) -> float:
        return _mean(r.correlation_difference for r in self.runs)

    @property
    def seconds(self) -> float:
        """Mean generation time of one avatar table, in seconds."""
        return _mean(r.seconds for r in self.runs)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        control: dict[str, Any] | None = None
        if self.control_kpr is not None and self.control_interval is not None:
            c_low, c_high = self.control_interval
            control = {
                "kpr": self.control_kpr,
                "interval": {"low": c_low, "high": c_high},
                "difference": self.control_kpr - self.kpr,
            }
        return {
            "k": self.k,
            "kpr": self.kpr,
            "kpr_min": self.kpr_min,
            "kpr_max": self.kpr_max,
            "interval": {"low": low, "high": high},
            "control": control,
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification,
            "hidden_rate": self.hidden_rate,
            "median_local_cloaking": self.median_local_cloaking,
            "exact_copy_share": self.exact_copy_share,
            "median_dcr": _json_float(self.median_dcr),
            "median_nndr": _json_float(self.median_nndr),
            "control_distance": self.control_distance,
            "mean_hellinger": _json_float(self.mean_hellinger),
            "correlation_difference": _json_float(self.correlation_difference),
            "generation_seconds": self.seconds,
            "runs": [r.to_dict() for r in self.runs],
        }


@dataclass
class SweepOverK:
    """Privacy and utility of the avatars for each k, in increasing k."""

    known: tuple[str, ...]
    tolerance: float
    ncp: int
    seed: int
    repeats: int
    synthesis: Synthesis
    confidence: float
    n: int
    rows: list[SweepRow] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)  #: labels of the tables, for reports
    decoding: Decoding = "draw"
    roles: dict[str, Any] | None = None  #: the column roles (``Roles.to_dict()``)
    keep_identifiers: tuple[str, ...] = ()

    @property
    def ks(self) -> list[int]:
        return [r.k for r in self.rows]

    @property
    def has_control(self) -> bool:
        return any(r.control_kpr is not None for r in self.rows)

    def row(self, k: int) -> SweepRow:
        """The row of one k."""
        for r in self.rows:
            if r.k == k:
                return r
        raise KeyError(f"k={k} is not in this sweep (ks: {self.ks})")

    def summary(self) -> str:
        """One sentence: how the KPR and the mean Hellinger distance move from the smallest
        to the largest k, and whether the KPR ever drops (beyond its intervals or not)."""
        first, last = self.rows[0], self.rows[-1]
        if len(self.rows) == 1:
            return (
                f"With k = {first.k}, the KPR is {format_rate(first.kpr)} and the mean "
                f"Hellinger distance {first.mean_hellinger:.4f}."
            )
        moves = "rises" if last.kpr > first.kpr else "falls" if last.kpr < first.kpr else "stays"
        pairs = list(zip(self.rows, self.rows[1:], strict=False))
        drops = [(a, b) for a, b in pairs if b.kpr < a.kpr]
        shape = ""
        if drops and moves == "rises":
            overlap = all(b.interval[1] >= a.interval[0] for a, b in drops)
            shape = (
                " (not steadily: it dips between some ks, within the intervals)"
                if overlap
                else " (not steadily: it drops between some ks, beyond the intervals)"
            )
        return (
            f"From k = {first.k} to k = {last.k}, the KPR {moves} from "
            f"{format_rate(first.kpr)} to {format_rate(last.kpr)}{shape}, while the mean "
            f"Hellinger distance goes from {first.mean_hellinger:.4f} to "
            f"{last.mean_hellinger:.4f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": list(self.known),
            "tolerance": self.tolerance,
            "confidence": self.confidence,
            "ncp": self.ncp,
            "synthesis": self.synthesis,
            "categorical_decoding": self.decoding,
            "keep_identifiers": list(self.keep_identifiers),
            "pairing_space": PAIRING_SPACE,
            "roles": self.roles,
            "seed": self.seed,
            "repeats": self.repeats,
            "seeds": [self.seed + i for i in range(self.repeats)],
            "n": self.n,
            "inputs": dict(self.inputs),
            "ks": self.ks,
            "summary": self.summary() if self.rows else "",
            "rows": [r.to_dict() for r in self.rows],
            "explanations": {
                key: text.format(conf=self.confidence * 100) for key, text in EXPLAIN.items()
            },
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    @overload
    def to_html(self, path: None = None) -> str: ...

    @overload
    def to_html(self, path: str | os.PathLike[str]) -> Path: ...

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | Path:
        """The HTML page with the plot of KPR and utility against k (needs matplotlib):
        the document, or written atomically to ``path``."""
        from kpr.report.sweep_page import render_sweep, write_sweep

        if path is None:
            return render_sweep(self)
        return write_sweep(self, path)

    def _repr_html_(self) -> str:
        """Jupyter's view: one row per k (no plot)."""
        from kpr.report.sweep_page import repr_sweep  # lazy: the report imports this module

        return repr_sweep(self)


@dataclass
class TuneResult:
    """What :func:`tune` found: the k it picked (None when no k reaches the target) and
    every k it evaluated, in increasing order up to that one."""

    target: float
    k: int | None
    sweep: SweepOverK
    ks: tuple[int, ...]  #: every k it was allowed to try

    @property
    def reached(self) -> bool:
        return self.k is not None

    @property
    def row(self) -> SweepRow | None:
        """The picked k's row (None when none reaches the target)."""
        return None if self.k is None else self.sweep.row(self.k)

    @property
    def best(self) -> SweepRow:
        """The evaluated k with the highest lower bound."""
        return max(self.sweep.rows, key=lambda r: r.low)

    @property
    def message(self) -> str:
        conf = f"{self.sweep.confidence * 100:g} %"
        if self.row is not None:
            low, high = self.row.interval
            return (
                f"k = {self.row.k} is the smallest k of {_ks_text(self.ks)} whose KPR lower "
                f"bound ({conf} interval) reaches {self.target:g} %: KPR "
                f"{format_rate(self.row.kpr)} ({low:.2f} to {high:.2f} %)."
            )
        best = self.best
        if self.target >= 100.0:
            suggestion = "a lower bound is always below 100 %: aim lower, e.g. 95"
        elif self.plateau:
            a, b = self.sweep.rows[-2], self.sweep.rows[-1]
            suggestion = (
                f"the KPR is not rising measurably with k (k = {a.k}: {format_rate(a.kpr)}, "
                f"k = {b.k}: {format_rate(b.kpr)}, within the interval of k = {a.k}), so the "
                "sweep gives no reason to expect a larger k to reach the target: assume fewer "
                "known variables, or coarsen them"
            )
        elif len(self.sweep.rows) < 2:
            suggestion = "one k cannot show a trend: try several, e.g. --ks 5,10,20,40,80"
        else:
            larger = [max(self.ks) * 2, max(self.ks) * 4]
            hint = ",".join(str(k) for k in larger if k < self.sweep.n)
            suggestion = (
                f"the KPR was still rising at the largest k: try larger k (e.g. --ks {hint}; "
                f"k must stay below n = {self.sweep.n:,})"
                if hint
                else f"k cannot grow much more (n = {self.sweep.n:,})"
            )
            suggestion += ", or assume fewer known variables"
        return (
            f"no k of {_ks_text(self.ks)} reaches a KPR lower bound ({conf} interval) of "
            f"{self.target:g} %: the highest lower bound is {best.low:.2f} % (k = {best.k}); "
            f"{suggestion}."
        )

    @property
    def plateau(self) -> bool:
        """The KPR stopped rising: at the largest evaluated k it is not above the
        previous k's interval (False with fewer than two ks)."""
        rows = self.sweep.rows
        if len(rows) < 2:
            return False
        return rows[-1].kpr <= rows[-2].interval[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "reached": self.reached,
            "k": self.k,
            "row": None if self.row is None else self.row.to_dict(),
            "highest_low": self.best.low,
            "highest_low_k": self.best.k,
            "plateau": self.plateau,
            "message": self.message,
            "ks": list(self.ks),
            "evaluated": self.sweep.ks,
            "search": "ks in increasing order, stopping at the first whose KPR lower bound "
            "reaches the target; larger ks are not evaluated",
            "sweep": self.sweep.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)


def _ks_text(ks: Sequence[int]) -> str:
    return ", ".join(str(k) for k in ks)


def check_ks(ks: Iterable[object], n: int | None = None) -> tuple[int, ...]:
    """Whole numbers >= 1 (and < n when the table is known), sorted, duplicates dropped."""
    values = list(ks)
    if not values:
        raise InputError("ks is empty: give at least one k, e.g. 2,5,10,20,40")
    out: set[int] = set()
    for k in values:
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise InputError(f"each k must be a whole number, got {k!r}")
        if k < 1:
            raise InputError(f"each k must be >= 1, got {k}")
        if n is not None and k >= n:
            raise InputError(
                f"k={k} must be smaller than the number of rows ({n:,}): each individual "
                "needs k other individuals; drop it or lower it"
            )
        out.add(int(k))
    return tuple(sorted(out))


def check_target(target: object) -> float:
    """A KPR target is a percentage in (0, 100]."""
    if isinstance(target, bool) or not isinstance(target, int | float):
        raise InputError(f"target must be a percentage in (0, 100], got {target!r}")
    value = float(target)
    if not (math.isfinite(value) and 0.0 < value <= 100.0):
        raise InputError(f"target must be a percentage in (0, 100], such as 95; got {target!r}")
    return value


def _read(table: Any, categorical: Collection[str], role: str) -> Any:
    """A path is read into polars (CSV typed as ``kpr evaluate`` types it); frames pass."""
    if isinstance(table, str | os.PathLike):
        from kpr.avatar.files import read_original

        return read_original(table, categorical=categorical, role=role)
    return table


@dataclass
class _Plan:
    """Checked parameters shared by :func:`sweep` and :func:`tune`."""

    original: Any
    control: Any
    known: tuple[str, ...]
    kinds: dict[str, str]
    ks: tuple[int, ...]
    categorical: list[str]
    inputs: dict[str, str]
    keep_identifiers: list[str] = field(default_factory=list)
    roles: dict[str, Any] | None = None


def _plan(
    original: Any,
    known: str | Iterable[str],
    ks: Iterable[object],
    control: Any,
    tolerance: float,
    categorical: Iterable[str] | None,
    repeats: object,
    seed: object,
    ncp: object,
    keep_identifiers: Iterable[str] | None = None,
) -> _Plan:
    """Check everything before the first (slow) generation, each problem in one line."""
    attack = make_attack(known, tolerance)
    _check_int("repeats", repeats, 1)
    _check_int("ncp", ncp, 1)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {seed!r}")
    cats = [categorical] if isinstance(categorical, str) else list(categorical or [])
    inputs = {"original": _label(original, "original")}
    if control is not None:
        inputs["control"] = _label(control, "control")
    original = _read(original, cats, "original")
    kind = tb.frame_kind(original)
    names = [str(c) for c in tb.column_names(kind, original)]
    check_columns(names, attack.known, "original")
    check_columns(names, cats, "original")
    n = tb.n_rows(original)
    if n < 2:
        raise InputError(
            f"the original table has {n} row(s); avatars need at least 2 (k >= 1 neighbours)"
        )
    checked_ks = check_ks(ks, n)
    if control is not None:
        control = _read(control, cats, "control")
        kind = tb.frame_kind(control)
        check_columns([str(c) for c in tb.column_names(kind, control)], attack.known, "control")
    # A column the user declares categorical is compared as categorical by the attack too.
    kinds = {c: "categorical" for c in cats if c in attack.known}
    keep = [keep_identifiers] if isinstance(keep_identifiers, str) else list(keep_identifiers or [])
    return _Plan(original, control, attack.known, kinds, checked_ks, cats, inputs, keep)


def _label(table: Any, role: str) -> str:
    if isinstance(table, str | os.PathLike):
        return os.fspath(table)
    return f"{role} ({type(table).__module__.split('.')[0]} table)"


def _run(
    plan: _Plan,
    k: int,
    seed: int,
    *,
    ncp: int,
    tolerance: float,
    synthesis: Synthesis,
    decoding: Decoding,
    confidence: float,
    step: Callable[[str], None],
) -> SweepRun:
    """Generate one avatar table and measure it."""
    step(_STEPS[0])
    start = time.perf_counter()
    gen = generate(
        plan.original, k=k, ncp=ncp, seed=seed, categorical=plan.categorical, synthesis=synthesis,
        categorical_decoding=decoding, keep_identifiers=plan.keep_identifiers,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if plan.roles is None and gen.roles is not None:
        plan.roles = gen.roles.to_dict()
    step(_STEPS[1])
    cloaking = local_cloaking(gen)
    distance = distance_metrics(
        _fitted_columns(plan.original, gen), gen.avatars, _holdout(plan.control, gen),
        projection=gen.projection,
    )  # fmt: skip
    step(_STEPS[2])
    use = utility(plan.original, gen.avatars, plan.categorical)
    step(_STEPS[3])
    prepared = load(plan.original, gen.avatars, plan.known, kinds=plan.kinds, materialize=True)
    result = evaluate_loaded(prepared, plan.known, tolerance=tolerance)
    rate = AttackRate(
        result.known, tolerance, "bins", result.n, result.n_avatars, result.unique_originals,
        result.linked, confidence,
    )  # fmt: skip
    correct = correct_links(result.linked_individuals(), gen.pairing)
    comparison = None
    if plan.control is not None:
        control = load_control(plan.control, gen.avatars, prepared, plan.known)
        comparison = control_comparison(
            prepared, control, plan.known, tolerance=tolerance, confidence=confidence,
            original_rate=rate,
        )  # fmt: skip
    return SweepRun(
        k=k,
        seed=seed,
        kpr=rate,
        control=comparison,
        hidden_rate=hidden_rate(cloaking),
        median_local_cloaking=median_local_cloaking(cloaking),
        mean_hellinger=use.mean_hellinger,
        correlation_difference=use.correlation_difference,
        hellinger={str(c): v for c, v in use.hellinger.items()},
        seconds=seconds,
        correct_links=correct,
        distance=distance,
    )


def _holdout(control: Any, gen: Generation) -> Any:
    """The control as the distance baseline, when it has every column the space was
    fitted on (a control may hold only the known variables: then there is none)."""
    if control is None:
        return None
    names = set(tb.column_names(tb.frame_kind(control), control))
    fitted = [c for c in gen.projection.columns if c not in gen.projection.dropped]
    if not all(c in names for c in fitted):
        return None
    return tb.select_columns(tb.frame_kind(control), control, fitted)


def _fitted_columns(table: Any, gen: Generation) -> Any:
    """The columns the generation's space was fitted on (passed-through ones left out)."""
    passthrough = [] if gen.roles is None else gen.roles.of("passthrough")
    if not passthrough:
        return table
    return tb.drop_columns(tb.frame_kind(table), table, passthrough)


def _walk(
    plan: _Plan,
    *,
    repeats: int,
    seed: int,
    ncp: int,
    tolerance: float,
    synthesis: Synthesis,
    decoding: Decoding,
    confidence: float,
    progress: Progress | None,
    stop: Callable[[SweepRow], bool],
) -> SweepOverK:
    """Evaluate the ks in increasing order until ``stop`` says so."""
    result = SweepOverK(
        known=plan.known, tolerance=tolerance, ncp=ncp, seed=seed, repeats=repeats,
        synthesis=synthesis, confidence=confidence, n=tb.n_rows(plan.original),
        decoding=decoding, inputs=plan.inputs, keep_identifiers=tuple(plan.keep_identifiers),
    )  # fmt: skip
    total = len(plan.ks) * repeats * len(_STEPS)
    done = 0
    for k in plan.ks:
        runs = []
        for r in range(repeats):
            where = f"k={k}" + (f", repeat {r + 1}/{repeats}" if repeats > 1 else "")

            def step(label: str, where: str = where) -> None:
                nonlocal done
                if progress is not None:
                    progress(done, total, f"{where}: {label}")
                done += 1

            run = _run(
                plan, k, seed + r, ncp=ncp, tolerance=tolerance, synthesis=synthesis,
                decoding=decoding, confidence=confidence, step=step,
            )  # fmt: skip
            runs.append(run)
        result.rows.append(SweepRow(k, tuple(runs)))
        if stop(result.rows[-1]):
            break
    if progress is not None:
        progress(total, total, "done")
    result.roles = plan.roles
    return result


def sweep(
    original: Any,
    known: str | Iterable[str],
    ks: Iterable[int] = DEFAULT_KS,
    repeats: int = 1,
    seed: int = 0,
    control: Any = None,
    ncp: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    categorical: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    synthesis: Synthesis = "full",
    confidence: float = DEFAULT_CONFIDENCE,
    categorical_decoding: Decoding = "draw",
    keep_identifiers: Iterable[str] | None = None,
) -> SweepOverK:
    """KPR, pairing metrics and utility of the avatars of ``original`` for each k.

    ``original`` (and ``control``) is a polars or pandas table, or a CSV/Parquet path.
    Each k is generated ``repeats`` times with seeds ``seed``, ``seed + 1``, ...; the
    KPR of a run equals ``kpr.evaluate(original, generate(original, k=k, seed=s,
    ...).avatars, known)``. Columns in ``categorical`` are categorical both for the
    generator and for the attack. ``progress(done, total, label)`` is called before
    each step. ``categorical_decoding`` and ``keep_identifiers`` as in
    :func:`kpr.avatar.generate`.
    """
    tolerance = make_attack(known, tolerance).tolerance
    plan = _plan(
        original, known, ks, control, tolerance, categorical, repeats, seed, ncp, keep_identifiers
    )
    return _walk(
        plan, repeats=repeats, seed=int(seed), ncp=ncp, tolerance=tolerance,
        synthesis=synthesis, decoding=categorical_decoding, confidence=confidence,
        progress=progress, stop=lambda _row: False,
    )  # fmt: skip


def tune(
    original: Any,
    known: str | Iterable[str],
    target: float = 95.0,
    ks: Iterable[int] = DEFAULT_TUNE_KS,
    repeats: int = 1,
    seed: int = 0,
    ncp: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    categorical: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    synthesis: Synthesis = "full",
    confidence: float = DEFAULT_CONFIDENCE,
    categorical_decoding: Decoding = "draw",
    keep_identifiers: Iterable[str] | None = None,
) -> TuneResult:
    """The smallest k of ``ks`` whose KPR lower bound (``confidence`` interval; with
    repeats, the lowest over them) reaches ``target`` percent, with its utility.

    The ks are evaluated in increasing order and the search stops at the first that
    reaches the target: KPR usually, but not necessarily, rises with k, so a larger k
    is not promised to reach it too. ``result.k`` is None when none does; then
    ``result.message`` gives the highest lower bound reached. The avatars measured for
    the picked k are those of ``avatarize(original, k=k, seed=seed, ...)``.
    """
    goal = check_target(target)
    tolerance = make_attack(known, tolerance).tolerance
    plan = _plan(
        original, known, ks, None, tolerance, categorical, repeats, seed, ncp, keep_identifiers
    )
    result = _walk(
        plan, repeats=repeats, seed=int(seed), ncp=ncp, tolerance=tolerance,
        synthesis=synthesis, decoding=categorical_decoding, confidence=confidence,
        progress=progress, stop=lambda row: row.low >= goal,
    )  # fmt: skip
    last = result.rows[-1]
    return TuneResult(target=goal, k=last.k if last.low >= goal else None, sweep=result, ks=plan.ks)
