"""The two consoles of the command line, made when first printed through: rich is
imported only then, so a command that prints JSON on standard output, with no
terminal for its progress, never imports it."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: What rich reads to treat a stream that is no terminal as one (or the reverse).
_FORCING = ("FORCE_COLOR", "TTY_COMPATIBLE")


class LazyConsole:
    """A rich ``Console`` of these options, made on first use (:meth:`console`)."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.made: Console | None = None

    def console(self) -> Console:
        if self.made is None:
            from rich.console import Console

            self.made = Console(**self.options)
        return self.made

    def not_a_terminal(self) -> bool:
        """True when rich would say the stream is no terminal, told without rich: it
        is not one and no variable says otherwise (else rich decides)."""
        stream = sys.stderr if self.options.get("stderr") else sys.stdout
        try:
            return not stream.isatty() and not any(name in os.environ for name in _FORCING)
        except (AttributeError, ValueError):
            return False


def real(screen: Console | LazyConsole) -> Console:
    """The rich console itself (made now when it is still to be made)."""
    return screen.console() if isinstance(screen, LazyConsole) else screen


def is_terminal(screen: Console | LazyConsole) -> bool:
    """rich's ``is_terminal``, without importing rich when the answer is surely no."""
    if isinstance(screen, LazyConsole) and screen.not_a_terminal():
        return False
    return real(screen).is_terminal


stdout = LazyConsole(soft_wrap=True)
stderr = LazyConsole(stderr=True)
