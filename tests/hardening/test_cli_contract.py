"""The CLI contract across commands (README "Commands" and "Exit codes"): what a user
sees when a run is stopped (Ctrl-C, a reader that closes the pipe), and that stderr
says each message on one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"

#: Some seconds of work even on many cores (a test that is not interrupted still ends).
LONG_QUERY = "SELECT count(*) FROM range(3000000000) t(i) WHERE i % 7 = 3"


def test_ctrl_c_during_a_duckdb_query_is_exit_130(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB takes a Ctrl-C that lands while a query runs: it stops the query and raises
    its own error, not KeyboardInterrupt. That was a traceback ending in
    ``RuntimeError: Query interrupted`` and exit 1 ("some input was rejected")."""
    from runscore.engine.packs import effectiveness_history as eh

    real = eh.run_sql
    # as in a terminal (a background job of a script starts with Ctrl-C ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def long_query(query: str, *args: Any, **kwargs: Any) -> Any:
        # a query of many seconds, Ctrl-C'd half a second in (the signal lands in DuckDB)
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            return real(LONG_QUERY, *args, **kwargs)
        finally:
            timer.cancel()

    monkeypatch.setattr(eh, "run_sql", long_query)
    try:
        res = run_cli("sql", "SELECT 1", "--history", "none.jsonl")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (res.exit_code, res.stdout) == (130, "")
    # (the missing history's note comes first: the views are built before the query runs)
    assert res.stderr.splitlines()[-1] == "error: interrupted"
    assert "Traceback" not in res.stderr


def test_a_query_duckdb_interrupts_is_exit_130(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DuckDB that says a Ctrl-C with ``InterruptException`` (as ``con.interrupt()``
    does): runscore sql took it for a broken query, exit 2 "query failed: INTERRUPT
    Error: Interrupted!"."""
    from runscore.engine.packs import effectiveness_history as eh

    real = eh._query_connection
    timers: list[threading.Timer] = []

    def interrupted_soon(tables: Any) -> Any:
        q = real(tables)
        timers.append(threading.Timer(0.3, q.interrupt))
        timers[-1].start()
        return q

    monkeypatch.setattr(eh, "_query_connection", interrupted_soon)
    try:
        res = run_cli("sql", LONG_QUERY, "--history", "none.jsonl")
    finally:
        for t in timers:
            t.cancel()
    assert len(timers) == 1
    assert (res.exit_code, res.stdout) == (130, "")
    assert res.stderr.splitlines()[-1] == "error: interrupted"
    assert "query failed" not in res.stderr and "Traceback" not in res.stderr


def test_a_query_out_of_memory_is_exit_5(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB's out-of-memory error in a query was a usage error (exit 2, "query failed"),
    the original dropped; it is exit 5 with the hint, as in every other command."""
    # room for the views (built before the query), none for a list of 40M numbers
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "200MB")
    query = "SELECT list(i) AS l FROM range(40000000) t(i)"
    res = run_cli("sql", query, "--history", "none.jsonl")
    assert (res.exit_code, res.stdout) == (5, ""), res.stderr
    assert res.stderr.splitlines()[-1].startswith("error: DuckDB ran out of memory: ")


def _closed_pipe_run(*args: str, cwd: Path, stderr_closed: bool = False) -> tuple[int, str]:
    """Run ``runscore ARGS`` with stdout a pipe whose reader has gone (as after ``| head
    -1``; closed before the start, so that every write meets it); (exit code, stderr)."""
    r, w = os.pipe()
    os.close(r)
    env = dict(os.environ, RUNSCORE_THREADS="1")
    env.pop("PYTHONUNBUFFERED", None)  # as a user runs it
    try:
        p = subprocess.run(
            [sys.executable, "-m", "runscore", *args],
            cwd=cwd,
            env=env,
            stdout=w,
            stderr=w if stderr_closed else subprocess.PIPE,
            timeout=300,
        )
    finally:
        os.close(w)
    return p.returncode, (p.stderr or b"").decode()


@pytest.fixture
def sample_history(tmp_path: Path) -> Path:
    from runscore.engine.packs import effectiveness

    effectiveness.extract([str(SAMPLE)], str(tmp_path / "h.jsonl"))
    return tmp_path / "h.jsonl"


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv"])
def test_a_reader_that_stops_reading_is_not_rejected_input(
    sample_history: Path, tmp_path: Path, fmt: str
) -> None:
    """``runscore report | head -1``: the reader has what it wanted. That was exit 1,
    "some input was rejected", with nothing on stderr; it is the exit code of the
    report (0), and stderr stays empty."""
    code, err = _closed_pipe_run("report", "--history", "h.jsonl", "--format", fmt, cwd=tmp_path)
    assert (code, err) == (0, "")


def test_a_closed_pipe_still_lists_the_rejected_lines(tmp_path: Path) -> None:
    """The rejected lines are said on stderr after the summary is written: with the
    summary's reader gone they were lost (exit 1 with an empty stderr)."""
    log = tmp_path / "run.jsonl"
    log.write_bytes((SAMPLE / "run-2026-11-01.jsonl").read_bytes() + b"{not json\n")
    lines = len(log.read_bytes().splitlines())
    code, err = _closed_pipe_run(
        "extract", "run.jsonl", "--history", "h.jsonl", "--format", "json", cwd=tmp_path
    )
    assert code == 1
    said = err.splitlines()
    assert said[0].startswith(f"run.jsonl:{lines}: ")
    assert said[1].startswith("1 run(s) scored, 4 record(s) written to h.jsonl; ")
    assert len(said) == 2
    # the work itself was done: the history has the run
    assert len((tmp_path / "h.jsonl").read_text().splitlines()) == 4


def test_stdout_and_stderr_both_closed_keep_the_exit_code(
    sample_history: Path, tmp_path: Path
) -> None:
    """``runscore report --history h.jsonl 2>&1 | head -1`` with torn lines: exit 1, as
    when the reader reads on (it was 1 by accident, and 1 for a clean history too)."""
    code, _ = _closed_pipe_run("report", "--history", "h.jsonl", cwd=tmp_path, stderr_closed=True)
    assert code == 0
    with sample_history.open("ab") as f:
        f.write(b'{"torn": \n')
    code, _ = _closed_pipe_run("report", "--history", "h.jsonl", cwd=tmp_path, stderr_closed=True)
    assert code == 1


def _not_runscore_s_error() -> None:
    raise RuntimeError("not runscore's")


@pytest.mark.parametrize(
    ("args", "code", "out", "err"),
    [
        (["sql", "SELECT 7 AS x", "--format", "csv"], 0, "x\n7\n", ""),
        (["sql", "SELECT 1", "--format", "yaml"], 2, "", "error: "),
        (["report", "--history", "none.jsonl"], RuntimeError, "", ""),
    ],
)  # fmt: skip
def test_main_in_process_gives_the_callers_streams_back(
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    code: int | type[Exception],
    out: str,
    err: str,
) -> None:
    """``main`` called in-process (a script, a test) put its own ``sys.stdout`` and
    ``sys.stderr`` in (so that a reader that goes does not stop the command) and left
    them there: the caller's were gone for good, whether the command returned, exited
    or raised. (conftest's guard fails a test that leaves them changed, too.)"""
    from runscore.cli import main as m

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["runscore", *args])
    if code is RuntimeError:
        monkeypatch.setattr(m, "log_level", _not_runscore_s_error)
    streams = sys.stdout, sys.stderr
    assert streams[0].fileno() >= 0  # a file: main puts its own in
    with pytest.raises(SystemExit if isinstance(code, int) else code) as e:
        m.main()
    assert sys.stdout is streams[0] and sys.stderr is streams[1]
    if isinstance(code, int):
        assert isinstance(e.value, SystemExit) and (e.value.code or 0) == code
    said = capfd.readouterr()
    assert (said.out, said.err[: len(err)]) == (out, err)


def _logs_then_raises(**kwargs: Any) -> None:
    import logging

    logging.getLogger("runscore.test").debug("about to fail")
    raise RuntimeError("not runscore's")


@pytest.mark.parametrize(
    ("args", "code", "logged"),
    [
        (["sql", "SELECT 7 AS x", "--format", "csv"], 0, "runscore.sql: "),
        (["sql", "SELECT 1", "--format", "yaml"], 2, ""),
        (["report"], RuntimeError, "runscore.test: about to fail\n"),
    ],
)  # fmt: skip
def test_main_in_process_gives_back_notes_say_and_the_root_logger(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: list[str],
    code: int | type[Exception],
    logged: str,
) -> None:
    """``main`` called in-process set the engine's ``notes.say`` to the CLI's and, with
    ``RUNSCORE_LOG`` set, ``logging.basicConfig`` gave the root logger a handler writing
    to the stderr of that call, and left both for good: a second call's log lines went to
    the first call's stderr (``basicConfig`` does nothing once the root logger has a
    handler), never to the caller's; a caller's own ``notes.say`` was gone."""
    import io
    import logging

    from runscore.cli import main as m
    from runscore.engine import notes

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUNSCORE_LOG", "debug")
    monkeypatch.setattr(sys, "argv", ["runscore", *args])
    if code is RuntimeError:
        monkeypatch.setattr(m, "cli", _logs_then_raises)
    said: list[str] = []
    monkeypatch.setattr(notes, "say", said.append)  # the caller's own
    root = logging.getLogger()
    # As in a script that configured no logging (pytest's own capture handlers are there)
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", logging.WARNING)
    errs = []
    for _ in range(2):
        err = io.StringIO()  # no file: main writes to it as it is
        monkeypatch.setattr(sys, "stderr", err)
        with pytest.raises(SystemExit if isinstance(code, int) else code):
            m.main()
        assert notes.say == said.append
        assert (root.handlers, root.level) == ([], logging.WARNING)
        errs.append(err.getvalue())
    for e in errs:
        assert logged in e and ("runscore." in e) == bool(logged), e


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv"])
def test_stdout_is_utf8_whatever_the_locale(tmp_path: Path, fmt: str) -> None:
    """A value the locale's encoding cannot write (an emoji under ISO-8859-1) was a
    traceback (UnicodeEncodeError) and exit 1; stdout is UTF-8, as the files are."""
    env = dict(os.environ, RUNSCORE_THREADS="1", PYTHONIOENCODING="latin-1")
    p = subprocess.run(
        [sys.executable, "-m", "runscore", "sql", "SELECT 'é😀' AS v", "--format", fmt],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert "é😀".encode() in p.stdout
    assert p.stderr.decode().splitlines() == [
        "no history at .archeflow/memory/effectiveness.jsonl: its views are empty"
    ]


def test_an_error_is_one_line_whatever_the_value_holds(run_cli: Any) -> None:
    """A line break or terminal escape in a value an error quotes (a path, DuckDB's own
    message) started a line of its own, or steered the terminal; it is written escaped,
    as every other message writes it."""
    res = run_cli("report", "--history", "a\nb.jsonl")
    assert res.exit_code == 3
    assert (
        res.stderr
        == 'error: no effectiveness history at "a\\nb.jsonl"; run `runscore extract` first\n'
    )
    res = run_cli("report", "--history", "\x1b[2Jx.jsonl")
    assert (
        res.stderr
        == 'error: no effectiveness history at "\\u001B[2Jx.jsonl"; run `runscore extract` first\n'
    )
    res = run_cli("recommend", "t\nq.yaml")
    assert (res.exit_code, res.stderr) == (
        2,
        # a path that holds a line break is quoted, as a value is
        "error: \"t\\nq.yaml\": team file not found (see 'cli recommend --help')\n",
    )
    # DuckDB's message has lines of its own ("Candidate bindings: ..."): `sql` joins them
    res = run_cli("sql", "SELECT nosuch FROM history")
    assert res.exit_code == 2
    (said,) = res.stderr.splitlines()
    assert said.startswith('error: query failed: Binder Error: Referenced column "nosuch"')
    assert "! Candidate bindings: " in said


def test_the_list_of_unreadable_inputs_keeps_one_line_each(run_cli: Any) -> None:
    """Nothing readable lists each input on a line of its own; a line break in a name is
    escaped within its line."""
    res = run_cli("pipeline", "x\ny.jsonl", "missing.jsonl", "--no-history")
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        "error: no task snapshot file could be read:",
        '  "x\\ny.jsonl": no such file or directory',
        "  missing.jsonl: no such file or directory",
    ]


def test_a_line_break_in_a_listed_input_never_forges_another(run_cli: Any, tmp_path: Path) -> None:
    """The CLI takes each line of the list that opens with two spaces for an input of its
    own. pipeline and plugin wrote a name's line break as it is, so a file or root named
    "a\\n  forged.jsonl:9: ..." listed an input that nothing read, as routes never did."""
    forged = "\n  forged.jsonl:9: bad"
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / f"a{forged}.jsonl").write_text("")
    (tmp_path / "t" / f"b{forged}.jsonl").write_text('{"id": "x"}\n')
    res = run_cli("pipeline", "t", "--no-history")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr.splitlines() == [
        "error: no usable task snapshot in the input:",
        '  "t/b\\n  forged.jsonl:9: bad.jsonl":1: no pipeline id (pipelineId or metadata.pipelineId)',
        '  "t/a\\n  forged.jsonl:9: bad.jsonl": empty (no task snapshots)',
    ]
    res = run_cli("pipeline", f"gone{forged}", "--no-history")
    assert (res.exit_code, res.stderr.splitlines()) == (
        3,
        [
            "error: no task snapshot file could be read:",
            '  "gone\\n  forged.jsonl:9: bad": no such file or directory',
        ],
    )
    (tmp_path / f"s{forged}").mkdir()
    res = run_cli("plugin", "rank", f"s{forged}")
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr.splitlines() == [
        "error: no skill could be scored:",
        '  "s\\n  forged.jsonl:9: bad": no SKILL.md found under this root',
    ]


#: Values a CSV or markdown writer must not break on, and cells a spreadsheet would read
#: as a formula: written as they are (one text form in every format; see the README).
AWKWARD = [
    "a,b",
    'say "hi"',
    "two\nlines",
    "carriage\rreturn",
    "crlf\r\n",
    "=1+1",
    "+cmd",
    "-2",
    "@SUM(A1)",
    " padded ",
    "é😀 ü 中文",
    "",
    "x" * 100_000,
]


def _sql_values(values: list[str]) -> str:
    rows = ", ".join(f"({i}, '{v.replace(chr(39), chr(39) * 2)}')" for i, v in enumerate(values))
    return f"SELECT n, v FROM (VALUES {rows}) t(n, v) ORDER BY n"


def test_every_format_has_the_same_rows_and_values(run_cli: Any) -> None:
    """JSON and CSV give back every value exactly (a carriage return in a CSV cell was
    written unquoted, so a CSV reader split the row there); markdown and the table have
    one line per row."""
    import csv
    import io

    query = _sql_values(AWKWARD)
    rows = json.loads(run_cli("sql", query, "--format", "json").stdout)
    assert rows == [{"n": i, "v": v} for i, v in enumerate(AWKWARD)]
    out = run_cli("sql", query, "--format", "csv").stdout_bytes.decode()  # ("\r\n" kept)
    read = list(csv.reader(io.StringIO(out, newline="")))
    assert read == [["n", "v"]] + [[str(i), v] for i, v in enumerate(AWKWARD)]
    for fmt, head in (("markdown", 2), ("table", 2)):
        lines = run_cli("sql", query, "--format", fmt).stdout.split("\n")
        assert lines[-1] == ""  # ends with a line break
        assert len(lines) - 1 == head + len(AWKWARD), fmt


def test_a_one_column_row_of_null_is_not_a_blank_line(run_cli: Any) -> None:
    """An empty only cell is written "" (a blank line is no row to a CSV reader)."""
    out = run_cli("sql", "SELECT NULL AS v UNION ALL SELECT 'x'", "--format", "csv").stdout
    assert out == 'v\n""\nx\n'


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv"])
def test_an_empty_result_in_every_format(run_cli: Any, fmt: str) -> None:
    res = run_cli("sql", "SELECT 1 AS a, 'x' AS b WHERE false", "--format", fmt)
    assert res.exit_code == 0
    assert (
        res.stdout
        == {
            "table": "a  b\n-  -\n",
            "markdown": "| a | b |\n|---|---|\n",
            "json": "[]\n",
            "csv": "a,b\n",
        }[fmt]
    )


@pytest.mark.parametrize("how", ["script", "module"])
def test_ctrl_c_while_the_cli_starts_is_exit_130(tmp_path: Path, how: str) -> None:
    """A Ctrl-C in the first tenth of a second, while the CLI's modules import (here in
    click's, the first of them), was a traceback and a death by SIGINT; it is exit 130
    and one line, as later."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "click.py").write_text(
        "import os, signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
    )
    script = Path(sys.executable).parent / "runscore"
    if how == "script" and not script.exists():
        pytest.skip("no runscore script beside this Python")
    cmd = [str(script)] if how == "script" else [sys.executable, "-m", "runscore"]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")])
    )
    p = subprocess.run(
        [*cmd, "--help"], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert (p.returncode, p.stdout, p.stderr) == (130, "", "error: interrupted\n")


def test_ctrl_c_while_click_reads_the_arguments_is_exit_130(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the command runs, click took the Ctrl-C: "Aborted!" and exit 1 ("some input
    was rejected")."""
    from runscore.cli import main

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(main.Group, "parse_args", interrupted)
    res = run_cli("report")
    assert (res.exit_code, res.stdout, res.stderr) == (130, "", "error: interrupted\n")


def _one_usage_line(res: Any, command: str) -> str:
    """The one line a usage error is (exit 2): ``error: MESSAGE (see 'runscore COMMAND
    --help')``; its MESSAGE. (In process, click names the program after the group: cli.)"""
    assert (res.exit_code, res.stdout) == (2, "")
    (line,) = res.stderr.splitlines()
    hint = f" (see '{command.replace('runscore', 'cli', 1)} --help')"
    assert line.startswith("error: ") and line.endswith(hint), line
    return str(line[len("error: ") : -len(hint)])


def test_a_usage_error_is_one_line(run_cli: Any) -> None:
    """click wrote four lines (the usage, "Try ... for help.", a blank line, "Error: ...");
    every message is one line."""
    assert "'--bogus'" in _one_usage_line(run_cli("report", "--bogus"), "runscore report")
    assert "'--bogus'" in _one_usage_line(run_cli("--bogus"), "runscore")
    assert "'nosuch'" in _one_usage_line(run_cli("nosuch"), "runscore")
    said = _one_usage_line(run_cli("report", "--format", "xml"), "runscore report")
    assert "'xml'" in said and "--format" in said
    said = _one_usage_line(run_cli("recommend"), "runscore recommend")
    assert "TEAM" in said
    said = _one_usage_line(run_cli("plugin", "rank", "--bogus"), "runscore plugin rank")
    assert "'--bogus'" in said
    # runscore's own usage errors, raised as click's
    said = _one_usage_line(
        run_cli("history", "repair", "a", "--history", "b\tc"), "runscore history repair"
    )
    assert said == 'two history files given: a and --history "b\\tc"'
    # a line break in what the message quotes is escaped, as in every message
    said = _one_usage_line(run_cli("report", "--format", "x\ny"), "runscore report")
    assert "'x\\ny'" in said
    # as a user runs it
    p = subprocess.run(
        [sys.executable, "-m", "runscore", "report", "--bogus"], capture_output=True, text=True
    )
    assert (p.returncode, p.stdout) == (2, "")
    (line,) = p.stderr.splitlines()
    assert line.startswith("error: ") and line.endswith(" (see 'runscore report --help')")
    # a group without its command still prints its help (exit 2, as click does)
    res = run_cli("history")
    assert res.exit_code == 2 and "Commands:" in res.stderr


def test_an_option_given_twice_takes_its_last_value(run_cli: Any) -> None:
    """README: a single-valued option given twice takes the last value, as click does."""
    res = run_cli("sql", "SELECT 1 AS a", "--format", "json", "--format", "csv")
    assert (res.exit_code, res.stdout) == (0, "a\n1\n")


def test_the_table_aligns_wide_and_combining_characters(run_cli: Any) -> None:
    """The table padded by characters, so a CJK or emoji cell (two columns wide in a
    terminal) pushed its row right, and a combining accent pulled it left."""
    query = (
        "SELECT v AS 名前, n FROM (VALUES (1, '中文'), (2, 'ab'), (3, 'e\u0301'), (4, '😀x'),"
        " (5, NULL)) t(n, v) ORDER BY n"
    )
    res = run_cli("sql", query, "--format", "table")
    assert res.exit_code == 0
    assert res.stdout.split("\n") == [
        "名前  n",
        "----  -",
        "中文  1",
        "ab    2",
        "e\u0301     3",
        "😀x   4",
        "—     5",  # null, as in markdown
        "",
    ]
    # a line break in a column's name does not start a line either (the name quoted, as
    # a value that holds what is written escaped is: quoting.shown's rule)
    res = run_cli("sql", 'SELECT 1 AS "a\nb"', "--format", "table")
    assert res.stdout == '"a\\nb"\n------\n     1\n'  # a number, aligned right


def test_the_table_shows_control_characters_escaped(run_cli: Any) -> None:
    """A tab in a name moved the rest of its row to the next tab stop, out of line; other
    control characters were "?" (the names "a\\x01b" and "a?b" read alike) and a line
    break a space. Each is shown escaped, as a message writes it, and a bidi override,
    which reversed the rest of the line as drawn, too."""
    query = (
        "SELECT v AS \"na\tme\", n FROM (VALUES (1, 'a' || chr(9) || 'b'), "
        "(2, 'c' || chr(13) || chr(10) || 'd'), (3, chr(27) || '[31mred'), "
        "(4, 'x' || chr(8238) || 'yz'), (5, 'a' || chr(1) || 'b'), (6, 'a?b')) t(n, v) ORDER BY n"
    )
    res = run_cli("sql", query, "--format", "table")
    assert res.exit_code == 0
    # Each value (and name) that holds what is written escaped is quoted whole, as
    # quoting.shown writes it, so that it never reads as a value holding the escape's text.
    assert res.stdout.split("\n") == [
        '"na\\tme"         n',
        "---------------  -",
        '"a\\tb"           1',
        '"c\\r\\nd"         2',
        '"\\u001B[31mred"  3',
        '"x\\u202eyz"      4',
        '"a\\u0001b"       5',
        "a?b              6",
        "",
    ]


#: Cells and the columns a terminal gives them: emoji sequences drawn as one emoji, and
#: what must not be joined (a joiner between letters, a regional indicator alone).
EMOJI_SEQUENCES = {
    "\U0001f469\u200d\U0001f4bb": 2,  # woman technologist: two emoji joined by ZWJ
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466": 2,  # family of four
    "\U0001f3f3\ufe0f\u200d\U0001f308": 2,  # rainbow flag: a text symbol made emoji, joined
    "\U0001f1e9\U0001f1ea": 2,  # flag of Germany: two regional indicators
    "\U0001f1e9\U0001f1ea\U0001f1eb\U0001f1f7": 4,  # two flags
    "\U0001f1e9": 1,  # a regional indicator alone
    "\U0001f44d\U0001f3fd": 2,  # thumbs up with a skin tone
    "\U0001f9d1\U0001f3fd\u200d\U0001f4bb": 2,  # a skin tone, then joined
    "\u2764\ufe0f": 2,  # heart with the emoji presentation selector
    "\u2764": 1,  # without it: text
    "a\U0001f469\u200d\U0001f4bbb": 4,
    "a\u200db": 2,  # a joiner between letters joins nothing in a terminal
    "\u0915\u094d\u200d\u0937": 2,  # nor in Devanagari (a half form, per character)
    "\u4e2d\u6587": 4,
    "e\u0301": 1,
}


def test_an_emoji_sequence_takes_two_columns() -> None:
    """Counted per character, emoji joined by ZWJ took two columns each (a family of four
    eight) and a skin tone two more, so a table with such a name was out of line."""
    from runscore.cli.output import display_width

    assert {cell: display_width(cell) for cell in EMOJI_SEQUENCES} == EMOJI_SEQUENCES


def test_the_table_aligns_emoji_sequences(run_cli: Any) -> None:
    query = (
        "SELECT v AS name, n FROM (VALUES (1, '\U0001f469\u200d\U0001f4bb dev'),"
        " (2, '\U0001f1e9\U0001f1ea de'), (3, '\U0001f44d\U0001f3fd ok'), (4, 'plain'))"
        " t(n, v) ORDER BY n"
    )
    res = run_cli("sql", query, "--format", "table")
    assert res.exit_code == 0
    assert res.stdout.split("\n") == [
        "name    n",
        "------  -",
        "\U0001f469\u200d\U0001f4bb dev  1",
        "\U0001f1e9\U0001f1ea de   2",
        "\U0001f44d\U0001f3fd ok   3",
        "plain   4",
        "",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "empty", "--history", "h.jsonl", "--format", "json"],
        ["extract", "bad.jsonl", "--history", "h.jsonl", "--format", "json"],
        ["report", "--history", "none.jsonl", "--format", "json"],
        ["report", "--history", "none.jsonl", "--format", "csv"],
        ["recommend", "team.yaml", "--history", "none.jsonl", "--format", "json"],
        ["export", "--to", "x.parquet", "--history", "none.jsonl"],
        # a history whose every line is skipped, as input whose every line is rejected
        ["report", "--history", "bad.jsonl", "--format", "csv"],
        ["summary", "--history", "bad.jsonl", "--format", "json"],
        ["sql", "FROM history", "--history", "bad.jsonl", "--format", "json"],
        ["pipeline", "--report", "--history", "bad.jsonl", "--format", "csv"],
        ["history", "check", "none.jsonl", "--format", "json"],
        ["pipeline", "empty", "--format", "json", "--no-history"],
        ["pipeline", "bad.jsonl", "--format", "csv", "--no-history"],
        ["pipeline", "--report", "--history", "none.jsonl", "--format", "json"],
        ["plugin", "score", "empty", "--format", "json", "--no-history"],
        ["plugin", "rank", "empty", "--format", "csv"],
        ["routes", "empty", "--format", "json"],
        ["routes", "export-router-rows", "empty", "--format", "json"],
        ["nightly", "--root", "empty", "--out", "out", "--format", "json"],
    ],
)
def test_nothing_readable_writes_no_document(tmp_path: Path, run_cli: Any, args: list[str]) -> None:
    """Exit 3 leaves stdout empty, in every command and format: an empty document (``[]``,
    a header-only CSV) would read as "read, and no rows", which is not what happened. A
    consumer that parses stdout fails to parse, as it should; the exit code and stderr
    say why (README, "Exit codes")."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.jsonl").write_text("not json\n")
    (tmp_path / "team.yaml").write_text("name: t\ncheck: [guardian]\n")
    res = run_cli(*args)
    assert (res.exit_code, res.stdout) == (3, "")
    assert res.stderr.startswith("error: ")


#: Options the command took and then ignored without a word, with what it now says.
IGNORED_TOGETHER = {
    "pipeline --history --no-history": (
        ["pipeline", "TASKS", "--history", "p.jsonl", "--no-history"],
        "--history and --no-history cannot be given together: --no-history appends to none",
    ),
    "pipeline --no-history --history (the default's path)": (
        ["pipeline", "TASKS", "--no-history", "--history", ".archeflow/memory/pipelines.jsonl"],
        "--history and --no-history cannot be given together: --no-history appends to none",
    ),
    "pipeline --no-history --lock-timeout": (
        ["pipeline", "TASKS", "--no-history", "--lock-timeout", "5"],
        "--lock-timeout and --no-history cannot be given together: with no history there is "
        "no lock to wait for",
    ),
    "pipeline --period": (
        ["pipeline", "TASKS", "--no-history", "--period", "week"],
        "--period needs --report: it is the period of --report's trend rows",
    ),
    "pipeline --report --out": (
        ["pipeline", "--report", "--history", "p.jsonl", "--out", "o"],
        "--out and --report cannot be given together: --report writes no report files",
    ),
    "pipeline --report --no-history": (
        ["pipeline", "--report", "--no-history"],
        "--no-history and --report cannot be given together: --report reads the history",
    ),
    "pipeline --report --date": (
        ["pipeline", "--report", "--history", "p.jsonl", "--date", "2026-01-01"],
        "--date and --report cannot be given together: --report reads every record",
    ),
    "pipeline --report --lock-timeout": (
        ["pipeline", "--report", "--history", "p.jsonl", "--lock-timeout", "1"],
        "--lock-timeout and --report cannot be given together: --report takes no lock",
    ),
    "plugin score --history --no-history": (
        ["plugin", "score", "SKILLS", "--history", "s.jsonl", "--no-history"],
        "--history and --no-history cannot be given together: --no-history appends to none",
    ),
    "plugin score --no-history --lock-timeout": (
        ["plugin", "score", "SKILLS", "--lock-timeout", "0", "--no-history"],
        "--lock-timeout and --no-history cannot be given together: with no history there is "
        "no lock to wait for",
    ),
    "extract --dry-run --lock-timeout": (
        ["extract", "SAMPLE", "--history", "h.jsonl", "--dry-run", "--lock-timeout", "9"],
        "--dry-run and --lock-timeout cannot be given together: a dry run takes no lock",
    ),
    "extract --dry-run --full": (
        ["extract", "SAMPLE", "--history", "h.jsonl", "--full", "--dry-run"],
        "--dry-run and --full cannot be given together: a dry run reads every file given (it "
        "consults no manifest)",
    ),
    "history repair --lock-timeout": (
        ["history", "repair", "h.jsonl", "--lock-timeout", "1"],
        "--lock-timeout needs --in-place: only --in-place takes the history's lock",
    ),
}


@pytest.mark.parametrize("case", sorted(IGNORED_TOGETHER))
def test_an_option_the_command_would_ignore_is_a_usage_error(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    # Each was taken and dropped without a word (`pipeline TASKS --history X --no-history`
    # appended nowhere; `--report --out o` wrote nothing there; `--period` without
    # `--report` changed nothing): said now, before anything is read or written.
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    args, message = IGNORED_TOGETHER[case]
    paths = {
        "TASKS": str(fixtures / "pipeline" / "tasks.jsonl"),
        "SKILLS": str(fixtures / "plugin"),
        "SAMPLE": str(SAMPLE),
    }
    args = [paths.get(a, a) for a in args]
    (tmp_path / "h.jsonl").write_text('{"torn": \n')
    (tmp_path / "p.jsonl").write_text("")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    res = run_cli(*args)
    command = " ".join(args[:2] if args[0] in ("plugin", "history") else args[:1])
    assert _one_usage_line(res, f"runscore {command}") == message
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


#: A usage error the engine raises (``runscore.engine.errors.UsageError``, said by the
#: group) for every command ``runscore --help`` lists (each of a group's): (args, the
#: command whose help it points to, its message).
ENGINE_USAGE_ERRORS: dict[str, tuple[list[str], str, str]] = {
    "extract": (
        ["extract", "SAMPLE", "--sql-version", "v9", "--dry-run"],
        "extract",
        'unknown scoring version "v9" (have: archeflow-legacy, v1)',
    ),
    "report": (
        ["report", "--sql-version", "v9"],
        "report",
        'unknown scoring version "v9" (have: archeflow-legacy, v1, all)',
    ),
    "recommend": (
        ["recommend", "team.yaml", "--sql-version", "all"],
        "recommend",
        "recommend works on one scoring version; --sql-version all is for report",
    ),
    "summary": (
        ["summary", "--sql-version", "all"],
        "summary",
        "summary works on one scoring version; --sql-version all is for report",
    ),
    "export": (
        ["export", "--to", "x.txt"],
        "export",
        "x.txt: export writes FILE.parquet or FILE.duckdb",
    ),
    "sql": (
        ["sql", "DELETE FROM history"],
        "sql",
        "refused: runscore sql is read-only and runs only SELECT queries (got DELETE)",
    ),
    "pipeline": (
        ["pipeline", "TASKS", "--date", "2026-02-30", "--no-history"],
        "pipeline",
        '--date "2026-02-30" is not a date in YYYY-MM-DD form',
    ),
    "pipeline --report TASKS": (
        ["pipeline", "--report", "TASKS"],
        "pipeline",
        "--report reads the history only; give no TASKS or --plans",
    ),
    "plugin score": (
        ["plugin", "score", "SKILLS", "--judge", "nope.jsonl", "--no-history"],
        "plugin score",
        "--judge nope.jsonl: no such file",
    ),
    "plugin rank": (
        ["plugin", "rank", "SKILLS", "--mc", "nope.jsonl"],
        "plugin rank",
        "--mc nope.jsonl: no such file",
    ),
    "routes": (
        ["routes", "e.jsonl", "--as-of", "garbage"],
        "routes report",
        '--as-of: not an ISO date-time: "garbage"',
    ),
    "routes export-router-rows": (
        ["routes", "export-router-rows", "e.jsonl", "--as-of", "garbage"],
        "routes export-router-rows",
        '--as-of: not an ISO date-time: "garbage"',
    ),
    "nightly": (
        ["nightly", "--root", ".", "--date", "2026-02-30"],
        "nightly",
        '--date "2026-02-30" is not a date in YYYY-MM-DD form',
    ),
    "history check": (
        ["history", "check", "."],
        "history check",
        ".: the history must be a file, not a directory",
    ),
    "history repair": (
        ["history", "repair", "h.jsonl", "--in-place", "--out", "o.jsonl"],
        "history repair",
        "give either --out or --in-place, not both",
    ),
}


@pytest.mark.parametrize("case", sorted(ENGINE_USAGE_ERRORS))
def test_a_usage_error_the_engine_raises_says_where_the_help_is(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    # click's own usage errors said where the help is; the engine's (a bad --date, a
    # refused query, --report with TASKS) were said without it.
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    args, command, message = ENGINE_USAGE_ERRORS[case]
    paths = {
        "TASKS": str(fixtures / "pipeline" / "tasks.jsonl"),
        "SKILLS": str(fixtures / "plugin"),
        "SAMPLE": str(SAMPLE),
    }
    (tmp_path / "h.jsonl").write_text('{"torn": \n')
    (tmp_path / "team.yaml").write_text("plan: [explorer]\n")
    (tmp_path / "e.jsonl").write_text("")
    res = run_cli(*[paths.get(a, a) for a in args])
    assert _one_usage_line(res, f"runscore {command}") == message


def test_a_setting_the_command_cannot_take_says_where_the_help_is(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A variable the command cannot take is a usage error (README "Environment"), said as
    # every other: with where the help is.
    monkeypatch.setenv("RUNSCORE_THREADS", "0")
    said = _one_usage_line(run_cli("report"), "runscore report")
    assert said == 'RUNSCORE_THREADS must be a whole number of threads (1 or more), not "0"'


#: Every input that takes ``-`` for standard input, given it twice (``pipeline - --plans
#: -``, two inputs, is tests/pipeline/test_cli.py's): (args, the command whose help the
#: error points to, how it names where ``-`` was given).
STDIN_TWICE: dict[str, tuple[list[str], str, str]] = {
    "extract - -": (["extract", "-", "-", "--history", "h.jsonl"], "extract", "twice as PATHS"),
    "routes - -": (["routes", "-", "-"], "routes report", "twice as PATHS"),
    "routes export-router-rows - -": (
        ["routes", "export-router-rows", "-", "-"],
        "routes export-router-rows",
        "twice as PATHS",
    ),
    "sql --events - --events -": (
        ["sql", "SELECT 1", "--events", "-", "--events", "-"],
        "sql",
        "twice as --events",
    ),
    "export --events - --events -": (
        ["export", "--to", "x.parquet", "--events", "-", "--events", "-"],
        "export",
        "twice as --events",
    ),
    "pipeline - -": (["pipeline", "-", "-", "--out", "o"], "pipeline", "twice as TASKS"),
    "pipeline --plans - --plans -": (
        ["pipeline", "TASKS", "--plans", "-", "--plans", "-", "--out", "o"],
        "pipeline",
        "twice as --plans",
    ),
}


@pytest.mark.parametrize("case", sorted(STDIN_TWICE))
def test_standard_input_given_twice_is_a_usage_error(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    # The first `-` read all of standard input and the second read it empty: an input
    # that held nothing, without a word (`extract - -` scored once, `sql --events -
    # --events -` held each event once). Refused before anything is read or written.
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    args, command, where = STDIN_TWICE[case]
    args = [str(fixtures / "pipeline" / "tasks.jsonl") if a == "TASKS" else a for a in args]
    res = run_cli(*args, input=(SAMPLE / "run-2026-11-01.jsonl").read_bytes())
    assert _one_usage_line(res, f"runscore {command}") == (
        f"- (standard input) is given {where}: it can be read only once (write one of them "
        "to a file)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


#: Arguments that clash, with a file named that does not exist, is a folder, or holds a
#: history that cannot be read: (args, the command whose help the error points to, the message).
#: The clash is said first, before any file is looked at, as click's own usage errors are.
ARGUMENTS_BEFORE_FILES: dict[str, tuple[list[str], str, str]] = {
    "history repair --in-place --out": (
        ["history", "repair", "MISSING", "--in-place", "--out", "o.jsonl"],
        "history repair",
        "give either --out or --in-place, not both",
    ),
    "sql QUERY --schema": (
        ["sql", "SELECT 1", "--schema", "--pipelines", "folder"],
        "sql",
        "give either a QUERY or --schema, not both",
    ),
    "sql (no QUERY)": (
        ["sql", "--pipelines", "folder"],
        "sql",
        "missing QUERY (or use --schema to list the views)",
    ),
    "sql --format parquet": (
        ["sql", "SELECT * FROM history", "--format", "parquet", "--history", "torn.jsonl"],
        "sql",
        "--format parquet needs --output FILE.parquet",
    ),
}


@pytest.mark.parametrize("case", sorted(ARGUMENTS_BEFORE_FILES))
def test_a_clash_of_arguments_is_said_before_any_file_is_read(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    # `history repair MISSING --in-place --out X` said the history was missing (exit 3),
    # and only once it existed that the options clash; `sql` read the pipeline history
    # (exit 3 when it had no usable line) and ran the query before its arguments' errors.
    (tmp_path / "torn.jsonl").write_text('{"torn": \n')
    (tmp_path / "folder").mkdir()
    args, command, message = ARGUMENTS_BEFORE_FILES[case]
    assert _one_usage_line(run_cli(*args), f"runscore {command}") == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "torn.jsonl"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv"])
def test_sql_output_dash_is_standard_output(run_cli: Any, tmp_path: Path, fmt: str) -> None:
    # `--output -` wrote a file named "-" in the current folder (stdout empty, exit 0): `-`
    # is standard input among the inputs, and standard output to a user here.
    query = "SELECT 1 AS a, 'x' AS b"
    res = run_cli("sql", query, "--history", "none.jsonl", "--format", fmt, "--output", "-")
    plain = run_cli("sql", query, "--history", "none.jsonl", "--format", fmt)
    assert (res.exit_code, res.stdout, res.stderr) == (0, plain.stdout, plain.stderr)
    assert (
        res.stdout
        == {
            "table": "a  b\n-  -\n1  x\n",
            "markdown": "| a | b |\n|---|---|\n| 1 | x |\n",
            "json": '[\n  {\n    "a": 1,\n    "b": "x"\n  }\n]\n',
            "csv": "a,b\n1,x\n",
        }[fmt]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # a file named "-" is ./-, as among the inputs
    assert run_cli("sql", query, "--history", "none.jsonl", "--output", "./-").stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["-"]


#: Outputs that are a file or folder runscore writes (not data on stdout), given `-`:
#: (args, the command whose help the error points to, the message).
DASH_OUTPUTS: dict[str, tuple[list[str], str, str]] = {
    "sql --format parquet --output -": (
        ["sql", "SELECT 1", "--format", "parquet", "--output", "-"],
        "sql",
        "--format parquet needs --output FILE.parquet: Parquet is binary, written to a file, "
        "not to standard output (-)",
    ),
    "export --to -": (
        ["export", "--to", "-", "--history", "h.jsonl"],
        "export",
        "--to -: export writes files (FILE.parquet or FILE.duckdb), not to standard output "
        "(./- names a file called -)",
    ),
    "history repair --out -": (
        ["history", "repair", "h.jsonl", "--out", "-"],
        "history repair",
        "--out -: the repaired copy is written to a file, not to standard output (./- names "
        "a file called -)",
    ),
    "pipeline --out -": (
        ["pipeline", "TASKS", "--out", "-", "--no-history"],
        "pipeline",
        "--out -: the reports are written to a folder, not to standard output (./- names a "
        "folder called -)",
    ),
    "plugin score --out -": (
        ["plugin", "score", "SKILLS", "--out", "-", "--no-history"],
        "plugin score",
        "--out -: the report is written to a folder, not to standard output (./- names a "
        "folder called -)",
    ),
    "nightly --out -": (
        ["nightly", "--root", "ROOT", "--out", "-"],
        "nightly",
        "--out -: the day's reports are written to a folder, not to standard output (./- "
        "names a folder called -)",
    ),
}


@pytest.mark.parametrize("case", sorted(DASH_OUTPUTS))
def test_an_output_file_or_folder_given_dash_is_a_usage_error(
    run_cli: Any, tmp_path: Path, case: str
) -> None:
    # Each wrote a file or folder named "-" in the current folder (history repair printed
    # "-" as the path of its copy; pipeline said "wrote 10 report file(s) to -").
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    args, command, message = DASH_OUTPUTS[case]
    paths = {
        "TASKS": str(fixtures / "pipeline" / "tasks.jsonl"),
        "SKILLS": str(fixtures / "plugin"),
        "ROOT": "root",
    }
    history = fixtures.parent / "analytics" / "data" / "history.jsonl"
    (tmp_path / "h.jsonl").write_bytes(history.read_bytes())
    shutil.copytree(SAMPLE, tmp_path / "root" / ".archeflow" / "events")
    res = run_cli(*[paths.get(a, a) for a in args])
    assert _one_usage_line(res, f"runscore {command}") == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "root"]
    assert sorted(p.name for p in (tmp_path / "root" / ".archeflow").iterdir()) == ["events"]
