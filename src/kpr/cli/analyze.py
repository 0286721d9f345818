"""``kpr analyze``: what an attacker's knowledge buys them.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

from pathlib import Path

import click

from kpr.analysis import DEFAULT_MAX_ATTACKS, DEFAULT_TOLERANCES, analyze, check_tolerances
from kpr.cli.common import CONTEXT, check_writes, emit, report_option, stderr
from kpr.cli.options import (
    CONTROL,
    CONTROL_NEEDS,
    FORMAT,
    KPR_AVATARS,
    PAIRING,
    QUIET,
    TABLE_SETTINGS,
    Checked,
    Control,
    TableSettings,
    candidates_option,
    requires,
    split_names,
    whole,
)
from kpr.demo import DEMO_KNOWN, demo_paths
from kpr.errors import InputError

from . import text


def _parse_tolerances(value: str) -> tuple[float, ...]:
    """``--tolerances``: comma-separated, each checked as the API checks its tolerances."""
    values = [v.strip() for v in value.split(",") if v.strip()]
    if not values:
        raise InputError("--tolerances is empty: give e.g. 0.01,0.02,0.05,0.1,0.2")
    return check_tolerances(values)


@click.command("analyze", context_settings=CONTEXT)
@click.argument("original", required=False, type=click.Path(path_type=str))
@click.argument("avatars", required=False, type=click.Path(path_type=str))
@candidates_option(
    "Variables an attacker might know, comma-separated; every subset of up to "
    "--max-known of them is attacked."
)
@click.option(
    "--known",
    "-k",
    multiple=True,
    help="The attack the interval, baselines and tolerance curve are for "
    "(default: all candidates).",
)
@click.option(
    "--max-known",
    type=whole("--max-known", 1),
    help="Largest subset in the sweep (default: 3, or fewer when there are fewer candidates).",
)
@click.option(
    "--max-attacks",
    type=whole("--max-attacks", 1),
    default=DEFAULT_MAX_ATTACKS,
    show_default=True,
    help="Refuse a sweep of more attacks than this (subsets of --candidates); raise it "
    "to run a larger sweep.",
)
@CONTROL
@PAIRING
@KPR_AVATARS
@click.option(
    "--tolerances",
    type=Checked("tolerances", _parse_tolerances),
    default=",".join(f"{t:g}" for t in DEFAULT_TOLERANCES),
    show_default=True,
    help="Tolerances of the curve, comma-separated.",
)
@click.option(
    "--method",
    type=click.Choice(["bins", "window"]),
    default="bins",
    show_default=True,
    help="bins: the specified KPR (classes); window: ± tolerance * |mean| around each value.",
)
@TABLE_SETTINGS
@FORMAT
@click.option(
    "--top", type=whole("--top", 0), default=10, show_default=True,
    help="How many of the riskiest subsets to show (text and --report; JSON holds all).",
)  # fmt: skip
@report_option
@QUIET
@click.option(
    "--demo",
    is_flag=True,
    help="Analyze the bundled demo (UCI Adult against a synthetic version); candidates "
    "default to age, sex, race, marital_status, education, native_country.",
)
def analyze_command(
    original: str | None,
    avatars: str | None,
    candidates: tuple[str, ...],
    known: tuple[str, ...],
    max_known: int | None,
    max_attacks: int,
    control: Control,
    pairing: str | None,
    kpr_avatars: bool,
    tolerances: tuple[float, ...],
    method: str,
    table_settings: TableSettings,
    fmt: str,
    top: int,
    report: Path | None,
    quiet: bool,
    demo: bool,
) -> None:
    """Which known variables put individuals at risk: the rate of every subset of the
    CANDIDATES, each variable's contribution, the Wilson interval, the control and
    the original published as is, the worst case, and the rate across tolerances.

    \b
    Examples:
      kpr analyze original.csv avatars.csv --candidates age,sex,region,zip --max-known 3
      kpr analyze original.csv avatars.csv -c age,sex,region --control holdout.csv
      kpr analyze --demo --report analysis.html
    \f
    Parameters
    ----------
    original, avatars : the two tables' paths (None with ``--demo``).
    candidates, known : ``--candidates`` and ``--known``, comma-separated lists.
    max_known, max_attacks : the sweep's largest subset and its number of attacks.
    control : ``--control``, ``--control-subsets``, ``--seed`` (a Control).
    pairing, kpr_avatars : ``--pairing``, ``--kpr-avatars``.
    tolerances, method : the curve's tolerances, bins or window.
    table_settings : ``--tolerance`` (the attack's), the kinds and the CSV options (a
        TableSettings).
    fmt, top, report, quiet : what is printed and written.
    demo : analyze the bundled demo instead of ORIGINAL and AVATARS.
    """
    requires(click.get_current_context(), CONTROL_NEEDS)
    original, avatars, labels = _tables(original, avatars, demo)
    names, known_names, max_known = _attack_names(candidates, known, max_known, demo)
    inputs = [original, avatars, *([control.path] if control.path else [])]
    labels += inputs[2:]
    check_writes({"--report": report}, inputs, fmt)  # before the work
    with text.progress_bar(stderr, quiet) as progress:
        result = analyze(
            original, avatars, known_names, candidates=names or None, max_known=max_known,
            **control.keywords(), pairing=pairing, tolerances=tolerances,
            method=method,  # type: ignore[arg-type]
            progress=progress, **table_settings.keywords(), max_attacks=max_attacks,
        )  # fmt: skip
    if report is not None:
        result.to_html(report, top=top, inputs=labels, kpr_avatars=kpr_avatars)
    emit(fmt, result.to_json, lambda: text.text_report(result, top, kpr_avatars), report)


def _attack_names(
    candidates: tuple[str, ...], known: tuple[str, ...], max_known: int | None, demo: bool
) -> tuple[list[str], list[str] | None, int]:
    """The candidates (the demo's by default with ``--demo``), the known variables, and
    the sweep's largest subset (3 by default, fewer when fewer are candidates)."""
    names = split_names(candidates) or (list(DEMO_KNOWN) if demo else [])
    known_names = split_names(known) or None
    if not names and known_names is None:
        raise InputError("give --candidates: the variables an attacker might know")
    if max_known is None:
        max_known = min(3, len(names)) if names else 3
    return names, known_names, max_known


def _tables(original: str | None, avatars: str | None, demo: bool) -> tuple[str, str, list[str]]:
    """ORIGINAL and AVATARS, or the bundled demo's with ``--demo``; and their labels."""
    if demo:
        if original is not None or avatars is not None:
            raise InputError("--demo uses the bundled tables: give no ORIGINAL or AVATARS")
        paths = demo_paths()
        return str(paths[0]), str(paths[1]), [f"{p.name} (bundled demo)" for p in paths]
    if original is None or avatars is None:
        raise click.UsageError("give ORIGINAL and AVATARS (or --demo)")
    return original, avatars, [original, avatars]
