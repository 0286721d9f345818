"""The one JSON policy of kpr's results: UTF-8 text as is, and no NaN or infinity
(they are not JSON): an undefined figure is written as null, and a non-finite
number that reaches the writer is a bug, refused rather than written."""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

T = TypeVar("T")


def finite_or_none(x: T) -> T | None:
    """An undefined figure (NaN, e.g. no numeric pair to measure; inf) becomes null;
    anything but a float passes as it is."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def dumps(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON text, under the policy above."""
    return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)


class JsonResult:
    """A result that writes itself as JSON text from its ``to_dict``."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON text, under kpr's JSON policy."""
        return dumps(self.to_dict(), indent)
