"""The history's fast reader (100_history_fast.sql) against the careful one (100_history.sql).

The fast path types a clean history in one scan and is only allowed to answer when it
gives exactly what the careful path gives; for anything else it must hand over. These
tests build histories with every value form a field can take and compare the two
readers' tables row for row, and check which reader answered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runscore.engine.packs import effectiveness_history as eh

from .conftest import GOLDEN_HISTORY

STRING_FIELDS = ("model", "cost_basis", "events_sha256", "source")
NUMBER_FIELDS = (
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency",
    "accuracy",
    "cost_usd",
    "cost_efficiency_norm",
)
INT_FIELDS = (
    "tokens",
    "findings_total",
    "findings_useful",
    "fixes_applied",
    "findings_contradicted",
)

_ABSENT = object()


def _tables(path: Path, *, careful: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as m:
        if careful:
            m.setattr(eh, "_load_fast", lambda *a, **k: (False, False, None))
        con = eh.connect()
        out = snapshot(con, eh.load_history(con, path))
        con.close()
    return out


def snapshot(con: Any, load: eh.HistoryLoad) -> dict[str, Any]:
    """What a history read built: which reader, versions, issues, both tables in full."""
    out: dict[str, Any] = {
        "reader": load.reader,
        "versions": load.versions,
        "issues": [i.as_dict() for i in load.issues],
    }
    for t in ("history", "history_current"):
        rel = con.sql(f"SELECT * FROM {t} ORDER BY history_line")
        out[t] = (rel.columns, [str(c) for c in rel.types], rel.fetchall())
    return out


def _same(a: Any, b: Any) -> bool:
    # NaN never reaches a history table (the pre-scan sends NaN files to the careful
    # path), so plain equality is exact here.
    return bool(a == b)


def _line(**fields: Any) -> str:
    return json.dumps({k: v for k, v in fields.items() if v is not _ABSENT})


def _base(i: int, **over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "ts": f"2026-03-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
        "run_id": f"run-{i % 7}",
        "archetype": ["guardian", "skeptic", "sage"][i % 3],
        "signal_to_noise": 0.5,
        "fix_rate": 0.25,
        "cost_efficiency": 1.5,
        "accuracy": 1.0,
        "cycle_impact": i % 2 == 0,
        "composite_score": round(0.1 * (i % 10), 3),
        "tokens": 1000 + i,
        "cost_usd": 0.01 * i,
        "model": "sonnet",
        "findings_total": 4,
        "findings_useful": 2,
        "fixes_applied": 1,
        "scoring_version": "effectiveness/v1",
        "run_ts": f"2026-03-{1 + i % 28:02d}T09:00:00+02:00",
        "cost_basis": "observed",
        "cost_efficiency_norm": 0.5,
        "findings_contradicted": 0,
        "events_sha256": f"{i:064x}",
        "source": f".archeflow/events/run-{i % 7}.jsonl",
    }
    rec.update(over)
    return rec


def test_clean_history_takes_the_fast_path_and_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [_base(i) for i in range(60)]
    # legacy 15-field lines, nulls, absent optional fields, escapes and unicode
    lines += [
        {k: v for k, v in _base(100 + i).items() if k in eh.HISTORY_FIELDS[:15]} for i in range(5)
    ]
    lines.append(_base(200, model=None, cost_usd=None, tokens=None, source='a\\b "q" é ☃'))
    lines.append(_base(201, run_id="run-0", archetype="guardian"))  # same key as line 1
    lines.append(_base(0))  # an exact tie on ts with line 1: the later line is current
    p = tmp_path / "h.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    fast = _tables(p, careful=False, monkeypatch=monkeypatch)
    careful = _tables(p, careful=True, monkeypatch=monkeypatch)
    assert fast["reader"] == "fast"
    assert careful["reader"] == "careful"
    for k in ("versions", "issues", "history", "history_current"):
        assert _same(fast[k], careful[k]), k
    assert fast["issues"] == []
    assert len(fast["history_current"][2]) < len(fast["history"][2])


@pytest.mark.parametrize(
    "field,value",
    [
        ("tokens", "12"),  # a string where an integer belongs
        ("tokens", 1.0),  # an integer written with a fraction
        ("tokens", 1e3),
        ("tokens", 10**17),  # beyond the plain form (15 digits)
        ("composite_score", "0.5"),
        ("composite_score", True),
        ("cost_usd", {"usd": 1}),
        ("cycle_impact", "true"),
        ("cycle_impact", 1),
        ("run_id", 5),
        ("run_id", "   "),
        ("archetype", ""),
        ("model", 3),
        ("ts", "not a time"),
        ("run_ts", 1700000000),
        ("scoring_version", ["effectiveness/v1"]),
        ("composite_score", _ABSENT),
    ],
)
def test_a_line_out_of_the_plain_form_hands_over_to_the_careful_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, value: Any
) -> None:
    lines = [_line(**_base(i)) for i in range(5)]
    lines.insert(2, _line(**_base(9, **{field: value})))
    p = tmp_path / "h.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fast = _tables(p, careful=False, monkeypatch=monkeypatch)
    careful = _tables(p, careful=True, monkeypatch=monkeypatch)
    assert fast["reader"] == "careful"
    for k in ("versions", "issues", "history", "history_current"):
        assert _same(fast[k], careful[k]), k


@pytest.mark.parametrize(
    "text",
    [
        "\n",  # a blank line: line numbers would shift
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "x"\n',  # torn
        "[1, 2]\n",  # not an object
        '{"run_id": "a", "run_id": "b"}\n',  # duplicate key
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", "composite_score": NaN}\n',
        # DuckDB's parser takes these; Python's (the careful path) does not
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": 0.5, "cost_usd": nan}\n',
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": -inf}\n',
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": 0.5, "tokens": -Infinity}\n',
        # a JSON number too large for a double: read as inf by both parsers
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": 1e400}\n',
        # DuckDB's parser takes a trailing comma; the pre-scan sends the file the careful way
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": 0.5,}\n',
        '{"ts": "2026-03-01T00:00:00Z", "run_id": "r", "archetype": "a", '
        '"composite_score": 0.5, "model": ["x", ] }\n',
    ],
)
def test_a_broken_line_hands_over_and_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    p = tmp_path / "h.jsonl"
    body = [_line(**_base(i)) + "\n" for i in range(4)]
    p.write_text("".join(body[:2]) + text + "".join(body[2:]), encoding="utf-8")
    fast = _tables(p, careful=False, monkeypatch=monkeypatch)
    careful = _tables(p, careful=True, monkeypatch=monkeypatch)
    assert fast["reader"] == "careful"
    for k in ("versions", "issues", "history", "history_current"):
        assert _same(fast[k], careful[k]), k


def test_golden_history_without_its_bad_lines_reports_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    con = eh.connect()
    load = eh.load_history(con, GOLDEN_HISTORY)
    bad = {i.line for i in load.issues}
    assert bad, "the golden history is meant to hold bad lines"
    kept = [
        ln
        for n, ln in enumerate(GOLDEN_HISTORY.read_text(encoding="utf-8").splitlines(), 1)
        if n not in bad and ln.strip()
    ]
    p = tmp_path / "h.jsonl"
    p.write_text("\n".join(kept) + "\n", encoding="utf-8")
    fast = eh.report(p, version="all")
    assert fast.history.reader == "fast"
    with monkeypatch.context() as m:
        m.setattr(eh, "_load_fast", lambda *a, **k: (False, False, None))
        careful = eh.report(p, version="all")
    assert careful.history.reader == "careful"
    assert fast.table.to_pylist() == careful.table.to_pylist()
    assert fast.table.num_rows > 0


# Value forms per kind: plain ones the fast path types, and others it must hand over.
_strings = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "a\\b", 'q"q', "é☃", "\t", "sonnet", "observed"]),
)
_numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(min_value=-(10**18), max_value=10**18),
    st.sampled_from([0, -0.0, 1e-7, 1.5e300, 0.1, 2.0]),
)
_ints = st.one_of(
    st.integers(min_value=-(10**17), max_value=10**17),
    st.sampled_from([0, 1.0, -3.0, 2.5, 1e15, 123456789012345]),
)
_times = st.sampled_from(
    [
        "2026-03-01T10:00:00Z",
        "2026-03-01T10:00:00+02:00",
        "2026-03-01 10:00:00",
        "2026-03-01T10:00:00.123456Z",
        "2026-03-01",
        # forms a run log's time is read in, which the cast alone does not read
        "20260301T100000+0200",
        "2026-W09-7t10:00:00,5z",
        "2026060",
        "2025-W53-1",  # no such week
        "yesterday",
        "",
    ]
)
_any_kind = st.one_of(st.none(), st.booleans(), _strings, _numbers, st.just([1]), st.just({}))


def _field(kind: st.SearchStrategy[Any], plain: bool) -> st.SearchStrategy[Any]:
    # mostly the expected kind, sometimes null/absent, and (unless plain) any other kind
    extra = [] if plain else [_any_kind]
    return st.one_of(kind, kind, kind, st.none(), st.just(_ABSENT), *extra)


def _record(plain: bool) -> st.SearchStrategy[dict[str, Any]]:
    required = {
        "ts": st.just("2026-03-01T10:00:00Z") if plain else _field(_times, plain),
        "run_id": st.sampled_from(["r1", "r2", "r3", " r1"]),
        "archetype": st.sampled_from(["guardian", "sage", "Sage"]),
        "composite_score": _numbers,
    }
    if not plain:
        required = {k: _field(v, plain) for k, v in required.items()}
    return st.fixed_dictionaries(
        {
            **required,
            "run_ts": _field(_times, plain),
            "scoring_version": _field(
                st.sampled_from(["effectiveness/v1", "archeflow-legacy", "x"]), plain
            ),
            "cycle_impact": _field(st.booleans(), plain),
            **{k: _field(_numbers, plain) for k in NUMBER_FIELDS},
            **{k: _field(_ints, plain) for k in INT_FIELDS},
            **{k: _field(_strings, plain) for k in STRING_FIELDS},
        }
    )


_histories = st.one_of(
    st.lists(_record(True), min_size=1, max_size=12),
    st.lists(_record(False), min_size=1, max_size=12),
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=_histories)
def test_fast_and_careful_readers_agree_on_any_history(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    records: list[dict[str, Any]],
) -> None:
    p = tmp_path_factory.mktemp("h") / "h.jsonl"
    p.write_text("".join(_line(**r) + "\n" for r in records), encoding="utf-8")
    fast = _tables(p, careful=False, monkeypatch=monkeypatch)
    careful = _tables(p, careful=True, monkeypatch=monkeypatch)
    for k in ("versions", "issues", "history", "history_current"):
        assert _same(fast[k], careful[k]), (k, fast["reader"])


def _clean_history(tmp_path: Path) -> Path:
    lines = [_base(i) for i in range(40)] + [_base(3), _base(40, run_id="run-1")]
    p = tmp_path / "clean.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return p


def test_sql_export_and_check_agree_on_both_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq
    from runscore.engine import history_tools

    p = _clean_history(tmp_path)
    con = eh.connect()
    assert eh.load_history(con, p).reader == "fast"
    con.close()

    def everything(tag: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for view in eh.HISTORY_VIEWS:
            res = eh.run_sql(f"SELECT * FROM {view}", history=p)
            out[view] = res.table.to_pylist()
        target = tmp_path / f"{tag}.parquet"
        eh.export(target, history=p)
        out["export"] = pq.read_table(target).to_pylist()
        chk = history_tools.check(str(p))
        out["check"] = (chk.lines, chk.usable, [d.as_dict() for d in chk.duplicates])
        return out

    fast = everything("fast")
    with monkeypatch.context() as m:
        m.setattr(eh, "_load_fast", lambda *a, **k: (False, False, None))
        careful = everything("careful")
    assert fast == careful
    # run_id = run-{i % 7} and three archetypes: 21 keys over 42 lines
    assert len(fast["history"]) == 42 and len(fast["history_current"]) == 21
    assert fast["check"][2], "line 42 repeats line 4's record: check reports it"


def _twice(rec: dict[str, Any], key: str, value: Any, *, spelled: str | None = None) -> str:
    """``rec`` as a JSON line that gives ``key`` a second time, with ``value``, at its end
    (``spelled``: the key's JSON text there, if not the plain one)."""
    return json.dumps(rec)[:-1] + f", {spelled or json.dumps(key)}: {json.dumps(value)}}}"


@pytest.mark.parametrize(
    "before",
    [
        "",  # the only problem in the file
        "{oops\n",  # after a line the fast read refuses for another reason
        json.dumps(_base(8, tokens="12")) + "\n",  # after a value the fast path cannot type
    ],
)
@pytest.mark.parametrize("careful", [False, True])
def test_a_line_with_a_history_field_twice_is_skipped_by_every_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str, careful: bool
) -> None:
    # {"composite_score": 0.9, ..., "composite_score": 0.1} says two things: which one was
    # meant cannot be known, so the line is skipped like any other bad line.
    p = tmp_path / "h.jsonl"
    dup = _twice(_base(5, composite_score=0.9), "composite_score", 0.1)
    escaped = _twice(_base(6), "run_id", "run-x", spelled='"run\\u005fid"')  # an escape
    good = [json.dumps(_base(i)) + "\n" for i in range(3)]
    p.write_text(before + good[0] + dup + "\n" + good[1] + escaped + "\n" + good[2])
    got = _tables(p, careful=careful, monkeypatch=monkeypatch)
    first = 2 if before else 1
    assert [i for i in got["issues"] if i["line"] > first] == [
        {
            "file": str(p),
            "line": first + 1,
            "reason": "history line skipped: duplicate key composite_score",
        },
        {"file": str(p), "line": first + 3, "reason": "history line skipped: duplicate key run_id"},
    ]
    assert [r[-1] for r in got["history"][2]] == [first, first + 2, first + 4]
    assert got["reader"] == "careful"


def test_a_key_outside_the_record_given_twice_is_not_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fields outside the §4 record are ignored, twice or once, by both readers.
    p = tmp_path / "h.jsonl"
    lines = [json.dumps(_base(i)) for i in range(3)]
    lines[1] = _twice({**_base(1), "note": "a"}, "note", "b")
    p.write_text("\n".join(lines) + "\n")
    fast = _tables(p, careful=False, monkeypatch=monkeypatch)
    careful = _tables(p, careful=True, monkeypatch=monkeypatch)
    assert fast["reader"] == "fast"
    assert fast["issues"] == careful["issues"] == []
    for k in ("versions", "history", "history_current"):
        assert _same(fast[k], careful[k]), k


@pytest.mark.parametrize(
    "bad,looked",
    [
        (json.dumps(_base(8, tokens="12")), False),  # read_json read every line: none twice
        ("{oops", True),  # it stopped there: the lines after it are looked at
    ],
)
def test_lines_are_looked_at_for_a_field_twice_only_when_the_fast_scan_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, looked: bool
) -> None:
    from runscore.engine import sources

    p = tmp_path / "h.jsonl"
    p.write_text("\n".join([json.dumps(_base(i)) for i in range(3)] + [bad]) + "\n")
    seen: list[str] = []
    real = sources.text_groups
    monkeypatch.setattr(sources, "text_groups", lambda f, *a: seen.append(f.path) or real(f, *a))
    con = eh.connect()
    load = eh.load_history(con, p)
    assert load.reader == "careful" and load.lines == 3
    assert seen == ([str(p)] if looked else [])


def test_report_names_a_line_with_a_field_twice(run_cli, tmp_path: Path) -> None:
    p = tmp_path / "h.jsonl"
    p.write_text(
        json.dumps(_base(1)) + "\n" + _twice(_base(2), "archetype", "sage") + "\n",
        encoding="utf-8",
    )
    r = run_cli("report", "--history", str(p), "--format", "json")
    assert r.exit_code == 1
    assert [x["runs"] for x in json.loads(r.stdout)] == [1]
    assert r.stderr.splitlines() == [f"{p}:2: history line skipped: duplicate key archetype"]


#: Times in the ISO-8601 forms DuckDB's cast refuses, which run logs' times are read in
#: (common/v1's rs_iso_text), each with the instant it names, in UTC.
WIDE_TIMES = [
    ("2026-02-02t10:00:00z", "2026-02-02 10:00:00"),  # lowercase t and z (RFC 3339)
    ("20260202T110000Z", "2026-02-02 11:00:00"),  # basic format
    ("20260202T130000+0200", "2026-02-02 11:00:00"),
    ("2026-W06-1T12:00:00Z", "2026-02-02 12:00:00"),  # week date
    ("2026W061T120000Z", "2026-02-02 12:00:00"),
    ("2026-033T13:00:00,5Z", "2026-02-02 13:00:00.500"),  # ordinal date, decimal comma
    ("2026033T130000Z", "2026-02-02 13:00:00"),
]


def _times_read(con: Any) -> list[tuple[Any, ...]]:
    return con.execute(
        "SELECT run_id, strftime(ts, '%Y-%m-%d %H:%M:%S.%g'), "
        "strftime(run_ts, '%Y-%m-%d %H:%M:%S.%g') FROM history ORDER BY history_line"
    ).fetchall()


def _ms(text: str) -> str:
    return text if "." in text else text + ".000"


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
@pytest.mark.parametrize("careful", [False, True])
def test_a_history_time_is_read_in_every_iso_form_a_run_logs_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, careful: bool
) -> None:
    # A ts or run_ts written by another tool (ArcheFlow's scorer, a hand-edited line) in a
    # week or ordinal date, the basic format, a decimal comma or lowercase t/z skipped the
    # line ("ts is not an ISO-8601 time"), where the same text in a run log is read. Both
    # readers (and the legacy version's) read it now, by the same rule; the fast path
    # keeps such lines (they are no reason to read the whole file the careful way). A time
    # no calendar has is still refused.
    lines = [_base(i) for i in range(3)]
    lines += [_base(10 + i, run_id=f"w{i}", ts=t) for i, (t, _) in enumerate(WIDE_TIMES)]
    lines += [_base(20 + i, run_id=f"r{i}", run_ts=t) for i, (t, _) in enumerate(WIDE_TIMES)]
    p = tmp_path / "h.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")

    def read() -> tuple[eh.HistoryLoad, list[tuple[Any, ...]]]:
        with monkeypatch.context() as m:
            if careful:
                m.setattr(eh, "_load_fast", lambda *a, **k: (False, False, None))
            con = eh.connect()
            load = eh.load_history(con, p, version=version)
            got = _times_read(con)
            con.close()
        return load, got

    load, got = read()
    fast_path = not careful and version == "v1"  # archeflow-legacy has no fast path
    assert (load.reader, load.issues) == ("fast" if fast_path else "careful", [])
    wide = got[3 : 3 + len(WIDE_TIMES)]
    assert [(r[0], r[1], r[2]) for r in wide] == [
        (f"w{i}", _ms(want), f"2026-03-{1 + (10 + i) % 28:02d} 07:00:00.000")
        for i, (_, want) in enumerate(WIDE_TIMES)
    ]
    runs = got[3 + len(WIDE_TIMES) :]
    assert [(r[0], r[2]) for r in runs] == [
        (f"r{i}", _ms(want)) for i, (_, want) in enumerate(WIDE_TIMES)
    ]
    # a week its year has not (2025 has 52), a day 2026 has not: not a time
    with p.open("a", encoding="utf-8") as f:
        f.write(json.dumps(_base(30, ts="2025-W53-1T00:00:00Z", run_ts="2026-366")) + "\n")
    load, again = read()
    assert load.reader == "careful" and again == got
    assert [i.as_dict() for i in load.issues] == [
        {
            "file": str(p),
            "line": len(lines) + 1,
            "reason": "history line skipped: ts is not an ISO-8601 time; "
            "run_ts is not an ISO-8601 time",
        }
    ]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
@pytest.mark.parametrize("careful", [False, True])
def test_the_wider_time_rule_is_never_run_for_a_line_the_cast_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, careful: bool
) -> None:
    # `report`'s hot path: the times runscore writes are read by the cast alone, as before
    # rs_iso_text was tried; it runs for a time the cast does not read, and for no other
    # line (shown by an rs_iso_text that fails whenever it runs). Not by error(), which is
    # volatile: DuckDB's common-subexpression pass leaves it where it is, where it lifted
    # the real rs_iso_text(s), repeated in the cast's macro, into a projection run for
    # every line.
    from runscore.engine import sqlpack

    real = sqlpack.run_common

    def with_a_tripwire(con: Any, common: str) -> None:
        real(con, common)
        con.execute(
            "CREATE OR REPLACE TEMP MACRO rs_iso_text(s) AS "
            "CAST(CAST('wide rule: ' || s AS INTEGER) AS VARCHAR)"
        )

    p = _clean_history(tmp_path)
    monkeypatch.setattr(sqlpack, "run_common", with_a_tripwire)
    if careful:
        monkeypatch.setattr(eh, "_load_fast", lambda *a, **k: (False, False, None))

    def read() -> eh.HistoryLoad:
        con = eh.connect()
        try:
            return eh.load_history(con, p, version=version)
        finally:
            con.close()

    load = read()
    assert (load.reader, load.lines, load.issues) == (
        "fast" if not careful and version == "v1" else "careful",
        42,
        [],
    )
    with p.open("a", encoding="utf-8") as f:
        f.write(json.dumps(_base(50, ts="20260302T100000Z")) + "\n")
    with pytest.raises(Exception, match="wide rule: 20260302T100000Z"):
        read()
