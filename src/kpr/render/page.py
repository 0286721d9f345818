"""What every kpr HTML page shares: escaping, number formats, the page skeleton
(Content-Security-Policy, stylesheet), the headline rate, the warnings, the
footer, and writing the file atomically.

Every report page is built from these pieces (the result pages through
:func:`report_page`, a figure first through :func:`figure_headline`), so all look
alike and are escaped and written the same way. Nothing here needs matplotlib.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path
from typing import Required, TypedDict, Unpack

from kpr.errors import MissingDependencyError
from kpr.inputs.writers import check_output_path, write_text
from kpr.results.evaluation import format_rate
from kpr.version import __version__

#: No script, no request of any kind: only inline styles and inline SVG.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)

#: The banner at the top of every page.
HEADING = "kpr report · synthetic data privacy"


def esc(value: object) -> str:
    """Text from the data or the user, safe in HTML content and attribute values."""
    return escape(str(value), quote=True)


def require_matplotlib() -> None:
    """Fail early, in one line, when the ``report`` extra is not installed."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        raise MissingDependencyError("matplotlib", "report", "the HTML report") from None


def count_text(x: int) -> str:
    """A count with thousands separators: 32,561."""
    return f"{x:,}"


def percent_text(percent: float) -> str:
    """A percentage as a person reads it: 3.3 %, 12 % (one decimal only when small)."""
    return f"{percent:.0f} %" if percent == 0 or percent >= 10 else f"{percent:.1f} %"


def share_text(share: float) -> str:
    """A share (0..1) as a percentage a person reads."""
    return percent_text(100.0 * share)


def names_html(names: Iterable[str]) -> str:
    """Column names in bold, comma-separated, escaped."""
    return ", ".join(f"<b>{esc(n)}</b>" for n in names)


def sources_line(labels: Sequence[tuple[str, str]]) -> str:
    """Which files the page is about (``[(role, label), ...]``); empty when none."""
    if not labels:
        return ""
    parts = " · ".join(f'{role}: <span class="mono">{esc(label)}</span>' for role, label in labels)
    return f'<p class="inputs">{parts}</p>'


def figure_headline(
    name: str,
    label: str,
    value: float,
    shown: str,
    *,
    meaning: str,
    aside: str = "",
    lines: Sequence[str] = (),
    verdict: str = "",
) -> str:
    """A page's one figure, large, first on the page (``shown``, HTML), under its
    ``label`` (HTML, escaped by the caller), with its one-sentence ``meaning``.

    ``aside`` (HTML) sits beside the figure (a badge, an interval); ``lines`` (HTML)
    follow the meaning, empty ones left out. ``data-kpr-<name>`` holds the exact
    ``value``, so tests and tools can read it back from the page.
    """
    css = f"headline {verdict}" if verdict else "headline"
    tail = "\n ".join(line for line in lines if line)
    side = f"\n  {aside}" if aside else ""
    return f"""
<section class="{css}" aria-labelledby="{name}-label">
 <div class="headline-top">
  <div>
   <p class="rate-label" id="{name}-label">{label}</p>
   <div class="rate" data-kpr-{name}="{value!r}">{shown}</div>
  </div>{side}
 </div>
 <p class="meaning">{esc(meaning)}</p>
 {tail}
</section>"""


class HeadlineText(TypedDict, total=False):
    """What :func:`figure_headline` says around its figure, as keywords."""

    meaning: Required[str]
    aside: str
    lines: Sequence[str]
    verdict: str


def headline(rate: float, **text: Unpack[HeadlineText]) -> str:
    """The rate as the page's figure (:func:`figure_headline`, which ``text`` goes
    to): ``data-kpr-rate``."""
    return figure_headline(
        "rate", "Knowledge Protection Rate", rate, esc(format_rate(rate)), **text
    )


def warnings_section(warnings: Sequence[str]) -> str:
    """The warnings, each escaped, or a line saying there are none."""
    if not warnings:
        body = (
            '<p class="ok">No warnings: nothing in the data or the parameters looks like a '
            "mistake.</p>"
        )
    else:
        items = "\n".join(f"  <li>{esc(w)}</li>" for w in warnings)
        body = f'<ul class="warnings">\n{items}\n </ul>'
    return f"""
<section id="warnings">
 <h2>Warnings</h2>
 {body}
</section>"""


def table_section(
    section_id: str, heading: str, head: str, rows: Sequence[str], before: str = ""
) -> str:
    """A report section around one wide table: ``head``, the header row's cells;
    ``rows``, the body's rows; ``before``, what the section says above the table
    (all HTML, escaped by the caller)."""
    return f"""
<section id="{section_id}">
 <h2>{heading}</h2>{before}
 <div class="table-wrap"><table>
  <thead><tr>{head}</tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
 </table></div>
</section>"""


def plot_section(section_id: str, heading: str, svg: str, caption: str, after: str = "") -> str:
    """A report section around one plot: ``svg``, the inline plot; ``caption``, what it
    shows; ``after``, what the section holds below the figure (all HTML, escaped by the
    caller)."""
    return f"""
<section id="{section_id}">
 <h2>{heading}</h2>
 <figure class="kpr-plot">
{svg}
<figcaption>{caption}</figcaption>
 </figure>{after}
</section>"""


def columns_only_note(holds: str) -> str:
    """The data note of a page that shows ``holds`` (plain text) and column names, never
    an individual's values: one wording for every such page."""
    return (
        f"This page contains no raw data: {holds}, and the names of the columns only, no "
        "individual's values."
    )


def footer(data_note: str, now: datetime) -> str:
    """Who made the page and when, and what it holds (``data_note``, HTML)."""
    stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""
<footer>
 <p>Generated by kpr {esc(__version__)} on
  <time datetime="{now.astimezone(UTC).isoformat()}">{stamp}</time>.</p>
 <p>{data_note}</p>
</footer>"""


def stylesheet() -> str:
    return resources.files("kpr.render").joinpath("style.css").read_text(encoding="utf-8")


def document(title: str, body: str, heading: str = HEADING) -> str:
    """A whole page: strict CSP, no referrer, the stylesheet inline, ``body`` in <main>."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="kpr">
<title>{esc(title)}</title>
<style>
{stylesheet()}
</style>
</head>
<body>
<header><h1>{esc(heading)}</h1></header>
<main>
{body}
</main>
</body>
</html>
"""


def write_document(path: str | os.PathLike[str], render: Callable[[], str]) -> Path:
    """Check the target, render, then write it (``kpr.inputs.writers``: atomically,
    links followed, devices written through): a failure leaves no file."""
    check_output_path(path, "the report")
    write_text(path, render())
    return Path(path)


def page_writer(render: Callable[..., str]) -> Callable[..., Path]:
    """The ``write`` view of a page ``render(result, **options)``: check the target,
    render, then write it (:func:`write_document`): a failure leaves no file."""

    def write(result: object, path: str | os.PathLike[str], **options: object) -> Path:
        return write_document(path, lambda: render(result, **options))

    return write


def report_page(
    title: str,
    heading: str,
    data_note: str,
    sections: Callable[[], Iterable[str]],
    now: datetime | None = None,
) -> str:
    """A result's whole page: matplotlib checked first (``sections`` draw the plots),
    then the sections in order and the footer, which says what the page holds
    (``data_note``, plain text) and when it was made (``now``, by default the current
    time), in the :func:`document` frame under ``heading``."""
    require_matplotlib()
    body = "".join([*sections(), footer(esc(data_note), now or datetime.now(UTC))])
    return document(title, body, heading)


def notebook_headline(text: str) -> str:
    """The headline figure of a notebook view, large and bold (``text``, HTML)."""
    return f'<span style="font-size:1.4em;font-weight:bold">{text}</span>'


def notebook_view(
    headline_html: str,
    sentence: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    warnings: Sequence[str] = (),
    hint: str = "",
) -> str:
    """The compact view Jupyter shows for a result: a headline, one sentence, one
    table (cells already escaped), the warnings; no plots, no stylesheet."""
    cell = 'style="padding:.15em .8em .15em 0;text-align:right"'
    head = "".join(f"<th {cell}>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {cell}>{c}</td>" for c in row) + "</tr>" for row in rows)
    items = "".join(f'<li style="margin:.2em 0">{esc(w)}</li>' for w in warnings)
    warned = (
        '<div style="margin-top:.4em"><b>Warnings</b>'
        f'<ul style="margin:.2em 0;padding-left:1.2em">{items}</ul></div>'
        if warnings
        else ""
    )
    return (
        '<div class="kpr-result" style="line-height:1.4">'
        f"<div>{headline_html}</div><div>{esc(sentence)}</div>"
        f'<table style="margin:.4em 0;border-collapse:collapse"><tr>{head}</tr>{body}</table>'
        f"{warned}"
        + (f'<div style="opacity:.7;font-size:.9em;margin-top:.3em">{hint}</div>' if hint else "")
        + "</div>"
    )
