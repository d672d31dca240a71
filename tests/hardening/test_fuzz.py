"""Fuzzing the readers: hypothesis-generated event streams and history files.

Streams mix valid events, events with every field of the wrong type or out of range,
and lines that are not JSON at all (garbage bytes, NaN, truncated objects, lone
surrogate escapes, CRLF, blank lines, no final newline). Whatever comes in, ``extract``
returns a result or raises ``NothingReadable`` — never anything else — and ``report``,
``history check`` and ``history repair`` read whatever history results.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from runscore.engine import history_tools
from runscore.engine.errors import NothingReadable
from runscore.engine.packs import effectiveness
from runscore.engine.packs import effectiveness_history as eh

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    max_leaves=6,
)


def either(*choices: Any) -> Any:
    return st.sampled_from(choices) | values


finding = st.fixed_dictionaries(
    {},
    optional={
        "severity": either("warning", " WARNING", "bug", "critical", "info"),
        "fix_required": either(True, False, "true", "TRUE"),
        "description": either("a", "b", " A "),
        "location": either("x.py:1", ""),
        "file": either("x.py", "y.py"),
        "line": either(1, 2, "3"),
    },
)
data = (
    st.fixed_dictionaries(
        {},
        optional={
            "archetype": either("guardian", " Sage", "skeptic", ""),
            "verdict": either("approved", "APPROVED ", "needs_changes"),
            "findings": st.lists(finding, max_size=3) | values,
            "source": either("guardian", "sage", ""),
            "finding": either("a", "b"),
            "cost_usd": either(0.01, 0, -1, 1e300),
            "estimated_cost_usd": either(0.02, "0.1"),
            "tokens": either(10, 2**64, -5),
            "tokens_input": either(3, None),
            "tokens_output": either(4, "x"),
            "model": either("haiku", "claude-opus", ""),
            "cycle": either(1, 2, 0),
            "met": either(True, False, "true"),
        },
    )
    | values
)
event = st.fixed_dictionaries(
    {
        "run_id": either("r1", "r2", "", " "),
        "type": either(
            "run.start",
            "agent.start",
            "agent.complete",
            "review.verdict",
            "fix.applied",
            "cycle.boundary",
            "run.complete",
            "other",
        ),
    },
    optional={
        "seq": either(*range(-2, 12)),
        "parent": st.lists(st.integers(-2, 14), max_size=3)
        | either(3, "", "1,2", "2, x", "99999999999999999999999"),
        "ts": either("2026-04-03T10:00:00Z", "not a time", ""),
        "agent": either("guardian", "sage", None),
        "phase": either("check", None),
        "data": data,
    },
)
raw_lines = st.one_of(
    event.map(lambda e: json.dumps(e).encode()),
    event.map(lambda e: json.dumps(e).encode()[: max(1, len(json.dumps(e)) // 2)]),
    st.binary(max_size=30),
    st.sampled_from(
        [
            b"",
            b"   ",
            b'{"run_id": "r1", "type": "x", "data": {"cost_usd": NaN}}',
            b'{"run_id": "r1", "type": "x", "seq": Infinity}',
            b'{"run_id": "\\ud800", "type": "run.complete"}',
            b'["not", "an", "object"]',
            b'"just a string"',
            b"{" * 3000 + b"}" * 3000,
            b'{"run_id": "r1", "type": "x"} trailing',
        ]
    ),
)
streams = st.tuples(
    st.lists(raw_lines, max_size=25), st.sampled_from([b"\n", b"\r\n"]), st.booleans()
)


@pytest.mark.slow
@settings(max_examples=20)
@given(stream=streams)
def test_extract_and_readers_never_crash(stream: tuple[list[bytes], bytes, bool]) -> None:
    lines, eol, final_newline = stream
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "events.jsonl"
        src.write_bytes(eol.join(lines) + (eol if final_newline and lines else b""))
        hist = Path(d) / "h.jsonl"
        try:
            res = effectiveness.extract([str(src)], str(hist))
        except NothingReadable:
            return
        assert res.records_written == res.records.num_rows
        if hist.exists():
            eh.report(hist)
            assert history_tools.check(str(hist)).ok  # extract writes only whole records


history_lines = st.one_of(
    st.fixed_dictionaries(
        {
            "ts": either("2026-04-03T10:00:00Z", "bad"),
            "run_id": either("r1", "r2", ""),
            "archetype": either("guardian", "sage"),
            "composite_score": either(0.5, 0.9, "x"),
        },
        optional={k: values for k in eh.HISTORY_FIELDS[3:] if k != "composite_score"},
    ).map(lambda r: json.dumps(r).encode()),
    st.binary(max_size=20),
    st.sampled_from([b"", b'{"composite_score": NaN}', b'{"run_id": "r1"', b"[]"]),
)


@pytest.mark.slow
@settings(max_examples=20)
@given(lines=st.lists(history_lines, max_size=20), final_newline=st.booleans())
def test_history_readers_never_crash(lines: list[bytes], final_newline: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        hist = Path(d) / "h.jsonl"
        hist.write_bytes(b"\n".join(lines) + (b"\n" if final_newline else b""))
        try:
            eh.report(hist, version="all")
        except NothingReadable:
            # only a history with lines and not one the readers take
            chk = history_tools.check(str(hist))
            assert chk.usable == 0 and chk.issues
        try:
            rep = history_tools.repair(str(hist))
        except NothingReadable:
            # a history with lines of which a repair keeps none: refused unless forced
            chk = history_tools.check(str(hist))
            assert chk.issues and not chk.keep
            rep = history_tools.repair(str(hist), force=True)
        assert rep.kept == len(rep.check.keep)
        assert history_tools.check(rep.target).ok
