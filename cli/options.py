"""Options several commands share, declared once so that they take the same values.

``--lock-timeout`` (every command that appends to or rewrites a history) and
``nightly --wait`` are lock waits: ``SECONDS`` is their one type.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, TypeVar

import click
from runscore.engine.errors import CannotAccess
from runscore.engine.quoting import path as quote_path
from runscore.engine.quoting import quote

F = TypeVar("F", bound=Callable[..., Any])


class Seconds(click.types.FloatParamType):
    """How long to wait for a lock: a finite number of seconds, 0 or more (0 tries once).

    Refused at parse time, whatever the command goes on to do: ``float`` took a negative
    wait (tried once) where ``FloatRange(min=0)`` refused it, and both took ``nan`` and
    ``inf``, whose deadline (now + nan, now + inf) is never reached, so a lock held
    elsewhere was waited for ever; ``nan`` was refused only once a lock was to be taken.
    """

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds >= 0):
            self.fail(f"{quote(value)} is not a finite number of seconds, 0 or more", param, ctx)
        return seconds + 0.0  # -0.0 is 0.0


SECONDS = Seconds()

#: The help of ``--lock-timeout`` where it is a history's writer lock.
LOCK_TIMEOUT_HELP = "Seconds to wait for another writer's history lock (exit 4 after)."


def lock_timeout_option(help: str = LOCK_TIMEOUT_HELP) -> Callable[[F], F]:
    """``--lock-timeout SECONDS`` (default 300), as every command that writes a history takes it."""
    return click.option(
        "--lock-timeout",
        type=SECONDS,
        default=300.0,
        show_default=True,
        help=help,
    )


def given(ctx: click.Context, name: str) -> bool:
    """Was the option whose parameter is ``name`` given (not left at its default)?"""
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (
        click.core.ParameterSource.DEFAULT,
        click.core.ParameterSource.DEFAULT_MAP,
    )


def _option(ctx: click.Context, name: str) -> str:
    return next(p.opts[0] for p in ctx.command.params if p.name == name)


def refuse_together(ctx: click.Context, a: str, b: str, why: str) -> None:
    """A usage error (exit 2) when the options of parameters ``a`` and ``b`` are both given,
    one of which the command would otherwise ignore without a word; ``why`` says which."""
    if given(ctx, a) and given(ctx, b):
        raise click.UsageError(
            f"{_option(ctx, a)} and {_option(ctx, b)} cannot be given together: {why}"
        )


def refuse_without(ctx: click.Context, a: str, b: str, why: str) -> None:
    """A usage error (exit 2) when the option of ``a`` is given without that of ``b``, the
    only case in which it does anything; ``why`` says what it does."""
    if given(ctx, a) and not given(ctx, b):
        raise click.UsageError(f"{_option(ctx, a)} needs {_option(ctx, b)}: {why}")


def refuse_stdin_twice(ctx: click.Context, *names: str) -> None:
    """A usage error (exit 2) when ``-`` (standard input) is given twice among the values
    of the parameters ``names`` (one option given ``-`` twice, or two given it once each),
    before anything is read: the first read takes all of it, and the second, which reads
    it empty, was an input that held nothing, without a word."""
    given_by = [name for name in names for value in ctx.params.get(name) or () if value == "-"]
    if len(given_by) < 2:
        return
    first, second = (_shown(ctx, name) for name in given_by[:2])
    where = f"twice as {first}" if first == second else f"as both {first} and {second}"
    raise click.UsageError(
        f"- (standard input) is given {where}: it can be read only once "
        "(write one of them to a file)"
    )


def _shown(ctx: click.Context, name: str) -> str:
    """A parameter as the help names it: ``TASKS`` (an argument), ``--plans`` (an option)."""
    param = next(p for p in ctx.command.params if p.name == name)
    if isinstance(param, click.Argument):
        return param.human_readable_name
    return param.opts[0]


def refuse_empty(ctx: click.Context, *names: str, kind: str = "file or folder") -> None:
    """A usage error (exit 2) when a value of the parameters ``names`` is an empty path (an
    unset variable: ``extract "$LOGS"``), before anything is read or written: it was said
    as ``: no such file or directory`` (exit 3) among the inputs, or only once the work was
    done (``: cannot write the result``), as the history, team and policy files are not."""
    for name in names:
        value = ctx.params.get(name)
        values = value if isinstance(value, tuple | list) else (value,)
        if any(v == "" for v in values):
            raise click.UsageError(
                f"{_shown(ctx, name)}: an empty path (an unset variable?); give a {kind}"
            )


def refuse_dash(ctx: click.Context, name: str, writes: str, kind: str = "file") -> None:
    """A usage error (exit 2) when the output of parameter ``name`` is ``-``, which a
    command line reads as standard output (it is standard input among the inputs), before
    anything is read or written: it was a file or folder named ``-`` in the current one,
    made without a word. ``writes`` says what goes there instead; ``./-`` names one."""
    if ctx.params.get(name) == "-":
        raise click.UsageError(
            f"{_shown(ctx, name)} -: {writes}, not to standard output (./- names a {kind} called -)"
        )


def refuse_a_file_as_folder(ctx: click.Context, name: str) -> None:
    """A usage error (exit 2) when the output folder of parameter ``name`` exists as
    something else (a file, a FIFO, a device), before anything is read or written, in the
    nightly job's words: ``pipeline --out`` and ``plugin score --out`` said the folder's
    making failed (``error: nf: File exists``) once every skill or pipeline was scored."""
    path = ctx.params.get(name)
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise CannotAccess(f"{_shown(ctx, name)} {quote_path(path)}: exists and is not a directory")
