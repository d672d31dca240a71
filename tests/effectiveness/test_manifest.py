"""The manifest of read files beside the history: when it is trusted, and how it is saved.

A manifest describes the history it was written beside; once that history is truncated
or replaced it is not trusted, and every file is read again. These tests pin that the
decision holds for the whole extract (not only for the files it reads), and that a
manifest another writer saved meanwhile is merged into, not overwritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history
from runscore.engine.packs import effectiveness

SMALL_RUN = (
    '{"run_id":"r-small","seq":1,"type":"run.start"}\n'
    '{"run_id":"r-small","seq":2,"parent":[1],"type":"review.verdict","agent":"guardian",'
    '"data":{"archetype":"guardian","verdict":"approved","findings":[]}}\n'
    '{"run_id":"r-small","seq":3,"parent":[2],"type":"run.complete"}\n'
)


def _dirs(tmp_path: Path, fixtures: Path) -> tuple[str, str]:
    big, small = tmp_path / "big", tmp_path / "small"
    big.mkdir()
    small.mkdir()
    fixture = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    (big / "a.jsonl").write_bytes(fixture.read_bytes())
    (small / "b.jsonl").write_text(SMALL_RUN)
    return str(big), str(small)


def _manifest_files(hist: str) -> dict[str, Any]:
    with open(effectiveness.manifest_path(hist), encoding="utf-8") as f:
        files: dict[str, Any] = json.load(f)["files"]
    return files


def test_a_manifest_not_trusted_stays_untrusted_after_the_append(
    tmp_path: Path, fixtures: Path
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([small], hist)
    assert first.records_written == 1
    described = os.path.getsize(hist)
    # The history is replaced by an empty one: its manifest no longer describes it.
    os.truncate(hist, 0)
    other = effectiveness.extract([big], hist)
    # This extract's append makes the history longer than the one the old manifest
    # described; that must not make its entry for b.jsonl trusted again.
    assert os.path.getsize(hist) > described
    assert other.records_written > 1
    assert not any(k.endswith("b.jsonl") for k in _manifest_files(hist))
    again = effectiveness.extract([small], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (1, 0, 1)
    runs = {json.loads(line)["run_id"] for line in Path(hist).read_text().splitlines()}
    assert "r-small" in runs


def test_a_manifest_saved_meanwhile_is_merged_into(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([small], hist)
    mp = effectiveness.manifest_path(hist)
    theirs = {"size": 1, "mtime_ns": 1, "sha256": "0" * 64, "runs": ["r-theirs"]}
    append = history.append_groups

    def another_writer_saves_first(*args: Any, **kwargs: Any) -> int:
        # What a writer that held the lock before this one leaves: its own entry.
        with open(mp, encoding="utf-8") as f:
            doc = json.load(f)
        doc["files"]["v1\t/elsewhere/theirs.jsonl"] = theirs
        history.atomic_write_text(mp, json.dumps(doc))
        return append(*args, **kwargs)

    monkeypatch.setattr(history, "append_groups", another_writer_saves_first)
    res = effectiveness.extract([big], hist)
    assert res.records_written > 0
    files = _manifest_files(hist)
    assert files["v1\t/elsewhere/theirs.jsonl"] == theirs
    assert any(k.endswith("b.jsonl") for k in files)
    assert any(k.endswith("a.jsonl") for k in files)
