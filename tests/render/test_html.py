"""The HTML report: content, escaping, self-containment, and the Python API."""

from __future__ import annotations

import re
import sys
from collections import Counter
from html.parser import HTMLParser

import polars as pl
import pytest

import kpr
from kpr.errors import InputError, MissingDependencyError
from kpr.render import html as report_html
from kpr.render import plots, risk
from kpr.results.evaluation import KprResult, format_rate

from .conftest import HOSTILE_COLUMN, IMG, MATH, SCRIPT

MAX_DEMO_BYTES = 1_500_000


class Tags(HTMLParser):
    """Every start tag with its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(document: str) -> Tags:
    parser = Tags()
    parser.feed(document)
    parser.close()
    return parser


def section(document: str, name: str) -> str:
    """The HTML of one ``<section id=name>``."""
    start = document.index(f'<section id="{name}"')
    return document[start : document.index("</section>", start)]


def assert_self_contained(document: str) -> None:
    """No element or attribute that runs code or fetches anything."""
    tags = parse(document).tags
    names = {tag for tag, _ in tags}
    assert not names & {"script", "img", "link", "iframe", "object", "embed", "image", "base"}
    for tag, attrs in tags:
        for attr, value in attrs.items():
            assert attr != "src", (tag, attrs)
            assert not attr.startswith("on"), (tag, attrs)
            if attr in {"href", "xlink:href", "action", "formaction"}:
                assert (value or "").startswith("#"), (tag, attrs)
    assert "@import" not in document
    assert re.findall(r"url\((?!#)", document) == []
    assert "<script" not in document.lower()


# --- the demo report ----------------------------------------------------------------


def test_demo_report_is_small_and_self_contained(demo_html: str) -> None:
    assert len(demo_html.encode("utf-8")) < MAX_DEMO_BYTES
    assert demo_html.startswith("<!DOCTYPE html>")
    assert_self_contained(demo_html)
    assert "Content-Security-Policy" in demo_html
    assert "default-src 'none'" in demo_html


def test_headline_rate_meaning_and_badge(demo_result: KprResult, demo_html: str) -> None:
    attrs = next(a for t, a in parse(demo_html).tags if "data-kpr-rate" in a)
    assert float(attrs["data-kpr-rate"] or "nan") == demo_result.rate
    assert f">{format_rate(demo_result.rate)}</div>" in demo_html
    assert demo_result.meaning in demo_html
    assert 'data-kpr-verdict="pass"' in demo_html
    assert f"<title>Knowledge Protection Rate {format_rate(demo_result.rate)}" in demo_html
    # the headline comes before everything else
    assert demo_html.index("data-kpr-rate") < demo_html.index('id="counts"')


def test_fail_badge_and_no_badge(worked_example: KprResult) -> None:
    failing = worked_example.to_html(threshold=60.5)
    assert 'data-kpr-verdict="fail"' in failing
    assert "FAIL: below the 60.5 % threshold" in failing
    assert 'data-kpr-verdict="pass"' in worked_example.to_html(threshold=60)
    assert "data-kpr-verdict" not in worked_example.to_html()


@pytest.mark.parametrize("bad", [-1, 101, float("nan"), True, "90"])
def test_bad_threshold(demo_result: KprResult, bad: object) -> None:
    with pytest.raises(InputError, match="threshold"):
        demo_result.to_html(threshold=bad)  # type: ignore[arg-type]


def test_counts_and_assumptions(demo_result: KprResult, demo_html: str) -> None:
    counts = section(demo_html, "counts")
    for value in (demo_result.n, demo_result.n_avatars, demo_result.unique_originals):
        assert f">{value:,}</span>" in counts
    assert f">{demo_result.linked:,}</span>" in counts
    assert "original rows (n)" in counts and "linked |S|" in counts
    assumptions = section(demo_html, "assumptions")
    age = demo_result.variables["age"]
    assert f"{age.lo:.6g}" in assumptions and f"{age.width:.6g}" in assumptions
    assert f'<td class="num">{age.classes}</td>' in assumptions
    for name in demo_result.known:
        assert f'<td class="value">{name}</td>' in assumptions


def test_one_plot_per_variable_with_unique_ids(demo_result: KprResult, demo_html: str) -> None:
    tags = parse(demo_html).tags
    svgs = [a for t, a in tags if t == "svg"]
    assert len(svgs) == len(demo_result.known)
    assert all(a.get("role") == "img" and a.get("aria-label") for a in svgs)
    ids = Counter(a["id"] for _, a in tags if "id" in a)
    assert [i for i, count in ids.items() if count > 1] == []
    # every reference points at an id of the document
    refs = re.findall(r'(?:url\(#|href="#)([^")]+)', demo_html)
    assert refs and all(r in ids for r in refs)


def test_linked_rows_without_values_by_default(demo_result: KprResult, demo_html: str) -> None:
    linked = section(demo_html, "linked")
    first = demo_result.linked_individuals().head(report_html.LINKED_ROWS)
    rows = re.findall(
        r'<td class="num">([\d,]+)</td><td>→</td><td class="num">([\d,]+)</td>', linked
    )
    assert rows == [
        (f"{o:,}", f"{a:,}") for o, a in first.select("original_row", "avatar_row").rows()
    ]
    for value in ("Male", "Female", "United-States", "<th>age</th>"):
        assert value not in linked
    # the footer claims no rows and no values, and owns up to the per-value counts the
    # report does show, small groups included (the old "no raw data" overclaimed)
    assert "no raw data" not in demo_html
    assert "holds no row of the data and no individual's values" in demo_html
    assert "small groups included" in demo_html
    risk = section(demo_html, "risk")
    counts = [int(c.replace(",", "")) for c in re.findall(r'<td class="num">([\d,]+)</td>', risk)]
    assert min(c for c in counts if c > 0) < 10


def test_show_values_adds_the_binned_profile(demo_result: KprResult) -> None:
    document = demo_result.to_html(show_values=True)
    linked = section(document, "linked")
    assert all(f"<th>{n}</th>" in linked for n in demo_result.known)
    first = demo_result.linked_individuals(codes=True).row(0, named=True)
    assert f">{first['sex']}</td>" in linked
    age = demo_result.variables["age"]
    assert age.lo is not None and age.width is not None
    lower = age.lo + first["age"] * age.width
    assert risk.interval_label(lower, lower + age.width, age.width) in linked
    assert "contains the known values" in document


def test_risk_and_next_steps(demo_html: str) -> None:
    risk_section = section(demo_html, "risk")
    # native_country's missing value holds the most linked beyond its share
    assert (
        'The value <span class="missing-value">(missing)</span> holds the most linked'
        in risk_section
    )
    assert "27 other values" in risk_section  # 42 countries, 15 shown
    steps = section(demo_html, "next")
    # the demo's avatars are not kpr's: no advice on k, but on what drives the risk
    assert "kpr sweep" not in steps and "larger k" not in steps
    assert "The linked individuals concentrate in: native_country (missing)" in steps
    assert "coarsen native_country" in steps
    ranked = re.findall(r"<li><b>([^<]+)</b>: score", steps)
    assert ranked[0] == "native_country" and sorted(ranked) == sorted(kpr_known())


def kpr_known() -> list[str]:
    from kpr.demo import DEMO_KNOWN

    return list(DEMO_KNOWN)


def test_footer(demo_html: str) -> None:
    footer = demo_html[demo_html.index("<footer>") :]
    assert f"kpr {kpr.__version__}" in footer
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", footer)


def test_warnings_are_listed_with_their_fix() -> None:
    import polars as pl

    original = pl.DataFrame({"zip": [i % 5 for i in range(200)], "x": list(range(200))})
    result = kpr.evaluate(original, original, known=["zip", "x"])
    assert result.warnings
    warnings = section(result.to_html(), "warnings")
    assert "--categorical zip" in warnings
    assert warnings.count("<li>") == len(result.warnings)


def test_no_warnings_says_so(demo_html: str) -> None:
    assert "No warnings" in section(demo_html, "warnings")


# --- hostile data ------------------------------------------------------------------


def test_hostile_values_and_names_are_text(hostile_result: KprResult) -> None:
    document = hostile_result.to_html(show_values=True, inputs=(SCRIPT, IMG))
    assert_self_contained(document)
    text = "".join(parse(document).text)
    for hostile in (SCRIPT, IMG, HOSTILE_COLUMN, MATH):
        assert hostile in text
    assert section(document, "linked").count("&lt;script&gt;alert(1)&lt;/script&gt;") == 1


def test_svg_text_is_escaped_and_math_is_off(hostile_result: KprResult) -> None:
    city = risk.variable_risk(hostile_result, "city")
    svg = plots.categorical_svg(city, 0.5, "t")
    assert "<script" not in svg and "<img" not in svg and "<b>" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "$x^2$ &amp; &lt;b&gt;bold&lt;/b&gt;" in svg  # a literal dollar, not mathtext
    numeric = risk.variable_risk(hostile_result, HOSTILE_COLUMN)
    svg = plots.numeric_svg(numeric, 0.5, "u")
    assert "<img" not in svg and "&lt;img src=x onerror=alert(2)&gt;" in svg


# --- the Python API ----------------------------------------------------------------


def test_without_matplotlib(demo_result: KprResult, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError) as err:
        demo_result.to_html()
    assert str(err.value) == (
        "the HTML report needs the package 'matplotlib': pip install 'kpr[report]'"
    )
    # the Jupyter view has no plots, so it still works
    assert format_rate(demo_result.rate) in demo_result._repr_html_()


def test_result_without_detail_still_renders(demo_result: KprResult) -> None:
    import dataclasses

    bare = dataclasses.replace(demo_result, _detail=None)
    document = bare.to_html()
    assert "holds no per-class detail" in document
    assert "<svg" not in document
    assert "cannot be listed" in section(document, "linked")


# --- Jupyter -----------------------------------------------------------------------


def test_repr_html_is_compact(demo_result: KprResult) -> None:
    view = demo_result._repr_html_()
    assert f'data-kpr-rate="{demo_result.rate!r}"' in view
    assert format_rate(demo_result.rate) in view
    assert f"{demo_result.n:,}" in view and f"{demo_result.linked:,}" in view
    assert "<svg" not in view and "<style" not in view
    assert len(view) < 3_000


def test_repr_html_escapes(hostile_result: KprResult) -> None:
    import dataclasses

    result = dataclasses.replace(hostile_result, warnings=[f"{SCRIPT} is odd"])
    view = result._repr_html_()
    assert_self_contained(view)
    text = "".join(parse(view).text)
    assert f"{SCRIPT} is odd" in text and HOSTILE_COLUMN in text


@pytest.mark.parametrize(
    "values",
    [
        [1e307, 1.2e308, -1.5e308, 1.7e308, 0.0, 5.0],  # x - lo overflows: class +inf
        [1.0e308, 1.1e308, 1.2e308, 1.3e308, 1.4e308, 1.5e308],  # huge, finite span
        [-1.7e308, -1.0e308, 0.0, 1.0e308, 1.7e308, 3.0],  # span beyond the float range
    ],
)
def test_report_draws_classes_near_the_float_limit(values: list[float]) -> None:
    """Near the float limit the classes cannot be drawn at their bounds (matplotlib
    cannot place ticks there): the report draws them side by side, never fails."""
    original = {"x": values * 3 + [values[1]], "c": list("abcabc") * 3 + ["a"]}
    avatars = {"x": [v * 0.99 for v in values], "c": list("abcabc")}
    result = kpr.evaluate(pl.DataFrame(original), pl.DataFrame(avatars), ["x", "c"])
    page = result.to_html()
    assert page.count("<svg") >= 2
    assert "Bar chart for x" in page


def test_a_moved_grid_says_so_and_labels_its_classes() -> None:
    """``grid_offset``: the report says the grid was moved, and the linked profiles
    read the moved classes (as ``linked_individuals()`` labels them)."""
    o = pl.DataFrame({"age": [30, 30, 41, 52, 60, 71], "sex": ["F", "F", "M", "F", "M", "F"]})
    result = kpr.evaluate(o, o, known=["age", "sex"], grid_offset=0.5)
    document = result.to_html(show_values=True)
    assert "class grid moved down by 0.5 of each width" in document
    labels = result.linked_individuals()["age"].to_list()
    assert labels and all(label in section(document, "linked") for label in labels)
    age = result.variables["age"]
    assert age.lo is not None and age.width is not None
    origin = age.lo - 0.5 * age.width
    first = result.linked_individuals(codes=True)["age"][0]
    lower = origin + first * age.width
    assert labels[0] == risk.interval_label(lower, lower + age.width, age.width)
    assert "moved" not in kpr.evaluate(o, o, known=["age", "sex"]).to_html()
