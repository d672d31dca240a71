"""A file runscore keeps beside the history that is not a regular file (a FIFO left
where the extract manifest belongs) never makes a command wait on it: the history is
still written, and what could not be saved is said."""

from __future__ import annotations

import os
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
    # extract finds it when it takes the lock: nothing appended, the history as it was
    (tmp_path / "h.jsonl").write_bytes(b"")
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.splitlines()[-1] == message
    assert (tmp_path / "h.jsonl").read_bytes() == b""
