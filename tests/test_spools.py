"""Spool files in the temp folder (``engine/spools.py``): named with their process's PID,
and the ones a killed process left removed by the next spool of their kind.

The ``kill -9`` itself: ``tests/hardening/test_crash_safety.py``
(``test_a_spool_a_killed_process_left_goes_with_the_next_spool_of_its_kind``).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from runscore.engine import db, notes, sources, spools
from runscore.engine.packs import effectiveness_cache

KINDS = ("stdin", "clean", "tail")


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait(timeout=60)
    return p.pid  # reaped: no process has it now


def test_two_spools_at_once_have_names_of_their_own_with_the_pid(tmp_path: Path) -> None:
    made = [spools.make("clean", str(tmp_path)) for _ in range(2)]
    for fd, _ in made:
        os.close(fd)
    names = [os.path.basename(p) for _, p in made]
    assert len(set(names)) == 2
    assert all(n.startswith(f"runscore-clean-{os.getpid()}-") for n in names), names
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def _spool(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make (and drop) a spool of ``kind`` as runscore does, in the system temp folder."""
    data = tmp_path / "in" / "a.jsonl"
    data.parent.mkdir()
    data.write_bytes(b'{"seq": 1}\n{"seq": 2,}\n{"seq": 3}\n')  # a line that is not JSON
    if kind == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"seq": 1}\n')))
        (f,), _ = sources.discover(["-"], stdin=True)
        os.unlink(f.path)
    elif kind == "clean":
        # A column of another type than JSON: a dirty file's lines are checked in Python.
        found, _ = sources.discover([str(data)])
        for f in found:
            sources.prescan(f)
        res = sources.read_jsonl(db.connect(), found, "t", {"seq": "BIGINT"})
        assert [i.line for i in res.skipped] == [2]
    else:
        with effectiveness_cache._tail_copy(str(data), 0) as (_, tail):
            assert tail.lines == 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_spool_removes_the_ones_killed_processes_left_of_its_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(spools, "_swept", set())
    said: list[str] = []
    monkeypatch.setattr(notes, "say", said.append)
    dead = _dead_pid()
    left = {k: temp / f"runscore-{k}-{dead}-abcd1234.jsonl" for k in KINDS}
    stays = [
        f"runscore-{kind}-{os.getpid()}-abcd1234.jsonl",  # a process that runs: this one
        f"runscore-{kind}-k2j4h5g6.jsonl",  # no PID (an older runscore's): whose is unknown
        f"runscore-{kind}-{dead}-abcd1234.txt",  # not a name runscore gives
    ]
    for p in [*left.values(), *(temp / n for n in stays)]:
        p.write_text("{}\n")

    _spool(kind, tmp_path, monkeypatch)
    assert said == [
        f"{left[kind]}: removed: a temporary file of runscore process {dead}, which ended "
        "before it finished (killed)"
    ]
    others = [p.name for k, p in left.items() if k != kind]  # left to their own kind
    assert sorted(p.name for p in temp.iterdir()) == sorted([*stays, *others])
    # Once a process: a spool per dirty file listed the temp folder once per file.
    left[kind].write_text("{}\n")
    fd, path = spools.make(kind)
    os.close(fd)
    os.unlink(path)
    assert left[kind].exists() and len(said) == 1


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root")
def test_another_users_spool_stays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root may remove any file in a sticky /tmp: one of another user's is not runscore's
    # to remove, whatever its PID says.
    said: list[str] = []
    monkeypatch.setattr(notes, "say", said.append)
    theirs = tmp_path / f"runscore-stdin-{_dead_pid()}-abcd1234.jsonl"
    theirs.write_text("{}\n")
    os.chown(theirs, 65534, 65534)
    assert spools.sweep("stdin", str(tmp_path)) == []
    assert theirs.exists() and said == []
