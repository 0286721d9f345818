"""How to read the input files: one frozen object, built once (by the API's keywords
or the command line's options) and passed whole to every reader.

Light on purpose (no data library): the command line builds it while parsing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from kpr.errors import InputError

#: Delimiters the command line accepts by name (``--delimiter tab``).
NAMED_DELIMITERS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


class ReadKeywords(TypedDict, total=False):
    """:class:`ReadSettings` as the keywords of the API's functions
    (``**read: Unpack[ReadKeywords]``): ``delimiter=``, ``encoding=`` (None: sniffed)
    and ``na_values=`` (the texts read as missing, default ``("",)``)."""

    delimiter: str | None
    encoding: str | None
    na_values: Iterable[str]


@dataclass(frozen=True)
class ReadSettings:
    """How to parse CSV files (Parquet files carry their own types); ``None`` means
    sniffed from the file. ``na_values``: the texts read as missing."""

    delimiter: str | None = None
    encoding: str | None = None
    na_values: tuple[str, ...] = ("",)

    def __post_init__(self) -> None:
        """Refuse what is not text (one line, not a TypeError deep in a reader); any
        iterable of markers is kept as a tuple, one text as one marker."""
        for name in ("delimiter", "encoding"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InputError(f"{name} must be a text or None, got {value!r}")
        markers = self.na_values
        if isinstance(markers, str):
            markers = (markers,)
        elif not isinstance(markers, Iterable):
            raise InputError(f"na_values must be a list of texts, got {markers!r}")
        markers = tuple(markers)
        bad = [m for m in markers if not isinstance(m, str)]
        if bad:
            raise InputError(f"na_values must be texts, got {bad[0]!r}")
        object.__setattr__(self, "na_values", markers)

    @classmethod
    def of(cls, read: ReadKeywords) -> ReadSettings:
        """The settings the API's keywords give (those not given keep their default);
        another keyword is a TypeError, as Python's own for a misspelt keyword."""
        unknown = sorted(set(read) - ReadKeywords.__optional_keys__)
        if unknown:
            raise TypeError(
                f"unexpected keyword argument {unknown[0]!r} "
                "(the reading keywords are delimiter, encoding and na_values)"
            )
        return cls(read.get("delimiter"), read.get("encoding"), read.get("na_values", ("",)))  # type: ignore[arg-type]

    @classmethod
    def from_options(
        cls, delimiter: str | None, encoding: str | None, na_value: Iterable[str] = ()
    ) -> ReadSettings:
        """The command line's ``--delimiter`` (one character or a name such as
        ``tab``), ``--encoding`` and ``--na-value`` (markers added to "an empty field
        is missing", so kpr reads back the files it writes with the options that made
        them)."""
        if delimiter is not None:
            delimiter = NAMED_DELIMITERS.get(delimiter.lower(), delimiter)
            if len(delimiter) != 1:
                raise InputError(f"--delimiter must be one character (or 'tab'), got {delimiter!r}")
        return cls(delimiter, encoding, tuple(dict.fromkeys(("", *na_value))))

    def to_args(self) -> list[str]:
        """These settings as command-line arguments: what :meth:`from_options` reads
        back into an equal object (the command that reproduces a run). Settings the
        command line cannot say (an empty field that is not missing) raise ValueError."""
        if self.na_values[:1] != ("",) or len(set(self.na_values)) != len(self.na_values):
            raise ValueError(
                f"na_values {self.na_values!r} cannot be written as --na-value options: "
                "the command line always reads an empty field as missing, first"
            )
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise ValueError(f"the delimiter {self.delimiter!r} is not one character")
        args: list[str] = []
        if self.delimiter is not None:
            args += ["--delimiter", "tab" if self.delimiter == "\t" else self.delimiter]
        if self.encoding is not None:
            args += ["--encoding", self.encoding]
        for marker in self.na_values[1:]:
            args += ["--na-value", marker]
        return args

    def keywords(self) -> ReadKeywords:
        """As the API's keywords (``delimiter=``, ``encoding=``, ``na_values=``)."""
        return {"delimiter": self.delimiter, "encoding": self.encoding, "na_values": self.na_values}
