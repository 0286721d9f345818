"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table.

The public entry point: it checks the attack once, loads the inputs once
(``kpr.measure.load``, the control included) and evaluates them with the control
comparison (``kpr.analysis.baselines.evaluate_inputs``, which builds on
``kpr.measure``); so this module sits above both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Unpack

from kpr.analysis.baselines import check_control_options, evaluate_inputs
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.errors import InputError
from kpr.inputs.metadata import sdv_kinds
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.measure import evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.progress import Step
from kpr.results.evaluation import KprResult

if TYPE_CHECKING:  # the inference is imported when it runs: evaluate alone never loads it
    from kpr.results.inference import InferenceResult

__all__ = ["evaluate", "evaluate_and_infer", "evaluate_inputs", "evaluate_loaded", "load"]


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
    grid_offset: float = 0.0,
    **read: Unpack[ReadKeywords],
) -> KprResult:
    """Knowledge Protection Rate of ``avatars`` against ``original`` (pandas or polars
    (Lazy)DataFrames, pyarrow Tables, DuckDB relations, or CSV/Parquet paths) when an
    attacker knows the variables ``known``.

    Parameters
    ----------
    tolerance, kinds, widths, metadata, table
        The attack: its tolerance; kinds (``{"zip": "categorical"}``) overriding those SDV
        ``metadata`` declares (a dict, a JSON path or an object with ``to_dict()``; ``table``
        names the table of multi-table metadata) and the inferred ones; class widths instead
        of U's (days or a ``timedelta`` for dates).
    delimiter, encoding, na_values
        How CSV paths are read (``**read``, as ``kpr.inputs.reading.ReadSettings`` takes it).
    progress, row_id
        ``progress(label)`` is called as the work advances. ``row_id``: integer ids in both
        tables for ``linked_individuals()`` (default: row positions, not on Spark/Dask/DuckDB).
    pairing
        Adds ``correct_links`` (linked individuals whose unique avatar is their own):
        ``kpr avatarize --pairing-out``'s file, a frame of ``original_row``, ``avatar_row``
        (whole, one-to-one; ``row_id``'s ids if given), or one avatar row per original row.
    control, control_subsets, seed
        Individuals not used to make the avatars: adds the size-fair control comparison
        (``kpr.analysis.ControlComparison``: ``control_subsets`` subsets drawn by ``seed``).
    tuning
        Advanced, leave it unset: the counting path's thresholds (``kpr.engine.tuning.Tuning``).
    grid_offset
        A check, not the spec's figure: every numeric variable's class grid moved down
        by this fraction of its width, in [0, 1); the result says so.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    attack = _checked_attack(known, tolerance, kinds, widths, metadata, table, grid_offset)
    _check_options(attack, tuning, control, control_subsets, seed)
    inputs = load(original, avatars, attack, ReadSettings.of(read), control, row_id=row_id)
    return evaluate_inputs(inputs, attack, progress=progress, pairing=pairing,
                           subsets=control_subsets, seed=seed, tuning=tuning)  # fmt: skip


def _check_options(attack: Attack, tuning: object, control: Any, subsets: int, seed: int) -> None:
    """The tuning and the control's options, checked before any work."""
    if not isinstance(tuning, Tuning):
        raise InputError(
            f"tuning must be a kpr.engine.tuning.Tuning, not {type(tuning).__name__}; "
            "leave it out for the default"
        )
    if control is not None:
        check_control_options(subsets, seed)
        if attack.widths:
            # the control's attacks take classes from U only: refuse rather than
            # compare two attacks on different classes
            raise InputError(
                "control with absolute widths is not supported yet: drop widths= (--width) "
                "or control= (--control)"
            )


def evaluate_and_infer(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    secret: str | Iterable[str],
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    progress: Step | None = None,
    row_id: str | None = None,
    pairing: Any = None,
    control: Any = None,
    control_subsets: int = 20,
    seed: int = 0,
    **read: Unpack[ReadKeywords],
) -> tuple[KprResult, InferenceResult]:
    """``kpr.evaluate`` and ``kpr.inference`` of the same ``secret`` columns on inputs
    read once (``kpr evaluate --secret``): each result equals its function's on the
    same arguments. ``kinds`` may declare the secrets' kinds too; absolute widths and
    SDV metadata are not taken (the secrets' classes come from U)."""
    from kpr.analysis.inference import (
        InferenceSettings,
        check_secrets,
        infer_loaded,
        load_secrets,
    )

    secrets = check_secrets(make_attack(known, tolerance).known, secret)
    own = {n: k for n, k in (kinds or {}).items() if n not in secrets}
    attack = _checked_attack(known, tolerance, own, None, None, None)
    if control is not None:
        check_control_options(control_subsets, seed)
    csv = ReadSettings.of(read)
    inputs = load_secrets(original, avatars, attack, secrets, kinds, csv, control, row_id)
    result = evaluate_inputs(
        inputs, attack, progress=progress, pairing=pairing, subsets=control_subsets, seed=seed
    )
    settings = InferenceSettings(control_subsets=control_subsets, seed=seed)
    inferred = infer_loaded(inputs, attack, secrets, settings, progress)
    return result, inferred


def _checked_attack(
    known: str | Iterable[str],
    tolerance: object,
    kinds: Mapping[str, str] | None,
    widths: Mapping[str, object] | None,
    metadata: Any,
    table: str | None,
    offset: object = 0.0,
) -> Attack:
    """The attack of ``kpr.evaluate``, checked once (kinds from SDV metadata, then
    the declared ones), and its other options, before any work."""
    if table is not None and metadata is None:
        raise InputError(
            "table= (--table) names a table of SDV metadata: give metadata= (--metadata) too"
        )
    if metadata is not None:
        kinds = {**sdv_kinds(metadata, known, table), **(kinds or {})}
    return make_attack(known, tolerance, kinds, widths, offset)
