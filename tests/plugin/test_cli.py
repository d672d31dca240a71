"""`runscore plugin score` / `plugin rank`: output contract, golden reports, history, errors."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from runscore.cli import output
from runscore.cli.plugin import table_writers
from runscore.engine.packs import plugin as engine

GOLDEN = Path(__file__).resolve().parent / "golden"
ROOT = "in/plugin"  # copy_fixture("plugin") lands here, relative to the run's cwd
HISTORY = Path(".archeflow/memory/plugins.jsonl")

CONTRACT = [
    "skill",
    "name",
    "static",
    "anti_patterns",
    "dimensions",
    "depth",
    "composite",
    "grade",
    "badge",
    "elo",
    "mc",
    "judges",
]


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RUNSCORE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.fixture
def fixture_root(copy_fixture: Callable[[str], Path]) -> str:
    copy_fixture("plugin")
    return ROOT


def test_json_contract(run_cli: Callable[..., Result], fixture_root: str) -> None:
    r = run_cli("plugin", "score", fixture_root, "--format", "json", "--no-history")
    assert r.exit_code == 0, r.stderr
    skills = json.loads(r.stdout)
    assert [s["skill"] for s in skills] == [
        "async-python-patterns",
        "evaluation-methodology",
        "team-composition-patterns",
    ]
    for s in skills:
        assert [k for k in s if k in CONTRACT] == CONTRACT
        assert set(s["static"]) >= {"score", "sub_scores", "penalty"}
        assert all(set(a) >= {"flag", "evidence"} for a in s["anti_patterns"])
        assert len(s["dimensions"]) == 10
        assert s["elo"] is None and s["mc"] is None and s["judges"] is None
        expected = json.loads(Path(ROOT, s["skill"], "expected.json").read_text())
        assert s["composite"] == expected["composite"]
        assert s["static"]["score"] == expected["static"]["score"]
    assert not HISTORY.exists()


def test_markdown_report_golden(run_cli: Callable[..., Result], fixture_root: str) -> None:
    r = run_cli("plugin", "score", fixture_root, "--no-history")
    assert r.exit_code == 0, r.stderr
    golden("score.md", r.stdout)
    assert "description has no trigger phrase" not in r.stdout  # all three have one
    assert "| output_quality | 0.15 | — | — |" in r.stdout


def test_csv_golden(run_cli: Callable[..., Result], fixture_root: str) -> None:
    r = run_cli("plugin", "score", fixture_root, "--format", "csv", "--no-history")
    assert r.exit_code == 0, r.stderr
    golden("score.csv", r.stdout)


def test_csv_flags_mean_what_json_flags_mean(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # `flags` was the flags' names in score's CSV, a count in its JSON (`static.flags`) and
    # in rank's CSV; and the CSV had no flag's line or evidence.
    args = ("plugin", "score", fixture_root, "--no-history", "--format")
    j = {s["skill"]: s for s in json.loads(run_cli(*args, "json").stdout)}
    rows = list(csv.DictReader(io.StringIO(run_cli(*args, "csv").stdout)))
    assert [r["flags"] for r in rows] == [str(j[r["skill"]]["static"]["flags"]) for r in rows]
    assert [json.loads(r["anti_patterns"]) for r in rows] == [
        j[r["skill"]]["anti_patterns"] for r in rows
    ]
    (em,) = [r for r in rows if r["skill"] == "evaluation-methodology"]
    assert em["flags"] == "3"
    assert [(a["flag"], a["line"]) for a in json.loads(em["anti_patterns"])] == [
        ("ORPHAN_REFERENCE", 241),
        ("ORPHAN_REFERENCE", 246),
        ("DEAD_CROSS_REF", 35),
    ]


def test_rank_golden_and_json(run_cli: Callable[..., Result], fixture_root: str) -> None:
    r = run_cli("plugin", "rank", fixture_root)
    assert r.exit_code == 0, r.stderr
    golden("rank.md", r.stdout)
    j = json.loads(run_cli("plugin", "rank", fixture_root, "--format", "json").stdout)
    assert [(x["rank"], x["skill"]) for x in j] == [
        (1, "team-composition-patterns"),
        (2, "async-python-patterns"),
        (3, "evaluation-methodology"),
    ]
    assert not HISTORY.exists()  # rank never writes history
    # csv carries the same fields and values as json (path included), unknown Elo empty
    rows = list(
        csv.DictReader(
            io.StringIO(run_cli("plugin", "rank", fixture_root, "--format", "csv").stdout)
        )
    )
    assert [list(r) for r in rows] == [list(x) for x in j]
    assert [r["path"] for r in rows] == [x["path"] for x in j]
    assert [(r["rank"], r["composite"], r["elo"]) for r in rows] == [
        (str(x["rank"]), repr(x["composite"]), "") for x in j
    ]


def test_skills_that_tie_share_a_rank(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    # Same text, same name-vs-folder relation: the same composite. With no Elo, or the same
    # Elo, nothing places one above the other, yet they were ranked 1, 2, 3 by path.
    text = "---\nname: {}\ndescription: Use when testing ties between skills.\n---\nbody\n"
    for folder in ("b", "a", "c", "d"):
        (tmp_path / "tie" / folder).mkdir(parents=True)
        (tmp_path / "tie" / folder / "SKILL.md").write_text(text.format(f"n-{folder}"))
    (tmp_path / "tie" / "best").mkdir()
    (tmp_path / "tie" / "best" / "SKILL.md").write_text(
        text.format("best") + "## Output format\nReturns JSON.\n"
    )
    matchups = tmp_path / "m.jsonl"
    matchups.write_text(
        "".join(
            json.dumps({"skill": s, "opponent": "o", "opponent_elo": 1500, "result": "win"}) + "\n"
            for s in ("c", "d")
        )
    )
    args = ("plugin", "rank", "tie", "--matchups", str(matchups))
    j = json.loads(run_cli(*args, "--format", "json").stdout)
    assert [(x["rank"], x["skill"]) for x in j] == [
        (1, "best"),
        (2, "c"),  # the same composite and Elo as d
        (2, "d"),
        (4, "a"),  # the same composite as c and d, no Elo: after them, tied with b
        (4, "b"),
    ]
    md = run_cli(*args).stdout.splitlines()[2:]
    assert [line.split(" | ")[:2] for line in md] == [
        ["| 1", "best"],
        ["| 2", "c"],
        ["| 2", "d"],
        ["| 4", "a"],
        ["| 4", "b"],
    ]


def test_history_is_append_only_and_idempotent(
    run_cli: Callable[..., Result], fixture_root: str, tmp_path: Path
) -> None:
    assert run_cli("plugin", "score", fixture_root, "--format", "json").exit_code == 0
    first = HISTORY.read_text().splitlines()
    assert len(first) == 3
    rec = json.loads(first[0])
    assert rec["scoring_version"] == "plugin/v1"
    assert rec["skill"] == "async-python-patterns"
    assert rec["composite"] == 72.56508749466497
    assert rec["dimensions"]["output_quality"] is None
    r = run_cli("plugin", "score", fixture_root, "--format", "json")
    assert "0 new record(s), 3 already recorded" in r.stderr
    assert HISTORY.read_text().splitlines() == first
    # New evidence for one skill is a new record; the others stay put.
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        json.dumps(
            {"skill": "async-python-patterns", "judge": "j", "scores": {"scope_calibration": 0.5}}
        )
        + "\n"
    )
    r = run_cli("plugin", "score", fixture_root, "--judge", str(judge), "--format", "json")
    lines = HISTORY.read_text().splitlines()
    assert lines[:3] == first and len(lines) == 4
    assert json.loads(lines[3])["depth"] == "standard"
    # A custom history path.
    run_cli("plugin", "score", fixture_root, "--history", "h.jsonl", "--format", "json")
    assert len(Path("h.jsonl").read_text().splitlines()) == 3


def test_lock_timeout_is_how_long_score_waits_for_the_history_lock(
    run_cli: Callable[..., Result], fixture_root: str, tmp_path: Path
) -> None:
    # `plugin score` waited a fixed 300 s for a history lock held elsewhere, where
    # `extract` and `pipeline` take --lock-timeout: a script could not say how long to wait.
    import time

    from runscore.engine import history

    hist = tmp_path / "h.jsonl"
    for out in (["--out", "report"], []):
        with history.locked(str(hist), timeout=0):
            start = time.monotonic()
            r = run_cli(
                "plugin", "score", fixture_root, "--history", str(hist), *out,
                "--lock-timeout", "0.2",
            )  # fmt: skip
            waited = time.monotonic() - start
        assert (r.exit_code, r.stdout) == (4, "")
        assert r.stderr == (
            f"error: {hist}: another runscore process holds the plugin history lock\n"
        )
        assert waited < 60  # not the 300 s it waited before
    assert not Path("report").exists()  # no report of records the history does not hold
    assert not hist.exists()
    r = run_cli("plugin", "score", fixture_root, "--history", str(hist), "--lock-timeout", "0")
    assert r.exit_code == 0, r.stderr  # the lock free: taken at once
    assert len(hist.read_text().splitlines()) == 3


def test_a_history_line_that_gives_a_key_field_twice_is_skipped_not_taken(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # The idempotency check took the first of two `skill`s (DuckDB's; Python and
    # JavaScript take the last): the record was taken as there, and not written again.
    # It reads such a line as a line that is not JSON now: skipped with a warning.
    assert run_cli("plugin", "score", fixture_root, "--format", "json").exit_code == 0
    lines = HISTORY.read_text().splitlines()
    assert json.loads(lines[0])["skill"] == "async-python-patterns"
    lines[0] = lines[0][:-1] + ',"skill":"elsewhere"}'
    HISTORY.write_text("".join(x + "\n" for x in lines))
    r = run_cli("plugin", "score", fixture_root, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert r.stderr == (
        "warning: .archeflow/memory/plugins.jsonl:1: history line skipped: duplicate key skill\n"
        "scored 3 skill(s)\n"
        "history .archeflow/memory/plugins.jsonl: 1 new record(s), 2 already recorded\n"
    )
    now = HISTORY.read_text().splitlines()
    assert now[:3] == lines  # nothing rewritten
    assert json.loads(now[3])["skill"] == "async-python-patterns"
    assert len(now) == 4


def test_a_change_to_the_skill_folder_is_a_new_history_record(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # The score reads more than SKILL.md: assets/ (progressive disclosure) and whether a
    # cross-reference resolves (DEAD_CROSS_REF). A change there moved the composite, but
    # the record was "already recorded" (same SKILL.md, same evidence) and never written.
    def score() -> tuple[str, float]:
        r = run_cli("plugin", "score", fixture_root, "--format", "json")
        composite = {s["skill"]: s["composite"] for s in json.loads(r.stdout)}
        return r.stderr, composite["team-composition-patterns"]

    _, before = score()
    assert before == 72.8030303030303
    (Path(ROOT, "team-composition-patterns", "assets")).mkdir()
    Path(ROOT, "team-composition-patterns", "assets", "template.md").write_text("x\n")
    err, after = score()
    assert after == 75.07575757575758
    assert "1 new record(s), 2 already recorded" in err
    recs = [json.loads(x) for x in HISTORY.read_text().splitlines()]
    assert [(r["skill"], r["composite"]) for r in recs[3:]] == [
        ("team-composition-patterns", after)
    ]
    # The dead cross-reference of evaluation-methodology starts to resolve.
    dead = next(
        a["target"]
        for s in json.loads(
            run_cli("plugin", "score", fixture_root, "--format", "json", "--no-history").stdout
        )
        for a in s["anti_patterns"]
        if a["flag"] == "DEAD_CROSS_REF"
    )
    Path(ROOT, dead).mkdir(parents=True)
    err, _ = score()
    assert "1 new record(s), 2 already recorded" in err
    assert json.loads(HISTORY.read_text().splitlines()[-1])["skill"] == "evaluation-methodology"
    err, _ = score()
    assert "0 new record(s), 3 already recorded" in err


def test_unreadable_and_non_utf8_skills_are_reported_not_fatal(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    bad = Path(ROOT, "latin1")
    bad.mkdir()
    (bad / "SKILL.md").write_bytes(b"---\nname: caf\xe9\n---\n")
    gone = Path(ROOT, "dangling")
    gone.mkdir()
    (gone / "SKILL.md").symlink_to(gone / "nowhere.md")
    r = run_cli("plugin", "score", fixture_root, "--format", "json", "--no-history")
    assert r.exit_code == 1
    assert [s["skill"] for s in json.loads(r.stdout)] == [
        "async-python-patterns",
        "evaluation-methodology",
        "team-composition-patterns",
    ]
    assert f"{ROOT}/latin1/SKILL.md:2: not valid UTF-8 (byte 14)" in r.stderr
    assert f"{ROOT}/dangling/SKILL.md: cannot read file: No such file or directory" in r.stderr


def test_a_skill_md_in_utf16_or_utf32_is_said_to_be_so_not_scored(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # Windows tools write UTF-16. Without a byte-order mark it is valid UTF-8 (a NUL beside
    # each character): the skill was scored, silently, as one line of NULs with no
    # frontmatter. With the mark it was "not valid UTF-8 (byte 1)".
    text = "---\nname: wide\ndescription: Use when testing encodings.\n---\n## Body\n"
    for folder, data in {
        "le-bom": text.encode("utf-16"),
        "be": text.encode("utf-16-be"),
        "le": text.encode("utf-16-le"),
        "utf32": text.encode("utf-32"),
    }.items():
        Path(ROOT, folder).mkdir()
        Path(ROOT, folder, "SKILL.md").write_bytes(data)
    r = run_cli("plugin", "score", fixture_root, "--format", "json", "--no-history")
    assert r.exit_code == 1
    assert [s["skill"] for s in json.loads(r.stdout)] == [
        "async-python-patterns",
        "evaluation-methodology",
        "team-composition-patterns",
    ]
    said = "runscore reads SKILL.md as UTF-8 (convert it first, e.g. iconv -f"
    assert [ln for ln in r.stderr.splitlines() if "encoded as" in ln] == [
        f"{ROOT}/be/SKILL.md: encoded as UTF-16 BE (no byte-order mark; every other byte is "
        f"NUL): {said} UTF-16BE -t UTF-8)",
        f"{ROOT}/le-bom/SKILL.md: encoded as UTF-16 LE (byte-order mark): {said} UTF-16 -t UTF-8)",
        f"{ROOT}/le/SKILL.md: encoded as UTF-16 LE (no byte-order mark; every other byte is "
        f"NUL): {said} UTF-16LE -t UTF-8)",
        f"{ROOT}/utf32/SKILL.md: encoded as UTF-32 LE (byte-order mark): {said} UTF-32 -t UTF-8)",
    ]


def test_markdown_lists_input_not_used(
    run_cli: Callable[..., Result], fixture_root: str, tmp_path: Path
) -> None:
    mc = tmp_path / "mc.jsonl"
    mc.write_text('{"skill": "ghost", "activated": true}\n')
    r = run_cli("plugin", "score", fixture_root, "--mc", str(mc), "--no-history")
    assert r.exit_code == 1
    assert "## Input not used" in r.stdout
    assert f'{mc}:1: no scored skill matches skill "ghost"' in r.stderr


def test_nothing_to_score(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    r = run_cli("plugin", "score", "empty", "missing")
    assert r.exit_code == 3
    assert "empty: no SKILL.md found under this root" in r.stderr
    assert "missing: no such directory" in r.stderr


@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling symlink"])
def test_a_history_that_is_not_a_regular_file_is_a_usage_error(
    run_cli: Callable[..., Result], fixture_root: str, kind: str
) -> None:
    # README exit codes: a history runscore cannot write is a usage error (2), as for
    # `extract`; it was exit 3 ("nothing could be read") after every skill was scored.
    if kind == "folder":
        os.mkdir("hist")
    elif kind == "fifo":
        os.mkfifo("hist")
    else:
        os.symlink("nowhere/h.jsonl", "hist")
    r = run_cli("plugin", "score", fixture_root, "--history", "hist", "--format", "csv")
    assert r.exit_code == 2
    assert r.stdout == ""
    reason = (
        "refusing to write through a symlink"
        if "symlink" in kind
        else ("the history is not a regular file")
    )
    assert f"error: hist: {reason}" in r.stderr


def test_missing_input_file_is_a_usage_error(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    r = run_cli("plugin", "score", fixture_root, "--judge", "nope.jsonl")
    assert r.exit_code == 2
    assert "--judge nope.jsonl: no such file" in r.stderr


@pytest.mark.parametrize("command", ["score", "rank"])
def test_an_option_given_a_file_that_holds_no_line_is_said_once_for_the_file(
    run_cli: Callable[..., Result], fixture_root: str, command: str
) -> None:
    # Such a file was read as "no results": every skill scored at depth quick, exit 0, not a
    # word. The skills were read (not nothing read, exit 3) and no line was rejected (not
    # exit 1): a warning per file, the report as without the option.
    Path("judge.jsonl").write_text("")
    Path("mc.jsonl").write_text("\n  \r\n\t\n")
    Path("matchups.jsonl").write_text("")
    opts = ["--judge", "judge.jsonl", "--mc", "mc.jsonl", "--matchups", "matchups.jsonl"]
    extra = ["--no-history"] if command == "score" else []
    r = run_cli("plugin", command, fixture_root, *opts, "--format", "csv", *extra)
    plain = run_cli("plugin", command, fixture_root, "--format", "csv", *extra)
    assert (r.exit_code, r.stdout) == (0, plain.stdout)
    said = [line for line in r.stderr.splitlines() if line not in plain.stderr.splitlines()]
    assert said == [
        "warning: judge.jsonl: empty (no judge results); scored without --judge",
        "warning: mc.jsonl: only blank lines (no Monte Carlo runs); scored without --mc",
        "warning: matchups.jsonl: empty (no matchups); scored without --matchups",
    ]
    # A file with a line is not empty, though the line is not used (exit 1, the line said).
    Path("judge.jsonl").write_text("\n{}\n")
    r = run_cli("plugin", command, fixture_root, "--judge", "judge.jsonl", *extra)
    assert r.exit_code == 1
    assert "judge.jsonl:2: " in r.stderr and "warning: judge.jsonl" not in r.stderr


SKILL = "async-python-patterns"


def _judged(judge: str, triggering: float) -> str:
    scores = {
        "triggering_accuracy": triggering,
        "orchestration_fitness": 0.7,
        "output_quality": 0.75,
        "scope_calibration": 0.6,
    }
    return json.dumps({"skill": SKILL, "judge": judge, "scores": scores}) + "\n"


@pytest.mark.parametrize("command", ["score", "rank"])
def test_judge_given_twice_reads_both_files(
    run_cli: Callable[..., Result], fixture_root: str, command: str
) -> None:
    # Only the last --judge was read, without a word: a judge per file came out as one
    # judge, with no kappa and depth from one file's evidence.
    Path("a.jsonl").write_text(_judged("a", 0.8))
    Path("b.jsonl").write_text(_judged("b", 0.3))
    extra = ["--no-history"] if command == "score" else []
    both = ["--judge", "a.jsonl", "--judge", "b.jsonl"]
    r = run_cli("plugin", command, fixture_root, *both, "--format", "json", *extra)
    Path("ab.jsonl").write_text(_judged("a", 0.8) + _judged("b", 0.3))
    one = run_cli(
        "plugin", command, fixture_root, "--judge", "ab.jsonl", "--format", "json", *extra
    )
    assert (r.exit_code, r.stderr) == (0, one.stderr)
    assert r.stdout == one.stdout
    if command == "score":
        # Bands A B B B against D B B B: agreement 3/4, by chance 9/16.
        kappa = (3 / 4 - 9 / 16) / (1 - 9 / 16)
        judges = {s["skill"]: s["judges"] for s in json.loads(r.stdout)}
        assert judges[SKILL] == {
            "count": 2,
            "kappa": pytest.approx(kappa),
            "pairs": [
                {"judge_a": "a", "judge_b": "b", "dimensions": 4, "kappa": pytest.approx(kappa)}
            ],
        }


def test_mc_given_twice_counts_both_files_runs(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    run = {"skill": SKILL, "activated": True, "quality_score": 0.8, "tokens": 100}
    Path("m1.jsonl").write_text(json.dumps({**run, "errored": False}) + "\n")
    Path("m2.jsonl").write_text(
        json.dumps({**run, "errored": False}) + "\n" + json.dumps({**run, "errored": True}) + "\n"
    )
    r = run_cli(
        "plugin", "score", fixture_root, "--mc", "m1.jsonl", "--mc", "m2.jsonl",
        "--format", "json", "--no-history",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    mc = {s["skill"]: s["mc"] for s in json.loads(r.stdout)}[SKILL]
    assert (mc["n"], mc["activated"], mc["errored"]) == (3, 3, 1)
    # One file named twice is read once (as --events): its runs are not counted twice.
    r = run_cli(
        "plugin", "score", fixture_root, "--mc", "m2.jsonl", "--mc", "./m2.jsonl",
        "--format", "json", "--no-history",
    )  # fmt: skip
    assert {s["skill"]: s["mc"] for s in json.loads(r.stdout)}[SKILL]["n"] == 2


def test_matchups_given_twice_are_one_list_in_the_order_given(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # spec §7's test vector, split across two files: 1534.1586 as from one file.
    vector = [(1500, "win"), (1550, "draw"), (1450, "loss"), (1600, "win"), (1500, "win")]
    lines = [
        json.dumps({"skill": SKILL, "opponent": "x", "opponent_elo": e, "result": res}) + "\n"
        for e, res in vector
    ]
    Path("m1.jsonl").write_text("".join(lines[:2]))
    Path("m2.jsonl").write_text("".join(lines[2:]))
    r = run_cli(
        "plugin", "score", fixture_root, "--matchups", "m1.jsonl", "--matchups", "m2.jsonl",
        "--format", "json", "--no-history",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    elo = {s["skill"]: s["elo"] for s in json.loads(r.stdout)}[SKILL]
    assert round(elo["rating"], 4) == 1534.1586


def test_a_bad_line_in_the_second_file_is_said_with_its_file_and_line(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    Path("a.jsonl").write_text(_judged("a", 0.8))
    Path("b.jsonl").write_text(_judged("b", 0.3) + "not json\n")
    Path("c.jsonl").write_text("")
    r = run_cli(
        "plugin", "rank", fixture_root,
        "--judge", "a.jsonl", "--judge", "b.jsonl", "--judge", "c.jsonl",
    )  # fmt: skip
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "b.jsonl:2: not JSON: Expecting value: line 1 column 1 (char 0)",
        # beside files that hold lines, the empty one is said, not "scored without"
        "warning: c.jsonl: empty (no judge results)",
    ]


def test_a_judge_scoring_a_skill_again_in_a_later_file_wins_over_the_earlier(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # As within one file: the later line counts, the earlier one is said (exit 1).
    Path("a.jsonl").write_text(_judged("a", 0.8))
    Path("b.jsonl").write_text(_judged("a", 0.3))
    r = run_cli(
        "plugin", "score", fixture_root, "--judge", "a.jsonl", "--judge", "b.jsonl",
        "--format", "json", "--no-history",
    )  # fmt: skip
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == (
        'a.jsonl:1: judge "a" scored this skill again later; this line is ignored'
    )
    later = run_cli(
        "plugin", "score", fixture_root, "--judge", "b.jsonl", "--format", "json", "--no-history"
    )  # fmt: skip
    assert r.stdout == later.stdout
    assert {s["skill"]: s["judges"] for s in json.loads(r.stdout)}[SKILL]["count"] == 1


def test_out_directory(run_cli: Callable[..., Result], fixture_root: str) -> None:
    r = run_cli("plugin", "score", fixture_root, "--out", "report", "--no-history")
    assert r.exit_code == 0 and r.stdout == ""
    assert sorted(p.relative_to("report").as_posix() for p in Path("report").rglob("*.md")) == [
        "plugin-report.md",
        "skills/async-python-patterns.md",
        "skills/evaluation-methodology.md",
        "skills/team-composition-patterns.md",
    ]
    one = Path("report/skills/evaluation-methodology.md").read_text()
    assert one.startswith("## 3. evaluation-methodology: 70.50 / 100, grade C-")
    assert "**DEAD_CROSS_REF** (agents): line 35: skills/agents" in one
    r = run_cli(
        "plugin", "score", fixture_root, "--out", "report", "--format", "json", "--no-history"
    )
    assert len(json.loads(Path("report/plugin-report.json").read_text())) == 3


def test_out_again_lists_only_this_runs_skills_and_keeps_earlier_files(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # A skill gone from the roots keeps its skills/NAME.md of an earlier run: runscore
    # deletes nothing it did not write in this run (README). The report of this run must
    # not list it, nor link to it, in any format.
    for name in ("kept-skill", "gone-skill"):
        (tmp_path / "r" / name).mkdir(parents=True)
        (tmp_path / "r" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    r = run_cli("plugin", "score", "r", "--out", "report", "--no-history")
    assert r.exit_code == 0, r.stderr
    assert "gone-skill" in Path("report/plugin-report.md").read_text()
    gone = Path("report/skills/gone-skill.md")
    before = gone.read_text()
    for f in Path("r/gone-skill").iterdir():
        f.unlink()
    Path("r/gone-skill").rmdir()
    for fmt in ("markdown", "json", "csv"):
        r = run_cli("plugin", "score", "r", "--out", "report", "--format", fmt, "--no-history")
        assert r.exit_code == 0, r.stderr
        assert "scored 1 skill(s)" in r.stderr
        ext = {"markdown": "md"}.get(fmt, fmt)
        index = Path(f"report/plugin-report.{ext}").read_text()
        assert "kept-skill" in index and "gone-skill" not in index, fmt
    r = run_cli("plugin", "score", "r", "--out", "report", "--no-history")
    assert "wrote 2 file(s) to report" in r.stderr  # the index and kept-skill.md
    assert gone.read_text() == before  # kept, not deleted nor rewritten
    assert sorted(p.name for p in Path("report/skills").iterdir()) == [
        "gone-skill.md",
        "kept-skill.md",
    ]


def test_out_is_checked_once_by_the_engine(
    run_cli: Callable[..., Result], fixture_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder was checked three times: refuse_inputs_written (a probe file in it),
    # score(out_dir=) (another) and write_out (a third), beside click's type and the CLI's
    # own test of a file at --out. One engine check now, score(out_dir=): the probe before
    # anything is read, the exact report names once the skills are scored.
    import tempfile

    probes: list[str] = []
    for name in ("mkstemp", "mkdtemp"):
        real = getattr(tempfile, name)

        def counted(*a: object, _real: Callable[..., object] = real, **kw: object) -> object:
            if str(kw.get("prefix", "")).startswith(".runscore-probe-"):
                probes.append(str(kw.get("dir")))
            return _real(*a, **kw)

        monkeypatch.setattr(tempfile, name, counted)
    for out, fmt, where in [
        ("new", "json", "."),  # to be made: probed where it is made
        ("report", "json", "report"),
        ("report", "markdown", "report"),  # its skills/ is made by the write
    ]:
        Path("report").mkdir(exist_ok=True)
        probes.clear()
        r = run_cli("plugin", "score", fixture_root, "--out", out, "--format", fmt, "--no-history")
        assert r.exit_code == 0, r.stderr
        assert [os.path.relpath(p) for p in probes] == [where], (out, fmt)
    probes.clear()
    r = run_cli("plugin", "score", fixture_root, "--out", "report", "--no-history")
    assert r.exit_code == 0, r.stderr
    assert [os.path.relpath(p) for p in probes] == ["report", "report/skills"]


def test_a_judge_file_named_as_a_report_in_an_unlistable_skills_folder_is_not_replaced(
    run_cli: Callable[..., Result], fixture_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # report/skills of mode -wx: glob saw no skills/*.md there, so the judge file
    # report/skills/async-python-patterns.md was read, then replaced by that skill's
    # report (exit 1, its line matched no skill). The folder is refused now, as one that
    # takes no file is, before anything is read or written.
    judge = Path("report/skills/async-python-patterns.md")
    judge.parent.mkdir(parents=True)
    judge.write_text('{"skill": "x"}\n')
    real, at = os.scandir, os.path.abspath(judge.parent)

    def scandir(path: object = ".") -> object:
        if isinstance(path, str) and os.path.abspath(path) == at:
            raise PermissionError(13, "Permission denied", path)
        return real(path)  # type: ignore[call-overload]

    with monkeypatch.context() as m:
        m.setattr(os, "scandir", scandir)
        r = run_cli(
            "plugin", "score", fixture_root, "--out", "report", "--judge", str(judge),
            "--no-history",
        )  # fmt: skip
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == "error: report/skills: cannot list the files there: Permission denied\n"
    assert judge.read_text() == '{"skill": "x"}\n'
    assert sorted(p.name for p in Path("report").rglob("*")) == [judge.name, "skills"]


def test_the_command_lines_mistakes_are_said_before_out_folders(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # One rule for two mistakes at once: the command line's own (click's, an empty path,
    # options that cannot go together) before any path is looked at, --out's folder
    # included (README: "said before any file is looked at"). An empty --history or
    # --judge was said only after the folder: `--out nf --history ""` named nf, and the
    # history's mistake came once that was fixed.
    Path("nf").write_text("")
    see = " (see 'cli plugin score --help')\n"  # CliRunner's program name
    cases = [
        ([], "error: --out nf: exists and is not a directory\n"),  # alone: said
        (
            ["--history", "h.jsonl", "--no-history"],
            "error: --history and --no-history cannot be given together: --no-history "
            "appends to none" + see,
        ),
        (
            ["--lock-timeout", "3", "--no-history"],
            "error: --lock-timeout and --no-history cannot be given together: with no "
            "history there is no lock to wait for" + see,
        ),
        (
            ["--history", ""],
            "error: the history: an empty path (an unset variable?); give a file" + see,
        ),
        (["--judge", ""], "error: --judge: an empty path (an unset variable?); give a file" + see),
        (
            ["--matchups", ""],
            "error: --matchups: an empty path (an unset variable?); give a file" + see,
        ),
        (
            ["--lock-timeout", "-1"],
            "error: Invalid value for '--lock-timeout': \"-1\" is not a finite number of "
            "seconds, 0 or more" + see,
        ),
    ]
    for out_last in (False, True):
        for args, said in cases:
            given = [*args, "--out", "nf"] if out_last else ["--out", "nf", *args]
            r = run_cli("plugin", "score", fixture_root, *given)
            assert (r.exit_code, r.stdout, r.stderr) == (2, "", said), given
    assert sorted(p.name for p in Path(".").iterdir()) == ["in", "nf"]


def test_out_files_of_skills_whose_names_differ_in_case_do_not_collide(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # On a file system that ignores case (macOS, Windows) skills/Alpha.md and
    # skills/alpha.md are one file: the second skill's report replaced the first's.
    for folder in ("Alpha", "alpha", "ALPHA-2"):
        (tmp_path / "cased" / folder).mkdir(parents=True)
        (tmp_path / "cased" / folder / "SKILL.md").write_text(f"---\nname: {folder}\n---\n")
    r = run_cli("plugin", "score", "cased", "--out", "report", "--no-history")
    assert r.exit_code == 0, r.stderr
    files = sorted(p.name for p in Path("report/skills").iterdir())
    assert files == ["ALPHA-2.md", "Alpha.md", "alpha-3.md"]
    assert len({f.casefold() for f in files}) == 3
    assert Path("report/skills/alpha-3.md").read_text().startswith("## 1. alpha: ")


def test_out_files_keep_the_letters_of_every_script(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # Every character but A-Za-z0-9._- became "_": "résumé" was written as r_sum_.md and
    # "中文" as skill.md (nothing left), names no one would look for. Letters, digits and
    # marks of any script stay (composed: an accent typed apart is the same file on macOS);
    # a control or blank-looking character, a separator, a leading dot still cannot.
    names = {
        "Résumé": "Résumé.md",
        "résumé": "résumé-2.md",  # one file with Résumé.md where case is ignored
        "中文": "中文.md",
        "e\u0301te\u0301": "été.md",  # decomposed: composed as a file name
        "été": "été-2.md",
        "a\u200bb\tc": "a_b_c.md",
        ".ünïcode": "ünïcode.md",
        "--rf": "rf.md",
    }
    _assert_out_names(run_cli, tmp_path / "uni", names)


def test_out_files_never_take_a_windows_device_name(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # CON.md, nul.md, COM1.md were written as they are: Windows opens them as the device,
    # whatever the case or the extension, so a report folder synced there could not be read.
    names = {
        "CON": "CON_.md",
        "con": "con_-3.md",  # one file with CON_.md where case is ignored
        "nul": "nul_.md",
        "Aux.tar": "Aux_.tar.md",
        "PRN.": "PRN_.md",  # a trailing dot is dropped, as Windows drops it
        "prn ": "prn_-2.md",
        "COM1": "COM1_.md",
        "lpt9": "lpt9_.md",
        "COM\u00b2": "COM\u00b2_.md",
        "COM10": "COM10.md",  # no device
        "console": "console.md",
        "CON_": "CON_-2.md",  # a trailing "_" is dropped: CON, then the collision rule
    }
    _assert_out_names(run_cli, tmp_path / "dev", names)


def test_no_out_file_is_named_as_a_skill_md(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    # The skill `SKILL`'s report was skills/SKILL.md: its folder became a skill. With --out
    # under a root scored, the next `plugin rank` scored the report as the skill
    # out/skills and the next `plugin score --out` refused its own folder (exit 2). No
    # name is SKILL.md now, in any case (one file with skill.md on macOS and Windows).
    names = {  # found in this order; a later name one file with an earlier gets -N
        "--": "skill_.md",  # nothing left: skill, then this rule
        "SKILL": "SKILL_-2.md",  # one file with skill_.md where case is ignored
        "SKILL.x": "SKILL.x.md",
        "SKILLS": "SKILLS.md",
        "SKILL_": "SKILL_-3.md",  # a trailing "_" is dropped: SKILL, then this rule
        "Skill.": "Skill_-4.md",  # a trailing dot is dropped, as for a device name
        "skill": "skill_-5.md",
    }
    _assert_out_names(run_cli, tmp_path / "up", names)
    root = tmp_path / "r"
    for name in ("SKILL", "other"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    for _ in range(2):
        r = run_cli("plugin", "score", "r", "--out", "r/out", "--no-history")
        assert r.exit_code == 0, r.stderr
        assert "scored 2 skill(s)" in r.stderr
    assert sorted(p.name for p in (root / "out" / "skills").iterdir()) == [
        "SKILL_.md",
        "other.md",
    ]
    r = run_cli("plugin", "rank", "r", "--format", "json")
    assert [s["path"] for s in json.loads(r.stdout)] == ["r/SKILL", "r/other"]


def _assert_out_names(run_cli: Callable[..., Result], skills: Path, names: dict[str, str]) -> None:
    """One skill per name under ``skills``; ``plugin score --out`` writes each to the file
    ``names`` gives it, and that file is the skill's report."""
    for name in names:
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {json.dumps(name)}\n---\n", encoding="utf-8"
        )
    r = run_cli("plugin", "score", str(skills), "--out", "report", "--no-history")
    assert r.exit_code == 0, r.stderr
    written = {
        p.name: p.read_text(encoding="utf-8").split("\n", 1)[0]
        for p in Path("report/skills").iterdir()
    }
    assert sorted(written) == sorted(names.values())
    for name, file in names.items():
        assert written[file].startswith(f"## 1. {output.md_text(name)}: "), (file, written[file])


def test_help_texts(run_cli: Callable[..., Result]) -> None:
    for cmd in (("plugin",), ("plugin", "score"), ("plugin", "rank")):
        r = run_cli(*cmd, "--help")
        assert r.exit_code == 0
    assert "--matchups FILE" in run_cli("plugin", "score", "--help").stdout


def test_deep_report_golden(run_cli: Callable[..., Result], fixture_root: str) -> None:
    """Judges, Monte Carlo runs and matchups together: every section of the report.

    The golden's "outside \\[0, 1\\]" changed when the packs' escapes became one
    (output.md_text): plugin's ``md`` left link brackets as is, which the other packs
    escaped (a reason or name "[x](http://...)" was a live link)."""
    inputs = Path(__file__).resolve().parent / "inputs"
    args = [f"--{k}={inputs / (k + '.jsonl')}" for k in ("judge", "mc", "matchups")]
    r = run_cli("plugin", "score", fixture_root, *args, "--no-history")
    assert r.exit_code == 1  # inputs hold bad lines on purpose
    text = r.stdout.replace(str(inputs), "INPUTS")
    golden("score_deep.md", text)
    assert "j1 vs j2: kappa 0.33 over 2 dimensions" in text
    assert "Elo: 1534.2 (95% CI" in text
    assert "Clopper–Pearson 95% 0.006–0.806" in text
    assert "INPUTS/mc.jsonl:5: activated is not true/false" in text
    assert "1.5 is outside \\[0, 1\\]; treated as unmeasured" in text


def _rating_of(target: float) -> list[dict[str, object]]:
    """Matchups that rate a skill ``target`` (spec §7): losses down to near it, then one
    draw against the opponent rating that lands on it."""
    matchups, ra = [], 1500.0
    while ra - target > 15.0:  # a loss to an equal opponent costs 16
        matchups.append({"opponent_elo": ra, "result": "loss"})
        ra -= 16.0
    e = 0.5 - (target - ra) / 32.0  # a draw ends on ra + 32 (0.5 - e); here 0.47 < e < 1
    matchups.append({"opponent_elo": ra + 400.0 * math.log10(1.0 / e - 1.0), "result": "draw"})
    return matchups


def _matchups_rated(tmp_path: Path, skill: str, target: float) -> Path:
    """A matchups file that rates ``skill`` at ``target`` (``_rating_of``)."""
    mfile = tmp_path / "m.jsonl"
    lines = [{"skill": skill, "opponent": "o", **m} for m in _rating_of(target)]
    mfile.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return mfile


def test_an_elo_under_a_badges_minimum_never_reads_as_it(
    run_cli: Callable[..., Result], fixture_root: str, tmp_path: Path
) -> None:
    # team-composition-patterns (composite 72.80) is Silver with an Elo of 1400 or more.
    # Rated 1399.96 it is Bronze, and the report said "Elo: 1400.0": Silver's minimum.
    skill = "team-composition-patterns"
    mfile = _matchups_rated(tmp_path, skill, 1399.96)
    j = json.loads(
        run_cli("plugin", "score", fixture_root, f"--matchups={mfile}", "--format", "json",
                "--no-history").stdout
    )  # fmt: skip
    s = next(x for x in j if x["skill"] == skill)
    assert round(s["elo"]["rating"], 9) == 1399.96 and s["badge"] == "Bronze"
    r = run_cli("plugin", "score", fixture_root, f"--matchups={mfile}", "--no-history")
    assert r.exit_code == 0
    assert f"| {skill} | {skill} | 72.80 | C- | Bronze | 1399.96 (1386.5–1417.6) |" in r.stdout
    assert "- Elo: 1399.96 (95% CI 1386.5–1417.6, 7 matchups)" in r.stdout
    ranked = run_cli("plugin", "rank", fixture_root, f"--matchups={mfile}").stdout
    assert f"| {skill} | {skill} | 72.80 | C- | Bronze | 1399.96 (1386.5–1417.6) |" in ranked


def test_description_flags_give_their_line_in_markdown_and_json(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # Spec §8 asks for the line that triggered each flag; these two had none.
    d = tmp_path / "skills" / "terse"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: terse\ndescription: Lints.\n---\n# Terse\n")
    r = run_cli("plugin", "score", "skills", "--no-history")
    assert r.exit_code == 0, r.stderr
    assert (
        "- **EMPTY_DESCRIPTION**: line 3: description is 6 characters (fewer than 20)\n"
        '- **MISSING_TRIGGER**: line 3: description has no trigger phrase ("Use when …"): '
        '"Lints."\n'
    ) in r.stdout
    j = json.loads(run_cli("plugin", "score", "skills", "--format", "json", "--no-history").stdout)
    assert [(a["flag"], a["line"]) for a in j[0]["anti_patterns"]] == [
        ("EMPTY_DESCRIPTION", 3),
        ("MISSING_TRIGGER", 3),
    ]


def test_a_skill_md_given_as_root_scores_its_folder(
    run_cli: Callable[..., Result], fixture_root: str
) -> None:
    # A judge line may name a skill by its SKILL.md; as a ROOT the file exited 3, "not a
    # directory". It now names its folder, scored as if the folder were given.
    skill = f"{fixture_root}/async-python-patterns"
    by_folder = run_cli("plugin", "score", skill, "--format", "json", "--no-history")
    by_file = run_cli("plugin", "score", f"{skill}/SKILL.md", "--format", "json", "--no-history")
    assert by_file.exit_code == 0, by_file.stderr
    assert by_file.stdout == by_folder.stdout
    assert [s["skill"] for s in json.loads(by_file.stdout)] == ["async-python-patterns"]
    # Given with its folder, it is scored once.
    both = run_cli("plugin", "rank", skill, f"{skill}/SKILL.md", "--format", "csv")
    assert both.exit_code == 0 and len(both.stdout.splitlines()) == 2
    # Any other file still is no ROOT, and the error says what is.
    Path("notes.md").write_text("x\n")
    r = run_cli("plugin", "score", "notes.md", "--no-history")
    assert r.exit_code == 3
    assert "notes.md: not a directory (give the folder holding a SKILL.md, or that SKILL.md)" in (
        r.stderr
    )


def test_a_skill_md_root_names_one_skill_not_those_nested_in_its_folder(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    outer = tmp_path / "outer"
    (outer / "sub-skills" / "inner").mkdir(parents=True)
    head = "---\nname: {}\ndescription: Use when testing which skills a SKILL.md root names.\n---\n"
    (outer / "SKILL.md").write_text(head.format("outer"))
    (outer / "sub-skills" / "inner" / "SKILL.md").write_text(head.format("inner"))
    folder = run_cli("plugin", "rank", "outer", "--format", "csv").stdout
    assert [r["skill"] for r in csv.DictReader(io.StringIO(folder))] == [
        "outer",
        "sub-skills/inner",
    ]
    file = run_cli("plugin", "rank", "outer/SKILL.md", "--format", "csv").stdout
    assert [r["skill"] for r in csv.DictReader(io.StringIO(file))] == ["outer"]


def test_the_rank_table_writes_a_score_apart_from_its_cut_offs(
    run_cli: Callable[..., Result], fixture_root: str, tmp_path: Path
) -> None:
    # `--format table` wrote every number with 4 decimals: an Elo of 1399.99996 (Bronze)
    # read "1400.0000", Silver's minimum, as a composite of 89.99996 (B+) read "90.0000"
    # (A-) and 99.99996 "100.0000". It follows the markdown table's rule now (fmt_vs).
    skill = "team-composition-patterns"
    mfile = _matchups_rated(tmp_path, skill, 1399.99996)
    r = run_cli("plugin", "rank", fixture_root, f"--matchups={mfile}", "--format", "table")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2] == (
        f"   1  {skill}  {skill}    72.8030  C-     Bronze  1399.99996   1386.5466    1417.7265"
        "  quick  Estimated       0"
    )
    result = engine.rank([fixture_root])
    rows = [{"composite": c, "elo": None} for c in (89.99996, 99.99996, 72.803, 100.0)]
    writers = table_writers(result.score_cuts, result.elo_cuts)
    assert output.to_table(rows, ["composite", "elo"], writers) == (
        "composite  elo\n---------  ---\n 89.99996  —\n 99.99996  —\n  72.8030  —\n 100.0000  —\n"
    )


def test_a_frontmatter_key_given_twice_is_said_on_stderr(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # PyYAML keeps a repeated key's last value without a word: the skill was scored under
    # the second `name:`, and nothing said the first was dropped.
    skill = tmp_path / "skills" / "dup"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: first\ndescription: Use when testing.\nname: second\n---\n## Usage\n"
    )
    r = run_cli("plugin", "score", "skills", "--format", "json", "--no-history")
    assert r.exit_code == 0, r.stderr  # a warning, as the other frontmatter problems
    assert [s["name"] for s in json.loads(r.stdout)] == ["second"]
    assert r.stderr == (
        'warning: skills/dup/SKILL.md:4: frontmatter key "name" is given twice (first on '
        "line 2); YAML requires keys to be unique: the last value is read\n"
        "scored 1 skill(s)\n"
    )


def test_surrogate_escapes_in_frontmatter_are_one_character_or_a_warning(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    """A JSON-style surrogate pair in a skill's frontmatter (``"s\\udb40\\udc41"``) was kept
    as two surrogates, which pyarrow cannot encode: ``plugin score`` ended in a
    UnicodeEncodeError traceback. A pair is its one character; a lone half makes the
    frontmatter invalid YAML, a warning at its line, as any other YAML error."""
    skill = tmp_path / "skills" / "s1" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        '---\nname: "s\\udb40\\udc41"\ndescription: "Use when checking. Returns a list."\n'
        "---\n# S\n\nBody.\n"
    )
    r = run_cli("plugin", "score", str(tmp_path), "--format", "json", "--no-history")
    assert r.exit_code == 0, r.stderr
    assert [s["name"] for s in json.loads(r.stdout)] == ["s\U000e0041"]
    skill.write_text('---\nname: "s\\ud800"\ndescription: "Use when checking."\n---\n# S\n')
    r = run_cli("plugin", "score", str(tmp_path), "--format", "json", "--no-history")
    assert r.exit_code == 0, r.stderr
    assert [s["name"] for s in json.loads(r.stdout)] == ["s1"]
    assert r.stderr == (
        f"warning: {skill}:2: frontmatter is not valid YAML (\\ud800 is half of a UTF-16 "
        "surrogate pair, no character of its own); read as empty\n"
        "scored 1 skill(s)\n"
    )
