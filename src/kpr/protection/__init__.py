"""``kpr.protect``: change an avatar table as little as possible so that every
given attack's rate reaches a target, and prove it with a fresh evaluation.

The statistics of the metric (U, ``lo``, ``width``) come from the originals, so
they do not move while avatars change: protect encodes both tables once with the
sweep's encoder (``kpr.engine.inmemory.sweep``, the metric's one binning), keeps each
attack's profile counts (:mod:`kpr.protection.state`) and removes links one by one
(:mod:`kpr.protection.optimise`). At the end every attack is evaluated from scratch
on the protected table and every invariant of the spec ("Protecting a release") is
checked; a failed check is a bug and raises.

Each input is read once, through the inputs layer ``kpr.evaluate`` uses (the
original by ``kpr.measure.read_whole`` or its known columns alone, the avatars every
column as the file holds them, :mod:`kpr.protection.table`): the rates before and
after, the new avatars, the control comparison, the distances and the fidelity are
all computed from that one read, by ``kpr.measure.load`` and ``evaluate_loaded`` as
``kpr.evaluate`` computes them. Only the known variables of the avatars are typed
(as evaluate types them); every other cell is carried as it was read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Unpack

import numpy as np
import polars as pl

from kpr.analysis.baselines import compare_control
from kpr.analysis.sweep import encode
from kpr.avatar.files import check_output
from kpr.checks import percentage
from kpr.engine.inmemory import EncodedTables, value_classes
from kpr.errors import InputError, KprError, shown
from kpr.inputs.files import Loaded as LoadedFile
from kpr.inputs.files import read_table
from kpr.inputs.names import suggest
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.labels import class_label
from kpr.measure import evaluate_loaded, load, read_whole
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, Kind, check_tolerance, make_attack
from kpr.pairing import Unpaired, read_pairing
from kpr.protection import arguments
from kpr.protection import table as tables
from kpr.protection.arguments import DEFAULT_MAX_ATTACKS, DEFAULT_REGENERATE_K, check_moves
from kpr.protection.collateral import linked_rows, measured_collateral
from kpr.protection.draws import multiplicity_checks
from kpr.protection.optimise import (
    DEFAULT_MOVES,
    Column,
    NewAvatars,
    Optimiser,
    Outcome,
)
from kpr.protection.plausibility import PairIndex, pair_index
from kpr.protection.plausibility import text_codes as pairs_text_codes
from kpr.protection.state import AttackState
from kpr.protection.window_state import WindowState
from kpr.results.evaluation import KprResult
from kpr.results.json import finite_or_none
from kpr.results.marks import Plausibility
from kpr.results.protect import (
    GRID_OFFSETS,
    MOVED_GRID_SLACK,
    MOVES,
    AttackOutcome,
    Collateral,
    ProtectResult,
)
from kpr.results.rates import AttackRate

__all__ = [
    "DEFAULT_MAX_ATTACKS",
    "DEFAULT_MOVES",
    "DEFAULT_REGENERATE_K",
    "MOVES",
    "ProtectionError",
    "check_moves",
    "protect",
]

#: New avatars drawn per linking avatar (independent draws of the generator's weights).
_REDRAWS = 4

#: At most this many points of the optimiser's trace are kept in the result.
_TRACE_POINTS = 200


class ProtectionError(KprError, RuntimeError):
    """The fresh evaluation contradicts what protect computed: a bug, never a result."""


@dataclass
class _Loaded:
    """The inputs, each read once."""

    original: Any  #: the original as read: a file's rows in memory (``LoadedFile``), or a table
    table: Any  #: the avatars, every column, in ``library`` (a CSV's cells as read)
    library: str
    source: tables.FileSource | None  #: an avatar CSV's dialect and missing markers
    kinds: dict[str, Kind]
    pair: Prepared  #: the original and the input avatars, loaded for the metric
    encoded: EncodedTables
    own: np.ndarray | None  #: the pairing: each original row's avatar row
    frame: pl.DataFrame | None = None  #: the original, every column typed (see _original_frame)
    whole: bool = False  #: the original was read whole (every column, not only the known)

    def for_metric(self, table: Any) -> Any:
        """An avatar table (the input, extended or protected) as the metric reads it."""
        return tables.for_metric(table, self.source, self.kinds)

    def view(self, table: Any) -> Any:
        """An avatar table as ``kpr.evaluate`` reads it: a CSV's markers missing."""
        return tables.read_view(table, self.source)


def _read_original(original: Any, known: list[str], csv: ReadSettings, whole: bool) -> Any:
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


def _pair(original: Any, table: Any, attack: Attack, csv: ReadSettings) -> Prepared:
    """The original (as read) and an avatar table, loaded for many attacks."""
    return load(original, table, attack, csv, materialize=True).pair


def _load(original: Any, avatars: Any, job: _Job, pairing: Any, whole: bool) -> _Loaded:
    attack, csv = job.every, job.csv
    known = list(attack.known)
    source = None
    if tables.is_path(avatars):
        table, source = tables.read_avatars(avatars, csv)
        library = "polars"
    else:
        table, library = tables.full_table(avatars, csv)
    names = tables.columns_of(table, library)
    of_avatars = f"the avatars{f' {avatars}' if source else ''}"
    for name in known:
        if name not in names:
            raise InputError(f"{shown(name)} is not a column of {of_avatars}{suggest(name, names)}")
    for name in job.keep:
        if name not in names:
            raise InputError(
                f"keep= names {shown(name)}, which is not a column of {of_avatars}"
                f"{suggest(name, names)}"
            )
    original = _read_original(original, known, csv, whole)
    prepared = _pair(original, tables.for_metric(table, source, known), attack, csv)
    kinds_of = {n: prepared.kinds[n] for n in known}
    encoded = encode(prepared, known)
    m = tables.n_rows(table, library)
    own = None if pairing is None else read_pairing(pairing, encoded.n, m)  # read once
    return _Loaded(original, table, library, source, kinds_of, prepared, encoded, own, None, whole)


def _columns(
    loaded: _Loaded, states: list[AttackState], keep: tuple[str, ...]
) -> dict[str, Column]:
    out: dict[str, Column] = {}
    m = tables.n_rows(loaded.table, loaded.library)
    for name, kind in loaded.kinds.items():
        enc = loaded.encoded.columns[name]
        codes = enc.a[:m].copy()  # the input avatars (new avatars, if any, follow)
        held_values = 0 if enc.a_values is None else len(enc.a_values)
        size = max(int(enc.a.max(initial=0)) + 1, enc.radix, held_values)
        first = np.full(size, -1, dtype=np.int64)
        held, rows = np.unique(codes, return_index=True)  # the first row holding each code
        first[held] = rows
        widths = [s.bins[name].width for s in states if name in s.bins]
        out[name] = Column(
            name, kind, codes, enc.a_values if kind.binned else None, first,
            tables.can_blank(loaded.table, loaded.library, name),
            min(widths) if widths else None, name in keep,
        )  # fmt: skip
    return out


def _rate(r: KprResult) -> AttackRate:
    return AttackRate(r.known, r.tolerance, "bins", r.counts)


def _kept_pairing(loaded: _Loaded, deleted: set[int]) -> Unpaired | None:
    """The pairing renumbered for the protected table: an individual whose avatar
    was deleted has none (-1)."""
    own = loaded.own
    if own is None:
        return None
    m = tables.n_rows(loaded.table, loaded.library)
    keep = np.ones(m, dtype=bool)
    keep[list(deleted)] = False
    position = np.cumsum(keep) - 1
    at = np.maximum(own, 0)
    return Unpaired(np.where((own >= 0) & keep[at], position[at], -1))


def _thin(trace: list[tuple[int, float]]) -> tuple[tuple[int, float], ...]:
    if len(trace) <= _TRACE_POINTS:
        return tuple(trace)
    picks = np.unique(np.linspace(0, len(trace) - 1, _TRACE_POINTS).round().astype(int))
    return tuple(trace[i] for i in picks)


def _verify(
    attacks: list[tuple[str, ...]],
    before: list[KprResult],
    after: list[KprResult],
    states: list[AttackState],
    target: float,
    outcome: Outcome,
    loaded: _Loaded,
    protected: Any,
) -> None:
    """Every invariant of the spec's "Protecting a release", from the fresh evaluations."""
    problems = []
    for known, b, a, s in zip(attacks, before, after, states, strict=True):
        label = ", ".join(known)
        if a.linked != s.linked:
            problems.append(f"{label}: kept count {s.linked} but evaluate finds {a.linked} linked")
        if not outcome.unfixed and a.rate < target:
            problems.append(f"{label}: rate {a.rate} below the target {target}")
        new = linked_rows(a) - linked_rows(b)
        if new:
            problems.append(f"{label}: {len(new)} individual(s) newly linked, e.g. {min(new)}")
        if b.correct_links is not None and (a.correct_links or 0) > b.correct_links:
            problems.append(f"{label}: correct links rose {b.correct_links} -> {a.correct_links}")
    names = tables.columns_of(loaded.table, loaded.library)
    if tables.columns_of(protected, loaded.library) != names:
        problems.append("the columns or their order changed")
    rows = tables.n_rows(loaded.table, loaded.library) - len(outcome.deleted)
    if tables.n_rows(protected, loaded.library) != rows:
        problems.append("the row count is not the input's minus the deleted rows")
    before_pl = tables.to_polars(loaded.table, loaded.library)
    after_pl = tables.to_polars(protected, loaded.library)
    if before_pl.schema != after_pl.schema:
        problems.append("a column's dtype changed")
    others = [n for n in names if n not in loaded.kinds]
    kept = np.ones(before_pl.height, dtype=bool)
    kept[list(outcome.deleted)] = False
    position = np.cumsum(kept) - 1
    same_row = kept.copy()
    same_row[list(outcome.regenerated)] = False  # regenerate replaces the whole row
    same = (
        before_pl.filter(pl.Series(same_row))
        .select(others)
        .equals(after_pl[position[same_row]].select(others))
    )
    if others and not same:
        problems.append("a column that is not a known variable changed")
    if problems:
        raise ProtectionError("protect failed its own verification (a bug): " + "; ".join(problems))


def _change_log(
    loaded: _Loaded,
    protected_pl: pl.DataFrame,
    columns: dict[str, Column],
    outcome: Outcome,
    states: list[AttackState],
) -> pl.DataFrame:
    """One row per changed avatar cell (and per deleted avatar row): the avatar's
    values only, never an original individual's."""
    original_pl = tables.to_polars(loaded.table, loaded.library)
    kept = np.ones(original_pl.height, dtype=bool)
    kept[list(outcome.deleted)] = False
    position = np.cumsum(kept) - 1
    parts = []
    for name, col in columns.items():
        touched = np.zeros(len(kept), dtype=bool)
        touched[list(col.source)] = True
        touched = (touched | (col.codes != col.input_codes)) & kept
        rows = np.flatnonzero(touched)
        old = original_pl[name].cast(pl.String).gather(rows)
        new = protected_pl[name].cast(pl.String).gather(position[rows])
        # a cell changed when its text did (a value may come back by two moves, as
        # another row's text of the same number: "30.50" for "30.5")
        differ = old.ne_missing(new).to_numpy() | (col.codes[rows] != col.input_codes[rows])
        keep_rows = pl.Series(differ)
        changed, old, new = rows[differ], old.filter(keep_rows), new.filter(keep_rows)
        if not len(changed):
            continue
        frame = pl.DataFrame({
            "avatar_row": changed, "column": name,
            "move": [outcome.moves.get((int(r), name), "") for r in changed],
            "old": old, "new": new,
        })  # fmt: skip
        state = next((s for s in states if name in s.bins), None)
        if col.values is not None and state is not None:
            b = state.bins[name]
            date = col.kind is Kind.DATE
            for which, codes in (("old_class", col.input_codes), ("new_class", col.codes)):
                cls = value_classes(col.values[codes[changed]], b)
                frame = frame.with_columns(
                    pl.Series(which, [class_label(c, b.lo, b.width, date) for c in cls])
                )
        else:
            frame = frame.with_columns(old_class=pl.col("old"), new_class=pl.col("new"))
        parts.append(frame)
    rows = np.array(sorted(set(outcome.regenerated) - outcome.deleted), dtype=np.int64)
    for name in original_pl.columns if len(rows) else ():
        if name in columns:
            continue
        old = original_pl[name].gather(rows)
        new = protected_pl[name].gather(position[rows])
        changed = old.ne_missing(new).to_numpy()
        old, new = old.cast(pl.String).filter(changed), new.cast(pl.String).filter(changed)
        frame = pl.DataFrame({
            "avatar_row": rows[changed], "column": name, "move": "regenerate",
            "old": old, "new": new, "old_class": old, "new_class": new,
        })  # fmt: skip
        parts.append(frame)
    deleted = sorted(outcome.deleted)
    if deleted:
        parts.append(
            pl.DataFrame(
                {
                    "avatar_row": deleted,
                    "column": [""] * len(deleted),
                    "move": "delete",
                    "old": [""] * len(deleted),
                    "new": [""] * len(deleted),
                    "old_class": [""] * len(deleted),
                    "new_class": [""] * len(deleted),
                }
            )
        )
    schema = {
        "avatar_row": pl.Int64, "column": pl.String, "move": pl.String, "old": pl.String,
        "new": pl.String, "old_class": pl.String, "new_class": pl.String,
    }  # fmt: skip
    if not parts:
        return pl.DataFrame(schema=schema)
    out = pl.concat([p.cast(schema) for p in parts])  # type: ignore[arg-type]
    return out.sort("avatar_row", "column")


def protect(
    original: Any,
    avatars: Any,
    known: str | Iterable[str] | None = None,
    *,
    target: float = 99.0,
    moves: str | Iterable[str] = DEFAULT_MOVES,
    seed: int = 0,
    pairing: Any = None,
    regenerate_k: int | None = None,
    keep: str | Iterable[str] = (),
    candidates: str | Iterable[str] | None = None,
    max_known: int | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    control: Any = None,
    distances: bool = True,
    utility: bool = True,
    output: str | os.PathLike[str] | None = None,
    collateral: bool = False,
    rule: str = "class",
    **read: Unpack[ReadKeywords],
) -> tuple[Any, ProtectResult]:
    """Change ``avatars`` as little as possible so that every attack's KPR reaches
    ``target`` (percent). Returns the protected table (pandas and pyarrow stay
    themselves; files, polars and other engines come back as polars) and a
    :class:`~kpr.results.protect.ProtectResult`, whose ``changes`` is the change log
    (avatar values only): the data owner's record, never to be published with the
    table. A fresh evaluation of every attack (what ``kpr.evaluate`` computes) checks
    the rates at the end; when the target cannot be reached, the result says what was
    (``result.met`` is False). Each input file is read once.

    Parameters
    ----------
    known, candidates, max_known, max_attacks
        One attack (``known``) or every subset of up to ``max_known`` of ``candidates``;
        more than ``max_attacks`` subsets (default 5,000, as ``kpr.analyze``; None: no
        cap) are refused before any work.
    moves, seed
        The changes allowed (any of ``swap``, ``shift``, ``regenerate``, ``suppress``,
        ``delete``; default swap and shift); ``seed`` makes every random choice.
    keep
        Columns protect never changes (a move that would change one of their cells is
        not tried; *delete* still drops whole rows). When the target then cannot be
        reached, the result says which kept columns held the links.
    pairing, regenerate_k
        ``regenerate`` is for kpr's own avatars of ``original`` and needs ``pairing``:
        a linking avatar is replaced, whole row, by a new avatar of its own individual
        drawn from its ``regenerate_k`` nearest originals (default 40; given without
        the move, refused). No individual becomes linked, no link moves to another
        avatar (so correct links cannot rise).
    control, distances, utility
        The control comparison of the worst attack before and after; the exact copies
        and DCR before and after (a FAMD fit: turn it off for tables of millions of
        rows); the fidelity before and after (``kpr.utility``).
    output
        A .csv or .parquet path to write the protected table to. A CSV of avatars read
        from a CSV keeps its dialect and every cell protect did not change as it was
        read (missing markers, leading zeros, long ids); unchanged, it is the same bytes.
    collateral
        The subsets of the known variables that no attack names are measured under
        the class and the window rule (up to 64, the smallest first) when both tables
        have at most 100,000 rows; ``True`` measures them above that too. The given
        attacks' collateral (window rule, tolerances 0.04 and 0.06, moved grids) is
        always measured.
    rule
        ``"class"`` (the spec's class rule held for every attack given) or
        ``"robust"``: the window rule too (an avatar approaches when every numeric
        value lies within one width, no class edges): every attack reaches the target
        under both rules, and on the class grids moved by ¼, ½ and ¾ of a width the
        target less 0.5 point; nobody becomes linked under any of them. Links are
        freed first by decoys and escapes (:mod:`kpr.protection.decoys`); delete and
        suppress are then not always admissible.
    tolerance, kinds, delimiter, encoding, na_values
        As in ``kpr.evaluate``.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]})
    >>> a = pl.DataFrame({"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]})
    >>> protected, r = kpr.protect(o, a, ["age", "sex"], target=80, distances=False)
    >>> r.met, kpr.evaluate(o, protected, ["age", "sex"]).rate >= 80
    (True, True)
    """
    arguments.output(output)
    if output is not None:
        inputs = [x for x in (original, avatars, pairing, control) if tables.is_path(x)]
        check_output(output, "output", inputs)
    arguments.flags(distances=distances, utility=utility, collateral=collateral)
    arguments.reading(read)
    job = _Job(
        percentage(target, "target", zero=False),
        arguments.Moves.of(moves, seed, regenerate_k, pairing),
        arguments.attacks(known, candidates, max_known, max_attacks),
        check_tolerance(tolerance),
        arguments.kinds(kinds),
        ReadSettings.of(read),
        utility,
        arguments.names(keep, "keep"),
        arguments.rule(rule),
    )
    attacks, every, csv, target = job.attacks, job.every, job.csv, job.target
    whole = control is not None or distances or utility or "regenerate" in job.allowed
    loaded = _load(original, avatars, job, pairing, whole)
    states, new_avatars, extended = _states(loaded, job, job.moves.regenerate_k)
    before = _evaluations(loaded.pair, job, loaded.own)
    _agree(states, before)
    columns, outcome, protected, plausible = _optimise(loaded, states, job, new_avatars, extended)
    kept_pairing = _kept_pairing(loaded, outcome.deleted)
    after_pair = _pair(loaded.original, loaded.for_metric(protected), every, csv)
    after = _evaluations(after_pair, job, kept_pairing)
    _verify(attacks, before, after, states, target, outcome, loaded, protected)
    if output is not None:
        tables.write_protected(protected, loaded.library, loaded.source, output)
    protected_pl = tables.to_polars(protected, loaded.library)
    changes = _change_log(loaded, protected_pl, columns, outcome, states)
    worst = min(range(len(attacks)), key=lambda i: (after[i].rate, len(attacks[i])))
    around = _around(
        job, loaded, protected, protected_pl, (before[worst], after[worst]), control, kinds
    )
    if distances:
        around["distance_before"], around["distance_after"] = _distances(loaded, protected, csv)
    around["plausibility"] = plausible
    sizes = (loaded.encoded.n, tables.n_rows(loaded.table, loaded.library))
    around["collateral"], around["untested"] = measured_collateral(
        loaded.pair, after_pair, every, attacks, sizes, collateral
    )
    if job.rule == "robust":
        _verify_robust(around["collateral"], target, outcome.unfixed == 0)
    result = _result(job, loaded, columns, outcome, before, after, changes, around)
    return loaded.view(protected), result


@dataclass(frozen=True)
class _Job:
    """The checked settings of one protection."""

    target: float
    moves: arguments.Moves
    attacks: list[tuple[str, ...]]
    tolerance: float
    kinds: Mapping[str, str] | None
    csv: ReadSettings
    utility: bool  # the fidelity before and after
    keep: tuple[str, ...] = ()  # columns no move may change
    rule: str = "class"  #: "class", or "robust": the window rule held too

    @cached_property
    def every(self) -> Attack:
        """The union of the attacks' variables, as one attack."""
        union = list(dict.fromkeys(v for a in self.attacks for v in a))
        return make_attack(union, self.tolerance, self.kinds)

    @property
    def allowed(self) -> tuple[str, ...]:
        return self.moves.allowed

    @property
    def seed(self) -> int:
        return self.moves.seed

    @property
    def union(self) -> list[str]:
        return list(self.every.known)


def _evaluations(pair: Prepared, job: _Job, pairing: Any) -> list[KprResult]:
    """Every attack on a loaded pair, as ``kpr.evaluate`` evaluates it."""
    return [evaluate_loaded(pair, job.every.on(a), pairing=pairing) for a in job.attacks]


def _states(
    loaded: _Loaded, job: _Job, regenerate_k: int
) -> tuple[list[AttackState], NewAvatars | None, Any]:
    """Each attack's counts, and the new avatars ``regenerate`` may draw from (with
    the avatars extended by them), or None."""
    enc = loaded.encoded
    tol, union = job.every.tolerance, job.union
    codes = {v: enc.columns[v].a for v in union}
    cache: dict[Any, Any] = {}
    states = [AttackState.build(enc.digits(a, tol, cache), codes, enc.n) for a in job.attacks]
    if "regenerate" not in job.allowed:
        return states, None, None
    m = tables.n_rows(loaded.table, loaded.library)
    new_avatars, extended = _new_avatars(loaded, states, regenerate_k, job)
    extended_pair = _pair(loaded.original, loaded.for_metric(extended), job.every, job.csv)
    loaded.encoded = enc = encode(extended_pair, union)
    new_avatars.codes = {v: enc.columns[v].a[m:] for v in union}
    codes = {v: enc.columns[v].a[:m] for v in union}
    cache = {}
    states = [AttackState.build(enc.digits(a, tol, cache), codes, enc.n) for a in job.attacks]
    return states, new_avatars, extended


def _optimise(
    loaded: _Loaded,
    states: list[AttackState],
    job: _Job,
    new_avatars: NewAvatars | None,
    extended: Any,
) -> tuple[dict[str, Column], Outcome, Any, Plausibility]:
    """The greedy choice of moves, the avatar table rewritten with them, and the
    rows holding a pair of categorical values no original row holds, before and after."""
    columns = _columns(loaded, states, job.keep)
    n_columns = len(tables.columns_of(loaded.table, loaded.library))
    pairs = _pair_index(loaded, columns, job)
    robust = job.rule == "robust"
    windows = _windows(loaded, states, columns) if robust else []
    moved = _moved_grids(loaded, job) if robust else []
    optimiser = Optimiser(
        columns,
        states,
        job.target,
        job.allowed,
        job.seed,
        n_columns,
        new_avatars,
        None,
        pairs,
        windows,
        moved,
    )
    outcome = optimiser.run()
    plausible = Plausibility(pairs.columns, pairs.before, pairs.implausible(outcome.deleted))
    if plausible.after > plausible.before:
        raise ProtectionError(
            f"protect failed its own verification (a bug): rows with a pair of categorical "
            f"values no original holds rose {plausible.before} -> {plausible.after}"
        )
    sources = {name: col.source for name, col in columns.items()}
    for name in tables.columns_of(loaded.table, loaded.library):
        sources.setdefault(name, dict(outcome.regenerated))
    drawn = optimiser.new_values.new_values()
    new_values = {n: (v, [g.text(x) for x in v]) for n, (g, v) in drawn.items()}
    protected = tables.rebuild(
        loaded.table, loaded.library, sources, outcome.deleted, extended, new_values
    )
    return columns, outcome, protected, plausible


def _verify_robust(rows: tuple[Collateral, ...], target: float, met: bool) -> None:
    """``--rule robust``, checked by fresh evaluations: under the window rule nobody
    is newly linked and every attack reaches the target when the run met it; on each
    moved grid nobody is newly linked and every attack reaches the target less
    :data:`MOVED_GRID_SLACK` points when the run met it."""
    for c in rows:
        if c.rule == "window":
            floor, what = target, "the window rule"
        elif c.offset:
            floor, what = target - MOVED_GRID_SLACK, f"the grid moved {c.offset:g} width"
        else:
            continue
        if c.newly_linked or (met and c.after.rate < floor):
            raise ProtectionError(
                f"protect failed its own verification (a bug): under {what}, "
                f"{', '.join(c.known)}: {c.after.rate:.4f} %, {c.newly_linked} newly linked"
            )


def _moved_grids(loaded: _Loaded, job: _Job) -> list[AttackState]:
    """Each attack's class rule on the grids moved by :data:`GRID_OFFSETS` of each
    width (``--rule robust``), attack by attack: the engine's digits on the moved grid."""
    enc, tol, union = loaded.encoded, job.every.tolerance, job.union
    m = tables.n_rows(loaded.table, loaded.library)
    codes = {v: enc.columns[v].a[:m] for v in union}
    cache: dict[Any, Any] = {}
    return [
        AttackState.build(enc.digits(a, tol, cache, offset=offset), codes, enc.n)
        for a in job.attacks
        for offset in GRID_OFFSETS
    ]


def _windows(
    loaded: _Loaded, states: list[AttackState], columns: dict[str, Column]
) -> list[WindowState]:
    """Each attack's window rule on the input avatars (``--rule robust``)."""
    enc, m = loaded.encoded, tables.n_rows(loaded.table, loaded.library)
    out = []
    for state in states:
        known = list(state.known)
        codes = np.column_stack([enc.columns[v].o for v in known])
        _, first, held = np.unique(codes, axis=0, return_index=True, return_counts=True)
        u_rows = np.sort(first[held == 1])
        u_values, a_values = {}, {}
        for v in known:
            enc_col, col = enc.columns[v], columns[v]
            if v in state.bins:
                assert enc_col.o_values is not None and col.values is not None
                u_values[v] = enc_col.o_values[enc_col.o[u_rows]].astype(np.float64)
                a_values[v] = col.values[col.codes[:m]].astype(np.float64)
            else:
                u_values[v] = enc_col.o[u_rows]
                a_values[v] = col.codes[:m]
        numeric = [v for v in known if v in state.bins]
        categorical = [v for v in known if v not in state.bins]
        half = {v: state.bins[v].width for v in numeric}
        out.append(WindowState.build(u_values, a_values, categorical, numeric, half, enc.n))
    return out


def _pair_index(loaded: _Loaded, columns: dict[str, Column], job: _Job) -> PairIndex:
    """The categorical pairs the originals hold: the categorical known variables (their
    codes shared by both tables) and, unless *regenerate* rewrites whole rows, the
    other text, categorical and boolean columns both tables have (compared as text;
    when the original was read whole: with the control, the distances, the fidelity)."""
    original: dict[str, np.ndarray] = {}
    avatars: dict[str, np.ndarray] = {}
    radices: dict[str, int] = {}
    for name, col in columns.items():
        if col.kind is Kind.CATEGORICAL:
            o = loaded.encoded.columns[name].o
            original[name], avatars[name] = o, col.codes
            size = max(int(o.max(initial=0)), int(col.codes.max(initial=0))) + 1
            radices[name] = max(loaded.encoded.columns[name].radix, size)
    view = tables.to_polars(loaded.view(loaded.table), loaded.library)
    text = (pl.String, pl.Categorical, pl.Enum, pl.Boolean)
    others = [n for n, t in view.schema.items() if n not in columns and isinstance(t, text)]
    if others and loaded.whole and "regenerate" not in job.allowed:
        frame = _original_frame(loaded, job.csv)
        for name in others:
            if name in frame.columns:
                o, a, radix = pairs_text_codes(frame[name], view[name])
                original[name], avatars[name], radices[name] = o, a, radix
    return pair_index(original, avatars, radices)


def _around(
    job: _Job,
    loaded: _Loaded,
    protected: Any,
    protected_pl: pl.DataFrame,
    worst: tuple[KprResult, KprResult],
    control: Any,
    kinds: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The worst attack's control comparison and the fidelity, before and after."""
    around: dict[str, Any] = {}
    if control is not None:
        control, _ = read_whole(control, job.csv, "control")
        attack = job.every.on(worst[0].known)
        around["control_before"], around["control_after"] = (
            compare_control(
                load(loaded.original, loaded.for_metric(table), attack, job.csv, control),
                attack,
                original_rate=_rate(result),  # as kpr.evaluate gives it
                seed=job.seed,
            )
            for table, result in zip((loaded.table, protected), worst, strict=True)
        )
        # protect lowered the original's links, not the control's: no verdict after
        around["control_after"] = replace(around["control_after"], protected=True)
    if job.utility and protected_pl.height:  # no row left (delete took every avatar)
        around["utility"] = _utility(loaded, protected, kinds, job.csv)
    return around


def _result(
    job: _Job,
    loaded: _Loaded,
    columns: dict[str, Column],
    outcome: Outcome,
    before: list[KprResult],
    after: list[KprResult],
    changes: pl.DataFrame,
    around: dict[str, Any],
) -> ProtectResult:
    per_column, used = _counted(changes, job.union)
    return ProtectResult(
        target=job.target,
        moves=job.allowed,
        seed=job.seed,
        attacks=tuple(
            AttackOutcome(_rate(b), _rate(a), b.correct_links, a.correct_links)
            for b, a in zip(before, after, strict=True)
        ),
        n_avatars=tables.n_rows(loaded.table, loaded.library),
        n_columns=len(tables.columns_of(loaded.table, loaded.library)),
        cells_changed=per_column,
        moves_used=used,
        rows_deleted=len(outcome.deleted),
        shift_bounds={
            n: c.bound for n, c in columns.items() if c.bound is not None and "shift" in job.allowed
        },
        largest_change=_largest_change(columns, outcome.deleted),
        tried=outcome.tried,
        trace=_thin(outcome.trace),
        unfixed=outcome.unfixed,
        keep=job.keep,
        rule=job.rule,
        changes=changes,
        multiplicity=multiplicity_checks(columns, outcome.deleted),
        **around,
    )


def _largest_change(columns: dict[str, Column], deleted: set[int]) -> dict[str, float]:
    """Per numeric or date variable, the largest net change of a cell: its value
    written against its value read, whatever moves it took on the way (0 when none
    changed; a blanked cell has no change to measure)."""
    out: dict[str, float] = {}
    for name, col in columns.items():
        if col.values is None:
            continue
        rows = np.flatnonzero(col.codes != col.input_codes)
        rows = rows[~np.isin(rows, list(deleted))]
        change = np.abs(col.values[col.codes[rows]] - col.values[col.input_codes[rows]])
        change = change[np.isfinite(change)]
        out[name] = float(change.max()) if len(change) else 0.0
    return out


def _agree(states: list[AttackState], before: list[KprResult]) -> None:
    """protect's own counts must be kpr.evaluate's before any move."""
    for s, r in zip(states, before, strict=True):
        if s.linked != r.linked:
            raise ProtectionError(
                f"protect's counts ({s.linked} linked) disagree with kpr.evaluate "
                f"({r.linked}) for {', '.join(s.known)}: a bug"
            )


def _counted(changes: pl.DataFrame, union: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Cells changed per column (a regenerated column counted too) and uses of each move."""
    per_column = {name: changes.filter(pl.col("column") == name).height for name in union}
    for name in changes.filter(pl.col("move") == "regenerate")["column"].unique(
        maintain_order=True
    ):
        per_column.setdefault(name, changes.filter(pl.col("column") == name).height)
    used: dict[str, int] = {}
    for move in changes["move"].to_list():
        used[move] = used.get(move, 0) + 1
    return per_column, used


def _original_frame(loaded: _Loaded, csv: ReadSettings) -> pl.DataFrame:
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


def _new_avatars(
    loaded: _Loaded, states: list[AttackState], k: int, job: _Job
) -> tuple[NewAvatars, Any]:
    """The regenerate move's new avatars: one per linking avatar that has an owner in
    the pairing, drawn from its owner's ``k`` nearest originals (``kpr.avatar``), and
    the avatar table followed by them (their codes are set once that is encoded)."""
    from kpr.avatar.generator import redraw

    before = tables.to_polars(loaded.table, loaded.library)
    m = before.height
    o = _original_frame(loaded, job.csv)
    seed, keep = job.seed, set(job.keep)
    missing = [c for c in before.columns if c not in o.columns]
    if missing:
        raise InputError(
            f"the move 'regenerate' redraws kpr's own avatars of the originals, but the "
            f"avatars' column {missing[0]!r} is not in the originals; choose other moves"
        )
    own = loaded.own
    assert own is not None  # regenerate needs the pairing (checked first)
    owner = np.full(m, -1, dtype=np.int64)
    paired = np.flatnonzero(own >= 0)
    owner[own[paired]] = paired
    linking = sorted({r for s in states for r in s.single.values()})
    rows = np.array([r for r in linking if owner[r] >= 0], dtype=np.int64)
    if len(rows):
        individuals = np.repeat(owner[rows], _REDRAWS)
        drawn = redraw(o.select(before.columns), individuals, k=k, seed=seed)
        try:
            new = pl.DataFrame(drawn).select(before.columns).cast(before.schema)
        except pl.exceptions.PolarsError as e:
            raise InputError(
                f"the move 'regenerate': the new avatars do not fit the avatars' dtypes ({e}); "
                "choose other moves"
            ) from None
    else:
        new = before.clear()
    others = [c for c in before.columns if c not in loaded.kinds]
    drawn_for = np.repeat(rows, _REDRAWS)
    differ = np.zeros(len(drawn_for), dtype=np.int64)
    changes_kept = np.zeros(len(drawn_for), dtype=bool)
    for c in others:
        ne = before[c].gather(drawn_for).ne_missing(new[c]).to_numpy()
        differ += ne.astype(np.int64)
        if c in keep:
            changes_kept |= ne
    found = NewAvatars(
        {int(r): list(range(i * _REDRAWS, (i + 1) * _REDRAWS)) for i, r in enumerate(rows)},
        {},
        differ,
        changes_kept,
    )
    return found, tables.appended(loaded.table, loaded.library, new)


def _distances(loaded: _Loaded, protected: Any, csv: ReadSettings) -> tuple[Any, Any]:
    """Exact copies and DCR of the avatars before and after, in one FAMD space
    fitted on the originals (``kpr.avatar.distance``); the avatars' columns read
    with the originals' types (a CSV's cells are carried as text)."""
    from kpr.avatar.distance import distance_metrics
    from kpr.avatar.projection import Projection

    o = _original_frame(loaded, csv)
    before, after = (
        tables.to_polars(loaded.view(t), loaded.library) for t in (loaded.table, protected)
    )
    shared = [c for c in o.columns if c in before.columns]
    o = o.select(shared)

    def like_original(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.select(
            pl.col(c).cast(o.schema[c], strict=False) if frame.schema[c] != o.schema[c]
            else pl.col(c) for c in shared
        )  # fmt: skip

    space = Projection.fit(o, 5, None)
    return (
        distance_metrics(o, like_original(before), projection=space),
        distance_metrics(o, like_original(after), projection=space),
    )


def _utility(
    loaded: _Loaded, protected: Any, kinds: Mapping[str, str] | None, csv: ReadSettings
) -> dict[str, Any]:
    """Fidelity to the originals before and after (``kpr.utility``), each column's
    Hellinger distance, and how far protect moved each pairwise association."""
    from kpr.fidelity import utility

    original = tables.for_utility(loaded.original, None)

    def measure(avatars: Any) -> Any:
        return utility(
            original, avatars, kinds=kinds, delimiter=csv.delimiter,
            encoding=csv.encoding, na_values=csv.na_values,
        )  # fmt: skip

    before, after = (
        measure(tables.for_utility(t, loaded.source)) for t in (loaded.table, protected)
    )
    columns = before.columns.select("column", hellinger_before="hellinger").join(
        after.columns.select("column", hellinger_after="hellinger"), on="column", how="left"
    )
    keys = ["column_1", "column_2"]
    pairs = before.pairs.select(*keys, before="synthetic_association").join(
        after.pairs.select(*keys, after="synthetic_association"), on=keys, how="inner"
    )
    change = (pairs["after"] - pairs["before"]).abs().fill_nan(None).drop_nulls()
    return {
        "before": before.summary(),
        "after": after.summary(),
        "columns": [
            {k: finite_or_none(v) if isinstance(v, float) else v for k, v in row.items()}
            for row in columns.iter_rows(named=True)
        ],
        "mean_association_change": finite_or_none(change.mean()) if len(change) else None,
        "max_association_change": finite_or_none(change.max()) if len(change) else None,
    }
