"""Every anti-pattern of spec plugin-eval §4, with its evidence, and the penalty."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runscore.cli.plugin import render_skill

TRIGGERED = "Use when the tests need a description that is long enough."  # no flag from it


def skill(desc: str = TRIGGERED, body: str = "", extra: str = "", **more: Any) -> dict[str, Any]:
    head = f"---\nname: n\ndescription: {desc!r}\n{extra}---\n" if desc is not None else ""
    return {"text": head + body, **more}


SKILLS: dict[str, dict[str, Any]] = {
    "clean": skill(),
    "over-16": skill(body="MUST\n" * 8 + "NEVER ALWAYS\n" * 4),
    "over-15": skill(body="MUST\n" * 7 + "NEVER ALWAYS\n" * 4),
    "empty-19": skill(desc="Use when a" + "b" * 9),  # 19 characters
    "empty-20": skill(desc="Use when a" + "b" * 10),
    "empty-1": skill(desc="x"),
    "empty-none": {"text": "---\nname: n\n---\nbody\n"},
    "empty-no-frontmatter": {"text": "body\n"},
    "empty-blank": {"text": "---\nname: n\ndescription:\n---\nbody\n"},
    # The last of two description keys is the one read, so its line is the one shown.
    "empty-twice": {
        "text": "---\ndescription: Use when an earlier one is there.\nname: n\n"
        "description: >-\n  short\n---\nbody\n"
    },
    "trigger-missing": skill(desc="A description without any trigger phrase at all."),
    # A folded value ends in a line break, a quoted one may hold any Unicode whitespace.
    "trigger-folded": {"text": "---\nname: n\ndescription: >\n  No trigger phrase, folded.\n---\n"},
    "trigger-spaced": {
        "text": '---\nname: n\ndescription: "\\tNo trigger phrase, spaced.\\u3000"\n---\n'
    },
    "trigger-disabled": skill(
        desc="A description without any trigger phrase at all.",
        extra="disable-model-invocation: true\n",
    ),
    "trigger-disabled-text": skill(
        desc="A description without any trigger phrase at all.",
        extra="disable-model-invocation: 'true'\n",
    ),
    "trigger-paths": skill(
        desc="A description without any trigger phrase at all.", extra="paths: 'src/**'\n"
    ),
    "trigger-paths-empty": skill(
        desc="A description without any trigger phrase at all.", extra="paths: ''\n"
    ),
    "trigger-paths-list": skill(
        desc="A description without any trigger phrase at all.", extra="paths: [src]\n"
    ),
    "bloated-801": skill(body="".join(f"l{i}\n" for i in range(796))),
    "bloated-800": skill(body="".join(f"l{i}\n" for i in range(795))),
    "bloated-refs": skill(body="".join(f"l{i}\n" for i in range(796)), refs=[]),
    "orphan": skill(
        body="[a](references/a.md)\n[b](references/A.MD) [c](references/sub/a.md)\n"
        "[d](references/missing.md#part)\n",
        refs=["a.md"],
    ),
    "orphan-no-refs-dir": skill(body="[d](references/missing.md)\n"),
    "dead": skill(
        body="skills/sibling and skills/nowhere\nsub-skills/child, sub-skills/none\n"
        "my-skills/x skills/sibling/deep\n",
        dirs=["sub-skills/child"],
    ),
    "sibling": skill(),
    "floor": skill(body="".join(f"(references/m{i}.md)\n" for i in range(12)), refs=["x.md"]),
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> dict[str, Any]:
    by_skill, _ = kit.score(tmp_path_factory.mktemp("anti"), SKILLS)
    return by_skill


def flags(scored: dict[str, Any], name: str) -> list[str]:
    return [a["flag"] for a in scored[name]["anti_patterns"]]


def test_clean_skill_has_no_flag(scored: dict[str, Any]) -> None:
    assert scored["clean"]["anti_patterns"] == []
    assert scored["clean"]["static"]["penalty"] == 1.0


def test_over_constrained_above_15(scored: dict[str, Any]) -> None:
    assert flags(scored, "over-16") == ["OVER_CONSTRAINED"]
    assert flags(scored, "over-15") == []
    (a,) = scored["over-16"]["anti_patterns"]
    assert a["evidence"] == (
        "16 MUST/NEVER/ALWAYS directives (more than 15); first on line(s) 5, 6, 7, 8, 9"
    )
    assert a["line"] == 5


def test_empty_description_below_20(scored: dict[str, Any]) -> None:
    assert flags(scored, "empty-19") == ["EMPTY_DESCRIPTION"]
    assert scored["empty-19"]["anti_patterns"][0]["evidence"] == (
        "line 3: description is 19 characters (fewer than 20)"
    )
    assert flags(scored, "empty-20") == []
    assert scored["empty-1"]["anti_patterns"][0]["evidence"] == (
        "line 3: description is 1 character (fewer than 20)"  # was "1 characters"
    )
    assert flags(scored, "empty-none") == ["EMPTY_DESCRIPTION", "MISSING_TRIGGER"]


def test_missing_trigger_quotes_the_description_as_its_length_is_counted(
    scored: dict[str, Any],
) -> None:
    # The length is of the description without the whitespace Python's str.strip() takes;
    # the quote trimmed spaces only, so a folded value was quoted with its line break
    # ("No trigger phrase, folded.\n") and a tab or U+3000 stayed at its ends.
    for name, text in (
        ("trigger-folded", "No trigger phrase, folded."),
        ("trigger-spaced", "No trigger phrase, spaced."),
    ):
        assert line_and_evidence(scored, name) == [
            (
                "MISSING_TRIGGER",
                3,
                f'line 3: description has no trigger phrase ("Use when …"): "{text}"',
            )
        ]


def test_a_description_in_frontmatter_that_is_not_read_is_not_said_to_be_missing(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # "the frontmatter has no description" (or "no frontmatter") was false of these files,
    # whose description is there but unread: the report (--out, JSON) said so beside a
    # description its reader could see, with the reason only on stderr. The flags stand
    # (spec §2 reads such frontmatter as empty); their evidence, line and tip say why.
    desc = "description: Use when the user asks for a review of the code.\n"
    by_skill, _ = kit.score(
        tmp_path,
        {
            "colon": {"text": "---\nname: c\ndescription: Use when: a review is asked\n---\n"},
            "bom": {"raw": b"\xef\xbb\xbf---\nname: b\n" + desc.encode() + b"---\n"},
            "list": {"text": "---\n- " + desc + "---\n"},
            "open": {"text": "---\nname: o\n" + desc},
            "mid": {"text": '---\nname: m\ndescription: "use --- when asked"\n---\n'},
        },
    )
    why = {
        "colon": (3, "the frontmatter is not valid YAML (mapping values are not allowed here)"),
        "bom": (1, "the file starts with a byte-order mark, which hides its frontmatter"),
        "list": (1, "the frontmatter is not a mapping"),
        "open": (1, "the frontmatter is not closed (no second ---)"),
        "mid": (
            3,
            "the --- on line 3 ends the frontmatter mid-line, and it is not valid YAML "
            "(found unexpected end of stream)",
        ),
    }
    for name, (line, reason) in why.items():
        assert line_and_evidence(by_skill, name) == [
            (
                "EMPTY_DESCRIPTION",
                line,
                f"line {line}: {reason}: no description is read (fewer than 20 characters)",
            ),
            (
                "MISSING_TRIGGER",
                line,
                f"line {line}: {reason}: no description is read, so no trigger phrase "
                '("Use when …")',
            ),
        ], name
        assert by_skill[name]["tips"][0] == {
            "dimension": "triggering_accuracy",
            "score": by_skill[name]["dimensions"]["triggering_accuracy"]["score"],
            "weight": 0.25,
            "tip": f"line {line}: {reason}: fix it, and its name and description count",
        }, name


def line_and_evidence(scored: dict[str, Any], name: str) -> list[tuple[str, int, str]]:
    return [(a["flag"], a["line"], a["evidence"]) for a in scored[name]["anti_patterns"]]


def test_description_flags_name_the_description_line(scored: dict[str, Any]) -> None:
    # Spec §8: each flag with "the line that triggered" it. These two are about the
    # frontmatter's description: its line, or line 1 (where the frontmatter opens, or
    # would) when there is none. They had no line.
    assert line_and_evidence(scored, "empty-19") == [
        ("EMPTY_DESCRIPTION", 3, "line 3: description is 19 characters (fewer than 20)")
    ]
    assert line_and_evidence(scored, "trigger-missing") == [
        (
            "MISSING_TRIGGER",
            3,
            'line 3: description has no trigger phrase ("Use when …"): '
            '"A description without any trigger phrase at all."',
        )
    ]
    assert line_and_evidence(scored, "empty-none") == [
        (
            "EMPTY_DESCRIPTION",
            1,
            "line 1: the frontmatter has no description (fewer than 20 characters)",
        ),
        (
            "MISSING_TRIGGER",
            1,
            'line 1: the frontmatter has no description, so no trigger phrase ("Use when …")',
        ),
    ]
    assert line_and_evidence(scored, "empty-no-frontmatter") == [
        (
            "EMPTY_DESCRIPTION",
            1,
            "line 1: no frontmatter, so no description (fewer than 20 characters)",
        ),
        (
            "MISSING_TRIGGER",
            1,
            'line 1: no frontmatter, so no description, so no trigger phrase ("Use when …")',
        ),
    ]
    assert line_and_evidence(scored, "empty-blank") == [
        ("EMPTY_DESCRIPTION", 3, "line 3: description is 0 characters (fewer than 20)"),
        (
            "MISSING_TRIGGER",
            3,
            'line 3: description is empty, so no trigger phrase ("Use when …")',
        ),
    ]
    assert line_and_evidence(scored, "empty-twice") == [
        ("EMPTY_DESCRIPTION", 4, "line 4: description is 5 characters (fewer than 20)"),
        ("MISSING_TRIGGER", 4, 'line 4: description has no trigger phrase ("Use when …"): "short"'),
    ]


def test_missing_trigger_and_its_exemptions(scored: dict[str, Any]) -> None:
    assert flags(scored, "trigger-missing") == ["MISSING_TRIGGER"]
    assert scored["trigger-missing"]["anti_patterns"][0]["evidence"] == (
        'line 3: description has no trigger phrase ("Use when …"): '
        '"A description without any trigger phrase at all."'
    )
    assert flags(scored, "trigger-disabled") == []
    assert flags(scored, "trigger-disabled-text") == ["MISSING_TRIGGER"]  # a string, not true
    assert flags(scored, "trigger-paths") == []
    assert flags(scored, "trigger-paths-empty") == ["MISSING_TRIGGER"]
    assert flags(scored, "trigger-paths-list") == ["MISSING_TRIGGER"]  # not a string


def test_bloated_skill_over_800_lines_without_references(scored: dict[str, Any]) -> None:
    assert scored["bloated-801"]["line_count"] == 801
    assert flags(scored, "bloated-801") == ["BLOATED_SKILL"]
    assert scored["bloated-801"]["anti_patterns"][0]["evidence"] == (
        "801 lines (more than 800) and no references/ folder"
    )
    assert flags(scored, "bloated-800") == []
    assert flags(scored, "bloated-refs") == []  # an empty references/ folder is enough


def test_orphan_reference_one_per_dead_link(scored: dict[str, Any]) -> None:
    anti = scored["orphan"]["anti_patterns"]
    assert [(a["flag"], a["target"], a["line"]) for a in anti] == [
        ("ORPHAN_REFERENCE", "references/missing.md#part", 7)
    ]
    assert anti[0]["evidence"] == (
        "line 7: link (references/missing.md#part) names no file in references/"
    )
    assert flags(scored, "orphan-no-refs-dir") == []  # only checked when references/ exists


def test_dead_cross_references(scored: dict[str, Any]) -> None:
    anti = scored["dead"]["anti_patterns"]
    # skills/sibling resolves next to this skill; sub-skills/child inside it; the
    # look-behind keeps "my-skills/x" out; nested paths stay whole.
    assert [(a["flag"], a["target"], a["line"]) for a in anti] == [
        ("DEAD_CROSS_REF", "nowhere", 5),
        ("DEAD_CROSS_REF", "sub-skills/none", 6),
        ("DEAD_CROSS_REF", "sibling/deep", 7),
    ]
    assert anti[0]["evidence"] == "line 5: skills/nowhere resolves to no folder next to this skill"
    assert scored["dead"]["static"]["penalty"] == 1.0 - 0.05 * 3
    assert scored["dead"]["static"]["flags"] == 3


def test_evidence_shows_a_link_or_description_that_cannot_be_shown_as_it_is(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # A link holding U+202E or ESC was written into its evidence as it was: the markdown
    # report escapes it in place (a\u202eb), so it read alike with a link holding those
    # six characters, and in the JSON the override turned the rest of the line around.
    # Now quoted as every message shows such a name (rs_shown); an ordinary one unchanged.
    body = (
        "(references/a\u202eb.md) (references/a\\u202eb.md)\n"
        '(references/x\x1by.md) (references/"q.md)\n(references/ok.md)\n'
    )
    specs = {
        "links": skill(body=body, refs=["other.md"]),
        "desc": {
            "text": "---\nname: n\ndescription: 'No trigger \u202eat all, long enough.'\n---\n"
        },
    }
    by_skill, result = kit.score(tmp_path, specs)
    assert [a["evidence"] for a in by_skill["links"]["anti_patterns"]] == [
        'line 5: link ("references/a\\u202eb.md") names no file in references/',
        "line 5: link (references/a\\u202eb.md) names no file in references/",
        'line 6: link ("references/x\\u001By.md") names no file in references/',
        'line 6: link (references/"q.md) names no file in references/',
        "line 7: link (references/ok.md) names no file in references/",
    ]
    # The target stays the link as written: it is data, not a message.
    assert by_skill["links"]["anti_patterns"][0]["target"] == "references/a\u202eb.md"
    assert line_and_evidence(by_skill, "desc") == [
        (
            "MISSING_TRIGGER",
            3,
            'line 3: description has no trigger phrase ("Use when …"): '
            '"No trigger \\u202eat all, long enough."',
        )
    ]
    md = render_skill(by_skill["links"], result.dimension_weights)
    assert md.count("(references/a\\\\u202eb.md) names") == 1  # the six characters
    assert md.count('("references/a\\\\u202eb.md") names') == 1  # the override


def test_penalty_floor(scored: dict[str, Any]) -> None:
    assert flags(scored, "floor") == ["ORPHAN_REFERENCE"] * 12
    assert scored["floor"]["static"]["penalty"] == 0.5
    subs = scored["floor"]["static"]["sub_scores"]
    weights = (0.32, 0.23, 0.14, 0.10, 0.09, 0.06, 0.06)
    raw = sum(v * w for v, w in zip(subs.values(), weights, strict=True))
    assert scored["floor"]["static"]["score"] == pytest.approx(raw * 0.5, abs=1e-15)


def test_weakest_dimensions_get_concrete_tips(scored: dict[str, Any]) -> None:
    tips = scored["trigger-missing"]["tips"]
    assert len(tips) == 3
    # lost composite points w × (1 − score), largest first
    lost = [t["weight"] * (1.0 - t["score"]) for t in tips]
    assert lost == sorted(lost, reverse=True)
    assert tips[0]["dimension"] == "triggering_accuracy"
    assert tips[0]["tip"] == 'description has no trigger phrase: add "Use when …"'
    assert {t["dimension"]: t["tip"] for t in scored["bloated-801"]["tips"]}[
        "progressive_disclosure"
    ] == (
        "SKILL.md has 801 lines: move detail into references/ and keep 401–600 lines (the best "
        "score with references/)"
    )


def test_dimensions_that_lose_the_same_points_are_tipped_in_dimension_order(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # orchestration_wiring 0.70 + .05 ("returns") + .05 (two fences) = 0.80, weight 0.20;
    # progressive_disclosure 0.60 (250–600 lines, no references/ or assets/), weight 0.10:
    # each loses 0.04 of the composite. The blend leaves orchestration at
    # 0.8000000000000002 (0.03999999999999997 lost) and progressive at 0.6
    # (0.04000000000000001), so the doubles put progressive first; the tie is a tie at
    # 6 decimals, as every comparison of scores is, and ties go in dimension order.
    desc = (
        "Use when building async services, for testing pipelines, during deploying apps, "
        "or when debugging stuff; use proactively and automatically"
    )
    body = "# Tie\n\nIt returns a note.\n```\nx\n```\n" + "".join(f"note {i}\n" for i in range(250))
    text = f"---\nname: tie-skill\ndescription: {desc}\n---\n{body}"
    by_skill, _ = kit.score(tmp_path, {"tie": {"text": text}})
    s = by_skill["tie"]
    assert s["static"]["sub_scores"]["orchestration_wiring"] == 0.8
    assert s["static"]["sub_scores"]["progressive_disclosure"] == 0.6
    assert [(t["dimension"], t["weight"]) for t in s["tips"]] == [
        ("orchestration_fitness", 0.2),
        ("progressive_disclosure", 0.1),
        ("structural_completeness", 0.03),
    ]


#: A description that earns every pushiness point of spec §3 (0.95 of them: frontmatter
#: quality is 0.97 at most): a trigger, "proactively", "invoke"/"automatically", three
#: comma contexts, an "-ing" context, 100+ characters.
FULL_DESC = (
    "Reviews pull requests proactively. Use when reviewing code, for testing changes, "
    "when building features, when debugging failures; invoke it automatically."
)
#: Every other static sub-check at its maximum (token efficiency: the fences' closing
#: lines repeat), so triggering accuracy is the dimension a tip goes to first.
RICH_BODY = "\n".join(
    [
        "## Usage", "It accepts a diff as input and returns JSON output format.",
        "```bash\nrun\n```", "```json\n{}\n```", "```python\nx\n```", "```yaml\na: 1\n```",
        "## Examples", "### Example one", "## Troubleshooting", "### Common",
        "## Decision table", "| a | b |", "|---|---|",
        "See also skills/a, skills/b, skills/c, skills/d (related).",
        "Details in [guide](references/guide.md).",
    ]
    + [f"Line {i} of guidance." for i in range(420)]
)  # fmt: skip


@pytest.mark.parametrize(
    ("folder", "name", "desc", "judged", "tip"),
    [
        # a name of its own, only "invoke"/"automatically" missing: the catch-all said
        # "give the skill a name of its own in the frontmatter and sharpen …"
        (
            "folder", "own-name", FULL_DESC.replace("; invoke it automatically", ""), None,
            'say in the description how it is invoked ("invoke it …", "triggers automatically …")',
        ),
        (
            "folder", "own-name", FULL_DESC.replace(" proactively", ""), None,
            'add "Use proactively when …" to the description',
        ),
        # every static point earned; the judges' score is what is low
        (
            "folder", "own-name", FULL_DESC, 0.1,
            "judges rate triggering accuracy low: make the description name the requests "
            "it is for",
        ),
        (
            "folder", "own-name", FULL_DESC, None,
            "the frontmatter earns every point static analysis gives: sharpen the trigger "
            "phrases to the prompts that should pick it up",
        ),
        (
            "folder", "folder", FULL_DESC, None,
            "give the skill a name of its own in the frontmatter, not its folder's",
        ),
        (
            "folder", "", FULL_DESC, None,
            "give the skill a name in the frontmatter (its name: is empty)",
        ),
    ],
)  # fmt: skip
def test_the_triggering_tip_names_what_is_missing(
    tmp_path: Any,
    kit: SimpleNamespace,
    folder: str,
    name: str,
    desc: str,
    judged: float | None,
    tip: str,
) -> None:
    text = f"---\nname: {name}\ndescription: {desc}\n---\n{RICH_BODY}\n"
    skills = {folder: {"text": text, "refs": ["guide.md"], "assets": ["t.txt"]}}
    skills |= {p: {"text": f"---\nname: {p}\ndescription: Use when {p}\n---\n"} for p in "abcd"}
    scores = {"triggering_accuracy": judged}
    judge = [] if judged is None else [{"skill": folder, "judge": "j", "scores": scores}]
    by_skill, _ = kit.score(tmp_path, skills, judge=judge)
    first = by_skill[folder]["tips"][0]
    assert (first["dimension"], first["tip"]) == ("triggering_accuracy", tip)
