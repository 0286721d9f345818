"""``kpr avatarize``, ``kpr sweep`` and ``kpr tune`` on the command line."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.avatar import generate, hidden_rate, sweep
from kpr.avatar.files import read_original
from kpr.inputs.reading import ReadSettings
from tests.conftest import run_cli as run

from ._tables import mixed_pandas

FORMULAS = ["=SUM(A1:A9)", "+cmd", "@at", "-x", "ok"]
KNOWN = "age,city,smoker"


def _table(n: int = 160) -> pl.DataFrame:
    """Mixed columns with gaps, plus text cells a spreadsheet would run as formulas."""
    rng = np.random.default_rng(8)
    df = pl.from_pandas(mixed_pandas(n, seed=8, missing=True))
    return df.with_columns(
        pl.Series("note", rng.choice(FORMULAS, n)),
        pl.Series("code", rng.integers(0, 40, n).astype(np.int32)),
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("avatar-cli")
    df = _table()
    paths = {"csv": root / "original.csv", "parquet": root / "original.parquet"}
    df.write_csv(paths["csv"])
    df.write_parquet(paths["parquet"])
    control = pl.from_pandas(mixed_pandas(80, seed=9, missing=True))
    paths["control"] = root / "control.csv"
    control.write_csv(paths["control"])
    return paths


# --- kpr avatarize ---------------------------------------------------------------------


def _avatarize(
    source: Path, out: Path, capsys: pytest.CaptureFixture[str], *options: str
) -> tuple[str, str]:
    """``kpr avatarize SOURCE -o OUT OPTIONS``, which must succeed: (stdout, stderr)."""
    code, stdout, stderr = run(["avatarize", str(source), "-o", str(out), *options], capsys)
    assert code == 0, stderr
    return stdout, stderr


def test_avatarize_csv_roundtrip(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "avatars.csv"
    stdout, stderr = _avatarize(files["csv"], out, capsys, "--k", "5", "--seed", "3")
    # no spinner when stderr is not a terminal: a line per step ended, for a log
    assert stderr.startswith("kpr: [") and "] reading " in stderr
    assert all(line.startswith("kpr: [") for line in stderr.splitlines())
    assert "Wrote 160 avatars" in stdout and "seed 3" in stdout
    original = read_original(files["csv"])
    avatars = read_original(out)
    assert avatars.columns == original.columns
    assert avatars.schema == original.schema
    assert avatars.height == original.height
    assert sorted(p.name for p in tmp_path.iterdir()) == ["avatars.csv"]  # no pairing file


def test_avatarize_csv_neutralises_formulas(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "avatars.csv"
    _avatarize(files["csv"], out, capsys, "--seed", "1")
    notes = read_original(out)["note"].to_list()
    risky = [v for v in notes if v is not None and v.startswith(("=", "+", "-", "@"))]
    assert risky == []
    assert {"'=SUM(A1:A9)", "'+cmd", "'@at", "'-x"} & set(notes)  # quoted, not dropped
    raw = out.read_text(encoding="utf-8")
    assert all(not line.split(",")[-2].startswith("=") for line in raw.splitlines())


def test_avatarize_parquet_roundtrip_keeps_dtypes(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "avatars.parquet"
    _avatarize(files["parquet"], out, capsys, "--k", "4", "--seed", "2")
    original = pl.read_parquet(files["parquet"])
    avatars = pl.read_parquet(out)
    assert avatars.schema == original.schema  # Int32, Boolean, nullable floats and strings
    assert avatars.height == original.height
    # The file holds exactly the avatars of the API with the same parameters.
    assert avatars.equals(generate(original, k=4, seed=2).avatars)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_avatarize_seed_reproduces_the_bytes(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    source = files["parquet" if suffix == ".parquet" else "csv"]
    outs = [tmp_path / f"a{i}{suffix}" for i in range(3)]
    for out, seed in zip(outs, ["7", "7", "8"], strict=True):
        _avatarize(source, out, capsys, "--seed", seed)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    assert outs[0].read_bytes() != outs[2].read_bytes()


def test_avatarize_pairing_only_when_asked(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, pairing = tmp_path / "a.parquet", tmp_path / "pairing.csv"
    options = ["--k", "6", "--seed", "4", "--pairing-out", str(pairing)]
    stdout, _ = _avatarize(files["parquet"], out, capsys, *options)
    assert "pairing" in stdout
    got = pl.read_csv(pairing)
    assert got.columns == ["original_row", "avatar_row"]
    gen = generate(pl.read_parquet(files["parquet"]), k=6, seed=4)
    assert got["avatar_row"].to_list() == gen.pairing.tolist()
    assert got["original_row"].to_list() == list(range(gen.pairing.shape[0]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "pairing.csv"]


def test_avatarize_declared_categorical_keeps_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An integer-looking code declared categorical keeps its leading zeros."""
    rng = np.random.default_rng(0)
    original = tmp_path / "zip.csv"
    zips = [f"{z:05d}" for z in rng.integers(1000, 1100, 50)]
    pl.DataFrame({"zip": zips, "age": rng.integers(20, 70, 50)}).write_csv(original)
    out = tmp_path / "a.csv"
    _avatarize(original, out, capsys, "--k", "3", "--categorical", "zip")
    got = read_original(out, categorical=["zip"])
    assert got.schema["zip"] == pl.String and got["zip"].str.starts_with("0").all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "OUT/a.txt"], "must end in .csv or .parquet"),
        (["-o", "OUT/missing/a.csv"], "does not exist"),
        (["-o", "ORIGINAL"], "is also an input"),
        (["-o", "OUT/a.csv", "--pairing-out", "OUT/a.csv"], "would write to the same place"),
        (["-o", "OUT/a.csv", "--k", "160"], "k=160 must be smaller than the number of rows"),
        (["-o", "OUT/a.csv", "--k", "0"], "k must be an integer >= 1"),
        (["-o", "OUT/a.csv", "--categorical", "citty"], "did you mean 'city'"),
        (["-o", "OUT/a.csv", "--synthesis", "half"], "'half' is not one of"),
    ],
)
def test_avatarize_errors_exit_2_with_one_line(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    args = [str(files["csv"]) if a == "ORIGINAL" else a.replace("OUT", str(tmp_path)) for a in args]
    code, _, err = run(["avatarize", str(files["csv"]), *args], capsys)
    assert code == 2
    assert err.startswith("kpr: error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing written


# --- kpr sweep -------------------------------------------------------------------------


def test_sweep_json_equals_the_api_and_evaluate(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sweep", str(files["csv"]), "--known", KNOWN, "--k", "3,6", "--seed", "2"]
    argv += ["--repeats", "2", "--control", str(files["control"]), "-f", "json", "-q"]
    code, out, err = run(argv, capsys)
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["ks"] == [3, 6] and d["seeds"] == [2, 3]
    assert d["inputs"] == {"original": str(files["csv"]), "control": str(files["control"])}
    original = read_original(files["csv"])
    control = read_original(files["control"])
    api = sweep(original, KNOWN.split(","), ks=(3, 6), repeats=2, seed=2, control=control)
    for row, want in zip(d["rows"], api.rows, strict=True):
        assert row["kpr"] == want.kpr and row["interval"]["low"] == want.interval[0]
        assert row["control"] == want.control_dict()
        assert row["mean_hellinger"] == want.mean_hellinger
        for run_ in row["runs"]:
            gen = generate(original, k=row["k"], seed=run_["seed"])
            assert run_["kpr"] == kpr.evaluate(original, gen.avatars, KNOWN.split(",")).rate


def test_sweep_text_and_report(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    report = tmp_path / "sweep.html"
    argv = ["sweep", str(files["parquet"]), "-k", KNOWN, "--k", "2,5", "--report", str(report)]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    for text in ["KPR and utility of the avatars against k", "95 % CI", "hidden", "Hellinger",
                 "Median local cloaking", f"HTML report written to {report}"]:  # fmt: skip
        assert text in out
    for text in ["correct", "re-id", "copies", "DCR", "NNDR", "Correct links: linked"]:
        assert text in out
    html = report.read_text(encoding="utf-8")
    assert "<svg" in html and 'data-kpr-k="5"' in html
    for text in ["Correct links", "Re-identified", "Exact copies", "Median DCR", "Median NNDR"]:
        assert text in html
    direct = sweep(read_original(files["parquet"]), KNOWN.split(","), ks=(2, 5))
    shown = [float(v) for v in re.findall(r'data-kpr-correct="([^"]+)"', html)]
    assert shown == [r.correct_links for r in direct.rows]


# --- kpr tune --------------------------------------------------------------------------


def test_tune_picks_k_and_prints_how_to_make_the_table(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    original = read_original(files["csv"])
    full = sweep(original, KNOWN.split(","), ks=(2, 4, 8), seed=0)
    target = max(r.low for r in full.rows)
    ok = [r for r in full.rows if r.low >= target]
    expected = max(ok, key=lambda r: (r.overall, -r.k)).k
    argv = ["tune", str(files["csv"]), "-k", KNOWN, "--ks", "2,4,8", "--target", repr(target),
            "--repeats", "1", "--min-cloaking", "0"]  # fmt: skip
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert f"Chosen: k = {expected}" in out
    assert f"--k {expected} --seed 0" in out
    assert "(not checked: no --control)" in out
    code, out, _ = run([*argv, "-f", "json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["k"] == expected and d["reached"] is True
    assert d["row"]["kpr"] == full.row(expected).kpr
    assert d["reproduce"].startswith("kpr avatarize ")
    assert [p["k"] for p in d["per_k"] if p["chosen"]] == [expected]


def test_tune_unreachable_exits_1(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # n = 160: even nobody linked leaves the lower bound below 98 %.
    argv = ["tune", str(files["csv"]), "-k", KNOWN, "--ks", "2,5", "--target", "99",
            "--repeats", "1"]  # fmt: skip
    code, out, _ = run(argv, capsys)
    assert code == 1
    assert "No k meets every criterion" in out and "no k reaches a KPR lower bound" in out
    # KPR 78.75 % at k = 2, 82.50 % at k = 5: within k = 2's interval, no advice to raise k.
    assert "not rising measurably with k" in out
    code, out, _ = run([*argv, "-f", "json"], capsys)
    assert code == 1 and json.loads(out)["k"] is None
    assert "every k evaluated" in json.loads(out)["search"]


def test_tune_control_end_to_end(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """kpr tune --control: each criterion met or not per k in text, JSON and the page;
    the control bound decides; a bound no k meets exits 1 and says why."""
    pytest.importorskip("matplotlib")
    table = pl.read_csv(files["csv"])
    original, control = tmp_path / "original.csv", tmp_path / "control.csv"
    table[:110].write_csv(original)
    table[110:].write_csv(control)
    report = tmp_path / "tune.html"
    argv = ["tune", str(original), "-k", KNOWN, "--ks", "2,4", "--target", "1",
            "--repeats", "2", "--control", str(control), "--control-subsets", "2",
            "--min-cloaking", "0", "--max-control-difference", "50"]  # fmt: skip
    code, out, err = run([*argv, "-f", "json", "--report", str(report)], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert all(p["criteria"]["control"] is True for p in d["per_k"])
    assert d["sweep"]["inputs"]["control"] == str(control)
    html = report.read_text(encoding="utf-8")
    assert "Control bound met" in html and html.count("<svg") == 2
    assert f'data-kpr-tune-k="{d["k"]}"' in html
    code, out, _ = run([*argv[:-2], "--max-control-difference", "-100"], capsys)
    assert code == 1
    assert "No k meets every criterion" in out and "ctrl ok" in out
    assert "the synthesis adds risk over what the population alone gives" in out
    code, _, err = run([*argv[:-2], "--max-control-difference", "x"], capsys)
    assert code == 2 and "--max-control-difference must be a finite number" in err
    argv = ["tune", str(original), "-k", KNOWN, "--target", "50", "--max-control-difference", "1"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "--max-control-difference applies with --control" in err


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("sweep", ["--k", "2,x"], "'x' is not one"),
        ("sweep", ["--k", "2,2.5"], "'2.5' is not one"),
        ("sweep", ["--k", ","], "--k is empty"),
        ("sweep", ["--k", "2,160"], "k=160 must be smaller than the number of rows (160)"),
        ("sweep", ["--k", "0,2"], "each k must be >= 1"),
        ("sweep", ["--known", "agee"], "did you mean 'age'"),
        ("sweep", ["--tolerance", "5"], "tolerance"),
        ("sweep", ["--report", "OUT/missing/r.html"], "does not exist"),
        ("sweep", ["--control", "OUT/control.csv"], "control.csv: no column 'smoker'"),
        ("tune", ["--target", "0"], "--target must be a percentage in (0, 100]"),
        ("tune", ["--target", "100.1"], "--target must be a percentage in (0, 100]"),
        ("tune", ["--target", "nan"], "--target must be a percentage in (0, 100]"),
        ("tune", ["--target", "high"], "--target must be a percentage in (0, 100]"),
        ("tune", ["--target", "95", "--ks", "5,a"], "'a' is not one"),
        ("tune", ["--target", "95", "--ks", "500"], "k=500 must be smaller"),
        ("tune", ["--target", "95", "--known", "citty"], "did you mean 'city'"),
    ],
)
def test_sweep_and_tune_errors_exit_2_with_one_line(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    args: list[str],
    message: str,
) -> None:
    args = [a.replace("OUT", str(tmp_path)) for a in args]
    if "--control" in args:  # a control table without one of the known variables
        pl.DataFrame({"age": [30, 40], "city": ["paris", "lyon"]}).write_csv(
            tmp_path / "control.csv"
        )
    known = [] if "--known" in args else ["--known", KNOWN]
    code, _, err = run([command, str(files["csv"]), *known, *args], capsys)
    assert code == 2
    assert err.startswith("kpr: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_on_a_terminal_unless_quiet(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    quiet: bool,
) -> None:
    import io

    from rich.console import Console

    from kpr.cli import avatar, ksweep

    screen = io.StringIO()
    for module in (avatar, ksweep):
        monkeypatch.setattr(module, "stderr", Console(file=screen, force_terminal=True, width=100))
    flag = ["--quiet"] if quiet else []
    argv = ["sweep", str(files["csv"]), "-k", KNOWN, "--k", "2,3", *flag]
    assert run(argv, capsys)[0] == 0
    argv = ["avatarize", str(files["csv"]), "-o", str(tmp_path / "a.csv"), *flag]
    assert run(argv, capsys)[0] == 0
    shown = screen.getvalue()
    if quiet:
        assert shown == ""
    else:
        # Both refresh on a timer, so only the state they stop in is sure to be drawn.
        assert "━" in shown and "done" in shown  # the sweep's bar, completed
        assert "writing " in shown  # the spinner of avatarize, at its last step


# --- column roles, identifiers, rebuild command, kpr distance --------------------------


def _with_identifier(n: int = 160) -> pl.DataFrame:
    return _table(n).with_columns(pl.Series("email", [f"person{i}@mail.org" for i in range(n)]))


def test_identifier_column_exit_2_names_it_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.csv"
    _with_identifier().write_csv(source)
    out, pairs, roles = tmp_path / "a.csv", tmp_path / "p.csv", tmp_path / "roles.json"
    argv = ["avatarize", str(source), "-o", str(out), "--pairing-out", str(pairs)]
    code, stdout, stderr = run([*argv, "--roles-out", str(roles)], capsys)
    assert code == 2 and stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "email" in lines[0]
    assert "--drop email" in lines[0] and "--keep-identifiers email" in lines[0]
    assert "Traceback" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]  # nothing written
    code, _, stderr = run(["sweep", str(source), "-k", KNOWN, "--k", "3"], capsys)
    assert code == 2 and "--drop email" in stderr


def test_drop_and_keep_identifiers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.parquet"
    df = _with_identifier()
    df.write_parquet(source)
    out, pairs, roles = tmp_path / "a.parquet", tmp_path / "p.parquet", tmp_path / "roles.json"
    code, stdout, err = run(
        ["avatarize", str(source), "-o", str(out), "--drop", "email", "--seed", "1",
         "--roles-out", str(roles)], capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "email" not in pl.read_parquet(out).columns
    assert "Column roles:" in stdout and "city" in stdout
    described = json.loads(roles.read_text(encoding="utf-8"))
    by_name = {c["column"]: c for c in described["columns"]}
    assert by_name["city"]["role"] == "categorical" and by_name["height"]["role"] == "numeric"
    assert by_name["height"]["missingness"] == (df["height"].null_count() > 0)
    assert "email" not in by_name
    code, stdout, err = run(
        ["avatarize", str(source), "-o", str(out), "--keep-identifiers", "email", "--seed", "1",
         "--pairing-out", str(pairs)], capsys,
    )  # fmt: skip
    assert code == 0, err
    avatars, pairing = pl.read_parquet(out), pl.read_parquet(pairs)
    assert avatars.columns == df.columns
    # Pass-through: each avatar carries its own individual's value.
    own = avatars["email"].gather(pairing["avatar_row"].to_numpy())
    assert own.to_list() == df["email"].to_list()
    assert "passthrough" in stdout


def test_roles_flag_codes_and_high_cardinality() -> None:
    from kpr.avatar.roles import decide_roles

    rng = np.random.default_rng(3)
    n = 600
    df = pl.DataFrame(
        {
            "zip": rng.integers(10000, 10900, n),  # fixed-width integer codes
            "age": rng.integers(18, 90, n),
            "job": [f"j{i}" for i in rng.integers(0, 300, n)],  # 300 categories, not unique
            "x": rng.normal(size=n),
        }
    )
    roles = decide_roles("polars", df)
    by = {c.name: c for c in roles.columns}
    assert by["zip"].role == "numeric" and "looks like a code" in by["zip"].flags[0]
    assert not by["age"].flags
    assert by["job"].role == "categorical" and "group rare values" in by["job"].flags[0]
    assert by["x"].role == "numeric" and "unique on every row" in by["x"].flags[0]
    assert "dtype" in by["age"].reason and "distinct values" in by["age"].reason


def test_tune_rebuild_command_reproduces_the_measured_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every option that shapes the data goes into the printed command: running it gives
    the very table tune measured (same KPR, same linked individuals, same rows)."""
    df = _with_identifier().with_columns(
        pl.col("weight").cast(pl.String).fill_null("N/A"), pl.lit("x").alias("junk")
    )
    source = tmp_path / "in data.csv"
    df.write_csv(source, separator=";")
    known = ["age", "city", "smoker"]
    argv = ["tune", str(source), "-k", ",".join(known), "--ks", "2,4", "--target", "50",
            "--min-cloaking", "0", "--repeats", "1",
            "--delimiter", ";", "--na-value", "N/A", "--categorical", "code", "--drop", "junk",
            "--keep-identifiers", "email", "--categorical-decoding", "mode", "--ncp", "4",
            "--seed", "9", "-f", "json"]  # fmt: skip
    code, out, err = run(argv, capsys)
    assert code == 0, err
    measured = json.loads(out)
    command = measured["reproduce"]
    parts = ["--na-value N/A", "--delimiter ';'", "--drop junk", "--keep-identifiers email"]
    parts += ["--categorical-decoding mode", "--ncp 4", "--seed 9", "--categorical code"]
    for part in parts:
        assert part in command
    args = shlex.split(command)
    assert args[:2] == ["kpr", "avatarize"]
    rebuilt = tmp_path / "rebuilt.parquet"
    args[args.index("-o") + 1] = str(rebuilt)
    code, _, err = run(args[1:], capsys)
    assert code == 0, err
    avatars = pl.read_parquet(rebuilt)
    original = read_original(source, categorical=["code"], csv=ReadSettings(";", None, ("", "N/A")))
    original = original.drop("junk")
    result = kpr.evaluate(original, avatars, known, kinds=None)
    assert result.rate == measured["row"]["kpr"]
    assert result.linked == measured["row"]["runs"][0]["linked"]
    gen = generate(
        original, k=measured["k"], ncp=4, seed=9, categorical=["code"],
        categorical_decoding="mode", keep_identifiers=["email"],
    )  # fmt: skip
    assert avatars.equals(gen.avatars)


def test_distance_verb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    df = _table(200)
    original, synthetic, holdout = (tmp_path / f"{n}.parquet" for n in ("o", "s", "h"))
    df.head(150).write_parquet(original)
    df.head(100).write_parquet(synthetic)  # 100 exact copies of originals
    df.tail(50).write_parquet(holdout)
    code, out, err = run(
        ["distance", str(original), str(synthetic), "--holdout", str(holdout), "-f", "json"],
        capsys,
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["synthetic"]["exact_copies"] == 100 and d["synthetic"]["median_dcr"] == 0.0
    assert d["holdout"]["rows"] == 50 and d["holdout"]["median_dcr"] > 0
    assert "FAMD" in d["space"]
    assert d["synthetic"]["exact_copy_percent"] == 100.0 and d["dcr_ratio"] == 0.0
    assert d["reading"].startswith("The synthetic rows sit closer to the originals")
    code, out, err = run(["distance", str(original), str(synthetic), "-q"], capsys)
    assert code == 0 and "100.00 %" in out and "--holdout" in out and err == ""


def test_distance_pairing_and_numeric_roles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kpr distance --pairing adds the pairing metrics of avatars made elsewhere, equal to
    the API's; --numeric keeps a 1-10 score a number in the space."""
    from kpr.avatar import distance_metrics

    rng = np.random.default_rng(8)
    original = pl.DataFrame({"score": rng.integers(1, 11, 120), "x": rng.normal(size=120)})
    gen = generate(original, k=5, seed=1, numeric=["score"])
    assert gen.projection.roles["score"] == "numeric"
    assert generate(original, k=5, seed=1).projection.roles["score"] == "categorical"
    o, s, p = (tmp_path / n for n in ("o.csv", "s.csv", "p.csv"))
    original.write_csv(o)
    gen.avatars.write_csv(s)
    pl.DataFrame({"original_row": np.arange(120), "avatar_row": gen.pairing}).write_csv(p)
    args = ["distance", str(o), str(s), "--pairing", str(p), "--numeric", "score"]
    code, out, err = run([*args, "-f", "json"], capsys)
    assert code == 0, err
    got = json.loads(out)["pairing"]
    api = distance_metrics(original, gen.avatars, numeric=["score"], pairing=gen.pairing)
    assert api.pairing is not None and got["individuals"] == 120
    assert got["hidden_rate"] == api.pairing.hidden_rate
    assert got["median_local_cloaking"] == api.pairing.median_local_cloaking
    # the same space as the generator's: the figures the sweep reports for this table
    assert api.pairing.hidden_rate == hidden_rate(gen)
    code, out, _ = run(args, capsys)
    assert code == 0 and f"hidden rate {api.pairing.hidden_rate:.2f} %" in out
    # a pairing of another table, or a declared numeric that holds text: one line, exit 2
    bad = tmp_path / "bad.csv"
    pl.DataFrame({"original_row": [0, 500], "avatar_row": [0, 1]}).write_csv(bad)
    code, _, err = run(["distance", str(o), str(s), "--pairing", str(bad)], capsys)
    assert code == 2 and "outside" in err and "Traceback" not in err
    text = tmp_path / "t.csv"
    original.with_columns(pl.lit("a").alias("x")).write_csv(text)
    code, _, err = run(["distance", str(text), str(text), "--numeric", "x"], capsys)
    assert code == 2 and "declared numeric" in err


def test_sweep_and_tune_keep_a_declared_numeric_and_reproduce_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(3)
    table = pl.DataFrame({"score": rng.integers(1, 11, 80), "x": rng.normal(size=80)})
    o = tmp_path / "o.csv"
    table.write_csv(o)
    base = ["--known", "score", "--numeric", "score", "-f", "json", "-q"]
    code, out, err = run(
        ["tune", str(o), *base, "--ks", "2", "--target", "1", "--min-cloaking", "0"], capsys
    )
    assert code == 0, err
    tuned = json.loads(out)
    roles = {c["column"]: c["role"] for c in tuned["sweep"]["roles"]["columns"]}
    assert roles["score"] == "numeric"
    assert "--numeric score" in tuned["reproduce"]
    code, out, err = run(["sweep", str(o), *base, "--k", "2"], capsys)
    assert code == 0, err
    swept = json.loads(out)
    assert {c["column"]: c["role"] for c in swept["roles"]["columns"]}["score"] == "numeric"
    assert swept["rows"][0]["kpr"] == tuned["row"]["kpr"]  # the same table, seed 0
