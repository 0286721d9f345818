"""One attribute a result shows from one of its parts, under the same name: the
counts of a rate (``n``, ``linked``, ...) read from its :class:`~kpr.metric.counts.Counts`,
a membership attack's sizes from its figures. Declared, not written out as a
property each."""

from __future__ import annotations

from typing import Generic, TypeVar, overload

T = TypeVar("T")


class Forwarded(Generic[T]):
    """A read-only attribute whose value is ``getattr(getattr(obj, part), name)``:
    ``n = Forwarded[int]("counts")`` makes ``result.n`` read ``result.counts.n``."""

    def __init__(self, part: str, doc: str | None = None) -> None:
        self.part = part
        self.name = ""
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Forwarded[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object, owner: type | None = None) -> Forwarded[T] | T:
        if obj is None:
            return self
        value: T = getattr(getattr(obj, self.part), self.name)
        return value

    def __set__(self, obj: object, value: T) -> None:
        raise AttributeError(f"{self.name} is read from {self.part}: it cannot be set")
