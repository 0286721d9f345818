"""The HTML page of an inference measurement (``kpr inference --report``,
``InferenceResult.to_html``): per secret, the sentence, the measures, the control
comparison, a plot of IAL's precision against the population guess by class, and the
classes and profiles that disclose most (groups under ``MIN_GROUP`` people not shown
by value).

Built from the shared pieces (:mod:`kpr.render.page`, :mod:`kpr.render.plots`);
column names and class labels are the only user-derived text, each through ``esc``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from kpr.render import page
from kpr.render.page import count_text, esc

if TYPE_CHECKING:
    from kpr.results.inference import Group, InferenceResult, SecretInference

HEADING = "kpr report · what an attacker infers"
DATA_NOTE = (
    "This page contains no row of the data: counts per class of each secret and per class "
    "profile, each shown only for groups of at least 10 people."
)


def _pct(x: float | None) -> str:
    return "&ndash;" if x is None else f"{x:.1f} %"


def classes_svg(s: SecretInference, key: str) -> str:
    """Per class of the secret (groups shown by value only): the share of its people
    whose profile's avatars all agree on their class (DiSCO) and the expected CAP."""

    from kpr.render import plots

    shown = [g for g in s.classes if g.shown]
    labels = [g.label for g in shown]
    disco = [100.0 * g.disco / g.people for g in shown]
    cap = [100.0 * g.cap / g.people for g in shown]
    height = min(9.0, 1.2 + 0.32 * max(len(shown), 1))
    title = f"What the avatars disclose of {s.secret}, by class"
    with plots.chart(7.5, height, title) as (fig, ax):
        ys = list(range(len(shown)))
        ax.barh([y - 0.2 for y in ys], disco, height=0.4, color=plots.VERMILLION, label="DiSCO")
        ax.barh([y + 0.2 for y in ys], cap, height=0.4, color=plots.BLUE, label="expected CAP")
        ax.set_yticks(ys, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("% of the class's people")
        ax.set_xlim(0, 100)
        plots.legend_above(fig, ax)
        label = (
            f"Bars for each of {len(shown)} classes of {s.secret} with at least 10 people: "
            "the share of its people the avatars disclose (DiSCO) and the expected share of "
            "right avatars (CAP)."
        )
        return plots.to_inline_svg(fig, key, label)


def _group_rows(groups: Sequence[Group]) -> list[str]:
    rows = []
    for g in groups:
        if not g.shown:
            rows.append(
                f'  <tr><td>{esc(g.label)}</td><td class="num" colspan="5">fewer than 10 '
                "people: not shown</td></tr>"
            )
            continue
        rows.append(
            f'  <tr><td>{esc(g.label)}</td><td class="num">{count_text(g.people)}</td>'
            f'<td class="num">{count_text(g.linked)}</td>'
            f'<td class="num">{count_text(g.right)}</td>'
            f'<td class="num">{count_text(g.disco)}</td>'
            f'<td class="num">{g.cap:,.1f}</td></tr>'
        )
    return rows


_GROUP_HEAD = (
    '<th>{what}</th><th class="num">People</th><th class="num">Linked</th>'
    '<th class="num">Linked, right</th><th class="num">DiSCO</th>'
    '<th class="num">Expected CAP (people)</th>'
)


def _control_rows(s: SecretInference) -> list[str]:
    rows = []
    for m in s.control:
        low, high = m.interval
        est, lo, hi = m.people
        risk = m.anonymeter_risk
        rows.append(
            f'  <tr><td>{esc(m.name)}</td><td class="num">{100 * m.original_share:.2f} %</td>'
            f'<td class="num">{100 * m.control_share:.2f} %</td>'
            f'<td class="num">{m.difference:+.2f} ({low:+.2f} to {high:+.2f})</td>'
            f'<td class="num">{est:+,} ({lo:+,} to {hi:+,})</td>'
            f'<td class="num">{"&ndash;" if risk is None else f"{risk:.4f}"}</td></tr>'
        )
    return rows


def _secret_section(s: SecretInference, index: int) -> str:
    c = s.counts
    parts = [
        f'<section id="secret-{index}">',
        f"<h2>Secret: {esc(s.secret)}</h2>",
        f'<p class="meaning">{esc(s.sentence())}</p>',
        f"<p>IAL {s.ial:.2f} % of {count_text(c.n)} people ({count_text(c.right)}), "
        f"precision {_pct(s.precision)} against {_pct(s.guess_precision)} for the population "
        f"guess · DiSCO {s.disco:.2f} % ({count_text(c.disco)}) · DiS {s.dis:.2f} % · "
        f"Dorig {s.dorig:.2f} % · DiSDiO {s.disdio:.2f} % · expected CAP "
        f"{s.expected_cap:.4f}</p>",
    ]
    if any(g.shown for g in s.classes):
        parts.append(f'<figure class="kpr-plot">\n{classes_svg(s, f"kprinf{index}")}\n</figure>')
    body = "\n".join(parts)
    if s.control:
        body += page.table_section(
            f"control-{index}",
            "Against the control, at the same size",
            '<th>Measure</th><th class="num">Original</th><th class="num">Control</th>'
            '<th class="num">Difference, points (CI)</th><th class="num">People (CI)</th>'
            '<th class="num">Anonymeter\'s R (comparison)</th>',
            _control_rows(s),
        )
    body += page.table_section(
        f"classes-{index}", "By class of the secret", _GROUP_HEAD.format(what="Class"),
        _group_rows(s.classes),
    )  # fmt: skip
    if s.profiles:
        body += page.table_section(
            f"profiles-{index}",
            "The profiles that disclose most (10 people or more)",
            _GROUP_HEAD.format(what="Profile"),
            _group_rows(s.profiles),
            before=f"<p>{count_text(s.hidden_profiles)} smaller profiles with people the "
            "avatars disclose are not listed.</p>",
        )
    return body + "\n</section>"


def _attacker(result: InferenceResult) -> str:
    return (
        f'<p class="meaning">An attacker who knows {page.names_html(result.known)} of a person, '
        f"and the avatars: what they infer about "
        f"{page.names_html(s.secret for s in result.secrets)}.</p>"
    )


def _secret_sections(result: InferenceResult) -> list[str]:
    return [_secret_section(s, i) for i, s in enumerate(result.secrets)]


def inference_section(result: InferenceResult) -> str:
    """The inference as a block of another page (``kpr evaluate --secret --report``):
    who the attacker is, then each secret's section (needs matplotlib for the plots)."""
    intro = f"""
<section id="inference">
 <h2>What the attacker infers</h2>
 {_attacker(result)}
</section>"""
    return "".join([intro, *_secret_sections(result)])


def render_inference(
    result: InferenceResult,
    *,
    inputs: Sequence[tuple[str, str]] = (),
    now: datetime | None = None,
) -> str:
    """The inference page as one HTML document (needs matplotlib for the plots)."""
    head = (
        f'<section class="headline">{_attacker(result)}{page.sources_line(list(inputs))}</section>'
    )
    return page.report_page(
        "kpr inference", HEADING, DATA_NOTE, lambda: [head, *_secret_sections(result)], now
    )


write_inference = page.page_writer(render_inference)


def repr_inference(result: InferenceResult) -> str:
    rows = [
        [
            esc(s.secret),
            count_text(s.counts.linked),
            _pct(s.precision),
            _pct(s.guess_precision),
            f"{s.disco:.2f} %",
            f"{s.expected_cap:.4f}",
        ]
        for s in result.secrets
    ]
    sentence = result.secrets[0].sentence() if result.secrets else ""
    return page.notebook_view(
        f"<b>Inference</b> on {page.names_html(result.known)}",
        sentence,
        ["Secret", "Linked", "Right among linked", "Population guess", "DiSCO", "Expected CAP"],
        rows,
    )
