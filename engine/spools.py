"""Spool files: what runscore copies into the system's temp folder to read it as a file
(standard input, a dirty file's good lines, the new tail of a cached history), named
``runscore-KIND-PID-XXXXXXXX.jsonl``.

A process removes its spools when done with them, on an error or a Ctrl-C too; only a
``kill -9`` (an out-of-memory kill, a power cut) leaves one, a copy of the input, for
good: their names held no PID, so nothing could tell a dead process's spool from a live
one's. The PID is in the name now, and the first spool of a kind a process makes removes
the spools of that kind whose process is gone (``make``), as the next write of a file
removes its ``.FILE.tmp-PID`` (``history.remove_left_temps``).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import threading

from runscore.engine import notes
from runscore.engine.quoting import path as quote_path

#: The kinds a folder was swept for by this process: once is enough, as a spool this
#: process did not make is another process's (a ``_careful`` spool per dirty file would
#: list the temp folder once per file).
_swept: set[tuple[str, str]] = set()
_swept_lock = threading.Lock()


def process_gone(pid: int) -> bool:
    """Is there no process ``pid`` now? A process of another user is one; so is this one.
    A number no process can have is not gone (not a name runscore gave its file)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's process: running
    except OverflowError:
        # A number no process has (``.q.csv.tmp-99999999999``): not a name runscore gave
        # its file, so not one to remove. It was a traceback of every write beside it.
        return False
    return False


def removed_words(path: str, pid: int) -> str:
    """What is said on stderr of a temporary file of a killed process, once removed."""
    return (
        f"{quote_path(path)}: removed: a temporary file of runscore process {pid}, "
        "which ended before it finished (killed)"
    )


def make(kind: str, folder: str | None = None) -> tuple[int, str]:
    """A new spool file of ``kind`` (``stdin``, ``clean``, ``tail``) in ``folder`` (the
    system's temp folder by default), open for writing: ``(fd, path)``, as
    ``tempfile.mkstemp`` gives them. Its random part keeps it apart from this process's
    other spools. The first of a kind in a folder first removes (``sweep``) those that
    killed processes left."""
    folder = folder or tempfile.gettempdir()
    key = (kind, os.path.abspath(folder))
    with _swept_lock:
        first = key not in _swept
        _swept.add(key)
    if first:
        sweep(kind, folder)
    return tempfile.mkstemp(prefix=f"runscore-{kind}-{os.getpid()}-", suffix=".jsonl", dir=folder)


def sweep(kind: str, folder: str) -> list[str]:
    """Remove the spools of ``kind`` in ``folder`` whose process is gone, saying each;
    returns their paths. One of a process that runs (its PID reused since included) stays;
    so does one of another user (not ours to remove, also where the folder would let us:
    root's) and a name that holds no PID (an older runscore's: whose it is cannot be
    told)."""
    pattern = re.compile(rf"runscore-{re.escape(kind)}-(\d+)-[a-z0-9_]+\.jsonl")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed: list[str] = []
    uid = os.getuid()
    for name in sorted(names):
        m = pattern.fullmatch(name)
        if m is None or not process_gone(int(m.group(1))):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours: nothing to say
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != uid:
                continue
            os.unlink(path)
            removed.append(path)
            notes.say(removed_words(path, int(m.group(1))))
    return removed
