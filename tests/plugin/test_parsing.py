"""Parsing a skill (spec plugin-eval §2) with Python's semantics: universal newlines, YAML
safe_load, Unicode \\b / \\w, str.splitlines; odd frontmatter is read, never fatal."""

from __future__ import annotations

import signal
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from runscore.engine import plugin_features

DESC = "Use when parsing skills, for testing the parser, when reading files."
LF = f"---\nname: p\ndescription: {DESC}\n---\n## A\n### B\nIt returns JSON.\n```python\nx\n```\n"

#: Pieces of text that "output … format" / "return … json" (spec §3) turn on: the words,
#: near-words, word characters, line breaks (only "\n" ends a line for `.`).
_OUTPUT_WORDS = [
    "output", "format", "return", "json", "outputs", "returnjson", "xjson", "_", "é", "a",
    " ", ".", "\n", "\u2028", "\x85", "\r",
]  # fmt: skip

SKILLS: dict[str, dict[str, Any]] = {
    "lf": {"text": LF},
    "crlf": {"text": LF.replace("\n", "\r\n")},
    "cr": {"text": LF.replace("\n", "\r")},
    "bom": {"text": "\ufeff" + LF},
    "bad-yaml": {"text": "---\nname: [unclosed\ndescription: x\n---\nbody\n"},
    "list-frontmatter": {"text": "---\n- a\n- b\n---\nbody\n"},
    "bad-date": {"text": "---\nname: x\ncreated: 2024-13-45\n---\nbody\n"},
    "number-description": {"text": "---\nname: n\ndescription: 12345678901234567890123\n---\n"},
    "unclosed": {"text": "---\nname: x\ndescription: Use when never closed\n"},
    "dashes-in-value": {"text": '---\nname: d\ndescription: "a --- b, use when x"\n---\nbody\n'},
    "dashes-in-plain-value": {"text": "---\nname: e\ndescription: a --- b, use when x\n---\n"},
    "unicode-boundary": {"text": "---\nname: u\ndescription: éproactively, ça\n---\n"},
    "line-separators": {"text": "dup\u2028dup\nx\x85y\n"},
    "parent": {"text": LF},
    "parent/sub-skills/child": {"text": LF},
}


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> Any:
    return kit.score(tmp_path_factory.mktemp("parse"), SKILLS)


def test_newline_styles_score_alike(parsed: Any) -> None:
    by_skill = parsed[0]
    lf = by_skill["lf"]
    for name in ("crlf", "cr"):
        s = by_skill[name]
        assert s["line_count"] == lf["line_count"] == 11
        assert s["static"] == lf["static"]
        assert s["name"] == "p"


def test_bom_hides_the_frontmatter(parsed: Any) -> None:
    s = parsed[0]["bom"]
    assert s["name"] == "bom"  # no frontmatter: the folder name
    assert [a["flag"] for a in s["anti_patterns"]] == ["EMPTY_DESCRIPTION", "MISSING_TRIGGER"]


def test_invalid_yaml_reads_as_empty(parsed: Any) -> None:
    s = parsed[0]["bad-yaml"]
    assert s["name"] == "bad-yaml"
    assert s["static"]["sub_scores"]["frontmatter_quality"] == 0.10  # name = folder, no desc


def test_frontmatter_oddities_are_warnings(parsed: Any) -> None:
    by_skill, result = parsed
    assert by_skill["list-frontmatter"]["name"] == "list-frontmatter"
    assert by_skill["bad-date"]["name"] == "bad-date"
    assert by_skill["number-description"]["static"]["sub_scores"]["frontmatter_quality"] == (
        0.15 + 0.05
    )  # 23 characters of text, name differs from the folder
    warnings = sorted(
        (w.file.split("/skills/")[1], w.line, w.reason)
        for w in result.warnings
        if w.file.split("/skills/")[1] not in FRONTMATTER_LOST
    )
    assert warnings == [
        ("bad-date/SKILL.md", 1, "frontmatter could not be loaded (ValueError); read as empty"),
        ("list-frontmatter/SKILL.md", 1, "frontmatter is not a mapping; read as empty"),
        # The description's own line, as its anti-patterns' evidence names it: line 1 is
        # the opening ---, where a user looked for the value in vain.
        ("number-description/SKILL.md", 3, "frontmatter description is not text; read as text"),
    ]
    assert result.issues == []


FRONTMATTER_LOST = {
    "bad-yaml/SKILL.md": (
        3,
        "frontmatter is not valid YAML (expected ',' or ']', but got ':'); read as empty",
    ),
    "bom/SKILL.md": (
        1,
        "file starts with a byte-order mark, so its frontmatter is not read (only a file "
        "starting with --- has one); save it without the BOM",
    ),
    "dashes-in-value/SKILL.md": (
        3,
        "frontmatter is not valid YAML (found unexpected end of stream); read as empty: "
        "the --- on line 3 ends it, though it is not a line of its own",
    ),
    "unclosed/SKILL.md": (
        1,
        "frontmatter is not closed (no second ---); the whole file is read as the body",
    ),
    "dashes-in-plain-value/SKILL.md": (
        3,
        "the --- on line 3 ends the frontmatter, though it is not a line of its own: what "
        "follows it is read as the body",
    ),
}


def test_frontmatter_that_is_not_read_is_a_warning(parsed: Any) -> None:
    # Invalid YAML, a BOM, a missing closing --- and one inside a value each cost the skill
    # its name or description (scores as spec §2 says), and nothing told the user why.
    lost = {
        w.file.split("/skills/")[1]: (w.line, w.reason)
        for w in parsed[1].warnings
        if w.file.split("/skills/")[1] in FRONTMATTER_LOST
    }
    assert lost == FRONTMATTER_LOST


def test_dashes_in_a_plain_value_end_the_frontmatter(parsed: Any) -> None:
    # Its YAML loads, so only the warning (FRONTMATTER_LOST) says why the description is "a"
    # and why "b, use when x" is no trigger (spec §2: the text is split on ---).
    s = parsed[0]["dashes-in-plain-value"]
    assert s["name"] == "e"
    assert [a["flag"] for a in s["anti_patterns"]] == ["EMPTY_DESCRIPTION", "MISSING_TRIGGER"]
    assert s["static"]["sub_scores"]["frontmatter_quality"] == 0.15  # a name, "a"


def test_unclosed_frontmatter_is_body(parsed: Any) -> None:
    s = parsed[0]["unclosed"]
    assert s["name"] == "unclosed" and s["line_count"] == 4


def test_unicode_word_boundaries(parsed: Any) -> None:
    # "é" is a word character for Python's re: no \\bproactively\\b, no ", for" either
    fq = parsed[0]["unicode-boundary"]["static"]["sub_scores"]["frontmatter_quality"]
    assert fq == 0.15 + 0.05


def test_splitlines_semantics(parsed: Any) -> None:
    s = parsed[0]["line-separators"]
    # \u2028 and \x85 split lines for str.splitlines(), not for L ("\n" only)
    assert s["line_count"] == 3
    assert s["static"]["sub_scores"]["token_efficiency"] == 1.0 - (1.0 - 3 / 4) * 0.4


def test_nested_skills_are_all_found(parsed: Any) -> None:
    by_skill = parsed[0]
    assert "parent" in by_skill and "parent/sub-skills/child" in by_skill
    assert by_skill["parent/sub-skills/child"]["static"] == by_skill["lf"]["static"]


def _alias_bomb(levels: int) -> str:
    """Frontmatter whose `description` and `name` are 10**levels strings once aliases expand."""
    lines = [
        "---",
        'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    lines += [f"description: *a{levels - 1}", f"name: *a{levels - 1}", "---", "body", ""]
    return "\n".join(lines)


def test_frontmatter_aliases_that_explode_are_not_expanded(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # str() of a million-string alias tree took seconds and megabytes; nine levels (a
    # 12-line file) never finished and held up every other skill of the run.
    by_skill, result = kit.score(tmp_path, {"bomb": {"text": _alias_bomb(6)}, "lf": {"text": LF}})
    bomb = by_skill["bomb"]
    assert bomb["name"] == "bomb"
    assert [a["flag"] for a in bomb["anti_patterns"]] == ["EMPTY_DESCRIPTION", "MISSING_TRIGGER"]
    assert bomb["static"]["sub_scores"]["frontmatter_quality"] == 0.15  # a name, no description
    assert sorted((w.file.split("/skills/")[1], w.line, w.reason) for w in result.warnings) == [
        ("bomb/SKILL.md", 8, "frontmatter description expands its aliases too far; read as empty"),
        (
            "bomb/SKILL.md",
            9,
            "frontmatter name expands its aliases too far; shown as the folder name",
        ),
    ]
    assert by_skill["lf"]["name"] == "p"


def test_many_located_matches_in_a_large_skill(tmp_path: Any, kit: SimpleNamespace) -> None:
    # Each directive, link and cross-reference counted the newlines from the start of the
    # file to find its line: quadratic, so a 500 kB SKILL.md took 30 s and held up the run.
    # No time is asserted (timings belong in benchmarks/): the lines found are, for every
    # match of a file this size, which the quadratic code took ~30 s to find.
    n = 40_000
    body = "MUST\nsee skills/missing\n[r](references/none.md)\n" * n
    text = "---\nname: big\ndescription: Use when testing a large skill.\n---\n" + body
    by_skill, result = kit.score(tmp_path, {"big": {"text": text, "refs": ["a.md"]}})
    s = by_skill["big"]
    assert s["line_count"] == 4 + 3 * n + 1
    flags = s["anti_patterns"]
    assert flags[0] == {
        "flag": "OVER_CONSTRAINED",
        "target": None,
        "line": 5,
        "evidence": f"{n} MUST/NEVER/ALWAYS directives (more than 15); "
        "first on line(s) 5, 8, 11, 14, 17",
    }
    orphans = [a for a in flags if a["flag"] == "ORPHAN_REFERENCE"]
    dead = [a for a in flags if a["flag"] == "DEAD_CROSS_REF"]
    assert len(orphans) == len(dead) == n
    assert [a["line"] for a in orphans[:2]] == [7, 10] and orphans[-1]["line"] == 3 * n + 4
    assert [a["line"] for a in dead[:2]] == [6, 9] and dead[-1]["line"] == 3 * n + 3
    assert result.issues == []


@pytest.mark.parametrize(
    ("value", "shown", "name_part", "reason"),
    [
        ("42", "42", 0.15, "frontmatter name is not text; read as text"),
        ("[a, b]", "['a', 'b']", 0.15, "frontmatter name is not text; read as text"),
        (
            "false",
            "odd",
            0.0,
            "frontmatter name is not text and reads as empty; shown as the folder name, "
            "with no name points",
        ),
        (
            "",
            "odd",
            0.0,
            "frontmatter name is empty; shown as the folder name, with no name points",
        ),
        (
            '""',
            "odd",
            0.0,
            "frontmatter name is empty; shown as the folder name, with no name points",
        ),
    ],
)
def test_a_frontmatter_name_that_is_not_text_is_a_warning(
    tmp_path: Any, kit: SimpleNamespace, value: str, shown: str, name_part: float, reason: str
) -> None:
    # A number or list was scored as its str() without a word, as a non-text description
    # already is with one; an empty name costs the name points, also without a word.
    text = f"---\nname: {value}\n---\nbody\n"
    by_skill, result = kit.score(tmp_path, {"odd": {"text": text}})
    s = by_skill["odd"]
    assert s["name"] == shown
    assert s["static"]["sub_scores"]["frontmatter_quality"] == name_part
    # Line 2, where `name:` is: the warning named line 1, the opening ---.
    assert [(w.file.split("/skills/")[1], w.line, w.reason) for w in result.warnings] == [
        ("odd/SKILL.md", 2, reason)
    ]
    assert result.issues == []


def test_long_lines_are_read_in_linear_time(tmp_path: Any, kit: SimpleNamespace) -> None:
    # "output … format" / "return … json" on one line (spec §3, `.` not crossing lines) and
    # "(references/…)" links were regexes that retried from every "output" / "return" of a
    # line without the word after it, and from every "(references/" with no ")" after it
    # to the end of the file: quadratic, so this 3 MB SKILL.md took over ten minutes and
    # held up every other skill of the run. Same answers in a second; over a minute fails.
    n = 100_000
    body = (
        "json\n"  # a "json" in the file, but never after a "return" of its line
        + "function(a){return a};" * n
        + "\nformat\n"
        + "output " * n  # no "format" after any of them on this line
        + "\n"
        + "(references/a.md " * n  # no ")" after any of them
        + "\n"
    )
    text = "---\nname: long\ndescription: Use when testing long lines.\n---\n" + body
    previous = signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(60)
    try:
        by_skill, result = kit.score(tmp_path, {"long": {"text": text, "refs": ["b.md"]}})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)  # pytest's process, as it was
    s = by_skill["long"]
    # 0.70 + 0.05 ("return"): no output format, no inputs, no fences, no orchestration
    assert s["static"]["sub_scores"]["orchestration_wiring"] == 0.75
    assert s["anti_patterns"] == []  # no link closes, so none is an orphan
    assert result.issues == []


def _too_slow(signum: int, frame: Any) -> None:
    raise TimeoutError("scoring one long-lined SKILL.md took over a minute")


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_OUTPUT_WORDS), max_size=16).map("".join))
def test_the_linear_output_format_check_answers_as_the_regex(text: str) -> None:
    want = plugin_features.OUTPUT_FORMAT.search(text) is not None
    assert plugin_features._has_output_format(text) == want


#: Keys given twice: at the top (a second `name:` replaced the first without a word),
#: nested, and one a merge (`<<`) brought in, which YAML lets a mapping override.
DUPLICATE_KEYS = (
    "---\n"
    "name: first\n"
    "description: Use when parsing frontmatter, for testing keys, when reading them twice.\n"
    "name: second\n"
    "meta:\n"
    "  a: 1\n"
    "  a: 2\n"
    "base: &b {x: 1}\n"
    "merged:\n"
    "  <<: *b\n"
    "  x: 2\n"
    "---\n"
    "## Usage\n"
)


def test_a_frontmatter_key_given_twice_is_a_warning_with_its_line(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    by_skill, result = kit.score(tmp_path, {"dup": {"text": DUPLICATE_KEYS}})
    s = by_skill["dup"]
    assert s["name"] == "second"  # the last value, as the reference's safe_load reads it
    assert s["composite"] is not None  # scored as before: the rest of the evaluation stands
    why = "YAML requires keys to be unique: the last value is read"
    assert [(w.file.split("/skills/")[1], w.line, w.reason) for w in result.warnings] == [
        ("dup/SKILL.md", 4, f'frontmatter key "name" is given twice (first on line 2); {why}'),
        ("dup/SKILL.md", 7, f'frontmatter key "a" is given twice (first on line 6); {why}'),
    ]
    assert result.issues == []


def test_a_key_given_twice_on_one_line_is_a_warning_too(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # A flow mapping's keys share a line: a duplicate was told apart from its first by the
    # line alone, so `{k: 1, k: 2}` kept the last value without a word.
    text = (
        "---\nname: flow\n"
        "description: Use when parsing frontmatter, for testing keys, when reading them twice.\n"
        "meta: {k: 1, k: 2}\n---\n## Usage\n"
    )
    _, result = kit.score(tmp_path, {"flow": {"text": text}})
    why = "YAML requires keys to be unique: the last value is read"
    assert [(w.line, w.reason) for w in result.warnings] == [
        (4, f'frontmatter key "k" is given twice (first on line 4); {why}')
    ]


def test_frontmatter_value_warnings_name_their_keys_lines_in_order(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # Both warnings named line 1 (the opening ---), the description's before the name's,
    # while its anti-patterns' evidence named the description's own line (4 here).
    text = "---\n# a comment\nname: 42\ndescription: [a, b]\n---\nbody\n"
    by_skill, result = kit.score(tmp_path, {"odd": {"text": text}})
    assert [(w.line, w.reason) for w in result.warnings] == [
        (3, "frontmatter name is not text; read as text"),
        (4, "frontmatter description is not text; read as text"),
    ]
    assert {a["line"] for a in by_skill["odd"]["anti_patterns"]} == {4}
