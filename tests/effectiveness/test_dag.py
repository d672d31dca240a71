"""Fix attribution on large DAGs (spec §3): deep chains and diamonds stay correct.

The walk must visit each ancestor once per fix: a lattice of diamonds with 3^25
distinct paths only finishes if it does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHAIN = 3000


def _chain_run(h: Any, run: str, verdicts: dict[int, str]) -> list[dict[str, Any]]:
    """seq 1..CHAIN, each the child of the one before; a fix (no source) at the bottom."""
    evs = []
    for seq in range(1, CHAIN + 1):
        parent = [seq - 1] if seq > 1 else []
        if seq in verdicts:
            evs.append(
                h.ev(
                    seq,
                    "review.verdict",
                    run=run,
                    parent=parent,
                    agent=verdicts[seq],
                    verdict="needs_changes",
                    findings=[{"severity": "bug", "fix_required": True}],
                )
            )
        else:
            evs.append(h.ev(seq, "agent.complete", run=run, parent=parent, agent="maker"))
    evs.append(h.ev(CHAIN + 1, "fix.applied", run=run, parent=[CHAIN]))
    evs.append(h.ev(CHAIN + 2, "run.complete", run=run, parent=[CHAIN + 1], status="done"))
    return evs


def test_deep_chain_is_walked_to_the_nearest_verdict(tmp_path: Path, h: Any) -> None:
    # run deep: the only verdict is at the very top, 3,000 edges above the fix.
    # run stop: a second verdict halfway down: the walk stops there (sage only).
    evs = _chain_run(h, "deep", {1: "guardian"}) + _chain_run(
        h, "stop", {1: "guardian", CHAIN // 2: "sage"}
    )
    path = h.write_jsonl(tmp_path / "chain.jsonl", evs)
    con = h.build([path])
    got = con.sql(
        "SELECT run_id, fix_seq, archetype, via FROM fix_attribution ORDER BY ALL"
    ).fetchall()
    assert got == [
        ("deep", CHAIN + 1, "guardian", "dag"),
        ("stop", CHAIN + 1, "sage", "dag"),
    ]
    recs = h.by_key(h.rows(con, "SELECT * FROM history_records"))
    assert recs[("deep", "guardian")]["fixes_applied"] == 1
    assert recs[("deep", "guardian")]["fix_rate"] == 1.0
    assert recs[("stop", "guardian")]["fixes_applied"] == 0
    assert recs[("stop", "sage")]["fixes_applied"] == 1


def test_diamond_lattice_visits_each_ancestor_once(tmp_path: Path, h: Any) -> None:
    """25 layers of 3 nodes, each node a child of every node of the layer above."""
    layers, width = 25, 3
    evs: list[dict[str, Any]] = [
        h.ev(
            1,
            "review.verdict",
            run="lat",
            agent="guardian",
            verdict="needs_changes",
            findings=[{"severity": "warning", "fix_required": True}],
        ),
        h.ev(2, "review.verdict", run="lat", agent="Skeptic", verdict="needs_changes"),
    ]
    prev = [1, 2]
    seq = 3
    for _ in range(layers):
        layer = list(range(seq, seq + width))
        for s in layer:
            evs.append(h.ev(s, "agent.complete", run="lat", parent=prev, agent="maker"))
        prev, seq = layer, seq + width
    evs.append(h.ev(seq, "fix.applied", run="lat", parent=prev))
    evs.append(h.ev(seq + 1, "fix.applied", run="lat", parent=[prev[0], 1]))
    evs.append(h.ev(seq + 2, "run.complete", run="lat", parent=[seq + 1]))
    path = h.write_jsonl(tmp_path / "lattice.jsonl", evs)
    con = h.build([path])
    got = con.sql("SELECT fix_seq, archetype FROM fix_attribution ORDER BY ALL").fetchall()
    assert got == [(seq, "guardian"), (seq, "skeptic"), (seq + 1, "guardian"), (seq + 1, "skeptic")]
    recs = h.by_key(h.rows(con, "SELECT * FROM history_records"))
    assert recs[("lat", "guardian")]["fixes_applied"] == 2
    assert recs[("lat", "skeptic")]["fixes_applied"] == 2
    # guardian: 1 finding, 2 fixes → fix_rate capped at 1; skeptic has no findings → 0.
    assert recs[("lat", "guardian")]["fix_rate"] == 1.0
    assert recs[("lat", "skeptic")]["fix_rate"] == 0.0
