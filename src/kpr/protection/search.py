"""The search's inputs and its run: each attack's profile counts (and, under
``--rule robust``, its window rule and its class rule on moved grids), the known
columns as codes, the categorical pairs the originals hold; then the greedy
optimiser (:mod:`kpr.protection.optimise`) and the avatar table rewritten with its
moves."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from kpr.analysis.sweep import encode
from kpr.metric.attack import Kind
from kpr.protection import table as tables
from kpr.protection.job import ProtectJob
from kpr.protection.loading import Loaded, load_pair, original_frame
from kpr.protection.moves import Column, NewAvatars, Outcome
from kpr.protection.optimise import Optimiser
from kpr.protection.plausibility import PairIndex, pair_index
from kpr.protection.plausibility import text_codes as pairs_text_codes
from kpr.protection.regenerate import new_avatars
from kpr.protection.state import AttackState
from kpr.protection.verification import check_plausible
from kpr.protection.window_state import WindowState
from kpr.results.marks import Plausibility
from kpr.results.protect import GRID_OFFSETS


def attack_states(
    loaded: Loaded, job: ProtectJob, regenerate_k: int
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
    m = loaded.n_avatars
    drawn, extended = new_avatars(loaded, states, regenerate_k, job)
    extended_pair = load_pair(loaded.original, loaded.for_metric(extended), job.every, job.csv)
    loaded.encoded = enc = encode(extended_pair, union)
    drawn.codes = {v: enc.columns[v].a[m:] for v in union}
    codes = {v: enc.columns[v].a[:m] for v in union}
    cache = {}
    states = [AttackState.build(enc.digits(a, tol, cache), codes, enc.n) for a in job.attacks]
    return states, drawn, extended


def optimise(
    loaded: Loaded,
    states: list[AttackState],
    job: ProtectJob,
    drawn: NewAvatars | None,
    extended: Any,
) -> tuple[dict[str, Column], Outcome, Any, Plausibility]:
    """The greedy choice of moves, the avatar table rewritten with them, and the
    rows holding a pair of categorical values no original row holds, before and after."""
    columns = _columns(loaded, states, job.keep)
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
        len(loaded.columns),
        drawn,
        None,
        pairs,
        windows,
        moved,
    )
    outcome = optimiser.run()
    plausible = Plausibility(pairs.columns, pairs.before, pairs.implausible(outcome.deleted))
    check_plausible(plausible)
    sources = {name: col.source for name, col in columns.items()}
    for name in loaded.columns:
        sources.setdefault(name, dict(outcome.regenerated))
    new_values = {
        n: (v, [g.text(x) for x in v]) for n, (g, v) in optimiser.new_values.new_values().items()
    }
    protected = tables.rebuild(
        loaded.table, loaded.library, sources, outcome.deleted, extended, new_values
    )
    return columns, outcome, protected, plausible


def _columns(loaded: Loaded, states: list[AttackState], keep: tuple[str, ...]) -> dict[str, Column]:
    """Each known variable of the avatars as the optimiser changes it: codes, values,
    the first row holding each code, whether it may be blanked, its narrowest width."""
    out: dict[str, Column] = {}
    m = loaded.n_avatars
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


def _moved_grids(loaded: Loaded, job: ProtectJob) -> list[AttackState]:
    """Each attack's class rule on the grids moved by ``GRID_OFFSETS`` of each width
    (``--rule robust``), attack by attack: the engine's digits on the moved grid."""
    enc, tol, union = loaded.encoded, job.every.tolerance, job.union
    m = loaded.n_avatars
    codes = {v: enc.columns[v].a[:m] for v in union}
    cache: dict[Any, Any] = {}
    return [
        AttackState.build(enc.digits(a, tol, cache, offset=offset), codes, enc.n)
        for a in job.attacks
        for offset in GRID_OFFSETS
    ]


def _windows(
    loaded: Loaded, states: list[AttackState], columns: dict[str, Column]
) -> list[WindowState]:
    """Each attack's window rule on the input avatars (``--rule robust``)."""
    enc, m = loaded.encoded, loaded.n_avatars
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


def _pair_index(loaded: Loaded, columns: dict[str, Column], job: ProtectJob) -> PairIndex:
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
        frame = original_frame(loaded, job.csv)
        for name in others:
            if name in frame.columns:
                o, a, radix = pairs_text_codes(frame[name], view[name])
                original[name], avatars[name], radices[name] = o, a, radix
    return pair_index(original, avatars, radices)
