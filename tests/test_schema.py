"""The JSON outputs of evaluate, analyze and sweep follow docs/schema/ (issue 12's
stable contract), and every warning code is documented."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

import kpr
from kpr.avatar import generate
from kpr.cli.app import main
from kpr.notices import CODES
from tests.tables import people

DOCS = Path(__file__).resolve().parents[1] / "docs"
SCHEMAS = {p.name: json.loads(p.read_text("utf-8")) for p in (DOCS / "schema").glob("*.json")}
REGISTRY = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in SCHEMAS.values()
)


def validate(name: str, data: Any) -> None:
    schema = SCHEMAS[f"{name}.schema.json"]
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema, registry=REGISTRY).validate(data)


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    """The JSON output of ``kpr <args>``, valid under its command's schema."""
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--format", "json"])
    assert exit_.value.code in (0, 1)
    data = json.loads(capsys.readouterr().out)
    validate(args[0], data)
    return data


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    table = people(700, seed=0)  # income is an identifier, kids few distinct integers
    gen = generate(table[:500], k=4, seed=0)
    root = tmp_path_factory.mktemp("schema")
    paths = {k: root / f"{k}.csv" for k in ("original", "avatars", "control", "pairing")}
    table[:500].write_csv(paths["original"])
    gen.avatars.write_csv(paths["avatars"])
    pl.concat([table[500:], table[:10]]).write_csv(paths["control"])  # shares 10 rows
    pl.DataFrame({"original_row": np.arange(500), "avatar_row": gen.pairing}).write_csv(
        paths["pairing"]
    )
    return {k: str(v) for k, v in paths.items()}


def test_evaluate_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = files["original"], files["avatars"]
    plain = _cli(["evaluate", o, a, "-k", "age,sex", "-q"], capsys)
    assert plain["control"] is None and plain["correct_links"] is None
    full = _cli(["evaluate", o, a, "-k", "age,sex,income,kids", "--control", files["control"],
                 "--control-subsets", "3", "--pairing", files["pairing"], "--fail-under", "99",
                 "-q"], capsys)  # fmt: skip
    assert full["control"]["shared_rows"] == 10 and full["correct_links"] is not None
    codes = {w["code"] for w in full["warnings"]}
    assert {"identifying-variable", "few-distinct-integers", "control-shares-rows"} <= codes
    assert set(full["variables"]["age"]["over_unique_originals"]) == {"mean", "std", "min", "max"}
    moved = _cli(["evaluate", o, a, "-k", "age,sex", "--grid-offset", "0.25", "-q"], capsys)
    assert moved["grid_offset"] == 0.25 and "grid_offset" not in plain


def test_a_json_that_breaks_the_contract_is_refused(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cli(["evaluate", files["original"], files["avatars"], "-k", "age", "-q"], capsys)
    data["variables"]["age"]["mean"] = 1.0  # the old, unlabelled statistic
    with pytest.raises(ValidationError, match="not valid under any"):
        validate("evaluate", data)
    data = _cli(["evaluate", files["original"], files["avatars"], "-k", "age", "-q"], capsys)
    data["warnings"] = ["a free string"]
    with pytest.raises(ValidationError, match="not of type 'object'"):
        validate("evaluate", data)


def test_analyze_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = files["original"], files["avatars"]
    data = _cli(["analyze", o, a, "-c", "age,sex,income", "--max-known", "2", "--control",
                 files["control"], "--control-subsets", "2", "--pairing", files["pairing"],
                 "--tolerances", "0.05,0.1", "-q"], capsys)  # fmt: skip
    assert data["sweep"]["attacks"] == 3 + 3 + 1  # with the full attack
    window = _cli(["analyze", o, a, "-k", "age,sex", "--method", "window", "--tolerances",
                   "0.05", "-q"], capsys)  # fmt: skip
    assert window["sweep"] is None and window["control"] is None


def test_sweep_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cli(["sweep", files["original"], "-k", "age,sex", "--k", "3,5", "--control",
                 files["control"], "--control-subsets", "2", "--repeats", "2", "-q"],
                capsys)  # fmt: skip
    assert [r["k"] for r in data["rows"]] == [3, 5]
    for row in data["rows"]:  # the size-fair comparison, summarised over the repeats
        control, runs = row["control"], [run["control"] for run in row["runs"]]
        assert control["seeds"] == [run["seed"] for run in row["runs"]] == [0, 1]
        assert [run["seed"] for run in runs] == [0, 1] and control["subsets"] == 2
        assert control["shared_rows"] == 10 == runs[0]["shared_rows"]
        assert control["difference"] == pytest.approx(sum(r["difference"] for r in runs) / 2)
        assert control["difference_interval"]["low"] == min(
            r["difference_interval"]["low"] for r in runs
        )
    plain = _cli(["sweep", files["original"], "-k", "age,sex", "--k", "3", "-q"], capsys)
    assert plain["rows"][0]["control"] is None


def test_non_finite_numbers_are_null_everywhere() -> None:
    from kpr.results.json import finite_or_none

    assert finite_or_none(math.inf) is None and finite_or_none(math.nan) is None
    assert finite_or_none(1.5) == 1.5
    assert SCHEMAS["common.schema.json"]["$defs"]["number"] == {"type": ["number", "null"]}


def test_every_warning_code_is_in_the_schema_and_the_docs() -> None:
    enum = SCHEMAS["common.schema.json"]["$defs"]["warning"]["properties"]["code"]["enum"]
    assert sorted(enum) == sorted(CODES)
    documented = re.findall(r"^\| `([a-z-]+)` \|", (DOCS / "warnings.md").read_text("utf-8"), re.M)
    assert sorted(documented) == sorted(CODES)


def test_a_date_variable_follows_the_schema() -> None:
    import datetime as dt

    import kpr

    days = [dt.date(2000, 1, 1) + dt.timedelta(days=9 * i) for i in range(40)]
    table = pl.DataFrame({"d": days, "s": ["F", "M"] * 20})
    data = kpr.evaluate(table, table, known=["d", "s"]).to_dict()
    validate("evaluate", data)
    assert data["variables"]["d"]["kind"] == "date"
    assert set(data["variables"]["d"]["over_unique_originals"]) == {"mean", "std", "min", "max"}


def test_utility_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cli(["utility", files["original"], files["avatars"], "-q"], capsys)
    assert [c["column"] for c in data["columns"]] == ["age", "sex", "income", "kids"]
    assert len(data["pairs"]) == 6
    constant = pl.DataFrame({"a": [1.0] * 5, "b": [1, 2, 3, 4, 5], "c": list("xxyyz")})
    numbers = {"a": "numeric", "b": "numeric"}  # else categories, as avatarize has them
    undefined = kpr.utility(constant, constant, kinds=numbers).to_dict()  # r undefined
    validate("utility", undefined)
    assert undefined["pairs"][0]["score"] is None


def test_membership_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _cli(["membership", files["original"], files["avatars"], "--holdout",
                 files["control"], "--replicates", "50", "-q"], capsys)  # fmt: skip
    assert data["shared_rows"] == 10 and data["non_members"] == 105
    assert [p["available"] for p in data["tpr_at_fpr"]] == [True, False]
    assert {w["code"] for w in data["warnings"]} == {"holdout-shares-rows"}
    data["auc"]["value"] = 1.5
    with pytest.raises(ValidationError):
        validate("membership", data)


def test_inference_json_follows_its_schema(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = files["original"], files["avatars"]
    plain = _cli(["inference", o, a, "-k", "age,sex", "--secret", "kids,income", "-q"], capsys)
    assert plain["control_n"] is None and [s["secret"] for s in plain["secrets"]] == [
        "kids", "income",
    ]  # fmt: skip
    full = _cli(["inference", o, a, "-k", "age", "--secret", "sex", "--control",
                 files["control"], "--control-subsets", "3", "--denom-lim", "2", "-q"],
                capsys)  # fmt: skip
    assert full["secrets"][0]["denom_lim"] == 2 and len(full["secrets"][0]["control"]) == 3


def test_evaluate_with_secrets_adds_the_inference_block(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = files["original"], files["avatars"]
    data = _cli(["evaluate", o, a, "-k", "age,sex", "--secret", "kids", "-q"], capsys)
    assert data["inference"]["linked"] == data["linked"]
    assert data["inference"]["secrets"][0]["secret"] == "kids"
