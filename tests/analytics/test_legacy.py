"""The `archeflow-legacy` version (spec §8) and ArcheFlow's own 15-field history lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runscore.engine.packs import effectiveness_history as eh

LEGACY_FIELDS = [
    "ts",
    "run_id",
    "archetype",
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency",
    "accuracy",
    "cycle_impact",
    "composite_score",
    "tokens",
    "cost_usd",
    "model",
    "findings_total",
    "findings_useful",
    "fixes_applied",
]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_fixture_legacy_numbers(run_cli, fixtures: Path, tmp_path: Path) -> None:
    """tests/fixtures/effectiveness/archeflow-fixture/README.md, archeflow-legacy table."""
    events = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    r = run_cli("extract", "--sql-version", "archeflow-legacy", str(events))
    assert r.exit_code == 0, r.stderr
    hist = tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl"
    lines = _lines(hist)
    assert list(lines[0])[:15] == LEGACY_FIELDS
    got = {x["archetype"]: {k: x[k] for k in LEGACY_FIELDS[3:]} for x in lines}
    assert got == {
        "guardian": {
            "signal_to_noise": 0.5,
            "fix_rate": 0.5,
            "cost_efficiency": 0,
            "accuracy": 0.75,
            "cycle_impact": True,
            "composite_score": 0.49,
            "tokens": 0,
            "cost_usd": 0,
            "model": "unknown",
            "findings_total": 2,
            "findings_useful": 1,
            "fixes_applied": 1,
        },
        "sage": {
            "signal_to_noise": 0,
            "fix_rate": 0,
            "cost_efficiency": 0,
            "accuracy": 1,
            "cycle_impact": False,
            "composite_score": 0.15,
            "tokens": 0,
            "cost_usd": 0,
            "model": "unknown",
            "findings_total": 0,
            "findings_useful": 0,
            "fixes_applied": 0,
        },
    }
    assert {x["scoring_version"] for x in lines} == {"archeflow-legacy"}
    assert {x["run_ts"] for x in lines} == {"2026-04-03T10:06:00Z"}
    assert [x["cost_basis"] for x in lines] == ["unknown", "unknown"]

    # The v1 extract of the same run, then each version's report on its own lines.
    assert run_cli("extract", str(events)).exit_code == 0
    v1 = json.loads(run_cli("report", "--format", "json").stdout)  # default: newest vN
    assert [
        (
            x["archetype"],
            x["scoring_version"],
            x["avg_composite"],
            x["recommendation"],
            x["trend"],
            x["model"],
            x["suggestion"],
        )
        for x in v1
    ] == [
        (
            "guardian",
            "effectiveness/v1",
            0.5625,
            "optimize",
            "insufficient_data",
            "unknown",
            "none",
        ),
        (
            "sage",
            "effectiveness/v1",
            0.1875,
            "consider_removing",
            "insufficient_data",
            "unknown",
            "none",
        ),
    ]
    legacy = json.loads(
        run_cli("report", "--format", "json", "--sql-version", "archeflow-legacy").stdout
    )
    assert [
        (x["archetype"], x["scoring_version"], x["avg_composite"], x["recommendation"])
        for x in legacy
    ] == [
        ("guardian", "archeflow-legacy", 0.49, "optimize"),
        ("sage", "archeflow-legacy", 0.15, "consider_removing"),
    ]
    both = json.loads(run_cli("report", "--format", "json", "--sql-version", "all").stdout)
    assert [x["scoring_version"] for x in both] == ["archeflow-legacy"] * 2 + [
        "effectiveness/v1"
    ] * 2


def _event(seq: int, typ: str, data: dict | None = None, agent: str | None = None) -> str:
    return json.dumps(
        {
            "ts": f"2026-04-03T10:{seq:02d}:00Z",
            "run_id": "legacy-run",
            "seq": seq,
            "parent": [seq - 1] if seq > 1 else [],
            "type": typ,
            "phase": None,
            "agent": agent,
            "data": data or {},
        }
    )


CRAFTED = [
    _event(1, "run.start"),
    _event(
        2,
        "agent.complete",
        {
            "archetype": "Guardian",
            "model": "claude-haiku",
            "tokens_input": 100,
            "tokens_output": 50,
            "cost_usd": 0.01,
        },
    ),
    _event(
        3,
        "agent.complete",
        {"archetype": "Guardian", "model": "claude-haiku-2", "tokens": 500, "cost_usd": 0.04},
    ),
    _event(
        4,
        "review.verdict",
        {
            "archetype": "Guardian",
            "verdict": "needs_changes",
            "findings": [
                {"severity": "warning", "fix_required": True, "description": "A"},
                {"severity": "WARNING", "fix_required": True, "description": "B"},
                {"severity": "bug", "fix_required": "true", "description": "C"},
            ],
        },
    ),
    _event(5, "review.verdict", {"archetype": "sage", "verdict": "approved", "findings": []}),
    _event(6, "review.verdict", {"verdict": "APPROVED"}, agent="skeptic"),
    _event(7, "fix.applied", {"source": "Guardian", "finding": "A"}),
    _event(8, "fix.applied", {"source": "Guardian", "finding": "B"}),
    _event(9, "fix.applied", {"source": "Guardian", "finding": "C"}),
    _event(10, "fix.applied", {"source": "Guardian", "finding": "A again"}),
    _event(11, "cycle.boundary", {"cycle": 1, "met": True}),
    _event(12, "run.complete", {"status": "completed"}),
]


def test_legacy_scorer_rules(run_cli, tmp_path: Path) -> None:
    """Numbers worked out by hand from archeflow-score.sh's jq program (spec §8)."""
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(CRAFTED) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    hist = tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl"
    got = {x["archetype"]: x for x in _lines(hist)}
    # No case folding: "Guardian" stays itself; archetypes in jq's sorted order.
    assert list(got) == ["Guardian", "sage", "skeptic"]
    g = got["Guardian"]
    assert {k: g[k] for k in LEGACY_FIELDS[3:]} == {
        "signal_to_noise": 0.33,  # only "warning" + JSON true is useful: 1 of 3
        "fix_rate": 1.33,  # 4 fixes / 3 findings, no cap
        "cost_efficiency": 25.0,  # 1 useful / $0.04 (last agent.complete only)
        "accuracy": 0.83,  # 1 - min(1, 1 approving verdict / 3 verdicts) * 0.5
        "cycle_impact": True,
        # 0.30*(1/3) + 0.25*(4/3) + 0.20*0.25 + 0.15*(1 - 1/6) + 0.10 = 0.708333…
        "composite_score": 0.71,
        "tokens": 500,
        "cost_usd": 0.04,
        "model": "claude-haiku-2",
        "findings_total": 3,
        "findings_useful": 1,
        "fixes_applied": 4,
    }
    assert (g["cost_basis"], g["cost_efficiency_norm"], g["findings_contradicted"]) == (
        "observed",
        0.25,
        None,
    )
    for name in ("sage", "skeptic"):  # no findings, no agent.complete: 0 / 0 / "unknown"
        x = got[name]
        assert (
            x["composite_score"],
            x["accuracy"],
            x["tokens"],
            x["cost_usd"],
            x["model"],
            x["cost_basis"],
        ) == (0.15, 1.0, 0, 0.0, "unknown", "unknown")

    # effectiveness/v1 on the same run folds case, caps fix_rate, sums costs.
    assert run_cli("extract", str(events)).exit_code == 0
    v1 = {x["archetype"]: x for x in _lines(hist) if x["scoring_version"] == "effectiveness/v1"}
    assert list(v1) == ["guardian", "sage", "skeptic"]
    assert (
        v1["guardian"]["findings_useful"],
        v1["guardian"]["fix_rate"],
        v1["guardian"]["cost_usd"],
        v1["guardian"]["tokens"],
    ) == (3, 1.0, 0.05, 650)


def test_estimated_cost_wins_and_truthy_met(run_cli, tmp_path: Path) -> None:
    lines = [
        _event(1, "run.start"),
        _event(
            2,
            "agent.complete",
            {"model": "haiku", "cost_usd": 0.5, "estimated_cost_usd": 0.25},
            agent="guardian",
        ),
        _event(
            3,
            "review.verdict",
            {"findings": [{"severity": "critical", "fix_required": True}]},
            agent="guardian",
        ),
        _event(4, "fix.applied", {"source": "guardian"}),
        # jq `.data.met // false` is truthy for the string "false"
        _event(5, "cycle.boundary", {"met": "false"}),
        _event(6, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    (g,) = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    assert (g["cost_usd"], g["cost_basis"], g["cost_efficiency"], g["cycle_impact"]) == (
        0.25,
        "estimated",
        4.0,
        True,
    )
    # signal 1, fix 1, ce_norm min(1, 4/100) = 0.04, accuracy 1, impact 1:
    # 0.30 + 0.25 + 0.20*0.04 + 0.15 + 0.10 = 0.808
    assert g["composite_score"] == 0.81


def test_a_cost_too_large_for_a_double_is_written_as_jq_writes_it(run_cli, tmp_path: Path) -> None:
    # 1e400 is a JSON number a double cannot hold: DuckDB reads it as infinity, and the
    # history line said "cost_usd": Infinity, which is not JSON, so every reader skipped
    # the record extract had just written. jq 1.6 (ArcheFlow's scorer) computes with
    # the infinity (cost > 0, efficiency 1 / inf = 0) and prints it as the largest
    # double, which a history line can hold; negative alike (values from running
    # archeflow-score.sh with jq 1.6 on these lines).
    lines = [
        _event(1, "run.start"),
        _event(2, "agent.complete", {"cost_usd": 0.5}, agent="guardian").replace("0.5", "1e400"),
        _event(3, "agent.complete", {"cost_usd": 0.5}, agent="sage").replace("0.5", "-1e400"),
        _event(
            4,
            "review.verdict",
            {"findings": [{"severity": "bug", "fix_required": True}]},
            agent="guardian",
        ),
        _event(5, "review.verdict", {"verdict": "needs_changes"}, agent="sage"),
        _event(6, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    text = (tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl").read_text()

    def no_constant(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    g, s = (json.loads(x, parse_constant=no_constant) for x in text.splitlines())
    assert (g["archetype"], g["cost_usd"], g["cost_efficiency"]) == (
        "guardian",
        1.7976931348623157e308,
        0.0,
    )
    assert g["composite_score"] == 0.45  # 0.30 + 0 + 0 + 0.15*1 + 0 (as the script wrote)
    assert (s["archetype"], s["cost_usd"], s["cost_efficiency"]) == (
        "sage",
        -1.7976931348623157e308,
        0.0,
    )
    assert run_cli("history", "check", ".archeflow/memory/effectiveness.jsonl").exit_code == 0


def test_a_token_count_jq_takes_but_no_integer_holds_is_unknown(run_cli, tmp_path: Path) -> None:
    # jq's `.data.tokens // (tokens_input + tokens_output)` takes any tokens but null or
    # false: ArcheFlow's scorer wrote 1e+20 and "900" here. The version fell back to
    # input + output (7) for both, a count neither the log nor the scorer gives; a history
    # line's tokens is an integer, so such a count is unknown (null), not another number.
    lines = [
        _event(1, "run.start"),
        _event(
            2, "agent.complete", {"tokens": 7, "tokens_input": 5, "tokens_output": 2}, "guardian"
        ).replace('"tokens": 7', '"tokens": 1e20'),
        _event(
            3, "agent.complete", {"tokens": "900", "tokens_input": 5, "tokens_output": 2}, "sage"
        ),
        _event(
            4, "agent.complete", {"tokens": False, "tokens_input": 5, "tokens_output": 2}, "skeptic"
        ),
        _event(5, "review.verdict", {"verdict": "needs_changes"}, agent="guardian"),
        _event(6, "review.verdict", {"verdict": "needs_changes"}, agent="sage"),
        _event(7, "review.verdict", {"verdict": "needs_changes"}, agent="skeptic"),
        _event(8, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    got = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    # false is no count to jq either: input + output, as the script wrote
    assert [(g["archetype"], g["tokens"]) for g in got] == [
        ("guardian", None),
        ("sage", None),
        ("skeptic", 7),
    ]
    assert run_cli("history", "check", ".archeflow/memory/effectiveness.jsonl").exit_code == 0


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_a_cost_or_token_part_jq_takes_but_no_number_holds_is_unknown(
    run_cli, tmp_path: Path, careful: bool
) -> None:
    # Spec §8: estimated_cost_usd before cost_usd, missing -> 0. An estimate given as text
    # is not missing: jq's `//` takes it and the script stops (jq 1.6: `number (1) and
    # string ("0.5") cannot be divided`, and for a part of the token sum `string ("400")
    # and number (500) cannot be added`; exit 5, no line). The version took cost_usd
    # instead (0.3, "observed") and counted the part 0 (tokens 500): a cost and a count
    # neither the log nor the scorer gives. Unknown now, as a tokens of "900" is: the
    # cost 0 with cost_basis "unknown" (this version's unknown cost), tokens null.
    # false is absent to jq (sage): the fallbacks, as the script takes them.
    data = {"estimated_cost_usd": "0.5", "cost_usd": 0.3}
    parts = {"tokens_input": "400", "tokens_output": 500}
    lines = [
        _event(1, "run.start"),
        _event(2, "agent.complete", {**data, "tokens": 9}, agent="guardian"),
        _event(3, "agent.complete", {"cost_usd": 0.3, **parts}, agent="skeptic"),
        _event(
            4,
            "agent.complete",
            {**data, **parts, "estimated_cost_usd": False, "tokens_input": False},
            agent="sage",
        ),
        _event(5, "review.verdict", {"verdict": "needs_changes"}, agent="guardian"),
        _event(6, "review.verdict", {"verdict": "needs_changes"}, agent="sage"),
        _event(7, "review.verdict", {"verdict": "needs_changes"}, agent="skeptic"),
        _event(8, "run.complete"),
        # (the pre-scan sees NaN: the whole file is read the careful way, this line skipped)
        *(['{"run_id":"other","seq":1,"type":"x","data":{"v":NaN}}'] if careful else []),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    r = run_cli("extract", "--sql-version", "archeflow-legacy", str(events))
    assert r.exit_code == (1 if careful else 0), r.stderr
    got = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    assert [(g["archetype"], g["cost_usd"], g["cost_basis"], g["tokens"]) for g in got] == [
        ("guardian", 0, "unknown", 9),
        ("sage", 0.3, "observed", 500),
        ("skeptic", 0.3, "observed", None),
    ]
    assert run_cli("history", "check", ".archeflow/memory/effectiveness.jsonl").exit_code == 0


def test_token_parts_whose_sum_no_integer_holds_stop_no_extract(run_cli, tmp_path: Path) -> None:
    # tokens_input + tokens_output of 9e18 each overflowed the BIGINT sum: the extract of
    # every run stopped, `error: ...050_costs.sql: Out of Range Error: Overflow in
    # addition` (exit 2). The sum is unknown (null) now; the other run is scored as ever.
    big = {"tokens_input": 9 * 10**18, "tokens_output": 9 * 10**18}
    lines = [
        _event(1, "run.start"),
        _event(2, "agent.complete", big, agent="guardian"),
        _event(3, "review.verdict", {"verdict": "needs_changes"}, agent="guardian"),
        _event(4, "run.complete"),
    ]
    other = [x.replace('"legacy-run"', '"other-run"') for x in lines]
    other[1] = other[1].replace(str(9 * 10**18), "3")
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines + other) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    got = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    assert [(g["run_id"], g["tokens"]) for g in got] == [("legacy-run", None), ("other-run", 6)]


def test_findings_object_counts_its_values_like_jq(run_cli, tmp_path: Path) -> None:
    # jq `[.data.findings // [] | .[]]` iterates an object's values as it does an array's
    # elements, so ArcheFlow's scorer counts findings keyed by id; the version scored 0.
    lines = [
        _event(1, "run.start"),
        _event(
            2,
            "review.verdict",
            {
                "archetype": "guardian",
                "verdict": "needs_changes",
                "findings": {
                    "f1": {"severity": "bug", "fix_required": True},
                    "f2": {"severity": "info", "fix_required": False},
                },
            },
        ),
        _event(3, "review.verdict", {"archetype": "sage", "verdict": "approved", "findings": []}),
        _event(4, "fix.applied", {"source": "guardian"}),
        _event(5, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    g = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")[0]
    assert {k: g[k] for k in LEGACY_FIELDS[2:]} == {
        "archetype": "guardian",
        "signal_to_noise": 0.5,
        "fix_rate": 0.5,
        "cost_efficiency": 0.0,
        "accuracy": 0.75,  # 1 - min(1, 1 approving verdict / 2 verdicts) * 0.5
        "cycle_impact": False,
        # 0.30*0.5 + 0.25*0.5 + 0 + 0.15*0.75 + 0 = 0.3875
        "composite_score": 0.39,
        "tokens": 0,
        "cost_usd": 0.0,
        "model": "unknown",
        "findings_total": 2,
        "findings_useful": 1,
        "fixes_applied": 1,
    }


def test_last_event_without_data_is_still_the_last(run_cli, tmp_path: Path) -> None:
    # jq `$cycles | last` and `[$completions[] | select(...)] | last` take the last event
    # even when it has no data: met is then false and cost/tokens/model the defaults. The
    # version skipped such an event and read the one before it.
    def bare(seq: int, typ: str, agent: str | None = None) -> str:
        line: dict = {"run_id": "legacy-run", "seq": seq, "type": typ}
        if agent:
            line["agent"] = agent
        return json.dumps(line)

    lines = [
        _event(1, "run.start"),
        _event(
            2,
            "agent.complete",
            {"model": "claude-opus", "cost_usd": 0.5, "tokens": 900},
            agent="guardian",
        ),
        bare(3, "agent.complete", agent="guardian"),
        _event(
            4,
            "review.verdict",
            {"findings": [{"severity": "bug", "fix_required": True}]},
            agent="guardian",
        ),
        _event(5, "fix.applied", {"source": "guardian"}),
        _event(6, "cycle.boundary", {"met": True}),
        bare(7, "cycle.boundary"),
        _event(8, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    assert run_cli("extract", "--sql-version", "archeflow-legacy", str(events)).exit_code == 0
    (g,) = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    assert {k: g[k] for k in LEGACY_FIELDS[3:]} == {
        "signal_to_noise": 1.0,
        "fix_rate": 1.0,
        "cost_efficiency": 0.0,  # cost 0 (the last agent.complete has none)
        "accuracy": 1.0,
        "cycle_impact": False,  # the last boundary has no met
        # 0.30 + 0.25 + 0 + 0.15 + 0 = 0.70
        "composite_score": 0.7,
        "tokens": 0,
        "cost_usd": 0.0,
        "model": "unknown",
        "findings_total": 1,
        "findings_useful": 1,
        "fixes_applied": 1,
    }
    assert g["cost_basis"] == "unknown"


def test_duplicate_lines_equal_as_json_are_one_event(run_cli, tmp_path: Path) -> None:
    # §1 (and this version's 000: content identity follows effectiveness/v1): the same
    # event written twice with its members in another order, or its parents as "2,1",
    # is one event. The version hashed the text and called the run invalid (not scored).
    verdict = {
        "archetype": "guardian",
        "verdict": "needs_changes",
        "findings": [{"severity": "bug", "fix_required": True}],
    }
    again = json.loads(_event(3, "review.verdict", dict(reversed(verdict.items()))))
    again["parent"] = "2,1"
    first = json.loads(_event(3, "review.verdict", verdict))
    first["parent"] = [1, 2]
    lines = [
        _event(1, "run.start"),
        _event(2, "agent.start", {"archetype": "guardian"}),
        json.dumps(first),
        json.dumps(dict(reversed(again.items()))),
        _event(4, "run.complete"),
    ]
    events = tmp_path / "run.jsonl"
    events.write_text("\n".join(lines) + "\n")
    r = run_cli("extract", "--sql-version", "archeflow-legacy", str(events))
    assert r.exit_code == 0, r.stderr
    (g,) = _lines(tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl")
    assert (g["run_id"], g["archetype"], g["findings_total"], g["composite_score"]) == (
        "legacy-run",
        "guardian",
        1,  # one event, not two
        0.45,  # 0.30 * 1 + 0.15 * 1
    )
    # a real difference still makes the run invalid
    changed = json.loads(lines[3])
    changed["data"]["verdict"] = "approved"
    events.write_text("\n".join([*lines[:3], json.dumps(changed), lines[4]]) + "\n")
    r = run_cli(
        "extract", "--sql-version", "archeflow-legacy", "--history", "h2.jsonl", str(events)
    )
    assert r.exit_code == 1  # an invalid run is rejected input
    assert "conflicting duplicate events for seq 3" in r.stderr


def test_archeflow_written_lines_are_legacy(write_history, make_series) -> None:
    hist = write_history(make_series("guardian", [0.49, 0.51], version=None, model="haiku"))
    res = eh.report(hist)
    assert res.versions == ["archeflow-legacy"]  # the only version present
    (row,) = res.table.to_pylist()
    assert (row["scoring_version"], row["runs"], row["avg_composite"], row["model"]) == (
        "archeflow-legacy",
        2,
        pytest.approx(0.5),
        "haiku",
    )


def test_legacy_report_follows_section_5_like_v1(write_history, make_series) -> None:
    # §8 lists only extract rules as differing from v1; the §5/§6 aggregates (README:
    # comparisons at 6 decimals; substring tiers; model tie → most recently used) apply
    # to archeflow-legacy lines as well, not ArcheFlow's own `report` quirks.
    records = []
    for version in (None, "effectiveness/v1"):
        # 0.696 is not 0.70 (ArcheFlow's report would round it to 2 decimals first)
        records += make_series("rounding", [0.696], version=version, model="haiku")
        # delta 0.050000000000000044 rounds to 0.05: stable, not improving
        records += make_series("margin", [0.70] * 5 + [0.75] * 5, version=version)
        # tiers by case-insensitive substring, not ArcheFlow's exact names
        records += make_series("tiers", [0.9], version=version, model="claude-3-5-haiku")
    hist = write_history(records)
    rows = {
        (r["scoring_version"], r["archetype"]): r
        for r in eh.report(hist, version="all").table.to_pylist()
    }
    for version in ("archeflow-legacy", "effectiveness/v1"):
        assert rows[(version, "rounding")]["recommendation"] == "optimize"
        assert rows[(version, "rounding")]["suggestion"] == "none"
        assert rows[(version, "margin")]["trend"] == "stable"
        tiers = rows[(version, "tiers")]
        assert (tiers["model_tier"], tiers["suggestion"]) == ("cheap", "keep")


def test_default_version_is_newest_vn_present(write_history, make_series) -> None:
    legacy_only = write_history(make_series("sage", [0.5], version=None), "a.jsonl")
    assert eh.report(legacy_only).versions == ["archeflow-legacy"]
    mixed = write_history(
        make_series("sage", [0.5], version=None) + make_series("sage", [0.6]), "b.jsonl"
    )
    assert eh.report(mixed).versions == ["effectiveness/v1"]
    assert eh.report(mixed, version="archeflow-legacy").versions == ["archeflow-legacy"]
    assert eh.report(mixed, version="effectiveness/v1").versions == ["effectiveness/v1"]
    assert eh.report(mixed, version="all").versions == ["archeflow-legacy", "effectiveness/v1"]


def test_team_members_match_history_archetypes_in_any_case(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    # ArcheFlow's scorer (and archeflow-legacy after it, §8) keeps an archetype as written:
    # `Guardian`. A team's members are lower-cased (§6), so `guardian` in the team matched
    # no line: recommend said no_data and `summary --team` "no scored runs of this team's
    # members yet" for a guardian with two scored runs.
    hist = write_history(
        make_series("Guardian", [0.9, 0.8], version=None, model="haiku")
        # two spellings of one name: the member's own wins, whatever the runs
        + make_series("SAGE", [0.3] * 3, version=None)
        + make_series("sage", [0.5], version=None)
        + make_series(" Trickster ", [0.2], version=None)
    )
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [guardian, Sage, trickster, skeptic]\n")
    rows = eh.recommend(hist, team).table.to_pylist()
    assert [(r["archetype"], r["score"], r["runs"], r["action"]) for r in rows] == [
        ("guardian", pytest.approx(0.85), 2, "keep"),
        ("sage", 0.5, 1, "optimize"),
        ("trickster", 0.2, 1, "remove"),
        ("skeptic", None, 0, "no_data"),
    ]
    r = run_cli("summary", "--team", str(team), "--history", str(hist))
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "Archetype effectiveness (last 10 runs):\n"
        "  Guardian:    0.85 (keep)              — haiku, cost unknown\n"
        "  SAGE:        0.30 (consider_removing) — unknown, cost unknown\n"
        "  sage:        0.50 (optimize)          — unknown, cost unknown\n"
        "   Trickster : 0.20 (consider_removing) — unknown, cost unknown\n"
    )


def test_sql_says_which_version_its_one_version_views_hold(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    # archetype_runs, archetype_aggregates and report hold one scoring version's lines, as
    # `report` does, but `sql` said nothing of the others (nor of a --sql-version with no
    # lines): a `SELECT ... FROM report` read as the whole history's.
    hist = str(
        write_history(
            make_series("sage", [0.5], version=None) + make_series("sage", [0.6]), "h.jsonl"
        )
    )
    r = run_cli("sql", "SELECT archetype, runs FROM report", "--history", hist, "--format", "csv")
    assert (r.exit_code, r.stdout) == (0, "archetype,runs\nsage,1\n")
    assert r.stderr == (
        f"{hist} also holds archeflow-legacy lines, not in archetype_runs, "
        "archetype_aggregates and report (they hold effectiveness/v1's; history and "
        "history_current hold every version's): use --sql-version VERSION\n"
    )
    only = str(write_history(make_series("sage", [0.6]), "only.jsonl"))
    r = run_cli(
        "sql", "SELECT count(*) AS n FROM archetype_runs", "--history", only,
        "--sql-version", "archeflow-legacy", "--format", "csv",
    )  # fmt: skip
    assert (r.exit_code, r.stdout) == (0, "n\n0\n")
    assert r.stderr == (
        "no history lines of scoring version archeflow-legacy\n"
        f"{only} also holds effectiveness/v1 lines, not in archetype_runs, "
        "archetype_aggregates and report (they hold archeflow-legacy's; history and "
        "history_current hold every version's): use --sql-version VERSION\n"
    )
    # a query of the views that hold every version's lines says nothing of them
    r = run_cli("sql", "SELECT count(*) AS n FROM history", "--history", hist, "--format", "csv")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "n\n2\n", "")


def test_legacy_cost_average_of_unknown_costs_says_it_counts_them_as_zero(
    tmp_path: Path, run_cli, write_history, make_series, make_record
) -> None:
    # ArcheFlow writes cost_usd 0 for a missing cost (§8), and §5 averages every non-null
    # cost_usd: summary printed "$0.00/run avg" for an archetype whose cost nobody knew,
    # and report's avg_cost_usd 0 (value_per_dollar null), with nothing to say the 0 was
    # unknown. The output stays as the spec writes it; a note on stderr says so, for the
    # archetypes shown. A known cost of 0 (cost_basis observed) is no such run.
    def legacy(run: str, arch: str, cost: float, basis: str) -> dict:
        return make_record(
            run,
            arch,
            0.5,
            f"2026-01-01T0{run[-1]}:00:00Z",
            version="archeflow-legacy",
            cost=cost,
            cost_basis=basis,
        )

    hist = write_history(
        [
            legacy("r1", "guardian", 0.0, "unknown"),
            legacy("r2", "guardian", 0.0, "unknown"),
            legacy("r3", "guardian", 0.5, "observed"),
            legacy("r1", "maker", 0.0, "observed"),
            *make_series("sage", [0.3, 0.4], version=None, cost=0.0),  # ArcheFlow's lines
            *make_series("sage", [0.3], cost=None),  # v1: unknown is null, no note
        ]
    )
    note = (
        "archeflow-legacy: cost averages count an unknown cost as $0 (ArcheFlow writes "
        "cost_usd 0 for a missing cost; cost_basis unknown or not written): "
    )
    costs = f'{note}"guardian" 2 of 3 runs, "sage" 2 of 2 runs\n'
    others = f"{hist} also holds effectiveness/v1 lines, not used here: use --sql-version VERSION\n"
    args = ["--history", str(hist), "--sql-version", "archeflow-legacy"]
    r = run_cli("summary", *args)
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "Archetype effectiveness (last 10 runs):\n"
        "  guardian: 0.50 (optimize)          — unknown, $0.1667/run avg\n"
        "  maker:    0.50 (optimize)          — unknown, $0.00/run avg\n"
        "  sage:     0.35 (consider_removing) — unknown, $0.00/run avg\n",
        others + costs,
    )
    for fmt in ("markdown", "json", "csv"):
        r = run_cli("report", "--format", fmt, *args)
        assert (r.exit_code, r.stderr.splitlines(keepends=True)[-1]) == (0, costs), fmt
    r = run_cli("report", "--history", str(hist), "--sql-version", "all", "--format", "json")
    assert r.exit_code == 0
    assert r.stderr == costs
    # only the archetypes a summary shows; none of them, no note
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [sage]\n")
    r = run_cli("summary", "--team", str(team), *args)
    assert r.stderr == others + f'{note}"sage" 2 of 2 runs\n'
    team.write_text("name: t\ncheck: [maker]\n")
    r = run_cli("summary", "--team", str(team), *args)
    assert r.stderr == others
    # recommend prints no cost; the v1 lines' unknown cost is null, not 0
    team.write_text("name: t\ncheck: [guardian, sage]\n")
    for cmd in (["recommend", str(team), *args], ["summary", "--history", str(hist)]):
        r = run_cli(*cmd)
        assert r.exit_code == 0 and note not in r.stderr, cmd
