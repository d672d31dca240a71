"""CLI commands: ``runscore pipeline`` (spec pipeline.md).

A thin layer: the engine (``runscore.engine.packs.pipeline``) scores; this module
renders the per-pipeline markdown/JSON reports and the batch summary, appends
the history and maps the outcome to an exit code. ``run_batch`` is the same
flow as a function, for the nightly job.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Sequence
from typing import Any

import click
from runscore.cli import output
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import (
    lock_timeout_option,
    refuse_a_file_as_folder,
    refuse_dash,
    refuse_empty,
    refuse_stdin_twice,
    refuse_together,
    refuse_without,
)
from runscore.cli.render import render
from runscore.engine.errors import Arg, UsageError
from runscore.engine.history import (
    check_writable,
    require_path,
    require_utf8_name,
    write_text_output,
)
from runscore.engine.packs import effectiveness, plugin
from runscore.engine.packs import pipeline as engine
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

FORMATS = ("markdown", "json", "csv")
#: The option a refusal of the history names (``about=``).
HISTORY = Arg("history_path", "--history")


def _display(v: Any) -> Any:
    """Timestamps as UTC ISO-8601 (``…Z``) for reports; everything else unchanged."""
    if isinstance(v, dt.datetime):
        return v.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return v


def _md(template: str, **ctx: Any) -> str:
    """Render a markdown template; exactly one trailing newline whatever the branches."""
    return render(template, **ctx).rstrip("\n") + "\n"


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: _display(v) for k, v in r.items()} for r in rows]


def render_pipeline_markdown(result: engine.PipelineResult, pipeline_id: str) -> str:
    """The markdown evaluation report of one scored pipeline."""
    p = _rows(result.rows_for(result.pipelines, pipeline_id))[0]
    dims = result.rows_for(result.dimensions, pipeline_id)
    return _md(
        "pipeline.md.j2",
        p=p,
        dims=dims,
        weight_total=sum(d["weight"] for d in dims),
        recs=result.rows_for(result.recommendations, pipeline_id),
        tasks=_rows(result.rows_for(result.tasks, pipeline_id)),
        notes=result.diagnostics_for(pipeline_id),
        evaluated_at=engine.iso(result.evaluated_at),
        scoring_version=result.scoring_version,
        best_verdict=engine.verdict_names()[0],
        best_pass_rate=engine.best_verdict_pass_rate(),
        cuts=engine.score_cuts(),
    )


def render_summary_markdown(result: engine.PipelineResult) -> str:
    rows = _rows(engine.summary_rows(result).to_pylist())
    return _md(
        "pipeline_summary.md.j2",
        eval_date=result.eval_date.isoformat(),
        rows=rows,
        scored=[r for r in rows if r["status"] == "scored"],
        verdicts=engine.verdict_names(),
        issues=result.errors + result.warnings,
        cuts=engine.score_cuts(),
        # Not a column of the summary (its CSV/JSON keep theirs): which null pass rates
        # are unknown (counts too large to count) rather than unverified (no result).
        counts_unknown={
            pid
            for pid, unknown in zip(
                result.pipelines.column("pipeline_id").to_pylist(),
                result.pipelines.column("test_counts_unknown").to_pylist(),
                strict=True,
            )
            if unknown
        },
    )


def summary_document(result: engine.PipelineResult) -> dict[str, Any]:
    """The batch summary as one JSON document (written beside the reports)."""
    return {
        "evalDate": result.eval_date.isoformat(),
        "evaluatedAt": engine.iso(result.evaluated_at),
        "scoringVersion": result.scoring_version,
        "pipelines": _rows(engine.summary_rows(result).to_pylist()),
        "issues": [d.as_dict() for d in result.errors + result.warnings],
        # read, and holding no line: not an issue (as extract's empty_files)
        "emptyFiles": result.empty_files,
    }


def write_reports(result: engine.PipelineResult, out_dir: str) -> list[str]:
    """Per scored pipeline ``.md`` + ``.json``, plus the summary pair; return the paths.
    Each is written as an output file is (``write_text_output``), every path checked
    before the first is written (``engine.refuse_report_paths``)."""
    md = {
        pid: os.path.join(out_dir, result.report_basename(pid) + ".md") for pid in result.documents
    }
    base = os.path.join(out_dir, engine.summary_basename(result.eval_date))
    engine.refuse_report_paths(result, [*md.values(), base + ".md", base + ".json"])
    written = engine.write_json_reports(result, out_dir)
    for pid, path in md.items():
        write_text_output(path, render_pipeline_markdown(result, pid), about=engine.OUT_DIR)
        written.append(path)
    write_text_output(base + ".md", render_summary_markdown(result), about=engine.OUT_DIR)
    write_text_output(
        base + ".json", output.to_json(summary_document(result)), about=engine.OUT_DIR
    )
    written += [base + ".md", base + ".json"]
    return written


def _reports_and_history(
    result: engine.PipelineResult,
    out_dir: str,
    history_path: str | None,
    lock_timeout: float | None = 300.0,
) -> tuple[list[str], engine.HistoryOutcome | None]:
    """Write the reports, then append the records (unless ``history_path`` is None): the
    reports under the history's lock, just before the append, so that a lock held
    elsewhere (``LockTimeout``, exit 4) leaves no report of an evaluation never recorded."""
    files: list[str] = []

    def write() -> None:
        files.extend(write_reports(result, out_dir))

    if history_path is None:
        write()
        return files, None
    hist = engine.append_history(result, history_path, lock_timeout=lock_timeout, under_lock=write)
    return files, hist


def run_batch(
    paths: Sequence[str],
    out_dir: str,
    eval_date: dt.date | None = None,
    *,
    plans: Sequence[str] | None = None,
    history_path: str | None = engine.DEFAULT_HISTORY,
    lock_timeout: float | None = 300.0,
    allow_empty: bool = False,
) -> dict[str, Any]:
    """Evaluate, write every report into ``out_dir``, append history (unless None).

    For the nightly job. Returns a JSON-ready summary; raises ``NothingReadable``
    like the command when no input is usable (``allow_empty``: task files that all hold
    no line are a summary of no pipelines instead), ``LockTimeout`` when the history's
    lock is held for more than ``lock_timeout`` seconds.
    """
    if history_path is not None:  # before any report is written, as the command does
        check_writable(history_path, about=HISTORY)
    result = engine.evaluate_pipelines(paths, plans, eval_date=eval_date, allow_empty=allow_empty)
    files, hist = _reports_and_history(result, out_dir, history_path, lock_timeout)
    skipped = [] if hist is None else hist.skipped
    return {
        "evalDate": result.eval_date.isoformat(),
        "scoringVersion": result.scoring_version,
        "pipelines": result.pipelines.num_rows,
        "scored": result.scored,
        "notTerminal": result.not_terminal,
        "verdicts": result.verdict_counts,
        "files": files,
        "history": None
        if hist is None
        else {
            "path": hist.path,
            "written": hist.written,
            "already": hist.already,
            "writtenIds": hist.written_ids,
        },
        "errors": [str(d) for d in result.errors],
        "warnings": [str(d) for d in result.warnings + skipped],
        # The same, each with its file, line (None for a whole file) and reason apart.
        "diagnostics": [d.as_dict() for d in result.errors + result.warnings + skipped],
        "partial": result.partial,
    }


def _histories_found(history_path: str, tasks: Sequence[str]) -> list[str]:
    """runscore's histories a TASKS folder or glob may hold, not read as task snapshots:
    the pipeline history when it is one (a task file given as --history is refused), and
    the effectiveness and plugin histories kept beside it (`.archeflow/memory`). One a
    TASKS names itself is read (and, as the history, refused) as given."""
    named = [t for t in tasks if t != "-" and os.path.isfile(t)]
    folder = os.path.dirname(history_path)
    found = []
    for path, packs in (
        (history_path, ("", "pipeline")),
        (os.path.join(folder, os.path.basename(effectiveness.DEFAULT_HISTORY)), ("effectiveness",)),
        (os.path.join(folder, os.path.basename(plugin.DEFAULT_HISTORY)), ("plugin",)),
    ):
        if not os.path.isfile(path) or engine.history_pack(path) not in packs:
            continue
        with contextlib.suppress(OSError):
            if any(os.path.samefile(t, path) for t in named):
                continue
        found.append(path)
    return found


def _refuse_missing_plans(ctx: click.Context, plans: Sequence[str]) -> None:
    """A ``--plans`` file that is not there is a usage error naming the option (exit 2),
    before anything is read or written, in click's words for a ``Path(exists=True)``: it
    was rejected input (``MISSING: no such file or directory``, exit 1) and every pipeline
    scored with a neutral time efficiency, as a typo in a file named on the command line.
    Which files are not there is the engine's rule (``missing_plans``)."""
    missing = engine.missing_plans(plans)
    if missing:
        raise click.BadParameter(
            f"Path {quote(missing[0])} does not exist.", ctx, param_hint="'--plans'"
        )


def _report(history_path: str, period: str, fmt: str) -> int:
    rep = engine.history_report(history_path, period=period)
    for d in rep.errors:
        output.note(f"{d.location()}: {d.reason}")
    rows = _rows(rep.trend.to_pylist())
    periods = [r for r in rows if not r["is_total"]]
    totals = [r for r in rows if r["is_total"]]
    for note in rep.notes:
        output.note(note)
    if fmt == "markdown":
        # A history with no record of the version is a report of none, as `[]` and a
        # header-only CSV are: an empty stdout is what nothing read (exit 3) looks like.
        click.echo(
            _md(
                "pipeline_report.md.j2",
                rows=periods,
                total=totals[0] if totals else None,
                path=history_path,
                period=period,
                scoring_version=rep.scoring_version,
                cuts=engine.score_cuts(),
            ),
            nl=False,
        )
    else:
        output.write(rep.trend, fmt)
    return ExitCode.PARTIAL if rep.errors else ExitCode.OK


def register(group: click.Group) -> None:
    """Add this module's commands to the runscore group."""

    @group.command("pipeline")
    @click.argument("tasks", nargs=-1)
    @click.option(
        "--plans",
        multiple=True,
        metavar="FILE",
        help="Plans JSONL with {pipelineId, estimatedDurationMinutes or estimatedDurationMs}; "
        "repeatable. Without an estimate, time efficiency scores neutral.",
    )
    @click.option(
        "--out",
        "out_dir",
        default=".",
        show_default=True,
        # Not click.Path(file_okay=False): that said a regular file in click's words
        # ("Directory 'nf' is a file."), not as refuse_a_file_as_folder says a FIFO.
        # readable=False: click refused a folder it cannot list in its words for a user
        # and not for root; the engine refuses it for both (refuse_report_folder).
        type=click.Path(readable=False),
        metavar="DIR",
        help="Directory for pipeline-eval-{pipelineId}-{date}.md/.json and the summary.",
    )
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="markdown",
        show_default=True,
        help="Format of the summary (or, with --report, of the trend rows) written to stdout.",
    )
    @click.option(
        "--history",
        "history_path",
        default=engine.DEFAULT_HISTORY,
        show_default=True,
        metavar="FILE",
        help="Pipeline history JSONL (appended to; read by --report).",
    )
    @click.option("--no-history", is_flag=True, help="Do not append results to the history.")
    @lock_timeout_option()
    @click.option(
        "--date",
        "date_text",
        metavar="YYYY-MM-DD",
        help="Evaluation date for file names and evaluatedAt (default: today, UTC).",
    )
    @click.option(
        "--report",
        is_flag=True,
        help="Instead of scoring, report verdict counts and dimension averages over "
        "time from the history.",
    )
    @click.option(
        "--period",
        type=click.Choice(engine.PERIODS),
        default="month",
        show_default=True,
        help="Period of the --report trend rows (with --report only).",
    )
    @click.pass_context
    def pipeline_cmd(
        ctx: click.Context,
        tasks: tuple[str, ...],
        plans: tuple[str, ...],
        out_dir: str,
        fmt: str,
        history_path: str,
        no_history: bool,
        lock_timeout: float,
        date_text: str | None,
        report: bool,
        period: str,
    ) -> None:
        """Score finished multi-task pipelines from task-snapshot JSONL.

        TASKS are files, directories (*.jsonl inside), globs or - (stdin). Each
        scored pipeline gets a markdown and a JSON report in --out; a summary over
        all pipelines goes to stdout. Pipelines with unfinished tasks are listed
        as not_terminal and not scored. Scored pipelines are appended to the
        history once per (pipeline, scoring version, inputs hash); re-running on
        the same inputs adds nothing. Exit 1 when some input lines were rejected; 4
        when another process holds the history's lock for longer than --lock-timeout
        (no report is written then).
        """
        # An option the chosen mode would ignore is refused, not dropped without a word.
        if report:
            if tasks or plans:
                raise UsageError("--report reads the history only; give no TASKS or --plans")
            refuse_together(ctx, "out_dir", "report", "--report writes no report files")
            refuse_together(ctx, "no_history", "report", "--report reads the history")
            refuse_together(ctx, "date_text", "report", "--report reads every record")
            refuse_together(ctx, "lock_timeout", "report", "--report takes no lock")
            ctx.exit(_report(history_path, period, fmt))
        refuse_without(ctx, "period", "report", "it is the period of --report's trend rows")
        refuse_together(ctx, "history_path", "no_history", "--no-history appends to none")
        refuse_together(
            ctx, "lock_timeout", "no_history", "with no history there is no lock to wait for"
        )
        if not tasks:
            raise UsageError("give TASKS (files, directories, globs or -), or use --report")
        # Standard input can be read once: the TASKS took it all, and the plans read as
        # none at all, without a word (every D4 neutral).
        refuse_empty(ctx, "tasks", "plans")
        refuse_stdin_twice(ctx, "tasks", "plans")
        _refuse_missing_plans(ctx, plans)
        eval_date = engine.parse_date(date_text) if date_text is not None else None
        # The clock read once: the names checked before reading are the names written
        # after the scoring, a run across midnight UTC too (it checked one day's names and
        # wrote the next day's).
        now = engine.utc_now()
        # os.path.join("", name) is name: the reports went to the current folder.
        require_path(out_dir, "--out", "folder")
        refuse_dash(ctx, "out_dir", "the reports are written to a folder", "folder")
        # The command line's own mistakes before any path is looked at (README), as plugin
        # score: a history's name no history can have (empty, not UTF-8) was said only
        # after --out's folder, so `--out nf --history ""` named the folder.
        if not no_history:
            require_utf8_name(history_path, about=HISTORY)
        refuse_a_file_as_folder(ctx, "out_dir")
        # A history that could not take the records (a symlink, a folder, a gzip file,
        # read-only, a file where its folder belongs, a folder where its lock belongs):
        # said before scoring, so exit 2 leaves no report written and nothing appended.
        # The history found under a TASKS folder (`pipeline .` finds the default one,
        # .archeflow/memory/pipelines.jsonl) holds runscore's records, not task snapshots:
        # left out, as `extract` leaves out its own (and the other packs' beside it). A task
        # file given as --history is refused.
        leave_out = _histories_found(history_path, tasks)
        # Appended to, a TASKS or --plans file read the records as broken lines next; a
        # report renamed over one in --out replaced it. The history found in a TASKS
        # folder is left out of the tasks read, so it is not one of them. --out's folder
        # before the history (README), as plugin score: the history was said first.
        engine.refuse_inputs_written(
            tasks,
            plans,
            out_dir=out_dir,
            history_path=None if no_history else history_path,
            eval_date=eval_date,
            now=now,
            leave_out=leave_out,
        )
        if not no_history:
            check_writable(history_path, about=HISTORY)
        result = engine.evaluate_pipelines(
            list(tasks), list(plans), eval_date=eval_date, now=now, leave_out=leave_out
        )
        for e in result.excluded:
            output.note(f"{quote_path(e['file'])}: {e['reason']}")
        # As when no other file is read (then nothing read, exit 3): said, but not rejected.
        for e in result.empty_files:
            output.note(f"{quote_path(e['file'])}: {e['reason']}")
        for d in result.errors:
            output.note(f"{d.location()}: {d.reason}")
        for d in result.warnings:
            output.note(f"warning: {d.location()}: {d.reason}")
        for note in result.pipelines.column("not_terminal_note").to_pylist():
            if note is not None:
                output.note(note)

        written, hist = _reports_and_history(
            result, out_dir, None if no_history else history_path, lock_timeout
        )
        output.note(f"wrote {len(written)} report file(s) to {quote_path(out_dir)}")
        if hist is not None:
            for d in hist.skipped:
                output.note(f"warning: {d.location()}: {d.reason}")
            output.note(
                f"history {quote_path(hist.path)}: {hist.written} new record(s)"
                + (f", {hist.already} already recorded" if hist.already else "")
            )

        if fmt == "markdown":
            click.echo(render_summary_markdown(result), nl=False)
        else:
            output.write(engine.summary_rows(result), fmt)
        ctx.exit(ExitCode.PARTIAL if result.partial else ExitCode.OK)
