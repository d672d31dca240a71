"""``runscore nightly``: layout, run log, incremental runs, atomic replacement, exit codes.

The project used throughout: ArcheFlow's own fixture run (guardian 0.5625, sage 0.1875:
tests/fixtures/effectiveness/archeflow-fixture/README.md), a run still in progress, a
file with one malformed line, an empty file and a team preset.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runscore.cli.nightly import Renderer, pack_hooks
from runscore.engine import nightly
from runscore.engine.errors import UsageError

DATE = "2026-04-05"
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("RUNSCORE_UPDATE_GOLDEN") == "1"


def _project(base: Path, fixtures: Path, name: str = "proj") -> Path:
    root = base / name
    ev = root / ".archeflow" / "events"
    ev.mkdir(parents=True)
    shutil.copy(
        fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl", ev / "score-run.jsonl"
    )
    (ev / "live.jsonl").write_text(
        '{"ts":"2026-04-04T09:00:00Z","run_id":"still-running","seq":1,"type":"run.start"}\n'
    )
    (ev / "broken.jsonl").write_text(
        '{"run_id":"b","seq":1,"type":"run.start"}\nnot json at all\n'
        '{"seq":2,"type":"run.complete"}\n'
    )
    (ev / "empty.jsonl").write_text("")
    teams = root / ".archeflow" / "teams"
    teams.mkdir(parents=True)
    (teams / "backend.yaml").write_text(
        "name: backend-feature\nplan: [explorer, creator]\ndo: [maker]\ncheck: [guardian, sage]\n"
    )
    (teams / ".draft.yaml").write_text("check: [x]\n")  # dot-files are not presets
    (teams / "notes.txt").write_text("not a preset\n")
    return root


def _normalise(text: str) -> str:
    return re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "<time>", text)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _files(day: Path) -> dict[str, bytes]:
    return {
        p.relative_to(day).as_posix(): p.read_bytes() for p in sorted(day.rglob("*")) if p.is_file()
    }


def test_layout_run_log_and_index(tmp_path: Path, fixtures: Path, run_cli: Any) -> None:
    _project(tmp_path, fixtures)
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 1  # the malformed line and the line without run_id
    day = tmp_path / "out" / DATE
    assert res.stdout == f"{day}/index.md\n"
    assert sorted(_files(day)) == [
        "effectiveness/proj/recommend-backend.json",
        "effectiveness/proj/recommend-backend.md",
        "effectiveness/proj/report.json",
        "effectiveness/proj/report.md",
        "index.md",
        "runlog.json",
        "runlog.md",
    ]
    assert res.stderr.splitlines()[:2] == [
        "proj/.archeflow/events/broken.jsonl:2: not JSON: Expecting value: line 1 column 1 (char 0)",
        "proj/.archeflow/events/broken.jsonl:3: missing run_id",
    ]
    _golden("index.md", _normalise((day / "index.md").read_text()))
    _golden("runlog.md", _normalise((day / "runlog.md").read_text()))
    log = json.loads((day / "runlog.json").read_text())
    scope = log["scopes"][0]
    assert (scope["runs_scored"], scope["incomplete"], scope["records_written"]) == (
        ["score-run"],
        ["b", "still-running"],
        2,
    )
    assert scope["empty_files"] == ["proj/.archeflow/events/empty.jsonl"]
    assert [t["path"] for t in scope["teams"]] == ["proj/.archeflow/teams/backend.yaml"]
    # The report and recommendations are exactly what the commands print.
    hist = "proj/.archeflow/memory/effectiveness.jsonl"
    report = run_cli("report", "--history", hist)
    assert (day / "effectiveness/proj/report.md").read_text() == report.stdout
    rows = json.loads((day / "effectiveness/proj/report.json").read_text())
    assert [(r["archetype"], r["avg_composite"], r["recommendation"]) for r in rows] == [
        ("guardian", 0.5625, "optimize"),
        ("sage", 0.1875, "consider_removing"),
    ]
    rec = run_cli("recommend", "proj/.archeflow/teams/backend.yaml", "--history", hist)
    assert (day / "effectiveness/proj/recommend-backend.md").read_text() == rec.stdout
    as_json = run_cli("report", "--history", hist, "--format", "json").stdout
    assert json.loads(as_json) == rows


def test_the_out_index_lists_every_day_with_its_counts_newest_first(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """OUT/index.md, the morning after: the day folders there, newest first, each with the
    counts its runlog.json gives (it showed only the last job's, in its own folder); a day
    whose run log is missing or cannot be read is listed, saying why, its counts left
    empty (unknown, not 0). Not a day: another name, a link to a folder."""
    _project(tmp_path, fixtures)
    out = tmp_path / "out"
    first = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-03")
    assert first.exit_code == 1, first.stderr  # the fixture's malformed lines
    (out / "2026-04-04").mkdir()  # a day whose run log is gone
    (out / "2026-04-02").mkdir()
    (out / "2026-04-02" / "runlog.json").write_text('{"date": "2026-04-02"\n')
    (out / "2026-04-01").mkdir()
    os.mkfifo(out / "2026-04-01" / "runlog.json")  # never opened: it would block
    (out / "2026-03-31").mkdir()
    (out / "2026-03-31" / "runlog.json").write_text('{"scopes": 3}\n')
    (out / "notes").mkdir()
    (out / "2026-04-09").symlink_to(out / "2026-04-03")
    # A day whose run log says a stopped job's runs and pack records (no pack ran itself):
    # records known, and a step stopped inside whose records are not.
    log = json.loads((out / "2026-04-03" / "runlog.json").read_text())
    log["scopes"][0]["interrupted_jobs"] = [
        {
            "pid": 7,
            "started_at": "t",
            "date": "2026-03-29",
            "runs_scored": ["r1", "r2"],
            "records_written": 9,
        },
        # stopped inside its extract after the history grew: how many runs is not known
        {
            "pid": 8,
            "started_at": "t",
            "date": "2026-03-29",
            "runs_scored": None,
            "records_written": None,
        },
    ]
    stopped = {"pid": 7, "started_at": "t", "date": "2026-03-29", "root": "proj", "history": "h"}
    log["interrupted_packs"] = [
        {**stopped, "pack": "pipeline", "records_written": 4, "records": ["a", "b", "c", "d"]},
        {**stopped, "pack": "pipeline", "records_written": None, "records": None},
        {**stopped, "pack": "plugin", "records_written": None, "records": None},
    ]
    (out / "2026-03-30").mkdir()
    (out / "2026-03-30" / "runlog.json").write_text(json.dumps(log))
    log["scopes"][0]["interrupted_jobs"] = log["scopes"][0]["interrupted_jobs"][1:]
    (out / "2026-03-29").mkdir()
    (out / "2026-03-29" / "runlog.json").write_text(json.dumps({**log, "interrupted_packs": []}))
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    _golden("days_index.md", _normalise((out / "index.md").read_text()))
    # The same from the API: each day's counts, none where its run log cannot be read.
    days = nightly.read_days(str(out))
    assert [(d["date"], d["runs_scored"], d["incomplete"], d["error"]) for d in days] == [
        (DATE, 0, 2, None),
        ("2026-04-04", None, None, "2026-04-04/runlog.json: missing"),
        ("2026-04-03", 1, 2, None),
        ("2026-04-02", None, None, "2026-04-02/runlog.json: not JSON"),
        ("2026-04-01", None, None, "2026-04-01/runlog.json: not a regular file"),
        ("2026-03-31", None, None, "2026-03-31/runlog.json: not a run log runscore wrote"),
        ("2026-03-30", 1, 2, None),
        ("2026-03-29", 1, 2, None),
    ]
    assert [(d["interrupted_runs"], d["interrupted_runs_not_counted"]) for d in days[-2:]] == [
        (2, 1),
        (0, 1),
    ]
    stopped_day = days[-2]
    assert stopped_day["packs"] == {
        "pipeline": {
            "roots": 0,
            "failed": 0,
            "counts": None,
            "interrupted_records": 4,
            "interrupted_not_counted": 1,
        },
        "plugin": {
            "roots": 0,
            "failed": 0,
            "counts": None,
            "interrupted_records": 0,
            "interrupted_not_counted": 1,
        },
    }


def test_an_out_index_that_is_not_a_file_is_refused_before_anything_is_written(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """Spec-silent. OUT/index.md is replaced after the day's folder is swapped in: a folder
    there failed it once the night's work was done. Refused first, as a file where the
    day's folder belongs is (exit 2), no history written."""
    _project(tmp_path, fixtures)
    (tmp_path / "out" / "index.md").mkdir(parents=True)
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"error: {tmp_path}/out/index.md: exists and is not a regular file; refusing to "
        "replace it\n"
    )
    assert not (tmp_path / "proj/.archeflow/memory").exists()
    assert not (tmp_path / "out" / DATE).exists()


def test_a_history_or_team_at_the_out_index_is_refused(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """Spec-silent. `--history out/index.md` was appended to, then replaced by the list of
    days after the swap: refused before anything is read or written, as an input inside
    the day's folder is (exit 2)."""
    _project(tmp_path, fixtures)
    (tmp_path / "out").mkdir()
    # a valid team preset, so that only where it is is refused
    (tmp_path / "out" / "index.md").write_text("name: t\nplan: [explorer]\n")
    day = ("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    for args, said in [
        (
            ("--history", "out/index.md"),
            "that is the history out/index.md the job appends to (--history)",
        ),
        (("--team", "out/index.md"), "that is the team file out/index.md the job reads (--team)"),
    ]:
        res = run_cli(*day, *args)
        assert (res.exit_code, res.stdout) == (2, "")
        assert res.stderr == (
            f"error: out/index.md: {said}, and each job writes the list of days there; choose "
            "another --out (see 'cli nightly --help')\n"
        )
    assert (tmp_path / "out" / "index.md").read_text() == "name: t\nplan: [explorer]\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["index.md"]


class _NoDays(Renderer):
    def markdown(self, kind: str, ctx: Any) -> str:
        if kind == "days_index":
            raise OSError(28, "No space left on device")
        return super().markdown(kind, ctx)


def test_an_out_index_not_written_leaves_the_day_in_place(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list of days is written after the swap: failing it does not undo the day, whose
    run log says everything; the result says why (the CLI on stderr)."""
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, fixtures)
    res = nightly.run_nightly(["proj"], "out", renderer=_NoDays(), date=nightly.parse_date(DATE))
    assert res.days_index_error == "No space left on device"
    assert (tmp_path / "out" / DATE / "runlog.json").is_file()
    assert not (tmp_path / "out" / "index.md").exists()
    from runscore.cli import nightly as nightly_cli

    monkeypatch.setattr(nightly_cli, "Renderer", _NoDays)
    r = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (r.exit_code, r.stdout) == (1, f"{tmp_path}/out/{DATE}/index.md\n")  # as before
    assert r.stderr.splitlines()[-1] == (
        f"warning: {tmp_path}/out/index.md: not written: No space left on device (the day's "
        "folder is in place; the next job writes it)"
    )


def test_the_json_says_whether_the_out_index_was_written(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--format json` left `days_index_error` out: only stderr said that OUT/index.md was
    not written. It is there now, null when it was written; runlog.json, in place before
    the list of days was tried, does not have it (it cannot know)."""
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, fixtures)
    args = ("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    ok = run_cli(*args)
    assert ok.exit_code == 1, ok.stderr  # the fixture's broken lines
    assert json.loads(ok.stdout)["days_index_error"] is None
    from runscore.cli import nightly as nightly_cli

    monkeypatch.setattr(nightly_cli, "Renderer", _NoDays)
    r = run_cli(*args)
    assert r.exit_code == 1, r.stderr
    log = json.loads(r.stdout)
    assert log["days_index_error"] == "No space left on device"
    on_disk = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert "days_index_error" not in on_disk
    assert {**on_disk, "days_index_error": log["days_index_error"]} == log
    assert r.stderr.splitlines()[-1].endswith(
        "not written: No space left on device (the "
        "day's folder is in place; the next job writes it)"
    )


class _BadDays(Renderer):
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def markdown(self, kind: str, ctx: Any) -> str:
        if kind == "days_index":
            raise self.error
        return super().markdown(kind, ctx)


def test_a_renderer_failing_on_the_out_index_leaves_the_day_and_says_why(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent. A renderer's own error (not an OSError) on OUT/index.md, which is
    written after the day's swap, propagated: the day was in place and the job crashed
    with a traceback. It is the same warning now, naming the error's type; a Ctrl-C or
    SystemExit there still stops the job."""
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, fixtures)
    day = nightly.parse_date(DATE)
    bad = _BadDays(ValueError("no template for\nthe days"))
    res = nightly.run_nightly(["proj"], "out", renderer=bad, date=day)
    assert res.days_index_error == 'ValueError: "no template for\\nthe days"'
    assert (tmp_path / "out" / DATE / "runlog.json").is_file()
    assert not (tmp_path / "out" / "index.md").exists()
    from runscore.cli import nightly as nightly_cli

    monkeypatch.setattr(nightly_cli, "Renderer", lambda: _BadDays(ValueError("bad")))
    r = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert r.exit_code == 1, r.stderr  # the job's own (the fixture's broken lines)
    assert json.loads(r.stdout)["days_index_error"] == "ValueError: bad"
    assert r.stderr.splitlines()[-1] == (
        f"warning: {tmp_path}/out/index.md: not written: ValueError: bad (the day's folder "
        "is in place; the next job writes it)"
    )
    for stop in (KeyboardInterrupt(), SystemExit(7)):
        with pytest.raises(type(stop)):
            nightly.run_nightly(["proj"], "out", renderer=_BadDays(stop), date=day)
        assert (tmp_path / "out" / DATE / "runlog.json").is_file()


def test_second_run_reads_only_what_changed(
    tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any
) -> None:
    _project(tmp_path, fixtures)
    args = ("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    first = json.loads(run_cli(*args).stdout)["scopes"][0]
    again_run = run_cli(*args)
    again = json.loads(again_run.stdout)["scopes"][0]
    assert (again["files_read"], again["files_unchanged"], again["runs_scored"]) == (0, 4, [])
    assert again["records_written"] == 0
    # A same-day rerun replaces the day's folder: what the first run said of the files it
    # read (the malformed line, the run still in progress) is said again, not lost.
    assert [r["text"] for r in first["rejected"]] == [
        "proj/.archeflow/events/broken.jsonl:2: not JSON: Expecting value: line 1 column 1 "
        "(char 0)",
        "proj/.archeflow/events/broken.jsonl:3: missing run_id",
    ]
    assert again["rejected"] == first["rejected"]
    assert again["incomplete"] == first["incomplete"] == ["b", "still-running"]
    assert again_run.exit_code == 1
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/new.jsonl", hh.run_events("new"))
    third = json.loads(run_cli(*args).stdout)["scopes"][0]
    assert (third["files_read"], third["files_unchanged"], third["runs_scored"]) == (1, 4, ["new"])


def test_files_reached_twice_are_read_once_and_changed_ones_again(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """The nightly discovers and stats the files once, for its counts and for extract."""
    log = tmp_path / "a/.archeflow/events/x.jsonl"
    hh.write_jsonl(log, hh.run_events("r1"))
    (tmp_path / "b/.archeflow").mkdir(parents=True)
    (tmp_path / "b/.archeflow/events").symlink_to(tmp_path / "a/.archeflow/events")
    args = ("nightly", "--root", "a", "--root", "b", "--history", "all.jsonl")
    args += ("--out", "out", "--date", DATE, "--format", "json")

    def scope() -> dict[str, Any]:
        res = run_cli(*args)
        assert res.exit_code == 0, res.stderr
        out: dict[str, Any] = json.loads(res.stdout)["scopes"][0]
        return out

    first = scope()
    assert (first["files_found"], first["files_read"], first["runs_scored"]) == (2, 1, ["r1"])
    same = scope()
    assert (same["files_read"], same["files_unchanged"], same["runs_scored"]) == (0, 1, [])
    # Another run appended to the same file: read again, only the new run scored.
    hh.write_jsonl(log, hh.run_events("r1") + hh.run_events("r2"))
    again = scope()
    assert (again["files_read"], again["files_unchanged"], again["runs_scored"]) == (1, 0, ["r2"])
    assert again["records_written"] > 0 and again["already_scored"] == ["r1"]


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "rename-aside"])
def test_rerun_replaces_the_day_completely(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, exchange: bool
) -> None:
    if not exchange:
        monkeypatch.setattr(nightly, "_exchange", lambda a, b: False)
    root = _project(tmp_path, fixtures)
    shutil.copy(root / ".archeflow/teams/backend.yaml", root / ".archeflow/teams/other.yml")
    args = ("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    run_cli(*args)
    day = tmp_path / "out" / DATE
    assert (day / "effectiveness/proj/recommend-other.md").exists()
    (root / ".archeflow/teams/other.yml").unlink()
    run_cli(*args)
    assert not (day / "effectiveness/proj/recommend-other.md").exists()  # nothing stale
    assert (day / "effectiveness/proj/recommend-backend.md").exists()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".nightly.lock",
        DATE,
        "index.md",
    ]


class _Failing(Renderer):
    def markdown(self, kind: str, ctx: Any) -> str:
        if kind == "index":
            raise RuntimeError("disk full")
        return super().markdown(kind, ctx)


def test_failure_while_rendering_keeps_the_old_day(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, fixtures)
    run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    day = tmp_path / "out" / DATE
    before = _files(day)
    with pytest.raises(RuntimeError, match="disk full"):
        nightly.run_nightly(["proj"], "out", renderer=_Failing(), date=nightly.parse_date(DATE))
    assert _files(day) == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".nightly.lock",
        DATE,
        "index.md",
    ]


def test_a_stopped_extract_is_judged_on_its_history_from_any_working_directory(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent, a check. The history's journal keeps the history's device, inode and
    size when a job began, never its path, and is found beside the history as the next
    job names it: a relative ``--history`` from another working directory reaches the
    same journal and the same file, so a stopped extract is judged the same from there
    (said when the history grew, not when it did not)."""
    from runscore.engine.packs import effectiveness

    out = str(tmp_path / "out")
    _project(tmp_path, fixtures)
    real_extract = effectiveness.extract

    def job(cwd: Path, root: str, hist: str) -> nightly.NightlyResult:
        monkeypatch.chdir(cwd)
        return nightly.run_nightly(
            [root], out, renderer=Renderer(), history_path=hist, date=nightly.parse_date(DATE)
        )

    def stop_after(*args: Any, **kwargs: Any) -> Any:
        real_extract(*args, **kwargs)
        raise KeyboardInterrupt

    def stop_before(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    for stop, said in ((stop_after, [(os.getpid(), None, None)]), (stop_before, [])):
        with monkeypatch.context() as m:
            m.setattr(effectiveness, "extract", stop)
            with pytest.raises(KeyboardInterrupt):
                job(tmp_path, "proj", "h.jsonl")
        assert (tmp_path / "h.jsonl.nightly.journal").exists()
        (scope,) = job(tmp_path / "proj", ".", "../h.jsonl").scopes
        jobs = [(j["pid"], j["runs_scored"], j["records_written"]) for j in scope.interrupted_jobs]
        assert jobs == said
        assert not (tmp_path / "h.jsonl.nightly.journal").exists()


def test_runs_of_a_job_whose_day_folder_failed_are_said_by_the_next(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job that scored runs and then failed, rendering or swapping its day folder in,
    left them in no run log (the next one's said "0 scored"); the next job's says them."""
    _project(tmp_path, fixtures)
    with pytest.raises(RuntimeError, match="disk full"):
        nightly.run_nightly(["proj"], "out", renderer=_Failing(), date=nightly.parse_date(DATE))

    def swap_fails(tmp: str, final: str) -> None:
        raise OSError(28, "No space left on device", final)

    with monkeypatch.context() as m:
        m.setattr(nightly, "_swap_in", swap_fails)
        with pytest.raises(OSError, match="No space"):
            nightly.run_nightly(["proj"], "out", renderer=Renderer(), date=nightly.parse_date(DATE))
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1, res.stderr  # the fixture's malformed line
    (scope,) = json.loads(res.stdout)["scopes"]
    jobs = [(j["pid"], j["runs_scored"], j["records_written"]) for j in scope["interrupted_jobs"]]
    assert jobs == [(os.getpid(), ["score-run"], 2)]  # the second one scored nothing
    assert (scope["runs_scored"], scope["files_unchanged"]) == ([], 4)
    # OUT/index.md counts them on the day whose run log says them
    assert f"| [{DATE}]({DATE}/index.md) | partial (exit 1) | 0 (+1 of a stopped job) | 0 |" in (
        (tmp_path / "out" / "index.md").read_text()
    )


class _StopAtRunLog(Renderer):
    def markdown(self, kind: str, ctx: Any) -> str:
        if kind == "runlog":
            raise KeyboardInterrupt
        return super().markdown(kind, ctx)


def test_a_pack_record_of_a_stopped_job_whose_input_changed_is_kept_and_read_by_nothing(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec-silent; what README says of the packs' histories. A job stopped after pipeline
    appended its records, the task file then changed: the next job scores the file as it
    is and appends the new record, which its run log says as its own (the stopped job's as
    a stopped job's: tests/hardening/test_nightly_packs.py); the stopped job's stays in the
    history (append-only) but is superseded: the history's readers take the latest line
    per pipeline, so no report reads it."""
    from runscore.engine.packs import pipeline as pl

    monkeypatch.chdir(tmp_path)
    tasks = tmp_path / "proj/.archeflow/tasks/tasks.jsonl"
    tasks.parent.mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks)
    day = nightly.parse_date(DATE)
    with pytest.raises(KeyboardInterrupt):
        nightly.run_nightly(["proj"], "out", renderer=_StopAtRunLog(), hooks=pack_hooks(), date=day)
    hist = tmp_path / "proj/.archeflow/memory/pipelines.jsonl"
    stopped = hist.read_text().splitlines()
    assert not (tmp_path / "out" / DATE).exists()
    old = '"testResult": "PASS 20/20"'
    text = tasks.read_text()
    tasks.write_text(text.replace(old, '"testResult": "FAIL 3/20"', 1))
    nightly.run_nightly(["proj"], "out", renderer=Renderer(), hooks=pack_hooks(), date=day)
    lines = hist.read_text().splitlines()
    assert lines[: len(stopped)] == stopped  # kept as it was
    verdicts = [(r["pipeline_id"], r["verdict"]) for r in map(json.loads, lines)]
    assert verdicts[len(stopped) :] == [("p-excellent", "GOOD")]
    assert ("p-excellent", "EXCELLENT") in verdicts[: len(stopped)]
    report = json.loads(
        (
            tmp_path / "out" / DATE / "pipeline/proj/pipeline-eval-p-excellent-2026-04-05.json"
        ).read_text()
    )
    assert report["verdict"] == "GOOD"
    current = pl.history_report(str(hist)).pipelines.to_pylist()
    assert [r["verdict"] for r in current if r["pipeline_id"] == "p-excellent"] == ["GOOD"]


def test_leftovers_of_a_crash_are_recovered(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / ".2026-04-05.old-123").mkdir(parents=True)  # crashed between the two renames
    (out / ".2026-04-05.old-123" / "index.md").write_text("old")
    (out / ".2026-04-06.tmp-456").mkdir()  # crashed while rendering
    (out / "2026-04-07").mkdir()
    (out / ".2026-04-07.old-789").mkdir()  # crashed after the swap, before the delete
    nightly._recover(str(out))
    assert sorted(p.name for p in out.iterdir()) == ["2026-04-05", "2026-04-07"]
    assert (out / "2026-04-05" / "index.md").read_text() == "old"


def test_exit_codes(tmp_path: Path, fixtures: Path, run_cli: Any, hh: Any) -> None:
    hh.write_jsonl(tmp_path / "clean/.archeflow/events/a.jsonl", hh.run_events("a"))
    assert run_cli("nightly", "--root", "clean", "--out", "out").exit_code == 0
    bad_date = run_cli("nightly", "--root", "clean", "--date", "2026-02-30")
    assert bad_date.exit_code == 2 and "YYYY-MM-DD" in bad_date.stderr
    (tmp_path / "bad.yaml").write_text("check: [")
    bad_team = run_cli("nightly", "--root", "clean", "--team", "bad.yaml")
    assert bad_team.exit_code == 2 and "bad.yaml:1" in bad_team.stderr
    assert run_cli("nightly", "--root", "clean", "--team", "nope.yaml").exit_code == 2
    (tmp_path / "empty").mkdir()
    assert run_cli("nightly", "--root", "empty", "--out", "out3").exit_code == 3


def test_nothing_to_read_writes_nothing(tmp_path: Path, run_cli: Any) -> None:
    """Exit 3 with no input anywhere: no output folder, no lock file, no history folder."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x\n")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    res = run_cli(
        "nightly",
        "--root",
        "empty",
        "--root",
        "file",
        "--root",
        "missing",
        "--history",
        "mem/all.jsonl",
        "--out",
        "out/deep",
    )
    assert res.exit_code == 3 and res.stdout == ""
    assert res.stderr.splitlines() == [
        "error: nothing readable: no root had run logs, pack inputs or an existing history",
        "  file: root skipped: not a directory",
        "  missing: root skipped: no such directory",
        "  empty/.archeflow/events: no event logs (folder missing)",
        "  mem/all.jsonl: no history yet",
    ]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    # An events folder with no run log below it (a file of another kind, a folder) is
    # nothing to read either: it made the output folder, its lock file, the history's
    # folder and its nightly lock file, then said the same exit 3.
    (tmp_path / "empty/.archeflow/events/2026").mkdir(parents=True)
    (tmp_path / "empty/.archeflow/events/notes.txt").write_text("x\n")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    res = run_cli("nightly", "--root", "empty", "--out", "out2")
    assert (res.exit_code, res.stdout, res.stderr.splitlines()) == (
        3,
        "",
        [
            "error: nothing readable: no root had run logs, pack inputs or an existing history",
            "  empty/.archeflow/events: no *.jsonl run logs",
            "  empty/.archeflow/memory/effectiveness.jsonl: no history yet",
        ],
    )
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    # Something to read (a run log, here an empty one): the job runs, looks, and says so
    # (its output folder and locks are made then).
    (tmp_path / "empty/.archeflow/events/2026/r.jsonl").write_bytes(b"")
    res = run_cli("nightly", "--root", "empty", "--out", "out2")
    assert res.exit_code == 0
    assert (tmp_path / "out2/.nightly.lock").is_file()


def test_a_job_that_tried_and_read_nothing_leaves_its_lock_files_and_no_day_folder(
    tmp_path: Path, run_cli: Any
) -> None:
    """Exit 3 after the job looked (every run log rejected): no day folder, as README
    says; the lock files and the folders made for them stay (removing a lock file on the
    way out races with a process waiting for it: see the module docstring), and no
    nightly journal (its extract appended nothing). The next job is not stopped by them."""
    ev = tmp_path / "proj/.archeflow/events"
    ev.mkdir(parents=True)
    (ev / "r.jsonl").write_text("not json\n")
    args = ("nightly", "--root", "proj", "--out", "out/sub", "--date", DATE)
    res = run_cli(*args)
    assert (res.exit_code, res.stdout) == (3, "")
    made = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert made == [
        "out",
        "out/sub",
        "out/sub/.nightly.lock",
        "proj",
        "proj/.archeflow",
        "proj/.archeflow/events",
        "proj/.archeflow/events/r.jsonl",
        "proj/.archeflow/memory",
        "proj/.archeflow/memory/effectiveness.jsonl.nightly.lock",
    ]
    assert run_cli(*args).exit_code == 3
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == made


def test_empty_inputs_are_nothing_read_by_the_commands_but_not_rejected_by_the_job(
    tmp_path: Path, run_cli: Any
) -> None:
    """`extract` and `routes` given only files that hold no line exit 3 (nothing read, each
    file named). The nightly job keeps taking them as it did: an empty run log is a run
    that has just begun (listed as an empty file, not rejected input), and empty episode
    files are a routes report of no episodes; the job exits 0."""
    ev = tmp_path / "proj" / ".archeflow" / "events"
    ep = tmp_path / "proj" / ".archeflow" / "episodes"
    ev.mkdir(parents=True)
    ep.mkdir(parents=True)
    (ev / "new-run.jsonl").write_bytes(b"")
    (ep / "episodes.jsonl").write_bytes(b"")
    res = run_cli("extract", "proj/.archeflow/events", "--history", "h.jsonl")
    assert (res.exit_code, res.stderr) == (
        3,
        "error: nothing could be read:\n  proj/.archeflow/events/new-run.jsonl: empty (no events)\n",
    )
    res = run_cli("routes", "proj/.archeflow/episodes/episodes.jsonl")
    assert (res.exit_code, res.stderr) == (
        3,
        "error: no episode could be read:\n"
        "  proj/.archeflow/episodes/episodes.jsonl: empty (no episodes)\n",
    )
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (0, [])
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    scope = log["scopes"][0]
    assert (scope["files_read"], scope["empty_files"], scope["rejected"]) == (
        1,
        ["proj/.archeflow/events/new-run.jsonl"],
        [],
    )
    routes = json.loads((tmp_path / "out" / DATE / "routes" / "proj" / "routes.json").read_text())
    assert routes["inputs"]["episodes"] == 0


def test_empty_task_files_are_a_summary_of_no_pipelines_in_the_job(
    tmp_path: Path, run_cli: Any
) -> None:
    """Task files that hold no line are taken as empty run logs and episode files are: a
    task list just created, not rejected input. `pipeline` given only them exits 3, as
    `extract` and `routes` do; the nightly job writes a summary of no pipelines, appends no
    pipeline history and exits 0, also for a root with nothing else (it failed the step:
    "no usable task snapshot", exit 1, or exit 3 with nothing else to read). A task line
    that is rejected is still rejected input."""
    tasks = tmp_path / "proj" / ".archeflow" / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "a.jsonl").write_bytes(b"")
    (tasks / "b.jsonl").write_bytes(b"\n  \n")
    res = run_cli("pipeline", "proj/.archeflow/tasks", "--no-history", "--out", "rep")
    assert (res.exit_code, res.stderr) == (
        3,
        "error: no usable task snapshot in the input:\n"
        "  proj/.archeflow/tasks/a.jsonl: empty (no task snapshots)\n"
        "  proj/.archeflow/tasks/b.jsonl: only blank lines (no task snapshots)\n",
    )
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (0, [])
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    [pack] = log["packs"]
    summary = f"pipeline/proj/pipeline-eval-summary-{DATE}"
    assert (pack["pack"], pack["error"], pack["summary"], log["rejected"]) == (
        "pipeline",
        None,
        "0 pipeline(s) scored, 0 not terminal",
        [],
    )
    assert [o["path"] for o in pack["outputs"]] == [summary + ".md", summary + ".json"]
    assert (
        json.loads((tmp_path / "out" / DATE / (summary + ".json")).read_text())["pipelines"] == []
    )
    assert not (tmp_path / "proj/.archeflow/memory/pipelines.jsonl").exists()
    # Beside a file that holds no line, a rejected line fails the step as it did.
    (tasks / "c.jsonl").write_text("not json\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stderr.splitlines()[:3]) == (
        3,
        [
            "error: nothing readable: no root's run logs, pack inputs or history could be read",
            "  proj: pipeline: no usable task snapshot in the input",
            "  proj/.archeflow/tasks/c.jsonl:1: pipeline: not JSON: Expecting value: line 1 "
            "column 1 (char 0)",
        ],
    )


def test_shared_history_and_given_team(tmp_path: Path, run_cli: Any, hh: Any) -> None:
    hh.write_jsonl(tmp_path / "a/.archeflow/events/x.jsonl", hh.run_events("from-a"))
    hh.write_jsonl(tmp_path / "b/.archeflow/events/x.jsonl", hh.run_events("from-b"))
    (tmp_path / "team.yaml").write_text("name: t\ncheck: [guardian]\n")
    res = run_cli(
        "nightly",
        "--root",
        "a",
        "--root",
        "b",
        "--history",
        "all.jsonl",
        "--team",
        "team.yaml",
        "--out",
        "out",
        "--date",
        DATE,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.stderr
    log = json.loads(res.stdout)
    (scope,) = log["scopes"]
    assert (scope["label"], scope["roots"], scope["history"]) == (
        "combined",
        ["a", "b"],
        "all.jsonl",
    )
    assert sorted(scope["runs_scored"]) == ["from-a", "from-b"]
    assert [t["origin"] for t in scope["teams"]] == ["given"]
    day = tmp_path / "out" / DATE
    assert (day / "effectiveness/combined/recommend-team.md").is_file()
    assert not (tmp_path / "a/.archeflow/memory").exists()  # nothing written per root


def test_pipeline_pack_joins_when_its_inputs_are_there(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    root = tmp_path / "proj"
    (root / ".archeflow/tasks").mkdir(parents=True)
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", root / ".archeflow/tasks/tasks.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    log = json.loads(res.stdout)
    (pack,) = log["packs"]
    assert pack["pack"] == "pipeline" and pack["error"] is None
    day = tmp_path / "out" / DATE
    summary = f"pipeline/proj/pipeline-eval-summary-{DATE}.md"
    assert summary in {o["path"] for o in pack["outputs"]}
    assert (day / summary).is_file()
    assert f"]({summary})" in (day / "index.md").read_text()
    assert (root / ".archeflow/memory/pipelines.jsonl").is_file()
    assert log["scopes"][0]["history_exists"] is False  # no run logs: no effectiveness report
    assert [h.pack for h in pack_hooks()] == ["pipeline", "plugin", "routes"]


def test_stderr_lists_rejected_input_in_the_run_logs_order(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # stderr (and runlog.json's `rejected`) listed roots' and packs' problems first, where
    # runlog.md lists each effectiveness scope's first, then the rest.
    root = tmp_path / "proj"
    (root / ".archeflow/events").mkdir(parents=True)
    (root / ".archeflow/events/a.jsonl").write_text("not json\n")
    hh.write_jsonl(root / ".archeflow/events/b.jsonl", hh.run_events("run-1"))
    (root / ".archeflow/episodes").mkdir()
    (root / ".archeflow/episodes/e.jsonl").write_text("{}\n")
    res = run_cli(
        "nightly", "--root", "missing", "--root", "proj", "--out", "out", "--date", DATE,
        "--format", "json",
    )  # fmt: skip
    assert res.exit_code == 1, res.stderr
    expected = [
        "proj/.archeflow/events/a.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        "missing: root skipped: no such directory",
        "proj: routes: no episode could be read",
        "proj/.archeflow/episodes/e.jsonl:1: routes: lacks episodeId (a non-empty string)",
    ]
    assert res.stderr.splitlines()[:-1] == expected
    assert [d["text"] for d in json.loads(res.stdout)["rejected"]] == expected
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert [ln[2:] for ln in runlog.splitlines() if ln[2:] in expected] == expected


def test_warnings_are_on_stderr_after_rejected_input_in_the_run_logs_order(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # A run's warnings (a cost ignored, say) were in the run log only, while rejected input
    # was on stderr too: a cron job's mail never showed them.
    root = tmp_path / "proj"
    hh.write_jsonl(root / ".archeflow/events/a.jsonl", hh.run_events("run-1", cost="lots"))
    (root / ".archeflow/events/b.jsonl").write_text("not json\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    cost = "proj/.archeflow/events/a.jsonl:2: cost ignored: not a finite non-negative number"
    day = tmp_path / "out" / DATE
    assert res.stderr.splitlines() == [
        "proj/.archeflow/events/b.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        f'warning: {cost} (run "run-1")',  # quoted as every message quotes a run id
        f"nightly {DATE}: 1 run(s) scored, 0 already scored (same events), "
        "0 incomplete, 0 unchanged file(s) not re-read, "
        f"1 rejected input(s), 1 warning(s); 5 file(s) in {day}",
    ]
    assert f'- {cost} (run "run-1")\n' in (day / "runlog.md").read_text()


def test_stderr_counts_the_runs_already_scored_as_the_run_log_does(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    # The run log and the index count the runs already scored with the same events; the
    # count line on stderr, what a cron job mails, left them out.
    log = tmp_path / "proj/.archeflow/events/a.jsonl"
    hh.write_jsonl(log, hh.run_events("run-1"))
    args = ("nightly", "--root", "proj", "--out", "out")
    assert run_cli(*args, "--date", "2026-04-04").exit_code == 0
    hh.write_jsonl(log, [*hh.run_events("run-1"), *hh.run_events("run-2")])
    res = run_cli(*args, "--date", DATE)
    assert res.exit_code == 0, res.stderr
    day = tmp_path / "out" / DATE
    assert res.stderr.splitlines()[-1] == (
        f"nightly {DATE}: 1 run(s) scored, 1 already scored (same events), 0 incomplete, "
        f"0 unchanged file(s) not re-read, 0 rejected input(s), 0 warning(s); "
        f"5 file(s) in {day}"
    )
    assert "| Runs already scored (same events) | 1 |\n" in (day / "runlog.md").read_text()


def test_skipped_pipeline_history_lines_are_warnings_naming_file_and_line(
    tmp_path: Path, run_cli: Any
) -> None:
    # The pipeline pack reads its history to tell new records from ones already there; a
    # line it cannot read is skipped, and the run log must say which (file, line, reason).
    root = tmp_path / "proj"
    (root / ".archeflow/tasks").mkdir(parents=True)
    (root / ".archeflow/tasks/tasks.jsonl").write_text(
        '{"pipelineId": "p1", "id": "t1", "status": "completed"}\n'
    )
    args = ("nightly", "--root", "proj", "--out", "out", "--format", "json")
    assert run_cli(*args, "--date", "2026-04-04").exit_code == 0
    hist = root / ".archeflow/memory/pipelines.jsonl"
    with hist.open("a") as f:
        f.write('{"pipeline_id": "torn", "scoring_ver\n')
    res = run_cli(*args, "--date", DATE)
    assert res.exit_code == 0, res.stderr  # a warning, not rejected input
    (pack,) = json.loads(res.stdout)["packs"]
    reason = (
        "pipeline: history line skipped: not JSON: "
        "Unterminated string starting at: line 1 column 25 (char 24)"
    )
    assert [(w["kind"], w["file"], w["line"], w["reason"]) for w in pack["warnings"]] == [
        ("pack", "proj/.archeflow/memory/pipelines.jsonl", 2, reason)
    ]
    # Said on stderr too, as `pipeline` says it (it was in the run log only).
    day = tmp_path / "out" / DATE
    assert res.stderr.splitlines() == [
        f"warning: proj/.archeflow/memory/pipelines.jsonl:2: {reason}",
        f"nightly {DATE}: 0 run(s) scored, 0 already scored (same events), "
        "0 incomplete, 0 unchanged file(s) not re-read, "
        f"0 rejected input(s), 1 warning(s); 7 file(s) in {day}",
    ]
    runlog = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert f"- warning: proj/.archeflow/memory/pipelines.jsonl:2: {reason}\n" in runlog
    # the torn line is kept, and the day's record, already there, is not appended again
    assert len(hist.read_text().splitlines()) == 2


def test_plugin_and_routes_packs_join(tmp_path: Path, fixtures: Path, run_cli: Any) -> None:
    root = tmp_path / "proj"
    skills = root / ".archeflow/plugin-eval/skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    eps = root / ".archeflow/episodes"
    eps.mkdir(parents=True)
    ep = {
        "episodeId": "e1",
        "source": {"kind": "historical", "host": "h"},
        "activity": {"id": "docs"},
        "execution": {"host": "h", "inferenceProvider": "anthropic", "model": "claude-haiku"},
        "outcome": {"status": "succeeded", "signals": [{"kind": "gate", "value": "pass"}]},
    }
    (eps / "e.jsonl").write_text(json.dumps(ep) + "\nnot json\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 1  # the bad episode line
    log = json.loads(res.stdout)
    outputs = {p["pack"]: sorted(o["path"] for o in p["outputs"]) for p in log["packs"]}
    assert outputs == {
        "plugin": [
            "plugin/proj/plugin-report.json",
            "plugin/proj/plugin-report.md",
            "plugin/proj/skills/async-python-patterns.md",
        ],
        "routes": ["routes/proj/routes.json", "routes/proj/routes.md"],
    }
    assert [d["text"] for d in log["rejected"]] == [
        "proj/.archeflow/episodes/e.jsonl:2: routes: not JSON: Expecting value: line 1 column 1 "
        "(char 0)"
    ]
    day = tmp_path / "out" / DATE
    index = (day / "index.md").read_text()
    assert all(f"]({p})" in index for paths in outputs.values() for p in paths)
    assert all((day / p).is_file() for paths in outputs.values() for p in paths)


def test_routes_episodes_dated_after_the_day_are_warnings_on_stderr_and_in_the_run_log(
    tmp_path: Path, run_cli: Any
) -> None:
    # `routes` says an episode dated after the as-of date as a warning (its time dates no
    # evidence); the nightly job, whose routes report is as of its --date, had it in
    # routes.json's inputs only: not on stderr, not in the run log, not counted.
    eps = tmp_path / "proj/.archeflow/episodes"
    eps.mkdir(parents=True)
    ep = {
        "episodeId": "e1",
        "source": {"kind": "historical", "host": "h"},
        "activity": {"id": "docs"},
        "execution": {
            "host": "h",
            "inferenceProvider": "anthropic",
            "model": "claude-haiku",
            "startedAt": "2026-04-06T00:00:01Z",
            "endedAt": "2026-04-06T00:00:02Z",
        },
        "outcome": {"status": "succeeded", "signals": [{"kind": "gate", "value": "pass"}]},
    }
    on_the_day = {**ep, "episodeId": "e2", "execution": {**ep["execution"]}}
    on_the_day["execution"].update(startedAt=f"{DATE}T23:59:58Z", endedAt=f"{DATE}T23:59:59Z")
    (eps / "e.jsonl").write_text(json.dumps(on_the_day) + "\n" + json.dumps(ep) + "\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--format", "json")
    assert res.exit_code == 0, res.stderr  # read and counted: not rejected input
    reason = (
        f"routes: dated 2026-04-06T00:00:02Z, after the as-of date {DATE}: its time is not "
        "used (read as undated: it makes no evidence fresh)"
    )
    log = json.loads(res.stdout)
    (routes,) = log["packs"]
    assert [(w["kind"], w["file"], w["line"], w["reason"]) for w in routes["warnings"]] == [
        ("pack", "proj/.archeflow/episodes/e.jsonl", 2, reason)
    ]
    assert routes["counts"] == {"episodes": 2, "findings": 0}
    day = tmp_path / "out" / DATE
    assert res.stderr.splitlines() == [
        f"warning: proj/.archeflow/episodes/e.jsonl:2: {reason}",
        f"nightly {DATE}: 0 run(s) scored, 0 already scored (same events), "
        "0 incomplete, 0 unchanged file(s) not re-read, "
        f"0 rejected input(s), 1 warning(s); 5 file(s) in {day}",
    ]
    runlog = (day / "runlog.md").read_text()
    assert f"- warning: proj/.archeflow/episodes/e.jsonl:2: {reason}\n" in runlog
    said = json.loads((day / "routes" / "proj" / "routes.json").read_text())["inputs"]
    assert [(i["line"], "routes: " + i["reason"]) for i in said["after_as_of"]] == [(2, reason)]


def _path_digest(path: Path) -> str:
    return hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:8]


def test_same_basename_roots_keep_their_names_whatever_the_order(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """Two roots named alike are told apart by their real paths, not by the order they
    were given in: a reordered crontab must not swap the projects' day-over-day folders."""
    projects = {"a/proj": "guardian", "b/proj": "skeptic", "c/PROJ": "trickster", "solo": "sage"}
    for root, archetype in projects.items():
        events = hh.run_events(f"run-of-{root}", archetype=archetype)
        hh.write_jsonl(tmp_path / root / ".archeflow/events/x.jsonl", events)
    want = {
        "a/proj": f"proj-{_path_digest(tmp_path / 'a/proj')}",
        "b/proj": f"proj-{_path_digest(tmp_path / 'b/proj')}",
        "c/PROJ": f"PROJ-{_path_digest(tmp_path / 'c/PROJ')}",  # alike on a case-blind disk
        "solo": "solo",  # a name no other root has stays as it is
    }
    for date, order in (
        ("2026-04-05", ["a/proj", "b/proj", "c/PROJ", "solo"]),
        ("2026-04-06", ["solo", "c/PROJ", "b/proj", "a/proj"]),
    ):
        args = [a for r in order for a in ("--root", r)]
        res = run_cli("nightly", *args, "--out", "out", "--date", date, "--format", "json")
        assert res.exit_code == 0, res.stderr
        log = json.loads(res.stdout)
        assert {r["root"]: r["label"] for r in log["roots"]} == want
        assert {s["label"]: s["roots"] for s in log["scopes"]} == {want[r]: [r] for r in want}
        eff = tmp_path / "out" / date / "effectiveness"
        assert sorted(p.name for p in eff.iterdir()) == sorted(want.values())
        # Each folder holds its own project's report, on both nights.
        for root, label in want.items():
            hist = tmp_path / root / ".archeflow/memory/effectiveness.jsonl"
            own = run_cli("report", "--history", str(hist)).stdout
            assert (eff / label / "report.md").read_text() == own
            rows = json.loads((eff / label / "report.json").read_text())
            assert projects[root] in {r["archetype"] for r in rows}


def test_team_presets_named_alike_keep_their_files_whatever_the_order(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """Two presets with one file name (``good.yml`` in two roots of one ``--history``, or
    a ``--team`` beside a root's own) were numbered in the order the job met them:
    ``recommend-good`` for the first, ``recommend-good-2`` for the next, so a reordered
    ``--root`` list swapped the teams' day-over-day files (one team's recommendations
    under the other's name). Told apart as roots are: by 8 hex digits of a hash of each
    preset's real path; a name no other preset has stays as it is."""
    teams = {"a/.archeflow/teams/good.yml": "team-a", "b/.archeflow/teams/good.yml": "team-b"}
    for root in ("a", "b"):
        hh.write_jsonl(tmp_path / root / ".archeflow/events/x.jsonl", hh.run_events(root))
    for path, name in teams.items():
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_text(f"name: {name}\ncheck: [guardian]\n")
    (tmp_path / "solo.yaml").write_text("name: solo\ncheck: [guardian]\n")
    want = {
        **{p: f"recommend-good-{_path_digest(tmp_path / p)}" for p in teams},
        "solo.yaml": "recommend-solo",
    }
    for date, roots in (("2026-04-05", ["a", "b"]), ("2026-04-06", ["b", "a"])):
        args = [a for r in roots for a in ("--root", r)]
        res = run_cli(
            "nightly", *args, "--history", "all.jsonl", "--team", "solo.yaml",
            "--out", "out", "--date", date, "--format", "json",
        )  # fmt: skip
        assert res.exit_code == 0, res.stderr
        (scope,) = json.loads(res.stdout)["scopes"]
        got = {t["path"]: t["outputs"][0]["path"] for t in scope["teams"]}
        assert got == {p: f"effectiveness/combined/{n}.md" for p, n in want.items()}
        folder = tmp_path / "out" / date / "effectiveness" / "combined"
        for path, name in teams.items():
            assert f"for team: {name}\n" in (folder / f"{want[path]}.md").read_text()


def test_a_history_under_the_events_folder_is_not_counted_as_a_run_log(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """A ``--history`` in a root's events folder is left out of the run logs (extract's
    ``excluded``), but the job counted it among the run log files found, said nothing of
    it, and a night with no other run log rejected it ("no input files: ...", exit 1):
    the run log read "2 found", 0 read and 1 unchanged. It is not counted, and the run
    log's notes say it was left out, as `extract` says it."""
    ev = tmp_path / "p/.archeflow/events"
    hh.write_jsonl(ev / "x.jsonl", hh.run_events("r1"))
    hist = "p/.archeflow/events/h.jsonl"
    args = ["nightly", "--root", "p", "--history", hist, "--out", "out", "--format", "json"]
    for night, (date, read, unchanged) in enumerate([("2026-04-05", 1, 0), ("2026-04-06", 0, 1)]):
        res = run_cli(*args, "--date", date)
        assert res.exit_code == 0, res.stderr
        (scope,) = json.loads(res.stdout)["scopes"]
        assert (scope["files_found"], scope["files_read"], scope["files_unchanged"]) == (
            1,
            read,
            unchanged,
        )
        assert scope["rejected"] == []
        said = f"{hist}: not read: it is the history this job writes to"
        assert scope["notes"] == ([said] if night else [])
    (ev / "x.jsonl").unlink()  # the history alone: nothing to extract, not rejected input
    res = run_cli(*args, "--date", "2026-04-07")
    assert res.exit_code == 0, res.stderr
    (scope,) = json.loads(res.stdout)["scopes"]
    assert (scope["files_found"], scope["rejected"], scope["history_lines"]) == (0, [], 2)
    assert scope["notes"] == [
        f"{hist}: not read: it is the history this job writes to",
        "p/.archeflow/events: no *.jsonl run logs",
    ]


def test_a_history_that_is_a_run_log_under_the_events_folder_is_refused(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """``--history p/.archeflow/events/x.jsonl`` (a run log): each project's extract left it
    out, as the history is, and appended the records to it (its events lost to every
    later night). Refused before anything is read or written, exit 2, as `extract` refuses
    it; a history there that holds records is left out, as above."""
    ev = tmp_path / "p/.archeflow/events"
    hh.write_jsonl(ev / "x.jsonl", hh.run_events("r1"))
    hh.write_jsonl(ev / "y.jsonl", hh.run_events("r2"))
    before = (ev / "x.jsonl").read_bytes()
    hist = "p/.archeflow/events/x.jsonl"
    res = run_cli("nightly", "--root", "p", "--history", hist, "--out", "out")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"error: {hist}: that is the run log {hist} the job reads (--root); choose another "
        "--history (see 'cli nightly --help')\n"
    )
    assert sorted(p.name for p in ev.iterdir()) == ["x.jsonl", "y.jsonl"]
    assert (ev / "x.jsonl").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


def test_an_input_inside_the_day_folder_is_refused(tmp_path: Path, run_cli: Any, hh: Any) -> None:
    """``--history out/2026-04-05/h.jsonl`` (or a root there) and a rerun of that day: the
    job appended to that history, then swapped its new day folder in, and the old one was
    removed with the history in it. The day folder is replaced whole, so a root,
    ``--history`` or ``--team`` inside it is refused before anything is read or written."""
    hh.write_jsonl(tmp_path / "p/.archeflow/events/x.jsonl", hh.run_events("r1"))
    args = ["nightly", "--root", "p", "--out", "out", "--date", "2026-04-05"]
    assert run_cli(*args).exit_code == 0
    day = tmp_path / "out/2026-04-05"
    (day / "h.jsonl").write_text("")
    hh.write_jsonl(day / "q/.archeflow/events/y.jsonl", hh.run_events("r2"))
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    for extra, what in [
        (["--history", "out/2026-04-05/h.jsonl"],
         "history out/2026-04-05/h.jsonl the job appends to (--history)"),
        (["--root", "out/2026-04-05/q"], "root out/2026-04-05/q the job reads (--root)"),
    ]:  # fmt: skip
        res = run_cli(*args, *extra)
        assert (res.exit_code, res.stdout) == (2, ""), res.stderr
        assert res.stderr == (
            f"error: out/2026-04-05: that holds the {what}, and is replaced whole; choose "
            "another --out (see 'cli nightly --help')\n"
        )
        assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before


def test_a_past_date_says_the_reports_read_the_history_as_it_is_now(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """A missed night re-run the next morning: the runs extracted now (history ts = now)
    are in the reports of the past day's folder, and the run log and index say so."""
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/x.jsonl", hh.run_events("late"))
    past = "2026-04-05"
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", past, "--format", "json")
    assert res.exit_code == 0, res.stderr
    log = json.loads(res.stdout)
    note = (
        f"the folder is dated {past}, but its effectiveness reports and recommendations read "
        f"each history as this job found it (lines written after {past} included), not as it "
        f"was on {past}"
    )
    assert log["notes"] == [note]
    rows = json.loads((tmp_path / "out" / past / "effectiveness/proj/report.json").read_text())
    assert [(r["archetype"], r["runs"]) for r in rows] == [("guardian", 1), ("sage", 1)]
    day = tmp_path / "out" / past
    assert f"- {note}\n" in (day / "runlog.md").read_text()
    assert f"\nNote: {note}\n" in (day / "index.md").read_text()
    # Today's folder (the default): nothing to say.
    today = run_cli("nightly", "--root", "proj", "--out", "out", "--format", "json")
    assert today.exit_code == 0, today.stderr
    assert json.loads(today.stdout)["notes"] == []


def test_a_lock_file_left_by_a_failed_job_does_not_stop_the_next(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """The lock is an flock on OUT/.nightly.lock: a job that failed (or was killed) let go
    of it when its process ended, and the file it leaves is reused, never deleted (see the
    module docstring: deleting it would let two jobs run at once)."""
    _project(tmp_path, fixtures)
    with pytest.raises(RuntimeError, match="disk full"):
        nightly.run_nightly(["proj"], "out", renderer=_Failing(), date=nightly.parse_date(DATE))
    lock = tmp_path / "out" / ".nightly.lock"
    assert lock.is_file()
    inode = lock.stat().st_ino
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--wait", "0")
    assert res.exit_code == 1, res.stderr  # the fixture's malformed lines, not a lock
    assert "already running" not in res.stderr
    assert (tmp_path / "out" / DATE / "index.md").is_file()
    assert lock.stat().st_ino == inode
    # A job killed while holding it (SIGKILL: no cleanup at all) lets go of it too.
    code = (
        "import os, signal; from runscore.engine import history\n"
        "with history.locked('out/.nightly', timeout=0):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=False)
    assert killed.returncode == -signal.SIGKILL
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE, "--wait", "0")
    assert res.exit_code == 1 and "already running" not in res.stderr
    assert lock.stat().st_ino == inode


_EPISODE = {
    "episodeId": "e1",
    "source": {"kind": "historical", "host": "h"},
    "activity": {"id": "docs"},
    "execution": {"host": "h", "inferenceProvider": "anthropic", "model": "claude-haiku"},
    "outcome": {"status": "succeeded", "signals": [{"kind": "gate", "value": "pass"}]},
}


def _interrupted_query(*args: Any, **kwargs: Any) -> Any:
    """What a step meets when Ctrl-C lands in one of its queries, in a DuckDB that says it
    with InterruptException: the SQL runner's error, raised from DuckDB's."""
    import threading

    import duckdb
    from runscore.engine import sqlpack

    con = duckdb.connect()
    timer = threading.Timer(0.3, con.interrupt)
    timer.start()
    try:
        sqlpack.execute(con, "SELECT count(*) FROM range(3000000000) t(i) WHERE i % 7 = 3")
    finally:
        timer.cancel()
        con.close()
    raise AssertionError("the query was not interrupted")


@pytest.mark.parametrize("step", ["extract", "report", "routes"])
def test_ctrl_c_in_a_query_stops_the_job(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """An interrupted query failed that project's step, as a broken input does: the job
    went on with the other projects and exited 1. Ctrl-C stops the job: exit 130, no day
    folder, and the next job runs (the locks are free; the histories whole)."""
    from runscore.engine.packs import effectiveness, routes
    from runscore.engine.packs import effectiveness_history as eh

    for name in ("a", "b"):
        _project(tmp_path, fixtures, name)
        eps = tmp_path / name / ".archeflow" / "episodes"
        eps.mkdir()
        (eps / "e.jsonl").write_text(json.dumps(_EPISODE) + "\n")
    calls: list[str] = []

    def stopped(*args: Any, **kwargs: Any) -> Any:
        calls.append(step)
        return _interrupted_query()

    module, name = {
        "extract": (effectiveness, "extract"),
        "report": (eh, "report"),
        "routes": (routes, "analyze"),
    }[step]
    real = getattr(module, name)
    monkeypatch.setattr(module, name, stopped)
    res = run_cli("nightly", "--root", "a", "--root", "b", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stdout) == (130, "")
    assert res.stderr.splitlines()[-1] == "error: interrupted"
    assert calls == [step]  # the other project's step never started
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".nightly.lock"]
    monkeypatch.setattr(module, name, real)
    res = run_cli("nightly", "--root", "a", "--root", "b", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr  # the fixture's malformed lines
    assert "already running" not in res.stderr
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert sorted(s["label"] for s in log["scopes"]) == ["a", "b"]
    for s in log["scopes"]:
        assert s["report"] is not None, s
        assert [d for d in s["rejected"] if d["kind"] == "history"] == []
    assert sorted((p["label"], p["error"]) for p in log["packs"]) == [("a", None), ("b", None)]
    for name in ("a", "b"):
        hist = tmp_path / name / ".archeflow" / "memory" / "effectiveness.jsonl"
        assert len(hist.read_text().splitlines()) == 2  # guardian and sage, once


def test_an_events_folder_of_unreadable_logs_is_rejected_file_by_file(
    tmp_path: Path, run_cli: Any
) -> None:
    """A project whose every run log is unreadable was one rejected entry naming the events
    folder, its reason the whole error run together; the packs' rejected inputs are one
    per file and line. Now the effectiveness step's are too."""
    ev = tmp_path / "proj" / ".archeflow" / "events"
    ev.mkdir(parents=True)
    (ev / "a.jsonl").write_text("not json\n[1]\n")
    (ev / "b.jsonl").write_bytes(b"\x1f\x8b\x08\x00rest")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stdout) == (3, "")
    rejected = [line for line in res.stderr.splitlines() if line.startswith("  proj/")]
    assert rejected == [
        "  proj/.archeflow/events/a.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        "  proj/.archeflow/events/a.jsonl:2: not a JSON object (an array)",
        "  proj/.archeflow/events/b.jsonl: gzip-compressed: runscore reads plain JSONL "
        "(decompress it first)",
        "  proj/.archeflow/memory/effectiveness.jsonl: no history yet",
    ], res.stderr


def test_recommend_s_notes_on_a_score_earned_on_another_tier_are_in_the_run_log(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """`recommend` notes, on stderr, each member advised on a model of another tier than
    its score was earned on; the job wrote the same recommendations and said nothing."""
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/r.jsonl", hh.run_events("r1", model="haiku"))
    teams = tmp_path / "proj/.archeflow/teams"
    teams.mkdir(parents=True)
    (teams / "t.yaml").write_text("name: t\ncheck: [guardian]\nmodel_overrides: {guardian: opus}\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0
    note = (
        "guardian: the team says opus (premium, in model_overrides); its one run ran on "
        "haiku (cheap): the score was earned there"
    )
    rec = run_cli(
        "recommend", "proj/.archeflow/teams/t.yaml", "--history", nightly.history_of("proj")
    )
    assert rec.stderr == f"note: {note}\n"
    day = tmp_path / "out" / DATE
    [team] = json.loads((day / "runlog.json").read_text())["scopes"][0]["teams"]
    assert team["notes"] == [note]
    md = (day / "runlog.md").read_text()
    assert (
        "- proj/.archeflow/teams/t.yaml (discovered): effectiveness/proj/recommend-t.md, "
        "effectiveness/proj/recommend-t.json\n"
        f"  - note: {note}\n\n"
    ) in md
    # Unattended, the job keeps its notes to the run log (README): stderr has the counts.
    assert note not in res.stderr


def test_a_utf16_history_with_run_logs_to_extract_is_said_once(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """Extract refuses to append to it; the report was then tried and failed on the same
    file, and the one fault was two rejected inputs: "not extracted: ..." and "no report:
    ..." in other words. A history with no run logs to extract still says "no report"."""
    hh.write_jsonl(tmp_path / "proj/.archeflow/events/r.jsonl", hh.run_events("r1"))
    hist = tmp_path / nightly.history_of("proj")
    hist.parent.mkdir(parents=True)
    hist.write_bytes('{"run_id": "x"}\n'.encode("utf-16"))
    shutil.copytree(hist.parent, tmp_path / "quiet/.archeflow/memory")
    teams = tmp_path / "proj/.archeflow/teams"
    teams.mkdir(parents=True)
    (teams / "t.yaml").write_text("name: t\ncheck: [guardian]\n")
    res = run_cli("nightly", "--root", "proj", "--root", "quiet", "--out", "out", "--date", DATE)
    utf16 = "encoded as UTF-16 LE (byte-order mark)"
    convert = "(convert it first, e.g. iconv -f UTF-16 -t UTF-8)"
    not_extracted = (
        f"not extracted: {utf16}: runscore appends only to a UTF-8 JSONL history {convert}"
    )
    no_report = f"no report: {utf16}: runscore reads UTF-8 JSONL {convert}"
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (
        1,
        [
            f"proj/.archeflow/memory/effectiveness.jsonl: {not_extracted}",
            f"quiet/.archeflow/memory/effectiveness.jsonl: {no_report}",
        ],
    )
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert [len(s["rejected"]) for s in log["scopes"]] == [1, 1]
    [team] = log["scopes"][0]["teams"]
    # Why the preset was skipped, as before: the history could not be read.
    assert team["error"] == no_report.replace(": ", f": {nightly.history_of('proj')}: ", 1)
    index = (tmp_path / "out" / DATE / "index.md").read_text()
    assert f"| proj | 0 | 0 | 0 | 1 | {not_extracted} |\n" in index


def test_empty_task_and_episode_files_are_listed_as_empty_run_logs_are(
    tmp_path: Path, run_cli: Any
) -> None:
    """The job takes all three for nothing yet; only the empty run log was listed as an
    empty file, the others showing in their pack's list of inputs alone. A file of blank
    lines only holds no line either (README: "empty, or blank lines only"): it was listed
    nowhere, a 0-byte one under "Empty files"; both are now, on a night the run log is
    unchanged (not read again) too."""
    base = tmp_path / "proj" / ".archeflow"
    for folder, name in (("events", "new-run"), ("tasks", "a"), ("episodes", "e")):
        (base / folder).mkdir(parents=True)
        (base / folder / f"{name}.jsonl").write_bytes(b"")
    (base / "tasks" / "b.jsonl").write_bytes(b"\n")  # holds no line, but is not empty
    (base / "events" / "blank.jsonl").write_bytes(b"\n  \t\n\r\n")
    (base / "episodes" / "f.jsonl").write_bytes(b" \n\n")
    for night in (1, 2, 3):
        if night == 3:  # a run log read beside the unchanged ones
            (base / "events" / "later.jsonl").write_text("\n")
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
        assert (res.exit_code, res.stderr.splitlines()[:-1]) == (0, []), night
        log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
        later = ["proj/.archeflow/events/later.jsonl"] if night == 3 else []
        assert (log["scopes"][0]["files_unchanged"], log["scopes"][0]["empty_files"]) == (
            0 if night == 1 else 2,
            [
                "proj/.archeflow/events/blank.jsonl",
                *later,
                "proj/.archeflow/events/new-run.jsonl",
            ],
        )
        assert [(p["pack"], p["empty_files"]) for p in log["packs"]] == [
            ("pipeline", ["proj/.archeflow/tasks/a.jsonl", "proj/.archeflow/tasks/b.jsonl"]),
            ("routes", ["proj/.archeflow/episodes/e.jsonl", "proj/.archeflow/episodes/f.jsonl"]),
        ]
        md = (tmp_path / "out" / DATE / "runlog.md").read_text()
        assert f"| Empty files | {2 + len(later)} |\n" in md
        assert (
            "- proj/.archeflow/events/blank.jsonl: empty file\n"
            + "".join(f"- {f}: empty file\n" for f in later)
            + "- proj/.archeflow/events/new-run.jsonl: empty file\n"
        ) in md
        packs = md[md.index("## Other packs") : md.index("## Files")]
        assert packs == (
            "## Other packs\n\n"
            "### pipeline: proj\n\n"
            "Inputs: proj/.archeflow/tasks/a.jsonl, proj/.archeflow/tasks/b.jsonl. "
            "0 pipeline(s) scored, 0 not terminal\n\n"
            "- proj/.archeflow/tasks/a.jsonl: empty file\n"
            "- proj/.archeflow/tasks/b.jsonl: empty file\n\n"
            "### routes: proj\n\n"
            "Inputs: proj/.archeflow/episodes/e.jsonl, proj/.archeflow/episodes/f.jsonl. "
            "0 episode(s), 0 finding(s)\n\n"
            "- proj/.archeflow/episodes/e.jsonl: empty file\n"
            "- proj/.archeflow/episodes/f.jsonl: empty file\n\n"
        )


def _night_of_files_with_no_line(tmp_path: Path, run_cli: Any, hh: Any) -> None:
    """A night over a good project and one whose three readers each find a 0-byte file, a
    blank-only one and a bad line: only the bad lines are rejected input (stderr, exit 1);
    the others are the run log's empty files, per scope and per pack."""
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    base = tmp_path / "bad" / ".archeflow"
    for folder in ("events", "tasks", "episodes"):
        (base / folder).mkdir(parents=True)
        (base / folder / "a-zero.jsonl").write_bytes(b"")
        (base / folder / "b-blank.jsonl").write_bytes(b"\n \n")
        (base / folder / "c-bad.jsonl").write_text("not json\n")
    res = run_cli("nightly", "--root", "bad", "--root", "good", "--out", "out", "--date", DATE)
    not_json = "not JSON: Expecting value: line 1 column 1 (char 0)"
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (
        1,
        [
            f"bad/.archeflow/events/c-bad.jsonl:1: {not_json}",
            "bad: pipeline: no usable task snapshot in the input",
            f"bad/.archeflow/tasks/c-bad.jsonl:1: pipeline: {not_json}",
            "bad: routes: no episode could be read",
            f"bad/.archeflow/episodes/c-bad.jsonl:1: routes: {not_json}",
        ],
    )
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert log["scopes"][0]["empty_files"] == [
        "bad/.archeflow/events/a-zero.jsonl",
        "bad/.archeflow/events/b-blank.jsonl",
    ]
    assert [(p["pack"], p["empty_files"]) for p in log["packs"]] == [
        ("pipeline", ["bad/.archeflow/tasks/a-zero.jsonl", "bad/.archeflow/tasks/b-blank.jsonl"]),
        (
            "routes",
            ["bad/.archeflow/episodes/a-zero.jsonl", "bad/.archeflow/episodes/b-blank.jsonl"],
        ),
    ]


def test_a_file_that_holds_no_line_in_a_failed_step_is_said_once(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """A step that failed as nothing readable listed its 0-byte files twice: under "Empty
    files" and as rejected input ("empty (no events)"), and a blank-only one as rejected
    input alone. Each is an empty file, as on a night the step reads; only the lines that
    were refused are rejected input."""
    _night_of_files_with_no_line(tmp_path, run_cli, hh)
    md = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert "empty (no" not in md and "only blank lines (no" not in md


def test_the_teams_of_a_project_with_no_history_are_named_in_the_index(
    tmp_path: Path, run_cli: Any
) -> None:
    """Skipped without being parsed, every preset of a project with no history was "team
    (unnamed)" in the index; the name is read now, without scoring. A preset with no name
    is still unnamed."""
    (tmp_path / "proj/.archeflow/episodes").mkdir(parents=True)  # something to read
    (tmp_path / "proj/.archeflow/episodes/e.jsonl").write_bytes(b"")
    teams = tmp_path / "proj/.archeflow/teams"
    teams.mkdir()
    (teams / "a.yaml").write_text("name: backend\ncheck: [guardian]\n")
    (teams / "b.yml").write_text("check: [sage]\n")
    (tmp_path / "given.yaml").write_text("name: everywhere\ncheck: [guardian]\n")
    res = run_cli(
        "nightly", "--root", "proj", "--team", "given.yaml", "--out", "out", "--date", DATE
    )
    assert res.exit_code == 0, res.stderr
    index = (tmp_path / "out" / DATE / "index.md").read_text()
    teams_md = index[index.index("### Team recommendations") : index.index("## Other packs")]
    assert teams_md == (
        "### Team recommendations\n\n"
        "- proj · team everywhere (given.yaml, given): skipped: no history yet\n"
        "- proj · team backend (proj/.archeflow/teams/a.yaml, discovered): skipped: no "
        "history yet\n"
        "- proj · team (unnamed) (proj/.archeflow/teams/b.yml, discovered): skipped: no "
        "history yet\n\n"
    )
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert [t["name"] for t in log["scopes"][0]["teams"]] == ["everywhere", "backend", None]


@pytest.mark.parametrize("kind", ["not-utf8", "utf16", "folder", "permission"])
def test_a_history_there_but_not_read_says_so_where_the_run_log_names_it(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The run log headed such a history's part `(0 usable lines)` (a folder: `(none
    yet)`), as if it had been read and held nothing: it says it could not be read, and
    why (`history_error` in runlog.json)."""
    hh.write_jsonl(tmp_path / "good/.archeflow/events/a.jsonl", hh.run_events("good-run"))
    hist = tmp_path / nightly.history_of("proj")
    hist.parent.mkdir(parents=True)
    why = {
        "not-utf8": "no line of it is usable; each is listed as rejected input",
        "utf16": "encoded as UTF-16 LE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-16 -t UTF-8)",
        "folder": "not a regular file",
        "permission": "Permission denied",
    }[kind]
    if kind == "not-utf8":
        hist.write_bytes(b'{"run_id": "caf\xe9"}\n\xff\n')
    elif kind == "utf16":
        hist.write_bytes('{"run_id": "x"}\n'.encode("utf-16"))
    elif kind == "folder":
        hist.mkdir()
    else:
        # Tests may run as root, whom a mode of 000 does not stop: the refusal is the OS's.
        hist.write_text("{}\n")
        real_report = nightly.eh.report

        def refused(path: str, *args: Any, **kwargs: Any) -> Any:
            if os.path.realpath(path) == os.path.realpath(hist):
                raise PermissionError(13, "Permission denied", path)
            return real_report(path, *args, **kwargs)

        monkeypatch.setattr(nightly.eh, "report", refused)
    res = run_cli("nightly", "--root", "proj", "--root", "good", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    day = tmp_path / "out" / DATE
    scope = json.loads((day / "runlog.json").read_text())["scopes"][0]
    assert (scope["label"], scope["history_error"], scope["report"]) == ("proj", why, None)
    md = (day / "runlog.md").read_text()
    head = f"History proj/.archeflow/memory/effectiveness.jsonl (could not be read: {why}). "
    assert head in md
    assert "usable line" not in md[: md.index("## Effectiveness: good")]
    good = json.loads((day / "runlog.json").read_text())["scopes"][1]
    assert (good["label"], good["history_error"]) == ("good", None)


def test_recommend_s_notes_on_the_history_are_in_the_run_log_as_its_tier_notes_are(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """`recommend` says on stderr that the history also holds lines of another scoring
    version, which it does not use; the job carried its model-tier notes to the run log
    and dropped these. Then it said them under each team preset, though its scope (the
    history) says the report's note on the same lines: once per history now, under it."""
    ev = tmp_path / "proj/.archeflow/events"
    hh.write_jsonl(ev / "r.jsonl", hh.run_events("r1", model="haiku"))
    hist = nightly.history_of("proj")
    legacy = run_cli("extract", "--sql-version", "archeflow-legacy", str(ev), "--history", hist)
    assert legacy.exit_code == 0, legacy.stderr
    teams = tmp_path / "proj/.archeflow/teams"
    teams.mkdir(parents=True)
    (teams / "t.yaml").write_text("name: t\ncheck: [guardian]\nmodel_overrides: {guardian: opus}\n")
    (teams / "u.yaml").write_text("name: u\ncheck: [guardian]\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0, res.stderr
    rec = run_cli("recommend", "proj/.archeflow/teams/t.yaml", "--history", hist)
    versions = f"{hist} also holds archeflow-legacy lines, not used here: use --sql-version VERSION"
    tier = (
        "guardian: the team says opus (premium, in model_overrides); its one run ran on "
        "haiku (cheap): the score was earned there"
    )
    assert rec.stderr == f"{versions}\nnote: {tier}\n"
    report = run_cli("report", "--history", hist)
    said = (
        f"{hist} also holds archeflow-legacy lines, reported separately: use --sql-version "
        "VERSION or --sql-version all"
    )
    assert report.stderr == f"{said}\n"
    day = tmp_path / "out" / DATE
    [scope] = json.loads((day / "runlog.json").read_text())["scopes"]
    # In the job's own words, not report's (test_the_nightly_says_...).
    assert scope["notes"] == [_other_versions(hist)]
    assert [(t["name"], t["notes"]) for t in scope["teams"]] == [("t", [tier]), ("u", [])]
    md = (day / "runlog.md").read_text()
    assert (
        "- proj/.archeflow/teams/t.yaml (discovered): effectiveness/proj/recommend-t.md, "
        "effectiveness/proj/recommend-t.json\n"
        f"  - note: {tier}\n"
        "- proj/.archeflow/teams/u.yaml (discovered): effectiveness/proj/recommend-u.md, "
        "effectiveness/proj/recommend-u.json\n\n"
    ) in md
    assert md.count("also holds archeflow-legacy lines") == 1
    assert "also holds" not in res.stderr


def _other_versions(hist: str) -> str:
    return (
        f"{hist} also holds archeflow-legacy lines, not in the nightly's reports (they read "
        "its newest scoring version, effectiveness/v1, as this job was given none): "
        f"`runscore report --history {hist} --sql-version all` reports them side by side"
    )


def test_the_nightly_says_other_versions_lines_in_its_own_words(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """The run log's note on a history's lines of another scoring version was `report`'s:
    "reported separately: use --sql-version VERSION or --sql-version all", an option the
    nightly did not have. It says now which version its reports read, that none was given
    the job (``--sql-version`` chooses one), and the command that shows the others (the history quoted for a
    shell, a space in its path included)."""
    ev = tmp_path / "my proj/.archeflow/events"
    hh.write_jsonl(ev / "r.jsonl", hh.run_events("r1"))
    hist = nightly.history_of("my proj")
    legacy = run_cli("extract", "--sql-version", "archeflow-legacy", str(ev), "--history", hist)
    assert legacy.exit_code == 0, legacy.stderr
    res = run_cli("nightly", "--root", "my proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0, res.stderr
    note = (
        f"{hist} also holds archeflow-legacy lines, not in the nightly's reports (they read "
        "its newest scoring version, effectiveness/v1, as this job was given none): "
        f"`runscore report --history '{hist}' --sql-version all` reports them side by side"
    )
    day = tmp_path / "out" / DATE
    [scope] = json.loads((day / "runlog.json").read_text())["scopes"]
    assert scope["notes"] == [note]
    assert "--sql-version VERSION" not in (day / "runlog.md").read_text()


def test_the_nightly_says_a_legacy_cost_average_counts_unknown_costs_as_zero(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """ArcheFlow's scorer (archeflow-legacy, spec §8) writes cost_usd 0 for a missing cost,
    which the report's avg_cost_usd averages as $0: the run log says so beside the report,
    as `runscore report` does on stderr (one run of unknown cost, one of a known one)."""
    ev = tmp_path / "proj/.archeflow/events"
    hh.write_jsonl(ev / "r1.jsonl", hh.run_events("r1", cost=None))
    hh.write_jsonl(ev / "r2.jsonl", hh.run_events("r2", ts="2026-04-03T11:00:00Z"))
    res = run_cli(
        "nightly",
        "--root",
        "proj",
        "--out",
        "out",
        "--date",
        DATE,
        "--sql-version",
        "archeflow-legacy",
    )
    assert res.exit_code == 0, res.stderr
    [scope] = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())["scopes"]
    assert scope["notes"] == [
        "archeflow-legacy: cost averages count an unknown cost as $0 (ArcheFlow writes "
        'cost_usd 0 for a missing cost; cost_basis unknown or not written): "guardian" 1 of '
        '2 runs, "sage" 2 of 2 runs'
    ]


def test_a_file_that_holds_no_line_is_told_by_a_flag_not_by_the_words_of_its_reason(
    tmp_path: Path, run_cli: Any, hh: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job told a failed reader's "empty (no events)" from its rejected input by
    matching the reason's text: a reason reworded made every empty file rejected input
    (exit 1, said on stderr). The readers now flag such files (``NothingReadable.no_lines``)."""
    from runscore.engine import sources

    monkeypatch.setattr(sources, "no_lines_reason", lambda f, what: f"nothing in it ({what})")
    _night_of_files_with_no_line(tmp_path, run_cli, hh)
    assert "nothing in it" not in (tmp_path / "out" / DATE / "runlog.md").read_text()


#: Files that hold no line to every reader (Python's bytes.strip() blanks, after a UTF-8
#: byte-order mark opening the file) and files that hold one: a blank look-alike.
_BLANK_ONLY = {
    "vt": b"\x0b\n",
    "ff": b"\x0c\n",
    "mixed": b" \x0b\t\x0c\r\n\n",
    "bom-line": b"\xef\xbb\xbf\n",
    "bom-alone": b"\xef\xbb\xbf",
}
_NOT_BLANK = {
    "nbsp": b"\xc2\xa0\n",
    "nel": b"\xc2\x85\n",
    "file-sep": b"\x1c\n",  # str.strip() takes it; bytes.strip() and the readers do not
    "later-bom": b"\n\xef\xbb\xbf\n",
}


def test_the_job_and_the_readers_agree_on_which_files_hold_no_line(
    tmp_path: Path, run_cli: Any, hh: Any
) -> None:
    """The job listed a pack's input as an empty file when its bytes were spaces, tabs,
    CRs and LFs only, while the readers (extract's, the packs') also skip lines of VT and
    FF and a byte-order mark opening the file: such an episode file beside a good one was
    listed nowhere. Each way round: a file a reader takes for no line is an empty file to
    the job, in every step, and one it reads a line of is not."""
    base = tmp_path / "proj" / ".archeflow"
    hh.write_jsonl(base / "events/0-good.jsonl", hh.run_events("r1"))
    (base / "episodes").mkdir(parents=True)
    (base / "episodes/0-good.jsonl").write_text(json.dumps(_EPISODE) + "\n")
    for name, data in {**_BLANK_ONLY, **_NOT_BLANK}.items():
        for folder in ("events", "episodes"):
            (base / folder / f"{name}.jsonl").write_bytes(data)
    for name in _BLANK_ONLY:  # what each reader says of the file alone
        for cmd, what in (("extract", "events"), ("routes", "episodes")):
            path = f"proj/.archeflow/{what}/{name}.jsonl"
            alone = run_cli(cmd, path, *(["--history", "h.jsonl"] if cmd == "extract" else []))
            assert alone.exit_code == 3, (cmd, name)
            assert f"  {path}: only blank lines (no {what})\n" in alone.stderr, (cmd, name)
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    [routes] = [p for p in log["packs"] if p["pack"] == "routes"]
    names = sorted(_BLANK_ONLY)
    assert log["scopes"][0]["empty_files"] == [f"proj/.archeflow/events/{n}.jsonl" for n in names]
    assert routes["empty_files"] == [f"proj/.archeflow/episodes/{n}.jsonl" for n in names]
    rejected = {(d["file"].split("/")[-2], d["file"].split("/")[-1]) for d in log["rejected"]}
    assert rejected == {
        (folder, f"{n}.jsonl") for n in _NOT_BLANK for folder in ("events", "episodes")
    }


def test_the_api_version_steers_the_reports_too(tmp_path: Path, fixtures: Path) -> None:
    """``run_nightly(version="archeflow-legacy")`` scored the runs with the legacy scorer,
    but its reports read the history's newest version: on a history with v1 lines the
    day's report and recommendations were v1's, without the runs just scored, and the run
    log said the job had no option to choose another. A version given is the one they
    read; without one they read the newest, as the CLI's job does. An unknown version is
    a usage error said before anything runs (it was each project's failed step)."""
    root = _project(tmp_path, fixtures)
    out = tmp_path / "out"
    day = nightly.parse_date(DATE)
    history = root / ".archeflow" / "memory" / "effectiveness.jsonl"

    def versions_read(**kw: Any) -> tuple[set[str], list[str]]:
        ran = nightly.run_nightly([root], out, renderer=Renderer(), date=day, **kw)
        folder = Path(ran.out_dir) / "effectiveness" / "proj"
        rows = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        rows += json.loads((folder / "recommend-backend.json").read_text(encoding="utf-8"))
        (scope,) = ran.scopes
        return {r["scoring_version"] for r in rows}, scope.notes

    assert versions_read() == ({"effectiveness/v1"}, [])
    assert versions_read(version="archeflow-legacy") == (
        {"archeflow-legacy"},
        [
            # the fixture's runs name no cost: ArcheFlow's scorer writes 0 for it
            "archeflow-legacy: cost averages count an unknown cost as $0 (ArcheFlow writes "
            "cost_usd 0 for a missing cost; cost_basis unknown or not written): "
            '"guardian" 1 of 1 run, "sage" 1 of 1 run',
            f"{history} also holds effectiveness/v1 lines, not in the nightly's reports (they "
            "read the scoring version this job was given, archeflow-legacy): `runscore report "
            f"--history {history} --sql-version all` reports them side by side",
        ],
    )
    assert versions_read() == (
        {"effectiveness/v1"},
        [
            f"{history} also holds archeflow-legacy lines, not in the nightly's reports (they "
            "read its newest scoring version, effectiveness/v1, as this job was given none): "
            f"`runscore report --history {history} --sql-version all` reports them side by side"
        ],
    )
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(
        UsageError, match=r'^unknown scoring version "v9" \(have: archeflow-legacy, v1\)$'
    ):
        nightly.run_nightly([root], out, renderer=Renderer(), date=day, version="v9")
    assert sorted(tmp_path.rglob("*")) == before


def test_the_command_takes_the_version_the_api_does(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """``run_nightly(version=...)`` chose the scoring version the job extracts with and its
    reports read; the command had no option for it (``--sql-version`` was "no such
    option", exit 2). It takes ``--sql-version V`` now, recorded in the run log; an
    unknown V is a usage error before anything is read or written."""
    _project(tmp_path, fixtures)
    before = sorted(tmp_path.rglob("*"))
    args = ["nightly", "--root", "proj", "--out", "out", "--date", DATE]
    bad = run_cli(*args, "--sql-version", "v9")
    assert (bad.exit_code, bad.stdout) == (2, "")
    assert bad.stderr == (
        'error: unknown scoring version "v9" (have: archeflow-legacy, v1) '
        "(see 'cli nightly --help')\n"
    )
    assert sorted(tmp_path.rglob("*")) == before
    day = tmp_path / "out" / DATE
    status = "Status **partial** (exit code 1) · runscore "
    for given, recorded, read in [
        ([], None, "effectiveness/v1"),
        (["--sql-version", "archeflow-legacy"], "archeflow-legacy", "archeflow-legacy"),
        (["--sql-version", "effectiveness/v1"], "v1", "effectiveness/v1"),
    ]:
        res = run_cli(*args, *given, "--format", "json")
        assert res.exit_code == 1, res.stderr  # the fixture's broken run log
        log = json.loads(res.stdout)
        assert log["sql_version"] == recorded
        assert json.loads((day / "runlog.json").read_text())["sql_version"] == recorded
        rows = json.loads((day / "effectiveness" / "proj" / "report.json").read_text())
        rows += json.loads((day / "effectiveness" / "proj" / "recommend-backend.json").read_text())
        assert {r["scoring_version"] for r in rows} == {read}
        line = next(ln for ln in (day / "runlog.md").read_text().splitlines() if ln[:6] == "Status")
        assert line.startswith(status)
        said = f" · scoring version {recorded} (given)"
        assert line.endswith(said) if recorded else "scoring version" not in line
    legacy = Path(nightly.history_of(str(tmp_path / "proj")))
    assert {json.loads(ln)["scoring_version"] for ln in legacy.read_text().splitlines()} == {
        "effectiveness/v1",
        "archeflow-legacy",
    }


def test_sql_version_all_is_a_usage_error_before_anything_is_written(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """``--sql-version all`` (report's, side by side) passed the job's check of its
    arguments, and each project's extract then failed on it: `unknown scoring version
    "all"` as that project's rejected input, exit 1, the day's folder, the output folder,
    the lock files and the history's folder written. The job extracts with one version
    and its reports read that one: ``all`` is a usage error before anything is read or
    written, in the words ``recommend`` and ``summary`` say it in."""
    _project(tmp_path, fixtures)
    before = sorted(tmp_path.rglob("*"))
    bad = run_cli(
        "nightly", "--root", "proj", "--out", "out", "--date", DATE, "--sql-version", "all"
    )
    assert (bad.exit_code, bad.stdout) == (2, "")
    assert bad.stderr == (
        "error: nightly works on one scoring version; --sql-version all is for report "
        "(see 'cli nightly --help')\n"
    )
    assert sorted(tmp_path.rglob("*")) == before
    with pytest.raises(
        UsageError, match=r'^nightly works on one scoring version; version="all" is for report$'
    ):
        nightly.run_nightly(
            [tmp_path / "proj"], tmp_path / "out", renderer=Renderer(), date=DATE, version="all"
        )
    assert sorted(tmp_path.rglob("*")) == before


def test_the_run_log_of_a_pack_with_nothing_listed(tmp_path: Path, run_cli: Any) -> None:
    """A pack's section with no empty file, warning or note was followed by two blank
    lines (``...0 finding(s)\\n\\n\\n## Files``); one with them had its list right under
    its ``Inputs:`` line, a list not every markdown reader takes for one without the blank
    line before it. One blank line apart each, as every other section of the run log."""
    episodes = tmp_path / "proj" / ".archeflow" / "episodes"
    episodes.mkdir(parents=True)
    repo = Path(__file__).resolve().parents[2]
    shutil.copy(
        repo / "examples" / "project" / ".archeflow" / "episodes" / "episodes.jsonl",
        episodes / "e.jsonl",
    )
    # On a day no episode is dated after (DATE is before the example's): each one dated
    # after the job's day would be a warning of the pack, listed.
    day = "2026-11-14"
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", day)
    assert res.exit_code == 0, res.stderr
    md = _normalise((tmp_path / "out" / day / "runlog.md").read_text(encoding="utf-8"))
    assert md == (
        f"# Run log: {day}\n\n"
        "Status **ok** (exit code 0) · runscore 0.1.0 · started <time> · finished <time>\n\n"
        "## Roots\n\n"
        "| Root | Status | Folder |\n"
        "|---|---|---|\n"
        "| proj | ok | proj |\n\n"
        "## Effectiveness: proj\n\n"
        "History proj/.archeflow/memory/effectiveness.jsonl (none yet). Run logs from nowhere.\n\n"
        "| | Count |\n"
        "|---|---:|\n"
        "| Run log files found | 0 |\n"
        "| Files read | 0 |\n"
        "| Files unchanged since the last run (not re-read) | 0 |\n"
        "| Empty files | 0 |\n"
        "| Runs scored | 0 |\n"
        "| Records written | 0 |\n"
        "| Runs already scored (same events) | 0 |\n"
        "| Runs incomplete (no run.complete yet; not scored) | 0 |\n"
        "| Rejected inputs | 0 |\n"
        "| Warnings | 0 |\n\n"
        "### Notes\n\n"
        "- proj/.archeflow/events: no event logs (folder missing)\n"
        "- proj/.archeflow/memory/effectiveness.jsonl: no history yet\n\n"
        "## Other packs\n\n"
        "### routes: proj\n\n"
        "Inputs: proj/.archeflow/episodes/e.jsonl. 60 episode(s), 0 finding(s)\n\n"
        "## Files\n\n"
        "- [index.md](index.md): Index\n"
        "- [runlog.md](runlog.md): Run log\n"
        "- [runlog.json](runlog.json): Run log (JSON)\n"
        "- [routes/proj/routes.json](routes/proj/routes.json): routes.json\n"
        "- [routes/proj/routes.md](routes/proj/routes.md): routes.md\n"
    )


def test_an_empty_plans_file_is_listed_as_an_empty_task_file_is(
    tmp_path: Path, run_cli: Any
) -> None:
    """`pipeline --plans` says an empty plans file (stderr and emptyFiles), and the job
    lists an empty task file in its run log; an empty plans file of .archeflow/plans was
    listed nowhere."""
    base = tmp_path / "proj" / ".archeflow"
    for folder, name, text in (("tasks", "a", b""), ("plans", "p", b""), ("plans", "q", b" \n")):
        (base / folder).mkdir(parents=True, exist_ok=True)
        (base / folder / f"{name}.jsonl").write_bytes(text)
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (0, [])
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert [(p["pack"], p["empty_files"]) for p in log["packs"]] == [
        (
            "pipeline",
            [
                "proj/.archeflow/tasks/a.jsonl",
                "proj/.archeflow/plans/p.jsonl",
                "proj/.archeflow/plans/q.jsonl",
            ],
        )
    ]
    md = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        "- proj/.archeflow/tasks/a.jsonl: empty file\n"
        "- proj/.archeflow/plans/p.jsonl: empty file\n"
        "- proj/.archeflow/plans/q.jsonl: empty file\n\n"
    ) in md


def test_a_pack_s_inputs_in_the_run_log_include_its_plans_and_judge_files(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """The plans (pipeline) and the judge, Monte Carlo and matchup files (plugin) change the
    scores, yet a pack's inputs listed its task files and skills folder only: the run log
    did not say they had been read."""
    base = tmp_path / "proj" / ".archeflow"
    (base / "tasks").mkdir(parents=True)
    (base / "plans").mkdir()
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", base / "tasks" / "tasks.jsonl")
    shutil.copy(fixtures / "pipeline" / "plans.jsonl", base / "plans" / "plans.jsonl")
    skills = base / "plugin-eval" / "skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    scores = {
        "triggering_accuracy": 0.8,
        "orchestration_fitness": 0.7,
        "output_quality": 0.75,
        "scope_calibration": 0.6,
    }
    judge = {"skill": "async-python-patterns", "judge": "j1", "scores": scores}
    (base / "plugin-eval" / "judge.jsonl").write_text(json.dumps(judge) + "\n")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr  # tasks.jsonl:22 has no task id, as ever
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert [(p["pack"], p["inputs"]) for p in log["packs"]] == [
        ("pipeline", ["proj/.archeflow/tasks/tasks.jsonl", "proj/.archeflow/plans/plans.jsonl"]),
        (
            "plugin",
            ["proj/.archeflow/plugin-eval/skills", "proj/.archeflow/plugin-eval/judge.jsonl"],
        ),
    ]
    md = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert (
        "### pipeline: proj\n\n"
        "Inputs: proj/.archeflow/tasks/tasks.jsonl, proj/.archeflow/plans/plans.jsonl. "
        "4 pipeline(s) scored, 1 not terminal\n\n"
        "### plugin: proj\n\n"
        "Inputs: proj/.archeflow/plugin-eval/skills, proj/.archeflow/plugin-eval/judge.jsonl. "
        "1 skill(s) scored\n\n"
    ) in md


def test_an_empty_judge_file_is_said_once_in_the_nightly_s_words(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """An empty judge.jsonl was listed twice, as an empty file and as the plugin pack's
    warning ending `scored without --judge`, an option the job has not. It is now one
    warning naming the file and what it means for the scores; `plugin score` keeps its
    words (tests/plugin/test_cli.py)."""
    base = tmp_path / "proj" / ".archeflow" / "plugin-eval"
    shutil.copytree(
        fixtures / "plugin" / "async-python-patterns", base / "skills" / "async-python-patterns"
    )
    (base / "judge.jsonl").write_text("")
    (base / "mc.jsonl").write_text("\n \n")
    (base / "matchups.jsonl").write_text("")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0, res.stderr
    said = [
        "proj/.archeflow/plugin-eval/judge.jsonl: plugin: empty (no judge results); "
        "the skills were scored without judge results",
        "proj/.archeflow/plugin-eval/mc.jsonl: plugin: only blank lines (no Monte Carlo runs); "
        "the skills were scored without Monte Carlo runs",
        "proj/.archeflow/plugin-eval/matchups.jsonl: plugin: empty (no matchups); "
        "the skills were scored without matchups",
    ]
    assert res.stderr.splitlines()[:-1] == [f"warning: {s}" for s in said]
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    (plugin,) = log["packs"]
    assert (plugin["empty_files"], [w["text"] for w in plugin["warnings"]]) == ([], said)
    md = (tmp_path / "out" / DATE / "runlog.md").read_text()
    assert "".join(f"- warning: {s}\n" for s in said) + "\n## Files" in md
    assert "empty file" not in md and "without --" not in md


def test_a_failed_pack_leaves_no_empty_folder(tmp_path: Path, fixtures: Path, run_cli: Any) -> None:
    """A pack that failed left its folder, empty, in the day's folder (`routes/good/`,
    `plugin/bad/`): noise in a published folder, its failure being in the run log and
    index. A pack folder another root's outputs are in stays."""
    skills = tmp_path / "good" / ".archeflow" / "plugin-eval" / "skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    (tmp_path / "good" / ".archeflow" / "episodes").mkdir()
    (tmp_path / "good" / ".archeflow" / "episodes" / "e.jsonl").write_text("not json\n")
    (tmp_path / "bad" / ".archeflow" / "plugin-eval" / "skills").mkdir(parents=True)
    res = run_cli("nightly", "--root", "good", "--root", "bad", "--out", "out", "--date", DATE)
    assert res.exit_code == 1, res.stderr
    day = tmp_path / "out" / DATE
    log = json.loads((day / "runlog.json").read_text())
    assert [(p["pack"], p["label"], p["error"]) for p in log["packs"]] == [
        ("plugin", "good", None),
        ("routes", "good", "no episode could be read"),
        ("plugin", "bad", "no skill could be scored"),
    ]
    assert sorted(p.relative_to(day).as_posix() for p in day.rglob("*") if p.is_dir()) == [
        "plugin",
        "plugin/good",
        "plugin/good/skills",
    ]


def test_the_index_says_no_report_once_for_a_project_with_no_history_yet(
    tmp_path: Path, fixtures: Path, run_cli: Any
) -> None:
    """The index's Report cell of a project with no history yet read `no report: H: no
    history yet; no report`, the note after the cell's own `no report: `."""
    skills = tmp_path / "proj" / ".archeflow" / "plugin-eval" / "skills"
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", skills / "async-python-patterns")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0, res.stderr
    hist = "proj/.archeflow/memory/effectiveness.jsonl"
    index = (tmp_path / "out" / DATE / "index.md").read_text()
    assert f"| proj | 0 | 0 | 0 | 0 | no report: {hist}: no history yet |\n" in index
    assert index.count("no report") == 1
    log = json.loads((tmp_path / "out" / DATE / "runlog.json").read_text())
    assert log["scopes"][0]["notes"][-1] == f"{hist}: no history yet"


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_an_odd_nightly_lock_in_out_names_out(
    tmp_path: Path, fixtures: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The job's own lock on OUT/.nightly passed no argument: a FIFO there was a
    CannotAccess with ``params`` ``()``, a folder a bare IsADirectoryError. Each is a
    ``CannotAccess`` naming ``out`` now, in the words the CLI said (exit 2)."""
    from runscore.engine.errors import CannotAccess

    _project(tmp_path, fixtures)
    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "out" / ".nightly.lock"
    lock.parent.mkdir()
    if kind == "folder":
        lock.mkdir()
    else:
        os.mkfifo(lock)
    why = "Is a directory" if kind == "folder" else "the nightly lock is not a regular file"
    with pytest.raises(CannotAccess) as e:
        nightly.run_nightly(["proj"], "out", renderer=Renderer(), date=nightly.parse_date(DATE))
    assert (str(e.value), e.value.params) == (f"{lock}: {why}", ("out",))
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"error: {lock}: {why}\n")


def test_a_pack_input_gone_before_it_is_read_is_named_as_found(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge file that vanished between being found and read was said in the plugin
    API's words, of the root: `proj: plugin: judge proj/.../judge.jsonl: no such file`
    (``judge``, an argument the job has not). It is said of the file as found now, as the
    job says a pack's rejected input: `proj/.../judge.jsonl: plugin: no such file`."""
    import dataclasses

    from runscore.engine.errors import NothingReadable

    monkeypatch.chdir(tmp_path)
    base = tmp_path / "proj" / ".archeflow" / "plugin-eval"
    shutil.copytree(
        fixtures / "plugin" / "async-python-patterns", base / "skills" / "async-python-patterns"
    )
    scores = dict.fromkeys(
        ["triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration"], 4
    )
    judge = {"skill": "async-python-patterns", "judge": "j1", "scores": scores}
    (base / "judge.jsonl").write_text(json.dumps(judge) + "\n")

    def gone_first(hook: nightly.PackHook) -> nightly.PackHook:
        def run(r: nightly.PackRun) -> nightly.PackOutcome:
            (base / "judge.jsonl").unlink()
            return hook.run(r)

        return dataclasses.replace(hook, run=run) if hook.pack == "plugin" else hook

    with pytest.raises(NothingReadable) as e:
        nightly.run_nightly(
            ["proj"],
            "out",
            renderer=Renderer(),
            hooks=[gone_first(h) for h in pack_hooks()],
            date=nightly.parse_date(DATE),
        )
    assert str(e.value).splitlines()[1] == (
        "  proj/.archeflow/plugin-eval/judge.jsonl: plugin: no such file"
    )
