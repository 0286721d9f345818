"""Every counting path gives the reference's answer (``tests/reference.py``) on the
same cases (``test_engines.CASES``): each path polars input may take
(``TablePath``), each way packed keys are counted (``KeyCount``), with keys
renumbered on the way or not, and the sweep that encodes candidates once.

A new counting path is added to ``PATHS`` (or ``SWEEP_PATHS``): it then runs every
case. Paths are chosen by the ``Tuning`` passed in, never by patching a module."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl
import pytest

import kpr
from kpr.engine import tuning
from kpr.engine.backends import counting_for
from kpr.engine.inmemory import EncodedTables
from kpr.engine.tuning import KeyCount, Sorter, TablePath, Tuning, available_memory
from kpr.measure import load
from kpr.metric.attack import make_attack

from .test_engines import CASES, _reference, assert_same

#: A key limit that makes every attack of two or more variables renumber its keys.
_RENUMBERED = 8

PATHS = {
    **{f"memory-{k.value}": Tuning.forcing(TablePath.MEMORY, k) for k in KeyCount},
    **{
        f"memory-{k.value}-renumbered": replace(
            Tuning.forcing(TablePath.MEMORY, k), key_limit=_RENUMBERED
        )
        for k in KeyCount
    },
    # numbers sorted (never counted or grouped) and searched (never tabled), texts
    # numbered by an enum; sorted by numpy, then by polars (whatever this CPU has)
    "memory-sorts-and-enums": replace(
        Tuning.forcing(TablePath.MEMORY),
        few_texts=0,
        count_span=0,
        table_span=0,
        few_values=0,
        numpy_sorts=True,
    ),
    "memory-polars-sorts": replace(
        Tuning.forcing(TablePath.MEMORY, KeyCount.SORT),
        count_span=0,
        few_values=0,
        numpy_sorts=False,
    ),
    "grouped": Tuning.forcing(TablePath.GROUPED),
    "hashed": Tuning.forcing(TablePath.HASHED),
    # every number column sorted (none grouped): U found from a column's values held
    # once when one holds most rows' own value
    "hashed-sorted": replace(Tuning.forcing(TablePath.HASHED), few_values=0, numpy_sorts=True),
    "hashed-polars-sorts": replace(
        Tuning.forcing(TablePath.HASHED), few_values=0, numpy_sorts=False
    ),
    # the link's keys packed a few rows at a time, from batches of a few rows; text ids
    # from hash windows of 2 bits (colliding: the next window, or an enum), or an enum
    "hashed-small-batches": replace(
        Tuning.forcing(TablePath.HASHED), batch_rows=2, pack_block=3, table_bits=2
    ),
    "hashed-enums": replace(Tuning.forcing(TablePath.HASHED), few_texts=0, pack_block=2),
}
SWEEP_PATHS = {
    **{f"sweep-{k.value}": Tuning.forcing(k) for k in KeyCount},
    **{f"sweep-{k.value}-renumbered": replace(Tuning.forcing(k), key_limit=_RENUMBERED)
       for k in KeyCount},
}  # fmt: skip


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("name", list(CASES))
def test_every_counting_path_gives_the_reference_answer(path: str, name: str) -> None:
    case = CASES[name]
    o, a = case.frames()
    result = kpr.evaluate(
        o.lazy(), a.lazy(), case.known, tolerance=case.tolerance, kinds=case.kinds,
        tuning=PATHS[path],
    )  # fmt: skip
    assert_same(result, _reference(case))


def in_chunks(frame: pl.DataFrame, rows: int) -> pl.DataFrame:
    """``frame`` held in chunks of ``rows`` rows, as a Parquet file's row groups are read."""
    parts = [frame.slice(start, rows) for start in range(0, frame.height, rows)]
    return pl.concat(parts, rechunk=False) if parts else frame


@pytest.mark.parametrize("path", ["memory-bincount", "memory-sorts-and-enums"])
@pytest.mark.parametrize("name", list(CASES))
def test_tables_held_in_chunks_give_the_reference_answer(path: str, name: str) -> None:
    """The in-memory path turns each chunk of a column into numpy on its own
    (``kpr.engine.inmemory.arrays``): chunks of 2 rows give the reference's answer."""
    case = CASES[name]
    o, a = (in_chunks(f, 2) for f in case.frames())
    if o.height > 2:  # the chunks survive the engine's query
        assert o.lazy().select(case.known).collect()[case.known[0]].n_chunks() > 1
    result = kpr.evaluate(
        o.lazy(), a.lazy(), case.known, tolerance=case.tolerance, kinds=case.kinds,
        tuning=PATHS[path],
    )  # fmt: skip
    assert_same(result, _reference(case))


@pytest.mark.parametrize("path", list(SWEEP_PATHS))
@pytest.mark.parametrize("name", list(CASES))
def test_every_sweep_path_gives_the_reference_counts(path: str, name: str) -> None:
    case = CASES[name]
    o, a = case.frames()
    attack = make_attack(case.known, case.tolerance, case.kinds)
    prepared = load(o, a, attack, materialize=True).pair
    frames = [
        f.select(case.known).to_native().collect() for f in (prepared.original, prepared.avatars)
    ]
    kinds = {v: prepared.kinds[v] for v in case.known}
    got = EncodedTables(*frames, kinds, SWEEP_PATHS[path]).attack(case.known, case.tolerance)
    expected = _reference(case)
    assert (got.counts.n, got.counts.n_avatars) == (expected.n, expected.n_avatars)
    assert (got.counts.unique_originals, got.counts.linked) == (
        expected.unique_originals,
        expected.linked,
    )
    for v, b in expected.bins.items():
        assert (got.bins[v].lo, got.bins[v].width) == (b.lo, b.width), v


def test_the_path_is_a_named_value_chosen_by_the_memory_it_needs() -> None:
    tuning = Tuning(memory_bytes=2 * 1000 * 5 * Tuning().memory_per_cell)
    assert tuning.table_path(1000, 5) is TablePath.MEMORY
    assert tuning.table_path(1000, 6) is TablePath.GROUPED  # one known variable more
    assert tuning.table_path(30_000, 1) is TablePath.HASHED  # above hashed_rows
    assert Tuning(memory_bytes=0).table_path(10) is TablePath.GROUPED
    assert Tuning().table_path(10**12, 5) is TablePath.HASHED
    assert available_memory() > 0
    assert tuning.key_count(100, 10) is KeyCount.BINCOUNT
    assert tuning.key_count(2**25, 10) is KeyCount.BITMAP
    assert tuning.key_count(2**40, 10) is KeyCount.SORT
    for path in (*TablePath, *KeyCount):
        forced = Tuning.forcing(path)
        assert path in (forced.table_path(5), forced.key_count(64, 5))
    assert Tuning.forcing(TablePath.HASHED).table_path(0) is TablePath.MEMORY  # nothing to count


def test_the_sorter_is_numpy_only_where_its_sort_is_the_quicker_and_no_core_is_spare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert Tuning(workers=1, numpy_sorts=True).sorter is Sorter.NUMPY
    assert Tuning(workers=1, numpy_sorts=False).sorter is Sorter.POLARS
    for quicker, sorter in ((True, Sorter.NUMPY), (False, Sorter.POLARS)):  # measured
        monkeypatch.setattr(tuning, "numpy_sorts_quicker", lambda q=quicker: q)
        assert Tuning(workers=1).sorter is sorter
    monkeypatch.setattr(os, "cpu_count", lambda: 8)  # cores to spare: polars' own threads
    assert Tuning(workers=4, numpy_sorts=True).sorter is Sorter.POLARS_THREADED


@pytest.mark.parametrize("slowed", ["numpy", "polars"])
def test_the_quicker_sort_is_measured(monkeypatch: pytest.MonkeyPatch, slowed: str) -> None:
    """Each sort made 50 ms slower in turn (either is some milliseconds here): the other
    is found the quicker, whatever the machine's processor and load."""

    def slower(sort: Any) -> Any:
        def slowed_sort(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.05)
            return sort(*args, **kwargs)

        return slowed_sort

    if slowed == "numpy":
        monkeypatch.setattr(np, "sort", slower(np.sort))
    else:
        monkeypatch.setattr(pl.Series, "sort", slower(pl.Series.sort))
    assert tuning.measure_sorts() is (slowed == "polars")


def test_the_sorts_are_measured_once_whatever_the_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine's threads ask for the sorter at once: one measures, the others wait
    for its answer (two measuring side by side would each slow the other's)."""
    calls: list[int] = []

    def measured() -> bool:
        calls.append(1)
        time.sleep(0.05)
        return True

    monkeypatch.setattr(tuning, "measure_sorts", measured)
    tuning._measured_once.cache_clear()
    try:
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: tuning.numpy_sorts_quicker(), range(8)))
    finally:
        tuning._measured_once.cache_clear()  # the next caller measures this machine
    assert answers == [True] * 8 and len(calls) == 1


def test_a_tuning_of_another_type_is_one_clear_error() -> None:
    o, a = CASES["worked-example"].frames()
    wrong = r"tuning must be a kpr\.engine\.tuning\.Tuning, not dict"
    with pytest.raises(kpr.InputError, match=wrong):
        kpr.evaluate(o, a, ["age", "sex"], tuning={"memory_bytes": 0})  # type: ignore[arg-type]


@pytest.mark.parametrize("path", list(PATHS))
def test_every_counting_path_counts_the_cells_of_a_brute_force_count(path: str) -> None:
    """``Counting.cells`` (the counts the inference and membership measures take),
    missing == missing, against a count of the rows' tuples by hand."""
    left = {"a": [1, 1, None, 2, None, 1], "b": ["x", "x", "y", None, "y", "z"]}
    right = {"a": [None, 1, 3], "b": ["y", "x", None]}
    parts = {
        "left": nw.from_native(pl.LazyFrame(left)),
        "right": nw.from_native(pl.LazyFrame(right)),
    }
    counting = counting_for(parts["left"], PATHS[path])
    table = counting.cells(parts, ["a", "b"]).collect(backend="polars").to_native()
    got = {(r["a"], r["b"]): (r["left"], r["right"]) for r in table.iter_rows(named=True)}
    expected: dict[tuple[object, object], list[int]] = {}
    for side, data in enumerate((left, right)):
        for row in zip(data["a"], data["b"], strict=True):
            expected.setdefault(row, [0, 0])[side] += 1
    assert got == {k: tuple(v) for k, v in expected.items()}
    assert table.schema["left"] == table.schema["right"] == pl.Int64
