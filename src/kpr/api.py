"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table.

The public entry point: it checks the attack once, loads the inputs once
(``kpr.measure.load``, the control included) and evaluates them with the control
comparison (``kpr.analysis.baselines.evaluate_inputs``, which builds on
``kpr.measure``); so this module sits above both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kpr.analysis.baselines import check_control_options, evaluate_inputs
from kpr.errors import InputError
from kpr.inputs.files import CsvOptions
from kpr.inputs.metadata import sdv_kinds
from kpr.measure import Progress, evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
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
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    progress: Progress | None = None,
    row_id: str | None = None,
    pairing: Any = None,
    control: Any = None,
    control_subsets: int = 20,
    seed: int = 0,
) -> KprResult:
    """Knowledge Protection Rate of ``avatars`` against ``original``.

    ``original`` and ``avatars`` are pandas or polars (Lazy)DataFrames, pyarrow
    Tables, DuckDB relations, or paths to CSV/Parquet files. ``known`` lists the
    variables the attacker knows; ``kinds`` overrides the inferred kind of any of
    them (``{"zip": "categorical"}``, ``{"admission": "date"}``). ``widths`` gives
    a variable an absolute class width instead of the one computed from U (in its
    unit; days, or a ``timedelta``, for a date). ``metadata`` (SDV metadata: a
    dict, a JSON path or an object with ``to_dict()``; ``table`` names the table of
    multi-table metadata) declares kinds from its sdtypes; ``kinds`` wins over it.
    The CSV options apply to path inputs. ``row_id`` names a column of integer ids,
    in both tables, that ``linked_individuals()`` reports as
    ``original_row``/``avatar_row``; without it they are row positions, which
    Spark, Dask and DuckDB inputs do not have.

    ``pairing`` (the file ``kpr avatarize --pairing-out`` writes, a frame with
    ``original_row``/``avatar_row``, or one avatar row per original row) adds
    ``correct_links``: linked individuals whose unique avatar is their own. It must
    pair every original row with its own avatar row (whole numbers, one-to-one);
    with ``row_id``, it is written in the ids of that column.
    ``control`` (individuals not used to make the avatars) adds the size-fair
    control comparison (``control_subsets`` random subsets of the larger side,
    drawn with ``seed``; see ``kpr.analysis.ControlComparison``).

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    attack = _checked_attack(known, tolerance, kinds, widths, metadata, table)
    if control is not None:  # checked before any work
        check_control_options(control_subsets, seed)
        if attack.widths:
            # the control's attacks take classes from U only: refuse rather than
            # compare two attacks on different classes
            raise InputError(
                "control with absolute widths is not supported yet: drop widths= (--width) "
                "or control= (--control)"
            )
    csv = CsvOptions(delimiter, encoding, tuple(na_values))
    inputs = load(original, avatars, attack, csv, control, row_id=row_id)
    return evaluate_inputs(
        inputs, attack, progress=progress, pairing=pairing, subsets=control_subsets, seed=seed
    )


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
