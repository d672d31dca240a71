"""New files get 0666 less the umask, as from any tool: a team that shares a history
through its group (umask 002) can lock and append to what another member created."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"


@pytest.fixture
def umask() -> Iterator[Any]:
    old = os.umask(0o022)
    try:
        yield os.umask
    finally:
        os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_history_lock_and_manifest_follow_the_umask(
    tmp_path: Path, umask: Any, mask: int, mode: int
) -> None:
    umask(mask)
    hist = tmp_path / "mem" / "effectiveness.jsonl"
    res = effectiveness.extract([str(SAMPLE)], str(hist))
    assert res.records_written == 56
    for p in (hist, Path(f"{hist}.lock"), Path(f"{hist}.manifest.json")):
        assert p.stat().st_mode & 0o777 == mode, p.name


@pytest.mark.parametrize("mode", [0o600, 0o660, 0o640])
def test_repair_in_place_keeps_the_history_s_mode(tmp_path: Path, umask: Any, mode: int) -> None:
    # The repaired copy renamed over the history was a new file (0644 under umask 022): a
    # private history became readable by every user, a group's no longer writable by it.
    from runscore.engine import history_tools

    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract([str(SAMPLE)], str(hist))
    with hist.open("ab") as f:
        f.write(b"not json\n")
    hist.chmod(mode)
    before = hist.stat()
    res = history_tools.repair(str(hist), in_place=True)
    assert (res.kept, res.dropped) == (56, 1)
    after = hist.stat()
    assert after.st_ino != before.st_ino  # replaced, not rewritten in place
    assert (after.st_mode & 0o7777, after.st_uid, after.st_gid) == (
        mode,
        before.st_uid,
        before.st_gid,
    )
