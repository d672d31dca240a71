"""Monte Carlo rates in the plugin report never read as "all" or "none" when they are not.

2499 activated runs of 2500 is a rate of 0.9996: with the report's three decimals it read
"rate 1.000" — every run — beside the counts that say otherwise; a failure rate of 0.9996
in the robustness tip read "100.0%". The rule is the one of every number beside a bound
(``runscore.cli.output.fmt_vs``): a rate's bounds are its ends, 0 and 1.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from runscore.cli.output import fmt_vs
from runscore.cli.plugin import render_report

DESC = "Use when checking how the report writes rates near their ends, for testing."
SKILL = {"text": f"---\nname: rates\ndescription: {DESC}\n---\n## Usage\nIt returns text.\n"}


def _run(activated: bool, errored: bool = False) -> dict[str, Any]:
    # quality 1: output quality is no tip's subject, so robustness is among the three
    return {
        "skill": "rates",
        "activated": activated,
        "quality_score": 1.0,
        "tokens": 100,
        "errored": errored,
    }


def _mc_line(tmp_path: Any, kit: SimpleNamespace, runs: list[dict[str, Any]]) -> str:
    by_skill, result = kit.score(tmp_path, {"rates": SKILL}, mc=runs)
    text = render_report(result)
    lines = [ln for ln in text.splitlines() if ln.startswith(("- Runs:", "- Failures:"))]
    assert len(lines) == 2, text
    return "\n".join(lines)


def test_a_rate_just_under_one_does_not_read_as_one(tmp_path: Any, kit: SimpleNamespace) -> None:
    runs = [_run(True) for _ in range(2499)] + [_run(False)]
    text = _mc_line(tmp_path, kit, runs)
    # 2499/2500 = 0.9996; the Wilson interval's upper end is under 1 as well (0.99993…)
    assert text.startswith("- Runs: 2500; activated 2499: rate 0.9996 (Wilson 95% 0.998–0.9999)")
    assert "1.000" not in text


def test_a_rate_just_over_zero_and_one_that_is_one(tmp_path: Any, kit: SimpleNamespace) -> None:
    runs = [_run(True, errored=i == 0) for i in range(2500)]
    text = _mc_line(tmp_path, kit, runs)
    # every run activated: 1 is 1 (the Wilson upper end of all-successes is exactly 1)
    assert "activated 2500: rate 1.000 (Wilson 95% 0.998–1.000)" in text
    # 1 failure in 2500 = 0.0004: three decimals read it as 0.000 without the rule
    failures = text.splitlines()[1]
    assert failures.startswith("- Failures: 1: rate 0.0004 (Clopper–Pearson 95% ")
    assert re.search(r"rate 0\.000[ ,)]", failures) is None


@pytest.mark.parametrize(("errored", "shown"), [(2499, "99.96%"), (2500, "100.0%")])
def test_the_robustness_tip_says_100_percent_only_of_every_run(
    tmp_path: Any, kit: SimpleNamespace, errored: int, shown: str
) -> None:
    runs = [_run(True, errored=i < errored) for i in range(2500)]
    by_skill, result = kit.score(tmp_path, {"rates": SKILL}, mc=runs)
    tips = [t for t in by_skill["rates"]["tips"] if "failure rate" in t["tip"]]
    assert [t["tip"].split(":")[0] for t in tips] == [f"Monte Carlo failure rate is {shown}"]


def _near_perfect_skill() -> dict[str, Any]:
    """Every static sub-check at its maximum but frontmatter (0.97 is its most) and token
    efficiency (the fences' closing lines repeat)."""
    desc = (
        "Reviews pull requests proactively. Use when reviewing code, for testing changes, "
        "when building features, when debugging failures; invoke it automatically."
    )
    body = [
        "## Usage", "It accepts a diff as input and returns JSON output format.",
        "```bash\nrun\n```", "```json\n{}\n```", "```python\nx\n```", "```yaml\na: 1\n```",
        "```sh\ny\n```", "## Examples", "### Example one", "## Troubleshooting", "### Common",
        "## Decision table", "| a | b |", "|---|---|",
        "See also skills/a, skills/b, skills/c, skills/d (related).",
        "Details in [guide](references/guide.md).",
    ]  # fmt: skip
    body += [f"Line {i} of guidance." for i in range(420)]
    text = f"---\nname: best-reviewer\ndescription: {desc}\n---\n" + "\n".join(body) + "\n"
    return {"text": text, "refs": ["guide.md"], "assets": ["t.txt"]}


def test_a_score_just_under_one_does_not_read_as_perfect(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # Sub-checks, dimensions, the tips' scores, Monte Carlo efficiency and score were
    # written with two decimals apart from the grade cut-offs only: 0.996 read "1.00", a
    # perfect score, and the weakest dimension of the report read "(score 1.00, …)".
    peers = {n: {"text": f"---\nname: {n}\ndescription: Use when {n}\n---\n"} for n in "abcd"}
    dims = ("triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration")
    judge = [{"skill": "best", "judge": "j", "scores": dict.fromkeys(dims, 1)}]
    run = {"skill": "best", "activated": True, "quality_score": 1, "tokens": 1, "errored": False}
    by_skill, result = kit.score(
        tmp_path, {"best": _near_perfect_skill(), **peers}, judge=judge, mc=[run] * 10
    )
    best = by_skill["best"]
    assert 0.995 < best["dimensions"]["triggering_accuracy"]["score"] < 0.996
    text = render_report(result)
    for line in (
        "| token_efficiency | 0.996 |",
        "| triggering_accuracy | 0.25 | 0.995 | A+ |",
        "| token_efficiency | 0.06 | 0.998 | A+ |",
        "1. **triggering_accuracy** (score 0.995, weight 0.25): ",
        "2. **token_efficiency** (score 0.998, weight 0.06): 4 repeated lines: remove the duplicates",
        "- Tokens (10 runs): median 1, IQR 0 (Q1 1, Q3 1), outliers 0; efficiency 0.9999",
        "- Monte Carlo score: 0.99999",
        "| **Static score** (penalty 1.00) | **0.99** |",  # 0.9901: "0.99" is not "1.00"
        "| orchestration_wiring | 1.00 |",  # 1 is 1
    ):
        assert line in text.splitlines() or any(ln.startswith(line) for ln in text.splitlines())
    # A composite reads apart from the scale's end too: 99.996 is not "100.00" (grade A+).
    assert fmt_vs(99.996, result.score_cuts) == "99.996"
    assert fmt_vs(100.0, result.score_cuts) == "100.00"
