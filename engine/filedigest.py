"""Files' digests: one that several cores can take at once (the history cache's check),
and a file's plain SHA-256 alone (``sha256_of``: extract's check of a known file).

A report that finds its history grown since the cache was written must check that the
bytes the cache covers did not change (a grown file cannot be told from an edited one by
its identity). That is a SHA-256 pass over hundreds of MB, most of what such a report
costs. ``PiecewiseSha256`` is SHA-256 over the SHA-256 of each 16 MiB piece, so a file's
pieces are hashed on every core at once (hashlib and ``os.pread`` release the GIL):
600 MB in 0.24 s instead of 0.45 s on two cores.

Tried and not kept: starting the hash on the idle core while the CLI imports DuckDB and
pyarrow. The imports hold the GIL, so the hashing thread ran at half speed, the cached
report (which needs no hash) got 0.15 s slower, and the grown one gained ~0.02 s.
"""

from __future__ import annotations

import hashlib
import os
import stat


def _pread_exact(fd: int, n: int, offset: int) -> bytes:
    """``n`` bytes from ``offset`` (fewer only at the end of the file). pread has no
    shared file offset, so threads can read one descriptor at once."""
    parts = [os.pread(fd, n, offset)]
    got = len(parts[0])
    while got < n and parts[-1]:
        parts.append(os.pread(fd, n - got, offset + got))
        got += len(parts[-1])
    return parts[0] if len(parts) == 1 else b"".join(parts)


class PiecewiseSha256:
    """SHA-256 over the SHA-256 of each ``PIECE`` bytes of the data, and its length.

    As strong as SHA-256 (a collision of this is one of SHA-256), but the pieces of a
    file's prefix can be hashed on several threads at once (``of_file``). Fed
    sequentially by ``update`` (any split), it gives the same digest, so a digest of a
    prefix can be continued over the bytes appended after it.
    """

    PIECE = 16 << 20
    _TAG = b"runscore piecewise sha256\0"

    def __init__(self) -> None:
        self._piece = self.PIECE  # fixed per object (tests change the class's)
        self._done: list[bytes] = []
        self._cur = hashlib.sha256()
        self._cur_n = 0

    def update(self, data: bytes) -> None:
        view = memoryview(data)
        while len(view):
            take = min(len(view), self._piece - self._cur_n)
            self._cur.update(view[:take])
            self._cur_n += take
            view = view[take:]
            if self._cur_n == self._piece:
                self._done.append(self._cur.digest())
                self._cur, self._cur_n = hashlib.sha256(), 0

    def hexdigest(self) -> str:
        h = hashlib.sha256(self._TAG + self._piece.to_bytes(8, "big"))
        for d in self._done:
            h.update(d)
        if self._cur_n:
            h.update(self._cur.digest())
        h.update((len(self._done) * self._piece + self._cur_n).to_bytes(8, "big"))
        return h.hexdigest()

    @classmethod
    def of_file(cls, path: str, size: int, workers: int = 0) -> PiecewiseSha256 | None:
        """The digest of exactly the first ``size`` bytes of ``path``, ready to continue;
        None if the file is shorter. Whole pieces are hashed on ``workers`` threads
        (default: one per core, at most 4)."""
        workers = workers or min(4, os.cpu_count() or 1)
        out = cls()
        piece = out._piece
        whole, rest = divmod(size, piece)
        fd = os.open(path, os.O_RDONLY)
        try:

            def one(i: int) -> bytes | None:
                data = _pread_exact(fd, piece, i * piece)
                return hashlib.sha256(data).digest() if len(data) == piece else None

            if whole > 1 and workers > 1:
                from concurrent.futures import ThreadPoolExecutor  # local: big files only

                with ThreadPoolExecutor(workers, thread_name_prefix="runscore-digest") as pool:
                    digests = list(pool.map(one, range(whole)))
            else:
                digests = [one(i) for i in range(whole)]
            done = [d for d in digests if d is not None]
            if len(done) != whole:
                return None  # the file is shorter than ``size`` (or shrank meanwhile)
            out._done = done
            if rest:
                tail = _pread_exact(fd, rest, whole * piece)
                if len(tail) != rest:
                    return None
                out.update(tail)
        finally:
            os.close(fd)
        return out


#: Read size of ``sha256_of`` (at most; a smaller file is read with a buffer of its size:
#: allocating 8 MiB per small run file cost more than reading it, sources.prescan).
_READ = 8 << 20


def sha256_of(path: str) -> str | None:
    """The plain SHA-256 of a regular file's bytes, or None when it is not one or cannot
    be read. Only the hash: extract's check of a file its manifest knows, whose times
    moved (or were taken too close to its last read to be trusted). Such a file is
    usually unchanged, and then needs none of the pre-scan's byte scans (the not-JSON
    search alone is ~2x the hash); a changed one is pre-scanned when it is read."""
    try:
        # O_NONBLOCK: a FIFO put where a run file was must not block the open (it is not
        # a regular file, so it is refused right after). Regular files ignore the flag.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        h = hashlib.sha256()
        # A buffer of the file's size (up to _READ), not hashlib.file_digest's fixed
        # 256 KiB: 10k small run files hashed in 0.19 s against 0.25-0.28 s.
        buf = bytearray(min(_READ, st.st_size + 1))
        view = memoryview(buf)
        with open(fd, "rb", buffering=0, closefd=False) as f:
            while n := f.readinto(buf):
                h.update(view[:n])  # releases the GIL for all but the smallest reads
        return h.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)
