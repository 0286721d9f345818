"""``kpr sweep`` and ``kpr tune``: choose k, by generating avatars for each k and
measuring their privacy and utility; and their text output.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import click

from kpr.avatar.files import read_original
from kpr.avatar.tuning import DEFAULT_KS, DEFAULT_TUNE_KS, sweep, tune
from kpr.cli.common import (
    CONTEXT,
    check_files,
    check_report,
    emit,
    report_option,
    stderr,
)
from kpr.cli.options import (
    CONTROL_SUBSETS,
    FORMAT,
    QUIET,
    SEED,
    TARGET,
    TOLERANCE,
    csv_options,
    options,
    requires,
    split_names,
    whole,
)
from kpr.errors import InputError
from kpr.results import json
from kpr.results.ksweep import Decoding, Synthesis

from . import text as render
from .avatar import drop_columns, generator_options


def parse_ks(value: str, option: str) -> tuple[int, ...]:
    """``2,5,10``: whole numbers separated by commas (range checks come with the table)."""
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise InputError(f"{option} is empty: give whole numbers such as 2,5,10,20,40")
    out = []
    for part in parts:
        try:
            out.append(int(part))
        except ValueError:
            raise InputError(
                f"{option} takes whole numbers separated by commas (e.g. 2,5,10,20,40); "
                f"{part!r} is not one"
            ) from None
    return tuple(out)


#: Options of the Avatar generator and of reading CSV files, shared by the commands.
attack_options = options(
    click.option(
        "--known",
        "-k",
        multiple=True,
        required=True,
        help="Variables the attacker knows, comma-separated.",
    ),
    TOLERANCE,
    click.option(
        "--seed",
        type=SEED,
        default=0,
        show_default=True,
        help="Seed of the first repeat (>= 0); repeat i uses seed + i.",
    ),
    click.option(
        "--repeats",
        type=whole("--repeats", 1),
        default=1,
        show_default=True,
        help="Avatar tables generated per k (KPR mean, min and max over them).",
    ),
    FORMAT,
    QUIET,
)


def reproduce_command(
    original: str, k: int, seed: int, params: Mapping[str, object], csv: Mapping[str, object]
) -> str:
    """The ``kpr avatarize`` command that writes exactly the table measured: the same
    reading of the file (delimiter, encoding, missing markers, kinds) and the same
    generator options (ncp, synthesis, decoding, dropped and passed-through columns)."""
    args = ["kpr", "avatarize", original, "-o", "avatars.parquet", "--k", str(k)]
    args += ["--seed", str(seed)]
    for option, value in {**params, **csv}.items():
        if isinstance(value, list | tuple):
            for v in value:
                args += [option, str(v)]
        elif value is not None:
            args += [option, str(value)]
    return shlex.join(args)


# --- kpr sweep -------------------------------------------------------------------------


@click.command("sweep", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@attack_options
@click.option(
    "--k",
    "--ks",
    "ks",
    default=",".join(map(str, DEFAULT_KS)),
    show_default=True,
    help="The ks to try, comma-separated.",
)
@click.option(
    "--control",
    type=click.Path(path_type=str),
    help="Individuals of the same population NOT in ORIGINAL (CSV or Parquet): their KPR "
    "against the same avatars, compared with the original's at the same size, shows what "
    "population structure alone gives an attacker.",
)
@CONTROL_SUBSETS
@report_option
@generator_options
def sweep_command(
    original: str,
    known: tuple[str, ...],
    tolerance: float,
    seed: int,
    repeats: int,
    fmt: str,
    quiet: bool,
    ks: str,
    control: str | None,
    control_subsets: int,
    report: Path | None,
    ncp: int,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    synthesis: str,
    decoding: str,
    drop: tuple[str, ...],
    keep_identifiers: tuple[str, ...],
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
) -> None:
    """For each k, generate avatars of ORIGINAL and report the KPR (with its interval),
    the correct links (linked to their own avatar) and re-identification rate, the
    hidden rate, the median local cloaking, the exact copies, DCR and NNDR, and the
    utility (mean Hellinger, correlation difference): the privacy/utility trade-off
    of k on your own data.

    \b
    Examples:
      kpr sweep patients.csv --known age,sex,zip --k 2,5,10,20,40
      kpr sweep patients.parquet -k age,sex --repeats 3 --control holdout.parquet \\
          --report sweep.html
    """
    requires(click.get_current_context(), {"control_subsets": "control"})
    names = split_names(known)
    wanted = parse_ks(ks, "--k")
    check_files({"--report": report}, [original, *([control] if control else [])], fmt)
    check_report(report)
    cats = split_names(categorical)
    csv = csv_options(delimiter, encoding, na_value)
    dropped = split_names(drop)
    frame = drop_columns(read_original(original, categorical=cats, csv=csv), dropped, original)
    control_frame = None
    if control is not None:
        control_frame = read_original(control, categorical=cats, csv=csv, role="control")
        control_frame = control_frame.drop([c for c in dropped if c in control_frame.columns])
    with render.progress_bar(stderr, quiet) as progress:
        result = sweep(
            frame, names, ks=wanted, repeats=repeats, seed=seed, control=control_frame,
            ncp=ncp, tolerance=tolerance, categorical=cats, progress=progress,
            synthesis=cast(Synthesis, synthesis), categorical_decoding=cast(Decoding, decoding),
            keep_identifiers=split_names(keep_identifiers), control_subsets=control_subsets,
            numeric=split_names(numeric),
        )  # fmt: skip
    result.inputs = {"original": original, **({"control": control} if control else {})}
    if report is not None:
        result.to_html(report)
    emit(fmt, result.to_json, lambda: render.sweep_text(result), report)


# --- kpr tune --------------------------------------------------------------------------


@click.command("tune", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@attack_options
@click.option(
    "--target",
    type=TARGET,
    required=True,
    help="The KPR (percent) the lower bound of its 95 % interval must reach, e.g. 95.",
)
@click.option(
    "--ks",
    "--k",
    "ks",
    default=",".join(map(str, DEFAULT_TUNE_KS)),
    show_default=True,
    help="The ks to try, comma-separated; tried in increasing order.",
)
@generator_options
def tune_command(
    original: str,
    known: tuple[str, ...],
    tolerance: float,
    seed: int,
    repeats: int,
    fmt: str,
    quiet: bool,
    target: float,
    ks: str,
    ncp: int,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    synthesis: str,
    decoding: str,
    drop: tuple[str, ...],
    keep_identifiers: tuple[str, ...],
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
) -> None:
    """The smallest k whose KPR lower bound (95 % interval) reaches --target, with its
    utility. Exit code 1 when no k of --ks reaches it (a failed gate).

    The ks are tried in increasing order and the search stops at the first that reaches
    the target; nothing makes the KPR rise with k (measure it with `kpr sweep`), so
    larger ks are not evaluated nor promised to reach it. With --repeats, the lowest
    lower bound of the repeats must reach it.

    \b
    Example:
      kpr tune patients.csv --known age,sex,zip --target 95 --ks 5,10,20,40,80
    """
    names = split_names(known)
    wanted = parse_ks(ks, "--ks")
    cats = split_names(categorical)
    csv = csv_options(delimiter, encoding, na_value)
    frame = read_original(original, categorical=cats, csv=csv)
    frame = drop_columns(frame, split_names(drop), original)
    with render.progress_bar(stderr, quiet) as progress:
        result = tune(
            frame, names, target=target, ks=wanted, repeats=repeats, seed=seed, ncp=ncp,
            tolerance=tolerance, categorical=cats, progress=progress,
            synthesis=cast(Synthesis, synthesis), categorical_decoding=cast(Decoding, decoding),
            keep_identifiers=split_names(keep_identifiers), numeric=split_names(numeric),
        )  # fmt: skip
    result.sweep.inputs = {"original": original}
    reproduce = ""
    if result.k is not None:
        params: dict[str, object] = {
            "--ncp": ncp, "--synthesis": synthesis, "--categorical-decoding": decoding,
            "--categorical": categorical, "--numeric": numeric, "--drop": drop,
            "--keep-identifiers": keep_identifiers,
        }  # fmt: skip
        reading = {"--delimiter": delimiter, "--encoding": encoding, "--na-value": na_value}
        reproduce = reproduce_command(original, result.k, seed, params, reading)
    emit(
        fmt,
        lambda: json.dumps({**result.to_dict(), "reproduce": reproduce or None}),
        lambda: render.tune_text(result, reproduce),
    )
    if not result.reached:
        sys.exit(1)
