"""One small table assessed once per module: the pack every test of tests/assess reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from kpr.assessment import TEMPLATE
from tests.render.test_browser import browser  # noqa: F401 (the system Chromium, for test_browser)

#: A value held by fewer than min_count (10) people: it must never reach the pack.
RARE = "Île rare"
CANDIDATES = ["âge", "sexe", "région du nord"]
SECRET = "revenu"


def _table(rng: np.random.Generator, n: int, rare: int) -> pl.DataFrame:
    region = rng.choice(["nord", "sud", "est", "ouest"], n).astype(object)
    region[:rare] = RARE
    return pl.DataFrame(
        {
            "âge": rng.integers(18, 80, n),
            "sexe": rng.choice(["F", "M"], n),
            "région du nord": region.astype(str),
            SECRET: rng.choice(["<=50K", ">50K"], n, p=[0.75, 0.25]),
            "heures": rng.normal(38.0, 6.0, n).round(1),
        }
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Original (Parquet), synthetic (CSV), holdout, pairing, change log and policy."""
    rng = np.random.default_rng(7)
    root = tmp_path_factory.mktemp("assess inputs")
    original = _table(rng, 600, rare=3)
    synthetic = _table(rng, 600, rare=0)
    holdout = _table(rng, 300, rare=0)
    pairing = pl.DataFrame({"original_row": np.arange(600), "avatar_row": rng.permutation(600)})
    changes = pl.DataFrame(
        {"avatar_row": [3, 3, 9], "column": ["âge", "sexe", "âge"],
         "move": ["shift", "swap", "shift"], "old": ["1", "F", "2"], "new": ["2", "M", "3"]}
    )  # fmt: skip
    paths = {
        "original": root / "original.parquet",
        "synthetic": root / "synthétique.csv",
        "holdout": root / "holdout.csv",
        "pairing": root / "pairing.csv",
        "protect_log": root / "changes.csv",
        "policy": root / "policy.toml",
    }
    original.write_parquet(paths["original"])
    synthetic.write_csv(paths["synthetic"])
    holdout.write_csv(paths["holdout"])
    pairing.write_csv(paths["pairing"])
    changes.write_csv(paths["protect_log"])
    policy = TEMPLATE.replace(
        '["age", "sex", "race", "marital_status", "education", "native_country"]',
        str(CANDIDATES).replace("'", '"'),
    )
    paths["policy"].write_text(policy, encoding="utf-8")
    return paths


def assess_args(inputs: dict[str, Path], pack: Path) -> list[str]:
    """The command line of the module's pack."""
    return [
        "assess", str(inputs["original"]), str(inputs["synthetic"]),
        "-c", ",".join(CANDIDATES), "-m", "2", "-s", SECRET,
        "--holdout", str(inputs["holdout"]), "--pairing", str(inputs["pairing"]),
        "--protect-log", str(inputs["protect_log"]), "--policy", str(inputs["policy"]),
        "-o", str(pack),
    ]  # fmt: skip


def verify_args(inputs: dict[str, Path], pack: Path) -> list[str]:
    return [
        "verify", str(pack), "--original", str(inputs["original"]),
        "--synthetic", str(inputs["synthetic"]), "--holdout", str(inputs["holdout"]),
        "--pairing", str(inputs["pairing"]), "--protect-log", str(inputs["protect_log"]),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def pack(inputs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack of the module's inputs, written by the command line."""
    from kpr.cli.app import main

    folder = tmp_path_factory.mktemp("packs") / "pack"
    with pytest.raises(SystemExit) as exit_:
        main(assess_args(inputs, folder))
    assert exit_.value.code in (0, None)
    return folder
