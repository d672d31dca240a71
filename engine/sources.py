"""Input discovery and the JSONL reader every pack uses.

Design: one DuckDB ``read_json`` pass over all files (the fast path) and a
careful path only for files that need it.

* A streaming pre-scan (C-speed ``bytes`` operations on 8 MiB chunks, never a
  per-line loop) computes each file's size, SHA-256, number of lines and whether
  it is plain UTF-8 without ``NaN``/``Infinity`` tokens (DuckDB's JSON parser
  accepts those; the spec does not).
* Clean files are read together by one ``read_json`` into a table. Rows keep
  insertion order, so a row's line number is its position in its file: exact
  whenever the file's record count equals its line count. A file whose counts
  differ (blank lines, malformed lines), or which has a row that is not a JSON
  object, goes to the careful path.
* The careful path checks each line of a dirty file in Python (UTF-8, strict
  JSON, object, size), reports ``file:line: reason`` for the bad ones, writes
  the good lines to a spool file and reads that with the same ``read_json``,
  mapping rows back to their original line numbers.

Field-level validation (e.g. "lacks a run_id") is the pack's business, in SQL:
the reader only guarantees one row per JSON-object line, with ``_file``,
``_line`` and a global ``_ord`` that follows the deterministic input order.
"""

from __future__ import annotations

import glob as globmod
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from runscore.engine.errors import UsageError

CHUNK = 8 << 20
#: Lines longer than this are reported and skipped (keeps memory bounded).
DEFAULT_MAX_LINE_BYTES = 64 << 20


@dataclass(frozen=True)
class LineIssue:
    file: str
    line: int
    reason: str

    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line > 0 else self.file

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "reason": self.reason}


@dataclass
class SourceFile:
    """One input file. ``display`` is what diagnostics print; ``path`` is read."""

    path: str
    display: str
    size: int = 0
    mtime_ns: int = 0
    sha256: str = ""
    lines: int = 0  # '\n'-separated segments, a final empty segment not counted
    clean: bool = True  # pre-scan found nothing that needs the careful path
    error: str | None = None  # unreadable: the whole file is skipped


@dataclass
class ReadResult:
    table: str
    files: list[SourceFile]
    skipped: list[LineIssue] = field(default_factory=list)
    rows: int = 0

    @property
    def unreadable(self) -> list[SourceFile]:
        return [f for f in self.files if f.error is not None]


# --------------------------------------------------------------------------- discovery


def discover(
    paths: Sequence[str],
    *,
    pattern: str = "*.jsonl",
    stdin_spool_dir: str | None = None,
) -> tuple[list[SourceFile], list[LineIssue]]:
    """Expand files, directories (recursive ``pattern``), globs and ``-`` (stdin).

    Order is deterministic: the paths as given; a directory's or glob's files in
    sorted path order. A path that is missing or unreadable is reported, not fatal.
    The same file named twice is read once.
    """
    out: list[SourceFile] = []
    issues: list[LineIssue] = []
    seen: set[str] = set()

    def add(p: str, display: str) -> None:
        key = os.path.realpath(p)
        if key in seen:
            return
        seen.add(key)
        out.append(SourceFile(path=p, display=display))

    for raw in paths:
        if raw == "-":
            spool = _spool_stdin(stdin_spool_dir)
            out.append(SourceFile(path=spool, display="<stdin>"))
            continue
        if os.path.isdir(raw):
            found, errs = _walk(raw, pattern)
            issues.extend(errs)
            for p in found:
                add(p, p)
            continue
        if os.path.exists(raw) or os.path.islink(raw):
            add(raw, raw)
            continue
        if globmod.has_magic(raw):
            matches = sorted(globmod.glob(raw, recursive=True))
            files = [m for m in matches if os.path.isfile(m)]
            for m in matches:
                if os.path.isdir(m):
                    found, errs = _walk(m, pattern)
                    issues.extend(errs)
                    files.extend(found)
            if not files:
                issues.append(LineIssue(raw, 0, "no file matches this pattern"))
            for p in sorted(set(files)):
                add(p, p)
            continue
        issues.append(LineIssue(raw, 0, "no such file or directory"))
    return out, issues


def _walk(root: str, pattern: str) -> tuple[list[str], list[LineIssue]]:
    found: list[str] = []
    issues: list[LineIssue] = []

    def onerror(e: OSError) -> None:
        issues.append(LineIssue(str(e.filename or root), 0, f"cannot read directory: {e.strerror}"))

    import fnmatch

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror):
        dirnames.sort()
        for fn in filenames:
            if fnmatch.fnmatch(fn, pattern):
                found.append(os.path.join(dirpath, fn))
    found.sort()
    return found, issues


def _spool_stdin(spool_dir: str | None) -> str:
    fd, name = tempfile.mkstemp(prefix="runscore-stdin-", suffix=".jsonl", dir=spool_dir)
    with os.fdopen(fd, "wb") as f:
        shutil.copyfileobj(sys.stdin.buffer, f, CHUNK)
    return name


# --------------------------------------------------------------------------- pre-scan


def prescan(sf: SourceFile) -> SourceFile:
    """Hash and classify one file in a streaming pass (no per-line Python loop)."""
    try:
        st = os.stat(sf.path)
        if not stat.S_ISREG(st.st_mode):
            sf.error = "not a regular file"
            return sf
        sf.size = st.st_size
        sf.mtime_ns = st.st_mtime_ns
        h = hashlib.sha256()
        newlines = 0
        clean = True
        prev_tail = b""
        last = b""
        ascii_only = True
        with open(sf.path, "rb") as f:
            while True:
                chunk = f.read(CHUNK)
                if not chunk:
                    break
                h.update(chunk)
                newlines += chunk.count(b"\n")
                if clean:
                    probe = prev_tail + chunk
                    if b"NaN" in probe or b"Infinity" in probe or b"\x00" in probe:
                        clean = False
                    if ascii_only and not chunk.isascii():
                        ascii_only = False
                    prev_tail = chunk[-8:]
                last = chunk[-1:]
        if clean and not ascii_only:
            clean = _utf8_ok(sf.path)
        sf.sha256 = h.hexdigest()
        sf.lines = newlines + (1 if last not in (b"", b"\n") else 0)
        sf.clean = clean
    except OSError as e:
        sf.error = f"cannot read file: {e.strerror or e}"
    return sf


def _utf8_ok(path: str) -> bool:
    import codecs

    dec = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        with open(path, "rb") as f:
            while True:
                chunk = f.read(CHUNK)
                if not chunk:
                    dec.decode(b"", final=True)
                    return True
                dec.decode(chunk)
    except UnicodeDecodeError:
        return False


# --------------------------------------------------------------------------- reader


def _read_json_sql(max_obj: int) -> str:
    # The file list and the column map are bind parameters, never formatted in.
    return (
        "SELECT * FROM read_json($files, format='newline_delimited', columns=$columns, "
        f"filename='_path', ignore_errors=true, maximum_object_size={int(max_obj)})"
    )


def read_jsonl(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[SourceFile],
    table: str,
    columns: Mapping[str, str],
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    spool_dir: str | None = None,
) -> ReadResult:
    """Read JSONL ``files`` into table ``table`` (replaced if it exists).

    ``columns`` maps top-level field names to DuckDB types (``JSON`` keeps a
    field raw; extract in SQL). The table gets ``_file`` (display path),
    ``_line`` (1-based line in the file), ``_ord`` (global input order) and the
    declared columns. Files must have been pre-scanned (``prescan``); an
    unreadable one is skipped and listed in ``ReadResult.unreadable``.
    """
    if not table.isidentifier():
        raise UsageError(f"bad table name {table!r}")
    cols = dict(columns)
    # Sentinel column: a row whose line was not a JSON object (or was malformed)
    # comes back from ignore_errors with every column null; `_obj` lets SQL tell
    # an object that merely lacks fields from a line that is not an object.
    readable = [f for f in files if f.error is None and f.size > 0]
    result = ReadResult(table=table, files=list(files))
    col_defs = ", ".join(f'"{k}" {v}' for k, v in cols.items())
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {table} "
        f"(_file VARCHAR, _line BIGINT, _ord BIGINT, {col_defs})"
    )
    if not readable:
        return result

    fast = [f for f in readable if f.clean]
    dirty = [f for f in readable if not f.clean]
    display_of = {f.path: f.display for f in readable}
    order_of = {f.path: i for i, f in enumerate(readable)}
    stage = f"_stage_{table}"

    if fast:
        _stage(con, stage, [f.path for f in fast], cols, max_line_bytes)
        # Per-file counts decide whether rows are aligned with lines.
        counts = {
            r[0]: (int(r[1]), int(r[2]))
            for r in con.execute(
                f"SELECT _path, count(*) FILTER (WHERE NOT _nonobj), count(*) "
                f"FROM {stage} GROUP BY _path"
            ).fetchall()
        }
        bad_paths: list[str] = []
        for f in fast:
            ok, total = counts.get(f.path, (0, 0))
            if total != f.lines or ok != total:
                bad_paths.append(f.path)
        bad = set(bad_paths)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _paths (path VARCHAR, display VARCHAR, ord BIGINT)"
        )
        con.executemany(
            "INSERT INTO _paths VALUES (?, ?, ?)",
            [(p, display_of[p], order_of[p]) for p in [f.path for f in fast] if p not in bad],
        )
        sel = ", ".join(f's."{k}"' for k in cols)
        con.execute(
            f"""
            INSERT INTO {table}
            SELECT p.display,
                   s._rid - min(s._rid) OVER (PARTITION BY s._path) + 1,
                   0, {sel}
            FROM {stage} s JOIN _paths p ON p.path = s._path
            """
        )
        con.execute(f"DROP TABLE {stage}")
        dirty.extend(f for f in fast if f.path in bad)

    for f in sorted(dirty, key=lambda x: order_of[x.path]):
        issues = _careful(con, f, table, cols, max_line_bytes, spool_dir)
        result.skipped.extend(issues)

    # Global deterministic order: input order of files, then line.
    con.execute("CREATE OR REPLACE TEMP TABLE _paths (display VARCHAR, ord BIGINT)")
    con.executemany(
        "INSERT INTO _paths VALUES (?, ?)", [(f.display, order_of[f.path]) for f in readable]
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE _ordered_{table} AS
        SELECT t._file, t._line,
               row_number() OVER (ORDER BY p.ord, t._line) AS _ord,
               t.* EXCLUDE (_file, _line, _ord)
        FROM {table} t JOIN _paths p ON p.display = t._file
        ORDER BY p.ord, t._line
        """
    )
    con.execute(f"DROP TABLE {table}")
    con.execute(f"ALTER TABLE _ordered_{table} RENAME TO {table}")
    result.rows = int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
    result.skipped.sort(key=lambda i: (order_of.get(_path_of(readable, i.file), 0), i.line))
    return result


def _path_of(files: Iterable[SourceFile], display: str) -> str:
    for f in files:
        if f.display == display:
            return f.path
    return display


def _stage(
    con: duckdb.DuckDBPyConnection,
    stage: str,
    paths: list[str],
    cols: Mapping[str, str],
    max_line_bytes: int,
) -> None:
    # `_rid` is the table's insertion order: read_json keeps file order and row
    # order with preserve_insertion_order, which is what makes `_line` exact.
    probe = dict(cols)
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE {stage} AS
        SELECT row_number() OVER () AS _rid, *,
               ({' AND '.join(f'"{k}" IS NULL' for k in probe)}) AS _nonobj
        FROM ({_read_json_sql(max_line_bytes + 1024)})
        """,
        {"files": paths, "columns": probe},
    )


def _careful(
    con: duckdb.DuckDBPyConnection,
    f: SourceFile,
    table: str,
    cols: Mapping[str, str],
    max_line_bytes: int,
    spool_dir: str | None,
) -> list[LineIssue]:
    issues: list[LineIssue] = []
    good_lines: list[int] = []
    fd, spool = tempfile.mkstemp(prefix="runscore-clean-", suffix=".jsonl", dir=spool_dir)
    try:
        with os.fdopen(fd, "wb") as out, open(f.path, "rb") as src:
            lineno = 0
            while True:
                raw = src.readline(max_line_bytes + 2)
                if not raw:
                    break
                lineno += 1
                if len(raw) > max_line_bytes + 1 and not raw.endswith(b"\n"):
                    # Oversized: report, then skip to the end of this line in chunks.
                    while raw and not raw.endswith(b"\n"):
                        raw = src.readline(CHUNK)
                    issues.append(
                        LineIssue(f.display, lineno, f"line longer than {max_line_bytes} bytes")
                    )
                    continue
                line = raw.rstrip(b"\n")
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not line.strip():
                    continue
                reason = _check_line(line)
                if reason is not None:
                    issues.append(LineIssue(f.display, lineno, reason))
                    continue
                out.write(line)
                out.write(b"\n")
                good_lines.append(lineno)
        if good_lines:
            stage = f"_stage_{table}"
            _stage(con, stage, [spool], cols, max_line_bytes)
            n = int(con.execute(f"SELECT count(*) FROM {stage}").fetchall()[0][0])
            if n != len(good_lines):
                # DuckDB disagreed with Python's JSON parser on some line; the file
                # cannot be aligned reliably, so say so instead of guessing lines.
                issues.append(
                    LineIssue(f.display, 0, "file could not be aligned line by line; skipped")
                )
                con.execute(f"DROP TABLE {stage}")
                return issues
            lines_tbl = pa.table({"_rid": pa.array(range(1, n + 1), pa.int64()),
                                  "_orig": pa.array(good_lines, pa.int64())})
            con.register("_careful_lines", lines_tbl)
            sel = ", ".join(f's."{k}"' for k in cols)
            con.execute(
                f"INSERT INTO {table} SELECT $display, l._orig, 0, {sel} "
                f"FROM {stage} s JOIN _careful_lines l ON l._rid = s._rid",
                {"display": f.display},
            )
            con.unregister("_careful_lines")
            con.execute(f"DROP TABLE {stage}")
    except OSError as e:
        issues.append(LineIssue(f.display, 0, f"cannot read file: {e.strerror or e}"))
    finally:
        try:
            os.unlink(spool)
        except OSError:
            pass
    return issues


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _check_line(line: bytes) -> str | None:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not valid UTF-8 (byte {e.start + 1})"
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return "not JSON: nested too deeply"
    except ValueError as e:
        return f"not JSON: {e}"
    if not isinstance(obj, dict):
        return f"not a JSON object ({type(obj).__name__})"
    return None


def describe(files: Iterable[SourceFile]) -> list[dict[str, object]]:
    """Manifest rows (path, size, mtime, hash) for files that were read."""
    return [
        {"path": str(Path(f.path)), "size": f.size, "mtime_ns": f.mtime_ns, "sha256": f.sha256}
        for f in files
        if f.error is None
    ]
