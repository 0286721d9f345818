"""``--engine`` and its options: who reads the tables and counts (polars on this machine,
Spark, Dask), shared by the commands that offer a choice (``evaluate``, ``inference``)."""

from __future__ import annotations

import os
import stat
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from kpr.errors import KprError

from .options import bundle

if TYPE_CHECKING:
    from kpr.inputs.reading import ReadSettings
    from kpr.progress import Step


@dataclass(frozen=True)
class Engine:
    """``--engine``, ``--spark-master``, ``--dask-scheduler`` (which implies Dask) and
    ``--row-id``: who reads and evaluates the tables."""

    name: str
    spark_master: str
    dask_scheduler: str | None
    row_id: str | None

    def check(self, pairing: str | None, control: str | None) -> None:
        """Spark and Dask keep no row positions, which a pairing and a control need."""
        if self.name in ("spark", "dask") and (pairing or control) is not None:
            raise KprError(
                f"--pairing and --control need row positions, which --engine {self.name} "
                "does not keep; drop them or use --engine polars"
            )

    def _reads_parquet(self, original: str) -> bool:
        """Whether polars reads the original from Parquet on this machine."""
        from kpr.inputs.ahead import ReadAhead

        polars = self.name == "polars" and self.dask_scheduler is None
        return polars and ReadAhead.applies(original)

    def while_importing(
        self, original: str, avatars: str, columns: list[str], known: int
    ) -> AbstractContextManager[object]:
        """What the command does on its other core while it imports its modules: glibc's
        heap made ready (:meth:`warm_heap`), the original's ``columns`` read
        (:meth:`read_ahead`); all waited for on exit. The environment numpy's import
        would change is set first, before any of their threads starts
        (``imports.before_numpy``)."""
        if self._reads_parquet(original):
            from .imports import before_numpy

            before_numpy()
        with ExitStack() as stack:
            stack.enter_context(self.warm_heap(original, avatars))
            stack.enter_context(self.read_ahead(original, columns, known))
            return stack.pop_all()

    def warm_heap(self, original: str, avatars: str) -> AbstractContextManager[object]:
        """glibc's heap kept, and some of it made ready while the command imports its
        modules (``kpr.cli.heap``), sized by the input files, when polars reads the
        original from Parquet; to enter before any other thread starts."""
        if not self._reads_parquet(original):
            return nullcontext()
        from kpr.engine.tuning import DEFAULT_TUNING

        from .heap import warm_heap

        return warm_heap(DEFAULT_TUNING.warm_bytes(_file_bytes(original) + _file_bytes(avatars)))

    def read_ahead(
        self, original: str, columns: list[str], known: int
    ) -> AbstractContextManager[object]:
        """The original's ``columns`` read while the command imports its modules
        (``kpr.inputs.ahead``), when polars reads it for the in-memory path; not with
        ``--row-id`` (that column is read too). ``known``: how many are known variables."""
        from kpr.inputs.ahead import ReadAhead

        if not self._reads_parquet(original) or self.row_id is not None:
            return nullcontext()
        from kpr.engine.tuning import DEFAULT_TUNING

        accepts = partial(DEFAULT_TUNING.reads_ahead, known=known, columns=len(columns))
        return ReadAhead(original, columns, accepts)

    def tables(
        self, original: str, avatars: str, known: list[str], read: ReadSettings, linked: bool,
        step: Step,
    ) -> tuple[Any, Any]:  # fmt: skip
        """The inputs as ``kpr.evaluate`` takes them: the paths (polars reads them), or
        the tables Spark or Dask read, with row positions when ``linked`` needs them."""
        if self.dask_scheduler is not None:
            from kpr.engine.dask import dask_client

            step("connecting to the Dask scheduler")
            dask_client(self.dask_scheduler)
        if self.name == "dask":
            from kpr.engine.dask import dask_inputs

            positions = linked and not self.row_id
            return dask_inputs(original, avatars, known, self.row_id, positions=positions)
        if self.name == "spark":
            from kpr.engine.spark import spark_inputs, spark_session

            step("starting Spark")
            return spark_inputs(
                spark_session(self.spark_master), original, avatars, known,
                delimiter=read.delimiter, encoding=read.encoding, na_values=read.na_values,
                row_id=self.row_id, positions=linked and self.row_id is None,
            )  # fmt: skip
        return original, avatars


def _engine(
    engine: str, spark_master: str, dask_scheduler: str | None, row_id: str | None = None
) -> Engine:
    return Engine(
        "dask" if dask_scheduler is not None else engine, spark_master, dask_scheduler, row_id
    )


#: Who reads and counts: ``--engine``, ``--spark-master``, ``--dask-scheduler``.
ENGINE_OPTIONS = (
    click.option(
        "--engine",
        type=click.Choice(["polars", "spark", "dask"]),
        default="polars",
        show_default=True,
        help="polars on this machine (streams large Parquet files); Spark: the files are read "
        "and evaluated by Spark (pip install 'kpr[spark]'); Dask: Parquet files read and "
        "evaluated by Dask (pip install 'kpr[dask]').",
    ),
    click.option(
        "--spark-master",
        default="local[*]",
        show_default=True,
        help="Spark master URL for --engine spark, e.g. spark://host:7077.",
    ),
    click.option(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="Address of a running Dask scheduler, e.g. tcp://host:8786 (implies --engine dask).",
    ),
)
#: The engine options and ``--row-id``, handed over as one ``engine``: an :class:`Engine`.
ENGINE = bundle(
    "engine",
    _engine,
    *ENGINE_OPTIONS,
    click.option(
        "--row-id",
        metavar="COLUMN",
        help="A column of integer ids in both files that --linked-out reports instead of row "
        "positions.",
    ),
)
#: The engine options of a command that reports no row (``kpr inference``): an
#: :class:`Engine` without a row id.
COUNTING_ENGINE = bundle("engine", _engine, *ENGINE_OPTIONS)


def _file_bytes(path: str) -> int:
    """The size of the regular file at ``path``; 0 for anything else (the reading
    layer says what is wrong with it)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0
