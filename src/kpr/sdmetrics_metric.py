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
from typing import Any

from sdmetrics.goal import Goal
from sdmetrics.single_table.base import SingleTableMetric

from kpr.api import evaluate
from kpr.errors import InputError
from kpr.metric.attack import DEFAULT_TOLERANCE


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
        known_column_names: Iterable[str] | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> dict[str, Any]:
        """The score and the counts behind it (n, m, |U|, |S|)."""
        if not known_column_names:
            raise InputError("known_column_names is empty: name the columns the attacker knows")
        result = evaluate(
            real_data,
            synthetic_data,
            known=list(known_column_names),
            tolerance=tolerance,
            metadata=metadata,
        )
        return {
            "score": result.rate / 100.0,
            "kpr": result.rate,
            "n": result.n,
            "n_avatars": result.n_avatars,
            "unique_originals": result.unique_originals,
            "linked": result.linked,
        }

    @classmethod
    def compute(
        cls,
        real_data: Any,
        synthetic_data: Any,
        metadata: Mapping[str, Any] | None = None,
        known_column_names: Iterable[str] | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> float:
        """The rate as a fraction: 1 means nobody is singled out."""
        breakdown = cls.compute_breakdown(
            real_data, synthetic_data, metadata, known_column_names, tolerance
        )
        return float(breakdown["score"])
