"""Every example of README.md and docs/**/*.md runs, and shows what the code prints.

The convention (every page follows it):

- ```python blocks run in order, one namespace per page; a ```text block right after
  one holds what it prints.
- ```console blocks hold ``$ command`` lines (a line ending in ``\\`` continues on the
  next), each followed by the output it prints (stdout and stderr, as a terminal shows
  them). A line ``...`` matches any run of lines; trailing spaces are ignored.
- Both run in a temporary folder where ``kpr demo --write .`` wrote the demo files
  (made once per session: ``demo_folder`` in conftest.py), a fresh copy per page.
- A block directly preceded by the line ``<!-- no-run -->`` is not run (installation,
  very long runs).
- The progress lines a command writes on stderr when it is no terminal (``kpr: [ 0.4 s]
  ...``) are left out: on a terminal they are a spinner that leaves nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from kpr.cli.app import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
NO_RUN = "<!-- no-run -->"
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, its text, its line, whether it runs."""

    language: str
    text: str
    line: int
    runs: bool
    start: int
    end: int


def blocks(page: str) -> list[Block]:
    """The fenced blocks of a Markdown page, in order."""
    found = []
    for match in FENCE.finditer(page):
        before = page[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        line = page.count("\n", 0, match.start()) + 1
        runs = before.strip() != NO_RUN
        found.append(Block(match.group(1), match.group(2), line, runs, match.start(), match.end()))
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are ``expected``, a line ``...`` matching any run of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def lines(text: str) -> list[str]:
    """Text as lines without trailing spaces, blank lines at both ends dropped."""
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def commands(console: str) -> list[tuple[str, list[str]]]:
    """A console block's ``$`` commands, each with its expected output lines."""
    out: list[tuple[str, list[str]]] = []
    command: list[str] = []
    for raw in console.splitlines():
        if command and command[-1].endswith("\\"):
            command.append(raw)
        elif raw.startswith("$ "):
            command = [raw[2:]]
            out.append(("", []))
        elif out:
            out[-1][1].append(raw)
            continue
        else:
            raise AssertionError(f"a console block starts with {raw!r}, not '$ command'")
        out[-1] = ("\n".join(command), out[-1][1])
    return out


def compare(expected: list[str], actual: str, where: str) -> None:
    got = lines(actual)
    want = [line.rstrip() for line in expected]
    while want and not want[-1]:
        want.pop()
    if not matches(want, got):
        shown = "\n".join(got)
        raise AssertionError(
            f"{where}: the page shows\n{chr(10).join(want)}\n--- the code prints\n{shown}"
        )


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # `kpr` and `python` are this interpreter's; a non-terminal, uncoloured, wide output
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(NO_COLOR="1", TERM="dumb", COLUMNS="100")
    env.pop("FORCE_COLOR", None)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


#: What makes a command need a shell (pipes, redirections, several commands, variables).
SHELL = re.compile(r"[;&|<>$`*?(){}]")


#: A progress line of a command whose stderr is no terminal (``kpr.cli.text.StepLog``).
PROGRESS = re.compile(r"^kpr: \[ *\d+\.\d s\] .*\n?", re.M)


def run_command(command: str, folder: Path, env: dict[str, str]) -> tuple[int, str]:
    """:func:`run_plainly`, without the progress lines a terminal would not keep."""
    code, shown = run_plainly(command, folder, env)
    return code, PROGRESS.sub("", shown)


def run_plainly(command: str, folder: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run a console line in ``folder``: its exit code and what it printed (stdout, then
    stderr). A plain ``kpr ...`` line runs in this process (no interpreter start-up:
    the examples stay quick); anything else runs in bash."""
    argv = shlex.split(command.replace("\\\n", " "))
    if argv and argv[0] == "kpr" and not SHELL.search(command):
        out, err = io.StringIO(), io.StringIO()
        cwd = Path.cwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    main(argv[1:])
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 0
        finally:
            os.chdir(cwd)
        return code, out.getvalue() + err.getvalue()
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def _label(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def run_page(page: Path, folder: Path) -> int:
    """Run every runnable block of ``page`` in ``folder``; return how many ran."""
    text = page.read_text(encoding="utf-8")
    found = blocks(text)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    env = _environment()
    ran = 0
    for i, block in enumerate(found):
        if not block.runs:
            continue
        where = f"{_label(page)}:{block.line}"
        if block.language == "python":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(block.text, where, "exec"), namespace)
            after = found[i + 1] if i + 1 < len(found) else None
            if (
                after is not None
                and after.language == "text"
                and not text[block.end : after.start].strip()
            ):
                compare(after.text.splitlines(), printed.getvalue(), where)
            ran += 1
        elif block.language == "console":
            for command, expected in commands(block.text):
                code, shown = run_command(command, folder, env)
                if code not in (0, 1) and "kpr: error" not in "\n".join(expected):
                    raise AssertionError(f"{where}: `{command}` failed ({code}):\n{shown}")
                compare(expected, shown, f"{where}: `{command}`")
            ran += 1
    return ran


@pytest.mark.parametrize("page", PAGES, ids=[_label(p) for p in PAGES])
def test_page_examples(page: Path, demo_folder: Path, tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    shutil.copytree(demo_folder, folder)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        run_page(page, folder)
    finally:
        os.chdir(cwd)


def test_readme_has_examples() -> None:
    found = blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(b.runs and b.language == "python" for b in found)
    assert any(b.runs and b.language == "console" for b in found)


# ------------------------------------------------------------------ the runner itself


def test_wildcard_matches_any_run_of_lines() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "...", "d"], ["a", "b"])
    assert not matches(["a"], ["a", "b"])
    assert matches(["..."], [])


def test_console_blocks_split_into_commands() -> None:
    block = "$ kpr a \\\n    --b\nout 1\nout 2\n$ kpr c\n"
    assert commands(block) == [("kpr a \\\n    --b", ["out 1", "out 2"]), ("kpr c", [])]


def test_no_run_marks_the_next_block_only() -> None:
    page = "<!-- no-run -->\n```console\n$ pip install kpr\n```\n\n```python\nx = 1\n```\n"
    found = blocks(page)
    assert [(b.language, b.runs) for b in found] == [("console", False), ("python", True)]


def test_a_stale_output_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\nprint(1 + 1)\n```\n\n```text\n3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="the code prints\n2"):
        run_page(page, tmp_path)
    page.write_text("```console\n$ echo 2\n3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="the code prints\n2"):
        run_page(page, tmp_path)
    # a kpr line runs in process: its output and exit code are checked all the same
    page.write_text("```console\n$ kpr --version\nkpr 0\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="the code prints\nkpr"):
        run_page(page, tmp_path)
    page.write_text("```console\n$ kpr evaluate nothing.csv nothing.csv -k a\n```\n")
    with pytest.raises(AssertionError, match=r"failed \(2\):\nkpr: error"):
        run_page(page, tmp_path)
