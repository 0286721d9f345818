"""TableSettings: the tolerance, the declared kinds and the CSV options of the measuring
commands, built once from their options, written back as arguments the same options
read into an equal object, and handed to the API as its keywords."""

from __future__ import annotations

from typing import Any

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kpr.cli.options import COLUMN_SETTINGS, TABLE_SETTINGS, TableSettings, name_args, split_names
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings


@click.command()
@TABLE_SETTINGS
def _command(table_settings: TableSettings) -> TableSettings:
    return table_settings


@click.command()
@COLUMN_SETTINGS
def _columns(table_settings: TableSettings) -> TableSettings:
    return table_settings


def parse(args: list[str], command: click.Command = _command) -> TableSettings:
    """What a command decorated with ``TABLE_SETTINGS`` receives for ``args``."""
    result: Any = command.main(args, standalone_mode=False)
    assert isinstance(result, TableSettings)
    return result


#: Column names the command line can say: no empty name, no space around one; commas,
#: quotes, unicode and HTML allowed.
NAMES = st.text(
    st.characters(exclude_categories=["Cs", "Cc", "Zs", "Zl", "Zp"]), min_size=1, max_size=6
)
MARKERS = st.lists(st.text(st.characters(exclude_categories=["Cs"]), max_size=4), max_size=3)


@st.composite
def settings(draw: st.DrawFn) -> TableSettings:
    names = draw(st.lists(NAMES, unique=True, max_size=5))
    kinds = {n: draw(st.sampled_from(["categorical", "numeric", "date"])) for n in names}
    tolerance = draw(st.floats(1e-6, 0.999))
    read = ReadSettings(
        draw(st.none() | st.sampled_from([";", "\t", "|"])),
        draw(st.none() | st.sampled_from(["latin-1", "utf-8"])),
        tuple(dict.fromkeys(["", *draw(MARKERS)])),
    )
    return TableSettings(tolerance, kinds, read)


@given(settings())
def test_to_args_reads_back_into_an_equal_object(table: TableSettings) -> None:
    assert parse(table.to_args()) == table


@given(st.lists(NAMES, min_size=1, max_size=5))
def test_names_with_commas_and_quotes_read_back(names: list[str]) -> None:
    assert split_names([name_args(names)]) == names


def test_defaults_and_the_api_keywords() -> None:
    default = parse([])
    assert default == TableSettings(0.05, {}, ReadSettings())
    assert default.to_args() == ["--tolerance", "0.05"]
    table = parse(["-t", "0.1", "--categorical", "âge du patient,ville", "--date", "né le",
                   "--delimiter", ";", "--na-value", "?"])  # fmt: skip
    assert table.keywords() == {
        "tolerance": 0.1,
        "kinds": {"âge du patient": "categorical", "ville": "categorical", "né le": "date"},
        "delimiter": ";", "encoding": None, "na_values": ("", "?"),
    }  # fmt: skip
    columns = parse(["--numeric", "x"], _columns)
    assert columns.tolerance is None and "tolerance" not in columns.keywords()
    assert columns.to_args() == ["--numeric", "x"]
    assert parse(columns.to_args(), _columns) == columns


def test_what_the_command_line_cannot_say_is_refused() -> None:
    with pytest.raises(InputError, match="declared both --categorical and --numeric"):
        parse(["--categorical", "a", "--numeric", "a"])
    with pytest.raises(ValueError, match="cannot be written"):
        TableSettings(kinds={" a": "numeric"}).to_args()
    with pytest.raises(ValueError, match="has no option"):
        TableSettings(kinds={"a": "text"}).to_args()
