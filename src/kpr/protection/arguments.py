"""The arguments of ``kpr.protect``, checked before any work: each problem in one
line (``kpr.InputError``) that names the bad value, in the API's words (``known=``;
the command says them its own way, ``--known``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kpr.analysis.sweep import DEFAULT_MAX_ATTACKS, check_candidates, subsets
from kpr.checks import whole_number
from kpr.errors import InputError
from kpr.metric.attack import make_attack
from kpr.results.protect import MOVES

__all__ = ["DEFAULT_MAX_ATTACKS", "DEFAULT_REGENERATE_K", "Moves", "attacks", "check_moves"]

#: The regenerate move's k: twice the generator's usual 20.
DEFAULT_REGENERATE_K = 40


def _iterable(value: object, name: str) -> None:
    if not isinstance(value, str | Iterable):
        raise InputError(f"{name}= must be names (a text or a list of texts), got {value!r}")


def check_moves(moves: str | Iterable[str]) -> tuple[str, ...]:
    """The named moves, known and not repeated, in the order of :data:`MOVES`."""
    _iterable(moves, "moves")
    names = [m.strip() for m in moves.split(",")] if isinstance(moves, str) else list(moves)
    if not names:
        raise InputError(f"moves is empty: name at least one of {', '.join(MOVES)}")
    for name in names:
        if name not in MOVES:
            raise InputError(f"unknown move {name!r}: choose among {', '.join(MOVES)}")
    return tuple(m for m in MOVES if m in names)


def attacks(
    known: str | Iterable[str] | None,
    candidates: str | Iterable[str] | None,
    max_known: object,
    max_attacks: object = DEFAULT_MAX_ATTACKS,
) -> list[tuple[str, ...]]:
    """The attacks: ``known`` alone, or every subset of up to ``max_known`` of
    ``candidates`` (refused above ``max_attacks``, None: no cap, before any work)."""
    if (known is None) == (candidates is None):
        raise InputError(
            "give either known= (one attack) or candidates= with max_known= (every subset)"
        )
    if known is not None:
        if max_known is not None:
            raise InputError("max_known= goes with candidates=, not with known=")
        _iterable(known, "known")
        return [make_attack(known).known]
    assert candidates is not None
    _iterable(candidates, "candidates")
    if max_known is None:
        raise InputError("candidates= needs max_known=: the largest number of known variables")
    cap = None if max_attacks is None else whole_number(max_attacks, "max_attacks", 1)
    names, m = check_candidates(candidates, max_known, cap)
    return subsets(names, m)


@dataclass(frozen=True)
class Moves:
    """The moves allowed, the seed, and regenerate's k (with the pairing it needs)."""

    allowed: tuple[str, ...]
    seed: int
    regenerate_k: int

    @classmethod
    def of(cls, moves: object, seed: object, regenerate_k: object, pairing: object) -> Moves:
        allowed = check_moves(moves)  # type: ignore[arg-type]
        if "regenerate" not in allowed:
            if regenerate_k is not None:
                raise InputError(
                    f"regenerate_k= ({regenerate_k!r}) goes with the move 'regenerate'; "
                    "add it to moves= or leave regenerate_k= out"
                )
            return cls(allowed, whole_number(seed, "seed", 0), DEFAULT_REGENERATE_K)
        k = DEFAULT_REGENERATE_K if regenerate_k is None else regenerate_k
        k = whole_number(k, "regenerate_k", 1)
        if pairing is None:
            raise InputError(
                "the move 'regenerate' needs pairing= (which avatar row is each individual's "
                "own, as kpr avatarize writes it); give it or choose other moves"
            )
        return cls(allowed, whole_number(seed, "seed", 0), k)


def names(value: object, name: str) -> tuple[str, ...]:
    """Column names given as one comma-separated text or as an iterable of texts."""
    if isinstance(value, str):
        return tuple(n.strip() for n in value.split(",") if n.strip())
    if not isinstance(value, Iterable):
        raise InputError(f"{name}= must be column names, got {value!r}")
    given = list(value)
    bad = [n for n in given if not isinstance(n, str) or not n]
    if bad:
        raise InputError(f"{name}= must be column names, got {bad[0]!r}")
    return tuple(dict.fromkeys(given))


def flags(**given: object) -> None:
    """Each switch is True or False (``distances="no"`` would read as true)."""
    for name, value in given.items():
        if not isinstance(value, bool):
            raise InputError(f"{name}= must be True or False, got {value!r}")


def kinds(value: object) -> Mapping[str, str] | None:
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"kinds= must map column names to kinds, got {value!r}")
    return value


def output(value: object) -> None:
    if value is not None and not isinstance(value, str | os.PathLike):
        raise InputError(f"output= must be a .csv or .parquet path, got {value!r}")


def reading(read: Mapping[str, object]) -> None:
    """``delimiter=`` and ``encoding=`` are texts (or None), ``na_values=`` texts."""
    for name in ("delimiter", "encoding"):
        value = read.get(name)
        if value is not None and not isinstance(value, str):
            raise InputError(f"{name}= must be a text, got {value!r}")
    markers = read.get("na_values", ("",))
    if isinstance(markers, str) or not isinstance(markers, Iterable):
        raise InputError(f"na_values= must be a list of texts, got {markers!r}")
    bad = [m for m in markers if not isinstance(m, str)]
    if bad:
        raise InputError(f"na_values= must be texts, got {bad[0]!r}")


#: ``rule``: the class rule alone, or the window rule too.
RULES = ("class", "robust")


def rule(value: object) -> str:
    """``rule=`` (``--rule``): one of :data:`RULES`."""
    if value not in RULES:
        raise InputError(f"rule must be 'class' or 'robust', not {value!r} (--rule)")
    return str(value)
