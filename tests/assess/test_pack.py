"""``kpr assess`` and ``kpr verify`` (issue 36): the pack's files, its figures equal to
the individual commands', nothing personal in it, verify's exit codes, the policy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import kpr
from kpr.analysis import analyze
from kpr.assessment import parse_policy
from kpr.assessment.verify import same
from tests.assess.conftest import CANDIDATES, RARE, SECRET, assess_args, verify_args
from tests.conftest import run_cli as run
from tests.test_schema import validate


def _json(pack: Path, name: str) -> dict:
    return json.loads((pack / name).read_text("utf-8"))


def test_pack_files_and_schema(pack: Path, inputs: dict[str, Path]) -> None:
    names = sorted(p.name for p in pack.iterdir())
    assert names == ["README.txt", "manifest.json", "policy.toml", "report.html", "results.json"]
    results = _json(pack, "results.json")
    validate("assess", results)
    man = _json(pack, "manifest.json")
    assert list(man["inputs"]) == ["original", "synthetic", "holdout", "pairing", "protect_log",
                                   "policy"]  # fmt: skip
    assert man["inputs"]["original"]["rows"] == 600 and man["inputs"]["holdout"]["rows"] == 300
    assert man["inputs"]["pairing"]["columns"] == 2
    assert man["command"].startswith("kpr assess ") and "--max-known 2 " in man["command"]
    assert man["parameters"] == results["parameters"] and man["seeds"] == {"seed": 0}
    assert man["versions"]["kpr"] == kpr.__version__ and man["versions"]["polars"]
    assert results["not_assessed"] == {}  # every input given: every item answered
    report = (pack / "report.html").read_text("utf-8")
    for item in range(1, 14):
        assert f'id="item-{item}"' in report
    assert "not assessed</span>" not in report
    assert "kpr verify pack --original original.parquet" in (pack / "README.txt").read_text()


def test_figures_equal_the_individual_commands(
    pack: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    f = _json(pack, "results.json")["figures"]
    o, a, h, p = (str(inputs[r]) for r in ("original", "synthetic", "holdout", "pairing"))
    an = analyze(o, a, candidates=CANDIDATES, max_known=2, control=h, pairing=p).to_dict()
    assert f["singling_out.rate"] == an["attack"]["kpr"]
    assert f["singling_out.unique"] == an["attack"]["unique_originals"]
    assert f["singling_out.linked"] == an["attack"]["linked"]
    assert f["singling_out.floor"] == an["worst_case"]["kpr"]
    assert f["singling_out.control.difference"] == an["control"]["difference"]
    assert f["linkability.correct_links"] == an["correct_links"]
    inf = kpr.inference(o, a, known=CANDIDATES, secret=SECRET, control=h)[SECRET].to_dict()
    assert f[f"inference.{SECRET}.link_adds"] == inf["link_adds"]
    assert f[f"inference.{SECRET}.expected_cap"] == inf["expected_cap"]
    m = kpr.membership(o, a, holdout=h, known=CANDIDATES).to_dict()
    assert f["membership.auc"] == m["auc"]["value"]
    assert f["membership.tpr_at_fpr_0.01"] == m["tpr_at_fpr"][0]["tpr"]
    assert f["utility.overall"] == kpr.utility(o, a).overall
    args = ["distance", o, a, "--holdout", h, "--pairing", p, "-f", "json"]
    d = json.loads(run(args, capsys)[1])
    assert f["distance.synthetic.median_dcr"] == d["synthetic"]["median_dcr"]
    assert f["distance.holdout.exact_copies"] == d["holdout"]["exact_copies"]
    assert f["distance.hidden_rate"] == d["pairing"]["hidden_rate"]
    assert f["distance.sample_rows_per_side"] is None  # every row: no sample
    assert f["protect.cells_changed"] == 3 and f["protect.rows_changed"] == 2
    assert f["protect.move.shift"] == 2 and f["protect.column.âge"] == 2


def test_verify_matches_then_names_a_changed_file(
    pack: Path, inputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(verify_args(inputs, pack), capsys)
    assert code == 0 and "every hash and figure matches" in out
    changed = tmp_path / "synthétique.csv"
    table = pl.read_csv(inputs["synthetic"])
    first = pl.int_range(pl.len()) == 0
    table = table.with_columns(pl.when(first).then(99).otherwise(pl.col("âge")).alias("âge"))
    table.write_csv(changed)
    args = verify_args(inputs, pack)
    args[args.index(str(inputs["synthetic"]))] = str(changed)
    code, out, _ = run(args, capsys)
    lines = out.splitlines()
    assert code == 1 and lines[1].strip().startswith("file synthetic (")
    assert "SHA-256 differs" in lines[1]


def test_verify_cannot_compare_without_a_role(
    pack: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = verify_args(inputs, pack)
    i = args.index("--pairing")
    code, _, err = run(args[:i] + args[i + 2 :], capsys)
    assert code == 2 and err.count("\n") == 1 and "--pairing is missing" in err


def test_policy_changes_verdicts_not_figures(
    pack: Path, inputs: dict[str, Path], tmp_path: Path
) -> None:
    results = _json(pack, "results.json")
    rate = results["figures"]["singling_out.rate"]
    strict = tmp_path / "strict.toml"
    strict.write_text(
        '[criteria.singling_out]\nthreshold = 100.0\nunit = "percent of people"\n', "utf-8"
    )
    lenient = tmp_path / "lenient.toml"
    lenient.write_text(strict.read_text().replace("100.0", "0.0"), "utf-8")
    common = dict(candidates=CANDIDATES, max_known=2, secret=SECRET, holdout=inputs["holdout"])
    a = kpr.assess(inputs["original"], inputs["synthetic"], policy=strict, **common)
    b = kpr.assess(inputs["original"], inputs["synthetic"], policy=lenient, **common)
    none = kpr.assess(inputs["original"], inputs["synthetic"], **common)
    assert rate < 100
    assert a.verdicts()["singling_out"].verdict == "fail"
    assert b.verdicts()["singling_out"].verdict == "pass"
    assert {v.verdict for v in none.verdicts().values()} == {"no threshold stated"}
    assert a.figures == b.figures == none.figures
    assert a.figures["singling_out.rate"] == rate
    assert none.not_assessed.keys() == {"linkability", "protect"}


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ('[criteria.reidentification]\nthreshold = 1\nunit = "points"\n', "unknown criterion"),
        ("[criteria.membership]\nthreshold = 0.6\n", "has no unit"),
        ('[criteria.membership]\nthreshold = 0.6\nunit = "percent"\n', 'use "AUC"'),
        ('[attacker]\ncandidates = ["âge", "salaire"]\n', "'salaire', not a column"),
        ("min_count = 0\n", "min_count"),
        ("[criteria\n", "not valid TOML"),
    ],
)
def test_bad_policy_one_line_exit_2(
    policy: str, message: str, inputs: dict[str, Path], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path = tmp_path / "policy.toml"
    path.write_text(policy, "utf-8")
    with pytest.raises(kpr.InputError, match="policy"):
        parse_policy(policy, list(pl.read_parquet(inputs["original"]).columns))
    args = assess_args({**inputs, "policy": path}, tmp_path / "pack")
    code, _, err = run(args, capsys)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "pack").exists()


def test_refuses_a_non_empty_folder(
    inputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    code, _, err = run(assess_args(inputs, folder), capsys)
    assert code == 2 and "not empty" in err and err.count("\n") == 1
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["pack"]  # no temporary folder left


def test_init_writes_a_template_that_parses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "policy.toml"
    code, out, _ = run(["assess", "--init", str(path)], capsys)
    assert code == 0 and path.is_file() and "--policy" in out
    columns = ["age", "sex", "race", "marital_status", "education", "native_country"]
    policy = parse_policy(path.read_text("utf-8"), columns)
    assert set(policy.thresholds) == {"singling_out", "linkability", "inference", "membership",
                                      "utility"}  # fmt: skip
    assert policy.review_date == "2027-06-30" and policy.min_count == 10
    assert run(["assess", "--init", str(path)], capsys)[0] == 2  # never overwritten


def test_verify_tolerance_and_pack_copy(pack: Path, tmp_path: Path) -> None:
    assert same(1, 1) and not same(1, 2) and same(None, None) and not same(None, 0.0)
    assert same(0.1 + 0.2, 0.3) and not same(1.0, 1.0 + 1e-9)
    copy = tmp_path / "copy"
    shutil.copytree(pack, copy)
    assert (copy / "results.json").read_bytes() == (pack / "results.json").read_bytes()


@pytest.mark.parametrize(
    ("original", "synthetic", "message"),
    [
        ("a,b\n", "a,b\n1,x\n", "the original"),  # empty table
        ("a,b\n1,x\n2,y\n", "a,b\n1,x\nq,y\n", "column 'a' is numeric in original "),
        ("a,b\n1,x\n2,y\n", "a,b\n1,x\n", "'c' not a column of the original"),
    ],
)
def test_bad_tables_one_line_exit_2(
    original: str, synthetic: str, message: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    (tmp_path / "o.csv").write_text(original)
    (tmp_path / "s.csv").write_text(synthetic)
    candidates = "a,c" if "'c'" in message else "a,b"
    args = ["assess", str(tmp_path / "o.csv"), str(tmp_path / "s.csv"), "-c", candidates,
            "-o", str(tmp_path / "pack")]  # fmt: skip
    code, _, err = run(args, capsys)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "pack").exists()


def test_an_all_missing_candidate_is_assessed(tmp_path: Path) -> None:
    table = "a,b,c\n" + "".join(f"{i},{'xy'[i % 2]},\n" for i in range(12))
    (tmp_path / "o.csv").write_text(table)
    result = kpr.assess(tmp_path / "o.csv", tmp_path / "o.csv", candidates=["a", "c"])
    assert result.parameters.max_known == 2  # the default, at most the candidates
    assert result.figures["singling_out.rate"] == 0.0  # a copy links every unique person
    assert result.figures["singling_out.unique"] == 12
    assert result.not_assessed.keys() == {"linkability", "inference", "membership", "control",
                                          "protect"}  # fmt: skip


def test_verify_reports_a_version_difference_first(
    pack: Path, inputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "pack"
    shutil.copytree(pack, copy)
    man = _json(copy, "manifest.json")
    man["versions"]["polars"] = "0.0.1"
    results = _json(copy, "results.json")
    results["figures"]["singling_out.unique"] += 1
    (copy / "manifest.json").write_text(json.dumps(man), "utf-8")
    (copy / "results.json").write_text(json.dumps(results), "utf-8")
    code, out, _ = run(verify_args(inputs, copy), capsys)
    lines = [line.strip() for line in out.splitlines()[1:]]
    assert code == 1 and lines[0].startswith("version of polars: pack 0.0.1")
    assert lines[1].startswith("figure singling_out.unique: pack") and len(lines) == 2


def test_distances_on_a_seeded_sample(inputs: dict[str, Path]) -> None:
    common = dict(candidates=CANDIDATES, max_known=1, holdout=inputs["holdout"],
                  pairing=inputs["pairing"], distance_rows=200)  # fmt: skip
    a = kpr.assess(inputs["original"], inputs["synthetic"], **common)
    b = kpr.assess(inputs["original"], inputs["synthetic"], **common)
    assert a.figures["distance.sample_rows_per_side"] == 200
    assert a.figures["distance.synthetic.median_dcr"] == b.figures["distance.synthetic.median_dcr"]
    assert "distance.hidden_rate" not in a.figures  # a sample breaks the pairing's rows
    with pytest.raises(kpr.InputError, match="distance_rows"):
        kpr.assess(inputs["original"], inputs["synthetic"], candidates=CANDIDATES,
                   distance_rows=1)  # fmt: skip


def test_hot_spots_hide_small_groups(tmp_path: Path) -> None:
    """A copy links every unique person: the rare value's 3 people are linked, so the
    group is counted among the hidden ones and its value appears in no field."""
    rows = [(i % 40, "F" if i % 2 else "M", RARE if i < 3 else "nord") for i in range(200)]
    table = pl.DataFrame(rows, schema=["âge", "sexe", "région du nord"], orient="row")
    table.write_parquet(tmp_path / "o.parquet")
    result = kpr.assess(tmp_path / "o.parquet", tmp_path / "o.parquet",
                        candidates=["âge", "sexe", "région du nord"])  # fmt: skip
    assert result.figures["singling_out.hot_spots_hidden"] >= 1
    assert RARE not in json.dumps(result.to_dict(), ensure_ascii=False)
    assert all(g.people >= 10 for g in result.hot_spots)
    reference = kpr.evaluate(tmp_path / "o.parquet", tmp_path / "o.parquet",
                             known=["âge", "sexe", "région du nord"])  # fmt: skip
    rare = reference.class_table("région du nord").filter(pl.col("région du nord") == RARE)
    assert rare["linked"].item() == 3  # the group exists and is linked: hidden, not absent


def test_a_crlf_policy_is_copied_byte_for_byte(inputs: dict[str, Path], tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_bytes(
        b'min_count = 12\r\n[criteria.utility]\r\nthreshold = 0.5\r\nunit = "score"\r\n'
    )
    result = kpr.assess(inputs["original"], inputs["synthetic"], candidates=CANDIDATES,
                        max_known=1, policy=policy)  # fmt: skip
    from kpr.assessment import write_pack

    pack = write_pack(result, tmp_path / "pack", "kpr assess ...")
    assert (pack / "policy.toml").read_bytes() == policy.read_bytes()
    assert _json(pack, "results.json")["policy"]["min_count"] == 12
    assert kpr.verify(pack, original=inputs["original"], synthetic=inputs["synthetic"]) == []


def test_a_name_holding_a_comma_is_one_name(tmp_path: Path) -> None:
    """As in every API, a list names columns whole; the command line splits its own
    comma-separated lists (a quoted name keeps its comma)."""
    table = '"income, net",b\n' + "".join(f"{i % 5},{'xy'[i % 2]}\n" for i in range(12))
    (tmp_path / "o.csv").write_text(table)
    result = kpr.assess(tmp_path / "o.csv", tmp_path / "o.csv", candidates=["income, net", "b"])
    assert result.parameters.candidates == ("income, net", "b")
    with pytest.raises(kpr.InputError, match="names the same candidate variable twice"):
        kpr.assess(tmp_path / "o.csv", tmp_path / "o.csv", candidates=["b", "b"])
