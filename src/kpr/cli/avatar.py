"""``kpr avatarize`` and ``kpr distance``: make avatars, and measure how close any
synthetic table sits to the originals (``kpr sweep``/``tune`` are in ``ksweep``).

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import click
import polars as pl

from kpr.avatar.distance import distance_metrics
from kpr.avatar.files import check_output, pairing_frame, read_like, read_original, write_table
from kpr.avatar.generator import generate_with
from kpr.avatar.roles import Roles
from kpr.cli.common import (
    CONTEXT,
    check_files,
    emit,
    stderr,
    summary_console,
)
from kpr.cli.options import (
    FORMAT,
    QUIET,
    READ,
    SEED,
    options,
    split_names,
    whole,
)
from kpr.errors import InputError
from kpr.inputs.files import check_columns
from kpr.inputs.reading import ReadSettings
from kpr.inputs.writers import STDOUT, write_text
from kpr.results.avatar_settings import GeneratorSettings

from . import text as render

F = TypeVar("F", bound=Callable[..., Any])

_generator_clicks = options(
    click.option(
        "--ncp",
        type=whole("--ncp", 1),
        default=5,
        show_default=True,
        help="FAMD axes on which neighbours are searched (>= 1).",
    ),
    click.option(
        "--categorical",
        multiple=True,
        help="Columns to treat as categorical (comma-separated; e.g. integer codes), "
        "by the generator and by the attack. Non-numeric columns already are, and the "
        "generator treats numbers with <= 10 distinct values so too (unless --numeric).",
    ),
    click.option(
        "--numeric",
        multiple=True,
        help="Numeric columns to keep numeric (comma-separated; e.g. a 1-10 score), by the "
        "generator and by the attack, whatever their number of distinct values.",
    ),
    click.option(
        "--synthesis",
        type=click.Choice(["full", "reduced"]),
        default="full",
        show_default=True,
        help="Mix the neighbours over every FAMD axis, or only over the --ncp kept ones.",
    ),
    click.option(
        "--categorical-decoding",
        "decoding",
        type=click.Choice(["draw", "mode"]),
        default="draw",
        show_default=True,
        help="Each categorical value and missingness: a weighted random draw among the "
        "neighbours, or their weighted mode (copies whole real profiles; not private).",
    ),
    click.option(
        "--drop",
        multiple=True,
        help="Columns to leave out of the avatars entirely (comma-separated), e.g. "
        "identifiers or free text.",
    ),
    click.option(
        "--keep-identifiers",
        multiple=True,
        help="Identifier columns to pass through knowingly (comma-separated): left out of "
        "the mix, each avatar carries its own individual's value, which links the two.",
    ),
)

#: The parameters :func:`generator_options` gathers into one ``GeneratorSettings``.
GENERATOR_PARAMS = ("ncp", "categorical", "numeric", "synthesis", "decoding", "drop",
                    "keep_identifiers")  # fmt: skip


def settings_of(params: Mapping[str, Any]) -> GeneratorSettings:
    """The generator settings of parsed command-line values (``k`` and ``seed`` when
    the command has them as whole numbers, else the defaults: 20, a fresh draw)."""
    k, seed = params.get("k"), params.get("seed")
    return GeneratorSettings(
        k=k if isinstance(k, int) else 20, seed=seed if isinstance(seed, int) else None,
        ncp=params["ncp"], synthesis=params["synthesis"], decoding=params["decoding"],
        categorical=tuple(split_names(params["categorical"])),
        numeric=tuple(split_names(params["numeric"])),
        keep_identifiers=tuple(split_names(params["keep_identifiers"])),
        drop=tuple(split_names(params["drop"])),
    )  # fmt: skip


def generator_options(func: F) -> F:
    """The generator's options on a command, which receives
    them as one ``generator: GeneratorSettings`` (its k and seed: the defaults; the
    command sets its own)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        params = {name: kwargs.pop(name) for name in GENERATOR_PARAMS}
        kwargs["generator"] = settings_of(params)
        return func(*args, **kwargs)

    return _generator_clicks(cast(F, wrapper))


def drop_columns(frame: pl.DataFrame, drop: list[str], label: str) -> pl.DataFrame:
    """The table without the --drop columns (each must exist in it)."""
    if not drop:
        return frame
    check_columns(frame.columns, drop, label)
    return frame.drop(drop)


#: The attack and the output options of ``sweep`` and ``tune``.
@click.command("avatarize", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The avatar table to write: .csv or .parquet.",
)
@click.option(
    "--k",
    "k",
    type=whole("--k", 1),
    default=20,
    show_default=True,
    help="Neighbours mixed into each avatar (>= 1, fewer than the rows): a larger k "
    "averages more neighbours per avatar and keeps less detail; what it does to the KPR "
    "of your table, measure with `kpr sweep`.",
)
@click.option(
    "--seed",
    type=SEED,
    help="Seed (>= 0) for a reproducible table (default: a fresh random draw). Keep it private, "
    "like the pairing: with the original, it rebuilds who became which avatar.",
)
@click.option(
    "--pairing-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write which avatar row each original row became (original_row, avatar_row; "
    ".csv or .parquet). Never written otherwise: keep it with the original.",
)
@click.option(
    "--roles-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write each column's role (numeric, categorical, identifier...) and why, as JSON.",
)
@generator_options
@READ
@QUIET
def avatarize_command(
    original: str,
    output: Path,
    k: int,
    seed: int | None,
    pairing_out: Path | None,
    roles_out: Path | None,
    generator: GeneratorSettings,
    read: ReadSettings,
    quiet: bool,
) -> None:
    """Write an avatar table of ORIGINAL (CSV or Parquet): one synthetic individual per
    original one, mixed from its k nearest neighbours (Avatar method); same columns and
    types, rows shuffled.

    \b
    Example:
      kpr avatarize patients.csv -o avatars.csv --k 20 --seed 7
    """
    check_output(output, "--output")
    if pairing_out is not None:
        check_output(pairing_out, "--pairing-out")
    if roles_out is not None:
        _check_json_output(roles_out, "--roles-out")
    outputs = {"--output": output, "--pairing-out": pairing_out, "--roles-out": roles_out}
    check_files(outputs, [original])
    settings = generator.with_run(k, seed)
    with render.progress(stderr, quiet, held=True) as step:
        step(f"reading {original}")
        frame = read_original(original, categorical=list(settings.categorical), csv=read)
        frame = drop_columns(frame, list(settings.drop), original)
        step(f"generating {frame.height:,} avatars (k={k})")
        gen = generate_with(frame, settings)
        step(f"writing {output}")
        write_table(gen.avatars, output)
        if pairing_out is not None:
            step(f"writing {pairing_out}")
            write_table(pairing_frame(gen.pairing), pairing_out)
        roles = cast(Roles, gen.roles)
        if roles_out is not None:
            step(f"writing {roles_out}")
            text = roles.to_json() + "\n"
            write_text(roles_out, text)
    drawn = f"seed {seed}" if seed is not None else "no --seed: a new random draw each run"
    lines = [
        f"Wrote {frame.height:,} avatars ({frame.width} columns) to {output} (k={k}, {drawn}, "
        f"categoricals decoded by {settings.decoding}).",
        "Column roles:",
        *roles.text(),
    ]
    if pairing_out is not None:
        lines.append(f"Wrote the pairing to {pairing_out}: keep it as private as the original.")
    if roles_out is not None:
        lines.append(f"Wrote the column roles to {roles_out}.")
    render.print_text(summary_console(output, pairing_out, roles_out), "\n".join(lines))


def _check_json_output(path: Path, option: str) -> None:
    """A JSON output is named .json (the rest is checked with the other outputs)."""
    if str(path) != STDOUT and Path(path).suffix.lower() != ".json":
        raise InputError(f"{option} {str(path)!r} must end in .json")


@click.command("distance", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@click.argument("synthetic", type=click.Path(path_type=str))
@click.option(
    "--holdout",
    type=click.Path(path_type=str),
    help="Real individuals NOT used to make SYNTHETIC (CSV or Parquet): their own "
    "closeness to ORIGINAL is the baseline.",
)
@click.option(
    "--ncp",
    type=whole("--ncp", 1),
    default=5,
    show_default=True,
    help="FAMD axes of the space fitted on ORIGINAL in which distances are measured (>= 1).",
)
@click.option(
    "--categorical",
    multiple=True,
    help="Columns to treat as categorical (comma-separated; e.g. integer codes).",
)
@click.option(
    "--numeric",
    multiple=True,
    help="Numeric columns to keep numeric (comma-separated; e.g. a 1-10 score) although "
    "they have <= 10 distinct values.",
)
@click.option(
    "--pairing",
    type=click.Path(path_type=str),
    help="Which SYNTHETIC row each ORIGINAL row became (CSV or Parquet with original_row "
    "and avatar_row): adds the hidden rate and the median local cloaking.",
)
@READ
@FORMAT
@QUIET
def distance_command(
    original: str,
    synthetic: str,
    holdout: str | None,
    ncp: int,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    pairing: str | None,
    read: ReadSettings,
    fmt: str,
    quiet: bool,
) -> None:
    """How close the rows of any SYNTHETIC table sit to the real records of ORIGINAL:
    share of exact copies, median distance to the closest record (DCR) and median
    nearest/second-nearest ratio (NNDR), in the FAMD space fitted on ORIGINAL; with
    --pairing, the hidden rate and local cloaking of the Avatar method.

    \b
    Example:
      kpr distance patients.csv synthetic.csv --holdout holdout.csv
    """
    cats = split_names(categorical)
    with render.progress(stderr, quiet, held=True) as step:
        step(f"reading {original}")
        frame = read_original(original, categorical=cats, csv=read)
        other = read_like(
            frame,
            synthetic,
            (f"original {original}", f"synthetic {synthetic}"),
            categorical=cats,
            csv=read,
        )
        held = None
        if holdout is not None:
            labels = (f"original {original}", f"holdout {holdout}")
            held = read_like(frame, holdout, labels, categorical=cats, csv=read, role="holdout")
        step("measuring the distances")
        result = distance_metrics(
            frame, other, held, ncp=ncp, categorical=cats, numeric=split_names(numeric),
            pairing=pairing,
        )  # fmt: skip
    emit(fmt, result.to_json, result.text)
