"""The ``runscore`` command line: a thin click layer over ``runscore.engine``.

Each command module registers its commands on the group; the engine does the
work and returns Arrow tables, this layer only parses options, writes results
to stdout (data) and messages to stderr, and maps errors to exit codes.

Command modules are imported on first use: importing all of them (and the engine
modules, Jinja, YAML and Parquet behind them) cost ~0.5 s of every invocation.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import io
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, MutableMapping
from types import FrameType
from typing import Any, NoReturn, Self

import click
from runscore import __version__
from runscore.cli.exitcodes import ExitCode
from runscore.engine import notes, process
from runscore.engine.errors import (
    CannotAccess,
    LockTimeout,
    NothingReadable,
    RunscoreError,
    UsageError,
    interrupted,
    out_of_memory,
)

#: Command name -> (module of ``runscore.cli`` whose ``register(group)`` adds it, the
#: first paragraph of its help). The help is repeated here so that ``runscore --help``
#: lists every command without importing them all; tests/test_cli_lazy.py checks
#: that it matches the command's own.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "extract": ("effectiveness", "Score ArcheFlow run logs and append the scores to the history."),
    "report": (
        "analytics",
        "Per-archetype effectiveness: rolling averages, trend, recommendation, model advice.",
    ),
    "recommend": (
        "analytics",
        "Model advice for each member of an ArcheFlow team preset (TEAM.yaml).",
    ),
    "summary": (
        "analytics",
        "The run-start block: one line per archetype with score, recommendation, model, cost.",
    ),
    "export": (
        "analytics",
        "Export the history (every scoring version, typed) as Parquet or a DuckDB file.",
    ),
    "sql": ("sqlcmd", "Run one read-only SELECT over the effectiveness views."),
    "pipeline": ("pipeline", "Score finished multi-task pipelines from task-snapshot JSONL."),
    "plugin": ("plugin", "Score and rank agent skills (folders with a SKILL.md)."),
    "routes": (
        "routes",
        "Evidence-backed route intelligence from operation episodes (JSONL).",
    ),
    "nightly": (
        "nightly",
        "The unattended batch job: extract every root's new runs and render the day's reports.",
    ),
    "history": ("nightly", "Check or repair an effectiveness history file."),
}

#: Command modules, each with ``register(group)``.
COMMAND_MODULES = tuple(dict.fromkeys(m for m, _ in LAZY_COMMANDS.values()))


#: ``ctx.meta`` key (one dict for a whole chain of contexts) of the innermost context
#: entered: the command that was run, whose help a usage error points to.
_RUN = "runscore.command_run"


class _Context(click.Context):
    """Notes itself, once entered, as the command that runs: an error the engine raises
    reaches ``Group.invoke`` after every context below the group's has been left."""

    def __enter__(self) -> Self:
        self.meta[_RUN] = self
        return super().__enter__()


def _note_contexts(command: click.Command) -> None:
    """Give ``command`` and every command under it ``_Context``, and each command that
    does the work (not a group) ``_settings_first``."""
    command.context_class = _Context
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _note_contexts(sub)
    elif command.callback is not None and not hasattr(command.callback, _CHECKED):
        command.callback = _settings_first(command.callback)


#: Attribute of a callback that ``_settings_first`` wraps: a command is wrapped once.
_CHECKED = "_runscore_settings_first"


def _settings_first(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback``, after a bad RUNSCORE_LOG is refused: once the command's arguments
    are read and before its work, as every other setting (said before any command was
    known, it had no hint, and --help and --version, which do no work, failed on it)."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        log_level()
        return callback(*args, **kwargs)

    setattr(run, _CHECKED, True)
    return run


class Group(click.Group):
    """Maps engine errors to exit codes and one-line stderr messages.

    Subcommands listed in ``LAZY_COMMANDS`` are imported when first looked up.
    ``commands`` still holds every command (reading it imports the rest), so code
    that walks the tree, and click's "did you mean" hints, see them all.
    """

    context_class = _Context

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: dict[str, click.Command] = {}
        self._imported: set[str] = set()
        self._listing = False
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        for module in COMMAND_MODULES:
            self._import(module)
        return self._loaded

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._loaded = dict(value)

    def _import(self, module: str) -> None:
        if module in self._imported:
            return
        # A scratch group: register() calls add_command, which reads ``commands``.
        scratch = click.Group()
        importlib.import_module(f"runscore.cli.{module}").register(scratch)
        for command in scratch.commands.values():
            _note_contexts(command)
        self._loaded.update(scratch.commands)
        self._imported.add(module)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = LAZY_COMMANDS.get(cmd_name)
        if lazy is not None and lazy[0] not in self._imported:
            if self._listing:
                # A stand-in with the stored help: click shortens it exactly as it
                # would the real command's, and listing imports nothing.
                return click.Command(cmd_name, help=lazy[1])
            self._import(lazy[0])
        return self._loaded.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self._loaded) | set(LAZY_COMMANDS))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # runscore's own options and command name are read here, before invoke: a usage
        # error or Ctrl-C here is said as there.
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            click.echo("error: interrupted", err=True)
            raise click.exceptions.Exit(ExitCode.INTERRUPTED) from None
        except click.UsageError as e:
            if isinstance(e, _HELP_FOR_NO_ARGS):
                raise
            _say_usage_error(e)
            raise click.exceptions.Exit(ExitCode.USAGE) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            if isinstance(e, _HELP_FOR_NO_ARGS):
                raise
            _say_usage_error(e)
            ctx.exit(ExitCode.USAGE)
        except KeyboardInterrupt:
            # click would say "Aborted!" and exit 1, which here means "some input was
            # rejected". (A history gets whole runs only, and without the manifest saved
            # the next extract reads the files again and writes what is missing.)
            click.echo("error: interrupted", err=True)
            ctx.exit(ExitCode.INTERRUPTED)
        except Exception as e:
            if interrupted(e):
                click.echo("error: interrupted", err=True)
                ctx.exit(ExitCode.INTERRUPTED)
            oom = out_of_memory(e)
            if oom is not None:
                from runscore.engine import db

                _say_error(
                    f"DuckDB ran out of memory: {str(oom).splitlines()[0]} "
                    f"{db.out_of_memory_hint()}"
                )
                ctx.exit(ExitCode.OUT_OF_MEMORY)
            # A CannotAccess is an OSError too, said in runscore's words (below).
            if isinstance(e, OSError) and not isinstance(e, (BrokenPipeError, RunscoreError)):
                # What the engine does not take as rejected input is a path the user gave
                # for runscore to write (a history, its lock, --out) that cannot be: the
                # argument's problem, said in one line.
                from runscore.engine.quoting import path  # local: only on an error

                where = f"{path(os.fsdecode(e.filename))}: " if e.filename else ""
                why = e.strerror or str(e)
                if isinstance(e, FileExistsError) and e.filename and os.path.isfile(e.filename):
                    why = "a file where a folder is needed"  # os.makedirs's "File exists"
                _say_error(f"{where}{why}")
                ctx.exit(ExitCode.USAGE)
            code = next((c for t, c in _EXIT_CODES.items() if isinstance(e, t)), None)
            if code is None:
                raise
            # A usage error says where the help is, as click's do: raised by the engine
            # too (a bad --date, a refused query, a team file or setting it cannot take),
            # but not where the system refused a path (a full disk), as for an OSError.
            hint = ""
            if isinstance(e, UsageError) and not isinstance(e, CannotAccess):
                hint = _help_hint(ctx.meta.get(_RUN, ctx))
            # The options it names as the command line spells them (``--wait``), where
            # str(e) spells them as a Python call does (``wait``).
            _say_error(getattr(e, "cli_message", str(e)), hint)
            ctx.exit(code)


def _say_error(message: str, hint: str = "") -> None:
    """``error: MESSAGE`` on stderr, escaped as every message is (``output.note``): a line
    break in a value it quotes (a path, DuckDB's own message) is written ``\\n`` and
    starts no line. Only the engine's list of what could not be read (a line break and
    two spaces before each input) keeps a line per input. ``hint`` ends the first line."""
    from runscore.cli.output import note  # local: only when there is an error to say

    first, *rest = message.split("\n")
    lines = [first]
    for part in rest:
        if part[:2] == "  " and part[2:3].strip():
            lines.append(part)
        else:
            lines[-1] += "\n" + part
    note(f"error: {lines[0]}{hint}")
    for line in lines[1:]:
        note(line)


#: click's "usage error" for a group given no command, which prints the group's help (from
#: click 8.2; before, the help was printed and the exit was 0).
_HELP_FOR_NO_ARGS: tuple[type[click.UsageError], ...] = tuple(
    t for t in [getattr(click.exceptions, "NoArgsIsHelpError", None)] if t is not None
)


def _note(message: str) -> None:
    """What the engine says outside any result, as the CLI's own notes are said."""
    from runscore.cli.output import note  # local: only when there is something to say

    note(message)


def _help_hint(ctx: click.Context | None) -> str:
    """`` (see 'runscore CMD --help')``, where a usage error says the help of ``ctx``'s
    command is, as click's own usage errors do."""
    if ctx is None or ctx.command.get_help_option(ctx) is None:
        return ""
    return f" (see '{ctx.command_path} --help')"


def _say_usage_error(e: click.UsageError) -> None:
    """A usage error in one line, ``error: MESSAGE (see 'runscore CMD --help')``: click
    writes four (the usage, where the help is, a blank line and the message)."""
    _say_error(e.format_message(), _help_hint(e.ctx))


#: Engine errors by exit code, the first that matches (any other RunscoreError, such as
#: HistoryError, is a usage error: something the user can act on).
_EXIT_CODES: dict[type[BaseException], ExitCode] = {
    LockTimeout: ExitCode.LOCKED,
    NothingReadable: ExitCode.NOTHING_READABLE,
    RunscoreError: ExitCode.USAGE,
}


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="runscore")
def cli() -> None:
    """Score the logs multi-agent coding workflows leave behind.

    stdout is data; messages go to stderr. Exit codes: 0 ok, 1 some input
    rejected, 2 usage error, 3 nothing readable, 4 lock held elsewhere, 5 out of
    memory, 130 interrupted.
    """


class _PipeEnd(io.RawIOBase):
    """A standard stream's file descriptor whose reader may go before the end
    (``runscore report | head -1``): the writes after it has gone are dropped."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def gone(self) -> None:
        """Drop every write from now on."""
        self._gone = True

    def write(self, b: Any) -> int:
        if not self._gone:
            try:
                return os.write(self._fd, b)
            except BrokenPipeError:
                self._gone = True
        return len(memoryview(b))


def _outlive_the_reader(name: str, encoding: str | None = None) -> None:
    """Let ``sys.<name>`` outlive its reader. A reader that stops reading has what it
    wanted; the command still finishes, says on stderr what it would have said, and
    exits as it would have (click's own handling stopped the command and exited 1:
    "some input was rejected", with nothing listed)."""
    stream = getattr(sys, name)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file: left as it is
        return
    setattr(
        sys,
        name,
        io.TextIOWrapper(
            io.BufferedWriter(_PipeEnd(fd)),
            encoding=encoding or stream.encoding,
            errors=stream.errors,
            line_buffering=stream.line_buffering,
            write_through=getattr(stream, "write_through", False),
        ),
    )


#: The variable of the logging level (README "Environment").
LOG_ENV = "RUNSCORE_LOG"


def log_level() -> str | None:
    """``$RUNSCORE_LOG`` as a ``logging`` level name; None when unset (or empty). Anything
    else is a usage error that names the variable, as the other settings' (``db.env_count``)."""
    raw = os.environ.get(LOG_ENV, "")
    level = raw.strip().upper()
    if not level:
        return None
    if not isinstance(logging.getLevelName(level), int):
        from runscore.engine.quoting import quote  # local: only when there is an error to say

        raise UsageError(
            f"{LOG_ENV} must be a logging level (debug, info, warning, error, critical), "
            f"not {quote(raw)}"
        )
    return level


def main() -> None:
    """The ``runscore`` command on ``sys.argv``, in-process (a script, a test): it ends as
    click's commands do (``SystemExit``), and the caller's ``sys.stdout`` and
    ``sys.stderr`` are theirs again once it returns or raises, and so are the engine's
    ``notes.say`` and the root logger's handlers and level (``RUNSCORE_LOG``)."""
    streams = sys.stdout, sys.stderr
    say = notes.say
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        _main()
    finally:
        # Before the streams: a handler basicConfig added writes to runscore's stderr, and
        # left in place it took every later call's lines (basicConfig does nothing once
        # the root logger has a handler), where the caller no longer reads.
        for h in list(root.handlers):
            if h not in handlers:
                root.removeHandler(h)
                h.close()
        root.setLevel(level)
        notes.say = say
        _put_back(streams)


def _put_back(streams: tuple[Any, Any]) -> None:
    """``sys.stdout`` and ``sys.stderr`` as they were (``streams``), after what was
    written through runscore's own is written."""
    for name, was in zip(("stdout", "stderr"), streams, strict=True):
        own = getattr(sys, name)
        setattr(sys, name, was)
        if own is was:
            continue
        try:
            own.flush()
        except (OSError, ValueError):
            # The write that failed (a full disk) failed the command, which said so. What
            # is left is dropped: freed, the stream would try once more (and in Python's
            # dev mode print "Exception ignored" and a traceback on the caller's stderr).
            raw = getattr(getattr(own, "buffer", None), "raw", None)
            if isinstance(raw, _PipeEnd):
                raw.gone()
                with contextlib.suppress(OSError, ValueError):
                    own.flush()


def _main() -> None:
    # stdout is data, UTF-8 as every file runscore writes: in a locale that cannot
    # encode a value (LANG=en_US.ISO-8859-1 and an emoji) it was a traceback.
    _outlive_the_reader("stdout", "utf-8")
    _outlive_the_reader("stderr")
    notes.say = _note
    try:
        level = log_level()
    except UsageError:
        level = None  # said by the command once it is known (``_Context``)
    if level is not None:
        logging.basicConfig(level=level, stream=sys.stderr, format="%(name)s: %(message)s")
    cli(prog_name="runscore")


#: The exit code ``run``'s ``main`` ended with, once known (``_exit_without_teardown``).
_exit_code: int | None = None


def run() -> NoReturn:
    """``main`` as the process's entry point (``runscore.__main__``, behind the script
    and ``python -m runscore``), then an exit that skips the interpreter's teardown.

    Freeing every module and DuckDB's database one object at a time took 0.03-0.13 s
    of each command once its work was done (measured after the last exit handler: an
    incremental extract 0.03-0.06 s of ~0.47 s, a full one 0.04-0.13 s, a report
    0.06-0.09 s); the kernel frees a process's memory at once. Nothing is left to
    teardown that matters: every file runscore writes is closed (and the history
    synced, the DuckDB files checkpointed and renamed) before its command returns.
    ``main`` itself, called in-process (tests), exits as usual.
    """
    # Registered first, so it runs last: after the exit handlers registered since
    # (DuckDB's, thread pools'), once Python has joined the threads still running.
    atexit.register(_exit_without_teardown)
    _watch_for_ctrl_c()
    _one_ctrl_c()
    # The process is runscore's alone: the engine may pause Python's cyclic collector
    # while an extract runs (``process.gc_paused``), which a library call must not do.
    process.own_process()
    global _exit_code
    try:
        # Not ``main``: runscore's own streams stay in until the process exits, which
        # flushes them last (``_exit_without_teardown``).
        _main()
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            _exit_code = int(e.code or 0)
        raise
    finally:
        # The command is over, its files written and its exit code known: a Ctrl-C now
        # (while Python joins the threads still running) printed a traceback from the
        # middle of the interpreter's exit ("Exception ignored in: <module 'threading'>").
        if signal.getsignal(signal.SIGINT) is _ctrl_c:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_code = 0
    sys.exit(0)


#: Set by the first Ctrl-C (``_ctrl_c``).
_ctrl_c_taken = False


def _one_ctrl_c() -> None:
    """Take a Ctrl-C once: the first raises KeyboardInterrupt, as Python's own handler
    does; any later one does nothing (the process is stopping already).

    A second Ctrl-C (a user who presses it twice) raised KeyboardInterrupt again, wherever
    the first one's clean-up was: in the ``except`` that removes a temporary file (left
    for good), in a weak reference's callback or in Python's exit (a traceback on
    stderr). A SIGINT the process was started with ignored stays ignored."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _ctrl_c)


def _ctrl_c(signum: int, frame: FrameType | None) -> None:
    global _ctrl_c_taken
    if _ctrl_c_taken:
        return
    _ctrl_c_taken = True
    raise KeyboardInterrupt


def _watch_for_ctrl_c() -> None:
    """Interrupt DuckDB's queries on Ctrl-C, from a thread of its own.

    Python runs its SIGINT handler (KeyboardInterrupt) on the main thread, between two
    bytecodes; the main thread waiting inside a DuckDB query runs none until the query
    ends, and DuckDB looks for a Ctrl-C in some of its waits only: with more than one
    thread, a long ``sql`` query ignored Ctrl-C (DuckDB 2.0.1: in most tries, or for
    13-21 s) and ran on for minutes. Python also writes each signal's number to a wakeup
    file descriptor, at once, from the signal handler itself: this thread, woken by it,
    interrupts every open connection and keeps any statement from starting after
    (``db.stop``). The query stops with DuckDB's InterruptException, then the
    KeyboardInterrupt still pending is raised: either says "interrupted", exit 130.
    Only the process's entry point does this (``main`` called in-process, by tests, leaves
    the caller's signals alone)."""
    if threading.current_thread() is not threading.main_thread():
        return  # set_wakeup_fd is for the main thread only
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # the signal handler must never block on it
    try:
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:
        os.close(read_end)
        os.close(write_end)
        return
    threading.Thread(
        target=_interrupt_queries_on_signal, args=(read_end,), name="runscore-ctrl-c", daemon=True
    ).start()


def _interrupt_queries_on_signal(read_end: int) -> None:
    while True:
        try:
            signals = os.read(read_end, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not signals:
            return
        if signal.SIGINT in signals:
            # Not imported yet: no connection is open, and there is nothing to interrupt.
            db = sys.modules.get("runscore.engine.db")
            if db is not None:
                db.stop()


def _exit_without_teardown() -> None:
    if _exit_code is None:
        return  # an uncaught error (a traceback): Python's own exit, as always
    code = _exit_code
    # logging's handler was registered before this one (it would run after, so not at
    # all): its handlers are flushed here.
    logging.shutdown()
    for name in ("stdout", "stderr"):
        try:
            getattr(sys, name).flush()
        except (OSError, ValueError) as e:
            # What is left unwritten is lost (stdout on a full disk). Python's own exit
            # tried again, printed a traceback and exited 120. A command whose write
            # failed before said so and has its exit code; else it is said here.
            if name == "stdout" and code == ExitCode.OK:
                code = ExitCode.USAGE
                with contextlib.suppress(OSError):
                    why = getattr(e, "strerror", None) or str(e)
                    os.write(2, f"error: stdout: {why}\n".encode())
    os._exit(code)


if __name__ == "__main__":
    run()
