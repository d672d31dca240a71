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


def _extracted(tmp_path: Path, *complete_data: dict[str, object]) -> effectiveness.ExtractResult:
    events: list[dict[str, object]] = [
        {"run_id": "r", "seq": 1, "type": "review.verdict", "agent": "guardian", "data": {}}
    ]
    for i, d in enumerate(complete_data):
        events.append(
            {"run_id": "r", "seq": 2 + i, "type": "agent.complete", "agent": "guardian", "data": d}
        )
    events.append({"run_id": "r", "seq": 2 + len(complete_data), "type": "run.complete"})
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return effectiveness.extract([str(p)], str(tmp_path / "h.jsonl"), write=False)


def test_one_token_count_too_large_is_warned_of_once(tmp_path: Path) -> None:
    # a count past the history's integer (1e20) was said twice: as a count that does not
    # fit, and as counts that "add up to more than can be stored", when there was no sum
    for big in ({"tokens": 10**20}, {"tokens_input": 10**19, "tokens_output": 1}):
        res = _extracted(tmp_path, big)
        (rec,) = res.records.to_pylist()
        assert rec["tokens"] is None, big
        assert [(w.line, w.reason) for w in res.warnings] == [
            (2, "tokens unknown: a token count is not a whole non-negative number that fits")
        ], big


def test_token_count_that_is_not_a_number_is_unknown_and_warned(tmp_path: Path) -> None:
    # "unknown is not zero": a tokens value given as a string (or a bool) is not a count;
    # it was taken as absent, so the missing-part rule made it 0
    for bad in ({"tokens": "1200"}, {"tokens_input": True, "tokens_output": 7}):
        res = _extracted(tmp_path, bad)
        (rec,) = res.records.to_pylist()
        assert rec["tokens"] is None, bad
        assert [(w.line, w.reason) for w in res.warnings] == [
            (2, "tokens unknown: a token count is not a whole non-negative number that fits")
        ], bad


def test_cost_that_is_not_a_number_is_ignored_and_warned(tmp_path: Path) -> None:
    # per event cost = data.cost_usd if present: a present cost_usd that is not a number
    # is ignored and warned about, as a negative one is; it does not fall back to the
    # estimate, and the other events' costs still count
    res = _extracted(
        tmp_path,
        {"cost_usd": "0.05", "estimated_cost_usd": 0.04},
        {"cost_usd": 0.01},
        {"estimated_cost_usd": {"usd": 1}},
    )
    (rec,) = res.records.to_pylist()
    assert (rec["cost_usd"], rec["cost_basis"]) == (0.01, "observed")
    assert [(w.line, w.reason) for w in res.warnings] == [
        (2, "cost ignored: not a finite non-negative number"),
        (4, "cost ignored: not a finite non-negative number"),
    ]
    # alone, it leaves the cost unknown (not 0), with its warning
    res = _extracted(tmp_path, {"cost_usd": "free"})
    (rec,) = res.records.to_pylist()
    assert (rec["cost_usd"], rec["cost_basis"], rec["cost_efficiency_norm"]) == (
        None,
        "unknown",
        None,
    )
    assert len(res.warnings) == 1


def test_costs_beyond_a_double_never_write_a_line_that_is_not_json(tmp_path: Path) -> None:
    # Each cost is a finite number ≥ 0, but their sum (2e308) or a useful finding per
    # 1e-320 dollars is beyond a double: the history got `Infinity`, which is not JSON,
    # so every later read rejected the record (spec §1, §4).
    verdict = {"findings": [{"severity": "bug", "fix_required": True}]}
    events = [
        {"run_id": "r", "seq": 1, "type": "review.verdict", "agent": "guardian", "data": verdict},
        {"run_id": "r", "seq": 2, "type": "review.verdict", "agent": "sage", "data": verdict},
        {
            "run_id": "r",
            "seq": 3,
            "type": "agent.complete",
            "agent": "guardian",
            "data": {"cost_usd": 1e308},
        },
        {
            "run_id": "r",
            "seq": 4,
            "type": "agent.complete",
            "agent": "guardian",
            "data": {"cost_usd": 1e308},
        },
        {
            "run_id": "r",
            "seq": 5,
            "type": "agent.complete",
            "agent": "sage",
            "data": {"cost_usd": 1e-320},
        },
        {"run_id": "r", "seq": 6, "type": "run.complete"},
    ]
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    hist = tmp_path / "h.jsonl"
    res = effectiveness.extract([str(p)], str(hist))
    lines = hist.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    recs = {r["archetype"]: r for r in (json.loads(x, parse_constant=_no_constant) for x in lines)}
    # the sum is too large to know: unknown, as a token count too large is
    g = recs["guardian"]
    assert (g["cost_usd"], g["cost_basis"], g["cost_efficiency"], g["cost_efficiency_norm"]) == (
        None,
        "unknown",
        None,
        None,
    )
    assert [(w.line, w.reason) for w in res.warnings] == [
        (4, "cost unknown: the costs add up to more than can be stored")
    ]
    # 1 / 1e-320 is beyond a double: the raw efficiency cannot be stored, its norm is 1
    s = recs["sage"]
    assert (s["cost_usd"], s["cost_basis"], s["cost_efficiency"], s["cost_efficiency_norm"]) == (
        1e-320,
        "observed",
        None,
        1.0,
    )


def _no_constant(name: str) -> object:
    raise AssertionError(f"{name} is not JSON")


def test_token_counts_adding_up_beyond_storage_are_unknown_and_warned(tmp_path: Path) -> None:
    # each count fits, their sum (1.8e19) does not fit the history's integer: tokens was
    # null without a word, unlike one count that is too large
    res = _extracted(tmp_path, {"tokens": 9 * 10**18}, {"tokens": 9 * 10**18})
    (rec,) = res.records.to_pylist()
    assert rec["tokens"] is None
    assert [(w.line, w.reason) for w in res.warnings] == [
        (3, "tokens unknown: the token counts add up to more than can be stored")
    ]


def test_cycle_or_met_of_the_wrong_kind_is_ignored_and_warned(tmp_path: Path) -> None:
    # A verdict's data.cycle that is not an integer ("2") and a boundary's data.met that is
    # not true or false ("yes") were ignored without a word: the verdict's scope came from
    # the boundaries, the boundary counted as not met. Both still do, now with a warning,
    # as a cost that is not a number. Absent or null is no warning: both are optional.
    bug = {"severity": "bug", "fix_required": True}
    events = [
        {
            "seq": 1,
            "type": "review.verdict",
            "agent": "guardian",
            "data": {"cycle": "2", "findings": [bug]},
        },
        {"seq": 2, "type": "fix.applied", "data": {"source": "guardian"}},
        {"seq": 3, "type": "cycle.boundary", "data": {"cycle": 1, "met": "yes"}},
        {"seq": 4, "type": "review.verdict", "agent": "sage", "data": {"cycle": 2.5}},
        {"seq": 5, "type": "review.verdict", "agent": "sage", "data": {"cycle": None}},
        {"seq": 6, "type": "cycle.boundary", "data": {"met": None}},
        {"seq": 7, "type": "cycle.boundary", "data": {"cycle": 2, "met": False}},
        {"seq": 8, "type": "review.verdict", "agent": "skeptic", "data": {"cycle": 3}},
        {"seq": 9, "type": "cycle.boundary", "data": {"met": 1}},
        {"seq": 10, "type": "run.complete"},
    ]
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps({"run_id": "r", **e}) + "\n" for e in events))
    res = effectiveness.extract([str(p)], str(tmp_path / "h.jsonl"), write=False)
    assert [(w.file, w.line, w.reason) for w in res.warnings] == [
        (str(p), 1, "cycle ignored: not an integer that fits"),
        (str(p), 3, "met ignored: not true or false"),
        (str(p), 4, "cycle ignored: not an integer that fits"),
        (str(p), 9, "met ignored: not true or false"),
    ]
    recs = {r["archetype"]: r for r in res.records.to_pylist()}
    assert recs["guardian"]["cycle_impact"] is False  # no boundary was met
    # kept in the manifest: a rerun that skips the unchanged file says them again
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([str(p)], hist)
    again = effectiveness.extract([str(p)], hist)
    assert (again.files_read, again.files_unchanged) == (0, 1)
    assert again.warnings == first.warnings == res.warnings


def test_findings_not_a_list_are_ignored_and_warned(tmp_path: Path) -> None:
    # §1: findings[] is a list (a missing or null one is empty, §3). An object, a string or
    # a number counted as no finding without a word, where a cycle or a cost of the wrong
    # kind is warned of: a reviewer's findings_total was 0 and nothing said why.
    bug = {"severity": "bug", "fix_required": True}
    events = [
        {"seq": 1, "type": "review.verdict", "agent": "guardian", "data": {"findings": bug}},
        {"seq": 2, "type": "review.verdict", "agent": "sage", "data": {"findings": "bug"}},
        {"seq": 3, "type": "review.verdict", "agent": "skeptic", "data": {"findings": 3}},
        {"seq": 4, "type": "review.verdict", "agent": "trickster", "data": {"findings": None}},
        {"seq": 5, "type": "review.verdict", "agent": "critic", "data": {"findings": []}},
        {"seq": 6, "type": "review.verdict", "agent": "lens", "data": {}},
        {"seq": 7, "type": "agent.complete", "agent": "guardian", "data": {"findings": 3}},
        {"seq": 8, "type": "run.complete"},
    ]
    p = tmp_path / "r.jsonl"
    p.write_text("".join(json.dumps({"run_id": "r", **e}) + "\n" for e in events))
    res = effectiveness.extract([str(p)], str(tmp_path / "h.jsonl"), write=False)
    reason = "findings ignored: not a list"
    assert [(w.line, w.reason) for w in res.warnings] == [(1, reason), (2, reason), (3, reason)]
    recs = {r["archetype"]: r for r in res.records.to_pylist()}
    assert recs["guardian"]["findings_total"] == 0 and len(recs) == 6
