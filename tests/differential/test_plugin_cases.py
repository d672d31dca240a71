"""Hand-made plugin-pack inputs, one rule (a spec plugin-eval.md sentence) each.

Every case is a folder of skills under one root; all cases are scored by ONE evaluate() call
and each is compared with the reference (plugin_ref.py) on its own skills, their order in the
ranking and its own rejected lines; then the rule it is about is asserted directly, so a case
cannot pass by both sides being wrong in the same way unnoticed.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from runscore.engine.packs import plugin as engine

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "plugin"
DESC = "Use when the differential cases need a description that raises no flag."
JUDGED = ("triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration")


def fm(desc: str | None = DESC, name: str | None = "n", extra: str = "") -> str:
    keys = ([] if name is None else [f"name: {name}"]) + (
        [] if desc is None else [f"description: {json.dumps(desc)}"]
    )
    return "---\n" + "".join(k + "\n" for k in keys) + extra + "---\n"


def text_of_lines(total: int, head: str = "") -> str:
    """``head`` (ending in a line break) then distinct lines, ``total`` lines in all (§2 L)."""
    t = head + "\n".join(f"guidance {i}" for i in range(total - (len(head.split("\n")) - 1)))
    assert len(t.split("\n")) == total
    return t


#: A field a line leaves out (``C.run(..., errored=ABSENT)``).
ABSENT = object()


@dataclass
class C:
    """One case: its skills live in ``base`` (ROOT/<case>), its lines name them by path."""

    name: str
    base: Path
    judge: list[Any] = field(default_factory=list)
    mc: list[Any] = field(default_factory=list)
    matchups: list[Any] = field(default_factory=list)

    def key(self, folder: str) -> str:
        return f"{self.name}/{folder}"

    def skill(
        self,
        folder: str,
        text: str = "",
        *,
        raw: bytes | None = None,
        refs: list[str] | None = None,
        assets: list[str] | None = None,
        dirs: tuple[str, ...] = (),
    ) -> Path:
        d = self.base / folder
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_bytes(raw if raw is not None else text.encode())
        for names, sub in ((refs, "references"), (assets, "assets")):
            if names is not None:
                (d / sub).mkdir(exist_ok=True)
                for f in names:
                    (d / sub / f).write_text("x\n")
        for extra in dirs:
            (d / extra).mkdir(parents=True, exist_ok=True)
        return d

    def judged(self, folder: str, judge: str = "j", **scores: Any) -> None:
        self.judge.append({"skill": self.key(folder), "judge": judge, "scores": scores})

    def run(
        self, folder: str, activated: Any, q: Any = None, tokens: Any = None, **kw: Any
    ) -> None:
        """A Monte Carlo line; ``errored`` false unless given (``errored=ABSENT``: left out)."""
        line = {
            "skill": self.key(folder),
            "activated": activated,
            "quality_score": q,
            "tokens": tokens,
            "errored": False,
        } | kw
        self.mc.append({k: v for k, v in line.items() if v is not ABSENT})

    def game(self, folder: str, rb: Any, result: Any) -> None:
        self.matchups.append(
            {"skill": self.key(folder), "opponent": "o", "opponent_elo": rb, "result": result}
        )


Got = dict[str, dict[str, Any]]  # runscore's skills of the case, by folder
Check = Callable[[Any, Got], None]
CASES: dict[str, Callable[[C, ModuleType], Check]] = {}


def case(fn: Callable[[C, ModuleType], Check]) -> Callable[[C, ModuleType], Check]:
    CASES[fn.__name__] = fn
    return fn


def sub(got: Got, folder: str, name: str) -> float:
    return float(got[folder]["static"]["sub_scores"][name])


def flags(got: Got, folder: str) -> list[tuple[str, Any, Any]]:
    return [(a["flag"], a["target"], a["line"]) for a in got[folder]["anti_patterns"]]


# --------------------------------------------------------------------------- worked examples


@case
def worked_examples(c: C, ref: ModuleType) -> Check:
    # spec README "Worked examples … with the exact expected outputs"; examples/plugin/README
    # "Your static layer must reproduce every number to 1e-9 and every flag." Checked on
    # runscore here; the comparison with the reference checks the reference too.
    names = [p.name for p in EXAMPLES.iterdir() if p.is_dir()]
    for n in names:
        shutil.copytree(EXAMPLES / n, c.base / n, ignore=shutil.ignore_patterns("expected.json"))

    def check(exp: Any, got: Got) -> None:
        assert sorted(got) == sorted(names)
        for n in names:
            want = json.loads((EXAMPLES / n / "expected.json").read_text())
            g = got[n]
            for k, v in want["static"]["sub_scores"].items():
                assert math.isclose(g["static"]["sub_scores"][k], v, abs_tol=1e-9), (n, k)
            assert math.isclose(g["static"]["score"], want["static"]["score"], abs_tol=1e-9)
            assert [(a["flag"], a["target"]) for a in g["anti_patterns"]] == [
                (a["flag"], a["target"]) for a in want["static"]["anti_patterns"]
            ]
            assert g["line_count"] == want["static"]["line_count"]
            assert g["static"]["penalty"] == want["anti_pattern_penalty"]
            assert math.isclose(g["composite"], want["composite"], abs_tol=1e-9)
            assert g["depth"] == want["depth"]
            for d, v in want["dimensions"].items():
                if v is None:
                    assert g["dimensions"][d] is None, (n, d)
                else:
                    assert math.isclose(g["dimensions"][d]["score"], v["score"], abs_tol=1e-9)
                    assert g["dimensions"][d]["grade"] == v["grade"], (n, d)

    return check


# --------------------------------------------------------------------------- §3 static


@case
def line_counts_either_side_of_each_band(c: C, ref: ModuleType) -> Check:
    # §3 progressive_disclosure "base 200 ≤ L ≤ 600 → .60; 100 ≤ L < 200 → .50; 600 < L ≤ 800
    # → .40; L < 100 → .20; L > 800 → .15; + (.25 if L > 400 else .15) when `references/`
    # holds ≥ 1 file; + .15 when `assets/` holds ≥ 1 file"; §4 BLOATED_SKILL "L > 800 and no
    # `references/` folder" (an empty one is a folder).
    want = {
        "l99": (99, None, None, 0.20),
        "l100": (100, None, None, 0.50),
        "l199": (199, None, None, 0.50),
        "l200": (200, None, None, 0.60),
        "l600": (600, None, None, 0.60),
        "l601": (601, None, None, 0.40),
        "l800": (800, None, None, 0.40),
        "l801": (801, None, None, 0.15),
        "l801-empty-refs": (801, [], None, 0.15),
        "l400-refs": (400, ["r.md"], None, 0.75),
        "l401-refs": (401, ["r.md"], None, 0.85),
        "l401-refs-assets": (401, ["r.md"], ["t.txt"], 1.0),
        "l99-empty-assets": (99, None, [], 0.20),
    }
    for folder, (n, refs, assets, _) in want.items():
        c.skill(folder, text_of_lines(n, fm()), refs=refs, assets=assets)

    def check(exp: Any, got: Got) -> None:
        for folder, (n, *_, pd) in want.items():
            assert got[folder]["line_count"] == n
            assert sub(got, folder, "progressive_disclosure") == pytest.approx(pd, abs=1e-12)
        assert [f for f, _, _ in flags(got, "l801")] == ["BLOATED_SKILL"]
        assert flags(got, "l801-empty-refs") == flags(got, "l800") == []

    return check


@case
def references_that_is_a_file_is_no_folder(c: C, ref: ModuleType) -> Check:
    # §4 BLOATED_SKILL "no `references/` folder"; ORPHAN_REFERENCE "only when `references/`
    # exists"; §3 harness ".15 if the file is > 8192 UTF-8 bytes and there is no `references/`
    # folder". A plain file named `references` is none of these.
    d = c.skill("file", text_of_lines(801, fm() + "[a](references/a.md)\n" + "w" * 9000 + "\n"))
    (d / "references").write_text("not a folder\n")

    def check(exp: Any, got: Got) -> None:
        assert [f for f, _, _ in flags(got, "file")] == ["BLOATED_SKILL"]
        assert sub(got, "file", "harness_portability") == pytest.approx(0.85)

    return check


@case
def description_lengths(c: C, ref: ModuleType) -> Check:
    # §3 "d = len(description.strip()): ≥ 100 → .25; ≥ 60 → .20; ≥ 30 → .15; ≥ 10 → .05";
    # pushiness "+.10 if d ≥ 40"; §4 EMPTY_DESCRIPTION "d < 20". No other pushiness point:
    # the descriptions are "x" repeated (a trigger would be MISSING_TRIGGER's business too).
    parts = {9: 0, 10: 0.05, 19: 0.05, 20: 0.05, 29: 0.05, 30: 0.15, 39: 0.15, 40: 0.15}
    parts |= {59: 0.15, 60: 0.20, 99: 0.20, 100: 0.25}
    for d in parts:
        c.skill(f"d{d}", fm("\t" + "x" * d + "\u3000", name=None) + "body\n")

    def check(exp: Any, got: Got) -> None:
        for d, part in parts.items():
            want = 0.10 + part + (0.60 * 0.10 if d >= 40 else 0.0)  # name = the folder's: .10
            assert sub(got, f"d{d}", "frontmatter_quality") == pytest.approx(want, abs=1e-12), d
            empty = [f for f, _, _ in flags(got, f"d{d}") if f == "EMPTY_DESCRIPTION"]
            assert empty == (["EMPTY_DESCRIPTION"] if d < 20 else []), d

    return check


@case
def name_points(c: C, ref: ModuleType) -> Check:
    # §3 "+0.15 if `name` is non-empty and differs from the folder name; +0.10 if it equals
    # it"; §2 "`name` = frontmatter `name`, else the folder name". spec-silent: a `name:` given
    # empty (null, "") is empty, no points; a number is read as its text.
    names = {"absent": None, "null": "", "empty": '""', "same": "same", "other": "x", "num": "42"}
    for folder, value in names.items():
        text = "---\n" + ("" if value is None else f"name: {value}\n") + "---\nbody\n"
        c.skill(folder, text)

    def check(exp: Any, got: Got) -> None:
        pts = {"absent": 0.10, "null": 0.0, "empty": 0.0, "same": 0.10, "other": 0.15, "num": 0.15}
        for folder, p in pts.items():
            assert sub(got, folder, "frontmatter_quality") == pytest.approx(p), folder
        assert (got["absent"]["name"], got["num"]["name"]) == ("absent", "42")

    return check


@case
def pushiness_parts(c: C, ref: ModuleType) -> Check:
    # §3 pushiness: +.25 TRIGGER (case-insensitive, on the description as written: "ſ" folds
    # to "s"); on the lower-cased description +.15 proactively, +.10 automatically/…, +.20 for
    # ≥ 3 (+.10 for ≥ 1) comma contexts, +.15 for "-ing" contexts; +.10 if d ≥ 40. The
    # descriptions are under 30 characters unless said, so only the part named counts.
    want = {
        "trigger": ("Use whenever asked", 0.25),
        "trigger-longs": ("U\u017fe when asked", 0.25),
        "trigger-auto": ("auto-loads on start", 0.25),
        "proactive": ("Runs proactively.", 0.15),
        "invoke": ("invoke it", 0.10),
        "ctx1": ("Tool, or testing x", 0.10),
        "ctx3": ("a, when b, for c, debugging", 0.20),
        "ing": ("x when parsing y", 0.15),
        "unicode-boundary": ("\u00e9proactively", 0.0),
    }
    for folder, (desc, _) in want.items():
        c.skill(folder, fm(desc, name="same-as-nothing") + "body\n")

    def check(exp: Any, got: Got) -> None:
        for folder, (desc, p) in want.items():
            d = len(desc.strip())
            length = 0.05 if d >= 10 else 0.0
            v = 0.15 + length + 0.60 * p
            assert sub(got, folder, "frontmatter_quality") == pytest.approx(v, abs=1e-12), folder
        missing = [f for f, _, _ in flags(got, "trigger-longs") if f == "MISSING_TRIGGER"]
        assert missing == []

    return check


@case
def must_count_and_density(c: C, ref: ModuleType) -> Check:
    # §4 OVER_CONSTRAINED "must > 15" (line: the first directive's); §3 token_efficiency
    # "density = must / max(L, 1): > .5 → .4; > .2 → .2; > .1 → .1" (at 6 decimals: .1 exactly
    # is no penalty). MUST is case-sensitive and a whole word.
    body15 = "".join(f"MUST {i}\n" for i in range(15)) + "must MUSTARD _MUST\n"
    c.skill("m15", text_of_lines(200, fm() + body15))
    c.skill("m16", text_of_lines(200, fm() + body15 + "NEVER again\n"))
    for folder, n in (("d10", 1), ("d20", 2), ("d21", 3), ("d50", 5), ("d51", 6)):
        # 10 lines (L of §2), n of them a directive: density n / 10
        c.skill(
            folder, "\n".join([f"ALWAYS {i}" for i in range(n)] + [f"l{i}" for i in range(10 - n)])
        )

    def check(exp: Any, got: Got) -> None:
        assert flags(got, "m15") == []
        assert flags(got, "m16")[0] == ("OVER_CONSTRAINED", None, 5)
        want = {"d10": 0.0, "d20": 0.1, "d21": 0.2, "d50": 0.2, "d51": 0.4}
        for folder, pen in want.items():
            assert sub(got, folder, "token_efficiency") == pytest.approx(1.0 - pen), folder

    return check


@case
def repetition_over_splitlines(c: C, ref: ModuleType) -> Check:
    # §3 "Repetition: over the lines of the text as Python's `str.splitlines()` gives them,
    # keeping those that are non-empty after stripping and do not start with `---`
    # (unstripped), comparing the stripped lines: penalty = (1 − distinct/total) × 0.4".
    c.skill("seps", "dup\u2028dup\x85 dup \x0cother\n--- a\n--- a\n  --- b\n  --- b\n\n   \n")

    def check(exp: Any, got: Got) -> None:
        # kept: dup, dup, dup, other, --- b, --- b → 3 distinct of 6
        assert sub(got, "seps", "token_efficiency") == pytest.approx(1.0 - 0.5 * 0.4)

    return check


@case
def orphan_reference_links(c: C, ref: ModuleType) -> Check:
    # §4 ORPHAN_REFERENCE "(only when `references/` exists: one per match of
    # `\(references/([^)]+)\)` whose final path component, lower-cased, is not a lower-cased
    # file name in `references/`)". Reading chosen: the links are found in the whole text
    # (the frontmatter too), as PluginEval does; "final path component" as a path has it, so
    # `a.md/` ends in `a.md`; the capture may span lines.
    body = (
        "[a](references/a.md) (references/A.MD) (references/sub/a.md) (references/a.md/)\n"
        "(references/a.md#part) (references/)\n"
        "[split](references/x\ny.md)\n"
    )
    c.skill(
        "links", fm(DESC + " (references/gone.md)") + body, refs=["a.md"], dirs=("references/sub",)
    )
    c.skill("no-folder", fm() + "(references/gone.md)\n")

    def check(exp: Any, got: Got) -> None:
        assert flags(got, "links") == [
            ("ORPHAN_REFERENCE", "references/gone.md", 3),
            ("ORPHAN_REFERENCE", "references/a.md#part", 6),
            ("ORPHAN_REFERENCE", "references/x\ny.md", 7),
        ]
        assert flags(got, "no-folder") == []

    return check


@case
def dead_cross_references(c: C, ref: ModuleType) -> Check:
    # §2 cross-references "(?<![\w-])((?:skill|skills|sub-skills)/[a-z0-9-]+(?:/[a-z0-9-]+)*)
    # in the body, with a leading `skill/` or `skills/` segment removed; duplicates kept";
    # §4 DEAD_CROSS_REF "one per cross-reference whose path does not exist relative to the
    # skill folder's parent; for `sub-skills/…` also try relative to the skill folder" (a
    # file exists too); §3 ecosystem ".08 × cross-references" capped at .25.
    c.skill("sib", fm() + "body\n")
    (c.base / "sib-file").write_text("a file, not a skill\n")
    (c.base / "sub-skills" / "shared").mkdir(parents=True)
    body = (
        "skills/sib skill/sib skills/sib-file\n"
        "skills/nowhere\n"
        "sub-skills/child sub-skills/shared sub-skills/none\n"
        "my-skills/x skills/Upper skills/sib/deep\n"
    )
    c.skill("refs", fm(DESC + " see skills/nowhere") + body, dirs=("sub-skills/child",))

    def check(exp: Any, got: Got) -> None:
        assert flags(got, "refs") == [
            ("DEAD_CROSS_REF", "nowhere", 6),
            ("DEAD_CROSS_REF", "sub-skills/none", 7),
            ("DEAD_CROSS_REF", "sib/deep", 8),
        ]
        assert sub(got, "refs", "ecosystem_coherence") == pytest.approx(0.75)  # 8 refs: .25

    return check


@case
def harness_size_and_tool_names(c: C, ref: ModuleType) -> Check:
    # §3 harness_portability: ".15 if the file is > 8192 UTF-8 bytes and there is no
    # `references/` folder; + min(.10, .02 × distinct tool names (as written, case kept)) …;
    # + .05 if `(?i:\bthe)\s+(?:`)?(T)(?:`)?\s+tool\b` matches (tool name case-sensitive)".
    # Reading chosen: the bytes of the text as read (universal newlines), as PluginEval
    # measures them: a CRLF file is not larger than its LF twin.
    head = fm()
    c.skill("b8192", head + "q" * (8192 - len(head)))
    c.skill("b8193", head + "q" * (8193 - len(head)))
    c.skill("b8193-refs", head + "q" * (8193 - len(head)), refs=[])
    c.skill("b-utf8", head + "\u00e9" * ((8193 - len(head)) // 2 + 1))
    # as many 78-byte lines as keep the LF text within 8192 bytes: with CRLF it is over
    crlf = head + "".join(f"{'z' * 72} {i:04d}\n" for i in range((8192 - len(head)) // 78))
    c.skill("b-crlf", raw=crlf.replace("\n", "\r\n").encode())
    c.skill("tools", head + "use `Read`, use `read`, the `Bash` tool, the bash tool\n")
    many = "".join(f"via `{t}` " for t in ("Read", "Edit", "Write", "Grep", "Glob", "Task"))
    c.skill("tools-cap", head + many + "\nthe Read tool\n")

    def check(exp: Any, got: Got) -> None:
        want = {"b8192": 1.0, "b8193": 0.85, "b8193-refs": 1.0, "b-utf8": 0.85, "b-crlf": 1.0}
        # Read, read, Bash (three names as written); "the `Bash` tool" is prose too
        want |= {"tools": 1.0 - 3 * 0.02 - 0.05, "tools-cap": 1.0 - 0.10 - 0.05}
        for folder, v in want.items():
            assert sub(got, folder, "harness_portability") == pytest.approx(v), folder
        assert len(crlf.encode()) <= 8192 < len(crlf.replace("\n", "\r\n").encode())

    return check


@case
def frontmatter_oddities(c: C, ref: ModuleType) -> Check:
    # §2 "Frontmatter exists only if the file starts with `---`: split the text on `---` at
    # most twice; with three parts, the middle one is YAML (safe load; invalid YAML → empty)".
    c.skill("empty", "")
    c.skill("dashes", "---")
    c.skill("two-dashes", "---\n---\n")
    c.skill("bom", "\ufeff" + fm() + "body\n")
    c.skill("unclosed", "---\nname: x\ndescription: Use when never closed here\n")
    c.skill("bad-yaml", "---\nname: [unclosed\ndescription: Use when broken yaml\n---\n")
    c.skill("in-value", "---\nname: v\ndescription: a --- b, use when x\n---\n")
    c.skill("flow", "---\n{name: f, description: short}\n---\n")
    c.skill("crlf", raw=(fm() + "## A\r\n").replace("\n", "\r\n").encode())

    def check(exp: Any, got: Got) -> None:
        shown = {f: got[f]["name"] for f in got}
        assert shown == {
            "empty": "empty",
            "dashes": "dashes",
            "two-dashes": "two-dashes",
            "bom": "bom",
            "unclosed": "unclosed",
            "bad-yaml": "bad-yaml",
            "in-value": "v",
            "flow": "f",
            "crlf": "n",
        }
        assert (got["empty"]["line_count"], got["two-dashes"]["line_count"]) == (1, 3)
        # spec-silent: the description flags name the `description` key's line (flow too)
        assert flags(got, "flow")[0] == ("EMPTY_DESCRIPTION", None, 2)

    return check


@case
def missing_trigger_exemptions(c: C, ref: ModuleType) -> Check:
    # §4 MISSING_TRIGGER "skipped when frontmatter `disable-model-invocation` is true or
    # `paths` is a non-empty string" (YAML's true: `yes` is one, the text 'true' and 1 are not;
    # "  " is a non-empty string).
    extras = {
        "dmi-true": ("disable-model-invocation: true", False),
        "dmi-yes": ("disable-model-invocation: yes", False),
        "dmi-text": ("disable-model-invocation: 'true'", True),
        "dmi-one": ("disable-model-invocation: 1", True),
        "paths": ("paths: 'src/**'", False),
        "paths-blank": ("paths: '  '", False),
        "paths-empty": ("paths: ''", True),
        "paths-list": ("paths: [src]", True),
    }
    for folder, (extra, _) in extras.items():
        c.skill(folder, fm("A description with no phrase that triggers.", extra=extra + "\n"))

    def check(exp: Any, got: Got) -> None:
        for folder, (_, flagged) in extras.items():
            have = [f for f, _, _ in flags(got, folder)] == ["MISSING_TRIGGER"]
            assert have == flagged, folder

    return check


@case
def which_text_each_check_reads(c: C, ref: ModuleType) -> Check:
    # §2 has_examples / has_troubleshooting: "lower-cased body"; headings: "lines of
    # `body.strip()…`"; cross-references: "in the body"; fences and `must`: "in the whole
    # text"; §3 orchestration_wiring, the table, "decision …" and ecosystem's "related …": the
    # (lower-cased) whole text. All of it put in the description only, of a skill with no body.
    desc = "## Usage ## FAQ decision related | a | b | c ```py ```sh MUST NEVER ALWAYS returns json"
    c.skill("in-desc", fm(desc) + "\n")
    c.skill("in-body", fm() + desc.replace(" ## ", "\n## ") + "\n")

    def check(exp: Any, got: Got) -> None:
        # whole text: table .10, decision .05, 2 fences .10, 2 languages .10; not the headings
        # or the sections of the body
        assert sub(got, "in-desc", "structural_completeness") == pytest.approx(0.35)
        # body: + headings (2) .10, examples .15, troubleshooting .15
        assert sub(got, "in-body", "structural_completeness") == pytest.approx(0.75)
        # output format (return … json) .10, returns .05, fences ≥ 2 .05
        assert sub(got, "in-desc", "orchestration_wiring") == pytest.approx(0.90)
        assert sub(got, "in-desc", "ecosystem_coherence") == pytest.approx(0.75)
        density = 3 / got["in-desc"]["line_count"]  # 3 directives in 6 lines: > .2
        assert density > 0.2
        assert sub(got, "in-desc", "token_efficiency") == pytest.approx(0.8)

    return check


# --------------------------------------------------------------------------- §1 judges


@case
def judges_average_later_line_wins(c: C, ref: ModuleType) -> Check:
    # §1 "Several judges per skill are averaged per dimension"; "(a missing, null or
    # non-numeric score is unmeasured)". spec-silent: the same judge again — the later line
    # wins; a score outside [0, 1] is unmeasured; an empty judge id is no judge.
    c.skill("s", fm() + "body\n")
    c.judged("s", "a", triggering_accuracy=0.5, output_quality=0.2, scope_calibration=1.5)
    c.judged("s", "b", triggering_accuracy=0.9, output_quality="0.8", scope_calibration=True)
    c.judged("s", "a", triggering_accuracy=0.7, output_quality=None)
    c.judged("s", "", triggering_accuracy=0.0)

    def check(exp: Any, got: Got) -> None:
        s = got["s"]
        assert s["judges"]["count"] == 2
        fq = s["static"]["sub_scores"]["frontmatter_quality"]
        judge = (0.7 + 0.9) / 2
        want = (fq * 0.15 + judge * 0.25) / 0.40
        assert s["dimensions"]["triggering_accuracy"]["score"] == pytest.approx(want, abs=1e-12)
        assert s["dimensions"]["output_quality"] is None
        assert s["dimensions"]["scope_calibration"] is None

    return check


@case
def a_judge_that_measured_nothing_does_not_set_the_depth(c: C, ref: ModuleType) -> Check:
    # spec-silent (§5 "Depth is what was supplied: static only = `quick` ("Estimated"), +
    # judge = `standard` ("Assessed")"): a judge line whose every score is unmeasured (out of
    # range, null, or none given) supplies a judge but no judge score, so the composite is the
    # static layer's alone. runscore read it as supplied and said `standard` (Assessed) of a
    # skill no judge score had assessed; as Monte Carlo without judges, it now stays `quick`
    # (Estimated). The judge line is still accepted and counted.
    c.skill("nothing", fm() + "body\n")
    c.skill("static", fm() + "body\n")
    c.judged("nothing", triggering_accuracy=1.5, output_quality=None)

    def check(exp: Any, got: Got) -> None:
        s = got["nothing"]
        assert (s["depth"], s["confidence"], s["judges"]["count"]) == ("quick", "Estimated", 1)
        assert s["composite"] == got["static"]["composite"]
        assert got["static"]["depth"] == "quick"

    return check


@case
def kappa_bands_at_six_decimals(c: C, ref: ModuleType) -> Check:
    # §1 "Cohen's kappa between each pair over the anchor bands (F < .20 ≤ D < .40 ≤ C < .60 ≤
    # B < .80 ≤ A)", compared at 6 decimals (spec README): .1999996 is in D with .2.
    # spec-silent: p_e = 1 (one band for both) is kappa 1; the skill's kappa is the pairs' mean.
    c.skill("k", fm() + "body\n")
    c.judged("k", "a", triggering_accuracy=0.1999996, output_quality=0.8)
    c.judged("k", "b", triggering_accuracy=0.2, output_quality=0.7999996)
    c.judged("k", "c", triggering_accuracy=0.1999994, output_quality=0.7999994)

    def check(exp: Any, got: Got) -> None:
        pairs = {(p["judge_a"], p["judge_b"]): p["kappa"] for p in got["k"]["judges"]["pairs"]}
        # a, b: D A / D A → 1; a, c and b, c: D A / F B → p_o 0, p_e 0 → 0
        assert pairs == {("a", "b"): 1.0, ("a", "c"): 0.0, ("b", "c"): 0.0}
        assert got["k"]["judges"]["kappa"] == pytest.approx(1 / 3)

    return check


@case
def unknown_is_not_zero(c: C, ref: ModuleType) -> Check:
    # §5 "if no layer has one, d is **unmeasured** (shown as "—", never as 0)"; "composite =
    # … Σ_measured (w_d / Σ_measured w) …". code_template_quality has a static blend weight
    # but no sub-check feeds it (§5 "harness_portability feeds no dimension"), judges do not
    # score it: it is never measured.
    c.skill("static", fm() + "body\n")
    c.skill("all", fm() + "body\n")
    c.judged("all", **dict.fromkeys(JUDGED, 0.5))
    c.run("all", True, 0.5, 100)

    def check(exp: Any, got: Got) -> None:
        s = got["static"]
        unmeasured = {d for d, v in s["dimensions"].items() if v is None}
        assert unmeasured == {
            "output_quality",
            "scope_calibration",
            "robustness",
            "code_template_quality",
        }
        assert [d for d, v in got["all"]["dimensions"].items() if v is None] == [
            "code_template_quality"
        ]
        measured = {d: v["score"] for d, v in s["dimensions"].items() if v is not None}
        w = {d: ref.DIMS[d][0] for d in measured}
        want = sum(w[d] / sum(w.values()) * v for d, v in measured.items()) * 100
        assert s["composite"] == pytest.approx(want * s["static"]["penalty"], abs=1e-9)

    return check


# --------------------------------------------------------------------------- §6 Monte Carlo


@case
def monte_carlo_statistics(c: C, ref: ModuleType) -> Check:
    # §6: quality values of activated, non-errored runs; failure = errored / n; tokens of
    # non-errored runs, Q1 = sorted[n//4], Q3 = sorted[min(3n//4, n−1)], outliers > Q3 + 1.5
    # IQR; efficiency_norm = max(0, 1 − median/8000).
    c.skill("mc", fm() + "body\n")
    c.run("mc", True, 0.8, 100)
    c.run("mc", True, 0.6, 200)
    c.run("mc", False, 0.9, 300)  # not activated: no quality
    c.run("mc", True, 0.1, 99999, errored=True)  # errored: no quality, no tokens
    c.run("mc", True, 1.0, 10000)
    c.run("mc", True, None, 400)

    def check(exp: Any, got: Got) -> None:
        m = got["mc"]["mc"]
        assert (m["n"], m["activated"], m["quality_n"], m["errored"], m["tokens_n"]) == (
            6,
            5,
            3,
            1,
            5,
        )
        assert m["mean_quality"] == pytest.approx(0.8)
        assert (m["median_tokens"], m["q1_tokens"], m["q3_tokens"]) == (300, 200, 400)
        assert m["token_outliers"] == 1
        assert m["efficiency_norm"] == pytest.approx(1 - 300 / 8000)

    return check


@case
def monte_carlo_errored_unknown(c: C, ref: ModuleType) -> Check:
    # spec-silent (§1 shows `"errored": false` on every line, §6 counts errored / n): a run
    # whose `errored` is absent or null is unknown, counted neither as errored nor as not.
    # It is in no failure count (the rate is over the runs that said), and, not known to
    # have run cleanly, gives no quality value and no token count. Read as false, it was
    # counted a clean run: a file that never says scored a failure rate of 0.
    c.skill("some", fm() + "body\n")
    c.run("some", True, 0.8, 100)
    c.run("some", True, 0.6, 200, errored=True)
    c.run("some", True, 0.4, 300, errored=ABSENT)
    c.run("some", True, 0.2, 400, errored=None)
    c.skill("none", fm() + "body\n")
    c.run("none", True, 0.8, 100, errored=ABSENT)
    c.run("none", False, None, 200, errored=None)

    def check(exp: Any, got: Got) -> None:
        m = got["some"]["mc"]
        assert (m["n"], m["errored"], m["failure_n"], m["failure_rate"]) == (4, 1, 2, 0.5)
        assert (m["quality_n"], m["tokens_n"]) == (1, 1)
        n = got["none"]["mc"]
        assert (n["errored"], n["failure_n"], n["failure_rate"]) == (0, 0, None)
        assert (n["failure_ci_low"], n["failure_ci_high"]) == (None, None)
        assert got["none"]["dimensions"]["robustness"] is None  # no layer measures it
        # activation 0.5 and a CV of 0 by rule, over their weights (.40 + .30)
        assert n["mc_score"] == pytest.approx((0.40 * 0.5 + 0.30) / 0.70)

    return check


@case
def skill_without_runs_has_no_monte_carlo_layer(c: C, ref: ModuleType) -> Check:
    # AMBIGUOUS (spec §6 "n = 0 → activation 0, cv 1, failure 1, efficiency 0"; §5 "+ Monte
    # Carlo = deep"): with --mc given, a skill with no run could read as n = 0 (activation 0
    # and failure 1 feeding triggering_accuracy and robustness, depth deep) or as a skill
    # whose Monte Carlo evidence is unknown. runscore (and the reference) read "unknown is not
    # zero": no Monte Carlo block, no layer, the depth of what was supplied for it.
    c.skill("none", fm() + "body\n")
    c.skill("some", fm() + "body\n")
    c.judged("none", scope_calibration=0.5)
    c.judged("some", scope_calibration=0.5)
    c.run("some", True, 0.5, 100)
    c.run("none", "yes", 0.5, 100)  # rejected: still no run

    def check(exp: Any, got: Got) -> None:
        assert got["none"]["mc"] is None and got["none"]["dimensions"]["robustness"] is None
        assert (got["none"]["depth"], got["some"]["depth"]) == ("standard", "deep")

    return check


@case
def every_run_errored(c: C, ref: ModuleType) -> Check:
    # §6 "tokens of non-errored runs"; spec-silent (README): with none, efficiency_norm is
    # unknown, mc_score is weighed over its other three terms, and token_efficiency is
    # measured by the static layer alone.
    c.skill("err", fm() + "body\n")
    c.run("err", True, 0.9, 100, errored=True)
    c.run("err", False, None, 200, errored=True)

    def check(exp: Any, got: Got) -> None:
        s = got["err"]
        assert s["mc"]["efficiency_norm"] is None
        # activation 1/2, no quality value (CV 0 by rule), failure 1
        assert s["mc"]["mc_score"] == pytest.approx((0.40 * 0.5 + 0.30) / 0.90)
        assert s["dimensions"]["robustness"]["score"] == 0.0
        static = s["static"]["sub_scores"]["token_efficiency"]
        assert s["dimensions"]["token_efficiency"]["score"] == pytest.approx(static)
        assert s["depth"] == "quick"  # Monte Carlo without a judge (README)

    return check


# --------------------------------------------------------------------------- §7 Elo, §5 badges


@case
def elo_test_vector(c: C, ref: ModuleType) -> Check:
    # §7 "Test vector: start 1500, matchups (1500, win), (1550, draw), (1450, loss), (1600,
    # win), (1500, win) → 1534.1586"; "fewer than 2 matchups → the point estimate for both ends".
    c.skill("vector", fm() + "body\n")
    c.skill("single", fm() + "body\n")
    for rb, r in ((1500, "win"), (1550, "draw"), (1450, "loss"), (1600, "win"), (1500, "win")):
        c.game("vector", rb, r)
    c.game("single", 1600, "draw")

    def check(exp: Any, got: Got) -> None:
        v = got["vector"]["elo"]
        assert round(v["rating"], 4) == 1534.1586 and v["matchups"] == 5
        s = got["single"]["elo"]
        assert s["ci_low"] == s["ci_high"] == s["rating"]

    return check


def _tuned(ref: ModuleType, d: Path, target: float) -> float:
    """The score every judge gives skill ``d`` so its composite is ``target`` (§5: linear in
    it), worked out with the reference."""
    st = ref.static_layer(ref.parse(d))
    static = {k: st["sub_scores"][v] for k, v in ref.STATIC_DIM.items()}

    def comp(x: float) -> float:
        layers = {"static": static, "judge": dict.fromkeys(JUDGED, x), "mc": {}}
        return float(ref.composite(ref.blend(layers), st["penalty"]))

    lo, hi = comp(0.0), comp(1.0)
    return (target - lo) / (hi - lo)


def _games(ref: ModuleType, target: float) -> list[tuple[float, str]]:
    """Wins against 1800 until close below ``target``, then one whose opponent is chosen so
    the rating lands on it (§7 update rule, solved for Rb)."""
    games: list[tuple[float, float]] = []
    while ref.elo(games) < target - 25:
        games.append((1800.0, 1.0))
    r = ref.elo(games)
    e = 1 - (target - r) / 32
    games.append((r + 400 * math.log10(1 / e - 1), 1.0))
    return [(rb, "win") for rb, _ in games]


@case
def grades_and_badges_at_six_decimals(c: C, ref: ModuleType) -> Check:
    # §5 "Grade of a 0–100 value: … A- ≥ 90, B+ ≥ 87 … D- ≥ 60, else F"; badges "Platinum
    # (composite ≥ 90, Elo ≥ 1600), Gold (80, 1500) … whose Elo minimum holds or Elo is
    # unknown"; spec README: compared at 6 decimals (89.9999996 reaches 90, 89.9999994 not).
    polished = ref.gen_polished(__import__("random").Random(7), "p", 0, [])
    targets = {
        "c90-hi": (89.9999996, None),
        "c90-lo": (89.9999994, None),
        "c60-hi": (59.9999996, None),
        "c60-lo": (59.9999994, None),
        "e1600-hi": (92.0, 1599.9999996),
        "e1600-lo": (92.0, 1599.9999994),
    }
    for folder, (comp, rating) in targets.items():
        d = c.skill(folder, polished.text, refs=polished.refs, assets=polished.assets)
        c.judged(folder, **dict.fromkeys(JUDGED, _tuned(ref, d, comp)))
        for rb, r in _games(ref, rating) if rating else ():
            c.game(folder, rb, r)

    def check(exp: Any, got: Got) -> None:
        want = {
            "c90-hi": ("A-", "Platinum"),
            "c90-lo": ("B+", "Gold"),
            "c60-hi": ("D-", "Bronze"),
            "c60-lo": ("F", "none"),
            "e1600-hi": ("A-", "Platinum"),
            "e1600-lo": ("A-", "Gold"),
        }
        for folder, (g, b) in want.items():
            assert (got[folder]["grade"], got[folder]["badge"]) == (g, b), folder
            assert got[folder]["composite"] == pytest.approx(targets[folder][0], abs=1e-9)

    return check


@case
def ranking_composite_then_elo(c: C, ref: ModuleType) -> Check:
    # §8 "A ranking table over all skills (composite, then Elo)"; spec-silent: unknown Elo
    # after known ones, then the skill's path.
    for folder in ("z-unrated", "a-unrated", "loser", "winner", "better"):
        c.skill(folder, "---\ndescription: Use when ranking equal skills by their Elo.\n---\n")
    c.skill("better", fm() + "## Usage\nIt returns JSON output format from its input.\n")
    c.game("winner", 1500, "win")
    c.game("loser", 1500, "loss")
    c.game("better", 1500, "loss")

    def check(exp: Any, got: Got) -> None:
        pass  # the ranking is compared with the reference's in every case

    return check


# --------------------------------------------------------------------------- runner


@dataclass
class Scored:
    checks: dict[str, Check]
    exp: Any
    skills: list[dict[str, Any]]
    ranking: list[dict[str, Any]]
    issues: set[tuple[str, int]]
    lines: dict[str, set[tuple[str, int]]]  # each case's input lines


@pytest.fixture(scope="module")
def scored(plugin_ref: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Scored:
    base = tmp_path_factory.mktemp("plugin_cases")
    root = base / "skills"
    checks: dict[str, Check] = {}
    inputs: dict[str, list[str]] = {"judge": [], "mc": [], "matchups": []}
    owned: dict[str, set[tuple[str, int]]] = {}
    for name, fn in CASES.items():
        c = C(name, root / name)
        c.base.mkdir(parents=True)
        checks[name] = fn(c, plugin_ref)
        owned[name] = set()
        for kind in inputs:
            for row in getattr(c, kind):
                inputs[kind].append(json.dumps(row))
                owned[name].add((f"{kind}.jsonl", len(inputs[kind])))
    files = {}
    for kind, rows in inputs.items():
        files[kind] = base / f"{kind}.jsonl"
        files[kind].write_text("".join(r + "\n" for r in rows))
    result, con = engine.evaluate([str(root)], **{k: str(v) for k, v in files.items()})
    con.close()
    issues = {(Path(i.file).name, i.line) for i in result.issues}
    exp = plugin_ref.evaluate(root, *files.values())
    return Scored(checks, exp, result.skills(), result.ranking.to_pylist(), issues, owned)


@pytest.mark.parametrize("name", list(CASES))
def test_case_matches_reference(plugin_ref: ModuleType, scored: Scored, name: str) -> None:
    mine = name + "/"
    diffs = plugin_ref.diffs(
        scored.exp, scored.skills, scored.ranking, keep=lambda k: k.startswith(mine)
    )
    lines = scored.lines[name]
    if scored.issues & lines != scored.exp.issues & lines:
        diffs.append(
            f"rejected: runscore {sorted(scored.issues & lines)} != spec {sorted(scored.exp.issues & lines)}"
        )
    assert not diffs, "\n".join(diffs)
    got = {s["skill"][len(mine) :]: s for s in scored.skills if s["skill"].startswith(mine)}
    scored.checks[name](scored.exp, got)
