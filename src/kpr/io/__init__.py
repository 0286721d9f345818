"""Files in and out: reading CSV/Parquet tables, writing safe CSV exports."""
