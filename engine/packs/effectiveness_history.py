"""Effectiveness history analytics: report, recommend, summary, ad-hoc SQL, export.

Everything here is computed on demand from the append-only history
(``.archeflow/memory/effectiveness.jsonl``, spec effectiveness §4-§8). Python only
orchestrates: it reads the history through ``sources.read_jsonl`` (torn or foreign
lines become ``file:line: reason`` issues, never a crash), flattens a team YAML
into rows, and runs the SQL of a scoring version:

* ``sql/effectiveness/<version>/100-149`` — history typing, thresholds, windows,
  model tiers, per-archetype runs, aggregates, trend (with its exact bootstrap
  interval) and the report rows;
* ``150-169`` — team members, default models, team recommendations;
* ``170-179`` — the run-start summary.

A history line names the scoring version that wrote it; reports never mix versions
unless asked (``version="all"``). ArcheFlow's own 15-field lines are read as
``archeflow-legacy``.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "report",
    "summary",
    "recommend",
    "run_sql",
    "schema",
    "export",
    "ReportResult",
    "SummaryResult",
    "RecommendResult",
    "SqlResult",
    "ExportResult",
    "refuse_an_event_input",
    "views_read",
    "window_range",
    "DEFAULT_HISTORY",
    "EVENT_VIEWS",
    "HISTORY_VIEWS",
    "MAX_WINDOW",
]

import difflib
import errno
import functools
import operator
import os
import re
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
from runscore.engine import db, duck, history, sources, sqlpack
from runscore.engine.duck import duckdb
from runscore.engine.errors import (
    Arg,
    CannotAccess,
    Note,
    NothingReadable,
    Part,
    SqlPackError,
    UsageError,
    interrupted,
)
from runscore.engine.history import is_stream, require_path
from runscore.engine.packs import effectiveness, effectiveness_cache
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

if TYPE_CHECKING:
    from runscore.engine.duck import DuckDBPyType


PACK = "effectiveness"
LEGACY = "archeflow-legacy"
#: Relative to the current directory, as in ArcheFlow (the same file `extract` writes).
DEFAULT_HISTORY = effectiveness.DEFAULT_HISTORY

#: The history record of spec §4, in order: ArcheFlow's 15 fields, then runscore's.
HISTORY_FIELDS: tuple[str, ...] = (
    "ts",
    "run_id",
    "archetype",
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency",
    "accuracy",
    "cycle_impact",
    "composite_score",
    "tokens",
    "cost_usd",
    "model",
    "findings_total",
    "findings_useful",
    "fixes_applied",
    "scoring_version",
    "run_ts",
    "cost_basis",
    "cost_efficiency_norm",
    "findings_contradicted",
    "events_sha256",
    "source",
)

# Stages of a version folder, by file number (see the module docstring). File 100 types
# the history; load_history runs it (the newest version's: it reads every version's
# lines), so the report stage proper starts after it.
_REPORT = (100, 149)
_AFTER_LOAD = (101, 149)
_TEAM = (150, 169)
_SUMMARY = (170, 179)

#: Views `runscore sql` registers, with what they hold (also printed by `--help`).
HISTORY_VIEWS: dict[str, str] = {
    "history": "every usable history line, all scoring versions, typed (§4 fields + "
    "history_file, history_line)",
    "history_current": "the current line per (run_id, archetype, scoring_version): latest ts",
    "archetype_runs": "current lines of the selected scoring version with recency (1 = newest "
    "by run_ts), runs, in_window, trend_half",
    "archetype_aggregates": "per archetype: runs, rolling means over the window, model, "
    "value_per_dollar",
    "report": "the report rows (what `runscore report --format json` prints)",
}
EVENT_VIEWS: dict[str, str] = {
    "events": "normalised events of every run that is not invalid, one row per (run_id, seq)",
    "verdicts": "one row per review.verdict event",
    "findings": "one row per finding of a verdict",
    "fixes": "one row per fix.applied event",
    "fix_attribution": "one row per (run, fix, archetype) it is attributed to",
    "run_scores": "one row per scored (run, review archetype), every dimension",
    "run_status": "one row per run: scored / incomplete / invalid, with the reason",
}


# --------------------------------------------------------------------------- versions


def _version_key(v: str) -> tuple[int, int, str]:
    m = re.fullmatch(r"v(\d+)", v)
    return (1, int(m.group(1)), v) if m else (0, 0, v)


def sql_version_of(scoring_version: str) -> str | None:
    """'effectiveness/v1' → 'v1'; 'archeflow-legacy' → itself; anything else → None."""
    if scoring_version == LEGACY:
        return LEGACY
    m = re.fullmatch(r"effectiveness/(v\d+)", scoring_version)
    return m.group(1) if m else None


def scoring_version_of(sql_version: str) -> str:
    return LEGACY if sql_version == LEGACY else f"{PACK}/{sql_version}"


def report_versions() -> list[str]:
    """SQL versions that can report (have files numbered 100-149), oldest first."""
    out = []
    for v in sqlpack.versions(PACK):
        try:
            fs = sqlpack.files(PACK, v)
        except SqlPackError:
            continue
        if any(_REPORT[0] <= int(f.name[:3]) <= _REPORT[1] for f in fs):
            out.append(v)
    return sorted(out, key=_version_key)


def parse_version_option(requested: str | None, *, allow_all: bool = True) -> str | None:
    """Validate a ``--sql-version`` value: None, 'all' (``allow_all``: report's only), or a
    known version (either form). The callers that refuse 'all' do so first, with why."""
    if requested is None or requested == "all":
        return requested
    sources.text_arg(requested, SQL_VERSION, 'a scoring version as text ("v1")')
    known = report_versions()
    v = requested if requested in known else sql_version_of(requested)
    if v is None or v not in known:
        have = ", ".join(known + (["all"] if allow_all else []))
        raise UsageError(
            f"unknown scoring version {quote(requested)} (have: {have})", about=SQL_VERSION
        )
    return v


# --------------------------------------------------------------------------- history


@dataclass
class HistoryLoad:
    """What reading the history found. ``issues`` are skipped lines (``file:line``)."""

    path: str
    exists: bool
    lines: int = 0
    issues: list[LineIssue] = field(default_factory=list)
    #: scoring_version → number of usable lines
    versions: dict[str, int] = field(default_factory=dict)
    #: which reader typed the lines: "fast" (100_history_fast.sql, one scan) or "careful"
    #: (sources.read_jsonl + 100_history.sql, which names every bad line); "cache" (the
    #: typed lines of an earlier read, effectiveness_cache), or "cache+fast" /
    #: "cache+careful" when lines appended since were typed by that reader
    reader: str = "careful"

    def present_sql_versions(self) -> list[str]:
        known = set(report_versions())
        vs = {sql_version_of(s) for s in self.versions}
        return sorted((v for v in vs if v is not None and v in known), key=_version_key)

    def unknown_versions(self) -> dict[str, int]:
        known = set(report_versions())
        return {s: n for s, n in sorted(self.versions.items()) if sql_version_of(s) not in known}


def connect() -> duckdb.DuckDBPyConnection:
    con = db.connect()
    # Naive times in the history are UTC, and results print in UTC whatever the host.
    con.execute("SET TimeZone = 'UTC'")
    return con


def load_history(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    *,
    version: str | None = None,
    about: Arg | None = None,
) -> HistoryLoad:
    """Read the history file into ``history_raw`` and build ``history``/``history_current``.

    A missing file is an empty history (``exists`` False). A directory, or a file that
    cannot be read, is a usage error. ``version`` picks whose ``100_history.sql`` types
    the lines (the newest known one by default; the file is the same in every version).
    ``about``: the caller's argument that gave ``path`` (default ``path``), which its
    errors name in ``params``.
    """
    about = about or PATH
    p = os.fspath(path)
    # else discover() says it is not read: an empty history
    history.require_utf8_name(p, about=about)
    load = HistoryLoad(path=p, exists=os.path.exists(p) or os.path.islink(p))
    if os.path.isdir(p):
        raise UsageError(
            f"{quote_path(p)}: the history must be a file, not a directory", about=about
        )
    files: list[sources.SourceFile] = []
    if load.exists:
        files, _missing = sources.discover([p])
    v = version or report_versions()[-1]
    cache = effectiveness_cache.settings()
    read_ns = time.time_ns()
    single = len(files) == 1 and _regular(files[0].path) and effectiveness_cache.supported(v)
    if cache.enabled and single:
        hit = effectiveness_cache.read(
            con,
            files[0],
            v,
            load,
            load_files=functools.partial(_load_files, about=about),
            drop=_drop_relation,
            new_load=lambda: HistoryLoad(path=p, exists=True),
            min_lines=cache.min_lines,
        )
        if hit:
            return load
    _load_files(con, files, v, load, cache.enabled and single, about)
    if cache.enabled and single:
        effectiveness_cache.write_after_full_read(
            con, files[0], v, load.issues, cache.min_lines, read_ns
        )
    return load


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _load_files(
    con: duckdb.DuckDBPyConnection,
    files: list[sources.SourceFile],
    v: str,
    load: HistoryLoad,
    digest: bool,
    about: Arg,
) -> None:
    """Type the history lines of ``files`` into the history relations, filling ``load``.

    ``digest``: also take each file's SHA-256 in its pre-scan (for the cache).
    """
    # rs_iso_text: the history readers read a time as a run log's is read.
    sqlpack.run_common(con, effectiveness.COMMON_VERSION)
    fast, scanned, vouched = _load_fast(con, files, v, digest)
    for f in files:
        if not scanned:
            sources.prescan(f, digest=digest, piecewise=True)
        if f.error is not None:
            raise UsageError(f"{quote_path(f.display)}: {f.error}", about=about)
    if fast:
        load.reader = "fast"
        rows = con.execute(
            "SELECT scoring_version, lines FROM history_version_lines ORDER BY 1"
        ).fetchall()
    else:
        res = sources.read_jsonl(con, files, "history_raw", {k: "JSON" for k in HISTORY_FIELDS})
        load.issues.extend(res.skipped)
        _find_duplicate_keys(con, [f for f in files if not _unchanged(f, vouched)], v)
        sqlpack.execute(con, sqlpack.load(PACK, v, "100_history"))
        load.issues.extend(
            LineIssue(str(f), int(line), str(reason))
            for f, line, reason in con.execute(
                "SELECT file, line, reason FROM history_issues"
            ).fetchall()
        )
        load.issues.sort(key=lambda i: i.line)
        rows = con.execute(
            "SELECT scoring_version, count(*) FROM history GROUP BY ALL ORDER BY 1"
        ).fetchall()
    load.versions = {str(s): int(n) for s, n in rows}
    load.lines = sum(load.versions.values())


#: The fast path's SQL file (types lines while scanning; see its header).
_FAST_FILE = "100_history_fast"
#: Finds lines that give a field twice, for the careful path (see its header).
_KEYS_FILE = "100_history_keys"


def _unchanged(f: sources.SourceFile, before: os.stat_result | None) -> bool:
    """``f`` is as it was at ``before`` (None: never), by size, mtime and inode: the history
    is append-only, so a file that did not grow holds no line a read then did not see."""
    if before is None:
        return False
    try:
        now = os.stat(f.path)
    except OSError:
        return False
    return (now.st_size, now.st_mtime_ns, now.st_ino, now.st_dev) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
        before.st_dev,
    )


def _find_duplicate_keys(
    con: duckdb.DuckDBPyConnection, files: Sequence[sources.SourceFile], v: str
) -> None:
    """Fill ``history_dup_keys`` (which 100_history.sql reads) with the lines of ``files``
    that give a §4 field twice: each file's text is read once more and its keys listed in
    SQL (a few seconds per 1M lines, a fifth of the careful read), so the caller passes only
    files the fast path's scan could not vouch for (its read_json refuses such a line, and
    so reads past none)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE history_dup_keys (file VARCHAR, line BIGINT, keys VARCHAR)"
    )
    if not files:
        return
    sql = sqlpack.load(PACK, v, _KEYS_FILE)
    limit = sources.max_line_limit()
    for f in files:
        try:
            for content, base in sources.text_groups(f, limit):
                duck.register(con, "_hk_text", pa.table({"content": content, "base": base}))
                try:
                    sqlpack.execute(con, sql, {"file": f.display, "fields": list(HISTORY_FIELDS)})
                finally:
                    con.unregister("_hk_text")
        except OSError:
            continue  # read_jsonl has reported the file; nothing of it is left to check


#: What it creates: views in the fast path, some of them tables in the careful one.
_FAST_RELATIONS = (
    "history",
    "history_current",
    "history_version_lines",
    "history_issues",
    "history_fast_check",
    "_hf_typed",
    "_hf_file",
)


def _drop_relation(con: duckdb.DuckDBPyConnection, name: str) -> None:
    # DROP TABLE on a view (and the reverse) is an error, so ask the catalog which it is.
    kind = con.execute(
        "SELECT 'VIEW' FROM duckdb_views() WHERE view_name = $n AND temporary "
        "UNION ALL SELECT 'TABLE' FROM duckdb_tables() WHERE table_name = $n AND temporary",
        {"n": name},
    ).fetchall()
    for (k,) in kind:
        con.execute(f"DROP {k} IF EXISTS {name}")  # name is one of ours, never input


def _load_fast(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[sources.SourceFile],
    version: str,
    digest: bool = False,
) -> tuple[bool, bool, os.stat_result | None]:
    """Type a clean history in one scan. Returns (answered, pre-scanned, vouched).

    vouched: the file's stat from before the scan when the scan read it to its end, else
    None. Its read_json refuses a line that gives a field twice, so a file still as it was
    then has no such line, and the careful path need not look for them (``_unchanged``).

    The fast path is exact only for a file the pre-scan finds clean whose every line is
    a JSON object in the plain form (see ``100_history_fast.sql``); anything else goes to
    the careful path, which names each bad line. A file whose record count differs from
    its line count (a blank or torn line) also goes there: line numbers must be exact.
    When it does not answer, nothing it created is left behind.
    """
    if len(files) != 1:
        return False, False, None
    f = files[0]
    try:
        before: os.stat_result | None = os.stat(f.path)
    except OSError:
        before = None
    if before is None or not stat.S_ISREG(before.st_mode):
        return False, False, None  # a FIFO would block read_json; the pre-scan reports it
    try:
        fast = sqlpack.load(PACK, version, _FAST_FILE)
    except SqlPackError:
        return False, False, None
    limit = sources.max_line_limit()
    for name in _FAST_RELATIONS:
        _drop_relation(con, name)  # a table of the careful path's may have the name
    # The pre-scan (Python, holding the GIL) and DuckDB's scan (its own threads) read the
    # file at the same time; the result is used only if the pre-scan then finds it clean.
    failure: SqlPackError | None = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        scan = pool.submit(sources.prescan, f, digest=digest, piecewise=True)
        try:
            sqlpack.execute(
                con,
                fast,
                # No line is longer than the file: a small history's buffers are not sized
                # for the line limit (2 x 64 MiB, against the memory limit). One grown
                # since the stat past that fails the read, which then goes the careful way.
                {
                    "files": [f.path],
                    "display": f.display,
                    "max_object_size": min(limit, before.st_size) + 1024,
                },
            )
            lines, bad = con.execute(
                "SELECT lines, nonconforming FROM history_fast_check"
            ).fetchall()[0]
        except SqlPackError as e:
            failure, lines, bad = e, -1, -1
        scan.result()
    if failure is not None and interrupted(failure):
        # A Ctrl-C stops the command; it is no reason to read the file the careful way
        # (which the test below did when the pre-scan had found the file unreadable).
        raise failure
    # read_json refuses what the careful path reports line by line (malformed JSON, a line
    # that is not an object, duplicate keys): let it. An unreadable file is the pre-scan's
    # to report. Anything else is a bug.
    if (
        failure is not None
        and f.error is None
        and not isinstance(failure.__cause__, duckdb.InvalidInputException)
    ):
        raise failure
    clean = f.error is None and f.clean and f.size > 0 and f.long_line <= limit
    if clean and lines == f.lines and bad == 0:
        return True, True, before
    for name in _FAST_RELATIONS:
        _drop_relation(con, name)
    return False, True, before if failure is None else None


def _notes_for(load: HistoryLoad) -> list[str]:
    notes = []
    if not load.exists:
        notes.append(
            f"no effectiveness history at {quote_path(load.path)}; run `runscore extract` first"
        )
    for s, n in load.unknown_versions().items():
        notes.append(
            f"{load.path}: {n} line(s) of scoring version {quote(s)} ignored "
            f"(this runscore knows {', '.join(scoring_version_of(v) for v in report_versions())})"
        )
    return notes


def _version_notes(
    load: HistoryLoad, versions: Sequence[str], *, side_by_side: bool, others_note: bool = True
) -> list[str]:
    """What report, recommend and summary all say of the versions they did not use:
    ``versions`` (SQL versions) are those used; ``side_by_side``: ``--sql-version all``
    is there to show the others too (report only). ``others_note`` False: the caller says
    the lines of the others in its own words (``other_versions``)."""
    notes: list[str] = []
    for v in versions:
        if scoring_version_of(v) not in load.versions and load.lines:
            notes.append(f"no history lines of scoring version {scoring_version_of(v)}")
    others = other_versions(load, versions)
    if others and others_note:
        how: list[Part] = (
            ["reported separately: use ", VERSION, " or ", ALL]
            if side_by_side
            else ["not used here: use ", VERSION]
        )
        notes.append(Note(f"{load.path} also holds {', '.join(others)} lines, ", *how))
    return notes


#: A version's file that finds the runs its cost averages count as $0 though their cost is
#: unknown (archeflow-legacy: ArcheFlow's scorer writes 0 for a missing cost).
UNKNOWN_COSTS_FILE = "145_unknown_costs"


def _unknown_cost_notes(
    con: duckdb.DuckDBPyConnection, version: str, shown: Iterable[str] | None = None
) -> list[str]:
    """A note when the cost averages of ``version`` (staged on ``con``) count a run whose
    cost is unknown as 0 (sql ``UNKNOWN_COSTS_FILE``): the spec keeps printing
    '$0.00/run avg' for it, which alone reads as an archetype that costs nothing. Only the
    archetypes ``shown`` (all when None); none for a version without the file."""
    if not any(f.name[:-4] == UNKNOWN_COSTS_FILE for f in sqlpack.files(PACK, version)):
        return []
    wanted = None if shown is None else set(shown)
    parts = [
        f"{quote(a)} {k} of {n} run{'' if n == 1 else 's'}"
        for a, k, n in con.execute(
            "SELECT archetype, unknown_cost_runs, runs_in_window FROM unknown_costs"
        ).fetchall()
        if wanted is None or a in wanted
    ]
    if not parts:
        return []
    return [
        f"{scoring_version_of(version)}: cost averages count an unknown cost as $0 "
        "(ArcheFlow writes cost_usd 0 for a missing cost; cost_basis unknown or not "
        "written): " + ", ".join(parts)
    ]


def other_versions(load: HistoryLoad, versions: Sequence[str]) -> list[str]:
    """The scoring versions of the history's lines that ``versions``, those used (SQL
    versions, ``v1``, or scoring versions, ``effectiveness/v1``), leave out, oldest first."""
    used = {scoring_version_of(v) for v in versions} | set(versions)
    return [
        scoring_version_of(v)
        for v in load.present_sql_versions()
        if scoring_version_of(v) not in used
    ]


def _require_history(load: HistoryLoad) -> None:
    """No history file: nothing could be read (exit 3), for report and recommend alike.
    (``summary`` answers "no scored runs yet" instead: it runs at every run's start.)"""
    if not load.exists:
        raise NothingReadable(
            f"no effectiveness history at {quote_path(load.path)}; run `runscore extract` first",
            about=PATH,
        )


def _require_readable(load: HistoryLoad, about: Arg) -> None:
    """A history with lines but not one the reader takes (each not JSON, torn, of the
    wrong kind, ...) is nothing read (exit 3, as ``extract``, ``pipeline`` and ``routes``
    over such input): an answer of no rows (``[]``, a header-only CSV) would read as "read,
    and no rows". The skipped lines are listed as every such error lists them (the first
    20, ``sources.listed``), each in ``problems``. A history of no
    lines at all (empty, or blank lines only) is read, and has no rows. ``about``: the
    caller's argument that gave the history."""
    if load.lines == 0 and load.issues:
        raise NothingReadable(
            f"no line of the history {quote_path(load.path)} could be read:\n"
            + sources.listed(load.issues),
            [(i.file, i.line, i.reason) for i in load.issues],
            about=about,
        )


def select_versions(load: HistoryLoad, requested: str | None) -> list[str]:
    """SQL versions to report: the newest present by default, all present with 'all'."""
    requested = parse_version_option(requested)
    present = load.present_sql_versions()
    if requested == "all":
        return present or [report_versions()[-1]]
    if requested is not None:
        return [requested]
    return [present[-1]] if present else [report_versions()[-1]]


def _stage(
    con: duckdb.DuckDBPyConnection, version: str, stage: tuple[int, int], params: dict[str, Any]
) -> None:
    sqlpack.run_range(con, PACK, version, stage[0], stage[1], params)


#: The arguments messages name: as a Python call spells them, and the command line.
WINDOW = Arg("window", "--window")
ALL = Arg("version", "--sql-version all", 'version="all"')
VERSION = Arg("version", "--sql-version VERSION", "version=VERSION")
EVENTS = Arg("events", "--events PATH", "events=PATH")
TO = Arg("to", "--to")
PIPELINES = Arg("pipelines", "--pipelines FILE", "pipelines=FILE")
#: The path and text arguments, as a wrong-typed one is named (``sources.one_path``).
PATH = Arg("path", "--history")
HISTORY = Arg("history", "--history")
TEAM = Arg("team_yaml", "--team")
#: ``parse_team``'s own ``path``.
TEAM_PATH = Arg("path", "--team")
QUERY = Arg("query", "QUERY")
SQL_VERSION = Arg("version", "--sql-version")

#: The largest --window DuckDB takes (arg_max's n must be below 1,000,000).
MAX_WINDOW = 999_999


def window_range() -> str:
    """What a window may be, as every message that refuses one says it (the CLI's at
    parse time, the API's here): one wording for 0 and for 10**20 alike."""
    return f"a whole number of runs from 1 to {MAX_WINDOW}"


def _params(version: str, window: int | None, **extra: Any) -> dict[str, Any]:
    # The SQL takes it as an INTEGER, and its arg_max(..., n) wants n < 1000000. Only an
    # integer is a window, as the CLI takes only digits: the cast made 2.5 a window of 2
    # and True one of 1, and a string failed in the comparison with a TypeError.
    if window is not None:
        try:
            n = None if isinstance(window, bool) else operator.index(window)
        except TypeError:
            n = None
        if n is None or not 1 <= n <= MAX_WINDOW:
            raise UsageError(WINDOW, f" must be {window_range()}, not {quote(window)}")
        window = n
    return {"scoring_version": scoring_version_of(version), "window": window, **extra}


# --------------------------------------------------------------------------- report


@dataclass
class ReportResult:
    table: pa.Table
    versions: list[str]  # scoring versions shown, oldest first
    window: int
    history: HistoryLoad
    notes: list[str] = field(default_factory=list)
    #: the version's windows row (window_runs, trend_runs, trend_margin, interval_level, ...)
    windows: dict[str, Any] = field(default_factory=dict)
    #: per scoring version shown: what its scores and trend deltas are judged against
    #: (``bounds_of``)
    bounds: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    @property
    def issues(self) -> list[LineIssue]:
        return self.history.issues


def _window_of(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT window_runs FROM windows").fetchall()[0][0])


def bounds_of(con: duckdb.DuckDBPyConnection) -> dict[str, list[float]]:
    """The values a staged version judges by, for reports that print a value beside its
    verdict (so that it never reads as one of them: ``output.fmt_vs``): "score", the
    cut-offs of its ``thresholds`` (110: every DOUBLE column), and "delta", ± the
    ``trend_margin`` of its ``windows`` (115)."""
    names = [
        str(r[0])
        for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'thresholds' "
            "AND database_name = 'temp' AND data_type = 'DOUBLE' ORDER BY column_index"
        ).fetchall()
    ]
    score = (
        [float(v) for v in con.execute(f"SELECT {', '.join(names)} FROM thresholds").fetchall()[0]]
        if names
        else []
    )
    margin = float(con.execute("SELECT trend_margin FROM windows").fetchall()[0][0])
    return {"score": score, "delta": [margin, -margin]}


def _windows_of(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    rows: list[dict[str, Any]] = duck.sql(con, "SELECT * FROM windows").to_arrow_table().to_pylist()
    return rows[0]


def report(
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    version: str | None = None,
    window: int | None = None,
    *,
    others_note: bool = True,
) -> ReportResult:
    """Per-archetype aggregates (spec §5) of one scoring version (or 'all', side by side).
    ``others_note`` False leaves out the note on lines of other versions, worded for the
    `report` command (``--sql-version``), for a caller that says it its own way.

    Columns of ``table``, one row per (scoring version, archetype), in archetype order
    (sql 140; the averages are over the window of each archetype's newest runs):

    - ``archetype``: the review archetype, as the history writes it
    - ``scoring_version``: the version whose lines these are (``effectiveness/v1``)
    - ``runs``: the archetype's scored runs in the history
    - ``avg_composite``: mean composite score (0-1)
    - ``avg_signal_noise``: mean signal-to-noise score
    - ``avg_fix_rate``: mean fix rate
    - ``avg_cost_efficiency``: mean cost efficiency, of the runs with one (null: none)
    - ``avg_accuracy``: mean accuracy
    - ``avg_cost_usd``: mean cost in USD, of the runs with a known cost (null: unknown)
    - ``trend``: improving, declining, stable or insufficient_data
    - ``recommendation``: keep, optimize or consider_removing
    - ``model``: the window's most frequent model (``unknown`` when none is named)
    - ``value_per_dollar``: avg_composite / avg_cost_usd (null: no known cost, or 0)
    - ``suggestion``: the model action code: keep, upgrade, downgrade, remove or none
    - ``runs_in_window``: the runs the averages are over
    - ``window_runs``: the window asked for (``window``)
    - ``cost_runs``: the window's runs with a known cost (avg_cost_usd's)
    - ``model_tier``: the tier of ``model`` (null: a model of no known tier)
    - ``model_tier_rank``: that tier's rank (1: the cheapest)
    - ``suggested_model``: the model an upgrade or downgrade suggests, else null
    - ``trend_delta``: mean composite of the newest trend runs less that of those before
    - ``trend_delta_low``: the low bound of the delta's bootstrap interval
    - ``trend_delta_high``: its high bound
    - ``trend_significant``: the interval leaves out 0 (null: too few runs)
    """
    others_note = sources.flag_arg(others_note, "others_note")
    path = sources.one_path(path, PATH)
    parse_version_option(version)
    con = connect()
    load = load_history(con, path, about=PATH)
    _require_history(load)
    _require_readable(load, PATH)
    versions = select_versions(load, version)
    tables = []
    windows: dict[str, Any] = {}
    bounds: dict[str, dict[str, list[float]]] = {}
    cost_notes: list[str] = []
    for v in versions:
        _stage(con, v, _AFTER_LOAD, _params(v, window))
        tables.append(duck.sql(con, "SELECT * FROM report").to_arrow_table())
        windows = _windows_of(con)
        bounds[scoring_version_of(v)] = bounds_of(con)
        cost_notes += _unknown_cost_notes(con, v)
    notes = (
        _notes_for(load)
        + _version_notes(load, versions, side_by_side=True, others_note=others_note)
        + cost_notes
    )
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return ReportResult(
        table,
        [scoring_version_of(v) for v in versions],
        int(windows["window_runs"]),
        load,
        notes,
        windows,
        bounds,
    )


# --------------------------------------------------------------------------- teams


@dataclass(frozen=True)
class Team:
    path: str
    name: str | None
    #: (name, phase, model) per mention, in file order
    entries: tuple[tuple[str, str, str | None], ...]


_PHASES = ("plan", "do", "check")
#: The keys team members are read from (spec §6).
_MEMBER_KEYS = (*_PHASES, "archetypes", "model_overrides")


def _load_team_yaml(text: str) -> tuple[Any, list[tuple[str, int]]]:
    """The document, and its top-level string keys with their lines.

    A key given twice in one mapping is a ``yaml.YAMLError``: YAML requires keys to be
    unique, and PyYAML would keep the last (a second ``check:`` dropped the first's
    members). Keys a merge (``<<``) brings in may be overridden, as YAML allows.
    """
    import yaml
    from runscore.engine import yaml_keys

    doc, root, duplicates = yaml_keys.load(text)
    if duplicates:
        key, mark, first = duplicates[0]
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"duplicate key {quote(key)} (first on line {first + 1}; YAML keeps only the last)",
            mark,
        )
    keys = []
    if isinstance(root, yaml.MappingNode):
        keys = [
            (k.value, k.start_mark.line + 1)
            for k, _ in root.value
            if isinstance(k, yaml.ScalarNode) and isinstance(k.value, str)
        ]
    return doc, keys


def parse_team(path: str | os.PathLike[str], *, about: Arg | None = None) -> Team:
    """Flatten an ArcheFlow team YAML (spec §6) into mentions; errors are UsageError.

    ``about``: the caller's argument that gave ``path`` (default ``path``), which the
    errors name in ``params``: a file given, its every problem is that argument's."""
    about = sources.about_arg(about) or TEAM_PATH
    p = sources.one_path(path, about)
    history.require_path(p, about.said("the team file"))  # Path("") is the folder "."
    shown = quote_path(p)  # as a file:line: prefix writes a path
    try:
        text = Path(p).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{shown}: team file not found", about=about) from None
    except IsADirectoryError:
        raise UsageError(
            f"{shown}: a team file must be a file, not a directory", about=about
        ) from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{shown}: not UTF-8 text (byte {e.start + 1})", about=about) from None
    except OSError as e:
        raise CannotAccess(f"{shown}: cannot read: {e.strerror or e}", about=about) from None
    import yaml  # local: only team files are YAML (~14 ms of every report's start)

    try:
        doc, keys = _load_team_yaml(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise UsageError(f"{shown}{where}: not valid YAML: {problem}", about=about) from None
    if not isinstance(doc, dict):
        raise UsageError(
            f"{shown}: a team file must be a YAML mapping (name, plan, do, check, ...)", about=about
        )
    # Keys other than the members' are ArcheFlow's own (description, exit, max_cycles, ...)
    # and are not read; one that is a near miss of a member key is a typo whose members
    # would be dropped without a word.
    for key, line in keys:
        if key in _MEMBER_KEYS:
            continue
        near = difflib.get_close_matches(key.lower(), _MEMBER_KEYS, n=1, cutoff=0.75)
        if near:
            raise UsageError(
                f"{shown}:{line}: unknown key {quote(key)} (did you mean {quote(near[0])}?): its "
                "archetypes would not be read",
                about=about,
            )

    entries: list[tuple[str, str, str | None]] = []

    def name_of(v: Any, where: str) -> str:
        if not isinstance(v, str) or not v.strip():
            raise UsageError(
                f"{shown}: {where}: expected an archetype name, got {quote(v)}", about=about
            )
        return v

    def model_of(v: Any, where: str) -> str | None:
        if v is None:
            return None
        if not isinstance(v, str):
            raise UsageError(
                f"{shown}: {where}: expected a model name, got {quote(v)}", about=about
            )
        return v

    for phase in _PHASES:
        val = doc.get(phase)
        if val is None:
            continue
        items = [val] if isinstance(val, str) else val
        if not isinstance(items, list):
            raise UsageError(f"{shown}: {phase}: expected a list of archetype names", about=about)
        for i, item in enumerate(items):
            entries.append((name_of(item, f"{phase}[{i}]"), phase, None))

    arch = doc.get("archetypes")
    if arch is not None:
        if not isinstance(arch, list):
            raise UsageError(f"{shown}: archetypes: expected a list", about=about)
        for i, item in enumerate(arch):
            where = f"archetypes[{i}]"
            if isinstance(item, dict):
                raw = item.get("name", item.get("archetype"))
                entries.append(
                    (
                        name_of(raw, f"{where}.name"),
                        "archetypes",
                        model_of(item.get("model"), f"{where}.model"),
                    )
                )
            else:
                entries.append((name_of(item, where), "archetypes", None))

    overrides = doc.get("model_overrides")
    if overrides is not None:
        if not isinstance(overrides, dict):
            raise UsageError(
                f"{shown}: model_overrides: expected a mapping archetype: model", about=about
            )
        for k, m in overrides.items():
            entries.append(
                (
                    name_of(k, "model_overrides key"),
                    "model_overrides",
                    model_of(m, f"model_overrides[{quote(k)}]"),
                )
            )

    if not entries:
        raise UsageError(
            f"{shown}: names no archetype (expected plan, do, check, archetypes or model_overrides)",
            about=about,
        )
    name = doc.get("name")
    return Team(p, None if name is None else str(name), tuple(entries))


_TEAM_SCHEMA = pa.schema(
    [("ord", pa.int64()), ("name", pa.string()), ("phase", pa.string()), ("model", pa.string())]
)


def _load_team(con: duckdb.DuckDBPyConnection, team: Team | None) -> None:
    rows = team.entries if team is not None else ()
    tbl = pa.table(
        {
            "ord": list(range(1, len(rows) + 1)),
            "name": [r[0] for r in rows],
            "phase": [r[1] for r in rows],
            "model": [r[2] for r in rows],
        },
        schema=_TEAM_SCHEMA,
    )
    duck.register(con, "_team_entries_arrow", tbl)
    con.execute("CREATE OR REPLACE TEMP TABLE team_entries AS SELECT * FROM _team_entries_arrow")
    con.unregister("_team_entries_arrow")


# --------------------------------------------------------------------------- recommend


@dataclass
class RecommendResult:
    table: pa.Table
    team: Team
    version: str
    window: int
    history: HistoryLoad
    notes: list[str] = field(default_factory=list)
    #: what the scores are judged against (``bounds_of``)
    bounds: dict[str, list[float]] = field(default_factory=dict)
    #: ``model_tier_notes`` of ``table``: a member advised on a model of another tier than
    #: its score was earned on. The CLI said them (``note: ...``) and the nightly run log
    #: wrote them, but the result held none: a caller learned of them only by calling
    #: ``model_tier_notes`` itself.
    model_notes: list[str] = field(default_factory=list)

    @property
    def issues(self) -> list[LineIssue]:
        return self.history.issues


def recommend(
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    team_yaml: str | os.PathLike[str] = "",
    version: str | None = None,
    window: int | None = None,
) -> RecommendResult:
    """Per team member: current model and action code (spec §6), one row each in team
    order; ``model_notes`` says which are advised on a model of another tier than their
    score was earned on (what the CLI says after ``note:``). ``NothingReadable`` when
    there is no history file, as for ``report`` (the team file is checked first)."""
    if version == "all":
        raise UsageError("recommend works on one scoring version; ", ALL, " is for report")
    path = sources.one_path(path, PATH)
    parse_version_option(version, allow_all=False)
    team = parse_team(sources.one_path(team_yaml, TEAM), about=TEAM)
    con = connect()
    load = load_history(con, path, about=PATH)
    _require_history(load)
    _require_readable(load, PATH)
    (v,) = select_versions(load, version)
    params = _params(v, window)
    _stage(con, v, _AFTER_LOAD, params)
    _load_team(con, team)
    _stage(con, v, _TEAM, params)
    table = duck.sql(con, "SELECT * FROM recommend").to_arrow_table()
    notes = _notes_for(load) + _version_notes(load, [v], side_by_side=False)
    return RecommendResult(
        table,
        team,
        scoring_version_of(v),
        _window_of(con),
        load,
        notes,
        bounds_of(con),
        model_tier_notes(table.to_pylist()),
    )


#: How a recommend row's model_source says where the team's model came from.
_TEAM_MODEL = {
    "model_overrides": "the team says {model} ({tier}, in model_overrides)",
    "archetypes": "the team says {model} ({tier}, in its archetypes: entry)",
    "default": "the team leaves it to ArcheFlow's default, {model} ({tier})",
    # §6's fallback counts the whole history, the score only the window: they can differ
    "history": "the team and ArcheFlow give none, so its history's most frequent model, "
    "{model} ({tier})",
}


def model_tier_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """A note per member advised on a model of another tier than its score was earned on
    (``model_tier_differs``): "Keep haiku: high effectiveness at low cost" of a score earned
    on sonnet reads as haiku's, and the markdown, being data, has no place to say so. Here,
    not in the CLI, so that `recommend` (on stderr, after ``note: ``) and the nightly run
    log say it in the same words."""
    notes = []
    for r in rows:
        if not r["model_tier_differs"]:
            continue
        team = _TEAM_MODEL.get(r["model_source"], "the team's model is {model} ({tier})")
        n, total, on = r["runs_in_window"], r["runs"], r["scored_model_runs"]
        runs = (
            "its one run"
            if total == 1
            else f"its {n} runs"
            if n == total
            # a window of 1 ("its last 1 runs" read wrong)
            else "its last run"
            if n == 1
            else f"its last {n} runs"
        )
        if on is not None and on < n:
            runs = f"{on} of {runs}"
        notes.append(
            f"{r['archetype']}: "
            + team.format(model=r["current_model"], tier=r["model_tier"])
            + f"; {runs} ran on {r['scored_model']} ({r['scored_model_tier']}): the score "
            "was earned there"
        )
    return notes


# --------------------------------------------------------------------------- summary


@dataclass
class SummaryResult:
    table: pa.Table
    window: int
    version: str
    history: HistoryLoad
    notes: list[str] = field(default_factory=list)
    #: what the scores are judged against (``bounds_of``)
    bounds: dict[str, list[float]] = field(default_factory=dict)
    #: archetypes with scored runs in the history, in or out of the team: a team whose
    #: members have none is not a history with none
    scored_archetypes: int = 0

    @property
    def issues(self) -> list[LineIssue]:
        return self.history.issues


def summary(
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    team_yaml: str | os.PathLike[str] | None = None,
    version: str | None = None,
    window: int | None = None,
) -> SummaryResult:
    """The run-start block's rows (spec §7), optionally limited to a team's members.

    Columns of ``table``, one row per archetype with history (a team's members only, in
    team order, with ``team_yaml``; else archetype order; sql 170):

    - ``archetype``: the review archetype, as the history writes it
    - ``score``: its mean composite over the window (``report``'s avg_composite)
    - ``recommendation``: keep, optimize or consider_removing
    - ``model``: the window's most frequent model
    - ``avg_cost_usd``: mean cost in USD of the runs with a known cost (null: unknown)
    - ``runs_in_window``: the runs the window holds
    - ``window_runs``: the window asked for (``window``)
    - ``cost_runs``: the window's runs with a known cost
    """
    if version == "all":
        raise UsageError("summary works on one scoring version; ", ALL, " is for report")
    path = sources.one_path(path, PATH)
    parse_version_option(version, allow_all=False)
    team = (
        parse_team(sources.one_path(team_yaml, TEAM), about=TEAM) if team_yaml is not None else None
    )
    con = connect()
    load = load_history(con, path, about=PATH)
    _require_readable(load, PATH)  # no file at all is "no scored runs yet": it runs at every start
    (v,) = select_versions(load, version)
    params = _params(v, window, has_team=team is not None)
    _stage(con, v, _AFTER_LOAD, params)
    _load_team(con, team)
    _stage(con, v, _TEAM, params)
    _stage(con, v, _SUMMARY, params)
    table = duck.sql(con, "SELECT * FROM summary").to_arrow_table()
    notes = (
        _notes_for(load)
        + _version_notes(load, [v], side_by_side=False)
        + _unknown_cost_notes(con, v, table.column("archetype").to_pylist())
    )
    (scored,) = con.execute("SELECT count(*) FROM report").fetchall()[0]
    return SummaryResult(
        table, _window_of(con), scoring_version_of(v), load, notes, bounds_of(con), int(scored)
    )


# --------------------------------------------------------------------------- events


#: Retypes run_status.run_ts and run_scores.tokens as the history views type them, for the
#: event tables `sql` and `export` show (scoring keeps the text and the double it needs).
EVENT_TABLES_TYPED_FILE = "100_event_views_typed"


def _build_events(
    con: duckdb.DuckDBPyConnection,
    events: sources.Paths,
    history_path: str,
    pipelines: Sequence[str] = (),
    require_readable: bool = False,
) -> tuple[list[LineIssue], list[str]]:
    """The extract stage's tables (events, verdicts, ...) for ``sql``/``export --events``,
    and the notes on what was left out. The history and the files beside it are not read
    as run logs, as ``extract`` does not read them: ``--events .archeflow`` found
    ``memory/effectiveness.jsonl`` and rejected each of its lines ("missing type"), exit 1
    on a clean project. The pipeline history (beside it, or ``pipelines``) likewise.

    A file that holds no line (empty, blank lines only) is said as ``extract`` says it
    (``FILE: empty (no events)``, a note); it was said nowhere. With ``require_readable``
    (a query that reads the event views, ``export``) input of which no line is an event raises
    ``NothingReadable`` listing each file and line, as ``extract``'s does: the views
    answered with no rows, exit 0 (or 1), as if the logs held no run."""
    files, disc = sources.discover(sources.path_list(events), stdin=True)
    kept, left_out = effectiveness.leave_out_own_files(
        files, history_path, "this command reads", pipelines
    )
    notes = [f"{display}: {why}" for display, why in left_out]
    if not kept and not disc:
        if require_readable:
            raise NothingReadable(
                f"no input files{': ' + '; '.join(notes) if notes else ''}", about=EVENTS
            )
        # A query of no event view over a folder of no log was answered without a word:
        # said as `extract` says it, of each folder (its exit code is the query's). A file
        # given, left out, is said above.
        notes.extend(
            f"{quote_path(p)}: no input files: the event views are empty"
            for p in sources.path_list(events)
            if os.path.isdir(p)
        )
    res = effectiveness.build_event_tables(con, kept, version="v1")
    # What they share with the history views, typed as those are (tokens, run_ts).
    sqlpack.execute(con, sqlpack.load(effectiveness.PACK, "v1", EVENT_TABLES_TYPED_FILE))
    issues = list(disc) + list(res.skipped)
    issues.extend(
        LineIssue(str(f), int(line), str(reason))
        for f, line, reason in con.execute(
            "SELECT file, line, reason FROM row_issues ORDER BY file, line"
        ).fetchall()
    )
    issues.extend(LineIssue(f.display, 0, str(f.error)) for f in res.files if f.error is not None)
    said = {i.file for i in issues}
    with_rows = {r[0] for r in con.execute("SELECT DISTINCT _file FROM raw_events").fetchall()}
    no_lines = [
        f
        for f in res.files
        if f.error is None and f.display not in said and f.display not in with_rows
    ]
    empty = [LineIssue(f.display, 0, sources.no_lines_reason(f, "events")) for f in no_lines]
    if require_readable and not con.execute("SELECT 1 FROM accepted LIMIT 1").fetchall():
        order = {f.display: k for k, f in enumerate(res.files)}
        problems = sorted(issues + empty, key=lambda i: (order.get(i.file, len(order)), i.line))
        raise NothingReadable(
            "nothing could be read" + (":\n" + sources.listed(problems) if problems else ""),
            [(i.file, i.line, i.reason) for i in problems],
            no_lines=[i.file for i in empty],
            about=EVENTS,
        )
    # Standard input beside other logs is not said, as extract does not say it.
    notes.extend(
        f"{i.location()}: {i.reason}" for f, i in zip(no_lines, empty, strict=True) if not f.stdin
    )
    return issues, notes


# --------------------------------------------------------------------------- ad-hoc SQL


@dataclass
class SqlResult:
    table: pa.Table
    issues: list[LineIssue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: Statement types `runscore sql` runs. DESCRIBE, SHOW, SUMMARIZE, VALUES, FROM-first
#: and WITH queries all parse as SELECT; everything else (COPY, ATTACH, INSTALL/LOAD,
#: PRAGMA, SET, CALL, EXPORT, CREATE/INSERT/UPDATE/DELETE, PIVOT's MULTI) is refused.
_ALLOWED = {duckdb.StatementType.SELECT}


def check_read_only(query: str, con: duckdb.DuckDBPyConnection) -> None:
    """Refuse anything but exactly one SELECT-type statement (raises UsageError, naming
    ``query`` in ``params``).

    Parsed by ``con``'s parser: the module-level one opens DuckDB's default database,
    a second one in the process."""
    try:
        stmts = con.extract_statements(query)
    except duckdb.Error as e:
        raise UsageError(f"SQL does not parse: {_one_line(str(e))}", about=QUERY) from None
    if not stmts:
        raise UsageError("no SQL statement given", about=QUERY)
    if len(stmts) > 1:
        raise UsageError("runscore sql runs one statement at a time", about=QUERY)
    try:
        kind = stmts[0].type
    except ValueError:
        # a statement type newer than the Python enum (UPDATE EXTENSIONS): not a SELECT
        kind = None
    if kind not in _ALLOWED:
        if kind is duckdb.StatementType.MULTI and "PIVOT" in _keywords(query, 0):
            name = (
                "a PIVOT whose ON has no IN list, which DuckDB runs as a CREATE TYPE and then "
                "its SELECT; name the values: ON col IN ('a', 'b')"
            )
        elif kind is None or kind is duckdb.StatementType.LOAD:
            # DuckDB's type of INSTALL is LOAD: the statement's own words say what it is
            name = " ".join(_keywords(query, 3)) or "an unknown statement"
        else:
            name = kind.name
        raise UsageError(
            f"refused: runscore sql is read-only and runs only SELECT queries (got {name})",
            about=QUERY,
        )


def _keywords(query: str, lead: int) -> list[str]:
    """The leading ``lead`` keywords of ``query``, upper-cased, up to its first other
    token (comments skipped); every keyword of it when ``lead`` is 0."""
    tokens = duckdb.tokenize(query)
    ends = [p for p, _ in tokens[1:]] + [len(query)]
    words = []
    for (start, kind), end in zip(tokens, ends, strict=True):
        if kind == duckdb.token_type.comment:
            continue
        if kind == duckdb.token_type.keyword:
            words.append(query[start:end].strip().upper())
        elif lead:
            break
    return words[:lead] if lead else words


def _one_line(msg: str, drop: tuple[str, ...] = ()) -> str:
    """A DuckDB error as one line (a message is one line on stderr): its lines joined,
    without the query it quotes and the caret under it, which only line up as lines."""
    keep = []
    for line in msg.splitlines():
        line = line.strip()
        if line and not line.startswith(("LINE ", "^", *drop)):
            keep.append(line)
    return " ".join(keep)


def _query_connection(tables: dict[str, pa.Table]) -> duckdb.DuckDBPyConnection:
    """A fresh connection holding only ``tables``, with file access and settings locked.

    The Arrow tables are registered as views, not copied into DuckDB tables: a copy of a
    940k-line history took 0.55 s and as much memory again, for one query's scan."""
    q = connect()
    for name, tbl in tables.items():
        duck.register(q, name, tbl)
    # After this nothing can read or write files, attach databases, install or load
    # extensions, or change a setting back: defence in depth behind check_read_only.
    q.execute("SET enable_external_access = false")
    q.execute("SET lock_configuration = true")
    return q


#: Views whose rows are history lines: fetched in file order. A reader may build them as
#: a union (the cache and the lines after it), whose scan order is not the file's.
_LINE_ORDERED = ("history", "history_current")


def _fetch_view(con: duckdb.DuckDBPyConnection, name: str) -> pa.Table:
    order = " ORDER BY history_line" if name in _LINE_ORDERED else ""
    return duck.sql(con, f'SELECT * FROM "{name}"{order}').to_arrow_table()  # name is ours


#: A query that reads the catalog (information_schema.tables, duckdb_views(), pg_tables,
#: sqlite_master, SHOW [ALL] TABLES, a bare SHOW or DESCRIBE) lists the views registered:
#: it needs them all, not only those it names (``WHERE table_name <> 'report'`` saw report
#: alone). Such a query costs what SHOW TABLES did (every view fetched); any other query
#: is not slowed (one regex over its text).
_CATALOG = re.compile(
    r"(?<![\w$])(?:(?:information_schema|pg_\w+|sqlite_\w+|duckdb_\w+)(?![\w$])"
    r"|show\s+(?:all\s+)?tables(?![\w$])|(?:show|describe)\s*(?:$|[);]))",
    re.IGNORECASE,
)


def views_read(query: str, names: Iterable[str]) -> set[str]:
    """The views of ``names`` whose rows ``query`` reads: those it names (as whole words, in
    any case); none when it reads the catalog, which lists views but reads no row of them.
    A name inside a string literal counts as read."""
    if _CATALOG.search(query):
        return set()
    return {
        n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", query, re.IGNORECASE)
    }


def _named_views(query: str, names: Sequence[str]) -> set[str] | None:
    """The views ``query`` names, or None when it names none (``SHOW TABLES``, say: then
    every view is there to be listed) or reads the catalog. A name inside a string literal
    only costs that view's fetch."""
    return views_read(query, names) or None


def _event_paths(events: sources.Paths | None) -> list[str] | None:
    """``events`` as a list, an empty path refused: ``events=""`` was taken for no events
    (the event views left out without a word), ``[""]`` for a folder of no run logs."""
    return None if events is None else sources.input_paths(events, Arg("events", "--events"))


def refuse_an_event_input(
    path: str, events: Sequence[str] | None, reader: str, option: str | Arg
) -> None:
    """Refuse ``path`` as where ``option`` writes when it is one of the ``events`` inputs
    (``sources.refuse_an_input``): writing there replaced that run log with the result."""
    sources.refuse_an_input(
        path, events, "run log", reader, Arg("events", "--events", "events"), option
    )


#: The views of `sql` that hold one scoring version's lines (--sql-version's).
_ONE_VERSION_VIEWS = ("archetype_runs", "archetype_aggregates", "report")


def _one_version_notes(load: HistoryLoad, version: str) -> list[str]:
    """What `report` says of the versions it leaves out, said of `sql`'s one-version views:
    a query of them was answered from one version's lines without a word of the others."""
    notes = _version_notes(load, [version], side_by_side=False, others_note=False)
    others = other_versions(load, [version])
    if others:
        notes.append(
            Note(
                f"{load.path} also holds {', '.join(others)} lines, not in "
                f"{', '.join(_ONE_VERSION_VIEWS[:-1])} and {_ONE_VERSION_VIEWS[-1]} (they "
                f"hold {scoring_version_of(version)}'s; history and history_current hold "
                "every version's): use ",
                VERSION,
            )
        )
    return notes


#: ``extra=`` of ``run_sql`` and ``schema``: the caller's own tables.
EXTRA = Arg("extra", "extra")


def _extra_tables(extra: object) -> dict[str, pa.Table]:
    """``extra`` as views to register: a mapping of names to ``pyarrow.Table``s, else a
    ``UsageError`` naming it. Anything else reached DuckDB (a list: a TypeError of a regular
    expression; ``{"x": 5}``: "not suitable for replacement scans"), and a table named as
    one of runscore's views took its place without a word."""
    if extra is None:
        return {}
    if not isinstance(extra, Mapping):
        raise UsageError(
            EXTRA,
            f": give a mapping of view names to pyarrow Tables, not {sources.type_name(extra)}",
        )
    for name, table in extra.items():
        if not isinstance(name, str) or not name:
            shown = quote(name) if isinstance(name, str) else sources.type_name(name)
            raise UsageError(EXTRA, f": a view name is text, not {shown}")
        if name in HISTORY_VIEWS or name in EVENT_VIEWS:
            raise UsageError(
                EXTRA,
                f": {quote(name)} is a view of runscore's own; give your table another name",
            )
        if not isinstance(table, pa.Table):
            hint = (
                " (polars: its .to_arrow())" if type(table).__module__.startswith("polars") else ""
            )
            raise UsageError(
                EXTRA,
                f"[{quote(name)}]: give a pyarrow.Table, not {sources.type_name(table)}{hint}",
            )
    return dict(extra)


def _gather(
    history: str | os.PathLike[str],
    events: sources.Paths | None,
    version: str | None,
    extra: dict[str, pa.Table] | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    query: str | None = None,
    pipelines: Sequence[str] = (),
) -> tuple[dict[str, pa.Table], list[LineIssue], list[str]]:
    """The documented views as Arrow tables; with ``query``, only those it names (each
    fetch of a 1M-line history's views is a scan and a sort by line: ~0.1-0.45 s each)."""
    extra = _extra_tables(extra)
    events, pipelines = (
        _event_paths(events),
        sources.input_paths(pipelines, Arg("pipelines", "--pipelines"), "file"),
    )
    if version == "all":
        # Its archetype_runs, archetype_aggregates and report views are one version's.
        raise UsageError(
            "sql works on one scoring version (history and history_current hold every "
            "version's lines); ",
            ALL,
            " is for report",
        )
    version = parse_version_option(version, allow_all=False)
    con = con or connect()
    load = load_history(con, history, about=HISTORY)
    if query is not None and views_read(query, HISTORY_VIEWS):
        # Only a query that reads the history's rows: `SELECT 1`, a query of the event
        # views alone or of the catalog reads none of them.
        _require_readable(load, HISTORY)
    (v,) = select_versions(load, version)
    _stage(con, v, _AFTER_LOAD, _params(v, None))
    issues = list(load.issues)
    # A mistyped --history would otherwise answer every query with no rows, silently.
    notes = (
        _notes_for(load)
        if load.exists
        else [f"no history at {quote_path(load.path)}: its views are empty"]
    )
    if query is not None and views_read(query, _ONE_VERSION_VIEWS):
        notes += _one_version_notes(load, v)
    names = list(HISTORY_VIEWS)
    if events:
        reads = query is not None and bool(views_read(query, EVENT_VIEWS))
        found, left_out = _build_events(con, events, os.fspath(history), pipelines, reads)
        issues.extend(found)
        notes.extend(left_out)
        names += list(EVENT_VIEWS)
    wanted = _named_views(query, [*names, *(extra or {})]) if query is not None else None
    tables = {n: _fetch_view(con, n) for n in names if wanted is None or n in wanted}
    # Other packs' histories (e.g. pipeline_history) join the same read-only session.
    tables.update(extra or {})
    return tables, issues, notes


def run_sql(
    query: str,
    history: str | os.PathLike[str] = DEFAULT_HISTORY,
    events: sources.Paths | None = None,
    version: str | None = None,
    extra: dict[str, pa.Table] | None = None,
    *,
    pipelines: Sequence[str] = (),
) -> SqlResult:
    """Run one read-only SELECT over the documented views (see HISTORY_VIEWS/EVENT_VIEWS).

    ``extra``: tables of the caller's own, a mapping of view names to ``pyarrow.Table``s
    (``pipeline.history_tables``' first item), queried beside the views under those names
    (none of them one of the views'; anything else is a ``UsageError`` naming ``extra``).
    ``pipelines``: the pipeline histories ``extra`` came from, never read as run logs.

    The query runs on a connection that holds only those views' data, with external
    access disabled and the configuration locked: it cannot read or write files
    (``read_csv('/etc/passwd')`` is refused), attach databases or load extensions.
    """
    query = sources.text_arg(query, QUERY, "one SELECT statement as text")
    history = sources.one_path(history, HISTORY)
    con = connect()
    check_read_only(query, con)
    tables, issues, notes = _gather(history, events, version, extra, con, query, pipelines)
    q = _query_connection(tables)
    try:
        table = _as_text_where_arrow_is_not(duck.sql(q, query)).to_arrow_table()
    except duckdb.PermissionException as e:
        raise UsageError(
            f"refused: runscore sql cannot access files or settings ({e})", about=QUERY
        ) from None
    except duckdb.CatalogException as e:
        if "Table with name " not in str(e):
            raise UsageError(f"query failed: {_one_line(str(e))}", about=QUERY) from None
        # DuckDB's "Did you mean" names any table it knows (pg_description), not our views
        msg = _one_line(str(e), drop=("Did you mean ",))
        views = [*HISTORY_VIEWS, *(EVENT_VIEWS if events else ()), *(extra or {})]
        hints: list[tuple[Part, ...]] = [("views: " + ", ".join(views),)]
        if not events and any(f'"{n}"' in msg or f" {n} " in msg for n in EVENT_VIEWS):
            hints.append(("the event views need ", EVENTS))
        # Registered only when the pipeline history exists: a mistyped or default
        # --pipelines that is not there left them out without a word why.
        from runscore.engine.packs import pipeline  # local: the error path alone needs it

        gone = [p for p in pipelines if not os.path.lexists(p)]
        if gone and any(f'"{n}"' in msg or f" {n} " in msg for n in pipeline.HISTORY_VIEWS):
            hints.append(
                (
                    f"the pipeline views need a pipeline history: none at {quote_path(gone[0])} (",
                    PIPELINES,
                    ")",
                )
            )
        said = [p for i, h in enumerate(hints) for p in ("; " if i else "", *h)]
        raise UsageError(f"query failed: {msg} (", *said, ")", about=QUERY) from None
    except duckdb.Error as e:
        if interrupted(e) or isinstance(e, duckdb.OutOfMemoryException):
            # Ctrl-C (DuckDB's InterruptException) and a lack of memory are not a broken
            # query: the caller says them as every command does (exit 130 and 5).
            raise
        raise UsageError(f"query failed: {_one_line(str(e))}", about=QUERY) from None
    table, renamed = _unique_columns(table)
    if renamed:
        notes.append(
            "columns with the same name renamed: "
            + ", ".join(f"{old} (column {i}) → {new}" for i, old, new in renamed)
        )
    return SqlResult(table, issues, notes)


#: DuckDB types whose Arrow form is not their value: UHUGEINT goes over as a 128-bit
#: decimal (from 2**127 on, a negative number), TIMETZ as a time without its offset, BIT
#: and BIGNUM as their storage bytes, VARIANT as its binary encoding (a struct of two
#: blobs, in Parquet too). A result holding one, anywhere in a column's type, gets it as
#: DuckDB's text of it (``01:02:03+05:30``, ``0101``, every digit, ``[1, 2]``).
_NOT_IN_ARROW = frozenset({"uhugeint", "time with time zone", "bit", "bignum", "variant"})


def _as_text_where_arrow_is_not(rel: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """``rel`` with each value of a type in ``_NOT_IN_ARROW`` cast to VARCHAR (inside
    lists, structs, maps and unions too); ``rel`` itself when it holds none."""
    casts = [_text_type(t) for t in rel.types]
    if all(c is None for c in casts):
        return rel
    return rel.project(
        ", ".join(
            f"{f'CAST(#{i} AS {c})' if c is not None else f'#{i}'} AS {_quote(name)}"
            for i, (name, c) in enumerate(zip(rel.columns, casts, strict=True), start=1)
        )
    )


def _text_type(t: DuckDBPyType) -> str | None:
    """The SQL type ``t`` is cast to so that no value in it is one of ``_NOT_IN_ARROW``
    (those VARCHAR), or None when it holds none."""
    if t.id in _NOT_IN_ARROW:
        return "VARCHAR"
    if t.id not in ("list", "array", "struct", "union", "map"):
        return None
    # an array's size is a child too (after its type), and a union's tag (first)
    kids = t.children[:1] if t.id == "array" else t.children[1:] if t.id == "union" else t.children
    members = [(n, cast("DuckDBPyType", c)) for n, c in kids]
    inner = [_text_type(c) for _, c in members]
    if all(x is None for x in inner):
        return None
    texts = [x if x is not None else str(c) for x, (_, c) in zip(inner, members, strict=True)]
    if t.id == "list":
        return f"{texts[0]}[]"
    if t.id == "array":
        return f"{texts[0]}[{dict(t.children)['size']}]"
    if t.id == "map":
        return f"MAP({texts[0]}, {texts[1]})"
    fields = ", ".join(f"{_quote(n)} {x}" for (n, _), x in zip(members, texts, strict=True))
    return f"{t.id.upper()}({fields})"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _unique_columns(table: pa.Table) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """Give columns that share a name (``SELECT h.ts, c.ts ...``) distinct names, as
    DuckDB's CREATE TABLE AS does (``x, x_1, x_2``; a suffix already taken gets one of its
    own, ``x_1_1``): every writer turns a row into a mapping by name, so all but one of
    them was dropped without a word.
    Returns the table and (1-based column, old name, new name) per renamed column."""
    names = table.column_names
    if len(set(names)) == len(names):
        return table, []
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        new, k = name, 0
        while new in seen:
            k += 1
            new = f"{name}_{k}"
        seen.add(new)
        out.append(new)
    renamed = [
        (i, old, new)
        for i, (old, new) in enumerate(zip(names, out, strict=True), start=1)
        if old != new
    ]
    return table.rename_columns(out), renamed


def schema(
    history: str | os.PathLike[str] = DEFAULT_HISTORY,
    events: sources.Paths | None = None,
    version: str | None = None,
    extra: dict[str, pa.Table] | None = None,
    *,
    pipelines: Sequence[str] = (),
) -> SqlResult:
    """The registered views and their columns (view, position, column, type)."""
    history = sources.one_path(history, HISTORY)
    tables, issues, notes = _gather(history, events, version, extra, pipelines=pipelines)
    q = _query_connection(tables)
    rows: dict[str, list[Any]] = {"view": [], "position": [], "column": [], "type": []}
    for name in tables:
        for pos, (col, typ) in enumerate(
            q.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = $t ORDER BY ordinal_position",
                {"t": name},
            ).fetchall(),
            start=1,
        ):
            rows["view"].append(name)
            rows["position"].append(pos)
            rows["column"].append(col)
            rows["type"].append(typ)
    return SqlResult(pa.table(rows), issues, notes)


# --------------------------------------------------------------------------- export


@dataclass
class ExportResult:
    files: list[str]
    rows: dict[str, int]
    issues: list[LineIssue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


_EXPORT_HISTORY = ("history", "history_current")


def export(
    to: str | os.PathLike[str],
    history: str | os.PathLike[str] = DEFAULT_HISTORY,
    events: sources.Paths | None = None,
) -> ExportResult:
    """Write the history (all versions, typed; and with ``events`` the normalised event
    tables) as Parquet or as a DuckDB database file.

    ``FILE.parquet`` holds the ``history`` table; with events, each event table goes to
    ``FILE.<table>.parquet`` beside it. ``FILE.duckdb`` holds tables ``history``,
    ``history_current`` and the event tables. Files are written to a temporary name and
    renamed into place, so a reader never sees half a file. A Parquet export without
    events removes the ``FILE.<table>.parquet`` files an earlier export with events left
    (once the history is in place): beside the new history they would read as its events,
    as a DuckDB export replaces the whole file.
    """
    target = sources.one_path(to, TO)
    history = sources.one_path(history, HISTORY)
    # "" was said as ": export writes FILE.parquet or FILE.duckdb" (``history`` here is
    # the argument, not the module: hence require_path imported by name)
    require_path(target, TO)
    events = _event_paths(events)
    suffix = Path(target).suffix.lower()
    if suffix not in (".parquet", ".duckdb", ".db"):
        raise UsageError(
            f"{quote_path(target)}: export writes FILE.parquet or FILE.duckdb", about=TO
        )
    if suffix != ".parquet" and is_stream(target):
        # It was renamed over the FIFO (or device): DuckDB writes a database in place, back
        # and forth, which a stream cannot take.
        raise CannotAccess(
            f"{quote_path(target)}: cannot write the export: a DuckDB database is written to "
            "a file, not into a FIFO or device (give FILE.parquet to stream it)",
            about=TO,
        )
    # FILE.cache.duckdb: the next report would take the export for a foreign cache and
    # write its own over it.
    effectiveness.refuse_kept_beside(target, os.fspath(history), TO)
    if events:
        stem = target[: -len(suffix)]
        beside = [f"{stem}.{n}.parquet" for n in EVENT_VIEWS] if suffix == ".parquet" else []
        for out in (target, *beside):
            refuse_an_event_input(out, events, "the export", TO)
    con = connect()
    load = load_history(con, history, about=HISTORY)
    if not events:
        # With --events the event tables are there to export; the history's lines are then
        # listed as skipped (exit 1), as any history's are.
        if not load.exists:
            raise NothingReadable(
                f"no effectiveness history at {quote_path(load.path)}; nothing to export",
                about=HISTORY,
            )
        _require_readable(load, HISTORY)
    issues = list(load.issues)
    notes = _notes_for(load)
    names = list(_EXPORT_HISTORY)
    if events:
        # --events asks for the event tables: input of which no line is an event is nothing
        # read (exit 3, nothing written), as `sql` over the event views says it. It wrote
        # the history and empty event tables, exit 0, as if the logs held no run.
        found, left_out = _build_events(con, events, os.fspath(history), require_readable=True)
        issues.extend(found)
        notes.extend(left_out)
        names += list(EVENT_VIEWS)
    rows: dict[str, int] = {}
    try:
        if suffix == ".parquet":
            outs = {"history": target}
            stem = target[: -len(".parquet")]
            outs.update({n: f"{stem}.{n}.parquet" for n in names if n in EVENT_VIEWS})
            written = []
            for n, path in outs.items():
                path, rows[n] = _write_parquet(_stream_view(con, n), path)
                written.append(path)
            for n in EVENT_VIEWS:
                stale = f"{stem}.{n}.parquet"
                if n not in outs and os.path.lexists(stale) and not os.path.isdir(stale):
                    os.unlink(stale)
                    notes.append(
                        Note(
                            f"{quote_path(stale)}: removed: an earlier export's event table "
                            "(this export has no ",
                            Arg("events", "--events", "events"),
                            ")",
                        )
                    )
        else:
            written = [_write_duckdb(con, names, target, rows)]
    except CannotAccess:
        raise  # said already (``_folder_for``), naming the export: an OSError too
    except (OSError, duckdb.IOException) as e:
        # A folder that cannot be made or written to, a full disk: the argument's problem.
        # (Its own path, not the temporary name beside it, which the user never gave.)
        raise CannotAccess(
            f"{quote_path(target)}: cannot write the export: {_write_failure(e)}", about=TO
        ) from None
    return ExportResult(written, rows, issues, notes)


#: What a write fails with that the user can act on. pyarrow and DuckDB word it inside
#: their own message ("Error writing bytes to file. Detail: [errno 27] File too large";
#: 'IO Error: Could not write file "<the temporary file>": No space left on device').
_WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EIO)

#: A temporary name of ``_tmp_beside`` (".NAME.tmp-PID", ``history.temp_name``), in a
#: message.
_TMP_NAME = re.compile(r"\.([^/\"'\s]+)\.tmp-\d+\b")


def _write_failure(e: BaseException) -> str:
    """Why a write of the export failed, in the OS's words where the error has them."""
    strerror = e.strerror if isinstance(e, OSError) else None
    text = strerror or str(e)
    for n in _WRITE_ERRNOS:
        if os.strerror(n) in text:
            return os.strerror(n)
    if strerror:
        return strerror
    first = text.splitlines()[0] if text else type(e).__name__
    return _TMP_NAME.sub(r"\1", first)  # the export's own name, not the temporary one


def _folder_for(target: str) -> None:
    d = os.path.dirname(os.path.abspath(target))
    if os.path.exists(d) and not os.path.isdir(d):
        raise CannotAccess(
            f"{quote_path(target)}: cannot write the export: {quote_path(d)} is not a folder",
            about=TO,
        )


def _tmp_beside(target: str) -> str:
    if os.path.islink(target):
        raise UsageError(f"{quote_path(target)}: refusing to write through a symlink", about=TO)
    _folder_for(target)
    d = os.path.dirname(os.path.abspath(target))
    os.makedirs(d, exist_ok=True)
    # What a killed export left of this file (its own name, ``history.temp_name``'s): it
    # stayed for good, a partial copy of the export beside it, one more per kill.
    history.remove_left_temps(target)
    tmp = history.temp_name(target)
    # Not tempfile.mkstemp: its 0600 would stay with the export once renamed into place,
    # where a file the user asked for gets the mode of any other (0666 less the umask).
    # The name is this process's own: one there is a file of a dead process whose PID
    # this one has now, written over.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    os.close(fd)
    return tmp


# Rows per Arrow batch when streaming a view out: one Parquet row group each. The
# export's memory is then DuckDB's own (the history it read) plus a batch, not a second
# copy of every table in Arrow (1.5 GB for 1M history lines when each table was fetched).
_EXPORT_BATCH_ROWS = 122_880


def _stream_view(con: duckdb.DuckDBPyConnection, name: str) -> pa.RecordBatchReader:
    order = " ORDER BY history_line" if name in _LINE_ORDERED else ""
    rel = duck.sql(con, f'SELECT * FROM "{name}"{order}')  # name is ours
    return rel.to_arrow_reader(_EXPORT_BATCH_ROWS)


def _write_parquet(reader: pa.RecordBatchReader, target: str) -> tuple[str, int]:
    import pyarrow.parquet as pq  # local: only export writes Parquet

    _folder_for(target)
    n = 0

    def write(p: str) -> None:
        nonlocal n
        # through a Python file: Arrow's own seeks, which a FIFO cannot
        with reader, open(p, "wb") as f, pq.ParquetWriter(f, reader.schema) as w:
            for batch in reader:
                w.write_batch(batch)
                n += batch.num_rows

    history.write_output(target, write, about=TO)
    return target, n


def _write_duckdb(
    con: duckdb.DuckDBPyConnection, names: Sequence[str], target: str, rows: dict[str, int]
) -> str:
    tmp = _tmp_beside(target)
    os.unlink(tmp)  # DuckDB creates the file itself
    try:
        out = db.tracked(duckdb.connect(tmp))
        try:
            out.execute("SET TimeZone = 'UTC'")
            for name in names:
                # Streamed from the reading connection through Arrow batch by batch: the
                # file's path would have to be spelled into an ATTACH, which binds no
                # parameters, so the two databases stay on two connections.
                with _stream_view(con, name) as reader:
                    duck.register(out, "_arrow_in", reader)
                    out.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _arrow_in')
                    out.unregister("_arrow_in")
                ((rows[name],),) = out.execute(f'SELECT count(*) FROM "{name}"').fetchall()
            out.execute("CHECKPOINT")
        finally:
            out.close()
        os.replace(tmp, target)
    finally:
        for p in (tmp, tmp + ".wal"):
            if os.path.exists(p):
                os.unlink(p)
    return target
