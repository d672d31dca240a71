"""Differential: a corrupted corpus scores as its clean twin does, whichever path reads it.

Seeded corpora of generated runs (``benchmarks.generate``) are written twice: a clean
twin, and a copy in which some files hold what the spec (§1) says is skipped — lines
that are not JSON, not objects, NaN / Infinity / -inf, a trailing comma, bytes that are
not UTF-8, a NUL, a vertical tab, a line over ``RUNSCORE_MAX_LINE_BYTES``, a torn last
line, an event line cut in half — or read as if absent: a BOM, CRLF line ends, blank and
whitespace-only lines, an event written twice (in its file or in the next). The twin
holds exactly the lines of the copy that are good, in the same files and order, so every
run (those with a line cut in half too) must get exactly the twin's records, and the
same status and warnings; every bad line must be reported with its file, line and
reason, and nothing else. Beside them: files that cannot be read at all (gzip, a symlink
loop, a dangling link, a FIFO, a file without read permission unless root) are listed
with their reason, an empty file and a folder named ``*.jsonl`` are not.

The copy is read with the reader's size bounds as shipped and lowered, so that the same
files take each path: batches of small files from Python's bytes (a bound list, Arrow
strings), ``read_json`` streaming, several read chunks per file and several careful
groups, batches that keep nothing (every file dirty).
"""

from __future__ import annotations

import gzip
import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import sources
from runscore.engine.packs import effectiveness

REPO = Path(os.environ.get("RUNSCORE_REPO") or Path(__file__).resolve().parents[2])

pytestmark = pytest.mark.skipif(
    not (REPO / "benchmarks" / "generate.py").is_file(),
    reason="benchmarks/ is only in a source checkout (set RUNSCORE_REPO)",
)

LIMIT = 3000  # RUNSCORE_MAX_LINE_BYTES here: below every bound the reader has
SEEDS = (1, 2, 3)

#: The reader's bounds, as shipped and lowered (each lowered one changes the path some
#: files take; see ``sources``).
READERS: dict[str, dict[str, int]] = {
    "as-shipped": {},
    # Arrow strings instead of a bound list; batches of two files, the first all dirty
    "arrow-batches": {"LIST_BIND_BYTES": 0, "BATCH_FILES": 2},
    # every file streamed by read_json (no file counts as small)
    "read-json": {"SMALL_FILE_BYTES": 1},
    # several chunks a file, RE2's search, careful groups of a few lines
    "small-chunks": {"CHUNK": 4096, "_RE2_FILE_FROM": 0, "CAREFUL_GROUP_BYTES": 3000},
}

NOT_JSON = "not JSON"
TORN = sources.TORN_LAST_LINE


def _event(rid: str, seq: int, tail: bytes = b"") -> bytes:
    return b'{"run_id": "%s", "seq": %d, "type": "note"%s}' % (rid.encode(), seq, tail)


#: Lines inserted into a run's file: (what, bytes for a run id, the reason's start).
BAD_LINES: list[tuple[str, Callable[[str], bytes], str]] = [
    ("text", lambda rid: b"this is not json", NOT_JSON),
    ("array", lambda rid: b'[1, {"run_id": "%s"}]' % rid.encode(), "not a JSON object (an array)"),
    ("number", lambda rid: b"42", "not a JSON object (a number)"),
    ("string", lambda rid: b'"a string"', "not a JSON object (a string)"),
    ("nan", lambda rid: _event(rid, 901, b', "data": {"cost_usd": NaN}'), NOT_JSON),
    ("infinity", lambda rid: _event(rid, 902, b', "data": {"tokens": Infinity}'), NOT_JSON),
    ("minus-inf", lambda rid: _event(rid, 903, b', "parent": [-inf]'), NOT_JSON),
    ("trailing-comma", lambda rid: _event(rid, 904, b', "data": {"a": 1,}'), NOT_JSON),
    ("not-utf8", lambda rid: _event(rid, 905, b', "agent": "\xff\xfe"'), "not valid UTF-8"),
    ("nul", lambda rid: _event(rid, 906, b', "agent": "a\x00b"'), NOT_JSON),
    ("vertical-tab", lambda rid: b"\x0b" + _event(rid, 907), NOT_JSON),
    ("too-long", lambda rid: _event(rid, 908, b', "x": "%s"' % (b"y" * LIMIT)), "line longer"),
    ("no-run-id", lambda rid: b'{"seq": 909, "type": "note"}', "missing run_id"),
    ("cut", lambda rid: _event(rid, 910)[:20], NOT_JSON),
]
BLANKS = [b"", b"   ", b"\t", b" \r"]


@dataclass
class Corpus:
    dirty: Path
    clean: Path
    #: (file relative to its folder, line, the reason's start), in file and line order
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: runs of files with something to skip
    in_dirty_files: set[str] = field(default_factory=set)


def _runs(seed: int) -> Iterator[tuple[str, list[bytes]]]:
    from benchmarks.generate import gen_run

    rng = random.Random(seed)
    for i in range(rng.randrange(25, 40)):
        run = gen_run(seed, i, True, 0.1)  # the spec's parent encodings; a few incomplete
        lines = [ln.encode() for ln in run.text().splitlines()]
        if max(map(len, lines)) < LIMIT:
            yield run.run_id, lines


def _build(seed: int, root: Path) -> Corpus:
    rng = random.Random(seed)
    c = Corpus(root / "dirty", root / "clean")
    c.dirty.mkdir()
    c.clean.mkdir()
    runs = list(_runs(seed))
    groups: list[list[tuple[str, list[bytes]]]] = []
    while runs:
        k = rng.choice([1, 1, 1, 2, 3, 8])  # run files, and a few exports of several runs
        groups.append(runs[:k])
        runs = runs[k:]
    prev: list[bytes] = []
    for n, group in enumerate(groups):
        rel = f"f{n:03d}.jsonl"
        good = [ln for _, lines in group for ln in lines]
        out = [(ln, None) for ln in good]  # (line, reason if bad)
        bom = crlf = torn = no_newline = False
        if n < 2:  # the first batch of "arrow-batches" keeps nothing: read all careful
            _, make, reason = rng.choice(BAD_LINES)
            out.insert(rng.randrange(len(out) + 1), (make(group[0][0]), reason))
        if n < 2 or rng.random() < 0.6:
            for _ in range(rng.randrange(1, 4)):
                what = rng.random()
                at = rng.randrange(len(out) + 1)
                if what < 0.15:
                    out.insert(at, (rng.choice(BLANKS), None))
                elif what < 0.25:  # an event written twice: here, or in the next file
                    out.insert(at, (rng.choice(prev or good), None))
                elif what < 0.35:  # an event line cut in half: its run loses that event
                    j = rng.choice([i for i, (_, r) in enumerate(out) if r is None])
                    if out[j][0].strip():
                        out[j] = (out[j][0][: len(out[j][0]) // 2], NOT_JSON)
                else:
                    _, make, reason = rng.choice(BAD_LINES)
                    out.insert(at, (make(rng.choice(group)[0]), reason))
            bom, crlf = rng.random() < 0.2, rng.random() < 0.2
            torn = rng.random() < 0.15
            no_newline = not torn and rng.random() < 0.15  # a whole last line: read
        for i, (_, reason) in enumerate(out, start=1):
            if reason is not None:
                c.skipped.append((rel, i, reason))
        eol = b"\r\n" if crlf else b"\n"
        text = b"".join(ln + eol for ln, _ in out)
        if torn:
            text += _event(group[0][0], 911)[:30]
            c.skipped.append((rel, len(out) + 1, TORN))
        elif no_newline:
            text = text[: -len(eol)]
        (c.dirty / rel).write_bytes((b"\xef\xbb\xbf" if bom else b"") + text)
        kept = [ln for ln, reason in out if reason is None and ln.strip()]
        (c.clean / rel).write_bytes(b"".join(ln + b"\n" for ln in kept))
        if any(r is not None for _, r in out) or torn:
            c.in_dirty_files.update(rid for rid, _ in group)
        prev = good
    # A folder named like a log is searched, not read; the log inside it is read.
    for d in (c.dirty, c.clean):
        (d / "folder.jsonl").mkdir()
        (d / "folder.jsonl" / "inner.jsonl").write_bytes(b"".join(ln + b"\n" for ln in prev))
        (d / "empty.jsonl").write_bytes(b"")
    (c.dirty / "packed.jsonl").write_bytes(gzip.compress(prev[0] + b"\n"))
    os.symlink("loop-b.jsonl", c.dirty / "loop-a.jsonl")
    os.symlink("loop-a.jsonl", c.dirty / "loop-b.jsonl")
    os.symlink("missing", c.dirty / "dangling.jsonl")
    os.symlink("f000.jsonl", c.dirty / "same-as-f000.jsonl")  # one file, read once
    os.mkfifo(c.dirty / "pipe.jsonl")
    loop = "cannot read file: Too many levels of symbolic links"
    c.unreadable += [
        ("dangling.jsonl", "cannot read file: No such file or directory"),
        ("loop-a.jsonl", loop),
        ("loop-b.jsonl", loop),
        ("packed.jsonl", "gzip-compressed: runscore reads plain JSONL (decompress it first)"),
        ("pipe.jsonl", "not a regular file"),
    ]
    if os.geteuid() != 0:  # root reads it all the same
        locked = c.dirty / "locked.jsonl"
        locked.write_bytes(prev[0] + b"\n")
        locked.chmod(0)
        c.unreadable.insert(1, ("locked.jsonl", "cannot read file: Permission denied"))
    return c


def _rel(path: str, root: Path) -> str:
    return os.path.relpath(path, root)


def _outcome(res: effectiveness.ExtractResult, root: Path) -> dict[str, Any]:
    """What the twins must agree on: every record but its ``ts`` (``source`` relative
    to the folder read), each run's status, and the warnings without their lines."""
    records = sorted(
        (
            json.dumps({**r, "ts": None, "source": _rel(r["source"], root)}, sort_keys=True)
            for r in res.records.to_pylist()
        ),
    )
    return {
        "records": records,
        "runs_scored": res.runs_scored,
        "incomplete": res.incomplete,
        "invalid": res.invalid,
        "warnings": sorted((w.run_id, w.reason) for w in res.warnings),
    }


@pytest.fixture(autouse=True)
def _benchmarks_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO))
    monkeypatch.setenv(sources.MAX_LINE_ENV, str(LIMIT))


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_a_corrupted_corpus_scores_as_its_clean_twin_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    c = _build(seed, tmp_path)
    twin = effectiveness.extract([str(c.clean)], str(tmp_path / "clean.jsonl"), write=False)
    assert (twin.skipped_lines, twin.unreadable) == ([], [])
    expected = _outcome(twin, c.clean)
    assert expected["runs_scored"] > 10
    for name, bounds in READERS.items():
        with monkeypatch.context() as m:
            for bound, value in bounds.items():
                m.setattr(sources, bound, value)
            res = effectiveness.extract([str(c.dirty)], str(tmp_path / f"{name}.jsonl"))
        assert _outcome(res, c.dirty) == expected, name
        skipped = [(_rel(d.file, c.dirty), d.line, d.reason) for d in res.skipped_lines]
        assert [(f, n) for f, n, _ in skipped] == [(f, n) for f, n, _ in c.skipped], name
        for (f, n, reason), (_, _, start) in zip(skipped, c.skipped, strict=True):
            # a bad last line without its newline may be a write cut short: named so
            said = reason.startswith(start) or reason.removeprefix(f"{TORN}: ").startswith(start)
            assert said, (name, f, n, reason)
        assert [(_rel(d.file, c.dirty), d.reason) for d in res.unreadable] == c.unreadable
        assert res.rejected
    # Not vacuous: runs of files with lines skipped were scored from their good lines.
    scored = {json.loads(r)["run_id"] for r in expected["records"]}
    assert scored & c.in_dirty_files


def test_the_exit_codes_of_a_corrupted_corpus_and_of_its_clean_twin(
    tmp_path: Path, run_cli: Any
) -> None:
    c = _build(SEEDS[0], tmp_path)
    res = run_cli("extract", str(c.dirty), "--history", str(tmp_path / "d.jsonl"))
    assert res.exit_code == 1  # some input rejected, the rest scored
    for f, n, _ in c.skipped:
        assert f"{c.dirty / f}:{n}: " in res.stderr
    for f, reason in c.unreadable:
        assert f"{c.dirty / f}: {reason}" in res.stderr
    res = run_cli("extract", str(c.clean), "--history", str(tmp_path / "c.jsonl"))
    assert (res.exit_code, res.stderr.count(": not ")) == (0, 0)
    # Nothing but bad lines and unreadable files: nothing could be read, nothing written.
    only_bad = tmp_path / "only-bad"
    only_bad.mkdir()
    (only_bad / "a.jsonl").write_bytes(b"".join(m("r") + b"\n" for _, m, _ in BAD_LINES[:9]))
    (only_bad / "b.jsonl").write_bytes(gzip.compress(b"{}\n"))
    res = run_cli("extract", str(only_bad), "--history", str(tmp_path / "o.jsonl"))
    assert res.exit_code == 3
    assert not (tmp_path / "o.jsonl").exists()
