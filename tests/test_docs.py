"""Every CLI command has help text and is covered by the README."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest
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
        for flag in ("--help", "-h"):  # README: "Every command has `--help` (`-h`)"
            res = CliRunner().invoke(cli, [*name.split(), flag])
            if res.exit_code != 0 or not res.stdout.startswith("Usage: "):
                problems.append(f"{name} {flag} exited {res.exit_code}")
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


def test_the_bundled_team_names_the_models_its_sample_runs_were_on(run_cli: Any) -> None:
    """The sample's skeptic runs on claude-sonnet-4, but its team file left the skeptic's
    model to ArcheFlow (haiku): `recommend` (spec §6: the team's model, then ArcheFlow's
    default, before the history's) said "Keep haiku" where `report` (the runs' model)
    said downgrade. The team file now names the models its runs were on, so the two
    commands give the demo one piece of advice per reviewer."""
    repo = Path(__file__).resolve().parents[1]
    project = repo / "examples" / "project" / ".archeflow"
    res = run_cli("extract", str(project / "events"), "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    rep = run_cli("report", "--history", "h.jsonl", "--format", "json")
    team = str(project / "teams" / "backend-feature.yaml")
    rec = run_cli("recommend", team, "--history", "h.jsonl", "--format", "json")
    assert (rep.exit_code, rec.exit_code) == (0, 0), rep.stderr + rec.stderr
    tiers = {r["archetype"]: r["model_tier"] for r in json.loads(rep.stdout)}
    rows = json.loads(rec.stdout)
    assert [
        (r["archetype"], r["current_model"], r["model_source"], r["action"], r["suggested_model"])
        for r in rows
    ] == [
        ("explorer", "haiku", "default", "not_scored", None),
        ("creator", "sonnet", "default", "not_scored", None),
        ("maker", "sonnet", "default", "not_scored", None),
        ("guardian", "haiku", "default", "keep", None),
        ("skeptic", "sonnet", "model_overrides", "downgrade", "haiku"),
        ("sage", "opus", "model_overrides", "remove", None),
        ("trickster", "haiku", "default", "remove", None),
    ]
    assert {r["archetype"]: r["model_tier"] for r in rows if r["runs"]} == tiers


def _python_api_blocks() -> list[str]:
    section = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
    return [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]


def test_readme_python_api_runs(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """The README's Python examples run as written from a clone, so they cannot drift
    from the API: the first on the bundled sample, the second on the test fixtures and
    the bundled sample episodes (it named files a clone does not have: tasks.jsonl,
    skills/, episodes.jsonl)."""
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
    done = ns["done"]
    capsys.readouterr()

    ns = {}
    exec(second, ns)  # noqa: S102
    assert ns["pipelines"].pipelines.num_rows > 0
    assert ns["pipelines"].dimensions.num_rows > 0
    assert ns["skills"].ranking.num_rows == 3
    assert (ns["found"].episodes, ns["found"].rejected) == (60, [])
    # what the block prints is what its comment says
    (call,) = [line for line in second.splitlines() if line.startswith("print(")]
    assert capsys.readouterr().out == call.split("  # ", 1)[1] + "\n"

    # each result's list of rejected lines, by the name the README gives it
    said = README.split("rejected input lines come back in the results", 1)[1].split(")")[0]
    names = re.findall(r"`(\w+)` of an? ", said)
    results = [done, ns["pipelines"], ns["skills"], ns["found"]]
    assert len(names) == len(results)
    assert [n for n, r in zip(names, results, strict=True) if not hasattr(r, n)] == []


def _readme_entry(name: str) -> str:
    """The README's Commands bullets that name ``runscore NAME`` (a command, or a group's)."""
    section = README.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.split(r"\n(?=- )", section)
    pattern = re.compile(rf"runscore {re.escape(name)}(?![\w-])")
    return "\n".join(b for b in bullets if pattern.search(b))


def test_every_option_is_in_its_commands_readme_entry() -> None:
    """A reader of the README learns every option a command takes (`--lock-timeout` of
    extract, `--force` of history repair, routes' policy flags were missing), in the
    entry of that command, not merely somewhere on the page."""
    missing = []
    for name, cmd in _commands(cli):
        if isinstance(cmd, click.Group):
            continue
        entry = _readme_entry(name)
        for p in cmd.params:
            if not isinstance(p, click.Option):
                continue
            for opt in p.opts:
                if opt.startswith("--") and opt != "--help":
                    if not re.search(rf"{re.escape(opt)}(?![\w-])", entry):
                        missing.append(f"{name} {opt}")
    assert missing == []


def test_the_root_commands_options_are_in_the_readme() -> None:
    """`runscore --version` worked, and the README never said so: the test above reads
    the commands' options, not the root group's."""
    missing = [
        opt
        for p in cli.params
        if isinstance(p, click.Option)
        for opt in p.opts
        if opt.startswith("--") and opt != "--help" and f"runscore {opt}" not in README
    ]
    assert missing == []


_FORMATS = {"csv", "json", "jsonl", "markdown", "parquet", "table", "text"}


def test_format_help_names_only_formats_the_option_takes() -> None:
    """`summary --format` (text|json) said "json/csv: raw, unrounded numbers"."""
    wrong = []
    for name, cmd in _commands(cli):
        for p in cmd.params:
            if isinstance(p, click.Option) and "--format" in p.opts:
                assert isinstance(p.type, click.Choice)
                named = _FORMATS & set(re.findall(r"[a-z]+", p.help or ""))
                wrong += [f"{name} --format: {f}" for f in sorted(named - set(p.type.choices))]
    assert wrong == []


@pytest.mark.parametrize("command", ["recommend", "summary"])
def test_sql_version_all_is_offered_only_where_taken(command: str, run_cli: Any) -> None:
    """recommend and summary refuse `--sql-version all` (exit 2); their help offered it."""
    cmd = cli.commands[command]
    (opt,) = [p for p in cmd.params if "--sql-version" in getattr(p, "opts", [])]
    assert "all" not in re.findall(r"[a-z]+", opt.help or "")
    res = run_cli(command, *(["x.yaml"] if command == "recommend" else []), "--sql-version", "all")
    assert res.exit_code == 2
    report = cli.commands["report"]
    (opt,) = [p for p in report.params if "--sql-version" in getattr(p, "opts", [])]
    assert "all" in re.findall(r"[a-z]+", opt.help or "")


def test_sql_help_lists_every_view_schema_lists(
    run_cli: Any, fixtures: Path, tmp_path: Path
) -> None:
    """`sql --help` lists the views; pipeline_history(_current) were left out of it."""
    events = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    tasks = fixtures / "pipeline" / "tasks.jsonl"
    assert run_cli("pipeline", str(tasks), "--out", "p", "--history", "pl.jsonl").exit_code == 1
    assert run_cli("extract", str(events), "--history", "h.jsonl").exit_code == 0
    res = run_cli(
        "sql", "--schema", "--history", "h.jsonl", "--events", str(events),
        "--pipelines", "pl.jsonl", "--format", "json",
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    views = {r["view"] for r in json.loads(res.stdout)}
    assert {"pipeline_history", "pipeline_history_current", "run_status"} <= views
    helped = run_cli("sql", "--help").stdout
    assert [v for v in sorted(views) if not re.search(rf"^\s+{v}: ", helped, re.M)] == []


def test_the_readme_names_every_option_that_may_be_repeated() -> None:
    """README: a single-valued option given twice takes the last value; it names the
    options that may be given more than once, which must be exactly those."""
    repeated = {
        opt
        for _, cmd in _commands(cli)
        for p in cmd.params
        if isinstance(p, click.Option) and p.multiple
        for opt in p.opts
    }
    section = README.split("\n## Commands\n", 1)[1].split("\n- ", 1)[0]
    said = re.search(r"only (.*?) may be given more than\s+once", section, re.S)
    assert said is not None
    assert set(re.findall(r"`(--[\w-]+)`", said.group(1))) == repeated


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["pipeline", "t.jsonl", "--no-history", "--date", "2026-02-30"], {}),
        (["extract", "x", "--lock-timeout", "nan"], {}),
        (["report"], {"RUNSCORE_LOG": "verbose"}),
        (["report", "--formt", "json"], {}),
        (["history", "repair", "x", "--in-place", "--out", "X"], {}),
        (["extract", "-", "-"], {}),
        (["pipeline", "-", "--plans", "-"], {}),
        (["pipeline", "--report", "--out", "x"], {}),
        (["pipeline", "t.jsonl", "--plans", "p.jsonl"], {}),
        (["sql", "SELECT 1", "--format", "csv", "--output", "r.parquet"], {}),
        (["report", "--window", "0"], {}),
        (["extract", ""], {}),
        (["report", "--history", ""], {}),
        (["history", "repair", "h.jsonl", "--out", "-"], {}),
        (["routes", "report", "e.jsonl", "--min-labelled", "-3"], {}),
        (["pipeline", "t.jsonl", "--out", "nf"], {}),
        (["plugin", "score", "s", "--out", "nf"], {}),
        (["nightly", "--out", "nf"], {}),
    ],
)
def test_the_readmes_error_examples_are_what_the_command_says(
    args: list[str], env: dict[str, str], run_cli: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    """README quoted a value in single quotes (`--date '2026-02-30'`, `'nan'`, `'verbose'`)
    where the command writes it as every message quotes a value, in double quotes; and
    `pipeline --out nf` (a regular file) said click's `Directory 'nf' is a file.`, not the
    `--out nf: exists and is not a directory` README quotes."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    (tmp_path / "nf").write_text("a file where the folder goes\n", encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("", encoding="utf-8")
    r = run_cli(*args)
    said = r.stderr.strip().replace("(see 'cli ", "(see 'runscore ")
    assert r.exit_code == 2 and said.startswith("error: "), r.stderr
    readme = " ".join(README.split())
    # README may leave out the pointer to the help, which every usage error ends with
    assert said in readme or said.split(" (see '")[0] in readme, said


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["report", "--history", "FILE"], 3),
        (["extract", "FILE", "--history", "h.jsonl"], 3),
        (["summary", "--history", "FILE"], 0),
    ],
)
def test_the_readmes_nothing_read_messages_are_what_the_command_says(
    args: list[str], code: int, run_cli: Any, tmp_path: Path
) -> None:
    """README quoted `report`'s "no effectiveness history at FILE; run runscore extract
    first" without the backticks the command writes around `runscore extract`."""
    if args[0] == "extract":
        (tmp_path / "FILE").write_text("", encoding="utf-8")
    r = run_cli(*args)
    assert r.exit_code == code, r.stderr
    said, readme = " ".join(r.stderr.split()), " ".join(README.split())
    # README quotes some with their `error: `, some (in a sentence) without
    assert said in readme or said.removeprefix("error: ") in readme, said


def test_every_exit_code_in_the_table_is_asserted_by_a_test() -> None:
    """README's exit-code table is a promise: each code some test makes the CLI exit
    with (`exit_code == 4`, `(proc.returncode, out) == (130, b"")`), so that none is
    listed that no path produces."""
    from runscore.cli.exitcodes import ExitCode

    here = Path(__file__).resolve()
    sources = "\n".join(
        p.read_text(encoding="utf-8") for p in here.parent.rglob("test_*.py") if p != here
    )
    untested = [
        int(code)
        for code in ExitCode
        if not re.search(rf"(exit_code|returncode)\b[^\n]*==\s*\(?{int(code)}\b", sources)
    ]
    assert untested == []


def test_the_readmes_default_repaired_copy_is_where_repair_writes_it(run_cli: Any) -> None:
    """README named the default copy `HISTORY.repaired.jsonl` (h.jsonl.repaired.jsonl);
    `repair` writes `.repaired` before the extension."""
    repo = Path(__file__).resolve().parents[1]
    events = repo / "examples" / "project" / ".archeflow" / "events"
    assert run_cli("extract", str(events), "--history", "h.jsonl").exit_code == 0
    res = run_cli("history", "repair", "h.jsonl")
    assert (res.exit_code, res.stdout) == (0, "h.repaired.jsonl\n"), res.stderr
    assert "`h.repaired.jsonl` for `h.jsonl`" in " ".join(README.split())


#: The modules README's Python API section names, by the names its examples give them.
_API_MODULES = {
    "errors": "runscore.engine.errors",
    "sources": "runscore.engine.sources",
    "history_tools": "runscore.engine.history_tools",
    "nightly": "runscore.engine.nightly",
    "effectiveness": "runscore.engine.packs.effectiveness",
    "eh": "runscore.engine.packs.effectiveness_history",
    "pipeline": "runscore.engine.packs.pipeline",
    "plugin": "runscore.engine.packs.plugin",
    "routes": "runscore.engine.packs.routes",
}


def test_each_modules_all_is_what_the_readme_lists_and_names() -> None:
    """What was public was implied by README alone: no engine module had an ``__all__``.
    Each module README's Python API section names has one now, and the two cannot drift:
    README lists each ``__all__`` exactly; every name in one exists; every call or type
    of these modules README names (``eh.report``, ``routes.Policy``, ``score_runs(...)``,
    ``NightlyResult``) is in one; and so is every name the CLI imports from them."""
    import ast
    import importlib
    import inspect

    repo = Path(__file__).resolve().parents[1]
    modules = {alias: importlib.import_module(name) for alias, name in _API_MODULES.items()}
    with_all = {
        f.relative_to(repo).with_suffix("").as_posix().replace("/", ".")
        for f in (repo / "engine").rglob("*.py")
        if re.search(r"^__all__ = ", f.read_text(encoding="utf-8"), re.M)
    }
    # duck's re-exports the DuckDB module its callers import through it (a loader), no API
    assert with_all - {"engine.duck"} == {
        m.__name__.removeprefix("runscore.") for m in modules.values()
    }

    section = README.split("\n## Python API\n")[1].split("\n## ")[0]
    listed = {
        m: re.findall(r"`(\w+)`", names)
        for m, names in re.findall(r"^- `(runscore\.engine\.[\w.]+)`: (.*)$", section, re.M)
    }
    assert listed == {m.__name__: list(m.__all__) for m in modules.values()}
    missing = [
        f"{m.__name__}.{n}" for m in modules.values() for n in m.__all__ if not hasattr(m, n)
    ]
    assert missing == []

    public = {m.__name__: set(m.__all__) for m in modules.values()}
    unlisted = set()
    # qualified: eh.report, routes.Policy, runscore.engine.errors.Note (not a file name:
    # .archeflow/memory/effectiveness.jsonl, <out>/.nightly.lock)
    for alias, name in re.findall(r"(?<![\w./-])([\w.]+)\.(\w+)\b(?!\.\w)", README):
        module = modules.get(alias) or next(
            (m for m in modules.values() if m.__name__ == alias), None
        )
        if module is not None and name not in {"jsonl", "json", "lock", "journal", "yaml"}:
            if name not in public[module.__name__]:
                unlisted.add(f"{alias}.{name}")
    # bare, in the section's code: a function or class of these modules (score_runs(...))
    code = " ".join(
        a or b for a, b in re.findall(r"```python\n(.*?)```|`([^`\n]+)`", section, re.S)
    )
    for word in set(re.findall(r"\b[A-Za-z_]\w*\b", code)):
        owners = [
            m
            for m in modules.values()
            if (inspect.isfunction(v := getattr(m, word, None)) or inspect.isclass(v))
            and v.__module__ == m.__name__
        ]
        if owners and not any(word in public[m.__name__] for m in owners):
            unlisted.add(word)
    # imported by the CLI: `from runscore.engine.packs import pipeline as engine`, then
    # `engine.iso`; or `from runscore.engine.errors import Arg`
    for f in sorted((repo / "cli").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        aliases = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module:
                for a in n.names:
                    full = f"{n.module}.{a.name}"
                    if full in public:
                        aliases[a.asname or a.name] = full
                    elif n.module in public and a.name not in public[n.module]:
                        unlisted.add(f"{f.name}: {full}")
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                full = aliases.get(n.value.id)
                if full is not None and n.attr not in public[full]:
                    unlisted.add(f"{f.name}: {full}.{n.attr}")
    assert sorted(unlisted) == []


def test_rejected_input_leaves_stdout_the_data_in_every_format(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    """README: stdout is data, messages go to stderr; exit 1 lists the rejected input on
    stderr and processes the rest. So with a rejected line, each `--format` still writes
    a document a parser takes whole (JSON one value, CSV rows of the header's width), and
    the `file:line: reason` is on stderr, not in the JSON or CSV."""
    import csv
    import io

    repo = Path(__file__).resolve().parents[1]
    sample = repo / "examples" / "project" / ".archeflow"
    assert run_cli("extract", str(sample / "events"), "--history", "h.jsonl").exit_code == 0
    with (tmp_path / "h.jsonl").open("a", encoding="utf-8") as f:
        f.write("not json\n")
    (tmp_path / "e.jsonl").write_text("not json\n", encoding="utf-8")
    team = str(sample / "teams" / "backend-feature.yaml")
    commands = [
        (["report", "--history", "h.jsonl"], "h.jsonl:57: not JSON"),
        (["recommend", team, "--history", "h.jsonl"], "h.jsonl:57: not JSON"),
        (["sql", "SELECT * FROM report", "--history", "h.jsonl"], "h.jsonl:57: not JSON"),
        (["routes", str(sample / "episodes" / "episodes.jsonl"), "e.jsonl"], "e.jsonl:1: not JSON"),
        (["pipeline", str(fixtures / "pipeline" / "tasks.jsonl"), "--no-history"], ":22: no task id"),
    ]  # fmt: skip
    problems = []
    for args, said in commands:
        for fmt in ("markdown", "json", "csv"):
            r = run_cli(*args, "--format", fmt)
            # pipeline's markdown summary is a report that lists them too (README)
            leaked = fmt != "markdown" and said in r.stdout
            if r.exit_code != 1 or said not in r.stderr or leaked or not r.stdout:
                problems.append((args[0], fmt, r.exit_code, r.stderr[:200]))
            elif fmt == "json":
                json.loads(r.stdout)
            elif fmt == "csv":
                rows = list(csv.reader(io.StringIO(r.stdout)))
                assert {len(row) for row in rows} == {len(rows[0])}, (args[0], rows)
    assert problems == []


def test_readme_says_the_packs_column_s_words_as_the_index_shows_them() -> None:
    """README said a pack that failed for every root shows `not counted` in
    `OUT/index.md`'s Packs column; the index shows `failed` there, `not counted` being a
    run log of a runscore that wrote no counts. Both words, each where the index says it."""
    from runscore.cli.nightly import Renderer

    def day(date: str, failed: int) -> dict[str, Any]:
        pack = {"roots": 2, "failed": failed, "counts": None}
        pack.update(interrupted_records=0, interrupted_not_counted=0)
        return {"date": date, "index": None, "error": None, "status": "partial",
                "exit_code": 1, "runs_scored": 0, "already_scored": 0, "incomplete": 0,
                "rejected": 0, "finished_at": None, "interrupted_runs": 0,
                "interrupted_runs_not_counted": 0, "packs": {"plugin": pack}}  # fmt: skip

    index = Renderer().markdown("days_index", {"days": [day("2026-04-05", 2), day("x", 0)]})
    assert " | plugin: failed | " in index
    assert " | plugin: not counted | " in index
    readme = " ".join(README.split())
    assert "it failed for every root (`failed` in the Packs column;" in readme
    assert "or a run log of a runscore that wrote none (`not counted` there;" in readme
