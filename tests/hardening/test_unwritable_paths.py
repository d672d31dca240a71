"""A path runscore is given to write (a history and its lock, --out) that cannot be
written is a usage error in one line (exit 2), never a traceback."""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "project" / ".archeflow" / "events"
#: /proc takes no new files, not even from root (this suite runs on Linux).
PROC = "/proc/runscore-test"


def _one_error(res: Any, message: str) -> None:
    assert res.exit_code == 2
    assert "Traceback" not in res.stderr
    assert res.stderr.splitlines()[-1] == f"error: {message}"


def test_a_history_that_cannot_be_written(run_cli: Any, tmp_path: Path) -> None:
    # Said before scoring, as pipeline says it (it was the lock file's open, once every
    # run was scored: "/proc/runscore-test.jsonl.lock: No such file or directory").
    for hist in (f"{PROC}.jsonl", f"{PROC}/h.jsonl"):
        res = run_cli("extract", str(SAMPLE), "--history", hist)
        _one_error(res, f"/proc: cannot make the history {hist} there: No such file or directory")
    (tmp_path / "afile").write_text("")
    res = run_cli("extract", str(SAMPLE), "--history", "afile/h.jsonl")
    _one_error(res, f"{tmp_path / 'afile'}: a file where a folder is needed")
    assert res.stdout == ""


def test_a_pipeline_history_that_cannot_be_written_leaves_no_report(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # pipeline wrote every report (10 files in --out) and only then found at the append
    # that its history could not be written: exit 2 with the reports of a run the
    # history never got. Refused before scoring now, nothing written.
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    (tmp_path / "afile").write_text("")
    (tmp_path / "h.jsonl.lock").mkdir()
    for hist, message in [
        (f"{PROC}.jsonl", f"/proc: cannot make the history {PROC}.jsonl there: No such file "
         "or directory"),
        ("afile/h.jsonl", f"{tmp_path / 'afile'}: a file where a folder is needed"),
        ("h.jsonl", "h.jsonl.lock: cannot lock the history: Is a directory"),
    ]:  # fmt: skip
        res = run_cli("pipeline", tasks, "--out", "out", "--history", hist)
        _one_error(res, message)
        assert res.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "h.jsonl.lock"]


def test_an_out_folder_that_cannot_be_made(run_cli: Any, tmp_path: Path, fixtures: Path) -> None:
    res = run_cli(
        "pipeline", str(fixtures / "pipeline" / "tasks.jsonl"), "--out", PROC, "--no-history"
    )
    _one_error(res, f"{PROC}: No such file or directory")
    skill = fixtures / "plugin" / "async-python-patterns"
    res = run_cli("plugin", "score", str(skill), "--out", PROC, "--no-history")
    _one_error(res, f"{PROC}: No such file or directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_repair_out_that_cannot_be_written(run_cli: Any, tmp_path: Path) -> None:
    """The error named the temporary file beside --out (``/proc/.x.jsonl.tmp-1234``), a
    path the user never gave; it names --out."""
    # One line to keep (a history with none is refused before anything is written), as
    # ArcheFlow's own scorer writes it, and one to drop.
    good = (
        '{"ts": "2026-03-01T09:00:00Z", "run_id": "r", "archetype": "guardian", '
        '"signal_to_noise": 0.5, "fix_rate": 0.5, "cost_efficiency": 0, "accuracy": 0.75, '
        '"cycle_impact": true, "composite_score": 0.49, "tokens": 0, "cost_usd": 0, '
        '"model": "unknown", "findings_total": 2, "findings_useful": 1, "fixes_applied": 1}'
    )
    (tmp_path / "h.jsonl").write_text(good + '\n{"torn": \n')
    res = run_cli("history", "repair", "h.jsonl", "--out", "/proc/x.jsonl")
    _one_error(res, "/proc/x.jsonl: No such file or directory")
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]


def _limited(limit: int, *args: str, cwd: Path) -> tuple[int, str, str]:
    """``runscore ARGS`` in a process that may write files of at most ``limit`` bytes: a
    write past it fails as on a full disk (EFBIG, "File too large"; Python ignores the
    SIGXFSZ that comes with it), with no file name in the error the kernel gives."""
    import os
    import resource
    import subprocess
    import sys

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, RUNSCORE_THREADS="1")
    p = subprocess.run(
        [sys.executable, "-m", "runscore", *args],
        cwd=cwd,
        env=env,
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def damaged_history(tmp_path: Path) -> bytes:
    """h.jsonl: the sample's history (~35 KB) and one bad line; its bytes."""
    from runscore.engine.packs import effectiveness

    effectiveness.extract([str(SAMPLE)], str(tmp_path / "h.jsonl"))
    with open(tmp_path / "h.jsonl", "ab") as f:
        f.write(b"not json\n")
    for p in tmp_path.iterdir():
        if p.name != "h.jsonl":
            p.unlink()
    return (tmp_path / "h.jsonl").read_bytes()


def test_a_repair_that_fills_the_disk_names_its_file(
    tmp_path: Path, damaged_history: bytes
) -> None:
    """A write error names no file (the kernel's ENOSPC/EFBIG): it was ``error: File too
    large``, no path at all. It names the path the user gave (--out, or the history)."""
    code, out, err = _limited(
        4096, "history", "repair", "h.jsonl", "--out", "r.jsonl", cwd=tmp_path
    )
    assert (code, out, err) == (2, "", "error: r.jsonl: File too large\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]
    # --in-place: the backup (a full copy) is what does not fit; no half backup is left
    code, out, err = _limited(4096, "history", "repair", "h.jsonl", "--in-place", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert re.fullmatch(
        r"error: h\.jsonl: cannot copy it to its backup h\.jsonl\.bak-\d{8}T\d{6}Z: "
        r"File too large\n",
        err,
    ), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "h.jsonl.lock"]
    assert (tmp_path / "h.jsonl").read_bytes() == damaged_history


def test_an_append_that_fills_the_disk_names_the_history_and_leaves_it_whole(
    tmp_path: Path,
) -> None:
    """extract's append was ``error: File too large`` and left a torn record at the end
    (the part that fitted), which the next append closed off into a bad line for good.
    The history is as it was before the append, and the error names it."""
    (tmp_path / "h.jsonl").write_bytes(b"")
    code, out, err = _limited(4096, "extract", str(SAMPLE), "--history", "h.jsonl", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "error: h.jsonl: cannot append to the history: File too large"
    assert (tmp_path / "h.jsonl").read_bytes() == b""
    assert not (tmp_path / "h.jsonl.manifest.json").exists()


def test_a_report_that_fills_the_disk_names_its_file(tmp_path: Path, fixtures: Path) -> None:
    """pipeline --out DIR: ``error: File too large``, no path; it names the file in DIR
    (not the temporary one beside it)."""
    tasks = str(fixtures / "pipeline" / "tasks.jsonl")
    code, out, err = _limited(1000, "pipeline", tasks, "--out", "out", "--no-history", cwd=tmp_path)
    assert (code, out) == (2, "")
    assert re.fullmatch(r"error: out/[^/\s]+\.(md|json): File too large", err.splitlines()[-1]), err
    assert [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")] == []


#: Each command that writes a file the user names, in a folder holding h.jsonl (the
#: sample's history and one bad line): its arguments to write OUT, OUT's suffix, and the
#: first bytes of what it writes there.
_WRITERS = {
    "sql": (["sql", "SELECT 1 AS x", "--history", "h.jsonl", "--output"], ".csv", b"x\n"),
    "export": (["export", "--history", "h.jsonl", "--to"], ".parquet", b"PAR1"),
    "repair": (["history", "repair", "h.jsonl", "--out"], ".jsonl", b'{"'),
}  # fmt: skip


@pytest.mark.parametrize("command", ["export", "sql"])
def test_an_output_file_a_user_cannot_read_is_replaced_as_for_root(
    run_cli: Any,
    tmp_path: Path,
    damaged_history: bytes,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A file of mode -w- is replaced as any other (renamed over: its own mode is not
    # asked), but click.Path checked that it could be read: a user who is not root was
    # told "Invalid value for '--output': File 'o.csv' is not readable.", root had it
    # written. os.access says no, as it does to such a user.
    args, suffix, head = _WRITERS[command]
    out = tmp_path / f"o{suffix}"
    out.write_bytes(b"old")
    out.chmod(0o200)
    real = os.access
    at = os.path.abspath(out)

    def access(path: Any, mode: int, *a: Any, **k: Any) -> bool:
        if mode & os.R_OK and os.path.abspath(os.fspath(path)) == at:
            return False
        return real(path, mode, *a, **k)

    monkeypatch.setattr(os, "access", access)
    res = run_cli(*args, out.name)
    assert res.exit_code == 1, res.stderr  # the damaged history's bad line
    assert out.read_bytes().startswith(head)


@pytest.mark.parametrize("command", sorted(_WRITERS))
@pytest.mark.parametrize("link", [False, True])
def test_every_output_that_is_a_fifo_is_written_into(
    run_cli: Any,
    drain: Callable[[int], bytes],
    tmp_path: Path,
    damaged_history: bytes,
    command: str,
    link: bool,
) -> None:
    # export --to and history repair --out a FIFO (or a link to one: a shell's >(...))
    # renamed a temporary file over it, as sql --output did: the node (or the link) was
    # replaced by a regular file and the reader got nothing (as root, /dev/null itself).
    # Each writes into it now, as a shell's > does.
    args, suffix, head = _WRITERS[command]
    fifo = tmp_path / f"p{suffix}"
    os.mkfifo(fifo)
    out = fifo
    if link:
        out = tmp_path / f"fd{suffix}"
        out.symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the write does not wait
    try:
        res = run_cli(*args, out.name)
        got = drain(reader)
    finally:
        os.close(reader)
    # the bad line is said (exit 1), or dropped by the repair (exit 0)
    assert res.exit_code == (0 if command == "repair" else 1), res.stderr
    assert res.stdout == ("" if command == "sql" else f"{out.name}\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert out.is_symlink() == link
    assert got.startswith(head), got[:40]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"h.jsonl", fifo.name, out.name})


@pytest.mark.parametrize("command", ["repair", "sql"])  # export: a suffix names its format
def test_every_output_that_is_an_open_descriptor_is_written_into(
    tmp_path: Path, damaged_history: bytes, command: str
) -> None:
    # /dev/fd/N (/dev/stdout) of a regular file: history repair --out made its temporary
    # file in /dev/fd to rename over it (as root, /dev/stdout was replaced by a regular
    # file), or said "exists; add --force": it holds no file to keep.
    args, _, head = _WRITERS[command]
    target = tmp_path / "into"
    with open(target, "wb") as f:
        p = subprocess.run(
            [sys.executable, "-m", "runscore", *args, f"/dev/fd/{f.fileno()}"],
            cwd=tmp_path,
            pass_fds=[f.fileno()],
            capture_output=True,
            timeout=300,
        )
    assert p.returncode == (0 if command == "repair" else 1), p.stderr
    assert target.read_bytes().startswith(head)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["h.jsonl", "into"]


@pytest.mark.parametrize("command", sorted(_WRITERS))
def test_no_output_is_written_through_a_symlink_to_a_file(
    run_cli: Any, tmp_path: Path, damaged_history: bytes, command: str
) -> None:
    # One rule for all: sql --output replaced such a link with a regular file (the file it
    # named kept the old result, unsaid) and so did history repair --out (with --force),
    # while export refused it. Each refuses it now, nothing written.
    args, suffix, _ = _WRITERS[command]
    old, link = tmp_path / f"old{suffix}", tmp_path / f"l{suffix}"
    old.write_bytes(b"old")
    link.symlink_to(old.name)
    force = ["--force"] if command == "repair" else []
    res = run_cli(*args, link.name, *force)
    help_of = {"repair": "history repair"}.get(command, command)
    _one_error(
        res, f"{link.name}: refusing to write through a symlink (see 'cli {help_of} --help')"
    )
    assert res.stdout == ""
    assert link.is_symlink()
    assert old.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["h.jsonl", link.name, old.name])


def test_a_duckdb_export_into_a_fifo_is_refused(run_cli: Any, tmp_path: Path) -> None:
    # It renamed the database over the FIFO; a database cannot be streamed (DuckDB writes
    # it in place, back and forth).
    (tmp_path / "h.jsonl").write_bytes(b"")
    os.mkfifo(tmp_path / "p.duckdb")
    res = run_cli("export", "--history", "h.jsonl", "--to", "p.duckdb")
    _one_error(
        res,
        "p.duckdb: cannot write the export: a DuckDB database is written to a file, not "
        "into a FIFO or device (give FILE.parquet to stream it)",
    )
    assert stat.S_ISFIFO(os.lstat(tmp_path / "p.duckdb").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "p.duckdb"]


def test_a_pipeline_history_that_is_one_of_its_inputs_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `pipeline t.jsonl --history t.jsonl` (or --plans p.jsonl --history p.jsonl, or the
    # history in a TASKS folder) appended its records to that input, exit 1: the next run
    # read them as broken task lines. Refused now, exit 2, nothing written.
    (tmp_path / "tf").mkdir()
    tasks = (fixtures / "pipeline" / "tasks.jsonl").read_bytes()
    plans = (fixtures / "pipeline" / "plans.jsonl").read_bytes()
    (tmp_path / "tf" / "t.jsonl").write_bytes(tasks)
    (tmp_path / "p.jsonl").write_bytes(plans)
    for args, message in [
        (["tf/t.jsonl", "--history", "tf/t.jsonl"],
         "tf/t.jsonl: that is the tasks file tf/t.jsonl the pipeline reads (TASKS)"),
        (["tf", "--history", "./tf/t.jsonl"],
         "./tf/t.jsonl: that is the tasks file tf/t.jsonl the pipeline reads (TASKS)"),
        (["tf", "--plans", "p.jsonl", "--history", "p.jsonl"],
         "p.jsonl: that is the plans file p.jsonl the pipeline reads (--plans)"),
    ]:  # fmt: skip
        res = run_cli("pipeline", *args, "--out", "out")
        _one_error(res, f"{message}; choose another --history (see 'cli pipeline --help')")
        assert res.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl", "tf"]
        assert [p.name for p in (tmp_path / "tf").iterdir()] == ["t.jsonl"]
        assert (tmp_path / "tf" / "t.jsonl").read_bytes() == tasks
        assert (tmp_path / "p.jsonl").read_bytes() == plans


@pytest.mark.parametrize(
    ("option", "what"),
    [("--judge", "judge file"), ("--mc", "Monte Carlo file"), ("--matchups", "matchups file")],
)
def test_a_plugin_history_that_is_one_of_its_inputs_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path, option: str, what: str
) -> None:
    # `plugin score ROOT --judge j.jsonl --history j.jsonl` appended the skill records to
    # the judge file, exit 0: its next read took them for broken judge lines.
    skill = str(fixtures / "plugin" / "async-python-patterns")
    (tmp_path / "in.jsonl").write_text('{"skill": "async-python-patterns"}\n')
    res = run_cli("plugin", "score", skill, option, "in.jsonl", "--history", "in.jsonl")
    _one_error(
        res,
        f"in.jsonl: that is the {what} in.jsonl the score reads ({option}); choose another "
        "--history (see 'cli plugin score --help')",
    )
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
    assert (tmp_path / "in.jsonl").read_text() == '{"skill": "async-python-patterns"}\n'


@pytest.mark.parametrize("kind", ["fifo", "file"])
@pytest.mark.parametrize("command", ["pipeline", "plugin"])
def test_an_out_folder_that_is_a_fifo_or_a_file_is_refused_before_scoring(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str, kind: str
) -> None:
    # It was `error: nf: File exists` (the folder's making), once every pipeline or skill
    # was scored (and the history's lock file made); said now as nightly says it. A
    # regular file was said in click's words, `Invalid value for '--out': Directory 'nf'
    # is a file.`, not in the ones README quotes for it and nightly says.
    if kind == "fifo":
        os.mkfifo(tmp_path / "nf")
    else:
        (tmp_path / "nf").write_text("kept\n")
    args = {
        "pipeline": ["pipeline", str(fixtures / "pipeline" / "tasks.jsonl")],
        "plugin": ["plugin", "score", str(fixtures / "plugin" / "async-python-patterns")],
    }[command]
    res = run_cli(*args, "--out", "nf", "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == "error: --out nf: exists and is not a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nf"]


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every file under ``root`` by its relative path: its bytes, or where a link points."""
    return {
        str(p.relative_to(root)): os.readlink(p) if p.is_symlink() else p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_symlink() or p.is_file()
    }


def test_a_report_that_would_replace_an_input_in_the_out_folder_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `plugin score ROOT --judge out/plugin-report.json --out out --format json` renamed its
    # report over the judge file it had just read (exit 0, the judge lines gone), and
    # `pipeline out/pipeline-eval-p-2026-03-01.json --out out --date 2026-03-01` its
    # reports over the tasks file. Refused now before anything is read or written, exit 2,
    # in the words of a history that is one of the inputs.
    skill = str(fixtures / "plugin" / "async-python-patterns")
    tasks = fixtures / "pipeline" / "tasks.jsonl"
    judge = b'{"skill": "async-python-patterns", "judge": "a", "scores": {}}\n'
    (tmp_path / "out" / "skills").mkdir(parents=True)
    for name, data in [
        ("plugin-report.json", judge),
        ("skills/x.md", judge),
        ("pipeline-eval-p-2026-03-01.json", tasks.read_bytes()),
        ("pipeline-eval-summary-2026-03-01.md", (fixtures / "pipeline" / "plans.jsonl").read_bytes()),
    ]:  # fmt: skip
        (tmp_path / "out" / name).write_bytes(data)
    before = _tree(tmp_path)
    day = ["--date", "2026-03-01"]
    for args, message in [
        (["plugin", "score", skill, "--judge", "out/plugin-report.json", "--format", "json"],
         "out/plugin-report.json: that is the judge file out/plugin-report.json the score reads "
         "(--judge); choose another --out (see 'cli plugin score --help')"),
        (["plugin", "score", skill, "--mc", "out/skills/x.md"],
         "out/skills/x.md: that is the Monte Carlo file out/skills/x.md the score reads (--mc); "
         "choose another --out (see 'cli plugin score --help')"),
        (["pipeline", "out/pipeline-eval-p-2026-03-01.json", *day],
         "out/pipeline-eval-p-2026-03-01.json: that is the tasks file "
         "out/pipeline-eval-p-2026-03-01.json the pipeline reads (TASKS); choose another --out "
         "(see 'cli pipeline --help')"),
        (["pipeline", "out/*-2026-03-01.json", *day],
         "out/pipeline-eval-p-2026-03-01.json: that is the tasks file "
         "out/pipeline-eval-p-2026-03-01.json the pipeline reads (TASKS); choose another --out "
         "(see 'cli pipeline --help')"),
        (["pipeline", str(tasks), "--plans", "out/pipeline-eval-summary-2026-03-01.md", *day],
         "out/pipeline-eval-summary-2026-03-01.md: that is the plans file "
         "out/pipeline-eval-summary-2026-03-01.md the pipeline reads (--plans); choose another "
         "--out (see 'cli pipeline --help')"),
    ]:  # fmt: skip
        res = run_cli(*args, "--out", "out", "--history", "h.jsonl")
        _one_error(res, message)
        assert res.stdout == ""
        assert _tree(tmp_path) == before
    # A report of another name (another format, another day) replaces no input: written.
    res = run_cli("plugin", "score", skill, "--judge", "out/plugin-report.json", "--out", "out",
                  "--format", "csv", "--no-history")  # fmt: skip
    assert res.exit_code == 0, res.stderr
    res = run_cli("pipeline", "out/pipeline-eval-p-2026-03-01.json", "--out", "out",
                  "--date", "2026-03-02", "--no-history")  # fmt: skip
    assert res.exit_code == 1, res.stderr  # the example's bad line
    after = _tree(tmp_path)
    assert {k: after[k] for k in before} == before
    assert "out/plugin-report.csv" in after and "out/pipeline-eval-summary-2026-03-02.md" in after


#: A report each command writes into --out: its arguments, the report's name and its start.
_REPORTERS = {
    "pipeline": (["pipeline", "--date", "2026-03-01"], "pipeline-eval-summary-2026-03-01.md",
                 b"# Pipeline evaluation summary: 2026-03-01\n"),
    "plugin": (["plugin", "score", "--format", "csv"], "plugin-report.csv", b"skill,name,path,"),
}  # fmt: skip


def _reporter_args(command: str, fixtures: Path) -> tuple[list[str], str, bytes]:
    args, name, head = _REPORTERS[command]
    inputs = {"pipeline": "pipeline/tasks.jsonl", "plugin": "plugin/async-python-patterns"}
    return [*args, str(fixtures / inputs[command])], name, head


@pytest.mark.parametrize("command", sorted(_REPORTERS))
@pytest.mark.parametrize("link", [False, True])
def test_a_report_at_a_fifo_in_the_out_folder_is_written_into(
    run_cli: Any,
    tmp_path: Path,
    fixtures: Path,
    drain: Callable[[int], bytes],
    command: str,
    link: bool,
) -> None:
    # A temporary file was renamed over the FIFO (or the link to one): the node replaced
    # by a regular file, the reader got nothing. Written into now, as a shell's > and
    # every output file a user names (sql --output, export --to).
    args, name, head = _reporter_args(command, fixtures)
    (tmp_path / "out").mkdir()
    fifo = tmp_path / ("p.fifo" if link else f"out/{name}")
    os.mkfifo(fifo)
    if link:
        (tmp_path / "out" / name).symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the write does not wait
    try:
        res = run_cli(*args, "--out", "out", "--no-history")
        got = drain(reader)
    finally:
        os.close(reader)
    assert res.exit_code == (1 if command == "pipeline" else 0), res.stderr  # a bad line
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert (tmp_path / "out" / name).is_symlink() == link
    assert got.startswith(head), got[:60]


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_a_symlink_at_a_report_name_in_the_out_folder_is_refused_before_scoring(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str
) -> None:
    # Refused only at its write, once everything was scored: plugin score had appended its
    # history, pipeline had written the reports before it. Refused before anything is
    # read or written now, in the words of every output file a user names.
    args, name, _ = _reporter_args(command, fixtures)
    (tmp_path / "out").mkdir()
    (tmp_path / "old").write_bytes(b"old")
    (tmp_path / "out" / name).symlink_to(tmp_path / "old")
    res = run_cli(*args, "--out", "out", "--history", "h.jsonl")
    help_of = {"plugin": "plugin score"}.get(command, command)
    _one_error(res, f"out/{name}: refusing to write through a symlink (see 'cli {help_of} --help')")
    assert res.stdout == ""
    assert _tree(tmp_path) == {"old": b"old", f"out/{name}": str(tmp_path / "old")}


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_a_folder_at_a_report_name_in_the_out_folder_is_refused_before_scoring(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str
) -> None:
    # Found only at its write (`error: out/NAME: Is a directory`): plugin score had
    # appended its history (which grew, no report written), pipeline had scored and
    # written the reports before it. Refused now in those words before anything is read
    # or written: no history, no lock file, no report.
    args, name, _ = _reporter_args(command, fixtures)
    (tmp_path / "out" / name).mkdir(parents=True)
    res = run_cli(*args, "--out", "out", "--history", "h.jsonl")
    _one_error(res, f"out/{name}: Is a directory")
    assert res.stdout == ""
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "out",
        f"out/{name}",
    ]


def test_a_socket_at_a_report_name_in_the_out_folder_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # Not written into as a FIFO is (open fails), and a report renamed over it replaced it
    # unsaid: refused before anything is read, as a folder there is.
    import socket

    args, name, _ = _reporter_args("plugin", fixtures)
    (tmp_path / "out").mkdir()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(f"out/{name}")
        res = run_cli(*args, "--out", "out", "--history", "h.jsonl")
    _one_error(
        res, f"out/{name}: not a regular file (a socket): refusing to write a report over it"
    )
    assert stat.S_ISSOCK(os.lstat(tmp_path / "out" / name).st_mode)
    assert not (tmp_path / "h.jsonl").exists()


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_an_out_folder_that_cannot_be_made_is_refused_before_the_history_grows(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str
) -> None:
    # The CLI took a link to nothing for no --out (os.path.exists) and os.makedirs failed
    # on it; an --out under a file or in /proc failed at its making too: each once
    # everything was scored, plugin score's history appended (it grew, no report written).
    # Refused now before anything is read or written, in the words the write said.
    args, _, _ = _reporter_args(command, fixtures)
    (tmp_path / "afile").write_text("")
    (tmp_path / "dl").symlink_to("nowhere")
    (tmp_path / "o2").mkdir()
    (tmp_path / "o2" / "skills").write_text("")
    before = _tree(tmp_path)
    cases = [
        ("dl", "--out dl: exists and is not a directory"),
        ("afile/sub", "afile/sub: Not a directory"),
        (PROC, f"{PROC}: No such file or directory"),
    ]
    if command == "plugin":  # its markdown writes skills/*.md
        args = [a for a in args if a not in ("--format", "csv")]
        cases.append(("o2", "o2/skills: a file where a folder is needed"))
    for out, message in cases:
        res = run_cli(*args, "--out", out, "--history", "h.jsonl")
        _one_error(res, message)
        assert res.stdout == ""
        assert _tree(tmp_path) == before, out
        assert not (tmp_path / "h.jsonl.lock").exists()


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_an_out_folder_that_takes_no_new_file_is_refused_before_the_history_grows(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str
) -> None:
    # An --out that is there but takes no file (/proc, as a read-only mount) was found at
    # the first report's write: plugin score had appended its history (it grew, no report
    # written, `error: /proc/plugin-report.csv: No such file or directory`), pipeline had
    # scored and made the history's lock file. Refused now before anything is read.
    args, _, _ = _reporter_args(command, fixtures)
    res = run_cli(*args, "--out", "/proc", "--history", "h.jsonl")
    _one_error(res, "/proc: cannot write a report there: No such file or directory")
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root writes into a folder whatever its mode (/proc: above)"
)
@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_a_read_only_out_folder_is_refused_before_the_history_grows(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str
) -> None:
    args, _, _ = _reporter_args(command, fixtures)
    if command == "plugin":  # its markdown writes skills/*.md: that folder read-only
        args = [a for a in args if a not in ("--format", "csv")]
    ro = tmp_path / "ro"
    (ro / "skills").mkdir(parents=True)
    where = ro / "skills" if command == "plugin" else ro
    where.chmod(0o555)
    try:
        res = run_cli(*args, "--out", "ro", "--history", "h.jsonl")
    finally:
        where.chmod(0o755)
    shown = "ro/skills" if command == "plugin" else "ro"
    _one_error(res, f"{shown}: cannot write a report there: Permission denied")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "ro",
        "ro/skills",
    ]


def _unlistable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` cannot be listed (as mode -wx, which root is not refused): ``os.scandir``
    of it raises, as glob and a listing open it."""
    real = os.scandir
    at = os.path.abspath(folder)

    def scandir(path: Any = ".") -> Any:
        if not isinstance(path, int) and os.path.abspath(os.fspath(path)) == at:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_an_out_folder_that_cannot_be_listed_is_refused_before_anything_is_read(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder that takes files but cannot be listed (mode -wx) was taken: the reports
    # were written into it, but what is looked for there by listing it was not seen
    # (glob says nothing of a folder it cannot read): an input named as a report, the
    # temporary files of a killed write. Refused now, as a folder that takes no file is.
    args, _, _ = _reporter_args(command, fixtures)
    if command == "plugin":  # its markdown writes skills/*.md: that folder too
        args = [a for a in args if a not in ("--format", "csv")]
    (tmp_path / "wx" / "skills").mkdir(parents=True)
    for where in ["wx", "wx/skills"] if command == "plugin" else ["wx"]:
        with monkeypatch.context() as m:
            _unlistable(m, tmp_path / where)
            res = run_cli(*args, "--out", "wx", "--history", "h.jsonl")
        _one_error(res, f"{where}: cannot list the files there: Permission denied")
        assert res.stdout == ""
        assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
            "wx",
            "wx/skills",
        ]


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_an_out_folder_a_user_cannot_list_is_said_in_the_engines_words(
    run_cli: Any, tmp_path: Path, fixtures: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a user who may not read the folder (os.access says so; root is never refused):
    # pipeline's --out was click.Path(), which checks readability itself, so a user was
    # told "Invalid value for '--out': Path 'wx' is not readable." and root the engine's
    # message. One message for both now, plugin score's.
    args, _, _ = _reporter_args(command, fixtures)
    (tmp_path / "wx").mkdir()
    real = os.access
    at = os.path.abspath(tmp_path / "wx")

    def access(path: Any, mode: int, *a: Any, **k: Any) -> bool:
        if mode & os.R_OK and os.path.abspath(os.fspath(path)) == at:
            return False
        return real(path, mode, *a, **k)

    monkeypatch.setattr(os, "access", access)
    _unlistable(monkeypatch, tmp_path / "wx")
    res = run_cli(*args, "--out", "wx", "--history", "h.jsonl")
    _one_error(res, "wx: cannot list the files there: Permission denied")
    assert res.stdout == ""
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["wx"]


def _as_nobody() -> list[str]:
    """The command that runs the rest as user nobody, or a skip when this cannot be done
    here (not root, no setpriv, no such user, or this Python not runnable by it)."""
    import pwd

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a command as another user")
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    cmd = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups"]
    probe = subprocess.run(
        [*cmd, sys.executable, "-c", "import runscore"], capture_output=True, timeout=60
    )
    if probe.returncode != 0:
        pytest.skip(f"runscore cannot be run as nobody here: {probe.stderr[-200:]!r}")
    return cmd


@pytest.mark.parametrize("command", sorted(_REPORTERS))
def test_an_out_folder_that_cannot_be_listed_is_said_so_to_a_user_who_is_not_root(
    tmp_path: Path, fixtures: Path, command: str
) -> None:
    # For real, as nobody: a folder of mode -wx that user owns. pipeline said click's
    # "Path 'wx' is not readable." there, the engine's message only to root.
    as_nobody = _as_nobody()
    args, _, _ = _reporter_args(command, fixtures)
    home = Path(tempfile.mkdtemp(dir="/tmp"))  # tmp_path's parents are root's alone (700)
    try:
        src = Path(args[-1])
        inputs = home / src.name
        if src.is_dir():
            shutil.copytree(src, inputs)
        else:
            shutil.copy(src, inputs)
        (home / "wx").mkdir()
        uid, gid = int(as_nobody[1].split("=")[1]), int(as_nobody[2].split("=")[1])
        for p in [home, *home.rglob("*")]:
            os.chown(p, uid, gid)
        (home / "wx").chmod(0o300)
        p = subprocess.run(
            [*as_nobody, sys.executable, "-m", "runscore", *args[:-1], inputs.name]
            + ["--out", "wx", "--history", "h.jsonl"],
            cwd=home,
            env=dict(os.environ, HOME=str(home)),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert (p.returncode, p.stdout) == (2, ""), p.stderr
        assert (
            p.stderr.splitlines()[-1] == "error: wx: cannot list the files there: Permission denied"
        )
        assert sorted(x.name for x in home.iterdir()) == [inputs.name, "wx"]
        assert list((home / "wx").iterdir()) == []  # root may list it
    finally:
        shutil.rmtree(home)


def test_the_plugin_reports_are_checked_by_their_exact_names_before_the_history_grows(
    tmp_path: Path, fixtures: Path
) -> None:
    # The CLI refuses a folder named as any skills/*.md before it reads anything; through
    # the Python API (score, then the CLI's write_out, as the nightly job calls them) a
    # folder at the third report's name was found at its write: the history appended, two
    # reports written. score(out_dir=) checks every name before the append now, and
    # write_out before its first write, as pipeline's write_reports does.
    from runscore.cli import plugin as plugin_cli
    from runscore.engine.errors import CannotAccess
    from runscore.engine.packs import plugin

    for name in ("a", "b", "c"):
        shutil.copytree(fixtures / "plugin" / "async-python-patterns", tmp_path / "s" / name)
    out, hist = tmp_path / "out", tmp_path / "h.jsonl"
    result = plugin.rank([str(tmp_path / "s")])
    names = plugin.report_names(result, "markdown")
    assert names == ["plugin-report.md", "skills/a.md", "skills/b.md", "skills/c.md"]
    (out / "skills" / "c.md").mkdir(parents=True)
    before = _tree(tmp_path)
    with pytest.raises(CannotAccess) as e:
        plugin_cli.write_out(result, str(out), "markdown")
    assert (e.value.cli_message, e.value.params) == (
        f"{out}/skills/c.md: Is a directory",
        ("out_dir",),
    )
    with pytest.raises(CannotAccess) as e:
        plugin.score([str(tmp_path / "s")], history_path=str(hist), out_dir=str(out))
    assert (e.value.cli_message, e.value.params) == (
        f"{out}/skills/c.md: Is a directory",
        ("out_dir",),
    )
    assert _tree(tmp_path) == before
    assert sorted(p.name for p in (out / "skills").iterdir()) == ["c.md"]
    # A folder at a name no report of this format takes is a folder as any other.
    res = plugin.score(
        [str(tmp_path / "s")], history_path=str(hist), out_dir=str(out), out_format=["json", "csv"]
    )
    assert res.history_written == 3


def test_a_plugin_history_that_is_a_file_of_a_skill_it_scores_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `plugin score s --history s/a/SKILL.md` appended the skill records to that SKILL.md,
    # exit 0 (its next score read a file of JSON lines), and a history in a skill's
    # references/ or assets/ folder became one of its files: the next run scored the skill
    # with two files more (the history and its lock), a new record for unchanged input.
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", tmp_path / "s" / "a")
    (tmp_path / "s" / "a" / "assets").mkdir()
    before = {p: p.read_bytes() for p in (tmp_path / "s").rglob("*") if p.is_file()}
    for root, hist, message in [
        ("s", "s/a/SKILL.md", "s/a/SKILL.md: that is the SKILL.md of the skill s/a the score "
         "reads (ROOTS)"),
        ("s/a/SKILL.md", "./s/a/SKILL.md", "./s/a/SKILL.md: that is the SKILL.md of the skill "
         "s/a the score reads (ROOTS)"),
        ("s", "s/a/references/h.jsonl", "s/a/references/h.jsonl: that is in the references/ "
         "folder of the skill s/a the score reads (ROOTS), as one of its files"),
        ("s", "s/a/assets/h.jsonl", "s/a/assets/h.jsonl: that is in the assets/ folder of "
         "the skill s/a the score reads (ROOTS), as one of its files"),
    ]:  # fmt: skip
        res = run_cli("plugin", "score", root, "--history", hist)
        _one_error(res, f"{message}; choose another --history (see 'cli plugin score --help')")
        assert res.stdout == ""
        assert {p: p.read_bytes() for p in (tmp_path / "s").rglob("*") if p.is_file()} == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]
    # a history beside the skill's files, not one of them, is a history as any other
    res = run_cli("plugin", "score", "s", "--history", "s/a/h.jsonl", "--format", "csv")
    assert res.exit_code == 0
    assert res.stderr.splitlines()[-1] == "history s/a/h.jsonl: 1 new record(s)"


def test_a_plugin_report_folder_in_a_skill_it_scores_is_refused(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `plugin score s --out s/a` wrote plugin-report.md and skills/*.md among the files of
    # the skill s/a it had just scored, exit 0; into s/a/references/ they were reference
    # files the next run scored the skill by (a report named skills/SKILL.md, a skill of
    # its own). Refused before anything is read or written, exit 2, in the words of a
    # history that is a file of a skill.
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", tmp_path / "s" / "a")
    shutil.copytree(fixtures / "plugin" / "async-python-patterns", tmp_path / "t" / "skills")
    before = _tree(tmp_path)
    dirs = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_dir())
    for root, out, fmt, message in [
        ("s", "s/a", "markdown", "s/a/plugin-report.md: that is in the folder of the skill s/a "
         "the score reads (ROOTS)"),
        ("s/a/SKILL.md", "s/a/", "json", "s/a/plugin-report.json: that is in the folder of the "
         "skill s/a the score reads (ROOTS)"),
        ("s", "s/a/references", "csv", "s/a/references/plugin-report.csv: that is in the "
         "references/ folder of the skill s/a the score reads (ROOTS), as one of its files"),
        ("s", "s/a/assets", "markdown", "s/a/assets/plugin-report.md: that is in the assets/ "
         "folder of the skill s/a the score reads (ROOTS), as one of its files"),
        ("s", "s/a/new/deeper", "markdown", "s/a/new/deeper/plugin-report.md: that is in the "
         "folder of the skill s/a the score reads (ROOTS)"),
        # the root's skill named `skills`: the per-skill reports would land in it
        ("t", "t", "markdown", "t/skills/*.md: that is in the folder of the skill t/skills "
         "the score reads (ROOTS)"),
    ]:  # fmt: skip
        res = run_cli("plugin", "score", root, "--out", out, "--format", fmt)
        _one_error(res, f"{message}; choose another --out (see 'cli plugin score --help')")
        assert res.stdout == ""
        assert _tree(tmp_path) == before
        assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_dir()) == (
            dirs
        )
    # A skill the score does not read is a folder as any other; so is a root's own folder.
    for root, out in [("s", "t/skills"), ("s", "s")]:
        res = run_cli("plugin", "score", root, "--out", out, "--no-history")
        assert res.exit_code == 0, res.stderr


def test_the_pipeline_history_found_in_a_tasks_folder_is_left_out(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # `pipeline .` in a project kept its history at ./.archeflow/memory/pipelines.jsonl,
    # below the folder it reads: the first run wrote it, and every run after was refused,
    # exit 2 (`that is the tasks file ./.archeflow/memory/pipelines.jsonl the pipeline
    # reads (TASKS); choose another --history`), for a --history never given. The history
    # is not read as task snapshots, as `extract .archeflow` leaves its own out, with a note;
    # nor are the other packs' histories beside it (each line was rejected, exit 1).
    (tmp_path / "tasks.jsonl").write_bytes((fixtures / "pipeline" / "tasks.jsonl").read_bytes())
    note = "./.archeflow/memory/pipelines.jsonl: not read: it is runscore's pipeline history"
    first = run_cli("pipeline", ".", "--out", "out", "--date", "2026-03-07")
    assert first.exit_code == 1  # tasks.jsonl:22 has no task id
    assert note not in first.stderr
    memory = tmp_path / ".archeflow" / "memory"
    (memory / "effectiveness.jsonl").write_text(
        '{"run_id": "r1", "scoring_version": "effectiveness/v1"}\n'
    )
    (memory / "plugins.jsonl").write_text('{"scoring_version": "plugin/v1", "skill": "a"}\n')
    for args in ([], ["--format", "csv"]):
        res = run_cli("pipeline", ".", "--out", "out", "--date", "2026-03-07", *args)
        assert res.exit_code == 1, res.stderr
        lines = res.stderr.splitlines()
        assert lines[:4] == [
            "./.archeflow/memory/effectiveness.jsonl: not read: it is runscore's effectiveness "
            "history",
            note,
            "./.archeflow/memory/plugins.jsonl: not read: it is runscore's plugin history",
            "./tasks.jsonl:22: no task id (id or taskId)",
        ]
        assert lines[-1] == (
            "history .archeflow/memory/pipelines.jsonl: 0 new record(s), 4 already recorded"
        )
        assert res.stdout == first.stdout if not args else res.stdout.count("\n") == 6
    # A tasks file found there and named as the history is still refused: it is an input.
    (tmp_path / "t2").mkdir()
    (tmp_path / "t2" / "t.jsonl").write_text(
        '{"pipelineId": "p", "id": "a", "status": "completed"}\n'
    )
    res = run_cli("pipeline", "t2", "--history", "t2/t.jsonl", "--out", "out")
    _one_error(
        res,
        "t2/t.jsonl: that is the tasks file t2/t.jsonl the pipeline reads (TASKS); choose another "
        "--history (see 'cli pipeline --help')",
    )
