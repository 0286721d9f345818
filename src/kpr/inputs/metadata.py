"""SDV metadata as a source of kinds (spec, "Inputs").

SDV describes a table's columns by *sdtype*: ``numerical`` is numeric,
``datetime`` a date, ``categorical`` and ``boolean`` categorical. An ``id``
identifies a row and a PII sdtype (email, name, address, ...) is anonymised by
SDV rather than synthesised: neither can be a known variable, so naming one as
known is an error. The JSON dictionary is read directly (single-table
``SINGLE_TABLE_V1``, multi-table ``MULTI_TABLE_V1`` and ``V1``): kpr does not
depend on SDV.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kpr.errors import InputError

#: sdtype -> kind of kpr
SDTYPE_KINDS = {
    "numerical": "numeric",
    "datetime": "date",
    "categorical": "categorical",
    "boolean": "categorical",
}


def metadata_source(metadata: Any) -> str:
    """How messages name the metadata: its file when it is one."""
    return f"metadata {Path(metadata)}" if isinstance(metadata, str | os.PathLike) else "metadata"


def metadata_dict(metadata: Any) -> dict[str, Any]:
    """The metadata as a dict: given as one, as a JSON file, or as an SDV object."""
    source = metadata_source(metadata)
    if isinstance(metadata, str | os.PathLike):
        path = Path(metadata)
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"metadata {path}: cannot read it ({exc.strerror})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"metadata {path} is not JSON ({exc}); give SDV metadata") from None
        metadata = loaded
    elif hasattr(metadata, "to_dict"):
        metadata = metadata.to_dict()
    if not isinstance(metadata, Mapping):
        raise InputError(
            f"{source} must be SDV metadata (a dict, a JSON file or a Metadata object), "
            f"got {type(metadata).__name__}"
        )
    return dict(metadata)


def table_columns(
    metadata: Mapping[str, Any], table: str | None, source: str = "metadata"
) -> Mapping[str, Any]:
    """The ``columns`` of the one table the metadata describes (``table`` for many);
    ``source`` names the metadata in messages (:func:`metadata_source`)."""
    tables = metadata.get("tables")
    if tables is None:
        columns = metadata.get("columns")
        if not isinstance(columns, Mapping):
            raise InputError(f"{source} has neither 'columns' nor 'tables': give SDV metadata")
        if table is not None:
            raise InputError(
                f"--table {table!r} given, but {source} describes one table: drop --table"
            )
        return columns
    if not isinstance(tables, Mapping) or not tables:
        raise InputError(f"{source}: 'tables' is empty; give SDV metadata with a table")
    names = ", ".join(map(repr, tables))
    if table is None:
        if len(tables) > 1:
            raise InputError(f"{source} describes several tables ({names}); name one (--table)")
        table = next(iter(tables))
    if table not in tables:
        raise InputError(f"{source} has no table {table!r}; its tables: {names}")
    columns = tables[table].get("columns") if isinstance(tables[table], Mapping) else None
    if not isinstance(columns, Mapping):
        raise InputError(f"{source}: table {table!r} has no 'columns'")
    return columns


def sdv_kinds(
    metadata: Any, known: str | Iterable[str], table: str | None = None
) -> dict[str, str]:
    """The kinds SDV metadata gives the known variables it describes."""
    columns = table_columns(metadata_dict(metadata), table, metadata_source(metadata))
    names = [known] if isinstance(known, str) else list(known)
    kinds: dict[str, str] = {}
    for name in names:
        spec = columns.get(name)
        if not isinstance(spec, Mapping):
            continue  # not described: kpr infers its kind
        sdtype = str(spec.get("sdtype", ""))
        if sdtype in SDTYPE_KINDS:
            kinds[name] = SDTYPE_KINDS[sdtype]
        elif sdtype == "id":
            raise InputError(
                f"{name!r} is an id in the metadata (sdtype 'id'): an id identifies a row and "
                "is not synthesised, so it cannot be a known variable; remove it from known"
            )
        else:
            raise InputError(
                f"{name!r} is personal information in the metadata (sdtype {sdtype!r}): SDV "
                "anonymises such columns instead of synthesising them, so it cannot be a known "
                "variable; remove it from known, or give it sdtype 'categorical'"
            )
    return kinds
