"""``kpr protect`` reads each input file once (API and CLI): the rates before and
after every move, the new avatars, the control comparison, the distances and the
fidelity all come from that one read, and equal what the same tables in memory give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kpr
from tests.adversarial.conftest import run_cli
from tests.file_reads import file_reads
from tests.protection.test_protect import KNOWN
from tests.protection.test_regenerate import own_avatars

#: Every step that needs the original: regenerate (the new avatars), swap and shift,
#: two attacks, the control, the distances and the fidelity (both on by default).
SETTINGS: dict[str, Any] = {
    "target": 98.0,
    "moves": "swap,shift,regenerate",
    "candidates": KNOWN[:3],
    "max_known": 2,
    "rule": "class",  # reads, not the rule: robust cannot reach 98 % on these tables
}


@pytest.mark.parametrize("how", ["api", "cli", "known-columns"])
def test_protect_reads_each_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    original, avatars, pairing = own_avatars(n=300)
    control = own_avatars(n=200, seed=1)[0]
    paths = {"o": tmp_path / "o.csv", "a": tmp_path / "a.csv", "p": tmp_path / "p.csv"}
    paths["c"] = tmp_path / "c.csv"
    for key, frame in (("o", original), ("a", avatars), ("p", pairing), ("c", control)):
        frame.write_csv(paths[key])
    o, a, p, c = (str(paths[k]) for k in "oapc")
    if how == "known-columns":  # nothing but the rates needs the original's other columns
        light = {**SETTINGS, "moves": "swap,shift", "distances": False, "utility": False}
        with file_reads() as reads:
            _, result = kpr.protect(o, a, **light)
        assert sorted(reads) == ["a.csv", "o.csv"]
        assert result.to_dict() == kpr.protect(original, avatars, **light)[1].to_dict()
        return
    with file_reads() as reads:
        if how == "api":
            _, result = kpr.protect(o, a, pairing=p, control=c, **SETTINGS)
            got = result.to_dict()
        else:
            out = tmp_path / "protected.csv"
            code, stdout, _ = run_cli(
                ["protect", o, a, "-c", ",".join(SETTINGS["candidates"]), "--max-known", "2",
                 "--target", "98", "--moves", SETTINGS["moves"], "--rule", "class", "--pairing", p,
                 "--control", c, "-o", str(out), "-f", "json"],
                capsys,
            )  # fmt: skip
            assert code == 0, stdout
            got = json.loads(stdout)
    assert sorted(reads) == ["a.csv", "c.csv", "o.csv", "p.csv"]
    _, expected = kpr.protect(original, avatars, pairing=pairing, control=control, **SETTINGS)
    assert expected.cells_total and expected.control_after is not None
    assert expected.utility is not None and expected.distance_after is not None
    want = expected.to_dict() if how == "api" else json.loads(expected.to_json())
    assert got == want
