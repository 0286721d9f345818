"""What the command line and ``import kpr`` load: each command imports only what it
needs (issue 24), so start-up stays short. Run in fresh interpreters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: Never imported by ``kpr evaluate`` without ``--report`` (nor by ``--version``).
HEAVY = (
    "scipy",
    "matplotlib",
    "sklearn",
    "kpr.avatar",
    "kpr.render.html",
    "kpr.render.page",
    "kpr.render.registry",
    "kpr.cli.analyze",
    "kpr.cli.avatar",
    "kpr.cli.ksweep",
    "kpr.analysis.inference",  # evaluate --secret only
    "kpr.results.inference",
)
#: Nor the modules of the engines it does not run on.
OTHER_ENGINES = ("kpr.engine.spark", "kpr.engine.dask", "kpr.engine.duckdb", "pyspark", "dask")


def _after(
    code: str, report: str = "sorted(sys.modules)", env: dict[str, str] | None = None
) -> Any:
    """``report`` (an expression) once ``code`` ran in a fresh interpreter with
    ``env`` (``code`` may exit through the CLI's main)."""
    probe = (
        "import json, os, sys\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in code.splitlines())
        + "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
        f"print(json.dumps({report}), file=sys.stderr)\n"
    )
    env = {**(os.environ if env is None else env), "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.strip().splitlines()[-1])


def _modules_after(code: str) -> set[str]:
    """The modules loaded once ``code`` ran."""
    return set(_after(code))


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.fixture(scope="module")
def tiny_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "t.csv"
    path.write_text("age,sex\n30,F\n30,F\n41,M\n52,F\n60,M\n", encoding="utf-8")
    return path


def test_evaluate_imports_only_what_it_needs(tiny_csv: Path) -> None:
    args = ["evaluate", str(tiny_csv), str(tiny_csv), "--known", "age,sex", "--format", "json"]
    modules = _modules_after(f"from kpr.cli.app import main\nmain({args!r})")
    assert "kpr.engine.queries" in modules  # it did evaluate
    assert [m for m in (*HEAVY, *OTHER_ENGINES) if _loaded(modules, m)] == []


def test_json_with_no_terminal_imports_no_rich(
    tiny_csv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rich draws the progress and prints the text summary: JSON on standard output,
    with stderr no terminal (a pipe here), needs neither; the text summary does."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    args = ["evaluate", str(tiny_csv), str(tiny_csv), "--known", "age,sex"]
    as_json = _modules_after(f"from kpr.cli.app import main\nmain({[*args, '--format', 'json']!r})")
    assert "kpr.engine.queries" in as_json and not _loaded(as_json, "rich")
    assert _loaded(_modules_after(f"from kpr.cli.app import main\nmain({args!r})"), "rich")


def test_a_variable_forcing_a_terminal_leaves_the_answer_to_rich(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kpr.cli import screen

    monkeypatch.setattr(sys, "stderr", open(os.devnull, "w"))  # noqa: SIM115
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    console = screen.LazyConsole(stderr=True)
    assert console.not_a_terminal() and not screen.is_terminal(console)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not console.not_a_terminal() and screen.is_terminal(console)
    sys.stderr.close()


def test_version_imports_no_data_library() -> None:
    modules = _modules_after("from kpr.cli.app import main\nmain(['--version'])")
    loaded = [m for m in ("polars", "narwhals", "numpy", "pyarrow", *HEAVY) if _loaded(modules, m)]
    assert loaded == []


@pytest.mark.parametrize("command", ["assess", "verify"])
def test_help_of_a_light_command_imports_no_data_library(command: str) -> None:
    """``kpr.cli.assess`` imports its table libraries when its commands run: its help,
    through the lazy group, loads none (``LIGHT_MODULES``)."""
    modules = _modules_after(f"from kpr.cli.app import main\nmain([{command!r}, '--help'])")
    assert [m for m in ("polars", "narwhals", "numpy") if _loaded(modules, m)] == []


def test_import_kpr_is_lazy_and_complete() -> None:
    modules = _modules_after("import kpr")
    assert [m for m in ("polars", "numpy", *HEAVY) if _loaded(modules, m)] == []
    modules = _modules_after(
        "import kpr\n"
        "assert kpr.evaluate.__module__ == 'kpr.api'\n"
        "assert set(kpr.__all__) <= set(dir(kpr))\n"
        "for name in kpr.__all__:\n"
        "    getattr(kpr, name)"
    )
    assert "kpr.api" in modules


def test_unknown_attribute_is_an_attribute_error() -> None:
    import kpr

    with pytest.raises(AttributeError, match="no attribute 'evalute'"):
        kpr.evalute  # noqa: B018


#: Which thread imported each module, once ``code`` ran (a finder that only watches).
_IMPORTERS = (
    "import threading\n"
    "importers = {}\n"
    "class Watch:\n"
    "    @staticmethod\n"
    "    def find_spec(name, path=None, target=None):\n"
    "        importers.setdefault(name, threading.current_thread().name)\n"
    "sys.meta_path.insert(0, Watch)\n"
)


@pytest.mark.parametrize("command", ["evaluate", "analyze"])
def test_commands_import_their_libraries_from_a_thread_of_their_own(
    tiny_csv: Path, command: str
) -> None:
    """numpy, polars, narwhals and the command's own modules are imported by the
    ``kpr-imports`` thread, near the bottom of its own stack (``kpr.cli.imports``:
    under click's dispatch, CPython 3.11 mapped and unmapped thousands of frame-stack
    chunks)."""
    args = [command, str(tiny_csv), str(tiny_csv), "--known", "age,sex", "--format", "json"]
    own = "kpr.api" if command == "evaluate" else f"kpr.cli.{command}"  # evaluate: in the app
    watched = ["numpy", "polars", "narwhals", "kpr.cli.text", own]
    importers = _after(
        f"{_IMPORTERS}from kpr.cli.app import main\nmain({args!r})",
        f"{{m: importers.get(m) for m in {watched!r}}}",
    )
    assert importers == {m: "kpr-imports" for m in watched}


def test_imported_modules_come_from_a_new_thread_and_errors_come_back(tmp_path: Path) -> None:
    """``imported`` imports polars, numpy and narwhals, then the modules asked for, from
    another thread (a fresh interpreter, watched by a finder), returns the modules and
    raises the import's own error in the calling thread."""
    (tmp_path / "kpr_probe_module.py").write_text("VALUE = 7\n", encoding="utf-8")
    code = (
        f"{_IMPORTERS}sys.path.insert(0, {str(tmp_path)!r})\n"
        "from kpr.cli.imports import imported\n"
        "(probe,) = imported('kpr_probe_module')\n"
        "try:\n"
        "    imported('kpr_no_such_module')\n"
        "except ModuleNotFoundError as exc:\n"
        "    error = exc.name\n"
    )
    report = "[probe.VALUE, error, [m for m, t in importers.items() if t == 'kpr-imports']]"
    value, error, asked = _after(code, report)
    assert (value, error) == (7, "kpr_no_such_module")
    firsts = [m for m in asked if m in ("polars", "numpy", "narwhals", "kpr_probe_module")]
    assert firsts == ["polars", "numpy", "narwhals", "kpr_probe_module"]


def test_report_loads_the_renderer_when_asked(tiny_csv: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    report = tmp_path / "r.html"
    args = ["evaluate", str(tiny_csv), str(tiny_csv), "--known", "age", "--report", str(report)]
    modules = _modules_after(f"from kpr.cli.app import main\nmain({args!r})")
    assert "kpr.render.html" in modules
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_lazy_commands_are_every_command() -> None:
    """Each lazily listed command resolves to the click command of that name."""
    import click

    from kpr.cli.app import LAZY_COMMANDS, cli

    ctx = click.Context(cli)
    for name in LAZY_COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name
    assert cli.list_commands(ctx) == sorted({"evaluate", "demo", *LAZY_COMMANDS})


def test_the_collector_is_off_only_while_the_command_imports(
    tiny_csv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The objects of the start-up are frozen out of the collector's scans once
    the command's imports are done, and the collector runs again from there."""
    import gc

    from kpr.cli import text
    from kpr.cli.app import main

    seen: list[tuple[bool, int]] = []
    started = text.started

    def watched() -> None:
        seen.append((gc.isenabled(), gc.get_freeze_count()))
        started()
        seen.append((gc.isenabled(), gc.get_freeze_count()))

    monkeypatch.setattr(text, "started", watched)
    frozen = gc.get_freeze_count()
    try:
        main(["evaluate", str(tiny_csv), str(tiny_csv), "--known", "age", "--quiet"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    finally:
        gc.unfreeze()
    # off while the command imported, nothing frozen yet (objects an earlier test froze
    # in this process may be freed meanwhile: the count may only go down)
    assert seen[0][0] is False and seen[0][1] <= frozen
    assert seen[1][0] and seen[1][1] > seen[0][1]  # frozen, then on
    assert gc.isenabled()


#: The allocator's variable polars reads when it is loaded, and the option that asks
#: Linux for huge pages for polars' buffers (docs/scale.md: the user's choice).
ALLOCATOR, HUGE_PAGES = "_RJEM_MALLOC_CONF", "thp:always"


def _allocator_after(args: list[str], env: dict[str, str]) -> list[str]:
    """The allocator's options once the CLI's main ran in a fresh interpreter with
    ``env`` (polars not loaded before main; polars adds its own)."""
    code = (
        "from kpr.cli.app import main\n"
        "assert 'polars' not in sys.modules\n"
        f"main({args!r})\n"
        "assert 'polars' in sys.modules"
    )
    options = _after(code, f"os.environ.get({ALLOCATOR!r})", env)
    return options.split(",") if options else []


def _without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}


def test_the_command_leaves_polars_allocator_to_the_user(tiny_csv: Path) -> None:
    """The command sets no allocator option (huge pages made it slower and less
    steady on a virtual machine: docs/benchmarks.md); a user's choice reaches polars
    as it was given."""
    args = ["evaluate", str(tiny_csv), str(tiny_csv), "--known", "age,sex", "--format", "json"]
    assert HUGE_PAGES not in _allocator_after(args, _without(ALLOCATOR))
    chosen = {**_without(ALLOCATOR), ALLOCATOR: HUGE_PAGES}
    assert HUGE_PAGES in _allocator_after(args, chosen)


def _huge_kib(env: dict[str, str]) -> int:
    """AnonHugePages (KiB) of a fresh interpreter once polars made a 256 MB column."""
    probe = (
        "import polars as pl\n"
        "s = pl.int_range(0, 32_000_000, eager=True) * 3\n"
        "rollup = open('/proc/self/smaps_rollup').read().splitlines()\n"
        "print([int(l.split()[1]) for l in rollup if l.startswith('AnonHugePages:')][0])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def _huge_pages_available() -> bool:
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    return setting.exists() and "[madvise]" in setting.read_text()


@pytest.mark.skipif(
    not _huge_pages_available(), reason="transparent huge pages are not on madvise here"
)
def test_polars_allocator_reads_the_options() -> None:
    """polars' buffers sit on huge pages with the options, and not without them
    (were polars to change allocator or stop passing the options on, this would
    tell)."""
    bare = _without(ALLOCATOR, "POLARS_THP")
    assert _huge_kib({**bare, ALLOCATOR: HUGE_PAGES}) >= 128 * 1024
    assert _huge_kib(bare) < 64 * 1024


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux's /proc only")
def test_no_thread_of_the_command_sees_the_environment_change(tmp_path: Path) -> None:
    """Once ``kpr evaluate`` on Parquet runs native threads (polars', which call glibc's
    ``getenv``, reading the original ahead), nothing sets or unsets an environment
    variable: glibc's ``getenv`` beside ``putenv`` or ``unsetenv`` can crash (numpy's
    import set and unset ``OPENBLAS_MAIN_FREE`` then, and a polars thread died in
    ``getenv`` about once in 300 commands). polars' own setting while it is imported,
    before its native threads start, is no such case. Native threads: the process's
    threads (``/proc/self/task``) beyond Python's."""
    import polars as pl

    table = tmp_path / "t.parquet"
    pl.DataFrame({"age": [30, 40, 50], "sex": ["F", "M", "F"]}).write_parquet(table)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    args = ["evaluate", str(table), str(table), "--known", "age,sex", "-q"]
    code = (
        "import os, threading\nlate = []\n"
        "def watch(name):\n"
        "    call = getattr(os, name)\n"
        "    def watched(*a):\n"
        "        if len(os.listdir('/proc/self/task')) > threading.active_count():\n"
        "            late.append([name, str(a[0]), threading.current_thread().name])\n"
        "        return call(*a)\n"
        "    setattr(os, name, watched)\n"
        "watch('putenv')\nwatch('unsetenv')\n"
        f"from kpr.cli.app import main\nmain({args!r})"
    )
    assert _after(code, "late", env) == []
    assert _after(code, "os.environ.get('OPENBLAS_MAIN_FREE')", env) == "1"


@pytest.mark.parametrize("own", [None, "12"])
def test_blas_threads_sleep_while_the_original_is_read_ahead(
    tmp_path: Path, own: str | None
) -> None:
    """``kpr evaluate`` on Parquet asks OpenBLAS's idle threads to sleep at once (they
    would spin on the core the read ahead runs on) before numpy loads, unless the user
    chose a value; a command on CSV files reads nothing ahead and leaves it unset."""
    import polars as pl

    table = tmp_path / "t.parquet"
    pl.DataFrame({"age": [30, 40, 50]}).write_parquet(table)
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if own is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = own
    args = ["evaluate", str(table), str(table), "--known", "age", "-q"]
    code = f"from kpr.cli.app import main\nmain({args!r})"
    seen = _after(code, "os.environ.get('OPENBLAS_THREAD_TIMEOUT')", env)
    assert seen == (own or "4")
    csv = tmp_path / "t.csv"
    pl.read_parquet(table).write_csv(csv)
    args = ["evaluate", str(csv), str(csv), "--known", "age", "-q"]
    code = f"from kpr.cli.app import main\nmain({args!r})"
    assert _after(code, "os.environ.get('OPENBLAS_THREAD_TIMEOUT')", env) == own
