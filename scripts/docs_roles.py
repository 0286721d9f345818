"""The docs build's docstring pass (a griffe extension that mkdocs.yml loads): the
Sphinx roles the source's docstrings use (``:func:`kpr.evaluate```, ``:class:`~a.B```)
become Markdown, since mkdocstrings shows them raw otherwise. A role whose target is
documented in the reference pages becomes a link to it; any other becomes inline code
(``~`` keeps the last name, as in Sphinx)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc):`(~?)([^`]+)`")
DIRECTIVE = re.compile(r"^:::\s+(kpr[\w.]*)\s*$", re.MULTILINE)
DOCS = Path(__file__).resolve().parent.parent / "docs"


def documented() -> list[str]:
    """The identifiers the reference pages document (their ``::: name`` lines)."""
    return [m for page in sorted(DOCS.rglob("*.md")) for m in DIRECTIVE.findall(page.read_text())]


def markdown(text: str, resolve: Any, anchors: dict[str, str]) -> str:
    """``text`` with every role rewritten: ``resolve(name)`` gives the full path a name
    means where the docstring sits (or None); ``anchors`` maps a documented object's
    canonical path to the identifier its page registers."""

    def one(match: re.Match[str]) -> str:
        short, target = match.groups()
        shown = f"`{target.rsplit('.', 1)[-1] if short else target}`"
        path = resolve(target)
        if path in anchors.values():
            return f"[{shown}][{path}]"
        for canonical, identifier in anchors.items():
            if path is not None and (path == canonical or path.startswith(canonical + ".")):
                return f"[{shown}][{identifier}{path[len(canonical) :]}]"
        return shown

    return ROLE.sub(one, text)


class Roles(griffe.Extension):
    """Rewrite each docstring's roles once the whole package is loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        anchors: dict[str, str] = {}
        for identifier in documented():
            try:
                anchors[loader.modules_collection[identifier].canonical_path] = identifier
            except (KeyError, griffe.AliasResolutionError):
                continue
        # the most specific documented object first (a method before its class)
        anchors = dict(sorted(anchors.items(), key=lambda kv: -len(kv[0])))
        self._walk(pkg, anchors, set())

    def _walk(self, obj: Any, anchors: dict[str, str], seen: set[str]) -> None:
        if obj.is_alias or obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:

            def resolve(name: str, at: Any = obj) -> str | None:
                for scope in (at, at.parent):
                    try:
                        return str(scope.resolve(name)) if scope is not None else None
                    except Exception:  # griffe's name errors vary by version
                        continue
                return name if name.startswith("kpr.") else None

            obj.docstring.value = markdown(obj.docstring.value, resolve, anchors)
        for member in obj.members.values():
            self._walk(member, anchors, seen)
