"""Ctrl-C in a query, wherever the query runs: a fallback that catches DuckDB's errors (the
history cache's "not used, read the file", the fast reader's hand-over to the careful
one) must not take DuckDB's ``InterruptException`` for one of them. The command stops:
exit 130, one line, nothing half written.

Each interrupt is a real one: a query of many seconds on the command's own connection,
stopped by ``con.interrupt()`` from a timer thread (what DuckDB does on a Ctrl-C)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine import sqlpack
from runscore.engine.packs import effectiveness, effectiveness_cache
from runscore.engine.packs import effectiveness_history as eh

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"

#: Some seconds of work even on many cores (a test that is not interrupted still ends).
LONG_QUERY = "SELECT count(*) FROM range(3000000000) t(i) WHERE i % 7 = 3"


def _interrupted(con: duckdb.DuckDBPyConnection, *, runner: bool = True) -> None:
    """Run a long query on ``con`` and Ctrl-C it 0.3 s in; ``runner``: through the SQL
    runner (its SqlPackError, raised from DuckDB's), else DuckDB's own error."""
    timer = threading.Timer(0.3, con.interrupt)
    timer.start()
    try:
        if runner:
            sqlpack.execute(con, LONG_QUERY)
        else:
            con.execute(LONG_QUERY).fetchall()
    finally:
        timer.cancel()
    raise AssertionError("the query was not interrupted")


def _interrupt_the_pack_file(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Ctrl-C lands in the SQL file ``name`` (a name without .sql), once."""
    real = sqlpack.execute
    hit: list[str] = []

    def execute(con: Any, sql: Any, params: Any = None) -> Any:
        if isinstance(sql, sqlpack.SqlFile) and sql.name.startswith(name) and not hit:
            hit.append(name)
            _interrupted(con)
        return real(con, sql, params)

    monkeypatch.setattr(sqlpack, "execute", execute)
    return hit


def _history(tmp_path: Path) -> Path:
    h = tmp_path / "h.jsonl"
    effectiveness.extract([str(SAMPLE)], str(h))
    return h


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _assert_stopped(res: Any) -> None:
    assert (res.exit_code, res.stdout) == (130, ""), res.stderr
    assert res.stderr.splitlines() == ["error: interrupted"]


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "on")
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "1")


@pytest.mark.usefixtures("cached")
@pytest.mark.parametrize("where", ["checking the cache", "reading the cache"])
def test_ctrl_c_while_reading_the_history_cache_stops_the_command(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Was "cache not used" (a debug line) and a full read of the history: exit 0 with
    the whole report, the Ctrl-C lost."""
    h = _history(tmp_path)
    assert run_cli("report", "--history", str(h)).exit_code == 0  # writes the cache
    cache = Path(effectiveness_cache.cache_path(str(h)))
    before, files = cache.read_bytes(), _files(tmp_path)
    full_reads: list[int] = []
    real_load = eh._load_files

    def load_files(*args: Any, **kwargs: Any) -> Any:
        full_reads.append(1)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(eh, "_load_files", load_files)
    if where == "checking the cache":
        monkeypatch.setattr(
            effectiveness_cache, "_meta", lambda con: _interrupted(con, runner=False)
        )
        hit = ["_meta"]
    else:
        hit = _interrupt_the_pack_file(monkeypatch, effectiveness_cache._READ)
    res = run_cli("report", "--history", str(h))
    _assert_stopped(res)
    assert hit and full_reads == []
    assert (cache.read_bytes(), _files(tmp_path)) == (before, files)


@pytest.mark.usefixtures("cached")
@pytest.mark.parametrize("grown", [False, True], ids=["first write", "rewrite"])
def test_ctrl_c_while_writing_the_history_cache_stops_the_command(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, grown: bool
) -> None:
    """Was "not cached" (a debug line) and exit 0: the Ctrl-C lost. The command stops; no
    temporary cache file is left, and a cache already there is as it was."""
    h = _history(tmp_path)
    cache = Path(effectiveness_cache.cache_path(str(h)))
    before, files = None, _files(tmp_path)
    if grown:
        assert run_cli("report", "--history", str(h)).exit_code == 0
        before, files = cache.read_bytes(), _files(tmp_path)
        with open(h, "ab") as f:
            f.write(h.read_bytes().splitlines(keepends=True)[0])  # one more line
    hit = _interrupt_the_pack_file(monkeypatch, effectiveness_cache._WRITE)
    res = run_cli("report", "--history", str(h))
    _assert_stopped(res)
    assert hit
    assert _files(tmp_path) == files  # no temporary cache file (nor a cache, the first time)
    assert cache.name in files if grown else cache.name not in files
    if before is not None:
        assert cache.read_bytes() == before


def test_ctrl_c_in_the_fast_history_read_stops_the_command_whatever_the_pre_scan_found(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast read's error was set aside when the pre-scan beside it had found the file
    unreadable (the careful path reports such a file): a Ctrl-C in it went the same way."""
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "off")
    h = _history(tmp_path)
    real_prescan = eh.sources.prescan

    def prescan(f: Any, *args: Any, **kwargs: Any) -> Any:
        out = real_prescan(f, *args, **kwargs)
        f.error = "unreadable: as the pre-scan may find a file"
        return out

    monkeypatch.setattr(eh.sources, "prescan", prescan)
    hit = _interrupt_the_pack_file(monkeypatch, eh._FAST_FILE)
    res = run_cli("report", "--history", str(h))
    _assert_stopped(res)
    assert hit


_BATCH_READ_CTRL_C = """
import os, signal, sys, threading
from runscore.engine import db, sources

files, _ = sources.discover([sys.argv[1]])
con = db.connect()
outcome = []
# As in a terminal: a process started in the background (a CI runner's job) inherits
# SIGINT ignored, and Python then installs no handler: the Ctrl-C would never arrive.
signal.signal(signal.SIGINT, signal.default_int_handler)

def stage(paths, sizes, datas):
    try:
        con.execute(sys.argv[2]).fetchall()
        outcome.append("finished")
    except Exception as e:
        outcome.append(type(e).__name__)
        raise

threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    for _ in sources._read_while_scanning(
        files, lambda fs: [fs], stage, lambda b: None, lambda p, s: False, con, lambda b: True
    ):
        pass
except KeyboardInterrupt:
    print("KeyboardInterrupt", *outcome)
"""


def test_ctrl_c_while_a_batch_is_read_interrupts_the_read(tmp_path: Path) -> None:
    """Python gives a Ctrl-C to the main thread only, and DuckDB looks for one only on the
    thread that runs its query: a Ctrl-C while the main thread waited for a batch's read
    (on the worker) let that read run to its end before the command stopped.

    In a process of its own: in one that has imported polars (this test session does), a
    signal can land on one of its threads, and the main thread's wait is not woken by it."""
    p = tmp_path / "a.jsonl"
    p.write_text('{"a":1}\n')
    res = subprocess.run(
        [sys.executable, "-c", _BATCH_READ_CTRL_C, str(p), LONG_QUERY],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.stdout.split() == ["KeyboardInterrupt", "InterruptException"], res.stderr


#: Hours of work for DuckDB's worker threads.
_ENDLESS = "SELECT sum(hash(i)) FROM range(10000000000000) t(i)"


def _sigint_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cpu_seconds(pid: int) -> float:
    """User and system time of process ``pid`` so far (every thread's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_real_ctrl_c_stops_a_query_that_duckdbs_threads_run(tmp_path: Path, hh: Any) -> None:
    """A SIGINT sent to the process while DuckDB's worker threads run a query: DuckDB's
    Python package did not look for it (with more than one thread), and the query ran on
    to its end, hours here; the CLI's watcher interrupts it (``db.interrupt_all``)."""
    # Two threads: with one, the main thread runs the query itself and DuckDB sees a Ctrl-C.
    # Started as a terminal starts it, SIGINT at its default: a process started with
    # SIGINT ignored keeps it ignored (README), and this test's own process may have it
    # so after an earlier test (in the whole suite, in CI: the query ran on, stderr empty).
    proc = subprocess.Popen(
        [sys.executable, "-m", "runscore", "sql", "--history", str(tmp_path / "none.jsonl")]
        + [_ENDLESS],
        env=hh.env(RUNSCORE_THREADS="2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_sigint_as_in_a_terminal,
    )
    try:
        # In the query, not in start-up (whose Ctrl-C is Python's own): start-up takes
        # ~0.6 s of CPU, the query all it can get.
        deadline = time.monotonic() + 300
        while proc.poll() is None and _cpu_seconds(proc.pid) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        signals = 0
        # A minute on a loaded machine is generous (it takes ~0.05 s), and no time for the
        # query, which runs for hours. Sent again should one be lost (not seen, in practice).
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            proc.send_signal(signal.SIGINT)
            signals += 1
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert (proc.returncode, out) == (130, b""), (signals, err)
    # Each signal the process got before it was done says it once at most.
    assert err.decode().splitlines() == ["error: interrupted"] * len(err.decode().splitlines())
    assert 1 <= len(err.decode().splitlines()) <= signals


_AFTER_STOP = """
from runscore.engine import db, errors, sqlpack
con = db.connect()
cur = db.cursor(con)
con.execute("CREATE TABLE t AS SELECT 1 AS x")
pending = con.execute("SELECT * FROM range(10)")
db.stop()
for what, run in [
    ("runner", lambda: sqlpack.execute(con, "INSERT INTO t VALUES (2)")),
    ("execute", lambda: con.execute("INSERT INTO t VALUES (3)")),
    ("cursor", lambda: cur.execute("INSERT INTO t VALUES (4)")),
    ("fetch", lambda: pending.fetchall()),
    ("connect", lambda: db.connect()),
    ("another cursor", lambda: db.cursor(con)),
]:
    try:
        run()
        print(what, "ran")
    except Exception as e:
        print(what, "refused", "as an interrupt" if errors.interrupted(e) else repr(e))
"""


def test_no_statement_starts_once_the_process_stops_on_ctrl_c() -> None:
    """An interrupt stops the statement that runs: a worker thread running a batch's
    statements in turn went on with the next ones (seconds of an extract) before the
    command stopped. Not only through the SQL runner: the engine's own statements
    (``con.execute``, a fetch, on a cursor of a worker thread) ran after a Ctrl-C too, and
    a connection opened after it worked. Each is refused, as a Ctrl-C (exit 130, not a
    broken query). In a process of its own: ``db.stop`` is for good."""
    res = subprocess.run(
        [sys.executable, "-c", _AFTER_STOP], capture_output=True, text=True, timeout=300
    )
    assert res.stdout.splitlines() == [
        f"{what} refused as an interrupt"
        for what in ("runner", "execute", "cursor", "fetch", "connect", "another cursor")
    ], res.stderr


#: Run in a child process (``python -c``, argv: REPORT, then runscore's arguments): a
#: Ctrl-C (a real SIGINT) lands as the history's keys start to be read on their thread,
#: which runs its statement on a cursor directly (not through the SQL runner) once the
#: process has taken the Ctrl-C (``db.stop`` has returned); whether that statement ran to
#: its end is written to REPORT.
_CTRL_C_AS_KEYS_ARE_READ = """
import os, runpy, signal, sys, threading
from runscore.engine import db
from runscore.engine.packs import effectiveness
REPORT = sys.argv[1]
stopped = threading.Event()
real_stop, real_read = db.stop, effectiveness._KeysAhead._read
def stop():
    real_stop()
    stopped.set()
def read(self):
    os.kill(os.getpid(), signal.SIGINT)
    assert stopped.wait(120), "the Ctrl-C was not taken"
    real_read(self)
    with open(REPORT, "w") as f:
        f.write(f"read={self._read_ok}")
db.stop = stop
effectiveness._KeysAhead._read = read
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
sys.argv = ["runscore", *sys.argv[2:]]
runpy.run_module("runscore", run_name="__main__")
"""


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_ctrl_c_stops_the_statements_the_engine_runs_itself(tmp_path: Path, hh: Any) -> None:
    """A statement the engine runs on a connection directly (here the read of the
    history's keys, on a thread of its own, which the command waits for) ran to its end
    after a Ctrl-C: only the SQL runner asked ``db.stopping``. It is refused now; the
    command stops with exit 130 and one line, the history, its manifest and every other
    file as they were."""
    events = tmp_path / "events"
    hh.corpus(events, files=4, runs_per_file=2)
    hist = tmp_path / "h.jsonl"
    rc, _, err = hh.run_to_end("extract", str(events / "r000.jsonl"), "--history", str(hist))
    assert rc == 0, err
    report = tmp_path / "report.txt"
    before = _tree(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AS_KEYS_ARE_READ, str(report)]
        + ["extract", str(events), "--history", str(hist)],
        env=hh.env(),
        capture_output=True,
        timeout=300,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, b"", b"error: interrupted\n")
    assert report.read_text() == "read=False"
    report.unlink()
    assert _tree(tmp_path) == before


#: Run in a child process (``python -c``, argv: WHERE, then runscore's arguments): a first
#: Ctrl-C (a real SIGINT, to the main thread) in the command's first SQL file, and a second
#: one WHERE its clean-up is: as "error: interrupted" is said (``said``), or as the
#: temporary file of ``sql --output`` is removed (``temp``).
_CTRL_C_TWICE = """
import os, runpy, signal, sys
import click
from runscore.engine import sqlpack
WHERE = sys.argv[1]
first = [True]
real_execute, real_echo, real_unlink = sqlpack.execute, click.echo, os.unlink
def execute(*args, **kwargs):
    if first:
        first.clear()
        signal.raise_signal(signal.SIGINT)
    return real_execute(*args, **kwargs)
def echo(message=None, *args, **kwargs):
    if WHERE == "said" and message == "error: interrupted":
        signal.raise_signal(signal.SIGINT)
    return real_echo(message, *args, **kwargs)
def unlink(path, *args, **kwargs):
    if WHERE == "temp" and ".tmp-" in os.path.basename(path):
        signal.raise_signal(signal.SIGINT)
    return real_unlink(path, *args, **kwargs)
sqlpack.execute, click.echo, os.unlink = execute, echo, unlink
if WHERE == "temp":
    real_replace = os.replace
    def replace(src, dst):
        if ".tmp-" in os.path.basename(src):
            signal.raise_signal(signal.SIGINT)  # the first, once the result is written
        return real_replace(src, dst)
    os.replace = replace
    first.clear()
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
sys.argv = ["runscore", *sys.argv[2:]]
runpy.run_module("runscore", run_name="__main__")
"""


def _ctrl_c_twice(hh: Any, where: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", _CTRL_C_TWICE, where, *args],
        env=hh.env(),
        capture_output=True,
        timeout=300,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "events", "--history", "h.jsonl"],
        ["report", "--history", "h.jsonl"],
        ["sql", "SELECT * FROM history", "--history", "h.jsonl", "--output", "out/q.csv"],
        ["export", "--history", "h.jsonl", "--to", "out/e.parquet"],
    ],
    ids=lambda a: a[0],
)
def test_a_second_ctrl_c_while_the_first_is_said_is_exit_130_and_one_line(
    tmp_path: Path, hh: Any, args: list[str]
) -> None:
    """A user who presses Ctrl-C twice: the second landed in the handling of the first,
    and click took it for its own ("Aborted!", exit 1: "some input was rejected"). Later
    ones do nothing now: the process is stopping already."""
    hh.corpus(tmp_path / "events", files=3, runs_per_file=2)
    rc, _, err = hh.run_to_end(
        "extract", str(tmp_path / "events" / "r000.jsonl"), "--history", str(tmp_path / "h.jsonl")
    )
    assert rc == 0, err
    before = _tree(tmp_path)
    proc = _ctrl_c_twice(hh, "said", *args, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, b"", b"error: interrupted\n")
    assert _tree(tmp_path) == before


def test_a_second_ctrl_c_while_the_temporary_file_goes_leaves_none(tmp_path: Path, hh: Any) -> None:
    """The second Ctrl-C landed in the removal of ``sql --output``'s temporary file, after
    the first had stopped the command as it was renamed: the file stayed for good."""
    hh.corpus(tmp_path / "events", files=1, runs_per_file=2)
    rc, _, err = hh.run_to_end("extract", "events", "--history", "h.jsonl", cwd=tmp_path)
    assert rc == 0, err
    (tmp_path / "out").mkdir()
    before = _tree(tmp_path)
    proc = _ctrl_c_twice(
        hh,
        "temp",
        "sql",
        "SELECT 1 AS x",
        "--history",
        "h.jsonl",
        "--output",
        "out/q.csv",
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, b"", b"error: interrupted\n")
    assert _tree(tmp_path) == before
    assert list((tmp_path / "out").iterdir()) == []


#: Run in a child process (``python -c``, runscore's arguments): a Ctrl-C once the command
#: has returned, as Python joins the threads still running at its exit.
_CTRL_C_AT_EXIT = """
import runpy, signal, sys, threading
real_shutdown = threading._shutdown
def shutdown():
    signal.raise_signal(signal.SIGINT)
    real_shutdown()
threading._shutdown = shutdown
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
sys.argv = ["runscore", *sys.argv[1:]]
runpy.run_module("runscore", run_name="__main__")
"""


def test_a_ctrl_c_once_the_command_is_done_changes_nothing(tmp_path: Path, hh: Any) -> None:
    """The history written, the summary said: a Ctrl-C as Python ended the process was a
    traceback on stderr ("Exception ignored in: <module 'threading'>")."""
    hh.corpus(tmp_path / "events", files=1, runs_per_file=2)
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT_EXIT, "extract", "events", "--history", "h.jsonl"],
        env=hh.env(),
        capture_output=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (0, b""), proc.stderr
    assert proc.stderr.decode().startswith("2 run(s) scored, 4 record(s) written"), proc.stderr
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert len(hh.history_keys(tmp_path / "h.jsonl")) == 4
