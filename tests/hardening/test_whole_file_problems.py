"""A problem of a whole input file is said once, for the file, with what to do about it.

A log in UTF-16 or UTF-32, or one whose lines end in a CR alone, was reported line by line
(``not valid UTF-8`` or ``not JSON`` for each line; a CR-only file as one torn line), which
says neither what the file is nor how to fix it. Each is now one ``file: reason`` (the file
is listed as not read, as a compressed one is), and the other files are read as usual.
What the readers take as it is stays so: a UTF-8 byte-order mark, CRLF line ends, and a CR
that ends the file's one object or stands between its tokens.
"""

from __future__ import annotations

import codecs
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import sources

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUN = SAMPLE / "run-2026-11-01.jsonl"  # one complete run: 4 records

#: How each encoding is written, and how runscore names it.
ENCODINGS: dict[str, tuple[Callable[[str], bytes], str]] = {
    "utf16-le-bom": (
        lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
        "encoded as UTF-16 LE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-16 -t UTF-8)",
    ),
    "utf16-be-bom": (
        lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
        "encoded as UTF-16 BE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-16 -t UTF-8)",
    ),
    "utf16-le": (
        lambda t: t.encode("utf-16-le"),
        "encoded as UTF-16 LE (no byte-order mark; every other byte is NUL): runscore reads "
        "UTF-8 JSONL (convert it first, e.g. iconv -f UTF-16LE -t UTF-8)",
    ),
    "utf16-be": (
        lambda t: t.encode("utf-16-be"),
        "encoded as UTF-16 BE (no byte-order mark; every other byte is NUL): runscore reads "
        "UTF-8 JSONL (convert it first, e.g. iconv -f UTF-16BE -t UTF-8)",
    ),
    "utf32-le-bom": (
        lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
        "encoded as UTF-32 LE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-32 -t UTF-8)",
    ),
    "utf32-be-bom": (
        lambda t: codecs.BOM_UTF32_BE + t.encode("utf-32-be"),
        "encoded as UTF-32 BE (byte-order mark): runscore reads UTF-8 JSONL "
        "(convert it first, e.g. iconv -f UTF-32 -t UTF-8)",
    ),
    "utf32-le": (
        lambda t: t.encode("utf-32-le"),
        "encoded as UTF-32 LE (no byte-order mark; three bytes in four are NUL): runscore "
        "reads UTF-8 JSONL (convert it first, e.g. iconv -f UTF-32LE -t UTF-8)",
    ),
}

CR_ONLY = (
    "lines end in CR only (old Mac line ends): runscore reads JSONL, whose lines end in LF "
    "(convert it first, e.g. tr '\\r' '\\n')"
)


def _json(res: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(res.stdout)
    return out


@pytest.mark.parametrize("enc", sorted(ENCODINGS))
def test_a_utf16_or_utf32_log_is_named_once_and_the_rest_is_read(
    run_cli: Any, tmp_path: Path, enc: str
) -> None:
    encode, reason = ENCODINGS[enc]
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLE / "run-2026-11-02.jsonl", logs / "plain.jsonl")
    # A UTF-8 byte-order mark is read as if absent, as it always was.
    (logs / "utf8-bom.jsonl").write_bytes(
        codecs.BOM_UTF8 + (SAMPLE / "run-2026-11-03.jsonl").read_bytes()
    )
    wide = logs / "wide.jsonl"
    wide.write_bytes(encode(RUN.read_text(encoding="utf-8")))
    # In a folder: read with the others, in one batch (the pre-scan of bytes read already).
    res = run_cli("extract", "logs", "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == f"logs/wide.jsonl: {reason}"
    assert "not valid UTF-8" not in res.stderr and "not JSON" not in res.stderr
    out = _json(res)
    assert out["unreadable"] == [{"file": "logs/wide.jsonl", "line": 0, "reason": reason}]
    assert (out["runs_scored"], out["skipped_lines"]) == (2, [])
    # Alone (the pre-scan that reads the file itself): nothing else to read.
    alone = run_cli("extract", "logs/wide.jsonl", "--history", "h2.jsonl", "--format", "json")
    assert (alone.exit_code, alone.stdout) == (3, "")
    assert alone.stderr == f"error: nothing could be read:\n  logs/wide.jsonl: {reason}\n"
    assert not (tmp_path / "h2.jsonl").exists()


def test_a_log_of_several_chunks_is_named_by_its_first(tmp_path: Path) -> None:
    # Past the pre-scan's read size (its chunk loop, a read ahead on a thread): the first
    # chunk tells, and the file is not searched further.
    line = json.dumps({"run_id": "r", "type": "note", "data": {"x": "y" * 200}}) + "\n"
    text = line * (sources.CHUNK // len(line) + 10)
    p = tmp_path / "big.jsonl"
    p.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    f = sources.prescan(sources.SourceFile(str(p), "big.jsonl"))
    assert f.size > 2 * sources.CHUNK
    assert f.error == ENCODINGS["utf16-le-bom"][1]


def test_the_other_readers_name_a_utf16_file_too(run_cli: Any, tmp_path: Path) -> None:
    # pipeline, routes and a history given to report read through the same pre-scan.
    reason = ENCODINGS["utf16-le-bom"][1]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_bytes(
        ENCODINGS["utf16-le-bom"][0]((FIXTURES / "pipeline" / "tasks.jsonl").read_text())
    )
    res = run_cli("pipeline", "tasks.jsonl", "--no-history")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == f"error: no task snapshot file could be read:\n  tasks.jsonl: {reason}\n"
    episodes = tmp_path / "episodes.jsonl"
    episodes.write_bytes(ENCODINGS["utf16-le-bom"][0]('{"episodeId": "e"}\n'))
    res = run_cli("routes", "episodes.jsonl")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == f"error: no readable episode file: episodes.jsonl: {reason}\n"
    hist = tmp_path / "h.jsonl"
    assert run_cli("extract", str(SAMPLE), "--history", str(hist)).exit_code == 0
    wide = tmp_path / "wide-history.jsonl"
    wide.write_bytes(ENCODINGS["utf16-le-bom"][0](hist.read_text(encoding="utf-8")))
    res = run_cli("report", "--history", "wide-history.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == f"error: wide-history.jsonl: {reason} (see 'cli report --help')\n"


def test_a_utf16_history_is_never_appended_to(run_cli: Any, tmp_path: Path) -> None:
    # UTF-8 records after UTF-16 ones would be in a file the readers skip whole (its start
    # says UTF-16): refused before scoring, as a compressed history is.
    hist = tmp_path / "h.jsonl"
    wide = ENCODINGS["utf16-le"][0]('{"run_id": "old"}\n')
    hist.write_bytes(wide)
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "error: h.jsonl: encoded as UTF-16 LE (no byte-order mark; every other byte is NUL): "
        "runscore appends only to a UTF-8 JSONL history "
        "(convert it first, e.g. iconv -f UTF-16LE -t UTF-8) (see 'cli extract --help')\n"
    )
    assert hist.read_bytes() == wide
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]  # no lock, no manifest


#: A run log whose first line opens with a key in Chinese, within the first 32 bytes in
#: UTF-16 or UTF-32 (8 characters): without a byte-order mark, not every other byte there
#: is NUL.
WIDE_FIRST = '{"任务": "修复登录", "ts": "2026-11-01T10:01:00Z", "run_id": "w", "seq": 1}\n'


@pytest.mark.parametrize(
    ("codec", "name", "iconv", "nul"),
    [
        ("utf-16-le", "UTF-16 LE", "UTF-16LE", "a NUL byte"),
        ("utf-16-be", "UTF-16 BE", "UTF-16BE", "a NUL byte"),
        ("utf-32-le", "UTF-32 LE", "UTF-32LE", "three NUL bytes"),
        ("utf-32-be", "UTF-32 BE", "UTF-32BE", "three NUL bytes"),
    ],
)
def test_a_log_without_a_mark_is_named_once_with_a_character_past_u00ff_at_its_start(
    run_cli: Any, tmp_path: Path, codec: str, name: str, iconv: str, nul: str
) -> None:
    # Such a file was reported line by line ("not valid UTF-8", "not JSON"): the test for
    # it wanted every character of its first 32 bytes below U+0100. Its first two are
    # ASCII in every JSONL file ("{" and a quote), and the rest is told by decoding.
    reason = (
        f"encoded as {name} (no byte-order mark; {nul} beside each ASCII character): "
        f"runscore reads UTF-8 JSONL (convert it first, e.g. iconv -f {iconv} -t UTF-8)"
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLE / "run-2026-11-02.jsonl", logs / "plain.jsonl")
    text = WIDE_FIRST + RUN.read_text(encoding="utf-8")
    (logs / "wide.jsonl").write_bytes(text.encode(codec))
    assert "任" in text.encode(codec)[: sources._NUL_SAMPLE].decode(codec, "ignore")
    res = run_cli("extract", "logs", "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == f"logs/wide.jsonl: {reason}"
    out = _json(res)
    assert out["unreadable"] == [{"file": "logs/wide.jsonl", "line": 0, "reason": reason}]
    assert (out["runs_scored"], out["skipped_lines"]) == (1, [])


@pytest.mark.parametrize(
    "head",
    [
        b'{"run_id": "r", "type": "x"}\n',
        b"\n\n" + b'{"a": 1}\n',
        codecs.BOM_UTF8 + b'{"a": 1}\n',
        b'{\x00"a": 1}\n',  # a NUL in a line: that line is not JSON, the file is UTF-8
        b"\x00",
        b"{\x00",  # too short to tell
        b"",
        # A byte-order mark's bytes, then no text in its encoding: a UTF-8 log whose first
        # line is bytes that are no text, reported line by line (its other lines read).
        b'\xff\xfe{"run_id": "x", "type": "y"}\n',
        b"\xff\xfe\x00garbage\n",
        b"\xfe\xff\x00",
        # No mark, two ASCII characters with their NULs, then what is no JSON text in
        # UTF-16: a control character before U+65E5, a lone low surrogate.
        b'{\x00"\x00\x01\x00\xe5\x65',
        b'{\x00"\x00\x00\xdca\x00',
    ],
)
def test_only_text_that_is_utf16_or_utf32_counts(head: bytes) -> None:
    assert sources.whole_file_problem(head) is None


# --------------------------------------------------------------------------- CR line ends


def test_a_log_whose_lines_end_in_cr_only_is_named_and_the_rest_is_read(
    run_cli: Any, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    data = RUN.read_bytes()
    (logs / "old-mac.jsonl").write_bytes(data.replace(b"\n", b"\r"))
    # CRLF is read as LF, as it always was (a CR before the LF is no part of the line).
    (logs / "windows.jsonl").write_bytes(
        (SAMPLE / "run-2026-11-02.jsonl").read_bytes().replace(b"\n", b"\r\n")
    )
    # One object with a CR after it and no LF, or CRs between its tokens (JSON takes a CR
    # there): one line, read.
    (logs / "one.jsonl").write_bytes(b'{"run_id": "lone", "seq": 1, "type": "run.start"}\r')
    inside = b'{"run_id": "inside",\r"seq": 1,\r "type": "run.start"}'
    (logs / "cr-blank.jsonl").write_bytes(inside)
    res = run_cli("extract", "logs", "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == f"logs/old-mac.jsonl: {CR_ONLY}"
    out = _json(res)
    assert out["unreadable"] == [{"file": "logs/old-mac.jsonl", "line": 0, "reason": CR_ONLY}]
    assert (out["runs_scored"], out["incomplete"], out["skipped_lines"]) == (
        1,
        ["inside", "lone"],
        [],
    )
    res = run_cli("extract", "logs/cr-blank.jsonl", "--history", "h3.jsonl", "--format", "json")
    assert (res.exit_code, _json(res)["incomplete"]) == (0, ["inside"])
    # Alone; and with a last LF (the one LF ends the file): each is one file, not read.
    for name, body in (
        ("alone.jsonl", data.replace(b"\n", b"\r")),
        ("last-lf.jsonl", data.replace(b"\n", b"\r")[:-1] + b"\n"),
        ("last-crlf.jsonl", data.replace(b"\n", b"\r") + b"\n"),
    ):
        (tmp_path / name).write_bytes(body)
        res = run_cli("extract", name, "--history", "h2.jsonl", "--format", "json")
        assert (res.exit_code, res.stdout) == (3, ""), name
        assert res.stderr == f"error: nothing could be read:\n  {name}: {CR_ONLY}\n"
    assert not (tmp_path / "h2.jsonl").exists()


def test_cr_line_ends_past_the_first_chunk(tmp_path: Path) -> None:
    line = json.dumps({"run_id": "r", "type": "note", "data": {"x": "y" * 200}}).encode()
    n = sources.CHUNK // len(line) + 10
    p = tmp_path / "big.jsonl"
    p.write_bytes(b"\r".join([line] * n) + b"\r\n")
    f = sources.prescan(sources.SourceFile(str(p), "big.jsonl"))
    assert f.size > sources.CHUNK
    assert f.error == CR_ONLY
    # LF lines after the first chunk: not a file of CR line ends (its first line, with CRs
    # between objects, is reported as that line, as any line that is not JSON).
    p.write_bytes(b"\r".join([line] * n) + b"\n" + line + b"\n")
    f = sources.prescan(sources.SourceFile(str(p), "big.jsonl"))
    assert (f.error, f.lines) == (None, 2)


def test_the_other_readers_name_cr_line_ends_too(run_cli: Any, tmp_path: Path) -> None:
    tasks = (FIXTURES / "pipeline" / "tasks.jsonl").read_bytes()
    (tmp_path / "tasks.jsonl").write_bytes(tasks.replace(b"\n", b"\r"))
    res = run_cli("pipeline", "tasks.jsonl", "--no-history")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr == f"error: no task snapshot file could be read:\n  tasks.jsonl: {CR_ONLY}\n"
