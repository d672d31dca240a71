"""Raw features of skill folders (spec plugin-eval §2), for the SQL that scores them.

A skill is a document, not an event stream: each SKILL.md is read and parsed
here, once, and reduced to counts, flags and located matches. Python does this
part because the reference analyser's semantics are Python's: YAML via
``yaml.safe_load``, ``re`` with Unicode ``\\w``/``\\b`` and a look-behind (RE2
has neither), ``str.lower``/``strip``/``splitlines`` and universal-newline
reading. No weight, threshold or bonus lives here: every number that turns a
feature into a score is in ``sql/plugin/v1``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import pyarrow as pa
import yaml
from runscore.engine import sources, yaml_keys
from runscore.engine.quoting import quote
from runscore.engine.sources import LineIssue

SKILL_FILE = "SKILL.md"

# --------------------------------------------------------------------------- patterns
# Spelled exactly as spec §2-§4 (and the reference analyser) give them.

TRIGGER = re.compile(
    r"\b(?:should\s+be\s+)?used?\s+(?:this\s+skill\s+)?(?:immediately\s+)?"
    r"(?:when|after|before|whenever)\b"
    r"|\buse\s+proactively\b"
    r"|\btrigger(?:s)?\s+(?:when|on)\b"
    r"|\bauto[-\s]?loads?\s+(?:when|on)\b",
    re.IGNORECASE,
)
PROACTIVELY = re.compile(r"\bproactively\b")
TRIGGER_WORDS = re.compile(r"\bautomatically\b|\balways\s+use\b|\btrigger\b|\binvoke\b")
USE_CASES = re.compile(
    r",\s*(?:or\s+)?(?:when|for|during|implementing|building|creating|debugging|testing"
    r"|deploying|configuring|setting up)"
)
ING_CONTEXT = re.compile(r"\b(when\s+\w+ing|for\s+\w+ing|during\s+\w+ing)\b")

OUTPUT_FORMAT = re.compile(r"\boutput\b.*\bformat\b|\bformat\b.*\boutput\b|\breturn.*json\b")
#: OUTPUT_FORMAT's alternatives as (first, then) pairs: "first, then later on its line".
_OUTPUT_FORMAT_PAIRS = (
    (re.compile(r"\boutput\b"), re.compile(r"\bformat\b")),
    (re.compile(r"\bformat\b"), re.compile(r"\boutput\b")),
    (re.compile(r"\breturn"), re.compile(r"json\b")),
)
RETURNS = re.compile(r"\breturns?\b|\bproduces?\b|\boutputs?\b|\bgenerates?\b")
INPUTS = re.compile(r"\binput\b|\breceives?\b|\baccepts?\b|\bparameters?\b|\bargs?\b")
ORCHESTRATES = re.compile(r"\borchestrat\w*\b|\bcoordinat\w*\b|\bdispatch\w*\b")

H2 = re.compile(r"^## ")
H3 = re.compile(r"^### ")
FENCE = re.compile(r"```(\w*)")
EXAMPLES = re.compile(r"(## example|### example|## usage)")
TROUBLESHOOTING = re.compile(r"(## troubleshoot|## common issue|## faq)")
TABLE = re.compile(r"\|.*\|.*\|")
DECISION = re.compile(r"(decision|when to use|comparison|tradeoff)")

MUST = re.compile(r"\b(MUST|NEVER|ALWAYS)\b")
RELATED = re.compile(r"\brelated\b|\bsee also\b|\bcompanion\b|\bcomplement")
CROSS_REF = re.compile(r"(?<![\w-])((?:skill|skills|sub-skills)/[a-z0-9-]+(?:/[a-z0-9-]+)*)")
REF_LINK = re.compile(r"\(references/([^)]+)\)")

_TOOLS = "Read|Edit|Write|Bash|Grep|Glob|Agent|Task|TodoWrite|WebFetch|WebSearch|LS|LSP"
TOOL_REF = re.compile(
    rf"(?:\b(?:the|use|using|call|calling|invoke|invoking|via)\s+)`({_TOOLS})`"
    rf"|`({_TOOLS})`\s+tool\b",
    re.IGNORECASE,
)
TOOL_PROSE = re.compile(rf"(?i:\bthe)\s+(?:`)?({_TOOLS})(?:`)?\s+tool\b")
#: Every TOOL_REF match contains this; it starts with a literal, so `re` scans for it fast.
_TOOL_IN_TICKS = re.compile(rf"`(?:{_TOOLS})`", re.IGNORECASE)


def _then_on_its_line(text: str, first: re.Pattern[str], then: re.Pattern[str]) -> bool:
    """Same answer as ``re.search(first + ".*" + then, text)`` (``.`` not crossing "\\n"),
    in linear time. The regex retries ``.*`` from every ``first`` of a line that has no
    ``then`` after it, so one long line (minified code with thousands of ``return``) took
    minutes. A ``then`` after any ``first`` of a line is after its first one: only that
    one is tried, up to the end of its line (``search(text, pos, endpos)`` reads ``\\b``
    against the characters around, as the whole-text regex does)."""
    pos = 0
    while (a := first.search(text, pos)) is not None:
        end = text.find("\n", a.end())
        end = len(text) if end < 0 else end
        if then.search(text, a.end(), end) is not None:
            return True
        pos = end + 1
    return False


def _has_output_format(lower: str) -> bool:
    """``OUTPUT_FORMAT.search(lower) is not None``, in linear time (``_then_on_its_line``)."""
    if "format" not in lower and "json" not in lower:
        return False
    return any(_then_on_its_line(lower, a, b) for a, b in _OUTPUT_FORMAT_PAIRS)


def _search(pattern: re.Pattern[str], text: str, *needles: str) -> bool:
    """``pattern.search(text)``, skipped when no needle (a substring every match must
    contain) occurs: ``str`` containment is far cheaper than ``re`` on large files,
    and the answer is the same."""
    if needles and not any(n in text for n in needles):
        return False
    return pattern.search(text) is not None


#: How many MUST/NEVER/ALWAYS line numbers to keep as evidence.
_MUST_EVIDENCE = 5

# --------------------------------------------------------------------------- schemas

FEATURES_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),  # discovery order (roots as given, folders sorted)
        ("skill", pa.string()),  # path relative to its root ("/"-separated)
        ("path", pa.string()),  # the skill folder as found (root joined)
        ("skill_md", pa.string()),  # display path of SKILL.md
        ("folder", pa.string()),  # folder name (the name bonus compares with it)
        ("name", pa.string()),  # display name: frontmatter name, else folder
        ("content_sha256", pa.string()),
        ("has_frontmatter", pa.bool_()),
        # Why the frontmatter (or what opens as one) was not read, and its line; else null.
        ("fm_unread", pa.string()),
        ("fm_unread_line", pa.int64()),
        ("name_present", pa.bool_()),  # frontmatter/folder name is truthy
        ("name_is_folder", pa.bool_()),
        ("description", pa.string()),
        ("desc_len", pa.int64()),  # len(description.strip())
        ("desc_line", pa.int64()),  # line of the frontmatter's description key, else null
        ("desc_trigger", pa.bool_()),
        ("desc_proactively", pa.bool_()),
        ("desc_trigger_words", pa.bool_()),
        ("desc_use_cases", pa.int64()),
        ("desc_ing_context", pa.bool_()),
        ("disable_model_invocation", pa.bool_()),
        ("paths_trigger", pa.bool_()),  # frontmatter `paths` is a non-empty string
        ("line_count", pa.int64()),  # L
        ("byte_count", pa.int64()),  # UTF-8 bytes of the (newline-translated) text
        ("headings", pa.int64()),  # h2 + h3
        ("fences", pa.int64()),
        ("languages", pa.int64()),  # distinct non-empty fence languages
        ("has_examples", pa.bool_()),
        ("has_troubleshooting", pa.bool_()),
        ("has_table", pa.bool_()),
        ("has_decision", pa.bool_()),
        ("has_output_format", pa.bool_()),
        ("has_returns", pa.bool_()),
        ("has_inputs", pa.bool_()),
        ("orchestrates", pa.bool_()),
        ("has_references_dir", pa.bool_()),
        ("reference_files", pa.int64()),
        ("has_assets_dir", pa.bool_()),
        ("asset_files", pa.int64()),
        ("must_count", pa.int64()),
        ("must_lines", pa.list_(pa.int64())),  # first few lines with a directive
        ("rep_total", pa.int64()),
        ("rep_distinct", pa.int64()),
        ("cross_refs", pa.int64()),
        ("has_related", pa.bool_()),
        ("tool_names", pa.list_(pa.string())),  # distinct, sorted, as written
        ("tool_prose", pa.bool_()),
        ("tool_prose_line", pa.int64()),
    ]
)

LINKS_SCHEMA = pa.schema(
    [
        ("skill_md", pa.string()),
        ("ord", pa.int64()),
        ("target", pa.string()),  # "references/<link>"
        ("line", pa.int64()),
        ("exists", pa.bool_()),
    ]
)

XREFS_SCHEMA = pa.schema(
    [
        ("skill_md", pa.string()),
        ("ord", pa.int64()),
        ("target", pa.string()),  # leading skill/ or skills/ removed
        ("written", pa.string()),  # as written in the text
        ("line", pa.int64()),
        ("exists", pa.bool_()),
    ]
)


@dataclass
class SkillScan:
    """Features of every readable skill under the roots, plus what went wrong."""

    features: pa.Table
    links: pa.Table
    xrefs: pa.Table
    #: Skills that could not be scored (unreadable, not UTF-8) or roots not found.
    issues: list[LineIssue] = field(default_factory=list)
    #: Scored, but something was odd (e.g. frontmatter that is not a mapping).
    warnings: list[LineIssue] = field(default_factory=list)


# --------------------------------------------------------------------------- discovery


def find_skills(roots: Sequence[str]) -> tuple[list[tuple[str, str]], list[LineIssue]]:
    """Every folder holding a SKILL.md under the roots: (root, folder), sorted per root."""
    found: list[tuple[str, str]] = []
    issues: list[LineIssue] = []
    seen: set[str] = set()
    for root in roots:
        if os.path.basename(root) == SKILL_FILE and os.path.isfile(root):
            # A skill is named by its SKILL.md as often as by its folder (judge lines may
            # be, and shells complete to the file): the file names that one skill, scored
            # and named as if its folder were the root; skills nested in its folder are
            # not walked, as the file names none of them.
            folder = os.path.dirname(root) or os.curdir
            key = os.path.realpath(folder)
            if key not in seen:
                seen.add(key)
                found.append((folder, folder))
            continue
        if not os.path.isdir(root):
            reason = (
                f"not a directory (give the folder holding a {SKILL_FILE}, or that {SKILL_FILE})"
                if os.path.exists(root)
                else "no such directory"
            )
            issues.append(LineIssue(root, 0, reason))
            continue
        holds_skill = False  # a SKILL.md under this root, even one another root found first

        def onerror(e: OSError, root: str = root) -> None:
            issues.append(
                LineIssue(str(e.filename or root), 0, f"cannot read directory: {e.strerror}")
            )

        # Linked folders are followed (skills are often linked into a plugin's folder from
        # where they are kept); a folder reached twice, as a link back up makes it, is
        # walked once.
        walked: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
            real = os.path.realpath(dirpath)
            if real in walked:
                dirnames[:] = []
                continue
            walked.add(real)
            dirnames.sort()
            # A folder named SKILL.md (or a link to one) is found as a link to nowhere is:
            # its skill is reported unreadable (reading it says "Is a directory"), where
            # the walk went past it without a word.
            if SKILL_FILE in filenames or SKILL_FILE in dirnames:
                holds_skill = True
                key = os.path.realpath(dirpath)
                if key not in seen:
                    seen.add(key)
                    found.append((root, dirpath))
        if not holds_skill:
            issues.append(LineIssue(root, 0, f"no {SKILL_FILE} found under this root"))
    return found, issues


def _rel_skill(root: str, folder: str) -> str:
    rel = os.path.relpath(folder, root)
    if rel == ".":
        # The root itself is the skill: name it by its folder.
        return Path(os.path.abspath(folder)).name
    return PurePosixPath(*Path(rel).parts).as_posix()


# --------------------------------------------------------------------------- parsing


class ForeignEncoding(ValueError):
    """SKILL.md is text in UTF-16 or UTF-32, not UTF-8: the reason, as said of JSONL inputs."""


#: Bytes of SKILL.md's start looked at to tell UTF-16 or UTF-32 text (as for a JSONL input).
_ENCODING_SAMPLE = 32


def decode(data: bytes) -> str:
    """SKILL.md as the reference reads it: strict UTF-8, universal newlines.

    ``Path.read_text()`` translates ``\\r\\n`` and a lone ``\\r`` to ``\\n``; L, the
    byte count and every line-based feature depend on it. A decoding error is
    raised (and reported by the caller), as is ``ForeignEncoding``: UTF-16 without a
    byte-order mark is valid UTF-8 (a NUL beside each ASCII character), so it was scored
    as a file of NULs, no frontmatter and one line; with the mark it was "not valid UTF-8
    (byte 1)", which says neither what the file is nor how to convert it.
    """
    encoding = sources.foreign_encoding(data[:_ENCODING_SAMPLE])
    if encoding is not None:
        raise ForeignEncoding(
            sources.encoding_reason(*encoding, f"runscore reads {SKILL_FILE} as UTF-8")
        )
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _load_yaml(src: str) -> tuple[Any, dict[str, int], list[tuple[int, Any, int]]]:
    """``yaml.safe_load(src)`` (the same steps, so the same object and the same errors),
    the lines of ``src`` (0-based) of its top-level ``name`` and ``description`` keys, when
    it has them: the line an EMPTY_DESCRIPTION or MISSING_TRIGGER flag is about (spec §8),
    and a warning about either value, and the keys given twice, as (line of the second,
    0-based; the key; line of the first)."""
    data, node, duplicates = yaml_keys.load(src)
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            # The last one: a repeated key's last value is the one safe_load keeps.
            if isinstance(key, yaml.ScalarNode) and key.value in ("name", "description"):
                lines[key.value] = key.start_mark.line
    dups = [(mark.line, key, first) for key, mark, first in duplicates]
    return data, lines, sorted(dups, key=lambda d: d[0])


#: Why a file's frontmatter was not read, and the line that says so: (line, why), for the
#: anti-patterns' evidence. None when it was read, or when the file has none.
Unread = tuple[int, str] | None


def split_frontmatter(
    text: str,
) -> tuple[Any, str, bool, list[tuple[int, str]], dict[str, int], Unread]:
    """(frontmatter object, body, had a frontmatter block, [(line, problem)], lines of the
    ``name`` and ``description`` keys it has, why the frontmatter was not read) per spec §2.

    Invalid YAML reads as empty, as in the reference. A loader failure that is
    not a YAML syntax error (e.g. an impossible date) crashes the reference;
    here it also reads as empty. Either is returned as a warning, as are a BOM and
    a missing closing ``---``: each costs the skill its name and description, and
    without a word the user cannot tell why. So is a key given twice: the last value
    is read, as the reference reads it, and which one was meant cannot be known.
    """
    if not text.startswith("---"):
        if text.startswith("\ufeff---"):
            return (
                {},
                text,
                False,
                [
                    (
                        1,
                        "file starts with a byte-order mark, so its frontmatter is not read "
                        "(only a file starting with --- has one); save it without the BOM",
                    )
                ],
                {},
                (1, "the file starts with a byte-order mark, which hides its frontmatter"),
            )
        return {}, text, False, [], {}, None
    parts = text.split("---", 2)
    if len(parts) < 3:
        return (
            {},
            text,
            False,
            [(1, "frontmatter is not closed (no second ---); the whole file is read as the body")],
            {},
            (1, "the frontmatter is not closed (no second ---)"),
        )
    try:
        fm, key_at, duplicates = _load_yaml(parts[1])
        fm = fm or {}
    except yaml.YAMLError as e:
        # The YAML starts on line 1, right after the opening ---.
        mark = getattr(e, "problem_mark", None)
        line = 1 + mark.line if mark is not None else 1
        what = " ".join(str(getattr(e, "problem", None) or type(e).__name__).split())
        reason = f"frontmatter is not valid YAML ({what}); read as empty"
        unread = (line, f"the frontmatter is not valid YAML ({what})")
        if not parts[1].endswith("\n"):
            # A --- inside a value ("a --- b") closes the frontmatter mid-line.
            line = parts[1].count("\n") + 1
            reason += f": the --- on line {line} ends it, though it is not a line of its own"
            unread = (
                line,
                f"the --- on line {line} ends the frontmatter mid-line, and it is not valid "
                f"YAML ({what})",
            )
        return {}, parts[2], True, [(line, reason)], {}, unread
    except (ValueError, TypeError, OverflowError, RecursionError) as e:
        return (
            {},
            parts[2],
            True,
            [(1, f"frontmatter could not be loaded ({type(e).__name__}); read as empty")],
            {},
            (1, f"the frontmatter could not be loaded ({type(e).__name__})"),
        )
    # The YAML starts on line 1, right after the opening ---.
    key_lines = {key: 1 + line for key, line in key_at.items()}
    problems = [
        (
            1 + line,
            f"frontmatter key {quote(key)} is given twice (first on line {1 + first}); YAML "
            "requires keys to be unique: the last value is read",
        )
        for line, key, first in duplicates
    ]
    if parts[1].strip() and not parts[1].endswith("\n"):
        # "description: a --- b": the frontmatter ends at that ---, its YAML still loads,
        # and the description is "a" (spec §2); the rest of the line goes to the body.
        line = parts[1].count("\n") + 1
        problems.append(
            (
                line,
                f"the --- on line {line} ends the frontmatter, though it is not a line of its "
                "own: what follows it is read as the body",
            )
        )
    return fm, parts[2], True, problems, key_lines, None


def _expands_beyond(value: Any, limit: int) -> bool:
    """Does ``value`` hold more than ``limit`` values once YAML aliases are expanded?

    ``safe_load`` shares an aliased node instead of copying it, so ten lines of nested
    aliases ("billion laughs") load at once but ``str()`` of them would not finish. A
    structure without aliases has fewer values than its text has characters, so
    ``limit`` = the text's length flags only what aliases multiplied.
    """
    seen, stack = 0, [value]
    while stack:
        v = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list | tuple | set):
            stack.extend(v)
    return False


class _LineOf:
    """Line numbers of offsets into ``text`` asked in increasing order (as ``finditer``
    yields them): each answer counts only the newlines since the previous one. Counting
    from the start for every match made a large SKILL.md with thousands of directives,
    links or cross-references quadratic (a 2 MB file took a minute and a half)."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _first_lines(text: str, matches: Iterable[re.Match[str]], limit: int) -> list[int]:
    """The first ``limit`` distinct lines holding a match (matches in text order)."""
    line_of = _LineOf(text)
    lines: list[int] = []
    for m in matches:
        line = line_of(m.start())
        if not lines or lines[-1] != line:
            lines.append(line)
            if len(lines) == limit:
                break
    return lines


def _files_in(folder: str) -> tuple[bool, int, list[str]]:
    """(folder exists, number of plain files directly in it, their names).

    A plain file named like the folder is no folder (spec: "no `references/` folder").
    """
    if not os.path.isdir(folder):
        return False, 0, []
    try:
        names = [e.name for e in os.scandir(folder) if e.is_file()]
    except OSError:
        names = []  # a folder that cannot be listed holds no file we can count
    return True, len(names), names


def extract(
    root: str, folder: str
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[LineIssue]]:
    """Features of one skill folder. Raises OSError / UnicodeDecodeError / ForeignEncoding
    when unreadable."""
    skill_md = os.path.join(folder, SKILL_FILE)
    # Non-blocking open: a FIFO named SKILL.md would otherwise wait for a writer for ever.
    fd = os.open(skill_md, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            # A FIFO or a device (/dev/zero never ends): not a file to score.
            raise OSError(0, "not a regular file")
        raw = f.read()
    text = decode(raw)
    warnings: list[LineIssue] = []

    fm, body, has_fm, problems, key_lines, unread = split_frontmatter(text)
    warnings.extend(LineIssue(skill_md, line, why) for line, why in problems)
    if not isinstance(fm, dict):
        warnings.append(LineIssue(skill_md, 1, "frontmatter is not a mapping; read as empty"))
        fm, key_lines = {}, {}
        unread = (1, "the frontmatter is not a mapping")
    # A warning about a value names its key's line, as its anti-patterns' evidence does.
    desc_line = key_lines.get("description")
    name_line = key_lines.get("name", 1)
    folder_name = Path(os.path.abspath(folder)).name
    name_raw = fm.get("name", folder_name)
    desc_raw = fm.get("description", "")
    if desc_raw is None:
        description = ""
    elif isinstance(desc_raw, str):
        description = desc_raw
    elif _expands_beyond(desc_raw, len(text)):
        warnings.append(
            LineIssue(
                skill_md,
                desc_line or 1,
                "frontmatter description expands its aliases too far; read as empty",
            )
        )
        description = ""
    else:
        warnings.append(
            LineIssue(skill_md, desc_line or 1, "frontmatter description is not text; read as text")
        )
        description = str(desc_raw)
    desc_lower = description.lower()
    d = len(description.strip())

    lower = text.lower()
    body_lines = body.strip().split("\n")
    fences = FENCE.findall(text)
    langs = {x for x in fences if x}

    refs_dir = os.path.join(folder, "references")
    has_refs, n_refs, ref_names = _files_in(refs_dir)
    has_assets, n_assets, _ = _files_in(os.path.join(folder, "assets"))

    has_must = "MUST" in text or "NEVER" in text or "ALWAYS" in text
    musts = list(MUST.finditer(text)) if has_must else []
    rep = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("---")]

    # Prefilters (necessary conditions, same answers): every TOOL_REF match holds a
    # backticked tool name; every TOOL_PROSE match the word "tool".
    tool_hits = (
        {m.group(1) or m.group(2) for m in TOOL_REF.finditer(text)}
        if _TOOL_IN_TICKS.search(text)
        else set()
    )
    prose = TOOL_PROSE.search(text) if "tool" in text else None

    body_offset = len(text) - len(body)
    # Absolute: the parent of "." is "." itself, so `plugin score .` from inside the skill
    # folder looked for its siblings inside it and reported them dead.
    skill_path = Path(os.path.abspath(folder))
    xrefs: list[dict[str, Any]] = []
    xref_line = _LineOf(text)
    resolved: dict[str, bool] = {}  # a path named again is not looked up again
    xref_matches = CROSS_REF.finditer(body) if "skill/" in body or "skills/" in body else iter(())
    for i, m in enumerate(xref_matches):
        written = m.group(1)
        ref = written.split("/", 1)[1] if written.startswith(("skill/", "skills/")) else written
        exists = resolved.get(ref)
        if exists is None:
            exists = (skill_path.parent / ref).exists()
            if not exists and ref.startswith("sub-skills/"):
                exists = (skill_path / ref).exists()
            resolved[ref] = exists
        xrefs.append(
            {
                "skill_md": skill_md,
                "ord": i,
                "target": ref,
                "written": written,
                "line": xref_line(body_offset + m.start(1)),
                "exists": exists,
            }
        )

    existing = {n.lower() for n in ref_names}
    link_line = _LineOf(text)
    links = [
        {
            "skill_md": skill_md,
            "ord": i,
            "target": "references/" + m.group(1),
            "line": link_line(m.start()),
            "exists": PurePosixPath(m.group(1)).name.lower() in existing,
        }
        # Every match ends at a ")": past the last one none can start and end, and the regex
        # read from each "(references/" there to the end of the file (quadratic).
        for i, m in enumerate(REF_LINK.finditer(text, 0, text.rfind(")") + 1))
    ]

    paths = fm.get("paths")
    display_name = name_raw if isinstance(name_raw, str) and name_raw else folder_name
    if name_raw and not isinstance(name_raw, str):
        if _expands_beyond(name_raw, len(text)):
            warnings.append(
                LineIssue(
                    skill_md,
                    name_line,
                    "frontmatter name expands its aliases too far; shown as the folder name",
                )
            )
        else:
            warnings.append(
                LineIssue(skill_md, name_line, "frontmatter name is not text; read as text")
            )
            display_name = str(name_raw)
    elif not name_raw:
        # `name:` with no value (or 0, false, []) is there, so the folder name does not
        # stand in for it: the skill loses the name points (spec §3) as in the reference.
        what = (
            "is empty" if name_raw is None or name_raw == "" else "is not text and reads as empty"
        )
        warnings.append(
            LineIssue(
                skill_md,
                name_line,
                f"frontmatter name {what}; shown as the folder name, with no name points",
            )
        )
    row: dict[str, Any] = {
        "skill": _rel_skill(root, folder),
        "path": folder,
        "skill_md": skill_md,
        "folder": folder_name,
        "name": display_name,
        "content_sha256": hashlib.sha256(raw).hexdigest(),
        "has_frontmatter": has_fm,
        "fm_unread": None if unread is None else unread[1],
        "fm_unread_line": None if unread is None else unread[0],
        "name_present": bool(name_raw),
        "name_is_folder": bool(name_raw == folder_name),
        "description": description,
        "desc_len": d,
        "desc_line": desc_line,
        "desc_trigger": TRIGGER.search(description) is not None,
        "desc_proactively": PROACTIVELY.search(desc_lower) is not None,
        "desc_trigger_words": TRIGGER_WORDS.search(desc_lower) is not None,
        "desc_use_cases": len(USE_CASES.findall(desc_lower)),
        "desc_ing_context": ING_CONTEXT.search(desc_lower) is not None,
        "disable_model_invocation": fm.get("disable-model-invocation") is True,
        "paths_trigger": isinstance(paths, str) and paths != "",
        "line_count": len(text.split("\n")),
        "byte_count": len(text.encode("utf-8")),
        "headings": sum(1 for ln in body_lines if H2.match(ln))
        + sum(1 for ln in body_lines if H3.match(ln)),
        "fences": len(fences),
        "languages": len(langs),
        "has_examples": EXAMPLES.search(body.lower()) is not None,
        "has_troubleshooting": TROUBLESHOOTING.search(body.lower()) is not None,
        "has_table": TABLE.search(text) is not None,
        "has_decision": _search(
            DECISION, lower, "decision", "when to use", "comparison", "tradeoff"
        ),
        "has_output_format": _has_output_format(lower),
        "has_returns": _search(RETURNS, lower, "return", "produce", "output", "generate"),
        "has_inputs": _search(INPUTS, lower, "input", "receive", "accept", "parameter", "arg"),
        "orchestrates": _search(ORCHESTRATES, lower, "orchestrat", "coordinat", "dispatch"),
        "has_references_dir": has_refs,
        "reference_files": n_refs,
        "has_assets_dir": has_assets,
        "asset_files": n_assets,
        "must_count": len(musts),
        "must_lines": _first_lines(text, musts, _MUST_EVIDENCE),
        "rep_total": len(rep),
        "rep_distinct": len(set(rep)),
        "cross_refs": len(xrefs),
        "has_related": _search(RELATED, lower, "related", "see also", "companion", "complement"),
        "tool_names": sorted(tool_hits),
        "tool_prose": prose is not None,
        "tool_prose_line": _line_at(text, prose.start()) if prose else None,
    }
    # In line order, as a reader goes down the file: the name's warning came after the
    # description's though `name:` is written first.
    warnings.sort(key=lambda w: w.line)
    return row, links, xrefs, warnings


def scan(roots: Sequence[str]) -> SkillScan:
    """Find and read every skill under ``roots``; unreadable ones are reported, not fatal."""
    found, issues = find_skills(roots)
    rows: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    xrefs: list[dict[str, Any]] = []
    warnings: list[LineIssue] = []
    for root, folder in found:
        skill_md = os.path.join(folder, SKILL_FILE)
        try:
            row, lk, xr, warn = extract(root, folder)
        except UnicodeDecodeError as e:
            line = e.object[: e.start].count(b"\n") + 1
            issues.append(LineIssue(skill_md, line, f"not valid UTF-8 (byte {e.start + 1})"))
            continue
        except ForeignEncoding as e:
            issues.append(LineIssue(skill_md, 0, str(e)))
            continue
        except OSError as e:
            issues.append(LineIssue(skill_md, 0, f"cannot read file: {e.strerror or e}"))
            continue
        row["seq"] = len(rows) + 1
        rows.append(row)
        links.extend(lk)
        xrefs.extend(xr)
        warnings.extend(warn)
    return SkillScan(
        features=_table(rows, FEATURES_SCHEMA),
        links=_table(links, LINKS_SCHEMA),
        xrefs=_table(xrefs, XREFS_SCHEMA),
        issues=issues,
        warnings=warnings,
    )


def _table(rows: Iterable[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=schema)
