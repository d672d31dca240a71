"""Engine exceptions. The CLI maps them to exit codes; the engine never exits."""

from __future__ import annotations

#: What is public (README, "Python API"): what it documents, the results' types and
#: what the CLI builds on. tests/test_docs.py keeps the two the same.
__all__ = [
    "RunscoreError",
    "UsageError",
    "CannotAccess",
    "NothingReadable",
    "LockTimeout",
    "HistoryError",
    "SqlPackError",
    "RejectedInputWarning",
    "Arg",
    "Note",
    "cli_text",
    "interrupted",
    "out_of_memory",
]

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Arg:
    """An argument a message names, spelt as the caller gave it: ``param``, the Python
    parameter (``wait``), ``option``, the command line's (``--wait``), and ``python``
    where a call spells it otherwise than by its name (``force=True``). A message told
    a Python caller, who passed ``wait=``, of ``--wait``. (No tuple, so that one given
    alone as a message is not taken for a message's parts.)"""

    param: str
    option: str
    python: str | None = None

    def said(self, words: str) -> Arg:
        """This argument, said in ``words`` by a call and the CLI alike (``the history``):
        ``params`` name it, the message its role."""
        return Arg(self.param, words, words)


#: What a message is made of: its text, and the arguments it names (``Arg``).
Part = str | Arg


def _said(parts: Sequence[Part], cli: bool) -> str:
    return "".join(
        p if isinstance(p, str) else p.option if cli else p.python or p.param for p in parts
    )


class Note(str):
    """Result text (a line of a result's ``notes``) that names arguments, made as a
    ``RunscoreError``'s message is: the text names each as a Python call does
    (``version="all"``), ``cli`` as the command line does (``--sql-version all``), which
    the CLI says (``cli_text``). A str all the same, so a caller's list of notes is one of
    str: compared, joined or written as JSON it has the Python call's words."""

    cli: str

    def __new__(cls, *parts: Part) -> Note:
        note = super().__new__(cls, _said(parts, cli=False))
        note.cli = _said(parts, cli=True)
        return note


def cli_text(text: str) -> str:
    """``text`` as the command line says it: a ``Note``'s ``cli``, else ``text``."""
    return text.cli if isinstance(text, Note) else text


def parts_of(message: str | Sequence[Part]) -> tuple[Part, ...]:
    return (message,) if isinstance(message, str) else tuple(message)


class RunscoreError(Exception):
    """Base class for errors a user can act on (printed without a traceback).

    Made of text and ``Arg``s: ``str(e)`` names each argument as a Python call does
    (``wait must be 0 or more seconds``), ``cli_message`` as the command line does
    (``--wait must be ...``), which the CLI says; ``params``: the Python parameters it
    names, in order (the first is the one at fault), () when it names none. ``about``: the
    argument at fault where the text names its value, not the argument (``unknown scoring
    version "v9"``, ``h.jsonl: refusing to write through a symlink``): first in ``params``,
    the words unchanged. ``parts``: the message as made, for a caller that says it in its
    own words (the nightly job, which has none of a pack's arguments)."""

    def __init__(self, *message: Part, about: Arg | None = None) -> None:
        super().__init__(_said(message, cli=False))
        self.parts = message
        self.cli_message = _said(message, cli=True)
        named = [p.param for p in message if isinstance(p, Arg)]
        if about is not None:
            named.insert(0, about.param)
        self.params = tuple(dict.fromkeys(named))


class UsageError(RunscoreError):
    """Bad arguments or an unusable input file given by the user (exit 2)."""


class CannotAccess(UsageError, OSError):
    """A path the user gave cannot be read or written, as the system says: a full disk, a
    permission, a folder that is a file (exit 2). The CLI says it without where the help is,
    as it says an OSError: no option of the command's fixes it.

    An ``OSError`` too, as what the system refused: a caller's ``except OSError`` around a
    write catches it whether the engine said it in its own words (this) or passed the
    system's error on (a full disk in the middle of a report file), as ``except
    RunscoreError`` does. Its ``errno``, ``strerror`` and ``filename`` are None: the message
    says the path and the system's words."""


class NothingReadable(RunscoreError):
    """No input could be read at all (exit 3).

    ``problems``: why, one ``(file, line, reason)`` each (line 0: the whole file), when the
    message lists them on lines of its own: a caller that reports each input apart (the
    nightly job's run log) takes them from here, not from the text. ``no_lines``: the files
    among them (line 0) whose one problem is that they hold no line (empty, or blank lines
    only), which the nightly job lists as empty files, not as rejected input: told by this
    flag, as a reason reworded must not turn them into rejected input. ``about``: the
    argument whose input could not be read (``paths``, ``history``), first in ``params``, as
    a ``UsageError``'s: the message names the files, not the argument."""

    def __init__(
        self,
        message: str | Sequence[Part],
        problems: Sequence[tuple[str, int, str]] = (),
        no_lines: Iterable[str] = (),
        *,
        about: Arg | None = None,
    ) -> None:
        super().__init__(*parts_of(message), about=about)
        self.problems = list(problems)
        self.no_lines = frozenset(no_lines)


class RejectedInputWarning(UserWarning):
    """Input a call left out and goes on without (a line that is no event, an unreadable
    file, a run that cannot be scored), said through ``warnings`` by an API call whose
    result has no list of its own to hold it (``effectiveness.score_runs``: a table).

    ``problems``: one ``(file, line, reason)`` each (line 0: the whole file), as
    ``NothingReadable.problems``. ``warnings.simplefilter("error", RejectedInputWarning)``
    makes any such input an error."""

    def __init__(self, message: str, problems: Sequence[tuple[str, int, str]] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


class LockTimeout(RunscoreError):
    """Another process holds a lock we need (exit 4). ``holder``: its PID, when the system
    says it (``history.locked``), else None; ``command``: its command name, when that can
    be read (``runscore`` for runscore's own, ``history.holder_command``), else None.
    ``about``: the argument whose file's lock it is (``history_path``), first in
    ``params``, as a ``NothingReadable``'s: the message names the file."""

    def __init__(
        self,
        message: str | Sequence[Part],
        holder: int | None = None,
        command: str | None = None,
        *,
        about: Arg | None = None,
    ) -> None:
        super().__init__(*parts_of(message), about=about)
        self.holder = holder
        self.command = command


class SqlPackError(RunscoreError):
    """A versioned SQL file is missing, malformed or failed to run."""


class HistoryError(RunscoreError):
    """The history store refused an operation (e.g. writing through a symlink). ``file``
    and ``reason``: the path refused and why, apart, for a caller that words its own
    message (a manifest not saved) and must write the path once, by the rule (None when
    not given). ``about``: the argument that gave the path (the history's), as a
    ``UsageError``'s."""

    def __init__(
        self,
        *message: Part,
        file: str | None = None,
        reason: str | None = None,
        about: Arg | None = None,
    ) -> None:
        super().__init__(*message, about=about)
        self.file = file
        self.reason = reason


def _causes(e: BaseException) -> Iterator[BaseException]:
    """``e`` and what it was raised from, in turn (the SQL runner wraps DuckDB's errors)."""
    seen: BaseException | None = e
    while seen is not None:
        yield seen
        seen = seen.__cause__


def _duckdb_error(name: str) -> type[BaseException] | None:
    """DuckDB's exception class ``name``, from its engine module ``_duckdb`` (what the
    engine imports: ``engine/duck.py``) or its package, which re-exports the same class;
    None when neither is loaded (then nothing raised came from DuckDB). Looked up, not
    imported: DuckDB is imported by whatever raised the error, the CLI never imports it."""
    for module in ("_duckdb", "duckdb"):
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None:
            return cls  # type: ignore[no-any-return]
    return None


def interrupted(e: BaseException) -> bool:
    """Was ``e`` raised by a Ctrl-C (or raised from one)? A Ctrl-C that lands while DuckDB
    runs a query is taken by DuckDB, which stops the query and raises its own error
    instead of KeyboardInterrupt: ``InterruptException``, or in some builds a plain
    ``RuntimeError("Query interrupted")``; the SQL runner may wrap either (as
    ``SqlPackError``, a RunscoreError: not a broken input, and not to be taken for one)."""
    interrupt = _duckdb_error("InterruptException") or KeyboardInterrupt
    # Once the process stops on a Ctrl-C, its connections are closed (``db.stop``): the
    # error of a statement on one ("Connection already closed", "No open result set") is
    # the Ctrl-C's too, not a broken input or query to report.
    db = sys.modules.get("runscore.engine.db")
    stopped = db is not None and db.stopping()
    any_duckdb = (_duckdb_error("Error") or interrupt) if stopped else interrupt
    return any(
        isinstance(seen, (KeyboardInterrupt, interrupt, any_duckdb))
        or (type(seen) is RuntimeError and str(seen) == "Query interrupted")
        for seen in _causes(e)
    )


def out_of_memory(e: BaseException) -> BaseException | None:
    """DuckDB's out-of-memory error, if that is what ``e`` is or was raised from."""
    oom = _duckdb_error("OutOfMemoryException")
    if oom is None:
        return None
    return next((seen for seen in _causes(e) if isinstance(seen, oom)), None)
