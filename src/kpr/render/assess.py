"""The page of an evidence pack (``kpr assess``): one section per item a controller
documents, built from results.json and manifest.json only, so the page shows exactly
the figures the pack files and ``kpr verify`` re-checks. Every text is escaped; the
plots (:mod:`kpr.render.assess_plots`) are drawn when matplotlib is installed."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kpr.render.page import document, esc

Json = Mapping[str, Any]

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


def _wrap(head: Sequence[str], rows: Sequence[str]) -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    return (
        f'<div class="table-wrap"><table><thead><tr>{th}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An escaped table (cells formatted by ``_fmt``)."""
    cells = ["".join(f"<td>{esc(_fmt(c))}</td>" for c in row) for row in rows]
    return _wrap(head, [f"<tr>{c}</tr>" for c in cells])


def _rows(figures: Json, prefix: str, keep: Callable[[str], bool] = lambda _: True) -> str:
    rows = [
        f"<tr><td><code>{esc(k)}</code></td><td>{esc(_fmt(v))}</td></tr>"
        for k, v in figures.items()
        if k.startswith(prefix) and keep(k)
    ]
    return _wrap(("figure", "value"), rows) if rows else ""


def _section(number: int, title: str, body: str, assessed: bool = True) -> str:
    status = "" if assessed else ' <span class="warn">not assessed</span>'
    return f'<section id="item-{number}"><h2>{number}. {esc(title)}{status}</h2>{body}</section>'


def _not_assessed(why: str) -> str:
    return f"<p>Not assessed: {esc(why)}.</p>"


def _plot(draw: Callable[..., str], *args: Any) -> str:
    """A plot in a figure, or nothing (no matplotlib, or nothing to draw)."""
    if importlib.util.find_spec("matplotlib") is None:
        return ""
    svg = draw(*args)
    return f'<figure class="kpr-plot">\n{svg}\n</figure>' if svg else ""


def _files(r: Json, man: Json) -> str:
    inputs = [
        (role, i["file"], i["sha256"], i.get("rows"), i.get("columns"))
        for role, i in man["inputs"].items()
    ]
    vers = ", ".join(f"{esc(k)} {esc(v)}" for k, v in man["versions"].items())
    return (
        _table(("role", "file", "SHA-256", "rows", "columns"), inputs)
        + f"<p>Versions: {vers}.</p><p>Parameters: {esc(r['parameters'])}.</p>"
        f"<p>Command: <code>{esc(man['command'])}</code></p>"
    )


def _release(r: Json) -> str:
    pol, params = r["policy"], r["parameters"]
    return (
        f"<p>Recipients: {esc(pol['recipients'] or 'not stated')}. Release model: "
        f"{esc(pol['release_model'] or 'not stated')}.</p><p>Attacker's assumed knowledge: "
        f"{esc(', '.join(params['candidates']))} (up to {esc(params['max_known'])} at once). "
        f"Where it comes from: {esc(pol['attacker']['why'] or 'not stated')}.</p>"
    )


def _singling_out(r: Json) -> str:
    from kpr.render.assess_plots import subsets_svg

    f, worst = r["figures"], r["worst_subsets"]
    rows = [(", ".join(w["known"]), w["rate"], w["unique"], w["linked"]) for w in worst]
    return (
        _rows(f, "singling_out.", lambda k: ".control." not in k)
        + "<h3>Riskiest subsets of known variables</h3>"
        + _table(("known", "KPR (%)", "|U|", "|S|"), rows)
        + _plot(subsets_svg, worst, f)
    )


def _inference(r: Json) -> str:
    from kpr.render.assess_plots import secrets_svg

    return (
        "<p>Per sensitive variable, against the population guess.</p>"
        + _plot(secrets_svg, r["parameters"]["secrets"], r["figures"])
        + _rows(r["figures"], "inference.")
    )


def _membership(r: Json) -> str:
    from kpr.render.assess_plots import membership_svg

    f, absent = r["figures"], r["not_assessed"]
    sample = f.get("distance.sample_rows_per_side")
    how = f"on a seeded sample of {sample:,} rows per side" if sample else "on every row"
    attack = (
        _not_assessed(absent["membership"])
        if "membership" in absent
        else _plot(membership_svg, f) + _rows(f, "membership.")
    )
    return (
        attack + "<h3>Distances to the closest record</h3>"
        f"<p>Exact copies, DCR and NNDR in the FAMD space fitted on the original, {esc(how)}"
        " (as <code>kpr distance</code>).</p>" + _rows(f, "distance.")
    )


def _control(r: Json) -> str:
    f = r["figures"]
    return _rows(f, "singling_out.control.") + _rows(f, "inference.", lambda k: ".control." in k)


def _hot_spots(r: Json) -> str:
    f, pol = r["figures"], r["policy"]
    rows = [
        (g["variable"], g["value"], g["people"], g["linked"], f"{g['share']:.1f} %")
        for g in r["hot_spots"]
    ]
    return (
        "<p>The classes of the known variables where the linked people concentrate (the "
        f"attack with every candidate known). Only groups of at least {esc(pol['min_count'])} "
        "people are shown by their values; "
        f"{esc(_fmt(f.get('singling_out.hot_spots_hidden')))} smaller group(s) holding a "
        "linked person are counted, not named.</p>"
        + _table(("variable", "class", "people", "linked", "share linked"), rows)
    )


def _protect(r: Json) -> str:
    from kpr.render.assess_plots import protect_svg

    return (
        "<p>Counts of the cells kpr protect changed, by move and column (never a value). "
        "It does not cover attacks on other known variables than those protect was given.</p>"
        + _plot(protect_svg, r["figures"])
        + _rows(r["figures"], "protect.")
    )


def _pairing(r: Json, man: Json) -> str:
    digest = man["inputs"].get("pairing", {}).get("sha256", "none given")
    return (
        f"<p>Pairing file: {esc(digest)} (referenced by hash only). Where it is kept and when "
        f"it is deleted: {esc(r['policy']['pairing_storage'] or 'not stated')}. While it "
        "exists, the synthetic rows are pseudonymised data, not anonymous (EDPB guidelines "
        "01/2025).</p>"
    )


def _verdicts(r: Json) -> str:
    pol = r["policy"]
    rows = [
        (name, v["value"], v["threshold"], v["unit"], v["verdict"], v["rationale"])
        for name, v in r["verdicts"].items()
    ]
    return (
        ("" if pol["stated"] else "<p>No policy given: no threshold stated, no pass/fail.</p>")
        + f"<p>Reviewer: {esc(pol['reviewer'] or 'not stated')}; review date: "
        f"{esc(pol['review_date'] or 'not stated')}.</p>"
        + _table(("criterion", "figure", "threshold", "unit", "verdict", "rationale"), rows)
    )


def _optional(number: int, title: str, r: Json, key: str, body: Callable[[Json], str]) -> str:
    """A section answered, or marked "not assessed" with why."""
    why = r["not_assessed"].get(key)
    if why is not None:
        return _section(number, title, _not_assessed(why), assessed=False)
    return _section(number, title, body(r))


def assess_page(results: Json, manifest: Json) -> str:
    """The whole page (escaped, self-contained)."""
    r = results
    not_tested = "<ul>" + "".join(f"<li>{esc(t)}</li>" for t in NOT_TESTED) + "</ul>"
    body = "".join((
        _section(1, "Files, software, seeds and parameters", _files(r, manifest)),
        _section(2, "Release model, recipients and the attacker's knowledge", _release(r)),
        _section(3, "Singling out", _singling_out(r)),
        _optional(4, "Linkability: correct links", r, "linkability",
                  lambda r: _rows(r["figures"], "linkability.")),
        _optional(5, "Inference", r, "inference", _inference),
        _section(6, "Membership and replication", _membership(r)),
        _optional(7, "Control at the same size", r, "control", _control),
        _section(8, "Outliers and hot spots", _hot_spots(r)),
        _optional(9, "What kpr protect changed", r, "protect", _protect),
        _section(10, "The pairing file", _pairing(r, manifest)),
        _section(11, "Attacks not tested", not_tested),
        _section(12, "The controller's thresholds and verdicts", _verdicts(r)),
        _section(13, "Utility cost", _rows(r["figures"], "utility.")),
    ))  # fmt: skip
    return document("kpr evidence pack", body)
