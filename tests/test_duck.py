"""DuckDB's Python package is imported only where what it adds is used (``engine/duck.py``).

The package's import costs ~35 ms over the engine module ``_duckdb`` alone; it installs
relations (``con.sql``, Arrow results) and scans of Python Arrow objects
(``con.register``) on every connection. The engine reaches those only through
``duck.sql`` and ``duck.register``, which import it first. In this test process the
package is imported already (the tests use it), so a call that bypassed them would pass
here and fail for a user: the sources are checked, and the paths that matter run in a
fresh interpreter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import runscore

PKG = Path(runscore.__file__).parent

# A relation or an Arrow scan asked of a connection directly (not through `duck`).
_DIRECT = re.compile(r"(?<![\w.])(?!duck\.|atexit\.)\w+\.(?:sql|register)\(")


def _sources() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if p.name != "duck.py")


def test_the_engine_asks_for_relations_and_arrow_scans_through_duck() -> None:
    offenders = [
        f"{p.relative_to(PKG)}:{n}: {line.strip()}"
        for p in _sources()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if _DIRECT.search(line.split("#", 1)[0])
    ]
    assert offenders == []
    assert len(_sources()) > 30  # the installed package was found


def test_no_module_imports_the_package_itself() -> None:
    imports = re.compile(r"^\s*(?:import duckdb\b|from duckdb\b)", re.M)
    offenders = [
        str(p.relative_to(PKG)) for p in _sources() if imports.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_check_finds_a_direct_call() -> None:
    # The pattern itself: what it must catch, and what it must let through.
    for line in ("rows = con.sql('SELECT 1').fetchall()", "q.register(name, tbl)", "x = c.sql(q)"):
        assert _DIRECT.search(line), line
    for line in ("duck.sql(con, q)", "duck.register(con, 'x', t)", "atexit.register(f, name)"):
        assert not _DIRECT.search(line), line


#: A connection opened (``duckdb.connect``, ``con.cursor()``): on its line, ``tracked(``.
_OPENS = re.compile(r"\bduckdb\.connect\(|\.cursor\(\)")


def test_every_connection_the_engine_opens_is_one_ctrl_c_interrupts() -> None:
    # The CLI's Ctrl-C watcher interrupts the connections db.tracked noted (db.interrupt_all):
    # a query on one it never saw ran on to its end after a Ctrl-C.
    opens = [
        (f"{p.relative_to(PKG)}:{n}", line.split("#", 1)[0])
        for p in _sources()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if _OPENS.search(line.split("#", 1)[0])
    ]
    assert [where for where, code in opens if "tracked(" not in code] == []
    assert len(opens) >= 5  # db.connect, db.cursor, the packs' cursors, export's file


def test_interrupt_all_stops_the_query_of_every_open_connection() -> None:
    import threading
    import time

    from runscore.engine import db

    con = db.connect()
    cur = db.cursor(con)
    errors: list[str] = []

    def long_query(c: Any) -> None:
        try:  # hours of work: only an interrupt ends it
            c.execute("SELECT sum(hash(i)) FROM range(10000000000000) t(i)").fetchall()
        except Exception as e:
            errors.append(type(e).__name__)

    threads = [threading.Thread(target=long_query, args=(c,), daemon=True) for c in (con, cur)]
    for t in threads:
        t.start()
    # Again until both have stopped: an interrupt before a query starts leaves it running.
    deadline = time.monotonic() + 120
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        db.interrupt_all()
        for t in threads:
            t.join(timeout=0.2)
    assert errors == ["InterruptException", "InterruptException"]
    assert con.execute("SELECT 1").fetchall() == [(1,)]  # an idle one is not affected


def _fresh(code: str, cwd: Path) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it prints one JSON line last on stderr."""
    env = dict(os.environ, RUNSCORE_THREADS="1")
    p = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    out: dict[str, object] = json.loads(p.stderr.strip().splitlines()[-1])
    return out


_EXTRACT = """
import json, sys
from runscore.cli.main import cli
codes = []
for args in {runs!r}:
    try:
        cli.main(args, prog_name="runscore")
    except SystemExit as e:
        codes.append(e.code)
print(json.dumps({{"codes": codes, "package": "duckdb" in sys.modules,
                  "pyarrow": "pyarrow" in sys.modules}}), file=sys.stderr)
"""


def _write_run(path: Path, run_id: str) -> None:
    events = [
        {"ts": "2026-01-01T00:00:00Z", "run_id": run_id, "seq": 1, "type": "run.start"},
        {"ts": "2026-01-01T00:00:01Z", "run_id": run_id, "seq": 2, "type": "agent.complete",
         "data": {"archetype": "guardian", "cost_usd": 0.5, "model": "m"}},
        {"ts": "2026-01-01T00:00:02Z", "run_id": run_id, "seq": 3, "type": "review.verdict",
         "parent": [2], "data": {"archetype": "guardian", "verdict": "approved", "findings": []}},
        {"ts": "2026-01-01T00:00:03Z", "run_id": run_id, "seq": 4, "type": "run.complete"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


def test_an_extract_of_a_few_files_never_imports_the_package(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(3):
        _write_run(logs / f"run-{i}.jsonl", f"r{i}")
    hist = str(tmp_path / "h.jsonl")
    first = ["extract", str(logs), "--history", hist]
    got = _fresh(_EXTRACT.format(runs=[first]), tmp_path)
    assert got == {"codes": [0], "package": False, "pyarrow": False}
    lines = (tmp_path / "h.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(x)["run_id"] for x in lines) == ["r0", "r1", "r2"]

    # One new run beside the three read (the incremental), then nothing new.
    _write_run(logs / "run-3.jsonl", "r3")
    again = _fresh(_EXTRACT.format(runs=[first, first]), tmp_path)
    assert again == {"codes": [0, 0], "package": False, "pyarrow": False}
    lines = (tmp_path / "h.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(x)["run_id"] for x in lines) == ["r0", "r1", "r2", "r3"]


def test_a_report_brings_the_package_in_where_it_needs_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    _write_run(logs / "run-0.jsonl", "r0")
    hist = str(tmp_path / "h.jsonl")
    runs = [["extract", str(logs), "--history", hist], ["report", "--history", hist]]
    got = _fresh(_EXTRACT.format(runs=runs), tmp_path)
    assert got["codes"] == [0, 0] and got["package"] is True


_ARROW = """
import json, sys
import pyarrow as pa
from runscore.engine import db, duck
con = db.connect()
cur = db.cursor(con)
before = "duckdb" in sys.modules
duck.register(con, "t", pa.table({"a": [1, 2, 3]}))
rows = con.execute("SELECT sum(a) FROM t").fetchall()
arrow = duck.sql(cur, "SELECT 41 + 1 AS x").to_arrow_table().to_pylist()
print(json.dumps({"before": before, "rows": rows, "arrow": arrow}), file=sys.stderr)
"""


def test_connections_made_before_the_package_get_what_it_installs(tmp_path: Path) -> None:
    got = _fresh(_ARROW, tmp_path)
    assert got == {"before": False, "rows": [[6]], "arrow": [{"x": 42}]}


_ERRORS = """
import json, sys
import _duckdb
from runscore.engine import duck  # noqa: F401  (what the engine imports)
from runscore.engine.errors import SqlPackError, interrupted, out_of_memory
stop = _duckdb.InterruptException("INTERRUPT Error: Interrupted!")
oom = _duckdb.OutOfMemoryException("Out of Memory Error: could not allocate")
try:
    raise SqlPackError("effectiveness/v1/000: failed") from oom
except SqlPackError as e:
    wrapped = e
print(json.dumps({"package": "duckdb" in sys.modules, "interrupted": interrupted(stop),
                  "oom": out_of_memory(oom) is oom, "wrapped": out_of_memory(wrapped) is oom,
                  "plain": interrupted(ValueError("x")) or out_of_memory(ValueError("x")) is not None}),
      file=sys.stderr)
"""


def test_duckdbs_interrupt_and_out_of_memory_are_known_without_the_package(
    tmp_path: Path,
) -> None:
    # The CLI's exit codes 130 and 5 (and nightly's step failures) ask errors.interrupted
    # and errors.out_of_memory, which find DuckDB's classes among the loaded modules: an
    # extract that never imported the package must still be recognised.
    got = _fresh(_ERRORS, tmp_path)
    assert got == {
        "package": False,
        "interrupted": True,
        "oom": True,
        "wrapped": True,
        "plain": False,
    }


@pytest.mark.parametrize("name", ["connect", "DuckDBPyConnection", "Error", "IOException"])
def test_the_engine_module_is_what_the_package_re_exports(name: str) -> None:
    import duckdb as package
    from runscore.engine.duck import duckdb as engine

    assert getattr(engine, name) is getattr(package, name)
