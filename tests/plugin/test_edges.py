"""Grade and badge at their exact edges, end to end (spec plugin-eval.md §5, README).

The real skill async-python-patterns with one judge scoring 1.0 on three dimensions has
a composite that moves with the judge's scope_calibration from 77.3 to 90.2; the scope
values below were found by bisection, each the double that puts the composite exactly on
a cut-off, or 1e-9 / 1e-6 either side of it. A fourth win, against an opponent rated as
found likewise, puts the Elo exactly on Platinum's 1600 or beside it. Comparisons are
made at 6 decimals (spec README): 1e-9 under a cut-off reaches it, 1e-6 under does not.
These pin that the composite, its grade and its badge are judged as one number through
the whole pipeline, not only in the grade macro (tests/plugin/test_grades.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from runscore.engine.packs import plugin as engine

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "plugin" / "async-python-patterns"
SKILL = "async-python-patterns"


def _inputs(base: Path, scope: float, last_opponent: float | None) -> dict[str, str]:
    shutil.copytree(REAL, base / "skills" / SKILL, dirs_exist_ok=True)
    (base / "skills" / SKILL / "expected.json").unlink(missing_ok=True)
    judge = base / "judge.jsonl"
    scores = {
        "triggering_accuracy": 1.0,
        "orchestration_fitness": 1.0,
        "output_quality": 1.0,
        "scope_calibration": scope,
    }
    judge.write_text(json.dumps({"skill": SKILL, "judge": "j", "scores": scores}) + "\n")
    paths = {"judge": str(judge)}
    if last_opponent is not None:
        rows = [(2000.0, "win")] * 3 + [(last_opponent, "win")]
        matchups = base / "matchups.jsonl"
        matchups.write_text(
            "".join(
                json.dumps({"skill": SKILL, "opponent": "o", "opponent_elo": rb, "result": r})
                + "\n"
                for rb, r in rows
            )
        )
        paths["matchups"] = str(matchups)
    return paths


def _score(base: Path, scope: float, last_opponent: float | None = None) -> dict[str, Any]:
    paths = _inputs(base, scope, last_opponent)
    result, con = engine.evaluate([str(base / "skills")], **paths)
    con.close()
    (skill,) = result.skills()
    return skill


@pytest.mark.parametrize(
    ("scope", "composite", "grade", "badge"),
    [
        (0.9865243544600938, 90.0, "A-", "Platinum"),
        (0.986524354382593, 89.999999999, "A-", "Platinum"),
        (0.9865243545375938, 90.000000001, "A-", "Platinum"),
        (0.9865242769600935, 89.999999, "B+", "Gold"),
        (0.211524354460093, 80.0, "B-", "Gold"),
        (0.21152435438259298, 79.999999999, "B-", "Gold"),
        (0.21152435453759386, 80.000000001, "B-", "Gold"),
        (0.21152427696009346, 79.999999, "C+", "Silver"),
    ],
)
def test_a_composite_on_a_cut_off_gets_its_grade_and_badge(
    tmp_path: Path, scope: float, composite: float, grade: str, badge: str
) -> None:
    skill = _score(tmp_path, scope)
    assert skill["composite"] == composite
    assert (skill["grade"], skill["badge"], skill["elo"]) == (grade, badge, None)


@pytest.mark.parametrize(
    ("opponent", "rating", "badge"),
    [
        (1454.727228916878, 1600.0, "Platinum"),
        (1454.7272288917059, 1599.999999999, "Platinum"),
        (1454.72722894205, 1600.000000001, "Platinum"),
        (1454.7272037444345, 1599.999999, "Gold"),
    ],
)
def test_an_elo_on_the_platinum_minimum(
    tmp_path: Path, opponent: float, rating: float, badge: str
) -> None:
    # composite exactly 90: Platinum's composite minimum holds, its Elo minimum decides
    skill = _score(tmp_path, 0.9865243544600938, opponent)
    assert (skill["composite"], skill["elo"]["rating"]) == (90.0, rating)
    assert (skill["grade"], skill["badge"]) == ("A-", badge)


def test_the_cli_json_and_markdown_say_the_same_at_the_edge(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    paths = _inputs(tmp_path, 0.9865242769600935, None)  # 89.999999: B+, Gold
    args = ("plugin", "score", str(tmp_path / "skills"), "--judge", paths["judge"])
    r = run_cli(*args, "--format", "json", "--no-history")
    assert r.exit_code == 0, r.stderr
    (skill,) = json.loads(r.stdout)
    assert (skill["composite"], skill["grade"], skill["badge"]) == (89.999999, "B+", "Gold")
    r = run_cli(*args, "--no-history")
    assert r.exit_code == 0, r.stderr
    assert f"## 1. {SKILL}: 89.999999 / 100, grade B+" in r.stdout
    assert f"| 1 | {SKILL} | {SKILL} | 89.999999 | B+ | Gold |" in r.stdout
