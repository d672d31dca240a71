"""Spec routes.md §3–§6: what a comparison writes — its effect and interval as they were
judged (6 decimals, never float noise), the reasons it is insufficient, and which rule of
§6's order chose the incumbent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET, OPUS = "claude-haiku-4", "claude-sonnet-4", "claude-opus-4"


def test_equal_rates_have_an_effect_of_zero_not_float_noise(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # 30 of 30 against 32 of 32: both rates are 1, but the MH-weighted candidate rate came out
    # 0.9999999999999999, and the effect was written -1.1102230246251565e-16 in JSON and
    # "-1.11e-16" in markdown. Effects and interval ends are written at the 6 decimals
    # they are compared at.
    g = gen()
    g.cell(SONNET, 32, 32)
    g.cell(HAIKU, 30, 30)
    path = str(g.write(tmp_path / "eq.jsonl"))
    res = run_cli("routes", path, "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    (c,) = json.loads(res.stdout)["comparisons"]
    assert (c["effect"], c["ci_low"], c["ci_high"]) == (0.0, -0.113513, 0.107179)
    h = c["historical"]
    assert (h["candidate_rate_mh"], h["incumbent_rate_mh"]) == (1.0, 1.0)
    assert (h["effect"], h["ci_low"], h["ci_high"], h["ci_width"]) == (
        0.0,
        -0.113513,
        0.107179,
        0.220692,
    )
    assert (h["repair_escalation_ci_low"], h["repair_escalation_ci_high"]) == (
        -0.107179,
        0.113513,
    )
    # never -0.0: the text, not only the value, is 0.0
    assert res.stdout.count('"effect": 0.0,') == 2
    assert "e-1" not in res.stdout
    md = run_cli("routes", path, "--as-of", AS_OF)
    assert md.exit_code == 0, md.stderr
    assert (
        "| documentation | claude-sonnet-4 | claude-haiku-4 | 1 | 30/32 | 100%/100% "
        "| 0.000 [-0.114, +0.107] | 0 | observed "
        "| not shown non-inferior: lower bound -0.114 below -tolerance -0.050 |\n"
    ) in md.stdout


def test_a_cascade_effect_is_written_as_it_was_judged(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # 7 of 10 operations accepted against a target that succeeds 6 of 10 times: the effect is
    # 0.1, which 0.7 - 0.6 writes 0.09999999999999998.
    g = gen()
    g.cell(SONNET, 10, 6)
    g.cascade(10, cheap=HAIKU, premium=SONNET, direct_ok=6, escalate=1, premium_ok=1)
    path = str(g.write(tmp_path / "c.jsonl"))
    res = run_cli("routes", path, "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    (f,) = [f for f in json.loads(res.stdout)["findings"] if f["type"] == "cascade_working"]
    assert (f["effect"], f["ci_low"], f["ci_high"]) == (0.1, -0.281686, 0.445689)


def test_a_route_short_of_labelled_episodes_with_no_compared_stratum_says_so(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # A candidate with no labelled episode at all had reasons naming the missing stratum and
    # the incumbent's 0% overlap, but not that it has 0 labelled episodes (minimum 30), as a
    # candidate with 29 in compared strata is told.
    g = gen()
    g.cell(SONNET, 40, 36)
    g.unlabelled(HAIKU, 10)
    (c,) = report(str(g.write(tmp_path / "none.jsonl")))["comparisons"]
    assert c["reasons"] == [
        "no (complexity, harness) stratum where both routes have labelled historical episodes",
        "candidate has 0 labelled historical episodes (minimum 30)",
        "incumbent overlap 0% of its labelled episodes is below min_stratum_overlap 50%",
    ]
    # 29 labelled, all in a stratum the incumbent never ran: the count is said too.
    g = gen()
    g.cell(SONNET, 40, 36)
    g.cell(HAIKU, 29, 27, complexity="high")
    (c,) = report(str(g.write(tmp_path / "apart.jsonl")))["comparisons"]
    assert c["reasons"] == [
        "no (complexity, harness) stratum where both routes have labelled historical episodes",
        "candidate has 29 labelled historical episodes (minimum 30)",
        "candidate overlap 0% of its labelled episodes is below min_stratum_overlap 50%",
        "incumbent overlap 0% of its labelled episodes is below min_stratum_overlap 50%",
    ]
    # Both short of the minimum: each says so.
    g = gen()
    g.cell(SONNET, 12, 10)
    g.unlabelled(HAIKU, 10)
    (c,) = report(str(g.write(tmp_path / "both.jsonl")))["comparisons"]
    assert c["reasons"][1:3] == [
        "candidate has 0 labelled historical episodes (minimum 30)",
        "incumbent has 12 labelled historical episodes (minimum 30)",
    ]
    # Enough labelled episodes, none in a compared stratum: the overlap says it, no count.
    g = gen()
    g.cell(SONNET, 40, 36)
    g.cell(HAIKU, 35, 30, complexity="high")
    (c,) = report(str(g.write(tmp_path / "enough.jsonl")))["comparisons"]
    assert not any("labelled historical episodes (minimum" in r for r in c["reasons"])


def test_the_incumbent_source_names_the_rule_that_chose_it(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # §6: most labelled episodes; ties: most episodes, then lexicographic order. A tie-break
    # was said "most labelled episodes" too.
    def source(name: str, haiku_unlabelled: int, sonnet_labelled: int = 40) -> tuple[str, str]:
        g = gen()
        g.cell(SONNET, sonnet_labelled, 36)
        g.cell(HAIKU, 40, 30)
        g.unlabelled(HAIKU, haiku_unlabelled)
        (c,) = report(str(g.write(tmp_path / name)))["comparisons"]
        return c["incumbent"]["model"], c["incumbent"]["source"]

    assert source("most.jsonl", 3, sonnet_labelled=41) == (SONNET, "most labelled episodes")
    assert source("eps.jsonl", 3) == (HAIKU, "most episodes (tie on labelled episodes)")
    assert source("lex.jsonl", 0) == (
        HAIKU,
        "lexicographic order (tie on labelled and total episodes)",
    )


def test_the_matrix_rate_and_interval_are_written_as_judged(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # The matrix wrote its success rate and Wilson interval with every digit
    # (0.8333333333333334, 0.11999366228595006) beside effects written at 6 decimals, and
    # graded the width of the unrounded interval: 6 of 24 is [0.119994, 0.448994] as
    # written, a width of 0.329, judged 0.329001 and so "insufficient" under max_ci_width
    # 0.329.
    g = gen()
    g.cell(SONNET, 24, 6)
    g.cell(HAIKU, 6, 5)
    path = str(g.write(tmp_path / "m.jsonl"))
    args = ("--as-of", AS_OF, "--max-ci-width", "0.329", "--min-labelled", "10")
    res = run_cli("routes", path, "--format", "json", *args)
    assert res.exit_code == 0, res.stderr
    rows = {m["model"]: m for m in json.loads(res.stdout)["matrix"]}
    s, h = rows[SONNET], rows[HAIKU]
    assert (s["success_rate"], s["success_ci_low"], s["success_ci_high"]) == (
        0.25,
        0.119994,
        0.448994,
    )
    assert (s["grade"], s["grade_basis"]) == ("observed", "descriptive")
    assert (h["success_rate"], h["success_ci_low"], h["success_ci_high"]) == (
        0.833333,
        0.436497,
        0.969947,
    )
    md = run_cli("routes", path, *args)
    assert md.exit_code == 0, md.stderr
    assert "| 24 | 100% | 25% [12%, 45%] |" in md.stdout


def test_a_cascade_acceptance_rate_and_interval_are_written_as_judged(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # A cascade's acceptance rate, its Wilson interval and its target's success rate were
    # written with every digit, and the minimums judged the unrounded width: 18 of 24
    # accepted is [0.551006, 0.880006] as written, a width of 0.329, refused as "acceptance
    # 95% CI width 0.329001 exceeds max_ci_width 0.329000".
    g = gen()
    g.cell(SONNET, 30, 20)
    g.cascade(24, cheap=HAIKU, premium=SONNET, direct_ok=16, escalate=4, premium_ok=2)
    path = str(g.write(tmp_path / "c.jsonl"))
    args = ("--as-of", AS_OF, "--max-ci-width", "0.329", "--min-labelled", "10")
    res = run_cli("routes", path, "--format", "json", *args)
    assert res.exit_code == 0, res.stderr
    (c,) = json.loads(res.stdout)["cascades"]
    assert (c["labelled_operations"], c["accepted_operations"]) == (24, 18)
    assert (c["acceptance_rate"], c["acceptance_ci_low"], c["acceptance_ci_high"]) == (
        0.75,
        0.551006,
        0.880006,
    )
    assert c["target_success_rate"] == 0.666667
    assert not any("acceptance 95% CI width" in r for r in c["reasons"]), c["reasons"]
    (f,) = [f for f in json.loads(res.stdout)["findings"] if f["candidate"]["model"] == HAIKU]
    assert f["why"][0] == (
        f"Operations (episodes sharing runId and task fingerprint, cheap-first on {HAIKU}): "
        "24; labelled 24, accepted 18 (75%, 95% CI [55%, 88%]); attempts 28."
    )


def test_actionable_findings_that_pick_other_routes_name_each_other(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # Each comparison is against the incumbent: haiku is as good as sonnet (cheaper
    # equivalent) and opus better (premium justified), each actionable, their commands
    # picking two different routes for one activity with no word that they are alternatives
    # (run both, the last silently undid the first).
    g = gen()
    for cx in ("low", "medium", "high"):
        g.cell(SONNET, 150, 135, complexity=cx)
        g.cell(HAIKU, 120, 108, complexity=cx)
        g.cell(OPUS, 120, 119, complexity=cx)
    path = str(g.write(tmp_path / "alt.jsonl"))
    res = run_cli("routes", path, "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    found = {f["type"]: f for f in json.loads(res.stdout)["findings"]}
    assert sorted(found) == ["cheaper_equivalent", "premium_justified"]
    cheap, premium = found["cheaper_equivalent"], found["premium_justified"]
    assert cheap["actionable"] and premium["actionable"]
    pick = "ak host pick --route 'documentation:claude-code:{}'"
    assert (cheap["command"], premium["command"]) == (pick.format(HAIKU), pick.format(OPUS))
    tail = (
        ". Each is measured against the incumbent, so the route commands are alternatives: run one."
    )
    assert cheap["why"][-1] == (
        "Other actionable findings of documentation pick another route: premium_justified ("
        + pick.format(OPUS)
        + ")"
        + tail
    )
    assert premium["why"][-1] == (
        "Other actionable findings of documentation pick another route: cheaper_equivalent ("
        + pick.format(HAIKU)
        + ")"
        + tail
    )
    # One actionable finding alone says nothing of the kind.
    g = gen()
    for cx in ("low", "medium", "high"):
        g.cell(SONNET, 150, 135, complexity=cx)
        g.cell(HAIKU, 120, 108, complexity=cx)
    res = run_cli(
        "routes", str(g.write(tmp_path / "one.jsonl")), "--format", "json", "--as-of", AS_OF
    )
    (f,) = json.loads(res.stdout)["findings"]
    assert f["actionable"] and not any("Other actionable findings" in w for w in f["why"])
