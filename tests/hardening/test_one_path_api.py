"""Every pack's Python API takes one path given alone as that path. A str is a sequence
too: each of its characters was taken for a path ("/" had the whole disk walked; the
letters were reported as missing files)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from runscore.engine import sources
from runscore.engine.packs import pipeline, plugin, routes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_path_list() -> None:
    assert sources.path_list("a.jsonl") == ["a.jsonl"]
    assert sources.path_list(Path("d") / "a.jsonl") == [str(Path("d") / "a.jsonl")]
    assert sources.path_list(["a", Path("b")]) == ["a", "b"]
    assert sources.path_list(()) == []


@pytest.mark.parametrize("as_path", [False, True])
def test_pipeline_takes_one_path(tmp_path: Path, as_path: bool) -> None:
    src = tmp_path / "tasks.jsonl"
    shutil.copy(FIXTURES / "pipeline" / "tasks.jsonl", src)
    res = pipeline.evaluate_pipelines(src if as_path else str(src))  # type: ignore[arg-type]
    assert res.pipelines.num_rows > 0
    assert all(d.file == str(src) for d in res.errors)


def test_plugin_takes_one_root(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    shutil.copytree(FIXTURES / "plugin" / "async-python-patterns", root / "async-python-patterns")
    res = plugin.score(str(root), history_path=None)  # type: ignore[arg-type]
    assert res.issues == []
    assert [r["skill"] for r in res.report.to_pylist()] == ["async-python-patterns"]


def test_routes_takes_one_path(tmp_path: Path) -> None:
    src = tmp_path / "episodes.jsonl"
    src.write_text(
        '{"episodeId": "e1", "source": {"kind": "historical"}, "activity": {"id": "docs"},'
        ' "execution": {"host": "h", "inferenceProvider": "p", "model": "m"},'
        ' "outcome": {"status": "succeeded"}}\n'
    )
    rep = routes.analyze(str(src), as_of=dt.datetime(2026, 1, 1))  # type: ignore[arg-type]
    assert rep.to_dict()["inputs"]["rejected"] == []
