"""``kpr.assess``: one evidence pack per assessment (every criterion, computed once
on inputs read once), and ``kpr.verify`` that re-checks it."""

from __future__ import annotations

from .compute import assess
from .figures import AssessResult, HotSpot, Parameters, Verdict, WorstSubset
from .pack import write_pack
from .policy import TEMPLATE, Policy, parse_policy
from .verify import verify

__all__ = ["TEMPLATE", "AssessResult", "HotSpot", "Parameters", "Policy", "Verdict",
           "WorstSubset", "assess", "parse_policy", "verify", "write_pack"]  # fmt: skip
