"""runscore never downloads anything: DuckDB must not install extensions on its own.

DuckDB installs a known extension from the network when a query needs it, and it decides
that from what the input looks like: ATTACH of a file with a SQLite header reaches for
sqlite_scanner, a path that looks like a URL for httpfs. Everything runscore uses (json,
parquet, icu) is built into the duckdb wheel.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest
from runscore.engine import db
from runscore.engine.packs import effectiveness_history as eh


def test_engine_connections_never_autoinstall_extensions() -> None:
    for con in (db.connect(), eh.connect()):
        (value,) = con.execute("SELECT current_setting('autoinstall_known_extensions')").fetchone()
        assert value is False


def test_a_query_that_needs_a_missing_extension_fails_without_fetching_it(tmp_path: Path) -> None:
    f = tmp_path / "x.sqlite"
    s = sqlite3.connect(f)
    s.execute("CREATE TABLE t (a)")
    s.commit()
    s.close()
    con = db.connect()
    with pytest.raises(duckdb.Error) as e:
        con.execute("ATTACH $p AS x (READ_ONLY)", {"p": str(f)})
    # refused as not installed, not as a failed download
    assert "download" not in str(e.value).lower(), e.value
