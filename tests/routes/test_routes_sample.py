"""`runscore routes` on the bundled sample episodes (README's routes example,
examples/project/.archeflow/episodes), through the CLI, against goldens beside this file.

The routes pack has no worked example in the shared examples; the sample is the one a
user runs first, so its every number is pinned here, and the ones the spec defines are
worked by hand below (routes.md §3, §6; the README's interval methods):

- historical stratum (low, h1): sonnet 18/20, haiku 17/20; effect 0.05, Newcombe method 10
  from Wilson limits [-0.173487, 0.272440], width 0.445927 > max_ci_width 0.25;
- paired: 10 fixtures, 9 both succeeded, 1 sonnet only; effect (b - c)/n = 0.1, Newcombe's
  paired interval (phi = 0: no pair failed on both) [-0.189428, 0.404150];
- matrix: haiku 26/30 Wilson [0.703187, 0.946903], $0.30 / 26 accepted; sonnet 28/30
  [0.786765, 0.981523], $0.90 / 28 accepted;
- newest evidence 2026-11-14T16:55:30Z, 22.2948 days before the as-of date: fresh.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
SAMPLE = HERE.parents[1] / "examples" / "project" / ".archeflow" / "episodes" / "episodes.jsonl"
AS_OF = "2026-12-07T00:00:00Z"

RUNS = (
    (("--format", "markdown"), "sample.md"),
    (("--format", "json"), "sample.json"),
    (("--format", "csv"), "sample_findings.csv"),
    (("--format", "csv", "--table", "comparisons"), "sample_comparisons.csv"),
    (("--format", "csv", "--table", "matrix"), "sample_matrix.csv"),
)


@pytest.fixture
def sample(tmp_path: Path) -> str:
    """The sample copied to <cwd>/episodes/, so its path prints the same everywhere."""
    (tmp_path / "episodes").mkdir()
    shutil.copy(SAMPLE, tmp_path / "episodes" / "episodes.jsonl")
    return "episodes"


@pytest.mark.parametrize(("args", "name"), RUNS, ids=[name for _, name in RUNS])
def test_sample_matches_golden(run_cli: Any, sample: str, args: tuple[str, ...], name: str) -> None:
    res = run_cli("routes", "report", sample, "--as-of", AS_OF, *args)
    assert (res.exit_code, res.stderr) == (0, "")
    assert res.stdout == (GOLDEN / name).read_text(encoding="utf-8"), name


def test_sample_numbers_worked_by_hand(run_cli: Any, sample: str) -> None:
    res = run_cli("routes", sample, "--as-of", AS_OF, "--format", "json")
    rep = json.loads(res.stdout)
    assert rep["findings"] == [] and rep["cascades"] == []
    (c,) = rep["comparisons"]
    assert (c["incumbent"]["model"], c["candidate"]["model"]) == (
        "claude-haiku-4",
        "claude-sonnet-4",
    )
    hist, paired = c["historical"], c["paired"]
    assert (hist["candidate_labelled"], hist["candidate_successes"]) == (20, 18)
    assert (hist["incumbent_labelled"], hist["incumbent_successes"]) == (20, 17)
    assert hist["effect"] == pytest.approx(0.05, abs=1e-9)
    assert (hist["ci_low"], hist["ci_high"], hist["ci_width"]) == pytest.approx(
        (-0.173487, 0.272440, 0.445927), abs=1e-6
    )
    assert (paired["pairs"], paired["both_success"], paired["candidate_only"]) == (10, 9, 1)
    assert (paired["incumbent_only"], paired["both_fail"]) == (0, 0)
    assert paired["effect"] == pytest.approx(0.1, abs=1e-9)
    assert (paired["ci_low"], paired["ci_high"]) == pytest.approx((-0.189428, 0.404150), abs=1e-6)
    # Neither evidence is sufficient (20 < 30 labelled, 10 < 20 pairs): no grade above
    # insufficient, and no finding.
    assert (c["grade"], c["evidence_source"], c["finding_type"]) == ("insufficient", None, None)
    assert c["freshness"]["stale"] is False
    assert c["freshness"]["age_days"] == pytest.approx(22 + (7 * 3600 + 4 * 60 + 30) / 86400)
    cells = {m["model"]: m for m in rep["matrix"]}
    haiku, sonnet = cells["claude-haiku-4"], cells["claude-sonnet-4"]
    assert (haiku["successes"], haiku["labelled"], sonnet["successes"], sonnet["labelled"]) == (
        26,
        30,
        28,
        30,
    )
    assert (haiku["success_ci_low"], haiku["success_ci_high"]) == pytest.approx(
        (0.703187, 0.946903), abs=1e-6
    )
    assert (sonnet["success_ci_low"], sonnet["success_ci_high"]) == pytest.approx(
        (0.786765, 0.981523), abs=1e-6
    )
    assert haiku["cost_per_accepted"] == pytest.approx(0.30 / 26, abs=1e-12)
    assert sonnet["cost_per_accepted"] == pytest.approx(0.90 / 28, abs=1e-12)
    # The CSV's comparisons row says the same numbers as the JSON.
    rows = list(csv.DictReader(io.StringIO((GOLDEN / "sample_comparisons.csv").read_text())))
    assert [(r["historical.ci_width"], r["paired.pairs"]) for r in rows] == [("0.445927", "10")]
