"""Every hypothesis test obeys the profile of ``tests/conftest.py``: in CI it is
derandomised, so the suite cannot pass or fail by chance."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_overrides_the_profile_randomness_or_database() -> None:
    offenders = []
    for path in TESTS.rglob("*.py"):
        if path.name == "conftest.py" and path.parent == TESTS:
            continue  # where the profiles are defined
        text = path.read_text(encoding="utf-8")
        if re.search(r"\b(derandomize|database)\s*[=:]|[\"'](derandomize|database)[\"']", text):
            offenders.append(str(path.relative_to(TESTS)))
    assert offenders == [], f"set derandomize/database in the profile only: {offenders}"


def test_the_loaded_profile_matches_the_environment() -> None:
    chosen = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    assert settings.default.derandomize is (chosen == "ci")
    assert settings.get_profile("ci").derandomize and settings.get_profile("ci").database is None
    assert not settings.get_profile("dev").derandomize


def _collected(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *args, str(TESTS / "test_metric.py")],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_fixed_cases_only_leaves_out_the_properties_alone() -> None:
    """The bounds runs of ``scripts/test.sh`` pass ``--fixed-cases-only``: the
    hypothesis tests are deselected, every other test is still collected."""
    everything, fixed = _collected(), _collected("--fixed-cases-only")
    property_test, fixed_test = "test_shuffling_rows_changes_nothing", "test_worked_example_codes"
    assert property_test in everything and fixed_test in everything
    assert property_test not in fixed and fixed_test in fixed
    assert "deselected" in fixed
