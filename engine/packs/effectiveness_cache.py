"""A derived, disposable cache of the typed effectiveness history.

Reading a large history is mostly JSON parsing and kind checks (``100_history_fast.sql``:
~4.5 s for 1M lines). The history is append-only, so what typing its first N lines
produced stays true as long as those bytes stay the same. After a read, the typed lines
(and the skipped ones, with their reasons) are written to ``<history>.cache.duckdb``;
a later read that finds the file still starting with exactly those bytes (same size or
longer, same SHA-256 over the covered bytes) reads the typed lines from the cache and
types only the lines appended since, with the same SQL as a full read.

The SHA-256 costs ~0.45 s per 600 MB. It is skipped only when the file is certainly the
one that was read: same device, inode, size, mtime and ctime as then (ctime cannot be set
back by touch or by tools that copy times), and that ctime was at least two seconds older
than the read that filled the cache, so a write in the same clock tick as that read
cannot hide (git's "racy" rule for its index).

The cache is never the only copy of anything and never trusted on doubt: a missing,
unreadable, foreign or stale cache (other format, SQL text, runscore or DuckDB version,
or bytes that no longer match) means a full read, exactly as without it, and writing it
is best effort (a read-only directory just means no cache). Delete it at any time.

Settings (environment, read at each call): ``RUNSCORE_HISTORY_CACHE=off`` neither reads
nor writes it; ``RUNSCORE_HISTORY_CACHE_MIN_LINES`` (default 50,000) is the number of
lines a history needs before it is worth a cache, and the number of new lines after
which the cache is rewritten to cover them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from runscore import __version__
from runscore.engine import duck, filedigest, history, sources, spools, sqlpack
from runscore.engine.duck import duckdb
from runscore.engine.errors import SqlPackError, UsageError, interrupted
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

log = logging.getLogger("runscore.cache")

PACK = "effectiveness"
#: Bumped when what the cache holds, or how it is checked, changes. 2: the meta's
#: ``sha256`` is a ``filedigest.PiecewiseSha256`` (1 held the file's plain SHA-256).
CACHE_FORMAT = 2
CACHE_ENV = "RUNSCORE_HISTORY_CACHE"
MIN_LINES_ENV = "RUNSCORE_HISTORY_CACHE_MIN_LINES"
DEFAULT_MIN_LINES = 50_000
_READ = "100_history_cache_read"
_WRITE = "100_history_cache_write"
#: Every SQL file whose text decides what a cached line holds.
_TYPING = ("100_history", "100_history_fast", "100_history_keys", _READ, _WRITE)
#: Relations the read leaves or uses (dropped first: a table of a previous read on the
#: same connection may have the name).
_RELATIONS = ("_hc_tail", "_hc_new", "_hc_keys", "_hc_demoted")
_CHUNK = 8 << 20
#: A file changed this close before its cache was written is always hashed (see above).
_RACY_NS = 2_000_000_000

#: Reads a history into history/history_current/...: (con, files, version, load, digest).
Loader = Callable[[duckdb.DuckDBPyConnection, list[sources.SourceFile], str, Any, bool], None]
#: Drops one temp relation, table or view.
Dropper = Callable[[duckdb.DuckDBPyConnection, str], None]


@dataclass(frozen=True)
class Settings:
    enabled: bool
    min_lines: int


def settings() -> Settings:
    raw = os.environ.get(CACHE_ENV, "on").strip().lower()
    if raw in ("", "on", "1", "true", "yes"):
        enabled = True
    elif raw in ("off", "0", "false", "no"):
        enabled = False
    else:
        # about=None: a setting of the environment, no argument of a call
        raise UsageError(f"{CACHE_ENV} must be on or off, not {quote(raw)}", about=None)
    m = os.environ.get(MIN_LINES_ENV, "").strip()
    if m and not m.isdigit():
        raise UsageError(
            f"{MIN_LINES_ENV} must be a whole number of lines, not {quote(m)}", about=None
        )
    return Settings(enabled, int(m) if m else DEFAULT_MIN_LINES)


def supported(version: str) -> bool:
    """Whether a scoring version ships the cache's SQL (and so can type through it)."""
    try:
        for name in _TYPING:
            sqlpack.load(PACK, version, name)
    except SqlPackError:
        return False
    return True


def cache_path(history_path: str) -> str:
    return history_path + ".cache.duckdb"


def cache_key(version: str) -> str:
    """What a cache was made by: its format, runscore, DuckDB and the typing SQL's text
    (with the common macros it calls: rs_iso_text reads its times)."""
    from runscore.engine.packs import effectiveness  # it imports this module

    h = hashlib.sha256(f"{CACHE_FORMAT}\0{__version__}\0{duckdb.__version__}".encode())
    typing = [sqlpack.load(PACK, version, name) for name in _TYPING]
    typing += sqlpack.files(sqlpack.COMMON, effectiveness.COMMON_VERSION)
    for f in typing:
        h.update(b"\0" + f.text.encode("utf-8"))
    return h.hexdigest()


def _hash_prefix(path: str, size: int) -> filedigest.PiecewiseSha256 | None:
    """The digest of exactly the first ``size`` bytes, or None if the file is shorter.

    Piecewise, on every core: this check is most of what a report after an append costs
    (a grown file cannot be told from an edited one by its identity)."""
    return filedigest.PiecewiseSha256.of_file(path, size)


@dataclass
class _Tail:
    """The bytes after the covered ones, as copied: how many, their lines, the last one."""

    size: int = 0
    lines: int = 0
    last: bytes = b""


@contextlib.contextmanager
def _tail_copy(path: str, start: int) -> Iterator[tuple[str, _Tail]]:
    """The bytes from ``start`` to the end, streamed into a temp file (read_json reads
    whole files), with their newline count."""
    t = _Tail()
    fd, tmp = spools.make("tail")
    try:
        with open(path, "rb") as src, os.fdopen(fd, "wb") as out:
            src.seek(start)
            while b := src.read(_CHUNK):
                out.write(b)
                t.size += len(b)
                t.lines += b.count(b"\n")
                t.last = b[-1:]
        yield tmp, t
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _hash_more(h: filedigest.PiecewiseSha256, path: str, start: int, size: int) -> bool:
    """Continue ``h`` over ``size`` bytes of ``path`` from ``start``; False if short."""
    with open(path, "rb") as f:
        f.seek(start)
        while size > 0:
            b = f.read(min(_CHUNK, size))
            if not b:
                return False
            h.update(b)  # releases the GIL: DuckDB's work goes on meanwhile
            size -= len(b)
    return True


#: The meta row's columns and the types a usable cache has in them (None allowed where
#: the file's identity was unknown when it was written).
_META: dict[str, tuple[type, bool]] = {
    "format": (int, False),
    "key": (str, False),
    "size": (int, False),
    "sha256": (str, False),
    "lines": (int, False),
    "dev": (int, True),
    "ino": (int, True),
    "mtime_ns": (int, True),
    "ctime_ns": (int, True),
    "read_ns": (int, True),
}


def _meta(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The cache's meta row, checked for shape (ValueError if it is not what we write)."""
    rel = duck.sql(con, "SELECT * FROM _rs_cache.meta")
    rows: list[dict[str, Any]] = rel.to_arrow_table().to_pylist()
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} meta rows")
    row = rows[0]
    for k, (kind, nullable) in _META.items():
        v = row.get(k)
        if not (isinstance(v, kind) or (v is None and nullable)):
            raise ValueError(f"meta {k} is {quote(v)}")
    return row


def _detach(con: duckdb.DuckDBPyConnection) -> None:
    with contextlib.suppress(duckdb.Error):
        con.execute("DETACH DATABASE IF EXISTS _rs_cache")


def read(
    con: duckdb.DuckDBPyConnection,
    f: sources.SourceFile,
    version: str,
    load: Any,
    *,
    load_files: Loader,
    drop: Dropper,
    new_load: Callable[[], Any],
    min_lines: int,
) -> bool:
    """Answer ``load_history`` from the cache (and the lines after it). False: not used.

    On True, ``load`` holds the issues (cached ones and the new lines'), the versions and
    ``reader`` ("cache", or "cache+fast"/"cache+careful" when new lines were typed), and
    the history relations are built. On False nothing is left behind.
    """
    read_ns = time.time_ns()
    cpath = cache_path(f.path)
    if not os.path.isfile(cpath):
        return False
    for name in _RELATIONS:
        drop(con, name)
    _detach(con)
    try:
        # TYPE DUCKDB: never guess the format (a SQLite-headed file would make DuckDB try to
        # download its sqlite extension).
        con.execute("ATTACH $p AS _rs_cache (TYPE DUCKDB, READ_ONLY)", {"p": cpath})
        meta = _meta(con)
        st = os.stat(f.path)
        size = st.st_size
    except (duckdb.Error, OSError, ValueError) as e:
        _detach(con)
        if interrupted(e):
            raise  # Ctrl-C (DuckDB's error for it) stops the command, not only the cache
        log.debug("%s: cache not used: %s", cpath, e)
        return False
    if meta["format"] != CACHE_FORMAT or meta["key"] != cache_key(version):
        log.debug("%s: cache not used: made by another runscore, DuckDB or SQL", cpath)
        _detach(con)
        return False
    covered = int(meta["size"])
    if size < covered:
        log.debug("%s: cache not used: the history is shorter than it covers", cpath)
        _detach(con)
        return False
    if size - covered > covered:
        # More new bytes than covered ones: a full read costs at most twice this one.
        log.debug("%s: cache not used: the history has more than doubled", cpath)
        _detach(con)
        return False
    with contextlib.ExitStack() as stack:  # the copy of the new lines lives until the end
        try:
            return _read_checked(
                con,
                f,
                version,
                load,
                stack,
                meta,
                st,
                read_ns,
                load_files,
                drop,
                new_load,
                min_lines,
            )
        except (OSError, duckdb.Error, SqlPackError) as e:
            # A file that vanished or changed under us, or a cache whose tables are not
            # what its meta says: a full read decides (and reports a real problem itself).
            _discard(con, drop)
            if interrupted(e):
                raise
            log.debug("%s: cache not used: %s", cpath, e)
            return False


def _read_checked(
    con: duckdb.DuckDBPyConnection,
    f: sources.SourceFile,
    version: str,
    load: Any,
    stack: contextlib.ExitStack,
    meta: dict[str, Any],
    st: os.stat_result,
    read_ns: int,
    load_files: Loader,
    drop: Dropper,
    new_load: Callable[[], Any],
    min_lines: int,
) -> bool:
    cpath = cache_path(f.path)
    covered, covered_lines = int(meta["size"]), int(meta["lines"])
    tail_load = None
    tail = _Tail()
    tmp = ""
    trusted = _same_file(meta, st)
    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(_no_hash if trusted else _hash_prefix, f.path, covered)
        try:
            if st.st_size > covered:
                tmp, tail = stack.enter_context(_tail_copy(f.path, covered))
                tail_load = new_load()
                load_files(
                    con,
                    [sources.SourceFile(path=tmp, display=f.display)],
                    version,
                    tail_load,
                    False,
                )
                con.execute("CREATE OR REPLACE TEMP TABLE _hc_tail AS SELECT * FROM history")
            for name in ("history", "history_current", "history_issues", "history_version_lines"):
                drop(con, name)
            sqlpack.execute(
                con,
                sqlpack.load(PACK, version, _READ),
                {"display": f.display, "offset": covered_lines},
            )
        except BaseException:
            digest.cancel()
            raise
        h = digest.result()
    if not trusted and (h is None or h.hexdigest() != meta["sha256"]):
        log.debug("%s: cache not used: the history's first %d bytes changed", cpath, covered)
        _discard(con, drop)
        return False
    issues = [
        LineIssue(f.display, int(line), str(reason))
        for line, reason in con.execute(
            "SELECT line, reason FROM _rs_cache.issues ORDER BY line, reason"
        ).fetchall()
    ]
    reader = "cache"
    if tail_load is not None:
        reader = f"cache+{tail_load.reader}"
        issues.extend(
            LineIssue(i.file, i.line + covered_lines if i.line > 0 else 0, i.reason)
            for i in tail_load.issues
        )
    rows = con.execute("SELECT scoring_version, lines FROM history_version_lines ORDER BY 1")
    versions = {str(s): int(n) for s, n in rows.fetchall()}
    # Nothing above touched `load`: a failure on the way leaves it as it was.
    load.reader, load.issues, load.versions = reader, issues, versions
    load.lines = sum(versions.values())
    if h is not None and tail.last == b"\n" and tail.lines >= max(min_lines, 1):
        # Enough new lines to be worth covering: the cache is rewritten from what was
        # just read (the covered bytes' hash, continued over the copy of the new ones
        # that was typed). The file's identity is kept only if it did not grow meanwhile.
        end = covered + tail.size
        if _hash_more(h, tmp, 0, tail.size):
            now = _stat(f.path)
            write(
                con,
                f.path,
                version,
                load.issues,
                size=end,
                sha256=h.hexdigest(),
                lines=covered_lines + tail.lines,
                st=now if now is not None and now.st_size == end else None,
                read_ns=read_ns,
            )
    return True


def _no_hash(path: str, size: int) -> None:
    return None


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _same_file(meta: dict[str, Any], st: os.stat_result) -> bool:
    """The file is the one the cache was made from, by its identity (see the docstring)."""
    if meta.get("ctime_ns") is None or meta.get("read_ns") is None:
        return False
    return bool(
        meta["dev"] == st.st_dev
        and meta["ino"] == st.st_ino
        and meta["size"] == st.st_size
        and meta["mtime_ns"] == st.st_mtime_ns
        and meta["ctime_ns"] == st.st_ctime_ns
        and meta["ctime_ns"] < meta["read_ns"] - _RACY_NS
    )


def _discard(con: duckdb.DuckDBPyConnection, drop: Dropper) -> None:
    for name in (*_RELATIONS, "history", "history_current", "history_issues"):
        drop(con, name)
    for name in ("history_version_lines", "_hf_file", "_hf_typed", "history_fast_check"):
        drop(con, name)
    _detach(con)


def write_after_full_read(
    con: duckdb.DuckDBPyConnection,
    f: sources.SourceFile,
    version: str,
    issues: list[LineIssue],
    min_lines: int,
    read_ns: int,
) -> None:
    """Cache what a full read of ``f`` produced, when it is worth it and certainly exact.

    Needs the pre-scan's SHA-256 (``digest=True``), a file that ends with a newline (a torn
    last line stays outside, to be read again), and a file that did not change while it
    was read (same size and mtime as the pre-scan saw).
    """
    if f.error is not None or not f.sha256 or f.lines < max(min_lines, 1):
        return
    try:
        st = os.stat(f.path)
        with open(f.path, "rb") as fh:
            fh.seek(f.size - 1)
            last = fh.read(1)
    except OSError:
        return
    if st.st_size != f.size or st.st_mtime_ns != f.mtime_ns or last != b"\n":
        log.debug("%s: not cached: changed while read, or no final newline", f.display)
        return
    write(
        con,
        f.path,
        version,
        issues,
        size=f.size,
        sha256=f.sha256,
        lines=f.lines,
        st=st,
        read_ns=read_ns,
    )


def write(
    con: duckdb.DuckDBPyConnection,
    history_path: str,
    version: str,
    issues: list[LineIssue],
    *,
    size: int,
    sha256: str,
    lines: int,
    st: os.stat_result | None,
    read_ns: int,
) -> None:
    """Write the cache of the first ``lines`` lines (``size`` bytes) from ``history``.

    ``st``: the file's stat when those bytes were all it held (None: unknown, so a later
    read always hashes); ``read_ns``: the clock just before the read began.

    Best effort: a failure is logged and leaves any previous cache as it was. The new file
    is complete before it replaces the old one, so a reader sees one or the other.
    """
    cpath = cache_path(history_path)
    with contextlib.suppress(OSError):
        mode = os.lstat(cpath).st_mode
        # A FIFO (a device, a socket) is not runscore's to replace, as the extract manifest
        # is not: left as it is, with no cache (it is never read: ``read`` wants a file).
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
            log.debug("%s: not cached: not a regular file", cpath)
            return
    tmp = ""
    try:
        # ``history.temp_name``'s: what a killed write left (a mkstemp name, for good)
        # goes with the next write of the cache.
        history.remove_left_temps(cpath)
        tmp = history.temp_name(cpath)
        for p in (tmp, tmp + ".wal"):  # a dead process's, whose PID this one has now
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)  # DuckDB creates the database file itself
        sources.load_table(
            con,
            "_hc_issues_in",
            {
                "line": ("BIGINT", [i.line for i in issues]),
                "reason": ("VARCHAR", [i.reason for i in issues]),
            },
        )
        con.execute("ATTACH $p AS _rs_cache_new (TYPE DUCKDB)", {"p": tmp})
        try:
            sqlpack.execute(
                con,
                sqlpack.load(PACK, version, _WRITE),
                {
                    "lines": lines,
                    "format": CACHE_FORMAT,
                    "key": cache_key(version),
                    "size": size,
                    "sha256": sha256,
                    "dev": st.st_dev if st else None,
                    "ino": st.st_ino if st else None,
                    "mtime_ns": st.st_mtime_ns if st else None,
                    "ctime_ns": st.st_ctime_ns if st else None,
                    "read_ns": read_ns,
                },
            )
            # Whole in the file itself before the rename below, not partly in a WAL
            # beside it: in-memory connections never checkpoint on their own
            # (runscore.engine.db), and DETACH's own checkpoint depends on a setting.
            con.execute("CHECKPOINT _rs_cache_new")
        finally:
            con.execute("DETACH DATABASE IF EXISTS _rs_cache_new")
            con.execute("DROP TABLE IF EXISTS _hc_issues_in")
        os.replace(tmp, cpath)
        tmp = ""
        log.debug("%s: cached %d lines", cpath, lines)
    except (OSError, duckdb.Error, SqlPackError) as e:
        if interrupted(e):
            raise  # after the temporary file is removed (below)
        log.debug("%s: not cached: %s", cpath, e)
    finally:
        if tmp:
            for p in (tmp, tmp + ".wal"):
                with contextlib.suppress(OSError):
                    os.unlink(p)
