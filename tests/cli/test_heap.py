"""glibc's heap kept and made ready while the command imports (``kpr.cli.heap``): the
engine's arrays reuse the pages written ahead; nothing changes where glibc is not the
C library or the inputs are small; the command prints what the API computes.

Whatever sets ``mallopt`` runs in a fresh interpreter: the settings hold for the whole
process, and the test suite's own process keeps glibc's defaults."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.cli import heap
from kpr.cli.heap import CHUNK, warm_heap
from kpr.engine.tuning import Tuning

needs_glibc = pytest.mark.skipif(heap.glibc() is None, reason="glibc's mallopt only")


def _fresh(code: str) -> str:
    """What ``code`` prints in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_heap_is_sized_by_the_input_files_up_to_a_cap() -> None:
    tuning = Tuning()
    assert tuning.warm_bytes(0) == 0
    assert tuning.warm_bytes(10_000) == 10_000 * tuning.warm_per_file_byte
    assert tuning.warm_bytes(tuning.warm_files_limit) == tuning.warm_cap
    assert tuning.warm_bytes(tuning.warm_files_limit + 1) == 0  # large inputs: none
    assert Tuning(warm_per_file_byte=0).warm_bytes(10**8) == 0
    assert Tuning(memory_bytes=64 << 20).warm_bytes(10**8) == 16 << 20  # a small machine


_REUSE = """
import resource
import numpy as np
from kpr.cli import heap
from kpr.cli.heap import CHUNK, warm_heap
{setup}
with warm_heap(4 * CHUNK) as chunks:
    pass
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
arrays = [np.ones(3_500_000) for _ in range(2)]  # 26.7 MiB each, written
print(len(chunks), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@needs_glibc
def test_numpys_arrays_reuse_the_pages_written_ahead() -> None:
    """Two 27 MiB arrays made after the heap was warmed take no fresh page (the
    kernel's page faults were taken ahead); without the ``mallopt`` settings glibc
    maps them afresh: at least one fault per 2 MiB huge page, 4 KiB pages otherwise."""
    chunks, faults = map(int, _fresh(_REUSE.format(setup="")).split())
    assert chunks == 4 and faults < 8
    chunks, faults = map(int, _fresh(_REUSE.format(setup="heap._KEPT = ()")).split())
    assert chunks == 4 and faults >= 26


def test_nothing_is_done_where_glibc_is_not_the_c_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(heap, "glibc", lambda: None)
    before = threading.active_count()
    with warm_heap(4 * CHUNK) as chunks:
        assert threading.active_count() == before  # no thread started
    assert chunks == []


def test_a_heap_of_less_than_a_block_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small inputs: glibc is not even asked for (so no ``mallopt`` in this process)."""

    def asked() -> None:
        raise AssertionError("glibc asked for")

    monkeypatch.setattr(heap, "glibc", asked)
    with warm_heap(CHUNK - 1) as chunks:
        pass
    assert chunks == []


@needs_glibc
def test_the_thread_has_ended_when_the_block_does() -> None:
    code = (
        "import threading\nfrom kpr.cli.heap import CHUNK, warm_heap\n"
        "with warm_heap(2 * CHUNK) as chunks:\n    pass\n"
        "print(len(chunks), [t.name for t in threading.enumerate()])"
    )
    assert _fresh(code).strip() == "2 ['MainThread']"


def test_evaluate_warms_the_heap_for_parquet_and_prints_the_apis_figures(
    tmp_path: Path,
) -> None:
    """On Parquet files of several MB (enough for a block), ``kpr evaluate`` warms the
    heap (where glibc is the C library) and prints what the API computes; on CSV files
    it does not warm it."""
    rng = np.random.default_rng(7)
    n = 600_000
    table = pl.DataFrame(
        {
            "âge": rng.integers(18, 90, n).astype(np.float64),
            "income": rng.normal(30_000, 9_000, n).round(2),
            "sex code": rng.choice(["F", "M"], n),
        }
    )
    original, avatars = tmp_path / "original data.parquet", tmp_path / "avatars.parquet"
    table.write_parquet(original)
    table.sample(n, with_replacement=True, seed=3).write_parquet(avatars)
    known = ["âge", "income", "sex code"]
    expected = kpr.evaluate(original, avatars, known=known)
    args = ["evaluate", str(original), str(avatars), "--known", ",".join(known)]
    code = (
        "import json, sys\nfrom kpr.cli import heap\nwarmed = []\n"
        "from contextlib import contextmanager\nwarm_ = heap.warm_heap\n"
        "@contextmanager\ndef watched(size):\n    with warm_(size) as chunks:\n"
        "        yield chunks\n    warmed.append(len(chunks))\n"
        "heap.warm_heap = watched\n"
        "from kpr.cli.app import _main\n"
        "try:\n"
        f"    _main({[*args, '--format', 'json', '-q']!r})\n"
        "except SystemExit:\n    pass\n"
        "print(json.dumps(warmed), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert (printed["unique_originals"], printed["linked"]) == (
        expected.unique_originals,
        expected.linked,
    )
    warmed = json.loads(done.stderr.strip().splitlines()[-1])
    blocks = Tuning().warm_bytes(original.stat().st_size + avatars.stat().st_size) // CHUNK
    assert blocks >= 1  # files large enough for the heap to be warmed
    assert warmed == [blocks if heap.glibc() else 0]
    csv = tmp_path / "original.csv"
    table.write_csv(csv)
    code_csv = code.replace(repr(str(original)), repr(str(csv)))
    done = subprocess.run(
        [sys.executable, "-c", code_csv], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []  # no heap warmed
