"""The one loader of versioned SQL.

Every pack keeps its SQL under ``runscore/sql/<pack>/<version>/NNN_concern.sql``
(package data); macros more than one pack calls live in ``runscore/sql/common/<version>/``,
versioned as a pack is, and each pack names the common version its files were written
against (``run_common``). This module is the only place that reads those files, so a file
missing from an installed wheel fails here, loudly, and the tests that run from a
non-editable install catch it.

Values never enter SQL by string formatting: each statement's ``$name``
parameters are discovered with DuckDB's own parser (``extract_statements``) and
bound from the mapping the caller passes.
"""

from __future__ import annotations

import logging
import queue
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from runscore.engine import db
from runscore.engine.duck import duckdb
from runscore.engine.errors import SqlPackError
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

_FILE_RE = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
#: Per-statement timings at DEBUG level (RUNSCORE_LOG=debug in the CLI).
log = logging.getLogger("runscore.sql")


@dataclass(frozen=True)
class SqlFile:
    pack: str
    version: str
    name: str
    text: str

    @property
    def ref(self) -> str:
        return f"{self.pack}/{self.version}/{self.name}"


#: The folder of SQL that more than one pack calls (macros only: no table, no input). Not a
#: pack: nothing scores with it alone.
COMMON = "common"


def _root() -> Traversable:
    return resources.files("runscore.sql")


def packs() -> list[str]:
    return sorted(p.name for p in _root().iterdir() if p.is_dir() and not p.name.startswith("_"))


def versions(pack: str) -> list[str]:
    """Versions of a pack, oldest first (``archeflow-legacy`` sorts before ``v1``)."""
    d = _root() / pack
    if not d.is_dir():
        raise SqlPackError(f"unknown SQL pack {quote(pack)}")
    names = [p.name for p in d.iterdir() if p.is_dir() and not p.name.startswith("_")]
    return sorted(names, key=_version_key)


def _version_key(v: str) -> tuple[int, int, str]:
    m = re.fullmatch(r"v(\d+)", v)
    if m:
        return (1, int(m.group(1)), v)
    return (0, 0, v)


def latest_version(pack: str) -> str:
    vs = [v for v in versions(pack) if re.fullmatch(r"v\d+", v)]
    if not vs:
        raise SqlPackError(f"SQL pack {quote(pack)} has no vN version")
    return vs[-1]


@cache
def files(pack: str, version: str) -> tuple[SqlFile, ...]:
    """All SQL files of one pack version, in NNN order."""
    d = _root() / pack / version
    if not d.is_dir():
        raise SqlPackError(
            f"unknown SQL version {quote(version)} of {pack} (have: {', '.join(versions(pack))})"
        )
    out: list[SqlFile] = []
    for p in d.iterdir():
        if p.name.endswith(".sql"):
            if not _FILE_RE.match(p.name):
                raise SqlPackError(f"bad SQL file name {quote_path(f'{pack}/{version}/{p.name}')}")
            out.append(SqlFile(pack, version, p.name, p.read_text(encoding="utf-8")))
    out.sort(key=lambda f: f.name)
    if not out:
        raise SqlPackError(f"SQL version {quote(version)} of {pack} has no .sql files")
    return tuple(out)


def load(pack: str, version: str, name: str) -> SqlFile:
    """One SQL file by name, with or without the ``NNN_`` prefix and ``.sql`` suffix."""
    for f in files(pack, version):
        stem = f.name[:-4]
        if name in (f.name, stem, stem[4:]):
            return f
    raise SqlPackError(f"no SQL file {quote(name)} in {pack}/{version}")


def resource_text(pack: str, version: str, name: str) -> str:
    """A non-SQL resource (JSON schema, CSV) shipped beside a pack version."""
    p = _root() / pack / version / name
    if not p.is_file():
        raise SqlPackError(f"no resource {pack}/{version}/{name}")
    return p.read_text(encoding="utf-8")


def execute(
    con: duckdb.DuckDBPyConnection,
    sql: SqlFile | str,
    params: Mapping[str, Any] | None = None,
) -> duckdb.DuckDBPyConnection:
    """Run every statement of ``sql``, binding each one's ``$name`` parameters.

    Returns the connection after the last statement, so a trailing SELECT can be
    fetched (``execute(...).to_arrow_table()``).
    """
    text = sql.text if isinstance(sql, SqlFile) else sql
    ref = sql.ref if isinstance(sql, SqlFile) else "<inline>"
    params = params or {}
    # The connection's own parser: the module-level duckdb.extract_statements opens
    # DuckDB's default in-memory database on first use, a second database per process
    # (0.025-0.045 s of a ~1 s incremental extract, measured).
    stmts = con.extract_statements(text)
    if not stmts:
        raise SqlPackError(f"{ref}: no statement")
    cur: duckdb.DuckDBPyConnection = con
    for st in stmts:
        names = sorted(st.named_parameters)
        missing = [n for n in names if n not in params]
        if missing:
            raise SqlPackError(f"{ref}: missing bind parameter(s) {', '.join(missing)}")
        if db.stopping():
            # Ctrl-C: as if DuckDB had interrupted this statement (``errors.interrupted``)
            raise SqlPackError(f"{ref}: interrupted") from KeyboardInterrupt()
        t0 = time.perf_counter()
        try:
            if names:
                cur = con.execute(st, {n: params[n] for n in names})
            else:
                cur = con.execute(st)
        except duckdb.Error as e:
            raise SqlPackError(f"{ref}: {e}") from e
        log.debug("%s [%s] %.3fs", ref, st.type.name, time.perf_counter() - t0)
    return cur


def run_pack(
    con: duckdb.DuckDBPyConnection,
    pack: str,
    version: str,
    params: Mapping[str, Any] | None = None,
    *,
    only: Iterable[str] | None = None,
) -> None:
    """Run a pack version's files in NNN order (optionally only some of them)."""
    wanted = set(only) if only is not None else None
    for f in files(pack, version):
        if wanted is not None and f.name not in wanted and f.name[:-4] not in wanted:
            continue
        execute(con, f, params)


def run_common(con: duckdb.DuckDBPyConnection, version: str) -> None:
    """Define the shared macros of ``sql/common/<version>`` on ``con`` (TEMP, so run it
    apart from a range that runs on several connections: ``plan`` shares no TEMP object).

    A pack runs the version its own version was written against, pinned in the pack's
    module as ``COMMON_VERSION``: a later common version cannot change a released pack's
    output."""
    run_pack(con, COMMON, version)


def header(f: SqlFile) -> str:
    """The leading comment block of a SQL file (its documented contract)."""
    lines = []
    for line in f.text.splitlines():
        if line.startswith("--"):
            lines.append(line[2:].strip())
        elif line.strip() == "" and not lines:
            continue
        else:
            break
    return "\n".join(lines)


def range_files(pack: str, version: str, lo: int, hi: int) -> tuple[SqlFile, ...]:
    """The files numbered ``lo``..``hi`` (inclusive) of a pack version, in NNN order."""
    return tuple(f for f in files(pack, version) if lo <= int(f.name[:3]) <= hi)


def run_range(
    con: duckdb.DuckDBPyConnection,
    pack: str,
    version: str,
    lo: int,
    hi: int,
    params: Mapping[str, Any] | None = None,
    *,
    workers: int = 1,
    common: str | None = None,
) -> None:
    """Run the files numbered ``lo``..``hi`` (inclusive) of a pack version.

    Packs use number ranges as stages (e.g. effectiveness: 000-099 extract,
    100-199 report), so one version folder holds every concern of that version.

    ``workers`` > 1: files that touch none of each other's objects run at the same time,
    on that many connections to ``con``'s database (``plan``). DuckDB parallelises one
    statement by row groups of 122,880 rows, so on the tables of a few thousand runs a
    statement runs on about one core, and two independent files on two. Only a range
    that creates no TEMP object can be shared so (another connection cannot see them):
    any other runs file by file, as with one worker.

    ``common``: the common version the files call (``run_common``), which the caller ran
    on ``con``: each connection opened for the workers runs it too, as a TEMP macro of
    ``con`` is not seen there.
    """
    chosen = range_files(pack, version, lo, hi)
    after = plan(chosen) if workers > 1 and len(chosen) > 1 else None
    if after is None:
        for f in chosen:
            execute(con, f, params)
        return
    _run_planned(con, chosen, after, params, workers, common=common)


# Words of SQL text outside comments: a string literal is kept whole (and its words
# counted), so that "--" inside one does not hide what follows it.
_LEXEME_RE = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_NAME = r"(?:[A-Za-z_][A-Za-z0-9_]*\.)?([A-Za-z_][A-Za-z0-9_]*)"
#: Statements that create, replace, change or drop the object they name.
_WRITE_RE = re.compile(
    r"\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?"
    r"(?:TABLE|VIEW|MACRO|FUNCTION|SEQUENCE|TYPE)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"|DROP\s+(?:TABLE|VIEW|MACRO|FUNCTION|SEQUENCE|TYPE)\s+(?:IF\s+EXISTS\s+)?"
    r"|ALTER\s+(?:TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?|RENAME\s+TO\s+"
    r"|INSERT\s+(?:OR\s+[A-Za-z]+\s+)?INTO\s+|UPDATE\s+|DELETE\s+FROM\s+|TRUNCATE\s+)" + _NAME,
    re.I,
)
#: Objects expanded where they are used (their text is read each time).
_EXPANDS_RE = re.compile(
    r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:VIEW|MACRO|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?" + _NAME,
    re.I,
)
_TEMP_RE = re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\b", re.I)
#: How a statement may open in a file that can share a plan: a query, or a write the
#: plan can name (``_WRITE_RE`` at its start). Anything else — a SET or PRAGMA (one
#: connection's state), an index, COPY, ATTACH, a quoted name — gives no plan.
_READ_HEADS = frozenset({"select", "with", "from", "values", "table"})
_WRITE_HEADS = frozenset({"create", "drop", "alter", "insert", "update", "delete", "truncate"})


def _plannable(code: str) -> bool:
    """Is every statement of ``code`` (comments and strings blanked) one ``plan`` knows?"""
    for stmt in code.split(";"):
        stmt = stmt.strip()
        head = stmt.split(None, 1)[0].lower() if stmt else ""
        if not head or head in _READ_HEADS:
            continue
        if head not in _WRITE_HEADS:
            return False
        m = _WRITE_RE.match(stmt)
        # The name must end there: a quoted or odd one would be a write the plan misses.
        if m is None or (len(stmt) > m.end() and not re.match(r"[\s(;]", stmt[m.end()])):
            return False
    return True


def _strip_comments(text: str, strings: bool = False) -> str:
    """``text`` without its comments (and, if ``strings``, its string literals; a
    double-quoted identifier is a name, and stays)."""

    def blank(m: re.Match[str]) -> str:
        lexeme = m.group(0)
        if lexeme.startswith(("--", "/*")) or (strings and lexeme.startswith("'")):
            return " "
        return lexeme

    return _LEXEME_RE.sub(blank, text)


@cache
def plan(chosen: tuple[SqlFile, ...]) -> tuple[frozenset[int], ...] | None:
    """For each file of ``chosen`` (in run order), the earlier files it must wait for.

    None when the files cannot run on several connections: one creates a TEMP object,
    or has a statement the plan cannot account for (``_plannable``).

    Derived from the SQL itself, not declared: a file *writes* the objects its statements
    create, replace, alter, fill or drop, and *mentions* every word of its text outside
    comments (more than the objects it reads: a column or a function of the same name as
    a table adds a wait, never a race). A view or a macro is read through, as DuckDB
    expands it where it is used: a file that mentions one an earlier file made also
    mentions whatever that file mentions (a table is not: its rows are made once). File
    j then waits for an earlier file i when j mentions what i writes (j reads it after
    i), or i mentions what j writes (i must read the old one before j replaces it). Waits
    only ever point to earlier files, so the plan runs each object's readers and writers
    in file order: what each file sees is what it would see with the files run one by one.
    """
    texts = [_strip_comments(f.text) for f in chosen]
    code = [_strip_comments(f.text, strings=True) for f in chosen]
    if any(_TEMP_RE.search(t) or not _plannable(t) for t in code):
        return None
    writes = [frozenset(m.group(1).lower() for m in _WRITE_RE.finditer(t)) for t in code]
    expands = [frozenset(m.group(1).lower() for m in _EXPANDS_RE.finditer(t)) for t in code]
    words = [frozenset(w.lower() for w in _WORD_RE.findall(t)) for t in texts]
    seen: list[frozenset[str]] = []  # words, read through views and macros
    after: list[frozenset[int]] = []
    for j in range(len(chosen)):
        mine = set(words[j])
        for i in range(j):
            if expands[i] & words[j]:
                mine |= seen[i]
        seen.append(frozenset(mine))
        after.append(frozenset(i for i in range(j) if writes[i] & seen[j] or writes[j] & seen[i]))
    return tuple(after)


def _run_planned(
    con: duckdb.DuckDBPyConnection,
    chosen: Sequence[SqlFile],
    after: Sequence[frozenset[int]],
    params: Mapping[str, Any] | None,
    workers: int,
    common: str | None = None,
) -> None:
    """Run ``chosen`` on ``workers`` connections, each file once what it waits for is done.

    A file's failure stops the plan: nothing more is started, what runs is waited for,
    and the error of the first failed file (in file order, of the files that ran: an
    earlier file still waiting when a later one failed never starts) is raised. An interrupt
    (Ctrl-C) interrupts every connection.
    """
    from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

    cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
    opened = [db.cursor(con) for _ in range(workers - 1)]
    if common is not None:
        try:
            for c in opened:
                run_common(c, common)
        except BaseException:
            for c in opened:
                c.close()
            raise
    for c in [con, *opened]:
        cursors.put(c)

    def run_one(i: int) -> None:
        c = cursors.get()
        try:
            execute(c, chosen[i], params)
        finally:
            cursors.put(c)

    # Of the files ready, those that more files wait for (directly or through others)
    # start first: they head the longest chains (at 10k runs, 030's verdicts before 015).
    below: list[set[int]] = [set() for _ in chosen]
    for j in range(len(chosen)):
        for i in after[j]:
            below[i].add(j)
    for i in reversed(range(len(chosen))):
        for j in list(below[i]):
            below[i] |= below[j]
    done: set[int] = set()
    running: dict[Future[None], int] = {}
    failed: dict[int, BaseException] = {}
    todo = sorted(range(len(chosen)), key=lambda i: (-len(below[i]), i))
    unwinding = False

    def interrupt_all() -> None:
        for c in [con, *opened]:
            c.interrupt()

    try:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="runscore-sql") as pool:
            try:
                while todo or running:
                    if not failed:
                        for i in [i for i in todo if after[i] <= done][: workers - len(running)]:
                            todo.remove(i)
                            running[pool.submit(run_one, i)] = i
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        i = running.pop(fut)
                        err = fut.exception()
                        if err is None:
                            done.add(i)
                        else:
                            failed[i] = err
            except BaseException:
                interrupt_all()
                raise
    except BaseException:
        # Also what cut the pool's wait for its threads short (a second Ctrl-C): a thread
        # may still run a statement on its cursor.
        unwinding = True
        interrupt_all()
        raise
    finally:
        for c in opened:
            try:
                c.close()
            except duckdb.Error:
                # "connection is busy": a thread still runs on it. The error on its way
                # out (a Ctrl-C: exit 130) is what to report, not this one, which would
                # read as a broken input (nightly: exit 1, a traceback).
                if not unwinding:
                    raise
    if failed:
        raise failed[min(failed)]
