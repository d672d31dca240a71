"""The CLI contract across commands (README "Commands" and "Exit codes"): what a user
sees when a run is stopped (Ctrl-C, a reader that closes the pipe), and that stderr
says each message on one line."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest

#: Some seconds of work even on many cores (a test that is not interrupted still ends).
LONG_QUERY = "SELECT count(*) FROM range(3000000000) t(i) WHERE i % 7 = 3"


def test_ctrl_c_during_a_duckdb_query_is_exit_130(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB takes a Ctrl-C that lands while a query runs: it stops the query and raises
    its own error, not KeyboardInterrupt. That was a traceback ending in
    ``RuntimeError: Query interrupted`` and exit 1 ("some input was rejected")."""
    from runscore.engine.packs import effectiveness_history as eh

    real = eh.run_sql
    # as in a terminal (a background job of a script starts with Ctrl-C ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def long_query(query: str, *args: Any, **kwargs: Any) -> Any:
        # a query of many seconds, Ctrl-C'd half a second in (the signal lands in DuckDB)
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            return real(LONG_QUERY, *args, **kwargs)
        finally:
            timer.cancel()

    monkeypatch.setattr(eh, "run_sql", long_query)
    try:
        res = run_cli("sql", "SELECT 1", "--history", "none.jsonl")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (res.exit_code, res.stdout) == (130, "")
    # (the missing history's note comes first: the views are built before the query runs)
    assert res.stderr.splitlines()[-1] == "error: interrupted"
    assert "Traceback" not in res.stderr
