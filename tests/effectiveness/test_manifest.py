"""The manifest of read files beside the history: when it is trusted, and how it is saved.

A manifest describes the history it was written beside; once that history is truncated
or replaced it is not trusted, and every file is read again. These tests pin that the
decision holds for the whole extract (not only for the files it reads), and that a
manifest another writer saved meanwhile is merged into, not overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history
from runscore.engine.packs import effectiveness

SMALL_RUN = (
    '{"run_id":"r-small","seq":1,"type":"run.start"}\n'
    '{"run_id":"r-small","seq":2,"parent":[1],"type":"review.verdict","agent":"guardian",'
    '"data":{"archetype":"guardian","verdict":"approved","findings":[]}}\n'
    '{"run_id":"r-small","seq":3,"parent":[2],"type":"run.complete"}\n'
)


@pytest.fixture(autouse=True)
def _no_racy_window(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests here write a file and extract it at once. With the racy window (an entry
    is trusted by its times only when its file changed 2 s or more before the extract that
    read it: ``effectiveness.RACY_NS``) every such file would be hashed again; these tests
    are about the manifest's other rules, so the window is closed for them. The tests of
    the window itself (marked ``racy``) keep it."""
    if "racy" not in request.keywords:
        monkeypatch.setattr(effectiveness, "RACY_NS", -(1 << 63))


def _dirs(tmp_path: Path, fixtures: Path) -> tuple[str, str]:
    big, small = tmp_path / "big", tmp_path / "small"
    big.mkdir()
    small.mkdir()
    fixture = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    (big / "a.jsonl").write_bytes(fixture.read_bytes())
    (small / "b.jsonl").write_text(SMALL_RUN)
    return str(big), str(small)


def _manifest_files(hist: str) -> dict[str, Any]:
    with open(effectiveness.manifest_path(hist), encoding="utf-8") as f:
        files: dict[str, Any] = json.load(f)["files"]
    return files


def test_a_manifest_not_trusted_stays_untrusted_after_the_append(
    tmp_path: Path, fixtures: Path
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([small], hist)
    assert first.records_written == 1
    described = os.path.getsize(hist)
    # The history is replaced by an empty one: its manifest no longer describes it.
    os.truncate(hist, 0)
    other = effectiveness.extract([big], hist)
    # This extract's append makes the history longer than the one the old manifest
    # described; that must not make its entry for b.jsonl trusted again.
    assert os.path.getsize(hist) > described
    assert other.records_written > 1
    assert not any(k.endswith("b.jsonl") for k in _manifest_files(hist))
    again = effectiveness.extract([small], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (1, 0, 1)
    runs = {json.loads(line)["run_id"] for line in Path(hist).read_text().splitlines()}
    assert "r-small" in runs


def test_a_manifest_saved_meanwhile_is_merged_into(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([small], hist)
    mp = effectiveness.manifest_path(hist)
    theirs = {"size": 1, "mtime_ns": 1, "sha256": "0" * 64, "runs": ["r-theirs"]}
    append = history.append_groups

    def another_writer_saves_first(*args: Any, **kwargs: Any) -> int:
        # What a writer that held the lock before this one leaves: its own entry.
        with open(mp, encoding="utf-8") as f:
            doc = json.load(f)
        doc["files"]["v1\t/elsewhere/theirs.jsonl"] = theirs
        history.atomic_write_text(mp, json.dumps(doc))
        return append(*args, **kwargs)

    monkeypatch.setattr(history, "append_groups", another_writer_saves_first)
    res = effectiveness.extract([big], hist)
    assert res.records_written > 0
    files = _manifest_files(hist)
    assert files["v1\t/elsewhere/theirs.jsonl"] == theirs
    assert any(k.endswith("b.jsonl") for k in files)
    assert any(k.endswith("a.jsonl") for k in files)


def _spy_splices(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    seen: list[str | None] = []
    real = effectiveness._spliced_manifest

    def spy(loaded: Any, entries: dict[str, Any]) -> str | None:
        out = real(loaded, entries)
        seen.append(out)
        return out

    monkeypatch.setattr(effectiveness, "_spliced_manifest", spy)
    return seen


def _canonical(hist: str) -> tuple[str, dict[str, Any]]:
    text = Path(effectiveness.manifest_path(hist)).read_text(encoding="utf-8")
    return text, json.loads(text)


def test_new_entries_are_spliced_in_as_a_whole_save_would_write_them(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([small], hist)
    _, first = _canonical(hist)
    seen = _spy_splices(monkeypatch)
    # A path that JSON escapes: the spliced part is serialised as the whole would be.
    (Path(small) / 'c "ü".jsonl').write_text(SMALL_RUN.replace("r-small", "r-c"))
    res = effectiveness.extract([big, small], hist)
    assert res.files_unchanged == 1 and res.files_read == 2
    assert len(seen) == 1 and seen[0] is not None  # spliced, not serialised again
    text, doc = _canonical(hist)
    assert text == effectiveness._manifest_text(doc)
    assert doc["history_size"] == os.path.getsize(hist) > first["history_size"]
    # The old entry as it was and where it was; the new ones after it, in file order.
    keys = list(doc["files"])
    assert keys[0] == next(iter(first["files"]))
    assert doc["files"][keys[0]] == first["files"][keys[0]]
    assert [k.rsplit("/", 1)[1] for k in keys[1:]] == ["a.jsonl", 'c "ü".jsonl']
    assert text.startswith(
        effectiveness._MANIFEST_HEAD % (doc["history_size"], doc["history_tail"])
    )
    assert (
        doc["history_tail"]
        == hashlib.sha256(Path(hist).read_bytes()[-effectiveness.HISTORY_TAIL_BYTES :]).hexdigest()
    )
    again = effectiveness.extract([big, small], hist)
    assert (again.files_read, again.files_unchanged) == (0, 3)


def test_a_replaced_entry_is_saved_by_a_whole_save(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([small], hist)
    seen = _spy_splices(monkeypatch)
    b = Path(small) / "b.jsonl"
    b.write_text(SMALL_RUN.replace("approved", "rejected"))
    res = effectiveness.extract([small], hist)
    assert res.files_read == 1 and seen == [None]
    text, doc = _canonical(hist)
    assert text == effectiveness._manifest_text(doc)
    (entry,) = doc["files"].values()
    assert (entry["size"], entry["sha256"]) == (
        b.stat().st_size,
        hashlib.sha256(b.read_bytes()).hexdigest(),
    )


def test_a_manifest_written_in_another_layout_is_saved_whole_and_kept(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([small], hist)
    mp = Path(effectiveness.manifest_path(hist))
    old = json.loads(mp.read_text(encoding="utf-8"))
    # Indented, keys in another order: what a person or another tool may leave.
    mp.write_text(
        json.dumps(
            {
                "files": old["files"],
                "history_tail": old["history_tail"],
                "history_size": old["history_size"],
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    seen = _spy_splices(monkeypatch)
    res = effectiveness.extract([big, small], hist)
    assert (res.files_read, res.files_unchanged) == (1, 1)  # the entry was trusted
    assert seen == [None]
    text, doc = _canonical(hist)
    assert text == effectiveness._manifest_text(doc)
    assert list(doc["files"])[0] == next(iter(old["files"]))
    assert len(doc["files"]) == 2


_H = '{"history_size":3,"history_tail":"ab","files":'


@pytest.mark.parametrize(
    ("text", "entries", "expected"),
    [
        (_H + "{}}", {"k": {"size": 1}}, '"k":{"size":1}}}'),
        (_H + '{"a":1}}', {"k": [2]}, '"a":1,"k":[2]}}'),
        (_H + '{"a":1}}', {}, '"a":1}}'),
        (_H + '{"a":1}}', {"a": 2}, None),  # replaces an entry
        ('{"history_size": 3, "history_tail": "ab", "files": {"a": 1}}', {"k": 2}, None),
        (_H + '{"a":1}} ', {"k": 2}, None),  # a trailing blank
        ('{"history_size":3,"files":{"a":1}}', {"k": 2}, None),  # no history_tail
    ],
)
def test_splicing_the_text(text: str, entries: dict[str, Any], expected: str | None) -> None:
    loaded = effectiveness._Manifest(json.loads(text), None, text)
    assert effectiveness._spliced_manifest(loaded, entries) == expected
    if expected is not None:
        doc = json.loads(text)
        doc["files"].update(entries)
        assert effectiveness._MANIFEST_HEAD % (3, "ab") + expected == effectiveness._manifest_text(
            doc
        )


def _current(hist: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Each (run, archetype)'s last line, without when it was scored and from which file."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    with open(hist, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            out[(r["run_id"], r["archetype"])] = {
                k: v for k, v in r.items() if k not in ("ts", "source")
            }
    return out


def _fixture_lines(fixtures: Path) -> list[str]:
    path = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_a_run_read_again_brings_the_other_files_of_its_runs(
    tmp_path: Path, fixtures: Path
) -> None:
    # score-run spans a and b; r-small spans a and z. Only z changes: a is read again
    # for r-small, and b with it for score-run, else score-run was scored without
    # sage's verdict (guardian's accuracy 1.0 instead of 0.5) and that line became current.
    lines, small = _fixture_lines(fixtures), SMALL_RUN.splitlines(keepends=True)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text("".join(lines[:4] + lines[5:] + small[:1]))
    (logs / "b.jsonl").write_text(lines[4])
    (logs / "z.jsonl").write_text("".join(small[1:]))
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(logs)], hist)
    (logs / "z.jsonl").write_text("".join(small[1:]).replace("approved", "needs_changes"))
    res = effectiveness.extract([str(logs)], hist)
    assert (res.files_read, res.files_unchanged, res.incomplete) == (3, 0, [])
    fresh = str(tmp_path / "fresh.jsonl")
    effectiveness.extract([str(logs)], fresh, incremental=False)
    assert _current(hist) == _current(fresh)
    assert _current(hist)[("score-run", "guardian")]["accuracy"] == 0.5


def test_a_run_whose_lines_left_a_changed_file_is_scored_again(
    tmp_path: Path, fixtures: Path
) -> None:
    # score-run's sage verdict was in z with r-small; z now holds r-small alone. The run
    # changed (a full extract scores it without sage): the unchanged a is read again.
    lines = _fixture_lines(fixtures)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text("".join(lines[:4] + lines[5:]))
    (logs / "z.jsonl").write_text(lines[4] + SMALL_RUN)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(logs)], hist)
    (logs / "z.jsonl").write_text(SMALL_RUN)
    res = effectiveness.extract([str(logs)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (2, 0, 1)
    fresh = str(tmp_path / "fresh.jsonl")
    effectiveness.extract([str(logs)], fresh, incremental=False)
    now, full = _current(hist), _current(fresh)
    # The sage line stays in history (append-only); every line a full extract writes is current.
    assert {k: now[k] for k in full} == full
    assert now[("score-run", "guardian")]["accuracy"] == 1.0


@pytest.mark.parametrize(
    "damage",
    [
        {"history_size": "x"},
        {"history_size": None},
        {"entry": []},
        {"entry": {}},
        {"entry": {"runs": 5}},
        {"entry": {"runs": [["r-small"]]}},
        {"entry": {"skipped": [5]}},
        {"entry": {"warnings": {"a": 1}}},
        {"entry": {"invalid": ["r-small"]}},
        {"entry": {"skipped": [[3, "bad"]], "skipped_more": "many"}},
    ],
)
def test_a_manifest_of_another_shape_means_the_file_is_read_again(
    tmp_path: Path, damage: dict[str, Any]
) -> None:
    # Valid JSON in a shape runscore does not write (a hand edit, another layout): the
    # extract read it as trusted and stopped with a traceback (TypeError, KeyError).
    log, hist = _extracted_once(tmp_path)
    mp = effectiveness.manifest_path(hist)
    with open(mp, encoding="utf-8") as f:
        m = json.load(f)
    ((key, entry),) = m["files"].items()
    if "entry" in damage:
        new = damage["entry"]
        m["files"][key] = {**entry, **new} if isinstance(new, dict) and new else new
    else:
        m["history_size"] = damage["history_size"]
    Path(mp).write_text(json.dumps(m))
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.already_scored) == (1, 0, ["r-small"])
    assert (res.records_written, res.skipped_lines, res.invalid) == (0, [], [])
    now = _manifest_files(hist)[key]
    assert now.pop("batch") != entry.pop("batch")  # written again, by this extract
    assert now.pop("read_ns") >= entry.pop("read_ns")  # ... and read again
    assert now == entry


@pytest.mark.parametrize("how", ["another history's manifest", "a longer history moved over"])
def test_a_manifest_of_another_history_is_not_trusted(tmp_path: Path, how: str) -> None:
    # The manifest was trusted whenever the history was at least as long as it said:
    # b.jsonl was skipped as unchanged and its run never reached this history.
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(SMALL_RUN.replace("r-small", "r-a"))
    b.write_text(SMALL_RUN.replace("r-small", "r-b"))
    hist, other = str(tmp_path / "h.jsonl"), str(tmp_path / "other.jsonl")
    if how == "another history's manifest":
        effectiveness.extract([str(b)], hist)
        effectiveness.extract([str(a)], other)  # as long as h.jsonl; its manifest knows a
        os.replace(effectiveness.manifest_path(other), effectiveness.manifest_path(hist))
    else:
        effectiveness.extract([str(a), str(b)], hist)
        c = tmp_path / "c.jsonl"
        c.write_text(SMALL_RUN.replace("r-small", "r-c") + SMALL_RUN.replace("r-small", "r-d"))
        effectiveness.extract([str(b), str(c)], other)  # longer than h.jsonl, no r-a
        os.replace(other, hist)
    res = effectiveness.extract([str(a), str(b)], hist)
    assert (res.files_read, res.files_unchanged) == (2, 0)
    runs = {json.loads(line)["run_id"] for line in Path(hist).read_text().splitlines()}
    assert {"r-a", "r-b"} <= runs
    again = effectiveness.extract([str(a), str(b)], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (0, 2, 0)


def test_a_run_whose_files_were_read_apart_is_scored_when_they_come_together(
    tmp_path: Path, fixtures: Path
) -> None:
    # score-run's first half in a.jsonl, extracted alone (incomplete); its second half in
    # b.jsonl, extracted alone (scored from those events only: sage alone). Then both:
    # each was unchanged, so the run was never scored from all of its events.
    lines = _fixture_lines(fixtures)
    logs = tmp_path / "logs"
    logs.mkdir()
    a, b = logs / "a.jsonl", logs / "b.jsonl"
    a.write_text("".join(lines[:4]))
    b.write_text("".join(lines[4:]))
    hist = str(tmp_path / "h.jsonl")
    assert effectiveness.extract([str(a)], hist).incomplete == ["score-run"]
    effectiveness.extract([str(b)], hist)
    res = effectiveness.extract([str(logs)], hist)
    assert (res.files_read, res.files_unchanged, res.incomplete) == (2, 0, [])
    assert res.records_written == 2
    fresh = str(tmp_path / "fresh.jsonl")
    effectiveness.extract([str(logs)], fresh, incremental=False)
    assert _current(hist) == _current(fresh)
    # Read together now: a rerun, or either file alone, reads nothing.
    for paths in ([str(logs)], [str(a)], [str(b)]):
        again = effectiveness.extract(paths, hist)
        assert (again.files_read, again.records_written) == (0, 0)


def _extracted_once(tmp_path: Path) -> tuple[Path, str]:
    """``b.jsonl`` (one small run) extracted into ``h.jsonl``: the file and the history."""
    log = tmp_path / "b.jsonl"
    log.write_text(SMALL_RUN)
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(log)], hist)
    return log, hist


def _hash_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files ``extract`` hashes (the manifest's check, or a pre-scan), by path."""
    return _calls(monkeypatch, scans=True, digests=True)


def _calls(monkeypatch: pytest.MonkeyPatch, *, scans: bool, digests: bool) -> list[str]:
    """The files ``extract`` pre-scans (``scans``) and hashes alone (``digests``: the
    manifest's check of a known file), by path, in call order."""
    from runscore.engine import filedigest, sources

    calls: list[str] = []
    if scans:
        real_scan = sources.prescan

        def scanned(sf: sources.SourceFile, **k: Any) -> sources.SourceFile:
            calls.append(sf.path)
            return real_scan(sf, **k)

        monkeypatch.setattr(sources, "prescan", scanned)
    if digests:
        real_digest = filedigest.sha256_of

        def digested(path: str) -> str | None:
            calls.append(path)
            return real_digest(path)

        monkeypatch.setattr(filedigest, "sha256_of", digested)
    return calls


def _touch_later(path: Path) -> None:
    """Move ``path``'s mtime 5 s on, its content unchanged (as `touch` does)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_a_touched_file_is_hashed_once_then_trusted_by_its_new_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its entry kept the old mtime: every later extract hashed the file again, for ever
    # (a whole corpus touched by a restore was re-hashed every night).
    log = tmp_path / "b.jsonl"
    log.write_text(SMALL_RUN)
    hist = str(tmp_path / "h.jsonl")
    assert effectiveness.extract([str(log)], hist).records_written == 1
    _touch_later(log)
    calls = _hash_calls(monkeypatch)
    again = effectiveness.extract([str(log)], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (0, 1, 0)
    assert calls == [str(log)]  # hashed: its mtime moved
    (entry,) = _manifest_files(hist).values()
    now = log.stat()
    assert (entry["mtime_ns"], entry["ctime_ns"]) == (now.st_mtime_ns, now.st_ctime_ns)
    calls.clear()
    third = effectiveness.extract([str(log)], hist)
    assert (third.files_read, third.files_unchanged, third.records_written) == (0, 1, 0)
    assert calls == []  # trusted by its times again


def test_a_rewrite_given_back_its_size_and_mtime_is_read(tmp_path: Path) -> None:
    # Same size, same mtime (set back, as `touch -d` or `cp -p` of an older copy does):
    # only the change time shows it, and the run's new content must be scored.
    log, hist = _extracted_once(tmp_path)
    old = log.stat()
    edited = SMALL_RUN.replace('"approved"', '"rejected"')
    assert len(edited) == len(SMALL_RUN) and edited != SMALL_RUN
    log.write_text(edited)
    os.utime(log, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (old.st_size, old.st_mtime_ns)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (1, 0, 1)
    lines = [json.loads(x) for x in Path(hist).read_text().splitlines()]
    assert [x["run_id"] for x in lines] == ["r-small", "r-small"]
    assert lines[0]["events_sha256"] != lines[1]["events_sha256"]


def _extracted_without(tmp_path: Path, field: str) -> tuple[Path, str, str, dict[str, Any]]:
    """A file extracted, then its manifest entry without ``field``, as a manifest of an
    earlier layout wrote it: the file, the history, the entry's key and the entry."""
    log, hist = _extracted_once(tmp_path)
    mp = effectiveness.manifest_path(hist)
    m = json.loads(Path(mp).read_text())
    ((key, entry),) = m["files"].items()
    del entry[field]
    Path(mp).write_text(json.dumps(m, separators=(",", ":")))
    return log, hist, key, entry


def test_an_entry_without_a_change_time_is_trusted_by_its_hash_and_completed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A manifest written before entries kept ctime_ns: its files are not read again.
    log, hist, key, entry = _extracted_without(tmp_path, "ctime_ns")
    calls = _hash_calls(monkeypatch)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (0, 1, 0)
    assert calls == [str(log)]
    now = _manifest_files(hist)[key]
    assert now.pop("read_ns") >= entry.pop("read_ns")  # hashed by this extract
    assert now == {**entry, "ctime_ns": log.stat().st_ctime_ns}


def test_new_times_wait_for_no_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Saving them is an optimisation: with the lock held elsewhere, an extract with
    # nothing to write returns at once and the next one saves them.
    log, hist = _extracted_once(tmp_path)
    (before,) = _manifest_files(hist).values()
    _touch_later(log)
    with history.locked(hist, timeout=0):
        res = effectiveness.extract([str(log)], hist, lock_timeout=60)
    assert (res.files_read, res.files_unchanged, res.records_written) == (0, 1, 0)
    assert list(_manifest_files(hist).values()) == [before]
    effectiveness.extract([str(log)], hist)
    (after,) = _manifest_files(hist).values()
    assert after == {
        **before,
        "mtime_ns": log.stat().st_mtime_ns,
        "ctime_ns": log.stat().st_ctime_ns,
        "read_ns": after["read_ns"],
    }
    assert after["read_ns"] >= before["read_ns"]


def test_new_times_are_saved_with_the_entries_of_files_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "a.jsonl").write_text(SMALL_RUN.replace("r-small", "r-a"))
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(d)], hist)
    _touch_later(d / "a.jsonl")
    (d / "c.jsonl").write_text(SMALL_RUN.replace("r-small", "r-c"))
    res = effectiveness.extract([str(d)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (1, 1, 1)
    calls = _hash_calls(monkeypatch)
    third = effectiveness.extract([str(d)], hist)
    assert (third.files_read, third.files_unchanged, third.records_written) == (0, 2, 0)
    assert calls == []


def _three_logs(tmp_path: Path) -> tuple[Path, str]:
    d = tmp_path / "logs"
    (d / "old").mkdir(parents=True)
    for name in ("a", "b", "old/c", "old/e"):
        (d / f"{name}.jsonl").write_text(SMALL_RUN.replace("r-small", f"r-{name[-1]}"))
    return d, str(tmp_path / "h.jsonl")


def _entry_names(hist: str) -> list[str]:
    return sorted(os.path.basename(k) for k in _manifest_files(hist))


def test_entries_of_files_deleted_from_a_folder_given_are_dropped(tmp_path: Path) -> None:
    # They were kept for ever: a folder whose old logs are rotated away grew the manifest
    # that every extract parses by every file it ever held.
    d, hist = _three_logs(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text(SMALL_RUN.replace("r-small", "r-o"))
    effectiveness.extract([str(d), str(other)], hist)
    assert _entry_names(hist) == ["a.jsonl", "b.jsonl", "c.jsonl", "e.jsonl", "other.jsonl"]
    (d / "b.jsonl").unlink()
    (d / "old" / "c.jsonl").unlink()
    # Nothing new to read: the drop is saved alone. The file given by name, not found
    # under the folder, keeps its entry; so does the history written before.
    before = Path(hist).read_bytes()
    res = effectiveness.extract([str(d)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (0, 2, 0)
    assert _entry_names(hist) == ["a.jsonl", "e.jsonl", "other.jsonl"]
    assert Path(hist).read_bytes() == before
    # With a new file read, the drop is saved with its entry.
    (d / "a.jsonl").unlink()
    (d / "n.jsonl").write_text(SMALL_RUN.replace("r-small", "r-n"))
    res = effectiveness.extract([str(d)], hist)
    assert (res.files_read, res.records_written) == (1, 1)
    assert _entry_names(hist) == ["e.jsonl", "n.jsonl", "other.jsonl"]


def test_only_a_folder_given_drops_the_entries_of_its_missing_files(tmp_path: Path) -> None:
    d, hist = _three_logs(tmp_path)
    effectiveness.extract([str(d)], hist)
    (d / "b.jsonl").unlink()
    # A file and a glob say nothing of the files they do not name.
    effectiveness.extract([str(d / "a.jsonl")], hist)
    effectiveness.extract([str(d / "*.jsonl")], hist)
    assert _entry_names(hist) == ["a.jsonl", "b.jsonl", "c.jsonl", "e.jsonl"]
    # A folder given that is only part of the one extracted: only its own missing files.
    (d / "old" / "c.jsonl").unlink()
    effectiveness.extract([str(d / "old")], hist)
    assert _entry_names(hist) == ["a.jsonl", "b.jsonl", "e.jsonl"]
    effectiveness.extract([str(d)], hist)
    assert _entry_names(hist) == ["a.jsonl", "e.jsonl"]


def test_a_file_in_a_folder_that_cannot_be_searched_keeps_its_entry(tmp_path: Path) -> None:
    d, hist = _three_logs(tmp_path)
    effectiveness.extract([str(d)], hist)
    # Not gone, only out of reach now (ENOTDIR would be gone; EACCES is not): simulated by
    # an lstat that fails so, as root can search any folder.
    real_lstat = os.lstat

    def denied(p: Any, *a: Any, **k: Any) -> Any:
        if str(p).endswith("c.jsonl"):
            raise PermissionError(13, "Permission denied", str(p))
        return real_lstat(p, *a, **k)

    (d / "old" / "c.jsonl").rename(tmp_path / "c.jsonl")
    mp = pytest.MonkeyPatch()
    mp.setattr(os, "lstat", denied)
    try:
        effectiveness.extract([str(d)], hist)
    finally:
        mp.undo()
    assert _entry_names(hist) == ["a.jsonl", "b.jsonl", "c.jsonl", "e.jsonl"]
    effectiveness.extract([str(d)], hist)
    assert _entry_names(hist) == ["a.jsonl", "b.jsonl", "e.jsonl"]


def test_the_history_is_synced_and_the_manifest_is_not(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    effectiveness.extract([big], history_path=hist)
    assert synced == [os.path.realpath(hist)]
    assert _manifest_files(hist)  # written all the same


@pytest.mark.parametrize("torn", [b"", b"\0" * 4096, b'{"history_size":1,"files":{"v1\t'])
def test_a_manifest_torn_by_a_crash_means_every_file_is_read_again(
    tmp_path: Path, fixtures: Path, torn: bytes
) -> None:
    # What an unsynced manifest can be after a crash, beside its synced history: nothing
    # is skipped on its word, and nothing is scored twice.
    big, small = _dirs(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([big, small], history_path=hist)
    lines = Path(hist).read_bytes()
    Path(effectiveness.manifest_path(hist)).write_bytes(torn)
    again = effectiveness.extract([big, small], history_path=hist)
    assert first.records_written > 0
    assert (again.files_unchanged, again.records_written) == (0, 0)
    assert len(again.already_scored) == first.runs_scored
    assert Path(hist).read_bytes() == lines
    assert len(_manifest_files(hist)) == 2  # and trusted again from now on


# ----------------------------------------------------------------- the racy window


def _same_tick_rewrite(tmp_path: Path, *, read_after_change_ns: int | None) -> tuple[Path, str]:
    """A file extracted, then rewritten at the same size, and its manifest entry given the
    file's size and times as they are now: what a rewrite within the timestamp tick of the
    write the extract read leaves (the times cannot be set back to equal by hand: ctime).
    ``read_after_change_ns``: the entry's read time that far after the file's ctime (None:
    as the extract recorded it, a moment after the file was written)."""
    log, hist = _extracted_once(tmp_path)
    edited = SMALL_RUN.replace('"approved"', '"rejected"')
    assert len(edited) == len(SMALL_RUN) and edited != SMALL_RUN
    log.write_text(edited)
    st = log.stat()
    mp = effectiveness.manifest_path(hist)
    m = json.loads(Path(mp).read_text())
    ((key, entry),) = m["files"].items()
    entry.update(size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns)
    if read_after_change_ns is not None:
        entry["read_ns"] = st.st_ctime_ns + read_after_change_ns
    Path(mp).write_text(json.dumps(m, separators=(",", ":")))
    return log, hist


@pytest.mark.racy
def test_a_same_size_rewrite_close_to_its_read_is_read_again(tmp_path: Path) -> None:
    # Its size and times are those of the entry, but the file changed less than 2 s
    # before the extract that read it began: the hash decides, and tells the change.
    log, hist = _same_tick_rewrite(tmp_path, read_after_change_ns=None)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (1, 0, 1)
    lines = [json.loads(x) for x in Path(hist).read_text().splitlines()]
    assert lines[0]["events_sha256"] != lines[1]["events_sha256"]


@pytest.mark.racy
def test_an_entry_read_well_after_its_files_last_change_is_trusted_by_its_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other side of the window: read 3 s after the file last changed, the entry's
    # times vouch for the content (no hash), as for any file not touched since.
    log, hist = _same_tick_rewrite(tmp_path, read_after_change_ns=3_000_000_000)
    calls = _hash_calls(monkeypatch)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (0, 1, 0)
    assert calls == []


@pytest.mark.racy
def test_a_file_read_just_after_it_was_written_is_hashed_once_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, hist = _extracted_once(tmp_path)
    (first,) = _manifest_files(hist).values()
    assert first["read_ns"] - first["ctime_ns"] < effectiveness.RACY_NS
    digests = _calls(monkeypatch, scans=False, digests=True)
    scans = _calls(monkeypatch, scans=True, digests=False)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (0, 1, 0)
    assert digests == [str(log)]  # unchanged by its hash, not by its times
    assert scans == []  # and by the hash alone: an unchanged file needs no pre-scan
    (second,) = _manifest_files(hist).values()
    assert second["read_ns"] > first["read_ns"]  # the entry takes this extract's time


def test_a_known_file_whose_times_moved_is_hashed_not_prescanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check needs the hash alone: the pre-scan's byte scans (UTF-8, newlines, what is
    # not JSON) were most of its cost, for a file that is nearly always unchanged.
    log, hist = _extracted_once(tmp_path)
    _touch_later(log)
    scans = _calls(monkeypatch, scans=True, digests=False)
    again = effectiveness.extract([str(log)], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (0, 1, 0)
    assert scans == []
    (entry,) = _manifest_files(hist).values()
    assert entry["sha256"] == hashlib.sha256(log.read_bytes()).hexdigest()


def test_a_known_file_that_changed_is_prescanned_once_when_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same size, new bytes: the hash tells, and the file is pre-scanned once, with the
    # others read. Another size: not even hashed first (it cannot be unchanged).
    same = tmp_path / "same.jsonl"
    grown = tmp_path / "grown.jsonl"
    same.write_text(SMALL_RUN)
    grown.write_text(SMALL_RUN.replace("r-small", "r-grown"))
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(same), str(grown)], hist)
    edited = SMALL_RUN.replace('"approved"', '"rejected"')
    assert len(edited) == len(SMALL_RUN)
    same.write_text(edited)
    _touch_later(same)
    grown.write_text(SMALL_RUN.replace("r-small", "r-grown") + "\n")
    digests = _calls(monkeypatch, scans=False, digests=True)
    scans = _calls(monkeypatch, scans=True, digests=False)
    res = effectiveness.extract([str(same), str(grown)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (2, 0, 1)
    assert digests == [str(same)]
    # The history is read too (grown's run matched a key: it is checked against the lines
    # report reads), by its own reader; the run files are each pre-scanned once.
    assert sorted(s for s in scans if s != hist) == sorted([str(same), str(grown)])
    files = _manifest_files(hist)
    assert sorted(e["sha256"] for e in files.values()) == sorted(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in (same, grown)
    )


@pytest.mark.racy
def test_an_entry_without_a_read_time_is_trusted_by_its_times_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A manifest written before entries kept read_ns: no file is hashed again for it.
    log, hist, _, _ = _extracted_without(tmp_path, "read_ns")
    calls = _hash_calls(monkeypatch)
    res = effectiveness.extract([str(log)], hist)
    assert (res.files_read, res.files_unchanged) == (0, 1)
    assert calls == []
