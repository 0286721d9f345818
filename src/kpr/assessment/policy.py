"""The controller's policy (``policy.toml``): thresholds with their units, the
attacker model, the recipients, the reviewer and the review date.

The policy is the controller's, never kpr's: without one the pack says "no threshold
stated" and gives no verdict. A policy that names an unknown criterion or column, or a
threshold without its unit, is refused in one line.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kpr.errors import InputError


@dataclass(frozen=True)
class Criterion:
    """One criterion a threshold can be set on: the figure it reads, its unit, and
    whether the release passes at or above (``higher``) or at or below it."""

    name: str
    figure: str
    unit: str
    higher: bool
    meaning: str


#: The criteria, by the name a policy uses; each reads one figure of the pack.
CRITERIA = {
    c.name: c
    for c in (
        Criterion("singling_out", "singling_out.rate", "percent of people", True,
                  "KPR of the attack with every candidate known (higher protects more)"),
        Criterion("linkability", "linkability.correct_link_share", "percent of people", False,
                  "original individuals linked to their own avatar"),
        Criterion("inference", "inference.max_link_adds", "points", False,
                  "largest gain of the link over the population guess, over the secrets"),
        Criterion("membership", "membership.auc", "AUC", False,
                  "area under the ROC curve of the membership attack (0.5: chance)"),
        Criterion("utility", "utility.overall", "score", True,
                  "SDMetrics Quality Report overall score (0 to 1)"),
    )
}  # fmt: skip

#: The smallest group shown by its values when the policy does not say.
DEFAULT_MIN_COUNT = 10

TEMPLATE = """\
# kpr assess policy: the controller's own thresholds (kpr states none).
# Every threshold needs its unit, exactly as written below; delete a criterion
# to leave it without a verdict.

# Groups of fewer people than this are never shown by their values in the pack.
min_count = 10

# Who receives the synthetic table and how (the release model).
recipients = "Research partners under a data-sharing agreement"
release_model = "Controlled release, no onward publication"
# Where the pairing file (original row -> avatar row) is kept and when it is deleted:
# while it exists, the avatars are pseudonymised data, not anonymous.
pairing_storage = "Encrypted store of the data owner, deleted on 2027-01-31"
reviewer = "Data-protection officer"
review_date = 2027-06-30

[attacker]
# The variables an attacker is assumed to know, and where they would come from.
candidates = ["age", "sex", "race", "marital_status", "education", "native_country"]
why = "Public registers and social media give age, sex and family situation"

[criteria.singling_out]
threshold = 99.0
unit = "percent of people"       # KPR at or above the threshold passes
rationale = "At most 1 person in 100 singled out"

[criteria.linkability]
threshold = 0.1
unit = "percent of people"       # correct links at or below passes

[criteria.inference]
threshold = 5.0
unit = "points"                  # gain over the population guess at or below passes

[criteria.membership]
threshold = 0.55
unit = "AUC"                     # at or below passes

[criteria.utility]
threshold = 0.8
unit = "score"                   # at or above passes
"""


@dataclass(frozen=True)
class Threshold:
    """A criterion's threshold as the controller stated it."""

    criterion: str
    value: float
    unit: str
    rationale: str = ""

    def passes(self, figure: float) -> bool:
        higher = CRITERIA[self.criterion].higher
        return figure >= self.value if higher else figure <= self.value

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.value, "unit": self.unit, "rationale": self.rationale}


@dataclass(frozen=True)
class Policy:
    """The parsed policy; ``Policy()`` is "no policy" (no threshold, no verdict)."""

    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    min_count: int = DEFAULT_MIN_COUNT
    candidates: tuple[str, ...] = ()
    why: str = ""
    recipients: str = ""
    release_model: str = ""
    pairing_storage: str = ""
    reviewer: str = ""
    review_date: str = ""
    stated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "stated": self.stated,
            "min_count": self.min_count,
            "attacker": {"candidates": list(self.candidates), "why": self.why},
            "recipients": self.recipients,
            "release_model": self.release_model,
            "pairing_storage": self.pairing_storage,
            "reviewer": self.reviewer,
            "review_date": self.review_date,
            "criteria": {k: t.to_dict() for k, t in self.thresholds.items()},
        }


def _text(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key, "")
    if isinstance(value, dt.date):
        return value.isoformat()
    if not isinstance(value, str):
        raise InputError(f"policy {where}{key} must be a text, not {value!r}")
    return value


def _threshold(name: str, body: object) -> Threshold:
    if name not in CRITERIA:
        raise InputError(
            f"policy names an unknown criterion {name!r}: use one of {', '.join(CRITERIA)}"
        )
    unit = CRITERIA[name].unit
    if not isinstance(body, Mapping) or "threshold" not in body:
        raise InputError(f"policy criterion {name!r} has no threshold: add threshold = ...")
    value = body["threshold"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"policy criterion {name!r}: threshold must be a number, not {value!r}")
    if "unit" not in body:
        raise InputError(
            f'policy criterion {name!r}: the threshold has no unit: add unit = "{unit}"'
        )
    if body["unit"] != unit:
        raise InputError(
            f"policy criterion {name!r}: unit {body['unit']!r} is not this criterion's: "
            f'use "{unit}"'
        )
    return Threshold(name, float(value), unit, _text(body, "rationale", f"criteria.{name}."))


def parse_policy(text: str, columns: Sequence[str], label: str = "policy") -> Policy:
    """The policy of ``text`` (TOML), its attacker's columns checked against ``columns``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{label} is not valid TOML: {e}") from None
    criteria = data.get("criteria", {})
    if not isinstance(criteria, Mapping):
        raise InputError(f"{label}: [criteria] must be a table of criteria")
    thresholds = {name: _threshold(name, body) for name, body in criteria.items()}
    attacker = data.get("attacker", {})
    candidates = tuple(attacker.get("candidates", ()))
    unknown = [c for c in candidates if c not in columns]
    if unknown:
        raise InputError(
            f"{label}: attacker.candidates names {', '.join(map(repr, unknown))}, not a column "
            "of the original: fix the name"
        )
    min_count = data.get("min_count", DEFAULT_MIN_COUNT)
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise InputError(f"{label}: min_count must be a whole number of at least 1")
    return Policy(
        thresholds=thresholds,
        min_count=min_count,
        candidates=candidates,
        why=_text(attacker, "why", "attacker."),
        recipients=_text(data, "recipients", ""),
        release_model=_text(data, "release_model", ""),
        pairing_storage=_text(data, "pairing_storage", ""),
        reviewer=_text(data, "reviewer", ""),
        review_date=_text(data, "review_date", ""),
        stated=True,
    )


def policy_of(data: bytes, columns: Sequence[str], label: str = "policy") -> Policy:
    """The policy of a file's bytes (UTF-8 TOML), its columns checked against ``columns``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{label} is not UTF-8 text ({e.reason}): save it as UTF-8") from None
    return parse_policy(text, columns, label)
