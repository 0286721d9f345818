"""What protection costs and what an independent check says, before and after: the
worst attack's control comparison, the exact copies and DCR, the fidelity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import polars as pl

from kpr.analysis.baselines import compare_control
from kpr.inputs.reading import ReadSettings
from kpr.measure import load, read_whole
from kpr.protection import table as tables
from kpr.protection.job import ProtectJob
from kpr.protection.loading import Loaded, original_frame
from kpr.results.control import ControlComparison
from kpr.results.distance import DistanceMetrics
from kpr.results.evaluation import KprResult
from kpr.results.json import finite_or_none
from kpr.results.rates import AttackRate


@dataclass(frozen=True)
class UtilityChange:
    """Fidelity to the originals before and after protection (``kpr.utility``'s
    summaries), each column's Hellinger distance before and after, and how far
    protection moved the pairwise associations (None: no pair measured)."""

    before: dict[str, float | None]
    after: dict[str, float | None]
    columns: list[dict[str, object]]  #: one per column, as JSON writes it
    mean_association_change: float | None
    max_association_change: float | None

    def to_dict(self) -> dict[str, object]:
        """The result's ``utility`` field, as JSON writes it."""
        return asdict(self)


@dataclass(frozen=True)
class ControlAndFidelity:
    """The worst attack's control comparison before and after (None: no control
    given) and the fidelity before and after (None: not asked for, or no row left)."""

    control: tuple[ControlComparison, ControlComparison] | None = None
    utility: UtilityChange | None = None


def attack_rate(r: KprResult) -> AttackRate:
    """An evaluation's rate as a protect result holds it."""
    return AttackRate(r.known, r.tolerance, "bins", r.counts)


def control_and_fidelity(
    job: ProtectJob,
    loaded: Loaded,
    protected: Any,
    protected_pl: pl.DataFrame,
    worst: tuple[KprResult, KprResult],
    control: Any,
) -> ControlAndFidelity:
    """The worst attack's control comparison and the fidelity, before and after."""
    compared = None
    if control is not None:
        control, _ = read_whole(control, job.csv, "control")
        attack = job.every.on(worst[0].known)
        before, after = (
            compare_control(
                load(loaded.original, loaded.for_metric(table), attack, job.csv, control),
                attack,
                original_rate=attack_rate(result),  # as kpr.evaluate gives it
                seed=job.seed,
            )
            for table, result in zip((loaded.table, protected), worst, strict=True)
        )
        # protect lowered the original's links, not the control's: no verdict after
        compared = (before, replace(after, protected=True))
    utility = None
    if job.utility and protected_pl.height:  # no row left (delete took every avatar)
        utility = _utility(loaded, protected, job.kinds, job.csv)
    return ControlAndFidelity(compared, utility)


def distances(
    loaded: Loaded, protected: Any, csv: ReadSettings
) -> tuple[DistanceMetrics, DistanceMetrics]:
    """Exact copies and DCR of the avatars before and after, in one FAMD space
    fitted on the originals (``kpr.avatar.distance``); the avatars' columns read
    with the originals' types (a CSV's cells are carried as text)."""
    from kpr.avatar.distance import distance_metrics
    from kpr.avatar.projection import Projection

    o = original_frame(loaded, csv)
    before, after = (
        tables.to_polars(loaded.view(t), loaded.library) for t in (loaded.table, protected)
    )
    shared = [c for c in o.columns if c in before.columns]
    o = o.select(shared)

    def like_original(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.select(
            pl.col(c).cast(o.schema[c], strict=False) if frame.schema[c] != o.schema[c]
            else pl.col(c) for c in shared
        )  # fmt: skip

    space = Projection.fit(o, 5, None)
    return (
        distance_metrics(o, like_original(before), projection=space),
        distance_metrics(o, like_original(after), projection=space),
    )


def _utility(
    loaded: Loaded, protected: Any, kinds: Mapping[str, str] | None, csv: ReadSettings
) -> UtilityChange:
    """Fidelity to the originals before and after (``kpr.utility``), each column's
    Hellinger distance, and how far protect moved each pairwise association."""
    from kpr.fidelity import utility

    original = tables.for_utility(loaded.original, None)

    def measure(avatars: Any) -> Any:
        return utility(
            original, avatars, kinds=kinds, delimiter=csv.delimiter,
            encoding=csv.encoding, na_values=csv.na_values,
        )  # fmt: skip

    before, after = (
        measure(tables.for_utility(t, loaded.source)) for t in (loaded.table, protected)
    )
    columns = before.columns.select("column", hellinger_before="hellinger").join(
        after.columns.select("column", hellinger_after="hellinger"), on="column", how="left"
    )
    keys = ["column_1", "column_2"]
    pairs = before.pairs.select(*keys, before="synthetic_association").join(
        after.pairs.select(*keys, after="synthetic_association"), on=keys, how="inner"
    )
    change = (pairs["after"] - pairs["before"]).abs().fill_nan(None).drop_nulls()
    return UtilityChange(
        before.summary(),
        after.summary(),
        [
            {k: finite_or_none(v) if isinstance(v, float) else v for k, v in row.items()}
            for row in columns.iter_rows(named=True)
        ],
        finite_or_none(change.mean()) if len(change) else None,
        finite_or_none(change.max()) if len(change) else None,
    )
