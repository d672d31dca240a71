"""The three real skills of tests/fixtures/plugin against PluginEval's own numbers.

expected.json holds what PluginEval's static analyser gives at quick depth. Every
number must agree to 1e-9; in fact they agree bit for bit, which is asserted too,
because a change in summation order shows up in the last bits first.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import plugin as engine

NAMES = ("async-python-patterns", "evaluation-methodology", "team-composition-patterns")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    src = Path(__file__).resolve().parents[1] / "fixtures" / "plugin"
    root = tmp_path_factory.mktemp("real") / "plugin"
    for name in NAMES:  # folder names matter: they are part of the name bonus
        shutil.copytree(src / name, root / name)
    result, con = engine.evaluate([str(root)])
    con.close()
    out = {s["skill"]: s for s in result.skills()}
    for name in NAMES:
        out[name]["expected"] = json.loads((src / name / "expected.json").read_text())
    return out


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 and a == b


@pytest.mark.parametrize("name", NAMES)
def test_static_layer(scored: dict[str, dict[str, Any]], name: str) -> None:
    got, exp = scored[name], scored[name]["expected"]["static"]
    assert close(got["static"]["score"], exp["score"])
    assert got["static"]["sub_scores"].keys() == exp["sub_scores"].keys()
    for k, v in exp["sub_scores"].items():
        assert close(got["static"]["sub_scores"][k], v), k
    assert got["line_count"] == exp["line_count"]


@pytest.mark.parametrize("name", NAMES)
def test_flags_with_targets(scored: dict[str, dict[str, Any]], name: str) -> None:
    got, exp = scored[name], scored[name]["expected"]
    assert [{"flag": a["flag"], "target": a["target"]} for a in got["anti_patterns"]] == exp[
        "static"
    ]["anti_patterns"]
    assert close(got["static"]["penalty"], exp["anti_pattern_penalty"])


@pytest.mark.parametrize("name", NAMES)
def test_quick_depth_dimensions_and_composite(scored: dict[str, dict[str, Any]], name: str) -> None:
    got, exp = scored[name], scored[name]["expected"]
    assert got["depth"] == exp["depth"] == "quick"
    assert got["confidence"] == "Estimated"
    assert list(got["dimensions"]) == list(exp["dimensions"])
    for dim, e in exp["dimensions"].items():
        g = got["dimensions"][dim]
        if e is None:
            assert g is None, dim
        else:
            assert close(g["score"], e["score"]), dim
            assert g["grade"] == e["grade"], dim
    assert close(got["composite"], exp["composite"])


def test_evidence_locates_each_flag(scored: dict[str, dict[str, Any]]) -> None:
    anti = scored["evaluation-methodology"]["anti_patterns"]
    assert [a["line"] for a in anti] == [241, 246, 35]
    assert anti[2]["evidence"] == "line 35: skills/agents resolves to no folder next to this skill"


def test_grades_and_badges(scored: dict[str, dict[str, Any]]) -> None:
    # 70.50, 72.57, 72.80: all C- (>= 70), Silver (>= 70, no Elo)
    for name in NAMES:
        assert scored[name]["grade"] == "C-"
        assert scored[name]["badge"] == "Silver"
        assert scored[name]["elo"] is None and scored[name]["mc"] is None
        assert scored[name]["judges"] is None
