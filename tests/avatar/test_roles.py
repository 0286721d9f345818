"""Column roles: identifiers refused in one line, passed through knowingly, flags."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from kpr.avatar import generate
from kpr.avatar.roles import IDENTIFIER_MIN_ROWS, decide_roles
from kpr.errors import InputError


def _people(n: int = 100) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return pl.DataFrame(
        {
            "age": rng.integers(20, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "note": [f"called on day {i}" for i in range(n)],
        }
    )


def test_identifier_is_refused_in_one_line_naming_it() -> None:
    with pytest.raises(InputError) as info:
        generate(_people(), k=5, seed=0)
    message = str(info.value)
    assert "\n" not in message and "'note': 100 distinct values" in message
    assert "--drop note" in message and "--keep-identifiers note" in message


def test_pandas_identifier_is_refused_too() -> None:
    with pytest.raises(InputError, match="note"):
        generate(_people().to_pandas(), k=5, seed=0)


def test_nearly_unique_is_an_identifier_small_tables_are_not() -> None:
    df = _people().with_columns(
        pl.Series("near", [f"v{i % 95}" for i in range(100)]),  # 95 % distinct
        pl.Series("half", [f"v{i % 50}" for i in range(100)]),
    )
    roles = {c.name: c.role for c in decide_roles("polars", df).columns}
    assert roles == {
        "age": "numeric", "sex": "categorical", "note": "identifier",
        "near": "identifier", "half": "categorical",
    }  # fmt: skip
    small = _people(IDENTIFIER_MIN_ROWS - 1)
    assert decide_roles("polars", small).of("identifier") == []


def test_passthrough_copies_each_individuals_own_value() -> None:
    df = _people()
    gen = generate(df, k=5, seed=0, keep_identifiers=["note"])
    assert gen.avatars.columns == df.columns
    assert gen.avatars["note"].gather(gen.pairing).to_list() == df["note"].to_list()
    assert gen.roles is not None and gen.roles.of("passthrough") == ["note"]
    assert "note" not in gen.projection.columns
    pdf = generate(df.to_pandas(), k=5, seed=0, keep_identifiers="note").avatars
    assert isinstance(pdf, pd.DataFrame) and list(pdf.columns) == df.columns


def test_keep_identifiers_errors() -> None:
    with pytest.raises(InputError, match="unknown column"):
        generate(_people(), k=5, keep_identifiers=["nope"])
    with pytest.raises(InputError, match="'sex', which is not an identifier"):
        generate(_people(), k=5, keep_identifiers=["note", "sex"])


def test_roles_json_and_text() -> None:
    df = _people().with_columns(pl.Series("w", [None] + [1.5 * i for i in range(99)]))
    roles = decide_roles("polars", df, keep_identifiers=["note"])
    d = roles.to_dict()
    by = {c["column"]: c for c in d["columns"]}
    assert by["w"]["missingness"] is True and by["w"]["missing"] == 1
    assert by["age"]["missingness"] is False and by["age"]["dtype"] == "Int64"
    assert by["note"]["role"] == "passthrough"
    text = "\n".join(roles.text())
    assert "numeric + missingness" in text and "passthrough" in text
    assert "1 missing (a missingness companion)" in text


def test_a_score_declared_numeric_stays_a_number() -> None:
    """Numbers with <= 10 distinct values are categories unless declared numeric (the
    Avatar paper's 1-10 scores); declaring a column both ways, or text numeric, is refused."""
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"score": rng.integers(1, 11, 60), "sex": rng.choice(["F", "M"], 60)})
    inferred = {c.name: c.role for c in decide_roles("polars", df).columns}
    assert inferred["score"] == "categorical"
    declared = decide_roles("polars", df, numeric=["score"])
    (score,) = [c for c in declared.columns if c.name == "score"]
    assert score.role == "numeric" and score.reason.startswith("declared numeric")
    with pytest.raises(InputError, match="declared both categorical and numeric"):
        decide_roles("polars", df, categorical=["score"], numeric="score")
    with pytest.raises(InputError, match="'sex' is declared numeric"):
        decide_roles("polars", df, numeric=["sex"])
    with pytest.raises(InputError, match="numeric names unknown column"):
        decide_roles("polars", df, numeric=["nope"])
