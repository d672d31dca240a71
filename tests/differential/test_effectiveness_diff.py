"""runscore's effectiveness extract vs the spec-only reference (conftest.py), on random corpora.

Corpora are seeded and batched: every corpus has its own run_id prefix and its chunks
are appended to a few shared files, so one extract call scores a hundred corpora (runs
are grouped by run_id, never by file) and the suite stays fast.
"""

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
    corpora = [ref.gen_effectiveness_corpus(random.Random(s), f"s{s}") for s in seeds]
    files = ref.write_batch(random.Random(-batch), tmp_path, f"b{batch}", corpora)
    exp, got = ref.eff_run(files, tmp_path)
    diffs = ref.eff_diffs(exp, got)
    assert not diffs, f"{len(diffs)} differences (seeds {seeds}):\n" + "\n".join(diffs[:25])
    # The comparison is not vacuous: the batch scored records and hit the edge cases.
    assert len(exp.records) > 150 and exp.incomplete and exp.invalid and exp.skipped
