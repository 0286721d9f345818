"""How a class of a numeric known variable is written for a person: the names
``kpr.metric.classes`` gives them (``[lower, upper)``, or the name of a special
class), kept under this module's name for the modules that read them here."""

from __future__ import annotations

from kpr.metric.classes import (
    OVERFLOW_LABEL,
    SPECIAL_LABELS,
    class_label,
    date_edge,
    format_edge,
    interval_label,
    label_of,
)

__all__ = [
    "OVERFLOW_LABEL",
    "SPECIAL_LABELS",
    "class_label",
    "date_edge",
    "format_edge",
    "interval_label",
    "label_of",
]
