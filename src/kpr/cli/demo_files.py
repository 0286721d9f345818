"""``kpr demo --write DIR``: the bundled demo as the files a first evaluation needs.

The documentation's examples run in a folder prepared this way, so every figure they
show can be reproduced by a reader: the first 24,000 rows of UCI Adult are the
original, the other 8,561 the holdout (people not used to make the avatars), and the
avatars are kpr's own (k = 20, seed 0), made from ``original.csv`` exactly as
``kpr avatarize original.csv -o avatars.csv --k 20 --seed 0 --pairing-out pairing.csv``
makes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from kpr.errors import InputError
from kpr.inputs.writers import check_outputs, write_csv, write_text

#: The split of the bundled Adult table (32,561 rows) into original and holdout.
ORIGINAL_ROWS = 24_000
#: The generator's settings for the demo avatars.
DEMO_K = 20
DEMO_SEED = 0
#: The files written, in order, with what each holds.
DEMO_FILES = {
    "original.csv": f"the first {ORIGINAL_ROWS:,} rows of UCI Adult",
    "holdout.csv": "the other rows (not used to make the avatars)",
    "avatars.csv": f"kpr's avatars of original.csv (k = {DEMO_K}, seed {DEMO_SEED})",
    "pairing.csv": "which avatar row each original row became",
    "metadata.json": "SDV metadata of the table",
}


def sdv_metadata(frame: pl.DataFrame) -> dict[str, object]:
    """SDV single-table metadata: numbers are ``numerical``, everything else ``categorical``."""
    columns = {
        name: {"sdtype": "numerical" if dtype.is_numeric() else "categorical"}
        for name, dtype in frame.schema.items()
    }
    return {"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "columns": columns}


def check_folder(folder: Path) -> dict[str, Path]:
    """The demo files' paths in ``folder``; refuse before any work to overwrite one."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--write {folder}: it is not a folder; give a folder")
    paths = {name: folder / name for name in DEMO_FILES}
    present = [name for name, path in paths.items() if path.exists() or path.is_symlink()]
    if present:
        raise InputError(
            f"--write {folder}: {', '.join(present)} already there; kpr demo --write "
            "never overwrites files: give an empty or new folder"
        )
    return paths


def write_demo(folder: Path) -> str:
    """Write the demo files into ``folder`` (created if missing); return a one-line summary."""
    from kpr.avatar.files import pairing_frame, read_original
    from kpr.avatar.generator import generate
    from kpr.demo import demo_paths

    paths = check_folder(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"--write {folder}: cannot make this folder ({exc.strerror}); "
            "give a folder you can write to"
        ) from None
    check_outputs({f"--write {name}": path for name, path in paths.items()})
    adult = pl.read_parquet(demo_paths()[0])
    write_csv(adult.head(ORIGINAL_ROWS), paths["original.csv"])
    write_csv(adult.slice(ORIGINAL_ROWS), paths["holdout.csv"])
    # from the CSV, as `kpr avatarize original.csv` reads it: the same table, bit for bit
    original = read_original(paths["original.csv"])
    gen = generate(original, k=DEMO_K, seed=DEMO_SEED)
    write_csv(gen.avatars, paths["avatars.csv"])
    write_csv(pairing_frame(gen.pairing), paths["pairing.csv"])
    write_text(paths["metadata.json"], json.dumps(sdv_metadata(original), indent=2) + "\n")
    holdout = adult.height - ORIGINAL_ROWS
    return (
        f"Wrote to {folder}: original.csv ({ORIGINAL_ROWS:,} rows of UCI Adult), holdout.csv "
        f"({holdout:,} other rows), avatars.csv (k={DEMO_K}, seed {DEMO_SEED}), pairing.csv, "
        "metadata.json."
    )
