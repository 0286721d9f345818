"""What every HTML report promises when it is written, the evaluation's report and
the analysis's alike: the file whole or nothing (written atomically), nothing left
when drawing fails, one clear error for a missing folder, and no global state left
in matplotlib."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kpr.errors import InputError
from kpr.render import plots

#: (the result's fixture, ``to_html``'s options, the file's name) for each report.
WRITTEN = [
    pytest.param("worked_example", {"threshold": 90}, "report.html", id="report"),
    pytest.param("demo_analysis", {"top": 5}, "analysis.html", id="analysis"),
]
#: (the result's fixture, a plot its report draws, the file's name) for each report.
DRAWN = [
    pytest.param("demo_result", "variable_svg", "report.html", id="report"),
    pytest.param("demo_analysis", "tolerance_svg", "analysis.html", id="analysis"),
]


@pytest.mark.parametrize(("fixture", "options", "name"), WRITTEN)
def test_to_html_writes_atomically(
    request: pytest.FixtureRequest, tmp_path: Path, fixture: str, options: dict[str, Any], name: str
) -> None:
    target = tmp_path / name
    written = request.getfixturevalue(fixture).to_html(target, **options)
    assert written == target
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize(("fixture", "plot", "name"), DRAWN)
def test_failed_render_leaves_no_file(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fixture: str,
    plot: str,
    name: str,
) -> None:
    def boom(*_args: object, **_kwargs: object) -> str:
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(plots, plot, boom)
    with pytest.raises(RuntimeError, match="drawing failed"):
        request.getfixturevalue(fixture).to_html(tmp_path / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("fixture", "plot", "name"), DRAWN)
def test_into_a_missing_folder(
    request: pytest.FixtureRequest, tmp_path: Path, fixture: str, plot: str, name: str
) -> None:
    with pytest.raises(InputError, match="does not exist"):
        request.getfixturevalue(fixture).to_html(tmp_path / "nope" / name)


#: The worked example, rendered in a fresh interpreter (other tests may import pyplot).
FRESH = """
import sys, matplotlib, polars as pl, kpr
{imports}
before = matplotlib.rcParams.copy()  # reading "backend" would import pyplot
o = pl.DataFrame({{"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]}})
a = pl.DataFrame({{"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]}})
{render}
assert matplotlib.rcParams.copy() == before, "rcParams changed"
assert "matplotlib.pyplot" not in sys.modules, "pyplot imported"
"""


@pytest.mark.parametrize(
    ("imports", "render"),
    [
        pytest.param("", 'assert "<svg" in kpr.evaluate(o, a, known=["age", "sex"]).to_html()',
                     id="report"),
        pytest.param("from kpr.analysis import analyze",
                     'assert analyze(o, a, candidates=["age", "sex"], max_known=2)'
                     '.to_html().count("<svg") == 4', id="analysis"),
    ],
)  # fmt: skip
def test_plots_leave_no_global_state(imports: str, render: str) -> None:
    """No pyplot (its figure registry leaks), rcParams restored."""
    code = FRESH.format(imports=imports, render=render)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
