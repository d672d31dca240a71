"""Helpers for the plugin pack tests (as fixtures: test files cannot import each other).

A skill spec is a dict: ``text`` (SKILL.md) or ``raw`` (bytes), ``refs`` / ``assets``
(file names; absent key = no such folder), ``dirs`` (extra folders inside the skill).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runscore.engine.packs import plugin as engine


def _write_skill(root: Path, name: str, spec: dict[str, Any]) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    raw = spec.get("raw")
    (d / "SKILL.md").write_bytes(raw if raw is not None else spec.get("text", "").encode())
    for key, sub in (("refs", "references"), ("assets", "assets")):
        if key in spec:
            (d / sub).mkdir(exist_ok=True)
            for f in spec[key]:
                (d / sub / f).write_text("x\n")
    for extra in spec.get("dirs", ()):
        (d / extra).mkdir(parents=True, exist_ok=True)
    return d


def _by_skill(result: engine.PluginResult) -> dict[str, dict[str, Any]]:
    return {s["skill"]: s for s in result.skills()}


def _write_jsonl(path: Path, rows: list[Any]) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return str(path)


def _score(
    base: Path, skills: dict[str, dict[str, Any]], **inputs: list[Any]
) -> tuple[dict[str, dict[str, Any]], engine.PluginResult]:
    root = base / "skills"
    for name, spec in skills.items():
        _write_skill(root, name, spec)
    paths = {k: _write_jsonl(base / f"{k}.jsonl", v) for k, v in inputs.items()}
    result, con = engine.evaluate([str(root)], **paths)
    con.close()
    return _by_skill(result), result


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """write_skill(root, name, spec), write_jsonl(path, rows), by_skill(result),
    score(base_dir, skills, judge=[...], mc=[...], matchups=[...]) -> (by skill, result)."""
    return SimpleNamespace(
        write_skill=_write_skill, write_jsonl=_write_jsonl, by_skill=_by_skill, score=_score
    )
