"""Shared fixtures. Tests import the *installed* runscore (see scripts/test.sh)."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("ci")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

# Process-wide state a test must leave as it found it: a test that changes one changes
# every test after it, and fails one of them far away (a child process inherits an
# ignored or blocked SIGINT; a later real-Ctrl-C test then waits on a query that runs on).
# Compared once a test's teardown is over, when ``monkeypatch`` and every other
# function-scoped fixture have undone what they did; what changed is put back and the
# test fails at teardown, so a leak shows where it happens and spreads no further. A
# module- or session-scoped fixture that changed one of these (none does) would be
# reported at the first test that uses it. ``signal.getsignal`` is Python's own record:
# C code (``import polars`` installs a SIGINT handler) changes the kernel's disposition
# behind it, and a child inherits the kernel's, so on Linux the kernel's ignored and
# blocked sets are compared too; so is what the CLI's ``main`` sets for its command (the
# engine's ``notes.say``, the root logger's handlers and level). Cheap: a few calls and
# one read of /proc per test.
_SIGNALS = sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP})
_before: dict[str, Any] | None = None
_STATUS = Path("/proc/self/status")


def _kernel_signal_sets() -> dict[str, int]:
    """The main thread's ignored and blocked signals as the kernel has them (Linux)."""
    try:
        lines = _STATUS.read_text(encoding="ascii").splitlines()
    except OSError:
        return {}
    return {
        k: int(v, 16)
        for k, _, v in (line.partition(":\t") for line in lines)
        if k in ("SigIgn", "SigBlk")
    }


def _signals_in(bits: int) -> set[int]:
    return {s for s in _SIGNALS if bits >> (s - 1) & 1}


def _name(s: int) -> str:
    try:
        return signal.Signals(s).name
    except ValueError:  # a real-time signal
        return f"signal {s}"


def _wakeup_fd() -> int:
    fd = signal.set_wakeup_fd(-1)
    if fd != -1:
        signal.set_wakeup_fd(fd)
    return fd


_ROOT = logging.getLogger()


def _own_handlers() -> list[logging.Handler]:
    """The root logger's handlers but pytest's own (its logging plugin's, per phase)."""
    return [h for h in _ROOT.handlers if not type(h).__module__.startswith("_pytest.")]


def _process_state() -> dict[str, Any]:
    mask = os.umask(0o022)
    os.umask(mask)
    return {
        "wakeup_fd": _wakeup_fd(),
        "signals": {s: signal.getsignal(s) for s in _SIGNALS},
        "kernel": _kernel_signal_sets(),
        "cwd": os.getcwd(),
        "umask": mask,
        "env": {k: v for k, v in os.environ.items() if k.startswith("RUNSCORE_")},
        "stdout": sys.stdout,
        "stderr": sys.stderr,
        # Looked up, not imported: a test of what the CLI imports sees this process's modules.
        "notes.say": getattr(sys.modules.get("runscore.engine.notes"), "say", None),
        "logging": (_own_handlers(), _ROOT.level),
    }


def _restore(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    changed = []
    for s, handler in was["signals"].items():
        if now["signals"][s] is not handler and handler is not None:
            changed.append(f"{_name(s)}: {handler!r} -> {now['signals'][s]!r}")
            signal.signal(s, handler)
    kernel = _kernel_signal_sets() if changed else now["kernel"]  # once those are put back
    if was["kernel"].get("SigBlk", 0) != kernel.get("SigBlk", 0):
        gone = _signals_in(was["kernel"]["SigBlk"] & ~kernel["SigBlk"])
        new = _signals_in(kernel["SigBlk"] & ~was["kernel"]["SigBlk"])
        names = sorted(f"{'-' if s in gone else '+'}{_name(s)}" for s in gone | new)
        changed.append(f"the kernel's blocked signals: {' '.join(names)}")
        signal.pthread_sigmask(signal.SIG_SETMASK, _signals_in(was["kernel"]["SigBlk"]))
    # Only a signal the kernel ignores while Python's record says it is handled: a child
    # inherits that. The other way round is harmless (a child starts at the default) and
    # is what ``import polars`` does to a pytest started with SIGINT ignored.
    hidden = _signals_in(kernel.get("SigIgn", 0) & ~was["kernel"].get("SigIgn", 0))
    for s in sorted(hidden):
        handler = signal.getsignal(s)
        if handler not in (signal.SIG_IGN, None):
            changed.append(f"{_name(s)}: ignored by the kernel, {handler!r} in Python's record")
            signal.signal(s, handler)  # the kernel's disposition made Python's again
    if now["wakeup_fd"] != was["wakeup_fd"]:
        changed.append(f"signal.set_wakeup_fd: {was['wakeup_fd']} -> {now['wakeup_fd']}")
        signal.set_wakeup_fd(was["wakeup_fd"])
    if now["cwd"] != was["cwd"]:
        changed.append(f"cwd: {was['cwd']} -> {now['cwd']}")
        os.chdir(was["cwd"])
    if now["umask"] != was["umask"]:
        changed.append(f"umask: {was['umask']:o} -> {now['umask']:o}")
        os.umask(was["umask"])
    if now["env"] != was["env"]:
        for k in now["env"].keys() - was["env"].keys():
            changed.append(f"environment: {k} set")
            del os.environ[k]
        for k, v in was["env"].items():
            if now["env"].get(k) != v:
                changed.append(f"environment: {k} {v!r} -> {now['env'].get(k)!r}")
                os.environ[k] = v
    for name in ("stdout", "stderr"):
        if now[name] is not was[name]:
            changed.append(f"sys.{name}: {was[name]!r} -> {now[name]!r}")
            setattr(sys, name, was[name])
    notes = sys.modules.get("runscore.engine.notes")
    if notes is not None:
        say = was["notes.say"] or notes._stderr  # as the module starts, when imported since
        if notes.say is not say:
            changed.append(f"runscore.engine.notes.say: {say!r} -> {notes.say!r}")
            notes.say = say
    if now["logging"] != was["logging"]:
        (handlers, level), (now_handlers, now_level) = was["logging"], now["logging"]
        changed.append(
            f"the root logger: {handlers!r} {logging.getLevelName(level)} -> "
            f"{now_handlers!r} {logging.getLevelName(now_level)}"
        )
        for h in now_handlers:
            if h not in handlers:
                _ROOT.removeHandler(h)
        for h in handlers:
            _ROOT.addHandler(h)  # does nothing where it is still there
        _ROOT.setLevel(level)
    return changed


#: As this process started: a shell without job control starts a background command
#: (``cmd &`` in a script, nohup) with SIGINT ignored, every child inherits that, and
#: runscore keeps an ignored SIGINT ignored (README). Said at the end, even with -q.
_SIGINT_IGNORED_AT_START = signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _SIGINT_IGNORED_AT_START:
        terminalreporter.write_line(
            "note: this pytest started with SIGINT ignored (a background job?), and so "
            "does every process it starts unless the test sets SIGINT itself"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    global _before
    _before = _process_state()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    global _before
    try:
        result = yield
    except BaseException:
        # Its own teardown failed, which is said already: only the state is put back.
        if _before is not None:
            _restore(_before, _process_state())
        _before = None
        raise
    was, _before = _before, None
    if was is not None:
        changed = _restore(was, _process_state())
        if changed:
            why = "; ".join(changed)
            pytest.fail(f"left process-wide state changed (put back): {why}", pytrace=False)
    return result


@pytest.fixture
def shared_dir() -> Path | None:
    """The workspace's ../shared (the contract), or $RUNSCORE_SHARED; None in a bare clone."""
    for cand in (REPO.parent / "shared", Path(os.environ.get("RUNSCORE_SHARED", "/nonexistent"))):
        if (cand / "spec").is_dir():
            return cand
    return None


@pytest.fixture
def fixtures() -> Path:
    """tests/fixtures (copies of ../shared/examples live here)."""
    return TESTS / "fixtures"


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Invoke the CLI in-process in a temp working dir; stderr kept separate."""
    from runscore.cli.main import cli

    monkeypatch.chdir(tmp_path)

    def run(*args: str, input: str | bytes | None = None) -> Result:
        runner = CliRunner()
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def copy_fixture(tmp_path: Path) -> Callable[[str], Path]:
    def copy(rel: str) -> Path:
        src = TESTS / "fixtures" / rel
        dst = tmp_path / "in" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            shutil.copy(src, dst)
        return dst

    return copy


def _drain(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return data
        if not chunk:
            return data
        data += chunk


@pytest.fixture
def drain() -> Callable[[int], bytes]:
    """What a non-blocking read end of a FIFO holds, once its writer has closed it (the
    tests of an output written into a FIFO: ``sql --output``, ``export --to``, ...)."""
    return _drain
