"""Concurrency: many writers into one history never tear, interleave or duplicate.

Eight real ``runscore extract`` processes start at once over overlapping inputs (every
file is read by three of them) into one history. The history lock serialises the
appends and the idempotency check runs under it, so every line is whole, no record is
written twice, and the current records equal one sequential run's.

Two nightly jobs at once: the second waits (``--wait``) or exits 4 "already running".
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history, history_tools

PROCS = 8


@pytest.mark.slow
def test_eight_extracts_over_overlapping_inputs(tmp_path: Path, hh: Any) -> None:
    files = hh.corpus(tmp_path / "events", files=24, runs_per_file=3)  # 72 runs
    reference = tmp_path / "reference.jsonl"
    rc, _, err = hh.run_to_end("extract", *map(str, files), "--history", str(reference))
    assert rc == 0, err
    expected = hh.current_records(reference)
    assert len(expected) == 144

    hist = tmp_path / "shared.jsonl"
    procs = []
    for i in range(PROCS):
        mine = [str(files[(3 * i + k) % len(files)]) for k in range(9)]
        procs.append(hh.runscore("extract", *mine, "--history", str(hist)))
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()

    check = history_tools.check(str(hist))
    assert check.issues == [] and check.duplicates == []  # nothing torn or interleaved
    hh.assert_whole_records(hist)
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys)) == 144
    assert hh.current_records(hist) == expected


def _project(root: Path, hh: Any) -> None:
    hh.corpus(root / ".archeflow" / "events", files=3, runs_per_file=2)


def test_second_nightly_exits_4_already_running(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    _project(tmp_path / "proj", hh)
    out = tmp_path / "out"
    out.mkdir()
    with history.locked(str(out / ".nightly"), timeout=0):
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
    assert res.exit_code == 4
    # The lock file's path names the folder it locks: the folder was named before it too.
    assert res.stderr == (
        "error: nightly already running: another runscore process holds the lock on the "
        f"output directory, {out}/.nightly.lock; gave up after 0s (use --wait SECONDS to "
        "wait longer)\n"
    )
    assert not (out / "2026-04-05").exists()
    # The history's own nightly lock: another job with another --out is turned away too.
    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    with history.locked(str(hist) + ".nightly", timeout=0):
        res = run_cli("nightly", "--root", "proj", "--out", "out2", "--date", "2026-04-05")
    assert res.exit_code == 4
    assert res.stderr == (
        "error: nightly already running: another runscore process holds the lock on a "
        "history, proj/.archeflow/memory/effectiveness.jsonl.nightly.lock; gave up after 0s "
        "(use --wait SECONDS to wait longer)\n"
    )
    assert not hist.exists()  # nothing was extracted


def test_a_nightly_turned_away_by_a_history_lock_names_the_process_that_holds_it(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """Spec-silent. A history's nightly lock held by another process (another job, with
    another --out) is another nightly job's lock (README, exit 4: the job stops before it
    reads or writes anything), said as "another runscore process holds the lock": which
    one was left to find. Its PID is said now, as the system (/proc/locks) tells it."""
    _project(tmp_path / "proj", hh)
    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    hist.parent.mkdir()
    with hh.lock_held_elsewhere(Path(f"{hist}.nightly.lock")) as pid:
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
    assert (res.exit_code, res.stdout) == (4, "")
    assert res.stderr == (
        f"error: nightly already running: another runscore process (PID {pid}) holds the "
        "lock on a history, proj/.archeflow/memory/effectiveness.jsonl.nightly.lock; gave up "
        "after 0s (use --wait SECONDS to wait longer)\n"
    )
    assert not hist.exists() and not (tmp_path / "out" / "2026-04-05").exists()


def _tree(base: Path) -> list[str]:
    return sorted(str(p.relative_to(base)) for p in base.rglob("*"))


def test_a_nightly_turned_away_by_a_history_lock_leaves_no_output_folder(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """README: a second job "exits 4, before it reads or writes anything". One turned away
    by a history's nightly lock had already made a new --out folder (its parents too) and
    the output lock file in it, which stayed. The history locks are taken first now, and
    the output folder is made only once they are held."""
    _project(tmp_path / "proj", hh)
    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    hist.parent.mkdir()
    with hh.lock_held_elsewhere(Path(f"{hist}.nightly.lock")):
        before = _tree(tmp_path)
        res = run_cli("nightly", "--root", "proj", "--out", "new/out", "--date", "2026-04-05")
        assert (res.exit_code, res.stdout) == (4, "")
        assert _tree(tmp_path) == before
    # The job's output folder, when it is there, is made no different: its lock file is
    # made only once the history's lock is held.
    (tmp_path / "out").mkdir()
    with hh.lock_held_elsewhere(Path(f"{hist}.nightly.lock")):
        before = _tree(tmp_path)
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
        assert (res.exit_code, res.stdout) == (4, "")
        assert _tree(tmp_path) == before


def test_a_nightly_whose_output_folder_cannot_be_made_makes_nothing(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """An --out that cannot be made (under a file) is exit 2 before any lock is taken: the
    history's folder and its nightly lock file, which the job makes for a project's
    first night, are not made either (the output folder is made after the history locks)."""
    _project(tmp_path / "proj", hh)
    (tmp_path / "afile").write_text("x\n")
    before = _tree(tmp_path)
    res = run_cli("nightly", "--root", "proj", "--out", "afile/out", "--date", "2026-04-05")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == "error: --out afile/out: cannot create it: Not a directory\n"
    assert _tree(tmp_path) == before


def test_a_writer_turned_away_by_the_history_lock_names_the_process_that_holds_it(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """Spec-silent. `extract` (every command that appends to a history under its lock) said
    "another runscore process holds the history lock" (exit 4) and left the user to find
    which; its PID is said now, when the system tells it."""
    _project(tmp_path / "proj", hh)
    with hh.lock_held_elsewhere(tmp_path / "h.jsonl.lock") as pid:
        args = ("extract", "proj/.archeflow/events", "--history", "h.jsonl", "--lock-timeout", "0")
        res = run_cli(*args)
    assert (res.exit_code, res.stdout) == (4, "")
    assert res.stderr == (
        f"error: h.jsonl: another runscore process (PID {pid}) holds the history lock\n"
    )
    assert not (tmp_path / "h.jsonl").exists()


def test_a_lock_held_by_a_process_that_is_not_runscore_names_its_command(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """Spec-silent. A history's lock held by `flock(1)` (a backup script, a cron wrapper)
    was said to be held by "another runscore process (PID N)". What is known is said now:
    its PID and its command name (/proc/PID/comm), in every exit-4 lock error."""
    _project(tmp_path / "proj", hh)
    with hh.flock_held(tmp_path / "h.jsonl.lock") as pid:
        args = ("extract", "proj/.archeflow/events", "--history", "h.jsonl", "--lock-timeout", "0")
        res = run_cli(*args)
    assert (res.exit_code, res.stdout) == (4, "")
    assert res.stderr == f"error: h.jsonl: the history lock is held by PID {pid} (flock)\n"
    assert not (tmp_path / "h.jsonl").exists()
    # A history's nightly lock: not "nightly already running", which flock is not.
    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    hist.parent.mkdir()
    with hh.flock_held(Path(f"{hist}.nightly.lock")) as pid:
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
    assert (res.exit_code, res.stdout) == (4, "")
    assert res.stderr == (
        "error: the lock on a history, proj/.archeflow/memory/effectiveness.jsonl.nightly.lock, "
        f"is held by PID {pid} (flock); gave up after 0s (use --wait SECONDS to wait longer)\n"
    )
    assert not hist.exists() and not (tmp_path / "out" / "2026-04-05").exists()


def test_a_lock_holder_is_runscore_by_its_command_or_its_module(tmp_path: Path) -> None:
    """A runscore run as its console script (command `runscore`) or as `python -m runscore`
    (command `python`) is told from another program holding the lock by its name."""
    exe = Path(sys.executable)
    procs = {
        "script": [str(exe.parent / "runscore"), "extract", "-", "--history", "h.jsonl"],
        "module": [str(exe), "-m", "runscore", "extract", "-", "--history", "h.jsonl"],
        "other": [str(exe), "-c", "import sys; sys.stdin.read()"],
    }
    commands = {}
    for kind, argv in procs.items():
        # Each reads its stdin (extract spools it first) until it is closed. Written more
        # than a pipe holds: the write returns once the process reads, so it runs argv.
        p = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdin is not None
        p.stdin.write(b"\n" * (1 << 20))
        p.stdin.flush()
        commands[kind] = history.holder_command(p.pid)
        p.communicate(timeout=120)
    assert commands == {"script": "runscore", "module": "runscore", "other": exe.name[:15]}
    assert history.holder_command(2**22 + 1) is None  # no such process (above pid_max)


def test_a_lock_holder_is_said_by_what_is_known_of_it() -> None:
    # No PID (/proc/locks not there, or this process): the lock file is runscore's own.
    lock = "the history lock"
    assert history.held_by(lock, None, None) == "another runscore process holds the history lock"
    assert history.held_by(lock, 42, "runscore") == (
        "another runscore process (PID 42) holds the history lock"
    )
    assert history.held_by(lock, 42, "flock") == "the history lock is held by PID 42 (flock)"
    # A PID whose command cannot be read (/proc mounted hidepid): not said to be runscore.
    assert history.held_by(lock, 42, None) == "the history lock is held by PID 42"
    # A process may name itself anything: said as a path is, quoted when it must be.
    assert history.held_by(lock, 42, "a\tb") == 'the history lock is held by PID 42 ("a\\tb")'


def test_second_nightly_waits_with_wait(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    _project(tmp_path / "proj", hh)
    out = tmp_path / "out"
    out.mkdir()
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with history.locked(str(out / ".nightly"), timeout=0):
            held.set()
            release.wait(30)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(30)
    threading.Timer(0.5, release.set).start()
    res = run_cli(
        "nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05", "--wait", "60"
    )
    t.join()
    assert res.exit_code == 0, res.stderr
    assert release.is_set()  # it ran only once the other job let go
    assert (out / "2026-04-05" / "index.md").is_file()


@pytest.mark.slow
def test_two_nightly_processes_at_once(tmp_path: Path, hh: Any) -> None:
    _project(tmp_path / "proj", hh)
    args = ("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
    for wait in ("0", "120"):
        procs = [hh.runscore(*args, "--wait", wait, cwd=tmp_path) for _ in range(2)]
        results = []
        for p in procs:
            _, err = p.communicate(timeout=300)
            results.append((p.returncode, err.decode()))
        codes = sorted(rc for rc, _ in results)
        if wait == "0":
            assert codes in ([0, 0], [0, 4])  # 4 only if they overlapped
            for rc, err in results:
                assert rc == 0 or "nightly already running" in err
        else:
            assert codes == [0, 0]  # the second waited for the first
        day = tmp_path / "out" / "2026-04-05"
        log = json.loads((day / "runlog.json").read_text(encoding="utf-8"))
        assert all((day / o["path"]).is_file() for o in log["outputs"])
    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys)) == 12
    time.sleep(0)  # (no timing assertions anywhere in this file)


def test_a_wait_of_nan_is_refused_not_waited_for_ever(tmp_path: Path, hh: Any) -> None:
    # `--wait nan` / `--lock-timeout nan` passed click's checks (nan >= 0 is not false to
    # it), and a deadline of now + nan is never reached: with the lock held by another
    # job, nightly and extract waited for ever. So did `inf`, which the lock took. They
    # are usage errors (exit 2), said as the arguments are read.
    import subprocess
    import sys

    _project(tmp_path / "proj", hh)
    out = tmp_path / "out"
    out.mkdir()
    hist = tmp_path / "h.jsonl"
    cli = [sys.executable, "-m", "runscore.cli.main"]
    with history.locked(str(out / ".nightly"), timeout=0), history.locked(str(hist), timeout=0):
        for value in ("nan", "inf"):
            runs = [
                ["nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05", "--wait"],
                ["extract", "proj/.archeflow/events", "--history", str(hist), "--lock-timeout"],
            ]
            for args in runs:
                try:
                    res = subprocess.run(
                        [*cli, *args, value], cwd=tmp_path, capture_output=True, text=True,
                        timeout=30,
                    )  # fmt: skip
                except subprocess.TimeoutExpired:
                    pytest.fail(f"{args[0]} {value} still waiting after 30 s")
                assert res.returncode == 2, res.stderr
                assert res.stdout == ""
                assert res.stderr == (
                    f"error: Invalid value for '{args[-1]}': \"{value}\" is not a finite number "
                    f"of seconds, 0 or more (see 'runscore {args[0]} --help')\n"
                )
    assert not (out / "2026-04-05").exists()
    assert not hist.exists()  # nothing extracted
