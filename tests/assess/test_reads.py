"""One load for the whole assessment (issue 36, item 5): ``kpr assess`` opens each
input table once, whatever the criteria computed on it (singling out, links, hot
spots, inference, membership, distances, utility, protect's changes), and
``kpr verify`` opens each once to check it again."""

from __future__ import annotations

from pathlib import Path

import kpr
from tests.assess.conftest import CANDIDATES, SECRET
from tests.file_reads import file_reads

TABLES = ("original", "synthetic", "holdout", "pairing", "protect_log")


def test_assess_reads_each_file_once(inputs: dict[str, Path]) -> None:
    with file_reads() as reads:
        result = kpr.assess(
            inputs["original"], inputs["synthetic"], candidates=CANDIDATES, max_known=2,
            secret=SECRET, holdout=inputs["holdout"], pairing=inputs["pairing"],
            protect_log=inputs["protect_log"], policy=inputs["policy"],
        )  # fmt: skip
    assert sorted(reads) == sorted(inputs[r].name for r in TABLES)
    assert result.not_assessed == {}  # every criterion computed from those reads
    assert result.figures["membership.auc"] is not None


def test_verify_reads_each_file_once(pack: Path, inputs: dict[str, Path]) -> None:
    with file_reads() as reads:
        differences = kpr.verify(pack, **{r: inputs[r] for r in TABLES})
    assert differences == []
    assert sorted(reads) == sorted(inputs[r].name for r in TABLES)
