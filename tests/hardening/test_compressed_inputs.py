"""A compressed log or history is named as such (with what to do), not reported line by
line as "not valid UTF-8"; the other files are read as usual."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import sources

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
RUN = SAMPLE / "run-2026-11-01.jsonl"

COMPRESS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("fmt", sorted(COMPRESS))
def test_a_compressed_log_is_named_and_the_rest_is_read(
    run_cli: Any, tmp_path: Path, fmt: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLE / "run-2026-11-02.jsonl", logs / "plain.jsonl")
    packed = logs / "old.jsonl"  # named as JSONL: only its bytes tell
    packed.write_bytes(COMPRESS[fmt](RUN.read_bytes()))
    res = run_cli("extract", str(logs), "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == (
        f"{packed}: {fmt}-compressed: runscore reads plain JSONL (decompress it first)"
    )
    assert "not valid UTF-8" not in res.stderr
    assert '"runs_scored": 1' in res.stdout  # plain.jsonl's run
    alone = run_cli("extract", str(packed), "--history", "h2.jsonl")
    assert alone.exit_code == 3


def test_a_compressed_history_is_named(run_cli: Any, tmp_path: Path) -> None:
    hist = tmp_path / "h.jsonl"
    assert run_cli("extract", str(SAMPLE), "--history", str(hist)).exit_code == 0
    packed = tmp_path / "packed.jsonl"
    packed.write_bytes(gzip.compress(hist.read_bytes()))
    res = run_cli("report", "--history", str(packed))
    assert res.exit_code == 2
    assert res.stderr == (
        f"error: {packed}: gzip-compressed: runscore reads plain JSONL (decompress it first) "
        "(see 'cli report --help')\n"
    )


def test_only_a_real_magic_number_counts() -> None:
    assert sources.compressed_format(b"\x28\xb5\x2f\xfd\x00") == "zstd"
    assert sources.compressed_format(b"BZh91AY&SY\x00") == "bzip2"
    # text that happens to open like bzip2's magic is not bzip2
    assert sources.compressed_format(b"BZhello world") is None
    assert sources.compressed_format(b'{"run_id": "x"}') is None
    assert sources.compressed_format(b"") is None


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize("pack", ["extract", "plugin", "pipeline"])
def test_a_compressed_history_is_never_appended_to(run_cli: Any, tmp_path: Path, pack: str) -> None:
    # Plain lines appended after a gzip stream made the whole file unreadable (to gzip, and
    # to runscore, which skips a compressed file whole): extract did so with exit 0. Every
    # pack that appends now refuses, before scoring, and leaves the file as it was.
    hist = tmp_path / "h.jsonl"
    packed = gzip.compress(b'{"run_id": "old"}\n')
    hist.write_bytes(packed)
    args = {
        "extract": ["extract", str(SAMPLE), "--history", str(hist)],
        "plugin": ["plugin", "score", str(FIXTURES / "plugin"), "--history", str(hist)],
        "pipeline": [
            "pipeline",
            str(FIXTURES / "pipeline" / "tasks.jsonl"),
            "--out",
            str(tmp_path / "out"),
            "--history",
            str(hist),
        ],
    }[pack]
    res = run_cli(*args)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"error: {hist}: gzip-compressed: runscore appends only to a plain JSONL history "
        f"(decompress it first) (see 'cli {' '.join(args[:2] if pack == 'plugin' else args[:1])} "
        "--help')\n"
    )
    assert hist.read_bytes() == packed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]  # no lock, no reports


def test_the_append_itself_refuses_a_compressed_history(tmp_path: Path) -> None:
    # The check under the lock, for a history compressed after the early check.
    from runscore.engine import history
    from runscore.engine.errors import UsageError

    hist = tmp_path / "h.jsonl"
    packed = lzma.compress(b'{"run_id": "old"}\n')
    hist.write_bytes(packed)
    with pytest.raises(UsageError, match="xz-compressed: runscore appends only"):
        history.append_groups(str(hist), [['{"run_id": "new"}']])
    assert hist.read_bytes() == packed
