"""Where a quote left open begins (``kpr.inputs.quotes.open_quote``), against a
character-by-character reading of the file, whatever the blocks it is read in."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kpr.inputs.quotes import open_quote

PIECES = st.sampled_from(['"', '""', ",", ";", "\n", "\r\n", "a", "bc", "é", " "])


def reference(text: str, delimiter: str) -> tuple[int, str] | None:
    """The line of the quote opening a field that is still open at the end, and the
    text from the start of its row: a quote opens a field at its start only, ``""``
    inside a quoted field is one quote, a row ends at a line break outside quotes."""
    quoted, opened, previous, i, row, its_row = False, 0, None, 0, 0, 0
    while i < len(text):
        c = text[i]
        if quoted and c == '"':
            if text[i + 1 : i + 2] == '"':
                previous, i = '"', i + 2
                continue
            quoted = False
        elif not quoted and c == '"' and previous in (None, delimiter, "\n", "\r"):
            quoted, opened, its_row = True, text[:i].count("\n") + 1, row
        elif not quoted and c in "\r\n":
            row = i + 1
        previous, i = c, i + 1
    return (opened, text[its_row:]) if quoted else None


def found(path: Path, delimiter: str, block: int) -> tuple[int, str] | None:
    """What :func:`open_quote` finds, as :func:`reference` gives it."""
    quote = open_quote(path, delimiter, block)
    return None if quote is None else (quote.line, quote.row.decode("utf-8", "replace"))


@given(st.lists(PIECES, max_size=40), st.sampled_from([",", ";"]), st.integers(1, 9))
def test_the_open_quote_is_found_in_any_blocks(
    pieces: list[str], delimiter: str, block: int
) -> None:
    text = "".join(pieces)
    with tempfile.TemporaryDirectory() as folder:
        plain, zipped = Path(folder) / "t.csv", Path(folder) / "t.csv.gz"
        plain.write_bytes(text.encode("utf-8"))
        zipped.write_bytes(gzip.compress(text.encode("utf-8")))
        expected = reference(text, delimiter)
        if expected is not None:  # the row's first bytes, as many as Arrow shows
            row = expected[1].encode("utf-8")[:256].decode("utf-8", "replace")
            expected = (expected[0], row)
        assert found(plain, delimiter, block) == expected
        assert found(zipped, delimiter, block) == expected


def test_a_doubled_quote_across_two_blocks_stays_inside(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(b'a,"x""y\n1,2\n')  # blocks of 5 bytes: 'a,"x"' then '"y\n1,'
    assert found(path, ",", 5) == (1, 'a,"x""y\n1,2\n')
    path.write_bytes(b'a,"x"\n1,"2\n')  # the quote at a block's end closes the field
    assert found(path, ",", 5) == (2, '1,"2\n')
