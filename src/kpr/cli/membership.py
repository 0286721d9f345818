"""``kpr membership``: can an attacker holding the avatars tell who was used to make
them? The histogram DOMIAS score on class profiles, against a holdout.

Added to the ``kpr`` group by ``kpr.cli.app``; the attack and the HTML renderer are
imported inside the command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from kpr.cli.common import CONTEXT, PAGE_OUTPUTS, PageOutputs, stderr
from kpr.cli.options import SEED, TABLE_SETTINGS, TableSettings, split_names, tables, whole

from . import text

if TYPE_CHECKING:
    from kpr.results.membership import MembershipResult


def membership_text(result: MembershipResult) -> str:
    """The figures as plain text, each line saying what it measures."""
    from kpr.results.membership import fpr_text, percent

    low, high = result.auc_interval
    conf = f"{100 * result.confidence:g} %"
    lines = [
        f"Membership inference on the class profiles of {len(result.columns)} columns "
        f"({', '.join(result.columns)})",
        f"  {result.members:,} members drawn from the original ({result.n_original:,} rows) "
        f"against {result.non_members:,} non-members of the holdout ({result.n_holdout:,} "
        f"rows; the other {result.reference_size:,} are the reference); "
        f"{result.n_avatars:,} avatars; seed {result.seed}",
        "",
        f"AUC {result.auc:.3f}  ({conf} interval {low:.3f} to {high:.3f}; 0.5 is a guess)",
    ]
    for p in result.tpr:
        head = f"TPR at {fpr_text(p.fpr)} FPR:"
        if p.tpr is None or p.interval is None:
            lines.append(f"{head} not available: {p.reason}")
            continue
        lines.append(
            f"{head} {percent(p.tpr)}  ({conf} interval {percent(p.interval[0])} to "
            f"{percent(p.interval[1])}): {p.flagged:,.1f} non-members flagged; a guess finds "
            f"{fpr_text(p.fpr)} of the members"
        )
    lines += [
        f"Resolution: 1/{result.non_members:,} = {percent(result.resolution, 3)} (no lower "
        "FPR can be read from this holdout)",
        f"Class profile held by some avatar: {percent(result.member_share_in_avatars)} of "
        f"the members, {percent(result.non_member_share_in_avatars)} of the non-members",
        "",
        result.meaning,
    ]
    if result.warnings:
        lines += ["", "Warnings:"] + [f"  - {w}" for w in result.warnings]
    return "\n".join(lines)


@click.command("membership", context_settings=CONTEXT)
@tables("synthetic")
@click.option(
    "--holdout",
    required=True,
    type=click.Path(path_type=str),
    help="People of the same population NOT used to make SYNTHETIC (CSV or Parquet): half "
    "is the reference, half the non-members.",
)
@click.option(
    "--known",
    "-k",
    multiple=True,
    help="Columns of the class profile, comma-separated (default: every column of ORIGINAL).",
)
@TABLE_SETTINGS
@click.option(
    "--seed",
    type=SEED,
    default="0",
    show_default=True,
    help="Seed of the holdout's halves, the members drawn and the bootstrap (>= 0).",
)
@click.option(
    "--replicates",
    type=whole("--replicates", 1, 100_000),
    default="1000",  # DEFAULT_REPLICATES of kpr.metric.membership (not imported: start-up)
    show_default=True,
    help="Bootstrap replicates of the intervals.",
)
@PAGE_OUTPUTS
def membership_command(
    original: str,
    synthetic: str,
    holdout: str,
    known: tuple[str, ...],
    table_settings: TableSettings,
    seed: int,
    replicates: int,
    out: PageOutputs,
) -> None:
    """Whether the people used to make SYNTHETIC can be told from people who were not
    (--holdout): the histogram DOMIAS score on class profiles, its AUC and its true
    positive rate at 1 % and 0.1 % false positives, with bootstrap intervals.

    \b
    Example:
      kpr membership original.csv avatars.csv --holdout holdout.csv
    \f
    Parameters
    ----------
    original, synthetic, holdout : the three tables' paths.
    known : ``--known``, comma-separated (default: every column of the original).
    table_settings : the tolerance, the declared kinds and the CSV options (a TableSettings).
    seed, replicates : the draws and the bootstrap.
    out : ``--format``, ``--report``, ``--quiet`` (a PageOutputs).
    """
    from kpr.analysis.members import membership

    out.check((original, synthetic, holdout))
    with text.progress(stderr, out.quiet, held=True) as progress:
        result = membership(
            original, synthetic, holdout=holdout, known=split_names(known) or None, seed=seed,
            replicates=replicates, progress=progress, **table_settings.keywords(),
        )  # fmt: skip
    labels = [("Original", original), ("Synthetic", synthetic), ("Holdout", holdout)]
    out.emit(result, lambda: membership_text(result), labels)
