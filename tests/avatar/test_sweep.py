"""``kpr.avatar.sweep`` and ``kpr.avatar.tune``: each figure equals its direct computation,
tune picks the smallest k reaching the target, bad parameters fail in one line."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

import kpr
from kpr.analysis import kpr_interval
from kpr.avatar import (
    KSweepResult,
    distance_metrics,
    generate,
    hidden_rate,
    median_local_cloaking,
    sweep,
    tune,
)
from kpr.avatar.files import read_original
from kpr.errors import InputError
from kpr.results.evaluation import format_rate

from ._tables import mixed_pandas

KNOWN = ["age", "city", "smoker"]


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return pl.from_pandas(mixed_pandas(150, seed=11, missing=True))


@pytest.fixture(scope="module")
def control() -> pl.DataFrame:
    return pl.from_pandas(mixed_pandas(90, seed=12, missing=True))


@pytest.fixture(scope="module")
def swept(table: pl.DataFrame, control: pl.DataFrame) -> KSweepResult:
    return sweep(table, KNOWN, ks=(8, 3), repeats=2, seed=5, control=control)


def test_every_run_equals_its_direct_computation(
    table: pl.DataFrame, control: pl.DataFrame, swept: KSweepResult
) -> None:
    assert swept.ks == [3, 8]  # sorted
    for row in swept.rows:
        assert [r.seed for r in row.runs] == [5, 6]
        for run in row.runs:
            gen = generate(table, k=row.k, seed=run.seed)
            direct = kpr.evaluate(table, gen.avatars, known=KNOWN)
            assert run.kpr.rate == direct.rate
            assert (run.kpr.linked, run.kpr.n) == (direct.linked, direct.n)
            assert run.kpr.interval == kpr_interval(direct.linked, direct.n)
            assert run.hidden_rate == hidden_rate(gen)
            assert run.median_local_cloaking == median_local_cloaking(gen)
            use = kpr.utility(table, gen.avatars)
            assert run.utility.to_dict() == use.summary()  # every utility figure, as kpr.utility
            assert run.utility.correlation_difference == use.correlation_difference
            assert run.control is not None
            assert run.control.control.rate == kpr.evaluate(control, gen.avatars, KNOWN).rate
            assert run.control.original == dataclasses.replace(run.kpr, known=tuple(direct.known))
            pairs = direct.linked_individuals()
            own = gen.pairing[pairs["original_row"].to_numpy()] == pairs["avatar_row"].to_numpy()
            assert run.correct_links == int(own.sum())
            assert run.reidentification == 100.0 * run.correct_links / direct.n
            assert run.distance == distance_metrics(table, gen.avatars, control)


def test_control_comparison_equals_evaluates_for_the_same_seed(
    table: pl.DataFrame, control: pl.DataFrame, swept: KSweepResult
) -> None:
    """Per k and repeat: the same size-fair comparison as ``kpr.evaluate(control=...)``,
    its subsets drawn with the run's seed (the one that generated the avatars)."""
    for row in swept.rows:
        for run in row.runs:
            avatars_at_k = generate(table, k=row.k, seed=run.seed).avatars
            direct = kpr.evaluate(table, avatars_at_k, KNOWN, control=control, seed=run.seed)
            assert run.control is not None and run.control == direct.control
            assert run.control.subsampled == "original" and len(run.control.subsets) == 20
            assert run.control.to_dict() == direct.control.to_dict()


def test_control_subsets_and_a_larger_control(table: pl.DataFrame) -> None:
    """control_subsets reaches the comparison; a larger control is the side subsampled;
    tune carries the same comparison."""
    bigger = pl.from_pandas(mixed_pandas(200, seed=13, missing=True))
    result = sweep(table, KNOWN, ks=(4,), seed=3, control=bigger, control_subsets=3)
    run = result.rows[0].runs[0]
    avatars_at_k = generate(table, k=4, seed=3).avatars
    direct = kpr.evaluate(
        table, avatars_at_k, KNOWN, control=bigger, control_subsets=3, seed=3
    ).control
    assert run.control == direct and direct.subsampled == "control"
    assert len(direct.subsets) == 3 and direct.size == table.height
    d = result.to_dict()["rows"][0]["control"]
    assert d["compared_at_size"] == table.height and d["seeds"] == [3]
    assert d["difference"] == direct.difference
    assert d["control_kpr_at_size"] == direct.control_rate != direct.control.rate
    assert d["difference_interval"]["low"] == direct.difference_interval[0]
    picked = tune(table, KNOWN, target=1, ks=(4,), seed=3, control=bigger, control_subsets=3)
    assert picked.sweep.rows[0].runs[0].control == direct
    with pytest.raises(InputError, match="control_subsets"):
        sweep(table, KNOWN, ks=(4,), control=bigger, control_subsets=0)


def test_rows_summarise_their_repeats(swept: KSweepResult) -> None:
    for row in swept.rows:
        rates = [r.kpr.rate for r in row.runs]
        assert row.kpr == pytest.approx(sum(rates) / len(rates))
        assert (row.kpr_min, row.kpr_max) == (min(rates), max(rates))
        assert row.interval == (
            min(r.kpr.interval[0] for r in row.runs),
            max(r.kpr.interval[1] for r in row.runs),
        )
        assert row.low == row.interval[0]
        assert row.hidden_rate == pytest.approx(np.mean([r.hidden_rate for r in row.runs]))
        controls = [r.control for r in row.runs if r.control is not None]
        assert row.control_kpr == pytest.approx(np.mean([c.control_rate for c in controls]))
        assert row.control_difference == pytest.approx(np.mean([c.difference for c in controls]))
        assert row.control_difference_interval == (
            min(c.difference_interval[0] for c in controls),
            max(c.difference_interval[1] for c in controls),
        )
    assert swept.row(8).k == 8
    with pytest.raises(KeyError):
        swept.row(4)


def test_to_dict_is_json(swept: KSweepResult) -> None:
    d = json.loads(swept.to_json())
    assert d["ks"] == [3, 8] and d["seeds"] == [5, 6] and d["n"] == 150
    row = d["rows"][0]
    assert row["kpr"] == swept.rows[0].kpr
    assert len(row["runs"]) == 2 and row["runs"][0]["seed"] == 5
    assert row["control"]["control_kpr_at_size"] == swept.rows[0].control_kpr
    assert row["control"]["difference"] == swept.rows[0].control_difference
    assert row["control"]["compared_at_size"] == 90 and row["control"]["seeds"] == [5, 6]
    assert set(d["explanations"]) >= {"kpr", "interval", "hidden_rate", "mean_hellinger"}


def test_undefined_metric_is_null_in_json() -> None:
    """One column: no pair to compare, NaN in Python, null in JSON."""
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"x": rng.normal(50, 10, 60).round(1)})
    result = sweep(df, ["x"], ks=(3,))
    assert math.isnan(result.rows[0].correlation_difference)
    assert json.loads(result.to_json())["rows"][0]["correlation_difference"] is None


def test_pandas_and_paths(table: pl.DataFrame, tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "o.csv"  # type: ignore[operator]
    table.write_csv(path)
    from_path = sweep(path, KNOWN, ks=(4,), seed=1)
    direct = sweep(read_original(path), KNOWN, ks=(4,), seed=1)
    assert from_path.rows[0].kpr == direct.rows[0].kpr
    assert from_path.inputs["original"] == str(path)
    pdf: pd.DataFrame = mixed_pandas(100, seed=3)
    out = sweep(pdf, KNOWN, ks=(4,), seed=1)
    gen = generate(pdf, k=4, seed=1)
    assert out.rows[0].kpr == kpr.evaluate(pdf, gen.avatars, KNOWN).rate


def test_declared_categorical_is_categorical_for_the_attack_too() -> None:
    rng = np.random.default_rng(4)
    df = pl.DataFrame({"zip": rng.integers(10000, 10040, 120), "age": rng.integers(20, 80, 120)})
    out = sweep(df, ["zip", "age"], ks=(3,), categorical=["zip"], seed=2)
    gen = generate(df, k=3, seed=2, categorical=["zip"])
    want = kpr.evaluate(df, gen.avatars, ["zip", "age"], kinds={"zip": "categorical"})
    assert out.rows[0].kpr == want.rate


def test_progress_is_called_before_each_step_and_at_the_end(table: pl.DataFrame) -> None:
    calls: list[tuple[int, int, str]] = []
    sweep(table, KNOWN, ks=(3, 5), progress=lambda d, t, label: calls.append((d, t, label)))
    assert [c[0] for c in calls] == list(range(len(calls)))
    assert calls[-1] == (8, 8, "done")
    assert calls[0][2] == "k=3: generating avatars"


def test_tune_is_the_sweep_judged_on_its_criteria(table: pl.DataFrame) -> None:
    """tune measures what sweep measures (same seeds, same figures); for each measured
    lower bound as the target, the chosen k is the highest quality among the ks whose
    lower bound reaches it and whose cloaking reaches the floor."""
    from kpr.avatar import TuneCriteria, TuneResult

    known = ["age", "weight", "smoker", "city"]
    ks = (2, 4, 8, 16)
    full = sweep(table, known, ks=ks, seed=7)
    tuned = tune(table, known, target=50, ks=ks, seed=7, repeats=1, min_cloaking=1)
    assert tuned.sweep.ks == list(ks)  # every k evaluated
    for mine, theirs in zip(tuned.sweep.rows, full.rows, strict=True):
        assert (mine.kpr, mine.interval) == (theirs.kpr, theirs.interval)
        assert mine.utility.to_dict() == theirs.utility.to_dict()
    for target in [r.low for r in full.rows]:
        for floor in (0.0, 3.0):
            result = TuneResult(TuneCriteria(target, min_cloaking=floor), full, ks)
            ok = [r for r in full.rows if r.low >= target and r.median_local_cloaking_min >= floor]
            expected = max(ok, key=lambda r: (r.overall, -r.k)).k if ok else None
            assert result.k == expected
            assert [r.k for r in result.eligible] == [r.k for r in ok]
            if expected is not None:
                assert f"k = {expected} meets every criterion" in result.message


def test_a_k_failing_one_criterion_is_not_chosen() -> None:
    """The most useful k is refused when it misses one criterion; among those meeting all,
    the highest quality wins (not the smallest k, not the highest KPR)."""
    from kpr.avatar import TuneCriteria, TuneResult

    # KPR 95, 98, 99, 99.5 %; lower bounds about 93.5, 96.9, 98.2, 98.8 %
    swept = _hand_made([50, 20, 10, 5], quality=[0.99, 0.80, 0.90, 0.85], cloaking=[3, 6, 4, 24])
    ks = (2, 5, 10, 20)
    result = TuneResult(TuneCriteria(96.0, min_cloaking=5), swept, ks)
    assert [result.checks(r)["kpr"] for r in swept.rows] == [False, True, True, True]
    assert [result.checks(r)["cloaking"] for r in swept.rows] == [False, True, False, True]
    assert all(result.checks(r)["control"] is None for r in swept.rows)  # no control given
    assert result.k == 20  # k = 2 (best quality) misses the KPR, k = 10 the cloaking
    assert [p["chosen"] for p in result.per_k()] == [False, False, False, True]
    assert TuneResult(TuneCriteria(96.0, min_cloaking=4), swept, ks).k == 10
    assert TuneResult(TuneCriteria(90.0, min_cloaking=0), swept, ks).k == 2
    tied = _hand_made([5, 5], quality=[0.9, 0.9])
    assert TuneResult(TuneCriteria(90.0), tied, (2, 5)).k == 2  # a tie: the smaller k
    none = TuneResult(TuneCriteria(96.0, min_cloaking=30), swept, ks)
    assert none.k is None and not none.reached
    assert "median local cloaking stays below 30 (at most 24, at k = 20)" in none.message
    assert "try larger k" in none.message


def test_tune_control_criterion(table: pl.DataFrame, control: pl.DataFrame) -> None:
    """With a control, a k whose control difference's interval reaches the bound is not
    chosen, whatever its utility; without one, the criterion is not checked."""
    from kpr.avatar import TuneCriteria, TuneResult

    result = tune(
        table, KNOWN, target=1, ks=(3, 8), seed=5, repeats=1, control=control, min_cloaking=0,
        control_subsets=3,
    )  # fmt: skip
    highs = {r.k: (r.control_difference_interval or (0.0, 0.0))[1] for r in result.sweep.rows}
    for r in result.sweep.rows:
        assert result.checks(r)["control"] == (highs[r.k] < 2.0)
    bound = sum(highs.values()) / 2  # between the two ks' highs: the one above fails
    assert highs[3] != highs[8]
    passing = min(highs, key=lambda k: highs[k])
    cut = TuneResult(
        TuneCriteria(1, max_control_difference=bound, min_cloaking=0), result.sweep, (3, 8)
    )
    assert cut.k == passing and [r.k for r in cut.eligible] == [passing]
    data = json.loads(cut.to_json())
    assert [p["criteria"]["control"] for p in data["per_k"]] == [k == passing for k in (3, 8)]


def test_tune_is_deterministic_with_a_seed(table: pl.DataFrame) -> None:
    def figures(result: kpr.avatar.TuneResult) -> list[object]:
        return [
            (r.k, r.kpr, r.interval, r.utility.to_dict(), r.median_local_cloaking)
            for r in result.sweep.rows
        ]

    first = tune(table, KNOWN, target=60, ks=(3, 6), seed=4, repeats=2, min_cloaking=1)
    again = tune(table, KNOWN, target=60, ks=(3, 6), seed=4, repeats=2, min_cloaking=1)
    assert figures(first) == figures(again) and first.k == again.k
    assert first.per_k() == again.per_k()
    other = tune(table, KNOWN, target=60, ks=(3, 6), seed=40, repeats=2, min_cloaking=1)
    assert figures(other) != figures(first)


def test_tune_says_so_when_no_k_reaches_the_target(table: pl.DataFrame) -> None:
    # n = 150: even nobody linked leaves a lower bound near 97.5 %, so 99 is out of reach.
    result = tune(table, KNOWN, target=99, ks=(2, 5), repeats=1, min_cloaking=0)
    assert not result.reached and result.k is None and result.row is None
    assert result.sweep.ks == [2, 5]
    assert f"{result.best.low:.2f} %" in result.message
    # advice to raise k only when the largest k's interval lies above the previous one's
    a, b = result.sweep.rows
    rising = b.interval[0] > a.interval[1]
    assert ("try larger k" in result.message) == rising
    assert ("not rising measurably" in result.message) == (not rising)
    assert json.loads(result.to_json())["k"] is None
    assert "always below 100 %" in tune(table, KNOWN, target=100, ks=(2,), repeats=1).message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ks": (2, 2.5)}, "each k must be a whole number"),
        ({"ks": (2, 150)}, "k=150 must be smaller than the number of rows (150)"),
        ({"ks": (0, 2)}, "each k must be >= 1"),
        ({"ks": ()}, "ks is empty"),
        ({"known": ["agee"]}, "did you mean 'age'"),
        ({"categorical": ["citty"]}, "did you mean 'city'"),
        ({"repeats": 0}, "repeats must be an integer >= 1"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"tolerance": 2}, "tolerance"),
    ],
)
def test_bad_parameters(table: pl.DataFrame, kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"known": KNOWN, **kwargs}
    known = args.pop("known")
    with pytest.raises(InputError, match=None) as exc:
        sweep(table, known, **args)  # type: ignore[arg-type]
    assert message in str(exc.value)


@pytest.mark.parametrize("target", [0, -5, 100.5, float("nan"), "95"])
def test_bad_target(table: pl.DataFrame, target: object) -> None:
    with pytest.raises(InputError, match="target must be a percentage in"):
        tune(table, KNOWN, target=target, ks=(2,))  # type: ignore[arg-type]


def test_html_page(swept: KSweepResult) -> None:
    pytest.importorskip("matplotlib")
    html = swept.to_html()
    assert html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html
    assert html.count("<svg") == 2 and 'data-kpr-k="3"' in html and 'data-kpr-k="8"' in html
    assert f'data-kpr-rate="{swept.rows[0].kpr!r}"' in html
    assert "Original / control KPR at n = 90" in html and "Repeats, low to high" in html
    for row in swept.rows:  # the size-fair difference, not the control's own rate
        assert f'data-kpr-control-difference="{row.control_difference!r}"' in html


def test_text_shows_the_size_fair_control(swept: KSweepResult) -> None:
    from kpr.cli.ksweep_text import sweep_text

    text = sweep_text(swept)
    for row in swept.rows:
        low, high = row.control_difference_interval or (0.0, 0.0)
        assert f"k = {row.k}: compared at n = 90, 20 random subsets of the original" in text
        assert f"control minus original {row.control_difference:+.2f} points" in text
        assert f"(95 % CI {low:+.2f} to {high:+.2f})" in text


def test_html_escapes_column_names(tmp_path: pytest.TempPathFactory) -> None:
    pytest.importorskip("matplotlib")
    hostile = "<script>alert(1)</script>"
    rng = np.random.default_rng(1)
    df = pl.DataFrame({hostile: rng.integers(20, 80, 60), "c": rng.choice(["a", "b"], 60)})
    result = sweep(df, [hostile], ks=(3,))
    path = tmp_path / "sweep.html"  # type: ignore[operator]
    assert result.to_html(path) == path
    html = path.read_text(encoding="utf-8")
    assert hostile not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_tune_page_and_text_escape_names_and_mark_the_choice(
    tmp_path: pytest.TempPathFactory,
) -> None:
    """The tune page shows each criterion per k and both plots; a hostile column name and
    file label are escaped wherever they appear (the page, the notebook view)."""
    pytest.importorskip("matplotlib")
    from kpr.cli.ksweep_text import tune_text

    hostile = "<script>alert(1)</script>"
    rng = np.random.default_rng(1)
    df = pl.DataFrame({hostile: rng.integers(20, 80, 60), "c": rng.choice(["a", "b"], 60)})
    result = tune(df, [hostile], target=1, ks=(3, 5), repeats=1, min_cloaking=0)
    result.sweep.inputs = {"original": f"{hostile}.csv"}
    assert result.k is not None
    path = tmp_path / "tune.html"  # type: ignore[operator]
    assert result.to_html(path) == path
    html = path.read_text(encoding="utf-8")
    assert hostile not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<svg") == 2 and "KPR target met" in html and "Cloaking floor met" in html
    assert '<th class="num">Control bound met</th>' not in html  # no control: no column
    assert "(not checked: no control given)" in html  # and the criterion says why
    assert f'data-kpr-tune-k="{result.k}"' in html
    assert html.count('data-kpr-chosen="true"') == 1
    assert hostile not in result._repr_html_()
    text = tune_text(result, "kpr avatarize ...")
    assert f"Chosen: k = {result.k}" in text and "  <-" in text


def _hand_made(
    linked: list[int],
    n: int = 1000,
    quality: list[float] | None = None,
    cloaking: list[float] | None = None,
) -> KSweepResult:
    """A sweep over k = 2, 5, 10, 20 with the given linked counts (and, optionally, each
    k's overall quality score and median local cloaking; by default 10 at every k)."""
    from kpr.analysis import AttackRate
    from kpr.avatar import Closeness, DistanceMetrics, GeneratorSettings, SweepRow, SweepRun
    from kpr.metric.counts import Counts
    from kpr.results.ksweep_rows import UtilityScores

    rows = []
    for i, (k, count) in enumerate(zip([2, 5, 10, 20], linked, strict=False)):
        rate = AttackRate(("a",), 0.05, "bins", Counts(n, n, n, count))
        far = DistanceMetrics(Closeness(n, 0, 1.0, 0.8), None, 5, n)
        score = 0.9 if quality is None else quality[i]
        use = UtilityScores(score, score, score, 0.1 * k, 1.0)
        lc = 10.0 if cloaking is None else cloaking[i]
        run = SweepRun(k, 0, rate, None, 50.0, lc, use, {"a": 0.1}, 0.1, 0, far)
        rows.append(SweepRow(k, (run,)))
    return KSweepResult(("a",), 0.05, GeneratorSettings(seed=0), 1, 0.95, n, rows)


def test_summary_says_how_the_rate_moves() -> None:
    """Each sentence class against the intervals it describes: rises only when the
    largest k's interval lies above the smallest's, falls when below, else flat."""
    rising = _hand_made([50, 20, 10, 5])  # 95.0 % -> 99.5 %
    first, last = rising.rows[0], rising.rows[-1]
    assert last.interval[0] > first.interval[1]
    assert "the KPR rises from 95.00 % to 99.50 %: the interval of the largest k lies " in (
        rising.summary()
    )
    falling = _hand_made([5, 50])
    assert falling.rows[1].interval[1] < falling.rows[0].interval[0]
    assert "the KPR falls from 99.50 % to 95.00 %" in falling.summary()
    # 95.0 % -> 95.6 %: higher, but the largest k's interval overlaps the smallest's
    flat = _hand_made([50, 48, 46, 44])
    assert flat.rows[-1].interval[0] <= flat.rows[0].interval[1]
    assert "the KPR is flat: 95.00 % and 95.60 %, whose intervals overlap" in flat.summary()
    assert "rises" not in flat.summary()
    flat_down = _hand_made([44, 50])
    assert "is flat" in flat_down.summary() and "falls" not in flat_down.summary()
    # a drop beyond the intervals between two ks is named; a dip within them is not
    assert "drops beyond the intervals from k = 5 to 10" in _hand_made([50, 10, 30, 5]).summary()
    assert "drops" not in _hand_made([50, 20, 22, 5]).summary()
    one = _hand_made([5]).summary()
    assert one.startswith("With k = 2, the KPR is 99.50 %") and "one k cannot show" in one
    for swept in (rising, falling, flat):
        assert "as the source says" not in swept.summary()


def test_jupyter_shows_a_sweep_over_k() -> None:
    swept = _hand_made([50, 20, 10, 5])
    view = swept._repr_html_()
    for row in swept.rows:
        assert f"{row.mean_hellinger:.4f}" in view and format_rate(row.kpr) in view
    assert swept.summary() in view
    assert view.count("<tr>") == 1 + len(swept.rows) and "<svg" not in view
    hostile = dataclasses.replace(swept, known=("<b>x</b>",))
    assert "<b>x</b>" not in hostile._repr_html_()


def test_tune_advice_follows_the_measured_sweep() -> None:
    """A plateau (the largest k's interval not above the previous k's) gets no advice
    to raise k; a KPR still rising beyond the interval does."""
    from kpr.avatar import TuneCriteria, TuneResult

    flat = _hand_made([50, 20, 21, 20])  # 95 %, 98 %, 97.9 %, 98 %: stopped rising
    result = TuneResult(TuneCriteria(99.5), flat, (2, 5, 10, 20))
    assert result.plateau
    assert "not rising measurably" in result.message and "--ks" not in result.message
    assert json.loads(json.dumps(result.to_dict()))["plateau"] is True
    rising = _hand_made([200, 150, 100, 40])  # 80 %, 85 %, 90 %, 96 %: still rising
    result = TuneResult(TuneCriteria(99.5), rising, (2, 5, 10, 20))
    assert not result.plateau
    assert "still rising" in result.message and "--ks 40,80" in result.message
    # a higher KPR at the largest k, but within the previous k's interval: a plateau
    up_within = _hand_made([200, 150, 100, 95])
    assert TuneResult(TuneCriteria(99.5), up_within, (2, 5, 10, 20)).plateau


def test_sweep_control_verdicts_follow_each_ks_interval() -> None:
    """Each k's control comparison earns the sentence its interval says (text, JSON and
    the page): the same generated sentence as kpr evaluate --control's."""
    from kpr.cli.ksweep_text import sweep_text
    from kpr.results.control import verdict

    rng = np.random.default_rng(2)
    table = pl.DataFrame(
        {"age": rng.integers(18, 90, 600), "sex": rng.choice(np.array(["F", "M"]), 600)}
    )
    result = sweep(table[:400], ["age", "sex"], ks=(2, 5), control=table[400:], seed=0)
    text = sweep_text(result)
    for row in result.rows:
        c = row.control_dict()
        assert c is not None
        span = (c["difference_interval"]["low"], c["difference_interval"]["high"])
        expected = verdict(
            c["difference"], span, c["compared_at_size"], 0.95, row.runs[0].kpr.linked,
            row.runs[0].correct_links,
        )  # fmt: skip
        assert c["verdict"] == expected and expected in text
        holds = span[0] <= 0.0 <= span[1]
        assert ("holds 0: no excess risk detected" in expected) == holds
    if importlib.util.find_spec("matplotlib") is not None:
        assert 'data-kpr-verdict="2"' in result.to_html()


def test_a_rows_figures_are_the_means_of_its_runs() -> None:
    """Each per-k figure is the plain mean of its repeats' figures (two repeats made
    by hand, every figure different), and an undefined one stays undefined."""
    from kpr.analysis import AttackRate
    from kpr.avatar import Closeness, DistanceMetrics, SweepRow, SweepRun
    from kpr.metric.counts import Counts
    from kpr.results.ksweep_rows import UtilityScores

    def run(seed: int, linked: int, hidden: float, dcr: float, score: float) -> SweepRun:
        rate = AttackRate(("a",), 0.05, "bins", Counts(100, 100, 100, linked))
        far = DistanceMetrics(Closeness(100, seed, dcr, math.nan), None, 5, 100)
        use = UtilityScores(score, 0.5, 0.5, score / 10, 2.0 * seed)
        return SweepRun(4, seed, rate, None, hidden, 3.0 + seed, use, {}, 0.5 + seed, seed, far)

    row = SweepRow(4, (run(1, 10, 40.0, 0.2, 0.8), run(3, 30, 60.0, 0.6, 0.6)))
    assert row.kpr == pytest.approx((90.0 + 70.0) / 2)
    assert row.hidden_rate == 50.0 and row.median_local_cloaking == 5.0
    assert row.correct_links == 2.0 and row.reidentification == 2.0
    assert row.exact_copy_percent == 2.0 and row.median_dcr == pytest.approx(0.4)
    assert math.isnan(row.median_nndr)
    assert row.overall == pytest.approx(0.7) and row.mean_hellinger == pytest.approx(0.07)
    assert row.correlation_difference == 4.0 and row.seconds == 2.5
    assert row.overall == row.utility.overall


#: Each glossary entry of the k pages and the column header it explains.
GLOSSARY_HEADERS = {
    "kpr": ">KPR<",
    "interval": "% interval<",
    "control": "Control minus original",
    "correct_links": ">Correct links<",
    "hidden_rate": ">Hidden rate<",
    "median_local_cloaking": ">Median cloaking<",
    "exact_copy_percent": ">Exact copies<",
    "median_dcr": ">Median DCR<",
    "overall": ">Quality<",
    "mean_hellinger": ">Hellinger<",
    "correlation_difference": ">Corr. diff.<",
    "seconds": ">Time (s)<",
}


@pytest.mark.parametrize("page", ["sweep", "tune"])
def test_the_glossary_explains_the_columns_of_the_table_and_no_other(page: str) -> None:
    """Issue 38, item 8: tune's page defined columns its table does not have."""
    pytest.importorskip("matplotlib")
    from kpr.avatar import TuneCriteria, TuneResult
    from kpr.results.ksweep import EXPLAIN

    swept = _hand_made([50, 20, 10, 5])
    result = swept if page == "sweep" else TuneResult(TuneCriteria(90.0), swept, (2, 5, 10, 20))
    document = result.to_html()
    table = document[document.index("<thead>") : document.index("</thead>")]
    columns = {key for key, header in GLOSSARY_HEADERS.items() if header in table}
    glossary = document[document.index('<section id="meaning">') :]
    defined = {key for key, text in EXPLAIN.items() if text.split(":")[0] + ":" in glossary}
    assert columns == defined
    assert ("correct_links" in columns) == (page == "sweep")
    assert ("Time: seconds" in document) == (page == "sweep")
