"""Engines: translations of the metric plan into dataframe queries."""
