"""Where a result finds its HTML views without importing the renderers.

Results sit below ``kpr.render`` (the pages import the results they draw), so a
result's ``to_html``/``_repr_html_`` look their renderer up here; ``kpr.render``
registers one ``Views`` per result type when imported. The first lookup loads it
by name (``RENDERERS``), like a plugin: no static import from results to the
renderers, and nothing renders, nor is imported, until a page is asked for
(``import kpr`` and the command line stay fast).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload


@dataclass(frozen=True)
class Views:
    """The HTML views of one result type: the page (returned or written), Jupyter's,
    and the ``section`` another page embeds (the evaluation report's inference block)."""

    render: Callable[..., str]
    write: Callable[..., Path]
    repr_html: Callable[[Any], str]
    section: Callable[[Any], str] | None = None


_VIEWS: dict[type, Views] = {}
#: The package that registers the views when imported (loaded on the first lookup).
RENDERERS = "kpr.render.registry"


def register(kind: type, views: Views) -> None:
    """Make ``views`` the HTML views of ``kind`` (and of its subclasses)."""
    _VIEWS[kind] = views


def views_of(result: object) -> Views:
    """The views registered for ``result``'s type (or the nearest base class)."""
    importlib.import_module(RENDERERS)  # registers them (once; then a dict lookup)
    for kind in type(result).__mro__:
        if kind in _VIEWS:
            return _VIEWS[kind]
    raise TypeError(f"no HTML view is registered for {type(result).__name__}")


def to_html(result: object, path: str | os.PathLike[str] | None, **options: Any) -> str | Path:
    """The page of ``result``: the document, or written atomically to ``path``."""
    views = views_of(result)
    if path is None:
        return views.render(result, **options)
    return views.write(result, path, **options)


def section_html(result: object) -> str:
    """The part of ``result``'s page that another page embeds (HTML, escaped)."""
    section = views_of(result).section
    if section is None:
        raise TypeError(f"{type(result).__name__} has no section to embed in another page")
    return section(result)


def repr_html(result: object) -> str:
    """Jupyter's compact view of ``result``."""
    return views_of(result).repr_html(result)


class Page:
    """A result with an HTML page and a Jupyter view (the mixin of the results whose
    page takes no options): both are looked up here, so the result imports no renderer."""

    @overload
    def to_html(self, path: None = None) -> str: ...

    @overload
    def to_html(self, path: str | os.PathLike[str]) -> Path: ...

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | Path:
        """The HTML page (needs matplotlib): the document, or written atomically to ``path``."""
        return to_html(self, path)

    def _repr_html_(self) -> str:
        """Jupyter's compact view (no plot)."""
        return repr_html(self)
