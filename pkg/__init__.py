"""runscore: score the logs multi-agent coding workflows leave behind, on DuckDB."""

__version__ = "0.1.0"
