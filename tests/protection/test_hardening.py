"""Protect's own hardening (issue 34, item 6): the cap on attacks, empty avatars
and empty known columns as evaluate takes them, the bad value named, messages in
the command's words, options without the option they need, and wrong argument
types, each refused in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses
from tests.protection.test_protect import KNOWN, tables


def _argv(files: dict[str, Path], *more: str, avatars: Path | None = None) -> list[str]:
    return ["protect", str(files["original"]), str(avatars or files["avatars"]), "--target", "99",
            "-o", str(files["original"].with_name("p.csv")), "--no-distances", "--no-utility",
            *more]  # fmt: skip


def test_more_attacks_than_the_cap_are_refused_at_once(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    line = assert_cli_refuses(
        _argv(files, "-c", ",".join(KNOWN), "--max-known", "3", "--max-attacks", "10"),
        capsys, "the sweep would run 15 attacks",
    )  # fmt: skip
    assert "--max-attacks 15" in line
    many = [f"v{i}" for i in range(14)]  # 16,383 attacks: refused before reading a file
    with pytest.raises(kpr.InputError, match="more than the cap of 5,000"):
        kpr.protect(files["original"], files["avatars"], candidates=many, max_known=14, target=99)
    assert not files["original"].with_name("p.csv").exists()


def test_empty_avatars_and_an_empty_known_column_as_evaluate_takes_them(
    files: dict[str, Path], tmp_path: Path
) -> None:
    avatars = pl.read_csv(files["avatars"])
    empty, blank = tmp_path / "empty.csv", tmp_path / "blank.csv"
    avatars.head(0).write_csv(empty)
    avatars.with_columns(pl.lit(None, pl.Float64).alias("age")).write_csv(blank)
    for given in (empty, blank):
        _, result = kpr.protect(files["original"], given, KNOWN, target=99, distances=False)
        assert result.already_met
        assert result.worst_after.after.rate == kpr.evaluate(files["original"], given, KNOWN).rate


def test_the_bad_value_is_named(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    avatars = pl.read_csv(files["avatars"]).with_columns(pl.col("age").cast(pl.String))
    avatars[7, "age"] = "abc"
    bad = tmp_path / "bad.csv"
    avatars.write_csv(bad)
    assert_cli_refuses(_argv(files, "-k", "age,sex", avatars=bad), capsys, "(e.g. 'abc')")


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (["-k", "age,sex", "--max-known", "2"],
         "--max-known goes with --candidates, not with --known"),
        (["-k", "age,sex", "--regenerate-k", "5"],
         "--regenerate-k (5) goes with the move 'regenerate'; add it to --moves"),
        (["-k", "age", "-c", "sex"],
         "give either --known (one attack) or --candidates with --max-known"),
        (["-k", "age,age"], "--known names the same known variable twice: 'age'"),
        (["-c", "age,sex", "--max-known", "5"],
         "--max-known must be between 1 and the number of candidates (2), got 5"),
    ],
)  # fmt: skip
def test_messages_in_the_command_s_words(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], more: list[str], said: str
) -> None:
    line = assert_cli_refuses(_argv(files, *more), capsys, said)
    assert not any(f"{w}=" in line for w in ("known", "candidates", "max_known", "moves"))


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"known": KNOWN, "moves": 5}, "moves= must be names"),
        ({"known": 5}, "known= must be names"),
        ({"candidates": 5, "max_known": 2}, "candidates= must be names"),
        ({"known": KNOWN, "distances": "no"}, "distances= must be True or False, got 'no'"),
        ({"known": KNOWN, "utility": 1}, "utility= must be True or False, got 1"),
        ({"known": KNOWN, "kinds": ["age"]}, "kinds= must map column names to kinds"),
        ({"known": KNOWN, "output": 5}, "output= must be a .csv or .parquet path, got 5"),
        ({"known": KNOWN, "delimiter": 5}, "delimiter= must be a text, got 5"),
        ({"known": KNOWN, "na_values": 5}, "na_values= must be a list of texts, got 5"),
        ({"known": KNOWN, "na_values": ["", 0]}, "na_values= must be texts, got 0"),
        ({"known": KNOWN, "max_attacks": "many"}, None),  # max_attacks goes with candidates
        ({"candidates": KNOWN, "max_known": 2, "max_attacks": "many"}, "max_attacks must be"),
        ({"known": KNOWN, "regenerate_k": 5}, "regenerate_k= (5) goes with the move"),
        ({"known": KNOWN, "keep": 5}, "keep= must be column names, got 5"),
    ],
)
def test_wrong_argument_types_raise_input_error(given: dict[str, Any], said: str | None) -> None:
    original, avatars = tables(n=100)
    if said is None:  # accepted: the cap is not used by one attack
        kpr.protect(original, avatars, target=50, distances=False, utility=False, **given)
        return
    with pytest.raises(kpr.InputError) as info:
        kpr.protect(original, avatars, target=99, **given)
    assert said in str(info.value)


def test_the_cap_is_lifted_with_none(files: dict[str, Path]) -> None:
    _, result = kpr.protect(
        files["original"], files["avatars"], candidates=["age", "sex"], max_known=2, target=50,
        max_attacks=None, distances=False, utility=False,
    )  # fmt: skip
    assert len(result.attacks) == 3
