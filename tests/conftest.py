"""Hypothesis profiles for the whole suite, loaded before any test module.

- ``ci`` (selected when the environment variable ``CI`` is set): derandomised,
  so a run tests the same examples every time and cannot fail by chance; no
  example database; a fixed, modest default budget.
- ``dev`` (otherwise): randomised, so local runs keep exploring new examples.

``HYPOTHESIS_PROFILE=ci|dev`` picks one explicitly. Tests may give their own
``max_examples`` (a fixed budget) but never ``derandomize`` or ``database``,
which belong to the profile (``tests/adversarial/test_profiles.py`` checks it).

``KPR_MAX_EXAMPLES=N`` caps every hypothesis test's budget at N examples (the
profile's and each test's own): ``scripts/test.sh`` sets it for the runs at the
lowest dependency versions and on the newest Python, which check that the code
paths through the dependencies' APIs give the reference's answers there; the
search for rare tables, with every test's full budget, is the main run's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    derandomize=False,  # explicit: hypothesis derandomises its defaults when CI is set
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
MAX_EXAMPLES = int(os.environ.get("KPR_MAX_EXAMPLES") or 0) or None
if MAX_EXAMPLES is not None:
    settings.register_profile("capped", settings.default, max_examples=MAX_EXAMPLES)
    settings.load_profile("capped")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Cap the hypothesis budgets when ``KPR_MAX_EXAMPLES`` is set."""
    if MAX_EXAMPLES is not None:
        for item in items:
            _cap_examples(getattr(item, "obj", None), MAX_EXAMPLES)


def _cap_examples(test: object, cap: int) -> None:
    """Lower the budget of a ``@given`` test to ``cap`` (its settings are read when it
    runs, from the attribute hypothesis's ``@settings`` sets)."""
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if isinstance(own, settings) and own.max_examples > cap:
        test._hypothesis_internal_use_settings = settings(own, max_examples=cap)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo files, written once per session (per xdist worker) by ``kpr demo --write``.

    Read-only for tests: copy it before writing in it.
    """
    from kpr.cli.demo_files import write_demo

    folder = tmp_path_factory.mktemp("demo")
    write_demo(folder)
    return folder
