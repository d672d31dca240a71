"""The history's lock is its lock file at ``H.lock``: a lock file that cannot be taken is
said before any scoring by every writer; a history with two names (two lock files) is not
appended to; a lock file removed while it was waited for is taken again at its name."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history
from runscore.engine.errors import LockTimeout, UsageError

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"


def _no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring fails the test: a refusal must come before it."""
    from runscore.engine.packs import effectiveness, plugin

    def scored(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scored before the history's lock file was checked")

    monkeypatch.setattr(effectiveness, "_extract", scored)
    monkeypatch.setattr(plugin, "evaluate", scored)


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_extract_and_plugin_score_refuse_a_lock_file_before_scoring(
    run_cli: Any, tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # extract and plugin score found it only when they took the lock, after every run or
    # skill was scored ("h.jsonl.lock: Is a directory"); pipeline said it before scoring.
    _no_scoring(monkeypatch)
    skill = str(fixtures / "plugin" / "async-python-patterns")
    for hist, args in [
        ("h.jsonl", ("extract", str(SAMPLE))),
        ("p.jsonl", ("plugin", "score", skill)),
    ]:
        lock = tmp_path / f"{hist}.lock"
        if kind == "folder":
            lock.mkdir()
            why = "cannot lock the history: Is a directory"
        else:
            os.mkfifo(lock)
            why = "the history lock is not a regular file"
        res = run_cli(*args, "--history", hist)
        assert (res.exit_code, res.stdout) == (2, "")
        assert res.stderr == f"error: {hist}.lock: {why}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl.lock", "p.jsonl.lock"]


def test_a_history_with_two_names_is_not_appended_to(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `--history h.jsonl` and `--history h2.jsonl`, one file, took two lock files: two
    # writers through them appended at once, neither waiting for the other.
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    os.link(tmp_path / "h.jsonl", tmp_path / "h2.jsonl")
    before = (tmp_path / "h.jsonl").read_bytes()
    skill = str(fixtures / "plugin" / "async-python-patterns")
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    for args in [
        ("extract", str(SAMPLE), "--full"),
        ("plugin", "score", skill),
        ("pipeline", tasks, "--out", "out"),
    ]:
        for name in ("h.jsonl", "h2.jsonl"):
            res = run_cli(*args, "--history", name)
            assert (res.exit_code, res.stdout) == (2, ""), res.stderr
            assert res.stderr.splitlines()[-1].startswith(
                f"error: {name}: the history has 2 names (hard links), and runscore locks a "
                "history by its name, so writers through two names would not wait for each "
                "other: copy it to a new file and move that over this one"
            )
    assert (tmp_path / "h.jsonl").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "h.jsonl",
        "h.jsonl.lock",
        "h.jsonl.manifest.json",
        "h2.jsonl",
    ]


def test_a_link_made_after_the_check_is_refused_by_the_append(tmp_path: Path) -> None:
    # The check before scoring passed; the link was made while the runs were scored.
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(b'{"a":1}\n')
    history.check_appendable(str(hist))
    os.link(hist, tmp_path / "h2.jsonl")
    with history.locked(str(hist)), pytest.raises(UsageError) as e:
        history.append_groups(str(hist), [['{"b":2}']])
    assert str(e.value).startswith(f"{hist}: the history has 2 names (hard links)")
    assert hist.read_bytes() == b'{"a":1}\n'


def _lock_file_replaced_before_flock(
    monkeypatch: pytest.MonkeyPatch, lock: Path, hold_new: bool
) -> list[int]:
    """At locked()'s first flock, remove its lock file and (``hold_new``) make a new one at
    the name, held by another open file, as another writer that came meanwhile does.
    Returns the list the holder's fd is put in."""
    real = fcntl.flock
    held: list[int] = []

    def flock(fd: int, op: int) -> None:
        if not held and op & fcntl.LOCK_EX:
            os.unlink(lock)
            new = os.open(lock, os.O_RDWR | os.O_CREAT)
            held.append(new)
            if hold_new:
                real(new, fcntl.LOCK_EX)
        real(fd, op)

    monkeypatch.setattr(history.fcntl, "flock", flock)
    return held


def test_a_lock_file_replaced_while_it_was_taken_is_taken_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The flock was got on the removed file, which no one else opens: this process and
    # the holder of the new lock file each held "the" lock.
    hist = tmp_path / "h.jsonl"
    lock = tmp_path / "h.jsonl.lock"
    lock.write_bytes(b"")
    held = _lock_file_replaced_before_flock(monkeypatch, lock, hold_new=True)
    try:
        with pytest.raises(LockTimeout) as e, history.locked(str(hist), timeout=0):
            pass
    finally:
        for fd in held:
            os.close(fd)
    assert str(e.value) == f"{hist}: another runscore process holds the history lock"


def test_a_lock_file_removed_while_it_was_taken_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = tmp_path / "h.jsonl"
    lock = tmp_path / "h.jsonl.lock"
    lock.write_bytes(b"")
    held = _lock_file_replaced_before_flock(monkeypatch, lock, hold_new=False)
    try:
        with history.locked(str(hist), timeout=0):
            # The file at the name is the one held: a second taker waits for it.
            with pytest.raises(LockTimeout), history.locked(str(hist), timeout=0):
                pass
    finally:
        for fd in held:
            os.close(fd)


def test_repair_in_place_refuses_a_history_with_two_names(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `history repair --in-place` renamed the repaired copy over one name: the other kept
    # the old file, bad lines and all, and the two names were two histories from then on.
    # It is refused as the appenders refuse such a history (exit 2), before its lock file
    # is made; a repair to a new file still works.
    hist = tmp_path / "h.jsonl"
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    with hist.open("ab") as f:
        f.write(b"not json\n")
    os.link(hist, tmp_path / "h2.jsonl")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for name in ("h.jsonl", "h2.jsonl"):
        res = run_cli("history", "repair", "--history", name, "--in-place")
        assert (res.exit_code, res.stdout) == (2, "")
        assert res.stderr == (
            f"error: {name}: the history has 2 names (hard links), and --in-place replaces "
            "the file at this name only, so its other names would keep the old file: repair it "
            "to a new file (--out), or copy it to a new file and move that over this one "
            "(see 'cli history repair --help')\n"
        )
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no lock file
    assert hist.stat().st_nlink == 2
    res = run_cli("history", "repair", "--history", "h.jsonl", "--out", "r.jsonl")
    assert (res.exit_code, res.stdout) == (0, "r.jsonl\n"), res.stderr
    assert b"not json" not in (tmp_path / "r.jsonl").read_bytes()
    # A name made once the lock is held (the check before it passed): refused under it,
    # nothing replaced.
    from runscore.engine import history_tools
    from runscore.engine.errors import UsageError

    os.unlink(tmp_path / "h2.jsonl")
    real = history.locked

    @contextlib.contextmanager
    def linked_meanwhile(path: str, **kwargs: Any) -> Iterator[None]:
        with real(path, **kwargs):
            os.link(path, tmp_path / "h3.jsonl")
            yield

    monkeypatch.setattr(history, "locked", linked_meanwhile)
    with pytest.raises(UsageError) as e:
        history_tools.repair(hist, in_place=True)
    assert str(e.value).startswith(
        f"{hist}: the history has 2 names (hard links), and in_place=True replaces"
    )
    assert hist.read_bytes() == before["h.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "h.jsonl", "h.jsonl.lock", "h.jsonl.manifest.json", "h3.jsonl", "r.jsonl",
    ]  # fmt: skip
