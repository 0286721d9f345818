from __future__ import annotations

import json

import polars as pl
import pytest

from tests.conftest import run_cli

from ._data import tables


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("analyze")
    original, avatars = tables(300, 280, seed=5)
    control, _ = tables(200, 1, seed=6)
    paths = {}
    for name, frame in {"original": original, "avatars": avatars, "control": control}.items():
        path = root / f"{name}.csv"
        frame.write_csv(path)
        paths[name] = str(path)
    paths["control_no_age"] = str(root / "control_no_age.csv")  # lacks a known variable
    pl.DataFrame({"sex": ["F"]}).write_csv(paths["control_no_age"])
    return paths


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(["analyze", *args], capsys)


def test_json_holds_every_part(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([
        files["original"], files["avatars"], "--candidates", "age,sex,region,height",
        "--max-known", "2", "--control", files["control"], "--format", "json", "--quiet",
    ], capsys)  # fmt: skip
    assert code == 0, out
    d = json.loads(out)
    assert set(d) >= {"attack", "worst_case", "control", "tolerance_curve", "sweep", "warnings"}
    assert d["attack"]["known"] == ["age", "sex", "region", "height"]
    assert d["sweep"]["attacks"] == 4 + 6 + 1  # and the full attack, with all four
    assert len(d["sweep"]["contributions"]) == 4
    assert [p["tolerance"] for p in d["tolerance_curve"]["points"]] == [0.01, 0.02, 0.05, 0.1, 0.2]
    assert d["control"]["control"]["n"] == 200
    assert "interval" in d["attack"] and "interval" in d["original_published"]
    assert d["worst_case"]["kpr"] <= d["attack"]["kpr"]


def test_text_output_has_each_section(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([
        files["original"], files["avatars"], "-c", "age,sex,region", "--top", "2",
        "--tolerances", "0.05,0.1", "--method", "window", "--control", files["control"],
    ], capsys)  # fmt: skip
    assert code == 0, out
    for text in [
        "Knowledge Protection Rate", "95 % CI", "worst case", "control individuals",
        "Tolerance curve", "Riskiest subsets of known variables (top 2 of 7",
        "Contribution of each variable", "method window",
    ]:  # fmt: skip
        assert text in out


def test_known_without_candidates_skips_the_sweep(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([files["original"], files["avatars"], "-k", "age,sex", "-f", "json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["sweep"] is None and d["control"] is None and d["known"] == ["age", "sex"]


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--demo", "--max-known", "1", "--tolerances", "0.05", "-f", "json", "-q"],
                       capsys)  # fmt: skip
    assert code == 0
    d = json.loads(out)
    assert d["attack"]["n"] == 32561 and d["sweep"]["attacks"] == 6 + 1  # and the full attack


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--candidates", "agee,sex"], "did you mean 'age'"),
        (["--candidates", "age,sex", "--max-known", "3"], "max_known must be between 1 and"),
        (["--candidates", "age", "--max-known", "0"], "--max-known must be an integer >= 1"),
        ([], "give --candidates"),
        (["-c", "age", "--tolerances", "0.05,5"], "tolerance must be in (0, 1)"),
        (["-c", "age", "--control", "{control_no_age}"], "error: control "),
        (["-c", "age", "--categorical", "age", "--numeric", "age"], "pick one"),
    ],
)
def test_errors_exit_2_with_one_line(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    args = [a.format(**files) for a in args]  # {name}: a file of ``files``
    code, _, err = run([files["original"], files["avatars"], *args], capsys)
    assert code == 2
    assert err.startswith("kpr: error: ") and message in err
    assert err.count("\n") == 1


def test_demo_with_paths_is_an_error(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([files["original"], files["avatars"], "--demo"], capsys)[0] == 2


def test_missing_avatars_is_a_usage_error(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([files["original"], "-c", "age"], capsys)
    assert code == 2
    assert "ORIGINAL and AVATARS" in err
