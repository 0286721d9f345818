"""Engines: translations of the metric plan into dataframe queries (the picture:
docs/architecture.md, "The engine"). ``queries.run`` asks one counting path
(``queries.Counting``, chosen by ``backends.counting_for``); input parsing is apart
(``parsing.parsing_for``).

Which steps overlap. The lazy queries run one after the other; a backend may run
each on many cores, kpr adds no thread of its own. The in-memory path
(``polars.MemoryCounting`` on ``inmemory.MemoryTables``) runs one evaluation on a
small thread pool (``Tuning.workers``), all work handed to it as ``jobs.Job``
(a job the calling thread needs before a pool thread started it is made by the
calling thread) or as blocks of rows (``jobs.shared_blocks``, whose written,
locked contract hands each block to exactly one thread): while the calling
thread sorts the original's number columns and finds G's sizes, the pool reads
the avatars and numbers the original's text columns, then reads the avatars'
texts; during the scan the pool takes blocks of the exact sums
(``inmemory.sums``) while the calling thread scans the next column; for the
link the columns' digits are made side by side, the pool makes the bitmap's
memory, then both threads pack blocks of the avatars' and U's keys, and the pool
sorts U's keys or looks up half of them while the calling thread counts the
avatars'. Every overlapped step computes integers whose sum or placement does not
depend on which thread made them: the counts are the same in any order. The sweep
over known variables (``inmemory.EncodedTables``) runs independent subsets on its
own pool the same way.
"""
