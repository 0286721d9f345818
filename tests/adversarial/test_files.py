"""Hostile input files and tables: line endings, huge fields, encodings at any
offset, pipes, compression, exotic column types, values the generator cannot mix,
CSV options, and the cap on a sweep's attacks.

Each case gives the reference result (``tests.reference``) or exit 2 with one
line on stderr (``kpr.InputError`` from the API), and never damages its input.
"""

from __future__ import annotations

import codecs
import decimal
import gzip
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import kpr
from kpr.analysis import analyze, sweep
from kpr.avatar.files import write_table
from kpr.errors import InputError
from tests.adversarial._outputs_helpers import (
    AVATARS,
    ORIGINAL,
    one_error_line,
    reference,
    run,
    run_process,
    snapshot,
)

REF = reference()


def _rate(out: str) -> float:
    return float(json.loads(out)["kpr"])


def _evaluate(
    capsys: pytest.CaptureFixture[str], original: Path, avatars: Path, *extra: str
) -> tuple[int, str, str]:
    before = snapshot(original, avatars)
    got = run(["evaluate", str(original), str(avatars), "-k", "age,sex", "-f", "json", "-q",
               *extra], capsys)  # fmt: skip
    assert snapshot(original, avatars) == before  # inputs are never touched
    return got


# --- files that are valid and must give the reference ----------------------------------

#: name -> bytes of the original file (the avatars are the plain AVATARS CSV)
VALID: dict[str, Callable[[], bytes]] = {
    "CR-only line endings": lambda: ORIGINAL.replace("\n", "\r").encode(),
    "CRLF line endings": lambda: ORIGINAL.replace("\n", "\r\n").encode(),
    "no final newline": lambda: ORIGINAL.rstrip("\n").encode(),
    "UTF-8 BOM": lambda: codecs.BOM_UTF8 + ORIGINAL.encode(),
    "UTF-16 with BOM": lambda: ORIGINAL.encode("utf-16"),
    "semicolons": lambda: ORIGINAL.replace(",", ";").encode(),
    "4 MB quoted field in an unused column": lambda: _with_blob(4_000_000),
    "20 MB quoted field with line breaks": lambda: _with_blob(20_000_000, "x\n"),
}


def _with_blob(size: int, unit: str = "y") -> bytes:
    lines = ORIGINAL.strip().splitlines()
    blob = (unit * (size // len(unit)))[:size]
    out = [lines[0] + ",note"] + [f'{line},"{blob if i == 2 else "n"}"' for i, line in
                                  enumerate(lines[1:])]  # fmt: skip
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("case", list(VALID))
def test_valid_file_gives_the_reference(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "o.csv").write_bytes(VALID[case]())
    (tmp_path / "a.csv").write_text(AVATARS)
    code, out, err = _evaluate(capsys, tmp_path / "o.csv", tmp_path / "a.csv")
    assert code == 0, err
    assert _rate(out) == REF.kpr


# --- encodings: sniffed over the whole file, the same with every option ----------------

CITY_ORIGINAL = "age,sex,city\n30,F,Paris\n30,F,Paris\n41,M,Orléans\n52,F,Paris\n60,M,Évry\n"
CITY_AVATARS = "age,sex,city\n42,M,Orléans\n53.5,F,Paris\n54,F,Paris\n61,M,Évry\n59,M,Évry\n"


def _padded(text: str, encoding: str) -> bytes:
    """The table with 70 KB of plain rows first, so its first accent lies past 64 KB."""
    header, *body = text.strip().splitlines()
    pad = ["99,X,Plain"] * 7000
    return ("\n".join([header, *pad, *body]) + "\n").encode(encoding)


def _city_reference(pad: bool) -> float:
    from tests.adversarial._outputs_helpers import rows
    from tests.reference import reference_kpr

    original = rows(CITY_ORIGINAL)
    if pad:
        original = [{"age": 99.0, "sex": "X", "city": "Plain"}] * 7000 + original
    return reference_kpr(original, rows(CITY_AVATARS), ["age", "sex", "city"], {"age"}).kpr


@pytest.mark.parametrize(
    ("encoding", "pad"),
    [("cp1252", True), ("cp1252", False), ("latin-1", True), ("utf-8", True),
     ("utf-16", True)],
)  # fmt: skip
def test_encoding_at_any_offset(
    encoding: str, pad: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _padded(CITY_ORIGINAL, encoding) if pad else CITY_ORIGINAL.encode(encoding)
    (tmp_path / "o.csv").write_bytes(data)
    (tmp_path / "a.csv").write_bytes(CITY_AVATARS.encode(encoding))
    code, out, err = run(["evaluate", str(tmp_path / "o.csv"), str(tmp_path / "a.csv"),
                          "-k", "age,sex,city", "-f", "json", "-q"], capsys)  # fmt: skip
    assert code == 0, err
    assert _rate(out) == _city_reference(pad)


def test_latin1_bytes_undefined_in_cp1252(tmp_path: Path) -> None:
    # 0x81 is not a cp1252 character: the file is read as latin-1, never rejected
    text = CITY_ORIGINAL.replace("Évry", "\x81vry")
    (tmp_path / "o.csv").write_bytes(text.encode("latin-1"))
    (tmp_path / "a.csv").write_bytes(CITY_AVATARS.replace("Évry", "\x81vry").encode("latin-1"))
    result = kpr.evaluate(tmp_path / "o.csv", tmp_path / "a.csv", ["age", "sex", "city"])
    assert result.rate == _city_reference(False)


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "no-such-codec"])
def test_wrong_encoding_names_the_option(
    encoding: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "o.csv").write_bytes(_padded(CITY_ORIGINAL, "cp1252"))
    (tmp_path / "a.csv").write_text(CITY_AVATARS)
    code, _, err = run(["evaluate", str(tmp_path / "o.csv"), str(tmp_path / "a.csv"),
                        "-k", "age,sex,city", "-q", "--encoding", encoding], capsys)  # fmt: skip
    assert one_error_line(code, err) and "--encoding" in err


# --- pipes and compression ----------------------------------------------------------


def test_gzipped_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "o.csv.gz").write_bytes(gzip.compress(ORIGINAL.encode()))
    (tmp_path / "a.csv").write_text(AVATARS)
    code, out, _ = _evaluate(capsys, tmp_path / "o.csv.gz", tmp_path / "a.csv")
    assert code == 0 and _rate(out) == REF.kpr


def test_fifo_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    (tmp_path / "a.csv").write_text(AVATARS)
    writer = threading.Thread(target=lambda: fifo.write_text(ORIGINAL), daemon=True)
    writer.start()
    code, out, err = run(["evaluate", str(fifo), str(tmp_path / "a.csv"), "-k", "age,sex",
                          "-f", "json", "-q"], capsys)  # fmt: skip
    writer.join(timeout=60)
    assert code == 0, err
    assert _rate(out) == REF.kpr


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_dev_stdin(fmt: str, tmp_path: Path) -> None:
    source = tmp_path / f"o.{fmt}"
    if fmt == "csv":
        source.write_text(ORIGINAL)
    else:
        pl.read_csv(ORIGINAL.encode()).write_parquet(source)
    (tmp_path / "a.csv").write_text(AVATARS)
    with source.open("rb") as fh:
        done = run_process(["evaluate", "/dev/stdin", str(tmp_path / "a.csv"), "-k", "age,sex",
                            "-f", "json", "-q"], stdin=fh)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _rate(done.stdout.decode()) == REF.kpr


def test_process_substitution(tmp_path: Path) -> None:
    (tmp_path / "o.csv").write_text(ORIGINAL)
    (tmp_path / "a.csv").write_text(AVATARS)
    import sys

    done = run_process(
        [sys.executable, "-m", "kpr", "evaluate", f"<(cat {tmp_path / 'o.csv'})",
         f"<(cat {tmp_path / 'a.csv'})", "-k", "age,sex", "-f", "json", "-q"], shell=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _rate(done.stdout.decode()) == REF.kpr


def test_empty_pipe_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text(AVATARS)
    with open(os.devnull, "rb") as nothing:
        done = run_process(["evaluate", "/dev/stdin", str(tmp_path / "a.csv"), "-k", "age"],
                           stdin=nothing)  # fmt: skip
    assert one_error_line(done.returncode, done.stderr.decode())


# --- column types the engines cannot compare: one line, not a traceback ---------------

D = decimal.Decimal
AGES = [D("30.00"), D("30.00"), D("41.00"), D("52.00"), D("60.00")]


def _parquet(tmp_path: Path, age: pa.Array) -> Path:
    path = tmp_path / "o.parquet"
    pq.write_table(pa.table({"age": age, "sex": list("FFMFM")}), path)
    return path


def test_decimal_40_digits_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _parquet(tmp_path, pa.array(AGES, pa.decimal256(40, 2)))
    (tmp_path / "a.csv").write_text(AVATARS)
    code, _, err = _evaluate(capsys, path, tmp_path / "a.csv")
    assert one_error_line(code, err) and "40 digits" in err


def test_decimal256_of_20_digits_gives_the_reference(tmp_path: Path) -> None:
    path = _parquet(tmp_path, pa.array(AGES, pa.decimal256(20, 2)))
    (tmp_path / "a.csv").write_text(AVATARS)
    assert kpr.evaluate(path, tmp_path / "a.csv", ["age", "sex"]).rate == REF.kpr


BAD_TABLES: dict[str, Callable[[], Any]] = {
    "polars Series": lambda: pl.read_csv(ORIGINAL.encode())["age"],
    "pandas Series": lambda: pd.read_csv(pd.io.common.StringIO(ORIGINAL))["age"],
    "pyarrow Array": lambda: pa.array([30, 30, 41, 52, 60]),
    "polars Object column": lambda: pl.read_csv(ORIGINAL.encode()).with_columns(
        pl.Series("sex", [object()] * 5, dtype=pl.Object)
    ),
}


@pytest.mark.parametrize("case", list(BAD_TABLES))
def test_not_a_table_is_an_input_error(case: str) -> None:
    avatars = pl.read_csv(AVATARS.encode())
    with pytest.raises(InputError) as info:
        kpr.evaluate(BAD_TABLES[case](), avatars, ["age", "sex"])
    assert "\n" not in str(info.value)


def test_known_column_named_original_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "o.csv").write_text(ORIGINAL.replace("age", "original_row"))
    (tmp_path / "a.csv").write_text(AVATARS.replace("age", "original_row"))
    code, _, err = run(["evaluate", str(tmp_path / "o.csv"), str(tmp_path / "a.csv"), "-q",
                        "-k", "original_row,sex", "--linked-out", str(tmp_path / "l.csv")],
                       capsys)  # fmt: skip
    assert code == 0, err
    linked = pl.read_csv(tmp_path / "l.csv")
    assert linked.columns == ["original_row", "avatar_row", "original_row (class)", "sex"]
    pairs = list(zip(linked["original_row"], linked["avatar_row"], strict=True))
    assert pairs == sorted(REF.pairs.items())


# --- values the Avatar generator cannot mix -------------------------------------------


def _wide(tmp_path: Path, extreme: list[float]) -> Path:
    n = 60
    ages = [20.0 + (i * 7) % 50 for i in range(n - len(extreme))] + extreme
    frame = pl.DataFrame({"age": ages, "h": [150.0 + (i * 13) % 40 for i in range(n)],
                          "sex": ["F", "M"] * (n // 2)})  # fmt: skip
    path = tmp_path / "o.csv"
    frame.write_csv(path)
    return path


@pytest.mark.parametrize(
    ("command", "extreme"),
    [("avatarize", [float("inf")]), ("avatarize", [float("-inf")]),
     ("avatarize", [1e308, -1e308]), ("sweep", [float("inf")]), ("sweep", [1e308, -1e308])],
)  # fmt: skip
def test_avatars_of_unmixable_values_is_one_line(
    command: str, extreme: list[float], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _wide(tmp_path, extreme)
    before = snapshot(path)
    args = ["-o", str(tmp_path / "av.csv")] if command == "avatarize" else ["-k", "age,sex"]
    code, _, err = run([command, str(path), "--k", "5", "-q", *args], capsys)
    assert one_error_line(code, err) and "age" in err
    assert snapshot(path) == before and not (tmp_path / "av.csv").exists()


# --- CSV options ------------------------------------------------------------------------


def test_na_value_adds_to_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = "age,sex\n30,F\n,F\n?,F\n41,M\n52,?\n60,M\n"
    avatars = "age,sex\n42,M\n,F\n61,M\n59,M\n52,\n"
    (tmp_path / "o.csv").write_text(original)
    (tmp_path / "a.csv").write_text(avatars)
    code, out, err = _evaluate(capsys, tmp_path / "o.csv", tmp_path / "a.csv", "--na-value", "?")
    assert code == 0, err
    as_missing = original.replace("?", "")
    assert _rate(out) == reference(as_missing, avatars).kpr


def test_kpr_reads_back_its_own_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # kpr writes missing values as empty fields; '?' marks them in the user's original
    original = "age,sex\n30,F\n?,F\n41,M\n52,F\n60,M\n"
    (tmp_path / "o.csv").write_text(original)
    avatars = pl.DataFrame({"age": [42.0, None, 54, 61, 59], "sex": list("MFFMM")})
    write_table(avatars, tmp_path / "a.csv")
    code, out, err = _evaluate(capsys, tmp_path / "o.csv", tmp_path / "a.csv", "--na-value", "?")
    assert code == 0, err
    expected = reference(original.replace("?", ""), "age,sex\n42,M\n,F\n54,F\n61,M\n59,M\n")
    assert _rate(out) == expected.kpr
    assert json.loads(out)["variables"]["age"]["kind"] == "numeric"


# --- the cap on a sweep's attacks ----------------------------------------------------


def _columns(tmp_path: Path, k: int) -> Path:
    names = [f"c{i}" for i in range(k)]
    body = [",".join(str((r * (i + 3)) % 4) for i in range(k)) for r in range(12)]
    path = tmp_path / "w.csv"
    path.write_text("\n".join([",".join(names), *body]) + "\n")
    return path


def test_sweep_of_millions_of_attacks_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _columns(tmp_path, 22)
    cands = ",".join(f"c{i}" for i in range(22))
    code, out, err = run(["analyze", str(path), str(path), "-c", cands, "--max-known", "22",
                          "-q"], capsys)  # fmt: skip
    assert one_error_line(code, err) and "4,194,303 attacks" in err and "--max-attacks" in err
    assert out == ""


def test_api_cap_and_lifting_it(tmp_path: Path) -> None:
    path = _columns(tmp_path, 4)
    cands = [f"c{i}" for i in range(4)]
    with pytest.raises(InputError, match="15 attacks"):
        sweep(path, path, cands, 4, max_attacks=10)
    with pytest.raises(InputError, match="15 attacks"):
        analyze(path, path, candidates=cands, max_known=4, max_attacks=10, tolerances=None)
    lifted = sweep(path, path, cands, 4, max_attacks=None)
    assert len(lifted.entries) == 15
    direct = kpr.evaluate(path, path, ["c0", "c1"]).rate
    assert {e.known: e.rate for e in lifted.entries}[("c0", "c1")] == direct


def test_cli_lifts_the_cap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _columns(tmp_path, 4)
    argv = ["analyze", str(path), str(path), "-c", "c0,c1,c2,c3", "--max-known", "4", "-q",
            "-f", "json", "--tolerances", "0.05"]  # fmt: skip
    assert one_error_line(*run([*argv, "--max-attacks", "14"], capsys)[::2])
    code, out, _ = run([*argv, "--max-attacks", "15"], capsys)
    assert code == 0 and len(json.loads(out)["sweep"]["entries"]) == 15
