"""`runscore nightly`: one project's broken files never stop the others (spec README:
"bad input never takes good input down with it"). Each case used to end the whole job
with a traceback and no report for anyone."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

DATE = "2026-04-05"


def _break(root: Path, how: str) -> None:
    mem = root / ".archeflow" / "memory"
    if how == "memory-is-a-file":
        mem.parent.mkdir(parents=True, exist_ok=True)
        mem.write_text("oops\n")
        return
    mem.mkdir(parents=True, exist_ok=True)
    if how == "history-is-a-folder":
        (mem / "effectiveness.jsonl").mkdir()
    elif how == "history-is-a-fifo":
        os.mkfifo(mem / "effectiveness.jsonl")
    elif how == "manifest-is-a-folder":
        (mem / "effectiveness.jsonl.manifest.json").mkdir()
    elif how == "lock-is-a-folder":
        (mem / "effectiveness.jsonl.lock").mkdir()


def _good_and_bad(run_cli: Any) -> Any:
    return run_cli(
        "nightly", "--root", "good", "--root", "bad", "--out", "out", "--date", DATE,
        "--format", "json",
    )  # fmt: skip


@pytest.mark.parametrize(
    "how",
    [
        "memory-is-a-file",
        "history-is-a-folder",
        "history-is-a-fifo",
        "lock-is-a-folder",
    ],
)
def test_a_broken_history_takes_down_its_own_project_only(
    tmp_path: Path, run_cli: Any, hh: Any, how: str
) -> None:
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    _break(tmp_path / "bad", how)
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    by_label = {s["label"]: s for s in log["scopes"]}
    assert by_label["good"]["runs_scored"] == ["good-run"] and by_label["good"]["report"]
    (why,) = by_label["bad"]["rejected"]
    assert why["kind"] == "history" and why["reason"].startswith("not extracted: ")
    if how == "memory-is-a-file":  # said "File exists", as if the history were there
        mem = tmp_path / "bad/.archeflow/memory"
        assert why["reason"] == f"not extracted: {mem}: a file where a folder is needed"
    elif how != "lock-is-a-folder":  # the history's path is the diagnostic's file, once
        assert why["reason"] == "not extracted: the history is not a regular file"
    assert "Traceback" not in res.stderr
    assert (tmp_path / "out" / DATE / by_label["good"]["report"]["path"]).is_file()


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("history-is-a-folder", "the history is not a regular file"),
        ("history-is-a-fifo", "the history is not a regular file"),
        ("history-is-a-dangling-symlink", "refusing to write through a symlink"),
    ],
)
def test_a_history_step_that_fails_names_the_history_once(
    tmp_path: Path, run_cli: Any, hh: Any, how: str, why: str
) -> None:
    # "h: not extracted: h: the history is not a regular file": the error's own opening
    # path was kept in the reason, after the diagnostic's file that is the same path.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / hist).parent.mkdir()
    if how == "history-is-a-folder":
        (tmp_path / hist).mkdir()
    elif how == "history-is-a-fifo":
        os.mkfifo(tmp_path / hist)
    else:
        (tmp_path / hist).symlink_to(tmp_path / "elsewhere.jsonl")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    assert res.stderr.splitlines()[:-1] == [f"{hist}: not extracted: {why}"]


@pytest.mark.parametrize("events", [True, False])
def test_a_history_that_is_a_folder_is_its_error_not_no_history_yet(
    tmp_path: Path, run_cli: Any, hh: Any, events: bool
) -> None:
    # It was said both ways, its error and the note "no history yet; no report" (the index:
    # "no report: h: no history yet; no report"); with no run logs to extract, only the
    # note (exit 0): nothing said the folder was in the history's way.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    if events:
        hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    (tmp_path / "bad/.archeflow/memory/effectiveness.jsonl").mkdir(parents=True)
    (tmp_path / "bad/.archeflow/teams").mkdir()
    (tmp_path / "bad/.archeflow/teams/t.yaml").write_text("name: t\ncheck: [guardian]\n")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    why = "not extracted: " if events else "no report: "
    why += "the history is not a regular file"
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    assert res.stderr.splitlines()[:-1] == [f"{hist}: {why}"]
    bad = {s["label"]: s for s in json.loads(res.stdout)["scopes"]}["bad"]
    assert [d["text"] for d in bad["rejected"]] == [f"{hist}: {why}"]
    assert bad["notes"] == (
        [] if events else ["bad/.archeflow/events: no event logs (folder missing)"]
    )
    assert [(t["path"], t["error"]) for t in bad["teams"]] == [
        ("bad/.archeflow/teams/t.yaml", "no usable history")
    ]
    index = (tmp_path / "out" / DATE / "index.md").read_text()
    assert f"| bad | 0 | 0 | 0 | 1 | {why} |\n" in index


def test_a_history_option_that_is_a_fifo_is_its_error_only(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/a.jsonl", hh.run_events("run-1"))
    os.mkfifo(tmp_path / "h.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--history", "h.jsonl")
    assert res.exit_code == 3
    assert res.stderr == (
        "error: nothing readable: no root's run logs, pack inputs or history could be read\n"
        "  h.jsonl: not extracted: the history is not a regular file\n"
    )


def test_a_fifo_where_the_memory_folder_belongs_is_worded_as_a_file_there_is(
    tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any
) -> None:
    # The same thing in the way of three steps read "File exists" (effectiveness, plugin)
    # and "a file where a folder is needed" (pipeline): now the second, as for a file.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    (tmp_path / "bad/.archeflow/tasks").mkdir()
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tmp_path / "bad/.archeflow/tasks/t.jsonl")
    skill = tmp_path / "bad/.archeflow/plugin-eval/skills/s"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\n---\nbody\n")
    mem = tmp_path / "bad/.archeflow/memory"
    os.mkfifo(mem)
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    why = f"{mem}: a file where a folder is needed"
    got = sorted((d["kind"], d["file"], d["reason"]) for d in json.loads(res.stdout)["rejected"])
    assert got == [
        ("history", "bad/.archeflow/memory/effectiveness.jsonl", f"not extracted: {why}"),
        ("pack", "bad", f"pipeline: {why}"),
        ("pack", "bad", f"plugin: {why}"),
    ]
    # failed, but not for a lock another process holds
    packs = json.loads(res.stdout)["packs"]
    assert [(p["pack"], p["history_locked"]) for p in packs] == [
        ("pipeline", False),
        ("plugin", False),
    ]
    assert "File exists" not in res.stderr


@pytest.mark.parametrize("how", ["folder", "symlink"])
def test_a_manifest_that_cannot_be_saved_does_not_hide_the_runs_written(
    tmp_path: Path, run_cli: Any, hh: Any, how: str
) -> None:
    # The records were appended, then saving the manifest failed (a full disk; here a
    # folder or a symlink in its place): the run log said "not extracted" and 0 runs
    # scored, night after night, of runs it had just written to the history.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    mem = tmp_path / "bad/.archeflow/memory"
    mem.mkdir(parents=True)
    manifest = mem / "effectiveness.jsonl.manifest.json"
    if how == "folder":
        manifest.mkdir()
        why = "Is a directory"
    else:
        manifest.symlink_to(tmp_path / "elsewhere.json")
        why = "refusing to write through a symlink"
    rel = "bad/.archeflow/memory/effectiveness.jsonl.manifest.json"
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/b.jsonl", hh.run_events("second-run"))
    for night, scored in ((1, ["bad-run", "second-run"]), (2, [])):
        res = _good_and_bad(run_cli)
        assert res.exit_code == 1, res.stderr
        log = json.loads(res.stdout)
        bad = {s["label"]: s for s in log["scopes"]}["bad"]
        assert (night, bad["runs_scored"]) == (night, scored)
        assert bad["already_scored"] == ([] if scored else ["bad-run", "second-run"])
        assert [d["text"] for d in bad["rejected"]] == [
            f"{rel}: manifest not saved: {why}; the runs are in the history; these run logs "
            "are read again next time (no run is written twice)"
        ]
        assert bad["report"] is not None
        keys = hh.history_keys(mem / "effectiveness.jsonl")
        assert sorted({k[0] for k in keys}) == ["bad-run", "second-run"]
        assert len(keys) == len(set(keys))  # none written twice
    assert bad["rejected"][0]["text"] in res.stderr.splitlines()


def test_extract_says_the_records_written_when_its_manifest_cannot_be_saved(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # It said "error: ...manifest.json: Is a directory" (exit 2, stdout empty) after it
    # had appended the records.
    hh.write_jsonl(tmp_path / "ev/a.jsonl", hh.run_events("r1"))
    (tmp_path / "h.jsonl.manifest.json").mkdir()
    res = run_cli("extract", "ev", "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 1, res.stderr
    out = json.loads(res.stdout)
    assert (out["runs_scored"], out["records_written"]) == (1, 2)
    assert out["manifest_error"] == "h.jsonl.manifest.json: Is a directory"
    assert res.stderr.splitlines()[-1] == (
        "h.jsonl.manifest.json: manifest not saved: Is a directory; the runs are in the "
        "history; these run logs are read again next time (no run is written twice)"
    )
    assert {k[0] for k in hh.history_keys(tmp_path / "h.jsonl")} == {"r1"}


def test_a_pack_that_cannot_write_its_history_takes_down_its_own_project_only(
    tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any
) -> None:
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    tasks = tmp_path / "bad/.archeflow/tasks"
    tasks.mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks / "tasks.jsonl")
    (tmp_path / "bad/.archeflow/memory").write_text("oops\n")  # pipelines.jsonl cannot be made
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    (pack,) = log["packs"]
    assert pack["pack"] == "pipeline" and pack["error"]
    assert {s["label"]: s["runs_scored"] for s in log["scopes"]}["good"] == ["good-run"]


def test_the_pipeline_pack_waits_for_its_history_as_long_as_the_others(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It waited append_history's default 300 s whatever --wait said.
    from runscore.engine import nightly
    from runscore.engine.packs import pipeline as engine

    seen: list[float | None] = []
    real = engine.append_history

    def spy(*a: Any, **kw: Any) -> Any:
        seen.append(kw.get("lock_timeout"))
        return real(*a, **kw)

    monkeypatch.setattr(engine, "append_history", spy)
    tasks = tmp_path / "proj/.archeflow/tasks"
    tasks.mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks / "tasks.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--wait", "90")
    assert res.exit_code in (0, 1), res.stderr
    assert seen == [max(90.0, nightly.HISTORY_APPEND_GRACE)]


def test_an_out_folder_that_cannot_be_made_is_a_usage_error(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    (tmp_path / "file").write_text("x\n")
    res = run_cli("nightly", "--root", "good", "--out", "file/sub", "--date", DATE)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: --out file/sub: cannot create it: ")
    assert res.stdout == ""


def test_a_plain_file_where_a_pack_folder_belongs_is_said(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # A file named like a pack's input folder (an export saved as `.archeflow/tasks`, say)
    # was skipped silently: the pack did not run and nobody was told why.
    root = tmp_path / "proj"
    hh.write_jsonl(root / ".archeflow/events/a.jsonl", hh.run_events("run-1"))
    (root / ".archeflow/tasks").write_text('{"id": "t1"}\n')
    (root / ".archeflow/episodes").write_text("{}\n")
    (root / ".archeflow/plugin-eval").mkdir()
    (root / ".archeflow/plugin-eval/skills").write_text("x\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    got = sorted((d["kind"], d["file"], d["reason"]) for d in log["rejected"])
    assert got == [
        ("pipeline", "proj/.archeflow/tasks", "not a directory; no task exports read"),
        ("plugin", "proj/.archeflow/plugin-eval/skills", "not a directory; no skills read"),
        ("routes", "proj/.archeflow/episodes", "not a directory; no episodes read"),
    ]
    assert log["packs"] == []
    (scope,) = log["scopes"]
    assert scope["runs_scored"] == ["run-1"] and scope["report"]  # the rest still ran


def test_a_pipeline_rejected_line_has_its_file_and_line_in_the_run_log(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    # The pipeline pack's rejected lines came as one string: the run log's JSON had
    # file "" and line 0 and the text read "pipeline: FILE:LINE: reason", where the
    # routes and plugin packs give "FILE:LINE: routes: reason" with file and line set.
    root = tmp_path / "proj"
    (root / ".archeflow/tasks").mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", root / ".archeflow/tasks/tasks.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    got = [(d["kind"], d["file"], d["line"], d["reason"], d["text"]) for d in log["rejected"]]
    assert got == [
        (
            "pack",
            "proj/.archeflow/tasks/tasks.jsonl",
            22,
            "pipeline: no task id (id or taskId)",
            "proj/.archeflow/tasks/tasks.jsonl:22: pipeline: no task id (id or taskId)",
        )
    ]
    assert "proj/.archeflow/tasks/tasks.jsonl:22: pipeline: no task id" in res.stderr


def test_a_day_folder_that_is_a_file_is_refused_before_any_history_is_written(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # It was found only when the finished day was swapped in: every history had been
    # appended to by then, and the runs scored that night were in no run log.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / DATE).write_text("x\n")
    res = run_cli("nightly", "--root", "good", "--out", "out", "--date", DATE)
    assert res.exit_code == 2
    day = tmp_path / "out" / DATE
    assert res.stderr == f"error: {day}: exists and is not a directory; refusing to replace it\n"
    assert res.stdout == ""
    assert not (tmp_path / "good/.archeflow/memory").exists()
    assert day.read_text() == "x\n"


def test_a_pack_input_that_is_not_a_regular_file_is_said(
    tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any
) -> None:
    # A dangling symlink or a FIFO named *.jsonl in tasks/ or episodes/ was dropped
    # silently (`runscore pipeline DIR` and `runscore routes DIR` report it), and an
    # episodes folder holding only such entries made the routes pack vanish unsaid.
    root = tmp_path / "proj"
    hh.write_jsonl(root / ".archeflow/events/a.jsonl", hh.run_events("run-1"))
    (root / ".archeflow/tasks").mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", root / ".archeflow/tasks/tasks.jsonl")
    (root / ".archeflow/tasks/gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (root / ".archeflow/episodes").mkdir()
    os.mkfifo(root / ".archeflow/episodes/pipe.jsonl")
    (root / ".archeflow/episodes/sub.jsonl").mkdir()  # a folder: not an input file
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    got = sorted((d["kind"], d["file"], d["reason"]) for d in log["rejected"] if d["line"] == 0)
    assert got == [
        (
            "pipeline",
            "proj/.archeflow/tasks/gone.jsonl",
            "cannot read file: No such file or directory",
        ),
        ("routes", "proj/.archeflow/episodes/pipe.jsonl", "not a regular file; not read"),
    ]
    assert [p["pack"] for p in log["packs"]] == ["pipeline"]


def test_a_root_that_vanishes_mid_run_is_rejected_not_ok(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A root there at the start and deleted before its step ran read as a root with
    # nothing in it: notes only, status ok, exit 0 (a root missing from the start is
    # rejected, exit 1).
    from runscore.engine.packs import effectiveness

    hh.write_jsonl(tmp_path / "a/.archeflow/events/x.jsonl", hh.run_events("run-a"))
    hh.write_jsonl(tmp_path / "b/.archeflow/events/x.jsonl", hh.run_events("run-b"))
    real = effectiveness.extract

    def extract(dirs: Any, *args: Any, **kw: Any) -> Any:
        res = real(dirs, *args, **kw)
        shutil.rmtree(tmp_path / "b", ignore_errors=True)  # a is extracted first
        return res

    monkeypatch.setattr(effectiveness, "extract", extract)
    res = run_cli(
        "nightly", "--root", "a", "--root", "b", "--out", "out", "--date", DATE,
        "--format", "json",
    )  # fmt: skip
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    gone = "root skipped: no longer a directory (gone while the job ran)"
    assert [d["text"] for d in log["rejected"]] == [f"b: {gone}"]
    assert [(r["root"], r["status"]) for r in log["roots"]] == [("a", "ok"), ("b", "rejected")]
    assert [s["runs_scored"] for s in log["scopes"]] == [["run-a"], []]
    assert f"b: {gone}\n" in res.stderr


def test_a_root_whose_archeflow_is_a_file_is_rejected(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # It read as a project with no data ("events: no event logs (folder missing)"), exit 0;
    # a plain file where `.archeflow/events` or a pack's folder belongs is rejected input.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad/.archeflow").write_text("x\n")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    why = ".archeflow is not a directory; nothing under it read"
    assert [d["text"] for d in log["rejected"]] == [f"bad: root skipped: {why}"]
    assert log["roots"][1] == {"root": "bad", "status": "rejected", "reason": why, "label": None}
    assert [s["label"] for s in log["scopes"]] == ["good"]
    alone = run_cli("nightly", "--root", "bad", "--out", "out2", "--date", DATE)
    assert alone.exit_code == 3
    assert f"\n  bad: root skipped: {why}\n" in alone.stderr
    assert not (tmp_path / "out2").exists()


@pytest.mark.parametrize(
    "args",
    [["nightly", "--root", "", "--out", "OUT"], ["nightly", "--date", "", "--out", "OUT"]],
)
def test_an_empty_root_or_date_is_a_usage_error(
    run_cli: Any, tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # From a crontab's unset variable (`--root "$P"`, `--date "$D"`): the folder cron runs
    # in was scored, or today's date taken, without a word.
    monkeypatch.chdir(tmp_path)
    r = run_cli(*args)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: --root: an empty path (an unset variable?); give a folder "
        "(see 'cli nightly --help')\n"
        if "--root" in args
        else "error: --date \"\" is not a date in YYYY-MM-DD form (see 'cli nightly --help')\n"
    )
    assert not (tmp_path / "OUT").exists()


def test_pipeline_refuses_an_empty_date(run_cli: Any, tmp_path: Path) -> None:
    tasks = Path(__file__).resolve().parents[1] / "fixtures" / "pipeline" / "tasks.jsonl"
    r = run_cli("pipeline", str(tasks), "--date", "", "--out", str(tmp_path / "o"), "--no-history")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: --date \"\" is not a date in YYYY-MM-DD form (see 'cli pipeline --help')\n"
    )


def test_a_history_under_a_file_is_a_usage_error(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A path to write that cannot be written is exit 2, said before any project is
    # scored; it was each project's failed step, exit 1.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    r = run_cli("nightly", "--out", "OUT", "--history", "afile/sub/h.jsonl")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: --history afile/sub/h.jsonl: {tmp_path / 'afile'} is a file where a folder "
        "is needed\n"
    )
    assert not (tmp_path / "OUT").exists()


def _lock_wait_short(monkeypatch: pytest.MonkeyPatch) -> None:
    from runscore.engine import nightly

    monkeypatch.setattr(nightly, "HISTORY_APPEND_GRACE", 0.2)


def test_a_history_another_extract_holds_fails_its_own_project_only(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hand-run `runscore extract` holding bad's history for longer than the wait stopped
    # the whole job (exit 4, no day folder): good's runs were scored into no run log.
    from runscore.engine import history

    _lock_wait_short(monkeypatch)
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / "bad/.archeflow/memory").mkdir()
    with history.locked(str(tmp_path / hist), timeout=0):
        res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    by_label = {s["label"]: s for s in log["scopes"]}
    assert by_label["good"]["runs_scored"] == ["good-run"] and by_label["good"]["report"]
    why = "not extracted: another runscore process holds the history lock"
    assert [(d["kind"], d["file"], d["reason"]) for d in log["rejected"]] == [
        ("history", hist, why)
    ]
    assert by_label["bad"]["runs_scored"] == [] and by_label["bad"]["report"] is None
    assert f"{hist}: {why}\n" in res.stderr
    assert (tmp_path / "out" / DATE / by_label["good"]["report"]["path"]).is_file()
    assert not (tmp_path / hist).exists()  # nothing half-written


def test_a_history_another_process_holds_says_which_and_where_its_run_logs_are(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent. A history a hand-run `extract` (a real process) holds past the wait:
    the run log said "another runscore process" and left the user to find which. It names
    the holder's PID now (`history_locked_by`), beside where the run logs not read are;
    the project's step failed (rejected input, exit 1: the night was not complete)."""
    _lock_wait_short(monkeypatch)
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / "bad/.archeflow/memory").mkdir()
    with hh.lock_held_elsewhere(tmp_path / f"{hist}.lock") as pid:
        res = _good_and_bad(run_cli)
    why = f"not extracted: another runscore process (PID {pid}) holds the history lock"
    assert (res.exit_code, res.stderr) == (
        1,
        f"{hist}: {why}\n"
        "nightly 2026-04-05: 1 run(s) scored, 0 already scored (same events), "
        "0 incomplete, 0 unchanged file(s) not re-read, "
        f"1 rejected input(s), 0 warning(s); 5 file(s) in {tmp_path / 'out' / DATE}\n",
    )
    log = json.loads(res.stdout)
    assert log["exit_code"] == 1
    bad = {s["label"]: s for s in log["scopes"]}["bad"]
    assert [d["reason"] for d in bad["rejected"]] == [why]
    assert (bad["history_locked"], bad["history_locked_by"], bad["report"]) == (True, pid, None)
    assert bad["history_locked_by_command"] == "runscore"
    assert (bad["events_dirs"], bad["files_found"], bad["files_read"]) == (
        ["bad/.archeflow/events"],
        1,
        0,
    )
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        f"History {hist} (locked by another process, PID {pid} (runscore): not read). Run "
        "logs from bad/.archeflow/events.\n"
    ) in runlog


def test_the_run_log_quotes_the_command_of_a_history_s_holder_as_stderr_does(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run log wrote the holder's command name with only the markdown escape (a tab
    as ``\\x09``) where stderr quotes it as a path (``"fl\\tock|x"``)."""
    _lock_wait_short(monkeypatch)
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / "bad/.archeflow/memory").mkdir()
    with hh.lock_held_elsewhere(tmp_path / f"{hist}.lock", "fl\tock|x") as pid:
        res = _good_and_bad(run_cli)
    why = f'not extracted: the history lock is held by PID {pid} ("fl\\tock|x")'
    assert (res.exit_code, res.stderr.splitlines()[0]) == (1, f"{hist}: {why}")
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        f'History {hist} (locked by another process, PID {pid} ("fl\\\\tock\\|x"): not read). '
    ) in runlog


def test_a_history_flock_holds_is_said_held_by_flock_in_the_run_log(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent. A history (and a pack's) held by `flock(1)`, not runscore, was said in
    the run log, its JSON and on stderr to be held by "another runscore process (PID N)".
    Its command name is said now (/proc/PID/comm): `history_locked_by_command`."""
    _lock_wait_short(monkeypatch)
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / "bad/.archeflow/memory").mkdir()
    with hh.flock_held(tmp_path / f"{hist}.lock") as pid:
        res = _good_and_bad(run_cli)
    why = f"not extracted: the history lock is held by PID {pid} (flock)"
    assert (res.exit_code, res.stderr.splitlines()[0]) == (1, f"{hist}: {why}")
    log = json.loads(res.stdout)
    bad = {s["label"]: s for s in log["scopes"]}["bad"]
    assert [d["reason"] for d in bad["rejected"]] == [why]
    assert (bad["history_locked"], bad["history_locked_by"]) == (True, pid)
    assert bad["history_locked_by_command"] == "flock"
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert f"History {hist} (locked by another process, PID {pid} (flock): not read). " in runlog
    assert f"{hist}: {why}" in runlog
    # A pack's history alike.
    tasks = tmp_path / "bad/.archeflow/tasks"
    tasks.mkdir()
    tasks_file = Path(__file__).resolve().parents[1] / "fixtures" / "pipeline" / "tasks.jsonl"
    shutil.copy(tasks_file, tasks / "tasks.jsonl")
    pipelines = tmp_path / "bad/.archeflow/memory/pipelines.jsonl"
    with hh.flock_held(Path(f"{pipelines}.lock")) as pid:
        res = run_cli(
            "nightly", "--root", "bad", "--out", "out2", "--date", DATE, "--format", "json"
        )
    assert res.exit_code == 1, res.stderr
    (pack,) = json.loads(res.stdout)["packs"]
    why = (
        "bad/.archeflow/memory/pipelines.jsonl: the pipeline history lock is held by "
        f"PID {pid} (flock)"
    )
    assert (pack["error"], pack["history_locked"]) == (why, True)
    assert (pack["history_locked_by"], pack["history_locked_by_command"]) == (pid, "flock")
    assert f"bad: pipeline: {why}\n" in res.stderr


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink"])
def test_a_history_whose_nightly_lock_cannot_be_taken_still_says_where_its_run_logs_are(
    tmp_path: Path, run_cli: Any, hh: Any, kind: str
) -> None:
    """A history whose nightly lock could not be taken (a folder in the lock file's place)
    failed its project's step, and the run log said "Run logs from nowhere", 0 found: the
    run logs were never looked for, as if there were none. They are found and counted now,
    none read, beside why (exit 1). A FIFO or a symlink there (refused by the lock as
    runscore's own errors, not the system's) stopped the whole job, exit 2, the good
    project unscored and no day folder written."""
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    for name in ("a", "b"):
        hh.write_jsonl(tmp_path / f"bad/.archeflow/events/{name}.jsonl", hh.run_events(name))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    lock = tmp_path / f"{hist}.nightly.lock"
    lock.parent.mkdir(parents=True)
    if kind == "folder":
        lock.mkdir()
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        (tmp_path / "elsewhere").write_text("")
        lock.symlink_to(tmp_path / "elsewhere")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    assert {s["label"]: s["runs_scored"] for s in log["scopes"]}["good"] == ["good-run"]
    assert (tmp_path / "out" / DATE / "effectiveness/good/report.md").is_file()
    bad = {s["label"]: s for s in log["scopes"]}["bad"]
    reasons = {
        "folder": "Is a directory",
        "fifo": "the nightly lock is not a regular file",
        "symlink": "refusing to write through a symlink",
    }
    why = f"{hist}.nightly.lock: {reasons[kind]}"
    assert [d["reason"] for d in bad["rejected"]] == [f"not extracted: {why}"]
    assert (bad["events_dirs"], bad["files_found"], bad["files_read"], bad["runs_scored"]) == (
        ["bad/.archeflow/events"],
        2,
        0,
        [],
    )
    assert (bad["history_locked"], bad["history_error"]) == (False, why)
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        f"History {hist} (could not be read: {why}). Run logs from bad/.archeflow/events.\n"
    ) in runlog
    assert "| Run log files found | 2 |\n| Files read | 0 |\n" in runlog


def test_a_history_locked_while_its_report_is_read_fails_its_own_project_only(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing new to extract, so only the report waits for the lock: it stopped the job too.
    from runscore.engine import history

    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    assert _good_and_bad(run_cli).exit_code == 0
    _lock_wait_short(monkeypatch)
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    with history.locked(str(tmp_path / hist), timeout=0):
        res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    why = "no report: another runscore process holds the history lock"
    assert [(d["kind"], d["file"], d["reason"]) for d in log["rejected"]] == [
        ("history", hist, why)
    ]
    by_label = {s["label"]: s for s in log["scopes"]}
    assert by_label["good"]["report"] and by_label["bad"]["report"] is None
    assert f"{hist}: {why}\n" in res.stderr


@pytest.mark.parametrize("when", ["extract", "report"])
def test_a_locked_history_is_said_to_be_locked_and_its_teams_skipped(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    # The run log said of a history with lines that another process held "(none yet)" (its
    # extract locked out) or "(0 usable lines)" (its report locked out), and its team
    # presets were in neither the index nor the run log. Its teams are named, though not
    # recommended for: the index called each "team (unnamed)".
    from runscore.engine import history

    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    (tmp_path / "bad/.archeflow/teams").mkdir(parents=True)
    (tmp_path / "bad/.archeflow/teams/t.yaml").write_text("name: t\ncheck: [guardian]\n")
    assert _good_and_bad(run_cli).exit_code == 0
    if when == "extract":  # a new run log: the extract waits for the lock
        hh.write_jsonl(tmp_path / "bad/.archeflow/events/b.jsonl", hh.run_events("bad-two"))
    _lock_wait_short(monkeypatch)
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    with history.locked(str(tmp_path / hist), timeout=0):
        res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    bad = {s["label"]: s for s in log["scopes"]}["bad"]
    step = "not extracted" if when == "extract" else "no report"
    assert [d["reason"] for d in bad["rejected"]] == [
        f"{step}: another runscore process holds the history lock"
    ]
    assert (bad["history_exists"], bad["history_locked"], bad["report"]) == (True, True, None)
    skipped = "history locked by another process"
    assert [(t["path"], t["error"]) for t in bad["teams"]] == [
        ("bad/.archeflow/teams/t.yaml", skipped)
    ]
    day = tmp_path / "out" / DATE
    runlog = (day / "runlog.md").read_text()
    assert f"History {hist} (locked by another process: not read). " in runlog
    assert f"- bad/.archeflow/teams/t.yaml (discovered): skipped: {skipped}\n" in runlog
    index = (day / "index.md").read_text()
    assert (
        f"| bad | 0 | 0 | 0 | 1 | {step}: another runscore process holds the history lock |\n"
        in index
    )
    assert (
        f"- bad · team t (bad/.archeflow/teams/t.yaml, discovered): skipped: {skipped}\n" in index
    )


@pytest.mark.parametrize("when", ["extract", "pipeline"])
def test_the_only_project_s_locked_history_is_a_failed_step_not_nothing_read(
    tmp_path: Path,
    fixtures: Path,
    run_cli: Any,
    hh: Any,
    monkeypatch: pytest.MonkeyPatch,
    when: str,
) -> None:
    # With other roots, a history another process holds fails that project's step (exit 1,
    # README's exit codes 1 and 4); alone, the job exited 3 ("nothing readable") and wrote
    # no day folder, so no run log said the history was locked. It is the same failed step.
    # (A history with lines whose report waits was read as there, and exited 1 already.)
    from runscore.engine import history

    root = tmp_path / "only"
    hh.write_jsonl(root / ".archeflow/events/a.jsonl", hh.run_events("run-a"))
    if when == "pipeline":
        (root / ".archeflow/events/a.jsonl").unlink()
        (root / ".archeflow/tasks").mkdir(parents=True)
        shutil.copy(fixtures / "pipeline" / "tasks.jsonl", root / ".archeflow/tasks/t.jsonl")
    (root / ".archeflow/memory").mkdir(exist_ok=True)
    name = "pipelines.jsonl" if when == "pipeline" else "effectiveness.jsonl"
    hist = f"only/.archeflow/memory/{name}"
    _lock_wait_short(monkeypatch)
    with history.locked(str(tmp_path / hist), timeout=0):
        res = run_cli("nightly", "--root", "only", "--out", "out", "--date", DATE)
    day = tmp_path / "out" / DATE
    assert (res.exit_code, res.stdout) == (1, f"{day}/index.md\n"), res.stderr
    log = json.loads((day / "runlog.json").read_text())
    if when == "pipeline":
        why = f"{hist}: another runscore process holds the pipeline history lock"
        assert res.stderr.splitlines()[:-1] == [f"only: pipeline: {why}"]
        assert [(p["pack"], p["error"], p["history_locked"]) for p in log["packs"]] == [
            ("pipeline", why, True)
        ]
    else:
        why = "not extracted: another runscore process holds the history lock"
        assert res.stderr.splitlines()[:-1] == [f"{hist}: {why}"]
        [scope] = log["scopes"]
        assert (scope["history_locked"], scope["report"]) == (True, None)
        assert [d["reason"] for d in scope["rejected"]] == [why]
        assert (
            f"History {hist} (locked by another process: not read). "
            in (day / "runlog.md").read_text()
        )
    assert log["exit_code"] == 1


def test_a_pack_history_another_process_holds_fails_that_pack_only(
    tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lock_wait_short(monkeypatch)
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    tasks = tmp_path / "bad/.archeflow/tasks"
    tasks.mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks / "tasks.jsonl")
    (tmp_path / "bad/.archeflow/memory").mkdir()
    pipelines = tmp_path / "bad/.archeflow/memory/pipelines.jsonl"
    with hh.lock_held_elsewhere(Path(f"{pipelines}.lock")) as pid:
        res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    (pack,) = log["packs"]
    why = (
        f"bad/.archeflow/memory/pipelines.jsonl: another runscore process (PID {pid}) holds "
        "the pipeline history lock"
    )
    assert (pack["pack"], pack["root"], pack["error"]) == ("pipeline", "bad", why)
    # The run log's JSON told a busy pack history from a broken one by its error's words;
    # which process held it, by its PID (as a scope's history_locked_by).
    assert (pack["history_locked"], pack["history_locked_by"]) == (True, pid)
    assert pack["history_locked_by_command"] == "runscore"
    assert f"bad: pipeline: {why}\n" in res.stderr
    assert {s["label"]: s["runs_scored"] for s in log["scopes"]}["good"] == ["good-run"]


def test_out_of_memory_in_a_step_is_one_line_with_the_hint(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The step's reason was DuckDB's whole message ("...\n\nPossible solutions: ... See also
    # https://...") after the SQL file's name, without `runscore`'s own settings to change.
    import re

    from runscore.engine import db

    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    assert _good_and_bad(run_cli).exit_code == 0
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "1MB")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    hint = (
        f" (memory limit 1MB, spilling to {db.env_temp_dir()}; raise RUNSCORE_MEMORY_LIMIT, "
        "or make room where it spills)"
    )
    reasons = [d["reason"] for d in log["rejected"]]
    assert len(reasons) == 2
    for r in reasons:
        assert re.fullmatch(r"no report: Out of Memory Error: [^\n]*", r), r
        assert r.endswith(hint) and "Possible solutions" not in r
    assert [d["file"] for d in log["rejected"]] == [
        f"{p}/.archeflow/memory/effectiveness.jsonl" for p in ("good", "bad")
    ]
    assert len(res.stderr.splitlines()) == 3  # one line each, then the counts


def _nightly_with_teams(tmp_path: Path, run_cli: Any, hh: Any, teams: dict[str, str]) -> Any:
    """``nightly --format json`` over a project of one run and these team presets (name ->
    text) in its .archeflow/teams; the run is expected to exit 1, for the presets."""
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/a.jsonl", hh.run_events("run-1"))
    folder = tmp_path / "proj/.archeflow/teams"
    folder.mkdir()
    for name, text in teams.items():
        (folder / name).write_text(text)
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    return res


def test_a_discovered_team_with_a_misspelt_key_is_rejected(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # `chek:` read as one of ArcheFlow's other keys: the preset's recommendations left out
    # guardian without a word.
    res = _nightly_with_teams(
        tmp_path, run_cli, hh, {"t.yaml": "name: t\nplan: [explorer]\nchek: [guardian]\n"}
    )
    log = json.loads(res.stdout)
    why = (
        'team preset skipped: unknown key "chek" (did you mean "check"?): its archetypes '
        "would not be read"
    )
    t = "proj/.archeflow/teams/t.yaml"
    assert [tuple(d[k] for k in ("kind", "file", "line", "reason")) for d in log["rejected"]] == [
        ("team", t, 3, why)
    ]
    assert f"{t}:3: {why}" in res.stderr.splitlines()
    (scope,) = log["scopes"]
    assert [t["outputs"] for t in scope["teams"]] == [[]] and scope["report"]


def test_a_broken_team_preset_is_named_by_its_file_and_line_once(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # The run log wrote line 0 and the path twice ("t.yaml: team preset skipped:
    # t.yaml:3:1: not valid YAML ..."): the line was only inside the reason.
    res = _nightly_with_teams(
        tmp_path, run_cli, hh, {"broken.yaml": "name: bad\nplan: [a\n", "empty.yaml": ""}
    )
    got = [
        tuple(d[k] for k in ("file", "line", "reason")) for d in json.loads(res.stdout)["rejected"]
    ]
    assert got == [
        (
            "proj/.archeflow/teams/broken.yaml",
            3,
            "team preset skipped: not valid YAML: expected ',' or ']', but got '<stream end>'",
        ),
        (
            "proj/.archeflow/teams/empty.yaml",
            0,
            "team preset skipped: a team file must be a YAML mapping (name, plan, do, check, ...)",
        ),
    ]


def test_a_team_preset_that_cannot_be_read_is_said_not_skipped(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # A preset symlink left dangling by a moved team file, or a FIFO, was skipped without a
    # word (exit 0): the team's recommendations just stopped coming.
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/a.jsonl", hh.run_events("run-1"))
    folder = tmp_path / "proj/.archeflow/teams"
    folder.mkdir()
    (folder / "good.yaml").write_text("name: good\ncheck: [guardian]\n")
    (folder / "moved.yaml").symlink_to(tmp_path / "gone.yaml")
    os.mkfifo(folder / "pipe.yml")
    (folder / "sub.yaml").mkdir()  # a folder is not a preset, and nothing is wrong with it
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    t = "proj/.archeflow/teams"
    assert [d["text"] for d in log["rejected"]] == [
        f"{t}/moved.yaml: cannot read file: No such file or directory",
        f"{t}/pipe.yml: not a regular file; not read",
    ]
    assert all(d["kind"] == "team" for d in log["rejected"])
    assert [d["text"] for d in log["rejected"]] == res.stderr.splitlines()[:2]
    (scope,) = log["scopes"]
    assert [(x["path"], x["name"]) for x in scope["teams"]] == [(f"{t}/good.yaml", "good")]


def test_a_pack_whose_every_input_is_rejected_says_each_by_file_and_line(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # It was one entry naming the root, its reason the pack's error message, lines and all:
    # `proj: pipeline: no usable task snapshot in the input:\n  proj/...:1: not JSON ...`
    # (a literal `\n` on stderr, the lines run together in runlog.md, no file or line a
    # reader of runlog.json could take).
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/a.jsonl", hh.run_events("run-1"))
    tasks = tmp_path / "proj/.archeflow/tasks"
    tasks.mkdir()
    (tasks / "t.jsonl").write_text('not json\n{"x": 1}\n')
    skill = tmp_path / "proj/.archeflow/plugin-eval/skills/s"
    skill.mkdir(parents=True)
    os.mkfifo(skill / "SKILL.md")
    episodes = tmp_path / "proj/.archeflow/episodes"
    episodes.mkdir()
    (episodes / "e.jsonl").write_text("{nope\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    t = "proj/.archeflow/tasks/t.jsonl"
    got = [(d["file"], d["line"], d["reason"]) for d in log["rejected"]]
    assert got == [
        ("proj", 0, "pipeline: no usable task snapshot in the input"),
        (t, 1, "pipeline: not JSON: Expecting value: line 1 column 1 (char 0)"),
        (t, 2, "pipeline: no pipeline id (pipelineId or metadata.pipelineId); no task id (id or taskId)"),
        ("proj", 0, "plugin: no skill could be scored"),
        (f"{skill.relative_to(tmp_path)}/SKILL.md", 0, "plugin: cannot read file: not a regular file"),
        ("proj", 0, "routes: no episode could be read"),
        ("proj/.archeflow/episodes/e.jsonl", 1, "routes: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ]  # fmt: skip
    assert [(p["pack"], p["error"]) for p in log["packs"]] == [
        ("pipeline", "no usable task snapshot in the input"),
        ("plugin", "no skill could be scored"),
        ("routes", "no episode could be read"),
    ]
    assert "\\n" not in res.stderr
    assert [d["text"] for d in log["rejected"]] == res.stderr.splitlines()[:-1]
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert f"- {t}:1: pipeline: not JSON: Expecting value: line 1 column 1 (char 0)\n" in runlog


def test_a_history_whose_every_line_is_skipped_has_no_report(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # Its report was written empty (report.json `[]`) and its teams' recommendations all
    # `no_data`, where `runscore report` of it now reads nothing (exit 3, no document). No
    # report now, each line that project's rejected input; alone, nothing could be read.
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    (tmp_path / hist).parent.mkdir(parents=True)
    (tmp_path / hist).write_text('not json\n{"run_id": "x"}\n')
    (tmp_path / "bad/.archeflow/teams").mkdir()
    (tmp_path / "bad/.archeflow/teams/t.yaml").write_text("check: [guardian]\n")
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    log = json.loads(res.stdout)
    see = " (see `runscore history check`)"
    assert [(d["kind"], d["file"], d["line"], d["reason"]) for d in log["rejected"]] == [
        ("history", hist, 1, "not JSON: Expecting value: line 1 column 1 (char 0)" + see),
        (
            "history",
            hist,
            2,
            "history line skipped: missing archetype; missing ts; missing composite_score" + see,
        ),
    ]
    by_label = {s["label"]: s for s in log["scopes"]}
    assert by_label["good"]["report"] and by_label["bad"]["report"] is None
    why = f"no line of the history {hist} could be read"
    assert by_label["bad"]["notes"][-1] == why
    assert [(t["path"], t["outputs"], t["error"]) for t in by_label["bad"]["teams"]] == [
        ("bad/.archeflow/teams/t.yaml", [], "no history line could be read")
    ]
    day = tmp_path / "out" / DATE
    assert not (day / "effectiveness" / "bad").exists()
    assert f"| bad | 0 | 0 | 0 | 2 | no report: {why} |\n" in (day / "index.md").read_text()

    alone = run_cli("nightly", "--root", "bad", "--out", "out2", "--date", DATE)
    assert (alone.exit_code, alone.stdout) == (3, "")
    assert not (tmp_path / "out2" / DATE).exists()
    assert (
        "error: nothing readable: no root's run logs, pack inputs or history could be read\n"
        in (alone.stderr)
    )


def test_a_file_where_the_history_s_folder_belongs_is_said_where_the_run_log_names_it(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """A history whose folder is a file cannot be read (nor ever written): the run log
    headed its part `(none yet)`, with run logs to extract (its step failed, said as
    rejected input) or without (a note "no history yet", exit 0); a folder in the
    history's place with run logs likewise. Each says it could not be read, and why
    (`history_error`), as such a history does with no run logs."""
    for name in ("good", "with-logs", "folder"):
        hh.write_jsonl(tmp_path / f"{name}/.archeflow/events/a.jsonl", hh.run_events(name))
    (tmp_path / "no-logs/.archeflow").mkdir(parents=True)
    for name in ("with-logs", "no-logs"):
        (tmp_path / name / ".archeflow/memory").write_text("oops\n")
    (tmp_path / "folder/.archeflow/memory/effectiveness.jsonl").mkdir(parents=True)
    roots = ("with-logs", "no-logs", "folder", "good")
    res = run_cli(
        "nightly", *(a for r in roots for a in ("--root", r)), "--out", "out", "--date", DATE
    )
    mem = {
        r: f"{tmp_path / r / '.archeflow/memory'}: a file where a folder is needed" for r in roots
    }
    hist = {r: f"{r}/.archeflow/memory/effectiveness.jsonl" for r in roots}
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (
        1,
        [
            f"{hist['with-logs']}: not extracted: {mem['with-logs']}",
            f"{hist['no-logs']}: no report: {mem['no-logs']}",
            f"{hist['folder']}: not extracted: the history is not a regular file",
        ],
    )
    day = tmp_path / "out" / DATE
    scopes = json.loads((day / "runlog.json").read_text())["scopes"]
    why = {
        "with-logs": mem["with-logs"],
        "no-logs": mem["no-logs"],
        "folder": "not a regular file",
        "good": None,
    }
    assert {s["label"]: s["history_error"] for s in scopes} == why
    assert [n for s in scopes for n in s["notes"]] == [
        "no-logs/.archeflow/events: no event logs (folder missing)"
    ]
    md = (day / "runlog.md").read_text()
    assert "none yet" not in md
    for r in ("with-logs", "no-logs", "folder"):
        assert f"History {hist[r]} (could not be read: {why[r]}). " in md
    alone = run_cli("nightly", "--root", "no-logs", "--out", "out2", "--date", DATE)
    assert (alone.exit_code, alone.stderr) == (
        3,
        "error: nothing readable: no root had run logs, pack inputs or an existing history\n"
        "  no-logs/.archeflow/events: no event logs (folder missing)\n"
        f"  {hist['no-logs']}: no report: {mem['no-logs']}\n",
    )


def test_the_paths_of_history_and_out_are_quoted_as_every_message_quotes_one(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    """``--history PATH`` and ``--out PATH`` were written into their messages as given: a
    line break in the path split the error line, a tab read as blanks. They are written as
    a ``file:line:`` prefix writes a path (``quoting.path``); a plain path is as it was."""
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    (tmp_path / "a\tdir").mkdir()
    (tmp_path / "a\nfile").write_text("x\n")
    (tmp_path / "link\u202e").symlink_to(tmp_path / "nowhere.jsonl")
    day = ["nightly", "--root", "good", "--date", DATE]
    cases = [
        (
            [*day, "--out", "OUT", "--history", "a\tdir"],
            "error: --history \"a\\tdir\": is a directory, not a file (see 'cli nightly --help')\n",
        ),
        (
            [*day, "--out", "OUT", "--history", "link\u202e"],
            'error: --history "link\\u202e": refusing to write through a symlink '
            "(see 'cli nightly --help')\n",
        ),
        (
            [*day, "--out", "OUT", "--history", "a\nfile/h.jsonl"],
            f'error: --history "a\\nfile/h.jsonl": "{tmp_path}/a\\nfile" is a file where a '
            "folder is needed\n",
        ),
        ([*day, "--out", "a\nfile"], 'error: --out "a\\nfile": exists and is not a directory\n'),
        (
            [*day, "--out", "a\nfile/sub"],
            'error: --out "a\\nfile/sub": cannot create it: Not a directory\n',
        ),
    ]
    for args, said in cases:
        r = run_cli(*args)
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", said)
    assert not (tmp_path / "OUT").exists()
    # the day's folder under it, a file there
    (tmp_path / "o\tut").mkdir()
    (tmp_path / "o\tut" / DATE).write_text("x\n")
    r = run_cli(*day, "--out", "o\tut")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f'error: "{tmp_path}/o\\tut/{DATE}": exists and is not a directory; refusing to '
        "replace it\n"
    )


@pytest.mark.parametrize(
    "kind",
    ["fifo", "symlink", "folder", "not-json", "another-json", "packs-journal", "odd-entry"],
)
def test_a_nightly_journal_runscore_did_not_write_fails_its_own_project_only(
    tmp_path: Path, run_cli: Any, hh: Any, kind: str
) -> None:
    """Spec-silent. The history's nightly journal (what a job that stopped before its run
    log was in place scored) is runscore's own: one it cannot read is said, never guessed
    at, and fails that project's step before its extract (a FIFO would block the open; a
    symlink, even to a journal runscore wrote, is not followed, as the lock's is not; a
    folder cannot be read or replaced); the other projects are scored."""
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hh.write_jsonl(tmp_path / "bad/.archeflow/events/a.jsonl", hh.run_events("bad-run"))
    hist = "bad/.archeflow/memory/effectiveness.jsonl"
    journal = tmp_path / f"{hist}.nightly.journal"
    journal.parent.mkdir(parents=True)
    if kind in ("fifo", "symlink", "folder"):
        if kind == "fifo":
            os.mkfifo(journal)
        elif kind == "symlink":
            elsewhere = tmp_path / "journal"
            elsewhere.write_text('{"kind": "runscore-nightly-journal-v1", "jobs": []}\n')
            journal.symlink_to(elsewhere)
        else:
            journal.mkdir()
        why = "the nightly journal is not a regular file"
    else:
        journal.write_text(
            {
                "not-json": "{not json\n",
                "another-json": '{"jobs": []}\n',
                # the output's pack journal, of another kind, where the history's is read
                "packs-journal": '{"kind": "runscore-nightly-packs-journal-v1", "steps": []}\n',
                # its kind, an entry it never writes
                "odd-entry": '{"kind": "runscore-nightly-journal-v1", "jobs": [{"pid": 1}]}\n',
            }[kind]
        )
        why = "not a nightly journal runscore wrote (remove it when no nightly job runs)"
    res = _good_and_bad(run_cli)
    assert res.exit_code == 1, res.stderr
    by_label = {s["label"]: s for s in json.loads(res.stdout)["scopes"]}
    assert by_label["good"]["runs_scored"] == ["good-run"]
    bad = by_label["bad"]
    assert [d["reason"] for d in bad["rejected"]] == [
        f"not extracted: {hist}.nightly.journal: {why}"
    ]
    assert (bad["runs_scored"], bad["files_found"]) == ([], 1)
    assert f"{hist}: not extracted: {hist}.nightly.journal: {why}\n" in res.stderr
    assert not (tmp_path / hist).exists()
    # Left as it was found: the job writes no journal of its own there.
    assert {"fifo": stat.S_ISFIFO, "symlink": stat.S_ISLNK, "folder": stat.S_ISDIR}.get(
        kind, stat.S_ISREG
    )(os.lstat(journal).st_mode)
