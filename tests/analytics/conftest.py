"""Helpers for the effectiveness-history analytics tests (report, recommend, sql, export)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
GOLDEN = HERE / "golden"

#: The fixed history behind the golden files: ties (run_ts, ts, model counts), nulls,
#: unknown and zero costs, a re-scored run, legacy lines, unicode and hostile names,
#: a foreign line, a line with a non-numeric score and a torn last line.
GOLDEN_HISTORY = DATA / "history.jsonl"


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """Compare text with tests/analytics/golden/<name>; RUNSCORE_UPDATE_GOLDEN=1 rewrites."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("RUNSCORE_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert path.is_file(), f"missing golden file {path}"
        assert text == path.read_text(encoding="utf-8")

    return check


def record(
    run_id: str,
    archetype: str,
    composite: float,
    run_ts: str,
    *,
    version: str | None = "effectiveness/v1",
    model: str | None = None,
    cost: float | None = None,
    ts: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A history line; version None writes ArcheFlow's 15-field legacy shape."""
    rec: dict[str, Any] = {
        "ts": ts or run_ts,
        "run_id": run_id,
        "archetype": archetype,
        "signal_to_noise": 0.5,
        "fix_rate": 0.5,
        "cost_efficiency": None if not cost else 1 / cost,
        "accuracy": 1.0,
        "cycle_impact": False,
        "composite_score": composite,
        "tokens": 100,
        "cost_usd": cost,
        "model": model,
        "findings_total": 2,
        "findings_useful": 1,
        "fixes_applied": 1,
    }
    if version is not None:
        rec.update(
            scoring_version=version,
            run_ts=run_ts,
            cost_basis="unknown" if cost is None else "observed",
            cost_efficiency_norm=None,
            findings_contradicted=0,
            events_sha256=f"sha-{run_id}",
            source=f"{run_id}.jsonl",
        )
    rec.update(extra)
    return rec


def series(
    archetype: str,
    composites: Sequence[float],
    *,
    version: str | None = "effectiveness/v1",
    model: str | None = None,
    cost: float | None = None,
) -> list[dict[str, Any]]:
    """One run per composite, oldest first (run_ts one day apart)."""
    return [
        record(
            f"r{i:03d}",
            archetype,
            c,
            f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00Z",
            version=version,
            model=model,
            cost=cost,
        )
        for i, c in enumerate(composites)
    ]


@pytest.fixture
def write_history(tmp_path: Path) -> Callable[..., Path]:
    def write(records: Sequence[dict[str, Any]], name: str = "history.jsonl") -> Path:
        p = tmp_path / name
        p.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
        return p

    return write


@pytest.fixture
def make_record() -> Callable[..., dict[str, Any]]:
    return record


@pytest.fixture
def make_series() -> Callable[..., list[dict[str, Any]]]:
    return series
