"""``kpr protect``: fix an avatar table to a target rate, verified, at a measured cost.

Added to the ``kpr`` group by ``kpr.cli.app``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kpr.analysis.sweep import DEFAULT_MAX_ATTACKS
from kpr.cli.common import CONTEXT, PAGE_OUTPUTS, PageOutputs, check_writes, emit
from kpr.cli.options import (
    PAIRING,
    TABLE_SETTINGS,
    TARGET,
    Checked,
    TableSettings,
    bundle,
    candidates_option,
    split_names,
    tables,
    whole,
)
from kpr.errors import InputError

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


@dataclass(frozen=True)
class Attacks:
    """The attacks the target must hold against: one (``known``) or every subset of up
    to ``max_known`` of the ``candidates`` (3 by default, fewer when fewer are
    candidates), at most ``max_attacks`` of them."""

    known: list[str] | None
    candidates: list[str] | None
    max_known: int | None
    max_attacks: int

    @classmethod
    def from_options(
        cls,
        known: tuple[str, ...],
        candidates: tuple[str, ...],
        max_known: int | None,
        max_attacks: int,
    ) -> Attacks:
        """From ``--known``, ``--candidates``, ``--max-known``, ``--max-attacks``: one of
        the first two is needed."""
        known_names = split_names(known) or None
        names = split_names(candidates) or None
        if known_names is None and names is None:
            raise InputError("give --known (one attack) or --candidates with --max-known")
        if names is not None and known_names is None and max_known is None:
            max_known = min(3, len(names))
        return cls(known_names, names, max_known, max_attacks)


#: ``--known``, ``--candidates``, ``--max-known``, ``--max-attacks``, handed over as one
#: ``attacks``: an :class:`Attacks`.
ATTACKS = bundle(
    "attacks",
    Attacks.from_options,
    click.option(
        "--known", "-k", multiple=True, help="Known variables of the attack, comma-separated."
    ),
    candidates_option(
        "Instead of --known: every subset of these (up to --max-known) is an attack the "
        "target must hold against."
    ),
    click.option(
        "--max-known", type=click.IntRange(min=1), help="Largest subset of --candidates."
    ),
    click.option(
        "--max-attacks", type=whole("--max-attacks", 1), default=DEFAULT_MAX_ATTACKS,
        show_default=True, metavar="N",
        help="Refuse, before any work, more attacks than this (--candidates with --max-known).",
    ),
)  # fmt: skip


@click.command("protect", context_settings=CONTEXT)
@tables()
@ATTACKS
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
@TABLE_SETTINGS
@PAGE_OUTPUTS
def protect_command(
    original: str,
    avatars: str,
    attacks: Attacks,
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
    table_settings: TableSettings,
    out: PageOutputs,
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
    The parameters are the options; ``table_settings``: --tolerance, the kinds and the
    CSV options (a TableSettings); ``out``: --format, --report, --quiet (PageOutputs).
    """
    from kpr.protection import protect

    from .text import started

    started()
    _check_paths((original, avatars, pairing, control), output, changes_out, out)
    try:
        table, result = protect(
            original, avatars, attacks.known, target=target, moves=moves, seed=seed,
            pairing=pairing, regenerate_k=regenerate_k, keep=split_names(keep),
            candidates=attacks.candidates, max_known=attacks.max_known,
            max_attacks=attacks.max_attacks,
            control=control, distances=not no_distances, utility=not no_utility,
            output=output, **table_settings.keywords(), collateral=collateral, rule=rule,
        )  # fmt: skip
    except InputError as exc:
        raise InputError(in_command_words(str(exc))) from None
    del table  # no progress bar (out.quiet): the optimiser's work is short beside the evaluations
    _finish(result, out, output, changes_out)


def _check_paths(
    inputs: tuple[str, str, str | None, str | None],
    output: Path,
    changes_out: Path | None,
    out: PageOutputs,
) -> None:
    """Before any work: no output overwrites an input (original, avatars, pairing,
    control), a symlink or a device."""
    from kpr.avatar.files import check_output

    given = [inputs[0], inputs[1], *(x for x in inputs[2:] if x)]
    check_output(output, "--output", given)
    check_writes(
        {"--output": output, "--changes-out": changes_out, "--report": out.report}, given, out.fmt
    )


def _finish(
    result: ProtectResult, out: PageOutputs, output: Path, changes_out: Path | None
) -> None:
    """The change log, the report and the printed result; exit code 1 when the target
    was not met."""
    from kpr.inputs.writers import write_csv
    from kpr.render.protect import protect_text

    if changes_out is not None:
        assert result.changes is not None
        write_csv(result.changes, changes_out)
    if out.report is not None:
        result.to_html(out.report)
    emit(out.fmt, result.to_json, lambda: protect_text(result, output), out.report,
         [output, changes_out])  # fmt: skip
    if not result.met:
        sys.exit(1)
