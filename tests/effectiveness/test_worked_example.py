"""The spec's worked example: ArcheFlow's own scorer fixture, effectiveness/v1 records.

Expected values: tests/fixtures/effectiveness/archeflow-fixture/README.md (a copy of
../shared/examples/effectiveness/archeflow-fixture), every field of both records.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness as eff

EXPECTED: dict[str, dict[str, Any]] = {
    "guardian": {
        "run_id": "score-run",
        "archetype": "guardian",
        "signal_to_noise": 0.5,
        "fix_rate": 0.5,
        "cost_efficiency": None,
        "accuracy": 0.5,
        "cycle_impact": True,
        "composite_score": 0.5625,  # (0.30·0.5 + 0.25·0.5 + 0.15·0.5 + 0.10·1) / 0.80
        "tokens": None,
        "cost_usd": None,
        "model": None,
        "findings_total": 2,
        "findings_useful": 1,
        "fixes_applied": 1,
        "scoring_version": "effectiveness/v1",
        "run_ts": "2026-04-03T10:06:00Z",
        "cost_basis": "unknown",
        "cost_efficiency_norm": None,
        "findings_contradicted": 1,
    },
    "sage": {
        "run_id": "score-run",
        "archetype": "sage",
        "signal_to_noise": 0.0,
        "fix_rate": 0.0,
        "cost_efficiency": None,
        "accuracy": 1.0,
        "cycle_impact": False,
        "composite_score": 0.1875,  # (0.15·1) / 0.80
        "tokens": None,
        "cost_usd": None,
        "model": None,
        "findings_total": 0,
        "findings_useful": 0,
        "fixes_applied": 0,
        "scoring_version": "effectiveness/v1",
        "run_ts": "2026-04-03T10:06:00Z",
        "cost_basis": "unknown",
        "cost_efficiency_norm": None,
        "findings_contradicted": 0,
    },
}


@pytest.fixture
def fixture_events(fixtures: Path) -> Path:
    return fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"


def test_fixture_is_the_shared_example(fixture_events: Path) -> None:
    # ../shared beside the repository (as in the workplace and in CI)
    repo = Path(__file__).resolve().parents[2]
    shared = repo.parent / "shared" / "examples" / "effectiveness" / "archeflow-fixture"
    shared = shared / "events.jsonl"
    if not shared.is_file():
        pytest.skip("shared examples not mounted")
    assert fixture_events.read_bytes() == shared.read_bytes()


def test_worked_example_records(fixture_events: Path, h: Any) -> None:
    recs = h.records([fixture_events])
    assert [r["archetype"] for r in recs] == ["guardian", "sage"]  # creator/maker not scored
    for r in recs:
        want = EXPECTED[r["archetype"]]
        h.assert_close_record(r, want)
        assert list(r) == h.RECORD_FIELDS
        assert r["ts"] == h.SCORED_AT
        assert r["source"] == str(fixture_events)
        assert re.fullmatch(r"[0-9a-f]{64}", r["events_sha256"])
    assert recs[0]["events_sha256"] == recs[1]["events_sha256"]  # one hash per run


def test_worked_example_history_lines(fixture_events: Path, tmp_path: Path, h: Any) -> None:
    """Written through extract: whole JSON lines, fields in spec §4 order, nulls kept."""
    hist = tmp_path / "memory" / "effectiveness.jsonl"
    res = eff.extract([str(fixture_events)], str(hist), scored_at="2026-05-02T03:04:05Z")
    assert (res.runs_scored, res.records_written) == (1, 2)
    assert not res.rejected and res.incomplete == [] and res.warnings == []
    raw = hist.read_text(encoding="utf-8")
    assert raw.endswith("\n") and raw.count("\n") == 2
    lines = [json.loads(line) for line in raw.splitlines()]
    for line in lines:
        assert list(line) == h.RECORD_FIELDS
        assert line["ts"] == "2026-05-02T03:04:05Z"
        want = EXPECTED[line["archetype"]]
        h.assert_close_record(line, want)
    # "Unknown is not zero": the unknown cost is written as null, not 0.
    assert '"cost_usd":null' in raw and '"cost_efficiency_norm":null' in raw
