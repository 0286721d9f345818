"""kpr.utility scores a table with the kinds ``kpr avatarize`` gives its columns (a
number with at most 10 distinct values is a category) and says which it used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.avatar import _table as tb
from kpr.avatar.roles import column_roles
from kpr.cli.app import main


def _census(n: int, seed: int, kids_top: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "kids": rng.integers(0, kids_top, n),
            "score": rng.choice(np.array([0.5, 1.5, 2.5]), n),
            "sex": rng.choice(np.array(["F", "M"]), n),
        }
    )


def test_few_distinct_numbers_are_scored_as_avatarize_treats_them() -> None:
    o, s = _census(500, 0), _census(400, 1, kids_top=5)
    got = kpr.utility(o, s)
    declared = kpr.utility(o, s, kinds={"kids": "categorical", "score": "categorical"})
    assert got.codes == ("kids", "score") and declared.codes == ()
    assert got.columns.equals(declared.columns) and got.pairs.equals(declared.pairs)
    roles = column_roles("polars", o)
    kinds = dict(got.columns.select("column", "kind").iter_rows())
    assert kinds == {name: str(role) for name, role in roles.items()}
    assert got.to_dict()["codes_as_categories"] == ["kids", "score"]
    assert "kids, score" in got.kinds_used and "--numeric" in got.kinds_used


def test_a_declared_kind_wins_and_eleven_values_stay_numbers() -> None:
    o, s = _census(500, 0), _census(400, 1)
    numeric = kpr.utility(o, s, kinds={"kids": "numeric"})
    assert numeric.codes == ("score",)
    assert dict(numeric.columns.select("column", "kind").iter_rows())["kids"] == "numeric"
    wide = _census(500, 0, kids_top=11)
    assert "kids" not in kpr.utility(wide, wide).codes
    metadata = {"columns": {c: {"sdtype": "numerical"} for c in ("kids", "score")}}
    assert kpr.utility(o, s, metadata=metadata).codes == ()
    assert tb.column_names(o) == ["age", "kids", "score", "sex"]


def test_the_command_states_the_kinds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _census(300, 0).write_csv(tmp_path / "o.csv")
    _census(300, 1).write_csv(tmp_path / "s.csv")
    with pytest.raises(SystemExit) as done:
        main(["utility", str(tmp_path / "o.csv"), str(tmp_path / "s.csv"), "-q"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert "Kinds used: numeric: age; categorical: kids, score, sex." in out
    assert "as kpr avatarize treats them" in out and "kids, score" in out
