"""The inputs layer: reading CSV/Parquet tables, the kind rule, writing safe outputs."""
