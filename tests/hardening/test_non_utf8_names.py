"""A file whose name is not UTF-8 is said and skipped; the others are read.

DuckDB takes file names as UTF-8 text. A name whose bytes are not UTF-8 (Latin-1
``café.jsonl``, written by an old tool) reaches Python with surrogate escapes, and the
statement that met it failed whole: ``extract``, ``sql --events`` and ``export --events``
exited 2 with "Python Conversion Failure", nothing scored, no file named. A history with
such a name was written by ``extract`` and then could not be read by anything. Now the
file is listed as not read (exit 1, README "Exit codes": the rest was processed), and a
history with such a name is refused before anything is written (exit 2).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import sources

LATIN1 = os.fsdecode(b"caf\xe9.jsonl")  # the str Python makes of those bytes
SHOWN = "caf\\xe9.jsonl"  # how every output names it


def _events(run_id: str) -> str:
    rows = [
        {"ts": "2026-04-01T00:00:00Z", "run_id": run_id, "seq": 1, "type": "run.start",
         "data": {}},
        {"ts": "2026-04-01T00:01:00Z", "run_id": run_id, "seq": 2, "type": "review.verdict",
         "agent": "guardian", "data": {"archetype": "guardian", "verdict": "changes_requested",
                                        "findings": [{"severity": "bug", "fix_required": True,
                                                      "description": "x"}]}},
        {"ts": "2026-04-01T00:02:00Z", "run_id": run_id, "seq": 3, "type": "run.complete",
         "data": {}},
    ]  # fmt: skip
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    d = tmp_path / "ev"
    d.mkdir()
    (d / "good.jsonl").write_text(_events("good-run"), encoding="utf-8")
    with open(os.fsencode(d) + b"/caf\xe9.jsonl", "wb") as f:
        f.write(_events("latin1-run").encode())
    return d


def test_discovery_says_the_name_and_reads_the_others(logs: Path) -> None:
    files, issues = sources.discover([str(logs)])
    assert [f.display for f in files] == [str(logs / "good.jsonl")]
    assert [(i.file, i.line, i.reason) for i in issues] == [
        (f"{logs}/{SHOWN}", 0, sources.NOT_UTF8_NAME)
    ]
    # named alone, it is said the same way
    _, issues = sources.discover([str(logs / LATIN1)])
    assert [(i.file, i.reason) for i in issues] == [(f"{logs}/{SHOWN}", sources.NOT_UTF8_NAME)]


def test_extract_scores_the_others_and_lists_it(logs: Path, run_cli: Callable[..., Any]) -> None:
    r = run_cli("extract", str(logs), "--history", "h.jsonl", "--format", "json")
    assert r.exit_code == 1, r.stderr  # some input rejected, the rest processed
    out = json.loads(r.stdout)
    assert out["runs_scored"] == 1
    assert out["unreadable"] == [
        {"file": f"{logs}/{SHOWN}", "line": 0, "reason": sources.NOT_UTF8_NAME}
    ]
    assert f"{logs}/{SHOWN}: {sources.NOT_UTF8_NAME}" in r.stderr
    runs = {json.loads(line)["run_id"] for line in Path("h.jsonl").read_text().splitlines()}
    assert runs == {"good-run"}


@pytest.mark.parametrize("command", ["sql", "export"])
def test_sql_and_export_read_the_others(
    logs: Path, run_cli: Callable[..., Any], command: str
) -> None:
    if command == "sql":
        r = run_cli("sql", "SELECT count(*) AS n FROM events", "--events", str(logs),
                    "--format", "json")  # fmt: skip
        assert json.loads(r.stdout) == [{"n": 3}]
    else:
        r = run_cli("export", "--to", "x.parquet", "--events", str(logs))
        assert Path("x.events.parquet").is_file()
    assert r.exit_code == 1, r.stderr
    assert f"{logs}/{SHOWN}: {sources.NOT_UTF8_NAME}" in r.stderr


@pytest.mark.parametrize("args", [["extract", "LOGS"], ["extract", "LOGS", "--dry-run"],
                                  ["report"], ["sql", "SELECT 1"]])  # fmt: skip
def test_a_history_so_named_is_refused_before_anything_is_written(
    logs: Path, run_cli: Callable[..., Any], args: list[str]
) -> None:
    hist = os.fsdecode(b"h\xe9.jsonl")
    if args != ["extract", "LOGS"]:  # a history there already (another tool wrote it)
        assert run_cli("extract", str(logs / "good.jsonl"), "--history", "ok.jsonl").exit_code == 0
        shutil.copyfile("ok.jsonl", os.fsencode(hist))
    r = run_cli(*[str(logs) if a == "LOGS" else a for a in args], "--history", hist)
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: h\\xe9.jsonl: the history's file name is not valid UTF-8")
    if args == ["extract", "LOGS"]:
        assert not os.path.exists(os.fsencode(hist))  # nothing written
    else:
        with open(os.fsencode(hist), "rb") as f, open("ok.jsonl", "rb") as g:
            assert f.read() == g.read()  # nothing appended
