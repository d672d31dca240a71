"""What lies beside the history: a file runscore keeps there that is not a regular file
(a FIFO where the extract manifest or the lock belongs) never makes a command wait on it
or fail after its work is done; and what a killed append left there is said when the next
writer cuts it off."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"


def test_a_fifo_where_the_manifest_belongs_is_not_waited_on(tmp_path: Path, hh: Any) -> None:
    # The manifest was opened for reading as a file: on a FIFO that waits for a writer,
    # so extract (and the nightly job) hung before it read a run log.
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)  # 4 runs, 8 records
    hist = tmp_path / "h.jsonl"
    manifest = tmp_path / "h.jsonl.manifest.json"
    os.mkfifo(manifest)
    for _ in range(2):  # each reads every file again: no manifest is kept
        proc = hh.runscore("extract", str(events), "--history", str(hist), cwd=tmp_path)
        try:
            out, err = proc.communicate(timeout=120)  # a safety net: it hung for ever
        finally:
            proc.kill()
        assert (proc.returncode, out) == (1, b""), err
        assert err.decode().splitlines()[-1] == (
            "h.jsonl.manifest.json: manifest not saved: not a regular file; the runs are in "
            "the history; these run logs are read again next time (no run is written twice)"
        ).replace("h.jsonl.manifest.json", str(manifest))
        assert len(hh.history_keys(hist)) == 8
    assert os.path.exists(manifest) and not manifest.is_file()  # left as it was


def test_a_fifo_where_the_lock_belongs_is_refused_before_any_report(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # flock takes a FIFO, but the note of each write the lock file keeps cannot be
    # written there: pipeline wrote its 10 reports, then failed at the append with
    # "h.jsonl: cannot append to the history: Invalid argument" (the wrong file, no why).
    os.mkfifo(tmp_path / "h.jsonl.lock")
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    message = "error: h.jsonl.lock: the history lock is not a regular file"
    res = run_cli("pipeline", tasks, "--out", "out", "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.splitlines()[-1] == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl.lock"]  # no report
    # extract says it before scoring, as pipeline does: nothing appended
    (tmp_path / "h.jsonl").write_bytes(b"")
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.splitlines()[-1] == message
    assert (tmp_path / "h.jsonl").read_bytes() == b""


#: Run in a child process (``python -c``, argv: CUT, then runscore's arguments): each
#: write of an append's records is one run's group, and the first is cut after CUT of
#: its bytes and the process killed by SIGKILL, as Linux ends a write between two pages
#: when the writer gets one (test_crash_safety's seam, one group a write).
_DIE_MID_WRITE = """
import os, runpy, signal, sys
from runscore.engine import history
history.WRITE_CHUNK = 1
CUT = int(sys.argv[1])
def cut_write(fd, data):
    if len(data) > 1:
        os.write(fd, bytes(data)[:CUT])
        os.kill(os.getpid(), signal.SIGKILL)
    os.write(fd, data)
history._write_all = cut_write
sys.argv = ["runscore", *sys.argv[2:]]
runpy.run_module("runscore", run_name="__main__")
"""


def test_what_a_killed_append_left_is_said_when_the_next_writer_cuts_it_off(
    tmp_path: Path, hh: Any
) -> None:
    # The next holder of the lock cut off the killed append's part of a run (a whole
    # record line the reports had read, and the torn line `history check` listed) without
    # a word: `history repair --in-place` said "clean; nothing to repair" of a history it
    # had just made two lines shorter.
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)  # 4 runs, 8 records
    hist = tmp_path / "h.jsonl"
    rc, _, err = hh.run_to_end("extract", str(events / "r000.jsonl"), "--history", str(hist))
    assert rc == 0, err
    first = hist.read_bytes()
    line = len(first.split(b"\n")[0]) + 1  # the next run's group: two lines of this size
    cut = str(line + line // 2)
    proc = subprocess.run(
        [sys.executable, "-c", _DIE_MID_WRITE, cut, "extract", str(events), "--history", str(hist)],
        env=hh.env(),
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    torn = hist.read_bytes()
    assert torn.startswith(first) and len(torn) == len(first) + int(cut)
    assert torn.count(b"\n") == first.count(b"\n") + 1  # a whole line, then a torn one

    rc, out, err = hh.run_to_end("history", "repair", str(hist), "--in-place")
    assert (rc, out) == (0, f"{hist}\n"), err
    assert err == (
        f"{hist}:5: removed: 2 line(s) to the end, what an append killed in the middle of "
        "a write left of its records (the command that wrote them, run again, writes "
        "them whole)\n"
        f"{hist}: clean; nothing to repair\n"
    )
    assert hist.read_bytes() == first


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _torn_by_another_tool(hist: Path) -> int:
    """Leave ``hist``'s last line unterminated, as another tool would (no append of
    runscore's was cut there: its lock file notes none); the number of that line."""
    with hist.open("ab") as f:
        f.write(b'{"written by": "another tool"')
    return hist.read_bytes().count(b"\n") + 1


def _closed_off(hist: str, line: int) -> str:
    return (
        f"{hist}:{line}: closed off with a newline: torn last line (no newline at the end; "
        "a writer was interrupted or is still writing), not an append of runscore's (one "
        "would have been cut off): it stays one bad line until `history repair` drops it\n"
    )


def test_a_torn_last_line_of_another_tool_is_said_when_an_append_closes_it_off(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    """The append rule (README: another tool's unterminated last line "is closed off with
    a newline instead, and stays one bad line until a repair") was kept without a word: an
    extract that appended nothing made the line a bad one for good, and said only its
    counts. Each appender (one path, ``history.append_groups``) says it now, by file and
    line as `history check` names the line, in its words."""
    events = tmp_path / "events"
    hh.corpus(events, files=2, runs_per_file=2)
    hist = tmp_path / "h.jsonl"
    res = run_cli("extract", str(events / "r000.jsonl"), "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    line = _torn_by_another_tool(hist)
    # r000 again under another name: its runs are scored already, 0 records appended.
    (tmp_path / "again.jsonl").write_bytes((events / "r000.jsonl").read_bytes())
    res = run_cli("extract", "again.jsonl", "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.startswith(_closed_off("h.jsonl", line))
    assert "0 record(s) written to h.jsonl" in res.stderr
    check = run_cli("history", "check", "h.jsonl")
    assert f"h.jsonl:{line}: not JSON" in check.stdout + check.stderr
    # Said once: the line is a whole (bad) one now, and the next append says nothing.
    res = run_cli("extract", str(events), "--history", "h.jsonl")
    assert res.exit_code == 0 and "closed off" not in res.stderr

    # pipeline: the same words, of its history.
    pdir = tmp_path / "pl"
    pdir.mkdir()
    for name in ("tasks.jsonl", "plans.jsonl"):
        (pdir / name).write_bytes((FIXTURES / "pipeline" / name).read_bytes())
    args = ("pipeline", "pl/tasks.jsonl", "--plans", "pl/plans.jsonl", "--out", "pout")
    res = run_cli(*args, "--history", "p.jsonl", "--date", "2026-04-05")
    assert res.exit_code == 1, res.stderr  # the fixture's task with no id
    line = _torn_by_another_tool(tmp_path / "p.jsonl")
    res = run_cli(*args, "--history", "p.jsonl", "--date", "2026-04-06")
    assert res.exit_code == 1, res.stderr
    assert _closed_off("p.jsonl", line) in res.stderr

    # plugin score: the same.
    skills = tmp_path / "skills"
    skills.mkdir()
    src = FIXTURES / "plugin" / "async-python-patterns"
    (skills / src.name).mkdir()
    (skills / src.name / "SKILL.md").write_bytes((src / "SKILL.md").read_bytes())
    (tmp_path / "k.jsonl").write_bytes(b'{"written by": "another tool"}\n')
    line = _torn_by_another_tool(tmp_path / "k.jsonl")
    res = run_cli("plugin", "score", "skills", "--history", "k.jsonl")
    assert res.exit_code == 0, res.stderr
    assert _closed_off("k.jsonl", line) in res.stderr

    # nightly: its extract says it, on stderr, as extract does.
    proj = tmp_path / "proj"
    hh.corpus(proj / ".archeflow" / "events", files=1, runs_per_file=1)
    mem = proj / ".archeflow" / "memory"
    mem.mkdir()
    (mem / "effectiveness.jsonl").write_bytes((tmp_path / "h.jsonl").read_bytes())
    line = _torn_by_another_tool(mem / "effectiveness.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "nout", "--date", "2026-04-05")
    assert res.exit_code == 1, res.stderr  # the earlier bad lines, rejected input
    assert _closed_off("proj/.archeflow/memory/effectiveness.jsonl", line) in res.stderr
