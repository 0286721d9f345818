"""``kpr membership``: text that reads itself, JSON equal to the API's, the report, and
one line with exit code 2 for every bad input."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import kpr
from tests.conftest import run_cli as run


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    n = 1_400
    people = pl.DataFrame(
        {"âge": [18 + (i * 7) % 71 for i in range(n)], "ville": [f"v{i % 13}" for i in range(n)],
         "revenu": [1000 + (i * 37) % 900 for i in range(n)]}
    )  # fmt: skip
    root = tmp_path_factory.mktemp("membership")
    out = {}
    for name, table in (("original", people[:1000]), ("avatars", people[:1000:2]),
                        ("holdout", people[1000:])):  # fmt: skip
        path = root / f"{name}.csv"
        table.write_csv(path)
        out[name] = str(path)
    return out


def test_text_and_json(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["membership", files["original"], files["avatars"], "--holdout", files["holdout"],
            "--replicates", "50", "--seed", "2", "-k", "âge,ville"]  # fmt: skip
    code, out, err = run(args, capsys)
    # on a log (not a terminal), one line per step, written once the inputs were checked
    assert code == 0 and err and all(line.startswith("kpr: [") for line in err.splitlines())
    assert run([*args, "-q"], capsys)[2] == ""
    assert out.startswith("Membership inference on the class profiles of 2 columns (âge, ville)")
    assert "200 members drawn from the original (1,000 rows) against 200 non-members" in out
    assert "TPR at 1 % FPR: " in out and "2.0 non-members flagged" in out
    assert "TPR at 0.1 % FPR: not available: an FPR of 0.1 % is below the resolution" in out
    assert "Resolution: 1/200 = 0.500 %" in out
    code, out, _ = run([*args, "--format", "json"], capsys)
    data = json.loads(out)
    api = kpr.membership(files["original"], files["avatars"], holdout=files["holdout"],
                         known=["âge", "ville"], seed=2, replicates=50)  # fmt: skip
    assert code == 0 and data == json.loads(api.to_json())


def test_report(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "m.html"
    code, out, _ = run(["membership", files["original"], files["avatars"], "--holdout",
                        files["holdout"], "--replicates", "20", "--report", str(report)],
                       capsys)  # fmt: skip
    assert code == 0 and f"HTML report written to {report}" in out
    page = report.read_text(encoding="utf-8")
    assert "ROC curve" in page and "holdout.csv" in page


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--holdout", "{original}"], "holds exactly the original's rows"),
        (["--holdout", "{holdout}", "-k", "nope"], "no column 'nope'"),
        (["--holdout", "{holdout}", "--seed", "-3"], "--seed must be an integer >= 0"),
        (["--holdout", "{holdout}", "--replicates", "0"], "--replicates must be an integer"),
        (["--holdout", "{holdout}", "--report", "{holdout}"], "holdout.csv"),
        ([], "Missing option '--holdout'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    files: dict[str, str], extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = [e.format(**files) for e in extra]
    code, out, err = run(["membership", files["original"], files["avatars"], *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("kpr: error: ") and err.count("\n") == 1 and message in err


def test_an_empty_holdout_is_one_line(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("âge,ville,revenu\n", encoding="utf-8")
    code, _, err = run(["membership", files["original"], files["avatars"], "--holdout",
                        str(empty)], capsys)  # fmt: skip
    assert code == 2 and "the holdout has 0 rows" in err and err.count("\n") == 1
