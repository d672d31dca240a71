"""``runscore history check|repair``: diagnose and rewrite a damaged effectiveness history.

The history is append-only, so damage is always one of a few shapes: a torn last line
(a writer killed mid-append), a line another tool wrote into the file, a line that is
not JSON or not UTF-8, or (after a bug or a hand-merge) the same record twice. The
readers already skip such lines with a ``file:line: reason`` diagnostic; ``check``
lists them all, ``repair`` writes a copy without them.

Lines are read by the same reader as ``report`` (``effectiveness_history.load_history``:
``sources.read_jsonl`` plus the version's ``100_history.sql``), so ``check`` calls a line
bad exactly when ``report`` would skip it. ArcheFlow's own 15-field lines are valid
(``archeflow-legacy``) and kept; lines of a scoring version this runscore does not know
are kept too (a newer runscore may have written them).

``repair`` copies the kept lines byte for byte, in order (a streaming copy of the file:
a maintenance command, not a scoring hot path), to a new file; ``in_place`` replaces the
history under its lock after writing a backup, and drops the extract manifest so the
next extract re-reads its inputs (records lost with a torn line are then scored again;
the idempotency keys keep everything else from being written twice).
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "check",
    "repair",
    "CheckResult",
    "RepairResult",
]

import contextlib
import datetime as dt
import filecmp
import os
import re
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from runscore.engine import history, sources
from runscore.engine.errors import Arg, CannotAccess, NothingReadable, UsageError
from runscore.engine.packs import effectiveness, effectiveness_history
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue, listed


@dataclass
class CheckResult:
    path: str
    lines: int  # lines in the file (blank ones included)
    usable: int  # lines report would use
    versions: dict[str, int]  # scoring_version -> usable lines
    #: lines ArcheFlow's own scorer wrote (archeflow-legacy, no events hash: its 15 fields);
    #: not runscore's `extract --sql-version archeflow-legacy` lines, which have one
    legacy: int
    issues: list[LineIssue] = field(default_factory=list)  # lines report skips
    duplicates: list[LineIssue] = field(default_factory=list)  # same record again
    notes: list[str] = field(default_factory=list)
    keep: list[int] = field(default_factory=list)  # line numbers repair keeps, in order
    #: lines longer than RUNSCORE_MAX_LINE_BYTES: the readers skip them unread, so nothing
    #: says they are bad; repair keeps them (a limit set low must not empty a history)
    unread: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.issues and not self.duplicates

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "lines": self.lines,
            "usable": self.usable,
            "versions": self.versions,
            "legacy": self.legacy,
            "issues": [i.as_dict() for i in self.issues],
            "duplicates": [i.as_dict() for i in self.duplicates],
            "notes": self.notes,
        }


@dataclass
class RepairResult:
    check: CheckResult
    source: str
    target: str  # the repaired file (the history itself with in_place)
    kept: int
    dropped: int
    backup: str | None = None
    changed: bool = True
    #: ``backup`` was there already: an earlier repair's, of the history as it is now
    backup_kept: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "kept": self.kept,
            "dropped": self.dropped,
            "backup": self.backup,
            "backup_kept": self.backup_kept,
            "changed": self.changed,
            "issues": [i.as_dict() for i in self.check.issues + self.check.duplicates],
        }


def _require_file(path: str) -> None:
    history.require_path(path, PATH.said("the history"))
    if not os.path.lexists(path):
        raise NothingReadable(f"{quote_path(path)}: no such history file", about=PATH)
    if os.path.isdir(path):
        raise UsageError(
            f"{quote_path(path)}: the history must be a file, not a directory", about=PATH
        )


def check(path: str | os.PathLike[str]) -> CheckResult:
    """Every line the readers would skip, every duplicate record, and counts by version.

    Fields of ``CheckResult``:

    - ``path``: the history checked
    - ``lines``: lines in the file (blank ones included)
    - ``usable``: lines ``report`` would use
    - ``versions``: scoring version -> its usable lines
    - ``legacy``: lines ArcheFlow's own scorer wrote (archeflow-legacy, no events hash)
    - ``issues``: the lines ``report`` skips, each a ``LineIssue`` (file, line, reason)
    - ``duplicates``: the lines that record again a record of an earlier line
    - ``notes``: what is worth saying and harmless (unknown versions, no final newline)
    - ``keep``: the line numbers ``repair`` keeps, in order
    - ``unread``: lines longer than RUNSCORE_MAX_LINE_BYTES, unread and kept
    """
    path = sources.one_path(path, PATH)
    _require_file(path)
    con = effectiveness_history.connect()
    load = effectiveness_history.load_history(con, path, about=PATH)
    issues = list(load.issues)
    # A record written twice: the same idempotency key on two lines with no other events
    # of that run, archetype and version between them in the readers' order (ts, then
    # line). Extract never does that; a hand-merge or a concatenation can. Extract does
    # write a key again when the run's events went back to those of an older record (A,
    # then B, then A again: §4, the events changed): that A is no copy, and check must
    # not call the history damaged for it. ArcheFlow's own lines have no events
    # hash: one of them is written twice when it is equal, field by typed field, to an
    # earlier line (a re-score differs at least in ts). Of a keyed record, the line kept is
    # the one the readers take (§4: the latest ts, then the later line): keeping the first
    # brought back a record a later one had superseded (A, then B, then a copy of the
    # first A: repair kept the first A, and the reports took B), and a repair must not
    # change a report. Equal lines are equal in every field: the first is kept.
    dups = con.execute(
        f"""
        WITH hashed AS (
            SELECT history_file, history_line, run_id, archetype, scoring_version, ts,
                   CASE WHEN events_sha256 = lag(events_sha256) OVER (
                                 PARTITION BY run_id, archetype, scoring_version
                                 ORDER BY ts, history_line)
                        THEN 0 ELSE 1 END AS starts
            FROM history WHERE events_sha256 IS NOT NULL
        ), islands AS (
            SELECT *, sum(starts) OVER (
                          PARTITION BY run_id, archetype, scoring_version
                          ORDER BY ts, history_line ROWS UNBOUNDED PRECEDING) AS island
            FROM hashed
        )
        SELECT history_file, history_line, first_line, keyed FROM (
            SELECT history_file, history_line, true AS keyed,
                   last_value(history_line) OVER (
                       PARTITION BY run_id, archetype, scoring_version, island
                       ORDER BY ts, history_line
                       ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS first_line
            FROM islands
            UNION ALL
            SELECT history_file, history_line, false AS keyed,
                   min(history_line) OVER (PARTITION BY {_ALL_FIELDS}) AS first_line
            FROM history WHERE events_sha256 IS NULL)
        WHERE history_line <> first_line ORDER BY history_line
        """
    ).fetchall()
    duplicates = [
        LineIssue(
            str(f),
            int(line),
            f"duplicate record: same run, archetype, version and events as line {int(first)}"
            if keyed
            else f"duplicate record: equal in every field to line {int(first)}",
        )
        for f, line, first, keyed in dups
    ]
    dup_lines = {d.line for d in duplicates}
    keep = [
        int(r[0])
        for r in con.execute("SELECT history_line FROM history ORDER BY history_line").fetchall()
        if int(r[0]) not in dup_lines
    ]
    result = CheckResult(
        path=path,
        lines=_count_lines(path),
        usable=load.lines,
        versions=dict(load.versions),
        legacy=int(
            con.execute(
                "SELECT count(*) FROM history WHERE scoring_version = ? AND events_sha256 IS NULL",
                [effectiveness_history.LEGACY],
            ).fetchall()[0][0]
        ),
        issues=issues,
        duplicates=duplicates,
        keep=keep,
    )
    result.unread = sorted({i.line for i in result.issues if i.reason.startswith(_TOO_LONG)})
    result.keep = sorted(set(result.keep) | set(result.unread))
    _torn_tail(path, result)
    for s, n in load.unknown_versions().items():
        result.notes.append(
            f"{n} line(s) of scoring version {quote(s)}, unknown to this runscore: kept, not reported"
        )
    if result.legacy:
        result.notes.append(
            f"{result.legacy} line(s) written by ArcheFlow's own scorer (archeflow-legacy)"
        )
    return result


#: The history's typed §4 columns (names of ours, never input), for a PARTITION BY.
_ALL_FIELDS = ", ".join(effectiveness_history.HISTORY_FIELDS)

#: How the readers name a line over RUNSCORE_MAX_LINE_BYTES (sources.read_jsonl).
_TOO_LONG = "line longer than "


def _torn_tail(path: str, result: CheckResult) -> None:
    """A last line without a newline, when it is good: a note (harmless). A bad one the
    readers name (``sources.name_torn``): a torn append only when its text is not JSON (a
    write cut short); one of complete JSON that is no valid record (a field missing, a
    line another tool wrote) has the reason such a line gets anywhere in the file, as
    ``report`` says it, and a line too long to read stays unread. ``repair`` treats it as
    it would any line with that reason: its newline alone decides nothing."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
    except OSError:
        return
    if any(i.line == result.lines for i in result.issues):
        return
    result.notes.append(
        "the last line has no newline at the end (harmless: the next append ends it)"
    )


def _count_lines(path: str) -> int:
    n = 0
    last = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (1 if last not in (b"", b"\n") else 0)


def _copy_lines(src: str, dst: str, keep: list[int]) -> int:
    """Write the lines numbered ``keep`` (sorted) of ``src`` to ``dst``; fsync."""
    wanted = set(keep)
    written = 0
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        for n, raw in enumerate(_read_lines(fin, src), start=1):
            if n in wanted:
                fout.write(raw if raw.endswith(b"\n") else raw + b"\n")
                written += 1
        fout.flush()
        if stat.S_ISREG(os.fstat(fout.fileno()).st_mode):  # a FIFO's fsync is EINVAL
            os.fsync(fout.fileno())
    return written


def _read_lines(f: BinaryIO, path: str) -> Iterator[bytes]:
    """``f``'s lines; a read error that names no file said of ``path``."""
    with history.said_of(path):
        yield from f


def default_target(path: str) -> str:
    """``effectiveness.jsonl`` → ``effectiveness.repaired.jsonl`` beside it."""
    stem, ext = os.path.splitext(path)
    return f"{stem}.repaired{ext or '.jsonl'}"


def repair(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    in_place: bool = False,
    force: bool = False,
    lock_timeout: float | None = 300.0,
) -> RepairResult:
    """Rewrite the history without the lines ``check`` flags.

    Default: to a new file (``default_target``), never over an existing one unless
    ``force``. ``in_place``: under the history lock, copy the history to a backup
    (``<history>.bak-<UTC time>``; an earlier repair's that holds the same bytes is kept
    instead, ``_same_backup``), write the repaired lines beside it and rename over the
    history; an already clean history is left untouched. What a killed repair left
    beside the history is removed when the lock is taken (``history.remove_left_temps``).

    Raises ``NothingReadable``, writing nothing, when the history has lines and repair
    would keep none of them (each not JSON, torn, ...), unless ``force``: as the reports
    take such a history for nothing read, an empty copy (or an emptied history) is not
    a repair anyone asked for without saying so.
    """
    path = sources.one_path(path, PATH)
    out = None if out is None else sources.one_path(out, OUT)
    in_place = sources.flag_arg(in_place, Arg("in_place", "--in-place"))
    force = sources.flag_arg(force, Arg("force", "--force"))
    lock_timeout = history.lock_timeout(lock_timeout)
    if out is not None:
        history.require_path(out, OUT)  # "" was taken for no --out: the default target
    # The arguments' clash first: it holds whatever the history is (or is not).
    if in_place and out is not None:
        raise UsageError("give either ", OUT, " or ", IN_PLACE, ", not both")
    _require_file(path)
    if os.path.islink(path) and in_place:
        raise UsageError(
            f"{quote_path(path)}: refusing to rewrite a history through a symlink", about=PATH
        )
    if not in_place:
        target = out or default_target(path)
        if os.path.realpath(target) == os.path.realpath(path):
            raise UsageError(f"{quote_path(target)}: that is the history itself; use ", IN_PLACE)
        effectiveness.refuse_kept_beside(target, path, OUT)
        # A folder first: --force cannot replace one, so "add --force" would mislead.
        if os.path.isdir(target):
            raise UsageError(f"{quote_path(target)}: is a directory; give a file as ", OUT)
        # A stream (/dev/stdout, a FIFO) holds no file that --force would overwrite.
        stream = history.is_stream(target)
        if os.path.islink(target) and not stream:
            raise UsageError(
                f"{quote_path(target)}: refusing to write through a symlink", about=OUT
            )
        if os.path.lexists(target) and not force and not stream:
            raise UsageError(
                f"{quote_path(target)}: exists; choose another ", OUT, " or add ", FORCE
            )
        res = check(path)
        _refuse_keeping_nothing(res, in_place=False, force=force)
        kept = 0

        def write(p: str) -> None:
            nonlocal kept
            kept = _copy_lines(path, p, res.keep)

        # No lock here: a repair to the same --out that still runs is told by its PID.
        history.write_output(target, write, about=OUT)
        return RepairResult(res, path, target, kept, _dropped(res))

    # Before the lock file is made beside it; ``check`` says it again under the lock.
    _refuse_linked(path)
    history.check_readable(path, PATH)
    if not os.path.lexists(history.lock_file(path)):
        # A refusal writes nothing, so it must not leave a lock file it made either (one
        # removed again could be another process's, waiting on it). Read twice only where
        # no lock file is yet: the read under the lock still decides.
        _refuse_keeping_nothing(check(path), in_place=True, force=force)
    with history.locked(path, timeout=lock_timeout, about=PATH):
        _refuse_linked(path)  # a name made since the check above
        res = check(path)
        _refuse_keeping_nothing(res, in_place=True, force=force)
        if _dropped(res) == 0 and not _needs_newline(path):
            return RepairResult(res, path, path, len(res.keep), 0, changed=False)
        backup = _same_backup(path)
        kept_backup = backup is not None
        if backup is None:
            backup = _backup_name(path)
            _copy_to_backup(path, backup)
        # Its history_size no longer describes this file: the next extract re-reads all.
        # Dropped first: a repair killed between the two leaves a re-read, never a manifest
        # trusted over the repaired history.
        _unlink(effectiveness.manifest_path(path))
        tmp = _tmp_beside(path)
        try:
            with history.said_of(path, tmp):
                kept = _copy_lines(path, tmp, res.keep)
                _same_owner_and_mode(path, tmp)
                os.replace(tmp, path)
        finally:
            _unlink(tmp)
        return RepairResult(
            res, path, path, kept, _dropped(res), backup=backup, backup_kept=kept_backup
        )


def _refuse_linked(path: str) -> None:
    """Refuse to repair in place a history with another name (a hard link): the repaired
    copy is renamed over this name only, and the other kept the old file, its bad lines
    and all (two histories from then on); and its lock is taken by name, as the
    appenders', which refuse such a history too (``history._refuse_linked``)."""
    history.refuse_linked(
        path,
        IN_PLACE,
        " replaces the file at this name only, so its other names would keep the old file: "
        "repair it to a new file (",
        OUT,
        "), or copy it to a new file and move that over this one",
        about=PATH,
    )


def _copy_to_backup(path: str, backup: str) -> None:
    """Copy the history to ``backup``, whole or not at all: through a temporary file
    (``history.temp_name``) renamed into place, so that a repair killed in the copy leaves
    no half backup under a backup's name (one a user could restore, losing the rest) but a
    temporary file, which the next holder of the lock removes."""
    tmp = history.temp_name(backup)
    try:
        shutil.copy2(path, tmp)
        _fsync(tmp)
        os.replace(tmp, backup)
    except OSError as e:
        # A full disk: half a backup is none (and shutil names the history, or no file)
        _unlink(tmp)
        why = e.strerror or str(e)
        raise CannotAccess(
            f"{quote_path(path)}: cannot copy it to its backup {backup}: {why}", about=PATH
        ) from e
    except BaseException:
        _unlink(tmp)
        raise


def _same_backup(path: str) -> str | None:
    """The newest backup (``_backup_name``) that holds the history's bytes as they are,
    if any: a repair that was killed after its backup, run again, keeps that one instead
    of making one more for each try. Backups of other contents are never touched."""
    folder, base = os.path.split(os.path.abspath(path))
    pattern = re.compile(re.escape(base) + _BACKUP_SUFFIX)
    try:
        size = os.stat(path).st_size
        names = os.listdir(folder)
    except OSError:
        return None
    found: list[tuple[float, str]] = []
    for name in names:
        if not pattern.fullmatch(name):
            continue
        cand = os.path.join(folder, name)
        try:
            st = os.lstat(cand)
            if stat.S_ISREG(st.st_mode) and st.st_size == size:
                found.append((st.st_mtime, cand))
        except OSError:
            continue
    for _, cand in sorted(found, reverse=True):
        try:
            if filecmp.cmp(cand, path, shallow=False):
                return os.path.join(os.path.dirname(path), os.path.basename(cand))
        except OSError:
            continue
    return None


def _same_owner_and_mode(path: str, tmp: str) -> None:
    """Give the repaired copy the history's permission bits (and group and owner, as far
    as this user may): renamed over it, a new file had the umask's 0644, so a private
    history (0600) became readable by every user, and a group's (0660) could no longer
    be appended to by the other members."""
    st = os.stat(path)
    try:
        os.chown(tmp, st.st_uid, st.st_gid)
    except OSError:  # only root gives a file away; a member of its group keeps the group
        with contextlib.suppress(OSError):
            os.chown(tmp, -1, st.st_gid)
    os.chmod(tmp, stat.S_IMODE(st.st_mode))


#: The arguments of ``repair`` its messages name: as a Python call and the command spell them.
PATH = Arg("path", "PATH")
OUT = Arg("out", "--out")
IN_PLACE = Arg("in_place", "--in-place", "in_place=True")
FORCE = Arg("force", "--force", "force=True")


def _refuse_keeping_nothing(res: CheckResult, *, in_place: bool, force: bool) -> None:
    """Nothing readable (exit 3, each line listed) when the history has lines and not one
    would be kept. A history of no line (empty, blank lines only) is not refused: it is
    read by the reports too, and has no rows."""
    if force or res.keep or not res.issues:
        return
    what = (
        (
            "repaired, it would hold none, so it is left as it is (",
            FORCE,
            " empties it, keeping a backup)",
        )
        if in_place
        else ("a repaired copy would hold none, so none is written (", FORCE, " writes it empty)")
    )
    raise NothingReadable(
        (
            f"no line of the history {quote_path(res.path)} could be read: ",
            *what,
            ":\n" + listed(res.issues),
        ),
        [(i.file, i.line, i.reason) for i in res.issues],
        about=PATH,
    )


def _dropped(res: CheckResult) -> int:
    unread = set(res.unread)
    return len({i.line for i in res.issues if i.line > 0 and i.line not in unread}) + len(
        res.duplicates
    )


def _needs_newline(path: str) -> bool:
    size = os.path.getsize(path)
    if size == 0:
        return False
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) != b"\n"


#: What ``_backup_name`` adds to the history's name.
_BACKUP_SUFFIX = r"\.bak-\d{8}T\d{6}Z(?:-\d+)?"


def _backup_name(path: str) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path}.bak-{stamp}"
    cand, n = base, 1
    while os.path.lexists(cand):
        n += 1
        cand = f"{base}-{n}"
    return cand


def _tmp_beside(target: str) -> str:
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    return history.temp_name(target)


def _fsync(path: str) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
