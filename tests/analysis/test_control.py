"""The size-fair control comparison (spec, "Around the rate")."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.analysis import analyze
from kpr.avatar import generate
from kpr.cli.app import main
from kpr.errors import InputError
from tests.file_reads import file_reads

KNOWN = ["age", "sex", "region"]


def population(n: int = 1500, seed: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    return pl.DataFrame(
        {
            "age": age,
            "sex": rng.choice(np.array(["F", "M"]), n),
            "region": rng.choice(np.array(["n", "s", "e", "w", "c"]), n),
            "income": np.round(age * 500 + rng.normal(0, 5000, n), 0),
        }
    )


@pytest.fixture(scope="module")
def placebo() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Avatars made from the whole table: any split of it into an "original" and a
    "control" is a placebo, both parts trained the avatars."""
    table = population()
    return table, generate(table, k=10, seed=1).avatars


# Every split seed 0..4 is tested (none is picked): the size-fair difference's interval
# must hold 0 for each. The naive comparison (full original against the smaller control)
# is biased by the size: a smaller table has more unique records.
@pytest.mark.parametrize("split", range(5))
def test_placebo_difference_holds_zero(
    placebo: tuple[pl.DataFrame, pl.DataFrame], split: int
) -> None:
    table, avatars = placebo
    order = np.random.default_rng(split).permutation(table.height)
    original, control = table[np.sort(order[:1000])], table[np.sort(order[1000:])]
    c = kpr.evaluate(original, avatars, known=KNOWN, control=control).control
    assert c is not None and c.size == 500 and c.subsampled == "original"
    low, high = c.difference_interval
    assert low <= 0.0 <= high
    risk_low, risk_high = c.residual_risk_interval
    assert risk_low <= 0.0 <= risk_high
    assert c.shared_rows == 0


def test_size_fair_difference_is_closer_to_zero_than_the_naive_one_on_average(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    naive, fair = [], []
    for split in range(5):
        order = np.random.default_rng(split).permutation(table.height)
        original, control = table[np.sort(order[:1000])], table[np.sort(order[1000:])]
        c = kpr.evaluate(original, avatars, known=KNOWN, control=control).control
        naive.append(c.control.rate - c.original.rate)
        fair.append(c.difference)
    assert abs(np.mean(fair)) < abs(np.mean(naive))


def test_residual_risk_is_anonymeters_formula(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    c = kpr.evaluate(table[:900], avatars, known=KNOWN, control=table[900:1300]).control
    attack, ctrl = c.original_share, c.control_share
    assert c.residual_risk_unclipped == pytest.approx((attack - ctrl) / (1 - ctrl))
    assert ctrl == c.control.linked / c.control.n  # the smaller side is not subsampled
    low, high = c.residual_risk_interval_unclipped
    assert low < c.residual_risk_unclipped < high
    # anonymeter reports a risk in [0, 1]: the clipped figures, the raw ones kept in JSON
    assert c.residual_risk == min(max(c.residual_risk_unclipped, 0.0), 1.0)
    assert c.residual_risk_interval == (max(low, 0.0), min(high, 1.0))
    out = c.to_dict()
    assert out["residual_risk_unclipped"] == c.residual_risk_unclipped
    assert out["residual_risk"] == c.residual_risk


def test_a_larger_control_is_the_side_subsampled(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    r = analyze(table[:400], avatars, KNOWN, control=table[400:], tolerances=None)
    c = r.control
    assert c is not None and c.subsampled == "control" and c.size == 400
    assert all(s.n == 400 for s in c.subsets)
    assert c.control_share == pytest.approx(np.mean([s.linked / 400 for s in c.subsets]))
    assert c.original_share == r.attack.linked / 400


def test_subsets_are_seeded_and_counted(placebo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    table, avatars = placebo
    o, ctrl = table[:1000], table[1000:]
    a = kpr.evaluate(o, avatars, known=KNOWN, control=ctrl, control_subsets=5, seed=3).control
    b = kpr.evaluate(o, avatars, known=KNOWN, control=ctrl, control_subsets=5, seed=3).control
    other = kpr.evaluate(o, avatars, known=KNOWN, control=ctrl, control_subsets=5, seed=4)
    assert len(a.subsets) == 5 and a.subsets == b.subsets
    assert [s.linked for s in other.control.subsets] != [s.linked for s in a.subsets]
    with pytest.raises(InputError, match="subsets"):
        kpr.evaluate(o, avatars, known=KNOWN, control=ctrl, control_subsets=0)


def test_equal_sizes_need_no_subsets(placebo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    table, avatars = placebo
    c = kpr.evaluate(table[:700], avatars, known=KNOWN, control=table[700:1400]).control
    assert c.subsets == () and c.subsampled is None
    assert c.difference == pytest.approx(c.control.rate - c.original.rate)


def test_shared_rows_are_reported_and_warned(placebo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    table, avatars = placebo
    control = pl.concat([table[1000:1300], table[:100]])  # 100 rows of the original
    r = kpr.evaluate(table[:1000], avatars, known=KNOWN, control=control)
    assert r.control.shared_rows == 100
    assert r.control.shared_share == pytest.approx(0.25)
    assert [w.code for w in r.warnings if w.code == "control-shares-rows"] == [  # type: ignore[attr-defined]
        "control-shares-rows"
    ]
    out = r.to_dict()["control"]
    assert (out["shared_rows"], out["shared_share"]) == (100, 0.25)


def test_an_identical_control_is_refused(placebo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    table, avatars = placebo
    shuffled = table.sample(fraction=1.0, shuffle=True, seed=0)  # same rows, another order
    with pytest.raises(InputError, match="exactly the original's rows"):
        kpr.evaluate(table, avatars, known=KNOWN, control=shuffled)
    with pytest.raises(InputError, match="exactly the original's rows"):
        analyze(table, avatars, KNOWN, control=table.to_pandas())


@pytest.mark.parametrize("command", ["evaluate", "analyze"])
def test_an_identical_control_exits_2(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: object,
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    table, avatars = placebo
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    table.write_csv(o)
    avatars.write_csv(a)
    with pytest.raises(SystemExit) as exit_:
        main([command, str(o), str(a), "--known", "age,sex", "--control", str(o), "-q"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "exactly the original's rows" in err and "Traceback" not in err


def test_evaluate_control_equals_analyze_control(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    o, ctrl = table[:1000], table[1000:]
    direct = kpr.evaluate(o, avatars, known=KNOWN, control=ctrl).control
    via = analyze(o, avatars, KNOWN, control=ctrl, tolerances=None).control
    assert direct is not None and via is not None
    assert direct.to_dict() == via.to_dict()


def test_text_and_html_carry_the_comparison(placebo: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    from kpr.cli.text import text_report, text_summary

    table, avatars = placebo
    o, ctrl = table[:1000], table[1000:]
    r = kpr.evaluate(o, avatars, known=KNOWN, control=ctrl, control_subsets=4)
    a = analyze(o, avatars, KNOWN, control=ctrl, control_subsets=4, tolerances=None)
    c = r.control
    low, high = c.difference_interval
    expected = [
        f"compared at n = 500: original {kpr.results.evaluation.format_rate(c.original_rate)}",
        "4 random subsets of the original, seed 0",
        f"control minus original: {c.difference:+.2f} points (95 % CI {low:+.2f} to {high:+.2f})",
        "residual risk (anonymeter's (attack - control) / (1 - control), clipped to [0, 1]): "
        f"{c.residual_risk:.4f}",
        "rows equal to an original row: 0 (0.0 %; the original repeats",
    ]
    expected.append(c.verdict)  # the sentence its interval earns, in every output
    for text in (text_summary(r), text_report(a), r.to_html(), a.to_html()):
        for line in expected:
            assert line.replace("'", "&#x27;") in text or line in text, line


def test_a_control_with_absolute_widths_is_refused(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    """The control's attacks take their classes from U: with an absolute width the two
    sides would be attacked on different classes, so the pair is refused, not mixed."""
    table, avatars = placebo
    original, control = table.head(300), table.tail(200)
    with pytest.raises(InputError, match=r"^control with absolute widths is not supported"):
        kpr.evaluate(original, avatars, ["age", "sex"], control=control, widths={"age": 2})


def test_a_reformatted_copy_of_the_original_is_refused(
    placebo: tuple[pl.DataFrame, pl.DataFrame], tmp_path: object
) -> None:
    """30 and 30.0 are the same number, as the metric compares them: the original
    written with floats is still the original."""
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    table, avatars = placebo
    as_floats = table.with_columns(pl.col("age").cast(pl.Float64)).reverse()
    with pytest.raises(InputError, match="exactly the original's rows"):
        kpr.evaluate(table, avatars, known=KNOWN, control=as_floats)
    o, ctrl = tmp_path / "o.csv", tmp_path / "c.csv"
    table.write_csv(o)
    ctrl.write_text(
        "age,sex,region,income\n"
        + "".join(f"{r[0]}.0,{r[1]},{r[2]},{r[3]}\n" for r in table.iter_rows())
    )
    with pytest.raises(InputError, match="exactly the original's rows"):
        kpr.evaluate(str(o), avatars, known=KNOWN, control=str(ctrl))


def test_reformatted_shared_rows_are_counted_by_value(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    copied = table[:100].with_columns(pl.col("age").cast(pl.Float64))
    control = pl.concat([table[1000:1300].with_columns(pl.col("age").cast(pl.Float64)), copied])
    c = kpr.evaluate(table[:1000], avatars, known=KNOWN, control=control).control
    # a control row equal to an original row, brute force, on every shared column
    seen = set(table[:1000].iter_rows())
    expected = sum((int(r[0]), *r[1:]) in seen for r in control.iter_rows())
    assert c.shared_rows == expected >= 100


def test_shared_rows_are_set_beside_the_originals_own_repeats_and_kept() -> None:
    """Few distinct records: different people share them, in the original as across the
    split. The warning says so and never advises removing them."""
    rng = np.random.default_rng(0)
    table = pl.DataFrame(
        {"age": rng.integers(20, 25, 600), "sex": rng.choice(np.array(["F", "M"]), 600)}
    )
    original, control = table[:400], table[400:]
    r = kpr.evaluate(original, table, known=["age", "sex"], control=control)
    c = r.control
    rows = list(original.iter_rows())
    counts = {row: rows.count(row) for row in set(rows)}
    assert c.original_repeats == sum(v for v in counts.values() if v > 1)
    assert c.shared_rows == sum(row in counts for row in control.iter_rows())
    (warning,) = [w for w in r.warnings if w.code == "control-shares-rows"]  # type: ignore[attr-defined]
    own = f"{100 * c.original_repeat_share:.1f} % of the rows equal another original row"
    assert own in warning
    assert "expected" in warning and "keep them" in warning and "remove them" not in warning
    assert "more often than the original repeats" not in warning  # 100 % vs 100 %
    out = r.to_dict()["control"]
    assert out["original_repeats"] == c.original_repeats
    # a warning that says "keep them" asks for nothing: the report does not say to deal
    # with the warnings first when it is the only one
    only = dataclasses.replace(r, warnings=[warning])
    assert not only.warnings_ask_action and r.warnings_ask_action
    pytest.importorskip("matplotlib")
    assert "Deal with the warnings" not in only.to_html()


def test_a_control_repeating_more_than_the_original_asks_for_action(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    table, avatars = placebo
    control = pl.concat([table[1000:1300], table[:100]])  # 100 rows of the original
    r = kpr.evaluate(table[:1000], avatars, known=KNOWN, control=control)
    (warning,) = [w for w in r.warnings if w.code == "control-shares-rows"]  # type: ignore[attr-defined]
    assert "check that it holds no individual" in warning
    assert r.warnings_ask_action
    pytest.importorskip("matplotlib")
    assert "Deal with the warnings above first" in r.to_html()


def test_following_the_advice_keeps_a_placebo_unbiased() -> None:
    """A placebo on a table where different people share records (the advice: keep
    shared rows): over 40 random splits the mean difference stays near 0, while
    dropping the shared rows from the control (the old advice) biases it.
    Deterministic: every split is seeded."""
    rng = np.random.default_rng(11)
    n = 1200
    table = pl.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.choice(np.array(["F", "M"]), n),
            "region": rng.choice(np.array(["n", "s", "e"]), n),
        }
    )
    avatars = table.sample(n, with_replacement=True, seed=5)  # both halves trained them
    known = ["age", "sex", "region"]
    kept, dropped = [], []
    for split in range(40):
        order = np.random.default_rng(100 + split).permutation(n)
        original, control = table[np.sort(order[:600])], table[np.sort(order[600:])]
        c = kpr.evaluate(original, avatars, known=known, control=control, control_subsets=5)
        kept.append(c.control.difference)
        fresh = control.join(original.unique(), on=known, how="anti")
        d = kpr.evaluate(original, avatars, known=known, control=fresh, control_subsets=5)
        dropped.append(d.control.difference)

    def standard_error(values: list[float]) -> float:
        return float(np.std(values, ddof=1)) / np.sqrt(len(values))

    assert abs(float(np.mean(kept))) < 2 * standard_error(kept)
    assert abs(float(np.mean(dropped))) > 4 * standard_error(dropped)


def _comparison(linked_original: int, linked_control: int, correct: int | None = None):  # type: ignore[no-untyped-def]
    from kpr.metric.counts import Counts
    from kpr.results.control import ControlComparison
    from kpr.results.rates import AttackRate

    def rate(linked: int) -> AttackRate:
        return AttackRate(("age",), 0.05, "bins", Counts(2000, 2000, 1500, linked))

    return ControlComparison(rate(linked_original), rate(linked_control), correct_links=correct)


def test_a_difference_whose_interval_holds_zero_reads_no_excess_detected() -> None:
    c = _comparison(100, 90)
    low, high = c.difference_interval
    assert low < 0.0 < high
    assert c.verdict.startswith(f"Its 95 % interval, {low:+.2f} to {high:+.2f} points, holds 0")
    assert f"no excess risk detected; at most {high:+.2f} points at 95 %" in c.verdict
    assert f"at most {round(high / 100 * 2000):,} more claimable links per 2,000" in c.verdict
    assert "no measurable risk" not in c.explanation


def test_an_excess_is_translated_into_links_and_correct_links() -> None:
    c = _comparison(300, 100, correct=30)
    low, high = c.difference_interval
    assert low > 0.0 and c.difference == pytest.approx(10.0)
    links, lo_links, hi_links = c.excess_links
    assert links == 200 and lo_links == round(low * 20) and hi_links == round(high * 20)
    assert "lies above 0: an excess risk" in c.verdict
    assert "claim about 200 more links per 2,000 individuals" in c.verdict
    assert f"({lo_links:,} to {hi_links:,} at 95 %)" in c.verdict
    assert "right as often as all links (30 of 300), about 20 of them would be correct" in (
        c.verdict
    )
    assert "of them" not in _comparison(300, 100).verdict  # no pairing, no correct links


def test_a_difference_below_zero_reads_no_excess() -> None:
    c = _comparison(100, 300)
    high = c.difference_interval[1]
    assert high < 0.0
    assert "lies below 0" in c.verdict and "no excess risk detected" in c.verdict
    assert "excess risk;" not in c.verdict


@pytest.mark.parametrize("how", ["api", "cli", "analyze", "parquet"])
def test_a_file_based_control_reads_each_file_once(
    placebo: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: object,
    how: str,
) -> None:
    """The original, the avatars and the control are each read once (issue 22): the
    shared rows, the pair and the control all come from that one read."""
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    table, avatars = placebo
    suffix = ".parquet" if how == "parquet" else ".csv"
    paths = {k: tmp_path / f"{k}{suffix}" for k in "oac"}
    for key, frame in (("o", table[:1000]), ("a", avatars), ("c", table[1000:])):
        if how == "parquet":
            frame.write_parquet(paths[key])
        else:
            frame.write_csv(paths[key])
    o, a, c = (str(paths[k]) for k in "oac")
    with file_reads() as reads:
        if how in ("api", "parquet"):
            got = kpr.evaluate(o, a, known=KNOWN, control=c).control
        elif how == "analyze":
            got = analyze(o, a, KNOWN, control=c, tolerances=None).control
        else:
            try:
                main(["evaluate", o, a, "-k", ",".join(KNOWN), "--control", c, "-q", "-f", "json"])
            except SystemExit as exit_:
                assert exit_.code in (0, None)
            got = None
    assert sorted(reads) == [f"{k}{suffix}" for k in "aco"]
    expected = kpr.evaluate(table[:1000], avatars, known=KNOWN, control=table[1000:]).control
    assert expected is not None
    if got is not None:
        assert got.to_dict() == expected.to_dict()


@settings(max_examples=8, deadline=None)
@given(order_seed=st.integers(0, 2**32 - 1), swap_sides=st.booleans())
def test_the_size_fair_draws_do_not_depend_on_row_order(
    placebo: tuple[pl.DataFrame, pl.DataFrame], order_seed: int, swap_sides: bool
) -> None:
    """The control's subsets and the rate at equal size are drawn over the rows in
    value order: shuffling every table gives the same figures, bit for bit (a draw by
    position would pick other people). ``swap_sides`` makes the control the larger
    side, so both sides' draws are checked; the avatars are cut to 900 rows so the
    rate at equal size is drawn too."""
    table, avatars = placebo
    original, control = table[:1000], table[1000:]
    if swap_sides:
        original, control = control, original
    avatars = avatars[:900]
    rng = np.random.default_rng(order_seed)

    def shuffled(frame: pl.DataFrame) -> pl.DataFrame:
        return frame[rng.permutation(frame.height)]

    def figures(o: pl.DataFrame, a: pl.DataFrame, c: pl.DataFrame) -> tuple[object, ...]:
        result = kpr.evaluate(o, a, KNOWN, control=c, control_subsets=5)
        assert result.control is not None and result.sizes is not None
        subsets = tuple((s.rate, s.n, s.linked) for s in result.control.subsets)
        return subsets, result.sizes.rates, result.rate

    first = figures(original, avatars, control)
    again = figures(shuffled(original), shuffled(avatars), shuffled(control))
    assert first == again
