"""The class rule, written once: which class a value falls in, how a class reads,
and how a profile of classes becomes one integer.

``kpr.metric.binning`` derives a variable's grid (``lo``, ``width``, the codes
members of U take) from statistics over U; this module applies it. A value's
code is ``floor((x - origin) / width)`` in float64 (``origin`` is ``lo``, moved
down by ``offset * width`` on a moved grid: :attr:`NumericBins.origin`) when a
member of U can hold that class, else one of the special classes below.
:func:`code_of` is the reference, one value at a time; each engine runs the
same rule through one of the dialects built here (numpy arrays:
:func:`value_codes`; narwhals lazy expressions, which polars, DuckDB, Spark and
Dask run: :func:`rank_expr` then :func:`class_expr`), and
``tests/metric/test_classes.py`` pins every dialect to :func:`code_of`.

Nothing of numpy or narwhals is imported before a dialect is asked for (``kpr
--version`` loads this package).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import narwhals as nw
    import numpy as np


class Grid(Protocol):
    """What the class rule reads of a variable's bins: ``kpr.metric.binning.NumericBins``
    is one. A protocol, not that class: the binning computes its codes with this
    module's ``rank``, so importing it back would make an import circle."""

    @property
    def origin(self) -> float: ...

    @property
    def width(self) -> float: ...

    @property
    def code_min(self) -> float | None: ...

    @property
    def code_max(self) -> float | None: ...

    @property
    def int_codes(self) -> bool: ...

    @property
    def clip(self) -> tuple[float, float]: ...


# Special codes. In-range codes of members of U are integers >= 0 (because
# ``origin <= lo <= min``), so negative codes never collide with them.
OUTSIDE = -1  #: a finite value whose code no member of U can take
MISSING = -2  #: null / NaN: matches only missing
POS_INF = -3  #: +inf: matches only +inf
NEG_INF = -4  #: -inf: matches only -inf
SPECIALS = (OUTSIDE, MISSING, POS_INF, NEG_INF)
#: ``code + DIGIT_OFFSET`` is a non-negative digit for every code, specials first
#: (0 .. DIGIT_OFFSET - 1), then the classes.
DIGIT_OFFSET = -min(SPECIALS)

#: Float codes whose magnitude is below this are floored; above it every float
#: is already a whole number.
_FLOOR_SAFE = 2.0**52


def rank(x: float, origin: float, width: float) -> float:
    """``floor((x - origin) / width)``, keeping infinities (a finite ``x`` whose
    ``x - origin`` overflows has the class ``±inf``, the spec's IEEE rule)."""
    q = (x - origin) / width
    return q if not math.isfinite(q) else float(math.floor(q))


def code_of(x: float | None, bins: Grid) -> float:
    """The code of one value: its class when a member of U can hold it, else a
    special class. An int when U's codes fit int64 (``bins.int_codes``), as the
    engines return them; a float otherwise."""
    code = _code(x, bins)
    return int(code) if bins.int_codes and math.isfinite(code) else code


def _code(x: float | None, bins: Grid) -> float:
    if x is None:
        return float(MISSING)
    x = float(x)  # integers as the engines read them: cast to float64
    if math.isnan(x):
        return float(MISSING)
    if x == math.inf:
        return float(POS_INF)
    if x == -math.inf:
        return float(NEG_INF)
    if bins.code_min is None or bins.code_max is None:
        return float(OUTSIDE)
    q = rank(x, bins.origin, bins.width)
    return q if bins.code_min <= q <= bins.code_max else float(OUTSIDE)


# -- numpy (the in-memory engine) ------------------------------------------------


def value_codes(
    values: np.ndarray,
    bins: Grid,
    shift: float = 0.0,
    specials: float = 0.0,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Each float64 value's code (float codes), each class less ``shift`` and each
    special code plus ``specials`` (digits: :func:`digit_shift`), in few passes:
    the special codes are only looked for among the values outside U's classes,
    and not at all when every present value is in one of them (most blocks of
    rows: only missing values, NaN, are left). ``out``: a float64 array of the
    values' length to write the codes in (a block loop reuses it: no fresh memory
    for each block)."""
    import numpy as np

    q = np.empty(len(values)) if out is None else out
    if bins.code_min is None or bins.code_max is None:
        q.fill(float(OUTSIDE) + specials)
        rest = np.arange(len(values))
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            np.subtract(values, bins.origin, out=q)
            np.divide(q, bins.width, out=q)
        np.floor(q, out=q)
        # U's top class is inf (its x - origin overflowed): +inf itself is a special
        finite_top = bins.code_max < math.inf
        if (
            finite_top
            and len(q)
            and bins.code_min <= np.fmin.reduce(q)
            and np.fmax.reduce(q) <= bins.code_max
        ):
            q -= shift  # exact: whole numbers below 2**52
            q[np.isnan(q)] = MISSING + specials
            return q
        inside = (q >= bins.code_min) & (q <= bins.code_max)
        if not finite_top:
            inside &= np.isfinite(values)
        if shift:
            q -= shift
        rest = np.flatnonzero(~inside)  # each given its special code below
    odd = values[rest]
    code = np.full(len(odd), float(OUTSIDE))
    code[odd == math.inf] = POS_INF
    code[odd == -math.inf] = NEG_INF
    code[np.isnan(odd)] = MISSING
    q[rest] = code + specials
    return q


def digit_shift(bins: Grid, limit: float) -> tuple[float, int] | None:
    """How a numeric column's codes become small digits shared by both tables:
    ``class - shift`` for the classes, ``code + DIGIT_OFFSET`` for the specials
    (``value_codes(values, bins, shift, DIGIT_OFFSET)``): the shift and the
    digits' radix; None when U's classes span ``limit`` or more (or beyond exact
    float codes)."""
    if bins.code_min is None or bins.code_max is None:
        return 0.0, DIGIT_OFFSET
    span = bins.code_max - bins.code_min
    if span < limit and bins.code_max < _FLOOR_SAFE:
        return bins.code_min - DIGIT_OFFSET, int(span) + 1 + DIGIT_OFFSET
    return None


def code_radix(bins: Grid) -> int:
    """The radix of ``code + DIGIT_OFFSET`` over every code (int codes)."""
    return DIGIT_OFFSET + (0 if bins.code_max is None else int(bins.code_max) + 1)


# -- narwhals lazy expressions (polars, DuckDB, Spark, Dask) ---------------------


def rank_expr(x: nw.Expr, bins: Grid) -> nw.Expr:
    """``floor((x - origin) / width)`` where it matters: clipped just outside U's
    codes first, so that engines whose floor returns a 64-bit integer (Spark)
    never overflow on huge values. ``x`` is float64."""
    import narwhals as nw

    assert bins.code_min is not None and bins.code_max is not None
    r = _quotient_expr(x, bins)
    if bins.int_codes:
        below, above = bins.clip
        return r.clip(below, above).floor()
    # codes beyond 2**62: every float beyond 2**52 is already an integer
    return nw.when(r.abs() < _FLOOR_SAFE).then(r.floor()).otherwise(r)


def _quotient_expr(x: nw.Expr, bins: Grid) -> nw.Expr:
    """``(x - origin) / width`` as the spec computes it (IEEE float64)."""
    import narwhals as nw

    d = x - bins.origin
    # True division by a column, never by a scalar: polars divides by a scalar as
    # a multiplication by its reciprocal, which puts values sitting on a class
    # edge in the class below (the spec forbids it). ``d * 0 + width`` is
    # ``width`` for every finite ``d``. A finite ``x`` whose ``x - origin``
    # overflows has ``d = ±inf``, and the spec's IEEE rule gives it the class
    # ``±inf`` (``inf / width``, width > 0), which members of U may hold too:
    # keep ``d`` there rather than ``inf / (inf * 0 + width)``, which is NaN.
    return nw.when(d.is_finite()).then(d / (d * 0.0 + bins.width)).otherwise(d)


def true_class_expr(x: nw.Expr, bins: Grid) -> nw.Expr:
    """The class of ``x`` by the rule alone, in float64: ``floor((x - origin) /
    width)``, ±inf for ±inf (and for a finite ``x`` whose ``x - origin`` overflows,
    the spec's IEEE rule), missing for missing. Unlike :func:`class_expr`, values
    outside U's range keep their own class (measures over every person, inference,
    need them); the classes of the members of U are the same."""
    import narwhals as nw

    r = _quotient_expr(x.cast(nw.Float64), bins)
    # Spark's floor returns int64: taken only below 2**52 (every float beyond is whole)
    whole = nw.when(r.abs() < _FLOOR_SAFE).then(r.floor()).otherwise(r)
    return whole.cast(nw.Float64) + 0.0  # + 0.0: -0.0 and 0.0 are one class


def class_expr(x: nw.Expr, q: nw.Expr | None, bins: Grid) -> nw.Expr:
    """The code of ``x`` (float64) from its :func:`rank_expr` ``q`` (None: U has
    no finite value): the class when a member of U can hold it, else a special
    class. int64 when ``bins.int_codes``, else float64."""
    import narwhals as nw

    # compared with the infinities, never with 0: NaN > 0 holds on polars (NaN is
    # missing, a class of its own)
    special = (
        nw.when(x.is_finite())
        .then(nw.lit(float(OUTSIDE), nw.Float64))
        .otherwise(
            nw.when(x == float("inf"))
            .then(nw.lit(float(POS_INF), nw.Float64))
            .otherwise(
                nw.when(x == float("-inf"))
                .then(nw.lit(float(NEG_INF), nw.Float64))
                .otherwise(nw.lit(float(MISSING), nw.Float64))
            )
        )
    )
    if q is None:
        expr = special
    else:
        assert bins.code_min is not None and bins.code_max is not None
        # ``x`` finite first: an overflowed class is ``inf`` too, yet +inf itself
        # is its own class
        in_u = x.is_finite() & q.is_between(bins.code_min, bins.code_max)
        expr = nw.when(in_u).then(q).otherwise(special)
    return expr.cast(nw.Int64) if bins.int_codes else expr


# -- profiles packed into one integer --------------------------------------------


def push_digit(key: Any, digit: Any, radix: int, *, out: Any = None) -> Any:
    """One step of the packing of a profile: ``key * radix + digit``, with every
    digit in ``[0, radix)``, so the packing of a profile's digits (mixed radix) is
    injective. ``key`` and ``digit``: numpy arrays (``out``: written in place, any
    integer dtype) or lazy expressions (polars, narwhals)."""
    if out is None:
        packed = key * radix
        packed += digit  # a new array (or expression): ``key`` is left as it is
        return packed
    import numpy as np

    np.multiply(key, radix, out=out, casting="unsafe")
    np.add(out, digit, out=out, casting="unsafe")
    return out


def pack_digits(digits: Sequence[Any], radices: Sequence[int], dtype: Any = None) -> Any:
    """The profiles of digit arrays (numpy), ``radices[i]`` bounding ``digits[i]``,
    each packed into one integer by :func:`push_digit` (``dtype``: int64, or object
    for Python integers when the product of the radices passes int64)."""
    import numpy as np

    dtype = np.int64 if dtype is None else dtype
    key = np.zeros(len(digits[0]), dtype=dtype)
    for digit, radix in zip(digits, radices, strict=True):
        key = push_digit(key, digit.astype(dtype), int(radix))
    return key


# -- how a class reads ------------------------------------------------------------

#: The special classes and how they read.
SPECIAL_LABELS = {
    OUTSIDE: "outside U's range",
    MISSING: "missing",
    POS_INF: "+inf",
    NEG_INF: "-inf",
}
#: The class of finite values whose ``x - lo`` overflows (the spec's IEEE rule gives +inf).
OVERFLOW_LABEL = "x - lo beyond the float range"
_EPOCH = dt.datetime(1970, 1, 1)


def format_edge(x: float, width: float) -> str:
    """A class bound with just enough decimals to tell neighbouring bounds apart."""
    if not (math.isfinite(x) and math.isfinite(width) and width > 0):
        return f"{x:.6g}"
    decimals = 2 - math.floor(math.log10(width))
    if decimals > 10 or abs(x) >= 1e9:
        return f"{x:.6g}"
    return f"{x:.{max(decimals, 0)}f}"


def date_edge(days: float, width: float) -> str:
    """A class bound of a date (days since the epoch) as an ISO date, with the
    time when classes are shorter than a day."""
    try:
        moment = _EPOCH + dt.timedelta(days=days)
    except OverflowError:  # beyond year 9999: the number of days
        return f"{days:.6g} days"
    return moment.strftime("%Y-%m-%d" if width >= 1.0 else "%Y-%m-%d %H:%M")


def interval_label(lower: float, upper: float, width: float, date: bool = False) -> str:
    """``[lower, upper)``: a class holds its lower bound, not its upper one."""
    edge = date_edge if date else format_edge
    return f"[{edge(lower, width)}, {edge(upper, width)})"


def special_labels(int_codes: bool = True) -> dict[float, str]:
    """The special codes (int or float, as the engines return them) and how they
    read; with float codes, the overflow class ``inf`` too."""
    if int_codes:
        return {c: label for c, label in SPECIAL_LABELS.items()}
    return {**{float(c): label for c, label in SPECIAL_LABELS.items()}, math.inf: OVERFLOW_LABEL}


def class_label(code: float, origin: float, width: float, date: bool = False) -> str:
    """The interval of class ``code`` (``origin + code * width`` onwards), or its
    special name."""
    if math.isinf(code):
        return OVERFLOW_LABEL
    if code < 0:
        return SPECIAL_LABELS.get(int(code), f"class {code}")
    return interval_label(origin + code * width, origin + (code + 1) * width, width, date)


def label_of(code: float, bins: Grid, date: bool = False) -> str:
    """How the class ``code`` of a variable binned by ``bins`` reads."""
    return class_label(code, bins.origin, bins.width, date)
