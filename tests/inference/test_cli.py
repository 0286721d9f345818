"""``kpr inference`` and ``kpr.inference``: the text reads itself, the control is
compared at the same size on the draws the rate's comparison uses, the report escapes
what it shows, and every bad input is one line (exit 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.analysis.baselines import DEFAULT_SUBSETS
from tests.adversarial.conftest import assert_input_error, run_cli
from tests.inference.reference import reference_inference
from tests.reference import reference_value_order


def _tables(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 40, n)
    return pl.DataFrame(
        {
            "âge du client": age,
            "sex": rng.choice(np.array(["F", "M"]), n),
            "zip": rng.integers(0, 30, n).astype(str),
            "<b>sick</b>": np.where(age + rng.integers(0, 6, n) > 35, "yes", "no"),
            "income": (age * 100 + rng.integers(0, 400, n)).astype(float),
        }
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inference")
    table = _tables(400, 0)
    rng = np.random.default_rng(1)
    avatars = table[:300].with_columns(  # the original, a third of the rows reshuffled
        pl.when(pl.Series(rng.random(300) < 0.3)).then(_tables(300, 1)[c]).otherwise(pl.col(c))
        for c in ("sex", "<b>sick</b>", "income")
    )
    out = {"original": table[:300], "avatars": avatars, "control": table[300:]}
    paths = {k: root / f"{k}.csv" for k in out}
    for k, frame in out.items():
        frame.write_csv(paths[k])
    return paths


KNOWN = ["âge du client", "sex", "zip"]


def test_the_sentence_reads_the_counts(files: dict[str, Path]) -> None:
    r = kpr.inference(files["original"], files["avatars"], KNOWN, secret="<b>sick</b>")
    s = r["<b>sick</b>"]
    c = s.counts
    assert c.linked > 0
    assert s.sentence().startswith(
        f"<b>sick</b>: of the {c.linked:,} people linked, {c.right:,} get their <b>sick</b> "
        f"right — {100 * c.right / c.linked:.1f} %, against "
        f"{100 * c.guess_linked / c.linked:.1f} % by guessing"
    )
    assert s.link_adds == pytest.approx(100 * (c.right - c.guess_linked) / c.linked)


def test_the_control_is_compared_on_the_rate_s_draws(files: dict[str, Path]) -> None:
    """The original (300 rows) is drawn down to the control's 100 rows by the same
    seeded generator as the rate's comparison; each draw's IAL is the reference's."""
    o, a, c = (pl.read_csv(files[k]) for k in ("original", "avatars", "control"))
    secret = "income"
    r = kpr.inference(o, a, KNOWN, secret=secret, control=c, seed=7)[secret]
    ial = next(m for m in r.control if m.name == "IAL")
    assert (ial.size, ial.subsets) == (100, DEFAULT_SUBSETS)
    rng = np.random.default_rng(7)
    shares = []
    rows_o, rows_a = o.to_dicts(), a.to_dicts()
    numeric = {"âge du client", "zip", secret}
    order = np.array(reference_value_order(rows_o, [*KNOWN, secret]))  # drawn by value
    for _ in range(DEFAULT_SUBSETS):
        picked = np.sort(order[rng.choice(300, size=100, replace=False)])
        sub = [rows_o[i] for i in picked]
        ref = reference_inference(sub, rows_a, KNOWN, secret, numeric)
        shares.append(ref.right / ref.n)
    assert ial.original_share == pytest.approx(float(np.mean(shares)), abs=1e-12)
    ref_c = reference_inference(
        c.to_dicts(), rows_a, KNOWN, secret, {"âge du client", "zip", secret}
    )
    assert ial.control_share == ref_c.right / ref_c.n
    low, high = ial.interval
    assert low <= ial.difference <= high


def test_cli_text_json_and_report(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o, a, c = (str(files[k]) for k in ("original", "avatars", "control"))
    report = tmp_path / "r.html"
    code, out, err = run_cli(
        ["inference", o, a, "-k", ",".join(KNOWN), "--secret", "<b>sick</b>,income",
         "--control", c, "--control-subsets", "3", "--report", str(report)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "of the" in out and "people linked" in out and "IAL: original" in out
    page = report.read_text("utf-8")
    assert "<b>sick</b>" not in page and "&lt;b&gt;sick&lt;/b&gt;" in page
    assert "<svg" in page
    code, out, _ = run_cli(
        ["inference", o, a, "-k", ",".join(KNOWN), "--secret", "income", "--json"], capsys
    )
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    assert data["secrets"][0]["secret"] == "income"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-k", "sex", "--secret", "sex"], "both known and secret"),
        (["-k", "sex", "--secret", "nope"], "no column 'nope'"),
        (["-k", "sex", "--secret", "income,income"], "same secret column twice"),
        (["-k", "sex", "--secret", "income", "--denom-lim", "0"], "--denom-lim"),
    ],
)
def test_bad_input_is_one_line(
    files: dict[str, Path], args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["inference", str(files["original"]), str(files["avatars"]), *args],
                           capsys)  # fmt: skip
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_secret_missing_from_a_side_or_of_another_kind_is_refused() -> None:
    o = pl.DataFrame({"age": [30, 40, 50], "pay": [1.0, 2.0, 3.0]})
    assert_input_error(
        lambda: kpr.inference(o, o.drop("pay"), ["age"], secret="pay"), "no column 'pay'"
    )
    text = o.with_columns(pl.Series("pay", ["a", "b", "c"]))
    assert_input_error(lambda: kpr.inference(o, text, ["age"], secret="pay"), "'pay'")
    assert_input_error(lambda: kpr.inference(o, o, ["age"], secret=[]), "secret is empty")
    assert_input_error(lambda: kpr.inference(o.clear(), o, ["age"], secret="pay"), "no rows")


def test_an_all_missing_secret_is_one_class() -> None:
    o = pl.DataFrame({"age": [30, 40, 50, 50], "pay": [None, None, None, None]}).with_columns(
        pl.col("pay").cast(pl.Float64)
    )
    s = kpr.inference(o, o, ["age"], secret="pay")["pay"]
    assert (s.counts.linked, s.counts.right, s.counts.disco) == (2, 2, 4)
    assert [g.label for g in s.classes] == ["missing"]


def test_evaluate_with_secret_prints_the_inference_block(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = str(files["original"]), str(files["avatars"])
    code, out, err = run_cli(
        ["evaluate", o, a, "-k", ",".join(KNOWN), "--secret", "income", "--categorical", "zip"],
        capsys,
    )
    assert code == 0, err
    alone = kpr.inference(o, a, KNOWN, secret="income", kinds={"zip": "categorical"})
    assert "What the attacker infers" in out and alone["income"].sentence() in out
    code, _, err = run_cli(["evaluate", o, a, "-k", "sex", "--secret", "sex"], capsys)
    assert code == 2 and "both known and secret" in err
    code, _, err = run_cli(["evaluate", o, a, "-k", "sex", "-s", "zip", "--width", "zip=2"], capsys)
    assert code == 2 and "drop widths= (--width) and metadata= (--metadata)" in err


@pytest.mark.parametrize("engine", [[], ["--engine", "spark"]], ids=["polars", "spark"])
def test_evaluate_refuses_options_that_do_not_go_together_before_reading(
    tmp_path: Path, engine: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Options that cannot go together are one line before any file is read or any
    engine started (a large table, or Spark's start, would come first): here the
    files are not even tables."""
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    o.write_bytes(b"\xff\xfe\x00 not a table")
    a.write_bytes(b"\x00\x01")
    args = ["evaluate", str(o), str(a), "-k", "sex", "-s", "zip", "--width", "zip=2", *engine]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "drop widths= (--width) and metadata= (--metadata)" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["evaluate", str(o), str(a), "-k", "sex", "-s", "zip",
                            "--grid-offset", "0.5", *engine], capsys)  # fmt: skip
    assert code == 2 and "drop grid_offset= (--grid-offset)" in err


def test_dates_and_booleans_are_secrets_too_and_the_notebook_view_escapes() -> None:
    import datetime as dt

    o = pl.DataFrame(
        {
            "<i>age</i>": [30, 41, 52, 60, 30, 41],
            "d": [dt.date(2020, 1, 1), dt.date(2020, 3, 1), None, dt.date(2021, 1, 1),
                  dt.date(2020, 1, 2), dt.date(2020, 3, 1)],
            "b": [True, False, None, True, True, False],
        }
    )  # fmt: skip
    r = kpr.inference(o, o, ["<i>age</i>"], secret=["d", "b"])
    assert r["d"].kind is kpr.Kind.DATE and r["d"].classes[0].label == "[2020-01-01, 2020-01-02)"
    assert [g.label for g in r["b"].classes] == ["False", "True", "missing"]
    dp = {f.metric: f for f in r["d"].sdmetrics}["DisclosureProtection"]
    assert dp.value is None and "dates" in dp.note
    page = r._repr_html_()
    assert "<i>age</i>" not in page and "&lt;i&gt;age&lt;/i&gt;" in page


def test_a_control_holding_the_original_s_rows_is_refused(files: dict[str, Path]) -> None:
    o = pl.read_csv(files["original"])
    assert_input_error(
        lambda: kpr.inference(o, files["avatars"], KNOWN, secret="income", control=o.reverse()),
        "exactly the original's rows",
    )


def test_no_avatar_links_nobody_and_says_so() -> None:
    o = pl.DataFrame({"age": [30, 41, 52], "pay": ["a", "b", "a"]})
    s = kpr.inference(o, o.clear(), ["age"], secret="pay")["pay"]
    assert (s.counts.linked, s.counts.disco, s.expected_cap) == (0, 0, 0.0)
    assert s.sentence().startswith("pay: nobody is linked")
    figures = {f.metric: f.value for f in s.sdmetrics}
    cap = figures["CategoricalCAP"]
    assert cap is not None and math.isnan(cap)  # SDMetrics' NaN: no key matched
    assert figures["CategoricalZeroCAP"] == 1.0
