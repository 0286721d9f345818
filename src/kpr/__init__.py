"""kpr: the Knowledge Protection Rate of a synthetic (avatar) table.

>>> import kpr
>>> result = kpr.evaluate("original.csv", "avatars.csv", known=["age", "sex"])  # doctest: +SKIP
"""

from kpr.api import evaluate
from kpr.errors import InputError, KprError, MissingDependencyError
from kpr.metric.plan import DEFAULT_TOLERANCE, Kind
from kpr.result import KprResult, VariableInfo

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_TOLERANCE",
    "InputError",
    "Kind",
    "KprError",
    "KprResult",
    "MissingDependencyError",
    "VariableInfo",
    "__version__",
    "evaluate",
]
