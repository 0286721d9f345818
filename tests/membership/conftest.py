"""The engines of ``tests/engine`` (one case runs on each of them)."""

from tests.engine.conftest import engine, spark

__all__ = ["engine", "spark"]
