"""Property tests: how the input is laid out never changes a run's scores (spec §1).

Events are grouped by run_id, never by file; exact duplicates are one event; inputs
are read in a deterministic order, but a run whose events all carry explicit seqs has
the same DAG whatever that order. So shuffling lines, splitting or concatenating
files, adding unrelated runs and duplicating lines leave every record unchanged
(compared without ``ts`` and ``source``, which name when and from where it was read),
and every score stays in [0, 1]. Only events with explicit seqs are generated: a
missing seq is the event's position in input order, so shuffling those legitimately
changes the run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ARCHETYPES = ["guardian", "Sage", " skeptic ", "trickster", "maker"]
SEVERITIES = ["warning", "BUG", "critical", "info", None]
KEYS = [None, "a.py", "B.py:2"]
DESCRIPTIONS = [None, "Missing validation", "missing validation ", "slow loop"]

finding = st.fixed_dictionaries(
    {},
    optional={
        "severity": st.sampled_from(SEVERITIES),
        "fix_required": st.sampled_from([True, False, "true", "TRUE", None]),
        "location": st.sampled_from(KEYS),
        "file": st.sampled_from(["x.py", "Y.py"]),
        "line": st.sampled_from([1, 7]),
        "description": st.sampled_from(DESCRIPTIONS),
    },
)


@st.composite
def event_body(draw: st.DrawFn) -> tuple[str, dict[str, Any], str | None]:
    """(type, data, agent) of one event."""
    kind = draw(
        st.sampled_from(
            [
                "review.verdict",
                "review.verdict",
                "fix.applied",
                "fix.applied",
                "agent.complete",
                "agent.start",
                "cycle.boundary",
                "note",
            ]
        )
    )
    agent = draw(st.sampled_from(ARCHETYPES + [None]))
    data: dict[str, Any] = {}
    if kind == "review.verdict":
        data["verdict"] = draw(st.sampled_from(["approved", " APPROVED", "needs_changes"]))
        data["findings"] = draw(st.lists(finding, max_size=3))
        if draw(st.booleans()) and draw(st.booleans()):
            data["cycle"] = draw(st.integers(1, 3))
    elif kind == "fix.applied":
        agent = None
        src = draw(st.sampled_from([None, "guardian", "Sage", ""]))
        if src is not None:
            data["source"] = src
        data["finding"] = draw(st.sampled_from(DESCRIPTIONS))
        data["location"] = draw(st.sampled_from(KEYS))
    elif kind in ("agent.complete", "agent.start"):
        for k, choices in (
            ("cost_usd", [None, 0, 0.01, 0.5]),
            ("estimated_cost_usd", [None, 0.02]),
            ("tokens", [None, 100]),
            ("tokens_input", [None, 40]),
            ("model", [None, "haiku", "sonnet", ""]),
        ):
            v = draw(st.sampled_from(choices))
            if v is not None:
                data[k] = v
    elif kind == "cycle.boundary":
        data["met"] = draw(st.booleans())
    return kind, data, agent


@st.composite
def run_lines(draw: st.DrawFn, run_id: str) -> list[str]:
    """One run: explicit seqs 1..n, parents among (mostly) earlier seqs, JSON lines."""
    n = draw(st.integers(2, 12))
    verdict_at = draw(st.integers(1, n))  # every run has a reviewer to score
    lines = []
    for seq in range(1, n + 1):
        kind, data, agent = draw(event_body())
        if seq == verdict_at and kind != "review.verdict":
            kind, data = "review.verdict", {"verdict": "approved", "findings": [{}]}
        parents = draw(st.lists(st.integers(1, n + 1), max_size=2, unique=True))
        form = draw(st.sampled_from(["list", "str", "int"]))
        parent: Any = parents
        if form == "str":
            parent = ",".join(str(p) for p in parents)
        elif form == "int" and len(parents) == 1:
            parent = parents[0]
        e = {
            "ts": f"2026-04-0{1 + seq % 9}T10:00:00Z",
            "run_id": run_id,
            "seq": seq,
            "parent": parent,
            "type": kind,
            "agent": agent,
            "data": data,
        }
        lines.append(json.dumps(e, separators=(",", ":")))
    if draw(st.integers(0, 9)) < 9:  # mostly complete runs (the simplest example too)
        lines.append(
            json.dumps(
                {
                    "ts": "2026-04-10T00:00:00Z",
                    "run_id": run_id,
                    "seq": n + 1,
                    "type": "run.complete",
                    "data": {},
                }
            )
        )
    return lines


@st.composite
def corpus(draw: st.DrawFn, prefix: str = "run") -> list[list[str]]:
    k = draw(st.integers(1, 3))
    return [draw(run_lines(f"{prefix}-{i}")) for i in range(k)]


def _write(tmp: Path, name: str, lines: list[str]) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return p


def _scores(h: Any, paths: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    recs = h.by_key(h.records(paths))
    for key, r in recs.items():
        for f in h.SCORE_FIELDS:
            v = r[f]
            if v is None:
                assert f == "cost_efficiency_norm", (key, f)
                continue
            assert 0.0 <= v <= 1.0 and math.isfinite(v), (key, f, v)
        assert r["findings_useful"] <= r["findings_total"]
        assert r["findings_contradicted"] <= r["findings_total"]
        assert isinstance(r["cycle_impact"], bool)
    return recs


_counter = [0]


def _fresh(tmp_path: Path) -> Path:
    """A new folder per hypothesis example (tmp_path is shared by all examples)."""
    _counter[0] += 1
    d = tmp_path / f"ex{_counter[0]}"
    d.mkdir()
    return d


# One property with every transformation toggled by hypothesis (two scorings per
# example keeps the suite fast on 2 cores); shrinking switches off the transformations
# a failure does not need, so a counterexample names the culprit.
@settings(max_examples=16)
@given(
    runs=corpus(),
    others=corpus(prefix="other"),
    shuffle=st.booleans(),
    add_unrelated=st.booleans(),
    duplicate=st.booleans(),
    n_files=st.integers(1, 4),
    as_directory=st.booleans(),
    data=st.data(),
)
def test_input_layout_never_changes_scores(
    tmp_path: Path,
    h: Any,
    runs: list[list[str]],
    others: list[list[str]],
    shuffle: bool,
    add_unrelated: bool,
    duplicate: bool,
    n_files: int,
    as_directory: bool,
    data: st.DataObject,
) -> None:
    d = _fresh(tmp_path)
    # Baseline: ArcheFlow's layout, one file per run.
    base = _scores(h, [_write(d, f"events/{i}.jsonl", run) for i, run in enumerate(runs)])

    lines = [line for run in runs for line in run]  # concatenated (an export)
    if add_unrelated:
        lines += [line for run in others for line in run]
    if duplicate:
        lines += data.draw(st.lists(st.sampled_from(lines), min_size=1, max_size=6))
    if shuffle:
        lines = list(data.draw(st.permutations(lines)))
    # Split into n_files: random assignment when shuffling, contiguous chunks otherwise.
    if shuffle:
        where = data.draw(
            st.lists(st.integers(0, n_files - 1), min_size=len(lines), max_size=len(lines))
        )
    else:
        cuts = sorted(
            data.draw(
                st.lists(st.integers(0, len(lines)), min_size=n_files - 1, max_size=n_files - 1)
            )
        )
        where = [sum(1 for c in cuts if c <= i) for i in range(len(lines))]
    chunks: list[list[str]] = [[] for _ in range(n_files)]
    for line, w in zip(lines, where, strict=True):
        chunks[w].append(line)
    paths = [
        _write(d, f"mixed/{'sub/' if i % 2 else ''}part{i}.jsonl", c) for i, c in enumerate(chunks)
    ]
    got = _scores(h, [d / "mixed"] if as_directory else list(data.draw(st.permutations(paths))))
    assert {k: v for k, v in got.items() if not k[0].startswith("other")} == base
    if add_unrelated:
        assert set(got) >= set(base)


@pytest.mark.parametrize("seed_run", ["run-0"])
def test_property_corpus_produces_records(tmp_path: Path, h: Any, seed_run: str) -> None:
    """Guard against a vacuous property: a typical generated run is scored."""
    lines = [
        json.dumps(
            {
                "run_id": seed_run,
                "seq": 1,
                "type": "review.verdict",
                "agent": "Sage",
                "data": {"verdict": "approved", "findings": []},
            }
        ),
        json.dumps({"run_id": seed_run, "seq": 2, "type": "run.complete", "data": {}}),
    ]
    recs = _scores(h, [_write(tmp_path, "one.jsonl", lines)])
    assert list(recs) == [(seed_run, "sage")]
