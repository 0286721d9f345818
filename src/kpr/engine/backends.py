"""What differs between the backends the lazy engine runs on.

The metric is written once (``kpr.engine.queries``); this module only decides, per
backend, how G (the original grouped by its raw known values) is built and
kept, and how a query is collected:

- polars: every query runs on polars' streaming engine. Above
  ``HASHED_ROWS`` original rows, G is built without a hash table of every
  distinct tuple: each row's known values are hashed, the hashes sorted
  (8 bytes a row), and only rows whose hash occurs more than once go through
  an exact group-by. A row whose hash is unique has a unique tuple, so this is
  exact whatever the collisions. G is kept in memory up to ``PERSIST_ROWS``
  rows, else recomputed by each query (a 100M-row Parquet file is never
  loaded). Steps 4-5 group the avatars' profiles packed into one exact 64-bit
  integer each (``packed_link``), then semi-join U on the profiles present once.
- Spark: G is ``cache()``-d in the cluster, then unpersisted; only the
  one-row aggregates come back to the driver, never the rows.
- Dask: G is ``persist()``-ed in the workers.
- DuckDB and anything else narwhals supports: recomputed by the database.

It also holds the Spark glue of the CLI: the session, and reading CSV/Parquet
files with Spark the way ``kpr.inputs.files`` and ``kpr.tables`` read them.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries as lazy
from kpr.engine.queries import Frame, Hooks
from kpr.errors import InputError, MissingDependencyError
from kpr.metric.binning import NumericBins

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkFrame
    from pyspark.sql import SparkSession

#: Above this many original rows, polars builds G from row hashes (never a hash
#: table of every distinct tuple) and packs profiles into one integer for steps
#: 4-5 (measured faster from about 25,000 rows on; the only way at 100M rows).
HASHED_ROWS = 25_000
#: Up to this many original rows, polars keeps G in memory for the three queries.
PERSIST_ROWS = 20_000_000

_H = "__kpr_hash__"
_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def _polars(frame: Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


class PolarsHooks(Hooks):
    """Small inputs: G grouped and kept in memory, the link by a semi-join.
    Large inputs: hashed G (kept up to ``PERSIST_ROWS``), packed profiles."""

    def __init__(self, hashed_rows: int | None = None) -> None:
        self.hashed_rows = HASHED_ROWS if hashed_rows is None else hashed_rows
        self.hashed = False

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        lf = _polars(original)
        n = lf.select(pl.len()).collect().item()
        self.hashed = n > self.hashed_rows
        if self.hashed:
            g = nw.from_native(hashed_groups(lf, known, row))
        else:
            g = lazy.original_groups(original, known, row)
        if n <= PERSIST_ROWS:  # small enough to keep: G is read by three queries
            return nw.from_native(_polars(g).collect(engine="streaming").lazy())
        return g

    def collect(self, frame: Frame) -> dict[str, Any]:
        out = _polars(frame).collect(engine="streaming")
        return {k: v[0] for k, v in out.to_dict(as_series=False).items()}

    def link(
        self,
        coded_u: Frame,
        coded_a: Frame,
        keys: list[str],
        bins: Mapping[str, NumericBins],
    ) -> tuple[int, int]:
        u, a = _polars(coded_u).select(keys), _polars(coded_a).select(keys)
        if self.hashed:
            code_bins = {lazy._code_name(v): b for v, b in bins.items()}
            counts = packed_link(u, a, keys, code_bins)
            if counts is not None:
                return counts
        return exact_link(u, a, keys)


def hashed_groups(lf: pl.LazyFrame, known: Sequence[str], row: str | None) -> pl.LazyFrame:
    """G without a hash table of every distinct tuple: rows whose hash is unique
    are groups of one; only rows sharing a hash (true duplicates and the rare
    collisions) are grouped exactly. Same content as ``original_groups``."""
    keys = list(known)
    h = pl.struct(keys).hash().alias(_H)
    hashes = lf.select(h).collect(engine="streaming").to_series().sort()
    values = hashes.to_numpy()
    shared = np.unique(values[1:][values[1:] == values[:-1]])
    del hashes, values
    dupes = pl.LazyFrame({_H: pl.Series(_H, shared, dtype=pl.UInt64)})
    hashed = lf.with_columns(h)
    order = [*keys, *([row] if row else []), lazy._N]
    once = (
        hashed.join(dupes, on=_H, how="anti")
        .with_columns(pl.lit(1, pl.Int64).alias(lazy._N))
        .select(order)
    )
    aggs = [pl.len().cast(pl.Int64).alias(lazy._N)]
    if row is not None:
        aggs.append(pl.col(row).min())
    many = (
        hashed.join(dupes, on=_H, how="semi")
        .group_by(keys)
        .agg(aggs)
        .select(order)
        .collect(engine="streaming")
    )
    return pl.concat([once, many.lazy()], how="vertical")


def exact_link(u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str]) -> tuple[int, int]:
    """m and |S|: polars joins can match null with null, so a semi-join of U's
    codes on the avatar profiles present once replaces the stacked group-by."""
    once = a.group_by(keys).agg(pl.len().alias("c")).filter(pl.col("c") == 1).drop("c")
    linked = u.join(once, on=keys, how="semi", nulls_equal=True).select(pl.len().alias("s"))
    s, m = pl.collect_all([linked, a.select(pl.len().alias("m"))], engine="streaming")
    return int(m.item()), int(s.item())


def packed_link(
    u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str], bins: Mapping[str, NumericBins]
) -> tuple[int, int] | None:
    """m and |S| with each profile packed into one exact 64-bit integer.

    polars' streaming group-by on several keys (or with per-group aggregates)
    takes several GiB at 100M rows; on one integer key it takes a fraction.
    Each code becomes a digit of a mixed-radix number: numeric codes (special
    codes included) shifted to start at 0, text values as their categorical
    ids, booleans and integers as small offsets; missing is digit 0. The
    packing is injective, so the counts are exact. None (use ``exact_link``)
    when a column cannot be packed or the digits need more than 63 bits.
    """
    schema = a.collect_schema()
    text = [k for k in keys if k not in bins and isinstance(schema[k], _TEXT_TYPES)]
    ints = [k for k in keys if k not in bins and schema[k].is_integer()]
    flags = [k for k in keys if k not in bins and schema[k] == pl.Boolean]
    if any(not b.int_codes for b in bins.values()) or len(text) + len(ints) + len(flags) + len(
        bins
    ) != len(keys):
        return None
    ids = {
        k: pl.col(k).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.Int64) for k in text
    }
    ranges = (
        a.select(
            *(ids[k].max().alias(f"{k}__hi") for k in text),
            *(pl.col(k).min().alias(f"{k}__lo") for k in ints),
            *(pl.col(k).max().alias(f"{k}__hi") for k in ints),
        )
        .collect(engine="streaming")
        .row(0, named=True)
        if text or ints
        else {}
    )
    digits: list[tuple[pl.Expr, int]] = []  # (digit, radix), digit in [0, radix) or -1
    for k in keys:
        if k in bins:
            top = bins[k].code_max
            radix = 4 + (0 if top is None else int(top) + 1)
            digits.append((pl.col(k) + 4, radix))
        elif k in flags:
            digits.append((pl.col(k).cast(pl.Int64) + 1, 3))
        elif k in text:
            hi = ranges[f"{k}__hi"]
            radix = 1 if hi is None else int(hi) + 2
            digits.append((ids[k] + 1, radix))
        else:
            lo, hi = ranges[f"{k}__lo"], ranges[f"{k}__hi"]
            if lo is None:  # no avatar value: only missing can match (a column, not a
                # literal, which polars would turn into one row)
                digits.append((pl.when(pl.col(k).is_null()).then(0).otherwise(-1), 1))
                continue
            radix = int(hi) - int(lo) + 2
            if radix >= 2**62:
                return None
            # a U value outside the avatars' range is no digit (-1): subtracting first
            # could wrap around int64 onto a valid digit
            outside = ~pl.col(k).is_between(int(lo), int(hi))
            digits.append((pl.when(outside).then(-1).otherwise(pl.col(k) - int(lo) + 1), radix))
    if math.prod(r for _, r in digits) >= 2**63:
        return None
    key: pl.Expr = pl.lit(0, pl.Int64)
    valid: pl.Expr = pl.lit(True)
    for digit, radix in digits:
        d = digit.fill_null(0)
        key = key * radix + d
        valid = valid & (d >= 0) & (d < radix)
    packed = pl.when(valid).then(key).otherwise(-1).alias(_H)
    counts = a.select(packed).group_by(_H).agg(pl.len().alias("c"))
    once = counts.filter(pl.col("c") == 1).select(_H)
    linked = u.select(packed).join(once, on=_H, how="semi").select(pl.len().alias("s"))
    m = a.select(pl.len().alias("m"))
    s, total = pl.collect_all([linked, m], engine="streaming")
    return int(total.item()), int(s.item())


class SparkHooks(Hooks):
    """G cached in the cluster for the three queries, then released."""

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        native = lazy.original_groups(original, known, row).to_native()
        return nw.from_native(native.cache())

    def release(self, frame: Frame) -> None:
        frame.to_native().unpersist()


class DaskHooks(Hooks):
    """G persisted in the workers' memory for the three queries."""

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        native = lazy.original_groups(original, known, row).to_native()
        with warnings.catch_warnings():  # narwhals' notice that Dask moves to a plugin
            warnings.filterwarnings("ignore", "Dask support", FutureWarning)
            return nw.from_native(native.persist())


def hooks_for(frame: Frame) -> Hooks:
    """The hooks of the backend a prepared frame runs on."""
    impl = frame.implementation
    if impl.is_polars():
        return PolarsHooks()
    if impl.is_spark_like():
        return SparkHooks() if impl.is_pyspark() else Hooks()
    if impl.is_dask():
        return DaskHooks()
    return Hooks()


# --------------------------------------------------------------------------- Spark glue

#: Spark settings of the sessions kpr starts (the CLI's, the tests'): no UI, no
#: console progress bar (kpr shows its own), few shuffle partitions (the
#: aggregates are small), UTC.
SPARK_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.session.timeZone": "UTC",
}


def spark_session(master: str = "local[*]", conf: dict[str, str] | None = None) -> SparkSession:
    """A Spark session for the CLI: quiet (no console progress bar, log level ERROR)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise MissingDependencyError("pyspark", "spark", "--engine spark") from None
    settings = {**SPARK_CONF, **(conf or {})}
    if master.startswith("local"):  # the driver is the whole cluster: give it room
        settings.setdefault("spark.driver.memory", "4g")
    settings.setdefault(
        "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_quiet_log4j()}"
    )
    builder = SparkSession.builder.master(master).appName("kpr")
    for key, value in settings.items():
        builder = builder.config(key, value)
    # PySpark warns about pandas versions on every Arrow transfer: not the user's concern.
    if not any(f[1] and f[1].pattern.startswith("PySpark does not") for f in warnings.filters):
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
    log = Path(tempfile.gettempdir()) / "kpr-spark.log"
    try:
        # The JVM writes its start-up chatter to the stderr it inherits: a log file,
        # so the progress spinner keeps its line.
        with _stderr_to(log):
            session = builder.getOrCreate()
    except Exception as exc:  # no Java, bad master URL, ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not start Spark (master {master!r}): {first}; see {log}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n
"""


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """Point file descriptor 2 at ``path`` for the duration (child processes keep it)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with path.open("ab") as fh:
            os.dup2(fh.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _quiet_log4j() -> str:
    """A log4j2 configuration that logs errors only (no start-up chatter)."""
    path = Path(tempfile.gettempdir()) / "kpr-spark-log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J:
        path.write_text(_LOG4J)
    return str(path)


#: The number grammar polars' string casts accept (what ``kpr.tables`` uses on
#: CSV text): decimal or exponent notation, inf, infinity, nan; ASCII digits.
_FLOAT_RE = (
    r"^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN])$"
)
_INT_RE = r"^[+-]?[0-9]+$"
_NAN_RE = r"^[+-]?[nN][aA][nN]$"


def read_spark(
    session: SparkSession,
    path: str,
    known: Sequence[str],
    label: str,
    delimiter: str | None,
    encoding: str | None,
    na_values: Sequence[str],
) -> tuple[SparkFrame, bool]:
    """Read the known columns of a CSV (all as text) or Parquet file with Spark.

    Returns the frame and whether its columns are untyped text (CSV)."""
    from kpr.inputs.files import PARQUET_SUFFIXES, resolve_columns

    p = Path(path)
    if not p.exists():
        raise InputError(f"{label}: no such file; check the path")
    if p.is_file() and p.stat().st_size == 0:
        raise InputError(f"{label} is empty (0 bytes); give a table with a header row")
    try:
        if p.suffix.lower() in PARQUET_SUFFIXES or p.is_dir():
            frame = session.read.parquet(str(p))
            actual = resolve_columns(frame.columns, known, label)
            return frame.select(*[_quoted(c) for c in actual]), False
        enc, sep = _sniff_csv(p, delimiter, encoding, label)
        if enc.lower() not in _SPARK_CHARSETS:  # Spark 4 takes others only with this
            session.conf.set("spark.sql.legacy.javaCharsets", "true")
        reader = (
            session.read.option("header", "true")
            .option("inferSchema", "false")
            .option("sep", sep)
            .option("encoding", enc)
            .option("quote", '"')
            .option("escape", '"')
            .option("multiLine", "true")
            .option("mode", "FAILFAST")
            .option("nullValue", "\x00kpr-no-null\x00")
            .option("emptyValue", "")
        )
        frame = reader.csv(str(p))
    except InputError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{label}: could not read with Spark ({first})") from None
    columns = [c.lstrip("\ufeff") if i == 0 else c for i, c in enumerate(frame.columns)]
    frame = frame.toDF(*columns)
    actual = resolve_columns(columns, known, label)  # kpr.tables renames them to known
    from pyspark.sql import functions as F

    na = list(na_values)
    out = [
        F.when(F.col(_quoted(c)).isin(na), F.lit(None).cast("string"))
        .otherwise(F.col(_quoted(c)))
        .alias(c)
        if na
        else F.col(_quoted(c))
        for c in actual
    ]
    return frame.select(*out), True


def spark_inputs(
    session: SparkSession,
    original: str,
    avatars: str,
    known: Sequence[str],
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Sequence[str] = ("",),
    row_id: str | None = None,
    positions: bool = False,
) -> tuple[ReadTable, ReadTable]:
    """Both files read by Spark, ready for ``kpr.evaluate``: with the ``row_id``
    column, or with ``positions`` (each row's position in its file, numbered in
    the cluster), so that linked individuals can be reported."""
    columns = [*known, *([row_id] if row_id is not None and row_id not in known else [])]
    tables = []
    for path in (original, avatars):
        frame, untyped = read_spark(session, path, columns, path, delimiter, encoding, na_values)
        if positions:
            frame = with_positions(frame, FILE_ROW)
        tables.append(ReadTable(frame, untyped, path, FILE_ROW if positions else None))
    return tables[0], tables[1]


#: The column of file positions that ``spark_inputs`` adds.
FILE_ROW = "__kpr_file_row__"


def with_positions(frame: SparkFrame, name: str) -> SparkFrame:
    """Each row's position in the frame's order (the file's, for a file read in
    order), numbered by the executors: ``zipWithIndex`` counts each partition's
    rows, then numbers them; nothing but those counts reaches the driver."""
    from pyspark.sql import types as T

    schema = T.StructType([*frame.schema.fields, T.StructField(name, T.LongType(), False)])
    rows = frame.rdd.zipWithIndex().map(lambda pair: (*pair[0], pair[1]))
    return frame.sparkSession.createDataFrame(rows, schema)


#: Python codec names Java spells differently (Spark reads with Java charsets).
_JAVA_CHARSETS = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",  # Spark drops the BOM of the header itself
    "cp1252": "windows-1252",
    "iso8859-1": "ISO-8859-1",
    "utf-16": "UTF-16",
}


#: The charsets Spark 4 reads without ``spark.sql.legacy.javaCharsets``.
_SPARK_CHARSETS = {"iso-8859-1", "us-ascii", "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-8"}


def _sniff_csv(p: Any, delimiter: str | None, encoding: str | None, label: str) -> tuple[str, str]:
    """Encoding (as Java names it) and delimiter, sniffed as ``kpr.inputs.files`` does."""
    from kpr.inputs import files as readers

    enc, sep, _ = readers.sniff_csv(Path(p), delimiter, encoding, label)
    try:
        name = codecs.lookup(enc).name
    except LookupError:
        raise InputError(f"{label}: unknown encoding {enc!r}; e.g. --encoding cp1252") from None
    return _JAVA_CHARSETS.get(name, enc), sep


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass
class ReadTable:
    """A table a backend read from a file, handed to ``kpr.evaluate`` as input:
    ``untyped`` (CSV) columns are text whose kinds ``kpr.tables`` decides, as
    for a CSV file read by polars."""

    frame: Any  # a native lazy frame (a Spark DataFrame)
    untyped: bool
    label: str
    row: str | None = None  #: the column of row positions in the file, when read with them


def text_facts(frame: Frame, name: str) -> tuple[bool, bool, str | None] | None:
    """For a text column: (some value present, every value an integer, the first
    value that is not a number); None when this backend cannot tell."""
    if not frame.implementation.is_pyspark():
        return None
    return spark_text_checks(frame.to_native(), name)


def parse_number(frame: Frame, name: str, integer: bool) -> Frame:
    """Parse a text column into numbers, the way polars parses CSV text."""
    native = frame.to_native()
    others = [_quoted(c) if c != name else spark_number(name, integer) for c in native.columns]
    return nw.from_native(native.select(*others))


def spark_text_checks(frame: SparkFrame, name: str) -> tuple[bool, bool, str | None]:
    """For a text column: (some value present, every value an integer, first non-number)."""
    from pyspark.sql import functions as F

    col = F.col(_quoted(name))
    present = col.isNotNull()
    trimmed = F.trim(col)  # " 30 " is a number, as on polars
    is_float = trimmed.rlike(_FLOAT_RE)
    is_int = (
        trimmed.rlike(_INT_RE) & F.expr(f"try_cast(trim({_quoted(name)}) AS BIGINT)").isNotNull()
    )
    row = frame.select(
        F.max(present.cast("int")).alias("some"),
        F.max((present & ~trimmed.rlike(_NAN_RE)).cast("int")).alias("not_nan"),
        F.min(F.when(present, is_int.cast("int"))).alias("ints"),
        F.first(F.when(present & ~is_float, col), ignorenulls=True).alias("bad"),
    ).collect()[0]
    # a column of numbers holds a value when some number is not NaN (NaN is missing)
    some = row["some"] if row["bad"] is not None else row["not_nan"]
    return bool(some), row["ints"] is None or bool(row["ints"]), row["bad"]


def nan_text_to_null(frame: Frame, name: str) -> Frame:
    """A Spark text column of numbers only: its NaN texts become missing, as
    ``kpr.tables.nan_text_is_missing`` does on polars."""
    from pyspark.sql import functions as F

    native = frame.to_native()
    col = F.col(_quoted(name))
    parsed = F.when(~F.trim(col).rlike(_NAN_RE), col).alias(name)
    others = [_quoted(c) if c != name else parsed for c in native.columns]
    return nw.from_native(native.select(*others))


def spark_number(name: str, integer: bool) -> Any:
    """The Spark expression that parses a text column the way polars does."""
    from pyspark.sql import functions as F

    q = f"trim({_quoted(name)})"
    if integer:
        return F.expr(f"try_cast({q} AS BIGINT)").alias(name)
    lowered = F.lower(F.expr(q))
    special = (
        F.when(lowered.isin("inf", "+inf", "infinity", "+infinity"), F.lit(float("inf")))
        .when(lowered.isin("-inf", "-infinity"), F.lit(float("-inf")))
        .when(lowered.rlike(r"^[+-]?nan$"), F.lit(None).cast("double"))
    )
    return special.otherwise(F.expr(f"try_cast({q} AS DOUBLE)")).alias(name)


# --------------------------------------------------------------------------- Dask glue


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
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not reach the Dask scheduler {address!r}: {first}") from None


def dask_inputs(
    original: str,
    avatars: str,
    known: Sequence[str],
    row_id: str | None = None,
    positions: bool = False,
) -> tuple[ReadTable, ReadTable]:
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
        tables.append(ReadTable(frame, False, path, FILE_ROW if positions else None))
    return tables[0], tables[1]


def dask_positions(frame: Any, name: str) -> Any:
    """Column ``name``: each row's position in the frame's order (a Parquet file's
    partitions follow its row groups, in order). A cumulative sum of ones, which
    Dask computes per partition plus the previous partitions' totals: lazy, and
    nothing reaches the client."""
    counted = frame.assign(**{name: 1})
    return counted.assign(**{name: counted[name].cumsum() - 1})
