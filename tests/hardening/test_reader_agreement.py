"""The fast reader (DuckDB's parser) and the careful one (Python's) agree line by line.

A file goes through the careful path when the pre-scan or the fast read finds anything
it cannot vouch for, so the same line can meet either parser depending on its
neighbours. These lines are ones the two parsers read differently; each must get the
same outcome whichever path its file takes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness

# Makes the whole file take the careful path (the pre-scan sees "NaN").
DIRTY = b'{"run_id":"other","seq":1,"type":"x","data":{"v":NaN}}\n'


def _extract(tmp_path: Path, name: str, body: bytes) -> Any:
    log = tmp_path / f"{name}.jsonl"
    log.write_bytes(body)
    return effectiveness.extract([str(log)], str(tmp_path / f"{name}-history.jsonl"))


def _guardian(tmp_path: Path, name: str) -> dict[str, Any]:
    lines = (tmp_path / f"{name}-history.jsonl").read_text(encoding="utf-8").splitlines()
    recs = [json.loads(x) for x in lines]
    return next(r for r in recs if r["archetype"] == "guardian")


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_lone_surrogate_escape_is_skipped_with_its_reason(
    tmp_path: Path, hh: Any, careful: bool
) -> None:
    # Python writes "\udcff" for an undecodable byte in a str (surrogateescape);
    # DuckDB's parser refuses it, Python's accepts it: the line is refused either way,
    # and said why (it used to come out as "missing run_id").
    evs = hh.run_events("r1")
    body = hh.dump_lines(evs[:2])
    body += b'{"run_id":"r1","seq":9,"type":"note","data":{"path":"a\\udcffb"}}\n'
    body += hh.dump_lines(evs[2:]) + (DIRTY if careful else b"")
    res = _extract(tmp_path, "s", body)
    reasons = [(i.line, i.reason) for i in res.skipped_lines]
    want = [(3, "not JSON: lone UTF-16 surrogate escape (\\udcff)")]
    if careful:
        want.append((len(evs) + 2, "not JSON: NaN is not valid JSON"))
    assert reasons == want
    assert res.runs_scored == 1


def test_a_valid_surrogate_pair_is_read(tmp_path: Path, hh: Any) -> None:
    evs = hh.run_events("r2")
    evs[1]["data"]["model"] = "haiku-\U0001f600"
    body = json.dumps(evs[0]).encode() + b"\n"
    # ensure_ascii writes the emoji as a surrogate pair escape
    body += "".join(json.dumps(e, ensure_ascii=True) + "\n" for e in evs[1:]).encode()
    res = _extract(tmp_path, "p", body + DIRTY)
    assert [i.reason for i in res.skipped_lines] == ["not JSON: NaN is not valid JSON"]
    assert _guardian(tmp_path, "p")["model"] == "haiku-\U0001f600"


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
@pytest.mark.parametrize("literal", ["nan", "NAN", "inf", "-Inf", "Infinity", "-nan"])
def test_a_non_finite_number_is_not_json_on_either_path(
    tmp_path: Path, hh: Any, careful: bool, literal: str
) -> None:
    # DuckDB's parser reads nan/inf in any case; JSON has no such number (spec §1:
    # "not JSON (NaN/Infinity included)"). The line is refused, whichever path its file
    # takes; lowercase nan used to be read, as a cost that was then warned about.
    evs = hh.run_events("r3", cost=0.5)
    text = hh.dump_lines(evs).decode()
    assert text.count('"cost_usd": 0.5') == 1
    body = text.replace('"cost_usd": 0.5', f'"cost_usd": {literal}').encode()
    res = _extract(tmp_path, "n", body + (DIRTY if careful else b""))
    got = [(i.line, i.reason.split(":")[0]) for i in res.skipped_lines]
    assert got[0] == (2, "not JSON")
    assert len(got) == (2 if careful else 1)
    # What is said of the run is of the line gone (its children's edges), not of a cost.
    assert {w.reason.split(":")[0] for w in res.warnings} == {"parent edge to seq 2 ignored"}
    assert res.runs_scored == 1
    assert _guardian(tmp_path, "n")["cost_usd"] is None  # the agent.complete line is gone


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_a_cost_too_big_for_a_double_is_warned_about_not_dropped_silently(
    tmp_path: Path, hh: Any, careful: bool
) -> None:
    # 1e400 is JSON, but no double holds it: both parsers read it as infinity. Such a
    # cost is not a cost: it is ignored *and warned about*.
    evs = hh.run_events("r3", cost=0.5)
    text = hh.dump_lines(evs).decode()
    body = text.replace('"cost_usd": 0.5', '"cost_usd": 1e400').encode()
    res = _extract(tmp_path, "n", body + (DIRTY if careful else b""))
    assert [(w.line, w.reason) for w in res.warnings] == [
        (2, "cost ignored: not a finite non-negative number")
    ]
    assert len(res.skipped_lines) == (1 if careful else 0)
    rec = _guardian(tmp_path, "n")
    assert rec["cost_usd"] is None and rec["cost_basis"] == "unknown"


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
@pytest.mark.parametrize("tail", [",}}", ", \t}}", "}, }"])
def test_a_trailing_comma_is_not_json_on_either_path(
    tmp_path: Path, hh: Any, careful: bool, tail: str
) -> None:
    # DuckDB's parser takes '{"a": 1,}'; JSON (and Python's parser) does not. The pre-scan
    # sends such a file the careful way, so the line is refused wherever it sits.
    evs = hh.run_events("r4")
    lines = hh.dump_lines(evs).decode().splitlines()
    assert lines[1].endswith("}}")
    lines[1] = lines[1][:-2] + tail
    body = ("\n".join(lines) + "\n").encode() + (DIRTY if careful else b"")
    res = _extract(tmp_path, "t", body)
    got = [(i.line, i.reason.split(":")[0]) for i in res.skipped_lines]
    assert got[0] == (2, "not JSON")
    assert len(got) == (2 if careful else 1)
    assert res.runs_scored == 1
    assert _guardian(tmp_path, "t")["cost_usd"] is None  # the agent.complete line is gone
