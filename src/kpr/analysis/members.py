"""``kpr.membership``: can an attacker holding the avatars tell who was used to make them?

The orchestration of the membership attack (histogram DOMIAS on class profiles,
docs/membership.md): read the three tables once (``kpr.measure.load``, the holdout as
the control), check them, evaluate the chosen columns as ``kpr.evaluate`` does to get
the classes (``lo`` and ``width`` over U), count the class profiles on the tables'
engine (``kpr.engine.membership``) and measure on those counts
(``kpr.metric.membership``: the draws, the scores, the ROC figures).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Unpack

import narwhals as nw
import polars as pl

from kpr.analysis.baselines import _polars, shared_rows
from kpr.checks import seed as check_seed
from kpr.checks import whole_number
from kpr.engine import queries
from kpr.engine.backends import counting_for
from kpr.engine.membership import profile_counts
from kpr.errors import InputError
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.inputs.sides import column_names
from kpr.measure import Inputs, load, polars_error, read_whole
from kpr.metric.attack import DEFAULT_TOLERANCE, make_attack
from kpr.metric.counts import require_rows
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.metric.membership import DEFAULT_REPLICATES, ProfileCounts, measure, split_sizes
from kpr.notices import Notice
from kpr.progress import Step
from kpr.results.control import shared_rows_sentence
from kpr.results.membership import MembershipResult

#: The most bootstrap replicates (each is a pass over the score levels).
MAX_REPLICATES = 100_000


def membership(
    original: Any,
    synthetic: Any,
    *,
    holdout: Any,
    known: str | Iterable[str] | None = None,
    seed: int = 0,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    replicates: int = DEFAULT_REPLICATES,
    progress: Step | None = None,
    **read: Unpack[ReadKeywords],
) -> MembershipResult:
    """Whether the people used to make ``synthetic`` (members, drawn from ``original``)
    can be told from people of the same population who were not (``holdout``), by the
    histogram DOMIAS score on class profiles: how much more often the avatars hold a
    record's class profile than half of the holdout (the reference) does.

    Parameters
    ----------
    original, synthetic, holdout
        Tables of one engine (pandas, polars, pyarrow, DuckDB, Spark, Dask) or CSV/Parquet
        paths. ``holdout``: people of the same population NOT used to make the avatars;
        half of it is the reference, the other half the non-members.
    known
        The columns of the class profile (default: every column of the original).
    seed
        Draws the holdout's halves, the members (a sample of the original as large as
        the non-members) and the bootstrap.
    tolerance, kinds
        The class rule's tolerance and declared kinds, as ``kpr.evaluate`` takes them.
    replicates
        Bootstrap replicates of the intervals (members and non-members resampled).
    delimiter, encoding, na_values
        How CSV paths are read.

    >>> import polars as pl, kpr
    >>> people = pl.DataFrame({"age": [20 + i % 60 for i in range(300)],
    ...                        "town": [f"t{i % 7}" for i in range(300)]})
    >>> original, holdout = people[:200], people[200:]
    >>> result = kpr.membership(original, original, holdout=holdout)  # published as is
    >>> round(result.auc, 3), result.non_members
    (0.634, 50)
    """
    _check_options(seed, replicates, holdout)
    counted = count_profiles(
        original, synthetic, holdout, known, tolerance, kinds, ReadSettings.of(read), progress
    )
    (progress or queries._noop)("scoring the members and non-members")
    figures = measure(counted.counts, seed, replicates, confidence=DEFAULT_CONFIDENCE)
    warnings: list[str] = []
    if counted.shared_rows:
        warnings.append(Notice("holdout-shares-rows", counted.shared_sentence()))
    return MembershipResult(
        columns=counted.columns, tolerance=tolerance, seed=seed, replicates=replicates,
        confidence=DEFAULT_CONFIDENCE, figures=figures, shared_rows=counted.shared_rows,
        original_repeats=counted.original_repeats, warnings=tuple(warnings),
    )  # fmt: skip


def _check_options(seed: int, replicates: int, holdout: Any) -> None:
    """The seed, the replicates and a holdout given, checked before any work."""
    check_seed(seed)
    whole_number(replicates, "replicates", 1, MAX_REPLICATES)
    if holdout is None:
        raise InputError("give a holdout: people of the same population NOT used to make "
                         "the avatars (holdout=...)")  # fmt: skip


@dataclass(frozen=True)
class Counted:
    """The class profiles counted on the three tables, and the holdout's shared rows."""

    columns: tuple[str, ...]
    counts: ProfileCounts
    shared_rows: int
    original_repeats: int

    def shared_sentence(self) -> str:
        """The shared rows against the original's own repeats, and what they do."""
        return shared_rows_sentence(
            "holdout", self.shared_rows, self.counts.rows(self.counts.holdout),
            self.original_repeats, self.counts.rows(self.counts.original),
            "they are kept; a holdout row that is an original person scores as a member and "
            "lowers the figures.",
        )  # fmt: skip


def count_profiles(
    original: Any,
    synthetic: Any,
    holdout: Any,
    known: str | Iterable[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    csv: ReadSettings | None = None,
    progress: Step | None = None,
) -> Counted:
    """Read and check the three tables, and count each class profile in each of them
    on their engine (the classes of an evaluation of the same columns)."""
    csv = csv or ReadSettings()
    original, _ = read_whole(original, csv, "original")
    columns = _columns(known, original)
    attack = make_attack(columns, tolerance, kinds)
    step = progress or queries._noop
    step("reading the original, the avatars and the holdout")
    try:
        inputs = load(original, synthetic, attack, csv, holdout, control_name="holdout")
        assert inputs.control is not None
        size = _rows(inputs.control.original)
        _check_holdout(size)
        shared, repeats = _shared(inputs, columns, size)
        attack = replace(attack, kinds={n: inputs.pair.kinds[n] for n in columns})
        step("computing the classes over U")
        counting = counting_for(inputs.pair.original, known=len(columns))
        run = queries.run(
            inputs.pair.original, inputs.pair.avatars, attack, attack.kinds, row=None,
            counting=counting,
        )  # fmt: skip
        require_rows(run.counts.n)
        step("counting the class profiles")
        tables = (inputs.pair.original, inputs.pair.avatars, inputs.control.original)
        counts = profile_counts(run, attack.kinds, tables, counting)
    except pl.exceptions.PolarsError as exc:
        raise polars_error(exc) from None
    _, non_members = split_sizes(size)
    if run.counts.n < non_members:
        raise InputError(
            f"the original has {run.counts.n:,} rows, fewer than the {non_members:,} "
            "non-members (half the holdout): the members are drawn from the original at "
            f"that size; give a holdout of at most {2 * run.counts.n + 1:,} rows"
        )
    return Counted(tuple(columns), counts, shared, repeats)


def _columns(known: str | Iterable[str] | None, original: Any) -> list[str]:
    """The profile's columns: those given, else every column of the original."""
    if known is None:
        return column_names(original)
    columns = [known] if isinstance(known, str) else list(known)
    if not columns:
        raise InputError("known= lists no column; name some, or leave it out for every column")
    return columns


def _rows(frame: queries.Frame) -> int:
    return int(_polars(frame.select(nw.len())).item())


def _check_holdout(size: int) -> None:
    if size < 2:
        raise InputError(
            f"the holdout has {size} row{'s' if size != 1 else ''}: it is cut in two halves "
            "(a reference and the non-members); give people of the same population NOT used "
            "to make the avatars, at least 2 (at least 2,000 for a TPR at 0.1 % FPR)"
        )


def _shared(inputs: Inputs, columns: list[str], size: int) -> tuple[int, int]:
    """Holdout rows equal to an original row (every column the tables share, else the
    profile's columns) and the original's own repeats; a holdout made of original rows
    only is refused."""
    assert inputs.control is not None
    whole_o, whole_h = inputs.whole
    if whole_o is None or whole_h is None:
        whole_o = _polars(inputs.pair.original.select(columns))
        whole_h = _polars(inputs.control.original.select(columns))
    shared, repeats = shared_rows(whole_o, whole_h, role="holdout")
    if shared == size:
        raise InputError(
            f"every row of the holdout ({size:,}) equals a row of the original (compared by "
            "value): a holdout must be people NOT used to make the avatars; give a "
            "held-out table"
        )
    return shared, repeats
