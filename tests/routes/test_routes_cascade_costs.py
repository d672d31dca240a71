"""Spec routes.md §1 ("an unknown cost is never priced by assumption"), §3 net route value
and §6 "Operations and attempts": an operation's cost is the sum over its attempts, every
escalation follow-up included, in the cheap-first cascades (their baseline too) and in the
matrix alike, unknown when an attempt that may have had a follow-up does not say whether it
escalated; the matrix shows the accepted outcomes its cost is divided by; an insufficient
cascade's headline names the reason it is insufficient (§5: the why matches the evidence)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET, OPUS = "claude-haiku-4", "claude-sonnet-4", "claude-opus-4"


def _cascade_corpus(g: Any, *, follow_ups: bool) -> Any:
    """100 cheap-first haiku operations accepted first time ($0.01 each), 10 whose haiku
    attempt ($0.01, unlabelled) escalated to opus — with or without the opus follow-up
    ($0.05, accepted) in the input — and 200 historical opus episodes ($0.05, 160 pass)."""
    for i in range(100):
        g.episode(
            model=HAIKU, success=True, kind="prospective", run_id=f"r{i}", fingerprint=f"t{i}",
            cost=0.01,
        )  # fmt: skip
    for i in range(10):
        common = {"kind": "prospective", "run_id": f"e{i}", "fingerprint": f"u{i}"}
        g.episode(
            model=HAIKU, success=None, cost=0.01, escalated=True, to_model=OPUS,
            signals=[{"kind": "escalation", "value": "to-opus"}], **common,
        )  # fmt: skip
        if follow_ups:
            g.episode(model=OPUS, success=True, cost=0.05, **common)
    g.cell(OPUS, 200, 160, cost=0.05)
    return g


def test_a_cascade_whose_escalations_lack_their_follow_up_claims_no_saving(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # The 10 escalated operations were costed at their haiku attempt alone (the opus
    # follow-up priced at $0): "proven cascade_working, saved $0.0515 per accepted operation
    # ... after every retry and escalation", with no reason given. Their cost is unknown, so
    # the cascade's cost and saving are, and nothing is claimed or proven on them.
    path = _cascade_corpus(gen(), follow_ups=False).write(tmp_path / "missing.jsonl")
    rep = report(str(path))
    (k,) = rep["cascades"]
    assert (k["grade"], k["evidence_grade"], k["would_be_type"], k["finding_type"]) == (
        "insufficient",
        "insufficient",
        None,
        None,
    )
    assert k["cost"] == {
        "basis": "unknown",
        "cascade_per_accepted": None,
        "first_attempt_per_accepted": None,
        "target_direct_per_accepted": 0.0625,
        "gross_saving_per_accepted": None,
        "escalation_tax_per_accepted": None,
        "net_saving_per_accepted": None,
        "net_total": None,
    }
    assert k["reasons"] == [
        "10 of 110 operations escalated with no follow-up attempt in the input (same runId, "
        "task fingerprint and toModel): their cost is unknown (an escalation is never priced "
        "at 0): No $ claimed"
    ]
    assert rep["findings"] == []
    res = run_cli("routes", str(path), "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    assert (
        f"| documentation | {HAIKU} | {OPUS} | 110 | 100 | 10 | +0.200 [+0.138, +0.261] "
        "| No $ claimed | unknown | insufficient | 10 of 110 operations escalated with no follow-up attempt"
    ) in res.stdout


def test_a_cascade_with_its_follow_ups_counts_them_and_is_proven(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # The same operations with their opus follow-ups in the input: each escalated operation
    # costs its two attempts ($0.06) and is accepted.
    rep = report(str(_cascade_corpus(gen(), follow_ups=True).write(tmp_path / "full.jsonl")))
    (k,) = rep["cascades"]
    assert (k["grade"], k["finding_type"], k["reasons"]) == ("proven", "cascade_working", [])
    assert k["cost"]["basis"] == "api_equivalent"
    assert k["cost"]["cascade_per_accepted"] == pytest.approx((110 * 0.01 + 10 * 0.05) / 110)
    # The baseline is opus run directly: its 200 historical episodes, not the cascade's own
    # 10 follow-ups (the cascade's cost, run only where haiku gave up).
    assert k["cost"]["target_direct_per_accepted"] == pytest.approx(200 * 0.05 / 160)
    assert k["cost"]["net_saving_per_accepted"] == pytest.approx(
        200 * 0.05 / 160 - (110 * 0.01 + 10 * 0.05) / 110
    )
    (f,) = rep["findings"]
    assert f["type"] == "cascade_working" and f["grade"] == "proven"


def test_a_cascade_baseline_is_the_target_run_directly_not_the_cascades_follow_ups(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # §5: the saving is the cascade's against the target route. The baseline priced every
    # opus episode of the activity, the cascade's own follow-ups too: the cascade's cost, run
    # only where haiku gave up. Where opus ran nowhere else ("only"), the cascade was measured
    # against itself, opus at $0.05 per accepted outcome over those 10 follow-ups, and a
    # saving was claimed. The baseline is opus run directly now: none here, so No $ claimed.
    # In "both", 10 more opus follow-ups of another cheap-first cascade (sonnet, $0.30 each,
    # unlabelled) are no direct runs either: the baseline is the 20 direct opus episodes alone.
    g = gen()
    for activity in ("only", "both"):
        for ep in _cheap_first(g, activity):  # less its 200 direct opus episodes
            if ep["source"]["kind"] != "prospective":
                g.episodes.remove(ep)
    g.cell(OPUS, 20, 16, cost=0.05, activity="both")
    for i in range(10):
        common = {"kind": "prospective", "run_id": f"s{i}", "fingerprint": "v", "activity": "both"}
        g.episode(
            model=SONNET, success=None, cost=0.03, escalated=True, to_model=OPUS,
            signals=[{"kind": "escalation", "value": "to-opus"}], **common,
        )  # fmt: skip
        g.episode(model=OPUS, success=None, cost=0.30, **common)
    assert len(g.episodes) == 120 + 120 + 20 + 20
    path = str(g.write(tmp_path / "c.jsonl"))
    rep = report(path)
    cascades = {(k["activity"], k["entry"]["model"]): k for k in rep["cascades"]}
    only = cascades[("only", HAIKU)]
    assert (only["cost"]["basis"], only["cost"]["target_direct_per_accepted"]) == ("unknown", None)
    assert (only["grade"], only["finding_type"], only["target_accepted"]) == (
        "insufficient",
        None,
        None,
    )
    assert only["reasons"] == [
        f"baseline unknown: no {OPUS} episode of this activity ran other than as a cascade's "
        "follow-up, so what it costs run directly is not in the input: No $ claimed",
        "acceptance not compared with the target route (no labelled outcome on one side): the "
        "quality bar is not shown kept",
    ]
    both = cascades[("both", HAIKU)]
    assert both["cost"]["target_direct_per_accepted"] == pytest.approx(20 * 0.05 / 16)
    assert (both["target_accepted"], both["target_labelled"], both["target_successes"]) == (
        16,
        20,
        16,
    )
    assert [f["activity"] for f in rep["findings"]] == ["both"]


def test_the_matrix_cost_per_accepted_follows_the_comparisons_total_cost_rule(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # 10 of haiku's 50 episodes escalated to sonnet. In "missing" their follow-up is not in
    # the input, in "silent" the 10 do not say whether they escalated: the comparison says
    # cost basis unknown, No $ claimed, while the matrix divided haiku's own costs by its
    # successes, $0.0125 api_equivalent. In "counted" the follow-ups are in the input: the
    # matrix left their cost out ($0.0125) where the comparison counts it and the accepted
    # operations ($0.0160).
    g = gen()
    for activity in ("missing", "silent", "counted"):
        g.cell(SONNET, 60, 54, activity=activity)
        g.cell(HAIKU, 40, 40, activity=activity)
        for i in range(10):
            esc = g.episode(
                model=HAIKU, success=None, activity=activity, run_id=f"{activity}-{i}",
                fingerprint=f"task-{i}", escalated=True, to_model=SONNET,
                signals=[{"kind": "escalation", "value": "to-sonnet"}],
            )  # fmt: skip
            if activity == "silent":
                del esc["outcome"]["escalation"]
            if activity == "counted":
                g.episode(
                    model=SONNET, success=True, activity=activity, run_id=f"{activity}-{i}",
                    fingerprint=f"task-{i}",
                )  # fmt: skip
    path = str(g.write(tmp_path / "m.jsonl"))
    rep = report(path)
    comparison = {
        c["activity"]: (c["cost"]["candidate_per_accepted"], c["cost"]["candidate_basis"])
        for c in rep["comparisons"]
    }
    matrix = {
        m["activity"]: (m["cost_per_accepted"], m["cost_basis"])
        for m in rep["matrix"]
        if m["model"] == HAIKU
    }
    expected = {
        "missing": (None, "unknown"),
        "silent": (None, "unknown"),
        "counted": (pytest.approx((50 * 0.01 + 10 * 0.03) / 50), "api_equivalent"),
    }
    assert comparison == expected
    assert matrix == expected
    sonnet = {m["activity"]: m["cost_per_accepted"] for m in rep["matrix"] if m["model"] == SONNET}
    assert sonnet == {
        "missing": pytest.approx(60 * 0.03 / 54),
        "silent": pytest.approx(60 * 0.03 / 54),
        "counted": pytest.approx(70 * 0.03 / 64),
    }
    res = run_cli("routes", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    rows = [
        line
        for line in res.stdout.splitlines()
        if line.startswith("| ") and f"| {HAIKU} | 50 |" in line
    ]
    assert [r.split(" | ")[0] + " | " + " | ".join(r.split(" | ")[-3:-1]) for r in rows] == [
        "| counted | $0.0160 | api_equivalent",
        "| missing | No $ claimed | unknown",
        "| silent | No $ claimed | unknown",
    ]


def test_an_insufficient_cascade_headline_names_what_keeps_it_from_proven(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # Each headline said "the prospective evidence is below the minimums", also when 100
    # labelled operations met them and the only reason was the quality bar (86 accepted of
    # 100 against opus's 92 of 100: the difference's lower bound -0.150 below -0.050); it
    # now names each minimum missed ("both" misses the labelled count and the CI width).
    g = gen()
    g.cell(OPUS, 100, 92, activity="quality")
    g.cascade(
        100, cheap=HAIKU, premium=OPUS, direct_ok=80, escalate=8, premium_ok=6, activity="quality"
    )
    g.cell(OPUS, 100, 80, activity="thin")
    g.cascade(
        20, cheap=HAIKU, premium=OPUS, direct_ok=18, escalate=2, premium_ok=2, activity="thin"
    )
    g.cell(OPUS, 100, 92, activity="both")
    g.cascade(
        20, cheap=HAIKU, premium=OPUS, direct_ok=17, escalate=2, premium_ok=1, activity="both"
    )
    rep = report(str(g.write(tmp_path / "q.jsonl")))
    got = {f["activity"]: (f["type"], f["grade"], f["headline"]) for f in rep["findings"]}
    head = f"No recommendation yet: cheap-first {HAIKU} → {OPUS} on "
    assert got == {
        "quality": (
            "cascade_working",
            "insufficient",
            head + "quality shows a net saving of $0.0878 per accepted operation, but its "
            f"acceptance is not shown within the tolerance of {OPUS} (lower bound -0.150 below "
            "-tolerance -0.050), so the quality bar is not shown kept (100 prospective "
            "operations, 86 accepted).",
        ),
        "thin": (
            "cascade_working",
            "insufficient",
            head + "thin shows a net saving of $0.1050 per accepted operation, but it has 20 "
            "labelled operations, below the minimum of 30 (20 prospective operations, 20 "
            "accepted).",
        ),
        "both": (
            "cascade_working",
            "insufficient",
            head + "both shows a net saving of $0.0865 per accepted operation, but it has 20 "
            "labelled operations, below the minimum of 30; its acceptance 95% CI width 0.273 "
            f"exceeds max_ci_width 0.250; and its acceptance is not shown within the tolerance "
            f"of {OPUS} (lower bound -0.225 below -tolerance -0.050), so the quality bar is not "
            "shown kept (20 prospective operations, 18 accepted).",
        ),
    }
    reasons = {k["activity"]: k["reasons"] for k in rep["cascades"]}
    assert reasons["quality"] == [
        "acceptance not shown within the tolerance of the target route (lower bound -0.150 "
        "below -tolerance -0.050)"
    ]
    assert reasons["thin"] == ["labelled operations 20 (minimum 30)"]


def test_a_cascade_headline_held_back_by_its_interval_width_says_so(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # 100 labelled operations meet min_labelled_per_route; only the acceptance interval
    # (width 0.083) is wider than --max-ci-width 0.05. The headline said "the prospective
    # evidence is below the minimums", which reads as too few operations.
    g = gen()
    g.cell(OPUS, 100, 80, activity="wide")
    g.cascade(
        100, cheap=HAIKU, premium=OPUS, direct_ok=88, escalate=8, premium_ok=8, activity="wide"
    )
    rep = report("--max-ci-width", "0.05", str(g.write(tmp_path / "w.jsonl")))
    assert [(f["type"], f["grade"], f["headline"]) for f in rep["findings"]] == [
        (
            "cascade_working",
            "insufficient",
            f"No recommendation yet: cheap-first {HAIKU} → {OPUS} on wide shows a net saving "
            "of $0.1062 per accepted operation, but its acceptance 95% CI width 0.083 exceeds "
            "max_ci_width 0.050 (100 prospective operations, 96 accepted).",
        )
    ]
    assert rep["cascades"][0]["reasons"] == [
        "acceptance 95% CI width 0.083 exceeds max_ci_width 0.050"
    ]


def test_the_matrix_shows_the_accepted_outcomes_its_cost_is_divided_by(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # The matrix showed successes (40 of haiku's 50 episodes) and a cost per accepted outcome
    # divided by 50: the 10 escalations whose sonnet follow-up succeeded are accepted too.
    # It now shows that count, `accepted`, beside the successes behind the success rate.
    g = gen()
    g.cell(SONNET, 60, 54)
    g.cell(HAIKU, 40, 40)
    for i in range(10):
        common = {"run_id": f"run-{i}", "fingerprint": f"task-{i}"}
        g.episode(
            model=HAIKU, success=None, escalated=True, to_model=SONNET,
            signals=[{"kind": "escalation", "value": "to-sonnet"}], **common,
        )  # fmt: skip
        g.episode(model=SONNET, success=True, **common)
    path = str(g.write(tmp_path / "a.jsonl"))
    rep = report(path)
    got = {
        m["model"]: (m["episodes"], m["labelled"], m["successes"], m["accepted"])
        for m in rep["matrix"]
    }
    assert got == {HAIKU: (50, 40, 40, 50), SONNET: (70, 70, 64, 64)}
    (haiku,) = [m for m in rep["matrix"] if m["model"] == HAIKU]
    assert haiku["cost_per_accepted"] == pytest.approx((50 * 0.01 + 10 * 0.03) / 50)
    res = run_cli("routes", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    assert (
        "| activity | host | provider | model | episodes | labelled share | success rate [95% CI] "
        "| retry | repair | escalation | accepted | cost / accepted | basis | grade |"
    ) in res.stdout
    assert (
        f"| documentation | claude-code | anthropic | {HAIKU} | 50 | 80% | 100% [91%, 100%] "
        "| 0% | 0% | 20% | 50 | $0.0160 | api_equivalent | correlated |"
    ) in res.stdout


def _cheap_first(g: Any, activity: str) -> list[dict[str, Any]]:
    """``_cascade_corpus`` (follow-ups in the input) on ``activity``; returns its episodes."""
    start = len(g.episodes)
    for i in range(100):
        g.episode(
            model=HAIKU, success=True, kind="prospective", run_id=f"{activity}-r{i}",
            fingerprint=f"t{i}", cost=0.01, activity=activity,
        )  # fmt: skip
    for i in range(10):
        common = {
            "kind": "prospective", "run_id": f"{activity}-e{i}", "fingerprint": f"u{i}",
            "activity": activity,
        }  # fmt: skip
        g.episode(
            model=HAIKU, success=None, cost=0.01, escalated=True, to_model=OPUS,
            signals=[{"kind": "escalation", "value": "to-opus"}], **common,
        )  # fmt: skip
        g.episode(model=OPUS, success=True, cost=0.05, **common)
    g.cell(OPUS, 200, 160, cost=0.05, activity=activity)
    return list(g.episodes[start:])


def test_a_cascade_baseline_follows_the_comparisons_total_cost_rule(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # The baseline (the target route's cost per accepted outcome) summed its episodes' own
    # costs over their successes, where the comparisons and the matrix price a route by 070's
    # total: each episode with its escalation follow-up, over its accepted outcomes. Ten of
    # opus's historical episodes here escalated to a bigger model: in "silent" they do not say
    # whether they did, in "missing" their follow-up is not in the input: the baseline was
    # $0.0647 api_equivalent and the cascade "proven cascade_working" with a saving; it is
    # unknown, so the cascade claims nothing and says why. In "counted" the follow-ups ($0.20,
    # accepted) are in the input: the baseline counts them ($0.0735, not $0.0647), over opus
    # run directly: not the cascade's own 10 opus follow-ups of haiku, which the matrix counts.
    big = "claude-opus-5"
    g = gen()
    for activity in ("silent", "missing", "counted"):
        _cheap_first(g, activity)
        for i in range(10):
            common = {"activity": activity, "run_id": f"{activity}-big{i}", "fingerprint": "b"}
            esc = g.episode(
                model=OPUS, success=None, cost=0.05, escalated=True, to_model=big,
                signals=[{"kind": "escalation", "value": "to-opus-5"}], **common,
            )  # fmt: skip
            if activity == "silent":
                del esc["outcome"]["escalation"]
            if activity == "counted":
                g.episode(model=big, success=True, cost=0.20, **common)
    path = str(g.write(tmp_path / "b.jsonl"))
    rep = report(path)
    cascades = {k["activity"]: k for k in rep["cascades"]}
    got = {
        a: (
            k["cost"]["basis"],
            k["cost"]["target_direct_per_accepted"],
            k["target_accepted"],
            k["target_successes"],
            k["grade"],
            k["finding_type"],
        )
        for a, k in cascades.items()
    }
    assert got == {
        "silent": ("unknown", None, 160, 160, "insufficient", None),
        "missing": ("unknown", None, 160, 160, "insufficient", None),
        "counted": (
            "api_equivalent",
            pytest.approx((210 * 0.05 + 10 * 0.20) / 170),
            170,
            160,
            "proven",
            "cascade_working",
        ),
    }
    for activity in ("silent", "missing"):
        assert cascades[activity]["reasons"] == [
            f"baseline unknown: 10 of 210 {OPUS} episodes have an unknown total cost (their "
            "cost unknown, an escalation follow-up not in the input, or not saying whether "
            "they escalated): No $ claimed"
        ]
    assert cascades["counted"]["cost"]["net_saving_per_accepted"] == pytest.approx(
        (210 * 0.05 + 10 * 0.20) / 170 - (110 * 0.01 + 10 * 0.05) / 110
    )
    # One rule, the matrix's, over opus's every episode there (the follow-ups of haiku too).
    matrix = {m["activity"]: m for m in rep["matrix"] if m["model"] == OPUS}
    assert {a: (m["cost_per_accepted"], m["cost_basis"]) for a, m in matrix.items()} == {
        "silent": (None, "unknown"),
        "missing": (None, "unknown"),
        "counted": (pytest.approx((220 * 0.05 + 10 * 0.20) / 180), "api_equivalent"),
    }
    (f,) = [f for f in rep["findings"] if f["type"] == "cascade_working"]
    assert f["activity"] == "counted"
    assert any(
        f"{OPUS} directly $0.0735 over its 170 accepted outcomes on this activity" in w
        for w in f["why"]
    ), f["why"]
    res = run_cli("routes", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    assert (
        f"| silent | {HAIKU} | {OPUS} | 110 | 110 | 10 | +0.200 [+0.140, +0.261] | No $ claimed "
        "| unknown | insufficient "
        "| baseline unknown: 10 of 210"
    ) in res.stdout


def _run(ep: dict[str, Any]) -> str:
    run: str = ep["source"]["runId"] or ""
    return run


def test_a_cascade_operation_whose_last_attempt_does_not_say_it_escalated_is_unknown(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # A comparison and the matrix give an episode that does not say whether it escalated an
    # unknown total cost: a follow-up it may have had is not priced at 0 (§1). A cascade
    # operation whose last attempt in the input does not say so was costed as its attempts
    # alone: "proven cascade_working" with a saving. Its cost is unknown: nothing is claimed,
    # with the reason. In "single" 5 haiku-only operations are silent; in "final" the 10 opus
    # follow-ups are (the baseline, opus run directly, does not hold them: it is known). In
    # "earlier" the 10 escalating haiku attempts are silent but their opus follow-up is the
    # operation's next attempt and says it did not escalate: the sum over its attempts holds.
    g = gen()
    eps = {activity: _cheap_first(g, activity) for activity in ("single", "final", "earlier")}
    for ep in [e for e in eps["single"] if _run(e).startswith("single-r")][:5]:
        del ep["outcome"]["escalation"]
    for ep in eps["final"]:
        if _run(ep).startswith("final-e") and ep["execution"]["model"] == OPUS:
            ep["outcome"]["escalation"] = None
    for ep in eps["earlier"]:
        if _run(ep).startswith("earlier-e") and ep["execution"]["model"] == HAIKU:
            del ep["outcome"]["escalation"]
    rep = report(str(g.write(tmp_path / "f.jsonl")))
    cascades = {k["activity"]: k for k in rep["cascades"]}
    got = {
        a: (k["cost"]["basis"], k["cost"]["cascade_per_accepted"], k["grade"], k["reasons"])
        for a, k in cascades.items()
    }
    silent = (
        " of 110 operations end on an attempt that does not say whether it escalated (a "
        "follow-up it may have had is not in the input): their cost is unknown (never priced at "
        "0): No $ claimed"
    )
    assert got == {
        "single": ("unknown", None, "insufficient", ["5" + silent]),
        "final": (
            "unknown",
            None,
            "insufficient",
            ["10" + silent],
        ),
        "earlier": (
            "api_equivalent",
            pytest.approx((110 * 0.01 + 10 * 0.05) / 110),
            "proven",
            [],
        ),
    }
    assert [f["activity"] for f in rep["findings"] if f["type"] == "cascade_working"] == ["earlier"]


def test_no_escalation_tax_where_first_attempts_alone_save_nothing(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # §5 escalation_tax: "escalations and retries erase the saving". Sonnet first ($0.03),
    # escalating to haiku ($0.01) 3 times in 60: its first-attempt successes alone cost
    # $0.0311 per accepted operation against haiku's $0.0105 directly, so there was no saving
    # to erase; the 3 escalations add $0.0005. It was reported as a proven escalation_tax,
    # "escalations and retries add $0.0005 per accepted operation, so it costs $0.0316 against
    # $0.0105": the loss laid on the escalations. No escalation tax is claimed now, and the
    # reason says why.
    g = gen()
    g.cell(HAIKU, 40, 38)
    g.cascade(60, cheap=SONNET, premium=HAIKU, direct_ok=55, escalate=3, premium_ok=3)
    rep = report(str(g.write(tmp_path / "pricier-first.jsonl")))
    (k,) = rep["cascades"]
    assert k["cost"]["first_attempt_per_accepted"] == pytest.approx(57 * 0.03 / 55)
    # haiku run directly: its 40 episodes, not the 3 it ran as sonnet's follow-ups
    assert k["cost"]["target_direct_per_accepted"] == pytest.approx(40 * 0.01 / 38)
    assert (k["would_be_type"], k["finding_type"]) == (None, None)
    assert k["reasons"] == [
        "no saving for escalations and retries to erase: first-attempt successes alone cost "
        "$0.0311 per accepted operation, no less than claude-haiku-4 directly ($0.0105); "
        "no escalation tax claimed"
    ]
    assert rep["findings"] == []


def test_escalation_tax_with_no_first_attempt_success_names_no_unknown(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # Every one of 40 cheap-first haiku operations ($0.01) escalated to opus ($0.10, all
    # accepted): $0.11 per accepted operation against opus's $0.10 directly, every cost known.
    # The headline said "escalations and retries add unknown per accepted operation" and the
    # why "first-attempt successes alone unknown, escalation tax unknown": with no first-attempt
    # success there is no first-attempt cost to subtract, not an unknown one.
    g = gen()
    g.cell(OPUS, 100, 100)
    g.cascade(40, cheap=HAIKU, premium=OPUS, direct_ok=0, escalate=40, premium_ok=40)
    path = str(g.write(tmp_path / "all-escalate.jsonl"))
    res = run_cli("routes", "report", "--format", "json", "--as-of", AS_OF, path)
    assert res.exit_code == 0, res.stderr
    (f,) = json.loads(res.stdout)["findings"]
    assert (f["type"], f["grade"], f["cost"]["basis"]) == (
        "escalation_tax",
        "proven",
        "api_equivalent",
    )
    assert f["headline"] == (
        "Cheap-first claude-haiku-4 → claude-opus-4 on documentation does not pay: no operation "
        "was accepted on its first claude-haiku-4 attempt (every accepted one also paid for an "
        "escalation), so it costs $0.1100 against $0.1000 for claude-opus-4 directly (net "
        "-$0.0100, api_equivalent) (40 prospective operations, 40 accepted)."
    )
    res = run_cli("routes", "report", "--format", "markdown", "--as-of", AS_OF, path)
    assert res.exit_code == 0, res.stderr
    assert "unknown" not in res.stdout.split("## Findings")[1].split("## Comparisons")[0]
    assert (
        "- Cost per accepted operation (api_equivalent): cascade $0.1100 (no operation accepted "
        "on its first attempt: every accepted one paid for an escalation); claude-opus-4 "
        "directly $0.1000 over its 100 accepted outcomes on this activity; net saving "
        "-$0.0100.\n"
    ) in res.stdout
