"""A library's warning never reaches the terminal as Python prints it (a source path and
a code line before kpr's own line): it is handled, or it becomes one ``kpr: warning``
line. Run in a fresh process, as a user runs kpr: pytest would capture the warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from kpr.cli import app


def _kpr(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from kpr.cli.app import main; main(sys.argv[1:])"
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code, *argv],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def test_values_too_large_to_average_give_one_error_line(tmp_path: Path) -> None:
    n = 60
    ages = [20.0 + (i * 7) % 50 for i in range(n - 2)] + [1e308, -1e308]
    frame = pl.DataFrame({"age": ages, "sex": ["F", "M"] * (n // 2)})
    frame.write_csv(tmp_path / "o.csv")
    done = _kpr("avatarize", "o.csv", "-o", "a.csv", "--k", "5", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("kpr: error: column 'age'")
    assert done.stderr.count("\n") == 1, done.stderr  # numpy's overflow warning is handled


def test_any_other_warning_is_one_kpr_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    def warn(argv: list[str] | None) -> None:
        warnings.warn("a library\n   says something", RuntimeWarning, stacklevel=1)

    monkeypatch.setattr(app, "_main", warn)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        app.main([])
    assert capsys.readouterr().err == "kpr: warning: a library says something (RuntimeWarning)\n"
