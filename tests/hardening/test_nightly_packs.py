"""``runscore nightly``: what the run log, ``--format json``, ``read_days`` and
``OUT/index.md`` say of the packs (pipeline, plugin, routes) and their histories.

The project: the pipeline fixture's tasks and plans (5 pipelines, 4 scored, 1 not
terminal; ``tasks.jsonl:22`` has no task id, exit 1), one skill, the example episodes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from runscore.engine import nightly

DATE = "2026-04-05"
REPO = Path(__file__).resolve().parents[2]


def _packs(root: Path, fixtures: Path) -> None:
    base = root / ".archeflow"
    (base / "tasks").mkdir(parents=True)
    (base / "plans").mkdir()
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", base / "tasks" / "tasks.jsonl")
    shutil.copy(fixtures / "pipeline" / "plans.jsonl", base / "plans" / "plans.jsonl")
    skills = base / "plugin-eval" / "skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    (base / "episodes").mkdir()
    shutil.copy(
        REPO / "examples" / "project" / ".archeflow" / "episodes" / "episodes.jsonl",
        base / "episodes" / "e.jsonl",
    )


PIPELINE = {
    "pipelines": 5,
    "scored": 4,
    "not_terminal": 1,
    "records_written": 4,
    "records_already": 0,
}
PLUGIN = {"skills": 1, "records_written": 1, "records_already": 0}
ROUTES = {"episodes": 60, "findings": 0}


def test_what_each_pack_read_is_counted_in_every_format(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """A day of packs alone read, in ``read_days`` and ``OUT/index.md``, as a day of
    nothing (0 runs scored, and no word of the packs); the run log said what a pack read
    in its summary's words only. Each pack's counts are now in its ``counts``
    (runlog.json, ``--format json``), summed per pack by ``read_days`` and shown in the
    index's Packs column; the second night, on the same inputs, writes no record."""
    _packs(tmp_path / "proj", fixtures)
    args = ("nightly", "--root", "proj", "--out", "out", "--format", "json")
    res = run_cli(*args, "--date", "2026-04-04")
    assert res.exit_code == 1, res.stderr  # tasks.jsonl:22, as ever
    stdout = json.loads(res.stdout)
    log = json.loads((tmp_path / "out" / "2026-04-04" / "runlog.json").read_text())
    for doc in (stdout, log):
        assert [(p["pack"], p["counts"]) for p in doc["packs"]] == [
            ("pipeline", PIPELINE),
            ("plugin", PLUGIN),
            ("routes", ROUTES),
        ]
    res = run_cli(*args, "--date", DATE)
    assert res.exit_code == 1, res.stderr
    again = {**PIPELINE, "records_written": 0, "records_already": 4}
    assert [p["counts"] for p in json.loads(res.stdout)["packs"]] == [
        again,
        {**PLUGIN, "records_written": 0, "records_already": 1},
        ROUTES,
    ]
    days = nightly.read_days(str(tmp_path / "out"))
    assert [(d["date"], d["runs_scored"], d["packs"]) for d in days] == [
        (
            DATE,
            0,
            {
                "pipeline": {"roots": 1, "failed": 0, "counts": again},
                "plugin": {
                    "roots": 1,
                    "failed": 0,
                    "counts": {**PLUGIN, "records_written": 0, "records_already": 1},
                },
                "routes": {"roots": 1, "failed": 0, "counts": ROUTES},
            },
        ),
        (
            "2026-04-04",
            0,
            {
                "pipeline": {"roots": 1, "failed": 0, "counts": PIPELINE},
                "plugin": {"roots": 1, "failed": 0, "counts": PLUGIN},
                "routes": {"roots": 1, "failed": 0, "counts": ROUTES},
            },
        ),
    ]
    index = (tmp_path / "out" / "index.md").read_text()
    assert (
        "| Day | Status | Runs scored | Already scored | Incomplete | Rejected | Packs |" in index
    )
    assert (
        " | 0 | 0 | 0 | 1 | pipeline: 4 pipeline(s) scored of 5 read, 4 record(s) written · "
        "plugin: 1 skill(s) scored, 1 record(s) written · routes: 60 episode(s), 0 finding(s) | "
    ) in index
    assert (
        " | 0 | 0 | 0 | 1 | pipeline: 4 pipeline(s) scored of 5 read, 0 record(s) written · "
        "plugin: 1 skill(s) scored, 0 record(s) written · routes: 60 episode(s), 0 finding(s) | "
    ) in index


def test_a_pack_that_failed_has_its_counts_unknown_not_zero(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """A pack whose step failed read what is not known: ``counts`` null, summed by
    ``read_days`` over the roots where it ran, null where it ran nowhere, and the index
    says which; a run log of a runscore that wrote no counts is "not counted", not 0."""
    skills = tmp_path / "good" / ".archeflow" / "plugin-eval" / "skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    (tmp_path / "good" / ".archeflow" / "episodes").mkdir()
    (tmp_path / "good" / ".archeflow" / "episodes" / "e.jsonl").write_text("not json\n")
    (tmp_path / "bad" / ".archeflow" / "plugin-eval" / "skills").mkdir(parents=True)
    res = run_cli("nightly", "--root", "good", "--root", "bad", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert [(p["pack"], p["label"], p["counts"]) for p in log["packs"]] == [
        ("plugin", "good", PLUGIN),
        ("routes", "good", None),
        ("plugin", "bad", None),
    ]
    # A run log of an earlier runscore: its packs without counts.
    old = tmp_path / "out" / "2026-04-04"
    old.mkdir()
    for p in log["packs"]:
        del p["counts"]
    (old / "runlog.json").write_text(json.dumps(log))
    days = nightly.read_days(str(tmp_path / "out"))
    assert [d["packs"] for d in days] == [
        {
            "plugin": {"roots": 2, "failed": 1, "counts": PLUGIN},
            "routes": {"roots": 1, "failed": 1, "counts": None},
        },
        {
            "plugin": {"roots": 2, "failed": 1, "counts": None},
            "routes": {"roots": 1, "failed": 1, "counts": None},
        },
    ]
    res = run_cli("nightly", "--root", "good", "--root", "bad", "--out", "out", "--date", DATE)
    index = (tmp_path / "out" / "index.md").read_text()
    assert (
        " | plugin: 1 skill(s) scored, 0 record(s) written (failed for 1 of 2 roots) · "
        "routes: failed | "
    ) in index
    assert " | plugin: not counted · routes: failed | " in index
