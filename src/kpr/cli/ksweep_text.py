"""The plain-text output of ``kpr sweep`` and ``kpr tune``: the parameters, one line per
k with its privacy and utility (and, for tune, each criterion met or not), and what
each column means."""

from __future__ import annotations

from kpr.results.evaluation import format_rate
from kpr.results.ksweep import EXPLAIN, KSweepResult
from kpr.results.ksweep_rows import SweepRow
from kpr.results.ksweep_tune import CRITERIA, TuneResult

#: Each criterion's column heading in the per-k table.
CRITERION_HEADS = {"kpr": "KPR ok", "control": "ctrl ok", "cloaking": "LC ok"}


def _num(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}" if x == x else "-"  # NaN: undefined metric


def _met(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def sweep_table(result: KSweepResult, tune: TuneResult | None = None) -> list[str]:
    """One line per k: privacy (KPR, interval, spread, control, pairing metrics, distances),
    utility (quality, shapes, pair trends, Hellinger, correlation difference), time; with
    ``tune``, each criterion met or not and the chosen k marked."""
    rows = result.rows
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
        f"{'DCR':>7}  {'NNDR':>5}  {'quality':>7}  {'shapes':>6}  {'trends':>6}  "
        f"{'Hellinger':>9}  {'corr diff':>9}  {'time s':>6}"
    )
    criteria = [c for c in CRITERIA if c != "control" or control] if tune else []
    head += "".join(f"  {CRITERION_HEADS[c]:>7}" for c in criteria)
    if tune is not None:
        head += "  chosen"
    lines = [head]
    for r in rows:
        lines.append(_line(r, spread, control))
        if tune is not None:
            checks = tune.checks(r)
            lines[-1] += "".join(f"  {_met(checks[c]):>7}" for c in criteria)
            lines[-1] += "  <-" if r.k == tune.k else ""
    if control:
        lines += _control_lines(rows, conf)
    baseline = next((r.control_distance for r in rows if r.control_distance), None)
    if baseline is not None:
        lines.append(
            f"  control's own closeness to the originals (baseline): copies "
            f"{baseline['exact_copy_percent']:.2f} %, DCR {_num(baseline['median_dcr'], 3)}, "
            f"NNDR {_num(baseline['median_nndr'], 2)}"
        )
    return lines


def _line(r: SweepRow, spread: bool, control: bool) -> str:
    low, high = r.interval
    line = f"  {r.k:>5}  {format_rate(r.kpr):>9}  {f'{low:.2f} to {high:.2f} %':<18}"
    if spread:
        line += f" {f'{r.kpr_min:.2f} to {r.kpr_max:.2f} %':<18}"
    if control:
        d = r.control_difference
        line += f" {f'{d:+.2f} pts' if d is not None else '-':>12}"
    u = r.utility
    return line + (
        f"  {r.correct_links:>7g}  {r.reidentification:>5.2f} %  {r.hidden_rate:>6.2f} %  "
        f"{r.median_local_cloaking:>6g}  {r.exact_copy_percent:>6.2f} %  "
        f"{_num(r.median_dcr, 3):>7}  {_num(r.median_nndr, 2):>5}  "
        f"{_num(u.overall, 3):>7}  {_num(u.column_shapes, 3):>6}  "
        f"{_num(u.column_pair_trends, 3):>6}  {_num(u.mean_hellinger):>9}  "
        f"{_num(u.correlation_difference, 2) + ' %':>9}  {r.seconds:>6.2f}"
    )


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
        lines.append(f"    {c['verdict']}")
    shared = next((r.control_dict() for r in rows if r.controls), None)
    if shared is not None and shared["shared_rows"]:
        lines.append(f"  note: {shared['shared_sentence']}")
    return lines


def _header(result: KSweepResult) -> list[str]:
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


def _roles_lines(result: KSweepResult) -> list[str]:
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


def _explanations(result: KSweepResult) -> list[str]:
    keys = [k for k in EXPLAIN if k != "control" or result.has_control]
    return [f"  {EXPLAIN[k].format(conf=result.confidence * 100)}" for k in keys]


def sweep_text(result: KSweepResult) -> str:
    """The sweep as plain text: parameters, the table, what each column means."""
    lines = ["KPR and utility of the avatars against k", *_header(result), *_roles_lines(result)]
    lines.append("")
    lines += [result.summary(), ""]
    lines += sweep_table(result)
    lines += ["", *_explanations(result)]
    return "\n".join(lines)


def tune_text(result: TuneResult, reproduce: str) -> str:
    """The choice (or why there is none), the criteria, and every k with each met or not."""
    sweep = result.sweep
    row = result.row
    lines = [f"Chosen: k = {row.k}" if row is not None else "No k meets every criterion"]
    lines.append(f"  {result.message}")
    lines += ["", "Criteria (a k must meet each; among those that do, the highest quality):"]
    sentences = result.criteria.sentences(sweep.confidence)
    for c in CRITERIA:
        extra = "" if c != "control" or sweep.has_control else " (not checked: no --control)"
        lines.append(f"  {CRITERION_HEADS[c]}: {sentences[c]}{extra}")
    lines += ["", *_header(sweep), ""]
    lines += sweep_table(sweep, result)
    if row is not None:
        lines += [
            "",
            "Nothing makes the KPR rise with k: check the table you publish.",
            f"The table measured for k = {row.k}"
            + (f" (first repeat, seed {sweep.seed}):" if sweep.repeats > 1 else ":"),
            f"  {reproduce}",
        ]
    return "\n".join(lines)
