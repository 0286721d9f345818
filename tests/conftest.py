"""Hypothesis profiles for the whole suite, loaded before any test module.

- ``ci`` (selected when the environment variable ``CI`` is set): derandomised,
  so a run tests the same examples every time and cannot fail by chance; no
  example database; a fixed, modest default budget.
- ``dev`` (otherwise): randomised, so local runs keep exploring new examples.

``HYPOTHESIS_PROFILE=ci|dev`` picks one explicitly. Tests may give their own
``max_examples`` (a fixed budget) but never ``derandomize`` or ``database``,
which belong to the profile (``tests/adversarial/test_profiles.py`` checks it).

``--fixed-cases-only`` leaves the hypothesis tests out of a run (reported as
deselected): the runs at the lowest dependency versions and on the newest Python check
that kpr's calls into its dependencies work there, and the fixed cases make those
calls on every edge case; the properties on random tables run in the main suite.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
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

#: The Java options of every JVM the tests start: Spark's driver (in the test process
#: and under the kpr commands they run), a standalone cluster's master and worker
#: (``SPARK_DAEMON_JAVA_OPTS``) and its executors (``tests/clusters/spark_driver.py``).
#: Each JVM runs a few seconds on tables of a few rows: the optimising compiler's
#: threads cost more processor time than its code saves (the Spark cases of
#: ``tests/engine/test_engines.py`` and ``test_dates.py``, one process: 71 s of CPU
#: against 104 s, the same wall time). Inherited by the processes the tests start;
#: given values are kept.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
for _variable in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
    os.environ.setdefault(_variable, TEST_JVM_OPTIONS)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fixed-cases-only",
        action="store_true",
        help="leave the hypothesis tests out (the lowest-versions and newest-Python runs)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--fixed-cases-only"):
        return
    fixed, properties = [], []
    for item in items:
        (properties if _is_property(item) else fixed).append(item)
    if properties:
        config.hook.pytest_deselected(items=properties)
        items[:] = fixed


def _is_property(item: pytest.Item) -> bool:
    """A hypothesis test: the attribute ``@given`` sets, which
    ``hypothesis.is_hypothesis_test`` reads (not exported by hypothesis 6.100, the
    lowest version the test extra allows)."""
    return bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo files, written once per session (per xdist worker) by ``kpr demo --write``.

    Read-only for tests: copy it before writing in it.
    """
    from kpr.cli.demo_files import write_demo

    folder = tmp_path_factory.mktemp("demo")
    write_demo(folder)
    return folder


#: The spec's worked example (docs/spec.md, "Worked example"), known ``age`` and
#: ``sex``: U = rows 2, 3 and 4, age's width 0.05 x 51, rows 2 and 4 linked, KPR 60 %.
WORKED_ORIGINAL = {"age": [30, 30, 41, 52, 60], "sex": ["F", "F", "M", "F", "M"]}
WORKED_AVATARS = {"age": [42.0, 53.5, 54, 61, 59], "sex": ["M", "F", "F", "M", "M"]}


def worked_example() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The worked example's original and avatars as polars frames (new ones each call)."""
    return pl.DataFrame(WORKED_ORIGINAL), pl.DataFrame(WORKED_AVATARS)


#: The worked example as the CSV text a user hands the command line.
WORKED_ORIGINAL_CSV = "age,sex\n30,F\n30,F\n41,M\n52,F\n60,M\n"
WORKED_AVATARS_CSV = "age,sex\n42,M\n53.5,F\n54,F\n61,M\n59,M\n"


@pytest.fixture
def worked_files(tmp_path: Path) -> tuple[str, str]:
    """The worked example as ``original.csv`` and ``avatars.csv`` in the test's folder."""
    o, a = tmp_path / "original.csv", tmp_path / "avatars.csv"
    o.write_text(WORKED_ORIGINAL_CSV)
    a.write_text(WORKED_AVATARS_CSV)
    return str(o), str(a)


def exit_code(code: object) -> int:
    """The exit code a process ends with for ``SystemExit(code)``: None is 0, an
    integer itself, anything else (a message) 1."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The ``kpr`` command in-process: (exit code, stdout, stderr), the code as the
    process would end with it. Any exception other than SystemExit escapes, failing the
    test (that is a traceback for the user)."""
    from kpr.cli.app import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    return exit_code(info.value.code), out, err
