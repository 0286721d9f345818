"""``kpr assess`` (the evidence pack) and ``kpr verify`` (re-check it).

Added to the ``kpr`` group by ``kpr.cli.app``; the computations are imported inside
the commands. Both take the pack's files by role through one bundle (:data:`ROLES`).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from kpr.cli.common import CONTEXT
from kpr.cli.options import READ, bundle, candidates_option, split_names
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings

_PATH = click.Path(path_type=str)


@dataclass(frozen=True)
class PackFiles:
    """The files of a pack by role (the manifest's roles, the policy aside)."""

    original: str | None = None
    synthetic: str | None = None
    holdout: str | None = None
    pairing: str | None = None
    protect_log: str | None = None

    def keywords(self) -> dict[str, str | None]:
        """The optional roles as the API's keywords (``holdout=``, ``pairing=``...)."""
        return {"holdout": self.holdout, "pairing": self.pairing, "protect_log": self.protect_log}

    def to_args(self) -> list[str]:
        """The optional roles as command-line options."""
        return [
            word
            for role, path in self.keywords().items()
            if path is not None
            for word in (f"--{role.replace('_', '-')}", path)
        ]


#: The optional roles, shared by both commands.
ROLE_OPTIONS = (
    click.option("--holdout", type=_PATH,
                 help="People not used to make the synthetic table (control, membership)."),
    click.option("--pairing", type=_PATH,
                 help="Which synthetic row each original row became (correct links)."),
    click.option("--protect-log", type=_PATH,
                 help="The change log kpr protect --changes-out wrote."),
)  # fmt: skip
#: ``kpr assess``'s files: ORIGINAL SYNTHETIC and the roles, as one ``files``.
ASSESS_FILES = bundle(
    "files", PackFiles, click.argument("original", required=False, type=_PATH),
    click.argument("synthetic", required=False, type=_PATH), *ROLE_OPTIONS,
)  # fmt: skip
#: ``kpr verify``'s files: every role an option, as one ``files``.
VERIFY_FILES = bundle(
    "files", PackFiles,
    click.option("--original", type=_PATH, help="The original the pack assessed."),
    click.option("--synthetic", type=_PATH, help="The synthetic table the pack assessed."),
    *ROLE_OPTIONS,
)  # fmt: skip


def _command(files: PackFiles, read: ReadSettings, options: dict[str, object]) -> str:
    """The command that writes this pack again, every option spelled out."""
    assert files.original is not None and files.synthetic is not None
    words = ["kpr", "assess", files.original, files.synthetic, *files.to_args()]
    for name, value in options.items():
        if value is not None and value != ():
            text = ",".join(value) if isinstance(value, tuple) else str(value)
            words += [f"--{name.replace('_', '-')}", text]
    return shlex.join(words + read.to_args())


def _init(path: str) -> None:
    from kpr.assessment import TEMPLATE
    from kpr.inputs.writers import check_output_path, write_text

    if Path(path).exists():
        raise InputError(f"--init {path}: the file exists; give a new file name")
    check_output_path(path, "the policy template")
    write_text(path, TEMPLATE)
    click.echo(f"Wrote a policy template to {path}: set your thresholds, then --policy {path}")


def _summary(folder: Path, result: Any) -> None:
    click.echo(f"Wrote the evidence pack to {folder}")
    for name, v in result.verdicts().items():
        value = "not assessed" if v.value is None else f"{v.value:.6g} {v.unit}"
        click.echo(f"  {name}: {value}: {v.verdict}")


@click.command("assess", context_settings=CONTEXT)
@ASSESS_FILES
@candidates_option("Variables an attacker might know, comma-separated.")
@click.option(
    "--max-known", "-m", type=int,
    help="Every subset of up to this many candidates is attacked (default 3, at most the "
    "number of candidates).",
)  # fmt: skip
@click.option("--secret", "-s", multiple=True, help="Sensitive variables, comma-separated.")
@click.option(
    "--policy", type=_PATH,
    help="The controller's policy.toml (thresholds with units; --init writes one).",
)  # fmt: skip
@click.option("--distance-rows", type=int, default=100_000, show_default=True,
              help="Distances on a seeded sample of at most this many rows per side.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every draw.")
@READ
@click.option("--output", "-o", type=_PATH, help="The pack folder to write (new or empty).")
@click.option("--init", "init", type=_PATH,
              help="Write a commented policy template to this file and stop.")  # fmt: skip
def assess_command(
    files: PackFiles, candidates: tuple[str, ...], max_known: int | None,
    secret: tuple[str, ...], policy: str | None, distance_rows: int, seed: int,
    read: ReadSettings, output: str | None, init: str | None,
) -> None:  # fmt: skip
    """Assess SYNTHETIC against ORIGINAL on every criterion and write an evidence pack."""
    if init is not None:
        _init(init)
        return
    if files.original is None or files.synthetic is None or output is None:
        raise InputError("kpr assess needs ORIGINAL SYNTHETIC and -o PACK (or --init FILE)")
    from kpr.assessment import assess, write_pack
    from kpr.assessment.pack import check_pack_folder

    check_pack_folder(output)
    result = assess(
        files.original, files.synthetic, candidates=split_names(candidates),
        max_known=max_known, secret=split_names(secret), policy=policy, seed=seed,
        distance_rows=distance_rows, **files.keywords(), **read.keywords(),
    )  # fmt: skip
    command = _command(files, read, {
        "candidates": candidates, "max_known": result.parameters.max_known, "secret": secret,
        "policy": policy, "seed": seed, "distance_rows": distance_rows, "output": output,
    })  # fmt: skip
    _summary(write_pack(result, output, command), result)


@click.command("verify", context_settings=CONTEXT)
@click.argument("pack", type=_PATH)
@VERIFY_FILES
def verify_command(pack: str, files: PackFiles) -> None:
    """Recompute PACK's hashes and figures from the same files (read with the settings
    its manifest states): exit 0 when all match, 1 listing the differences, 2 when
    they cannot be compared."""
    from kpr.assessment import verify

    differences = verify(pack, original=files.original, synthetic=files.synthetic,
                         **files.keywords())  # fmt: skip
    if not differences:
        click.echo(f"{pack}: every hash and figure matches")
        return
    click.echo(f"{pack}: {len(differences)} difference(s):")
    for line in differences:
        click.echo(f"  {line}")
    sys.exit(1)
