"""Whole-process ``kpr evaluate`` on large Parquet tables, against a baseline tree
and against the bare read of its input (issue 24).

    python benchmarks/bench_command.py --rows 4_000_000 --baseline /path/to/old/src
    python benchmarks/bench_command.py --rows 100_000_000 --repeats 1 --baseline ...
    python benchmarks/bench_command.py --startup

Each command runs as its own process, in turn (this tree, the baseline, the floor,
this tree, ...), so that a drift of the machine's speed hits all of them alike; the
round's first command changes from round to round (kpr first, then the baseline, then
the floor, ...), because on a virtual machine a process that starts right after one that
freed a gigabyte can run 10-20 % slower (the same command timed against itself, one
right after the other: 0.84x), and a fixed order would hand that to the same command
every time. Give ``--repeats`` a multiple of the number of commands:

- ``kpr``: ``python -m kpr evaluate ORIGINAL AVATARS --known ... --format json``
  with this tree on ``PYTHONPATH``;
- ``baseline``: the same command with ``--baseline`` (the ``src`` folder of
  another checkout, e.g. a ``git worktree`` of an older commit) on ``PYTHONPATH``;
- ``floor``: a bare Python process that imports polars and reads the same
  columns of both files, the least any implementation of the command must do;
- ``kept``: the same reads, both tables held to the end, as a command that compares
  them holds them: the floor frees the first table before it reads the second, whose
  read then reuses its memory (no page faults, no zeroing by the kernel);
- ``fixed``: ``kpr`` on a table of the same shape with 1,000 rows per side: what the
  command costs whatever the table's size (starting Python, its imports, the checks,
  the exit), so that ``fixed / floor`` shows how much of a ratio to the floor is spent
  before any row is counted.

Tables come from ``make_large.py`` (``--shape large``, the default: continuous
income, 100 regions, missing values) or ``make_coarse.py`` (``--shape coarse``: float
ages with 73 values, incomes rounded to hundreds, heights to 0.1, 100 skewed regions,
no missing value), written to ``--data`` once. Per run: wall and CPU seconds and
the peak RSS of the process (``os.wait4``), the commands started by a fresh interpreter
(``turns.rounds_apart``: a child's peak is never below that of the process starting
it); printed: medians, and the ratios kpr/baseline, kpr/floor and kpr/kept (medians of
the per-round ratios). The commands on the same tables must give the same |U| and |S|.

``--startup``: ``kpr --version`` and ``import kpr`` against a bare ``python -c pass``.

Both trees are byte-compiled first (``compileall``), as an installed wheel is:
no run pays for compiling kpr's sources, whatever ``PYTHONDONTWRITEBYTECODE`` says.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from make_coarse import write_coarse  # noqa: E402
from make_data import KNOWN  # noqa: E402
from make_large import write_large  # noqa: E402
from run import compile_trees, header  # noqa: E402
from turns import Commands, Run, median, medians_table, ratio, rounds_apart  # noqa: E402

#: Rows per side of the ``fixed`` command's tables.
FIXED_ROWS = 1_000
#: The table shapes, by ``--shape``.
SHAPES = {"large": write_large, "coarse": write_coarse}


def table(runs: dict[str, list[Run]], against: list[str]) -> None:
    medians_table(runs)
    print("\n| ratio | wall | CPU | peak |")
    print("|---|---:|---:|---:|")
    for other in against:
        cells = [f"{ratio(runs['kpr'], runs[other], w):.2f}x" for w in ("wall", "cpu", "peak")]
        print(f"| kpr / {other} | {' | '.join(cells)} |")


def command_mode(args: argparse.Namespace) -> None:
    o, a = SHAPES[args.shape](args.rows, args.data)
    py = sys.executable

    def evaluate_command(original: Path, avatars: Path) -> list[str]:
        return [py, "-m", "kpr", "evaluate", str(original), str(avatars), "--known",
                ",".join(KNOWN), "--format", "json", "--quiet"]  # fmt: skip

    evaluate = evaluate_command(o, a)
    floor = (
        f"import sys, polars as pl\nfor p in sys.argv[1:]: pl.read_parquet(p, columns={KNOWN!r})\n"
    )
    commands: Commands = {"kpr": (evaluate, SRC)}
    if args.baseline:
        commands["baseline"] = (evaluate, args.baseline)
    commands["floor"] = ([py, "-c", floor, str(o), str(a)], None)
    kept = (
        f"import sys, polars as pl\n"
        f"kept = [pl.read_parquet(p, columns={KNOWN!r}) for p in sys.argv[1:]]\n"
    )
    commands["kept"] = ([py, "-c", kept, str(o), str(a)], None)
    small = SHAPES[args.shape](FIXED_ROWS, args.data, quiet=True)
    commands["fixed"] = (evaluate_command(*small), SRC)
    print(header())
    print(f"{args.rows:,} rows per side from Parquet ({o.name}); known: {', '.join(KNOWN)}; "
          f"{args.repeats} rounds after {args.warmup} uncounted")  # fmt: skip
    runs = rounds_apart(commands, args.repeats, args.warmup, unchecked={"fixed"})
    table(runs, [n for n in commands if n not in ("kpr", "fixed")])
    whole, fixed = (ratio(runs[n], runs["floor"], "wall") for n in ("kpr", "fixed"))
    print(f"\nfixed / floor: {fixed:.2f}x (kpr on {FIXED_ROWS:,} rows per side): of kpr's "
          f"{whole:.2f}x the floor, {whole - fixed:.2f}x grows with the rows")  # fmt: skip


def startup_mode(args: argparse.Namespace) -> None:
    py = sys.executable
    commands: Commands = {
        "kpr": ([py, "-m", "kpr", "--version"], SRC),
        "import": ([py, "-c", "import kpr"], SRC),
        "python": ([py, "-c", "pass"], None),
    }
    labels = {"kpr": "kpr --version", "import": "import kpr", "python": "python -c pass"}
    if args.baseline:
        commands["kpr-base"] = (commands["kpr"][0], args.baseline)
        commands["import-base"] = (commands["import"][0], args.baseline)
        labels |= {"kpr-base": "kpr --version, baseline", "import-base": "import kpr, baseline"}
    print(header())
    runs = rounds_apart(commands, args.repeats, args.warmup)
    print("\n| command | wall (s) | CPU (s) |")
    print("|---|---:|---:|")
    for name, r in runs.items():
        print(f"| {labels[name]} | {median(r, 'wall'):.3f} | {median(r, 'cpu'):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=4_000_000)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="large")
    parser.add_argument("--baseline", type=Path, help="the src folder of the baseline tree")
    parser.add_argument("--startup", action="store_true", help="start-up times only")
    args = parser.parse_args()
    compile_trees(SRC, args.baseline)
    if args.startup:
        startup_mode(args)
    else:
        command_mode(args)


if __name__ == "__main__":
    main()
