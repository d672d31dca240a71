"""extract appends a run's records in one write, in input order, whatever the write size."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history
from runscore.engine.packs import effectiveness


@pytest.mark.parametrize("chunk", [1, 2_000, 1 << 20])
def test_each_write_holds_whole_runs_in_input_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hh: Any, chunk: int
) -> None:
    logs = hh.corpus(tmp_path / "logs", files=3, runs_per_file=4)
    hist = tmp_path / "h.jsonl"
    monkeypatch.setattr(history, "WRITE_CHUNK", chunk)
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: Any) -> int:
        if os.path.realpath(f"/proc/self/fd/{fd}") == str(hist.resolve()):
            writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(history.os, "write", spy)
    res = effectiveness.extract([str(p) for p in logs], str(hist))
    assert res.records_written > 0
    assert b"".join(writes) == hist.read_bytes()
    runs_per_write = []
    for w in writes:
        assert w.endswith(b"\n")
        runs_per_write.append([json.loads(x)["run_id"] for x in w.splitlines()])
    # no run is split between two writes
    seen: set[str] = set()
    for runs in runs_per_write:
        assert not (set(runs) & seen)
        seen |= set(runs)
    # input order: files in order, runs in file order; archetypes sorted within a run
    order = [json.loads(x)["run_id"] for x in hist.read_bytes().splitlines()]
    want = [f"r{i:03d}-{j:02d}" for i in range(3) for j in range(4)]
    assert list(dict.fromkeys(order)) == want
    recs = [json.loads(x) for x in hist.read_bytes().splitlines()]
    for rid in want:
        arch = [r["archetype"] for r in recs if r["run_id"] == rid]
        assert arch == sorted(arch)
    if chunk == 1:
        assert len(writes) == len(want)  # one run a write
    if chunk == 1 << 20:
        assert len(writes) == 1
