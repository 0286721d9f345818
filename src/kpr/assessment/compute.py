"""``kpr.assess``: every criterion of the evidence pack, computed once on the inputs
read once (singling out and correct links by ``kpr.analysis.analyze``, inference,
membership, distances, utility, protect's changes), reduced to named figures that
``kpr verify`` re-checks.

Only headline counts and rates reach the figures: no per-value table, no row.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Unpack

import polars as pl

from kpr.analysis import analyze
from kpr.analysis.inference import inference
from kpr.analysis.members import membership
from kpr.api import evaluate
from kpr.avatar.distance import distance_metrics
from kpr.errors import InputError, shown
from kpr.fidelity import utility
from kpr.inputs.files import Loaded, check_columns
from kpr.inputs.names import suggest
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.metric.attack import column_names

from .figures import DISTANCE_ROWS, AssessResult, Figure, HotSpot, Parameters, WorstSubset
from .hotspots import hot_spots
from .inputs import ROLES, InputFile, read_input, read_policy_file
from .policy import Policy, policy_of

Path = str | os.PathLike[str]

#: The utility scores filed (SDMetrics' Quality Report and Octopize's measures).
UTILITY = ("overall", "column_shapes", "column_pair_trends", "mean_hellinger",
           "correlation_difference")  # fmt: skip


@dataclass
class _Work:
    """The inputs read once, and what the criteria add as they are computed."""

    files: dict[str, InputFile]
    params: Parameters
    policy: Policy
    figures: dict[str, Figure] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)

    def loaded(self, role: str) -> Loaded | None:
        f = self.files.get(role)
        return None if f is None else f.loaded

    def typed(self, role: str) -> pl.DataFrame | None:
        f = self.files.get(role)
        return None if f is None else f.typed()


def _bounds(name: str, interval: Mapping[str, Any]) -> dict[str, Figure]:
    """An interval of the results' JSON as two figures, ``<name>_low`` and ``<name>_high``."""
    return {f"{name}_low": interval["low"], f"{name}_high": interval["high"]}


def _singling_out(d: Mapping[str, Any], figures: dict[str, Figure]) -> list[WorstSubset]:
    a = d["attack"]
    figures |= {
        "singling_out.rate": a["kpr"],
        **_bounds("singling_out.interval", a["interval"]),
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
            **_bounds("singling_out.control.difference", c["difference_interval"]),
        }
    entries = d["sweep"]["entries"] if d.get("sweep") else []
    return [
        WorstSubset(tuple(e["known"]), e["kpr"], e["unique_originals"], e["linked"])
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
                **_bounds(f"{m}.difference", c["difference_interval"]),
            }
    figures["inference.max_link_adds"] = max(gains) if gains else None


def _membership(d: Mapping[str, Any], figures: dict[str, Figure]) -> None:
    figures |= {
        "membership.auc": d["auc"]["value"],
        **_bounds("membership.auc", d["auc"]["interval"]),
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


def _like(original: pl.DataFrame, other: pl.DataFrame, role: str) -> pl.DataFrame:
    """Another table of the same individuals, with the original's columns (as
    ``kpr distance`` reads it)."""
    check_columns(other.columns, original.columns, role)
    return other.select(original.columns)


def _distances(w: _Work) -> None:
    """Closeness in the FAMD space fitted on the (sampled) original; the pairing's
    metrics only when no side was sampled (a sample breaks the row positions)."""
    o = w.typed("original")
    assert o is not None
    a = _like(o, w.files["synthetic"].typed(), "synthetic")
    h = None if "holdout" not in w.files else _like(o, w.files["holdout"].typed(), "holdout")
    rows, seed = w.params.distance_rows, w.params.seed
    sampled = any(t.height > rows for t in (o, a, *([h] if h is not None else [])))
    d = distance_metrics(
        _sample(o, rows, seed), _sample(a, rows, seed),
        None if h is None else _sample(h, rows, seed),
        pairing=None if sampled else w.typed("pairing"),
    ).to_dict()  # fmt: skip
    figures = w.figures
    figures["distance.sample_rows_per_side"] = rows if sampled else None
    for side in ("synthetic", "holdout"):
        if d[side] is not None:
            for k in ("exact_copies", "exact_copy_percent", "median_dcr", "median_nndr"):
                figures[f"distance.{side}.{k}"] = d[side][k]
    figures["distance.dcr_ratio"] = d["dcr_ratio"]
    if d["pairing"] is not None:
        figures["distance.hidden_rate"] = d["pairing"]["hidden_rate"]
        figures["distance.median_local_cloaking"] = d["pairing"]["median_local_cloaking"]


def _attacks(w: _Work) -> tuple[list[WorstSubset], list[HotSpot]]:
    """Singling out, correct links, hot spots, inference and membership, each on the
    tables read once (``Loaded``: the APIs read them as they read the files)."""
    o, a, h = w.loaded("original"), w.loaded("synthetic"), w.loaded("holdout")
    p, params, read = w.typed("pairing"), w.params, w.params.read.keywords()
    an = analyze(o, a, candidates=params.candidates, max_known=params.max_known,
                 control=h, pairing=p, seed=params.seed, **read)  # fmt: skip
    worst = _singling_out(an.to_dict(), w.figures)
    spots, hidden = hot_spots(evaluate(o, a, known=params.candidates, **read), w.policy.min_count)
    w.figures["singling_out.hot_spots_hidden"] = hidden
    if p is None:
        w.absent["linkability"] = "no pairing given (--pairing): correct links need it"
    if params.secrets:
        inf = inference(o, a, known=params.candidates, secret=params.secrets, control=h,
                        seed=params.seed, **read)  # fmt: skip
        _inference(inf.to_dict(), w.figures)
    else:
        w.absent["inference"] = "no sensitive variable given (--secret)"
    if h is not None:
        m = membership(o, a, holdout=h, known=params.candidates, seed=params.seed, **read)
        _membership(m.to_dict(), w.figures)
    else:
        w.absent["membership"] = "no holdout given (--holdout): the attack needs non-members"
        w.absent["control"] = "no holdout given (--holdout): the control is the holdout"
    return worst, spots


def _utility_and_changes(w: _Work) -> None:
    u = utility(w.loaded("original"), w.loaded("synthetic"), **w.params.read.keywords()).to_dict()
    w.figures |= {f"utility.{k}": u[k] for k in UTILITY}
    log = w.typed("protect_log")
    if log is not None:
        _protect_log(log, w.figures)
    else:
        w.absent["protect"] = "no change log of kpr protect given (--protect-log)"


def parameters(
    candidates: str | Iterable[str], max_known: int | None, secret: str | Iterable[str],
    seed: int, distance_rows: int, read: ReadSettings,
) -> Parameters:  # fmt: skip
    """The assessment's parameters, checked (one line for what is wrong)."""
    if not candidates:
        raise InputError("assess needs --candidates: the variables an attacker might know")
    # names as every API takes them (a name holding a comma is one name); the command
    # line splits its comma-separated lists before (``split_names``)
    names = tuple(column_names(candidates, "candidates", "candidate variable", "age"))
    secrets = tuple(column_names(secret, "secret", "secret column", "income")) if secret else ()
    known = min(3, len(names)) if max_known is None else int(max_known)
    if isinstance(distance_rows, bool) or not isinstance(distance_rows, int) or distance_rows < 2:
        raise InputError("distance_rows must be a whole number of at least 2")
    return Parameters(names, known, secrets, int(seed), distance_rows, read)


def _read_tables(params: Parameters, paths: Mapping[str, Path | None]) -> dict[str, InputFile]:
    """Every table given, read once with the same settings; the names checked."""
    files = {role: read_input(role, p, params.read) for role, p in paths.items() if p is not None}
    columns = files["original"].columns_named
    missing = [c for c in (*params.candidates, *params.secrets) if c not in columns]
    if missing:
        raise InputError(
            f"{', '.join(map(shown, missing))} not a column of the original "
            f"{files['original'].path} (fix --candidates or --secret){suggest(missing[0], columns)}"
        )
    empty = [s for s in params.secrets if files["original"].all_missing(s)]
    if empty:
        raise InputError(
            f"the secret {empty[0]!r} is missing in every row of the original: there is "
            "nothing to infer; choose another --secret"
        )
    return files


def assess(
    original: Path,
    synthetic: Path,
    *,
    candidates: str | Iterable[str],
    max_known: int | None = None,
    secret: str | Iterable[str] = (),
    holdout: Path | None = None,
    pairing: Path | None = None,
    protect_log: Path | None = None,
    policy: Path | None = None,
    seed: int = 0,
    distance_rows: int = DISTANCE_ROWS,
    **read: Unpack[ReadKeywords],
) -> AssessResult:
    """Assess ``synthetic`` against ``original`` on every criterion a data-protection
    officer files (singling out, links, inference, membership, utility, protect's
    changes), reading each file once; ``AssessResult.to_dict()`` is results.json.

    ``holdout`` (people not used to make the synthetic table) adds the control and the
    membership attack; ``pairing`` the correct links; ``protect_log`` what
    ``kpr protect --changes-out`` changed; ``policy`` the controller's thresholds
    (``kpr assess --init`` writes a template); ``max_known`` defaults to 3 (at most
    the number of candidates); distances are measured on a sample of ``distance_rows``
    rows per side drawn with ``seed`` when a side is larger; ``delimiter``,
    ``encoding``, ``na_values``: how every CSV is read, as in ``kpr.evaluate``."""
    params = parameters(candidates, max_known, secret, seed, distance_rows,
                        ReadSettings.of(read))  # fmt: skip
    files = _read_tables(params, {"original": original, "synthetic": synthetic,
                                  "holdout": holdout, "pairing": pairing,
                                  "protect_log": protect_log})  # fmt: skip
    pol, data = Policy(), None
    if policy is not None:
        files["policy"], data = read_policy_file(policy)
        pol = policy_of(data, files["original"].columns_named, f"policy {policy}")
    w = _Work(files, params, pol)
    worst, spots = _attacks(w)
    _utility_and_changes(w)
    _distances(w)
    ordered = tuple(files[r] for r in ROLES if r in files)
    return AssessResult(params, ordered, w.figures, tuple(worst), pol, data, w.absent,
                        tuple(spots))  # fmt: skip
