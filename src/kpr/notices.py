"""Warnings that programs can tell apart: text with a stable code.

Each warning is a :class:`Notice`: a ``str`` (its message, so it prints and
compares as text) that also carries a stable ``code``; JSON writes it as
``{"code": ..., "message": ...}``. The codes are listed in
``docs/warnings.md`` and never change meaning.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Every code a warning can carry, with what it means (docs/warnings.md lists them).
CODES = {
    "empty-avatars": "the avatar table has no rows",
    "no-unique-originals": "no original record is unique on the known variables",
    "mostly-missing": "a known variable is missing in more than half of the original rows",
    "few-classes": "a numeric known variable falls into at most two classes",
    "few-distinct-integers": "an integer known variable has at most ten distinct values",
    "identifying-variable": "a known variable is unique on more than 90 % of the rows",
    "control-shares-rows": "the control table repeats records of the original",
    "holdout-shares-rows": "the holdout of a membership attack repeats records of the original",
    "missing-marker": "a known column holds a common missing-value marker read as a value",
    "unequal-sizes": "the avatar table is more than 5 % larger or smaller than the original",
    "other": "a warning without a code of its own",
}


class Notice(str):
    """A warning: its message as text, with a stable ``code``. ``settled`` marks a
    notice that reports a fact and asks for nothing (its message says to keep things as
    they are), so a report does not tell the reader to deal with it first."""

    code: str
    settled: bool

    def __new__(cls, code: str, message: str, *, settled: bool = False) -> Notice:
        if code not in CODES:
            raise ValueError(f"unknown warning code {code!r}")
        self = super().__new__(cls, message)
        self.code = code
        self.settled = settled
        return self

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": str(self)}


def needs_action(warnings: Iterable[str]) -> bool:
    """Whether any warning asks the reader to act (plain strings always do)."""
    return any(not getattr(w, "settled", False) for w in warnings)


def warnings_json(warnings: Iterable[str]) -> list[dict[str, Any]]:
    """Warnings as JSON objects; plain strings (from older code) get no code."""
    return [
        w.to_dict() if isinstance(w, Notice) else {"code": "other", "message": str(w)}
        for w in warnings
    ]
