"""How a long computation tells its caller where it is (the command line draws it):
one type for counted steps, one for named steps."""

from __future__ import annotations

from collections.abc import Callable

#: ``progress(done, total, label)``: ``done`` of ``total`` steps finished, ``label``
#: naming the one under way (a sweep's attacks, a k-sweep's tables, utility's columns).
Progress = Callable[[int, int, str], None]

#: ``step(label)``: the step under way, when there is no count (an evaluation's phases).
Step = Callable[[str], None]

#: The step an evaluation names once its inputs are read and checked (the tables, their
#: rows, the pairing): a log of the steps holds its lines until then, so that a bad
#: input gets its one error line alone.
INPUTS_CHECKED = "the inputs are read and checked"
