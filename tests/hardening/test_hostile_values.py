"""Hostile values: names that try to break reports, tables, file names or SQL.

Run ids, archetype names, models, team names and team file names carry ``|``,
backticks, HTML, newlines, ANSI escapes, path separators, markdown links and SQL. After a
nightly run: every file stays inside the day folder under a safe name, every markdown
table keeps its column count, no raw control character or HTML tag reaches a file, the
JSON round-trips the exact strings, and the history holds them verbatim (values are
bound parameters, never SQL text).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from runscore.cli.output import md_text
from runscore.engine.nightly import safe_name

DATE = "2026-04-05"
EVIL = "ev|il`x`<script>alert(1)</script>\n\x1b[31mred\x1b[0m/../../etc/passwd [a](http://x) **b**"
SQL = "x'); DROP TABLE accepted; --"
MODEL = "haiku|`<b>`\r\n\x07"


def _cells(line: str) -> int:
    """Number of table cells: unescaped pipes minus one."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_hostile_names_break_nothing(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    ev = tmp_path / "proj" / ".archeflow" / "events"
    hh.write_jsonl(ev / "evil.jsonl", hh.run_events(EVIL, archetype=EVIL, model=MODEL))
    hh.write_jsonl(ev / "sql.jsonl", hh.run_events(SQL, archetype=SQL))
    hh.write_jsonl(ev / "plain.jsonl", hh.run_events("plain"))
    teams = tmp_path / "proj" / ".archeflow" / "teams"
    teams.mkdir(parents=True)
    team_file = teams / "we|ird `t` <b>..\x1b[1m.yaml"
    team_file.write_text(json.dumps({"name": EVIL, "check": [EVIL, "guardian"]}))
    res = run_cli("nightly", "--root", "proj", "--out", "out", "--date", DATE)
    assert res.exit_code == 0, res.stderr

    day = tmp_path / "out" / DATE
    files = sorted(p for p in day.rglob("*") if p.is_file())
    assert len(files) == 7  # index, run log x2, report x2, recommend x2
    for p in files:
        rel = p.relative_to(day).as_posix()
        assert re.fullmatch(r"[A-Za-z0-9._/-]+", rel), rel
        assert p.resolve().is_relative_to(day.resolve())
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), rel  # no ESC, BEL, CR
        if p.suffix == ".md":
            assert "<script>" not in text and "<b>" not in text, rel
            lines = text.splitlines()
            for i, line in enumerate(lines):
                if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-"):
                    width = _cells(line)  # a header: every row below has as many cells
                    for row in lines[i + 1 :]:
                        if not row.startswith("|"):
                            break
                        assert _cells(row) == width, (rel, row)
    for name in ("index.md", "runlog.md"):
        text = (day / name).read_text(encoding="utf-8")
        assert "[a](http://x)" not in text  # a name never becomes a link in our documents

    report = json.loads((day / "effectiveness" / "proj" / "report.json").read_text())
    assert {r["archetype"] for r in report} == {EVIL.lower(), SQL.lower(), "guardian", "sage"}
    (rec_json,) = (day / "effectiveness" / "proj").glob("recommend-*.json")
    assert [r["archetype"] for r in json.loads(rec_json.read_text())] == [EVIL.lower(), "guardian"]
    log = json.loads((day / "runlog.json").read_text())
    assert sorted(log["scopes"][0]["runs_scored"]) == sorted([EVIL, SQL, "plain"])

    hist = tmp_path / "proj" / ".archeflow" / "memory" / "effectiveness.jsonl"
    recs = [json.loads(line) for line in hist.read_text(encoding="utf-8").splitlines()]
    by_run = {(r["run_id"], r["archetype"]): r for r in recs}
    assert by_run[(EVIL, EVIL.lower())]["model"] == MODEL  # verbatim, never interpreted
    assert (
        by_run[(SQL, SQL.lower())]["composite_score"]
        == by_run[("plain", "guardian")]["composite_score"]
    )


def test_safe_name_is_never_a_path() -> None:
    for raw in ["../../etc", "/abs", "a/b", "a:b", ".hidden", "-rf", "", "x" * 300, EVIL, "ok-1.x"]:
        s = safe_name(raw, "f")
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", s), s
        assert "/" not in s and s not in (".", "..")
        assert len(s) <= 70
    assert safe_name("ok-1.x", "f") == "ok-1.x"  # a safe name is kept as is
    assert safe_name("a/b", "f") != safe_name("a:b", "f")  # no two names share a file


def test_md_text_keeps_text_text() -> None:
    assert md_text("[a](http://x)") == "\\[a\\](http://x)"
    assert md_text("# title") == "\\# title"
    assert md_text("a|b`c`\nd") == "a\\|b\\`c\\`<br>d"
    assert md_text("snake_case_name") == "snake_case_name"
    assert md_text("_em_") == "\\_em\\_"
    assert md_text(None) == "—"


def test_md_text_escapes_what_any_pack_escaped_and_the_known_gaps() -> None:
    # One filter for every report template (it replaced nightly's mdt, routes' mdx and
    # pipeline's mdtext), with the gaps they all had: `&` (so "&lt;" rendered "<"), a
    # heading's last " #" (an ATX closing sequence: "# Pipeline p #" read "Pipeline p")
    # and an ordered-list marker "1." / "1)" at the start of a value.
    assert md_text("&lt;b&gt; &amp;") == "&amp;lt;b&amp;gt; &amp;amp;"
    assert md_text("<tag>x</tag>") == "&lt;tag>x&lt;/tag>"
    assert md_text("p #") == "p \\#"
    assert md_text("p ##  ") == "p \\##  "
    assert md_text("#") == "\\#"
    assert md_text("C# and F#") == "C# and F#"  # not a closing sequence: no space before
    assert md_text("issue #12") == "issue #12"
    for lead in ("# h", "- l", "+ p", "= e", "! i"):
        assert md_text(lead) == "\\" + lead
    assert md_text("  # h") == "  \\# h"
    assert md_text("> q") == "\\> q"  # never a quote
    assert md_text("n >= 0") == "n >= 0"  # ">" closes no tag: "<" is escaped
    assert md_text("1. o") == "1\\. o"
    assert md_text("10) t") == "10\\) t"
    assert md_text("1.") == "1\\."
    for kept in ("1.5", "2026-03-07", "0.75 (keep)", "a - b", "v1.2 x"):
        assert md_text(kept) == kept
    assert md_text("[x](y) *b* ~s~ _e_ a_b") == "\\[x\\](y) \\*b\\* \\~s\\~ \\_e\\_ a_b"


def test_md_text_writes_what_steers_or_hides_text_as_stderr_does() -> None:
    # A bidi override, isolate or mark, a zero-width character, a tag or another format
    # character was written as it is into every markdown report (a U+202E turned the rest of
    # the line around), and a tab read as a space. Each is written as a message writes it,
    # the markdown escape doubling its backslash as it does a control character's (\x1b):
    # the raw text holds "\\u202e", which renders "\u202e". A value holding one is quoted
    # whole (md_text), as a message quotes it; a message (md_message) is written so in place.
    from runscore.cli.output import md_message, plain_text, to_markdown, to_table
    from runscore.engine.quoting import quote

    said = {
        "a\u202eb": "a\\\\u202eb",
        "\u2066x\u2069 \u200e\u200f\u061c": "\\\\u2066x\\\\u2069 \\\\u200e\\\\u200f\\\\u061c",
        "zero\u200bwidth\u200d\ufeff\u00ad": "zero\\\\u200bwidth\\\\u200d\\\\ufeff\\\\u00ad",
        # past U+FFFF as JSON writes it: a tag is its surrogate pair
        "a\U000e0041b": "a\\\\udb40\\\\udc41b",
        "a\tb": "a\\\\tb",
        # a joiner between letters is no emoji sequence's
        "a\u200db\U0001f469\u200d": "a\\\\u200db\U0001f469\\\\u200d",
    }
    assert {v: md_message(v) for v in said} == said
    assert {v: md_text(v) for v in said} == {v: f'"{m}"' for v, m in said.items()}
    # in place, a CR is \x0d as any control character; in a quote, as JSON writes it
    assert md_message("a\x85b\x9bc\r") == "a\\\\x85b\\\\x9bc\\\\x0d"
    assert md_text("a\x85b\x9bc\r") == '"a\\\\x85b\\\\x9bc\\\\r"'
    # what a quote or path wrote escaped already is escaped for markdown once, as any message
    assert md_message(quote("a\u202e\tb")) == '"a\\\\u202e\\\\tb"'
    assert to_markdown([{"n\u202e": "a\u202e\tb|"}]) == (
        '| "n\\\\u202e" |\n|---|\n| "a\\\\u202e\\\\tb\\|" |\n'
    )
    # a joiner inside an emoji sequence is drawn as one emoji: kept, and quotes nothing
    assert md_text("\U0001f469\u200d\U0001f4bb dev") == "\U0001f469\u200d\U0001f4bb dev"
    # plain text (summary) and the terminal table: one backslash, as stderr writes it (plain
    # text quotes such a value, as a message does: see the test below)
    assert plain_text("a\u202eb\u200bc\U000e0041") == '"a\\u202eb\\u200bc\\udb40\\udc41"'
    assert to_table([{"n": "a\u200bb"}]) == 'n\n----------\n"a\\u200bb"\n'


def test_plain_text_writes_a_tab_and_a_c1_control_escaped() -> None:
    # summary's plain text wrote a tab (a column break to cut -f, and its columns no longer
    # lined up) and a C1 control (U+009B, CSI, steers a terminal) as they were, where the
    # markdown reports and the terminal table write them escaped.
    from runscore.cli.output import plain_text

    assert plain_text("a\tb\x9bc\x80d\x85") == '"a\\tb\\x9bc\\x80d\\x85"'


def test_plain_text_tells_an_escape_from_the_text_it_spells() -> None:
    # A name holding a right-to-left override was written a\u202eb, as a name holding the
    # six characters \u202e itself is (a CR \r as the text \r): one could not be told from
    # the other. A value that holds what is written escaped is quoted, its own backslashes
    # and quotes escaped (quoting.shown, as a message quotes a value); any other is as it is.
    from runscore.cli.output import plain_text

    said = {
        "a\u202eb": '"a\\u202eb"',
        "a\\u202eb": "a\\u202eb",
        "a\rb": '"a\\rb"',
        "a\\rb": "a\\rb",
        "a\x1bb\x7f": '"a\\u001Bb\\x7f"',
        '"a\\u202eb"': '"\\"a\\\\u202eb\\""',  # what a quoted value reads as: quoted too
        'say "hi"': 'say "hi"',
        "C:\\logs|<b>": "C:\\logs|<b>",
        "\U0001f469\u200d\U0001f4bb dev": "\U0001f469\u200d\U0001f4bb dev",  # drawn as one emoji
    }
    assert {v: plain_text(v) for v in said} == said


def test_summary_tells_a_name_s_override_from_its_text(
    tmp_path: Path, hh: Any, run_cli: Any
) -> None:
    # summary printed an archetype holding U+202E and one holding the text \u202e alike.
    ev = tmp_path / "ev"
    hh.write_jsonl(ev / "a.jsonl", hh.run_events("r1", archetype="g\u202ex"))
    hh.write_jsonl(ev / "b.jsonl", hh.run_events("r2", archetype="g\\u202ex"))
    assert run_cli("extract", "ev", "--history", "h.jsonl").exit_code == 0
    res = run_cli("summary", "--history", "h.jsonl")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines()[1:3] == [
        "  g\\u202ex:   0.90 (keep)              — haiku, $0.01/run avg",
        '  "g\\u202ex": 0.90 (keep)              — haiku, $0.01/run avg',
    ]


def test_every_template_escapes_with_the_one_filter() -> None:
    # nightly (mdt), routes (mdx) and pipeline (mdtext) each registered their own escape on
    # top of md, each escaping a different set; plugin and effectiveness had md alone.
    # Now md is output.md_text for every markdown template's value, md_message (the same
    # escape, never quoting the whole) for its messages, and no template uses another
    # escape. The one plain-text template (summary's run-start block, *.txt.j2) writes
    # names as they are with txt (output.plain_text) and never md; no markdown template
    # uses txt.
    import jinja2
    from runscore.cli import output, render

    e = render.env()
    assert e.filters["md"] is output.md_text
    assert e.filters["md_message"] is output.md_message
    assert e.filters["txt"] is output.plain_text
    names = e.list_templates()
    assert len(names) == 14
    assert [n for n in names if not n.endswith(".md.j2")] == ["effectiveness_summary.txt.j2"]
    for name in names:
        assert e.loader is not None
        ast = e.parse(e.loader.get_source(e, name)[0])
        used = {f.name for f in ast.find_all(jinja2.nodes.Filter)}
        escapes = {"txt"} if name.endswith(".txt.j2") else {"md", "md_message"}
        # num, pct and vs write numbers (digits, sign, point, exponent, %, "—"); path and
        # quote (engine.quoting: a path, a value as a message writes it) are no escape, and
        # md_message follows each, directly or in the next map
        quoting = {"path", "quote"} if "md" in escapes else set()
        allowed = {
            *escapes,
            *quoting,
            *"num pct vs usd length join format last list map selectattr".split(),
        }
        assert used <= allowed, (name, used)
        filters = list(ast.find_all(jinja2.nodes.Filter))
        mapped = {_mapped(c) for c in filters} - {None}
        assert mapped <= {*escapes, *quoting}, (name, mapped)
        escaped = {id(c.node) for c in filters if "md_message" in (c.name, _mapped(c))}
        quoted = [c for c in filters if c.name in quoting or _mapped(c) in quoting]
        assert all(id(c) in escaped for c in quoted), name


def _mapped(c: Any) -> Any:
    """The filter a ``map('f')`` applies, else None."""
    import jinja2

    ok = c.name == "map" and c.args and isinstance(c.args[0], jinja2.nodes.Const)
    return c.args[0].value if ok else None


#: The fields a template shows as a message (``md_message``): text the engine wrote, whose
#: values are quoted in it already: an error, a note, a reason, a pack's summary, a title,
#: a finding's headline, cost claim and why, a recommendation's sentence, a skill's
#: anti-pattern evidence and tip, a file's location (``quoting.path``'s ``file:line``).
MESSAGES = {
    "claim",
    "cv_rule",
    "error",
    "evidence",
    "headline",
    "history_error",
    "location",
    "notes",
    "reason",
    "reasons",
    "sentence",
    "summary",
    "test_result_shown",
    "text",
    "tip",
    "title",
    "why",
}


def _fields(node: Any, loops: dict[str, set[str]]) -> set[str]:
    """The fields an expression shows: an attribute's name (a method's for a call), a loop
    variable's list's; ``"quoted"`` for what ``path`` or ``quote`` wrote, ``"literal"`` for
    the template's own text, the node's type for anything else."""
    import jinja2.nodes as n

    if isinstance(node, n.Getattr):
        return {node.attr}
    if isinstance(node, n.Name):
        return loops.get(node.name, {node.name})
    if isinstance(node, n.Call):
        return _fields(node.node, loops)
    if isinstance(node, n.CondExpr):
        return _fields(node.expr1, loops) | _fields(node.expr2, loops)
    if isinstance(node, n.Const) and isinstance(node.value, str):
        return {"literal"}
    if isinstance(node, n.Filter) and (
        node.name in ("path", "quote") or _mapped(node) in ("path", "quote")
    ):
        return {"quoted"}
    if isinstance(node, n.Filter) and node.name in ("last", "join"):
        return _fields(node.node, loops)
    return {type(node).__name__}


def _messages_shown(node: Any, loops: dict[str, set[str]]) -> list[set[str]]:
    """What each ``md_message`` in ``node`` shows (``_fields``), a loop variable's fields
    those of the list it runs over."""
    import jinja2.nodes as n

    if isinstance(node, n.For):
        inner = dict(loops)
        targets = [node.target, *node.target.find_all(n.Name)]  # "r", or "s, t"
        for t in targets:
            if isinstance(t, n.Name):
                inner[t.name] = _fields(node.iter, loops)
        out = _messages_shown(node.iter, loops)
        for child in [*node.body, *node.else_, *([node.test] if node.test else [])]:
            out += _messages_shown(child, inner)
        return out
    out = []
    if isinstance(node, n.Filter) and "md_message" in (node.name, _mapped(node)):
        out.append(_fields(node.node, loops))
    for child in node.iter_child_nodes():
        out += _messages_shown(child, loops)
    return out


def test_a_template_shows_a_value_by_the_filter_that_tells_its_escapes_apart() -> None:
    # Every markdown report wrote a name holding a right-to-left override, a tab, a CR or a
    # C1 control with the escape in place (a\\u202eb), as it wrote a name holding the text
    # \u202e itself: md escaped a value as it escapes a message. A value (md) is now quoted
    # when it holds what is written escaped, its own backslashes escaped, as stderr quotes
    # it; a message (md_message) is not, the values in it quoted already. A template that
    # shows a value through md_message (or txt, or no md at all) reads the two alike: only
    # the fields MESSAGES names, and what path or quote wrote, may be shown so.
    import jinja2
    from runscore.cli import render

    e = render.env()
    md = e.filters["md"]
    assert md("a\u202eb") == '"a\\\\u202eb"' != md("a\\u202eb") == "a\\\\u202eb"
    assert md("a\tb") == '"a\\\\tb"' != md("a\\tb") == "a\\\\tb"
    assert md("a\rb\x9b") == '"a\\\\rb\\\\x9b"' != md("a\\x0db\\x9b")
    assert md('"q"') == '"\\\\"q\\\\""'  # what reads as a quote is quoted too
    # ordinary names as they were: ASCII, accented letters, CJK, emoji, a line break (<br>)
    for plain in ("guardian", "café-Ærø", "中文名", "👩\u200d💻 dev 🇩🇪", 'say "hi"'):
        assert md(plain) == e.filters["md_message"](plain) == plain
    assert md("a\nb") == "a<br>b"
    seen = 0
    for name in e.list_templates(filter_func=lambda t: t.endswith(".md.j2")):
        assert e.loader is not None
        ast = e.parse(e.loader.get_source(e, name)[0])
        for fields in _messages_shown(ast, {}):
            seen += 1
            assert fields <= MESSAGES | {"quoted", "literal"}, (name, fields)
    assert seen > 40  # the walk found the messages (it would pass on finding none)
    assert jinja2  # the parser above


def test_a_value_cannot_forge_a_line_on_stderr(tmp_path: Path, hh: Any, run_cli: Any) -> None:
    # Diagnostics are one `file:line: reason` per line, and some reasons quote the input
    # (routes: `unknown source.kind X`; pipeline: `pipeline ID: not terminal`). A newline
    # in the value printed a second line of its own, `fake.jsonl:1: ...`, that nothing had
    # said. Line breaks and control characters in a message are written escaped (\n, \x1b),
    # and a value a routes or pipeline reason names is quoted as JSON (rs_quote).
    forged = "weird\nfake.jsonl:1: all good\x1b[0m\u2028x"
    ep = {
        "episodeId": "e1",
        "source": {"kind": forged},
        "activity": {"id": "a"},
        "execution": {"model": "m"},
    }
    (tmp_path / "e.jsonl").write_text(json.dumps(ep) + "\n", encoding="utf-8")
    res = run_cli("routes", "e.jsonl", "--format", "json", "--as-of", "2025-03-01T00:00:00Z")
    # its only line rejected, nothing was read: the lines are listed in the error (exit 3)
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        "error: no episode could be read:",
        '  e.jsonl:1: unknown source.kind "weird\\nfake.jsonl:1: all good\\u001B[0m\\u2028x" '
        "(historical, paired or prospective)",
    ]
    # the error's list is a line per input: a break before two spaces starts none
    ep["source"] = {"kind": "weird\n  fake.jsonl:1: all good"}
    (tmp_path / "e.jsonl").write_text(json.dumps(ep) + "\n", encoding="utf-8")
    res = run_cli("routes", "e.jsonl", "--format", "json", "--as-of", "2025-03-01T00:00:00Z")
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        "error: no episode could be read:",
        '  e.jsonl:1: unknown source.kind "weird\\n  fake.jsonl:1: all good" '
        "(historical, paired or prospective)",
    ]
    task = {"pipelineId": "p\nfake.jsonl:2: all good", "id": "t", "status": "in_progress"}
    (tmp_path / "t.jsonl").write_text(json.dumps(task) + "\n", encoding="utf-8")
    res = run_cli("pipeline", "t.jsonl", "--no-history", "--out", "o", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert 'pipeline "p\\nfake.jsonl:2: all good": not terminal ("t"); not scored' in (
        res.stderr.splitlines()
    )
    assert not any(line.startswith("fake.jsonl") for line in res.stderr.splitlines())
