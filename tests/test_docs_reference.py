"""The reference pages render docstrings without raw Sphinx roles (issue 38, item 8):
``scripts/docs_roles.py`` (the docs build's griffe extension) rewrites them to links or
inline code, and the hand-written pages carry no escaped pipe inside code."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import docs_roles  # noqa: E402

ANCHORS = {"kpr.api.evaluate": "kpr.evaluate", "kpr.results.evaluation.KprResult": "kpr.KprResult"}


def test_a_documented_target_becomes_a_link_and_any_other_code() -> None:
    paths = {
        "evaluate": "kpr.api.evaluate",
        "by_class": "kpr.results.evaluation.KprResult.by_class",
    }
    text = (
        "as :func:`evaluate` does; see :meth:`by_class`, :class:`~kpr.x.Hidden` and "
        ":mod:`kpr.avatar.roles`; ``:func:`` stays when it is not a role"
    )
    out = docs_roles.markdown(text, paths.get, ANCHORS)
    assert out == (
        "as [`evaluate`][kpr.evaluate] does; see [`by_class`][kpr.KprResult.by_class], "
        "`Hidden` and `kpr.avatar.roles`; ``:func:`` stays when it is not a role"
    )


def test_no_documented_docstring_keeps_a_role() -> None:
    griffe = pytest.importorskip("griffe")
    extensions = griffe.load_extensions(f"{ROOT / 'scripts' / 'docs_roles.py'}:Roles")
    package = griffe.load("kpr", search_paths=[str(ROOT / "src")], extensions=extensions)
    left = []
    for identifier in docs_roles.documented():
        obj = package.modules_collection[identifier]
        for one in (obj, *(m for m in obj.members.values() if not m.is_alias)):
            text = getattr(one.docstring, "value", "") or ""
            if docs_roles.ROLE.search(text):
                left.append(one.path)
    assert left == []


def test_the_pages_hold_no_escaped_pipe_in_code() -> None:
    """Python-Markdown shows ``\\|`` inside a code span as a backslash and a bar."""
    bad = [
        f"{page.name}: {m.group(0)}"
        for page in sorted((ROOT / "docs").rglob("*.md"))
        for m in re.finditer(r"`[^`\n]*`", page.read_text())
        if "\\|" in m.group(0)
    ]
    assert bad == []
