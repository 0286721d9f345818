"""Shared results for the report tests: the bundled demo, a hostile table whose
values and column names are HTML, and the spec's worked example; and the same
for the attacker-knowledge analysis report."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import kpr
from kpr.analysis import AnalysisResult, analyze
from kpr.demo import DEMO_KNOWN, demo_paths
from kpr.results.evaluation import KprResult
from tests.conftest import worked_example as worked_frames

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
HOSTILE_COLUMN = "<img src=x onerror=alert(2)>"
MATH = "$x^2$ & <b>bold</b>"

#: Where tests leave files worth looking at (screenshots); gitignored.
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def demo_result() -> KprResult:
    original, avatars = demo_paths()
    return kpr.evaluate(original, avatars, known=DEMO_KNOWN)


@pytest.fixture(scope="session")
def demo_html(demo_result: KprResult) -> str:
    return demo_result.to_html(threshold=90, inputs=("adult.parquet", "adult_avatars.parquet"))


@pytest.fixture(scope="session")
def hostile_result() -> KprResult:
    """Category values and a column name that are HTML; the first two are linked."""
    original = pl.DataFrame(
        {
            "city": [SCRIPT, IMG, "Paris", "Paris", "Lyon", MATH, None, "Nice"],
            HOSTILE_COLUMN: [30, 41, 52, 52, 60, 45, 50, 70],
        }
    )
    avatars = pl.DataFrame(
        {
            "city": [SCRIPT, IMG, "Paris", "Lyon", "Lyon", MATH, None, "Nice"],
            HOSTILE_COLUMN: [30.5, 41, 52, 52, 61, 45, 50, 90],
        }
    )
    return kpr.evaluate(original, avatars, known=["city", HOSTILE_COLUMN])


@pytest.fixture(scope="session")
def worked_example() -> KprResult:
    """The spec's worked example: KPR 60 %, rows 2 and 4 linked."""
    original, avatars = worked_frames()
    return kpr.evaluate(original, avatars, known=["age", "sex"])


#: How the analysis report labels the bundled demo's tables.
DEMO_LABELS = ("adult.parquet (bundled demo)", "adult_avatars.parquet (bundled demo)")


@pytest.fixture(scope="session")
def demo_analysis() -> AnalysisResult:
    """The demo analysed with subsets of up to 2 of its 6 variables (21 attacks): fast."""
    original, avatars = demo_paths()
    return analyze(original, avatars, candidates=DEMO_KNOWN, max_known=2)


@pytest.fixture(scope="session")
def demo_analysis_html(demo_analysis: AnalysisResult) -> str:
    return demo_analysis.to_html(inputs=DEMO_LABELS)


@pytest.fixture(scope="session")
def hostile_analysis() -> AnalysisResult:
    """Candidates whose names are HTML, category values that are HTML, a control."""
    city = [SCRIPT, IMG, "Paris", "Lyon", MATH, None, "Nice", "Nice"] * 5
    ages = list(range(20, 60))
    original = pl.DataFrame({SCRIPT: city, HOSTILE_COLUMN: ages, "sex": ["F", "M"] * 20})
    avatars = pl.DataFrame(
        {SCRIPT: city, HOSTILE_COLUMN: ages[:20] + ages[20:][::-1], "sex": ["F", "M"] * 20}
    )
    control = original.head(25)
    return analyze(
        original,
        avatars,
        candidates=[SCRIPT, HOSTILE_COLUMN, "sex"],
        max_known=2,
        control=control,
    )
