"""The engines of ``tests/engines`` (one case runs on each of them)."""

from tests.engines.conftest import engine, spark

__all__ = ["engine", "spark"]
