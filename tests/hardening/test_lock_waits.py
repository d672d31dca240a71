"""How long a command waits for a lock (README "Commands": `--lock-timeout SECONDS`,
`nightly --wait SECONDS`): one option type, one rule, said when the arguments are read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from runscore.cli import options
from runscore.cli.main import cli

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TASKS = FIXTURES / "pipeline" / "tasks.jsonl"
SKILLS = FIXTURES / "plugin"

#: Every option that says how long to wait for a lock, by command.
LOCK_WAITS = {
    ("extract", "--lock-timeout"),
    ("history repair", "--lock-timeout"),
    ("nightly", "--wait"),
    ("pipeline", "--lock-timeout"),
    ("plugin score", "--lock-timeout"),
}

#: A run of each command that takes no lock (nothing to append, no history, no
#: --in-place), where a wait was not looked at before: `nan` went through unsaid.
NO_LOCK_TAKEN = {
    "extract": ["extract", str(SAMPLE), "--history", "h.jsonl"],
    "history repair": ["history", "repair", "h.jsonl"],
    "nightly": ["nightly", "--root", "proj", "--out", "out"],
    "pipeline": ["pipeline", str(TASKS), "--no-history", "--out", "out"],
    "plugin score": ["plugin", "score", str(SKILLS), "--no-history"],
}


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, cmd in sorted(group.commands.items()):
        out.append((prefix + name, cmd))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, f"{prefix}{name} "))
    return out


def test_every_lock_wait_is_one_option_type() -> None:
    # extract and pipeline took any float (a negative one tried once), history repair and
    # nightly --wait click's FloatRange(min=0): -1 was refused by two and taken by two.
    # plugin score, which appends to its history, took none (it waited 300 s).
    found = {
        (name, p.opts[0]): p
        for name, cmd in _commands(cli)
        for p in cmd.params
        if isinstance(p, click.Option) and p.opts[0] in ("--lock-timeout", "--wait")
    }
    assert set(found) == LOCK_WAITS
    for p in found.values():
        assert p.type is options.SECONDS
        assert p.make_metavar(click.Context(cli)) == "SECONDS"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "-0.5", "1e400", "soon", ""])
@pytest.mark.parametrize("command", sorted(NO_LOCK_TAKEN))
def test_a_wait_that_is_no_finite_number_of_seconds_is_a_usage_error(
    run_cli: Any, tmp_path: Path, command: str, value: str
) -> None:
    # Refused when the arguments are read, whether or not a lock is then taken: nan was
    # refused only by the lock itself (a rerun with nothing to append took it unsaid),
    # and inf (a deadline never reached) waited for ever on a lock held elsewhere.
    if command == "extract":  # the rerun: nothing to append, no lock taken
        assert run_cli(*NO_LOCK_TAKEN[command]).exit_code == 0
    (tmp_path / "proj").mkdir(exist_ok=True)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    option = "--wait" if command == "nightly" else "--lock-timeout"
    res = run_cli(*NO_LOCK_TAKEN[command], option, value)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        f"error: Invalid value for '{option}': {json.dumps(value)} is not a finite number of "
        f"seconds, 0 or more (see 'cli {command} --help')\n"  # in process: cli
    )
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("value", ["0", "0.0", "-0", "2.5", "1e3", " 7 "])
def test_a_finite_number_of_seconds_from_0_is_taken_as_it_is(value: str) -> None:
    seconds = options.SECONDS.convert(value, None, None)
    assert seconds == float(value) and str(seconds) != "-0.0"
    assert options.SECONDS.convert(300.0, None, None) == 300.0  # the default
