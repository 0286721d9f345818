"""kpr as an SDMetrics metric, in an environment with the ``sdmetrics`` extra
(SDMetrics pins pandas < 3, so scripts/test.sh runs this directory in its own
virtual environment)."""

from __future__ import annotations

import datetime as dt
import json
import re
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest
import sdmetrics
from sdmetrics.goal import Goal

import kpr

DEMO = files("kpr") / "data"
KNOWN = ["age", "sex", "race"]


def demo_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    return (
        pd.read_parquet(str(DEMO / "adult.parquet")),
        pd.read_parquet(str(DEMO / "adult_avatars.parquet")),
    )


def metadata_of(frame: pd.DataFrame) -> dict[str, object]:
    """SDV single-table metadata: numerical for numbers, categorical otherwise."""
    return {
        "METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
        "columns": {
            c: {"sdtype": "numerical" if pd.api.types.is_numeric_dtype(t) else "categorical"}
            for c, t in frame.dtypes.items()
        },
    }


def test_importing_sdmetrics_exposes_the_metric() -> None:
    metric = sdmetrics.single_table.KnowledgeProtectionRate
    assert metric.goal is Goal.MAXIMIZE
    assert (metric.min_value, metric.max_value) == (0.0, 1.0)
    assert metric in sdmetrics.single_table.SingleTableMetric.get_subclasses().values()


def test_it_equals_kpr_on_the_demo_data() -> None:
    real, synthetic = demo_tables()
    metric = sdmetrics.single_table.KnowledgeProtectionRate
    score = metric.compute(real, synthetic, metadata_of(real), known_column_names=KNOWN)
    expected = kpr.evaluate(real, synthetic, known=KNOWN)
    assert 0.0 < score < 1.0
    assert score == expected.rate / 100
    breakdown = metric.compute_breakdown(
        real, synthetic, metadata_of(real), known_column_names=KNOWN, tolerance=0.1
    )
    wide = kpr.evaluate(real, synthetic, known=KNOWN, tolerance=0.1)
    assert breakdown == {
        "score": wide.rate / 100,
        "kpr": wide.rate,
        "n": wide.n,
        "n_avatars": wide.n_avatars,
        "unique_originals": wide.unique_originals,
        "linked": wide.linked,
    }


def test_the_metadata_decides_the_kinds() -> None:
    real, synthetic = demo_tables()
    metadata = metadata_of(real)
    metadata["columns"]["age"] = {"sdtype": "categorical"}  # type: ignore[index]
    metric = sdmetrics.single_table.KnowledgeProtectionRate
    score = metric.compute(real, synthetic, metadata, known_column_names=["age", "sex"])
    exact = kpr.evaluate(real, synthetic, known=["age", "sex"], kinds={"age": "categorical"})
    binned = kpr.evaluate(real, synthetic, known=["age", "sex"])
    assert score == exact.rate / 100 != binned.rate / 100


def test_datetime_sdtype_is_a_date(tmp_path: Path) -> None:
    days = [dt.date(1990, 1, 1) + dt.timedelta(days=37 * i) for i in range(40)]
    real = pd.DataFrame({"admission": [d.isoformat() for d in days]})  # text, as SDV keeps it
    synthetic = pd.DataFrame({"admission": [(d + dt.timedelta(days=5)).isoformat() for d in days]})
    metadata = {"columns": {"admission": {"sdtype": "datetime", "datetime_format": "%Y-%m-%d"}}}
    path = tmp_path / "metadata.json"
    path.write_text(json.dumps(metadata))
    metric = sdmetrics.single_table.KnowledgeProtectionRate
    score = metric.compute(real, synthetic, metadata, known_column_names=["admission"])
    typed = kpr.evaluate(
        real.astype("datetime64[us]"), synthetic.astype("datetime64[us]"), known=["admission"]
    )
    assert typed.variables["admission"].kind is kpr.Kind.DATE
    assert score == typed.rate / 100
    assert kpr.evaluate(real, synthetic, known=["admission"], metadata=path).rate == typed.rate


def test_an_id_cannot_be_known() -> None:
    real, synthetic = demo_tables()
    metadata = metadata_of(real)
    metadata["columns"]["age"] = {"sdtype": "id"}  # type: ignore[index]
    with pytest.raises(kpr.InputError, match="'age' is an id"):
        sdmetrics.single_table.KnowledgeProtectionRate.compute(
            real, synthetic, metadata, known_column_names=["age"]
        )


def test_the_docs_example_runs() -> None:
    """docs/sdmetrics.md's example (its ``python-sdmetrics`` block: the main suite's
    docs runner leaves it to this environment, where SDMetrics is installed)."""
    page = Path(__file__).resolve().parents[1] / "docs" / "sdmetrics.md"
    blocks = re.findall(r"```python-sdmetrics\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/sdmetrics.md has an SDMetrics example"
    for code in blocks:
        exec(compile(code, "docs/sdmetrics.md", "exec"), {})


def test_a_single_known_name_may_be_a_string() -> None:
    """``known_column_names="age"`` is the column age, not the columns a, g, e."""
    real, synthetic = demo_tables()
    metric = sdmetrics.single_table.KnowledgeProtectionRate
    metadata = metadata_of(real)
    one = metric.compute_breakdown(real, synthetic, metadata, known_column_names="age")
    listed = metric.compute_breakdown(real, synthetic, metadata, known_column_names=["age"])
    assert one == listed
    assert one["kpr"] == kpr.evaluate(real, synthetic, known=["age"]).rate


@pytest.mark.parametrize(
    ("columns", "known", "message"),
    [
        ([0, 1], [0], r"known_column_names must be column names as strings, got 0 \(int\)"),
        ([0, "sex"], ["sex"], r"real_data has column names that are not strings \(0, int\)"),
    ],
)
def test_column_names_that_are_not_strings_say_so(
    columns: list[object], known: list[object], message: str
) -> None:
    frame = pd.DataFrame({columns[0]: [30, 41, 52], columns[1]: ["F", "M", "F"]})
    with pytest.raises(kpr.InputError, match=message) as info:
        sdmetrics.single_table.KnowledgeProtectionRate.compute(
            frame, frame, None, known_column_names=known
        )
    assert "astype(str)" in str(info.value) and "\n" not in str(info.value)


def test_a_misspelt_keyword_is_named() -> None:
    """The keywords are checked: a misspelt one is refused in one line, not ignored."""
    real, synthetic = demo_tables()
    with pytest.raises(kpr.InputError, match="takes no keyword 'known_columns'"):
        sdmetrics.single_table.KnowledgeProtectionRate.compute(
            real, synthetic, metadata_of(real), known_columns=["age"]
        )
