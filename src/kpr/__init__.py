"""kpr: the Knowledge Protection Rate of a synthetic (avatar) table.

>>> import kpr
>>> result = kpr.evaluate("original.csv", "avatars.csv", known=["age", "sex"])  # doctest: +SKIP
"""

# kpr.render registers the results' HTML views (kpr.results.views): importing it here
# makes to_html/_repr_html_ work however a result is reached. It does not import
# matplotlib (that happens when a plot is drawn).
import kpr.render  # noqa: F401
from kpr.api import evaluate
from kpr.errors import InputError, KprError, MissingDependencyError
from kpr.metric.attack import DEFAULT_TOLERANCE, Kind
from kpr.protection import protect
from kpr.results.evaluation import KprResult, VariableInfo
from kpr.results.protect import ProtectResult
from kpr.results.utility import UtilityResult
from kpr.utility import utility
from kpr.version import __version__

__all__ = [
    "DEFAULT_TOLERANCE",
    "InputError",
    "Kind",
    "KprError",
    "KprResult",
    "MissingDependencyError",
    "ProtectResult",
    "UtilityResult",
    "VariableInfo",
    "__version__",
    "evaluate",
    "protect",
    "utility",
]
