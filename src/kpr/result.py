"""The result of an evaluation: the rate, the counts behind it, the classes of
every known variable, the warnings, and (on request) who is linked to what."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import polars as pl

from kpr.engine import lazy
from kpr.metric.plan import Kind


def protection_rate(linked: int, n: int) -> float:
    """KPR = 100 * (1 - |S| / n), the spec's step 6."""
    return 100.0 * (1.0 - linked / n)


def meaning(rate: float) -> str:
    """The rate in one sentence a person reads."""
    return (
        f"For {format_rate(rate)} of the original individuals, an attacker who knows these "
        "variables finds no unique approaching avatar."
    )


def format_rate(rate: float) -> str:
    """Percent with enough digits to show it is not exactly 100 % when it is not."""
    text = f"{rate:.2f}"
    if text == "100.00" and rate < 100.0:
        text = f"{rate:.6f}".rstrip("0")
    return f"{text} %"


@dataclass(frozen=True)
class VariableInfo:
    """One known variable: its kind, and for numerics the statistics over U and its classes."""

    name: str
    kind: Kind
    missing: int  # missing values in the original
    mean: float | None = None
    std: float | None = None
    min: float | None = None
    max: float | None = None
    lo: float | None = None
    width: float | None = None
    classes: int | None = None
    distinct: int | None = None  # distinct values in the original (integer columns)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "missing": self.missing}
        if self.kind.binned:
            for key in ("mean", "std", "min", "max", "lo", "width", "classes"):
                out[key] = _json_number(getattr(self, key))
        return out


_SPECIAL_LABELS = {-1: "outside U's range", -2: "missing", -3: "+inf", -4: "-inf"}


def _json_number(x: Any) -> Any:
    """JSON has no inf/NaN: write them as strings rather than invalid JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


@dataclass
class Detail:
    """What is needed to explain a result after the fact (pairs, per-class counts)."""

    original: lazy.Frame
    run: lazy.EngineRun
    kinds: dict[str, Kind]


def _to_polars(frame: lazy.Frame) -> pl.DataFrame:
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


@dataclass
class KprResult:
    """An evaluated attack. ``rate`` is the Knowledge Protection Rate in percent."""

    rate: float
    n: int
    n_avatars: int
    unique_originals: int
    linked: int
    tolerance: float
    known: tuple[str, ...]
    variables: dict[str, VariableInfo]
    warnings: list[str] = field(default_factory=list)
    _detail: Detail | None = field(default=None, repr=False, compare=False)

    @property
    def kpr(self) -> float:
        """Alias of ``rate``."""
        return self.rate

    @property
    def meaning(self) -> str:
        return meaning(self.rate)

    def linked_individuals(self) -> pl.DataFrame:
        """One row per linked individual: ``original_row`` (position in the original
        input, or its ``row_id``), ``avatar_row`` (likewise in the avatars) and the
        binned profile. Computed where the tables are; only these rows come back."""
        d = self._detail
        if d is None or d.run.row is None:
            raise ValueError(
                "row positions are not available for this input (Spark, Dask and DuckDB "
                "keep no row order); name a column of row ids with row_id=..."
            )
        return _to_polars(lazy.linked_pairs(d.run, d.kinds))

    def by_class(self, name: str) -> pl.DataFrame:
        """Where the risk sits for one known variable: per class (numeric, with its
        bounds) or per value (categorical), the number of originals, avatars,
        unique originals (U) and linked individuals."""
        d = self._detail
        if d is None:
            raise ValueError("this result holds no detail")
        if name not in d.kinds:
            raise ValueError(f"{name!r} is not a known variable of this result: {self.known}")
        table = _to_polars(lazy.class_counts(d.run, d.original, d.kinds, name))
        if d.kinds[name].binned:
            b = d.run.bins[name]
            code = pl.col("class")
            regular = code >= 0
            table = table.rename({name: "class"}).with_columns(
                pl.when(regular).then(b.lo + code * b.width).alias("lower"),
                pl.when(regular).then(b.lo + (code + 1) * b.width).alias("upper"),
                pl.col("class")
                .replace_strict(_SPECIAL_LABELS, default=None, return_dtype=pl.String)
                .alias("special"),
            )
        return table

    def to_dict(self) -> dict[str, Any]:
        return {
            "kpr": self.rate,
            "meaning": self.meaning,
            "n": self.n,
            "n_avatars": self.n_avatars,
            "unique_originals": self.unique_originals,
            "linked": self.linked,
            "tolerance": self.tolerance,
            "known": list(self.known),
            "variables": {name: v.to_dict() for name, v in self.variables.items()},
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    @overload
    def to_html(
        self,
        path: None = None,
        *,
        threshold: float | None = None,
        show_values: bool = False,
        inputs: Sequence[str] | None = None,
    ) -> str: ...

    @overload
    def to_html(
        self,
        path: str | os.PathLike[str],
        *,
        threshold: float | None = None,
        show_values: bool = False,
        inputs: Sequence[str] | None = None,
    ) -> Path: ...

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        threshold: float | None = None,
        show_values: bool = False,
        inputs: Sequence[str] | None = None,
    ) -> str | Path:
        """The self-contained HTML report (needs ``pip install 'kpr[report]'``).

        Without ``path``, return the document; with it, write it atomically and
        return the path. ``threshold`` adds a pass/fail badge; ``show_values``
        lists the known values of the first linked individuals (off by default:
        the report may travel further than the data); ``inputs`` labels the
        original and avatar tables.
        """
        from kpr.report.html import render_report, write_report  # lazy: report imports result

        if path is None:
            return render_report(self, threshold=threshold, show_values=show_values, inputs=inputs)
        return write_report(self, path, threshold=threshold, show_values=show_values, inputs=inputs)

    def _repr_html_(self) -> str:
        """Jupyter's view: the rate, the counts and the warnings (no plots)."""
        from kpr.report.html import repr_html  # lazy: report imports result

        return repr_html(self)

    def __repr__(self) -> str:
        return (
            f"KprResult(rate={self.rate:.4g}, n={self.n}, n_avatars={self.n_avatars}, "
            f"unique_originals={self.unique_originals}, linked={self.linked}, "
            f"known={list(self.known)!r}, warnings={len(self.warnings)})"
        )
