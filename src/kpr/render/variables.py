"""The evaluation report's "Where the risk concentrates": for each known variable, its
classes or values, the share of their originals linked, the hotspot and the plot."""

from __future__ import annotations

from kpr.metric.attack import Kind
from kpr.render.page import count_text, esc, share_text
from kpr.render.risk import (
    HOTSPOT_LEVEL,
    Group,
    VariableRisk,
    significant_hotspots,
    variable_risk,
)
from kpr.results.evaluation import KprResult

_int = count_text
_pct = share_text


def variable_risks(result: KprResult) -> list[VariableRisk] | None:
    """Each known variable's classes or values and their risk; None without per-class detail."""
    try:
        return [variable_risk(result, name) for name in result.known]
    except ValueError:  # a result without detail (built by hand, or deserialised)
        return None


def group_label(g: Group) -> str:
    """A class or value label, escaped; the missing-value one set apart."""
    text = esc(g.label)
    return f'<span class="missing-value">{text}</span>' if g.missing else text


def _group_row(g: Group, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return (
        f'  <tr{cls}><td class="value">{group_label(g)}</td>'
        f'<td class="num">{_int(g.originals)}</td><td class="num">{_int(g.avatars)}</td>'
        f'<td class="num">{_int(g.unique_originals)}</td><td class="num">{_int(g.linked)}</td>'
        f'<td class="num">{_pct(g.share)}</td></tr>'
    )


def _group_table(risk: VariableRisk) -> str:
    first = "Class" if risk.kind.binned else "Value"
    rows = [_group_row(g) for g in risk.groups]
    rows += [_group_row(g) for g in risk.special]
    if risk.rest is not None:
        rows.append(_group_row(risk.rest, "total"))
    return f"""<div class="table-wrap"><table>
  <thead><tr><th>{first}</th><th class="num">Originals</th><th class="num">Avatars</th>
   <th class="num">Unique originals</th><th class="num">Linked</th>
   <th class="num">Share linked</th></tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>"""


def _hotspot_sentence(risk: VariableRisk, overall: float, classes: int) -> str:
    """Name the class or value that holds the most linked individuals beyond its
    fair share, and say whether that is more than chance explains (the advice's test:
    one-sided hypergeometric, Bonferroni over the ``classes`` looked at)."""
    g = risk.hotspot
    if g is None:
        return "Nobody is linked through this variable's values."
    where = "class" if g.lower is not None else "value"
    text = (
        f"The {where} {group_label(g)} holds the most linked individuals beyond its fair "
        f"share: {_int(g.linked)} of its {_int(g.originals)} originals are linked "
        f"({_pct(g.share)}, against {_pct(overall)} over everybody)."
    )
    p = risk.hotspot_p
    if p is None:
        return text
    verdict = (
        "more than chance explains"
        if p * classes <= HOTSPOT_LEVEL
        else "no more than chance explains"
    )
    return (
        f"{text} That is {verdict} (one-sided hypergeometric p = {p:.2g}; Bonferroni over "
        f"the {classes:,} classes looked at, {HOTSPOT_LEVEL * 100:g} % level)."
    )


def _variable_section(
    result: KprResult, risk: VariableRisk, index: int, svg: str | None, classes: int
) -> str:
    overall = result.linked / result.n if result.n else 0.0
    parts = [f'<h3 id="risk-{index}">{esc(risk.name)} <span class="muted small">{risk.kind.value}'
             "</span></h3>"]  # fmt: skip
    parts.append(f"<p>{_hotspot_sentence(risk, overall, classes)}</p>")
    if svg is not None:
        if risk.kind.binned:
            merged = (
                f" Each bar merges {risk.merged} neighbouring classes to keep the plot readable."
                if risk.merged > 1
                else ""
            )
            caption = (
                "Top: how many original individuals (blue) and avatars (orange) fall in each "
                "class. Bottom: the share of each class's originals linked to a unique avatar; "
                f"the dashed line is the share over everybody ({_pct(overall)}).{merged}"
            )
        else:
            shown = len(risk.groups)
            which = (
                f"The {shown} values (of {_int(risk.values)}) with the most linked individuals."
                if risk.rest is not None
                else "Every value, those with the most linked individuals first."
            )
            caption = (
                f"{which} Left: original individuals (blue) and avatars (orange) holding the "
                "value. Right: the share of its originals linked to a unique avatar; the dashed "
                f"line is the share over everybody ({_pct(overall)})."
            )
        parts.append(
            f'<figure class="kpr-plot">\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>'
        )
    if risk.special:
        listed = "; ".join(
            f"{esc(g.label)}: {_int(g.originals)} originals, {_int(g.avatars)} avatars, "
            f"{_int(g.linked)} linked"
            for g in risk.special
        )
        parts.append(f'<p class="small">Not in the plot (special classes): {listed}.</p>')
    open_attr = " open" if risk.kind is Kind.CATEGORICAL else ""
    parts.append(
        f"<details{open_attr}><summary>The numbers for {esc(risk.name)}</summary>\n"
        f"{_group_table(risk)}\n</details>"
    )
    return "\n".join(parts)


def risk_section(
    result: KprResult, risks: list[VariableRisk] | None, svgs: list[str | None]
) -> str:
    """The report's "Where the risk concentrates": one part per known variable."""
    if risks is None:
        body = (
            "<p>This result holds no per-class detail, so where the risk sits cannot be shown.</p>"
        )
    else:
        classes = significant_hotspots(risks)[1]
        body = "\n".join(
            _variable_section(result, risk, i, svg, classes)
            for i, (risk, svg) in enumerate(zip(risks, svgs, strict=True))
        )
    return f"""
<section id="risk">
 <h2>Where the risk concentrates</h2>
 <p>For each known variable: how many originals and avatars fall in each class (numeric) or
  value (categorical), and which share of those originals the attacker links to a unique
  avatar. Classes or values far above the dashed line are where people are exposed.</p>
{body}
</section>"""
