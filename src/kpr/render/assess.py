"""The page of an evidence pack (``kpr assess``): one section per item a controller
documents, built from results.json and manifest.json only, so the page shows exactly
the figures the pack files and ``kpr verify`` re-checks."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from typing import Any

from kpr.render.page import document, esc

#: Attacks kpr assess does not run (item 11).
NOT_TESTED = (
    "reconstruction attacks (solving for the original from published statistics)",
    "attacks with access to the generating model or its parameters",
    "linkage with outside data beyond the stated candidate variables",
    "attacks on several releases of the same data combined",
)


def _fmt(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _rows(figures: Mapping[str, Any], prefix: str) -> str:
    rows = [
        f"<tr><td><code>{esc(k)}</code></td><td>{esc(_fmt(v))}</td></tr>"
        for k, v in figures.items()
        if k.startswith(prefix)
    ]
    if not rows:
        return ""
    return (
        '<div class="table-wrap"><table><thead><tr><th>figure</th><th>value</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _section(number: int, title: str, body: str, assessed: bool = True) -> str:
    status = "" if assessed else ' <span class="warn">not assessed</span>'
    return f'<section id="item-{number}"><h2>{number}. {esc(title)}{status}</h2>{body}</section>'


def _not_assessed(why: str) -> str:
    return f"<p>Not assessed: {esc(why)}.</p>"


def _plot(worst: Sequence[Mapping[str, Any]]) -> str:
    if not worst or importlib.util.find_spec("matplotlib") is None:
        return ""
    from kpr.render.plots import RateBar, rate_bars_svg

    bars = [RateBar(", ".join(w["known"]), w["rate"], w["rate"], w["rate"]) for w in worst]
    return rate_bars_svg(bars, "assess-worst", title="Riskiest subsets of known variables",
                         label="KPR (%)")  # fmt: skip


def _item(number: int, title: str, results: Mapping[str, Any], key: str, prefix: str,
          before: str = "") -> str:  # fmt: skip
    why = results["not_assessed"].get(key)
    if why is not None:
        return _section(number, title, _not_assessed(why), assessed=False)
    return _section(number, title, before + _rows(results["figures"], prefix))


def _distance(figures: Mapping[str, Any]) -> str:
    sample = figures.get("distance.sample_rows_per_side")
    how = f"on a seeded sample of {sample:,} rows per side" if sample else "on every row"
    return (
        f"<p>Exact copies, DCR and NNDR in the FAMD space fitted on the original, {esc(how)}"
        " (as <code>kpr distance</code>).</p>" + _rows(figures, "distance.")
    )


def assess_page(results: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    """The whole page (escaped, self-contained)."""
    f = results["figures"]
    pol = results["policy"]
    params = results["parameters"]
    absent = results["not_assessed"]
    inputs = "".join(
        f"<tr><td>{esc(role)}</td><td>{esc(i['file'])}</td><td><code>{esc(i['sha256'])}</code>"
        f"</td><td>{esc(_fmt(i.get('rows')))}</td><td>{esc(_fmt(i.get('columns')))}</td></tr>"
        for role, i in manifest["inputs"].items()
    )
    vers = ", ".join(f"{esc(k)} {esc(v)}" for k, v in manifest["versions"].items())
    s1 = (
        '<div class="table-wrap"><table><thead><tr><th>role</th><th>file</th><th>SHA-256</th>'
        f"<th>rows</th><th>columns</th></tr></thead><tbody>{inputs}</tbody></table></div>"
        f"<p>Versions: {vers}.</p><p>Parameters: {esc(params)}.</p>"
        f"<p>Command: <code>{esc(manifest['command'])}</code></p>"
    )
    stated = pol["stated"]
    s2 = (
        f"<p>Recipients: {esc(pol['recipients'] or 'not stated')}. Release model: "
        f"{esc(pol['release_model'] or 'not stated')}.</p><p>Attacker's assumed knowledge: "
        f"{esc(', '.join(params['candidates']))} (up to {esc(params['max_known'])} at once). "
        f"Where it comes from: {esc(pol['attacker']['why'] or 'not stated')}.</p>"
    )
    worst = results["worst_subsets"]
    worst_rows = "".join(
        f"<tr><td>{esc(', '.join(w['known']))}</td><td>{esc(_fmt(w['rate']))}</td>"
        f"<td>{esc(_fmt(w['unique']))}</td><td>{esc(_fmt(w['linked']))}</td></tr>"
        for w in worst
    )
    s3 = (
        _rows({k: v for k, v in f.items() if ".control." not in k}, "singling_out.")
        + '<h3>Riskiest subsets of known variables</h3><div class="table-wrap"><table><thead>'
        "<tr><th>known</th><th>KPR (%)</th><th>|U|</th><th>|S|</th></tr></thead>"
        f"<tbody>{worst_rows}</tbody></table></div>" + _plot(worst)
    )
    s6 = (
        _not_assessed(absent["membership"]) if "membership" in absent
        else _rows(f, "membership.")
    ) + "<h3>Distances to the closest record</h3>" + _distance(f)  # fmt: skip
    s7 = _not_assessed(absent["control"]) if "control" in absent else (
        _rows(f, "singling_out.control.") + _rows({k: v for k, v in f.items() if ".control." in k},
                                                  "inference.")
    )  # fmt: skip
    spots = "".join(
        f"<tr><td>{esc(g['variable'])}</td><td>{esc(g['value'])}</td><td>{esc(_fmt(g['people']))}"
        f"</td><td>{esc(_fmt(g['linked']))}</td><td>{g['share']:.1f} %</td></tr>"
        for g in results["hot_spots"]
    )
    s8 = (
        "<p>The classes of the known variables where the linked people concentrate (the "
        f"attack with every candidate known). Only groups of at least {esc(pol['min_count'])} "
        "people are shown by their values; "
        f"{esc(_fmt(f.get('singling_out.hot_spots_hidden')))} smaller group(s) holding a "
        "linked person are counted, not named.</p>"
        '<div class="table-wrap"><table><thead><tr><th>variable</th><th>class</th>'
        "<th>people</th><th>linked</th><th>share linked</th></tr></thead>"
        f"<tbody>{spots}</tbody></table></div>"
    )
    s10 = (
        f"<p>Pairing file: {esc(manifest['inputs'].get('pairing', {}).get('sha256', 'none given'))}"
        f" (referenced by hash only). Where it is kept and when it is deleted: "
        f"{esc(pol['pairing_storage'] or 'not stated')}. While it exists, the synthetic rows "
        "are pseudonymised data, not anonymous (EDPB guidelines 01/2025).</p>"
    )
    s11 = "<ul>" + "".join(f"<li>{esc(t)}</li>" for t in NOT_TESTED) + "</ul>"
    verdicts = "".join(
        f"<tr><td>{esc(name)}</td><td>{esc(_fmt(v['value']))}</td><td>{esc(_fmt(v['threshold']))}"
        f"</td><td>{esc(v['unit'])}</td><td>{esc(v['verdict'])}</td><td>{esc(v['rationale'])}</td></tr>"
        for name, v in results["verdicts"].items()
    )
    s12 = (
        ("" if stated else "<p>No policy given: no threshold stated, no pass/fail.</p>")
        + f"<p>Reviewer: {esc(pol['reviewer'] or 'not stated')}; review date: "
        f"{esc(pol['review_date'] or 'not stated')}.</p>"
        '<div class="table-wrap"><table><thead><tr><th>criterion</th><th>figure</th>'
        "<th>threshold</th><th>unit</th><th>verdict</th><th>rationale</th></tr></thead>"
        f"<tbody>{verdicts}</tbody></table></div>"
    )
    s9_before = (
        "<p>Counts of the cells kpr protect changed, by move and column (never a value). "
        "It does not cover attacks on other known variables than those protect was given.</p>"
    )
    body = "".join((
        _section(1, "Files, software, seeds and parameters", s1),
        _section(2, "Release model, recipients and the attacker's knowledge", s2),
        _section(3, "Singling out", s3),
        _item(4, "Linkability: correct links", results, "linkability", "linkability."),
        _item(5, "Inference", results, "inference", "inference.",
              "<p>Per sensitive variable, against the population guess.</p>"),
        _section(6, "Membership and replication", s6),
        _section(7, "Control at the same size", s7, "control" not in absent),
        _section(8, "Outliers and hot spots", s8),
        _item(9, "What kpr protect changed", results, "protect", "protect.", s9_before),
        _section(10, "The pairing file", s10),
        _section(11, "Attacks not tested", s11),
        _section(12, "The controller's thresholds and verdicts", s12),
        _section(13, "Utility cost", _rows(f, "utility.")),
    ))  # fmt: skip
    return document("kpr evidence pack", body)
