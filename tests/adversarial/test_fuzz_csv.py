"""A CSV fuzzer: random bytes, quoting, encodings, delimiters and line endings.

Whatever the file, ``kpr.evaluate`` returns a result or raises ``kpr.InputError``
(nothing else), and ``kpr evaluate`` exits 0, 1 or 2 without a traceback.
Budget and randomness come from the hypothesis profile (``tests/conftest.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kpr

from .conftest import run_cli

cells = st.one_of(
    st.sampled_from(
        ["", " ", "30", " 30 ", "-1e308", "1e400", "nan", "inf", "NA", "0x1F", "é", "東京"]
    ),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
    st.integers(-(2**64), 2**64).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def _quote(cell: str, always: bool) -> str:
    if always or any(c in cell for c in ',;\t|"\r\n'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


@st.composite
def csv_files(draw: st.DrawFn) -> tuple[bytes, str]:
    """A CSV-like file (bytes) and the name of its first column."""
    width = draw(st.integers(1, 3))
    names = draw(
        st.lists(
            st.sampled_from(["age", " sex", "x y", "é", "a"]),
            min_size=width,
            max_size=width,
            unique=True,
        )
    )
    body = draw(st.lists(st.lists(cells, min_size=width, max_size=width), max_size=6))
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    quote_all = draw(st.booleans())
    lines = [delimiter.join(_quote(c, quote_all) for c in row) for row in [names, *body]]
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "cp1252", "utf-16"]))
    data = text.encode(encoding, errors="replace")
    if draw(st.booleans()):  # damage: random bytes spliced in
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=8)) + data[at:]
    return data, names[0]


def _write(tmp: Path, name: str, data: bytes) -> str:
    path = tmp / name
    path.write_bytes(data)
    return str(path)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=80)
@given(csv_files(), csv_files())
def test_the_api_raises_only_input_errors(
    tmp_path: Path, original: tuple[bytes, str], avatars: tuple[bytes, str]
) -> None:
    o = _write(tmp_path, "o.csv", original[0])
    a = _write(tmp_path, "a.csv", avatars[0])
    try:
        r = kpr.evaluate(o, a, known=[original[1]])
    except kpr.InputError as exc:
        assert str(exc).strip() and "Traceback" not in str(exc)
    else:
        assert 0.0 <= r.rate <= 100.0 and r.linked <= r.unique_originals <= r.n


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=30)
@given(csv_files())
def test_the_cli_exits_0_1_or_2_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], original: tuple[bytes, str]
) -> None:
    o = _write(tmp_path, "o.csv", original[0])
    code, _out, err = run_cli(["evaluate", o, o, "-k", original[1]], capsys)
    assert code in (0, 1, 2) and "Traceback" not in err
    if code == 2:
        assert len([line for line in err.splitlines() if line.strip()]) == 1, err
