"""The reconciler (``kpr.inputs.reconcile``) parses the text of an engine other than
polars through the TextParsing its caller gives, never by importing the engines."""

from __future__ import annotations

from typing import Any

import narwhals as nw
import pytest

from kpr.errors import InputError
from kpr.inputs.csv_text import TextParsing
from kpr.inputs.reconcile import prepare
from kpr.metric.attack import Kind, make_attack

duckdb = pytest.importorskip("duckdb")


#: One connection for the module: older DuckDB releases close a connection that is
#: no longer referenced even while its relations are still in use.
_CON = duckdb.connect()


def _relations() -> tuple[Any, Any]:
    con = _CON
    original = con.sql("select * from (values ('30', 'F'), ('41', 'M'), ('52', 'F')) t(age, sex)")
    avatars = con.sql("select * from (values ('30', 'F'), ('41', 'M')) t(age, sex)")
    return original, avatars


def test_text_declared_numeric_is_parsed_by_the_given_engine_parsing() -> None:
    asked: list[tuple[str, ...]] = []

    def facts(frame: Any, name: str) -> tuple[bool, bool, None]:
        asked.append(("facts", name))
        return True, True, None  # some value, integers only, no bad value

    def parse(frame: Any, name: str, integer: bool) -> Any:
        asked.append(("parse", name, str(integer)))
        return frame.with_columns(nw.col(name).str.strip_chars().cast(nw.Int64))

    def unused(*args: object) -> None:
        raise AssertionError("no date column here")

    parsing = TextParsing(facts, parse, lambda frame, name: frame, unused, unused)
    attack = make_attack(["age", "sex"], kinds={"age": "numeric"})
    prepared = prepare(*_relations(), attack, parsing=parsing)
    assert prepared.kinds == {"age": Kind.NUMERIC, "sex": Kind.CATEGORICAL}
    assert prepared.original.select("age").collect()["age"].to_list() == [30, 41, 52]
    assert ("parse", "age", "True") in asked and ("facts", "age") in asked


def test_without_a_parsing_the_text_is_not_guessed() -> None:
    """No engine parsing given: the facts are unknown, and the column is refused as
    text, with the usual one line, not parsed some other way."""
    attack = make_attack(["age", "sex"], kinds={"age": "numeric"})
    with pytest.raises(InputError, match="'age' is numeric in avatars but text in original"):
        prepare(*_relations(), attack)
