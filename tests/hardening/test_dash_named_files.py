"""Only the bare argument ``-`` of an input that takes it is standard input (README
"Commands"): a file named ``-`` given where a FILE goes, and a file named ``<stdin>``
(what a message calls standard input), are files like any other."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EVENTS = FIXTURES / "effectiveness" / "archeflow-fixture" / "events.jsonl"
TASKS = FIXTURES / "pipeline" / "tasks.jsonl"

#: What standard input holds in these tests: were it read, its line would be rejected.
PIPED = "not json\n"


def test_a_judge_file_named_dash_is_read_not_stdin(run_cli: Any, tmp_path: Path) -> None:
    """``--judge -`` read standard input when a file ``-`` existed (and said "no such
    file" when none did): the option takes a FILE, and ``-`` is the file of that name."""
    skill = tmp_path / "skills" / "a"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: a\ndescription: Use when testing.\n---\n# A\n")
    judge = {"skill": "nope", "judge": "j1", "scores": {"output_quality": 0.5}}
    (tmp_path / "-").write_text(json.dumps(judge) + "\n")
    args = ("plugin", "score", "skills", "--no-history", "--format", "csv")
    res = run_cli(*args, "--judge", "-", input=PIPED)
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == '-:1: no scored skill matches skill "nope"'
    assert res.stdout == run_cli(*args, "--judge", "./-", input=PIPED).stdout


def test_a_history_named_dash_is_read_not_stdin(run_cli: Any, tmp_path: Path) -> None:
    """``report --history -`` read standard input as the history when a file ``-``
    existed (``extract --history -`` appends to that file): the history is a file."""
    assert run_cli("extract", str(EVENTS), "--history", "-").exit_code == 0
    assert (tmp_path / "-").stat().st_size > 0
    res = run_cli("report", "--history", "-", "--format", "json", input=PIPED)
    assert (res.exit_code, res.stderr) == (0, "")
    assert res.stdout == run_cli("report", "--history", "./-", "--format", "json").stdout
    assert [(r["archetype"], r["runs"]) for r in json.loads(res.stdout)] == [
        ("guardian", 1),
        ("sage", 1),
    ]


def test_a_task_file_named_stdin_is_kept(run_cli: Any, tmp_path: Path) -> None:
    """pipeline deleted the spool of standard input by its name, ``<stdin>``: a task
    file of that name given on the command line was deleted after it was read."""
    named = tmp_path / "<stdin>"
    shutil.copy(TASKS, named)
    res = run_cli("pipeline", "<stdin>", "--no-history", "--format", "csv")
    assert named.read_bytes() == TASKS.read_bytes()
    piped = run_cli("pipeline", "-", "--no-history", "--format", "csv", input=TASKS.read_text())
    assert (res.exit_code, res.stdout) == (piped.exit_code, piped.stdout)


def test_a_run_log_named_stdin_is_remembered(run_cli: Any, tmp_path: Path) -> None:
    """extract left a file named ``<stdin>`` out of the manifest, as if it were a pipe:
    it was read again on every run, never "unchanged"."""
    shutil.copy(EVENTS, tmp_path / "<stdin>")
    args = ("extract", "<stdin>", "--history", "h.jsonl", "--format", "json")
    assert run_cli(*args).exit_code == 0
    res = run_cli(*args)
    assert res.exit_code == 0
    out = json.loads(res.stdout)
    assert (out["files_unchanged"], out["records_written"]) == (1, 0)


def test_a_pipeline_history_named_dash_is_read_not_stdin(run_cli: Any, tmp_path: Path) -> None:
    """``pipeline --report --history -`` read standard input as the history when a file
    ``-`` existed (``pipeline --history -`` appends to that file)."""
    scored = run_cli("pipeline", str(TASKS), "--history", "-", "--out", "o")
    assert scored.exit_code == 1  # the fixture's line 22 has no task id
    assert (tmp_path / "-").stat().st_size > 0
    res = run_cli("pipeline", "--report", "--history", "-", "--format", "json", input=PIPED)
    assert (res.exit_code, res.stderr) == (0, "")
    dotted = run_cli("pipeline", "--report", "--history", "./-", "--format", "json")
    assert res.stdout == dotted.stdout
