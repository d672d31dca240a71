"""``runscore report | recommend | summary | export``: answers from the effectiveness history.

Thin layer: each command calls ``runscore.engine.packs.effectiveness_history``,
prints the data to stdout (Jinja markdown, JSON or CSV) and every diagnostic to
stderr. Skipped history lines (torn, foreign, invalid) make the exit code 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from runscore.cli import output
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import refuse_dash, refuse_empty, refuse_stdin_twice
from runscore.cli.render import render, usd
from runscore.engine.packs import effectiveness_history as eh
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

_HISTORY_HELP = (
    "History file (JSONL) to read. From 50,000 lines its typed lines are kept in "
    "FILE.cache.duckdb, so later reads parse only new lines; RUNSCORE_HISTORY_CACHE=off "
    "disables that."
)
_VERSION_HELP = (
    "Scoring version to read: v1 / effectiveness/v1 or archeflow-legacy. Default: the "
    "newest effectiveness/vN present in the history."
)
# Only report lays versions side by side; recommend and summary refuse `all` (exit 2).
_REPORT_VERSION_HELP = (
    "Scoring version to report: v1 / effectiveness/v1, archeflow-legacy, or all (every "
    "version present, side by side). Default: the newest effectiveness/vN present in the "
    "history."
)
_WINDOW_HELP = (
    "Runs per archetype averaged (its most recent by run time; runs of the same time by "
    "run_id, the greater counting as the later). Default: 10."
)


#: A command callback; each option decorator gives it back as it came.
F = TypeVar("F", bound=Callable[..., Any])


def history_option(f: F) -> F:
    return click.option(
        "--history",
        "history_path",
        default=eh.DEFAULT_HISTORY,
        show_default=True,
        help=_HISTORY_HELP,
    )(f)


def version_option(f: F) -> F:
    return click.option("--sql-version", "version", default=None, help=_VERSION_HELP)(f)


def report_version_option(f: F) -> F:
    return click.option("--sql-version", "version", default=None, help=_REPORT_VERSION_HELP)(f)


class Window(click.types.IntParamType):
    """Runs averaged per archetype, 1 to ``eh.MAX_WINDOW``: refused at parse time in one
    wording for every value it cannot take. ``IntRange(min=1)`` said 0 in click's words
    (``0 is not in the range x>=1``), ``abc`` in others, and 10**20 in the engine's,
    once the history had been read."""

    name = "runs"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            runs = int(value)
        except (TypeError, ValueError):
            runs = 0
        if isinstance(value, bool) or not 1 <= runs <= eh.MAX_WINDOW:
            self.fail(f"{quote(value)} is not {eh.window_range()}", param, ctx)
        return runs


def window_option(f: F) -> F:
    return click.option("--window", type=Window(), default=None, help=_WINDOW_HELP)(f)


_RAW_HELP = "Output format (json/csv: raw, unrounded numbers and action codes)."


def format_option(choices: Sequence[str], default: str, help: str = _RAW_HELP) -> Callable[[F], F]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
    )


def report_diagnostics(
    issues: Sequence[LineIssue], notes: Sequence[str], *, last: str | None = None
) -> None:
    """Print skipped lines and notes to stderr, then ``last`` (what was done with the rest,
    said after what reading it found); exit 1 (partial) when lines were skipped."""
    for i in issues:
        output.note(f"{i.location()}: {i.reason}")
    for n in notes:
        output.note(n)
    if last is not None:
        output.note(last)
    if issues:
        click.get_current_context().exit(ExitCode.PARTIAL)


# --------------------------------------------------------------------------- report


def report_markdown(res: eh.ReportResult) -> str:
    """The markdown of ``runscore report`` (also written by ``runscore nightly``)."""
    rows = res.table.to_pylist()
    sections = [
        {
            "version": v,
            "rows": [r for r in rows if r["scoring_version"] == v],
            "bounds": res.bounds.get(v, {"score": [], "delta": []}),
        }
        for v in res.versions
    ]
    level = float(res.windows.get("interval_level", 0.95)) * 100
    return render(
        "effectiveness_report.md.j2",
        sections=sections,
        multi=len(sections) > 1,
        window=res.window,
        trend_runs=res.windows.get("trend_runs"),
        level=f"{level:g}",
    )


def recommend_markdown(res: eh.RecommendResult) -> str:
    """The markdown of ``runscore recommend`` (also written by ``runscore nightly``)."""
    return render(
        "effectiveness_recommend.md.j2",
        team_name=res.team.name,
        version=res.version,
        window=res.window,
        rows=res.table.to_pylist(),
        bounds=res.bounds.get("score", []),
    )


@click.command("report")
@history_option
@format_option(["markdown", "json", "csv"], "markdown")
@report_version_option
@window_option
def report_cmd(history_path: str, fmt: str, version: str | None, window: int | None) -> None:
    """Per-archetype effectiveness: rolling averages, trend, recommendation, model advice.

    Uses the current history line per (run, archetype) of one scoring version. The
    trend compares the last 5 runs with the 5 before (insufficient_data under 10
    runs); markdown flags a trend whose exact 95% bootstrap interval includes 0 as
    "not significant". Exit 3 when there is no history file, or not one of its lines
    could be read (each is listed).
    """
    res = eh.report(history_path, version=version, window=window)
    if fmt == "markdown":
        click.echo(report_markdown(res), nl=False)
    else:
        output.write(res.table, fmt)
    report_diagnostics(res.issues, res.notes)


# --------------------------------------------------------------------------- recommend


@click.command("recommend")
@click.argument("team", type=click.Path(dir_okay=False))
@history_option
@format_option(["markdown", "json", "csv"], "markdown")
@version_option
@window_option
def recommend_cmd(
    team: str, history_path: str, fmt: str, version: str | None, window: int | None
) -> None:
    """Model advice for each member of an ArcheFlow team preset (TEAM.yaml).

    Members are the plan, do and check lists, an archetypes: list and the keys of
    model_overrides (a key given twice, or a near miss of these such as chek:, is an
    invalid team file; ArcheFlow's other keys are not read). Actions: keep, downgrade, upgrade, optimize, remove, no_data
    (no history), not_scored (plan/do only, never reviewed). An invalid team file
    is a usage error (exit 2); no history file, or not one readable line in it, is
    exit 3, as for report.
    """
    res = eh.recommend(history_path, team, version=version, window=window)
    if fmt == "markdown":
        click.echo(recommend_markdown(res), nl=False)
    else:
        output.write(res.table, fmt)
    tier_notes = [f"note: {n}" for n in res.model_notes]
    report_diagnostics(res.issues, [*res.notes, *tier_notes])


# --------------------------------------------------------------------------- summary


def _cost_text(v: float | None, cost_runs: int, runs: int) -> str:
    """'$0.004/run avg': dollars as ``usd`` writes them (the sign before the $; a nonzero
    mean that rounds to 0 as '<$0.0001', since '$0.00' must mean a known cost of nothing;
    three significant digits from ``SCI_FROM``), trailing zeros dropped (at least 2
    kept). Built only of digits and these signs, so the template prints it unescaped
    (mid-line, neither '-' nor '<$' is markdown). The mean is of the window's runs with a
    known cost only; when those are not all of them, '(cost known for 3 of 5 runs)' says
    so: '$0.00/run avg' of one run in five read as an archetype that costs nothing."""
    if v is None or not math.isfinite(v):
        return "cost unknown"
    s = usd(v, 4)
    if re.fullmatch(r"-?\$\d+\.\d{4}", s):
        whole, frac = s.split(".")
        s = f"{whole}.{frac.rstrip('0').ljust(2, '0')}"
    if 0 < cost_runs < runs:
        return f"{s}/run avg (cost known for {cost_runs} of {runs} runs)"
    return f"{s}/run avg"


@click.command("summary")
@history_option
@click.option(
    "--team",
    type=click.Path(dir_okay=False),
    default=None,
    help="Only this team preset's members (TEAM.yaml), in team order.",
)
@format_option(["text", "json"], "text", "text: the run-start block; json: raw, unrounded numbers.")
@version_option
@window_option
def summary_cmd(
    history_path: str, team: str | None, fmt: str, version: str | None, window: int | None
) -> None:
    """The run-start block: one line per archetype with score, recommendation, model, cost.

    With no history yet it prints a one-line notice (exit 0), so it is safe to run at
    the start of every run. A history with lines but not one readable is exit 3.
    """
    res = eh.summary(history_path, team, version=version, window=window)
    rows = res.table.to_pylist()
    if fmt == "json":
        output.write(res.table, "json")
    else:
        bounds = res.bounds.get("score", [])
        cells = [
            [
                output.plain_text(r["archetype"]) + ":",
                output.fmt_vs(r["score"], bounds),
                f"({output.plain_text(r['recommendation'])})",
            ]
            for r in rows
        ]
        # Each column as wide as its widest cell, in the columns a terminal gives it (a CJK
        # character or most emoji two): `(consider_removing)` pushed its row's model out of
        # line. The action at least 10 wide, as spec §7's example (ArcheFlow's %-10s).
        widths = [max((output.display_width(c[i]) for c in cells), default=0) for i in range(3)]
        widths[2] = max(widths[2], 10)
        for r, row_cells in zip(rows, cells, strict=True):
            r["cells"] = [
                c + " " * (w - output.display_width(c))
                for c, w in zip(row_cells, widths, strict=True)
            ]
            r["cost_text"] = _cost_text(r["avg_cost_usd"], r["cost_runs"], r["runs_in_window"])
        click.echo(
            render(
                "effectiveness_summary.txt.j2",
                rows=rows,
                window=res.window,
                scored_archetypes=res.scored_archetypes,
            ),
            nl=False,
        )
    report_diagnostics(res.issues, res.notes)


# --------------------------------------------------------------------------- export


@click.command("export")
@click.option(
    "--to",
    "target",
    required=True,
    # readable=False: a file that is replaced need not be readable (mode -w-); click
    # refused it to a user and not to root.
    type=click.Path(dir_okay=False, readable=False),
    help="FILE.parquet (history; event tables as FILE.<table>.parquet beside it, or, "
    "without --events, such files of an earlier export removed) or FILE.duckdb (one "
    "database with tables history, history_current and the event tables).",
)
@history_option
@click.option(
    "--events",
    multiple=True,
    help="Also export the normalised events of these logs (files, directories, globs; repeatable).",
)
def export_cmd(target: str, history_path: str, events: tuple[str, ...]) -> None:
    """Export the history (every scoring version, typed) as Parquet or a DuckDB file.

    The files open directly in the DuckDB CLI, Polars or any Parquet reader. Files are
    written to a temporary name and renamed into place. Without --events, no history
    file, or not one readable line in it, is exit 3; with --events, input of which no
    line is an event (no input file, each empty or every line rejected) is exit 3, and
    nothing is written.
    """
    # Said before anything is read, as every command that takes - does: the second read
    # found it empty.
    ctx = click.get_current_context()
    refuse_empty(ctx, "target", kind="file")
    refuse_dash(ctx, "target", "export writes files (FILE.parquet or FILE.duckdb)")
    refuse_empty(ctx, "events")
    refuse_stdin_twice(ctx, "events")
    res = eh.export(target, history_path, list(events) or None)
    for f in res.files:
        click.echo(f)
    # In the order things happened: the history's and the logs' notes (no history, a line
    # skipped), an earlier export's files removed, then what was written.
    report_diagnostics(
        res.issues,
        res.notes,
        last="exported "
        + ", ".join(f"{n}: {k} row{'' if k == 1 else 's'}" for n, k in res.rows.items()),
    )


def register(group: click.Group) -> None:
    """Add report, recommend, summary and export to the runscore group."""
    for cmd in (report_cmd, recommend_cmd, summary_cmd, export_cmd):
        group.add_command(cmd)
