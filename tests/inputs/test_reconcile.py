"""The reconciler (``kpr.inputs.reconcile``) parses the text of an engine other than
polars through the engine parsing its caller gives (``kpr.engine.parsing.parsing_for``),
never by importing the engines: one dispatch, apart from counting."""

from __future__ import annotations

from typing import Any

import narwhals as nw
import pytest

from kpr.engine.parsing import parsing_for
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


class _Facts:
    """Hooks that say a text column holds integers only, recording what is asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def text_facts(self, frame: Any, name: str) -> tuple[bool, bool, None]:
        self.asked.append(("facts", name))
        return True, True, None  # some value, integers only, no bad value

    def to_days(self, frame: Any, name: str, dtype: Any) -> Any:
        raise AssertionError("no date column here")


class _Parsing(_Facts):
    """Hooks that also parse text themselves, as Spark's do."""

    def parse_number(self, frame: Any, name: str, integer: bool) -> Any:
        self.asked.append(("parse", name, str(integer)))
        return frame.with_columns(nw.col(name).str.strip_chars().cast(nw.Int64))

    def nan_text_to_null(self, frame: Any, name: str) -> Any:
        return frame

    def iso_facts(self, native: Any, name: str) -> str | bool | None:
        raise AssertionError("no date column here")


def test_text_declared_numeric_is_parsed_by_the_given_engine_hooks() -> None:
    hooks = _Parsing()
    attack = make_attack(["age", "sex"], kinds={"age": "numeric"})
    prepared = prepare(*_relations(), attack, parsing=lambda frame: hooks)
    assert prepared.kinds == {"age": Kind.NUMERIC, "sex": Kind.CATEGORICAL}
    assert prepared.original.select("age").collect()["age"].to_list() == [30, 41, 52]
    assert ("parse", "age", "True") in hooks.asked and ("facts", "age") in hooks.asked


def test_hooks_that_do_not_parse_text_are_never_asked_to() -> None:
    """An engine whose hooks know what a text column holds but do not parse text
    themselves is refused in one line, never handed another engine's parser."""
    hooks = _Facts()
    attack = make_attack(["age", "sex"], kinds={"age": "numeric"})
    with pytest.raises(InputError, match="kpr cannot parse the text columns of this engine"):
        prepare(*_relations(), attack, parsing=lambda frame: hooks)
    assert ("facts", "age") in hooks.asked


def test_the_engine_parsing_is_the_text_parsing() -> None:
    """Spark's parsing parses text (the reconciler's TextParsing); the other engines'
    does not, and a DuckDB text column is not parsed, as before."""
    from kpr.engine.parsing import NarwhalsParsing
    from kpr.engine.spark import SparkParsing

    assert isinstance(SparkParsing(), TextParsing)
    assert not isinstance(NarwhalsParsing(), TextParsing)
    original, _ = _relations()
    frame = nw.from_native(original)
    assert not isinstance(parsing_for(frame), TextParsing)
    assert parsing_for(frame).text_facts(frame, "age") is None


def test_without_a_parsing_the_text_is_not_guessed() -> None:
    """No engine parsing given: the facts are unknown, and the column is refused as
    text, with the usual one line, not parsed some other way."""
    attack = make_attack(["age", "sex"], kinds={"age": "numeric"})
    with pytest.raises(InputError, match="'age' is numeric in avatars but text in original"):
        prepare(*_relations(), attack)


@pytest.mark.parametrize("probe", [2, 10_000])
def test_a_value_after_the_first_rows_is_found(monkeypatch: pytest.MonkeyPatch, probe: int) -> None:
    """Whether a numeric column holds a value is asked of the first rows, then of
    every row for the columns with none there: a column whose only value comes
    late is numeric, one with no value (null or NaN) is compared as a category."""
    import polars as pl

    import kpr
    from kpr.inputs import reconcile

    monkeypatch.setattr(reconcile, "_PROBE_ROWS", probe)
    late = [None] * 5 + [3.0]
    original = pl.DataFrame(
        {"late": late, "nan": [float("nan")] * 6, "none": pl.Series([None] * 6, dtype=pl.Int64)}
    )
    result = kpr.evaluate(original, original, known=["late", "nan", "none"])
    kinds = {v: variable.kind for v, variable in result.variables.items()}
    assert kinds == {"late": Kind.NUMERIC, "nan": Kind.CATEGORICAL, "none": Kind.CATEGORICAL}
