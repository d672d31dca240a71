"""Helpers for the pipeline pack tests: build task snapshots, evaluate, validate JSON."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, FormatChecker
from runscore.engine.packs import pipeline as engine

EVAL_DATE = dt.date(2026, 3, 7)
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def task(
    pid: str,
    tid: str,
    status: str = "completed",
    *,
    created: str | None = "2026-02-02T09:00:00Z",
    updated: str | None = "2026-02-02T10:00:00Z",
    completed_at: str | None = None,
    **metadata: Any,
) -> dict[str, Any]:
    """One task snapshot line; metadata keys as keyword arguments."""
    row: dict[str, Any] = {"pipelineId": pid, "id": tid, "status": status}
    if created is not None:
        row["createdAt"] = created
    if updated is not None:
        row["updatedAt"] = updated
    md = dict(metadata)
    if completed_at is not None:
        md["completedAt"] = completed_at
    if md:
        row["metadata"] = md
    return row


def write_jsonl(path: Path, rows: Iterable[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def pipeline_tasks(
    pid: str, completed: int = 1, failed: int = 0, cancelled: int = 0, **metadata: Any
) -> list[dict[str, Any]]:
    """A terminal pipeline with the given outcome counts (metadata on the first task)."""
    rows: list[dict[str, Any]] = []
    n = 0
    for status, count in (("completed", completed), ("failed", failed), ("cancelled", cancelled)):
        for _ in range(count):
            n += 1
            rows.append(task(pid, f"t{n:02d}", status, **(metadata if n == 1 else {})))
    return rows


@pytest.fixture
def evaluate(tmp_path: Path) -> Callable[..., engine.PipelineResult]:
    """Write rows to a temp tasks.jsonl (and plans.jsonl) and evaluate them."""
    counter = iter(range(1_000_000))

    def run(
        rows: Iterable[dict[str, Any] | str],
        plans: Iterable[dict[str, Any] | str] | None = None,
    ) -> engine.PipelineResult:
        k = next(counter)
        t = write_jsonl(tmp_path / f"e{k}" / "tasks.jsonl", rows)
        p = None if plans is None else [str(write_jsonl(tmp_path / f"e{k}" / "plans.jsonl", plans))]
        return engine.evaluate_pipelines([str(t)], p, eval_date=EVAL_DATE)

    return run


def row_of(result: engine.PipelineResult, pid: str) -> dict[str, Any]:
    rows = result.rows_for(result.pipelines, pid)
    assert len(rows) == 1, rows
    return rows[0]


@pytest.fixture
def schema_validator() -> Draft7Validator:
    """The shipped draft-07 schema, with a real date-time format check."""
    schema = json.loads(engine.schema_text())
    Draft7Validator.check_schema(schema)
    checker = FormatChecker()

    @checker.checks("date-time")
    def _is_datetime(value: object) -> bool:
        if not isinstance(value, str) or not _RFC3339.match(value):
            return False
        dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        return True

    return Draft7Validator(schema, format_checker=checker)


class Helpers:
    """The helpers above, as one fixture (``--import-mode=importlib``: no conftest imports)."""

    EVAL_DATE = EVAL_DATE
    task = staticmethod(task)
    write_jsonl = staticmethod(write_jsonl)
    pipeline_tasks = staticmethod(pipeline_tasks)
    row_of = staticmethod(row_of)


@pytest.fixture(scope="session")
def h() -> type[Helpers]:
    return Helpers
