"""The Avatar generator's settings as one frozen object (``kpr.avatar.GeneratorSettings``):
what ``kpr avatarize``, ``kpr sweep`` and ``kpr tune`` build (one click decorator,
``kpr.cli.avatar.generator_options``) and the sweep passes around instead of the same
keywords, and what writes itself back as command-line arguments, so the command that
rebuilds a measured table is derived, not hand-written. It lives below ``avatar``
because a sweep's result records it; the generator checks the values.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

#: How the avatars are mixed and their categorical values decoded (``kpr.avatar.generate``).
Synthesis = Literal["full", "reduced"]
Decoding = Literal["draw", "mode"]


def _names(values: str | Iterable[Any] | None) -> tuple[Any, ...]:
    """Column names as a tuple (one name given as a string is one name)."""
    if values is None:
        return ()
    if isinstance(values, str):
        return (values,)
    return tuple(values)


def name_arg(name: str) -> str:
    """One column name as the CLI's comma-separated lists read it back (quoted when
    it holds a comma or a quote: ``"income, net"``)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([name])
    return out.getvalue()


#: The settings whose API keyword differs from the field's name.
_API_NAMES = {"decoding": "categorical_decoding"}


def _json_value(value: Any) -> Any:
    """A setting as JSON: a tuple of column names as a list of text."""
    return [str(c) for c in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class GeneratorSettings:
    """How one avatar table is made (:func:`kpr.avatar.generate`'s options).

    ``k`` neighbours, searched on ``ncp`` FAMD axes; ``seed`` (None: a fresh draw);
    ``synthesis`` and ``decoding`` as in :func:`kpr.avatar.generate`; the column roles
    the user declares: ``categorical``, ``numeric``, ``keep_identifiers`` (passed
    through), and ``drop`` (left out before generating; the command line's ``--drop``).
    """

    k: int = 20
    ncp: int = 5
    seed: int | None = None
    synthesis: Synthesis = "full"
    decoding: Decoding = "draw"
    categorical: tuple[Any, ...] = ()
    numeric: tuple[Any, ...] = ()
    keep_identifiers: tuple[Any, ...] = ()
    drop: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        for name in ("categorical", "numeric", "keep_identifiers", "drop"):
            object.__setattr__(self, name, _names(getattr(self, name)))

    @classmethod
    def of(
        cls,
        *,
        k: int = 20,
        ncp: int = 5,
        seed: int | None = None,
        synthesis: Synthesis = "full",
        categorical_decoding: Decoding = "draw",
        categorical: str | Iterable[Any] | None = None,
        numeric: str | Iterable[Any] | None = None,
        keep_identifiers: str | Iterable[Any] | None = None,
        drop: str | Iterable[Any] | None = None,
    ) -> GeneratorSettings:
        """From the API's keywords (``categorical_decoding``; names as str or iterables)."""
        return cls(
            k=k, ncp=ncp, seed=seed, synthesis=synthesis, decoding=categorical_decoding,
            categorical=_names(categorical), numeric=_names(numeric),
            keep_identifiers=_names(keep_identifiers), drop=_names(drop),
        )  # fmt: skip

    def with_run(self, k: int, seed: int | None) -> GeneratorSettings:
        """The same settings for another k and seed (one run of a sweep)."""
        return replace(self, k=k, seed=seed)

    def to_args(self) -> list[str]:
        """The ``kpr avatarize`` arguments that give these settings: every option spelt
        out (defaults included, so the command does not depend on them), each declared
        column as its own option value; ``--seed`` only when there is one."""
        args = ["--k", str(self.k)]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        args += ["--ncp", str(self.ncp), "--synthesis", self.synthesis]
        args += ["--categorical-decoding", self.decoding]
        for option, names in (
            ("--categorical", self.categorical),
            ("--numeric", self.numeric),
            ("--keep-identifiers", self.keep_identifiers),
            ("--drop", self.drop),
        ):
            for name in names:
                args += [option, name_arg(str(name))]
        return args

    def to_dict(self) -> dict[str, Any]:
        """Every setting for a JSON output, under the API's name (column names as text)."""
        return {
            _API_NAMES.get(f.name, f.name): _json_value(getattr(self, f.name)) for f in fields(self)
        }
