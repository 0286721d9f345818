"""The HTML report of the attacker-knowledge analysis: content equal to the
AnalysisResult, escaping, self-containment, the Python API and ``kpr analyze
--report``."""

from __future__ import annotations

import dataclasses
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kpr.analysis import AnalysisResult, analyze
from kpr.errors import InputError, MissingDependencyError
from kpr.render import plots
from kpr.render.page import esc
from kpr.render.risk import shorten
from kpr.results.analysis import EXPLAIN_CONTRIBUTION, EXPLAIN_METHOD
from kpr.results.evaluation import format_rate, meaning
from tests.conftest import run_cli as run

from ..analysis._data import tables
from .conftest import DEMO_LABELS, HOSTILE_COLUMN, IMG, MATH, SCRIPT
from .test_html import assert_self_contained, parse, section

#: The demo analysis (21 attacks, 4 plots) weighs about 70 kB; this leaves room.
MAX_DEMO_BYTES = 300_000

#: The only URLs the page may hold: the XML namespaces of inline SVG (never fetched).
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def attribute_values(document: str, name: str) -> list[str]:
    return [a[name] or "" for _, a in parse(document).tags if name in a]


def assert_no_external_reference(document: str) -> None:
    assert_self_contained(document)
    assert set(re.findall(r"https?://[^\s\"'<>)]+", document)) <= NAMESPACES
    assert re.search(r"<[^>]*\ssrc\s*=", document) is None  # no src= in any tag
    assert "<img" not in document


@pytest.fixture(scope="module")
def with_control() -> AnalysisResult:
    """Small random tables with a control group, every part of the analysis present."""
    original, avatars = tables(300, 280, seed=5)
    control, _ = tables(200, 1, seed=6)
    return analyze(
        original, avatars, candidates=["age", "sex", "region", "height"], max_known=2,
        control=control,
    )  # fmt: skip


# --- the demo analysis --------------------------------------------------------------


def test_demo_page_is_small_and_self_contained(demo_analysis_html: str) -> None:
    assert demo_analysis_html.startswith("<!DOCTYPE html>")
    assert len(demo_analysis_html.encode("utf-8")) < MAX_DEMO_BYTES
    assert "default-src 'none'" in demo_analysis_html
    assert_no_external_reference(demo_analysis_html)


def test_headline_is_the_main_attack(
    demo_analysis: AnalysisResult, demo_analysis_html: str
) -> None:
    a = demo_analysis.attack
    assert attribute_values(demo_analysis_html, "data-kpr-rate") == [repr(a.rate)]
    assert f">{format_rate(a.rate)}</div>" in demo_analysis_html
    low, high = a.interval
    assert attribute_values(demo_analysis_html, "data-kpr-interval") == [f"{low!r} {high!r}"]
    assert f"<b>{low:.2f} to {high:.2f} %</b>" in demo_analysis_html
    assert meaning(a.rate) in demo_analysis_html
    assert f"<title>Knowledge Protection Rate {format_rate(a.rate)}" in demo_analysis_html
    assert all(label in demo_analysis_html for label in DEMO_LABELS)
    # top to bottom, in the order the reader needs them
    order = ["data-kpr-rate", 'id="baselines"', 'id="subsets"', 'id="contributions"',
             'id="tolerance"', 'id="method"', 'id="warnings"', "<footer>"]  # fmt: skip
    positions = [demo_analysis_html.index(marker) for marker in order]
    assert positions == sorted(positions)


def test_baselines_equal_the_result(demo_analysis: AnalysisResult, demo_analysis_html: str) -> None:
    baselines = section(demo_analysis_html, "baselines")
    a, w = demo_analysis.attack, demo_analysis.original_published
    cards = {
        attrs["data-kpr-baseline"]: attrs.get("data-kpr-value")
        for _, attrs in parse(baselines).tags
        if "data-kpr-baseline" in attrs
    }
    assert cards == {
        "avatars": repr(a.rate),
        "original-published": repr(w.rate),
        "worst-case": repr(demo_analysis.worst_case),
        "control": None,
    }
    for rate in (a, w):
        low, high = rate.interval
        assert f">{format_rate(rate.rate)}</span>" in baselines
        assert f"{low:.2f} to {high:.2f} %" in baselines
    assert f"{a.rate - w.rate:+.2f} points" in baselines
    assert esc(demo_analysis.worst_case_explanation) in baselines
    assert esc(demo_analysis.original_published_explanation) in baselines
    assert f"{a.rate - demo_analysis.worst_case:+.2f} points" in baselines
    assert "No control table was given" in baselines
    assert baselines.count("<svg") == 1


def test_control_difference_and_interval(with_control: AnalysisResult) -> None:
    document = with_control.to_html()
    assert_no_external_reference(document)
    baselines = section(document, "baselines")
    c = with_control.control
    assert c is not None
    values = dict(
        (attrs["data-kpr-baseline"], attrs.get("data-kpr-value"))
        for _, attrs in parse(baselines).tags
        if "data-kpr-baseline" in attrs
    )
    assert values["control"] == repr(c.control.rate)
    assert attribute_values(baselines, "data-kpr-difference") == [repr(c.difference)]
    low, high = c.difference_interval
    assert f"{c.difference:+.2f} points" in baselines
    assert f"(95 % interval {low:+.2f} to {high:+.2f})" in baselines
    assert esc(c.explanation) in baselines
    svg = baselines[baselines.index("<svg") :]
    assert "Control individuals" in svg


def test_riskiest_subsets_in_order(demo_analysis: AnalysisResult, demo_analysis_html: str) -> None:
    sweep = demo_analysis.sweep
    assert sweep is not None
    subsets = section(demo_analysis_html, "subsets")
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td class="value">(.*?)</td>', subsets)
    shown = [tuple(re.findall(r"<b>(.*?)</b>", names)) for _, names in rows]
    assert shown == [e.known for e in sweep.top(10)]
    assert [int(rank) for rank, _ in rows] == list(range(1, 11))
    for e in sweep.top(10):
        assert f'<td class="num">{format_rate(e.rate)}</td>' in subsets
    # the plot names the subsets as "a + b", riskiest first
    svg_text = "".join(parse(subsets[subsets.index("<svg") :]).text)
    first, last = sweep.entries[0], sweep.entries[9]
    # (the full attack, with every candidate, ranks first; its long label is shortened)
    assert len(first.known) == len(sweep.candidates)
    labels = [shorten(" + ".join(e.known), 48) for e in (first, last)]
    assert svg_text.index(labels[0]) < svg_text.index(labels[1])
    assert f"The 10 riskiest of {len(sweep.entries)} attacks" in subsets


def test_top_sets_how_many_subsets(demo_analysis: AnalysisResult) -> None:
    subsets = section(demo_analysis.to_html(top=3), "subsets")
    assert subsets.count('<tr><td class="num">') == 3
    none = section(demo_analysis.to_html(top=0), "subsets")
    assert "<svg" not in none and "<table" not in none and "none is listed" in none


def test_contributions(demo_analysis: AnalysisResult, demo_analysis_html: str) -> None:
    sweep = demo_analysis.sweep
    assert sweep is not None
    part = section(demo_analysis_html, "contributions")
    assert EXPLAIN_CONTRIBUTION in part
    values = attribute_values(part, "data-kpr-contribution")
    assert values == [repr(x.mean_decrease) for x in sweep.contributions]
    svg_text = "".join(parse(part[part.index("<svg") :]).text)
    for x in sweep.contributions:
        assert f'<td class="value">{x.variable}</td>' in part
        assert f"{x.mean_decrease:+.2f} points" in svg_text
    top = sweep.contributions[0]
    assert f"Knowing <b>{top.variable}</b> helps the attacker most" in part


def test_tolerance_curve_and_method(demo_analysis: AnalysisResult, demo_analysis_html: str) -> None:
    part = section(demo_analysis_html, "tolerance")
    for p in demo_analysis.tolerance_curve:
        assert f'<td class="num">{p.tolerance * 100:g} %</td>' in part
        assert f'<td class="num">{format_rate(p.rate)}</td>' in part
    svg_text = "".join(parse(part[part.index("<svg") :]).text)
    assert all(f"{t:g} %" in svg_text for t in (1, 2, 5, 10, 20))
    assert "The attack above (tolerance 5 %)" in svg_text
    assert esc(EXPLAIN_METHOD["bins"]) in section(demo_analysis_html, "method")


def test_four_labelled_plots_with_unique_ids(demo_analysis_html: str) -> None:
    tags = parse(demo_analysis_html).tags
    svgs = [a for t, a in tags if t == "svg"]
    assert len(svgs) == 4
    assert all(a.get("role") == "img" and a.get("aria-label") for a in svgs)
    ids = Counter(a["id"] for _, a in tags if "id" in a)
    assert [i for i, count in ids.items() if count > 1] == []
    refs = re.findall(r'(?:url\(#|href="#)([^")]+)', demo_analysis_html)
    assert all(r in ids for r in refs)


def test_footer_says_what_the_page_holds(demo_analysis_html: str) -> None:
    footer = demo_analysis_html[demo_analysis_html.index("<footer>") :]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", footer)
    assert "no individual&#x27;s values" in footer


def test_without_sweep_or_curve(with_control: AnalysisResult) -> None:
    bare = dataclasses.replace(with_control, sweep=None, tolerance_curve=[], control=None)
    document = bare.to_html()
    assert document.count("<svg") == 1  # the baselines only
    assert "No sweep was run" in section(document, "subsets")
    assert "No sweep was run" in section(document, "contributions")
    assert "No tolerance curve" in section(document, "tolerance")


def test_window_method_and_a_single_tolerance() -> None:
    original, avatars = tables(200, 190, seed=3)
    result = analyze(original, avatars, ["age", "sex"], method="window", tolerances=[0.1])
    document = result.to_html()
    assert esc(EXPLAIN_METHOD["window"]) in section(document, "method")
    part = section(document, "tolerance")
    assert "The whisker is the 95 % interval" in part
    assert "(tolerance 5 %) is not on the curve" in part


# --- hostile names and values -----------------------------------------------------------


def test_hostile_names_values_and_labels_are_text(hostile_analysis: AnalysisResult) -> None:
    result = dataclasses.replace(hostile_analysis, warnings=[f"{SCRIPT} looks odd"])
    document = result.to_html(inputs=(SCRIPT, IMG, MATH))
    assert_no_external_reference(document)
    assert "<script" not in document.lower()
    text = "".join(parse(document).text)
    for hostile in (SCRIPT, HOSTILE_COLUMN, IMG, MATH, f"{SCRIPT} looks odd"):
        assert hostile in text
    # inside the plots, the names are the text of <text> elements, mathtext off
    svgs = re.findall(r"<svg.*?</svg>", document, flags=re.S)
    assert all("<script" not in s and "<img" not in s for s in svgs)
    assert any("&lt;script&gt;alert(1)&lt;/script&gt;" in s for s in svgs)
    assert "$x^2$ &amp; &lt;b&gt;bold&lt;/b&gt;" in document  # the control's label


# --- the Python API --------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_bad_top(demo_analysis: AnalysisResult, bad: Any) -> None:
    with pytest.raises(InputError, match="top must be"):
        demo_analysis.to_html(top=bad)


def test_bad_inputs(demo_analysis: AnalysisResult) -> None:
    with pytest.raises(InputError, match="two or three labels"):
        demo_analysis.to_html(inputs=("only one",))


def test_without_matplotlib(demo_analysis: AnalysisResult, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'kpr\[report\]'"):
        demo_analysis.to_html()


def test_tolerance_plot_of_one_or_many_points(demo_analysis: AnalysisResult) -> None:
    curve = demo_analysis.tolerance_curve
    points = [plots.CurvePoint(p.tolerance, p.rate, *p.interval) for p in curve]
    many = plots.tolerance_svg(points, 0.05, "m", confidence=0.95)
    one = plots.tolerance_svg(points[:1], 0.05, "o", confidence=0.95)
    for svg in (many, one):
        assert svg.startswith("<svg") and 'role="img"' in svg and "aria-label=" in svg
    assert "The attack above" in many and "The attack above" not in one
    with pytest.raises(ValueError, match="no points"):
        plots.tolerance_svg([], 0.05, "e", confidence=0.95)


# --- the command line ------------------------------------------------------------------


FAST = ["--max-known", "1", "--tolerances", "0.05,0.1", "-q"]


# (patched by name: importing kpr.cli.analyze before kpr.cli.app is an import cycle)
def never_analyze(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the data was read before the options were checked")


def test_cli_demo_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "x.html"
    code, out, err = run(["analyze", "--demo", *FAST, "--report", str(target), "-q"], capsys)
    assert (code, err) == (0, "")
    assert target.exists()
    assert f"HTML report written to {target}" in out
    document = target.read_text(encoding="utf-8")
    assert_no_external_reference(document)
    assert all(label in document for label in DEMO_LABELS)
    assert document.count("<svg") == 4


def test_cli_json_stays_pure_with_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    target = tmp_path / "x.html"
    code, out, _ = run(["analyze", "--demo", *FAST, "-f", "json", "--report", str(target)], capsys)
    assert code == 0
    rate = json.loads(out)["attack"]["kpr"]
    assert f'data-kpr-rate="{rate!r}"' in target.read_text(encoding="utf-8")


def test_cli_bad_column_leaves_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "x.html"
    code, _, err = run(
        ["analyze", "--demo", "-c", "agee,sex", *FAST, "--report", str(target)], capsys
    )
    assert code == 2
    assert err.startswith("kpr: error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_checks_the_folder_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kpr.cli.analyze.analyze", never_analyze)
    code, _, err = run(["analyze", "--demo", "--report", str(tmp_path / "no" / "x.html")], capsys)
    assert code == 2
    assert err.startswith("kpr: error: cannot write") and err.count("\n") == 1


def test_cli_missing_matplotlib_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr("kpr.cli.analyze.analyze", never_analyze)
    target = tmp_path / "x.html"
    code, out, err = run(["analyze", "--demo", "--report", str(target)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "kpr: error: the HTML report needs the package 'matplotlib': pip install 'kpr[report]'\n"
    )
    assert not target.exists()


def test_interval_bounds_near_100_are_not_rounded_up() -> None:
    from kpr.analysis import AttackRate
    from kpr.metric.counts import Counts
    from kpr.render.analysis_sections import interval_text

    one_in_many = AttackRate(("age",), 0.05, "bins", Counts(100_000, 100_000, 10, 1))
    low, high = one_in_many.interval
    assert high < 100.0
    assert interval_text(one_in_many) == f"{low:.2f} to {format_rate(high)}"
    assert interval_text(AttackRate(("age",), 0.05, "bins", Counts(10, 10, 0, 0))).endswith(
        " to 100.00 %"
    )


def test_jupyter_shows_an_analysis(demo_analysis: AnalysisResult) -> None:
    view = demo_analysis._repr_html_()
    a = demo_analysis.attack
    assert f'data-kpr-rate="{a.rate!r}"' in view and esc(format_rate(a.rate)) in view
    assert esc(format_rate(demo_analysis.original_published.rate)) in view
    assert esc(format_rate(demo_analysis.worst_case)) in view
    assert demo_analysis.sweep is not None
    for entry in demo_analysis.sweep.top(5):
        assert esc(format_rate(entry.rate)) in view
    assert view.count("riskiest subset") == 5
    assert "<svg" not in view and "<style" not in view  # compact: no plots, no stylesheet


def test_jupyter_view_of_an_analysis_escapes() -> None:
    original, avatars = tables()
    hostile = original.rename({original.columns[0]: SCRIPT})
    hostile_avatars = avatars.rename({avatars.columns[0]: SCRIPT})
    view = analyze(hostile, hostile_avatars, [SCRIPT])._repr_html_()
    assert SCRIPT not in view and esc(SCRIPT) in view
