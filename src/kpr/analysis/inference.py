"""``kpr.inference``: what an attacker who knows some variables of a person infers
about a secret column from the avatars (the spec's section "Inference").

The inputs are read once (the known variables and the secrets); per secret, the
engine counts the cells (profile, secret class) once (``kpr.engine.profiles``) and
every measure is added up from them (``kpr.metric.inference``). With a control, the
same counts on the control, and on the size-fair random subsets that
``kpr.evaluate(control=...)`` draws (``baselines.random_subsets``).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Unpack

import narwhals as nw
import numpy as np
import polars as pl

from kpr.analysis.baselines import (
    DEFAULT_SUBSETS,
    check_control_options,
    load_inputs,
    random_subsets,
)
from kpr.analysis.cap_family import cap_family
from kpr.checks import whole_number
from kpr.engine.profiles import CLASS, PROFILE, ProfileCounts, cells, profile_counts
from kpr.errors import InputError
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.measure import Inputs, polars_error
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, column_names, make_attack
from kpr.metric.counts import require_rows
from kpr.metric.inference import Cells, CellScores, InferenceCounts, cell_scores, totals
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.progress import Step
from kpr.results.inference import (
    MIN_GROUP,
    ControlMeasure,
    Group,
    InferenceResult,
    SecretInference,
    class_name,
)

#: The profiles listed per secret (those with the most DiSCO people, MIN_GROUP or more).
TOP_PROFILES = 10
#: The measures compared with a control, as a share of n from the totals.
COMPARED: dict[str, Callable[[InferenceCounts], float]] = {
    "IAL": lambda c: c.share(c.right),
    "DiSCO": lambda c: c.share(c.disco),
    "expected CAP": lambda c: c.share(c.cap),
}


def check_secrets(known: tuple[str, ...], secret: str | Iterable[str]) -> tuple[str, ...]:
    """The secret columns: named, once each, none of them known."""
    names = column_names(secret, "secret", "secret column", "income")
    both = [n for n in names if n in known]
    if both:
        raise InputError(
            f"{both[0]!r} is both known and secret: an attacker who knows it has nothing to "
            "infer; drop it from the known variables or from the secrets"
        )
    return tuple(names)


def check_denom_lim(value: object) -> int | None:
    """synthpop's denominator limit: None (no limit) or a whole number >= 1."""
    return None if value is None else whole_number(value, "denom_lim", 1)


def count_secret(prepared: Prepared, attack: Attack, secret: str) -> ProfileCounts:
    """The cells (profile, secret class) of one table, counted by its engine."""
    kinds = {n: prepared.kinds[n] for n in (*attack.known, secret)}
    try:
        counts = profile_counts(prepared.original, prepared.avatars, attack, kinds, secret)
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    return counts


def _first_values(table: pl.DataFrame, ids: str, column: str, wanted: Sequence[int]) -> list[Any]:
    """The value of ``column`` for each id of ``wanted`` (ids of ``ids``), in that order."""
    rows = table.filter(pl.col(ids).is_in(list(wanted)))
    first = rows.group_by(ids).agg(pl.col(column).first())
    found = dict(zip(first[ids].to_list(), first[column].to_list(), strict=True))
    return [found[i] for i in wanted]


@dataclass(frozen=True)
class _Sums:
    """What the measures count per group (secret class or profile), one entry each."""

    people: np.ndarray
    linked: np.ndarray
    right: np.ndarray
    disco: np.ndarray
    cap: np.ndarray

    @classmethod
    def of(cls, c: Cells, scores: CellScores, per: Callable[[np.ndarray], np.ndarray]) -> _Sums:
        return cls(
            per(c.people.astype(float)), per(c.unique * scores.linked),
            per(c.unique * scores.right), per(c.people * scores.disco), per(c.people * scores.cap),
        )  # fmt: skip

    def whole(self, name: str) -> np.ndarray:
        """A count as the groups hold it: the sum as a whole number (``int``'s truncation)."""
        values: np.ndarray = getattr(self, name)
        return np.trunc(values).astype(np.int64)

    def group(self, i: int, label: str) -> Group:
        return Group(label, int(self.people[i]), int(self.linked[i]), int(self.right[i]),
                     int(self.disco[i]), float(self.cap[i]))  # fmt: skip


def _listed(sums: _Sums) -> tuple[list[int], int]:
    """The profiles listed (the TOP_PROFILES with the most DiSCO people, then the most
    right, among those of MIN_GROUP people or more; ties in profile order) and the
    count of profiles with DiSCO people too small to list. Only the listed ones are
    labelled: a table can hold a profile per row."""
    people, disco, right = sums.whole("people"), sums.whole("disco"), sums.whole("right")
    some = disco > 0
    shown = people >= MIN_GROUP
    kept = np.flatnonzero(shown & some)
    order = kept[np.lexsort((-right[kept], -disco[kept]))]  # stable: ties keep their order
    return [int(i) for i in order[:TOP_PROFILES]], int(np.count_nonzero(~shown & some))


def _breakdowns(
    counts: ProfileCounts, c: Cells, scores: CellScores
) -> tuple[tuple[Group, ...], tuple[Group, ...], int]:
    """The groups by secret class (all) and by profile (the TOP_PROFILES with the most
    DiSCO people among those of MIN_GROUP people or more), and the count of profiles
    with DiSCO people that are too small to list."""
    t, bins, kinds = counts.table, counts.bins, counts.kinds
    classes = range(c.classes)
    values = _first_values(t, CLASS, counts.extra_key, classes)
    extra = counts.extra
    by_class = _Sums.of(c, scores, c.per_class)
    class_groups = [by_class.group(i, class_name(values[i], kinds[extra], bins.get(extra)))
                    for i in classes]  # fmt: skip
    by_profile = _Sums.of(c, scores, c.per_profile)
    listed, hidden = _listed(by_profile)
    keyed = [_first_values(t, PROFILE, k, listed) for k in counts.keys]
    profile_groups = [
        by_profile.group(i, ", ".join(
            f"{v} {class_name(col[j], kinds[v], bins.get(v))}"
            for v, col in zip(counts.known, keyed, strict=True)
        ))
        for j, i in enumerate(listed)
    ]  # fmt: skip
    return tuple(class_groups), tuple(profile_groups), hidden


def _measure(
    prepared: Prepared, attack: Attack, secret: str, denom_lim: int | None
) -> InferenceCounts:
    c = cells(count_secret(prepared, attack, secret))
    return totals(c, cell_scores(c, denom_lim))


def compare_with_control(
    pair: Prepared,
    control: Prepared,
    attack: Attack,
    secret: str,
    original: InferenceCounts,
    *,
    denom_lim: int | None,
    subsets: int,
    seed: int,
    confidence: float,
) -> tuple[ControlMeasure, ...]:
    """Each measure of :data:`COMPARED` on the original and the control at the smaller
    side's size: the larger side through ``subsets`` random subsets of that size
    (``baselines.random_subsets``, as the rate's control comparison draws them)."""
    on_control = _measure(control, attack, secret, denom_lim)
    if on_control.n == 0:
        raise InputError(
            "the control table has no rows: give individuals of the same population who "
            "were not used to make the avatars"
        )
    size = min(original.n, on_control.n)
    side: Prepared | None = None  # the larger side, drawn down to the smaller one's size
    if original.n != on_control.n:
        side = pair if original.n > on_control.n else control
    drawn = [] if side is None else [
        _measure(p, attack, secret, denom_lim) for p in random_subsets(side, size, subsets, seed)
    ]  # fmt: skip
    out = []
    for name, share in COMPARED.items():
        shares = [share(d) for d in drawn]
        mean = statistics.fmean(shares) if shares else 0.0
        spread = statistics.stdev(shares) if len(shares) >= 2 else 0.0
        o = mean if side is pair else share(original)
        k = mean if side is control else share(on_control)
        out.append(ControlMeasure(name, o, k, size, len(drawn), spread, confidence))
    return tuple(out)


def secret_inference(
    pair: Prepared, attack: Attack, secret: str, denom_lim: int | None = None
) -> SecretInference:
    """Every measure of one secret on the loaded pair, with its breakdowns."""
    counts = count_secret(pair, attack, secret)
    c = cells(counts)
    scores = cell_scores(c, denom_lim)
    result = totals(c, scores)
    require_rows(result.n)
    by_class, by_profile, hidden = _breakdowns(counts, c, scores)
    return SecretInference(
        secret, counts.kinds[secret], result, counts.bins.get(secret), denom_lim,
        by_class, by_profile, hidden,
    )  # fmt: skip


def inference(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    secret: str | Iterable[str],
    control: Any = None,
    denom_lim: int | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    control_subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    sdmetrics: bool = True,
    progress: Step | None = None,
    **read: Unpack[ReadKeywords],
) -> InferenceResult:
    """What an attacker who knows ``known`` infers about each ``secret`` column from
    ``avatars``: inference after linking (IAL) and its precision beside the population
    guess, DiSCO, Dorig, DiSDiO, the expected CAP, and which classes and profiles
    disclose most. Inputs as in ``kpr.evaluate`` (frames of any library, DuckDB,
    Spark, Dask, or CSV/Parquet paths).

    Parameters
    ----------
    secret
        The column(s) the attacker tries to learn; a numeric or date secret is compared
        by class (the class rule, with its own ``lo`` and width over U).
    control, control_subsets, seed
        People not used to make the avatars: each measure is compared with theirs at
        the same size (``control_subsets`` random subsets of the larger side, ``seed``).
    denom_lim
        synthpop's denominator limit: a profile with more avatars discloses nothing
        by DiS/DiSCO.
    tolerance, kinds, delimiter, encoding, na_values
        As in ``kpr.evaluate`` (``kinds`` may declare the secrets' kinds too).
    sdmetrics
        Adds SDMetrics' CategoricalCAP, CategoricalZeroCAP and DisclosureProtection
        (each as SDMetrics 0.32 computes it, or why it does not apply).
    progress
        ``progress(label)``, called as the work advances.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 41, 52, 60], "sick": ["y", "n", "y", "n"]})
    >>> r = kpr.inference(o, o, known=["age"], secret="sick")
    >>> r["sick"].counts.right, r["sick"].counts.linked
    (4, 4)
    """
    attack = make_attack(known, tolerance)
    secrets, denom = check_secrets(attack.known, secret), check_denom_lim(denom_lim)
    if control is not None:
        check_control_options(control_subsets, seed)
    csv = ReadSettings.of(read)
    inputs = load_inputs(original, avatars, attack, csv, control, secrets=secrets, kinds=kinds)
    settings = InferenceSettings(denom, control_subsets, seed, confidence, sdmetrics)
    return infer_loaded(inputs, attack, secrets, settings, progress)


@dataclass(frozen=True)
class InferenceSettings:
    """How :func:`inference` measures each secret (checked by it): synthpop's
    denominator limit, the control comparison's subsets and seed, the intervals'
    confidence, and whether SDMetrics' CAP family is added."""

    denom_lim: int | None = None
    control_subsets: int = DEFAULT_SUBSETS
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    sdmetrics: bool = True


def infer_loaded(
    inputs: Inputs,
    attack: Attack,
    secrets: tuple[str, ...],
    settings: InferenceSettings = InferenceSettings(),
    progress: Step | None = None,
) -> InferenceResult:
    """:func:`inference` on inputs ``baselines.load_inputs`` read with the secrets
    (parameters checked)."""
    one = _Secret(inputs.pair, inputs.control, attack, settings)
    out = tuple(one.inference(name, progress or _quiet) for name in secrets)
    control_n = _rows(inputs.control) if inputs.control is not None and out else None
    return InferenceResult(attack.known, attack.tolerance, out, control_n, settings.seed)


def _quiet(label: str) -> None:
    """No progress reported."""


@dataclass(frozen=True)
class _Secret:
    """What one secret's inference needs besides its name: the pair, the control,
    the attack and the comparison's settings."""

    pair: Prepared
    control: Prepared | None
    attack: Attack
    settings: InferenceSettings

    def inference(self, name: str, step: Step) -> SecretInference:
        """One secret's measures, SDMetrics' CAP family and the control's."""
        s = self.settings
        step(f"counting the profiles and classes of {name}")
        result = secret_inference(self.pair, self.attack, name, s.denom_lim)
        if s.sdmetrics:
            step(f"{name}: SDMetrics' CAP family")
            result = replace(result, sdmetrics=cap_family(self.pair, self.attack, name))
        if self.control is not None:
            step(f"{name}: the control, at the same size")
            compared = compare_with_control(
                self.pair, self.control, self.attack, name, result.counts,
                denom_lim=s.denom_lim, subsets=s.control_subsets, seed=s.seed,
                confidence=s.confidence,
            )  # fmt: skip
            result = replace(result, control=compared)
        return result


def _rows(prepared: Prepared) -> int:
    native = prepared.original.select(nw.len()).collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return int(native.item())
