"""A judge's score key that no judged dimension takes is ignored, and said so.

Spec plugin-eval §5: "Judge scores feed their four dimensions". A key for another
dimension (its table gives robustness a judge blend weight, so a judge may well score it),
a typo or a summary key ("overall") was dropped without a word: the dimension a user meant
to feed stayed as the other layers made it. Now a warning (the line is used; exit 0), once
per file and key.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

DESC = "Use when checking what the plugin pack says of judge score keys, for testing."
SKILL = {"text": f"---\nname: a\ndescription: {DESC}\n---\n## Usage\nIt returns text.\n"}
ONLY = (
    "judges score only triggering_accuracy, orchestration_fitness, output_quality and "
    "scope_calibration"
)


def test_keys_no_judged_dimension_takes_are_warned_of_once_per_file_and_key(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    judge: list[Any] = [
        {"skill": "a", "judge": "j1", "scores": {"triggering_accuracy": 0.8, "robustness": 0.9}},
        {"skill": "a", "judge": "j2", "scores": {"triggering_accuracy": 0.6, "overall": 0.5}},
        {"skill": "a", "judge": "j3", "scores": {"overall": 0.4, "scope calibration": 0.5}},
        # a key given twice in one line is one line with it
        '{"skill": "a", "judge": "j4", "scores": {"overall": 0.1, "overall": 0.2}}',
    ]
    by_skill, result = kit.score(tmp_path, {"a": SKILL}, judge=judge)
    path = str(tmp_path / "judge.jsonl")
    assert [(w.file, w.line, w.reason) for w in result.warnings] == [
        (path, 1, f"scores.robustness ignored: {ONLY}"),
        (path, 2, f"scores.overall ignored (on 3 lines of this file, the first here): {ONLY}"),
        (path, 3, f'scores."scope calibration" ignored: {ONLY}'),
    ]
    assert result.issues == []  # used lines: not rejected input
    assert by_skill["a"]["judges"]["count"] == 4
    # the ignored keys feed nothing: the same scores as without them
    plain = [
        {**line, "scores": {k: v for k, v in line["scores"].items() if k == "triggering_accuracy"}}
        for line in judge
        if isinstance(line, dict)
    ] + [{"skill": "a", "judge": "j4", "scores": {}}]
    without, _ = kit.score(tmp_path / "plain", {"a": SKILL}, judge=plain)
    for key in ("dimensions", "composite", "grade", "depth"):
        assert by_skill["a"][key] == without["a"][key], key
    assert by_skill["a"]["dimensions"]["robustness"] is None  # unmeasured: no layer has it


def test_judged_keys_alone_warn_of_nothing(tmp_path: Any, kit: SimpleNamespace) -> None:
    judge = [
        {
            "skill": "a",
            "judge": "j",
            "scores": {
                "triggering_accuracy": 0.8,
                "orchestration_fitness": 0.7,
                "output_quality": 0.75,
                "scope_calibration": 0.6,
            },
        }
    ]
    _, result = kit.score(tmp_path, {"a": SKILL}, judge=judge)
    assert result.warnings == [] and result.issues == []


def test_a_key_given_twice_rejects_the_line(tmp_path: Any, kit: SimpleNamespace) -> None:
    """`"output_quality": 0.1, ..., "output_quality": 0.9`: DuckDB took the first value,
    Python's json and JavaScript the last, so the tool that wrote the judge, Monte Carlo or
    matchup results and runscore read different numbers. A line that gives a key runscore
    reads twice (at the top, or a judged dimension in `scores`) is now rejected with that
    key, as a line that is not an object is; a key it ignores may repeat (above)."""
    judge = [
        {"skill": "a", "judge": "j1", "scores": {"output_quality": 0.5}},
        '{"skill": "a", "judge": "j2", "scores": {"output_quality": 0.1, "output_quality": 0.9}}',
        '{"skill": "a", "judge": "j3", "judge": "j4", "scores": {"output_quality": 0.9}}',
        # an escaped key is the same key
        '{"skill": "a", "judge": "j5", "scores": {"output_quality": 0.9, '
        '"output\\u005fquality": 0.9}}',
    ]
    mc = [
        {"skill": "a", "activated": True, "quality_score": 0.5, "tokens": 100, "errored": False},
        '{"skill": "a", "activated": false, "quality_score": 0.5, "activated": true}',
        '{"skill": "a", "activated": true, "errored": true, "errored": false, "tokens": 1, '
        '"tokens": 2}',
    ]
    matchups = [
        '{"skill": "a", "opponent": "b", "opponent_elo": 1500, "result": "loss", "result": "win"}',
        {"skill": "a", "opponent": "b", "opponent_elo": 1500, "result": "draw"},
    ]
    by_skill, result = kit.score(tmp_path, {"a": SKILL}, judge=judge, mc=mc, matchups=matchups)
    assert [(i.file.rsplit("/", 1)[-1], i.line, i.reason) for i in result.issues] == [
        ("judge.jsonl", 2, "duplicate key scores.output_quality"),
        ("judge.jsonl", 3, "duplicate key judge"),
        ("judge.jsonl", 4, "duplicate key scores.output_quality"),
        ("matchups.jsonl", 1, "duplicate key result"),
        ("mc.jsonl", 2, "duplicate key activated"),
        ("mc.jsonl", 3, "duplicate keys errored, tokens"),
    ]
    assert result.warnings == []
    a = by_skill["a"]
    assert a["judges"]["count"] == 1
    assert (a["mc"]["n"], a["mc"]["median_tokens"]) == (1, 100)
    assert a["elo"]["matchups"] == 1
