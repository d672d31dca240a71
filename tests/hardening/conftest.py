"""Helpers for the hardening suite (test files cannot import each other).

Run logs are generated here from a few templates whose scores are known from the spec:
``run_events(run_id)`` is a complete run where guardian (haiku, $0.01) reports one
useful finding that a fix confirms and sage approves with no findings.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness_history as eh

#: The 22 history fields of spec §4, in order.
RECORD_FIELDS = list(eh.HISTORY_FIELDS)


def run_events(
    run_id: str,
    *,
    archetype: str = "guardian",
    model: str = "haiku",
    cost: Any = 0.01,
    complete: bool = True,
    ts: str = "2026-04-03T10:00:00Z",
) -> list[dict[str, Any]]:
    """A small valid run: one reviewer with one useful, fixed finding; sage approves."""
    evs: list[dict[str, Any]] = [
        {"ts": ts, "run_id": run_id, "seq": 1, "parent": [], "type": "run.start"},
        {
            "ts": ts,
            "run_id": run_id,
            "seq": 2,
            "parent": [1],
            "type": "agent.complete",
            "agent": archetype,
            "data": {"archetype": archetype, "model": model, "tokens": 100, "cost_usd": cost},
        },
        {
            "ts": ts,
            "run_id": run_id,
            "seq": 3,
            "parent": [2],
            "type": "review.verdict",
            "agent": archetype,
            "data": {
                "archetype": archetype,
                "verdict": "needs_changes",
                "findings": [
                    {"severity": "warning", "fix_required": True, "description": "check input"}
                ],
            },
        },
        {
            "ts": ts,
            "run_id": run_id,
            "seq": 4,
            "parent": [2],
            "type": "review.verdict",
            "agent": "sage",
            "data": {"archetype": "sage", "verdict": "approved", "findings": []},
        },
        {
            "ts": ts,
            "run_id": run_id,
            "seq": 5,
            "parent": [3],
            "type": "fix.applied",
            "data": {"finding": "check input"},
        },
    ]
    if complete:
        evs.append({"ts": ts, "run_id": run_id, "seq": 6, "parent": [5], "type": "run.complete"})
    return evs


def dump_lines(events: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def write_jsonl(path: Path, events: Iterable[dict[str, Any]], extra: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump_lines(events) + extra)
    return path


def corpus(folder: Path, files: int, runs_per_file: int, prefix: str = "r") -> list[Path]:
    """``files`` run-log files of ``runs_per_file`` complete runs each (distinct ids)."""
    out = []
    for i in range(files):
        evs: list[dict[str, Any]] = []
        for j in range(runs_per_file):
            evs += run_events(f"{prefix}{i:03d}-{j:02d}")
        out.append(write_jsonl(folder / f"{prefix}{i:03d}.jsonl", evs))
    return out


def current_records(history: Path) -> list[tuple[Any, ...]]:
    """The current record per (run, archetype, version), every field but ``ts``."""
    con = eh.connect()
    eh.load_history(con, history)
    cols = [c for c in RECORD_FIELDS if c != "ts"]
    rows = con.execute(
        f"SELECT {', '.join(cols)} FROM history_current ORDER BY run_id, archetype"
    ).fetchall()
    return [tuple(r) for r in rows]


def history_keys(history: Path) -> list[tuple[str, str, str, str]]:
    """(run_id, archetype, scoring_version, events_sha256) of every runscore record line."""
    keys = []
    for raw in history.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and "events_sha256" in d:  # whole runscore records only
            keys.append((d["run_id"], d["archetype"], d["scoring_version"], d["events_sha256"]))
    return keys


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["RUNSCORE_THREADS"] = "1"  # 2 shared cores: keep each subprocess to one thread
    e.update(extra)
    return e


def runscore(*args: str, cwd: Path | None = None, **extra_env: str) -> subprocess.Popen[bytes]:
    """Start ``python -m runscore ARGS`` (a real process: killable, lockable)."""
    return subprocess.Popen(
        [sys.executable, "-m", "runscore", *args],
        cwd=cwd,
        env=env(**extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run_to_end(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    p = runscore(*args, cwd=cwd)
    out, err = p.communicate(timeout=300)
    return p.returncode, out.decode(), err.decode()


_HOLD_LOCK = """
import fcntl, os, sys
with open("/proc/self/comm", "w") as comm:
    comm.write(sys.argv[2])  # as a job or an extract is named: not "another python3.12"
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
sys.stdout.write("locked\\n")
sys.stdout.flush()
sys.stdin.read()  # held until the test closes our stdin
"""


@contextlib.contextmanager
def _held_by(argv: list[str]) -> Iterator[int]:
    """Run ``argv``, a process that takes a lock, prints ``locked`` and holds it until its
    stdin closes; yields its PID once held."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline() == b"locked\n"
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


@contextlib.contextmanager
def lock_held_elsewhere(lock_file: Path, command: str = "runscore") -> Iterator[int]:
    """Hold the flock on ``lock_file`` (``history.locked``'s file, ``PATH.lock``) in
    another process, as another job or a hand-run extract does; yields its PID once held.
    ``command``: the process's command name (``/proc/PID/comm``, at most 15 bytes)."""
    with _held_by([sys.executable, "-c", _HOLD_LOCK, str(lock_file), command]) as pid:
        yield pid


@contextlib.contextmanager
def flock_held(lock_file: Path) -> Iterator[int]:
    """Hold the flock on ``lock_file`` with ``flock(1)``, a process that is not runscore;
    yields its PID once held. Skips the test where ``flock`` is not installed."""
    if shutil.which("flock") is None:
        pytest.skip("flock(1) is not installed")
    # flock takes the lock, then runs the shell, which says so and waits for our stdin.
    with _held_by(["flock", str(lock_file), "sh", "-c", "echo locked; exec cat >/dev/null"]) as pid:
        yield pid


class Helpers:
    RECORD_FIELDS = RECORD_FIELDS
    lock_held_elsewhere = staticmethod(lock_held_elsewhere)
    flock_held = staticmethod(flock_held)
    run_events = staticmethod(run_events)
    dump_lines = staticmethod(dump_lines)
    write_jsonl = staticmethod(write_jsonl)
    corpus = staticmethod(corpus)
    current_records = staticmethod(current_records)
    history_keys = staticmethod(history_keys)
    runscore = staticmethod(runscore)
    run_to_end = staticmethod(run_to_end)
    env = staticmethod(env)
    assert_whole_records = staticmethod(lambda h, allowed_bad=(): assert_whole_records(h))


@pytest.fixture
def hh() -> type[Helpers]:
    return Helpers


def assert_whole_records(history: Path, allowed_bad: Sequence[int] = ()) -> None:
    """Every line of the history that parses is a whole record (all 22 fields)."""
    for n, raw in enumerate(history.read_bytes().split(b"\n"), start=1):
        if not raw:
            continue
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        assert list(d) == RECORD_FIELDS, f"line {n} is not a whole record"
