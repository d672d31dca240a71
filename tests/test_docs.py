"""Every CLI command has help text and is covered by the README."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner
from runscore.cli.main import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, cmd in sorted(group.commands.items()):
        full = f"{prefix}{name}"
        out.append((full, cmd))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, full + " "))
    return out


def test_every_command_has_help_and_readme_coverage() -> None:
    problems = []
    for name, cmd in _commands(cli):
        if not (cmd.help or "").strip():
            problems.append(f"{name}: no help text")
        for p in cmd.params:
            if isinstance(p, click.Option) and not (p.help or "").strip():
                problems.append(f"{name} {p.opts[0]}: option without help")
        if f"runscore {name}" not in README:
            problems.append(f"{name}: not in README")
        res = CliRunner().invoke(cli, [*name.split(), "--help"])
        if res.exit_code != 0:
            problems.append(f"{name} --help exited {res.exit_code}")
    assert problems == []


def test_readme_first_screen_has_the_two_commands() -> None:
    first_screen = "\n".join(README.splitlines()[:25])
    assert "runscore extract examples/project/.archeflow/events" in first_screen
    assert "bash scripts/test.sh" in first_screen


def test_exit_codes_documented() -> None:
    from runscore.cli.exitcodes import ExitCode

    for code in ExitCode:
        assert f"| {int(code)} |" in README


def test_readme_main_job_runs_on_the_bundled_sample(run_cli: Any) -> None:
    """The README's first command works from a clone: the sample run logs are shipped."""
    repo = Path(__file__).resolve().parents[1]
    events = repo / "examples" / "project" / ".archeflow" / "events"
    res = run_cli("extract", str(events), "--history", "h.jsonl", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["runs_scored"] == 14
    rep = run_cli("report", "--history", "h.jsonl")
    assert rep.exit_code == 0, rep.stderr
    assert rep.stdout.startswith("# Archetype Effectiveness Report")
    assert "| guardian | 14 |" in rep.stdout
