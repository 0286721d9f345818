"""kpr.utility: the fidelity scores (their equality with SDMetrics is in tests_sdmetrics)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.fidelity.columns import (
    DISCRETE_BINS,
    _level_codes,
    code_dtype,
    discretize,
    ks_complement,
    sorted_quantiles,
    tv_complement,
)
from kpr.fidelity.pairs import centre, correlations, group_sums, joint_counts, pearson
from tests.conftest import run_cli as _run


def _table(n: int = 4000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    income = age * 1000.0 + rng.normal(0, 5000, n)
    group = np.where(age > 50, "senior", "junior")
    city = rng.choice(["a", "b", "c"], n)
    return pl.DataFrame({"age": age, "income": income, "group": group, "city": city})


def test_identical_tables_score_one() -> None:
    t = _table()
    r = kpr.utility(t, t)
    assert r.overall == 1.0
    assert r.columns["score"].to_list() == [1.0] * 4
    assert r.mean_hellinger == 0.0
    assert r.correlation_difference == 0.0


def test_breaking_one_relationship_keeps_columns_and_names_the_pair() -> None:
    """Permuting one column keeps every column's distribution and breaks its pairs."""
    t = _table()
    rng = np.random.default_rng(1)
    broken = t.with_columns(pl.Series("income", t["income"].to_numpy()[rng.permutation(t.height)]))
    r = kpr.utility(t, broken)
    assert r.columns["score"].to_list() == [1.0] * 4
    assert r.columns["hellinger"].to_list() == [0.0] * 4
    pairs = {(a, b): s for a, b, s in r.pairs.select("column_1", "column_2", "score").iter_rows()}
    assert pairs[("age", "income")] < 0.6  # r ~ 0.97 -> ~ 0
    assert pairs[("age", "group")] == 1.0  # untouched pairs stay at 1
    assert pairs[("group", "city")] == 1.0
    worst = r.worst_pairs(1).row(0, named=True)
    assert (worst["column_1"], worst["column_2"]) == ("age", "income")
    assert r.column_pair_trends < 1.0
    assert "income" in r.pair_table()["column_2"][0]


def test_ks_complement_matches_the_definition() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([3.0, 4.0, 5.0, 6.0])
    assert ks_complement(x, y) == 0.5
    assert np.isnan(ks_complement(x, np.array([])))


def test_tv_complement_regularises_synthetic_only_categories() -> None:
    real = np.array([2, 2, 0])
    syn = np.array([2, 1, 1])
    total = 4 + 1e-6  # the synthetic-only category counts 1e-6 on the real side
    f_exp = [2 / total, 2 / total, 1e-6 / total]
    f_obs = [2 / 4, 1 / 4, 1 / 4]
    expected = 1 - 0.5 * sum(abs(o - e) for o, e in zip(f_obs, f_exp, strict=True))
    assert tv_complement(real, syn) == pytest.approx(expected, abs=1e-15)


def test_to_dict_is_json_ready() -> None:
    t = _table(300)
    d = kpr.utility(t, t.sample(fraction=1.0, shuffle=True, seed=2)).to_dict()
    assert d["overall"] == 1.0
    assert {c["column"] for c in d["columns"]} == {"age", "income", "group", "city"}
    assert len(d["pairs"]) == 6


def test_columns_and_kinds_restrict_and_override() -> None:
    t = _table(300)
    r = kpr.utility(t, t, columns=["age", "city"], kinds={"age": "categorical"})
    assert r.columns["metric"].to_list() == ["TVComplement", "TVComplement"]
    with pytest.raises(kpr.InputError, match="synthetic lacks column"):
        kpr.utility(t, t.drop("city"))


def test_cli_names_the_broken_pair_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _table(2000)
    rng = np.random.default_rng(3)
    broken = t.with_columns(pl.Series("income", t["income"].to_numpy()[rng.permutation(t.height)]))
    t.write_csv(tmp_path / "o.csv")
    broken.write_parquet(tmp_path / "s.parquet")
    report = tmp_path / "u.html"
    code, out, err = _run(
        ["utility", str(tmp_path / "o.csv"), str(tmp_path / "s.parquet"), "--report",
         str(report), "-q"], capsys,
    )  # fmt: skip
    assert code == 0, err
    moved = out.split("Pairs whose association moved most")[1].splitlines()
    assert moved[2].split()[:3] == ["age", "x", "income"]  # the first pair listed
    page = report.read_text("utf-8")
    assert "<svg" in page and "age &times; income" in page


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-c", "age,nope"], "no column 'nope'"),
        (["--numeric", "agee"], "a kind is declared for 'agee'"),
        (["--categorical", "age", "--numeric", "age"], "both --categorical and --numeric"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    path = tmp_path / "o.csv"
    _table(50).write_csv(path)
    code, _out, err = _run(["utility", str(path), str(path), *extra], capsys)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_every_input_type_gives_the_same_scores(tmp_path: Path) -> None:
    """polars, pandas, pyarrow, DuckDB, CSV and Parquet inputs read to the same numbers."""
    t = _table(500)
    s = _table(500, seed=5)
    base = kpr.utility(t, s).to_dict()
    t.write_csv(tmp_path / "o.csv")
    s.write_parquet(tmp_path / "s.parquet")
    for o_in, s_in in [
        (t.to_pandas(), s.to_pandas()),
        (t.to_arrow(), s.to_arrow()),
        (str(tmp_path / "o.csv"), str(tmp_path / "s.parquet")),
        (t.lazy(), s.lazy()),
    ]:
        assert kpr.utility(o_in, s_in).to_dict() == base
    import duckdb

    con = duckdb.connect()
    con.register("o", t.to_arrow())
    con.register("s", s.to_arrow())
    assert kpr.utility(con.sql("select * from o"), con.sql("select * from s")).to_dict() == base


def test_row_order_does_not_change_the_scores() -> None:
    t = _table(800)
    s = _table(800, seed=7)
    a = kpr.utility(t, s).to_dict()
    b = kpr.utility(t.reverse(), s.sample(fraction=1.0, shuffle=True, seed=1)).to_dict()
    for key in ("overall", "column_shapes", "column_pair_trends", "mean_hellinger"):
        assert b[key] == pytest.approx(a[key], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("empty", ["original", "synthetic"])
def test_an_empty_table_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], empty: str
) -> None:
    """A header and no row: no distribution to compare, so an error, not scores of NaN."""
    full, none = tmp_path / "full.csv", tmp_path / "none.csv"
    _table(50).write_csv(full)
    none.write_text("age,income,group,city\n")
    args = [str(none), str(full)] if empty == "original" else [str(full), str(none)]
    code, out, err = _run(["utility", *args], capsys)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"kpr: error: the {empty} table has no rows: there is no distribution to compare; "
        "give a table with rows"
    )
    with pytest.raises(kpr.InputError, match=f"the {empty} table has no rows"):
        kpr.utility(*args)


@st.composite
def _coded(
    draw: st.DrawFn, most_levels: int, columns: tuple[int, int], rows: tuple[int, int]
) -> tuple[list[int], int, list[np.ndarray], np.random.Generator]:
    """Categorical columns coded 0 to k - 1, drawn by a seeded generator: (the levels
    of each, the number of rows, the codes, the generator, to draw more with)."""
    levels = draw(st.lists(st.integers(1, most_levels), min_size=columns[0], max_size=columns[1]))
    n = draw(st.integers(*rows))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return levels, n, [rng.integers(0, k, n) for k in levels], rng


@settings(max_examples=40, deadline=None)
@given(_coded(most_levels=9, columns=(2, 7), rows=(0, 300)))
def test_joint_counts_equal_one_crosstab_per_pair(
    coded: tuple[list[int], int, list[np.ndarray], np.random.Generator],
) -> None:
    """Counting several columns together gives every pair's table exactly."""
    levels, n, drawn, _ = coded
    codes = [c.astype(code_dtype(k)) for c, k in zip(drawn, levels, strict=True)]  # kpr dtypes
    got = joint_counts(list(codes), levels, n)
    for i, j in itertools.combinations(range(len(levels)), 2):
        want = np.zeros((levels[i], levels[j]), dtype=np.int64)
        np.add.at(want, (codes[i], codes[j]), 1)
        assert np.array_equal(got[(i, j)], want), (i, j)
    # only the pairs asked for (the report needs no counts of two numbers)
    wanted = {p for p in itertools.combinations(range(len(levels)), 2) if sum(p) % 2}
    some = joint_counts(list(codes), levels, n, wanted)
    assert some.keys() == wanted
    assert all(np.array_equal(some[p], got[p]) for p in wanted)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 60), st.integers(0, 2**32 - 1), st.booleans())
def test_correlations_equal_pearson_on_complete_rows(n: int, seed: int, flat: bool) -> None:
    """Grouped by missing-value pattern, r equals Pearson's on the rows both hold,
    NaN where a column is constant on them."""
    rng = np.random.default_rng(seed)
    values = [rng.normal(size=n).round(1) for _ in range(4)]
    values[1][rng.random(n) < 0.3] = np.nan
    values[2][rng.random(n) < 0.3] = np.nan
    if flat:  # constant where column 1 is present, not elsewhere
        values[3] = np.where(np.isnan(values[1]), values[3], 2.0)
    present = [~np.isnan(v) for v in values]
    kept = [v[~np.isnan(v)] for v in values]
    constant = [bool(k.size and k.min() == k.max()) for k in kept]
    got = correlations(values, present, constant)
    centred = centre(values, present)
    assert np.array_equal(correlations(values, present, constant, centred), got, equal_nan=True)
    for i, j in itertools.combinations(range(4), 2):
        want = np.nan if constant[i] or constant[j] else pearson(values[i], values[j])
        assert (np.isnan(want) and np.isnan(got[i, j])) or abs(got[i, j] - want) < 1e-12


def test_a_category_the_first_rows_miss_is_coded_like_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Categories are first taken from the first rows; one that appears later (on
    either side) makes the column be coded with every category: the same scores."""
    import kpr.fidelity.columns as fidelity_columns

    t = _table(600)
    late = pl.Series("group", ["a", "b"] * 100 + ["zz", None, "b", "a"] * 100)
    s = _table(600, seed=2).with_columns(late.alias("group"))
    want = [kpr.utility(t, s).to_dict(), kpr.utility(s, t).to_dict()]
    monkeypatch.setattr(fidelity_columns, "_GUESS_ROWS", 10)
    assert [kpr.utility(t, s).to_dict(), kpr.utility(s, t).to_dict()] == want
    codes = fidelity_columns.category_codes(t, s, ["group"])["group"]
    assert codes[2] == 6  # junior, senior, a, b, zz, and missing


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=60),
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=60),
    st.booleans(),
)
def test_ks_complement_equals_scipy_with_ties_and_without(
    tied: list[int], spread: list[float], swap: bool
) -> None:
    """Both ways of reading the CDFs (binary search when values repeat, a merge when
    they hardly do) give the statistic of both CDFs at every value, exactly, and
    scipy's to its last digits."""
    from scipy.stats import ks_2samp

    for a, b in ((tied, spread), (tied, tied[::2] or tied), (spread, spread[1:] or spread)):
        x, y = np.sort(np.array(a, dtype=float)), np.sort(np.array(b, dtype=float))
        if swap:
            x, y = y, x
        every = np.concatenate([x, y])
        diff = (
            np.searchsorted(x, every, "right") / x.size
            - np.searchsorted(y, every, "right") / y.size
        )
        want = 1 - max(float(np.clip(-diff.min(), 0, 1)), float(diff.max()))
        assert ks_complement(x, y) == want
        assert abs(ks_complement(x, y) - (1 - ks_2samp(x, y).statistic)) < 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=80), st.booleans())
def test_sorted_quantiles_equal_numpys(values: list[float], round_: bool) -> None:
    """The quantiles read off a sorted column are numpy's, to the last bit."""
    x = np.sort(np.round(values) if round_ else np.array(values))
    q = np.arange(1, 20) / 20
    assert np.array_equal(sorted_quantiles(x, q), np.quantile(x, q))


@settings(max_examples=40, deadline=None)
@given(_coded(most_levels=60, columns=(1, 6), rows=(1, 200)))
def test_group_sums_equal_one_sum_per_category(
    coded: tuple[list[int], int, list[np.ndarray], np.random.Generator],
) -> None:
    """Summed per cell of several categories' joint table, then per category: the
    per-category sums and present counts of every number."""
    levels, n, codes, rng = coded
    values = rng.normal(size=(2, n))
    values[1][rng.random(n) < 0.3] = np.nan
    present = ~np.isnan(values)
    centred = centre(values, present)
    missing = [None if p.all() else np.flatnonzero(~p) for p in present]
    got = group_sums(codes, levels, centred, missing)
    for c, k, per_number in zip(codes, levels, got, strict=True):
        for v, p, (sums, counts) in zip(centred, present, per_number, strict=True):
            want_sums, want_counts = np.zeros(k), np.zeros(k)
            np.add.at(want_sums, c, v)
            np.add.at(want_counts, c, p)
            assert np.allclose(sums, want_sums, rtol=0, atol=1e-9)
            assert np.array_equal(counts, want_counts)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(-50, 50), st.sampled_from([0.0, -0.0, 10.0, -10.0, float("nan")])),
        min_size=1,
        max_size=80,
    )
)
def test_discretize_equals_numpys_digitize(values: list[float]) -> None:
    """One comparison per edge gives np.digitize's code, values on an edge and
    missing values (the last code) included."""
    x = np.array(values)
    present = np.sort(x[~np.isnan(x)])
    edges = np.histogram_bin_edges(present[[0, -1]] if present.size else present, DISCRETE_BINS)
    got = discretize(x, present)
    assert got is not None
    assert np.array_equal(got, np.digitize(x, edges))
    assert np.array_equal(discretize(x), got)


def test_many_categories_are_counted_exactly() -> None:
    """Categories beyond one byte's codes, and pairs too large for a dense table:
    the contingency score equals the one from the joint shares counted directly."""
    n = 3000

    def table(seed: int) -> pl.DataFrame:
        r = np.random.default_rng(seed)
        return pl.DataFrame({"a": r.integers(0, 400, n), "b": r.integers(0, 300, n)}).with_columns(
            pl.col("a").cast(pl.String)
        )

    o, s = table(2), table(3)
    got = kpr.utility(o, s, kinds={"a": "categorical", "b": "categorical"}).pairs.row(0, named=True)
    shares = [t.group_by("a", "b").len().with_columns(pl.col("len") / n) for t in (o, s)]
    joined = shares[0].join(shares[1], on=["a", "b"], how="full", coalesce=True).fill_null(0)
    want = 1 - 0.5 * float((joined["len"] - joined["len_right"]).abs().sum())
    assert abs(got["score"] - want) < 1e-12


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b", "twelve bytes", "thirteen byte", "a longer category é", None]),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_text_codes_are_positions_among_the_levels(values: list[str | None], drop: bool) -> None:
    """Short strings (a polars Enum) and long ones (Arrow's look-up) get the same
    codes: a value's position among the sorted levels, missing one past the last;
    a value outside the levels: None (the column is coded again)."""
    column = pl.Series("v", values, dtype=pl.String).sample(fraction=1.0, shuffle=True, seed=0)
    levels = sorted({v for v in values if v is not None})
    if drop and levels:
        levels = levels[1:]
    got = _level_codes(column, levels)
    if any(v is not None and v not in levels for v in column):
        assert got is None
        return
    want = [len(levels) if v is None else levels.index(v) for v in column]
    assert got is not None and got.dtype == np.uint8 and got.tolist() == want


def test_the_scores_do_not_depend_on_the_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Columns and the two sides' pair statistics on one thread or on two: the same
    figures to the last digit."""
    import kpr.fidelity.compute as fidelity_compute

    t, s = _table(3000), _table(2500, seed=4)
    s = s.with_columns(
        pl.when(pl.col("age") > 60).then(None).otherwise(pl.col("income")).alias("income")
    )
    monkeypatch.setattr(fidelity_compute.pl, "thread_pool_size", lambda: 2)
    two = kpr.utility(t, s).to_dict()
    monkeypatch.setattr(fidelity_compute, "_WORKERS", 1)
    assert kpr.utility(t, s).to_dict() == two


def test_a_number_varying_where_the_other_is_missing_keeps_its_digits() -> None:
    """When a number's spread lies in the rows the other lacks, re-centring it from
    the shared sums would cancel its digits: r is Pearson's on the rows both hold."""
    rng = np.random.default_rng(0)
    n = 2000
    x = rng.normal(size=n)
    x[: n // 10] = np.nan  # x lacks the first rows
    y = 1e3 + 1e-3 * x + 1e-4 * rng.normal(size=n)  # little spread where x is present
    y[: n // 10] = 0.0  # most of it between these rows and the others
    present = [~np.isnan(x), ~np.isnan(y)]
    got = correlations([x, y], present, [False, False])[0, 1]
    assert abs(got - pearson(x, y)) < 1e-12 and got > 0.9


def test_counts_and_sums_by_chunks_of_rows_equal_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows taken a few at a time (a last chunk shorter than the others): the same
    joint counts, and the same group sums up to rounding."""
    import kpr.fidelity.pairs as fidelity_pairs

    rng = np.random.default_rng(5)
    n, levels = 100, [3, 5, 4, 7]
    codes = [rng.integers(0, k, n).astype(code_dtype(k)) for k in levels]
    values = rng.normal(size=(2, n))
    values[0][rng.random(n) < 0.2] = np.nan
    present = ~np.isnan(values)
    centred = centre(values, present)
    missing = [None if p.all() else np.flatnonzero(~p) for p in present]
    whole = joint_counts(list(codes), levels, n), group_sums(codes, levels, centred, missing)
    monkeypatch.setattr(fidelity_pairs, "_CHUNK", 7)
    counts, sums = joint_counts(list(codes), levels, n), group_sums(codes, levels, centred, missing)
    assert counts.keys() == whole[0].keys()
    assert all(np.array_equal(counts[p], whole[0][p]) for p in counts)
    for got, want in zip(sums, whole[1], strict=True):
        for (s, c), (ws, wc) in zip(got, want, strict=True):
            assert np.allclose(s, ws, rtol=0, atol=1e-12) and np.array_equal(c, wc)


def test_each_progress_line_is_written_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38, item 8: with two columns (three scores), the pair stage reported
    "scoring (3/3)" mid-way and again at the end: the log printed it twice."""
    path = tmp_path / "t.csv"
    pl.DataFrame({"age": [20 + i % 50 for i in range(200)], "town": ["a", "b"] * 100}).write_csv(
        path
    )
    code, _out, err = _run(["utility", str(path), str(path)], capsys)
    lines = [re.sub(r"^kpr: \[ *[\d.]+ s\] | \([\d.]+ s\)$", "", x) for x in err.splitlines()]
    assert code == 0 and "scoring (3/3)" in lines
    assert len(lines) == len(set(lines)), lines
