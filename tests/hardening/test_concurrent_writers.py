"""Concurrent writers: extracts started at once into one history lose and double nothing.

Four real ``python -m runscore extract`` processes start together on overlapping
inputs (two of them score the same runs), all appending to one history and keeping one
manifest beside it. Whatever order the lock gives them, the history must end as one
uninterrupted extract of all the inputs would leave it: every line a whole record, each
(run, archetype, version, events) key once, the same current records; and the manifest
must know every file, so that a rerun over all of it reads nothing again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history_tools


@pytest.mark.slow
def test_four_extracts_at_once_into_one_history(tmp_path: Path, hh: Any) -> None:
    a, b, c = (tmp_path / n for n in ("a", "b", "c"))
    hh.corpus(a, files=6, runs_per_file=5, prefix="a")
    hh.corpus(b, files=6, runs_per_file=5, prefix="b")
    hh.corpus(c, files=6, runs_per_file=5, prefix="c")  # 90 runs, 180 records

    reference = tmp_path / "reference.jsonl"
    rc, _, err = hh.run_to_end("extract", str(a), str(b), str(c), "--history", str(reference))
    assert rc == 0, err
    expected = hh.current_records(reference)
    assert len(expected) == 180

    hist = tmp_path / "memory" / "effectiveness.jsonl"
    inputs = [[a], [a, b], [b, c], [c]]  # a and b are each scored by two writers
    procs = [
        hh.runscore("extract", *map(str, paths), "--history", str(hist), "--lock-timeout", "120")
        for paths in inputs
    ]
    results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert [rc for rc, _ in results] == [0, 0, 0, 0], results

    hh.assert_whole_records(hist)
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys)) == 180  # nothing lost, nothing written twice
    assert hh.current_records(hist) == expected
    assert history_tools.check(str(hist)).ok

    # The writers' manifest entries all survived each other's saves: a rerun over
    # every input reads no file again and writes nothing.
    before = hist.read_bytes()
    rc, out, err = hh.run_to_end(
        "extract", str(a), str(b), str(c), "--history", str(hist), "--format", "json"
    )
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["files_unchanged"] == 18, summary
    assert summary["records_written"] == 0, summary
    assert hist.read_bytes() == before
