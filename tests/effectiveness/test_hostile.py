"""Hostile inputs (spec §1): every malformed case gets its diagnostic, no other run is lost.

The good run is ArcheFlow's scorer fixture (run ``score-run``); a bad line is put in
the middle of its file, so the lines after it must still be read. Its records must
equal the records of the clean fixture (without ``ts``/``source``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.errors import NothingReadable
from runscore.engine.packs import effectiveness as eff

BAD_LINES: list[tuple[str, bytes, str]] = [
    ("not-utf8", b'\xff\xfe{"run_id":"x","type":"note"}', r"^not valid UTF-8"),
    (
        "not-utf8-in-string",
        b'{"run_id":"score-run","seq":20,"type":"note","data":{"d":"\xc3\x28"}}',
        r"^not valid UTF-8",
    ),
    ("not-json", b'{"run_id": "x", ', r"^not JSON"),
    ("torn-line", b'{"run_id":"score-run","seq":20,"type":"no', r"^not JSON"),
    ("nan", b'{"run_id":"score-run","seq":20,"type":"note","data":{"v":NaN}}', r"^not JSON"),
    ("infinity", b'{"run_id":"x","type":"note","data":{"v":Infinity}}', r"^not JSON"),
    ("minus-infinity", b'{"run_id":"x","type":"note","data":{"v":-Infinity}}', r"^not JSON"),
    # DuckDB's parser reads these as numbers too, in any case (spec: not JSON).
    (
        "nan-lowercase",
        b'{"run_id":"score-run","seq":20,"type":"note","data":{"v":nan}}',
        r"^not JSON",
    ),
    ("inf-in-a-list", b'{"run_id":"x","type":"note","data":{"v":[1, -INF]}}', r"^not JSON"),
    ("infinity-mixed-case", b'{"run_id":"x","type":"note","cost": iNfinity}', r"^not JSON"),
    ("nan-alone", b"nan", r"^not JSON"),
    ("array", b'[{"run_id":"x","type":"note"}]', r"^not a JSON object"),
    ("string", b'"run_id"', r"^not a JSON object"),
    ("number", b"42", r"^not a JSON object"),
    ("null", b"null", r"^not a JSON object"),
    ("true", b"true", r"^not a JSON object"),
    ("empty-object", b"{}", r"^missing run_id$"),
    ("no-run-id", b'{"seq":20,"type":"note"}', r"^missing run_id$"),
    ("null-run-id", b'{"run_id":null,"type":"note"}', r"^missing run_id$"),
    ("empty-run-id", b'{"run_id":"","type":"note"}', r"^run_id is empty$"),
    ("numeric-run-id", b'{"run_id":7,"type":"note"}', r"^run_id is not a string$"),
    ("object-run-id", b'{"run_id":{"id":"x"},"type":"note"}', r"^run_id is not a string$"),
    ("no-type", b'{"run_id":"score-run","seq":20}', r"^missing type$"),
    ("empty-type", b'{"run_id":"score-run","type":""}', r"^type is empty$"),
    ("list-type", b'{"run_id":"score-run","type":["note"]}', r"^type is not a string$"),
]


FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "effectiveness"
    / "archeflow-fixture"
    / "events.jsonl"
)
#: One per kind of diagnostic, each alone in the good file (all of them at once below).
ALONE = {
    "not-utf8",
    "nan",
    "nan-lowercase",
    "inf-in-a-list",
    "nan-alone",
    "torn-line",
    "array",
    "null-run-id",
    "empty-run-id",
    "numeric-run-id",
    "no-type",
    "empty-type",
    "list-type",
}


@pytest.fixture
def good() -> list[bytes]:
    return FIXTURE.read_bytes().splitlines()


@pytest.fixture(scope="module")
def baseline(h: Any) -> dict[tuple[str, str], dict[str, Any]]:
    recs = h.by_key(h.records([FIXTURE]))
    assert set(recs) == {("score-run", "guardian"), ("score-run", "sage")}
    return recs


def _extract(paths: list[Path | str], **kw: Any) -> eff.ExtractResult:
    return eff.extract(
        [str(p) for p in paths], "unused.jsonl", write=False, scored_at="2026-05-01T00:00:00Z", **kw
    )


def _keyed(h: Any, res: eff.ExtractResult) -> dict[tuple[str, str], dict[str, Any]]:
    return h.by_key(res.records.to_pylist())


@pytest.mark.parametrize(
    ("name", "bad", "reason"),
    [b for b in BAD_LINES if b[0] in ALONE],
    ids=sorted(ALONE, key=[b[0] for b in BAD_LINES].index),
)
def test_malformed_line_is_reported_and_skipped(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any, name: str, bad: bytes, reason: str
) -> None:
    lines = good[:4] + [bad] + good[4:]
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    res = _extract([path])
    assert [(s.file, s.line) for s in res.skipped_lines] == [(str(path), 5)]
    assert re.search(reason, res.skipped_lines[0].reason), res.skipped_lines[0]
    assert res.rejected and not res.invalid and not res.incomplete and not res.warnings
    assert _keyed(h, res) == baseline
    assert res.runs_scored == 1


def test_every_malformed_line_at_once(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any
) -> None:
    """All bad lines in one file, between good lines of two runs: all reported, in order."""
    other = [line.replace(b'"score-run"', b'"other-run"') for line in good]
    lines: list[bytes] = []
    expect: list[int] = []
    for i, (_, bad, _) in enumerate(BAD_LINES):
        lines.append(good[i % len(good)])
        lines.append(bad)
        expect.append(len(lines))
    lines += good + other
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    res = _extract([path])
    assert [s.line for s in res.skipped_lines] == expect
    for s, (_, _, reason) in zip(res.skipped_lines, BAD_LINES, strict=True):
        assert re.search(reason, s.reason), s
    got = _keyed(h, res)
    assert {k: v for k, v in got.items() if k[0] == "score-run"} == baseline
    other_run = {k[1]: v for k, v in got.items() if k[0] == "other-run"}
    assert set(other_run) == {"guardian", "sage"}
    for arch in ("guardian", "sage"):
        want = dict(baseline[("score-run", arch)], run_id="other-run")
        want.pop("events_sha256")
        assert {k: v for k, v in other_run[arch].items() if k != "events_sha256"} == want


@pytest.mark.parametrize("layout", ["crlf", "crlf-blank-lines", "no-final-newline"])
def test_blank_lines_and_crlf_are_silently_fine(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any, layout: str
) -> None:
    if layout == "crlf":
        data = b"\r\n".join(good) + b"\r\n"
    elif layout == "crlf-blank-lines":
        lines = [b"", good[0], b"   \t", *good[1:4], b"", *good[4:]]
        data = b"\r\n".join(lines)  # CRLF everywhere, no final newline
    else:
        data = b"\n".join(good)
    path = tmp_path / f"{layout}.jsonl"
    path.write_bytes(data)
    res = _extract([path])
    assert res.skipped_lines == [] and res.warnings == [] and not res.rejected
    assert _keyed(h, res) == baseline  # same events → same events_sha256 too


def test_skipped_lines_follow_input_order(tmp_path: Path, good: list[bytes]) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes(b"\n".join([good[0], b"nope", good[1], b"[]"]) + b"\n")
    b = tmp_path / "b.jsonl"
    b.write_bytes(b"\n".join([b"{}", *good[2:]]) + b"\n")
    res = _extract([b, a])
    assert [(s.file, s.line) for s in res.skipped_lines] == [
        (str(b), 1),
        (str(a), 2),
        (str(a), 4),
    ]
    assert res.runs_scored == 1


def test_description_containing_nan_is_not_rejected(tmp_path: Path, h: Any) -> None:
    """The NaN/Infinity check is about JSON tokens, not text inside strings."""
    evs = [
        h.ev(
            1,
            "review.verdict",
            agent="guardian",
            verdict="needs_changes",
            findings=[
                {
                    "severity": "bug",
                    "fix_required": True,
                    "description": "NaN and Infinity leak into totals",
                }
            ],
        ),
        h.ev(2, "run.complete", status="done"),
    ]
    res = _extract([h.write_jsonl(tmp_path / "nan.jsonl", evs)])
    assert res.skipped_lines == []
    assert _keyed(h, res)[("r1", "guardian")]["findings_useful"] == 1


def test_bad_seqs_are_replaced_by_position_with_warnings(tmp_path: Path, h: Any) -> None:
    lines = [
        {"run_id": "s", "seq": 1, "type": "run.start"},
        {
            "run_id": "s",
            "type": "review.verdict",
            "agent": "guardian",
            "data": {
                "verdict": "needs_changes",
                "findings": [{"severity": "bug", "fix_required": True}],
            },
        },
        {"run_id": "s", "seq": 0, "parent": [2], "type": "fix.applied", "data": {}},
        {"run_id": "s", "seq": -1, "type": "cycle.boundary", "data": {"met": True}},
        {"run_id": "s", "seq": "5", "type": "note"},
        {"run_id": "s", "seq": 2.5, "type": "note"},
        {"run_id": "s", "seq": None, "ts": "2026-04-03T12:00:00Z", "type": "run.complete"},
    ]
    path = h.write_jsonl(tmp_path / "seqs.jsonl", lines)
    res = _extract([path])
    assert res.skipped_lines == [] and not res.rejected  # a warning is not a rejection
    assert [(w.run_id, w.file, w.line) for w in res.warnings] == [
        ("s", str(path), n) for n in range(2, 8)
    ]
    for w in res.warnings:
        assert re.search(r"seq", w.reason) and re.search(r"position \d", w.reason)
    # seqs 2..7 by position: the fix (3) descends from the verdict (2) and precedes the
    # met boundary (4) → every dimension perfect, cost unknown → 0.80/0.80.
    rec = _keyed(h, res)[("s", "guardian")]
    h.assert_close_record(
        rec,
        {
            "fixes_applied": 1,
            "fix_rate": 1.0,
            "signal_to_noise": 1.0,
            "accuracy": 1.0,
            "cycle_impact": True,
            "composite_score": 1.0,
            "cost_efficiency_norm": None,
            "run_ts": "2026-04-03T12:00:00Z",
        },
    )


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_a_seq_or_cycle_written_as_text_is_refused_alike_on_both_read_paths(
    tmp_path: Path, version: str
) -> None:
    # §1: a seq is an integer (text is "not an integer": replaced by the line's position,
    # warned); a verdict's cycle given as text is ignored and warned alike (v1; ArcheFlow's
    # scorer, which legacy reproduces, reads no cycle and no seq's value). A blank line
    # sends the second file down the careful reader, which must say the same.
    bug = {"severity": "bug", "fix_required": True}
    events = [
        {"run_id": "t", "seq": 1, "type": "run.start"},
        {
            "run_id": "t",
            "seq": "7",
            "type": "review.verdict",
            "agent": "guardian",
            "data": {"cycle": "2", "findings": [bug]},
        },
        {"run_id": "t", "seq": 3, "type": "run.complete"},
    ]
    text = "".join(json.dumps(e) + "\n" for e in events)
    fast, careful = tmp_path / "fast.jsonl", tmp_path / "careful.jsonl"
    fast.write_text(text)
    careful.write_text(text + "\n")
    got = []
    for p in (fast, careful):
        res = eff.extract([str(p)], str(tmp_path / "h.jsonl"), version, write=False)
        got.append(
            (
                [(w.line, w.reason) for w in res.warnings],
                [(r["archetype"], r["findings_total"]) for r in res.records.to_pylist()],
            )
        )
    expected = [(2, "missing or invalid seq: using position 2 in the run")]
    if version == "v1":
        expected.insert(0, (2, "cycle ignored: not an integer that fits"))
    assert got[0] == got[1] == (expected, [("guardian", 1)])


def test_odd_parent_values_warn_but_never_break(tmp_path: Path, h: Any) -> None:
    lines = [
        {
            "run_id": "p",
            "seq": 1,
            "type": "review.verdict",
            "agent": "guardian",
            "data": {
                "verdict": "needs_changes",
                "findings": [{"severity": "bug", "fix_required": True}],
            },
        },
        {"run_id": "p", "seq": 2, "parent": {"a": 1}, "type": "note"},
        {"run_id": "p", "seq": 3, "parent": True, "type": "note"},
        {"run_id": "p", "seq": 4, "parent": 1.5, "type": "note"},
        {"run_id": "p", "seq": 5, "parent": [[1]], "type": "note"},
        {"run_id": "p", "seq": 6, "parent": "1, 5", "type": "fix.applied", "data": {}},
        {"run_id": "p", "seq": 7, "parent": [6, 99, 7, 8], "type": "run.complete"},
        {"run_id": "p", "seq": 8, "type": "note"},
    ]
    path = h.write_jsonl(tmp_path / "parents.jsonl", lines)
    res = _extract([path])
    assert res.skipped_lines == []
    warned = [(w.line, w.reason) for w in res.warnings]
    assert [ln for ln, _ in warned] == [2, 3, 4, 5, 7, 7, 7]
    assert sum("99" in r for _, r in warned) == 1 and sum("seq 7 " in r for _, r in warned) == 1
    assert _keyed(h, res)[("p", "guardian")]["fixes_applied"] == 1  # via "1, 5" → 1


def test_parent_cycles_are_finite(tmp_path: Path, h: Any) -> None:
    lines = [
        {
            "run_id": "cyc",
            "seq": 1,
            "type": "review.verdict",
            "agent": "guardian",
            "data": {
                "verdict": "needs_changes",
                "findings": [{"severity": "bug", "fix_required": True}],
            },
        },
        {"run_id": "cyc", "seq": 2, "parent": [3], "type": "note"},
        {"run_id": "cyc", "seq": 3, "parent": [2, 1], "type": "note"},
        {"run_id": "cyc", "seq": 4, "parent": [3, 4], "type": "fix.applied", "data": {}},
        {"run_id": "cyc", "seq": 5, "parent": [5, 6], "type": "run.complete"},
        {"run_id": "cyc", "seq": 6, "parent": [5], "type": "note"},
    ]
    path = h.write_jsonl(tmp_path / "cycle.jsonl", lines)
    res = _extract([path])
    assert [w.line for w in res.warnings] == [2, 4, 5, 5]
    assert all("ignored" in w.reason for w in res.warnings)
    assert _keyed(h, res)[("cyc", "guardian")]["fixes_applied"] == 1  # 4 → 3 → 1


def test_exact_duplicates_across_files_are_one_event(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any
) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes(b"\n".join(good) + b"\n")
    b = tmp_path / "b.jsonl"
    # the verdict and the fix again, re-serialised with spaces: the same events
    again = [json.dumps(json.loads(good[i])).encode() for i in (3, 5)]
    b.write_bytes(b"\n".join([good[0], *again]) + b"\n")
    res = _extract([a, b])
    assert not res.invalid and not res.rejected and res.warnings == []
    assert _keyed(h, res) == baseline


def test_conflicting_duplicates_invalidate_only_their_run(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any
) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes(b"\n".join(good) + b"\n")
    other = [line.replace(b'"score-run"', b'"bystander"') for line in good]
    clash = json.loads(good[5])
    clash["data"]["source"] = "sage"  # seq 6 again, but different
    b = tmp_path / "b.jsonl"
    b.write_bytes(b"\n".join([*other[:3], json.dumps(clash).encode(), *other[3:]]) + b"\n")
    res = _extract([a, b])
    assert res.invalid == [
        {
            "run_id": "score-run",
            "reason": res.invalid[0]["reason"],
            "locations": [f"{a}:6", f"{b}:4"],
        }
    ]
    assert "6" in res.invalid[0]["reason"]
    assert res.rejected and res.runs_scored == 1
    got = _keyed(h, res)
    assert {k[0] for k in got} == {"bystander"}
    for arch in ("guardian", "sage"):
        want = {k: v for k, v in baseline[("score-run", arch)].items() if k != "events_sha256"}
        have = {k: v for k, v in got[("bystander", arch)].items() if k != "events_sha256"}
        assert have == dict(want, run_id="bystander")


def test_incomplete_run_is_reported_not_scored(
    tmp_path: Path, h: Any, good: list[bytes], baseline: Any
) -> None:
    running = [line.replace(b'"score-run"', b'"still-running"') for line in good[:-1]]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(running + good) + b"\n")
    res = _extract([path])
    assert res.incomplete == ["still-running"]
    assert not res.rejected and not res.invalid and res.skipped_lines == []
    assert _keyed(h, res) == baseline


def _tree(tmp_path: Path, h: Any) -> Path:
    """A run without seqs spread over files whose order decides the DAG."""
    d = tmp_path / "d"
    h.write_jsonl(d / "a.jsonl", [{"run_id": "o", "type": "run.start"}])
    h.write_jsonl(
        d / "a" / "c.jsonl",
        [
            {
                "run_id": "o",
                "type": "review.verdict",
                "agent": "guardian",
                "data": {
                    "verdict": "needs_changes",
                    "findings": [{"severity": "bug", "fix_required": True}],
                },
            }
        ],
    )
    h.write_jsonl(d / "b.jsonl", [{"run_id": "o", "parent": [2], "type": "fix.applied"}])
    h.write_jsonl(d / "z" / "y.jsonl", [{"run_id": "o", "type": "run.complete"}])
    (d / "notes.txt").write_text("not an event log\n")
    (d / "z" / "old.json").write_text("{}\n")
    return d


def test_directory_is_read_recursively_in_sorted_path_order(tmp_path: Path, h: Any) -> None:
    d = _tree(tmp_path, h)
    con = h.build([d])
    order = con.sql("SELECT _file, seq FROM accepted ORDER BY _ord").fetchall()
    # sorted full paths: "d/a.jsonl" < "d/a/c.jsonl" ('.' < '/') < "d/b.jsonl" < "d/z/y.jsonl"
    assert order == [
        (f"{d}/a.jsonl", 1),
        (f"{d}/a/c.jsonl", 2),
        (f"{d}/b.jsonl", 3),
        (f"{d}/z/y.jsonl", 4),
    ]
    res = _extract([d])
    assert res.skipped_lines == [] and res.unreadable == []
    assert _keyed(h, res)[("o", "guardian")]["fixes_applied"] == 1  # fix 3 → verdict 2
    assert len(res.warnings) == 4  # four replaced seqs


def test_paths_are_read_in_the_order_given(tmp_path: Path, h: Any) -> None:
    d = _tree(tmp_path, h)
    given = [d / "z" / "y.jsonl", d / "b.jsonl", d / "a" / "c.jsonl", d / "a.jsonl"]
    con = h.build(given)
    order = con.sql("SELECT _file, seq FROM accepted ORDER BY _ord").fetchall()
    assert order == [(str(p), i) for i, p in enumerate(given, start=1)]
    # now the fix is seq 2 and its parent 2 is itself: ignored → attributed to nobody
    res = _extract(given)
    assert _keyed(h, res)[("o", "guardian")]["fixes_applied"] == 0
    assert any("unattributed" in w.reason for w in res.warnings)


def test_glob_patterns(tmp_path: Path, h: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    d = _tree(tmp_path, h)
    deep = _extract([f"{d}/**/*.jsonl"])
    assert _keyed(h, deep)[("o", "guardian")]["fixes_applied"] == 1
    # Only the top level: no verdict (seq 2 would be the fix itself) and no run.complete.
    shallow = _extract([f"{d}/*.jsonl"])
    assert shallow.incomplete == ["o"] and shallow.records.num_rows == 0
    monkeypatch.chdir(tmp_path)
    relative = _extract(["d/**/*.jsonl"])
    assert _keyed(h, relative) == _keyed(h, deep)


def test_missing_paths_and_empty_globs_are_reported(
    tmp_path: Path, h: Any, fixtures: Path, baseline: Any
) -> None:
    src = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    res = _extract([tmp_path / "nope.jsonl", src, f"{tmp_path}/none/*.jsonl"])
    assert [u.file for u in res.unreadable] == [
        str(tmp_path / "nope.jsonl"),
        f"{tmp_path}/none/*.jsonl",
    ]
    assert res.rejected and _keyed(h, res) == baseline
    with pytest.raises(NothingReadable):
        _extract([tmp_path / "nope.jsonl"])


def test_unreadable_garbage_file_does_not_stop_others(
    tmp_path: Path, h: Any, fixtures: Path, baseline: Any
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(bytes(range(256)) * 4)
    src = tmp_path / "events.jsonl"
    shutil.copy(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl", src)
    res = _extract([junk, src])
    assert res.skipped_lines and {s.file for s in res.skipped_lines} == {str(junk)}
    assert _keyed(h, res) == baseline
    with pytest.raises(NothingReadable):
        _extract([junk])


def test_true_and_1_are_different_content(tmp_path: Path, h: Any) -> None:
    """Spec §1: same (run_id, seq), different content → invalid run. JSON ``true`` and
    ``1`` are different values (and score differently: only ``true`` makes a finding
    fix_required), though Python's ``True == 1``."""

    def verdict(flag: Any) -> dict[str, Any]:
        finding = {"severity": "bug", "fix_required": flag}
        return h.ev(
            2,
            "review.verdict",
            run="tv1",
            parent=[1],
            agent="guardian",
            verdict="needs_changes",
            findings=[finding],
        )

    lines = [
        h.ev(1, "run.start", run="tv1"),
        verdict(True),
        verdict(1),
        h.ev(3, "run.complete", run="tv1", parent=[2]),
    ]
    path = h.write_jsonl(tmp_path / "tv1.jsonl", lines)
    res = _extract([path])
    assert res.invalid == [
        {
            "run_id": "tv1",
            "reason": "conflicting duplicate events for seq 2",
            "locations": [f"{path}:2", f"{path}:3"],
        }
    ]
    assert res.runs_scored == 0 and res.records.num_rows == 0


def test_a_seq_written_as_text_in_a_parent_list_is_a_parent(tmp_path: Path, h: Any) -> None:
    """§1 takes "2" and "3,4" (seqs as text) as parents, and an array of integers; an array
    of seqs as text (["2"], what jq's --arg makes of a shell variable) was ignored with a
    warning, so the fix below its verdict was attributed to nobody. A string element that
    holds one integer (outer whitespace aside, as a part of "3,4") is that seq; any other
    element is still no seq, warned about with its file, line and reason."""
    verdict_with_finding = {
        "archetype": "guardian",
        "verdict": "needs_changes",
        "findings": [{"severity": "bug", "fix_required": True, "description": "d"}],
    }
    lines = [
        h.ev(1, "run.start", run="txt"),
        h.ev(2, "review.verdict", run="txt", parent=[1], **verdict_with_finding),
        h.ev(3, "fix.applied", run="txt", parent=["2"]),
        h.ev(4, "fix.applied", run="txt", parent=[" 2\t", 1]),
        h.ev(5, "fix.applied", run="txt", parent=["2,1", "x", "-2", 2.5, True, "", "٢"]),
        h.ev(6, "fix.applied", run="txt", parent=["9"]),
        h.ev(7, "run.complete", run="txt", parent=["6"]),
    ]
    path = h.write_jsonl(tmp_path / "text-parents.jsonl", lines)
    res = _extract([path])
    assert [(w.file, w.line, w.reason) for w in res.warnings] == [
        # a negative seq is one (test_a_negative_parent_as_text_is_the_seq_it_names)
        (str(path), 5, "parent edge to seq -2 ignored: no such event in the run"),
        (
            str(path),
            5,
            'parent value "2,1", "x", 2.5, true, "", "٢" ignored: not an integer seq',
        ),
        (
            str(path),
            5,
            "unattributed_fixes: fix.applied has no source and no review.verdict ancestor",
        ),
        (str(path), 6, "parent edge to seq 9 ignored: not before seq 6"),
        (
            str(path),
            6,
            "unattributed_fixes: fix.applied has no source and no review.verdict ancestor",
        ),
    ]
    (rec,) = res.records.to_pylist()
    assert (rec["archetype"], rec["fixes_applied"], rec["fix_rate"]) == ("guardian", 2, 1.0)


#: Makes a whole file take the careful reader (its pre-scan sees "NaN"): the line is
#: skipped, its run is no other's.
_DIRTY = b'{"run_id":"other","seq":1,"type":"x","data":{"v":NaN}}'


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_a_negative_parent_as_text_is_the_seq_it_names(
    tmp_path: Path, h: Any, version: str, careful: bool
) -> None:
    """§1: "3,4" is the list of those seqs, and a seq below 1 is in no run, so a parent
    edge to it is ignored with "no such event". -2 said so, but "-2", ["-2"] and "3, -2"
    said "not an integer seq", and the same event written once with -2 and once with "-2"
    made its run invalid (two contents for one seq), where "3" and 3 are one event. The
    legacy scorer walks no parent edges (§8: nothing to warn of), but judges duplicates
    by v1's parents: it said the run was invalid too."""
    lines = [
        h.ev(1, "run.start", run="neg"),
        h.ev(2, "note", run="neg", parent=-2),
        h.ev(2, "note", run="neg", parent="-2"),
        h.ev(3, "note", run="neg", parent=["-2", 1]),
        h.ev(3, "note", run="neg", parent=[-2, 1]),
        h.ev(4, "note", run="neg", parent="3, -2"),
        h.ev(5, "note", run="neg", parent=["-0"]),
        h.ev(6, "run.complete", run="neg", parent=[5]),
        *([_DIRTY] if careful else []),
    ]
    path = h.write_jsonl(tmp_path / "neg.jsonl", lines)
    res = _extract([path], version=version)
    assert (res.runs_scored, res.invalid) == (1, [])
    no_such = "parent edge to seq {} ignored: no such event in the run"
    # the first line of each event (2 and 4), then 6 and 7
    want = [
        (2, no_such.format(-2)),
        (4, no_such.format(-2)),
        (6, no_such.format(-2)),
        (7, no_such.format(0)),
    ]
    got = [(w.line, w.reason) for w in res.warnings]
    assert got == (want if version == "v1" else [])


def test_parent_beyond_any_seq_is_warned_not_dropped(tmp_path: Path, h: Any) -> None:
    """Spec §1: a parent edge to a seq that does not exist in the run is ignored *and
    counted as a warning*. An integer too big for a seq was dropped without a word (the
    string form "99999999999999999999" was already warned about)."""
    big = 99999999999999999999
    lines = [
        h.ev(1, "run.start", run="big"),
        h.ev(2, "note", run="big", parent=[1, big]),
        h.ev(3, "note", run="big", parent=big),
        h.ev(4, "note", run="big", parent=str(big)),
        h.ev(5, "run.complete", run="big", parent=[4]),
    ]
    path = h.write_jsonl(tmp_path / "big.jsonl", lines)
    res = _extract([path])
    # an integer, however big, is a seq reference (one rule, whatever its spelling)
    reason = "parent edge to seq {} ignored: not before seq {}"
    assert [(w.line, w.reason) for w in res.warnings] == [
        (2, reason.format(big, 2)),
        (3, reason.format(big, 3)),
        (4, reason.format(big, 4)),
    ]
    assert res.runs_scored == 1 and not res.rejected


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_a_long_parent_as_text_is_the_seq_it_names(
    tmp_path: Path, h: Any, version: str, careful: bool
) -> None:
    """§1: a parent edge to a seq that does not exist in the run is ignored with a
    warning, whether the parent is written as a number or as text. Text of more than 18
    digits ("1234567890123456789", ["12345678901234567890"], "0000000000000000005") said
    "not an integer seq" where the same number said "not before seq 2" (or, too big for
    a seq, "not an integer seq", which it is), and an event written once with the number
    and once with the text made its run invalid (two contents for one seq). Now every
    integer is read by its value: one that fits is a seq, one too big for any seq is
    past every event (or, negative, before them all), warned of as an edge."""
    n19, n20 = 1234567890123456789, 12345678901234567890
    lines = [
        h.ev(1, "run.start", run="long"),
        h.ev(2, "note", run="long", parent=n19),
        h.ev(2, "note", run="long", parent=str(n19)),
        h.ev(3, "note", run="long", parent=[1, str(n19)]),
        h.ev(3, "note", run="long", parent=[1, n19]),
        h.ev(4, "note", run="long", parent=n20),
        h.ev(4, "note", run="long", parent=f" {n20}"),
        h.ev(5, "note", run="long", parent=f"-{n20}"),
        h.ev(5, "note", run="long", parent=[-n20]),
        h.ev(6, "note", run="long", parent="0000000000000000005"),
        h.ev(6, "note", run="long", parent=[5]),
        h.ev(7, "note", run="long", parent=[1e30]),
        h.ev(8, "run.complete", run="long", parent=[7]),
        *([_DIRTY] if careful else []),
    ]
    path = h.write_jsonl(tmp_path / "long.jsonl", lines)
    res = _extract([path], version=version)
    assert (res.runs_scored, res.invalid) == (1, [])
    edge = "parent edge to seq {} ignored: {}"
    # the first line of each event (2, 4, 6, 8), and an integral double past a BIGINT by
    # its JSON text (1e+30 read as 1e30), not its 31 digits
    want = [
        (2, edge.format(n19, "not before seq 2")),
        (4, edge.format(n19, "not before seq 3")),
        (6, edge.format(n20, "not before seq 4")),
        (8, edge.format(-n20, "no such event in the run")),
        (12, edge.format("1e30", "not before seq 7")),
    ]
    got = [(w.line, w.reason) for w in res.warnings]
    assert got == (want if version == "v1" else [])
