"""The result of an evaluation: the rate, the counts behind it, the classes of
every known variable, the warnings, and (on request) who is linked to what."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, Unpack, overload

import narwhals as nw
import polars as pl

from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.classes import label_of, special_labels
from kpr.metric.counts import Counted, Counts, protection_rate
from kpr.notices import needs_action, warnings_json
from kpr.results import json, views
from kpr.results.rates import format_rate

if TYPE_CHECKING:
    from kpr.results.control import ControlComparison
    from kpr.results.inference import InferenceResult
    from kpr.results.sizes import SizeCheck

__all__ = ["Detail", "KprResult", "VariableInfo", "format_rate", "protection_rate"]


def meaning(rate: float) -> str:
    """The rate in one sentence a person reads."""
    return (
        f"For {format_rate(rate)} of the original individuals, an attacker who knows these "
        "variables finds no unique approaching avatar."
    )


#: How a report (made from Python or the command line) names the pairing.
REPORT_PAIRING = "--pairing, or pairing= in Python"
#: How a report names the control.
REPORT_CONTROL = "--control (control= in Python)"


def claims_sentence(linked: int, correct: int | None, n: int, pairing: str = "pairing=") -> str:
    """'The attacker can claim X links; Y are right', in one plain sentence.

    ``pairing`` names how the reader gives the pairing (``pairing=`` in Python,
    ``--pairing`` on the command line) when it is missing and would tell something.
    """
    if linked == 0:
        return "The attacker can claim no link between an individual and an avatar."
    text = f"The attacker can claim {linked:,} link(s) between an individual and an avatar"
    if correct is None:
        return text + (
            "; how many are right is unknown without the pairing of individuals and avatars "
            f"({pairing})."
        )
    return text + (
        f"; {correct:,} are right (their own avatar): a re-identification rate of "
        f"{100.0 * correct / n:.2f} %."
    )


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
        """JSON form; ``mean``/``std``/``min``/``max`` sit under ``over_unique_originals``
        because they are taken over U only, not over every original row."""
        out: dict[str, Any] = {"kind": self.kind.value, "missing": self.missing}
        if self.kind.binned:
            out["over_unique_originals"] = {
                key: json.finite_or_none(getattr(self, key))
                for key in ("mean", "std", "min", "max")
            }
            for key in ("lo", "width", "classes"):
                out[key] = json.finite_or_none(getattr(self, key))
        return out


class Detail(Protocol):
    """What a result asks of the run behind it to explain itself after the fact (its
    linked pairs, its counts per class). The engine answers
    (``kpr.engine.detail.RunDetail``): a result holds no engine state, only this."""

    kinds: dict[str, Kind]
    library: str  # of the original input: results come back in it

    @property
    def bins(self) -> Mapping[str, NumericBins]: ...

    @property
    def has_rows(self) -> bool:
        """Row positions were carried: the linked pairs can be listed."""
        ...

    def linked_pairs(self) -> pl.DataFrame:
        """Original row, avatar row, then the class of each known variable (codes),
        in the kinds' order, one row per linked individual."""
        ...

    def class_counts(self, name: str) -> pl.DataFrame:
        """Per class (or value) of ``name``: originals, avatars, U, linked."""
        ...


class Claims:
    """What the links of a result mean: claims, the worst case (every member of U
    linked) and, with the pairing, how many are right (for a result with
    ``correct_links`` and the counts of ``_claimed``)."""

    correct_links: int | None

    def _claimed(self) -> Counts:
        raise NotImplementedError

    @property
    def worst_case(self) -> float:
        """The floor of the rate, every member of U linked: 100 * (1 - |U|/n)."""
        return self._claimed().floor

    @property
    def reidentification_rate(self) -> float | None:
        """100 * correct links / n: the individuals truly re-identified (needs the pairing)."""
        n = self._claimed().n
        return None if self.correct_links is None else 100.0 * self.correct_links / n

    @property
    def claims(self) -> str:
        """What the linked count means: claims, and (with the pairing) how many are right."""
        c = self._claimed()
        return claims_sentence(c.linked, self.correct_links, c.n)

    def claims_for(self, pairing: str) -> str:
        """:attr:`claims`, naming the pairing as the reader gives it (``--pairing``)."""
        c = self._claimed()
        return claims_sentence(c.linked, self.correct_links, c.n, pairing)

    def claims_dict(self) -> dict[str, Any]:
        """The links in JSON: correct links, the re-identification rate, the claims."""
        return {
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification_rate,
            "claims": self.claims,
        }


class ReportOptions(TypedDict, total=False):
    """The evaluation report's options (:meth:`KprResult.to_html`), each optional: no
    threshold, no values shown, no input labels, avatars not kpr's, no other block."""

    threshold: float | None
    show_values: bool
    inputs: Sequence[str] | None
    kpr_avatars: bool
    blocks: Sequence[object]


@dataclass
class KprResult(Counted, Claims, json.JsonResult):
    """An evaluated attack. ``rate`` is the Knowledge Protection Rate in percent."""

    counts: Counts
    tolerance: float
    known: tuple[str, ...]
    variables: dict[str, VariableInfo]
    warnings: list[str] = field(default_factory=list)
    #: linked individuals whose unique approaching avatar is their own (needs the pairing)
    correct_links: int | None = None
    #: the size-fair control comparison (``control=``), else None
    control: ControlComparison | None = None
    #: the rate at equal size, when the tables' sizes differ by more than 5 %, else None
    sizes: SizeCheck | None = None
    #: the class grid's origin moved down by this fraction of each width (0: the
    #: spec's grid; ``Attack.offset``, a check rather than the metric)
    grid_offset: float = 0.0
    #: what the attacker infers about the secret columns (``secret=``), else None
    inference: InferenceResult | None = None
    _detail: Detail | None = field(default=None, repr=False, compare=False)

    @property
    def warnings_ask_action(self) -> bool:
        """Whether a warning asks the reader to act before trusting the rate (a notice
        that only reports a fact, such as equal records to keep, does not)."""
        return needs_action(self.warnings)

    @property
    def kpr(self) -> float:
        """Alias of ``rate``."""
        return self.rate

    def _claimed(self) -> Counts:
        return self.counts

    @property
    def meaning(self) -> str:
        return meaning(self.rate)

    def linked_frame(self, *, codes: bool = False) -> pl.DataFrame:
        """:meth:`linked_individuals` as a polars frame, whatever the input's library."""
        d = self._detail
        if d is None or not d.has_rows:
            raise ValueError(
                "row positions are not available for this input (Spark, Dask and DuckDB "
                "keep no row order); name a column of row ids with row_id=..."
            )
        frame = d.linked_pairs()
        if codes:
            return frame
        labels = []
        for (name, kind), column in zip(d.kinds.items(), frame.columns[2:], strict=True):
            if not kind.binned:
                continue
            b = d.bins[name]
            date = kind is Kind.DATE
            present = frame[column].unique().drop_nulls().to_list()
            mapping = {c: label_of(c, b, date) for c in present}
            labels.append(pl.col(column).replace_strict(mapping, return_dtype=pl.String))
        return frame.with_columns(labels) if labels else frame

    def linked_individuals(self, *, codes: bool = False) -> Any:
        """One row per linked individual: ``original_row`` (position in the original
        input, or its ``row_id``), ``avatar_row`` (likewise in the avatars) and the binned
        profile the attacker matched on: for numerics, the class as an interval such as
        ``[46.03, 48.78)`` (``codes=True``: the class index of the spec); for
        categoricals, the value. A frame of the original input's library (pandas in,
        pandas out; polars for files and other engines)."""
        return self._native(self.linked_frame(codes=codes))

    def class_table(self, name: str) -> pl.DataFrame:
        """:meth:`by_class` as a polars frame, whatever the input's library."""
        d = self._detail
        if d is None:
            raise ValueError("this result holds no detail")
        if name not in d.kinds:
            raise ValueError(f"{name!r} is not a known variable of this result: {self.known}")
        table = d.class_counts(name)
        if d.kinds[name].binned:
            b = d.bins[name]
            code = pl.col("class")
            regular = (code >= 0) & (code < math.inf)  # +inf: x - lo overflowed
            # float codes (not int64) only when U's codes go beyond 2**62 or overflow
            labels = special_labels(b.int_codes)
            table = table.rename({name: "class"}).with_columns(
                pl.when(regular).then(b.origin + code * b.width).alias("lower"),
                pl.when(regular).then(b.origin + (code + 1) * b.width).alias("upper"),
                pl.col("class")
                .replace_strict(labels, default=None, return_dtype=pl.String)
                .alias("special"),
            )
        return table

    def by_class(self, name: str) -> Any:
        """Where the risk sits for one known variable: per class (numeric, with its
        bounds) or per value (categorical), the number of originals, avatars,
        unique originals (U) and linked individuals. A frame of the original
        input's library, as :meth:`linked_individuals`."""
        return self._native(self.class_table(name))

    def _native(self, frame: pl.DataFrame) -> Any:
        library = self._detail.library if self._detail is not None else "polars"
        if library == "pandas":
            return nw.from_native(frame, eager_only=True).to_pandas()
        if library == "pyarrow":
            return nw.from_native(frame, eager_only=True).to_arrow()
        return frame

    def to_dict(self) -> dict[str, Any]:
        return {
            "kpr": self.rate,
            "meaning": self.meaning,
            **self.counts.to_dict(),
            "tolerance": self.tolerance,
            # a figure on a moved grid says so; the spec's grid adds nothing
            **({"grid_offset": self.grid_offset} if self.grid_offset else {}),
            "known": list(self.known),
            "variables": {name: v.to_dict() for name, v in self.variables.items()},
            **self.claims_dict(),
            "control": None if self.control is None else self.control.to_dict(),
            "sizes": None if self.sizes is None else self.sizes.to_dict(),
            "warnings": warnings_json(self.warnings),
            **({} if self.inference is None else {"inference": self.inference.to_dict()}),
        }

    @overload
    def to_html(self, path: None = None, **options: Unpack[ReportOptions]) -> str: ...

    @overload
    def to_html(self, path: str | os.PathLike[str], **options: Unpack[ReportOptions]) -> Path: ...

    def to_html(
        self, path: str | os.PathLike[str] | None = None, **options: Unpack[ReportOptions]
    ) -> str | Path:
        """The self-contained HTML report (needs ``pip install 'kpr[report]'``).

        Without ``path``, return the document; with it, write it atomically and
        return the path. ``threshold`` adds a pass/fail badge; ``show_values``
        lists the known values of the first linked individuals (off by default:
        the report may travel further than the data); ``inputs`` labels the
        original and avatar tables; ``kpr_avatars`` says kpr's generator made the
        avatars (then, and with a pairing, the advice speaks of k); ``blocks`` adds
        other results on the same tables (an ``InferenceResult``) as sections (default:
        :attr:`inference`, when ``secret=`` was given).
        """
        if self.inference is not None:
            options.setdefault("blocks", [self.inference])
        return views.to_html(self, path, **options)

    def _repr_html_(self) -> str:
        """Jupyter's view: the rate, the counts and the warnings (no plots)."""
        return views.repr_html(self)

    def __repr__(self) -> str:
        return (
            f"KprResult(rate={self.rate:.4g}, n={self.n}, n_avatars={self.n_avatars}, "
            f"unique_originals={self.unique_originals}, linked={self.linked}, "
            f"known={list(self.known)!r}, warnings={len(self.warnings)})"
        )
