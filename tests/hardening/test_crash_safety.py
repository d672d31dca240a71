"""Crash safety: ``kill -9`` at random points never costs the history anything.

A real ``python -m runscore extract`` process is killed at random moments (a fixed
seed: the same delays every run) over a corpus big enough for the kills to land in
start-up, reading, scoring, appending and the manifest write. After every kill the
history must be readable, hold only whole records (a torn last line is skipped by the
readers, never read as a record), and the next uninterrupted run must finish the work
idempotently: the current records equal an uninterrupted run's, none twice.

The same for ``runscore nightly``: a killed job leaves the day's folder complete
(the previous one) or absent, never half-written.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history_tools
from runscore.engine.packs import effectiveness_history as eh

SEED = 20260405
KILLS = 15


def _kill_after(proc: Any, delay: float) -> bool:
    """Kill -9 after ``delay`` seconds unless it finished; True when it was killed."""
    try:
        proc.wait(timeout=delay)
    except Exception:  # still running
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True
    return False


@pytest.mark.slow
def test_kill_9_during_extract_keeps_history_whole_and_converges(tmp_path: Path, hh: Any) -> None:
    events = tmp_path / "events"
    hh.corpus(events, files=20, runs_per_file=10)  # 200 runs, 400 records
    reference = tmp_path / "reference.jsonl"
    start = time.monotonic()
    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(reference))
    full = time.monotonic() - start  # only used to spread the kill points
    assert rc == 0, err
    expected = hh.current_records(reference)
    assert len(expected) == 400

    hist = tmp_path / "memory" / "effectiveness.jsonl"
    rng = random.Random(SEED)
    killed = 0
    for _ in range(KILLS):
        proc = hh.runscore("extract", str(events), "--history", str(hist))
        killed += _kill_after(proc, rng.uniform(0.05, full * 1.1))
        if hist.exists():
            hh.assert_whole_records(hist)
            con = eh.connect()
            load = eh.load_history(con, hist)  # readable: skips, never raises
            for issue in load.issues:  # only a torn append can be bad
                assert issue.reason.startswith(("not JSON", "not valid UTF-8")), issue
    assert killed > 0  # the delays are fixed: some kills land before the end

    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(hist))
    assert rc == 0, err
    assert hh.current_records(hist) == expected
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys)) == 400  # no record written twice

    # A re-run changes nothing; repair leaves exactly the same current records.
    before = hist.read_bytes()
    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(hist))
    assert rc == 0 and hist.read_bytes() == before, err
    history_tools.repair(str(hist), in_place=True)
    assert history_tools.check(str(hist)).ok
    assert hh.current_records(hist) == expected


def _day_is_whole(day: Path) -> None:
    """A day folder is either absent or complete: its run log lists files that exist."""
    if not day.exists():
        return
    log = json.loads((day / "runlog.json").read_text(encoding="utf-8"))
    for o in log["outputs"]:
        assert (day / o["path"]).is_file(), o
    assert (day / "index.md").read_text(encoding="utf-8").startswith("# runscore nightly")


@pytest.mark.slow
def test_kill_9_during_nightly_leaves_the_day_folder_old_or_new(tmp_path: Path, hh: Any) -> None:
    root = tmp_path / "proj"
    hh.corpus(root / ".archeflow" / "events", files=20, runs_per_file=10)
    (root / ".archeflow" / "teams").mkdir(parents=True)
    (root / ".archeflow" / "teams" / "t.yaml").write_text("check: [guardian, sage]\n")
    out = tmp_path / "out"
    args = ("nightly", "--root", str(root), "--out", str(out), "--date", "2026-04-05")
    start = time.monotonic()
    rc, _, err = hh.run_to_end(*args)
    full = time.monotonic() - start
    assert rc == 0, err
    day = out / "2026-04-05"
    first = {p.relative_to(day): p.read_bytes() for p in day.rglob("*") if p.is_file()}

    rng = random.Random(SEED)
    for i in range(4):
        if i == 2:  # new input: the next complete run has a different day folder
            hh.write_jsonl(root / ".archeflow" / "events" / "late.jsonl", hh.run_events("late"))
        proc = hh.runscore(*args)
        _kill_after(proc, rng.uniform(0.05, full))
        _day_is_whole(day)
        if i < 2 and day.exists():  # same inputs: same files (the log's times aside)
            now = {p.relative_to(day) for p in day.rglob("*") if p.is_file()}
            assert now == set(first)

    rc, _, err = hh.run_to_end(*args)
    assert rc == 0, err
    _day_is_whole(day)
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".2026")]
    assert leftovers == []  # stale temporary folders were cleaned up
    log = json.loads((day / "runlog.json").read_text(encoding="utf-8"))
    assert log["status"] == "ok"
    assert len(hh.current_records(root / ".archeflow/memory/effectiveness.jsonl")) == 402


def test_a_failed_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    # The manifest is written whole (temp file + rename); when the rename fails (a folder
    # where the manifest belongs, say) the temp file went on lying beside it.
    from runscore.engine import history

    target = tmp_path / "effectiveness.jsonl.manifest.json"
    target.mkdir()
    with pytest.raises(OSError):
        history.atomic_write_text(str(target), '{"files": {}}')
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    assert target.is_dir() and not any(target.iterdir())


#: Run in a child process (``python -c``, argv: CHUNK CUT SKIP, then runscore's
#: arguments): every write of an append's records (not the newline that closes off a
#: torn line) after the first SKIP is cut after CUT of its bytes and the process killed
#: by SIGKILL, as Linux ends a write between two pages when the writer gets one: a
#: deterministic ``kill -9`` in the middle of a write(2). Appends are written in chunks
#: of CHUNK bytes (whole record groups).
_DIE_MID_WRITE = """
import os, signal, sys
from runscore.engine import history
CHUNK, CUT, SKIP = (int(x) for x in sys.argv[1:4])
history.WRITE_CHUNK = CHUNK
seen = [0]
def cut_write(fd, data):
    if len(data) > 1:
        seen[0] += 1
        if seen[0] > SKIP:
            os.write(fd, bytes(data)[:CUT])
            os.kill(os.getpid(), signal.SIGKILL)
    os.write(fd, data)
history._write_all = cut_write
"""
_RUN_CLI = """
import runpy
sys.argv = ["runscore", *sys.argv[4:]]
runpy.run_module("runscore", run_name="__main__")
"""


def _killed_mid_write(hh: Any, code: str, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _DIE_MID_WRITE + code, *args],
        env=hh.env(),
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()


def test_an_extract_killed_mid_write_leaves_no_bad_line_once_the_next_one_ran(
    tmp_path: Path, hh: Any
) -> None:
    # A kill -9 inside the write(2) of an append left part of a record as a torn last
    # line; the next extract closed it off and appended after it, so the history held a
    # bad line for good: `history check` exit 1 and every report listing it until a repair.
    events = tmp_path / "events"
    hh.corpus(events, files=3, runs_per_file=2)  # 6 runs, 12 records
    reference = tmp_path / "reference.jsonl"
    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(reference))
    assert rc == 0, err
    expected = hh.current_records(reference)
    hist = tmp_path / "h.jsonl"
    rc, _, err = hh.run_to_end("extract", str(events / "r000.jsonl"), "--history", str(hist))
    assert rc == 0, err
    first = hist.read_bytes()
    line = len(first.split(b"\n")[0]) + 1
    # The next append, one run (two lines) per write, cut in its first write's second line.
    cut = str(line + line // 2)
    _killed_mid_write(hh, _RUN_CLI, "1", cut, "0", "extract", str(events), "--history", str(hist))
    torn = hist.read_bytes()
    assert torn.startswith(first) and not torn.endswith(b"\n")  # as the kernel leaves it

    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(hist))
    assert rc == 0, err
    rc, out, err = hh.run_to_end("history", "check", str(hist))
    assert (rc, out) == (0, ""), err
    assert err == f"{hist}: 12 line(s), 12 usable (effectiveness/v1: 12); 0 bad, 0 duplicate\n"
    assert hh.current_records(hist) == expected
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys)) == 12


def test_a_write_cut_by_a_kill_is_undone_whole_by_the_next_append(tmp_path: Path, hh: Any) -> None:
    # Every history (pipeline's and plugin's too) appends through append_groups: the
    # groups of the write cut short go, with its torn line; those of earlier writes stay.
    from runscore.engine import history

    hist = tmp_path / "h.jsonl"
    hist.write_bytes(b'{"n":0}\n')
    append = (
        f"with history.locked({str(hist)!r}):\n"
        f"    history.append_groups({str(hist)!r}, "
        "[['{\"n\":1}', '{\"n\":2}'], ['{\"n\":3}', '{\"n\":4}'], ['{\"n\":5}']])\n"
    )
    # A write per group (16 bytes or less); the second is cut after 12 of its bytes.
    _killed_mid_write(hh, append, "16", "12", "1")
    assert hist.read_bytes() == b'{"n":0}\n{"n":1}\n{"n":2}\n{"n":3}\n{"n"'

    with history.locked(str(hist)):
        history.append_groups(str(hist), [['{"n":6}']])
    assert hist.read_bytes() == b'{"n":0}\n{"n":1}\n{"n":2}\n{"n":6}\n'


#: Run in a child process (``python -c``, argv: WHERE, then runscore's arguments): the
#: repair SIGKILLs itself when WHERE is reached, half a file written: in the copy of the
#: history to its backup (``backup``), or in the repaired copy (``copy``).
_DIE_IN_REPAIR = """
import os, runpy, shutil, signal, sys
from runscore.engine import history_tools
WHERE = sys.argv[1]
def half_then_die(src, dst):
    with open(src, "rb") as f, open(dst, "wb") as out:
        data = f.read()
        out.write(data[: len(data) // 2])
    os.kill(os.getpid(), signal.SIGKILL)
if WHERE == "backup":
    shutil.copy2 = lambda src, dst, **kw: half_then_die(src, dst)
else:
    history_tools._copy_lines = lambda src, tmp, keep: half_then_die(src, tmp)
sys.argv = ["runscore", *sys.argv[2:]]
runpy.run_module("runscore", run_name="__main__")
"""


def _killed_in_repair(hh: Any, where: str, *args: str) -> tuple[int, str]:
    """The PID of the repair killed at ``where``, and what it said on stderr first."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _DIE_IN_REPAIR, where, "history", "repair", *args],
        env=hh.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    return proc.pid, err.decode()


def _removed(path: Path, pid: int) -> str:
    return (
        f"{path}: removed: a temporary file of runscore process {pid}, which ended before "
        "it finished (killed)"
    )


def _damaged_history(tmp_path: Path, hh: Any) -> Path:
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)
    hist = tmp_path / "h.jsonl"
    rc, _, err = hh.run_to_end("extract", str(events), "--history", str(hist))
    assert rc == 0, err
    with hist.open("ab") as f:
        f.write(b'{"level":"info","msg":"not a record"}\n')  # a line repair drops
    return hist


def test_a_repair_killed_again_and_again_leaves_one_backup_and_no_temp_file(
    tmp_path: Path, hh: Any
) -> None:
    # Each kill -9 of `history repair --in-place` left its temporary copy (.h.jsonl.tmp-PID)
    # for good, and each try a backup more (the first, killed in the copy, half a history
    # under a backup's name). The next holder of the lock removes a dead process's
    # temporary files, saying so; a backup of the history as it is now is kept, not made again.
    hist = _damaged_history(tmp_path, hh)
    original = hist.read_bytes()

    first, _ = _killed_in_repair(hh, "backup", str(hist), "--in-place")
    (half,) = tmp_path.glob(".h.jsonl.bak-*.tmp-*")  # a temporary file, not a backup
    assert half.name.endswith(f".tmp-{first}")
    assert list(tmp_path.glob("h.jsonl.bak-*")) == []

    second, err = _killed_in_repair(hh, "copy", str(hist), "--in-place")
    assert err == _removed(half, first) + "\n"
    (backup,) = tmp_path.glob("h.jsonl.bak-*")
    assert backup.read_bytes() == original

    third, err = _killed_in_repair(hh, "copy", str(hist), "--in-place")
    assert err == _removed(tmp_path / f".h.jsonl.tmp-{second}", second) + "\n"
    assert list(tmp_path.glob("h.jsonl.bak-*")) == [backup]  # that one, no second
    assert hist.read_bytes() == original  # every kill left the history as it was

    rc, out, err = hh.run_to_end("history", "repair", str(hist), "--in-place")
    assert (rc, out) == (0, f"{hist}\n"), err
    assert err == (
        _removed(tmp_path / f".h.jsonl.tmp-{third}", third)
        + f"\n{hist}:9: dropped: history line skipped: missing run_id; missing archetype; "
        "missing ts; missing composite_score\n"
        f"{hist}: 8 line(s) kept, 1 dropped; backup {backup} (made by an earlier repair "
        "that did not finish: the same bytes)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["events", "h.jsonl", "h.jsonl.lock", backup.name]
    )
    assert backup.read_bytes() == original
    assert hist.read_bytes() == original[: original.rindex(b'{"level"')]


def test_a_temp_file_of_a_killed_repair_goes_with_the_next_writer_or_repair(
    tmp_path: Path, hh: Any
) -> None:
    # Not only a repair: any command that takes the history's lock (here extract) removes
    # it. A repair to --out takes no lock: the next one to that file removes its own kind.
    hist = _damaged_history(tmp_path, hh)
    pid, _ = _killed_in_repair(hh, "copy", str(hist), "--in-place")
    tmp = tmp_path / f".h.jsonl.tmp-{pid}"
    assert tmp.exists()
    rc, _, err = hh.run_to_end("extract", str(tmp_path / "events"), "--history", str(hist))
    assert (rc, err.splitlines()[0]) == (0, _removed(tmp, pid)), err
    assert not tmp.exists()

    out = tmp_path / "r.jsonl"
    pid, _ = _killed_in_repair(hh, "copy", str(hist), "--out", str(out))
    tmp = tmp_path / f".r.jsonl.tmp-{pid}"
    assert tmp.exists() and not out.exists()
    rc, _, err = hh.run_to_end("history", "repair", str(hist), "--out", str(out))
    assert (rc, err.splitlines()[0]) == (0, _removed(tmp, pid)), err
    assert not tmp.exists() and out.exists()


#: Run in a child process (``python -c``, runscore's arguments): killed by SIGKILL as it
#: renames the first of its temporary files (a name that starts with a dot) into place,
#: that file whole beside its target.
_DIE_AT_RENAME = """
import os, runpy, signal, sys
real_replace = os.replace
def replace(src, dst, **kwargs):
    if os.path.basename(os.fspath(src)).startswith("."):
        os.kill(os.getpid(), signal.SIGKILL)
    return real_replace(src, dst, **kwargs)
os.replace = replace
sys.argv = ["runscore", *sys.argv[1:]]
runpy.run_module("runscore", run_name="__main__")
"""

_PIPELINE = ["pipeline", "in/pipeline/tasks.jsonl", "--date", "2026-03-07", "--out", "out"]


@pytest.mark.parametrize(
    "args",
    [
        ["sql", "SELECT * FROM history", "--history", "out/h.jsonl", "--output", "out/q.csv"],
        ["export", "--history", "out/h.jsonl", "--to", "out/e.parquet"],
        ["export", "--history", "out/h.jsonl", "--to", "out/e.duckdb"],
        [*_PIPELINE, "--no-history"],
        ["plugin", "score", "in/plugin", "--out", "out", "--no-history"],
        ["report", "--history", "out/h.jsonl"],  # its cache (RUNSCORE_HISTORY_CACHE=on)
    ],
    ids=["sql", "export-parquet", "export-duckdb", "pipeline", "plugin", "history-cache"],
)
def test_a_temp_file_of_a_killed_writer_goes_with_the_next_write_of_its_file(
    tmp_path: Path, hh: Any, copy_fixture: Any, args: list[str]
) -> None:
    # A kill -9 of `sql --output`, `export --to` (".NAME.PID.HEX.tmp"), `pipeline --out`,
    # `plugin score --out` or of the history cache's write (".runscore-cache-*.duckdb")
    # left its temporary file for good, a whole copy of the file, one more per kill. Each
    # is ".NAME.tmp-PID" now, and the next write of that file removes those of processes
    # that are gone, saying so; one of a process that runs is left.
    copy_fixture("pipeline")
    copy_fixture("plugin")
    hh.corpus(tmp_path / "events", files=2, runs_per_file=2)
    rc, _, err = hh.run_to_end("extract", "events", "--history", "out/h.jsonl", cwd=tmp_path)
    assert rc == 0, err
    out = tmp_path / "out"
    cached = {"RUNSCORE_HISTORY_CACHE": "on" if args[0] == "report" else "off"}
    cached["RUNSCORE_HISTORY_CACHE_MIN_LINES"] = "1"
    killed = subprocess.Popen(
        [sys.executable, "-c", _DIE_AT_RENAME, *args],
        env=hh.env(**cached),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    _, killed_err = killed.communicate(timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed_err.decode()
    (left,) = [p for p in out.iterdir() if p.name.startswith(".")]
    assert left.name.endswith(f".tmp-{killed.pid}")
    live = out / left.name.replace(f".tmp-{killed.pid}", f".tmp-{os.getpid()}")
    live.write_bytes(b"another runscore writing the same file now\n")

    proc = subprocess.Popen(
        [sys.executable, "-m", "runscore", *args],
        env=hh.env(**cached),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    _, err_bytes = proc.communicate(timeout=300)
    err = err_bytes.decode()
    assert proc.returncode in (0, 1), err  # 1: the pipeline example's rejected line
    assert _removed(left, killed.pid) in err.splitlines(), err
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [live.name]


#: Run in a child process (``python -c``, runscore's arguments): an extract that trusts a
#: manifest entry by the file's size and times however new the file (as it does a file
#: written more than ``effectiveness.RACY_NS`` before it was read): an unchanged file is
#: not hashed, and nothing has to be saved.
_TRUSTING_TIMES = """
import runpy, sys
from runscore.engine.packs import effectiveness
effectiveness.RACY_NS = -(1 << 63)
sys.argv = ["runscore", *sys.argv[1:]]
runpy.run_module("runscore", run_name="__main__")
"""


def _extract_trusting_times(hh: Any, *args: str, stdin: bytes = b"") -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-c", _TRUSTING_TIMES, "extract", *args],
        env=hh.env(),
        input=stdin,
        capture_output=True,
        timeout=300,
    )
    return proc.returncode, proc.stderr.decode()


@pytest.mark.parametrize("new", ["no file changed", "a pipe of no complete run"])
def test_an_extract_with_nothing_new_removes_a_killed_process_temp_file_if_the_lock_is_free(
    tmp_path: Path, hh: Any, new: str
) -> None:
    # An extract with nothing new takes no lock, so what a killed repair left beside the
    # history stayed until the next extract with new runs (a quiet project: weeks). It
    # is removed now when the lock is free at once; held by another process, the
    # extract neither waits for it nor removes anything.
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)
    hist = tmp_path / "h.jsonl"
    with hist.open("ab") as f:
        f.write(b'{"level":"info","msg":"not a record"}\n')  # a line repair drops
    rc, err = _extract_trusting_times(hh, str(events), "--history", str(hist))
    assert rc == 0, err
    pid, _ = _killed_in_repair(hh, "backup", str(hist), "--in-place")
    (left,) = tmp_path.glob(f".h.jsonl.bak-*.tmp-{pid}")
    before = hist.read_bytes(), Path(f"{hist}.manifest.json").read_bytes()
    nothing_new = "0 run(s) scored, 0 record(s) written"
    args, stdin = [str(events), "--history", str(hist)], b""
    if new != "no file changed":
        args[0] = "-"
        stdin = hh.dump_lines(hh.run_events("open", complete=False))

    with open(f"{hist}.lock", "rb+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another writer holds it
        rc, err = _extract_trusting_times(hh, *args, stdin=stdin)
    assert rc == 0, err
    assert nothing_new in err and "removed" not in err, err
    assert left.exists()

    rc, err = _extract_trusting_times(hh, *args, stdin=stdin)
    assert rc == 0, err
    assert err.splitlines()[0] == _removed(left, pid), err
    assert nothing_new in err, err
    assert not left.exists()
    assert (hist.read_bytes(), Path(f"{hist}.manifest.json").read_bytes()) == before


def test_the_history_lock_removes_a_killed_cache_write_temp_file_too(
    tmp_path: Path, hh: Any
) -> None:
    # A report killed as it wrote the history's cache left ".H.cache.duckdb.tmp-PID",
    # which only the next write of the cache removed (the next report that misses it):
    # the history lock's sweep (an extract with new runs, one with nothing new when the
    # lock is free at once) took the history's temporaries and left the cache's. It
    # takes them too now, by the same rule: a process that runs keeps its own.
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)
    hist = tmp_path / "h.jsonl"
    rc, err = _extract_trusting_times(hh, str(events), "--history", str(hist))
    assert rc == 0, err
    cached = {"RUNSCORE_HISTORY_CACHE": "on", "RUNSCORE_HISTORY_CACHE_MIN_LINES": "1"}
    killed = subprocess.Popen(
        [sys.executable, "-c", _DIE_AT_RENAME, "report", "--history", str(hist)],
        env=hh.env(**cached),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, killed_err = killed.communicate(timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed_err.decode()
    (left,) = tmp_path.glob(".h.jsonl.cache.duckdb.tmp-*")
    assert left.name == f".h.jsonl.cache.duckdb.tmp-{killed.pid}"
    live = tmp_path / f".h.jsonl.cache.duckdb.tmp-{os.getpid()}"
    live.write_bytes(b"another runscore writing the cache now\n")

    rc, err = _extract_trusting_times(hh, str(events), "--history", str(hist))
    assert rc == 0, err
    assert err.splitlines()[0] == _removed(left, killed.pid), err
    assert "0 run(s) scored, 0 record(s) written" in err, err
    assert sorted(p.name for p in tmp_path.iterdir() if ".tmp-" in p.name) == [live.name]


def test_a_spool_a_killed_process_left_goes_with_the_next_spool_of_its_kind(
    tmp_path: Path, hh: Any
) -> None:
    # `kill -9` of `extract -` as it copied standard input left its spool in the temp
    # folder for good ("runscore-stdin-k2j4h5g6.jsonl": no PID, so no process could tell
    # a dead one's from a live one's). The name holds the PID now, and the next process
    # that spools standard input removes those whose process is gone, saying so.
    spool_dir = tmp_path / "tmp"
    spool_dir.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "runscore", "extract", "-", "--history", "h.jsonl"],
        cwd=tmp_path,
        env=hh.env(TMPDIR=str(spool_dir)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    # More than a pipe holds: the write returns once the process reads, into its spool.
    proc.stdin.write(b"\n" * (1 << 20))
    proc.stdin.flush()
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    (left,) = spool_dir.iterdir()
    assert left.name.startswith(f"runscore-stdin-{proc.pid}-") and left.name.endswith(".jsonl")
    stays = [
        f"runscore-stdin-{os.getpid()}-abcd1234.jsonl",  # a process that runs: this one
        "runscore-stdin-k2j4h5g6.jsonl",  # no PID: an older runscore's, whose is unknown
        f"runscore-clean-{proc.pid}-abcd1234.jsonl",  # another kind: left to its own
    ]
    for name in stays:
        (spool_dir / name).write_text("{}\n")

    rc, err = _spooled_extract(hh, tmp_path, spool_dir, hh.dump_lines(hh.run_events("r1")))
    assert rc == 0, err
    assert err.splitlines()[0] == _removed(left, proc.pid), err
    assert "1 run(s) scored" in err, err
    assert sorted(p.name for p in spool_dir.iterdir()) == sorted(stays)  # its own removed


def _spooled_extract(hh: Any, cwd: Path, spool_dir: Path, stdin: bytes) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "runscore", "extract", "-", "--history", "h.jsonl"],
        cwd=cwd,
        env=hh.env(TMPDIR=str(spool_dir)),
        input=stdin,
        capture_output=True,
        timeout=300,
    )
    return proc.returncode, proc.stderr.decode()


def test_a_temp_name_with_a_number_no_process_can_have_is_left_alone(
    tmp_path: Path, hh: Any
) -> None:
    # Asking whether process 2**64 runs raised OverflowError: a file of that name beside
    # what a command writes (not one of runscore's, which name its own PID) was a
    # traceback of every write of that file.
    hh.corpus(tmp_path / "events", files=1, runs_per_file=1)
    rc, _, err = hh.run_to_end("extract", "events", "--history", "h.jsonl", cwd=tmp_path)
    assert rc == 0, err
    odd = tmp_path / f".q.csv.tmp-{2**64}"
    odd.write_text("not runscore's\n")
    rc, out, err = hh.run_to_end(
        "sql",
        "SELECT 1 AS x",
        "--history",
        "h.jsonl",
        "--format",
        "csv",
        "--output",
        "q.csv",
        cwd=tmp_path,
    )
    assert (rc, out, err) == (0, "", "")
    assert (tmp_path / "q.csv").read_text() == "x\n1\n"
    assert odd.read_text() == "not runscore's\n"


#: Run in a child process (``python -c``, then WHERE and runscore's arguments): killed by
#: SIGKILL at WHERE, a seam of the nightly job: as its extract begins (nothing appended
#: yet), as its extract returns (appended, its manifest saved), or as it writes its run
#: log (its reports rendered, the day's folder not swapped in).
_NIGHTLY_DIES = """
import os, runpy, signal, sys
from runscore.engine import nightly
from runscore.engine.packs import effectiveness
where = sys.argv.pop(1)
real_extract = effectiveness.extract
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
def extract_then_die(*args, **kwargs):
    real_extract(*args, **kwargs)
    die()
if where == "extract-begins":
    effectiveness.extract = die
elif where == "extract-returns":
    effectiveness.extract = extract_then_die
else:
    nightly._write_log = die
sys.argv = ["runscore", *sys.argv[1:]]
runpy.run_module("runscore", run_name="__main__")
"""


@pytest.mark.parametrize("where", ["extract-begins", "extract-returns", "runlog"])
def test_a_nightly_killed_before_its_swap_has_its_runs_said_by_the_next(
    tmp_path: Path, hh: Any, where: str
) -> None:
    # A job killed after its extract appended to the history and before its day folder was
    # swapped in left the runs in the history and the reports, and in no run log: the
    # next job's said "0 scored" (its files unchanged). The history's nightly journal
    # says them now, once, in the next job's run log, whatever its --out and --date; a
    # job killed before it appended anything is said nowhere.
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/a.jsonl", hh.run_events("run-a"))
    hist = tmp_path / "proj/.archeflow/memory/effectiveness.jsonl"
    killed = subprocess.Popen(
        [sys.executable, "-c", _NIGHTLY_DIES, where, "nightly", "--root", "proj", "--date",
         "2026-04-05", "--out", "out"],
        env=hh.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    _, killed_err = killed.communicate(timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed_err.decode()
    assert not (tmp_path / "out/2026-04-05").exists()
    appended = where != "extract-begins"
    assert len(hh.current_records(hist) if hist.exists() else []) == (2 if appended else 0)

    args = ("nightly", "--root", "proj", "--out", "out2", "--date", "2026-04-06")
    rc, out, err = hh.run_to_end(*args, "--format", "json", cwd=tmp_path)
    assert rc == 0, err
    (scope,) = json.loads(out)["scopes"]
    job = {"pid": killed.pid, "date": "2026-04-05"}
    said = [{k: j[k] for k in ("pid", "date", "runs_scored", "records_written")} for j in
            scope["interrupted_jobs"]]  # fmt: skip
    runlog = (tmp_path / "out2/2026-04-06/runlog.md").read_text()
    started = scope["interrupted_jobs"][0]["started_at"] if appended else ""
    head = f"- the nightly job of PID {killed.pid} (started {started}, for 2026-04-05) "
    if where == "runlog":
        assert (scope["runs_scored"], scope["files_unchanged"]) == ([], 1)
        assert said == [{**job, "runs_scored": ["run-a"], "records_written": 2}]
        assert (
            f"{head}scored 1 run(s) (2 record(s)) into this history and stopped before its "
            "run log was in place: they are in the history and these reports, and listed "
            "here only\n  - run-a\n"
        ) in runlog
    elif where == "extract-returns":
        assert said == [{**job, "runs_scored": None, "records_written": None}]
        assert (
            f"{head}stopped inside its extract into this history: the runs it scored, if "
            "any, are in the history and these reports, but in no run log (how many is not "
            "known)\n"
        ) in runlog
    else:  # it appended nothing: nothing to say, and its run is scored now
        assert (said, scope["runs_scored"]) == ([], ["run-a"])
        assert "stopped" not in runlog
    assert not Path(f"{hist}.nightly.journal").exists()
    # Said once: the job after that one has nothing to say of it.
    rc, out, err = hh.run_to_end(*args, "--format", "json", cwd=tmp_path)
    assert rc == 0, err
    assert json.loads(out)["scopes"][0]["interrupted_jobs"] == []
