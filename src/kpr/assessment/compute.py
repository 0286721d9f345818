"""``kpr.assess``: every criterion of the evidence pack, computed once on the inputs
read once (singling out and correct links by ``kpr.analysis.analyze``, inference,
membership, utility), reduced to named figures that ``kpr verify`` re-checks.

Only headline counts and rates reach the figures: no per-value table, no row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from kpr.analysis import analyze
from kpr.analysis.inference import inference
from kpr.analysis.members import membership
from kpr.api import evaluate
from kpr.avatar.distance import distance_metrics
from kpr.errors import InputError
from kpr.fidelity import utility
from kpr.metric.attack import column_names

from .hotspots import hot_spots
from .inputs import InputFile, read_input
from .policy import CRITERIA, Policy, read_policy

Figure = int | float | None

#: Distances are computed on a seeded sample of at most this many rows per side.
DISTANCE_ROWS = 100_000

#: The utility scores filed (SDMetrics' Quality Report and Octopize's measures).
UTILITY = ("overall", "column_shapes", "column_pair_trends", "mean_hellinger",
           "correlation_difference")  # fmt: skip


@dataclass(frozen=True)
class Parameters:
    """Every parameter of an assessment (written to the manifest, read back by verify)."""

    candidates: tuple[str, ...]
    max_known: int
    secrets: tuple[str, ...]
    seed: int = 0
    distance_rows: int = DISTANCE_ROWS  #: rows per side above which distances sample

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates),
            "max_known": self.max_known,
            "secrets": list(self.secrets),
            "seed": self.seed,
            "distance_rows": self.distance_rows,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Parameters:
        return cls(
            tuple(d["candidates"]), int(d["max_known"]), tuple(d["secrets"]), int(d["seed"]),
            int(d["distance_rows"]),
        )  # fmt: skip


@dataclass(frozen=True)
class AssessResult:
    """The figures of every criterion, the items' notes, the verdicts and the inputs."""

    parameters: Parameters
    inputs: tuple[InputFile, ...]
    figures: Mapping[str, Figure]
    worst_subsets: tuple[Mapping[str, Any], ...]
    policy: Policy
    policy_text: str | None
    not_assessed: Mapping[str, str] = field(default_factory=dict)
    hot_spots: tuple[Mapping[str, Any], ...] = ()

    def verdicts(self) -> dict[str, dict[str, Any]]:
        """Per criterion: the figure, the threshold with its unit and pass/fail, or
        "no threshold stated" (then no verdict)."""
        out: dict[str, dict[str, Any]] = {}
        for name, crit in CRITERIA.items():
            value = self.figures.get(crit.figure)
            t = self.policy.thresholds.get(name)
            entry: dict[str, Any] = {"figure": crit.figure, "value": value, "unit": crit.unit}
            if t is None:
                entry |= {"threshold": None, "verdict": "no threshold stated"}
            elif value is None:
                entry |= {"threshold": t.value, "verdict": "not assessed"}
            else:
                entry |= {"threshold": t.value, "verdict": "pass" if t.passes(value) else "fail"}
            entry["rationale"] = t.rationale if t else ""
            out[name] = entry
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "kpr-assess/1",
            "parameters": self.parameters.to_dict(),
            "figures": dict(self.figures),
            "worst_subsets": [dict(w) for w in self.worst_subsets],
            "hot_spots": [dict(g) for g in self.hot_spots],
            "not_assessed": dict(self.not_assessed),
            "policy": self.policy.to_dict(),
            "verdicts": self.verdicts(),
        }


def _singling_out(d: Mapping[str, Any], figures: dict[str, Figure]) -> list[dict[str, Any]]:
    a = d["attack"]
    figures |= {
        "singling_out.rate": a["kpr"],
        "singling_out.interval_low": a["interval"]["low"],
        "singling_out.interval_high": a["interval"]["high"],
        "singling_out.n": a["n"],
        "singling_out.n_synthetic": a["n_avatars"],
        "singling_out.unique": a["unique_originals"],
        "singling_out.linked": a["linked"],
        "singling_out.floor": d["worst_case"]["kpr"],
        "singling_out.original_published": d["original_published"]["kpr"],
        "linkability.correct_links": d.get("correct_links"),
        "linkability.correct_link_share": (
            None if d.get("correct_links") is None else 100 * d["correct_links"] / a["n"]
        ),
    }
    c = d.get("control")
    if c is not None:
        figures |= {
            "singling_out.control.rate_at_size": c["control_kpr_at_size"],
            "singling_out.control.original_at_size": c["original_kpr_at_size"],
            "singling_out.control.compared_at_size": c["compared_at_size"],
            "singling_out.control.difference": c["difference"],
            "singling_out.control.difference_low": c["difference_interval"]["low"],
            "singling_out.control.difference_high": c["difference_interval"]["high"],
        }
    entries = d["sweep"]["entries"] if d.get("sweep") else []
    return [
        {
            "known": e["known"],
            "rate": e["kpr"],
            "unique": e["unique_originals"],
            "linked": e["linked"],
        }
        for e in entries[:5]
    ]


def _inference(d: Mapping[str, Any], figures: dict[str, Figure]) -> None:
    gains: list[float] = []
    for s in d["secrets"]:
        key = f"inference.{s['secret']}"
        figures |= {
            f"{key}.linked": s["linked"],
            f"{key}.right": s["right"],
            f"{key}.precision": s["precision"],
            f"{key}.population_guess": s["population_guess"]["precision"],
            f"{key}.link_adds": s["link_adds"],
            f"{key}.disco_share": s["disco"]["share"],
            f"{key}.expected_cap": s["expected_cap"],
        }
        if s["link_adds"] is not None:
            gains.append(s["link_adds"])
        for c in s.get("control") or []:
            m = f"{key}.control.{c['measure'].replace(' ', '_')}"
            figures |= {
                f"{m}.difference": c["difference"],
                f"{m}.difference_low": c["difference_interval"]["low"],
                f"{m}.difference_high": c["difference_interval"]["high"],
            }
    figures["inference.max_link_adds"] = max(gains) if gains else None


def _membership(d: Mapping[str, Any], figures: dict[str, Figure]) -> None:
    figures |= {
        "membership.auc": d["auc"]["value"],
        "membership.auc_low": d["auc"]["interval"]["low"],
        "membership.auc_high": d["auc"]["interval"]["high"],
        "membership.members": d["members"],
        "membership.non_members": d["non_members"],
        "membership.member_share_in_synthetic": d["in_avatars"]["member_share"],
        "membership.non_member_share_in_synthetic": d["in_avatars"]["non_member_share"],
    }
    for p in d["tpr_at_fpr"]:
        figures[f"membership.tpr_at_fpr_{p['fpr']}"] = p["tpr"] if p["available"] else None


def _protect_log(log: pl.DataFrame, figures: dict[str, Figure]) -> None:
    """Counts only: which columns and moves, never a cell's value."""
    needed = {"avatar_row", "column", "move"}
    if not needed <= set(log.columns):
        raise InputError(
            "the protect change log has no "
            + ", ".join(sorted(needed - set(log.columns)))
            + " column: give the file kpr protect --changes-out wrote"
        )
    figures["protect.cells_changed"] = log.height
    figures["protect.rows_changed"] = log["avatar_row"].n_unique()
    for name, count in sorted(log.group_by("move").len().iter_rows(), key=lambda r: str(r[0])):
        figures[f"protect.move.{name or 'unnamed'}"] = count
    for name, count in sorted(log.group_by("column").len().iter_rows(), key=lambda r: str(r[0])):
        figures[f"protect.column.{name}"] = count


def _sample(frame: pl.DataFrame, rows: int, seed: int) -> pl.DataFrame:
    """At most ``rows`` rows, drawn with ``seed`` (the whole table when smaller)."""
    return frame if frame.height <= rows else frame.sample(rows, seed=seed)


def _distances(
    o: pl.DataFrame, a: pl.DataFrame, h: pl.DataFrame | None, p: pl.DataFrame | None,
    params: Parameters, figures: dict[str, Figure],
) -> None:  # fmt: skip
    """Closeness in the FAMD space fitted on the (sampled) original; the pairing's
    metrics only when no side was sampled (a sample breaks the row positions)."""
    sides = [o, a] + ([h] if h is not None else [])
    rows, seed = params.distance_rows, params.seed
    sampled = any(t.height > rows for t in sides)
    d = distance_metrics(
        _sample(o, rows, seed), _sample(a, rows, seed),
        None if h is None else _sample(h, rows, seed), pairing=None if sampled else p,
    ).to_dict()  # fmt: skip
    figures["distance.sample_rows_per_side"] = rows if sampled else None
    for side in ("synthetic", "holdout"):
        if d[side] is not None:
            for k in ("exact_copies", "exact_copy_percent", "median_dcr", "median_nndr"):
                figures[f"distance.{side}.{k}"] = d[side][k]
    figures["distance.dcr_ratio"] = d["dcr_ratio"]
    if d["pairing"] is not None:
        figures["distance.hidden_rate"] = d["pairing"]["hidden_rate"]
        figures["distance.median_local_cloaking"] = d["pairing"]["median_local_cloaking"]


def assess(
    original: str | Path,
    synthetic: str | Path,
    *,
    candidates: str | Iterable[str],
    max_known: int | None = None,
    secret: str | Iterable[str] = (),
    holdout: str | Path | None = None,
    pairing: str | Path | None = None,
    protect_log: str | Path | None = None,
    policy: str | Path | None = None,
    seed: int = 0,
    distance_rows: int = DISTANCE_ROWS,
) -> AssessResult:
    """Assess ``synthetic`` against ``original`` on every criterion a data-protection
    officer files (singling out, links, inference, membership, utility, protect's
    changes), reading each file once; ``AssessResult.to_dict()`` is results.json.

    ``holdout`` (people not used to make the synthetic table) adds the control and the
    membership attack; ``pairing`` the correct links; ``protect_log`` what
    ``kpr protect --changes-out`` changed; ``policy`` the controller's thresholds
    (``kpr assess --init`` writes a template); ``max_known`` defaults to 3 (at most
    the number of candidates); distances are measured on a sample of ``distance_rows``
    rows per side drawn with ``seed`` when a side is larger."""
    if not candidates:
        raise InputError("assess needs --candidates: the variables an attacker might know")
    # names as every API takes them (a name holding a comma is one name); the command
    # line splits its comma-separated lists before (``split_names``)
    names = tuple(column_names(candidates, "candidates", "candidate variable", "age"))
    secrets = tuple(column_names(secret, "secret", "secret column", "income")) if secret else ()
    known = min(3, len(names)) if max_known is None else int(max_known)
    if isinstance(distance_rows, bool) or not isinstance(distance_rows, int) or distance_rows < 2:
        raise InputError("distance_rows must be a whole number of at least 2")
    params = Parameters(names, known, secrets, int(seed), distance_rows)
    files = {"original": original, "synthetic": synthetic, "holdout": holdout,
             "pairing": pairing, "protect_log": protect_log}  # fmt: skip
    read = {role: read_input(role, p) for role, p in files.items() if p is not None}
    o, a = read["original"].frame, read["synthetic"].frame
    assert o is not None and a is not None
    missing = [c for c in (*params.candidates, *params.secrets) if c not in o.columns]
    if missing:
        raise InputError(
            f"{', '.join(map(repr, missing))} not a column of the original: "
            "fix --candidates or --secret"
        )
    pol, text = (Policy(), None)
    if policy is not None:
        pol, text = read_policy(policy, o.columns)
        read["policy"] = read_input("policy", policy)
    h = read["holdout"].frame if "holdout" in read else None
    p = read["pairing"].frame if "pairing" in read else None
    figures: dict[str, Figure] = {}
    absent: dict[str, str] = {}
    an = analyze(o, a, candidates=params.candidates, max_known=params.max_known,
                 control=h, pairing=p, seed=params.seed)  # fmt: skip
    worst = _singling_out(an.to_dict(), figures)
    spots, hidden = hot_spots(evaluate(o, a, known=params.candidates), pol.min_count)
    figures["singling_out.hot_spots_hidden"] = hidden
    if p is None:
        absent["linkability"] = "no pairing given (--pairing): correct links need it"
    if params.secrets:
        inf = inference(o, a, known=params.candidates, secret=params.secrets, control=h,
                        seed=params.seed)  # fmt: skip
        _inference(inf.to_dict(), figures)
    else:
        absent["inference"] = "no sensitive variable given (--secret)"
    if h is not None:
        m = membership(o, a, holdout=h, known=params.candidates, seed=params.seed)
        _membership(m.to_dict(), figures)
    else:
        absent["membership"] = "no holdout given (--holdout): the attack needs non-members"
        absent["control"] = "no holdout given (--holdout): the control is the holdout"
    _distances(o, a, h, p, params, figures)
    u = utility(o, a).to_dict()
    figures |= {f"utility.{k}": u[k] for k in UTILITY}
    if "protect_log" in read:
        log = read["protect_log"].frame
        assert log is not None
        _protect_log(log, figures)
    else:
        absent["protect"] = "no change log of kpr protect given (--protect-log)"
    ordered = tuple(read[r] for r in ("original", "synthetic", "holdout", "pairing",
                                      "protect_log", "policy") if r in read)  # fmt: skip
    return AssessResult(params, ordered, figures, tuple(worst), pol, text, absent, tuple(spots))
