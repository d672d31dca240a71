"""Spec routes.md §6–§7: a configured incumbent's ties are broken by the spec's order (the
output is byte-identical run to run), and equal known costs make no route cheaper."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

AS_OF = "2025-03-01T00:00:00Z"
HAIKU, SONNET = "claude-haiku-4", "claude-sonnet-4"


def test_a_configured_incumbent_tie_goes_by_the_spec_order_every_time(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two routes the policy names (model only), equal in labelled and all episodes: the
    # tie goes to the lexicographically first host. With the order left partial, DuckDB's
    # threads picked either (15 of 20 runs one way, on two threads).
    monkeypatch.setenv("RUNSCORE_THREADS", "2")
    lines = [
        {
            "episodeId": f"e{i}",
            "activity": {"id": "doc"},
            "execution": {
                "host": host,
                "inferenceProvider": "anthropic",
                "model": SONNET,
                "startedAt": "2025-02-20T00:00:00Z",
            },
            "outcome": {"signals": [{"kind": "gate", "value": "pass"}]},
        }
        for i, host in enumerate(("zed", "aider", "zed", "aider"))
    ]
    path = str(tmp_path / "t.jsonl")
    Path(path).write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "pol.yaml").write_text("incumbents:\n  doc: {model: claude-sonnet-4}\n")
    outs = set()
    incumbents = set()
    for _ in range(20):
        res = run_cli(
            "routes", path, "--format", "json", "--as-of", AS_OF,
            "--policy", str(tmp_path / "pol.yaml"),
        )  # fmt: skip
        assert res.exit_code == 0, res.stderr
        outs.add(hashlib.sha256(res.stdout.encode()).hexdigest())
        (c,) = json.loads(res.stdout)["comparisons"]
        incumbents.add((c["incumbent"]["host"], c["incumbent"]["source"], c["candidate"]["host"]))
    assert incumbents == {("aider", "configured", "zed")}
    assert len(outs) == 1


def test_equal_known_costs_make_no_route_cheaper(gen: Any, report: Any, tmp_path: Path) -> None:
    # Both costs known on one basis and equal: neither route is cheaper, so no
    # cheaper_equivalent — the tier table decides only when a cost is unknown (§6).
    g = gen()
    g.cell(SONNET, 60, 60, cost=0.02)
    g.cell(HAIKU, 50, 50, cost=0.02)
    rep = report(str(g.write(tmp_path / "e.jsonl")), "--tolerance", "0.1")
    assert [f for f in rep["findings"] if f["type"] == "cheaper_equivalent"] == []
    (c,) = rep["comparisons"]
    assert c["cost"]["cheaper_by"] is None and c["cost"]["cheaper_route"] is None
    assert "both routes cost the same per accepted outcome: neither is cheaper" in c["reasons"]
    # One cost unknown: the tier table decides again.
    g2 = gen()
    g2.cell(SONNET, 60, 60, cost=0.02)
    g2.cell(HAIKU, 50, 50, cost=None, basis="unknown")
    rep2 = report(str(g2.write(tmp_path / "u.jsonl")), "--tolerance", "0.1")
    (c2,) = rep2["comparisons"]
    assert c2["cost"]["cheaper_by"] == "tier" and c2["cost"]["cheaper_route"] == "candidate"
    assert [f["type"] for f in rep2["findings"]].count("cheaper_equivalent") == 1


def _prospective_only_candidate(g: Any, tmp_path: Path) -> Path:
    """A sonnet cell, and a haiku route seen only in two cheap-first (prospective) runs."""
    g.cell(SONNET, 3, 3)
    for i in range(2):
        g.episode(model=HAIKU, success=True, kind="prospective", run_id=f"run{i}", fingerprint="t")
    path: Path = g.write(tmp_path / "p.jsonl")
    return path


def test_a_route_with_only_prospective_episodes_is_still_a_compared_pair(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # §6: `comparisons` has every incumbent–candidate pair per activity, insufficient
    # ones included; a cheap route seen only in cheap-first (prospective) runs was left
    # out, and the markdown then said the activity had a single route.
    rep = report(str(_prospective_only_candidate(gen(), tmp_path)))
    (c,) = rep["comparisons"]
    assert (c["incumbent"]["model"], c["candidate"]["model"]) == (SONNET, HAIKU)
    assert c["grade"] == "insufficient" and c["reasons"]


def test_an_escalation_without_a_fingerprint_has_an_unknown_follow_up_cost(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # The follow-up of an escalation is the attempt of the same operation (runId and task
    # fingerprint, §6) on toModel. An escalated historical episode with a runId but no
    # fingerprint matched every same-run episode on toModel that had none either (NULL "not
    # distinct" from NULL): four unrelated tasks' costs and successes were added to it, so the
    # cheap route was charged 0.01 + 4 x 0.03 and counted as accepted. Without a fingerprint
    # its follow-up cannot be told apart, so its cost is unknown and it is not accepted. With
    # a fingerprint, only the one follow-up attempt is added.
    g = gen()
    for activity, run, fp in (("doc", "r1", None), ("review", "r2", "t9")):
        esc = g.episode(
            model=HAIKU, success=False, activity=activity, run_id=run,
            escalated=True, to_model=SONNET,
        )  # fmt: skip
        esc["task"]["fingerprint"] = fp
        g.episode(model=HAIKU, success=True, activity=activity)
        g.episode(model=HAIKU, success=True, activity=activity)
        # Four tasks of the run on toModel: with a fingerprint, the first is the follow-up.
        for k in range(4):
            task = g.episode(model=SONNET, success=True, activity=activity, run_id=run)
            task["task"]["fingerprint"] = fp if k == 0 or fp is None else f"other-{k}"
    rep = report(str(g.write(tmp_path / "e.jsonl")))
    got = {
        c["activity"]: (
            c["candidate"]["model"],
            c["cost"]["candidate_basis"],
            c["cost"]["candidate_accepted"],
            c["cost"]["candidate_unknown_cost_episodes"],
            c["cost"]["candidate_per_accepted"],
        )
        for c in rep["comparisons"]
    }
    assert got == {
        "doc": (HAIKU, "unknown", 2, 1, None),
        "review": (HAIKU, "api_equivalent", 3, 0, pytest.approx((0.01 * 3 + 0.03) / 3)),
    }


def test_a_comparison_with_no_evidence_on_either_side_has_an_unknown_cost_basis(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # No compared stratum and no pair: no episode on either side, so no cost is known. The
    # comparison's cost basis read 'mixed' (bases that differ), the routes' null.
    rep = report(str(_prospective_only_candidate(gen(), tmp_path)))
    (c,) = rep["comparisons"]
    assert c["evidence_episodes"] == 0
    cost = c["cost"]
    assert (cost["basis"], cost["candidate_basis"], cost["incumbent_basis"]) == (
        "unknown",
        "unknown",
        "unknown",
    )
    assert (cost["candidate_per_accepted"], cost["incumbent_per_accepted"]) == (None, None)


def test_an_observed_cost_with_no_cost_basis_is_an_observed_cost(
    gen: Any, report: Any, tmp_path: Path
) -> None:
    # §1 "an unknown cost is never priced by assumption". An episode giving observedCostUsd
    # and no usage.costBasis had an unknown cost ("No $ claimed"), though that field holds
    # observed cash and nothing else: the cost is stated, not assumed. It is observed now.
    # apiEquivalentCostUsd alone is read by api_equivalent and subscription alike, and with
    # both figures which one is the cost is open: those stay unknown, never priced.
    g = gen()
    for activity, basis in (("obs", "observed"), ("api", "api_equivalent"), ("both", "observed")):
        g.cell(HAIKU, 40, 40, cost=0.01, basis=basis, activity=activity)
    for ep in g.episodes:
        del ep["usage"]["costBasis"]
        if ep["activity"]["id"] == "both":
            ep["usage"]["apiEquivalentCostUsd"] = 0.02
    rep = report(str(g.write(tmp_path / "b.jsonl")))
    got = {m["activity"]: (m["cost_basis"], m["cost_per_accepted"]) for m in rep["matrix"]}
    assert got == {
        "obs": ("observed", pytest.approx(0.01)),
        "api": ("unknown", None),
        "both": ("unknown", None),
    }


def test_a_route_that_differs_only_by_provider_gets_no_route_command(
    gen: Any, run_cli: Any, tmp_path: Path
) -> None:
    # claude-sonnet-4 through bedrock (150 episodes, $0.01) is equivalent to, and cheaper than,
    # claude-sonnet-4 through anthropic (200, $0.03), both on claude-code. The finding was
    # actionable with `ak host pick --route 'documentation:claude-code:claude-sonnet-4'` —
    # the incumbent's own route, as the command names no provider — and read "claude-sonnet-4
    # is associated with a success rate within 0.050 of claude-sonnet-4".
    g = gen()
    g.cell(SONNET, 200, 180)
    g.cell(SONNET, 150, 138, cost=0.01, host="claude-code")
    for ep in g.episodes[200:]:
        ep["execution"]["inferenceProvider"] = "bedrock"
    path = str(g.write(tmp_path / "providers.jsonl"))
    res = run_cli("routes", "report", "--format", "json", "--as-of", AS_OF, path)
    assert res.exit_code == 0, res.stderr
    (f,) = json.loads(res.stdout)["findings"]
    assert (f["type"], f["grade"], f["actionable"], f["command"]) == (
        "cheaper_equivalent", "correlated", False, None,
    )  # fmt: skip
    assert f["headline"] == (
        "claude-sonnet-4 via claude-code/bedrock is associated with a success rate within 0.050 "
        "of claude-sonnet-4 via claude-code/anthropic in matched historical documentation strata "
        "(difference +0.020, 95% CI [-0.045, +0.080]), at lower cost per accepted outcome."
    )
    assert (
        "No route command: the routes differ only by inference provider (bedrock vs anthropic), "
        "which ak host pick --route '<activity>:<host>:<model>' does not name."
    ) in f["why"]
    res = run_cli("routes", "report", "--format", "markdown", "--as-of", AS_OF, path)
    assert res.exit_code == 0, res.stderr
    assert (
        "#### documentation: claude-sonnet-4 via claude-code/bedrock vs claude-sonnet-4 via "
        "claude-code/anthropic — grade correlated\n"
    ) in res.stdout
    assert "Route command:" not in res.stdout
    assert (
        "| documentation | claude-sonnet-4 via claude-code/anthropic | claude-sonnet-4 via "
        "claude-code/bedrock | 1 |"
    ) in res.stdout
