"""CLI commands: ``runscore routes`` (spec routes.md).

``runscore routes FILE...`` is short for ``runscore routes report FILE...``: the
group dispatches to ``report`` whenever its first argument is not a subcommand
name, so ``runscore routes export-router-rows FILE...`` still reaches its own
subcommand. (A file literally named ``report`` or ``export-router-rows`` needs
the explicit form: ``runscore routes report ./report``.)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click
from runscore.cli import output, render
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import given, refuse_empty, refuse_stdin_twice
from runscore.engine.packs import routes as engine
from runscore.engine.quoting import cannot_show
from runscore.engine.quoting import path as quote_path

if TYPE_CHECKING:
    import pyarrow as pa

_FORMATS = ["markdown", "json", "csv"]
_ROW_FORMATS = ["jsonl", "json", "csv"]
#: The tables of a report; CSV holds one (``--table``), markdown and JSON all of them.
_TABLES = ["findings", "comparisons", "cascades", "matrix"]


class _RoutesGroup(click.Group):
    """A group whose first argument may be a file: then it means ``report``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["report", *args]
        return super().parse_args(ctx, args)


def _command_block(cmd: str | None) -> str | None:
    """A fenced shell block that a name cannot break out of (fence longer than any backtick run).
    None for a command that cannot be shown as it is and still be pasted: a bidi override in
    a code block turned the rest of it around, and written escaped it names another route."""
    if cmd is None or cannot_show(cmd):
        return None
    longest = max((len(m) for m in re.findall(r"`+", cmd)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}sh\n{cmd}\n{fence}"


def _setting(key: str) -> Any:
    """A click callback that checks the flag of policy setting ``key`` as it is parsed, so
    that a bad one is a usage error naming the flag (``Invalid value for '--min-labelled':
    must be >= 0, got -3``), before anything is read: it was named by its policy key
    (``flags: min_labelled_per_route``), or by the ``--policy`` file given with it, which
    did not hold it."""

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None:
            return None
        try:
            return engine.policy_number(key, value)
        except ValueError as e:
            raise click.BadParameter(str(e), ctx, param) from None

    return check


def _policy_options(f: Any) -> Any:
    opts = [
        click.option(
            "--policy",
            "policy_file",
            type=click.Path(dir_okay=False),
            help="Policy file (YAML or JSON): tolerance, min_labelled_per_route, "
            "min_pairs, max_ci_width, freshness_days, min_stratum_overlap, "
            "incumbents, model_tiers. Flags override it.",
        ),
        click.option(
            "--as-of",
            "as_of",
            metavar="ISO",
            help="Clock for freshness (ISO date-time, UTC if no offset). "
            "Default: today 00:00 UTC, so reruns on one day are identical.",
        ),
        click.option(
            "--tolerance",
            type=float,
            callback=_setting("tolerance"),
            help="Non-inferiority tolerance (default 0.05).",
        ),
        click.option(
            "--min-labelled",
            "min_labelled_per_route",
            type=int,
            callback=_setting("min_labelled_per_route"),
            help="Minimum labelled episodes per route in compared strata (default 30).",
        ),
        click.option(
            "--min-pairs",
            type=int,
            callback=_setting("min_pairs"),
            help="Minimum paired fixtures (default 20).",
        ),
        click.option(
            "--max-ci-width",
            type=float,
            callback=_setting("max_ci_width"),
            help="Widest 95% interval that still grades above insufficient (default 0.25).",
        ),
        click.option(
            "--freshness-days",
            type=int,
            callback=_setting("freshness_days"),
            help="Evidence older than this many days is stale (default 30).",
        ),
        click.option(
            "--min-overlap",
            "min_stratum_overlap",
            type=float,
            callback=_setting("min_stratum_overlap"),
            help="Minimum share of a route's labelled episodes in compared strata (default 0.5).",
        ),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _policy(kw: dict[str, Any]) -> engine.Policy:
    flags = {k: kw.get(k) for k in engine.NUMERIC_POLICY}  # each checked as it was parsed
    if kw.get("policy_file") is None:  # "" (an unset variable) is refused by the loader
        return engine.build_policy(None, flags, where="flags", about=None)  # no one argument
    path = kw["policy_file"]
    file_values = engine.load_policy_file(path, about=engine.POLICY_PATH)
    # The file on its own first: a bad value in it is the file's error, even where a flag
    # overrides it (the file is wrong for every run without that flag).
    engine.build_policy(file_values, None, where=path, about=engine.POLICY_PATH)
    # What is wrong now is a flag's (the file alone passed): the flags are no one argument.
    return engine.build_policy(file_values, flags, where=path, about=None)


def _report_problems(rep: engine.RoutesReport, policy_file: str | None) -> None:
    # As when no other file is read (then nothing read, exit 3): said, but not rejected.
    for empty in rep.empty_files:
        output.note(f"{empty.location()}: {empty.reason}")
    for issue in rep.problems:
        output.note(f"{issue.location()}: {issue.reason}")
    for note in rep.policy_notes:
        output.note(f"warning: {quote_path(str(policy_file))}: {note}")
    for late in rep.after_as_of:
        output.note(f"warning: {late.location()}: {late.reason}")


def _exit(ctx: click.Context, rep: engine.RoutesReport) -> None:
    if rep.problems:
        ctx.exit(ExitCode.PARTIAL)


#: A finding's ``rates``, each a findings CSV column by its JSON path (``rates.candidate_retry``,
#: as the other tables name theirs) beside the columns that table always had.
_RATES = [
    f"{side}_{what}{reported}"
    for reported in ("", "_reported")
    for side in ("candidate", "incumbent")
    for what in ("retry", "repair", "escalation")
]

#: The findings CSV's first columns, in the order they always had, each with the JSON path
#: of the field it holds.
_FINDING_COLUMNS: dict[str, str] = {
    "type": "type",
    "activity": "activity",
    "grade": "grade",
    "candidate_host": "candidate.host",
    "candidate_provider": "candidate.provider",
    "candidate_model": "candidate.model",
    "incumbent_host": "incumbent.host",
    "incumbent_provider": "incumbent.provider",
    "incumbent_model": "incumbent.model",
    "effect": "effect",
    "ci_low": "ci_low",
    "ci_high": "ci_high",
    "tolerance": "tolerance",
    "evidence_source": "evidence_source",
    "cost_basis": "cost.basis",
    "cost_claim": "cost.claim",
    "net_saving_per_accepted": "cost.net_saving_per_accepted",
    # A CSV user wants what the JSON says a finding rests on: the rates and the why
    # were in the JSON and the markdown only.
    **{f"rates.{k}": f"rates.{k}" for k in _RATES},
    "newest_evidence": "freshness.newest_evidence",
    "evidence_episodes": "counts.evidence_episodes",
    "actionable": "actionable",
    "command": "command",
    "headline": "headline",
    "why": "why",
}


def _flat_finding_columns(findings: pa.Table) -> list[str]:
    """The findings CSV's columns: those it always had, then every other field of a finding
    by its JSON path, in the JSON's order (``drift_of``, ``counts.pairs``,
    ``freshness.models``, ``episode_ids``): the counts, the method, the freshness, the cost
    totals and the episodes behind a finding were in the JSON only."""
    held = set(_FINDING_COLUMNS.values())
    rest = [
        c.replace("__", ".")
        for c in findings.column_names
        if c not in engine.FINDING_SORT_COLUMNS and c.replace("__", ".") not in held
    ]
    return [*_FINDING_COLUMNS, *rest]


def _flat_findings(findings: pa.Table) -> list[dict[str, Any]]:
    """Each finding as a findings CSV row: a value as the JSON has it (a list as one line of
    JSON, as the CSV writer writes every list), under its column."""
    columns = _flat_finding_columns(findings)
    return [
        {c: row[_FINDING_COLUMNS.get(c, c)] for c in columns} for row in engine.flat_rows(findings)
    ]


@click.group("routes", cls=_RoutesGroup, invoke_without_command=False)
def routes_group() -> None:
    """Evidence-backed route intelligence from operation episodes (JSONL).

    `runscore routes FILE...` is short for `runscore routes report FILE...`.
    """


@routes_group.command("report")
@click.argument("paths", nargs=-1, required=True)
@_policy_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_FORMATS),
    default="markdown",
    show_default=True,
    help="markdown (findings, comparisons, cascades, matrix), json "
    "(everything) or csv (one of them: the findings unless chosen otherwise).",
)
@click.option(
    "--table",
    type=click.Choice(_TABLES),
    default=None,
    help="With --format csv, the table it writes, one row per: finding (findings, the "
    "default), incumbent-candidate pair (comparisons), cheap-first entry route (cascades) "
    "or activity x route (matrix); columns named by their JSON paths (historical.effect).",
)
@click.pass_context
def report_cmd(
    ctx: click.Context, /, paths: tuple[str, ...], fmt: str, table: str | None, **kw: Any
) -> None:
    """Findings, comparisons, cascades and the activity x model matrix for EPISODES.jsonl files."""
    if given(ctx, "table") and fmt != "csv":
        # CSV holds one table; the other formats hold them all, so a --table they would
        # ignore is refused, as every option a command would ignore is.
        raise click.UsageError(
            "--table needs --format csv: the markdown and the JSON hold every table"
        )
    refuse_empty(ctx, "paths")
    refuse_stdin_twice(ctx, "paths")
    rep = engine.analyze(list(paths), _policy(kw), engine.parse_as_of(kw.get("as_of")))
    _report_problems(rep, kw.get("policy_file"))
    data = rep.to_dict()
    if fmt == "json":
        click.echo(output.to_json(data), nl=False)
    elif fmt == "csv" and table in (None, "findings"):
        output.write(
            _flat_findings(rep.findings), "csv", columns=_flat_finding_columns(rep.findings)
        )
    elif fmt == "csv":
        chosen = {"comparisons": rep.comparisons, "cascades": rep.cascades, "matrix": rep.matrix}
        t = chosen[str(table)]
        output.write(
            engine.flat_rows(t), "csv", columns=[c.replace("__", ".") for c in t.column_names]
        )
    else:
        click.echo(routes_markdown(rep), nl=False)
    _exit(ctx, rep)


def routes_markdown(rep: engine.RoutesReport) -> str:
    """The markdown of ``runscore routes report`` (also written by ``runscore nightly``)."""
    data = rep.to_dict()
    for f in data["findings"]:
        f["command_block"] = _command_block(f["command"])
    groups: list[dict[str, Any]] = []
    for f in data["findings"]:
        if not groups or groups[-1]["type"] != f["type"]:
            groups.append({"type": f["type"], "findings": []})
        groups[-1]["findings"].append(f)
    return render.render(
        "routes.md.j2", r=data, groups=groups, rejected=[i.as_dict() for i in rep.problems]
    )


@routes_group.command("export-router-rows")
@click.argument("paths", nargs=-1, required=True)
@_policy_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_ROW_FORMATS),
    default="jsonl",
    show_default=True,
    help="jsonl (one row per line), json or csv.",
)
@click.pass_context
def export_cmd(ctx: click.Context, /, paths: tuple[str, ...], fmt: str, **kw: Any) -> None:
    """Labelled episodes as training rows for an external learned router.

    Each row: what is known before the pick (activity, task fingerprint, features:
    complexity, harness, reasoning effort, source kind, quota pressure), the route picked
    (host, inference provider, its provenance, model), and what the run did, known only
    after it (outcome: tokens, duration, retries, repairs, escalated and the model
    escalated to; quality label, cost and basis), with the route's evidence grade. A
    router picks before the run, so it learns from the first two groups only: the
    outcomes as its inputs would be target leakage. runscore itself is not a learned
    router.
    """
    refuse_empty(ctx, "paths")
    refuse_stdin_twice(ctx, "paths")
    rep = engine.router_rows(list(paths), _policy(kw), engine.parse_as_of(kw.get("as_of")))
    _report_problems(rep, kw.get("policy_file"))
    assert rep.router_rows is not None
    rows = rep.router_rows.to_pylist()
    if fmt == "jsonl":
        click.echo("".join(output.to_json_line(r) for r in rows), nl=False)
    elif fmt == "json":
        click.echo(output.to_json(rows), nl=False)
    else:
        # A cell cannot nest: features and outcome are a column per field, named by its
        # JSON path (features.complexity), as the report's CSV tables are.
        flat = rep.router_rows.flatten()
        output.write(flat, "csv", columns=flat.column_names)
    _exit(ctx, rep)


def register(group: click.Group) -> None:
    """Add this module's commands to the runscore group."""
    group.add_command(routes_group)
