"""Every command's ``--format json`` output, with and without its optional inputs,
follows its schema in docs/schema/ and holds no NaN or Infinity (strict JSON).

To add a command: add its runs to ``RUNS`` (command, arguments, schema). A command
that ``kpr --help`` lists with ``--format json`` and no run here fails
``test_every_json_command_has_runs``, so none can be forgotten.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpr.avatar import generate
from kpr.cli.app import cli
from tests.adversarial.conftest import run_cli
from tests.tables import people
from tests.test_schema import validate

#: (command, arguments, schema): file names in braces are the fixture's files.
RUNS: list[tuple[str, list[str], str]] = [
    ("evaluate", ["{o}", "{a}", "-k", "age,sex"], "evaluate"),
    ("evaluate", ["{o}", "{a}", "-k", "age,sex,income,visit,kids", "--control", "{c}",
                  "--control-subsets", "2", "--seed", "1", "--pairing", "{p}",
                  "--metadata", "{m}", "--fail-under", "99", "--categorical", "kids"], "evaluate"),
    ("evaluate", ["{oi}", "{ai}", "-k", "age,visit", "--width", "age=2",
                  "--width", "visit=30d", "--row-id", "id"], "evaluate"),
    ("demo", [], "evaluate"),
    ("analyze", ["{o}", "{a}", "-c", "age,sex,kids", "--tolerances", "0.05,0.1"], "analyze"),
    ("analyze", ["{o}", "{a}", "-c", "age,sex", "--control", "{c}", "--control-subsets", "2",
                 "--pairing", "{p}", "--method", "window", "--tolerances", "0.05"], "analyze"),
    ("sweep", ["{o}", "-k", "age,sex", "--k", "2"], "sweep"),
    ("sweep", ["{o}", "-k", "age,sex", "--k", "2,3", "--repeats", "2", "--control", "{c}",
               "--control-subsets", "2"], "sweep"),
    ("tune", ["{o}", "-k", "age,sex", "--target", "50", "--ks", "2"], "tune"),
    ("tune", ["{o}", "-k", "age,sex", "--target", "100", "--ks", "2"], "tune"),  # not reached
    ("tune", ["{o}", "-k", "age,sex", "--target", "50", "--ks", "2,3", "--control", "{c}",
              "--control-subsets", "2", "--min-cloaking", "0", "--repeats", "2"], "tune"),
    ("distance", ["{o}", "{a}"], "distance"),
    ("distance", ["{o}", "{a}", "--holdout", "{c}", "--ncp", "2"], "distance"),
    ("distance", ["{o}", "{a}", "--pairing", "{p}", "--numeric", "kids"], "distance"),
    ("protect", ["{o}", "{a}", "-k", "age,sex", "--target", "90", "-o", "{d}/p1.csv",
                 "--no-distances", "--no-utility"], "protect"),
    ("protect", ["{o}", "{a}", "-c", "age,sex,kids", "--max-known", "2", "--target", "99",
                 "-o", "{d}/p2.csv", "--changes-out", "{d}/changes.csv", "--pairing", "{p}",
                 "--control", "{c}", "--moves", "swap,shift,suppress"], "protect"),
    ("protect", ["{o}", "{a}", "-k", "age,sex,income", "--target", "100", "-o", "{d}/p3.csv",
                 "--moves", "delete"], "protect"),  # may not be reached: exit 1
    ("utility", ["{o}", "{a}"], "utility"),
    ("utility", ["{o}", "{c}", "-c", "age,sex,visit,kids", "--categorical", "kids",
                 "--metadata", "{m}"], "utility"),
    ("membership", ["{o}", "{a}", "--holdout", "{c}"], "membership"),
    ("membership", ["{o}", "{a}", "--holdout", "{c}", "-k", "age,sex,kids", "--seed", "2",
                    "--replicates", "30", "--categorical", "kids", "--tolerance", "0.1"],
     "membership"),
    ("inference", ["{o}", "{a}", "-k", "age,sex", "--secret", "kids"], "inference"),
    ("inference", ["{o}", "{a}", "-k", "age,sex", "--secret", "income,kids", "--control", "{c}",
                   "--control-subsets", "2", "--seed", "1", "--denom-lim", "3",
                   "--categorical", "kids"], "inference"),
]  # fmt: skip


def strict_json(text: str) -> Any:
    """The document, refusing NaN and Infinity (not JSON, though Python writes them)."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in a JSON output")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    days = pl.date_range(pl.date(2020, 1, 1), pl.date(2020, 1, 10), eager=True)
    table = people(90, seed=7).with_columns(visit=days.sample(90, with_replacement=True, seed=1))
    original, control = table[:60], table[60:]
    gen = generate(original, k=3, seed=0)
    avatars = gen.avatars
    root = tmp_path_factory.mktemp("json")
    paths = {k: root / f"{k}.csv" for k in ("o", "a", "c", "p", "oi", "ai")}
    original.with_columns(id=pl.int_range(0, 60) + 1000).write_csv(paths["oi"])
    avatars.with_columns(id=pl.int_range(0, 60) + 5000).write_csv(paths["ai"])
    original.write_csv(paths["o"])
    avatars.write_csv(paths["a"])
    control.write_csv(paths["c"])
    pl.DataFrame({"original_row": np.arange(60), "avatar_row": gen.pairing}).write_csv(paths["p"])
    paths["d"] = root
    paths["m"] = root / "metadata.json"
    paths["m"].write_text('{"columns": {"age": {"sdtype": "numerical"}}}')
    return {k: str(v) for k, v in paths.items()}


@pytest.mark.parametrize(("command", "args", "schema"), RUNS)
def test_json_follows_its_schema(
    files: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    command: str,
    args: list[str],
    schema: str,
) -> None:
    argv = [command, *(a.format(**files) for a in args), "--format", "json"]
    if "--quiet" in _options(command):
        argv.append("-q")
    code, out, err = run_cli(argv, capsys)
    assert code in (0, 1), err  # 1: a release gate not met (--fail-under, tune's target)
    data = strict_json(out)
    validate(schema, data)


def _command(name: str) -> click.Command:
    """A subcommand, lazy ones included (imported as ``kpr NAME`` would)."""
    found = cli.get_command(click.Context(cli), name)
    assert found is not None, name
    return found


def _options(command: str) -> set[str]:
    found = _command(command)
    return {opt for p in found.params for opt in p.opts}


def _listed_commands(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The command names ``kpr --help`` shows."""
    code, out, _ = run_cli(["--help"], capsys)
    assert code == 0
    section = out.split("Commands:", 1)[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ")]


def _has_json(command: str) -> bool:
    for param in _command(command).params:
        if "--format" in param.opts and isinstance(param.type, click.Choice):
            return "json" in param.type.choices
    return False


def test_every_json_command_has_runs(capsys: pytest.CaptureFixture[str]) -> None:
    listed = _listed_commands(capsys)
    assert {"evaluate", "analyze", "sweep", "distance", "avatarize"} <= set(listed)
    with_json = {c for c in listed if _has_json(c)}
    missing = with_json - {command for command, _, _ in RUNS}
    assert not missing, f"add runs of {sorted(missing)} to RUNS (with and without options)"
    for command in with_json:  # each command at least once plain and once with options
        runs = [args for c, args, _ in RUNS if c == command]
        assert command == "demo" or len(runs) > 1, command


# Hostile numbers (inf, NaN, the float limit, missing) in a small table: the JSON of
# evaluate and analyze stays strict and valid; the rate stays a finite percentage.
VALUES = st.one_of(
    st.integers(-5, 5).map(float),
    st.sampled_from([math.inf, -math.inf, math.nan, 1.5e308, -1.5e308, 5e-324, None]),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.tuples(VALUES, st.sampled_from("FM")), min_size=1, max_size=8),
    st.lists(st.tuples(VALUES, st.sampled_from("FM")), min_size=1, max_size=8),
)
def test_hostile_numbers_keep_the_json_strict(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    original: list[tuple[float | None, str]],
    avatars: list[tuple[float | None, str]],
) -> None:
    for name, records in (("o.parquet", original), ("a.parquet", avatars)):
        x, s = zip(*records, strict=True)
        pl.DataFrame({"x": x, "s": s}, schema={"x": pl.Float64, "s": pl.String}).write_parquet(
            tmp_path / name
        )
    o, a = str(tmp_path / "o.parquet"), str(tmp_path / "a.parquet")
    for argv, schema in (
        (["evaluate", o, a, "-k", "x,s"], "evaluate"),
        (["analyze", o, a, "-c", "x,s", "--tolerances", "0.05"], "analyze"),
    ):
        code, out, err = run_cli([*argv, "-q", "--format", "json"], capsys)
        assert code == 0, err
        data = strict_json(out)
        validate(schema, data)
        rate = data["kpr"] if schema == "evaluate" else data["attack"]["kpr"]
        assert 0.0 <= rate <= 100.0
