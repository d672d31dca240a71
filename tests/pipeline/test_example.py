"""The worked example (tests/fixtures/pipeline) agrees with expected.jsonl exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import pipeline as engine

DIMENSIONS = {
    "D1": "task_completion_score",
    "D2": "deviation_score",
    "D3": "test_score",
    "D4": "time_efficiency",
    "D5": "quality_score",
}


@pytest.fixture
def example(fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, h: Any) -> Any:
    for name in ("tasks.jsonl", "plans.jsonl"):
        shutil.copy(fixtures / "pipeline" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)  # diagnostics then read "tasks.jsonl:22"
    return engine.evaluate_pipelines(["tasks.jsonl"], ["plans.jsonl"], eval_date=h.EVAL_DATE)


def _expected(fixtures: Path) -> list[dict[str, Any]]:
    lines = (fixtures / "pipeline" / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_pipeline_matches_expected(example: Any, fixtures: Path, h: Any) -> None:
    expected = _expected(fixtures)
    assert example.pipelines.column("pipeline_id").to_pylist() == sorted(
        e["pipelineId"] for e in expected
    )
    for e in expected:
        row = h.row_of(example, e["pipelineId"])
        assert row["status"] == e["status"]
        if e["status"] == "not_terminal":
            assert row["non_terminal_task_ids"] == e["nonTerminalTaskIds"]
            assert row["composite_score"] is None and row["verdict"] is None
            assert e["pipelineId"] not in example.documents
            continue
        for code, col in DIMENSIONS.items():
            assert row[col] == pytest.approx(e[code], abs=1e-9), (e["pipelineId"], code)
        assert row["test_pass_rate_verified"] is e["testPassRateVerified"]
        assert row["composite_score"] == pytest.approx(e["compositeScore"], abs=1e-9)
        assert row["verdict"] == e["verdict"]
        assert row["recommendations"] == e["recommendations"]
        doc = example.documents[e["pipelineId"]]
        assert doc["verdict"] == e["verdict"]
        assert doc["scores"].keys() == e["scores"].keys()
        for k, v in e["scores"].items():
            assert doc["scores"][k] == pytest.approx(v, abs=1e-9), (e["pipelineId"], k)
        assert len(doc["recommendations"]) == len(e["recommendations"])


def test_line_without_task_id_is_reported_and_skipped(example: Any) -> None:
    assert [str(d) for d in example.errors] == ["tasks.jsonl:22: no task id (id or taskId)"]
    assert example.partial
    assert example.warnings == []
    # p-excellent is still scored from its five good lines.
    assert example.rows_for(example.pipelines, "p-excellent")[0]["task_count"] == 5


def test_documents_validate(example: Any, schema_validator: Any) -> None:
    assert sorted(example.documents) == [
        "p-blocked-then-completed",
        "p-composite-exactly-75",
        "p-composite-exactly-90",
        "p-excellent",
    ]
    for doc in example.documents.values():
        assert list(schema_validator.iter_errors(doc)) == []
        assert doc["evaluatedAt"] == "2026-03-07T00:00:00Z"
        assert doc["dimensionWeights"] == {
            "taskCompletionRate": 0.30,
            "deviationScore": 0.20,
            "testPassRate": 0.25,
            "timeEfficiency": 0.10,
            "qualityScore": 0.15,
        }


def test_dimension_table_weighted_sums_to_composite(example: Any) -> None:
    for pid, doc in example.documents.items():
        dims = example.rows_for(example.dimensions, pid)
        assert [d["code"] for d in dims] == ["D1", "D2", "D3", "D4", "D5"]
        assert sum(d["weighted"] for d in dims) == pytest.approx(doc["compositeScore"])
