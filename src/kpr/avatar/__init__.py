"""The Avatar method: synthetic individuals drawn among each individual's neighbours
in a FAMD space (Guillaudeux et al., npj Digital Medicine 6:37, 2023), with the
column roles decided before generating (:mod:`kpr.avatar.roles`), the
pairing-based privacy metrics used to judge an avatar table (its utility is
measured by :mod:`kpr.utility`), distance metrics for any synthetic table
(:func:`distance_metrics`), and the choice of k (:func:`sweep`, :func:`tune`).
"""

from kpr.avatar.distance import distance_metrics, exact_copies
from kpr.avatar.generator import Generation, avatarize, generate, neighbours, weights
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
from kpr.results.distance import Closeness, DistanceMetrics, PairingMetrics
from kpr.results.ksweep import PAIRING_SPACE, KSweepResult, TuneResult
from kpr.results.ksweep_rows import SweepRow, SweepRun

__all__ = [
    "CATEGORICAL_MAX_DISTINCT",
    "PAIRING_SPACE",
    "Cloaking",
    "Closeness",
    "DistanceMetrics",
    "Generation",
    "KSweepResult",
    "PairingMetrics",
    "Projection",
    "SweepRow",
    "SweepRun",
    "TuneResult",
    "avatarize",
    "cloaking",
    "cloaking_of",
    "column_roles",
    "correct_links",
    "distance_metrics",
    "exact_copies",
    "generate",
    "hidden_rate",
    "local_cloaking",
    "median_local_cloaking",
    "neighbours",
    "sweep",
    "tune",
    "weights",
]
