"""``kpr assess`` (the evidence pack) and ``kpr verify`` (re-check it).

Added to the ``kpr`` group by ``kpr.cli.app``; the computations are imported inside
the commands.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from kpr.cli.common import CONTEXT
from kpr.cli.options import split_names
from kpr.errors import InputError


def _command(original: str, synthetic: str, options: dict[str, object]) -> str:
    """The command that writes this pack again, every option spelled out."""
    words = ["kpr", "assess", original, synthetic]
    for name, value in options.items():
        if value is not None and value != ():
            text = ",".join(value) if isinstance(value, tuple) else str(value)
            words += [f"--{name.replace('_', '-')}", text]
    return shlex.join(words)


@click.command("assess", context_settings=CONTEXT)
@click.argument("original", required=False, type=click.Path(path_type=str))
@click.argument("synthetic", required=False, type=click.Path(path_type=str))
@click.option(
    "--candidates", "-c", multiple=True, help="Variables an attacker might know, comma-separated."
)
@click.option(
    "--max-known",
    "-m",
    type=int,
    help="Every subset of up to this many candidates is attacked (default 3, at most the "
    "number of candidates).",
)
@click.option("--secret", "-s", multiple=True, help="Sensitive variables, comma-separated.")
@click.option(
    "--holdout",
    type=click.Path(path_type=str),
    help="People not used to make the synthetic table (control, membership).",
)
@click.option(
    "--pairing",
    type=click.Path(path_type=str),
    help="Which synthetic row each original row became (correct links).",
)
@click.option(
    "--protect-log",
    type=click.Path(path_type=str),
    help="The change log kpr protect --changes-out wrote.",
)
@click.option(
    "--policy",
    type=click.Path(path_type=str),
    help="The controller's policy.toml (thresholds with units; --init writes one).",
)
@click.option(
    "--distance-rows",
    type=int,
    default=100_000,
    show_default=True,
    help="Distances on a seeded sample of at most this many rows per side.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every draw.")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=str),
    help="The pack folder to write (new or empty).",
)
@click.option(
    "--init",
    "init",
    type=click.Path(path_type=str),
    help="Write a commented policy template to this file and stop.",
)
def assess_command(
    original: str | None, synthetic: str | None, candidates: tuple[str, ...], max_known: int | None,
    secret: tuple[str, ...], holdout: str | None, pairing: str | None,
    protect_log: str | None, policy: str | None, distance_rows: int, seed: int,
    output: str | None, init: str | None,
) -> None:  # fmt: skip
    """Assess SYNTHETIC against ORIGINAL on every criterion and write an evidence pack."""
    from kpr.assessment import TEMPLATE, assess, write_pack
    from kpr.assessment.pack import check_pack_folder
    from kpr.inputs.writers import check_output_path, write_text

    if init is not None:
        if Path(init).exists():
            raise InputError(f"--init {init}: the file exists; give a new file name")
        check_output_path(init, "the policy template")
        write_text(init, TEMPLATE)
        click.echo(f"Wrote a policy template to {init}: set your thresholds, then --policy {init}")
        return
    if original is None or synthetic is None or output is None:
        raise InputError("kpr assess needs ORIGINAL SYNTHETIC and -o PACK (or --init FILE)")
    check_pack_folder(output)
    result = assess(
        original, synthetic, candidates=split_names(candidates), max_known=max_known,
        secret=split_names(secret),
        holdout=holdout, pairing=pairing, protect_log=protect_log, policy=policy, seed=seed,
        distance_rows=distance_rows,
    )  # fmt: skip
    command = _command(original, synthetic, {
        "candidates": candidates, "max_known": result.parameters.max_known, "secret": secret,
        "holdout": holdout, "pairing": pairing, "protect_log": protect_log, "policy": policy,
        "seed": seed, "distance_rows": distance_rows, "output": output,
    })  # fmt: skip
    folder = write_pack(result, output, command)
    verdicts = result.verdicts()
    click.echo(f"Wrote the evidence pack to {folder}")
    for name, v in verdicts.items():
        value = "not assessed" if v["value"] is None else f"{v['value']:.6g} {v['unit']}"
        click.echo(f"  {name}: {value}: {v['verdict']}")


@click.command("verify", context_settings=CONTEXT)
@click.argument("pack", type=click.Path(path_type=str))
@click.option("--original", type=click.Path(path_type=str))
@click.option("--synthetic", type=click.Path(path_type=str))
@click.option("--holdout", type=click.Path(path_type=str))
@click.option("--pairing", type=click.Path(path_type=str))
@click.option("--protect-log", type=click.Path(path_type=str))
def verify_command(
    pack: str, original: str | None, synthetic: str | None, holdout: str | None,
    pairing: str | None, protect_log: str | None,
) -> None:  # fmt: skip
    """Recompute PACK's hashes and figures from the same files: exit 0 when all match,
    1 listing the differences, 2 when they cannot be compared."""
    from kpr.assessment import verify

    differences = verify(
        pack, original=original, synthetic=synthetic, holdout=holdout, pairing=pairing,
        protect_log=protect_log,
    )  # fmt: skip
    if not differences:
        click.echo(f"{pack}: every hash and figure matches")
        return
    click.echo(f"{pack}: {len(differences)} difference(s):")
    for line in differences:
        click.echo(f"  {line}")
    sys.exit(1)
