"""``runscore extract``: JSON summary, exit codes, idempotency, history lines (spec §4)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from runscore.engine.packs import effectiveness

Run = Callable[..., Result]
HISTORY = Path(".archeflow") / "memory" / "effectiveness.jsonl"
SUMMARY_KEYS = {
    "runs_scored",
    "records_written",
    "records_new",
    "already_scored",
    "incomplete",
    "invalid",
    "skipped_lines",
    "warnings",
}


@pytest.fixture
def events(tmp_path: Path, fixtures: Path) -> Path:
    """The worked example, copied to <cwd>/in/events.jsonl (run_cli's cwd is tmp_path)."""
    dst = tmp_path / "in" / "events.jsonl"
    dst.parent.mkdir()
    shutil.copy(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl", dst)
    return dst


def _json(result: Result) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(result.stdout)
    assert SUMMARY_KEYS <= set(out)
    return out


def _lines(path: Path) -> list[dict[str, Any]]:
    raw = path.read_text(encoding="utf-8")
    assert raw == "" or raw.endswith("\n")
    return [json.loads(line) for line in raw.splitlines()]


def test_json_summary_and_default_history(run_cli: Run, events: Path, h: Any) -> None:
    r = run_cli("extract", "in/events.jsonl", "--format", "json")
    assert r.exit_code == 0, r.stderr
    out = _json(r)
    assert out["runs_scored"] == 1 and out["records_written"] == 2
    assert out["already_scored"] == [] and out["incomplete"] == [] and out["invalid"] == []
    assert out["skipped_lines"] == [] and out["warnings"] == []
    assert out["scoring_version"] == "effectiveness/v1"
    # default history: .archeflow/memory/effectiveness.jsonl under the current directory
    lines = _lines(Path(HISTORY))
    assert [(x["run_id"], x["archetype"]) for x in lines] == [
        ("score-run", "guardian"),
        ("score-run", "sage"),
    ]
    for line in lines:
        assert list(line)[:15] == h.ARCHEFLOW_FIELDS
        assert list(line) == h.RECORD_FIELDS
        assert line["source"] == "in/events.jsonl"
    assert [x["composite_score"] for x in lines] == [0.5625, 0.1875]


def test_text_format_prints_nothing_on_stdout(run_cli: Run, events: Path) -> None:
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl")
    assert r.exit_code == 0 and r.stdout == ""
    assert "1 run(s) scored" in r.stderr and "2 record(s) written" in r.stderr


def test_a_torn_last_line_is_named_so(run_cli: Run, events: Path) -> None:
    """A line a writer did not finish (no newline at the end) is skipped as any bad line
    is, with a reason that says what it is; the run's other lines are scored."""
    n = len(events.read_bytes().splitlines())
    with events.open("ab") as f:
        f.write(b'{"run_id": "r')
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl")
    assert r.exit_code == 1, r.stderr
    assert (
        f"in/events.jsonl:{n + 1}: torn last line (no newline at the end; a writer was "
        "interrupted or is still writing): not JSON: Unterminated string starting at: "
        "line 1 column 12 (char 11)\n"
    ) in r.stderr
    assert "1 run(s) scored" in r.stderr and "2 record(s) written" in r.stderr


def test_rejected_input_exits_1_with_every_diagnostic(
    run_cli: Run, tmp_path: Path, events: Path
) -> None:
    good = events.read_text().splitlines()
    clash = json.loads(good[3])
    clash["data"]["verdict"] = "approved"  # seq 4 again, different content
    broken = [line.replace("score-run", "broken") for line in good] + [
        json.dumps(clash).replace("score-run", "broken")
    ]
    lines = [
        *good[:2],
        "{not json",
        *good[2:],
        *broken,
        '{"run_id":"w","type":"note"}',  # no seq: replaced by position 1 (a warning)
    ]
    (tmp_path / "in" / "mixed.jsonl").write_text("\n".join(lines) + "\n")
    r = run_cli("extract", "in/mixed.jsonl", "--history", "h.jsonl", "--format", "json")
    assert r.exit_code == 1, r.stderr
    out = _json(r)
    assert out["runs_scored"] == 1 and out["records_written"] == 2
    assert out["skipped_lines"] == [
        {"file": "in/mixed.jsonl", "line": 3, "reason": out["skipped_lines"][0]["reason"]}
    ]
    assert out["skipped_lines"][0]["reason"].startswith("not JSON")
    assert out["invalid"] == [
        {
            "run_id": "broken",
            "reason": out["invalid"][0]["reason"],
            "locations": ["in/mixed.jsonl:13", "in/mixed.jsonl:18"],
        }
    ]
    assert out["incomplete"] == ["w"]
    assert out["warnings"] == [
        {
            "run_id": "w",
            "file": "in/mixed.jsonl",
            "line": 19,
            "reason": out["warnings"][0]["reason"],
        }
    ]
    assert "in/mixed.jsonl:3: not JSON" in r.stderr
    assert "in/mixed.jsonl:13" in r.stderr and "in/mixed.jsonl:18" in r.stderr


def test_unreadable_files_are_in_the_json_summary(
    run_cli: Run, tmp_path: Path, events: Path
) -> None:
    # README exit 1: "some input was rejected (listed on stderr, always; also in the JSON
    # of extract)": a missing path or a file that cannot be read exited 1 with a JSON
    # summary that listed nothing rejected
    (tmp_path / "in" / "packed.jsonl").write_bytes(b"\x1f\x8b\x08\x00junk")
    r = run_cli(
        "extract",
        "in/events.jsonl",
        "in/missing.jsonl",
        "in/packed.jsonl",
        "--history",
        "h.jsonl",
        "--format",
        "json",
    )
    assert r.exit_code == 1, r.stderr
    out = _json(r)
    assert out["runs_scored"] == 1 and out["skipped_lines"] == [] and out["invalid"] == []
    assert sorted(out["unreadable"], key=lambda u: u["file"]) == [
        {"file": "in/missing.jsonl", "line": 0, "reason": "no such file or directory"},
        {
            "file": "in/packed.jsonl",
            "line": 0,
            "reason": "gzip-compressed: runscore reads plain JSONL (decompress it first)",
        },
    ]
    for u in out["unreadable"]:
        assert f"{u['file']}: {u['reason']}" in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("--sql-version", "v99"),
        ("--format", "yaml"),
        ("--no-such-option",),
    ],
)
def test_usage_errors_exit_2(run_cli: Run, events: Path, args: tuple[str, ...]) -> None:
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl", *args)
    assert r.exit_code == 2
    assert not Path("h.jsonl").exists()


def test_no_paths_is_a_usage_error(run_cli: Run) -> None:
    assert run_cli("extract").exit_code == 2


def test_symlinked_history_is_refused(run_cli: Run, tmp_path: Path, events: Path) -> None:
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    link = tmp_path / "h.jsonl"
    link.symlink_to(target)
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl")
    assert r.exit_code == 2
    assert "symlink" in r.stderr
    assert target.read_text() == "" and link.is_symlink()


@pytest.mark.parametrize("kind", ["missing", "garbage", "no-match"])
def test_nothing_readable_exits_3(run_cli: Run, tmp_path: Path, kind: str) -> None:
    arg = {"missing": "nope.jsonl", "garbage": "junk.jsonl", "no-match": "logs/*.jsonl"}[kind]
    (tmp_path / "junk.jsonl").write_bytes(b"\xff\xfe\x00garbage\n[1,2]\n{}\n")
    r = run_cli("extract", arg, "--history", "h.jsonl", "--format", "json")
    assert r.exit_code == 3, (r.stdout, r.stderr)
    assert "error:" in r.stderr
    assert not (tmp_path / "h.jsonl").exists() or (tmp_path / "h.jsonl").read_text() == ""


def test_a_history_that_is_one_of_the_run_logs_read_is_refused(
    run_cli: Run, events: Path, fixtures: Path
) -> None:
    """``extract in --history in/run.jsonl`` left that run log out, as the history is left
    out, and appended the records to it (exit 0): its events were lost to every later
    extract, read as lines "missing type". A history among the run logs read that is not
    one already (its first line an event, or no JSON object) is refused, exit 2, nothing
    written; one that is a history, or an empty file, is left out as before."""
    sample = fixtures.parent.parent / "examples" / "project" / ".archeflow" / "events"
    shutil.copy(sample / "run-2026-11-01.jsonl", events.parent / "run.jsonl")
    (events.parent / "notes.jsonl").write_text("not json\n")
    before = {p.name: p.read_bytes() for p in events.parent.iterdir()}
    for args, log in [
        (["in/events.jsonl", "in/run.jsonl", "--history", "in/events.jsonl"], "in/events.jsonl"),
        (["in/e*.jsonl", "in/run.jsonl", "--history", "./in/events.jsonl"], "in/events.jsonl"),
        (["in", "--history", "in/run.jsonl"], "in/run.jsonl"),
        (["in/run.jsonl", "in/notes.jsonl", "--history", "in/notes.jsonl"], "in/notes.jsonl"),
    ]:
        res = run_cli("extract", *args)
        assert (res.exit_code, res.stdout) == (2, ""), res.stderr
        assert res.stderr == (
            f"error: {args[-1]}: that is the run log {log} the extract reads (PATHS); choose "
            "another --history (see 'cli extract --help')\n"
        )
        assert {p.name: p.read_bytes() for p in events.parent.iterdir()} == before
    # A history there already, or an empty file, is the history: left out, appended to.
    ok = events.parent.parent / "ok"
    ok.mkdir()
    shutil.copy(events, ok / "events.jsonl")
    (ok / "h.jsonl").write_text("")
    for _ in range(2):
        res = run_cli("extract", "ok", "--history", "ok/h.jsonl", "--format", "json")
        assert res.exit_code == 0, res.stderr
        assert _json(res)["excluded"] == [
            {"file": "ok/h.jsonl", "reason": "not read: it is the history this extract writes to"}
        ]
    assert len(_lines(ok / "h.jsonl")) == 2
    assert (ok / "events.jsonl").read_bytes() == before["events.jsonl"]


def test_the_history_is_never_read_as_a_run_log(run_cli: Run, events: Path) -> None:
    """A folder that holds the history (``extract .archeflow``, say): it is not input."""
    hist = Path("in") / "memory" / "h.jsonl"
    args = ("extract", "in", "--history", str(hist), "--format", "json")
    first = run_cli(*args)  # no history yet: nothing to leave out
    assert (first.exit_code, _json(first)["excluded"], _json(first)["records_written"]) == (
        0,
        [],
        2,
    )
    before = hist.read_bytes()
    for extra in ((), ("--full",)):
        again = run_cli(*args, *extra)
        out = _json(again)
        assert again.exit_code == 0, again.stderr
        assert out["excluded"] == [
            {
                "file": "in/memory/h.jsonl",
                "reason": "not read: it is the history this extract writes to",
            }
        ]
        assert out["skipped_lines"] == [] and out["records_written"] == 0
        assert "in/memory/h.jsonl: not read: it is the history this extract writes to" in (
            again.stderr
        )
    assert hist.read_bytes() == before
    # The same file under another name is still the history.
    os.symlink(hist.resolve(), "alias.jsonl")
    only = run_cli("extract", "alias.jsonl", "--history", str(hist))
    assert only.exit_code == 3 and only.stdout == ""
    assert only.stderr.strip() == (
        "error: no input files: alias.jsonl: not read: it is the history this extract writes to"
    )
    assert hist.read_bytes() == before
    # A glob over its folder names the files kept beside it too: none is read.
    run_cli("report", "--history", str(hist))  # (a small history: no cache file)
    glob = run_cli("extract", "in/memory/*", "--history", str(hist), "--format", "json")
    assert glob.exit_code == 3, glob.stderr
    assert "in/memory/h.jsonl.manifest.json: not read: runscore keeps it beside" in glob.stderr
    assert "in/memory/h.jsonl.lock: not read: runscore keeps it beside" in glob.stderr
    assert hist.read_bytes() == before


def test_the_plugin_history_beside_the_history_is_never_read_as_a_run_log(
    run_cli: Run, events: Path
) -> None:
    """``extract .`` in a project whose ``.archeflow/memory`` holds the plugin pack's history
    (``plugin score`` writes ``plugins.jsonl`` there) read its records as run logs: "missing
    run_id", exit 1 on every run. It is left out with why, as the pipeline history beside
    it is; a ``plugins.jsonl`` elsewhere is still a run log."""
    mem = Path("in") / "memory"
    mem.mkdir()
    (mem / "plugins.jsonl").write_text('{"skill": "a", "composite": 0.5}\n')
    (mem / "plugins.jsonl.lock").write_text("")
    res = run_cli("extract", "in", "--history", str(mem / "h.jsonl"), "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert _json(res)["skipped_lines"] == []
    assert {e["file"]: e["reason"] for e in _json(res)["excluded"]} == {
        "in/memory/plugins.jsonl": "not read: it is runscore's plugin history",
    }
    assert "in/memory/plugins.jsonl: not read: it is runscore's plugin history" in res.stderr
    # A glob over the folder names its lock too: nothing there is read (exit 3).
    res = run_cli("extract", "in/memory/*", "--history", str(mem / "h.jsonl"))
    assert (res.exit_code, res.stdout) == (3, ""), res.stderr
    for line in [
        "in/memory/plugins.jsonl: not read: it is runscore's plugin history",
        "in/memory/plugins.jsonl.lock: not read: runscore keeps it beside its plugin history",
    ]:
        assert line in res.stderr
    # Elsewhere, a file of that name is a run log like any other.
    (Path("in") / "plugins.jsonl").write_text('{"skill": "a"}\n')
    res = run_cli("extract", "in", "--history", str(mem / "h.jsonl"), "--format", "json")
    assert res.exit_code == 1
    assert [(d["file"], d["line"]) for d in _json(res)["skipped_lines"]] == [
        ("in/plugins.jsonl", 1)
    ]


def test_the_nightly_journal_beside_the_history_is_never_read_as_a_run_log(
    run_cli: Run, events: Path
) -> None:
    """``extract 'memory/*'`` read the nightly job's journal beside the history
    (``H.nightly.journal``, JSON) as a run log: "missing run_id", exit 1. It is left out
    with why, as the history's lock and manifest are."""
    mem = Path("in") / "memory"
    mem.mkdir()
    (mem / "h.jsonl.nightly.journal").write_text(
        '{"kind": "runscore-nightly-journal-v1", "jobs": []}\n'
    )
    res = run_cli("extract", "in/memory/*", "--history", str(mem / "h.jsonl"))
    assert (res.exit_code, res.stdout) == (3, ""), res.stderr
    assert (
        "in/memory/h.jsonl.nightly.journal: not read: runscore keeps it beside the history "
        "this extract writes to"
    ) in res.stderr
    assert "missing run_id" not in res.stderr


def test_input_that_holds_no_line_is_nothing_read(
    run_cli: Run, tmp_path: Path, events: Path
) -> None:
    """Spec-silent. An empty log given alone exited 0 with nothing said and an empty history
    written, where a folder with no log in it exits 3 ("no input files"): both are input
    with nothing in it to read, which the README's exit 3 is ("nothing could be read";
    stdout empty, not a summary of no runs). Each file is named, with why."""
    (tmp_path / "empty.jsonl").write_bytes(b"")
    for fmt in ("text", "json"):
        r = run_cli("extract", "empty.jsonl", "--history", "h.jsonl", "--format", fmt)
        assert (r.exit_code, r.stdout) == (3, "")
        assert r.stderr == "error: nothing could be read:\n  empty.jsonl: empty (no events)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.jsonl", "in"]  # nothing written
    # A folder of such files (one of blank lines only), and stdin, the same.
    d = tmp_path / "logs"
    d.mkdir()
    (d / "a.jsonl").write_bytes(b"")
    (d / "b.jsonl").write_bytes(b"\n  \r\n\t\n")
    r = run_cli("extract", "logs", "--history", "h.jsonl", "--format", "json")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == (
        "error: nothing could be read:\n  logs/a.jsonl: empty (no events)\n"
        "  logs/b.jsonl: only blank lines (no events)\n"
    )
    r = run_cli("extract", "-", "--history", "h.jsonl", input=b"")
    assert (r.exit_code, r.stderr) == (
        3,
        "error: nothing could be read:\n  <stdin>: empty (no events)\n",
    )
    (d / "a.jsonl").unlink()
    (d / "b.jsonl").unlink()
    r = run_cli("extract", "logs", "--history", "h.jsonl")
    assert (r.exit_code, r.stderr) == (3, "error: no input files\n")
    # Beside a rejected file: both named, the empty one after it.
    (d / "a.jsonl").write_bytes(b"")
    (d / "junk.jsonl").write_bytes(b"[1]\n")
    r = run_cli("extract", "logs", "--history", "h.jsonl")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == (
        "error: nothing could be read:\n  logs/a.jsonl: empty (no events)\n"
        "  logs/junk.jsonl:1: not a JSON object (an array)\n"
    )
    assert not (tmp_path / "h.jsonl").exists()
    # Beside a log with runs: test_a_file_that_holds_no_line_beside_logs_is_said_not_rejected


def test_a_file_that_holds_no_line_beside_logs_is_said_not_rejected(
    run_cli: Run, tmp_path: Path, events: Path
) -> None:
    """Spec-silent. Beside a log with runs, a file that holds no line was read without a
    word (exit 0), where alone it is named in the error (exit 3) and the nightly job lists
    it as an empty file: `extract` says on stderr each input it did not score (the history
    left out, the rejected lines), but not this one. It is said now, in the words of the
    error, in the order given, and is not rejected input (exit 0): `empty_files` in the
    JSON summary; again on a rerun that skips it as unchanged, and in a dry run."""
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n \x0b\r\n")
    said = "empty.jsonl: empty (no events)\nblank.jsonl: only blank lines (no events)\n"
    listed = [
        {"file": "empty.jsonl", "reason": "empty (no events)"},
        {"file": "blank.jsonl", "reason": "only blank lines (no events)"},
    ]
    args = ["empty.jsonl", "in/events.jsonl", "blank.jsonl", "--history", "h.jsonl"]
    for run, tail, extra in (
        ("first", "2 record(s) written to h.jsonl; 0 already scored", []),
        ("rerun", "0 record(s) written to h.jsonl; 0 already scored", []),
        (
            "dry run",
            "0 record(s) would be written to h.jsonl (dry run: nothing written); 1 already scored",
            ["--dry-run"],
        ),
    ):
        r = run_cli("extract", *args, *extra)
        runs, unchanged = (0, 3) if run == "rerun" else (1, 0)
        assert (r.exit_code, r.stdout, r.stderr) == (
            0,
            "",
            f"{said}{runs} run(s) scored, {tail}, 0 incomplete, 0 invalid, 0 line(s) "
            f"skipped, 0 warning(s), {unchanged} unchanged file(s) not re-read\n",
        ), run
        r = run_cli("extract", *args, *extra, "--format", "json")
        assert (r.exit_code, _json(r)["empty_files"]) == (0, listed), run


def test_incomplete_only_is_not_an_error(run_cli: Run, events: Path, tmp_path: Path) -> None:
    lines = events.read_text().splitlines()
    events.write_text("\n".join(lines[:-1]) + "\n")  # no run.complete yet
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl", "--format", "json")
    assert r.exit_code == 0
    out = _json(r)
    assert out["incomplete"] == ["score-run"] and out["records_written"] == 0
    # Spec-silent (README): runs were read, so the history is made, empty, and `report`
    # says it has no lines rather than "no history ...; run `runscore extract` first".
    assert (tmp_path / "h.jsonl").read_bytes() == b""
    assert (tmp_path / "h.jsonl.manifest.json").is_file()
    r = run_cli("report", "--history", "h.jsonl")
    assert r.exit_code == 0 and "No history lines of scoring version effectiveness/v1." in r.stdout
    # the run completes later: now it is scored
    events.write_text("\n".join(lines) + "\n")
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl", "--format", "json")
    out = _json(r)
    assert (r.exit_code, out["runs_scored"], out["records_written"]) == (0, 1, 2)


def test_second_extract_is_idempotent(run_cli: Run, events: Path) -> None:
    args = ("extract", "in/events.jsonl", "--history", "h.jsonl", "--format", "json")
    first = _json(run_cli(*args))
    assert first["records_written"] == 2
    before = Path("h.jsonl").read_bytes()

    again = run_cli(*args, "--full")  # re-read everything: the run is already scored
    out = _json(again)
    assert again.exit_code == 0
    assert out["records_written"] == 0 and out["already_scored"] == ["score-run"]
    assert out["runs_scored"] == 1
    assert "1 already scored" in again.stderr

    inc = run_cli(*args)  # incremental: the unchanged file is not even read
    out = _json(inc)
    assert inc.exit_code == 0
    assert out["records_written"] == 0 and out["runs_scored"] == 0
    assert out["files_unchanged"] == 1 and out["files_read"] == 0
    assert Path("h.jsonl").read_bytes() == before


def test_changed_run_appends_new_lines(run_cli: Run, events: Path, h: Any) -> None:
    args = ("extract", "in/events.jsonl", "--history", "h.jsonl", "--format", "json")
    assert _json(run_cli(*args))["records_written"] == 2
    before = Path("h.jsonl").read_bytes()
    # a second guardian fix arrives (seq 9)
    extra = {
        "ts": "2026-04-03T10:07:00Z",
        "run_id": "score-run",
        "seq": 9,
        "parent": [8],
        "type": "fix.applied",
        "agent": None,
        "data": {"source": "Guardian", "finding": "Consider logging"},
    }
    with events.open("a") as f:
        f.write(json.dumps(extra) + "\n")
    r = run_cli(*args)
    out = _json(r)
    assert (r.exit_code, out["records_written"], out["already_scored"]) == (0, 2, [])
    after = Path("h.jsonl").read_bytes()
    assert after.startswith(before)  # append-only: old lines untouched
    old, new = _lines(Path("h.jsonl"))[:2], _lines(Path("h.jsonl"))[2:]
    assert new[0]["events_sha256"] != old[0]["events_sha256"]
    guardian = next(x for x in new if x["archetype"] == "guardian")
    # 2 fixes / 2 findings; "Consider logging" is now confirmed by the fix → accuracy 1;
    # (0.30·0.5 + 0.25·1 + 0.15·1 + 0.10·1) / 0.80 = 0.8125
    h.assert_close_record(
        guardian,
        {
            "fixes_applied": 2,
            "fix_rate": 1.0,
            "accuracy": 1.0,
            "findings_contradicted": 0,
            "composite_score": 0.8125,
        },
    )


def test_renumbered_seqs_are_a_changed_run(run_cli: Run, tmp_path: Path, h: Any) -> None:
    """Same event bodies, different seqs (so a different DAG): not 'already scored'."""
    verdict = {
        "type": "review.verdict",
        "agent": "guardian",
        "data": {
            "verdict": "needs_changes",
            "findings": [{"severity": "bug", "fix_required": True}],
        },
    }
    a = [
        {"run_id": "r", "seq": 1, "type": "run.start"},
        {"run_id": "r", "seq": 2, "parent": [1], **verdict},
        {"run_id": "r", "seq": 3, "parent": [2], "type": "fix.applied", "data": {}},
        {"run_id": "r", "seq": 4, "type": "run.complete"},
    ]
    b = [dict(e, seq=e["seq"] + (1 if e["seq"] > 1 else 0)) for e in a]  # 1, 3, 4, 5
    path = h.write_jsonl(tmp_path / "run.jsonl", a)
    args = ("extract", "run.jsonl", "--history", "h.jsonl", "--format", "json", "--full")
    assert _json(run_cli(*args))["records_written"] == 1
    h.write_jsonl(path, b)  # the fix's parent 2 no longer exists
    out = _json(run_cli(*args))
    assert out["records_written"] == 1 and out["already_scored"] == []
    first, second = _lines(Path("h.jsonl"))
    assert (first["fixes_applied"], second["fixes_applied"]) == (1, 0)


def test_history_lines_stay_whole_after_a_torn_line(run_cli: Run, events: Path, h: Any) -> None:
    torn = '{"ts":"2026-01-01T00:00:00Z","run_id":"old","archetype":"guardian","signal'
    Path("h.jsonl").write_text(torn)  # a crash left half a line, no newline
    r = run_cli("extract", "in/events.jsonl", "--history", "h.jsonl")
    assert r.exit_code == 0
    raw = Path("h.jsonl").read_text()
    assert raw.startswith(torn + "\n") and raw.endswith("\n")
    new = [json.loads(line) for line in raw.splitlines()[1:]]
    assert [list(x) for x in new] == [h.RECORD_FIELDS, h.RECORD_FIELDS]


def test_stdin_input(run_cli: Run, events: Path) -> None:
    text = events.read_text()
    r = run_cli("extract", "-", "--history", "h.jsonl", "--format", "json", input=text)
    assert r.exit_code == 0, r.stderr
    assert _json(r)["records_written"] == 2
    assert {x["source"] for x in _lines(Path("h.jsonl"))} == {"<stdin>"}

    bad = text.replace("score-run", "piped") + "NaN\n"
    r = run_cli("extract", "-", "--history", "h2.jsonl", "--format", "json", input=bad)
    assert r.exit_code == 1
    out = _json(r)
    assert [(s["file"], s["line"]) for s in out["skipped_lines"]] == [("<stdin>", 9)]
    assert out["records_written"] == 2


def test_dry_run_writes_nothing(run_cli: Run, events: Path, tmp_path: Path) -> None:
    r = run_cli("extract", "in/events.jsonl", "--dry-run", "--format", "json")
    assert r.exit_code == 0
    out = _json(r)
    assert out["runs_scored"] == 1 and out["records_written"] == 0
    assert out["records_new"] == 2 and out["already_scored"] == []
    assert r.stderr == (
        f"1 run(s) scored, 2 record(s) would be written to {HISTORY} (dry run: nothing "
        "written); 0 already scored, 0 incomplete, 0 invalid, 0 line(s) skipped, "
        "0 warning(s), 0 unchanged file(s) not re-read\n"
    )
    assert not (tmp_path / ".archeflow").exists()
    assert sorted(os.listdir(tmp_path)) == ["in"]


def test_dry_run_counts_what_the_history_holds_already(
    run_cli: Run, events: Path, tmp_path: Path
) -> None:
    # A dry run read no history, so it said "0 already scored" (and nothing of what a
    # write would add) of runs the history held: the preview it is for was wrong.
    args = ("extract", "in/events.jsonl", "--history", "h.jsonl", "--format", "json")
    assert _json(run_cli(*args))["records_written"] == 2
    before = (tmp_path / "h.jsonl").read_bytes()
    manifest = sorted(os.listdir(tmp_path))
    r = run_cli(*args, "--dry-run")
    assert r.exit_code == 0
    out = _json(r)
    assert (out["runs_scored"], out["records_written"], out["records_new"]) == (1, 0, 0)
    assert out["already_scored"] == ["score-run"]
    assert r.stderr == (
        "1 run(s) scored, 0 record(s) would be written to h.jsonl (dry run: nothing "
        "written); 1 already scored, 0 incomplete, 0 invalid, 0 line(s) skipped, "
        "0 warning(s), 0 unchanged file(s) not re-read\n"
    )
    assert (tmp_path / "h.jsonl").read_bytes() == before  # nothing written
    assert sorted(os.listdir(tmp_path)) == manifest  # no lock file, no manifest change


def test_a_dry_run_says_what_a_write_would_append_for_none_one_and_many(
    run_cli: Run, events: Path, tmp_path: Path
) -> None:
    # "0 new record(s) not written (dry run)" read as "nothing was left out".
    args = ("extract", "in/events.jsonl", "--history", "h.jsonl", "--dry-run")
    tail = (
        " (dry run: nothing written); {} already scored, 0 incomplete, 0 invalid, "
        "0 line(s) skipped, 0 warning(s), 0 unchanged file(s) not re-read\n"
    )
    said = {}
    r = run_cli(*args)
    said["many"] = r.stderr
    assert run_cli(*args[:-1]).exit_code == 0
    (tmp_path / "h1.jsonl").write_text((tmp_path / "h.jsonl").read_text().splitlines()[0] + "\n")
    said["one"] = run_cli(*args[:3], "h1.jsonl", "--dry-run").stderr
    said["none"] = run_cli(*args).stderr
    assert said == {
        "many": "1 run(s) scored, 2 record(s) would be written to h.jsonl" + tail.format(0),
        "one": "1 run(s) scored, 1 record(s) would be written to h1.jsonl" + tail.format(0),
        "none": "1 run(s) scored, 0 record(s) would be written to h.jsonl" + tail.format(1),
    }


def test_incremental_rereads_the_other_files_of_a_changed_run(
    run_cli: Run, events: Path, tmp_path: Path, h: Any
) -> None:
    """A run split over two files: when one changes, the unchanged one is read again."""
    lines = events.read_text().splitlines()
    (tmp_path / "in" / "a.jsonl").write_text("\n".join(lines[:4]) + "\n")  # guardian's verdict
    (tmp_path / "in" / "b.jsonl").write_text("\n".join(lines[4:]) + "\n")
    events.unlink()
    args = ("extract", "in", "--history", "h.jsonl", "--format", "json")
    assert _json(run_cli(*args))["records_written"] == 2
    extra = {
        "run_id": "score-run",
        "seq": 9,
        "parent": [8],
        "type": "fix.applied",
        "data": {"source": "guardian"},
    }
    with (tmp_path / "in" / "b.jsonl").open("a") as f:
        f.write(json.dumps(extra) + "\n")
    out = _json(run_cli(*args))
    assert out["records_written"] == 2 and out["files_unchanged"] == 0
    new = {x["archetype"]: x for x in _lines(Path("h.jsonl"))[2:]}
    # guardian's findings live in the unchanged a.jsonl: they must still count
    assert new["guardian"]["findings_total"] == 2 and new["guardian"]["fixes_applied"] == 2
    full = h.records([tmp_path / "in" / "a.jsonl", tmp_path / "in" / "b.jsonl"])
    assert {r["events_sha256"] for r in full} == {new["guardian"]["events_sha256"]}


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_run_complete_ts_that_is_no_time_leaves_run_ts_unknown(
    run_cli: Run, tmp_path: Path, version: str
) -> None:
    # run_ts was the run.complete ts as written: every reader of the history then
    # skipped the line ("run_ts is not an ISO-8601 time"), or took 'infinity' as a time.
    text = ""
    for run, ts in [
        ("r1", '"last tuesday"'),
        ("r2", '"infinity"'),
        ("r3", "12345"),
        ("r4", '"2026-04-03T12:00:00+02:00"'),
    ]:
        text += (
            f'{{"run_id":"{run}","seq":1,"type":"run.start"}}\n'
            f'{{"run_id":"{run}","seq":2,"parent":[1],"type":"review.verdict",'
            '"agent":"guardian","data":{"verdict":"approved","findings":[]}}\n'
            f'{{"run_id":"{run}","seq":3,"parent":[2],"type":"run.complete","ts":{ts}}}\n'
        )
    (tmp_path / "in.jsonl").write_text(text)
    r = run_cli(
        "extract", "in.jsonl", "--history", "h.jsonl", "--sql-version", version, "--format", "json"
    )
    assert r.exit_code == 0, r.stderr
    assert [(w["run_id"], w["file"], w["line"], w["reason"]) for w in _json(r)["warnings"]] == [
        (
            run,
            "in.jsonl",
            line,
            f"run.complete ts {ts} is not an ISO-8601 time: the run's time is unknown",
        )
        # quoted as every message quotes a value: the ts as the events read it, a text
        for run, line, ts in [
            ("r1", 3, '"last tuesday"'),
            ("r2", 6, '"infinity"'),
            ("r3", 9, '"12345"'),
        ]
    ]
    assert [x["run_ts"] for x in _lines(tmp_path / "h.jsonl")] == [
        None,
        None,
        None,
        "2026-04-03T10:00:00Z",
    ]
    r = run_cli("report", "--history", "h.jsonl", "--sql-version", version, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert [x["runs"] for x in json.loads(r.stdout)] == [4]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
@pytest.mark.parametrize("tz", ["UTC", "Asia/Kolkata"])
def test_run_ts_is_written_in_utc(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, tz: str
) -> None:
    # README "Times are UTC ISO-8601": run_ts was the run.complete ts as written, so a
    # history line said 12:00+02:00 where the worked example says 10:06:00Z, and a tool
    # that reads the history as text (ArcheFlow's jq compares strings) put r1, completed
    # at 10:00 UTC, after r2, completed at 11:00 UTC. A time without an offset is UTC, as
    # every reader of the history takes it, whatever the machine's time zone.
    monkeypatch.setenv("TZ", tz)
    text = ""
    for run, ts in [
        ("r1", "2026-04-03T12:00:00+02:00"),
        ("r2", "2026-04-03T11:00:00Z"),
        ("r3", "2026-04-03T05:30:00.250-05:30"),
        ("r4", "2026-04-03 09:00:00"),
        ("r5", "2026-04-03"),
        ("r6", "2026-04-03T10:06:00.000Z"),
    ]:
        text += (
            f'{{"run_id":"{run}","seq":1,"type":"run.start"}}\n'
            f'{{"run_id":"{run}","seq":2,"parent":[1],"type":"review.verdict",'
            '"agent":"guardian","data":{"verdict":"approved","findings":[]}}\n'
            f'{{"run_id":"{run}","seq":3,"parent":[2],"type":"run.complete","ts":"{ts}"}}\n'
        )
    (tmp_path / "in.jsonl").write_text(text)
    r = run_cli("extract", "in.jsonl", "--history", "h.jsonl", "--sql-version", version)
    assert r.exit_code == 0, r.stderr
    assert [(x["run_id"], x["run_ts"]) for x in _lines(tmp_path / "h.jsonl")] == [
        ("r1", "2026-04-03T10:00:00Z"),
        ("r2", "2026-04-03T11:00:00Z"),
        ("r3", "2026-04-03T11:00:00.25Z"),
        ("r4", "2026-04-03T09:00:00Z"),
        ("r5", "2026-04-03T00:00:00Z"),
        ("r6", "2026-04-03T10:06:00Z"),
    ]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_run_complete_ts_reads_every_iso_form_the_other_packs_read(
    run_cli: Run, tmp_path: Path, version: str
) -> None:
    # The effectiveness pack read run.complete times by its own rule, narrower than the
    # one the pipeline, plugin and routes packs read theirs by (common/v1 rs_iso_text): a
    # week or ordinal date, the basic format, a decimal comma or a lowercase t/z left the
    # run's time unknown (run_ts null, "is not an ISO-8601 time"). Each is read as the
    # same instant; a week or a day its year does not have is still no time.
    cases = [
        ("r01", "2026-W06-1T09:00:00Z", "2026-02-02T09:00:00Z"),
        ("r02", "2026W011T090000Z", "2025-12-29T09:00:00Z"),
        ("r03", "2026-033T11:00:00+02:00", "2026-02-02T09:00:00Z"),
        ("r04", "2026033T090000", "2026-02-02T09:00:00Z"),
        ("r05", "2026-W06-1", "2026-02-02T00:00:00Z"),
        ("r06", "2026-033", "2026-02-02T00:00:00Z"),
        ("r07", "20260202T110000+0200", "2026-02-02T09:00:00Z"),
        ("r08", "2026-02-02T09:00:00,25Z", "2026-02-02T09:00:00.25Z"),
        ("r09", "2026-02-02t09:00:00z", "2026-02-02T09:00:00Z"),
        ("r10", "2025-W53-1T09:00:00Z", None),
        ("r11", "2026-366T09:00:00Z", None),
        ("r12", "0001-W01-1T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("r13", "9999-365T23:30:00-01:00", None),
    ]
    text = ""
    for run, ts, _ in cases:
        text += (
            f'{{"run_id":"{run}","seq":1,"type":"run.start"}}\n'
            f'{{"run_id":"{run}","seq":2,"parent":[1],"type":"review.verdict",'
            '"agent":"guardian","data":{"verdict":"approved","findings":[]}}\n'
            f'{{"run_id":"{run}","seq":3,"parent":[2],"type":"run.complete","ts":"{ts}"}}\n'
        )
    (tmp_path / "in.jsonl").write_text(text)
    r = run_cli(
        "extract", "in.jsonl", "--history", "h.jsonl", "--sql-version", version, "--format", "json"
    )
    assert r.exit_code == 0, r.stderr
    assert [(x["run_id"], x["run_ts"]) for x in _lines(tmp_path / "h.jsonl")] == [
        (run, want) for run, _, want in cases
    ]
    assert [(w["run_id"], w["line"], w["reason"]) for w in _json(r)["warnings"]] == [
        (run, line, f'run.complete ts "{ts}" is not an ISO-8601 time: the run\'s time is unknown')
        for run, line, ts in [
            ("r10", 30, "2025-W53-1T09:00:00Z"),
            ("r11", 33, "2026-366T09:00:00Z"),
            ("r13", 39, "9999-365T23:30:00-01:00"),
        ]
    ]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_run_ts_at_the_ends_of_the_year_range_does_not_depend_on_the_time_zone(
    tmp_path: Path, version: str
) -> None:
    # The years 1-9999 check cast a time without an offset in the machine's zone, while
    # run_ts itself takes it as UTC: 9999-12-31T23:30:00 was refused ("the run's time is
    # unknown", run_ts null) west of Greenwich and kept east of it, 0001-01-01T00:30:00
    # the other way round. A subprocess each: the zone is read when the process starts.
    import subprocess
    import sys

    text = ""
    for run, ts in [
        ("r1", "9999-12-31T23:30:00"),
        ("r2", "0001-01-01T00:30:00"),
        ("r3", "0001-01-01"),
    ]:
        text += (
            f'{{"run_id":"{run}","seq":1,"type":"run.start"}}\n'
            f'{{"run_id":"{run}","seq":2,"parent":[1],"type":"review.verdict",'
            '"agent":"guardian","data":{"verdict":"approved","findings":[]}}\n'
            f'{{"run_id":"{run}","seq":3,"parent":[2],"type":"run.complete","ts":"{ts}"}}\n'
        )
    (tmp_path / "in.jsonl").write_text(text)
    for tz in ["America/New_York", "Asia/Tokyo"]:
        hist = tmp_path / f"h-{tz.replace('/', '-')}.jsonl"
        out = subprocess.run(
            [sys.executable, "-m", "runscore.cli.main", "extract", "in.jsonl"]
            + ["--history", str(hist), "--sql-version", version],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "TZ": tz},
            check=False,
        )
        assert (tz, out.returncode, out.stderr.splitlines()[:-1]) == (tz, 0, [])
        assert [(x["run_id"], x["run_ts"]) for x in _lines(hist)] == [
            ("r1", "9999-12-31T23:30:00Z"),
            ("r2", "0001-01-01T00:30:00Z"),
            ("r3", "0001-01-01T00:00:00Z"),
        ], tz


def _strict_json(line: str) -> dict[str, Any]:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    out: dict[str, Any] = json.loads(line, parse_constant=refuse)
    return out


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_costs_beyond_a_double_never_write_infinity(
    run_cli: Run, tmp_path: Path, version: str
) -> None:
    # Two costs of 1e308 add up to Infinity, and 1 useful finding per 1e-320 dollars is
    # Infinity per dollar: DuckDB rendered both as `Infinity`, which is not JSON, so every
    # reader skipped the record.
    def run(run_id: str, costs: list[float]) -> str:
        lines = [f'{{"run_id":"{run_id}","seq":1,"type":"run.start"}}']
        for k, c in enumerate(costs):
            lines.append(
                f'{{"run_id":"{run_id}","seq":{2 + k},"parent":[1],"type":"agent.complete",'
                f'"agent":"guardian","data":{{"cost_usd":{c!r}}}}}'
            )
        n = 2 + len(costs)
        lines.append(
            f'{{"run_id":"{run_id}","seq":{n},"parent":[1],"type":"review.verdict",'
            '"agent":"guardian","data":{"verdict":"approved","findings":'
            '[{"severity":"bug","fix_required":true,"description":"x"}]}}'
        )
        lines.append(f'{{"run_id":"{run_id}","seq":{n + 1},"parent":[{n}],"type":"run.complete"}}')
        return "\n".join(lines) + "\n"

    (tmp_path / "in.jsonl").write_text(run("big", [1e308, 1e308]) + run("tiny", [1e-320]))
    r = run_cli(
        "extract", "in.jsonl", "--history", "h.jsonl", "--sql-version", version, "--format", "json"
    )
    assert r.exit_code == 0, r.stderr
    raw = (tmp_path / "h.jsonl").read_text().splitlines()
    recs = {x["run_id"]: x for x in map(_strict_json, raw)}
    assert recs["tiny"]["cost_efficiency"] is None
    if version == "v1":
        assert [(w["run_id"], w["line"], w["reason"]) for w in _json(r)["warnings"]] == [
            ("big", 3, "cost unknown: the costs add up to more than can be stored")
        ]
        big = recs["big"]
        assert (big["cost_usd"], big["cost_basis"], big["cost_efficiency_norm"]) == (
            None,
            "unknown",
            None,
        )
        # unknown cost: scored on the other four dimensions, renormalised by 0.80
        assert big["composite_score"] == 0.5625  # (0.30·1 + 0.15·1) / 0.80
        assert recs["tiny"]["cost_efficiency_norm"] == 1.0
    r = run_cli("report", "--history", "h.jsonl", "--sql-version", version, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert [x["runs"] for x in json.loads(r.stdout)] == [2]


def test_text_summary_names_the_runs_and_lines_it_counts(run_cli: Run, tmp_path: Path) -> None:
    # The text summary said "1 warning(s), 22 incomplete, 1 invalid" and named only the
    # invalid run: which lines warned and which runs were incomplete took --format json.
    # Now each is listed on stderr, 20 of a kind at most, then how many more.
    text = (
        '{"run_id":"w","seq":1,"type":"run.start"}\n'
        '{"run_id":"w","seq":2,"parent":[1],"type":"review.verdict","agent":"guardian",'
        '"data":{"verdict":"approved","findings":[]}}\n'
        '{"run_id":"w","seq":3,"parent":[2],"type":"run.complete","ts":"last tuesday"}\n'
        '{"run_id":"bad","seq":1,"type":"run.start"}\n'
        '{"run_id":"bad","seq":1,"type":"run.start","agent":"x"}\n'
        '{"run_id":"bad","seq":2,"parent":[1],"type":"run.complete"}\n'
    ) + "".join(f'{{"run_id":"open-{i:02d}","seq":1,"type":"run.start"}}\n' for i in range(22))
    (tmp_path / "in.jsonl").write_text(text)
    r = run_cli("extract", "in.jsonl", "--history", "h.jsonl")
    assert (r.exit_code, r.stdout) == (1, "")  # 1: the invalid run
    assert r.stderr.splitlines() == [
        'warning: in.jsonl:3: run.complete ts "last tuesday" is not an ISO-8601 time: '
        "the run's time is unknown",
        *(f'run "open-{i:02d}": incomplete: no run.complete event' for i in range(20)),
        "… and 2 more (--format json lists them all)",
        'run "bad": invalid: conflicting duplicate events for seq 1 (in.jsonl:4, in.jsonl:5)',
        "1 run(s) scored, 1 record(s) written to h.jsonl; 0 already scored, 22 incomplete, "
        "1 invalid, 0 line(s) skipped, 1 warning(s), 0 unchanged file(s) not re-read",
    ]
    # a rerun (every file unchanged) says the same of them, from the manifest
    again = run_cli("extract", "in.jsonl", "--history", "h.jsonl")
    assert again.stderr.splitlines()[:22] == r.stderr.splitlines()[:22]
    out = _json(run_cli("extract", "in.jsonl", "--history", "h2.jsonl", "--format", "json"))
    assert out["incomplete"] == [f"open-{i:02d}" for i in range(22)]


def test_nothing_read_lists_each_problem_on_its_own_line(run_cli: Any, tmp_path: Path) -> None:
    """Input none of whose lines could be read listed the first five problems run together
    on one line, and the rest not at all; routes and pipeline list theirs one a line, the
    first 20, then how many more. extract now does too, in the files' order."""
    (tmp_path / "a.jsonl").write_text("".join(f"bad {i}\n" for i in range(1, 8)))
    r = run_cli("extract", "a.jsonl", "--history", "h.jsonl")
    assert (r.exit_code, r.stdout) == (3, "")
    why = "not JSON: Expecting value: line 1 column 1 (char 0)"
    assert r.stderr == "error: nothing could be read:\n" + "".join(
        f"  a.jsonl:{i}: {why}\n" for i in range(1, 8)
    )
    (tmp_path / "b.jsonl").write_text("[1]\n" * 30)
    r = run_cli("extract", "b.jsonl", "a.jsonl", "--history", "h.jsonl")
    assert r.exit_code == 3
    assert r.stderr.splitlines() == [
        "error: nothing could be read:",
        *(f"  b.jsonl:{i}: not a JSON object (an array)" for i in range(1, 21)),
        "  … and 17 more",
    ]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_a_replaced_seq_that_makes_the_run_invalid_is_still_warned_of(
    run_cli: Run, tmp_path: Path, version: str
) -> None:
    # Spec §1: a missing seq is replaced by the line's position "and a warning is
    # reported". The warning was read from the run's kept events, and an invalid run keeps
    # none: a line without a seq whose position is another line's seq made the run
    # invalid, "conflicting duplicate events for seq 2 (in.jsonl:1, in.jsonl:2)", and
    # nothing said why in.jsonl:2, which names no seq, had seq 2.
    (tmp_path / "in.jsonl").write_text(
        '{"run_id":"r","seq":2,"type":"run.start"}\n'
        '{"run_id":"r","type":"review.verdict","agent":"g","data":{"verdict":"approved"}}\n'
        '{"run_id":"r","seq":3,"type":"run.complete","ts":"2026-01-01T00:00:00Z"}\n'
    )
    r = run_cli("extract", "in.jsonl", "--history", "h.jsonl", "--sql-version", version)
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr.splitlines() == [
        "warning: in.jsonl:2: missing or invalid seq: using position 2 in the run",
        'run "r": invalid: conflicting duplicate events for seq 2 (in.jsonl:1, in.jsonl:2)',
        "0 run(s) scored, 0 record(s) written to h.jsonl; 0 already scored, 0 incomplete, "
        "1 invalid, 0 line(s) skipped, 1 warning(s), 0 unchanged file(s) not re-read",
    ]
    out = _json(
        run_cli(
            "extract",
            "in.jsonl",
            "--history",
            "h2.jsonl",
            "--sql-version",
            version,
            "--format",
            "json",
        )
    )
    assert [(w["run_id"], w["file"], w["line"]) for w in out["warnings"]] == [("r", "in.jsonl", 2)]


def test_input_problems_are_listed_in_the_order_the_paths_were_given(
    run_cli: Any, tmp_path: Path
) -> None:
    """A path not found had no place among the files: with nothing read it was listed after
    every file's problem (`MISSING.jsonl` given first came last), and among the files not
    read after each whose bytes were refused (`wide.jsonl` given second came first). Both
    lists now follow the order the paths were given, as routes lists its problems."""
    (tmp_path / "bad.jsonl").write_text("not json\n")
    (tmp_path / "wide.jsonl").write_bytes(b"\xff\xfe" + "{}\n".encode("utf-16-le"))
    r = run_cli("extract", "missing.jsonl", "bad.jsonl", "--history", "h.jsonl")
    assert (r.exit_code, r.stderr.splitlines()) == (
        3,
        [
            "error: nothing could be read:",
            "  missing.jsonl: no such file or directory",
            "  bad.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        ],
    )
    (tmp_path / "good.jsonl").write_text(
        '{"run_id":"r","seq":1,"type":"run.start","ts":"2026-01-01T00:00:00Z"}\n'
    )
    for given in (["missing.jsonl", "wide.jsonl"], ["wide.jsonl", "missing.jsonl"]):
        r = run_cli(
            "extract", "good.jsonl", *given, "--history", "h.jsonl", "--format", "json", "--dry-run"
        )
        assert r.exit_code == 1, r.stderr
        assert [u["file"] for u in json.loads(r.stdout)["unreadable"]] == given
    # stderr said the lines skipped, then the files not read; `problems()` (score_runs'
    # warning) the other way round: each in the order given now.
    (tmp_path / "part.jsonl").write_text(
        '{"run_id":"p","seq":1,"type":"run.start","ts":"2026-01-01T00:00:00Z"}\nnot json\n'
    )
    why = "not JSON: Expecting value: line 1 column 1 (char 0)"
    for given in (["missing.jsonl", "part.jsonl"], ["part.jsonl", "missing.jsonl"]):
        r = run_cli("extract", *given, "--history", "h.jsonl", "--dry-run")
        said = {
            "missing.jsonl": "missing.jsonl: no such file or directory",
            "part.jsonl": f"part.jsonl:2: {why}",
        }
        assert (r.exit_code, r.stderr.splitlines()[:2]) == (1, [said[g] for g in given])
        res = effectiveness.extract(given, None, write=False)
        assert [(p.file, p.line) for p in res.problems()] == [
            (g, 2 if g == "part.jsonl" else 0) for g in given
        ]
