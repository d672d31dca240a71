"""``runscore sql``: read-only ad-hoc SQL over the effectiveness history and events (and the
pipeline history)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable

import click
import pyarrow as pa
import pyarrow.parquet as pq
from runscore.cli import output
from runscore.cli.analytics import report_diagnostics
from runscore.cli.options import refuse_empty, refuse_stdin_twice
from runscore.engine.errors import Arg, CannotAccess, UsageError
from runscore.engine.history import require_path, write_output
from runscore.engine.packs import effectiveness, pipeline
from runscore.engine.packs import effectiveness_history as eh
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

#: ``--output``, the file the result is written to.
OUTPUT = Arg("out_path", "--output")


def _views_help() -> str:
    lines = [f"  {n}: {d}" for n, d in eh.HISTORY_VIEWS.items()]
    lines.append("with --events PATH:")
    lines += [f"  {n}: {d}" for n, d in eh.EVENT_VIEWS.items()]
    lines.append("with the pipeline history (--pipelines FILE, when it exists):")
    lines += [f"  {n}: {d}" for n, d in pipeline.HISTORY_VIEWS.items()]
    return "\n".join(lines)


_HELP = f"""Run one read-only SELECT over the effectiveness views.

\b
Views (see all columns with --schema):
{_views_help()}

Only a single SELECT-type statement runs (WITH, FROM-first, VALUES, DESCRIBE,
SHOW and SUMMARIZE included). Anything that writes, attaches, installs, loads or
changes a setting (COPY, ATTACH, INSTALL/LOAD, PRAGMA, SET, CALL, EXPORT, CREATE,
INSERT, ...) is refused with exit 2. The query runs on a connection that holds
only these views, with file access disabled and the configuration locked, so it
cannot read files either (read_csv('/etc/passwd') is refused): to join with
other data, `runscore export` and use DuckDB directly.
"""


@click.command("sql", help=_HELP)
@click.argument("query", required=False)
@click.option(
    "--history",
    "history_path",
    default=eh.DEFAULT_HISTORY,
    show_default=True,
    help="History file (JSONL) behind the history views (read through its cache, "
    "FILE.cache.duckdb, as `report` does).",
)
@click.option(
    "--events",
    multiple=True,
    help="Event logs (files, directories, globs; repeatable) behind the event views.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "markdown", "json", "csv", "parquet"]),
    default="table",
    help="Output format [default: the one --output's suffix names (.parquet, .json, .csv, "
    ".md), else table; a .duckdb or .db --output needs it: runscore export writes "
    "databases]; parquet needs --output.",
)
@click.option(
    "--output",
    "out_path",
    # readable=False: a file that is replaced need not be readable (mode -w-); click
    # refused it to a user and not to root.
    type=click.Path(dir_okay=False, readable=False),
    default=None,
    help="Write the result to this file instead of stdout (- is stdout).",
)
@click.option(
    "--pipelines",
    "pipelines_path",
    default=pipeline.DEFAULT_HISTORY,
    show_default=True,
    help="Pipeline history behind pipeline_history and pipeline_history_current "
    "(registered when the file exists).",
)
@click.option("--schema", is_flag=True, help="List the views and their columns instead.")
@click.option(
    "--sql-version",
    "version",
    default=None,
    help="Scoring version behind archetype_runs, archetype_aggregates and report "
    "(default: the newest present in the history).",
)
def sql_cmd(
    query: str | None,
    history_path: str,
    events: tuple[str, ...],
    fmt: str,
    out_path: str | None,
    pipelines_path: str,
    schema: bool,
    version: str | None,
) -> None:
    ctx = click.get_current_context()
    refuse_empty(ctx, "events")
    refuse_empty(ctx, "out_path", kind="file")  # was said once the query had run
    refuse_stdin_twice(ctx, "events")
    # What the arguments get wrong is said before any file is read: these were said
    # after the pipeline history was read and the query had run.
    if schema and query:
        raise UsageError("give either a QUERY or --schema, not both")
    if not schema and not query:
        raise UsageError("missing QUERY (or use --schema to list the views)")
    if out_path == "-":
        # As a command line reads it: it was a file named "-" in the current folder.
        if fmt == "parquet":
            raise UsageError(
                "--format parquet needs --output FILE.parquet: Parquet is binary, written "
                "to a file, not to standard output (-)"
            )
        out_path = None
    if fmt == "parquet" and out_path is None:
        raise UsageError("--format parquet needs --output FILE.parquet")
    if out_path is not None:
        _refuse_a_history(out_path, history_path, pipelines_path)
        eh.refuse_an_event_input(out_path, list(events), "the query", "--output")
        effectiveness.refuse_kept_beside(
            out_path,
            history_path,
            "--output",
            [pipelines_path],
            why="writing the result there would replace it",
        )
        # After those: a lock or manifest is refused as such, whatever its suffix says.
        given = ctx.get_parameter_source("fmt") is not click.core.ParameterSource.DEFAULT
        fmt = _format_for(out_path, fmt, given)
    extra = None
    # The pipeline history's skipped lines are said as the effectiveness history's are
    # (file:line: reason, exit 1): its views leave them out.
    skipped: list[LineIssue] = []
    # "" (an unset variable) is no file that exists: the views were left out unsaid.
    require_path(pipelines_path, "--pipelines")
    if os.path.exists(pipelines_path):
        # A query that reads its views of a history with lines but none usable reads
        # nothing (exit 3), as one of the effectiveness history's views does.
        reads = bool(query and not schema and eh.views_read(query, pipeline.HISTORY_VIEWS))
        extra, diags = pipeline.history_tables(pipelines_path, require_readable=reads)
        skipped = [LineIssue(d.file or pipelines_path, d.line or 0, d.reason) for d in diags]
    if schema:
        res = eh.schema(
            history_path, list(events) or None, version, extra, pipelines=[pipelines_path]
        )
    else:
        assert query is not None  # refused above
        res = eh.run_sql(
            query, history_path, list(events) or None, version, extra, pipelines=[pipelines_path]
        )
    if out_path is not None:
        table = res.table

        def write(tmp: str) -> None:
            if fmt == "parquet":
                try:
                    # through a Python file: Arrow's own seeks, which a FIFO cannot
                    with open(tmp, "wb") as f:
                        pq.write_table(table, f)
                except pa.ArrowException as e:
                    if isinstance(e, OSError):
                        raise
                    # a type Parquet has no form for (an INTERVAL): the query's, not a bug
                    why = str(e).splitlines()[0]
                    raise UsageError(
                        f"{quote_path(out_path)}: cannot write the result as Parquet: {why}"
                    ) from None
            else:
                buf = io.StringIO()
                output.write(table, fmt, stream=buf)
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(buf.getvalue())

        _write_then_rename(out_path, write)
    else:
        output.write(res.table, fmt)
    # An infinity written as null reads as unknown unless said (Parquet keeps it).
    nulled = {} if fmt == "parquet" else output.infinities_as_null(res.table, fmt)
    notes = [
        f"column {quote(name)}: {n} infinite value{'' if n == 1 else 's'} written as null "
        "(JSON has no infinity; --format parquet keeps it)"
        for name, n in nulled.items()
    ]
    report_diagnostics([*res.issues, *skipped], [*res.notes, *notes])


#: The formats a file name says. `--output x.parquet` without --format wrote the text
#: table into a file that says it is Parquet (and no Parquet reader could open it).
_SUFFIX_FORMATS = {
    ".parquet": "parquet",
    ".json": "json",
    ".csv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
}


#: Suffixes of a DuckDB database (as `export --to` takes them): `--output r.duckdb` wrote
#: the text table into it, a file no DuckDB opens.
_DATABASE_SUFFIXES = (".duckdb", ".db")


def _format_for(out_path: str, fmt: str, given: bool) -> str:
    """The format to write ``out_path`` in: the one its suffix names unless --format was
    ``given``; a --format that contradicts it is refused, and so is a database's suffix
    without one (``sql`` writes no database). A name of no known suffix is written in
    ``fmt`` (given, or the default table)."""
    suffix = os.path.splitext(out_path)[1]
    if suffix.lower() in _DATABASE_SUFFIXES and not given:
        raise UsageError(
            f"--output {quote_path(out_path)}: a {suffix} file is a DuckDB database, which "
            "sql does not write: `runscore export --to FILE.duckdb` writes the history (and "
            "--events' tables) as one; give --format to write this result in that format"
        )
    named = _SUFFIX_FORMATS.get(suffix.lower())
    if named is None or named == fmt:
        return fmt
    if not given:
        return named
    raise UsageError(
        f"--format {fmt} contradicts --output {quote_path(out_path)}: a {suffix} file is "
        f"written as {named} (leave --format out, or name the file otherwise)"
    )


def _write_then_rename(out_path: str, write: Callable[[str], None]) -> None:
    """Write ``out_path`` as every output is written (``history.write_output``): beside it
    and renamed into place, so that a failed write (a full disk) never leaves half a file
    where the last result was; a FIFO or device written into."""
    folder = os.path.dirname(os.path.abspath(out_path))
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise CannotAccess(
            f"{quote_path(out_path)}: cannot write the result: {quote_path(folder)} is not a folder",
            about=OUTPUT,
        )
    try:
        write_output(
            out_path, write, about=OUTPUT
        )  # makes a missing folder, as export and pipeline --out
    except OSError as e:
        raise CannotAccess(
            f"{quote_path(out_path)}: cannot write the result: {e.strerror or e}", about=OUTPUT
        ) from e


def _refuse_a_history(out_path: str, *histories: str) -> None:
    """--output must not be a history the query reads: writing the result there replaced
    the append-only history with it."""
    for h in histories:
        try:
            same = os.path.samefile(out_path, h)
        except OSError:  # either one missing (or unreadable): not the same file
            continue
        if same:
            raise UsageError(
                f"{quote_path(out_path)}: that is the history {quote_path(h)} the query reads; "
                "choose another --output",
                about=OUTPUT,
            )


def register(group: click.Group) -> None:
    """Add ``sql`` to the runscore group."""
    group.add_command(sql_cmd)
