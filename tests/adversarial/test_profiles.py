"""Every hypothesis test obeys the profile of ``tests/conftest.py``: in CI it is
derandomised, so the suite cannot pass or fail by chance."""

from __future__ import annotations

import os
import re
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
