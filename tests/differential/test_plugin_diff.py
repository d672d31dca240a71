"""runscore's plugin pack vs the spec-only reference (plugin_ref.py), on random corpora.

Each batch writes 20 seeded corpora (each its own skill folders, judge, Monte Carlo and
matchup lines) under one root and scores them in one run: skills are scored apart, so a
batch is 20 independent corpora at the cost of one run. The last batch goes through the CLI
(`plugin score --format json`), the others through the Python API (with the ranking).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import Result
from runscore.engine.packs import plugin as engine

BATCHES = 3
PER_BATCH = 20

Batch = tuple[Path, dict[str, Path], Any]


@pytest.fixture(scope="module")
def batches(plugin_ref: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> list[Batch]:
    """Each batch's root, input files and the reference's result, written and worked out once
    for the comparison and the coverage check."""
    out = []
    for batch in range(BATCHES):
        seeds = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
        corpora = [plugin_ref.gen_corpus(random.Random(s), f"s{s}") for s in seeds]
        root, files = plugin_ref.write(tmp_path_factory.mktemp(f"plugin{batch}"), corpora)
        out.append((root, files, plugin_ref.evaluate(root, *files.values())))
    return out


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_corpora_match_reference(
    plugin_ref: ModuleType, batches: list[Batch], run_cli: Callable[..., Result], batch: int
) -> None:
    root, files, exp = batches[batch]
    diffs: list[str] = []
    if batch < BATCHES - 1:
        result, con = engine.evaluate([str(root)], **{k: str(v) for k, v in files.items()})
        con.close()
        skills, ranking = result.skills(), result.ranking.to_pylist()
        issues = {(Path(i.file).name, i.line) for i in result.issues}
        if issues != exp.issues:
            diffs.append(f"rejected: runscore {sorted(issues)} != spec {sorted(exp.issues)}")
    else:
        args = [a for k, p in files.items() for a in (f"--{k}", str(p))]
        r = run_cli("plugin", "score", str(root), *args, "--format", "json", "--no-history")
        assert r.exit_code == (1 if exp.issues else 0), r.stderr
        skills = json.loads(r.stdout)
        ranking = [{"skill": k, "rank": i} for i, k in enumerate(exp.ranking)]  # not shown here
    diffs += plugin_ref.diffs(exp, skills, ranking)
    seeds = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
    assert not diffs, f"{len(diffs)} differences (seeds {seeds}):\n" + "\n".join(diffs[:25])


def test_random_corpora_reach_every_verdict(batches: list[Batch]) -> None:
    """The generator is worth its run time: across the seeds the reference meets every flag,
    grade, badge and depth, judges that agree and disagree, Monte Carlo runs with and without
    token counts, Elo intervals, and rejected lines of every input (a generator that only made
    clean skills would agree with anything)."""
    seen: Counter[str] = Counter()
    for _, _, exp in batches:
        for s in exp.skills.values():
            seen.update(f"flag:{a['flag']}" for a in s["static"]["anti_patterns"])
            seen.update((f"grade:{s['grade']}", f"badge:{s['badge']}", f"depth:{s['depth']}"))
            seen.update(f"dim:{d['grade']}" for d in s["dimensions"].values() if d)
            if s["judges"] and s["judges"]["kappa"] is not None:
                seen["kappa:" + ("1" if s["judges"]["kappa"] == 1 else "<1")] += 1
            if s["mc"]:
                seen[f"mc_tokens:{s['mc']['efficiency_norm'] is not None}"] += 1
                seen[f"mc_quality:{s['mc']['mean_quality'] is not None}"] += 1
            if s["elo"]:
                point = s["elo"]["ci_low"] == s["elo"]["ci_high"]
                seen["elo:" + ("point" if point else "interval")] += 1
            pd = s["static"]["sub_scores"]["progressive_disclosure"]
            seen[f"pd:{round(pd, 2)}"] += 1
        seen.update(f"rejected:{f}" for f, _ in exp.issues)
    flags = ("OVER_CONSTRAINED", "EMPTY_DESCRIPTION", "MISSING_TRIGGER", "BLOATED_SKILL")
    want = {f"flag:{f}" for f in (*flags, "ORPHAN_REFERENCE", "DEAD_CROSS_REF")}
    want |= {f"grade:{g}" for g in ("A+", "A", "A-", "B+", "B", "C", "D", "F")}
    want |= {f"badge:{b}" for b in ("Platinum", "Gold", "Silver", "Bronze", "none")}
    want |= {f"depth:{d}" for d in ("quick", "standard", "deep")}
    want |= {"dim:A+", "dim:F", "kappa:1", "kappa:<1", "mc_tokens:True", "mc_tokens:False"}
    want |= {"mc_quality:True", "mc_quality:False", "elo:point", "elo:interval"}
    want |= {"pd:0.15", "pd:0.2", "pd:0.4", "pd:0.5", "pd:0.6", "pd:0.75", "pd:0.85", "pd:1.0"}
    want |= {"rejected:judge.jsonl", "rejected:mc.jsonl", "rejected:matchups.jsonl"}
    assert want <= set(seen), sorted(want - set(seen))
