"""The tolerance curve: the same attack at several tolerances, and a small
dependency-free SVG of it for the HTML report."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape

from kpr.analysis.attacks import run_attack
from kpr.analysis.interval import DEFAULT_CONFIDENCE
from kpr.analysis.result import AttackRate, Method
from kpr.errors import InputError
from kpr.metric.plan import check_tolerance
from kpr.tables import Prepared

DEFAULT_TOLERANCES: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2)


def check_tolerances(values: Iterable[object]) -> tuple[float, ...]:
    """Each in (0, 1); sorted, duplicates dropped."""
    out = sorted({check_tolerance(v) for v in values})
    if not out:
        raise InputError("tolerances is empty: give at least one, e.g. 0.01,0.05,0.1")
    return tuple(out)


def tolerance_curve(
    prepared: Prepared,
    known: Iterable[str],
    tolerances: Iterable[float] = DEFAULT_TOLERANCES,
    *,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    known_rates: Iterable[AttackRate] = (),
) -> list[AttackRate]:
    """The rate of one attack at each tolerance (rates already computed for the
    same attack and method in ``known_rates`` are reused)."""
    known = list(known)
    done = {r.tolerance: r for r in known_rates if list(r.known) == known and r.method == method}
    return [
        done.get(t)
        or run_attack(prepared, known, tolerance=t, method=method, confidence=confidence)
        for t in check_tolerances(tolerances)
    ]


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]."""
    span = hi - lo
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * step:
            step *= mult
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def curve_svg(points: Sequence[AttackRate], width: int = 520, height: int = 300) -> str:
    """An SVG line chart of the rate against the tolerance (log scale), with the
    Wilson interval as a band. Plain SVG: no plotting library needed."""
    if not points:
        raise ValueError("no points to plot")
    pts = sorted(points, key=lambda p: p.tolerance)
    left, right, top, bottom = 60, 20, 20, 45
    pw, ph = width - left - right, height - top - bottom
    xs = [math.log10(p.tolerance) for p in pts]
    x_lo, x_hi = min(xs), max(xs)
    if x_hi - x_lo < 1e-12:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    lows = [p.interval[0] for p in pts]
    highs = [p.interval[1] for p in pts]
    y_lo, y_hi = min(lows), max(highs)
    pad = max((y_hi - y_lo) * 0.1, 0.5)
    y_lo, y_hi = max(0.0, y_lo - pad), min(100.0, y_hi + pad)

    def sx(v: float) -> float:
        return left + (v - x_lo) / (x_hi - x_lo) * pw

    def sy(v: float) -> float:
        return top + (y_hi - v) / (y_hi - y_lo) * ph

    band = [(sx(x), sy(h)) for x, h in zip(xs, highs, strict=True)]
    band += [(sx(x), sy(lo)) for x, lo in reversed(list(zip(xs, lows, strict=True)))]
    line = [(sx(x), sy(p.rate)) for x, p in zip(xs, pts, strict=True)]

    def path(coords: list[tuple[float, float]]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" '
        'role="img" aria-label="Knowledge Protection Rate against the tolerance">',
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>',
    ]
    for t in _ticks(y_lo, y_hi):
        y = sy(t)
        out.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g} %</text>'
        )
    for x, p in zip(xs, pts, strict=True):
        out.append(
            f'<text x="{sx(x):.1f}" y="{top + ph + 16}" text-anchor="middle">'
            f"{p.tolerance * 100:g} %</text>"
        )
    out += [
        f'<polygon points="{path(band)}" fill="#4c78a8" fill-opacity="0.2" stroke="none"/>',
        f'<polyline points="{path(line)}" fill="none" stroke="#4c78a8" stroke-width="2"/>',
    ]
    for (x, y), p in zip(line, pts, strict=True):
        low, high = p.interval
        title = escape(f"tolerance {p.tolerance:g}: {p.rate:.4g} % (CI {low:.4g} to {high:.4g} %)")
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#4c78a8">'
            f"<title>{title}</title></circle>"
        )
    out += [
        f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle">'
        "tolerance (log scale)</text>",
        f'<text x="14" y="{top + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + ph / 2})">KPR</text>',
        "</svg>",
    ]
    return "\n".join(out)
