"""The ``runscore`` command line: a thin click layer over ``runscore.engine``.

Each command module registers its commands on the group; the engine does the
work and returns Arrow tables, this layer only parses options, writes results
to stdout (data) and messages to stderr, and maps errors to exit codes.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import Any

import click
from runscore import __version__
from runscore.cli.exitcodes import ExitCode
from runscore.engine.errors import (
    HistoryError,
    LockTimeout,
    NothingReadable,
    RunscoreError,
    UsageError,
)

#: Command modules, each with ``register(group)``.
COMMAND_MODULES = (
    "effectiveness",
    "analytics",
    "sqlcmd",
    "pipeline",
    "plugin",
    "routes",
    "nightly",
)


class Group(click.Group):
    """Maps engine errors to exit codes and one-line stderr messages."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(ExitCode.USAGE)
        except LockTimeout as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(ExitCode.LOCKED)
        except NothingReadable as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(ExitCode.NOTHING_READABLE)
        except (HistoryError, RunscoreError) as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(ExitCode.USAGE)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="runscore")
def cli() -> None:
    """Score the logs multi-agent coding workflows leave behind.

    stdout is data; messages go to stderr. Exit codes: 0 ok, 1 some input
    rejected, 2 usage error, 3 nothing readable, 4 lock held elsewhere.
    """


for _name in COMMAND_MODULES:
    importlib.import_module(f"runscore.cli.{_name}").register(cli)


def main() -> None:
    level = os.environ.get("RUNSCORE_LOG", "").upper()
    if level:
        logging.basicConfig(level=level, stream=sys.stderr, format="%(name)s: %(message)s")
    cli(prog_name="runscore")


if __name__ == "__main__":
    sys.exit(main())
