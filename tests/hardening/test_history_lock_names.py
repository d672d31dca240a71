"""The history's lock is its lock file at ``H.lock``: a lock file that cannot be taken is
said before any scoring by every writer; a history with two names (two lock files) is not
appended to; a lock file removed while it was waited for is taken again at its name."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

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
