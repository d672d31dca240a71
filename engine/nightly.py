"""The nightly batch job: extract every root's new runs, render the day's reports.

``run_nightly`` is the orchestration API behind ``runscore nightly``. It never imports
click or jinja2: markdown comes from a ``Renderer`` the caller passes in, and packs other
than effectiveness join through ``PackHook`` objects (the CLI wires them).

For each root (``--root DIR``, repeatable):

* run logs are ``<root>/.archeflow/events/**/*.jsonl`` (sorted; ``sources.discover``);
* they are extracted incrementally (the manifest beside the history: unchanged files
  are not re-read) into ``<root>/.archeflow/memory/effectiveness.jsonl``, or into the one
  ``--history FILE`` shared by all roots (then the roots form one scope, ``combined``);
* team presets are ``<root>/.archeflow/teams/*.yaml`` and ``*.yml``: regular files
  directly in that folder, dot-files skipped (editor droppings), sorted by name. They
  apply to the root's scope; ``--team`` files apply to every scope;
* a pack hook looks for its own inputs under the root (``pipeline_inputs`` etc.).

``OUT/index.md`` lists every day folder in ``OUT``, newest first, each with its counts as
its ``runlog.json`` gives them (``days_index``); it is written after each job's swap. The
day's outputs go to ``OUT/YYYY-MM-DD/``::

    index.md                                  links to everything below (and ../index.md)
    runlog.md, runlog.json                    scored / skipped / incomplete / rejected
    effectiveness/<scope>/report.md|.json     `runscore report` over the scope's history
    effectiveness/<scope>/recommend-<team>.md|.json   `runscore recommend` per team
    <pack>/<root>/...                         whatever a pack hook writes

``<scope>`` and ``<root>`` are a root's folder name: its basename, or, where two roots
share one (compared case-blind), the basename, ``-`` and 8 hex digits of the SHA-256 of
its real path (``proj-1a2b3c4d``). It depends on the root and on which names clash, never
on the order of the ``--root`` options, so a project keeps its folder from night to night.

``--date`` (``date``) names the day's folder; it is not a clock for the effectiveness
reports, which read each history as the job finds it, lines written after that day
included (a past day's run log and index say so: see ``_past_day_note``). The pack hooks
get the date: routes measures freshness as of its 00:00 UTC, pipeline dates its files.

Everything is rendered into ``OUT/.YYYY-MM-DD.tmp-<pid>/`` (each file written with
temp file + rename) and then swapped in with one ``renameat2(RENAME_EXCHANGE)``, so a
re-run for the same date replaces that day's outputs completely or not at all; the old
folder is deleted only once the new one is in place. Where the exchange is unsupported
the old folder is first renamed aside (``.YYYY-MM-DD.old-<pid>``), and the next run
restores it if a crash struck between the two renames.

Locks (``history.locked``, flock): ``<history>.nightly.lock`` per history, then
``OUT/.nightly.lock`` for the whole job (the output folder is made only then, so a job
turned away by a history's lock leaves no new output folder), each waiting at most
``wait`` seconds; then
extract's own append lock on the history (waiting ``max(wait, HISTORY_APPEND_GRACE)``,
since a hand-run ``runscore extract`` holds it only while appending). Reports are read
while holding the history's append lock, so they never see a half-appended group. Only
the two nightly locks stop the job (``LockTimeout``, exit 4: another job is running); an
append lock held past its wait fails that project's step, as any broken input does.

The histories' nightly locks are held until the day's folder is in place: each history's
nightly journal (``_Journal``, ``<history>.nightly.journal``) says what a job scored into
it until its run log is in place, so that the runs of a job killed between the two are
said by the next job's run log. The packs' histories are journaled alike in ``OUT``,
under its lock (``_PackJournal``, ``OUT/.nightly.packs.journal``).

The lock files stay when the job ends, whether it succeeded, failed (exit 3 included)
or was killed: the lock is the flock on the file, which the kernel drops when the process
ends, so a file left behind is harmless (the next job takes it at once; a test pins
this). Deleting it on the way out cannot be done without a race: a job waiting on the old
file would get the lock on a deleted file while a third job creates and locks a new one,
and both run (runscore's own lock takes it again at its name, but ``flock(1)`` does not).
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "run_nightly",
    "parse_date",
    "NightlyResult",
    "Renderer",
    "PackHook",
    "PackRun",
    "PackOutcome",
    "Diagnostic",
    "pipeline_inputs",
    "plugin_inputs",
    "routes_inputs",
    "read_days",
    "DEFAULT_OUT",
    "HISTORY_APPEND_GRACE",
    "OUT",
]

import contextlib
import ctypes
import datetime as dt
import errno
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from runscore import __version__
from runscore.engine import db, history, sources
from runscore.engine.duck import duckdb
from runscore.engine.errors import (
    Arg,
    CannotAccess,
    HistoryError,
    LockTimeout,
    NothingReadable,
    RunscoreError,
    UsageError,
    interrupted,
    out_of_memory,
)
from runscore.engine.packs import effectiveness, effectiveness_cache
from runscore.engine.packs import effectiveness_history as eh
from runscore.engine.quoting import cannot_show, quote, shown
from runscore.engine.quoting import path as quote_path

#: Default output folder (relative to the current directory, like the history default).
DEFAULT_OUT = os.path.join(".archeflow", "reports", "nightly")
EVENTS_DIR = os.path.join(".archeflow", "events")
TEAMS_DIR = os.path.join(".archeflow", "teams")
MEMORY_DIR = os.path.join(".archeflow", "memory")
HISTORY_NAME = "effectiveness.jsonl"
#: Seconds to wait for a history's append lock (held briefly by any extract).
HISTORY_APPEND_GRACE = 60.0
COMBINED = "combined"

_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_NAME = 60
_GONE = "no longer a directory (gone while the job ran)"


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Diagnostic:
    """One thing the run log reports: ``file:line: reason`` (line 0 = whole file)."""

    kind: str  # skipped_line | unreadable | invalid_run | root | team | history | pack | ...
    file: str
    line: int
    reason: str
    run_id: str | None = None

    def location(self) -> str:
        if not self.file:
            return ""
        file = quote_path(self.file)  # as sources.LineIssue.location writes it
        return f"{file}:{self.line}" if self.line > 0 else file

    def text(self) -> str:
        loc = self.location()
        return f"{loc}: {self.reason}" if loc else self.reason

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "reason": self.reason,
            "run_id": self.run_id,
            "text": self.text(),
        }


@dataclass
class OutputFile:
    """A file of the day's folder: ``path`` relative to ``OUT/YYYY-MM-DD``."""

    path: str
    title: str
    kind: str  # report | recommend | pack | runlog | index

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "title": self.title, "kind": self.kind}


@dataclass
class TeamOutcome:
    path: str
    name: str | None
    origin: str  # given | discovered
    outputs: list[OutputFile] = field(default_factory=list)
    error: str | None = None
    #: what `runscore recommend` says of these recommendations on stderr: its notes on the
    #: history (lines of another scoring version, ...), then, without their ``note: ``,
    #: each member advised on a model of another tier than its score was earned on
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "origin": self.origin,
            "outputs": [o.as_dict() for o in self.outputs],
            "error": self.error,
            "notes": self.notes,
        }


@dataclass
class PackInputs:
    """What a pack hook found under one root (``paths`` non-empty)."""

    paths: list[str]
    extra: dict[str, list[str]] = field(default_factory=dict)
    #: What was found in the way (a plain file where an input folder belongs): reported
    #: as rejected input whether or not the pack then runs.
    problems: list[Diagnostic] = field(default_factory=list)


@dataclass
class PackRun:
    """Everything a pack hook needs to render into the day's folder."""

    pack: str
    root: str
    label: str
    inputs: PackInputs
    out_dir: str  # absolute folder to write into (inside the temporary day folder)
    rel_dir: str  # the same, relative to the day folder
    date: dt.date
    memory_dir: str  # <root>/.archeflow/memory: where the pack keeps its history
    wait: float


@dataclass
class PackOutcome:
    """What a pack hook did. ``files`` are absolute paths it wrote under ``out_dir``."""

    summary: str = ""
    files: list[str] = field(default_factory=list)
    rejected: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: what the pack read and wrote, by name (``pipelines``, ``scored``, ``skills``,
    #: ``records_written``, ...): ``counts`` of the pack in ``runlog.json``, which
    #: ``read_days`` sums per pack; the summary alone said them in words only
    counts: dict[str, int] = field(default_factory=dict)
    #: the ids of the records the step appended to its history (``PackHook.history``):
    #: pipeline ids, skill names, for the journal (``_PackJournal``), which keeps them
    #: until the run log is in place. None: not said, and so not journaled past the step
    records: list[str] | None = None


@dataclass(frozen=True)
class PackHook:
    """A later pack joining the nightly job: where its inputs are, how to run it.

    ``history``: the file the pack appends to in the root's ``.archeflow/memory``
    (pipeline's ``pipelines.jsonl``), if any: the job journals its step there
    (``_PackJournal``), so that the records of a job stopped before its run log are said
    by the next one's."""

    pack: str
    find_inputs: Callable[[str], PackInputs | None]
    run: Callable[[PackRun], PackOutcome]
    history: str | None = None


@dataclass
class PackResult:
    pack: str
    root: str
    label: str
    inputs: list[str]
    summary: str = ""
    outputs: list[OutputFile] = field(default_factory=list)
    error: str | None = None
    warnings: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: inputs of 0 bytes, listed as a scope's empty run logs are (``ScopeResult.empty_files``)
    empty_files: list[str] = field(default_factory=list)
    #: failed only because another process held the pack's history lock past the wait
    locked: bool = False
    #: that process's PID, when the system says it
    locked_by: int | None = None
    #: its command name (``flock``, ``runscore``), when it can be read
    locked_by_command: str | None = None
    #: ``PackOutcome.counts``; None when the step failed: what it read is not known
    counts: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "root": self.root,
            "label": self.label,
            "inputs": self.inputs,
            "empty_files": self.empty_files,
            "summary": self.summary,
            "counts": self.counts,
            "outputs": [o.as_dict() for o in self.outputs],
            "error": self.error,
            # as a scope's: the error alone did not tell a busy history from a broken one
            "history_locked": self.locked,
            "history_locked_by": self.locked_by,
            "history_locked_by_command": self.locked_by_command,
            "warnings": [d.as_dict() for d in self.warnings],
            "notes": self.notes,
        }


@dataclass
class ScopeResult:
    """One effectiveness history and the roots that feed it."""

    label: str
    roots: list[str]
    history: str
    shared: bool = False  # the one --history of all roots
    events_dirs: list[str] = field(default_factory=list)
    files_found: int = 0
    empty_files: list[str] = field(default_factory=list)
    extracted: bool = False
    files_read: int = 0
    files_unchanged: int = 0
    runs_scored: list[str] = field(default_factory=list)
    records_written: int = 0
    already_scored: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    history_exists: bool = False
    #: the history has lines, and not one the readers take: nothing of it could be read
    history_unreadable: bool = False
    #: another process held the history's lock past the wait: not extracted into, or its
    #: report not read (``history_lines`` is then not counted)
    history_locked: bool = False
    #: the PID of the process that held it, when the system says it
    history_locked_by: int | None = None
    #: its command name (``flock``, ``runscore``), when it can be read
    history_locked_by_command: str | None = None
    #: why the history, there, could not be read (not UTF-8, not a regular file, no line
    #: usable, ...), said where the run log names it; None when read (or locked, or absent)
    history_error: str | None = None
    history_lines: int = 0
    #: the nightly jobs that scored runs into this history and stopped before their day
    #: folder was in place (killed, say): their runs are in the history and the reports
    #: but in no other run log (``_Journal``; each ``pid``, ``started_at``, ``date``,
    #: ``runs_scored`` and ``records_written``, the last two None when it was stopped
    #: inside its extract and how many is not known)
    interrupted_jobs: list[dict[str, Any]] = field(default_factory=list)
    report: OutputFile | None = None
    report_json: OutputFile | None = None
    teams: list[TeamOutcome] = field(default_factory=list)
    rejected: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        """Something could be read: events were extracted, or a history with a line the
        readers take (or none at all: an empty history is read, and has no rows)."""
        return self.extracted or (self.history_exists and not self.history_unreadable)

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "roots": self.roots,
            "history": self.history,
            "events_dirs": self.events_dirs,
            "files_found": self.files_found,
            "files_read": self.files_read,
            "files_unchanged": self.files_unchanged,
            "empty_files": self.empty_files,
            "runs_scored": self.runs_scored,
            "records_written": self.records_written,
            "already_scored": self.already_scored,
            "incomplete": self.incomplete,
            "history_exists": self.history_exists,
            "history_locked": self.history_locked,
            "history_locked_by": self.history_locked_by,
            "history_locked_by_command": self.history_locked_by_command,
            "history_error": self.history_error,
            "history_lines": self.history_lines,
            "interrupted_jobs": self.interrupted_jobs,
            "report": None if self.report is None else self.report.as_dict(),
            "report_json": None if self.report_json is None else self.report_json.as_dict(),
            "teams": [t.as_dict() for t in self.teams],
            "rejected": [d.as_dict() for d in self.rejected],
            "warnings": [d.as_dict() for d in self.warnings],
            "notes": self.notes,
        }


@dataclass
class NightlyResult:
    #: the day's folder's date (a ``date``, as ``PipelineResult.eval_date``; the run log
    #: writes it ``YYYY-MM-DD``)
    date: dt.date
    out_dir: str  # OUT/YYYY-MM-DD
    #: UTC, to the second (timezone-aware); ``finished_at`` None until the run log is written
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    roots: list[dict[str, Any]] = field(default_factory=list)
    scopes: list[ScopeResult] = field(default_factory=list)
    packs: list[PackResult] = field(default_factory=list)
    rejected: list[Diagnostic] = field(default_factory=list)  # not tied to a scope
    outputs: list[OutputFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the whole job
    #: the scoring version given (``version``, ``--sql-version``), as its SQL version;
    #: None: none given (extracted with ``DEFAULT_VERSION``, each history's newest reported)
    sql_version: str | None = None
    #: why ``OUT/index.md`` (every day's counts) could not be written after the swap; the
    #: day's folder is in place and says everything, and the next job writes it again.
    #: In ``as_dict`` (``--format json``); not in the run log, in place before it was tried.
    days_index_error: str | None = None
    #: the pack steps of nightly jobs on this output that appended to a pack's history and
    #: stopped before their day folder was in place (``_PackJournal``): each ``pid``,
    #: ``started_at``, ``date``, ``pack``, ``root`` (its folder's name), ``history``,
    #: ``records_written`` and ``records`` (the ids), the last two None when it was stopped
    #: inside the step and what it appended is not known
    interrupted_packs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def all_rejected(self) -> list[Diagnostic]:
        """Every rejected input in the run log's order (runlog.md): each scope's, then the
        rest (roots, packs). stderr and runlog.json's ``rejected`` listed the rest first."""
        out = [d for s in self.scopes for d in s.rejected]
        out.extend(self.rejected)
        return out

    @property
    def all_warnings(self) -> list[Diagnostic]:
        """Every warning (scored, but something was odd), in the run log's order: each
        scope's, then each pack's."""
        out = [d for s in self.scopes for d in s.warnings]
        for p in self.packs:
            out.extend(p.warnings)
        return out

    @property
    def partial(self) -> bool:
        """Some input was rejected (exit code 1); everything else was processed."""
        return bool(self.all_rejected)

    @property
    def status(self) -> str:
        return "partial" if self.partial else "ok"

    def as_dict(self) -> dict[str, Any]:
        return {
            "runscore_version": __version__,
            "date": self.date.isoformat(),
            "sql_version": self.sql_version,
            "status": self.status,
            "exit_code": 1 if self.partial else 0,
            "started_at": _stamp(self.started_at),
            "finished_at": _stamp(self.finished_at),
            "roots": self.roots,
            "scopes": [s.as_dict() for s in self.scopes],
            "packs": [p.as_dict() for p in self.packs],
            "interrupted_packs": self.interrupted_packs,
            "rejected": [d.as_dict() for d in self.all_rejected],
            "rejected_outside_scopes": [d.as_dict() for d in self.rejected],
            "notes": self.notes,
            "outputs": [o.as_dict() for o in self.outputs],
            # Known only after the swap: ``_write_log`` leaves it out of the run log.
            "days_index_error": self.days_index_error,
        }


class Renderer(Protocol):
    """Turns results into file text; the CLI implements it with its Jinja templates.

    ``kind`` is one of ``effectiveness_report`` (ctx: ``result`` = eh.ReportResult),
    ``effectiveness_recommend`` (``result`` = eh.RecommendResult), ``runlog`` and
    ``index`` (``log`` = ``NightlyResult.as_dict()``), and ``days_index`` (``days``: what
    ``read_days`` gives, newest first), ``OUT/index.md``. An error ``markdown`` raises for
    ``days_index`` (written after the day's swap) is ``days_index_error``, not the job's.
    """

    def markdown(self, kind: str, ctx: Mapping[str, Any]) -> str: ...

    def json(self, data: Any) -> str: ...


# --------------------------------------------------------------------------- helpers

#: The arguments the job's messages name: as a Python call spells them, and the command.
ROOTS = Arg("roots", "--root")
OUT = Arg("out", "--out")
HISTORY = Arg("history_path", "--history")
DATE = Arg("date", "--date")
WAIT = Arg("wait", "--wait")
TEAMS = Arg("teams", "--team")
#: ``hooks``: the packs that join the job, which no option gives.
HOOKS = Arg("hooks", "hooks")
WAIT_LONGER = Arg("wait", "--wait SECONDS", "wait=SECONDS")


def parse_date(text: str | None, *, today: dt.date | None = None) -> dt.date:
    """``YYYY-MM-DD`` (a real calendar date); None = today in UTC (``today``, a ``date``,
    when given)."""
    today = sources.day_arg(today, Arg("today", "today"))
    if text is None:
        return today or dt.datetime.now(dt.UTC).date()
    text = sources.text_arg(text, DATE, "YYYY-MM-DD text")  # a number: TypeError of re
    try:
        if not _DATE_RE.fullmatch(text):
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError(DATE, f" {quote(text)} is not a date in YYYY-MM-DD form") from None


def _check_hooks(renderer: object, hooks: object) -> list[PackHook]:
    """``hooks`` as a list, once ``renderer`` and each hook are what the job calls, else a
    ``UsageError`` naming the argument: ``renderer=None`` or ``hooks=5`` was an
    AttributeError or TypeError once the night's extract had written the histories."""
    if not all(callable(getattr(renderer, m, None)) for m in ("markdown", "json")):
        raise UsageError(
            Arg("renderer", "renderer"),
            ": give a Renderer (runscore.cli.nightly.Renderer(): markdown(kind, ctx) and "
            f"json(data)), not {sources.type_name(renderer)}",
        )
    if isinstance(hooks, str | bytes) or not isinstance(hooks, Sequence):
        raise UsageError(HOOKS, f": give a list of PackHooks, not {sources.type_name(hooks)}")
    for hook in hooks:
        if not isinstance(hook, PackHook):
            raise UsageError(
                HOOKS,
                " (runscore.cli.nightly.pack_hooks()): give PackHooks, not "
                + sources.type_name(hook),
            )
        name = hook.history
        if name is not None and not (
            isinstance(name, str) and name == os.path.basename(name) and name not in ("", ".", "..")
        ):
            # A file name in the root's memory folder, as the job journals it.
            raise UsageError(
                HOOKS, f": a PackHook's history is a file name, not {quote(str(name))}"
            )
    return list(hooks)


def _day(value: object) -> dt.date | None:
    """``date`` as the day it names. A ``datetime`` (a date to Python) was taken whole: the
    job's folder and its run log's ``date`` were ``2026-01-01T15:30:00``. It is its day in
    UTC (naive: read as UTC); text is read as ``--date`` reads it; any other type is a
    ``UsageError`` naming ``date``, where it was an AttributeError deep inside."""
    if value is None or isinstance(value, str):
        return None if value is None else parse_date(value)
    if isinstance(value, dt.datetime):
        return (value.astimezone(dt.UTC) if value.tzinfo is not None else value).date()
    if isinstance(value, dt.date):
        return value
    raise UsageError(DATE, f": give a datetime.date or YYYY-MM-DD text, not {type(value).__name__}")


def safe_name(text: str, fallback: str) -> str:
    """``text`` as one file-name part: ``[A-Za-z0-9._-]``, no leading dot or dash.

    A name that had to change gets ``-`` and 8 hex digits of its SHA-256, so two names
    that sanitise alike (``a/b``, ``a:b``) never share a file. Never a path: no ``/``,
    no ``..``, never empty.
    """
    s = _UNSAFE.sub("_", text).lstrip(".-")[:_MAX_NAME]
    if s == text and s:
        return s
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{s or fallback}-{digest}"


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 1
    while out.lower() in taken:
        n += 1
        out = f"{name}-{n}"
    taken.add(out.lower())
    return out


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def _stamp(t: dt.datetime | None) -> str:
    """A time as the run log writes it: ``YYYY-MM-DDTHH:MM:SSZ``, UTC ("" for none yet)."""
    return "" if t is None else t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _rel(path: str, base: str) -> str:
    return os.path.relpath(path, base).replace(os.sep, "/")


def history_of(root: str) -> str:
    return os.path.normpath(os.path.join(root, MEMORY_DIR, HISTORY_NAME))


def find_teams(root: str) -> tuple[list[str], list[Diagnostic]]:
    """Team presets of a root: regular ``*.yaml``/``*.yml`` files directly in
    ``<root>/.archeflow/teams/``, dot-files skipped, sorted by name; one that is neither a
    regular file nor a folder (a dangling symlink, a FIFO) is a problem, not a preset."""
    d = os.path.normpath(os.path.join(root, TEAMS_DIR))
    if not os.path.lexists(d):
        return [], []
    if not os.path.isdir(d):
        return [], [Diagnostic("team", d, 0, "not a directory; no team presets read")]
    try:
        names = sorted(os.listdir(d))
    except OSError as e:
        return [], [Diagnostic("team", d, 0, f"cannot read directory: {e.strerror or e}")]
    found = []
    problems: list[Diagnostic] = []
    for n in names:
        if n.startswith(".") or not n.endswith((".yaml", ".yml")):
            continue
        p = os.path.join(d, n)
        # A preset that cannot be read is said, as a pack's input is (_jsonl_files): a
        # symlink left dangling by a moved team file, a FIFO, were skipped without a word,
        # and the team's recommendations just stopped coming.
        try:
            mode = os.stat(p).st_mode
        except OSError as e:
            problems.append(Diagnostic("team", p, 0, f"cannot read file: {e.strerror or e}"))
            continue
        if stat.S_ISREG(mode):
            found.append(p)
        elif not stat.S_ISDIR(mode):  # never opened: a FIFO would block the job
            problems.append(Diagnostic("team", p, 0, "not a regular file; not read"))
    return found, problems


def _jsonl_files(d: str, pack: str, what: str) -> tuple[list[str], list[Diagnostic]]:
    """Regular ``*.jsonl`` files directly in ``d`` (sorted); none when ``d`` is absent,
    and a problem when something else than a folder stands there, or when a ``*.jsonl``
    in it is neither a regular file nor a folder (a dangling symlink, a FIFO): they were
    skipped silently, and a pack's inputs that are never read must be said."""
    if not os.path.lexists(d):
        return [], []
    if not os.path.isdir(d):
        return [], [Diagnostic(pack, d, 0, f"not a directory; no {what} read")]
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return [d], []  # let the pack's reader report it with its reason
    files: list[str] = []
    problems: list[Diagnostic] = []
    for n in names:
        if not n.endswith(".jsonl") or n.startswith("."):
            continue
        p = os.path.join(d, n)
        try:
            mode = os.stat(p).st_mode
        except OSError as e:  # a dangling or looping symlink: said, as the pack's reader does
            problems.append(Diagnostic(pack, p, 0, f"cannot read file: {e.strerror or e}"))
            continue
        if stat.S_ISREG(mode):
            files.append(p)
        elif not stat.S_ISDIR(mode):  # a FIFO, socket or device: never opened (it may block)
            problems.append(Diagnostic(pack, p, 0, "not a regular file; not read"))
    return files, problems


def _found(
    paths: list[str], extra: dict[str, list[str]], problems: list[Diagnostic]
) -> PackInputs | None:
    return PackInputs(paths, extra, problems) if paths or problems else None


def pipeline_inputs(root: str) -> PackInputs | None:
    """Pipeline pack: task exports ``<root>/.archeflow/tasks/*.jsonl`` (plans, optional:
    ``<root>/.archeflow/plans/*.jsonl``)."""
    base = os.path.normpath(os.path.join(root, ".archeflow"))
    tasks, p1 = _jsonl_files(os.path.join(base, "tasks"), "pipeline", "task exports")
    plans, p2 = _jsonl_files(os.path.join(base, "plans"), "pipeline", "plans")
    # Plans matter only beside tasks: without tasks the pack does not run.
    return _found(tasks, {"plans": plans}, p1 + (p2 if tasks else []))


def routes_inputs(root: str) -> PackInputs | None:
    """Routes pack: operation episodes ``<root>/.archeflow/episodes/*.jsonl``."""
    eps, problems = _jsonl_files(
        os.path.normpath(os.path.join(root, ".archeflow", "episodes")), "routes", "episodes"
    )
    return _found(eps, {}, problems)


def plugin_inputs(root: str) -> PackInputs | None:
    """Plugin pack: skill folders under ``<root>/.archeflow/plugin-eval/skills/``; optional
    ``judge.jsonl``, ``mc.jsonl``, ``matchups.jsonl`` beside that folder."""
    base = os.path.normpath(os.path.join(root, ".archeflow", "plugin-eval"))
    skills = os.path.join(base, "skills")
    if not os.path.isdir(skills):
        if os.path.lexists(skills):
            return _found(
                [], {}, [Diagnostic("plugin", skills, 0, "not a directory; no skills read")]
            )
        return None
    extra: dict[str, list[str]] = {}
    problems: list[Diagnostic] = []
    for k in ("judge", "mc", "matchups"):
        p = os.path.join(base, f"{k}.jsonl")
        if os.path.isfile(p):
            extra[k] = [p]
        elif os.path.lexists(p):
            problems.append(Diagnostic("plugin", p, 0, "not a regular file; not read"))
    return PackInputs([skills], extra, problems)


# --------------------------------------------------------------------------- day folder


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Atomically swap two paths (Linux ``renameat2``). False when unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), b)


def _recover(out: str) -> None:
    """Clean what a crashed run left in ``out`` (we hold the output lock, so it is dead).

    ``.D.tmp-*``: an unfinished rendering, deleted. ``.D.old-*``: a previous day folder
    renamed aside by the fallback swap; restored if ``D`` is missing, else deleted.
    """
    try:
        names = sorted(os.listdir(out))
    except OSError:
        return
    for n in names:
        m = re.fullmatch(r"\.(\d{4}-\d{2}-\d{2})\.(tmp|old)-\d+", n)
        if not m:
            continue
        p = os.path.join(out, n)
        if os.path.islink(p) or not os.path.isdir(p):
            continue
        final = os.path.join(out, m.group(1))
        if m.group(2) == "old" and not os.path.lexists(final):
            os.rename(p, final)
        else:
            shutil.rmtree(p, ignore_errors=True)
    _fsync_dir(out)


def _check_day_folder(final: str) -> None:
    if os.path.islink(final) or (os.path.lexists(final) and not os.path.isdir(final)):
        raise CannotAccess(
            f"{quote_path(final)}: exists and is not a directory; refusing to replace it",
            about=OUT,
        )


def _swap_in(tmp: str, final: str) -> None:
    """Make ``tmp`` the day folder ``final``; delete the old one only afterwards."""
    parent = os.path.dirname(final)
    _check_day_folder(final)
    if not os.path.lexists(final):
        os.rename(tmp, final)
    elif _exchange(tmp, final):
        shutil.rmtree(tmp)  # now holds the previous day folder
    else:
        old = os.path.join(parent, f".{os.path.basename(final)}.old-{os.getpid()}")
        os.rename(final, old)
        os.rename(tmp, final)
        shutil.rmtree(old)
    _fsync_dir(parent)


#: ``OUT/index.md``: every day folder in ``OUT`` with its counts (``read_days``).
DAYS_INDEX = "index.md"
#: What a day's entry of ``read_days`` counts, summed over its run log's scopes.
_DAY_COUNTS = ("runs_scored", "already_scored", "incomplete")


def _check_days_index(out: str) -> None:
    """Refuse, before any history is written, an ``OUT/index.md`` that is not a regular
    file (a folder, a FIFO, a symlink): it is replaced after the swap, which would fail
    there (or write through the link) once the night's work is done."""
    path = os.path.join(out, DAYS_INDEX)
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
        raise CannotAccess(
            f"{quote_path(path)}: exists and is not a regular file; refusing to replace it",
            about=OUT,
        )


def read_days(out: str) -> list[dict[str, Any]]:
    """Every day folder in ``out`` (``YYYY-MM-DD``, a real folder), newest first, each with
    its counts as its ``runlog.json`` gives them: ``date``, ``index`` (the day's
    ``index.md`` relative to ``out``, None when it is not there), ``status``,
    ``exit_code``, ``finished_at``, ``runs_scored``, ``already_scored``, ``incomplete``,
    ``rejected``, ``interrupted_runs`` (runs of jobs that stopped before their run log,
    said by this one) and ``interrupted_runs_not_counted`` (such jobs stopped inside their
    extract, how many runs not known), ``packs`` (``_pack_counts``), or ``error``: why its
    run log could not be read (missing, not a file, not JSON, not one runscore wrote), its
    counts then None, never 0."""
    try:
        names = sorted(os.listdir(out), reverse=True)
    except OSError:
        return []
    days: list[dict[str, Any]] = []
    for name in names:
        folder = os.path.join(out, name)
        if not _DATE_RE.fullmatch(name) or _day(name) is None:
            continue
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        index = os.path.join(folder, "index.md")
        entry: dict[str, Any] = {
            "date": name,
            "index": f"{name}/index.md" if os.path.isfile(index) else None,
            "status": None,
            "exit_code": None,
            "finished_at": None,
            **{
                k: None
                for k in (
                    *_DAY_COUNTS,
                    "rejected",
                    "interrupted_runs",
                    "interrupted_runs_not_counted",
                    "packs",
                )
            },
            "error": None,
        }
        try:
            entry.update(_day_counts(os.path.join(folder, "runlog.json")))
        except _Unreadable as e:
            entry["error"] = f"{name}/runlog.json: {e}"
        days.append(entry)
    return days


class _Unreadable(Exception):
    """Why a day's run log could not be read (``read_days``)."""


def _day_counts(path: str) -> dict[str, Any]:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise _Unreadable("missing") from None
    except OSError as e:
        raise _Unreadable(f"cannot read it: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):  # a FIFO would block the open
        raise _Unreadable("not a regular file")
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read())
    except OSError as e:
        raise _Unreadable(f"cannot read it: {e.strerror or e}") from None
    except ValueError:  # not UTF-8 (UnicodeDecodeError) or not JSON
        raise _Unreadable("not JSON") from None
    try:
        scopes = doc["scopes"]
        counts: dict[str, Any] = {k: sum(len(s[k]) for s in scopes) for k in _DAY_COUNTS}
        stopped = [j for s in scopes for j in s.get("interrupted_jobs", ())]
        counts["interrupted_runs"] = sum(len(j["runs_scored"] or ()) for j in stopped)
        # Stopped inside its extract after the history grew: how many runs is not known (a
        # job's step counted as 0 read as no stopped job at all).
        counts["interrupted_runs_not_counted"] = sum(j["runs_scored"] is None for j in stopped)
        counts["rejected"] = len(doc["rejected"])
        # A run log without them (none of this runscore's) says nothing of its packs; one
        # without interrupted_packs, as without interrupted_jobs, no stopped job's.
        counts["packs"] = (
            _pack_counts(doc["packs"], doc.get("interrupted_packs", ())) if "packs" in doc else None
        )
        status, code, finished = doc["status"], doc["exit_code"], doc["finished_at"]
        if not (
            isinstance(status, str)
            and isinstance(code, int)
            and isinstance(finished, str | None)
            and isinstance(scopes, list)
        ):
            raise TypeError
    except (KeyError, TypeError, AttributeError):
        raise _Unreadable("not a run log runscore wrote") from None
    return {"status": status, "exit_code": code, "finished_at": finished, **counts}


def _pack_counts(
    packs: Sequence[Mapping[str, Any]], interrupted: Sequence[Mapping[str, Any]] = ()
) -> dict[str, dict[str, Any]]:
    """A day's packs, in its run log's order, each ``{roots, failed, counts,
    interrupted_records, interrupted_not_counted}``: the roots it ran for, those where it
    failed, its ``counts`` summed over the others, and what its steps in jobs that stopped
    before their run log appended (``interrupted_packs``, said by this one), as
    ``interrupted_runs`` counts the effectiveness runs: the records, and the steps stopped
    inside whose records are not known (never 0). A pack only a stopped job ran comes
    after, its ``roots`` 0. The runs counted above are the effectiveness histories' only:
    a day of packs alone read as a day of nothing. ``counts`` is None where no root's step
    said them (it failed on every root, it ran for none, or the run log is of a runscore
    that wrote none): not known, never 0."""
    out: dict[str, dict[str, Any]] = {}

    def entry_of(pack: object) -> dict[str, Any]:
        if not isinstance(pack, str):
            raise TypeError
        return out.setdefault(
            pack,
            {
                "roots": 0,
                "failed": 0,
                "counts": None,
                "interrupted_records": 0,
                "interrupted_not_counted": 0,
            },
        )

    for p in packs:
        entry = entry_of(p["pack"])
        entry["roots"] += 1
        entry["failed"] += p["error"] is not None
        said = p.get("counts")
        if said is None:
            continue
        if not isinstance(said, dict) or not all(isinstance(v, int) for v in said.values()):
            raise TypeError
        summed = entry["counts"] = entry["counts"] or {}
        for k, v in said.items():
            summed[k] = summed.get(k, 0) + v
    for j in interrupted:
        entry = entry_of(j["pack"])
        n = j["records_written"]
        if n is None:
            entry["interrupted_not_counted"] += 1
        elif isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            entry["interrupted_records"] += n
        else:
            raise TypeError
    return out


def _write_days_index(out: str, renderer: Renderer) -> str | None:
    """Write ``OUT/index.md`` from every day's run log; None, or why it was not written."""
    path = os.path.join(out, DAYS_INDEX)
    try:
        text = renderer.markdown("days_index", {"days": read_days(out)})
        history.atomic_write_text(path, text, about=OUT)
    except OSError as e:
        return e.strerror or str(e)
    except CannotAccess as e:  # a symlink made there since the check (``_check_days_index``)
        return str(e)
    except Exception as e:
        # The renderer's own error (a caller's Renderer): the day is in place by now, and a
        # crash here gave a traceback and the wrong exit code for a list of days the next
        # job writes again. A Ctrl-C (KeyboardInterrupt, or DuckDB's) still stops the job.
        if interrupted(e):
            raise
        return f"{type(e).__name__}: {shown(str(e))}" if str(e) else type(e).__name__
    return None


class _Day:
    """Writes the day's files into the temporary folder, atomically each."""

    def __init__(self, tmp: str) -> None:
        self.tmp = tmp
        self.outputs: list[OutputFile] = []

    def write(self, rel: str, text: str, title: str, kind: str) -> OutputFile:
        path = os.path.join(self.tmp, *rel.split("/"))
        history.atomic_write_text(path, text, about=OUT)
        o = OutputFile(rel, title, kind)
        self.outputs.append(o)
        return o


# --------------------------------------------------------------------------- main


@dataclass
class _Root:
    given: str
    path: str  # normalised
    label: str


def run_nightly(
    roots: sources.Paths,
    out: str | os.PathLike[str] = DEFAULT_OUT,
    *,
    renderer: Renderer,
    teams: sources.Paths = (),
    date: dt.date | str | None = None,
    history_path: str | os.PathLike[str] | None = None,
    wait: float = 0.0,
    hooks: Sequence[PackHook] = (),
    version: str | None = None,
    scored_at: dt.datetime | dt.date | str | None = None,
) -> NightlyResult:
    """Run the nightly job; returns what was done (``partial`` → exit code 1).

    ``version``: the scoring version to extract with (default ``DEFAULT_VERSION``) and,
    when given, the one the effectiveness reports and recommendations read; without it
    they read each history's newest (the CLI's ``--sql-version``). ``scored_at``: the
    extracts' time, as ``effectiveness.extract`` takes it (default: the clock).

    Raises ``UsageError`` for bad arguments (an invalid ``--team`` file included: it is
    configuration, checked before anything runs), ``LockTimeout`` when another nightly
    job holds the output's or a history's nightly lock for more than ``wait`` seconds,
    and ``NothingReadable`` when no root had any readable input or history (then the
    day's folder is left untouched).
    """
    # One root given alone is one root, not its characters; a pathlib.Path is its text.
    # None or a number (an unset variable read with os.environ.get) is refused naming it.
    root_paths = sources.input_paths(roots, ROOTS, "folder")
    given_team_paths = sources.input_paths(teams, TEAMS, "file")
    out = sources.one_path(out, OUT, "folder")
    history_path = None if history_path is None else sources.one_path(history_path, HISTORY)
    wait = history.wait_seconds(wait, WAIT)
    hooks = _check_hooks(renderer, hooks)
    # Checked now, not as each project's failed extract (exit 1).
    scored_at = effectiveness.scored_at_text(scored_at)
    # The reports read the version the runs were scored with: they read the history's
    # newest, so a history with v1 lines had its archeflow-legacy scores extracted and
    # left out of the day's reports. Checked now, not as each project's failed step.
    if version == "all":
        # report's side by side: each project's extract failed on it (exit 1, or 3 with
        # nothing else to read), after the day's folder, locks and history folders were made
        raise UsageError("nightly works on one scoring version; ", eh.ALL, " is for report")
    report_version = eh.parse_version_option(version, allow_all=False)
    extract_version = report_version or effectiveness.DEFAULT_VERSION
    # Settings from the environment hold for every project: a bad one is the job's usage
    # error, said once, not the same failure in each project's part of the run log.
    db.check_env()
    sources.max_line_limit()
    effectiveness_cache.settings()
    today = parse_date(None)
    day = _day(date) or today
    root_paths = root_paths or ["."]
    # An empty root (`--root "$PROJECT"` of an unset variable in a crontab), which would
    # score the folder cron runs in without a word, is refused by input_paths above; the
    # same of --out (the OS said ": cannot create it") and --history (each project's
    # step failed, exit 1, or with nothing to read the job said "nothing readable").
    history.require_path(out, OUT, "folder")
    if history_path is not None:
        history.require_path(history_path, HISTORY)
    given_teams = _check_given_teams(given_team_paths)
    if history_path is not None:
        # The path as every message writes one (``quoting.path``): it was written as it
        # was, so a line break in it split the message.
        given = (HISTORY, f" {quote_path(history_path)}: ")
        if os.path.isdir(history_path):
            raise UsageError(*given, "is a directory, not a file")
        if os.path.islink(history_path):
            raise UsageError(*given, "refusing to write through a symlink")
        above = os.path.dirname(os.path.abspath(history_path))
        while not os.path.lexists(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        if not os.path.isdir(above):  # said now, not as each project's failed step (exit 1)
            raise CannotAccess(*given, f"{quote_path(above)} is a file where a folder is needed")
        _refuse_a_run_log(history_path, root_paths)
    if os.path.lexists(out) and not os.path.isdir(out):
        raise CannotAccess(OUT, f" {quote_path(out)}: exists and is not a directory")
    nothing = _nothing_there(root_paths, history_path, hooks, day)
    if nothing is not None:
        # Run in the wrong folder, say: said before a folder or lock file is made there.
        raise NothingReadable(nothing, about=ROOTS)
    _check_can_make(out)
    _refuse_inputs_in_day_folder(
        os.path.join(out, day.isoformat()), root_paths, history_path, given_team_paths
    )
    _refuse_inputs_at_days_index(out, history_path, given_team_paths)
    out = os.path.abspath(out)
    final = os.path.join(out, day.isoformat())
    # Before any lock (the histories' make their folders), and again under the output's.
    _check_day_folder(final)
    _check_days_index(out)
    result = NightlyResult(date=day, out_dir=final, started_at=_now(), sql_version=report_version)
    good = _check_roots(root_paths, result)
    scopes = _plan_scopes(good, history_path)
    result.scopes = [s for s, _ in scopes]

    with contextlib.ExitStack() as job:
        # The histories' nightly locks first, and only then the output folder and its lock:
        # a job turned away by a history's lock (exit 4) had made a new --out folder and
        # the lock file in it, which stayed. Every job takes them in this order, so no two
        # jobs each hold a lock the other waits for. Nothing made is removed instead: a
        # lock file may be waited on by another job from the moment it is there (see the
        # module docstring), and a folder made may be one a racing job just made its own.
        held = job.enter_context(contextlib.ExitStack())
        # A history whose lock cannot even be taken (its folder is a file, not writable,
        # ...), or that stays locked by an extract, takes down its own scopes only. So
        # does a lock file the lock refuses (a FIFO, a symlink): runscore's error, not the
        # system's, it stopped the whole job (exit 2). Only another job's lock (exit 4) does.
        broken: dict[str, str] = {}
        journals: dict[str, _Journal] = {}
        me = {"pid": os.getpid(), "started_at": _stamp(result.started_at), "date": day.isoformat()}
        for h in sorted({s.history for s, m in scopes if _uses_history(s, m)}):
            try:
                held.enter_context(
                    _lock(h + history.NIGHTLY_LOCK, wait, "a history", _history_arg(history_path))
                )
                # Read now, as the lock is: a journal it cannot read takes down its scopes.
                found = _Journal(h, me, _history_arg(history_path))
                found.read()
                journals[h] = found
            except LockTimeout:
                raise
            except _STEP_FAILED as e:
                broken[h] = _step_reason(e)
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:  # made unmakeable since _check_can_make: said alike
            raise CannotAccess(
                OUT, f" {quote_path(out)}: cannot create it: {e.strerror or e}"
            ) from None
        # The lock file's path names the folder or history it locks: said once, not twice.
        try:
            job.enter_context(
                _lock(os.path.join(out, ".nightly"), wait, "the output directory", OUT)
            )
        except CannotAccess:
            raise  # a FIFO there: said by the lock, naming out (an OSError too)
        except OSError as e:  # a folder at OUT/.nightly.lock: said as before, naming out
            where = f"{quote_path(os.fsdecode(e.filename))}: " if e.filename else ""
            raise CannotAccess(f"{where}{e.strerror or e}", about=OUT) from None
        _recover(out)
        # Read now, under the output's lock and before any history is written: one
        # runscore did not write stops the job here (exit 2), as an odd lock file there does.
        packs_journal = _PackJournal(out, me)
        packs_journal.read()
        result.interrupted_packs = packs_journal.said()
        # Refused before any history is written, not after the whole night's work (it
        # may have been made since the check above).
        _check_day_folder(final)
        _check_days_index(out)
        tmp = os.path.join(out, f".{day.isoformat()}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        try:
            dayf = _Day(tmp)
            # The histories' nightly locks are held until the day's folder is in place, as
            # the output's is: their journals (``_Journal``) are cleared just before the swap.
            for scope, members in scopes:
                if scope.history in broken:
                    # Its run logs are still looked for, not read: the run log said
                    # "Run logs from nowhere", 0 found, as if there were none.
                    _extract_scope(scope, members, extract_version, wait, scored_at, read=False)
                    scope.rejected.append(
                        _about("history", scope.history, "not extracted: ", broken[scope.history])
                    )
                    # Not read either (the run log said "none yet"): why, where it
                    # names the history.
                    scope.history_error = _located(scope.history, broken[scope.history])[1]
                    continue
                journal = journals.get(scope.history)
                if journal is not None:
                    scope.interrupted_jobs = _interrupted(journal)
                if not _extract_scope(
                    scope, members, extract_version, wait, scored_at, journal=journal
                ):
                    broken[scope.history] = "locked"  # said by _extract_scope
            for scope, members in scopes:
                if scope.history not in broken:
                    _render_scope(scope, members, given_teams, dayf, renderer, wait, report_version)
                else:  # its presets are still listed, each saying why it was skipped
                    why = _LOCKED if scope.history_locked else broken[scope.history]
                    team_paths = _scope_teams(scope, members, given_teams)
                    scope.teams.extend(_skipped_teams(team_paths, given_teams, why))
            for r in good:
                if not os.path.isdir(r.path):
                    gone = _gone(r)
                    if gone not in result.all_rejected:  # said once, not per step
                        result.rejected.append(gone)
                    for entry in result.roots:
                        if entry["label"] == r.label:
                            entry.update(status="rejected", reason=_GONE)
                    continue
                for hook in hooks:
                    pr = _run_hook(hook, r, day, tmp, wait, result, packs_journal)
                    if pr is not None:
                        result.packs.append(pr)
                        dayf.outputs.extend(pr.outputs)
            # A history another process holds is input there, and fine, only busy: its
            # project's step failed (rejected input, exit 1), also when it is the only one;
            # "nothing readable" (exit 3, no day folder) left no run log to say so.
            if not any(s.readable or s.history_locked for s in result.scopes) and not any(
                p.outputs or p.locked for p in result.packs
            ):
                raise NothingReadable(_nothing_message(result, tried=True), about=ROOTS)
            if day < today and any(s.report is not None for s in result.scopes):
                result.notes.append(_past_day_note(day))
            result.finished_at = _now()
            _write_log(result, dayf, renderer)
            for journal in journals.values():
                journal.publish()
            packs_journal.publish()
            try:
                _swap_in(tmp, final)
            except BaseException:
                for journal in journals.values():
                    journal.restore()
                packs_journal.restore()
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        # Still under the output's lock: no other job adds or replaces a day meanwhile.
        result.days_index_error = _write_days_index(out, renderer)
    return result


def _refuse_a_run_log(history_path: str, root_paths: Sequence[str]) -> None:
    """Refuse, before anything is read or written, a ``--history`` that is a run log under
    a root's events folder (``effectiveness.refuse_a_run_log``): each project's extract
    left it out, as the history is, and appended the records to it. Told by its path
    (the folders are not listed for it: a night over 100k run files lists them once)."""
    real = os.path.realpath(history_path)
    if not fnmatch.fnmatch(os.path.basename(real), "*.jsonl"):
        return
    for r in root_paths:
        events = os.path.realpath(os.path.join(r, EVENTS_DIR))
        if real.startswith(os.path.join(events, "")):
            found = sources.SourceFile(path=history_path, display=history_path, realpath=real)
            effectiveness.refuse_a_run_log(
                history_path, [found], reader="the job", given=ROOTS, option=HISTORY
            )


def _refuse_inputs_in_day_folder(
    day_folder: str,
    root_paths: Sequence[str],
    history_path: str | None,
    team_paths: Sequence[str],
) -> None:
    """Refuse, before anything is read or written, a root, ``--history`` or ``--team``
    inside the day's folder: the job writes a new one and swaps it in whole, so the old
    one, and what was in it, is removed (``--history out/2026-04-05/h.jsonl`` was appended
    to, then deleted with it). In the words of an input refused as an output."""
    if not os.path.isdir(day_folder):
        return
    inside = os.path.join(os.path.realpath(day_folder), "")
    for given, what, reader, paths in (
        (ROOTS, "root", "reads", root_paths),
        (HISTORY, "history", "appends to", [] if history_path is None else [history_path]),
        (TEAMS, "team file", "reads", team_paths),
    ):
        for p in paths:
            if os.path.join(os.path.realpath(p), "").startswith(inside):
                raise UsageError(
                    f"{quote_path(day_folder)}: that holds the {what} {quote_path(p)} the job "
                    f"{reader} (",
                    given,
                    "), and is replaced whole; choose another ",
                    OUT,
                    about=OUT,
                )


def _refuse_inputs_at_days_index(
    out: str, history_path: str | None, team_paths: Sequence[str]
) -> None:
    """Refuse, before anything is read or written, a ``--history`` or ``--team`` that is
    ``OUT/index.md``: each job writes the list of days over it (``--history out/index.md``
    was appended to, then replaced by the list)."""
    index = os.path.join(out, DAYS_INDEX)
    for given, what, reader, paths in (
        (HISTORY, "history", "appends to", [] if history_path is None else [history_path]),
        (TEAMS, "team file", "reads", team_paths),
    ):
        for p in paths:
            same = os.path.realpath(p) == os.path.realpath(index)
            with contextlib.suppress(OSError):
                same = same or os.path.samefile(p, index)  # a hard link to it
            if same:
                raise UsageError(
                    f"{quote_path(index)}: that is the {what} {quote_path(p)} the job {reader} (",
                    given,
                    "), and each job writes the list of days there; choose another ",
                    OUT,
                    about=OUT,
                )


def _check_can_make(out: str) -> None:
    """Refuse, making nothing, an output folder that is not there and cannot be made (under
    a file, in a folder not writable, on a read-only mount): it is made only once the
    histories' nightly locks are held, and said then it left their folders and lock files
    made for a project's first night. A folder is made in the nearest one that exists and
    removed (permission bits do not say it for root, nor on a read-only mount); it is a
    name of this process's own (``mkdtemp``), which no other process uses."""
    if os.path.isdir(out):
        return
    above = os.path.dirname(os.path.abspath(out))
    while not os.path.lexists(above):
        above = os.path.dirname(above)
    try:
        probe = tempfile.mkdtemp(prefix=".runscore-probe-", dir=above)
    except OSError as e:
        raise CannotAccess(
            OUT, f" {quote_path(out)}: cannot create it: {e.strerror or e}"
        ) from None
    os.rmdir(probe)


#: Errors of one project's step that must not stop the other projects (spec README:
#: "bad input never takes good input down with it"): the file system's, DuckDB's when it
#: cannot read a file (a history that is a folder, say), and DuckDB running out of memory
#: on that project's data.
_CONFINED: tuple[type[BaseException], ...] = (
    OSError,
    duckdb.IOException,
    duckdb.OutOfMemoryException,
)
#: What fails one project's step: those, and runscore's own errors (a lock held past the
#: wait, a history that is a symlink, ...); but not a Ctrl-C that DuckDB took in a query
#: (``errors.interrupted``: the SQL runner's error raised from DuckDB's), which stops the
#: job as it stops any command.
_STEP_FAILED: tuple[type[BaseException], ...] = (RunscoreError, *_CONFINED)


def _step_reason(e: BaseException) -> str:
    """Why a project's step failed, in one line. DuckDB out of memory (raised as is, or
    wrapped by the SQL runner with its file) as the CLI's exit 5 says it: DuckDB's first
    line and the settings to change, not its advice on `SET threads`."""
    oom = out_of_memory(e)
    if oom is not None:
        return f"{_io_reason(oom)} {db.out_of_memory_hint()}"
    return str(e) if isinstance(e, RunscoreError) else _io_reason(e)


def _io_reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        where = f"{quote_path(str(e.filename))}: " if e.filename else ""
        # os.makedirs's "File exists" of whatever stands where a folder belongs: a FIFO
        # there read "File exists" in one project's step and, from `check_writable`, "a
        # file where a folder is needed" in the next.
        if (
            isinstance(e, FileExistsError)
            and e.filename
            and os.path.lexists(e.filename)
            and not os.path.isdir(e.filename)
        ):
            return f"{where}a file where a folder is needed"
        return f"{where}{e.strerror}"
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def _history_arg(history_path: str | None) -> Arg:
    """The job's argument that gave a project's history: ``history_path`` when given,
    else the root it was found in."""
    return HISTORY if history_path is not None else ROOTS


@contextlib.contextmanager
def _lock(path: str, wait: float, what: str, about: Arg) -> Iterator[None]:
    """``history.locked`` with the nightly's own message; only the *taking* of the lock
    is translated (a LockTimeout from inside the body passes through unchanged).
    ``about``: the job's argument whose folder or history it locks (an odd lock file
    there is refused naming it)."""
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(history.locked(path, timeout=wait, what="nightly", about=about))
    except LockTimeout as e:
        lock = f"the lock on {what}, {quote_path(path + '.lock')}"
        if e.holder is not None and not history.held_by_runscore(e.holder, e.command):
            # flock(1), say: not known to be a job
            who = f"{lock}, is held by {history.holder_words(e.holder, e.command)}"
        else:
            who = f"nightly already running: {history.held_by(lock, e.holder, e.command)}"
        raise LockTimeout(
            (f"{who}; gave up after {wait:g}s (use ", WAIT_LONGER, " to wait longer)"),
            e.holder,
            e.command,
        ) from None
    with stack:
        yield


#: Beside each history (``<history>.nightly.journal``): what the jobs that extracted into
#: it did, until their run log is in place.
JOURNAL = history.NIGHTLY_JOURNAL
_JOURNAL_KIND = "runscore-nightly-journal-v1"
_JOB_KEYS = ("pid", "started_at", "date", "runs_scored", "records_written")


class _Journal:
    """The history's nightly journal, read and written under its nightly lock.

    A job killed (or failed) after its extract appended to the history and before its
    day folder was swapped in left runs in the history and the reports that no run log
    listed: the next job's said "0 scored", the files unchanged. So a job notes itself
    in the journal before its extract (``begin``: the history's size then), what it
    scored once the extract returns (``done``), and clears the journal just before its
    swap (``publish``). The next job reads what is left (``earlier``) and its run log
    says it (``interrupted_jobs``). An entry only ever says what the job did: an extract
    stopped inside (no counts) is said as such, and left out when the history is the
    same file of the same size as when it began (it appended nothing). Clearing it
    before the swap, not after: a kill between the two leaves those runs unsaid, as
    before, where the other order would list runs again that a run log in place lists."""

    def __init__(self, history_path: str, job: dict[str, Any], about: Arg) -> None:
        self.path = history_path + JOURNAL
        self.about = about  # the job's argument that gave the history
        self.history = history_path
        self.job = job
        self.earlier: list[dict[str, Any]] = []
        self.own: dict[str, Any] | None = None

    def read(self) -> None:
        """``earlier``: the entries of jobs before this one. A journal runscore did not
        write (not a regular file: a FIFO would block the open; not its JSON) fails the
        project's step, as a broken lock file does: said, never guessed at."""
        jobs = _read_journal(
            self.path, _JOURNAL_KIND, "jobs", _journal_entry, HistoryError, self.about
        )
        if jobs is not None:
            self.earlier = [j for j in jobs if j["runs_scored"] is not None or self._grown(j)]

    def _grown(self, entry: Mapping[str, Any]) -> bool:
        return _file_key(self.history) != entry.get("history")

    def begin(self) -> None:
        self.own = {**self.job, "runs_scored": None, "records_written": None}
        self.own["history"] = _file_key(self.history)
        self._save([*self.earlier, self.own])

    def done(self, runs_scored: Sequence[str], records_written: int) -> None:
        own = {**self.job, "runs_scored": list(runs_scored), "records_written": records_written}
        self.own = own if runs_scored or records_written else None
        self._save([*self.earlier, *([own] if self.own else [])], quiet=True)

    def failed(self) -> None:
        """The extract raised: nothing to say of it when it appended nothing."""
        if self.own is not None and not self._grown(self.own):
            self.own = None
            self._save(self.earlier, quiet=True)

    def publish(self) -> None:
        """Just before the swap: this job's run log says all but an extract that failed
        after it appended, which stays for the next job to say."""
        self._save([self.own] if self.own is not None and self.own["runs_scored"] is None else [])

    def restore(self) -> None:
        """The swap failed: the run log that says them is not in place."""
        own = [] if self.own is None else [self.own]
        self._save([*self.earlier, *own], quiet=True)

    def _save(self, jobs: Sequence[Mapping[str, Any]], *, quiet: bool = False) -> None:
        """``quiet``: an error is let go (``_write_journal``)."""
        _write_journal(self.path, _JOURNAL_KIND, "jobs", jobs, self.about, quiet=quiet)


def _journal_entry(entry: object) -> bool:
    """Is ``entry`` one ``_Journal`` writes (a job's; the history's key when it began)?"""
    if not isinstance(entry, dict) or not all(k in entry for k in _JOB_KEYS):
        return False
    runs, records = entry["runs_scored"], entry["records_written"]
    return (
        isinstance(entry["pid"], int)
        and isinstance(entry["started_at"], str)
        and isinstance(entry["date"], str)
        and (runs is None or (isinstance(runs, list) and all(isinstance(r, str) for r in runs)))
        and (records is None or isinstance(records, int))
    )


def _file_key(path: str) -> list[int] | None:
    """The file at ``path`` (device, inode) and its size; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size]


def _interrupted(journal: _Journal) -> list[dict[str, Any]]:
    """What the run log says of the journal's earlier entries."""
    return [{k: j[k] for k in _JOB_KEYS} for j in journal.earlier]


#: In ``OUT`` (``_PackJournal``): the pack steps of the jobs on it that appended to a pack's
#: history, until their run log is in place.
PACKS_JOURNAL = ".nightly.packs.journal"
_PACKS_JOURNAL_KIND = "runscore-nightly-packs-journal-v1"
_STEP_KEYS = (*_JOB_KEYS[:3], "pack", "root", "history", "records_written", "records")


class _PackJournal:
    """The pack steps' journal, ``OUT/.nightly.packs.journal``, as ``_Journal`` is the
    extract's: a job stopped after a pack appended to its history (``pipelines.jsonl``,
    ``plugins.jsonl``) and before its day folder was in place left records no run log
    names; where the pack's input changed before the next job, that job appends its own
    and says only them. Each step is noted before it runs (``begin``: the history's key
    then), with the ids it appended once it returns (``done``), dropped when it appended
    nothing; the journal is cleared just before the swap (``publish``) and the next job
    on this output says what is left (``NightlyResult.interrupted_packs``), once.

    Kept in ``OUT``, read and written under its lock, not beside each pack history: the
    histories' nightly locks are taken before anything else and only where run logs or a
    history are, while a pack's history is known only once its inputs are found. So
    only a job on the same ``--out`` says them."""

    def __init__(self, out: str, job: dict[str, Any]) -> None:
        self.path = os.path.join(out, PACKS_JOURNAL)
        self.job = job
        self.earlier: list[dict[str, Any]] = []
        self.own: list[dict[str, Any]] = []

    def read(self) -> None:
        """A journal runscore did not write is refused (exit 2, naming ``out``) before any
        history is written, as an odd ``OUT/.nightly.lock`` is: said, never guessed at."""
        steps = _read_journal(
            self.path, _PACKS_JOURNAL_KIND, "steps", _journal_step, CannotAccess, OUT
        )
        if steps is not None:
            self.earlier = [s for s in steps if s["records"] is not None or _grown(s)]

    def said(self) -> list[dict[str, Any]]:
        return [{k: s[k] for k in _STEP_KEYS} for s in self.earlier]

    def begin(self, pack: str, root: str, history_path: str) -> dict[str, Any]:
        step = {**self.job, "pack": pack, "root": root, "history": history_path}
        step.update(records_written=None, records=None, history_key=_file_key(history_path))
        # ``history`` is said as this job was given it; the next job on this output may
        # run from another working directory, where that text names another file or none.
        step["history_at"] = os.path.abspath(history_path)
        self.own.append(step)
        self._save([*self.earlier, *self.own])
        return step

    def done(self, step: dict[str, Any], records: Sequence[str] | None) -> None:
        """``records`` None: the hook did not say them; its step is not journaled further
        (this job's run log says what the pack said), never said as stopped inside it."""
        if records:
            step.update(records_written=len(records), records=list(records))
        else:
            self.own.remove(step)
        self._save([*self.earlier, *self.own], quiet=True)

    def failed(self, step: dict[str, Any]) -> None:
        """The step raised: nothing to say of it when its history did not grow."""
        if not _grown(step):
            self.own.remove(step)
            self._save([*self.earlier, *self.own], quiet=True)

    def publish(self) -> None:
        """Just before the swap: this job's run log says all but a step that failed after
        its history grew, which stays for the next job to say."""
        self._save([s for s in self.own if s["records"] is None])

    def restore(self) -> None:
        """The swap failed: the run log that says them is not in place."""
        self._save([*self.earlier, *self.own], quiet=True)

    def _save(self, steps: Sequence[Mapping[str, Any]], *, quiet: bool = False) -> None:
        _write_journal(self.path, _PACKS_JOURNAL_KIND, "steps", steps, OUT, quiet=quiet)


def _grown(entry: Mapping[str, Any]) -> bool:
    """Has the history an entry began on changed (another file, another size) since? An
    entry of a runscore before ``history_at`` has only the path as its job was given it:
    read from this job's working directory, as that runscore read it."""
    at = entry.get("history_at", entry["history"])
    return _file_key(str(at)) != entry.get("history_key")


def _journal_step(entry: object) -> bool:
    """Is ``entry`` one ``_PackJournal`` writes?"""
    if not isinstance(entry, dict) or not all(k in entry for k in _STEP_KEYS):
        return False
    n, records = entry["records_written"], entry["records"]
    return (
        _journal_entry({**entry, "runs_scored": None})
        and all(isinstance(entry[k], str) for k in ("pack", "root", "history"))
        and isinstance(entry.get("history_at", ""), str)
        and (n is None or isinstance(n, int))
        and (
            records is None
            or (isinstance(records, list) and all(isinstance(r, str) for r in records))
        )
    )


def _read_journal(
    path: str,
    kind: str,
    key: str,
    check: Callable[[object], bool],
    error: Callable[..., RunscoreError],
    about: Arg,
) -> list[dict[str, Any]] | None:
    """The entries under ``key`` of the journal at ``path`` (``_write_journal``'s), each
    one ``check`` accepts; None when there is none. One runscore did not write (not a
    regular file: a FIFO would block the open; not its JSON, another kind of journal, an
    entry ``check`` refuses) raises ``error`` naming ``about``: said, never guessed at."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        raise error(f"{quote_path(path)}: the nightly journal is not a regular file", about=about)
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = json.loads(data)
        entries = doc[key] if doc["kind"] == kind else None
        if not isinstance(entries, list) or not all(map(check, entries)):
            raise ValueError
    except (ValueError, TypeError, KeyError):
        raise error(
            f"{quote_path(path)}: not a nightly journal runscore wrote "
            "(remove it when no nightly job runs)",
            about=about,
        ) from None
    return entries


def _write_journal(
    path: str,
    kind: str,
    key: str,
    entries: Sequence[Mapping[str, Any]],
    about: Arg,
    *,
    quiet: bool = False,
) -> None:
    """Write a journal atomically, or remove it when it has no entry. ``quiet``: an error
    is let go, the journal on disk left as it was (it says the step began, or less: never
    more than happened)."""
    try:
        if entries:
            text = json.dumps({"kind": kind, key: list(entries)}) + "\n"
            history.atomic_write_text(path, text, about=about)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    except OSError:
        if not quiet:
            raise


def _check_given_teams(teams: Sequence[str]) -> list[tuple[str, eh.Team]]:
    out: list[tuple[str, eh.Team]] = []
    seen: set[str] = set()
    for t in teams:
        key = os.path.realpath(t)
        if key in seen:
            continue
        seen.add(key)
        out.append((t, eh.parse_team(t, about=TEAMS)))  # UsageError: exit 2 before anything runs
    return out


def _check_roots(roots: Sequence[str], result: NightlyResult) -> list[_Root]:
    ok: list[tuple[dict[str, Any], str, str, str]] = []  # entry, given, path, real path
    seen: set[str] = set()
    for given in roots:
        path = os.path.normpath(given)
        entry: dict[str, Any] = {"root": given, "status": "ok", "reason": None, "label": None}
        result.roots.append(entry)
        reason = None
        if not os.path.lexists(path):
            reason = "no such directory"
        elif not os.path.isdir(path):
            reason = "not a directory"
        elif not os.access(path, os.R_OK | os.X_OK):
            reason = "permission denied"
        elif os.path.lexists(af := os.path.join(path, ".archeflow")) and not os.path.isdir(af):
            # Everything is read under it: a file there read as a project with no data.
            reason = ".archeflow is not a directory; nothing under it read"
        if reason is not None:
            entry.update(status="rejected", reason=reason)
            result.rejected.append(Diagnostic("root", given, 0, f"root skipped: {reason}"))
            continue
        key = os.path.realpath(path)
        if key in seen:
            # The run log's words, which the API and the CLI write alike: neither's spelling
            # (``roots``, ``--root``).
            entry.update(status="duplicate", reason="same directory as an earlier root")
            continue
        seen.add(key)
        ok.append((entry, given, path, key))
    labels = _labels([key for *_, key in ok])
    good: list[_Root] = []
    for entry, given, path, key in ok:
        entry["label"] = labels[key]
        good.append(_Root(given, path, labels[key]))
    return good


def _labels(reals: Sequence[str]) -> dict[str, str]:
    """Each root's folder name (by real path): its basename, and where two roots share
    one (on a case-blind disk too), ``-`` and 8 hex digits of the SHA-256 of its real
    path. A root's name depends on its own path and on which names clash, never on the
    order the roots were given in: numbered ``proj``, ``proj-2`` in that order, two
    projects swapped folders (mixing their day-over-day files) when a glob or a crontab
    edit reordered them."""
    base = {k: safe_name(os.path.basename(k) or "root", "root") for k in reals}
    count: dict[str, int] = {}
    for name in base.values():
        count[name.lower()] = count.get(name.lower(), 0) + 1
    out: dict[str, str] = {}
    taken: set[str] = set()
    # In real-path order, so that a clash left after the suffix (a folder literally named
    # as another's suffixed name) is settled the same way every night.
    for k in sorted(reals):
        name = base[k]
        if count[name.lower()] > 1:
            digest = hashlib.sha256(k.encode("utf-8", "surrogateescape")).hexdigest()[:8]
            name = f"{name}-{digest}"
        out[k] = _unique(name, taken)
    return out


def _plan_scopes(
    roots: Sequence[_Root], history_path: str | None
) -> list[tuple[ScopeResult, list[_Root]]]:
    if history_path is not None:
        if not roots:
            return []
        s = ScopeResult(COMBINED, [r.given for r in roots], history_path, shared=True)
        return [(s, list(roots))]
    return [(ScopeResult(r.label, [r.given], history_of(r.path)), [r]) for r in roots]


def _uses_history(scope: ScopeResult, members: Sequence[_Root]) -> bool:
    """Lock (and so create the folder of) a root's history only when there is one to
    write or read; an explicit ``--history`` is always used."""
    if scope.shared or os.path.lexists(scope.history):
        return True
    return any(os.path.isdir(os.path.join(r.path, EVENTS_DIR)) for r in members)


def _extract_scope(
    scope: ScopeResult,
    members: Sequence[_Root],
    version: str,
    wait: float,
    scored_at: str | None,
    *,
    read: bool = True,
    journal: _Journal | None = None,
) -> bool:
    """Extract the scope's new runs; False when its history stayed locked (no report then).
    ``read`` False: only find them (the history's nightly lock could not be taken), so the
    run log says where they are and how many, none read. ``journal``: the history's, told
    when the extract begins and what it scored."""
    dirs: list[str] = []
    # Discovered and stat'ed once, here, for the counts and for extract: a night over 100k
    # unchanged run files listed and stat'ed them twice (~0.8 s of ~3 s).
    found: list[sources.SourceFile] = []
    found_issues: list[sources.LineIssue] = []
    seen: set[str] = set()
    for r in members:
        if not os.path.isdir(r.path):
            scope.rejected.append(_gone(r))
            continue
        d = os.path.normpath(os.path.join(r.path, EVENTS_DIR))
        if not os.path.lexists(d):
            scope.notes.append(_no_events_note(d))
            continue
        if not os.path.isdir(d):
            scope.rejected.append(Diagnostic("unreadable", d, 0, "not a directory"))
            continue
        scope.events_dirs.append(d)
        files, issues = sources.discover([d])
        # A history under the events folder (and what is kept beside it) is not a run log:
        # extract leaves it out, but the job counted it as found and said nothing of it.
        files, left_out = effectiveness.leave_out_own_files(
            files, scope.history, "this job writes to"
        )
        scope.notes.extend(f"{quote_path(f)}: {why}" for f, why in left_out)
        scope.files_found += len(files)
        for f in files:
            try:
                st = os.stat(f.path)
            except OSError:
                continue  # extract reports it
            if stat.S_ISREG(st.st_mode):
                f.size, f.mtime_ns, f.ctime_ns = st.st_size, st.st_mtime_ns, st.st_ctime_ns
                if st.st_size == 0:
                    scope.empty_files.append(f.display)
        if files or issues:
            dirs.append(d)
            # What discover(dirs) gives: a file reached from two roots is read once.
            for f in files:
                if f.realpath not in seen:
                    seen.add(f.realpath)
                    found.append(f)
            found_issues.extend(issues)
        else:
            scope.notes.append(_no_run_logs_note(d))
    if dirs and read:
        try:
            if journal is not None:
                journal.begin()
            res = effectiveness.extract(
                dirs,
                scope.history,
                version,
                lock_timeout=max(wait, HISTORY_APPEND_GRACE),
                scored_at=scored_at,
                discovered=(found, found_issues),
                # An empty run log is a run that has just begun: listed (empty_files), not
                # rejected, and a project with nothing else is read, with no run to score.
                allow_empty=True,
            )
        except NothingReadable as e:
            if journal is not None:
                journal.failed()
            # Each file or line that could not be read, with its own file and line, as the
            # packs' are (the message itself, one entry naming the folders, ran them together).
            # A file that holds no line is an empty file here as on any night, said once:
            # it was also rejected input ("empty (no events)") when another file failed.
            scope.rejected.extend(
                [
                    Diagnostic("unreadable", f, ln, why)
                    for f, ln, why in e.problems
                    if not _no_lines(e, f, ln, scope.empty_files)
                ]
                or [Diagnostic("unreadable", ", ".join(dirs), 0, str(e))]
            )
        except LockTimeout as e:
            if journal is not None:
                journal.failed()
            # A hand-run extract appending for longer than we wait: this project's step
            # fails, the others go on. Its report is not tried: it would wait as long again.
            scope.rejected.append(_about("history", scope.history, "not extracted: ", str(e)))
            scope.history_locked, scope.history_locked_by = True, e.holder
            scope.history_locked_by_command = e.command
            # There (the run log said "none yet" of a history with lines), only not read.
            scope.history_exists = os.path.isfile(scope.history)
            return False
        except _STEP_FAILED as e:
            if interrupted(e):
                raise
            if journal is not None:
                journal.failed()
            # A history that is a symlink, a manifest that is a folder, DuckDB out of
            # memory, ...: this scope only.
            scope.rejected.append(
                _about("history", scope.history, "not extracted: ", _step_reason(e))
            )
        else:
            _take_extract(scope, res)
            if journal is not None:
                journal.done(scope.runs_scored, res.records_written)
            # Files of blank lines only hold no line either: listed as 0-byte ones are.
            scope.empty_files.extend(
                i.file for i in res.no_lines if i.file not in scope.empty_files
            )
        if len(scope.empty_files) > 1:  # in the order the files were found
            order = {f.display: i for i, f in enumerate(found)}
            scope.empty_files.sort(key=lambda d: order.get(d, len(order)))
    if read and os.path.isfile(scope.history):
        scope.history_exists = True
    return True


def _no_lines(e: NothingReadable, file: str, line: int, empty_files: list[str]) -> bool:
    """Whether a failed reader's problem is that ``file`` holds no line (empty, or blank
    lines only), as the reader flags it (``e.no_lines``; its reason's words may change); if
    so it joins ``empty_files`` (once) instead of the rejected input."""
    if line != 0 or file not in e.no_lines:
        return False
    if file not in empty_files:
        empty_files.append(file)
    return True


def _take_extract(scope: ScopeResult, res: effectiveness.ExtractResult) -> None:
    scope.extracted = True
    scope.files_read = res.files_read
    scope.files_unchanged = res.files_unchanged
    scope.records_written = res.records_written
    already = set(res.already_scored)
    seen: set[str] = set()
    # No run scored, no records: not asked for (computing them would score nothing).
    for rid in res.records.column("run_id").to_pylist() if res.runs_scored else []:
        if rid not in seen and rid not in already:
            seen.add(rid)
            scope.runs_scored.append(str(rid))
    scope.already_scored = list(res.already_scored)
    scope.incomplete = list(res.incomplete)
    for i in res.unreadable:
        scope.rejected.append(Diagnostic("unreadable", i.file, i.line, i.reason))
    for i in res.skipped_lines:
        scope.rejected.append(Diagnostic("skipped_line", i.file, i.line, i.reason))
    for inv in res.invalid:
        locs = effectiveness.locations_said(inv["locations"])
        first = str(inv["locations"][0]) if inv["locations"] else ""
        file, _, line = first.rpartition(":")
        scope.rejected.append(
            Diagnostic(
                "invalid_run",
                file or first,
                int(line) if line.isdigit() else 0,
                f"run {quote(inv['run_id'])} not scored: {inv['reason']} ({locs})",
                run_id=str(inv["run_id"]),
            )
        )
    unsaved = res.manifest_problem()
    if unsaved is not None:
        scope.rejected.append(Diagnostic("history", unsaved[0], 0, unsaved[1]))
    for w in res.warnings:
        scope.warnings.append(Diagnostic("warning", w.file, w.line, w.reason, run_id=w.run_id))


#: Why a scope's team presets got no recommendations when its history stayed locked.
_LOCKED = "history locked by another process"


def _scope_teams(
    scope: ScopeResult, members: Sequence[_Root], given_teams: Sequence[tuple[str, eh.Team]]
) -> list[tuple[str, str]]:
    """The scope's team presets, (path, origin): the given ones, then each member root's
    own; a preset that cannot be read is the scope's rejected input."""
    team_paths: list[tuple[str, str]] = [(p, "given") for p, _ in given_teams]
    seen = {os.path.realpath(p) for p, _ in given_teams}
    for r in members:
        found, problems = find_teams(r.path)
        scope.rejected.extend(problems)
        for p in found:
            if os.path.realpath(p) not in seen:
                seen.add(os.path.realpath(p))
                team_paths.append((p, "discovered"))
    return team_paths


def _skipped_teams(
    team_paths: Sequence[tuple[str, str]],
    given_teams: Sequence[tuple[str, eh.Team]],
    why: str,
) -> list[TeamOutcome]:
    """The scope's presets, none recommended for (``why``), each with its team's name: the
    index called every one "team (unnamed)". Read without scoring (a small YAML file); a
    preset that cannot be parsed stays unnamed, and is said as rejected input on a night
    its history can be read, as before."""
    given = dict(given_teams)
    out = []
    for p, origin in team_paths:
        team = given.get(p)
        if team is None:
            with contextlib.suppress(UsageError):
                team = eh.parse_team(p, about=TEAMS if origin == "given" else ROOTS)
        out.append(TeamOutcome(p, None if team is None else team.name, origin, error=why))
    return out


def _render_scope(
    scope: ScopeResult,
    members: Sequence[_Root],
    given_teams: Sequence[tuple[str, eh.Team]],
    dayf: _Day,
    renderer: Renderer,
    wait: float,
    version: str | None,
) -> None:
    team_paths = _scope_teams(scope, members, given_teams)
    if not scope.history_exists:
        why = _unusable_history(scope)
        if why is None:
            scope.notes.append(_no_history_note(scope.history))
        scope.teams.extend(
            _skipped_teams(team_paths, given_teams, "no history yet" if why is None else why)
        )
        return
    # Read under the append lock: a concurrent `runscore extract` cannot be mid-append.
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(
                history.locked(
                    scope.history,
                    timeout=max(wait, HISTORY_APPEND_GRACE),
                    about=HISTORY if scope.shared else ROOTS,
                )
            )
            _render_report(scope, dayf, renderer, version)
        except _STEP_FAILED as e:  # locked past the wait, out of memory, ...
            if interrupted(e):
                raise
            if isinstance(e, NothingReadable) and e.problems:
                # Every line of the history skipped: no report (as `runscore report`, exit
                # 3), each line rejected with its file and line, as when only some are,
                # and why there is no report a note (the index's "no report: ...").
                scope.history_unreadable = True
                scope.history_error = "no line of it is usable; each is listed as rejected input"
                # Said here of the history's path, by the rule, not taken from the engine's
                # text, whose first line would be written whatever it held.
                scope.notes.append(
                    f"no line of the history {quote_path(scope.history)} could be read"
                )
                scope.rejected.extend(
                    Diagnostic("history", f, ln, f"{why} (see `runscore history check`)")
                    for f, ln, why in e.problems
                )
                scope.teams.extend(
                    _skipped_teams(team_paths, given_teams, "no history line could be read")
                )
                return
            scope.history_locked = isinstance(e, LockTimeout)
            if isinstance(e, LockTimeout):
                scope.history_locked_by = e.holder
                scope.history_locked_by_command = e.command
            else:
                scope.history_error = _located(scope.history, _step_reason(e))[1]
            if scope.history_locked or not _said_by_extract(scope, _step_reason(e)):
                scope.rejected.append(
                    _about("history", scope.history, "no report: ", _step_reason(e))
                )
            why = _LOCKED if scope.history_locked else f"no report: {_step_reason(e)}"
            scope.teams.extend(_skipped_teams(team_paths, given_teams, why))
            return
        names = _team_names([p for p, _ in team_paths])
        for p, origin in team_paths:
            _render_team(scope, p, origin, names[p], dayf, renderer, version)


def _team_names(paths: Sequence[str]) -> dict[str, str]:
    """Each preset's file name in the scope's folder (``recommend-<stem>``): where two
    share one (``good.yml`` in two roots of one ``--history``, ``x.yaml`` and ``x.yml``,
    compared case-blind), each gets ``-`` and 8 hex digits of the SHA-256 of its real path,
    as roots' folders do (``_labels``). Numbered in the order met, a reordered ``--root``
    list swapped two teams' day-over-day files."""
    reals = {p: os.path.realpath(p) for p in paths}
    base = {
        p: safe_name(f"recommend-{os.path.splitext(os.path.basename(p))[0]}", "recommend")
        for p in paths
    }
    count: dict[str, int] = {}
    for name in base.values():
        count[name.lower()] = count.get(name.lower(), 0) + 1
    out: dict[str, str] = {}
    taken: set[str] = {"report"}
    # In real-path order, so that a clash left after the suffix is settled the same way
    # every night.
    for p in sorted(paths, key=lambda q: reals[q]):
        name = base[p]
        if count[name.lower()] > 1:
            digest = hashlib.sha256(reals[p].encode("utf-8", "surrogateescape")).hexdigest()[:8]
            name = f"{name}-{digest}"
        out[p] = _unique(name, taken)
    return out


def _said_by_extract(scope: ScopeResult, reason: str) -> bool:
    """Whether the report's failure, ``reason``, is about the history file itself after
    extract already failed on it: a UTF-16 history, say, was one fault of the project's
    said twice, "not extracted: ..." then "no report: ..." in other words. The report is
    still tried (a history extract refuses to append to, a symlink, may still be read)."""
    if _located(scope.history, reason) == (0, reason):
        return False  # not about the file (out of memory, ...): a fault of its own
    return any(
        d.kind == "history" and d.file == scope.history and d.reason.startswith("not extracted: ")
        for d in scope.rejected
    )


def _unusable_history(scope: ScopeResult) -> str | None:
    """Why a scope without a history file has none to report from, when it is not that
    there is none yet: its step failed (said as rejected input), or something stands in
    the history's way, with no run log to extract or not (said here once, and as
    ``history_error``). A folder in the history's place was said both ways, its error and
    "no history yet"; with no run logs, only "no history yet" (exit 0)."""
    said = any(d.kind == "history" and d.file == scope.history for d in scope.rejected)
    what = _in_the_way(scope.history)
    if what is None:
        return "no usable history" if said else None
    # The run log said "(none yet)" of a history it could not have read.
    scope.history_error = what
    if not said:
        why = what if what.endswith(_NO_FOLDER) else f"the history is {what}"
        scope.rejected.append(Diagnostic("history", scope.history, 0, f"no report: {why}"))
    return "no usable history"


def _in_the_way(path: str) -> str | None:
    """What keeps a history that is not a regular file from being read, as the run log
    says it: something else at ``path``, or a file where one of its folders belongs (no
    history can be there, whatever extract or a later night does); None when nothing
    is there (none yet)."""
    if os.path.lexists(path):
        dangling = os.path.islink(path) and not os.path.exists(path)
        return "a symlink to nothing" if dangling else "not a regular file"
    above = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(above) and os.path.dirname(above) != above:
        above = os.path.dirname(above)
    return None if os.path.isdir(above) else f"{quote_path(above)}: {_NO_FOLDER}"


_NO_FOLDER = "a file where a folder is needed"


def _render_report(scope: ScopeResult, dayf: _Day, renderer: Renderer, version: str | None) -> None:
    folder = f"effectiveness/{scope.label}"
    rep = eh.report(scope.history, version, others_note=False)
    scope.history_lines = rep.history.lines
    for i in rep.issues:
        scope.rejected.append(
            Diagnostic("history", i.file, i.line, f"{i.reason} (see `runscore history check`)")
        )
    scope.notes.extend(rep.notes)
    others = eh.other_versions(rep.history, rep.versions)
    if others:
        scope.notes.append(
            _other_versions_note(scope.history, others, rep.versions, chosen=version is not None)
        )
    scope.report = dayf.write(
        f"{folder}/report.md",
        renderer.markdown("effectiveness_report", {"result": rep}),
        f"Effectiveness report ({scope.label})",
        "report",
    )
    scope.report_json = dayf.write(
        f"{folder}/report.json",
        renderer.json(rep.table),
        f"Effectiveness report ({scope.label}, JSON)",
        "report",
    )


#: What follows the file's name in an error about it: ``:line`` (``:column`` too for
#: YAML's errors), then the reason.
_LOCATED_RE = re.compile(r":(?:(\d+)(?::\d+)?:)? ?")


def _located(path: str, message: str) -> tuple[int, str]:
    """(line, reason) of an error about ``path`` that opens with it (the team parser's:
    ``path:3:1: not valid YAML: ...``; the history's ``path: the history is not a regular
    file``), as given or made absolute: the run log names the file and the line apart, not
    the path again inside the reason. Line 0 (the whole file) when none is given."""
    given = (path, os.path.abspath(path))
    # As the engine's messages write it (``quoting.path``): a path with a tab is quoted.
    for p in dict.fromkeys((*given, *map(quote_path, given))):
        if not message.startswith(p):
            continue
        m = _LOCATED_RE.match(message, len(p))
        if m is not None and m.end() > len(p):
            return int(m.group(1) or 0), message[m.end() :]
    return 0, message


def _about(kind: str, path: str, prefix: str, message: str) -> Diagnostic:
    """A diagnostic of ``path`` whose reason is ``prefix`` and an error's message, that
    message's own opening ``path:`` left out (``h: not extracted: h: ...`` named it twice)."""
    line, reason = _located(path, message)
    return Diagnostic(kind, path, line, f"{prefix}{reason}")


def _render_team(
    scope: ScopeResult,
    path: str,
    origin: str,
    name: str,
    dayf: _Day,
    renderer: Renderer,
    version: str | None,
) -> None:
    folder = f"effectiveness/{scope.label}"
    stem = os.path.splitext(os.path.basename(path))[0]
    outcome = TeamOutcome(path, None, origin)
    scope.teams.append(outcome)
    try:
        rec = eh.recommend(scope.history, path, version)
    except _STEP_FAILED as e:
        if interrupted(e):
            raise
        outcome.error = _step_reason(e)
        line, reason = _located(path, outcome.error)
        scope.rejected.append(Diagnostic("team", path, line, f"team preset skipped: {reason}"))
        return
    outcome.name = rec.team.name
    # `recommend` says them on stderr; the job, unattended, in its run log only. What it
    # notes of the history (lines of another scoring version, say) is not repeated here:
    # the scope has the report's notes on the same history, read under the same lock, so
    # each team preset said it once more.
    outcome.notes = list(rec.model_notes)
    # A title is a sentence (the run log writes it as a message): the name is shown as a
    # message shows a value, quoted if it holds what would be written escaped, so a team
    # named with a right-to-left override reads apart from one named with its text \u202e.
    title = f"Recommendations for team {shown(rec.team.name or stem)}"
    outcome.outputs.append(
        dayf.write(
            f"{folder}/{name}.md",
            renderer.markdown("effectiveness_recommend", {"result": rec}),
            title,
            "recommend",
        )
    )
    outcome.outputs.append(
        dayf.write(
            f"{folder}/{name}.json", renderer.json(rec.table), title + " (JSON)", "recommend"
        )
    )


def _run_hook(
    hook: PackHook,
    root: _Root,
    day: dt.date,
    tmp: str,
    wait: float,
    result: NightlyResult,
    journal: _PackJournal | None = None,
) -> PackResult | None:
    inputs = hook.find_inputs(root.path)
    if inputs is not None:
        result.rejected.extend(inputs.problems)
    if inputs is None or not inputs.paths:
        return None
    pack = safe_name(hook.pack, "pack")
    rel_dir = f"{pack}/{root.label}"
    out_dir = os.path.join(tmp, pack, root.label)
    os.makedirs(out_dir, exist_ok=True)
    # Its other input files too (pipeline's plans, plugin's judge, mc and matchups): they
    # change the scores, and the run log listed only the task files or skills folder.
    every = [*inputs.paths, *(q for qs in inputs.extra.values() for q in qs)]
    pr = PackResult(hook.pack, root.given, root.label, every)
    # Taken by the job as nothing yet (a summary of no pipelines, a report of no episodes),
    # an empty file showed only in the list of inputs, where an empty run log is listed.
    # Stat'ed before the pack reads them, as the run logs are before extract. Its other
    # input files too (pipeline's plans): `pipeline --plans` says an empty one as it says
    # an empty task file, and the run log listed only the latter.
    for p in every:
        with contextlib.suppress(OSError):  # gone since found: the pack's reader says so
            st = os.stat(p)
            if stat.S_ISREG(st.st_mode) and (st.st_size == 0 or sources.blank_only(p)):
                pr.empty_files.append(p)
    run = PackRun(
        hook.pack,
        root.path,
        root.label,
        inputs,
        out_dir,
        rel_dir,
        day,
        os.path.normpath(os.path.join(root.path, MEMORY_DIR)),
        wait,
    )
    step = None
    if journal is not None and hook.history is not None:
        # Before the step, as the extract's: a job stopped inside it after its history
        # grew is said by the next job's run log.
        step = journal.begin(hook.pack, root.label, os.path.join(run.memory_dir, hook.history))
    try:
        outcome = hook.run(run)
    except BaseException as e:
        if step is not None and journal is not None:
            journal.failed(step)
        if not isinstance(e, _STEP_FAILED) or interrupted(e):
            raise
        _drop_if_empty(out_dir)
        if isinstance(e, NothingReadable) and e.problems:
            # Every input rejected: each said with its own file and line, as when only some
            # are. They were one entry naming the root, its reason the message's lines
            # (`\n` on stderr, run together in runlog.md).
            head = str(e).split("\n", 1)[0].rstrip(":")
            _pack_failed(pr, result, root, hook, head)
            # A file that holds no line is one of the pack's empty files, said once.
            rejected = [
                Diagnostic("pack", f, ln, f"{hook.pack}: {why}")
                for f, ln, why in e.problems
                if not _no_lines(e, f, ln, pr.empty_files)
            ]
            result.rejected.extend(rejected)
            _not_empty_if_said(pr, rejected)
            return pr
        refused = _of_input(e, every)
        if refused is not None:
            # One of its inputs as found, refused in the pack API's words (`judge PATH: no
            # such file`: an argument the job has not): said of the file, in the job's.
            path, pr.error = refused
            result.rejected.append(_about("pack", path, f"{hook.pack}: ", pr.error))
            return pr
        # Its history's folder is a file, or locked past the wait, DuckDB out of memory,
        # ...: this project's pack only.
        pr.locked = isinstance(e, LockTimeout)
        if isinstance(e, LockTimeout):
            pr.locked_by = e.holder
            pr.locked_by_command = e.command
        return _pack_failed(pr, result, root, hook, _step_reason(e))
    if step is not None and journal is not None:
        journal.done(step, outcome.records)
    pr.summary = outcome.summary
    pr.counts = dict(outcome.counts)
    base = os.path.realpath(tmp)
    for f in outcome.files:
        real = os.path.realpath(f)
        if os.path.commonpath([real, base]) != base:
            raise RuntimeError(f"pack {hook.pack} wrote outside the day folder: {f}")
        pr.outputs.append(OutputFile(_rel(real, base), os.path.basename(f), "pack"))
    result.rejected.extend(outcome.rejected)
    # A file the pack warns of (plugin's empty judge file, said with what the skills were
    # scored without) is its warning, not one more empty file: said once.
    _not_empty_if_said(pr, [*outcome.rejected, *outcome.warnings])
    pr.warnings = list(outcome.warnings)
    pr.notes = list(outcome.notes)
    return pr


def _of_input(e: BaseException, inputs: Sequence[str]) -> tuple[str, str] | None:
    """The input file ``e`` refuses and its message without the argument it opens with,
    when ``e`` is a pack's refusal of one of ``inputs`` (as found) said in the pack API's
    words (``judge PATH: no such file``, ``mc PATH:3: ...``); None for any other error."""
    parts = e.parts if isinstance(e, RunscoreError) else ()
    if len(parts) < 2 or not isinstance(parts[0], Arg) or not isinstance(parts[1], str):
        return None
    rest = str(e)[len(_said_as_call(parts[0])) :].lstrip()
    return next(((p, rest) for p in inputs if rest.startswith(f"{quote_path(p)}:")), None)


def _said_as_call(arg: Arg) -> str:
    """``arg`` as a Python call's message says it (``RunscoreError``'s text)."""
    return arg.python or arg.param


def _drop_if_empty(out_dir: str) -> None:
    """A failed pack's folder (``<pack>/<root>``), and its pack's when no other root's is in
    it, removed when empty: a folder of nothing was noise in the published day folder, the
    failure being in the run log and index. Only empty ones (``rmdir``): what a pack wrote
    before it failed is not deleted unseen. Both were made by this job in its own temporary
    day folder, which no other process writes to."""
    for d in (out_dir, os.path.dirname(out_dir)):
        try:
            os.rmdir(d)
        except OSError:  # not empty (another root's outputs), or already gone
            return


def _not_empty_if_said(pr: PackResult, rejected: Sequence[Diagnostic]) -> None:
    """A file of blank bytes that the reader still found fault with (lines that end in a CR
    alone, say) is its rejected input, not an empty file, and one it warned of is its
    warning: said once."""
    said = {d.file for d in rejected}
    pr.empty_files = [f for f in pr.empty_files if f not in said]


def _pack_failed(
    pr: PackResult, result: NightlyResult, root: _Root, hook: PackHook, reason: str
) -> PackResult:
    pr.error = reason
    result.rejected.append(Diagnostic("pack", root.given, 0, f"{hook.pack}: {reason}"))
    return pr


def _gone(root: _Root) -> Diagnostic:
    """A root there when the job started and gone by the time its step ran: rejected, as
    a root missing from the start is (it read as a root with nothing in it, exit 0)."""
    return Diagnostic("root", root.given, 0, f"root skipped: {_GONE}")


def _past_day_note(day: dt.date) -> str:
    """What a past day's folder must say of its effectiveness reports. They are not cut
    back to the lines written by the end of that day: a history line's ts is when it was
    scored, so a missed night re-run the next morning would leave out the very runs it
    has just extracted (and a first run over old logs would report nothing). The routes
    report keeps all its episodes too; only its freshness clock is the day."""
    d = day.isoformat()
    return (
        f"the folder is dated {d}, but its effectiveness reports and recommendations read "
        f"each history as this job found it (lines written after {d} included), not as it "
        f"was on {d}"
    )


def _other_versions_note(
    history_path: str, others: Sequence[str], used: Sequence[str], *, chosen: bool = False
) -> str:
    """What the run log says of a history's lines of scoring versions its reports leave out:
    which one they read and the command that shows the rest. ``chosen``: the version was
    given to the job (``run_nightly(version=...)``, ``--sql-version``). Worded for the
    run log, which the API and the CLI write alike: `report`'s note names its option."""
    which = (
        f"the scoring version this job was given, {', '.join(used)}"
        if chosen
        else f"its newest scoring version, {', '.join(used)}, as this job was given none"
    )
    head = (
        f"{quote_path(history_path)} also holds {', '.join(others)} lines, not in the "
        f"nightly's reports (they read {which})"
    )
    if cannot_show(history_path):
        # A copyable command would hold the path as it is (a U+202E turns the note around, a
        # line break splits it), and one written escaped names another file: none is shown.
        return (
            f"{head}: `runscore report --history PATH --sql-version all`, with this "
            "history's path for PATH (quoted by hand: it holds a character that cannot be "
            "shown here), reports them side by side"
        )
    return (
        f"{head}: `runscore report --history {shlex.quote(history_path)} "
        "--sql-version all` reports them side by side"
    )


def _no_events_note(events_dir: str) -> str:
    return f"{quote_path(events_dir)}: no event logs (folder missing)"


def _no_run_logs_note(events_dir: str) -> str:
    return f"{quote_path(events_dir)}: no *.jsonl run logs"


def _may_hold_run_logs(events_dir: str) -> bool:
    """Could the job find anything to read or say in ``events_dir``? False only when it is
    missing, or a folder with no ``*.jsonl`` below it, walked as ``sources.discover`` walks
    it (links to folders not followed). An empty events folder made the job take its locks
    and make the history's folder, then fail (exit 3) with them left behind. Stops at the
    first run log: the job lists them all once, under its lock. Anything else (not a
    folder, a folder it cannot list) is for the job to say."""
    if not os.path.lexists(events_dir):
        return False
    if not os.path.isdir(events_dir):
        return True
    pending = [events_dir]
    while pending:
        try:
            with os.scandir(pending.pop()) as it:
                for entry in it:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        if fnmatch.fnmatchcase(entry.name, "*.jsonl"):
                            return True
                    elif not entry.is_symlink():
                        pending.append(entry.path)
        except OSError:
            return True
    return False


def _no_history_note(history_path: str) -> str:
    # Not "; no report": the index's Report cell says "no report: " and then this note.
    return f"{quote_path(history_path)}: no history yet"


def _nothing_there(
    roots: Sequence[str], history_path: str | None, hooks: Sequence[PackHook], day: dt.date
) -> str | None:
    """Why nothing could be read, when no root has anything to look at; else None.

    Looked at without writing: a root's events folder, its history, a pack's inputs (or
    what is in their way), or the one ``--history``. When any is there, the job runs
    (it may still find nothing readable in them, and say so after looking). The message
    is the one the job would give after looking.
    """
    if history_path is not None and os.path.lexists(history_path):
        return None
    probe = NightlyResult(date=day, out_dir="", started_at=_now())
    good = _check_roots(roots, probe)
    for r in good:
        if _may_hold_run_logs(os.path.join(r.path, EVENTS_DIR)) or os.path.lexists(
            history_of(r.path)
        ):
            return None
        for hook in hooks:
            found = hook.find_inputs(r.path)
            if found is not None and (found.paths or found.problems):
                return None
    for scope, members in _plan_scopes(good, history_path):
        for r in members:
            d = os.path.normpath(os.path.join(r.path, EVENTS_DIR))
            scope.notes.append(_no_run_logs_note(d) if os.path.lexists(d) else _no_events_note(d))
        what = _in_the_way(scope.history)  # a file where its folder belongs: not "none yet"
        scope.notes.append(
            _no_history_note(scope.history)
            if what is None
            else f"{quote_path(scope.history)}: no report: {what}"
        )
        probe.scopes.append(scope)
    return _nothing_message(probe)


def _nothing_message(result: NightlyResult, *, tried: bool = False) -> str:
    """``tried``: said after the job ran (inputs were there, none could be read: an extract
    that failed, say), not when nothing was there to try."""
    reasons = [d.text() for d in result.all_rejected][:10]
    for s in result.scopes:
        reasons.extend(s.notes[:3])
    head = "nothing readable: no root had run logs, pack inputs or an existing history"
    if tried:
        head = "nothing readable: no root's run logs, pack inputs or history could be read"
    return head + "".join(f"\n  {r}" for r in reasons)


def _write_log(result: NightlyResult, dayf: _Day, renderer: Renderer) -> None:
    """The run log (markdown + JSON) and the index; they list every output, themselves too."""
    own = [
        OutputFile("index.md", "Index", "index"),
        OutputFile("runlog.md", "Run log", "runlog"),
        OutputFile("runlog.json", "Run log (JSON)", "runlog"),
    ]
    result.outputs = own + list(dayf.outputs)
    log = result.as_dict()
    # Not yet tried: null would say it was written.
    del log["days_index_error"]
    for rel, text in (
        ("runlog.json", renderer.json(log)),
        ("runlog.md", renderer.markdown("runlog", {"log": log})),
        ("index.md", renderer.markdown("index", {"log": log})),
    ):
        history.atomic_write_text(os.path.join(dayf.tmp, rel), text, about=OUT)
