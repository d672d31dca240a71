"""Spec routes.md §1, §6 "Operations and attempts": which episode lines are scored, and the
reason a line is not (file:line: reason on stderr and in the JSON; exit 1, the rest scored)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.errors import NothingReadable
from runscore.engine.packs import routes

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET = "claude-haiku-4", "claude-sonnet-4"


def _episode(eid: str, **sections: dict[str, Any]) -> dict[str, Any]:
    ep: dict[str, Any] = {
        "episodeId": eid,
        "source": {"kind": "historical"},
        "activity": {"id": "doc"},
        "task": {"fingerprint": f"fp-{eid}", "complexity": "low"},
        "execution": {
            "host": "cc",
            "inferenceProvider": "anthropic",
            "model": HAIKU,
            "startedAt": "2025-02-20T00:00:00Z",
            "durationMs": 1000,
        },
        "usage": {
            "input": 10,
            "output": 5,
            "cacheRead": 0,
            "cacheWrite": 0,
            "apiEquivalentCostUsd": 0.01,
            "costBasis": "api_equivalent",
        },
        "outcome": {"status": "succeeded", "signals": [{"kind": "gate", "value": "pass"}]},
    }
    for name, fields in sections.items():
        ep[name].update(fields)
    return ep


def _write(path: Path, eps: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(e) + "\n" for e in eps), encoding="utf-8")
    return str(path)


def _report(run_cli: Any, path: str) -> tuple[Any, dict[str, Any]]:
    res = run_cli("routes", "report", path, "--format", "json", "--as-of", AS_OF)
    return res, json.loads(res.stdout)


def test_a_good_line_repeating_a_rejected_lines_id_is_scored(run_cli: Any, tmp_path: Path) -> None:
    """The id check ran before every other check, so a good line whose id an earlier *rejected*
    line also carried was itself rejected as that line's duplicate: the episode was scored
    nowhere. Duplicates are now judged among the lines that pass every other check."""
    path = _write(
        tmp_path / "d.jsonl",
        [
            _episode("a", activity={"id": None}),
            _episode("a"),
            _episode("b"),
            _episode("a", outcome={"status": "failed"}),
            _episode("b", usage={"costBasis": "gold"}),
        ],
    )
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{path}:1: lacks activity.id",
        f'{path}:4: duplicate episodeId "a" (first at {path}:2)',
        f'{path}:5: unknown usage.costBasis "gold"',
    ]
    assert rep["inputs"]["episodes"] == 2
    rows = run_cli("routes", "export-router-rows", path, "--as-of", AS_OF)
    assert rows.exit_code == 1
    got = [(r["episode_id"], r["quality_label"]) for r in map(json.loads, rows.stdout.splitlines())]
    assert got == [("a", 1), ("b", 1)]


def test_identifiers_of_the_wrong_json_kind_say_so(run_cli: Any, tmp_path: Path) -> None:
    """A numeric pairId/runId was read as missing, so the line was rejected as lacking it."""
    path = _write(
        tmp_path / "k.jsonl",
        [
            _episode("p1", source={"kind": "paired", "pairId": 5}),
            _episode("p2", source={"kind": "prospective", "runId": 7}),
            _episode("p3", source={"kind": "historical", "runId": 8}),
            _episode("p4", source={"kind": "historical", "pairId": ["x"]}),
            _episode("p5", source={"kind": "prospective", "runId": "r"}, task={"fingerprint": 3}),
            _episode("ok", source={"kind": "paired", "pairId": "x", "runId": None}),
        ],
    )
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{path}:1: source.pairId is not a string",
        f"{path}:2: source.runId is not a string",
        f"{path}:3: source.runId is not a string",
        f"{path}:4: source.pairId is not a string",
        f"{path}:5: task.fingerprint is not a string",
    ]
    assert rep["inputs"]["episodes"] == 1


def test_negative_or_infinite_token_counts_and_durations_are_rejected(
    run_cli: Any, tmp_path: Path
) -> None:
    """Negative token counts and durations passed into the router rows."""
    eps = [
        _episode("t1", usage={"input": -1}),
        _episode("t2", usage={"output": -0.5}),
        _episode("t3", usage={"cacheRead": -3}),
        _episode("t4", usage={"cacheWrite": -4}),
        _episode("t5", execution={"durationMs": -1000}),
        _episode("t6", usage={"input": "many"}),
        _episode("t7", execution={"durationMs": True}),
        _episode("t8", usage={"output": 123.25}),
        _episode("ok", usage={"input": 0, "output": None, "cacheRead": 7}),
    ]
    path = tmp_path / "n.jsonl"
    _write(path, eps)
    # JSON has no infinity; a number too large for a double reads as one.
    path.write_text(path.read_text(encoding="utf-8").replace("123.25", "1e999"), encoding="utf-8")
    res, rep = _report(run_cli, str(path))
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{path}:1: usage.input is not a non-negative number",
        f"{path}:2: usage.output is not a non-negative number",
        f"{path}:3: usage.cacheRead is not a non-negative number",
        f"{path}:4: usage.cacheWrite is not a non-negative number",
        f"{path}:5: execution.durationMs is not a non-negative number",
        f"{path}:6: usage.input is not a non-negative number",
        f"{path}:7: execution.durationMs is not a non-negative number",
        f"{path}:8: usage.output is out of range (a finite number)",
    ]
    assert rep["inputs"]["episodes"] == 1
    rows = run_cli("routes", "export-router-rows", str(path), "--as-of", AS_OF)
    assert rows.exit_code == 1
    (row,) = map(json.loads, rows.stdout.splitlines())
    assert row["episode_id"] == "ok"
    f = row["outcome"]
    assert (f["tokens_input"], f["tokens_output"], f["tokens_cache_read"]) == (0, None, 7)
    assert (f["tokens_cache_write"], f["duration_ms"]) == (0, 1000)


def test_prospective_episodes_without_a_fingerprint_are_not_one_operation(
    run_cli: Any, tmp_path: Path
) -> None:
    """An operation is the episodes sharing runId *and* task fingerprint (§6). Two unrelated
    prospective tasks of one run without a fingerprint were grouped as one operation of two
    attempts (NULL grouped with NULL); such an episode cannot be placed in an operation, and
    is rejected as one without a runId is."""
    eps = [_episode(f"h{i}", execution={"model": SONNET}) for i in range(6)]
    for i, fp in enumerate(("t1", "t2", None, None)):
        eps.append(
            _episode(
                f"c{i}",
                source={"kind": "prospective", "runId": "run-1"},
                task={"fingerprint": fp},
                execution={"startedAt": f"2025-02-21T0{i}:00:00Z"},
            )
        )
    path = _write(tmp_path / "p.jsonl", eps)
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{path}:9: prospective episode lacks task.fingerprint",
        f"{path}:10: prospective episode lacks task.fingerprint",
    ]
    (c,) = rep["cascades"]
    assert (c["entry"]["model"], c["target"]["model"]) == (HAIKU, SONNET)
    assert (c["operations"], c["attempts"], c["accepted_operations"]) == (2, 2, 2)
    assert c["evidence_episodes"] == 2


def test_descriptive_fields_of_the_wrong_json_kind_are_rejected(
    run_cli: Any, tmp_path: Path
) -> None:
    """`"model": 5` or `"model": {"name": "x"}` was read as an unknown model (and the same for
    every other descriptive string: host, provider, harness, project, activity id, ...), so bad
    input was scored on a route nobody ran. Each such line is rejected with its field."""
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("execution", {"model": 5}, "execution.model"),
        ("execution", {"model": {"name": "x"}}, "execution.model"),
        ("execution", {"host": True}, "execution.host"),
        ("execution", {"inferenceProvider": ["anthropic"]}, "execution.inferenceProvider"),
        ("execution", {"providerProvenance": 1}, "execution.providerProvenance"),
        ("execution", {"reasoningEffort": 2}, "execution.reasoningEffort"),
        ("execution", {"harnessFingerprint": 42}, "execution.harnessFingerprint"),
        ("execution", {"startedAt": 1740000000}, "execution.startedAt"),
        ("execution", {"endedAt": {"t": 1}}, "execution.endedAt"),
        ("source", {"host": 1}, "source.host"),
        ("source", {"sessionKey": 12}, "source.sessionKey"),
        ("source", {"workerId": 3}, "source.workerId"),
        ("project", {"id": 7}, "project.id"),
        ("project", {"revision": 123456}, "project.revision"),
        ("activity", {"id": 5}, "activity.id"),
        ("activity", {"provenance": False}, "activity.provenance"),
        (
            "outcome",
            {"escalation": {"escalated": True, "toModel": 4}},
            "outcome.escalation.toModel",
        ),
    ]
    eps = []
    for i, (section, fields, _) in enumerate(cases):
        ep = _episode(f"w{i}")
        ep.setdefault(section, {}).update(fields)
        eps.append(ep)
    eps.append(_episode("act") | {"activity": "doc"})
    eps.append(_episode("conf", activity={"confidence": "high"}))
    eps.append(_episode("qp", usage={"quotaPressure": "high"}))
    # Null and absent stay unknown; a string is read as before.
    eps.append(_episode("ok1", execution={"reasoningEffort": None, "harnessFingerprint": None}))
    eps.append(_episode("ok2") | {"project": {"id": "p", "revision": "r1"}})
    path = _write(tmp_path / "w.jsonl", eps)
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    expected = [f"{path}:{i}: {name} is not a string" for i, (_, _, name) in enumerate(cases, 1)]
    n = len(cases)
    expected += [
        f"{path}:{n + 1}: activity is not a JSON object",
        f"{path}:{n + 2}: activity.confidence is not a number",
        f"{path}:{n + 3}: usage.quotaPressure is not a number",
    ]
    assert res.stderr.splitlines() == expected
    assert rep["inputs"]["episodes"] == 2
    assert [(r["line"], r["reason"]) for r in rep["inputs"]["rejected"]][:2] == [
        (1, "execution.model is not a string"),
        (2, "execution.model is not a string"),
    ]


def test_confidence_outside_0_to_1_and_a_negative_quota_pressure_are_rejected(
    run_cli: Any, tmp_path: Path
) -> None:
    """activity.confidence is a fraction (spec §1: 0.9); usage.quotaPressure has no scale in
    the spec (a fraction or a percentage: 7 is kept), but no scale has a negative or
    infinite pressure. Such values were accepted silently; the line is now rejected with
    its reason, as a negative token count is; 0, 1, null and absent are read as before."""
    eps = [
        _episode("c1", activity={"confidence": 1.5}),
        _episode("c2", activity={"confidence": -0.2}),
        _episode("q1", usage={"quotaPressure": -0.5}),
        _episode("q2", usage={"quotaPressure": -1}),
        _episode("ok1", activity={"confidence": 0}, usage={"quotaPressure": 1}),
        _episode("ok2", activity={"confidence": 1.0, "id": "doc"}, usage={"quotaPressure": None}),
        _episode("ok3", usage={"quotaPressure": 7}),
    ]
    path = tmp_path / "f.jsonl"
    lines = [json.dumps(e) for e in eps]
    lines.append(json.dumps(_episode("c3")).replace('"doc"}', '"doc", "confidence": 1e999}'))
    lines.append(
        json.dumps(_episode("q3")).replace('"costBasis"', '"quotaPressure": -1e999, "costBasis"')
    )
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    res, rep = _report(run_cli, str(path))
    assert res.exit_code == 1
    conf = "activity.confidence is out of range (a number from 0 to 1)"
    quota = "usage.quotaPressure is out of range (a finite number, at least 0)"
    assert res.stderr.splitlines() == [
        f"{path}:1: {conf}",
        f"{path}:2: {conf}",
        f"{path}:3: {quota}",
        f"{path}:4: {quota}",
        f"{path}:8: {conf}",
        f"{path}:9: {quota}",
    ]
    assert rep["inputs"]["episodes"] == 3
    rows = run_cli("routes", "export-router-rows", str(path), "--as-of", AS_OF)
    assert rows.exit_code == 1
    assert [r["episode_id"] for r in map(json.loads, rows.stdout.splitlines())] == [
        "ok1",
        "ok2",
        "ok3",
    ]


def test_router_rows_carry_quota_pressure_as_given_unknown_kept_null(
    run_cli: Any, tmp_path: Path
) -> None:
    """usage.quotaPressure (spec §1) was checked and then dropped: a router trained on the
    rows could not learn that a tight quota calls for another route. It is a feature now,
    as given (the spec gives it no scale), null when the episode leaves it unknown (absent
    or null), never 0; in every format."""
    path = _write(
        tmp_path / "q.jsonl",
        [
            _episode("q0", usage={"quotaPressure": 0}),
            _episode("q1", usage={"quotaPressure": 0.85}),
            _episode("q2", usage={"quotaPressure": None}),
            _episode("q3"),
            _episode("q4", usage={"quotaPressure": 7}),
        ],
    )
    res = run_cli("routes", "export-router-rows", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    got = {r["episode_id"]: r["features"] for r in map(json.loads, res.stdout.splitlines())}
    assert {k: f["quota_pressure"] for k, f in got.items()} == {
        "q0": 0.0,
        "q1": 0.85,
        "q2": None,
        "q3": None,
        "q4": 7.0,
    }
    as_json = run_cli("routes", "export-router-rows", path, "--format", "json", "--as-of", AS_OF)
    assert [r["features"]["quota_pressure"] for r in json.loads(as_json.stdout)] == [
        0.0,
        0.85,
        None,
        None,
        7.0,
    ]
    as_csv = run_cli("routes", "export-router-rows", path, "--format", "csv", "--as-of", AS_OF)
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [r["features.quota_pressure"] for r in rows] == ["0.0", "0.85", "", "", "7.0"]


def test_an_episode_that_ends_before_it_starts_is_rejected(run_cli: Any, tmp_path: Path) -> None:
    """endedAt before startedAt was accepted silently, and the earlier endedAt became the
    episode's evidence date (its freshness). Such a line is now rejected with both times;
    equal times, or either one absent, are read as before."""
    path = _write(
        tmp_path / "t.jsonl",
        [
            _episode("back", execution={"endedAt": "2025-02-19T23:59:59Z"}),
            _episode("back-offset", execution={"endedAt": "2025-02-20T00:30:00+01:00"}),
            _episode("same", execution={"endedAt": "2025-02-20T01:00:00+01:00"}),
            _episode("later", execution={"endedAt": "2025-02-20T00:00:01Z"}),
            _episode("no-start", execution={"startedAt": None, "endedAt": "2025-02-01T00:00:00Z"}),
        ],
    )
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f'{path}:1: execution.endedAt "2025-02-19T23:59:59Z" is before execution.startedAt '
        '"2025-02-20T00:00:00Z"',
        f'{path}:2: execution.endedAt "2025-02-20T00:30:00+01:00" is before '
        'execution.startedAt "2025-02-20T00:00:00Z"',
    ]
    assert rep["inputs"]["episodes"] == 3


def test_a_key_read_given_twice_rejects_the_episode(run_cli: Any, tmp_path: Path) -> None:
    """`{"outcome": {...pass...}, ..., "outcome": {...fail...}}`: DuckDB took the first value,
    Python's json and JavaScript the last, so runscore and the user's own tools labelled
    (or costed, or routed) different episodes, and nothing was said. A line that gives a key
    the pack reads twice, at any depth it reads, is now rejected with that key, as in
    `pipeline`; a key it does not read (a prompt) may repeat."""
    good = json.dumps(_episode("ok"))
    lines = [
        good,
        json.dumps(_episode("twice"))[:-1]
        + ', "outcome": {"status": "failed", "signals": [{"kind": "gate", "value": "fail"}]}}',
        json.dumps(_episode("inner")).replace(
            '"model": "claude-haiku-4"', '"model": "claude-haiku-4", "model": "claude-opus-4"'
        ),
        json.dumps(_episode("cost")).replace(
            '"costBasis": "api_equivalent"',
            '"costBasis": "api_equivalent", "apiEquivalentCostUsd": 9.0',
        ),
        json.dumps(_episode("esc", outcome={"escalation": {"escalated": False}})).replace(
            '"escalated": false', '"escalated": false, "escalated": true'
        ),
        json.dumps(_episode("id")).replace(
            '"episodeId": "id"', '"episodeId": "id", "episodeId": "x"'
        ),
        # keys the pack does not read, and objects it does not look into, may repeat
        json.dumps(_episode("free"))
        .replace('"episodeId": "free"', '"episodeId": "free", "prompt": "a", "prompt": "b"')
        .replace('"kind": "gate"', '"kind": "gate", "note": 1, "note": 2'),
    ]
    path = tmp_path / "k.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    res, rep = _report(run_cli, str(path))
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{path}:2: duplicate key outcome",
        f"{path}:3: duplicate key execution.model",
        f"{path}:4: duplicate key usage.apiEquivalentCostUsd",
        f"{path}:5: duplicate key outcome.escalation.escalated",
        f"{path}:6: duplicate key episodeId",
    ]
    assert rep["inputs"]["episodes"] == 2
    assert [r["line"] for r in rep["inputs"]["rejected"]] == [2, 3, 4, 5, 6]


def test_a_refused_value_is_quoted_with_the_characters_that_look_blank(
    run_cli: Any, tmp_path: Path
) -> None:
    """A reason printed the value it refused as given: `unknown task.complexity lo w` read
    as if "lo w" (a no-break space) were refused for its space, a zero-width space hid, and
    a value holding a line break read as the end of the value and another message
    (`... all good`). The value is quoted as every input value a message quotes (JSON, a
    blank-looking character written \\uXXXX), as the pipeline pack quotes it."""
    forged = "x\nt.jsonl:9: all good"
    path = _write(
        tmp_path / "t.jsonl",
        [
            _episode("ok"),
            _episode("k", source={"kind": forged}),
            _episode("c", task={"complexity": "lo\u00a0w"}),
            _episode("s", outcome={"status": "x\u2028y", "signals": []}),
            _episode("b", usage={"costBasis": "a\u200bb"}),
            _episode("t", execution={"startedAt": "2025\ufeff"}),
            _episode("dup\u200b"),
            _episode("dup\u200b"),
        ],
    )
    res, rep = _report(run_cli, path)
    assert res.exit_code == 1
    forged_quoted = forged.replace("\n", "\\n")
    assert res.stderr.splitlines() == [
        f'{path}:2: unknown source.kind "{forged_quoted}" (historical, paired or prospective)',
        f'{path}:3: unknown task.complexity "lo\\u00a0w" (low, medium or high)',
        f'{path}:4: unknown outcome.status "x\\u2028y"',
        f'{path}:5: unknown usage.costBasis "a\\u200bb"',
        f'{path}:6: execution.startedAt is not an ISO date-time: "2025\\ufeff"',
        f'{path}:8: duplicate episodeId "dup\\u200b" (first at {path}:7)',
    ]
    assert rep["inputs"]["episodes"] == 2


def test_iso_8601_times_duckdb_cannot_cast_are_read(run_cli: Any, tmp_path: Path) -> None:
    """startedAt/endedAt in an ISO-8601 form DuckDB's cast refuses (lowercase t/z as RFC 3339
    allows, a comma as the decimal sign, the basic format) rejected the whole episode ("is not
    an ISO date-time"), while --as-of took the same text and the pipeline pack reads it. They
    are read as the UTC times they name now; the newest evidence of each activity shows it."""
    forms = {
        "plain": ("2025-02-20T10:00:00Z", "2025-02-20T10:00:00Z"),
        "lower": ("2025-02-20t10:00:00z", "2025-02-20T10:00:00Z"),
        "comma": ("2025-02-20T10:00:00,5Z", "2025-02-20T10:00:00.500000Z"),
        "basic": ("20250220T100000Z", "2025-02-20T10:00:00Z"),
        "basic-offset": ("20250220T120000+0200", "2025-02-20T10:00:00Z"),
    }
    path = _write(
        tmp_path / "t.jsonl",
        [
            _episode(
                name,
                activity={"id": name},
                execution={"startedAt": "2025-02-20T09:00:00Z", "endedAt": text},
            )
            for name, (text, _) in forms.items()
        ],
    )
    res, rep = _report(run_cli, path)
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""
    assert {m["activity"]: m["newest_evidence"] for m in rep["matrix"]} == {
        name: want for name, (_, want) in forms.items()
    }


def test_router_rows_carry_the_model_an_episode_escalated_to(run_cli: Any, tmp_path: Path) -> None:
    """A router row's `outcome` said that a run escalated but not to which model
    (`outcome.escalation.toModel`), so a router could not learn where cheap attempts end up.
    It is `outcome.escalated_to_model` now, as the episode gives it (never inferred from
    `escalated`, §1), null when the episode does not say; in every format."""
    variants: list[Any] = [
        {"escalated": True, "toModel": SONNET},
        {"escalated": True, "toModel": None},
        {"escalated": False, "toModel": None},
        {"escalated": None},
        None,
    ]
    eps = [_episode(f"e{i}", outcome={"escalation": esc}) for i, esc in enumerate(variants)]
    path = _write(tmp_path / "r.jsonl", eps)
    res = run_cli("routes", "export-router-rows", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [(r["outcome"]["escalated"], r["outcome"]["escalated_to_model"]) for r in rows] == [
        (True, SONNET),
        (True, None),
        (False, None),
        (None, None),
        (None, None),
    ]
    as_json = run_cli("routes", "export-router-rows", path, "--format", "json", "--as-of", AS_OF)
    assert json.loads(as_json.stdout) == rows
    as_csv = run_cli("routes", "export-router-rows", path, "--format", "csv", "--as-of", AS_OF)
    assert as_csv.exit_code == 0, as_csv.stderr
    cells = [
        (r["outcome.escalated"], r["outcome.escalated_to_model"])
        for r in csv.DictReader(io.StringIO(as_csv.stdout))
    ]
    assert cells == [("true", SONNET), ("true", ""), ("false", ""), ("", ""), ("", "")]


def test_router_row_features_are_only_what_is_known_before_the_pick(
    run_cli: Any, tmp_path: Path
) -> None:
    """A router row's features held the run's outcomes (retries, repairs, escalated,
    duration, the tokens it spent): a router trained on them learns from what it cannot
    know when it picks (target leakage). Features are now what is known before the pick;
    the route picked is its own columns (host, provider, model) and what the run did is
    under `outcome`, beside the labels; unknown stays null; in every format."""
    known = _episode(
        "k",
        task={"complexity": "high"},
        execution={
            "providerProvenance": "observed",
            "reasoningEffort": "low",
            "harnessFingerprint": "h1",
            "durationMs": 1500,
        },
        usage={"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "quotaPressure": 0.5},
        outcome={"retries": 2, "repairs": 1, "escalation": {"escalated": True, "toModel": SONNET}},
    )
    unknown = _episode(
        "u",
        usage={"apiEquivalentCostUsd": None, "costBasis": "unknown", "cacheRead": None},
        outcome={"status": "failed", "signals": [{"kind": "gate", "value": "fail"}]},
    )
    del unknown["task"]["complexity"], unknown["execution"]["durationMs"]
    path = _write(tmp_path / "r.jsonl", [known, unknown])
    res = run_cli("routes", "export-router-rows", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert rows == [
        {
            "episode_id": "k",
            "activity": "doc",
            "task_fingerprint": "fp-k",
            "features": {
                "complexity": "high",
                "harness_fingerprint": "h1",
                "reasoning_effort": "low",
                "source_kind": "historical",
                "quota_pressure": 0.5,
            },
            "host": "cc",
            "inference_provider": "anthropic",
            "provider_provenance": "observed",
            "model": HAIKU,
            "outcome": {
                "tokens_input": 10.0,
                "tokens_output": 5.0,
                "tokens_cache_read": 2.0,
                "tokens_cache_write": 1.0,
                "duration_ms": 1500.0,
                "retries": 2,
                "repairs": 1,
                "escalated": True,
                "escalated_to_model": SONNET,
            },
            "quality_label": 1,
            "cost": 0.01,
            "cost_basis": "api_equivalent",
            "evidence_grade": "insufficient",
        },
        {
            "episode_id": "u",
            "activity": "doc",
            "task_fingerprint": "fp-u",
            "features": {
                "complexity": None,
                "harness_fingerprint": None,
                "reasoning_effort": None,
                "source_kind": "historical",
                "quota_pressure": None,
            },
            "host": "cc",
            "inference_provider": "anthropic",
            "provider_provenance": None,
            "model": HAIKU,
            "outcome": {
                "tokens_input": 10.0,
                "tokens_output": 5.0,
                "tokens_cache_read": None,
                "tokens_cache_write": 0.0,
                "duration_ms": None,
                "retries": None,
                "repairs": None,
                "escalated": None,
                "escalated_to_model": None,
            },
            "quality_label": 0,
            "cost": None,
            "cost_basis": "unknown",
            "evidence_grade": "insufficient",
        },
    ]
    as_json = run_cli("routes", "export-router-rows", path, "--format", "json", "--as-of", AS_OF)
    assert json.loads(as_json.stdout) == rows
    as_csv = run_cli("routes", "export-router-rows", path, "--format", "csv", "--as-of", AS_OF)
    assert as_csv.stdout == (
        "episode_id,activity,task_fingerprint,features.complexity,"
        "features.harness_fingerprint,features.reasoning_effort,features.source_kind,"
        "features.quota_pressure,host,inference_provider,provider_provenance,model,"
        "outcome.tokens_input,outcome.tokens_output,outcome.tokens_cache_read,"
        "outcome.tokens_cache_write,outcome.duration_ms,outcome.retries,outcome.repairs,"
        "outcome.escalated,outcome.escalated_to_model,quality_label,cost,cost_basis,"
        "evidence_grade\n"
        f"k,doc,fp-k,high,h1,low,historical,0.5,cc,anthropic,observed,{HAIKU},"
        f"10.0,5.0,2.0,1.0,1500.0,2,1,true,{SONNET},1,0.01,api_equivalent,insufficient\n"
        f"u,doc,fp-u,,,,historical,,cc,anthropic,,{HAIKU},"
        "10.0,5.0,,0.0,,,,,,0,,unknown,insufficient\n"
    )


def test_no_readable_episode_file_lists_each_file_s_problem(run_cli: Any, tmp_path: Path) -> None:
    """With no episode file readable, the error said the first file's problem alone
    (`no readable episode file: missing.jsonl: ...`), the others unsaid, and its `problems`
    was empty, where pipeline and extract list each file's (file, line, reason), for a
    caller that lists them apart. Each is listed now; a folder with no *.jsonl says so."""
    (tmp_path / "wide.jsonl").write_bytes(b"\xff\xfe" + '{"episodeId": "e"}\n'.encode("utf-16-le"))
    (tmp_path / "none").mkdir()
    wide = (
        "encoded as UTF-16 LE (byte-order mark): runscore reads UTF-8 JSONL (convert it"
        " first, e.g. iconv -f UTF-16 -t UTF-8)"
    )
    res = run_cli("routes", "missing.jsonl", "wide.jsonl", "--format", "json")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == (
        "error: no episode file could be read:\n"
        "  missing.jsonl: no such file or directory\n"
        f"  wide.jsonl: {wide}\n"
    )
    with pytest.raises(NothingReadable) as e:
        routes.analyze(["missing.jsonl", "wide.jsonl"])
    assert e.value.problems == [
        ("missing.jsonl", 0, "no such file or directory"),
        ("wide.jsonl", 0, wide),
    ]
    res = run_cli("routes", "none")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == "error: no episode file could be read:\n  none: no *.jsonl file found\n"
    with pytest.raises(NothingReadable) as e:
        routes.analyze(["none"])
    assert e.value.problems == [("none", 0, "no *.jsonl file found")]


def test_input_problems_are_listed_in_the_order_the_files_were_given(
    run_cli: Any, tmp_path: Path
) -> None:
    """A path not found was listed before every other problem, whatever its place among the
    paths (`bad.jsonl:1` given first came after `missing.jsonl` given second), though the
    README says problems come in input order. They now come in the order given: each path's
    in its place, a folder's files in sorted path order."""
    (tmp_path / "wide.jsonl").write_bytes(b"\xff\xfe" + '{"episodeId": "e"}\n'.encode("utf-16-le"))
    (tmp_path / "bad.jsonl").write_text('{"episodeId": 1}\n', encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.jsonl").write_text("not json\n", encoding="utf-8")
    (tmp_path / "dir" / "a.jsonl").write_text("[1]\n", encoding="utf-8")
    _write(tmp_path / "good.jsonl", [_episode("g1")])
    given = ["bad.jsonl", "missing.jsonl", "wide.jsonl", "dir", "gone/*.jsonl", "good.jsonl"]
    res = run_cli("routes", *given, "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 1, res.stderr
    listed = [(p["file"], p["line"]) for p in json.loads(res.stdout)["inputs"]["rejected"]]
    said = [ln.split(": ")[0] for ln in res.stderr.splitlines() if ln.startswith(("bad", "m", "w"))]
    assert listed == [
        ("bad.jsonl", 1),
        ("missing.jsonl", 0),
        ("wide.jsonl", 0),
        ("dir/a.jsonl", 1),
        ("dir/b.jsonl", 1),
        ("gone/*.jsonl", 0),
    ]
    assert said == ["bad.jsonl:1", "missing.jsonl", "wide.jsonl"]
    rep = routes.analyze(given, as_of=AS_OF)
    assert [(p.file, p.line) for p in rep.problems] == listed
    # With no file readable: the error's list too (wide.jsonl given first).
    with pytest.raises(NothingReadable) as e:
        routes.analyze(["wide.jsonl", "missing.jsonl"])
    assert [p[0] for p in e.value.problems] == ["wide.jsonl", "missing.jsonl"]
    res = run_cli("routes", "wide.jsonl", "missing.jsonl")
    assert res.exit_code == 3
    assert res.stderr.splitlines()[1:] == [
        "  wide.jsonl: encoded as UTF-16 LE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-16 -t UTF-8)",
        "  missing.jsonl: no such file or directory",
    ]
