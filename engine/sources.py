"""Input discovery and the JSONL reader every pack uses.

Design: one DuckDB ``read_json`` pass over all files (the fast path) and a
careful path only for files that need it.

* A streaming pre-scan (C-speed ``bytes`` operations and one regular expression on
  8 MiB chunks, never a per-line loop) computes each file's size, SHA-256, number of
  lines and whether it is plain UTF-8 without what DuckDB's JSON parser accepts but
  JSON (and the spec) does not: a non-finite number (``NaN``, ``Infinity``, ``inf`` in
  any case) or a comma before a closing bracket.
* Clean files are read together into a table: a large file by ``read_json``, a
  batch of small files (run files) from the bytes Python reads, split into lines
  by DuckDB (its own file readers cost ~110 µs a file). Rows keep insertion
  order, so a row's line number is its position in its file: exact whenever the
  file's record count equals its line count. A file whose counts differ (blank
  lines, malformed lines), or which has a row that is not a JSON object, goes to
  the careful path. ``extract`` pre-scans batch by batch beside DuckDB's reading.
* The careful path reads a dirty file's lines into DuckDB in groups of whole
  lines (Python cuts them, and checks UTF-8 only in a piece that is not), where
  every line is numbered and checked (size, DuckDB's JSON parser, an object,
  the pre-scan's pattern). Only the lines DuckDB cannot vouch for are checked in
  Python (strict JSON: the reason ``file:line: reason`` reports); the good lines
  are projected as a batch's are, with their original line numbers. (Readers
  that declare a column of another type than JSON check every line in Python
  and read a spool file of the good ones with ``read_json``.)

Field-level validation (e.g. "lacks a run_id") is the pack's business, in SQL:
the reader only guarantees one row per JSON-object line, with ``_file``,
``_line`` and a global ``_ord`` that follows the deterministic input order.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "Discovered",
    "LineIssue",
    "discover",
]

import atexit
import codecs
import contextlib
import datetime as dt
import functools
import glob as globmod
import hashlib
import itertools
import json
import os
import re
import shutil
import stat
import struct
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol, TypeAlias, TypeVar

from runscore.engine import db, duck, quoting, spools
from runscore.engine.duck import duckdb
from runscore.engine.errors import Arg, SqlPackError, UsageError
from runscore.engine.filedigest import PiecewiseSha256

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported where a read is large enough to need it (``LIST_BIND_*``): an
# incremental extract of a few new run files needs none of it, and importing it was
# ~0.03 s of that extract's ~0.7 s.

CHUNK = 8 << 20
#: Lines longer than this are reported and skipped (keeps memory bounded).
DEFAULT_MAX_LINE_BYTES = 64 << 20
#: Environment override of the line limit (bytes), read at each call.
MAX_LINE_ENV = "RUNSCORE_MAX_LINE_BYTES"


def max_line_limit() -> int:
    """The line limit: ``$RUNSCORE_MAX_LINE_BYTES`` (bytes, a positive whole number) when
    set, else the default. Anything else is a usage error: ``64MB`` read as "unset" would
    silently keep the default."""
    limit = db.env_count(MAX_LINE_ENV, "bytes")
    return DEFAULT_MAX_LINE_BYTES if limit is None else limit


@dataclass(frozen=True)
class LineIssue:
    file: str
    line: int
    reason: str

    def location(self) -> str:
        # A path that holds a control or blank-looking character is quoted (quoting.path);
        # any other is written as it is, for the tools that parse `file:line:`.
        file = quoting.path(self.file)
        return f"{file}:{self.line}" if self.line > 0 else file

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "reason": self.reason}


class Problem(Protocol):
    """A problem an error lists: a ``LineIssue``, or a pack's own diagnostic (the
    pipeline's) that says its location as one does."""

    @property
    def reason(self) -> str: ...

    def location(self) -> str: ...


#: How many problems an error's text lists (``listed``), then ``… and N more``: the text
#: is read by a person (56 lines of one bad file said nothing 20 did not), and a caller
#: that wants them all takes ``NothingReadable.problems``, which holds every one.
LISTED = 20


def listed(issues: Sequence[Problem]) -> str:
    """``issues`` as every ``NothingReadable`` lists them, one ``  file:line: reason`` line
    each, the first ``LISTED``, then how many more. A line break a reason
    quotes from the input is written ``\\n``: it cannot start a line that reads as another
    rejected line."""
    lines = [f"  {i.location()}: {i.reason}".replace("\n", "\\n") for i in issues[:LISTED]]
    if len(issues) > LISTED:
        lines.append(f"  … and {len(issues) - LISTED} more")
    return "\n".join(lines)


@dataclass
class SourceFile:
    """One input file. ``display`` is what diagnostics print; ``path`` is read."""

    path: str
    display: str
    size: int = 0
    mtime_ns: int = 0
    #: The inode's change time: unlike mtime, no tool can set it back (``touch -d``,
    #: ``cp -p`` and restores set mtime), so a same-size rewrite given its old mtime
    #: still shows.
    ctime_ns: int = 0
    sha256: str = ""
    lines: int = 0  # '\n'-separated segments, a final empty segment not counted
    #: The last line has no newline at the end: a bad last line is then a torn write
    #: (``name_torn``).
    open_end: bool = False
    #: Of those, blank lines (spaces, tabs, CRs) after the last line with content: no
    #: reader gives a row for them, and they leave every other row on its line.
    trailing_blank: int = 0
    clean: bool = True  # pre-scan found nothing that needs the careful path
    error: str | None = None  # unreadable: the whole file is skipped
    #: Longest line that spans a read chunk (exact from CHUNK bytes up; shorter lines
    #: lie inside one chunk), or any line when one inside a chunk could be over the line
    #: limit (a limit set below CHUNK). read_json does not enforce maximum_object_size
    #: on newline-delimited input, so a file with a line over the limit takes the
    #: careful path, which reports and skips that line.
    long_line: int = 0
    #: ``os.path.realpath(path)`` when discovery resolved it (the file's identity for
    #: de-duplication and the manifest), else "".
    realpath: str = ""
    #: Standard input, spooled to ``path`` (``discover``). Told by this, not by
    #: ``display``: a file named ``<stdin>`` was taken for the spool and deleted.
    stdin: bool = False
    #: The file's bytes and status as read once for both DuckDB and the pre-scan
    #: (``_preread``), and whether they hold what is not JSON, and a line that could give
    #: a key twice (``KeyDetector``), when the batch was searched at once already
    #: (``_presearch``; None: not yet, or not for keys). The pre-scan takes them (and
    #: drops them) instead of reading.
    preread: tuple[bytes, os.stat_result, bool | None, bool | None] | None = field(
        default=None, repr=False, compare=False
    )
    #: The pre-scan's ``KeyDetector`` searched every line and none can give a key of its
    #: keys twice: ``read_jsonl``'s exact ``unique_keys`` check, a query per file (13x a
    #: 10k extract when run on every file), passes the file by.
    no_key_twice: bool = False
    #: Called once by the chunk loop of ``prescan`` as soon as the file is found not clean
    #: (``clean`` already False), before the rest of it is scanned (``_read_while_scanning``
    #: stops the read of a batch no longer wanted there, not at the scan's end).
    on_dirty: Callable[[], object] | None = field(default=None, repr=False, compare=False)


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


#: Input paths as the API takes them: one path, or a sequence of them (str or
#: ``os.PathLike``: a ``pathlib.Path``).
Paths: TypeAlias = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
#: A value a check gives back as it was given (``callable_arg``, ``connection_arg``).
T = TypeVar("T")


def path_list(paths: Paths) -> list[str]:
    """``paths`` as a list of paths: one path given alone (a str is a sequence too, and
    each of its characters was taken for a path: "/" had the whole disk read) is one."""
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def type_name(value: object) -> str:
    """How a message names the type of a value given where another was wanted."""
    return "None" if value is None else type(value).__name__


def one_path(path: object, what: str | Arg, kind: str = "file") -> str:
    """``path`` (a str or ``os.PathLike``) as its text. None (``os.environ.get`` of an unset
    variable), a number or bytes is a ``UsageError`` naming the argument ``what``, raised
    before anything is read or written: ``os.fspath``'s TypeError, from deep inside, named
    none (``expected str, bytes or os.PathLike object, not NoneType``)."""
    if isinstance(path, str | os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    name = Arg(what, what) if isinstance(what, str) else what
    raise UsageError(name, f": give a {kind} (a str or pathlib.Path), not {type_name(path)}")


def text_arg(value: object, what: Arg, kind: str) -> str:
    """``value`` if it is text, else a ``UsageError`` naming ``what``: a number reached a
    regular expression or DuckDB's parser (``expected string or bytes-like object``)."""
    if isinstance(value, str):
        return value
    raise UsageError(what, f": give {kind}, not {type_name(value)}")


def flag_arg(value: object, what: str | Arg) -> bool:
    """``value`` if it is a ``bool``, else a ``UsageError`` naming ``what``: any value was
    taken by its truth, so ``force="no"`` replaced a file and ``write=0.0`` wrote nothing,
    without a word."""
    if isinstance(value, bool):
        return value
    name = Arg(what, what) if isinstance(what, str) else what
    raise UsageError(name, f": give True or False, not {type_name(value)}")


def time_arg(value: object, what: Arg) -> dt.datetime | None:
    """``value`` (a fixed clock a call gives: ``scored_at=``, ``now=``) as a timezone-aware
    UTC ``datetime``, None as None (the clock's). A naive ``datetime`` is UTC, as every
    time the engine reads is (``as_of``, ``eval_date``, a ``run.complete`` ts); a ``date``
    its 00:00 UTC; text ISO-8601, read as ``--as-of`` reads it. Anything else, or a time
    outside the years 1 to 9999 in UTC, is a ``UsageError`` naming ``what``: it was
    written to the history as whatever it formatted to (``garbage``, ``5``,
    ``2026-01-01 12:00:00``), or a naive one was taken for the machine's local time."""
    if value is None:
        return None
    given = value
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise UsageError(what, f": not an ISO date-time: {quoting.quote(given)}") from None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        try:
            return value.astimezone(dt.UTC)
        except OverflowError:
            shown = given if isinstance(given, str) else value.isoformat()
            raise UsageError(
                what, f": outside the years 1 to 9999 in UTC: {quoting.quote(shown)}"
            ) from None
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    raise UsageError(what, f": give a datetime, a date or ISO text, not {type_name(value)}")


def callable_arg(value: T, what: Arg, kind: str) -> T:
    """``value`` if it is None or callable, else a ``UsageError`` naming ``what`` (``kind``:
    how it is called): ``progress=5`` or ``under_lock=5`` was a TypeError once the files
    were read, or once the history's lock file was made."""
    if value is None or callable(value):
        return value
    raise UsageError(what, f": give a function ({kind}) or None, not {type_name(value)}")


def connection_arg(value: T, what: Arg) -> T:
    """``value`` if it is None or a DuckDB connection, else a ``UsageError`` naming
    ``what``: ``con=5`` was an AttributeError from the first statement run on it."""
    if value is None or isinstance(value, duckdb.DuckDBPyConnection):
        return value
    raise UsageError(
        what,
        f": give a DuckDB connection (what duckdb.connect returns) or None, not {type_name(value)}",
    )


def day_arg(value: object, what: Arg) -> dt.date | None:
    """``value`` (a day a call gives for today, ``today=``) as a ``date``, None as None: a
    ``datetime`` its day in UTC (naive: UTC), as ``eval_date=`` takes one. Anything else is
    a ``UsageError`` naming ``what``: ``today=5`` was returned as the date, or an
    AttributeError."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).date() if value.tzinfo else value.date()
    if isinstance(value, dt.date):
        return value
    raise UsageError(what, f": give a date or None, not {type_name(value)}")


def about_arg(value: object) -> Arg | None:
    """``about=`` (the caller's argument that gave a path) if it is None or an ``Arg``, else
    a ``UsageError`` naming it: ``about=5`` was an AttributeError (``'int' object has no
    attribute 'said'``)."""
    if value is None or isinstance(value, Arg):
        return value
    raise UsageError(
        Arg("about", "about"),
        f": give a runscore.engine.errors.Arg or None, not {type_name(value)}",
    )


def utc_text(t: dt.datetime) -> str:
    """``t`` as a history writes a time: UTC, to the second, with a ``Z`` (the year in four
    digits, which strftime's ``%Y`` does not write for the year 999)."""
    return t.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def input_paths(paths: Paths, what: str | Arg, kind: str = "file or folder") -> list[str]:
    """``path_list(paths)``, with an empty path refused (``UsageError``, naming the argument
    ``what``) before anything is read or written: an unset variable
    (``score_runs(os.environ.get("LOGS", ""))``) was read as a missing file among the
    inputs (``: no such file or directory``), or as no input at all (plans, events), as
    the CLI's ``refuse_empty`` says it of the same paths on the command line."""
    name = Arg(what, what) if isinstance(what, str) else what
    try:
        out = path_list(paths)
    except TypeError:
        # None (``os.environ.get("LOGS")`` of an unset variable) or a number was
        # "'NoneType' object is not iterable" from deep inside, naming no argument.
        items = [paths] if paths is None or not isinstance(paths, Iterable) else paths
        bad = next((p for p in items if not isinstance(p, str | os.PathLike)), None)
        raise UsageError(
            name, f": give a {kind} (a str or pathlib.Path) or a list of them, not {type_name(bad)}"
        ) from None
    if "" in out:
        raise UsageError(name, f": an empty path (an unset variable?); give a {kind}")
    return out


#: Why a file whose name is not UTF-8 is not read (``discover``).
NOT_UTF8_NAME = (
    "not read: its name is not valid UTF-8, and DuckDB, which reads it, takes UTF-8 file "
    "names only (rename it)"
)


def utf8_name(path: str) -> bool:
    """Can ``path`` be given to DuckDB? It takes file names as UTF-8 text, and a name whose
    bytes are not UTF-8 (Latin-1 ``caf\xe9.jsonl``) reaches Python with surrogate escapes
    (PEP 383), which cannot be encoded: the statement that met one failed whole."""
    if path.isascii():  # nearly every path: no encode
        return True
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """``path`` as it can be printed and written to JSON: the bytes that are not UTF-8 as
    ``\xe9`` (a lone surrogate cannot be written to a UTF-8 stream)."""
    return path if utf8_name(path) else os.fsencode(path).decode("utf-8", "backslashreplace")


def refuse_an_input(
    path: str,
    inputs: Paths | None,
    what: str,
    reader: str,
    given: Arg,
    option: Arg | str,
    *,
    stdin: bool = True,
) -> None:
    """Refuse ``path`` as where ``option`` writes when it is one of the ``inputs`` (a file
    given, one a folder or glob given holds, or a link to one), the ``what`` ``reader``
    reads from ``given`` (``stdin``: as ``discover``'s): writing there replaced the input
    with the result, or appended records to it, read as broken input from then on."""
    if inputs is None or not os.path.exists(path):
        return
    try:
        paths = path_list(inputs)
    except TypeError:
        return  # not paths: the reader says so
    found, _ = discover([p for p in paths if not (stdin and p == "-")])
    refuse_a_file_read(path, found, what, reader, given, option)


def refuse_a_file_read(
    path: str,
    files: Iterable[SourceFile],
    what: str,
    reader: str,
    given: Arg,
    option: Arg | str,
) -> None:
    """``refuse_an_input`` of the ``files`` a command found (or read) already: ``path`` is
    refused when it is one of them (a standard input's spool never is)."""
    for f in files:
        if f.stdin:
            continue
        with contextlib.suppress(OSError):
            if os.path.samefile(path, f.path):
                raise UsageError(
                    f"{quoting.path(path)}: that is the {what} {quoting.path(f.display)} "
                    f"{reader} reads (",
                    given,
                    "); choose another ",
                    option,
                    about=option if isinstance(option, Arg) else None,  # text: the CLI's own
                )


def files_named(folder: str, patterns: Sequence[str]) -> list[str]:
    """The entries of ``folder`` (not followed, if links) whose paths relative to it match
    one of the glob ``patterns`` (``plugin-report.md``, ``skills/*.md``): where a command
    writes its reports, by name, into a folder given (``--out``), and the names it may
    write there, before it knows which (a pipeline's id is read with its tasks)."""
    if not os.path.isdir(folder):
        return []
    base = globmod.escape(folder)
    return sorted(
        {p for pattern in patterns for p in globmod.glob(os.path.join(base, *pattern.split("/")))}
    )


def refuse_an_input_named(
    folder: str,
    patterns: Sequence[str],
    inputs: Paths | None,
    what: str,
    reader: str,
    given: Arg,
    option: Arg | str,
    *,
    stdin: bool = True,
) -> None:
    """Refuse ``folder`` as where ``option`` writes its reports when one of the ``inputs``
    (as ``refuse_an_input`` finds them) is a file there named as a report is
    (``files_named``): a report renamed over it replaced the input. Before anything is
    read or written; the inputs are looked for only when such a file is there."""
    if inputs is None:
        return
    named = [p for p in files_named(folder, patterns) if not os.path.islink(p)]
    if not named:
        return
    try:
        paths = path_list(inputs)
    except TypeError:
        return  # not paths: the reader says so
    found, _ = discover([p for p in paths if not (stdin and p == "-")])
    for path in named:
        refuse_a_file_read(path, found, what, reader, given, option)


class Discovered(tuple[list[SourceFile], list[LineIssue]]):
    """What ``discover`` returns: the pair ``(files, issues)`` (it unpacks as one), and
    where each stands among the paths as given (``input_order``). Apart, the two lists
    lost it: a path not found was listed before, or after, every file's problem wherever
    it was given."""

    # The lists as made (a caller may change its own), and for each issue how many files
    # came before it (its place among them).
    _parts: tuple[list[SourceFile], list[LineIssue]]
    _at: list[int]
    _order: dict[str, int] | None

    def __new__(
        cls, files: list[SourceFile], issues: list[LineIssue], at: Sequence[int] | None = None
    ) -> Discovered:
        self = super().__new__(cls, (files, issues))
        self._parts = (list(files), list(issues))  # C-speed copies: ~0.3 ms at 100k files
        # ``at`` None: the issues after every file (a pair made elsewhere)
        self._at = [len(files)] * len(issues) if at is None else list(at)
        self._order = None
        return self

    def __getnewargs__(self) -> tuple[list[SourceFile], list[LineIssue], list[int]]:
        # copy and pickle make one through __new__, which takes the parts apart
        return self._parts[0], self._parts[1], self._at

    def input_order(self) -> dict[str, int]:
        """Each name a problem gives as its ``file`` (a file's ``display``, an issue's
        ``file``) and its place in input order: the paths as given, a folder's or glob's
        files in sorted path order, a problem discovery met in its place. A problem read
        from a file, or found in SQL, names its file: sort by (place, line). Of the lists
        as ``discover`` made them, whatever a caller did with them since (a name it added
        has no place: it chooses where that goes)."""
        if self._order is None:
            files, issues = self._parts
            names: list[str] = []
            start = 0
            for at, issue in zip(self._at, issues, strict=True):
                names += [f.display for f in files[start:at]]
                names.append(issue.file)
                start = max(start, at)
            names += [f.display for f in files[start:]]
            first = list(dict.fromkeys(names))  # a name given twice: its first place
            self._order = dict(zip(first, range(len(first)), strict=True))
        return self._order


def order_given(found: tuple[list[SourceFile], list[LineIssue]]) -> dict[str, int]:
    """``found.input_order()``, or for a pair ``discover`` did not make (the nightly job's,
    joined from its roots), its files in their order and then its issues."""
    if isinstance(found, Discovered):
        return found.input_order()
    return Discovered(*found).input_order()


def discover(
    paths: Sequence[str],
    *,
    pattern: str = "*.jsonl",
    stdin: bool = False,
    stdin_spool_dir: str | None = None,
) -> Discovered:
    """Expand files, directories (recursive ``pattern``), globs and, with ``stdin``, ``-``.

    ``stdin``: the paths are command-line inputs that take ``-`` for standard input, and
    only the path ``-`` itself is it. Without it (a history, a ``--judge FILE``, a folder
    found by a walk) ``-`` is the file of that name: ``--history -`` read standard input
    when a file ``-`` existed, and wrote that file.

    Order is deterministic: the paths as given; a directory's or glob's files in
    sorted path order. A path that is missing or unreadable is reported, not fatal.
    The same file named twice is read once. The files and the issues are two lists:
    ``Discovered.input_order`` says where each stands among the other.
    """
    paths = path_list(paths)
    out: list[SourceFile] = []
    issues: list[LineIssue] = []
    at: list[int] = []  # Discovered's: files before each issue (issues only: no per-file cost)
    seen: set[str] = set()

    real_of: dict[str, str] = {}

    def said(found: Iterable[LineIssue]) -> None:
        for issue in found:
            issues.append(issue)
            at.append(len(out))

    def add(p: str, display: str) -> None:
        if not utf8_name(p):
            # Said, not read: the others are read (a name DuckDB cannot take stopped them).
            said([LineIssue(shown(display), 0, NOT_UTF8_NAME)])
            return
        key = real_of.get(p) or os.path.realpath(p)
        if key in seen:
            return
        seen.add(key)
        out.append(SourceFile(path=p, display=display, realpath=key))

    for raw in paths:
        if stdin and raw == "-":
            spool = _spool_stdin(stdin_spool_dir)
            out.append(SourceFile(path=spool, display=STDIN_DISPLAY, stdin=True))
            continue
        if os.path.isdir(raw):
            found, errs = _walk(raw, pattern, real_of)
            said(errs)
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
                    found, errs = _walk(m, pattern, real_of)
                    said(errs)
                    files.extend(found)
            if not files:
                said([LineIssue(shown(raw), 0, "no file matches this pattern")])
            for p in sorted(set(files)):
                add(p, p)
            continue
        said([LineIssue(shown(raw), 0, "no such file or directory")])
    return Discovered(out, issues, at)


def _walk(root: str, pattern: str, real_of: dict[str, str]) -> tuple[list[str], list[LineIssue]]:
    """Files below ``root`` matching ``pattern``, sorted; their real paths go to ``real_of``.

    What ``os.walk(root)`` would list as files (a link to a directory is neither
    followed nor listed), from ``os.scandir`` entries: their type comes with the
    listing, so 10k run files cost no ``lstat`` each.
    """
    import fnmatch

    found: list[str] = []
    issues: list[LineIssue] = []
    # fnmatch.fnmatch on POSIX: the pattern, case-sensitive, as one compiled regex.
    normcase = os.path.normcase
    match = re.compile(fnmatch.translate(normcase(pattern))).match
    pending = [root]
    while pending:
        top = pending.pop()
        try:
            with os.scandir(top) as it:
                entries = list(it)
        except OSError as e:
            issues.append(
                LineIssue(str(e.filename or top), 0, f"cannot read directory: {e.strerror}")
            )
            continue
        # A file that is not a link resolves to its directory's real path plus its name:
        # one realpath per directory instead of one per file. (The loop runs once per
        # file of the tree: ~3 µs a file here, the whole of discovering 100k run files.)
        prefix = ""  # the directory's real path, ending with the separator
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    pending.append(entry.path)
                continue
            name = entry.name
            if not match(normcase(name)):
                continue
            path = entry.path
            found.append(path)
            if entry.is_symlink():
                real_of[path] = os.path.realpath(path)
            else:
                if not prefix:
                    prefix = os.path.join(os.path.realpath(top), "")
                real_of[path] = prefix + name
    found.sort()
    return found, issues


STDIN_DISPLAY = "<stdin>"


def _spool_stdin(spool_dir: str | None) -> str:
    # stdin is read once into a temp file so it takes the same two-path reader as
    # any file; the spool is removed when the process exits (a killed one's, by the next
    # process that spools stdin: ``spools.make``).
    fd, name = spools.make("stdin", spool_dir)
    with os.fdopen(fd, "wb") as f:
        shutil.copyfileobj(sys.stdin.buffer, f, CHUNK)
    atexit.register(_unlink_quietly, name)
    return name


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# --------------------------------------------------------------------------- pre-scan


def prescan(
    sf: SourceFile,
    *,
    digest: bool = True,
    piecewise: bool = False,
    line_limit: int | None = None,
    detector: KeyDetector | None = None,
) -> SourceFile:
    """Hash and classify one file in a streaming pass (no per-line Python loop).

    ``digest=False`` skips the SHA-256 (``sha256`` stays ""): for readers that never
    compare files, such as the history's. ``piecewise=True`` takes a ``PiecewiseSha256``
    instead of the plain SHA-256 (the history cache's, which checks prefixes in parallel).
    ``line_limit``: ``max_line_limit()``, when the caller has it (reading the environment
    for each of 10k run files cost ~0.02 s).
    ``detector``: also search every line for one that could give a key twice
    (``SourceFile.no_key_twice``), in the same pass.
    """
    pre, sf.preread = sf.preread, None
    sf.no_key_twice = False
    if pre is not None and detector is not None and pre[3] is None:
        pre = (pre[0], pre[1], None, None)  # searched without the detector: search again
    try:
        st = pre[1] if pre is not None else os.stat(sf.path)
        if not stat.S_ISREG(st.st_mode):
            sf.error = "not a regular file"
            return sf
        sf.size = st.st_size
        sf.mtime_ns = st.st_mtime_ns
        sf.ctime_ns = st.st_ctime_ns
        h: PiecewiseSha256 | hashlib._Hash = PiecewiseSha256() if piecewise else hashlib.sha256()
        update: Callable[[bytes], None] = h.update if digest else _no_update
        if pre is not None and len(pre[0]) <= CHUNK:
            _prescan_whole(sf, pre[0], pre[2:], update, line_limit, detector)
            if sf.error is None:
                sf.sha256 = h.hexdigest() if digest else ""
            return sf
        newlines = 0
        clean = not pre[2] if pre is not None and pre[2] is not None else True
        search = pre is None or pre[2] is None  # not done for the batch already
        # No line found yet that could give a key twice; once one is, only what is not
        # JSON is searched for, and once a line is not JSON, only such a line (``det``).
        keys_once = detector is not None and (pre is None or not pre[3])
        det = detector if keys_once and search else None
        # What is not JSON is searched for line by line (no match spans a newline): a
        # chunk from its first newline to its last in place, the line cut by a chunk's
        # end once whole (kept here in pieces until its newline comes).
        line_head: list[bytes] = []
        head_len = 0
        head_limit = max_line_limit() if line_limit is None else line_limit
        last = b""
        # UTF-8 is checked in the same pass, from the first chunk that is not ASCII on
        # (the chunks before it leave a decoder in its initial state).
        utf8: codecs.IncrementalDecoder | None = None
        run = 0  # bytes since the last newline
        tail = b""  # the last chunk read
        re2 = _use_re2(st.st_size)
        longest = 0
        cr_split = False  # the first chunk's one line holds objects with CRs between them
        # Unbuffered, and a small file read with a buffer of its size: reading 10k run
        # files with 8 MiB buffers took 0.41 s against 0.10 s (the allocation, not the I/O).
        with contextlib.ExitStack() as stack:
            ahead: Generator[bytes, None, None] | None = None
            chunks: Iterable[bytes]
            if pre is not None:
                chunks = _hashed_pieces(pre[0], update)
            else:
                f = stack.enter_context(open(sf.path, "rb", buffering=0))
                ahead = _read_ahead(f, update) if st.st_size > CHUNK else None
                want = CHUNK if ahead else max(st.st_size + 1, 4096)
                chunks = ahead or iter(functools.partial(_read_hashed, f, update, want), b"")
            try:
                for chunk in chunks:
                    if not tail:  # the file's first chunk
                        sf.error = whole_file_problem(chunk)
                        if sf.error is not None:
                            return sf
                    newlines += chunk.count(b"\n")
                    first = chunk.find(b"\n")
                    if not tail and (first < 0 or first == len(chunk) - 1):
                        cr_split = cr_between_lines(chunk)  # the file's first line, whole or not
                    if first < 0:
                        run += len(chunk)
                    else:
                        longest = max(longest, run + first)
                        last_nl = chunk.rfind(b"\n")
                        run = len(chunk) - last_nl - 1
                        if last_nl - first - 1 > head_limit:  # never under the default limit
                            longest = max(longest, _longest_inside(chunk, first + 1, last_nl))
                    if clean:
                        if utf8 is None and not chunk.isascii():
                            utf8 = codecs.getincrementaldecoder("utf-8")("strict")
                        if utf8 is not None and not _decodes(utf8, chunk):
                            clean = False
                    if search and (clean or det) and first < 0:
                        line_head.append(chunk)
                        head_len += len(chunk)
                        # Over the line limit the file is read the careful way anyway:
                        # no need to hold a line of gigabytes for the search. The line is
                        # not searched for a key twice either: the exact check reads it.
                        if head_len > head_limit:
                            clean, det = False, None
                    elif search and (clean or det):
                        start, end = 0, chunk.rfind(b"\n") + 1
                        if line_head:
                            line_head.append(chunk[: first + 1])
                            whole = b"".join(line_head)
                            clean, det = _search_on(whole, 0, len(whole), re2, clean, det)
                            start = first + 1
                        if (clean or det) and start < end:
                            clean, det = _search_on(chunk, start, end, re2, clean, det)
                        line_head = [chunk[end:]] if end < len(chunk) else []
                        head_len = len(chunk) - end
                    last = chunk[-1:]
                    tail = chunk
                    if not clean and sf.on_dirty is not None:
                        sf.clean = False
                        hook, sf.on_dirty = sf.on_dirty, None
                        hook()
            finally:
                if ahead is not None:
                    ahead.close()  # waits for the read in flight before the file closes
        if cr_split and (newlines == 0 or (newlines == 1 and last == b"\n")):
            sf.error = CR_LINE_ENDS
            return sf
        if search and (clean or det) and line_head:  # the last line, without a newline
            whole = b"".join(line_head)
            clean, det = _search_on(whole, 0, len(whole), re2, clean, det)
        if clean and utf8 is not None:
            clean = _decodes(utf8, b"", final=True)  # no sequence cut off at the end
        sf.sha256 = h.hexdigest() if digest else ""
        sf.open_end = last not in (b"", b"\n")
        sf.lines = newlines + (1 if sf.open_end else 0)
        sf.trailing_blank = _trailing_blank(tail)
        sf.clean = clean
        sf.no_key_twice = keys_once and (det is not None or not search)
        sf.long_line = max(longest, run)
    except OSError as e:
        sf.error = f"cannot read file: {e.strerror or e}"
    return sf


def _prescan_whole(
    sf: SourceFile,
    data: bytes,
    found: tuple[bool | None, bool | None],
    update: Callable[[bytes], None],
    line_limit: int | None = None,
    detector: KeyDetector | None = None,
) -> None:
    """``prescan``'s verdicts for a file read whole already, of at most one chunk: what
    its chunk loop gives for one chunk, without the loop's machinery (10k run files:
    0.13 s of the main thread's time while DuckDB stages them, against ~0.06 s this way).
    ``found``: what ``_presearch`` found, not JSON and a key twice (None: not searched
    yet)."""
    if data:
        sf.error = whole_file_problem(data)
        if sf.error is not None:
            return
        update(data)
    first = data.find(b"\n")
    last_nl = data.rfind(b"\n")
    if (first < 0 or first == len(data) - 1) and cr_between_lines(data):  # one line
        sf.error = CR_LINE_ENDS
        return
    limit = max_line_limit() if line_limit is None else line_limit
    clean = not found[0]
    det = None if found[1] else detector  # None when not searched yet: searched below
    if clean and not data.isascii():
        try:
            data.decode("utf-8")  # strict, whole: as the incremental decoder, final
        except UnicodeDecodeError:
            clean = False
    if (clean or det) and found[0] is None:  # searched here, line by line as in prescan
        re2 = _use_re2(len(data))
        if first < 0:  # one line without its newline, or nothing
            if len(data) > limit:  # read the careful way, and checked exactly
                clean, det = False, None
            elif data:
                clean, det = _search_on(data, 0, len(data), re2, clean, det)
        else:
            end = last_nl + 1
            clean, det = _search_on(data, 0, end, re2, clean, det)
            if (clean or det) and end < len(data):
                clean, det = _search_on(data, end, len(data), re2, clean, det)
    sf.open_end = data[-1:] not in (b"", b"\n")
    sf.lines = data.count(b"\n") + (1 if sf.open_end else 0)
    sf.trailing_blank = _trailing_blank(data)
    sf.clean = clean
    sf.no_key_twice = det is not None
    sf.long_line = len(data) if first < 0 else max(first, len(data) - last_nl - 1)
    # The lines between the first and the last: measured when one of them could be over the
    # limit (read_json would read it), which takes a limit set below the file's size.
    if last_nl - first - 1 > limit:
        sf.long_line = max(sf.long_line, _longest_inside(data, first + 1, last_nl))


def _longest_inside(buf: bytes, start: int, end: int) -> int:
    """The longest line of ``buf[start:end]`` (whole lines, without their newlines). Only
    where one of them could be over the line limit: it splits the bytes into lines."""
    return max(map(len, buf[start:end].split(b"\n")))


def _no_update(chunk: bytes) -> None:
    return None


#: How a compressed file opens (its magic number), by format: such a file read as JSONL
#: would be reported line by line as "not valid UTF-8", which does not say what it is.
_COMPRESSED_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)
_COMPRESSED_FIRST = frozenset(magic[:1] for magic, _ in _COMPRESSED_MAGIC)


def compressed_format(head: bytes) -> str | None:
    """The compression format ``head`` (a file's first bytes) opens with, if any. bzip2's
    magic is ASCII, so it also needs its block size digit and block magic to count."""
    if head[:1] not in _COMPRESSED_FIRST:  # a JSONL file opens with "{" or a blank
        return None
    for magic, name in _COMPRESSED_MAGIC:
        if head.startswith(magic):
            if name == "bzip2" and not (head[3:4].isdigit() and head[4:10] == b"1AY&SY"):
                continue
            return name
    return None


def _compressed_reason(packed: str) -> str:
    return f"{packed}-compressed: runscore reads plain JSONL (decompress it first)"


#: The Unicode encodings other than UTF-8 that a file is told to be in (``foreign_encoding``),
#: UTF-32's first (UTF-32 LE's byte-order mark opens with UTF-16 LE's): each with its
#: byte-order mark, its code unit's size and which byte of a unit holds a character below
#: U+0100 (the others are NUL). A UTF-8 BOM is not here: the readers take it (it is not
#: part of the first line).
_ENCODINGS = (
    ("UTF-32 LE", b"\xff\xfe\x00\x00", 4, 0),
    ("UTF-32 BE", b"\x00\x00\xfe\xff", 4, 3),
    ("UTF-16 LE", b"\xff\xfe", 2, 0),
    ("UTF-16 BE", b"\xfe\xff", 2, 1),
)
#: Bytes looked at to tell UTF-16 or UTF-32 text without a byte-order mark: ASCII text in
#: UTF-16 has a NUL in every other byte (UTF-32: three in four). JSON has no raw NUL, so
#: UTF-8 JSONL never looks so. The bytes the pre-scan holds already (its first chunk's).
_NUL_SAMPLE = 32
#: Python's codec for each of ``_ENCODINGS``, to decode a sample in it.
_CODECS = {name: name.lower().replace(" ", "-") for name, *_ in _ENCODINGS}
#: What no JSON text holds raw (a control character but its blanks, a NUL), so that a
#: sample which decodes to it is not text in that encoding.
_NOT_JSON_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: The first byte (as a number) of a file that may be compressed or in UTF-16 or UTF-32
#: (``whole_file_problem``): JSONL opens with "{" or a blank.
_ODD_FIRST = frozenset(magic[0] for magic, _ in _COMPRESSED_MAGIC) | {0xFF, 0xFE, 0x00}


def _units_of_text(s: bytes, unit: int, at: int) -> bool:
    """Is ``s`` (whole code units of ``unit`` bytes) text of characters below U+0100 in that
    encoding: in each unit, byte ``at`` not NUL and every other byte NUL?"""
    others = b"".join(s[i::unit] for i in range(unit) if i != at)
    return bool(s) and b"\x00" not in s[at::unit] and not others.strip(b"\x00")


def _text_in(s: bytes, name: str) -> bool:
    """Does ``s`` (whole code units) decode in encoding ``name`` to what JSON text may hold?
    A UTF-16 surrogate pair cut at its end is text cut there, not a fault."""
    try:
        text = codecs.getincrementaldecoder(_CODECS[name])("strict").decode(s)
    except UnicodeDecodeError:
        return False
    return _NOT_JSON_TEXT.search(text) is None


def foreign_encoding(head: bytes) -> tuple[str, str] | None:
    """The encoding ``head`` (a file's first bytes) is in, when it is UTF-16 or UTF-32
    (``("UTF-16 LE", "byte-order mark")``; the second says how it shows), else None.

    A byte-order mark counts when what follows it opens as JSONL does, in that encoding (a
    character below U+0100, "{" or a blank), or nothing does: a UTF-8 log whose first line
    is bytes that are no text (``\\xff\\xfe`` then anything) is reported line by line.
    Without a mark, its first two characters must be such (JSONL opens with "{" or a blank,
    then a quote, "}" or a blank: ASCII whatever the text) and the rest of its first bytes
    (``_NUL_SAMPLE``) text in that encoding, a character past U+00FF too: an ASCII key then
    a name in Chinese was reported line by line."""
    for name, mark, unit, at in _ENCODINGS:
        if head.startswith(mark):
            first = head[len(mark) : len(mark) + unit]
            if not first or (len(first) == unit and _units_of_text(first, unit, at)):
                return name, "byte-order mark"
    n = min(len(head), _NUL_SAMPLE)
    for name, _, unit, at in _ENCODINGS:
        s = head[: n - n % unit]
        # The two characters first: UTF-8 fails there (its second byte is not NUL), so a
        # history's every append (``history._refuse_unreadable``) decodes nothing.
        if len(s) < 2 * unit or not _units_of_text(s[: 2 * unit], unit, at):
            continue
        if _units_of_text(s, unit, at):
            nul = "every other byte is" if unit == 2 else "three bytes in four are"
            return name, f"no byte-order mark; {nul} NUL"
        if _text_in(s, name):
            nul = "a NUL byte" if unit == 2 else "three NUL bytes"
            return name, f"no byte-order mark; {nul} beside each ASCII character"
    return None


def encoding_reason(name: str, how: str, what: str = "runscore reads UTF-8 JSONL") -> str:
    """Why a file in ``name`` (``foreign_encoding``'s) is not taken, ``what`` runscore does
    instead, and how to convert it."""
    # iconv takes the byte order from the mark when named without it ("UTF-16"), and needs
    # it named when there is none ("UTF-16LE").
    source = name.split()[0] + ("" if how == "byte-order mark" else name.split()[1])
    return f"encoded as {name} ({how}): {what} (convert it first, e.g. iconv -f {source} -t UTF-8)"


def whole_file_problem(head: bytes) -> str | None:
    """Why a file that opens with ``head`` (its first bytes, up to a chunk) is not read as
    JSONL at all: compressed, or in UTF-16 or UTF-32. Such a file read line by line was
    reported as a "not valid UTF-8" or "not JSON" line for each of its lines, which says
    neither what it is nor what to do."""
    # Run for every file read: one that opens as JSONL does (not one of those first bytes,
    # then not a NUL) costs two indexings, ~0.04 µs more than the magic number test alone
    # (10k run files: under 1 ms).
    if not head or (head[0] not in _ODD_FIRST and (len(head) < 2 or head[1])):
        return None
    packed = compressed_format(head)
    if packed is not None:
        return _compressed_reason(packed)
    encoding = foreign_encoding(head)
    return None if encoding is None else encoding_reason(*encoding)


#: Why a file whose lines end in a CR alone is not read (``cr_between_lines``). JSONL's
#: lines end in LF (a CR before it is a blank): to every reader of it (DuckDB's, ``grep``,
#: ``wc -l``) such a file is one line, and was reported as one line that is not JSON.
CR_LINE_ENDS = (
    "lines end in CR only (old Mac line ends): runscore reads JSONL, whose lines end in "
    "LF (convert it first, e.g. tr '\\r' '\\n')"
)
#: Two objects with a CR between them (blanks and more CRs around it): in JSON a value
#: never follows a closing brace but after a comma, so this is never one object's text.
_CR_BETWEEN_OBJECTS = re.compile(rb"\}[ \t]*\r[ \t\r]*\{")


def cr_between_lines(buf: bytes) -> bool:
    """Does ``buf`` (a file's start) hold, before its first LF, objects with a CR between
    them: lines that end in a CR alone? A CR at the end of the one object is a blank."""
    end = buf.find(b"\n")
    end = len(buf) if end < 0 else end
    return buf.find(b"\r", 0, end) >= 0 and _CR_BETWEEN_OBJECTS.search(buf, 0, end) is not None


def _trailing_blank(tail: bytes) -> int:
    """Blank lines (spaces, tabs, CRs: what the readers skip) after the last line with
    content in ``tail``, a file's last chunk. 0 when the chunk has no content: the blank
    run may go on before it, and a file that is all blank is the careful path's."""
    body = tail.rstrip(b" \t\r\n")
    if not body:
        return 0
    rest = tail[len(body) :]
    n = rest.count(b"\n")
    # The first newline ends the last line with content; a blank last line may lack one.
    return n - 1 + (0 if rest.endswith(b"\n") else 1) if n else 0


# What DuckDB's JSON parser takes though it is not JSON, so that a file holding it must
# go the careful way, where Python's parser refuses that line (and only it):
# - a comma before a closing bracket ("[1,]", '{"a": 1, }');
# - a non-finite number wherever a value may stand: DuckDB takes NaN, Infinity and inf
#   in any case, after a minus sign too (measured: nan, NAN, -NaN, Inf, -inf, infinity),
#   not after a plus sign or a blank, and only as a whole token ("infinit", "nanx" are
#   refused). A line that is such a token alone is no object, which the read itself sends
#   the careful way.
# - a vertical tab or form feed (any): read_json (the large-file reader) takes one that
#   opens or ends a line for a blank, and reads the object between (json_valid, the batch
#   and careful readers' test, refuses the line); JSON has neither as a blank, nor raw
#   inside a string, so the byte alone is never a false alarm.
# Blanks here are those JSON allows inside a line. A false alarm (the same bytes inside
# a string) only costs the careful path, which is slow: so the token must end where a
# value ends (", information" in a finding's text must not send a file of a million
# lines the careful way).
_NOT_JSON = r",[ \t\r]*[}\]]|[:,\[][ \t\r]*-?(?i:nan|inf|infinity)[ \t\r]*[,}\]]|[\x0b\x0c]"
_NOT_JSON_RE = re.compile(_NOT_JSON.encode())
# ``re`` tries a pattern that opens with no literal at every byte: ``_NOT_JSON`` whole
# took 16-32 ms for 100 run files (0.83 MB, an incremental extract's read), ~5% of it.
# Apart, a trailing comma opens with one (","), and a non-finite number is looked for by
# its token ("nan", "inf") in the lowered bytes, each hit matched from its delimiter on:
# 3 ms for the same files (thirtieth pass, best of 7). Both give ``_NOT_JSON``'s verdict.
_TRAILING_COMMA_RE = re.compile(rb",[ \t\r]*[}\]]")
_NON_FINITE_LOWER_RE = re.compile(rb"[:,\[][ \t\r]*-?(?:nan|inf|infinity)[ \t\r]*[,}\]]")
#: Token hits checked one by one before the search falls back to ``_NOT_JSON_RE`` (text
#: full of "information" would make the Python loop slower than the regex): this many, or
#: one per ``_TOKEN_HITS_BYTES`` of the piece if more. A hit costs the loop ~0.3 µs, the
#: regex ~13 ns a byte: one in 64 bytes keeps the loop under half the regex's time. A
#: fixed cap sent a piece of 100 runs (0.86 MB, 371 hits: an incremental's new part of one
#: file) to the regex, 22 ms against 3 (forty-sixth pass).
_TOKEN_HITS_MAX = 256
_TOKEN_HITS_BYTES = 64


def _search_not_json(buf: bytes, start: int, end: int) -> bool:
    """``_NOT_JSON_RE.search(buf, start, end) is not None``, faster in ``re``."""
    if _TRAILING_COMMA_RE.search(buf, start, end) is not None:
        return True
    # memchr, no copy: 100 run files (0.83 MB) ~0.05 ms
    if buf.find(b"\x0b", start, end) >= 0 or buf.find(b"\x0c", start, end) >= 0:
        return True
    low = buf[start:end].lower()  # ASCII only, as (?i) on bytes
    hits = 0
    most = max(_TOKEN_HITS_MAX, (end - start) // _TOKEN_HITS_BYTES)
    for token in (b"nan", b"inf"):
        p = low.find(token)
        while p >= 0:
            hits += 1
            if hits > most:
                return _NOT_JSON_RE.search(buf, start, end) is not None
            # Back from the token: its "-", its blanks, then the delimiter that must open
            # the match (one place only: neither "-" nor a blank is a delimiter).
            q = p - 1 if p and low[p - 1] == 0x2D else p
            while q and low[q - 1] in b" \t\r":
                q -= 1
            if q and low[q - 1] in b":,[" and _NON_FINITE_LOWER_RE.match(low, q - 1):
                return True
            # A token that overlaps an earlier hit ("nanan") follows a letter: no match.
            p = low.find(token, p + 3)
    return False


#: Pieces from this size on are searched in RE2 (pyarrow) when ``_use_re2`` says so:
#: ``re`` takes ~13 ms per MB for this pattern (it has no literal to skip ahead by),
#: RE2 ~1.6 ms per MB plus ~25 µs a call, and RE2 releases the GIL.
_RE2_FROM = 4 << 10
#: Importing pyarrow's compute kernels costs ~0.01 s once pyarrow is in (~0.035 s for
#: ``pyarrow.compute``), what ``re`` takes for ~1-2 MB: worth it for files from this size
#: on, or once something imported them anyway.
_RE2_FILE_FROM = 2 << 20


def _use_re2(file_size: int) -> bool:
    return file_size >= _RE2_FILE_FROM or "pyarrow._compute" in sys.modules


def _not_json(buf: bytes, start: int, end: int, re2: bool) -> bool:
    """Does ``buf[start:end]`` (whole lines) hold what DuckDB takes but JSON is not?"""
    if not re2 or end - start < _RE2_FROM:
        return _search_not_json(buf, start, end)
    # One binary value over the bytes in place: no copy of the piece.
    return _re2_hits(buf, [start, end])[0]


#: A blank JSON allows between a key and its colon.
_KEY_BLANK = r"[ \t\r]*"
#: A ``\u`` escape of a character a key can be spelled with (a-z, _): ``"typ\u0065"`` is
#: ``type`` to every JSON parser, which no search for ``"type"`` finds.
_KEY_ESCAPE = r"\\u00(?:6[1-9a-fA-F]|7[0-9aA]|5[fF])"


@dataclass(frozen=True)
class KeyDetector:
    r"""A search for a line that could give one of ``keys`` twice, cheap enough for the
    pre-scan's one pass (the exact check, ``_DUPLICATE_KEYS``, parses every line again):
    a line where the token ``"K":`` of one key comes twice, at any depth, or a ``\u``
    escape of a letter (``_KEY_ESCAPE``). A false alarm (a finding that repeats the key,
    the escape inside a string) only sends its file to the exact check; a key twice on a
    line is never missed, spelled as it is or escaped.

    ``re2``: ``_NOT_JSON`` or the detector, one RE2 pattern (no backreferences there: a
    branch per key), so that the pre-search stays one pass; a hit is told apart by
    searching for ``_NOT_JSON`` alone. ``alone``: the detector alone in RE2, for what is
    not JSON (the detector's verdict does not depend on it). ``twice``/``escape``: the
    detector in ``re``, for pieces ``re`` searches (one alternation and a
    backreference); ``twice`` reads the lines reversed (``found``)."""

    keys: tuple[str, ...]
    re2: str
    alone: str
    twice: re.Pattern[bytes]
    escape: re.Pattern[bytes]

    def found(self, buf: bytes, start: int, end: int) -> bool:
        """Could a line of ``buf[start:end]`` (whole lines) give a key twice? (``re``)"""
        if self.escape.search(buf, start, end) is not None:
            return True
        # ``re`` pays for each key token it meets the rest of its line (``[^\n]*`` to the
        # newline, then back over it for the key again), and a line gives the envelope's
        # keys first, ``data`` last: on the lines reversed, that rest is the short part
        # before the key. The same lines match either way (a key's token reversed, ``:"K"``
        # read backwards); 100 run files (0.86 MB, an incremental's read) 10 ms against 17.
        return self.twice.search(buf[start:end][::-1]) is not None


@functools.lru_cache(maxsize=8)
def key_detector(keys: tuple[str, ...]) -> KeyDetector:
    """The ``KeyDetector`` of ``keys`` (plain names; the order does not matter)."""
    names = sorted(set(keys), key=lambda k: (-len(k), k))
    branches = [f'"{re.escape(k)}"{_KEY_BLANK}:[^\\n]*"{re.escape(k)}"{_KEY_BLANK}:' for k in names]
    # Each name's bytes reversed (a character of several bytes too), for ``found``.
    rev = b"|".join(re.escape(k.encode()[::-1]) for k in names)
    blank = _KEY_BLANK.encode()
    return KeyDetector(
        keys=tuple(names),
        re2="|".join([_NOT_JSON, *branches, _KEY_ESCAPE]),
        alone="|".join([*branches, _KEY_ESCAPE]),
        twice=re.compile(b":" + blank + b'"(' + rev + b')"[^\\n]*:' + blank + b'"\\1"'),
        escape=re.compile(_KEY_ESCAPE.encode()),
    )


def _search(
    buf: bytes, start: int, end: int, re2: bool, detector: KeyDetector | None
) -> tuple[bool, KeyDetector | None]:
    """``buf[start:end]`` (whole lines) searched as ``_not_json`` does, and by
    ``detector`` too: (no line is not JSON, ``detector`` if no line could give a key twice
    else None). A line that is not JSON does not end the detector's search: a dirty file
    it clears skips the exact check too (a truncated last line is common)."""
    if detector is None:
        return not _not_json(buf, start, end, re2), None
    if not re2 or end - start < _RE2_FROM:
        clean = not _search_not_json(buf, start, end)
        return clean, None if detector.found(buf, start, end) else detector
    if not _re2_hits(buf, [start, end], detector.re2)[0]:
        return True, detector
    if not _re2_hits(buf, [start, end])[0]:
        return True, None
    return False, _search_keys(buf, start, end, re2, detector)


def _search_keys(
    buf: bytes, start: int, end: int, re2: bool, detector: KeyDetector | None
) -> KeyDetector | None:
    """``detector`` if no line of ``buf[start:end]`` (whole lines) could give a key twice,
    else None (and None for None): its search alone, once the file is known not JSON."""
    if detector is None:
        return None
    if not re2 or end - start < _RE2_FROM:
        return None if detector.found(buf, start, end) else detector
    return None if _re2_hits(buf, [start, end], detector.alone)[0] else detector


def _search_on(
    buf: bytes, start: int, end: int, re2: bool, clean: bool, detector: KeyDetector | None
) -> tuple[bool, KeyDetector | None]:
    """``_search`` while the file is clean so far, else the detector's search alone."""
    if clean:
        return _search(buf, start, end, re2, detector)
    return False, _search_keys(buf, start, end, re2, detector)


def _re2_hits(buf: bytes, offsets: Sequence[int] | bytes, pattern: str = _NOT_JSON) -> list[bool]:
    """For each value ``buf[offsets[i]:offsets[i + 1]]``: does ``pattern`` match in it?
    ``offsets`` may come packed already (little-endian int64s, as ``_Batch.joined``)."""
    import pyarrow as pa

    packed = offsets if isinstance(offsets, bytes) else _packed_offsets(offsets)
    values = pa.Array.from_buffers(
        pa.large_binary(), len(packed) // 8 - 1, [None, pa.py_buffer(packed), pa.py_buffer(buf)]
    )
    try:
        # The kernel by its registry name: importing pyarrow.compute wraps every kernel in
        # a Python function with a docstring (pydoc too), ~0.025 s for the one used here.
        from pyarrow._compute import MatchSubstringOptions, call_function
    except ImportError:  # a pyarrow without the module: the public one
        import pyarrow.compute as pc

        hits = pc.match_substring_regex(values, pattern)
    else:
        hits = call_function("match_substring_regex", [values], MatchSubstringOptions(pattern))
    return [bool(h) for h in hits.to_pylist()]


def _packed_offsets(offsets: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(offsets)}q", *offsets)


class _Batch(list[bytes]):
    """A pre-read batch's bytes, file by file, and joined once when asked (``joined``):
    DuckDB's load (Arrow strings, on the worker) and the RE2 search (on the main thread)
    each joined its own copy (10k run files: 86 MB, ~0.035 s a join)."""

    def __init__(self, datas: Iterable[bytes] = ()) -> None:
        super().__init__(datas)
        self._lock = threading.Lock()
        self._joined: tuple[bytes, bytes] | None = None

    def joined(self) -> tuple[bytes, bytes]:
        """The bytes joined, and the packed offsets of each file's start (and the end)."""
        with self._lock:  # the other thread waits for the one join
            if self._joined is None:
                offsets = _packed_offsets([0, *itertools.accumulate(map(len, self))])
                self._joined = (b"".join(self), offsets)
            return self._joined


def _hashed_pieces(data: bytes, update: Callable[[bytes], None]) -> Iterator[bytes]:
    """``data`` (read already) in CHUNK-sized pieces, each passed to ``update`` first."""
    for at in range(0, len(data), CHUNK):
        piece = data if len(data) <= CHUNK else data[at : at + CHUNK]
        update(piece)
        yield piece


def _preread(batch: Sequence[SourceFile]) -> _Batch | None:
    """Read the files of a small-file batch once, for DuckDB and the pre-scan both.

    Each file's bytes and status go to its ``preread`` (the pre-scan takes them there);
    the bytes are returned in order for ``_load_lines_from_python``. None, and nothing
    kept, if any file cannot be read as a regular file: the batch is then read as usual.
    """
    datas = _Batch()
    try:
        for f in batch:
            data, st = _read_whole(f.path)
            f.preread = (data, st, None, None)
            datas.append(data)
    except OSError:
        for f in batch:
            f.preread = None
        return None
    return datas


def _presearch(
    batch: Sequence[SourceFile], read: _Batch | None = None, detector: KeyDetector | None = None
) -> None:
    """Search a pre-read batch for what is not JSON in one RE2 call, a value per file.

    Each verdict goes to the file's ``preread`` for the pre-scan. One call over 10k run
    files took 0.2 s; a call per file 0.3 s, ``re`` per file 1.4 s (its pattern has no
    literal to skip ahead by). RE2 releases the GIL, so DuckDB's staging and this share
    the cores. Nothing is done if a file of the batch was not pre-read, nor for a batch
    too small to pay for importing pyarrow's compute kernels (``_use_re2``): the pre-scan then
    searches each file with ``re`` (100 run files: ~13 ms, the import ~30 ms).
    ``detector``: the same call searches for a line that could give a key twice
    (``KeyDetector.re2``); the files it matches (few) are searched again for what is not
    JSON alone, to tell the two apart, and those not JSON for the detector alone.
    """
    pres = [f.preread for f in batch]
    if not pres or any(p is None for p in pres):
        return
    datas = [p[0] for p in pres if p is not None]
    if not _use_re2(sum(map(len, datas))):
        return
    pattern = _NOT_JSON if detector is None else detector.re2
    if read is not None and len(read) == len(datas):  # the same bytes, joined once
        hits = _re2_hits(*read.joined(), pattern)
    else:
        offsets = [0, *itertools.accumulate(map(len, datas))]
        hits = _re2_hits(b"".join(datas), offsets, pattern)
    for f, p, hit in zip(batch, pres, hits, strict=True):
        if p is None:
            continue
        if detector is None:
            f.preread = (p[0], p[1], hit, None)
        elif not hit:
            f.preread = (p[0], p[1], False, False)
        else:  # a key twice, or what is not JSON: searched apart
            bad = _re2_hits(p[0], [0, len(p[0])])[0]
            keys = not bad or _re2_hits(p[0], [0, len(p[0])], detector.alone)[0]
            f.preread = (p[0], p[1], bad, keys)


def _read_whole(path: str) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes and status, in one unbuffered read (OSError otherwise).

    One ``os.read`` of a byte more than the file's size: when it gives exactly the size,
    that is the whole file, with no file object and no second read for the end (10k run
    files: 0.09 s against 0.11 s with ``FileIO.readall``). Anything else (a file that grew
    or shrank, a short read: Linux gives at most ~2 GiB a call, network file systems may
    give less) is read on to its end."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{quoting.path(path)}: not a regular file")
        data = os.read(fd, st.st_size + 1)
        if len(data) == st.st_size:
            return data, st
        parts = [data]
        while more := os.read(fd, CHUNK):
            parts.append(more)
        return b"".join(parts), st
    finally:
        os.close(fd)


def _read_hashed(f: BinaryIO, update: Callable[[bytes], None], size: int = CHUNK) -> bytes:
    chunk = f.read(size)
    if chunk:
        update(chunk)
    return chunk


def _read_ahead(f: BinaryIO, update: Callable[[bytes], None]) -> Generator[bytes, None, None]:
    """``f`` in CHUNK-sized reads, each already passed to ``update``, read one ahead.

    The next chunk is read and hashed on a worker thread while the caller scans this
    one: file reads and SHA-256 release the GIL, the byte scans do not, so with a free
    core the hash costs no wall time. Only for files of several chunks (a thread per
    small file would cost more than it overlaps).
    """
    from concurrent.futures import ThreadPoolExecutor  # local: only big files

    # Leaving the block (also on close()) waits for the read in flight.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="runscore-prescan") as pool:
        pending = pool.submit(_read_hashed, f, update)
        while chunk := pending.result():
            pending = pool.submit(_read_hashed, f, update)
            yield chunk


def _decodes(dec: codecs.IncrementalDecoder, chunk: bytes, final: bool = False) -> bool:
    try:
        dec.decode(chunk, final)
    except UnicodeDecodeError:
        return False
    return True


# --------------------------------------------------------------------------- reader


#: The default projection: every declared column as read. A pack may pass its own
#: (a versioned SQL file) to extract fields during the one scan instead of keeping
#: whole JSON payloads in memory. Contract: statements creating ``_stage`` from
#: ``raw_input($files, $columns, $max_object_size)`` (the lines of the files, declared
#: columns plus ``_file_index``, the 0-based position of the line's file in ``$files``,
#: in file order) with output columns ``_file_index``, ``_nonobj`` (true when the line
#: gave no object: every declared column null) and the rest, rows in input order.
DEFAULT_PROJECTION = """
CREATE OR REPLACE TEMP TABLE _stage AS
SELECT *, list_count(list_value(*COLUMNS(* EXCLUDE (_file_index)))) = 0 AS _nonobj
FROM raw_input($files, $columns, $max_object_size)
"""

#: ``raw_input`` streaming straight from the files (large files: chunks are big).
#: The file is named by its index, not its path: 4 bytes a row instead of a string.
_RAW_STREAM = """
CREATE OR REPLACE TEMP MACRO raw_input(files, cols, mos) AS TABLE
SELECT *, file_index::INTEGER AS _file_index
FROM read_json(files, format='newline_delimited', columns=cols, ignore_errors=true,
               maximum_object_size=mos)
"""
#: ``raw_input`` over a batch materialised first. Many small files make many tiny
#: chunks, and the projection's per-chunk cost then dominates (measured: 2,000 run
#: files took 9.5 s through the projection against 2.5 s to load them plainly).
_RAW_BATCH_LOAD = """
CREATE OR REPLACE TEMP TABLE _raw_batch AS
SELECT *, file_index::INTEGER AS _file_index
FROM read_json($files, format='newline_delimited', columns=$columns, ignore_errors=true,
               maximum_object_size=$max_object_size)
"""
_RAW_BATCH = (
    "CREATE OR REPLACE TEMP MACRO raw_input(files, cols, mos) AS TABLE SELECT * FROM _raw_batch"
)
#: The lines of a batch, whole (read_ndjson_objects does not parse them into columns).
_RAW_LINES_LOAD = """
CREATE OR REPLACE TEMP TABLE _raw_batch AS
SELECT json AS _json, file_index::INTEGER AS _file_index
FROM read_ndjson_objects($files, ignore_errors=true, maximum_object_size=$max_object_size)
"""


#: ``_RAW_LINES_LOAD``'s rows from the files' bytes, read by Python (``_batch_bytes``),
#: as read_ndjson_objects gives them: a row per line that is not blank, in order. A BOM
#: opening a file is not part of its first line. ``_json`` stays VARCHAR, unchecked: a
#: cast to JSON, or json_valid, would parse every line once more, and raw_input's
#: ``TRY(json_extract(...))`` gives a line that is not JSON no fields (its file is then
#: read the careful way, as 000 counts it as no object).
_LINES_FROM_BYTES = """
CREATE OR REPLACE TEMP TABLE _raw_batch AS
SELECT line AS _json, _file_index
FROM (
    SELECT unnest(string_split(CASE WHEN starts_with(content, chr(65279))
                                    THEN substr(content, 2) ELSE content END,
                               chr(10))) AS line,
           _file_index
    FROM _batch_bytes
)
-- trim only where a line opens with a blank: on every line it cost more than the split
WHERE CASE WHEN ascii(line) IN (32, 9, 13) THEN trim(line, ' ' || chr(9) || chr(13)) <> ''
           ELSE line <> '' END
"""


def _load_lines_from_python(
    con: duckdb.DuckDBPyConnection, paths: list[str], datas: list[bytes] | None = None
) -> bool:
    """Load a batch of small files' lines into ``_raw_batch`` from bytes Python reads.

    DuckDB's file readers cost ~110 µs per file (read_text alone: 1.1 s for 10k run
    files); Python reads them in ~15 µs each, and DuckDB splits the lines from one
    column: Arrow strings, or for a batch of at most ``LIST_BIND_BYTES`` a list bound as
    a parameter. ``datas``: the files' bytes, read already (``_preread``). False (nothing
    loaded) when a file cannot be read or is not UTF-8: the caller then loads the batch
    with read_ndjson_objects, which skips what it cannot take.
    """
    try:
        if datas is None:
            datas = [_read_whole(p)[0] for p in paths]
    except OSError:
        return False
    if sum(map(len, datas)) <= LIST_BIND_BYTES:
        try:
            # Python's strict UTF-8 decoder refuses what Arrow's validation does
            # (surrogates, overlong forms, past U+10FFFF).
            texts = [d.decode("utf-8") for d in datas]
        except UnicodeDecodeError:
            return False
        del datas
        load_table(
            con,
            "_batch_bytes",
            {"content": ("VARCHAR", texts), "_file_index": ("INTEGER", range(len(texts)))},
        )
        try:
            con.execute(_LINES_FROM_BYTES)
        finally:
            con.execute("DROP TABLE IF EXISTS _batch_bytes")
        return True
    import pyarrow as pa

    try:
        content = _utf8_strings(datas)
    except pa.ArrowInvalid:
        return False
    del datas
    index = pa.array(range(len(paths)), pa.int32())
    # One record batch per DuckDB thread (zero-copy slices, cut between files): DuckDB
    # scans an Arrow table by its batches, so one batch split the lines on one thread
    # (10k run files: the split 0.075 s alone against 0.038 s in two, and the extract
    # ~0.25 s faster, its projection too). A row's line is its offset from its file's
    # first row (``take``), so a file's lines must stay together and in order: they are
    # one value of one batch, and the table keeps insertion order.
    step = max(1, -(-len(paths) // max(1, db.threads(con))))
    duck.register(
        con,
        "_batch_bytes",
        pa.Table.from_batches(
            [
                pa.record_batch(
                    [content.slice(at, step), index.slice(at, step)],
                    names=["content", "_file_index"],
                )
                for at in range(0, len(paths), step)
            ]
        ),
    )
    try:
        con.execute(_LINES_FROM_BYTES)
    finally:
        con.unregister("_batch_bytes")
    return True


def _utf8_strings(values: Sequence[bytes]) -> pa.Array:
    """``values`` as one Arrow string column, joined once (no copy per value); checked to
    be UTF-8 (``pa.ArrowInvalid`` otherwise): DuckDB takes Arrow strings as they are."""
    import pyarrow as pa

    if isinstance(values, _Batch):
        buf, offsets = values.joined()
    else:
        offsets = _packed_offsets([0, *itertools.accumulate(map(len, values))])
        buf = b"".join(values)
    out = pa.Array.from_buffers(
        pa.large_string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(buf)]
    )
    out.validate(full=True)
    return out


def _raw_batch_load(columns: Mapping[str, str]) -> tuple[str, str]:
    """How a batch of small files is loaded: the load statement and ``raw_input``'s macro.

    When every declared column is ``JSON``, the lines are loaded whole and ``raw_input``
    takes the columns from each by one ``json_extract`` as the projection reads them:
    on 10k run files, load and projection took 3.0 s this way against 4.1–4.5 s with
    ``read_json`` and declared columns materialised (its per-file cost), for the same
    values — but that JSON ``null`` comes out as the text ``null``, made SQL NULL here as
    ``read_json`` gives it. Other declared types keep ``read_json``, whose casts this
    would not reproduce.
    """
    names = list(columns)
    if not names or any(
        str(t).upper() != "JSON" or not n.isidentifier() for n, t in columns.items()
    ):
        return _RAW_BATCH_LOAD, _RAW_BATCH
    # json_extract takes only a constant path list, and a macro body binds no
    # parameters: the paths are written in, built from names checked to be identifiers.
    # TRY: the batch loader leaves each line unchecked (``_LINES_FROM_BYTES``); one that is
    # not JSON gives NULL here, no fields, where json_extract fails the statement. The
    # parse json_valid made of every line for that (10k run files: ~0.06 CPU-s) is saved.
    paths = ", ".join(f"'$.\"{n}\"'" for n in names)
    fields = ", ".join(
        f"CASE WHEN e[{i}]::VARCHAR <> 'null' THEN e[{i}] END AS \"{n}\""
        for i, n in enumerate(names, start=1)
    )
    macro = (
        "CREATE OR REPLACE TEMP MACRO raw_input(files, cols, mos) AS TABLE\n"
        f"SELECT {fields}, _file_index FROM (\n"
        f"  SELECT TRY(json_extract(_json, [{paths}])) AS e, _file_index FROM _raw_batch)"
    )
    return _RAW_LINES_LOAD, macro


#: A batch of small files of at most this many bytes goes to DuckDB as a list of strings
#: bound as a parameter, a larger one as Arrow strings; a table of Python values of at
#: most this many rows likewise (``load_table``). A list is copied value by value —
#: 100 run files (1 MB) 5 ms, 1,000 (10 MB) 30 ms, 10k (100 MB) 0.6 s — where Arrow takes
#: the bytes as they are, but importing pyarrow costs ~0.03 s once.
LIST_BIND_BYTES = 4 << 20
LIST_BIND_ROWS = 20_000

#: read_json's ``maximum_object_size`` for a read made before the pre-scan has measured
#: the file's lines. DuckDB's reader cuts a file into buffers of twice this size, one
#: per task, so it also decides how a file is shared between threads. With the line
#: limit's 64 MiB (buffers of 128 MiB), one file of 10k runs (86 MB) was one buffer,
#: read by one thread: the read took 1.44 s (median of 5, in-process) against 1.09 s
#: with this size, and 1.24 s with DuckDB's default of 16 MiB. At 100k runs (860 MB),
#: 8.3 s with this size, 8.6 s with 64 MiB, and 10.1 s with 16 MiB (benchmarks/RESULTS.md,
#: "Sixteenth pass"). A line longer than a buffer fails the read: see ``object_size``
#: in ``read_jsonl``.
READ_OBJECT_BYTES = 32 << 20
#: maximum_object_size for a read of the null device (a table's empty shape): what it is
#: cannot matter, but its buffers count against the memory limit. At the line limit
#: (buffers of 128 MiB) `sql` without a history ran out of memory under
#: RUNSCORE_MEMORY_LIMIT=100MB; DuckDB's reader takes 32 MiB at the least.
EMPTY_READ_OBJECT_BYTES = 1 << 20

#: Files smaller than this on average are read in materialised batches.
SMALL_FILE_BYTES = 1 << 20
#: A materialised batch ends at this many input bytes or this many files, whichever
#: comes first (bounds the memory the raw JSON takes at once). Fewer, larger batches
#: are faster, as each batch ends with one core idle while the other reads its last
#: files: against 2,000-file batches, extract over run files went from 6.4× to 5.3–5.6×
#: the scan at 10k runs and from 8.5× to 5.8× at 100k, same peak RSS at 100k
#: (benchmarks/RESULTS.md, "Earlier: run files read in larger batches").
BATCH_BYTES = 128 << 20
BATCH_FILES = 10_000

_ORD_FILE_STRIDE = 1 << 32  # _ord = file index * stride + line: global order, no sort


def _batches(files: Sequence[SourceFile]) -> list[list[SourceFile]]:
    """``files`` in order, cut into batches of at most BATCH_BYTES and BATCH_FILES."""
    out: list[list[SourceFile]] = []
    cur: list[SourceFile] = []
    size = 0
    for f in files:
        if cur and (size + f.size > BATCH_BYTES or len(cur) >= BATCH_FILES):
            out.append(cur)
            cur, size = [], 0
        cur.append(f)
        size += f.size
    if cur:
        out.append(cur)
    return out


def read_jsonl(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[SourceFile],
    table: str,
    columns: Mapping[str, str],
    *,
    projection: str | None = None,
    max_line_bytes: int | None = None,
    spool_dir: str | None = None,
    scan: Callable[[Sequence[SourceFile]], None] | None = None,
    shared: bool = False,
    unique_keys: Mapping[str, Sequence[str] | None] | None = None,
    detector: KeyDetector | None = None,
) -> ReadResult:
    """Read JSONL ``files`` into view ``table`` (replaced if it exists).

    ``columns`` maps top-level field names to DuckDB types (``JSON`` keeps a
    field raw; extract in SQL). The view has ``_file`` (display path), ``_line``
    (1-based line in the file), ``_ord`` (global input order: increases with file
    order, then line) and the projected columns (by default the declared ones).
    Files must have been pre-scanned (``prescan``), or ``scan`` given: a callable that
    pre-scans the files it is given, run on this thread batch by batch while each batch
    is read on another one (the scan holds the GIL and one core, DuckDB's read the rest;
    ``_read_while_scanning``). Those reads are optimistic, made before the files'
    verdicts are known: a file the scan finds dirty is not taken from them, and a batch
    whose read fails is read again after the scan.
    An unreadable file is skipped and listed in ``ReadResult.unreadable``.

    Storage (what ``update_by_ord`` writes to): ``<table>__rows`` holds the rows of
    files read by the fast path — the projection's output table itself, renamed, not
    a copy: a row's line is its rowid's offset from its file's first rowid (rows keep
    insertion order), computed by the view. ``<table>__careful`` holds the rows of
    files read the careful way, with their line stored. ``<table>__files`` names each
    stored part: key (the rows' ``_file_index``), ``_file``, ``ord_base`` and, for
    fast rows, ``first_rowid``. Rows of a file that the fast read could not align are
    left in ``<table>__rows`` without a part, so the view never shows them.

    ``shared``: the view and its tables are made in the database's main schema, not as
    TEMP objects, so that other connections to the database (``sqlpack.run_range``'s
    workers) can read them; the projection must then create ``_stage`` in main too.

    ``unique_keys``: JSON path (``$``, ``$.metadata``) -> the keys of the object there that
    the caller reads (None: every key). A line that gives one of them twice is skipped and
    reported (``duplicate key metadata.testResult``), as a line that is not an object is:
    DuckDB keeps the first value, Python and JavaScript the last, so which was meant cannot
    be known (``_DUPLICATE_KEYS``). Costs one more read of each file's text, and a query
    per file: only files not cleared by ``detector`` are checked.

    ``detector``: the ``KeyDetector`` of ``unique_keys``'s keys, which ``scan`` pre-scans
    with (``prescan(..., detector=)``): the batched pre-search searches with it too, and a
    file it clears (``SourceFile.no_key_twice``) is not checked. A file pre-scanned
    without it is checked.
    """
    if not table.isidentifier():
        # about=None: runscore's own names, never a caller's argument
        raise UsageError(f"bad table name {quoting.quote(table)}", about=None)
    from runscore.engine import sqlpack  # local: sqlpack imports errors only

    proj = projection or DEFAULT_PROJECTION
    kind = "" if shared else "TEMP "
    data_tbl, careful_tbl, parts_tbl = f"{table}__rows", f"{table}__careful", f"{table}__files"
    dropped_tbl = f"{table}__dropped"
    con.execute(f"DROP VIEW IF EXISTS {table}")
    for t in (data_tbl, careful_tbl, parts_tbl, dropped_tbl):
        con.execute(f"DROP TABLE IF EXISTS {t}")
    if max_line_bytes is None:
        max_line_bytes = max_line_limit()
    cols = dict(columns)
    result = ReadResult(table=table, files=list(files))
    readable = [f for f in files if f.error is None and f.size > 0]
    order_of = {f.path: i for i, f in enumerate(files)}
    line_limit_object = max_line_bytes + 1024
    params = {"columns": cols, "max_object_size": line_limit_object}
    by_path = {f.path: f for f in files}

    def object_size(paths: list[str], optimistic: bool) -> int:
        """read_json's maximum_object_size for a read of ``paths``.

        A line must fit in one of the reader's buffers (twice this size), or the read
        fails. The pre-scan knows each file's longest line from CHUNK bytes up (shorter
        ones lie inside one chunk), so a read after it sizes the buffers by that. A read
        made before (optimistic) assumes lines of at most READ_OBJECT_BYTES; one that
        meets a longer line fails, and its files are read again once scanned (as after
        any failed optimistic read). A file that is no input file (a spool) gets the
        line limit: its lines are known only to be within it. A read after the scan that
        meets a longer line (appended since) is made again with the line limit (``stage``).
        """
        if all(p == os.devnull for p in paths):
            return EMPTY_READ_OBJECT_BYTES
        known = [by_path[p] for p in paths if p in by_path]
        if optimistic:
            size = READ_OBJECT_BYTES
        elif len(known) < len(paths):
            return line_limit_object
        else:
            longest = max((f.long_line for f in known), default=0)
            size = max(READ_OBJECT_BYTES, min(longest, max_line_bytes) + 1024)
        if len(known) < len(paths):
            return size
        # No line is longer than its file: the buffers of a read of small files need not
        # be sized for long lines (2 x 32 MiB, against the memory limit: `sql` over a
        # 56-line history ran out of memory under RUNSCORE_MEMORY_LIMIT=64MB). A file
        # grown since its stat past that fails the read, which is then made again as
        # above (``stage``).
        return min(size, max((f.size for f in known), default=0) + 1024)

    load_sql, macro = _raw_batch_load(cols)  # how a batch of small files is loaded

    def small_batch(paths: list[str], sizes: int) -> bool:
        return len(paths) > 1 and sizes / len(paths) < SMALL_FILE_BYTES

    def lines_batch(paths: list[str], sizes: int) -> bool:
        """Is this batch loaded as lines (and so from bytes Python can read)?"""
        return small_batch(paths, sizes) and load_sql is _RAW_LINES_LOAD

    def stage(
        paths: list[str], sizes: int, datas: list[bytes] | None = None, optimistic: bool = False
    ) -> None:
        size = object_size(paths, optimistic)
        try:
            stage_sized(paths, sizes, datas, size)
        except SqlPackError as e:
            # A line longer than the pre-scan measured: one appended to the file between
            # the scan and this read. Read as before, with buffers for the line limit (an
            # optimistic read is read again after the scan anyway).
            if optimistic or size >= line_limit_object or not _buffer_exceeded(e):
                raise
            for t in ("_stage", "_raw_batch"):
                con.execute(f"DROP TABLE IF EXISTS {t}")
            stage_sized(paths, sizes, datas, line_limit_object)

    def stage_sized(paths: list[str], sizes: int, datas: list[bytes] | None, size: int) -> None:
        args = {**params, "files": paths, "max_object_size": size}
        if small_batch(paths, sizes):
            if not (lines_batch(paths, sizes) and _load_lines_from_python(con, paths, datas)):
                sqlpack.execute(con, load_sql, args)
            sqlpack.execute(con, macro)
        else:
            sqlpack.execute(con, _RAW_STREAM)
        sqlpack.execute(con, proj, args)
        con.execute("DROP TABLE IF EXISTS _raw_batch")

    def stage_lines() -> None:
        """Stage ``_raw_batch``, loaded already (lines: the careful path in DuckDB)."""
        sqlpack.execute(con, macro)
        empty = [os.devnull]
        sqlpack.execute(
            con, proj, {**params, "files": empty, "max_object_size": object_size(empty, False)}
        )
        con.execute("DROP TABLE IF EXISTS _raw_batch")

    def batches_of(group: list[SourceFile]) -> list[list[SourceFile]]:
        small = bool(group) and sum(f.size for f in group) / len(group) < SMALL_FILE_BYTES
        return [b for b in (_batches(group) if small else [group]) if b]

    def fast_file(f: SourceFile) -> bool:
        return f.error is None and f.size > 0 and f.clean and f.long_line <= max_line_bytes

    # One row per stored part: (key, display, ord_base, first_rowid or None if careful)
    parts: list[tuple[int, str, int, int | None]] = []
    stored = 0  # rows in data_tbl so far (its next rowid)
    have_data = have_careful = False
    key_base = 0  # fast keys: the file's position among all fast batches' files
    misaligned: list[SourceFile] = []  # fast files whose rows did not align: careful

    def take(batch: list[SourceFile], optimistic: bool) -> None:
        """Move the staged batch into the data table and name its files' parts.

        ``optimistic``: staged before the files' verdicts were known; a file the scan
        then found dirty is not taken from it (it is read the careful way)."""
        nonlocal stored, have_data, key_base
        stats = {
            int(r[0]): (int(r[1]), int(r[2]), int(r[3]))
            for r in con.execute(
                "SELECT _file_index, min(rowid), count(*), count(*) FILTER (WHERE _nonobj) "
                "FROM _stage GROUP BY _file_index"
            ).fetchall()
        }
        kept: list[tuple[int, SourceFile, int, int]] = []
        for i, f in enumerate(batch):
            # A row's line is its offset from its file's first rowid — exact when the
            # file's row count equals its line count and every row is an object.
            first, total, nonobj = stats.get(i, (0, 0, 0))
            if optimistic and not fast_file(f):
                continue  # read before the scan found it dirty: read the careful way
            # Blank lines at the end give no row and move no other row off its line.
            if total == f.lines - f.trailing_blank and nonobj == 0:
                kept.append((i, f, first, total))
            else:
                misaligned.append(f)
        if not kept:
            # Nothing of the batch is read from it (one large file the scan found dirty,
            # say): its rows would hold memory while the careful path reads the file again.
            con.execute("DROP TABLE _stage")
            key_base += len(batch)
            return
        # The key a kept file's rows carry: its batch's _file_index plus this.
        base = key_base
        if not have_data:
            have_data = True
            # The first batch's table becomes the data: no copy of millions of rows. Its
            # rows keep the batch's own indexes, so its files are keyed by them: keyed as
            # later batches are (key_base + i), the files of a first kept batch that came
            # after one with nothing kept (all dirty) matched no row, and their runs were
            # lost without a word. Later keys start past these (key_base >= this batch's
            # length from here on).
            base = 0
            con.execute(f"ALTER TABLE _stage RENAME TO {data_tbl}")
        else:
            # Appended in order (insertion order is kept), so rowids continue from `stored`.
            con.execute(
                f"INSERT INTO {data_tbl} "
                "SELECT * REPLACE (_file_index + $base AS _file_index) FROM _stage",
                {"base": key_base},
            )
            con.execute("DROP TABLE _stage")
        for i, f, first, total in kept:
            parts.append((base + i, f.display, order_of[f.path] * _ORD_FILE_STRIDE, stored + first))
            result.rows += total
        stored += sum(t for _, t, _ in stats.values())
        key_base += len(batch)

    taken: set[int] = set()  # files staged while the scan ran (ids)
    if scan is not None:
        optimistic = functools.partial(stage, optimistic=True)
        for batch in _read_while_scanning(
            files,
            batches_of,
            optimistic,
            scan,
            lines_batch,
            con,
            lambda b: any(map(fast_file, b)),
            detector,
        ):
            take(batch, optimistic=True)
            taken.update(id(f) for f in batch)
        readable = [f for f in files if f.error is None and f.size > 0]

    fast = [f for f in readable if fast_file(f)]
    for batch in batches_of([f for f in fast if id(f) not in taken]):
        stage([f.path for f in batch], sum(f.size for f in batch))
        take(batch, optimistic=False)
    dirty = [f for f in readable if not fast_file(f)] + misaligned

    def careful_part(n: int, key: int | None, base: int) -> None:
        """Move the staged rows of careful files into ``careful_tbl``, each with its line
        from ``_careful_map``: all as file ``key``, or (None) each as its stage row says."""
        nonlocal have_careful
        # The stage's first rowid as a value, not a subquery in the join condition:
        # DuckDB planned that as a nested loop, quadratic in the file's lines (one bad
        # line in 335k took an extract of 3 s to 430 s); against a constant it is a
        # hash join.
        rows_sql, args = (_CAREFUL_ROWS, {"key": key, "base": base})
        if key is None:
            rows_sql, args = _CAREFUL_ROWS_KEYED, {"base": base}
        if have_careful:
            con.execute(f"INSERT INTO {careful_tbl} {rows_sql}", args)
        else:
            con.execute(f"CREATE {kind}TABLE {careful_tbl} AS {rows_sql}", args)
            have_careful = True
        result.rows += n
        con.execute("DROP TABLE _stage")
        con.execute("DROP TABLE _careful_map")

    def take_group(n: int) -> None:
        stage_lines()
        base = int(con.execute("SELECT min(rowid) FROM _stage").fetchall()[0][0])
        careful_part(n, None, base)

    # Careful keys are negative: apart from the fast keys, in the same parts table.
    careful = [(f, -1 - order_of[f.path]) for f in sorted(dirty, key=lambda x: order_of[x.path])]
    if load_sql is _RAW_LINES_LOAD:
        issues, rows_of, failed = _careful_in_duckdb(con, careful, max_line_bytes, take_group)
        result.skipped.extend(name_torn(issues, [f for f, _ in careful]))
        for key in failed:  # a file that could not be read to its end: nothing of it is kept
            if have_careful:
                con.execute(f"DELETE FROM {careful_tbl} WHERE _file_index = $k", {"k": key})
            result.rows -= rows_of.pop(key, 0)
        for f, key in careful:
            if rows_of.get(key):
                parts.append((key, f.display, order_of[f.path] * _ORD_FILE_STRIDE, None))
    else:  # readers declaring a non-JSON column: every line checked in Python
        for f, key in careful:
            spool, good_lines, issues = _careful(f, max_line_bytes, spool_dir)
            result.skipped.extend(name_torn(issues, [f]))
            try:
                if not good_lines:
                    continue
                stage([spool], 0)
                n = int(con.execute("SELECT count(*) FROM _stage").fetchall()[0][0])
                if n != len(good_lines):
                    # DuckDB disagreed with Python's JSON parser on some line; the file
                    # cannot be aligned reliably, so say so instead of guessing lines.
                    result.skipped.append(
                        LineIssue(f.display, 0, "file could not be aligned line by line; skipped")
                    )
                    con.execute("DROP TABLE _stage")
                    continue
                load_table(
                    con,
                    "_careful_map",
                    {
                        "i": ("BIGINT", range(len(good_lines))),
                        "_orig": ("BIGINT", good_lines),
                    },
                )
                base = int(con.execute("SELECT min(rowid) FROM _stage").fetchall()[0][0])
                careful_part(n, key, base)
                parts.append((key, f.display, order_of[f.path] * _ORD_FILE_STRIDE, None))
            finally:
                try:
                    os.unlink(spool)
                except OSError:
                    pass

    # Give both tables their projected shape even when no rows went there (from an empty
    # input: the null device, no temp file to leave behind if killed here).
    if not have_data:
        if have_careful:
            con.execute(
                f"CREATE {kind}TABLE {data_tbl} AS SELECT * EXCLUDE (_line) FROM {careful_tbl} "
                "WHERE false"
            )
        else:
            stage([os.devnull], 0)
            con.execute(f"ALTER TABLE _stage RENAME TO {data_tbl}")
    if not have_careful:
        con.execute(
            f"CREATE {kind}TABLE {careful_tbl} AS SELECT NULL::BIGINT AS _line, * "
            f"FROM {data_tbl} WHERE false"
        )
    # `_file` through a join on a small table: a path string per row would cost more
    # memory than most of the row.
    load_table(
        con,
        parts_tbl,
        {
            "key": ("INTEGER", [p[0] for p in parts]),
            "_file": ("VARCHAR", [p[1] for p in parts]),
            "ord_base": ("BIGINT", [p[2] for p in parts]),
            "first_rowid": ("BIGINT", [p[3] for p in parts]),
        },
        temp=not shared,
    )
    rows_sql = (
        f"SELECT p._file, r.rowid - p.first_rowid + 1 AS _line, "
        f"p.ord_base + (r.rowid - p.first_rowid + 1) AS _ord, "
        f"r.* EXCLUDE (_file_index, _nonobj) "
        f"FROM {data_tbl} r JOIN {parts_tbl} p ON p.key = r._file_index "
        f"UNION ALL "
        f"SELECT p._file, c._line, p.ord_base + c._line AS _ord, "
        f"c.* EXCLUDE (_line, _file_index, _nonobj) "
        f"FROM {careful_tbl} c JOIN {parts_tbl} p ON p.key = c._file_index"
    )
    con.execute(f"CREATE OR REPLACE {kind}VIEW {table} AS {rows_sql}")
    if unique_keys:
        read = {p[2] for p in parts}  # the files that gave rows, by ord_base
        check = [
            f
            for f in files
            if order_of[f.path] * _ORD_FILE_STRIDE in read
            and not (detector is not None and f.no_key_twice)
        ]
        # None to check, nothing imported: a small extract runs without pyarrow.
        dups = _duplicate_keys(con, check, unique_keys, max_line_bytes) if check else []
        if dups:
            ords = {order_of[f.path] * _ORD_FILE_STRIDE + line: (f, line, r) for f, line, r in dups}
            load_table(con, dropped_tbl, {"_ord": ("BIGINT", list(ords))}, temp=not shared)
            # Only lines that are rows: one the reader refused already (a trailing comma,
            # which DuckDB's json_keys takes) was reported for that.
            rows = con.execute(
                f"SELECT _ord FROM {table} WHERE _ord IN (SELECT _ord FROM {dropped_tbl})"
            ).fetchall()
            for (o,) in rows:
                f, line, reason = ords[int(o)]
                result.skipped.append(LineIssue(f.display, line, reason))
            result.rows -= len(rows)
            con.execute(
                f"CREATE OR REPLACE {kind}VIEW {table} AS SELECT * FROM ({rows_sql}) "
                f"WHERE _ord NOT IN (SELECT _ord FROM {dropped_tbl})"
            )
    pos = {f.display: order_of[f.path] for f in files}
    result.skipped.sort(key=lambda i: (pos.get(i.file, len(pos)), i.line))
    return result


#: The lines of ``_dk_text`` (pieces of whole lines, ``text_groups``; base: each piece's
#: first line number) that give a key twice in an object the reader's caller reads:
#: ``$paths`` (JSON paths of objects) and ``$keys`` (for each, the keys read there, or
#: NULL: every key). One row per such line: (line, keys), each key with the path it is at
#: (``head``: ``metadata.``) and whether it is a plain name (``plain``; another is quoted,
#: ``_duplicate_keys_said``), in path order, then in the order the line first gives them. A line that is not JSON, or
#: has no object at a path, has no keys there. An escaped spelling (``"i\u0064"``) is the
#: same key, as every JSON parser reads it. Linear: each line's keys are listed once, and
#: only a line whose keys at some path repeat is looked at further.
_DUPLICATE_KEYS = r"""
WITH lines AS (
    SELECT base + generate_subscripts(l, 1) - 1 AS line, unnest(l) AS raw
    FROM (SELECT base, string_split(content, chr(10)) AS l FROM _dk_text)
), keyed AS (
    -- a BOM opening the file is not part of its first line, as the readers take it
    SELECT line,
           TRY(json_keys(CASE WHEN line = 1 AND starts_with(raw, chr(65279))
                              THEN substr(raw, 2) ELSE raw END, $paths::VARCHAR[])) AS k
    FROM lines
    WHERE raw <> ''
), cand AS (
    SELECT line, k FROM keyed
    WHERE list_bool_or(list_transform(
              k, lambda x: coalesce(len(x) <> len(list_distinct(x)), false)))
), per_path AS (
    SELECT line, unnest(range(1, len(k) + 1)) AS p, unnest(k) AS ks FROM cand
), keyed_at AS (
    SELECT line, p, unnest(ks) AS key, generate_subscripts(ks, 1) AS pos FROM per_path
), twice AS (
    SELECT line, p, key, min(pos) AS pos
    FROM keyed_at
    WHERE ($keys::VARCHAR[][])[p] IS NULL OR list_contains(($keys::VARCHAR[][])[p], key)
    GROUP BY line, p, key
    HAVING count(*) > 1
)
SELECT line,
       list({'head': CASE WHEN ($paths::VARCHAR[])[p] = '$' THEN ''
                          ELSE substr(($paths::VARCHAR[])[p], 3) || '.' END,
             'key': key,
             'plain': regexp_full_match(key, '[A-Za-z_][A-Za-z0-9_]*')}
            ORDER BY p, pos) AS keys
FROM twice
GROUP BY line
"""


def _duplicate_keys(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[SourceFile],
    unique_keys: Mapping[str, Sequence[str] | None],
    max_line_bytes: int,
) -> list[tuple[SourceFile, int, str]]:
    """(file, line, reason) for each line of ``files`` that gives a key of ``unique_keys``
    twice (``_DUPLICATE_KEYS``), in file and line order. Each file's text is read once more,
    in groups of whole lines; a file that cannot be read now was reported by the read."""
    import pyarrow as pa  # local: see LIST_BIND_ROWS

    params = {
        "paths": list(unique_keys),
        "keys": [None if k is None else list(k) for k in unique_keys.values()],
    }
    out: list[tuple[SourceFile, int, str]] = []
    for f in files:
        found: list[tuple[int, list[dict[str, Any]]]] = []
        try:
            for content, base in text_groups(f, max_line_bytes):
                duck.register(con, "_dk_text", pa.table({"content": content, "base": base}))
                try:
                    found += con.execute(_DUPLICATE_KEYS, params).fetchall()
                finally:
                    con.unregister("_dk_text")
        except OSError:
            continue
        found.sort(key=lambda r: r[0])
        out += [(f, int(line), _duplicate_keys_said(keys)) for line, keys in found]
    return out


def _duplicate_keys_said(keys: Sequence[Mapping[str, Any]]) -> str:
    """``duplicate key metadata.testResult``: each key by its path, one that is no plain
    name quoted as a message quotes a value (``scores."a b"``)."""
    names = [k["head"] + (k["key"] if k["plain"] else quoting.quote(k["key"])) for k in keys]
    return f"duplicate key{'s' if len(names) > 1 else ''} {', '.join(names)}"


def _buffer_exceeded(e: BaseException) -> bool:
    """Did a read fail on a line longer than read_json's buffers?"""
    return isinstance(e.__cause__, duckdb.InvalidInputException) and (
        "maximum_object_size" in str(e.__cause__)
    )


#: A careful file's staged rows with their original line numbers: ``_careful_map`` maps
#: the i-th good line (0-based, the stage's rowid minus ``$base``, its first) to its line.
_CAREFUL_ROWS = (
    "SELECT m._orig AS _line, s.* REPLACE ($key::INTEGER AS _file_index) "
    "FROM _stage s JOIN _careful_map m ON m.i = s.rowid - $base"
)
#: The same for a stage whose rows carry their file's careful key already.
_CAREFUL_ROWS_KEYED = (
    "SELECT m._orig AS _line, s.* FROM _stage s JOIN _careful_map m ON m.i = s.rowid - $base"
)


def _read_while_scanning(
    files: Sequence[SourceFile],
    batches_of: Callable[[list[SourceFile]], list[list[SourceFile]]],
    stage: Callable[[list[str], int, list[bytes] | None], None],
    scan: Callable[[Sequence[SourceFile]], None],
    lines_batch: Callable[[list[str], int], bool],
    con: duckdb.DuckDBPyConnection,
    wanted: Callable[[list[SourceFile]], bool],
    detector: KeyDetector | None = None,
) -> Iterator[list[SourceFile]]:
    """Pre-scan ``files`` batch by batch, each batch staged on a worker thread meanwhile.

    Batches are planned by size (``os.stat``; the scan is what fills sizes in otherwise).
    For each, in turn: a batch of small files is read here, once, for both DuckDB and the
    scan (``_preread``: two threads reading 10k files each waited for the GIL); DuckDB
    stages it on the worker while ``scan`` (GIL-bound, one core) checks its files here.
    Yields each batch staged in ``_stage``, for the caller to take before the next; a
    batch whose read failed (a file the scan will call unreadable or dirty can make it
    fail, or it was stopped: the scan found none of its files ``wanted``) is not yielded,
    and the caller reads its files as if no scan had run. Files in no batch (empty,
    vanished) are scanned last.
    """
    for f in files:
        if f.error is None and not f.sha256 and f.size == 0:
            try:
                f.size = os.stat(f.path).st_size
            except OSError:
                pass  # the scan says why
    planned = batches_of([f for f in files if f.error is None and f.size > 0])
    in_batch = {id(f) for b in planned for f in b}
    from concurrent.futures import ThreadPoolExecutor  # local: only when scanning

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="runscore-read") as pool:
        for batch in planned:
            paths, sizes = [f.path for f in batch], sum(f.size for f in batch)
            datas = _preread(batch) if lines_batch(paths, sizes) else None
            try:
                staged = pool.submit(stage, paths, sizes, datas)
                try:
                    _presearch(batch, datas, detector)
                    del datas  # the worker holds them while it needs them
                    # A big file found dirty in its first half (one bad line) was scanned
                    # on to its end (hashed, searched for a key twice) while DuckDB went on
                    # reading it for nothing on the other core (below): stopped once known.
                    stopped: list[bool] = []  # the hook's, so the read is stopped once
                    for f in batch:
                        f.on_dirty = functools.partial(_stop_unwanted, con, batch, wanted, stopped)
                    scan(batch)
                except BaseException:
                    con.interrupt()  # do not leave a read of gigabytes behind an error
                    raise
                if not stopped and not wanted(batch):
                    # Found dirty, every file of it (one large file, say): nothing of the
                    # read will be taken, so it is stopped, not waited for (one bad line in
                    # one file of 100k runs: the scan ends after ~2 s of the read's ~8 s).
                    # Interrupting a connection between statements is a no-op.
                    con.interrupt()
                try:
                    staged.result()
                except KeyboardInterrupt:
                    # Python gives a Ctrl-C to this thread only, and DuckDB looks for it
                    # only on the thread that runs it: the read went on to its end (seconds,
                    # on a large file) before the command could stop.
                    con.interrupt()
                    raise
                except Exception:  # the read after the scan meets any lasting error again
                    for t in ("_stage", "_raw_batch"):
                        con.execute(f"DROP TABLE IF EXISTS {t}")
                    continue
            finally:
                for f in batch:
                    f.preread = None  # a file the scan did not take (scanned before)
                    f.on_dirty = None
            yield batch
    scan([f for f in files if id(f) not in in_batch])


def _stop_unwanted(
    con: duckdb.DuckDBPyConnection,
    batch: list[SourceFile],
    wanted: Callable[[list[SourceFile]], bool],
    stopped: list[bool],
) -> None:
    """Interrupt the batch's read if ``wanted`` says no already (its files not scanned yet
    count as clean): as the scan's end would, only sooner; ``stopped`` says it was, so
    the scan's end does not interrupt again."""
    if not stopped and not wanted(batch):
        con.interrupt()
        stopped.append(True)


def update_by_ord(
    con: duckdb.DuckDBPyConnection,
    table: str,
    column: str,
    values: Sequence[object],
    ords: Sequence[int],
    type_: str,
) -> None:
    """Set ``column`` of the rows of ``read_jsonl``'s view ``table`` whose ``_ord`` is given.

    The view computes the fast rows' ``_ord`` from their rowid, so the update goes to
    the tables underneath, matched the same way. ``type_``: the values' DuckDB type, one
    ``load_table`` takes (INTEGER, BIGINT or VARCHAR).
    """
    if not (table.isidentifier() and column.isidentifier()):
        raise UsageError(
            f"bad table or column name {quoting.quote(table)}.{quoting.quote(column)}", about=None
        )
    if not ords:
        return
    load_table(
        con,
        "_ord_updates",
        {"v": (type_, values), "o": ("BIGINT", ords)},
    )
    try:
        con.execute(
            f"UPDATE {table}__rows AS r SET {column} = u.v "
            f"FROM _ord_updates u, {table}__files p "
            "WHERE p.key = r._file_index AND p.first_rowid IS NOT NULL "
            "AND u.o = p.ord_base + (r.rowid - p.first_rowid + 1)"
        )
        con.execute(
            f"UPDATE {table}__careful AS c SET {column} = u.v "
            f"FROM _ord_updates u, {table}__files p "
            "WHERE p.key = c._file_index AND u.o = p.ord_base + c._line"
        )
    finally:
        con.execute("DROP TABLE IF EXISTS _ord_updates")


#: Arrow types of the DuckDB types ``load_table`` is given.
_ARROW_TYPES = {"INTEGER": "int32", "BIGINT": "int64", "VARCHAR": "string"}


def load_table(
    con: duckdb.DuckDBPyConnection,
    name: str,
    columns: Mapping[str, tuple[str, Sequence[Any]]],
    *,
    temp: bool = True,
) -> None:
    """A temp table ``name`` from Python columns, each a DuckDB type (``_ARROW_TYPES``)
    and values (executemany is slow past a few rows). Replaces any table of that name.
    ``temp=False``: a table of the main schema instead (seen by other connections).

    Up to ``LIST_BIND_ROWS`` rows, each column is a list bound as a parameter; past it,
    an Arrow table. Measured on four columns: 10k rows 0.02 s as lists, 0.07 s through
    Arrow; 100k rows 0.14 s and 0.11 s.
    """
    for col, (type_, _) in columns.items():
        if not col.isidentifier() or type_ not in _ARROW_TYPES:
            raise UsageError(
                f"bad column {quoting.quote(col)} of type {quoting.quote(type_)}", about=None
            )
    rows = max((len(v) for _, v in columns.values()), default=0)
    kind = "TEMP " if temp else ""
    if rows <= LIST_BIND_ROWS:
        # Several unnests in one SELECT are zipped, row by row.
        select = ", ".join(
            f'unnest($c{i}::{type_}[]) AS "{col}"'
            for i, (col, (type_, _)) in enumerate(columns.items())
        )
        con.execute(
            f"CREATE OR REPLACE {kind}TABLE {name} AS SELECT {select}",
            {f"c{i}": list(values) for i, (_, values) in enumerate(columns.values())},
        )
        return
    import pyarrow as pa

    duck.register(
        con,
        "_arrow_in",
        pa.table(
            {
                col: pa.array(values, getattr(pa, _ARROW_TYPES[type_])())
                for col, (type_, values) in columns.items()
            }
        ),
    )
    try:
        con.execute(f"CREATE OR REPLACE {kind}TABLE {name} AS SELECT * FROM _arrow_in")
    finally:
        con.unregister("_arrow_in")


#: Careful files go to DuckDB in groups of whole lines of about this many bytes (what the
#: careful path holds at once): many small files to a group, a large file in several.
CAREFUL_GROUP_BYTES = 64 << 20

#: A group of careful files' lines (``_careful_bytes``: pieces of whole lines, each with
#: its file's key and the number of its first line), one row per line that is not blank,
#: in order: ``_file_index`` (the key), ``_line``; ``line`` (a first line's BOM and a trailing CR removed, as the fast path
#: reads it); ``oversized`` (its bytes before the newline, CR and BOM included, reach
#: ``$limit``); ``suspicious`` — Python must decide: over the limit, refused by DuckDB's
#: parser, not opening with ``{``, or holding what DuckDB takes but JSON is not
#: (``$not_json``, the pre-scan's pattern) or a UTF-16 surrogate escape (``$surrogate``:
#: a lone one is not JSON to DuckDB, a pair is). Every other line is one JSON object that
#: Python's parser takes too, and goes straight to the projection.
_CAREFUL_SPLIT = """
CREATE OR REPLACE TEMP TABLE _careful_lines AS
WITH u AS (
    SELECT key AS _file_index, base + generate_subscripts(l, 1) - 1 AS _line, unnest(l) AS raw
    FROM (SELECT key, base, string_split(content, chr(10)) AS l FROM _careful_bytes)
), b AS (
    SELECT _file_index, _line, strlen(raw) >= $limit AS oversized,
           CASE WHEN _line = 1 AND starts_with(raw, chr(65279)) THEN substr(raw, 2)
                ELSE raw END AS raw
    FROM u
), c AS (
    SELECT _file_index, _line, oversized,
           CASE WHEN ends_with(raw, chr(13)) THEN raw[:-2] ELSE raw END AS line
    FROM b
)
SELECT _file_index, _line, line, oversized,
       oversized OR NOT json_valid(line)
       OR (left(line, 1) <> '{' AND NOT starts_with(ltrim(line, ' ' || chr(9) || chr(13)), '{'))
       OR regexp_matches(line, $not_json) OR regexp_matches(line, $surrogate) AS suspicious
FROM c
-- blank lines are ignored (Python's bytes.strip() blanks); trim only where a line opens
-- with one of them, as a line of text that does not cannot be blank
WHERE oversized
   OR CASE WHEN ascii(line) IN (9, 10, 11, 12, 13, 32)
           THEN trim(line, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)) <> ''
           ELSE line <> '' END
"""
_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F]"


def _careful_in_duckdb(
    con: duckdb.DuckDBPyConnection,
    files: Sequence[tuple[SourceFile, int]],
    max_line_bytes: int,
    take_group: Callable[[int], None],
) -> tuple[list[LineIssue], dict[int, int], list[int]]:
    """Read dirty ``files`` (each with its key) the careful way, lines checked by DuckDB.

    Their lines go to DuckDB in groups (``_line_pieces``; ``CAREFUL_GROUP_BYTES``, many
    small files to a group, a large file in several), where every line is numbered and
    checked (``_CAREFUL_SPLIT``); only the lines DuckDB cannot vouch for are checked in
    Python (``_check_line``: the reason a bad line is reported with), so a file of a
    million lines with one bad line costs one line of Python, not a million. Each group's
    good lines are left in ``_raw_batch`` (their text and their file's key, as the batch
    loader leaves lines) and ``_careful_map`` (row i's line number) for
    ``take_group(rows)``, which stages them.
    Returns (issues, rows taken per key, keys of files that could not be read to their
    end): those are reported, and their rows taken are the caller's to drop.
    """
    issues: list[LineIssue] = []
    # A line is over the limit from this many bytes before its newline, as _careful
    # (``readline(max_line_bytes + 2)``) finds it.
    limit = max_line_bytes + 2
    display = {key: f.display for f, key in files}
    rows_of: dict[int, int] = {}
    failed: list[int] = []
    group: list[tuple[int, int, bytes]] = []  # (key, first line, piece)
    size = 0

    def flush() -> None:
        nonlocal group, size
        if not group:
            return
        import pyarrow as pa  # local: see LIST_BIND_ROWS

        table = pa.table(
            {
                "content": _utf8_strings([p for _, _, p in group]),  # _line_pieces: UTF-8
                "key": pa.array([k for k, _, _ in group], pa.int32()),
                "base": pa.array([b for _, b, _ in group], pa.int64()),
            }
        )
        group, size = [], 0
        duck.register(con, "_careful_bytes", table)
        try:
            con.execute(
                _CAREFUL_SPLIT,
                {"limit": limit, "not_json": _NOT_JSON, "surrogate": _SURROGATE_ESCAPE},
            )
        finally:
            con.unregister("_careful_bytes")
        del table
        ok_keys: list[int] = []
        ok_lines: list[int] = []
        for key, line, text, oversized, valid in con.execute(
            # an over-limit line's text is not fetched: up to the limit of bytes, unused
            "SELECT _file_index, _line, CASE WHEN NOT oversized THEN line END, oversized, "
            "NOT oversized AND json_valid(line) FROM _careful_lines WHERE suspicious"
        ).fetchall():
            if oversized:
                reason: str | None = f"line longer than {max_line_bytes} bytes"
            else:
                reason = _check_line(text.encode("utf-8"))
                if reason is None and not valid:
                    # Python's parser takes what DuckDB's refuses (deeper nesting than
                    # DuckDB reads): DuckDB reads the events, so it decides.
                    reason = "not JSON: refused by DuckDB's JSON parser"
            if reason is None:
                ok_keys.append(key)
                ok_lines.append(line)
            else:
                issues.append(LineIssue(display[key], line, reason))
        if ok_lines:  # through a table: there may be many (a text that looks like NaN)
            load_table(
                con,
                "_careful_ok",
                {"k": ("INTEGER", ok_keys), "l": ("BIGINT", ok_lines)},
            )
            con.execute(
                "UPDATE _careful_lines AS c SET suspicious = false FROM _careful_ok o "
                "WHERE o.k = c._file_index AND o.l = c._line"
            )
            con.execute("DROP TABLE _careful_ok")
        # A filter keeps insertion order: row i of the batch is the i-th good line.
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _raw_batch AS "
            "SELECT line AS _json, _file_index, _line FROM _careful_lines WHERE NOT suspicious"
        )
        con.execute("DROP TABLE _careful_lines")
        counts = con.execute(
            "SELECT _file_index, count(*) FROM _raw_batch GROUP BY _file_index"
        ).fetchall()
        n = sum(int(c) for _, c in counts)
        if n:
            con.execute(
                "CREATE OR REPLACE TEMP TABLE _careful_map AS "
                "SELECT rowid AS i, _line AS _orig FROM _raw_batch"
            )
            take_group(n)  # stages _raw_batch (and drops it)
            for key, c in counts:
                rows_of[int(key)] = rows_of.get(int(key), 0) + int(c)
        else:
            con.execute("DROP TABLE _raw_batch")

    for f, key in files:
        mark = len(group)
        try:
            for base, piece in _line_pieces(f, max_line_bytes, issues):
                group.append((key, base, piece))
                size += len(piece)
                if size >= CAREFUL_GROUP_BYTES:
                    mark = 0
                    flush()
        except OSError as e:
            issues.append(LineIssue(f.display, 0, f"cannot read file: {e.strerror or e}"))
            failed.append(key)
            del group[mark:]  # its pieces not yet in DuckDB
            size = sum(len(p) for _, _, p in group)
    flush()
    return issues, rows_of, failed


def text_groups(
    f: SourceFile, max_line_bytes: int, group_bytes: int = CAREFUL_GROUP_BYTES
) -> Iterator[tuple[pa.Array, pa.Array]]:
    """``f``'s lines as the careful reader numbers them, for a second look in SQL: groups
    of about ``group_bytes``, each (pieces of whole lines as UTF-8 strings, the number of
    each piece's first line). A line that is not UTF-8 or is over the limit is blank in
    them (the reader reports it); an unreadable file raises OSError."""
    import pyarrow as pa  # local: see LIST_BIND_ROWS

    pieces: list[bytes] = []
    bases: list[int] = []
    size = 0
    for base, piece in _line_pieces(f, max_line_bytes, []):
        pieces.append(piece)
        bases.append(base)
        size += len(piece)
        if size >= group_bytes:
            yield _utf8_strings(pieces), pa.array(bases, pa.int64())
            pieces, bases, size = [], [], 0
    if pieces:
        yield _utf8_strings(pieces), pa.array(bases, pa.int64())


def _line_pieces(
    f: SourceFile, max_line_bytes: int, issues: list[LineIssue]
) -> Iterator[tuple[int, bytes]]:
    """``f``'s bytes as pieces of whole lines, each with the number of its first line.

    A line over the limit that is longer than a read is reported here and skipped
    without being held (shorter ones are reported by ``_CAREFUL_SPLIT``). A piece that is
    not UTF-8 is checked line by line (and only such a piece): each bad line is reported
    and blanked, so that every piece given is UTF-8 and keeps its line count.
    """
    limit = max_line_bytes + 2
    lineno = 1  # the line ``head`` starts
    head: list[bytes] = []  # the current line so far, when no newline ended it yet
    head_len = 0
    skipping = False  # inside a line over the limit: up to its newline, nothing is kept
    with open(f.path, "rb", buffering=0) as src:
        while True:
            chunk = src.read(CHUNK)
            if not chunk:
                break
            if skipping:
                at = chunk.find(b"\n")
                if at < 0:
                    continue
                skipping = False
                lineno += 1
                chunk = chunk[at + 1 :]
            end = chunk.rfind(b"\n") + 1
            if end:
                piece = b"".join([*head, chunk[:end]]) if head else chunk[:end]
                yield lineno, _utf8_piece(piece, lineno, f, max_line_bytes, issues)
                lineno += piece.count(b"\n")
                del piece
                head, head_len = [], 0
            if end < len(chunk):
                head.append(chunk[end:])
                head_len += len(chunk) - end
                if head_len >= limit:
                    issues.append(
                        LineIssue(f.display, lineno, f"line longer than {max_line_bytes} bytes")
                    )
                    head, head_len, skipping = [], 0, True
    if head:  # the last line, without a newline
        last = b"".join(head)
        yield lineno, _utf8_piece(last, lineno, f, max_line_bytes, issues)


def _utf8_piece(
    piece: bytes, first: int, f: SourceFile, max_line_bytes: int, issues: list[LineIssue]
) -> bytes:
    """``piece`` (whole lines from line ``first``) with each line that is not UTF-8 blanked
    and reported, as ``_careful`` reports it (a line over the limit as that)."""
    if piece.isascii():
        return piece
    try:
        piece.decode("utf-8")
        return piece
    except UnicodeDecodeError:
        pass
    out: list[bytes] = []
    for i, raw in enumerate(piece.split(b"\n")):
        line = raw
        if len(raw) >= max_line_bytes + 2:  # what _CAREFUL_SPLIT would say of it
            issues.append(
                LineIssue(f.display, first + i, f"line longer than {max_line_bytes} bytes")
            )
            out.append(b"")
            continue
        if first + i == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as e:
            if line.strip():
                issues.append(
                    LineIssue(f.display, first + i, f"not valid UTF-8 (byte {e.start + 1})")
                )
            raw = b""
        out.append(raw)
    return b"\n".join(out)


def _careful(
    f: SourceFile,
    max_line_bytes: int,
    spool_dir: str | None,
) -> tuple[str, list[int], list[LineIssue]]:
    """Check a dirty file line by line; spool its good lines. Returns (spool, lines, issues)."""
    issues: list[LineIssue] = []
    good_lines: list[int] = []
    fd, spool = spools.make("clean", spool_dir)
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
                if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                    line = line[3:]  # a UTF-8 BOM, as the fast path accepts it
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
    except OSError as e:
        issues.append(LineIssue(f.display, 0, f"cannot read file: {e.strerror or e}"))
        good_lines = []
    return spool, good_lines, issues


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _json_kind(v: object) -> str:
    """A parsed value's kind in JSON's words (``array``, not Python's ``list``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):  # before int: a bool is an int to Python
        return "true or false"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, str):
        return "a string"
    return type(v).__name__


#: How every reader names a bad last line that has no newline at the end. A writer
#: appends whole lines, newline last; a line cut short is one it did not finish (a crash,
#: a kill, a full disk) or is finishing now. The reason after it says what the rest is.
TORN_LAST_LINE = (
    "torn last line (no newline at the end; a writer was interrupted or is still writing)"
)


#: How the readers begin the reason of a line whose text is not JSON (``_check_line``,
#: DuckDB's refusal): all a write cut short can leave.
_TEXT_NOT_JSON = ("not JSON", "not valid UTF-8")


def could_be_torn(reason: str) -> bool:
    """Could a bad last line with this reason (a reader's) be an append cut short? Only
    when its text is not JSON. A write cut short is never complete JSON: a line that is
    (an array, ``not a JSON object (an array)``) was written whole and lacks only its
    newline, which the next append adds; a line too long to be read is not known to be
    either, and is said as such (``history repair`` keeps it, as every line it could
    not read)."""
    return reason.startswith(_TEXT_NOT_JSON)


def name_torn(issues: Sequence[LineIssue], files: Sequence[SourceFile]) -> list[LineIssue]:
    """``issues`` (of ``files``, read the careful way), a bad last line that has no
    newline at the end named for what it is (``TORN_LAST_LINE``) when it could be a write
    cut short (``could_be_torn``): its own reason, "not JSON: Unterminated string", says
    what is wrong with its text, not why. Any other last line keeps its own reason."""
    last: dict[str, int | None] = {}
    for f in files:
        # two files shown by one name: whose last line it is cannot be told from the issue
        last[f.display] = f.lines if f.open_end and f.display not in last else None
    return [
        LineIssue(i.file, i.line, f"{TORN_LAST_LINE}: {i.reason}")
        if i.line > 0
        and last.get(i.file) == i.line
        and not i.reason.startswith(TORN_LAST_LINE)
        and could_be_torn(i.reason)
        else i
        for i in issues
    ]


def _check_line(line: bytes) -> str | None:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not valid UTF-8 (byte {e.start + 1})"
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        # Deeper than Python's parser goes, yet valid JSON: DuckDB (which reads the
        # fast path too) decides, so a line's fate never depends on its neighbours.
        return None if text.lstrip().startswith("{") else "not a JSON object"
    except ValueError as e:
        return f"not JSON: {e}"
    if not isinstance(obj, dict):
        return f"not a JSON object ({_json_kind(obj)})"
    if "\\u" in text:
        # Python's parser keeps a lone UTF-16 surrogate escape ("\\udcff", as Python
        # itself writes for an undecodable file name); DuckDB's refuses the line. Refuse it
        # here too, with the reason, rather than let the two readers disagree about it.
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as e:
            return f"not JSON: lone UTF-16 surrogate escape (\\u{ord(e.object[e.start]):04x})"
    return None


def no_lines_reason(f: SourceFile, what: str) -> str:
    """How every reader says that ``f``, read, holds no line of ``what`` (``events``): when
    none of the input holds one, that is nothing read (exit 3), as no file at all is (a
    plugin option's file, beside the skills read, is a warning)."""
    return f"empty (no {what})" if f.size == 0 else f"only blank lines (no {what})"


#: A byte that is not blank to a reader: blank lines are those of Python's bytes.strip()
#: blanks (space, tab, LF, CR, VT, FF), as ``_CAREFUL_SPLIT`` skips them (a file holding
#: VT or FF goes the careful way: the pre-scan's ``_NOT_JSON``).
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def blank_only(path: str) -> bool:
    """Whether the file at ``path`` holds no line as every reader reads it: no byte but
    blanks (``_NOT_BLANK``) after a UTF-8 byte-order mark opening it, which is no part of
    its first line (0 bytes included). False when it cannot be read: its reader says why.
    One rule for the readers and the nightly job, which lists such files as empty."""
    try:
        with open(path, "rb") as fh:
            chunk = fh.read(1 << 16)
            if chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            while chunk:
                if _NOT_BLANK.search(chunk):
                    return False
                chunk = fh.read(1 << 16)
    except OSError:
        return False
    return True


def describe(files: Iterable[SourceFile]) -> list[dict[str, object]]:
    """Manifest rows (path, size, mtime, hash) for files that were read."""
    return [
        {"path": str(Path(f.path)), "size": f.size, "mtime_ns": f.mtime_ns, "sha256": f.sha256}
        for f in files
        if f.error is None
    ]
