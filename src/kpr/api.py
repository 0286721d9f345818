"""``kpr.evaluate``: the Knowledge Protection Rate of an avatar table.

The public entry point: it checks the attack once, loads the inputs once
(``kpr.measure.load``, the control included) and evaluates them with the control
comparison (``kpr.analysis.baselines.evaluate_inputs``, which builds on
``kpr.measure``); so this module sits above both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Unpack

from kpr.analysis.baselines import check_control_options, evaluate_inputs, load_inputs
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.errors import InputError
from kpr.inputs.metadata import sdv_kinds
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.measure import Inputs, evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.progress import Step
from kpr.results.evaluation import KprResult

__all__ = ["evaluate", "evaluate_inputs", "evaluate_loaded", "load"]


def evaluate(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    secret: str | Iterable[str] | None = None,
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
    frames, pyarrow Tables, DuckDB relations, CSV/Parquet paths) if an attacker knows ``known``.

    Parameters
    ----------
    tolerance, kinds, widths, metadata, table, secret
        The attack: its tolerance; kinds (``{"zip": "categorical"}``, the secrets' too) over
        those of SDV ``metadata`` (a dict, JSON path or object with ``to_dict()``; ``table``:
        which table) and the inferred ones; class widths, not U's (days for dates). ``secret``:
        columns to learn: ``result.inference`` (``kpr.inference``); not with widths, metadata.
    delimiter, encoding, na_values, tuning
        How CSV paths are read (``ReadSettings``); ``tuning``: advanced, leave it unset.
    progress, row_id
        ``progress(label)`` is called as the work advances. ``row_id``: integer ids in both
        tables for ``linked_individuals()`` (default: row positions, not on Spark/Dask/DuckDB).
    pairing
        Adds ``correct_links`` (links to one's own avatar): ``kpr avatarize --pairing-out``'s
        file, a frame of ``original_row`` and ``avatar_row``, or an avatar row per original row.
    control, control_subsets, seed
        Individuals not used to make the avatars: adds the size-fair control comparison
        (``kpr.analysis.ControlComparison``: ``control_subsets`` subsets drawn by ``seed``).
    grid_offset
        A check, not the spec's figure: each numeric class grid moved down by this fraction
        of its width, in [0, 1) (not with ``secret``); the result says so.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> kpr.evaluate(o, a, known=["age", "sex"]).rate
    60.0
    """
    attack, secrets = check_evaluation(known, tolerance=tolerance, kinds=kinds, widths=widths,
        metadata=metadata, table=table, grid_offset=grid_offset, secret=secret, tuning=tuning,
        control=control, control_subsets=control_subsets, seed=seed)  # fmt: skip
    inputs = load_inputs(original, avatars, attack, ReadSettings.of(read), control, row_id,
                         secrets, kinds)  # fmt: skip
    result = evaluate_inputs(inputs, attack, progress=progress, pairing=pairing,
                             subsets=control_subsets, seed=seed, tuning=tuning)  # fmt: skip
    return _with_inference(result, inputs, attack, secrets, control_subsets, seed, progress)


def check_evaluation(
    known: str | Iterable[str],
    *,
    tolerance: float,
    kinds: Mapping[str, str] | None,
    widths: Mapping[str, object] | None,
    metadata: Any,
    table: str | None,
    grid_offset: float,
    secret: str | Iterable[str] | None,
    tuning: object,
    control: Any,
    control_subsets: int,
    seed: int,
) -> tuple[Attack, tuple[str, ...]]:
    """The attack (kinds from SDV metadata, then the declared ones, the secrets' left
    out) and the secret columns (none when ``secret`` is None) of :func:`evaluate`'s
    options, checked before any work: secrets take their classes from U, on the spec's
    grid. The command line calls it before it reads a file or starts an engine, so
    options that cannot go together are refused at once, whatever the tables' size."""
    if table is not None and metadata is None:
        raise InputError(
            "table= (--table) names a table of SDV metadata: give metadata= (--metadata) too"
        )
    secrets: tuple[str, ...] = ()
    if secret is not None:
        from kpr.analysis.inference import check_secrets

        if widths or metadata is not None:
            raise InputError(
                "secret= (--secret) takes its classes from U and its kinds from kinds= "
                "(--categorical, --numeric, --date): drop widths= (--width) and metadata= "
                "(--metadata), or secret="
            )
        if grid_offset:
            raise InputError(
                "secret= (--secret) counts on the spec's grid: drop grid_offset= "
                "(--grid-offset) or secret="
            )
        secrets = check_secrets(make_attack(known, tolerance).known, secret)
    kinds = {n: k for n, k in (kinds or {}).items() if n not in secrets}
    if metadata is not None:
        kinds = {**sdv_kinds(metadata, known, table), **kinds}
    attack = make_attack(known, tolerance, kinds, widths, grid_offset)
    _check_options(attack, tuning, control, control_subsets, seed)
    return attack, secrets


def _with_inference(
    result: KprResult,
    inputs: Inputs,
    attack: Attack,
    secrets: tuple[str, ...],
    subsets: int,
    seed: int,
    progress: Step | None,
) -> KprResult:
    """``result`` with what is inferred about ``secrets`` (if any) on the inputs the
    rate was measured on."""
    if not secrets:
        return result
    from kpr.analysis.inference import InferenceSettings, infer_loaded

    settings = InferenceSettings(control_subsets=subsets, seed=seed)
    return replace(result, inference=infer_loaded(inputs, attack, secrets, settings, progress))


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
