"""protect's inputs, each read once: the original, the avatars (every column), the
pairing, loaded for the metric and encoded for every attack (``Loaded``).

The original is read by ``kpr.measure.read_whole`` (or its known columns alone), the
avatars every column as the file holds them (:mod:`kpr.protection.table`); the rates,
the new avatars, the control comparison, the distances and the fidelity are all
computed from that one read. Only the known variables of the avatars are typed (as
``kpr.evaluate`` types them); every other cell is carried as it was read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from kpr.analysis.sweep import encode
from kpr.engine.inmemory import EncodedTables
from kpr.errors import InputError, shown
from kpr.inputs.files import Loaded as LoadedFile
from kpr.inputs.files import read_table
from kpr.inputs.names import suggest
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.measure import evaluate_loaded, load, read_whole
from kpr.metric.attack import Attack, Kind
from kpr.pairing import Unpaired, read_pairing
from kpr.protection import table as tables
from kpr.protection.job import ProtectJob
from kpr.results.evaluation import KprResult


@dataclass
class Loaded:
    """The inputs, each read once."""

    original: Any  #: the original as read: a file's rows in memory (``LoadedFile``), or a table
    table: Any  #: the avatars, every column, in ``library`` (a CSV's cells as read)
    library: str
    source: tables.FileSource | None  #: an avatar CSV's dialect and missing markers
    kinds: dict[str, Kind]
    pair: Prepared  #: the original and the input avatars, loaded for the metric
    encoded: EncodedTables
    own: np.ndarray | None  #: the pairing: each original row's avatar row
    frame: pl.DataFrame | None = None  #: the original, every column typed (see original_frame)
    whole: bool = False  #: the original was read whole (every column, not only the known)

    def for_metric(self, table: Any) -> Any:
        """An avatar table (the input, extended or protected) as the metric reads it."""
        return tables.for_metric(table, self.source, self.kinds)

    def view(self, table: Any) -> Any:
        """An avatar table as ``kpr.evaluate`` reads it: a CSV's markers missing."""
        return tables.read_view(table, self.source)

    @property
    def n_avatars(self) -> int:
        """Rows of the input avatars (new avatars of *regenerate*, if any, follow them)."""
        return tables.n_rows(self.table, self.library)

    @property
    def columns(self) -> list[str]:
        """The input avatars' columns, in their order."""
        return tables.columns_of(self.table, self.library)


def read_original(original: Any, known: list[str], csv: ReadSettings, whole: bool) -> Any:
    """The original read once, into memory: every column when something besides the
    rates needs them (the control, the new avatars, the distances, the fidelity), else
    the known ones, read as ``kpr.evaluate`` reads them; DuckDB, Spark and Dask
    tables are collected into polars."""
    if not tables.is_path(original):
        if tables.library(original) in tables.LIBRARIES:
            return original
        return tables.full_table(original, csv)[0]
    if not whole:  # the known columns only, as kpr.evaluate reads them
        original = read_table(original, known, csv, "original", compact=True)
    return read_whole(original, csv, "original")[0]


def load_pair(original: Any, table: Any, attack: Attack, csv: ReadSettings) -> Prepared:
    """The original (as read) and an avatar table, loaded for many attacks."""
    return load(original, table, attack, csv, materialize=True).pair


def _check_names(where: str, names: list[str], known: list[str], keep: tuple[str, ...]) -> None:
    """Every known variable and every kept column is a column of the avatars (``where``:
    the avatars' file, or empty)."""
    of_avatars = f"the avatars{where}"
    for name in known:
        if name not in names:
            raise InputError(f"{shown(name)} is not a column of {of_avatars}{suggest(name, names)}")
    for name in keep:
        if name not in names:
            raise InputError(
                f"keep= names {shown(name)}, which is not a column of {of_avatars}"
                f"{suggest(name, names)}"
            )


def load_inputs(original: Any, avatars: Any, job: ProtectJob, pairing: Any, whole: bool) -> Loaded:
    """Each input read once and the pair encoded for every attack of ``job``."""
    attack, csv = job.every, job.csv
    known = list(attack.known)
    source = None
    if tables.is_path(avatars):
        table, source = tables.read_avatars(avatars, csv)
        library = "polars"
    else:
        table, library = tables.full_table(avatars, csv)
    names = tables.columns_of(table, library)
    _check_names(f" {avatars}" if source else "", names, known, job.keep)
    original = read_original(original, known, csv, whole)
    prepared = load_pair(original, tables.for_metric(table, source, known), attack, csv)
    kinds_of = {n: prepared.kinds[n] for n in known}
    encoded = encode(prepared, known)
    m = tables.n_rows(table, library)
    own = None if pairing is None else read_pairing(pairing, encoded.n, m)  # read once
    return Loaded(original, table, library, source, kinds_of, prepared, encoded, own, None, whole)


def original_frame(loaded: Loaded, csv: ReadSettings) -> pl.DataFrame:
    """The originals, every column, as polars (a file's text columns typed as
    ``kpr avatarize`` types them), made once from the one read."""
    if loaded.frame is None:
        original = loaded.original
        if isinstance(original, LoadedFile):
            from kpr.avatar.files import typed_table

            loaded.frame = typed_table(original)
        else:
            loaded.frame = tables.to_polars(*tables.full_table(original, csv))
    return loaded.frame


def kept_pairing(loaded: Loaded, deleted: set[int]) -> Unpaired | None:
    """The pairing renumbered for the protected table: an individual whose avatar
    was deleted has none (-1)."""
    own = loaded.own
    if own is None:
        return None
    keep = np.ones(loaded.n_avatars, dtype=bool)
    keep[list(deleted)] = False
    position = np.cumsum(keep) - 1
    at = np.maximum(own, 0)
    return Unpaired(np.where((own >= 0) & keep[at], position[at], -1))


def evaluations(pair: Prepared, job: ProtectJob, pairing: Any) -> list[KprResult]:
    """Every attack on a loaded pair, as ``kpr.evaluate`` evaluates it."""
    return [evaluate_loaded(pair, job.every.on(a), pairing=pairing) for a in job.attacks]
