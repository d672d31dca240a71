"""Discovery records each file's real path, equal to ``os.path.realpath``, links included."""

from __future__ import annotations

import fnmatch
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


def test_a_directory_walk_lists_what_os_walk_lists(tmp_path: Path) -> None:
    # Files matching the pattern, sorted, in every subdirectory; a link to a file (even a
    # dangling one) is listed, a link to a directory is neither followed nor listed.
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    for p in ["a/x.jsonl", "a/b/y.jsonl", "a/b/.h.jsonl", "c/w.jsonl", "c/z.JSONL", "t.jsonl"]:
        (tmp_path / p).write_text("{}\n", encoding="utf-8")
    (tmp_path / "a" / "no.txt").write_text("", encoding="utf-8")
    (tmp_path / "a" / "dir.jsonl").symlink_to(tmp_path / "c")
    (tmp_path / "a" / "file.jsonl").symlink_to(tmp_path / "c" / "w.jsonl")
    (tmp_path / "a" / "gone.jsonl").symlink_to(tmp_path / "nowhere")
    found, issues = sources.discover([str(tmp_path)])
    rel = [str(Path(f.path).relative_to(tmp_path)) for f in found]
    want = []
    for dirpath, _dirs, names in os.walk(tmp_path):
        want += [os.path.join(dirpath, n) for n in names if fnmatch.fnmatch(n, "*.jsonl")]
    # the same file named twice is read once, under its first name (the link)
    want_rel = [str(Path(p).relative_to(tmp_path)) for p in sorted(want)]
    assert [r for r in want_rel if r != "c/w.jsonl"] == rel
    assert rel == [
        "a/b/.h.jsonl",
        "a/b/y.jsonl",
        "a/file.jsonl",
        "a/gone.jsonl",
        "a/x.jsonl",
        "t.jsonl",
    ]
    assert issues == []
