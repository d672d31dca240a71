"""Golden skills for every bonus bucket of spec plugin-eval §3 (one rule isolated per skill).

Expected values are the spec's arithmetic written out in Python float order (left to
right, as PluginEval adds with `+=`), so they are exact, not approximate.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest


def Skill(text: str = "", **more: Any) -> dict[str, Any]:  # noqa: N802 - reads like a record
    return {"text": text, **more}


def fm(name: str | None, description: str | None, extra: str = "") -> str:
    """A frontmatter block (keys left out when None)."""
    out = ["---"]
    if name is not None:
        out.append(f"name: {name}")
    if description is not None:
        out.append(f"description: {json.dumps(description)}")
    if extra:
        out.append(extra)
    return "\n".join([*out, "---"]) + "\n"


LONG_TRIGGER = (
    "Use when building APIs, when debugging servers, for testing endpoints, during deploying "
    "releases; use proactively and automatically."
)  # trigger, proactively, trigger word, 3 use cases, -ing context, >= 100 chars


def lines(n: int, word: str = "text") -> str:
    """n distinct plain lines (no keyword of any rule)."""
    return "".join(f"{word} {i}\n" for i in range(n))


SKILLS: dict[str, dict[str, Any]] = {
    # ---- frontmatter_quality: name part
    "name-differs": Skill(fm("other-name", "")),
    "name-same": Skill(fm("name-same", "")),
    "name-absent": Skill(fm(None, "")),
    "name-empty": Skill('---\nname: ""\n---\n'),
    # ---- description length buckets (no pushiness keyword, < 40 chars unless stated)
    "desc-9": Skill(fm("x", "a" * 9)),
    "desc-10": Skill(fm("x", "a" * 10)),
    "desc-30": Skill(fm("x", "a" * 30)),
    "desc-60": Skill(fm("x", "a" * 60)),
    "desc-100": Skill(fm("x", "a" * 100)),
    # ---- pushiness, one bonus at a time
    "push-trigger": Skill(fm("x", "Use when x")),
    "push-used-before": Skill(fm("x", "Should be used immediately before x")),
    "push-proactively": Skill(fm("x", "Proactively x")),
    "push-word": Skill(fm("x", "Invoke it")),
    "push-case-1": Skill(fm("x", "Stuff, for x")),
    "push-case-3": Skill(fm("x", "a, or when x, for y, building z")),
    "push-ing": Skill(fm("x", "When reviewing x")),
    "push-all": Skill(fm("push-full", LONG_TRIGGER)),
    # ---- orchestration_wiring
    "orch-base": Skill(fm("x", "")),
    "orch-output-format": Skill(fm("x", "") + "the output is in a fixed format\n"),
    "orch-returns-json": Skill(fm("x", "") + "Return a JSON object\n"),
    "orch-produces": Skill(fm("x", "") + "It produces text\n"),
    "orch-input": Skill(fm("x", "") + "It accepts a path\n"),
    "orch-fences": Skill(fm("x", "") + "```\nx\n```\n"),
    "orch-one-fence": Skill(fm("x", "") + "```\nx\n"),
    "orch-dispatch": Skill(fm("x", "") + "It dispatches work\n"),
    "orch-all": Skill(
        fm("x", "") + "Input: a. Output format: json. It returns it.\n```\n```\ncoordinates\n"
    ),
    # ---- progressive_disclosure (L = lines of the whole file)
    "prog-99": Skill(lines(98)),  # 98 lines + final empty segment = 99
    "prog-100": Skill(lines(99)),
    "prog-200": Skill(lines(199)),
    "prog-600": Skill(lines(599)),
    "prog-601": Skill(lines(600)),
    "prog-800": Skill(lines(799)),
    "prog-801": Skill(lines(800)),
    "prog-refs-small": Skill(lines(299), refs=["a.md"]),
    "prog-refs-large": Skill(lines(450), refs=["a.md"]),
    "prog-refs-empty": Skill(lines(299), refs=[]),
    "prog-assets": Skill(lines(299), assets=["t.txt"]),
    "prog-capped": Skill(lines(450), refs=["a.md"], assets=["t.txt"]),
    # ---- structural_completeness
    "struct-h1": Skill("## a\n"),
    "struct-h2": Skill("## a\n### b\n"),
    "struct-h4": Skill("## a\n## b\n### c\n### d\n"),
    "struct-h6": Skill("## a\n## b\n## c\n### d\n### e\n### f\n#### not counted\n"),
    "struct-fence1": Skill("```\n"),
    "struct-fence3": Skill("```\n```\n```\n"),
    "struct-fence5": Skill("```\n```\n```\n```\n```\n"),
    "struct-langs2": Skill("```python\n```\n```bash\n```\n"),
    "struct-langs3": Skill("```python\n```\n```bash\n```\n```json\n```\n"),
    "struct-examples": Skill("## Examples\n"),
    "struct-usage": Skill("## Usage\n"),
    "struct-troubleshooting": Skill("## Troubleshooting\n"),
    "struct-faq": Skill("## FAQ\n"),
    "struct-table": Skill("| a | b |\n"),
    "struct-decision": Skill("A tradeoff.\n"),
    "struct-capped": Skill(
        "## Examples\n## Troubleshooting\n## c\n### d\n### e\n### f\n"
        "```python\n```\n```bash\n```\n```json\n```\n| a | b |\nwhen to use\n"
    ),
    # ---- token_efficiency
    "tok-clean": Skill(lines(10)),
    "tok-density-11": Skill("MUST\n" + lines(8)),  # 1 / 10 lines = 0.1: not > 0.1
    "tok-density-12": Skill("MUST\n" * 2 + lines(7, "a")),  # 2/10 = 0.2: > 0.1
    "tok-density-21": Skill("MUST NEVER\n" * 2 + "ALWAYS\n" + lines(6, "b")),  # 5/10
    "tok-density-51": Skill("MUST NEVER ALWAYS\n" * 2 + lines(7, "c")),  # 6/10
    "tok-repeat": Skill("same\nsame\n  same  \nother\n---same\n\n"),
    # ---- ecosystem_coherence (cross-references resolve or not: only the count matters)
    "eco-1": Skill("see skills/a\n"),
    "eco-3": Skill("skills/a skills/b sub-skills/c\n"),
    "eco-4": Skill("skills/a skills/a skill/b skills/c/d\n"),
    "eco-lookbehind": Skill("my-skills/a x_skills/b\n"),
    "eco-related": Skill("See also the companion skill.\n"),
    "eco-complement": Skill("It complements x.\n"),
    # ---- harness_portability
    "harness-big": Skill("x" * 8193),
    "harness-big-refs": Skill("x" * 8193, refs=[]),
    "harness-exact-cap": Skill("x" * 8192),
    "harness-tool": Skill("use `Read` then `bash` tool\n"),
    "harness-tools-6": Skill(
        "use `Read` use `Edit` use `Write` use `Bash` use `Grep` use `Glob`\n"
    ),
    "harness-prose": Skill("Use the Read tool.\n"),
    "harness-prose-lower": Skill("Use the bash tool.\n"),
    "harness-all": Skill("x" * 8193 + "\nuse `Read`, the Edit tool\n"),
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> dict[str, Any]:
    by_skill, _ = kit.score(tmp_path_factory.mktemp("rules"), SKILLS)
    return by_skill


def sub(scored: dict[str, dict[str, Any]], skill: str, check: str) -> float:
    return scored[skill]["static"]["sub_scores"][check]


# Pushiness of a description of < 40 chars that matches nothing.
P0 = 0.0

FRONTMATTER = [
    ("name-differs", 0.15 + 0.0 + P0 * 0.60),
    ("name-same", 0.10 + 0.0 + P0 * 0.60),
    ("name-absent", 0.10 + 0.0 + P0 * 0.60),  # name falls back to the folder name
    ("name-empty", 0.0 + 0.0 + P0 * 0.60),
    ("desc-9", 0.15 + 0.0 + P0 * 0.60),
    ("desc-10", 0.15 + 0.05 + P0 * 0.60),
    ("desc-30", 0.15 + 0.15 + P0 * 0.60),
    ("desc-60", 0.15 + 0.20 + 0.10 * 0.60),  # >= 40 chars: +.10 pushiness
    ("desc-100", 0.15 + 0.25 + 0.10 * 0.60),
    ("push-trigger", 0.15 + 0.05 + 0.25 * 0.60),
    ("push-used-before", 0.15 + 0.15 + 0.25 * 0.60),
    ("push-proactively", 0.15 + 0.05 + 0.15 * 0.60),
    ("push-word", 0.15 + 0.0 + 0.10 * 0.60),
    ("push-case-1", 0.15 + 0.05 + 0.10 * 0.60),
    ("push-case-3", 0.15 + 0.15 + 0.20 * 0.60),
    ("push-ing", 0.15 + 0.05 + 0.15 * 0.60),
    ("push-all", min(1.0, 0.15 + 0.25 + min(1.0, 0.25 + 0.15 + 0.10 + 0.20 + 0.15 + 0.10) * 0.60)),
]


@pytest.mark.parametrize(("skill", "expected"), FRONTMATTER)
def test_frontmatter_quality(
    scored: dict[str, dict[str, Any]], skill: str, expected: float
) -> None:
    assert sub(scored, skill, "frontmatter_quality") == expected


ORCHESTRATION = [
    ("orch-base", 0.70),
    ("orch-output-format", 0.70 + 0.10 + 0.05),  # "output" is also return/output language
    ("orch-returns-json", 0.70 + 0.10 + 0.05),
    ("orch-produces", 0.70 + 0.05),
    ("orch-input", 0.70 + 0.10),
    ("orch-fences", 0.70 + 0.05),
    ("orch-one-fence", 0.70),
    ("orch-dispatch", 0.70 - 0.15),
    ("orch-all", 0.70 + 0.10 + 0.05 + 0.10 + 0.05 - 0.15),
]


@pytest.mark.parametrize(("skill", "expected"), ORCHESTRATION)
def test_orchestration_wiring(
    scored: dict[str, dict[str, Any]], skill: str, expected: float
) -> None:
    assert sub(scored, skill, "orchestration_wiring") == expected


PROGRESSIVE = [
    ("prog-99", 0.20, 99),
    ("prog-100", 0.50, 100),
    ("prog-200", 0.60, 200),
    ("prog-600", 0.60, 600),
    ("prog-601", 0.40, 601),
    ("prog-800", 0.40, 800),
    ("prog-801", 0.15, 801),
    ("prog-refs-small", 0.60 + 0.15, 300),
    ("prog-refs-large", 0.60 + 0.25, 451),
    ("prog-refs-empty", 0.60, 300),
    ("prog-assets", 0.60 + 0.15, 300),
    ("prog-capped", min(1.0, 0.60 + 0.25 + 0.15), 451),
]


@pytest.mark.parametrize(("skill", "expected", "line_count"), PROGRESSIVE)
def test_progressive_disclosure(
    scored: dict[str, dict[str, Any]], skill: str, expected: float, line_count: int
) -> None:
    assert scored[skill]["line_count"] == line_count
    assert sub(scored, skill, "progressive_disclosure") == expected


STRUCTURAL = [
    ("struct-h1", 0.0),
    ("struct-h2", 0.10),
    ("struct-h4", 0.15),
    ("struct-h6", 0.20),
    ("struct-fence1", 0.10),
    ("struct-fence3", 0.15),
    ("struct-fence5", 0.20),
    ("struct-langs2", 0.15 + 0.10),  # 4 fences + 2 languages
    ("struct-langs3", 0.20 + 0.15),  # 6 fences + 3 languages
    ("struct-examples", 0.15),
    ("struct-usage", 0.15),
    ("struct-troubleshooting", 0.15),
    ("struct-faq", 0.15),
    ("struct-table", 0.10),
    ("struct-decision", 0.05),
    ("struct-capped", min(1.0, 0.20 + 0.20 + 0.15 + 0.15 + 0.15 + 0.10 + 0.05)),
]


@pytest.mark.parametrize(("skill", "expected"), STRUCTURAL)
def test_structural_completeness(
    scored: dict[str, dict[str, Any]], skill: str, expected: float
) -> None:
    assert sub(scored, skill, "structural_completeness") == expected


TOKEN = [
    ("tok-clean", 1.0),
    ("tok-density-11", 1.0),
    ("tok-density-12", 1.0 - 0.1 - (1.0 - 8 / 9) * 0.4),  # the 2 "MUST" lines repeat
    ("tok-density-21", 1.0 - 0.2 - (1.0 - 8 / 9) * 0.4),
    ("tok-density-51", 1.0 - 0.4 - (1.0 - 8 / 9) * 0.4),
    # kept lines: same, same, same (stripped), other; "---same" is dropped
    ("tok-repeat", 1.0 - (1.0 - 2 / 4) * 0.4),
]


@pytest.mark.parametrize(("skill", "expected"), TOKEN)
def test_token_efficiency(scored: dict[str, dict[str, Any]], skill: str, expected: float) -> None:
    assert sub(scored, skill, "token_efficiency") == max(0.0, min(1.0, expected))


ECOSYSTEM = [
    ("eco-1", 0.50 + min(0.25, 1 * 0.08)),
    ("eco-3", 0.50 + min(0.25, 3 * 0.08)),
    ("eco-4", 0.50 + min(0.25, 4 * 0.08)),
    ("eco-lookbehind", 0.50),
    ("eco-related", 0.50 + 0.25),
    ("eco-complement", 0.50 + 0.25),
]


@pytest.mark.parametrize(("skill", "expected"), ECOSYSTEM)
def test_ecosystem_coherence(
    scored: dict[str, dict[str, Any]], skill: str, expected: float
) -> None:
    assert sub(scored, skill, "ecosystem_coherence") == expected


HARNESS = [
    ("harness-big", 1.0 - 0.15),
    ("harness-big-refs", 1.0),
    ("harness-exact-cap", 1.0),
    ("harness-tool", 1.0 - 0.02 * 2),  # `Read` and `bash`, case kept: two names
    ("harness-tools-6", 1.0 - min(0.10, 0.02 * 6)),
    ("harness-prose", 1.0 - 0.05),
    ("harness-prose-lower", 1.0),  # "the bash tool" is the shell, not Claude's Bash
    ("harness-all", 1.0 - (0.15 + 0.02 + 0.05)),
]


@pytest.mark.parametrize(("skill", "expected"), HARNESS)
def test_harness_portability(
    scored: dict[str, dict[str, Any]], skill: str, expected: float
) -> None:
    assert sub(scored, skill, "harness_portability") == expected


def test_static_score_is_the_weighted_sum_times_penalty(scored: dict[str, dict[str, Any]]) -> None:
    s = scored["push-all"]
    subs = s["static"]["sub_scores"]
    weights = {
        "frontmatter_quality": 0.32,
        "orchestration_wiring": 0.23,
        "progressive_disclosure": 0.14,
        "structural_completeness": 0.10,
        "token_efficiency": 0.09,
        "ecosystem_coherence": 0.06,
        "harness_portability": 0.06,
    }
    raw = sum(subs[k] * w for k, w in weights.items())
    assert s["static"]["penalty"] == 1.0  # "Use when", 100+ chars: no flag
    assert s["static"]["score"] == pytest.approx(raw, abs=1e-15)


def test_cross_references_keep_nested_paths(scored: dict[str, dict[str, Any]]) -> None:
    flags = [(a["flag"], a["target"]) for a in scored["eco-4"]["anti_patterns"]]
    assert [t for f, t in flags if f == "DEAD_CROSS_REF"] == ["a", "a", "b", "c/d"]


def test_every_sub_check_is_reported(scored: dict[str, dict[str, Any]]) -> None:
    assert list(scored["orch-base"]["static"]["sub_scores"]) == [
        "frontmatter_quality",
        "orchestration_wiring",
        "progressive_disclosure",
        "structural_completeness",
        "token_efficiency",
        "ecosystem_coherence",
        "harness_portability",
    ]
