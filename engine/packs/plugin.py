"""Plugin pack (spec plugin-eval.md): score agent skills (folders with a SKILL.md).

Python orchestrates, SQL scores. The flow:

1. ``plugin_features.scan`` finds every skill folder under the roots and reduces each
   SKILL.md to raw features (counts, regex flags, located links and cross-references);
   they enter DuckDB as Arrow tables ``plugin_features``, ``plugin_links``,
   ``plugin_xrefs``. An unreadable or non-UTF-8 SKILL.md is reported, never fatal.
2. ``sources.read_jsonl`` reads the optional judge / Monte Carlo / matchup JSONL into
   ``plugin_judge_in``, ``plugin_mc_in``, ``plugin_matchups_in`` (raw JSON columns).
3. ``sql/plugin/v1/000``–``299``: policy, static sub-checks, anti-patterns, the
   static score, judge means and kappa, Monte Carlo run counts.
4. Python computes the exact Clopper–Pearson bounds (``stats.clopper_pearson``, at the
   confidence level SQL declares) for each distinct (errored, failure_n) into ``plugin_cp``.
5. ``300``–``699``: Monte Carlo statistics, Elo with its bootstrap interval, blending,
   composite, grade, depth, badge, tips, the per-skill report and the ranking.
6. ``700``–``799`` (under the history lock): history records and which are new.

The markdown report is the CLI's business; ``PluginResult`` carries everything.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "evaluate",
    "score",
    "rank",
    "PluginResult",
    "NoLines",
    "refuse_inputs_written",
    "refuse_report_paths",
    "report_names",
    "report_patterns",
    "DEFAULT_HISTORY",
    "OUT_DIR",
    "SCORING_VERSION",
]

import contextlib
import datetime as dt
import glob
import inspect
import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from runscore.engine import (
    db,
    duck,
    filenames,
    history,
    plugin_features,
    sources,
    sqlpack,
    stats,
)
from runscore.engine.duck import duckdb
from runscore.engine.errors import Arg, NothingReadable, UsageError
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue, SourceFile

PACK = "plugin"
VERSION = "v1"
SCORING_VERSION = f"{PACK}/{VERSION}"
#: The version of the shared SQL (``sql/common``) this version's files call: ``rs_quote``,
#: the quote of an input value in a message, the same in every pack (one definition).
COMMON_VERSION = "v1"
DEFAULT_HISTORY = os.path.join(".archeflow", "memory", "plugins.jsonl")
#: ``history_path`` (``--history``), as a wrong-typed one is named (``sources.one_path``).
HISTORY_PATH = Arg("history_path", "--history")
ROOTS = Arg("roots", "ROOTS")
#: The optional inputs, as their messages name them.
JUDGE = Arg("judge", "--judge")
MC = Arg("mc", "--mc")
MATCHUPS = Arg("matchups", "--matchups")
#: The report folder (``plugin score --out``, ``score``'s ``out_dir``).
OUT_DIR = Arg("out_dir", "--out")
#: ``now``: a call's fixed clock, which no option gives.
NOW = Arg("now", "now")
#: ``out_format`` of ``score`` (the formats its ``out_dir`` is checked for) and ``fmt``
#: of ``report_names``: ``plugin score --format``.
OUT_FORMAT = Arg("out_format", "--format")
FMT = Arg("fmt", "--format")

JUDGE_COLUMNS = {"skill": "JSON", "judge": "JSON", "scores": "JSON"}
MC_COLUMNS = {
    "skill": "JSON",
    "activated": "JSON",
    "quality_score": "JSON",
    "tokens": "JSON",
    "errored": "JSON",
}
MATCHUP_COLUMNS = {"skill": "JSON", "opponent": "JSON", "opponent_elo": "JSON", "result": "JSON"}
#: The keys read from each object of a line, by JSON path: a line that gives one of them
#: twice is rejected (``sources.read_jsonl``'s ``unique_keys``). A judge line's ``scores``
#: are read for the dimensions judges score (``_judge_keys``); any other key is ignored,
#: with a warning that its value does not change.
MC_KEYS: dict[str, tuple[str, ...] | None] = {"$": tuple(MC_COLUMNS)}
MATCHUP_KEYS: dict[str, tuple[str, ...] | None] = {"$": tuple(MATCHUP_COLUMNS)}
HISTORY_KEY_COLUMNS = {"skill": "JSON", "scoring_version": "JSON", "content_hash": "JSON"}
#: A history line that gives one of its key fields twice is skipped with a warning, as a
#: line that is not JSON is: which skill or hash it records cannot be known, so the
#: record it may be is appended again rather than taken as there.
HISTORY_KEYS: dict[str, tuple[str, ...] | None] = {"$": tuple(HISTORY_KEY_COLUMNS)}

_SCORE_STAGE = (0, 299)
_REPORT_STAGE = (300, 699)
_HISTORY_STAGE = (700, 799)

#: Internal columns of plugin_report that are not part of the JSON contract.
_INTERNAL = ("seq", "sid")


@dataclass
class PluginResult:
    #: one row per scored skill, discovery order: the JSON contract (see sql 600)
    report: pa.Table
    #: one row per skill, best first (sql 600)
    ranking: pa.Table
    #: rejected input: skills not scored (unreadable SKILL.md, roots without skills) and
    #: judge / Monte Carlo / matchup lines not used, with file, line and reason
    issues: list[LineIssue] = field(default_factory=list)
    #: scored anyway, but worth knowing (odd frontmatter, unreadable history lines)
    warnings: list[LineIssue] = field(default_factory=list)
    #: composite weight per dimension, in dimension order (sql 010)
    dimension_weights: dict[str, float] = field(default_factory=dict)
    #: the cut-offs a 0–100 composite is graded and badged by (sql 010: grades and badges'
    #: minimum composites) and the scale's ends (100 reads as perfect), for reports that
    #: print a score beside its grade apart from them
    score_cuts: list[float] = field(default_factory=list)
    #: the badges' minimum Elo ratings (sql 010), for reports that print a rating beside its
    #: badge apart from them: 1499.96 under Gold's 1500 is not "1500.0"
    elo_cuts: list[float] = field(default_factory=list)
    history_path: str | None = None
    history_written: int = 0
    history_skipped: int = 0
    #: the skills whose records were appended, in that order (the nightly job's journal
    #: names them)
    history_written_skills: list[str] = field(default_factory=list)

    def skills(self) -> list[dict[str, Any]]:
        """The report as plain dicts (the JSON array of ``plugin score --format json``)."""
        rows: list[dict[str, Any]] = self.report.to_pylist()
        return rows


@dataclass(frozen=True)
class NoLines(LineIssue):
    """A warning of a judge, Monte Carlo or matchup file that holds no line. ``reason`` is
    ``plugin score``'s (``empty (no judge results); scored without --judge``); ``held``
    the same without the option (``empty (no judge results)``), and ``unused`` what the
    skills were scored without (``judge results``), None beside another file of the option
    that holds lines: for a caller without those options (the nightly job) to word it."""

    held: str = ""
    unused: str | None = None


def _load_arrow(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    duck.register(con, "_plugin_arrow", table)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM _plugin_arrow")
    con.unregister("_plugin_arrow")


def _read_input(
    con: duckdb.DuckDBPyConnection,
    paths: list[str],
    table: str,
    columns: dict[str, str],
    option: Arg,
    unique_keys: dict[str, tuple[str, ...] | None],
    what: str,
    warnings: list[LineIssue],
) -> list[LineIssue]:
    """Read an optional JSONL input given as any number of files, in the order given (the
    rows' ``_ord``, which orders them for SQL: a later file's line is a later line); a
    missing file is a usage error, bad lines (one giving a key of ``unique_keys`` twice
    too) are issues with their own file and line. A file that holds no line (empty, or
    blank lines only) of ``what`` is a warning in ``warnings``."""
    if not paths:
        sources.read_jsonl(con, [], table, columns)
        return []
    for path in paths:
        history.require_path(path, option)
        if not os.path.exists(path):
            raise UsageError(option, f" {quote_path(path)}: no such file")
    files, problems = sources.discover(paths)
    if problems:
        raise UsageError(option, f" {problems[0].location()}: {problems[0].reason}")
    for f in files:
        sources.prescan(f)
    res = sources.read_jsonl(con, files, table, columns, unique_keys=unique_keys)
    issues = list(res.skipped)
    issues.extend(LineIssue(f.display, 0, f.error or "unreadable") for f in res.unreadable)
    # A file given that holds nothing was scored as if not given, without a word: a judge
    # step that wrote nothing left every skill at depth quick and exit 0. The skills were
    # read, so it is not nothing read (exit 3), and no line was rejected (exit 1). Said
    # of each such file, beside others that hold lines too.
    said = {i.file for i in issues}
    with_rows = {str(r[0]) for r in con.execute(f"SELECT DISTINCT _file FROM {table}").fetchall()}
    # Worded as `plugin score` says it; the parts apart (NoLines) for the nightly job, whose
    # run log named plugin score's --judge, an option the job has not.
    unused = None if with_rows or said else what
    warnings.extend(
        NoLines(
            f.display,
            0,
            sources.no_lines_reason(f, what)
            + ("" if unused is None else f"; scored without {option.option}"),
            sources.no_lines_reason(f, what),
            unused,
        )
        for f in res.files
        if f.error is None and f.display not in said and f.display not in with_rows
    )
    return issues


def _judge_keys(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...] | None]:
    """The keys read from a judge line, by JSON path: its fields, and in ``scores`` the
    dimensions judges score (the input-free policy file's ``plugin_dimensions``)."""
    sqlpack.execute(con, sqlpack.load(PACK, VERSION, "policy"))
    judged = con.execute(
        "SELECT dimension FROM plugin_dimensions WHERE judge_feeds ORDER BY ord"
    ).fetchall()
    return {"$": tuple(JUDGE_COLUMNS), "$.scores": tuple(str(d) for (d,) in judged)}


def _path_keys(con: duckdb.DuckDBPyConnection, features: pa.Table) -> pa.Table:
    """(key, path): input ``skill`` values that name a scored skill's folder as a path.

    However either was spelled: relative to another folder than the root, absolute,
    with ``./``, a trailing slash or ``..``, or as the path of its SKILL.md (both sides
    made absolute and normalised, against this process's working directory, which the
    roots are relative to too).
    ``020_skill_keys.sql`` matches these as it matches the folder as found.
    """
    keys = [
        str(r[0])
        for r in con.execute(
            "SELECT DISTINCT skill ->> '$' FROM ("
            "SELECT skill FROM plugin_judge_in UNION ALL SELECT skill FROM plugin_mc_in "
            "UNION ALL SELECT skill FROM plugin_matchups_in) "
            "WHERE json_type(skill) = 'VARCHAR' AND skill ->> '$' <> ''"
        ).fetchall()
    ]
    by_abs: dict[str, list[str]] = {}
    for path in features.column("path").to_pylist():
        by_abs.setdefault(os.path.normpath(os.path.abspath(str(path))), []).append(str(path))
    pairs = []
    for k in keys:
        a = os.path.normpath(os.path.abspath(k))
        # The skill's SKILL.md names its folder too (it is what `find -name SKILL.md` lists).
        folders = (
            [a, os.path.dirname(a)] if os.path.basename(a) == plugin_features.SKILL_FILE else [a]
        )
        pairs += [(k, p) for f in folders for p in by_abs.get(f, [])]
    return pa.table(
        {
            "key": pa.array([k for k, _ in pairs], pa.string()),
            "path": pa.array([p for _, p in pairs], pa.string()),
        }
    )


def _relative_keys(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """(key, skill): input ``skill`` values that are a path relative to a root spelled
    otherwise than the skill's (``s/``, as a shell completes a folder, ``./s``, ``s/./``),
    each with that path normalised (its ``/SKILL.md`` kept: 020 takes that form too).
    ``020_skill_keys.sql`` matches these as it matches the path relative to the root."""
    keys = con.execute(
        "SELECT DISTINCT skill ->> '$' FROM ("
        "SELECT skill FROM plugin_judge_in UNION ALL SELECT skill FROM plugin_mc_in "
        "UNION ALL SELECT skill FROM plugin_matchups_in) "
        "WHERE json_type(skill) = 'VARCHAR' AND skill ->> '$' <> ''"
    ).fetchall()
    pairs = [
        (str(k), posixpath.normpath(str(k)))
        for (k,) in keys
        if not posixpath.isabs(str(k)) and posixpath.normpath(str(k)) not in (str(k), ".")
    ]
    return pa.table(
        {
            "key": pa.array([k for k, _ in pairs], pa.string()),
            "skill": pa.array([n for _, n in pairs], pa.string()),
        }
    )


def _clopper_pearson_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """Exact intervals for every distinct (errored, runs that said) pair SQL counted; none
    for a skill none of whose runs said whether it errored (its failure rate is unknown)."""
    level = float(con.execute("SELECT cp_confidence FROM plugin_params").fetchall()[0][0])
    pairs = con.execute(
        "SELECT DISTINCT n_errored, failure_n FROM plugin_mc_counts WHERE failure_n > 0"
    ).fetchall()
    ks, ns, lows, highs = [], [], [], []
    for k, n in pairs:
        lo, hi = stats.clopper_pearson(int(k), int(n), level)
        ks.append(int(k))
        ns.append(int(n))
        lows.append(lo)
        highs.append(hi)
    return pa.table(
        {
            "k": pa.array(ks, pa.int64()),
            "n": pa.array(ns, pa.int64()),
            "lower": pa.array(lows, pa.float64()),
            "upper": pa.array(highs, pa.float64()),
        }
    )


def evaluate(
    roots: sources.Paths,
    *,
    judge: sources.Paths | None = None,
    mc: sources.Paths | None = None,
    matchups: sources.Paths | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> tuple[PluginResult, duckdb.DuckDBPyConnection]:
    """Score every skill under ``roots``; returns the result and the open connection.

    ``judge``, ``mc`` and ``matchups`` each take one file or a list of them, read in the
    order given, as one file holding their lines one after the other."""
    con = sources.connection_arg(con, Arg("con", "con"))
    roots = sources.input_paths(roots, ROOTS)
    judges, mcs, matchup_files = (
        [] if p is None else sources.input_paths(p, name, "file")
        for p, name in ((judge, JUDGE), (mc, MC), (matchups, MATCHUPS))
    )
    if not roots:
        raise UsageError(
            "give at least one ",
            Arg("roots", "ROOT folder", "folder in roots"),
            " to search for skills",
        )
    scan = plugin_features.scan(roots)
    if scan.features.num_rows == 0:
        # Listed as every reader lists them: a line break in a root's name escaped, or a
        # root named "a\n  b" read as two.
        raise NothingReadable(
            "no skill could be scored:\n" + sources.listed(scan.issues),
            [(i.file, i.line, i.reason) for i in scan.issues],
            about=ROOTS,
        )
    con = con or db.connect()
    _load_arrow(con, "plugin_features", scan.features)
    _load_arrow(con, "plugin_links", scan.links)
    _load_arrow(con, "plugin_xrefs", scan.xrefs)

    issues = list(scan.issues)
    empty: list[LineIssue] = []
    issues += _read_input(
        con,
        judges,
        "plugin_judge_in",
        JUDGE_COLUMNS,
        JUDGE,
        _judge_keys(con),
        "judge results",
        empty,
    )
    issues += _read_input(
        con, mcs, "plugin_mc_in", MC_COLUMNS, MC, MC_KEYS, "Monte Carlo runs", empty
    )
    issues += _read_input(
        con,
        matchup_files,
        "plugin_matchups_in",
        MATCHUP_COLUMNS,
        MATCHUPS,
        MATCHUP_KEYS,
        "matchups",
        empty,
    )
    _load_arrow(con, "plugin_path_keys", _path_keys(con, scan.features))
    _load_arrow(con, "plugin_relative_keys", _relative_keys(con))

    sqlpack.run_common(con, COMMON_VERSION)  # rs_quote: 020's and 200's messages
    sqlpack.run_range(con, PACK, VERSION, *_SCORE_STAGE)
    _load_arrow(con, "plugin_cp", _clopper_pearson_table(con))
    sqlpack.run_range(con, PACK, VERSION, *_REPORT_STAGE)

    issues += [
        LineIssue(str(f), int(ln), str(r))
        for f, ln, r in con.execute(
            "SELECT file, line, reason FROM plugin_input_issues ORDER BY file, line, reason"
        ).fetchall()
    ]
    warnings = [
        *scan.warnings,
        *empty,
        *(
            LineIssue(str(f), int(ln), str(r))
            for f, ln, r in con.execute(
                "SELECT file, line, reason FROM plugin_input_warnings ORDER BY file, line, reason"
            ).fetchall()
        ),
    ]
    report = duck.sql(con, "SELECT * FROM plugin_report ORDER BY seq").to_arrow_table()
    ranking = duck.sql(
        con, "SELECT * EXCLUDE (sid) FROM plugin_ranking ORDER BY rank, skill, path"
    ).to_arrow_table()
    weights = con.execute("SELECT dimension, weight FROM plugin_dimensions ORDER BY ord").fetchall()
    cuts = con.execute(
        "SELECT DISTINCT c FROM (SELECT min_score AS c FROM plugin_grade_cut "
        "UNION ALL SELECT min_composite FROM plugin_badges) WHERE c IS NOT NULL ORDER BY c DESC"
    ).fetchall()
    elo_cuts = con.execute(
        "SELECT DISTINCT min_elo FROM plugin_badges WHERE min_elo IS NOT NULL ORDER BY 1 DESC"
    ).fetchall()
    result = PluginResult(
        report=report.drop_columns(list(_INTERNAL)),
        ranking=ranking,
        issues=sorted(issues, key=lambda i: (i.file, i.line, i.reason)),
        warnings=warnings,
        dimension_weights={str(d): float(w) for d, w in weights},
        score_cuts=sorted({0.0, 100.0, *(float(c) for (c,) in cuts)}, reverse=True),
        elo_cuts=[float(c) for (c,) in elo_cuts],
    )
    return result, con


def score(
    roots: sources.Paths,
    *,
    judge: sources.Paths | None = None,
    mc: sources.Paths | None = None,
    matchups: sources.Paths | None = None,
    history_path: str | os.PathLike[str] | None = DEFAULT_HISTORY,
    now: dt.datetime | dt.date | str | None = None,
    lock_timeout: float | None = 300.0,
    out_dir: str | os.PathLike[str] | None = None,
    out_format: str | Sequence[str] = "markdown",
) -> PluginResult:
    """Score the skills and append new records to the history (``history_path`` None: don't).

    ``now``: the records' ``scored_at`` (default: the clock), a ``datetime`` (naive: UTC),
    a ``date`` (its 00:00 UTC) or ISO text.

    ``out_dir``: the folder the caller writes the reports into (``plugin score --out``), in
    ``out_format`` (one of ``markdown``, ``json``, ``csv``, or a list of them): before
    anything is read or written, what ``refuse_inputs_written`` refuses at the names of
    ``report_patterns`` (an input or a skill's folder there too); once the skills are
    scored, and before the history is appended, every report's exact path
    (``report_names``, as ``refuse_report_paths`` checks them), so that a report that could
    not be written is a ``UsageError`` with the history as it was. Nothing is written there.

    Columns of ``report``, one row per scored skill in discovery order (sql 600; the JSON
    of ``plugin score``):

    - ``skill``: the skill folder, relative to its root
    - ``name``: its display name: the frontmatter's name, else the folder's
    - ``path``: the skill folder as found (the root joined)
    - ``static``: the static score, its sub-check scores, penalty and flags
    - ``anti_patterns``: each anti-pattern found, with its target, line and evidence
    - ``dimensions``: each dimension's score and grade (null: unmeasured)
    - ``depth``: quick, standard (judged) or deep (judged and Monte Carlo runs)
    - ``confidence``: the depth's label (Estimated, Assessed, Certified)
    - ``composite``: the 0-100 composite
    - ``grade``: its letter grade
    - ``badge``: its badge
    - ``elo``: the Elo rating, its interval and matchups (null: no matchup)
    - ``mc``: the Monte Carlo statistics (null: no run)
    - ``judges``: the judges' count, kappa and pairs (null: no judge)
    - ``tips``: the dimensions to work on first, with their tips
    - ``line_count``: lines of its SKILL.md
    - ``content_sha256``: the SKILL.md's hash
    - ``scoring_version``: ``plugin/v1``

    Columns of ``ranking``, one row per skill, best first (composite, then Elo):

    - ``rank``: its place (skills that tie share one)
    - ``skill``: the skill folder, relative to its root
    - ``name``: its display name
    - ``path``: the skill folder as found
    - ``composite``: the 0-100 composite
    - ``grade``: its letter grade
    - ``badge``: its badge
    - ``elo``: the Elo rating (null: no matchup)
    - ``elo_ci_low``: its interval's low bound
    - ``elo_ci_high``: its high bound
    - ``depth``: quick, standard or deep
    - ``confidence``: the depth's label
    - ``flags``: the static checks' flags
    """
    # A path to write that cannot be written is a usage error (exit 2), said before
    # scoring anything, as `extract` says it.
    lock_timeout = history.lock_timeout(lock_timeout)
    stamp = sources.time_arg(now, NOW)
    # Checked without out_dir too: a format no report has is a mistake however it came.
    formats = _formats(out_format, OUT_FORMAT)
    out: str | None = None
    if out_dir is not None:
        out = sources.one_path(out_dir, OUT_DIR, "folder")
        history.require_path(out, OUT_DIR, "folder")
    if history_path is not None:
        history_path = sources.one_path(history_path, HISTORY_PATH)
        # A name no history can have (empty, not UTF-8) is a mistake of the arguments,
        # said before any path is looked at: after --out's folder, a `--out nf
        # --history ""` was said as the folder's mistake, the history's after it was fixed.
        history.require_utf8_name(history_path, about=HISTORY_PATH)
    if out is not None:
        # The one check of the folder, the command's too: before anything is read, what
        # the reports' names say before the skills are found (a folder that takes no file,
        # a symlink at a name, an input or a skill's folder there); once they are scored,
        # their exact names (below).
        refuse_inputs_written(
            out,
            [p for f in formats for p in report_patterns(f)],
            roots=roots,
            judge=judge,
            mc=mc,
            matchups=matchups,
        )
    if history_path is not None:
        # its lock file too, as `pipeline` checks
        history.check_writable(history_path, HISTORY_PATH)
        # Appended to, an input file's next read takes the records for broken lines.
        for given, inputs, what in _inputs(judge, mc, matchups):
            sources.refuse_an_input(
                history_path, inputs, what, "the score", given, HISTORY_PATH, stdin=False
            )
        _refuse_a_skill_file(history_path, roots)
    result, con = evaluate(roots, judge=judge, mc=mc, matchups=matchups)
    try:
        if out is not None:
            # The reports' names are known only now (a file per skill found). Found at
            # its own write, a report that could not be written left the history appended
            # and the reports before it written. The folder was probed above.
            _refuse_report_names(result, out, formats, probe=False)
        if history_path is not None:
            _append_history(con, result, history_path, now=stamp, lock_timeout=lock_timeout)
    finally:
        con.close()
    return result


def _inputs(
    judge: sources.Paths | None, mc: sources.Paths | None, matchups: sources.Paths | None
) -> tuple[tuple[Arg, sources.Paths | None, str], ...]:
    """The input files, each with its argument and what the messages call it."""
    return (
        (JUDGE, judge, "judge file"),
        (MC, mc, "Monte Carlo file"),
        (MATCHUPS, matchups, "matchups file"),
    )


#: Where ``plugin score --out DIR`` writes, by ``--format``.
_REPORTS = {
    "markdown": ("plugin-report.md", "skills/*.md"),
    "json": ("plugin-report.json",),
    "csv": ("plugin-report.csv",),
}


def report_patterns(fmt: str) -> list[str]:
    """The names ``plugin score --out`` writes into its folder in ``fmt`` (markdown: a
    file per skill under ``skills/``, by a name only the skills found say)."""
    # A name it does not know was a bare KeyError (a list a TypeError), not the usage
    # error every other function taking a format raises.
    return list(_REPORTS[_format(fmt, FMT)])


def _format(fmt: object, what: Arg) -> str:
    if isinstance(fmt, str) and fmt in _REPORTS:
        return fmt
    shown = quote(fmt) if isinstance(fmt, str) else sources.type_name(fmt)
    raise UsageError(what, f" must be one of {', '.join(_REPORTS)}, not {shown}")


def _formats(formats: object, what: Arg) -> list[str]:
    """One format or a list of them (a str is a sequence too: each of its letters was
    taken for a format)."""
    if isinstance(formats, str) or not isinstance(formats, Sequence):
        return [_format(formats, what)]
    return [_format(f, what) for f in formats]


#: A skill's file name under ``skills/`` is cut to this many bytes of UTF-8 (with
#: ``-N.md`` after it, well inside the 255 bytes a file system allows).
_SLUG_BYTES = 180


def _slug(skill: str) -> str:
    """A skill's file name (without ``.md``): its path with ``/`` as ``__``, the letters,
    digits and marks of every script kept (``filenames.keep_letters``: any other run of
    characters but ``.``, ``_`` or ``-`` is one ``_``), no leading ``.``, ``_`` or ``-``
    nor trailing ``.`` or ``_``, at most ``_SLUG_BYTES`` bytes, ``skill`` if nothing is
    left. A name Windows reserves for a device (``CON``, ``nul``, ``COM1``, ``LPT9``, any
    case, any extension) gets a ``_`` after it (``CON_``, ``nul_.x``), and so does one
    that would make the file a skill's (``SKILL``, ``skill``, any case: ``SKILL_``)."""
    kept = filenames.keep_letters(skill.replace("/", "__"))
    # No leading "-" either: a file "-rf.md" is read as options by the tools that list it.
    s = kept.lstrip("._-").rstrip("._")
    stem, dot, rest = s.partition(".")
    if stem.casefold() in filenames.WINDOWS_DEVICES:
        # Windows opens CON.md, nul.tar.md, COM1.md as the device, whatever the case or the
        # extension: a report folder synced there had a file no one could open.
        s = f"{stem}_{dot}{rest}"
    s = filenames.cut_bytes(s, _SLUG_BYTES).rstrip(".") or "skill"
    if filenames.same_file_key(s + ".md") == filenames.same_file_key(plugin_features.SKILL_FILE):
        # The skill `SKILL`'s report, skills/SKILL.md, made the report folder a skill: the
        # next score of a root that holds --out scored the report (or refused the folder
        # as a skill's). Any case: SKILL.md and skill.md are one file on macOS and Windows.
        s += "_"
    return s


def report_names(result: PluginResult, fmt: str) -> list[str]:
    """The files ``plugin score --out`` writes into its folder in ``fmt`` for ``result``,
    by their paths relative to it (``/`` between folder and file): the report
    (``plugin-report.md``, ``.json``, ``.csv``), then in markdown a file per skill under
    ``skills/``, in the order of ``result.skills()``. Two skills whose names would be one
    file, or differ only in case or in how an accent is written (one file on macOS and
    Windows), get ``-2``, ``-3``, ... after the later one's."""
    if not isinstance(result, PluginResult):
        raise UsageError(
            Arg("result", "result"),
            ": give a PluginResult (what score, rank and evaluate return), not "
            + sources.type_name(result),
        )
    fmt = _format(fmt, FMT)
    names = [_REPORTS[fmt][0]]
    if fmt != "markdown":
        return names
    # Compared case-folded: on a file system that ignores case (macOS, Windows) the
    # skills `Alpha` and `alpha` wrote one file, the second report over the first.
    used: set[str] = set()
    for skill in result.report.column("skill").to_pylist():
        base = _slug(str(skill))
        name, n = base, 2
        while filenames.same_file_key(name) in used:
            name, n = f"{base}-{n}", n + 1
        used.add(filenames.same_file_key(name))
        names.append(f"skills/{name}.md")
    return names


def refuse_report_paths(
    result: PluginResult, out_dir: str | os.PathLike[str], fmt: str | Sequence[str]
) -> None:
    """Refuse, before any report is written, a folder ``out_dir`` that the reports of
    ``result`` in ``fmt`` (one format or a list, as ``score``'s ``out_format``) could
    not all be written into, at their exact names (``report_names``): what
    ``history.refuse_report_folder`` refuses (``out_dir`` not a folder or one that cannot
    be made, a ``skills`` there that is no folder, a symlink, a folder or a socket at a
    report's name) and a folder that takes no new file (read-only: each report is written
    beside its name and renamed over it). Found at its own write, the reports before it
    were written and the rest not."""
    out = sources.one_path(out_dir, OUT_DIR, "folder")
    history.require_path(out, OUT_DIR, "folder")
    _refuse_report_names(result, out, _formats(fmt, FMT), probe=True)


def _refuse_report_names(
    result: PluginResult, out: str, formats: list[str], *, probe: bool
) -> None:
    names = [n for f in formats for n in report_names(result, f)]
    # Each name as a pattern that matches only itself: the exact files, not skills/*.md.
    history.refuse_report_folder(out, [glob.escape(n) for n in names], OUT_DIR, probe=probe)


#: ``patterns`` of ``refuse_inputs_written``, which no option gives.
PATTERNS = Arg("patterns", "patterns")


def _patterns(value: object) -> list[str]:
    """``patterns`` as a list of names: a str is a sequence too, and each of its letters
    was taken for a name (``skills/*.md`` refused the folder itself as ``DIR/``)."""
    wanted = "give a list of report names (what report_patterns returns)"
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise UsageError(PATTERNS, f": {wanted}, not {sources.type_name(value)}")
    odd = [p for p in value if not isinstance(p, str)]
    if odd:
        held = f"a {sources.type_name(value)} holding {sources.type_name(odd[0])}"
        raise UsageError(PATTERNS, f": {wanted}, not {held}")
    return list(value)


def refuse_inputs_written(
    out_dir: str | os.PathLike[str],
    patterns: Sequence[str],
    *,
    roots: sources.Paths | None = None,
    judge: sources.Paths | None = None,
    mc: sources.Paths | None = None,
    matchups: sources.Paths | None = None,
) -> None:
    """Refuse, before anything is read or written, a report in ``out_dir`` (a file named
    as one of ``patterns``) that is a judge, Monte Carlo or matchups file (the report
    renamed over it replaced it), as the history is refused when it is one of them; what
    no report is written at (``history.refuse_report_folder``: a symlink, a folder, a
    ``skills`` that is no folder, an ``out_dir`` that cannot be made), which the write
    found once the history was appended; or one that lands in the folder of a skill
    ``roots`` holds (``_refuse_a_skill_folder``)."""
    out_dir = sources.one_path(out_dir, OUT_DIR, "folder")
    history.require_path(out_dir, OUT_DIR, "folder")
    patterns = _patterns(patterns)
    history.refuse_report_folder(out_dir, patterns, OUT_DIR)
    for given, inputs, what in _inputs(judge, mc, matchups):
        sources.refuse_an_input_named(
            out_dir, patterns, inputs, what, "the score", given, OUT_DIR, stdin=False
        )
    if roots is not None:
        for pattern in patterns:
            _refuse_a_skill_folder(os.path.join(out_dir, *pattern.split("/")), roots)


#: The folders of a skill whose plain files it is scored by (spec §2 "Reference files").
_SKILL_FILE_FOLDERS = ("references", "assets")


def _refuse_a_skill_file(path: str, roots: sources.Paths) -> None:
    """Refuse a history that is a scored skill's SKILL.md (appended to, the next score reads
    JSON lines as the skill), or a file of its references/ or assets/ (the history and its
    lock are counted there, so the next run scores input that did not change anew)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == plugin_features.SKILL_FILE:
        where = f"the {plugin_features.SKILL_FILE} of"
    elif os.path.basename(folder) in _SKILL_FILE_FOLDERS:
        where = f"in the {os.path.basename(folder)}/ folder of"
        folder = os.path.dirname(folder)
    else:
        return  # the usual case: no walk of the roots
    if not os.path.isfile(os.path.join(folder, plugin_features.SKILL_FILE)):
        return
    try:
        found, _ = plugin_features.find_skills(sources.input_paths(roots, ROOTS))
    except (TypeError, UsageError):
        return  # not paths: evaluate says so
    for _, skill in found:
        with contextlib.suppress(OSError):
            if os.path.samefile(skill, folder):
                raise UsageError(
                    f"{quote_path(path)}: that is {where} the skill {quote_path(skill)} "
                    "the score reads (",
                    ROOTS,
                    ")" + ("" if where.startswith("the ") else ", as one of its files"),
                    "; choose another ",
                    HISTORY_PATH,
                )


def _refuse_a_skill_folder(report: str, roots: sources.Paths) -> None:
    """Refuse a report of ``--out`` (``report``: its path, or its pattern, ``skills/*.md``)
    that lands in the folder of a skill the score reads, or in a folder inside it: written
    there, the reports are among the skill's files (in its references/ or assets/, files
    the next run scores it by; a report named SKILL.md, a skill of its own). The skill's
    folder is looked for up from the report's; the roots are walked only when one of those
    folders holds a SKILL.md."""
    start = os.path.realpath(os.path.dirname(report) or os.curdir)
    held, folder = [], start
    while True:
        if os.path.isfile(os.path.join(folder, plugin_features.SKILL_FILE)):
            held.append(folder)
        if os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    if not held:
        return  # the usual case: no walk of the roots
    try:
        found, _ = plugin_features.find_skills(sources.input_paths(roots, ROOTS))
    except (TypeError, UsageError):
        return  # not paths: evaluate says so
    scored = [(c, skill) for c in held for _, skill in found if _same_folder(skill, c)]
    if not scored:
        return
    candidate, skill = scored[0]  # the innermost
    inner = os.path.relpath(start, candidate)
    where, also = (
        (f"in the {inner}/ folder of", ", as one of its files")
        if inner in _SKILL_FILE_FOLDERS
        else ("in the folder of", "")
    )
    raise UsageError(
        f"{quote_path(report)}: that is {where} the skill {quote_path(skill)} the score reads (",
        ROOTS,
        f"){also}; choose another ",
        OUT_DIR,
    )


def _same_folder(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def rank(
    roots: sources.Paths,
    *,
    judge: sources.Paths | None = None,
    mc: sources.Paths | None = None,
    matchups: sources.Paths | None = None,
) -> PluginResult:
    # Its docstring, with score's column lists, is set below the function: one text.
    result, con = evaluate(roots, judge=judge, mc=mc, matchups=matchups)
    con.close()
    return result


# help(rank) shows the columns as help(score) does; one text, so the two cannot drift.
rank.__doc__ = (
    "Score the skills for the ranking table only (no history is written).\n\n"
    + "Columns of ``report``"
    + inspect.cleandoc(score.__doc__ or "").split("Columns of ``report``", 1)[1]
)


def _append_history(
    con: duckdb.DuckDBPyConnection,
    result: PluginResult,
    path: str,
    *,
    now: dt.datetime | None,
    lock_timeout: float | None,
) -> None:
    stamp = now or dt.datetime.now(dt.UTC)
    params = {"scored_at": stamp.isoformat().replace("+00:00", "Z")}
    with history.locked(path, timeout=lock_timeout, what="plugin history", about=HISTORY_PATH):
        files: list[SourceFile] = []
        if os.path.exists(path) or os.path.islink(path):
            f = sources.prescan(SourceFile(path=path, display=path))
            if f.error:  # changed since check_writable: refused in its words, exit 2
                raise UsageError(f"{quote_path(path)}: {f.error}", about=HISTORY_PATH)
            files.append(f)
        res = sources.read_jsonl(
            con, files, "plugin_history_in", HISTORY_KEY_COLUMNS, unique_keys=HISTORY_KEYS
        )
        result.warnings.extend(
            LineIssue(i.file, i.line, f"history line skipped: {i.reason}") for i in res.skipped
        )
        sqlpack.run_range(con, PACK, VERSION, *_HISTORY_STAGE, params)
        new = con.execute("SELECT record FROM plugin_history_new ORDER BY seq").fetchall()
        total = con.execute("SELECT count(*) FROM plugin_history_records").fetchall()[0][0]
        lines = [[history.dumps_record(dict(row[0]))] for row in new]
        written = history.append_groups(path, lines, HISTORY_PATH) if lines else 0
    result.history_path = path
    result.history_written = written
    result.history_skipped = int(total) - written
    result.history_written_skills = [str(row[0]["skill"]) for row in new]
