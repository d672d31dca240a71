"""The check in ``tests/conftest.py`` that fails a test which leaves process-wide state
changed (signal dispositions, working folder, umask, ``RUNSCORE_*`` variables,
``sys.stdout``/``sys.stderr``, the engine's ``notes.say``, the root logger's handlers and
level) and puts it back, so the next test starts as the first did."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

_TESTS = """
import os, signal, sys

def test_leaves_sigint_ignored():
    signal.signal(signal.SIGINT, signal.SIG_IGN)

def test_after_it_sigint_is_python_s_again():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

def test_leaves_sigterm_handled():
    signal.signal(signal.SIGTERM, lambda *a: None)

def test_leaves_sigusr1_blocked():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})

def test_leaves_sigusr2_ignored_behind_pythons_back():
    import ctypes
    libc = ctypes.CDLL(None)
    libc.signal.restype = ctypes.c_void_p
    libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.signal(signal.SIGUSR2, 1)  # SIG_IGN, as C code would: Python's record is unchanged

def test_after_them_no_signal_is_blocked_or_ignored_anew():
    assert signal.SIGUSR1 not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    status = open("/proc/self/status").read()
    ignored = int(status.split("SigIgn:\t")[1].split()[0], 16)
    assert not ignored >> (signal.SIGUSR2 - 1) & 1

def test_leaves_a_wakeup_fd():
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end)

def test_leaves_a_variable_set():
    os.environ["RUNSCORE_GUARD_PROBE"] = "1"

def test_leaves_the_working_folder(tmp_path):
    os.chdir(tmp_path)

def test_leaves_the_umask():
    os.umask(0o077)

def test_leaves_stdout_replaced():
    sys.stdout = open(os.devnull, "w")

def test_leaves_notes_say_replaced():
    from runscore.engine import notes
    notes.say = print

def test_leaves_a_root_log_handler():
    import logging
    # as logging.basicConfig would, were pytest's own capture handlers not there
    logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))
    logging.getLogger().setLevel(logging.DEBUG)

def test_after_them_all_is_as_before():
    import logging
    from runscore.engine import notes
    assert notes.say is notes._stderr
    assert logging.getLogger().level == logging.WARNING
    assert not [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert "RUNSCORE_GUARD_PROBE" not in os.environ
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert os.getcwd() == START
    assert signal.set_wakeup_fd(-1) == -1
    mask = os.umask(0o022)
    os.umask(mask)
    assert mask == 0o022

def test_monkeypatch_undone_in_time_is_no_leak(monkeypatch, tmp_path):
    monkeypatch.setenv("RUNSCORE_GUARD_PROBE", "2")
    monkeypatch.delenv("RUNSCORE_REPO", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stderr", open(os.devnull, "w"))
    from runscore.engine import notes
    monkeypatch.setattr(notes, "say", print)

def test_capsys_is_no_leak(capsys):
    print("captured")

START = os.getcwd()
"""


def test_a_test_that_leaves_process_state_changed_fails_and_the_next_starts_clean(
    tmp_path: Path,
) -> None:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_leaks.py").write_text(_TESTS, encoding="utf-8")
    # -s: pytest's capture puts back a replaced sys.stdout itself; without it, nothing does.
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            "-rE",
            "test_leaks.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = sorted(
        line.split("::")[1].split(" ")[0]
        for line in p.stdout.splitlines()
        if line.startswith("ERROR test_leaks.py::")
    )
    assert errors == [
        "test_leaves_a_root_log_handler",
        "test_leaves_a_variable_set",
        "test_leaves_a_wakeup_fd",
        "test_leaves_notes_say_replaced",
        "test_leaves_sigint_ignored",
        "test_leaves_sigterm_handled",
        "test_leaves_sigusr1_blocked",
        "test_leaves_sigusr2_ignored_behind_pythons_back",
        "test_leaves_stdout_replaced",
        "test_leaves_the_umask",
        "test_leaves_the_working_folder",
    ], p.stdout + p.stderr
    assert "11 errors" in p.stdout and "16 passed" in p.stdout, p.stdout + p.stderr
    assert "SIGINT: <built-in function default_int_handler> -> <Handlers.SIG_IGN: 1>" in p.stdout
    assert "the kernel's blocked signals: +SIGUSR1" in p.stdout
    assert "SIGUSR2: ignored by the kernel, <Handlers.SIG_DFL: 0> in Python's record" in p.stdout
    assert "runscore.engine.notes.say: <function _stderr at " in p.stdout
    assert "the root logger: [] WARNING -> [<StreamHandler <stderr> (NOTSET)>] DEBUG" in p.stdout


_IN_THE_BACKGROUND = """
import signal

def test_import_polars():
    import polars  # installs its SIGINT handler in the kernel: Python's record says ignored

def test_sets_sigint_and_puts_it_back():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGINT, previous)
"""


def test_a_pytest_started_with_sigint_ignored_reports_no_leak_and_says_so(tmp_path: Path) -> None:
    """Started as a background job of a script: ``import polars`` takes SIGINT over behind
    Python's record (harmless to children, which start at the default), and a test that
    puts Python's ignored SIGINT back ignores it in the kernel again: neither is a leak."""
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_bg.py").write_text(_IN_THE_BACKGROUND, encoding="utf-8")
    start_ignored = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "os.execv(sys.executable, [sys.executable, '-m', 'pytest', *sys.argv[1:]])\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", start_ignored, "-q", "-p", "no:cacheprovider", "test_bg.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 passed" in p.stdout and "error" not in p.stdout, p.stdout
    assert "note: this pytest started with SIGINT ignored" in p.stdout, p.stdout
