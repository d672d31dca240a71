"""The quote of an input value in a message (``rs_quote``, sql/common/v1/000_quote.sql)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from runscore.engine import db, sqlpack

A = "a" * 100


def _sql_quote(value: Any) -> str:
    con = db.connect()
    try:
        sqlpack.run_common(con, "v1")
        if isinstance(value, str):  # as the packs quote an input string: to_json's text
            row = con.execute("SELECT rs_quote(to_json($v::VARCHAR))", {"v": value}).fetchone()
        else:
            text = json.dumps(value, separators=(",", ":"))
            row = con.execute("SELECT rs_quote(CAST($j AS JSON))", {"j": text}).fetchone()
        assert row is not None
        return str(row[0])
    finally:
        con.close()


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("a" * 78, '"' + "a" * 78 + '"'),  # 80 characters of JSON: whole
        ("a" * 79, '"' + "a" * 77 + '…"'),  # 81: cut to 80, the closing quote kept
        (A, '"' + "a" * 77 + '…"'),
        # never inside an escape: the escape that does not fit is left out whole
        ("a" * 75 + "\n" + A, '"' + "a" * 75 + '\\n…"'),
        ("a" * 76 + "\n" + A, '"' + "a" * 76 + '…"'),
        ("a" * 74 + "\x1b" + A, '"' + "a" * 74 + '…"'),
        ("a" * 71 + "\x1b" + A, '"' + "a" * 71 + '\\u001B…"'),
        ("a" * 76 + "\\" + A, '"' + "a" * 76 + '…"'),
        ("a" * 75 + "\\" + A, '"' + "a" * 75 + '\\\\…"'),
        # a look-blank character is written \uXXXX after the cut, which counts it as one
        ("a" * 10 + "\u00a0" + A, '"' + "a" * 10 + "\\u00a0" + "a" * 66 + '…"'),
        # any other value: its first 79 characters and the ellipsis
        (list(range(40)), json.dumps(list(range(40)), separators=(",", ":"))[:79] + "…"),
        ({"k": A}, '{"k":"' + "a" * 73 + "…"),
    ],
)
def test_a_cut_quote_is_visibly_cut(value: Any, quoted: str) -> None:
    # The quote was the JSON text's first 80 characters: "aaa…aaa with no closing quote
    # read as a value that ended there, and a cut in an escape left "\u00".
    got = _sql_quote(value)
    assert got == quoted
    assert len(got.replace("\\u00a0", "\u00a0")) <= 80


def test_a_long_value_in_a_message_is_cut_visibly(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    kind = "k" * 100
    ep = {"episodeId": "e1", "source": {"kind": kind}, "activity": {"id": "a"}}
    (tmp_path / "e.jsonl").write_text(json.dumps(ep) + "\n", encoding="utf-8")
    res = run_cli("routes", "e.jsonl", "--format", "json", "--as-of", "2025-03-01T00:00:00Z")
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        "error: no episode could be read:",
        '  e.jsonl:1: unknown source.kind "' + "k" * 77 + '…" (historical, paired or prospective)',
    ]


def test_python_messages_quote_as_the_sql_does() -> None:
    # routes' Python messages quoted with repr ('docs\xa0') where its SQL quotes with
    # rs_quote ("docs\u00a0"): runscore.engine.quoting.quote is rs_quote in Python.
    from runscore.engine.quoting import quote

    rng = random.Random(94)
    # and a format character the rule left out: the Arabic letter mark, an interlinear
    # annotation mark and a tag, past U+FFFF (written as its surrogate pair)
    alphabet = 'aé中😀"\\/\n\t\r\x00\x1b\x7f\x85\u00a0\u200b\u2028\ufeff\u3000 …:'
    alphabet += "\u061c\ufff9\U000e0041"
    values = ["", "docs", "a" * 79, "a" * 200, "a" * 76 + "\n" + "b" * 9]
    values += ["".join(rng.choices(alphabet, k=rng.randrange(120))) for _ in range(400)]
    con = db.connect()
    try:
        sqlpack.run_common(con, "v1")
        row = con.execute(
            "SELECT list_transform($vs::VARCHAR[], lambda v: rs_quote(to_json(v)))",
            {"vs": values},
        ).fetchone()
    finally:
        con.close()
    assert row is not None
    assert [quote(v) for v in values] == row[0]
    assert [quote(v) for v in (1.5, -3, True, None, float("nan"))] == [
        "1.5",
        "-3",
        "true",
        "null",
        "NaN",
    ]


def test_a_path_is_written_as_the_sql_writes_it() -> None:
    # rs_path (routes' "first at file:line") and quoting.path (every file:line: prefix)
    # are one rule: a path written as it is unless it holds a control or blank-looking
    # character, or opens with a quote; then quoted, never cut.
    from runscore.engine.quoting import path

    rng = random.Random(104)
    alphabet = 'aé中😀"\\/:. \n\t\r\x00\x1b\x7f\x85\x9f\xa0\u00a0\u200b\u202e\u2028\ufeff\u3000'
    alphabet += "\u061c\ufff9\U000e0041"
    paths = ["logs/run.jsonl", '"q".jsonl', 'a"b', "d/" + "x" * 200 + "\t", "a b:c"]
    paths += ["".join(rng.choices(alphabet, k=rng.randrange(1, 120))) for _ in range(400)]
    con = db.connect()
    try:
        sqlpack.run_common(con, "v1")
        row = con.execute(
            "SELECT list_transform($ps::VARCHAR[], lambda p: rs_path(p))", {"ps": paths}
        ).fetchone()
    finally:
        con.close()
    assert row is not None
    assert [path(p) for p in paths] == row[0]
    assert row[0][:5] == [
        "logs/run.jsonl",
        '"\\"q\\".jsonl"',
        'a"b',
        '"d/' + "x" * 200 + '\\t"',
        "a b:c",
    ]


def test_a_shown_text_is_quoted_as_the_sql_quotes_it_when_it_needs_it() -> None:
    # A value holding a right-to-left override, shown with it written \u202e in place, read
    # as one holding the six characters \u202e (a CR as the text \x0d, in the pipeline
    # report's testResult). quoting.shown and rs_shown (what rs_path and pl_shown follow) are
    # one rule: as it is, unless it holds what is written escaped, or opens with a quote;
    # then quoted, its own backslashes and quotes escaped.
    from runscore.engine.quoting import needs_quote, shown

    rng = random.Random(136)
    alphabet = 'aé"\\u202e/x0d \n\t\r\x1b\x7f\x85\x9b\u00a0\u200b\u202e\u2028\U000e0041'
    texts = ["a\u202eb", "a\\u202eb", "a\rb", "a\\x0db", '"a\\u202eb"', "plain", 'a"b', ""]
    texts += ["".join(rng.choices(alphabet, k=rng.randrange(1, 40))) for _ in range(300)]
    con = db.connect()
    try:
        sqlpack.run_common(con, "v1")
        row = con.execute(
            "SELECT list_transform($ts::VARCHAR[], lambda t: rs_shown(t)),"
            " list_transform($ts::VARCHAR[], lambda t: rs_needs_quote(t))",
            {"ts": texts},
        ).fetchone()
    finally:
        con.close()
    assert row is not None
    assert [shown(t) for t in texts] == row[0]
    assert [needs_quote(t) for t in texts] == row[1]
    assert row[0][:8] == [
        '"a\\u202eb"',
        "a\\u202eb",
        '"a\\rb"',
        "a\\x0db",
        '"\\"a\\\\u202eb\\""',
        "plain",
        'a"b',
        "",
    ]
    assert len(set(row[0])) == len(set(texts))  # no two texts shown alike


def test_internal_errors_quote_by_the_one_rule() -> None:
    # These quoted with Python's repr ('a\u202eb' printed the override as it is, 'a\tb'
    # as a backslash and a t): every message quotes a value by one rule, these too.
    from runscore.cli.nightly import Renderer
    from runscore.engine import sources
    from runscore.engine.errors import SqlPackError, UsageError
    from runscore.engine.packs import effectiveness

    bad, quoted = "a\u202eb\tc", '"a\\u202eb\\tc"'
    con = db.connect()
    try:
        for call, said in [
            (lambda: sqlpack.versions(bad), f"unknown SQL pack {quoted}"),
            (lambda: sqlpack.load("routes", "v1", bad), f"no SQL file {quoted} in routes/v1"),
            (
                lambda: sources.load_table(con, "t", {bad: ("INTEGER", [1])}),
                f'bad column {quoted} of type "INTEGER"',
            ),
            (
                lambda: sources.update_by_ord(con, bad, "c", [1], [1], "INTEGER"),
                f'bad table or column name {quoted}."c"',
            ),
            (lambda: sources.read_jsonl(con, [], bad, {}), f"bad table name {quoted}"),
            (lambda: effectiveness._copy_view(con, bad), f"bad view name {quoted}"),
            (lambda: Renderer().markdown(bad, {}), f"unknown nightly document {quoted}"),
        ]:
            with pytest.raises((SqlPackError, UsageError, ValueError)) as e:
                call()
            assert str(e.value) == said
    finally:
        con.close()


def test_a_duplicate_key_that_is_no_plain_name_is_quoted_by_the_one_rule(tmp_path: Path) -> None:
    # The reader's duplicate-key reason wrote a key that is no plain name as DuckDB's
    # to_json writes it: a bidi override as it is, 200 characters whole. A reader of
    # every key of an object (unique_keys None) names whatever key the line gives twice.
    from runscore.engine import sources

    rtl, long = "a\u202eb", "k-" * 100  # no plain name: a plain one is named as it is
    lines = [
        {"x": 1},
        f'{{"x": 1, {json.dumps(rtl)}: 1, "x": 2, {json.dumps(rtl)}: 2}}',
        f'{{"m": {{{json.dumps(long)}: 1, {json.dumps(long)}: 2}}}}',
        '{"m": {"a b": 1, "a b": 2, "ok": 1, "ok": 2}}',
    ]
    p = tmp_path / "d.jsonl"
    p.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    found, _ = sources.discover([str(p)])
    for f in found:
        sources.prescan(f)
    con = db.connect()
    try:
        res = sources.read_jsonl(
            con, found, "t", {"x": "JSON", "m": "JSON"}, unique_keys={"$": None, "$.m": None}
        )
    finally:
        con.close()
    assert [(i.line, i.reason) for i in res.skipped] == [
        (2, 'duplicate keys x, "a\\u202eb"'),
        (3, 'duplicate key m."' + "k-" * 38 + 'k…"'),
        (4, 'duplicate keys m."a b", m.ok'),
    ]


def test_sql_version_and_file_name_messages_quote_by_the_one_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These wrote the version and the file name bare: a tab read as blanks, a bidi
    # override reordered the message.
    import os

    from runscore.engine import sources
    from runscore.engine.errors import SqlPackError

    bad, quoted = "a\u202eb\tc", '"a\\u202eb\\tc"'
    with pytest.raises(SqlPackError) as e:
        sqlpack.files("routes", bad)
    assert str(e.value) == f"unknown SQL version {quoted} of routes (have: v1)"
    # an installed pack holding a file whose name breaks the NNN_name.sql rule
    (tmp_path / "p" / "v1").mkdir(parents=True)
    (tmp_path / "p" / "v1" / "0\t1_x.sql").write_text("SELECT 1;")
    monkeypatch.setattr(sqlpack, "_root", lambda: tmp_path)
    try:
        with pytest.raises(SqlPackError) as e:
            sqlpack.files("p", "v1")
        assert str(e.value) == 'bad SQL file name "p/v1/0\\t1_x.sql"'
        (tmp_path / "p" / "v1" / "0\t1_x.sql").unlink()
        (tmp_path / "p" / bad).mkdir()
        with pytest.raises(SqlPackError) as e:
            sqlpack.files("p", bad)
        assert str(e.value) == f"SQL version {quoted} of p has no .sql files"
    finally:
        sqlpack.files.cache_clear()
    # the reader's own OSError for what is not a regular file (a FIFO), caught where it
    # is raised today, names it by the same rule should it ever be shown
    fifo = tmp_path / "f\tifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as oe:
        sources._read_whole(str(fifo))
    assert str(oe.value) == f'"{tmp_path}/f\\tifo": not a regular file'


def test_every_format_character_is_quoted_as_json_writes_it() -> None:
    # The rule wrote a bidi override or a zero-width space \uXXXX, but the Arabic letter
    # mark (U+061C, a bidi mark), the interlinear annotation marks and the tags (U+E0020-
    # E007F, which hide ASCII text) as they are. Every format character (category Cf) is
    # written escaped now, one past U+FFFF as its UTF-16 surrogate pair, in Python and SQL.
    import sys
    import unicodedata

    from runscore.engine.quoting import path, quote, show_unseen

    value = "a\u061cb\ufff9c\U000e0041d\U0001d173"
    quoted = '"a\\u061cb\\ufff9c\\udb40\\udc41d\\ud834\\udd73"'
    assert quote(value) == _sql_quote(value) == quoted
    assert json.loads(quoted) == value  # the quote is JSON that means the same value
    assert path(value) == quoted
    con = db.connect()
    try:
        sqlpack.run_common(con, "v1")
        row = con.execute("SELECT rs_path($p)", {"p": value}).fetchone()
    finally:
        con.close()
    assert row == (quoted,)
    cf = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert [c for c in cf if show_unseen(c) == c] == []
