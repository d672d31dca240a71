"""Minimal cases for the disagreements the differential run found, and for the readings
of ambiguous spec text that runscore (and the reference) take."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

from click.testing import CliRunner
from runscore.cli.main import cli


def _legacy(run: int, arch: str, composite: float, model: str) -> dict[str, Any]:
    """An ArcheFlow shell-scorer line: the 15 fields only (→ archeflow-legacy, run_ts = ts)."""
    return {
        "ts": f"2026-03-01T10:{run:02d}:00Z",
        "run_id": f"run-{run:02d}",
        "archetype": arch,
        "signal_to_noise": 0.5,
        "fix_rate": 0.5,
        "cost_efficiency": 0,
        "accuracy": 1,
        "cycle_impact": False,
        "composite_score": composite,
        "tokens": 0,
        "cost_usd": 0,
        "model": model,
        "findings_total": 0,
        "findings_useful": 0,
        "fixes_applied": 0,
    }


def _json(*args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.stderr
    rows: list[dict[str, Any]] = json.loads(res.stdout)
    return rows


def test_legacy_lines_are_aggregated_by_section_5(tmp_path: Path, ref: ModuleType) -> None:
    """archeflow-legacy used ArcheFlow's own `report` quirks (2-decimal comparisons, exact
    tier names, alphabetical model tie, unrounded trend delta); §8 changes only extract,
    so §5 and the README's 6-decimal rule apply to legacy lines too."""
    lines = [_legacy(1, "rounding", 0.696, "haiku")]
    lines += [_legacy(i, "margin", 0.70 if i <= 5 else 0.75, "gpt-4o") for i in range(1, 11)]
    lines += [_legacy(1, "tiers", 0.9, "claude-3-5-haiku")]
    lines += [_legacy(1, "tie", 0.5, "opus"), _legacy(2, "tie", 0.5, "haiku")]
    lines += [_legacy(3, "tie", 0.5, "opus"), _legacy(4, "tie", 0.5, "haiku")]
    text = "".join(json.dumps(r) + "\n" for r in lines)
    hist = tmp_path / "h.jsonl"
    hist.write_text(text)
    got = {r["archetype"]: r for r in _json("report", "--history", str(hist), "--format", "json")}
    assert {a: r["scoring_version"] for a, r in got.items()} == dict.fromkeys(
        got, "archeflow-legacy"
    )
    # 0.696 is below 0.70 at 6 decimals (ArcheFlow's 2-decimal rounding said keep)
    assert (got["rounding"]["recommendation"], got["rounding"]["suggestion"]) == (
        "optimize",
        "none",
    )
    # delta 0.75 - 0.70 = 0.050000000000000044 → 0.05 at 6 decimals: not > 0.05
    assert got["margin"]["trend"] == "stable"
    # tiers match by case-insensitive substring, not exact name
    assert got["tiers"]["suggestion"] == "keep"
    # 2 × opus, 2 × haiku: the most recently used wins (alphabetical would say haiku)
    assert got["tie"]["model"] == "haiku"
    lines.append(_legacy(5, "tie", 0.5, "opus"))
    hist.write_text(text + json.dumps(lines[-1]) + "\n")
    got = {r["archetype"]: r for r in _json("report", "--history", str(hist), "--format", "json")}
    assert got["tie"]["model"] == "opus"
    assert not ref.diff_rows(
        list(got.values()), ref.ref_report(hist.read_text()), ref.REPORT_KEYS, ("archetype",)
    )

    team = tmp_path / "team.yaml"
    team.write_text("check: [rounding, tiers]\nmodel_overrides: {rounding: haiku}\n")
    rec = _json("recommend", str(team), "--history", str(hist), "--format", "json")
    # 0.696 with a cheap model: upgrade (the 2-decimal comparison said keep)
    assert [(r["archetype"], r["action"]) for r in rec] == [
        ("rounding", "upgrade"),
        ("tiers", "keep"),
    ]
    assert not ref.diff_rows(
        rec,
        ref.ref_recommend(hist.read_text(), team.read_text()),
        ref.RECOMMEND_KEYS,
        ("archetype",),
    )


def test_ambiguous_readings_runscore_takes(tmp_path: Path, ref: ModuleType) -> None:
    """§6 is ambiguous in two places; these pin the reading runscore (and the reference)
    takes, so a change of reading is a visible decision."""
    # "the most frequent model in its history": every run, not the recent window (§5's
    # model): runs 1-8 opus, 9-14 haiku → all runs say opus, the last 10 say haiku.
    # (runscore read the window until this cycle: a member advised as haiku, `keep`.)
    lines = [
        _legacy(i, "custom-reviewer", 0.8, "opus" if i <= 8 else "haiku") for i in range(1, 15)
    ]
    hist = tmp_path / "h.jsonl"
    hist.write_text("".join(json.dumps(r) + "\n" for r in lines))
    # "first-seen order" of "the union of the plan, do, check lists, an optional
    # archetypes: list, and the keys of model_overrides": that order, not the file's keys.
    team = tmp_path / "team.yaml"
    team.write_text("model_overrides: {sage: opus}\ncheck: [custom-reviewer]\nplan: [explorer]\n")
    rec = _json("recommend", str(team), "--history", str(hist), "--format", "json")
    assert [(r["archetype"], r["current_model"], r["action"]) for r in rec] == [
        ("explorer", "haiku", "not_scored"),
        ("custom-reviewer", "opus", "downgrade"),
        ("sage", "opus", "no_data"),
    ]
    assert not ref.diff_rows(
        rec,
        ref.ref_recommend(hist.read_text(), team.read_text()),
        ref.RECOMMEND_KEYS,
        ("archetype",),
    )
