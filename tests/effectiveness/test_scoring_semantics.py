"""Per-run scores of small adversarial runs, each checked against a hand computation
from the spec (effectiveness.md §1-§3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runscore.engine.packs import effectiveness as eff
from runscore.engine.packs import effectiveness_history as eh

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
    assert [(w.line, w.reason) for w in res.warnings] == [
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


def test_a_model_is_stored_without_its_outer_whitespace(tmp_path: Path, h: Any) -> None:
    """A model's outer whitespace is no part of its name, as an archetype's is not (§1):
    " claude-sonnet-4 " was stored as written, and history counted it apart from
    "claude-sonnet-4". A name of whitespace only names no model (§3: "non-empty"): the
    earlier agent.start's model counts, and with none at all the model is null (unknown),
    never ""."""
    lines = [
        h.ev(1, "review.verdict", agent="guardian", verdict="approved"),
        h.ev(2, "agent.complete", agent="guardian", model=" claude-sonnet-4\t"),
        h.ev(3, "review.verdict", agent="sage", verdict="approved"),
        h.ev(4, "agent.start", agent="sage", model="\nopus "),
        h.ev(5, "agent.complete", agent="sage", model=" \t "),
        h.ev(6, "review.verdict", agent="skeptic", verdict="approved"),
        h.ev(7, "agent.complete", agent="skeptic", model="   "),
        h.ev(8, "run.complete"),
    ]
    path = h.write_jsonl(tmp_path / "models.jsonl", lines)
    history = tmp_path / "history.jsonl"
    eff.extract([str(path)], str(history), scored_at=h.SCORED_AT)
    written = [json.loads(x) for x in history.read_text(encoding="utf-8").splitlines()]
    assert [(r["archetype"], r["model"]) for r in written] == [
        ("guardian", "claude-sonnet-4"),
        ("sage", "opus"),
        ("skeptic", None),
    ]


def test_a_model_named_unknown_names_none(tmp_path: Path, h: Any) -> None:
    """ArcheFlow writes "unknown" for a model it does not know, and the reports read it
    (any case) as none (README). extract took it for a name: an agent.complete's "unknown"
    hid the model its agent.start named (the history said unknown of a run on
    claude-haiku-4), and alone it was stored as the text "unknown", not null. It names none
    now: the highest-seq event that names a model counts, and with none the model is null."""
    lines = [
        h.ev(1, "agent.start", agent="guardian", model="claude-haiku-4"),
        h.ev(2, "agent.complete", agent="guardian", model="unknown", cost_usd=0.1),
        h.ev(3, "review.verdict", agent="guardian", verdict="approved"),
        h.ev(4, "agent.complete", agent="sage", model=" Unknown "),
        h.ev(5, "review.verdict", agent="sage", verdict="approved"),
        h.ev(6, "run.complete"),
    ]
    path = h.write_jsonl(tmp_path / "models.jsonl", lines)
    history = tmp_path / "history.jsonl"
    eff.extract([str(path)], str(history), scored_at=h.SCORED_AT)
    written = [json.loads(x) for x in history.read_text(encoding="utf-8").splitlines()]
    assert [(r["archetype"], r["model"]) for r in written] == [
        ("guardian", "claude-haiku-4"),
        ("sage", None),
    ]
    report = eh.report(str(history)).table.to_pylist()
    assert [(r["archetype"], r["model"], r["model_tier"]) for r in report] == [
        ("guardian", "claude-haiku-4", "cheap"),
        ("sage", "unknown", None),
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
    assert [(w.line, w.reason) for w in res.warnings] == [
        (2, "unattributed_fixes: fix.applied has a blank source (it names no archetype)"),
    ]


def test_archetype_agent_or_source_of_the_wrong_kind_names_nobody_and_is_warned(
    tmp_path: Path, h: Any
) -> None:
    """§1: the archetype is lower(trim(coalesce(data.archetype, agent))), and `agent` is a
    string or null; §3: a *string* source is authoritative. A number, list or object names
    no archetype: the next name in line is used (data.archetype → agent → 'unknown'; a
    source → the DAG) and the line is warned about, as a non-string model is. Read as its
    JSON text, 5 became the reviewer '5' and {"name": "skeptic"} a reviewer of that name,
    each scored in the history."""
    lines = [
        h.ev(1, "run.start", agent=9),  # an event whose archetype is not used: no warning
        h.ev(
            2,
            "review.verdict",
            agent="guardian",
            archetype=5,
            verdict="needs_changes",
            findings=[{"severity": "bug", "fix_required": True}],
        ),
        h.ev(3, "review.verdict", agent={"x": 1}, verdict="approved"),
        h.ev(4, "review.verdict", agent="Sage", archetype={"name": "skeptic"}, verdict="approved"),
        h.ev(5, "agent.complete", agent="guardian", archetype=["guardian"], cost_usd=0.5),
        h.ev(6, "fix.applied", parent=[2], source=7),
        h.ev(7, "run.complete"),
    ]
    path = h.write_jsonl(tmp_path / "names.jsonl", lines)
    res = eff.extract([str(path)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    got = {
        r["archetype"]: (r["findings_total"], r["fixes_applied"], r["cost_usd"])
        for r in res.records.to_pylist()
    }
    assert got == {"guardian": (1, 1, 0.5), "sage": (0, 0, None), "unknown": (0, 0, None)}
    assert [(w.line, w.reason) for w in res.warnings] == [
        (2, "archetype ignored: not a string"),
        (3, "agent ignored: not a string"),
        (4, "archetype ignored: not a string"),
        (5, "archetype ignored: not a string"),
        (6, "source ignored: not a string"),
    ]


def test_a_line_number_matches_by_its_value_not_its_spelling(tmp_path: Path, h: Any) -> None:
    """§3: a finding's match key is file followed by ":" and line, a fix's location key
    likewise. A line of 42.0 (what a Python producer writes for a float) is line 42: the
    key was the number's JSON text, "a.py:42.0", so the fix at a.py:42 did not confirm
    guardian's finding, nor did skeptic's b.py:7.0 report the same finding as guardian's
    b.py:7, and both were counted contradicted. And two lines of one (run_id, seq) equal
    but for 7 vs 7.0 are one event (§1), yet the run's scores depended on which came
    first."""
    lines = [
        h.ev(1, "run.start"),
        h.ev(
            2,
            "review.verdict",
            parent=[1],
            agent="guardian",
            verdict="needs_changes",
            findings=[
                {"severity": "warning", "fix_required": True, "file": "a.py", "line": 42.0},
                {"severity": "bug", "fix_required": True, "file": "b.py", "line": 7},
            ],
        ),
        h.ev(
            3,
            "review.verdict",
            parent=[1],
            agent="skeptic",
            verdict="needs_changes",
            findings=[{"severity": "info", "file": "B.py", "line": 7.0}],
        ),
        h.ev(4, "review.verdict", parent=[1], agent="sage", verdict="approved"),
        h.ev(5, "fix.applied", parent=[2], source="guardian", file="a.py", line=42),
        h.ev(6, "run.complete", parent=[5]),
    ]
    path = h.write_jsonl(tmp_path / "lines.jsonl", lines)
    res = eff.extract([str(path)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    got = {
        r["archetype"]: (r["findings_contradicted"], r["accuracy"]) for r in res.records.to_pylist()
    }
    assert got == {"guardian": (0, 1.0), "skeptic": (0, 1.0), "sage": (0, 1.0)}

    def verdict(line: float) -> dict[str, Any]:
        finding = {"severity": "warning", "file": "c.py", "line": line}
        return h.ev(2, "review.verdict", parent=[1], agent="guardian", findings=[finding])

    scores = []
    for first, second in ((3.0, 3), (3, 3.0)):
        run = [
            h.ev(1, "run.start"),
            verdict(first),
            verdict(second),
            h.ev(3, "review.verdict", parent=[1], agent="sage", verdict="approved"),
            h.ev(4, "fix.applied", parent=[2], file="c.py", line=3),
            h.ev(5, "run.complete", parent=[4]),
        ]
        p = h.write_jsonl(tmp_path / f"dup-{first}.jsonl", run)
        res = eff.extract([str(p)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
        assert not res.invalid
        scores += [(r["archetype"], r["findings_contradicted"]) for r in res.records.to_pylist()]
    assert scores == [("guardian", 0), ("sage", 0), ("guardian", 0), ("sage", 0)]


def test_a_cycle_of_2_0_is_cycle_2(tmp_path: Path, h: Any) -> None:
    """§3: a verdict's scope is data.cycle when present. 2.0 is the number 2: it was
    ignored as "not an integer" (warned, and the boundaries put guardian in cycle 1), so
    sage's approval of cycle 2 did not contradict guardian's finding. And as two lines of
    one (run_id, seq) equal but for 2 vs 2.0 are one event (§1), the scores depended on
    which line came first."""

    def guardian(cycle: float) -> dict[str, Any]:
        finding = {"severity": "warning", "description": "w"}
        return h.ev(
            2, "review.verdict", parent=[1], agent="guardian", cycle=cycle, findings=[finding]
        )

    scores = []
    for first, second in ((2.0, 2), (2, 2.0)):
        run = [
            h.ev(1, "run.start"),
            guardian(first),
            guardian(second),
            h.ev(3, "review.verdict", parent=[1], agent="sage", verdict="approved", cycle=2),
            h.ev(4, "run.complete", parent=[3]),
        ]
        p = h.write_jsonl(tmp_path / f"cycle-{first}.jsonl", run)
        res = eff.extract([str(p)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
        assert (res.invalid, res.warnings) == ([], [])
        scores += [(r["archetype"], r["findings_contradicted"]) for r in res.records.to_pylist()]
    assert scores == [("guardian", 1), ("sage", 0), ("guardian", 1), ("sage", 0)]


def test_a_seq_of_5_0_is_seq_5(tmp_path: Path, h: Any) -> None:
    """§1: seq is an integer ≥ 1, and JSON has one kind of number: 3.0 (a Python producer's
    float) is seq 3, as a cycle of 2.0 is cycle 2, and a parent [2.0] is seq 2. A seq of
    3.0 was replaced by the line's position (warned), so the line equal but for 3 vs 3.0
    took another seq, the fix lost its parent and guardian its fix; a parent 2.0 was
    ignored (warned), so the fix was attributed to nobody."""
    finding = {"severity": "bug", "fix_required": True, "description": "b"}
    ts = "2026-04-03T10:00:00Z"
    run = [
        h.ev(1, "run.start", ts=ts),
        h.ev(2.0, "review.verdict", parent=[1.0], agent="guardian", ts=ts, findings=[finding]),
        h.ev(3.0, "fix.applied", parent=[2.0], ts=ts),
        h.ev(3, "fix.applied", parent=[2], ts=ts),
        h.ev(4, "fix.applied", parent=2.0, ts=ts),
        h.ev(5.0, "run.complete", parent=[4], ts=ts),
    ]
    p = h.write_jsonl(tmp_path / "seq.jsonl", run)
    res = eff.extract([str(p)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    assert (res.invalid, res.warnings) == ([], [])
    (rec,) = res.records.to_pylist()
    assert (rec["archetype"], rec["fixes_applied"], rec["fix_rate"]) == ("guardian", 2, 1.0)
    # the legacy scorer reads the events as v1 does (§8 differs only after that)
    res = eff.extract([str(p)], None, write=False, version="archeflow-legacy")
    assert (res.invalid, res.warnings) == ([], [])
    # a fractional or out-of-range seq is still no seq: replaced by the position, warned
    run = [
        h.ev(1, "run.start"),
        h.ev(2.5, "x", ts=ts),
        h.ev(1e30, "y", ts=ts),
        h.ev(4, "run.complete"),
    ]
    p = h.write_jsonl(tmp_path / "bad.jsonl", run)
    res = eff.extract([str(p)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    assert [w.line for w in res.warnings] == [2, 3]


def test_reordering_lines_that_are_one_event_keeps_the_run_hash(tmp_path: Path, h: Any) -> None:
    """§4: events_sha256 is the hash of the run's normalised events. Two lines of one
    (run_id, seq) equal but for 1 vs 1.0 are one event (§1), but the run's hash was the
    first line's: swapping them changed it, and extract appended the same scores again."""

    def verdict(line: float) -> dict[str, Any]:
        finding = {"severity": "bug", "fix_required": True, "file": "a.py", "line": line}
        return h.ev(2, "review.verdict", parent=[1], agent="guardian", findings=[finding])

    hist = tmp_path / "h.jsonl"
    hashes = []
    for first, second in ((7, 7.0), (7.0, 7)):
        run = [h.ev(1, "run.start"), verdict(first), verdict(second), h.ev(3, "run.complete")]
        p = h.write_jsonl(tmp_path / "r.jsonl", run)
        res = eff.extract([str(p)], str(hist), scored_at=h.SCORED_AT)
        assert res.invalid == []
        hashes.append(res.records.to_pylist()[0]["events_sha256"])
    assert hashes[0] == hashes[1]
    assert len(hist.read_text(encoding="utf-8").splitlines()) == 1


def test_a_fractional_token_count_is_unknown_and_warned(tmp_path: Path, h: Any) -> None:
    """§3 tokens is a sum of token counts; 10.5 is no count. It was added and the total
    rounded when stored (10.5 + 1500.0 stored as 1511, without a word): now, as a negative
    count, it makes the archetype's tokens unknown (not 0), with a warning. 1500.0 is a
    count of 1500 by its value."""
    run = [
        h.ev(1, "review.verdict", agent="guardian"),
        h.ev(2, "agent.complete", agent="guardian", tokens=1500.0),
        h.ev(3, "review.verdict", agent="sage"),
        h.ev(4, "agent.complete", agent="sage", tokens=10.5),
        h.ev(5, "agent.complete", agent="sage", tokens=1500.0),
        h.ev(6, "review.verdict", agent="skeptic"),
        h.ev(7, "agent.complete", agent="skeptic", tokens_input=3, tokens_output=0.5),
        h.ev(8, "run.complete"),
    ]
    p = h.write_jsonl(tmp_path / "tok.jsonl", run)
    res = eff.extract([str(p)], "unused.jsonl", write=False, scored_at=h.SCORED_AT)
    tokens = {r["archetype"]: r["tokens"] for r in res.records.to_pylist()}
    assert tokens == {"guardian": 1500, "sage": None, "skeptic": None}
    reason = "tokens unknown: a token count is not a whole non-negative number that fits"
    assert [(w.line, w.reason) for w in res.warnings] == [(4, reason), (7, reason)]
