"""The Knowledge Protection Rate as an SDMetrics single-table metric.

``pip install 'kpr[sdmetrics]'`` registers :class:`KnowledgeProtectionRate`
through SDMetrics' add-on entry point (``sdmetrics_modules``), so that
``sdmetrics.single_table.KnowledgeProtectionRate`` exists once SDMetrics is
imported. The score is the rate as a fraction (0-1, higher is safer); the
metadata's sdtypes give the kinds of the known columns.

SDMetrics is imported here only: the rest of kpr never needs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict, Unpack

from sdmetrics.goal import Goal
from sdmetrics.single_table.base import SingleTableMetric

from kpr.api import evaluate
from kpr.errors import InputError
from kpr.metric.attack import DEFAULT_TOLERANCE


class Options(TypedDict, total=False):
    """The metric's own keywords, after SDMetrics' ``real_data, synthetic_data, metadata``:
    the columns the attacker knows (required) and the tolerance of numeric values."""

    known_column_names: str | Iterable[str] | None
    tolerance: float


def _names(known: str | Iterable[str] | None) -> list[str]:
    """``known_column_names`` as a list: one name may be given as a string."""
    names = [known] if isinstance(known, str) else list(known or [])
    if not names:
        raise InputError("known_column_names is empty: name the columns the attacker knows")
    for name in names:
        if not isinstance(name, str):
            raise InputError(
                f"known_column_names must be column names as strings, got {name!r} "
                f"({type(name).__name__}); rename the columns to strings "
                "(data.columns = data.columns.astype(str)) and name them so"
            )
    return names


def _check_column_names(label: str, frame: Any) -> None:
    """kpr names columns by text, as SDV metadata does: a frame whose column names
    are not strings is refused with the fix, not with a message about value types."""
    columns = getattr(frame, "columns", None)
    if columns is None:
        return
    bad = [c for c in columns if not isinstance(c, str)]
    if bad:
        raise InputError(
            f"{label} has column names that are not strings ({bad[0]!r}, "
            f"{type(bad[0]).__name__}); rename them: {label}.columns = "
            f"{label}.columns.astype(str)"
        )


class KnowledgeProtectionRate(SingleTableMetric):
    """Share of the real individuals an attacker who knows ``known_column_names``
    cannot single out in the synthetic data (kpr's rate / 100)."""

    name = "Knowledge Protection Rate"
    goal = Goal.MAXIMIZE
    min_value = 0.0
    max_value = 1.0

    @classmethod
    def compute_breakdown(
        cls,
        real_data: Any,
        synthetic_data: Any,
        metadata: Mapping[str, Any] | None = None,
        **options: Unpack[Options],
    ) -> dict[str, Any]:
        """The score and the counts behind it (n, m, |U|, |S|), for
        ``known_column_names`` (and ``tolerance``, default 0.1)."""
        unknown = sorted(set(options) - set(Options.__annotations__))
        if unknown:
            raise InputError(
                f"{cls.__name__} takes no keyword {unknown[0]!r}: its own keywords are "
                "known_column_names= and tolerance="
            )
        known = _names(options.get("known_column_names"))
        for label, frame in (("real_data", real_data), ("synthetic_data", synthetic_data)):
            _check_column_names(label, frame)
        result = evaluate(
            real_data,
            synthetic_data,
            known=known,
            tolerance=options.get("tolerance", DEFAULT_TOLERANCE),
            metadata=metadata,
        )
        return {
            "score": result.rate / 100.0,
            "kpr": result.rate,
            **result.counts.to_dict(),
        }

    @classmethod
    def compute(
        cls,
        real_data: Any,
        synthetic_data: Any,
        metadata: Mapping[str, Any] | None = None,
        **options: Unpack[Options],
    ) -> float:
        """The rate as a fraction: 1 means nobody is singled out (the keywords as
        :meth:`compute_breakdown`'s)."""
        breakdown = cls.compute_breakdown(real_data, synthetic_data, metadata, **options)
        return float(breakdown["score"])
