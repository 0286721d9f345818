"""ReadSettings: built once by the command line's options, written back as arguments
that the same options read into an equal object."""

from __future__ import annotations

from typing import Any

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kpr.cli.options import READ
from kpr.errors import InputError
from kpr.inputs.reading import NAMED_DELIMITERS, ReadSettings


@click.command()
@READ
def _command(read: ReadSettings) -> ReadSettings:
    return read


def parse(args: list[str]) -> ReadSettings:
    """What a command decorated with ``READ`` receives for ``args``."""
    result: Any = _command.main(args, standalone_mode=False)
    assert isinstance(result, ReadSettings)
    return result


#: Any text click can carry (no surrogates), dashes and equal signs included.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)
DELIMITERS = st.one_of(
    st.none(), st.characters(exclude_categories=["Cs"]), st.sampled_from(sorted(NAMED_DELIMITERS))
)


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    args: list[str] = []
    delimiter = draw(DELIMITERS)
    if delimiter is not None:
        args += ["--delimiter", delimiter]
    encoding = draw(st.none() | TEXT)
    if encoding is not None:
        args += ["--encoding", encoding]
    for marker in draw(st.lists(TEXT, max_size=4)):
        args += ["--na-value", marker]
    return args


@given(command_lines())
def test_to_args_reads_back_into_an_equal_object(args: list[str]) -> None:
    settings = parse(args)
    assert parse(settings.to_args()) == settings
    assert settings.na_values[0] == ""  # an empty field is always missing on the command line


@given(DELIMITERS.filter(lambda d: d is None or len(d) == 1), st.none() | TEXT, st.lists(TEXT))
def test_settings_the_command_line_can_say_round_trip(
    delimiter: str | None, encoding: str | None, markers: list[str]
) -> None:
    settings = ReadSettings(delimiter, encoding, tuple(dict.fromkeys(["", *markers])))
    assert parse(settings.to_args()) == settings


def test_defaults_and_named_delimiters() -> None:
    assert parse([]) == ReadSettings() and ReadSettings().to_args() == []
    tab = parse(["--delimiter", "TAB", "--na-value", "N/A", "--na-value", "N/A"])
    assert tab == ReadSettings("\t", None, ("", "N/A"))
    assert tab.to_args() == ["--delimiter", "tab", "--na-value", "N/A"]
    assert parse(["--delimiter", "semicolon"]).delimiter == ";"


def test_what_the_command_line_cannot_say_is_refused() -> None:
    with pytest.raises(InputError, match="--delimiter must be one character"):
        parse(["--delimiter", ";;"])
    with pytest.raises(ValueError, match="empty field as missing"):
        ReadSettings(na_values=("NA",)).to_args()
    with pytest.raises(ValueError, match="not one character"):
        ReadSettings(delimiter="").to_args()


def test_the_api_keywords_are_the_fields() -> None:
    settings = ReadSettings(";", "latin-1", ("", "?"))
    assert settings.keywords() == {"delimiter": ";", "encoding": "latin-1", "na_values": ("", "?")}
    assert ReadSettings.of(settings.keywords()) == settings
    assert ReadSettings.of({}) == ReadSettings()
    assert ReadSettings.of({"na_values": ["", "NA"]}).na_values == ("", "NA")


def test_a_misspelt_reading_keyword_is_refused_by_the_api(tmp_path: Any) -> None:
    """``**read`` takes only the reading keywords: a typo is a TypeError, as a
    misspelt keyword of an explicit signature, before any file is read."""
    import kpr
    from kpr.analysis import analyze

    missing = str(tmp_path / "absent.csv")
    for call in (kpr.evaluate, analyze):
        with pytest.raises(TypeError, match="'delimeter'"):
            call(missing, missing, ["age"], delimeter=";")  # type: ignore[call-arg]
