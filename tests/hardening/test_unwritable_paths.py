"""A path runscore is given to write (a history and its lock, --out) that cannot be
written is a usage error in one line (exit 2), never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
#: /proc takes no new files, not even from root (this suite runs on Linux).
PROC = "/proc/runscore-test"


def _one_error(res: Any, message: str) -> None:
    assert res.exit_code == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.splitlines()[-1] == f"error: {message}"


def test_a_history_that_cannot_be_written(run_cli: Any, tmp_path: Path) -> None:
    res = run_cli("extract", str(SAMPLE), "--history", f"{PROC}.jsonl")
    _one_error(res, f"{PROC}.jsonl.lock: No such file or directory")
    res = run_cli("extract", str(SAMPLE), "--history", f"{PROC}/h.jsonl")
    _one_error(res, f"{PROC}: No such file or directory")
    (tmp_path / "afile").write_text("")
    res = run_cli("extract", str(SAMPLE), "--history", "afile/h.jsonl")
    _one_error(res, f"{tmp_path / 'afile'}: a file where a folder is needed")
    assert res.stdout == ""


def test_an_out_folder_that_cannot_be_made(run_cli: Any, tmp_path: Path, fixtures: Path) -> None:
    res = run_cli(
        "pipeline", str(fixtures / "pipeline" / "tasks.jsonl"), "--out", PROC, "--no-history"
    )
    _one_error(res, f"{PROC}: No such file or directory")
    skill = fixtures / "plugin" / "async-python-patterns"
    res = run_cli("plugin", "score", str(skill), "--out", PROC, "--no-history")
    _one_error(res, f"{PROC}: No such file or directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_repair_out_that_cannot_be_written(run_cli: Any, tmp_path: Path) -> None:
    """The error named the temporary file beside --out (``/proc/.x.jsonl.tmp-1234``), a
    path the user never gave; it names --out."""
    (tmp_path / "h.jsonl").write_text('{"torn": \n')
    res = run_cli("history", "repair", "h.jsonl", "--out", "/proc/x.jsonl")
    _one_error(res, "/proc/x.jsonl: No such file or directory")
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]
