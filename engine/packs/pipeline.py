"""Pipeline pack (spec pipeline.md): score finished multi-task pipelines.

Python orchestrates, SQL scores. The flow:

1. ``sources`` reads task snapshots (and optional plans) into ``pl_raw_tasks`` /
   ``pl_raw_plans``; one ``read_json`` pass over all files.
2. ``sql/pipeline/v1/000``–``099`` normalise, pick the latest snapshot per task,
   score D1–D5, the composite, the verdict and the ranked recommendations.
3. ``100`` shapes the per-pipeline JSON report, ``110`` the history record.
4. ``append_history`` appends records to ``.archeflow/memory/pipelines.jsonl``
   under the history lock, idempotently on (pipeline_id, scoring_version,
   inputs_sha256); ``history_report`` (SQL ``200``–``299``) reads it back.

The markdown report is the CLI's business (Jinja lives there); everything a
caller needs to render it is in ``PipelineResult``.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "evaluate_pipelines",
    "write_json_reports",
    "append_history",
    "history_report",
    "history_tables",
    "PipelineResult",
    "Diagnostic",
    "HistoryOutcome",
    "HistoryReport",
    "best_verdict_pass_rate",
    "history_pack",
    "iso",
    "missing_plans",
    "parse_date",
    "refuse_inputs_written",
    "refuse_report_paths",
    "score_cuts",
    "summary_basename",
    "summary_rows",
    "verdict_names",
    "utc_now",
    "DEFAULT_HISTORY",
    "HISTORY_VIEWS",
    "OUT_DIR",
    "PERIODS",
]

import contextlib
import datetime as dt
import functools
import glob
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from runscore.engine import db, duck, filenames, history, sources, sqlpack
from runscore.engine.duck import duckdb
from runscore.engine.errors import Arg, CannotAccess, NothingReadable, UsageError
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue, SourceFile

PACK = "pipeline"
VERSION = "v1"
SCORING_VERSION = f"{PACK}/{VERSION}"
#: The version of the shared SQL (``sql/common``) this version's files call: ``rs_quote``,
#: the quote of an input value in a message, the same in every pack (one definition), and
#: ``rs_iso_text``, the ISO-8601 forms of a time DuckDB's cast refuses, in one it takes.
COMMON_VERSION = "v1"
SCHEMA_NAME = "pipeline-evaluation.schema.json"
DEFAULT_HISTORY = os.path.join(".archeflow", "memory", "pipelines.jsonl")
PERIODS = ("day", "week", "month", "year")

#: Raw columns read from task snapshots; everything is typed and validated in SQL.
TASK_COLUMNS = {
    "pipelineId": "JSON",
    "id": "JSON",
    "taskId": "JSON",
    "status": "JSON",
    "createdAt": "JSON",
    "updatedAt": "JSON",
    "metadata": "JSON",
}
PLAN_COLUMNS = {
    "pipelineId": "JSON",
    "estimatedDurationMinutes": "JSON",
    "estimatedDurationMs": "JSON",
}
#: The keys read from each object of a task snapshot (sql 010-034), by JSON path: a line
#: that gives one of them twice is rejected (``sources.read_jsonl``'s ``unique_keys``).
TASK_KEYS: dict[str, tuple[str, ...] | None] = {
    "$": tuple(TASK_COLUMNS),
    "$.metadata": (
        "pipelineId",
        "completedAt",
        "summary",
        "filesModified",
        "deviations",
        "testResult",
        "quality",
    ),
    "$.metadata.quality": ("lintFix", "format", "unresolvedTodos"),
    "$.metadata.quality.lintFix": ("ran", "errors"),
    "$.metadata.quality.format": ("ran", "changed"),
}
PLAN_KEYS: dict[str, tuple[str, ...] | None] = {"$": tuple(PLAN_COLUMNS)}
#: The history record's fields, in record order (sql 110 writes them, 200/220 read them).
HISTORY_FIELDS = (
    "ts",
    "pipeline_id",
    "scoring_version",
    "inputs_sha256",
    "evaluated_at",
    "eval_date",
    "started_at",
    "finished_at",
    "task_count",
    "completed",
    "failed",
    "cancelled",
    "completion_rate",
    "task_completion_score",
    "deviation_count",
    "deviation_score",
    "tests_passed",
    "tests_total",
    "test_pass_rate",
    "test_pass_rate_verified",
    "test_score",
    "actual_minutes",
    "estimated_minutes",
    "time_efficiency",
    "quality_score",
    "composite_score",
    "verdict",
    "recommendations",
    "sources",
)
HISTORY_COLUMNS = {name: "JSON" for name in HISTORY_FIELDS}
#: The keys of a history line its readers read: one that gives a field twice is skipped
#: and reported by the report and ``runscore sql`` (as a line that is not JSON is), and
#: ``append_history`` does not take it for the record it would be: that record is
#: appended again, so no reader is left without it.
HISTORY_KEYS: dict[str, tuple[str, ...] | None] = {"$": HISTORY_FIELDS}

#: Views ``history_tables`` returns (for ``runscore sql`` / exports), with what they hold.
HISTORY_VIEWS: dict[str, str] = {
    "pipeline_history": "every usable pipeline history line, all scoring versions, typed "
    "(record fields + history_file, history_line)",
    "pipeline_history_current": "the current line per (pipeline_id, scoring_version): latest ts",
}

_EVAL_STAGE = (0, 99)


@dataclass(frozen=True)
class Diagnostic:
    """A rejected line (``error``) or a caveat on a used one (``warning``)."""

    severity: str
    file: str | None
    line: int | None
    reason: str
    pipeline_id: str | None = None
    #: ``pipeline_id`` as messages quote an input value (SQL ``rs_quote``): an id holding a
    #: line break or a blank-looking character forged or hid text in ``location``.
    pipeline_quoted: str | None = field(default=None, compare=False)

    def location(self) -> str:
        if self.file is None:
            if self.pipeline_id is None:
                return "input"
            return f"pipeline {self.pipeline_quoted or self.pipeline_id}"
        file = quote_path(self.file)  # as sources.LineIssue.location writes it
        return f"{file}:{self.line}" if self.line else file

    def __str__(self) -> str:
        return f"{self.location()}: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "pipeline_id": self.pipeline_id,
            "reason": self.reason,
        }


@dataclass
class PipelineResult:
    """Everything one evaluation pass produced (tables in pipeline order: ids as task ids
    are listed, digit runs as numbers, sql 000's ``pl_pipeline_order``)."""

    scoring_version: str
    eval_date: dt.date
    #: UTC, to the second (timezone-aware): the eval date's midnight when it was given
    evaluated_at: dt.datetime
    #: one row per pipeline (scored and not_terminal); see sql 060 for columns
    pipelines: pa.Table
    #: one row per (scored pipeline, dimension): ord, code, label, score, weight, weighted
    dimensions: pa.Table
    #: one row per (scored pipeline, recommendation): rank, code, label, score, sentence
    recommendations: pa.Table
    #: one row per (pipeline, task): the latest snapshot's report fields
    tasks: pa.Table
    #: pipeline_id -> the JSON report (pipeline-evaluation.schema.json)
    documents: dict[str, dict[str, Any]]
    #: history records (sql 110), one per scored pipeline
    history_records: list[dict[str, Any]]
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    plan_files: list[SourceFile] = field(default_factory=list)
    #: Task files read that hold no line (empty, or blank lines only), in input order,
    #: each ``{"file", "reason"}`` in the words of the error that names them when nothing
    #: else is read (exit 3), then plan files so (``empty (no plans)``). Not rejected
    #: input: beside files with snapshots, said only.
    empty_files: list[dict[str, Any]] = field(default_factory=list)
    #: Files a folder or glob of the TASKS holds that were not read, each ``{"file",
    #: "reason"}``: runscore's histories (``evaluate_pipelines``' ``leave_out``).
    excluded: list[dict[str, Any]] = field(default_factory=list)
    #: pipeline_id -> its part of the report file names (``safe_pipeline_names``, over
    #: every pipeline of the pass)
    report_names: dict[str, str] = field(default_factory=dict)
    _groups: dict[int, tuple[pa.Table, dict[str, list[dict[str, Any]]]]] = field(
        default_factory=dict, init=False, repr=False
    )
    _diag_groups: dict[str, list[Diagnostic]] | None = field(default=None, init=False, repr=False)

    @property
    def partial(self) -> bool:
        """Some input was rejected (exit code 1), the rest was scored."""
        return bool(self.errors)

    # The counts the nightly job's run log and its JSON summary give: worked out in the
    # CLI's run_batch, so a caller of the API counted the table itself.
    @property
    def scored(self) -> int:
        """Pipelines scored (``status`` scored)."""
        return int(self.pipelines.column("status").to_pylist().count("scored"))

    @property
    def not_terminal(self) -> int:
        """Pipelines not scored: a task not finished (``status`` not_terminal)."""
        return int(self.pipelines.column("status").to_pylist().count("not_terminal"))

    @property
    def verdict_counts(self) -> dict[str, int]:
        """Scored pipelines per verdict, every verdict best first (0 when none has it)."""
        verdicts = self.pipelines.column("verdict").to_pylist()
        return {v: verdicts.count(v) for v in verdict_names()}

    def report_basename(self, pipeline_id: str) -> str:
        """The pipeline's report file name in this pass (no extension)."""
        return report_basename(pipeline_id, self.eval_date, self.report_names.get(pipeline_id))

    def issues_table(self) -> pa.Table:
        rows = [d.as_dict() for d in self.errors + self.warnings]
        return _issues_arrow(rows)

    def rows_for(self, table: pa.Table, pipeline_id: str) -> list[dict[str, Any]]:
        """Rows of one of the result tables that belong to ``pipeline_id``.

        Each table is grouped once (by identity) and cached, so rendering every
        pipeline's report stays linear in the number of result rows.
        """
        cached = self._groups.get(id(table))
        if cached is None:
            groups: dict[str, list[dict[str, Any]]] = {}
            for row in table.to_pylist():
                groups.setdefault(row["pipeline_id"], []).append(row)
            # The table is kept with its groups so its id() cannot be reused.
            cached = self._groups[id(table)] = (table, groups)
        return cached[1].get(pipeline_id, [])

    def diagnostics_for(self, pipeline_id: str) -> list[Diagnostic]:
        if self._diag_groups is None:
            self._diag_groups = {}
            for d in self.errors + self.warnings:
                if d.pipeline_id is not None:
                    self._diag_groups.setdefault(d.pipeline_id, []).append(d)
        return self._diag_groups.get(pipeline_id, [])


@dataclass
class HistoryOutcome:
    path: str
    written: int
    already: int
    #: history lines the idempotency check could not read (not JSON, a field given
    #: twice, ...): warnings, each with its file and line; a record such a line may hold
    #: is not taken as recorded, so it is appended again
    skipped: list[Diagnostic] = field(default_factory=list)
    #: the pipeline ids of the records written, in the order appended (the nightly job's
    #: journal names them)
    written_ids: list[str] = field(default_factory=list)


@dataclass
class HistoryReport:
    path: str
    scoring_version: str
    period: str
    #: one row per period, oldest first, then the total row (is_total)
    trend: pa.Table
    #: the current history line per pipeline (the rows the trend aggregates)
    pipelines: pa.Table
    errors: list[Diagnostic] = field(default_factory=list)
    #: what `pipeline --report` says on stderr of the result (``path: no pipeline/v1
    #: pipeline records``, when the trend has no total row): worked out by the CLI, the
    #: result said nothing of a history that holds no record of the version
    notes: list[str] = field(default_factory=list)


def _issues_arrow(rows: list[dict[str, Any]]) -> pa.Table:
    schema = pa.schema(
        [
            ("severity", pa.string()),
            ("file", pa.string()),
            ("line", pa.int64()),
            ("pipeline_id", pa.string()),
            ("reason", pa.string()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


# --------------------------------------------------------------------------- helpers


def schema_text() -> str:
    """The draft-07 JSON schema every per-pipeline JSON report validates against."""
    return sqlpack.resource_text(PACK, VERSION, SCHEMA_NAME)


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def utc_now() -> dt.datetime:
    """The clock as this module reads it when no time is given (UTC, to the second). A
    caller that checks the report names before the evaluation and writes them after it
    reads it once and gives it to both (``refuse_inputs_written``'s and
    ``evaluate_pipelines``' ``now``): read by each, a run across midnight UTC checked one
    day's names and wrote the next day's."""
    return _utc_now()


def iso(t: dt.datetime) -> str:
    """``t`` as the reports and the history write a time: UTC, to the second, with a Z
    (``PipelineResult.evaluated_at`` is a datetime; the CLI writes it with this). The
    year in four digits: strftime's ``%Y`` wrote the year 999 as ``999``."""
    return t.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def parse_date(text: str) -> dt.date:
    """A ``YYYY-MM-DD`` evaluation date (UsageError otherwise)."""
    text = sources.text_arg(text, Arg("date", "--date"), "YYYY-MM-DD text")  # not re's TypeError
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError(
            Arg("date", "--date"), f" {quote(text)} is not a date in YYYY-MM-DD form"
        ) from None


#: The path and text arguments, as a wrong-typed one is named (``sources.one_path``).
PATH = Arg("path", "--history")
PATHS = Arg("paths", "TASKS")
OUT_DIR = Arg("out_dir", "--out")
PERIOD = Arg("period", "--period")
SCORING_VERSION_ARG = Arg("scoring_version", "scoring_version")

#: ``eval_date`` (``--date``), as ``_eval_date`` names it.
EVAL_DATE = Arg("eval_date", "--date")
#: ``now``: a call's fixed clock, which no option gives.
NOW = Arg("now", "now")
LEAVE_OUT = Arg("leave_out", "leave_out")


def _eval_date(value: object) -> dt.date | None:
    """``eval_date`` as the day it names. A ``datetime`` (a date to Python) was taken
    whole: its time went into the report file names and the history's ``eval_date``
    (``2026-01-01T15:30:00``), and ``result.eval_date`` was no ``date``; now it is its
    day in UTC (a naive one read as UTC, as every time the engine reads). Text is read as
    ``--date`` reads it; anything else is a ``UsageError`` naming ``eval_date``, where
    it was an ``AttributeError`` deep inside."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return parse_date(value)
        except UsageError:
            raise UsageError(
                EVAL_DATE, f": {quote(value)} is not a date in YYYY-MM-DD form"
            ) from None
    raise UsageError(
        EVAL_DATE, f": give a datetime.date or YYYY-MM-DD text, not {type(value).__name__}"
    )


_MAX_STEM_BYTES = 80
_SUMMARY_STEM = "summary"


def _digest(pipeline_id: str) -> str:
    return hashlib.sha256(pipeline_id.encode("utf-8")).hexdigest()[:8]


def safe_pipeline_name(pipeline_id: str) -> str:
    """``pipeline_id`` as a file-name part: the letters, digits and marks of every script
    and ``._-`` kept (``filenames.keep_letters``, as ``plugin score --out`` keeps a skill's
    name; any other run of characters is one ``_``), no leading dot or dash, at most 80
    bytes of UTF-8.

    An id that had to be changed gets ``-`` + the first 8 hex digits of its
    SHA-256, so two ids that sanitise alike (``a/b``, ``a:b``) never share a file.
    So does the id ``summary``, in any case: as is, its report would take the batch
    summary's name (``summary_basename``) and one would overwrite the other.
    """
    s = filenames.cut_bytes(filenames.keep_letters(pipeline_id).lstrip(".-"), _MAX_STEM_BYTES)
    if s == pipeline_id and s and filenames.same_file_key(s) != _SUMMARY_STEM:
        return s
    return f"{s or 'pipeline'}-{_digest(pipeline_id)}"


def safe_pipeline_names(pipeline_ids: Iterable[str]) -> dict[str, str]:
    """Each id's ``safe_pipeline_name``, where two would be one file on a file system that
    ignores case (macOS, Windows) or composes accents (``A`` and ``a``): each of those gets
    ``-`` and 8 hex digits of its SHA-256, as an id that had to change does. A name depends
    on its own id and on which names clash, never on the order the ids come in (as
    ``nightly`` names its roots' folders)."""
    base = {pid: safe_pipeline_name(pid) for pid in pipeline_ids}
    count = Counter(filenames.same_file_key(n) for n in base.values())
    out: dict[str, str] = {}
    taken: set[str] = set()
    # In id order, so that a clash left after the suffix (an id literally named as
    # another's suffixed name) is settled the same way every time.
    for pid in sorted(base):
        name = base[pid]
        if count[filenames.same_file_key(name)] > 1:
            name = f"{name}-{_digest(pid)}"
        unique, n = name, 2
        while filenames.same_file_key(unique) in taken:
            unique, n = f"{name}-{n}", n + 1
        taken.add(filenames.same_file_key(unique))
        out[pid] = unique
    return out


def report_basename(pipeline_id: str, eval_date: dt.date, name: str | None = None) -> str:
    """``pipeline-eval-{pipelineId}-{YYYY-MM-DD}`` (no extension), id sanitised (``name``:
    the id's name in its batch, ``PipelineResult.report_names``)."""
    return f"pipeline-eval-{name or safe_pipeline_name(pipeline_id)}-{eval_date.isoformat()}"


def summary_basename(eval_date: dt.date) -> str:
    return f"pipeline-eval-{_SUMMARY_STEM}-{eval_date.isoformat()}"


def _read(
    con: duckdb.DuckDBPyConnection,
    paths: Sequence[str],
    table: str,
    columns: dict[str, str],
    unique_keys: dict[str, tuple[str, ...] | None] | None = None,
    *,
    stdin: bool = True,
    leave_out: Sequence[str] = (),
    excluded: list[dict[str, Any]] | None = None,
) -> tuple[list[SourceFile], list[Diagnostic], bool, dict[str, int]]:
    """Discover, pre-scan and read ``paths``; return files, errors (in input order: the
    paths as given, then by line), any-readable, and each name's place in input order
    (``Discovered.input_order``), which orders the SQL's diagnostics among them.

    ``stdin``: ``-`` is standard input (TASKS, ``--plans``); not for the history, a file
    that is appended to, where ``-`` is the file of that name (``sources.discover``).

    ``unique_keys``: the keys read, by JSON path; a line giving one twice is rejected.

    ``leave_out``: runscore's histories, when a folder or glob given holds them: not read,
    each file left out added to ``excluded`` (``{"file", "reason"}``).
    """
    found = sources.discover(paths, stdin=stdin)
    files, missing = found
    if leave_out:
        kept = []
        for f in files:
            own = next((p for p in leave_out if _same_file(f.path, p)), None)
            if own is None:
                kept.append(f)
            elif excluded is not None:
                # in the words `extract` says it of the pipeline history beside its own
                pack = history_pack(own) or SCORING_VERSION.split("/", 1)[0]
                excluded.append(
                    {"file": f.display, "reason": f"not read: it is runscore's {pack} history"}
                )
        files = kept
    for f in files:
        sources.prescan(f)
    errors = [Diagnostic("error", i.file, i.line or None, i.reason) for i in missing]
    errors += [Diagnostic("error", f.display, None, f.error or "") for f in files if f.error]
    try:
        res = sources.read_jsonl(con, files, table, columns, unique_keys=unique_keys)
    finally:
        for f in files:
            if f.stdin:  # discover() spooled stdin to a temp file
                with contextlib.suppress(OSError):
                    os.unlink(f.path)
    errors += [_from_line_issue(i) for i in res.skipped]
    # Each kind was listed apart: a path not found before every file's problem, wherever
    # it was given.
    order = found.input_order()
    errors.sort(key=lambda d: (order.get(d.file or "", -1), d.line or 0))
    readable = any(f.error is None for f in files)
    return files, errors, readable, order


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def history_pack(path: str) -> str | None:
    """The pack whose history ``path`` is, by its first line with content (a record: a JSON
    object whose ``scoring_version`` is ``PACK/VERSION``, as every pack writes one); ``""``
    for a file with no line yet; None for anything else (a task file, which a folder given
    as TASKS is read for, and which ``--history`` must not name)."""
    try:
        with open(path, "rb") as f:
            while True:
                line = f.readline(_HISTORY_PEEK)
                if not line:
                    return ""
                if line.strip():
                    break
    except OSError:
        return None
    if not line.endswith(b"\n") and len(line) >= _HISTORY_PEEK:
        return None  # a record is far shorter: a task line with huge notes
    try:
        first = json.loads(line)
    except ValueError:
        return None
    version = first.get("scoring_version") if isinstance(first, dict) else None
    if not isinstance(version, str) or "/" not in version or "pipelineId" in first:
        return None
    return version.split("/", 1)[0]


#: Bytes of a history's first line looked at (``history_pack``); a record is ~1 KiB.
_HISTORY_PEEK = 1 << 20


def _from_line_issue(i: LineIssue) -> Diagnostic:
    return Diagnostic("error", i.file, i.line or None, i.reason)


def _diagnostics(con: duckdb.DuckDBPyConnection, listing: str) -> list[Diagnostic]:
    """The diagnostics of the SQL ``listing`` (120: an evaluation's, 230: a history's), in
    the order it lists them."""
    rows = sqlpack.execute(con, sqlpack.load(PACK, VERSION, listing)).fetchall()
    return [Diagnostic(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]


def _run_range(con: duckdb.DuckDBPyConnection, lo: int, hi: int, params: Mapping[str, Any]) -> None:
    """This version's files ``lo``..``hi``, after the shared macros they call."""
    sqlpack.run_common(con, COMMON_VERSION)
    sqlpack.run_range(con, PACK, VERSION, lo, hi, params)


def _listing(con: duckdb.DuckDBPyConnection, name: str) -> pa.Table:
    """The rows of this version's SQL listing ``name`` (one SELECT), in the order its ORDER
    BY gives: the order of every listing is the SQL's, as every formula is."""
    return duck.sql(con, sqlpack.load(PACK, VERSION, name).text).to_arrow_table()


def _records(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Rows of the last statement as dicts, in the statement's column order."""
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _problems(problems: Sequence[Diagnostic]) -> list[tuple[str, int, str]]:
    """Each problem as ``NothingReadable`` takes it: (file, line, reason), all of them."""
    return [
        (p.file, p.line or 0, p.reason) if p.file is not None else ("", 0, str(p)) for p in problems
    ]


# --------------------------------------------------------------------------- evaluation


def evaluate_pipelines(
    paths: sources.Paths,
    plans: sources.Paths | None = None,
    *,
    eval_date: dt.date | str | None = None,
    now: dt.datetime | dt.date | str | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    allow_empty: bool = False,
    leave_out: sources.Paths | None = None,
) -> PipelineResult:
    """Score every pipeline found in the task-snapshot files ``paths``.

    ``paths`` may mix files, directories (``*.jsonl`` inside, recursively), globs
    and ``-`` (stdin). ``plans`` are optional plan files (estimates). The
    evaluation date defaults to today (UTC); with an explicit ``eval_date`` (a
    ``date``, ``YYYY-MM-DD`` text, or a ``datetime``: its day in UTC) the
    reports' ``evaluatedAt`` is that date at 00:00:00Z, so outputs are
    reproducible. ``now`` (default: the clock) stamps history records: a ``datetime``
    (naive: UTC), a ``date`` (its 00:00 UTC) or ISO text, as ``routes.analyze``'s
    ``as_of``.

    Raises ``NothingReadable`` when no task file could be read or no line is a
    usable task snapshot; otherwise bad lines are in ``errors`` and every other
    pipeline is scored. A ``plans`` file that is not there (not a glob, not ``-``) is a
    ``UsageError`` before anything is read, as ``pipeline --plans`` says it.
    ``allow_empty`` (the nightly job) takes task files that all hold no line (each empty,
    or blank lines only) for a result of no pipelines.
    ``leave_out``: runscore's histories (a path or a list): one found in a folder or glob
    of ``paths`` (``pipeline .`` finds ``.archeflow/memory/pipelines.jsonl``) is not read as
    task snapshots, and is listed in the result's ``excluded``.
    """
    eval_date = _eval_date(eval_date)
    allow_empty = sources.flag_arg(allow_empty, "allow_empty")
    con = sources.connection_arg(con, Arg("con", "con"))
    paths = sources.input_paths(paths, PATHS)
    plans = None if plans is None else sources.input_paths(plans, PLANS)
    _refuse_missing_plans(plans or [])
    now = sources.time_arg(now, NOW) or _utc_now()
    if eval_date is None:
        # to the second, as the reports and the history say it
        evaluated_at = now.astimezone(dt.UTC).replace(microsecond=0)
        eval_date = evaluated_at.date()
    else:
        evaluated_at = dt.datetime(eval_date.year, eval_date.month, eval_date.day, tzinfo=dt.UTC)
    con = con or db.connect()

    excluded: list[dict[str, Any]] = []
    files, errors, readable, rank = _read(
        con,
        paths,
        "pl_raw_tasks",
        TASK_COLUMNS,
        TASK_KEYS,
        leave_out=[] if leave_out is None else sources.input_paths(leave_out, LEAVE_OUT, "file"),
        excluded=excluded,
    )
    if not readable:
        # No problem to show means no file was found at all: folders without *.jsonl.
        found = (
            errors
            or [Diagnostic("error", e["file"], None, e["reason"]) for e in excluded]
            or [Diagnostic("error", p, None, "no *.jsonl file found") for p in paths]
        )
        raise NothingReadable(
            "no task snapshot file could be read:\n" + sources.listed(found),
            _problems(found),
            about=PATHS,
        )
    plan_files: list[SourceFile] = []
    if plans:
        plan_files, plan_errors, _, plan_order = _read(
            con, plans, "pl_raw_plans", PLAN_COLUMNS, PLAN_KEYS
        )
        errors += plan_errors
        # the plans after the task files, each name at its first place
        rank = {**{n: len(rank) + i for n, i in plan_order.items()}, **rank}
    else:
        sources.read_jsonl(con, [], "pl_raw_plans", PLAN_COLUMNS)

    params = {
        "eval_date": eval_date.isoformat(),
        "evaluated_at": iso(evaluated_at),
        "ts": iso(now),
        "scoring_version": SCORING_VERSION,
    }
    _run_range(con, *_EVAL_STAGE, params)

    diags = _diagnostics(con, "evaluation_issues")
    errors += [d for d in diags if d.severity == "error"]
    warnings = [d for d in diags if d.severity != "error"]

    # Reader and SQL diagnostics in one order: input order (a path not found in its
    # place), then line.
    def order(d: Diagnostic) -> tuple[int, int]:
        return (rank.get(d.file, -1) if d.file is not None else len(rank), d.line or 0)

    errors.sort(key=order)
    warnings.sort(key=order)
    usable = con.execute("SELECT count(*) FROM pl_snapshot").fetchall()[0][0]
    # A file that was read but gave no row and no rejected line is empty (or blank).
    said = {d.file for d in errors}

    def no_lines(read: list[SourceFile], table: str, what: str) -> list[Diagnostic]:
        with_rows = {r[0] for r in con.execute(f"SELECT DISTINCT _file FROM {table}").fetchall()}
        return [
            Diagnostic("error", f.display, None, sources.no_lines_reason(f, what))
            for f in read
            if f.error is None and f.display not in said and f.display not in with_rows
        ]

    empty = no_lines(files, "pl_raw_tasks", "task snapshots")
    # A plans file that holds no line leaves every D4 neutral: said as an empty task file
    # is, not rejected input (the command still scores).
    empty_plans = no_lines(plan_files, "pl_raw_plans", "plans")
    if usable == 0:
        # Every task file holds no line (none unreadable, none with a rejected line): in
        # the nightly job a task list that has just been created, as an empty run log is
        # a run that has just begun. Anything rejected is still nothing read.
        if not (allow_empty and len(empty) == len(files)):
            raise NothingReadable(
                "no usable task snapshot in the input:\n" + sources.listed(errors + empty),
                _problems(errors + empty),
                no_lines=[str(d.file) for d in empty],
                about=PATHS,
            )

    doc_rows = sqlpack.execute(
        con, sqlpack.load(PACK, VERSION, "evaluation_document"), params
    ).fetchall()
    documents = {str(r[0]): json.loads(r[1]) for r in doc_rows}
    records = _records(sqlpack.execute(con, sqlpack.load(PACK, VERSION, "history_record"), params))
    pipelines = _listing(con, "evaluation_pipelines")
    return PipelineResult(
        scoring_version=SCORING_VERSION,
        eval_date=eval_date,
        evaluated_at=evaluated_at,
        pipelines=pipelines,
        dimensions=_listing(con, "evaluation_dimensions"),
        recommendations=_listing(con, "evaluation_recommendations"),
        tasks=_listing(con, "evaluation_tasks"),
        documents=documents,
        history_records=records,
        errors=errors,
        warnings=warnings,
        files=files,
        plan_files=plan_files,
        empty_files=[{"file": d.file, "reason": d.reason} for d in empty + empty_plans],
        excluded=excluded,
        report_names=safe_pipeline_names(pipelines.column("pipeline_id").to_pylist()),
    )


def _refuse_missing_plans(plans: Sequence[str]) -> None:
    """A plans file named that is not there is a ``UsageError`` naming ``plans``, before
    anything is read, as ``pipeline --plans MISSING`` is (exit 2): it was returned as
    rejected input and every pipeline scored with a neutral time efficiency, which
    ``append_history`` then recorded. Which files are not there: ``missing_plans``."""
    missing = missing_plans(plans)
    if missing:
        raise UsageError(PLANS, f" {quote_path(missing[0])}: no such file")


def missing_plans(plans: Sequence[str]) -> list[str]:
    """The plans files named that are not there, in the order given: what
    ``evaluate_pipelines`` and ``pipeline --plans`` refuse, each in its own words, before
    anything is read (the rule in one place: the two tested it apart). A glob is a
    pattern, not a name (one that matches nothing is said among the inputs); ``-`` is
    standard input; a dangling symlink is a file there, said when it is read."""
    return [p for p in plans if p != "-" and not glob.has_magic(p) and not os.path.lexists(p)]


def summary_rows(result: PipelineResult) -> pa.Table:
    """The batch summary over all pipelines (scored and not_terminal). Its last column,
    ``report``, is a scored pipeline's markdown report file, relative to the folder the
    reports go in (its ``.json`` beside it); null for one not scored."""
    _check_result(result)
    # The file, not its stem: JSON and CSV gave `pipeline-eval-p-DATE`, a name no file
    # has, where the markdown summary gave `.md`.
    names = [
        result.report_basename(pid) + ".md" if status == "scored" else None
        for pid, status in zip(
            result.pipelines.column("pipeline_id").to_pylist(),
            result.pipelines.column("status").to_pylist(),
            strict=True,
        )
    ]
    t = result.pipelines.select(
        [
            "pipeline_id",
            "status",
            "verdict",
            "composite_score",
            "task_count",
            "completion_rate",
            "task_completion_score",
            "deviation_count",
            "deviation_score",
            "test_pass_rate",
            "test_pass_rate_verified",
            "test_score",
            "time_efficiency",
            "quality_score",
            "recommendations",
            "non_terminal_task_ids",
        ]
    )
    return t.append_column("report", pa.array(names, pa.string()))


def _check_result(result: object) -> None:
    """A ``PipelineResult``, else a ``UsageError`` naming ``result``: None or another
    value was an AttributeError from deep inside."""
    if not isinstance(result, PipelineResult):
        raise UsageError(
            Arg("result", "result"),
            ": give a PipelineResult (what evaluate_pipelines returns), not "
            + sources.type_name(result),
        )


#: The inputs, as a message that names one names its argument (``refuse_inputs_written``).
PLANS = Arg("plans", "--plans")
#: What the pipeline reads from each (as ``sources.refuse_an_input`` words it).
_INPUTS = ((PATHS, "tasks file"), (PLANS, "plans file"))
_READER = "the pipeline"


def report_patterns(eval_date: dt.date) -> list[str]:
    """The names the command may write into its ``--out`` folder on ``eval_date``, before
    the pipelines' ids (read with their tasks) say which: every report of that day's, and
    the summary's (``report_basename``, ``summary_basename``)."""
    return [f"pipeline-eval-*-{eval_date.isoformat()}{ext}" for ext in (".json", ".md")]


def refuse_inputs_written(
    paths: sources.Paths,
    plans: sources.Paths | None,
    *,
    out_dir: str | os.PathLike[str] | None = None,
    history_path: str | None = None,
    eval_date: dt.date | str | None = None,
    now: dt.datetime | dt.date | str | None = None,
    leave_out: Sequence[str] = (),
) -> None:
    """Refuse, before anything is read or written, an output that is one of the inputs:
    the history a TASKS or ``--plans`` file (or one in a folder or glob given), whose next
    read took the records appended for broken lines; a file in ``out_dir`` named as a
    report of ``eval_date`` is (``report_patterns``), which the report renamed over it
    replaced; and what no report is written at (``history.refuse_report_folder``: a
    symlink, a folder, an ``out_dir`` that cannot be made). A history in ``leave_out``
    (runscore's own, found in a TASKS folder: ``evaluate_pipelines`` does not read it) is
    no TASKS input.

    ``eval_date`` and ``now`` as ``evaluate_pipelines`` takes them, so that the names
    looked for are of the day it writes: ``eval_date``'s, else ``now``'s day in UTC
    (default: the clock's, ``utc_now``). Give the evaluation the same ``now``, or it reads
    the clock again."""
    # The folder before the history, as plugin.score (README's order of mistakes).
    if out_dir is not None:
        # A number was a bare TypeError from os.lstat, and "" (an unset variable) passed.
        out_dir = sources.one_path(out_dir, OUT_DIR, "folder")
        history.require_path(out_dir, OUT_DIR, "folder")
        # Its day as evaluate_pipelines takes it: a datetime's time, or text, was put in
        # the names looked for, which matched none of the names written.
        day = _eval_date(eval_date) or (sources.time_arg(now, NOW) or _utc_now()).date()
        patterns = report_patterns(day)
        history.refuse_report_folder(out_dir, patterns, OUT_DIR)
        for given, what in _INPUTS:
            inputs = paths if given is PATHS else plans
            sources.refuse_an_input_named(out_dir, patterns, inputs, what, _READER, given, OUT_DIR)
    if history_path is not None:
        for given, what in _INPUTS:
            inputs = paths if given is PATHS else plans
            if given is PATHS and history_path in leave_out:
                continue
            sources.refuse_an_input(history_path, inputs, what, _READER, given, PATH)


def _refuse_read(result: PipelineResult, path: str, option: Arg) -> None:
    """Refuse ``path`` as where ``option`` writes when it is a file ``result`` read."""
    for given, files in ((PATHS, result.files), (PLANS, result.plan_files)):
        what = dict(_INPUTS)[given]
        sources.refuse_a_file_read(path, files, what, _READER, given, option)


def refuse_report_paths(result: PipelineResult, paths: Iterable[str]) -> None:
    """Refuse, before any report is written, a report path that is a file ``result`` read
    (a task or plans file so named in the ``--out`` folder: the report renamed over it
    replaced it), a symlink (``history.write_output`` writes through none) or a folder
    (``history.refuse_unwritable_report``): found at its own write, the reports before it
    were written and the rest not."""
    for path in paths:
        _refuse_read(result, path, OUT_DIR)
        history.refuse_unwritable_report(path, OUT_DIR)


def write_json_reports(result: PipelineResult, out_dir: str | os.PathLike[str]) -> list[str]:
    """Write ``pipeline-eval-{id}-{date}.json`` per scored pipeline; return the paths.

    A report that would replace a file ``result`` read (a task or plans file so named in
    ``out_dir``), or be written through a symlink, is a ``UsageError`` before any is
    written; a FIFO there is written into (``history.write_output``)."""
    _check_result(result)
    out_dir = sources.one_path(out_dir, OUT_DIR, "folder")
    history.require_path(out_dir, OUT_DIR, "folder")  # "" wrote them to the current folder
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        # os.makedirs' bare "File exists", deep inside: said as the CLI says such an --out.
        raise CannotAccess(OUT_DIR, f" {quote_path(out_dir)}: exists and is not a directory")
    paths = {
        pid: os.path.join(out_dir, result.report_basename(pid) + ".json")
        for pid in result.documents
    }
    refuse_report_paths(result, paths.values())
    os.makedirs(out_dir, exist_ok=True)  # said of the folder, not of a report in it
    written: list[str] = []
    for pid, doc in result.documents.items():
        history.write_text_output(
            paths[pid], json.dumps(doc, ensure_ascii=False, indent=2) + "\n", about=OUT_DIR
        )
        written.append(paths[pid])
    return written


# --------------------------------------------------------------------------- history


def append_history(
    result: PipelineResult,
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    *,
    lock_timeout: float | None = 300.0,
    under_lock: Callable[[], None] | None = None,
) -> HistoryOutcome:
    """Append the scored pipelines' records to the history, idempotently.

    ``under_lock``: called once the history's lock is held, just before the append, after
    every check of the history (the command's reports: written only when the append can
    follow, so a lock held elsewhere, exit 4, or a history refused under the lock, exit 2,
    leaves none). Called without the lock when there is nothing to append.

    Key: (pipeline_id, scoring_version, inputs_sha256). A pipeline whose key is
    already in the file is not written again, so re-running on the same inputs
    (on any day) adds nothing; changed inputs add a new line, and readers take
    the latest ``ts`` per (pipeline_id, scoring_version).
    """
    _check_result(result)
    path = sources.one_path(path, PATH)
    lock_timeout = history.lock_timeout(lock_timeout)
    under_lock = sources.callable_arg(
        under_lock, Arg("under_lock", "under_lock"), "called with no argument"
    )
    # As the command refuses it (``refuse_inputs_written``): before the reports are written.
    _refuse_read(result, path, PATH)
    records = result.history_records
    if not records:
        if under_lock is not None:
            under_lock()
        return HistoryOutcome(path, 0, 0)
    history.check_appendable(path, PATH)  # before its lock file is made beside it
    with history.locked(path, timeout=lock_timeout, what="pipeline history", about=PATH):
        # Changed since the check above (a symlink, a gzip file, read-only now): refused
        # here, before ``under_lock`` writes the reports, not by the append after them.
        history.check_writable(path, PATH)
        con = db.connect()
        new = pa.Table.from_pylist(
            [
                {
                    "i": i,
                    "pipeline_id": r["pipeline_id"],
                    "scoring_version": r["scoring_version"],
                    "inputs_sha256": r["inputs_sha256"],
                }
                for i, r in enumerate(records)
            ]
        )
        duck.register(con, "pl_new_records", new)
        if os.path.exists(path):
            f = sources.prescan(SourceFile(path=path, display=path))
            if f.error:  # changed since check_appendable: refused in its words, exit 2
                raise UsageError(f"{quote_path(path)}: {f.error}", about=PATH)
            # Read as the report reads it (200): a line the report skips (no parsable ts,
            # an unknown verdict, ...) holds no record, so its record is written again.
            res = sources.read_jsonl(
                con, [f], "pl_raw_history", HISTORY_COLUMNS, unique_keys=HISTORY_KEYS
            )
            params = {"scoring_version": SCORING_VERSION}
            _run_range(con, 0, 9, params)
            sqlpack.execute(con, sqlpack.load(PACK, VERSION, "history_read"), params)
            skipped = [
                Diagnostic("warning", i.file, i.line or None, f"history line skipped: {i.reason}")
                for i in res.skipped
            ] + [
                Diagnostic(
                    "warning",
                    file,
                    line,
                    f"history line skipped: {reason.removeprefix('history line has ')}",
                )
                for file, line, reason in con.execute(
                    "SELECT file, line, reason FROM pl_hist_issue"
                ).fetchall()
            ]
            skipped.sort(key=lambda d: d.line or 0)
            fresh = con.execute(
                """
                SELECT n.i FROM pl_new_records n
                WHERE NOT EXISTS (
                    SELECT 1 FROM pl_hist_all h JOIN pl_raw_history r USING (_ord)
                    WHERE h.reject IS NULL
                      AND h.pipeline_id = n.pipeline_id
                      AND h.scoring_version = n.scoring_version
                      AND json_extract_string(r.inputs_sha256, '$') = n.inputs_sha256)
                ORDER BY n.i
                """
            ).fetchall()
        else:
            fresh = [(i,) for i in range(len(records))]
            skipped = []
        keep = [records[row[0]] for row in fresh]
        if under_lock is not None:
            under_lock()
        written = history.append_groups(path, [[history.dumps_record(r)] for r in keep], PATH)
        con.close()
    ids = [str(r["pipeline_id"]) for r in keep]
    return HistoryOutcome(path, written, len(records) - written, skipped, ids)


def history_report(
    path: str | os.PathLike[str] = DEFAULT_HISTORY,
    *,
    period: str = "month",
    scoring_version: str = SCORING_VERSION,
) -> HistoryReport:
    """Verdict counts and dimension averages per period, from the pipeline history.

    ``scoring_version``: the records read (``pipeline/v1``); one this runscore does not
    score is a ``UsageError``. A history with no record of it is an answer of no rows,
    said in ``notes``.

    Columns of ``trend``, one row per period, oldest first, then the total row (sql 210):

    - ``period_start``: the period's first day (null on the total row)
    - ``is_total``: the total row, over every period
    - ``pipelines``: pipelines placed in the period (by finish time, else eval date)
    - ``finish_unknown``: of them, those with no finish time, placed by their eval date
    - ``excellent``: pipelines of verdict EXCELLENT
    - ``good``: of verdict GOOD
    - ``acceptable``: of verdict ACCEPTABLE
    - ``needs_improvement``: of verdict NEEDS_IMPROVEMENT
    - ``verified_share``: the share with a verified test pass rate
    - ``avg_task_completion``: mean D1, task completion
    - ``avg_deviation_score``: mean D2, deviations
    - ``avg_test_pass_rate``: mean D3, tests
    - ``avg_time_efficiency``: mean D4, time efficiency
    - ``avg_quality``: mean D5, quality
    - ``avg_composite``: mean composite score

    Columns of ``pipelines``, the current history line of each pipeline (sql 200), one row
    each, by pipeline id as an evaluation lists them (``p1, p2, p10``), whatever period
    it falls in:

    - ``pipeline_id``: the pipeline
    - ``period_ts``: the time that places it: finish time, else eval date, else ``ts``
    - ``finish_unknown``: it has no (parsable) finish time
    - ``verdict``: its verdict
    - ``task_completion_score``: D1
    - ``deviation_score``: D2
    - ``test_score``: D3
    - ``time_efficiency``: D4
    - ``quality_score``: D5
    - ``composite_score``: the composite
    - ``verified``: its test pass rate was verified
    """
    path = sources.one_path(path, PATH)
    if period not in PERIODS:
        raise UsageError(PERIOD, f" must be one of {', '.join(PERIODS)}, not {quote(period)}")
    sources.text_arg(
        scoring_version, SCORING_VERSION_ARG, f'a scoring version ("{SCORING_VERSION}")'
    )
    # A version no SQL here scores was answered with a report of no rows and a note,
    # where every other call refuses an unknown scoring version (the CLI: exit 2).
    known = [f"{PACK}/{v}" for v in sqlpack.versions(PACK)]
    if scoring_version not in known:
        raise UsageError(
            f"unknown scoring version {quote(scoring_version)} (have: {', '.join(known)})",
            about=SCORING_VERSION_ARG,
        )
    params = {"scoring_version": scoring_version, "period": period}
    con, errors = _load_history(path, params, require_readable=True)
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "history_trend"), params)
    report = HistoryReport(
        path=path,
        scoring_version=scoring_version,
        period=period,
        trend=_listing(con, "history_trend_rows"),
        pipelines=_listing(con, "history_pipelines"),
        errors=errors,
    )
    con.close()
    if True not in report.trend.column("is_total").to_pylist():
        report.notes.append(f"{quote_path(path)}: no {scoring_version} pipeline records")
    return report


def _load_history(
    path: str, params: dict[str, Any], *, require_readable: bool = False
) -> tuple[duckdb.DuckDBPyConnection, list[Diagnostic]]:
    """Read the history into ``pl_raw_history`` and run the policy files and 200.

    ``require_readable``: a history with lines but not one usable record (each not JSON,
    or skipped by 200) is ``NothingReadable`` (exit 3), the skipped lines listed as
    ``extract`` and ``routes`` list input whose every line is rejected (``sources.listed``);
    an answer of no rows would read as "read, and no rows". A history of no lines at all is read."""
    history.require_utf8_name(path, "pipeline history", PATH)
    if not os.path.exists(path):
        raise NothingReadable(
            f"{quote_path(path)}: no pipeline history (run `runscore pipeline` first)",
            about=PATH,
        )
    if os.path.isdir(path):  # read as a folder, every *.jsonl below it was taken as history
        raise UsageError(
            f"{quote_path(path)}: the history must be a file, not a directory", about=PATH
        )
    con = db.connect()
    _, errors, readable, _ = _read(
        con, [path], "pl_raw_history", HISTORY_COLUMNS, HISTORY_KEYS, stdin=False
    )
    if not readable:
        raise NothingReadable(
            "the pipeline history could not be read:\n" + sources.listed(errors),
            _problems(errors),
            about=PATH,
        )
    # The policy tables (input-free files 000-009) define e.g. the known verdicts.
    _run_range(con, 0, 9, params)
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "history_read"), params)
    errors += _diagnostics(con, "history_issues")
    errors.sort(key=lambda d: d.line or 0)  # the reader's and 200's, in line order
    if require_readable and errors:
        usable = con.execute("SELECT count(*) FROM pl_hist_all WHERE reject IS NULL").fetchall()
        if usable[0][0] == 0:
            con.close()
            raise NothingReadable(
                f"no line of the pipeline history {quote_path(path)} could be read:\n"
                + sources.listed(errors),
                _problems(errors),
                about=PATH,
            )
    return con, errors


def history_tables(
    path: str | os.PathLike[str] = DEFAULT_HISTORY, *, require_readable: bool = False
) -> tuple[dict[str, pa.Table], list[Diagnostic]]:
    """The pipeline history as typed tables (``HISTORY_VIEWS``), for ``runscore sql``.

    Lines that are not usable records are skipped and returned as diagnostics;
    ``require_readable`` (a query that reads these views): ``NothingReadable`` when the
    history has lines and none is usable, as for ``history_report``.
    """
    require_readable = sources.flag_arg(require_readable, "require_readable")
    con, errors = _load_history(
        sources.one_path(path, PATH),
        {"scoring_version": SCORING_VERSION},
        require_readable=require_readable,
    )
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "history_views"))
    tables = {
        "pipeline_history": _listing(con, "history_view_rows"),
        "pipeline_history_current": _listing(con, "history_current_rows"),
    }
    con.close()
    return tables, errors


@dataclass(frozen=True)
class _Policy:
    """This version's cut-offs, read once from its SQL policy files."""

    #: The verdict table: (verdict, composite_above, pass_rate_above), best first.
    verdicts: tuple[tuple[str, float | None, float | None], ...]
    #: D1's completion bucket minimums.
    completion: tuple[float, ...]
    #: Each dimension's recommendation thresholds on its score (007, metric 'score'), by
    #: code; every dimension of 001 is there (with none, an empty tuple).
    triggers: dict[str, tuple[float, ...]]


@functools.cache
def _policy() -> _Policy:
    """This version's cut-offs (``_Policy``), from its SQL policy files, once."""
    con = db.connect()
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "verdicts"))
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "completion_buckets"))
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "dimensions"))
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "007_recommendations"))
    verdicts = tuple(
        (str(r[0]), r[1], r[2])
        for r in con.execute(
            "SELECT verdict, composite_above, pass_rate_above FROM pl_verdict ORDER BY rank"
        ).fetchall()
    )
    completion = tuple(
        float(r[0]) for r in con.execute("SELECT min_rate FROM pl_completion_bucket").fetchall()
    )
    triggers: dict[str, tuple[float, ...]] = {
        str(code): tuple(float(t) for t in thresholds)
        for code, thresholds in con.execute(
            "SELECT d.code, coalesce(list(DISTINCT r.threshold ORDER BY r.threshold) "
            "FILTER (WHERE r.threshold IS NOT NULL), []) "
            "FROM pl_dimension d LEFT JOIN pl_recommendation_rule r "
            "ON r.code = d.code AND r.metric = 'score' GROUP BY d.code"
        ).fetchall()
    }
    con.close()
    return _Policy(verdicts, completion, triggers)


def verdict_names() -> list[str]:
    """The verdicts of this scoring version, best first (from the SQL verdict table)."""
    return [v for v, _, _ in _policy().verdicts]


def best_verdict_pass_rate() -> float | None:
    """The verified test pass rate the best verdict needs above (the SQL verdict table's;
    null when it needs none): what a report says when the composite alone clears it."""
    return _policy().verdicts[0][2]


def score_cuts() -> dict[str, Any]:
    """The cut-offs the values of a report were judged against, from this version's SQL
    policy tables, with the 0-100 scale's ends (100 reads as "all"): ``composite`` (the
    verdicts' bars), ``completion`` (D1's bucket minimums), ``pass_rate`` (the verdicts'
    test pass-rate bars and D3's recommendation threshold: D3's score is the pass rate),
    ``share`` (the ends alone) and ``dimension`` (by code, D1..D5: each score's
    recommendation thresholds). A report writes a value apart from them (the ``vs``
    filter): 90.004 beside EXCELLENT (above 90) never reads "90.00", nor a test pass rate
    of 79.996 under "D3 < 80" "80.00"."""
    pol = _policy()
    ends = {0.0, 100.0}
    return {
        "composite": sorted({*ends, *(float(c) for _, c, _ in pol.verdicts if c is not None)}),
        "completion": sorted({*ends, *pol.completion}),
        "pass_rate": sorted(
            {
                *ends,
                *(float(r) for _, _, r in pol.verdicts if r is not None),
                *pol.triggers.get("D3", ()),
            }
        ),
        "share": sorted(ends),
        "dimension": {code: sorted({*ends, *t}) for code, t in sorted(pol.triggers.items())},
    }
