"""History integrity: damaged histories are read with a diagnostic, checked and repaired.

A torn last line (a writer killed mid-append), a line another tool wrote, and
ArcheFlow's own 15-field lines: ``report`` reads around them with ``file:line: reason``,
``runscore history check`` lists them, ``runscore history repair`` writes a clean copy
(the history itself only with ``--in-place``, which keeps a backup).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import history_tools, sources
from runscore.engine.packs import effectiveness
from runscore.engine.packs import effectiveness_history as eh

LEGACY = {
    "ts": "2026-03-01T09:00:00Z",
    "run_id": "old-run",
    "archetype": "guardian",
    "signal_to_noise": 0.5,
    "fix_rate": 0.5,
    "cost_efficiency": 0,
    "accuracy": 0.75,
    "cycle_impact": True,
    "composite_score": 0.49,
    "tokens": 0,
    "cost_usd": 0,
    "model": "unknown",
    "findings_total": 2,
    "findings_useful": 1,
    "fixes_applied": 1,
}
FOREIGN = b'{"level":"info","msg":"backup done","time":"2026-04-01T00:00:00Z"}'


@pytest.fixture
def damaged(tmp_path: Path, hh: Any) -> tuple[Path, Path, list[Any]]:
    """A history of 3 runs (6 records), then a foreign line, a legacy line and a torn
    append of a 4th run's records (the first whole, the second cut in the middle)."""
    ev = tmp_path / "events"
    for r in ("a", "b", "c"):
        hh.write_jsonl(ev / f"{r}.jsonl", hh.run_events(r))
    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract([str(ev)], str(hist))
    clean = hh.current_records(hist)
    hh.write_jsonl(ev / "d.jsonl", hh.run_events("d"))
    recs = effectiveness.extract([str(ev / "d.jsonl")], None, write=False).records
    lines = [json.dumps(r, separators=(",", ":")).encode() for r in recs.to_pylist()]
    with hist.open("ab") as f:
        f.write(FOREIGN + b"\n" + json.dumps(LEGACY).encode() + b"\n")
        f.write(lines[0] + b"\n" + lines[1][: len(lines[1]) // 2])  # killed mid-write
    return tmp_path, hist, clean


def test_readers_skip_with_a_diagnostic(damaged: tuple[Path, Path, list[Any]]) -> None:
    _, hist, clean = damaged
    res = eh.report(hist)  # no exception
    issues = [(i.line, i.reason.split(": ")[0]) for i in res.issues]
    # the torn line is named so by the reader itself (what `history check` says of it)
    assert issues == [(7, "history line skipped"), (10, sources.TORN_LAST_LINE)]
    assert res.issues[1].reason.startswith(f"{sources.TORN_LAST_LINE}: not JSON: ")
    assert {r["archetype"] for r in res.table.to_pylist()} == {"guardian", "sage"}
    legacy = eh.report(hist, version="archeflow-legacy")
    assert [(r["archetype"], r["runs"]) for r in legacy.table.to_pylist()] == [("guardian", 1)]


def test_check_lists_every_problem(damaged: tuple[Path, Path, list[Any]], run_cli: Any) -> None:
    _, hist, _ = damaged
    res = run_cli("history", "check", str(hist))
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert lines[0] == (
        f"{hist}:7: history line skipped: missing run_id; missing archetype; missing ts; "
        "missing composite_score"
    )
    assert lines[1].startswith(
        f"{hist}:10: torn last line (no newline at the end; a writer was interrupted or is still writing): not JSON"
    )
    assert "1 line(s) written by ArcheFlow's own scorer (archeflow-legacy)" in res.stderr
    assert lines[-1].endswith("2 bad, 0 duplicate")
    data = json.loads(run_cli("history", "check", str(hist), "--format", "json").stdout)
    assert (data["lines"], data["usable"], data["legacy"], data["ok"]) == (10, 8, 1, False)
    assert data["versions"] == {"archeflow-legacy": 1, "effectiveness/v1": 7}


def test_check_counts_only_archeflow_s_own_lines_as_its_scorer_s(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    # `extract --sql-version archeflow-legacy` writes archeflow-legacy lines too (with an
    # events hash): check said all of them were "written by ArcheFlow's own scorer".
    ev = tmp_path / "events"
    hh.write_jsonl(ev / "a.jsonl", hh.run_events("a"))
    hist = tmp_path / "effectiveness.jsonl"
    effectiveness.extract([str(ev)], str(hist), "archeflow-legacy")
    with hist.open("a") as f:
        f.write(json.dumps(LEGACY) + "\n")
    data = json.loads(run_cli("history", "check", str(hist), "--format", "json").stdout)
    assert (data["versions"], data["legacy"]) == ({"archeflow-legacy": 3}, 1)
    assert data["notes"] == ["1 line(s) written by ArcheFlow's own scorer (archeflow-legacy)"]
    hist.write_text(hist.read_text().splitlines(keepends=True)[0])
    data = json.loads(run_cli("history", "check", str(hist), "--format", "json").stdout)
    assert (data["versions"], data["legacy"], data["notes"]) == ({"archeflow-legacy": 1}, 0, [])


def test_check_and_repair_take_history_as_the_other_commands_do(
    damaged: tuple[Path, Path, list[Any]], run_cli: Any
) -> None:
    tmp, hist, _ = damaged
    positional = run_cli("history", "check", str(hist), "--format", "json")
    option = run_cli("history", "check", "--history", str(hist), "--format", "json")
    assert (option.exit_code, option.stdout, option.stderr) == (
        positional.exit_code,
        positional.stdout,
        positional.stderr,
    )
    assert positional.exit_code == 1
    # the same file both ways is one file (text: the findings on stderr alone)
    both = run_cli("history", "check", str(hist), "--history", str(hist))
    assert (both.exit_code, both.stdout, both.stderr) == (1, "", positional.stderr)
    other = tmp / "other.jsonl"
    for cmd in ("check", "repair"):
        two = run_cli("history", cmd, str(hist), "--history", str(other))
        assert two.exit_code == 2
        assert f"two history files given: {hist} and --history {other}" in two.stderr
    assert not other.exists()
    res = run_cli("history", "repair", "--history", str(hist))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == str(hist.with_name("effectiveness.repaired.jsonl"))


def test_extract_after_a_torn_line_appends_whole_lines(
    damaged: tuple[Path, Path, list[Any]], hh: Any
) -> None:
    tmp, hist, _ = damaged
    effectiveness.extract([str(tmp / "events")], str(hist))
    raw = hist.read_bytes().split(b"\n")
    with pytest.raises(ValueError):
        json.loads(raw[9])  # the torn line stays one bad line
    assert json.loads(raw[10])["run_id"] == "d"  # the next append starts on its own line
    check = history_tools.check(str(hist))
    assert [i.line for i in check.issues] == [7, 10]
    # d's sage record (torn) was written again; d's guardian record was whole: kept once.
    keys = hh.history_keys(hist)
    assert len(keys) == len(set(keys))
    assert {(r[0], r[1]) for r in hh.current_records(hist)} >= {("d", "guardian"), ("d", "sage")}


def test_repair_writes_a_new_file(damaged: tuple[Path, Path, list[Any]], run_cli: Any) -> None:
    _, hist, _ = damaged
    original = hist.read_bytes()
    res = run_cli("history", "repair", str(hist))
    assert res.exit_code == 0, res.stderr
    target = hist.with_name("effectiveness.repaired.jsonl")
    assert res.stdout.strip() == str(target)
    assert hist.read_bytes() == original  # never in place without --in-place
    kept = original.split(b"\n")
    assert target.read_bytes() == b"".join(kept[i] + b"\n" for i in (0, 1, 2, 3, 4, 5, 7, 8))
    assert run_cli("history", "check", str(target)).exit_code == 0
    assert eh.report(target).table == eh.report(hist).table
    again = run_cli("history", "repair", str(hist))
    assert again.exit_code == 2 and "exists" in again.stderr  # no silent overwrite
    assert run_cli("history", "repair", str(hist), "--force").exit_code == 0
    same = run_cli("history", "repair", str(hist), "--out", str(hist))
    assert same.exit_code == 2 and "--in-place" in same.stderr


def test_repair_and_export_never_replace_a_file_kept_beside_the_history(
    damaged: tuple[Path, Path, list[Any]], run_cli: Any
) -> None:
    # `history repair --out H.lock --force` replaced the history's lock file with the
    # repaired lines (a writer holding the old lock and one locking the new one could then
    # append at once); `export --to H.cache.duckdb` wrote over the history's cache, which
    # the next report took for a foreign cache and wrote its own over.
    _, hist, _ = damaged
    lock = Path(f"{hist}.lock")
    cache = Path(f"{hist}.cache.duckdb")
    lock.write_bytes(b"")
    cache.write_bytes(b"cache")
    r = run_cli("history", "repair", str(hist), "--out", str(lock), "--force")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: {lock}: runscore keeps that file beside the history {hist} (a lock, the "
        "extract manifest, the cache, the nightly journal or the pipeline history); choose "
        "another --out "
        "(see 'cli history repair --help')\n"
    )
    r = run_cli("export", "--to", str(cache), "--history", str(hist))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: {cache}: runscore keeps that file beside the history {hist} (a lock, the "
        "extract manifest, the cache, the nightly journal or the pipeline history); choose "
        "another --to "
        "(see 'cli export --help')\n"
    )
    assert (lock.read_bytes(), cache.read_bytes()) == (b"", b"cache")
    # The nightly job's journal: replaced, an interrupted job's runs were said by no run log
    # and the next job failed the history's step (not a journal runscore wrote).
    journal = Path(f"{hist}.nightly.journal")
    kept = b'{"kind": "runscore-nightly-journal-v1", "jobs": []}\n'
    journal.write_bytes(kept)
    r = run_cli("history", "repair", str(hist), "--out", str(journal), "--force")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: {journal}: runscore keeps that file beside the history {hist} (a lock, the "
        "extract manifest, the cache, the nightly journal or the pipeline history); choose "
        "another --out (see 'cli history repair --help')\n"
    )
    assert journal.read_bytes() == kept


def test_repair_in_place_keeps_a_backup_and_heals(
    damaged: tuple[Path, Path, list[Any]], run_cli: Any, hh: Any
) -> None:
    tmp, hist, _ = damaged
    original = hist.read_bytes()
    res = run_cli("history", "repair", str(hist), "--in-place")
    assert res.exit_code == 0, res.stderr
    (backup,) = tmp.glob("effectiveness.jsonl.bak-*")
    assert backup.read_bytes() == original
    assert run_cli("history", "check", str(hist)).exit_code == 0
    assert not Path(effectiveness.manifest_path(str(hist))).exists()
    # The next extract re-reads everything: d's torn record comes back, nothing doubles.
    effectiveness.extract([str(tmp / "events")], str(hist))
    reference = tmp / "reference.jsonl"
    effectiveness.extract([str(tmp / "events")], str(reference))
    legacy = [r for r in hh.current_records(hist) if r[0] == "old-run"]
    assert [r for r in hh.current_records(hist) if r[0] != "old-run"] == hh.current_records(
        reference
    )
    assert len(legacy) == 1
    clean = run_cli("history", "repair", str(hist), "--in-place")
    assert clean.exit_code == 0 and "nothing to repair" in clean.stderr


def test_duplicates_and_missing_files(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    hh.write_jsonl(tmp_path / "e.jsonl", hh.run_events("a"))
    hist = tmp_path / "h.jsonl"
    effectiveness.extract([str(tmp_path / "e.jsonl")], str(hist))
    hist.write_bytes(hist.read_bytes() * 2)  # e.g. a careless concatenation
    res = run_cli("history", "check", str(hist))
    assert res.exit_code == 1
    # Equal ts: the readers take the later line, so the earlier copy is the duplicate.
    assert f"{hist}:1: duplicate record: same run, archetype, version and events as line 3" in (
        res.stderr
    )
    run_cli("history", "repair", str(hist), "--in-place")
    assert len(hist.read_bytes().splitlines()) == 2
    assert run_cli("history", "check", str(tmp_path / "nope.jsonl")).exit_code == 3


def test_repair_keeps_the_line_the_reports_read(tmp_path: Path, run_cli: Any) -> None:
    # A run scored from events A, re-scored from B after it changed, then from A again
    # (the events went back): three records, none a copy, as extract writes them (§4: the
    # events changed). check called line 1 a duplicate of line 3; it is a superseded
    # record, as B's is. A copy of line 3 appended (a careless concatenation) is one:
    # repair drops the earlier of the two and keeps the line the readers take, so the
    # report does not change (keeping the first A of the file instead made B current).
    def rec(ts: str, score: float, events: str) -> str:
        return json.dumps(
            {"ts": ts, "run_id": "run1", "archetype": "guardian", "composite_score": score,
             "model": "haiku", "scoring_version": "effectiveness/v1",
             "run_ts": "2026-01-01T00:00:00Z", "events_sha256": events}
        )  # fmt: skip

    lines = [rec("2026-01-01T00:00:00Z", 0.9, "aaaa"), rec("2026-01-02T00:00:00Z", 0.1, "bbbb"),
             rec("2026-01-03T00:00:00Z", 0.9, "aaaa")]  # fmt: skip
    hist = tmp_path / "h.jsonl"
    hist.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def report() -> list[dict[str, Any]]:
        r = run_cli("report", "--history", str(hist), "--format", "json")
        assert r.exit_code == 0, r.stderr
        rows: list[dict[str, Any]] = json.loads(r.stdout)
        return rows

    before = report()
    assert [(r["avg_composite"], r["recommendation"]) for r in before] == [(0.9, "keep")]
    res = run_cli("history", "check", str(hist))
    assert (res.exit_code, res.stderr) == (
        0,
        f"{hist}: 3 line(s), 3 usable (effectiveness/v1: 3); 0 bad, 0 duplicate\n",
    )
    hist.write_text("\n".join([*lines, lines[2]]) + "\n", encoding="utf-8")
    res = run_cli("history", "check", str(hist))
    assert res.exit_code == 1
    assert [ln for ln in res.stderr.splitlines() if "duplicate record:" in ln] == [
        f"{hist}:3: duplicate record: same run, archetype, version and events as line 4"
    ]
    assert run_cli("history", "repair", str(hist), "--in-place").exit_code == 0
    assert hist.read_text() == "\n".join(lines) + "\n"
    assert report() == before


def test_an_archeflow_line_written_twice_is_a_duplicate(tmp_path: Path, run_cli: Any) -> None:
    # ArcheFlow's own lines have no events_sha256, the key extract's duplicates are found
    # by: the same line again was not reported at all. A line equal to an earlier one in
    # every field is; one that differs in any field (here ts: a re-score) is not.
    again = dict(LEGACY, ts="2026-03-02T09:00:00Z")
    other = dict(LEGACY, composite_score=0.5)
    body = [json.dumps(r).encode() for r in (LEGACY, again, other, LEGACY, LEGACY)]
    # the same record with its keys in another order and no spaces: the same JSON
    body.append(json.dumps(dict(reversed(LEGACY.items())), separators=(",", ":")).encode())
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(b"\n".join(body) + b"\n")
    res = run_cli("history", "check", str(hist))
    assert res.exit_code == 1
    assert [ln for ln in res.stderr.splitlines() if "duplicate record" in ln] == [
        f"{hist}:{n}: duplicate record: equal in every field to line 1" for n in (4, 5, 6)
    ]
    data = json.loads(run_cli("history", "check", str(hist), "--format", "json").stdout)
    assert [d["line"] for d in data["duplicates"]] == [4, 5, 6]
    fixed = run_cli("history", "repair", str(hist), "--in-place")
    assert fixed.exit_code == 0, fixed.stderr
    assert hist.read_bytes() == b"\n".join(body[:3]) + b"\n"


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        (FOREIGN, "history line skipped: missing run_id; missing archetype; missing ts; "
         "missing composite_score"),
        (b"[1, 2]", "not a JSON object (an array)"),
        (json.dumps(dict(LEGACY, composite_score="high")).encode(),
         "history line skipped: composite_score is not a number"),
    ],
    ids=["foreign", "array", "invalid-record"],
)  # fmt: skip
def test_a_complete_json_last_line_is_not_torn(
    tmp_path: Path, run_cli: Any, tail: bytes, reason: str
) -> None:
    # A last line of complete JSON that is no valid record, without its newline, was
    # reported as torn ("a writer was interrupted"): only a line whose text is not JSON can
    # be an append cut short. It has the reason it has with its newline, and check and
    # repair say and do the same either way.
    good = json.dumps(LEGACY).encode()
    for ending in (b"", b"\n"):
        hist = tmp_path / f"h{len(ending)}.jsonl"
        hist.write_bytes(good + b"\n" + tail + ending)
        res = run_cli("history", "check", str(hist))
        assert res.exit_code == 1
        assert res.stderr.splitlines()[0] == f"{hist}:2: {reason}"
        out = tmp_path / f"repaired{len(ending)}.jsonl"
        rep = run_cli("history", "repair", str(hist), "--out", str(out))
        assert rep.exit_code == 0, rep.stderr
        assert rep.stderr.splitlines()[0] == f"{hist}:2: dropped: {reason}"
        assert out.read_bytes() == good + b"\n"


def test_an_unread_last_line_without_its_newline_is_kept(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A line over RUNSCORE_MAX_LINE_BYTES is skipped unread and repair keeps it; the last
    # one, without its newline, was called torn and dropped: a whole record lost to a low
    # limit. Not known to be cut short, it is kept unread as the lines before it are.
    body = [json.dumps(dict(LEGACY, run_id=f"run-{i}")).encode() for i in range(2)]
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(body[0] + b"\n" + body[1])
    monkeypatch.setenv("RUNSCORE_MAX_LINE_BYTES", "100")
    res = run_cli("history", "repair", str(hist), "--in-place")
    assert res.exit_code == 0, res.stderr
    unread = "kept unread: line longer than 100 bytes (raise RUNSCORE_MAX_LINE_BYTES to check it)"
    assert res.stderr.splitlines()[:2] == [f"{hist}:1: {unread}", f"{hist}:2: {unread}"]
    assert hist.read_bytes() == body[0] + b"\n" + body[1] + b"\n"


def test_repair_keeps_lines_it_could_not_read(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A line over RUNSCORE_MAX_LINE_BYTES is skipped unread: nothing says it is bad.
    # repair --in-place dropped every such line, so a limit set low emptied the history.
    recs = [dict(LEGACY, run_id=f"run-{i}") for i in range(2)]
    body = [json.dumps(r).encode() for r in recs]
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(body[0] + b"\ngarbage\n" + body[1] + b"\n")
    monkeypatch.setenv("RUNSCORE_MAX_LINE_BYTES", "100")
    res = run_cli("history", "repair", str(hist), "--in-place")
    assert res.exit_code == 0, res.stderr
    assert res.stderr.splitlines()[:3] == [
        f"{hist}:1: kept unread: line longer than 100 bytes (raise RUNSCORE_MAX_LINE_BYTES "
        "to check it)",
        f"{hist}:2: dropped: not JSON: Expecting value: line 1 column 1 (char 0)",
        f"{hist}:3: kept unread: line longer than 100 bytes (raise RUNSCORE_MAX_LINE_BYTES "
        "to check it)",
    ]
    assert f"{hist}: 2 line(s) kept, 1 dropped" in res.stderr
    assert hist.read_bytes() == body[0] + b"\n" + body[1] + b"\n"
    again = run_cli("history", "repair", str(hist), "--in-place")
    assert again.exit_code == 0 and f"{hist}: nothing to drop" in again.stderr
    assert len(list(tmp_path.glob("h.jsonl.bak-*"))) == 1
    monkeypatch.delenv("RUNSCORE_MAX_LINE_BYTES")
    assert run_cli("history", "check", str(hist)).exit_code == 0


def test_repair_of_a_history_with_no_readable_line_writes_nothing_unless_forced(
    tmp_path: Path, run_cli: Any
) -> None:
    # It wrote an empty copy (exit 0), and --in-place emptied the history, where every
    # reader takes such a history for nothing read (exit 3, each line listed).
    hist = tmp_path / "h.jsonl"
    original = b'not json\n{"x": 1}\n{"run_id": "a", "ts"'
    hist.write_bytes(original)
    listing = [
        f"  {hist}:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        f"  {hist}:2: history line skipped: missing run_id; missing archetype; missing ts; "
        "missing composite_score",
        f"  {hist}:3: torn last line (no newline at the end; a writer was interrupted or is "
        "still writing): not JSON: Expecting ':' delimiter: line 1 column 21 (char 20)",
    ]
    res = run_cli("history", "repair", str(hist))
    assert (res.exit_code, res.stdout, res.stderr.splitlines()) == (
        3,
        "",
        [
            f"error: no line of the history {hist} could be read: a repaired copy would hold "
            "none, so none is written (--force writes it empty):",
            *listing,
        ],
    )
    res = run_cli("history", "repair", str(hist), "--in-place")
    assert (res.exit_code, res.stdout, res.stderr.splitlines()) == (
        3,
        "",
        [
            f"error: no line of the history {hist} could be read: repaired, it would hold "
            "none, so it is left as it is (--force empties it, keeping a backup):",
            *listing,
        ],
    )
    # Refused, it left nothing: it made the history's lock file (h.jsonl.lock) and then
    # refused under it, leaving the lock file behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]
    assert hist.read_bytes() == original
    # Forced: the empty copy, or the history emptied with its backup (--force with
    # --in-place was a usage error: it only meant "overwrite --out").
    res = run_cli("history", "repair", str(hist), "--force")
    assert (res.exit_code, res.stdout) == (0, f"{tmp_path / 'h.repaired.jsonl'}\n")
    assert (tmp_path / "h.repaired.jsonl").read_bytes() == b""
    res = run_cli("history", "repair", str(hist), "--in-place", "--force")
    assert (res.exit_code, res.stdout) == (0, f"{hist}\n")
    assert f"{hist}: 0 line(s) kept, 3 dropped; backup " in res.stderr
    (backup,) = tmp_path.glob("h.jsonl.bak-*")
    assert (hist.read_bytes(), backup.read_bytes()) == (b"", original)
    # A history of no line is read, and has no rows: repaired as it was.
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n \n")
    assert run_cli("history", "repair", str(blank)).exit_code == 0


def test_repair_in_place_refuses_under_an_existing_lock_file_and_keeps_it(
    tmp_path: Path, run_cli: Any
) -> None:
    # A history a runscore command locked before has its lock file: the refusal is made
    # under the lock, as before, and the lock file (not this command's) stays.
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(b"not json\n")
    (tmp_path / "h.jsonl.lock").write_bytes(b"")
    res = run_cli("history", "repair", str(hist), "--in-place")
    assert (res.exit_code, res.stdout, res.stderr.splitlines()) == (
        3,
        "",
        [
            f"error: no line of the history {hist} could be read: repaired, it would hold "
            "none, so it is left as it is (--force empties it, keeping a backup):",
            f"  {hist}:1: not JSON: Expecting value: line 1 column 1 (char 0)",
        ],
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "h.jsonl.lock"]
    assert hist.read_bytes() == b"not json\n"


def test_repair_out_a_folder_says_so_without_force(tmp_path: Path, run_cli: Any) -> None:
    # It said "exists; choose another --out or add --force", and --force then said "is a
    # directory": the advice led nowhere.
    hist = tmp_path / "h.jsonl"
    hist.write_text("")
    (tmp_path / "out").mkdir()
    for extra in [(), ("--force",)]:
        r = run_cli("history", "repair", "h.jsonl", "--out", "out", *extra)
        assert (r.exit_code, r.stdout, r.stderr) == (
            2,
            "",
            "error: out: is a directory; give a file as --out (see 'cli history repair --help')\n",
        ), extra
