"""``runscore extract``: score ArcheFlow run logs into the effectiveness history."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

import click
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import (
    lock_timeout_option,
    refuse_empty,
    refuse_stdin_twice,
    refuse_together,
)
from runscore.cli.output import note
from runscore.engine.packs import effectiveness
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote


class _Progress:
    """A progress bar on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.bar: Any = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled or total < 200:
            return
        if self.bar is None and phase == "scan":
            self.bar = click.progressbar(length=total, label="reading", file=sys.stderr)
            self.bar.__enter__()
        if self.bar is not None:
            if phase == "scan":
                self.bar.update(done - self.bar.pos)
            else:
                self.bar.__exit__(None, None, None)
                self.bar = None

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@click.command("extract")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--history",
    "history_path",
    default=effectiveness.DEFAULT_HISTORY,
    show_default=True,
    help="History file to append to (created if missing).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: summary on stderr only; json: one summary object on stdout.",
)
@click.option(
    "--sql-version",
    "version",
    default=effectiveness.DEFAULT_VERSION,
    show_default=True,
    help="Scoring version: a folder of sql/effectiveness (v1, archeflow-legacy).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Re-read every file, ignoring the manifest of already-read files.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Score and report, but write nothing (no history, no manifest).",
)
@lock_timeout_option()
def extract_cmd(
    paths: tuple[str, ...],
    history_path: str,
    fmt: str,
    version: str,
    full: bool,
    dry_run: bool,
    lock_timeout: float,
) -> None:
    """Score ArcheFlow run logs and append the scores to the history.

    PATHS are JSONL files, directories (every *.jsonl below, sorted), globs, or -
    for stdin. A file may hold many runs; runs are grouped by run_id. Runs without
    a run.complete event are reported as incomplete and not scored. Malformed
    lines are reported as file:line: reason and the rest is still scored.

    Exit codes: 0 all readable input scored; 1 some input rejected; 2 usage
    error; 3 nothing could be read; 4 history lock held by another process.
    """
    ctx = click.get_current_context()
    refuse_empty(ctx, "paths")
    refuse_stdin_twice(ctx, "paths")
    refuse_together(ctx, "dry_run", "lock_timeout", "a dry run takes no lock")
    refuse_together(
        ctx, "dry_run", "full", "a dry run reads every file given (it consults no manifest)"
    )
    progress = _Progress()
    try:
        result = effectiveness.extract(
            list(paths),
            history_path,
            version,
            incremental=not full,
            write=not dry_run,
            lock_timeout=lock_timeout,
            progress=progress,
        )
    finally:
        progress.close()
    summary = result.summary()
    if fmt == "json":
        click.echo(json.dumps(summary, ensure_ascii=False))
    for x in result.excluded:
        note(f"{x.location()}: {x.reason}")
    # As when no other file is read (then nothing read, exit 3): said, but not rejected.
    for x in result.no_lines:
        note(f"{x.location()}: {x.reason}")
    for s in result.input_problems():  # in the order given, a path not found in its place
        note(f"{s.location()}: {s.reason}")
    # `warning: file:line: reason`, as pipeline, plugin and nightly say theirs
    _listed(f"warning: {w.location()}: {w.reason}" for w in result.warnings)
    _listed(
        f"run {quote(r)}: incomplete: {effectiveness.INCOMPLETE_REASON}" for r in result.incomplete
    )
    _listed(
        f"run {quote(inv['run_id'])}: invalid: {inv['reason']} "
        f"({effectiveness.locations_said(inv['locations'])})"
        for inv in result.invalid
    )
    written = (
        # "0 new record(s) not written" read as "none was left out": the count is what a
        # write would append, and that nothing was written is said apart.
        f"{result.records_new} record(s) would be written to {quote_path(history_path)} "
        "(dry run: nothing written)"
        if dry_run
        else f"{result.records_written} record(s) written to {quote_path(history_path)}"
    )
    note(
        f"{result.runs_scored} run(s) scored, {written}"
        f"; {len(result.already_scored)} already scored"
        f", {len(result.incomplete)} incomplete, {len(result.invalid)} invalid"
        f", {len(result.skipped_lines)} line(s) skipped, {len(result.warnings)} warning(s)"
        f", {result.files_unchanged} unchanged file(s) not re-read"
    )
    unsaved = result.manifest_problem()
    if unsaved is not None:
        # After the summary: what was written stands (it said "error:", exit 2, stdout
        # empty, of records it had appended).
        note(f"{quote_path(unsaved[0])}: {unsaved[1]}")
    if result.rejected or result.manifest_error is not None:
        click.get_current_context().exit(ExitCode.PARTIAL)


#: How many of each kind (warnings, incomplete runs, invalid runs) the text summary lists.
LISTED = 20


def _listed(lines: Iterable[str]) -> None:
    """Say the first ``LISTED`` lines, then how many more there are."""
    n = 0
    for n, line in enumerate(lines, 1):
        if n <= LISTED:
            note(line)
    if n > LISTED:
        note(f"… and {n - LISTED} more (--format json lists them all)")


def register(group: click.Group) -> None:
    """Add ``extract`` to the runscore group."""
    group.add_command(extract_cmd)
