"""Settings from the environment: a value runscore cannot take is a usage error (exit 2)
that names the variable, before any work; DuckDB running out of memory is exit 5 with
one line that says which limit, never a traceback (``nightly``: that project's step
fails, the job goes on)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from runscore.cli.main import main
from runscore.engine import db
from runscore.engine.errors import UsageError

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"


@pytest.mark.parametrize(
    ("var", "value", "message"),
    [
        ("RUNSCORE_THREADS", "0", "RUNSCORE_THREADS must be a whole number of threads (1 or more), not \"0\""),
        ("RUNSCORE_THREADS", "two", "RUNSCORE_THREADS must be a whole number of threads (1 or more), not \"two\""),
        ("RUNSCORE_MEMORY_LIMIT", "lots", "RUNSCORE_MEMORY_LIMIT=\"lots\" is not a memory limit DuckDB takes: Parser Error: Memory must have a number (e.g. 1GB)"),
        ("RUNSCORE_MAX_LINE_BYTES", "64MB", "RUNSCORE_MAX_LINE_BYTES must be a whole number of bytes (1 or more), not \"64MB\""),
        ("RUNSCORE_MAX_LINE_BYTES", "-1", "RUNSCORE_MAX_LINE_BYTES must be a whole number of bytes (1 or more), not \"-1\""),
        ("RUNSCORE_LOG", "verbose", "RUNSCORE_LOG must be a logging level (debug, info, warning, error, critical), not \"verbose\""),
    ],
)  # fmt: skip
def test_a_setting_runscore_cannot_take_is_a_usage_error(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, var: str, value: str, message: str
) -> None:
    monkeypatch.setenv(var, value)
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    hint = " (see 'cli extract --help')"
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"error: {message}{hint}\n")
    assert not Path("h.jsonl").exists()


def test_a_temp_dir_that_is_a_file_is_refused_up_front(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # DuckDB would only find out when it first spills, hours into a big extract.
    blocker = tmp_path / "spill"
    blocker.write_text("")
    monkeypatch.setenv("RUNSCORE_TEMP_DIR", str(blocker))
    res = run_cli("report", "--history", "h.jsonl")
    assert res.exit_code == 2
    assert (
        res.stderr == f"error: RUNSCORE_TEMP_DIR: {blocker} is not a folder (DuckDB spills there) "
        "(see 'cli report --help')\n"
    )
    with pytest.raises(UsageError):
        db.connect()


@pytest.mark.parametrize("value", ["1.5GB", " 2 gb ", "80%"])
def test_what_duckdb_takes_as_a_memory_limit_is_taken(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", value)
    assert db.env_memory_limit() == value.strip()
    db.connect().close()


def test_empty_settings_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("RUNSCORE_THREADS", "RUNSCORE_MEMORY_LIMIT", "RUNSCORE_TEMP_DIR"):
        monkeypatch.setenv(var, " ")
    assert db.env_threads() is None
    assert db.env_memory_limit() == db.DEFAULT_MEMORY_LIMIT
    assert db.env_temp_dir() == db.default_temp_dir()
    assert db.default_temp_dir().endswith(f"runscore-duckdb-{os.getuid()}")


def test_a_temp_dir_this_user_cannot_write_is_refused_up_front(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Another user's folder in a shared /tmp, say: DuckDB would fail at its first spill.
    locked = tmp_path / "theirs"
    locked.mkdir()
    monkeypatch.setenv("RUNSCORE_TEMP_DIR", str(locked))
    monkeypatch.setattr(db.os, "access", lambda path, mode: str(path) != str(locked))
    with pytest.raises(UsageError, match=r"theirs cannot be written to \(DuckDB spills there\)"):
        db.connect()


def test_an_unknown_log_level_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUNSCORE_LOG", "verbose")
    monkeypatch.setattr(sys, "argv", ["runscore", "extract", str(SAMPLE), "--history", "h.jsonl"])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    # With where the help is, as every other setting's error: said before any command was
    # known, it had none.
    assert (out, err) == (
        "",
        "error: RUNSCORE_LOG must be a logging level (debug, info, warning, error, "
        "critical), not \"verbose\" (see 'runscore extract --help')\n",
    )
    assert not (tmp_path / "h.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "code", "out", "said"),
    [
        (["--version"], 0, "runscore, version", ""),
        (["report", "--help"], 0, "Usage: runscore report [OPTIONS]", ""),
        (["report", "--bogus"], 2, "", "error: No such option '--bogus'. (see 'runscore report --help')\n"),
    ],
)  # fmt: skip
def test_a_bad_log_level_is_said_as_the_commands_other_settings_are(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    code: int,
    out: str,
    said: str,
) -> None:
    # As RUNSCORE_THREADS=0: the arguments are read first (--help and --version, which do
    # no work, failed on it; an unknown option was said after it), then the setting.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUNSCORE_LOG", "verbose")
    monkeypatch.setattr(sys, "argv", ["runscore", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    stdout, stderr = capsys.readouterr()
    assert (exc.value.code or 0, stdout[: len(out)], stderr) == (code, out, said)


@pytest.mark.parametrize("command", ["extract", "report"])
def test_out_of_memory_is_exit_5_with_one_line(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    if command == "report":
        assert run_cli("extract", str(SAMPLE), "--history", "h.jsonl").exit_code == 0
    before = Path("h.jsonl").read_bytes() if command == "report" else None
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "1MB")
    args = [str(SAMPLE)] if command == "extract" else []
    res = run_cli(command, *args, "--history", "h.jsonl")
    assert res.exit_code == 5
    assert res.stdout == ""
    [line] = res.stderr.splitlines()
    assert line.startswith("error: DuckDB ran out of memory: Out of Memory Error: ")
    assert line.endswith(
        f"(memory limit 1MB, spilling to {db.env_temp_dir()}; raise RUNSCORE_MEMORY_LIMIT, "
        "or make room where it spills)"
    )
    if command == "extract":
        assert not Path("h.jsonl").exists()
    else:
        assert Path("h.jsonl").read_bytes() == before


def test_nightly_checks_the_settings_once_before_any_project(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RUNSCORE_THREADS", "none")
    res = run_cli("nightly", "--root", str(SAMPLE.parents[1]), "--out", "out")
    assert res.exit_code == 2
    assert res.stderr == (
        'error: RUNSCORE_THREADS must be a whole number of threads (1 or more), not "none" '
        "(see 'cli nightly --help')\n"
    )
    assert not (tmp_path / "out").exists()


def test_nightly_confines_out_of_memory_to_the_project(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The project's extract fails with DuckDB's reason and the job goes on; here it is the
    # only project, so nothing was read and the job says so (exit 3, no day folder).
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "1MB")
    res = run_cli(
        "nightly", "--root", str(SAMPLE.parents[1]), "--out", "out", "--history", "h.jsonl",
        "--date", "2026-12-04",
    )  # fmt: skip
    assert res.exit_code == 3, res.stderr
    assert res.stderr.startswith(
        "error: nothing readable: no root's run logs, pack inputs or history could be read\n"
    )
    # (where DuckDB runs out decides whether the SQL runner's "<file>: " comes first)
    assert re.search(r"\n  h\.jsonl: not extracted: (\S+: )?Out of Memory Error: ", res.stderr)
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "out" / "2026-12-04").exists()
    assert not (tmp_path / "h.jsonl").exists()


def test_ctrl_c_is_exit_130_and_leaves_no_history(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from runscore.engine import sources

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    # as if Ctrl-C came while the files were read
    monkeypatch.setattr(sources, "read_jsonl", interrupted)
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert (res.exit_code, res.stdout, res.stderr) == (130, "", "error: interrupted\n")
    assert not (tmp_path / "h.jsonl").exists()


def test_a_small_memory_limit_is_enough_for_small_inputs(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB's JSON reader takes a buffer of at least 32 MiB; reads sized for the line
    # limit (2 x 64 MiB) or for long lines (2 x 32 MiB) made `report` over the sample's
    # 56-line history, and `sql` with no history, run out of memory under 64MB or 100MB.
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "48MB")
    res = run_cli("extract", str(SAMPLE), "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    res = run_cli("report", "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("[")
    sql = ["sql", "SELECT count(*) AS n FROM history", "--format", "csv"]
    res = run_cli(*sql, "--history", "none.jsonl")  # no history: empty views
    assert (res.exit_code, res.stdout) == (0, "n\n0\n"), res.stderr
    with open("h.jsonl", "a") as f:
        f.write('{"run_id": "torn')  # a dirty history: the careful read
    res = run_cli(*sql, "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (1, "n\n56\n"), res.stderr
    assert "h.jsonl:57: torn last line" in res.stderr
