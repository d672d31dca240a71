"""``runscore nightly`` (the batch job) and ``runscore history check|repair``.

Thin layer over ``runscore.engine.nightly`` and ``runscore.engine.history_tools``: it
parses options, hands the engine a renderer (the Jinja templates) and the pack hooks
(pipeline, plugin, routes: their engine APIs plus their CLI renderers), prints where
the outputs went and maps the outcome to an exit code.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from typing import Any

import click
from runscore.cli import output
from runscore.cli.analytics import F, recommend_markdown, report_markdown
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import (
    SECONDS,
    lock_timeout_option,
    refuse_dash,
    refuse_empty,
    refuse_without,
)
from runscore.cli.render import render
from runscore.engine import history_tools, nightly
from runscore.engine.packs import effectiveness_history as eh
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

# --------------------------------------------------------------------------- markdown


def _md(template: str, **ctx: Any) -> str:
    return render(template, **ctx).rstrip("\n") + "\n"


class Renderer:
    """The nightly renderer: the same markdown as ``runscore report``/``recommend``."""

    def markdown(self, kind: str, ctx: Mapping[str, Any]) -> str:
        if kind == "effectiveness_report":
            return report_markdown(ctx["result"])
        if kind == "effectiveness_recommend":
            return recommend_markdown(ctx["result"])
        if kind == "runlog":
            return _md("nightly_runlog.md.j2", log=ctx["log"])
        if kind == "index":
            return _md("nightly_index.md.j2", log=ctx["log"])
        if kind == "days_index":
            return _md("nightly_days.md.j2", days=ctx["days"])
        raise ValueError(f"unknown nightly document {quote(kind)}")

    def json(self, data: Any) -> str:
        return output.to_json(data)


# --------------------------------------------------------------------------- pack hooks


def _diag(pack: str, d: Mapping[str, Any]) -> nightly.Diagnostic:
    """A pipeline diagnostic (``Diagnostic.as_dict()``) as the run log's, with its file and
    line apart, as the plugin and routes packs give theirs."""
    if d["file"] is None:  # about a pipeline, not a place in a file
        # quoted as `pipeline` quotes it (rs_quote): the id was written bare here
        where = f"pipeline {quote(d['pipeline_id'])}: " if d["pipeline_id"] is not None else ""
        return nightly.Diagnostic("pack", "", 0, f"{pack}: {where}{d['reason']}")
    return nightly.Diagnostic("pack", d["file"], d["line"] or 0, f"{pack}: {d['reason']}")


#: The packs' histories in a root's ``.archeflow/memory`` (``PackHook.history``).
PIPELINE_HISTORY = "pipelines.jsonl"
PLUGIN_HISTORY = "plugins.jsonl"


def _pipeline_run(run: nightly.PackRun) -> nightly.PackOutcome:
    from runscore.cli import pipeline as pipeline_cli

    plans = run.inputs.extra.get("plans") or None
    s = pipeline_cli.run_batch(
        run.inputs.paths,
        run.out_dir,
        run.date,
        plans=plans,
        history_path=os.path.join(run.memory_dir, PIPELINE_HISTORY),
        # --wait, as the other packs: it waited append_history's default 300 s
        lock_timeout=max(run.wait, nightly.HISTORY_APPEND_GRACE),
        # Task files that hold no line are a summary of no pipelines, as empty episode files
        # are a routes report of no episodes and empty run logs runs that have just begun.
        allow_empty=True,
    )
    return nightly.PackOutcome(
        summary=f"{s['scored']} pipeline(s) scored, {s['notTerminal']} not terminal",
        files=list(s["files"]),
        counts={
            "pipelines": s["pipelines"],
            "scored": s["scored"],
            "not_terminal": s["notTerminal"],
            "records_written": s["history"]["written"],
            "records_already": s["history"]["already"],
        },
        records=list(s["history"]["writtenIds"]),
        rejected=[_diag("pipeline", d) for d in s["diagnostics"] if d["severity"] == "error"],
        warnings=[_diag("pipeline", d) for d in s["diagnostics"] if d["severity"] != "error"],
    )


def _plugin_run(run: nightly.PackRun) -> nightly.PackOutcome:
    from runscore.cli import plugin as plugin_cli
    from runscore.engine.packs import plugin as plugin_engine

    def one(key: str) -> str | None:
        v = run.inputs.extra.get(key)
        return v[0] if v else None

    res = plugin_engine.score(
        run.inputs.paths,
        judge=one("judge"),
        mc=one("mc"),
        matchups=one("matchups"),
        history_path=os.path.join(run.memory_dir, PLUGIN_HISTORY),
        lock_timeout=max(run.wait, nightly.HISTORY_APPEND_GRACE),
    )
    files = plugin_cli.write_out(res, run.out_dir, "markdown")
    files += plugin_cli.write_out(res, run.out_dir, "json")
    return nightly.PackOutcome(
        summary=f"{len(res.skills())} skill(s) scored",
        files=files,
        counts={
            "skills": len(res.skills()),
            "records_written": res.history_written,
            "records_already": res.history_skipped,
        },
        records=list(res.history_written_skills),
        rejected=[
            nightly.Diagnostic("pack", i.file, i.line, f"plugin: {i.reason}") for i in res.issues
        ],
        warnings=[
            nightly.Diagnostic("pack", w.file, w.line, f"plugin: {_plugin_warning(w)}")
            for w in res.warnings
        ],
    )


def _plugin_warning(w: LineIssue) -> str:
    """A plugin warning as the job says it: a judge, Monte Carlo or matchup file that holds
    no line said what the skills were scored without, where `plugin score` names its
    option (`scored without --judge`), which the job has not: its file is found, not given."""
    from runscore.engine.packs import plugin as plugin_engine

    if not isinstance(w, plugin_engine.NoLines):
        return w.reason
    if w.unused is None:
        return w.held
    return f"{w.held}; the skills were scored without {w.unused}"


def _routes_run(run: nightly.PackRun) -> nightly.PackOutcome:
    from runscore.cli import routes as routes_cli
    from runscore.engine.history import atomic_write_text
    from runscore.engine.packs import routes as routes_engine

    # The day's folder is as of that day (as pipeline's eval date is), so a rerun of a past
    # --date gives the same freshness verdicts on any later day.
    as_of = dt.datetime(run.date.year, run.date.month, run.date.day, tzinfo=dt.UTC)
    # Episode files that hold no line are a report of no episodes here, as empty run logs
    # are read (the nightly job lists what it found; a file may just have been created).
    rep = routes_engine.analyze(run.inputs.paths, as_of=as_of, allow_empty=True)
    data = rep.to_dict()
    files = [os.path.join(run.out_dir, "routes.json")]
    atomic_write_text(files[0], output.to_json(data), about=nightly.OUT)
    files.append(os.path.join(run.out_dir, "routes.md"))
    atomic_write_text(files[1], routes_cli.routes_markdown(rep), about=nightly.OUT)
    return nightly.PackOutcome(
        summary=f"{rep.episodes} episode(s), {rep.findings.num_rows} finding(s)",
        files=files,
        counts={"episodes": rep.episodes, "findings": rep.findings.num_rows},
        rejected=[
            nightly.Diagnostic("pack", i.file, i.line, f"routes: {i.reason}") for i in rep.problems
        ],
        # read and counted, their time dating nothing: `routes` warns of them, as the job
        # does (they were in routes.json's inputs only)
        warnings=[
            nightly.Diagnostic("pack", i.file, i.line, f"routes: {i.reason}")
            for i in rep.after_as_of
        ],
    )


def pack_hooks() -> list[nightly.PackHook]:
    """The packs that join the nightly job, in output order."""
    return [
        nightly.PackHook("pipeline", nightly.pipeline_inputs, _pipeline_run, PIPELINE_HISTORY),
        nightly.PackHook("plugin", nightly.plugin_inputs, _plugin_run, PLUGIN_HISTORY),
        nightly.PackHook("routes", nightly.routes_inputs, _routes_run),
    ]


# --------------------------------------------------------------------------- nightly


@click.command("nightly")
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DIR",
    help="A project root to score (repeatable; default: the current directory). Run "
    "logs are read from DIR/.archeflow/events/**/*.jsonl.",
)
@click.option(
    "--out",
    "out",
    default=nightly.DEFAULT_OUT,
    show_default=True,
    metavar="DIR",
    help="Output folder; the day's reports go to DIR/YYYY-MM-DD/.",
)
@click.option(
    "--team",
    "teams",
    multiple=True,
    metavar="TEAM.yaml",
    help="A team preset to recommend for, in every root (repeatable). Presets in "
    "ROOT/.archeflow/teams/*.yaml|*.yml are found on their own.",
)
@click.option(
    "--date",
    "date_text",
    metavar="YYYY-MM-DD",
    help="The date of the output folder (default: today, UTC). Re-running a date "
    "replaces that day's folder completely or not at all. The reports read the histories "
    "as they are now (a past day's folder says so); only the routes report's freshness "
    "is measured as of that date.",
)
@click.option(
    "--history",
    "history_path",
    default=None,
    metavar="FILE",
    help="One effectiveness history for all roots (default: each root's "
    "ROOT/.archeflow/memory/effectiveness.jsonl).",
)
@click.option(
    "--sql-version",
    "version",
    default=None,
    metavar="VERSION",
    help="The scoring version (v1, archeflow-legacy) to extract with, and that the "
    "effectiveness reports and recommendations read (default: extract with v1, report each "
    "history's newest version). An unknown one is a usage error before anything runs.",
)
@click.option(
    "--wait",
    type=SECONDS,
    default=0.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for another nightly job's lock before giving up (exit 4).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the path of the day's index.md on stdout; json: the run log.",
)
def nightly_cmd(
    roots: tuple[str, ...],
    out: str,
    teams: tuple[str, ...],
    date_text: str | None,
    history_path: str | None,
    version: str | None,
    wait: float,
    fmt: str,
) -> None:
    """The unattended batch job: extract every root's new runs and render the day's reports.

    For each --root: extract new or changed run logs (unchanged files are not re-read)
    into its history, then write into OUT/YYYY-MM-DD/ the effectiveness report (markdown
    and JSON), recommendations per team preset, pipeline/plugin/routes reports when their
    inputs are present (ROOT/.archeflow/tasks/*.jsonl with .archeflow/plans/*.jsonl,
    .archeflow/plugin-eval/skills/, .archeflow/episodes/*.jsonl), a run log (runlog.md, runlog.json: every file:line
    rejected and why) and an index.md linking them.

    Exit codes: 0 all good (warnings, on stderr and in the run log, included); 1
    finished, but some input was rejected (listed in the run log and on stderr); 2 usage
    error (e.g. an invalid --team file); 3 nothing readable (no root had run logs, pack
    inputs or a history; no day folder is written, and nothing at all - no output
    folder, no lock file - when no root has any of them); 4 another nightly job holds
    the lock (already running) for longer than --wait (a history another process keeps
    locked longer fails that project's step only: exit 1).
    """
    refuse_dash(
        click.get_current_context(), "out", "the day's reports are written to a folder", "folder"
    )
    res = nightly.run_nightly(
        list(roots),
        out,
        renderer=Renderer(),
        teams=list(teams),
        date=nightly.parse_date(date_text) if date_text is not None else None,
        history_path=history_path,
        wait=wait,
        hooks=pack_hooks(),
        version=version,
    )
    rejected = res.all_rejected
    for d in rejected:
        output.note(d.text())
    # As `pipeline`, `plugin` and the run log say them; they were in the run log only.
    warnings = res.all_warnings
    for d in warnings:
        run = f" (run {quote(d.run_id)})" if d.run_id is not None else ""
        output.note(f"warning: {d.text()}{run}")
    scored = sum(len(s.runs_scored) for s in res.scopes)
    already = sum(len(s.already_scored) for s in res.scopes)
    incomplete = sum(len(s.incomplete) for s in res.scopes)
    unchanged = sum(s.files_unchanged for s in res.scopes)
    output.note(
        # "already scored (same events)": the run log's words, where alone it was counted.
        f"nightly {res.date}: {scored} run(s) scored, {already} already scored (same events), "
        f"{incomplete} incomplete, "
        f"{unchanged} unchanged file(s) not re-read, {len(rejected)} rejected input(s), "
        f"{len(warnings)} warning(s); "
        f"{len(res.outputs)} file(s) in {quote_path(res.out_dir)}"
    )
    if res.days_index_error is not None:
        # After the counts: the day's folder is in place; only the list of days is stale.
        output.note(
            f"warning: {quote_path(os.path.join(os.path.dirname(res.out_dir), 'index.md'))}: "
            f"not written: {res.days_index_error} (the day's folder is in place; the next job "
            "writes it)"
        )
    if fmt == "json":
        click.echo(output.to_json(res.as_dict()), nl=False)
    else:
        click.echo(os.path.join(res.out_dir, "index.md"))
    if res.partial:
        click.get_current_context().exit(ExitCode.PARTIAL)


# --------------------------------------------------------------------------- history


@click.group("history")
def history_group() -> None:
    """Check or repair an effectiveness history file.

    The readers already skip torn, foreign and invalid lines with a file:line
    diagnostic; check lists them, repair writes a copy without them.
    """


def _print_check(res: history_tools.CheckResult, fmt: str) -> None:
    problems = sorted(res.issues + res.duplicates, key=lambda i: i.line)
    if fmt == "json":
        click.echo(json.dumps(res.as_dict(), ensure_ascii=False, indent=2))
    for i in problems:
        output.note(f"{i.location()}: {i.reason}")
    for n in res.notes:
        output.note(n)
    versions = ", ".join(f"{v}: {n}" for v, n in sorted(res.versions.items())) or "none"
    output.note(
        f"{quote_path(res.path)}: {res.lines} line(s), {res.usable} usable ({versions}); "
        f"{len(res.issues)} bad, {len(res.duplicates)} duplicate"
    )


def _history_arg_or_option(f: F) -> F:
    """HISTORY as an argument, or ``--history FILE`` as every other command takes it."""
    f = click.option(
        "--history",
        "history_opt",
        default=None,
        metavar="FILE",
        help="The history file, as the other commands take it (the same as HISTORY; give one).",
    )(f)
    return click.argument("history_arg", default=None, required=False, metavar="[HISTORY]")(f)


def _history_path(history_arg: str | None, history_opt: str | None) -> str:
    """HISTORY or --history (the spelling every other command uses), not two files."""
    if history_arg is not None and history_opt is not None and history_arg != history_opt:
        raise click.UsageError(
            # paths, as every message writes one: whole, quoted only if they need it
            f"two history files given: {quote_path(history_arg)} and --history "
            f"{quote_path(history_opt)}"
        )
    if history_arg is not None:
        return history_arg
    return history_opt if history_opt is not None else eh.DEFAULT_HISTORY


@history_group.command("check")
@_history_arg_or_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: findings on stderr only; json: one report object on stdout.",
)
def check_cmd(history_arg: str | None, history_opt: str | None, fmt: str) -> None:
    """Report every history line the readers skip (torn, foreign, not JSON, invalid
    fields) and every record written twice, as file:line: reason.

    HISTORY (or --history FILE) defaults to .archeflow/memory/effectiveness.jsonl.
    ArcheFlow's own 15-field lines are valid (archeflow-legacy). Exit 0 when clean, 1
    when not, 3 when the file does not exist.
    """
    res = history_tools.check(_history_path(history_arg, history_opt))
    _print_check(res, fmt)
    if not res.ok:
        click.get_current_context().exit(ExitCode.PARTIAL)


@history_group.command("repair")
@_history_arg_or_option
@click.option(
    "--out",
    "out",
    default=None,
    metavar="FILE",
    help="Where to write the repaired copy (default: HISTORY with .repaired before "
    "the extension). Never the history itself.",
)
@click.option(
    "--in-place",
    is_flag=True,
    help="Replace the history itself (under its lock), after copying it to HISTORY.bak-<UTC time>.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite an existing --out file; and write the repair even when no line of "
    "the history could be read (exit 3 without it).",
)
@lock_timeout_option(
    help="Seconds to wait for a writer's history lock with --in-place (exit 4 after)."
)
def repair_cmd(
    history_arg: str | None,
    history_opt: str | None,
    out: str | None,
    in_place: bool,
    force: bool,
    lock_timeout: float,
) -> None:
    """Write the history without the lines check reports (kept lines byte for byte).

    By default to a new file; the history is never rewritten without --in-place, which
    keeps a backup and makes the next extract re-read its inputs (the manifest is
    dropped), so runs whose records were torn are scored again. Prints the path of the
    repaired file.
    """
    ctx = click.get_current_context()
    refuse_without(ctx, "lock_timeout", "in_place", "only --in-place takes the history's lock")
    refuse_empty(ctx, "out", kind="file")  # was taken for no --out: written to the default
    refuse_dash(ctx, "out", "the repaired copy is written to a file")
    history_path = _history_path(history_arg, history_opt)
    res = history_tools.repair(
        history_path, out, in_place=in_place, force=force, lock_timeout=lock_timeout
    )
    unread = set(res.check.unread)
    for i in sorted(res.check.issues + res.check.duplicates, key=lambda i: i.line):
        if i.line in unread:
            output.note(
                f"{i.location()}: kept unread: {i.reason} (raise RUNSCORE_MAX_LINE_BYTES to "
                "check it)"
            )
        else:
            output.note(f"{i.location()}: dropped: {i.reason}")
    if not res.changed:
        what = "nothing to drop" if res.check.unread else "clean; nothing to repair"
        output.note(f"{quote_path(history_path)}: {what}")
    else:
        extra = f"; backup {quote_path(res.backup)}" if res.backup else ""
        if res.backup_kept:
            # a repair killed after its backup, run again: no copy more per try
            extra += " (made by an earlier repair that did not finish: the same bytes)"
        output.note(
            f"{quote_path(res.target)}: {res.kept} line(s) kept, {res.dropped} dropped{extra}"
        )
    click.echo(res.target)


def register(group: click.Group) -> None:
    """Add ``nightly`` and the ``history`` group (``check``, ``repair``)."""
    group.add_command(nightly_cmd)
    group.add_command(history_group)
