"""The careful path checks a dirty file's lines in DuckDB; Python decides only the doubtful ones.

The reference is the Python-per-line careful path (``sources._careful``: every line
checked by Python's strict parser, the good ones spooled and read by ``read_json``), which
readers that declare a non-JSON column still take: on the same hostile file both must give
the same rows, with the same line numbers, and the same issues with the same reasons —
whatever the read size, the group size and the line limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from runscore.engine import db, sources, sqlpack
from runscore.engine.packs import effectiveness

OK = b'{"run_id":"r","type":"x","seq":%d,"data":{"archetype":"guardian"}}'

# Every kind of line the careful path must tell apart, as bytes (each gets a newline).
HOSTILE = [
    b'{"run_id":"r","type":"run.start","seq":1}',
    b"",
    b"   \t ",
    b"\x0b\x0c",
    b'   {"run_id":"r","type":"lead","seq":2}',
    b'{"run_id":"r","type":"crlf","seq":3}\r',
    b'{"run_id":"r","type":"x","seq":4,"data":{"cost_usd":NaN}}',
    b'{"run_id":"r","type":"x","seq":5,"data":{"v":-Infinity}}',
    b'{"run_id":"r","type":"x","seq":6,"data":{"v":nan}}',
    b'{"run_id":"r","type":"x","seq":7,"data":{"v":[1,2,]}}',
    b'{"run_id":"r","type":"x","seq":8,}',
    # looks like the pattern, inside strings: a false alarm, the line is good
    b'{"run_id":"r","type":"x","seq":9,"data":{"t":"a, ]","u":":nan}"}}',
    b"[1, 2]",
    b"3",
    b'"a string"',
    b"null",
    b'{"run_id":"\xff\xfe","type":"x","seq":10}',
    b'{"run_id":"r","type":"x","seq":11,"data":{"s":"\\udcff"}}',
    b'{"run_id":"r","type":"x","seq":12,"data":{"s":"\\ud83d\\ude00 \\u00e9"}}',
    b'{"run_id":"r","type":"x","seq":13,"data":{"s":"caf\xc3\xa9"}}',
    b"{bad",
    b'{"run_id":"r","type":"x"} trailing',
    b'{"run_id":"r","type":"x","seq":14} // comment',
    b'{"run_id":"r","type":"x","seq":15,"data":{"s":"tab\there"}}',
    b'{"run_id":"r","type":"x","seq":16,"data":{"long":"' + b"y" * 300 + b'"}}',
    b'{"run_id":"dup","run_id":"second","type":"x","seq":17}',
    b'{"run_id":"r","type":"x","seq":18,"data":{"big":1e400}}',
    b'\xef\xbb\xbf{"run_id":"r","type":"bom-not-first","seq":19}',
    b"\x1c",
    b'{"run_id":"r","type":"run.complete","seq":20}',
]


def _hostile_file(tmp_path: Path, bom: bool = True, last_newline: bool = False) -> Path:
    p = tmp_path / "hostile.jsonl"
    body = b"\n".join(HOSTILE) + (b"\n" if last_newline else b"")
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body)
    return p


def _read(
    paths: list[Path], monkeypatch: pytest.MonkeyPatch, *, python_per_line: bool
) -> tuple[list[Any], list[dict[str, object]]]:
    with monkeypatch.context() as m:
        if python_per_line:
            # A loader of another kind than lines sends dirty files the Python way.
            m.setattr(
                sources,
                "_raw_batch_load",
                lambda cols: (sources._RAW_BATCH_LOAD, sources._RAW_BATCH),
            )
        found, _ = sources.discover([str(p) for p in paths])
        for f in found:
            sources.prescan(f)
        con = db.connect()
        proj = sqlpack.load("effectiveness", "v1", effectiveness.PROJECTION_FILE).text
        res = sources.read_jsonl(con, found, "t", effectiveness.EVENT_COLUMNS, projection=proj)
        names = [c[0] for c in con.execute("SELECT * FROM t LIMIT 0").description or []]
        rows = con.execute(
            f"SELECT {', '.join(f'{n}::VARCHAR' for n in names)} FROM t ORDER BY _ord"
        ).fetchall()
        assert res.rows == len(rows)
        return rows, [i.as_dict() for i in res.skipped]


@pytest.mark.parametrize(
    ("chunk", "group", "limit"),
    [
        (None, None, None),  # as shipped: one read, one group
        (7, 40, None),  # reads of 7 bytes, a group every few lines: lines span reads
        (64, 1, 120),  # a group per piece; lines over a 120-byte limit, some spanning reads
        (1000, 100, 120),  # over-limit lines inside one read (reported by DuckDB's check)
    ],
    ids=["shipped", "tiny-reads", "limit-spanning-reads", "limit-inside-a-read"],
)
@pytest.mark.parametrize("last_newline", [False, True], ids=["no-final-newline", "final-newline"])
def test_the_duckdb_careful_path_reads_what_the_python_one_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    chunk: int | None,
    group: int | None,
    limit: int | None,
    last_newline: bool,
) -> None:
    path = _hostile_file(tmp_path, last_newline=last_newline)
    expected = _read([path], monkeypatch, python_per_line=True)
    if chunk is not None:
        monkeypatch.setattr(sources, "CHUNK", chunk)
    if group is not None:
        monkeypatch.setattr(sources, "CAREFUL_GROUP_BYTES", group)
    if limit is not None:
        monkeypatch.setenv(sources.MAX_LINE_ENV, str(limit))
        expected = _read([path], monkeypatch, python_per_line=True)  # same limit
    got = _read([path], monkeypatch, python_per_line=False)
    assert got == expected
    rows, issues = got
    assert len(rows) >= 8 and len(issues) >= 12  # it did read a hostile file
    by_line = {i["line"]: i["reason"] for i in issues}
    assert by_line[7] == "not JSON: NaN is not valid JSON"
    assert str(by_line[17]).startswith("not valid UTF-8 (byte ")
    assert "line" not in str(by_line.get(12, ""))  # the false alarm (line 12) is read
    assert 12 in {int(r[1]) for r in rows}  # ... as line 12 (the view's _line)
    if limit is not None:
        assert by_line[25] == f"line longer than {limit} bytes"


def test_python_checks_only_the_lines_duckdb_cannot_vouch_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "big.jsonl"
    lines = [OK % i for i in range(1, 3001)]
    lines[1500] = b'{"run_id":"r","type":"x","seq":1501,"data":{"v":NaN}}'
    p.write_bytes(b"\n".join(lines) + b"\n")
    checked: list[bytes] = []
    real = sources._check_line

    def counting(line: bytes) -> str | None:
        checked.append(line)
        return real(line)

    monkeypatch.setattr(sources, "_check_line", counting)
    rows, issues = _read([p], monkeypatch, python_per_line=False)
    assert checked == [lines[1500]]
    assert issues == [{"file": str(p), "line": 1501, "reason": "not JSON: NaN is not valid JSON"}]
    assert [int(r[1]) for r in rows] == [n for n in range(1, 3001) if n != 1501]


def test_a_line_only_duckdb_refuses_is_reported_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No line is known that Python's strict parser takes and DuckDB's refuses (deep
    # nesting both take); should one exist, DuckDB — which reads the events — decides,
    # and the line is reported, instead of the whole file failing to align.
    p = tmp_path / "f.jsonl"
    p.write_bytes(OK % 1 + b"\n{bad\n" + OK % 3 + b"\n")
    monkeypatch.setattr(sources, "_check_line", lambda line: None)
    rows, issues = _read([p], monkeypatch, python_per_line=False)
    assert issues == [
        {"file": str(p), "line": 2, "reason": "not JSON: refused by DuckDB's JSON parser"}
    ]
    assert [int(r[1]) for r in rows] == [1, 3]


def test_a_file_that_fails_midway_keeps_nothing_and_the_others_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "a.jsonl"
    bad.write_bytes(b"\n".join(OK % i for i in range(1, 50)) + b"\n{bad\n")
    good = tmp_path / "b.jsonl"
    good.write_bytes(b"{bad\n" + OK % 2 + b"\n")
    real = sources._line_pieces

    def failing(f: sources.SourceFile, limit: int, issues: list[sources.LineIssue]) -> Any:
        for i, piece in enumerate(real(f, limit, issues)):
            if f.path == str(bad) and i == 3:
                raise OSError(5, "Input/output error")
            yield piece

    monkeypatch.setattr(sources, "CHUNK", 64)  # many pieces ...
    monkeypatch.setattr(sources, "CAREFUL_GROUP_BYTES", 64)  # ... each its own group
    monkeypatch.setattr(sources, "_line_pieces", failing)
    rows, issues = _read([bad, good], monkeypatch, python_per_line=False)
    assert {"file": str(bad), "line": 0, "reason": "cannot read file: Input/output error"} in issues
    assert [(r[0], int(r[1])) for r in rows] == [(str(good), 2)]


def test_a_file_staged_before_it_was_found_dirty_leaves_no_rows_behind(tmp_path: Path) -> None:
    # A large file is read beside its pre-scan; found dirty, it is read again the careful
    # way. Its first read's rows were kept in the data table, unseen, as long as the
    # tables lived: at 100k runs in one file, the whole corpus twice in memory.
    big = tmp_path / "big.jsonl"
    lines = [OK % i for i in range(1, 2001)]
    lines[999] = b'{"run_id":"r","type":"x","seq":1000,"data":{"v":NaN}}'
    big.write_bytes(b"\n".join(lines) + b"\n")
    found, _ = sources.discover([str(big)])
    con = db.connect()

    def scan(some: Any) -> None:
        for f in some:
            sources.prescan(f)

    res = sources.read_jsonl(con, found, "t", {"run_id": "JSON", "seq": "JSON"}, scan=scan)
    assert [i.line for i in res.skipped] == [1000]
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(1999,)]
    assert con.execute("SELECT count(*) FROM t__rows").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM t__careful").fetchall() == [(1999,)]


@pytest.mark.parametrize("group", [None, 300], ids=["one-group", "files-across-groups"])
def test_many_dirty_files_share_groups_and_keep_their_own_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group: int | None
) -> None:
    # Run files with a blank line or a bad line each go the careful way: many to a group
    # (one file at a time cost ~10 statements a file), each row still its own file's line.
    paths = []
    for i in range(30):
        p = tmp_path / f"run-{i:02d}.jsonl"
        body = [OK % 1, HOSTILE[i % len(HOSTILE)], OK % 3, b"", OK % 5]
        p.write_bytes(b"\n".join(body) + (b"\n" if i % 2 else b""))
        paths.append(p)
    expected = _read(paths, monkeypatch, python_per_line=True)
    if group is not None:
        monkeypatch.setattr(sources, "CAREFUL_GROUP_BYTES", group)
    got = _read(paths, monkeypatch, python_per_line=False)
    assert got == expected
    rows, issues = got
    assert {r[0] for r in rows} == {str(p) for p in paths}
    assert len(issues) >= 15


class _CountingConnection:
    """A connection that counts interrupts (DuckDB's own cannot be patched)."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.interrupts = 0

    def interrupt(self) -> None:
        self.interrupts += 1
        self._con.interrupt()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


@pytest.mark.parametrize("dirty", [True, False], ids=["dirty", "clean"])
def test_a_read_beside_the_scan_is_stopped_once_nothing_of_it_will_be_taken(
    tmp_path: Path, dirty: bool
) -> None:
    big = tmp_path / "big.jsonl"
    lines = [OK % i for i in range(1, 3001)]
    if dirty:
        lines[10] = b'{"run_id":"r","type":"x","seq":11,"data":{"v":NaN}}'
    big.write_bytes(b"\n".join(lines) + b"\n")
    found, _ = sources.discover([str(big)])
    con = _CountingConnection(db.connect())

    def scan(some: Any) -> None:
        for f in some:
            sources.prescan(f)

    res = sources.read_jsonl(con, found, "t", {"run_id": "JSON", "seq": "JSON"}, scan=scan)  # type: ignore[arg-type]
    assert con.interrupts == (1 if dirty else 0)
    assert [i.line for i in res.skipped] == ([11] if dirty else [])
    got = con.execute("SELECT _line, seq::VARCHAR FROM t ORDER BY _ord").fetchall()
    assert got == [(n, str(n)) for n in range(1, 3001) if not (dirty and n == 11)]


@pytest.mark.parametrize("ending", [b"\n\n", b"\r\n\r\n", b"\n  \n\t\n", b"\n \t", b"\n\n\n\n"])
@pytest.mark.parametrize("layout", ["run-files", "one-file"])
def test_blank_lines_ending_a_file_keep_it_on_the_fast_path(
    tmp_path: Path, ending: bytes, layout: str
) -> None:
    # Blank lines after the last event (a writer that ends each event with two newlines)
    # give no row and move no row off its line: such a file needs no careful reading.
    n_files = 3 if layout == "run-files" else 1
    paths = []
    for k in range(n_files):
        p = tmp_path / f"run-{k}.jsonl"
        sep = b"\r\n" if ending.startswith(b"\r") else b"\n"
        p.write_bytes(sep.join(OK % i for i in range(1, 6)) + ending)
        paths.append(p)
    got, careful = _lines_read(paths)
    assert got == [(str(p), i, str(i)) for p in paths for i in range(1, 6)]
    assert careful == 0


@pytest.mark.parametrize("python_per_line", [False, True], ids=["duckdb", "python"])
def test_a_last_line_of_complete_json_is_not_named_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python_per_line: bool
) -> None:
    # A write cut short is never complete JSON: a last line that is (an array, a number)
    # only lacks its newline. It was named torn ("a writer was interrupted"); it keeps
    # the reason the same line gets anywhere in the file. A cut-short one is still torn.
    arr = tmp_path / "a-array.jsonl"
    arr.write_bytes(b"\n".join([OK % 1, b"[1, 2]"]))
    num = tmp_path / "b-number.jsonl"
    num.write_bytes(b"\n".join([OK % 1, b"42"]))
    cut = tmp_path / "c-cut.jsonl"
    cut.write_bytes(b"\n".join([OK % 1, b"[1, "]))
    _, issues = _read([arr, num, cut], monkeypatch, python_per_line=python_per_line)
    assert issues == [
        {"file": str(arr), "line": 2, "reason": "not a JSON object (an array)"},
        {"file": str(num), "line": 2, "reason": "not a JSON object (a number)"},
        {
            "file": str(cut),
            "line": 2,
            "reason": f"{TORN}: not JSON: Expecting value: line 1 column 5 (char 4)",
        },
    ]


@pytest.mark.parametrize("layout", ["run-files", "one-file"])
def test_a_blank_line_inside_a_file_still_takes_the_careful_path(
    tmp_path: Path, layout: str
) -> None:
    n_files = 3 if layout == "run-files" else 1
    paths = []
    for k in range(n_files):
        p = tmp_path / f"run-{k}.jsonl"
        lines = [OK % i for i in range(1, 6)]
        lines.insert(2, b"  ")  # line 3 is blank: the rows after it are one line down
        p.write_bytes(b"\n".join(lines) + b"\n\n")
        paths.append(p)
    got, careful = _lines_read(paths)
    assert got == [
        (str(p), ln, str(s))
        for p in paths
        for ln, s in zip((1, 2, 4, 5, 6), range(1, 6), strict=True)
    ]
    assert careful == 5 * n_files


def _lines_read(paths: list[Path]) -> tuple[list[Any], int]:
    """(file, line, seq) of every row read from ``paths``, and how many came the careful way."""
    found, _ = sources.discover([str(p) for p in paths])
    for f in found:
        sources.prescan(f)
    con = db.connect()
    res = sources.read_jsonl(con, found, "t", {"run_id": "JSON", "seq": "JSON"})
    assert res.skipped == []
    got = con.execute("SELECT _file, _line, seq::VARCHAR FROM t ORDER BY _ord").fetchall()
    return got, int(con.execute("SELECT count(*) FROM t__careful").fetchall()[0][0])


TORN = sources.TORN_LAST_LINE


@pytest.mark.parametrize("python_per_line", [False, True], ids=["duckdb", "python"])
@pytest.mark.parametrize("chunk", [None, 7], ids=["shipped", "tiny-reads"])
def test_a_bad_last_line_without_a_newline_is_named_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python_per_line: bool, chunk: int | None
) -> None:
    if chunk is not None:
        monkeypatch.setattr(sources, "CHUNK", chunk)
    cut = (OK % 3)[:25]  # a write cut short: b'{"run_id":"r","type":"x",'
    torn = tmp_path / "a-torn.jsonl"
    torn.write_bytes(b"\n".join([OK % 1, b"{bad", OK % 2, cut]))
    ended = tmp_path / "b-ended.jsonl"  # the same bad line, but its writer ended it
    ended.write_bytes(b"\n".join([OK % 1, cut]) + b"\n")
    open_good = tmp_path / "c-open-good.jsonl"  # no newline at the end, last line good
    open_good.write_bytes(b"\n".join([b"{bad", OK % 1]))
    rows, issues = _read([torn, ended, open_good], monkeypatch, python_per_line=python_per_line)
    reason = (
        "not JSON: Expecting property name enclosed in double quotes: line 1 column 26 (char 25)"
    )
    assert issues == [
        {
            "file": str(torn),
            "line": 2,
            "reason": "not JSON: Expecting property name enclosed "
            "in double quotes: line 1 column 2 (char 1)",
        },
        {"file": str(torn), "line": 4, "reason": f"{TORN}: {reason}"},
        {"file": str(ended), "line": 2, "reason": reason},
        {
            "file": str(open_good),
            "line": 1,
            "reason": "not JSON: Expecting property name "
            "enclosed in double quotes: line 1 column 2 (char 1)",
        },
    ]
    assert [(r[0], int(r[1])) for r in rows] == [
        (str(torn), 1),
        (str(torn), 3),
        (str(ended), 1),
        (str(open_good), 2),
    ]
