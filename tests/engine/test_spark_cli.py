"""``kpr evaluate --engine spark``: Spark reads the files and gives the same
result, to the last field of the JSON, as the default engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.conftest import WORKED_AVATARS_CSV, WORKED_ORIGINAL_CSV, worked_example
from tests.conftest import run_cli as run

# Text that must be parsed exactly as polars parses it: integers, floats in
# every notation, inf/nan, a custom missing marker, leading zeros kept in a
# categorical column, a column that is text because of one value, quotes.
MIXED_O = (
    "zip;age;score;city;flag\n"
    "01230;30;1.5;Paris;yes\n"
    "01230;30;1.5;Paris;yes\n"
    "75001;41;-2e1;Lyon;no\n"
    '75001;NA;inf;"Lyon; centre";no\n'
    "13001;52;.25;NA;yes\n"
    "13001;60;NaN;Nice;\n"
    "69001;+7;1E2;Nice;no\n"
)
MIXED_A = (
    "zip;age;score;city;flag\n"
    "01230;31;1.5;Paris;yes\n"
    "75001;41;-20;Lyon;no\n"
    '75001;NA;Infinity;"Lyon; centre";no\n'
    "13001;53;0.25;NA;yes\n"
    "69001;7;100;Nice;no\n"
    "69001;7;-inf;Nice;\n"
)


def both(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, Any]:
    results = []
    for engine in ("polars", "spark"):
        code, out, err = run([*argv, "--engine", engine, "-f", "json", "-q"], capsys)
        assert code == 0, err
        results.append(json.loads(out))
    return results[0], results[1]


def test_worked_example_from_csv(
    spark: Any, worked_files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    polars_result, spark_result = both(["evaluate", *worked_files, "-k", "age,sex"], capsys)
    assert spark_result == polars_result
    assert spark_result["kpr"] == 60.0 and spark_result["linked"] == 2


def test_parquet_files(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    o, a = tmp_path / "o.parquet", tmp_path / "a.parquet"
    original, avatars = worked_example()
    original.write_parquet(o)
    avatars.write_parquet(a)
    polars_result, spark_result = both(["evaluate", str(o), str(a), "-k", "age,sex"], capsys)
    assert spark_result == polars_result
    assert spark_result["kpr"] == 60.0


def test_csv_text_is_parsed_like_polars(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_text(MIXED_O)
    a.write_text(MIXED_A)
    argv = [
        "evaluate", str(o), str(a), "-k", "zip,age,score,city,flag",
        "--categorical", "zip", "--na-value", "NA", "--na-value", "",
    ]  # fmt: skip
    polars_result, spark_result = both(argv, capsys)
    assert spark_result == polars_result
    assert spark_result["variables"]["age"]["kind"] == "numeric"
    assert spark_result["variables"]["city"]["missing"] == 1


def test_bad_number_in_avatars_is_one_clear_line(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_text(WORKED_ORIGINAL_CSV)
    a.write_text(WORKED_AVATARS_CSV.replace("53.5", "fifty"))
    for engine in ("polars", "spark"):
        code, out, err = run(
            ["evaluate", str(o), str(a), "-k", "age,sex", "--engine", engine], capsys
        )
        assert code == 2 and out == ""
        assert "'fifty'" in err and "Traceback" not in err


@pytest.mark.parametrize("row_id", [None, "id"])
def test_linked_out_from_file_positions_or_row_ids(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], row_id: str | None
) -> None:
    """Spark numbers the files' rows (or reads the ids) in the cluster: the same
    CSV of linked individuals as the default engine."""
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    for path, text in ((o, WORKED_ORIGINAL_CSV), (a, WORKED_AVATARS_CSV)):
        header, *lines = text.splitlines()
        path.write_text(
            "\n".join([f"id,{header}", *(f"{100 + i},{x}" for i, x in enumerate(lines))])
        )
    written = []
    for engine in ("polars", "spark"):
        out_file = tmp_path / f"linked-{engine}.csv"
        extra = ["--row-id", row_id] if row_id else []
        argv = ["evaluate", str(o), str(a), "-k", "age,sex", "--engine", engine, "-q", *extra]
        code, _, err = run([*argv, "--linked-out", str(out_file)], capsys)
        assert code == 0, err
        written.append(pl.read_csv(out_file))
    assert written[0].to_dicts() == written[1].to_dicts()
    first = 100 if row_id else 0
    assert written[1]["original_row"].to_list() == [first + 2, first + 4]
    assert written[1]["avatar_row"].to_list() == [first + 0, first + 4]


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "utf-16"])
def test_spark_reads_the_encodings_polars_reads(
    spark: Any, encoding: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the first accent lies past 64 KB, where a sniffed sample would not see it
    pad = "".join(f"{20 + i % 50},X,Plain\n" for i in range(7000))
    o = "age,sex,city\n" + pad + "41,M,Orléans\n52,F,Évry\n60,M,Œuvre\n"
    a = "age,sex,city\n42,M,Orléans\n53,F,Évry\n61,M,Œuvre\n"
    if encoding == "latin-1":  # no Œ in latin-1
        o, a = o.replace("Œ", "O"), a.replace("Œ", "O")
    (tmp_path / "o.csv").write_bytes(o.encode(encoding))
    (tmp_path / "a.csv").write_bytes(a.encode(encoding))
    argv = ["evaluate", str(tmp_path / "o.csv"), str(tmp_path / "a.csv"), "-k", "age,sex,city"]
    polars_result, spark_result = both(argv, capsys)
    assert spark_result == polars_result
    assert polars_result["unique_originals"] == 3 and polars_result["linked"] == 1


def test_nan_text_is_missing_in_a_column_of_numbers_on_spark_too(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An original column with no value against avatars holding NaN (a frame's NaN
    written to CSV), and the same column declared categorical: Spark links what
    polars links (NaN is missing in a column of numbers)."""
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_text("c,x,y\na,,1.5\nb,,NaN\nc,,2\n")
    a.write_text("c,x,y\na,1.5,1.5\nb,NaN,\nc,nan,2\n")
    for extra in ([], ["--categorical", "y"]):
        polars_result, spark_result = both(
            ["evaluate", str(o), str(a), "-k", "c,x,y", *extra], capsys
        )
        assert spark_result == polars_result
        assert polars_result["linked"] == 2, extra
