"""``--report`` and ``--show-values`` on the command line, and spreadsheet-safe
``--linked-out`` files."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import run_cli as run

from .conftest import IMG, SCRIPT
from .test_html import MAX_DEMO_BYTES, assert_self_contained, parse, section


def never_evaluate(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the data was read before the options were checked")


def test_demo_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "demo.html"
    code, out, err = run(["demo", "-q", "--report", str(target), "--fail-under", "90"], capsys)
    assert (code, err) == (0, "")
    assert f"HTML report written to {target}" in out
    document = target.read_text(encoding="utf-8")
    assert len(document.encode()) < MAX_DEMO_BYTES
    assert_self_contained(document)
    assert 'data-kpr-verdict="pass"' in document
    assert "adult.parquet (bundled demo)" in document
    assert "<th>age</th>" not in section(document, "linked")


def test_gate_failure_still_writes_the_report_and_clean_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "demo.html"
    argv = ["demo", "-q", "-f", "json", "--fail-under", "99", "--report", str(target)]
    code, out, _ = run(argv, capsys)
    assert code == 1
    assert json.loads(out)["passed"] is False  # stdout stays pure JSON
    assert 'data-kpr-verdict="fail"' in target.read_text(encoding="utf-8")


@pytest.fixture
def hostile_files(tmp_path: Path) -> tuple[Path, Path]:
    """CSV inputs whose values, and the avatar file's name, are HTML."""
    original = pl.DataFrame(
        {"city": [SCRIPT, IMG, "Paris", "Paris", "Lyon"], "age": [30, 41, 52, 52, 60]}
    )
    avatars = pl.DataFrame(
        {"city": [SCRIPT, IMG, "Paris", "Lyon", "Lyon"], "age": [30.5, 41, 52, 52, 61]}
    )
    o, a = tmp_path / "original.csv", tmp_path / "<img src=x onerror=alert(3)>.csv"
    original.write_csv(o)
    avatars.write_csv(a)
    return o, a


def test_evaluate_report_with_values(
    tmp_path: Path, hostile_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = hostile_files
    target = tmp_path / "r.html"
    argv = ["evaluate", str(o), str(a), "-k", "city,age", "--report", str(target), "-q"]
    code, _, err = run([*argv, "--show-values"], capsys)
    assert (code, err) == (0, "")
    document = target.read_text(encoding="utf-8")
    assert_self_contained(document)
    linked = section(document, "linked")
    assert "<th>city</th>" in linked
    text = "".join(parse(linked).text)
    assert SCRIPT in text and IMG in text
    assert "<img src=x onerror=alert(3)>.csv" in "".join(parse(document).text)


def test_show_values_needs_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["demo", "--show-values"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "--show-values applies to the HTML report" in err


def test_report_folder_checked_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kpr.api.evaluate", never_evaluate)  # imported by the command
    code, _, err = run(["demo", "--report", str(tmp_path / "no" / "r.html")], capsys)
    assert code == 2
    assert err.startswith("kpr: error: cannot write") and err.count("\n") == 1


def test_missing_matplotlib_is_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    monkeypatch.setattr("kpr.api.evaluate", never_evaluate)  # imported by the command
    target = tmp_path / "r.html"
    code, out, err = run(["demo", "--report", str(target)], capsys)
    assert code == 2
    assert out == ""
    assert err == (
        "kpr: error: the HTML report needs the package 'matplotlib': pip install 'kpr[report]'\n"
    )
    assert not target.exists()


FORMULAS = [
    '=HYPERLINK("http://evil.example","click")',
    "+cmd|' /C calc'!A0",
    "-1+1",
    "@SUM(A1:A2)",
]


def test_linked_out_neutralises_formulas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each formula-like category is unique and linked, so it lands in the CSV."""
    frame = pl.DataFrame({"label": [*FORMULAS, "plain", "plain"]})
    o, a, out = tmp_path / "o.csv", tmp_path / "a.csv", tmp_path / "linked.csv"
    frame.write_csv(o)
    frame.write_csv(a)
    code, _, err = run(
        ["evaluate", str(o), str(a), "-k", "label", "--linked-out", str(out), "-q"], capsys
    )
    assert (code, err) == (0, "")
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["label"] for r in rows) == sorted("'" + v for v in FORMULAS)
    assert all(r["label"].startswith("'") for r in rows)
