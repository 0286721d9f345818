"""``kpr sweep`` and ``kpr tune``: choose k, by generating avatars for each k and
measuring their privacy and utility; and their text output.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kpr.avatar.tuning import (
    DEFAULT_KS,
    DEFAULT_TUNE_KS,
    DEFAULT_TUNE_REPEATS,
    cloaking_floor,
    control_bound,
)
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
    READ,
    SEED,
    TARGET,
    TOLERANCE,
    Checked,
    bundle,
    options,
    requires,
    split_names,
    whole,
)
from kpr.errors import InputError
from kpr.results import json
from kpr.results.avatar_settings import GeneratorSettings
from kpr.results.ksweep_tune import DEFAULT_MAX_CONTROL_DIFFERENCE, DEFAULT_MIN_CLOAKING

from . import text as render
from .avatar import generator_options
from .ksweep_text import sweep_text, tune_text

if TYPE_CHECKING:
    import polars as pl

    from kpr.inputs.reading import ReadSettings

F = TypeVar("F", bound=Callable[..., Any])


POINTS = Checked("points", lambda text: control_bound(text, "--max-control-difference"))
FLOOR = Checked("number", lambda text: cloaking_floor(text, "--min-cloaking"))


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


def ks_option(names: tuple[str, str], default: tuple[int, ...], why: str) -> Callable[[F], F]:
    """``--k``/``--ks``: the ks to try (sweep and tune list them in another order)."""
    return click.option(
        *names,
        "ks",
        default=",".join(map(str, default)),
        show_default=True,
        help=f"The ks to try, comma-separated{why}.",
    )


def repeats_option(default: int, why: str) -> Callable[[F], F]:
    """``--repeats``: avatar tables generated per k (sweep: 1; tune: 3)."""
    return click.option(
        "--repeats",
        type=whole("--repeats", 1),
        default=default,
        show_default=True,
        help=f"Avatar tables generated per k (KPR mean, min and max over them){why}.",
    )


@dataclass(frozen=True)
class SweepAttack:
    """The attack and output options shared by ``sweep`` and ``tune``: ``--known``,
    ``--tolerance``, ``--seed`` (of the first repeat), ``--format``, ``--quiet``."""

    known: tuple[str, ...]
    tolerance: float
    seed: int
    fmt: str
    quiet: bool

    @property
    def names(self) -> list[str]:
        """The known variables, each comma-separated option split."""
        return split_names(self.known)


#: The attack and output options, handed over as one ``attack``: a :class:`SweepAttack`.
attack_options = bundle(
    "attack",
    SweepAttack,
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
    FORMAT,
    QUIET,
)

#: ``--control`` and ``--control-subsets``, as sweep and tune take them.
control_options = options(
    click.option(
        "--control",
        type=click.Path(path_type=str),
        help="Individuals of the same population NOT in ORIGINAL (CSV or Parquet): their KPR "
        "against the same avatars, compared with the original's at the same size, shows what "
        "population structure alone gives an attacker.",
    ),
    CONTROL_SUBSETS,
)


def reproduce_command(original: str, settings: GeneratorSettings, read: ReadSettings) -> str:
    """The ``kpr avatarize`` command that writes exactly the table measured: the same
    generator settings and the same reading of the file, each written back by its
    ``to_args``."""
    args = ["kpr", "avatarize", original, "-o", "avatars.parquet", *settings.to_args()]
    return shlex.join([*args, *read.to_args()])


def _inputs(
    original: str,
    control: str | None,
    report: Path | None,
    fmt: str,
    generator: GeneratorSettings,
    csv: ReadSettings,
    known: Sequence[str],
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The outputs checked first (no report onto an input; matplotlib there), then the
    original and the control, read as the generator's declared kinds say (the sweep
    leaves the --drop columns out), each holding the ``known`` and declared columns
    (a missing one is named with its file here: the sweep sees tables, not files)."""
    from kpr.avatar.files import read_original
    from kpr.inputs.files import check_columns

    check_files({"--report": report}, [original, *([control] if control else [])], fmt)
    check_report(report)
    cats = list(generator.categorical)
    frame = read_original(original, categorical=cats, csv=csv)
    check_columns(
        frame.columns, [*known, *generator.numeric, *generator.drop], f"original {original}"
    )
    if control is None:
        return frame, None
    control_frame = read_original(control, categorical=cats, csv=csv, role="control")
    check_columns(control_frame.columns, known, f"control {control}")
    return frame, control_frame


# --- kpr sweep -------------------------------------------------------------------------


@click.command("sweep", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@attack_options
@repeats_option(1, "")
@ks_option(("--k", "--ks"), DEFAULT_KS, "")
@control_options
@report_option
@generator_options
@READ
def sweep_command(
    original: str,
    attack: SweepAttack,
    repeats: int,
    ks: str,
    control: str | None,
    control_subsets: int,
    report: Path | None,
    generator: GeneratorSettings,
    read: ReadSettings,
) -> None:
    """For each k, generate avatars of ORIGINAL and report the KPR (with its interval),
    the correct links (linked to their own avatar) and re-identification rate, the
    hidden rate, the median local cloaking, the exact copies, DCR and NNDR, and the
    utility (SDMetrics' quality score, column shapes and pair trends, mean Hellinger,
    correlation difference): the privacy/utility trade-off of k on your own data.

    \b
    Examples:
      kpr sweep patients.csv --known age,sex,zip --k 2,5,10,20,40
      kpr sweep patients.parquet -k age,sex --repeats 3 --control holdout.parquet \\
          --report sweep.html
    """
    from kpr.avatar.tuning import sweep

    requires(click.get_current_context(), {"control_subsets": "control"})
    names = attack.names
    wanted = parse_ks(ks, "--k")
    frame, control_frame = _inputs(original, control, report, attack.fmt, generator, read, names)
    with render.progress_bar(stderr, attack.quiet) as progress:
        result = sweep(
            frame, names, ks=wanted, repeats=repeats, control=control_frame,
            tolerance=attack.tolerance, progress=progress, control_subsets=control_subsets,
            generator=generator.with_run(generator.k, attack.seed),
        )  # fmt: skip
    result.inputs = {"original": original, **({"control": control} if control else {})}
    if report is not None:
        result.to_html(report)
    emit(attack.fmt, result.to_json, lambda: sweep_text(result), report)


# --- kpr tune --------------------------------------------------------------------------


@click.command("tune", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@attack_options
@repeats_option(
    DEFAULT_TUNE_REPEATS, "; several, so that each interval covers the generator's randomness"
)
@click.option(
    "--target",
    type=TARGET,
    required=True,
    help="Criterion: the KPR (percent) the lower bound of its 95 % interval must reach, "
    "e.g. 95 (with repeats, the lowest lower bound).",
)
@ks_option(("--ks", "--k"), DEFAULT_TUNE_KS, "; every one is evaluated")
@control_options
@click.option(
    "--max-control-difference",
    type=POINTS,
    default=f"{DEFAULT_MAX_CONTROL_DIFFERENCE:g}",
    show_default=True,
    help="Criterion (with --control): control minus original KPR at the same size, in "
    "points; its interval must lie entirely below this bound.",
)
@click.option(
    "--min-cloaking",
    type=FLOOR,
    default=f"{DEFAULT_MIN_CLOAKING:g}",
    show_default=True,
    help="Criterion: the median local cloaking (of every repeat) must be at least this.",
)
@report_option
@generator_options
@READ
def tune_command(
    original: str,
    attack: SweepAttack,
    repeats: int,
    target: float,
    ks: str,
    control: str | None,
    control_subsets: int,
    max_control_difference: float,
    min_cloaking: float,
    report: Path | None,
    generator: GeneratorSettings,
    read: ReadSettings,
) -> None:
    """Choose k on stated criteria: every k of --ks is generated --repeats times and
    measured; a k qualifies when its KPR lower bound reaches --target, its control
    difference's interval lies below --max-control-difference (with --control) and its
    median local cloaking reaches --min-cloaking; the chosen k is the most useful
    (SDMetrics' quality score) of those that qualify. Each criterion is shown met or
    not per k. Exit code 1 when no k meets them all (a failed gate), with what to try.

    \b
    Example:
      kpr tune patients.csv --known age,sex,zip --target 95 --ks 5,10,20,40 \\
          --control holdout.csv --report tune.html
    """
    from kpr.avatar.tuning import tune

    requires(
        click.get_current_context(),
        {"control_subsets": "control", "max_control_difference": "control"},
    )
    names = attack.names
    wanted = parse_ks(ks, "--ks")
    frame, control_frame = _inputs(original, control, report, attack.fmt, generator, read, names)
    with render.progress_bar(stderr, attack.quiet) as progress:
        result = tune(
            frame, names, target=target, ks=wanted, repeats=repeats, control=control_frame,
            tolerance=attack.tolerance, progress=progress, control_subsets=control_subsets,
            max_control_difference=max_control_difference, min_cloaking=min_cloaking,
            generator=generator.with_run(generator.k, attack.seed),
        )  # fmt: skip
    result.sweep.inputs = {"original": original, **({"control": control} if control else {})}
    reproduce = ""
    if result.k is not None:
        reproduce = reproduce_command(original, result.sweep.settings(result.k), read)
    if report is not None:
        result.to_html(report)
    emit(
        attack.fmt,
        lambda: json.dumps({**result.to_dict(), "reproduce": reproduce or None}),
        lambda: tune_text(result, reproduce),
        report,
    )
    if not result.reached:
        sys.exit(1)
