"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table.

The public entry point: it checks the attack once, loads the inputs once
(``kpr.measure.load``, the control included) and evaluates them with the control
comparison (``kpr.analysis.baselines.evaluate_inputs``, which builds on
``kpr.measure``); so this module sits above both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from kpr.analysis.baselines import check_control_options, evaluate_inputs
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.errors import InputError
from kpr.inputs.metadata import sdv_kinds
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.measure import evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.progress import Step
from kpr.results.evaluation import KprResult

__all__ = ["evaluate", "evaluate_inputs", "evaluate_loaded", "load"]


def evaluate(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    widths: Mapping[str, object] | None = None,
    metadata: Any = None,
    table: str | None = None,
    progress: Step | None = None,
    row_id: str | None = None,
    pairing: Any = None,
    control: Any = None,
    control_subsets: int = 20,
    seed: int = 0,
    tuning: Tuning = DEFAULT_TUNING,
    **read: Unpack[ReadKeywords],
) -> KprResult:
    """Knowledge Protection Rate of ``avatars`` against ``original``: pandas or
    polars (Lazy)DataFrames, pyarrow Tables, DuckDB relations, or CSV/Parquet paths.
    ``known`` lists the variables the attacker knows.

    Parameters
    ----------
    tolerance, kinds, widths
        The attack: its tolerance; kinds overriding the inferred ones
        (``{"zip": "categorical"}``, ``{"admission": "date"}``); absolute class
        widths instead of those from U (in the unit; days or a ``timedelta`` for dates).
    metadata, table
        SDV metadata (a dict, a JSON path or an object with ``to_dict()``; ``table``
        names the table of multi-table metadata) declaring kinds; ``kinds`` wins.
    delimiter, encoding, na_values
        How CSV paths are read (the keywords of ``**read``): the delimiter and the
        encoding (None: sniffed), the texts read as missing (default ``("",)``).
    progress
        ``progress(label)``, called as the work advances.
    row_id
        A column of integer ids, in both tables, that ``linked_individuals()``
        reports (default: row positions, which Spark, Dask and DuckDB do not have).
    pairing
        Adds ``correct_links`` (linked individuals whose unique avatar is their own):
        ``kpr avatarize --pairing-out``'s file, a frame with ``original_row`` and
        ``avatar_row`` (in ``row_id``'s ids when given), or one avatar row per
        original row; whole numbers, one-to-one.
    control, control_subsets, seed
        Individuals not used to make the avatars: adds the size-fair control
        comparison (``control_subsets`` random subsets of the larger side, drawn
        with ``seed``; see ``kpr.analysis.ControlComparison``).
    tuning
        Advanced: the thresholds that choose the engine's counting path
        (``kpr.engine.tuning.Tuning``). Every path gives the same counts and the
        default is the quickest for each size, so leave it unset.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    attack = _checked_attack(known, tolerance, kinds, widths, metadata, table)
    if not isinstance(tuning, Tuning):
        raise InputError(
            f"tuning must be a kpr.engine.tuning.Tuning, not {type(tuning).__name__}; "
            "leave it out for the default"
        )
    if control is not None:  # checked before any work
        check_control_options(control_subsets, seed)
        if attack.widths:
            # the control's attacks take classes from U only: refuse rather than
            # compare two attacks on different classes
            raise InputError(
                "control with absolute widths is not supported yet: drop widths= (--width) "
                "or control= (--control)"
            )
    csv = ReadSettings.of(read)
    inputs = load(original, avatars, attack, csv, control, row_id=row_id)
    return evaluate_inputs(
        inputs, attack, progress=progress, pairing=pairing, subsets=control_subsets, seed=seed,
        tuning=tuning,
    )  # fmt: skip


def _checked_attack(
    known: str | Iterable[str],
    tolerance: object,
    kinds: Mapping[str, str] | None,
    widths: Mapping[str, object] | None,
    metadata: Any,
    table: str | None,
) -> Attack:
    """The attack of ``kpr.evaluate``, checked once (kinds from SDV metadata, then
    the declared ones)."""
    if table is not None and metadata is None:
        raise InputError(
            "table= (--table) names a table of SDV metadata: give metadata= (--metadata) too"
        )
    if metadata is not None:
        kinds = {**sdv_kinds(metadata, known, table), **(kinds or {})}
    return make_attack(known, tolerance, kinds, widths)
