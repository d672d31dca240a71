"""runscore's routes pack vs the spec-only reference (routes_ref.py), on random corpora.

Each batch writes 25 seeded corpora (each with its own activities and episode ids) to one
file and scores it with one analyze() call: activities are scored apart, so a batch is 25
independent corpora at the cost of one run.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from runscore.engine.packs import routes

AS_OF = dt.datetime(2026, 5, 1)
BATCHES = 4
PER_BATCH = 25
#: The last batch runs under a policy other than the defaults (every setting moved), so the
#: thresholds are read from the policy, not from constants that happen to equal it.
POLICY = {
    "tolerance": 0.1,
    "min_labelled_per_route": 10,
    "min_pairs": 5,
    "max_ci_width": 0.4,
    "freshness_days": 7,
    "min_stratum_overlap": 0.3,
}


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_corpora_match_reference(routes_ref: ModuleType, tmp_path: Path, batch: int) -> None:
    seeds = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
    lines = [x for s in seeds for x in routes_ref.gen_corpus(random.Random(s), f"s{s}", AS_OF)]
    path = tmp_path / f"batch{batch}.jsonl"
    routes_ref.write(path, lines)
    pol = POLICY if batch == BATCHES - 1 else {}
    got = routes.analyze([str(path)], routes.build_policy(pol), as_of=AS_OF).to_dict()
    exp = routes_ref.evaluate(lines, AS_OF, policy=pol)
    diffs = routes_ref.diffs(exp, got)
    assert not diffs, f"{len(diffs)} differences (seeds {seeds}):\n" + "\n".join(diffs[:25])
    for f in got["findings"]:
        _summary_agrees_with_stale(f["freshness"], got["policy"]["freshness_days"])


def _summary_agrees_with_stale(fr: dict[str, Any], days: int) -> None:
    """The markdown's Freshness line (freshness.summary) says what freshness.stale holds,
    and the age it prints reads on the side of freshness_days that stale was judged on."""
    stale, said = fr["stale"], fr["summary"]
    if fr["newest_evidence"] is None:
        want = "unknown, treated as stale" if stale else "unknown"
        assert said.endswith(f"): {want}"), (stale, said)
        return
    # a time later on the as-of date than the clock (a later day dates nothing) has no
    # count of days: it is within freshness_days, as any before the clock within them
    if re.fullmatch(r"newest evidence \S+ \(later on the as-of date\): fresh \(within .*\)", said):
        assert fr["age_days"] < 0 and stale is False, (stale, said)
        return
    m = re.fullmatch(r"newest evidence \S+ \(([\d.]+) days? before the as-of date\): (.*)", said)
    assert m is not None, said
    age, verdict = float(m[1]), m[2]
    assert verdict.startswith("stale" if stale else "fresh"), (stale, said)
    assert (age > days) is bool(stale), (stale, days, said)


def test_random_corpora_reach_every_verdict(routes_ref: ModuleType) -> None:
    """The generator is worth its run time: across the seeds the reference meets every
    evidence source, conclusion, matrix grade and most finding types (a generator that only
    ever made thin corpora would agree with anything that refuses)."""
    seen: Counter[str] = Counter()
    for s in range(BATCHES * PER_BATCH):
        # under the policy its batch is scored with: a verdict only the last batch's reaches
        # (a proven cascade, so a proven matrix row) is compared there
        pol = POLICY if s >= (BATCHES - 1) * PER_BATCH else {}
        lines = routes_ref.gen_corpus(random.Random(s), f"s{s}", AS_OF)
        exp = routes_ref.evaluate(lines, AS_OF, policy=pol)
        seen.update(f"source:{c['evidence_source']}" for c in exp.comparisons)
        seen.update(f"conclusion:{c['conclusion']}" for c in exp.comparisons)
        seen.update(f"basis:{c['cost_basis']}" for c in exp.comparisons)
        seen.update(f"incumbent:{c['incumbent_source']}" for c in exp.comparisons)
        seen.update(f"finding:{f[0]}" for f in exp.findings)
        # the reasons of §6 "Output" are compared, on every kind of row that carries them
        seen.update("reasons:comparison" for c in exp.comparisons if c["reasons"])
        seen.update("reasons:cascade" for c in exp.cascades if c["reasons"])
        seen.update("reasons:finding" for f in exp.findings if f[6])
        seen.update(f"matrix:{m['grade']}" for m in exp.matrix)
        seen.update("stale" for c in exp.comparisons if c["stale"])
        # a cheap-first cascade that saves at grade proven while its activity now runs on a
        # harness its operations did not: evidence_drift, and still its entry route's matrix
        # grade (§6 "evidence_drift keeps the grade its evidence had")
        seen.update(
            "saving cascade, harness changed since"
            for c in exp.cascades
            if (c["would_be_type"], c["grade"], c["finding_type"])
            == ("cascade_working", "proven", "evidence_drift")
            and any(
                m["grade"] == "proven"
                and (m["host"], m["provider"], m["model"]) == c["entry_route"]
                for m in exp.matrix
                if m["activity"] == c["activity"]
            )
        )
        seen.update("rejected" for _ in exp.rejects)
    want = {
        "source:None",
        "source:historical",
        "source:paired",
        "conclusion:insufficient",
        "conclusion:inconclusive",
        "conclusion:non_inferior",
        "conclusion:candidate_better",
        "conclusion:incumbent_better",
        "basis:unknown",
        "basis:mixed",
        "basis:api_equivalent",
        "basis:observed",
        "incumbent:most labelled episodes",
        "incumbent:most episodes (tie on labelled episodes)",
        "incumbent:lexicographic order (tie on labelled and total episodes)",
        "finding:cheaper_equivalent",
        "finding:premium_justified",
        "finding:cascade_working",
        "finding:escalation_tax",
        "finding:evidence_drift",
        "finding:harness_change",
        "finding:blind_spot",
        "matrix:insufficient",
        "matrix:observed",
        "matrix:correlated",
        "matrix:verified",
        "matrix:proven",
        "stale",
        "saving cascade, harness changed since",
        "reasons:comparison",
        "reasons:cascade",
        "reasons:finding",
        "rejected",
    }
    assert want <= set(seen), sorted(want - set(seen))
