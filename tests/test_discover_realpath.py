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


def test_discovered_says_where_each_file_and_issue_stands_in_the_order_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``discover`` gives its files and its issues as two lists, which lost where a path
    not found stood among the files: each pack listed it first, or last, wherever it was
    given. ``input_order`` keeps it (a folder's files in sorted path order, a name given
    twice at its first place), and the result still unpacks as the pair it was."""
    (tmp_path / "dir").mkdir()
    for p in ("a.jsonl", "dir/b.jsonl", "dir/a.jsonl", "z.jsonl"):
        (tmp_path / p).write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    given = ["z.jsonl", "missing.jsonl", "dir", "gone/*.jsonl", "a.jsonl", "z.jsonl"]
    found = sources.discover(given)
    files, issues = found
    assert [f.display for f in files] == ["z.jsonl", "dir/a.jsonl", "dir/b.jsonl", "a.jsonl"]
    assert [i.file for i in issues] == ["missing.jsonl", "gone/*.jsonl"]
    assert found.input_order() == {
        "z.jsonl": 0,
        "missing.jsonl": 1,
        "dir/a.jsonl": 2,
        "dir/b.jsonl": 3,
        "gone/*.jsonl": 4,
        "a.jsonl": 5,
    }
    assert found == (files, issues)
    # What a caller then does with its lists changes nothing (a pack filters its files).
    again = sources.discover(given)
    again[0].pop(0)
    again[1].clear()
    assert again.input_order() == found.input_order()
    # A pair made elsewhere (the nightly job joins its roots'): its files, then its issues.
    assert sources.order_given((files, issues)) == {
        "z.jsonl": 0,
        "dir/a.jsonl": 1,
        "dir/b.jsonl": 2,
        "a.jsonl": 3,
        "missing.jsonl": 4,
        "gone/*.jsonl": 5,
    }
    import copy
    import pickle

    for again in (copy.copy(found), copy.deepcopy(found), pickle.loads(pickle.dumps(found))):
        assert isinstance(again, sources.Discovered) and again == found
        assert again.input_order() == found.input_order()
