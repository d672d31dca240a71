"""Small files are loaded by reading whole lines; the values must be those read_json gives.

A batch of small files is loaded with ``read_ndjson_objects`` and its declared JSON
columns are taken by one ``json_extract`` as it is read (sources._raw_batch_load), where
a single large file is read by ``read_json`` with declared columns. The same line must
give the same row either way, or a run's score would depend on how its files happen to
be laid out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import db, sources
from runscore.engine.packs import effectiveness

# Lines whose values could come out differently from the two readers.
EDGE_LINES = [
    b'{"run_id":"a","seq":null,"type":"x","data":null}',
    b'{"run_id":null,"seq":1,"type":"x","ts":null,"phase":null,"agent":null,"parent":null}',
    b'{"RUN_ID":"upper","Seq":1,"type":"x"}',
    b'{"run\\u005fid":"escaped-key","seq":1,"type":"x"}',
    b'{"run_id":"n","seq":1.0,"type":"x","data":{"cost_usd":1e2,"x":12345678901234567890123}}',
    b'{"run_id":"\\u00e9\\ud83d\\ude00\\"\\\\/","ts":"a\\u0000b","type":"x","seq":2,'
    b'"data":{"model":"\\u0041","s":"\\t"}}',
    b'{ "run_id" : "w" , "seq" :  2 , "type":"x", "data" : { "a" : [ 1 , 2 ] , "b" : { } } }   ',
    b'{"run_id":"big","type":"x","seq":99999999999999999999,"parent":[1,2.5,"3",null,true]}',
    b'{"run_id":"dup","run_id":"second","type":"x","data":{"a":1},"data":{"a":2}}',
    b'{"run_id":"obj","type":"x","data":"str","agent":{"k":[]},"phase":true,"parent":"3, 4"}',
    b'{"run_id":"v","type":"review.verdict","seq":3,"data":{"archetype":"Guardian ",'
    b'"verdict":"PASS","findings":[{"severity":"bug","fix_required":"TRUE"}],"cycle":2}}',
    b"{}",
]


@pytest.fixture(autouse=True, params=["lists", "arrow"])
def via(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: small batches and tables go to DuckDB as lists bound as
    parameters (``sources.LIST_BIND_*``), larger ones as Arrow; the rows must not
    depend on which."""
    if request.param == "arrow":
        monkeypatch.setattr(sources, "LIST_BIND_BYTES", -1)
        monkeypatch.setattr(sources, "LIST_BIND_ROWS", -1)
    return str(request.param)


def _files(tmp_path: Path, crlf: bool) -> list[Path]:
    out = []
    for i, line in enumerate(EDGE_LINES):
        p = tmp_path / f"f{i:02d}.jsonl"
        end = b"\r\n" if crlf else b"\n"
        head = b"\xef\xbb\xbf" if i == 3 else b""  # a byte order mark on one file
        p.write_bytes(head + line + end + b'{"run_id":"tail","seq":9,"type":"y"}' + end)
        out.append(p)
    return out


def _read(
    paths: list[Path], columns: dict[str, str], projection: str | None
) -> tuple[list[Any], list[Any]]:
    found, _ = sources.discover([str(p) for p in paths])
    for f in found:
        sources.prescan(f)
    con = db.connect()
    res = sources.read_jsonl(con, found, "t", columns, projection=projection)
    cols = [c for c in con.execute("SELECT * FROM t LIMIT 0").description or []]
    names = [c[0] for c in cols]
    rows = con.execute(
        f"SELECT {', '.join(f'{n}::VARCHAR' for n in names)} FROM t ORDER BY _ord"
    ).fetchall()
    return rows, [i.as_dict() for i in res.skipped]


def _projection() -> str:
    from runscore.engine import sqlpack

    return sqlpack.load("effectiveness", "v1", effectiveness.PROJECTION_FILE).text


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("projection", ["default", "effectiveness-v1"])
def test_a_batch_reads_the_values_read_json_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crlf: bool, projection: str
) -> None:
    paths = _files(tmp_path, crlf)
    proj = _projection() if projection != "default" else None
    columns = dict(effectiveness.EVENT_COLUMNS)
    batch = _read(paths, columns, proj)
    # the same files, loaded by read_json with declared columns
    monkeypatch.setattr(
        sources,
        "_raw_batch_load",
        lambda cols: (sources._RAW_BATCH_LOAD, sources._RAW_BATCH),
    )
    declared = _read(paths, columns, proj)
    assert batch == declared
    rows, skipped = batch
    assert skipped == []
    assert len(rows) == 2 * len(EDGE_LINES)


def test_json_null_is_sql_null_in_a_batch(tmp_path: Path) -> None:
    paths = _files(tmp_path, crlf=False)
    rows, _ = _read(paths, {"run_id": "JSON", "seq": "JSON", "data": "JSON"}, None)
    first = rows[0]  # _file, _line, _ord, run_id, seq, data
    assert first[3:] == ('"a"', None, None)


def test_other_declared_types_keep_read_json() -> None:
    cols = {"run_id": "VARCHAR", "data": "JSON"}
    assert sources._raw_batch_load(cols) == (sources._RAW_BATCH_LOAD, sources._RAW_BATCH)
    # a name that is not an identifier would be written into the macro: refused too
    assert sources._raw_batch_load({"a'b": "JSON"})[0] == sources._RAW_BATCH_LOAD
    sql, macro = sources._raw_batch_load({"run_id": "JSON", "data": "JSON"})
    assert sql == sources._RAW_LINES_LOAD
    assert """json_extract(_json, ['$."run_id"', '$."data"'])""" in macro


def test_extract_scores_run_files_as_one_file(tmp_path: Path, hh: Any) -> None:
    # The same events as one file (read_json, streamed) and as one file per run (a
    # batch): the same history lines.
    runs = [hh.run_events(f"r{i}") for i in range(6)]
    one = tmp_path / "one"
    many = tmp_path / "many"
    one.mkdir()
    many.mkdir()
    (one / "all.jsonl").write_bytes(b"".join(hh.dump_lines(evs) for evs in runs))
    for i, evs in enumerate(runs):
        (many / f"run-{i}.jsonl").write_bytes(hh.dump_lines(evs))
    at = "2026-01-01T00:00:00Z"
    a = effectiveness.extract([str(one)], str(tmp_path / "h1.jsonl"), scored_at=at)
    b = effectiveness.extract([str(many)], str(tmp_path / "h2.jsonl"), scored_at=at)
    assert a.runs_scored == b.runs_scored == 6

    def lines(p: Path) -> list[dict[str, Any]]:
        recs = [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()]
        return sorted(({k: v for k, v in r.items() if k != "source"} for r in recs), key=str)

    assert lines(tmp_path / "h1.jsonl") == lines(tmp_path / "h2.jsonl")


# Files whose lines the loader from Python's bytes must give exactly as
# read_ndjson_objects does (rows, in order, per file), dirty ones included: a batch is
# read before the pre-scan's verdicts are known (sources._read_while_scanning).
BYTES_CASES = {
    "plain": b'{"a":1}\n{"b":"\xc3\xa9"}\n',
    "no_final_newline": b'{"a":1}\n{"b":2}',
    "crlf": b'{"a":1}\r\n{"b":2}\r\n',
    "bom": b'\xef\xbb\xbf{"a":1}\n{"b":2}\n',
    "blank_line": b'{"a":1}\n\n{"b":2}\n',
    "spaces_line": b'{"a":1}\n   \n{"b":2}\n',
    "broken_line": b'{"a":1}\n{oops\n{"b":2}\n',
    "non_object": b'[1,2]\n7\n"s"\n{"b":2}\n',
    "two_on_a_line": b'{"a":1} {"b":2}\n',
    "spaced": b'  {"a" : 1 }  \n',
    "nan": b'{"a":NaN}\n{"b":2}\n',
}


def _rows_by_file(con: Any, n: int) -> list[list[Any]]:
    # TRY, as raw_input reads them: the lines are loaded unchecked, and one that is not
    # JSON gives no fields (read_ndjson_objects's rows: NULL).
    rows = con.execute(
        "SELECT _file_index, TRY(json_extract(_json, ['$.a', '$.b']))::VARCHAR FROM _raw_batch "
        "ORDER BY rowid"
    ).fetchall()
    return [[r[1] for r in rows if r[0] == i] for i in range(n)]


def test_lines_from_python_bytes_are_read_ndjson_objects_rows(tmp_path: Path) -> None:
    paths = []
    for name, data in BYTES_CASES.items():
        p = tmp_path / f"{name}.jsonl"
        p.write_bytes(data)
        paths.append(str(p))
    con = db.connect()
    assert sources._load_lines_from_python(con, paths)
    mine = _rows_by_file(con, len(paths))
    con.execute(sources._RAW_LINES_LOAD, {"files": paths, "max_object_size": 1 << 20})
    theirs = _rows_by_file(con, len(paths))
    for name, a, b in zip(BYTES_CASES, mine, theirs, strict=True):
        if name in ("two_on_a_line", "nan"):
            # read_ndjson_objects reads these (two rows; NaN) unlike the line loader: both
            # leave the file with a row that is no object or more rows than lines, or
            # the pre-scan finds it dirty, so it is read the careful way either way.
            continue
        assert a == b, name
    assert mine[list(BYTES_CASES).index("two_on_a_line")] == [None]


def test_lines_from_python_bytes_fall_back_on_bad_utf8_or_a_vanished_file(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(b'{"a":1}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"a":"\xff"}\n')
    con = db.connect()
    assert not sources._load_lines_from_python(con, [str(good), str(bad)])
    for not_utf8 in (b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"):  # surrogate,
        bad.write_bytes(b'{"a":"' + not_utf8 + b'"}\n')  # overlong, past U+10FFFF
        assert not sources._load_lines_from_python(con, [str(good), str(bad)]), not_utf8
    assert not sources._load_lines_from_python(con, [str(good), str(tmp_path / "gone.jsonl")])
    assert sources._load_lines_from_python(con, [str(good), str(good)])


def test_a_batch_with_a_bad_file_reads_every_line_once(tmp_path: Path) -> None:
    # Through read_jsonl: the bad-UTF-8 file makes the batch load with
    # read_ndjson_objects instead; the good files' lines are the same either way, and the
    # bad file's good line is read the careful way.
    paths = []
    for i in range(4):
        p = tmp_path / f"f{i}.jsonl"
        body = b'{"run_id":"r%d","seq":1,"type":"x"}\n' % i
        p.write_bytes(body + (b'{"run_id":"\xff"}\n' if i == 2 else b""))
        paths.append(p)
    rows, skipped = _read(paths, {"run_id": "JSON", "seq": "JSON", "type": "JSON"}, None)
    assert [r[3] for r in rows] == ['"r0"', '"r1"', '"r2"', '"r3"']
    assert [(Path(s["file"]).name, s["line"]) for s in skipped] == [("f2.jsonl", 2)]


def test_a_line_that_is_not_json_in_a_batch_costs_its_file_alone(tmp_path: Path) -> None:
    # The batch loader keeps lines unchecked; raw_input's TRY gives such a line no fields,
    # so its file is read the careful way (the line named) and the other files' rows stay.
    paths = []
    for i in range(3):
        p = tmp_path / f"f{i}.jsonl"
        bad = b'{"run_id":"r1","seq":\n' if i == 1 else b""
        p.write_bytes(
            b'{"run_id":"r%d","seq":1,"type":"x"}\n' % i
            + bad
            + b'{"run_id":"r%d","seq":2,"type":"x"}\n' % i
        )
        paths.append(p)
    rows, skipped = _read(paths, {"run_id": "JSON", "seq": "JSON", "type": "JSON"}, None)
    assert [(Path(r[0]).name, r[1], r[3], r[4]) for r in rows] == [
        (f"f{i}.jsonl", str(line), f'"r{i}"', str(seq))
        for i in range(3)
        for line, seq in ((1, 1), (3 if i == 1 else 2, 2))
    ]
    assert [(Path(s["file"]).name, s["line"]) for s in skipped] == [("f1.jsonl", 2)]


def test_a_batch_of_clean_files_is_loaded_from_python_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[bool] = []
    real = sources._load_lines_from_python

    def spy(con: Any, paths: list[str], datas: Any = None) -> bool:
        used.append(real(con, paths, datas))
        return used[-1]

    monkeypatch.setattr(sources, "_load_lines_from_python", spy)
    paths = _files(tmp_path, crlf=False)
    rows, skipped = _read(paths, dict(effectiveness.EVENT_COLUMNS), None)
    assert used == [True] and skipped == [] and len(rows) == 2 * len(EDGE_LINES)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_the_lines_keep_their_files_order_whatever_the_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int, via: str
) -> None:
    # A batch goes to DuckDB as one Arrow record batch per thread (one batch was split on
    # one thread); each row's line is its offset from its file's first row, so every
    # file's lines must still come together and in order.
    monkeypatch.delenv(db.THREADS_ENV, raising=False)
    paths = []
    for i in range(301):
        p = tmp_path / f"f{i:03d}.jsonl"
        p.write_bytes(b"".join(b'{"run_id":"r%d","seq":%d}\n' % (i, j) for j in (1, 2, 3)))
        paths.append(p)
    found, _ = sources.discover([str(p) for p in paths])
    for f in found:
        sources.prescan(f)
    con = db.connect()
    db.set_threads(con, threads)
    sources.read_jsonl(con, found, "t", {"run_id": "JSON", "seq": "JSON"})
    got = con.execute("SELECT _file, _line, run_id::VARCHAR, seq::VARCHAR FROM t ORDER BY _ord")
    want = [(str(p), j, f'"r{i}"', str(j)) for i, p in enumerate(paths) for j in (1, 2, 3)]
    assert got.fetchall() == want
