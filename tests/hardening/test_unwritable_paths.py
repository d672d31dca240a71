"""A path runscore is given to write (a history and its lock, --out) that cannot be
written is a usage error in one line (exit 2), never a traceback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
#: /proc takes no new files, not even from root (this suite runs on Linux).
PROC = "/proc/runscore-test"


def _one_error(res: Any, message: str) -> None:
    assert res.exit_code == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.splitlines()[-1] == f"error: {message}"


def test_a_history_that_cannot_be_written(run_cli: Any, tmp_path: Path) -> None:
    # Said before scoring, as pipeline says it (it was the lock file's open, once every
    # run was scored: "/proc/runscore-test.jsonl.lock: No such file or directory").
    for hist in (f"{PROC}.jsonl", f"{PROC}/h.jsonl"):
        res = run_cli("extract", str(SAMPLE), "--history", hist)
        _one_error(res, f"/proc: cannot make the history {hist} there: No such file or directory")
    (tmp_path / "afile").write_text("")
    res = run_cli("extract", str(SAMPLE), "--history", "afile/h.jsonl")
    _one_error(res, f"{tmp_path / 'afile'}: a file where a folder is needed")
    assert res.stdout == ""


def test_a_pipeline_history_that_cannot_be_written_leaves_no_report(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # pipeline wrote every report (10 files in --out) and only then found at the append
    # that its history could not be written: exit 2 with the reports of a run the
    # history never got. Refused before scoring now, nothing written.
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    (tmp_path / "afile").write_text("")
    (tmp_path / "h.jsonl.lock").mkdir()
    for hist, message in [
        (f"{PROC}.jsonl", f"/proc: cannot make the history {PROC}.jsonl there: No such file "
         "or directory"),
        ("afile/h.jsonl", f"{tmp_path / 'afile'}: a file where a folder is needed"),
        ("h.jsonl", "h.jsonl.lock: cannot lock the history: Is a directory"),
    ]:  # fmt: skip
        res = run_cli("pipeline", tasks, "--out", "out", "--history", hist)
        _one_error(res, message)
        assert res.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "h.jsonl.lock"]


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
    # One line to keep (a history with none is refused before anything is written), as
    # ArcheFlow's own scorer writes it, and one to drop.
    good = (
        '{"ts": "2026-03-01T09:00:00Z", "run_id": "r", "archetype": "guardian", '
        '"signal_to_noise": 0.5, "fix_rate": 0.5, "cost_efficiency": 0, "accuracy": 0.75, '
        '"cycle_impact": true, "composite_score": 0.49, "tokens": 0, "cost_usd": 0, '
        '"model": "unknown", "findings_total": 2, "findings_useful": 1, "fixes_applied": 1}'
    )
    (tmp_path / "h.jsonl").write_text(good + '\n{"torn": \n')
    res = run_cli("history", "repair", "h.jsonl", "--out", "/proc/x.jsonl")
    _one_error(res, "/proc/x.jsonl: No such file or directory")
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]


def _limited(limit: int, *args: str, cwd: Path) -> tuple[int, str, str]:
    """``runscore ARGS`` in a process that may write files of at most ``limit`` bytes: a
    write past it fails as on a full disk (EFBIG, "File too large"; Python ignores the
    SIGXFSZ that comes with it), with no file name in the error the kernel gives."""
    import os
    import resource
    import subprocess
    import sys

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, RUNSCORE_THREADS="1")
    p = subprocess.run(
        [sys.executable, "-m", "runscore", *args],
        cwd=cwd,
        env=env,
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def damaged_history(tmp_path: Path) -> bytes:
    """h.jsonl: the sample's history (~35 KB) and one bad line; its bytes."""
    from runscore.engine.packs import effectiveness

    effectiveness.extract([str(SAMPLE)], str(tmp_path / "h.jsonl"))
    with open(tmp_path / "h.jsonl", "ab") as f:
        f.write(b"not json\n")
    for p in tmp_path.iterdir():
        if p.name != "h.jsonl":
            p.unlink()
    return (tmp_path / "h.jsonl").read_bytes()


def test_a_repair_that_fills_the_disk_names_its_file(
    tmp_path: Path, damaged_history: bytes
) -> None:
    """A write error names no file (the kernel's ENOSPC/EFBIG): it was ``error: File too
    large``, no path at all. It names the path the user gave (--out, or the history)."""
    code, out, err = _limited(
        4096, "history", "repair", "h.jsonl", "--out", "r.jsonl", cwd=tmp_path
    )
    assert (code, out, err) == (2, "", "error: r.jsonl: File too large\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]
    # --in-place: the backup (a full copy) is what does not fit; no half backup is left
    code, out, err = _limited(4096, "history", "repair", "h.jsonl", "--in-place", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert re.fullmatch(
        r"error: h\.jsonl: cannot copy it to its backup h\.jsonl\.bak-\d{8}T\d{6}Z: "
        r"File too large\n",
        err,
    ), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "h.jsonl.lock"]
    assert (tmp_path / "h.jsonl").read_bytes() == damaged_history


def test_an_append_that_fills_the_disk_names_the_history_and_leaves_it_whole(
    tmp_path: Path,
) -> None:
    """extract's append was ``error: File too large`` and left a torn record at the end
    (the part that fitted), which the next append closed off into a bad line for good.
    The history is as it was before the append, and the error names it."""
    (tmp_path / "h.jsonl").write_bytes(b"")
    code, out, err = _limited(4096, "extract", str(SAMPLE), "--history", "h.jsonl", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "error: h.jsonl: cannot append to the history: File too large"
    assert (tmp_path / "h.jsonl").read_bytes() == b""
    assert not (tmp_path / "h.jsonl.manifest.json").exists()


def test_a_report_that_fills_the_disk_names_its_file(tmp_path: Path, fixtures: Path) -> None:
    """pipeline --out DIR: ``error: File too large``, no path; it names the file in DIR
    (not the temporary one beside it)."""
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    code, out, err = _limited(1000, "pipeline", tasks, "--out", "out", "--no-history", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert re.fullmatch(r"error: out/[^/\s]+\.(md|json): File too large", err.splitlines()[-1]), err
    assert [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")] == []
