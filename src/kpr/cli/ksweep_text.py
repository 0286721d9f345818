"""The plain-text output of ``kpr sweep`` and ``kpr tune``: the parameters, one line per
k with its privacy and utility (and, for tune, each criterion met or not), and what
each column means."""

from __future__ import annotations

from collections.abc import Callable

from kpr.results.evaluation import format_rate
from kpr.results.ksweep import EXPLAIN, KSweepResult, explained
from kpr.results.ksweep_rows import SweepRow
from kpr.results.ksweep_tune import CRITERIA, TuneResult

#: Each criterion's column heading in the per-k table.
CRITERION_HEADS = {"kpr": "KPR ok", "control": "ctrl ok", "cloaking": "LC ok"}


def _num(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}" if x == x else "-"  # NaN: undefined metric


def _met(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def _count(x: float) -> str:
    """A count, or its mean over the repeats to one decimal."""
    return f"{x:g}" if float(x).is_integer() else f"{x:.1f}"


def _pct(x: float) -> str:
    return f"{x:.2f} %" if x == x else "-"


def _span(low: float, high: float, unit: str) -> str:
    return f"{low:.2f} to {high:.2f}{unit}"


#: One column of the per-k table: heading, width (negative: left-aligned), the cell of a
#: row. The sweep shows every column; tune the figures its criteria and choice rest on.
Column = tuple[str, int, Callable[[SweepRow], str]]
KPR: list[Column] = [
    ("k", 5, lambda r: f"{r.k}"),
    ("KPR", 9, lambda r: format_rate(r.kpr)),
]
SPREAD: Column = ("min to max", -18, lambda r: _span(r.kpr_min, r.kpr_max, " %"))
CONTROL: Column = (
    "control-orig",
    12,
    lambda r: "-" if r.control_difference is None else f"{r.control_difference:+.2f} pts",
)
PAIRING: list[Column] = [
    ("correct", 7, lambda r: _count(r.correct_links)),
    ("re-id", 7, lambda r: _pct(r.reidentification)),
    ("hidden", 8, lambda r: _pct(r.hidden_rate)),
]
CLOAKING: Column = ("med LC", 6, lambda r: _count(r.median_local_cloaking))
DISTANCES: list[Column] = [
    ("copies", 8, lambda r: _pct(r.exact_copy_percent)),
    ("DCR", 7, lambda r: _num(r.median_dcr, 3)),
    ("NNDR", 5, lambda r: _num(r.median_nndr, 2)),
]
UTILITY: list[Column] = [
    ("quality", 7, lambda r: _num(r.utility.overall, 3)),
    ("shapes", 6, lambda r: _num(r.utility.column_shapes, 3)),
    ("trends", 6, lambda r: _num(r.utility.column_pair_trends, 3)),
    ("Hellinger", 9, lambda r: _num(r.utility.mean_hellinger)),
    ("corr diff", 9, lambda r: _pct(r.utility.correlation_difference)),
]
TIME: Column = ("time s", 6, lambda r: f"{r.seconds:.2f}")


def _columns(result: KSweepResult, tune: TuneResult | None) -> list[Column]:
    conf = f"{result.confidence * 100:g} % CI"
    columns: list[Column] = [*KPR, (conf, -18, lambda r: _span(*r.interval, " %"))]
    columns += [SPREAD] if result.repeats > 1 else []
    columns += [CONTROL] if result.has_control else []
    if tune is None:
        return [*columns, *PAIRING, CLOAKING, *DISTANCES, *UTILITY, TIME]
    columns += [CLOAKING, *UTILITY]
    for c in CRITERIA:
        if c != "control" or result.has_control:
            columns.append((CRITERION_HEADS[c], 7, _criterion(tune, c)))
    return [*columns, ("chosen", 6, lambda r: "<-" if r.k == tune.k else "")]


def _criterion(tune: TuneResult, name: str) -> Callable[[SweepRow], str]:
    return lambda r: _met(tune.checks(r)[name])


def _cell(text: str, width: int) -> str:
    return f"{text:<{-width}}" if width < 0 else f"{text:>{width}}"


def sweep_table(result: KSweepResult, tune: TuneResult | None = None) -> list[str]:
    """One line per k: privacy (KPR, interval, spread, control, pairing metrics, distances),
    utility (quality, shapes, pair trends, Hellinger, correlation difference), time; with
    ``tune``, the figures its criteria rest on, each criterion met or not, the choice."""
    columns = _columns(result, tune)
    lines = ["  " + "  ".join(_cell(head, width) for head, width, _ in columns)]
    lines += ["  " + "  ".join(_cell(cell(r), width) for _, width, cell in columns)
              for r in result.rows]  # fmt: skip
    lines = [line.rstrip() for line in lines]
    if result.has_control:
        lines += _control_lines(result.rows, f"{result.confidence * 100:g} % CI")
    baseline = next((r.control_distance for r in result.rows if r.control_distance), None)
    if baseline is not None and tune is None:
        lines.append(
            f"  control's own closeness to the originals (baseline): copies "
            f"{baseline['exact_copy_percent']:.2f} %, DCR {_num(baseline['median_dcr'], 3)}, "
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
        lines.append(f"    {c['verdict']}")
    shared = next((r.control_dict() for r in rows if r.controls), None)
    if shared is not None and shared["shared_rows"]:
        lines.append(f"  note: {shared['shared_sentence']}")
    return lines


def _header(result: KSweepResult) -> list[str]:
    gen = result.generator
    seeds = (
        f"seed {result.seed}"
        if result.repeats == 1
        else f"{result.repeats} repeats, seeds {result.seed}..{result.seed + result.repeats - 1}"
    )
    return [
        f"Known variables: {', '.join(result.known)} (tolerance {result.tolerance:g}; "
        f"n {result.n:,})",
        f"Avatar method: ncp {gen.ncp}, synthesis {gen.synthesis}, categoricals "
        f"decoded by {gen.decoding}, {seeds}",
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
    return [
        f"  {EXPLAIN[k].format(conf=result.confidence * 100)}"
        for k in explained(result.has_control)
    ]


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
