"""Token counts that cannot be counts make `tokens` unknown (null), never 0."""

from __future__ import annotations

import json
from pathlib import Path

from runscore.engine.packs import effectiveness


def _run(tmp_path: Path, complete_data: dict[str, object]) -> dict[str, object]:
    events = [
        {"run_id": "r", "seq": 1, "type": "review.verdict", "agent": "guardian", "data": {}},
        {
            "run_id": "r",
            "seq": 2,
            "type": "agent.complete",
            "agent": "guardian",
            "data": complete_data,
        },
        {"run_id": "r", "seq": 3, "type": "run.complete", "data": {}},
    ]
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (rec,) = effectiveness.score_runs([str(p)]).to_pylist()
    return rec


def test_huge_token_count_is_unknown(tmp_path: Path) -> None:
    assert _run(tmp_path, {"tokens": 10**30})["tokens"] is None


def test_negative_token_part_is_unknown(tmp_path: Path) -> None:
    assert _run(tmp_path, {"tokens_input": -5, "tokens_output": 7})["tokens"] is None


def test_parts_add_up_and_missing_part_counts_zero(tmp_path: Path) -> None:
    assert _run(tmp_path, {"tokens_input": 5, "tokens_output": 7})["tokens"] == 12
    assert _run(tmp_path, {"tokens_input": 5})["tokens"] == 5


def test_deep_nesting_is_judged_the_same_on_both_read_paths(tmp_path: Path) -> None:
    deep = "[" * 3000 + "]" * 3000
    line = '{"run_id": "r", "seq": 1, "type": "note", "data": {"x": ' + deep + "}}"
    good = [
        {"run_id": "r", "seq": 2, "type": "review.verdict", "agent": "sage", "data": {}},
        {"run_id": "r", "seq": 3, "type": "run.complete", "data": {}},
    ]
    clean = tmp_path / "clean.jsonl"
    clean.write_text(line + "\n" + "".join(json.dumps(e) + "\n" for e in good))
    dirty = tmp_path / "dirty.jsonl"  # a blank line sends the file down the careful path
    dirty.write_text(line + "\n\n" + "".join(json.dumps(e) + "\n" for e in good))
    a = effectiveness.extract([str(clean)], str(tmp_path / "h1.jsonl"), write=False)
    b = effectiveness.extract([str(dirty)], str(tmp_path / "h2.jsonl"), write=False)
    assert a.skipped_lines == b.skipped_lines
    assert a.records.drop_columns(["ts", "source"]).equals(b.records.drop_columns(["ts", "source"]))
