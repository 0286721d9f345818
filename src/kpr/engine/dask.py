"""The Dask backend: its hooks (G persisted in the workers), the ``distributed``
client of the CLI, and reading Parquet files with Dask (only the known columns,
optionally each row's file position)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import narwhals as nw

from kpr.engine.queries import Frame, Hooks, original_groups
from kpr.errors import InputError, MissingDependencyError, first_line
from kpr.inputs.engine_table import FILE_ROW, EngineTable


def dask_client(address: str) -> Any:
    """A ``distributed`` client of the scheduler at ``address`` (``tcp://host:8786``):
    Dask computations of this process then run on that cluster."""
    try:
        import distributed
    except ImportError:
        raise MissingDependencyError("distributed", "dask", "--dask-scheduler") from None
    try:
        return distributed.Client(address, timeout="30s", set_as_default=True)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"could not reach the Dask scheduler {address!r}: {first_line(exc)}"
        ) from None


def dask_inputs(
    original: str,
    avatars: str,
    known: Sequence[str],
    row_id: str | None = None,
    positions: bool = False,
) -> tuple[EngineTable, EngineTable]:
    """Both Parquet files read by Dask (only the known columns and ``row_id``), with
    ``positions``: each row's position in its file (see :func:`dask_positions`)."""
    from kpr.inputs.files import PARQUET_SUFFIXES, check_columns

    try:
        import dask.dataframe as dd
    except ImportError:
        raise MissingDependencyError("dask", "dask", "--engine dask") from None
    columns = [*known, *([row_id] if row_id is not None and row_id not in known else [])]
    tables = []
    for path in (original, avatars):
        p = Path(path)
        if not p.exists():
            raise InputError(f"{path}: no such file; check the path")
        if p.suffix.lower() not in PARQUET_SUFFIXES and not p.is_dir():
            raise InputError(
                f"{path}: --engine dask reads Parquet files; convert the CSV to Parquet "
                "or use --engine polars or spark"
            )
        frame = dd.read_parquet(str(p))
        check_columns(list(frame.columns), columns, path)
        frame = frame[columns]
        if positions:
            frame = dask_positions(frame, FILE_ROW)
        tables.append(EngineTable(frame, False, path, FILE_ROW if positions else None))
    return tables[0], tables[1]


def dask_positions(frame: Any, name: str) -> Any:
    """Column ``name``: each row's position in the frame's order (a Parquet file's
    partitions follow its row groups, in order). A cumulative sum of ones, which
    Dask computes per partition plus the previous partitions' totals: lazy, and
    nothing reaches the client."""
    counted = frame.assign(**{name: 1})
    return counted.assign(**{name: counted[name].cumsum() - 1})


class DaskHooks(Hooks):
    """G persisted in the workers' memory for the three queries."""

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        native = original_groups(original, known, row).to_native()
        with warnings.catch_warnings():  # narwhals' notice that Dask moves to a plugin
            warnings.filterwarnings("ignore", "Dask support", FutureWarning)
            return nw.from_native(native.persist())
