"""Discovery records each file's real path, equal to ``os.path.realpath``, links included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from runscore.engine import sources


def test_real_paths_match_realpath_through_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    for p in (real / "a.jsonl", real / "sub" / "b.jsonl", other / "c.jsonl"):
        p.write_text("{}\n")
    (real / "sub" / "link.jsonl").symlink_to(other / "c.jsonl")
    (real / "dlink").symlink_to(other)
    (tmp_path / "rlink").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    files, issues = sources.discover(["rlink", "real/../real", "r*/**", str(other / "c.jsonl")])
    assert issues == []
    assert files and all(f.realpath == os.path.realpath(f.path) for f in files)
    # The same file reached by several names is read once.
    assert len({f.realpath for f in files}) == len(files)
    assert sorted(os.path.basename(f.realpath) for f in files) == ["a.jsonl", "b.jsonl", "c.jsonl"]
