"""How a protection reads: text (``kpr protect``), an HTML page with the
before/after table and the rate against the cells changed, and Jupyter's view.

The before/after rows are built once (:func:`comparison`) for all three.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from kpr.render import page
from kpr.render.page import esc
from kpr.results.evaluation import format_rate
from kpr.results.protect import MOVED_GRID_SLACK, AttackOutcome, Collateral, ProtectResult

HEADING = "kpr report · protecting a release"
DATA_NOTE = (
    "This page holds rates, counts and column names only: no individual's values, no row "
    "positions. The change log (--changes-out) is the data owner's record: never publish it "
    "with the protected table."
)


def _num(x: float | None, digits: int = 4) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


#: Why the rate after protection has no interval beside it.
NO_INTERVAL = (
    "The rate after protection has no sampling interval: it was optimised to reach the "
    "target on these same individuals. The control's rate (--control), measured on "
    "individuals protect never saw, is the independent check."
)


def _attack_rows(a: AttackOutcome, tag: str) -> list[tuple[str, str, str]]:
    """One attack's rate, links and correct links, before and after (the same attack)."""
    low, high = a.before.interval
    rows = [
        (f"KPR, {tag}", f"{format_rate(a.before.rate)} (95 % interval {low:.2f} to {high:.2f})",
         format_rate(a.after.rate)),
        (f"linked individuals, {tag}", f"{a.before.linked:,}", f"{a.after.linked:,}"),
    ]  # fmt: skip
    if a.correct_before is not None:
        rows.append((f"correct links, {tag}", f"{a.correct_before:,}", f"{a.correct_after:,}"))
    return rows


def comparison(result: ProtectResult) -> list[tuple[str, str, str]]:
    """(figure, before, after) rows: privacy first, then the cost. Each privacy row
    is one attack's, before and after, named: the worst after protection, and the
    worst before when that is another attack."""
    wb, wa = result.worst_before, result.worst_after
    several = len(result.attacks) > 1
    rows = _attack_rows(wa, f"{wa.name} (worst after)" if several else wa.name)
    if wb.known != wa.known:
        rows += _attack_rows(wb, f"{wb.name} (worst before)")
    cb, ca = result.control_before, result.control_after
    if cb is not None and ca is not None:
        name = ", ".join(cb.original.known)
        rows += [
            (f"KPR of the control (individuals not used), {name}",
             format_rate(cb.control.rate), format_rate(ca.control.rate)),
            (f"control minus original (points), {name}", f"{cb.difference:+.2f}",
             f"{ca.difference:+.2f}"),
        ]  # fmt: skip
    db, da = result.distance_before, result.distance_after
    if db is not None and da is not None:
        rows += [
            (
                "exact copies of an original row",
                f"{db.synthetic.exact_copies:,}",
                f"{da.synthetic.exact_copies:,}",
            ),
            ("median DCR", _num(db.synthetic.median_dcr), _num(da.synthetic.median_dcr)),
        ]
    rows.append(
        (
            "cells changed",
            "0",
            f"{result.cells_total:,} ({result.cells_share:.3f} %)",
        )
    )
    if result.rows_deleted:
        rows.append(("rows deleted", "0", f"{result.rows_deleted:,}"))
    u = result.utility
    if u is not None:
        b, a = u["before"], u["after"]
        rows += [
            ("mean Hellinger distance to the originals", _num(b["mean_hellinger"]),
             _num(a["mean_hellinger"])),
            ("correlation difference to the originals (%)", _num(b["correlation_difference"], 2),
             _num(a["correlation_difference"], 2)),
            ("SDMetrics quality score", _num(b["overall"]), _num(a["overall"])),
            ("mean change of a pairwise association (avatars before → after)", "0",
             _num(u["mean_association_change"])),
        ]  # fmt: skip
    return rows


COLLATERAL_NOTE = (
    "Measured by fresh evaluations, not guaranteed: protect holds the class rule at the "
    "attack's tolerance. The window rule (kpr analyze --method window) has no class edges: "
    "an avatar approaches when every numeric value is within one width. A moved grid is the "
    "class rule with every grid's origin moved down by that fraction of its width "
    "(kpr evaluate --grid-offset)."
)


ROBUST_NOTE = (
    "Verified by fresh evaluations: under --rule robust protect holds the class rule and "
    "the window rule (no class edges: an avatar approaches when every numeric value is "
    "within one width) at the target, and the class rule on each moved grid (every grid's "
    "origin moved down by that fraction of its width, kpr evaluate --grid-offset) at the "
    f"target less {MOVED_GRID_SLACK:g} point, nobody newly linked under any of them. The "
    "other tolerances "
    "are measured, not guaranteed."
)


def collateral_heading(result: ProtectResult) -> str:
    """The collateral section's title: the rules it shows, held or not."""
    if result.rule == "robust":
        return "Under the window rule, other tolerances and moved grids, for the attacks given"
    return "Under rules protect does not hold, for the attacks given"


def collateral_note(result: ProtectResult) -> str:
    return ROBUST_NOTE if result.rule == "robust" else COLLATERAL_NOTE


def collateral_rows(result: ProtectResult) -> list[tuple[str, str, str, str]]:
    """(rule, attack, before → after, newly linked), one row per rule: the attack
    worst after protection under that rule, and the individuals newly linked under it,
    summed over the attacks given."""
    return rule_rows(result.collateral, len(result.attacks) > 1, "attacks")


def untested_rows(result: ProtectResult) -> list[tuple[str, str, str, str]]:
    """:func:`collateral_rows` over the subsets no attack names."""
    return rule_rows(result.untested.rows, result.untested.measured > 1, "subsets")


def rule_rows(
    measured: tuple[Collateral, ...], several: bool, noun: str
) -> list[tuple[str, str, str, str]]:
    """Per rule, the attack worst after, its rates, and the newly linked summed."""
    rules: dict[str, list[Collateral]] = {}
    for c in measured:
        rules.setdefault(c.name, []).append(c)
    rows = []
    for name, under in rules.items():
        worst = min(under, key=lambda c: (c.after.rate, len(c.known), c.known))
        newly = sum(c.newly_linked for c in under)
        rows.append((
            name, ", ".join(worst.known) + (" (worst after)" if several else ""),
            f"{format_rate(worst.before.rate)} → {format_rate(worst.after.rate)}",
            f"{newly:,}" + (f" (summed over {len(under)} {noun})" if several else ""),
        ))  # fmt: skip
    return rows


def _untested_text(result: ProtectResult) -> list[str]:
    u = result.untested
    lines = ["", "Subsets of the known variables not among the attacks given:", f"  {u.sentence}"]
    lines += [
        f"  {rule:<48} {attack:<40} {rates:>22}  newly linked {newly}"
        for rule, attack, rates, newly in untested_rows(result)
    ]
    linking = sorted(
        (c for c in u.rows if c.newly_linked), key=lambda c: (-c.newly_linked, len(c.known))
    )
    for c in linking[:10]:
        lines.append(f"  {', '.join(c.known)}: {c.newly_linked:,} newly linked ({c.name})")
    if len(linking) > 10:
        lines.append(f"  … and {len(linking) - 10} more (JSON: untested_subsets)")
    return lines


def marks_lines(result: ProtectResult) -> list[str]:
    """What the moves leave visible: per changed numeric column, the changed rows
    whose value is held by 2-3 rows against the table's share; the rows holding a
    pair of categorical values no original row holds, before and after."""
    out = []
    for c in result.multiplicity:
        verdict = "passed" if c.passed else "FAILED: changed rows stand out by their copies"
        out.append(
            f"{c.column}: {c.few:,} of {c.changed:,} changed row(s) hold a value held by "
            f"2-3 rows ({100 * c.share:.1f} %, table {100 * c.table_share:.1f} %; one-sided "
            f"binomial p = {c.p_value:.3g}, {verdict})"
        )
    p = result.plausibility
    if p is not None:
        out.append(
            f"rows with a pair of categorical values no original row holds "
            f"({len(p.columns)} column(s)): {p.before:,} → {p.after:,}"
        )
    return out


def _kept(result: ProtectResult) -> str:
    return f"; kept unchanged: {', '.join(result.keep)}" if result.keep else ""


def _columns(result: ProtectResult) -> list[str]:
    out = []
    for name, cells in result.cells_changed.items():
        net = result.largest_change.get(name)
        moved = f"; largest net change of a cell {net:.6g}" if net is not None and cells else ""
        bound = result.shift_bounds.get(name)
        shift = f" (one shift: at most {bound:.6g})" if bound is not None and moved else ""
        out.append(f"{name}: {cells:,} cell(s) changed{moved}{shift}")
    if result.utility is not None:
        for row in result.utility["columns"]:
            if row["column"] in result.cells_changed or result.rows_deleted:
                out.append(
                    f"{row['column']}: Hellinger to the originals {_num(row['hellinger_before'])}"
                    f" → {_num(row['hellinger_after'])}"
                )
    return out


def protect_text(result: ProtectResult, output: str | os.PathLike[str] | None = None) -> str:
    """The protection as plain text."""
    lines = [
        f"Protection to a target of {format_rate(result.target)} "
        f"(moves: {', '.join(result.moves)}; seed {result.seed}{_kept(result)})",
        result.meaning,
        result.rule_sentence,
        "",
        f"  {'':<64} {'before':>36} {'after':>16}",
    ]
    lines += [f"  {f:<64} {b:>36} {a:>16}" for f, b, a in comparison(result)]
    lines += ["", NO_INTERVAL]
    if result.collateral:
        lines += ["", f"{collateral_heading(result)}:"]
        lines += [
            f"  {rule:<48} {attack:<40} {rates:>22}  newly linked {newly}"
            for rule, attack, rates, newly in collateral_rows(result)
        ]
        lines += _untested_text(result)
        lines.append(f"  {collateral_note(result)}")
    if len(result.attacks) > 1:
        lines += ["", f"Attacks ({len(result.attacks)}), worst after first:"]
        for a in sorted(result.attacks, key=lambda x: x.after.rate)[:10]:
            lines.append(
                f"  {format_rate(a.before.rate):>9} → {format_rate(a.after.rate):>9}  {a.name}"
            )
    lines += ["", "Per column:"] + [f"  {x}" for x in _columns(result)]
    marks = marks_lines(result)
    if marks:
        lines += ["", "Marks the moves could leave:"] + [f"  {x}" for x in marks]
    if result.utility is None:
        lines.append("  (fidelity not measured: --no-utility)")
    if output is not None and not result.already_met:
        lines += ["", f"Protected table written to {output}"]
    return "\n".join(lines)


def render_protect(result: ProtectResult, *, now: datetime | None = None) -> str:
    """The protection as one HTML page: the outcome, the before/after table, the
    columns, and the worst rate against the cells changed."""
    page.require_matplotlib()
    from kpr.render.plots import protection_trace_svg

    rows = "\n".join(
        f"  <tr><th>{esc(f)}</th><td>{esc(b)}</td><td>{esc(a)}</td></tr>"
        for f, b, a in comparison(result)
    )
    columns = "\n".join(f"  <li>{esc(x)}</li>" for x in _columns(result))
    attacks = "\n".join(
        f"  <tr><td>{page.names_html(a.known)}</td><td>{esc(format_rate(a.before.rate))}</td>"
        f"<td>{esc(format_rate(a.after.rate))}</td></tr>"
        for a in sorted(result.attacks, key=lambda x: x.after.rate)
    )
    trace = protection_trace_svg(result.trace, result.target) if len(result.trace) > 1 else ""
    body = f"""
<section id="protect">
 <h2>Protection to {esc(format_rate(result.target))}</h2>
 <p class="meaning">{esc(result.meaning)}</p>
 <table class="compare">
  <tr><th></th><th>before</th><th>after</th></tr>
{rows}
 </table>
 <p>{esc(NO_INTERVAL)}</p>
{_collateral_html(result)}
 <h3>Columns</h3>
 <ul>
{columns}
 </ul>
{_marks_html(result)}
 <h3>Attacks</h3>
 <table>
  <tr><th>known variables</th><th>before</th><th>after</th></tr>
{attacks}
 </table>
 <figure>{trace}</figure>
 <p>{esc(result.rule_sentence)}</p>
 <p>Moves allowed: {esc(", ".join(result.moves))}; seed {result.seed}{esc(_kept(result))}.
 Every rate above comes from a fresh, full evaluation of the protected table. The
 guarantee holds for these attacks, not for every possible attacker.</p>
</section>
{page.footer(esc(DATA_NOTE), now or datetime.now(UTC))}"""
    title = f"Protection to {format_rate(result.target)} — kpr"
    return page.document(title, body, HEADING)


def _marks_html(result: ProtectResult) -> str:
    marks = marks_lines(result)
    if not marks:
        return ""
    items = "\n".join(f"  <li>{esc(x)}</li>" for x in marks)
    return f""" <h3>Marks the moves could leave</h3>
 <ul>
{items}
 </ul>"""


def _collateral_html(result: ProtectResult) -> str:
    if not result.collateral:
        return ""
    rows = "\n".join(
        f"  <tr><td>{esc(rule)}</td><td>{esc(attack)}</td><td>{esc(rates)}</td>"
        f"<td>{esc(newly)}</td></tr>"
        for rule, attack, rates, newly in collateral_rows(result)
    )
    u = result.untested
    subsets = "\n".join(
        f"  <tr><td>{page.names_html(c.known)}</td><td>{esc(c.name)}</td>"
        f"<td>{esc(format_rate(c.before.rate))} → {esc(format_rate(c.after.rate))}</td>"
        f"<td>{c.newly_linked:,}</td></tr>"
        for c in u.rows
    )
    table = (
        f"""
 <table>
  <tr><th>known variables</th><th>rule</th><th>KPR before → after</th><th>newly linked</th></tr>
{subsets}
 </table>"""
        if u.rows
        else ""
    )
    return f""" <h3>{esc(collateral_heading(result))}</h3>
 <table>
  <tr><th>rule</th><th>attack</th><th>KPR before → after</th><th>newly linked</th></tr>
{rows}
 </table>
 <h3>Subsets of the known variables not among the attacks given</h3>
 <p>{esc(u.sentence)}</p>{table}
 <p>{esc(collateral_note(result))}</p>"""


write_protect = page.page_writer(render_protect)


def repr_protect(result: ProtectResult) -> str:
    headline = (
        f'<span style="font-size:1.8em;font-weight:bold">'
        f"{esc(format_rate(result.worst_after.after.rate))}</span> "
        f"<span>worst KPR after protection (target {esc(format_rate(result.target))})</span>"
    )
    rows = [[esc(f), esc(b), esc(a)] for f, b, a in comparison(result)]
    return page.notebook_view(headline, result.meaning, ["", "before", "after"], rows)
