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
