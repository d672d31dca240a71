"""Per-run scores of small adversarial runs, each checked against a hand computation
from the spec (effectiveness.md §1-§3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runscore.engine.packs import effectiveness as eff

MODEL_IGNORED = "model ignored: not a string"


def test_model_of_the_wrong_kind_is_unknown_and_warned(tmp_path: Path, h: Any) -> None:
    """§3: `model` is the data.model of the highest-seq agent event "that names a
    non-empty model". A number, list or object names none: it is skipped (an earlier
    string model counts; none at all is null, unknown), and the line is warned about.
    Read as its JSON text, {"name": "claude-haiku"} became the model
    '{"name":"claude-haiku"}' (a cheap tier by substring) and 0 hid sage's opus."""
    lines = [
        h.ev(1, "review.verdict", agent="guardian", verdict="approved"),
        h.ev(2, "agent.complete", agent="guardian", model={"name": "claude-haiku"}, cost_usd=0.1),
        h.ev(3, "review.verdict", agent="sage", verdict="approved"),
        h.ev(4, "agent.start", agent="sage", model="opus"),
        h.ev(5, "agent.complete", agent="sage", model=0),
        h.ev(6, "review.verdict", agent="skeptic", verdict="approved"),
        h.ev(7, "agent.start", agent="skeptic", model=["sonnet"]),
        h.ev(8, "agent.complete", agent="skeptic", model=True),
        h.ev(9, "run.complete"),
    ]
    path = h.write_jsonl(tmp_path / "models.jsonl", lines)
    history = tmp_path / "history.jsonl"
    res = eff.extract([str(path)], str(history), scored_at=h.SCORED_AT)
    models = {(r["run_id"], r["archetype"]): r["model"] for r in res.records.to_pylist()}
    assert models == {("r1", "guardian"): None, ("r1", "sage"): "opus", ("r1", "skeptic"): None}
    assert [(w["line"], w["reason"]) for w in res.warnings] == [
        (2, MODEL_IGNORED),
        (5, MODEL_IGNORED),
        (7, MODEL_IGNORED),
        (8, MODEL_IGNORED),
    ]
    # unknown, not a made-up name, in the history too
    written = [json.loads(x) for x in history.read_text(encoding="utf-8").splitlines()]
    assert [(r["archetype"], r["model"]) for r in written] == [
        ("guardian", None),
        ("sage", "opus"),
        ("skeptic", None),
    ]


def test_fix_with_a_blank_source_is_reported_as_unattributed(tmp_path: Path, h: Any) -> None:
    """§3: a non-empty string source is authoritative, so "  " attributes the fix to
    lower(trim("  ")) = '' — to nobody, even with a verdict above it. It was dropped
    without a word; a fix attributed to nobody is reported as unattributed_fixes."""
    lines = [
        h.ev(
            1,
            "review.verdict",
            agent="guardian",
            verdict="needs_changes",
            findings=[{"severity": "bug", "fix_required": True}],
        ),
        h.ev(2, "fix.applied", parent=[1], source="  "),
        h.ev(3, "fix.applied", parent=[1], source=""),  # empty: no source, the DAG decides
        h.ev(4, "run.complete"),
    ]
    path = h.write_jsonl(tmp_path / "blank.jsonl", lines)
    res = eff.extract([str(path)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    (rec,) = res.records.to_pylist()
    assert (rec["archetype"], rec["fixes_applied"], rec["fix_rate"]) == ("guardian", 1, 1.0)
    assert [(w["line"], w["reason"]) for w in res.warnings] == [
        (2, "unattributed_fixes: fix.applied has a blank source (it names no archetype)"),
    ]
