"""Nothing personal in the pack (issue 36, item 4): every file of the pack is scanned
for the value of every group smaller than ``min_count`` in the original (per value of
a known variable, per class of a binned one as the hot spots name classes, per value
of the secret) and for every original row in any delimited or JSON form.

The scan is shown to bite: with ``min_count = 1`` the same pack names small groups,
and a row planted in a copy of the pack is found."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.metric.classes import interval_label
from tests.conftest import run_cli

KNOWN = ["ville natale", "âge", "sexe"]
SECRET = "diagnostic"
#: Rare values, each held by fewer than 10 people.
RARE_TOWNS = {"Île-d'Yeu": 1, "Saint-Véran": 2, "Ouessant & Molène": 3, "Sein": 9}
RARE_DIAGNOSES = {"maladie <rare>": 2, 'syndrome "X"': 4}


def _original(n: int = 2000) -> pl.DataFrame:
    """Frequent groups of many alike people (not unique, so not linked), rare towns
    and ages at the edges (unique, so linked by a copy), unique rows (an id-like
    ``heures`` column)."""
    rng = np.random.default_rng(11)
    towns = rng.choice(["Brest", "Nantes", "Rennes", "Vannes"], n).astype(object)
    diagnoses = rng.choice(["aucun", "grippe", "asthme"], n).astype(object)
    at = 0
    for table, rare in ((towns, RARE_TOWNS), (diagnoses, RARE_DIAGNOSES)):
        for value, count in rare.items():
            table[at : at + count] = value
            at += count
    ages = rng.integers(30, 34, n)
    ages[:3] = [3, 97, 101]  # classes of one person each at the edges
    frame = pl.DataFrame({
        "ville natale": towns.astype(str), "âge": ages, "sexe": rng.choice(["F", "M"], n),
        SECRET: diagnoses.astype(str), "heures": np.arange(n) * 0.25 + 10.125,
    })  # fmt: skip
    assert frame.is_unique().all()
    return frame


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Path]:
    frame = _original()
    path = tmp_path_factory.mktemp("personal") / "original.csv"
    frame.write_csv(path)
    return frame, path


def _pack(original: Path, root: Path, min_count: int, capsys: pytest.CaptureFixture[str]) -> Path:
    """The pack of the original against a copy of itself (every unique person linked)."""
    policy = root / f"policy{min_count}.toml"
    policy.write_text(f"min_count = {min_count}\n", "utf-8")
    out = root / f"pack{min_count}"
    args = ["assess", str(original), str(original), "-c", ",".join(KNOWN), "-s", SECRET,
            "--policy", str(policy), "-o", str(out)]  # fmt: skip
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    return out


def small_groups(frame: pl.DataFrame, min_count: int) -> set[str]:
    """The names of every group of fewer than ``min_count`` people: values of the
    categorical known variables and of the secret, classes of the binned ones (as the
    hot spots label them)."""
    found: set[str] = set()
    for name in ("ville natale", "sexe", SECRET):
        counts = frame.group_by(name).len().filter(pl.col("len") < min_count)
        found |= set(counts[name].to_list())
    result = kpr.evaluate(frame, frame, known=KNOWN)
    table = result.class_table("âge").filter(pl.col("originals") < min_count)
    for row in table.iter_rows(named=True):
        if row["special"] is not None:
            continue  # the names of the special classes (missing...) are not values
        found.add(interval_label(row["lower"], row["upper"], row["upper"] - row["lower"]))
    return found


def _texts(pack: Path) -> dict[str, str]:
    """Each file's text as a reader sees it: HTML entities decoded, and for JSON every
    text it holds (keys and values) decoded from its escapes."""
    out = {}
    for p in sorted(pack.iterdir()):
        text = p.read_text("utf-8")
        if p.suffix == ".json":
            text += "\n" + "\n".join(_strings(json.loads(text)))
        out[p.name] = text + "\n" + html.unescape(text)
    return out


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def leaked_values(pack: Path, values: set[str]) -> set[str]:
    """The values that appear in a file of the pack as a token (not inside a word)."""
    texts = _texts(pack)
    return {
        v for v in values
        if any(re.search(rf"(?<!\w){re.escape(v)}(?!\w)", t) for t in texts.values())
    }  # fmt: skip


def row_forms(row: tuple[object, ...], names: list[str]) -> list[str]:
    """A row written as a CSV line with any usual delimiter, or as JSON."""
    cells = ["" if v is None else str(v) for v in row]
    forms = [d.join(cells) for d in (",", ";", "\t", "|", " ", ", ")]
    for ascii_ in (True, False):
        forms += [json.dumps(list(row), ensure_ascii=ascii_),
                  json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=ascii_)]  # fmt: skip
    return forms


def leaked_rows(pack: Path, frame: pl.DataFrame) -> int:
    blob = "\n".join(_texts(pack).values())
    return sum(
        any(form in blob for form in row_forms(row, frame.columns)) for row in frame.iter_rows()
    )


def test_no_small_group_and_no_row_in_any_file(
    original: tuple[pl.DataFrame, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, path = original
    small = small_groups(frame, 10)
    assert set(RARE_TOWNS) | set(RARE_DIAGNOSES) <= small  # the scan looks for them
    # the classes of the three people at the edges, as the hot spots would say them
    assert len({v for v in small if v.startswith("[")}) == 3
    pack = _pack(path, tmp_path, 10, capsys)
    assert leaked_values(pack, small) == set()
    assert leaked_rows(pack, frame) == 0
    results = json.loads((pack / "results.json").read_text("utf-8"))
    assert results["figures"]["singling_out.hot_spots_hidden"] >= len(RARE_TOWNS)


def test_the_scan_finds_what_a_pack_of_min_count_one_shows(
    original: tuple[pl.DataFrame, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same scan on a pack whose policy shows groups of one person finds them: the
    scan can fail."""
    frame, path = original
    pack = _pack(path, tmp_path, 1, capsys)
    shown = json.loads((pack / "results.json").read_text("utf-8"))["hot_spots"]
    assert any(g["people"] < 10 for g in shown)
    found = leaked_values(pack, small_groups(frame, 10))
    assert found and found <= {g["value"] for g in shown}


def test_the_row_scan_finds_a_planted_row(
    original: tuple[pl.DataFrame, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, path = original
    pack = _pack(path, tmp_path, 10, capsys)
    for i, form in enumerate(row_forms(frame.row(7), frame.columns)):
        copy = tmp_path / f"copy{i}"
        shutil.copytree(pack, copy)
        report = copy / "report.html"
        report.write_text(report.read_text("utf-8") + html.escape(form), "utf-8")
        assert leaked_rows(copy, frame) == 1, form


def test_the_pairing_is_referenced_by_hash_only(pack: Path) -> None:
    texts = {p.name: p.read_text("utf-8") for p in pack.iterdir()}
    pairing_hash = json.loads(texts["manifest.json"])["inputs"]["pairing"]["sha256"]
    assert pairing_hash in texts["report.html"]
    assert "original_row" not in "".join(texts.values())
