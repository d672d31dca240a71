"""DuckDB's engine, without the Python package's start-up where it is not used.

``import duckdb`` (2.0) costs ~50 ms: its relation API, written in Python
(``duckdb._relation``, ~20 ms), and its version read through ``importlib.metadata``
(~16 ms), on top of the engine module ``_duckdb`` (~16 ms), which the package re-exports
as it is: the same ``connect``, connection class and exception classes. An incremental
extract over 10k run files takes ~0.4 s, ~0.047 s of it that import (12 alternating
pairs: benchmarks/RESULTS.md, "Twenty-fifth pass").

So the engine imports ``_duckdb`` (as ``duckdb``, from here) and brings in the package
only where what the package adds is used. Importing it installs, on every connection
(those made before it too):

- relations: ``con.sql(...)``, and with them Arrow results (``to_arrow_table``,
  ``to_arrow_reader``);
- scans of Python Arrow objects: ``con.register(name, table)`` (without the package,
  DuckDB refuses them: "the duckdb package did not set up duckdb._sources").

The engine reaches those through ``sql`` and ``register`` below, never on a connection
directly (tests/test_duck.py checks the sources), so a command that only runs SQL and
fetches rows (an extract of a few files, an extract with nothing new) never pays for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    from duckdb.sqltypes import DuckDBPyType as DuckDBPyType  # annotations: column types
else:
    try:
        import _duckdb as duckdb
    except ImportError:  # a DuckDB whose engine is not the module `_duckdb`: the package
        import duckdb

__all__ = ["duckdb", "full", "register", "sql"]


def full() -> None:
    """Import DuckDB's Python package: relations, Arrow results and Arrow scans."""
    import duckdb as _package  # noqa: F401  (its import is what installs them)


def sql(con: duckdb.DuckDBPyConnection, query: str) -> duckdb.DuckDBPyRelation:
    """``con.sql(query)``: a relation (``to_arrow_table()``, ``to_arrow_reader(n)``)."""
    full()
    return con.sql(query)


def register(con: duckdb.DuckDBPyConnection, name: str, obj: Any) -> None:
    """``con.register(name, obj)``: a Python Arrow object (table, batch reader) as a view."""
    full()
    con.register(name, obj)
