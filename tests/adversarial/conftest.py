"""The adversarial suite: hostile inputs, each either answered exactly as the
slow reference (``tests/reference.py``) answers, or refused with one clear
line (API: ``kpr.InputError``; CLI: exit 2, one line, no traceback).

Helpers shared by the catalogue files (``test_numbers.py``, ``test_kinds.py``,
``test_names.py``, ``test_fuzz_csv.py``, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import kpr
from tests.conftest import run_cli
from tests.reference import RefResult, reference_kpr


def rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.to_dicts()


def assert_reference(
    got: kpr.KprResult,
    original: Sequence[dict[str, Any]],
    avatars: Sequence[dict[str, Any]],
    known: Sequence[str],
    numeric: set[str],
    tolerance: float = 0.05,
) -> RefResult:
    """Counts, rate, kinds and (numeric) ``lo``/``width`` and statistics equal the
    reference's, bit for bit."""
    ref = reference_kpr(list(original), list(avatars), list(known), numeric, tolerance)
    assert (got.n, got.n_avatars, got.unique_originals, got.linked) == (
        ref.n, ref.n_avatars, ref.unique_originals, ref.linked,
    )  # fmt: skip
    assert got.rate == ref.kpr
    for name in known:
        expected = kpr.Kind.NUMERIC if name in numeric else kpr.Kind.CATEGORICAL
        assert got.variables[name].kind is expected, name
    for name, b in ref.bins.items():
        v = got.variables[name]
        assert (v.lo, v.width, v.mean, v.std) == (b.lo, b.width, b.mean, b.std), name
    return ref


def assert_input_error(call: Callable[[], object], match: str) -> str:
    """The call is refused with one line that matches ``match``."""
    with pytest.raises(kpr.InputError, match=match) as info:
        call()
    message = str(info.value)
    assert "\n" not in message.strip()
    return message


def assert_cli_refuses(argv: list[str], capsys: pytest.CaptureFixture[str], match: str) -> str:
    code, out, err = run_cli(argv, capsys)
    assert code == 2, (code, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert match in lines[0], lines[0]
    return lines[0]


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def assess_argv(
    original: Path | str, synthetic: Path | str, out: Path, known: str, *extra: str
) -> list[str]:
    """``kpr assess`` of two files, attacked on ``known``, into the pack folder ``out``."""
    return ["assess", str(original), str(synthetic), "-c", known, "-o", str(out), *extra]
