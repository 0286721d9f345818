"""Parsing input, apart from counting: what the reconciler (``kpr.inputs.reconcile``)
asks of the engine a frame runs on (``kpr.inputs.csv_text.EngineText``). The
inputs layer imports no engine: its callers give it :func:`parsing_for`.

Every backend converts dates by the shared narwhals expression and cannot tell
what a text column holds (:class:`NarwhalsParsing`), but Spark, which parses text
and converts dates with its own functions (``kpr.engine.spark.SparkParsing``, a
``kpr.inputs.csv_text.TextParsing``). Polars text is read by the inputs layer
itself (``kpr.inputs.csv_text.polars_text_facts``)."""

from __future__ import annotations

from typing import Any

from kpr.engine.queries import Frame
from kpr.inputs.csv_text import EngineText, TextFacts
from kpr.inputs.dates import days_expr


class NarwhalsParsing:
    """The parsing of every backend but Spark: dates by the shared expression; the
    text of a column is not parsed (its facts are unknown)."""

    def text_facts(self, frame: Frame, name: str) -> TextFacts | None:
        """For a text column: (some value present, every value an integer, the first
        value that is not a number); None: this backend cannot tell."""
        return None

    def to_days(self, frame: Frame, name: str, dtype: Any) -> Frame:
        """Replace a date, datetime or duration column by its float64 days."""
        return frame.with_columns(days_expr(name, dtype).alias(name))


def parsing_for(frame: Frame) -> EngineText:
    """The input parsing of the backend a narwhals frame runs on."""
    if frame.implementation.is_pyspark():
        from kpr.engine.spark import SparkParsing

        return SparkParsing()
    return NarwhalsParsing()
