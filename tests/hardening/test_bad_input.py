"""Bad input: a corpus of hostile files, each with its diagnostic, every other run scored.

One ``runscore nightly`` over a root whose run logs are hostile in every way the issue
lists. Each file also holds (at least) one good run, which must be scored; each hostile
item must show up in the run log with its ``file:line: reason`` (or, where the input is
valid but unusual, be scored correctly).

The large line is 20 MB with the line limit lowered to 16 MiB
(``RUNSCORE_MAX_LINE_BYTES``): the same code path a 200 MB line takes under the default
64 MiB limit — pre-scan finds a line longer than the limit spanning read chunks, the file
takes the careful path, which reads at most limit+2 bytes of the line, reports it and
skips the rest in 8 MiB chunks (memory bounded by the limit, not the line).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import sources

DATE = "2026-04-05"
LIMIT = 16 << 20


def _log(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "out" / DATE / "runlog.json").read_text(encoding="utf-8"))


@pytest.fixture
def hostile_root(tmp_path: Path, hh: Any) -> Path:
    ev = tmp_path / "proj" / ".archeflow" / "events"
    w = hh.write_jsonl
    rng = random.Random(5)
    w(ev / "a_good.jsonl", hh.run_events("good-1") + hh.run_events("good-2"))
    w(
        ev / "binary.jsonl",
        hh.run_events("bin-run"),
        extra=bytes(rng.randrange(256) for _ in range(4000)),
    )
    big = json.dumps(
        {"run_id": "big-line", "seq": 1, "type": "note", "data": {"x": "y" * (20 << 20)}}
    )
    w(ev / "long_line.jsonl", hh.run_events("long-run"), extra=big.encode() + b"\n")
    w(
        ev / "bad_utf8.jsonl",
        hh.run_events("utf8-run"),
        extra=b'{"run_id":"u\xff\xfe","type":"x"}\n',
    )
    deep = (
        '{"run_id":"deep-run","seq":7,"type":"note","data":' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    w(ev / "deep.jsonl", hh.run_events("deep-run"), extra=deep.encode() + b"\n")
    nan = b'{"run_id":"nan-run","seq":7,"type":"x","data":{"cost_usd":NaN}}\n'
    inf = b'{"run_id":"nan-run","seq":8,"type":"x","data":{"v":-Infinity}}\n'
    w(ev / "nan.jsonl", hh.run_events("nan-run"), extra=nan + inf)
    huge = hh.dump_lines(hh.run_events("huge-run")).replace(
        b'"seq": 1,', b'"seq": 1' + b"0" * 40 + b","
    )
    huge = huge.replace(b'"cost_usd": 0.01', b'"cost_usd": 1e999')
    (ev / "huge.jsonl").write_bytes(huge)
    w(ev / "negative.jsonl", hh.run_events("neg-run", cost=-5))
    seq0 = hh.run_events("seq0-run")
    seq0[0]["seq"], seq0[1]["seq"] = 0, -3
    w(ev / "seq0.jsonl", seq0)
    cyc = hh.run_events("cycle-run")
    cyc[0]["parent"], cyc[2]["parent"] = [6], [3, 5]  # back to run.complete; self; forward
    w(ev / "cycle.jsonl", cyc)
    w(ev / "large.jsonl", _large_run(50_000))
    (ev / "empty.jsonl").write_bytes(b"")
    w(ev / "vanishing.jsonl", hh.run_events("vanish-run"))
    # A root that is not a directory, and one whose events folder is not one.
    (tmp_path / "not-a-dir").write_text("x")
    (tmp_path / "proj2" / ".archeflow").mkdir(parents=True)
    (tmp_path / "proj2" / ".archeflow" / "events").write_text("x")
    return tmp_path


def _large_run(n: int) -> list[dict[str, Any]]:
    """One run of ``n`` events: a deep chain with diamonds; every third event a guardian
    verdict with one useful finding, each followed by a fix naming it (no source)."""
    evs: list[dict[str, Any]] = [{"run_id": "large", "seq": 1, "type": "run.start"}]
    for i in range(2, n):
        if i % 3 == 0:
            evs.append(
                {
                    "run_id": "large",
                    "seq": i,
                    "parent": [i - 1],
                    "type": "review.verdict",
                    "data": {
                        "archetype": "guardian",
                        "verdict": "needs_changes",
                        "findings": [
                            {"severity": "bug", "fix_required": True, "description": f"d{i}"}
                        ],
                    },
                }
            )
        elif i % 3 == 1:
            evs.append(
                {
                    "run_id": "large",
                    "seq": i,
                    "parent": [i - 1, max(1, i - 2)],
                    "type": "fix.applied",
                    "data": {"finding": f"d{i - 1}"},
                }
            )
        else:
            evs.append(
                {
                    "run_id": "large",
                    "seq": i,
                    "parent": [i - 1],
                    "type": "agent.complete",
                    "data": {"archetype": "guardian", "model": "haiku", "cost_usd": 0.001},
                }
            )
    evs.append(
        {
            "ts": "2026-04-03T12:00:00Z",
            "run_id": "large",
            "seq": n,
            "parent": [n - 1],
            "type": "run.complete",
        }
    )
    return evs


def test_hostile_corpus(hostile_root: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sources.MAX_LINE_ENV, str(LIMIT))
    real_prescan = sources.prescan
    vanishing = os.path.join("proj", ".archeflow", "events", "vanishing.jsonl")

    def prescan(sf: sources.SourceFile, **kw: Any) -> sources.SourceFile:
        if sf.path == vanishing and os.path.exists(vanishing):
            os.unlink(vanishing)  # discovered, then gone before it is read
        return real_prescan(sf, **kw)

    monkeypatch.setattr(sources, "prescan", prescan)
    res = run_cli(
        "nightly",
        "--root",
        "proj",
        "--root",
        "not-a-dir",
        "--root",
        "proj2",
        "--out",
        "out",
        "--date",
        DATE,
    )
    assert res.exit_code == 1, res.stderr  # finished, with rejected inputs
    log = _log(hostile_root)
    scope = log["scopes"][0]
    texts = {d["text"] for d in log["rejected"]}
    e = "proj/.archeflow/events/"
    expected_rejected = {
        f"{e}bad_utf8.jsonl:7: not valid UTF-8 (byte 13)",
        f"{e}long_line.jsonl:7: line longer than {LIMIT} bytes",
        f"{e}nan.jsonl:7: not JSON: NaN is not valid JSON",
        f"{e}nan.jsonl:8: not JSON: -Infinity is not valid JSON",
        f"{e}vanishing.jsonl: cannot read file: No such file or directory",
        "not-a-dir: root skipped: not a directory",
        "proj2/.archeflow/events: not a directory",
    }
    assert expected_rejected <= texts
    binary = [t for t in texts if t.startswith(f"{e}binary.jsonl:")]
    assert binary
    assert all(int(t.split(":")[1]) >= 7 for t in binary)  # the good run's lines 1-6 survive
    warnings = {d["text"] for d in scope["warnings"]}
    assert {
        f"{e}huge.jsonl:1: missing or invalid seq: using position 1 in the run",
        f"{e}huge.jsonl:2: cost ignored: not a finite non-negative number",
        f"{e}negative.jsonl:2: cost ignored: not a finite non-negative number",
        f"{e}seq0.jsonl:1: missing or invalid seq: using position 1 in the run",
        f"{e}seq0.jsonl:2: missing or invalid seq: using position 2 in the run",
        f"{e}cycle.jsonl:1: parent edge to seq 6 ignored: not before seq 1",
        f"{e}cycle.jsonl:3: parent edge to seq 3 ignored: not before seq 3",
        f"{e}cycle.jsonl:3: parent edge to seq 5 ignored: not before seq 3",
    } <= warnings
    assert scope["empty_files"] == [f"{e}empty.jsonl"]
    assert sorted(scope["runs_scored"]) == sorted(
        [
            "good-1",
            "good-2",
            "bin-run",
            "long-run",
            "utf8-run",
            "deep-run",
            "nan-run",
            "huge-run",
            "neg-run",
            "seq0-run",
            "cycle-run",
            "large",
        ]
    )
    assert [r["root"] for r in log["roots"]] == ["proj", "not-a-dir", "proj2"]
    assert (hostile_root / "out" / DATE / "effectiveness" / "proj" / "report.md").is_file()

    hist = hostile_root / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    recs = {
        (r["run_id"], r["archetype"]): r for r in map(json.loads, hist.read_text().splitlines())
    }
    large = recs[("large", "guardian")]
    # 16,666 verdicts, each finding fixed by the fix right after it (attributed through
    # the DAG): every finding useful, fixed and confirmed.
    assert (large["findings_total"], large["findings_useful"], large["fixes_applied"]) == (
        16666,
        16666,
        16666,
    )
    assert large["accuracy"] == 1.0 and large["fix_rate"] == 1.0
    assert recs[("neg-run", "guardian")]["cost_usd"] is None  # unknown, not -5 and not 0
    assert recs[("huge-run", "guardian")]["cost_usd"] is None
    assert recs[("good-1", "guardian")]["composite_score"] == pytest.approx(0.9)


def test_unreadable_directory(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    if os.geteuid() == 0:
        pytest.skip(
            "running as root: chmod 000 does not stop reads (covered by a path "
            "that is not a directory in test_hostile_corpus)"
        )
    ev = tmp_path / "proj" / ".archeflow" / "events"
    hh.write_jsonl(ev / "ok.jsonl", hh.run_events("ok"))
    locked_dir = ev / "sub"
    hh.write_jsonl(locked_dir / "x.jsonl", hh.run_events("hidden"))
    locked_dir.chmod(0)
    try:
        res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    finally:
        locked_dir.chmod(0o755)
    assert res.exit_code == 1
    log = _log(tmp_path)
    assert any("cannot read directory" in d["text"] for d in log["rejected"])
    assert log["scopes"][0]["runs_scored"] == ["ok"]


def test_nothing_readable_exits_3_and_writes_nothing(tmp_path: Path, run_cli: Any) -> None:
    (tmp_path / "empty-root").mkdir()
    (tmp_path / "bin" / ".archeflow" / "events").mkdir(parents=True)
    (tmp_path / "bin" / ".archeflow" / "events" / "x.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    res = run_cli(
        "nightly",
        "--root",
        "empty-root",
        "--root",
        "bin",
        "--root",
        "missing",
        "--out",
        "out",
        "--date",
        DATE,
    )
    assert res.exit_code == 3
    assert "nothing readable" in res.stderr
    assert "bin/.archeflow/events/x.jsonl:1: not valid UTF-8 (byte 1)" in res.stderr
    assert not (tmp_path / "out" / DATE).exists()
