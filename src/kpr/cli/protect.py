"""``kpr protect``: fix an avatar table to a target rate, verified, at a measured cost.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kpr.analysis.sweep import DEFAULT_MAX_ATTACKS
from kpr.cli.common import CONTEXT, check_writes, emit, report_option
from kpr.cli.options import (
    FORMAT,
    KINDS,
    PAIRING,
    QUIET,
    READ,
    TARGET,
    TOLERANCE,
    Checked,
    split_names,
    tables,
    whole,
)
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings

if TYPE_CHECKING:
    from kpr.results.protect import ProtectResult


def _moves(text: str) -> tuple[str, ...]:
    from kpr.protection import check_moves

    return check_moves(text)


MOVES_TYPE = Checked("moves", _moves)

#: The API's words in ``kpr.protect``'s messages, and the command's for them.
_API_WORDS = re.compile(
    r"\b(known|candidates|max_known|keep|regenerate_k|pairing|max_attacks|control|moves)="
    r"|\b(max_known|regenerate_k|max_attacks)\b|^(candidates|known)\b"
)


def in_command_words(message: str) -> str:
    """A message of ``kpr.protect`` in the command's words (``--known``, not ``known=``)."""
    return _API_WORDS.sub(
        lambda m: "--" + next(g for g in m.groups() if g).replace("_", "-"), message
    )


@click.command("protect", context_settings=CONTEXT)
@tables()
@click.option(
    "--known", "-k", multiple=True, help="Known variables of the attack, comma-separated."
)
@click.option(
    "--candidates", "-c", multiple=True,
    help="Instead of --known: every subset of these (up to --max-known) is an attack the "
    "target must hold against.",
)  # fmt: skip
@click.option("--max-known", type=click.IntRange(min=1), help="Largest subset of --candidates.")
@click.option(
    "--max-attacks", type=whole("--max-attacks", 1), default=DEFAULT_MAX_ATTACKS,
    show_default=True, metavar="N",
    help="Refuse, before any work, more attacks than this (--candidates with --max-known).",
)  # fmt: skip
@click.option(
    "--keep", multiple=True,
    help="Columns protect never changes, comma-separated (a move that would change one of "
    "their cells is not tried).",
)  # fmt: skip
@click.option(
    "--target", type=TARGET, required=True, metavar="PERCENT",
    help="The KPR every attack must reach after protection, in (0, 100], e.g. 99.",
)  # fmt: skip
@click.option(
    "--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path),
    help="The protected avatar table to write: .csv or .parquet.",
)  # fmt: skip
@click.option(
    "--changes-out", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the change log (avatar row, column, move, old and new value and class) to "
    "this CSV. It is the data owner's record: never publish it with the table.",
)  # fmt: skip
@click.option(
    "--moves", type=MOVES_TYPE, default="swap,shift", show_default=True,
    help="Allowed moves, comma-separated: swap, shift, regenerate (kpr's own avatars, "
    "needs --pairing), suppress, delete.",
)  # fmt: skip
@click.option(
    "--regenerate-k", type=click.IntRange(min=1), metavar="K",
    help="k of the regenerate move (only with it): each new avatar mixes its individual's "
    "k nearest originals [default: 40, twice the generator's usual 20].",
)  # fmt: skip
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True,
    help="Seed of every random choice (order, partners, new values): same seed, same bytes.",
)  # fmt: skip
@PAIRING
@click.option(
    "--control", type=click.Path(path_type=str),
    help="Individuals NOT used to make the avatars: the control comparison of the worst "
    "attack before and after.",
)  # fmt: skip
@click.option(
    "--no-distances", is_flag=True,
    help="Skip the exact copies and DCR before and after (a FAMD fit; slow on millions).",
)  # fmt: skip
@click.option(
    "--no-utility", is_flag=True,
    help="Skip the fidelity before and after (kpr.utility: every column and pair).",
)  # fmt: skip
@click.option(
    "--rule", type=click.Choice(["class", "robust"]), default="robust", show_default=True,
    help="class: the spec's class rule held for the attacks given; robust: the window rule "
    "too (every numeric value within one width, no class edges) and the class rule on grids "
    "moved by 1/4, 1/2, 3/4 width (at the target less 0.5 point): nobody newly linked under "
    "any; links freed first by decoys and escapes.",
)  # fmt: skip
@click.option(
    "--collateral", is_flag=True,
    help="Measure the subsets of the known variables no attack names (up to 64) also when a "
    "table has more than 100,000 rows (below it they always are).",
)  # fmt: skip
@TOLERANCE
@KINDS
@READ
@FORMAT
@report_option
@QUIET
def protect_command(
    original: str,
    avatars: str,
    known: tuple[str, ...],
    candidates: tuple[str, ...],
    max_known: int | None,
    max_attacks: int,
    keep: tuple[str, ...],
    target: float,
    output: Path,
    changes_out: Path | None,
    moves: tuple[str, ...],
    regenerate_k: int | None,
    seed: int,
    pairing: str | None,
    control: str | None,
    no_distances: bool,
    no_utility: bool,
    rule: str,
    collateral: bool,
    tolerance: float,
    kinds: dict[str, str],
    read: ReadSettings,
    fmt: str,
    report: Path | None,
    quiet: bool,
) -> None:
    """Change AVATARS as little as possible so that the attack (--known), or every
    attack of up to --max-known --candidates, reaches --target; a fresh evaluation
    verifies it. Exit code 1 when the target cannot be reached with the moves allowed.

    \b
    Examples:
      kpr protect original.csv avatars.csv -k age,sex,race --target 99 -o protected.csv
      kpr protect original.csv avatars.csv -c age,sex,race,education --max-known 2 \\
          --target 98 -o protected.csv --changes-out changes.csv --report protect.html
    \f
    The parameters are the options; ``kinds``: --categorical, --numeric, --date as one
    mapping; ``read``: --delimiter, --encoding, --na-value (a ReadSettings).
    """
    from kpr.protection import protect

    from .text import started

    known_names, names, max_known = _attack_names(known, candidates, max_known)
    started()
    _check_paths((original, avatars, pairing, control), output, changes_out, report, fmt)
    try:
        table, result = protect(
            original, avatars, known_names, target=target, moves=moves, seed=seed,
            pairing=pairing, regenerate_k=regenerate_k, keep=split_names(keep),
            candidates=names, max_known=max_known, max_attacks=max_attacks, tolerance=tolerance,
            kinds=kinds or None, control=control, distances=not no_distances,
            utility=not no_utility, output=output, **read.keywords(),
            collateral=collateral, rule=rule,
        )  # fmt: skip
    except InputError as exc:
        raise InputError(in_command_words(str(exc))) from None
    del quiet, table  # no progress bar: the optimiser's work is short beside the evaluations
    _finish(result, fmt, output, changes_out, report)


def _attack_names(
    known: tuple[str, ...], candidates: tuple[str, ...], max_known: int | None
) -> tuple[list[str] | None, list[str] | None, int | None]:
    """The known variables or the candidates (one of them is needed), and the largest
    subset of the candidates (3 by default, fewer when fewer are candidates)."""
    known_names = split_names(known) or None
    names = split_names(candidates) or None
    if known_names is None and names is None:
        raise InputError("give --known (one attack) or --candidates with --max-known")
    if names is not None and known_names is None and max_known is None:
        max_known = min(3, len(names))
    return known_names, names, max_known


def _check_paths(
    inputs: tuple[str, str, str | None, str | None],
    output: Path,
    changes_out: Path | None,
    report: Path | None,
    fmt: str,
) -> None:
    """Before any work: no output overwrites an input (original, avatars, pairing,
    control), a symlink or a device."""
    from kpr.avatar.files import check_output

    given = [inputs[0], inputs[1], *(x for x in inputs[2:] if x)]
    check_output(output, "--output", given)
    check_writes({"--output": output, "--changes-out": changes_out, "--report": report}, given, fmt)


def _finish(
    result: ProtectResult, fmt: str, output: Path, changes_out: Path | None, report: Path | None
) -> None:
    """The change log, the report and the printed result; exit code 1 when the target
    was not met."""
    from kpr.inputs.writers import write_csv
    from kpr.render.protect import protect_text

    if changes_out is not None:
        assert result.changes is not None
        write_csv(result.changes, changes_out)
    if report is not None:
        result.to_html(report)
    emit(fmt, result.to_json, lambda: protect_text(result, output), report,
         [output, changes_out])  # fmt: skip
    if not result.met:
        sys.exit(1)
