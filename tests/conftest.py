"""Shared fixtures. Tests import the *installed* runscore (see scripts/test.sh)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

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
