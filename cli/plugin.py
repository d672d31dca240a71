"""CLI commands: ``runscore plugin score`` and ``runscore plugin rank`` (spec plugin-eval.md).

A thin layer: ``runscore.engine.packs.plugin`` scores (features in Python, every
formula in ``sql/plugin/v1``); this module renders markdown / JSON / CSV, writes
``--out`` files and maps the outcome to an exit code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import click
from runscore.cli import output
from runscore.cli.exitcodes import ExitCode
from runscore.cli.options import (
    lock_timeout_option,
    refuse_dash,
    refuse_empty,
    refuse_together,
)
from runscore.cli.render import render
from runscore.engine.history import write_text_output
from runscore.engine.packs import plugin as engine
from runscore.engine.quoting import path as quote_path

FORMATS = ("markdown", "json", "csv")
RANK_FORMATS = ("markdown", "json", "csv", "table")

SUB_CHECKS = (
    "frontmatter_quality",
    "orchestration_wiring",
    "progressive_disclosure",
    "structural_completeness",
    "token_efficiency",
    "ecosystem_coherence",
    "harness_portability",
)
DIMENSIONS = (
    "triggering_accuracy",
    "orchestration_fitness",
    "output_quality",
    "scope_calibration",
    "progressive_disclosure",
    "token_efficiency",
    "robustness",
    "structural_completeness",
    "code_template_quality",
    "ecosystem_coherence",
)
RANK_COLUMNS = (
    "rank",
    "skill",
    "name",
    "composite",
    "grade",
    "badge",
    "elo",
    "elo_ci_low",
    "elo_ci_high",
    "depth",
    "confidence",
    "flags",
)


def _md(template: str, **ctx: Any) -> str:
    """Render a markdown template; exactly one trailing newline whatever the branches."""
    return render(template, **ctx).rstrip("\n") + "\n"


def flat_rows(skills: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per skill (CSV): every score, unmeasured dimensions empty, ``flags``
    the anti-pattern count and ``anti_patterns`` the flags themselves, as the JSON has
    them (``static.flags``, ``anti_patterns``)."""
    rows = []
    for s in skills:
        elo = s["elo"] or {}
        mc = s["mc"] or {}
        judges = s["judges"] or {}
        row: dict[str, Any] = {
            "skill": s["skill"],
            "name": s["name"],
            "path": s["path"],
            "depth": s["depth"],
            "confidence": s["confidence"],
            "composite": s["composite"],
            "grade": s["grade"],
            "badge": s["badge"],
            "elo": elo.get("rating"),
            "elo_ci_low": elo.get("ci_low"),
            "elo_ci_high": elo.get("ci_high"),
            "static_score": s["static"]["score"],
            "penalty": s["static"]["penalty"],
            # A count, as `flags` is in the JSON (`static.flags`) and in `rank`'s every
            # format: it was the flags' names here, one column name meaning two things.
            "flags": s["static"]["flags"],
            # Each flag with its evidence and line, as the JSON's `anti_patterns` (one line
            # of JSON, as every table writes a list): `[]` for none, not an empty cell,
            # which reads as unknown.
            "anti_patterns": s["anti_patterns"],
        }
        for k in SUB_CHECKS:
            row[k] = s["static"]["sub_scores"][k]
        for d in DIMENSIONS:
            dim = s["dimensions"][d]
            row[f"dim_{d}"] = None if dim is None else dim["score"]
        row["mc_score"] = mc.get("mc_score")
        row["activation_rate"] = mc.get("activation_rate")
        row["failure_rate"] = mc.get("failure_rate")
        row["judges"] = judges.get("count")
        row["kappa"] = judges.get("kappa")
        row["line_count"] = s["line_count"]
        rows.append(row)
    return rows


def render_skill(
    skill: dict[str, Any],
    weights: dict[str, float],
    rank: int | None = None,
    cuts: Sequence[float] = (),
    elo_cuts: Sequence[float] = (),
) -> str:
    return _md(
        "plugin_skill.md.j2",
        s=skill,
        rank=rank,
        sub_checks=SUB_CHECKS,
        dims=DIMENSIONS,
        weights=weights,
        **_cuts(cuts, elo_cuts),
    )


def _cuts(cuts: Sequence[float], elo_cuts: Sequence[float]) -> dict[str, list[float]]:
    """The grade cut-offs for a 0–100 composite, for a 0–1 dimension score (graded as
    score × 100) and the badges' for an Elo rating, and the ends of a 0–1 score that is not
    graded (a sub-check): what the templates write a value apart from (the ``vs``
    filter), so 0.9996 never reads "1.00", a perfect score."""
    return {
        "cuts": list(cuts),
        "dim_cuts": [c / 100 for c in cuts],
        "elo_cuts": list(elo_cuts),
        "unit_ends": [0.0, 1.0],
    }


def table_writers(cuts: Sequence[float], elo_cuts: Sequence[float]) -> output.CellWriters:
    """The ranking's ``--format table`` cells judged against a cut-off, written apart from
    it as the markdown table writes them (``fmt_vs``), at the table's 4 decimals: a
    composite of 89.99996 is not "90.0000" (A-), nor 99.99996 "100.0000", nor an Elo of
    1399.99996 Silver's "1400.0000"."""

    def apart(bounds: Sequence[float]) -> Callable[[Any], str]:
        at = list(bounds)
        return lambda v: output.fmt_vs(v, at, 4)

    score, elo = apart(cuts), apart(elo_cuts)
    return {"composite": score, "elo": elo, "elo_ci_low": elo, "elo_ci_high": elo}


def shared_skills(ranking: Sequence[dict[str, Any]]) -> set[str]:
    """Relative skill paths that two or more ranked skills share (``x/a`` and ``y/a`` are
    both ``a``): the ranking table names those by their folder path, or its rows could not
    be told apart."""
    seen: set[str] = set()
    shared: set[str] = set()
    for r in ranking:
        (shared if r["skill"] in seen else seen).add(r["skill"])
    return shared


def render_report(result: engine.PluginResult) -> str:
    skills = result.skills()
    ranking = result.ranking.to_pylist()
    by_key = {(s["skill"], s["path"]): s for s in skills}
    ordered = [(r["rank"], by_key[(r["skill"], r["path"])]) for r in ranking]
    return _md(
        "plugin.md.j2",
        ranking=ranking,
        shared=shared_skills(ranking),
        skills=ordered,
        issues=result.issues,
        sub_checks=SUB_CHECKS,
        dims=DIMENSIONS,
        weights=result.dimension_weights,
        scoring_version=engine.SCORING_VERSION,
        **_cuts(result.score_cuts, result.elo_cuts),
    )


def write_out(result: engine.PluginResult, out_dir: str, fmt: str) -> list[str]:
    """Write the report into ``out_dir``; markdown also gets one file per skill. Each as an
    output file is written (``write_text_output``: into a FIFO, never through a symlink),
    at the names ``engine.report_names`` gives, every one checked before the first is
    written (``engine.refuse_report_paths``)."""
    # The result and the format first: a list of formats was refused only once the
    # folder had been probed.
    names = engine.report_names(result, fmt)
    engine.refuse_report_paths(result, out_dir, fmt)
    return _write_reports(result, out_dir, fmt, names)


def _write_reports(
    result: engine.PluginResult, out_dir: str, fmt: str, names: list[str]
) -> list[str]:
    """``write_out`` without its check: for ``plugin score``, whose folder the engine
    checked (``engine.score(out_dir=)``), every name included."""
    paths = [os.path.join(out_dir, *name.split("/")) for name in names]
    os.makedirs(out_dir, exist_ok=True)
    if fmt == "json":
        write_text_output(paths[0], output.to_json(result.skills()), about=engine.OUT_DIR)
    elif fmt == "csv":
        write_text_output(paths[0], output.to_csv(flat_rows(result.skills())), about=engine.OUT_DIR)
    else:
        write_text_output(paths[0], render_report(result), about=engine.OUT_DIR)
        ranks = {(r["skill"], r["path"]): r["rank"] for r in result.ranking.to_pylist()}
        for s, p in zip(result.skills(), paths[1:], strict=True):
            os.makedirs(os.path.dirname(p), exist_ok=True)
            write_text_output(
                p,
                render_skill(
                    s,
                    result.dimension_weights,
                    ranks.get((s["skill"], s["path"])),
                    result.score_cuts,
                    result.elo_cuts,
                ),
                about=engine.OUT_DIR,
            )
    return paths


def _notes(result: engine.PluginResult) -> None:
    for i in result.issues:
        output.note(f"{i.location()}: {i.reason}")
    for w in result.warnings:
        output.note(f"warning: {w.location()}: {w.reason}")


def _inputs(f: Any) -> Any:
    """The options both commands share."""
    f = click.option(
        "--matchups",
        metavar="FILE",
        multiple=True,
        type=click.Path(dir_okay=False),
        help='Pairwise matchups JSONL, one line per comparison: {"skill", "opponent", '
        '"opponent_elo", "result": "win|loss|draw"}, in order. Gives each skill an Elo '
        "rating with a bootstrap 95% interval. Repeatable: the files' lines in the order "
        "given.",
    )(f)
    f = click.option(
        "--mc",
        metavar="FILE",
        multiple=True,
        type=click.Path(dir_okay=False),
        help='Monte Carlo runs JSONL, one line per simulated invocation: {"skill", '
        '"activated", "quality_score", "tokens", "errored"}. With --judge, raises depth to deep. '
        "Repeatable: every file's runs count.",
    )(f)
    f = click.option(
        "--judge",
        metavar="FILE",
        multiple=True,
        type=click.Path(dir_okay=False),
        help='LLM-judge results JSONL, one line per skill per judge: {"skill", "judge", '
        '"scores": {triggering_accuracy, orchestration_fitness, output_quality, '
        "scope_calibration}}. Raises depth to standard. Repeatable (a file per judge, say): "
        "the files' lines in the order given.",
    )(f)
    return f


def register(group: click.Group) -> None:
    """Add this module's commands to the runscore group."""

    @group.group("plugin")
    def plugin_group() -> None:
        """Score and rank agent skills (folders with a SKILL.md).

        The static layer reproduces PluginEval's static analyser; judge, Monte
        Carlo and matchup results are ingested from JSONL. A `skill` field in
        those files names a skill by its folder path, its path relative to the
        ROOT (either may end in /SKILL.md, or be spelled ./s or s/), or its name
        (the first that matches exactly one skill).
        """

    @plugin_group.command("score")
    @click.argument("roots", nargs=-1, required=True, type=click.Path())
    @_inputs
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="markdown",
        show_default=True,
        help="Report format: markdown (per-skill report + ranking), json (one object per "
        "skill, every number) or csv (one flat row per skill).",
    )
    @click.option(
        "--out",
        "out_dir",
        # No check here: the engine checks the folder, once (engine.score's out_dir), a
        # folder it cannot list included, in the words of its other refusals of one.
        type=click.Path(readable=False),
        metavar="DIR",
        help="Write the report into this directory (plugin-report.md|json|csv; markdown "
        "also skills/<skill>.md per skill) instead of stdout.",
    )
    @click.option(
        "--history",
        "history_path",
        default=engine.DEFAULT_HISTORY,
        show_default=True,
        help="Plugin history JSONL, appended to (one record per skill, idempotent per "
        "skill, scoring version and content hash).",
    )
    @click.option("--no-history", is_flag=True, help="Do not append results to the history.")
    @lock_timeout_option()
    @click.pass_context
    def score_cmd(
        ctx: click.Context,
        roots: tuple[str, ...],
        judge: tuple[str, ...],
        mc: tuple[str, ...],
        matchups: tuple[str, ...],
        fmt: str,
        out_dir: str | None,
        history_path: str,
        no_history: bool,
        lock_timeout: float,
    ) -> None:
        """Score every skill folder (a folder holding SKILL.md) under the ROOTs.

        A ROOT may also be a skill's SKILL.md: that one skill, scored as if its
        folder were given (skills nested in the folder are not).

        Per skill: the static sub-checks, anti-patterns with their evidence,
        dimension scores and grades (— when unmeasured), depth and confidence,
        composite, grade, badge, Elo, and the three weakest weighted dimensions
        with a tip each; then a ranking over all skills. Exit code 1 when a
        skill or an input line could not be used (each is reported on stderr); 4
        when another process holds the history's lock for longer than --lock-timeout
        (no report is written then).
        """
        # The command line's own mistakes (an empty path, --out -, options that cannot go
        # together) before any path is looked at (README): an empty --judge was said only
        # after --out's folder was checked, so `--out nf --judge ""` named the folder.
        refuse_empty(ctx, "roots")
        refuse_empty(ctx, "judge", "mc", "matchups", kind="file")
        # os.path.join("", name) is name: scored, then the folder "" could not be made.
        refuse_empty(ctx, "out_dir", kind="folder")
        refuse_dash(ctx, "out_dir", "the report is written to a folder", "folder")
        refuse_together(ctx, "history_path", "no_history", "--no-history appends to none")
        refuse_together(
            ctx, "lock_timeout", "no_history", "with no history there is no lock to wait for"
        )
        # --out is checked there, once: before anything is read or written (a --judge,
        # --mc or --matchups file named as a report in it, a symlink there, a report that
        # lands in a scored skill's folder), and by the reports' exact names before the
        # history is appended.
        result = engine.score(
            list(roots),
            judge=list(judge),
            mc=list(mc),
            matchups=list(matchups),
            history_path=None if no_history else history_path,
            lock_timeout=lock_timeout,
            out_dir=out_dir,
            out_format=fmt,
        )
        _notes(result)
        if out_dir is not None:
            written = _write_reports(result, out_dir, fmt, engine.report_names(result, fmt))
            output.note(f"wrote {len(written)} file(s) to {quote_path(out_dir)}")
        elif fmt == "markdown":
            click.echo(render_report(result), nl=False)
        elif fmt == "json":
            click.echo(output.to_json(result.skills()), nl=False)
        else:
            click.echo(output.to_csv(flat_rows(result.skills())), nl=False)
        output.note(f"scored {result.report.num_rows} skill(s)")
        if result.history_path is not None:
            output.note(
                f"history {quote_path(result.history_path)}: {result.history_written} new record(s)"
                + (f", {result.history_skipped} already recorded" if result.history_skipped else "")
            )
        ctx.exit(ExitCode.PARTIAL if result.issues else ExitCode.OK)

    @plugin_group.command("rank")
    @click.argument("roots", nargs=-1, required=True, type=click.Path())
    @_inputs
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(RANK_FORMATS),
        default="markdown",
        show_default=True,
        help="Output format of the ranking table.",
    )
    @click.pass_context
    def rank_cmd(
        ctx: click.Context,
        roots: tuple[str, ...],
        judge: tuple[str, ...],
        mc: tuple[str, ...],
        matchups: tuple[str, ...],
        fmt: str,
    ) -> None:
        """Rank every skill under the ROOTs: composite (best first), then Elo.

        A ROOT may also be a skill's SKILL.md, naming that one skill.

        Scores like `plugin score` but prints only the ranking table and writes
        no history.
        """
        refuse_empty(ctx, "roots")
        result = engine.rank(list(roots), judge=list(judge), mc=list(mc), matchups=list(matchups))
        _notes(result)
        ranking = result.ranking.to_pylist()
        if fmt == "markdown":
            click.echo(
                _md(
                    "plugin_rank.md.j2",
                    ranking=ranking,
                    shared=shared_skills(ranking),
                    **_cuts(result.score_cuts, result.elo_cuts),
                ),
                nl=False,
            )
        else:
            # csv is data, as json is: every field json has (path tells apart skills that
            # share a relative name under two roots); the table for eyes leaves path out
            # unless two of its rows would read alike without it.
            columns: Sequence[str] | None = None
            writers: output.CellWriters | None = None
            if fmt == "table":
                columns = RANK_COLUMNS
                if shared_skills(ranking):
                    at = RANK_COLUMNS.index("skill") + 1
                    columns = (*RANK_COLUMNS[:at], "path", *RANK_COLUMNS[at:])
                writers = table_writers(result.score_cuts, result.elo_cuts)
            output.write(result.ranking, fmt, columns=columns, writers=writers)
        ctx.exit(ExitCode.PARTIAL if result.issues else ExitCode.OK)
