"""kpr: the Knowledge Protection Rate of a synthetic (avatar) table.

>>> import kpr
>>> result = kpr.evaluate("original.csv", "avatars.csv", known=["age", "sex"])  # doctest: +SKIP

The names below are imported on first use (PEP 562), so ``import kpr`` and the
command line start fast; the HTML views of the results are registered when a
page is first asked for (``kpr.results.views``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kpr.version import __version__

if TYPE_CHECKING:
    from kpr.analysis.inference import inference
    from kpr.analysis.members import membership
    from kpr.api import evaluate
    from kpr.assessment import AssessResult, assess, verify
    from kpr.errors import InputError, KprError, MissingDependencyError
    from kpr.fidelity import utility
    from kpr.metric.attack import DEFAULT_TOLERANCE, Kind
    from kpr.protection import protect
    from kpr.results.evaluation import KprResult, VariableInfo
    from kpr.results.inference import InferenceResult
    from kpr.results.membership import MembershipResult
    from kpr.results.protect import ProtectResult
    from kpr.results.utility import UtilityResult

#: Each public name and the module it comes from.
_LAZY = {
    "assess": "kpr.assessment",
    "verify": "kpr.assessment",
    "AssessResult": "kpr.assessment",
    "evaluate": "kpr.api",
    "inference": "kpr.analysis.inference",
    "InferenceResult": "kpr.results.inference",
    "InputError": "kpr.errors",
    "KprError": "kpr.errors",
    "MissingDependencyError": "kpr.errors",
    "DEFAULT_TOLERANCE": "kpr.metric.attack",
    "Kind": "kpr.metric.attack",
    "KprResult": "kpr.results.evaluation",
    "VariableInfo": "kpr.results.evaluation",
    "membership": "kpr.analysis.members",
    "MembershipResult": "kpr.results.membership",
    "protect": "kpr.protection",
    "ProtectResult": "kpr.results.protect",
    "utility": "kpr.fidelity",
    "UtilityResult": "kpr.results.utility",
}

__all__ = [
    "DEFAULT_TOLERANCE",
    "AssessResult",
    "InferenceResult",
    "InputError",
    "Kind",
    "KprError",
    "KprResult",
    "MembershipResult",
    "MissingDependencyError",
    "ProtectResult",
    "UtilityResult",
    "VariableInfo",
    "__version__",
    "assess",
    "evaluate",
    "inference",
    "membership",
    "protect",
    "utility",
    "verify",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'kpr' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # found directly next time
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
