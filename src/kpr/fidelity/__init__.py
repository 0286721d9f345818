"""Utility (fidelity) of a synthetic table, measured as the ecosystem measures it:
SDMetrics' Quality Report (Column Shapes, Column Pair Trends) reproduced exactly,
Octopize's summary figures, and the raw associations on both sides.

Pure metric code, independent of the rate's engines: both tables are read by
kpr's readers (``load``), each column is reduced once (``columns``), pairs come
from those codes and values (``pairs``), ``compute`` assembles the result.
"""

from kpr.fidelity.compute import utility

__all__ = ["utility"]
