"""Hypothesis profiles for the whole suite, loaded before any test module.

- ``ci`` (selected when the environment variable ``CI`` is set): derandomised,
  so a run tests the same examples every time and cannot fail by chance; no
  example database; a fixed, modest default budget.
- ``dev`` (otherwise): randomised, so local runs keep exploring new examples.

``HYPOTHESIS_PROFILE=ci|dev`` picks one explicitly. Tests may give their own
``max_examples`` (a fixed budget) but never ``derandomize`` or ``database``,
which belong to the profile (``tests/adversarial/test_profiles.py`` checks it).
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


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo files, written once per session (per xdist worker) by ``kpr demo --write``.

    Read-only for tests: copy it before writing in it.
    """
    from kpr.cli.demo_files import write_demo

    folder = tmp_path_factory.mktemp("demo")
    write_demo(folder)
    return folder
