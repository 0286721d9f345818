"""The import rules of docs/architecture.md's "Layout" section hold for every module of src/kpr.

Every ``import``/``from ... import`` counts, at module level or inside a function
(a lazy import is still a dependency), relative imports resolved. Modules map to
their top-level part (``kpr.engine.queries`` -> ``engine``; ``kpr.api`` ->
``api``); the package facade ``kpr/__init__.py`` is the one place allowed to
gather everything, and no part may import it.
"""

from __future__ import annotations

import ast
import graphlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kpr"

#: Each part and the parts it may import, lowest floor first. Keep in step with
#: docs/architecture.md's "Layout" section (``test_the_docs_list_the_rules`` checks it).
RULES = {
    "errors": "",
    "version": "",
    "notices": "",
    "progress": "",
    "demo": "",
    "checks": "errors",
    "metric": "errors",
    "labels": "metric",
    "inputs": "errors metric",
    "engine": "errors metric inputs progress",
    "pairing": "errors inputs",
    "results": "errors metric labels notices",
    "diagnostics": "errors metric inputs notices results",
    "measure": "errors metric inputs engine pairing results diagnostics progress",
    "analysis": "errors checks metric inputs engine notices results measure progress",
    "api": "errors metric inputs engine results measure analysis progress",
    "fidelity": "errors checks metric inputs engine results progress",
    "avatar": "errors checks metric inputs pairing results measure analysis fidelity progress",
    "protection": "errors checks labels metric inputs engine pairing results measure "
    "analysis avatar fidelity",
    "render": "errors checks version labels metric inputs results",
    "sdmetrics_metric": "errors metric api",
    "assessment": "errors version metric inputs results api analysis avatar fidelity render",
    "cli": "errors checks version metric inputs engine results api analysis avatar protection "
    "render demo fidelity progress assessment",
    "__main__": "cli",
}
ALLOWED: dict[str, set[str]] = {part: set(may.split()) for part, may in RULES.items()}


def module_name(path: Path) -> list[str]:
    parts = ["kpr", *path.relative_to(SRC).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(path: Path, name: list[str] | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path`` (the module ``name``,
    by default its place under src/kpr), anywhere in the file."""
    name = module_name(path) if name is None else name
    package = name if path.name == "__init__.py" else name[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                if node.module:
                    found.append((node.lineno, ".".join([*base, node.module])))
                else:  # from . import x: each x may be a module
                    found += [(node.lineno, ".".join([*base, a.name])) for a in node.names]
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def part_of(module: str) -> str | None:
    """The top-level part of a kpr module; "kpr" for the facade; None outside kpr."""
    parts = module.split(".")
    if parts[0] != "kpr":
        return None
    return parts[1] if len(parts) > 1 else "kpr"


def part_edges() -> dict[tuple[str, str], list[str]]:
    """(importer part, imported part) -> where, for every import across parts."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        me = part_of(".".join(module_name(path)))
        assert me is not None
        for line, module in imported_modules(path):
            other = part_of(module)
            if other is not None and other != me:
                edges.setdefault((me, other), []).append(f"{path.relative_to(ROOT)}:{line}")
    return edges


def test_every_part_is_known() -> None:
    modules = {p.stem for p in SRC.glob("*.py") if p.name != "__init__.py"}
    packages = {p.parent.name for p in SRC.glob("*/__init__.py")}
    assert (modules | packages) == set(ALLOWED), (
        "a new part: add it to ALLOWED and docs/architecture.md"
    )


def test_parts_import_in_one_direction() -> None:
    wrong = {
        f"{a} -> {b}: {', '.join(where)}"
        for (a, b), where in part_edges().items()
        if a != "kpr" and b not in ALLOWED.get(a, set())
    }
    assert not wrong, "imports against the layout rules:\n" + "\n".join(sorted(wrong))


def test_part_graph_is_acyclic() -> None:
    graph: dict[str, set[str]] = {}
    for a, b in part_edges():
        graph.setdefault(a, set()).add(b)
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle between parts: {' -> '.join(exc.args[1])}")


def test_the_allowed_rules_are_acyclic() -> None:
    """The rules themselves form floors: no rule lets two parts import each other."""
    list(graphlib.TopologicalSorter(ALLOWED).static_order())


def test_no_part_imports_the_facade() -> None:
    assert [e for e in part_edges() if e[1] == "kpr" and e[0] != "kpr"] == []


def test_results_never_import_renderers() -> None:
    assert ("results", "render") not in part_edges()


def test_cli_commands_do_not_import_the_app() -> None:
    """``app`` assembles the group from the command modules, never the reverse; only
    ``console``, the process around the app, imports it."""
    cli = SRC / "cli"
    for path in sorted(cli.glob("*.py")):
        if path.name in ("app.py", "console.py"):
            continue
        imported = {module for _, module in imported_modules(path)}
        assert "kpr.cli.app" not in imported, path.name


def test_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The parser catches what a lazy renderer import would be: inside a function, relative."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\n"
        "def f():\n"
        "    from ..render import html\n"
        "    from . import views\n"
        "    import kpr.cli.app\n"
    )
    found = imported_modules(probe, ["kpr", "results", "probe"])
    assert [m for _, m in found] == ["os", "kpr.render", "kpr.results.views", "kpr.cli.app"]
    assert [part_of(m) for _, m in found] == [None, "render", "results", "cli"]


def test_the_docs_list_the_rules() -> None:
    """docs/architecture.md's Layout section names every part and what it may import,
    as ALLOWED says."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Layout", 1)[1].split("\n## ", 1)[0]
    rules = dict(re.findall(r"^- `(\w+)` may import: (.*)$", section, flags=re.MULTILINE))
    assert set(rules) == set(ALLOWED)
    for part, text in rules.items():
        listed = set(re.findall(r"`(\w+)`", text))
        assert listed == ALLOWED[part], part


def test_views_are_found_without_importing_the_renderers_first() -> None:
    """A result's ``to_html``/``_repr_html_`` work however the result is reached: the
    first lookup loads the registry (``views.RENDERERS``), which fills it for each
    result with an HTML page; ``import kpr`` itself loads no renderer, nor matplotlib."""
    code = (
        "import sys, kpr\n"
        "assert 'kpr.render.html' not in sys.modules\n"
        "from kpr.results import views\n"
        "from kpr.results.analysis import AnalysisResult\n"
        "from kpr.results.evaluation import KprResult\n"
        "from kpr.results.ksweep import KSweepResult\n"
        "from kpr.results.protect import ProtectResult\n"
        "from kpr.results.utility import UtilityResult\n"
        "views.views_of(object.__new__(KprResult))\n"
        "for kind in (KprResult, AnalysisResult, KSweepResult, ProtectResult, UtilityResult):\n"
        "    assert kind in views._VIEWS, kind\n"
        "assert 'matplotlib' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC.parent)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_result_type_without_views_is_named() -> None:
    from kpr.results import views

    class Unregistered:
        pass

    with pytest.raises(TypeError, match="no HTML view is registered for Unregistered"):
        views.repr_html(Unregistered())


def test_the_in_memory_engine_imports_down_its_list() -> None:
    """Each module of ``kpr.engine.inmemory`` imports only the modules listed above
    it in docs/architecture.md's picture of that package (one concept a module, no
    circle), and the picture lists every module."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    picture = page.split("The in-memory engine, `kpr.engine.inmemory`", 1)[1].split("```")[1]
    order = re.findall(r"^  (\w+)\.py ", picture, flags=re.MULTILINE)
    package = SRC / "engine" / "inmemory"
    assert set(order) == {p.stem for p in package.glob("*.py")} - {"__init__"}
    for i, name in enumerate(order):
        imported = {m for _, m in imported_modules(package / f"{name}.py")}
        inside = {m.rsplit(".", 1)[1] for m in imported if m.startswith("kpr.engine.inmemory.")}
        assert inside <= set(order[:i]), f"{name}.py imports {sorted(inside - set(order[:i]))}"


#: Issue 37's sizes: no module of src/kpr over this many lines, no function over
#: FUNCTION_LINES counted from its ``def`` to its last line (decorators apart).
MODULE_LINES = 500
FUNCTION_LINES = 60
#: Offenders left, each to be split; the lists may only shrink (an entry that no
#: longer offends fails the test: remove it).
LONG_MODULES: set[str] = set()
LONG_FUNCTIONS: set[str] = set()
#: Import circles between modules left (each as its sorted modules, "|"-joined).
MODULE_CIRCLES: set[str] = set()


def long_modules() -> set[str]:
    """The modules of src/kpr over MODULE_LINES lines, relative to src/kpr."""
    return {
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if len(p.read_text(encoding="utf-8").splitlines()) > MODULE_LINES
    }


def long_functions() -> set[str]:
    """``module:name`` of every function (or method) of src/kpr over FUNCTION_LINES lines."""
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > FUNCTION_LINES:
                    found.add(f"{path.relative_to(SRC)}:{node.name}")
    return found


def module_graph() -> dict[str, set[str]]:
    """Each module of src/kpr and the kpr modules it imports (``from package import
    name`` counts as the submodule when ``name`` is one), a package's own face apart."""
    modules = {".".join(module_name(p)): p for p in SRC.rglob("*.py")}

    def known(module: str) -> str:
        while module not in modules:
            module = module.rpartition(".")[0]
        return module

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
                module = ".".join(x for x in (base, node.module or "") if x)
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    found.add(sub if sub in modules else module)
        graph[name] = {known(m) for m in found if m.split(".")[0] == "kpr"} - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> set[str]:
    """Every set of modules that import each other round a circle (the strongly
    connected components of more than one module), each as its sorted names."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = set()

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                circles.add("|".join(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_module_is_too_long() -> None:
    found = long_modules()
    assert found - LONG_MODULES == set(), f"split these modules: {sorted(found - LONG_MODULES)}"
    assert LONG_MODULES - found == set(), f"no longer too long: {sorted(LONG_MODULES - found)}"


def test_no_function_is_too_long() -> None:
    found = long_functions()
    assert found - LONG_FUNCTIONS == set(), f"split these: {sorted(found - LONG_FUNCTIONS)}"
    assert LONG_FUNCTIONS - found == set(), f"no longer too long: {sorted(LONG_FUNCTIONS - found)}"


def test_no_import_circle_between_modules() -> None:
    found = circles(module_graph())
    assert found - MODULE_CIRCLES == set(), f"import circles: {sorted(found - MODULE_CIRCLES)}"
    assert MODULE_CIRCLES - found == set(), f"no longer circles: {sorted(MODULE_CIRCLES - found)}"


def test_the_size_and_circle_checks_see_offenders() -> None:
    """The circle finder finds a circle of three and ignores a chain; the function
    measure counts from ``def`` (decorators apart) to the last line."""
    probe = "@decorator\ndef f():\n" + "    x = 1\n" * 60
    (node,) = ast.parse(probe).body
    assert isinstance(node, ast.FunctionDef)
    assert node.end_lineno is not None and node.end_lineno - node.lineno + 1 == 61
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == {"a|b|c"}
    graph["c"] = set()
    assert circles(graph) == set()
