"""How a runscore process ends: ``run`` (the script's and ``python -m runscore``'s entry
point) skips the interpreter's teardown, and nothing written is lost by it."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import runscore


def _run(
    *args: str, cwd: Path, stdout: int | None = subprocess.PIPE, **env: str
) -> tuple[int, bytes, str]:
    e = dict(os.environ, RUNSCORE_THREADS="1", **env)
    e.pop("PYTHONUNBUFFERED", None)  # buffered, as a user runs it
    p = subprocess.run(
        [sys.executable, "-m", "runscore", *args],
        cwd=cwd,
        env=e,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=300,
    )
    return p.returncode, p.stdout or b"", p.stderr.decode()


def test_the_script_and_python_m_enter_through_run() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "runscore"]
    assert script.value == "runscore.__main__:main"
    main_py = Path(runscore.__file__).with_name("__main__.py").read_text(encoding="utf-8")
    assert "from runscore.cli.main import run" in main_py and "run()" in main_py


_TEARDOWN_PROBE = """
import sys
class Probe:
    def __del__(self):
        sys.stdout.write("torn down\\n")
        sys.stdout.flush()
probe = Probe()
sys.argv = ["runscore", "--version"]
from runscore.cli import main as m
m.{entry}()
"""


@pytest.mark.parametrize(("entry", "torn_down"), [("run", False), ("main", True)])
def test_run_skips_the_teardown_main_keeps_it(entry: str, torn_down: bool, tmp_path: Path) -> None:
    # A module-level object is freed only by the interpreter's teardown.
    p = subprocess.run(
        [sys.executable, "-c", _TEARDOWN_PROBE.format(entry=entry)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    version = f"runscore, version {runscore.__version__}\n"
    assert (p.returncode, p.stdout) == (0, version + ("torn down\n" if torn_down else ""))


@pytest.mark.parametrize("rows", [1, 30_000])  # within one write buffer, and many
@pytest.mark.parametrize("to_file", [False, True])
def test_every_byte_of_stdout_arrives(rows: int, to_file: bool, tmp_path: Path) -> None:
    args = ("sql", f"SELECT range AS i FROM range({rows})", "--format", "csv")
    expected = ("i\n" + "".join(f"{i}\n" for i in range(rows))).encode()
    if to_file:
        with open(tmp_path / "out.csv", "wb") as f:
            code, _, err = _run(*args, cwd=tmp_path, stdout=f.fileno())
        out = (tmp_path / "out.csv").read_bytes()
    else:
        code, out, err = _run(*args, cwd=tmp_path)
    assert (code, out) == (0, expected), err


def test_log_lines_are_flushed(tmp_path: Path) -> None:
    code, out, err = _run(
        "sql", "SELECT 7 AS x", "--format", "csv", cwd=tmp_path, RUNSCORE_LOG="debug"
    )
    assert (code, out) == (0, b"x\n7\n")
    assert any(line.startswith("runscore.") for line in err.splitlines()), err


def test_exit_codes_are_kept(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    code, out, err = _run("sql", "SELECT 1", "--format", "yaml", cwd=tmp_path)
    assert (code, out) == (2, b"")
    code, out, err = _run(
        "extract", str(tmp_path / "logs"), "--history", str(tmp_path / "h.jsonl"), cwd=tmp_path
    )
    assert code == 3, err
    assert err.splitlines()[-1].startswith("error: "), err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("rows", [1, 30_000])
def test_stdout_on_a_full_disk_is_one_error_and_exit_2(rows: int, tmp_path: Path) -> None:
    # Python's own exit flushed stdout once more, printed "Exception ignored" with a
    # traceback, and exited 120, a code the README does not know.
    with open("/dev/full", "wb") as full:
        code, _, err = _run(
            "sql", f"SELECT range AS i FROM range({rows})", cwd=tmp_path, stdout=full.fileno()
        )
    assert code == 2, err
    assert err.splitlines()[-1] == "error: No space left on device", err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.count("No space left") == 1, err


_IN_PROCESS_ON_A_FULL_DISK = """
import gc, sys
sys.stdout = caller = open("/dev/full", "w")
sys.argv = ["runscore", "sql", "SELECT 1 AS x"]
from runscore.cli.main import main
try:
    main()
except SystemExit as e:
    code = e.code
same = sys.stdout is caller
sys.stdout = sys.__stdout__
caller.close()
gc.collect()  # runscore's own stdout is freed
print(code, same)
"""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_main_in_process_on_a_full_disk_gives_stdout_back_and_says_it_once(
    tmp_path: Path,
) -> None:
    # What the failed write left in runscore's own stdout was tried again when it was
    # freed: in Python's dev mode, "Exception ignored" and a traceback on stderr.
    p = subprocess.run(
        [sys.executable, "-X", "dev", "-c", _IN_PROCESS_ON_A_FULL_DISK],
        cwd=tmp_path,
        env=dict(os.environ, RUNSCORE_THREADS="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (p.returncode, p.stdout) == (0, "2 True\n"), p.stderr
    assert p.stderr == "error: No space left on device\n"
