"""Append-only JSONL history stores (effectiveness, pipelines, plugins, ...).

Rules shared by every pack (spec effectiveness §4):

* existing lines are never rewritten; records are appended as whole lines;
* a torn last line another tool left is terminated with a newline before the next
  append, so it can never glue onto a new record (readers skip and report it), and the
  appender says so (``_closed_off_said``);
* an exclusive ``flock`` on ``<history>.lock`` is held while checking
  idempotency keys and appending, so concurrent writers neither interleave nor
  duplicate;
* writing through a symlink is refused (``O_NOFOLLOW`` as well as a check);
* each write(2) of an append is first noted in the lock file (``_note_write``): a write
  that a ``kill -9`` cut short is undone by the next holder of the lock
  (``_undo_cut_write``), so the history keeps only whole record groups;
* the temporary files a killed process left beside the history (a repair's copy, its
  backup in the making, the manifest's, the cache's) are removed by the next holder of
  the lock (``remove_left_temps``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import math
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, BinaryIO

from runscore.engine import notes, sources, spools
from runscore.engine.errors import Arg, CannotAccess, HistoryError, LockTimeout, UsageError
from runscore.engine.quoting import path as quote_path

#: Bytes per write(2). Chunks end on record-group boundaries, so a kill between
#: two writes leaves only whole groups behind.
WRITE_CHUNK = 1 << 20


def _check_not_symlink(path: str, about: Arg | None = None) -> None:
    """``about``: the argument that gave ``path`` (the history's, for its lock file)."""
    if os.path.islink(path):
        why = "refusing to write through a symlink"
        raise HistoryError(f"{quote_path(path)}: {why}", file=path, reason=why, about=about)


#: Bytes of a history's start read to tell what it is (``sources.whole_file_problem``).
_HEAD_BYTES = 32


def _refuse_unreadable(path: str, head: bytes, about: Arg | None = None) -> None:
    packed = sources.compressed_format(head)
    if packed:
        # Plain lines after a gzip stream make the whole file unreadable to gzip and to
        # runscore alike (which skips a compressed file whole): every record would be lost.
        raise UsageError(
            f"{quote_path(path)}: {packed}-compressed: runscore appends only to a plain JSONL history "
            "(decompress it first)",
            about=about,
        )
    encoding = sources.foreign_encoding(head)
    if encoding is not None:
        # The same for UTF-8 lines after UTF-16 or UTF-32 ones (a history saved by an
        # editor or a shell redirect that writes UTF-16): the readers skip it whole.
        raise UsageError(
            f"{quote_path(path)}: "
            + sources.encoding_reason(*encoding, "runscore appends only to a UTF-8 JSONL history"),
            about=about,
        )


#: Bytes read at a time while looking for the end of a history's first line
#: (``_refuse_cr_line_ends``): one read holds the first line of any history runscore wrote.
_PIECE = 64 << 10


def _refuse_cr_line_ends(path: str, f: BinaryIO, size: int, about: Arg | None = None) -> None:
    """Refuse a history whose lines end in a CR alone, as its readers tell one
    (``sources.prescan``): objects with a CR between them before its first LF, and no LF
    but one that ends the file. LF lines appended to it turned a file that every reader
    names whole, with what to do, into one whose old records are its line 1, "not JSON".

    A bounded read, as a history is appended to nightly: its start up to its first LF
    (one piece for a history of records; at most ``sources.CHUNK``, as far as the readers
    look), and, when no LF is there, its last piece. A file of LF lines after a first line
    of more than that, whose last piece holds no LF either, is refused unread in between
    (its first line is records with CRs between them all the same)."""
    f.seek(0)
    pieces: list[bytes] = []
    read = 0
    lf = -1
    while read < sources.CHUNK:
        piece = f.read(min(_PIECE, sources.CHUNK - read))
        if not piece:
            break
        pieces.append(piece)
        at = piece.find(b"\n")
        if at >= 0:
            lf = read + at
            break
        read += len(piece)
    head = b"".join(pieces)
    if not sources.cr_between_lines(head):
        return
    if 0 <= lf < size - 1:
        return  # LF lines follow: its first line is one line that is not JSON, as any
    if lf < 0 and size > len(head):
        f.seek(max(len(head), size - _PIECE))
        if b"\n" in f.read()[:-1]:
            return
    raise UsageError(f"{quote_path(path)}: {sources.CR_LINE_ENDS}", about=about)


def require_path(path: str, what: Arg | str, kind: str = "file") -> None:
    """Refuse an empty path (``UsageError``): an unset variable in a crontab or a script
    (``--history "$HISTORY"``, ``history_path=os.environ.get(...)``). It was read as no
    history at all, written as none (``pipeline``'s records were not appended, exit 0), or
    said as ``: cannot append to the history`` after the scoring was done."""
    if not path:
        # ``what`` as text: no argument of the caller's gave the path (``params`` ()).
        raise UsageError(
            what,
            f": an empty path (an unset variable?); give a {kind}",
            about=what if isinstance(what, Arg) else None,
        )


def require_utf8_name(path: str, what: str = "history", about: Arg | None = None) -> None:
    """Refuse a history whose name DuckDB cannot be given (``sources.utf8_name``): written,
    it could never be read back (``report`` failed on what ``extract`` had written). An
    empty path is refused too (``require_path``)."""
    # Said "the history" as the CLI says it, the argument in ``params`` all the same.
    said = f"the {what}"
    require_path(path, said if about is None else about.said(said))
    if not sources.utf8_name(path):
        raise UsageError(
            f"{sources.shown(path)}: the {what}'s file name is not valid UTF-8, and DuckDB, "
            "which reads it, takes UTF-8 file names only: give it a UTF-8 name",
            about=about,
        )


def check_appendable(path: str, about: Arg | None = None) -> None:
    """Refuse, before any scoring, a history that could not be appended to as it is: a
    symlink, anything but a regular file, a compressed file, one in UTF-16 or UTF-32, or
    one whose lines end in a CR alone. ``append_groups`` checks again under the lock; this
    says it before minutes of work are thrown away. ``about``: the argument that gave
    ``path``, which the errors name in their ``params``."""
    require_utf8_name(path, about=about)
    if os.path.islink(path):
        raise UsageError(f"{quote_path(path)}: refusing to write through a symlink", about=about)
    if not os.path.exists(path):
        return
    if not os.path.isfile(path):  # a folder or a FIFO where the history belongs
        raise UsageError(f"{quote_path(path)}: the history is not a regular file", about=about)
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            _refuse_linked(path, st, about=about)
            _refuse_unreadable(path, f.read(_HEAD_BYTES), about)
            _refuse_cr_line_ends(path, f, st.st_size, about)
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(path)}: cannot read the history: {e.strerror or e}", about=about
        ) from None


def _refuse_linked(
    path: str, st: os.stat_result, *why: str | Arg, about: Arg | None = None
) -> None:
    """Refuse to append to a history that has another name (a hard link, ``st_nlink`` more
    than 1). Its lock is taken by name (``lock_file``): ``--history h.jsonl`` and ``--history
    h2.jsonl``, one file, took two locks, and two writers appended at once (a run's records
    twice, record groups interleaved, one's cut write left for the other to close off as a
    bad line). A link made while a writer appends is refused to every later writer.
    ``why``: what goes wrong through two names, and what to do, when it is not that
    (``refuse_linked``)."""
    if st.st_nlink > 1:
        raise UsageError(
            f"{quote_path(path)}: the history has {st.st_nlink} names (hard links), and ",
            *(
                why
                or (
                    "runscore locks a history by its name, so writers through two names "
                    "would not wait for each other: copy it to a new file and move that "
                    "over this one",
                )
            ),
            about=about,
        )


def refuse_linked(path: str, *why: str | Arg, about: Arg | None = None) -> None:
    """``_refuse_linked`` of the file at ``path`` (not followed, if a link), when there is one
    (anything else is for the caller to say)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return
    _refuse_linked(path, st, *why, about=about)


def check_readable(path: str, about: Arg | None = None) -> None:
    """Refuse, in its readers' words, a history they read none of as it is (compressed, in
    UTF-16 or UTF-32, lines that end in a CR alone), from a bounded read of it, as
    ``check_appendable`` does. For a command that reads it whole only once it holds its
    lock (``history repair --in-place``): such a history made the lock file beside it
    before it was refused. Anything else (no such file, a FIFO, a read that fails) is left
    to the read under the lock, which says it as before."""
    if not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as f:
            problem = sources.whole_file_problem(f.read(_HEAD_BYTES))
            if problem is not None:
                raise UsageError(f"{quote_path(path)}: {problem}", about=about)
            _refuse_cr_line_ends(path, f, os.fstat(f.fileno()).st_size, about)
    except OSError:
        return


def check_writable(path: str, about: Arg | None = None) -> None:
    """``check_appendable``, and that the append itself could be made, leaving nothing
    behind: the history and its lock file (``lock_file``) open for writing as
    ``append_groups`` and ``locked`` open them, and where either is still to be made
    (with the folders up to it), a file can be made in the nearest folder that exists
    (one is made and removed: permission bits do not say it for root, nor on a read-only
    mount or ``/proc``). For a command that writes other files before it appends
    (``pipeline``'s reports): a history its append would refuse is refused before any
    of them is written."""
    check_appendable(path, about)
    lock = lock_file(path)
    if os.path.islink(lock):
        raise UsageError(
            f"{quote_path(lock)}: refusing to lock the history through a symlink", about=about
        )
    _refuse_odd_lock(lock, "history", about)
    missing = False
    for p, flags, what in (
        (path, os.O_WRONLY | os.O_APPEND, "cannot append to the history"),
        (lock, os.O_RDWR, "cannot lock the history"),
    ):
        try:
            # Without O_CREAT nothing is made; opening for writing changes neither the
            # file nor its times. O_NONBLOCK: a FIFO is not waited on.
            fd = os.open(p, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            missing = True  # to be made: said below, of the folder
            continue
        except OSError as e:
            raise CannotAccess(f"{quote_path(p)}: {what}: {e.strerror or e}", about=about) from None
        os.close(fd)
    if not missing:
        return
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        raise CannotAccess(f"{quote_path(folder)}: a file where a folder is needed", about=about)
    try:
        fd, probe = tempfile.mkstemp(prefix=".runscore-probe-", dir=folder)
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(folder)}: cannot make the history {path} there: {e.strerror or e}",
            about=about,
        ) from None
    os.close(fd)
    os.unlink(probe)


#: What the nightly job adds to a history's path for its own lock on it (``locked``).
NIGHTLY_LOCK = ".nightly"
#: What the nightly job adds to a history's path for its journal of the jobs that extracted
#: into it (``nightly._Journal``): kept beside the history, as the lock is.
NIGHTLY_JOURNAL = ".nightly.journal"


#: ``lock_timeout`` (``--lock-timeout``), as ``lock_timeout`` names it.
LOCK_TIMEOUT = Arg("lock_timeout", "--lock-timeout")


def wait_seconds(value: object, what: Arg) -> float:
    """``value`` as a wait for a lock, checked as the CLI's ``SECONDS`` checks
    ``--lock-timeout`` and ``--wait``: a number of seconds, 0 or more (``math.inf``: for
    ever, as asked). A negative one was tried once, as 0, where the command refuses it;
    nan was refused only once the lock was to be taken, after the work; text or None was
    a TypeError from inside naming no argument. Refused before anything is read or written."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(what, f": give a number of seconds, not {sources.type_name(value)}")
    if math.isnan(value) or value < 0:
        raise UsageError(what, " must be 0 or more seconds")
    return float(value)


def lock_timeout(value: object, what: Arg = LOCK_TIMEOUT) -> float | None:
    """``wait_seconds``, or None: wait for the lock for ever (what ``locked`` takes)."""
    return None if value is None else wait_seconds(value, what)


def lock_file(path: str) -> str:
    """The file ``locked(path)`` takes its lock on."""
    return path + ".lock"


@contextlib.contextmanager
def locked(
    path: str, *, timeout: float | None = 300.0, what: str = "history", about: Arg | None = None
) -> Iterator[None]:
    """Hold an exclusive lock on ``path + '.lock'``.

    ``timeout`` None waits forever; 0 tries once. Raises ``LockTimeout``. ``about``: the
    argument that gave ``path``, which a refusal of its lock file names in ``params``.
    """
    if timeout is not None and math.isnan(timeout):
        # now + nan is a deadline never reached: it would wait for ever. A guard of the
        # caller's own: every call of the API checks its wait first (``wait_seconds``).
        raise UsageError(
            "a lock timeout must be a number of seconds (0 or more), not nan", about=None
        )
    lock_path = lock_file(path)
    parent = os.path.dirname(os.path.abspath(lock_path))
    os.makedirs(parent, exist_ok=True)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        fd = _take_lock(path, lock_path, what, deadline, about)
        try:
            if _still_named(fd, lock_path):
                break
        except BaseException:
            os.close(fd)
            raise
        # The lock file was removed (and maybe made again) while we waited for it: the
        # flock we got is on a file no other process opens now, and another can hold the
        # one at its name. The lock is the file at the name, taken again.
        os.close(fd)
    try:
        _undo_cut_write(path, fd, about)
        remove_left_temps(path)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _take_lock(
    path: str, lock_path: str, what: str, deadline: float | None, about: Arg | None = None
) -> int:
    """Open ``lock_path`` and flock it, waiting until ``deadline`` (None: for ever); the
    fd. Raises ``LockTimeout``."""
    _check_not_symlink(lock_path, about)
    # 0666 less the umask, as for any new file: a team that shares a history through its
    # group (umask 002) can lock and append to it; the usual umask 022 gives 0644.
    _refuse_odd_lock(lock_path, what, about)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if deadline is not None and time.monotonic() >= deadline:
                    holder = lock_holder(fd)
                    command = None if holder is None else holder_command(holder)
                    raise LockTimeout(
                        f"{quote_path(path)}: {held_by(f'the {what} lock', holder, command)}",
                        holder,
                        command,
                        about=about,
                    ) from None
                time.sleep(0.05)
    except BaseException:
        os.close(fd)
        raise


def _still_named(fd: int, lock_path: str) -> bool:
    """Is ``fd``'s file still the one at ``lock_path``?"""
    try:
        st = os.stat(lock_path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    now = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino)


def _refuse_odd_lock(lock_path: str, what: str, about: Arg | None = None) -> None:
    """Refuse a lock file that is there and is neither a regular file nor a folder (whose
    open says "Is a directory"): flock takes a FIFO, but the note of each write of an
    append (``_note_write``) cannot be kept in one, and the append failed after the work
    was done (``pipeline``'s reports written), said of the history as "Invalid argument"."""
    try:
        mode = os.lstat(lock_path).st_mode
    except OSError:
        return  # none yet (made by the open), or said by the open
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        raise CannotAccess(
            f"{quote_path(lock_path)}: the {what} lock is not a regular file", about=about
        )


def lock_holder(fd: int) -> int | None:
    """The PID of the process that holds the flock on ``fd``'s file, as Linux's
    /proc/locks says it; None when it cannot say (no /proc/locks, a holder in another PID
    namespace, the lock let go meanwhile) or it is this process. "Another process holds
    the lock" left the user to find which one (`fuser` needs the lock file's path)."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            table = fh.read()
    except OSError:
        return None
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for row in table.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:2146320 0 EOF"; a waiter's row has "->"
        # after the number, so it never matches.
        f = row.split()
        if len(f) >= 6 and f[1] == "FLOCK" and f[5] == inode and f[4].isdigit():
            pid = int(f[4])
            return pid if pid > 0 and pid != os.getpid() else None
    return None


def holder_command(pid: int) -> str | None:
    """The command name of process ``pid`` (Linux's ``/proc/PID/comm``), ``runscore`` for
    runscore run as ``python -m runscore`` too; None when it cannot be read (no /proc, a
    /proc mounted ``hidepid``, the process gone). A lock held by ``flock(1)`` or an editor
    was said to be held by "another runscore process"."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            comm = f.read().rstrip(b"\n")
    except OSError:
        return None
    if comm == b"runscore":
        return "runscore"
    if comm.startswith(b"python"):
        # The interpreter's name is the command of `python -m runscore` and of the script
        # run through it (`python .venv/bin/runscore`).
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            argv = []
        module = b"-mrunscore" in argv or any(
            a == b"-m" and b == b"runscore" for a, b in zip(argv, argv[1:], strict=False)
        )
        if module or os.path.basename(argv[1] if len(argv) > 1 else b"") == b"runscore":
            return "runscore"
    return comm.decode("utf-8", "backslashreplace") if comm else None


def held_by(lock: str, holder: int | None, command: str | None) -> str:
    """Who holds ``lock``, in a message's words: "another runscore process (PID N) holds
    ``lock``" when it is runscore (``holder_command``), or cannot be told (no PID: runscore
    takes the lock file, which is its own), else "``lock`` is held by PID N (flock)" (by
    PID N alone when its command cannot be read)."""
    if holder is not None and not held_by_runscore(holder, command):
        return f"{lock} is held by {holder_words(holder, command)}"
    pid = "" if holder is None else f" (PID {holder})"
    return f"another runscore process{pid} holds {lock}"


def held_by_runscore(holder: int | None, command: str | None) -> bool:
    """Is the lock's holder runscore, as far as can be told (``held_by``)?"""
    return holder is None or command == "runscore"


def holder_words(holder: int, command: str | None) -> str:
    """``PID 123 (flock)``, or ``PID 123`` when the command cannot be read."""
    return f"PID {holder}" + ("" if command is None else f" ({quote_path(command)})")


#: What ``append_groups`` writes into the lock file before each write(2) of an append:
#: the history's device and inode, and the offsets the write starts and ends at.
_WRITE_NOTE = b"runscore-append-v1 %d %d %d %d\n"


def _note_write(lock_fd: int, note: bytes) -> None:
    os.ftruncate(lock_fd, 0)
    if note:
        _pwrite_all(lock_fd, note)


def _pwrite_all(fd: int, data: bytes) -> None:
    view, at = memoryview(data), 0
    while at < len(data):
        at += os.pwrite(fd, view[at:], at)


def _undo_cut_write(path: str, lock_fd: int, about: Arg | None = None) -> None:
    """Cut off what a write of an interrupted append left of itself, before the lock's new
    holder reads or appends to the history.

    Linux ends a write(2) to a file between two pages when the writer gets SIGKILL, so a
    ``kill -9`` mid-append left part of a record group: the rest of a run's lines missing
    and a torn last line, which the next append closed off into a bad line for good
    (``history check`` failed, and every report listed it, until a repair). The lock
    file's note (``_WRITE_NOTE``) says which bytes that write was to hold: when the
    history is still the same file and ends inside them, they are the cut write's own
    (nothing else appends under the lock) and go. A history that ends where the write
    ended, or before it began, is left as it is; so is one whose last line another tool
    left unterminated (no note: ``append_groups`` closes that off)."""
    try:
        note = os.pread(lock_fd, 256, 0)
    except OSError:
        return
    if not note:
        return
    parts = note.split()
    try:
        dev, ino, start, end = (int(x) for x in parts[1:]) if len(parts) == 5 else (0, 0, 0, 0)
    except ValueError:
        dev = ino = start = end = 0
    if parts[:1] == [b"runscore-append-v1"] and start < end:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            fd = -1  # gone or replaced: nothing of the write is left to undo
        if fd >= 0:
            try:
                st = os.fstat(fd)
                if (
                    stat.S_ISREG(st.st_mode)
                    and (st.st_dev, st.st_ino) == (dev, ino)
                    and start < st.st_size < end
                ):
                    said = _cut_said(path, st, start)
                    os.ftruncate(fd, start)
                    os.fsync(fd)
                    notes.say(said)
            except OSError as e:
                # Left noted: appending after a cut write would make its bytes a bad line.
                raise CannotAccess(
                    f"{quote_path(path)}: cannot undo an append that was cut short: "
                    f"{e.strerror or e}",
                    about=about,
                ) from None
            finally:
                os.close(fd)
    with contextlib.suppress(OSError):
        _note_write(lock_fd, b"")


def _cut_said(path: str, st: os.stat_result, start: int) -> str:
    """The line said of the bytes from ``start`` to the end of the history (``st``: its
    stat) that ``_undo_cut_write`` cuts off: a whole record line of them was read by the reports, and
    ``history check`` listed the torn one, so they do not go without a word (``history
    repair --in-place`` said "clean; nothing to repair" of a history it had just made
    shorter). By line, as ``history check`` names lines; by byte when it cannot be read."""
    why = (
        "what an append killed in the middle of a write left of its records (the command "
        "that wrote them, run again, writes them whole)"
    )
    try:
        with open(path, "rb") as f:
            now = os.fstat(f.fileno())
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise OSError  # replaced meanwhile: the fd's file is the one cut
            line, at = 1, 0
            while at < start:  # a rare read (after a kill -9), in pieces
                piece = f.read(min(_PIECE, start - at))
                if not piece:
                    raise OSError  # shorter than it was: said by byte
                line += piece.count(b"\n")
                at += len(piece)
            cut = f.read(st.st_size - start)  # at most one write's: WRITE_CHUNK
    except OSError:
        return f"{quote_path(path)}: removed: its last {st.st_size - start} byte(s), {why}"
    lines = cut.count(b"\n") + (not cut.endswith(b"\n"))
    return f"{quote_path(path)}:{line}: removed: {lines} line(s) to the end, {why}"


def temp_name(path: str) -> str:
    """``.NAME.tmp-PID`` beside ``path``: where this process writes what it then renames
    to ``path`` (every file runscore writes whole: a history's repair, its manifest and
    cache, ``sql --output``, ``export --to``, ``pipeline --out``, ``plugin score --out``,
    the nightly job's files). The PID tells the temporary files of a process that is
    gone (``remove_left_temps``)."""
    d, base = os.path.split(os.path.abspath(path))
    return os.path.join(d, f".{base}.tmp-{os.getpid()}")


#: What ``temp_name`` gives beside a file (group 1: the rest of its name) for the file
#: itself, a history's manifest (``NAME.manifest.json``), its cache (``NAME.cache.duckdb``,
#: written by readers, with no lock: a dead PID's is no one's, whoever sweeps it) and a
#: repair's backup (``NAME.bak-<UTC time>``, ``history_tools``); group 2 is the PID. A
#: DuckDB file written there (an export, the history's cache) may have its write-ahead log
#: beside it (``.wal``).
_LEFT_TEMP = r"(|\.manifest\.json|\.cache\.duckdb|\.bak-\d{8}T\d{6}Z(?:-\d+)?)\.tmp-(\d+)(?:\.wal)?"


def remove_left_temps(path: str, *, say: Callable[[str], None] | None = None) -> list[str]:
    """Remove the temporary files beside ``path`` (``temp_name``'s, of the file itself, or
    of a history's manifest, cache or a repair's backup) of runscore processes that are
    gone, and say each.

    A process that writes them removes them on any error, a Ctrl-C included; only a
    ``kill -9`` (an out-of-memory kill, a power cut) leaves one, a partial copy of the
    file, one more for each try (``history repair --in-place`` killed, then run again).
    The next holder of the history's lock removes a history's (its cache's too, which the
    next write of the cache would); the next write of any other file (``atomic_write``)
    its own. A PID that is no process now is no writer; one
    whose PID runs (another runscore writing the same file now, a PID reused since, or a
    process of another user) is left. Returns the paths removed."""
    say = say or notes.say
    removed: list[str] = []
    for tmp, pid in _left_temps(path):
        try:
            if not stat.S_ISREG(os.lstat(tmp).st_mode):
                continue  # not one runscore writes: left as it is
            os.unlink(tmp)
        except OSError:
            continue  # gone meanwhile, or not ours to remove: nothing to say
        removed.append(tmp)
        say(spools.removed_words(tmp, pid))
    return removed


def has_left_temps(path: str) -> bool:
    """Are there temporary files beside ``path`` that ``remove_left_temps`` would remove?
    (One listing of the folder: no lock, nothing changed.)"""
    return next(_left_temps(path), None) is not None


def _left_temps(path: str) -> Iterator[tuple[str, int]]:
    """The temporary files beside ``path`` (``_LEFT_TEMP``) whose process is gone, and
    its PID."""
    folder, base = os.path.split(os.path.abspath(path))
    pattern = re.compile(re.escape(f".{base}") + _LEFT_TEMP)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    prefix = f".{base}"  # a history beside 10k run logs: a regex for few of the names
    for name in sorted(n for n in names if n.startswith(prefix)):
        m = pattern.fullmatch(name)
        if m is not None and spools.process_gone(int(m.group(2))):
            yield os.path.join(folder, name), int(m.group(2))


def _json_default(o: Any) -> Any:
    if hasattr(o, "isoformat"):
        return o.isoformat()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _clean(v: Any) -> Any:
    # NaN/Infinity are not JSON: unknown numbers are written as null.
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def dumps_record(record: dict[str, Any]) -> str:
    """One history line (no trailing newline); key order is the record's order."""
    return json.dumps(
        {k: _clean(v) for k, v in record.items()},
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
        default=_json_default,
    )


def append_groups(
    path: str,
    groups: Iterable[Sequence[str]],
    about: Arg | None = None,
) -> int:
    """Append groups of lines (no trailing newlines) atomically per group.

    The caller must hold ``locked(path)``. Returns the number of lines written. ``about``:
    the argument that gave ``path``, which a refusal names in ``params``.
    """
    _check_not_symlink(path, about)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    # O_NONBLOCK: a FIFO in the history's place must be refused, not waited on for ever
    # (it has no effect on a regular file's writes).
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o666)  # less the umask (see ``locked``)
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(path)}: cannot append to the history: {e.strerror or e}", about=about
        ) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{quote_path(path)}: the history is not a regular file", about=about)
    try:
        _refuse_linked(path, os.fstat(fd), about=about)
    except BaseException:
        os.close(fd)
        raise
    written = 0
    size = -1
    lock_fd = -1
    try:
        st = os.fstat(fd)
        size = end = st.st_size
        if size > 0:
            with open(path, "rb") as r:
                _refuse_unreadable(path, r.read(_HEAD_BYTES), about)
                _refuse_cr_line_ends(path, r, size, about)
                r.seek(size - 1)
                if r.read(1) != b"\n":
                    # Another tool's unterminated last line (a cut write of runscore's own
                    # was undone when the lock was taken): close it off so it stays one
                    # bad line, and say so: it is one for good now, which an append of no
                    # record (`extract` of runs scored already) did without a word.
                    _write_all(fd, b"\n")
                    end += 1
                    notes.say(_closed_off_said(path, r, size))
        lock_fd = os.open(
            lock_file(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666
        )

        def write_chunk(data: bytes) -> None:
            nonlocal end
            # Noted first: a kill -9 inside this write leaves bytes the next holder of the
            # lock can tell for its own and cut off (``_undo_cut_write``).
            _note_write(lock_fd, _WRITE_NOTE % (st.st_dev, st.st_ino, end, end + len(data)))
            try:
                _write_all(fd, data)
            except BaseException:
                # A Ctrl-C between two parts of one write: its whole groups only.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, end)
                raise
            end += len(data)

        buf: list[bytes] = []
        buf_len = 0
        for g in groups:
            data = "".join(line + "\n" for line in g).encode("utf-8")
            if buf and buf_len + len(data) > WRITE_CHUNK:
                write_chunk(b"".join(buf))
                buf, buf_len = [], 0
            buf.append(data)
            buf_len += len(data)
            written += len(g)
        if buf:
            write_chunk(b"".join(buf))
        _note_write(lock_fd, b"")
        os.fsync(fd)
    except OSError as e:
        if size >= 0:
            # A full disk: the part of a record that fitted is cut off again (the lock is
            # ours), not left as a torn line that the next append makes a bad one for good.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                _note_write(lock_fd, b"")
        why = e.strerror or str(e)  # the kernel's write error names no file
        raise CannotAccess(
            f"{quote_path(path)}: cannot append to the history: {why}", about=about
        ) from e
    finally:
        os.close(fd)
        if lock_fd >= 0:
            os.close(lock_fd)
    return written


def _closed_off_said(path: str, f: BinaryIO, size: int) -> str:
    """The line said of another tool's torn last line that ``append_groups`` ends with a
    newline (``f``: the history, ``size`` bytes before it): by line, as ``history check``
    names it, in the readers' words for such a line. A rare read of the whole history (a
    torn line of another tool's), in pieces."""
    f.seek(0)
    line, at = 1, 0
    while at < size:
        piece = f.read(min(WRITE_CHUNK, size - at))
        if not piece:
            break
        line += piece.count(b"\n")
        at += len(piece)
    return (
        f"{quote_path(path)}:{line}: closed off with a newline: {sources.TORN_LAST_LINE}, "
        "not an append of runscore's (one would have been cut off): it stays one bad line "
        "until `history repair` drops it"
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


@contextlib.contextmanager
def said_of(path: str, tmp: str | None = None) -> Iterator[None]:
    """An error that names no file (a write's or a read's: a full disk, ``File too
    large``), or names ``tmp`` (a temporary file, a name the user never gave), raised
    again as said of ``path``, the file the user asked for."""
    try:
        yield
    except OSError as e:
        if e.errno is None or e.filename not in (None, tmp):
            raise
        raise OSError(e.errno, e.strerror, path) from e


def atomic_write(path: str, write: Callable[[str], None], *, sweep: bool = True) -> None:
    """Write a whole file atomically: ``write(tmp)`` fills a temp file in the same folder
    (made if missing), which is then renamed over ``path``.

    ``sweep``: first remove the temporary files of ``path`` that killed processes left
    (``remove_left_temps``); a caller that holds the history's lock, which did it, skips
    it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if sweep:
        remove_left_temps(path)
    tmp = temp_name(path)
    try:
        with said_of(path, tmp):
            write(tmp)
            os.replace(tmp, path)
    except BaseException:
        # A failed write (a full disk, a folder where the file belongs, an interrupt)
        # leaves the old file as it was and no temp file beside it.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def is_stream(path: str) -> bool:
    """Is ``path`` a place a file cannot be renamed into: in /dev or /proc (/dev/stdout,
    /dev/fd/3: a descriptor open already, whatever it is), or a character device or FIFO
    (or a link to one) elsewhere?"""
    if os.path.abspath(path).startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(
    path: str, write: Callable[[str], None], *, about: Arg | None = None, sweep: bool = True
) -> None:
    """Write the output file ``path`` a user named (``sql --output``, ``export --to``,
    ``history repair --out``) by ``write(p)``, one way for every command.

    A stream (``is_stream``: /dev/null, a FIFO, a shell's ``>(...)``, a link /dev/fd/63 to
    a pipe) is written into, as a shell's ``>`` does: a temporary file renamed over it
    replaced the node (or the link) with a regular file, and the reader got nothing. A
    symlink to anything else is refused, as the history and the report files are: renamed
    over, the link was replaced and the file it names kept the old result, unsaid. Else
    ``atomic_write``: a failed write never leaves half a file where the last one was."""
    if is_stream(path):
        with said_of(path):
            write(path)
        return
    if os.path.islink(path):
        raise UsageError(f"{quote_path(path)}: refusing to write through a symlink", about=about)
    atomic_write(path, write, sweep=sweep)


def write_text_output(path: str, text: str, *, about: Arg | None = None) -> None:
    """``write_output`` of ``text``: a report a command writes by name into a folder given
    (``pipeline --out``, ``plugin score --out``), as the output files a user names are
    written. Synced to disk before the rename (not a stream: it takes no sync)."""

    def write(p: str) -> None:
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                os.fsync(f.fileno())

    write_output(path, write, about=about)


def refuse_unwritable_report(path: str, about: Arg | None = None) -> None:
    """Refuse a report path ``write_output`` would not write as a report: a symlink (to
    anything but a stream), in its words; a folder, in the words its rename said of one
    (``Is a directory``); a socket or a block device, which the rename replaced, unsaid.
    Nothing there, a regular file, a FIFO or a character device: written (into, if one
    of the last two)."""
    if is_stream(path):
        return
    if os.path.islink(path):
        raise UsageError(f"{quote_path(path)}: refusing to write through a symlink", about=about)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISDIR(mode):
        raise CannotAccess(f"{quote_path(path)}: {os.strerror(errno.EISDIR)}", about=about)
    if not stat.S_ISREG(mode):
        kind = "a socket" if stat.S_ISSOCK(mode) else "a block device"
        raise CannotAccess(
            f"{quote_path(path)}: not a regular file ({kind}): refusing to write a report over it",
            about=about,
        )


def refuse_report_folder(
    folder: str, patterns: Sequence[str], about: Arg | None = None, *, probe: bool = True
) -> None:
    """Refuse, before anything is read or written, a folder the reports named by
    ``patterns`` (``sources.files_named``) could not be written into, as their write would
    have said it: found only there, once everything was scored (and ``plugin score``'s
    history appended), it left the reports before it written, and the rest not.

    ``folder`` itself a link to nothing or not a folder (``os.path.exists`` took a link
    to nothing for none, ``os.makedirs`` failed on it); missing, under a file or where no
    folder can be made (``/proc``: one is made and removed, as ``check_writable`` makes a
    file); a folder of the patterns' (``skills/``) that is not one; and at a report's name
    what ``refuse_unwritable_report`` refuses (a symlink, a folder); and a folder that is
    there, or a folder of the patterns' that is, where no file can be made (read-only, a
    read-only mount, ``/proc``: one is made and removed, as ``check_writable`` makes one;
    permission bits do not say it for root): each report is written beside its name and
    renamed over it; and such a folder whose files cannot be listed (``_refuse_unlistable``:
    what is looked for there by name would not be found). ``probe`` False: no file or
    folder is made, nor listed, to learn that, for a caller that probed this folder
    already (``plugin.score``: before the skills were read, by the patterns; by their
    exact names once they are scored)."""
    if os.path.lexists(folder):
        if not os.path.isdir(folder):
            # In the CLI's words for such an --out (``--out nf: exists and is not ...``).
            named = () if about is None else (about, " ")
            raise CannotAccess(
                *named, f"{quote_path(folder)}: exists and is not a directory", about=about
            )
    else:
        parent = os.path.dirname(os.path.abspath(folder))
        while not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise CannotAccess(f"{quote_path(folder)}: {os.strerror(errno.ENOTDIR)}", about=about)
        if not probe:
            return
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".runscore-probe-", dir=parent))
        except OSError as e:
            raise CannotAccess(f"{quote_path(folder)}: {e.strerror or e}", about=about) from None
        return  # to be made: nothing in it yet
    subs = sorted({p.rpartition("/")[0] for p in patterns if "/" in p})
    for sub in subs:
        path = os.path.join(folder, sub)
        if os.path.lexists(path) and not os.path.isdir(path):
            raise CannotAccess(f"{quote_path(path)}: a file where a folder is needed", about=about)
    if probe:
        for path in [folder, *(os.path.join(folder, sub) for sub in subs)]:
            if os.path.isdir(path):
                _refuse_unlistable(path, about)
    for path in sources.files_named(folder, patterns):
        refuse_unwritable_report(path, about)
    for path in [folder, *(os.path.join(folder, sub) for sub in subs)]:
        if probe and os.path.isdir(path):  # a folder still to be made is made where folder is
            _refuse_no_new_file(path, about)


def _refuse_unlistable(folder: str, about: Arg | None) -> None:
    """Refuse ``folder`` when its files cannot be listed (no read permission: a drop box
    of mode -wx). The reports were written into it all the same, but what is looked for
    there by listing it was not found: ``files_named`` saw no file (glob says nothing of
    a folder it cannot read), so an input named as a report (``skills/*.md``) was
    replaced by one, and the temporary files a killed write left there were never swept.
    Listed as a listing does it: permission bits do not say it for root."""
    try:
        os.scandir(folder).close()
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(folder)}: cannot list the files there: {e.strerror or e}", about=about
        ) from None


def _refuse_no_new_file(folder: str, about: Arg | None) -> None:
    """Refuse ``folder`` when a file cannot be made in it (one is made and removed)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".runscore-probe-", dir=folder)
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(folder)}: cannot write a report there: {e.strerror or e}", about=about
        ) from None
    os.close(fd)
    os.unlink(probe)


def atomic_write_text(
    path: str, text: str, *, durable: bool = True, sweep: bool = True, about: Arg | None = None
) -> None:
    """Write a whole text file atomically (temp file in the same folder + rename).

    ``durable``: synced to disk before the rename. A file that only saves work (the
    extract manifest) may skip it: after a crash it is the old file, the new one, or
    text that does not parse, and its reader must take the last as no file at all.
    ``sweep``: as ``atomic_write``'s. ``about``: the argument that gave ``path``, which a
    refusal names in ``params``."""
    _check_not_symlink(path, about)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())

    atomic_write(path, write, sweep=sweep)


def append_records(
    path: str,
    records: Iterable[dict[str, Any]],
    *,
    group_key: Callable[[dict[str, Any]], Any] | None = None,
    lock_timeout: float | None = 300.0,
    about: Arg | None = None,
) -> int:
    """Convenience for packs: lock, append records grouped by ``group_key``. ``about``:
    the argument that gave ``path``, which a refusal of it or its lock names in
    ``params`` (as ``locked``'s and ``append_groups``')."""
    groups: dict[Any, list[str]] = {}
    for i, r in enumerate(records):
        k = group_key(r) if group_key else i
        groups.setdefault(k, []).append(dumps_record(r))
    with locked(path, timeout=lock_timeout, about=about):
        return append_groups(path, list(groups.values()), about)
