"""Pack ``routes`` (spec routes.md): evidence-backed route intelligence.

Python orchestrates; the SQL in ``sql/routes/v1`` scores. This module reads the
operation-episode JSONL through ``sources`` (declaring only the fields the pack
uses, so prompt/transcript text never enters DuckDB), resolves the policy (file,
then flags; unset values fall back to the defaults in ``000_policy_defaults.sql``),
runs the versioned SQL and hands back Arrow tables.
"""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "analyze",
    "router_rows",
    "Policy",
    "RoutesReport",
    "build_policy",
    "load_policy_file",
    "parse_as_of",
    "policy_number",
    "flat_rows",
    "NUMERIC_POLICY",
    "POLICY_PATH",
    "FINDING_SORT_COLUMNS",
]

import datetime as dt
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import yaml
from runscore.engine import db, duck, history, sources, sqlpack, yaml_keys
from runscore.engine.duck import duckdb
from runscore.engine.errors import Arg, CannotAccess, NothingReadable, UsageError
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

PACK = "routes"
VERSION = "v1"
SCORING_VERSION = f"{PACK}/{VERSION}"
#: The version of the shared SQL (``sql/common``) this version's files call: ``rs_quote``,
#: the quote of an input value in a message, the same in every pack (one definition), and
#: ``rs_iso_text``, the ISO-8601 forms of a time DuckDB's cast refuses, in one it takes.
COMMON_VERSION = "v1"

#: The only top-level fields read from an episode line. Anything else on the line
#: (prompts, transcripts, tool output) is never read, so it cannot reach any output.
COLUMNS: dict[str, str] = {
    "episodeId": "JSON",
    "source": "JSON",
    "project": "JSON",
    "activity": "JSON",
    "task": "JSON",
    "execution": "JSON",
    "usage": "JSON",
    "outcome": "JSON",
}

#: The keys read from each object of an episode line (010_episodes.sql), by JSON path: a
#: line that gives one of them twice is rejected (``sources.read_jsonl``'s ``unique_keys``),
#: as in ``pipeline`` and ``extract``: DuckDB keeps the first value, Python and JavaScript
#: the last, so runscore and the user's own tools would score different episodes.
EPISODE_KEYS: dict[str, tuple[str, ...] | None] = {
    "$": tuple(COLUMNS),
    "$.source": ("kind", "host", "sessionKey", "runId", "workerId", "pairId"),
    "$.project": ("id", "revision"),
    "$.activity": ("id", "provenance", "confidence"),
    "$.task": ("fingerprint", "complexity"),
    "$.execution": (
        "host",
        "inferenceProvider",
        "providerProvenance",
        "model",
        "reasoningEffort",
        "harnessFingerprint",
        "startedAt",
        "endedAt",
        "durationMs",
    ),
    "$.usage": (
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "observedCostUsd",
        "apiEquivalentCostUsd",
        "costBasis",
        "quotaPressure",
    ),
    "$.outcome": ("status", "signals", "retries", "repairs", "escalation"),
    "$.outcome.escalation": ("escalated", "toModel"),
}

#: Numeric policy keys and their type; the defaults live in SQL (000_policy_defaults.sql).
NUMERIC_POLICY: dict[str, type] = {
    "tolerance": float,
    "min_labelled_per_route": int,
    "min_pairs": int,
    "max_ci_width": float,
    "freshness_days": int,
    "min_stratum_overlap": float,
}
_FRACTIONS = {"tolerance", "max_ci_width", "min_stratum_overlap"}
#: The SQL's integer types: whole-number settings are BIGINT, model tiers INTEGER.
_BIGINT_MAX = 2**63 - 1
_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class Incumbent:
    """A configured incumbent route for one activity (provider optional)."""

    activity: str
    host: str | None
    provider: str | None
    model: str


@dataclass(frozen=True)
class Policy:
    """Policy overrides. ``None`` means "use the SQL default"."""

    tolerance: float | None = None
    min_labelled_per_route: int | None = None
    min_pairs: int | None = None
    max_ci_width: float | None = None
    freshness_days: int | None = None
    min_stratum_overlap: float | None = None
    incumbents: tuple[Incumbent, ...] = ()
    model_tiers: tuple[tuple[str, int], ...] = ()

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in NUMERIC_POLICY}
        out["incumbents_json"] = json.dumps(
            [
                {"activity": i.activity, "host": i.host, "provider": i.provider, "model": i.model}
                for i in self.incumbents
            ],
            sort_keys=True,
        )
        out["model_tiers_json"] = json.dumps(dict(self.model_tiers), sort_keys=True)
        return out


def policy_number(key: str, value: Any) -> float | int:
    """``value`` as the numeric setting ``key`` takes it; ``ValueError`` says what is wrong
    (``must be between 0 and 1, got 1.5``), for the caller to name where it came from."""
    kind = NUMERIC_POLICY[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, got {quote(value)}")
    if kind is int:
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"must be a whole number, got {quote(value)}")
        if value < 0:
            raise ValueError(f"must be >= 0, got {quote(value)}")
        if value > _BIGINT_MAX:  # the SQL reads it as BIGINT
            raise ValueError(f"must be at most {_BIGINT_MAX}, got {quote(value)}")
        return int(value)
    f = float(value)
    if not math.isfinite(f) or f < 0 or (key in _FRACTIONS and f > 1):
        raise ValueError(f"must be between 0 and 1, got {quote(value)}")
    return f


def _number(key: str, value: Any, where: str, about: Arg | None) -> float | int:
    try:
        return policy_number(key, value)
    except ValueError as e:
        raise UsageError(f"{where}: {key} {e}", about=about) from None


def _incumbents(value: Any, where: str, about: Arg | None) -> tuple[Incumbent, ...]:
    """``{activity: "host:model" | "host:provider:model" | {host, provider, model}}``."""
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: incumbents must map activity -> route", about=about)
    out: list[Incumbent] = []
    for activity in sorted(value, key=str):
        spec = value[activity]
        host: str | None
        provider: str | None
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) == 2:
                host, provider, model = parts[0], None, parts[1]
            elif len(parts) == 3:
                host, provider, model = parts
            else:
                raise UsageError(
                    f"{where}: incumbent for {quote(str(activity))} must be "
                    f'"host:model" or "host:provider:model", got {quote(spec)}',
                    about=about,
                )
        elif isinstance(spec, Mapping) and isinstance(spec.get("model"), str):
            host, provider, model = spec.get("host"), spec.get("provider"), spec["model"]
            extra = set(spec) - {"host", "provider", "model"}
            if extra:
                raise UsageError(
                    f"{where}: incumbent for {quote(str(activity))} has unknown keys "
                    + ", ".join(quote(k) for k in sorted(extra, key=str)),
                    about=about,
                )
        else:
            raise UsageError(
                f"{where}: incumbent for {quote(str(activity))} needs at least a model",
                about=about,
            )
        for name, v in (("host", host), ("provider", provider)):
            if v is not None and not isinstance(v, str):
                raise UsageError(
                    f"{where}: incumbent {name} for {quote(str(activity))} must be text",
                    about=about,
                )
        out.append(Incumbent(str(activity), host or None, provider or None, model))
    return tuple(out)


def _tiers(value: Any, where: str, about: Arg | None) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping):
        raise UsageError(
            f"{where}: model_tiers must map a model-name fragment to a tier number", about=about
        )
    out: list[tuple[str, int]] = []
    for k in sorted(value, key=str):
        v = value[k]
        if isinstance(v, bool) or not isinstance(v, int) or not -_INT_MAX - 1 <= v <= _INT_MAX:
            raise UsageError(
                f"{where}: model tier for {quote(str(k))} must be a whole number "
                f"from {-_INT_MAX - 1} to {_INT_MAX}",
                about=about,
            )
        out.append((str(k).lower(), v))
    return tuple(out)


def load_policy_file(path: str | os.PathLike[str], *, about: Arg | None = None) -> dict[str, Any]:
    """Read a YAML or JSON policy file (JSON is valid YAML).

    Every problem is one line naming the file (and the line and column where YAML gives
    them): a file that is not UTF-8 raised ``UnicodeDecodeError`` through the command, and
    PyYAML's own message ran over several lines. A setting given twice is refused, as in a
    team preset: PyYAML keeps the last without a word (JSON parsers differ on which).
    ``about``: the caller's argument that gave ``path`` (default ``path``), which the
    errors name in ``params``."""
    about = sources.about_arg(about) or POLICY_PATH
    path = sources.one_path(path, about)
    history.require_path(path, about.said("the policy file"))
    shown = quote_path(path)  # as a file:line: prefix writes it
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise UsageError(f"{shown}: not UTF-8 text (byte {e.start + 1})", about=about) from None
    except OSError as e:
        raise CannotAccess(
            f"{shown}: cannot read policy file: {e.strerror or e}", about=about
        ) from e
    try:
        data, _, duplicates = yaml_keys.load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise UsageError(f"{shown}{at}: not valid YAML/JSON: {problem}", about=about) from None
    if duplicates:
        key, mark, first = duplicates[0]
        raise UsageError(
            f"{shown}:{mark.line + 1}:{mark.column + 1}: key {quote(key)} given twice "
            f"(first on line {first + 1}): which value is meant cannot be known",
            about=about,
        )
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsageError(f"{shown}: a policy file must be a mapping of settings", about=about)
    return data


def build_policy(
    file_values: Mapping[str, Any] | None = None,
    flags: Mapping[str, Any] | None = None,
    *,
    where: str = "policy",
    about: Arg | None = None,
) -> Policy:
    """Merge a policy file's values with flags (flags win) and validate them.

    ``where``: what a message names as the values' source, ``flags`` or the policy
    file's path (written as a ``file:line:`` prefix writes a path: ``quoting.path``);
    ``about``: the caller's argument that gave the values, which the errors name in
    ``params`` (the CLI's flags are no one argument: None)."""
    about = sources.about_arg(about)
    for name, given in (("file_values", file_values), ("flags", flags)):
        if given is not None and not isinstance(given, Mapping):
            raise UsageError(
                Arg(name, name),
                ": give a mapping of a policy file's settings, not " + sources.type_name(given),
            )
    where = sources.text_arg(where, Arg("where", "where"), "the values' source as text")
    where = quote_path(where)
    merged: dict[str, Any] = {}
    allowed = set(NUMERIC_POLICY) | {"incumbents", "model_tiers"}
    for k, v in (file_values or {}).items():
        if k not in allowed:
            raise UsageError(
                f"{where}: unknown setting {quote(k)} (known: {', '.join(sorted(allowed))})",
                about=about,
            )
        merged[k] = v
    for k, v in (flags or {}).items():
        if v is not None:
            merged[k] = v
    kwargs: dict[str, Any] = {}
    for k in NUMERIC_POLICY:
        if merged.get(k) is not None:
            kwargs[k] = _number(k, merged[k], where, about)
    if merged.get("incumbents") is not None:
        kwargs["incumbents"] = _incumbents(merged["incumbents"], where, about)
    if merged.get("model_tiers") is not None:
        kwargs["model_tiers"] = _tiers(merged["model_tiers"], where, about)
    return Policy(**kwargs)


#: The columns of ``RoutesReport.findings`` that order the findings and are no field of one:
#: left out of the JSON, and of the findings CSV (``cli.routes``).
FINDING_SORT_COLUMNS = ("type_rank", "sort_candidate", "sort_incumbent")

#: ``paths`` (``PATHS``), the episode files.
PATHS = Arg("paths", "PATHS")
#: ``as_of`` (``--as-of``), as the messages of ``parse_as_of`` name it.
AS_OF = Arg("as_of", "--as-of")
#: ``policy`` (``--policy``), as ``_policy_of`` names it.
POLICY = Arg("policy", "--policy")
#: ``load_policy_file``'s own ``path``.
POLICY_PATH = Arg("path", "--policy")


def parse_as_of(text: str | None, *, today: dt.date | None = None) -> dt.datetime:
    """The report clock, in UTC (timezone-aware, as ``RoutesReport.as_of``: it was naive,
    so a caller comparing the two got a TypeError); a time without an offset is UTC.
    Default: the current UTC date at 00:00 (``today``, a ``date``, when given)."""
    today = sources.day_arg(today, Arg("today", "today"))
    if text is None:
        d = today or dt.datetime.now(dt.UTC).date()
        return dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC)
    text = sources.text_arg(text, AS_OF, "ISO date-time text")  # not an AttributeError
    try:
        parsed = dt.datetime.fromisoformat(text.strip())
    except ValueError as e:
        raise UsageError(AS_OF, f": not an ISO date-time: {quote(text)}") from e
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=dt.UTC)
    try:
        return parsed.astimezone(dt.UTC)
    except OverflowError as e:
        raise UsageError(AS_OF, f": outside the years 1 to 9999 in UTC: {quote(text)}") from e


@dataclass
class RoutesReport:
    #: The report's clock, freshness measured to it: UTC (timezone-aware)
    as_of: dt.datetime
    policy: dict[str, Any]
    files: list[sources.SourceFile]
    issues: list[sources.LineIssue]
    rejected: list[sources.LineIssue]
    episodes: int
    findings: pa.Table
    comparisons: pa.Table
    cascades: pa.Table
    matrix: pa.Table
    router_rows: pa.Table | None = None
    inputs: list[dict[str, Any]] = field(default_factory=list)
    #: What of the policy was not used, one sentence each (a configured incumbent that
    #: names no route of its activity); the CLI says them as warnings.
    policy_notes: list[str] = field(default_factory=list)
    #: Files read that hold no line (empty, or blank lines only), in input order, each
    #: with the words of the error that names them when nothing else is read (exit 3).
    #: Not rejected input: beside files with episodes they are said, and the rest read.
    empty_files: list[sources.LineIssue] = field(default_factory=list)
    #: Episodes dated after the as-of date, in input order: read and counted, but their time
    #: dates no evidence (read as undated), so one dated next year makes nothing fresh. Not
    #: rejected input: the CLI says them as warnings.
    after_as_of: list[sources.LineIssue] = field(default_factory=list)
    #: What the files and problems name, in the order the paths were given (``problems``'
    #: order; when empty, that of ``files``).
    input_order: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[sources.LineIssue]:
        """Every input problem, in input order: in the order the paths were given (a path
        not found in its place: it came first), each file's by line. The reader's (a line
        that is no JSON object) and the SQL's (an episode rejected) were listed apart:
        ``bad.jsonl:2``, ``:3``, ``:1``."""
        return _in_order(
            self.input_order or [f.display for f in self.files], self.issues + self.rejected
        )

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain JSON-ready data (deterministic order, no wall-clock time)."""
        return {
            "scoring_version": SCORING_VERSION,
            "as_of": iso(self.as_of),
            "policy": self.policy,
            "inputs": {
                "files": self.inputs,
                "episodes": self.episodes,
                "rejected": [i.as_dict() for i in self.problems],
                # read, and holding no line: not rejected input (as extract's empty_files)
                "empty_files": [{"file": i.file, "reason": i.reason} for i in self.empty_files],
                # read and counted, their time unused: not rejected input either
                "after_as_of": [i.as_dict() for i in self.after_as_of],
            },
            "findings": nest_rows(self.findings, drop=FINDING_SORT_COLUMNS),
            "comparisons": nest_rows(self.comparisons),
            "cascades": nest_rows(self.cascades),
            "matrix": nest_rows(self.matrix),
        }


def iso(v: dt.datetime) -> str:
    """``v`` (UTC, naive) as ``YYYY-MM-DDTHH:MM:SSZ``, the year in four digits (strftime's
    ``%Y`` wrote 999 for the year 999), and its fraction of a second when it has one
    (``…:59.500000Z``): freshness is measured to it, so a report's ``as_of`` dropped it
    and could not be reproduced from what it printed (JSON keeps every digit). An aware
    ``v`` (a result's times: TIMESTAMPTZ) is taken in UTC first."""
    if v.tzinfo is not None:
        v = v.astimezone(dt.UTC)
    return v.replace(tzinfo=None).isoformat() + "Z"


def _plain(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return iso(v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def nest_rows(table: pa.Table, drop: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Rows as dicts; a ``__`` in a column name nests (``cost__basis`` -> ``cost.basis``)."""
    out: list[dict[str, Any]] = []
    for row in table.to_pylist():
        d: dict[str, Any] = {}
        for k, v in row.items():
            if k in drop:
                continue
            parts = k.split("__")
            cur = d
            for p in parts[:-1]:
                cur = cur.setdefault(p, {})
            cur[parts[-1]] = _plain(v)
        out.append(d)
    return out


def flat_rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows of one table keyed by each column's JSON path (``historical__effect`` ->
    ``historical.effect``), each value as the JSON writes it (a time as ``iso``): one table
    as CSV, whose cells cannot nest."""
    return [{k.replace("__", "."): _plain(v) for k, v in row.items()} for row in table.to_pylist()]


def _in_order(
    given: Sequence[str], problems: Sequence[sources.LineIssue]
) -> list[sources.LineIssue]:
    """``problems`` in the order of ``given`` (``_discover``'s), then by line."""
    order: dict[str, int] = {}
    for d in given:
        order.setdefault(d, len(order))
    return sorted(problems, key=lambda p: (order.get(p.file, -1), p.line))


def _discover(
    paths: Sequence[str],
) -> tuple[list[sources.SourceFile], list[sources.LineIssue], list[str]]:
    """``sources.discover``'s files and issues, and what each names (a file's or a problem's
    ``file``) in the order the paths were given (``Discovered.input_order``)."""
    found = sources.discover(paths, stdin=True)
    files, issues = found
    return files, issues, list(found.input_order())


def _read(
    con: duckdb.DuckDBPyConnection, paths: Sequence[str]
) -> tuple[list[sources.SourceFile], list[sources.LineIssue], list[str]]:
    files, issues, given = _discover(paths)
    for f in files:
        sources.prescan(f)
    res = sources.read_jsonl(con, files, "routes_raw", COLUMNS, unique_keys=EPISODE_KEYS)
    issues = issues + [
        sources.LineIssue(f.display, 0, f.error or "unreadable") for f in res.unreadable
    ]
    issues += res.skipped
    if not any(f.error is None for f in files):
        # Each file's problem, in the order given, as pipeline and extract list theirs: the
        # first alone was said, and ``problems`` was empty for a caller that lists them
        # apart. None to say means no file was found at all (folders without *.jsonl).
        found = _in_order(given, issues) or [
            sources.LineIssue(p, 0, "no *.jsonl file found") for p in paths
        ]
        raise NothingReadable(
            "no episode file could be read:\n" + sources.listed(found),
            [(p.file, p.line, p.reason) for p in found],
            about=PATHS,
        )
    return files, issues, given


def _policy_of(policy: object) -> Policy:
    """``policy`` as a ``Policy``: a mapping is the settings a policy file holds, checked
    as one is (a dict was an ``AttributeError`` deep inside)."""
    if policy is None:
        return Policy()
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, Mapping):
        return build_policy(policy, where="policy", about=POLICY)
    raise UsageError(
        POLICY, f": give a routes.Policy or a mapping of its settings, not {type(policy).__name__}"
    )


def _clock(as_of: object) -> dt.datetime:
    """``as_of`` as a ``datetime``: text is read as ``--as-of`` reads it, a ``date`` is its
    00:00 UTC (``--as-of 2026-01-01``); either was an ``AttributeError`` deep inside."""
    if as_of is None or isinstance(as_of, str):
        return parse_as_of(as_of)
    if isinstance(as_of, dt.datetime):
        return as_of
    if isinstance(as_of, dt.date):
        return dt.datetime(as_of.year, as_of.month, as_of.day, tzinfo=dt.UTC)
    raise UsageError(AS_OF, f": give a datetime, a date or ISO text, not {type(as_of).__name__}")


def analyze(
    paths: sources.Paths,
    policy: Policy | Mapping[str, Any] | None = None,
    as_of: dt.datetime | dt.date | str | None = None,
    *,
    with_router_rows: bool = False,
    allow_empty: bool = False,
) -> RoutesReport:
    """Score operation episodes: comparisons, cascades, findings and the matrix.

    ``policy``: a ``Policy``, or a mapping of a policy file's settings. ``as_of``: the
    clock, a ``datetime`` (naive is UTC), a ``date`` (its 00:00 UTC) or ISO text as
    ``--as-of`` takes it; default today 00:00 UTC. Raises ``NothingReadable`` when no episode could be read: every line was rejected, or
    no file holds a line (each empty, or blank lines only), unless ``allow_empty`` (the
    nightly job) takes such files for a report of no episodes."""
    paths = sources.input_paths(paths, PATHS)
    if not paths:
        raise UsageError("no episode files given", about=PATHS)
    with_router_rows = sources.flag_arg(with_router_rows, "with_router_rows")
    allow_empty = sources.flag_arg(allow_empty, "allow_empty")
    policy = _policy_of(policy)
    clock = _clock(as_of)
    if clock.tzinfo is not None:  # an aware clock is read in UTC, as --as-of with an offset is
        try:
            clock = clock.astimezone(dt.UTC).replace(tzinfo=None)
        except OverflowError as e:
            raise UsageError(AS_OF, f": outside the years 1 to 9999 in UTC: {as_of}") from e
    con = db.connect()
    try:
        files, issues, given = _read(con, paths)
        params = policy.params()
        # isoformat, not strftime: %Y writes the year 999 as "999", which is no ISO time
        params["as_of"] = clock.isoformat(sep=" ", timespec="microseconds")
        # rs_quote, the one quote of an input value a message names (010's reject reasons),
        # and rs_iso_text, by which 010 reads its times.
        sqlpack.run_common(con, COMMON_VERSION)
        sqlpack.run_pack(con, PACK, VERSION, params)
        rejected = [
            sources.LineIssue(str(f), int(ln), str(r))
            for f, ln, r in con.execute("SELECT file, line, reason FROM routes_rejects").fetchall()
        ]
        episodes = int(con.execute("SELECT count(*) FROM routes_ep").fetchall()[0][0])
        # A file read that gave no row and no rejected line holds no line (empty, or blank).
        said = {p.file for p in issues + rejected}
        with_rows = {r[0] for r in con.execute("SELECT DISTINCT _file FROM routes_raw").fetchall()}
        empty = [
            sources.LineIssue(f.display, 0, sources.no_lines_reason(f, "episodes"))
            for f in files
            if f.error is None and f.display not in said and f.display not in with_rows
        ]
        if episodes == 0 and (issues or rejected or not allow_empty):
            # As extract and pipeline: input that was there but all rejected, or that holds
            # no line, is nothing read (exit 3, stdout empty), not a report of no episodes.
            ordered = _in_order(given, issues + rejected + empty)
            # each with its file and line, for a caller that says them apart (nightly)
            raise NothingReadable(
                "no episode could be read:\n" + sources.listed(ordered),
                [(p.file, p.line, p.reason) for p in ordered],
                no_lines=[p.file for p in empty],
                about=PATHS,
            )
        pol = con.execute(
            "SELECT tolerance, min_labelled_per_route, min_pairs, max_ci_width, freshness_days, "
            "min_stratum_overlap FROM routes_policy"
        ).fetchall()[0]
        effective: dict[str, Any] = dict(zip(NUMERIC_POLICY, pol, strict=True))
        effective["incumbents"] = {
            i.activity: {"host": i.host, "provider": i.provider, "model": i.model}
            for i in policy.incumbents
        }
        effective["model_tiers"] = {
            str(p): int(t)
            for p, t in con.execute(
                "SELECT pattern, tier FROM routes_model_tiers ORDER BY tier, pattern"
            ).fetchall()
        }
        per_file = dict(
            con.execute("SELECT _file, count(*) FROM routes_ep GROUP BY _file").fetchall()
        )
        inputs = [
            {"path": f.display, "sha256": f.sha256, "episodes": int(per_file.get(f.display, 0))}
            for f in files
            if f.error is None
        ]
        policy_notes = [
            _unmatched_incumbent_note(str(a), h, p, str(m), bool(seen), rule)
            for a, h, p, m, seen, rule in con.execute(
                "SELECT activity, host, provider, model, activity_seen, incumbent_source "
                "FROM routes_cfg_unmatched"
            ).fetchall()
        ]
        after_as_of = [
            sources.LineIssue(str(f), int(ln), str(r))
            for f, ln, r in con.execute(
                "SELECT file, line, reason FROM routes_after_as_of"
            ).fetchall()
        ]
        report = RoutesReport(
            policy_notes=policy_notes,
            after_as_of=_in_order(given, after_as_of),
            as_of=clock.replace(tzinfo=dt.UTC),
            policy=effective,
            files=files,
            issues=issues,
            rejected=rejected,
            episodes=episodes,
            findings=duck.sql(con, "SELECT * FROM routes_findings").to_arrow_table(),
            comparisons=duck.sql(con, "SELECT * FROM routes_comparisons_out").to_arrow_table(),
            cascades=duck.sql(con, "SELECT * FROM routes_cascades_out").to_arrow_table(),
            matrix=duck.sql(con, "SELECT * FROM routes_matrix").to_arrow_table(),
            inputs=inputs,
            empty_files=empty,
            input_order=given,
        )
        if with_router_rows:
            report.router_rows = duck.sql(con, "SELECT * FROM routes_router_rows").to_arrow_table()
        return report
    finally:
        con.close()


#: How the warning on an unused configured incumbent says the rule that chose the one used
#: instead (030's incumbent_source, as ``incumbent.source`` names it).
_FALLBACK_RULE = {
    "most labelled episodes": "the route with the most labelled episodes",
    "most episodes (tie on labelled episodes)": (
        "the route with the most episodes (tie on labelled episodes)"
    ),
    "lexicographic order (tie on labelled and total episodes)": (
        "the route first in lexicographic order (tie on labelled and total episodes)"
    ),
}


def _unmatched_incumbent_note(
    activity: str,
    host: str | None,
    provider: str | None,
    model: str,
    activity_seen: bool,
    rule: str | None,
) -> str:
    route = ":".join(x for x in (host, provider, model) if x is not None)
    # Quoted as every value a routes message names (rs_quote): the route was printed bare,
    # so a model holding a space or a parenthesis ran on into the sentence.
    said = f"incumbent for {quote(activity)} ({quote(route)}) not used"
    if not activity_seen:
        return f"{said}: no episode has that activity"
    if rule is None:
        return (
            f"{said}: no episode of that activity ran on it; none of its episodes names a "
            "model, so it has no incumbent"
        )
    # The rule that decided, as incumbent.source says it: a tie-break was said to be the
    # route with the most labelled episodes.
    return (
        f"{said}: no episode of that activity ran on it; the incumbent is "
        f"{_FALLBACK_RULE.get(rule, rule)}"
    )


def router_rows(
    paths: sources.Paths,
    policy: Policy | Mapping[str, Any] | None = None,
    as_of: dt.datetime | dt.date | str | None = None,
) -> RoutesReport:
    """Labelled episodes with a known model as training rows for an external router."""
    return analyze(paths, policy, as_of, with_router_rows=True)
