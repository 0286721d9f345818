"""The Spark backend: its hooks (G cached in the cluster, then released), its
input parsing, the
session of the CLI (quiet log4j, the JVM's start-up chatter in a log file),
reading CSV/Parquet files with Spark the way ``kpr.inputs.files`` and
``kpr.inputs.reconcile`` read them, and parsing Spark text columns (numbers, ISO dates,
epoch days) the way polars does."""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import narwhals as nw

from kpr.engine.queries import Frame, Hooks, original_groups
from kpr.errors import InputError, MissingDependencyError, first_line
from kpr.inputs.dates import US_PER_DAY, days_expr, is_duration
from kpr.inputs.engine_table import FILE_ROW, EngineTable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkFrame
    from pyspark.sql import SparkSession


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
        raise InputError(
            f"could not start Spark (master {master!r}): {first_line(exc)}; see {log}"
        ) from None
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
        # written aside, then renamed: a JVM starting in another process never reads
        # a half-written file (parallel tests, two kpr commands at once)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".kpr-log4j2-")
        with os.fdopen(fd, "w") as fh:
            fh.write(_LOG4J)
        os.replace(tmp, path)
    return str(path)


#: The number grammar polars' string casts accept (what ``kpr.inputs.reconcile`` uses on
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
        raise InputError(f"{label}: could not read with Spark ({first_line(exc)})") from None
    columns = [c.lstrip("\ufeff") if i == 0 else c for i, c in enumerate(frame.columns)]
    frame = frame.toDF(*columns)
    actual = resolve_columns(columns, known, label)  # kpr.inputs.reconcile renames them to known
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
) -> tuple[EngineTable, EngineTable]:
    """Both files read by Spark, ready for ``kpr.evaluate``: with the ``row_id``
    column, or with ``positions`` (each row's position in its file, numbered in
    the cluster), so that linked individuals can be reported."""
    columns = [*known, *([row_id] if row_id is not None and row_id not in known else [])]
    tables = []
    for path in (original, avatars):
        frame, untyped = read_spark(session, path, columns, path, delimiter, encoding, na_values)
        if positions:
            frame = with_positions(frame, FILE_ROW)
        tables.append(EngineTable(frame, untyped, path, FILE_ROW if positions else None))
    return tables[0], tables[1]


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
    """Encoding (as Java names it) and delimiter, sniffed as ``kpr.inputs.sniffing`` does."""
    from kpr.inputs.sniffing import sniff_csv

    enc, sep, _ = sniff_csv(Path(p), delimiter, encoding, label)
    try:
        name = codecs.lookup(enc).name
    except LookupError:
        raise InputError(f"{label}: unknown encoding {enc!r}; e.g. --encoding cp1252") from None
    return _JAVA_CHARSETS.get(name, enc), sep


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


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
    ``kpr.inputs.csv_text.nan_text_is_missing`` does on polars."""
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


#: ``kpr.inputs.dates.ISO_FORMATS`` in Spark's patterns (``XXX`` reads ``Z`` and ``+02:00``).
_SPARK_ISO_FORMATS = (
    "yyyy-MM-dd",
    "yyyy-MM-dd'T'HH:mm",
    "yyyy-MM-dd HH:mm",
    "yyyy-MM-dd'T'HH:mm:ss[.SSSSSSSSS]",
    "yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]",
    "yyyy-MM-dd'T'HH:mm:ss[.SSSSSSSSS]XXX",
    "yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]XXX",
    "yyyy-MM-dd'T'HH:mmXXX",
)


def _spark_iso(col: Any) -> Any:
    """A Spark column of ISO 8601 text as a timestamp (null when in none of the
    forms). kpr's Spark sessions are in UTC, so naive text is read as UTC."""
    from pyspark.sql import functions as F

    text = F.trim(col)
    return F.coalesce(*(F.try_to_timestamp(text, F.lit(f)) for f in _SPARK_ISO_FORMATS))


def spark_iso_facts(frame: Any, name: str) -> str | bool | None:
    """``iso_text_facts`` for a Spark DataFrame of text."""
    from pyspark.sql import functions as F

    col = F.col(_quoted(name))
    present = col.isNotNull()
    bad = F.when(present & _spark_iso(col).isNull(), col)
    row = frame.select(
        F.max(present.cast("int")).alias("some"),
        F.first(bad, ignorenulls=True).alias("bad"),
    ).collect()[0]
    return row["bad"] if row["some"] else False


def spark_days(frame: nw.LazyFrame[Any], name: str, dtype: Any) -> nw.LazyFrame[Any]:
    """Spark has its own epoch functions (narwhals cannot subtract datetimes there)."""
    from pyspark.sql import functions as F

    q = _quoted(name)
    col = F.col(q)
    if dtype == nw.String:  # CSV text of ISO dates
        us = F.unix_micros(_spark_iso(col))
    elif dtype == nw.Date:
        us = F.unix_date(col).cast("double") * float(US_PER_DAY)
    elif isinstance(dtype, nw.Datetime) and dtype.time_zone is None:  # TIMESTAMP_NTZ: wall time
        us = F.expr(f"timestampdiff(MICROSECOND, TIMESTAMP_NTZ'1970-01-01 00:00:00', {q})")
    elif isinstance(dtype, nw.Datetime):  # TIMESTAMP: an instant
        us = F.unix_micros(col)
    else:
        raise TypeError(f"no date conversion for {dtype} on Spark")
    native = frame.to_native()
    days = (us.cast("double") / F.lit(float(US_PER_DAY))).alias(name)
    others = [days if c == name else F.col(_quoted(c)) for c in native.columns]
    return nw.from_native(native.select(*others))


class SparkHooks(Hooks):
    """G cached in the cluster for the three queries, then released."""

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        native = original_groups(original, known, row).to_native()
        return nw.from_native(native.cache())

    def release(self, frame: Frame) -> None:
        frame.to_native().unpersist()


class SparkParsing:
    """Text parsed and dates converted by Spark's own functions
    (``kpr.inputs.csv_text.TextParsing``); durations by the shared expression, as
    ``kpr.engine.parsing.NarwhalsParsing`` converts them. (It does not subclass that
    class: ``kpr.engine.parsing`` chooses this one, so importing it back would make
    a circle.)"""

    def text_facts(self, frame: Frame, name: str) -> tuple[bool, bool, str | None] | None:
        return spark_text_checks(frame.to_native(), name)

    parse_number = staticmethod(parse_number)
    nan_text_to_null = staticmethod(nan_text_to_null)
    iso_facts = staticmethod(spark_iso_facts)

    def to_days(self, frame: Frame, name: str, dtype: Any) -> Frame:
        if is_duration(dtype):  # a duration's microseconds: the shared expression
            return frame.with_columns(days_expr(name, dtype).alias(name))
        return spark_days(frame, name, dtype)
