"""CLI surface of `runscore routes`: formats, dispatch, policy, rejects, privacy, determinism."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import db, sqlpack
from runscore.engine.packs import routes as engine

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET = "claude-haiku-4", "claude-sonnet-4"
GOLDEN = Path(__file__).resolve().parent / "golden"


def _equivalent(g: Any) -> Any:
    for cx in ("low", "medium", "high"):
        g.cell(SONNET, 150, 135, complexity=cx)
        g.cell(HAIKU, 120, 108, complexity=cx)
    return g


def _small(g: Any) -> Any:
    """A small mixed corpus for golden files: one insufficient comparison, one blind spot."""
    g.cell(SONNET, 8, 7, complexity="low")
    g.cell(HAIKU, 6, 5, complexity="low")
    g.cell(SONNET, 4, 1, activity="triage")
    g.unlabelled(SONNET, 50, activity="triage")
    return g


def test_bare_file_dispatches_to_report(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    a = run_cli("routes", path, "--as-of", AS_OF)
    b = run_cli("routes", "report", path, "--as-of", AS_OF)
    c = run_cli("routes", "--as-of", AS_OF, path)
    assert a.exit_code == b.exit_code == c.exit_code == 0
    assert a.stdout == b.stdout == c.stdout
    assert a.stdout.startswith("# Route findings")


def test_markdown_and_json_golden(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _small(gen()).write(path)
    for fmt, name in (("markdown", "small.md"), ("json", "small.json"), ("csv", "small.csv")):
        res = run_cli("routes", "report", "s.jsonl", "--format", fmt, "--as-of", AS_OF)
        assert res.exit_code == 0, res.stderr
        golden = GOLDEN / name
        # Paths print as given; the CLI runs in tmp_path's parent-independent cwd, so make
        # the input path relative by running from its folder.
        assert res.stdout == golden.read_text(encoding="utf-8"), name


def test_byte_identical_reruns(gen: Any, run_cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    g = _equivalent(gen())
    g.cascade(60, cheap=HAIKU, premium=SONNET, direct_ok=50, escalate=8, premium_ok=7)
    path = str(g.write(tmp_path / "r.jsonl"))
    outs: dict[str, set[str]] = {"json": set(), "markdown": set()}
    for fmt, threads in (("json", "1"), ("json", "2"), ("markdown", "1"), ("markdown", "2")):
        monkeypatch.setenv("RUNSCORE_THREADS", threads)
        res = run_cli("routes", path, "--format", fmt, "--as-of", AS_OF)
        assert res.exit_code == 0
        outs[fmt].add(res.stdout)
    assert len(outs["json"]) == 1 and len(outs["markdown"]) == 1


def test_two_drift_findings_on_one_route_pair_keep_one_order(
    gen: Any, run_cli: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """A stale comparison and a stale cascade of the same two routes both become evidence_drift
    with the same sort keys (type, activity, candidate, incumbent); their order was left to
    DuckDB's threads, so reruns differed (§7). Ties now go by evidence source, then headline."""
    g = _equivalent(gen())
    g.cascade(60, cheap=HAIKU, premium=SONNET, direct_ok=50, escalate=8, premium_ok=7)
    path = str(g.write(tmp_path / "r.jsonl"))
    monkeypatch.setenv("RUNSCORE_THREADS", "2")
    outs = set()
    for _ in range(6):
        res = run_cli("routes", path, "--format", "csv", "--as-of", "2026-01-01")
        assert res.exit_code == 0, res.stderr
        outs.add(res.stdout)
    assert len(outs) == 1
    rows = list(csv.DictReader(io.StringIO(outs.pop())))
    assert [(r["type"], r["grade"], r["evidence_source"]) for r in rows] == [
        ("evidence_drift", "correlated", "historical"),
        ("evidence_drift", "proven", "prospective"),
    ]


def _paths(d: dict[str, Any], at: str = "") -> list[str]:
    return [
        p
        for k, v in d.items()
        for p in (_paths(v, f"{at}{k}.") if isinstance(v, dict) else [f"{at}{k}"])
    ]


def test_findings_csv_carries_the_rates_and_why_of_the_json(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """The findings CSV (the default table) left out each finding's retry/repair/escalation
    rates (and how many episodes report each) and its `why`, which the JSON and the markdown
    carry: a CSV user could not see what a finding rests on. They are columns now, named by
    their JSON paths (`rates.candidate_retry`, `why`: a list, as one line of JSON), as the
    other tables name theirs; null stays an empty cell. So are, after them, the counts,
    `drift_of`, `quality_metric`, `interval_method`, the freshness, the cost totals and
    `episode_ids`, which the JSON alone had: every field of the JSON has a column."""
    g = _equivalent(gen())
    g.cascade(60, cheap=HAIKU, premium=SONNET, direct_ok=50, escalate=8, premium_ok=7)
    path = str(g.write(tmp_path / "t.jsonl"))
    data = json.loads(run_cli("routes", path, "--format", "json", "--as-of", AS_OF).stdout)
    res = run_cli("routes", path, "--format", "csv", "--as-of", AS_OF)
    assert (res.exit_code, res.stderr) == (0, "")
    rates = [
        f"rates.{side}_{what}{reported}"
        for reported in ("", "_reported")
        for side in ("candidate", "incumbent")
        for what in ("retry", "repair", "escalation")
    ]
    added = [
        "drift_of",
        "incumbent.route",
        "incumbent.harness_scope",
        "candidate.route",
        "candidate.harness_scope",
        "quality_metric",
        "interval_method",
        "counts.strata_compared",
        "counts.matched_candidate",
        "counts.matched_incumbent",
        "counts.pairs",
        "counts.discordant_candidate_only",
        "counts.discordant_incumbent_only",
        "counts.prospective_operations",
        "cost.candidate_per_accepted",
        "cost.incumbent_per_accepted",
        "cost.net_total",
        "freshness.age_days",
        "freshness.stale",
        "freshness.summary",
        "freshness.models",
        "freshness.harnesses",
        "freshness.reasoning_efforts",
        "freshness.current_harness",
        "episode_ids",
    ]
    assert res.stdout.splitlines()[0] == ",".join(
        [
            "type",
            "activity",
            "grade",
            "candidate_host",
            "candidate_provider",
            "candidate_model",
            "incumbent_host",
            "incumbent_provider",
            "incumbent_model",
            "effect",
            "ci_low",
            "ci_high",
            "tolerance",
            "evidence_source",
            "cost_basis",
            "cost_claim",
            "net_saving_per_accepted",
            *rates,
            "newest_evidence",
            "evidence_episodes",
            "actionable",
            "command",
            "headline",
            "why",
            # then every other field of the JSON, by its path, in its order
            *added,
        ]
    )
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["type"] for r in rows] == [f["type"] for f in data["findings"]]
    assert {f["evidence_source"] for f in data["findings"]} >= {"historical", "prospective"}
    for row, f in zip(rows, data["findings"], strict=True):
        for col in rates:
            v = f["rates"][col.removeprefix("rates.")]
            assert row[col] == ("" if v is None else str(v)), col
        assert json.loads(row["why"]) == f["why"]
        for col in added:
            v = f
            for k in col.split("."):
                v = v[k]
            if isinstance(v, list):  # a list as one line of JSON, as every CSV writes it
                assert json.loads(row[col]) == v, col
            else:  # null an empty cell, a boolean as JSON writes it
                assert row[col] == (
                    "" if v is None else json.dumps(v) if v in (True, False) else str(v)
                ), col
    # every field of the JSON has its column (the old names hold the ones they always had)
    (f, *_) = data["findings"]
    assert len(rows[0]) == len(_paths(f)) == 60
    # a cascade has no incumbent side: unknown, an empty cell, never 0
    (casc,) = [r for r in rows if r["evidence_source"] == "prospective"]
    assert casc["rates.incumbent_retry"] == casc["rates.incumbent_retry_reported"] == ""
    assert casc["rates.candidate_escalation"] != ""


def test_csv_writes_the_table_that_table_names(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    """`routes --format csv` wrote the findings only: the comparisons (every pair, with the
    reasons an insufficient one gives), the cascades and the matrix, which the JSON holds,
    could not be had as CSV, and with no finding it wrote a header alone. `--table` picks one
    table (CSV holds one), findings by default; the columns are the JSON's paths."""
    g = _equivalent(gen())
    g.cascade(60, cheap=HAIKU, premium=SONNET, direct_ok=50, escalate=8, premium_ok=7)
    path = str(g.write(tmp_path / "t.jsonl"))
    data = json.loads(run_cli("routes", path, "--format", "json", "--as-of", AS_OF).stdout)

    def table(name: str | None) -> list[dict[str, str]]:
        args = ["routes", path, "--format", "csv", "--as-of", AS_OF]
        res = run_cli(*args, *(["--table", name] if name else []))
        assert (res.exit_code, res.stderr) == (0, "")
        return list(csv.DictReader(io.StringIO(res.stdout)))

    assert table(None) == table("findings")
    assert [r["type"] for r in table("findings")] == [f["type"] for f in data["findings"]]
    (comp,) = table("comparisons")
    (want,) = data["comparisons"]
    assert (comp["candidate.model"], comp["grade"], comp["historical.effect"]) == (
        HAIKU,
        want["grade"],
        str(want["historical"]["effect"]),
    )
    assert json.loads(comp["reasons"]) == want["reasons"]
    assert json.loads(comp["historical.strata"]) == want["historical"]["strata"]
    assert comp["freshness.newest_evidence"] == want["freshness"]["newest_evidence"]
    (casc,) = table("cascades")
    assert (casc["entry.model"], casc["target.model"], casc["operations"]) == (HAIKU, SONNET, "60")
    assert casc["cost.net_saving_per_accepted"] == str(
        data["cascades"][0]["cost"]["net_saving_per_accepted"]
    )
    matrix = table("matrix")
    assert [(m["model"], m["grade"]) for m in matrix] == [
        (m["model"], m["grade"]) for m in data["matrix"]
    ]
    # an empty table still has its header
    empty = tmp_path / "one.jsonl"
    g1 = gen()
    g1.cell(SONNET, 3, 3)
    g1.write(empty)
    res = run_cli("routes", str(empty), "--format", "csv", "--table", "cascades")
    assert res.exit_code == 0
    assert res.stdout.startswith("activity,entry.host,entry.provider,entry.model,entry.route,")
    assert res.stdout.count("\n") == 1


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_table_without_csv_is_a_usage_error(run_cli: Any, tmp_path: Path, fmt: str) -> None:
    """markdown and JSON hold every table: a `--table` they would ignore is refused, before
    anything is read (the file does not exist)."""
    res = run_cli("routes", str(tmp_path / "none.jsonl"), "--format", fmt, "--table", "matrix")
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr.endswith(
        "error: --table needs --format csv: the markdown and the JSON hold every table "
        "(see 'cli routes report --help')\n"
    ), res.stderr


def test_default_as_of_is_today_midnight_utc() -> None:
    """``parse_as_of`` gave a naive datetime where the report's ``as_of`` is aware (UTC):
    the two could not be compared (TypeError). It is aware UTC now, a time given without
    an offset taken as UTC, as the report reads it."""
    import datetime as dt

    for parsed, utc in [
        (engine.parse_as_of(None, today=dt.date(2025, 1, 2)), dt.datetime(2025, 1, 2)),
        (engine.parse_as_of("2025-01-02T03:00:00+02:00"), dt.datetime(2025, 1, 2, 1)),
        (engine.parse_as_of("2025-01-02T03:00:00"), dt.datetime(2025, 1, 2, 3)),
        (engine.parse_as_of("2025-01-02"), dt.datetime(2025, 1, 2)),
    ]:
        assert (parsed, parsed.tzinfo) == (utc.replace(tzinfo=dt.UTC), dt.UTC)
    clock = engine.parse_as_of("2025-01-02T03:00:00+02:00")
    episodes = Path(__file__).resolve().parents[2] / "examples/project/.archeflow/episodes"
    rep = engine.analyze([str(episodes)], as_of=clock)
    assert rep.as_of == clock and rep.to_dict()["as_of"] == "2025-01-02T01:00:00Z"


def test_wrong_json_kinds_are_rejected_not_read_as_missing(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """`"outcome": "succeeded"` was read as an unlabelled episode, `"source": {"kind": 5}` as
    historical, `"escalated": "true"` as not escalated: bad input silently scored. Each such
    line is now rejected with the field and reason; the rest is scored."""
    g = _small(gen())
    path = g.write(tmp_path / "kinds.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    base = json.loads(good[0])

    def variant(eid: str, change: Any) -> str:
        ep = json.loads(json.dumps(base))
        ep["episodeId"] = eid
        change(ep)
        return json.dumps(ep)

    bad = [
        variant("k1", lambda e: e.update(source="historical")),
        variant("k2", lambda e: e.update(project=["p"])),
        variant("k3", lambda e: e.update(task="t")),
        variant("k4", lambda e: e.update(execution=["claude-haiku-4"])),
        variant("k5", lambda e: e.update(usage="lots")),
        variant("k6", lambda e: e.update(outcome="succeeded")),
        variant("k7", lambda e: e["source"].update(kind=5)),
        variant("k8", lambda e: e["task"].update(complexity=3)),
        variant("k9", lambda e: e["usage"].update(costBasis=1)),
        variant("k10", lambda e: e["outcome"].update(status=True)),
        variant("k11", lambda e: e["outcome"].update(escalation="yes")),
        variant("k12", lambda e: e["outcome"]["escalation"].update(escalated="true")),
    ]
    path.write_text("\n".join(good + bad) + "\n", encoding="utf-8")
    res = run_cli("routes", str(path), "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1, res.stderr
    n = len(good)
    reasons = [
        "source is not a JSON object",
        "project is not a JSON object",
        "task is not a JSON object",
        "execution is not a JSON object",
        "usage is not a JSON object",
        "outcome is not a JSON object",
        "source.kind is not a string",
        "task.complexity is not a string",
        "usage.costBasis is not a string",
        "outcome.status is not a string",
        "outcome.escalation is not a JSON object",
        "outcome.escalation.escalated is not true or false",
    ]
    assert res.stderr.splitlines() == [f"{path}:{n + i}: {r}" for i, r in enumerate(reasons, 1)]
    rep = json.loads(res.stdout)
    assert rep["inputs"]["episodes"] == n


def test_a_signal_that_cannot_be_read_is_rejected_not_skipped(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """A signal that is not an object (`["fail"]`) or whose kind or value is not a string was
    skipped without a word, so the episode was scored without it: `["fail"]` beside a passing
    gate labelled it a success. Such a line is rejected as the pack's other fields of the
    wrong JSON kind are, naming the signal by its JSON index; a null entry is no signal."""
    g = gen()
    g.cell(SONNET, 3, 3)
    gate = {"kind": "gate", "value": "pass"}
    g.episode(model=SONNET, success=None, signals=[gate, "fail"])
    g.episode(model=SONNET, success=None, signals=[gate, {"kind": 5, "value": "fail"}])
    g.episode(model=SONNET, success=None, signals=[gate, {"kind": "review", "value": False}])
    g.episode(model=SONNET, success=None, signals=[None, gate])
    path = g.write(tmp_path / "sig.jsonl")
    res = run_cli("routes", str(path), "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1, res.stderr
    assert res.stderr.splitlines() == [
        f"{path}:4: outcome.signals[1] is not a JSON object",
        f"{path}:5: outcome.signals[1].kind is not a string",
        f"{path}:6: outcome.signals[1].value is not a string",
    ]
    rep = json.loads(res.stdout)
    assert rep["inputs"]["episodes"] == 4
    assert rep["matrix"][0]["successes"] == 4


def test_api_as_of_with_a_timezone_is_read_in_utc(gen: Any, tmp_path: Path) -> None:
    """routes.analyze(as_of=<aware datetime>) used the wall-clock digits as if they were UTC
    (10:00+05:00 became 10:00Z) and printed that as the report's clock; now 05:00Z."""
    import datetime as dt

    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    plus5 = dt.timezone(dt.timedelta(hours=5))
    aware = engine.analyze([path], as_of=dt.datetime(2025, 3, 1, 10, tzinfo=plus5))
    naive = engine.analyze([path], as_of=dt.datetime(2025, 3, 1, 5))
    assert aware.to_dict()["as_of"] == "2025-03-01T05:00:00Z"
    assert aware.to_dict() == naive.to_dict()


def test_an_as_of_before_the_year_1000_is_an_iso_time(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """The report said "as_of": "999-12-31T00:00:00Z" (strftime's %Y has no padding), which
    is no ISO time, and the same text went to the SQL as the clock."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    res = run_cli("routes", path, "--as-of", "0999-12-31", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["as_of"] == "0999-12-31T00:00:00Z"


def test_nightly_routes_report_is_as_of_the_nightly_date(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """`nightly --date D` wrote routes.json/routes.md as of the day it ran (today), not D, as
    the pipeline pack's eval date is: a rerun of a past date changed its freshness verdicts."""
    eps = tmp_path / "proj" / ".archeflow" / "episodes"
    eps.mkdir(parents=True)
    _small(gen()).write(eps / "e.jsonl")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2025-03-01")
    assert res.exit_code == 0, res.stderr
    folder = tmp_path / "out" / "2025-03-01" / "routes" / "proj"
    rep = json.loads((folder / "routes.json").read_text(encoding="utf-8"))
    assert rep["as_of"] == "2025-03-01T00:00:00Z"
    assert rep == json.loads(
        run_cli("routes", str(eps / "e.jsonl"), "--format", "json", "--as-of", AS_OF).stdout
    ) | {"inputs": rep["inputs"]}
    md = (folder / "routes.md").read_text(encoding="utf-8")
    assert "As of 2025-03-01T00:00:00Z · scoring routes/v1" in md


def test_as_of_offset_past_the_calendar_is_a_usage_error(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """An --as-of whose offset moves it out of years 1-9999 in UTC raised OverflowError (a
    traceback, exit 1 as if input were rejected); it is a usage error (exit 2) now."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    for text in ("9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"):
        for cmd in ("report", "export-router-rows"):
            res = run_cli("routes", cmd, path, "--as-of", text)
            assert res.exit_code == 2, res.stderr
            assert res.stdout == ""
            assert res.stderr == (
                f'error: --as-of: outside the years 1 to 9999 in UTC: "{text}" '
                f"(see 'cli routes {cmd} --help')\n"
            )


def test_rejected_lines_are_reported_and_the_rest_scored(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    g = _small(gen())
    path = g.write(tmp_path / "bad.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    dup = json.loads(good[0])
    lines = [
        good[0],
        "{not json",
        json.dumps({"activity": {"id": "x"}}),
        json.dumps(dup),
        json.dumps({**dup, "episodeId": "k1", "source": {"kind": "weird"}}),
        json.dumps(
            {
                **dup,
                "episodeId": "k2",
                "usage": {"observedCostUsd": "lots", "costBasis": "observed"},
            }
        ),
    ]
    path.write_text("\n".join(lines + good[1:]) + "\n", encoding="utf-8")
    res = run_cli("routes", str(path), "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1
    err = res.stderr.splitlines()
    assert err[0].startswith(f"{path}:2: not JSON")
    assert err[1] == f"{path}:3: lacks episodeId (a non-empty string)"
    assert err[2] == f'{path}:4: duplicate episodeId "ep-000001" (first at {path}:1)'
    assert err[3] == f'{path}:5: unknown source.kind "weird" (historical, paired or prospective)'
    assert err[4] == f"{path}:6: usage cost is not a non-negative number"
    rep = json.loads(res.stdout)
    assert rep["inputs"]["episodes"] == len(good)
    assert len(rep["inputs"]["rejected"]) == 5


def test_problems_are_listed_in_input_order(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    # The reader's problems (no JSON object) were listed before the SQL's (a rejected
    # episode) whatever their lines: bad.jsonl:3 before bad.jsonl:2. A path not found was
    # listed first though given last.
    g = _small(gen())
    path = g.write(tmp_path / "bad.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    lines = [good[0], json.dumps({"activity": {"id": "x"}}), "{not json", *good[1:]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    missing = tmp_path / "nope.jsonl"
    res = run_cli("routes", str(path), str(missing), "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1
    where = [(p["file"], p["line"]) for p in json.loads(res.stdout)["inputs"]["rejected"]]
    assert where == [(str(path), 2), (str(path), 3), (str(missing), 0)]
    err = res.stderr.splitlines()
    assert err[0] == f"{path}:2: lacks episodeId (a non-empty string)"
    assert err[1].startswith(f"{path}:3: not JSON")
    assert err[2] == f"{missing}: no such file or directory"


def test_out_of_range_numbers_and_times_are_rejected_not_fatal(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """A number or time DuckDB cannot cast (BIGINT/DECIMAL/printable year) used to stop the
    whole report (exit 2 or a traceback); now only that line is rejected, with its reason."""
    g = _small(gen())
    path = g.write(tmp_path / "range.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    base = json.loads(good[0])

    def variant(eid: str, section: str, **fields: Any) -> str:
        ep = json.loads(json.dumps(base))
        ep["episodeId"] = eid
        ep[section].update(fields)
        return json.dumps(ep)

    bad = [
        variant("r1", "outcome", retries=1e300),
        variant("r2", "outcome", repairs=2**63),
        variant("r3", "usage", apiEquivalentCostUsd=1e29),
        variant("r4", "usage", apiEquivalentCostUsd=12345.5).replace("12345.5", "1e999"),
        variant("r5", "execution", startedAt="99999-01-01T00:00:00Z"),
        variant("r6", "execution", endedAt="infinity"),
        variant("r7", "execution", startedAt="0001-01-01T00:00:00+05:00"),
    ]
    path.write_text("\n".join(good + bad) + "\n", encoding="utf-8")
    n = len(good)
    for fmt in ("json", "markdown", "csv"):
        res = run_cli("routes", str(path), "--format", fmt, "--as-of", AS_OF)
        assert res.exit_code == 1, res.stderr
        assert res.stderr.splitlines() == [
            f"{path}:{n + 1}: outcome.retries/repairs is out of range (at most 2147483647)",
            f"{path}:{n + 2}: outcome.retries/repairs is out of range (at most 2147483647)",
            f"{path}:{n + 3}: usage cost is out of range (finite and below 1e15 USD)",
            f"{path}:{n + 4}: usage cost is out of range (finite and below 1e15 USD)",
            f"{path}:{n + 5}: execution.startedAt is outside the years 1 to 9999 (UTC): "
            '"99999-01-01T00:00:00Z"',
            f'{path}:{n + 6}: execution.endedAt is outside the years 1 to 9999 (UTC): "infinity"',
            f"{path}:{n + 7}: execution.startedAt is outside the years 1 to 9999 (UTC): "
            '"0001-01-01T00:00:00+05:00"',
        ]
    rep = json.loads(run_cli("routes", str(path), "--format", "json", "--as-of", AS_OF).stdout)
    assert rep["inputs"]["episodes"] == n
    assert len(rep["inputs"]["rejected"]) == 7


def test_negative_dollars_print_one_way_in_markdown(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    """A negative net saving (an escalation tax) printed as `$-0.0042` in the Cost line and the
    cascades table but as `-$0.0042` in the headline and the why list; now `-$0.0042`."""
    g = gen()
    g.cell(SONNET, 100, 90)
    g.cascade(
        60,
        cheap=HAIKU,
        premium=SONNET,
        direct_ok=10,
        escalate=48,
        premium_ok=45,
        retries_on_escalated=2,
    )
    path = str(g.write(tmp_path / "tax.jsonl"))
    res = run_cli("routes", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    md = res.stdout
    assert "$-" not in md
    assert "(net -$0.0038, api_equivalent)" in md
    assert "vs claude-sonnet-4 directly $0.0333; net saving -$0.0038 per accepted outcome\n" in md
    assert "| 60 | 55 | 48 | +0.017 [-0.090, +0.105] | -$0.0038 | api_equivalent | proven |" in md
    # sonnet run directly: its 100 episodes, not the 48 it ran as haiku's follow-ups
    assert "claude-sonnet-4 directly $0.0333 over its 90 accepted outcomes" in md
    assert "; net saving -$0.0038.\n" in md


def _findings_section(md: str) -> str:
    return md.split("## Findings\n\n", 1)[1].split("\n## ", 1)[0]


def test_no_findings_points_only_at_tables_that_are_there(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """With no findings the report said "The comparisons below say why." also when there was
    no comparison below (one route per activity)."""
    g = gen()
    g.cell(SONNET, 10, 8)
    res = run_cli("routes", str(g.write(tmp_path / "one.jsonl")), "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    assert _findings_section(res.stdout) == (
        "No findings: there is nothing to compare (no activity has two routes with a known "
        "model, and there is no cheap-first cascade), and no activity is a blind spot (many "
        "episodes, few of them labelled).\n"
    )
    # A comparison and a cascade (its cost unknown, so no finding): both hold the reasons.
    g = gen()
    g.cascade(
        10, cheap=HAIKU, premium=SONNET, direct_ok=8, escalate=2, premium_ok=2, cheap_cost=None
    )
    res = run_cli("routes", str(g.write(tmp_path / "casc.jsonl")), "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    assert _findings_section(res.stdout) == (
        "No findings: no comparison, cascade or activity met the bar for a finding. The "
        "comparisons and cheap-first cascades below say why.\n"
    )


def test_cascade_target_harness_scope_is_known(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    """A cascade finding's target (its `incumbent`) had a hard-coded empty harness scope, shown
    as "harness scope: unknown" although every target episode carries its harness."""
    g = gen()
    g.cell(SONNET, 100, 90, harness="h0")
    g.cascade(
        60,
        cheap=HAIKU,
        premium=SONNET,
        direct_ok=10,
        escalate=48,
        premium_ok=45,
        retries_on_escalated=2,
    )
    path = str(g.write(tmp_path / "tax.jsonl"))
    rep = json.loads(run_cli("routes", path, "--format", "json", "--as-of", AS_OF).stdout)
    (f,) = rep["findings"]
    assert f["type"] == "escalation_tax"
    # the scope of the target's evidence: sonnet run directly (h0), not its follow-ups (h1)
    assert f["incumbent"]["harness_scope"] == ["h0"]
    assert f["candidate"]["harness_scope"] == ["h1"]
    md = run_cli("routes", path, "--as-of", AS_OF).stdout
    assert "- Incumbent: claude-sonnet-4 via claude-code/anthropic (harness scope: h0)\n" in md


def test_nothing_readable_exits_3(run_cli: Any, tmp_path: Path) -> None:
    res = run_cli("routes", str(tmp_path / "missing.jsonl"))
    assert res.exit_code == 3 and "no such file" in res.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["routes"],
        ["routes", "--format", "json"],
        ["routes", "--format", "csv"],
        ["routes", "export-router-rows"],
        ["routes", "export-router-rows", "--format", "csv"],
    ],
)
def test_input_whose_every_line_is_rejected_exits_3(
    args: list[str], gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """A file whose lines were all rejected was exit 1 ("the rest was processed") with a
    report of no episodes (`[]`, a header-only CSV), where extract and pipeline exit 3:
    nothing was read. A file that holds no line is named beside them."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "an episode"}\nnot json\n', encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    res = run_cli(*args, str(bad), str(empty), "--as-of", AS_OF)
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == (
        "error: no episode could be read:\n"
        f"  {bad}:1: lacks episodeId (a non-empty string)\n"
        f"  {bad}:2: not JSON: Expecting value: line 1 column 1 (char 0)\n"
        f"  {empty}: empty (no episodes)\n"
    )
    # one good episode is enough: the rest is rejected, exit 1, as before
    g = gen()
    g.cell(HAIKU, 1, 1)
    good = g.write(tmp_path / "good.jsonl")
    assert run_cli(*args, str(bad), str(good), "--as-of", AS_OF).exit_code == 1


@pytest.mark.parametrize(
    "args", [["routes"], ["routes", "--format", "json"], ["routes", "export-router-rows"]]
)
def test_input_that_holds_no_line_is_nothing_read(
    args: list[str], gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """Spec-silent. Episode files that hold no line (empty, or blank lines only) were a
    report of no episodes (exit 0), where a folder with no file in it exits 3, as extract
    and pipeline do for both: nothing was there to read (README, exit 3: stdout empty, not
    a document of no rows). Each file is named, with why."""
    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n \n", encoding="utf-8")
    res = run_cli(*args, "a.jsonl", "b.jsonl", "--as-of", AS_OF)
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == (
        "error: no episode could be read:\n"
        "  a.jsonl: empty (no episodes)\n"
        "  b.jsonl: only blank lines (no episodes)\n"
    )
    # Beside a file of episodes: test_a_file_that_holds_no_line_beside_episodes_is_said


@pytest.mark.parametrize(
    "args", [["routes"], ["routes", "--format", "json"], ["routes", "export-router-rows"]]
)
def test_a_file_that_holds_no_line_beside_episodes_is_said(
    args: list[str], gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """Spec-silent. Beside a file of episodes, a file that holds no line was read without a
    word (exit 0), where alone it is named in the error (exit 3), and `extract` says it. It
    is said now on stderr in the error's words, in the order given, and is not rejected
    input (exit 0); `routes --format json` lists it in `inputs.empty_files`."""
    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "b.jsonl").write_bytes(b"\n \x0b\r\n")
    g = gen()
    g.cell(HAIKU, 1, 1)
    g.write(tmp_path / "good.jsonl")
    res = run_cli(*args, "a.jsonl", "good.jsonl", "b.jsonl", "--as-of", AS_OF)
    assert (res.exit_code, res.stderr) == (
        0,
        "a.jsonl: empty (no episodes)\nb.jsonl: only blank lines (no episodes)\n",
    )
    if "json" in args:
        inputs = json.loads(res.stdout)["inputs"]
        assert (inputs["empty_files"], inputs["rejected"]) == (
            [
                {"file": "a.jsonl", "reason": "empty (no episodes)"},
                {"file": "b.jsonl", "reason": "only blank lines (no episodes)"},
            ],
            [],
        )


def test_raw_prompt_text_never_reaches_output(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    g = _equivalent(gen())
    for ep in g.episodes[:40]:
        ep["prompt"] = "SECRET-PROMPT-TEXT"
        ep["transcript"] = [{"role": "user", "content": "SECRET-TRANSCRIPT"}]
        ep["task"]["prompt"] = "SECRET-TASK-PROMPT"
        ep["outcome"]["signals"][0]["note"] = "SECRET-SIGNAL-NOTE"
    path = str(g.write(tmp_path / "p.jsonl"))
    outs = [
        run_cli("routes", path, "--format", f, "--as-of", AS_OF).stdout
        for f in ("markdown", "json", "csv")
    ]
    outs += [
        run_cli("routes", "export-router-rows", path, "--format", f).stdout
        for f in ("jsonl", "csv")
    ]
    assert all(o for o in outs)
    for o in outs:
        assert "SECRET" not in o
    assert "prompt" not in engine.COLUMNS and "transcript" not in engine.COLUMNS


def test_route_fields_stay_separate(gen: Any, report: Any, tmp_path: Path) -> None:
    g = gen()
    g.cell(SONNET, 40, 36)
    ep = g.episode(model=HAIKU, success=True)
    ep["execution"].update({"host": "codex", "inferenceProvider": None, "reasoningEffort": "high"})
    rep = report(str(g.write(tmp_path / "f.jsonl")))
    row = next(m for m in rep["matrix"] if m["model"] == HAIKU)
    assert (row["host"], row["provider"]) == ("codex", None)
    assert row["route"] == f"{HAIKU} via codex/unknown provider"


def test_policy_file_and_flags(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    g = gen()
    for cx in ("low", "medium", "high"):
        g.cell(SONNET, 80, 72, complexity=cx)
        g.cell(HAIKU, 60, 54, complexity=cx)
    path = str(g.write(tmp_path / "q.jsonl"))

    def comp(*args: str) -> dict[str, Any]:
        res = run_cli("routes", path, "--format", "json", "--as-of", AS_OF, *args)
        assert res.exit_code == 0, res.stderr
        return json.loads(res.stdout)

    base = comp()
    assert base["comparisons"][0]["conclusion"] == "inconclusive"
    assert base["findings"] == []
    (tmp_path / "pol.yaml").write_text("tolerance: 0.10\nmin_labelled_per_route: 50\n")
    loose = comp("--policy", str(tmp_path / "pol.yaml"))
    assert loose["policy"]["tolerance"] == 0.10
    assert [f["type"] for f in loose["findings"]] == ["cheaper_equivalent"]
    (tmp_path / "pol.json").write_text(
        json.dumps({"tolerance": 0.10, "incumbents": {"documentation": f"claude-code:{HAIKU}"}})
    )
    flipped = comp("--policy", str(tmp_path / "pol.json"), "--tolerance", "0.05")
    assert flipped["policy"]["tolerance"] == 0.05
    assert flipped["comparisons"][0]["incumbent"]["model"] == HAIKU
    assert flipped["comparisons"][0]["incumbent"]["source"] == "configured"
    (tmp_path / "bad.yaml").write_text("tolerence: 0.1\n")
    res = run_cli("routes", path, "--policy", str(tmp_path / "bad.yaml"))
    assert res.exit_code == 2 and 'unknown setting "tolerence"' in res.stderr
    res = run_cli("routes", path, "--tolerance", "2")
    assert res.exit_code == 2 and "between 0 and 1" in res.stderr
    res = run_cli("routes", path, "--as-of", "yesterday")
    assert res.exit_code == 2


@pytest.mark.parametrize(
    ("content", "said"),
    [
        # PyYAML keeps the last of a setting given twice without a word (JSON parsers
        # differ on which they keep): which was meant cannot be known.
        (
            b"tolerance: 0.10\nmin_pairs: 5\ntolerance: 0.20\n",
            ':3:1: key "tolerance" given twice (first on line 1): '
            "which value is meant cannot be known",
        ),
        (
            b'{"incumbents": {"documentation": "claude-code:a",\n'
            b' "documentation": "claude-code:b"}}\n',
            ':2:2: key "documentation" given twice (first on line 1): '
            "which value is meant cannot be known",
        ),
        # was a UnicodeDecodeError traceback (exit 1)
        (b"tolerance: 0.1\xff\n", ": not UTF-8 text (byte 15)"),
        # was PyYAML's message over three lines, a literal "\\n" in the middle
        (
            b"tolerance: [0.1\nmin_pairs: 3\n",
            ":2:10: not valid YAML/JSON: expected ',' or ']', but got ':'",
        ),
        (
            b"tolerance: 0.1\n---\nmin_pairs: 3\n",
            ":2:1: not valid YAML/JSON: but found another document",
        ),
        # a lone surrogate escape was kept as one, which no UTF-8 output writes
        (
            b'{"incumbents": {"documentation": "claude-code:\\udb40"}}\n',
            ":1:34: not valid YAML/JSON: \\udb40 is half of a UTF-16 surrogate pair, no "
            "character of its own",
        ),
    ],
)
def test_policy_file_problems_are_one_line_usage_errors(
    gen: Any, run_cli: Any, tmp_path: Path, content: bytes, said: str
) -> None:
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    pol = tmp_path / "pol.yaml"
    pol.write_bytes(content)
    runs = ((["routes"], "report"), (["routes", "export-router-rows"], "export-router-rows"))
    for cmd, run in runs:
        res = run_cli(*cmd, path, "--policy", str(pol))
        assert res.exit_code == 2
        assert res.stdout == ""
        assert res.stderr == f"error: {pol}{said} (see 'cli routes {run} --help')\n"


def test_a_bad_policy_flag_is_named_as_the_flag(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    """A flag's bad value was said as `flags: min_labelled_per_route must be >= 0` (the
    policy key, not the flag typed), or, with `--policy` given too, as that file's error
    (`pol.yaml: tolerance must be ...`) though the file did not hold it."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    good = tmp_path / "good.yaml"
    good.write_text("tolerance: 0.10\n", encoding="utf-8")
    help_of = {
        "report": "cli routes report",
        "export-router-rows": "cli routes export-router-rows",
    }
    for sub, flag, value, said in [
        ("report", "--min-labelled", "-3", "must be >= 0, got -3"),
        ("report", "--tolerance", "2", "must be between 0 and 1, got 2.0"),
        ("export-router-rows", "--max-ci-width", "nan", "must be between 0 and 1, got NaN"),
        ("export-router-rows", "--freshness-days", "-1", "must be >= 0, got -1"),
        ("report", "--min-overlap", "1.5", "must be between 0 and 1, got 1.5"),
    ]:
        for extra in ([], ["--policy", str(good)]):
            res = run_cli("routes", sub, path, flag, value, *extra)
            assert res.exit_code == 2
            assert res.stdout == ""
            assert res.stderr == (
                f"error: Invalid value for '{flag}': {said} (see '{help_of[sub]} --help')\n"
            )
    # The file's own bad value is the file's error, even where a flag overrides it.
    bad = tmp_path / "bad.yaml"
    bad.write_text("tolerance: 2\n", encoding="utf-8")
    res = run_cli("routes", path, "--policy", str(bad), "--tolerance", "0.1")
    assert res.exit_code == 2
    assert res.stderr == (
        f"error: {bad}: tolerance must be between 0 and 1, got 2 (see 'cli routes report --help')\n"
    )


def test_a_configured_incumbent_that_names_no_route_is_said(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """An incumbent the policy names that no episode of its activity ran on (a typo, a model
    not run yet), or for an activity with no episode, fell back to the most labelled route
    (or was dropped) without a word: the report read as if the policy had been followed."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    pol = tmp_path / "pol.yaml"
    pol.write_text(
        "incumbents:\n"
        "  documentation: claude-code:claude-sonet-4\n"
        "  triage: {model: claude-sonnet-4}\n"
        "  docs: claude-code:anthropic:claude-haiku-4\n",
        encoding="utf-8",
    )
    for cmd in (["routes", "--format", "json"], ["routes", "export-router-rows"]):
        res = run_cli(*cmd, path, "--as-of", AS_OF, "--policy", str(pol))
        assert res.exit_code == 0
        assert res.stderr == (
            f'warning: {pol}: incumbent for "docs" ("claude-code:anthropic:claude-haiku-4") '
            "not used: no episode has that activity\n"
            f'warning: {pol}: incumbent for "documentation" ("claude-code:claude-sonet-4") '
            "not used: no episode of that activity ran on it; the incumbent is the route "
            "with the most labelled episodes\n"
        )
    res = run_cli("routes", path, "--as-of", AS_OF, "--policy", str(pol), "--format", "json")
    (c,) = json.loads(res.stdout)["comparisons"]
    assert (c["incumbent"]["model"], c["incumbent"]["source"]) == (SONNET, "most labelled episodes")


def test_the_warning_on_an_unused_incumbent_names_the_rule_that_chose_the_other(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """The warning on a configured incumbent that names no route said the one used instead
    is "the route with the most labelled episodes" also where a tie-break chose it (§6:
    ties go to most episodes, then lexicographic order), as incumbent.source said it before
    it named the rule."""
    pol = tmp_path / "pol.yaml"
    pol.write_text("incumbents:\n  documentation: claude-code:claude-sonet-4\n", encoding="utf-8")

    def warned(name: str, haiku_unlabelled: int) -> tuple[str, str]:
        g = gen()
        g.cell(SONNET, 40, 36)
        g.cell(HAIKU, 40, 30)
        g.unlabelled(HAIKU, haiku_unlabelled)
        path = str(g.write(tmp_path / name))
        res = run_cli("routes", path, "--as-of", AS_OF, "--policy", str(pol), "--format", "json")
        assert res.exit_code == 0, res.stderr
        (c,) = json.loads(res.stdout)["comparisons"]
        prefix = (
            f'warning: {pol}: incumbent for "documentation" ("claude-code:claude-sonet-4") '
            "not used: no episode of that activity ran on it; the incumbent is "
        )
        assert res.stderr.startswith(prefix), res.stderr
        return res.stderr[len(prefix) :], c["incumbent"]["source"]

    assert warned("eps.jsonl", 3) == (
        "the route with the most episodes (tie on labelled episodes)\n",
        "most episodes (tie on labelled episodes)",
    )
    assert warned("lex.jsonl", 0) == (
        "the route first in lexicographic order (tie on labelled and total episodes)\n",
        "lexicographic order (tie on labelled and total episodes)",
    )


def test_an_unused_incumbent_of_an_activity_with_no_model_says_there_is_none(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # An activity whose episodes all lack a model has no route, so no incumbent either:
    # the warning said "the incumbent is the route with the most labelled episodes".
    g = gen()
    g.cell(SONNET, 10, 8)
    g.episode(model=SONNET, success=True, activity="triage", extra={})
    g.episodes[-1]["execution"]["model"] = None
    path = str(g.write(tmp_path / "m.jsonl"))
    pol = tmp_path / "pol.yaml"
    pol.write_text("incumbents:\n  triage: claude-code:claude-sonnet-4\n", encoding="utf-8")
    res = run_cli("routes", path, "--as-of", AS_OF, "--policy", str(pol), "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert res.stderr == (
        f'warning: {pol}: incumbent for "triage" ("claude-code:claude-sonnet-4") not used: '
        "no episode of that activity ran on it; none of its episodes names a model, so it has "
        "no incumbent\n"
    )


def test_policy_messages_quote_values_as_the_sql_messages_do(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """routes' Python messages quoted a value with Python's repr ('docs\\xa0') while its SQL
    messages quote it as JSON (rs_quote: "docs\\u00a0"), and printed the incumbent's route
    bare, so a blank-looking character in it went unseen. Every value is now quoted alike."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    pol = tmp_path / "pol.yaml"
    pol.write_text(
        'incumbents:\n  "docs\\u00a0": "claude-code:claude\\u200bhaiku"\n', encoding="utf-8"
    )
    res = run_cli("routes", path, "--as-of", AS_OF, "--policy", str(pol), "--format", "json")
    assert res.exit_code == 0
    assert res.stderr == (
        f'warning: {pol}: incumbent for "docs\\u00a0" ("claude-code:claude\\u200bhaiku") '
        "not used: no episode has that activity\n"
    )
    pol.write_text('"tolerance\\u00a0": 0.1\n', encoding="utf-8")
    res = run_cli("routes", path, "--policy", str(pol))
    assert res.exit_code == 2
    assert res.stderr.startswith(f'error: {pol}: unknown setting "tolerance\\u00a0" (known: ')
    pol.write_text("incumbents:\n  docs: a:b:c:d\n", encoding="utf-8")
    res = run_cli("routes", path, "--policy", str(pol))
    assert res.exit_code == 2
    assert res.stderr == (
        f'error: {pol}: incumbent for "docs" must be "host:model" or "host:provider:model", '
        "got \"a:b:c:d\" (see 'cli routes report --help')\n"
    )
    res = run_cli("routes", path, "--as-of", "yesterday\u00a0")
    assert res.exit_code == 2
    assert 'error: --as-of: not an ISO date-time: "yesterday\\u00a0"' in res.stderr


def test_a_path_that_needs_it_is_quoted_in_every_routes_message(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """A policy file's path began its messages as it was, and a duplicate episodeId's
    "(first at file:line)" and an empty file's note wrote theirs so too: a path holding a
    line break split the message, one holding a bidi override reordered it. Each is now
    written as every file:line: prefix writes a path (quoting.path; rs_path in SQL)."""
    eps = tmp_path / "e\u202ex.jsonl"
    lines = _small(gen()).write(tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    eps.write_text("\n".join([lines[0], lines[0], *lines[1:]]) + "\n", encoding="utf-8")
    (tmp_path / "em\npty.jsonl").write_text("\n", encoding="utf-8")
    pol = tmp_path / "p\tol.yaml"
    pol.write_text('incumbents:\n  nothing: "h:m"\n', encoding="utf-8")
    shown_eps, shown_pol = '"e\\u202ex.jsonl"', '"p\\tol.yaml"'
    res = run_cli(
        "routes",
        eps.name,
        "em\npty.jsonl",
        "--as-of",
        AS_OF,
        "--policy",
        pol.name,
        "--format",
        "json",
    )
    assert res.exit_code == 1
    ep_id = json.loads(lines[0])["episodeId"]
    assert res.stderr.splitlines() == [
        '"em\\npty.jsonl": only blank lines (no episodes)',
        f'{shown_eps}:2: duplicate episodeId "{ep_id}" (first at {shown_eps}:1)',
        f'warning: {shown_pol}: incumbent for "nothing" ("h:m") not used: '
        "no episode has that activity",
    ]
    for content, said in [
        (b"tolerance: 0.1\ntolerance: 0.2\n", ':2:1: key "tolerance" given twice'),
        (b"tolerance: 0.1\xff\n", ": not UTF-8 text (byte 15)"),
        (b"tolerance: [0.1\nmin_pairs: 3\n", ":2:10: not valid YAML/JSON"),
        (b"- 1\n", ": a policy file must be a mapping of settings"),
        (b"tolerence: 0.1\n", ': unknown setting "tolerence"'),
        (b"tolerance: 5\n", ": tolerance must be between 0 and 1, got 5"),
    ]:
        pol.write_bytes(content)
        res = run_cli("routes", eps.name, "--policy", pol.name)
        assert res.exit_code == 2
        assert res.stderr.startswith(f"error: {shown_pol}{said}")


def test_whole_numbers_past_the_sql_types_are_usage_errors(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """`--min-pairs 99999999999999999999` or a model tier of 99999999999 reached the SQL and
    stopped it with DuckDB's conversion error; they are refused up front, naming the setting."""
    path = str(_small(gen()).write(tmp_path / "s.jsonl"))
    big = "99999999999999999999"
    res = run_cli("routes", path, "--min-pairs", big)
    assert res.exit_code == 2
    assert res.stderr == (
        "error: Invalid value for '--min-pairs': must be at most 9223372036854775807, "
        f"got {big} (see 'cli routes report --help')\n"
    )
    pol = tmp_path / "pol.yaml"
    pol.write_text("model_tiers:\n  haiku: 99999999999\n", encoding="utf-8")
    res = run_cli("routes", "export-router-rows", path, "--policy", str(pol))
    assert res.exit_code == 2
    assert res.stderr == (
        f'error: {pol}: model tier for "haiku" must be a whole number '
        "from -2147483648 to 2147483647 (see 'cli routes export-router-rows --help')\n"
    )
    pol.write_text("freshness_days: 1.0e+19\n", encoding="utf-8")
    res = run_cli("routes", path, "--policy", str(pol))
    assert res.exit_code == 2
    assert res.stderr == (
        f"error: {pol}: freshness_days must be at most 9223372036854775807, got 1e+19 "
        "(see 'cli routes report --help')\n"
    )


def test_export_router_rows(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    g = _equivalent(gen())
    g.unlabelled(HAIKU, 3)
    path = str(g.write(tmp_path / "e.jsonl"))
    res = run_cli("routes", "export-router-rows", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 810  # the 3 unlabelled episodes are not training rows
    r = rows[0]
    assert set(r) == {
        "episode_id",
        "activity",
        "task_fingerprint",
        "features",
        "host",
        "inference_provider",
        "provider_provenance",
        "model",
        "outcome",
        "quality_label",
        "cost",
        "cost_basis",
        "evidence_grade",
    }
    assert r["host"] == "claude-code" and r["features"]["complexity"] in (
        "low",
        "medium",
        "high",
    )
    assert {x["evidence_grade"] for x in rows if x["model"] == HAIKU} == {"correlated"}
    assert sum(x["quality_label"] for x in rows) == 324 + 405
    csv_out = run_cli("routes", "export-router-rows", path, "--format", "csv").stdout
    assert len(list(csv.reader(io.StringIO(csv_out)))) == 811


def test_router_rows_jsonl_never_writes_infinity(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    """A token count of 1e999 (read as +inf) came out of `--format jsonl` as `Infinity`, which
    is not JSON, while `--format json` and `csv` wrote null. Such a line is now rejected as out
    of range (as an infinite cost is), so no format can meet it."""
    g = gen()
    g.episode(model=HAIKU, success=True)
    g.episode(model=HAIKU, success=True)
    path = tmp_path / "inf.jsonl"
    g.write(path)
    path.write_text(
        path.read_text(encoding="utf-8").replace('"input": 1000', '"input": 1e999', 1),
        encoding="utf-8",
    )

    def strict(text: str) -> Any:
        def refuse(name: str) -> None:
            raise ValueError(f"not JSON: {name}")

        return json.loads(text, parse_constant=refuse)

    res = run_cli("routes", "export-router-rows", str(path), "--as-of", AS_OF)
    assert res.exit_code == 1
    assert res.stderr == f"{path}:1: usage.input is out of range (a finite number)\n"
    (line,) = res.stdout.splitlines()
    row = strict(line)
    assert row["episode_id"] == "ep-000002"
    assert row["outcome"]["tokens_input"] == 1000.0
    as_json = run_cli("routes", "export-router-rows", str(path), "--format", "json").stdout
    assert strict(as_json) == [row]


def test_hostile_names_are_escaped(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    evil = "haiku-[x](javascript:alert(1))-<script>|`"
    g = gen()
    for cx in ("low", "medium", "high"):
        g.cell(SONNET, 150, 135, complexity=cx)
        g.cell(evil, 120, 108, complexity=cx, cost=0.01)
    path = str(g.write(tmp_path / "h.jsonl"))
    md = run_cli("routes", path, "--as-of", AS_OF).stdout
    fence = "```sh\nak host pick --route 'documentation:claude-code:" + evil + "'\n```"
    prose = md.replace(fence, "")
    assert "<script>" not in prose and "[x](" not in prose
    assert "haiku-\\[x\\](javascript:alert(1))-&lt;script>\\|\\`" in prose
    # The copyable command is shell-quoted and fenced so the backtick cannot close the fence.
    assert fence in md


def test_interval_methods_match_published_examples() -> None:
    """Newcombe (1998) worked examples: 56/70 vs 48/80 -> [0.0524, 0.3339] (method 10);
    paired (a, b, c, d) = (36, 12, 2, 0) -> [0.0569, 0.3404] (method 10)."""
    con = db.connect()
    first = [f.name for f in sqlpack.files("routes", "v1") if int(f.name[:3]) <= 4]
    sqlpack.run_common(con, engine.COMMON_VERSION)  # 004's names as a sentence: rs_shown
    sqlpack.run_pack(
        con, "routes", "v1", {**engine.Policy().params(), "as_of": "2025-01-01"}, only=first
    )
    lo, hi = con.execute(
        "SELECT routes_newcombe_lo(56/70, 70, 48/80, 80, z95), "
        "routes_newcombe_hi(56/70, 70, 48/80, 80, z95) FROM routes_policy"
    ).fetchall()[0]
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    lo, hi = con.execute(
        "SELECT routes_paired_lo(36, 12, 2, 0, z95), routes_paired_hi(36, 12, 2, 0, z95) "
        "FROM routes_policy"
    ).fetchall()[0]
    assert (round(lo, 4), round(hi, 4)) == (0.0569, 0.3404)
    assert not math.isnan(lo)


def test_benchmark_script_runs_small(tmp_path: Path) -> None:
    """benchmarks/routes_bench.py generates and scores a corpus (1M by default; small here)."""
    import runpy
    import sys

    bench = Path(__file__).resolve().parents[2] / "benchmarks" / "routes_bench.py"
    argv = sys.argv
    sys.argv = [str(bench), "--episodes", "3000", "--out", str(tmp_path)]
    try:
        runpy.run_path(str(bench), run_name="__main__")
    except SystemExit as e:
        assert e.code == 0
    finally:
        sys.argv = argv
    assert sum(1 for _ in open(tmp_path / "episodes.jsonl", encoding="utf-8")) == 3000


def test_an_out_of_range_number_is_one_rejected_line(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # A cost of 1e999 (read as infinity) or 1e30, or retries of 1e30, failed the whole
    # report in SQL ("Could not cast value inf to DECIMAL(38,9)", exit 2); costs that each
    # fit but not their sum (3 x 6e28) overflowed later. Each such line is rejected with
    # its reason and the rest is scored.
    g = _small(gen())
    path = g.write(tmp_path / "big.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    ep = json.loads(good[0])

    def variant(k: int, usage: dict[str, Any] | None = None, **outcome: Any) -> str:
        return json.dumps(
            {
                **ep,
                "episodeId": f"big-{k}",
                "usage": {**ep["usage"], **(usage or {})},
                "outcome": {**ep["outcome"], **outcome},
            }
        ).replace('"INF"', "1e999")

    bad = [
        variant(1, {"apiEquivalentCostUsd": "INF"}),
        variant(2, {"observedCostUsd": 1e30, "costBasis": "observed"}),
        variant(3, {"apiEquivalentCostUsd": 6e28}),
        variant(4, {"apiEquivalentCostUsd": 6e28}),
        variant(5, retries=1e30),
        variant(6, repairs=1e19),
    ]
    path.write_text("\n".join(good + bad) + "\n", encoding="utf-8")
    res = run_cli("routes", str(path), "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1, res.stderr
    n = len(good)
    cost = "usage cost is out of range (finite and below 1e15 USD)"
    count = "outcome.retries/repairs is out of range (at most 2147483647)"
    assert res.stderr.splitlines() == [
        f"{path}:{n + 1}: {cost}",
        f"{path}:{n + 2}: {cost}",
        f"{path}:{n + 3}: {cost}",
        f"{path}:{n + 4}: {cost}",
        f"{path}:{n + 5}: {count}",
        f"{path}:{n + 6}: {count}",
    ]
    rep = json.loads(res.stdout)
    assert len(rep["inputs"]["rejected"]) == 6
    clean = run_cli(
        "routes", str(g.write(tmp_path / "good.jsonl")), "--format", "json", "--as-of", AS_OF
    )
    assert rep["findings"] == json.loads(clean.stdout)["findings"]


def test_a_time_beyond_python_s_years_is_a_rejected_line(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # DuckDB's cast takes "10000-01-01T00:00:00Z" and "-0001-03-01T00:00:00Z": every
    # format of the report ended in a traceback (OverflowError: date value out of range,
    # exit 1). Such a time is outside what runscore can store: one rejected line.
    g = _small(gen())
    path = g.write(tmp_path / "years.jsonl")
    good = path.read_text(encoding="utf-8").splitlines()
    ep = json.loads(good[0])
    late = {**ep, "episodeId": "late"}
    late["execution"] = {**ep["execution"], "endedAt": "10000-01-01T00:00:00Z"}
    early = {**ep, "episodeId": "early"}
    early["execution"] = {**ep["execution"], "startedAt": "-0001-03-01T00:00:00Z"}
    path.write_text(
        "\n".join([*good, json.dumps(late), json.dumps(early)]) + "\n", encoding="utf-8"
    )
    n = len(good)
    for fmt in ("json", "csv", "markdown"):
        res = run_cli("routes", str(path), "--format", fmt, "--as-of", AS_OF)
        assert res.exit_code == 1, res.stderr
        assert res.stderr.splitlines() == [
            f"{path}:{n + 1}: execution.endedAt is outside the years 1 to 9999 (UTC): "
            '"10000-01-01T00:00:00Z"',
            f"{path}:{n + 2}: execution.startedAt is outside the years 1 to 9999 (UTC): "
            '"-0001-03-01T00:00:00Z"',
        ]


def test_router_rows_are_valid_json_in_every_format(gen: Any, run_cli: Any, tmp_path: Path) -> None:
    # A duration or token count of 1e999 reads as infinity: the default jsonl format wrote
    # `"duration_ms": Infinity`, which no JSON parser takes, where json wrote null.
    g = _small(gen())
    path = g.write(tmp_path / "inf.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    ep = json.loads(lines[0])
    ep["execution"]["durationMs"] = "INF"
    ep["usage"]["input"] = "INF"
    lines[0] = json.dumps(ep).replace('"INF"', "1e999")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # Such a line is now rejected as out of range (its first bad field is named).
    jsonl = run_cli("routes", "export-router-rows", str(path), "--as-of", AS_OF)
    assert jsonl.exit_code == 1
    assert jsonl.stderr == f"{path}:1: usage.input is out of range (a finite number)\n"
    rows = [json.loads(line, parse_constant=pytest.fail) for line in jsonl.stdout.splitlines()]
    whole = run_cli("routes", "export-router-rows", str(path), "--format", "json", "--as-of", AS_OF)
    assert rows == json.loads(whole.stdout)
    assert len(rows) == len(lines) - 1 - 50  # the 50 unlabelled triage episodes are no rows
    assert ep["episodeId"] not in [r["episode_id"] for r in rows]


def _harness_shift(g: Any) -> Any:
    """Haiku and sonnet both lift from 20/40 on h1 (2024-01-10) to 38/40 on h2 (2024-01-20)."""
    for m in (HAIKU, SONNET):
        g.cell(m, 40, 20, harness="h1", day="2024-01-10")
        g.cell(m, 40, 38, harness="h2", day="2024-01-20")
    return g


def test_a_harness_change_is_dated_by_its_newest_evidence_and_drifts_when_stale(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    """A harness_change had no freshness: its `newest_evidence` was the time the new harness
    was first seen (the first h2 episode, 00:00:42), not its newest supporting episode, and a
    shift whose evidence was 13 months old was still a current `correlated` harness_change.
    §5 evidence_drift ("the newest supporting evidence is older than freshness_days") holds
    for it as for every finding: it keeps its grade and says it is out of date."""
    path = str(_harness_shift(gen()).write(tmp_path / "h.jsonl"))

    def findings(as_of: str) -> list[dict[str, Any]]:
        res = run_cli("routes", path, "--format", "json", "--as-of", as_of)
        assert res.exit_code == 0, res.stderr
        out: list[dict[str, Any]] = json.loads(res.stdout)["findings"]
        return out

    (fresh,) = findings("2024-02-01T00:00:00Z")
    assert (fresh["type"], fresh["grade"], fresh["drift_of"]) == (
        "harness_change",
        "correlated",
        None,
    )
    assert fresh["freshness"]["newest_evidence"] == "2024-01-20T00:02:41Z"
    assert fresh["freshness"]["stale"] is False

    (stale,) = findings(AS_OF)
    assert (stale["type"], stale["grade"], stale["drift_of"], stale["actionable"]) == (
        "evidence_drift",
        "correlated",
        "harness_change",
        False,
    )
    assert stale["freshness"]["newest_evidence"] == "2024-01-20T00:02:41Z"
    assert stale["freshness"]["stale"] is True
    assert stale["headline"] == (
        "No recommendation until re-measured: the evidence that the harness change h1 → h2 "
        "moved documentation success up for 2 models (claude-haiku-4, claude-sonnet-4) is out "
        "of date — newest evidence 2024-01-20 is 406 days before the as-of date."
    )
    md = run_cli("routes", path, "--as-of", AS_OF).stdout
    assert "- Evidence once supported: harness_change (not actionable" in md
    assert "Retry / repair / escalation" not in md
