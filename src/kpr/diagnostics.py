"""Warnings about an evaluation: signs that the attack or the data are not
what the user thinks, each with the fix in plain words.

Each warning is a :class:`kpr.notices.Notice`: text with a stable code.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from kpr.inputs.kinds import looks_like_codes
from kpr.inputs.markers import MarkerCount
from kpr.metric.attack import Kind
from kpr.notices import Notice
from kpr.results.evaluation import VariableInfo

#: ... but only in tables large enough for few distinct values to be telling.
MIN_ROWS_FOR_CODES = 100
#: At most this many classes over its range: the width swallows the column.
FEW_CLASSES = 2
#: The range over U says whether a column is a code only from this many unique originals.
MIN_UNIQUE_FOR_RANGE = 20
#: A known variable whose value is unique on more than this share of the rows
#: singles individuals out on its own.
IDENTIFIER_SHARE = 0.9
#: A marker in a text column is named from this share of its rows on (0.5 %: 1 row in
#: 200); in a column holding numbers otherwise, from one row.
MARKER_SHARE = 200


def identifier_warnings(unique_rows: Mapping[str, int], n: int) -> list[str]:
    """A known variable whose value is unique on more than 90 % of the rows."""
    out: list[str] = []
    for name, count in unique_rows.items():
        if n and count > IDENTIFIER_SHARE * n:
            share = 100.0 * count / n
            out.append(
                Notice(
                    "identifying-variable",
                    f"{name!r} takes a value found in no other row on {share:.0f} % of the "
                    "original rows: it identifies individuals on its own, so the attack is "
                    "then trivial; keep it out of the known variables unless an attacker "
                    "really knows it, and coarsen or drop it before release",
                )
            )
    return out


def warnings_for(
    variables: Mapping[str, VariableInfo],
    n: int,
    n_avatars: int,
    unique_originals: int,
) -> list[str]:
    out: list[str] = []
    if n_avatars == 0:
        out.append(
            Notice(
                "empty-avatars",
                "the avatar table is empty: nobody can be linked, so the rate is 100 % by "
                "construction; check that you gave the right avatar file",
            )
        )
    if unique_originals == 0:
        out.append(
            Notice(
                "no-unique-originals",
                "no original record is unique on the known variables, so nobody can be "
                "singled out and the rate is 100 % by construction",
            )
        )
    for name, v in variables.items():
        if n and v.missing * 2 > n:
            share = 100.0 * v.missing / n
            out.append(
                Notice(
                    "mostly-missing",
                    f"{name!r} is missing in {share:.0f} % of the original rows: missing "
                    "values match only missing values, so this variable tells the attacker "
                    "little",
                )
            )
        if v.kind is not Kind.NUMERIC:
            continue
        # over a handful of unique originals, a range of two classes means nothing
        few = unique_originals < MIN_UNIQUE_FOR_RANGE
        if v.classes is not None and 0 < v.classes <= FEW_CLASSES and not few:
            out.append(
                Notice(
                    "few-classes",
                    f"{name!r} is numeric but its class width ({v.width:.6g}) covers its "
                    f"whole range in {v.classes} class(es): if it is a code (zip, year, id), "
                    f"declare it categorical (--categorical {name})",
                )
            )
        elif v.distinct is not None and looks_like_codes(v.distinct) and n >= MIN_ROWS_FOR_CODES:
            out.append(
                Notice(
                    "few-distinct-integers",
                    f"{name!r} is an integer column with only {v.distinct} distinct values: "
                    f"if it codes categories, declare it categorical (--categorical {name})",
                )
            )
    return out


def marker_warnings(counts: Mapping[str, MarkerCount]) -> list[str]:
    """A missing-value marker (``?``, ``NA``, ...) read as a value: in a column that
    holds numbers otherwise (wherever found), or in at least 0.5 % of a text column's
    rows; the message names it with the ``--na-value`` to pass."""
    out: list[str] = []
    for name, count in counts.items():
        numeric = count.otherwise_numeric
        found = {m: c for m, c in count.found.items() if numeric or c * MARKER_SHARE >= count.rows}
        if not found:
            continue
        where = ", ".join(
            f"{m!r} in {c:,} row{'s' * (c != 1)} ({100.0 * c / count.rows:.1f} %)"
            for m, c in found.items()
        )
        flags = " ".join(f"--na-value {shlex.quote(m)}" for m in found)
        fix = f"pass {flags} (na_values={[*found]!r} in Python, for files)"
        if numeric:
            text = (
                f"{name!r} holds numbers and {where}: it is read as text, so it is compared "
                f"as a category, each number as a word; if that marks a missing value, {fix} "
                "and it is read as numbers"
            )
        else:
            text = (
                f"{name!r} holds {where}, compared as a value of its own: if that marks a "
                f"missing value, {fix}; missing values then match only missing values"
            )
        out.append(Notice("missing-marker", text))
    return out
