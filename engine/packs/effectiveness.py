"""Effectiveness pack, extract side: ArcheFlow run logs → per-run archetype scores.

Data flow: files → ``raw_events`` (``sources.read_jsonl``) → the version's extract SQL
(files 000–099 of ``sql/effectiveness/<version>/``) → ``history_records`` →
append-only history (and ``ExtractResult.records``, Arrow, when asked for). Every
formula lives in the SQL; this module orchestrates.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "score_runs",
    "extract",
    "ExtractResult",
    "RunIssue",
    "locations_said",
    "refuse_kept_beside",
    "DEFAULT_HISTORY",
    "DEFAULT_VERSION",
    "INCOMPLETE_REASON",
]

import contextlib
import datetime as dt
import functools
import hashlib
import json
import os
import re
import stat
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from runscore.engine import db, duck, filedigest, history, process, sources, sqlpack
from runscore.engine.duck import duckdb
from runscore.engine.errors import (
    Arg,
    CannotAccess,
    HistoryError,
    LockTimeout,
    NothingReadable,
    RejectedInputWarning,
    UsageError,
)
from runscore.engine.packs import effectiveness_cache
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

if TYPE_CHECKING:
    import pyarrow as pa

PACK = "effectiveness"
DEFAULT_VERSION = "v1"
#: The version of the shared SQL (``sql/common``) the extract's files call: ``rs_quote``,
#: the quote of an input value in a message (015's run.complete ts, 020's parent values),
#: the same in every pack. Its macros are TEMP: ``build_event_tables`` runs it on every
#: connection that scores (``sqlpack.run_range``'s ``common``).
COMMON_VERSION = "v1"
DEFAULT_HISTORY = os.path.join(".archeflow", "memory", "effectiveness.jsonl")
#: ``history_path`` (``--history``), as a wrong-typed one is named (``sources.one_path``).
HISTORY_PATH = Arg("history_path", "--history")
PATHS = Arg("paths", "PATHS")
VERSION = Arg("version", "--sql-version")
#: ``scored_at``: a call's fixed clock, which no option gives.
SCORED_AT = Arg("scored_at", "scored_at")
#: ``progress`` and ``discovered``: a caller's plumbing, which no option gives.
PROGRESS = Arg("progress", "progress")
DISCOVERED = Arg("discovered", "discovered")
#: Why a run is incomplete: run_status.reason of an 'incomplete' run (015; spec §1). The
#: result keeps only the ids of incomplete runs (and the manifest, for files not re-read).
INCOMPLETE_REASON = "no run.complete event"
EXTRACT_STAGE = (0, 99)
#: A version whose extract stage starts with this file reads events through it (the
#: reader's projection: fields extracted during the one scan); the stage then runs
#: from 001. Without it the raw envelope columns are read and the stage runs from 000.
PROJECTION_FILE = "000_read_events.sql"
#: The file of a version's extract stage that makes ``events``, the view the rest of the
#: stage reads (v1: 010). A small read scores from a copy of it (``EVENTS_COPY_ROWS``).
EVENTS_VIEW_FILE = "010_runs.sql"
#: Reads of at most this many event lines score from a table copied from 010's view
#: ``events``, not from the view. Every later statement binds and plans the view again
#: (raw_events' rows and files, 001's positions, 010's dropped lines): on an incremental
#: extract of 100 run files (3.2k events), ~40 ms of ~0.47 s in-process (medians of
#: eight alternating runs, 471 -> 427 ms, the same records), where the copy takes ~1 ms.
#: The copy grows with the read and the saving does not (CPU time, medians of six
#: alternating extracts, thirtieth pass): 3.2k events 544 -> 499 ms, 10.5k 536 -> 474 ms,
#: 35k 851 -> 880 ms. A big read keeps the view, which also holds every event once.
EVENTS_COPY_ROWS = 20_000

#: Envelope of spec §1, all kept as JSON and typed in SQL (a field that first appears
#: late in a corpus is never dropped by auto-detection, and bad types are diagnosed).
EVENT_COLUMNS: dict[str, str] = {
    "ts": "JSON",
    "run_id": "JSON",
    "seq": "JSON",
    "parent": "JSON",
    "type": "JSON",
    "phase": "JSON",
    "agent": "JSON",
    "data": "JSON",
}

#: Keys a version reads, by JSON path: a line giving one of them twice is refused
#: (``sources.read_jsonl``'s ``unique_keys``), as the other packs refuse theirs: DuckDB
#: reads a key's first value, jq (ArcheFlow's scorer) and Python's json the last. The
#: envelope, and of ``data`` the three a verdict or a cost turns on: each ``data`` key
#: searched for costs the pre-scan's search (the 10k extract: the 13 ``data`` keys read but
#: file, line and location +0.1 CPU-s, ~2.5%, these three +0.02; benchmarks/RESULTS.md,
#: "Forty-fifth pass: duplicate keys in an event line"). Not the other ``data`` keys, nor
#: the keys inside a finding, which every finding repeats on its verdict line: the search
#: would flag nearly every file, and the exact check of every file costs 13x the extract.
EVENT_KEYS: dict[str, tuple[str, ...] | None] = {
    "$": tuple(EVENT_COLUMNS),
    "$.data": ("findings", "verdict", "cost_usd"),
}
#: The pre-scan's cheap search for a line that could give one of ``EVENT_KEYS`` twice:
#: only the files it flags get the exact check.
EVENT_KEY_DETECTOR = sources.key_detector(
    tuple(k for keys in EVENT_KEYS.values() for k in keys or ())
)


Progress = Callable[[str, int, int], None]

#: Where an extract leaves the records it scored, for ``ExtractResult.records``: a table
#: of its database, outside its connection's temp schema.
RECORDS_TABLE = "main._rs_records"


@dataclass(frozen=True)
class RunIssue(sources.LineIssue):
    """A line of a run that is scored all the same (``ExtractResult.warnings``): where, why,
    and the run."""

    run_id: str

    def as_dict(self) -> dict[str, object]:
        return {"run_id": self.run_id, **super().as_dict()}


@dataclass(frozen=True)
class ManifestUnsaved:
    """Why the extract manifest could not be saved: the file and the system's reason,
    apart, so that each caller writes the path once, by the rule (``quoting.path``): as
    ``file: reason`` text it was quoted twice (a symlink's) or cut at a ``": "`` in it."""

    file: str
    reason: str

    def text(self) -> str:
        return f"{quote_path(self.file)}: {self.reason}"


@dataclass
class ExtractResult:
    """What one extract did. ``records`` holds every record scored (written or not).

    Input said of, each a ``sources.LineIssue`` (file, line, reason; line 0: the whole
    file), as every other pack's result lists it: ``skipped_lines``, ``unreadable``,
    ``warnings`` (``RunIssue``: with the run), ``no_lines`` and ``excluded``. ``invalid``
    lists runs (``run_id``, ``reason``, ``locations``); ``problems()`` gives them as issues too.
    """

    version: str
    runs_scored: int = 0
    records_written: int = 0
    #: Records scored that the history does not hold yet: those written, or with
    #: ``write=False`` (a dry run) those a write would append.
    records_new: int = 0
    already_scored: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    invalid: list[dict[str, Any]] = field(default_factory=list)
    skipped_lines: list[sources.LineIssue] = field(default_factory=list)
    warnings: list[RunIssue] = field(default_factory=list)
    files_read: int = 0
    files_unchanged: int = 0
    unreadable: list[sources.LineIssue] = field(default_factory=list)
    #: Files read (or unchanged since read) that hold no line: empty, or blank lines only,
    #: each at line 0 with ``sources.no_lines_reason``. Not rejected input: ``extract``
    #: says each, the nightly job lists them as empty files (a run just begun).
    no_lines: list[sources.LineIssue] = field(default_factory=list)
    #: Input files not read, and why, at line 0 (not rejected input: the history this
    #: extract writes).
    excluded: list[sources.LineIssue] = field(default_factory=list)
    #: Why the manifest could not be saved, the history being written (or having nothing
    #: to gain): the records stand, and the next extract reads again the files this one
    #: could not record as read (their runs are not written twice). None when it was
    #: saved or had nothing to save.
    manifest_unsaved: ManifestUnsaved | None = None
    #: ``records`` once asked for. Until then, the records scored are the table
    #: ``RECORDS_TABLE`` of the extract's database, read through this cursor (None when
    #: nothing was read: every file unchanged): an extract of a few new runs, from the
    #: CLI, never needs them as Arrow, and pyarrow is not even imported then
    #: (``sources.LIST_BIND_BYTES``). The cursor keeps only that database alive: the
    #: extract's own temp tables go with its connection.
    _records: pa.Table | None = field(default=None, repr=False, compare=False)
    _records_at: duckdb.DuckDBPyConnection | None = field(default=None, repr=False, compare=False)
    #: Each input name's place in the order the paths were given (``Discovered``'s), which
    #: ``input_problems`` lists them by.
    _order: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def records(self) -> pa.Table:
        """Every record scored (written or not), one row per (run, review archetype)."""
        if self._records is None and self._records_at is not None:
            cur, self._records_at = self._records_at, None
            try:
                self._records = duck.sql(cur, f"SELECT * FROM {RECORDS_TABLE}").to_arrow_table()
            finally:
                cur.close()
        if self._records is None:
            # No events were scored: what scoring none gives, so the columns and their
            # types are the version's. Only on demand: running the version's SQL over
            # nothing was ~0.2 s of a ~0.6 s rerun over 10k unchanged run files.
            con = db.connect()
            try:
                build_event_tables(con, [], self.version)
                self._records = duck.sql(con, "SELECT * FROM history_records").to_arrow_table()
            finally:
                con.close()
        return self._records

    @property
    def manifest_error(self) -> str | None:
        """``manifest_unsaved`` as ``file: reason`` text (the path by ``quoting.path``), as
        the JSON summary gives it; None when saved."""
        return None if self.manifest_unsaved is None else self.manifest_unsaved.text()

    def manifest_problem(self) -> tuple[str, str] | None:
        """``manifest_unsaved`` as a problem to report: (the file as it is, to be written
        by ``quoting.path``; why, and what it means for the records), one wording for
        ``extract`` and the nightly job; None when saved."""
        if self.manifest_unsaved is None:
            return None
        why = self.manifest_unsaved.reason
        return self.manifest_unsaved.file, f"manifest not saved: {why}; {MANIFEST_UNSAVED}"

    @property
    def rejected(self) -> bool:
        """Some input was rejected (exit code 1)."""
        return bool(self.invalid or self.skipped_lines or self.unreadable)

    def input_problems(self) -> list[sources.LineIssue]:
        """The files not read and the lines skipped, in input order: the order the paths
        were given (a path not found in its place), each file's by line. Listed apart, a
        path not found came before, or after, every file's problem wherever it was given."""
        order = self._order
        return sorted(
            [*self.unreadable, *self.skipped_lines],
            key=lambda i: (order.get(i.file, len(order)), i.line),
        )

    def problems(self) -> list[sources.LineIssue]:
        """The input rejected, one ``file:line: reason`` each (line 0: the whole file): the
        files not read and the lines skipped (``input_problems``), then each invalid run at
        its first location."""
        out = self.input_problems()
        for inv in self.invalid:
            locs = [str(x) for x in inv["locations"]]
            file, _, line = (locs[0] if locs else "").rpartition(":")
            out.append(
                sources.LineIssue(
                    file or (locs[0] if locs else ""),
                    int(line) if line.isdigit() else 0,
                    f"run {quote(inv['run_id'])} not scored: {inv['reason']} "
                    f"({locations_said(locs)})",
                )
            )
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "runs_scored": self.runs_scored,
            "records_written": self.records_written,
            "records_new": self.records_new,
            "already_scored": self.already_scored,
            "incomplete": self.incomplete,
            "invalid": self.invalid,
            "skipped_lines": [i.as_dict() for i in self.skipped_lines],
            # files not read at all (missing, unreadable, compressed): rejected input too
            "unreadable": [i.as_dict() for i in self.unreadable],
            "warnings": [w.as_dict() for w in self.warnings],
            "files_read": self.files_read,
            "files_unchanged": self.files_unchanged,
            "excluded": [_file_said(i) for i in self.excluded],
            # read, and holding no line: not rejected input (beside no other file, nothing
            # read: exit 3, each listed in the error)
            "empty_files": [_file_said(i) for i in self.no_lines],
            "manifest_error": self.manifest_error,
            "scoring_version": f"{PACK}/{self.version}"
            if self.version.startswith("v")
            else self.version,
        }


def locations_said(locations: Sequence[object]) -> str:
    """An invalid run's locations (``file:line``, as ``ExtractResult.invalid`` holds them)
    as a message lists them: each path as the ``file:line:`` of a message writes it
    (``quoting.path``), so that a path holding a line break or a bidi override cannot
    break or steer the message."""
    said = []
    for loc in map(str, locations):
        file, _, line = loc.rpartition(":")
        said.append(f"{quote_path(file)}:{line}" if file and line.isdigit() else quote_path(loc))
    return ", ".join(said)


def _file_said(i: sources.LineIssue) -> dict[str, Any]:
    """What is said of a whole file in the summary: its name and why (no line)."""
    return {"file": i.file, "reason": i.reason}


@dataclass
class EventTables:
    """Diagnostics of building the event tables on a connection."""

    files: list[sources.SourceFile]
    skipped: list[sources.LineIssue]
    discovery_issues: list[sources.LineIssue]


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def scored_at_text(scored_at: object) -> str | None:
    """``scored_at`` (``sources.time_arg``) as the history writes a ``ts``; None: None."""
    at = sources.time_arg(scored_at, SCORED_AT)
    return None if at is None else sources.utc_text(at)


def _check_version(version: str) -> None:
    sources.text_arg(version, VERSION, 'a scoring version as text ("v1")')
    if version not in sqlpack.versions(PACK):
        raise UsageError(
            f"unknown scoring version {quote(version)} (have: {', '.join(sqlpack.versions(PACK))})",
            about=VERSION,
        )


def build_event_tables(
    con: duckdb.DuckDBPyConnection,
    paths: Sequence[str] | Sequence[sources.SourceFile],
    version: str = DEFAULT_VERSION,
    *,
    scored_at: dt.datetime | dt.date | str | None = None,
    progress: Progress | None = None,
    after_read: Callable[[], None] | None = None,
) -> EventTables:
    """Read event logs into ``raw_events`` and run the version's extract SQL.

    ``after_read``: called once the files are read, before they are scored.

    Leaves on ``con``: ``events``, ``verdicts``, ``findings``, ``fixes``,
    ``fix_attribution``, ``run_scores``, ``run_status``, ``row_issues``,
    ``event_warnings`` and ``history_records`` (v1 names; other versions document theirs).
    v1 makes them in the main schema of ``con``'s database, not as TEMP objects, so that
    two connections can score at once (``SCORE_WORKERS``): pass an in-memory connection
    (``db.connect()``, as every caller in runscore does), or they are written to the
    database file.
    """
    _check_version(version)
    if paths and isinstance(paths[0], sources.SourceFile):
        files = [p for p in paths if isinstance(p, sources.SourceFile)]
        disc: list[sources.LineIssue] = []
    else:
        # paths, not SourceFiles here; one path given alone is one (discover's path_list)
        files, disc = sources.discover(cast("Sequence[str]", paths), stdin=True)

    scanned = 0
    line_limit = sources.max_line_limit()

    def scan(some: Sequence[sources.SourceFile]) -> None:
        nonlocal scanned
        for f in some:
            if not f.sha256 and f.error is None:
                sources.prescan(f, line_limit=line_limit, detector=EVENT_KEY_DETECTOR)
            scanned += 1
            if progress:
                progress("scan", scanned, len(files))

    names = {f.name for f in sqlpack.files(PACK, version)}
    projection = (
        sqlpack.load(PACK, version, PROJECTION_FILE).text if PROJECTION_FILE in names else None
    )
    # Files still to pre-scan are scanned batch by batch while each batch is read
    # (sources.read_jsonl); when all are scanned already, nothing is read ahead of
    # their verdicts.
    lo, hi = EXTRACT_STAGE
    first = lo + (1 if projection else 0)
    # Scored on two connections when the version's files allow it (sqlpack.plan: none
    # makes a TEMP object); the events they read must then be in the main schema too.
    workers = _score_workers(con, version, first + 1, hi)
    if any(not f.sha256 and f.error is None for f in files):
        res = sources.read_jsonl(
            con,
            files,
            "raw_events",
            EVENT_COLUMNS,
            projection=projection,
            scan=scan,
            shared=workers > 1,
            unique_keys=EVENT_KEYS,
            detector=EVENT_KEY_DETECTOR,
        )
    else:
        scan(files)
        res = sources.read_jsonl(
            con,
            files,
            "raw_events",
            EVENT_COLUMNS,
            projection=projection,
            shared=workers > 1,
            unique_keys=EVENT_KEYS,
            detector=EVENT_KEY_DETECTOR,
        )
    if after_read is not None:
        after_read()
    if workers > 1 and res.rows >= SCORE_ONE_CONNECTION_ROWS:
        workers = 1  # big tables: see SCORE_ONE_CONNECTION_ROWS
    if progress:
        progress("score", 0, 1)
    params = {"scored_at": scored_at_text(scored_at) or _now_iso()}
    sqlpack.run_common(con, COMMON_VERSION)
    sqlpack.run_range(con, PACK, version, first, first, params)
    # v1's projection keeps the hashes in raw_events; a version without one (the legacy
    # scorer) computes them in its table `accepted`
    _merge_equal_duplicates(con, files, None if projection else "accepted")
    split = int(EVENTS_VIEW_FILE[:3])
    common = COMMON_VERSION
    if res.rows <= EVENTS_COPY_ROWS and EVENTS_VIEW_FILE in names and first < split < hi:
        sqlpack.run_range(
            con, PACK, version, first + 1, split, params, workers=workers, common=common
        )
        _copy_view(con, "events")
        sqlpack.run_range(con, PACK, version, split + 1, hi, params, workers=workers, common=common)
    else:
        sqlpack.run_range(con, PACK, version, first + 1, hi, params, workers=workers, common=common)
    return EventTables(files=files, skipped=res.skipped, discovery_issues=disc)


def _copy_view(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Make the view ``name`` read a table of its rows, ``_<name>_copy``: the same rows and
    columns, bound and planned by later statements as one table. Both are TEMP when the
    view is. Nothing is done when ``name`` is no view."""
    if not name.isidentifier():
        raise UsageError(f"bad view name {quote(name)}", about=None)  # runscore's own
    found = con.execute(
        "SELECT temporary FROM duckdb_views() WHERE view_name = ? AND NOT internal "
        "ORDER BY temporary DESC LIMIT 1",  # a TEMP view hides a main one of its name
        [name],
    ).fetchall()
    if not found:  # a version that made it a table already
        return
    temp = "TEMP " if found[0][0] else ""
    con.execute(f"CREATE OR REPLACE {temp}TABLE _{name}_copy AS SELECT * FROM {name}")
    con.execute(f"CREATE OR REPLACE {temp}VIEW {name} AS SELECT * FROM _{name}_copy")


#: Connections that score at once (``sqlpack.run_range``'s workers). Measured on the
#: 2-core machine, the SQL of 001-090 at 10k runs (one file): 0.95 s on one connection,
#: 0.74 s on two (medians of eight alternating pairs, the same records); at 100k runs
#: 12.4 s either way (there every table has many row groups, and DuckDB runs each
#: statement on both cores anyway).
SCORE_WORKERS = 2
#: From this many events read, scoring runs on one connection. Each statement then has
#: row groups enough for every core, and two statements at once need twice the memory:
#: at 100k runs (3.35M events) the default memory limit was reached and the scoring
#: spilled ~1.5 GB, 10.0-10.8 s on two connections against 8.4-8.6 s on one (run
#: files; one file of 100k runs: 9.6 against 8.2 s; 6.6 s with no memory limit). At 30k
#: runs (1.0M events) two were ~3% faster (1.88 against 1.93 s, nothing spilled). Where
#: the two cross (one file, the SQL of 001-090, alternating; benchmarks/RESULTS.md,
#: "Twenty-ninth pass"): 1.34M events two 3.09-3.40 s, one 3.24-3.39 s; 1.68M even
#: (4.09-4.61 against 3.91-4.58 s); 2.01M one ahead (5.21-5.36 against 5.62-6.96 s);
#: 2.68M one by ~20% (7.20-7.57 against 8.14-10.58 s). The bound is a little past the
#: crossing; not moved, as 1.68M measured even and 2.01M was the nearest point past it.
SCORE_ONE_CONNECTION_ROWS = 2_000_000


def _score_workers(con: duckdb.DuckDBPyConnection, version: str, lo: int, hi: int) -> int:
    """How many connections score: ``SCORE_WORKERS``, or 1 when DuckDB runs one thread
    (a small incremental read, or the user's RUNSCORE_THREADS=1) or the version's files
    make TEMP objects (no other connection could read them)."""
    if db.threads(con) < 2:
        return 1
    plannable = sqlpack.plan(sqlpack.range_files(PACK, version, lo, hi)) is not None
    return SCORE_WORKERS if plannable else 1


#: Envelope fields that make up an event's content (seq is the key; parent is compared
#: normalised, by the SQL).
_CONTENT_FIELDS = ("ts", "run_id", "type", "phase", "agent", "data")


def _merge_equal_duplicates(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[sources.SourceFile],
    table: str | None = None,
) -> None:
    """Treat lines with the same (run_id, seq) and equal JSON content as one event.

    ``table``: None when the hashes are in ``read_jsonl``'s ``raw_events``; else a plain
    table with ``_ord`` and ``content_md5`` columns (a version without a projection).

    The SQL identity hash is exact on text, so two objects that differ only in member
    order (or 1 vs 1.0) look different to it. Such conflicts are rare, so the few
    lines involved (001's ``_dup_conflicts``) are re-read and compared as parsed JSON
    here; equal ones get one hash (the least of theirs) before duplicates are judged (010).
    """
    groups = con.execute(
        "SELECT files, lines, ords, parents, md5s FROM _dup_conflicts ORDER BY ords[1]"
    ).fetchall()
    if not groups:
        return
    wanted: dict[str, set[int]] = {}
    for fs, ls, *_ in groups:
        for f, ln in zip(fs, ls, strict=True):
            wanted.setdefault(f, set()).add(int(ln))
    path_of = {f.display: f.path for f in files}
    text = _read_lines(path_of, wanted)
    updates: list[tuple[str, int]] = []
    for fs, ls, ords, parents, md5s in groups:
        objs = []
        for f, ln, par in zip(fs, ls, parents, strict=True):
            obj = text.get((f, int(ln)))
            if obj is None:
                break
            objs.append(({k: _strict(obj.get(k)) for k in _CONTENT_FIELDS}, sorted(set(par))))
        else:
            first = objs[0]
            if all(o == first for o in objs[1:]):
                # one event: every line gets the least of their hashes, not the first
                # line's, so the run's events_sha256 does not change when they are
                # reordered (and extract does not append the same scores again)
                least = min(md5s)
                updates.extend(
                    (least, int(o)) for o, m in zip(ords, md5s, strict=True) if m != least
                )
            else:  # the run is invalid either way; its lines equal to the first are one
                for o, seen in zip(ords[1:], objs[1:], strict=True):
                    if seen == first:
                        updates.append((md5s[0], int(o)))
    if updates and table is not None:
        sources.load_table(
            con,
            "_md5_updates",
            {"v": ("VARCHAR", [u[0] for u in updates]), "o": ("BIGINT", [u[1] for u in updates])},
        )
        con.execute(
            f"UPDATE {table} AS t SET content_md5 = u.v FROM _md5_updates u WHERE t._ord = u.o"
        )
        con.execute("DROP TABLE _md5_updates")
    elif updates:
        sources.update_by_ord(
            con,
            "raw_events",
            "content_md5",
            [u[0] for u in updates],
            [u[1] for u in updates],
            "VARCHAR",
        )


def _strict(v: Any) -> Any:
    """A parsed JSON value whose ``==`` tells ``true``/``false`` from ``1``/``0`` (Python's
    ``True == 1`` would make two different events one); numbers still compare by value."""
    if isinstance(v, bool):
        return (bool, v)
    if isinstance(v, dict):
        return {k: _strict(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_strict(x) for x in v]
    return v


def _read_lines(
    path_of: dict[str, str], wanted: dict[str, set[int]]
) -> dict[tuple[str, int], dict[str, Any]]:
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for display, lines in wanted.items():
        path = path_of.get(display)
        if path is None:
            continue
        last = max(lines)
        try:
            with open(path, "rb") as fh:
                for n, raw in enumerate(fh, start=1):
                    if n in lines:
                        line = raw.rstrip(b"\r\n")
                        if n == 1 and line.startswith(b"\xef\xbb\xbf"):
                            line = line[3:]
                        try:
                            obj = json.loads(line)
                        except ValueError:
                            continue
                        if isinstance(obj, dict):
                            out[(display, n)] = obj
                    if n >= last:
                        break
        except OSError:
            continue
    return out


def score_runs(
    paths: sources.Paths,
    version: str = DEFAULT_VERSION,
    *,
    scored_at: dt.datetime | dt.date | str | None = None,
) -> pa.Table:
    """Score runs without touching any history: one row per (run, review archetype).

    What could not be read is said as ``extract`` says it (a table has no list to hold
    it): ``NothingReadable`` when nothing could be read (no file found, every line
    rejected, files that hold no line), and otherwise one ``RejectedInputWarning``
    (``warnings``) listing each line, file and run left out of the table, file:line:
    reason: an empty table must not read as "no runs" when the path was mistyped.
    ``extract(paths, None, write=False)`` gives them as lists.

    ``ts`` and ``run_ts`` are UTC times (Arrow ``timestamp[us, tz=UTC]``), as the history
    views (``history``, ``history_current``: what ``sql`` and ``report`` read) type them,
    so each column has one type in both; ``ExtractResult.records`` holds them as the
    history line writes them (text). An unknown ``run_ts`` stays null.
    """
    res = extract(paths, None, version, incremental=False, write=False, scored_at=scored_at)
    problems = res.problems()
    if problems:
        warnings.warn(
            RejectedInputWarning(
                f"{len(problems)} input problem(s) left out of the scores:\n"
                + sources.listed(problems),
                [(i.file, i.line, i.reason) for i in problems],
            ),
            stacklevel=2,
        )
    return _typed(res.records)


#: Types the records as the history views do (``score_runs``); the newest version's file,
#: as the history reader takes the newest version's ``100_history.sql`` for every line.
TYPED_RECORDS_FILE = "100_records_typed"


def _typed(records: pa.Table) -> pa.Table:
    """``records`` with ts and run_ts as the history views type them (TIMESTAMPTZ, UTC):
    a user comparing ``score_runs`` with ``sql``'s views had to cast the text first."""
    con = db.connect()
    try:
        duck.register(con, "scored_records", records)
        sqlpack.execute(con, sqlpack.load(PACK, sqlpack.latest_version(PACK), TYPED_RECORDS_FILE))
        return duck.sql(con, "SELECT * FROM records_typed").to_arrow_table()
    finally:
        con.close()


# --------------------------------------------------------------------------- manifest


def manifest_path(history_path: str) -> str:
    return history_path + ".manifest.json"


_Identity = tuple[int, int, int, int] | None


def _file_identity(path: str | int) -> _Identity:
    """(device, inode, size, mtime) of a path or open descriptor; None if it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass
class _Manifest:
    """The manifest as read, and the identity of the file it was read from."""

    doc: dict[str, Any]
    identity: tuple[int, int, int, int] | None
    #: The file's text as read, when it was trusted: ``_save_manifest`` splices new
    #: entries into it instead of serialising every entry again.
    text: str | None = None

    @property
    def files(self) -> dict[str, Any]:
        files: dict[str, Any] = self.doc["files"]
        return files


def _load_manifest(history_path: str) -> _Manifest:
    """The manifest, or an empty one when it cannot be trusted.

    It is trusted only while the history it describes is at least as long as when
    the manifest was written and still holds the same bytes before that length (its
    last ``HISTORY_TAIL_BYTES``): a truncated or replaced history means re-read all.
    """
    mp = manifest_path(history_path)
    empty = _Manifest({"history_size": 0, "files": {}}, None)
    try:
        # O_NONBLOCK: a FIFO in its place is no manifest, not one to wait on for ever.
        fd = os.open(mp, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, encoding="utf-8") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return empty
            ident = _file_identity(f.fileno())
            text = f.read()
        m = json.loads(text)
        hsize = os.stat(history_path).st_size
    except (OSError, ValueError):
        return empty
    if not isinstance(m, dict) or not isinstance(m.get("files"), dict):
        return _Manifest(empty.doc, ident)
    hs = m.get("history_size", 0)
    if type(hs) is not int or hsize < hs:
        return _Manifest(empty.doc, ident)
    # Another history at least as long (one copied or moved over this one, or the
    # manifest of another) does not hold the runs of the files the manifest skips.
    tail = _history_tail(history_path, hs)
    if tail is None or m.get("history_tail") != tail:
        return _Manifest(empty.doc, ident)
    return _Manifest(m, ident, text)


#: How much of the history, up to the length the manifest describes, it fingerprints.
HISTORY_TAIL_BYTES = 4096


def _history_tail(history_path: str, size: int) -> str | None:
    """SHA-256 of the history's last ``HISTORY_TAIL_BYTES`` before ``size`` (appends
    never change them); None if they cannot be read."""
    start = max(0, size - HISTORY_TAIL_BYTES)
    try:
        with open(history_path, "rb", buffering=0) as f:
            f.seek(start)
            data = f.read(size - start)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) == size - start else None


def _strs(v: Any) -> bool:
    return type(v) is list and all(type(x) is str for x in v)


def _rows(v: Any, kinds: tuple[type, ...]) -> bool:
    return type(v) is list and all(
        type(i) is list and len(i) == len(kinds) and all(map(isinstance, i, kinds)) for i in v
    )


def _entry(mfiles: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The manifest's entry for ``key``, or None when there is none it could be: one of
    another shape (hand-edited, another layout) says nothing of the file, which is read."""
    e = mfiles.get(key)
    if not (
        type(e) is dict
        and type(e.get("size")) is int
        and type(e.get("mtime_ns")) is int
        and type(e.get("sha256")) is str
        and _strs(e.get("runs"))
    ):
        return None
    if (
        type(e.get("batch", "")) is not str
        or type(e.get("ctime_ns", 0)) is not int
        or type(e.get("read_ns", 0)) is not int
    ):
        return None
    if len(e) == 4 + ("batch" in e) + ("ctime_ns" in e) + ("read_ns" in e):  # the usual
        return e
    ok = (
        _rows(e.get("skipped", []), (int, str))
        and _rows(e.get("warnings", []), (str, int, str))
        and _strs(e.get("unreadable", []))
        and _strs(e.get("incomplete", []))
        and type(e.get("invalid", [])) is list
        and all(
            type(i) is dict
            and type(i.get("run_id")) is str
            and type(i.get("reason")) is str
            and type(i.get("locations")) is list
            for i in e.get("invalid", [])
        )
        and all(type(e.get(k, 0)) is int for k in ("skipped_more", "warnings_more"))
    )
    return e if ok else None


def _gone(
    paths: Sequence[str], files: Sequence[sources.SourceFile], mfiles: dict[str, Any]
) -> list[str]:
    """The manifest's keys (of any version) for files inside a folder given that this
    extract did not find there and that no longer exist. Only folders: a file or glob
    given says nothing of the files it does not name. Only files that are gone (ENOENT):
    one in a folder this user cannot list now keeps its entry."""
    roots = tuple(
        os.path.join(os.path.realpath(p), "") for p in paths if p != "-" and os.path.isdir(p)
    )
    if not roots:
        return []
    found = {f.realpath or _realpath(f.path) for f in files}
    gone: list[str] = []
    for key in mfiles:
        real = key.partition("\t")[2]
        if real in found or not real.startswith(roots):
            continue
        try:
            os.lstat(real)
        except (FileNotFoundError, NotADirectoryError):
            gone.append(key)
        except OSError:
            pass
    return gone


#: The pipeline pack's history, by the name it has in a project's memory folder
#: (``pipeline.DEFAULT_HISTORY``; not imported: that module loads pyarrow, ~0.2 s).
PIPELINE_HISTORY_NAME = "pipelines.jsonl"
#: The plugin pack's history, by its name there (``plugin.DEFAULT_HISTORY``, not imported
#: either): `extract .` in a project read its lines as run logs, exit 1 on every run.
PLUGIN_HISTORY_NAME = "plugins.jsonl"


def _own_files(
    history_path: str, role: str = "this extract writes to", pipelines: Sequence[str] = ()
) -> dict[str, str]:
    """The real paths of the history and the files runscore keeps beside it, each with
    why it is not read as a run log (a glob such as ``memory/*`` names them all).
    ``role``: what the command does with the history (``sql --events``: reads it).
    The pipeline history beside it (``PIPELINE_HISTORY_NAME``) and ``pipelines`` (the
    pipeline histories a command is given) are runscore's records too, with their locks."""
    beside = f"not read: runscore keeps it beside the history {role}"
    own = {
        os.path.realpath(p): beside
        for p in (
            manifest_path(history_path),
            effectiveness_cache.cache_path(history_path),
            history.lock_file(history_path),
            history.lock_file(history_path + history.NIGHTLY_LOCK),
            history_path + history.NIGHTLY_JOURNAL,
        )
    }
    pipeline_paths = [os.path.join(os.path.dirname(history_path), PIPELINE_HISTORY_NAME)]
    for p in (*pipeline_paths, *pipelines):
        own[os.path.realpath(p)] = "not read: it is runscore's pipeline history"
        own[os.path.realpath(history.lock_file(p))] = (
            "not read: runscore keeps it beside its pipeline history"
        )
    own[os.path.realpath(history_path)] = f"not read: it is the history {role}"
    return own


def refuse_kept_beside(
    path: str,
    history_path: str,
    option: str | Arg,
    pipelines: Sequence[str] = (),
    why: str = "",
) -> None:
    """Refuse ``path`` as where ``option`` writes when it is a file runscore keeps beside
    the history (``kept_beside``): the one message of ``sql --output``, ``history repair
    --out`` and ``export --to``; ``why``, when given, says what writing there would do."""
    if kept_beside(path, history_path, pipelines):
        raise UsageError(
            f"{quote_path(path)}: runscore keeps that file beside the history "
            f"{quote_path(history_path)} (a lock, the extract manifest, the cache, the "
            f"nightly journal or the pipeline history){f': {why}' if why else ''}"
            "; choose another ",
            option,
            about=option if isinstance(option, Arg) else None,  # text: the CLI's own option
        )


def kept_beside(path: str, history_path: str, pipelines: Sequence[str] = ()) -> bool:
    """Is ``path`` one of the files runscore keeps beside the history (``_own_files``: its
    lock, extract manifest, cache, nightly journal, the pipeline history beside it and
    their locks; not the history itself, which callers name apart)? An output written
    there replaced it: a lock file replaced while a writer holds the old one let a second
    writer take the new one and append at the same time; a nightly journal replaced lost
    the runs of an interrupted job, or failed the history's next nightly step."""
    own = _own_files(history_path, pipelines=pipelines)
    own.pop(os.path.realpath(history_path), None)
    if os.path.realpath(path) in own:
        return True
    if not os.path.exists(path):
        return False
    for p in own:  # a hard link to one of them
        with contextlib.suppress(OSError):
            if os.path.samefile(path, p):
                return True
    return False


def leave_out_own_files(
    files: Sequence[sources.SourceFile],
    history_path: str,
    role: str = "this extract writes to",
    pipelines: Sequence[str] = (),
) -> tuple[list[sources.SourceFile], list[tuple[str, str]]]:
    """``files`` without the history and the files kept beside it (``_own_files``), and
    those left out, each (display, why): they are never read as run logs."""
    own = _own_files(history_path, role, pipelines)
    # Not in _own_files: what kept_beside refuses as an output is said as "the pipeline
    # history" and its kin; the plugin history there is only never a run log.
    plugins = os.path.join(os.path.dirname(history_path), PLUGIN_HISTORY_NAME)
    own.setdefault(os.path.realpath(plugins), "not read: it is runscore's plugin history")
    own.setdefault(
        os.path.realpath(history.lock_file(plugins)),
        "not read: runscore keeps it beside its plugin history",
    )
    kept: list[sources.SourceFile] = []
    left_out: list[tuple[str, str]] = []
    for f in files:
        why = own.get(f.realpath or _realpath(f.path))
        if why is None:
            kept.append(f)
        else:
            left_out.append((f.display, why))
    return kept, left_out


#: Bytes of a history's start read for its first line (``_holds_records``): one read holds
#: a record of any history runscore wrote.
_FIRST_LINE_BYTES = 1 << 20


def refuse_a_run_log(
    history_path: str,
    files: Sequence[sources.SourceFile],
    *,
    reader: str = "the extract",
    given: Arg = PATHS,
    option: Arg = HISTORY_PATH,
) -> None:
    """Refuse a history found among the run logs ``files`` read (a folder or glob given
    holds it, or it is given) that is not a history already (``_holds_records``):
    ``extract logs --history logs/run-2.jsonl`` left that run log out, as the history is
    left out, and appended the records to it, its events lost to every later extract. A
    history that is one (or an empty file) is left out, as before. ``reader``, ``given``
    and ``option``: the command, the argument that gave the run logs and the history's,
    as the message names them (the nightly job's own)."""
    real = os.path.realpath(history_path)
    for f in files:
        if f.stdin or (f.realpath or _realpath(f.path)) != real:
            continue
        if not _holds_records(history_path):
            raise UsageError(
                f"{quote_path(history_path)}: that is the run log {quote_path(f.display)} "
                f"{reader} reads (",
                given,
                "); choose another ",
                option,
                about=option,
            )
        return


def _holds_records(path: str) -> bool:
    """Is the file at ``path`` a history, or nothing yet: no line but blank ones, or a first
    line that is a JSON object with no ``type`` (every event has one, no history record
    does: runscore's, and ArcheFlow's own scorer's)? A first line that is an event, or no
    JSON object at all, is a run log's to the extract, which would read it as one. A file
    that cannot be read is left to the append, which says why."""
    try:
        with open(path, "rb") as f:
            head = f.read(_FIRST_LINE_BYTES)
    except OSError:
        return True
    first = next((line for line in head.split(b"\n") if line.strip()), None)
    if first is None:
        return True
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "type" not in record


@functools.lru_cache(maxsize=1 << 18)
def _realpath(path: str) -> str:
    # Only for files discovery did not resolve; realpath is a syscall chain per call.
    return os.path.realpath(path)


def _manifest_key(version: str, f: sources.SourceFile) -> str:
    return f"{version}\t{f.realpath or _realpath(f.path)}"


# --------------------------------------------------------------------------- extract


@process.gc_paused()
def extract(
    paths: sources.Paths,
    history_path: str | os.PathLike[str] | None = DEFAULT_HISTORY,
    version: str = DEFAULT_VERSION,
    *,
    incremental: bool = True,
    write: bool = True,
    lock_timeout: float | None = 300.0,
    scored_at: dt.datetime | dt.date | str | None = None,
    progress: Progress | None = None,
    discovered: tuple[list[sources.SourceFile], list[sources.LineIssue]] | None = None,
    allow_empty: bool = False,
) -> ExtractResult:
    """Score runs from ``paths`` and append new records to the history.

    Incremental: a file whose (size, mtime, ctime) — or, failing that, SHA-256 — matches
    the manifest beside the history is not read again, and its runs are not re-scored
    (matched by its hash, its entry takes its new times).
    Idempotent: a record whose (run_id, archetype, scoring_version, events_sha256) is
    already in the history is not written again.

    ``discovered``: what ``sources.discover(paths)`` gave, when the caller has it already
    (the nightly job counts the files first), taken instead of discovering again. A file
    whose ``mtime_ns`` is set was stat'ed by the caller just before: its ``size``,
    ``mtime_ns`` and ``ctime_ns`` are compared with the manifest as they are (100k run
    files: ~0.4 s of discovery and ~0.4 s of stat-ing less).

    Raises ``NothingReadable`` when the files read hold no event: each was rejected, or
    holds no line (empty, or blank lines only: ``<file>: empty (no events)``), unless
    ``allow_empty`` (the nightly job, which lists empty run logs itself: a run that has
    just begun has one) takes files that hold no line for read, with nothing to score.

    ``history_path`` None, with ``write=False``: scored as if there were no history (every
    record new, no file left out as one kept beside it).

    ``scored_at``: the records' ``ts`` (default: the clock), a ``datetime`` (naive: UTC),
    a ``date`` (its 00:00 UTC) or ISO text, written as the history writes a time
    (``2026-01-01T10:00:00Z``, to the second); anything else is a ``UsageError``.

    Python's cyclic garbage collector is paused while it runs in the CLI's process, and
    left as it is in any other (``process.gc_paused``).
    """
    _check_version(version)
    scored_at = scored_at_text(scored_at)
    incremental = sources.flag_arg(incremental, "incremental")
    write = sources.flag_arg(write, "write")
    allow_empty = sources.flag_arg(allow_empty, "allow_empty")
    progress = sources.callable_arg(
        progress, PROGRESS, "called with a stage, files done and files in all"
    )
    discovered = _discovered_arg(discovered)
    paths = sources.input_paths(paths, PATHS)  # one path alone is one, not its characters
    lock_timeout = history.lock_timeout(lock_timeout)
    if history_path is None:
        if write:
            raise UsageError(
                "extract writes to a history: history_path None is for write=False",
                about=HISTORY_PATH,
            )
    else:
        # a pathlib.Path met str methods below
        history_path = sources.one_path(history_path, HISTORY_PATH)
        if write:  # a symlink, a folder, a FIFO or a gzip file, or its lock file: said
            # before scoring anything, as `pipeline` says it (locked() says it again)
            history.check_writable(history_path, HISTORY_PATH)
        else:  # a dry run reads the history's keys (DuckDB: a UTF-8 name)
            history.require_utf8_name(history_path, about=HISTORY_PATH)
    # Opened while the files are discovered and compared with the manifest, once it is
    # sure to be needed: a rerun with nothing new (the nightly's usual night) needs none,
    # and opening one beside its stat-ing cost it ~0.02-0.03 s at 10k run files.
    ahead = db.ConnectAhead()
    if not (
        incremental
        and write
        and history_path is not None
        and os.path.exists(manifest_path(history_path))
    ):
        ahead.start()  # every file will be read
    keys_ahead: list[_KeysAhead] = []  # the history's keys, read while runs are scored
    try:
        return _extract(
            paths,
            history_path,
            version,
            ahead,
            keys_ahead,
            incremental=incremental,
            write=write,
            lock_timeout=lock_timeout,
            scored_at=scored_at,
            progress=progress,
            discovered=discovered,
            allow_empty=allow_empty,
        )
    finally:
        for k in keys_ahead:
            k.release()
        ahead.release()


def _discovered_arg(
    value: object,
) -> tuple[list[sources.SourceFile], list[sources.LineIssue]] | None:
    """``discovered`` if it is None or what ``sources.discover`` returns (a pair of lists
    of ``SourceFile`` and ``LineIssue``), else a ``UsageError`` naming it: ``discovered=5``
    was a TypeError once the history's keys were being read."""
    if value is None:
        return None
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], list)
        and isinstance(value[1], list)
        and all(isinstance(f, sources.SourceFile) for f in value[0])
        and all(isinstance(i, sources.LineIssue) for i in value[1])
    ):
        return value
    raise UsageError(
        DISCOVERED,
        ": give what sources.discover(paths) returns (a list of SourceFiles and one of "
        f"LineIssues) or None, not {sources.type_name(value)}",
    )


#: A manifest entry is trusted by the file's size and times only when its ctime is this much
#: older than the start of the extract that read the file (the entry's ``read_ns``). A file
#: written again, at the same size, within the timestamp tick of the write the extract
#: read keeps the size and times of the entry, and only its hash tells: so an entry whose
#: file changed that close to its read is hashed the next time (once: it then takes that
#: extract's ``read_ns``). The history cache has the same rule (``effectiveness_cache``).
RACY_NS = 2_000_000_000
#: ``read_ns`` of an entry written before entries had one: trusted by its times, as then.
_NO_READ_NS = 1 << 62


def _extract(
    paths: Sequence[str],
    history_path: str | None,
    version: str,
    ahead: db.ConnectAhead,
    keys_ahead: list[_KeysAhead],
    *,
    incremental: bool,
    write: bool,
    lock_timeout: float | None,
    scored_at: str | None,
    progress: Progress | None,
    discovered: tuple[list[sources.SourceFile], list[sources.LineIssue]] | None,
    allow_empty: bool,
) -> ExtractResult:
    # Before any file is stat'ed or read here: the time of the read the manifest records.
    read_ns = time.time_ns()
    found = discovered if discovered is not None else sources.discover(paths, stdin=True)
    files, disc = found
    if write and history_path is not None:
        refuse_a_run_log(history_path, files)
    # The history read back as a run log would be a loop: `extract .archeflow` found
    # .archeflow/memory/effectiveness.jsonl below it and rejected each of its records as
    # "missing type", again on every run (the file grows with each).
    files, left_out = (
        leave_out_own_files(files, history_path) if history_path is not None else (files, [])
    )
    excluded = [sources.LineIssue(d, 0, why) for d, why in left_out]
    if not files and not disc:
        why = "; ".join(f"{i.location()}: {i.reason}" for i in excluded)
        raise NothingReadable(f"no input files{': ' + why if why else ''}", about=PATHS)
    manifest = (
        _load_manifest(history_path)
        if (incremental and write and history_path is not None)
        else None
    )
    mfiles: dict[str, Any] = manifest.files if manifest is not None else {}
    keys = [_manifest_key(version, f) for f in files]
    known = sum(map(mfiles.__contains__, keys))
    if known < len(keys):
        ahead.start()  # a file the manifest does not know is read
    # Entries of files deleted from a folder given: dropped at the next save, or a
    # folder whose old logs are rotated away kept every file it ever held in the
    # manifest, parsed again by every extract.
    gone = _gone(paths, files, mfiles) if len(mfiles) > known else []

    to_read: list[sources.SourceFile] = []
    unchanged: list[sources.SourceFile] = []
    # Each unchanged file's manifest entry, by identity: looked up once here, not again
    # for the runs it shares and what is said of it (10k keys cost ~25 ms a pass).
    entry_of: dict[int, dict[str, Any]] = {}
    # Entries of unchanged files hashed because their times moved: saved with their new
    # times, so that the next extract trusts them by stat again.
    refreshed: dict[str, dict[str, Any]] = {}
    for f, key in zip(files, keys, strict=True):
        entry = _entry(mfiles, key)
        if entry is not None:
            if not f.mtime_ns:
                try:
                    st = os.stat(f.path)
                    f.size, f.mtime_ns, f.ctime_ns = st.st_size, st.st_mtime_ns, st.st_ctime_ns
                except OSError:
                    pass  # never equal to the entry's: the pre-scan says why
            if (
                f.mtime_ns
                and entry["size"] == f.size
                and entry["mtime_ns"] == f.mtime_ns
                and entry.get("ctime_ns") == f.ctime_ns
                and (f.ctime_ns or f.mtime_ns) < entry.get("read_ns", _NO_READ_NS) - RACY_NS
            ):
                unchanged.append(f)
                entry_of[id(f)] = entry
                continue
            # Times moved (or too close to the last read to be trusted), maybe not the
            # bytes: the hash alone decides. A changed file is pre-scanned with the others
            # read (beside DuckDB's read); an unchanged one needs no scan at all, which
            # was ~70% of this check (an 86 MB file: 0.06 s to hash, 0.2 s to pre-scan).
            # f.sha256 stays unset: only a pre-scan sets it, and a file with it set is
            # taken as scanned if it is read after all (a run it shares with a new file).
            digest = filedigest.sha256_of(f.path) if entry["size"] == f.size else None
            if digest is not None and digest == entry.get("sha256"):
                unchanged.append(f)
                # Remembered as it is now: a file touched, copied back or given its old
                # times (a backup restored, `touch -d`, `chmod`) was hashed again on every
                # later extract, for ever, while its entry kept the old times.
                entry = {
                    **entry,
                    "size": f.size,
                    "mtime_ns": f.mtime_ns,
                    "ctime_ns": f.ctime_ns,
                    "read_ns": read_ns,
                }
                refreshed[key] = entry
                entry_of[id(f)] = entry
                continue
        # A file not in the manifest is read: build_event_tables pre-scans it then,
        # while DuckDB reads (the scan's verdicts still decide how each file is read).
        to_read.append(f)

    # A run whose files were read apart (each in an extract of its own, so scored from
    # one of them, or said to be incomplete) is read again now that they come together.
    apart = _read_apart(unchanged, entry_of)
    if apart:
        reading = apart | {id(f) for f in to_read}
        to_read = [f for f in files if id(f) in reading]
        unchanged = [f for f in unchanged if id(f) not in apart]

    # Where each name stands in the order given (a path not found too: listed after every
    # file's problem, wherever it was given).
    order = sources.order_given(found)
    if unchanged and not to_read:
        # Every file unchanged since it was read (the nightly job's usual night): nothing
        # to read, score or write; what was said of the files is said again.
        result = ExtractResult(
            _order=order,
            version=version,
            excluded=excluded,
            files_unchanged=len(unchanged),
            skipped_lines=[i for i in disc if i.line > 0],
            unreadable=[i for i in disc if i.line == 0],
        )
        _relist(result, [(f, entry_of[id(f)]) for f in unchanged], order)
        if write and history_path is not None and (refreshed or gone):
            result.manifest_unsaved = _saving(
                history_path, _save_refreshed, history_path, version, refreshed, manifest, gone
            )
        elif write and history_path is not None:
            _remove_left_temps_if_free(history_path)
        return result

    # A run can span files: re-read the unchanged files that hold runs of changed ones.
    con = ahead.take()
    try:
        one_thread = bool(unchanged) and _small_read(to_read)
        if one_thread:
            db.set_threads(con, 1)

        def read_keys() -> None:
            if not write or history_path is None:
                return
            has_lines = os.path.isfile(history_path) and os.path.getsize(history_path) > 0
            if not keys_ahead and has_lines:
                keys_ahead.append(_KeysAhead(con, history_path))

        stamp = scored_at or _now_iso()
        tables = build_event_tables(
            con, to_read, version, scored_at=stamp, progress=progress, after_read=read_keys
        )
        if unchanged and to_read:
            runs_now = {
                r[0] for r in con.execute("SELECT DISTINCT run_id FROM run_status").fetchall()
            }
            # Also the runs a changed file held when it was last read: one that lost its
            # lines of a run still changed that run (kept in history if no file has it now).
            for f in to_read:
                old = _entry(mfiles, _manifest_key(version, f))
                if old is not None:
                    runs_now.update(old.get("runs", ()))
            extra = _sharing_files(unchanged, entry_of, runs_now)
            if extra:
                for f in extra:
                    sources.prescan(f, detector=EVENT_KEY_DETECTOR)
                # By identity and a position table: dataclass equality compares every field,
                # and list.index/`in` made this quadratic in the number of files.
                pos = {id(f): i for i, f in enumerate(files)}
                extra_ids = {id(f) for f in extra}
                unchanged = [f for f in unchanged if id(f) not in extra_ids]
                to_read = sorted(to_read + extra, key=lambda f: pos[id(f)])
                if one_thread and not _small_read(to_read):
                    db.set_threads(con, None)
                tables = build_event_tables(con, to_read, version, scored_at=stamp)

        readable = [f for f in to_read if f.error is None]
        skipped = tables.skipped + disc
        row_issues = con.execute(
            "SELECT file, line, reason FROM row_issues ORDER BY file, line"
        ).fetchall()
        skipped_lines = [i for i in skipped if i.line > 0] + [
            sources.LineIssue(str(r[0]), int(r[1]), str(r[2])) for r in row_issues
        ]
        skipped_lines.sort(key=lambda i: (order.get(i.file, len(order)), i.line))
        unreadable = [sources.LineIssue(f.display, 0, f.error) for f in to_read if f.error] + [
            i for i in skipped if i.line == 0
        ]
        # a file not read (its bytes) and a path not found, each in its place
        unreadable.sort(key=lambda i: order.get(i.file, len(order)))
        accepted = int(con.execute("SELECT count(*) FROM accepted").fetchall()[0][0])
        if (
            not unchanged
            and accepted == 0
            and (unreadable or skipped_lines or not readable or not allow_empty)
        ):
            # A file read that holds no line is said too: input of empty files only exited 0
            # without a word, where a folder with no file in it is "no input files" (exit 3).
            said = {i.file for i in unreadable + skipped_lines}
            with_rows = {
                r[0] for r in con.execute("SELECT DISTINCT _file FROM raw_events").fetchall()
            }
            empty = [
                _no_lines_said(f)
                for f in readable
                if f.display not in said and f.display not in with_rows
            ]
            # One line each, in the order the files were given, the first 20 (as routes and
            # pipeline list theirs): the first five, run together on one line, left the
            # rest unsaid. Each is also in ``problems``, for a caller that lists them apart.
            issues = sorted(
                unreadable + empty + skipped_lines,
                key=lambda i: (order.get(i.file, len(order)), i.line),
            )
            raise NothingReadable(
                "nothing could be read" + (":\n" + sources.listed(issues) if issues else ""),
                [(i.file, i.line, i.reason) for i in issues],
                no_lines=[i.file for i in empty],
                about=PATHS,
            )

        # Renamed, not copied (a copy of 31k records took ~0.02 s of a 10k-run extract):
        # the version's table becomes the one the result reads, and is kept from
        # _drop_shared by its name.
        con.execute(
            f"DROP TABLE IF EXISTS {RECORDS_TABLE}; "
            f"ALTER TABLE history_records RENAME TO {RECORDS_TABLE.split('.')[-1]}"
        )
        n_records = int(con.execute(f"SELECT count(*) FROM {RECORDS_TABLE}").fetchall()[0][0])
        status = con.execute(
            "SELECT run_id, status, reason, locations FROM run_status ORDER BY first_ord"
        ).fetchall()
        result = ExtractResult(
            _order=order,
            _records_at=db.tracked(con.cursor()),
            version=version,
            excluded=excluded,
            files_read=len(readable),
            files_unchanged=len(unchanged),
            skipped_lines=skipped_lines,
            unreadable=unreadable,
            incomplete=[r[0] for r in status if r[1] == "incomplete"],
            invalid=[
                {"run_id": r[0], "reason": r[2], "locations": list(r[3])}
                for r in status
                if r[1] == "invalid"
            ],
            warnings=[
                RunIssue(str(r[1]), int(r[2]), str(r[3]), run_id=str(r[0]))
                for r in con.execute(
                    "SELECT run_id, file, line, reason FROM event_warnings "
                    "ORDER BY run_id, file, line, reason"
                ).fetchall()
            ],
        )
        scored_runs = [r[0] for r in status if r[1] == "scored"]
        result.runs_scored = len(scored_runs)
        # What was said of the files now skipped as unchanged is said again: a rerun (the
        # nightly job's, say) reports the same rejected lines as the run that read them.
        _relist(result, [(f, entry_of[id(f)]) for f in unchanged], order)
        if not write:
            # Said as a write says them (a dry run consults no manifest: none unchanged).
            result.no_lines = _no_lines(con, readable, _runs_by_file(con), result)
            # A dry run says what a write would append: the history's keys are read as
            # the file is now, without its lock (a preview; nothing here is written).
            # It said "0 already scored" of runs the history held.
            if history_path is not None and os.path.isfile(history_path):
                held = _existing_keys(con, history_path)
                _mark_new(con, result, scored_runs, held, n_records)
                _recheck_held(con, result, scored_runs, n_records, history_path)
            else:
                result.records_new = n_records
            return result
        assert history_path is not None  # extract() refuses None to write

        # A file read again after all (its run spans a changed file) gets a new entry
        # (every file read but a pipe gets one: _manifest_entries).
        any_entries = bool(refreshed) or any(not f.stdin for f in readable)
        if not any_entries and not gone and n_records == 0 and os.path.exists(history_path):
            # Nothing to append and nothing new to remember (every file unchanged, say): no
            # lock to wait for, no history keys to read, no manifest to rewrite — on a night
            # with no new runs that was ~0.1 s of a 0.9 s extract over 10k run files.
            _remove_left_temps_if_free(history_path)
            return result
        with history.locked(history_path, timeout=lock_timeout, about=HISTORY_PATH):
            held = _existing_keys(con, history_path, keys_ahead[0] if keys_ahead else None)
            _mark_new(con, result, scored_runs, held, n_records)
            _recheck_held(con, result, scored_runs, n_records, history_path)
            runs_by_file = _runs_by_file(con)
            # Those unchanged were listed by _relist already; said in the order given.
            result.no_lines[:0] = _no_lines(con, readable, runs_by_file, result)
            result.no_lines.sort(key=lambda i: order.get(i.file, len(order)))
            # DuckDB renders the lines (field order = column order, shortest round-trip
            # floats), streamed in batches so memory stays flat on big corpora; on a
            # thread, while this one builds the manifest's entries in Python (~0.04 and
            # ~0.025 s at 10k runs; ~0.03 s saved, 20 alternating pairs). Both use this
            # connection, one after the other: what they read may be its temp objects.
            rendering = _Rendering(con)
            try:
                new_manifest_entries = {
                    **refreshed,
                    **_manifest_entries(runs_by_file, version, readable, result, read_ns),
                }
            except BaseException:
                rendering.cancel()
                raise
            cur = rendering.result()
            result.records_written = history.append_groups(
                history_path, _run_groups(cur), HISTORY_PATH
            )
            result.records_new = result.records_written
            # The records are in the history now: a manifest that cannot be saved (a full
            # disk, a folder in its place) must not make them look unwritten (the nightly
            # job said "not extracted, 0 runs scored" of runs it had just appended).
            result.manifest_unsaved = _saving(
                history_path,
                _save_manifest,
                history_path,
                version,
                new_manifest_entries,
                manifest,
                gone,
            )
        return result
    finally:
        # The scoring tables are in the main schema (shared by the scoring workers):
        # unlike TEMP ones they would outlive this connection while the result keeps
        # a cursor to its records.
        _drop_shared(con)


class _Rendering:
    """The new records' history lines, rendered by DuckDB on a thread (on ``con``: ``_new``
    is one of its temp objects); ``result`` waits and gives ``con``, to fetch them."""

    SQL = (
        "SELECT n.run_id, to_json(n)::VARCHAR FROM _new n "
        "ORDER BY (SELECT first_ord FROM run_status s WHERE s.run_id = n.run_id), "
        "n.archetype"
    )

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._error: BaseException | None = None
        self._cancelled = False
        self.finished = False  # the query ran to its end
        self._thread = threading.Thread(target=self._run, name="runscore-render")
        self._thread.start()

    def _run(self) -> None:
        if self._cancelled:
            return
        try:
            self._con.execute(self.SQL)
            self.finished = True
        except BaseException as e:  # raised on the caller's thread, by result()
            self._error = e

    def result(self) -> duckdb.DuckDBPyConnection:
        try:
            self._thread.join()
        except BaseException:
            # A Ctrl-C reaches the main thread only (here, waiting): stop the query too.
            self.cancel()
            raise
        if self._error is not None:
            raise self._error
        return self._con

    def cancel(self) -> None:
        """Stop the rendering (the caller is failing): interrupt it and wait for it. Its
        own error, an interruption, is not the one to see. An interrupt that comes before
        the query has started is lost, so it is given again until the thread is done."""
        self._cancelled = True
        while True:
            self._con.interrupt()
            self._thread.join(0.05)
            if not self._thread.is_alive():
                return


def _mark_new(
    con: duckdb.DuckDBPyConnection,
    result: ExtractResult,
    scored: list[str],
    held: int,
    n_records: int,
) -> None:
    """The records (``n_records`` of them) not in ``_existing`` (``held`` keys) as
    ``_new``; their count and the runs already scored (every record of the run held)
    into ``result``."""
    if held == 0:
        # A new history (every first extract, every fresh benchmark): all are new, and
        # the anti-join and the two lists of runs cost 10k runs ~0.03 s for nothing.
        con.execute(f"CREATE OR REPLACE TEMP VIEW _new AS SELECT * FROM {RECORDS_TABLE}")
        result.records_new = n_records
        result.already_scored = []
        return
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE _new AS
        SELECT r.* FROM {RECORDS_TABLE} r
        WHERE NOT EXISTS (
            SELECT 1 FROM _existing e
            WHERE e.run_id = r.run_id AND e.archetype = r.archetype
              AND e.scoring_version = r.scoring_version
              AND e.events_sha256 = r.events_sha256)
        """
    )
    result.records_new = int(con.execute("SELECT count(*) FROM _new").fetchall()[0][0])
    new_runs = {r[0] for r in con.execute("SELECT DISTINCT run_id FROM _new").fetchall()}
    # A scored run with no review archetype has no records: nothing to be "already" in.
    with_records = {
        r[0] for r in con.execute(f"SELECT DISTINCT run_id FROM {RECORDS_TABLE}").fetchall()
    }
    result.already_scored = [r for r in scored if r in with_records and r not in new_runs]


def _recheck_held(
    con: duckdb.DuckDBPyConnection,
    result: ExtractResult,
    scored: list[str],
    n_records: int,
    history_path: str,
) -> None:
    """When records were found in the history already (``_mark_new``), find them again
    among the lines ``report`` reads, and mark anew.

    The keys ``_existing_keys`` reads are four fields of any line that has them, while
    ``report`` skips a line with a field of the wrong kind (a ``composite_score`` of
    ``"0.5"``, say) or given twice. A run with only such a line was "already scored"
    here and absent from every report until ``history repair``. Read with the report's
    own reader instead, such a run's records are appended again. Only when something
    matched: a first extract, the benchmarks' full and incremental extracts, and a
    nightly's new runs match nothing, and pay nothing for it; an extract of runs scored
    before pays the report's read of the history (or its cache's).

    Only the current lines count (per run, archetype and version, the one the readers
    take: §4's latest ``ts``): a run scored from events A, re-scored from B, then given
    A again (a file restored, a branch switched back) matched A's superseded lines, was
    "already scored", and every report kept B's scores for events the run no longer
    has. §4's other rule decides: the events changed, so the records are appended."""
    if result.records_new >= n_records:
        return
    from runscore.engine.packs import effectiveness_history  # it imports this module

    hcon = effectiveness_history.connect()
    try:
        effectiveness_history.load_history(hcon, history_path, about=HISTORY_PATH)
        keys = duck.sql(
            hcon,
            "SELECT DISTINCT run_id, archetype, scoring_version, events_sha256 "
            "FROM history_current WHERE events_sha256 IS NOT NULL",
        ).to_arrow_table()
    finally:
        hcon.close()
    con.execute("DELETE FROM _existing")
    duck.register(con, "_rs_valid_keys", keys)
    try:
        con.execute("INSERT INTO _existing SELECT * FROM _rs_valid_keys")
    finally:
        con.unregister("_rs_valid_keys")
    _mark_new(con, result, scored, keys.num_rows, n_records)


#: What a scoring leaves in the main schema and ``_drop_shared`` keeps: runscore's own
#: tables (the records a result reads later, the history keys read ahead).
_KEEP_PREFIX = "_rs_"

_SHARED_OBJECTS_SQL = """
SELECT 'VIEW', view_name FROM duckdb_views()
WHERE database_name = current_database() AND NOT temporary AND NOT internal
UNION ALL
SELECT 'TABLE', table_name FROM duckdb_tables()
WHERE database_name = current_database() AND NOT temporary AND NOT internal
"""


def _read_apart(
    unchanged: Sequence[sources.SourceFile], entry_of: dict[int, dict[str, Any]]
) -> set[int]:
    """The unchanged files (ids) holding a run that another of them holds too, when the
    two were not read by the same extract (their entries' ``batch`` differ, or is not
    known): that run was never scored from both."""
    first: dict[str, Any] = {}  # run -> the batch of the first file holding it
    split: set[str] = set()
    for f in unchanged:
        e = entry_of[id(f)]
        batch = e.get("batch")
        for r in e["runs"]:
            if r not in first:
                first[r] = batch
            elif batch is None or first[r] != batch:
                split.add(r)
    if not split:
        return set()
    return {id(f) for f in unchanged if split.intersection(entry_of[id(f)]["runs"])}


def _sharing_files(
    unchanged: Sequence[sources.SourceFile],
    entry_of: dict[int, dict[str, Any]],
    runs: set[str],
) -> list[sources.SourceFile]:
    """The unchanged files that hold a line of ``runs``, and so on: a file read again
    brings its other runs, whose other files must be read too (a run read from some of
    its files only was scored on part of its events, or said to be incomplete)."""
    by_run: dict[str, list[sources.SourceFile]] = {}
    for f in unchanged:
        for r in entry_of[id(f)].get("runs", ()):
            by_run.setdefault(r, []).append(f)
    pending = [r for r in runs if r in by_run]
    seen = set(pending)
    chosen: set[int] = set()
    while pending:
        for f in by_run[pending.pop()]:
            if id(f) in chosen:
                continue
            chosen.add(id(f))
            for r in entry_of[id(f)].get("runs", ()):
                if r not in seen:
                    seen.add(r)
                    pending.append(r)
    return [f for f in unchanged if id(f) in chosen]


def _drop_shared(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the views and tables scoring made in ``con``'s main schema, but
    ``_KEEP_PREFIX`` tables. Its macros are left: they hold no rows, and finding them
    (``duckdb_functions()`` lists every built-in function) took 0.013-0.021 s, against
    ~0.007 s for the rest, in an incremental extract of ~0.47 s."""
    try:
        drops = [
            f'DROP {kind} IF EXISTS "{name}"'  # a name from the catalog
            for kind, name in con.execute(_SHARED_OBJECTS_SQL).fetchall()
            if not str(name).startswith(_KEEP_PREFIX)
        ]
        if drops:
            # One transaction: one commit instead of one per object.
            con.execute("BEGIN; " + "; ".join(drops) + "; COMMIT")
    except duckdb.Error:
        # Called on the way out of an extract that failed too (an interrupted connection
        # refuses statements): that error is the one to see. What is left goes with the
        # database once no connection holds it, and after a failure none does.
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")


#: An incremental extract that reads at most this many files, of at most this many bytes
#: in all, runs DuckDB on one thread. Measured at 10k run files plus 100 new (~1 MB to
#: read): 0.84-0.85 s against 0.91 s with two threads (medians of 20 alternating runs):
#: on tiny tables a second DuckDB thread only competes for the two cores with the thread
#: reading the history's keys. Fresh extracts of 100-3,000 run files (1-31 MB) were no
#: slower on one thread, 10k run files (104 MB) 22% slower: the limit stays well below.
SMALL_READ_FILES = 1000
SMALL_READ_BYTES = 8 << 20


def _small_read(files: Sequence[sources.SourceFile]) -> bool:
    """Are ``files`` few and small (``SMALL_READ_*``)? Sizes not known yet are stat-ed."""
    if len(files) > SMALL_READ_FILES:
        return False
    total = 0
    for f in files:
        size = f.size
        if not size:
            try:
                size = os.stat(f.path).st_size
            except OSError:
                size = 0  # unreadable: the pre-scan says why; it adds nothing to read
        total += size
    return total <= SMALL_READ_BYTES


def _run_groups(cur: duckdb.DuckDBPyConnection) -> Iterator[list[str]]:
    """Consecutive rows of one run as one group (written with one write(2))."""
    group: list[str] = []
    current: str | None = None
    while True:
        batch = cur.fetchmany(10_000)
        if not batch:
            break
        for run_id, line in batch:
            if run_id != current and group:
                yield group
                group = []
            current = run_id
            group.append(line)
    if group:
        yield group


#: The idempotency keys of the history file ``$p``. Torn or foreign lines simply
#: contribute no key (ignore_errors): the reader of `report` is the one that diagnoses them.
_KEYS_SQL = """
    SELECT DISTINCT run_id, archetype, scoring_version, events_sha256
    FROM read_json($p, format='newline_delimited', ignore_errors=true,
                   columns={run_id: 'VARCHAR', archetype: 'VARCHAR',
                            scoring_version: 'VARCHAR', events_sha256: 'VARCHAR'})
    WHERE events_sha256 IS NOT NULL
"""


class _KeysAhead:
    """The history's idempotency keys, read on a worker thread while the runs are scored.

    Started once the new files are read: scoring a few runs is mostly single-threaded
    statement planning, which leaves the read a core. Started with the extract instead,
    it competed with the read of the files for the two cores and gained nothing
    (measured: 10k run files plus 1%, 0.06-0.075 s of keys at 31k history lines).

    Read before the history lock is taken, so only trusted while the history is the same
    file, of the same size and mtime, before the read, after it and under the lock:
    the history is only ever appended to (``history repair`` replaces the file), so
    that identity unchanged means no line came or went. Otherwise, or if the read
    failed, ``_existing_keys`` reads the history again under the lock, as it always did.
    """

    #: Where the keys are read to: the database's own schema (a temp table belongs to the
    #: connection that made it), so that they count against DuckDB's memory limit.
    TABLE = "main._rs_keys_ahead"

    def __init__(self, con: duckdb.DuckDBPyConnection, history_path: str) -> None:
        self._path = history_path
        # A cursor: its own connection to the same database, to query on another thread.
        self._cur = db.tracked(con.cursor())
        self._read_ok = False
        self._seen: tuple[_Identity, _Identity] = (None, None)
        self._thread = threading.Thread(target=self._read, name="runscore-history-keys")
        self._thread.start()

    def _read(self) -> None:
        try:
            before = _file_identity(self._path)
            self._cur.execute(
                f"CREATE OR REPLACE TABLE {self.TABLE} AS {_KEYS_SQL}", {"p": self._path}
            )
            self._read_ok, self._seen = True, (before, _file_identity(self._path))
        except (duckdb.Error, OSError):
            pass  # read again under the lock, where an error is raised as it always was

    def still_valid(self) -> bool:
        """Are the keys read those of the history now? (The caller holds its lock.)"""
        self.release()
        before, after = self._seen
        if not self._read_ok or before is None or before != after:
            return False
        return _file_identity(self._path) == before

    def release(self) -> None:
        self._thread.join()
        self._cur.close()


def _existing_keys(
    con: duckdb.DuckDBPyConnection, history_path: str, ahead: _KeysAhead | None = None
) -> int:
    """Load the idempotency keys of the history into ``_existing``; returns the count.

    ``ahead``: the keys read meanwhile, taken if still the history's."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _existing (run_id VARCHAR, archetype VARCHAR, "
        "scoring_version VARCHAR, events_sha256 VARCHAR)"
    )
    if ahead is not None and ahead.still_valid():
        con.execute(f"INSERT INTO _existing SELECT * FROM {ahead.TABLE}")
    elif os.path.exists(history_path) and os.path.getsize(history_path) > 0:
        con.execute(f"INSERT INTO _existing {_KEYS_SQL}", {"p": history_path})
    if ahead is not None:
        con.execute(f"DROP TABLE IF EXISTS {ahead.TABLE}")
    return int(con.execute("SELECT count(*) FROM _existing").fetchall()[0][0])


#: Rejected lines (and warnings) kept per file in the manifest, to be listed again when
#: the file is skipped as unchanged; past this many, the rest is counted, not listed.
MANIFEST_DIAGNOSTICS = 10_000


def _runs_by_file(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """The runs each file read holds lines of (for its manifest entry)."""
    return {
        path: list(runs)
        for path, runs in con.execute(
            "SELECT _file, list(DISTINCT run_id ORDER BY run_id) FROM accepted GROUP BY _file"
        ).fetchall()
    }


def _no_lines(
    con: duckdb.DuckDBPyConnection,
    readable: Sequence[sources.SourceFile],
    runs_by_file: dict[str, list[str]],
    result: ExtractResult,
) -> list[sources.LineIssue]:
    """The files read that hold no line (empty, or blank lines only): no run, nothing said
    of them, and no row read, each with the reason every reader gives. Only files with no
    run are asked of DuckDB, so a usual extract (every file holds a run) runs no query
    for it."""
    said = {i.file for i in result.unreadable + result.skipped_lines}
    maybe = [
        f
        for f in readable
        if f.display not in runs_by_file and f.display not in said and not f.stdin
    ]
    if not maybe:
        return []
    with_rows = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT _file FROM raw_events WHERE list_contains($files, _file)",
            {"files": [f.display for f in maybe]},
        ).fetchall()
    }
    return [_no_lines_said(f) for f in maybe if f.display not in with_rows]


def _no_lines_said(f: sources.SourceFile) -> sources.LineIssue:
    return sources.LineIssue(f.display, 0, sources.no_lines_reason(f, "events"))


def _manifest_entries(
    runs_by_file: dict[str, list[str]],
    version: str,
    files: Sequence[sources.SourceFile],
    result: ExtractResult,
    read_ns: int,
) -> dict[str, Any]:
    skipped: dict[str, list[list[Any]]] = {}
    for i in result.skipped_lines:
        skipped.setdefault(i.file, []).append([i.line, i.reason])
    warned: dict[str, list[list[Any]]] = {}
    for w in result.warnings:
        warned.setdefault(w.file, []).append([w.run_id, w.line, w.reason])
    # A file read without error can still have been given up on as a whole (its lines
    # could not be aligned): said with line 0, among the unreadable.
    given_up: dict[str, list[str]] = {}
    for u in result.unreadable:
        given_up.setdefault(u.file, []).append(u.reason)
    invalid = {str(i["run_id"]): i for i in result.invalid}
    incomplete = set(result.incomplete)
    no_lines = {i.file for i in result.no_lines}
    # Which extract read the file: files that hold one run and were read apart are read
    # again together (``_read_apart``).
    batch = os.urandom(8).hex()
    out: dict[str, Any] = {}
    for f in files:
        if f.stdin:
            continue  # a pipe has no identity to skip it by next time
        runs = runs_by_file.get(f.display, [])
        entry: dict[str, Any] = {
            "size": f.size,
            "mtime_ns": f.mtime_ns,
            "ctime_ns": f.ctime_ns,
            "read_ns": read_ns,
            "sha256": f.sha256,
            "runs": runs,
            "batch": batch,
        }
        for key, items in (
            ("skipped", skipped.get(f.display)),
            ("warnings", warned.get(f.display)),
        ):
            if items:
                entry[key] = items[:MANIFEST_DIAGNOSTICS]
                if len(items) > MANIFEST_DIAGNOSTICS:
                    entry[key + "_more"] = len(items) - MANIFEST_DIAGNOSTICS
        if f.display in given_up:
            entry["unreadable"] = given_up[f.display]
        if f.display in no_lines:  # listed again while unchanged, as its rejected lines are
            entry["no_lines"] = True
        bad = [invalid[r] for r in runs if r in invalid]
        if bad:
            entry["invalid"] = bad
        open_runs = [r for r in runs if r in incomplete]
        if open_runs:
            entry["incomplete"] = open_runs
        out[_manifest_key(version, f)] = entry
    return out


#: What a manifest that could not be saved means: the records were written all the same.
MANIFEST_UNSAVED = (
    "the runs are in the history; these run logs are read again next time (no run is written twice)"
)


def _saving(history_path: str, save: Callable[..., None], *args: Any) -> ManifestUnsaved | None:
    """``save(*args)``; None when it worked, else why not. The manifest only saves
    reading: an extract whose records are written (or that had none) has done its work,
    and says why the next one will read these files again."""
    try:
        save(*args)
    except CannotAccess:
        raise  # its lock file refused (an OSError too): said as the extract's lock is
    except HistoryError as e:  # a symlink in its place
        if e.file is not None and e.reason is not None:
            return ManifestUnsaved(e.file, e.reason)
        return ManifestUnsaved(manifest_path(history_path), str(e))
    except OSError as e:
        file = e.filename if isinstance(e.filename, str) and e.filename else None
        return ManifestUnsaved(file or manifest_path(history_path), e.strerror or str(e))
    return None


def _save_refreshed(
    history_path: str,
    version: str,
    refreshed: dict[str, Any],
    loaded: _Manifest | None,
    gone: Sequence[str],
) -> None:
    """Save the new times of files found unchanged by their hash, and drop the entries
    of deleted files, when nothing else is saved. Only if the history's lock is free
    now: neither changes what is scored, and a night with nothing new never waits for
    another writer."""
    try:
        with history.locked(history_path, timeout=0, about=HISTORY_PATH):
            _save_manifest(history_path, version, refreshed, loaded, gone)
    except LockTimeout:
        pass  # the next extract hashes them again, and saves them then


def _remove_left_temps_if_free(history_path: str) -> None:
    """Remove what killed processes left beside the history (``history.remove_left_temps``)
    when an extract has nothing to write: only if there is any (one listing of the folder),
    and only if the history's lock is free now, as ``_save_refreshed`` saves. Without it
    they waited for the next extract with new runs (nights, weeks on a quiet project);
    waiting for the lock here would make a read of nothing wait for another writer."""
    if not history.has_left_temps(history_path):
        return
    # Best effort: the history and its lock file were checked before any work; a lock
    # that cannot be taken now leaves them for the next writer, as before.
    with contextlib.suppress(LockTimeout, OSError, HistoryError, UsageError):
        with history.locked(history_path, timeout=0, about=HISTORY_PATH):
            pass  # taking the lock removes them


def _relist(
    result: ExtractResult,
    unchanged: Sequence[tuple[sources.SourceFile, dict[str, Any]]],
    order: dict[str, int],
) -> None:
    """Add to ``result`` what the manifest recorded of the ``unchanged`` files.

    ``unchanged``: each file with its manifest entry."""
    invalid = {str(i["run_id"]) for i in result.invalid}
    incomplete = set(result.incomplete)
    for f, e in unchanged:
        for line, reason in e.get("skipped", []):
            result.skipped_lines.append(sources.LineIssue(f.display, line, reason))
        if e.get("skipped_more"):
            result.skipped_lines.append(
                sources.LineIssue(
                    f.display,
                    0,
                    f"and {e['skipped_more']} more rejected line(s), not listed "
                    "again: the file is unchanged since it was read",
                )
            )
        for reason in e.get("unreadable", []):
            result.unreadable.append(sources.LineIssue(f.display, 0, reason))
        if e.get("no_lines") is True:
            result.no_lines.append(_no_lines_said(f))
        for run_id, line, reason in e.get("warnings", []):
            result.warnings.append(RunIssue(f.display, line, reason, run_id=run_id))
        for inv in e.get("invalid", []):
            if inv["run_id"] not in invalid:
                invalid.add(inv["run_id"])
                result.invalid.append(inv)
        for run_id in e.get("incomplete", []):
            if run_id not in incomplete:
                incomplete.add(run_id)
                result.incomplete.append(run_id)
    if unchanged:
        result.skipped_lines.sort(key=lambda i: (order.get(i.file, len(order)), i.line))
        result.unreadable.sort(key=lambda i: order.get(i.file, len(order)))
        result.warnings.sort(key=lambda w: (w.run_id, w.file, w.line, w.reason))


def _save_manifest(
    history_path: str,
    version: str,
    entries: dict[str, Any],
    loaded: _Manifest | None = None,
    gone: Sequence[str] = (),
) -> None:
    """Merge ``entries`` into the manifest (caller holds the history lock).

    ``loaded``: the manifest as this extract read it. It is merged into as it is when
    the file is still the one read (no other writer saved since): parsing 10k entries
    again was ~25 ms of a ~0.7 s incremental extract. And the decision made when it
    was read stands: a manifest not trusted then (its history was truncated or
    replaced) is not trusted again because this extract's append made the history
    long enough to look like the one it described.
    """
    mp = manifest_path(history_path)
    with contextlib.suppress(OSError):
        mode = os.lstat(mp).st_mode
        # A FIFO (a device, a socket) is not runscore's to replace; a symlink is refused
        # by the write, and a folder's rename fails with its own reason.
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
            why = "not a regular file"
            raise HistoryError(f"{quote_path(mp)}: {why}", file=mp, reason=why, about=HISTORY_PATH)
    if loaded is None or _file_identity(mp) != loaded.identity:
        loaded = _load_manifest(history_path)
    m = loaded.doc
    spliced = None if gone else _spliced_manifest(loaded, entries)
    for key in gone:
        m["files"].pop(key, None)
    m["files"].update(entries)
    try:
        m["history_size"] = os.stat(history_path).st_size
    except OSError:
        m["history_size"] = 0
    m["history_tail"] = _history_tail(history_path, m["history_size"]) or ""
    # Entries stay in the order they were first written (deterministic for the same
    # sequence of extracts); sorting every key of 10k entries cost ~10 ms a save.
    head = _MANIFEST_HEAD % (m["history_size"], m["history_tail"])
    text = _manifest_text(m) if spliced is None else head + spliced
    # Not synced (~6 ms of a ~0.42 s incremental extract): the manifest only saves
    # reading. The history it describes is synced before it is written, and after a
    # crash it is the old manifest (older files read again, their runs already scored
    # by key), this one, or text that does not parse (not trusted: every file read
    # again). None of them skips a file whose runs the history lacks.
    # Under the history's lock, whose holder removed the manifest's left temporary files.
    history.atomic_write_text(
        manifest_path(history_path), text, durable=False, sweep=False, about=HISTORY_PATH
    )


#: How ``_manifest_text`` opens a manifest: the history's size, then the entries.
_MANIFEST_HEAD = '{"history_size":%d,"history_tail":"%s","files":{'
_MANIFEST_HEAD_RE = re.compile(r'\{"history_size":[0-9]+,"history_tail":"[0-9a-f]*","files":\{')
_MANIFEST_KEYS = ["history_size", "history_tail", "files"]


def _manifest_text(m: dict[str, Any]) -> str:
    return json.dumps({k: m[k] for k in _MANIFEST_KEYS}, separators=(",", ":"))


def _spliced_manifest(loaded: _Manifest, entries: dict[str, Any]) -> str | None:
    """The manifest's text after its head, with ``entries`` added — built from the text
    as read, not by serialising every entry again (10k entries: ~30 ms a save, most of an
    incremental extract's manifest cost). The same text ``_manifest_text`` gives, byte
    for byte. None when that cannot be had so: an entry replaces one (it would move in
    the order), or the text is not exactly as ``_manifest_text`` writes it."""
    text = loaded.text
    if text is None or any(k in loaded.doc["files"] for k in entries):
        return None
    head = _MANIFEST_HEAD_RE.match(text)
    if head is None or not text.endswith("}}") or list(loaded.doc) != _MANIFEST_KEYS:
        return None
    body = text[head.end() : -2]
    if bool(body) != bool(loaded.doc["files"]):
        return None
    added = json.dumps(entries, separators=(",", ":"))[1:-1]  # the entries, no braces
    return ",".join(part for part in (body, added) if part) + "}}"
