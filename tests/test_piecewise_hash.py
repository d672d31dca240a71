"""``filedigest.PiecewiseSha256``: the history cache's digest of a file's covered prefix.

Hashed on several threads (``of_file``) or fed in any split (``update``), it must give
one digest for one byte string, and differ when any byte or the length differs.
``filedigest.sha256_of``: a file's plain SHA-256 alone (extract's manifest check).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from runscore.engine import filedigest, sources

PW = filedigest.PiecewiseSha256


def _fed(data: bytes, splits: list[int]) -> str:
    h = PW()
    at = 0
    for n in splits:
        h.update(data[at : at + n])
        at += n
    h.update(data[at:])
    return h.hexdigest()


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=700),
    splits=st.lists(st.integers(0, 200), max_size=6),
    piece=st.sampled_from([1, 7, 64, 256]),
    workers=st.sampled_from([1, 2, 3]),
    cut=st.integers(0, 700),
)
def test_any_split_and_any_thread_count_give_one_digest(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    splits: list[int],
    piece: int,
    workers: int,
    cut: int,
) -> None:
    p = tmp_path_factory.mktemp("pw") / "f"
    p.write_bytes(data)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(PW, "PIECE", piece)
        whole = _fed(data, [])
        assert _fed(data, splits) == whole
        k = min(cut, len(data))
        prefix = PW.of_file(str(p), k, workers)
        assert prefix is not None
        assert prefix.hexdigest() == _fed(data[:k], [])
        prefix.update(data[k:])  # continued over the bytes after the prefix
        assert prefix.hexdigest() == whole
        assert PW.of_file(str(p), len(data) + 1, workers) is None  # the file is shorter


def test_a_changed_byte_in_any_piece_or_another_length_changes_it(tmp_path: Path) -> None:
    data = os.urandom(10 * 64 + 5)
    p = tmp_path / "f"
    digests = set()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(PW, "PIECE", 64)
        for at in (0, 63, 64, 300, len(data) - 1):
            changed = bytearray(data)
            changed[at] ^= 1
            p.write_bytes(bytes(changed))
            got = PW.of_file(str(p), len(data), 2)
            assert got is not None
            digests.add(got.hexdigest())
        p.write_bytes(data)
        for n in (len(data), 640, 0):
            got = PW.of_file(str(p), n, 2)
            assert got is not None
            digests.add(got.hexdigest())
    assert len(digests) == 8


def test_it_is_not_the_plain_sha256_and_real_pieces_work(tmp_path: Path) -> None:
    # The default piece size, over more than two pieces: the threaded path for real.
    data = os.urandom(2 * PW.PIECE + 1000)
    p = tmp_path / "f"
    p.write_bytes(data)
    got = PW.of_file(str(p), len(data))
    assert got is not None
    assert got.hexdigest() == _fed(data, [PW.PIECE - 1, 3])
    assert got.hexdigest() != hashlib.sha256(data).hexdigest()


def test_prescan_takes_the_piecewise_digest_when_asked(tmp_path: Path) -> None:
    data = b'{"a": 1}\n' * (3 * sources.CHUNK // 9 + 5)  # several chunks: read ahead
    p = tmp_path / "f.jsonl"
    p.write_bytes(data)
    f = sources.prescan(sources.SourceFile(str(p), "f.jsonl"), piecewise=True)
    assert f.sha256 == _fed(data, [])
    assert f.lines == data.count(b"\n") and f.clean


@pytest.mark.parametrize("size", [0, 1, 4095, 1 << 20, (8 << 20) + 3])
def test_sha256_of_is_the_plain_sha256_of_the_file(tmp_path: Path, size: int) -> None:
    # Across the read size (8 MiB), and what the pre-scan records for the same file.
    data = os.urandom(size)
    p = tmp_path / "f.jsonl"
    p.write_bytes(data)
    want = hashlib.sha256(data).hexdigest()
    assert filedigest.sha256_of(str(p)) == want
    assert sources.prescan(sources.SourceFile(str(p), str(p))).sha256 == want


def test_sha256_of_what_is_no_readable_regular_file_is_none(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: an open without O_NONBLOCK would hang here
    assert filedigest.sha256_of(str(fifo)) is None
    assert filedigest.sha256_of(str(tmp_path)) is None
    assert filedigest.sha256_of(str(tmp_path / "gone.jsonl")) is None
