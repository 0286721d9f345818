"""What an attacker infers about a secret column, from two count tables.

Every measure of the spec's section "Inference" is a function of the cells (profile
on the known variables, class of the secret ``t``) and three counts per cell: the
originals (``people``), those of them in U (``unique``) and the avatars (``avatars``).
The engines count them (``kpr.engine.profiles``); this module only adds them up, with
numpy, so it never sees a row and runs the same whatever engine counted.

Notation (the spec's): ``c_p`` the avatars of profile ``p``; S the members of U whose
profile holds exactly one avatar; a person's avatar is *right* when its class of ``t``
equals the person's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IntArray = np.ndarray


@dataclass(frozen=True)
class Cells:
    """The count tables as arrays, one entry per cell: ``profile`` and ``secret`` ids
    (0-based, dense), and the three counts. A (profile, secret) pair occurs once."""

    profile: IntArray
    secret: IntArray
    people: IntArray
    unique: IntArray
    avatars: IntArray

    @property
    def profiles(self) -> int:
        return int(self.profile.max()) + 1 if self.profile.size else 0

    @property
    def classes(self) -> int:
        return int(self.secret.max()) + 1 if self.secret.size else 0

    def per_profile(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per cell) over each profile."""
        return np.bincount(self.profile, weights=values, minlength=self.profiles)

    def per_class(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per cell) over each class of the secret."""
        return np.bincount(self.secret, weights=values, minlength=self.classes)


@dataclass(frozen=True)
class CellScores:
    """Per cell, what each person of the cell scores on every measure (0/1 flags, or
    the expected share for the guess and the CAP); the totals are their sums weighted by
    ``people`` (or by ``unique`` for the linked)."""

    linked: np.ndarray  # a member of U in this cell is linked (in S)
    right: np.ndarray  # ... and the one avatar of its profile is right
    guess: np.ndarray  # the population guess's expected score (ties 1/#tied)
    dis: np.ndarray  # the avatars of the profile agree on one class (within the limit)
    disco: np.ndarray  # ... and that class is the person's
    dorig: np.ndarray  # the originals of the profile agree on one class
    cap: np.ndarray  # the share of the profile's avatars that are right (0 without any)


def _loo_score(
    count: np.ndarray, top: np.ndarray, tied: np.ndarray, second: np.ndarray, tied2: np.ndarray
) -> np.ndarray:
    """The leave-one-out guess's score for a person of a class held by ``count`` people
    of their group (``count >= 1``), the group's counts having their largest value
    ``top`` in ``tied`` classes and their next ``second`` in ``tied2`` classes: the most
    common class among the *others* is guessed, ties scored 1/(number tied).

    Removing the person lowers their class by one: it stays the guess only if it held
    ``top`` alone; then it ties with the classes at ``second`` when ``top - 1 == second``.
    """
    alone = (count == top) & (tied == 1)
    above = alone & (top - 1 > second)
    level = alone & (top - 1 == second) & (second > 0)
    out = np.zeros(count.shape, dtype=float)
    out[above] = 1.0
    out[level] = 1.0 / (1.0 + tied2[level])
    return out


def _top_two(
    group: np.ndarray, counts: np.ndarray, groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: the largest count, how many classes hold it, the next largest count
    (0 if none) and how many classes hold that."""
    top = np.zeros(groups, dtype=np.int64)
    np.maximum.at(top, group, counts)
    at_top = counts == top[group]
    tied = np.bincount(group, weights=at_top, minlength=groups)
    second = np.zeros(groups, dtype=np.int64)
    np.maximum.at(second, group, np.where(at_top, 0, counts))
    at_second = (counts == second[group]) & (second[group] > 0)
    tied2 = np.bincount(group, weights=at_second, minlength=groups)
    return top, tied, second, tied2


def population_guess(cells: Cells) -> np.ndarray:
    """Per cell, the expected score of the population guess for each of its people: the
    most common class of ``t`` among the other people of their profile, else (alone in
    their profile) among the other people of the table; ties 1/(number tied)."""
    people = cells.people
    top, tied, second, tied2 = _top_two(cells.profile, people, cells.profiles)
    p = cells.profile
    score = _loo_score(people, top[p], tied[p], second[p], tied2[p])
    alone = cells.per_profile(people)[p] == 1
    if alone.any():
        column = cells.per_class(people).astype(np.int64)
        c_top, c_tied, c_second, c_tied2 = _top_two(
            np.zeros(column.size, dtype=np.int64), column, 1
        )
        size = cells.secret.shape
        whole = _loo_score(
            column[cells.secret], *(np.full(size, x[0]) for x in (c_top, c_tied, c_second, c_tied2))
        )
        score = np.where(alone, whole, score)
    return np.where(people > 0, score, 0.0)


def cell_scores(cells: Cells, denom_lim: int | None = None) -> CellScores:
    """Every measure per cell (see :class:`CellScores`); ``denom_lim``: a profile with
    more avatars than this discloses nothing by DiS (synthpop's ``exclude_ov_denom_lim``)."""
    p = cells.profile
    c = cells.per_profile(cells.avatars)[p]
    linked = c == 1
    agree = cells.per_profile((cells.avatars > 0).astype(float))[p] == 1
    dis = (c >= 1) & agree
    if denom_lim is not None:
        dis &= c <= denom_lim
    disco = dis & (cells.avatars == c)
    dorig = cells.per_profile((cells.people > 0).astype(float))[p] == 1
    with np.errstate(divide="ignore", invalid="ignore"):
        cap = np.where(c > 0, cells.avatars / np.where(c > 0, c, 1), 0.0)
    return CellScores(
        linked=linked,
        right=linked & (cells.avatars == 1),
        guess=population_guess(cells),
        dis=dis,
        disco=disco,
        dorig=dorig,
        cap=cap,
    )


@dataclass(frozen=True)
class InferenceCounts:
    """The totals of one secret over one table, in people (the expected ones are
    real numbers): the spec's measures are these over ``n``."""

    n: int
    n_avatars: int
    unique: int
    linked: int  # |S|
    right: int  # IAL's people: linked, and the one avatar is right
    guess_linked: float  # the population guess's expected right among S
    guess_all: float  # ... among all n
    dis: int
    disco: int
    dorig: int
    disdio: int
    cap: float  # expected CAP's people: sum over people of the right share of A(i)

    def share(self, value: float) -> float:
        """``value`` people as a share of n (0 for an empty table)."""
        return value / self.n if self.n else 0.0

    def percent(self, value: float) -> float:
        """``value`` people as a percentage of n."""
        return 100.0 * self.share(value)


def totals(cells: Cells, scores: CellScores) -> InferenceCounts:
    """The measures' totals from the per-cell scores."""
    people, unique = cells.people, cells.unique

    def people_sum(flags: np.ndarray) -> float:
        return float(np.sum(people * flags))

    return InferenceCounts(
        n=int(people.sum()),
        n_avatars=int(cells.avatars.sum()),
        unique=int(unique.sum()),
        linked=int(np.sum(unique * scores.linked)),
        right=int(np.sum(unique * scores.right)),
        guess_linked=float(np.sum(unique * scores.linked * scores.guess)),
        guess_all=people_sum(scores.guess),
        dis=int(people_sum(scores.dis)),
        disco=int(people_sum(scores.disco)),
        dorig=int(people_sum(scores.dorig)),
        disdio=int(people_sum(scores.disco & scores.dorig)),
        cap=people_sum(scores.cap),
    )


def measure(cells: Cells, denom_lim: int | None = None) -> InferenceCounts:
    """Every measure of one secret on one table."""
    return totals(cells, cell_scores(cells, denom_lim))
