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
from runscore.engine import history, history_tools, sources
from runscore.engine.errors import UsageError

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
    assert res.stderr == f"error: no episode file could be read:\n  episodes.jsonl: {reason}\n"
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


#: A history whose lines end in a CR alone: two records as an old Mac editor saves them.
CR_HISTORY = b'{"a": 1}\r{"b": 2}\r'


@pytest.mark.parametrize(
    "args",
    [
        ("extract", str(SAMPLE)),
        ("pipeline", str(FIXTURES / "pipeline" / "tasks.jsonl"), "--out", "out"),
        ("plugin", "score", str(FIXTURES / "plugin"), "--out", "out"),
    ],
    ids=["extract", "pipeline", "plugin score"],
)
def test_a_history_whose_lines_end_in_cr_only_is_refused_before_anything_is_written(
    run_cli: Any, tmp_path: Path, args: tuple[str, ...]
) -> None:
    # It was treated three ways: `pipeline` wrote its reports, then refused it (exit 2);
    # `plugin score` refused it under the lock (exit 3); `extract` appended to it, after
    # which every reader said its old records were "line 1, not JSON".
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(CR_HISTORY)
    res = run_cli(*args, "--history", "h.jsonl")
    command = " ".join(args[:2] if args[0] == "plugin" else args[:1])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == f"error: h.jsonl: {CR_ONLY} (see 'cli {command} --help')\n"
    assert hist.read_bytes() == CR_HISTORY
    # No report, no lock file, no manifest.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]


def test_the_nightly_job_appends_to_no_history_whose_lines_end_in_cr_only(
    run_cli: Any, tmp_path: Path
) -> None:
    memory = tmp_path / "proj" / ".archeflow" / "memory"
    memory.mkdir(parents=True)
    names = ("effectiveness.jsonl", "pipelines.jsonl", "plugins.jsonl")
    for name in names:
        (memory / name).write_bytes(CR_HISTORY)
    events = tmp_path / "proj" / ".archeflow" / "events"
    events.mkdir()
    shutil.copy(RUN, events / "r.jsonl")
    (tmp_path / "proj" / ".archeflow" / "tasks").mkdir()
    shutil.copy(FIXTURES / "pipeline" / "tasks.jsonl", tmp_path / "proj/.archeflow/tasks")
    skills = tmp_path / "proj" / ".archeflow" / "plugin-eval" / "skills"
    shutil.copytree(FIXTURES / "plugin" / "async-python-patterns", skills / "a")
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", "2026-04-05")
    m = "proj/.archeflow/memory"
    assert (res.exit_code, res.stderr.splitlines()[:-1]) == (
        1,
        [
            f"{m}/effectiveness.jsonl: not extracted: {CR_ONLY}",
            f"proj: pipeline: {m}/pipelines.jsonl: {CR_ONLY}",
            f"proj: plugin: {m}/plugins.jsonl: {CR_ONLY}",
        ],
    )
    assert [(memory / name).read_bytes() for name in names] == [CR_HISTORY] * 3
    assert not (memory / "effectiveness.jsonl.manifest.json").exists()
    # No pack report: the pipeline pack's were written before its history was refused.
    day = tmp_path / "out" / "2026-04-05"
    files = sorted(str(p.relative_to(day)) for p in day.rglob("*") if p.is_file())
    assert files == ["index.md", "runlog.json", "runlog.md"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (CR_HISTORY, CR_ONLY),
        (
            ENCODINGS["utf16-le-bom"][0]('{"a": 1}\n'),
            ENCODINGS["utf16-le-bom"][1],
        ),
        (
            b"\x1f\x8b\x08\x00" + bytes(12),
            "gzip-compressed: runscore reads plain JSONL (decompress it first)",
        ),
    ],
    ids=["cr", "utf16", "gzip"],
)
def test_a_repair_in_place_refuses_a_history_no_reader_reads_before_it_makes_its_lock(
    run_cli: Any, tmp_path: Path, body: bytes, reason: str
) -> None:
    # `history repair --in-place` took the history's lock (making `h.jsonl.lock`) and only
    # then read it, so a history its readers refuse whole left a lock file behind (exit 2).
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(body)
    res = run_cli("history", "repair", "--in-place", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == f"error: h.jsonl: {reason} (see 'cli history repair --help')\n"
    assert hist.read_bytes() == body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]


def test_a_repair_in_place_refuses_under_the_lock_a_history_changed_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Changed between the check before the lock and the lock (as if unchecked here): the
    # read under the lock refuses it in the same words, and leaves it as it is.
    monkeypatch.setattr(history, "check_readable", lambda path, about=None: None)
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(CR_HISTORY)
    with pytest.raises(UsageError) as e:
        history_tools.repair(hist, in_place=True)
    assert (type(e.value), str(e.value)) == (UsageError, f"{hist}: {CR_ONLY}")
    assert hist.read_bytes() == CR_HISTORY


#: A history runscore wrote: a line of the sample run's records.
_RECORD = json.dumps({"run_id": "r", "archetype": "guardian", "note": "x" * 200}).encode()
_BIG = sources.CHUNK // (len(_RECORD) + 1) + 10  # lines of a file past the first chunk


@pytest.mark.parametrize(
    ("body", "refused"),
    [
        (CR_HISTORY, True),
        (CR_HISTORY[:-1] + b"\n", True),  # its one LF ends the file
        (CR_HISTORY + b"\n", True),
        # LF lines after it: its first line is one line that is not JSON, as any.
        (CR_HISTORY + b"\n" + _RECORD + b"\n", False),
        (b'{"a": 1,\r"b": 2}\r', False),  # CRs inside one object, and after it: blanks
        (_RECORD + b"\n" + CR_HISTORY, False),
        (_RECORD + b"\n", False),
        (b"", False),
        (b"\r".join([_RECORD] * _BIG) + b"\r\n", True),
        (b"\r".join([_RECORD] * _BIG) + b"\n" + _RECORD + b"\n", False),
        (_RECORD + b"\n" + b"\r".join([_RECORD] * _BIG), False),
    ],
)
def test_a_history_is_refused_for_cr_line_ends_when_its_readers_name_them(
    tmp_path: Path, body: bytes, refused: bool
) -> None:
    """``check_appendable`` (before the work) and ``append_groups`` (under the lock, should
    the file change in between) refuse exactly the histories ``sources.prescan`` names as
    of CR line ends."""
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(body)
    f = sources.prescan(sources.SourceFile(str(hist), "h.jsonl"))
    assert (f.error == CR_ONLY) is refused
    if not refused:
        history.check_appendable(str(hist))
        return
    with pytest.raises(UsageError) as e:
        history.check_appendable(str(hist))
    assert str(e.value) == f"{hist}: {CR_ONLY}"
    with history.locked(str(hist)), pytest.raises(UsageError) as e:
        history.append_groups(str(hist), [['{"c": 3}']])
    assert str(e.value) == f"{hist}: {CR_ONLY}"
    assert hist.read_bytes() == body


class _CountedReads:
    """A file opened for reading whose reads add up the bytes they return."""

    def __init__(self, fh: Any, reads: list[int]) -> None:
        self._fh, self._reads = fh, reads

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._fh.read(n)
        self._reads.append(len(data))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)

    def __enter__(self) -> _CountedReads:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


def test_the_check_for_cr_line_ends_reads_a_history_s_start_not_all_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A history is appended to every night: the check reads its start up to its first LF
    # (one piece), not a history of a hundred megabytes whole.
    reads: list[int] = []
    monkeypatch.setattr(
        history, "open", lambda *a, **k: _CountedReads(open(*a, **k), reads), raising=False
    )
    hist = tmp_path / "h.jsonl"
    hist.write_bytes((_RECORD + b"\n") * _BIG)
    history.check_appendable(str(hist))
    with history.locked(str(hist)):
        history.append_groups(str(hist), [['{"c": 3}']])
    assert 0 < sum(reads) <= 2 * (history._HEAD_BYTES + history._PIECE + 1)
    # Lines of CR line ends past the first chunk: that chunk, and the file's last piece.
    reads.clear()
    hist.write_bytes(b"\r".join([_RECORD] * 2 * _BIG) + b"\r")
    with pytest.raises(UsageError):
        history.check_appendable(str(hist))
    assert sources.CHUNK < sum(reads) <= history._HEAD_BYTES + sources.CHUNK + history._PIECE


def test_a_history_that_takes_cr_line_ends_after_the_check_is_refused_under_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Changed between the check before the work and the lock (as if unchecked here): the
    # append refuses it as the check does, exit 2 alike (`plugin score` said exit 3; extract
    # appended to it).
    from runscore.engine.packs import effectiveness, plugin

    monkeypatch.setattr(history, "check_appendable", lambda path, about=None: None)
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(CR_HISTORY)
    for score in (
        lambda: plugin.score([str(FIXTURES / "plugin")], history_path=str(hist)),
        lambda: effectiveness.extract([str(SAMPLE)], str(hist)),
    ):
        with pytest.raises(UsageError) as e:
            score()
        assert (type(e.value), str(e.value)) == (UsageError, f"{hist}: {CR_ONLY}")
    assert hist.read_bytes() == CR_HISTORY


#: A history (or input) of 56 lines none of which is JSON: each command that reads none
#: of it lists the first 20, then how many more, as README says of ``extract``.
NOT_JSON = "not JSON: Expecting value: line 1 column 1 (char 0)"
FIRST_20 = [f"  bad.jsonl:{i}: {NOT_JSON}" for i in range(1, 21)] + ["  … and 36 more"]
NOTHING_READ: dict[str, tuple[tuple[str, ...], str]] = {
    "report": (("report", "--history", "bad.jsonl"), "no line of the history bad.jsonl"),
    "summary": (("summary", "--history", "bad.jsonl"), "no line of the history bad.jsonl"),
    "recommend": (
        ("recommend", "team.yaml", "--history", "bad.jsonl"),
        "no line of the history bad.jsonl",
    ),
    "sql": (
        ("sql", "SELECT * FROM history", "--history", "bad.jsonl"),
        "no line of the history bad.jsonl",
    ),
    "export": (
        ("export", "--to", "x.parquet", "--history", "bad.jsonl"),
        "no line of the history bad.jsonl",
    ),
    "history-repair": (
        ("history", "repair", "bad.jsonl", "--out", "r.jsonl"),
        "no line of the history bad.jsonl",
    ),
    "pipeline-report": (
        ("pipeline", "--report", "--history", "bad.jsonl"),
        "no line of the pipeline history bad.jsonl",
    ),
    "pipeline-sql": (
        ("sql", "SELECT * FROM pipeline_history", "--pipelines", "bad.jsonl"),
        "no line of the pipeline history bad.jsonl",
    ),
    "extract": (("extract", "bad.jsonl", "--history", "h.jsonl"), "nothing could be read"),
    "pipeline": (("pipeline", "bad.jsonl", "--no-history"), "no usable task snapshot"),
    "routes": (("routes", "bad.jsonl"), "no episode could be read"),
}


@pytest.mark.parametrize("name", sorted(NOTHING_READ))
def test_nothing_read_lists_the_first_20_problems_in_every_command(
    run_cli: Any, tmp_path: Path, name: str
) -> None:
    # report, summary, recommend, sql, export, history repair and pipeline --report
    # listed every one of the 56 lines; extract, pipeline and routes listed 20.
    (tmp_path / "bad.jsonl").write_text("".join(f"not json {i}\n" for i in range(1, 57)))
    (tmp_path / "team.yaml").write_text("check: [sage]\n")
    args, head = NOTHING_READ[name]
    r = run_cli(*args)
    assert (r.exit_code, r.stdout) == (3, "")
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"error: {head}") and lines[0].endswith(":"), lines[0]
    assert lines[1:] == FIRST_20


def test_plugin_rank_lists_the_first_20_skills_it_could_not_read(
    run_cli: Any, tmp_path: Path
) -> None:
    for i in range(1, 26):
        (tmp_path / "sk" / f"s{i:02d}").mkdir(parents=True)
        (tmp_path / "sk" / f"s{i:02d}" / "SKILL.md").write_bytes(b"\xff bad")
    r = run_cli("plugin", "rank", "sk")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr.splitlines() == [
        "error: no skill could be scored:",
        *(f"  sk/s{i:02d}/SKILL.md:1: not valid UTF-8 (byte 1)" for i in range(1, 21)),
        "  … and 5 more",
    ]


def test_the_api_lists_the_first_20_and_keeps_every_problem(tmp_path: Path) -> None:
    from runscore.engine.errors import NothingReadable
    from runscore.engine.packs import effectiveness_history as eh
    from runscore.engine.packs import pipeline

    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f"not json {i}\n" for i in range(1, 57)))
    for call in (
        lambda: pipeline.history_report(bad),
        lambda: eh.report(bad),
    ):
        with pytest.raises(NothingReadable) as e:
            call()
        listed = str(e.value).splitlines()[1:]
        assert listed == [x.replace("bad.jsonl", str(bad)) for x in FIRST_20]
        assert e.value.problems == [(str(bad), i, NOT_JSON) for i in range(1, 57)]
