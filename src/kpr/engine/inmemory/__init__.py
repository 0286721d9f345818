"""The in-memory engine: polars tables held in memory, counted with numpy (sorts,
``np.bincount`` and small tables), exact. One concept a module, lowest first:

- ``arrays``: a polars column as one numpy array, a chunk at a time (one copy);
- ``runs``: runs of equal values in sorted arrays (which values occur once);
- ``sums``: the exact sums over U of a numeric column, from its distinct values;
- ``texts``: dense ids of a text column's values;
- ``columns``: one column of the original read before U is known, and its scan;
- ``groups``: G's groups of more than one, from one hash of each row (U: the rest);
- ``digits``: each known variable's link digits, shared by both tables;
- ``keys``: profiles packed into one integer (mixed radix);
- ``link``: |S| from the packed keys;
- ``evaluate``: one evaluation (``MemoryTables``, behind ``polars.MemoryCounting``);
- ``encoding`` and ``sweep``: the known-variable sweep on columns encoded once
  (``EncodedTables``, also what ``kpr.protect`` counts on).
"""

from kpr.engine.inmemory.digits import value_classes
from kpr.engine.inmemory.evaluate import MemoryTables
from kpr.engine.inmemory.sweep import (
    AttackDigits,
    EncodedTables,
    KeyCache,
    SubsetCounts,
    sweep_counts,
)

__all__ = [
    "AttackDigits",
    "EncodedTables",
    "KeyCache",
    "MemoryTables",
    "SubsetCounts",
    "sweep_counts",
    "value_classes",
]
