"""Parsing and checking CLI option values, so each bad value gets one clear line."""

from __future__ import annotations

import csv
import datetime as dt
import functools
import io
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar, cast

import click

from kpr.checks import MAX_SUBSETS, percentage_text, whole_number_text
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings
from kpr.metric.attack import DEFAULT_TOLERANCE, check_offset, check_tolerance

F = TypeVar("F", bound=Callable[..., Any])


def split_names(values: Iterable[str] | None) -> list[str]:
    """Column names from repeated options, each a comma-separated list.

    Each value is parsed as one CSV record, so a name holding a comma is
    written in double quotes: ``--known '"income, net",age'``.
    """
    names: list[str] = []
    for value in values or []:
        for record in csv.reader([value], skipinitialspace=True):
            names.extend(n.strip() for n in record if n.strip())
    return names


class Checked(click.ParamType):
    """An option's type whose conversion is the API's own check (:mod:`kpr.checks`,
    the metric's tolerance), so both share one rule and one message. A bad value
    raises that check's InputError: one line and exit code 2, as any bad input."""

    def __init__(self, name: str, check: Callable[[Any], Any]) -> None:
        self.name = name
        self._check = check

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return self._check(value)


#: ``--fail-under``: a percentage in [0, 100].
FAIL_UNDER = Checked("percent", lambda text: percentage_text(text, "--fail-under"))
#: ``--target``: a percentage in (0, 100].
TARGET = Checked("percent", lambda text: percentage_text(text, "--target", zero=False))
#: ``--tolerance``: a number in (0, 1).
TOLERANCE_TYPE = Checked("tolerance", check_tolerance)


def whole(option: str, minimum: int, maximum: int | None = None) -> Checked:
    """An option taking a whole number in [minimum, maximum], checked as the API checks it."""
    return Checked("integer", lambda text: whole_number_text(text, option, minimum, maximum))


def tables(second: str = "avatars") -> Callable[[F], F]:
    """The two tables a command compares: ORIGINAL and ``second`` (paths)."""
    return options(
        click.argument("original", type=click.Path(path_type=str)),
        click.argument(second, type=click.Path(path_type=str)),
    )


def candidates_option(help: str) -> Callable[[F], F]:
    """``--candidates``/``-c``: the variables an attacker might know (repeatable, each
    comma-separated), whose subsets a command attacks; ``help`` says how."""
    return click.option("--candidates", "-c", multiple=True, help=help)


#: ``--seed``: what numpy's generators accept.
SEED = whole("--seed", 0)


def requires(ctx: click.Context, needs: dict[str, str]) -> None:
    """Options given on the command line that mean nothing without another one
    (``{"table": "metadata"}``: --table needs --metadata) are refused, not ignored."""
    for name, other in needs.items():
        given = ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        if given and ctx.params.get(other) in (None, False, ()):
            raise click.UsageError(
                f"--{name.replace('_', '-')} applies with --{other.replace('_', '-')}: "
                f"add --{other.replace('_', '-')}, or drop --{name.replace('_', '-')}"
            )


def declared_kinds(
    categorical: Iterable[str], numeric: Iterable[str], date: Iterable[str] = ()
) -> dict[str, str]:
    """``--categorical``, ``--numeric`` and ``--date`` as the ``kinds`` mapping of the API."""
    kinds = {n: "categorical" for n in split_names(categorical)}
    for kind, names in (("numeric", numeric), ("date", date)):
        for n in split_names(names):
            if n in kinds:
                raise InputError(f"{n!r} is declared both --{kinds[n]} and --{kind}; pick one")
            kinds[n] = kind
    return kinds


#: Units an absolute width may carry, in days; a width with a unit is a duration
#: (a ``timedelta``), which only a date or duration variable accepts (see ``kpr.measure``).
_WIDTH_UNITS = {"d": 1.0, "h": 1.0 / 24.0, "min": 1.0 / 1440.0, "s": 1.0 / 86400.0}


def parse_widths(values: Iterable[str]) -> dict[str, float | dt.timedelta]:
    """``--width age=2 --width birth_date=30d``: absolute class widths; a plain number
    is in the variable's unit, a unit (d, h, min, s) makes it a duration."""
    widths: dict[str, float | dt.timedelta] = {}
    for value in values:
        name, sep, text = value.rpartition("=")
        text = text.strip()
        unit = next(
            (u for u in sorted(_WIDTH_UNITS, key=len, reverse=True) if text.endswith(u)), ""
        )
        try:
            width = float(text[: len(text) - len(unit)]) * _WIDTH_UNITS.get(unit, 1.0)
        except ValueError:
            width = math.nan
        if not sep or not name.strip() or not (math.isfinite(width) and width > 0):
            raise InputError(
                f"--width must be NAME=WIDTH with a width > 0, such as age=2 or "
                f"birth_date=30d (units d, h, min, s), got {value!r}"
            )
        widths[name.strip()] = dt.timedelta(days=width) if unit else width
    return widths


def options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Apply several click options in the order they are listed (as ``--help`` shows)."""

    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


def bundle(name: str, build: Callable[..., Any], *decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Click options handed to the command as one argument ``name``: ``build`` is
    called with their values (by parameter name), once, when the command runs."""
    probe: Any = options(*decorators)(cast(Any, lambda: None))
    names = [param.name for param in probe.__click_params__]

    def apply(command: F) -> F:
        @functools.wraps(command)
        def with_bundle(*args: Any, **kwargs: Any) -> Any:
            values = {n: kwargs.pop(n) for n in names}
            return command(*args, **{name: build(**values)}, **kwargs)

        return options(*decorators)(cast(F, with_bundle))

    return apply


FORMAT = click.option(
    "--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text",
    show_default=True, help="text for a person, json for a program.",
)  # fmt: skip
QUIET = click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
TOLERANCE = click.option(
    "--tolerance", "-t", type=TOLERANCE_TYPE, default=str(DEFAULT_TOLERANCE), show_default=True,
    help="Relative tolerance for numeric variables, in (0, 1).",
)  # fmt: skip
GRID_OFFSET = click.option(
    "--grid-offset", type=Checked("fraction", check_offset), default="0",
    help="A check, not the spec's figure: the class grid's origin moved down by this "
    "fraction of each numeric variable's width, in [0, 1) (0.5: half a width).",
)  # fmt: skip
#: The CSV options (what a :class:`~kpr.inputs.reading.ReadSettings` holds).
READ_OPTIONS = (
    click.option("--delimiter", help="CSV delimiter, e.g. ';' or tab (default: sniffed)."),
    click.option("--encoding", help="CSV encoding, e.g. latin-1 (default: sniffed)."),
    click.option(
        "--na-value",
        multiple=True,
        help="CSV text meaning missing, besides an empty field (repeatable).",
    ),
)
#: The reading options, handed to the command as one ``read``: a ReadSettings.
READ = bundle("read", ReadSettings.from_options, *READ_OPTIONS)
#: The declared kinds (what :func:`declared_kinds` reads).
KIND_OPTIONS = (
    click.option("--categorical", multiple=True, help="Known variables to treat as categorical."),
    click.option("--numeric", multiple=True, help="Known variables to treat as numeric."),
    click.option(
        "--date", multiple=True, help="Known variables to treat as dates (ISO 8601 text in CSV)."
    ),
)
#: ``--categorical``, ``--numeric``, ``--date``, handed over as one ``kinds`` mapping.
KINDS = bundle("kinds", declared_kinds, *KIND_OPTIONS)


def name_args(names: Iterable[str]) -> str:
    """Column names as one option value :func:`split_names` reads back (a name holding
    a comma or a quote in double quotes); a name it cannot say (empty, or with spaces
    around it) raises ValueError."""
    for n in names:
        if not n or n != n.strip():
            raise ValueError(f"the column name {n!r} cannot be written as an option value")
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(names)
    return buffer.getvalue()


@dataclass(frozen=True)
class TableSettings:
    """How a measuring command reads its tables and cuts their classes, as one object:
    ``--tolerance`` (None: the API's default, or a command that takes none), the kinds and the
    CSV options. Round-trips the API's keywords (:meth:`keywords`) and the command
    line (:meth:`from_options`, :meth:`to_args`)."""

    tolerance: float | None = None
    kinds: dict[str, str] = field(default_factory=dict)
    read: ReadSettings = field(default_factory=ReadSettings)

    @classmethod
    def from_options(
        cls,
        tolerance: float | None = None,
        categorical: Iterable[str] = (),
        numeric: Iterable[str] = (),
        date: Iterable[str] = (),
        delimiter: str | None = None,
        encoding: str | None = None,
        na_value: Iterable[str] = (),
    ) -> TableSettings:
        """The settings the command line's options give (by their parameter names)."""
        kinds = declared_kinds(categorical, numeric, date)
        return cls(tolerance, kinds, ReadSettings.from_options(delimiter, encoding, na_value))

    def keywords(self) -> dict[str, Any]:
        """As the API's keywords: ``tolerance=`` (when the command has one),
        ``kinds=``, ``delimiter=``, ``encoding=``, ``na_values=``."""
        tolerance = {} if self.tolerance is None else {"tolerance": self.tolerance}
        return {**tolerance, "kinds": self.kinds, **self.read.keywords()}

    def to_args(self) -> list[str]:
        """These settings as command-line arguments, which :meth:`from_options` reads
        back into an equal object; what the command line cannot say raises ValueError."""
        args = [] if self.tolerance is None else ["--tolerance", repr(self.tolerance)]
        for kind in ("categorical", "numeric", "date"):
            names = [n for n, k in self.kinds.items() if k == kind]
            if names:
                args += [f"--{kind}", name_args(names)]
        unknown = set(self.kinds.values()) - {"categorical", "numeric", "date"}
        if unknown:
            raise ValueError(f"the kind {sorted(unknown)[0]!r} has no option")
        return args + self.read.to_args()


#: ``--tolerance``, the kinds and the CSV options, handed over as one
#: ``table_settings``: a :class:`TableSettings`.
TABLE_SETTINGS = bundle(
    "table_settings", TableSettings.from_options, TOLERANCE, *KIND_OPTIONS, *READ_OPTIONS
)
#: The same without ``--tolerance``, for a command that compares columns, not classes.
COLUMN_SETTINGS = bundle("table_settings", TableSettings.from_options, *KIND_OPTIONS, *READ_OPTIONS)
CONTROL_SUBSETS = click.option(
    "--control-subsets",
    type=whole("--control-subsets", 1, MAX_SUBSETS),
    default="20",  # DEFAULT_SUBSETS of kpr.analysis.baselines (not imported: CLI start-up)
    show_default=True,
    help="Random subsets of the larger side (original or control), of the smaller "
    f"side's size, averaged by the control comparison (1 to {MAX_SUBSETS:,}; needs --control).",
)


class ControlKeywords(TypedDict):
    control: str | None
    control_subsets: int
    seed: int


@dataclass(frozen=True)
class Control:
    """``--control``, ``--control-subsets``, ``--seed``: the control comparison."""

    path: str | None
    subsets: int
    seed: int

    def keywords(self) -> ControlKeywords:
        """As the API's keywords (``control=``, ``control_subsets=``, ``seed=``)."""
        return {"control": self.path, "control_subsets": self.subsets, "seed": self.seed}


#: The control options, handed over as one ``control``: a :class:`Control`.
CONTROL = bundle(
    "control",
    lambda control, control_subsets, seed: Control(control, control_subsets, seed),
    click.option(
        "--control",
        type=click.Path(path_type=str),
        help="Individuals of the same population NOT used to make the avatars (CSV or "
        "Parquet): compared with the original at the same size, their rate shows what "
        "population structure alone gives.",
    ),
    CONTROL_SUBSETS,
    click.option(
        "--seed",
        type=SEED,
        default="0",
        show_default=True,
        help="Seed of the control comparison's random subsets (>= 0; needs --control).",
    ),
)
#: Options of CONTROL that mean nothing without ``--control`` (see :func:`requires`).
CONTROL_NEEDS = {"control_subsets": "control", "seed": "control"}
PAIRING = click.option(
    "--pairing",
    type=click.Path(path_type=str),
    help="Who became which avatar (the CSV or Parquet kpr avatarize --pairing-out writes: "
    "original_row, avatar_row; one row per individual, each avatar once; in the ids of "
    "--row-id when it is given): counts the links that are right.",
)
KPR_AVATARS = click.option(
    "--kpr-avatars",
    is_flag=True,
    help="The avatars were made by kpr avatarize: the advice may then speak of k (it does "
    "too when --pairing is given).",
)


class WidthKeywords(TypedDict):
    widths: dict[str, float | dt.timedelta]
    metadata: str | None
    table: str | None


@dataclass(frozen=True)
class Widths:
    """``--width``, ``--metadata``, ``--table``: what fixes the classes of ``evaluate``."""

    widths: dict[str, float | dt.timedelta]
    metadata: str | None
    table: str | None

    def keywords(self) -> WidthKeywords:
        """As the API's keywords (``widths=``, ``metadata=``, ``table=``)."""
        return {"widths": self.widths, "metadata": self.metadata, "table": self.table}


#: The width options, handed over as one ``widths``: a :class:`Widths`.
WIDTHS = bundle(
    "widths",
    lambda width, metadata, table: Widths(parse_widths(width), metadata, table),
    click.option(
        "--width", multiple=True,
        help="Absolute class width of a variable instead of the one computed from the data, "
        "e.g. age=2 or birth_date=30d (repeatable).",
    ),
    click.option(
        "--metadata", type=click.Path(path_type=str),
        help="SDV metadata JSON: kinds from its sdtypes (numerical, datetime, categorical).",
    ),
    click.option("--table", help="The table of multi-table SDV metadata (needs --metadata)."),
)  # fmt: skip
