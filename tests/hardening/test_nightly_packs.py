"""``runscore nightly``: what the run log, ``--format json``, ``read_days`` and
``OUT/index.md`` say of the packs (pipeline, plugin, routes) and their histories.

The project: the pipeline fixture's tasks and plans (5 pipelines, 4 scored, 1 not
terminal; ``tasks.jsonl:22`` has no task id, exit 1), one skill, the example episodes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from runscore.cli.nightly import Renderer, pack_hooks
from runscore.engine import nightly
from runscore.engine.errors import CannotAccess

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
#: a pack's entry in ``read_days`` where no step of a stopped job is said
NOT_STOPPED = {"interrupted_records": 0, "interrupted_not_counted": 0}


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
                "pipeline": {"roots": 1, "failed": 0, "counts": again, **NOT_STOPPED},
                "plugin": {
                    "roots": 1,
                    "failed": 0,
                    "counts": {**PLUGIN, "records_written": 0, "records_already": 1},
                    **NOT_STOPPED,
                },
                "routes": {"roots": 1, "failed": 0, "counts": ROUTES, **NOT_STOPPED},
            },
        ),
        (
            "2026-04-04",
            0,
            {
                "pipeline": {"roots": 1, "failed": 0, "counts": PIPELINE, **NOT_STOPPED},
                "plugin": {"roots": 1, "failed": 0, "counts": PLUGIN, **NOT_STOPPED},
                "routes": {"roots": 1, "failed": 0, "counts": ROUTES, **NOT_STOPPED},
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
            "plugin": {"roots": 2, "failed": 1, "counts": PLUGIN, **NOT_STOPPED},
            "routes": {"roots": 1, "failed": 1, "counts": None, **NOT_STOPPED},
        },
        {
            "plugin": {"roots": 2, "failed": 1, "counts": None, **NOT_STOPPED},
            "routes": {"roots": 1, "failed": 1, "counts": None, **NOT_STOPPED},
        },
    ]
    res = run_cli("nightly", "--root", "good", "--root", "bad", "--out", "out", "--date", DATE)
    index = (tmp_path / "out" / "index.md").read_text()
    assert (
        " | plugin: 1 skill(s) scored, 0 record(s) written (failed for 1 of 2 roots) · "
        "routes: failed | "
    ) in index
    assert " | plugin: not counted · routes: failed | " in index


class _StopAtRunLog(Renderer):
    def markdown(self, kind: str, ctx: Any) -> str:
        if kind == "runlog":
            raise KeyboardInterrupt
        return super().markdown(kind, ctx)


def _tasks(tmp_path: Path, fixtures: Path) -> Path:
    tasks = tmp_path / "proj/.archeflow/tasks/tasks.jsonl"
    tasks.parent.mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks)
    return tasks


def _run(renderer: Renderer | None = None) -> nightly.NightlyResult:
    return nightly.run_nightly(
        ["proj"],
        "out",
        renderer=renderer or Renderer(),
        hooks=pack_hooks(),
        date=nightly.parse_date(DATE),
    )


HIST = "proj/.archeflow/memory/pipelines.jsonl"
SCORED = [
    "p-blocked-then-completed",
    "p-composite-exactly-75",
    "p-composite-exactly-90",
    "p-excellent",
]


def test_pack_records_of_a_job_stopped_before_its_run_log_are_said_by_the_next(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job stopped after its pipeline step appended to the pipeline history and before
    its run log was in place left records that no run log named: the next job, the task
    file changed meanwhile, appended its own and said only them. The next job's run log
    (runlog.json, runlog.md, --format json's document) says the stopped job's, once."""
    monkeypatch.chdir(tmp_path)
    tasks = _tasks(tmp_path, fixtures)
    with pytest.raises(KeyboardInterrupt):
        _run(_StopAtRunLog())
    stopped = (tmp_path / HIST).read_text().splitlines()
    assert [json.loads(r)["pipeline_id"] for r in stopped] == SCORED
    text = tasks.read_text()
    tasks.write_text(text.replace('"testResult": "PASS 20/20"', '"testResult": "FAIL 3/20"', 1))
    res = _run()
    (said,) = res.as_dict()["interrupted_packs"]
    assert {k: v for k, v in said.items() if k not in ("pid", "started_at")} == {
        "date": DATE,
        "pack": "pipeline",
        "root": "proj",
        "history": HIST,
        "records_written": 4,
        "records": SCORED,
    }
    day = tmp_path / "out" / DATE
    assert json.loads((day / "runlog.json").read_text())["interrupted_packs"] == [said]
    assert (
        "## Pack records of a job that stopped before its run log\n\n"
        f"- the nightly job of PID {os.getpid()} (started {said['started_at']}, for {DATE}) "
        f"appended 4 pipeline record(s) for proj to {HIST} and stopped before its run log "
        'was in place: they are in that history, and listed here only ("p-blocked-then-completed", '
        '"p-composite-exactly-75", "p-composite-exactly-90", "p-excellent")\n'
    ) in (day / "runlog.md").read_text()
    # This job's own record is its run log's; the stopped job's are said once.
    assert [p["counts"]["records_written"] for p in res.as_dict()["packs"]] == [1]
    assert not (tmp_path / "out" / nightly.PACKS_JOURNAL).exists()
    assert _run().interrupted_packs == []


def test_pack_records_said_at_each_stop(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped at each point of a job with a pipeline step: what the next run log says.
    Inside the step before it appended (a Ctrl-C, or a kill: the journal's entry left
    behind), nothing, the history being as it was; inside the step after it appended,
    that it did, how many not known; at the swap (a full disk), the records by id; after
    its day folder is in place, nothing more; killed just before the swap, once the
    journal is cleared, nothing."""
    from runscore.engine import history
    from runscore.engine.packs import pipeline as pl

    monkeypatch.chdir(tmp_path)
    _tasks(tmp_path, fixtures)
    real_append = history.append_groups

    def stop_before(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    def stop_after(*args: Any, **kwargs: Any) -> Any:
        real_append(*args, **kwargs)
        raise KeyboardInterrupt

    for kill in (False, True):
        with monkeypatch.context() as m:
            m.setattr(history, "append_groups", stop_before)
            if kill:  # killed: the journal is not told the step ended
                m.setattr(nightly._PackJournal, "failed", lambda self, step: None)
            with pytest.raises(KeyboardInterrupt):
                _run()
        assert not (tmp_path / HIST).exists()
        assert (tmp_path / "out" / nightly.PACKS_JOURNAL).exists() == kill
        assert _run().interrupted_packs == []
        (tmp_path / HIST).unlink()  # scored again by the next stop

    with monkeypatch.context() as m:
        m.setattr(history, "append_groups", stop_after)
        with pytest.raises(KeyboardInterrupt):
            _run()
    assert len((tmp_path / HIST).read_text().splitlines()) == 4
    res = _run()
    assert [(j["records_written"], j["records"]) for j in res.interrupted_packs] == [(None, None)]
    md = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        f"stopped inside its pipeline step for proj, after {HIST} had grown: the records it "
        "appended, if any, are in that history, but in no run log (how many is not known)\n"
    ) in md
    assert pl.history_report(HIST).pipelines.num_rows == 4  # the same, not written again

    (tmp_path / HIST).unlink()

    def swap_fails(tmp: str, final: str) -> None:
        raise OSError(28, "No space left on device", final)

    with monkeypatch.context() as m:
        m.setattr(nightly, "_swap_in", swap_fails)
        with pytest.raises(OSError, match="No space"):
            _run()
    assert [j["records"] for j in _run().interrupted_packs] == [SCORED]
    assert _run().interrupted_packs == []
    assert not (tmp_path / "out" / nightly.PACKS_JOURNAL).exists()
    # Killed between clearing the journal and the swap: said nowhere, as README says (the
    # other order would say records again that a run log in place says).
    (tmp_path / HIST).unlink()
    with monkeypatch.context() as m:
        m.setattr(nightly, "_swap_in", swap_fails)
        m.setattr(nightly._PackJournal, "restore", lambda self: None)
        with pytest.raises(OSError, match="No space"):
            _run()
    assert _run().interrupted_packs == []


def test_a_stopped_pack_step_is_judged_on_its_history_from_any_working_directory(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pack journal kept a step's history as the job was given it (``proj/...``) and
    the next job on the same ``--out`` stat'ed that text from its own working directory:
    started elsewhere (``--root .`` from inside the project), it found no file there. A
    step stopped after it appended the first records was dropped (no history then, none
    found: not grown), said in no run log; one killed before it appended to a history
    was said as having grown it (the history it stat'ed was none). The journal now keeps
    the history's absolute path, and names it as the job was given it."""
    from runscore.engine import history

    out = str(tmp_path / "out")
    tasks = _tasks(tmp_path, fixtures)
    real_append = history.append_groups

    def job(cwd: Path, root: str) -> nightly.NightlyResult:
        monkeypatch.chdir(cwd)
        return nightly.run_nightly(
            [root], out, renderer=Renderer(), hooks=pack_hooks(), date=nightly.parse_date(DATE)
        )

    def stop_after(*args: Any, **kwargs: Any) -> Any:
        real_append(*args, **kwargs)
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(history, "append_groups", stop_after)
        with pytest.raises(KeyboardInterrupt):
            job(tmp_path, "proj")
    assert len((tmp_path / HIST).read_text().splitlines()) == 4
    said = job(tmp_path / "proj", ".").interrupted_packs
    assert [(j["history"], j["records_written"], j["records"]) for j in said] == [
        (HIST, None, None)
    ]

    text = tasks.read_text()
    tasks.write_text(text.replace('"testResult": "PASS 20/20"', '"testResult": "FAIL 3/20"', 1))

    def stop_before(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(history, "append_groups", stop_before)
        m.setattr(nightly._PackJournal, "failed", lambda self, step: None)  # killed
        with pytest.raises(KeyboardInterrupt):
            job(tmp_path, "proj")
    assert (tmp_path / "out" / nightly.PACKS_JOURNAL).exists()
    assert job(tmp_path / "proj", ".").interrupted_packs == []
    assert len((tmp_path / HIST).read_text().splitlines()) == 5  # its own, once


def test_a_pack_journal_of_before_history_at_is_read_from_this_directory(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent. A step a runscore before ``history_at`` journaled (its history as its
    job was given it, only) is judged on that path from this job's working directory, as
    that runscore judged it; a ``history_at`` that is not a path's text is not a journal
    runscore wrote (exit 2)."""
    monkeypatch.chdir(tmp_path)
    _tasks(tmp_path, fixtures)
    step = {"pid": 7, "started_at": "2026-04-04T01:00:00Z", "date": "2026-04-04"}
    step.update(pack="pipeline", root="proj", history=HIST, history_key=None)
    step.update(records_written=None, records=None)
    journal = tmp_path / "out" / nightly.PACKS_JOURNAL
    journal.parent.mkdir()
    kind = "runscore-nightly-packs-journal-v1"
    journal.write_text(json.dumps({"kind": kind, "steps": [step]}))
    (tmp_path / HIST).parent.mkdir(parents=True)
    (tmp_path / HIST).write_text("")  # it grew since: from none to a file
    assert [(j["pid"], j["history"]) for j in _run().interrupted_packs] == [(7, HIST)]
    journal.write_text(json.dumps({"kind": kind, "steps": [{**step, "history_at": 5}]}))
    with pytest.raises(CannotAccess, match="not a nightly journal runscore wrote"):
        _run()


def test_pack_records_of_a_stopped_job_are_counted_in_every_format(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    """A day's run log said a stopped job's pack records (``interrupted_packs``), but
    ``read_days`` and ``OUT/index.md``'s Packs column counted this job's alone, where the
    Runs column says "(+N of a stopped job)" of the effectiveness runs. Each pack's entry
    now counts them: ``interrupted_records`` (known) and ``interrupted_not_counted`` (steps
    stopped inside, how many not known: never 0)."""
    from runscore.engine import history

    tasks = _tasks(tmp_path, fixtures)
    monkeypatch.chdir(tmp_path)
    args = ("nightly", "--root", "proj", "--out", "out", "--format", "json")
    with pytest.raises(KeyboardInterrupt):
        _run(_StopAtRunLog())
    text = tasks.read_text()
    tasks.write_text(text.replace('"testResult": "PASS 20/20"', '"testResult": "FAIL 3/20"', 1))
    res = run_cli(*args, "--date", DATE)
    assert res.exit_code == 1, res.stderr  # tasks.jsonl:22, as ever
    own = {**PIPELINE, "records_written": 1, "records_already": 3}
    for doc in (
        json.loads(res.stdout),
        json.loads((tmp_path / "out" / DATE / "runlog.json").read_text()),
    ):
        assert [(j["pack"], j["records_written"]) for j in doc["interrupted_packs"]] == [
            ("pipeline", 4)
        ]
        assert [p["counts"] for p in doc["packs"]] == [own]

    # Stopped inside its step, after the history grew: how many is not known.
    (tmp_path / HIST).unlink()
    real_append = history.append_groups

    def stop_after(*args: Any, **kwargs: Any) -> Any:
        real_append(*args, **kwargs)
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(history, "append_groups", stop_after)
        with pytest.raises(KeyboardInterrupt):
            _run()
    res = run_cli(*args, "--date", "2026-04-06")
    assert res.exit_code == 1, res.stderr
    unknown = json.loads(res.stdout)["interrupted_packs"]
    assert [(j["pack"], j["records_written"]) for j in unknown] == [("pipeline", None)]
    again = {**PIPELINE, "records_written": 0, "records_already": 4}

    days = nightly.read_days(str(tmp_path / "out"))
    assert [(d["date"], d["packs"]) for d in days] == [
        (
            "2026-04-06",
            {
                "pipeline": {
                    "roots": 1,
                    "failed": 0,
                    "counts": again,
                    "interrupted_records": 0,
                    "interrupted_not_counted": 1,
                }
            },
        ),
        (
            DATE,
            {
                "pipeline": {
                    "roots": 1,
                    "failed": 0,
                    "counts": own,
                    "interrupted_records": 4,
                    "interrupted_not_counted": 0,
                }
            },
        ),
    ]
    index = (tmp_path / "out" / "index.md").read_text()
    assert (
        " | pipeline: 4 pipeline(s) scored of 5 read, 0 record(s) written (+record(s) of a "
        "stopped job, how many not known) | "
    ) in index
    assert (
        " | pipeline: 4 pipeline(s) scored of 5 read, 1 record(s) written (+4 record(s) of a "
        "stopped job) | "
    ) in index


@pytest.mark.parametrize(
    "said",
    [
        None,
        {"pack": "pipeline"},
        [{"pack": 5, "records_written": 1}],
        [{"pack": "p", "records_written": "4"}],
    ],
)
def test_a_run_log_s_odd_interrupted_packs_is_not_one_runscore_wrote(
    tmp_path: Path, said: Any
) -> None:
    """Spec-silent. What ``read_days`` cannot count there is said as any odd run log is,
    the day's counts left empty, not read as no stopped job."""
    day = tmp_path / DATE
    day.mkdir()
    log = {"status": "ok", "exit_code": 0, "finished_at": None, "scopes": [], "rejected": []}
    (day / "runlog.json").write_text(json.dumps({**log, "packs": [], "interrupted_packs": said}))
    (d,) = nightly.read_days(str(tmp_path))
    assert (d["error"], d["packs"]) == (f"{DATE}/runlog.json: not a run log runscore wrote", None)
    (day / "runlog.json").write_text(json.dumps({**log, "packs": []}))  # before they were said
    assert nightly.read_days(str(tmp_path))[0]["packs"] == {}


@pytest.mark.parametrize(
    "kind", ["fifo", "not-json", "other-json", "history-journal", "odd-step", "a-list"]
)
def test_a_packs_journal_runscore_did_not_write_is_refused_before_anything_is_written(
    tmp_path: Path, fixtures: Path, run_cli: Any, kind: str
) -> None:
    """Spec-silent. ``OUT/.nightly.packs.journal`` not as runscore writes it: refused,
    exit 2, naming the file, before any history is written (as an odd OUT/.nightly.lock
    is); left as it was."""
    _tasks(tmp_path, fixtures)
    journal = tmp_path / "out" / nightly.PACKS_JOURNAL
    journal.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(journal)
        why = "the nightly journal is not a regular file"
    else:
        journal.write_text(
            {
                "not-json": "{not json\n",
                "other-json": '{"steps": []}\n',
                # a history's journal, of another kind, where the output's is read
                "history-journal": '{"kind": "runscore-nightly-journal-v1", "jobs": []}\n',
                # its kind, a step it never writes
                "odd-step": '{"kind": "runscore-nightly-packs-journal-v1", "steps": [{}]}\n',
                "a-list": "[]\n",
            }[kind]
        )
        why = "not a nightly journal runscore wrote (remove it when no nightly job runs)"
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stdout, res.stderr) == (
        2,
        "",
        f"error: {journal}: {why}\n",  # as OUT/.nightly.lock is said
    )
    assert not (tmp_path / HIST).exists()
    assert not (tmp_path / "out" / DATE).exists()
    assert journal.is_fifo() if kind == "fifo" else journal.read_text().endswith("\n")


def test_skill_records_of_a_stopped_job_are_said_by_name(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin pack's records, as the pipeline's: a job stopped before its run log, the
    next one (the skill unchanged: its record is already there) says the stopped job's
    record by the skill's name."""
    monkeypatch.chdir(tmp_path)
    skills = tmp_path / "proj/.archeflow/plugin-eval/skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    with pytest.raises(KeyboardInterrupt):
        _run(_StopAtRunLog())
    res = _run()
    assert [(j["pack"], j["history"], j["records"]) for j in res.interrupted_packs] == [
        ("plugin", "proj/.archeflow/memory/plugins.jsonl", ["async-python-patterns"])
    ]
    assert [p.counts for p in res.packs] == [
        {"skills": 1, "records_written": 0, "records_already": 1}
    ]


@pytest.mark.parametrize("name", ["", "..", "memory/pipelines.jsonl", 5])
def test_a_hook_s_history_is_a_file_name(tmp_path: Path, name: Any) -> None:
    """Spec-silent. ``PackHook.history`` is journaled in the root's memory folder: anything
    but a file name is the caller's usage error, before anything is read or written."""
    from runscore.engine.errors import UsageError

    hook = nightly.PackHook("p", nightly.pipeline_inputs, pack_hooks()[0].run, name)
    with pytest.raises(UsageError, match="a PackHook's history is a file name"):
        nightly.run_nightly(
            [str(tmp_path)], str(tmp_path / "out"), renderer=Renderer(), hooks=[hook]
        )
    assert sorted(tmp_path.iterdir()) == []
