"""The errors kpr raises on bad input or usage: one line that says what is
wrong and how to fix it. The CLI turns them into exit code 2.

A line stays short whatever the input holds (a 60 MB cell, a file with no line
break): a quoted value goes through :func:`shown`, and a message that is still
too long is cut in its middle by :func:`bounded` (every kpr error does it)."""

from __future__ import annotations

#: The characters of a value a message quotes whole; a longer one is cut.
VALUE_CHARS = 80
#: The characters of a whole message; a longer one keeps its start and its end
#: (what is wrong, and how to fix it), the middle cut.
MESSAGE_CHARS = 1000


def shown(value: object, limit: int = VALUE_CHARS) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters with an ellipsis
    (``'xxxx…'``, the quotes kept) when the value is longer."""
    text = repr(value)
    if len(text) <= limit:
        return text
    closing = text[-1] if text[-1] in "'\"" else ""
    return f"{text[: limit - 1 - len(closing)]}…{closing}"


def bounded(message: str, limit: int = MESSAGE_CHARS) -> str:
    """``message`` cut in its middle (`` … ``) when longer than ``limit``."""
    if len(message) <= limit:
        return message
    head = (limit * 2) // 3
    tail = limit - head - 3
    return f"{message[:head]} … {message[-tail:]}"


class KprError(Exception):
    """Base class of kpr's own errors: their text is :func:`bounded`."""

    def __str__(self) -> str:
        return bounded(super().__str__())


class InputError(KprError, ValueError):
    """The data or the parameters cannot give a correct result."""


class MissingDependencyError(KprError, ImportError):
    """An optional extra is needed for this input or feature."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(f"{purpose} needs the package '{package}': pip install 'kpr[{extra}]'")


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type's name when empty),
    :func:`bounded`: what a one-line error can quote of a library's message."""
    lines = str(exc).strip().splitlines()
    return bounded(lines[0], 300) if lines else type(exc).__name__


def unreadable(label: str, exc: OSError, wanted: str) -> InputError:
    """The one line for a file that could not be opened or read: ``label`` names it
    (``"original data.csv"``), ``exc`` says why, ``wanted`` what to give instead of a
    folder (``"a .csv or .parquet file"``)."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{label}: no such file; check the path")
    if isinstance(exc, IsADirectoryError):
        return directory_given(label, wanted)
    return InputError(f"{label}: cannot read it ({exc.strerror or exc})")


def directory_given(label: str, wanted: str) -> InputError:
    """The one line for a folder given where a file is wanted."""
    return InputError(f"{label} is a directory; give {wanted}")
