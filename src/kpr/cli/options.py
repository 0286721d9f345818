"""Parsing and checking CLI option values, so each bad value gets one clear line."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable

from kpr.errors import InputError


def split_names(values: Iterable[str] | None) -> list[str]:
    """Column names from repeated options, each a comma-separated list.

    Each value is parsed as one CSV record, so a name holding a comma is
    written in double quotes: ``--known '"income, net",age'``. A value that
    names one column with commas can also be given alone via ``--known-column``.
    """
    names: list[str] = []
    for value in values or []:
        for record in csv.reader([value], skipinitialspace=True):
            names.extend(n.strip() for n in record if n.strip())
    return names


def parse_fail_under(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        threshold = float(value)
    except ValueError:
        raise InputError(f"--fail-under must be a number in [0, 100], got {value!r}") from None
    if not (math.isfinite(threshold) and 0.0 <= threshold <= 100.0):
        raise InputError(f"--fail-under must be in [0, 100] (a percentage), got {value!r}")
    return threshold


def parse_delimiter(value: str | None) -> str | None:
    if value is None:
        return None
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    value = named.get(value.lower(), value)
    if len(value) != 1:
        raise InputError(f"--delimiter must be one character (or 'tab'), got {value!r}")
    return value
