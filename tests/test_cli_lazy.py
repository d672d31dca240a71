"""Command modules are imported on first use, and ``runscore --help`` still lists them all."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest
from runscore.cli import main


def _fresh_modules(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_the_lazy_table_names_what_each_module_registers() -> None:
    for module in main.COMMAND_MODULES:
        scratch = click.Group()
        importlib.import_module(f"runscore.cli.{module}").register(scratch)
        listed = {n for n, (m, _) in main.LAZY_COMMANDS.items() if m == module}
        assert set(scratch.commands) == listed, module


@pytest.mark.parametrize("name", sorted(main.LAZY_COMMANDS))
def test_stored_help_lists_like_the_command(name: str) -> None:
    real = main.cli.commands[name]
    stand_in = click.Command(name, help=main.LAZY_COMMANDS[name][1])
    assert not real.hidden and not real.deprecated and real.short_help is None
    for limit in range(1, 130):
        assert stand_in.get_short_help_str(limit) == real.get_short_help_str(limit), limit


def test_help_lists_every_command_without_importing_them() -> None:
    code = (
        "import contextlib, io\n"
        "from runscore.cli.main import cli\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    cli.main(['--help'], prog_name='runscore', standalone_mode=False)\n"
        "assert all(f'  {n} ' in buf.getvalue() for n in cli.list_commands(None)), buf.getvalue()"
    )
    loaded = _fresh_modules(code)
    assert not {f"runscore.cli.{m}" for m in main.COMMAND_MODULES} & loaded


def test_extract_imports_only_what_it_needs() -> None:
    code = (
        "from runscore.cli.main import cli\n"
        "cli.main(['extract', '--help'], prog_name='runscore', standalone_mode=False)"
    )
    loaded = _fresh_modules(code)
    assert "runscore.cli.effectiveness" in loaded
    unwanted = {
        "jinja2",
        "yaml",
        "polars",
        "pyarrow.parquet",
        "runscore.cli.render",
        "runscore.engine.nightly",
        "runscore.engine.packs.effectiveness_history",
    } | {f"runscore.cli.{m}" for m in main.COMMAND_MODULES if m != "effectiveness"}
    assert not unwanted & loaded


def test_engine_never_imports_click_or_jinja() -> None:
    code = "\n".join(
        f"import runscore.engine.{m}"
        for m in (
            "packs.effectiveness",
            "packs.effectiveness_history",
            "packs.pipeline",
            "packs.plugin",
            "packs.routes",
            "nightly",
            "history_tools",
        )
    )
    loaded = _fresh_modules(code)
    assert not {"click", "jinja2"} & loaded


def test_unknown_command_still_suggests_the_lazy_ones() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "runscore", "extrct"], capture_output=True, text=True
    )
    assert res.returncode == 2
    assert "(Did you mean one of: 'export', 'extract'?)" in res.stderr
