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


def _python_api_blocks() -> list[str]:
    section = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
    return [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]


def test_readme_python_api_runs(tmp_path: Path, monkeypatch: Any, fixtures: Path) -> None:
    """The README's Python examples run as written (from a clone), so they cannot drift
    from the API: the first on the bundled sample, the second on the test fixtures."""
    repo = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(repo)
    first, second = _python_api_blocks()
    hist = str(tmp_path / "api.jsonl")
    assert first.count("/tmp/runscore-api.jsonl") == 4
    ns: dict[str, Any] = {}
    exec(first.replace("/tmp/runscore-api.jsonl", hist), ns)  # noqa: S102 - our own README
    assert ns["scores"].num_rows == 56
    assert (ns["done"].runs_scored, ns["done"].records_written) == (14, 56)
    assert ns["report"].table.column("archetype").to_pylist() == [
        "guardian",
        "sage",
        "skeptic",
        "trickster",
    ]
    assert ns["team"].table.num_rows > 0
    assert ns["top"].column("archetype").to_pylist()[0] == "guardian"

    episodes = tmp_path / "episodes.jsonl"
    episodes.write_text('{"not": "an episode"}\n')
    block = (
        second.replace('"tasks.jsonl"', repr(str(fixtures / "pipeline" / "tasks.jsonl")))
        .replace('"plans.jsonl"', repr(str(fixtures / "pipeline" / "plans.jsonl")))
        .replace('"skills/"', repr(str(fixtures / "plugin")))
        .replace('"episodes.jsonl"', repr(str(episodes)))
    )
    ns = {}
    exec(block, ns)  # noqa: S102
    assert ns["pipelines"].pipelines.num_rows > 0
    assert ns["pipelines"].dimensions.num_rows > 0
    assert ns["skills"].ranking.num_rows == 3
    assert ns["found"].episodes == 0
    assert [i.line for i in ns["found"].rejected] == [1]


def test_format_help_names_only_formats_the_command_has() -> None:
    """`summary --help` said "json/csv: raw, unrounded numbers" of a command without csv."""
    import re

    problems = []
    for name, cmd in _commands(cli):
        for p in cmd.params:
            if isinstance(p, click.Option) and "--format" in p.opts:
                assert isinstance(p.type, click.Choice)
                text = (p.help or "").replace("--report table", "")  # pipeline's other table
                said = set(re.findall(r"\b(jsonl|json|csv|markdown|table|text|parquet)\b", text))
                if said - set(p.type.choices):
                    problems.append(f"{name} --format: {sorted(said - set(p.type.choices))}")
    assert problems == []
