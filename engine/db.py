"""DuckDB connections, configured once for every pack."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import threading
import time
import weakref

from runscore.engine.duck import duckdb
from runscore.engine.errors import UsageError
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

DEFAULT_MEMORY_LIMIT = "1200MB"
#: The user's DuckDB thread count; when set, it is the count every connection runs.
THREADS_ENV = "RUNSCORE_THREADS"
MEMORY_ENV = "RUNSCORE_MEMORY_LIMIT"
TEMP_DIR_ENV = "RUNSCORE_TEMP_DIR"


def env_count(name: str, unit: str) -> int | None:
    """``$name`` as a whole number of ``unit``, 1 or more; None when unset (or empty).
    Anything else is a usage error that names the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        # about=None here and below: a setting of the environment, no argument of a call
        raise UsageError(
            f"{name} must be a whole number of {unit} (1 or more), not {quote(raw)}", about=None
        )
    return int(raw)


def env_threads() -> int | None:
    """``$RUNSCORE_THREADS``: a positive whole number, or None when unset (or empty)."""
    return env_count(THREADS_ENV, "threads")


def threads(con: duckdb.DuckDBPyConnection) -> int:
    """The thread count ``con``'s database runs now (``set_threads``, the user's setting)."""
    return int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])


@functools.lru_cache(maxsize=8)
def _memory_limit_error(value: str) -> str | None:
    """Why DuckDB refuses ``value`` as its memory limit (None: it takes it). DuckDB's own
    parser decides (it takes 1.5GB, 2 gb, 80%, -1, ...); asked once per value, on a
    throwaway database (~0.03 s), so that a typo is a usage error before any work starts
    rather than a traceback from the first connection (or, for 0MB, its first query)."""
    try:
        probe = tracked(duckdb.connect(config={"memory_limit": value}))
    except duckdb.Error as e:
        return str(e).splitlines()[0]
    try:
        probe.execute("SELECT 1").fetchall()
    except duckdb.Error as e:
        return str(e).splitlines()[0]
    finally:
        probe.close()
    return None


def env_memory_limit() -> str:
    """``$RUNSCORE_MEMORY_LIMIT`` if set (and DuckDB takes it), else the default."""
    raw = os.environ.get(MEMORY_ENV, "").strip()
    if not raw:
        return DEFAULT_MEMORY_LIMIT
    why = _memory_limit_error(raw)
    if why is not None:
        raise UsageError(
            f"{MEMORY_ENV}={quote(raw)} is not a memory limit DuckDB takes: {why}", about=None
        )
    return raw


def default_temp_dir() -> str:
    """``<system temp>/runscore-duckdb-<uid>``: one folder per user, as a folder another
    user made in a shared /tmp cannot be written to, and DuckDB would find that out only
    when it first spilled."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    name = "runscore-duckdb" if uid is None else f"runscore-duckdb-{uid}"
    return os.path.join(tempfile.gettempdir(), name)


def env_temp_dir() -> str:
    """Where DuckDB spills: ``$RUNSCORE_TEMP_DIR`` or ``default_temp_dir()``.
    DuckDB creates the folder only when it first spills; a file in its place, or a folder
    this user cannot write to, would fail an extract hours in, so both are refused up
    front."""
    path = os.environ.get(TEMP_DIR_ENV, "").strip() or default_temp_dir()
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(
            f"{TEMP_DIR_ENV}: {quote_path(path)} is not a folder (DuckDB spills there)", about=None
        )
    if os.path.isdir(path) and not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(
            f"{TEMP_DIR_ENV}: {quote_path(path)} cannot be written to (DuckDB spills there); "
            "set RUNSCORE_TEMP_DIR to a folder you can write to",
            about=None,
        )
    return path


def settings_as_given() -> tuple[str, str]:
    """The memory limit and the spill folder as the environment gives them (or their
    defaults), unchecked: for a message about them that must not fail in its turn."""
    limit = os.environ.get(MEMORY_ENV, "").strip() or DEFAULT_MEMORY_LIMIT
    return limit, os.environ.get(TEMP_DIR_ENV, "").strip() or default_temp_dir()


def out_of_memory_hint() -> str:
    """What to change when DuckDB runs out of memory, as the CLI's exit 5 and each
    nightly step that runs out say it (unchecked settings: this must not raise)."""
    limit, spill = settings_as_given()
    return (
        f"(memory limit {limit}, spilling to {spill}; raise {MEMORY_ENV}, "
        "or make room where it spills)"
    )


def check_env() -> None:
    """Raise ``UsageError`` now for a DuckDB setting in the environment that ``connect``
    would refuse (for a job that runs many steps, before the first)."""
    env_threads()
    env_memory_limit()
    env_temp_dir()


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A fresh DuckDB connection with the settings every pack relies on.

    ``preserve_insertion_order`` stays on: line numbers of fast-path reads are
    derived from the order rows are inserted (see ``sources``).
    """
    config: dict[str, str | bool | int | float | list[str]] = {
        "preserve_insertion_order": True,
        # Never fetch an extension from the network because of what an input looks like
        # (a file DuckDB takes for SQLite, a path that looks like a URL). What runscore
        # uses (json, parquet, icu) is built into the duckdb wheel.
        "autoinstall_known_extensions": False,
    }
    if database == ":memory:":
        # Every table of an in-memory connection lives for one command. A checkpoint
        # only compresses them, for memory the command gives back when it ends, and
        # DuckDB starts one on its own once its estimate of the changes passes 16 MiB:
        # in an extract of one file of 10k runs, one checkpoint in the middle of
        # scoring took 0.32-0.35 s of ~3.8 s (profiled: storage.checkpoint_latency).
        # A file attached to such a connection is checkpointed when it is detached
        # (the history cache's writer does so explicitly).
        config["checkpoint_threshold"] = "1TB"
    threads = env_threads()
    if threads is not None:
        config["threads"] = threads
    # A bounded buffer pool: past it DuckDB spills to its temp directory instead of
    # growing the process (history of 100k runs in one pass stays under ~2 GB).
    config["memory_limit"] = env_memory_limit()
    config["temp_directory"] = env_temp_dir()
    con = tracked(duckdb.connect(database, read_only=read_only, config=config))
    # Progress bars would write to the terminal behind the CLI's back (stdout is data).
    con.execute("SET enable_progress_bar = false")
    return con


#: Every connection open in this process (``tracked``), for ``interrupt_all``.
_open: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
_open_lock = threading.Lock()


def tracked(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con``, noted as one ``interrupt_all`` stops and ``stop`` closes. Every connection
    and cursor the engine opens goes through here (``connect`` and ``cursor`` do it;
    tests/test_duck.py checks the sources for any other). Once the process stops, none is
    handed out: it is closed, and the caller gets DuckDB's ``InterruptException``."""
    with _open_lock:
        if not _stopping.is_set():
            _open.add(con)
            return con
    con.close()
    raise duckdb.InterruptException("INTERRUPT Error: the process is stopping (Ctrl-C)")


def interrupt_all() -> None:
    """Interrupt the query each open connection runs (an idle one is not affected: its
    next query runs as usual). Safe from any thread: the CLI calls it from the thread that
    watches for Ctrl-C.

    DuckDB's Python package looks for a Ctrl-C only in some of its waits: in a query that
    its worker threads run (``SELECT count(*) FROM range(100000000000)`` through Arrow) it
    never saw one, and the query ran to its end, minutes later. ``interrupt`` stops it
    wherever it is."""
    with _open_lock:
        cons = list(_open)
    for con in cons:
        try:
            con.interrupt()
        except duckdb.Error:
            pass  # closed meanwhile: nothing of it runs


#: Set once the process is stopping on a Ctrl-C (``stop``).
_stopping = threading.Event()


def stop() -> None:
    """The process is stopping (a Ctrl-C): interrupt every query (``interrupt_all``), and
    from now on start no statement: every connection is closed (``close_all``), and the
    SQL runner asks ``stopping`` before each statement.

    An interrupt stops the statement that runs; a worker thread that runs several in turn
    (a batch's read: load, project, drop) went on with the next ones, seconds more of an
    extract of 10k runs, before the command could stop. The engine runs ~200 statements
    of its own outside the runner (``con.execute``, fetches, relations), on the main
    thread and on worker threads (the history's keys, the records' rendering): on a closed
    connection none of them starts."""
    with _open_lock:
        _stopping.set()  # under the lock: ``tracked`` adds no connection after this
    interrupt_all()
    close_all()


def close_all() -> None:
    """Close every connection ``tracked`` noted. DuckDB refuses to close a connection that
    runs a statement ("busy with another call"): that one is interrupted again, and tried
    again once its thread has seen the interrupt, until it is closed (its thread stops at
    its next statement, or is left as it stopped: the main thread's KeyboardInterrupt ends
    the command meanwhile)."""
    with _open_lock:
        left = list(_open)
    while left:
        busy = []
        for con in left:
            try:
                con.close()
            except duckdb.Error:
                busy.append(con)
        if not busy:
            return
        for con in busy:
            with contextlib.suppress(duckdb.Error):
                con.interrupt()
        # Not a wait for anything: the statement's own thread ends it, which nothing
        # here is told of. 10 ms between tries: no spinning next to the work that stops.
        time.sleep(0.01)
        left = busy


def stopping() -> bool:
    """Has the process been told to stop (``stop``)?"""
    return _stopping.is_set()


#: The settings set on a connection itself (a setting left at its default reads GLOBAL).
_LOCAL_SETTINGS = "SELECT name, value FROM duckdb_settings() WHERE scope = 'LOCAL'"


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Another connection to ``con``'s database, with ``con``'s per-connection settings.

    Database-wide settings (threads, memory) are shared anyway; a cursor starts with the
    defaults of the per-connection ones (measured: a ``SET TimeZone = 'UTC'`` on ``con``
    is not seen by its cursor), so every one that differs is copied.
    """
    cur = tracked(con.cursor())
    mine = dict(con.execute(_LOCAL_SETTINGS).fetchall())
    theirs = dict(
        cur.execute(
            "SELECT name, value FROM duckdb_settings() WHERE list_contains($n, name)",
            {"n": list(mine)},
        ).fetchall()
    )
    for name, value in mine.items():
        if theirs.get(name) != value:
            cur.execute(f'SET "{name}" = ?', [value])  # a name from the catalog
    return cur


def set_threads(con: duckdb.DuckDBPyConnection, threads: int | None) -> None:
    """Set the thread count of ``con``'s database; None: back to DuckDB's default.
    A count the user set (``THREADS_ENV``) is left as it is."""
    if env_threads() is not None:
        return
    if threads is None:
        con.execute("RESET threads")
    else:
        con.execute("SET threads = ?", [threads])


class ConnectAhead:
    """An in-memory connection (``connect()``), opened on a worker thread once ``start``-ed.

    Opening one starts a DuckDB database: ~0.03 s, most of it outside the GIL. A command
    that first discovers and stat-s its input files (GIL-bound Python) starts it as soon
    as it knows it will need it, and opens it meanwhile instead of after. ``take()``
    waits for it and hands it over (or opens it then, if never started); ``release()``
    waits too, and closes it if it was never taken.
    """

    def __init__(self) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        self._error: BaseException | None = None
        self._taken = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._open, name="runscore-connect")
            self._thread.start()

    def _open(self) -> None:
        try:
            self._con = connect()
        except BaseException as e:  # re-raised by take(), on the caller's thread
            self._error = e

    def take(self) -> duckdb.DuckDBPyConnection:
        if self._thread is None:
            self._taken = True
            return connect()
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._con is not None
        self._taken = True
        return self._con

    def release(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self._con is not None and not self._taken:
            self._con.close()
