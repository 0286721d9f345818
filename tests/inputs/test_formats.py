"""Every input format gives the same result; odd but valid inputs work."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings

import kpr
from tests.strategies import Case, cases

#: Found by this test's randomised profile: an original column with no value
#: (all null) against avatars holding NaN linked 1 from frames and 0 from CSV,
#: where the text "NaN" was a category instead of missing.
_ALL_MISSING_VS_NAN = Case(
    original=[{"age": 1, "score": None, "sex": "F", "region": None}],
    avatars=[{"age": 1, "score": math.nan, "sex": "F", "region": None}],
    known=["score", "sex"],
    tolerance=0.05,
)

FORMATS = ["polars", "lazy", "pandas", "arrow", "csv", "parquet", "csv-semicolon-bom"]


def as_format(frame: pl.DataFrame, fmt: str, folder: Path, stem: str) -> object:
    if fmt == "polars":
        return frame
    if fmt == "lazy":
        return frame.lazy()
    if fmt == "pandas":
        return frame.to_pandas()
    if fmt == "arrow":
        return frame.to_arrow()
    if fmt == "parquet":
        path = folder / f"{stem}.parquet"
        frame.write_parquet(path)
        return path
    path = folder / f"{stem}.csv"
    if fmt == "csv":
        frame.write_csv(path)
    else:
        text = frame.write_csv(separator=";")
        path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    return str(path)


def counts(r: kpr.KprResult) -> tuple[int, int, int, int, float]:
    return (r.n, r.n_avatars, r.unique_originals, r.linked, r.rate)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
@example(_ALL_MISSING_VS_NAN)
def test_every_format_gives_the_same_result(
    tmp_path_factory: pytest.TempPathFactory, case: Case
) -> None:
    folder = tmp_path_factory.mktemp("fmt")
    original, avatars = case.frames()
    base = kpr.evaluate(original, avatars, known=case.known, tolerance=case.tolerance)
    for fmt in FORMATS[1:]:
        o = as_format(original, fmt, folder, "o")
        a = as_format(avatars, fmt, folder, "a")
        got = kpr.evaluate(o, a, known=case.known, tolerance=case.tolerance)
        assert counts(got) == counts(base), fmt
        for name, v in base.variables.items():
            w = got.variables[name]
            if v.kind == w.kind == kpr.Kind.NUMERIC:
                assert (w.lo, w.width) == (v.lo, v.width), (fmt, name)


def test_names_with_spaces_commas_semicolons_and_unicode(tmp_path: Path) -> None:
    names = ["âge (années)", "income, net", "a;b", "名前", " lead space"]
    frame = pl.DataFrame(
        {n: [1, 2, 3, 4] if i < 2 else ["x", "y", "x", "z"] for i, n in enumerate(names)}
    )
    path = tmp_path / "weird.csv"
    frame.write_csv(path)
    r = kpr.evaluate(path, path, known=names)
    assert r.linked == 4 and list(r.variables) == names


def test_same_file_twice_links_every_unique_original(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    pl.DataFrame({"x": [1, 1, 2, 3], "c": ["a", "a", "b", "c"]}).write_parquet(path)
    r = kpr.evaluate(path, path, known=["x", "c"])
    assert r.linked == r.unique_originals == 2 and r.rate == 50.0


def test_very_wide_table(tmp_path: Path) -> None:
    frame = pl.DataFrame({f"c{i}": list(range(50)) for i in range(1000)})
    path = tmp_path / "wide.csv"
    frame.write_csv(path)
    r = kpr.evaluate(path, path, known=["c0", "c999"])
    assert r.n == 50 and r.unique_originals == 50


def test_a_large_file(tmp_path: Path) -> None:
    n = 400_000
    frame = pl.DataFrame(
        {
            "age": pl.int_range(n, eager=True) % 90,
            "height": (pl.int_range(n, eager=True) * 7919 % 5000) / 25.0,
            "region": (pl.int_range(n, eager=True) % 13).cast(pl.String),
        }
    )
    csv, parquet = tmp_path / "big.csv", tmp_path / "big.parquet"
    frame.write_csv(csv)
    frame.write_parquet(parquet)
    known = ["age", "height", "region"]
    a = kpr.evaluate(csv, csv, known=known)
    b = kpr.evaluate(parquet, parquet, known=known)
    c = kpr.evaluate(frame, frame, known=known)
    assert counts(a) == counts(b) == counts(c)
    assert a.n == n


def test_declared_categorical_keeps_leading_zeros(tmp_path: Path) -> None:
    (tmp_path / "o.csv").write_text("zip,x\n01230,1\n75001,2\n01230,3\n")
    (tmp_path / "a.csv").write_text("zip,x\n1230,1\n75001,2\n")
    r = kpr.evaluate(
        tmp_path / "o.csv", tmp_path / "a.csv", known=["zip"], kinds={"zip": "categorical"}
    )
    assert r.linked_individuals()["zip"].to_list() == ["75001"]
    as_number = kpr.evaluate(tmp_path / "o.csv", tmp_path / "a.csv", known=["zip"])
    assert as_number.variables["zip"].kind is kpr.Kind.NUMERIC


def test_csv_options(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("nom|ville\nRené|Évry\nZoé|?\n".encode("latin-1"))
    r = kpr.evaluate(path, path, known=["nom", "ville"], na_values=["?"])
    assert r.variables["ville"].missing == 1 and r.linked == 2
    given = kpr.evaluate(path, path, known=["ville"], delimiter="|", encoding="latin-1")
    assert given.linked == 2


def test_utf16_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "u16.csv"
    path.write_bytes("a\tb\n1\té\n2\tè\n".encode("utf-16"))
    assert kpr.evaluate(path, path, known=["a", "b"]).linked == 2


def test_pandas_nullable_and_category_dtypes() -> None:
    o = pd.DataFrame(
        {
            "age": pd.array([30, None, 41, 52], dtype="Int64"),
            "sex": pd.Categorical(["F", "M", None, "F"]),
            "flag": [True, False, True, None],
        }
    )
    a = pd.DataFrame(
        {
            "age": [30.0, None, 41.5, 60.0],
            "sex": ["F", "M", None, "F"],
            "flag": [True, False, True, None],
        }
    )
    r = kpr.evaluate(o, a, known=["age", "sex", "flag"])
    p = kpr.evaluate(pl.from_pandas(o), pl.from_pandas(a), known=["age", "sex", "flag"])
    assert counts(r) == counts(p)
    assert r.variables["sex"].kind is kpr.Kind.CATEGORICAL


def test_pyarrow_dictionary_strings() -> None:
    t = pa.table({"c": pa.array(["a", "b", "a", "c"]).dictionary_encode(), "x": [1, 2, 3, 4]})
    r = kpr.evaluate(t, t, known=["c", "x"])
    assert r.linked == 4


def test_duckdb_relation() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    o = con.sql("select * from (values (30,'F'),(30,'F'),(41,'M'),(52,'F'),(60,'M')) t(age, sex)")
    a = con.sql(
        "select * from (values (42.0,'M'),(53.5,'F'),(54.0,'F'),(61.0,'M'),(59.0,'M')) t(age, sex)"
    )
    r = kpr.evaluate(o, a, known=["age", "sex"])
    assert r.rate == 60.0


def test_frame_errors_are_one_clear_line() -> None:
    dup = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(kpr.InputError, match="duplicate column"):
        kpr.evaluate(dup, dup, known=["a"])
    with pytest.raises(kpr.InputError, match="did you mean 'age'"):
        kpr.evaluate(pl.DataFrame({"age": [1]}), pl.DataFrame({"age": [1]}), known=["Age "])
    with pytest.raises(kpr.InputError, match="unsupported input"):
        kpr.evaluate([1, 2], pl.DataFrame({"a": [1]}), known=["a"])
    with pytest.raises(kpr.InputError, match="known is empty"):
        kpr.evaluate(pl.DataFrame({"a": [1]}), pl.DataFrame({"a": [1]}), known=[])
    with pytest.raises(kpr.InputError, match="tolerance"):
        kpr.evaluate(pl.DataFrame({"a": [1]}), pl.DataFrame({"a": [1]}), known=["a"], tolerance=1.0)
    with pytest.raises(kpr.InputError, match="no rows"):
        kpr.evaluate(pl.DataFrame({"a": []}), pl.DataFrame({"a": [1]}), known=["a"])


def test_type_mismatch_names_the_column_and_a_value() -> None:
    o = pl.DataFrame({"age": [30, 41]})
    a = pl.DataFrame({"age": ["30", "forty"]})
    with pytest.raises(kpr.InputError, match=r"'age' is numeric in original but text in avatars"):
        kpr.evaluate(o, a, known=["age"])
    o2 = pl.DataFrame({"zip": ["75001", "01230"]})
    a2 = pl.DataFrame({"zip": [75001, 1230]})
    with pytest.raises(kpr.InputError, match=r"'zip'.*e\.g\. 75001"):
        kpr.evaluate(o2, a2, known=["zip"])


def test_declared_numeric_text_column_is_parsed() -> None:
    o = pl.DataFrame({"age": ["30", "41", "52"]})
    a = pl.DataFrame({"age": [30, 41, 60]})
    r = kpr.evaluate(o, a, known=["age"], kinds={"age": "numeric"})
    assert r.variables["age"].kind is kpr.Kind.NUMERIC and r.linked == 2


def test_nan_text_is_missing_only_in_a_column_of_numbers(tmp_path: Path) -> None:
    """CSV ``NaN`` is NaN (missing) where every value is a number, whatever the
    kind, as in a frame; among words it is a category. Each case is checked
    against the same tables given as frames."""
    numbers = pl.DataFrame({"c": ["a", "b", "c"], "x": [1.5, math.nan, math.nan]})
    words = pl.DataFrame({"c": ["a", "b", "c"], "x": ["1.5", "NaN", "w"]})
    avatars = pl.DataFrame({"c": ["a", "b", "c"], "x": [1.5, None, math.nan]})
    cases = [
        (numbers, avatars, {}),
        (numbers, avatars, {"x": "categorical"}),
        (numbers.with_columns(x=pl.lit(math.nan)), avatars, {}),  # no value: categorical
        (words, avatars.with_columns(pl.col("x").cast(pl.String)), {}),
    ]
    linked = []
    for i, (o, a, kinds) in enumerate(cases):
        paths = [tmp_path / f"{i}{s}.csv" for s in "oa"]
        o.write_csv(paths[0])
        a.write_csv(paths[1])
        frames = kpr.evaluate(o, a, ["c", "x"], kinds=kinds)
        files = kpr.evaluate(*paths, ["c", "x"], kinds=kinds)
        assert counts(files) == counts(frames), i
        assert files.variables["x"].kind == frames.variables["x"].kind, i
        linked.append(files.linked)
    # NaN and missing are one class (b and c link); a number never matches an
    # original with no value (a does not, case 2); among words, NaN is not missing
    # (b's original "NaN" does not link b's missing avatar, case 3)
    assert linked == [3, 3, 2, 1]
