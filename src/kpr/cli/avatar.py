"""``kpr avatarize``, ``kpr sweep`` and ``kpr tune``: make avatars, and choose k.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import click
import polars as pl

from kpr.avatar.distance import distance_metrics
from kpr.avatar.files import check_output, pairing_frame, read_original, write_table
from kpr.avatar.generator import generate
from kpr.avatar.roles import Roles
from kpr.avatar.tuning import DEFAULT_KS, DEFAULT_TUNE_KS, sweep, tune
from kpr.cli.common import (
    CONTEXT,
    check_files,
    check_report,
    report_option,
    stderr,
    stdout,
    summary_console,
    written,
)
from kpr.cli.options import (
    CONTROL_SUBSETS,
    CSV,
    FORMAT,
    QUIET,
    TOLERANCE,
    csv_options,
    options,
    split_names,
)
from kpr.errors import InputError
from kpr.inputs.files import check_columns
from kpr.inputs.writers import STDOUT, write_text
from kpr.metric.attack import check_tolerance
from kpr.results.evaluation import format_rate
from kpr.results.ksweep import EXPLAIN, Decoding, SweepOverK, SweepRow, Synthesis, TuneResult

from . import render


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


def parse_target(value: str) -> float:
    """A percentage in (0, 100]."""
    try:
        target = float(value)
    except ValueError:
        raise InputError(f"--target must be a percentage in (0, 100], got {value!r}") from None
    if not (0.0 < target <= 100.0):  # also rejects NaN
        raise InputError(f"--target must be a percentage in (0, 100], such as 95; got {value!r}")
    return target


#: Options of the Avatar generator and of reading CSV files, shared by the commands.
generator_options = options(
    click.option(
        "--ncp",
        type=int,
        default=5,
        show_default=True,
        help="FAMD axes on which neighbours are searched.",
    ),
    click.option(
        "--categorical",
        multiple=True,
        help="Columns to treat as categorical (comma-separated; e.g. integer codes), "
        "by the generator and by the attack. Non-numeric columns already are, and the "
        "generator treats numbers with <= 10 distinct values so too.",
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
    CSV,
)


def drop_columns(frame: pl.DataFrame, drop: list[str], label: str) -> pl.DataFrame:
    """The table without the --drop columns (each must exist in it)."""
    if not drop:
        return frame
    check_columns(frame.columns, drop, label)
    return frame.drop(drop)


#: The attack and the output options of ``sweep`` and ``tune``.
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
        type=int,
        default=0,
        show_default=True,
        help="Seed of the first repeat; repeat i uses seed + i.",
    ),
    click.option(
        "--repeats",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Avatar tables generated per k (KPR mean, min and max over them).",
    ),
    FORMAT,
    QUIET,
)


# --- kpr avatarize ---------------------------------------------------------------------


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
    type=int,
    default=20,
    show_default=True,
    help="Neighbours mixed into each avatar: higher protects more, keeps less detail.",
)
@click.option(
    "--seed",
    type=int,
    help="Seed for a reproducible table (default: a fresh random draw). Keep it private, "
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
@QUIET
def avatarize_command(
    original: str,
    output: Path,
    k: int,
    seed: int | None,
    pairing_out: Path | None,
    roles_out: Path | None,
    ncp: int,
    categorical: tuple[str, ...],
    synthesis: str,
    decoding: str,
    drop: tuple[str, ...],
    keep_identifiers: tuple[str, ...],
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
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
    if seed is not None and seed < 0:
        raise InputError(f"--seed must be a whole number >= 0, got {seed}")
    cats = split_names(categorical)
    csv = csv_options(delimiter, encoding, na_value)
    with render.progress(stderr, quiet) as step:
        step(f"reading {original}")
        frame = read_original(original, categorical=cats, csv=csv)
        frame = drop_columns(frame, split_names(drop), original)
        step(f"generating {frame.height:,} avatars (k={k})")
        gen = generate(
            frame, k=k, ncp=ncp, seed=seed, categorical=cats, synthesis=cast(Synthesis, synthesis),
            categorical_decoding=cast(Decoding, decoding),
            keep_identifiers=split_names(keep_identifiers),
        )  # fmt: skip
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
        f"categoricals decoded by {decoding}).",
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


# --- kpr sweep and kpr tune: text output -----------------------------------------------


def _num(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}" if x == x else "-"  # NaN: undefined metric


def sweep_table(result: SweepOverK, rows: list[SweepRow] | None = None) -> list[str]:
    """One line per k: KPR, interval, (spread, control,) pairing metrics, utility, time."""
    rows = result.rows if rows is None else rows
    conf = f"{result.confidence * 100:g} % CI"
    spread = result.repeats > 1
    control = result.has_control
    head = f"  {'k':>5}  {'KPR':>9}  {conf:<18}"
    if spread:
        head += f" {'min to max':<18}"
    if control:
        head += f" {'control-orig':>12}"
    head += (
        f"  {'correct':>7}  {'re-id':>7}  {'hidden':>8}  {'med LC':>6}  {'copies':>8}  "
        f"{'DCR':>7}  {'NNDR':>5}  {'Hellinger':>9}  {'corr diff':>9}  {'gen s':>6}"
    )
    lines = [head]
    for r in rows:
        low, high = r.interval
        line = f"  {r.k:>5}  {format_rate(r.kpr):>9}  {f'{low:.2f} to {high:.2f} %':<18}"
        if spread:
            line += f" {f'{r.kpr_min:.2f} to {r.kpr_max:.2f} %':<18}"
        if control:
            d = r.control_difference
            line += f" {f'{d:+.2f} pts' if d is not None else '-':>12}"
        line += (
            f"  {r.correct_links:>7g}  {r.reidentification:>5.2f} %  {r.hidden_rate:>6.2f} %  "
            f"{r.median_local_cloaking:>6g}  {r.exact_copy_share:>6.2f} %  "
            f"{_num(r.median_dcr, 3):>7}  {_num(r.median_nndr, 2):>5}  "
            f"{_num(r.mean_hellinger):>9}  {_num(r.correlation_difference):>9}  {r.seconds:>6.2f}"
        )
        lines.append(line)
    if control:
        lines += _control_lines(rows, conf)
    baseline = next((r.control_distance for r in rows if r.control_distance), None)
    if baseline is not None:
        lines.append(
            f"  control's own closeness to the originals (baseline): copies "
            f"{baseline['exact_copy_share']:.2f} %, DCR {_num(baseline['median_dcr'], 3)}, "
            f"NNDR {_num(baseline['median_nndr'], 2)}"
        )
    return lines


def _control_lines(rows: list[SweepRow], conf: str) -> list[str]:
    """Each k's size-fair control comparison (as ``kpr evaluate --control`` words it)."""
    lines = []
    for r in rows:
        c = r.control_dict()
        if c is None:
            continue
        span = c["difference_interval"]
        drawn = (
            f", {c['subsets']} random subsets of the {c['subsampled']}" if c["subsampled"] else ""
        )
        lines.append(
            f"  k = {r.k}: compared at n = {c['compared_at_size']:,}{drawn}: original "
            f"{format_rate(c['original_kpr_at_size'])}, control "
            f"{format_rate(c['control_kpr_at_size'])}; control minus original "
            f"{c['difference']:+.2f} points ({conf} {span['low']:+.2f} to {span['high']:+.2f})"
        )
    shared = next((r.control_dict() for r in rows if r.controls), None)
    if shared is not None and shared["shared_rows"]:
        lines.append(
            f"  warning: {shared['shared_rows']:,} control rows "
            f"({100 * shared['shared_share']:.1f} %) are also rows of the original: remove them"
        )
    return lines


def _header(result: SweepOverK) -> list[str]:
    seeds = (
        f"seed {result.seed}"
        if result.repeats == 1
        else f"{result.repeats} repeats, seeds {result.seed}..{result.seed + result.repeats - 1}"
    )
    return [
        f"Known variables: {', '.join(result.known)} (tolerance {result.tolerance:g}; "
        f"n {result.n:,})",
        f"Avatar method: ncp {result.ncp}, synthesis {result.synthesis}, categoricals "
        f"decoded by {result.decoding}, {seeds}",
    ]


def _roles_lines(result: SweepOverK) -> list[str]:
    if not result.roles:
        return []
    columns = result.roles["columns"]
    parts = [
        f"{c['column']} {c['role']}" + (" + missingness" if c["missingness"] else "")
        for c in columns
    ]
    lines = ["Column roles: " + ", ".join(parts)]
    lines += [f"  warning: {c['column']}: {f}" for c in columns for f in c["flags"]]
    return lines


def _explanations(result: SweepOverK) -> list[str]:
    keys = [k for k in EXPLAIN if k != "control" or result.has_control]
    return [f"  {EXPLAIN[k].format(conf=result.confidence * 100)}" for k in keys]


def sweep_text(result: SweepOverK) -> str:
    """The sweep as plain text: parameters, the table, what each column means."""
    lines = ["KPR and utility of the avatars against k", *_header(result), *_roles_lines(result)]
    lines.append("")
    lines += [result.summary(), ""]
    lines += sweep_table(result)
    lines += ["", *_explanations(result)]
    return "\n".join(lines)


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


def tune_text(result: TuneResult, reproduce: str) -> str:
    """The pick (or why there is none), its privacy and utility, and every k evaluated."""
    lines = []
    row = result.row
    if row is not None:
        low, high = row.interval
        conf = f"{result.sweep.confidence * 100:g} %"
        lines += [
            f"Smallest k reaching a KPR lower bound of {result.target:g} %: k = {row.k}",
            f"  KPR {format_rate(row.kpr)} ({conf} CI {low:.2f} to {high:.2f} %)",
            f"  utility: mean Hellinger {_num(row.mean_hellinger)}, correlation difference "
            f"{_num(row.correlation_difference)}",
            f"  privacy: {row.correct_links:g} correct links (re-identification "
            f"{row.reidentification:.2f} %), hidden rate {row.hidden_rate:.2f} %, median local "
            f"cloaking {row.median_local_cloaking:g}, exact copies {row.exact_copy_share:.2f} %, "
            f"median DCR {_num(row.median_dcr, 3)}",
        ]
    else:
        lines.append(f"Target not reached: {result.message}")
    lines += ["", *_header(result.sweep), ""]
    lines.append(
        "Evaluated in increasing k, stopping at the first that reaches the target "
        "(larger ks not evaluated):"
    )
    lines += sweep_table(result.sweep)
    if row is not None:
        lines += [
            "",
            "KPR usually rises with k but is not guaranteed to: check the table you publish.",
            f"The table measured for k = {row.k}"
            + (f" (first repeat, seed {result.sweep.seed}):" if result.sweep.repeats > 1 else ":"),
            f"  {reproduce}",
        ]
    return "\n".join(lines)


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
    tolerance: str,
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
    names = split_names(known)
    tol = check_tolerance(tolerance)
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
            ncp=ncp, tolerance=tol, categorical=cats, progress=progress,
            synthesis=cast(Synthesis, synthesis), categorical_decoding=cast(Decoding, decoding),
            keep_identifiers=split_names(keep_identifiers), control_subsets=control_subsets,
        )  # fmt: skip
    result.inputs = {"original": original, **({"control": control} if control else {})}
    if report is not None:
        result.to_html(report)
    if fmt == "json":
        sys.stdout.write(result.to_json() + "\n")
    else:
        render.print_text(summary_console(report), sweep_text(result) + written(report))


# --- kpr tune --------------------------------------------------------------------------


@click.command("tune", context_settings=CONTEXT)
@click.argument("original", type=click.Path(path_type=str))
@attack_options
@click.option(
    "--target",
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
    tolerance: str,
    seed: int,
    repeats: int,
    fmt: str,
    quiet: bool,
    target: str,
    ks: str,
    ncp: int,
    categorical: tuple[str, ...],
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
    the target; KPR usually rises with k, but nothing guarantees it, so larger ks are
    not evaluated nor promised to reach it. With --repeats, the lowest lower bound of
    the repeats must reach it.

    \b
    Example:
      kpr tune patients.csv --known age,sex,zip --target 95 --ks 5,10,20,40,80
    """
    names = split_names(known)
    tol = check_tolerance(tolerance)
    goal = parse_target(target)
    wanted = parse_ks(ks, "--ks")
    cats = split_names(categorical)
    csv = csv_options(delimiter, encoding, na_value)
    frame = read_original(original, categorical=cats, csv=csv)
    frame = drop_columns(frame, split_names(drop), original)
    with render.progress_bar(stderr, quiet) as progress:
        result = tune(
            frame, names, target=goal, ks=wanted, repeats=repeats, seed=seed, ncp=ncp,
            tolerance=tol, categorical=cats, progress=progress,
            synthesis=cast(Synthesis, synthesis), categorical_decoding=cast(Decoding, decoding),
            keep_identifiers=split_names(keep_identifiers),
        )  # fmt: skip
    result.sweep.inputs = {"original": original}
    reproduce = ""
    if result.k is not None:
        params: dict[str, object] = {
            "--ncp": ncp, "--synthesis": synthesis, "--categorical-decoding": decoding,
            "--categorical": categorical, "--drop": drop, "--keep-identifiers": keep_identifiers,
        }  # fmt: skip
        reading = {"--delimiter": delimiter, "--encoding": encoding, "--na-value": na_value}
        reproduce = reproduce_command(original, result.k, seed, params, reading)
    if fmt == "json":
        payload = result.to_dict()
        payload["reproduce"] = reproduce or None
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    else:
        render.print_text(stdout, tune_text(result, reproduce))
    if not result.reached:
        sys.exit(1)


# --- kpr distance ----------------------------------------------------------------------


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
    type=int,
    default=5,
    show_default=True,
    help="FAMD axes of the space fitted on ORIGINAL in which distances are measured.",
)
@click.option(
    "--categorical",
    multiple=True,
    help="Columns to treat as categorical (comma-separated; e.g. integer codes).",
)
@CSV
@FORMAT
def distance_command(
    original: str,
    synthetic: str,
    holdout: str | None,
    ncp: int,
    categorical: tuple[str, ...],
    delimiter: str | None,
    encoding: str | None,
    na_value: tuple[str, ...],
    fmt: str,
) -> None:
    """How close the rows of any SYNTHETIC table sit to the real records of ORIGINAL:
    share of exact copies, median distance to the closest record (DCR) and median
    nearest/second-nearest ratio (NNDR), in the FAMD space fitted on ORIGINAL.

    \b
    Example:
      kpr distance patients.csv synthetic.csv --holdout holdout.csv
    """
    cats = split_names(categorical)
    csv = csv_options(delimiter, encoding, na_value)
    frame = read_original(original, categorical=cats, csv=csv)
    other = read_original(synthetic, categorical=cats, csv=csv, role="synthetic")
    check_columns(other.columns, frame.columns, synthetic)
    held = None
    if holdout is not None:
        held = read_original(holdout, categorical=cats, csv=csv, role="holdout")
        check_columns(held.columns, frame.columns, holdout)
    result = distance_metrics(frame, other, held, ncp=ncp, categorical=cats)
    if fmt == "json":
        sys.stdout.write(result.to_json() + "\n")
    else:
        render.print_text(stdout, result.text())
