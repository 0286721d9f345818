"""The worked example of docs/spec.md, read from the page, gives what the page
says: the classes, |U|, |S| and 60 %."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

import kpr

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec.md"


def worked_example() -> str:
    text = SPEC.read_text(encoding="utf-8")
    return text.split("## Worked example", 1)[1].split("\n## ", 1)[0]


def tables(section: str) -> list[pl.DataFrame]:
    """The Markdown tables of a section, in order, with typed columns."""
    found = []
    for block in re.findall(r"(?:^\|.*\|\n)+", section, re.M):
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()]
        header, body = rows[0], rows[2:]
        frame = pl.DataFrame(body, schema=header, orient="row")
        found.append(frame.with_columns(pl.col("age").cast(pl.Float64)).drop("row"))
    return found


def documented_codes(section: str, before: str) -> dict[float, int]:
    """``41 → 0, 52 → 4`` pairs of the sentence that starts with ``before``."""
    sentence = section.split(before, 1)[1].split(".\n", 1)[0]
    return {float(v): int(c) for v, c in re.findall(r"([\d.]+) → (\d+)", sentence)}


def test_the_worked_example_of_the_docs_is_what_kpr_computes() -> None:
    section = worked_example()
    original, avatars = tables(section)
    assert (original.height, avatars.height) == (5, 5)
    result = kpr.evaluate(original, avatars, known=["age", "sex"])
    rate = float(re.search(r"KPR = .*\*\*([\d.]+) %\*\*", section).group(1))  # type: ignore[union-attr]
    assert result.rate == rate == 60.0
    assert result.unique_originals == 3 and result.linked == 2
    age = result.variables["age"]
    assert re.search(rf"width = 0.05 \S 51 = {age.width:g}\b", section)
    assert re.search(rf"lo = 41 \S 0.95394 = {age.lo:.5f}\b", section)
    for before, table in (("The classes of U", original), ("Their classes", avatars)):
        codes = documented_codes(section, before)
        assert codes, before
        for value, code in codes.items():
            assert value in table["age"].to_list()
            assert (value - age.lo) // age.width == code
    linked = result.linked_individuals()
    assert linked["original_row"].to_list() == [2, 4]
