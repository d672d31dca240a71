"""Every pack's messages quote an input value by one rule (``quoting.quote`` in Python,
``rs_quote`` in SQL): its JSON text, a blank-looking or bidi character written ``\\uXXXX``,
cut visibly at 80 characters. They quoted with Python's ``repr`` (``'a\\tb'``) or not at
all, so a tab, a line break or a bidi override in a run id, key, skill, judge or flag value
was written as it is, or as ``\\t`` that read alike with a backslash and a ``t``.

A path in a ``file:line: reason`` prefix is written as it is unless it holds a character
that cannot be seen or would break or steer the line: then it is quoted the same way (and
never cut), so that the tools that parse ``file:line:`` keep working on every plain path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness

REPO = Path(__file__).resolve().parents[2]
TASKS = str(REPO / "tests" / "fixtures" / "pipeline" / "tasks.jsonl")

#: A tab, a line break, ESC, a right-to-left override, a quote and a backslash.
HOSTILE = 'a\tb\nc\x1bd\u202ee"f\\g'
#: ``HOSTILE`` as every message quotes it, written out: the test's own expectation.
QUOTED = '"a\\tb\\nc\\u001Bd\\u202ee\\"f\\\\g"'
LONG = "x" * 200
#: 200 characters: the first 77 after the opening quote, then a visible cut.
LONG_QUOTED = '"' + "x" * 77 + '…"'

NOT_JSON = "not JSON: Expecting value: line 1 column 1 (char 0)"

VALUES = [(HOSTILE, QUOTED), (LONG, LONG_QUOTED)]
IDS = ["hostile", "200-chars"]


def _error(message: str, command: str) -> str:
    return f"error: {message} (see 'cli {command} --help')\n"


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_pipeline_quotes_a_flag_value(run_cli: Any, value: str, quoted: str) -> None:
    r = run_cli("pipeline", TASKS, "--no-history", "--date", value)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == _error(f"--date {quoted} is not a date in YYYY-MM-DD form", "pipeline")


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_nightly_quotes_a_flag_value(run_cli: Any, value: str, quoted: str) -> None:
    r = run_cli("nightly", "--date", value)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == _error(f"--date {quoted} is not a date in YYYY-MM-DD form", "nightly")


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_effectiveness_quotes_a_scoring_version(run_cli: Any, value: str, quoted: str) -> None:
    r = run_cli("extract", TASKS, "--dry-run", "--sql-version", value)
    assert (r.exit_code, r.stdout) == (2, "")
    have = "archeflow-legacy, v1"
    assert r.stderr == _error(f"unknown scoring version {quoted} (have: {have})", "extract")
    r = run_cli("report", "--sql-version", value)
    assert r.stderr == _error(f"unknown scoring version {quoted} (have: {have}, all)", "report")


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_a_team_file_quotes_a_key(run_cli: Any, tmp_path: Path, value: str, quoted: str) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(f"name: t\nmodel_overrides:\n  {json.dumps(value)}: 5\n", encoding="utf-8")
    r = run_cli("recommend", str(team))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == _error(
        f"{team}: model_overrides[{quoted}]: expected a model name, got 5", "recommend"
    )


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_extract_quotes_a_run_id_and_a_path_that_needs_it(
    run_cli: Any, tmp_path: Path, value: str, quoted: str
) -> None:
    start = {"run_id": value, "type": "run.start", "seq": 1, "ts": "2026-01-01T00:00:00Z"}
    for name, shown in (("plain.jsonl", "plain.jsonl"), ("ev\tx.jsonl", '"ev\\tx.jsonl"')):
        (tmp_path / name).write_text(json.dumps(start) + "\nnot json\n", encoding="utf-8")
        r = run_cli("extract", name, "--dry-run")
        assert r.exit_code == 1
        assert r.stderr.splitlines()[:2] == [
            f"{shown}:2: {NOT_JSON}",
            f"run {quoted}: incomplete: no run.complete event",
        ]


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_extract_quotes_a_run_complete_ts_and_a_parent_value(
    run_cli: Any, tmp_path: Path, value: str, quoted: str, version: str
) -> None:
    # The extract's SQL wrote the ts between single quotes as it was, and a parent value
    # as its JSON text (a bidi override as it is, 200 characters whole): its files run on
    # two connections, and the quote's macros were on one only.
    lines = [
        {"run_id": "r", "seq": 1, "type": "run.start"},
        {"run_id": "r", "seq": 2, "parent": [1, value, 7.5], "type": "note"},
        {"run_id": "r", "seq": 3, "parent": [2], "type": "run.complete", "ts": value},
    ]
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run_cli("extract", "e.jsonl", "--dry-run", "--sql-version", version)
    assert (r.exit_code, r.stdout) == (0, "")
    parent = f"warning: e.jsonl:2: parent value {quoted}, 7.5 ignored: not an integer seq"
    ts = (
        f"warning: e.jsonl:3: run.complete ts {quoted} is not an ISO-8601 time: "
        "the run's time is unknown"
    )
    # archeflow-legacy walks no parent edges (spec §8), so warns of none
    said = [parent, ts] if version == "v1" else [ts]
    assert r.stderr.splitlines()[:-1] == said  # then the counts


def test_an_invalid_runs_locations_quote_a_path_that_needs_it(run_cli: Any, tmp_path: Path) -> None:
    # The file:line locations in the parentheses were joined as they were: a path holding
    # a line break split the message, one holding a bidi override reordered it.
    lines = [
        {"run_id": "bad", "seq": 1, "type": "run.start"},
        {"run_id": "bad", "seq": 1, "type": "run.start", "agent": "x"},
        {"run_id": "bad", "seq": 2, "parent": [1], "type": "run.complete"},
    ]
    text = "".join(json.dumps(x) + "\n" for x in lines)
    for name, shown in (("p:1.jsonl", "p:1.jsonl"), ("e\nx\u202e.jsonl", '"e\\nx\\u202e.jsonl"')):
        (tmp_path / name).write_text(text, encoding="utf-8")
        r = run_cli("extract", name, "--dry-run")
        assert r.exit_code == 1
        reason = f"conflicting duplicate events for seq 1 ({shown}:1, {shown}:2)"
        assert r.stderr.splitlines()[0] == f'run "bad": invalid: {reason}'
        # the Python API's problems() (score_runs' warning, the nightly run log) alike
        res = effectiveness.extract([name], None, write=False)  # in tmp_path, as the CLI
        assert [p.reason for p in res.problems()] == [f'run "bad" not scored: {reason}']
        (tmp_path / name).unlink()


@pytest.mark.parametrize(("value", "quoted"), VALUES, ids=IDS)
def test_plugin_quotes_a_frontmatter_key_a_skill_and_a_judge(
    run_cli: Any, tmp_path: Path, value: str, quoted: str
) -> None:
    skill = tmp_path / "sk" / "s\u202ek"
    skill.mkdir(parents=True)
    key = json.dumps(value)
    (skill / "SKILL.md").write_text(f"---\n{key}: 1\n{key}: 2\n---\nbody\n", encoding="utf-8")
    lines = [
        {"skill": value, "judge": "j", "scores": {"output_quality": 0.5}},
        {"skill": "s\u202ek", "judge": value, "scores": {"output_quality": 0.5}},
        {"skill": "s\u202ek", "judge": value, "scores": {value: 0.5, "output_quality": value}},
    ]
    (tmp_path / "j.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run_cli("plugin", "score", "sk", "--no-history", "--judge", "j.jsonl")
    assert r.exit_code == 1
    dims = "triggering_accuracy, orchestration_fitness, output_quality and scope_calibration"
    assert r.stderr.splitlines() == [
        f"j.jsonl:1: no scored skill matches skill {quoted}",
        f"j.jsonl:2: judge {quoted} scored this skill again later; this line is ignored",
        f"j.jsonl:3: scores.output_quality = {quoted} is not a number; treated as unmeasured",
        # the path holds a bidi override: quoted, as a value is
        f'warning: "sk/s\\u202ek/SKILL.md":3: frontmatter key {quoted} is given twice '
        "(first on line 2); YAML requires keys to be unique: the last value is read",
        f"warning: j.jsonl:3: scores.{quoted} ignored: judges score only {dims}",
        "scored 1 skill(s)",
    ]


def test_a_plain_path_is_written_as_it_is(run_cli: Any, tmp_path: Path) -> None:
    # Quotes, spaces, colons and backslashes need no quote in a path: nothing is hidden.
    name = 'a b:c\\d"e.jsonl'
    (tmp_path / name).write_text('{"run_id": "r", "type": "run.start"}\nnot json\n')
    r = run_cli("extract", name, "--dry-run")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == f"{name}:2: {NOT_JSON}"


def test_a_tab_or_a_c1_control_in_a_message_is_written_escaped(
    run_cli: Any, tmp_path: Path
) -> None:
    # A tab and a C1 control (U+009B, CSI: it starts a terminal escape sequence) reached
    # stderr as they were, where the markdown reports write "\\t" and "\\x9b": a tab read as
    # a column break by cut -f, a CSI acted on the terminal. DuckDB names a column of the
    # query as it was given, and a C1 control in a path is left in its JSON quote.
    r = run_cli("sql", 'SELECT "a\tb\x9bc" FROM history')
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.startswith(
        'error: query failed: Binder Error: Referenced column "a\\tb\\x9bc" not found'
    )
    (tmp_path / "c\x9bd.jsonl").write_text('{"run_id": "r", "type": "run.start"}\nnot json\n')
    r = run_cli("extract", "c\x9bd.jsonl", "--dry-run")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == f'"c\\x9bd.jsonl":2: {NOT_JSON}'


def test_quoting_path_rule() -> None:
    from runscore.engine.quoting import path

    cases: dict[str, str] = {
        "logs/run.jsonl": "logs/run.jsonl",
        'a"b\\c d:e': 'a"b\\c d:e',
        '"quoted".jsonl': '"\\"quoted\\".jsonl"',  # a bare path never opens with a quote
        "a\tb": '"a\\tb"',
        "a\nb": '"a\\nb"',
        "a\x1bb": '"a\\u001Bb"',
        "a\x85b": '"a\x85b"',  # C1: quoted (the line writer escapes it after)
        "a\u202eb\\": '"a\\u202eb\\\\"',
        "\u00a0x": '"\\u00a0x"',
        "d/" + "x" * 200 + "\t": '"d/' + "x" * 200 + '\\t"',  # never cut
    }
    assert {k: path(k) for k in cases} == cases


def test_a_path_that_begins_a_message_is_quoted_when_it_needs_it(
    run_cli: Any, tmp_path: Path
) -> None:
    # These wrote the path that begins the message (or a file:line: inside it) as it was:
    # a tab read as blanks, a line break split the message.
    (tmp_path / "sk" / "s1").mkdir(parents=True)
    (tmp_path / "sk" / "s1" / "SKILL.md").write_text("---\nname: s1\ndescription: d\n---\nb\n")
    (tmp_path / "h\tdir").mkdir()
    (tmp_path / "h\t.jsonl").write_text('{"run_id": "r", "seq": 1, "type": "run.start"}\n')
    for args, code, said in [
        (
            ["plugin", "score", "sk", "--no-history", "--judge", "no\tsuch.jsonl"],
            2,
            '--judge "no\\tsuch.jsonl": no such file',
        ),
        (
            ["pipeline", "--report", "--history", "h\tdir"],
            2,
            '"h\\tdir": the history must be a file, not a directory',
        ),
        (
            ["pipeline", "--report", "--history", "no\thist.jsonl"],
            3,
            '"no\\thist.jsonl": no pipeline history (run `runscore pipeline` first)',
        ),
        (
            ["report", "--history", "h\tdir"],
            2,
            '"h\\tdir": the history must be a file, not a directory',
        ),
        (
            # (a run log: refused as the history, not left out as one)
            ["extract", "h\t.jsonl", "--history", "h\t.jsonl"],
            2,
            '"h\\t.jsonl": that is the run log "h\\t.jsonl" the extract reads (PATHS); choose '
            "another --history",
        ),
        (
            ["sql", "SELECT 1", "--history", "h\t.jsonl", "--output", "h\t.jsonl.lock"],
            2,
            '"h\\t.jsonl.lock": runscore keeps that file beside the history "h\\t.jsonl" (a '
            "lock, the extract manifest, the cache, the nightly journal or the pipeline "
            "history): writing the "
            "result there would replace it; choose another --output",
        ),
    ]:
        r = run_cli(*args)
        assert (r.exit_code, r.stdout) == (code, ""), args
        assert r.stderr.startswith(f"error: {said}"), args


def test_a_path_inside_a_message_of_the_history_commands_is_quoted_when_it_needs_it(
    run_cli: Any, tmp_path: Path
) -> None:
    # These wrote the path (--history, --out, --to, --output) as it was: a tab read as
    # blanks, so the message named a file that is not there.
    (tmp_path / "h\t.jsonl").write_text("")
    (tmp_path / "bad\t.jsonl").write_text("junk\n")
    (tmp_path / "e\t.jsonl").write_text("")
    (tmp_path / "d\tir").mkdir()
    (tmp_path / "a\tfile").write_text("")
    bad_listed = '  "bad\\t.jsonl":1: not JSON: Expecting value: line 1 column 1 (char 0)\n'
    for args, code, said in [
        (
            ["report", "--history", "no\t.jsonl"],
            3,
            'no effectiveness history at "no\\t.jsonl"; run `runscore extract` first\n',
        ),
        (
            ["export", "--to", "e\t.parquet", "--history", "no\t.jsonl"],
            3,
            'no effectiveness history at "no\\t.jsonl"; nothing to export\n',
        ),
        (
            ["report", "--history", "bad\t.jsonl"],
            3,
            'no line of the history "bad\\t.jsonl" could be read:\n' + bad_listed,
        ),
        (
            ["history", "repair", "bad\t.jsonl"],
            3,
            'no line of the history "bad\\t.jsonl" could be read: a repaired copy would '
            "hold none, so none is written (--force writes it empty):\n" + bad_listed,
        ),
        (
            ["export", "--to", "x\t.csv", "--history", "h\t.jsonl"],
            2,
            "\"x\\t.csv\": export writes FILE.parquet or FILE.duckdb (see 'cli export --help')\n",
        ),
        (
            ["export", "--to", "a\tfile/x.parquet", "--history", "h\t.jsonl"],
            2,
            f'"a\\tfile/x.parquet": cannot write the export: "{tmp_path}/a\\tfile" '
            "is not a folder\n",
        ),
        (
            ["sql", "SELECT 1", "--history", "h\t.jsonl", "--output", "h\t.jsonl"],
            2,
            '"h\\t.jsonl": that is the history "h\\t.jsonl" the query reads; choose another '
            "--output (see 'cli sql --help')\n",
        ),
        (
            ["sql", "SELECT 1", "--output", "a\tfile/x.csv", "--format", "csv"],
            2,
            f'"a\\tfile/x.csv": cannot write the result: "{tmp_path}/a\\tfile" is not a folder\n',
        ),
        (
            ["history", "repair", "h\t.jsonl", "--out", "h\t.jsonl"],
            2,
            '"h\\t.jsonl": that is the history itself; use --in-place '
            "(see 'cli history repair --help')\n",
        ),
        (
            ["history", "repair", "h\t.jsonl", "--out", "e\t.jsonl"],
            2,
            '"e\\t.jsonl": exists; choose another --out or add --force '
            "(see 'cli history repair --help')\n",
        ),
        (
            ["history", "repair", "h\t.jsonl", "--out", "d\tir"],
            2,
            "\"d\\tir\": is a directory; give a file as --out (see 'cli history repair --help')\n",
        ),
    ]:
        r = run_cli(*args)
        assert (r.exit_code, r.stdout) == (code, ""), args
        assert r.stderr.endswith(f"error: {said}"), (args, r.stderr)


def test_export_names_a_removed_event_table_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    # The note began with the table's path as it was: a tab read as blanks.
    hh.write_jsonl(tmp_path / "ev" / "a.jsonl", hh.run_events("r1"))
    (tmp_path / "h.jsonl").write_text("")
    (tmp_path / "t\td").mkdir()
    first = run_cli("export", "--to", "t\td/e.parquet", "--history", "h.jsonl", "--events", "ev")
    assert first.exit_code == 0, first.stderr
    r = run_cli("export", "--to", "t\td/e.parquet", "--history", "h.jsonl")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        '"t\\td/e.events.parquet": removed: an earlier export\'s event table '
        "(this export has no --events)"
    )


def test_pipeline_and_plugin_notes_name_a_path_as_it_is_quoted(
    run_cli: Any, tmp_path: Path
) -> None:
    # These wrote the path as it was, mid-message or opening it: a tab read as blanks, so
    # the note named a file that is not there (the plan's estimate "at p<TAB>l.jsonl:2",
    # its file:line: prefix quoted on the same line).
    (tmp_path / "t.jsonl").write_text(Path(TASKS).read_text().splitlines()[0] + "\n")
    plans = [
        {"pipelineId": "p-excellent", "estimatedDurationMinutes": 10},
        {"pipelineId": "p-excellent", "estimatedDurationMinutes": 20},
    ]
    (tmp_path / "p\tl.jsonl").write_text("".join(json.dumps(x) + "\n" for x in plans))
    (tmp_path / "e\t.jsonl").write_text("")
    (tmp_path / "o\tut").mkdir()
    r = run_cli(
        "pipeline", "t.jsonl", "e\t.jsonl", "--plans", "p\tl.jsonl",
        "--history", "h\t.jsonl", "--out", "o\tut",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    plan = (
        'plan for pipeline "p-excellent" is given again with another estimate at '
        '"p\\tl.jsonl":2, which is used; this one is ignored'
    )
    assert r.stderr.splitlines() == [
        '"e\\t.jsonl": empty (no task snapshots)',
        f'warning: "p\\tl.jsonl":1: {plan}',
        'wrote 4 report file(s) to "o\\tut"',
        'history "h\\t.jsonl": 1 new record(s)',
    ]
    # the summary's JSON and markdown say it alike (markdown writes a backslash doubled)
    (summary,) = (tmp_path / "o\tut").glob("pipeline-eval-summary-*.json")
    assert [d["reason"] for d in json.loads(summary.read_text())["issues"]] == [plan]
    assert (
        r'- warning: "p\\tl.jsonl":1: plan for pipeline "p-excellent" is given again with '
        r'another estimate at "p\\tl.jsonl":2, which is used; this one is ignored'
    ) in summary.with_suffix(".md").read_text().splitlines()
    (tmp_path / "z\t.jsonl").write_text("")
    r = run_cli("pipeline", "--report", "--history", "z\t.jsonl")
    assert (r.exit_code, r.stderr) == (0, '"z\\t.jsonl": no pipeline/v1 pipeline records\n')
    (tmp_path / "j\t.jsonl").write_text('{"x": 1}\n')
    r = run_cli("pipeline", "--report", "--history", "j\t.jsonl")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == (
        'error: no line of the pipeline history "j\\t.jsonl" could be read:\n'
        '  "j\\t.jsonl":1: history line has no pipeline_id\n'
    )
    skills = str(REPO / "tests" / "fixtures" / "plugin")
    r = run_cli("plugin", "score", skills, "--history", "h\tp.jsonl", "--out", "o\tut")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [
        'wrote 4 file(s) to "o\\tut"',
        "scored 3 skill(s)",
        'history "h\\tp.jsonl": 3 new record(s)',
    ]


#: What the readers and the appenders say of a history whose lines end in CR alone.
CR_ONLY = (
    "lines end in CR only (old Mac line ends): runscore reads JSONL, whose lines end in "
    "LF (convert it first, e.g. tr '\\r' '\\n')"
)


def test_a_history_whose_lines_end_in_cr_is_named_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path
) -> None:
    # Refused before anything is scored (history.check_appendable), by every command that
    # appends, in the same words; `plugin score` said it with exit 3 from under the lock.
    (tmp_path / "c\tr.jsonl").write_bytes(b'{"a": 1}\r{"b": 2}\r')
    why = CR_ONLY
    skills = str(REPO / "tests" / "fixtures" / "plugin")
    events = str(REPO / "examples" / "project" / ".archeflow" / "events")
    for args in (
        ("plugin", "score", skills, "--format", "json"),
        ("pipeline", TASKS, "--out", "o"),
        ("extract", events),
    ):
        r = run_cli(*args, "--history", "c\tr.jsonl")
        command = " ".join(args[:2] if args[0] == "plugin" else args[:1])
        assert (r.exit_code, r.stdout) == (2, ""), command
        assert r.stderr == f"error: \"c\\tr.jsonl\": {why} (see 'cli {command} --help')\n"


def test_a_history_its_readers_refuse_whole_is_named_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path
) -> None:
    # The readers of the effectiveness history (report, summary, sql, history check, and
    # history repair under its lock) named it as it was: `error: c<TAB>r.jsonl: lines end
    # in CR only ...`, where the appenders quote it.
    (tmp_path / "c\tr.jsonl").write_bytes(b'{"a": 1}\r{"b": 2}\r')
    why = CR_ONLY
    for args in (
        ("report", "--history", "c\tr.jsonl"),
        ("summary", "--history", "c\tr.jsonl"),
        ("sql", "SELECT count(*) FROM history", "--history", "c\tr.jsonl"),
        ("history", "check", "c\tr.jsonl"),
    ):
        r = run_cli(*args)
        command = " ".join(args[:2] if args[0] == "history" else args[:1])
        assert (r.exit_code, r.stdout) == (2, ""), command
        assert r.stderr == _error(f'"c\\tr.jsonl": {why}', command), command


def test_extract_names_its_history_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    hh.write_jsonl(tmp_path / "ev.jsonl", hh.run_events("r1"))
    tail = (
        "; 0 already scored, 0 incomplete, 0 invalid, 0 line(s) skipped, 0 warning(s), "
        "0 unchanged file(s) not re-read\n"
    )
    r = run_cli("extract", "ev.jsonl", "--history", "h\t.jsonl", "--dry-run")
    assert (r.exit_code, r.stderr) == (
        0,
        '1 run(s) scored, 2 record(s) would be written to "h\\t.jsonl" (dry run: nothing '
        "written)" + tail,
    )
    r = run_cli("extract", "ev.jsonl", "--history", "h\t.jsonl")
    assert (r.exit_code, r.stderr) == (
        0,
        '1 run(s) scored, 2 record(s) written to "h\\t.jsonl"' + tail,
    )


def test_history_check_repair_and_nightly_name_paths_as_they_are_quoted(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    hh.write_jsonl(tmp_path / ".archeflow" / "events" / "a.jsonl", hh.run_events("r1"))
    r = run_cli("nightly", "--out", "o\tut", "--date", "2026-04-03")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[-1].endswith(f' file(s) in "{tmp_path}/o\\tut/2026-04-03"')
    h = tmp_path / "h\t.jsonl"
    r = run_cli("extract", ".archeflow/events", "--history", "h\t.jsonl")
    assert r.exit_code == 0, r.stderr
    r = run_cli("history", "check", "h\t.jsonl")
    assert (r.exit_code, r.stderr) == (
        0,
        '"h\\t.jsonl": 2 line(s), 2 usable (effectiveness/v1: 2); 0 bad, 0 duplicate\n',
    )
    r = run_cli("history", "repair", "h\t.jsonl", "--in-place")
    assert (r.exit_code, r.stderr) == (0, '"h\\t.jsonl": clean; nothing to repair\n')
    h.write_text(h.read_text() + "junk\n")
    r = run_cli("history", "repair", "h\t.jsonl", "--out", "r\t.jsonl")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[-1] == '"r\\t.jsonl": 2 line(s) kept, 1 dropped'
    r = run_cli("history", "repair", "h\t.jsonl", "--in-place")
    assert r.exit_code == 0, r.stderr
    said = r.stderr.splitlines()[-1]
    assert said.startswith('"h\\t.jsonl": 2 line(s) kept, 1 dropped; backup "h\\t.jsonl.bak-')
    assert said.endswith('"') and "\t" not in said


def test_an_os_error_and_the_temp_dir_name_their_path_as_it_is_quoted(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f\tile").write_text("")
    skills = str(REPO / "tests" / "fixtures" / "plugin")
    r = run_cli("plugin", "score", skills, "--no-history", "--out", "f\tile/sub")
    assert (r.exit_code, r.stderr) == (2, 'error: "f\\tile/sub": Not a directory\n')
    monkeypatch.setenv("RUNSCORE_TEMP_DIR", "f\tile")
    r = run_cli("report", "--history", "h.jsonl")
    assert (r.exit_code, r.stderr) == (
        2,
        'error: RUNSCORE_TEMP_DIR: "f\\tile" is not a folder (DuckDB spills there) '
        "(see 'cli report --help')\n",
    )


def test_the_nightly_s_notes_name_a_root_and_a_history_as_paths_are_quoted(
    run_cli: Any, tmp_path: Path
) -> None:
    # The notes wrote them as they are: a tab, a line break or a U+202E in a root or
    # history path split the note or turned what followed it around.
    (tmp_path / "r\toot").mkdir()
    r = run_cli("nightly", "--root", "r\toot", "--history", "h\n/all.jsonl", "--out", "o")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr.splitlines() == [
        "error: nothing readable: no root had run logs, pack inputs or an existing history",
        '  "r\\toot/.archeflow/events": no event logs (folder missing)',
        '  "h\\n/all.jsonl": no history yet',
    ]
    (tmp_path / "r\u202e/.archeflow").mkdir(parents=True)
    (tmp_path / "r\u202e/.archeflow/memory").write_text("x\n")
    r = run_cli("nightly", "--root", "r\u202e", "--out", "o")
    assert r.exit_code == 3
    assert r.stderr.splitlines()[-1] == (
        '  "r\\u202e/.archeflow/memory/effectiveness.jsonl": no report: '
        f'"{tmp_path}/r\\u202e/.archeflow/memory": a file where a folder is needed'
    )
    (tmp_path / "r\toot/.archeflow/events").mkdir(parents=True)
    r = run_cli("nightly", "--root", "r\toot", "--out", "o")
    assert r.exit_code == 3
    assert r.stderr.splitlines()[1:] == [
        '  "r\\toot/.archeflow/events": no *.jsonl run logs',
        '  "r\\toot/.archeflow/memory/effectiveness.jsonl": no history yet',
    ]


def test_the_nightly_s_note_on_other_versions_names_its_history_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    ev = tmp_path / "p\u202eroj/.archeflow/events"
    hh.write_jsonl(ev / "r.jsonl", hh.run_events("r1"))
    hist = "p\u202eroj/.archeflow/memory/effectiveness.jsonl"
    legacy = run_cli("extract", "--sql-version", "archeflow-legacy", str(ev), "--history", hist)
    assert legacy.exit_code == 0, legacy.stderr
    res = run_cli("nightly", "--root", "p\u202eroj", "--out", "out", "--date", "2026-04-05")
    assert res.exit_code == 0, res.stderr
    [scope] = json.loads((tmp_path / "out/2026-04-05/runlog.json").read_text())["scopes"]
    # The copyable command held the path as it is (shlex.quote): the U+202E turned the
    # note around, and written escaped it would name another file. No command is shown.
    assert scope["notes"] == [
        '"p\\u202eroj/.archeflow/memory/effectiveness.jsonl" also holds archeflow-legacy '
        "lines, not in the nightly's reports (they read its newest scoring version, "
        "effectiveness/v1, as this job was given none): `runscore report --history PATH "
        "--sql-version all`, with this history's path for PATH (quoted by hand: it holds a "
        "character that cannot be shown here), reports them side by side"
    ]
    assert "\u202e" not in (tmp_path / "out/2026-04-05/runlog.md").read_text()


def test_the_nightly_s_note_on_a_history_of_no_usable_line_quotes_its_path_itself(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The note was the first line of the engine's message, taken as it was: had the engine
    # named the path otherwise (as it is), a U+202E or a line break in it reached the run
    # log and stderr unchecked. The note names the path itself, by the rule.
    from runscore.engine.packs import effectiveness_history

    monkeypatch.setattr(effectiveness_history, "quote_path", lambda p: p)
    hist = "h\u202e\n.jsonl"
    (tmp_path / hist).write_text("junk\n")
    (tmp_path / "r").mkdir()
    r = run_cli("nightly", "--root", "r", "--history", hist, "--out", "o", "--format", "json")
    assert r.exit_code == 3
    assert r.stderr.splitlines()[-1] == '  no line of the history "h\\u202e\\n.jsonl" could be read'


def test_the_nightly_run_log_quotes_run_ids_and_paths_as_stderr_does(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    # The run log wrote a run id bare ("(run r1)", "run r1: no run.complete event") where
    # stderr quotes it ("(run \"r1\")"), and a path it names itself (the history, the
    # events folder, an empty file, a root) with only the markdown escape: a U+202E in it
    # was written as it is and turned the rest of the line around.
    ev = tmp_path / "p\u202eroj/.archeflow/events"
    hh.write_jsonl(ev / "a.jsonl", hh.run_events("r\u202e1", cost="lots"))
    hh.write_jsonl(ev / "b.jsonl", hh.run_events("r\u202e2", complete=False))
    (ev / "c.jsonl").write_text("")
    (ev.parent / "teams").mkdir()
    (ev.parent / "teams/t.yaml").write_text("name: t\ncheck: [guardian]\n")
    (ev.parent / "tasks").mkdir()
    (ev.parent / "tasks/t.jsonl").write_text(Path(TASKS).read_text())
    (ev.parent / "tasks/u.jsonl").write_text("")
    res = run_cli("nightly", "--root", "p\u202eroj", "--out", "out", "--date", "2026-04-05")
    assert res.exit_code == 1, res.stderr  # the fixture's task line without an id
    warning = (
        '"p\\u202eroj/.archeflow/events/a.jsonl":2: cost ignored: not a finite non-negative '
        'number (run "r\\u202e1")'
    )
    assert f"warning: {warning}" in res.stderr.splitlines()
    runlog = (tmp_path / "out/2026-04-05/runlog.md").read_text()
    # md writes the quote's backslash doubled: it renders as stderr writes it.
    md = warning.replace("\\", "\\\\")
    assert '| "p\\\\u202eroj" | ok | p_roj-' in runlog
    for line in (
        'History "p\\\\u202eroj/.archeflow/memory/effectiveness.jsonl" (2 usable lines). Run logs '
        'from "p\\\\u202eroj/.archeflow/events".\n',
        '\n- "p\\\\u202eroj/.archeflow/events/c.jsonl": empty file\n',
        '\n- run "r\\\\u202e2": no run.complete event (may still be running)\n',
        f"\n- {md}\n",
        '\n- "p\\\\u202eroj/.archeflow/teams/t.yaml" (discovered): ',
        '\nInputs: "p\\\\u202eroj/.archeflow/tasks/t.jsonl", '
        '"p\\\\u202eroj/.archeflow/tasks/u.jsonl". ',
        '\n- "p\\\\u202eroj/.archeflow/tasks/u.jsonl": empty file\n',
    ):
        assert line in runlog
    index = (tmp_path / "out/2026-04-05/index.md").read_text()
    assert ' · team t ("p\\\\u202eroj/.archeflow/teams/t.yaml", discovered): ' in index


UNSAVED = (
    "manifest not saved: {}; the runs are in the history; these run logs are read again "
    "next time (no run is written twice)"
)


def test_extract_names_a_manifest_it_cannot_save_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any
) -> None:
    # The path was written as the system gave it, a tab and all; a ": " in it was taken
    # for the end of the path by the nightly job, which said the rest as the reason.
    hh.write_jsonl(tmp_path / "ev/a.jsonl", hh.run_events("r1"))
    (tmp_path / "x: y\t.jsonl.manifest.json").mkdir()
    r = run_cli("extract", "ev", "--history", "x: y\t.jsonl", "--format", "json")
    assert r.exit_code == 1, r.stderr
    said = '"x: y\\t.jsonl.manifest.json"'
    assert json.loads(r.stdout)["manifest_error"] == f"{said}: Is a directory"
    assert r.stderr.splitlines()[-1] == f"{said}: {UNSAVED.format('Is a directory')}"


@pytest.mark.parametrize("how", ["folder", "symlink"])
def test_the_nightly_names_a_manifest_it_cannot_save_once_as_a_path_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any, how: str
) -> None:
    # A symlink's message quoted its path already, and the run log quoted it again
    # ("\"r\\toot/...\""); a ": " in a root's path split the file from the reason there.
    root = "a: b\t" if how == "folder" else "r\toot"
    hh.write_jsonl(tmp_path / root / ".archeflow/events/a.jsonl", hh.run_events("r1"))
    mem = tmp_path / root / ".archeflow/memory"
    mem.mkdir()
    if how == "folder":
        (mem / "effectiveness.jsonl.manifest.json").mkdir()
        why = "Is a directory"
    else:
        (mem / "effectiveness.jsonl.manifest.json").symlink_to(tmp_path / "elsewhere.json")
        why = "refusing to write through a symlink"
    r = run_cli("nightly", "--root", root, "--out", "out", "--format", "json")
    assert r.exit_code == 1, r.stderr
    file = f"{root}/.archeflow/memory/effectiveness.jsonl.manifest.json"
    [d] = json.loads(r.stdout)["rejected"]
    assert (d["file"], d["line"]) == (file, 0)
    text = f"{json.dumps(file)}: {UNSAVED.format(why)}"
    assert (d["text"], r.stderr.splitlines()[0]) == (text, text)


@pytest.mark.parametrize("how", ["memory-is-a-file", "utf16-history"])
def test_the_nightly_names_a_history_s_failure_s_path_once_as_it_is_quoted(
    run_cli: Any, tmp_path: Path, hh: Any, how: str
) -> None:
    # The system's path was written as it is ("not extracted: /.../r<TAB>oot/...: a file
    # where a folder is needed"), and a history's own path, quoted in the engine's message,
    # was not taken for it: "H: not extracted: H: encoded as UTF-16 LE ...".
    hh.write_jsonl(tmp_path / "r\toot/.archeflow/events/a.jsonl", hh.run_events("r1"))
    mem = tmp_path / "r\toot/.archeflow/memory"
    hist = '"r\\toot/.archeflow/memory/effectiveness.jsonl"'
    if how == "memory-is-a-file":
        mem.write_text("x\n")
        why = f'"{tmp_path}/r\\toot/.archeflow/memory": a file where a folder is needed'
    else:
        mem.mkdir()
        (mem / "effectiveness.jsonl").write_bytes(b"\xff\xfe{\x00}\x00\n\x00")
        why = (
            "encoded as UTF-16 LE (byte-order mark): runscore appends only to a UTF-8 JSONL "
            "history (convert it first, e.g. iconv -f UTF-16 -t UTF-8)"
        )
    r = run_cli("nightly", "--root", "r\toot", "--out", "out")
    assert r.exit_code == (3 if how == "memory-is-a-file" else 1), r.stderr
    assert [ln.strip() for ln in r.stderr.splitlines()][1 if r.exit_code == 3 else 0] == (
        f"{hist}: not extracted: {why}"
    )
