"""Whole processes timed in turn: wall and CPU seconds and the peak resident memory of
each (``os.wait4``), with the standard library only.

A child's peak (``ru_maxrss``) is never below the resident high-water mark of the
process that started it: the child begins as a copy of it, and Linux keeps that
copy's mark across ``exec``. A benchmark that imported polars or wrote a table first
would lend its own peak to every command it times (a 1,000-row ``kpr evaluate``
read as 1,034 MiB after a 100M-row table was written). So :func:`rounds_apart` runs the
rounds from a fresh interpreter that imports nothing else (this module, run as a
script), whose own peak is a few MiB.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

Run = dict[str, float]
Commands = dict[str, tuple[list[str], Path | None]]


def run_once(cmd: list[str], src: Path | None) -> tuple[Run, str]:
    """One process (``src`` on its ``PYTHONPATH``): wall, cpu (user + sys) and peak RSS
    (MiB), and its standard output."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src else dict(os.environ)
    with tempfile.TemporaryFile() as stdout:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=stdout, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode() if proc.stderr else ""
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
        stdout.seek(0)
        text = stdout.read().decode()
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "peak": usage.ru_maxrss / 1024}, text


def rounds(
    commands: Commands,
    repeats: int,
    warmup: int,
    unchecked: Iterable[str] = (),
    out: TextIO = sys.stdout,
) -> dict[str, list[Run]]:
    """Every command in turn, ``warmup`` uncounted rounds first, each run's figures
    written to ``out``; the counts of the commands that print ``kpr evaluate``'s JSON
    checked against each other (but those of ``unchecked``: other tables, or JSON with
    no |U| and |S|)."""
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    answers: dict[str, tuple[int, int]] = {}
    names = list(commands)
    for r in range(warmup + repeats):
        turn = (r - warmup) % len(names)  # each command in each place of a round, in turn
        for name in names[turn:] + names[:turn]:
            cmd, src = commands[name]
            figures, text = run_once(cmd, src)
            if text.lstrip().startswith("{") and name not in unchecked:
                result = json.loads(text)
                answers[name] = (result["unique_originals"], result["linked"])
            if r >= warmup:
                runs[name].append(figures)
                print(f"  {name:<9} wall {figures['wall']:7.2f} s  cpu {figures['cpu']:7.2f} s  "
                      f"peak {figures['peak']:8,.0f} MiB", file=out, flush=True)  # fmt: skip
    if len(set(answers.values())) > 1:
        raise SystemExit(f"the commands disagree on (|U|, |S|): {answers}")
    if answers:
        found = next(iter(answers.values()))
        print(f"  every command found (|U|, |S|) = {found}", file=out, flush=True)
    return runs


def rounds_apart(
    commands: Commands, repeats: int, warmup: int, unchecked: Iterable[str] = ()
) -> dict[str, list[Run]]:
    """:func:`rounds` run by a fresh interpreter (see the module's docstring); its
    lines reach this process's standard output as they are written."""
    spec = {
        "commands": {
            n: [cmd, None if src is None else str(src)] for n, (cmd, src) in commands.items()
        },
        "repeats": repeats,
        "warmup": warmup,
        "unchecked": sorted(unchecked),
    }
    sys.stdout.flush()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve())],
        input=json.dumps(spec), stdout=subprocess.PIPE, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(done.returncode)
    return json.loads(done.stdout)


def median(runs: list[Run], what: str) -> float:
    return statistics.median(r[what] for r in runs)


def medians_table(runs: dict[str, list[Run]]) -> None:
    """Each command's median wall, CPU and peak, as a Markdown table."""
    print("\n| command | wall (s) | CPU (s) | peak (MiB) |")
    print("|---|---:|---:|---:|")
    for name, r in runs.items():
        print(f"| {name} | {median(r, 'wall'):.2f} | {median(r, 'cpu'):.2f} | "
              f"{median(r, 'peak'):,.0f} |")  # fmt: skip


def ratio(a: list[Run], b: list[Run], what: str) -> float:
    """The median of the per-round ratios a/b."""
    return statistics.median(x[what] / y[what] for x, y in zip(a, b, strict=True))


def main() -> None:
    """Read a :func:`rounds_apart` spec on stdin, write the runs as JSON on stdout (the
    per-run lines on stderr, which the benchmark shares)."""
    spec = json.load(sys.stdin)
    commands = {
        n: (cmd, None if src is None else Path(src)) for n, (cmd, src) in spec["commands"].items()
    }
    runs = rounds(commands, spec["repeats"], spec["warmup"], spec["unchecked"], sys.stderr)
    json.dump(runs, sys.stdout)


if __name__ == "__main__":
    main()
