"""A file or folder given as an empty path (an unset variable: `--history "$HISTORY"`) is a
usage error said before anything is read or written, never no history, no policy or the
current folder."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TASKS = str(REPO / "tests" / "fixtures" / "pipeline" / "tasks.jsonl")
SKILLS = str(REPO / "tests" / "fixtures" / "plugin")
EPISODES = str(REPO / "examples" / "project" / ".archeflow" / "episodes")
EVENTS = str(REPO / "examples" / "project" / ".archeflow" / "events")
TEAM = str(REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml")


def _empty(what: str, kind: str = "file") -> str:
    return f"{what}: an empty path (an unset variable?); give a {kind}"


HISTORY = _empty("the history")

CASES = [
    # appended nothing (exit 1 for the fixture's rejected line), the reports written
    ("pipeline", [TASKS, "--history", "", "--out", "OUT"], HISTORY),
    # the reports went to the current folder
    ("pipeline", [TASKS, "--no-history", "--out", ""], _empty("--out", "folder")),
    ("pipeline", ["--report", "--history", ""], _empty("the pipeline history")),
    # scored, then ": cannot append to the history", a lock file `.lock` left here
    ("plugin score", [SKILLS, "--history", "", "--out", "OUT"], HISTORY),
    ("plugin rank", [SKILLS, "--judge", ""], _empty("--judge")),
    # the default policy, without a word
    ("routes report", [EPISODES, "--policy", ""], _empty("the policy file")),
    ("extract", [EVENTS, "--history", ""], HISTORY),
    # answered from no history, exit 0
    ("summary", ["--history", ""], HISTORY),
    ("sql", ["SELECT 1", "--history", ""], HISTORY),
    # the pipeline views left out unsaid
    ("sql", ["SELECT 1", "--pipelines", ""], _empty("--pipelines")),
    ("report", ["--history", ""], HISTORY),
    # ": a team file must be a file, not a directory"
    ("recommend", ["", "--history", "h.jsonl"], _empty("the team file")),
    ("recommend", [TEAM, "--history", ""], HISTORY),
    ("history check", [""], HISTORY),
    ("history repair", [""], HISTORY),
    # the input paths: ": no such file or directory" among the inputs, exit 3
    ("extract", [""], _empty("PATHS", "file or folder")),
    ("extract", [EVENTS, ""], _empty("PATHS", "file or folder")),
    ("pipeline", ["", "--no-history"], _empty("TASKS", "file or folder")),
    ("pipeline", [TASKS, "--plans", "", "--no-history"], _empty("--plans", "file or folder")),
    ("routes report", [""], _empty("PATHS", "file or folder")),
    ("routes report", ["report", EPISODES, ""], _empty("PATHS", "file or folder")),
    ("routes export-router-rows", ["export-router-rows", ""], _empty("PATHS", "file or folder")),
    ("plugin score", ["", "--no-history"], _empty("ROOTS", "file or folder")),
    # scored, then "error: No such file or directory"
    ("plugin score", [SKILLS, "--no-history", "--out", ""], _empty("--out", "folder")),
    ("plugin rank", [""], _empty("ROOTS", "file or folder")),
    # the event views were left empty, exit 0
    ("sql", ["SELECT 1", "--events", ""], _empty("--events", "file or folder")),
    # said once the query had run (": cannot write the result")
    ("sql", ["SELECT 1", "--output", ""], _empty("--output")),
    ("export", ["--to", "x.parquet", "--events", ""], _empty("--events", "file or folder")),
    # ": export writes FILE.parquet or FILE.duckdb"
    ("export", ["--to", ""], _empty("--to")),
    ("nightly", ["--root", "ROOT", "--out", ""], _empty("--out", "folder")),
    # each project's step failed (exit 1)
    ("nightly", ["--root", "ROOT", "--out", "OUT", "--history", ""], _empty("--history")),
]


@pytest.mark.parametrize(
    ("command", "args", "message"),
    CASES,
    ids=[f"{c} {i}" for i, (c, _, _) in enumerate(CASES)],
)
def test_an_empty_path_is_a_usage_error(
    run_cli: Any, tmp_path: Path, command: str, args: list[str], message: str
) -> None:
    # run_cli runs in tmp_path; ROOT is a project with run logs for the nightly job
    shutil.copytree(REPO / "examples" / "project" / ".archeflow", tmp_path / "ROOT" / ".archeflow")
    before = sorted(tmp_path.rglob("*"))
    name = "routes" if command.startswith("routes ") else command
    r = run_cli(*name.split(), *args)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == f"error: {message} (see 'cli {command} --help')\n"
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, not even a lock file


def test_history_repair_refuses_an_empty_out(run_cli: Any, tmp_path: Path) -> None:
    """``history repair H --out ""`` was taken for no --out: the repaired copy went to the
    default H.repaired.jsonl, exit 0."""
    assert run_cli("extract", EVENTS, "--history", "h.jsonl").exit_code == 0
    before = sorted(tmp_path.rglob("*"))
    r = run_cli("history", "repair", "h.jsonl", "--out", "")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: --out: an empty path (an unset variable?); give a file "
        "(see 'cli history repair --help')\n"
    )
    assert sorted(tmp_path.rglob("*")) == before
