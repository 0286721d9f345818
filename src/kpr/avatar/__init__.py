"""The Avatar method: synthetic individuals drawn among each individual's neighbours
in a FAMD space (Guillaudeux et al., npj Digital Medicine 6:37, 2023), with the
column roles decided before generating (:mod:`kpr.avatar.roles`), the
pairing-based privacy metrics used to judge an avatar table (its utility is
measured by :mod:`kpr.utility`), distance metrics for any synthetic table
(:func:`distance_metrics`), and the choice of k (:func:`sweep`, :func:`tune`).
"""

from kpr.avatar.distance import distance_metrics, exact_copies
from kpr.avatar.generator import (
    Generation,
    avatarize,
    generate,
    generate_with,
    neighbours,
    weights,
)
from kpr.avatar.metrics import (
    Cloaking,
    cloaking,
    cloaking_of,
    correct_links,
    hidden_rate,
    local_cloaking,
    median_local_cloaking,
)
from kpr.avatar.projection import Projection
from kpr.avatar.roles import CATEGORICAL_MAX_DISTINCT, column_roles
from kpr.avatar.tuning import sweep, tune
from kpr.results.avatar_settings import GeneratorSettings
from kpr.results.distance import Closeness, DistanceMetrics, PairingMetrics
from kpr.results.ksweep import PAIRING_SPACE, KSweepResult
from kpr.results.ksweep_rows import SweepRow, SweepRun
from kpr.results.ksweep_tune import TuneCriteria, TuneResult

__all__ = [
    "CATEGORICAL_MAX_DISTINCT",
    "PAIRING_SPACE",
    "Cloaking",
    "Closeness",
    "DistanceMetrics",
    "Generation",
    "GeneratorSettings",
    "KSweepResult",
    "PairingMetrics",
    "Projection",
    "SweepRow",
    "SweepRun",
    "TuneCriteria",
    "TuneResult",
    "avatarize",
    "cloaking",
    "cloaking_of",
    "column_roles",
    "correct_links",
    "distance_metrics",
    "exact_copies",
    "generate",
    "generate_with",
    "hidden_rate",
    "local_cloaking",
    "median_local_cloaking",
    "neighbours",
    "sweep",
    "tune",
    "weights",
]
