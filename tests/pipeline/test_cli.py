"""`runscore pipeline`: reports, summary, exit codes, file names, golden outputs, schema."""

from __future__ import annotations

import csv
import io
import json
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
DATE = "2026-03-07"


@pytest.fixture
def example(copy_fixture: Callable[[str], Path]) -> Path:
    """The worked example copied to <tmp>/in/pipeline (the CLI's cwd is <tmp>)."""
    return copy_fixture("pipeline")


def _run_example(run_cli: Any, *extra: str) -> Any:
    return run_cli(
        "pipeline",
        "in/pipeline/tasks.jsonl",
        "--plans",
        "in/pipeline/plans.jsonl",
        "--date",
        DATE,
        "--out",
        "out",
        *extra,
    )


def test_example_outputs_match_golden(run_cli: Any, example: Path, tmp_path: Path) -> None:
    res = _run_example(run_cli)
    assert res.exit_code == 1  # tasks.jsonl:22 was rejected
    assert "in/pipeline/tasks.jsonl:22: no task id (id or taskId)" in res.stderr
    assert 'pipeline "p-blocked": not terminal ("bl1"); not scored' in res.stderr
    out = tmp_path / "out"
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(p.name for p in GOLDEN.iterdir())
    for name in written:
        assert (out / name).read_text(encoding="utf-8") == (GOLDEN / name).read_text(
            encoding="utf-8"
        ), name
    assert res.stdout == (GOLDEN / f"pipeline-eval-summary-{DATE}.md").read_text(encoding="utf-8")


def test_every_json_written_validates(
    run_cli: Any, example: Path, tmp_path: Path, schema_validator: Any
) -> None:
    _run_example(run_cli)
    reports = sorted((tmp_path / "out").glob("pipeline-eval-p-*.json"))
    assert len(reports) == 4
    for p in reports:
        doc = json.loads(p.read_text(encoding="utf-8"))
        assert list(schema_validator.iter_errors(doc)) == [], p.name
    # The validator really validates: a broken document is refused.
    broken = dict(doc, verdict="GREAT", extra=1)
    assert len(list(schema_validator.iter_errors(broken))) == 2
    bad_time = dict(doc, evaluatedAt="yesterday")
    assert len(list(schema_validator.iter_errors(bad_time))) == 1


def test_report_markdown_shape(run_cli: Any, example: Path, tmp_path: Path) -> None:
    _run_example(run_cli)
    md = (tmp_path / "out" / f"pipeline-eval-p-composite-exactly-75-{DATE}.md").read_text()
    assert "**Verdict: ACCEPTABLE** · composite score **75.00** / 100" in md
    assert "| Dimension | Score | Weight | Weighted |" in md
    recs = [line for line in md.splitlines() if line[:3] in ("1. ", "2. ", "3. ")]
    assert [r.split("**")[1] for r in recs] == ["Quality", "Task completion", "Test pass rate"]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_summary_formats(run_cli: Any, example: Path, fmt: str) -> None:
    res = _run_example(run_cli, "--format", fmt)
    assert res.exit_code == 1
    if fmt == "json":
        rows = json.loads(res.stdout)
    else:
        rows = list(csv.DictReader(io.StringIO(res.stdout)))
    by_id = {r["pipeline_id"]: r for r in rows}
    assert sorted(by_id) == [
        "p-blocked",
        "p-blocked-then-completed",
        "p-composite-exactly-75",
        "p-composite-exactly-90",
        "p-excellent",
    ]
    assert by_id["p-blocked"]["status"] == "not_terminal"
    assert by_id["p-composite-exactly-90"]["verdict"] == "GOOD"
    if fmt == "json":
        assert by_id["p-blocked"]["non_terminal_task_ids"] == ["bl1"]
        assert by_id["p-blocked"]["composite_score"] is None
        assert by_id["p-excellent"]["composite_score"] == 100.0
    else:
        assert by_id["p-blocked"]["non_terminal_task_ids"] == '["bl1"]'
        assert by_id["p-blocked"]["composite_score"] == ""


def test_clean_input_exits_0_and_stdin_works(run_cli: Any, h: Any) -> None:
    lines = "".join(json.dumps(r) + "\n" for r in h.pipeline_tasks("s", 2))
    res = run_cli("pipeline", "-", "--date", DATE, "--out", "r", "--no-history", input=lines)
    assert res.exit_code == 0, res.stderr
    assert "| s | scored | GOOD | 78.50 |" in res.stdout
    assert Path("r", f"pipeline-eval-s-{DATE}.md").is_file()
    assert not Path(".archeflow").exists()


def test_stdin_for_both_tasks_and_plans_is_a_usage_error(run_cli: Any, h: Any) -> None:
    """`runscore pipeline - --plans -`: the TASKS read all of standard input and the plans
    read it empty, without a word, so every pipeline's D4 was neutral (70) however it
    was planned. Refused before anything is read or written; either alone still works."""
    tasks = "".join(json.dumps(r) + "\n" for r in h.pipeline_tasks("s", 2))
    res = run_cli(
        "pipeline",
        "-",
        "--plans",
        "-",
        "--date",
        DATE,
        "--out",
        "r",
        "--no-history",
        input=tasks,
    )
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        "error: - (standard input) is given as both TASKS and --plans: it can be read only "
        "once (write one of them to a file) (see 'cli pipeline --help')\n"
    )
    assert not Path("r").exists()
    h.write_jsonl(Path("t.jsonl"), h.pipeline_tasks("s", 2))
    plan = json.dumps({"pipelineId": "s", "estimatedDurationMinutes": 600}) + "\n"
    res = run_cli(
        "pipeline",
        "t.jsonl",
        "--plans",
        "-",
        "--date",
        DATE,
        "--format",
        "json",
        "--no-history",
        input=plan,
    )
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)[0]["time_efficiency"] == 100.0


def test_directories_and_globs(run_cli: Any, h: Any, tmp_path: Path) -> None:
    h.write_jsonl(tmp_path / "d" / "a.jsonl", h.pipeline_tasks("a", 1))
    h.write_jsonl(tmp_path / "d" / "sub" / "b.jsonl", h.pipeline_tasks("b", 1))
    h.write_jsonl(tmp_path / "g1.jsonl", h.pipeline_tasks("c", 1))
    res = run_cli("pipeline", "d", "g*.jsonl", "--date", DATE, "--format", "json", "--no-history")
    assert res.exit_code == 0, res.stderr
    assert [r["pipeline_id"] for r in json.loads(res.stdout)] == ["a", "b", "c"]


def test_a_file_that_holds_no_line_beside_snapshots_is_said(run_cli: Any, h: Any) -> None:
    """Spec-silent. Beside a file of task snapshots, a file that holds no line was read
    without a word (exit 0), where alone it is named in the error (exit 3), and `extract`
    says it. It is said now on stderr in the error's words, in the order given, and is not
    rejected input (exit 0, not in `issues`); the summary file lists it in `emptyFiles`."""
    Path("a.jsonl").write_text("")
    Path("b.jsonl").write_bytes(b"\n \x0b\r\n")
    h.write_jsonl(Path("t.jsonl"), h.pipeline_tasks("s", 2))
    res = run_cli(
        "pipeline", "a.jsonl", "t.jsonl", "b.jsonl", "--date", DATE, "--out", "r",
        "--no-history", "--format", "json",
    )  # fmt: skip
    assert (res.exit_code, res.stderr) == (
        0,
        "a.jsonl: empty (no task snapshots)\n"
        "b.jsonl: only blank lines (no task snapshots)\n"
        "wrote 4 report file(s) to r\n",
    )
    assert [r["pipeline_id"] for r in json.loads(res.stdout)] == ["s"]
    summary = json.loads(Path("r", f"pipeline-eval-summary-{DATE}.json").read_text())
    assert (summary["emptyFiles"], summary["issues"]) == (
        [
            {"file": "a.jsonl", "reason": "empty (no task snapshots)"},
            {"file": "b.jsonl", "reason": "only blank lines (no task snapshots)"},
        ],
        [],
    )


def test_a_plans_file_that_holds_no_line_is_said(run_cli: Any, h: Any) -> None:
    """Spec-silent. A `--plans` file that holds no line was read without a word (every D4
    neutral, exit 0), where an empty task file beside snapshots is said. It is said now in
    the same way: on stderr, in input order after the task files, and in the summary
    file's `emptyFiles`, not as rejected input (exit 0, not in `issues`)."""
    Path("a.jsonl").write_text("")
    Path("p1.jsonl").write_text("")
    Path("p2.jsonl").write_bytes(b"\n \n")
    h.write_jsonl(Path("t.jsonl"), h.pipeline_tasks("s", 2))
    res = run_cli(
        "pipeline", "t.jsonl", "a.jsonl", "--plans", "p1.jsonl", "--plans", "p2.jsonl",
        "--date", DATE, "--out", "r", "--no-history", "--format", "json",
    )  # fmt: skip
    assert (res.exit_code, res.stderr) == (
        0,
        "a.jsonl: empty (no task snapshots)\n"
        "p1.jsonl: empty (no plans)\n"
        "p2.jsonl: only blank lines (no plans)\n"
        "wrote 4 report file(s) to r\n",
    )
    assert [r["time_efficiency"] for r in json.loads(res.stdout)] == [70.0]
    summary = json.loads(Path("r", f"pipeline-eval-summary-{DATE}.json").read_text())
    assert (summary["emptyFiles"], summary["issues"]) == (
        [
            {"file": "a.jsonl", "reason": "empty (no task snapshots)"},
            {"file": "p1.jsonl", "reason": "empty (no plans)"},
            {"file": "p2.jsonl", "reason": "only blank lines (no plans)"},
        ],
        [],
    )


def test_exit_codes(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli("pipeline", "missing.jsonl").exit_code == 3
    Path("empty.jsonl").write_text("")
    empty = run_cli("pipeline", "empty.jsonl")
    assert empty.exit_code == 3 and "no usable task snapshot" in empty.stderr
    assert run_cli("pipeline").exit_code == 2
    assert run_cli("pipeline", "empty.jsonl", "--date", "07/03/2026").exit_code == 2
    assert run_cli("pipeline", "empty.jsonl", "--report").exit_code == 2
    assert run_cli("pipeline", "--report", "--period", "fortnight").exit_code == 2
    assert not Path(".archeflow").exists()


def test_hostile_pipeline_ids_stay_in_out_dir(
    run_cli: Any, h: Any, tmp_path: Path, schema_validator: Any
) -> None:
    ids = ["../../escape", "a|b `x`", "a/b", "a:b"]
    rows = [r for pid in ids for r in h.pipeline_tasks(pid, 1)]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(files) == 2 * len(ids) + 2
    assert all("/" not in f and not f.startswith(".") for f in files)
    assert not (tmp_path.parent / "escape").exists()
    seen = set()
    for p in (tmp_path / "out").glob("pipeline-eval-*.json"):
        if "summary" in p.name:
            continue
        doc = json.loads(p.read_text())
        assert list(schema_validator.iter_errors(doc)) == []
        seen.add(doc["pipelineId"])
    assert seen == set(ids)  # ids are kept verbatim inside the reports
    # A hostile id cannot break the summary table: every row has the same cell count.
    table = [line for line in res.stdout.splitlines() if line.startswith("| ")]
    assert len({line.replace("\\|", "").count("|") for line in table}) == 1
    assert "a\\|b \\`x\\`" in res.stdout


def test_run_batch_for_the_nightly_job(example: Path, tmp_path: Path, h: Any) -> None:
    from runscore.cli.pipeline import run_batch

    summary = run_batch(
        [str(example / "tasks.jsonl")],
        str(tmp_path / "nightly"),
        h.EVAL_DATE,
        plans=[str(example / "plans.jsonl")],
        history_path=str(tmp_path / "hist.jsonl"),
    )
    assert (summary["pipelines"], summary["scored"], summary["notTerminal"]) == (5, 4, 1)
    assert summary["verdicts"] == {
        "EXCELLENT": 1,
        "GOOD": 2,
        "ACCEPTABLE": 1,
        "NEEDS_IMPROVEMENT": 0,
    }
    assert summary["history"]["written"] == 4
    assert summary["partial"] is True
    assert [e.rsplit(": ", 1)[1] for e in summary["errors"]] == ["no task id (id or taskId)"]
    assert len(summary["files"]) == 10
    assert all(Path(f).is_file() for f in summary["files"])
    json.dumps(summary)  # JSON-ready


def test_a_history_lock_held_elsewhere_leaves_no_report(
    example: Path, tmp_path: Path, h: Any
) -> None:
    # The reports were written, then the append gave up waiting for the history's lock
    # (LockTimeout, exit 4): reports of an evaluation the history never recorded.
    from runscore.cli.pipeline import run_batch
    from runscore.engine import history
    from runscore.engine.errors import LockTimeout

    hist, out = tmp_path / "hist.jsonl", tmp_path / "nightly"

    def batch() -> dict[str, Any]:
        return run_batch(
            [str(example / "tasks.jsonl")],
            str(out),
            h.EVAL_DATE,
            plans=[str(example / "plans.jsonl")],
            history_path=str(hist),
            lock_timeout=0.2,
        )

    with history.locked(str(hist)), pytest.raises(LockTimeout):
        batch()
    assert not out.exists() or not any(out.iterdir())
    assert not hist.exists()
    summary = batch()  # the lock free: the reports and the records
    assert len(summary["files"]) == 10 and summary["history"]["written"] == 4


def test_lock_timeout_is_how_long_the_command_waits_for_the_history_lock(
    run_cli: Any, example: Path, tmp_path: Path
) -> None:
    # `pipeline` waited a fixed 300 s for a history lock held elsewhere, where `extract`
    # takes --lock-timeout: a script could not say how long to wait (0: not at all).
    import time

    from runscore.engine import history

    hist = tmp_path / "hist.jsonl"
    with history.locked(str(hist), timeout=0):
        start = time.monotonic()
        res = _run_example(run_cli, "--history", str(hist), "--lock-timeout", "0.2")
        waited = time.monotonic() - start
    assert res.exit_code == 4, res.stderr
    assert res.stderr.splitlines()[-1] == (
        f"error: {hist}: another runscore process holds the pipeline history lock"
    )
    assert res.stdout == ""
    assert waited < 60  # not the 300 s it waited before
    assert not Path("out").exists() or not any(Path("out").iterdir())
    assert not hist.exists()
    # a deadline of now + nan is never reached: refused, as extract refuses it
    res = _run_example(run_cli, "--history", str(hist), "--lock-timeout", "nan")
    assert res.exit_code == 2
    assert res.stderr.splitlines()[-1] == (
        "error: Invalid value for '--lock-timeout': \"nan\" is not a finite number of seconds, "
        "0 or more (see 'cli pipeline --help')"
    )
    assert not Path("out").exists() or not any(Path("out").iterdir())
    assert not hist.exists()
    res = _run_example(run_cli, "--history", str(hist), "--lock-timeout", "0")
    assert res.exit_code == 1, res.stderr  # the lock free: taken at once (1: a bad line)
    assert len(hist.read_text(encoding="utf-8").splitlines()) == 4


def test_pipeline_named_summary_keeps_its_own_report(run_cli: Any, h: Any, tmp_path: Path) -> None:
    # A pipeline whose id is "summary" was written to pipeline-eval-summary-{date}.md/.json,
    # the batch summary's names: the summary overwrote its report, silently.
    h.write_jsonl(tmp_path / "t.jsonl", h.pipeline_tasks("summary", 1) + h.pipeline_tasks("x", 1))
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(files) == 6, files
    summary = json.loads((tmp_path / "out" / f"pipeline-eval-summary-{DATE}.json").read_text())
    [row] = [r for r in summary["pipelines"] if r["pipeline_id"] == "summary"]
    stem = row["report"].removesuffix(".md")
    assert stem.startswith("pipeline-eval-summary-") and stem.endswith(DATE)
    assert stem != f"pipeline-eval-summary-{DATE}"
    doc = json.loads((tmp_path / "out" / f"{stem}.json").read_text())
    assert doc["pipelineId"] == "summary"
    md = (tmp_path / "out" / row["report"]).read_text()
    assert md.startswith("# Pipeline evaluation: summary\n")


def test_out_file_names_keep_every_script_and_never_clash_by_case(
    run_cli: Any, h: Any, tmp_path: Path
) -> None:
    """`pipeline --out` kept only `A-Za-z0-9._-` of an id: `é` was `_-<hash>`, `中文/x`
    `__x-<hash>`. And `A` beside `a`, `Summary` beside the summary, and `é` written
    composed beside `e` + U+0301 (decomposed) were each two files by name but one on a file
    system that ignores case or composes accents (macOS, Windows): one report overwrote
    the other. Letters of every script are kept now, as `plugin score --out` keeps them,
    and names that would be one file each get 8 hex digits of their id's SHA-256."""
    ids = ["é", "e\u0301", "A", "a", "Summary", "中文/x", "b"]
    h.write_jsonl(tmp_path / "t.jsonl", [r for pid in ids for r in h.pipeline_tasks(pid, 1)])
    res = run_cli(
        "pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history", "--format", "json"
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    reports = {r["pipeline_id"]: r["report"].removesuffix(".md") for r in json.loads(res.stdout)}
    assert reports == {
        "A": f"pipeline-eval-A-559aead0-{DATE}",
        "Summary": f"pipeline-eval-Summary-8e76a94a-{DATE}",
        "a": f"pipeline-eval-a-ca978112-{DATE}",
        "b": f"pipeline-eval-b-{DATE}",
        "e\u0301": f"pipeline-eval-é-bf12767b-{DATE}",
        "é": f"pipeline-eval-é-{DATE}",
        "中文/x": f"pipeline-eval-中文_x-675ad51d-{DATE}",
    }
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    expected = [f"{r}.{ext}" for r in reports.values() for ext in ("json", "md")]
    assert names == sorted(expected + [f"pipeline-eval-summary-{DATE}.{e}" for e in ("json", "md")])
    assert len({unicodedata.normalize("NFC", n.casefold()) for n in names}) == len(names)
    for pid, report in reports.items():
        assert json.loads((tmp_path / "out" / f"{report}.json").read_text())["pipelineId"] == pid


def test_null_items_of_files_modified_are_not_shown_as_none(evaluate: Any, h: Any) -> None:
    from runscore.cli.pipeline import render_pipeline_markdown

    # Nor an empty or blank item: it was shown as "a.py, , b.py".
    res = evaluate([h.task("f", "t1", filesModified=[None, "a.py", "", " ", None, "b.py"])])
    [t] = res.rows_for(res.tasks, "f")
    assert t["files_modified"] == ["a.py", "b.py"]
    md = render_pipeline_markdown(res, "f")
    assert "| a.py, b.py |" in md and "None" not in md


def test_a_time_beyond_python_s_years_is_said_and_treated_as_missing(
    run_cli: Any, h: Any, tmp_path: Path
) -> None:
    # DuckDB's cast takes "10000-01-01T00:00:00Z" and "-0001-...": the pipeline was
    # scored, then writing its report ended in a traceback (OverflowError: date value out
    # of range, exit 1) and no report. Such a time is treated as missing, as any other
    # that cannot be read, with the warning that says so.
    rows = h.pipeline_tasks("y", 2)
    rows[0]["metadata"] = {"completedAt": "10000-01-01T00:00:00Z"}
    rows[1]["createdAt"] = "-0001-03-01T00:00:00Z"
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--no-history")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.splitlines()[:2] == [
        'warning: t.jsonl:1: task "t01": metadata.completedAt "10000-01-01T00:00:00Z" is not '
        "an ISO-8601 timestamp; treated as missing",
        'warning: t.jsonl:2: task "t02": createdAt "-0001-03-01T00:00:00Z" is not an ISO-8601 '
        "timestamp; treated as missing",
    ]
    assert "| y | scored | GOOD | 78.50 |" in res.stdout
    assert Path("r", f"pipeline-eval-y-{DATE}.md").is_file()


GOLDEN_MD = Path(__file__).resolve().parent / "golden_markdown"


def test_markdown_reports_escape_user_text(run_cli: Any, h: Any, tmp_path: Path) -> None:
    # Names and free text went into the markdown with only | ` \ < > escaped: a task
    # summary "fix *all* [urgent]" rendered as emphasis and a link reference, a file
    # "[x](http://e.example)" as a live link, "_wip_" as emphasis, "~~old~~" struck
    # through. Now they read as written; intra-word underscores (NEEDS_IMPROVEMENT,
    # snake_case.py) need no escape and stay as they are. The golden's t|2 row changed
    # when the packs' escapes became one (output.md_text): its missing filesModified is
    # "—" like every unknown cell (it was blank), and the summary's leading "!" is "\!"
    # (nightly escaped a leading marker; the one escape does wherever a value lands).
    rows = [
        h.task(
            "fix *all* [urgent]",
            "_t1_",
            summary="fix *all* [urgent] | ~~old~~ `code` \\ <b>",
            filesModified=["[x](http://e.example)", "snake_case.py", "b_.py"],
            testResult="*PASS* [3/4]",
            deviations=["scope"],
        ),
        h.task("fix *all* [urgent]", "t|2", "failed", summary="![img](y.png) **bold** _em_"),
        h.task("wip_[x]", "*t*", "in_progress"),
    ]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    out = tmp_path / "out"
    report = out / f"pipeline-eval-fix_all_urgent_-f7525c9c-{DATE}.md"
    summary = out / f"pipeline-eval-summary-{DATE}.md"
    assert report.read_text(encoding="utf-8") == (GOLDEN_MD / "report.md").read_text("utf-8")
    assert summary.read_text(encoding="utf-8") == (GOLDEN_MD / "summary.md").read_text("utf-8")
    assert res.stdout == summary.read_text(encoding="utf-8")
    md = report.read_text(encoding="utf-8")
    assert md.startswith("# Pipeline evaluation: fix \\*all\\* \\[urgent\\]\n")
    assert (
        "| \\_t1\\_ | completed | — | \\*PASS\\* \\[3/4\\] (ignored) | 1 "
        "| \\[x\\](http://e.example), snake_case.py, b\\_.py "
        "| fix \\*all\\* \\[urgent\\] \\| \\~\\~old\\~\\~ \\`code\\` \\\\ &lt;b> |"
    ) in md
    assert "**Verdict: NEEDS_IMPROVEMENT**" in md
    assert "| wip\\_\\[x\\] | not_terminal |" in res.stdout
    assert "not terminal: \\*t\\* |" in res.stdout


def test_input_notes_read_as_written_in_the_raw_markdown(
    run_cli: Any, h: Any, tmp_path: Path
) -> None:
    # The one markdown escape wrote every ">" as "&gt;", so a note "is not a number >= 0"
    # read "&gt;= 0" in the .md file (the rendered page was right). With every "<"
    # escaped a ">" closes no tag; it is written as it is.
    h.write_jsonl(tmp_path / "t.jsonl", [h.task("p", "t1")])
    h.write_jsonl(tmp_path / "plans.jsonl", [{"pipelineId": "p", "estimatedDurationMinutes": -5}])
    res = run_cli(
        "pipeline",
        "t.jsonl",
        "--plans",
        "plans.jsonl",
        "--date",
        "2026-03-07",
        "--out",
        "out",
        "--no-history",
    )
    assert res.exit_code == 1, res.stderr
    report = (tmp_path / "out" / "pipeline-eval-p-2026-03-07.md").read_text("utf-8")
    assert report == (GOLDEN_MD / "plan_notes.md").read_text("utf-8")
    note = "- error: plans.jsonl:1: estimatedDurationMinutes -5 is not a number >= 0\n"
    assert res.stdout.endswith("## Input notes\n\n" + note)


def test_user_text_keeps_entities_and_a_heading_s_last_hash(
    run_cli: Any, h: Any, tmp_path: Path
) -> None:
    # `&` was not escaped, so a summary "&lt;b&gt;" rendered as "<b>" and "&amp;" as
    # "&"; and the heading "# Pipeline evaluation: p #" ended in an ATX closing sequence,
    # so the pipeline "p #" was shown as "p". Both now read as written; a raw <tag>
    # stays text; a leading "# " cannot make a heading.
    rows = [
        h.task("p #", "t1", summary="&lt;b&gt; &amp; <tag>"),
        h.task("p #", "t2", summary="# h"),
    ]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    md = (tmp_path / "out" / f"pipeline-eval-p_-b8b4a033-{DATE}.md").read_text("utf-8")
    assert md.startswith("# Pipeline evaluation: p \\#\n")
    assert "| t1 | completed | — | — | — | — | &amp;lt;b&amp;gt; &amp;amp; &lt;tag> |\n" in md
    assert "| t2 | completed | — | — | — | — | \\# h |\n" in md
    assert "| p \\# | scored | GOOD | 78.50 | 2 |" in res.stdout


def test_files_modified_unknown_is_a_dash_and_an_empty_list_says_none(
    evaluate: Any, h: Any
) -> None:
    # The "Files modified" cell was blank both when metadata.filesModified was missing
    # (or not an array) and when it was an empty list, while every other unknown cell
    # shows "—". Unknown is not zero: missing is "—" like the others; a known empty list
    # (or one with only null items, which name no file) is "none".
    from runscore.cli.pipeline import render_pipeline_markdown

    res = evaluate(
        [
            h.task("f", "t1"),
            h.task("f", "t2", filesModified="a.py"),
            h.task("f", "t3", filesModified=[]),
            h.task("f", "t4", filesModified=[None]),
            h.task("f", "t5", filesModified=["a.py", "b.py"]),
        ]
    )
    lines = [x for x in render_pipeline_markdown(res, "f").splitlines() if x.startswith("| t")]
    assert lines == [
        "| t1 | completed | — | — | — | — | — |",
        "| t2 | completed | — | — | — | — | — |",
        "| t3 | completed | — | — | — | none | — |",
        "| t4 | completed | — | — | — | none | — |",
        "| t5 | completed | — | — | — | a.py, b.py | — |",
    ]


def test_a_refused_test_result_shows_the_characters_that_look_blank(
    run_cli: Any, tmp_path: Path
) -> None:
    """`"PASS\\u00a042/42"` (a no-break space) is refused, rightly, but the warning printed it
    as `"PASS 42/42"`, which reads as the valid result it is not. A character that shows blank
    or not at all yet is no ASCII space is now written `\\u00a0` in the quoted JSON (still JSON
    meaning the same value), whether the input escaped it or held it as UTF-8; any other
    character, é or 任, stays as it is."""
    head = '{"pipelineId": "p", "status": "completed", "createdAt": "2026-02-02T09:00:00Z", '
    lines = [
        head + '"id": "a", "metadata": {"testResult": "PASS\\u00a042/42"}}',
        head + '"id": "b", "metadata": {"testResult": "PASS\u00a042/42"}}',
        head + '"id": "c", "metadata": {"testResult": "PASS 4\u200b2/42 é任"}}',
    ]
    (tmp_path / "t.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    refused = ' is not "PASS n/m" or "FAIL n/m"; ignored'
    assert res.stderr.splitlines()[:3] == [
        'warning: t.jsonl:1: task "a": testResult "PASS\\u00a042/42"' + refused,
        'warning: t.jsonl:2: task "b": testResult "PASS\\u00a042/42"' + refused,
        'warning: t.jsonl:3: task "c": testResult "PASS 4\\u200b2/42 é任"' + refused,
    ]
    # The task table showed the value as given ("PASS 42/42 (ignored)": a valid result,
    # ignored for no visible reason): it shows it as the warning quotes it. A value that
    # holds the text \u00a0 itself is shown as given, unquoted, so the two differ.
    lines.append(head + '"id": "d", "metadata": {"testResult": "PASS\\\\u00a042/42"}}')
    (tmp_path / "t.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    md = (tmp_path / "out" / f"pipeline-eval-p-{DATE}.md").read_text("utf-8")
    assert [x for x in md.splitlines() if x[:5] in ("| a |", "| b |", "| c |", "| d |")] == [
        '| a | completed | — | "PASS\\\\u00a042/42" (ignored) | — | — | — |',
        '| b | completed | — | "PASS\\\\u00a042/42" (ignored) | — | — | — |',
        '| c | completed | — | "PASS 4\\\\u200b2/42 é任" (ignored) | — | — | — |',
        "| d | completed | — | PASS\\\\u00a042/42 (ignored) | — | — | — |",
    ]


def test_the_task_table_tells_a_test_result_s_escape_from_its_text(
    run_cli: Any, tmp_path: Path
) -> None:
    """A testResult holding a CR was shown as given, which the report writes `\\x0d`, as it
    writes one holding the text `\\x0d` itself; and one holding the text
    `"PASS\\u00a042/42"`, quotes and all, read as the no-break space's. A value holding a
    control character, or opening with a quote, is now shown quoted too (pl_shown follows
    rs_shown), its own backslashes and quotes escaped."""
    head = '{"pipelineId": "p", "status": "completed", "createdAt": "2026-02-02T09:00:00Z", '
    results = {
        "a": "PASS 3/3\r",
        "b": "PASS 3/3\\x0d",
        "c": '"PASS\\u00a042/42"',
        "d": "PASS\u00a042/42",
        "e": "PASS 3/3",
    }
    lines = [
        head + f'"id": "{k}", "metadata": {{"testResult": {json.dumps(v)}}}}}'
        for k, v in results.items()
    ]
    (tmp_path / "t.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "out", "--no-history")
    assert res.exit_code == 0, res.stderr
    md = (tmp_path / "out" / f"pipeline-eval-p-{DATE}.md").read_text("utf-8")
    assert [
        x.split(" | ")[3]
        for x in md.splitlines()
        if x[:4] in ("| a ", "| b ", "| c ", "| d ", "| e ")
    ] == [
        '"PASS 3/3\\\\r"',
        "PASS 3/3\\\\x0d (ignored)",
        '"\\\\"PASS\\\\\\\\u00a042/42\\\\"" (ignored)',
        '"PASS\\\\u00a042/42" (ignored)',
        "PASS 3/3",
    ]


def test_task_and_pipeline_ids_in_messages_are_quoted(run_cli: Any, tmp_path: Path) -> None:
    """Task and pipeline ids were printed as given (``task a: ...``, ``pipeline p: not
    terminal (t)``): an id holding a line break made up a message of its own (written
    ``\\n`` by the message writer, it still read as the end of the id), and one holding a
    zero-width or no-break space hid it. They are quoted as other input values are."""
    head = '"status": "completed", "createdAt": "2026-02-02T09:00:00Z", "pipelineId": '
    lines = [
        "{" + head + '"p", "id": "a: fine\\nt.jsonl:9: all good", "metadata": {"deviations": 1}}',
        "{" + head + '"p", "id": "b\u200bc", "metadata": {"testResult": "nope"}}',
        '{"pipelineId": "q\u00a0r", "id": "t\u2028x", "status": "in_progress"}',
        '{"pipelineId": "q\u00a0r", "id": "t\\"", "status": "pending"}',
        '{"pipelineId": "e\u200b", "id": "t", "status": "completed"}',
    ]
    (tmp_path / "t.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "plans.jsonl").write_text(
        '{"pipelineId": "e\u200b", "estimatedDurationMinutes": 5}\n', encoding="utf-8"
    )
    args = ("t.jsonl", "--plans", "plans.jsonl", "--no-history", "--out", "o")
    res = run_cli("pipeline", *args, "--date", DATE, "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.splitlines() == [
        'warning: t.jsonl:1: task "a: fine\\nt.jsonl:9: all good": metadata.deviations is '
        "number, not an array; the deviation count is unknown",
        'warning: t.jsonl:2: task "b\\u200bc": testResult "nope" is not "PASS n/m" or '
        '"FAIL n/m"; ignored',
        'warning: pipeline "e\\u200b": pipeline has an estimate but no parsable createdAt '
        "and completedAt/updatedAt; time efficiency is neutral",
        'pipeline "q\\u00a0r": not terminal ("t\\"", "t\\u2028x"); not scored',
        "wrote 6 report file(s) to o",
    ]
    # the data keeps the ids as given
    ids = [r["pipeline_id"] for r in json.loads(res.stdout)]
    assert ids == ["e\u200b", "p", "q\u00a0r"]


def test_the_report_says_which_end_of_an_unknown_duration_is_missing(run_cli: Any, h: Any) -> None:
    """A pipeline with no parsable times and no estimate read "Duration: — min actual; no
    estimate", a number where none is known, and one whose tasks gave updatedAt but no
    createdAt read "no parsable timestamps". The line says unknown, and which end is
    missing, as the warning does."""
    rows = [
        {"pipelineId": "bare", "id": "a", "status": "completed"},
        {
            "pipelineId": "no-start",
            "id": "a",
            "status": "completed",
            "updatedAt": "2026-02-02T10:00:00Z",
        },
        {
            "pipelineId": "no-end",
            "id": "a",
            "status": "completed",
            "createdAt": "2026-02-02T09:00:00Z",
        },
        {
            "pipelineId": "planned",
            "id": "a",
            "status": "completed",
            "updatedAt": "2026-02-02T10:00:00Z",
        },
    ]
    h.write_jsonl(Path("t.jsonl"), rows)
    h.write_jsonl(Path("p.jsonl"), [{"pipelineId": "planned", "estimatedDurationMinutes": 30}])
    res = run_cli(
        "pipeline", "t.jsonl", "--plans", "p.jsonl", "--date", DATE, "--out", "r", "--no-history"
    )
    assert res.exit_code == 0, res.stderr
    lines = {
        pid: [
            line
            for line in Path(f"r/pipeline-eval-{pid}-{DATE}.md").read_text().splitlines()
            if line.startswith("- Duration:")
        ]
        for pid in ("bare", "no-start", "no-end", "planned")
    }
    assert lines == {
        "bare": ["- Duration: unknown (no parsable timestamps); no estimate, scored as neutral"],
        "no-start": ["- Duration: unknown (no parsable createdAt); no estimate, scored as neutral"],
        "no-end": [
            "- Duration: unknown (no parsable completedAt or updatedAt); no estimate, scored as "
            "neutral"
        ],
        "planned": [
            "- Duration: unknown (no parsable createdAt) against 30.00 min estimated; scored as "
            "neutral"
        ],
    }


def test_task_ids_are_listed_in_natural_order(run_cli: Any, h: Any, tmp_path: Path) -> None:
    """Task ids were sorted as text: t1, t10, t100, t2 in the report's task table and in the
    non-terminal ids (markdown, JSON and CSV summaries, the stderr note). Their digit runs
    are compared as numbers now (leading zeros do not count), ties by the text."""
    ids = ["t10", "t2", "t100", "t02", "t1", "a", "T3", "t2b", "t9", "t2a", "10", "9"]
    rows = [h.task("p", t, summary=f"s {t}") for t in ids]
    rows += [h.task("q", t, "pending") for t in ("x10", "x2", "x1")]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    natural = ["9", "10", "T3", "a", "t1", "t02", "t2", "t2a", "t2b", "t9", "t10", "t100"]
    for fmt in ("markdown", "json", "csv"):
        res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--no-history",
                      "--format", fmt)  # fmt: skip
        assert res.exit_code == 0, res.stderr
        assert res.stderr.splitlines()[0] == (
            'pipeline "q": not terminal ("x1", "x2", "x10"); not scored'
        )
        if fmt == "json":
            assert json.loads(res.stdout)[1]["non_terminal_task_ids"] == ["x1", "x2", "x10"]
        elif fmt == "csv":
            assert (
                list(csv.DictReader(io.StringIO(res.stdout)))[1]["non_terminal_task_ids"]
                == '["x1", "x2", "x10"]'
            )
        else:
            assert "| not terminal: x1, x2, x10 |" in res.stdout
    md = Path("r", f"pipeline-eval-p-{DATE}.md").read_text(encoding="utf-8")
    table = md.split("## Tasks", 1)[1].splitlines()[4:]
    assert [line.split(" | ")[0].removeprefix("| ") for line in table if line] == natural


def test_pipeline_ids_are_listed_in_natural_order(run_cli: Any, h: Any, tmp_path: Path) -> None:
    """Pipeline ids were sorted as text (p1, p10, p2) in the summaries (markdown, JSON, CSV),
    the reports' order, the not-terminal notes and the history's append order, where task
    ids were listed naturally. They are listed as task ids are now; each history record is
    the one it was (its inputs_sha256 too), only their order in the file changed."""
    from runscore.engine.packs import pipeline as engine

    ids = ["p10", "p2", "p1", "p9b", "p02"]
    rows = [h.task(pid, "t1") for pid in ids] + [h.task(f"q{n}", "t1", "pending") for n in (10, 2)]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    natural = ["p1", "p02", "p2", "p9b", "p10", "q2", "q10"]
    for fmt in ("markdown", "json", "csv"):
        res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--format", fmt,
                      "--history", f"h-{fmt}.jsonl")  # fmt: skip
        assert res.exit_code == 0, res.stderr
        assert [line.split('"')[1] for line in res.stderr.splitlines()[:2]] == ["q2", "q10"]
        if fmt == "json":
            got = [r["pipeline_id"] for r in json.loads(res.stdout)]
        elif fmt == "csv":
            got = [r["pipeline_id"] for r in csv.DictReader(io.StringIO(res.stdout))]
        else:
            got = [line.split(" | ")[0].removeprefix("| ") for line in res.stdout.splitlines()
                   if line.startswith(("| p", "| q"))]  # fmt: skip
        assert got == natural
        history = Path(f"h-{fmt}.jsonl").read_text().splitlines()
        assert [json.loads(line)["pipeline_id"] for line in history] == natural[:5]
    summary = json.loads(Path("r", f"pipeline-eval-summary-{DATE}.json").read_text())
    assert [p["pipeline_id"] for p in summary["pipelines"]] == natural
    got = engine.evaluate_pipelines(["t.jsonl"], eval_date=DATE)
    assert list(got.documents) == natural[:5]
    assert got.pipelines.column("pipeline_id").to_pylist() == natural
    for table in (got.tasks, got.dimensions, got.recommendations):
        assert list(dict.fromkeys(table.column("pipeline_id").to_pylist())) == [
            p for p in natural if p in table.column("pipeline_id").to_pylist()
        ]
    # The records are the ones written before: the key hashes the pipeline's own inputs.
    hashes = {r["pipeline_id"]: r["inputs_sha256"] for r in got.history_records}
    alone = engine.evaluate_pipelines(["t.jsonl"], eval_date=DATE)
    assert hashes == {r["pipeline_id"]: r["inputs_sha256"] for r in alone.history_records}


def test_a_long_test_result_and_files_list_are_cut_in_the_markdown_table_only(
    run_cli: Any, h: Any
) -> None:
    """A 1 MB testResult (a test log) or filesModified list was a 1 MB cell of the report's
    task table, where a summary is cut at 500 characters. Both are cut so now: the first
    500 characters (grapheme clusters) of the cell and how many more there are; the files
    listed whole up to the cut. The data (result.tasks, the JSON) keeps them whole."""
    from runscore.engine.packs import pipeline as engine

    flag = "\U0001f1eb\U0001f1f7"  # one character, two code points
    log = "x" * 499 + flag + "y" * 1_000_000
    files = ["a" * 200, "b" * 200, "c" * 200, "d" * 10]  # 200+2+200+2+200+2+10 characters
    hidden = "PASS\u00a01/1" + "z" * 600  # shown quoted, as its warning quotes it
    rows = [
        h.task("p", "t1", testResult=log, filesModified=files),
        h.task("p", "t2", testResult="PASS 1/1", filesModified=["a" * 496, "bcd"]),
        h.task("p", "t3", testResult=hidden, filesModified=["e" * 500]),
    ]
    h.write_jsonl(Path("t.jsonl"), rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--no-history")
    assert res.exit_code == 0, res.stderr
    md = Path("r", f"pipeline-eval-p-{DATE}.md").read_text(encoding="utf-8")
    cells = [line.split(" | ")[3::2] for line in md.splitlines() if line.startswith("| t")]
    assert cells == [
        [
            "x" * 499 + flag + "… (1000000 more characters) (ignored)",
            ", ".join(["a" * 200, "b" * 200, "c" * 96]) + "… (116 more characters)",
        ],
        ["PASS 1/1", "a" * 496 + ", bc… (1 more character)"],
        # (the markdown escapes the escape's backslash: it renders as \u00a0)
        ['"PASS\\\\u00a01/1' + "z" * 492 + '"… (108 more characters) (ignored)', "e" * 500],
    ]
    got = engine.evaluate_pipelines(["t.jsonl"], eval_date=DATE)
    tasks = got.rows_for(got.tasks, "p")
    assert [t["test_result"] for t in tasks] == [log, "PASS 1/1", hidden]
    assert [t["files_modified"] for t in tasks] == [files, ["a" * 496, "bcd"], ["e" * 500]]


def test_a_plans_file_that_is_not_there_is_a_usage_error(run_cli: Any, h: Any) -> None:
    """`pipeline t.jsonl --plans MISSING` said `MISSING: no such file or directory` as rejected
    input (exit 1) and scored every pipeline with a neutral time efficiency, where `plugin
    score --judge MISSING` is a usage error (exit 2). A file named on the command line that
    is not there is a usage error naming the option, in click's words for a Path that must
    exist, before anything is read or written."""
    h.write_jsonl(Path("t.jsonl"), h.pipeline_tasks("s", 2))
    h.write_jsonl(Path("p.jsonl"), [{"pipelineId": "s", "estimatedDurationMinutes": 600}])
    for plans in (["MISSING"], ["p.jsonl", "MISSING"], ["p.jsonl", "a\tb"]):
        args = [a for p in plans for a in ("--plans", p)]
        res = run_cli("pipeline", "t.jsonl", *args, "--date", DATE, "--out", "r")
        shown = json.dumps(plans[-1])
        assert (res.exit_code, res.stdout, res.stderr) == (
            2,
            "",
            f"error: Invalid value for '--plans': Path {shown} does not exist. "
            "(see 'cli pipeline --help')\n",
        )
        assert sorted(p.name for p in Path().iterdir()) == ["p.jsonl", "t.jsonl"]
    # A glob that matches nothing is said among the inputs, as before (rejected input).
    res = run_cli("pipeline", "t.jsonl", "--plans", "q*.jsonl", "--no-history", "--out", "r")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == "q*.jsonl: no file matches this pattern"


def test_a_long_summary_is_cut_in_the_markdown_table_only(run_cli: Any, h: Any) -> None:
    """A 1 MB task summary was a 1 MB cell of the report's task table. The markdown shows
    its first 500 characters (grapheme clusters: the emoji at the cut is not split) and how
    many more there are; the data (Python's result.tasks) keeps it whole."""
    from runscore.engine.packs import pipeline as engine

    family = "\U0001f469\u200d\U0001f4bb"  # one character, three code points
    long = "x" * 499 + family + "y" * 1_000_000
    rows = [h.task("p", "t1", summary=long), h.task("p", "t2", summary="a" * 500)]
    h.write_jsonl(Path("t.jsonl"), rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--no-history")
    assert res.exit_code == 0, res.stderr
    md = Path("r", f"pipeline-eval-p-{DATE}.md").read_text(encoding="utf-8")
    cells = [line.rsplit(" | ", 1)[1] for line in md.splitlines() if line.startswith("| t")]
    assert cells == [
        "x" * 499 + family + "… (1000000 more characters) |",
        "a" * 500 + " |",
    ]
    got = engine.evaluate_pipelines(["t.jsonl"], eval_date=DATE)
    assert [t["summary"] for t in got.rows_for(got.tasks, "p")] == [long, "a" * 500]


def test_a_cut_of_one_character_says_character(run_cli: Any, h: Any) -> None:
    """A summary, testResult or filesModified cell cut one character short said
    "(1 more characters)"; one more is "1 more character", two "2 more characters"."""
    rows = [
        h.task("p", "t1", summary="s" * 501, testResult="r" * 501, filesModified=["f" * 501]),
        h.task("p", "t2", summary="s" * 502, testResult="r" * 502, filesModified=["f" * 502]),
    ]
    h.write_jsonl(Path("t.jsonl"), rows)
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r", "--no-history")
    assert res.exit_code == 0, res.stderr
    md = Path("r", f"pipeline-eval-p-{DATE}.md").read_text(encoding="utf-8")
    rows_md = [line.split(" | ") for line in md.splitlines() if line.startswith("| t")]
    cells = [[r[3], r[5], r[6]] for r in rows_md]  # testResult, filesModified, summary
    assert cells == [
        [
            "r" * 500 + "… (1 more character) (ignored)",
            "f" * 500 + "… (1 more character)",
            "s" * 500 + "… (1 more character) |",
        ],
        [
            "r" * 500 + "… (2 more characters) (ignored)",
            "f" * 500 + "… (2 more characters)",
            "s" * 500 + "… (2 more characters) |",
        ],
    ]


def test_a_run_across_midnight_utc_writes_the_day_s_names_it_checked(
    run_cli: Any, example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --date the clock was read twice: for the names checked in --out before
    # anything was read (a symlink, an input named as a report) and by the evaluation
    # for the names written. A run across midnight UTC checked 2026-03-07's names and
    # wrote 2026-03-08's (a link at one of those found only at its write, once everything
    # was scored). Read once now: the names checked are the names written.
    import datetime as dt

    from runscore.engine.packs import pipeline as engine

    ticks = [dt.datetime(2026, 3, 7, 23, 59, 59, tzinfo=dt.UTC)]
    ticks += [dt.datetime(2026, 3, 8, tzinfo=dt.UTC)] * 9

    def clock() -> dt.datetime:
        return ticks.pop(0)

    monkeypatch.setattr(engine, "_utc_now", clock)
    res = run_cli(
        "pipeline", "in/pipeline/tasks.jsonl", "--plans", "in/pipeline/plans.jsonl",
        "--out", "out", "--no-history", "--format", "json",
    )  # fmt: skip
    assert res.exit_code == 1, res.stderr  # tasks.jsonl:22
    assert len(ticks) == 9  # one read
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in GOLDEN.iterdir()
    )
    summary = json.loads((tmp_path / "out" / f"pipeline-eval-summary-{DATE}.json").read_text())
    assert (summary["evalDate"], summary["evaluatedAt"]) == (DATE, f"{DATE}T23:59:59Z")


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv"])
def test_the_summary_s_report_column_is_the_file_written(
    run_cli: Any, h: Any, tmp_path: Path, fmt: str
) -> None:
    """The summary's `report` column gave the report's name without its extension in JSON
    and CSV (`pipeline-eval-p-2026-03-07`, no file of that name), and with `.md` in
    markdown: one column, two values. It is the markdown report's file name in every
    format, the summary files too: a path relative to --out, the `.json` beside it."""
    rows = h.pipeline_tasks("a/b", 1) + h.pipeline_tasks("p", 1) + [h.task("q", "t1", "pending")]
    h.write_jsonl(tmp_path / "t.jsonl", rows)
    out = tmp_path / "o" / "r"
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "o/r", "--format", fmt)
    assert res.exit_code == 0, res.stderr
    if fmt == "markdown":
        cells = [line.split(" | ") for line in res.stdout.splitlines() if line.startswith("| ")]
        reports = {c[0][2:]: c[-1].removesuffix(" |") for c in cells[1:]}
        reports["q"] = None if reports["q"].startswith("not terminal") else reports["q"]
    elif fmt == "json":
        reports = {r["pipeline_id"]: r["report"] for r in json.loads(res.stdout)}
    else:
        stdout = csv.DictReader(io.StringIO(res.stdout))
        reports = {r["pipeline_id"]: r["report"] or None for r in stdout}
    assert reports == {
        "a/b": f"pipeline-eval-a_b-c14cddc0-{DATE}.md",
        "p": f"pipeline-eval-p-{DATE}.md",
        "q": None,
    }
    summary = json.loads((out / f"pipeline-eval-summary-{DATE}.json").read_text("utf-8"))
    assert {r["pipeline_id"]: r["report"] for r in summary["pipelines"]} == reports
    for name in filter(None, reports.values()):
        assert (out / name).read_text("utf-8").startswith("# Pipeline evaluation: ")
        assert (out / name).with_suffix(".json").is_file()


def test_input_problems_are_listed_in_the_order_the_paths_were_given(run_cli: Any, h: Any) -> None:
    """A path not found was listed before every file's problem, wherever it was given
    (`t.jsonl:3` given first came after `missing.jsonl` given second), on stderr, in the
    summary's `issues` and in the error when nothing is read; as routes lists them, they
    now come in the order the paths were given."""
    h.write_jsonl(Path("t.jsonl"), h.pipeline_tasks("s", 2))
    with Path("t.jsonl").open("a") as f:
        f.write("not json\n")
    Path("bad.jsonl").write_text("not json\n")
    Path("wide.jsonl").write_bytes(b"\xff\xfe" + "{}\n".encode("utf-16-le"))
    why = "not JSON: Expecting value: line 1 column 1 (char 0)"
    res = run_cli(
        "pipeline", "t.jsonl", "missing.jsonl", "--date", DATE, "--out", "r", "--no-history"
    )
    assert res.exit_code == 1
    assert res.stderr.splitlines()[:2] == [
        f"t.jsonl:3: {why}",
        "missing.jsonl: no such file or directory",
    ]
    summary = json.loads(Path("r", f"pipeline-eval-summary-{DATE}.json").read_text())
    assert [(i["file"], i["line"]) for i in summary["issues"]] == [
        ("t.jsonl", 3),
        ("missing.jsonl", None),
    ]
    res = run_cli("pipeline", "bad.jsonl", "missing.jsonl", "wide.jsonl", "--no-history")
    assert res.exit_code == 3
    assert [ln.split(": ")[0] for ln in res.stderr.splitlines()[1:]] == [
        "  bad.jsonl:1",
        "  missing.jsonl",
        "  wide.jsonl",
    ]


def test_the_command_lines_mistakes_are_said_before_the_out_folder(
    run_cli: Any, example: Path, tmp_path: Path
) -> None:
    # One rule for two mistakes at once, plugin score's (README: "said before any file is
    # looked at"): the command line's own (click's, an empty path or a name no history can
    # have, options that cannot go together) before --out's folder is looked at. An empty
    # --history was said only after the folder: `--out nf --history ""` named nf, and the
    # history's mistake came once that was fixed.
    Path("nf").write_text("")
    see = " (see 'cli pipeline --help')\n"  # CliRunner's program name
    cases = [
        ([], "error: --out nf: exists and is not a directory\n"),  # alone: said
        (
            ["--history", "h.jsonl", "--no-history"],
            "error: --history and --no-history cannot be given together: --no-history "
            "appends to none" + see,
        ),
        (
            ["--lock-timeout", "3", "--no-history"],
            "error: --lock-timeout and --no-history cannot be given together: with no "
            "history there is no lock to wait for" + see,
        ),
        (
            ["--history", ""],
            "error: the history: an empty path (an unset variable?); give a file" + see,
        ),
        (
            ["--history", os.fsdecode(b"h\xff.jsonl")],
            "error: h\\xff.jsonl: the history's file name is not valid UTF-8, and DuckDB, "
            "which reads it, takes UTF-8 file names only: give it a UTF-8 name" + see,
        ),
        (
            ["--plans", ""],
            "error: --plans: an empty path (an unset variable?); give a file or folder" + see,
        ),
        (
            ["--plans", "missing.jsonl"],
            "error: Invalid value for '--plans': Path \"missing.jsonl\" does not exist." + see,
        ),
        (["--date", "bad"], 'error: --date "bad" is not a date in YYYY-MM-DD form' + see),
        (
            ["--period", "week"],
            "error: --period needs --report: it is the period of --report's trend rows" + see,
        ),
        (
            ["--lock-timeout", "-1"],
            "error: Invalid value for '--lock-timeout': \"-1\" is not a finite number of "
            "seconds, 0 or more" + see,
        ),
    ]
    tasks = "in/pipeline/tasks.jsonl"
    for out_last in (False, True):
        for args, said in cases:
            given = [*args, "--out", "nf"] if out_last else ["--out", "nf", *args]
            r = run_cli("pipeline", tasks, *given)
            assert (r.exit_code, r.stdout, r.stderr) == (2, "", said), given
    assert sorted(p.name for p in Path(".").iterdir()) == ["in", "nf"]


def test_the_out_folder_is_said_before_the_history(
    run_cli: Any, example: Path, tmp_path: Path
) -> None:
    # Then --out's folder, then the history, as plugin score: a history that cannot be
    # made (a file where its folder belongs) was said first, and the folder's mistake (a
    # folder at a report's name) once the history was fixed.
    Path("afile").write_text("")
    report = f"out/pipeline-eval-summary-{DATE}.md"
    Path(report).mkdir(parents=True)
    for history_last in (False, True):
        hist = ["--history", "afile/h.jsonl"]
        given = ["--date", DATE, *([] if history_last else hist), "--out", "out"]
        r = run_cli("pipeline", "in/pipeline/tasks.jsonl", *given, *(hist if history_last else []))
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {report}: Is a directory\n")
    # The folder fixed, the history's mistake is said.
    Path(report).rmdir()
    r = run_cli("pipeline", "in/pipeline/tasks.jsonl", "--out", "out", "--history", "afile/h.jsonl")
    assert (r.exit_code, r.stdout) == (2, ""), r.stderr
    assert r.stderr == f"error: {tmp_path / 'afile'}: a file where a folder is needed\n"
    assert sorted(p.name for p in Path(".").iterdir()) == ["afile", "in", "out"]
