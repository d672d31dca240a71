"""Spec routes.md §1 "Unknown stays unknown (null)": an episode that does not report
outcome.retries, outcome.repairs or outcome.escalation.escalated is unknown on that field,
never 0 / false. Rates are over the episodes that report the field; decisions that rest on
them (premium_justified's repair + escalation share, the cascade's first-attempt cost, the
cost of a possible escalation follow-up) never read unknown as zero.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET, OPUS = "claude-haiku-4", "claude-sonnet-4", "claude-opus-4"


def _unreport(episodes: list[dict[str, Any]], *fields: str) -> None:
    """Drop ``fields`` (retries, repairs, escalation) from each episode's outcome."""
    for ep in episodes:
        for name in fields:
            del ep["outcome"][name]


def _md(run_cli: Any, path: str) -> str:
    res = run_cli("routes", "report", path, "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    out: str = res.stdout
    return out


def _matrix_row(rep: dict[str, Any], activity: str, model: str) -> dict[str, Any]:
    (row,) = [m for m in rep["matrix"] if m["activity"] == activity and m["model"] == model]
    return row


def test_unreported_retries_repairs_and_escalation_are_unknown_not_zero(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # haiku reports retries (1 in 10 retried) but never repairs or escalation; sonnet reports
    # everything but retries on a third of its episodes. The rates were 0% where nothing was
    # known (and a share of all episodes where only some reported).
    g = gen()
    for cx in ("low", "medium", "high"):
        start = len(g.episodes)
        g.cell(SONNET, 150, 135, complexity=cx)
        _unreport(g.episodes[start : start + 50], "retries")
        start = len(g.episodes)
        g.cell(HAIKU, 120, 108, complexity=cx)
        for i, ep in enumerate(g.episodes[start:]):
            ep["outcome"]["retries"] = 1 if i % 10 == 0 else 0
        _unreport(g.episodes[start:], "repairs", "escalation")
    path = str(g.write(tmp_path / "e.jsonl"))
    rep = report(path)

    haiku = _matrix_row(rep, "documentation", HAIKU)
    assert (haiku["retry_rate"], haiku["repair_rate"], haiku["escalation_rate"]) == (
        0.1,
        None,
        None,
    )
    assert (haiku["retry_reported"], haiku["repair_reported"], haiku["escalation_reported"]) == (
        360,
        0,
        0,
    )
    sonnet = _matrix_row(rep, "documentation", SONNET)
    assert (sonnet["retry_rate"], sonnet["retry_reported"], sonnet["episodes"]) == (0.0, 300, 450)
    assert (sonnet["repair_rate"], sonnet["escalation_rate"]) == (0.0, 0.0)

    (f,) = rep["findings"]
    assert f["type"] == "cheaper_equivalent"
    assert f["rates"]["candidate_retry"] == 0.1
    assert f["rates"]["candidate_repair"] is None and f["rates"]["candidate_escalation"] is None
    assert f["rates"]["candidate_escalation_reported"] == 0
    assert f["rates"]["incumbent_retry_reported"] == 300
    # An episode that does not say whether it escalated may have had a follow-up attempt:
    # its total cost is unknown, never priced as its own cost alone.
    assert f["cost"]["basis"] == "unknown" and f["cost"]["claim"] == "No $ claimed"
    assert f["cost"]["candidate_per_accepted"] is None
    assert any("does not report whether it escalated" in w for w in f["why"]), f["why"]
    assert any(
        w.startswith(
            "Retry/repair/escalation rates: candidate 10%/unknown/unknown, incumbent 0%/0%/0%"
        )
        for w in f["why"]
    ), f["why"]
    (c,) = rep["comparisons"]
    assert c["rates"]["candidate_repair"] is None and c["rates"]["incumbent_retry"] == 0.0
    assert c["cost"]["candidate_unknown_cost_episodes"] == 360

    md = _md(run_cli, path)
    assert (
        f"- Retry / repair / escalation: {HAIKU} 10% / unknown / unknown; {SONNET} 0% / 0% / 0%"
        in md
    )
    assert f"| {HAIKU} | 360 | 100% | 90% [86%, 93%] | 10% | unknown | unknown |" in md
    assert f"| {SONNET} | 450 | 100% | 90% [87%, 92%] | 0% (of 300) | 0% | 0% |" in md


def test_escalation_is_unknown_unless_the_episode_says_true_or_false(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # A missing or null outcome.escalation, or one without a true/false `escalated`, says
    # nothing about an escalation: it read as `escalated: false`. Explicit false stays false.
    g = gen()
    variants: list[tuple[Any, bool | None]] = [
        ("absent", None),
        (None, None),
        ({}, None),
        ({"escalated": None, "toModel": None}, None),
        ({"escalated": False, "toModel": None}, False),
        ({"escalated": True, "toModel": SONNET}, True),
    ]
    for esc, _ in variants:
        ep = g.episode(model=HAIKU, success=True)
        if esc == "absent":
            del ep["outcome"]["escalation"]
        else:
            ep["outcome"]["escalation"] = esc
    ep = g.episode(model=HAIKU, success=False)
    del ep["outcome"]["retries"]
    ep["outcome"]["repairs"] = None
    path = str(g.write(tmp_path / "e.jsonl"))
    res = run_cli("routes", "export-router-rows", path, "--format", "json", "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [r["outcome"]["escalated"] for r in rows] == [v for _, v in variants] + [False]
    assert [(r["outcome"]["retries"], r["outcome"]["repairs"]) for r in rows] == [(0, 0)] * 6 + [
        (None, None)
    ]
    res = run_cli("routes", "export-router-rows", path, "--format", "csv", "--as-of", AS_OF)
    assert res.exit_code == 0, res.stderr
    last = list(csv.DictReader(io.StringIO(res.stdout)))[-1]
    assert last["outcome.retries"] == "" and last["outcome.repairs"] == ""


def test_fewer_repairs_escalations_needs_episodes_that_report_them(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # premium_justified may rest on "its repair + escalation rate is lower with the upper
    # bound < 0" (§6). Opus never reporting repairs or escalation read as 0 repairs and no
    # escalation: "materially fewer repairs/escalations" than haiku's reported 30%.
    g = gen()
    for activity, opus_reporting in (("silent", 0), ("few", 20), ("reported", 120)):
        for cx in ("low", "medium", "high"):
            start = len(g.episodes)
            g.cell(HAIKU, 150, 135, complexity=cx, activity=activity)
            for i, ep in enumerate(g.episodes[start:]):
                ep["outcome"]["repairs"] = 1 if i % 10 < 3 else 0
            start = len(g.episodes)
            g.cell(OPUS, 120, 108, complexity=cx, activity=activity)
            reporting = opus_reporting if cx == "low" else (120 if opus_reporting == 120 else 0)
            _unreport(g.episodes[start + reporting :], "repairs", "escalation")
    rep = report(str(g.write(tmp_path / "e.jsonl")))
    by_activity = {c["activity"]: c for c in rep["comparisons"]}
    premium = {f["activity"]: f for f in rep["findings"] if f["type"] == "premium_justified"}

    # The control: every episode reports, and opus's fewer repairs justify its premium.
    ok = by_activity["reported"]
    assert (ok["incumbent"]["model"], ok["candidate"]["model"]) == (HAIKU, OPUS)
    assert ok["conclusion"] == "non_inferior" and ok["premium_by"] == "repair_escalation"
    assert premium["reported"]["quality_metric"] == "share of episodes with a repair or escalation"

    silent, few = by_activity["silent"], by_activity["few"]
    assert "silent" not in premium and "few" not in premium
    assert silent["premium_by"] is None and few["premium_by"] is None
    assert (
        ok["historical"]["repair_escalation_candidate_reported"],
        ok["historical"]["repair_escalation_incumbent_reported"],
    ) == (360, 450)
    assert silent["historical"]["repair_escalation_effect"] is None  # no stratum reports both
    assert (
        "repairs/escalations not compared: episodes reporting both, in strata where both routes "
        "have some: candidate 0, incumbent 0 (minimum 30)"
    ) in silent["reasons"]
    # 20 opus episodes of the low stratum report (all without a repair): a share of 0 on 20
    # episodes, judged against haiku's 150 in that stratum only, is too thin to decide.
    assert few["historical"]["repair_escalation_candidate_reported"] == 20
    assert few["historical"]["repair_escalation_incumbent_reported"] == 150
    assert (
        "repairs/escalations not compared: episodes reporting both, in strata where both routes "
        "have some: candidate 20, incumbent 150 (minimum 30)"
    ) in few["reasons"]
    assert (
        few["rates"]["candidate_repair"] == 0.0 and few["rates"]["candidate_repair_reported"] == 20
    )
    assert silent["rates"]["candidate_escalation"] is None


def _forty_cheap_first(gen: Any) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """An opus cell, and 40 cheap-first operations (30 succeed on haiku, 8 escalate to opus,
    2 fail on haiku): the generator, the cascade's episodes, and its haiku episodes that
    did not escalate."""
    g = gen()
    g.cell(OPUS, 40, 38)
    start = len(g.episodes)
    g.cascade(40, cheap=HAIKU, premium=OPUS, direct_ok=30, escalate=8, premium_ok=8)
    cascade = g.episodes[start:]
    single = [
        ep
        for ep in cascade
        if ep["execution"]["model"] == HAIKU and not ep["outcome"]["escalation"]["escalated"]
    ]
    return g, cascade, single


def test_a_cascade_rates_and_first_attempt_cost_rest_on_reported_escalations(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # 40 cheap-first operations: 30 succeed on haiku, 8 escalate to opus, 2 fail on haiku.
    # Ten of the haiku successes follow a first haiku attempt that does not say whether it
    # escalated: those operations are not known not to have escalated (escalation rate 8/30,
    # not 8/40) and, on two attempts, not first-attempt successes. (One whose last attempt does
    # not say has an unknown cost: the next test.)
    g, _, single = _forty_cheap_first(gen)
    for ep in [ep for ep in single if ep["outcome"]["signals"][0]["value"] == "pass"][:10]:
        first = g.episode(
            model=HAIKU, success=None, kind="prospective", run_id=ep["source"]["runId"],
            fingerprint=ep["task"]["fingerprint"], cost=0.02,
        )  # fmt: skip
        first["execution"]["startedAt"] = first["execution"]["endedAt"] = "2025-02-19T00:00:00Z"
        first["outcome"]["escalation"] = None
    rep = report(str(g.write(tmp_path / "e.jsonl")))
    (k,) = rep["cascades"]
    (f,) = [f for f in rep["findings"] if f["activity"] == "documentation"]
    assert f["rates"]["candidate_escalation"] == 8 / 30
    # Operations known to end on their first attempt only: 22 at 0.01 for 20 accepted.
    assert round(k["cost"]["first_attempt_per_accepted"], 9) == 0.011
    assert (k["operations"], k["escalated_operations"], k["escalation_reported_operations"]) == (
        40,
        8,
        30,
    )
    assert (k["retry_reported_operations"], k["repair_reported_operations"]) == (40, 40)
    assert f["rates"]["candidate_escalation_reported"] == 30
    assert any(
        "of 40 operations, 30 report escalation, 40 retries and 40 repairs" in w for w in f["why"]
    ), f["why"]


def test_a_cascade_operation_ending_on_an_unreported_escalation_has_an_unknown_cost(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # Ten single-attempt haiku operations do not say whether they escalated, nor do the 8 opus
    # follow-ups of the escalated ones (which escalated anyway). Each may have had a follow-up
    # that is not in the input, so its cost is unknown, as a comparison and the matrix price
    # such an episode: no first-attempt, cascade or net figure (the first attempt was $0.011,
    # and a cascade_working finding claimed a saving), with the reasons. The baseline, opus
    # run directly (its 40 episodes, not these follow-ups), is known.
    g, cascade, single = _forty_cheap_first(gen)
    for ep in [ep for ep in single if ep["outcome"]["signals"][0]["value"] == "pass"][:10]:
        ep["outcome"]["escalation"] = None
    for ep in cascade:
        if ep["execution"]["model"] == OPUS:
            del ep["outcome"]["escalation"]
    rep = report(str(g.write(tmp_path / "e.jsonl")))
    (k,) = rep["cascades"]
    assert (k["operations"], k["escalated_operations"], k["escalation_reported_operations"]) == (
        40,
        8,
        30,
    )
    assert k["cost"]["basis"] == "unknown"
    assert k["cost"]["first_attempt_per_accepted"] is None
    assert k["cost"]["net_saving_per_accepted"] is None
    assert (k["grade"], k["would_be_type"]) == ("insufficient", None)
    assert k["reasons"] == [
        "18 of 40 operations end on an attempt that does not say whether it escalated (a "
        "follow-up it may have had is not in the input): their cost is unknown (never priced at "
        "0): No $ claimed",
        "acceptance not shown within the tolerance of the target route (lower bound -0.121 "
        "below -tolerance -0.050)",
    ]
    assert rep["findings"] == []


def test_markdown_newest_evidence_keeps_the_fraction_of_a_second(
    gen: Any, report: Any, run_cli: Any, tmp_path: Path
) -> None:
    # The JSON (iso()) keeps the fraction of a second; the markdown's "Newest evidence:"
    # sentence dropped it (strftime '%S'), so the two disagreed on the same time.
    g = gen()
    for activity in ("fraction", "whole"):
        for cx in ("low", "medium", "high"):
            g.cell(SONNET, 150, 135, complexity=cx, activity=activity)
            g.cell(HAIKU, 120, 108, complexity=cx, activity=activity)
        if activity == "fraction":
            for ep in g.episodes:
                ep["execution"]["endedAt"] = ep["execution"]["endedAt"].replace("Z", ".25Z")
    path = str(g.write(tmp_path / "e.jsonl"))
    rep = report(path)
    newest = {f["activity"]: f["freshness"]["newest_evidence"] for f in rep["findings"]}
    assert newest["fraction"].endswith(".250000Z")
    assert newest["whole"].endswith("Z") and "." not in newest["whole"]
    md = _md(run_cli, path)
    for activity, when in newest.items():
        card = md.split(f"#### {activity}: ")[1].split("\n#### ")[0]
        assert f"- Newest evidence: {when}; evidence harnesses: h1" in card, card
        (f,) = [f for f in rep["findings"] if f["activity"] == activity]
        assert any(w.startswith(f"Newest evidence: {when};") for w in f["why"])


def test_no_escalation_tax_is_claimed_from_unreported_escalations_and_retries(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # A cheap-first route that does not save (haiku here costs more than opus directly) is an
    # escalation tax only when escalations or retries are known to be behind it. With none
    # reported, nothing is claimed, and the cascade now says why instead of staying silent.
    # Retries go unreported everywhere; escalation on a first attempt, before a second one,
    # in 10 operations (an operation whose last attempt does not say has an unknown cost).
    g = gen()
    g.cell(OPUS, 50, 48)
    start = len(g.episodes)
    g.cascade(40, cheap=HAIKU, premium=OPUS, direct_ok=30, escalate=0, premium_ok=0, cheap_cost=0.2)
    for ep in g.episodes[start : start + 10]:
        first = g.episode(
            model=HAIKU, success=None, kind="prospective", run_id=ep["source"]["runId"],
            fingerprint=ep["task"]["fingerprint"], cost=0.2,
        )  # fmt: skip
        first["execution"]["startedAt"] = first["execution"]["endedAt"] = "2025-02-19T00:00:00Z"
        del first["outcome"]["escalation"]
    _unreport(g.episodes[start:], "retries")
    rep = report(str(g.write(tmp_path / "e.jsonl")))
    (k,) = rep["cascades"]
    assert k["cost"]["net_saving_per_accepted"] < 0
    assert k["would_be_type"] is None and rep["findings"] == []
    assert (
        "no saving, and no escalation or retry reported (escalation reported by 30, retries by 0 "
        "of 40 operations): no escalation tax claimed"
    ) in k["reasons"]
