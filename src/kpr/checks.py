"""The checks of parameters that the API and the command line share: one rule and
one message for a percentage or a whole number, whether it came as a Python
value (``kpr.evaluate(...).to_html(threshold=...)``, ``kpr.avatar.tune(target=...)``)
or as the text of an option (``--fail-under``, ``--target``)."""

from __future__ import annotations

import math
import numbers

from kpr.errors import InputError


def percentage(value: object, name: str, *, zero: bool = True, shown: object = None) -> float:
    """A percentage in [0, 100] (or (0, 100] when ``zero`` is False); ``name`` and
    ``shown`` (the value as the user gave it, by default ``value``) go into the message.

    Every caller asks for a rate's percentage (a gate, a target), so a value strictly
    between 0 and 1 is refused: it is a fraction written as SDMetrics' 0-1 scores are
    (0.99 for 99 %), and read as a percentage it makes a gate that never closes."""
    low_ok = (lambda x: x >= 0.0) if zero else (lambda x: x > 0.0)
    interval = "[0, 100]" if zero else "(0, 100]"
    given = value if shown is None else shown
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{name} must be a percentage in {interval}, got {given!r}")
    x = float(value)
    if not (math.isfinite(x) and low_ok(x) and x <= 100.0):
        raise InputError(f"{name} must be a percentage in {interval}, such as 95; got {given!r}")
    if 0.0 < x < 1.0:
        raise InputError(
            f"{name} is a percentage and {given!r} looks like a fraction: "
            f"did you mean {round(x * 100.0, 10):g}?"
        )
    return x


def percentage_text(text: str, option: str, *, zero: bool = True) -> float:
    """An option's text as a percentage (see :func:`percentage`)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # refused below, with the option's own text in the message
    return percentage(value, option, zero=zero, shown=text)


#: The most random subsets a control comparison draws (each is a whole attack).
MAX_SUBSETS = 1000


def whole_number(value: object, name: str, minimum: int, maximum: int | None = None) -> int:
    """A true integer (not a bool, not a float) at least ``minimum`` (and at most
    ``maximum``, a cap that keeps a run within reach)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    whole = int(value)
    if whole < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and whole > maximum:
        raise InputError(f"{name} must be at most {maximum:,}, got {value!r}")
    return whole


def whole_number_text(text: str, option: str, minimum: int, maximum: int | None = None) -> int:
    """An option's text as a whole number (see :func:`whole_number`)."""
    try:
        value: object = int(str(text).strip())
    except ValueError:
        value = text  # refused below, with the option's own text in the message
    return whole_number(value, option, minimum, maximum)


def seed(value: object, name: str = "seed") -> int:
    """A random seed: a whole number >= 0 (what numpy's generators accept)."""
    return whole_number(value, name, 0)


def subsets(value: object, name: str = "subsets") -> int:
    """The count of random subsets of a control comparison, capped at ``MAX_SUBSETS``."""
    return whole_number(value, name, 1, MAX_SUBSETS)


def callback(value: object, name: str = "progress") -> object:
    """A function to call, or None (a progress callback)."""
    if value is not None and not callable(value):
        raise InputError(
            f"{name} must be a function called as {name}(done, total, step), "
            f"or None; got {type(value).__name__}"
        )
    return value
