"""Hostile inputs on ``kpr tune``, ``kpr inference``, ``kpr membership`` and
``kpr utility --metadata`` (issue 38, item 9): each gets the reference's answer or
one error line (exit 2, no traceback) that names the bad value and the file at
fault; and a malformed file leaves no file descriptor open."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from tests.reference import reference_kpr

from .conftest import assert_cli_refuses, assert_input_error, run_cli

AGE = "âge du patient"  # a name with a space and a non-ASCII letter


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An original (120 people), its copy as avatars, a holdout of 200 other people,
    and the hostile variants of them."""
    root = tmp_path_factory.mktemp("newest")
    rng = np.random.default_rng(0)
    n = 120
    towns = np.array(["Paris", "Lyon", "Nice"])
    original = pl.DataFrame(
        {AGE: rng.integers(18, 90, n), "ville": rng.choice(towns, n), "sick": rng.choice(
            np.array(["y", "n"]), n)}
    )  # fmt: skip
    other = np.random.default_rng(1)
    holdout = pl.DataFrame(
        {AGE: other.integers(18, 90, 200), "ville": other.choice(np.append(towns, "Brest"), 200),
         "sick": other.choice(np.array(["y", "n"]), 200)}
    )  # fmt: skip
    tables = {
        "original": original,
        "avatars": original,
        "holdout": holdout,
        "holdout_extra": holdout.with_columns(pl.lit(1).alias("extra")),
        "empty": original.clear(),
        "no_secret": original.with_columns(pl.lit(None, dtype=pl.Utf8).alias("sick")),
        "text_age": original.with_columns(pl.col(AGE).cast(pl.Utf8) + "x"),
        "huge": original.with_columns(
            pl.when(pl.int_range(n) == 0).then(1e308).otherwise(pl.col(AGE)).alias(AGE)
        ),
    }
    out = {}
    for name, table in tables.items():
        path = root / f"{name}.csv"
        table.write_csv(path)
        out[name] = str(path)
    (root / "semicolon.csv").write_text(original.write_csv(separator=";"), encoding="utf-8")
    out["semicolon"] = str(root / "semicolon.csv")
    metadata = {
        "not_json": "{not json",
        "absent": json.dumps({"columns": {"nope": {"sdtype": "numerical"}}}),
        "a_list": json.dumps([1, 2]),
        "single": json.dumps({"columns": {"ville": {"sdtype": "categorical"}}}),
    }
    for name, text in metadata.items():
        (root / f"meta_{name}.json").write_text(text, encoding="utf-8")
        out[f"meta_{name}"] = str(root / f"meta_{name}.json")
    return out


def _reference(original: str, avatars: str, known: list[str], numeric: set[str]) -> tuple:
    o, a = pl.read_csv(original).to_dicts(), pl.read_csv(avatars).to_dicts()
    ref = reference_kpr(o, a, known, numeric, 0.05)
    return ref.n, ref.unique_originals, ref.linked


# --- kpr tune ------------------------------------------------------------------------


def test_tune_on_an_empty_table(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tune", files["empty"], "-k", "ville", "--ks", "2", "--repeats", "1", "--target", "10"]
    assert_cli_refuses(args, capsys, "0 row(s)")


def test_tune_with_an_absent_known_variable(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tune", files["original"], "-k", "nope", "--ks", "2", "--target", "10"]
    line = assert_cli_refuses(args, capsys, "no column 'nope'")
    assert repr(AGE) in line  # the columns there are, to choose from


def test_tune_target_given_as_a_fraction(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tune", files["original"], "-k", "ville", "--ks", "2", "--target", "0.9"]
    assert_cli_refuses(args, capsys, "did you mean 90?")


def test_tune_on_a_semicolon_file_sniffs_it(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The wrong delimiter is sniffed: the same answer as the comma file."""
    answers = []
    for name in ("original", "semicolon"):
        args = ["tune", files[name], "-k", f"{AGE},ville", "--ks", "2", "--repeats", "1",
                "--target", "10", "-f", "json", "-q"]  # fmt: skip
        code, out, err = run_cli(args, capsys)
        assert code in (0, 1) and err == "", err
        answers.append([(r["k"], r["kpr"]) for r in json.loads(out)["sweep"]["rows"]])
    assert answers[0] == answers[1]


# --- kpr inference -------------------------------------------------------------------


def test_inference_secret_that_is_known(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["inference", files["original"], files["avatars"], "-k", "ville", "--secret", "ville"]
    assert_cli_refuses(args, capsys, "'ville' is both known and secret")


def test_inference_absent_secret_names_the_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["inference", files["original"], files["avatars"], "-k", "ville", "--secret", "nope"]
    line = assert_cli_refuses(args, capsys, "no column 'nope'")
    assert files["original"] in line


def test_inference_all_missing_secret_is_answered(files: dict[str, str]) -> None:
    """A secret missing everywhere: the link counts are the reference's."""
    path = files["no_secret"]
    result = kpr.inference(path, path, known=["ville"], secret="sick")
    n, unique, linked = _reference(path, path, ["ville"], set())
    out = result.to_dict()
    assert (out["n"], out["unique_originals"], out["linked"]) == (n, unique, linked)


def test_inference_names_with_spaces_and_unicode(files: dict[str, str]) -> None:
    o, a = files["original"], files["avatars"]
    result = kpr.inference(o, a, known=[AGE, "ville"], secret="sick")
    out = result.to_dict()
    expected = _reference(o, a, [AGE, "ville"], {AGE})
    assert (out["n"], out["unique_originals"], out["linked"]) == expected
    assert expected[2] > 0  # the copy links people: the case is not vacuous


def test_inference_types_differ_between_sides(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["inference", files["original"], files["text_age"], "-k", AGE, "--secret", "sick"]
    line = assert_cli_refuses(args, capsys, "numeric in original")
    assert files["text_age"] in line and "'79x'" not in line.split("(e.g.")[0]


def test_inference_on_an_empty_original(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["inference", files["empty"], files["avatars"], "-k", "ville", "--secret", "sick"]
    assert_cli_refuses(args, capsys, "the original table has no rows")


# --- kpr membership ------------------------------------------------------------------


def test_membership_holdout_with_another_column(files: dict[str, str]) -> None:
    """The holdout's extra column is not part of the profile: the same answer as without."""
    o, a = files["original"], files["avatars"]
    plain = kpr.membership(o, a, holdout=files["holdout"], replicates=10)
    extra = kpr.membership(o, a, holdout=files["holdout_extra"], replicates=10)
    assert plain.columns == extra.columns == (AGE, "ville", "sick")
    assert plain.auc == extra.auc


def test_membership_empty_holdout(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["membership", files["original"], files["avatars"], "--holdout", files["empty"]]
    assert_cli_refuses(args, capsys, "the holdout has 0 rows")


def test_membership_huge_value(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """1e308 in a numeric column: an answer (exit 0), no overflow, no traceback."""
    args = ["membership", files["huge"], files["avatars"], "--holdout", files["holdout"],
            "--replicates", "10", "-f", "json", "-q"]  # fmt: skip
    code, out, err = run_cli(args, capsys)
    assert code == 0 and err == "", err
    assert 0.0 <= json.loads(out)["auc"]["value"] <= 1.0


def test_membership_types_differ_between_sides(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["membership", files["original"], files["text_age"], "--holdout", files["holdout"]]
    line = assert_cli_refuses(args, capsys, "numeric in original")
    assert files["text_age"] in line


# --- kpr utility --metadata ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "extra", "match"),
    [
        ("not_json", [], "is not JSON"),
        ("absent", [], "describes column 'nope', which original "),
        ("a_list", [], "must be SDV metadata"),
        ("single", ["--table", "people"], "--table 'people' given, but"),
    ],
)
def test_utility_metadata_at_fault_is_named(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], name: str, extra: list[str],
    match: str,
) -> None:  # fmt: skip
    meta = files[f"meta_{name}"]
    args = ["utility", files["original"], files["avatars"], "--metadata", meta, *extra]
    line = assert_cli_refuses(args, capsys, match)
    assert meta in line


def test_utility_metadata_missing_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    gone = str(tmp_path / "nowhere.json")
    args = ["utility", files["original"], files["avatars"], "--metadata", gone]
    line = assert_cli_refuses(args, capsys, "cannot read it")
    assert gone in line


def test_utility_api_metadata_at_fault(files: dict[str, str]) -> None:
    message = assert_input_error(
        lambda: kpr.utility(files["original"], files["avatars"], metadata=files["meta_absent"]),
        "describes column 'nope'",
    )
    assert files["meta_absent"] in message


# --- readers closed on error ---------------------------------------------------------


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_malformed_file_leaves_no_descriptor_open(tmp_path: Path) -> None:
    """Malformed inputs (bytes that are no text, a ragged CSV, broken metadata), read
    many times: every reader is closed on the error."""
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"age,town\n30,\xff\xfe\x00Paris\n41,Lyon,extra,more\n\x00\x00")
    good = tmp_path / "good.csv"
    good.write_text("age,town\n30,Paris\n41,Lyon\n", encoding="utf-8")
    meta = tmp_path / "meta.json"
    meta.write_bytes(b"\xff{")
    calls = [
        lambda: kpr.evaluate(str(bad), str(good), known=["age", "town"]),
        lambda: kpr.utility(str(bad), str(good)),
        lambda: kpr.utility(str(good), str(good), metadata=str(meta)),
        lambda: kpr.membership(str(good), str(good), holdout=str(bad)),
    ]
    for call in calls:  # warm up: imports and thread pools open what they keep
        with contextlib.suppress(kpr.InputError):
            call()
    before = _open_descriptors()
    for _ in range(10):
        for call in calls:
            try:
                call()
            except kpr.InputError as exc:
                assert "\n" not in str(exc).strip()
    assert _open_descriptors() <= before


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("original_row,avatar_row\n0,1\n1,x\n", "'x' is not one"),
        ("original_row,avatar_row\n0,0\n1,0\n", "one avatar row to several individuals"),
    ],
)
def test_a_bad_pairing_file_is_named(
    files: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str,
    match: str,
) -> None:  # fmt: skip
    pairing = tmp_path / "my pairing.csv"
    pairing.write_text(text, encoding="utf-8")
    args = ["evaluate", files["original"], files["avatars"], "-k", "ville",
            "--pairing", str(pairing)]  # fmt: skip
    line = assert_cli_refuses(args, capsys, match)
    assert f"pairing {pairing}: " in line
