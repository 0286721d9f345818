"""The exact steps of the in-memory polars path (``kpr.engine.inmemory``), against
plain polars: each row's group size, and the ids of text values."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import replace

import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kpr.engine import queries
from kpr.engine.inmemory import arrays, groups
from kpr.engine.inmemory.columns import SortedColumn
from kpr.engine.inmemory.digits import LinkDigits, digit_shift, shifted_digits
from kpr.engine.inmemory.keys import PackedKeys
from kpr.engine.inmemory.link import blank_bitmap, linked_count, uses_bitmap
from kpr.engine.inmemory.texts import TextIds, text_hash
from kpr.engine.jobs import Job
from kpr.engine.polars import polars_counting
from kpr.engine.tuning import KeyCount, Sorter, TablePath, Tuning
from kpr.inputs.markers import MARKERS, marker_counts
from kpr.metric.attack import Kind, make_attack
from tests.engine.test_scan import KINDS, tables

TEXTS = st.one_of(st.none(), st.sampled_from(["", "a", "b", "ab", "é", "a" * 20, "NaN"]))
FLOATS = st.one_of(st.none(), st.sampled_from([0.0, -0.0, float("nan"), 1.5, float("inf")]))


def sizes(height: int, groups: tuple[np.ndarray, np.ndarray]) -> list[int]:
    """Each row's group size from :func:`groups.shared_groups` (1 but at its rows)."""
    rows, shared = groups
    assert (np.diff(rows) > 0).all() and (shared > 1).all()  # in order, groups of two or more
    column = np.ones(height, dtype=np.int64)
    column[rows] = shared
    return column.tolist()


@settings(max_examples=80)
@given(
    st.lists(
        st.tuples(
            st.one_of(FLOATS, st.floats(-4, 4, width=16)),
            TEXTS,
            st.one_of(st.none(), st.integers(-2, 2), st.integers(-(2**63), 2**63 - 1)),
        ),
        max_size=40,
    ),
    st.integers(0, 6),
    st.sampled_from([1, 2, 20]),
)
@example([(0.0, "a", 1), (1.5, "a", 1), (2.5, None, None)], 1, 20)
def test_group_sizes_are_those_of_a_group_by(
    rows: list[tuple[object, ...]], twins: int, bits: int
) -> None:
    """Missing equals missing, NaN equals NaN, -0.0 equals 0.0, as in a group-by;
    with every row hashed, and with only the rows not holding a number that no
    other row holds (whatever the slots of the table that finds them). The
    first ``twins`` rows are repeated (a 0.0 as -0.0)."""
    frame = pl.DataFrame(
        rows, schema={"f": pl.Float64, "t": pl.String, "i": pl.Int64}, orient="row"
    )
    negated = pl.when(pl.col("f") == 0).then(-pl.col("f")).otherwise(pl.col("f"))
    frame = pl.concat([frame, frame.head(twins).with_columns(negated)])
    expected = frame.select(pl.len().over(["f", "t", "i"])).to_series().to_list()
    assert sizes(frame.height, groups.shared_groups(frame, ["f", "t", "i"])) == expected
    numbers = [SortedColumn.of(frame[c]) for c in ("f", "i")]
    tuning = Tuning(table_bits=bits)
    found = groups.shared_groups(frame, ["f", "t", "i"], numbers, tuning=tuning)
    assert sizes(frame.height, found) == expected
    texts = TextIds(frame["t"], tuning)  # the rows hashed with their texts' ids
    with_ids = groups.shared_groups(
        frame, ["f", "t", "i"], numbers, lambda: {"t": texts.ids}, tuning
    )
    assert sizes(frame.height, with_ids) == expected


@settings(max_examples=60)
@given(st.integers(0, 40), st.integers(1, 6), st.booleans())
def test_the_engine_finds_g_by_either_way(distinct: int, repeats: int, spread: bool) -> None:
    """G's groups from the engine's tables are those of a group-by, whether the pool's
    thread hashes every row first (no number column's sample is mostly distinct
    values) or the rows a number column singles out are left out first."""
    from kpr.engine.inmemory.evaluate import MemoryTables
    from kpr.metric.attack import Kind

    i = [k % (distinct + 1) for k in range(60)] * repeats
    f = [float(k) if spread else float(k % 3) for k in range(len(i))]
    frame = pl.DataFrame({"i": i, "f": f, "t": [str(k % 2) for k in range(len(i))]})
    kinds = {"i": Kind.NUMERIC, "f": Kind.NUMERIC, "t": Kind.CATEGORICAL}
    tables = MemoryTables(frame.lazy(), frame.lazy(), kinds, Tuning())
    try:
        expected = frame.select(pl.len().over(["i", "f", "t"])).to_series().to_list()
        shared = np.flatnonzero(np.array(expected) > 1)
        assert tables.outside.tolist() == shared.tolist()
    finally:
        tables.close()


def test_rows_sharing_a_hash_are_grouped_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row whose hash another row shares is grouped by its values, so a hash
    collision never merges two groups (every row given the same hash here)."""

    def same_hash(frame: pl.DataFrame, keys: list[str]) -> pl.Series:
        return pl.Series([7] * frame.height, dtype=pl.UInt64)

    monkeypatch.setattr(groups, "_row_hashes", same_hash)
    frame = pl.DataFrame({"a": [1, 2, 2, 3, None, None], "b": ["x", "y", "y", "x", None, "z"]})
    assert sizes(frame.height, groups.shared_groups(frame, ["a", "b"])) == [1, 2, 2, 1, 1, 1]


@settings(max_examples=120)
@given(
    st.lists(TEXTS, max_size=40),
    st.lists(TEXTS, max_size=40),
    st.sampled_from([1, 2, 3, 20]),
    st.sampled_from([1, 3, 1 << 16]),
    st.sampled_from([1, 2, 1 << 16]),
    st.sampled_from([0, 2_000]),  # an enum of the texts, or hash windows
)
def test_text_ids_are_exact(
    original: list[str | None],
    avatars: list[str | None],
    bits: int,
    block: int,
    seed: int,
    few: int,
) -> None:
    """Equal texts get equal ids and different texts different ones (0 for missing),
    whether the hash windows collide (a few bits) or not, or an enum numbers
    them (``few_texts`` 0), whatever the blocks
    of rows compared at a time and the first rows numbered first; an avatar text
    gets the original's id of the same text, or -1 when the original does not
    hold it."""
    tuning = Tuning(table_bits=bits, check_block=block, seed_rows=seed, few_texts=few)
    ids = TextIds(pl.Series(original, dtype=pl.String), tuning)
    encoded = ids.encode(pl.Series(avatars, dtype=pl.String)).tolist()
    rows = ids.rows.tolist()  # counted a block of rows at a time
    of = {}
    for text, i in zip(original, ids.ids.tolist(), strict=True):
        assert (i == 0) == (text is None)
        assert 0 <= i < ids.radix
        assert of.setdefault(text, i) == i  # one id per text
    assert len(set(of.values())) == len(of)  # one text per id
    held, expected = Counter(original), [0] * ids.radix
    for text, i in of.items():
        expected[i] = held[text]
    assert rows == expected  # each id's rows (id 0: missing)
    assert ids.texts().to_list() == [None, *sorted(set(of) - {None}, key=of.__getitem__)]
    for text, i in zip(avatars, encoded, strict=True):
        assert i == (0 if text is None else of.get(text, -1))
    # the same ids from the hashes a query made (text_hash), compared or not
    a_series = pl.Series("t", avatars, dtype=pl.String)
    a_hashes = a_series.to_frame().select(text_hash("t")).to_series().to_numpy()
    assert ids.encode(a_series, a_hashes).tolist() == encoded
    if ids.hashed:
        o_series = pl.Series("t", original, dtype=pl.String)
        o_hashes = o_series.to_frame().select(text_hash("t")).to_series().to_numpy()
        assert ids.held(o_hashes, o_series.is_null().to_numpy()).tolist() == ids.ids.tolist()


def test_text_ids_of_categorical_columns_compare_texts() -> None:
    """A categorical column is compared by its texts (its two tables' categories
    may be numbered differently)."""
    ids = TextIds(pl.Series(["b", "a", None, "b"], dtype=pl.Categorical))
    assert ids.encode(pl.Series(["a", "c", "b"], dtype=pl.String)).tolist() == [
        ids.ids[1],
        -1,
        ids.ids[0],
    ]


@settings(max_examples=80)
@given(
    tables(),
    tables(),
    st.sampled_from([(20, 1 << 16, 2**32, 1, 2**62), (1, 2, 2**32, 3, 1), (20, 3, 1, 2, 2**62)]),
    st.sampled_from([None, 1e-9]),
    st.sampled_from(list(KeyCount)),
)
def test_the_link_in_memory_is_the_lazy_link(
    original: pl.DataFrame,
    avatars: pl.DataFrame,
    memory_settings: tuple[int, int, int, int, int],
    width: float | None,
    path: KeyCount,
) -> None:
    """Two different tables: the counts in memory are those of the lazy queries,
    whatever the text windows, the blocks, the renumbering of keys, the keys'
    width, the threads and the way the avatars' keys held once are found (a
    bincount, a bitmap, a merge), and with classes too many to shift (a tiny
    width: they are numbered instead)."""
    widths = {} if width is None else {"f": width, "i": width}
    attack = make_attack(list(KINDS), 0.05, widths=widths)
    lazy = [nw.from_native(t.lazy()) for t in (original, avatars)]
    names = ("table_bits", "pack_block", "keys32", "workers", "key_limit")
    tuning = replace(
        Tuning.forcing(TablePath.MEMORY, path), **dict(zip(names, memory_settings, strict=True))
    )
    got = queries.run(*lazy, attack, KINDS, row=None, counting=polars_counting(lazy[0], tuning))
    expected = queries.run(*lazy, attack, KINDS, row=None, counting=queries.LazyCounting())
    assert got.counts == expected.counts
    assert got.bins == expected.bins


def _pool(kind: str) -> Executor | None:
    """A pool to share work with: none, a real thread, one that runs every call at
    once, or one that never starts them."""
    from tests.engine.test_scan import _Never, _Now

    if kind == "none":
        return None
    if kind == "thread":
        return ThreadPoolExecutor(1)
    return _Now() if kind == "now" else _Never()


@settings(max_examples=60)
@given(
    st.lists(st.integers(0, 40), max_size=30),
    st.lists(st.integers(0, 40), max_size=30),
    st.sampled_from(list(KeyCount)),
    st.sampled_from([np.int64, np.uint32]),
    st.sets(st.integers(0, 29)),
    st.sampled_from(["none", "thread", "now", "never"]),
    st.booleans(),
)
def test_linked_count_counts_u_profiles_held_once_by_the_avatars(
    u: list[int],
    a: list[int],
    path: KeyCount,
    dtype: type[np.integer],
    outside: set[int],
    pool: str,
    ahead: bool,
) -> None:
    """Each way of counting |S| (a bincount, a table, a merge of sorted keys),
    in 8- and 4-byte keys, against a plain count; some rows left out (not in U),
    half the lookups by a pool (a thread, one that runs them at once, one that
    never starts them), the table's bitmap made ahead or not; U's keys made by a
    call once the avatars' are counted."""
    left_out = np.array(sorted(i for i in outside if i < len(u)), dtype=np.intp)
    held = Counter(a)
    expected = sum(1 for i, key in enumerate(u) if held[key] == 1 and i not in outside)
    tuning = Tuning.forcing(path)
    keys = np.array(u, dtype=dtype), np.array(a, dtype=dtype)
    rows = len(u) - len(left_out) + len(a)
    assert tuning.key_count(41, rows) is path
    assert uses_bitmap(41, rows, tuning) == (path is KeyCount.BITMAP)
    blank = blank_bitmap(41) if ahead else None
    got = linked_count(lambda: keys[0], len(u), keys[1], 41, _pool(pool), left_out, blank, tuning)
    assert got == expected


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4)), max_size=30),
    st.lists(st.tuples(st.integers(-1, 2), st.integers(-1, 4)), max_size=30),
    st.sampled_from([1, 3, 1 << 16]),
    st.sampled_from(["none", "thread", "now", "never"]),
    st.sampled_from(["avatars", "original"]),
)
def test_keys_packed_by_blocks_shared_with_a_pool_are_the_mixed_radix_numbers(
    original: list[tuple[int, int]],
    avatars: list[tuple[int, int]],
    block: int,
    pool: str,
    first: str,
) -> None:
    """Both tables' keys are ``digit0 * 5 + digit1`` (an avatar row with a digit of
    -1 has none), whatever the blocks, whichever thread packs them (a pool's
    thread, one that packs every block at once, one that never starts) and
    whichever table's keys are asked for first."""
    o = np.array(original, dtype=np.int64).reshape(-1, 2)
    a = np.array(avatars, dtype=np.int64).reshape(-1, 2)
    columns = [LinkDigits(3, o[:, 0], a[:, 0]), LinkDigits(5, o[:, 1], a[:, 1])]
    packing = PackedKeys(columns, np.uint32, _pool(pool), block)
    if first == "avatars":
        a_key, valid = packing.avatars()
        o_key = packing.original()
    else:
        o_key = packing.original()
        a_key, valid = packing.avatars()
    assert o_key.tolist() == (o[:, 0] * 5 + o[:, 1]).tolist()
    assert valid.tolist() == ((a[:, 0] >= 0) & (a[:, 1] >= 0)).tolist()
    assert a_key.dtype == np.uint32
    assert a_key[valid].tolist() == (a[valid, 0] * 5 + a[valid, 1]).tolist()


def test_a_job_still_queued_is_made_by_the_thread_that_needs_it() -> None:
    """``Job.result`` makes a call no thread of the pool has started on the calling
    thread, once; a call the pool has started is waited for."""
    import threading

    here = threading.current_thread().name
    gate, started = threading.Event(), threading.Event()
    made: list[str] = []

    def call() -> str:
        made.append(threading.current_thread().name)
        return "made"

    def busy() -> str:
        started.set()
        gate.wait(10)
        return threading.current_thread().name

    with ThreadPoolExecutor(1) as pool:
        running = Job(busy, pool)  # the pool's one thread is busy with it
        queued = Job(call, pool)
        started.wait(10)
        assert queued.result() == queued.result() == "made" and made == [here]
        gate.set()
        assert running.result() != here  # made by the pool, waited for
    assert Job.done(3).result() == 3


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([2**63, 2**63 + 5, None, 2**63], pl.UInt64),
        ([2**64 - 1, 2**64 - 2, 2**64 - 1], pl.UInt64),
        ([-(2**63), None, -(2**63) + 3, -(2**63)], pl.Int64),
        ([3, 1, 3, None, None], pl.Int8),
        ([70_000, 70_001, None, 70_000], pl.Int32),
    ],
)
def test_integers_of_a_small_range_are_counted_at_the_ends_of_their_type(
    values: list[int | None], dtype: pl.DataType
) -> None:
    """Counted by one bincount, the distinct values and their rows are those of a
    group-by, in the column's own type, even beyond int64 (uint64 from 2**63), the
    missing ones apart."""
    column = pl.Series(values, dtype=dtype)
    counted = SortedColumn.of(column)
    present = column.drop_nulls().value_counts().sort(column.name)
    assert counted.distinct.dtype == column.drop_nulls().to_numpy().dtype
    assert counted.distinct.tolist() == present[column.name].to_list()
    assert counted.rows.tolist() == present["count"].to_list()
    assert counted.missing == column.null_count()


def test_link_digits_of_float32_and_integer_values_are_those_of_float64() -> None:
    """The original's values are turned into digits a block at a time: float32 and
    integer ones (missing as any value, their rows absent) in float64, as the lazy
    queries compute them. 0.7 as a float32 is 0.69999999, in class 6 of width 0.1,
    which float32 arithmetic would round into class 7."""

    from kpr.metric.binning import NumericBins

    bins = NumericBins(10, 0.5, 0.3, 0.0, 9.9, lo=0.0, width=0.1, code_min=0.0, code_max=99.0)
    plan = digit_shift(bins)
    assert plan is not None
    tenths = (np.arange(100) / 10).astype(np.float32)
    digits = LinkDigits(plan[1], tenths, tenths, bins, plan[0])
    expected = shifted_digits(tenths.astype(np.float64), bins, plan[0])
    assert digits.block(tenths, 0, 100).tolist() == expected.tolist()
    assert expected[7] == expected[6]  # float64: 0.7f shares 0.6's class
    integers = np.arange(100, dtype=np.int64) % 9
    absent = integers == 4
    digits = LinkDigits(plan[1], integers, tenths, bins, plan[0], absent)
    floats = np.where(absent, np.nan, integers.astype(np.float64))
    assert (
        digits.block(integers, 3, 60).tolist()
        == shifted_digits(floats[3:60], bins, plan[0]).tolist()
    )


@settings(max_examples=60)
@given(
    st.lists(
        st.one_of(
            st.floats(-30.0, 130.0),
            st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 1e300]),
        ),
        min_size=1,
        max_size=40,
    )
)
@example([5.0, 105.0])  # just above U's classes
@example([5.0, -5.0])  # just below
@example([5.0, float("nan")])
def test_digits_of_a_block_inside_the_classes_are_those_of_the_class_codes(
    values: list[float],
) -> None:
    """The quick digits (a block whose present values all fall in U's classes:
    no search for the special codes) equal the class codes less the shift, each
    special code plus 4, the codes taken one value at a time by the rule of the
    spec; and the avatars' column packed from its polars values gives the same
    digits."""
    import math

    from kpr.metric import classes
    from kpr.metric.binning import NumericBins

    bins = NumericBins(10, 0.5, 0.3, 0.0, 99.9, lo=0.0, width=10.0, code_min=0.0, code_max=9.0)
    plan = digit_shift(bins)
    assert plan is not None

    def code(value: float) -> float:
        if math.isnan(value):
            return classes.MISSING
        if math.isinf(value):
            return classes.POS_INF if value > 0 else classes.NEG_INF
        at = math.floor((value - 0.0) / 10.0)
        return at if 0 <= at <= 9 else classes.OUTSIDE

    array = np.array(values)
    codes = np.array([code(v) for v in values], dtype=np.float64)
    expected = np.where(codes >= 0, codes - plan[0], codes + classes.DIGIT_OFFSET).astype(np.int64)
    assert shifted_digits(array, bins, plan[0]).tolist() == expected.tolist()
    column = pl.Series(values, dtype=pl.Float64)
    digits = LinkDigits(plan[1], array, column, bins, plan[0])
    assert digits.block(column, 0, len(values)).tolist() == expected.tolist()


MARKED = st.one_of(st.none(), st.sampled_from([*MARKERS, "1", " 2.5 ", "x", "NaN"]))


@settings(max_examples=60)
@given(st.lists(MARKED, min_size=1, max_size=40), st.sampled_from([0, 2_000]))
def test_the_markers_counted_on_the_engines_texts_equal_the_query(
    values: list[str | None], few: int
) -> None:
    """The missing-value markers counted on the distinct texts the in-memory engine
    numbered (an enum of them, or hash windows) equal those of the query on the
    original; the engine made them for every text column it numbered."""
    frame = pl.DataFrame({"t": pl.Series(values, dtype=pl.String), "x": range(len(values))})
    lazy = nw.from_native(frame.lazy())
    tuning = replace(Tuning.forcing(TablePath.MEMORY), few_texts=few)
    kinds = {"t": Kind.CATEGORICAL, "x": Kind.NUMERIC}
    attack = make_attack(list(kinds), 0.05)
    run = queries.run(lazy, lazy, attack, kinds, row=None, counting=polars_counting(lazy, tuning))
    assert set(run.texts) == {"t"}
    assert marker_counts(lazy, ["t", "x"], run.texts) == marker_counts(lazy, ["t", "x"])


@settings(max_examples=150)
@given(
    st.one_of(
        st.tuples(st.lists(FLOATS, max_size=40), st.sampled_from([pl.Float64, pl.Float32])),
        st.tuples(
            st.lists(
                st.one_of(st.none(), st.sampled_from([-(2**62), -1, 0, 5, 2**62])), max_size=40
            ),
            st.just(pl.Int64),
        ),
    )
)
def test_a_column_of_few_values_grouped_counts_as_sorted(
    values_dtype: tuple[list[float | int | None], pl.DataType],
) -> None:
    """A number column whose sample holds few values is grouped, not sorted: the same
    distinct values (-0.0 one with 0.0), rows, missing, NaN and rows held once."""
    values, dtype = values_dtype
    column = pl.Series("x", values, dtype=dtype)
    grouped = SortedColumn.of(column, Tuning())
    ordered = SortedColumn.of(column, Tuning(few_values=0, count_span=0))
    for c in (grouped, ordered):
        assert c.distinct.dtype == ordered.values.dtype
    assert grouped.distinct.tolist() == ordered.distinct.tolist()
    assert grouped.rows.tolist() == ordered.rows.tolist()
    assert (grouped.missing, grouped.nan) == (ordered.missing, ordered.nan)
    assert grouped.unique() == ordered.unique() == int(column.is_unique().sum())


@pytest.mark.parametrize("sorter", list(Sorter))
@settings(max_examples=150)
@given(
    values=st.one_of(
        st.lists(st.floats(width=64), max_size=50).map(lambda v: np.array(v, dtype=np.float64)),
        st.lists(st.floats(width=32), max_size=50).map(lambda v: np.array(v, dtype=np.float32)),
        st.lists(st.integers(0, 2**64 - 1), max_size=50).map(
            lambda v: np.array(v, dtype=np.uint64)
        ),
        st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50).map(
            lambda v: np.array(v, dtype=np.int64)
        ),
    )
)
def test_the_engine_sorts_as_numpy_does(values: np.ndarray, sorter: Sorter) -> None:
    """Every sorter of ``runs.sort`` (numpy, polars on its threads or not) gives
    ``np.sort``'s order, in the same type: NaN last, -0.0 equal to 0.0, integers to
    the ends of their type."""
    from kpr.engine.inmemory.runs import sort

    expected = np.sort(values)
    ordered = sort(values, sorter)
    assert ordered.dtype == values.dtype
    np.testing.assert_array_equal(ordered, expected)


@settings(max_examples=150)
@given(st.lists(st.floats(width=64), max_size=60), st.integers(1, 7))
def test_float_bits_keep_the_order_and_turn_back(values: list[float], block: int) -> None:
    """The integers a float64 sort goes through (``runs._ordered_bits``, a block of
    ``block`` values at a time) order as the floats do, turn back into the very
    bits, and put every NaN (of either sign) last."""
    from kpr.engine.inmemory.runs import _ordered_bits

    floats = np.array(values, dtype=np.float64)
    keys = _ordered_bits(floats, block=block)
    assert _ordered_bits(keys, block=block).tobytes() == floats.tobytes()
    nan = np.isnan(floats)
    a, k = floats[~nan], keys[~nan]
    assert ((a[:, None] < a[None, :]) <= (k[:, None] < k[None, :])).all()
    assert ((a[:, None] == a[None, :]) <= (np.abs(k[:, None] - k[None, :]) <= 1)).all()
    last = _ordered_bits(floats, nan_last=True, block=block)
    assert (last[nan] == np.iinfo(np.int64).max).all()
    assert (last[~nan] < np.iinfo(np.int64).max).all()


@settings(max_examples=100)
@given(
    st.lists(st.one_of(FLOATS, st.floats(-4, 4, width=16)), max_size=30),
    st.lists(st.one_of(st.none(), st.integers(0, 255)), max_size=30),
    st.lists(TEXTS, max_size=30),
    st.integers(1, 7),
)
def test_a_column_in_chunks_becomes_the_array_of_the_whole_column(
    floats: list[float | None], ints: list[int | None], texts: list[str | None], rows: int
) -> None:
    """``arrays.chunkwise`` writes each chunk where the whole column's ``to_numpy``
    puts it: fills keep their type (a fill of NaN, a fill of an unsigned byte),
    hashes are those of the whole column."""
    cases = [  # a column, what becomes of each chunk, and the fill that does it
        (pl.Series(floats, dtype=pl.Float64), lambda s: s.fill_null(np.nan), np.nan),
        (pl.Series(ints, dtype=pl.UInt8), lambda s: s.fill_null(7), 7),
        (pl.Series(texts, dtype=pl.String), pl.Series.hash, None),
    ]
    for whole, make, fill in cases:
        parts = [whole.slice(start, rows) for start in range(0, len(whole), rows)]
        chunked = pl.concat(parts, rechunk=False) if parts else whole
        expected = make(whole).to_numpy()
        got = arrays.chunkwise(chunked, make) if fill is None else arrays.filled(chunked, fill)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_a_column_of_one_chunk_without_missing_values_is_not_copied() -> None:
    column = pl.Series([1.5, 2.5, 3.5])
    assert np.shares_memory(arrays.filled(column, np.nan), column.to_numpy())
