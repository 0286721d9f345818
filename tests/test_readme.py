"""The README is short and starts with its two set-up commands (its examples are run by
``tests/test_docs_examples.py``, with every page of docs/)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_readme_is_read_in_five_minutes() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_setup_commands_come_first() -> None:
    text = README.read_text(encoding="utf-8")
    first = text.split("\n## ", 2)[1]
    assert first.startswith("Try it")
    commands = re.findall(r"```bash\n(.*?)```", first, re.S)[0].strip().splitlines()
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/kpr demo",
        "bash scripts/test.sh",
    ]


def test_relative_links_lead_to_files() -> None:
    for page in [README, *(ROOT / "docs").rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: {target}"
