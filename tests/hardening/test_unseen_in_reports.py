"""No report writes a character that steers or hides text as it is.

A right-to-left override (U+202E) in an agent name, a model, a finding, a skill, a pipeline
id or a path turned the rest of its line around in every markdown report (``md_text``
escaped ``|``, line breaks and control characters only), and a zero-width character or a
tag (U+E0020-E007F, which hides ASCII text) hid what it held. Every report writes each such
character escaped, as stderr's messages do (``\\u202e``), and so does stderr.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from pathlib import Path
from typing import Any

from click.testing import Result

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
DATE = "2026-04-05"

#: A bidi override, isolate and mark, a zero-width space and joiner, a byte-order mark, the
#: Arabic letter mark, an interlinear annotation mark, a tag and a line separator.
STEER = "\u202ea\u2066b\u200fc\u200bd\u200de\ufefff\u061cg\ufff9h\U000e0041i\u2028j"
#: As every message and report writes it (a character past U+FFFF as JSON does: the tag is
#: its surrogate pair).
SHOWN = "\\u202ea\\u2066b\\u200fc\\u200bd\\u200de\\ufefff\\u061cg\\ufff9h\\udb40\\udc41i\\u2028j"
NAME = "ev" + STEER


def _raw(text: str) -> list[str]:
    """The characters that steer or hide text, as ``U+XXXX``: every format character
    (category Cf) and the line and paragraph separators."""
    return sorted(
        {f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cf", "Zl", "Zp")}
    )


def _episodes(path: Path, name: str = NAME) -> None:
    """Routes episodes: a cheap candidate (the hostile model) as good as the incumbent."""
    lines = []
    for i in range(400):
        model = name if i % 2 else "claude-sonnet-4"
        ep = {
            "episodeId": f"ep-{i}",
            "source": {"kind": "historical", "host": "claude-code", "sessionKey": f"s{i}"},
            "activity": {"id": "documentation", "provenance": "observed"},
            "task": {"fingerprint": f"fp-{i}", "complexity": "low"},
            "execution": {
                "host": "claude-code",
                "inferenceProvider": "anthropic",
                "model": model,
                "harnessFingerprint": "h1",
                "startedAt": f"2025-02-20T00:{i // 60:02d}:{i % 60:02d}Z",
            },
            "usage": {
                "input": 1000,
                "output": 200,
                "apiEquivalentCostUsd": 0.01 if i % 2 else 0.03,
                "costBasis": "api_equivalent",
            },
            "outcome": {
                "status": "succeeded",
                "signals": [
                    {"kind": "gate", "value": "pass" if i % 10 else "fail", "source": "ci"}
                ],
                "retries": 0,
                "repairs": 0,
                "escalation": {"escalated": False, "toModel": None},
            },
        }
        lines.append(json.dumps(ep))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_no_report_writes_a_character_that_steers_or_hides_text(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    root = tmp_path / ("pr" + STEER)
    ev = root / ".archeflow" / "events"
    runs = hh.run_events(NAME, archetype=NAME, model=NAME)
    runs[2]["data"]["findings"][0]["description"] = NAME
    hh.write_jsonl(ev / "a.jsonl", runs)
    hh.write_jsonl(ev / "b.jsonl", hh.run_events("r2", model=NAME))
    (ev.parent / "teams").mkdir()
    (ev.parent / "teams" / "t.yaml").write_text(
        json.dumps({"name": NAME, "check": [NAME]}, ensure_ascii=False)
    )
    tasks = [
        json.loads(line) for line in (FIXTURES / "pipeline/tasks.jsonl").read_text().splitlines()
    ]
    tasks = [
        dict(t, pipelineId=NAME + t["pipelineId"], metadata=dict(t["metadata"], summary=NAME))
        for t in tasks
        if "pipelineId" in t and "metadata" in t
    ]
    (ev.parent / "tasks").mkdir()
    (ev.parent / "tasks" / "t.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    skills = tmp_path / "skills"
    shutil.copytree(FIXTURES / "plugin/async-python-patterns", skills / NAME)
    skill_md = skills / NAME / "SKILL.md"
    skill_md.write_text(
        skill_md.read_text().replace(
            "name: async-python-patterns", f"name: {json.dumps(NAME, ensure_ascii=False)}"
        )
    )
    _episodes(tmp_path / "episodes.jsonl")

    hist = str(root / ".archeflow/memory/effectiveness.jsonl")
    team = str(ev.parent / "teams" / "t.yaml")
    commands = {
        "extract": ("extract", str(ev), "--history", hist),
        "report": ("report", "--history", hist),
        "summary": ("summary", "--history", hist),
        "recommend": ("recommend", team, "--history", hist),
        "sql markdown": ("sql", "SELECT * FROM history", "--history", hist, "--format", "markdown"),
        "sql table": ("sql", "SELECT * FROM history", "--history", hist, "--format", "table"),
        "pipeline": ("pipeline", str(ev.parent / "tasks"), "--history", "p.jsonl", "--out", "pipe"),
        "pipeline report": ("pipeline", "--report", "--history", "p.jsonl"),
        "plugin score": ("plugin", "score", str(skills), "--no-history", "--out", "plug"),
        "plugin rank": ("plugin", "rank", str(skills)),
        "routes": ("routes", "report", "--as-of", "2025-03-01T00:00:00Z", "episodes.jsonl"),
        "nightly": ("nightly", "--root", root.name, "--out", "night", "--date", DATE),
    }
    said: dict[str, str] = {}
    for label, args in commands.items():
        res: Result = run_cli(*args)
        assert res.exit_code in (0, 1), (label, res.stderr)
        said[label] = res.stdout
        said[f"{label} (stderr)"] = res.stderr
    for out in ("pipe", "plug", "night"):
        for p in sorted((tmp_path / out).rglob("*")):
            # JSON and CSV are data: they hold each value as it is (JSON round-trips it)
            if p.is_file() and p.suffix == ".md":
                said[str(p.relative_to(tmp_path))] = p.read_text(encoding="utf-8")

    # The hostile text reached each report, written escaped, and not one character of it as
    # it is. (A markdown report doubles the backslash, which renders as one.)
    for where, text in said.items():
        assert _raw(text) == [], where
    for where in (
        "report",
        "recommend",
        "sql markdown",
        "pipeline",
        "plugin rank",
        "routes",
        "night/" + DATE + "/runlog.md",
    ):
        assert SHOWN.replace("\\", "\\\\") in said[where], where
    for out in ("pipe/", "plug/", "night/"):  # each written report dir: its every .md file
        # OUT/index.md lists days and counts only: no value of the runs reaches it (its
        # every character is still checked by _raw above)
        files = [w for w in said if w.startswith(out) and w != "night/index.md"]
        assert files and all(SHOWN.replace("\\", "\\\\") in said[w] for w in files), out
    assert SHOWN in said["summary"]
    assert SHOWN in said["sql table"]
    assert "Route command: not shown" in said["routes"]


#: A name holding a right-to-left override, and one holding the six characters ``\\u202e``
#: themselves (and a tab, and its two characters ``\\t``).
REAL = "g\u202ex\ty"
TEXT = "g\\u202ex\\ty"


def _every_report(tmp_path: Path, hh: Any, run_cli: Any, name: str) -> dict[str, str]:
    """Every report and table of a root whose archetype, model, team, pipeline ids, task
    summaries, skill and routes model are ``name``, by report (its files by their place
    among the files written: their names hold the name's sanitised form)."""
    root = tmp_path / "pr"
    ev = root / ".archeflow" / "events"
    hh.write_jsonl(ev / "a.jsonl", hh.run_events(name, archetype=name, model=name))
    (ev.parent / "teams").mkdir()
    (ev.parent / "teams" / "t.yaml").write_text(
        json.dumps({"name": name, "check": [name]}, ensure_ascii=False)
    )
    tasks = [
        json.loads(line) for line in (FIXTURES / "pipeline/tasks.jsonl").read_text().splitlines()
    ]
    tasks = [
        dict(t, pipelineId=name + t["pipelineId"], metadata=dict(t["metadata"], summary=name))
        for t in tasks
        if "pipelineId" in t and "metadata" in t
    ]
    (ev.parent / "tasks").mkdir()
    (ev.parent / "tasks" / "t.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    skills = tmp_path / "skills"
    shutil.copytree(FIXTURES / "plugin/async-python-patterns", skills / "s")
    skill_md = skills / "s" / "SKILL.md"
    skill_md.write_text(
        skill_md.read_text().replace(
            "name: async-python-patterns", f"name: {json.dumps(name, ensure_ascii=False)}"
        )
    )
    _episodes(tmp_path / "episodes.jsonl", name)
    hist = "pr/.archeflow/memory/effectiveness.jsonl"
    commands = {
        "extract": ("extract", str(ev.relative_to(tmp_path)), "--history", hist),
        "report": ("report", "--history", hist),
        "recommend": ("recommend", "pr/.archeflow/teams/t.yaml", "--history", hist),
        "summary": ("summary", "--history", hist),
        "sql markdown": ("sql", "SELECT * FROM history", "--history", hist, "--format", "markdown"),
        "sql table": ("sql", "SELECT * FROM history", "--history", hist, "--format", "table"),
        "pipeline": ("pipeline", "pr/.archeflow/tasks", "--history", "p.jsonl", "--out", "pipe"),
        "pipeline report": ("pipeline", "--report", "--history", "p.jsonl"),
        "plugin score": ("plugin", "score", "skills", "--no-history", "--out", "plug"),
        "plugin rank": ("plugin", "rank", "skills"),
        "plugin rank table": ("plugin", "rank", "skills", "--format", "table"),
        "routes": ("routes", "report", "--as-of", "2025-03-01T00:00:00Z", "episodes.jsonl"),
        "nightly": ("nightly", "--root", "pr", "--out", "night", "--date", DATE),
    }
    said: dict[str, str] = {}
    for label, args in commands.items():
        res: Result = run_cli(*args)
        assert res.exit_code in (0, 1), (label, res.stderr)
        said[label] = res.stdout
    for out in ("pipe", "plug", "night"):
        files = sorted(p for p in (tmp_path / out).rglob("*.md") if p.is_file())
        for i, p in enumerate(files):
            said[f"{out} {i}"] = p.read_text(encoding="utf-8")
    # when a run was read and scored is no part of what is compared
    return {k: re.sub(r"\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]00:00)?", "T", v) for k, v in said.items()}


def test_every_report_tells_a_name_s_override_from_its_text(
    tmp_path: Path, hh: Any, run_cli: Any, monkeypatch: Any
) -> None:
    # Every markdown report (and the terminal table) wrote a name holding a right-to-left
    # override (or a tab) with the escape in place, g\\u202ex, as it wrote a name holding
    # the text \u202e itself: the two read alike. A value that holds what is written escaped
    # is quoted, its own backslashes escaped ("g\\u202ex", quoted, beside g\\\\u202ex);
    # a message keeps the values it quotes as it quotes them.
    shown = {}
    for label, name in (("real", REAL), ("text", TEXT)):
        (tmp_path / label).mkdir()
        monkeypatch.chdir(tmp_path / label)
        shown[label] = _every_report(tmp_path / label, hh, run_cli, name)
    real, text = shown["real"], shown["text"]
    assert real.keys() == text.keys()
    assert len(real) > 15  # every command, and the files of pipe, plug and night
    # A routes headline (the line after a finding's heading) and its why are sentences its
    # SQL writes: they named the model as it is, and read alike in both spellings. They
    # show it as every report does (rs_shown): quoted when it holds what is written escaped.
    lines = {k: shown[k]["routes"].splitlines() for k in shown}
    headlines = {
        k: [x[i + 2] for i, y in enumerate(x) if y.startswith("#### ")] for k, x in lines.items()
    }
    rest = (
        " is associated with a success rate within 0.050 of claude-sonnet-4 in matched"
        " historical documentation strata (difference +0.200, 95% CI \\[+0.147, +0.261\\]),"
        " at lower cost per accepted outcome."
    )
    assert headlines == {
        "real": ['"g\\\\u202ex\\\\ty"' + rest],
        "text": ["g\\\\u202ex\\\\ty" + rest],
    }
    alike = []
    for where in real:
        a, b = real[where].splitlines(), text[where].splitlines()
        # each line that shows the name reads apart from the other's
        alike += [(where, x) for x in a if "u202e" in x and x in b]
    assert alike == [], "\n".join(map(repr, alike))
    # the quote, escaped for markdown, and the text as it is; in the table, as stderr writes
    assert '| "g\\\\u202ex\\\\ty" |' in real["report"]
    assert "| g\\\\u202ex\\\\ty |" in text["report"]
    assert '"g\\u202ex\\ty"' in real["sql table"]
    assert " g\\u202ex\\ty " in text["sql table"]
