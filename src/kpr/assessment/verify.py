"""``kpr verify``: recompute an evidence pack's hashes and figures from the same files.

Differences are listed in order: a different kpr or dependency version first, then
each file by role, then each figure by name. Integers must be equal, floats agree to
1e-12 relative. Inputs that cannot be compared (another schema, a missing role) raise
``InputError``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kpr.errors import InputError, first_line

from .compute import assess
from .figures import AssessResult, Parameters
from .pack import versions

#: Relative tolerance of floats.
RTOL = 1e-12


def _read_json(path: Path, schema: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path} is missing: give a folder kpr assess wrote") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory: give a folder kpr assess wrote") from None
    except OSError as e:
        raise InputError(f"cannot read {path} ({e.strerror or first_line(e)})") from None
    except ValueError as e:
        raise InputError(
            f"{path} is not valid JSON ({first_line(e)}): give a folder kpr assess wrote"
        ) from None
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise InputError(f"{path} is not a kpr assess pack of schema {schema}")
    return data


def same(a: object, b: object) -> bool:
    """Equal figures: None with None, integers exactly, floats to ``RTOL`` relative."""
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0) or a == b
    return a == b


def compare_figures(expected: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(expected) | set(found)):
        if name not in found:
            out.append(f"figure {name}: in the pack, not recomputed")
        elif name not in expected:
            out.append(f"figure {name}: recomputed, not in the pack")
        elif not same(expected[name], found[name]):
            out.append(f"figure {name}: pack {expected[name]!r}, recomputed {found[name]!r}")
    return out


def _roles(man: Mapping[str, Any], given: Mapping[str, object]) -> None:
    """Refuse to compare when a role the manifest lists is missing or one is extra."""
    listed = [role for role in man["inputs"] if role != "policy"]
    missing = [r for r in listed if r not in given]
    extra = [r for r in given if r not in listed]
    if missing or extra:
        what = "; ".join(
            [f"--{r.replace('_', '-')} is missing" for r in missing]
            + [f"--{r.replace('_', '-')} is not a role of this pack" for r in extra]
        )
        raise InputError(f"cannot compare: {what} (the pack lists {', '.join(listed)})")


def _files(man: Mapping[str, Any], again: AssessResult) -> list[str]:
    """The files whose bytes, as read again, hash otherwise than the pack says."""
    return [
        f"file {f.role} ({f.path}): SHA-256 differs from the pack's"
        for f in again.inputs
        if f.sha256 != man["inputs"][f.role]["sha256"]
    ]


def _hot_spots(expected: list[Mapping[str, Any]], again: AssessResult) -> list[str]:
    spots = [g.to_dict() for g in again.hot_spots]
    if len(spots) != len(expected) or not all(
        a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        for a, b in zip(expected, spots, strict=False)
    ):
        return ["hot spots differ from the pack's"]
    return []


def verify(pack: str | Path, **files: str | Path | None) -> list[str]:
    """The differences between ``pack`` and the files given by role (``original``,
    ``synthetic``, ``holdout``, ``pairing``, ``protect_log``); empty when all match.
    The files are read with the settings the manifest states."""
    folder = Path(pack)
    if not folder.is_dir():
        raise InputError(f"{pack} is not a folder: give the folder kpr assess wrote")
    man = _read_json(folder / "manifest.json", "kpr-assess-manifest/1")
    results = _read_json(folder / "results.json", "kpr-assess/1")
    given = {role: Path(p) for role, p in files.items() if p is not None}
    _roles(man, given)
    out = [
        f"version of {name}: pack {man['versions'].get(name)}, here {now}"
        for name, now in versions().items()
        if man["versions"].get(name) != now
    ]
    policy = folder / "policy.toml" if "policy" in man["inputs"] else None
    params = Parameters.from_dict(man["parameters"])
    again = assess(
        given["original"], given["synthetic"], candidates=params.candidates,
        max_known=params.max_known, secret=params.secrets, holdout=given.get("holdout"),
        pairing=given.get("pairing"), protect_log=given.get("protect_log"), policy=policy,
        seed=params.seed, distance_rows=params.distance_rows, **params.read.keywords(),
    )  # fmt: skip
    out += _files(man, again)
    out += compare_figures(results["figures"], again.figures)
    out += _hot_spots(results["hot_spots"], again)
    if results["verdicts"] != again.to_dict()["verdicts"] and not out:
        out.append("verdicts differ from the pack's")
    return out
