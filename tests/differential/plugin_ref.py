"""A plain-Python reference of the plugin pack (spec plugin-eval.md §1–§7), for differential tests.

Written from the spec text, without reading runscore's plugin code or SQL: each rule cites
the sentence it implements (§n "…"), so a disagreement with runscore points at the sentence
to read. Where the spec is silent ("spec-silent") the reference adopts what runscore's README
or its plugin tests document, so those choices are pinned too; where it can be read two ways
("reading chosen") the reference takes one reading, says why, and
tests/differential/test_plugin_cases.py holds a case for it.

Loaded by tests/differential/conftest.py (the ``plugin_ref`` fixture): under
``--import-mode=importlib`` test files cannot import each other.
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from scipy.stats import beta as beta_dist

SCORING_VERSION = "plugin/v1"


def r6(x: float) -> float:
    """Spec README "Wherever a score is compared with a threshold, the comparison is made on
    the value rounded to 6 decimal places"."""
    return round(x, 6)


def clamp01(x: float) -> float:
    return min(1.0, max(0.0, x))


# ============================================================================ §2 parsing

#: §3 TRIGGER.
TRIGGER = re.compile(
    r"\b(?:should\s+be\s+)?used?\s+(?:this\s+skill\s+)?(?:immediately\s+)?"
    r"(?:when|after|before|whenever)\b|\buse\s+proactively\b|\btrigger(?:s)?\s+(?:when|on)\b"
    r"|\bauto[-\s]?loads?\s+(?:when|on)\b",
    re.IGNORECASE,
)
FENCE = re.compile(r"```(\w*)")
MUST = re.compile(r"\b(MUST|NEVER|ALWAYS)\b")
XREF = re.compile(r"(?<![\w-])((?:skill|skills|sub-skills)/[a-z0-9-]+(?:/[a-z0-9-]+)*)")
ORPHAN = re.compile(r"\(references/([^)]+)\)")
TOOLS = "Read|Edit|Write|Bash|Grep|Glob|Agent|Task|TodoWrite|WebFetch|WebSearch|LS|LSP"
TOOL_REF = re.compile(
    rf"(?:\b(?:the|use|using|call|calling|invoke|invoking|via)\s+)`({TOOLS})`|`({TOOLS})`\s+tool\b",
    re.IGNORECASE,
)
TOOL_PROSE = re.compile(rf"(?i:\bthe)\s+(?:`)?({TOOLS})(?:`)?\s+tool\b")


@dataclass
class Parsed:
    folder: Path
    raw: bytes
    text: str
    fm: dict[str, Any]
    body: str
    body_offset: int
    name: str  # for scoring: "" when the frontmatter's name is empty
    shown_name: str
    description: str
    description_line: int
    L: int
    headings: int
    fences: int
    languages: int
    has_examples: bool
    has_troubleshooting: bool
    refs_dir: bool
    refs: list[str]
    assets: list[str]
    must: list[int]  # offsets of the matches
    xrefs: list[tuple[str, int]]  # (path without skill(s)/, offset in text)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _files(d: Path) -> list[str]:
    """§2 "Reference files: plain files directly in `references/`; asset files likewise"."""
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if p.is_file())


def _as_text(v: Any) -> str:
    """spec-silent: a frontmatter value that is not text is read as its str() (runscore warns
    "read as text"); an empty one (null, "", false) is empty."""
    if v is None or v is False or v == "":
        return ""
    return v if isinstance(v, str) else str(v)


def _key_line(yaml_text: str, key: str) -> int:
    """spec-silent (README): the anti-patterns about the description name "the frontmatter's
    `description:` line": that of the last `description` key of the top-level mapping (the
    one YAML keeps), block or flow style. The YAML text starts on line 1, after `---`."""
    node = yaml.compose(yaml_text, Loader=yaml.SafeLoader)
    lines = [
        k.start_mark.line for k, _ in getattr(node, "value", []) if getattr(k, "value", None) == key
    ]
    return lines[-1] + 1 if lines else 1


def parse(folder: Path) -> Parsed:
    raw = (folder / "SKILL.md").read_bytes()
    # spec-silent: the file is read as Python's read_text does (PluginEval's parser): UTF-8,
    # universal newlines (runscore: "newline styles score alike"), a BOM kept as text.
    text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    fm: Any = {}
    body, body_offset = text, 0
    unread_line = 1  # where the anti-patterns about the description point when none is read
    # §2 "Frontmatter exists only if the file starts with `---`: split the text on `---` at
    # most twice; with three parts, the middle one is YAML (safe load; invalid YAML → empty),
    # the third is the body; otherwise no frontmatter and the body is the whole text."
    if text.startswith("---"):
        parts = text.split("---", 2)
        if len(parts) == 3:
            try:
                fm = yaml.safe_load(parts[1])
            except yaml.YAMLError as e:
                fm = {}
                # spec-silent (README): a description in frontmatter that is not valid YAML
                # is not read; the flags about it point at the line the YAML fails on, or at
                # the --- that ends the frontmatter mid-line.
                mark = getattr(e, "problem_mark", None)
                unread_line = 1 + mark.line if mark is not None else 1
                if not parts[1].endswith("\n"):
                    unread_line = parts[1].count("\n") + 1
            except Exception:  # spec-silent: any load failure (a bad date too) is invalid YAML
                fm = {}
            body, body_offset = parts[2], 3 + len(parts[1]) + 3
    if not isinstance(fm, dict):
        fm = {}  # spec-silent: a frontmatter that is not a mapping reads as empty
    # §2 "`name` = frontmatter `name`, else the folder name; `description` = frontmatter
    # `description`, else `""`." An empty name stays empty for scoring (§3 "+0.15 if `name`
    # is non-empty"); runscore shows the folder name for it.
    name = _as_text(fm["name"]) if "name" in fm else folder.name
    description = _as_text(fm.get("description"))
    desc_line = unread_line
    if "description" in fm:
        desc_line = _key_line(text.split("---", 2)[1], "description")
    lines = body.strip().split("\n")
    fences = FENCE.findall(text)
    lower_body = body.lower()
    refs_dir = (folder / "references").is_dir()
    return Parsed(
        folder=folder,
        raw=raw,
        text=text,
        fm=fm,
        body=body,
        body_offset=body_offset,
        name=name,
        shown_name=name or folder.name,
        description=description,
        description_line=desc_line,
        # §2 "`L` = number of `\n`-separated lines of the whole file"
        L=len(text.split("\n")),
        # §2 "Headings: lines of `body.strip().split("\n")` starting `## ` (h2) or `### `"
        headings=sum(1 for ln in lines if ln.startswith("## ") or ln.startswith("### ")),
        # §2 "Fences: all matches … (opening and closing both count); languages = the distinct
        # non-empty captures."
        fences=len(fences),
        languages=len({f for f in fences if f}),
        has_examples=any(s in lower_body for s in ("## example", "### example", "## usage")),
        has_troubleshooting=any(
            s in lower_body for s in ("## troubleshoot", "## common issue", "## faq")
        ),
        refs_dir=refs_dir,
        refs=_files(folder / "references"),
        assets=_files(folder / "assets"),
        must=[m.start() for m in MUST.finditer(text)],
        # §2 "Cross-references: matches … in the body, with a leading `skill/` or `skills/`
        # segment removed; duplicates kept."
        xrefs=[
            (re.sub(r"^skills?/", "", m.group(1)), body_offset + m.start())
            for m in XREF.finditer(body)
        ],
    )


# ============================================================================ §3 static


def pushiness(desc: str) -> float:
    low = desc.lower()
    p = 0.0
    if TRIGGER.search(desc):
        p += 0.25
    if re.search(r"\bproactively\b", low):
        p += 0.15
    if re.search(r"\bautomatically\b|\balways\s+use\b|\btrigger\b|\binvoke\b", low):
        p += 0.10
    ctx = len(
        re.findall(
            r",\s*(?:or\s+)?(?:when|for|during|implementing|building|creating|debugging|testing"
            r"|deploying|configuring|setting up)",
            low,
        )
    )
    if ctx >= 3:
        p += 0.20
    elif ctx >= 1:
        p += 0.10
    if re.search(r"\b(when\s+\w+ing|for\s+\w+ing|during\s+\w+ing)\b", low):
        p += 0.15
    if len(desc.strip()) >= 40:
        p += 0.10
    return min(1.0, p)


def frontmatter_quality(s: Parsed) -> float:
    score = 0.0
    if s.name and s.name != s.folder.name:
        score += 0.15
    elif s.name:
        score += 0.10
    d = len(s.description.strip())
    if d >= 100:
        score += 0.25
    elif d >= 60:
        score += 0.20
    elif d >= 30:
        score += 0.15
    elif d >= 10:
        score += 0.05
    return min(1.0, score + 0.60 * pushiness(s.description))


def orchestration_wiring(s: Parsed) -> float:
    low = s.text.lower()
    score = 0.70
    if re.search(r"\boutput\b.*\bformat\b|\bformat\b.*\boutput\b|\breturn.*json\b", low):
        score += 0.10
    if re.search(r"\breturns?\b|\bproduces?\b|\boutputs?\b|\bgenerates?\b", low):
        score += 0.05
    if re.search(r"\binput\b|\breceives?\b|\baccepts?\b|\bparameters?\b|\bargs?\b", low):
        score += 0.10
    if s.fences >= 2:
        score += 0.05
    if re.search(r"\borchestrat\w*\b|\bcoordinat\w*\b|\bdispatch\w*\b", low):
        score -= 0.15
    return clamp01(score)


def progressive_disclosure(s: Parsed) -> float:
    L = s.L
    if 200 <= L <= 600:
        score = 0.60
    elif 100 <= L < 200:
        score = 0.50
    elif 600 < L <= 800:
        score = 0.40
    elif L < 100:
        score = 0.20
    else:
        score = 0.15
    if s.refs:
        score += 0.25 if L > 400 else 0.15
    if s.assets:
        score += 0.15
    return min(1.0, score)


def structural_completeness(s: Parsed) -> float:
    score = 0.0
    h = s.headings
    score += 0.20 if h >= 6 else 0.15 if h >= 4 else 0.10 if h >= 2 else 0.0
    f = s.fences
    score += 0.20 if f >= 5 else 0.15 if f >= 3 else 0.10 if f >= 1 else 0.0
    score += 0.15 if s.languages >= 3 else 0.10 if s.languages >= 2 else 0.0
    if s.has_examples:
        score += 0.15
    if s.has_troubleshooting:
        score += 0.15
    if re.search(r"\|.*\|.*\|", s.text):
        score += 0.10
    low = s.text.lower()
    if any(w in low for w in ("decision", "when to use", "comparison", "tradeoff")):
        score += 0.05
    return min(1.0, score)


def token_efficiency(s: Parsed) -> float:
    density = len(s.must) / max(s.L, 1)
    pen = (
        0.4
        if r6(density) > 0.5
        else 0.2
        if r6(density) > 0.2
        else 0.1
        if r6(density) > 0.1
        else 0.0
    )
    kept = [ln.strip() for ln in s.text.splitlines() if ln.strip() and not ln.startswith("---")]
    rep = (1.0 - len(set(kept)) / len(kept)) * 0.4 if kept else 0.0
    return clamp01(1.0 - pen - rep)


def ecosystem_coherence(s: Parsed) -> float:
    score = 0.50 + min(0.25, 0.08 * len(s.xrefs))
    if re.search(r"\brelated\b|\bsee also\b|\bcompanion\b|\bcomplement", s.text.lower()):
        score += 0.25
    return min(1.0, score)


def harness_portability(s: Parsed) -> float:
    pen = 0.0
    # reading chosen: "the file is > 8192 UTF-8 bytes" is the text as read (universal
    # newlines) encoded as UTF-8, as PluginEval measures `raw_content.encode("utf-8")`.
    if len(s.text.encode("utf-8")) > 8192 and not s.refs_dir:
        pen += 0.15
    names = {a or b for a, b in TOOL_REF.findall(s.text)}
    pen += min(0.10, 0.02 * len(names))
    if TOOL_PROSE.search(s.text):
        pen += 0.05
    return max(0.0, 1.0 - pen)


SUB_WEIGHTS = {
    "frontmatter_quality": 0.32,
    "orchestration_wiring": 0.23,
    "progressive_disclosure": 0.14,
    "structural_completeness": 0.10,
    "token_efficiency": 0.09,
    "ecosystem_coherence": 0.06,
    "harness_portability": 0.06,
}
SUB_FUNCS = {
    "frontmatter_quality": frontmatter_quality,
    "orchestration_wiring": orchestration_wiring,
    "progressive_disclosure": progressive_disclosure,
    "structural_completeness": structural_completeness,
    "token_efficiency": token_efficiency,
    "ecosystem_coherence": ecosystem_coherence,
    "harness_portability": harness_portability,
}


# ============================================================================ §4 anti-patterns


def anti_patterns(s: Parsed) -> list[dict[str, Any]]:
    """(flag, target, line) in §4's order, then in the order of the text."""
    out: list[dict[str, Any]] = []
    if len(s.must) > 15:
        out.append({"flag": "OVER_CONSTRAINED", "target": None, "line": line_of(s.text, s.must[0])})
    if len(s.description.strip()) < 20:
        out.append({"flag": "EMPTY_DESCRIPTION", "target": None, "line": s.description_line})
    exempt = s.fm.get("disable-model-invocation") is True or (
        isinstance(s.fm.get("paths"), str) and s.fm["paths"] != ""
    )
    if not exempt and not TRIGGER.search(s.description):
        out.append({"flag": "MISSING_TRIGGER", "target": None, "line": s.description_line})
    if s.L > 800 and not s.refs_dir:
        # spec-silent: the flag is about the whole file; its line is runscore's (None).
        out.append({"flag": "BLOATED_SKILL", "target": None, "line": None})
    if s.refs_dir:
        # reading chosen: §4 does not say which text the links are found in; PluginEval (and
        # the worked example evaluation-methodology) search the whole file.
        # spec-silent: "final path component" as a path has it (PluginEval: Path(link).name),
        # so `a.md/` ends in `a.md`.
        have = {f.lower() for f in s.refs}
        for m in ORPHAN.finditer(s.text):
            if PurePosixPath(m.group(1)).name.lower() not in have:
                out.append(
                    {
                        "flag": "ORPHAN_REFERENCE",
                        "target": f"references/{m.group(1)}",
                        "line": line_of(s.text, m.start()),
                    }
                )
    parent = s.folder.parent
    for ref, off in s.xrefs:
        ok = (parent / ref).exists()
        if not ok and ref.startswith("sub-skills/"):
            ok = (s.folder / ref).exists()
        if not ok:
            out.append({"flag": "DEAD_CROSS_REF", "target": ref, "line": line_of(s.text, off)})
    return out


def static_layer(s: Parsed) -> dict[str, Any]:
    subs = {k: f(s) for k, f in SUB_FUNCS.items()}
    flags = anti_patterns(s)
    penalty = max(0.5, 1.0 - 0.05 * len(flags))
    score = clamp01(sum(subs[k] * w * penalty for k, w in SUB_WEIGHTS.items()))
    return {"sub_scores": subs, "anti_patterns": flags, "penalty": penalty, "score": score}


# ============================================================================ §5 table, §1 inputs

DIMS = {  # §5 table: weight, (static, judge, mc)
    "triggering_accuracy": (0.25, (0.15, 0.25, 0.60)),
    "orchestration_fitness": (0.20, (0.10, 0.70, 0.20)),
    "output_quality": (0.15, (0.00, 0.40, 0.60)),
    "scope_calibration": (0.12, (0.30, 0.55, 0.15)),
    "progressive_disclosure": (0.10, (0.80, 0.20, 0.00)),
    "token_efficiency": (0.06, (0.40, 0.10, 0.50)),
    "robustness": (0.05, (0.00, 0.20, 0.80)),
    "structural_completeness": (0.03, (0.90, 0.10, 0.00)),
    "code_template_quality": (0.02, (0.30, 0.70, 0.00)),
    "ecosystem_coherence": (0.02, (0.85, 0.15, 0.00)),
}
#: §5 "Static sub-checks feed dimensions as-is … harness_portability feeds no dimension."
STATIC_DIM = {
    "triggering_accuracy": "frontmatter_quality",
    "orchestration_fitness": "orchestration_wiring",
    "progressive_disclosure": "progressive_disclosure",
    "structural_completeness": "structural_completeness",
    "token_efficiency": "token_efficiency",
    "ecosystem_coherence": "ecosystem_coherence",
}
JUDGED = ("triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration")


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


_BAD = object()


def read_lines(path: Path) -> list[tuple[int, Any]]:
    """(line, value) of one JSONL file; a line that is not JSON is (line, _BAD)."""
    out: list[tuple[int, Any]] = []
    for i, ln in enumerate(path.read_text().split("\n"), start=1):
        if not ln.strip():
            continue
        try:
            out.append((i, json.loads(ln)))
        except ValueError:
            out.append((i, _BAD))
    return out


class Resolver:
    """spec-silent (runscore's `plugin --help`): a `skill` field names a skill by its folder
    path, its path relative to the ROOT (either may end in /SKILL.md), or its name (the first
    that matches exactly one skill)."""

    def __init__(self, skills: dict[str, Parsed]) -> None:
        self.skills = skills

    def __call__(self, v: str) -> str | None:
        # spec-silent: a path relative to the ROOT spelled as a folder's may be (s/, ./s)
        p = v if v.startswith("/") or v in ("", ".") else posixpath.normpath(v)
        p = p[: -len("/SKILL.md")] if p.endswith("/SKILL.md") else p
        for key, s in self.skills.items():
            if p in (key, str(s.folder)):
                return key
        named = [k for k, s in self.skills.items() if s.shown_name == v]
        return named[0] if len(named) == 1 else None


@dataclass
class Inputs:
    judges: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    matchups: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    issues: set[tuple[str, int]] = field(default_factory=set)


def read_judges(path: Path, resolve: Resolver, inp: Inputs) -> None:
    """§1 "one line per skill per judge … (a missing, null or non-numeric score is
    unmeasured). Several judges per skill are averaged per dimension"."""
    seen: dict[tuple[str, str], int] = {}
    for line, d in read_lines(path):
        if not isinstance(d, dict):
            inp.issues.add((path.name, line))
            continue
        skill = d.get("skill")
        judge = d.get("judge")
        scores = d.get("scores")
        key = resolve(skill) if isinstance(skill, str) else None
        # spec-silent: a line without a skill it names, a judge id (a non-empty string: an
        # empty one cannot be told from another) or a scores object is not used and is
        # reported (runscore's tests/plugin/test_layers.py).
        if key is None or not isinstance(judge, str) or not judge or not isinstance(scores, dict):
            inp.issues.add((path.name, line))
            continue
        got: dict[str, float] = {}
        for dim in JUDGED:
            v = scores.get(dim)
            if v is None:
                continue
            # spec-silent: a number outside [0, 1] is unmeasured as a non-number is; both
            # are reported.
            if not _num(v) or not 0.0 <= v <= 1.0:
                inp.issues.add((path.name, line))
                continue
            got[dim] = float(v)
        # spec-silent: the same judge on the same skill again: the later line wins, the
        # earlier is reported as ignored.
        if (key, judge) in seen:
            inp.issues.add((path.name, seen[(key, judge)]))
        seen[(key, judge)] = line
        inp.judges.setdefault(key, {})[judge] = got


def read_mc(path: Path, resolve: Resolver, inp: Inputs) -> None:
    for line, d in read_lines(path):
        if not isinstance(d, dict):
            inp.issues.add((path.name, line))
            continue
        skill = d.get("skill")
        key = resolve(skill) if isinstance(skill, str) else None
        act = d.get("activated")
        # spec-silent (runscore's tests): `activated` that is not true/false rejects the line;
        # `errored` that is not true/false, or absent or null, is unknown (counted neither as
        # errored nor as not); a quality outside [0, 1], or a token count that is
        # negative or fractional (1234.5: `tokens` is a count, §1), reads as absent —
        # each reported.
        if key is None or not isinstance(act, bool):
            inp.issues.add((path.name, line))
            continue
        err = d.get("errored")
        if err is not None and not isinstance(err, bool):
            inp.issues.add((path.name, line))
            err = None
        q = d.get("quality_score")
        if q is not None and (not _num(q) or not 0.0 <= q <= 1.0):
            inp.issues.add((path.name, line))
            q = None
        t = d.get("tokens")
        if t is not None and (not _num(t) or t < 0 or t != int(t)):
            inp.issues.add((path.name, line))
            t = None
        inp.runs.setdefault(key, []).append(
            {"activated": act, "errored": err, "quality": q, "tokens": t}
        )


RESULT = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def read_matchups(path: Path, resolve: Resolver, inp: Inputs) -> None:
    for line, d in read_lines(path):
        if not isinstance(d, dict):
            inp.issues.add((path.name, line))
            continue
        skill = d.get("skill")
        key = resolve(skill) if isinstance(skill, str) else None
        rb, res = d.get("opponent_elo"), d.get("result")
        # spec-silent: the result word is read without regard to case or surrounding spaces
        # ("Win", " draw "), as runscore's 400_elo.sql header says.
        res = res.strip(" ").lower() if isinstance(res, str) else None
        if key is None or not _num(rb) or res not in RESULT:
            inp.issues.add((path.name, line))
            continue
        inp.matchups.setdefault(key, []).append((float(rb), RESULT[res]))


# ============================================================================ §1 judges, kappa


def band(x: float) -> str:
    """§1 "F < .20 ≤ D < .40 ≤ C < .60 ≤ B < .80 ≤ A" (compared at 6 decimals, spec README)."""
    x = r6(x)
    return "A" if x >= 0.8 else "B" if x >= 0.6 else "C" if x >= 0.4 else "D" if x >= 0.2 else "F"


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    n = len(a)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pe = sum((a.count(k) / n) * (b.count(k) / n) for k in set(a) | set(b))
    # spec-silent: p_e = 1 (both judges put every item in one and the same band) is perfect
    # agreement, kappa 1 (runscore's tests/plugin/test_layers.py).
    return 1.0 if pe == 1.0 else (po - pe) / (1.0 - pe)


def judge_block(judges: dict[str, dict[str, float]]) -> dict[str, Any]:
    """§1 "with ≥ 2 judges report Cohen's kappa between each pair over the anchor bands".
    spec-silent: a pair's items are the dimensions both measured; a pair with none is left
    out; the skill's kappa is the mean of its pairs' (runscore's output)."""
    ids = sorted(judges)
    pairs = []
    for i, ja in enumerate(ids):
        for jb in ids[i + 1 :]:
            common = [d for d in JUDGED if d in judges[ja] and d in judges[jb]]
            if not common:
                continue
            k = cohen_kappa(
                [band(judges[ja][d]) for d in common], [band(judges[jb][d]) for d in common]
            )
            pairs.append({"judge_a": ja, "judge_b": jb, "dimensions": len(common), "kappa": k})
    kappa = sum(p["kappa"] for p in pairs) / len(pairs) if pairs else None
    return {"count": len(ids), "kappa": kappa, "pairs": pairs}


# ============================================================================ §6 Monte Carlo

Z = 1.96


def wilson(k: int, n: int) -> tuple[float, float]:
    p = k / n
    den = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / den
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson(x: int, n: int) -> tuple[float, float]:
    lo = 0.0 if x == 0 else float(beta_dist.ppf(0.025, x, n - x + 1))
    hi = 1.0 if x == n else float(beta_dist.ppf(0.975, x + 1, n - x))
    return lo, hi


def mc_block(runs: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(runs)
    act = sum(r["activated"] for r in runs)
    said = [r["errored"] for r in runs if r["errored"] is not None]
    err, fn = sum(said), len(said)
    # §6 "quality values = `quality_score` of activated, non-errored runs" (known not to have
    # errored: spec-silent, a run of unknown `errored` is not known to have run cleanly)
    q = [
        r["quality"]
        for r in runs
        if r["activated"] and r["errored"] is False and r["quality"] is not None
    ]
    mean = sum(q) / len(q) if q else None
    std = math.sqrt(sum((x - mean) ** 2 for x in q) / len(q)) if mean is not None else None
    # §6 "cv = std / |mean| (0 when mean = 0 or ≤ 1 value)"
    cv = 0.0 if mean is None or mean == 0 or len(q) <= 1 else std / abs(mean)  # type: ignore[operator]
    a_lo, a_hi = wilson(act, n)
    f_lo, f_hi = clopper_pearson(err, fn) if fn else (None, None)
    # §6 "tokens of non-errored runs: median, Q1 = sorted[n//4], Q3 = sorted[min(3n//4, n−1)]"
    t = sorted(
        float(r["tokens"]) for r in runs if r["errored"] is False and r["tokens"] is not None
    )
    m = len(t)
    if m:
        med = t[m // 2] if m % 2 else t[m // 2 - 1] / 2 + t[m // 2] / 2
        q1, q3 = t[m // 4], t[min(3 * m // 4, m - 1)]
        iqr = q3 - q1
        outliers = sum(1 for x in t if x > q3 + 1.5 * iqr)
        eff: float | None = max(0.0, 1.0 - med / 8000)
    else:
        # spec-silent (README): no token count of a run that did not error → unknown, not 0.
        med = q1 = q3 = iqr = eff = None  # type: ignore[assignment]
        outliers = None
    # spec-silent: no run said whether it errored → the failure rate is unknown, not 0
    rate, fail = act / n, (err / fn if fn else None)
    if eff is not None and fail is not None:
        score = clamp01(0.40 * rate + 0.30 * (1 - min(1.0, cv)) + 0.20 * (1 - fail) + 0.10 * eff)
    else:
        # spec-silent (README): with efficiency_norm or the failure rate unknown, the known
        # terms over their weights
        terms = [(0.40, rate), (0.30, 1 - min(1.0, cv))]
        terms += [(0.20, 1 - fail)] if fail is not None else []
        terms += [(0.10, eff)] if eff is not None else []
        weights = 0.40 + 0.30
        weights += 0.20 if fail is not None else 0.0
        weights += 0.10 if eff is not None else 0.0
        score = clamp01(sum(w * v for w, v in terms) / weights)
    return {
        "n": n,
        "activated": act,
        "activation_rate": rate,
        "activation_ci_low": a_lo,
        "activation_ci_high": a_hi,
        "quality_n": len(q),
        "mean_quality": mean,
        "std_quality": std,
        "cv": cv,
        "errored": err,
        "failure_n": fn,
        "failure_rate": fail,
        "failure_ci_low": f_lo,
        "failure_ci_high": f_hi,
        "tokens_n": m,
        "median_tokens": med,
        "q1_tokens": q1,
        "q3_tokens": q3,
        "iqr_tokens": iqr,
        "token_outliers": outliers,
        "efficiency_norm": eff,
        "mc_score": score,
    }


# ============================================================================ §7 Elo


def elo(matchups: Iterable[tuple[float, float]]) -> float:
    """§7 "Start 1500, K = 32, expected E = 1 / (1 + 10^((Rb − Ra)/400)) … updated in file
    order against fixed opponent ratings"."""
    ra = 1500.0
    for rb, s in matchups:
        x = (rb - ra) / 400.0
        # an opponent rated past 10^308 of the scale: E is 0 (Python's ** would overflow)
        ra += 32.0 * (s - (0.0 if x > 308 else 1.0 / (1.0 + 10.0**x)))
    return ra


#: §7 "500 bootstrap resamples of the matchup list with a fixed, documented seed …,
#: percentiles at sorted indices 12 and 486". The seed and how it draws are runscore's, as its
#: README documents them: resample i of bootstrap b draws matchup number
#: md5('runscore-plugin-v1|<skill>|<b>|<i>') mod n, the digest read as an unsigned
#: little-endian 128-bit integer (DuckDB's md5_number), <skill> the path relative to the root.
BOOT_SEED = "runscore-plugin-v1"
BOOT_RESAMPLES, BOOT_LOW, BOOT_HIGH = 500, 12, 486


def elo_interval(skill: str, games: Sequence[tuple[float, float]]) -> tuple[float, float]:
    n = len(games)
    if n < 2:  # §7 "fewer than 2 matchups → the point estimate for both ends"
        r = elo(games)
        return r, r
    ratings = []
    for b in range(BOOT_RESAMPLES):
        draw = [
            int.from_bytes(hashlib.md5(f"{BOOT_SEED}|{skill}|{b}|{i}".encode()).digest(), "little")
            % n
            for i in range(n)
        ]
        ratings.append(elo(games[j] for j in draw))  # each rated in resample order
    ratings.sort()
    return ratings[BOOT_LOW], ratings[BOOT_HIGH]


# ============================================================================ §5 blend, grades

GRADES = [
    ("A+", 97), ("A", 93), ("A-", 90), ("B+", 87), ("B", 83), ("B-", 80),
    ("C+", 77), ("C", 73), ("C-", 70), ("D+", 67), ("D", 63), ("D-", 60),
]  # fmt: skip
BADGES = [("Platinum", 90, 1600), ("Gold", 80, 1500), ("Silver", 70, 1400), ("Bronze", 60, 1300)]


def grade(value: float) -> str:
    """§5 "Grade of a 0–100 value: A+ ≥ 97, …, D- ≥ 60, else F" at 6 decimals."""
    v = r6(value)
    return next((g for g, m in GRADES if v >= m), "F")


def dim_grade(score: float) -> str:
    """reading chosen (runscore's tests/plugin/test_grades.py): a dimension's 0–1 score is
    compared at 6 decimals of its own scale, as the report writes it."""
    v = r6(score)
    return next((g for g, m in GRADES if v >= m / 100), "F")


def badge(composite: float, rating: float | None) -> str:
    """§5 "the first of Platinum …, Bronze whose composite minimum holds and whose Elo minimum
    holds or Elo is unknown; else none"."""
    for name, cmin, emin in BADGES:
        if r6(composite) >= cmin and (rating is None or r6(rating) >= emin):
            return name
    return "none"


def blend(layers: dict[str, dict[str, float]]) -> dict[str, float | None]:
    """§5 "blended[d] = Σ score_l × b_l / Σ b_l over the layers that have a score for d; if
    that Σ b_l is 0, the plain mean of those layers' scores; if no layer has one, d is
    unmeasured"."""
    out: dict[str, float | None] = {}
    for d, (_, bw) in DIMS.items():
        have = [
            (layers[lname][d], b)
            for lname, b in zip(("static", "judge", "mc"), bw, strict=True)
            if d in layers[lname]
        ]
        if not have:
            out[d] = None
            continue
        tb = sum(b for _, b in have)
        out[d] = (
            sum(v for v, _ in have) / len(have) if tb == 0 else sum(v * b for v, b in have) / tb
        )
    return out


def composite(dims: dict[str, float | None], penalty: float) -> float:
    """§5 "composite = min(100, max(0, Σ_measured (w_d / Σ_measured w) × blended[d] × 100 ×
    penalty))"."""
    measured = [d for d, v in dims.items() if v is not None]
    tw = sum(DIMS[d][0] for d in measured)
    raw = sum(DIMS[d][0] / tw * dims[d] * 100 * penalty for d in measured)  # type: ignore[operator]
    return min(100.0, max(0.0, raw))


# ============================================================================ evaluate


@dataclass
class Expected:
    skills: dict[str, dict[str, Any]]
    ranking: list[str]
    issues: set[tuple[str, int]]


def discover(root: Path) -> dict[str, Parsed]:
    """§1 "every folder containing a `SKILL.md` is a skill"; keyed by its path relative to
    the root (runscore's `skill`)."""
    return {
        p.parent.relative_to(root).as_posix(): parse(p.parent)
        for p in sorted(root.rglob("SKILL.md"))
        if p.is_file()
    }


def evaluate(
    root: Path, judge: Path | None = None, mc: Path | None = None, matchups: Path | None = None
) -> Expected:
    skills = discover(root)
    resolve = Resolver(skills)
    inp = Inputs()
    if judge is not None:
        read_judges(judge, resolve, inp)
    if mc is not None:
        read_mc(mc, resolve, inp)
    if matchups is not None:
        read_matchups(matchups, resolve, inp)
    out: dict[str, dict[str, Any]] = {}
    for key, s in skills.items():
        st = static_layer(s)
        layers: dict[str, dict[str, float]] = {
            "static": {d: st["sub_scores"][sub] for d, sub in STATIC_DIM.items()},
            "judge": {},
            "mc": {},
        }
        judges = inp.judges.get(key)
        if judges:
            for d in JUDGED:
                vals = [j[d] for j in judges.values() if d in j]
                if vals:
                    layers["judge"][d] = sum(vals) / len(vals)
        mcb = mc_block(inp.runs[key]) if key in inp.runs else None
        if mcb is not None:
            # §5 "Monte Carlo feeds triggering_accuracy ← activation rate, output_quality ←
            # mean quality, robustness ← 1 − failure rate, token_efficiency ← efficiency_norm"
            layers["mc"]["triggering_accuracy"] = mcb["activation_rate"]
            if mcb["mean_quality"] is not None:
                layers["mc"]["output_quality"] = mcb["mean_quality"]
            if mcb["failure_rate"] is not None:
                layers["mc"]["robustness"] = 1.0 - mcb["failure_rate"]
            if mcb["efficiency_norm"] is not None:
                layers["mc"]["token_efficiency"] = mcb["efficiency_norm"]
        dims = blend(layers)
        comp = composite(dims, st["penalty"])
        games = inp.matchups.get(key)
        rating = elo(games) if games else None
        # §5 "static only = quick, + judge = standard, + Monte Carlo = deep"; spec-silent
        # (README): Monte Carlo without a judge stays quick, and a judge layer is supplied
        # only when it measured a score (judge lines whose scores are all unmeasured are not).
        judged = bool(layers["judge"])
        depth = "deep" if judged and mcb else "standard" if judged else "quick"
        # §8 "the three weakest weighted dimensions": reading chosen, the most composite
        # points lost, w_d × (1 − score), compared at 6 decimals as every score is (README
        # "Conventions for all numbers"); a tie in dimension order.
        lost = sorted(
            ((DIMS[d][0] * (1.0 - v), d) for d, v in dims.items() if v is not None),
            key=lambda t: -float(f"{t[0]:.6f}"),
        )
        out[key] = {
            "skill": key,
            "name": s.shown_name,
            "path": str(s.folder),
            "line_count": s.L,
            "content_sha256": hashlib.sha256(s.raw).hexdigest(),
            "scoring_version": SCORING_VERSION,
            "static": st,
            "dimensions": {
                d: None if v is None else {"score": v, "grade": dim_grade(v)}
                for d, v in dims.items()
            },
            "composite": comp,
            "grade": grade(comp),
            "badge": badge(comp, rating),
            "depth": depth,
            "confidence": {"quick": "Estimated", "standard": "Assessed", "deep": "Certified"}[
                depth
            ],
            "elo": None
            if rating is None
            else dict(
                zip(
                    ("rating", "ci_low", "ci_high", "matchups"),
                    (rating, *elo_interval(key, games or []), len(games or [])),
                    strict=True,
                )
            ),
            "elo_games": games or [],
            "mc": mcb,
            "judges": judge_block(judges) if judges else None,
            "tips_lost": lost,
        }
    # §8 "A ranking table over all skills (composite, then Elo)"; spec-silent: unknown Elo
    # after known, then the skill's path.
    ranking = sorted(
        out,
        key=lambda k: (
            -round(out[k]["composite"], 9),
            out[k]["elo"] is None,
            -(out[k]["elo"] or {"rating": 0.0})["rating"],
            k,
        ),
    )
    return Expected(out, ranking, inp.issues)


# ============================================================================ comparison


def _same(a: Any, b: Any) -> bool:
    """Floats within 1e-9 (spec examples: "to 1e-9"), everything else exact."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool):
            return False
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-9)
    return bool(a == b) and type(a) is type(b)


MC_FIELDS = (
    "n", "activated", "activation_rate", "activation_ci_low", "activation_ci_high", "quality_n",
    "mean_quality", "std_quality", "cv", "errored", "failure_n", "failure_rate", "failure_ci_low",
    "failure_ci_high", "tokens_n", "median_tokens", "q1_tokens", "q3_tokens", "iqr_tokens",
    "token_outliers", "efficiency_norm", "mc_score",
)  # fmt: skip


def diffs(
    exp: Expected,
    skills: list[dict[str, Any]],
    ranking: list[dict[str, Any]],
    keep: Callable[[str], bool] = lambda _: True,
) -> list[str]:
    """Every difference between the reference and runscore's skills (`skills()`, or `plugin
    score --format json`) and ranking rows (`ranking`, or `plugin rank --format json`), of
    the skills ``keep`` keeps; the ranking is compared as the order of those skills."""
    out: list[str] = []
    got = {s["skill"]: s for s in skills if keep(s["skill"])}
    want = {k: v for k, v in exp.skills.items() if keep(k)}
    for k in sorted(set(want) | set(got)):
        if k not in got or k not in want:
            out.append(f"{k}: only in {'spec' if k in want else 'runscore'}")
        else:
            out += _skill_diffs(k, want[k], got[k])
    have = [r["skill"] for r in sorted(ranking, key=lambda r: r["rank"]) if keep(r["skill"])]
    order = [k for k in exp.ranking if keep(k)]
    if have != order:
        out.append(f"ranking: runscore {have} != spec {order}")
    return out


def _skill_diffs(k: str, e: dict[str, Any], g: dict[str, Any]) -> list[str]:
    out: list[str] = []

    def cmp(name: str, ev: Any, gv: Any) -> None:
        if not _same(ev, gv):
            out.append(f"{k}.{name}: runscore {gv!r} != spec {ev!r}")

    for f in ("name", "line_count", "content_sha256", "scoring_version", "composite"):
        cmp(f, e[f], g[f])
    for f in ("grade", "badge", "depth", "confidence"):
        cmp(f, e[f], g[f])
    cmp("path", str(Path(e["path"]).resolve()), str(Path(g["path"]).resolve()))
    st, gst = e["static"], g["static"]
    for sub, v in st["sub_scores"].items():
        cmp(f"static.{sub}", v, gst["sub_scores"].get(sub))
    cmp("static.score", st["score"], gst["score"])
    cmp("static.penalty", st["penalty"], gst["penalty"])
    cmp("static.flags", len(st["anti_patterns"]), gst["flags"])
    gflags = [{x: a[x] for x in ("flag", "target", "line")} for a in g["anti_patterns"]]
    if gflags != st["anti_patterns"]:
        out.append(f"{k}.anti_patterns: runscore {gflags} != spec {st['anti_patterns']}")
    for d, ev in e["dimensions"].items():
        gv = g["dimensions"].get(d)
        if (ev is None) != (gv is None):
            out.append(f"{k}.dimensions.{d}: runscore {gv!r} != spec {ev!r}")
        elif ev is not None:
            cmp(f"dimensions.{d}.score", ev["score"], gv["score"])
            cmp(f"dimensions.{d}.grade", ev["grade"], gv["grade"])
    if (e["mc"] is None) != (g["mc"] is None):
        out.append(f"{k}.mc: runscore {g['mc']!r} != spec {e['mc']!r}")
    elif e["mc"] is not None:
        for f in MC_FIELDS:
            cmp(f"mc.{f}", e["mc"][f], g["mc"][f])
    ej, gj = e["judges"], g["judges"]
    if (ej is None) != (gj is None):
        out.append(f"{k}.judges: runscore {gj!r} != spec {ej!r}")
    elif ej is not None:
        cmp("judges.count", ej["count"], gj["count"])
        cmp("judges.kappa", ej["kappa"], gj["kappa"])
        ep = [(p["judge_a"], p["judge_b"], p["dimensions"]) for p in ej["pairs"]]
        gp = [(p["judge_a"], p["judge_b"], p["dimensions"]) for p in gj["pairs"]]
        if ep != gp:
            out.append(f"{k}.judges.pairs: runscore {gp} != spec {ep}")
        else:
            for a, b in zip(ej["pairs"], gj["pairs"], strict=True):
                cmp(f"judges.kappa[{a['judge_a']},{a['judge_b']}]", a["kappa"], b["kappa"])
    out += _elo_diffs(k, e, g["elo"])
    out += _tip_diffs(k, e, g["tips"])
    return out


def _elo_diffs(k: str, e: dict[str, Any], g: dict[str, Any] | None) -> list[str]:
    if e["elo"] is None or g is None:
        if e["elo"] is None and g is None:
            return []
        return [f"{k}.elo: runscore {g!r} != spec {e['elo']!r}"]
    if all(_same(e["elo"][f], g[f]) for f in ("rating", "ci_low", "ci_high", "matchups")):
        return []
    return [f"{k}.elo: runscore {g!r} != spec {e['elo']!r}"]


def _tip_diffs(k: str, e: dict[str, Any], tips: list[dict[str, Any]]) -> list[str]:
    """§8 "the three weakest weighted dimensions with a concrete improvement tip each": the
    dimensions by points lost (equal losses in either order), their score and weight. The
    tip's words are not compared."""
    lost = e["tips_lost"][:3]
    got = [(t["dimension"], t["score"], t["weight"]) for t in tips]
    want = [(d, x) for x, d in lost]
    if len(got) != len(lost) or len({d for d, _, _ in got}) != len(got):
        return [f"{k}.tips: runscore {got} != spec {want}"]
    for (x, _), (gd, gs, gw) in zip(lost, got, strict=True):
        dim = e["dimensions"].get(gd)
        if dim is None or not (_same(gs, dim["score"]) and _same(gw, DIMS[gd][0])):
            return [f"{k}.tips[{gd}]: runscore ({gs}, {gw}) != spec {dim} weight {DIMS.get(gd)}"]
        if not _same(DIMS[gd][0] * (1.0 - dim["score"]), x):
            return [f"{k}.tips: runscore {[d for d, _, _ in got]} != spec {want}"]
    return []


# ============================================================================ generator
#
# A corpus is a handful of skill folders (every one under one root, so cross-references
# between them resolve) and the judge, Monte Carlo and matchup lines about them. The
# generator aims at the spec's thresholds: line counts either side of 100/200/400/600/800,
# description lengths either side of 10/20/30/40/60/100, MUST counts either side of 15 and
# of the density cut-offs, file sizes either side of 8192 bytes, scores on the band edges.

L_TARGETS = (
    1,
    5,
    60,
    99,
    100,
    101,
    199,
    200,
    201,
    399,
    400,
    401,
    599,
    600,
    601,
    799,
    800,
    801,
    850,
)
D_TARGETS = (0, 1, 9, 10, 19, 20, 29, 30, 39, 40, 59, 60, 99, 100, 101, 140)
TRIGGERS = (
    "Use when reviewing code", "use this skill when testing", "Should be used immediately after a merge",
    "used before deploying", "Use whenever a build fails", "Use proactively", "Triggers on save",
    "trigger when asked", "auto-loads when opened", "autoload on start", "Used after lunch",
    "use  this skill  immediately  whenever x",
)  # fmt: skip
NON_TRIGGERS = (
    "A skill for logs",
    "Helps with caching",
    "Handles retries",
    "usewhen not",
    "user when",
)
EXTRAS = (
    " proactively", " automatically", " always use it", " a trigger", " invoke it", " invoked",
    ", when debugging", ", for testing", ", or building", ", during deploying", ", setting up",
    ", configuring", ",when creating", " when writing", " for parsing", " during testing",
    " éproactively", " ça", " during la", ", implementing", "", "",
)  # fmt: skip
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"


def _pick(rng: random.Random, xs: Sequence[Any]) -> Any:
    return xs[rng.randrange(len(xs))]


def _description(rng: random.Random) -> str:
    parts = [_pick(rng, TRIGGERS if rng.random() < 0.6 else NON_TRIGGERS)]
    parts += [_pick(rng, EXTRAS) for _ in range(rng.randrange(5))]
    text = "".join(parts) + "."
    target = _pick(rng, D_TARGETS)
    words = FILLER.split()
    while len(text) < target:
        text += " " + _pick(rng, words)
    if rng.random() < 0.5:
        text = text[:target]
    return text


def _yaml_value(rng: random.Random, text: str) -> str:
    how = rng.random()
    if how < 0.55:
        return json.dumps(text)
    if how < 0.7:
        return "'" + text.replace("'", "''") + "'"
    if how < 0.8 and text.strip() and "\n" not in text:
        return ">\n  " + text.strip() + "\n"  # folded: the value ends in a line break
    if how < 0.9:
        return json.dumps("\t" + text + "\u3000")  # whitespace str.strip() takes
    return json.dumps(text)


def _frontmatter(rng: random.Random, folder: str, uniq: str) -> str:
    keys: list[str] = []
    r = rng.random()
    if r < 0.1:
        pass  # no name key
    elif r < 0.15:
        keys.append("name:")
    elif r < 0.2:
        keys.append('name: ""')
    elif r < 0.4:
        keys.append(f"name: {folder}")
    elif r < 0.45:
        keys.append(
            "name: "
            + _pick(rng, ("42", "1.50", "2024-01-02", "true", "[a, b]", "'  padded  '", "~"))
        )
    else:
        keys.append(f"name: {uniq}")
    r = rng.random()
    if r < 0.06:
        pass
    elif r < 0.1:
        keys.append("description:")
    elif r < 0.13:
        keys.append('description: ""')
    elif r < 0.16:
        keys.append(
            "description: "
            + _pick(
                rng,
                (
                    "12345678901234567890123",
                    "[Use when, x]",
                    "{a: Use when b}",
                    "true",
                    "3.5",
                    "|\n  Use when literal\n  block text here\n",
                ),
            )
        )
    else:
        keys.append("description: " + _yaml_value(rng, _description(rng)).rstrip("\n"))
    if rng.random() < 0.15:
        keys.append("disable-model-invocation: " + _pick(rng, ("true", "false", "'true'")))
    if rng.random() < 0.15:
        keys.append("paths: " + _pick(rng, ("'src/**'", "''", "[src]", "src/*.py")))
    if rng.random() < 0.2:
        keys.append(f"version: {rng.randrange(1, 9)}.0")
    rng.shuffle(keys)
    return "\n".join(keys)


def _body_lines(
    rng: random.Random, i: int, siblings: list[str], refs: list[str] | None
) -> list[str]:
    out: list[str] = []
    add = out.append
    for _ in range(rng.randrange(9)):
        add(_pick(rng, ("## Section", "### Sub", "#### Deep", " ## indented", "##NoSpace", "## Examples",
                        "### Example one", "## Usage", "## Troubleshooting", "## Common issues", "## FAQ",
                        "## Overview", "### Details")) + f" {rng.randrange(99)}")  # fmt: skip
    for _ in range(rng.randrange(7)):
        lang = _pick(rng, ("python", "bash", "json", "yaml", "", "ts", "c++", "python"))
        out += [f"```{lang}", f"code {rng.randrange(9)}", "```"]
    if rng.random() < 0.15:
        add("inline ```js fence``` in prose")
    for _ in range(rng.randrange(4)):
        add(_pick(rng, ("| a | b |", "|---|---|", "|x|", "a | b | c", "| one |")))
    for _ in range(rng.randrange(6)):
        add(_pick(rng, (
            "The output format is JSON.", "Format of the output: a table.", "It returns JSON.",
            "return the value as json", "It returns a list.", "It produces files.", "generates code",
            "Takes an input file.", "receives a request", "accepts args", "parameters: none",
            "It orchestrates workers.", "a coordinator", "dispatching jobs", "outputs text",
            "outputted", "inputs", "argsx", "Decision table", "When to use it", "a comparison",
            "tradeoffs", "related skills", "See also the guide", "a companion skill",
            "complementary", "unrelated", "Output:\nformat", "É output format",
        )))  # fmt: skip
    for _ in range(rng.randrange(5)):
        sib = _pick(rng, siblings) if siblings else "none"
        add(_pick(rng, (
            f"see skills/{sib}", f"skills/nope-{i}", f"skill/{sib}", "sub-skills/child",
            "sub-skills/none", "my-skills/x", f"skills/{sib}/deep", "skills/Upper",
            "see-skills/x", f"(skills/{sib})", f"skills/{sib}, skills/{sib}", "_skills/x",
        )))  # fmt: skip
    for _ in range(rng.randrange(5)):
        f = _pick(rng, refs) if refs else "guide.md"
        add(_pick(rng, (
            f"[a](references/{f})", f"(references/{f.upper()})", f"[s](references/sub/{f})",
            f"(references/missing-{i}.md)", f"(references/{f}#part)", "(references/)",
            f"[x](references/{f}) and [y](references/gone.md)",
        )))  # fmt: skip
    for _ in range(rng.randrange(4)):
        add(_pick(rng, (
            "use `Read` first", "the `Bash` tool", "`Task` tool runs", "call `grep`",
            "via `WebFetch`", "the Read tool", "the bash tool", "The `Edit` tool", "`Readme` tool",
            "using `LSP`", "invoke `ls`", "THE Glob tool", "the `Write`  tool",
        )))  # fmt: skip
    soup = ("output", "format", "return", "json", "outputs", "returnjson", "xjson", "_", "é", "1",
            " ", ".", "\u2028", "\x85", "(references/", ")", "a.md", "/", "MUST", "skills/", "x-y",
            "`", "Read", "tool", "the ", "\n")  # fmt: skip
    for _ in range(rng.randrange(3)):
        add("".join(_pick(rng, soup) for _ in range(rng.randrange(1, 14))))
    for _ in range(rng.randrange(4)):
        add(_pick(rng, ("--- separator", "  ---indented", "", "   ", "a\u2028b", "x\x85y",
                        "f\x0cg", "dup line", "dup line", "  dup line  ")))  # fmt: skip
    return out


def _musts(rng: random.Random, L: int) -> int:
    return max(
        0, _pick(rng, (0, 0, 1, 5, 15, 16, 17, L // 10, L // 10 + 1, L // 5 + 1, L // 2 + 1))
    )


@dataclass
class SkillSpec:
    text: str
    newline: str = "\n"
    refs: list[str] | None = None
    assets: list[str] | None = None
    dirs: list[str] = field(default_factory=list)


@dataclass
class Corpus:
    skills: dict[str, SkillSpec]
    judge: list[str]
    mc: list[str]
    matchups: list[str]
    names: dict[str, str]  # folder → a unique frontmatter name, when it has one


POLISHED_DESC = (
    "Reviews pull requests proactively. Use when reviewing code, for testing changes, "
    "when building features, when debugging failures; invoke it automatically."
)


def gen_polished(rng: random.Random, prefix: str, i: int, siblings: list[str]) -> SkillSpec:
    """A skill that earns most static points and no flag: the top grades and badges."""
    lines = ["## Usage", "It accepts a diff as input and returns JSON output format.",
             "```bash", "run", "```", "```json", "{}", "```", "```python", "x", "```",
             "## Examples", "### Example one", "## Troubleshooting", "### Common", "## Decision table",
             "| a | b |", "|---|---|", "Details in [guide](references/guide.md)."]  # fmt: skip
    lines += [f"See also skills/{x} (related)." for x in siblings[: rng.randrange(4)]]
    target = _pick(rng, (401, 450, 600, 250, 601))
    head = (
        f"---\nname: n-{prefix}-{i}\ndescription: {POLISHED_DESC[: rng.randrange(90, 160)]}\n---\n"
    )
    text = head + "\n".join(lines)
    n = len(text.split("\n"))
    text += "".join(f"\nGuidance line {j}." for j in range(max(0, target - n)))
    return SkillSpec(text, "\n", ["guide.md"], _pick(rng, (["t.txt"], None)), [])


def gen_skill(
    rng: random.Random, prefix: str, i: int, siblings: list[str]
) -> tuple[SkillSpec, str]:
    folder = f"{prefix}-{i}"
    uniq = f"n-{prefix}-{i}"
    if rng.random() < 0.2:
        return gen_polished(rng, prefix, i, siblings), uniq
    refs = _pick(
        rng, (None, None, [], ["guide.md"], ["guide.md", "API.md"], ["a.md", "b.txt", "c"])
    )
    assets = _pick(rng, (None, None, [], ["t.txt"]))
    head = ""
    fm_mode = rng.random()
    if fm_mode < 0.75:
        head = "---\n" + _frontmatter(rng, folder, uniq) + "\n---\n"
    elif fm_mode < 0.8:
        head = "---\n" + _frontmatter(rng, folder, uniq) + "\n"  # never closed
    elif fm_mode < 0.84:
        head = "---\nname: [unclosed\ndescription: Use when broken\n---\n"
    elif fm_mode < 0.86:
        head = "---\n- a\n- b\n---\n"
    elif fm_mode < 0.9:
        head = f"---\nname: {uniq}\ndescription: a --- b, use when x\n---\n"
    elif fm_mode < 0.92:
        head = "\ufeff---\nname: bom\ndescription: Use when a BOM hides this frontmatter\n---\n"
    lines = _body_lines(rng, i, siblings, refs)
    target = _pick(rng, L_TARGETS)
    for _ in range(_musts(rng, target)):
        lines.insert(
            rng.randrange(len(lines) + 1),
            _pick(
                rng,
                (
                    "You MUST do it.",
                    "NEVER",
                    "ALWAYS check",
                    "MUST NEVER ALWAYS",
                    "MUSTARD",
                    "_MUST",
                    "must",
                ),
            ),
        )
    if rng.random() < 0.3:
        # many short MUST lines: the density cut-offs with the line count as it ends up
        lines += ["MUST"] * rng.randrange(target // 2 + 2)
    rng.shuffle(lines)
    text = head + "\n".join(lines)
    L = len(text.split("\n"))
    words = FILLER.split()
    filler: list[str] = []
    for j in range(max(0, target - L)):
        filler.append(f"{_pick(rng, words)} {j % 7 if rng.random() < 0.2 else j}")
    if filler:
        text += "\n" + "\n".join(filler)
    if rng.random() < 0.3:
        want = _pick(rng, (8191, 8192, 8193, 8200, 9000))
        have = len(text.encode())
        if have < want:
            text += "\n" + "y" * (want - have - 1)
    if rng.random() < 0.5:
        text += "\n"
    newline = _pick(rng, ("\n",) * 8 + ("\r\n", "\r"))
    dirs = ["sub-skills/child"] if rng.random() < 0.3 else []
    if refs is not None and rng.random() < 0.2:
        dirs.append("references/sub")
    return SkillSpec(text, newline, refs, assets, dirs), uniq


def _score_value(rng: random.Random, high: bool) -> Any:
    r = rng.random()
    if high and r < 0.8:
        return _pick(rng, (0.9, 0.95, 0.97, 1.0, 0.85, 0.99))
    if r < 0.6:
        return round(rng.random(), 2)
    if r < 0.75:
        return _pick(rng, (0.2, 0.4, 0.6, 0.8, 0.0, 1.0, 0.19999999, 0.7999999))
    if r < 0.95:
        return _pick(rng, (0.9, 0.95, 0.97, 1.0, 0.85))  # judges who like it: badges
    return _pick(rng, (None, "0.8", True, 1.5, -0.2, [1]))


def gen_corpus(rng: random.Random, prefix: str) -> Corpus:
    n = rng.randrange(3, 9)
    folders = [f"{prefix}-{i}" for i in range(n)]
    skills: dict[str, SkillSpec] = {}
    names: dict[str, str] = {}
    for i, f in enumerate(folders):
        spec, uniq = gen_skill(rng, prefix, i, [x for x in folders if x != f])
        skills[f] = spec
        if (
            f"name: {uniq}\n" in spec.text
            and "[unclosed" not in spec.text
            and "\ufeff" not in spec.text
        ):
            names[f] = uniq
    judge: list[str] = []
    mc: list[str] = []
    matchups: list[str] = []

    def who(f: str) -> str:
        r = rng.random()
        if r < 0.1:
            return f + "/SKILL.md"
        if r < 0.2 and f in names:
            return names[f]
        return f

    for f in folders:
        if rng.random() < 0.55:
            for j in rng.sample(["j1", "j2", "j3", "alpha"], rng.randrange(1, 4)):
                dims = rng.sample(JUDGED, rng.randrange(0, 5))
                high = "Guidance line" in skills[f].text
                scores = {d: _score_value(rng, high) for d in dims}
                if rng.random() < 0.1:
                    scores["overall"] = 0.5  # a key no dimension takes: a warning only
                judge.append(json.dumps({"skill": who(f), "judge": j, "scores": scores}))
                if rng.random() < 0.05:
                    judge.append(
                        json.dumps({"skill": f, "judge": j, "scores": {"scope_calibration": 0.5}})
                    )
        if rng.random() < 0.45:
            good = rng.random()
            for _ in range(rng.randrange(0, 26)):
                run: dict[str, Any] = {
                    "skill": who(f),
                    "activated": rng.random() < 0.4 + 0.6 * good,
                }
                run["quality_score"] = _pick(
                    rng, (round(rng.random(), 2), round(0.5 + good / 2, 2), None, 1.0, 0.0)
                )
                run["tokens"] = _pick(
                    rng,
                    (rng.randrange(100, 12000), rng.randrange(100, 3000), None, 0, 8000, 200000),
                )
                e = rng.random()
                if e < 0.15:
                    run["errored"] = True
                elif e < 0.8:
                    run["errored"] = False
                elif e < 0.9:
                    pass  # absent: unknown
                else:
                    run["errored"] = _pick(rng, (None, "no"))
                if rng.random() < 0.03:
                    run["activated"] = "yes"
                if rng.random() < 0.03:
                    run["quality_score"] = _pick(rng, (1.5, -0.1, "high"))
                if rng.random() < 0.03:
                    run["tokens"] = _pick(rng, (-5, "many", True, 1234.5))
                if rng.random() < 0.02:
                    run["quality_score"] = True
                mc.append(json.dumps(run))
        if rng.random() < 0.45:
            same = rng.random() < 0.15
            first = (rng.randrange(1200, 1800), _pick(rng, tuple(RESULT)))
            for _ in range(rng.randrange(1, 9)):
                rb, res = (
                    first
                    if same
                    else (
                        _pick(rng, (rng.randrange(1200, 1800), 1500, 1612.5)),
                        _pick(rng, tuple(RESULT)),
                    )
                )
                if rng.random() < 0.05:
                    res = _pick(rng, ("Win", " draw ", "LOSS"))
                matchups.append(
                    json.dumps(
                        {"skill": who(f), "opponent": "o", "opponent_elo": rb, "result": res}
                    )
                )
    for lines in (judge, mc, matchups):
        if rng.random() < 0.3:
            lines.insert(rng.randrange(len(lines) + 1), _pick(rng, (
                "not json", json.dumps({"skill": f"ghost-{prefix}", "judge": "j", "opponent_elo": 1500,
                                        "result": "win", "activated": True, "scores": {}}),
                json.dumps({"skill": 3, "judge": "j", "scores": {}, "activated": True,
                            "opponent_elo": 1500, "result": "win"}),
            )))  # fmt: skip
    if rng.random() < 0.2 and folders:
        judge.append(json.dumps({"skill": folders[0], "scores": {}}))  # no judge
        judge.append(json.dumps({"skill": folders[0], "judge": "jx", "scores": [1]}))
        matchups.append(json.dumps({"skill": folders[0], "opponent_elo": "1500", "result": "win"}))
        matchups.append(json.dumps({"skill": folders[0], "opponent_elo": True, "result": "win"}))
        matchups.append(json.dumps({"skill": folders[0], "opponent_elo": 1500, "result": "tie"}))
    return Corpus(skills, judge, mc, matchups, names)


def write(base: Path, corpora: Sequence[Corpus]) -> tuple[Path, dict[str, Path]]:
    """The skills of every corpus under one root, their lines in one file per kind."""
    root = base / "skills"
    for c in corpora:
        for folder, s in c.skills.items():
            d = root / folder
            d.mkdir(parents=True)
            (d / "SKILL.md").write_bytes(s.text.replace("\n", s.newline).encode())
            for key, sub in ((s.refs, "references"), (s.assets, "assets")):
                if key is not None:
                    (d / sub).mkdir()
                    for f in key:
                        (d / sub / f).write_text("x\n")
            for extra in s.dirs:
                (d / extra).mkdir(parents=True, exist_ok=True)
    files = {}
    for kind in ("judge", "mc", "matchups"):
        p = base / f"{kind}.jsonl"
        p.write_text("".join(ln + "\n" for c in corpora for ln in getattr(c, kind)))
        files[kind] = p
    return root, files
