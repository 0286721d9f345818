"""``kpr.assess``: one evidence pack per assessment (every criterion, computed once
on inputs read once), and ``kpr.verify`` that re-checks it."""

from __future__ import annotations

from .compute import AssessResult, Parameters, assess
from .pack import write_pack
from .policy import TEMPLATE, Policy, parse_policy
from .verify import verify

__all__ = ["TEMPLATE", "AssessResult", "Parameters", "Policy", "assess", "parse_policy",
           "verify", "write_pack"]  # fmt: skip
