"""runscore's pipeline evaluation vs the spec-only reference (conftest.py), on random corpora."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

BATCHES = 4
PER_BATCH = 100


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_corpora_match_reference(ref: ModuleType, tmp_path: Path, batch: int) -> None:
    seeds = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
    corpora = [ref.gen_pipeline_corpus(random.Random(s), f"s{s}") for s in seeds]
    rng = random.Random(-batch)
    tasks = ref.write_batch(rng, tmp_path, f"tasks{batch}", [c for c, _ in corpora])
    plans = ref.write_batch(rng, tmp_path, f"plans{batch}", [[p] for _, p in corpora])
    exp, got = ref.pipe_run(tasks, plans)
    diffs = ref.pipe_diffs(exp, got)
    assert not diffs, f"{len(diffs)} differences (seeds {seeds}):\n" + "\n".join(diffs[:25])
    verdicts = {p["verdict"] for p in exp.pipelines.values() if p["status"] == "scored"}
    assert verdicts == {"EXCELLENT", "GOOD", "ACCEPTABLE", "NEEDS_IMPROVEMENT"}
    assert any(p["status"] == "not_terminal" for p in exp.pipelines.values())
