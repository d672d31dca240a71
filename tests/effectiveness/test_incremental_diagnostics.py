"""An incremental extract says again what was said of the files it skips as unchanged.

Skipping an unchanged file must not change what ``extract`` reports about the input:
its rejected lines, warnings, invalid and incomplete runs are kept in the manifest when
the file is read and listed again (with the file's current display path) when it is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness
from runscore.engine.sources import LineIssue


def _said(res: effectiveness.ExtractResult) -> dict[str, Any]:
    s = res.summary()
    return {k: s[k] for k in ("skipped_lines", "warnings", "invalid", "incomplete")}


def _corpus(d: Path, fixtures: Path) -> None:
    ev = d / "events"
    ev.mkdir(parents=True)
    good = (fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl").read_bytes()
    (ev / "a.jsonl").write_bytes(good)
    (ev / "b.jsonl").write_text(
        '{"run_id":"r-bad","seq":1,"type":"run.start"}\n'
        "not json at all\n"
        '{"seq":2,"type":"run.complete"}\n'
        '{"run_id":"r-cost","seq":1,"type":"run.start"}\n'
        '{"run_id":"r-cost","seq":2,"parent":[1],"type":"agent.complete","agent":"guardian",'
        '"data":{"archetype":"guardian","cost_usd":-1}}\n'
        '{"run_id":"r-cost","seq":3,"parent":[2],"type":"review.verdict","agent":"guardian",'
        '"data":{"archetype":"guardian","verdict":"approved","findings":[]}}\n'
        '{"run_id":"r-cost","seq":4,"parent":[3],"type":"run.complete"}\n'
        '{"run_id":"r-dup","seq":1,"type":"run.start"}\n'
        '{"run_id":"r-dup","seq":1,"type":"run.start","phase":"x"}\n'
        '{"run_id":"r-dup","seq":2,"type":"run.complete"}\n'
    )


def test_rerun_lists_the_same_diagnostics(tmp_path: Path, fixtures: Path) -> None:
    _corpus(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([str(tmp_path / "events")], hist)
    said = _said(first)
    assert [(d["line"], d["reason"]) for d in said["skipped_lines"]] == [
        (2, "not JSON: Expecting value: line 1 column 1 (char 0)"),
        (3, "missing run_id"),
    ]
    assert [w["reason"] for w in said["warnings"]] == [
        "cost ignored: not a finite non-negative number"
    ]
    assert [i["run_id"] for i in said["invalid"]] == ["r-dup"]
    assert said["incomplete"] == ["r-bad"]
    again = effectiveness.extract([str(tmp_path / "events")], hist)
    assert (again.files_read, again.files_unchanged, again.records_written) == (0, 2, 0)
    assert _said(again) == said
    assert again.rejected
    # A file that changes is read again: what is said of it is what it holds now.
    (tmp_path / "events" / "b.jsonl").write_text('{"run_id":"r-new","seq":1,"type":"run.start"}\n')
    third = effectiveness.extract([str(tmp_path / "events")], hist)
    assert (third.files_read, third.files_unchanged) == (1, 1)
    assert _said(third) == {
        "skipped_lines": [],
        "warnings": [],
        "invalid": [],
        "incomplete": ["r-new"],
    }
    assert not third.rejected


def test_many_rejected_lines_are_counted_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(effectiveness, "MANIFEST_DIAGNOSTICS", 2)
    ev = tmp_path / "events"
    ev.mkdir()
    (ev / "x.jsonl").write_text('{"run_id":"r","seq":1,"type":"run.start"}\n' + "garbage\n" * 5)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([str(ev)], hist)
    assert [d.line for d in first.skipped_lines] == [2, 3, 4, 5, 6]
    manifest = json.loads(Path(effectiveness.manifest_path(hist)).read_text())
    (entry,) = manifest["files"].values()
    assert entry["skipped_more"] == 3 and len(entry["skipped"]) == 2
    again = effectiveness.extract([str(ev)], hist)
    assert [(d.line, d.reason) for d in again.skipped_lines] == [
        (
            0,
            "and 3 more rejected line(s), not listed again: the file is unchanged since it "
            "was read",
        ),
        (2, first.skipped_lines[0].reason),
        (3, first.skipped_lines[1].reason),
    ]


def test_a_file_given_up_on_is_said_again(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "could not be aligned" has no known trigger left (the parsers agree on every line
    # tried), so the reader is made to give up on b.jsonl; the rerun must say so again.
    from runscore.engine import sources

    _corpus(tmp_path, fixtures)
    real = sources.read_jsonl

    def giving_up(*args: Any, **kw: Any) -> sources.ReadResult:
        res = real(*args, **kw)
        for f in res.files:
            if f.display.endswith("b.jsonl"):
                res.skipped.append(sources.LineIssue(f.display, 0, "given up"))
        return res

    monkeypatch.setattr(sources, "read_jsonl", giving_up)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([str(tmp_path / "events")], hist)
    assert [(Path(u.file).name, u.reason) for u in first.unreadable] == [("b.jsonl", "given up")]
    monkeypatch.setattr(sources, "read_jsonl", real)
    again = effectiveness.extract([str(tmp_path / "events")], hist)
    assert again.files_unchanged == 2
    assert again.unreadable == first.unreadable


def test_a_rerun_with_nothing_new_writes_nothing_and_takes_no_lock(
    tmp_path: Path, fixtures: Path
) -> None:
    from runscore.engine import history
    from runscore.engine.errors import LockTimeout

    _corpus(tmp_path, fixtures)
    hist = tmp_path / "h.jsonl"
    first = effectiveness.extract([str(tmp_path / "events")], str(hist))
    assert first.records_written > 0
    manifest = Path(effectiveness.manifest_path(str(hist)))
    before = (hist.read_bytes(), manifest.stat().st_ino, manifest.stat().st_mtime_ns)
    # Another writer holds the lock: a rerun with nothing to write does not wait for it.
    with history.locked(str(hist), timeout=0):
        again = effectiveness.extract([str(tmp_path / "events")], str(hist), lock_timeout=0)
    assert (again.files_read, again.files_unchanged, again.records_written) == (0, 2, 0)
    assert _said(again) == _said(first)
    assert (hist.read_bytes(), manifest.stat().st_ino, manifest.stat().st_mtime_ns) == before
    # A new file with a run but no review records: nothing to append, but the manifest
    # must learn the file, so it still waits for the lock (and gives up at the timeout).
    (tmp_path / "events" / "c.jsonl").write_text(
        '{"run_id":"r-c","seq":1,"type":"run.start"}\n'
        '{"run_id":"r-c","seq":2,"parent":[1],"type":"run.complete"}\n'
    )
    with history.locked(str(hist), timeout=0):
        with pytest.raises(LockTimeout):
            effectiveness.extract([str(tmp_path / "events")], str(hist), lock_timeout=0)
    third = effectiveness.extract([str(tmp_path / "events")], str(hist))
    assert (third.files_read, third.files_unchanged) == (1, 2)
    assert any(k.endswith("c.jsonl") for k in json.loads(manifest.read_text())["files"])


def test_a_rerun_with_every_file_unchanged_scores_nothing(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No SQL runs when nothing is read; ``records`` is still the version's, empty."""
    _corpus(tmp_path, fixtures)
    hist = str(tmp_path / "h.jsonl")
    first = effectiveness.extract([str(tmp_path / "events"), str(tmp_path / "gone")], hist)
    real = effectiveness.build_event_tables
    calls: list[int] = []

    def counted(*a: Any, **k: Any) -> Any:
        calls.append(len(a[1]))
        return real(*a, **k)

    monkeypatch.setattr(effectiveness, "build_event_tables", counted)
    again = effectiveness.extract([str(tmp_path / "events"), str(tmp_path / "gone")], hist)
    assert calls == []
    assert (again.files_read, again.files_unchanged, again.runs_scored) == (0, 2, 0)
    assert _said(again) == _said(first)
    assert (
        again.unreadable
        == first.unreadable
        == [LineIssue(str(tmp_path / "gone"), 0, "no such file or directory")]
    )
    assert again.rejected and first.rejected
    # Asked for, the records are computed: none, in the columns a scoring gives.
    assert again.records.num_rows == 0 and calls == [0]
    assert again.records.schema == first.records.schema


def _collector_seen(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """``gc.isenabled()`` as each extract's scoring finds it, appended as it runs."""
    import gc

    seen: list[bool] = []
    real = effectiveness.build_event_tables

    def spy(*a: Any, **k: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*a, **k)

    monkeypatch.setattr(effectiveness, "build_event_tables", spy)
    return seen


def _extract_on_and_off(tmp_path: Path) -> None:
    """Two extracts, one with the collector on and one with it off (and a refused one
    after each): each leaves it as it was."""
    import gc

    from runscore.engine.errors import UsageError

    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            effectiveness.extract([str(tmp_path / "events")], str(tmp_path / f"h-{enabled}.jsonl"))
            assert gc.isenabled() is enabled
            with pytest.raises(UsageError):
                effectiveness.extract([str(tmp_path / "events")], str(tmp_path / "h.jsonl"), "v0")
            assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_a_library_extract_leaves_the_cyclic_collector_as_it_finds_it(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library ``extract`` turned Python's cyclic collector off process-wide while it ran:
    for every other thread of the application too. It leaves it as it finds it now (on or
    off), during the call and after."""
    seen = _collector_seen(monkeypatch)
    _corpus(tmp_path, fixtures)
    _extract_on_and_off(tmp_path)
    assert seen == [True, False]


def test_in_runscores_own_process_extract_pauses_the_collector(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the process is said to be runscore's own (``process.own_process``, the CLI's
    entry point), extract pauses the collector, and restores it after, also on an error."""
    from runscore.engine import process

    monkeypatch.setattr(process, "_own", True)
    seen = _collector_seen(monkeypatch)
    _corpus(tmp_path, fixtures)
    _extract_on_and_off(tmp_path)
    assert seen == [False, False]


def test_the_cli_process_runs_extract_with_the_collector_paused(
    tmp_path: Path, fixtures: Path
) -> None:
    """``runscore extract``, through the entry point the script and ``python -m runscore``
    run: the process is runscore's, and its extract scores with the collector paused."""
    import subprocess
    import sys

    _corpus(tmp_path, fixtures)
    code = (
        "import gc, sys\n"
        "from runscore.engine.packs import effectiveness as e\n"
        "real = e.build_event_tables\n"
        "def spy(*a, **k):\n"
        "    sys.stderr.write(f'collector enabled: {gc.isenabled()}\\n')\n"
        "    return real(*a, **k)\n"
        "e.build_event_tables = spy\n"
        "sys.argv = ['runscore', 'extract', '--history', sys.argv[1], sys.argv[2]]\n"
        "from runscore.__main__ import main\n"
        "main()\n"
    )
    hist, events = str(tmp_path / "h.jsonl"), str(tmp_path / "events")
    out = subprocess.run(
        [sys.executable, "-c", code, hist, events], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 1, out.stderr  # b.jsonl's rejected lines
    lines = out.stderr.splitlines()
    assert lines[0] == "collector enabled: False"
    assert lines[-1].startswith(f"2 run(s) scored, 3 record(s) written to {hist};"), lines
