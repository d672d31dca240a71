"""runscore as a library: what a notebook or a scheduled job meets calling the engine."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from runscore.engine import errors, history_tools
from runscore.engine.errors import NothingReadable, RejectedInputWarning, UsageError
from runscore.engine.packs import effectiveness, pipeline, plugin, routes
from runscore.engine.packs import effectiveness_history as eh
from runscore.engine.sources import LineIssue

REPO = Path(__file__).resolve().parents[1]
EVENTS = REPO / "examples" / "project" / ".archeflow" / "events"
TASKS = REPO / "tests" / "fixtures" / "pipeline" / "tasks.jsonl"
PLANS = REPO / "tests" / "fixtures" / "pipeline" / "plans.jsonl"
SKILLS = REPO / "tests" / "fixtures" / "plugin"


def _run_log(path: Path) -> Path:
    events = [
        {"run_id": "r", "seq": 1, "type": "review.verdict", "agent": "guardian", "data": {}},
        {"run_id": "r", "seq": 2, "type": "agent.complete", "agent": "guardian", "data": {}},
        {"run_id": "r", "seq": 3, "type": "run.complete", "data": {}},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def test_score_runs_of_nothing_readable_raises(tmp_path: Path) -> None:
    """A path that is not there gave an empty table, read as "no runs"; as `extract`,
    it is nothing read, with the file and the reason."""
    missing = str(tmp_path / "nope.jsonl")
    with pytest.raises(NothingReadable) as e:
        effectiveness.score_runs([missing])
    assert e.value.problems == [(missing, 0, "no such file or directory")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    with pytest.raises(NothingReadable) as e:
        effectiveness.score_runs([str(bad)])
    assert [(f, line) for f, line, _ in e.value.problems] == [(str(bad), 1)]


def test_score_runs_warns_of_the_input_it_left_out(tmp_path: Path) -> None:
    """Lines, files and runs left out were dropped without a word: the table cannot hold
    them, so one RejectedInputWarning lists each, file:line: reason."""
    good = _run_log(tmp_path / "good.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": "r2", "seq": 1, "type": "run.start"}\nnot json\n', "utf-8")
    missing = str(tmp_path / "gone.jsonl")
    with pytest.warns(RejectedInputWarning) as caught:
        table = effectiveness.score_runs([str(good), str(bad), missing])
    assert table.column("run_id").to_pylist() == ["r"]
    (w,) = caught
    assert isinstance(w.message, RejectedInputWarning)
    # in the order the paths were given: the path not found, given last, came first
    assert w.message.problems == [
        (str(bad), 2, "not JSON: Expecting value: line 1 column 1 (char 0)"),
        (missing, 0, "no such file or directory"),
    ]
    assert str(w.message) == (
        "2 input problem(s) left out of the scores:\n"
        f"  {bad}:2: not JSON: Expecting value: line 1 column 1 (char 0)\n"
        f"  {missing}: no such file or directory"
    )
    assert w.filename == __file__  # the caller's line, not the engine's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # clean input: no warning at all
        assert effectiveness.score_runs([str(good)]).num_rows == 1


def test_extract_without_a_history_is_a_dry_run_of_no_history(tmp_path: Path) -> None:
    """``history_path=None`` with ``write=False``: every record new, the rejected input
    in lists (what ``score_runs`` warns of); None to write to is refused."""
    good = _run_log(tmp_path / "good.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    res = effectiveness.extract([str(good), str(bad)], None, write=False)
    assert (res.runs_scored, res.records_new, res.records_written) == (1, 1, 0)
    assert [(p.file, p.line) for p in res.problems()] == [(str(bad), 1)]
    assert sorted(tmp_path.iterdir()) == sorted([good, bad])  # nothing written beside them
    with pytest.raises(UsageError, match="history_path None is for write=False"):
        effectiveness.extract([str(good)], None)


def test_invalid_runs_are_problems_at_their_first_location(tmp_path: Path) -> None:
    res = effectiveness.ExtractResult(
        version="v1",
        invalid=[{"run_id": "r9", "reason": "two run.complete", "locations": ["a.jsonl:4", "b:7"]}],
    )
    (p,) = res.problems()
    assert (p.file, p.line, p.reason) == (
        "a.jsonl",
        4,
        'run "r9" not scored: two run.complete (a.jsonl:4, b:7)',
    )


def test_every_path_may_be_a_pathlib_path(tmp_path: Path) -> None:
    """A notebook passes pathlib.Path: report took one, while extract, score_runs (one
    path alone), history repair, the pipeline history and plugin score's history failed
    deep inside (AttributeError: 'PosixPath' object has no attribute 'isascii')."""
    hist = tmp_path / "effectiveness.jsonl"
    assert effectiveness.score_runs(EVENTS).num_rows == 56
    done = effectiveness.extract([EVENTS], hist)
    assert done.records_written == 56
    assert eh.report(hist).table.num_rows == 4
    fixed = history_tools.repair(hist, tmp_path / "repaired.jsonl")
    assert fixed.kept == 56
    assert history_tools.check(hist).usable == 56

    result = pipeline.evaluate_pipelines(TASKS, [PLANS])
    phist = tmp_path / "pipelines.jsonl"
    appended = pipeline.append_history(result, phist)
    assert (appended.path, appended.written) == (str(phist), len(result.history_records))
    assert pipeline.history_report(phist).path == str(phist)
    tables, _ = pipeline.history_tables(phist)
    assert tables["pipeline_history"].num_rows == appended.written

    scored = plugin.score(SKILLS, history_path=tmp_path / "plugin.jsonl")
    assert scored.history_path == str(tmp_path / "plugin.jsonl")
    assert scored.history_written == 3


def test_an_empty_path_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``recommend(history)`` without a team (its default is "") said ``: a team file must
    be a file, not a directory``; an empty history (``os.environ.get(...)`` of an unset
    variable) was read as none, or appended to after a lock file ``.lock`` was made in the
    current folder."""
    monkeypatch.chdir(tmp_path)
    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract([EVENTS], hist)
    empty = "an empty path (an unset variable?); give a file"
    with pytest.raises(UsageError, match=rf"^the team file: {re.escape(empty)}$"):
        eh.recommend(hist)
    with pytest.raises(UsageError, match=rf"^the history: {re.escape(empty)}$"):
        eh.summary("")
    result = pipeline.evaluate_pipelines(TASKS)
    with pytest.raises(UsageError, match=rf"^the history: {re.escape(empty)}$"):
        pipeline.append_history(result, "")
    with pytest.raises(UsageError, match=rf"^the history: {re.escape(empty)}$"):
        plugin.score(SKILLS, history_path="")
    with pytest.raises(UsageError, match=rf"^the policy file: {re.escape(empty)}$"):
        routes.load_policy_file("")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "effectiveness.jsonl",
        "effectiveness.jsonl.lock",
        "effectiveness.jsonl.manifest.json",
    ]


#: Each API call given an empty input (or output) path: the argument it names, and
#: what it did before (the CLI refused each as a usage error, exit 2).
EMPTY_PATH_CALLS: list[tuple[str, str, Any]] = [
    # NothingReadable: "nothing could be read:\n  : no such file or directory"
    ("score_runs", "paths", lambda h: effectiveness.score_runs([""])),
    ("score_runs alone", "paths", lambda h: effectiveness.score_runs("")),
    ("extract", "paths", lambda h: effectiveness.extract([EVENTS, ""], h)),
    ("extract dry", "paths", lambda h: effectiveness.extract([""], None, write=False)),
    ("evaluate_pipelines", "paths", lambda h: pipeline.evaluate_pipelines([""])),
    ("rank", "roots", lambda h: plugin.rank([""])),
    ("score", "roots", lambda h: plugin.score([""], history_path=h)),
    ("analyze", "paths", lambda h: routes.analyze([""])),
    ("router_rows", "paths", lambda h: routes.router_rows("")),
    # scored without the plans, or without the event views, without a word
    ("plans", "plans", lambda h: pipeline.evaluate_pipelines(TASKS, [""])),
    ("run_sql events", "events", lambda h: eh.run_sql("SELECT 1", h, events="")),
    ("run_sql events list", "events", lambda h: eh.run_sql("SELECT 1", h, events=[""])),
    ("schema", "events", lambda h: eh.schema(h, events=[""])),
    ("export events", "events", lambda h: eh.export(h.parent / "x.parquet", h, events=[""])),
    ("run_sql pipelines", "pipelines", lambda h: eh.run_sql("SELECT 1", h, pipelines=[""])),
    # ": export writes FILE.parquet or FILE.duckdb"
    ("export to", "to", lambda h: eh.export("", h)),
    # written to the current folder: the default target, the reports
    ("repair out", "out", lambda h: history_tools.repair(h, "")),
    (
        "write_json_reports",
        "out_dir",
        lambda h: pipeline.write_json_reports(pipeline.evaluate_pipelines(TASKS), ""),
    ),
]


#: The CLI's name of each argument above, as its usage error says it (`PATHS: an empty
#: path ...`, `--plans: ...`).
EMPTY_PATH_CLI = {
    "paths": "PATHS",
    "evaluate_pipelines": "TASKS",
    "plans": "--plans",
    "roots": "ROOTS",
    "events": "--events",
    "pipelines": "--pipelines",
    "to": "--to",
    "out": "--out",
    "out_dir": "--out",
}


@pytest.mark.parametrize(
    ("name", "argument", "call"), EMPTY_PATH_CALLS, ids=[c[0] for c in EMPTY_PATH_CALLS]
)
def test_an_empty_input_path_is_refused_naming_its_argument(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, argument: str, call: Any
) -> None:
    """An empty path (``os.environ.get("LOGS", "")``) given an API call was read as a
    missing file among the inputs, taken for none (plans, events) or for the current
    folder (an output): a ``UsageError`` now, naming the argument, before anything is
    read or written, as the CLI refuses the same paths. README: an error's ``params``
    are the parameters it names and its ``cli_message`` the CLI's words; an empty input
    path's had no ``params`` and said ``paths:`` where the CLI says ``PATHS:``."""
    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract([EVENTS], hist)
    before = sorted(tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    kind = {"pipelines": "file", "to": "file", "out": "file", "out_dir": "folder"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UsageError) as e:
            call(hist)
    give = kind.get(argument, "file or folder")
    assert str(e.value) == f"{argument}: an empty path (an unset variable?); give a {give}"
    assert e.value.params == (argument,)
    cli = EMPTY_PATH_CLI.get(name, EMPTY_PATH_CLI[argument])
    assert e.value.cli_message == f"{cli}: an empty path (an unset variable?); give a {give}"
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_score_runs_types_its_columns_as_the_history_views(tmp_path: Path, version: str) -> None:
    """``score_runs`` gave ts and run_ts as text (the history line as written) where the
    views ``sql`` and ``report`` read give TIMESTAMPTZ: a user comparing the two had to
    cast. Every shared column now has one type, and the same runs the same values.
    (archeflow-legacy: ``score_runs`` failed, its records a TEMP table its cursor could
    not see.)"""
    at = "2026-05-02T03:04:05Z"
    scored = effectiveness.score_runs(EVENTS, version, scored_at=at)
    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract(EVENTS, hist, version, scored_at=at)
    viewed = eh.run_sql(
        "SELECT * EXCLUDE (history_file, history_line) FROM history ORDER BY history_line",
        hist,
        version=version,
    ).table
    assert scored.schema == viewed.schema
    assert scored.schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert scored.schema.field("run_ts").type == pa.timestamp("us", tz="UTC")
    assert scored.num_rows == 56
    assert scored.to_pylist() == viewed.to_pylist()
    first = scored.slice(0, 1).to_pylist()[0]
    assert (first["ts"], first["run_ts"]) == (
        dt.datetime(2026, 5, 2, 3, 4, 5, tzinfo=dt.UTC),
        dt.datetime(2026, 11, 1, 10, 31, tzinfo=dt.UTC),
    )


def _times(name: str, table: pa.Table | None) -> list[tuple[str, str]]:
    """Each column of ``table`` that holds a date or a time anywhere in its type, with it."""

    def temporal(t: pa.DataType) -> bool:
        if pa.types.is_struct(t):
            return any(temporal(f.type) for f in t)
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return temporal(t.value_type)
        return bool(pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t))

    if table is None:
        return []
    return [(f"{name}.{f.name}", str(f.type)) for f in table.schema if temporal(f.type)]


def test_every_time_the_api_returns_is_utc(tmp_path: Path) -> None:
    """The times of every table the API returns, listed: each a UTC TIMESTAMPTZ (or a
    date). routes' ``newest_evidence`` was a TIMESTAMP with no time zone beside the
    history's and the pipelines' UTC ones; score_runs' ts and run_ts were text."""
    hist = tmp_path / "effectiveness.jsonl"
    found = _times("score_runs", effectiveness.score_runs(EVENTS))
    effectiveness.extract([EVENTS], hist)
    found += _times("report", eh.report(hist).table)
    for view in ("history", "history_current"):
        found += _times(view, eh.run_sql(f"SELECT * FROM {view}", hist).table)
    result = pipeline.evaluate_pipelines(TASKS, [PLANS])
    for name in ("pipelines", "dimensions", "recommendations", "tasks"):
        found += _times(f"pipeline.{name}", getattr(result, name))
    phist = tmp_path / "pipelines.jsonl"
    pipeline.append_history(result, phist)
    report = pipeline.history_report(phist)
    found += _times("history_report.trend", report.trend)
    found += _times("history_report.pipelines", report.pipelines)
    tables, _ = pipeline.history_tables(phist)
    found += _times("pipeline_history", tables["pipeline_history"])
    ranked = plugin.rank([SKILLS])
    found += _times("plugin.report", ranked.report) + _times("plugin.ranking", ranked.ranking)
    rep = routes.router_rows([REPO / "examples" / "project" / ".archeflow" / "episodes"])
    for name in ("findings", "comparisons", "cascades", "matrix", "router_rows"):
        found += _times(f"routes.{name}", getattr(rep, name))
    utc = "timestamp[us, tz=UTC]"
    assert found == [
        ("score_runs.ts", utc),
        ("score_runs.run_ts", utc),
        ("history.ts", utc),
        ("history.run_ts", utc),
        ("history_current.ts", utc),
        ("history_current.run_ts", utc),
        ("pipeline.pipelines.started_at", utc),
        ("pipeline.pipelines.finished_at", utc),
        ("pipeline.tasks.created_at", utc),
        ("pipeline.tasks.completed_at", utc),
        ("pipeline.tasks.updated_at", utc),
        ("history_report.trend.period_start", "date32[day]"),
        ("history_report.pipelines.period_ts", utc),
        ("pipeline_history.ts", utc),
        ("pipeline_history.evaluated_at", utc),
        ("pipeline_history.eval_date", "date32[day]"),
        ("pipeline_history.started_at", utc),
        ("pipeline_history.finished_at", utc),
        ("routes.findings.freshness__newest_evidence", utc),
        ("routes.comparisons.freshness__newest_evidence", utc),
        ("routes.cascades.freshness__newest_evidence", utc),
        ("routes.matrix.newest_evidence", utc),
    ]
    # ... and the JSON still writes them as it did: UTC, with a Z
    newest = routes.nest_rows(rep.matrix)[0]["newest_evidence"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", newest), newest


def _leaves(name: str, t: pa.DataType) -> list[tuple[str, str]]:
    """Each value type inside ``t`` (struct fields and list items too), with its path."""
    if pa.types.is_struct(t):
        return [leaf for f in t for leaf in _leaves(f"{name}.{f.name}", f.type)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _leaves(f"{name}[]", t.value_type)
    return [(name, str(t))]


def _every_result(tmp: Path) -> dict[str, pa.Table]:
    """Every table the API returns (each pack, each scoring version, each view of ``sql``,
    each file of ``export``), on inputs that hold nulls where a value is unknown."""
    import pyarrow.parquet as pq

    golden = REPO / "tests" / "analytics" / "data" / "history.jsonl"  # legacy lines, nulls
    team = REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml"
    hist, legacy = tmp / "effectiveness.jsonl", tmp / "legacy.jsonl"
    effectiveness.extract([EVENTS], hist)
    effectiveness.extract([EVENTS], legacy, "archeflow-legacy")
    found: dict[str, pa.Table] = {
        "score_runs": effectiveness.score_runs(EVENTS),
        "score_runs.legacy": effectiveness.score_runs(EVENTS, "archeflow-legacy"),
        "extract.records": effectiveness.extract([EVENTS], None, write=False).records,
        "report": eh.report(golden, version="all").table,
        "schema": eh.schema(hist).table,
    }
    for name, h in (("v1", hist), ("legacy", legacy)):
        found[f"summary.{name}"] = eh.summary(h).table
        found[f"recommend.{name}"] = eh.recommend(h, team).table
        for view in [*eh.HISTORY_VIEWS, *eh.EVENT_VIEWS]:
            found[f"sql.{view}.{name}"] = eh.run_sql(
                f"SELECT * FROM {view}", h, events=[EVENTS]
            ).table
    for f in eh.export(tmp / "x.parquet", hist, events=[EVENTS]).files:
        found[f"export.{Path(f).name}"] = pq.read_table(f)
    tasks = tmp / "tasks.jsonl"
    shutil.copyfile(TASKS, tasks)
    with tasks.open("a", encoding="utf-8") as f:  # deviations: a count, and unknown
        for i, meta in enumerate(({"deviations": ["scope"]}, {})):
            task = {"pipelineId": "p-dev", "id": f"d{i}", "status": "completed", "metadata": meta}
            f.write(json.dumps(task) + "\n")
    result = pipeline.evaluate_pipelines([tasks], [PLANS])
    for name in ("pipelines", "dimensions", "recommendations", "tasks"):
        found[f"pipeline.{name}"] = getattr(result, name)
    found["pipeline.summary_rows"] = pipeline.summary_rows(result)
    phist = tmp / "pipelines.jsonl"
    pipeline.append_history(result, phist)
    report = pipeline.history_report(phist)
    found["history_report.trend"] = report.trend
    found["history_report.pipelines"] = report.pipelines
    tables, _ = pipeline.history_tables(phist)
    found.update(tables)
    inputs = REPO / "tests" / "plugin" / "inputs"
    ranked = plugin.rank(
        [SKILLS],
        judge=inputs / "judge.jsonl",
        mc=inputs / "mc.jsonl",
        matchups=inputs / "matchups.jsonl",
    )
    found["plugin.report"], found["plugin.ranking"] = ranked.report, ranked.ranking
    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes" / "episodes.jsonl"
    untiered = tmp / "episodes.jsonl"  # a candidate model of no known tier
    untiered.write_text(
        episodes.read_text(encoding="utf-8").replace("claude-sonnet-4", "gpt-x"), "utf-8"
    )
    rep = routes.router_rows([untiered])
    for name in ("findings", "comparisons", "cascades", "matrix", "router_rows"):
        table = getattr(rep, name)
        assert table is not None
        found[f"routes.{name}"] = table
    return found


def test_every_result_types_its_values_by_one_rule(tmp_path: Path) -> None:
    """One type per kind of value in every table the API returns and ``sql``/``export``
    write: whole numbers (counts, ranks, orders, tiers, labels) BIGINT (int64), numbers
    DOUBLE, flags BOOLEAN, times UTC timestamps, days date32. ``report``'s
    ``window_runs`` and ``model_tier_rank``, ``summary``'s ``window_runs``, a pipeline
    evaluation's ``dimensions.ord``, routes' ``incumbent__tier``, ``candidate__tier``,
    ``type_rank`` and ``quality_label`` were int32, a pipeline task's ``deviations``
    uint64, beside int64 counts: Polars refuses to concatenate frames whose types differ
    (``SchemaError: type Int64 is incompatible with expected type Int32``)."""
    found = _every_result(tmp_path)
    leaves = [
        (f"{name}.{leaf}", typ)
        for name, table in found.items()
        for f in table.schema
        for leaf, typ in _leaves(f.name, f.type)
    ]
    allowed = {"int64", "double", "bool", "string", "timestamp[us, tz=UTC]", "date32[day]"}
    assert [(col, typ) for col, typ in leaves if typ not in allowed] == []
    # Widened, not changed: unknown stays null (no tier, no deviations list), known as it was.
    report = found["report"].to_pylist()
    assert {(r["model"], r["model_tier_rank"], r["window_runs"]) for r in report} == {
        ("haiku", 1, 10),
        ("x|y`z", None, 10),
        ("claude-3-5-haiku", 1, 10),
        ("unknown", None, 10),
        ("claude-sonnet-4-5", 2, 10),
        ("claude-opus-4", 3, 10),
    }
    (comparison,) = found["routes.comparisons"].to_pylist()
    assert (comparison["incumbent__tier"], comparison["candidate__tier"]) == (1, None)
    tasks = found["pipeline.tasks"].to_pylist()
    assert [(t["task_id"], t["deviations"]) for t in tasks if t["pipeline_id"] == "p-dev"] == [
        ("d0", 1),
        ("d1", None),
    ]
    assert found["pipeline.dimensions"].column("ord").to_pylist()[:5] == [1, 2, 3, 4, 5]
    # Flags are booleans, not 0/1: one of each pack. quality_label is the one 0/1 whole
    # number, on purpose: a learned router's class label (README, routes).
    for name, column in (
        ("report", "trend_significant"),
        ("recommend.v1", "model_tier_differs"),
        ("sql.run_scores.v1", "cycle_impact"),
        ("pipeline.tasks", "terminal"),
        ("pipeline.pipelines", "test_pass_rate_verified"),
        ("routes.comparisons", "historical__sufficient"),
        ("routes.comparisons", "freshness__stale"),
    ):
        assert found[name].schema.field(column).type == pa.bool_(), (name, column)
    labels = found["routes.router_rows"].column("quality_label")
    assert (labels.type, set(labels.to_pylist())) == (pa.int64(), {0, 1})


def test_the_times_of_the_results_are_utc_datetimes(tmp_path: Path) -> None:
    """A result's own times, as its tables' are: timezone-aware UTC datetimes. A routes
    report's ``as_of`` was naive, a pipeline evaluation's ``evaluated_at`` and the nightly
    job's ``started_at`` and ``finished_at`` text; what the CLI writes of them is as it was
    (the JSON and markdown goldens)."""
    from runscore.cli.nightly import Renderer, pack_hooks
    from runscore.engine import nightly

    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes"
    plus2 = dt.timezone(dt.timedelta(hours=2))
    for given in (dt.datetime(2026, 5, 2, 3, 4, 5), dt.datetime(2026, 5, 2, 5, 4, 5, tzinfo=plus2)):
        rep = routes.analyze([episodes], as_of=given)
        assert (rep.as_of, rep.as_of.tzinfo) == (
            dt.datetime(2026, 5, 2, 3, 4, 5, tzinfo=dt.UTC),
            dt.UTC,
        )
        assert rep.to_dict()["as_of"] == "2026-05-02T03:04:05Z"
    dated = pipeline.evaluate_pipelines(TASKS, eval_date=dt.date(2026, 3, 7))
    assert dated.evaluated_at == dt.datetime(2026, 3, 7, tzinfo=dt.UTC)
    assert dated.evaluated_at.tzinfo is dt.UTC
    now = dt.datetime(2026, 5, 2, 0, 30, 9, 987654, tzinfo=plus2)  # 1 May in UTC
    timed = pipeline.evaluate_pipelines(TASKS, now=now)
    assert (timed.evaluated_at, timed.eval_date) == (
        dt.datetime(2026, 5, 1, 22, 30, 9, tzinfo=dt.UTC),
        dt.date(2026, 5, 1),
    )
    assert {r["evaluated_at"] for r in timed.history_records} == {"2026-05-01T22:30:09Z"}
    project = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "project", project)
    ran = nightly.run_nightly([project], tmp_path / "out", renderer=Renderer(), hooks=pack_hooks())
    assert ran.finished_at is not None
    assert (ran.started_at.tzinfo, ran.finished_at.tzinfo) == (dt.UTC, dt.UTC)
    assert ran.started_at <= ran.finished_at
    log = json.loads((Path(ran.out_dir) / "runlog.json").read_text(encoding="utf-8"))
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    assert (log["started_at"], log["finished_at"]) == (
        ran.started_at.strftime(stamp),
        ran.finished_at.strftime(stamp),
    )
    # The day is a date, as a pipeline evaluation's eval_date (it was its text); the run
    # log writes it as it did.
    assert (type(ran.date), log["date"]) == (dt.date, ran.date.isoformat())
    assert ran.out_dir.endswith(log["date"])
    dated = nightly.run_nightly(
        [project], tmp_path / "out", renderer=Renderer(), date=dt.date(2026, 3, 7)
    )
    assert dated.date == dt.date(2026, 3, 7) and dated.as_dict()["date"] == "2026-03-07"


def test_extract_lists_what_it_says_of_its_input_as_line_issues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ExtractResult`` listed the lines, files and warnings it said of as dicts
    (``res.skipped_lines[0]["file"]``) where every other result (routes, plugin, the
    history readers) lists ``LineIssue``: each is one now, a warning a ``RunIssue`` (with
    its run), also when said again of an unchanged file; the JSON summary is as it was."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "h.jsonl").write_text("")  # the history, found among the run logs
    (folder / "e.jsonl").write_text("")
    (folder / "a.jsonl").write_text(
        '{"run_id":"w","seq":1,"type":"run.start"}\n'
        '{"run_id":"w","seq":2,"parent":[9],"type":"review.verdict","agent":"guardian"}\n'
        '{"run_id":"w","seq":3,"parent":[2],"type":"run.complete"}\n'
        "not json\n"
    )
    summaries = []
    for _ in range(2):  # read, then said again of the unchanged files
        res = effectiveness.extract(["in", "gone.jsonl"], "in/h.jsonl")
        issues = [*res.skipped_lines, *res.unreadable, *res.no_lines, *res.excluded]
        assert {type(i) for i in issues} == {LineIssue}
        assert [(i.location(), i.reason) for i in issues] == [
            ("in/a.jsonl:4", "not JSON: Expecting value: line 1 column 1 (char 0)"),
            ("gone.jsonl", "no such file or directory"),
            ("in/e.jsonl", "empty (no events)"),
            ("in/h.jsonl", "not read: it is the history this extract writes to"),
        ]
        (w,) = res.warnings
        assert isinstance(w, effectiveness.RunIssue) and isinstance(w, LineIssue)
        assert (w.run_id, w.location(), w.reason) == (
            "w",
            "in/a.jsonl:2",
            "parent edge to seq 9 ignored: not before seq 2",
        )
        said = ("skipped_lines", "unreadable", "warnings", "excluded", "empty_files")
        summaries.append(json.dumps({k: v for k, v in res.summary().items() if k in said}))
    assert summaries == [summaries[0]] * 2
    assert summaries[0] == (
        '{"skipped_lines": [{"file": "in/a.jsonl", "line": 4, "reason": "not JSON: Expecting '
        'value: line 1 column 1 (char 0)"}], "unreadable": [{"file": "gone.jsonl", "line": 0, '
        '"reason": "no such file or directory"}], "warnings": [{"run_id": "w", "file": '
        '"in/a.jsonl", "line": 2, "reason": "parent edge to seq 9 ignored: not before seq 2"}], '
        '"excluded": [{"file": "in/h.jsonl", "reason": "not read: it is the history this extract '
        'writes to"}], "empty_files": [{"file": "in/e.jsonl", "reason": "empty (no events)"}]}'
    )


def test_every_function_the_readme_names_runs_as_it_says(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """What README's "Python API" names in its text (its code blocks run in
    tests/test_docs.py), each called as it says on the bundled sample: the pipeline views
    for ``run_sql``, ``history check``/``repair``, ``pipeline --report``, the router rows,
    the nightly job; Polars frames of the tables; the errors' family; logging only, at
    DEBUG, and nothing on stdout or stderr."""
    import logging
    import shutil

    import polars
    from runscore.cli.nightly import Renderer, pack_hooks
    from runscore.engine import errors, nightly

    caplog.set_level(logging.DEBUG, logger="runscore.sql")
    hist = tmp_path / "effectiveness.jsonl"
    done = effectiveness.extract([EVENTS], hist)
    result = pipeline.evaluate_pipelines(TASKS, [PLANS])
    phist = tmp_path / "pipelines.jsonl"
    written = pipeline.append_history(result, phist).written
    tables, skipped = pipeline.history_tables(phist)
    assert skipped == []
    counted = eh.run_sql(
        "SELECT count(*) AS n FROM pipeline_history", hist, extra=tables, pipelines=[phist]
    ).table
    assert counted.to_pylist() == [{"n": written}]
    assert history_tools.check(hist).usable == done.records_written
    assert history_tools.repair(hist, tmp_path / "repaired.jsonl").kept == done.records_written
    assert pipeline.history_report(phist).pipelines.num_rows == written
    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes"
    rows = routes.router_rows([episodes]).router_rows
    assert rows is not None and rows.num_rows > 0
    for table in (
        effectiveness.score_runs(EVENTS),
        eh.report(hist).table,
        result.pipelines,
        plugin.rank([SKILLS]).ranking,
        routes.analyze([episodes]).findings,
        rows,
    ):
        assert polars.from_arrow(table).shape == (table.num_rows, table.num_columns)
    project = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "project", project)
    ran = nightly.run_nightly([project], tmp_path / "out", renderer=Renderer(), hooks=pack_hooks())
    assert isinstance(ran, nightly.NightlyResult) and ran.scopes and ran.outputs
    for e in (errors.UsageError, errors.NothingReadable, errors.LockTimeout):
        assert issubclass(e, errors.RunscoreError)
    assert any(r.name == "runscore.sql" and r.levelno == logging.DEBUG for r in caplog.records)
    assert {r.name for r in caplog.records} <= {"runscore.sql", "runscore.cache"}
    assert capfd.readouterr() == ("", "")


def test_the_lists_the_readme_names_hold_every_rejected_line(tmp_path: Path) -> None:
    """README says where each result's rejected input lines come back. It named a routes
    report's ``rejected``, which holds only the episodes the SQL rejects: a line that is no
    JSON is in ``issues``, so a user reading ``rejected`` missed it. Each list named holds
    both: a line that is not JSON and a record rejected."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    said = readme.split("rejected input lines come back in the results", 1)[1].split(")")[0]
    names = re.findall(r"`(\w+)` of an? ", said)
    runs = tmp_path / "runs.jsonl"
    runs.write_text(_run_log(tmp_path / "r.jsonl").read_text() + "not json\n{}\n")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(TASKS.read_text() + "not json\n")
    judge = tmp_path / "judge.jsonl"
    judge.write_text("not json\n{}\n")
    episodes = tmp_path / "episodes.jsonl"
    sample = REPO / "examples" / "project" / ".archeflow" / "episodes" / "episodes.jsonl"
    episodes.write_text(sample.read_text().split("\n", 1)[0] + '\nnot json\n{"episodeId": 5}\n')
    results = [
        effectiveness.extract([runs], None, write=False),
        pipeline.evaluate_pipelines([tasks]),
        plugin.rank([SKILLS], judge=judge),
        routes.analyze([episodes]),
    ]
    lines = []
    for name, result in zip(names, results, strict=True):
        listed = getattr(result, name)
        lines.append(
            sorted((str(i.file), i.line) for i in (listed() if callable(listed) else listed))
        )
    assert lines == [
        [(str(runs), 4), (str(runs), 5)],
        [(str(tasks), 22), (str(tasks), 23)],
        [(str(judge), 1), (str(judge), 2)],
        [(str(episodes), 2), (str(episodes), 3)],
    ]


def test_plugin_takes_a_list_of_files_for_each_input(tmp_path: Path) -> None:
    """``judge``, ``mc`` and ``matchups`` take one path or a list: every file is read, in
    order, as one file holding their lines one after the other (the history's content hash
    too: the same lines split across files are the same evidence)."""
    lines = [
        json.dumps(
            {
                "skill": "async-python-patterns",
                "judge": judge,
                "scores": {"triggering_accuracy": t, "output_quality": 0.7},
            }
        )
        + "\n"
        for judge, t in (("a", 0.8), ("b", 0.3))
    ]
    a, b, ab = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "ab.jsonl"
    a.write_text(lines[0])
    b.write_text(lines[1])
    ab.write_text("".join(lines))
    when = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    split = plugin.score([SKILLS], judge=[a, b], history_path=tmp_path / "h1.jsonl", now=when)
    whole = plugin.score([SKILLS], judge=ab, history_path=tmp_path / "h2.jsonl", now=when)
    judges = {s["skill"]: s["judges"] for s in split.skills()}["async-python-patterns"]
    assert judges["count"] == 2 and judges["kappa"] is not None
    assert split.skills() == whole.skills()
    assert (tmp_path / "h1.jsonl").read_text() == (tmp_path / "h2.jsonl").read_text()
    assert plugin.rank([SKILLS], judge=[]).ranking == plugin.rank([SKILLS]).ranking


def _api_errors(tmp: Path) -> list[tuple[str, Any, str]]:
    """Each API call given a bad argument, and the message it raises, naming the argument
    as the call gave it (each said ``--wait``, ``--out``, ...: the command's options)."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    hist = tmp / "effectiveness.jsonl"
    effectiveness.extract([EVENTS], hist)
    team = REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml"
    (tmp / "dir").mkdir()
    (tmp / "file").write_text("", encoding="utf-8")
    (tmp / "bad.jsonl").write_text("not json\n", encoding="utf-8")
    project = tmp / "proj"
    shutil.copytree(REPO / "examples" / "project", project)
    empty = ": an empty path (an unset variable?); give a"

    def run(**kw: Any) -> Any:
        args: dict[str, Any] = {"roots": [project], "out": tmp / "out", "renderer": Renderer()}
        return lambda: nightly.run_nightly(**{**args, **kw})

    one = "works on one scoring version; "
    return [
        ("nightly wait", run(wait=-1), "wait must be 0 or more seconds"),
        ("nightly roots", run(roots=[""]), f"roots{empty} folder"),
        ("nightly out", run(out=""), f"out{empty} folder"),
        (
            "nightly out file",
            run(out=tmp / "file"),
            f"out {tmp}/file: exists and is not a directory",
        ),
        ("nightly history", run(history_path=""), f"history_path{empty} file"),
        (
            "nightly history dir",
            run(history_path=tmp / "dir"),
            f"history_path {tmp}/dir: is a directory, not a file",
        ),
        (
            "nightly history under a file",
            run(history_path=tmp / "file" / "h.jsonl"),
            f"history_path {tmp}/file/h.jsonl: {tmp}/file is a file where a folder is needed",
        ),
        (
            "nightly date",
            lambda: nightly.parse_date("2026-02-30"),
            'date "2026-02-30" is not a date in YYYY-MM-DD form',
        ),
        (
            "pipeline date",
            lambda: pipeline.parse_date("2026-02-30"),
            'date "2026-02-30" is not a date in YYYY-MM-DD form',
        ),
        ("as_of", lambda: routes.parse_as_of("soon"), 'as_of: not an ISO date-time: "soon"'),
        (
            "as_of range",
            lambda: routes.parse_as_of("0001-01-01T00:00:00+01:00"),
            'as_of: outside the years 1 to 9999 in UTC: "0001-01-01T00:00:00+01:00"',
        ),
        (
            "window",
            lambda: eh.report(hist, window=0),
            "window must be a whole number of runs from 1 to 999999, not 0",
        ),
        (
            "window range",
            lambda: eh.recommend(hist, team, window=10**6),
            "window must be a whole number of runs from 1 to 999999, not 1000000",
        ),
        (
            "recommend all",
            lambda: eh.recommend(hist, team, version="all"),
            f'recommend {one}version="all" is for report',
        ),
        (
            "summary all",
            lambda: eh.summary(hist, version="all"),
            f'summary {one}version="all" is for report',
        ),
        (
            "sql all",
            lambda: eh.run_sql("SELECT 1", hist, version="all"),
            "sql works on one scoring version (history and history_current hold every "
            'version\'s lines); version="all" is for report',
        ),
        (
            "repair out and in place",
            lambda: history_tools.repair(hist, tmp / "r.jsonl", in_place=True),
            "give either out or in_place=True, not both",
        ),
        (
            "repair onto itself",
            lambda: history_tools.repair(hist, hist),
            f"{hist}: that is the history itself; use in_place=True",
        ),
        (
            "repair out dir",
            lambda: history_tools.repair(hist, tmp / "dir"),
            f"{tmp}/dir: is a directory; give a file as out",
        ),
        (
            "repair out exists",
            lambda: history_tools.repair(hist, tmp / "file"),
            f"{tmp}/file: exists; choose another out or add force=True",
        ),
        (
            "repair out kept beside",
            lambda: history_tools.repair(hist, f"{hist}.lock"),
            f"{hist}.lock: runscore keeps that file beside the history {hist} (a lock, the "
            "extract manifest, the cache, the nightly journal or the pipeline history); choose "
            "another out",
        ),
        (
            "repair out the nightly journal",
            lambda: history_tools.repair(hist, f"{hist}.nightly.journal", force=True),
            f"{hist}.nightly.journal: runscore keeps that file beside the history {hist} (a "
            "lock, the extract manifest, the cache, the nightly journal or the pipeline "
            "history); choose another out",
        ),
        (
            "repair keeping nothing",
            lambda: history_tools.repair(tmp / "bad.jsonl", tmp / "r.jsonl"),
            f"no line of the history {tmp}/bad.jsonl could be read: a repaired copy would "
            f"hold none, so none is written (force=True writes it empty):\n  {tmp}/bad.jsonl:1: "
            "not JSON: Expecting value: line 1 column 1 (char 0)",
        ),
        (
            "export to kept beside",
            lambda: eh.export(f"{hist}.cache.duckdb", hist),
            f"{hist}.cache.duckdb: runscore keeps that file beside the history {hist} (a lock, "
            "the extract manifest, the cache, the nightly journal or the pipeline history); "
            "choose another to",
        ),
        (
            "judge",
            lambda: plugin.rank([SKILLS], judge=tmp / "nope.jsonl"),
            f"judge {tmp}/nope.jsonl: no such file",
        ),
        (
            "plans",
            lambda: pipeline.evaluate_pipelines([TASKS], [tmp / "nope.jsonl"]),
            f"plans {tmp}/nope.jsonl: no such file",
        ),
        (
            "mc",
            lambda: plugin.rank([SKILLS], mc=""),
            "mc: an empty path (an unset variable?); give a file",
        ),
        (
            "plugin no roots",
            lambda: plugin.rank([]),
            "give at least one folder in roots to search for skills",
        ),
    ]


def test_an_api_error_names_the_argument_as_the_call_gave_it(tmp_path: Path) -> None:
    """A Python caller passed ``wait=``, ``out=``, ``history_path=``, yet was told of
    ``--wait``, ``--out``, ``--history PATH``: the command's options, which it never gave.
    Each message names the argument as the call spells it now (``e.params`` the
    parameters it names), and the CLI, which says ``e.cli_message``, its option, as before
    (the CLI tests pin those words)."""
    cases = _api_errors(tmp_path)
    said = {}
    for name, call, _ in cases:
        with pytest.raises(errors.RunscoreError) as e:
            call()
        said[name] = str(e.value)
        assert "--" not in str(e.value), name
    assert said == {name: message for name, _, message in cases}


def test_an_api_error_keeps_the_options_for_the_command_line(tmp_path: Path) -> None:
    """``cli_message`` is what the CLI says: the options it names as the command line
    spells them; ``params`` the Python parameters, the one at fault first."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import history as history_module
    from runscore.engine import nightly

    project = tmp_path / "proj"
    shutil.copytree(REPO / "examples" / "project", project)
    with pytest.raises(UsageError) as e:
        nightly.run_nightly([project], tmp_path / "out", renderer=Renderer(), wait=-1)
    assert (str(e.value), e.value.cli_message, e.value.params) == (
        "wait must be 0 or more seconds",
        "--wait must be 0 or more seconds",
        ("wait",),
    )
    with pytest.raises(UsageError) as e:
        history_tools.repair(tmp_path / "h.jsonl", tmp_path / "r.jsonl", in_place=True)
    assert (e.value.cli_message, e.value.params) == (
        "give either --out or --in-place, not both",
        ("out", "in_place"),
    )
    out = tmp_path / "out"
    out.mkdir()
    # flock: a second open file of the same lock conflicts, in one process too
    with history_module.locked(str(out / ".nightly"), timeout=0, what="nightly"):
        with pytest.raises(errors.LockTimeout) as held:
            nightly.run_nightly([project], out, renderer=Renderer())
    lock = f"{out}/.nightly.lock"
    assert str(held.value).endswith(f"{lock}; gave up after 0s (use wait=SECONDS to wait longer)")
    assert held.value.cli_message.endswith(
        f"{lock}; gave up after 0s (use --wait SECONDS to wait longer)"
    )
    assert held.value.params == ("wait",)
    with pytest.raises(UsageError) as e:
        plugin.score([])
    assert (e.value.cli_message, e.value.params) == (
        "give at least one ROOT folder to search for skills",
        ("roots",),
    )


def test_result_notes_name_the_argument_as_the_call_gave_it(tmp_path: Path) -> None:
    """A result's notes told a Python caller of ``--sql-version VERSION``, ``--events``,
    ``--root``: the command's options, which it never gave. Each note names the argument
    as a call spells it (``version=VERSION``); one that names an argument is an
    ``errors.Note``, whose ``cli`` (``errors.cli_text``) the CLI says, as before (the
    CLI tests pin those words); the run log, which both write, names neither."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    hist = REPO / "tests" / "analytics" / "data" / "history.jsonl"
    legacy = f"{hist} also holds archeflow-legacy lines, "
    one = (
        f"{legacy}not in archetype_runs, archetype_aggregates and report (they hold "
        "effectiveness/v1's; history and history_current hold every version's): use "
    )
    target = tmp_path / "x.parquet"
    eh.export(target, hist, events=[EVENTS])
    stale = sorted(str(p) for p in tmp_path.glob("x.*.parquet"))
    assert stale
    removed = ": removed: an earlier export's event table (this export has no "
    said = {
        "report": eh.report(hist).notes,
        "summary": eh.summary(hist).notes,
        "sql": eh.run_sql("SELECT count(*) FROM report", hist).notes,
        "export": sorted(eh.export(target, hist).notes),
    }
    assert {k: [(n, errors.cli_text(n)) for n in v] for k, v in said.items()} == {
        "report": [
            (
                f'{legacy}reported separately: use version=VERSION or version="all"',
                f"{legacy}reported separately: use --sql-version VERSION or --sql-version all",
            )
        ],
        "summary": [
            (
                f"{legacy}not used here: use version=VERSION",
                f"{legacy}not used here: use --sql-version VERSION",
            )
        ],
        "sql": [(f"{one}version=VERSION", f"{one}--sql-version VERSION")],
        "export": [(f"{p}{removed}events)", f"{p}{removed}--events)") for p in stale],
    }
    project = tmp_path / "proj"
    shutil.copytree(REPO / "examples" / "project", project)
    res = nightly.run_nightly([project, f"{project}/"], tmp_path / "out", renderer=Renderer())
    assert [(r["status"], r["reason"]) for r in res.roots] == [
        ("ok", None),
        ("duplicate", "same directory as an earlier root"),
    ]


def test_a_window_that_is_no_whole_number_is_refused_naming_it(tmp_path: Path) -> None:
    """``window="10"`` was a TypeError from deep inside, and ``2.5`` or ``True`` were
    averaged as windows of 2 and 1 runs without a word. Each is a ``UsageError`` naming
    ``window``, in the words the CLI's ``--window`` says; a NumPy integer is a number."""
    hist = tmp_path / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    team = REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml"
    calls = {
        "report": lambda w: eh.report(hist, window=w),
        "summary": lambda w: eh.summary(hist, window=w),
        "recommend": lambda w: eh.recommend(hist, team, window=w),
    }
    said = []
    for name, call in calls.items():
        for bad in ("10", 2.5, True):
            with pytest.raises(UsageError) as e:
                call(bad)
            said.append((name, str(e.value), e.value.params))
    assert said == [
        (name, f"window must be a whole number of runs from 1 to 999999, not {q}", ("window",))
        for name in calls
        for q in ('"10"', "2.5", "true")
    ]
    np = pytest.importorskip("numpy")
    assert eh.report(hist, window=np.int64(3)).window == 3


def test_a_pipeline_eval_date_is_a_day_whatever_the_call_gives(tmp_path: Path) -> None:
    """A ``datetime`` (to Python a ``date``) was taken whole: its time went into the
    history's ``eval_date`` (``2026-01-01T15:30:00``) and the report file names, and
    ``result.eval_date`` was no ``date``. It is its day in UTC; ``YYYY-MM-DD`` text is read
    as ``--date`` reads it, and anything else is a ``UsageError`` naming ``eval_date``,
    where it was an AttributeError."""
    minus_two = dt.timezone(dt.timedelta(hours=-2))
    for given in (
        dt.datetime(2026, 1, 1, 23, 30, tzinfo=minus_two),
        dt.datetime(2026, 1, 2, 15, 30),
        "2026-01-02",
        dt.date(2026, 1, 2),
    ):
        res = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date=given)
        first = res.history_records[0]
        assert (
            type(res.eval_date),
            res.eval_date,
            res.evaluated_at,
            first["eval_date"],
            res.report_basename(first["pipeline_id"]),
        ) == (
            dt.date,
            dt.date(2026, 1, 2),
            dt.datetime(2026, 1, 2, tzinfo=dt.UTC),
            "2026-01-02",
            f"pipeline-eval-{first['pipeline_id']}-2026-01-02",
        ), given
    said = []
    for bad in ("2026-1-2", 20260102):
        with pytest.raises(UsageError) as e:
            pipeline.evaluate_pipelines([TASKS], eval_date=bad)  # type: ignore[arg-type]
        said.append((str(e.value), e.value.cli_message, e.value.params))
    assert said == [
        (
            'eval_date: "2026-1-2" is not a date in YYYY-MM-DD form',
            '--date: "2026-1-2" is not a date in YYYY-MM-DD form',
            ("eval_date",),
        ),
        (
            "eval_date: give a datetime.date or YYYY-MM-DD text, not int",
            "--date: give a datetime.date or YYYY-MM-DD text, not int",
            ("eval_date",),
        ),
    ]


def test_the_report_names_refused_are_of_the_day_the_evaluation_writes(tmp_path: Path) -> None:
    """``refuse_inputs_written`` put ``eval_date`` in the names it looked for as given: a
    ``datetime``'s time (``pipeline-eval-*-2026-01-02T15:30:00.md``) matched none of the
    names ``evaluate_pipelines`` writes (its day in UTC), so a symlink at one was found only
    at its write, once everything was scored; text was an AttributeError. The day is taken
    as the evaluation takes it now, ``eval_date``'s or else ``now``'s."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "pipeline-eval-summary-2026-01-02.md").symlink_to(tmp_path / "elsewhere")
    minus_two = dt.timezone(dt.timedelta(hours=-2))
    said = set()
    for day in (
        {"eval_date": dt.datetime(2026, 1, 2, 15, 30)},
        {"eval_date": dt.datetime(2026, 1, 1, 23, 30, tzinfo=minus_two)},
        {"eval_date": "2026-01-02"},
        {"now": dt.datetime(2026, 1, 1, 23, 30, tzinfo=minus_two)},
        {"now": "2026-01-02T08:00:00Z"},
    ):
        with pytest.raises(UsageError) as e:
            pipeline.refuse_inputs_written([TASKS], None, out_dir=str(out), **day)  # type: ignore[arg-type]
        said.add((e.value.cli_message, e.value.params))
    assert said == {
        (f"{out}/pipeline-eval-summary-2026-01-02.md: refusing to write through a symlink",
         ("out_dir",)),
    }  # fmt: skip
    # Another day's names are not this one's: nothing refused.
    pipeline.refuse_inputs_written([TASKS], None, out_dir=str(out), now=dt.date(2026, 1, 3))


def test_routes_take_the_clock_and_policy_a_notebook_gives(tmp_path: Path) -> None:
    """``as_of="2026-03-01"``, ``as_of=date(...)`` and ``policy={"tolerance": 0.1}`` were
    AttributeErrors deep inside. Text is read as ``--as-of`` reads it, a date is its
    00:00 UTC, a mapping is checked as a policy file's settings are; anything else is a
    ``UsageError`` naming the argument."""
    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes"
    by_objects = routes.analyze(
        [episodes],
        routes.build_policy({"tolerance": 0.1}),
        dt.datetime(2026, 3, 1, tzinfo=dt.UTC),
    ).to_dict()
    for policy, as_of in (
        ({"tolerance": 0.1}, "2026-03-01"),
        ({"tolerance": 0.1}, dt.date(2026, 3, 1)),
    ):
        rep = routes.analyze([episodes], policy, as_of)
        assert rep.as_of == dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
        assert rep.to_dict() == by_objects
        assert routes.router_rows([episodes], policy, as_of).as_of == rep.as_of
    assert by_objects["policy"]["tolerance"] == 0.1
    said = []
    for policy, as_of in (([("tolerance", 0.1)], None), (None, 20260301), ({"tolerance": 2}, None)):
        with pytest.raises(UsageError) as e:
            routes.analyze([episodes], policy, as_of)  # type: ignore[arg-type]
        said.append((str(e.value), e.value.params))
    assert said == [
        ("policy: give a routes.Policy or a mapping of its settings, not list", ("policy",)),
        ("as_of: give a datetime, a date or ISO text, not int", ("as_of",)),
        ("policy: tolerance must be between 0 and 1, got 2", ("policy",)),
    ]


def test_input_paths_of_no_path_type_are_refused_naming_the_argument(tmp_path: Path) -> None:
    """``os.environ.get("LOGS")`` of an unset variable is None: ``score_runs(None)`` was
    "'NoneType' object is not iterable" from deep inside, naming no argument, as a number
    or a list holding one was. Each is a ``UsageError`` naming the argument, raised before
    anything is written, its ``params`` the argument (they were ())."""
    hist = tmp_path / "h.jsonl"
    calls: list[tuple[Any, str]] = [
        (lambda: effectiveness.score_runs(None), "paths"),
        (lambda: effectiveness.extract(None, hist), "paths"),
        (lambda: pipeline.evaluate_pipelines([TASKS], [None]), "plans"),
        (lambda: routes.analyze(5), "paths"),
        (lambda: plugin.rank(None), "roots"),
        (lambda: eh.export(tmp_path / "x.parquet", hist, events=[3.5]), "events"),
    ]
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [
        (
            f"{name}: give a file or folder (a str or pathlib.Path) or a list of them, not {t}",
            (name,),
        )
        for (_, name), t in zip(
            calls, ["None", "None", "None", "int", "None", "float"], strict=True
        )
    ]
    assert list(tmp_path.iterdir()) == []


def test_the_nightly_date_is_a_day_whatever_the_call_gives(tmp_path: Path) -> None:
    """``run_nightly(..., date=datetime(...))`` (a ``datetime`` is a ``date`` to Python)
    was taken whole: the day's folder was named ``2026-01-02T15:30:00`` and comparing it
    with today raised a TypeError. It is its day in UTC, text is read as ``--date``, and
    any other type is a ``UsageError`` naming ``date``."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    project = tmp_path / "proj"
    shutil.copytree(REPO / "examples" / "project", project)
    minus_two = dt.timezone(dt.timedelta(hours=-2))
    res = nightly.run_nightly(
        [project],
        tmp_path / "out",
        renderer=Renderer(),
        date=dt.datetime(2026, 1, 1, 23, 30, tzinfo=minus_two),
    )
    assert (type(res.date), res.date, Path(res.out_dir).name) == (
        dt.date,
        dt.date(2026, 1, 2),
        "2026-01-02",
    )
    with pytest.raises(UsageError) as e:
        nightly.run_nightly([project], tmp_path / "out2", renderer=Renderer(), date=20260102)  # type: ignore[arg-type]
    assert (str(e.value), e.value.params) == (
        "date: give a datetime.date or YYYY-MM-DD text, not int",
        ("date",),
    )
    assert not (tmp_path / "out2").exists()


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_path_and_text_arguments_of_no_such_type_are_refused_naming_them(
    tmp_path: Path,
) -> None:
    """A history, team, output or query argument that is None (``os.environ.get`` of an
    unset variable) or a number was a TypeError from deep inside naming no argument
    (``expected str, bytes or os.PathLike object, not NoneType``; ``version=1``:
    ``expected string or bytes-like object``; ``run_sql(None, h)``: DuckDB's
    ``extract_statements()`` signature). Each is a ``UsageError`` naming it, in ``params``
    too, raised before anything is read or written."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    src = tmp_path / "src"
    src.mkdir()
    hist = src / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    result = pipeline.evaluate_pipelines([TASKS], [PLANS])
    team = REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml"
    out = tmp_path / "out"
    before = _tree(tmp_path)
    calls: list[tuple[Any, str]] = [
        (lambda: eh.report(None), "path: give a file (a str or pathlib.Path), not None"),
        (
            lambda: eh.report(hist, version=1),
            'version: give a scoring version as text ("v1"), not int',
        ),
        (
            lambda: eh.recommend(hist, None),
            "team_yaml: give a file (a str or pathlib.Path), not None",
        ),
        (lambda: eh.recommend(None, team), "path: give a file (a str or pathlib.Path), not None"),
        (lambda: eh.summary(5), "path: give a file (a str or pathlib.Path), not int"),
        (lambda: eh.run_sql(None, hist), "query: give one SELECT statement as text, not None"),
        (lambda: eh.schema(None), "history: give a file (a str or pathlib.Path), not None"),
        (lambda: eh.export(None, hist), "to: give a file (a str or pathlib.Path), not None"),
        (
            lambda: eh.export(out / "x.parquet", None),
            "history: give a file (a str or pathlib.Path), not None",
        ),
        (lambda: eh.parse_team(None), "path: give a file (a str or pathlib.Path), not None"),
        (
            lambda: effectiveness.score_runs([EVENTS], None),
            'version: give a scoring version as text ("v1"), not None',
        ),
        (
            lambda: effectiveness.extract([EVENTS], 5),
            "history_path: give a file (a str or pathlib.Path), not int",
        ),
        (lambda: history_tools.check(None), "path: give a file (a str or pathlib.Path), not None"),
        (
            lambda: history_tools.repair(hist, 5),
            "out: give a file (a str or pathlib.Path), not int",
        ),
        (
            lambda: pipeline.history_report(None),
            "path: give a file (a str or pathlib.Path), not None",
        ),
        (
            lambda: pipeline.history_report(hist, scoring_version=None),
            'scoring_version: give a scoring version ("pipeline/v1"), not None',
        ),
        (
            lambda: pipeline.append_history(result, None),
            "path: give a file (a str or pathlib.Path), not None",
        ),
        (
            lambda: pipeline.write_json_reports(result, None),
            "out_dir: give a folder (a str or pathlib.Path), not None",
        ),
        (
            lambda: plugin.score([SKILLS], history_path=5),
            "history_path: give a file (a str or pathlib.Path), not int",
        ),
        (
            lambda: plugin.rank([SKILLS], mc=5),
            "mc: give a file (a str or pathlib.Path) or a list of them, not int",
        ),
        (
            lambda: routes.load_policy_file(None),
            "path: give a file (a str or pathlib.Path), not None",
        ),
        (
            lambda: nightly.run_nightly([src], None, renderer=Renderer()),
            "out: give a folder (a str or pathlib.Path), not None",
        ),
        (
            lambda: nightly.run_nightly(None, out, renderer=Renderer()),
            "roots: give a folder (a str or pathlib.Path) or a list of them, not None",
        ),
        (
            lambda: nightly.run_nightly([src], out, renderer=Renderer(), version=1),
            'version: give a scoring version as text ("v1"), not int',
        ),
    ]
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(text, (text.split(":")[0],)) for _, text in calls]
    assert _tree(tmp_path) == before


def test_a_lock_wait_that_is_no_number_of_seconds_is_refused_naming_it(tmp_path: Path) -> None:
    """``extract(lock_timeout=-1)`` was taken and tried the lock once, as 0, where the CLI
    refuses ``--lock-timeout -1``; nan was refused only once the lock was to be taken,
    after the scoring, and text was a TypeError from inside. Each lock wait of the API
    (``lock_timeout`` of extract, plugin score, the pipeline history and repair;
    ``wait`` of the nightly job) is refused naming it, before anything is written.
    None still waits for ever."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    src = tmp_path / "src"
    src.mkdir()
    hist = src / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    result = pipeline.evaluate_pipelines([TASKS], [PLANS])
    before = _tree(tmp_path)
    new = tmp_path / "new.jsonl"
    calls: list[tuple[Any, str]] = [
        (lambda t: effectiveness.extract([EVENTS], new, lock_timeout=t), "lock_timeout"),
        (lambda t: plugin.score([SKILLS], history_path=new, lock_timeout=t), "lock_timeout"),
        (lambda t: pipeline.append_history(result, new, lock_timeout=t), "lock_timeout"),
        (lambda t: history_tools.repair(hist, in_place=True, lock_timeout=t), "lock_timeout"),
        (
            lambda t: nightly.run_nightly([src], tmp_path / "out", renderer=Renderer(), wait=t),
            "wait",
        ),
    ]
    said = []
    for call, name in calls:
        for bad in (-1, float("nan"), "10"):
            with pytest.raises(UsageError) as e:
                call(bad)
            said.append((str(e.value), e.value.params))
        assert said[-3:] == [
            (f"{name} must be 0 or more seconds", (name,)),
            (f"{name} must be 0 or more seconds", (name,)),
            (f"{name}: give a number of seconds, not str", (name,)),
        ]
    assert _tree(tmp_path) == before
    assert effectiveness.extract([EVENTS], new, lock_timeout=None).records_written > 0


def test_history_report_notes_say_a_history_of_no_record_of_its_version(tmp_path: Path) -> None:
    """``pipeline --report`` says ``H: no pipeline/v1 pipeline records`` of a history that
    holds none, but the CLI worked it out from the trend rows: ``history_report()`` said
    nothing of it. Its ``notes`` hold it, in the CLI's words (which the CLI now prints)."""
    hist = tmp_path / "p.jsonl"
    hist.write_text("", encoding="utf-8")
    assert pipeline.history_report(hist).notes == [f"{hist}: no pipeline/v1 pipeline records"]
    pipeline.append_history(pipeline.evaluate_pipelines([TASKS], [PLANS]), hist)
    assert pipeline.history_report(hist).notes == []
    # a record of a version this runscore does not score (an older one's, say)
    record = json.loads(hist.read_text(encoding="utf-8").splitlines()[0])
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({**record, "scoring_version": "pipeline/v0"}) + "\n")
    assert pipeline.history_report(other).notes == [f"{other}: no pipeline/v1 pipeline records"]


def test_an_evaluation_counts_its_pipelines_as_the_nightly_job_says_them() -> None:
    """The nightly job's ``N pipeline(s) scored, M not terminal`` and its summary's verdict
    counts were counted in the CLI (``run_batch``) from the result's table: the result
    held no count. ``scored``, ``not_terminal`` and ``verdict_counts`` are the result's."""
    res = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    assert (res.scored, res.not_terminal, res.verdict_counts) == (
        4,
        1,
        {"EXCELLENT": 1, "GOOD": 2, "ACCEPTABLE": 1, "NEEDS_IMPROVEMENT": 0},
    )


def _documented_columns(fn: Any) -> dict[str, list[str]]:
    """The column lists ``fn``'s docstring gives: under each ``Columns of ``T`` ...`` (or
    ``Fields of ``T``:``) line, the names of the ``- ``name``: meaning`` lines after it,
    up to the blank line that ends them."""
    import inspect

    lists: dict[str, list[str]] = {}
    name = None
    for line in (inspect.getdoc(fn) or "").splitlines():
        header = re.match(r"(?:Columns|Fields) of ``(\w+)``", line)
        bullet = re.match(r"- ``(\w+)``:", line)
        if header:
            name = header[1]
            lists[name] = []
        elif bullet and name is not None:
            lists[name].append(bullet[1])
        elif not line.strip() and name is not None and lists[name]:
            name = None
    return lists


def test_the_docstrings_list_the_columns_each_result_has(tmp_path: Path) -> None:
    """``report``, ``summary``, ``history_report``, ``check`` and ``plugin.rank`` said
    their grain but not their columns: each docstring lists them (name: meaning), and
    here they are the result's, in order. ``plugin.score``'s pointed to ``rank``'s, which
    ``help(plugin.score)`` does not show: it lists its own."""
    import dataclasses

    hist = tmp_path / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    phist = tmp_path / "p.jsonl"
    pipeline.append_history(pipeline.evaluate_pipelines([TASKS], [PLANS]), phist)
    trend = pipeline.history_report(phist)
    ranked = plugin.rank([SKILLS])
    scored = plugin.score([SKILLS], history_path=None)
    found = {
        "report": {"table": eh.report(hist).table.column_names},
        "summary": {"table": eh.summary(hist).table.column_names},
        "history_report": {
            "trend": trend.trend.column_names,
            "pipelines": trend.pipelines.column_names,
        },
        "check": {"CheckResult": [f.name for f in dataclasses.fields(history_tools.CheckResult)]},
        "rank": {"report": ranked.report.column_names, "ranking": ranked.ranking.column_names},
        "score": {"report": scored.report.column_names, "ranking": scored.ranking.column_names},
    }
    documented = {
        fn.__name__: _documented_columns(fn)
        for fn in (
            eh.report,
            eh.summary,
            pipeline.history_report,
            history_tools.check,
            plugin.rank,
            plugin.score,
        )
    }
    assert documented == found


def test_a_fixed_clock_is_a_utc_time_whatever_the_call_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scored_at=`` (extract, score_runs, the nightly job) was written to the history as
    whatever it formatted to: ``"garbage"``, ``5``, a naive datetime as ``2026-01-01
    12:00:00`` and an aware one as ``2026-01-01 10:00:00+00``, where every other ``ts``
    reads ``2026-01-01T10:00:00Z``; ``now=`` (plugin score, a pipeline evaluation) took a
    naive datetime for the machine's local time, where every other time the engine reads
    (``as_of``, ``eval_date``, a ``run.complete`` ts) takes one for UTC. Each is a UTC
    time written as the history writes one, a naive one UTC, ISO text read as ``as_of``
    reads it; anything else is a ``UsageError`` naming the argument, before anything is
    written."""
    import time

    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    monkeypatch.setenv("TZ", "Etc/GMT-5")  # a local time 5 hours ahead of UTC
    time.tzset()
    try:
        plus_two = dt.timezone(dt.timedelta(hours=2))
        stamps = []
        for i, at in enumerate(
            (
                dt.datetime(2026, 1, 1, 12, 0, tzinfo=plus_two),
                dt.datetime(2026, 1, 1, 10, 0),
                "2026-01-01T12:00:00+02:00",
                dt.datetime(2026, 1, 1, 10, 0, 0, 999999, tzinfo=dt.UTC),
            )
        ):
            hist = tmp_path / f"h{i}.jsonl"
            effectiveness.extract([EVENTS], hist, scored_at=at)
            first = json.loads(hist.read_text(encoding="utf-8").splitlines()[0])
            stamps.append(first["ts"])
            scored = effectiveness.score_runs([EVENTS], scored_at=at)
            stamps.append(scored.column("ts")[0].as_py().isoformat())
        naive = dt.datetime(2026, 1, 1, 10, 0)
        plugin.score([SKILLS], history_path=tmp_path / "plugins.jsonl", now=naive)
        line = (tmp_path / "plugins.jsonl").read_text(encoding="utf-8").splitlines()[0]
        stamps.append(json.loads(line)["scored_at"])
        res = pipeline.evaluate_pipelines([TASKS], [PLANS], now=naive)
        stamps += [res.history_records[0]["ts"], pipeline.iso(res.evaluated_at)]
        assert stamps == [
            *["2026-01-01T10:00:00Z", "2026-01-01T10:00:00+00:00"] * 4,
            "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z",
        ]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()

    project = tmp_path / "proj"  # a nightly job writes the project's history in it
    shutil.copytree(REPO / "examples" / "project", project)
    out = tmp_path / "bad"
    out.mkdir()
    before = _tree(out)
    calls: list[tuple[Any, str]] = [
        (lambda t: effectiveness.extract([EVENTS], out / "h.jsonl", scored_at=t), "scored_at"),
        (lambda t: effectiveness.score_runs([EVENTS], scored_at=t), "scored_at"),
        (
            lambda t: plugin.score([SKILLS], history_path=out / "p.jsonl", now=t),
            "now",
        ),
        (lambda t: pipeline.evaluate_pipelines([TASKS], now=t), "now"),
        (
            lambda t: nightly.run_nightly([project], out / "n", renderer=Renderer(), scored_at=t),
            "scored_at",
        ),
    ]
    said = []
    for call, name in calls:
        for bad in ("garbage", 5, [dt.datetime(2026, 1, 1)]):
            with pytest.raises(UsageError) as e:
                call(bad)
            said.append((str(e.value), e.value.params))
        assert said[-3:] == [
            (f'{name}: not an ISO date-time: "garbage"', (name,)),
            (f"{name}: give a datetime, a date or ISO text, not int", (name,)),
            (f"{name}: give a datetime, a date or ISO text, not list", (name,)),
        ]
    with pytest.raises(UsageError) as e:
        effectiveness.extract([EVENTS], out / "h.jsonl", scored_at="0001-01-01T00:00:00+01:00")
    assert str(e.value) == (
        'scored_at: outside the years 1 to 9999 in UTC: "0001-01-01T00:00:00+01:00"'
    )
    assert _tree(out) == before


def test_an_unknown_scoring_version_is_refused_naming_it(tmp_path: Path) -> None:
    """``pipeline.history_report(h, scoring_version="garbage")`` answered a report of no
    rows with a note (``no garbage pipeline records``), where a scoring version the
    engine does not know is refused by every other call and by the CLI (exit 2); and
    the refusals said ``unknown scoring version "v9"`` with ``params`` ``()``, naming no
    argument. Each is a ``UsageError`` whose ``params`` name the argument, its words (and
    the CLI's) as before, raised before anything is written."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    src = tmp_path / "src"
    src.mkdir()
    hist, phist = src / "h.jsonl", src / "p.jsonl"
    effectiveness.extract([EVENTS], hist)
    pipeline.append_history(pipeline.evaluate_pipelines([TASKS], [PLANS]), phist)
    team = REPO / "examples" / "project" / ".archeflow" / "teams" / "backend-feature.yaml"
    project = tmp_path / "proj"  # a nightly job writes the project's history in it
    shutil.copytree(REPO / "examples" / "project", project)
    before = _tree(tmp_path)
    have = "(have: archeflow-legacy, v1)"
    calls: list[tuple[Any, str, str]] = [
        (lambda: eh.report(hist, version="v9"), "version", f"{have[:-1]}, all)"),
        (lambda: eh.summary(hist, version="v9"), "version", have),
        (lambda: eh.recommend(hist, team, version="v9"), "version", have),
        (lambda: eh.run_sql("SELECT 1", hist, version="v9"), "version", have),
        (lambda: eh.schema(hist, version="v9"), "version", have),
        (lambda: effectiveness.score_runs([EVENTS], "v9"), "version", have),
        (lambda: effectiveness.extract([EVENTS], tmp_path / "n.jsonl", "v9"), "version", have),
        (
            lambda: nightly.run_nightly(
                [project], tmp_path / "out", renderer=Renderer(), version="v9"
            ),
            "version",
            have,
        ),
        (
            lambda: pipeline.history_report(phist, scoring_version="v9"),
            "scoring_version",
            "(have: pipeline/v1)",
        ),
    ]
    said = []
    for call, _, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.cli_message, e.value.params))
    assert said == [
        (f'unknown scoring version "v9" {h}', f'unknown scoring version "v9" {h}', (name,))
        for _, name, h in calls
    ]
    assert _tree(tmp_path) == before


def test_an_error_of_a_file_given_names_the_argument_that_gave_it(tmp_path: Path) -> None:
    """An error whose words name a file given, not the argument (``h.jsonl: refusing to
    write through a symlink``, ``team.yaml:2: not valid YAML``, ``DELETE`` refused by
    ``run_sql``), had ``params`` ``()``: a caller could not tell which argument to fix.
    Each names it now, its words (and the CLI's) as before."""
    import gzip

    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    hist = tmp_path / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    link = tmp_path / "link.jsonl"
    link.symlink_to(hist)
    packed = tmp_path / "packed.jsonl"
    packed.write_bytes(gzip.compress(b"{}\n"))
    (tmp_path / "dir").mkdir()
    team = tmp_path / "team.yaml"
    team.write_text("name: x\nplan: [a\n", encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text("- 1\n", encoding="utf-8")
    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes"
    result = pipeline.evaluate_pipelines([TASKS], [PLANS])
    project = tmp_path / "proj"  # a nightly job writes the project's history in it
    shutil.copytree(REPO / "examples" / "project", project)
    calls: list[tuple[Any, str]] = [
        (lambda: effectiveness.extract([EVENTS], link), "history_path"),
        (lambda: effectiveness.extract([EVENTS], None), "history_path"),
        (lambda: plugin.score([SKILLS], history_path=packed), "history_path"),
        (lambda: pipeline.append_history(result, tmp_path / "dir"), "path"),
        (lambda: pipeline.history_report(tmp_path / "dir"), "path"),
        (lambda: eh.report(tmp_path / "dir"), "path"),
        (lambda: eh.recommend(hist, team), "team_yaml"),
        (lambda: eh.summary(hist, team), "team_yaml"),
        (lambda: eh.parse_team(team), "path"),
        (lambda: eh.run_sql("DELETE FROM history", hist), "query"),
        (lambda: eh.run_sql("SELECT * FROM nowhere", hist), "query"),
        (lambda: eh.run_sql("SELECT 1", tmp_path / "dir"), "history"),
        (lambda: eh.export(tmp_path / "x.csv", hist), "to"),
        (lambda: routes.analyze([episodes], {"tolerance": 2}), "policy"),
        (lambda: routes.load_policy_file(policy), "path"),
        (lambda: history_tools.check(tmp_path / "dir"), "path"),
        (lambda: history_tools.repair(link, in_place=True), "path"),
        (
            lambda: nightly.run_nightly(
                [project], tmp_path / "out", renderer=Renderer(), teams=[team]
            ),
            "teams",
        ),
    ]
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((e.value.params, e.value.cli_message == str(e.value)))
    assert said == [((name,), True) for _, name in calls]


def test_every_usage_error_the_engine_raises_names_its_argument_or_says_it_has_none() -> None:
    """Raises of ``UsageError`` (and ``CannotAccess``) whose words named a file or a value
    had ``params`` ``()``. Each raise in ``engine/`` now names the argument at fault: an
    ``Arg`` among its parts (a module's constant, ``Arg(...)``, a parameter typed
    ``Arg``), or ``about=``, which a helper that several arguments reach takes from its
    caller; ``about=None`` says that no argument is at fault (a setting of the
    environment, runscore's own table names). A new raise with none of them fails here.
    ``NothingReadable`` and ``HistoryError`` too: they had no ``params``, so a caller could
    not tell which input was unreadable or refused (they name the argument whose file it
    is); and ``LockTimeout``, the argument whose file's lock is held."""
    import ast

    NAMED = ("UsageError", "CannotAccess", "NothingReadable", "HistoryError", "LockTimeout")

    files = sorted((REPO / "engine").rglob("*.py"))
    trees = {f: ast.parse(f.read_text(encoding="utf-8")) for f in files}

    def arg_call(n: ast.AST) -> bool:
        return isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Arg"

    constants = {
        t.id
        for tree in trees.values()
        for node in tree.body
        if isinstance(node, ast.Assign) and arg_call(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    }

    def names_an_argument(call: ast.Call, fn: ast.AST | None) -> bool:
        if any(k.arg == "about" for k in call.keywords):
            return True
        known = set(constants)
        if isinstance(fn, ast.FunctionDef):
            every = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
            known |= {a.arg for a in every if a.annotation and ast.unparse(a.annotation) == "Arg"}
            for n in ast.walk(fn):  # name = Arg(...) if ... else what; given = (ARG, ...)
                if isinstance(n, ast.Assign) and any(arg_call(c) for c in ast.walk(n.value)):
                    known |= {t.id for t in n.targets if isinstance(t, ast.Name)}
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Tuple):
                    if any(isinstance(e, ast.Name) and e.id in constants for e in n.value.elts):
                        known |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        # NothingReadable takes its parts as one tuple: an Arg among them names one too
        given = [e for a in call.args for e in (a.elts if isinstance(a, ast.Tuple) else [a])]
        for a in given:
            a = a.value if isinstance(a, ast.Starred) else a
            if arg_call(a) or (isinstance(a, ast.Name) and a.id in known):
                return True
            if isinstance(a, ast.Attribute) and a.attr in constants:
                return True
        return False

    unnamed = []
    for f, tree in trees.items():

        def visit(node: ast.AST, fn: ast.AST | None, f: Path = f) -> None:
            for child in ast.iter_child_nodes(node):
                inner = child if isinstance(child, ast.FunctionDef) else fn
                if (
                    isinstance(child, ast.Call)
                    and getattr(child.func, "id", None) in NAMED
                    and not names_an_argument(child, inner)
                ):
                    unnamed.append(f"{f.relative_to(REPO)}:{child.lineno}")
                visit(child, inner)

        visit(tree, None)
    assert len(trees) > 10 and constants >= {"VERSION", "HISTORY_PATH", "OUT"}
    assert unnamed == []


def test_nothing_read_and_a_refused_history_name_the_argument_that_gave_the_file(
    tmp_path: Path,
) -> None:
    """``NothingReadable`` and ``HistoryError`` had ``params`` ``()``, where every
    ``UsageError`` names its argument: a caller of a function that takes several inputs
    could not tell which one was unreadable or refused. Each names the argument whose file
    it is now (first in ``params``), its words as before."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    skills = tmp_path / "skills" / "s"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_bytes(b"\xff bad")
    hist = tmp_path / "h.jsonl"
    team = tmp_path / "team.yaml"
    team.write_text("check: [sage]\n")
    calls: list[tuple[Any, tuple[str, ...]]] = [
        (lambda: effectiveness.extract([bad], hist), ("paths",)),
        (lambda: effectiveness.extract([tmp_path / "skills"], hist), ("paths",)),
        (lambda: eh.report(bad), ("path",)),
        (lambda: eh.report(tmp_path / "none.jsonl"), ("path",)),
        (lambda: eh.recommend(bad, team), ("path",)),
        (lambda: eh.summary(bad), ("path",)),
        (lambda: eh.run_sql("SELECT * FROM history", bad), ("history",)),
        (lambda: eh.run_sql("SELECT * FROM events", hist, events=[bad]), ("events",)),
        (lambda: eh.export(tmp_path / "x.parquet", bad), ("history",)),
        (lambda: pipeline.evaluate_pipelines([bad]), ("paths",)),
        (lambda: pipeline.history_report(bad), ("path",)),
        (lambda: pipeline.history_report(tmp_path / "none.jsonl"), ("path",)),
        (lambda: routes.analyze([bad]), ("paths",)),
        (lambda: plugin.rank([tmp_path / "skills"]), ("roots",)),
        (lambda: history_tools.repair(bad), ("path", "force")),
        (lambda: history_tools.check(tmp_path / "none.jsonl"), ("path",)),
    ]
    said = []
    for call, _ in calls:
        with pytest.raises(NothingReadable) as e:
            call()
        said.append(e.value.params)
    assert said == [params for _, params in calls]

    # a report file that is a symlink: refused by the writer, named by its argument (a
    # UsageError, as write_output refuses every output file a user names so)
    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    out = tmp_path / "out"
    out.mkdir()
    link = out / (result.report_basename(next(iter(result.documents))) + ".json")
    link.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(UsageError) as refused:
        pipeline.write_json_reports(result, out)
    assert (str(refused.value), refused.value.params) == (
        f"{link}: refusing to write through a symlink",
        ("out_dir",),
    )


def test_flags_and_results_of_another_type_are_refused_naming_them(tmp_path: Path) -> None:
    """A black-box pass over the API with wrong types: ``history_tools.repair(h, out,
    force="no")`` replaced ``out`` and ``repair(h, in_place="no")`` rewrote the history
    (text is true to Python), ``extract(..., write=0.0)`` wrote nothing without a word;
    ``write_json_reports(None, d)``, ``append_history(None, h)`` and
    ``build_policy([("tolerance", 0.1)])`` were AttributeErrors from deep inside. A flag
    is a ``bool`` and a result the type its function gives, else a ``UsageError`` naming
    the argument, before anything is written."""
    src = tmp_path / "src"
    src.mkdir()
    hist = src / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    (src / "r.jsonl").write_text("kept\n", encoding="utf-8")
    episodes = REPO / "examples" / "project" / ".archeflow" / "episodes"
    before = _tree(tmp_path)
    new = tmp_path / "new.jsonl"
    calls: list[tuple[Any, str, str]] = [
        (lambda: history_tools.repair(hist, src / "r.jsonl", force="no"), "force", "str"),
        (lambda: history_tools.repair(hist, in_place="no"), "in_place", "str"),
        (lambda: effectiveness.extract([EVENTS], new, write=0.0), "write", "float"),
        (lambda: effectiveness.extract([EVENTS], new, incremental=None), "incremental", "None"),
        (lambda: effectiveness.extract([EVENTS], new, allow_empty=1), "allow_empty", "int"),
        (lambda: eh.report(hist, others_note="yes"), "others_note", "str"),
        (lambda: pipeline.evaluate_pipelines([TASKS], allow_empty=[]), "allow_empty", "list"),
        (lambda: pipeline.history_tables(hist, require_readable=1), "require_readable", "int"),
        (lambda: routes.analyze([episodes], with_router_rows="x"), "with_router_rows", "str"),
        (lambda: routes.analyze([episodes], allow_empty=b"x"), "allow_empty", "bytes"),
    ]
    said = []
    for call, _, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(f"{name}: give True or False, not {t}", (name,)) for _, name, t in calls]
    results: list[tuple[Any, str]] = [
        (
            lambda: pipeline.write_json_reports(None, tmp_path / "reports"),  # type: ignore[arg-type]
            "result: give a PipelineResult (what evaluate_pipelines returns), not None",
        ),
        (
            lambda: pipeline.append_history(5, new),  # type: ignore[arg-type]
            "result: give a PipelineResult (what evaluate_pipelines returns), not int",
        ),
        (
            lambda: routes.build_policy([("tolerance", 0.1)]),  # type: ignore[arg-type]
            "file_values: give a mapping of a policy file's settings, not list",
        ),
        (
            lambda: routes.build_policy(None, 0.1),  # type: ignore[arg-type]
            "flags: give a mapping of a policy file's settings, not float",
        ),
        (
            lambda: routes.build_policy({"tolerance": 0.1}, where=None),  # type: ignore[arg-type]
            "where: give the values' source as text, not None",
        ),
    ]
    said = []
    for call, _ in results:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(text, (text.split(":")[0],)) for _, text in results]
    assert _tree(tmp_path) == before


def test_plumbing_arguments_of_another_type_are_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The optional arguments a caller's own front end passes (``progress=``,
    ``discovered=``, ``con=``, ``under_lock=``, ``today=``, ``about=``) were taken as given:
    ``extract(..., progress=5)`` a TypeError once the files were read, ``append_history(...,
    under_lock=5)`` one once the history's lock file was made beside it,
    ``evaluate_pipelines(..., con=5)`` an AttributeError from its first statement,
    ``nightly.parse_date(None, today=5)`` returned 5 as the date. Each is a ``UsageError``
    naming the argument now, before anything is read or written."""
    from runscore.engine import nightly, plugin_features, sources

    read: list[object] = []
    discover, scan = sources.discover, plugin_features.scan
    monkeypatch.setattr(sources, "discover", lambda *a, **k: read.append(a) or discover(*a, **k))
    monkeypatch.setattr(plugin_features, "scan", lambda *a, **k: read.append(a) or scan(*a, **k))
    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    read.clear()
    before = _tree(tmp_path)
    hist, phist = tmp_path / "h.jsonl", tmp_path / "pipelines.jsonl"
    policy = tmp_path / "policy.yaml"
    calls: list[tuple[Any, str]] = [
        (
            lambda: effectiveness.extract([EVENTS], hist, progress=5),
            "progress: give a function (called with a stage, files done and files in all) or "
            "None, not int",
        ),
        (
            lambda: effectiveness.extract([EVENTS], hist, discovered=([str(EVENTS)], [])),
            "discovered: give what sources.discover(paths) returns (a list of SourceFiles and "
            "one of LineIssues) or None, not tuple",
        ),
        (
            lambda: pipeline.append_history(result, phist, under_lock=5),
            "under_lock: give a function (called with no argument) or None, not int",
        ),
        (
            lambda: pipeline.evaluate_pipelines([TASKS], con=5),
            "con: give a DuckDB connection (what duckdb.connect returns) or None, not int",
        ),
        (
            lambda: plugin.evaluate([SKILLS], con="duckdb"),
            "con: give a DuckDB connection (what duckdb.connect returns) or None, not str",
        ),
        (lambda: nightly.parse_date(None, today=5), "today: give a date or None, not int"),
        (
            lambda: routes.parse_as_of(None, today="2026-01-01"),
            "today: give a date or None, not str",
        ),
        (
            lambda: routes.load_policy_file(policy, about="policy"),
            "about: give a runscore.engine.errors.Arg or None, not str",
        ),
        (
            lambda: routes.build_policy({"tolerance": "x"}, about=5),
            "about: give a runscore.engine.errors.Arg or None, not int",
        ),
    ]
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(text, (text.split(":")[0],)) for _, text in calls]
    assert (read, _tree(tmp_path)) == ([], before)
    # a datetime is its day in UTC, as eval_date= takes one
    late = dt.datetime(2026, 1, 1, 23, 30, tzinfo=dt.timezone(-dt.timedelta(hours=2)))
    assert nightly.parse_date(None, today=late) == dt.date(2026, 1, 2)
    assert routes.parse_as_of(None, today=dt.date(2026, 1, 2)) == dt.datetime(
        2026, 1, 2, tzinfo=dt.UTC
    )


def test_an_api_writer_refuses_one_of_its_inputs_as_its_output(
    tmp_path: Path, fixtures: Path
) -> None:
    """``pipeline.append_history(result, a tasks file)`` appended the records to that input,
    where ``pipeline --history`` refuses it; ``pipeline.write_json_reports`` into a folder
    holding a tasks file named as a report renamed the report over it; and
    ``effectiveness.extract(["in"], "in/run.jsonl")`` appended to a run log it read. Each
    is a ``UsageError`` in the command's words naming the argument (``params``, the one at
    fault first), nothing written."""
    tasks = tmp_path / "pipeline-eval-p-excellent-2026-03-01.json"
    plans = tmp_path / "plans.jsonl"
    shutil.copy(fixtures / "pipeline" / "tasks.jsonl", tasks)
    shutil.copy(fixtures / "pipeline" / "plans.jsonl", plans)
    run = tmp_path / "in" / "run.jsonl"
    run.parent.mkdir()
    shutil.copy(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl", run)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = pipeline.evaluate_pipelines(tasks, plans, eval_date="2026-03-01")
    for call, message, params in [
        (lambda: pipeline.append_history(result, tasks),
         f"{tasks}: that is the tasks file {tasks} the pipeline reads (paths); choose another "
         "path", ("path", "paths")),
        (lambda: pipeline.append_history(result, str(plans)),
         f"{plans}: that is the plans file {plans} the pipeline reads (plans); choose another "
         "path", ("path", "plans")),
        (lambda: pipeline.write_json_reports(result, tmp_path),
         f"{tasks}: that is the tasks file {tasks} the pipeline reads (paths); choose another "
         "out_dir", ("out_dir", "paths")),
        (lambda: effectiveness.extract([str(run.parent)], run),
         f"{run}: that is the run log {run} the extract reads (paths); choose another "
         "history_path", ("history_path", "paths")),
    ]:  # fmt: skip
        with pytest.raises(UsageError) as e:
            call()
        assert (str(e.value), e.value.params) == (message, params)
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_every_cli_call_of_an_engine_writer_names_the_option_it_writes() -> None:
    """The CLI's calls of the engine's writers and checks (``atomic_write_text`` of
    ``plugin``'s and ``pipeline``'s ``--out`` reports, ``write_output`` of ``sql
    --output``, ``check_writable`` of ``pipeline --history``, ...) passed no ``about=``:
    what they refused had ``params`` ``()``, to the nightly job's caller too, which writes
    through them. Each call in ``cli/`` of an engine function that takes ``about`` now
    passes it (``about=None``: no one argument, as the engine's raises say it), and so does
    each of the engine's own calls of one: the nightly job's ``history.locked`` of a
    history and ``parse_team`` of a team found in a root, ``load_history`` of ``report``,
    ``summary`` and ``recommend`` and ``append_records``' ``locked`` and ``append_groups``
    passed none, by keyword or in its place among the arguments."""
    import ast

    # name -> (file, index of ``about`` among the positional parameters, or None)
    defs: dict[str, list[tuple[Path, int | None]]] = {}
    trees = {
        f: ast.parse(f.read_text(encoding="utf-8"))
        for folder in ("engine", "cli")
        for f in sorted((REPO / folder).rglob("*.py"))
    }
    for f, tree in trees.items():
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef) and f.is_relative_to(REPO / "engine"):
                if n.name.startswith("__"):
                    continue  # an exception's __init__, which super() calls
                a = n.args
                positional = [x.arg for x in a.posonlyargs + a.args]
                if "about" in positional:
                    defs.setdefault(n.name, []).append((f, positional.index("about")))
                elif any(x.arg == "about" for x in a.kwonlyargs):
                    defs.setdefault(n.name, []).append((f, None))
    takes = set(defs)
    writers = {"atomic_write_text", "write_output"}
    assert writers | {"check_writable", "load_policy_file", "build_policy", "locked"} <= takes
    assert {"parse_team", "load_history", "append_records", "_refuse_linked"} <= takes
    unnamed = []
    for f, tree in trees.items():
        own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            bare = isinstance(n.func, ast.Name)
            name = n.func.id if bare else getattr(n.func, "attr", None)
            if name not in takes:
                continue
            if bare and name in own and all(g != f for g, _ in defs[name]):
                continue  # a function of this file's own of that name, which takes none
            if any(k.arg in ("about", None) for k in n.keywords):
                continue
            places = [i for g, i in defs[name] if not bare or name not in own or g == f]
            if any(isinstance(a, ast.Starred) for a in n.args) or all(
                i is not None and len(n.args) > i for i in places
            ):
                continue
            unnamed.append(f"{f.relative_to(REPO)}:{n.lineno}: {name}")
    assert unnamed == []


def test_the_cli_report_writers_name_out_in_what_they_refuse(tmp_path: Path) -> None:
    """``plugin``'s and ``pipeline``'s report writers (which the nightly job's packs use
    too) refused a report file that is a symlink with ``params`` ``()``; each names the
    folder's argument now, as ``write_json_reports`` names ``out_dir``."""
    from runscore.cli import pipeline as pipeline_cli
    from runscore.cli import plugin as plugin_cli

    skills = plugin.rank([SKILLS])
    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    said = []
    for folder, name, write in [
        ("p", "plugin-report.json", lambda d: plugin_cli.write_out(skills, d, "json")),
        ("q", pipeline.summary_basename(result.eval_date) + ".md", lambda d: pipeline_cli.write_reports(result, d)),
    ]:  # fmt: skip
        out = tmp_path / folder
        out.mkdir()
        (out / name).symlink_to(tmp_path / "elsewhere")
        with pytest.raises(UsageError) as e:
            write(str(out))
        said.append((e.value.cli_message, e.value.params))
    assert said == [
        (f"{tmp_path}/p/plugin-report.json: refusing to write through a symlink", ("out_dir",)),
        (
            f"{tmp_path}/q/{pipeline.summary_basename(result.eval_date)}.md: "
            "refusing to write through a symlink",
            ("out_dir",),
        ),
    ]
    assert not (tmp_path / "elsewhere").exists()


def test_the_pipeline_report_writers_refuse_a_folder_before_any_report(tmp_path: Path) -> None:
    """A folder at the summary's name was found at its own write (``Is a directory``), the
    pipelines' reports already written; ``write_reports`` (the nightly job's too) checks
    every path before the first write, as it checks a symlink's."""
    from runscore.cli import pipeline as pipeline_cli

    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    name = pipeline.summary_basename(result.eval_date) + ".md"
    (tmp_path / name).mkdir()
    with pytest.raises(errors.CannotAccess) as e:
        pipeline_cli.write_reports(result, str(tmp_path))
    assert (e.value.cli_message, e.value.params) == (
        f"{tmp_path}/{name}: Is a directory",
        ("out_dir",),
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_the_plugin_report_checks_refuse_what_is_no_folder_or_format(tmp_path: Path) -> None:
    """``plugin.score``'s ``out_dir=`` and ``out_format=``, and ``report_names`` and
    ``refuse_report_paths``, are checked as every argument is: a ``UsageError`` naming it,
    before anything is read or written (a format unknown was a KeyError)."""
    skills = plugin.rank([SKILLS])
    hist = tmp_path / "h.jsonl"
    said = []
    for call in [
        lambda: plugin.score([SKILLS], history_path=hist, out_dir=5),
        lambda: plugin.score([SKILLS], history_path=hist, out_dir=""),
        lambda: plugin.score([SKILLS], history_path=hist, out_dir=tmp_path, out_format="html"),
        lambda: plugin.score([SKILLS], history_path=hist, out_dir=tmp_path, out_format=["md"]),
        lambda: plugin.report_names(skills, "table"),
        lambda: plugin.report_names(None, "json"),  # type: ignore[arg-type]
        lambda: plugin.refuse_report_paths(skills, tmp_path, 5),  # type: ignore[arg-type]
    ]:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [
        ("out_dir: give a folder (a str or pathlib.Path), not int", ("out_dir",)),
        ("out_dir: an empty path (an unset variable?); give a folder", ("out_dir",)),
        ('out_format must be one of markdown, json, csv, not "html"', ("out_format",)),
        ('out_format must be one of markdown, json, csv, not "md"', ("out_format",)),
        ('fmt must be one of markdown, json, csv, not "table"', ("fmt",)),
        (
            "result: give a PluginResult (what score, rank and evaluate return), not None",
            ("result",),
        ),
        ("fmt must be one of markdown, json, csv, not int", ("fmt",)),
    ]
    assert sorted(tmp_path.iterdir()) == []
    assert plugin.report_names(skills, "csv") == ["plugin-report.csv"]


def test_every_plugin_function_that_takes_a_format_refuses_an_unknown_one(
    tmp_path: Path,
) -> None:
    """``report_patterns`` raised a bare ``KeyError`` for a format it does not know (a
    ``TypeError`` for a list), and ``score`` took any ``out_format`` when no ``out_dir``
    came with it; each is a ``UsageError`` naming the argument and the formats now, as
    ``report_names``, ``refuse_report_paths`` and ``write_out`` say it, before anything
    is read or written."""
    from runscore.cli import plugin as plugin_cli

    skills = plugin.rank([SKILLS])
    hist = tmp_path / "h.jsonl"
    said = []
    for call in [
        lambda: plugin.report_patterns("xml"),
        lambda: plugin.report_patterns(["json"]),  # type: ignore[arg-type]
        lambda: plugin.report_patterns(None),  # type: ignore[arg-type]
        lambda: plugin.score([SKILLS], history_path=hist, out_format="xml"),
        lambda: plugin.refuse_report_paths(skills, tmp_path, ["json", "xml"]),
        lambda: plugin_cli.write_out(skills, str(tmp_path), "xml"),
        lambda: plugin_cli.write_out(skills, str(tmp_path), ["json"]),  # type: ignore[arg-type]
    ]:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.cli_message, e.value.params))
    one_of = "must be one of markdown, json, csv, not"
    assert said == [
        (f'fmt {one_of} "xml"', f'--format {one_of} "xml"', ("fmt",)),
        (f"fmt {one_of} list", f"--format {one_of} list", ("fmt",)),
        (f"fmt {one_of} None", f"--format {one_of} None", ("fmt",)),
        (f'out_format {one_of} "xml"', f'--format {one_of} "xml"', ("out_format",)),
        (f'fmt {one_of} "xml"', f'--format {one_of} "xml"', ("fmt",)),
        (f'fmt {one_of} "xml"', f'--format {one_of} "xml"', ("fmt",)),
        (f"fmt {one_of} list", f"--format {one_of} list", ("fmt",)),
    ]
    assert sorted(tmp_path.iterdir()) == []
    assert plugin.report_patterns("markdown") == ["plugin-report.md", "skills/*.md"]


def test_plugin_score_out_dir_refuses_an_input_named_as_a_report_before_reading(
    tmp_path: Path,
) -> None:
    """``score(out_dir=)`` checked the report names only once the skills were scored, and
    not against the inputs: a judge file at ``out/plugin-report.json`` passed, and the
    caller's report (``write_out``) replaced it. It checks the folder before anything is
    read or written, as the command does (``refuse_inputs_written``)."""
    out = tmp_path / "out"
    out.mkdir()
    judge = out / "plugin-report.json"
    judge.write_text("")
    hist = tmp_path / "h.jsonl"
    with pytest.raises(UsageError) as e:
        plugin.score([SKILLS], judge=judge, history_path=hist, out_dir=out, out_format="json")
    assert (e.value.cli_message, e.value.params) == (
        f"{judge}: that is the judge file {judge} the score reads (--judge); choose another --out",
        ("out_dir", "judge"),
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["out", "plugin-report.json"]


def test_plugin_refuse_inputs_written_refuses_what_is_no_folder_or_list_of_names(
    tmp_path: Path,
) -> None:
    """``refuse_inputs_written`` took a str of ``patterns`` letter by letter (``skills/*.md``
    refused the folder itself: ``DIR/: Is a directory``), and raised a bare ``TypeError``
    for a pattern or an ``out_dir`` that is no text; a ``UsageError`` naming the argument
    now, before anything is read or written."""
    said = []
    for call in [
        lambda: plugin.refuse_inputs_written(str(tmp_path), "skills/*.md"),  # type: ignore[arg-type]
        lambda: plugin.refuse_inputs_written(str(tmp_path), [5]),  # type: ignore[list-item]
        lambda: plugin.refuse_inputs_written(str(tmp_path), None),  # type: ignore[arg-type]
        lambda: plugin.refuse_inputs_written(5, ["plugin-report.json"]),  # type: ignore[arg-type]
    ]:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    names = "give a list of report names (what report_patterns returns)"
    assert said == [
        (f"patterns: {names}, not str", ("patterns",)),
        (f"patterns: {names}, not a list holding int", ("patterns",)),
        (f"patterns: {names}, not None", ("patterns",)),
        ("out_dir: give a folder (a str or pathlib.Path), not int", ("out_dir",)),
    ]
    assert sorted(tmp_path.iterdir()) == []
    plugin.refuse_inputs_written(tmp_path, ("plugin-report.json",))  # a Path, a tuple: fine


def test_pipeline_refuse_inputs_written_refuses_an_out_dir_that_is_no_path(
    tmp_path: Path,
) -> None:
    """``out_dir=5`` was a bare ``TypeError`` from ``os.lstat``, and ``out_dir=""`` (an unset
    variable) passed; a ``UsageError`` naming ``out_dir`` now, as ``plugin``'s says it."""
    said = []
    for out in (5, ""):
        with pytest.raises(UsageError) as e:
            pipeline.refuse_inputs_written([TASKS], None, out_dir=out)  # type: ignore[arg-type]
        said.append((str(e.value), e.value.params))
    assert said == [
        ("out_dir: give a folder (a str or pathlib.Path), not int", ("out_dir",)),
        ("out_dir: an empty path (an unset variable?); give a folder", ("out_dir",)),
    ]
    pipeline.refuse_inputs_written([TASKS], None, out_dir=tmp_path)
    assert sorted(tmp_path.iterdir()) == []


def test_cannot_access_is_an_oserror_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    """What the system refused, said in runscore's words (``CannotAccess``: the ``--out``
    lock of the nightly job, a history's lock file, an export's folder), was no
    ``OSError``: a caller's ``except OSError`` around a write caught a full disk in the
    middle of a report file but not these. It is one now, as well as a ``UsageError``;
    the words, ``params`` and what the CLI says (exit 2) are as before: no handler of the
    engine's own takes it for the system's error and says it again."""
    import datetime as dt

    from runscore.cli.nightly import Renderer, pack_hooks
    from runscore.engine import nightly

    monkeypatch.chdir(tmp_path)
    shutil.copytree(EVENTS, "proj/.archeflow/events")
    effectiveness.extract([EVENTS], "g.jsonl")
    Path("afile").write_text("x\n")
    os.mkfifo("h.jsonl.lock")
    Path("out").mkdir()
    os.mkfifo("out/.nightly.lock")
    folder = tmp_path / "afile"
    job = {"renderer": Renderer(), "hooks": pack_hooks(), "date": dt.date(2026, 1, 2)}
    calls: list[tuple[Any, str, tuple[str, ...]]] = [
        (
            lambda: effectiveness.extract([EVENTS], "h.jsonl"),
            "h.jsonl.lock: the history lock is not a regular file",
            ("history_path",),
        ),
        (
            lambda: eh.export("afile/x.parquet", "g.jsonl"),
            f"afile/x.parquet: cannot write the export: {folder} is not a folder",
            ("to",),
        ),
        (
            lambda: nightly.run_nightly(["proj"], "out", **job),
            f"{tmp_path}/out/.nightly.lock: the nightly lock is not a regular file",
            ("out",),
        ),
        (
            lambda: nightly.run_nightly(["proj"], "afile", **job),
            "out afile: exists and is not a directory",
            ("out",),
        ),
    ]
    said = []
    for call, _, _ in calls:
        try:
            call()
        except OSError as e:
            assert isinstance(e, errors.CannotAccess) and isinstance(e, UsageError)
            said.append((str(e), e.params))
    assert said == [(text, params) for _, text, params in calls]

    # a history's nightly lock that is a FIFO fails that project's step, as a folder there
    # does (not the whole job: an OSError now, it is not let by as the system's error);
    # with no other project, nothing was read
    lock = "proj/.archeflow/memory/effectiveness.jsonl.nightly.lock"
    Path(lock).unlink()  # the lock file the jobs above made (they take it first)
    os.mkfifo(lock)
    with pytest.raises(errors.NothingReadable) as refused:
        nightly.run_nightly(["proj"], "out2", **job)
    assert str(refused.value) == (
        "nothing readable: no root's run logs, pack inputs or history could be read\n"
        f"  proj/.archeflow/memory/effectiveness.jsonl: not extracted: {lock}: the nightly "
        "lock is not a regular file"
    )
    os.unlink(lock)

    for args, err in [
        (["export", "--history", "g.jsonl", "--to", "afile/x.parquet"], calls[1][1]),
        (["nightly", "--root", "proj", "--out", "afile"], "--out afile: exists and is not a directory"),
    ]:  # fmt: skip
        res = run_cli(*args)
        assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"error: {err}\n")


def test_run_sql_extra_of_another_type_is_refused_naming_it(tmp_path: Path) -> None:
    """``run_sql(q, h, extra=...)`` (README: the pipeline views passed as ``extra=``) took
    anything: a list was a TypeError from a regular expression, ``{"x": 5}`` DuckDB's
    InvalidInputException ("not suitable for replacement scans"), and ``{"history": t}``
    put the caller's table in the place of the history's view without a word. ``extra``
    is a mapping of view names to ``pyarrow.Table``s, else a ``UsageError`` naming it."""
    import polars as pl

    hist = tmp_path / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    t = pa.table({"x": [1, 2]})
    q = "SELECT count(*) AS n FROM history"
    calls: list[tuple[Any, str]] = [
        (lambda: eh.run_sql(q, hist, extra=[t]), "extra: give a mapping of view names to pyarrow Tables, not list"),
        (lambda: eh.run_sql(q, hist, extra={"x": 5}), 'extra["x"]: give a pyarrow.Table, not int'),
        (lambda: eh.run_sql(q, hist, extra={"x": pl.DataFrame({"x": [1]})}), 'extra["x"]: give a pyarrow.Table, not DataFrame (polars: its .to_arrow())'),
        (lambda: eh.run_sql(q, hist, extra={5: t}), "extra: a view name is text, not int"),
        (lambda: eh.run_sql(q, hist, extra={"": t}), 'extra: a view name is text, not ""'),
        (lambda: eh.run_sql(q, hist, extra={"history": t}), 'extra: "history" is a view of runscore\'s own; give your table another name'),
        (lambda: eh.schema(hist, extra={"events": t}), 'extra: "events" is a view of runscore\'s own; give your table another name'),
    ]  # fmt: skip
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(text, ("extra",)) for _, text in calls]
    got = eh.run_sql("SELECT sum(x) AS s FROM mine", hist, extra={"mine": t}).table
    assert got.to_pylist() == [{"s": 3}]


def test_write_json_reports_into_a_file_names_out_dir(tmp_path: Path) -> None:
    """``write_json_reports(result, out_dir)`` with ``out_dir`` a file raised a bare
    ``FileExistsError`` ("File exists", from ``os.makedirs`` deep inside) that named no
    argument; it is a ``CannotAccess`` naming ``out_dir``, said as the CLI and the nightly
    job say an ``--out`` that is a file, before anything is written."""
    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    f = tmp_path / "reports"
    f.write_text("kept\n")
    with pytest.raises(errors.CannotAccess) as e:
        pipeline.write_json_reports(result, f)
    assert (str(e.value), e.value.cli_message, e.value.params) == (
        f"out_dir {f}: exists and is not a directory",
        f"--out {f}: exists and is not a directory",
        ("out_dir",),
    )
    assert f.read_text() == "kept\n" and sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_lock_held_names_the_argument_whose_file_it_locks(tmp_path: Path) -> None:
    """A ``LockTimeout`` of a history's lock had ``params`` ``()``: a caller of a call that
    takes several paths could not tell whose lock was held, where every other error names
    its argument. It names the argument that gave the history now (the nightly job's still
    names ``wait``, which its words tell the caller to raise), its words as before."""
    from runscore.engine import history as history_module

    hist = tmp_path / "h.jsonl"
    effectiveness.extract([EVENTS], hist)
    result = pipeline.evaluate_pipelines([TASKS], [PLANS], eval_date="2026-01-01")
    calls: list[tuple[Any, tuple[str, ...]]] = [
        (lambda: effectiveness.extract([EVENTS], hist, lock_timeout=0, incremental=False), ("history_path",)),
        (lambda: plugin.score([SKILLS], history_path=hist, lock_timeout=0), ("history_path",)),
        (lambda: pipeline.append_history(result, hist, lock_timeout=0), ("path",)),
        (lambda: history_tools.repair(hist, in_place=True, lock_timeout=0), ("path",)),
    ]  # fmt: skip
    said = []
    with history_module.locked(str(hist), timeout=0):  # flock: a second open file waits
        for call, _ in calls:
            with pytest.raises(errors.LockTimeout) as e:
                call()
            said.append((str(e.value), e.value.params))
    assert [params for _, params in said] == [params for _, params in calls]
    assert {text.split(": ")[0] for text, _ in said} == {str(hist)}


def test_the_parsers_and_summary_rows_refuse_another_type_naming_it() -> None:
    """The API's own parsers of the CLI's text options and ``pipeline.summary_rows`` took
    any value: ``nightly.parse_date(5)`` and ``pipeline.parse_date(5)`` were a
    ``TypeError`` of a regular expression, ``routes.parse_as_of(5)`` and
    ``summary_rows(None)`` ``AttributeError``s from inside. Each is a ``UsageError``
    naming the argument, as the calls that take these values say it."""
    from runscore.engine import nightly

    calls: list[tuple[Any, str]] = [
        (lambda: nightly.parse_date(5), "date: give YYYY-MM-DD text, not int"),
        (lambda: pipeline.parse_date(dt.date(2026, 1, 1)), "date: give YYYY-MM-DD text, not date"),
        (lambda: routes.parse_as_of(5), "as_of: give ISO date-time text, not int"),
        (lambda: pipeline.summary_rows(None), "result: give a PipelineResult (what evaluate_pipelines returns), not None"),
    ]  # fmt: skip
    said = []
    for call, _ in calls:
        with pytest.raises(UsageError) as e:
            call()
        said.append((str(e.value), e.value.params))
    assert said == [(text, (text.split(":")[0],)) for _, text in calls]
    assert nightly.parse_date("2026-01-02") == pipeline.parse_date("2026-01-02")


def test_the_nightly_job_refuses_a_renderer_or_hooks_of_another_type_before_any_work(
    tmp_path: Path,
) -> None:
    """``nightly.run_nightly(roots, out, renderer=None)`` (or ``hooks=5``, ``hooks=[5]``)
    ran the night's extract, wrote each history, its lock and manifest and took the
    output's lock, then was an AttributeError or TypeError from inside. Each is a
    ``UsageError`` naming the argument, before anything is read or written."""
    from runscore.cli.nightly import Renderer
    from runscore.engine import nightly

    shutil.copytree(REPO / "examples" / "project", tmp_path / "proj")
    before = _tree(tmp_path)
    calls: list[tuple[dict[str, Any], str]] = [
        ({"renderer": None}, "renderer: give a Renderer (runscore.cli.nightly.Renderer(): markdown(kind, ctx) and json(data)), not None"),
        ({"renderer": Renderer(), "hooks": 5}, "hooks: give a list of PackHooks, not int"),
        ({"renderer": Renderer(), "hooks": [5]}, "hooks (runscore.cli.nightly.pack_hooks()): give PackHooks, not int"),
    ]  # fmt: skip
    said = []
    for kw, _ in calls:
        with pytest.raises(UsageError) as e:
            nightly.run_nightly([tmp_path / "proj"], tmp_path / "out", **kw)
        said.append((str(e.value), e.value.params))
    assert said == [(text, (text.split(":")[0].split(" ")[0],)) for _, text in calls]
    assert _tree(tmp_path) == before
