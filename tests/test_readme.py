"""The README's examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_python_examples_run() -> None:
    blocks = _blocks("python")
    assert blocks, "the README has Python examples"
    for code in blocks:
        exec(compile(code, str(README), "exec"), {})


def test_setup_commands_are_at_the_top() -> None:
    top = README.read_text(encoding="utf-8").split("\n## ", 1)[0]
    commands = _blocks("bash")[0].strip().splitlines()
    assert commands[0].endswith("kpr demo") and commands[1] == "bash scripts/test.sh"
    assert commands[0] in top
