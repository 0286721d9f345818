"""The errors kpr raises on bad input or usage: one line that says what is
wrong and how to fix it. The CLI turns them into exit code 2."""

from __future__ import annotations


class KprError(Exception):
    """Base class of kpr's own errors."""


class InputError(KprError, ValueError):
    """The data or the parameters cannot give a correct result."""


class MissingDependencyError(KprError, ImportError):
    """An optional extra is needed for this input or feature."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(f"{purpose} needs the package '{package}': pip install 'kpr[{extra}]'")


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type's name when empty): what a
    one-line error can quote of a library's multi-line message."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
